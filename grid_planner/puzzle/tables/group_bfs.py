"""Building one pattern-database group table: a breadth-first search over tile placements.

For a group of tiles, the table holds, for every placement of those tiles, the fewest moves of
*those tiles* that bring them home when the other tiles are erased: the blank moves freely
through cells no group tile holds, and a move swaps it with an adjacent group tile. The table
keeps the least such count over the blank's positions, so the blank is not part of the index.
A table is indexed directly by the group's tile positions, `sum(position_i * cells**(k-1-i))`.

The search runs compiled (numba, about 10 s for the 15-puzzle's 6-6-3 groups) or vectorised
with NumPy where numba is missing (several times slower, with a warning logged once), in
chunks, so the caller can report progress and stop it between two.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE, njit, warn_fallback_once

from ..board import InvalidRequestError, move_targets
from .exact import UNREACHED

NUMPY_FALLBACK = "pattern databases are built with NumPy, several times slower"


def _column_masks(side: int) -> tuple[int, int]:
    """Bit masks of the cells not in the first column and not in the last column."""
    not_first = not_last = 0
    for cell in range(side * side):
        if cell % side:
            not_first |= 1 << cell
        if cell % side != side - 1:
            not_last |= 1 << cell
    return not_first, not_last


# The slots of a chunked build's state array (`_group_bfs_kernel`).
_DEPTH, _FRONTIER_SIZE, _UPCOMING_SIZE, _POSITION, _REACHED = range(5)
# Placements one kernel call expands (a few tens of milliseconds) before the caller checks
# the build's deadline and cancel flag.
CHUNK_ITEMS = 1 << 16


@njit(cache=True, nogil=True)
def _group_bfs_kernel(
    side, weights, targets, not_first, not_last, values, seen, frontier_blanks, next_blanks,
    frontier, upcoming, state, chunk,
):  # pragma: no cover - compiled; tests compare it with the NumPy version
    """Breadth-first search over (placement of the group's tiles, blank), one chunk of a layer.

    Layer d holds the states whose tiles made d moves. The blank moves for free through cells
    no group tile holds, so a state stands for the whole free region around its blank: a
    placement's blank cells are bit masks (`seen`: regions already expanded;
    `frontier_blanks`: reached in this layer). A move swaps the blank with an adjacent group
    tile. `values[placement]` becomes the first layer that reached it (the least over blank
    positions). Expands the layer's items from `state[_POSITION]`, at most `chunk` of them;
    the caller swaps the layer arrays once a layer is done. `state[_REACHED]` counts the
    placements given a value.
    """
    count = side * side
    size = weights.shape[0]
    full = (np.int64(1) << count) - 1
    positions = np.empty(size, dtype=np.int64)
    depth = state[_DEPTH]
    upcoming_size = state[_UPCOMING_SIZE]
    reached = state[_REACHED]
    first = state[_POSITION]
    last = min(first + chunk, state[_FRONTIER_SIZE])
    for item in range(first, last):
        index = frontier[item]
        blanks = np.int64(frontier_blanks[index])
        frontier_blanks[index] = 0
        rest = index
        occupied = np.int64(0)
        for i in range(size - 1, -1, -1):
            positions[i] = rest % count
            rest //= count
            occupied |= np.int64(1) << positions[i]
        free = full & ~occupied
        region = blanks
        while True:  # flood the free cells around the blank cells
            grow = (
                ((region & not_first) >> 1) | ((region & not_last) << 1)
                | (region >> side) | ((region << side) & full)
            )
            wider = region | (grow & free)
            if wider == region:
                break
            region = wider
        region &= ~np.int64(seen[index])
        if region == 0:
            continue
        seen[index] = np.int64(seen[index]) | region
        for i in range(size):
            source = positions[i]
            bit = np.int64(1) << source
            for direction in range(4):
                to = targets[source * 4 + direction]
                if to < 0 or not (region >> to) & 1:
                    continue
                child = index + (to - source) * weights[i]
                marks = np.int64(next_blanks[child])
                if (np.int64(seen[child]) | marks) & bit:
                    continue
                if marks == 0:
                    upcoming[upcoming_size] = child
                    upcoming_size += 1
                next_blanks[child] = marks | bit
                if values[child] == UNREACHED:
                    values[child] = depth + 1
                    reached += 1
    state[_POSITION] = last
    state[_UPCOMING_SIZE] = upcoming_size
    state[_REACHED] = reached


def _group_bfs_compiled(side, start, start_blank, weights, targets, values, masks, on_chunk):
    """Run `_group_bfs_kernel` chunk by chunk; `on_chunk(placements reached)` between chunks."""
    states = math.perm(side * side, weights.shape[0])
    frontier_blanks = np.zeros(values.size, dtype=masks)
    next_blanks = np.zeros(values.size, dtype=masks)
    seen = np.zeros(values.size, dtype=masks)
    frontier = np.empty(states, dtype=np.int64)
    upcoming = np.empty(states, dtype=np.int64)
    values[start] = 0
    frontier_blanks[start] = 1 << start_blank
    frontier[0] = start
    state = np.zeros(5, dtype=np.int64)
    state[_FRONTIER_SIZE] = 1
    state[_REACHED] = 1
    not_first, not_last = _column_masks(side)
    while state[_FRONTIER_SIZE] > 0:
        _group_bfs_kernel(
            side, weights, targets, not_first, not_last, values, seen, frontier_blanks,
            next_blanks, frontier, upcoming, state, CHUNK_ITEMS,
        )
        if state[_POSITION] == state[_FRONTIER_SIZE]:  # the layer is done: the next one
            frontier, upcoming = upcoming, frontier
            frontier_blanks, next_blanks = next_blanks, frontier_blanks
            state[_FRONTIER_SIZE] = state[_UPCOMING_SIZE]
            state[_UPCOMING_SIZE] = 0
            state[_POSITION] = 0
            state[_DEPTH] += 1
        on_chunk(int(state[_REACHED]))


def _group_bfs_numpy(side, start, start_blank, weights, targets, values, on_chunk) -> None:
    """`_group_bfs_kernel` vectorised over each layer with NumPy (for installs without numba);
    `on_chunk(placements reached)` after each layer."""
    count = side * side
    size = weights.shape[0]
    targets = targets.reshape(count, 4)
    full = np.int64((1 << count) - 1)
    not_first, not_last = (np.int64(mask) for mask in _column_masks(side))
    seen = np.zeros(values.size, dtype=np.int64)
    values[start] = 0
    layer = np.array([start], dtype=np.int64)
    blanks = np.array([1 << start_blank], dtype=np.int64)
    one = np.int64(1)
    depth = 0
    reached = 1
    while layer.size:
        positions = (layer[:, None] // weights) % count
        occupied = np.bitwise_or.reduce(one << positions, axis=1)
        free = full & ~occupied
        region = blanks
        while True:
            grow = (
                ((region & not_first) >> 1) | ((region & not_last) << 1)
                | (region >> side) | ((region << side) & full)
            )
            wider = region | (grow & free)
            if np.array_equal(wider, region):
                break
            region = wider
        region &= ~seen[layer]
        seen[layer] |= region
        children, bits = [], []
        for i in range(size):
            source = positions[:, i]
            bit = one << source
            for direction in range(4):
                to = targets[source, direction]
                legal = (to >= 0) & ((region >> np.maximum(to, 0)) & 1).astype(bool)
                child = (layer + (to - source) * weights[i])[legal]
                child_bit = bit[legal]
                fresh = (seen[child] & child_bit) == 0
                children.append(child[fresh])
                bits.append(child_bit[fresh])
        child = np.concatenate(children)
        child_bit = np.concatenate(bits)
        order = np.argsort(child, kind="stable")
        child, child_bit = child[order], child_bit[order]
        layer, first = np.unique(child, return_index=True)
        blanks = np.bitwise_or.reduceat(child_bit, first) if layer.size else child_bit
        depth += 1
        fresh = layer[values[layer] == UNREACHED]
        values[fresh] = depth
        reached += fresh.size
        on_chunk(reached)


def group_weights(cell_count: int, size: int) -> np.ndarray:
    """Index weights of a group of `size` tiles: cell_count**(size-1-i) for tile i."""
    return cell_count ** np.arange(size - 1, -1, -1, dtype=np.int64)


def group_placements(side: int, size: int) -> int:
    """How many placements a group of `size` tiles has on a side x side board (all reached)."""
    return math.perm(side * side, size)


def build_group_table(
    side: int,
    cells: Sequence[int],
    blank: int,
    use_numba: bool | None = None,
    on_chunk: Callable[[int], None] | None = None,
) -> np.ndarray:
    """The table of one group whose tiles' goal cells are `cells` (in tile order).

    `blank` is the goal's blank cell. `use_numba` None: compiled when numba is available.
    `on_chunk(placements reached so far)` is called between chunks of the work (a few tens of
    milliseconds apart when compiled, a layer apart with NumPy); raising there stops the build.
    """
    count = side * side
    if count > 32:
        raise InvalidRequestError(f"pattern databases go up to 5x5 boards, not {side}x{side}")
    weights = group_weights(count, len(cells))
    values = np.full(count ** len(cells), UNREACHED, dtype=np.uint8)
    start = int(np.dot(np.asarray(cells, dtype=np.int64), weights))
    targets = move_targets(side)
    report = on_chunk if on_chunk is not None else _ignore
    compiled = NUMBA_AVAILABLE if use_numba is None else use_numba
    if compiled:
        masks = np.uint16 if count <= 16 else np.uint32
        _group_bfs_compiled(side, start, blank, weights, targets, values, masks, report)
    else:
        if use_numba is None:
            warn_fallback_once(NUMPY_FALLBACK)
        _group_bfs_numpy(side, start, blank, weights, targets, values, report)
    return values


def _ignore(_reached: int) -> None:
    """The `on_chunk` of a build nobody watches."""
