"""Weighted and 8-connected searches on random maps, against an independent Dijkstra.

The brute-force rules (`grid_fixtures`) re-derive the move rule, the corner rule and Nav2's
inflation costs cell by cell; their Dijkstra gives the true least costs. The compiled kernels
must match the reference algorithms expansion for expansion (one tie rule: ties in f go to the
entry pushed last).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from grid_fixtures import BACKENDS, assert_valid_path, build, kernel, needs_numba, random_grids
from hypothesis import example, given, settings
from hypothesis import strategies as st

from grid_planner.grid import OccupancyMap, PlanningGrid, plan, search_grid
from grid_planner.grid.kernels.weighted import DIRECT_HEAP
from grid_planner.search import SearchStatus
from grid_planner.search.registry import GRID, domain_algorithms

pytestmark = kernel

RESOLUTION = 0.05


def cost_grid(case):
    """The case's map under the inflation model, and its brute-force rules and raw costs."""
    values, threshold, allow_unknown, radius, _start, _goal = case
    _, rules = build(values, threshold, allow_unknown, radius, resolution=RESOLUTION)
    inflation_radius = (radius + 2.0) * RESOLUTION
    grid = PlanningGrid(
        OccupancyMap.from_rows(values, resolution=RESOLUTION, top_row_first=False),
        occupied_threshold=threshold, allow_unknown=allow_unknown,
        robot_radius=radius * RESOLUTION, cost_model="inflation",
        inflation_radius=inflation_radius, cost_scaling_factor=3.0,
    )
    raw = rules.inflation_raw(RESOLUTION, radius * RESOLUTION, inflation_radius, 3.0)
    return grid, rules, raw


def cells_of(path, width):
    return [(int(i) % width, int(i) // width) for i in path]


@given(random_grids(max_side=10), st.sampled_from((4, 8)), st.sampled_from((0.0, 1.0, 3.0)))
@settings(max_examples=200, deadline=None)
def test_weighted_searches_find_the_least_cost_of_an_independent_dijkstra(case, connectivity,
                                                                          multiplier):
    grid, rules, raw = cost_grid(case)
    start, goal = case[4], case[5]
    if rules.lethal[start]:
        return
    best = rules.dijkstra(start, connectivity, raw, multiplier)
    start_index = start[1] * rules.width + start[0]
    goal_index = goal[1] * rules.width + goal[0]
    for algorithm in ("astar", "dijkstra"):
        for backend in BACKENDS:
            result, path, _, _ = search_grid(
                grid, start_index, [goal_index], algorithm, backend=backend,
                connectivity=connectivity, cost_travel_multiplier=multiplier,
            )
            if goal not in best:
                assert result.status is SearchStatus.NO_SOLUTION
                continue
            assert result.solved and result.optimal
            assert result.cost == pytest.approx(best[goal], rel=1e-12, abs=1e-12)
            assert_valid_path(rules, cells_of(path, rules.width), start, goal, connectivity)


@given(random_grids(max_side=10), st.sampled_from((4, 8)))
@settings(max_examples=150, deadline=None)
def test_multiplier_zero_gives_the_shortest_path(case, connectivity):
    grid, rules, _raw = cost_grid(case)
    start, goal = case[4], case[5]
    if rules.lethal[start]:
        return
    shortest = rules.dijkstra(start, connectivity)  # lengths only
    if goal not in shortest:
        return
    found = plan(grid, start, goal, "astar", connectivity=connectivity,
                 cost_travel_multiplier=0.0) if not rules.blocked(goal) else None
    if found is None:
        return
    assert found.result.cost == pytest.approx(shortest[goal], rel=1e-12)
    assert found.raw_length_m == pytest.approx(shortest[goal] * RESOLUTION, rel=1e-9)


# A map where both searches expand cell 23 twice: reached again more cheaply by an ulp after
# its expansion, it is opened again.
_REOPENED = np.zeros((7, 7), dtype=np.int8)
_REOPENED[4, 2] = 100


@needs_numba
@given(random_grids(max_side=10), st.sampled_from((4, 8)), st.sampled_from((0.0, 2.0)),
       st.booleans())
@example((_REOPENED, 65, False, 0.0, (0, 0), (2, 4)), 8, 0.0, False)
@settings(max_examples=200, deadline=None)
def test_kernels_follow_the_reference_expansion_for_expansion(case, connectivity, multiplier,
                                                             several):
    grid, rules, _raw = cost_grid(case)
    start, goal = case[4], case[5]
    if rules.lethal[start]:
        return
    start_index = start[1] * rules.width + start[0]
    targets = [goal[1] * rules.width + goal[0]]
    if several:
        targets.append((targets[0] + 7) % (rules.width * rules.height))
    for algorithm in ("astar", "dijkstra", "bfs", "dfs"):
        fast, _, fast_seen, _ = search_grid(
            grid, start_index, targets, algorithm, record_expanded=True, backend="numba",
            connectivity=connectivity, cost_travel_multiplier=multiplier,
        )
        slow, _, slow_seen, _ = search_grid(
            grid, start_index, targets, algorithm, record_expanded=True, backend="reference",
            connectivity=connectivity, cost_travel_multiplier=multiplier,
        )
        assert fast.status is slow.status, algorithm
        assert fast.states.tolist() == slow.states.tolist(), algorithm
        assert fast.nodes_expanded == slow.nodes_expanded, algorithm
        assert fast.cost == pytest.approx(slow.cost, rel=1e-12), algorithm
        if algorithm != "dfs":
            assert fast.nodes_generated == slow.nodes_generated, algorithm
            assert fast.max_frontier == slow.max_frontier, algorithm
        np.testing.assert_array_equal(np.sort(fast_seen), np.sort(slow_seen))


@needs_numba
@given(st.integers(0, 2**32 - 1), st.sampled_from((4, 8)), st.sampled_from(("astar", "dijkstra")))
@example(29374, 4, "astar")
@settings(max_examples=12, deadline=None)
def test_a_frontier_too_wide_for_the_heap_alone_follows_the_reference(seed, connectivity,
                                                                       algorithm):
    # 64 x 64 cells, 3 % obstacles and a cost field everywhere, from the centre to a corner:
    # more than DIRECT_HEAP entries wait at once, so entries go both straight into the heap
    # and through the ring's buckets.
    rng = np.random.default_rng(seed)
    values = np.where(rng.random((64, 64)) < 0.03, 100, 0).astype(np.int8)
    # Open boxes round the start and the goal: three obstacles next to a cell can inflate all
    # four of its neighbours and shut it in (seed 29374 did, at the start).
    values[29:36, 29:36] = values[:4, :4] = 0
    grid, _rules, _raw = cost_grid((values, 65, False, 1.0, (32, 32), (0, 0)))
    found = [search_grid(grid, 32 * 64 + 32, [0], algorithm, record_expanded=True,
                         backend=backend, connectivity=connectivity)
             for backend in ("numba", "reference")]
    fast, slow = found
    assert fast.result.max_frontier == slow.result.max_frontier > DIRECT_HEAP
    np.testing.assert_array_equal(fast.expanded, slow.expanded)
    assert fast.result.states.tolist() == slow.result.states.tolist()


@given(random_grids(max_side=10))
@settings(max_examples=150, deadline=None)
def test_eight_connected_bfs_finds_the_fewest_steps_and_never_cuts_a_corner(case):
    values, threshold, allow_unknown, radius, start, goal = case
    grid, rules = build(values, threshold, allow_unknown, radius)
    if rules.lethal[start]:
        return
    steps = {start: 0}
    frontier = [start]
    while frontier:
        following = []
        for cell in frontier:
            for other, _length in rules.moves(cell, 8):
                if other not in steps:
                    steps[other] = steps[cell] + 1
                    following.append(other)
        frontier = following
    start_index = start[1] * rules.width + start[0]
    goal_index = goal[1] * rules.width + goal[0]
    for algorithm in ("bfs", "dfs", "astar"):
        for backend in BACKENDS:
            result, path, _, _ = search_grid(grid, start_index, [goal_index], algorithm,
                                             backend=backend, connectivity=8)
            assert result.solved == (goal in steps), (algorithm, backend)
            if not result.solved:
                continue
            cells = cells_of(path, rules.width)
            assert_valid_path(rules, cells, start, goal, 8)  # includes the corner rule
            if algorithm == "bfs":
                assert len(cells) - 1 == steps[goal]
                # Fewest steps is not least length: BFS claims no optimality with 8, except
                # for the empty path of a start that is the goal.
                assert result.optimal == (start == goal)


@pytest.mark.parametrize("connectivity", [4, 8])
def test_a_start_on_the_goal_is_an_optimal_empty_path_for_every_algorithm(connectivity):
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((3, 3), dtype=np.int8)))
    for algorithm in domain_algorithms(GRID):
        for backend in BACKENDS:
            result, path, _, _ = search_grid(grid, 4, [4], algorithm, backend=backend,
                                             connectivity=connectivity)
            assert list(path) == [4], (algorithm, backend)
            assert result.optimal, (algorithm, backend)


def test_a_diagonal_never_squeezes_between_two_blocked_corners():
    values = np.array([[0, 100], [100, 0]], dtype=np.int8)  # bottom row first
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))
    result, path, _, _ = search_grid(grid, 0, [3], "astar", connectivity=8)
    assert result.status is SearchStatus.NO_SOLUTION and path is None
    values = np.array([[0, 0], [100, 0]], dtype=np.int8)
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))
    result, path, _, _ = search_grid(grid, 0, [3], "astar", connectivity=8)
    assert path.tolist() == [0, 1, 3]  # around the corner, not across it


def test_eight_connected_plans_report_octile_length_and_heuristic():
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((5, 5), dtype=np.int8)))
    found = plan(grid, (0, 0), (4, 2), "astar", connectivity=8)
    assert found.heuristic == "octile"
    assert found.length == 4  # two diagonal and two straight steps
    assert found.raw_length_m == pytest.approx(2 + 2 * math.sqrt(2))
    assert found.result.cost == pytest.approx(2 + 2 * math.sqrt(2))
    assert set(found.result.actions) <= {"east", "northeast"}
    assert plan(grid, (0, 0), (4, 2), "astar").heuristic == "manhattan"
