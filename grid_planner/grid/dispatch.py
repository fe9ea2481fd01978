"""One search on the grid, dispatched through the algorithm registry: compiled or reference.

An algorithm whose registry entry names a grid kernel family runs compiled (`kernels`) when
numba is available and the backend allows it; every other case runs the algorithm's reference
implementation from `grid_planner.search` on a `GridProblem`. Both give the same SearchResult
fields, counted the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from grid_planner.jit.backend import resolve_backend
from grid_planner.search._support import effective_depth_limit
from grid_planner.search.registry import GRID, AlgorithmInfo, domain_algorithms, offered
from grid_planner.search.result import Budget, SearchResult, SearchStatus, checked_budget

from .cell_graph import DIRECTIONS, check_connectivity
from .costs import DEFAULT_COST_TRAVEL_MULTIPLIER
from .errors import InvalidPlanner
from .kernels import SearchBuffers, run_search
from .kernels.path_steps import path_steps
from .planning_grid import PlanningGrid
from .problem import GridProblem

DEFAULT_ALGORITHM = "astar"
GRID_FALLBACK = (
    "grid planning uses the pure-Python reference algorithms, which are much slower on large maps"
)

_DIRECTION_NAMES = np.array([name for name, _, _ in DIRECTIONS], dtype=object)
# The raw costs of a grid without a cost field: every step reads entry 0 of the tables.
_NO_RAW = np.zeros(1, dtype=np.uint8)
_NO_RAW.setflags(write=False)
# The states of a search that found no path.
_NO_PATH = np.empty(0, dtype=np.int64)
_NO_PATH.setflags(write=False)


class GridSearch(NamedTuple):
    """What `search_grid` found: the result (its states the path, its actions the direction
    names, both arrays), the path, the expanded cells (flat indices in expansion order, one per
    expansion, or None), and the backend that ran ("numba" or "reference")."""

    result: SearchResult
    path: np.ndarray | None
    expanded: np.ndarray | None
    backend: str


def algorithm_info(algorithm: str) -> AlgorithmInfo:
    """The registry entry of grid algorithm `algorithm`; InvalidPlanner for an unknown name."""
    info = offered(GRID, algorithm)
    if info is None:
        raise InvalidPlanner(
            f"unknown grid algorithm {algorithm!r}; choose one of "
            f"{', '.join(domain_algorithms(GRID))}"
        )
    return info


def search_grid(
    grid: PlanningGrid,
    start: int,
    targets: Sequence[int] | np.ndarray,
    algorithm: str = DEFAULT_ALGORITHM,
    *,
    budget: Budget | None = None,
    depth_limit: int | None = None,
    record_expanded: bool = False,
    backend: str = "auto",
    connectivity: int = 4,
    cost_travel_multiplier: float = DEFAULT_COST_TRAVEL_MULTIPLIER,
) -> GridSearch:
    """One search from flat cell `start` to the nearest of `targets`, with no pre-checks.

    The result's algorithm is `algorithm` as given (a name or an alias). `depth_limit` (or
    the budget's max_depth) applies to algorithms that take one. `connectivity` (4 or 8) and
    `cost_travel_multiplier` (cost models with a cost field) shape the steps and their costs;
    the result's cost is in cells (a straight step on a free cell costs 1). The caller makes
    sure `start` is not lethal. `record_expanded` lists the expanded cells in the order they
    were expanded (both backends; a cell expanded twice is listed twice). `plan` is the checked
    entry point; this one exists for benchmarks and for tests that compare the kernels with the
    reference algorithms.
    """
    info = algorithm_info(algorithm)
    connectivity = check_connectivity(connectivity)
    budget = checked_budget(budget)
    step_costs = grid.step_costs(cost_travel_multiplier)
    used = resolve_backend(backend, info.kernel(GRID) is not None, GRID_FALLBACK)
    depth = effective_depth_limit(depth_limit, budget) if info.depth_option else None
    target_array = np.asarray(targets, dtype=np.int64).reshape(-1)
    if used == "reference":
        result, expanded_list = _reference_search(
            grid, info, int(start), target_array, budget, depth,
            connectivity=connectivity, cost_travel_multiplier=cost_travel_multiplier,
        )
        result.algorithm = algorithm
        path = np.asarray(result.states, dtype=np.int64) if result.solved else None
        result.states = _NO_PATH if path is None else path
        result.actions = np.asarray(result.actions, dtype=object)
        expanded = np.asarray(expanded_list, dtype=np.int64) if record_expanded else None
        return GridSearch(result, path, expanded, used)

    buffers: SearchBuffers = grid.buffers
    with buffers.lock:
        outcome = run_search(
            algorithm,
            grid.padded_keys,
            grid.width,
            grid.height,
            buffers,
            int(start),
            target_array,
            budget=budget,
            depth_limit=depth,
            connectivity=connectivity,
            costs=grid.padded_costs if grid.raw_costs is not None else None,
            step_costs=step_costs,
            estimate_scale=grid.least_step_factor(cost_travel_multiplier),
            record_order=record_expanded,
        )
    expanded = outcome.expanded
    path = outcome.path
    solved = path is not None
    directions, cost = np.empty(0, dtype=np.int64), 0.0
    if solved:
        raw = grid.raw_costs
        directions, cost = path_steps(
            path, grid.width, *step_costs, _NO_RAW if raw is None else raw, raw is not None
        )
    # What the algorithm guarantees (one for unit costs only: on 4-connected unit steps).
    guaranteed = info.optimal and (not info.unit_cost_only or (
        connectivity == 4 and bool(np.all(step_costs[0] == 1.0))
    ))
    result = SearchResult(
        algorithm=algorithm,
        status=outcome.status,
        states=path if solved else _NO_PATH,
        actions=_DIRECTION_NAMES[directions],
        cost=cost,
        nodes_expanded=outcome.nodes_expanded,
        nodes_generated=outcome.nodes_generated,
        max_frontier=outcome.max_frontier,
        elapsed=outcome.elapsed,
        optimal=solved and (len(path) == 1 or guaranteed),
        limit=outcome.limit,
        nodes_held=outcome.nodes_held,
    )
    return GridSearch(result, path, expanded, used)


def _reference_search(
    grid: PlanningGrid,
    info: AlgorithmInfo,
    start: int,
    targets: np.ndarray,
    budget: Budget | None,
    depth: int | None,
    **shape: object,
) -> tuple[SearchResult, list[int]]:
    goals = [int(t) for t in targets]
    options = {info.depth_option: depth} if info.depth_option else {}
    if not info.reversible:
        problem = GridProblem(grid, start, goals, record_expanded=True, **shape)
        return info(problem, budget, **options), problem.expanded

    # A reversible search needs one goal state: run it towards each equally near target and
    # keep the shortest path (ties: the first target in index order).
    best: SearchResult | None = None
    run: SearchResult | None = None
    expanded: list[int] = []
    totals = [0, 0, 0, 0.0]
    for goal in goals:
        problem = GridProblem(grid, start, [goal], record_expanded=True, **shape)
        run = info(problem, budget, **options)
        expanded.extend(problem.expanded)
        totals[0] += run.nodes_expanded
        totals[1] += run.nodes_generated
        totals[2] = max(totals[2], run.max_frontier)
        totals[3] += run.elapsed
        if run.status is SearchStatus.LIMIT_REACHED:
            best = run
            break
        if run.solved and (best is None or run.length < best.length):
            best = run
    if best is None:
        best = run
    assert best is not None  # goals is never empty
    best.nodes_expanded, best.nodes_generated = int(totals[0]), int(totals[1])
    best.max_frontier, best.elapsed = int(totals[2]), float(totals[3])
    return best, expanded
