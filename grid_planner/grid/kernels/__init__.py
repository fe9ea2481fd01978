"""Compiled grid searches (numba): A*, Dijkstra, BFS and DFS over a padded clearance array.

`layout` holds the padded array, the stamps and the state slots every kernel shares;
`buffers` the per-grid scratch arrays and the path trace; `best_first`, `breadth_first` and
`depth_first` one kernel family each; `run` the table of families and `run_search`, which
seeds a family and drives it through `grid_planner.jit.driver` (chunks between budget checks,
a frontier that grows on demand).

When numba cannot be imported the planner falls back to the reference algorithms of
`grid_planner.search` (see `grid_planner.jit.backend`).
"""

from .buffers import SearchBuffers, trace_path
from .layout import (
    CLOSED,
    FREE_CLEARANCE,
    GENERATION_STEP,
    LETHAL_CLEARANCE,
    MAX_BASE,
    free_cells,
    from_padded,
    pad_clearance,
    to_padded,
)
from .run import CHUNK_EXPANSIONS, FAMILIES, KernelOutcome, run_search

__all__ = [
    "CHUNK_EXPANSIONS",
    "CLOSED",
    "FAMILIES",
    "FREE_CLEARANCE",
    "GENERATION_STEP",
    "LETHAL_CLEARANCE",
    "MAX_BASE",
    "KernelOutcome",
    "SearchBuffers",
    "free_cells",
    "from_padded",
    "pad_clearance",
    "run_search",
    "to_padded",
    "trace_path",
]
