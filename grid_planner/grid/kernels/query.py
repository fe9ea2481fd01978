"""One query as a kernel family sees it: the padded arrays, the start, the targets."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grid_planner.jit.driver import Kernel

from .buffers import SearchBuffers
from .layout import FRONTIER_END


@dataclass
class GridQuery:
    """A search from padded cell `start` to the nearest of padded cells `targets`.

    `clearance` is the padded clearance (`row` entries a row), `base` the query's stamp
    generation in `buffers`, `target_x`/`target_y` the targets' padded coordinates (for a
    heuristic). `informed`: use the Manhattan heuristic. `depth_limit`: -1 for none.
    """

    clearance: np.ndarray
    row: int
    buffers: SearchBuffers
    base: int
    start: int
    targets: np.ndarray
    target_x: np.ndarray
    target_y: np.ndarray
    informed: bool
    depth_limit: int


class GridKernel(Kernel):
    """A grid kernel family's search in progress: seeded from `query` when made."""

    def __init__(self, query: GridQuery) -> None:
        self.query = query
        self.state = query.buffers.state

    def grow(self) -> None:
        """Enlarge the heap or stack (the live entries stay where they are)."""
        self.query.buffers.grow_frontier(0, int(self.state[FRONTIER_END]), compact=False)
