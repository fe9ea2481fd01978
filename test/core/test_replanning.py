"""The when_blocked decision: replan only for newly blocked poses ahead, a start off the path,
a new map geometry or no path; a start inside the inflated band keeps its path."""

from __future__ import annotations

import numpy as np

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.grid.patching import MapPatch, patch_grid
from grid_planner.grid.path_checks import replan_reason
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
