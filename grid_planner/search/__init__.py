"""Problem-agnostic search algorithms over the `SearchProblem` contract.

Each algorithm is a plain function `algorithm(problem, budget=None, ...) -> SearchResult`;
`ALGORITHMS` (the one registry, `registry`) lists them by name with their guarantees, the
subset each domain offers and the compiled kernels that run them there.

How every algorithm counts, so that results compare like with like:

- `nodes_generated`: every state a search produces, duplicates included (IDA* leaves out the
  step that undoes the last one, as Korf counts), plus the start (and, for bidirectional BFS,
  the goal). Iterative-deepening searches count every pass again,
  except the start, which counts once (Korf's convention for IDA*).
- `nodes_expanded`: states whose successors were asked for ("expanded" = its successors were
  generated); the budget's `max_nodes` bounds this number.
- `max_frontier`: the peak size of what waits to be explored: the queue (BFS), both layers
  (bidirectional BFS), the heap including stale entries (A*, uniform-cost), the current path
  (DFS, IDDFS, IDA*, which keep one lazy successor iterator per path state).
- `nodes_held`: the peak number of states the search keeps in memory, what the budget's
  `max_held` bounds: every state seen (BFS, bidirectional BFS), the expanded states plus the
  heap (A*, uniform-cost), the states a depth-first pass remembers (DFS, IDDFS: their per-pass
  table, far more than the path), the path alone (IDA*).
- `elapsed`: `time.perf_counter()` seconds for the search alone.

Budgets: `max_nodes` and `max_held` are compared before every expansion; the deadline and the
cancel flag are read (and `progress` written) before the first expansion and then every
`CLOCK_CHECK_INTERVAL` expansions, because reading the clock per node would cost more than
the node. A search stopped by a budget, or a
depth-limited search that cut states and found nothing, ends LIMIT_REACHED with the LimitKind.
"""

from ._support import CLOCK_CHECK_INTERVAL, DEPTH_LIMIT_BOUND, DEPTH_LIMIT_WORDS
from .informed import astar, idastar, uniform_cost
from .problem import (
    IncrementalHeuristicProblem,
    ReversibleProblem,
    SearchProblem,
    declares_unit_cost,
)
from .registry import (
    ALGORITHMS,
    DOMAIN_ALGORITHMS,
    AlgorithmInfo,
    domain_algorithms,
    lookup,
    offered,
)
from .result import Budget, LimitKind, SearchProgress, SearchResult, SearchStatus
from .uninformed import bfs, bidirectional_bfs, dfs, iddfs

__all__ = [
    "ALGORITHMS",
    "CLOCK_CHECK_INTERVAL",
    "DEPTH_LIMIT_BOUND",
    "DEPTH_LIMIT_WORDS",
    "DOMAIN_ALGORITHMS",
    "AlgorithmInfo",
    "Budget",
    "IncrementalHeuristicProblem",
    "LimitKind",
    "ReversibleProblem",
    "SearchProblem",
    "SearchProgress",
    "SearchResult",
    "SearchStatus",
    "astar",
    "bfs",
    "bidirectional_bfs",
    "declares_unit_cost",
    "dfs",
    "domain_algorithms",
    "idastar",
    "iddfs",
    "lookup",
    "offered",
    "uniform_cost",
]
