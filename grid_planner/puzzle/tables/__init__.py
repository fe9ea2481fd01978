"""Precomputed puzzle heuristics, built by breadth-first search from a goal and then looked up.

`exact`: the true distance of every board (up to 3x3). `pdb`: additive pattern databases
(6-6-3 on 4x4 goals with the blank in a corner), whose group tables `group_bfs` builds.
`store`: the checked on-disk cache of pattern databases and the count of tables built.
`builds`: every build runs in a thread of its own, with progress, a deadline and cancellation.
"""

from .builds import (
    Setup,
    SetupStoppedError,
    TableBuild,
    add_listener,
    cancel_builds,
    remove_listener,
    running_builds,
)
from .exact import EXACT_MAX_SIDE, UNREACHED, ExactTable, exact_table
from .pdb import (
    AdditiveDatabase,
    additive_database,
    build_database,
    default_partition,
    load_or_build_database,
)
from .store import build_count, cache_dir

__all__ = [
    "EXACT_MAX_SIDE",
    "UNREACHED",
    "AdditiveDatabase",
    "ExactTable",
    "Setup",
    "SetupStoppedError",
    "TableBuild",
    "add_listener",
    "additive_database",
    "build_count",
    "build_database",
    "cache_dir",
    "cancel_builds",
    "default_partition",
    "exact_table",
    "load_or_build_database",
    "remove_listener",
    "running_builds",
]
