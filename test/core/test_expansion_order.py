"""The expansion order the kernels report (`record_expanded`): the cells in the order searched.

BFS and DFS must list exactly the reference algorithms' order; A* must expand cells in an order
whose f values (true distance from the start, independently computed, plus the heuristic) never
decrease; the order survives chunking and frontier growth; without the option nothing is kept.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from grid_fixtures import build, kernel, needs_numba, random_grids
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid import OccupancyMap, PlanningGrid, search_grid
from grid_planner.grid.kernels import run_search

pytestmark = kernel


def cell_index(rules, cell) -> int:
    return cell[1] * rules.width + cell[0]


def estimate(cell, goal, connectivity) -> float:
    """Manhattan distance, octile with 8 neighbours: the kernels' heuristic, written anew."""
    dx, dy = abs(cell[0] - goal[0]), abs(cell[1] - goal[1])
    if connectivity == 4:
        return float(dx + dy)
    return max(dx, dy) + (math.sqrt(2.0) - 1.0) * min(dx, dy)


@needs_numba
@given(random_grids(max_side=10), st.sampled_from((4, 8)))
@settings(max_examples=80, deadline=None)
def test_bfs_and_dfs_kernels_expand_in_the_reference_order(case, connectivity):
    values, threshold, allow_unknown, radius, start, goal = case
    grid, rules = build(values, threshold, allow_unknown, radius)
    if rules.lethal[start]:
        return
    for algorithm in ("bfs", "dfs", "bidirectional_bfs"):
        fast = search_grid(
            grid, cell_index(rules, start), [cell_index(rules, goal)], algorithm,
            record_expanded=True, backend="numba", connectivity=connectivity,
        )
        slow = search_grid(
            grid, cell_index(rules, start), [cell_index(rules, goal)], algorithm,
            record_expanded=True, backend="reference", connectivity=connectivity,
        )
        assert fast.expanded.tolist() == slow.expanded.tolist(), algorithm
        assert fast.expanded.size == fast.result.nodes_expanded


@needs_numba
@given(random_grids(max_side=10), st.sampled_from((4, 8)))
@settings(max_examples=80, deadline=None)
def test_astar_expands_cells_in_never_decreasing_f(case, connectivity):
    values, threshold, allow_unknown, radius, start, goal = case
    grid, rules = build(values, threshold, allow_unknown, radius)
    if rules.lethal[start]:
        return
    distance = rules.dijkstra(start, connectivity)
    found = search_grid(
        grid, cell_index(rules, start), [cell_index(rules, goal)], "astar",
        record_expanded=True, backend="numba", connectivity=connectivity,
    )
    order = [(int(i) % rules.width, int(i) // rules.width) for i in found.expanded]
    assert len(order) == found.result.nodes_expanded
    if connectivity == 4:  # with diagonals, float sums may reopen a cell an ulp cheaper
        assert len(set(order)) == len(order)
    f = [distance[cell] + estimate(cell, goal, connectivity) for cell in order]
    assert all(later >= earlier - 1e-9 for earlier, later in itertools.pairwise(f))


def open_room() -> tuple[PlanningGrid, int, int]:
    """A 60 x 40 map with a wall across it (a gap at the top) and the cells either side."""
    values = np.zeros((40, 60), dtype=np.int8)
    values[:35, 30] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))
    return grid, grid.cell_index(5, 5), grid.cell_index(55, 5)


@needs_numba
@pytest.mark.parametrize("algorithm", ["astar", "bfs", "dfs", "dijkstra", "bidirectional_bfs"])
@pytest.mark.parametrize("connectivity", [4, 8])
def test_the_order_survives_small_chunks_and_growing_frontiers(algorithm, connectivity):
    grid, start, goal = open_room()
    outcomes = []
    for chunk in (1 << 15, 7):
        with grid.buffers.lock:
            outcomes.append(run_search(
                algorithm, grid.padded_keys, grid.width, grid.height, grid.buffers, start,
                np.array([goal]), chunk=chunk, connectivity=connectivity,
                record_order=True,
            ))
    whole, chunked = outcomes
    assert whole.nodes_expanded > 500
    assert whole.expanded.size == whole.nodes_expanded
    np.testing.assert_array_equal(chunked.expanded, whole.expanded)
    assert int(whole.expanded[0]) == start


@needs_numba
def test_without_the_option_no_order_is_kept():
    grid, start, goal = open_room()
    found = search_grid(grid, start, [goal], "bfs", backend="numba")
    assert found.expanded is None
    assert grid.buffers.order.size == 0
    at_goal = search_grid(grid, goal, [goal], "bfs", record_expanded=True, backend="numba")
    assert at_goal.expanded.size == 0
