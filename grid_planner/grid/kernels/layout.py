"""The padded layout every grid kernel searches, the stamps that record a search, its state.

The move rule lives in one array of keys (`keys`: the clearance of `cell_graph` in a small
unsigned dtype): a step from `c` to a neighbour `v` is allowed when `key[v]` is the free key or
`key[v] > key[c]`.
Neighbours are visited in the fixed order east (+x), north (+y), west (-x), south (-y).

The kernels run on a copy of the keys framed by a one-cell lethal border (`keys.pad_keys`),
`row = width + 2` entries a row. Every map cell then has its neighbours at the offsets of
`neighbour_offsets` (east, north, west, south, then the diagonals north-east, north-west,
south-west, south-east), and the move rule itself refuses the border, so an expansion needs no
bounds check and no `cell % width` or `cell // width`. A diagonal also needs the steps onto
both orthogonal neighbours it passes between (`diagonal_allowed`): no corner is cut. The search
driver converts at its boundary (start and targets in, path out) with `to_padded` and
`from_padded`. With the free key the dtype's largest value, one comparison against a floor
(`entry_floor`) decides every step: from a free cell (nearly every step) it passes exactly the
free cells.

Stamps: `stamp` (uint16) and `g` (in `buffers.SearchBuffers`) hold one entry per padded cell and
are allocated once per map. A query never clears them; it takes a fresh *generation* `base` (a
multiple of GENERATION_STEP) instead. `stamp[c] < base` means "not seen in this query";
otherwise `stamp[c] - base` is the direction (0-7, an index into the offsets) of the step that
reached `c`, plus CLOSED once `c` is expanded. So a query costs O(cells it touches), not O(map
area), and one store per reached cell records both that it was seen and its parent
(`c - offsets[direction]`): no parent array.
"""

from __future__ import annotations

import math

import numpy as np

from grid_planner.jit import njit
from grid_planner.jit.driver import FIRST_FAMILY_SLOT

# Stamps: a generation takes 16 values, base + direction (0-7) + CLOSED once expanded.
CLOSED = 8
DIRECTION_MASK = 7
GENERATION_STEP = 16
STAMP_DTYPE = np.uint16
# The last generation: a multiple of the step whose stamps (up to base + 15) still fit; after
# it (every 4,095 queries) the stamps are cleared once, O(map area).
MAX_BASE = np.iinfo(STAMP_DTYPE).max + 1 - GENERATION_STEP

# The grid kernels' own slots of the driver's state array.
FRONTIER_END = FIRST_FAMILY_SLOT  # heap size, stack size, or queue tail
QUEUE_HEAD = FIRST_FAMILY_SLOT + 1
DEPTH_PRUNED = FIRST_FAMILY_SLOT + 2
NEXT_END = FIRST_FAMILY_SLOT + 3  # the two-stack A*'s next-level stack size
CURRENT_HALF = FIRST_FAMILY_SLOT + 4  # which half of its array holds the current level
PUSHES = FIRST_FAMILY_SLOT + 5  # the weighted frontier's insertion counter (its tie rule)
BUCKET = FIRST_FAMILY_SLOT + 6  # the weighted frontier's current bucket
WAITING = FIRST_FAMILY_SLOT + 7  # entries waiting in its ring of buckets
POOL_FREE = FIRST_FAMILY_SLOT + 8  # its first free pool slot (-1: none)
POOL_END = FIRST_FAMILY_SLOT + 9  # pool slots used so far
# The bidirectional BFS's: each side's queue (three slots: layer head, layer end, tail), the
# side whose layer is being expanded, the cell where the sides met, the cells both reached.
FORWARD_QUEUE = FIRST_FAMILY_SLOT
BACKWARD_QUEUE = FIRST_FAMILY_SLOT + 3
SIDE = FIRST_FAMILY_SLOT + 6
MEETING_NEXT = FIRST_FAMILY_SLOT + 7
SEEN = FIRST_FAMILY_SLOT + 8
STATE_SIZE = FIRST_FAMILY_SLOT + 10


@njit(cache=True, nogil=True, inline="always")
def is_target(cell, targets):
    """Whether `cell` is one of `targets`."""
    for k in range(targets.shape[0]):  # noqa: SIM110 (numba compiles loops, not any())
        if targets[k] == cell:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def neighbour_offsets(row):
    """The index offsets of the eight neighbours in a padded array of `row` entries a row."""
    return (1, row, -1, -row, row + 1, row - 1, -row - 1, 1 - row)


@njit(cache=True, nogil=True, inline="always")
def diagonal_sides(direction):
    """The two straight directions diagonal `direction` (4-7) passes between."""
    if direction == 4:
        return 0, 1  # east, north
    if direction == 5:
        return 2, 1  # west, north
    if direction == 6:
        return 2, 3  # west, south
    return 0, 3  # east, south


@njit(cache=True, nogil=True, inline="always")
def diagonal_allowed(direction, orthogonal_bits):
    """Whether diagonal `direction` (4-7) may be taken, given the bit set of allowed straight
    steps (bit k: direction k): both straight steps it passes between must be allowed."""
    first, second = diagonal_sides(direction)
    sides = (1 << first) | (1 << second)
    return orthogonal_bits & sides == sides


# Octile distance = (dx + dy) + (sqrt 2 - 2) min(dx, dy): the cost of the shortest 8-connected
# route on an empty grid, in one expression that the kernels and the reference both evaluate.
OCTILE_DIAGONAL_EXTRA = math.sqrt(2.0) - 2.0


@njit(cache=True, nogil=True, inline="always")
def distance_estimate(x, y, target_x, target_y, eight, scale):
    """The heuristic of cell (x, y): the least Manhattan (octile when `eight`) distance to a
    target, times `scale`: the least cost factor of any cell a step may enter (1 without a cost
    field). Admissible and consistent: no step costs less than its length times that factor.
    """
    best = np.inf
    for k in range(target_x.shape[0]):
        dx = abs(x - target_x[k])
        dy = abs(y - target_y[k])
        estimate = (dx + dy) + OCTILE_DIAGONAL_EXTRA * min(dx, dy) if eight else float(dx + dy)
        if estimate < best:
            best = estimate
    return best * scale


@njit(cache=True, nogil=True, inline="always")
def free_key_of(keys):
    """The key of a free cell in `keys`: its dtype's largest value."""
    return np.iinfo(keys.dtype).max


@njit(cache=True, nogil=True, inline="always")
def enterable(keys, floor, nxt):
    """Whether the move rule lets a step enter `nxt`, against the stepping cell's
    `entry_floor`."""
    return keys[nxt] > floor


@njit(cache=True, nogil=True, inline="always")
def entry_floor(own, free_key):
    """The key a neighbour must exceed to be entered from a cell whose key is `own`.

    One comparison per neighbour instead of two: from a free cell only the free key exceeds
    `free_key - 1`; from any other cell the free key and every higher key exceed `own`. The
    border (lethal, 0) never exceeds a start's key, not even a lethal start's.
    """
    own = np.int64(own)
    return own - 1 if own == free_key else own


def to_padded(index, width: int):
    """The padded index of map index `index` (an int or an integer array)."""
    return index + 2 * (index // width) + width + 3


def from_padded(padded, width: int):
    """The map index of padded index `padded` (an int or an integer array)."""
    return padded - 2 * (padded // (width + 2)) - width - 1
