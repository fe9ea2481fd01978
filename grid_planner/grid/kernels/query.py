"""One query as a kernel family sees it: the padded arrays, the start, the targets, the costs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grid_planner.jit.driver import EXPANDED, Kernel, KernelRun

from .buffers import SearchBuffers, trace_path
from .layout import FRONTIER_END

# What a kernel writes the expansion order to when it is not recorded: nothing.
_NO_ORDER = np.empty(0, dtype=np.int32)


@dataclass
class GridQuery:
    """A search from padded cell `start` to the nearest of padded cells `targets`.

    `keys` are the padded move-rule keys (`keys`, `row` entries a row), `base` the query's
    stamp generation in `buffers`, `target_x`/`target_y` the targets' padded coordinates (for a
    heuristic). `informed`: use the heuristic (Manhattan, octile when `eight`). `depth_limit`:
    -1 for none. `eight`: 8-connected. `costs` (padded raw costs, uint8) index the step cost
    tables `straight` and `diagonal`; `unit` says every straight step costs exactly 1;
    `estimate_scale` multiplies the heuristic (the least factor a step may cost).
    `record_order`: the kernels write each expanded cell to `buffers.order` (see
    `GridKernel.order`).
    """

    keys: np.ndarray
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
    record_order: bool = False


class GridKernel(Kernel):
    """A grid kernel family's search in progress: seeded from `query` when made.

    `kernels` lists the family's compiled functions (what the warm-up must have compiled),
    `frontier_arrays` the `SearchBuffers` arrays its frontier lives in (what `grow` enlarges).
    `each_target`: the family searches towards one target at a time (`run_search` runs it
    once per target).
    """

    kernels: tuple = ()
    frontier_arrays: tuple[str, ...] = ()
    each_target = False

    def __init__(self, query: GridQuery) -> None:
        self.query = query
        self.state = query.buffers.state

    def order(self, allowed: int) -> np.ndarray:
        """The array a kernel call writes its expansions to: `buffers.order` with room for
        `allowed` more (a call expands at most that many), or an empty one when the query does
        not record the order, so the normal path pays one test per expansion and nothing else.
        """
        if not self.query.record_order:
            return _NO_ORDER
        return self.query.buffers.order_room(int(self.state[EXPANDED]) + allowed)

    def path(self, run: KernelRun) -> np.ndarray:
        """The map indices of the path a solved search found, start to target, read back from
        the stamps (a search's expansions plus one bound the cells on it)."""
        buffers = self.query.buffers
        return trace_path(buffers.stamp, buffers.width, self.query.start, np.int64(run.found),
                          run.nodes_expanded + 1)

    def generated(self, run: KernelRun) -> int:
        """The neighbours generated, counted as the family's reference search counts them."""
        return run.nodes_generated

    def grow(self) -> None:
        """Enlarge the heap or stack (the live entries stay where they are)."""
        self.query.buffers.grow_frontier(
            self.frontier_arrays, 0, int(self.state[FRONTIER_END]), compact=False
        )
