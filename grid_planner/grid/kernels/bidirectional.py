"""The bidirectional kernel family: breadth-first from the start and from the target at once.

It follows `grid_planner.search.bidirectional_bfs` step for step, towards one target (`run`
searches several one after another, as the reference does): whole layers, each time of the
side whose layer is smaller (ties: forward), every generated cell checked against the other
side's. The backward side steps the move rule in reverse: `p` precedes `x` when the forward
rule lets `p` step onto `x` (so never out of a lethal cell, and a diagonal only where both
straight steps out of `p` it passes between are allowed).

One stamp per cell serves both sides: base + direction for a cell the forward side reached
(the step from its parent), base + BACKWARD + direction for one the backward side reached (its
step towards the target). The sides share no cell: the first one a side generates that the
other has seen ends the search, across the edge `FOUND` -> `MEETING_NEXT`. Each side's queue
holds its current layer (head to layer end) and, behind it, the next one (to the tail).
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import driver, njit

from .buffers import trace_path
from .keys import LETHAL_KEY
from .layout import (
    BACKWARD_QUEUE,
    DIRECTION_MASK,
    FORWARD_QUEUE,
    MEETING_NEXT,
    SEEN,
    SIDE,
    diagonal_sides,
    enterable,
    entry_floor,
    free_key_of,
    neighbour_offsets,
)
from .query import GridKernel, GridQuery

# The stamp of a cell the backward side reached: base + BACKWARD + its direction.
BACKWARD = 8
# Offsets of a side's queue slots in the state array, from FORWARD_QUEUE or BACKWARD_QUEUE.
HEAD, LAYER_END, TAIL = 0, 1, 2
# SIDE while no layer is being expanded: the next layer's side is still to be chosen.
CHOOSE = -1


@njit(cache=True, nogil=True)
def bidirectional_kernel(
    keys, row, eight, stamp, base, forward_queue, backward_queue, expansion_order, state,
    max_expansions,
):
    """Expand at most `max_expansions` cells, a layer of one side at a time.

    A non-empty `expansion_order` receives each expanded cell at its expansion number. The
    frontier counted (as the reference counts it) is both sides' queues: the rest of the layer,
    the next layer so far, and the other side's layer.
    """
    record = expansion_order.shape[0] > 0
    offsets = neighbour_offsets(row)
    free_key = free_key_of(keys)
    connectivity = 8 if eight else 4
    expanded = state[driver.EXPANDED]
    generated = state[driver.GENERATED]
    max_frontier = state[driver.MAX_FRONTIER]
    seen = state[SEEN]
    stop = expanded + max_expansions
    while True:
        side = state[SIDE]
        if side == CHOOSE:
            forward_size = state[FORWARD_QUEUE + TAIL] - state[FORWARD_QUEUE + HEAD]
            backward_size = state[BACKWARD_QUEUE + TAIL] - state[BACKWARD_QUEUE + HEAD]
            if forward_size == 0 or backward_size == 0:
                status = driver.EXHAUSTED
                break
            side = 0 if forward_size <= backward_size else 1
            slots = FORWARD_QUEUE if side == 0 else BACKWARD_QUEUE
            state[slots + LAYER_END] = state[slots + TAIL]
            state[SIDE] = side
        backward = side == 1
        own = BACKWARD_QUEUE if backward else FORWARD_QUEUE
        other = FORWARD_QUEUE if backward else BACKWARD_QUEUE
        queue = backward_queue if backward else forward_queue
        other_size = state[other + TAIL] - state[other + HEAD]
        head = state[own + HEAD]
        end = state[own + LAYER_END]
        tail = state[own + TAIL]
        capacity = queue.shape[0]
        status = driver.EXHAUSTED
        while head < end:
            if expanded >= stop:
                status = driver.PAUSED
                break
            if tail + 8 > capacity:
                status = driver.GROW
                break
            cell = np.int64(queue[np.uint64(head)])
            if record:
                expansion_order[expanded] = cell
            head += 1
            expanded += 1
            # The floor of a forward step out of `cell` (a backward step reads its predecessor's).
            out_floor = 0 if backward else entry_floor(keys[np.uint64(cell)], free_key)
            for k in range(connectivity):
                if backward:
                    # `nxt` precedes `cell`: the forward rule must let it step onto `cell`.
                    nxt = cell - offsets[k]
                    at = np.uint64(nxt)
                    key = keys[at]
                    if key == LETHAL_KEY:  # the border too
                        continue
                    floor = entry_floor(key, free_key)
                    target = np.uint64(cell)
                else:
                    nxt = cell + offsets[k]
                    at = np.uint64(nxt)
                    floor = out_floor
                    target = at
                if not enterable(keys, floor, target):
                    continue
                if k >= 4:
                    # No corner cut: both straight steps out of the stepping cell are allowed.
                    first, second = diagonal_sides(k)
                    stepping = nxt if backward else cell
                    if not (enterable(keys, floor, np.uint64(stepping + offsets[first]))
                            and enterable(keys, floor, np.uint64(stepping + offsets[second]))):
                        continue
                generated += 1
                mark = stamp[at]
                if mark >= base:
                    if (mark - base >= BACKWARD) != backward:  # the other side's: they meet
                        status = driver.SOLVED
                        state[driver.FOUND] = nxt if backward else cell
                        state[MEETING_NEXT] = cell if backward else nxt
                        break
                    continue
                stamp[at] = base + (BACKWARD if backward else 0) + k
                queue[np.uint64(tail)] = nxt
                tail += 1
                seen += 1
            if status == driver.SOLVED:
                break
            frontier = tail - head + other_size
            if frontier > max_frontier:
                max_frontier = frontier
        state[own + HEAD] = head
        state[own + TAIL] = tail
        if status != driver.EXHAUSTED:
            break
        state[SIDE] = CHOOSE
    state[SEEN] = seen
    driver.save_counters(state, expanded, generated, max_frontier)
    return status


@njit(cache=True, nogil=True)
def trace_to_target(stamp, width, cell, target, longest):
    """The map indices from padded cell `cell` to padded cell `target`, following the steps
    the backward side stamped (at most `longest` cells; a longer walk grows its array)."""
    row = width + 2
    offsets = np.array(neighbour_offsets(row), dtype=np.int64)
    path = np.empty(max(longest, 1), dtype=np.int64)
    size = 0
    while True:
        if size == path.shape[0]:
            grown = np.empty(2 * size, dtype=np.int64)
            grown[:size] = path
            path = grown
        path[size] = cell - 2 * (cell // row) - width - 1
        size += 1
        if cell == target:
            return path[:size]
        cell += offsets[stamp[np.uint64(cell)] & DIRECTION_MASK]


class Bidirectional(GridKernel):
    """Bidirectional BFS towards the query's one target: both ends queued and stamped."""

    kernels = (bidirectional_kernel, trace_to_target)
    frontier_arrays = ("frontier_cell", "frontier_step")
    each_target = True

    def __init__(self, query: GridQuery) -> None:
        super().__init__(query)
        buffers = query.buffers
        target = int(query.targets[0])
        buffers.stamp[query.start] = query.base
        buffers.stamp[target] = query.base + BACKWARD
        buffers.frontier_cell[0] = query.start
        buffers.frontier_step[0] = target
        state = self.state
        state[driver.GENERATED] = 2
        state[driver.MAX_FRONTIER] = 2
        state[SEEN] = 2
        state[SIDE] = CHOOSE
        for slots in (FORWARD_QUEUE, BACKWARD_QUEUE):
            state[slots + HEAD] = 0
            state[slots + LAYER_END] = 0
            state[slots + TAIL] = 1

    def step(self, allowed: int) -> int:
        """One call of the bidirectional kernel."""
        query = self.query
        buffers = query.buffers
        return bidirectional_kernel(
            query.keys,
            query.row,
            query.eight,
            buffers.stamp,
            query.base,
            buffers.frontier_cell,
            buffers.frontier_step,
            self.order(allowed),
            self.state,
            allowed,
        )

    def grow(self) -> None:
        """Move the live queue of the side at work to the front of its array, enlarged when
        it is more than half full (the other side's waits until that side is at work)."""
        state = self.state
        side = FORWARD_QUEUE if state[SIDE] == 0 else BACKWARD_QUEUE
        name = "frontier_cell" if side == FORWARD_QUEUE else "frontier_step"
        head = int(state[side + HEAD])
        self.query.buffers.grow_frontier((name,), head, int(state[side + TAIL]), compact=True)
        for offset in (HEAD, LAYER_END, TAIL):
            state[side + offset] -= head

    def held(self) -> int:
        """The cells both sides have reached."""
        return int(self.state[SEEN])

    def path(self, run: driver.KernelRun) -> np.ndarray:
        """The path through the edge where the two sides met: start to that edge's first cell
        along the forward stamps, then its second cell to the target along the backward ones."""
        query = self.query
        buffers = query.buffers
        longest = run.nodes_expanded + 1
        head = trace_path(buffers.stamp, buffers.width, query.start, np.int64(run.found),
                          longest)
        tail = trace_to_target(buffers.stamp, buffers.width, np.int64(self.state[MEETING_NEXT]),
                               np.int64(query.targets[0]), longest)
        return np.concatenate((head, tail))
