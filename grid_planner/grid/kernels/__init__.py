"""Compiled grid searches (numba): A*, Dijkstra, BFS, bidirectional BFS and DFS over a padded
array of keys.

`keys` turns the clearance into the keys the kernels read; `layout` holds the padded layout,
the stamps and the state slots every kernel shares; `buffers` the per-grid scratch arrays and
the path trace; `best_first`, `breadth_first`, `bidirectional` and `depth_first` one kernel
family each; `run`
the table of families and `run_search`, which seeds a family and drives it through
`grid_planner.jit.driver` (chunks between budget checks, a frontier that grows on demand).

When numba cannot be imported the planner falls back to the reference algorithms of
`grid_planner.search` (see `grid_planner.jit.backend`).
"""

from .buffers import SearchBuffers, trace_path
from .keys import (
    FREE_CLEARANCE,
    LETHAL_CLEARANCE,
    LETHAL_KEY,
    decode_keys,
    encode_keys,
    free_key,
    key_dtype,
    pad_keys,
    padded_keys_of,
    unpadded,
)
from .layout import CLOSED, GENERATION_STEP, MAX_BASE, from_padded, to_padded
from .run import CHUNK_EXPANSIONS, FAMILIES, KernelOutcome, run_search

__all__ = [
    "CHUNK_EXPANSIONS",
    "CLOSED",
    "FAMILIES",
    "FREE_CLEARANCE",
    "GENERATION_STEP",
    "LETHAL_CLEARANCE",
    "LETHAL_KEY",
    "MAX_BASE",
    "KernelOutcome",
    "SearchBuffers",
    "decode_keys",
    "encode_keys",
    "free_key",
    "from_padded",
    "key_dtype",
    "pad_keys",
    "padded_keys_of",
    "run_search",
    "to_padded",
    "trace_path",
    "unpadded",
]
