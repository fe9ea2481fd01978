"""The planning API: the tutorial grid, failures, tolerance, inflated starts, a real map (how a
plan runs, its budgets and buffers: `test_grid_runs`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from draw_maps import TUTORIAL_GOAL_CELL, TUTORIAL_START_CELL
from grid_fixtures import (
    BACKEND_PARAMS,
    GRID_ALGORITHMS,
    BruteForceRules,
    assert_valid_path,
    kernel,
    needs_numba,
    open_grid,
    tutorial_map,
)
from shared_data import shared_path

from grid_planner.grid import (
    MAX_SANE_PATH_POSES,
    GoalOccupied,
    GoalOutsideMap,
    InvalidPlanner,
    NoValidPathFound,
    OccupancyMap,
    PlannerCancelled,
    PlannerError,
    PlannerTimedOut,
    PlanningGrid,
    StartOccupied,
    StartOutsideMap,
    algorithm_info,
    load_map,
    plan,
    plan_world,
    search_grid,
    targets,
)
from grid_planner.search import SearchStatus

pytestmark = kernel

ALL = sorted(GRID_ALGORITHMS)


# --- the tutorial grid ------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
@pytest.mark.parametrize("algorithm", ALL)
def test_tutorial_grid_paths_are_valid_and_the_optimal_ones_have_16_steps(algorithm, backend):
    occupancy = tutorial_map()
    grid = PlanningGrid(occupancy)
    found = plan(grid, TUTORIAL_START_CELL, TUTORIAL_GOAL_CELL, algorithm, backend=backend)
    rules = BruteForceRules(occupancy.grid2d())
    assert_valid_path(rules, found.cells, TUTORIAL_START_CELL, TUTORIAL_GOAL_CELL)
    if algorithm_info(algorithm).optimal:
        assert found.length == 16
        assert found.optimal
    else:
        assert found.length >= 16
        assert not found.optimal
    assert found.length_m == found.length * 1.0
    assert found.result.solved and found.result.length == found.length
    assert found.result.states.tolist() == found.indices.tolist()
    assert found.nodes_expanded > 0 and found.nodes_generated > found.nodes_expanded // 2
    assert found.max_frontier >= 1 and found.elapsed >= 0.0


def test_shipped_tutorial_yaml_gives_length_16():
    grid = PlanningGrid(load_map(Path(__file__).parents[2] / "config/maps/tutorial_grid.yaml"))
    assert plan(grid, (0, 7), (9, 0), "bfs").length == 16
    assert plan(grid, (0, 7), (9, 0), "astar").length == 16
    # In world metres: cell centres at (0.5, 7.5) and (9.5, 0.5).
    found = plan_world(grid, (0.5, 7.5), (9.2, 0.9))
    assert found.length == 16
    assert found.poses[0].tolist() == [0.5, 7.5]
    assert found.poses[-1].tolist() == [9.5, 0.5]


@needs_numba
def test_kernel_bfs_and_dfs_paths_are_identical_to_the_reference_ones():
    grid = PlanningGrid(tutorial_map())
    for algorithm in ("bfs", "dfs"):
        fast = plan(grid, (0, 7), (9, 0), algorithm, backend="numba")
        slow = plan(grid, (0, 7), (9, 0), algorithm, backend="reference")
        assert fast.cells == slow.cells
        assert fast.result.actions.tolist() == slow.result.actions.tolist()
        assert fast.nodes_expanded == slow.nodes_expanded


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
def test_a_grid_result_holds_the_path_and_the_direction_names_as_arrays(backend):
    grid = open_grid(3, 3)
    found = plan(grid, (0, 0), (1, 1), "bfs", backend=backend)
    assert found.result.states is found.indices
    assert found.result.states.tolist() == [0, 1, 4]
    assert found.result.actions.tolist() == ["east", "north"]
    walled = PlanningGrid(OccupancyMap.from_rows([[0, 100, 0]]))
    lost = search_grid(walled, 0, [2], "bfs", backend=backend).result
    assert lost.status is SearchStatus.NO_SOLUTION
    assert (lost.states.shape, lost.actions.shape, lost.length) == ((0,), (0,), 0)


def test_start_equal_to_goal_gives_a_one_cell_path():
    for algorithm in ALL:
        found = plan(open_grid(3, 3), (1, 1), (1, 1), algorithm)
        assert found.cells == [(1, 1)]
        assert found.length == 0 and found.poses.shape == (1, 2)


def test_summary_has_the_cli_json_fields():
    grid = PlanningGrid(tutorial_map())
    summary = plan(grid, (0, 7), (9, 0)).summary()
    for key in ("status", "length", "nodes_expanded", "nodes_generated", "planning_time"):
        assert key in summary
    assert summary["path"][0] == [0, 7] and summary["path"][-1] == [9, 0]
    assert summary["poses"][0] == [0.5, 7.5]
    assert summary["length"] == 16


# --- failures ---------------------------------------------------------------------------------


def test_unknown_algorithm_raises_invalid_planner_listing_the_choices():
    with pytest.raises(InvalidPlanner, match="astar") as caught:
        plan(open_grid(2, 2), (0, 0), (1, 1), "teleport")
    assert caught.value.error_code == 201


@pytest.mark.parametrize(
    ("start", "goal", "error", "code"),
    [((-1, 0), (1, 1), StartOutsideMap, 203), ((0, 0), (2, 0), GoalOutsideMap, 204)],
)
def test_cells_outside_the_map_are_reported(start, goal, error, code):
    with pytest.raises(error) as caught:
        plan(open_grid(2, 2), start, goal)
    assert caught.value.error_code == code
    assert "outside" in str(caught.value)


def test_world_points_outside_the_map_name_their_coordinates():
    grid = PlanningGrid(
        OccupancyMap.from_rows(np.zeros((4, 4)), resolution=0.5, origin=(-1, -1, 0))
    )
    with pytest.raises(StartOutsideMap, match=r"\(-1\.100, 0\.000\) m"):
        plan_world(grid, (-1.1, 0.0), (0.0, 0.0))
    with pytest.raises(GoalOutsideMap, match=r"\(1\.000, 0\.000\) m"):
        plan_world(grid, (0.0, 0.0), (1.0, 0.0))
    with pytest.raises(ValueError, match="finite"):
        plan_world(grid, (float("nan"), 0.0), (0.0, 0.0))
    # Far away: a compact number, and no clamped cell index.
    with pytest.raises(GoalOutsideMap) as caught:
        plan_world(grid, (0.0, 0.0), (1e300, 0.0))
    assert str(caught.value) == (
        "goal (1e+300, 0.000) m lies outside the map (a 4 x 4 map at 0.5 m with origin "
        "(-1.000, -1.000))"
    )
    # A map from ROS carries its resolution as a float32: 0.1 arrives as 0.10000000149.
    coarse = PlanningGrid(OccupancyMap.from_rows(
        np.zeros((4, 4)), resolution=float(np.float32(0.1))))
    with pytest.raises(GoalOutsideMap, match=r"a 4 x 4 map at 0\.1 m with origin"):
        plan_world(coarse, (0.0, 0.0), (1.0, 0.0))


def test_lethal_start_raises_start_occupied_naming_cell_and_world_point():
    grid = PlanningGrid(tutorial_map())
    with pytest.raises(StartOccupied) as caught:
        plan(grid, (7, 7), (0, 0))
    assert "cell (7, 7)" in str(caught.value) and "(7.500, 7.500) m" in str(caught.value)
    assert caught.value.error_code == 205


def test_unknown_start_is_lethal_unless_unknown_is_allowed():
    occupancy = OccupancyMap.from_rows([[-1, 0, 0]])
    with pytest.raises(StartOccupied, match="unknown"):
        plan(PlanningGrid(occupancy), (0, 0), (2, 0))
    assert plan(PlanningGrid(occupancy, allow_unknown=True), (0, 0), (2, 0)).length == 2


def test_blocked_goal_with_zero_tolerance_raises_goal_occupied():
    grid = PlanningGrid(tutorial_map())
    with pytest.raises(GoalOccupied) as caught:
        plan(grid, (0, 7), (7, 7))
    assert caught.value.error_code == 206
    assert "cell (7, 7)" in str(caught.value)
    assert str(caught.value).endswith("and the goal tolerance reaches no other cell")


def test_inflated_goal_is_blocked_too():
    values = np.zeros((1, 6), dtype=np.int8)
    values[0, 5] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values), robot_radius=1.0)
    with pytest.raises(GoalOccupied, match="inflated"):
        plan(grid, (0, 0), (4, 0))


def test_unreachable_goal_raises_no_valid_path_without_searching():
    values = np.zeros((3, 5), dtype=np.int8)
    values[:, 2] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values))
    for algorithm in ALL:
        with pytest.raises(NoValidPathFound, match="not connected") as caught:
            plan(grid, (0, 0), (4, 2), algorithm)
        assert caught.value.error_code == 208
        assert caught.value.nodes_expanded == 0


def test_every_planner_error_is_a_planner_error():
    errors = (InvalidPlanner, StartOutsideMap, GoalOutsideMap, StartOccupied, GoalOccupied)
    errors += (PlannerTimedOut, NoValidPathFound, PlannerCancelled)
    assert all(issubclass(error, PlannerError) for error in errors)
    assert sorted(error.error_code for error in errors) == [200, 201, 203, 204, 205, 206, 207, 208]


# --- goal tolerance ---------------------------------------------------------------------------


def tolerance_grid() -> PlanningGrid:
    # Printed top row first. The goal (3, 2) sits inside a block of obstacles.
    rows = [
        "0 0 0 0 0 0 0",
        "0 0 1 1 1 0 0",
        "0 0 1 1 1 0 0",
        "0 0 1 1 1 0 0",
        "0 0 0 0 0 0 0",
    ]
    values = np.array([[int(v) * 100 for v in row.split()] for row in rows], dtype=np.int8)
    return PlanningGrid(OccupancyMap.from_rows(values, resolution=0.5))


def test_tolerance_plans_to_the_nearest_reachable_free_cell_in_the_window():
    grid = tolerance_grid()
    with pytest.raises(GoalOccupied):
        plan(grid, (0, 2), (3, 2))
    # One cell (0.5 m) is not enough: the window's cells at distance 1 are all obstacles...
    with pytest.raises(NoValidPathFound, match="tolerance window of 1 cells"):
        plan(grid, (0, 2), (3, 2), tolerance=0.5)
    # ...two cells reach the free ring; the nearest (distance 2) are (1,2), (5,2), (3,0), (3,4);
    # from the start (0, 2) the shortest path goes to (1, 2).
    for algorithm in ALL:
        found = plan(grid, (0, 2), (3, 2), algorithm, tolerance=1.0)
        if algorithm_info(algorithm).optimal:
            assert found.goal_cell == (1, 2)
        else:
            assert found.goal_cell in {(1, 2), (5, 2), (3, 0), (3, 4)}
        assert found.requested_goal_cell == (3, 2) and found.goal_adjusted
    assert plan(grid, (6, 2), (3, 2), tolerance_cells=2).goal_cell == (5, 2)
    assert plan(grid, (3, 0), (3, 2), tolerance_cells=2).goal_cell == (3, 0)


def test_tolerance_ties_go_to_the_cell_with_the_shortest_path():
    grid = tolerance_grid()
    found = plan(grid, (6, 4), (3, 2), "astar", tolerance_cells=2)
    # (5, 2) and (3, 4) are both 2 cells from the goal; (3, 4) is 3 steps away, (5, 2) is 3 too;
    # whichever is chosen, no other candidate is nearer by path.
    assert found.goal_cell in {(5, 2), (3, 4)}
    assert found.length == 3


def test_tolerance_skips_window_cells_the_start_cannot_reach():
    values = np.zeros((3, 7), dtype=np.int8)
    values[:, 3] = 100  # a wall; the goal is on it
    grid = PlanningGrid(OccupancyMap.from_rows(values))
    found = plan(grid, (0, 1), (3, 1), tolerance_cells=1)
    assert found.goal_cell == (2, 1)
    found = plan(grid, (6, 1), (3, 1), tolerance_cells=1)
    assert found.goal_cell == (4, 1)


def test_a_free_but_unreachable_goal_with_tolerance_goes_to_the_nearest_reachable_cell():
    values = np.zeros((3, 7), dtype=np.int8)
    values[:, 3] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values))
    found = plan(grid, (0, 1), (4, 1), tolerance_cells=2)
    assert found.goal_cell == (2, 1)
    with pytest.raises(NoValidPathFound):
        plan(grid, (0, 1), (5, 1), tolerance_cells=2)


@pytest.mark.parametrize("start", [(float("nan"), 0), (float("inf"), 0), (True, 0), (0.5, 0)])
def test_a_start_cell_that_is_not_two_whole_numbers_is_refused_by_role(start):
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((2, 3), dtype=np.int8)))
    with pytest.raises(ValueError) as error:
        plan(grid, start, (2, 1))
    assert str(error.value) == f"start cell must hold integers, got {start!r}"


# 0.05 as a map message carries it (float32).
RECEIVED_0_05 = float(np.float32(0.05))


@pytest.mark.parametrize("smoothing", ["none", "shortcut"])
def test_a_path_far_from_the_world_origin_keeps_its_length(smoothing):
    # Measured on world coordinates, the 16 m tutorial path at an origin of 1e16 m read 18 m.
    far = PlanningGrid(dataclasses.replace(tutorial_map(), origin_x=1e16, origin_y=1e16))
    found = plan(far, TUTORIAL_START_CELL, TUTORIAL_GOAL_CELL, smoothing=smoothing)
    assert found.raw_length_m == 16.0
    assert found.length_m == pytest.approx(plan(
        PlanningGrid(tutorial_map()), TUTORIAL_START_CELL, TUTORIAL_GOAL_CELL,
        smoothing=smoothing).length_m, rel=1e-12)


def test_tolerance_in_metres_rounds_down_to_whole_cells_with_float_slack():
    assert targets.tolerance_window_cells(0.15, 0.05) == 3
    assert targets.tolerance_window_cells(0.149, 0.05) == 2
    assert targets.tolerance_window_cells(0.0, 0.05) == 0
    with pytest.raises(ValueError):
        targets.tolerance_window_cells(-0.1, 0.05)
    # A map over ROS carries its resolution as a float32: 0.05 arrives as 0.0500000007, and
    # these gave 2 and 9 cells.
    assert targets.tolerance_window_cells(0.15, RECEIVED_0_05) == 3
    assert targets.tolerance_window_cells(0.5, RECEIVED_0_05) == 10
    # 1e308 m over 0.05 m overflowed to an infinite count: OverflowError, a traceback.
    assert targets.tolerance_window_cells(1e308, 0.05) == targets.MAX_WINDOW_CELLS
    assert targets.tolerance_window_cells(1.0, 5e-324) == targets.MAX_WINDOW_CELLS


@pytest.mark.parametrize("model", ["uniform", "inflation"])
@pytest.mark.parametrize("radius", [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5])
def test_a_resolution_received_as_float32_inflates_as_the_exact_one(model, radius):
    """A 0.3 m robot on a map received over ROS (resolution 0.0500000007) left the cells
    exactly 0.3 m from an obstacle free, where the same map read from its file blocks them."""
    values = np.zeros(25 * 25, dtype=np.int8)
    values[12 * 25 + 12] = 100
    exact, received = (PlanningGrid(OccupancyMap(25, 25, resolution, values),
                                    robot_radius=radius, cost_model=model)
                       for resolution in (0.05, RECEIVED_0_05))
    reach = round(radius / 0.05)
    blocked = exact.blocked_mask.reshape(25, 25)
    assert (blocked[12, 12 + reach], blocked[12, 13 + reach]) == (True, False)
    np.testing.assert_array_equal(received.blocked_mask, exact.blocked_mask)


# --- the inflated band ------------------------------------------------------------------------


def band_grid(radius: float = 2.0) -> PlanningGrid:
    values = np.zeros((9, 12), dtype=np.int8)
    values[:, 0] = 100  # a wall along the left edge
    return PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False), robot_radius=radius)


def test_a_start_in_the_inflated_band_may_leave_it():
    grid = band_grid()
    assert grid.inflated_mask[4 * 12 + 1]
    for algorithm in ALL:
        found = plan(grid, (1, 4), (8, 4), algorithm)
        rules = BruteForceRules(grid.map.grid2d(), radius_cells=2.0)
        assert_valid_path(rules, found.cells, (1, 4), (8, 4))
        if algorithm_info(algorithm).optimal:
            assert found.length == 7


def test_a_path_never_runs_along_the_band_it_started_in():
    grid = band_grid()
    found = plan(grid, (1, 0), (3, 8), "astar")
    inside = [cell for cell in found.cells if grid.inflated_mask[cell[1] * 12 + cell[0]]]
    # Only the climb out: (1, 0) then (2, 0); every later cell is free.
    assert inside == [(1, 0), (2, 0)]
    assert found.length == 10


def test_a_start_in_a_corridor_narrower_than_the_robot_has_no_path():
    values = np.zeros((3, 9), dtype=np.int8)
    values[0, :] = 100
    values[2, :] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values), robot_radius=1.0)
    with pytest.raises(GoalOccupied):
        plan(grid, (1, 1), (7, 1))
    with pytest.raises(NoValidPathFound):
        plan(grid, (1, 1), (7, 1), tolerance_cells=3)


def test_real_map_plan_matches_reference_bfs_length():
    occupancy = load_map(shared_path("maps", "turtlebot3_world.yaml"))
    grid = PlanningGrid(occupancy, robot_radius=0.1)
    largest = int(np.argmax(grid.component_sizes))
    members = np.flatnonzero(grid.component_labels == largest)
    start, goal = int(members[0]), int(members[-1])
    sx, sy = grid.index_cell(start)
    gx, gy = grid.index_cell(goal)
    lengths = {a: plan(grid, (sx, sy), (gx, gy), a).length for a in ("astar", "bfs", "dijkstra")}
    reference = plan(grid, (sx, sy), (gx, gy), "bfs", backend="reference").length
    assert set(lengths.values()) == {reference}
    dfs = plan(grid, (sx, sy), (gx, gy), "dfs")
    assert dfs.length >= reference and dfs.length < MAX_SANE_PATH_POSES
