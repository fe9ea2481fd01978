"""The when_blocked decision: replan only for newly blocked poses ahead, a start off the path,
a new map geometry, no path, or a reachable free cell nearer the goal a path stops short of;
a start inside the inflated band keeps its path."""

from __future__ import annotations

import numpy as np

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.grid.patching import MapPatch, patch_grid
from grid_planner.grid.path_checks import ShortOf, replan_reason
from grid_planner.grid.planner import plan
from grid_planner.grid.planning_grid import PlanningGrid

ROW = np.array([[x + 0.5, 5.5] for x in range(1, 29)])  # cells (1, 5) .. (28, 5)


def open_grid(**settings) -> PlanningGrid:
    return PlanningGrid(OccupancyMap.from_rows(np.zeros((11, 30), dtype=np.int8)), **settings)


def wall(x: int, y: int, height: int) -> MapPatch:
    return MapPatch(x, y, 1, height, np.full(height, 100, dtype=np.int8))


def test_a_patch_on_the_path_ahead_replans_naming_the_pose():
    grid = open_grid()
    after = patch_grid(grid, wall(15, 2, 7))
    assert replan_reason(grid, after, ROW, (1.5, 5.5)) == "pose 14 of the path is now blocked"


def test_a_patch_off_the_path_or_behind_the_robot_keeps_it():
    grid = open_grid()
    assert replan_reason(grid, patch_grid(grid, wall(15, 8, 3)), ROW, (1.5, 5.5)) is None
    behind = patch_grid(grid, wall(3, 2, 7))
    assert replan_reason(grid, behind, ROW, (20.5, 5.5)) is None
    assert replan_reason(grid, behind, ROW, None) == "pose 2 of the path is now blocked"


def test_a_start_off_the_path_no_path_or_a_new_geometry_replans():
    grid = open_grid()
    assert replan_reason(grid, grid, ROW, (10.5, 7.6)) == "the start has left the path"
    assert replan_reason(grid, grid, ROW, (10.5, 7.4)) is None  # within 2 cells
    assert replan_reason(grid, grid, None, None) == "there is no current path"
    wider = PlanningGrid(OccupancyMap.from_rows(np.zeros((11, 31), dtype=np.int8)))
    assert replan_reason(grid, wider, ROW, None) == "the map's geometry changed"
    assert replan_reason(None, grid, ROW, None) == "the map's geometry changed"


def test_a_start_in_the_inflated_band_keeps_its_path_when_nothing_new_blocks_it():
    # An obstacle beside the start: the first poses lie in the band, blocked before and after.
    values = np.zeros((11, 30), dtype=np.int8)
    values[4, 1] = 100  # row 4 printed from the top is y = 6, next to the start (1, 5)
    grid = PlanningGrid(OccupancyMap.from_rows(values), robot_radius=1.0)
    assert grid.points_blocked(ROW[:1]).all()
    after = patch_grid(grid, wall(20, 9, 2))
    assert replan_reason(grid, after, ROW, (1.5, 5.5)) is None


NEARER = "a cell nearer the goal than the path's end is free and reachable now"


def test_a_path_short_of_its_goal_replans_when_a_cell_nearer_the_goal_is_freed():
    # The goal (28, 5) lies in a blocked block (cells x 27..29, y 3..7); goal_tolerance chose
    # (26, 5), 2 cells from it. It was never replanned when a map uncovered the goal.
    before = patch_grid(open_grid(), MapPatch(27, 3, 3, 5, np.full(15, 100, dtype=np.int8)))
    path, short_of = ROW[:26], ShortOf(goal=(28, 5), reached=(26, 5))

    def freeing(x: int, y: int, width: int = 1) -> PlanningGrid:
        return patch_grid(before, MapPatch(x, y, width, 1, np.zeros(width, dtype=np.int8)))

    assert replan_reason(before, freeing(27, 5, 2), path, (1.5, 5.5), short_of) == NEARER
    assert replan_reason(before, freeing(27, 5), path, (1.5, 5.5), short_of) == NEARER
    # The goal's cell alone is an island in the block: no path ends nearer for it.
    assert replan_reason(before, freeing(28, 5), path, (1.5, 5.5), short_of) is None
    # (27, 7) is sqrt 5 cells from the goal, farther than the end: no better end there.
    assert replan_reason(before, freeing(27, 7), path, (1.5, 5.5), short_of) is None
    assert replan_reason(before, before, path, (1.5, 5.5), short_of) is None
    # With no robot pose, reachability is judged from the path's first point.
    assert replan_reason(before, freeing(27, 5, 2), path, None, short_of) == NEARER
    # A path that reaches its goal is not replanned for cells freed near it.
    assert replan_reason(before, freeing(27, 5, 2), path, (1.5, 5.5)) is None


def test_a_path_short_of_a_walled_off_goal_replans_when_a_door_far_from_it_opens():
    # A closed room (walls x 20..28, y 1..9) around the free goal (24, 5): the tolerance of 5
    # cells chose (19, 5) outside it. A door at (20, 8), 5 cells from the goal as that end is,
    # makes the goal reachable: freed cells nearer the goal than the end cannot tell it.
    values = np.zeros((11, 30), dtype=np.int8)
    values[1:10, 20] = values[1:10, 28] = 100
    values[1, 20:29] = values[9, 20:29] = 100
    before = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))
    short = plan(before, (1, 5), (24, 5), "astar", tolerance_cells=5)
    short_of = ShortOf.of(short)
    assert short_of == ShortOf(goal=(24, 5), reached=(19, 5))
    door = patch_grid(before, MapPatch(20, 8, 1, 1, np.zeros(1, dtype=np.int8)))
    points = np.array([(x + 0.5, y + 0.5) for x, y in short.cells])
    assert replan_reason(before, door, points, (1.5, 5.5), short_of) == NEARER
    assert not plan(door, (1, 5), (24, 5), "astar", tolerance_cells=5).goal_adjusted


def test_short_of_is_read_from_a_plan_that_the_tolerance_moved():
    before = patch_grid(open_grid(), MapPatch(27, 3, 3, 5, np.full(15, 100, dtype=np.int8)))
    moved = plan(before, (1, 5), (28, 5), "astar", tolerance_cells=3)
    assert ShortOf.of(moved) == ShortOf(goal=(28, 5), reached=(26, 5))
    assert ShortOf.of(plan(before, (1, 5), (20, 5), "astar")) is None
    assert ShortOf.of(None) is None
