"""Compile the installed package's numba kernels into numba's cache, which sits beside them.

`make setup` runs this after installing the package, so that the first start of a node (the
demo's, a test's, a user's) loads its kernels from the cache in about a second instead of
compiling them for half a minute while its clients wait. Running it again only loads them.
"""

from __future__ import annotations

import grid_planner  # the installed package: this script's folder, tools/, holds no copy
from grid_planner.grid import warm_up as warm_grid_kernels
from grid_planner.puzzle import warm_up as warm_puzzle_kernels


def main() -> None:
    """Warm both kernel sets and say how long each took."""
    grid_seconds = warm_grid_kernels()
    puzzle_seconds = warm_puzzle_kernels()
    print(f"compile_kernels: grid kernels {grid_seconds:.1f} s, puzzle kernels "
          f"{puzzle_seconds:.1f} s, cached beside {grid_planner.__path__[0]}")


if __name__ == "__main__":
    main()
