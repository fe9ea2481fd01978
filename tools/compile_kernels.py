"""Compile the package's numba kernels into numba's cache, which sits beside each copy.

`make setup` runs this after installing the package. It warms the installed copy, so that the
first start of a node (the demo's, a test's, a user's) loads its kernels from the cache in
under a second instead of compiling them for half a minute while its clients wait; and, at the
same time in a second process, the checkout's copy, which the tests and `python -m
grid_planner.cli` from the checkout import (numba keys its cache by source file, so each copy
has its own). Running it again only loads them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent


def warm() -> str:
    """Warm both kernel sets of the grid_planner this process imports; a line saying so."""
    import grid_planner
    from grid_planner.grid import warm_up as warm_grid_kernels
    from grid_planner.puzzle import warm_up as warm_puzzle_kernels

    grid_seconds = warm_grid_kernels()
    puzzle_seconds = warm_puzzle_kernels()
    return (f"compile_kernels: grid kernels {grid_seconds:.1f} s, puzzle kernels "
            f"{puzzle_seconds:.1f} s, cached beside {grid_planner.__path__[0]}")


def main() -> int:
    """Warm the installed copy here and the checkout's in a child process; 1 if either fails."""
    if len(sys.argv) > 1 and sys.argv[1] == "--this-copy":
        print(warm(), flush=True)
        return 0
    # Without a PYTHONPATH entry the child imports what this process does: the installed copy
    # (a script's sys.path starts at its own folder, tools/, which holds no package).
    checkout = subprocess.Popen(
        [sys.executable, __file__, "--this-copy"],
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(
            filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH")])
        )),
    )
    print(warm(), flush=True)
    return 1 if checkout.wait() != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
