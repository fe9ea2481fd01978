"""The padded layout every grid kernel searches, the stamps that record a search, its state.

The move rule lives in one array, `clearance` (see `planning_grid`): a step from `c` to a
neighbour `v` is allowed when `clearance[v] == FREE_CLEARANCE or clearance[v] > clearance[c]`.
Neighbours are visited in the fixed order east (+x), north (+y), west (-x), south (-y).

The kernels run on `pad_clearance`'s copy of it: the map framed by a one-cell LETHAL border,
`row = width + 2` entries a row. Every map cell then has its four neighbours at the offsets
`(+1, +row, -1, -row)`, and the move rule itself refuses the border, so an expansion needs no
bounds check and no `cell % width` or `cell // width`. The search driver converts at its
boundary (start and targets in, path out) with `to_padded` and `from_padded`.

Stamps: `stamp` and `g` (in `buffers.SearchBuffers`) hold one entry per padded cell and are
allocated once per map. A query never clears them; it takes a fresh *generation* `base` (a
multiple of GENERATION_STEP) instead. `stamp[c] < base` means "not seen in this query";
otherwise `stamp[c] - base` is the direction (0-3, an index into the offsets) of the step that
reached `c`, plus CLOSED once `c` is expanded. So a query costs O(cells it touches), not O(map
area), and one store per reached cell records both that it was seen and its parent
(`c - offsets[direction]`): no parent array.
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import njit
from grid_planner.jit.driver import FIRST_FAMILY_SLOT

FREE_CLEARANCE = np.int32(np.iinfo(np.int32).max)
LETHAL_CLEARANCE = np.int32(-1)

# Stamps: a generation takes 8 values, base + direction (0-3) + CLOSED once expanded.
CLOSED = 4
GENERATION_STEP = 8
# The last generation: a multiple of the step whose stamps (up to base + 7) still fit int32.
MAX_BASE = np.iinfo(np.int32).max + 1 - GENERATION_STEP

# The grid kernels' own slots of the driver's state array.
FRONTIER_END = FIRST_FAMILY_SLOT  # heap size, stack size, or queue tail
QUEUE_HEAD = FIRST_FAMILY_SLOT + 1
DEPTH_PRUNED = FIRST_FAMILY_SLOT + 2
STATE_SIZE = FIRST_FAMILY_SLOT + 3


@njit(cache=True, nogil=True, inline="always")
def is_target(cell, targets):
    """Whether `cell` is one of `targets`."""
    for k in range(targets.shape[0]):  # noqa: SIM110 (numba compiles loops, not any())
        if targets[k] == cell:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def entry_floor(own):
    """The clearance a neighbour must exceed to be entered from a cell of clearance `own`.

    One comparison per neighbour instead of two: from a free cell only FREE_CLEARANCE exceeds
    `FREE_CLEARANCE - 1`; from any other cell FREE_CLEARANCE and every higher clearance exceed
    `own`. The border (LETHAL_CLEARANCE) never exceeds a start's clearance, not even a lethal
    start's.
    """
    return own - 1 if own == FREE_CLEARANCE else own


def pad_clearance(clearance: np.ndarray, width: int, height: int) -> np.ndarray:
    """The flat map `clearance` framed by a one-cell LETHAL border: (height+2) * (width+2).

    Read-only, like the grid's own arrays (numba compiles one version per writability).
    """
    padded = np.full((height + 2, width + 2), LETHAL_CLEARANCE, dtype=np.int32)
    padded[1:-1, 1:-1] = np.asarray(clearance, dtype=np.int32).reshape(height, width)
    padded = padded.reshape(-1)
    padded.setflags(write=False)
    return padded


def to_padded(index, width: int):
    """The padded index of map index `index` (an int or an integer array)."""
    return index + 2 * (index // width) + width + 3


def from_padded(padded, width: int):
    """The map index of padded index `padded` (an int or an integer array)."""
    return padded - 2 * (padded // (width + 2)) - width - 1
