"""The per-grid scratch arrays of the kernels, and the path read back from a query's stamps."""

from __future__ import annotations

import threading

import numpy as np

from grid_planner.jit import njit

from .layout import CLOSED, GENERATION_STEP, MAX_BASE, STATE_SIZE, from_padded


class SearchBuffers:
    """Per-grid scratch arrays for the kernels, reused by every query on that grid.

    `stamp` and `g` have one entry per cell of the padded clearance (`cell_count` of them,
    allocated once; a query on a larger clearance reallocates them). The frontier arrays (the
    A* heap's (key, cell) pairs, the BFS queue or DFS stack cells, the DFS directions) start
    small and grow on demand, so a short query on a huge map stays cheap. `lock` serialises
    queries (kernels release the GIL, so two threads could otherwise share the arrays).
    `width` is the map width of the latest query, for `expanded_indices`.
    """

    def __init__(self, cell_count: int, frontier_capacity: int = 1024) -> None:
        self._allocate(cell_count)
        self.frontier_heap = np.empty(2 * frontier_capacity, dtype=np.int64)
        self.frontier_cell = np.empty(frontier_capacity, dtype=np.int32)
        self.frontier_step = np.empty(frontier_capacity, dtype=np.int32)
        self.state = np.zeros(STATE_SIZE, dtype=np.int64)
        self.base = 0
        self.width = 0
        self.lock = threading.Lock()

    def _allocate(self, cell_count: int) -> None:
        self.cell_count = cell_count
        # Only `stamp` needs initialising (zeros: untouched); g is read only for cells whose
        # stamp says it was written in the current query (and BFS never touches it).
        self.stamp = np.zeros(cell_count, dtype=np.int32)
        self.g = np.empty(cell_count, dtype=np.int32)

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

    def grow_frontier(self, live_from: int, live_to: int, compact: bool) -> tuple[int, int]:
        """Make room for more frontier entries; returns the new `(live_from, live_to)`.

        With `compact` (the BFS queue) the live slice moves to the front; otherwise the arrays
        are only enlarged.
        """
        live = live_to - live_from
        capacity = self.frontier_cell.shape[0]
        new_capacity = max(capacity, 2 * (live + 8)) if compact else 2 * capacity
        heap = np.empty(2 * new_capacity, dtype=np.int64)
        cell = np.empty(new_capacity, dtype=np.int32)
        step = np.empty(new_capacity, dtype=np.int32)
        first, end = (live_from, live_to) if compact else (0, live_to)
        heap[: 2 * (end - first)] = self.frontier_heap[2 * first : 2 * end]
        cell[: end - first] = self.frontier_cell[first:end]
        step[: end - first] = self.frontier_step[first:end]
        self.frontier_heap, self.frontier_cell, self.frontier_step = heap, cell, step
        return (0, live) if compact else (live_from, live_to)

    def expanded_indices(self) -> np.ndarray:
        """Map indices of the cells the latest query expanded (O(map area); for display)."""
        return from_padded(np.flatnonzero(self.stamp >= self.base + CLOSED), self.width)


@njit(cache=True, nogil=True)
def trace_path(stamp, width, start, goal):
    """The map indices of the path from padded cell `start` to padded cell `goal`.

    Follows the directions in the stamps back from the goal (a parent is always reached at a
    smaller depth, so the walk ends at the start).
    """
    row = width + 2
    offsets = (1, row, -1, -row)
    count = 1
    cell = goal
    while cell != start:
        cell -= offsets[stamp[cell] & 3]
        count += 1
    path = np.empty(count, dtype=np.int64)
    cell = goal
    for i in range(count - 1, 0, -1):
        path[i] = cell - 2 * (cell // row) - width - 1
        cell -= offsets[stamp[cell] & 3]
    path[0] = start - 2 * (start // row) - width - 1
    return path
