"""One query as a kernel family sees it: the padded arrays, the start, the targets, the costs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grid_planner.jit.driver import Kernel

from .buffers import SearchBuffers
from .layout import FRONTIER_END


@dataclass
class GridQuery:
    """A search from padded cell `start` to the nearest of padded cells `targets`.

    `clearance` is the padded clearance (`row` entries a row) and `free` its free cells
    (`layout.free_cells`), `base` the query's stamp
    generation in `buffers`, `target_x`/`target_y` the targets' padded coordinates (for a
    heuristic). `informed`: use the heuristic (Manhattan, octile when `eight`). `depth_limit`:
    -1 for none. `eight`: 8-connected. `costs` (padded raw costs, uint8) index the step cost
    tables `straight` and `diagonal`; `unit` says every straight step costs exactly 1;
    `estimate_scale` multiplies the heuristic (the least factor a step may cost).
    """

    clearance: np.ndarray
    free: np.ndarray
    row: int
    buffers: SearchBuffers
    base: int
    start: int
    targets: np.ndarray
    target_x: np.ndarray
    target_y: np.ndarray
    informed: bool
    depth_limit: int
    eight: bool
    costs: np.ndarray
    straight: np.ndarray
    diagonal: np.ndarray
    unit: bool
    estimate_scale: float


class GridKernel(Kernel):
    """A grid kernel family's search in progress: seeded from `query` when made.

    `kernels` lists the family's compiled functions (what the warm-up must have compiled),
    `frontier_arrays` the `SearchBuffers` arrays its frontier lives in (what `grow` enlarges).
    """

    kernels: tuple = ()
    frontier_arrays: tuple[str, ...] = ()

    def __init__(self, query: GridQuery) -> None:
        self.query = query
        self.state = query.buffers.state

    def grow(self) -> None:
        """Enlarge the heap or stack (the live entries stay where they are)."""
        self.query.buffers.grow_frontier(
            self.frontier_arrays, 0, int(self.state[FRONTIER_END]), compact=False
        )
