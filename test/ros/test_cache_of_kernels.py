"""`make setup` leaves the installed package's numba kernels in numba's cache, so no node's
first start compiles them (compiling took ~29 s, which a client waiting 30 s for the node's
services could not absorb on a loaded machine).

This file's name sorts first in test/ros, so it runs before any test starts a node from the
venv (test/core imports the checkout's copy, whose cache is its own): what it finds in the
cache was put there by the set-up.
"""

from __future__ import annotations

import json
import subprocess
import sys

# In a fresh process, from the installed package: warm every kernel as a starting node does
# and count, per compiled function, the signatures numba loaded from its cache and compiled.
PROBE = """
import json, sys
import grid_planner
from numba.core.registry import CPUDispatcher
from grid_planner.grid import warm_up as warm_grid_kernels
from grid_planner.puzzle import warm_up as warm_puzzle_kernels
warm_grid_kernels()
warm_puzzle_kernels()
counts = {}
for name, module in list(sys.modules.items()):
    if name.startswith("grid_planner"):
        for attr, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.signatures:
                stats = value.stats
                counts[f"{name}.{attr}"] = (sum(stats.cache_hits.values()),
                                            sum(stats.cache_misses.values()))
print(json.dumps({"package": grid_planner.__path__[0], "counts": counts}))
"""


def test_a_fresh_process_loads_every_warmed_kernel_from_the_cache_the_set_up_filled() -> None:
    probe = subprocess.run([sys.executable, "-c", PROBE], cwd="/", capture_output=True,
                           text=True, timeout=300, check=True)
    found = json.loads(probe.stdout.splitlines()[-1])
    assert "site-packages" in found["package"]  # the venv's install, not the checkout
    compiled = {name: misses for name, (_, misses) in found["counts"].items() if misses}
    assert compiled == {}
    loaded = [name for name, (hits, _) in found["counts"].items() if hits]
    # The grid search kernels and the puzzle's IDA* are among them.
    assert any(name.endswith("bfs_kernel") for name in loaded)
    assert any(name.startswith("grid_planner.puzzle.idastar_kernel") for name in loaded)
