"""The weighted best-first kernel: A* and Dijkstra on real step costs, 4- or 8-connected.

A step onto cell v costs `straight[costs[v]]` or, for a diagonal, `diagonal[costs[v]]` (the
cost model's tables, see `grid.costs`); a grid without a cost field passes a one-entry `costs`
and every step costs `straight[0]` or `diagonal[0]`.

The frontier orders entries by f, then by the later insertion: ties in f go to the entry pushed
last (LIFO), the tie rule of every best-first search here. An entry is two int64 (16 bytes):
f's bits (a non-negative float64 orders like its bit pattern read as an int64, so all
comparisons are integer ones) and the pair (ORDER_LIMIT - insertion number, cell) packed in
one word. Only the entries of the current *bucket* (f below (bucket + 1) * BUCKET_WIDTH) sit in
a binary heap; later ones wait unsorted in a ring of buckets (linked lists in a pool), one per
BUCKET_WIDTH of f, and fill the heap when it runs empty. A step raises f by at most twice the
dearest step, so a ring a little longer than that many widths never wraps onto a waiting
bucket. Every heap entry comes before every waiting one, so the heap's top is the least entry
of all: the same order as one big heap, with a heap a few dozen entries deep instead of
thousands (the binary heap's pops were most of the time per expansion). While nothing waits
and the heap is small (a frontier along a corridor), a later entry goes straight into the heap
and the current bucket's bound moves up to it, which spares it the trip through the ring (the
1024^2 maze about 3 % faster).

An entry is stale (a cheaper one for its cell was pushed since) when its cell is closed or its
f is not the cell's current g plus h: a cheaper entry has a smaller f or, rounded to the same
f, is popped first (the later insertion), so by the time a stale entry is popped its cell's f
has moved on or the cell is closed. No per-cell insertion number is kept: one array fewer to
write on every push and read on every pop. A cell reached more cheaply after its expansion is
opened again, exactly as the reference A* does, so the two stay equal step for step even where
floating-point sums bend the heuristic's consistency by an ulp.
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import driver, njit

from .layout import (
    BUCKET,
    CLOSED,
    FRONTIER_END,
    OCTILE_DIAGONAL_EXTRA,
    POOL_END,
    POOL_FREE,
    PUSHES,
    WAITING,
    diagonal_allowed,
    distance_estimate,
    enterable,
    entry_floor,
    free_key_of,
    is_target,
    neighbour_offsets,
)

# Direction steps in x and y, in the order of `neighbour_offsets`.
STEP_X = (1, 0, -1, 0, 1, -1, -1, 1)
STEP_Y = (0, 1, 0, -1, 1, 1, -1, -1)
# Insertion numbers stay below this (31 bits of the packed word); cells below 2^32.
ORDER_LIMIT = (1 << 31) - 1
_CELL_BITS = 32
_CELL_MASK = (1 << 32) - 1
# The f span of a bucket (a power of two, so bucket numbers are exact); pool slots are
# (key, word, next slot) triples.
BUCKET_WIDTH = 0.125
POOL_ENTRY = 3
# While nothing waits in the ring, the heap takes entries of any f up to this many.
DIRECT_HEAP = 64


def ring_length(straight: np.ndarray, diagonal: np.ndarray, eight: bool) -> int:
    """Buckets in the ring: more than the widths a step may raise f by (twice the dearest
    step: its cost, plus as much again for the heuristic, which grows by at most the step's
    length times the least factor), rounded up to a power of two so a bucket's slot is a mask,
    not a division."""
    dearest = float(np.max(diagonal if eight else straight))
    needed = int(np.floor(2.0 * dearest / BUCKET_WIDTH)) + 3
    return 1 << (needed - 1).bit_length()


@njit(cache=True, nogil=True, inline="always")
def pack(order, cell):
    """The heap's second word: smaller for a later insertion, then for a smaller cell."""
    return ((ORDER_LIMIT - order) << _CELL_BITS) | cell


@njit(cache=True, nogil=True, inline="always")
def _earlier(heap, i, key, word):
    """Whether heap entry `i` comes before the entry (key, word).

    The heap is indexed with unsigned integers, as the kernel indexes the per-cell arrays: a
    signed index compiles to a negative-index fix-up on every access (about 7 % of a weighted
    search's time on the benchmark maze and random map).
    """
    a = heap[np.uint64(2 * i)]
    return a < key or (a == key and heap[np.uint64(2 * i + 1)] < word)


@njit(cache=True, nogil=True, inline="always")
def _rise(heap, i, key, word):
    """Put the entry (key, word) at the hole `i`, moving it up past later parents."""
    while i > 0:
        up = (i - 1) >> 1
        if _earlier(heap, up, key, word):
            break
        heap[np.uint64(2 * i)] = heap[np.uint64(2 * up)]
        heap[np.uint64(2 * i + 1)] = heap[np.uint64(2 * up + 1)]
        i = up
    heap[np.uint64(2 * i)] = key
    heap[np.uint64(2 * i + 1)] = word


@njit(cache=True, nogil=True, inline="always")
def heap_push(heap, size, key, word):
    """Insert an entry into the heap of `size` entries."""
    _rise(heap, size, key, word)


@njit(cache=True, nogil=True, inline="always")
def heap_fix(heap, size):
    """Restore the heap after its root was taken; `size` is the new size.

    Bottom-up: the hole left by the root sinks to a leaf along the earlier children (one
    comparison a level, made without a branch), then the last entry rises from there; it came
    from the bottom, so it rarely rises far. Fewer comparisons and mispredicted branches than
    sinking the last entry from the top.
    """
    if size == 0:
        return
    key = heap[np.uint64(2 * size)]
    word = heap[np.uint64(2 * size + 1)]
    i = 0
    while True:
        child = 2 * i + 1
        if child + 1 < size:
            right_key = heap[np.uint64(2 * child + 2)]
            left_key = heap[np.uint64(2 * child)]
            right_word = heap[np.uint64(2 * child + 3)]
            child += (right_key < left_key) | (
                (right_key == left_key) & (right_word < heap[np.uint64(2 * child + 1)])
            )
        elif child >= size:
            break
        heap[np.uint64(2 * i)] = heap[np.uint64(2 * child)]
        heap[np.uint64(2 * i + 1)] = heap[np.uint64(2 * child + 1)]
        i = child
    _rise(heap, i, key, word)


@njit(cache=True, nogil=True, inline="always")
def one_target_estimate(dx, dy, eight, scale):
    """`distance_estimate` to one target (dx, dy) away, without the loop over targets; the
    same expression, so the same bits."""
    dx = abs(dx)
    dy = abs(dy)
    estimate = (dx + dy) + OCTILE_DIAGONAL_EXTRA * min(dx, dy) if eight else float(dx + dy)
    return estimate * scale


@njit(cache=True, nogil=True)
def weighted_kernel(
    keys,
    costs,
    straight,
    diagonal,
    row,
    targets,
    target_x,
    target_y,
    use_heuristic,
    eight,
    scale,
    stamp,
    g,
    base,
    heap,
    pool,
    heads,
    counts,
    expansion_order,
    state,
    max_expansions,
):
    """A* (Dijkstra when `use_heuristic` is False) with real step costs; see the module doc.

    `g` holds the best path cost found to each cell;
    `heap` the current bucket's entries, `pool` the waiting ones, linked from `heads` (one list
    per ring bucket, -1 empty) with `counts` entries each. The goal test is made when an entry
    is popped. The heuristic is Manhattan, octile when `eight`,
    times `scale` (`distance_estimate`). A non-empty `expansion_order` receives each expanded
    cell at its expansion number (a cell opened again is listed again). Cells index the
    per-cell arrays as unsigned integers, as in `bfs_kernel` (no negative-index fix-up).
    """
    size = state[FRONTIER_END]
    pushes = state[PUSHES]
    bucket = state[BUCKET]
    waiting = state[WAITING]
    free_slot = state[POOL_FREE]
    pool_end = state[POOL_END]
    ring_mask = heads.shape[0] - 1
    pool_capacity = pool.shape[0] // POOL_ENTRY
    per_width = 1.0 / BUCKET_WIDTH
    expanded = state[driver.EXPANDED]
    generated = state[driver.GENERATED]
    max_frontier = state[driver.MAX_FRONTIER]
    capacity = heap.shape[0] // 2
    f_values = heap.view(np.float64)  # f written as a float, compared as its bits
    first = targets[0]
    # Row of a cell by a multiplication: (cell + 0.5) / row lies at least 0.5 / row from an
    # integer, far more than the rounding error of the product, so truncation is exact.
    per_row = 1.0 / row
    closed = base + CLOSED
    goal_x = target_x[0]
    goal_y = target_y[0]
    several = targets.shape[0] > 1
    # Indexed by a run-time direction: arrays, since a tuple compiles to a branch per index.
    offsets = np.array(neighbour_offsets(row), dtype=np.int64)
    free_key = free_key_of(keys)
    step_x = np.array(STEP_X, dtype=np.int64)
    step_y = np.array(STEP_Y, dtype=np.int64)
    neighbours = 8 if eight else 4
    has_costs = costs.shape[0] > 1
    record = expansion_order.shape[0] > 0
    status = driver.EXHAUSTED
    done = 0
    while True:
        if size == 0:
            if waiting == 0:
                status = driver.EXHAUSTED
                break
            while heads[bucket & ring_mask] < 0:
                bucket += 1
            slot = bucket & ring_mask
            if counts[slot] > capacity:
                status = driver.GROW
                break
            entry = heads[slot]
            while entry >= 0:
                heap_push(heap, size, pool[POOL_ENTRY * entry], pool[POOL_ENTRY * entry + 1])
                size += 1
                following = pool[POOL_ENTRY * entry + 2]
                pool[POOL_ENTRY * entry + 2] = free_slot
                free_slot = entry
                entry = following
            waiting -= counts[slot]
            heads[slot] = -1
            counts[slot] = 0
        if size + neighbours > capacity or pool_end + neighbours > pool_capacity:
            status = driver.GROW
            break
        key = heap[0]
        f_key = f_values[0]
        word = heap[1]
        size -= 1
        heap_fix(heap, size)
        cell = word & _CELL_MASK
        at_cell = np.uint64(cell)
        if stamp[at_cell] >= closed:
            continue  # stale: the cell was expanded since this entry was pushed
        g_cell = g[at_cell]
        cy = int((cell + 0.5) * per_row)
        cx = cell - cy * row
        f_cell = g_cell
        if use_heuristic:
            if several:
                f_cell = g_cell + distance_estimate(cx, cy, target_x, target_y, eight, scale)
            else:
                f_cell = g_cell + one_target_estimate(cx - goal_x, cy - goal_y, eight, scale)
        if f_key != f_cell:
            continue  # stale: a cheaper entry for this cell was pushed after this one
        if cell == first or (several and is_target(cell, targets)):
            state[driver.FOUND] = cell
            status = driver.SOLVED
            break
        if done >= max_expansions:
            # Out of budget for this call: put the entry back, so a resumed call pops it again.
            heap_push(heap, size, key, word)
            size += 1
            status = driver.PAUSED
            break
        stamp[at_cell] += CLOSED
        if record:
            expansion_order[expanded] = cell
        expanded += 1
        done += 1
        floor = entry_floor(keys[at_cell], free_key)
        straight_bits = 0
        for k in range(neighbours):
            if k == 4 and straight_bits & (straight_bits >> 1 | straight_bits << 3) == 0:
                break  # no two neighbouring straight steps: no diagonal is allowed
            if k >= 4 and not diagonal_allowed(k, straight_bits):
                continue
            nxt = cell + offsets[k]
            at = np.uint64(nxt)
            if not enterable(keys, floor, at):
                continue
            raw = costs[at] if has_costs else 0
            if k < 4:
                straight_bits |= 1 << k
                step = straight[raw]
            else:
                step = diagonal[raw]
            generated += 1
            g_next = g_cell + step
            if stamp[at] >= base and g[at] <= g_next:
                continue
            stamp[at] = base + k
            g[at] = g_next
            f_next = g_next
            if use_heuristic:
                if several:
                    f_next = g_next + distance_estimate(
                        cx + step_x[k], cy + step_y[k], target_x, target_y, eight, scale
                    )
                else:
                    f_next = g_next + one_target_estimate(
                        cx + step_x[k] - goal_x, cy + step_y[k] - goal_y, eight, scale
                    )
            pushes += 1
            f_values[np.uint64(2 * size)] = f_next  # f's bits, read back as an int64 below
            f_bucket = int(f_next * per_width)  # f >= 0: truncation is the floor
            if f_bucket <= bucket or (waiting == 0 and size < DIRECT_HEAP):
                # A small frontier with nothing waiting takes the entry straight into the heap
                # and moves the bucket bound up to it: every heap entry still comes first.
                bucket = max(bucket, f_bucket)
                heap_push(heap, size, heap[np.uint64(2 * size)], pack(pushes, nxt))
                size += 1
            else:
                slot = f_bucket & ring_mask
                entry = free_slot
                if entry >= 0:
                    free_slot = pool[POOL_ENTRY * entry + 2]
                else:
                    entry = pool_end
                    pool_end += 1
                pool[POOL_ENTRY * entry] = heap[np.uint64(2 * size)]
                pool[POOL_ENTRY * entry + 1] = pack(pushes, nxt)
                pool[POOL_ENTRY * entry + 2] = heads[slot]
                heads[slot] = entry
                counts[slot] += 1
                waiting += 1
        if size + waiting > max_frontier:
            max_frontier = size + waiting
    state[FRONTIER_END] = size
    state[PUSHES] = pushes
    state[BUCKET] = bucket
    state[WAITING] = waiting
    state[POOL_FREE] = free_slot
    state[POOL_END] = pool_end
    driver.save_counters(state, expanded, generated, max_frontier)
    return status
