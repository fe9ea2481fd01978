"""How many malloc arenas a node process keeps: few, so freed grids go back to use.

glibc gives each thread that allocates its own arena (up to eight per core). A node allocates
its grids (megabytes each) in several threads: the map callbacks, the service and action
plans, the replanner. Each arena keeps the blocks freed in it for its own thread's later
allocations, so a node fed 100 x 100 patches on a 2048^2 map while serving plans grew from
250 MB to 820-890 MB before it levelled off. With MAX_ARENAS the same run stays near 280 MB.

The limit is set once, at the start of an executable, before any import starts a thread (the
numerical libraries start theirs as they load): arenas made before it stay. Only the
executables set it: a program that imports the library keeps its own allocator settings, and
an arena limit given in the environment (MALLOC_ARENA_MAX, or glibc.malloc.arena_max in
GLIBC_TUNABLES) is left as it is. Where the C library has no `mallopt` (not glibc), nothing
changes.
"""

from __future__ import annotations

import ctypes
import os

M_ARENA_MAX = -8  # glibc's mallopt parameter number for the arena limit
MAX_ARENAS = 1


def limit_malloc_arenas(arenas: int = MAX_ARENAS) -> bool:
    """Limit glibc's malloc to `arenas` arenas, unless the environment sets a limit; whether
    this call set it."""
    if "MALLOC_ARENA_MAX" in os.environ or "arena_max" in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    try:  # the symbols the interpreter is linked with, the C library's among them
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt(M_ARENA_MAX, arenas) == 1
