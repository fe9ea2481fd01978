"""The breadth-first kernel family: BFS with an array FIFO, 4- or 8-connected.

BFS counts steps, not their cost: with 8 neighbours it finds a path with the fewest steps,
diagonal or straight, which is not the shortest in metres.
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import driver, njit

from .layout import (
    CLOSED,
    FRONTIER_END,
    QUEUE_HEAD,
    diagonal_allowed,
    enterable,
    entry_floor,
    free_key_of,
    is_target,
    neighbour_offsets,
)
from .query import GridKernel, GridQuery


@njit(cache=True, nogil=True)
def bfs_kernel(
    keys, row, targets, eight, stamp, base, queue, expansion_order, state, max_expansions
):
    """Breadth-first search with an array FIFO; the goal test is made when a node is generated.

    Unit steps need no g, so a reached cell costs one stamp store and one queue store; a step
    out of a free cell reads one key (a byte, unless the band is deep) to know whether it may
    enter the next cell.
    A non-empty `expansion_order` receives each expanded cell at its expansion number
    (`GridKernel.order`).

    Cells index the arrays as unsigned integers (`at`, `here`): numba corrects a negative
    signed index (a test and an add per access), which an unsigned one cannot be; on a map
    of millions of cells that alone took a fifth of the search time.
    """
    head = state[QUEUE_HEAD]
    record = expansion_order.shape[0] > 0
    # The expansion number of the cell at queue position `head`.
    numbering = state[driver.EXPANDED] - head
    tail = state[FRONTIER_END]
    generated = state[driver.GENERATED]
    max_frontier = state[driver.MAX_FRONTIER]
    capacity = queue.shape[0]
    first = targets[0]
    several = targets.shape[0] > 1
    offsets = neighbour_offsets(row)
    free_key = free_key_of(keys)
    stop = head + max_expansions
    status = driver.EXHAUSTED
    while head < tail:
        if head >= stop:
            status = driver.PAUSED
            break
        if tail + 8 > capacity:
            status = driver.GROW
            break
        cell = np.int64(queue[np.uint64(head)])
        here = np.uint64(cell)
        if record:
            expansion_order[numbering + head] = cell
        head += 1
        stamp[here] += CLOSED
        own = keys[here]
        if not eight and own == free_key:
            # The common case on its own: from a free cell a 4-connected step enters exactly
            # the free neighbours, and no straight-step bits are needed. With the move rule's
            # branch and the bits of the general loops, the maze BFS took about an eighth
            # longer.
            for k in range(4):
                nxt = cell + offsets[k]
                at = np.uint64(nxt)
                if keys[at] != free_key:
                    continue
                generated += 1
                if stamp[at] >= base:
                    continue
                stamp[at] = base + k
                queue[np.uint64(tail)] = nxt
                tail += 1
                if nxt == first or (several and is_target(nxt, targets)):
                    status = driver.SOLVED
                    break
        else:
            floor = entry_floor(own, free_key)
            straight_bits = 0
            # Straight and diagonal neighbours in two loops written out: a fixed count of 4
            # unrolls, and a shared helper returning (tail, found) made the BFS 5x slower.
            for k in range(4):
                nxt = cell + offsets[k]
                at = np.uint64(nxt)
                if not enterable(keys, floor, at):
                    continue
                straight_bits |= 1 << k
                generated += 1
                if stamp[at] >= base:
                    continue
                stamp[at] = base + k
                queue[np.uint64(tail)] = nxt
                tail += 1
                if nxt == first or (several and is_target(nxt, targets)):
                    status = driver.SOLVED
                    break
            if eight and status != driver.SOLVED:
                for k in range(4, 8):
                    nxt = cell + offsets[k]
                    at = np.uint64(nxt)
                    if not (diagonal_allowed(k, straight_bits)
                            and enterable(keys, floor, at)):
                        continue
                    generated += 1
                    if stamp[at] >= base:
                        continue
                    stamp[at] = base + k
                    queue[np.uint64(tail)] = nxt
                    tail += 1
                    if nxt == first or (several and is_target(nxt, targets)):
                        status = driver.SOLVED
                        break
        if status == driver.SOLVED:
            state[driver.FOUND] = queue[tail - 1]
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

    kernels = (bfs_kernel,)
    frontier_arrays = ("frontier_cell",)

    def __init__(self, query: GridQuery) -> None:
        super().__init__(query)
        query.buffers.stamp[query.start] = query.base
        query.buffers.frontier_cell[0] = query.start

    def step(self, allowed: int) -> int:
        """One call of the BFS kernel."""
        query = self.query
        buffers = query.buffers
        return bfs_kernel(
            query.keys,
            query.row,
            query.targets,
            query.eight,
            buffers.stamp,
            query.base,
            buffers.frontier_cell,
            self.order(allowed),
            self.state,
            allowed,
        )

    def grow(self) -> None:
        """Move the live queue to the front of larger arrays."""
        state = self.state
        head, tail = self.query.buffers.grow_frontier(
            self.frontier_arrays,
            int(state[QUEUE_HEAD]), int(state[FRONTIER_END]), compact=True
        )
        state[QUEUE_HEAD], state[FRONTIER_END] = head, tail
