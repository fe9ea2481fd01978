"""One compiled grid search: the kernel families by name, and `run_search` that drives one.

A family is a module with a numba kernel and its `GridKernel` wrapper (seeding, one step,
growing); the registry (`grid_planner.search.registry`) names the family that runs each
algorithm on the grid, and FAMILIES below maps that name to the wrapper: adding a family is a
module and one entry here.

Counting follows `grid_planner.search`: `nodes_expanded` are cells whose neighbours were
generated; `nodes_generated` every allowed neighbour produced, duplicates included, plus the
start (and the target, from which bidirectional BFS also searches); `max_frontier` the peak
heap (stale entries included), queue (both queues of bidirectional BFS), or, for DFS, the
deepest path (the reference DFS keeps an iterator per cell on its path; the kernel's stack is
counted as that DFS would count it, see `depth_first`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from grid_planner.jit import driver
from grid_planner.search.registry import GRID, lookup
from grid_planner.search.result import Budget, LimitKind, SearchStatus

from .best_first import BestFirst
from .bidirectional import Bidirectional
from .breadth_first import BreadthFirst
from .buffers import SearchBuffers
from .depth_first import DepthFirst
from .keys import padded_keys_of
from .layout import FRONTIER_END, from_padded, to_padded
from .query import GridKernel, GridQuery

# Steps of a grid without a cost field: 1 straight, sqrt 2 diagonal (`grid.costs`).
UNIFORM_STEPS = (np.ones(1), np.full(1, np.sqrt(2.0)))
_NO_COSTS = np.zeros(1, dtype=np.uint8)
# Read-only like the grid's own arrays: numba compiles one version per writability.
for _array in (*UNIFORM_STEPS, _NO_COSTS):
    _array.setflags(write=False)

# Expansions per kernel call between two budget checks (about a millisecond).
CHUNK_EXPANSIONS = 1 << 15

FAMILIES: dict[str, type[GridKernel]] = {
    "best_first": BestFirst,
    "bidirectional": Bidirectional,
    "breadth_first": BreadthFirst,
    "depth_first": DepthFirst,
}


@dataclass
class KernelOutcome:
    """What one kernel search ended with; `path` (map indices) is set when it found a target,
    `expanded` (map indices, one per expansion, in expansion order) when the search recorded
    its order."""

    status: SearchStatus
    path: np.ndarray | None
    nodes_expanded: int
    nodes_generated: int
    max_frontier: int
    elapsed: float
    limit: LimitKind | None = None
    expanded: np.ndarray | None = None
    nodes_held: int = 0


def run_search(
    algorithm: str,
    keys: np.ndarray,
    width: int,
    height: int,
    buffers: SearchBuffers,
    start: int,
    targets: np.ndarray,
    budget: Budget | None = None,
    depth_limit: int | None = None,
    chunk: int = CHUNK_EXPANSIONS,
    *,
    connectivity: int = 4,
    costs: np.ndarray | None = None,
    step_costs: tuple[np.ndarray, np.ndarray] = UNIFORM_STEPS,
    estimate_scale: float = 1.0,
    record_order: bool = False,
) -> KernelOutcome:
    """Run one compiled search from map cell `start` to the nearest of map cells `targets`.

    `keys` are either the map's flat clearance (int32, `cell_graph`) or, so that a query
    touches only the cells it searches, its padded keys (`keys`: the planner passes
    PlanningGrid's); a map-sized clearance is made into keys here, at O(map area) per call.
    The caller holds `buffers.lock` and checks that `start` is not lethal. The budget (node
    count, cancel event, deadline) is checked before every chunk of `chunk` expansions.
    `depth_limit` applies to depth-first search. `connectivity` is 4 or 8; `costs` (the
    padded raw costs, or None without a cost field) index the `(straight, diagonal)` step
    cost tables, which the breadth- and depth-first searches ignore; `estimate_scale` (at
    most the least factor a step may cost) scales the heuristic. `record_order` fills the
    outcome's `expanded` (no extra work without it). A family that searches towards one target
    at a time (bidirectional BFS) runs once per target, its runs combined as the reference
    algorithms' are.
    """
    info = lookup(algorithm)
    family = None if info is None else info.kernel(GRID)
    if family is None:
        raise ValueError(f"no compiled kernel for {algorithm!r}")
    began = time.perf_counter()
    padded_count = (width + 2) * (height + 2)
    if keys.shape[0] != padded_count:
        keys = padded_keys_of(keys, width, height)
    buffers.reserve(padded_count)
    buffers.width = width
    targets = to_padded(np.asarray(targets, dtype=np.int64), width)
    start = to_padded(int(start), width)
    straight, diagonal = step_costs
    kernel_class = FAMILIES[family]
    searches = (
        [targets[k : k + 1] for k in range(targets.shape[0])] if kernel_class.each_target
        else [targets]
    )
    outcomes = []
    for searched in searches:
        query = GridQuery(
            keys, width + 2, buffers, buffers.next_generation(), start, searched,
            searched % (width + 2), searched // (width + 2), info.informed,
            -1 if depth_limit is None else int(depth_limit), connectivity == 8,
            _NO_COSTS if costs is None else costs, straight, diagonal,
            bool(np.all(straight == 1.0)), float(estimate_scale), record_order,
        )
        outcomes.append(_search(kernel_class, query, budget, chunk, width))
        if outcomes[-1].status is SearchStatus.LIMIT_REACHED:
            break
    outcome = outcomes[0] if len(outcomes) == 1 else _one_of(outcomes)
    outcome.elapsed = time.perf_counter() - began
    return outcome


def _search(
    kernel_class: type[GridKernel], query: GridQuery, budget: Budget | None, chunk: int,
    width: int,
) -> KernelOutcome:
    """One search of `query` by its family, driven to its end."""
    record = query.record_order
    if (query.targets == query.start).any():
        path = np.array([from_padded(query.start, width)], dtype=np.int64)
        expanded = np.empty(0, dtype=np.int64) if record else None
        return KernelOutcome(SearchStatus.SOLVED, path, 0, 1, 1, 0.0, expanded=expanded)
    state = driver.reset_state(query.buffers.state)
    state[FRONTIER_END] = 1
    kernel = kernel_class(query)
    ended = driver.run(kernel, budget, chunk)
    return KernelOutcome(
        status=ended.status,
        path=kernel.path(ended) if ended.status is SearchStatus.SOLVED else None,
        nodes_expanded=ended.nodes_expanded,
        nodes_generated=kernel.generated(ended),
        max_frontier=ended.max_frontier,
        elapsed=0.0,
        limit=ended.limit,
        expanded=query.buffers.expansion_order(ended.nodes_expanded) if record else None,
        nodes_held=ended.nodes_held,
    )


def _one_of(outcomes: list[KernelOutcome]) -> KernelOutcome:
    """The searches towards each target as one outcome, as the reference algorithms' are
    combined: the run that hit a limit, else the shortest path (the first of equals), else the
    last run; counts summed over the runs (the peak frontier their largest), the expansion
    orders one after another."""
    chosen = outcomes[-1]
    if chosen.status is not SearchStatus.LIMIT_REACHED:
        solved = [outcome for outcome in outcomes if outcome.path is not None]
        if solved:
            chosen = min(solved, key=lambda outcome: outcome.path.shape[0])
    orders = [outcome.expanded for outcome in outcomes]
    return KernelOutcome(
        status=chosen.status,
        path=chosen.path,
        nodes_expanded=sum(outcome.nodes_expanded for outcome in outcomes),
        nodes_generated=sum(outcome.nodes_generated for outcome in outcomes),
        max_frontier=max(outcome.max_frontier for outcome in outcomes),
        elapsed=0.0,
        limit=chosen.limit,
        expanded=None if orders[0] is None else np.concatenate(orders),
        nodes_held=max(outcome.nodes_held for outcome in outcomes),
    )
