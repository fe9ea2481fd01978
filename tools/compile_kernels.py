"""Compile the package's numba kernels into numba's cache, which sits beside each copy.

`make setup` runs this after installing the package. It warms the installed copy, so that the
first start of a node (the demo's, a test's, a user's) loads its kernels from the cache in
under a second instead of compiling them for half a minute while its clients wait; and, at the
same time in a second process, the checkout's copy, which the tests and `python -m
grid_planner.cli` from the checkout import (numba keys its cache by source file, so each copy
has its own). Running it again only loads them.

numba checks a cached kernel against its own file only, not against the helpers and constants
it took from other files when it was compiled (`kernels.layout`'s inlined move rule, say): after
such a file changed, the cache would keep serving the old kernel, and the tests would pass on
it. So each copy's cache is stamped with a digest of the sources its kernels are made of, and
emptied before warming when that digest changed (a clone or an install starts empty anyway).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
# The package's folders that hold no compiled kernel and nothing a kernel reads.
NO_KERNELS = ("cli", "nodes")
SOURCES_STAMP = "kernel-sources.sha256"


def clear_stale_cache(package: Path) -> int:
    """Empty numba's cache under `package` unless it was filled from the sources there now
    (their digest is stamped in `package`/__pycache__); how many cached files it removed."""
    digest = hashlib.sha256()
    for source in sorted(package.rglob("*.py")):
        relative = source.relative_to(package)
        if relative.parts[0] not in NO_KERNELS:
            digest.update(str(relative).encode() + b"\0" + source.read_bytes())
    stamp = package / "__pycache__" / SOURCES_STAMP
    if stamp.is_file() and stamp.read_text() == digest.hexdigest():
        return 0
    stale = [*package.rglob("*.nbi"), *package.rglob("*.nbc")]
    for cached in stale:
        cached.unlink(missing_ok=True)  # another warming process may have removed it
    stamp.parent.mkdir(exist_ok=True)
    stamp.write_text(digest.hexdigest())
    return len(stale)


def warm() -> str:
    """Warm both kernel sets of the grid_planner this process imports; a line saying so."""
    import grid_planner
    from grid_planner.grid import warm_up as warm_grid_kernels
    from grid_planner.puzzle import warm_up as warm_puzzle_kernels

    cleared = clear_stale_cache(Path(grid_planner.__path__[0]))
    grid_seconds = warm_grid_kernels()
    puzzle_seconds = warm_puzzle_kernels()
    return (f"compile_kernels: grid kernels {grid_seconds:.1f} s, puzzle kernels "
            f"{puzzle_seconds:.1f} s, cached beside {grid_planner.__path__[0]}"
            + (f" (its sources changed: {cleared} cached files removed first)" if cleared
               else ""))


def main() -> int:
    """Warm the installed copy here and the checkout's in a child process; 1 if either fails."""
    if len(sys.argv) > 1 and sys.argv[1] == "--this-copy":
        print(warm(), flush=True)
        return 0
    import grid_planner

    if Path(grid_planner.__path__[0]).resolve() == (CHECKOUT / "grid_planner").resolve():
        # A PYTHONPATH made this process import the checkout's copy too: warm it once (two
        # processes emptying one cache raced on the same files).
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
