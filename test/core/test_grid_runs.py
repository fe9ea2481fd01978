"""How a plan runs: budgets (nodes, deadline, cancel, depth), the kernels' shared buffers,
the backends and the warm-up."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from grid_fixtures import (
    BACKEND_PARAMS,
    BACKENDS,
    JIT_DISABLED,
    build,
    kernel,
    needs_compilation,
    needs_numba,
    open_grid,
    tutorial_map,
)
from shared_data import shared_path

import grid_planner
from grid_planner import jit
from grid_planner.grid import (
    NoValidPathFound,
    OccupancyMap,
    PlannerCancelled,
    PlannerError,
    PlannerTimedOut,
    PlanningGrid,
    kernels,
    load_map,
    plan,
    plan_world,
    search_grid,
    warm_up,
)
from grid_planner.grid.kernels import SearchBuffers, run_search
from grid_planner.jit import backend as backend_module
from grid_planner.jit.backend import BackendError
from grid_planner.search import Budget, LimitKind, SearchStatus
from grid_planner.search.registry import GRID, domain_algorithms

pytestmark = kernel


# --- budgets ----------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
@pytest.mark.parametrize("algorithm", ["astar", "bfs", "dfs", "dijkstra", "bidirectional_bfs"])
def test_node_budget_stops_the_search_with_no_valid_path(algorithm, backend):
    grid = open_grid(40, 40)
    with pytest.raises(NoValidPathFound, match="budget of 25 expanded nodes") as caught:
        plan(grid, (0, 0), (39, 39), algorithm, budget=Budget(max_nodes=25), backend=backend)
    assert caught.value.result.limit is LimitKind.MAX_NODES
    assert caught.value.nodes_expanded == 25


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
@pytest.mark.parametrize("algorithm", ["astar", "bfs", "dfs", "dijkstra", "bidirectional_bfs"])
def test_a_node_budget_is_enough_for_a_goal_found_by_its_last_expansion(algorithm, backend):
    # The compiled DFS checked its allowance before it popped the next cell, so the goal,
    # next on the stack after the one expansion allowed, was never tested.
    found = plan(PlanningGrid(OccupancyMap.from_rows([[0, 0, 0]])), (0, 0), (1, 0), algorithm,
                 budget=Budget(max_nodes=1), backend=backend)
    assert found.cells == [(0, 0), (1, 0)] and found.nodes_expanded == 1


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
@pytest.mark.parametrize("algorithm", ["astar", "bfs", "dfs", "dijkstra", "bidirectional_bfs"])
def test_a_memory_budget_stops_the_search_and_says_so(algorithm, backend):
    # The kernels checked max_held only between chunks of 32,768 expansions: a 40 x 40 map
    # was searched to the end, or stopped where a frontier happened to grow, so the answer
    # depended on what earlier queries had left in the grid's arrays.
    answers = []
    for grid in (open_grid(200, 200), open_grid(200, 200)):
        if len(answers):  # the second grid's arrays were grown by a search first
            plan(grid, (0, 0), (199, 199), algorithm, backend=backend)
        with pytest.raises(NoValidPathFound, match="memory budget of 50 states held") as caught:
            plan(grid, (0, 0), (199, 199), algorithm, budget=Budget(max_held=50),
                 backend=backend)
        result = caught.value.result
        assert result.limit is LimitKind.MEMORY
        assert 50 <= result.nodes_held < 50 + 8 * 8  # at most a few expansions past it
        answers.append((result.nodes_expanded, result.nodes_held))
    assert answers[0] == answers[1]


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
def test_the_states_held_are_reported(backend):
    found = plan(open_grid(30, 30), (0, 0), (29, 29), "bfs", backend=backend)
    assert found.result.nodes_held >= found.nodes_expanded > 0


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
def test_expired_deadline_raises_planner_timed_out(backend):
    grid = open_grid(30, 30)
    with pytest.raises(PlannerTimedOut) as caught:
        plan(grid, (0, 0), (29, 29), budget=Budget(deadline=time.monotonic() - 1), backend=backend)
    assert caught.value.error_code == 207
    assert caught.value.result.limit is LimitKind.DEADLINE


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
def test_a_set_cancel_event_raises_planner_cancelled(backend):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(PlannerCancelled):
        plan(open_grid(30, 30), (0, 0), (29, 29), budget=Budget(cancel=cancel), backend=backend)


class CancelAfter:
    """A cancel event that turns set on its n-th query (as if a callback set it mid-search)."""

    def __init__(self, calls: int) -> None:
        self.calls = 0
        self.limit = calls

    def is_set(self) -> bool:
        self.calls += 1
        return self.calls >= self.limit


def kernel_search(grid, algorithm, start, goal, **kwargs):
    buffers = grid.buffers
    targets = np.array([goal], dtype=np.int64)
    with buffers.lock:
        return run_search(
            algorithm, grid.clearance, grid.width, grid.height, buffers, start, targets, **kwargs
        )


@needs_numba
@pytest.mark.parametrize("algorithm", ["astar", "bfs", "dfs", "dijkstra", "bidirectional_bfs"])
def test_cancel_is_seen_inside_a_running_kernel_between_chunks(algorithm):
    grid = open_grid(200, 200)
    goal = grid.cell_count - 1
    outcome = kernel_search(
        grid, algorithm, 0, goal, budget=Budget(cancel=CancelAfter(4)), chunk=50
    )
    assert outcome.status is SearchStatus.LIMIT_REACHED and outcome.limit is LimitKind.CANCELLED
    assert outcome.nodes_expanded == 150  # three chunks ran, the fourth check cancelled


@needs_numba
def test_deadline_is_seen_inside_a_running_kernel(monkeypatch):
    grid = open_grid(200, 200)
    ticks = iter(range(10_000))
    monkeypatch.setattr(time, "monotonic", lambda: float(next(ticks)))
    budget = Budget(deadline=3.0)
    outcome = kernel_search(grid, "bfs", 0, grid.cell_count - 1, budget=budget, chunk=40)
    assert outcome.limit is LimitKind.DEADLINE
    assert outcome.nodes_expanded == 120


def test_a_search_in_another_thread_sees_the_cancel_event():
    grid = open_grid(300, 300)  # a search the budget's cancel must stop before it ends
    cancel = threading.Event()
    errors = []

    def run():
        try:
            plan(grid, (0, 0), (299, 299), "bfs", budget=Budget(cancel=cancel))
        except PlannerError as error:
            errors.append(error)

    thread = threading.Thread(target=run)
    cancel.set()
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], PlannerCancelled)


def test_dfs_depth_limit_bounds_the_path_and_reports_the_limit():
    grid = open_grid(10, 1)
    for backend in BACKENDS:
        assert plan(grid, (0, 0), (5, 0), "dfs", depth_limit=5, backend=backend).length == 5
        with pytest.raises(NoValidPathFound, match="depth limit of 4") as caught:
            plan(grid, (0, 0), (5, 0), "dfs", depth_limit=4, backend=backend)
        assert caught.value.result.limit is LimitKind.MAX_DEPTH
        with pytest.raises(NoValidPathFound, match="depth limit of 3"):
            plan(grid, (0, 0), (5, 0), "dfs", budget=Budget(max_depth=3), backend=backend)


@pytest.mark.parametrize(
    ("options", "message"),
    [({"depth_limit": 2**70}, "depth limit must be an integer in [0, 2**62), got 1180591"),
     ({"depth_limit": 3.5}, "depth limit must be an integer in [0, 2**62), got 3.5"),
     ({"budget": Budget(max_depth=2**70)}, "depth limit must be an integer in [0, 2**62)"),
     ({"tolerance_cells": float("nan")}, "tolerance_cells must be an integer >= 0, got nan")],
)
def test_a_limit_no_search_can_take_is_a_value_error(options, message):
    # 2**70 raised a numba typing error (OverflowError from the reference), 3.5 was taken as
    # "a depth limit of 3.5 steps", NaN raised "cannot convert float NaN to integer".
    for backend in BACKENDS:
        with pytest.raises(ValueError) as caught:
            plan(open_grid(10, 1), (0, 0), (5, 0), "dfs", backend=backend, **options)
        assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda grid: plan(grid, (0, 0), (5, 0), budget="5"), TypeError,
         "budget must be a Budget or None, got '5'"),
        (lambda grid: plan(grid, (0, 0), (5, 0), smoothing="gradient", smoother="x"), TypeError,
         "smoother must be SmootherParams or None, got 'x'"),
        (lambda grid: plan_world(grid, (0.25,), (5.5, 0.5)), ValueError,
         "start must be a point (x, y) in metres, got (0.25,)"),
        (lambda grid: plan_world(grid, (0.5, 0.5), "12"), ValueError,
         "goal must be a point (x, y) in metres, got '12'"),
        (lambda grid: PlanningGrid(None), TypeError,
         "PlanningGrid needs an OccupancyMap, got None"),
        (lambda grid: OccupancyMap.from_rows([[0, 0]], origin=(1,)), ValueError,
         "origin must be (x, y) or (x, y, yaw), got (1,)"),
    ],
)
def test_a_value_of_the_wrong_kind_is_named(call, error, message):
    # Each failed far inside with an AttributeError or an IndexError.
    with pytest.raises(error) as caught:
        call(open_grid(10, 1))
    assert str(caught.value) == message


# --- buffers ----------------------------------------------------------------------------------


@needs_numba
def test_many_queries_on_shared_buffers_match_fresh_buffers():
    occupancy = load_map(shared_path("maps", "tb3_sandbox.yaml"))
    grid = PlanningGrid(occupancy, robot_radius=0.1)
    free = np.flatnonzero(grid.free_mask)
    rng = np.random.default_rng(3)
    pairs = rng.choice(free, size=(15 if JIT_DISABLED else 60, 2))  # plain Python is slow
    shared = SearchBuffers(grid.cell_count, frontier_capacity=4)
    for algorithm in ("astar", "bfs", "dfs", "dijkstra", "bidirectional_bfs"):
        for start, goal in pairs:
            targets = np.array([goal], dtype=np.int64)
            arrays = (grid.clearance, grid.width, grid.height)
            with shared.lock:
                reused = run_search(algorithm, *arrays, shared, int(start), targets)
            fresh_buffers = SearchBuffers(grid.cell_count)
            fresh = run_search(algorithm, *arrays, fresh_buffers, int(start), targets)
            assert reused.status == fresh.status
            assert reused.nodes_expanded == fresh.nodes_expanded
            assert reused.nodes_generated == fresh.nodes_generated
            if fresh.path is None:
                assert reused.path is None
            else:
                np.testing.assert_array_equal(reused.path, fresh.path)
    assert shared.frontier_cell.shape[0] > 4  # the frontier grew on demand


@needs_compilation  # plain Python: minutes, for the fresh grids' cost fields
def test_searches_of_every_family_in_any_order_on_one_grid_match_a_fresh_grid():
    # The families share the grid's stamps and frontier arrays; any order of queries (every
    # algorithm, 4- and 8-connected, on a cost field) must leave each answer as a fresh grid
    # gives it, and the arrays no larger than a few times the map.
    occupancy = load_map(shared_path("maps", "tb3_sandbox.yaml"))
    options = {"robot_radius": 0.1, "cost_model": "inflation"}
    shared = PlanningGrid(occupancy, **options)
    free = np.flatnonzero(shared.free_mask)
    rng = np.random.default_rng(5)
    for _ in range(120):
        algorithm = str(rng.choice(domain_algorithms(GRID)))
        connectivity = int(rng.choice((4, 8)))
        start, *targets = (int(cell) for cell in rng.choice(free, size=int(rng.integers(2, 4))))
        found = [
            search_grid(grid, start, targets, algorithm, connectivity=connectivity,
                        backend="numba")
            for grid in (shared, PlanningGrid(occupancy, **options))
        ]
        reused, fresh = (search.result for search in found)
        assert reused.status is fresh.status, (algorithm, connectivity)
        assert reused.states.tolist() == fresh.states.tolist(), (algorithm, connectivity)
        assert (reused.nodes_expanded, reused.nodes_generated, reused.max_frontier) == (
            fresh.nodes_expanded, fresh.nodes_generated, fresh.max_frontier)
    buffers = shared.buffers
    for name in ("frontier_cell", "frontier_step", "frontier_heap", "frontier_pool"):
        assert getattr(buffers, name).shape[0] <= 4 * buffers.cell_count, name


@needs_numba
def test_a_search_growing_a_shared_frontier_array_grows_the_larger_one_only_as_needed():
    # BFS grows `frontier_cell` only; DFS keeps its stack in it and in `frontier_step`. Each
    # time DFS grew the small one it doubled the large one too: on a 2048^2 map, after a BFS,
    # a DFS asked for 32 GiB.
    values = np.zeros((300, 400), dtype=np.int8)
    values[0, -1] = 100  # the far corner, a wall: both search the whole map for it
    grid = PlanningGrid(OccupancyMap.from_rows(values))
    walled_off = grid.cell_index(399, 299)
    kernel_search(grid, "bfs", 0, walled_off)
    after_bfs = grid.buffers.frontier_cell.shape[0]
    assert after_bfs >= 64 * grid.buffers.frontier_step.shape[0]
    found = kernel_search(grid, "dfs", 0, walled_off)
    assert found.status is SearchStatus.NO_SOLUTION
    assert grid.buffers.frontier_step.shape[0] >= found.max_frontier > 8 * 1024
    # The large one grows only once the stack needs it, and then to the small one's size.
    assert grid.buffers.frontier_cell.shape[0] <= max(
        after_bfs, grid.buffers.frontier_step.shape[0])


@needs_numba
def test_generation_counter_wraps_around_safely():
    grid = PlanningGrid(tutorial_map())
    expected = plan(grid, (0, 7), (9, 0), "bfs")
    grid.buffers.base = kernels.MAX_BASE - 4
    for _ in range(6):
        found = plan(grid, (0, 7), (9, 0), "bfs")
        assert found.cells == expected.cells
        assert found.nodes_expanded == expected.nodes_expanded
    assert grid.buffers.base < 100


def test_record_expanded_reports_the_expanded_cells():
    grid = PlanningGrid(tutorial_map())
    for backend in BACKENDS:
        found = plan(grid, (0, 7), (9, 0), "bfs", record_expanded=True, backend=backend)
        assert found.expanded is not None
        assert len(set(found.expanded.tolist())) == found.nodes_expanded
        mask = found.expanded_mask()
        assert mask.sum() == found.nodes_expanded
        assert not np.any(mask & grid.lethal_mask)
    assert plan(grid, (0, 7), (9, 0)).expanded is None


def test_numba_missing_falls_back_to_the_reference_with_one_warning(monkeypatch, caplog):
    monkeypatch.setattr(backend_module, "NUMBA_AVAILABLE", False)
    monkeypatch.setattr(jit, "_warned", set())
    grid = PlanningGrid(tutorial_map())
    with caplog.at_level(logging.WARNING, logger="grid_planner.jit"):
        first = plan(grid, (0, 7), (9, 0))
        second = plan(grid, (0, 7), (9, 0), "bfs")
    assert first.backend == second.backend == "reference"
    assert first.length == second.length == 16
    assert sum("numba is not importable" in r.message for r in caplog.records) == 1
    with pytest.raises(BackendError, match="numba"):
        plan(grid, (0, 7), (9, 0), backend="numba")


@needs_numba
def test_every_grid_algorithm_runs_compiled():
    # Bidirectional BFS ran the reference search until it had a kernel: 5 s (the CLI's
    # deadline) and no path on a 1024^2 random map where BFS took 15 ms.
    grid = PlanningGrid(tutorial_map())
    for name in domain_algorithms(GRID):
        found = plan(grid, (0, 7), (9, 0), name)
        assert found.backend == "numba", name
        assert found.length == 16 or name == "dfs", name


_WARM_UP = """
import json
from grid_planner.grid import OccupancyMap, PlanningGrid, plan, warm_up
from grid_planner.grid import layers, smoothing, sweep
from grid_planner.grid.kernels import FAMILIES, trace_path
from grid_planner.grid.kernels.path_steps import path_steps
from grid_planner.search import Budget
from grid_planner.search.registry import GRID, domain_algorithms, lookup

kernels = {kernel.__name__: kernel for family in FAMILIES.values() for kernel in family.kernels}
kernels["trace_path"] = trace_path
kernels["path_steps"] = path_steps
kernels["shortcut"] = smoothing.shortcut_kernel
kernels["gradient"] = smoothing.gradient_kernel
kernels["polyline_costs"] = sweep.polyline_costs
kernels["cell_arrays"] = layers._cell_arrays_kernel
warm_up()
after_warm_up = {name: len(kernel.signatures) for name, kernel in kernels.items()}
rows = [[0] * 30] * 20
rows[5] = [0] * 10 + [100] * 10 + [0] * 10
for model in ("uniform", "inflation"):
    grid = PlanningGrid(OccupancyMap.from_rows(rows), robot_radius=0.5, cost_model=model)
    for name in domain_algorithms(GRID):
        if not lookup(name).kernel(GRID):
            continue
        for connectivity in (4, 8):
            for smoothed in ("none", "shortcut", "gradient"):
                plan(grid, (0, 0), (29, 19), name, budget=Budget.from_timeout(60.0),
                     connectivity=connectivity, smoothing=smoothed)
            plan(grid, (0, 0), (15, 14), name, tolerance=2.0, record_expanded=True,
                 connectivity=connectivity)
# A robot 16 cells wide: keys of two bytes.
deep = [[0] * 40 for _ in range(40)]
deep[3][3] = 100
for model in ("uniform", "inflation"):
    grid = PlanningGrid(OccupancyMap.from_rows(deep), robot_radius=16.0, cost_model=model,
                        inflation_radius=20.0)
    assert grid.padded_keys.dtype.itemsize == 2
    for name in domain_algorithms(GRID):
        if lookup(name).kernel(GRID):
            for connectivity in (4, 8):
                plan(grid, (4, 3), (39, 39), name, connectivity=connectivity)
after_plans = {name: len(kernel.signatures) for name, kernel in kernels.items()}
print(json.dumps([after_warm_up, after_plans]))
"""


@needs_compilation
def test_warm_up_compiles_every_kernel_that_real_plans_use():
    # A fresh process, so nothing compiled by other tests hides a kernel warm_up missed.
    package_root = str(Path(grid_planner.__file__).resolve().parent.parent)
    environment = dict(os.environ, PYTHONPATH=package_root)
    run = subprocess.run(
        [sys.executable, "-c", _WARM_UP], capture_output=True, text=True, timeout=300,
        check=False, env=environment,
    )
    assert run.returncode == 0, run.stderr
    after_warm_up, after_plans = json.loads(run.stdout)
    assert all(count >= 1 for count in after_warm_up.values()), after_warm_up.items()
    assert after_plans == after_warm_up  # real plans needed no new compilation


@needs_numba
def test_a_warm_up_slower_than_a_minute_still_finishes(monkeypatch):
    # Compiling the kernels from an empty cache takes half a minute here and minutes on a slow
    # computer: a clock that gains 100 s at every reading must not cut the warm-up short.
    readings = iter(range(0, 10**9, 100))
    monkeypatch.setattr(time, "monotonic", lambda: float(next(readings)))
    assert warm_up() >= 0.0


def test_search_grid_reports_exhaustion_when_called_without_the_reachability_check():
    values = np.zeros((3, 5), dtype=np.int8)
    values[:, 2] = 100
    grid, _rules = build(values)
    for algorithm in ("astar", "bfs", "dfs", "dijkstra"):
        for backend in BACKENDS:
            result, path, _, _ = search_grid(grid, 0, [14], algorithm, backend=backend)
            assert result.status is SearchStatus.NO_SOLUTION and path is None
            assert result.nodes_expanded == 6
