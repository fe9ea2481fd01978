"""The best-first kernel family: A* and Dijkstra (A* without h) on the grid.

Two kernels, one tie rule (ties in f go to the entry pushed last, LIFO):

- `two_stack_kernel`, for unit 4-connected steps and one target: with the Manhattan heuristic a
  successor's f is the popped f or f + 2 (Dijkstra: always f + 1), so two LIFO stacks, "this
  f" and "next f", replace the heap: O(1) a push and a pop. When this level's stack is empty
  the next one becomes current. Popping the top of the current stack is popping the smallest
  (f, -insertion number) of all entries, exactly the heap order of the weighted kernel and of
  the reference A*, so all three expand the same cells in the same order.
- `weighted.weighted_kernel` for everything else: real step costs, 8 neighbours, several
  targets (whose nearest-target heuristic may also give f + 1).
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import driver, njit

from .layout import (
    BUCKET,
    CLOSED,
    CURRENT_HALF,
    FRONTIER_END,
    NEXT_END,
    POOL_END,
    POOL_FREE,
    PUSHES,
    WAITING,
    distance_estimate,
    enterable,
    entry_floor,
    free_key_of,
)
from .query import GridKernel, GridQuery
from .weighted import BUCKET_WIDTH, pack, ring_length, weighted_kernel


@njit(cache=True, nogil=True)
def two_stack_kernel(
    keys,
    row,
    target,
    target_x,
    target_y,
    use_heuristic,
    stamp,
    g,
    base,
    stacks,
    expansion_order,
    state,
    max_expansions,
):
    """A* (Dijkstra when `use_heuristic` is False) on unit 4-connected steps to one target.

    `stacks` holds two stacks, one in each half: the current f level's (half
    `state[CURRENT_HALF]`) and the next one's. A successor goes onto the current stack when its
    step brings it closer to the target (same f), else onto the next one. A cell is closed when
    first popped (the heuristic is consistent and the costs integers, so that pop has its
    least g); later entries of it are skipped. The goal test is made when a cell is popped.
    A non-empty `expansion_order` receives each expanded cell at its expansion number.
    Cells index the arrays as unsigned integers, as in `bfs_kernel` (no negative-index fix-up).
    """
    half = stacks.shape[0] // 2
    here = state[CURRENT_HALF] * half
    there = half - here
    size = state[FRONTIER_END]
    waiting = state[NEXT_END]
    expanded = state[driver.EXPANDED]
    generated = state[driver.GENERATED]
    max_frontier = state[driver.MAX_FRONTIER]
    closed = base + CLOSED
    goal_x = target_x[0]
    goal_y = target_y[0]
    offsets = (1, row, -1, -row)
    free_key = free_key_of(keys)
    record = expansion_order.shape[0] > 0
    status = driver.EXHAUSTED
    done = 0
    while True:
        if size == 0:
            if waiting == 0:
                status = driver.EXHAUSTED
                break
            here, there = there, here
            size, waiting = waiting, 0
        if size + 4 > half or waiting + 4 > half:
            status = driver.GROW
            break
        size -= 1
        cell = np.int64(stacks[np.uint64(here + size)])
        at_cell = np.uint64(cell)
        if stamp[at_cell] >= closed:
            continue
        if cell == target:
            state[driver.FOUND] = cell
            status = driver.SOLVED
            break
        if done >= max_expansions:
            size += 1  # still on top: a resumed call pops it again
            status = driver.PAUSED
            break
        stamp[at_cell] += CLOSED
        if record:
            expansion_order[expanded] = cell
        expanded += 1
        done += 1
        floor = entry_floor(keys[at_cell], free_key)
        g_next = g[at_cell] + 1
        closer = (False, False, False, False)
        if use_heuristic:
            cy = cell // row
            cx = cell - cy * row
            closer = (cx < goal_x, cy < goal_y, cx > goal_x, cy > goal_y)
        for k in range(4):
            nxt = cell + offsets[k]
            at = np.uint64(nxt)
            if not enterable(keys, floor, at):
                continue
            generated += 1
            seen = stamp[at]
            if seen >= closed:
                continue
            if seen >= base and g[at] <= g_next:
                continue
            stamp[at] = base + k
            g[at] = g_next
            if closer[k]:
                stacks[np.uint64(here + size)] = nxt
                size += 1
            else:
                stacks[np.uint64(there + waiting)] = nxt
                waiting += 1
        if size + waiting > max_frontier:
            max_frontier = size + waiting
    state[CURRENT_HALF] = 0 if here == 0 else 1
    state[FRONTIER_END] = size
    state[NEXT_END] = waiting
    driver.save_counters(state, expanded, generated, max_frontier)
    return status


class BestFirst(GridKernel):
    """A* (informed) or Dijkstra: the two-stack kernel where it applies, else the weighted one.

    Either way the start is seeded as reached with g = 0 and its f.
    """

    kernels = (two_stack_kernel, weighted_kernel)

    def __init__(self, query: GridQuery) -> None:
        super().__init__(query)
        buffers = query.buffers
        start = query.start
        buffers.stamp[start] = query.base
        self.two_stack = query.unit and not query.eight and query.targets.shape[0] == 1
        if self.two_stack:
            buffers.g[start] = 0
            buffers.frontier_cell[0] = start
            self.state[NEXT_END] = 0
            self.state[CURRENT_HALF] = 0
            return
        estimate = 0.0
        if query.informed:
            start_y, start_x = divmod(start, query.row)
            estimate = distance_estimate(
                start_x, start_y, query.target_x, query.target_y, query.eight,
                query.estimate_scale,
            )
        buffers.weighted_g[start] = 0.0
        buffers.frontier_heap.view(np.float64)[0] = estimate
        buffers.frontier_heap[1] = pack(0, start)
        ring = ring_length(query.straight, query.diagonal, query.eight)
        self.heads = np.full(ring, -1, dtype=np.int64)
        self.counts = np.zeros(ring, dtype=np.int64)
        state = self.state
        state[PUSHES] = 0
        state[BUCKET] = int(np.floor(estimate / BUCKET_WIDTH))
        state[WAITING] = 0
        state[POOL_FREE] = -1
        state[POOL_END] = 0

    def step(self, allowed: int) -> int:
        """One call of the kernel this search runs on."""
        query = self.query
        buffers = query.buffers
        if self.two_stack:
            return two_stack_kernel(
                query.keys,
                query.row,
                query.targets[0],
                query.target_x,
                query.target_y,
                query.informed,
                buffers.stamp,
                buffers.g,
                query.base,
                buffers.frontier_cell,
                self.order(allowed),
                self.state,
                allowed,
            )
        return weighted_kernel(
            query.keys,
            query.costs,
            query.straight,
            query.diagonal,
            query.row,
            query.targets,
            query.target_x,
            query.target_y,
            query.informed,
            query.eight,
            query.estimate_scale,
            buffers.stamp,
            buffers.weighted_g,
            query.base,
            buffers.frontier_heap,
            buffers.frontier_pool,
            self.heads,
            self.counts,
            self.order(allowed),
            self.state,
            allowed,
        )

    def grow(self) -> None:
        """Enlarge the heap and the pool, or both stacks in place."""
        state = self.state
        if not self.two_stack:
            buffers = self.query.buffers
            buffers.grow_frontier(("frontier_heap",), 0, int(state[FRONTIER_END]), False)
            buffers.grow_frontier(("frontier_pool",), 0, int(state[POOL_END]), False)
            return
        self.query.buffers.grow_halves(
            int(state[CURRENT_HALF]), int(state[FRONTIER_END]), int(state[NEXT_END])
        )
