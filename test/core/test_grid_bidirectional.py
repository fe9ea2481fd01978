"""The compiled bidirectional BFS against the reference `bidirectional_bfs`, run for run.

The kernel follows the reference's layers, sides and neighbour orders, so on every random map
(inflated starts, unknown cells, several targets, the start among them) the two must agree on
everything a search reports: status, path, expansion order and every count. Several targets are
searched one after another in both and combined the same way.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from grid_fixtures import assert_valid_path, build, kernel, needs_numba, open_grid, random_grids
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid import OccupancyMap, PlanningGrid, search_grid
from grid_planner.search import SearchStatus

pytestmark = kernel


def both(grid, start, targets, connectivity):
    """The kernel's and the reference's searches of the same query, expansion order kept."""
    return [
        search_grid(grid, start, targets, "bidirectional_bfs", record_expanded=True,
                    backend=backend, connectivity=connectivity)
        for backend in ("numba", "reference")
    ]


def assert_same(fast, slow) -> None:
    assert (fast.backend, slow.backend) == ("numba", "reference")
    assert fast.result.status is slow.result.status
    assert fast.result.states.tolist() == slow.result.states.tolist()
    assert fast.result.actions.tolist() == slow.result.actions.tolist()
    # The same steps, summed in another order (the reference adds its two halves' sums).
    assert fast.result.cost == pytest.approx(slow.result.cost, rel=1e-12)
    assert fast.expanded.tolist() == slow.expanded.tolist()
    for count in ("nodes_expanded", "nodes_generated", "max_frontier"):
        assert getattr(fast.result, count) == getattr(slow.result, count), count


@needs_numba
@given(random_grids(max_side=12), st.sampled_from((4, 8)), st.data())
@settings(max_examples=250, deadline=None)
def test_the_kernel_reports_what_the_reference_reports(case, connectivity, data):
    values, threshold, allow_unknown, radius, start, goal = case
    grid, rules = build(values, threshold, allow_unknown, radius)
    if rules.lethal[start]:
        return
    cells = rules.width * rules.height
    start_index = start[1] * rules.width + start[0]
    more = data.draw(st.lists(st.integers(0, cells - 1), max_size=3, unique=True))
    targets = list(dict.fromkeys([goal[1] * rules.width + goal[0], *more]))
    fast, slow = both(grid, start_index, targets, connectivity)
    assert_same(fast, slow)
    steps = fewest_steps(rules, start, connectivity)
    reachable = [steps[(t % rules.width, t // rules.width)] for t in targets
                 if (t % rules.width, t // rules.width) in steps]
    if not reachable:
        assert fast.result.status is SearchStatus.NO_SOLUTION
        return
    path = [(int(i) % rules.width, int(i) // rules.width) for i in fast.path]
    assert_valid_path(rules, path, start, path[-1], connectivity=connectivity)
    assert int(fast.path[-1]) in targets
    assert len(path) - 1 == min(reachable)


def fewest_steps(rules, start, connectivity) -> dict[tuple[int, int], int]:
    """Steps from `start` to each cell it reaches, by the independent rules' moves."""
    steps = {start: 0}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for other, _length in rules.moves(cell, connectivity):
            if other not in steps:
                steps[other] = steps[cell] + 1
                queue.append(other)
    return steps


@needs_numba
def test_both_sides_grow_their_queues_and_meet_on_a_shortest_path():
    # An open 300 x 200 map: each side's layer outgrows the 1,024 entries a queue starts with.
    grid = open_grid(300, 200)
    start, target = grid.cell_index(0, 0), grid.cell_index(299, 199)
    fast, slow = both(grid, start, [target], 4)
    assert_same(fast, slow)
    assert fast.result.length == 299 + 199
    assert grid.buffers.frontier_cell.shape[0] > 1024
    assert grid.buffers.frontier_step.shape[0] > 1024


@needs_numba
def test_a_walled_off_target_ends_the_search_when_its_side_runs_dry():
    # The target's side has nothing to expand after one layer: no path, and the start's side
    # never had to search the whole map.
    values = np.zeros((50, 50), dtype=np.int8)
    values[40:43, 40:43] = 100
    values[41, 41] = 0
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))
    fast, slow = both(grid, grid.cell_index(0, 0), [grid.cell_index(41, 41)], 8)
    assert_same(fast, slow)
    assert fast.result.status is SearchStatus.NO_SOLUTION
    assert fast.result.nodes_expanded < 10
