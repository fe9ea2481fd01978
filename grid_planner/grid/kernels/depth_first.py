"""The depth-first kernel family: DFS with an explicit stack, optionally depth-limited.

4- or 8-connected; with 8, depth and the depth limit count steps, diagonal or straight.
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import driver, njit
from grid_planner.jit.driver import KernelRun
from grid_planner.search.result import LimitKind, SearchStatus

from .layout import (
    CLOSED,
    DEPTH_PRUNED,
    DIRECTION_MASK,
    FRONTIER_END,
    diagonal_allowed,
    enterable,
    entry_floor,
    free_key_of,
    is_target,
    neighbour_offsets,
)
from .query import GridKernel, GridQuery


@njit(cache=True, nogil=True)
def dfs_kernel(
    keys,
    row,
    targets,
    depth_limit,
    eight,
    stamp,
    g,
    base,
    stack_cell,
    stack_step,
    expansion_order,
    state,
    max_expansions,
):
    """Depth-first graph search with an explicit stack of (cell, direction it was reached by).

    A cell is closed when it is popped and the first neighbour in the fixed order is explored
    first, which visits cells in the same order as recursive DFS. With `depth_limit >= 0` a
    cell at that depth is goal-tested but its successors are not entered, and a closed cell is
    entered again when reached at a shallower depth (it then has more depth left), so no
    solution within the limit is missed. Until the first real cut, a cell at the limit counts
    as expanded and is checked for a successor the limit hides (one not seen within a step of
    it); the first such cell sets DEPTH_PRUNED, so a search that never cut ends exhausted.
    `g` holds each expanded cell's depth (the start's is 0). The counts are the reference
    DFS's, which draws one successor at a time: `max_frontier` is the deepest path expanded
    (the reference holds an iterator per cell on its path), and `generated` counts every
    allowed neighbour of an expanded cell; the neighbours of the cells on a found path that
    come after the path's own step were never drawn there, and `undrawn_on_path` says how many.
    The start's direction is -1. A non-empty
    `expansion_order` receives each expanded cell at its expansion number
    (`GridKernel.order`).
    """
    size = state[FRONTIER_END]
    expanded = state[driver.EXPANDED]
    generated = state[driver.GENERATED]
    max_frontier = state[driver.MAX_FRONTIER]
    pruned = state[DEPTH_PRUNED]
    capacity = min(stack_cell.shape[0], stack_step.shape[0])  # other families grow one
    first = targets[0]
    several = targets.shape[0] > 1
    limited = depth_limit >= 0
    record = expansion_order.shape[0] > 0
    # Indexed by a run-time direction: an array, since a tuple compiles to a branch per index.
    offsets = np.array(neighbour_offsets(row), dtype=np.int64)
    free_key = free_key_of(keys)
    neighbours = 8 if eight else 4
    status = driver.EXHAUSTED
    done = 0
    depth = 0
    previous = 0  # the popped cell's depth before this visit (a limited search's)
    while True:
        if size == 0:
            status = driver.EXHAUSTED
            break
        if size + neighbours > capacity:
            status = driver.GROW
            break
        size -= 1
        cell = np.int64(stack_cell[size])
        step = stack_step[size]
        if limited:
            depth = 0 if step < 0 else g[cell - offsets[step]] + 1
            # Seen before in this query (>= base): skip, unless now reached shallower.
            if stamp[cell] >= base and depth >= g[cell]:
                continue
            previous = g[cell]
            g[cell] = depth
        elif stamp[cell] >= base:
            continue
        reached = base + max(step, 0)
        if cell == first or (several and is_target(cell, targets)):
            stamp[cell] = reached
            state[driver.FOUND] = cell
            status = driver.SOLVED
            break
        at_limit = limited and depth >= depth_limit
        if at_limit and pruned:
            stamp[cell] = reached
            continue
        if done >= max_expansions:
            # Out of expansions only now, after the goal test: the cell goes back on the stack
            # as it was, and a budget of n expansions still finds a goal popped after the nth
            # (the check before the pop failed on a goal one step past the budget).
            if limited:
                g[cell] = previous
            size += 1
            status = driver.PAUSED
            break
        stamp[cell] = reached + CLOSED
        if not limited:  # a limited search set the depth above
            depth = 0 if step < 0 else g[cell - offsets[step]] + 1
            g[cell] = depth
        if record:
            expansion_order[expanded] = cell
        expanded += 1
        done += 1
        floor = entry_floor(keys[cell], free_key)
        straight_bits = _straight_steps(keys, floor, offsets, cell)
        if at_limit:
            looked, pruned = _cut_below(
                keys, floor, offsets, straight_bits, neighbours, cell, depth, stamp, g, base
            )
            generated += looked
            continue
        # Pushed in reverse order so that east is popped (explored) first.
        for k in range(neighbours - 1, -1, -1):
            nxt = cell + offsets[k]
            if not _step_allowed(keys, floor, straight_bits, k, nxt):
                continue
            generated += 1
            if stamp[nxt] >= base and (not limited or depth + 1 >= g[nxt]):
                continue
            stack_cell[size] = nxt
            stack_step[size] = k
            size += 1
        if depth + 1 > max_frontier:  # the path from the start to this cell
            max_frontier = depth + 1
    state[FRONTIER_END] = size
    state[DEPTH_PRUNED] = pruned
    driver.save_counters(state, expanded, generated, max_frontier)
    return status


@njit(cache=True, nogil=True, inline="always")
def _straight_steps(keys, floor, offsets, cell):
    """The bit set of the straight steps (bit k: direction k) the move rule allows from
    `cell`, whose entry floor is `floor`."""
    bits = 0
    for k in range(4):
        if enterable(keys, floor, cell + offsets[k]):
            bits |= 1 << k
    return bits


@njit(cache=True, nogil=True, inline="always")
def _step_allowed(keys, floor, straight_bits, k, nxt):
    """Whether the step in direction `k` to `nxt` is allowed: a straight one by
    `straight_bits`, a diagonal one when both its sides are and it may enter `nxt`."""
    if k < 4:
        return straight_bits & (1 << k) != 0
    return diagonal_allowed(k, straight_bits) and enterable(keys, floor, nxt)


@njit(cache=True, nogil=True, inline="always")
def _cut_below(keys, floor, offsets, straight_bits, neighbours, cell, depth, stamp, g, base):
    """(neighbours looked at, 1 if the limit hides one of them): a successor of `cell` (at
    the limit, `depth`) not seen at depth `depth + 1` or less, in successor order."""
    looked = 0
    for k in range(neighbours):
        nxt = cell + offsets[k]
        if not _step_allowed(keys, floor, straight_bits, k, nxt):
            continue
        looked += 1
        if stamp[nxt] < base or g[nxt] > depth + 1:
            return looked, 1
    return looked, 0


@njit(cache=True, nogil=True)
def undrawn_on_path(keys, row, eight, stamp, start, cell, step):
    """The allowed neighbours of the cells on the path from padded `start` to `cell` that come
    after the path's own step from that cell in successor order: generated by `dfs_kernel`
    when it expanded the cell, never drawn by a DFS that draws successors one at a time. The
    path is read back from the stamps (as `trace_path` does); `cell` was reached by direction
    `step`, or by its stamp's when `step` is negative (`cell` expanded or found, not pending)."""
    offsets = np.array(neighbour_offsets(row), dtype=np.int64)
    free_key = free_key_of(keys)
    neighbours = 8 if eight else 4
    undrawn = 0
    k = step if step >= 0 else stamp[np.uint64(cell)] & DIRECTION_MASK
    while cell != start:
        parent = cell - offsets[k]
        floor = entry_floor(keys[parent], free_key)
        straight_bits = _straight_steps(keys, floor, offsets, parent)
        for j in range(k + 1, neighbours):
            if _step_allowed(keys, floor, straight_bits, j, parent + offsets[j]):
                undrawn += 1
        cell = parent
        k = stamp[np.uint64(cell)] & DIRECTION_MASK
    return undrawn


class DepthFirst(GridKernel):
    """DFS: the start on the stack, marked only when popped (as every cell is)."""

    kernels = (dfs_kernel, undrawn_on_path)
    frontier_arrays = ("frontier_cell", "frontier_step")

    def __init__(self, query: GridQuery) -> None:
        super().__init__(query)
        query.buffers.frontier_cell[0] = query.start
        query.buffers.frontier_step[0] = -1

    def step(self, allowed: int) -> int:
        """One call of the DFS kernel."""
        query = self.query
        buffers = query.buffers
        return dfs_kernel(
            query.keys,
            query.row,
            query.targets,
            query.depth_limit,
            query.eight,
            buffers.stamp,
            buffers.g,
            query.base,
            buffers.frontier_cell,
            buffers.frontier_step,
            self.order(allowed),
            self.state,
            allowed,
        )

    def generated(self, run: KernelRun) -> int:
        """The reference DFS's count: the undrawn neighbours along the path it holds at the
        end taken off, to the found cell or, where a limit (nodes, time, a cancel) stopped it
        with cells still on its stack, to the cell it would have expanded next (drawn already:
        the top of the stack)."""
        query = self.query
        buffers = query.buffers
        if run.status is SearchStatus.SOLVED:
            cell, step = np.int64(run.found), np.int64(-1)
        elif run.status is SearchStatus.LIMIT_REACHED and self.state[FRONTIER_END] > 0:
            top = self.state[FRONTIER_END] - 1
            cell, step = np.int64(buffers.frontier_cell[top]), np.int64(buffers.frontier_step[top])
        else:
            return run.nodes_generated
        return run.nodes_generated - int(undrawn_on_path(
            query.keys, query.row, query.eight, buffers.stamp, query.start, cell, step,
        ))

    def exhausted_limit(self) -> LimitKind | None:
        """MAX_DEPTH when the depth limit cut cells: a path may lie beyond it."""
        return LimitKind.MAX_DEPTH if self.state[DEPTH_PRUNED] else None
