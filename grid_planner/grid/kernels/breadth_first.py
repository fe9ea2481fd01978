"""The breadth-first kernel family: BFS with an array FIFO on unit 4-connected steps."""

from __future__ import annotations

import numpy as np

from grid_planner.jit import driver, njit

from .layout import CLOSED, FRONTIER_END, QUEUE_HEAD, entry_floor, is_target
from .query import GridKernel, GridQuery


@njit(cache=True, nogil=True)
def bfs_kernel(clearance, row, targets, stamp, base, queue, state, max_expansions):
    """Breadth-first search with an array FIFO; the goal test is made when a node is generated.

    Unit steps need no g, so a reached cell costs one stamp store and one queue store.
    """
    head = state[QUEUE_HEAD]
    tail = state[FRONTIER_END]
    generated = state[driver.GENERATED]
    max_frontier = state[driver.MAX_FRONTIER]
    capacity = queue.shape[0]
    first = targets[0]
    several = targets.shape[0] > 1
    offsets = (1, row, -1, -row)
    stop = head + max_expansions
    status = driver.EXHAUSTED
    while status == driver.EXHAUSTED:
        if head == tail:
            break
        if head >= stop:
            status = driver.PAUSED
            break
        if tail + 4 > capacity:
            status = driver.GROW
            break
        cell = np.int64(queue[head])
        head += 1
        stamp[cell] += CLOSED
        floor = entry_floor(clearance[cell])
        for k in range(4):
            nxt = cell + offsets[k]
            if clearance[nxt] <= floor:
                continue
            generated += 1
            if stamp[nxt] >= base:
                continue
            stamp[nxt] = base + k
            queue[tail] = nxt
            tail += 1
            if nxt == first or (several and is_target(nxt, targets)):
                state[driver.FOUND] = nxt
                status = driver.SOLVED
                break
        if tail - head > max_frontier:
            max_frontier = tail - head
    expanded = state[driver.EXPANDED] + head - state[QUEUE_HEAD]
    state[QUEUE_HEAD] = head
    state[FRONTIER_END] = tail
    driver.save_counters(state, expanded, generated, max_frontier)
    return status


class BreadthFirst(GridKernel):
    """BFS: the start queued and marked as reached."""

    kernel = bfs_kernel

    def __init__(self, query: GridQuery) -> None:
        super().__init__(query)
        query.buffers.stamp[query.start] = query.base
        query.buffers.frontier_cell[0] = query.start

    def step(self, allowed: int) -> int:
        """One call of the BFS kernel."""
        query = self.query
        buffers = query.buffers
        return bfs_kernel(
            query.clearance,
            query.row,
            query.targets,
            buffers.stamp,
            query.base,
            buffers.frontier_cell,
            self.state,
            allowed,
        )

    def grow(self) -> None:
        """Move the live queue to the front of larger arrays."""
        state = self.state
        head, tail = self.query.buffers.grow_frontier(
            int(state[QUEUE_HEAD]), int(state[FRONTIER_END]), compact=True
        )
        state[QUEUE_HEAD], state[FRONTIER_END] = head, tail
