"""The numba kernel of the compiled IDA* (`compiled_idastar`), and the state slots it keeps.

The machinery that makes it fast and resumable:

- one board array updated in place, an explicit stack of (blank cell, h, arriving direction,
  next direction) per depth, and no Python object per node;
- heuristics updated per move: Manhattan by one table difference, the additive databases by
  moving one group's index by `(to - from) * weight` (only the moved tile's group changes);
  the exact table (3x3) looks up the child's permutation rank;
- all search state lives in arrays, so the kernel is resumable: each call expands at most up
  to `stop_at` nodes and returns PAUSED, and goes on where it stopped when called again. It
  releases the GIL (`nogil`), so a ROS callback can set the cancel event while it runs.
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import driver, njit
from grid_planner.jit.driver import FIRST_FAMILY_SLOT

from .board import rank_tiles

# How the kernel evaluates h (the heuristic kinds of `compiled_idastar.FAST_HEURISTIC_KINDS`).
MODE_MANHATTAN, MODE_TABLE, MODE_PDB = 0, 1, 2

# Bounds larger than this never happen with an admissible heuristic below 16x16.
INFINITE_BOUND = 1 << 40

# The kernel's own slots of the driver's state array (FOUND holds the last move's direction).
DEPTH = FIRST_FAMILY_SLOT  # depth of the node on top of the stack; -1 before a pass starts
BOUND = FIRST_FAMILY_SLOT + 1
NEXT_BOUND = FIRST_FAMILY_SLOT + 2
PENDING = FIRST_FAMILY_SLOT + 3  # 1: a generated child (or a pass's start) waits to be expanded
PENDING_DIRECTION = FIRST_FAMILY_SLOT + 4
PENDING_H = FIRST_FAMILY_SLOT + 5
START_BLANK = FIRST_FAMILY_SLOT + 6
START_H = FIRST_FAMILY_SLOT + 7
STATE_SIZE = FIRST_FAMILY_SLOT + 8


@njit(cache=True, nogil=True)
def idastar_kernel(
    tiles,
    goal,
    targets,
    order,
    mode,
    manhattan,
    exact,
    tile_group,
    tile_weight,
    group_offset,
    group_index,
    pattern,
    node_blank,
    node_h,
    node_in,
    node_next,
    state,
    stop_at,
):  # pragma: no cover - compiled; the reference-equality tests cover it
    """Run IDA* until solved, proven unsolvable, `stop_at` expansions, or the stack is full.

    `tiles` is the current board (the start's when a pass begins); `targets[cell * 4 + d]` is
    where the blank goes in direction d (-1: off); `order` lists the directions to try.
    """
    count = tiles.shape[0]
    capacity = node_blank.shape[0]
    depth = state[DEPTH]
    bound = state[BOUND]
    next_bound = state[NEXT_BOUND]
    expanded = state[driver.EXPANDED]
    generated = state[driver.GENERATED]
    max_frontier = state[driver.MAX_FRONTIER]
    pending = state[PENDING]
    pending_direction = state[PENDING_DIRECTION]
    pending_h = state[PENDING_H]
    status = driver.PAUSED
    while True:
        if pending:
            if depth < 0 and bound + 2 > capacity:
                status = driver.GROW
                break
            if expanded >= stop_at:
                status = driver.PAUSED
                break
            expanded += 1
            pending = 0
            if depth < 0:  # a new pass starts at the start board
                depth = 0
                node_blank[0] = state[START_BLANK]
                node_h[0] = state[START_H]
                node_in[0] = -1
            else:
                blank = node_blank[depth]
                source = targets[blank * 4 + pending_direction]
                tile = tiles[source]
                tiles[blank] = tile
                tiles[source] = 0
                if mode == MODE_PDB:
                    group_index[tile_group[tile]] += (blank - source) * tile_weight[tile]
                depth += 1
                node_blank[depth] = source
                node_h[depth] = pending_h
                node_in[depth] = pending_direction
            node_next[depth] = 0
            if depth + 1 > max_frontier:
                max_frontier = depth + 1
            continue
        k = node_next[depth]
        if k == 4:
            if depth == 0:
                if next_bound >= INFINITE_BOUND:
                    status = driver.EXHAUSTED
                    break
                bound = next_bound
                next_bound = INFINITE_BOUND
                depth = -1
                pending = 1
                continue
            # Undo the move into this node: the tile now on the parent's blank cell goes back.
            parent_blank = node_blank[depth - 1]
            source = node_blank[depth]
            tile = tiles[parent_blank]
            tiles[source] = tile
            tiles[parent_blank] = 0
            if mode == MODE_PDB:
                group_index[tile_group[tile]] -= (parent_blank - source) * tile_weight[tile]
            depth -= 1
            continue
        node_next[depth] = k + 1
        direction = order[k]
        blank = node_blank[depth]
        source = targets[blank * 4 + direction]
        if source < 0:
            continue
        arrived = node_in[depth]
        if arrived >= 0 and direction == (arrived ^ 1):
            continue
        generated += 1
        tile = tiles[source]
        h = node_h[depth]
        if mode == MODE_MANHATTAN:
            h += manhattan[blank * count + tile] - manhattan[source * count + tile]
        elif mode == MODE_PDB:
            group = tile_group[tile]
            base = group_offset[group]
            index = group_index[group]
            h += (
                np.int64(pattern[base + index + (blank - source) * tile_weight[tile]])
                - np.int64(pattern[base + index])
            )
        else:
            tiles[blank] = tile
            tiles[source] = 0
            h = np.int64(exact[rank_tiles(tiles)])
            tiles[source] = tile
            tiles[blank] = 0
        f = depth + 1 + h
        if f > bound:
            if f < next_bound:
                next_bound = f
            continue
        if h == 0:
            at_goal = True
            for cell in range(count):
                value = tiles[cell]
                if cell == blank:
                    value = tile
                elif cell == source:
                    value = 0
                if value != goal[cell]:
                    at_goal = False
                    break
            if at_goal:
                state[driver.FOUND] = direction
                status = driver.SOLVED
                break
        pending = 1
        pending_direction = direction
        pending_h = h
    state[DEPTH] = depth
    state[BOUND] = bound
    state[NEXT_BOUND] = next_bound
    driver.save_counters(state, expanded, generated, max_frontier)
    state[PENDING] = pending
    state[PENDING_DIRECTION] = pending_direction
    state[PENDING_H] = pending_h
    return status
