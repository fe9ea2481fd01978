"""The kernels' padded layout: the border, index conversion, row ends, several targets, stamps.

The kernels search a copy of the clearance framed by a lethal border and encode each reached
cell's parent direction in its generation stamp; these tests pin what that must not change:
exact results at the map's edges, the reference's step-for-step order with several targets,
chunking, generation wrap-around, and a query writing only the cells it reaches.
"""

from __future__ import annotations

import numpy as np
import pytest
from grid_fixtures import BACKENDS, assert_valid_path, build, kernel, needs_numba, random_grids
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid import OccupancyMap, PlanningGrid, algorithm_info, kernels, search_grid
from grid_planner.grid.kernels import (
    LETHAL_KEY,
    SearchBuffers,
    from_padded,
    pad_keys,
    padded_keys_of,
    run_search,
    to_padded,
)
from grid_planner.search import Budget, SearchStatus

pytestmark = kernel

KERNELS = ("astar", "bfs", "dfs", "dijkstra")


def kernel_run(grid, algorithm, start, targets, buffers=None, **kwargs):
    """One run_search on the grid's padded keys and (by default) its own buffers."""
    buffers = grid.buffers if buffers is None else buffers
    with buffers.lock:
        return run_search(
            algorithm,
            grid.padded_keys,
            grid.width,
            grid.height,
            buffers,
            start,
            np.asarray(targets, dtype=np.int64),
            **kwargs,
        )


def same_outcome(a, b) -> bool:
    """Whether two KernelOutcomes agree on everything but the time."""
    paths_agree = (a.path is None and b.path is None) or (
        a.path is not None and b.path is not None and np.array_equal(a.path, b.path)
    )
    return paths_agree and (a.status, a.nodes_expanded, a.nodes_generated, a.max_frontier) == (
        b.status,
        b.nodes_expanded,
        b.nodes_generated,
        b.max_frontier,
    )


# --- layout -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("width", "height"), [(1, 1), (1, 5), (6, 1), (7, 4)])
def test_padding_frames_the_map_with_lethal_cells_and_indices_round_trip(width, height):
    keys = (np.arange(width * height) % 250 + 1).astype(np.uint8)
    padded = pad_keys(keys, width, height).reshape(height + 2, width + 2)
    assert not padded.flags.writeable
    np.testing.assert_array_equal(padded[1:-1, 1:-1].reshape(-1), keys)
    border = np.ones(padded.shape, dtype=bool)
    border[1:-1, 1:-1] = False
    assert np.all(padded[border] == LETHAL_KEY)
    cells = np.arange(width * height, dtype=np.int64)
    np.testing.assert_array_equal(padded.reshape(-1)[to_padded(cells, width)], keys)
    np.testing.assert_array_equal(from_padded(to_padded(cells, width), width), cells)
    assert [from_padded(to_padded(int(c), width), width) for c in cells] == cells.tolist()


def test_planning_grid_keeps_its_padded_keys_and_sizes_its_buffers_to_it():
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((3, 5), dtype=np.int8)))
    np.testing.assert_array_equal(
        grid.padded_keys, padded_keys_of(grid.clearance, grid.width, grid.height)
    )
    assert not grid.padded_keys.flags.writeable
    assert grid.buffers.cell_count == grid.padded_keys.size == 7 * 5


# --- the map's edges --------------------------------------------------------------------------


# In flat map indices, (0, 2) - 1 is (3, 1): a search that took index neighbours for map
# neighbours would reach the goal in 5 steps instead of going round the wall in 8.
ROW_END_ROWS = [[0, 0, 0, 0], [100, 100, 100, 0], [0, 0, 0, 0]]  # bottom row first


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("algorithm", KERNELS)
def test_steps_never_wrap_across_a_row_end(algorithm, backend):
    values = np.array(ROW_END_ROWS, dtype=np.int8)
    grid, rules = build(values)
    start, goal = (0, 2), (0, 0)
    result, path, _, _ = search_grid(grid, 2 * 4 + 0, [0], algorithm, backend=backend)
    cells = [(int(i) % 4, int(i) // 4) for i in path]
    assert_valid_path(rules, cells, start, goal)
    if algorithm_info(algorithm).optimal:
        assert result.length == 8


@needs_numba
@pytest.mark.parametrize("algorithm", KERNELS)
@pytest.mark.parametrize(("width", "height"), [(1, 9), (9, 1)])
def test_one_cell_wide_maps_are_searched_end_to_end(algorithm, width, height):
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((height, width), dtype=np.int8)))
    outcome = kernel_run(grid, algorithm, 0, [grid.cell_count - 1])
    assert outcome.status is SearchStatus.SOLVED
    assert outcome.path.tolist() == list(range(grid.cell_count))


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("algorithm", KERNELS)
def test_a_winding_path_matches_the_reference_and_outgrows_any_trace_buffer(
    algorithm, connectivity
):
    # A serpentine: 61-cell corridors joined by one-cell gaps at alternate ends, so the
    # path (about 1,300 cells) moves up and down rows, diagonally too when 8-connected. The
    # trace is sized by the search's expansions; read back with smaller sizes, it must grow
    # to the same path.
    values = np.zeros((41, 61), dtype=np.int8)
    for wall in range(1, 41, 2):
        values[wall, :] = 100
        values[wall, 60 if wall % 4 == 1 else 0] = 0
    grid, rules = build(values)
    goal = (0, 40)
    found = {
        backend: search_grid(
            grid, 0, [40 * 61], algorithm, backend=backend, connectivity=connectivity
        )
        for backend in BACKENDS
    }
    reference = found["reference"].path
    assert reference.size > 1024
    cells = [(int(i) % 61, int(i) // 61) for i in reference]
    assert_valid_path(rules, cells, (0, 0), goal, connectivity)
    for result in found.values():
        np.testing.assert_array_equal(result.path, reference)
    if "numba" in found:  # its stamps are still in the grid's buffers
        start, end = to_padded(0, 61), np.int64(to_padded(40 * 61, 61))
        for size in (1, 100, reference.size - 1, reference.size):
            traced = kernels.trace_path(grid.buffers.stamp, 61, start, end, size)
            np.testing.assert_array_equal(traced, reference)


@needs_numba
@pytest.mark.parametrize("algorithm", KERNELS)
def test_run_search_takes_the_map_or_the_padded_keys(algorithm):
    values = np.zeros((6, 8), dtype=np.int8)
    values[2, 1:6] = 100
    grid, _ = build(values, radius_cells=1.0)
    start, targets = 0, np.array([47], dtype=np.int64)
    fresh = []
    for clearance in (grid.clearance, grid.padded_keys):
        buffers = SearchBuffers(grid.cell_count)  # map-sized: reserve() grows it to the padding
        fresh.append(run_search(algorithm, clearance, 8, 6, buffers, start, targets))
        assert buffers.cell_count == grid.padded_keys.size
    assert fresh[0].status is SearchStatus.SOLVED
    assert same_outcome(fresh[0], fresh[1])


# --- several targets --------------------------------------------------------------------------


@st.composite
def grids_with_targets(draw):
    case = draw(random_grids(max_side=10))
    values = case[0]
    height, width = values.shape
    cells = st.integers(0, width * height - 1)
    targets = sorted(set(draw(st.lists(cells, min_size=1, max_size=4))))
    return case, targets


@needs_numba
@given(grids_with_targets())
@settings(max_examples=150, deadline=None)
def test_several_targets_follow_the_reference_and_stay_optimal(case_and_targets):
    (values, threshold, allow_unknown, radius, start, _goal), targets = case_and_targets
    grid, rules = build(values, threshold, allow_unknown, radius)
    if rules.lethal[start]:
        return
    start_index = start[1] * rules.width + start[0]
    distances = rules.bfs_distances(start)
    reachable = [
        distances[(t % rules.width, t // rules.width)]
        for t in targets
        if (t % rules.width, t // rules.width) in distances
    ]
    for algorithm in KERNELS:
        fast, path, fast_seen, _ = search_grid(
            grid, start_index, targets, algorithm, record_expanded=True, backend="numba"
        )
        assert fast.solved == bool(reachable), algorithm
        assert len(set(fast_seen.tolist())) == fast.nodes_expanded
        if fast.solved:
            assert int(path[-1]) in targets
            cells = [(int(i) % rules.width, int(i) // rules.width) for i in path]
            assert_valid_path(rules, cells, start, cells[-1])
            if algorithm_info(algorithm).optimal:
                assert fast.length == min(reachable), algorithm
        if algorithm in ("bfs", "dfs"):
            slow, _, slow_seen, _ = search_grid(
                grid, start_index, targets, algorithm, record_expanded=True, backend="reference"
            )
            assert fast.states.tolist() == slow.states.tolist()
            assert fast.nodes_expanded == slow.nodes_expanded
            np.testing.assert_array_equal(np.sort(fast_seen), np.sort(slow_seen))


# --- chunks, budgets, generations, stamps -----------------------------------------------------


def sandbox_grid() -> tuple[PlanningGrid, int, int]:
    """A 80 x 60 random map and the first and last cell of its largest free component."""
    rng = np.random.default_rng(7)
    values = np.where(rng.random((60, 80)) < 0.25, 100, 0).astype(np.int8)
    grid = PlanningGrid(OccupancyMap.from_rows(values))
    members = np.flatnonzero(grid.component_labels == np.argmax(grid.component_sizes))
    return grid, int(members[0]), int(members[-1])


@needs_numba
@pytest.mark.parametrize("algorithm", ["bfs", "dfs"])
def test_chunked_bfs_and_dfs_give_the_unchunked_results(algorithm):
    grid, start, goal = sandbox_grid()
    whole = kernel_run(grid, algorithm, start, [goal], chunk=1 << 30)
    pieces = kernel_run(grid, algorithm, start, [goal], chunk=3)
    assert same_outcome(whole, pieces)


@needs_numba
@pytest.mark.parametrize("limit", [0, 1, 5, 40, 200])
def test_chunked_depth_limited_dfs_gives_the_unchunked_result(limit):
    # A chunk of one expansion pauses at every cell, also at a cell the limit stops.
    grid, start, goal = sandbox_grid()
    whole = kernel_run(grid, "dfs", start, [goal], chunk=1 << 30, depth_limit=limit)
    pieces = kernel_run(grid, "dfs", start, [goal], chunk=1, depth_limit=limit)
    assert same_outcome(whole, pieces)
    assert (whole.status, whole.limit) == (pieces.status, pieces.limit)


@needs_numba
@pytest.mark.parametrize("algorithm", ["astar", "dijkstra"])
def test_chunked_heap_searches_stay_optimal(algorithm):
    grid, start, goal = sandbox_grid()
    whole = kernel_run(grid, algorithm, start, [goal], chunk=1 << 30)
    pieces = kernel_run(grid, algorithm, start, [goal], chunk=3)
    assert whole.status == pieces.status
    assert whole.path.size == pieces.path.size


@needs_numba
@pytest.mark.parametrize("algorithm", KERNELS)
def test_a_node_budget_stops_after_exactly_that_many_expansions(algorithm):
    grid, start, goal = sandbox_grid()
    outcome = kernel_run(grid, algorithm, start, [goal], budget=Budget(max_nodes=37))
    assert outcome.status is SearchStatus.LIMIT_REACHED and outcome.nodes_expanded == 37


@needs_numba
def test_every_kernel_is_exact_across_the_generation_wrap_around():
    grid, start, goal = sandbox_grid()
    cases = [(a, None) for a in KERNELS] + [("dfs", 200)]
    expected = {
        case: kernel_run(
            grid, case[0], start, [goal], SearchBuffers(grid.cell_count), depth_limit=case[1]
        )
        for case in cases
    }
    assert all(expected[(a, None)].status is SearchStatus.SOLVED for a in KERNELS)
    grid.buffers.base = kernels.MAX_BASE - 3 * kernels.GENERATION_STEP
    for _ in range(2):
        for case in cases:
            again = kernel_run(grid, case[0], start, [goal], depth_limit=case[1])
            assert same_outcome(again, expected[case]), case
    assert grid.buffers.base < 100 * kernels.GENERATION_STEP


@needs_numba
@pytest.mark.parametrize("algorithm", KERNELS)
def test_a_query_writes_stamps_only_for_the_cells_it_reaches(algorithm):
    # A 10 x 10 room walled in at the centre of a 400 x 400 open map.
    values = np.zeros((400, 400), dtype=np.int8)
    values[194:206, 194:206] = 100
    values[195:205, 195:205] = 0
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))
    start = grid.cell_index(195, 195)
    outcome = kernel_run(grid, algorithm, start, [grid.cell_index(0, 0)])
    assert outcome.status is SearchStatus.NO_SOLUTION and outcome.nodes_expanded == 100
    buffers = grid.buffers
    touched = np.sort(from_padded(np.flatnonzero(buffers.stamp >= buffers.base), grid.width))
    ys, xs = np.divmod(touched, grid.width)
    assert touched.size == 100
    assert xs.min() == ys.min() == 195 and xs.max() == ys.max() == 204
    np.testing.assert_array_equal(np.sort(buffers.expanded_indices()), touched)
