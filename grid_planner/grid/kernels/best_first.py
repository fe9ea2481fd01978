"""The best-first kernel family: A* with the Manhattan heuristic, and Dijkstra (A* without h).

Unit 4-connected steps. The heap is one int64 array of (key, cell) pairs, `heap[2 i]` and
`heap[2 i + 1]`: a move reads and writes one place instead of two arrays (measured faster).
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import driver, njit

from .layout import CLOSED, FRONTIER_END, entry_floor, is_target
from .query import GridKernel, GridQuery

_LOW32 = np.int64(0xFFFFFFFF)


@njit(cache=True, nogil=True, inline="always")
def _manhattan(x, y, target_x, target_y):
    best = np.int64(1) << 62
    for k in range(target_x.shape[0]):
        d = abs(x - target_x[k]) + abs(y - target_y[k])
        if d < best:
            best = d
    return best


@njit(cache=True, nogil=True, inline="always")
def _heap_push(heap, size, key, cell):
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if heap[2 * up] <= key:
            break
        heap[2 * i] = heap[2 * up]
        heap[2 * i + 1] = heap[2 * up + 1]
        i = up
    heap[2 * i] = key
    heap[2 * i + 1] = cell


@njit(cache=True, nogil=True, inline="always")
def _heap_pop_fix(heap, size):
    """Restore the heap after its root was taken; `size` is the new size."""
    if size == 0:
        return
    key = heap[2 * size]
    cell = heap[2 * size + 1]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        # The right child when strictly smaller, as an add (not a jump: the outcome is a coin
        # flip, a mispredicted branch per level costs more than the heap move itself).
        if child + 1 < size:
            child += heap[2 * child + 2] < heap[2 * child]
        if heap[2 * child] >= key:
            break
        heap[2 * i] = heap[2 * child]
        heap[2 * i + 1] = heap[2 * child + 1]
        i = child
    heap[2 * i] = key
    heap[2 * i + 1] = cell


@njit(cache=True, nogil=True)
def astar_kernel(
    clearance,
    row,
    targets,
    target_x,
    target_y,
    use_heuristic,
    stamp,
    g,
    base,
    heap,
    state,
    max_expansions,
):
    """A* (Dijkstra when `use_heuristic` is False) on unit 4-connected steps.

    The heap orders by f = g + Manhattan distance to the nearest target, ties toward the
    larger g (the key's low 32 bits hold `0xFFFFFFFF - g`). Stale heap entries are skipped on
    pop (lazy deletion). The goal test is made when a node is popped. The first entry popped
    for a cell has its least g (same h, smaller f), so g comes from the key, and the cell's
    coordinates (for h) from one division per expansion.
    """
    closed = base + CLOSED
    size = state[FRONTIER_END]
    expanded = state[driver.EXPANDED]
    generated = state[driver.GENERATED]
    max_frontier = state[driver.MAX_FRONTIER]
    capacity = heap.shape[0] // 2
    first = targets[0]
    several = targets.shape[0] > 1
    first_x = target_x[0]
    first_y = target_y[0]
    offsets = (1, row, -1, -row)
    step_x = (1, 0, -1, 0)
    step_y = (0, 1, 0, -1)
    status = driver.EXHAUSTED
    done = 0
    while True:
        if size == 0:
            status = driver.EXHAUSTED
            break
        if size + 4 > capacity:
            status = driver.GROW
            break
        key = heap[0]
        cell = heap[1]
        size -= 1
        _heap_pop_fix(heap, size)
        if stamp[cell] >= closed:
            continue
        if cell == first or (several and is_target(cell, targets)):
            state[driver.FOUND] = cell
            status = driver.SOLVED
            break
        if done >= max_expansions:
            # Out of budget for this call: put the entry back, so a resumed call pops it again.
            _heap_push(heap, size, key, cell)
            size += 1
            status = driver.PAUSED
            break
        stamp[cell] += CLOSED
        expanded += 1
        done += 1
        floor = entry_floor(clearance[cell])
        step_g = (_LOW32 - (key & _LOW32)) + 1
        cx = 0
        cy = 0
        if use_heuristic:
            cy = cell // row
            cx = cell - cy * row
        for k in range(4):
            nxt = cell + offsets[k]
            if clearance[nxt] <= floor:
                continue
            generated += 1
            seen = stamp[nxt]
            if seen >= closed:
                continue
            if seen >= base and g[nxt] <= step_g:
                continue
            stamp[nxt] = base + k
            g[nxt] = step_g
            f = step_g
            if use_heuristic:
                nx = cx + step_x[k]
                ny = cy + step_y[k]
                if several:
                    f += _manhattan(nx, ny, target_x, target_y)
                else:
                    f += abs(nx - first_x) + abs(ny - first_y)
            _heap_push(heap, size, (f << 32) | (_LOW32 - step_g), nxt)
            size += 1
        if size > max_frontier:
            max_frontier = size
    state[FRONTIER_END] = size
    driver.save_counters(state, expanded, generated, max_frontier)
    return status


class BestFirst(GridKernel):
    """A* (informed) or Dijkstra: the start on the heap with its f, marked as reached."""

    kernel = astar_kernel

    def __init__(self, query: GridQuery) -> None:
        super().__init__(query)
        start = query.start
        heuristic = 0
        if query.informed:
            start_y, start_x = divmod(start, query.row)
            heuristic = int(
                (np.abs(query.target_x - start_x) + np.abs(query.target_y - start_y)).min()
            )
        buffers = query.buffers
        buffers.stamp[start] = query.base
        buffers.frontier_heap[0] = (heuristic << 32) | 0xFFFFFFFF
        buffers.frontier_heap[1] = start

    def step(self, allowed: int) -> int:
        """One call of the A* kernel."""
        query = self.query
        buffers = query.buffers
        return astar_kernel(
            query.clearance,
            query.row,
            query.targets,
            query.target_x,
            query.target_y,
            query.informed,
            buffers.stamp,
            buffers.g,
            query.base,
            buffers.frontier_heap,
            self.state,
            allowed,
        )
