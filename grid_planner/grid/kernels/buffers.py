"""The per-grid scratch arrays of the kernels, and the path read back from a query's stamps."""

from __future__ import annotations

import threading

import numpy as np

from grid_planner.jit import njit

from .layout import (
    CLOSED,
    DIRECTION_MASK,
    GENERATION_STEP,
    MAX_BASE,
    STAMP_DTYPE,
    STATE_SIZE,
    from_padded,
    neighbour_offsets,
)

# Values an entry of each frontier array takes: the weighted heap's entries are two int64, its
# pool slots three (see `weighted`).
ENTRY_WIDTHS = {"frontier_heap": 2, "frontier_pool": 3}


class SearchBuffers:
    """Per-grid scratch arrays for the kernels, reused by every query on that grid.

    `stamp` and `g` (integer path costs of the unit searches) have one entry per cell of the
    padded keys (`cell_count` of them, allocated once; a query on
    a larger map reallocates them); `weighted_g` (float path costs) is allocated on the
    first weighted search. The frontier
    arrays (the weighted frontier's heap and pool, the cells of the BFS queue, the DFS stack or
    the two-stack A*'s halves, the DFS directions) start small and grow on demand, so a short query
    on a huge map stays cheap. `lock` serialises queries (kernels release the GIL, so two
    threads could otherwise share the arrays). `width` is the map width of the latest query,
    for `expanded_indices` and `expansion_order`. `order` holds the padded cells a query that
    records its expansion order expanded, in that order (grown on demand, kept for reuse).
    """

    def __init__(self, cell_count: int, frontier_capacity: int = 1024) -> None:
        self._allocate(cell_count)
        self.frontier_heap = np.empty(2 * frontier_capacity, dtype=np.int64)
        self.frontier_pool = np.empty(3 * frontier_capacity, dtype=np.int64)
        self.frontier_cell = np.empty(frontier_capacity, dtype=np.int32)
        self.frontier_step = np.empty(frontier_capacity, dtype=np.int32)
        self.state = np.zeros(STATE_SIZE, dtype=np.int64)
        self.order = np.empty(0, dtype=np.int32)
        self.base = 0
        self.width = 0
        self.lock = threading.Lock()

    def _allocate(self, cell_count: int) -> None:
        self.cell_count = cell_count
        # Only `stamp` needs initialising (zeros: untouched); g is read only for cells whose
        # stamp says it was written in the current query (and BFS never touches it).
        self.stamp = np.zeros(cell_count, dtype=STAMP_DTYPE)
        self.g = np.empty(cell_count, dtype=np.int32)
        self._weighted_g: np.ndarray | None = None

    @property
    def weighted_g(self) -> np.ndarray:
        """Float path costs, one per padded cell, for the weighted searches."""
        if self._weighted_g is None or self._weighted_g.shape[0] != self.cell_count:
            self._weighted_g = np.empty(self.cell_count, dtype=np.float64)
        return self._weighted_g

    def reserve(self, cell_count: int) -> None:
        """Make sure the per-cell arrays hold at least `cell_count` entries."""
        if cell_count > self.cell_count:
            self._allocate(cell_count)

    def next_generation(self) -> int:
        """A fresh generation `base` (a multiple of GENERATION_STEP); every cell reads unseen."""
        self.base += GENERATION_STEP
        if self.base > MAX_BASE:
            self.stamp.fill(0)
            self.base = GENERATION_STEP
        return self.base

    def grow_frontier(
        self, arrays: tuple[str, ...], live_from: int, live_to: int, compact: bool
    ) -> tuple[int, int]:
        """Make room for more entries in the frontier `arrays` (attribute names); returns the
        new `(live_from, live_to)`.

        The smallest of `arrays` (in entries) at least doubles, so a search makes O(log) of
        these calls, and every array grows to that new size unless it holds as much already.
        Families share arrays: after a BFS grew `frontier_cell` to millions of entries, a DFS
        growing its `frontier_step` again and again must not double the big one each time (it
        reached 32 GiB). With `compact` (the BFS queue) the live slice also moves to the front.
        """
        live = live_to - live_from
        first, end = (live_from, live_to) if compact else (0, live_to)
        capacities = {name: getattr(self, name).shape[0] // ENTRY_WIDTHS.get(name, 1)
                      for name in arrays}
        target = max(2 * min(capacities.values()), 2 * (live + 8))
        for name, capacity in capacities.items():
            old = getattr(self, name)
            width = ENTRY_WIDTHS.get(name, 1)
            if capacity >= target:
                if compact:
                    old[: width * (end - first)] = old[width * first : width * end]
                continue
            new = np.empty(width * target, dtype=old.dtype)
            new[: width * (end - first)] = old[width * first : width * end]
            setattr(self, name, new)
        return (0, live) if compact else (live_from, live_to)

    def grow_halves(self, current: int, current_size: int, next_size: int) -> None:
        """Double the cell array split in two stacks (the two-stack A*), keeping both.

        Half `current` (0 or 1) holds `current_size` live cells, the other half `next_size`;
        each stays in the same half of the larger array.
        """
        half = self.frontier_cell.shape[0] // 2
        cell = np.empty(4 * half, dtype=np.int32)
        sizes = (current_size, next_size) if current == 0 else (next_size, current_size)
        for which, size in enumerate(sizes):
            cell[which * 2 * half : which * 2 * half + size] = self.frontier_cell[
                which * half : which * half + size
            ]
        self.frontier_cell = cell

    def order_room(self, count: int) -> np.ndarray:
        """`order`, at least doubled when it holds fewer than `count` entries (kept ones stay)."""
        if self.order.shape[0] < count:
            grown = np.empty(max(count, 2 * self.order.shape[0]), dtype=np.int32)
            grown[: self.order.shape[0]] = self.order
            self.order = grown
        return self.order

    def expansion_order(self, count: int) -> np.ndarray:
        """Map indices (int64) of the first `count` cells the latest recording query expanded,
        in expansion order."""
        return from_padded(self.order[:count].astype(np.int64), self.width)

    def expanded_indices(self) -> np.ndarray:
        """Map indices of the cells the latest query expanded (O(map area); for display): the
        stamps' CLOSED mark, which bidirectional BFS does not set (its BACKWARD stamps reach
        the same values, so after it these are the cells its backward side reached)."""
        return from_padded(np.flatnonzero(self.stamp >= self.base + CLOSED), self.width)


@njit(cache=True, nogil=True)
def trace_path(stamp, width, start, goal, longest):
    """The map indices of the path from padded cell `start` to padded cell `goal`.

    Follows the directions in the stamps back from the goal (a parent is always reached at a
    smaller depth, so the walk ends at the start). `longest` bounds the cells on the path (a
    search's expansions plus one: every cell on it but the goal was expanded): the walk fills an
    array of that many from its end and returns the filled tail, so there is no reversing copy
    and, while the bound holds, no growing (a walk that outruns it moves to a doubled array).
    Each step waits for the stamp it reads; the offsets sit in an array (a tuple indexed at run
    time compiles to a branch per step) and the padded row follows the steps (a step of more
    than one entry changes the row), not a division per cell.
    """
    row = width + 2
    offsets = np.array(neighbour_offsets(row), dtype=np.int64)
    path = np.empty(max(longest, 1), dtype=np.int64)
    end = path.shape[0]
    cell = goal
    y = goal // row
    while True:
        if end == 0:
            grown = np.empty(2 * path.shape[0], dtype=np.int64)
            grown[path.shape[0]:] = path
            end = path.shape[0]
            path = grown
        end -= 1
        path[np.uint64(end)] = cell - 2 * y - width - 1
        if cell == start:
            return path[end:]
        step = offsets[stamp[np.uint64(cell)] & DIRECTION_MASK]
        cell -= step
        y -= int(step > 1) - int(step < -1)
