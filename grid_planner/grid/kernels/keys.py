"""The move rule's keys: the clearance of every cell in the smallest unsigned integer it fits.

The rule (see `cell_graph`) only compares clearances: equal to FREE_CLEARANCE, or greater than
another. A key keeps the clearance of an inflated cell (a squared distance, at least 1) as it
is, and gives a lethal cell LETHAL_KEY (0) and a free one the dtype's largest value, so the
order, and with it the rule, is the same. The kernels read free cells, inflated ones and the step
between them from this one array. With the robot's reach at most 254 cells^2 (an inflated band
up to 15 cells deep) the keys are bytes, which is what the hot loops and a map patch's copy
move; a deeper band takes uint16 keys, and one beyond 65,534 cells^2 uint32. The kernels have
a compiled version for each dtype: `warm_up` makes the first two, the uint32 one is compiled
on its first use.
"""

from __future__ import annotations

import math

import numpy as np

FREE_CLEARANCE = np.int32(np.iinfo(np.int32).max)
LETHAL_CLEARANCE = np.int32(-1)
LETHAL_KEY = 0
KEY_DTYPES = (np.uint8, np.uint16, np.uint32)
# The deepest clearance (cells) the widest key holds: a radius beyond it cannot be a grid's.
WIDEST_CLEARANCE_CELLS = math.isqrt(int(np.iinfo(KEY_DTYPES[-1]).max) - 1)


def key_dtype(deepest: int) -> type[np.unsignedinteger]:
    """The smallest key dtype whose values below its largest (the free key) hold every
    clearance up to `deepest`."""
    for dtype in KEY_DTYPES:
        if deepest < np.iinfo(dtype).max:
            return dtype
    reach = math.isqrt(deepest - 1) + 1  # cells, rounded up
    raise ValueError(
        f"robot_radius and inflation_radius reach {reach:,} cells at this map's resolution; "
        f"a grid holds clearances of at most {WIDEST_CLEARANCE_CELLS:,} cells"
    )


def free_key(dtype: type[np.unsignedinteger]) -> int:
    """The key of a free cell: the dtype's largest value."""
    return int(np.iinfo(dtype).max)


def encode_keys(clearance: np.ndarray, dtype: type[np.unsignedinteger]) -> np.ndarray:
    """The keys (`dtype`) of `clearance` (int32: FREE_CLEARANCE, LETHAL_CLEARANCE, or at least
    1 and below the free key)."""
    clearance = np.asarray(clearance)
    keys = clearance.astype(dtype)
    keys[clearance == LETHAL_CLEARANCE] = LETHAL_KEY
    keys[clearance == FREE_CLEARANCE] = free_key(dtype)
    return keys


def decode_keys(keys: np.ndarray) -> np.ndarray:
    """The clearance (int32) of each key: `encode_keys` undone."""
    keys = np.asarray(keys)
    clearance = keys.astype(np.int32)
    clearance[keys == LETHAL_KEY] = LETHAL_CLEARANCE
    clearance[keys == free_key(keys.dtype)] = FREE_CLEARANCE
    return clearance


def pad_keys(keys: np.ndarray, width: int, height: int) -> np.ndarray:
    """The flat map `keys` framed by a one-cell lethal border: (height+2) * (width+2).

    Read-only, like the grid's own arrays (numba compiles one version per writability).
    """
    padded = np.full((height + 2, width + 2), LETHAL_KEY, dtype=keys.dtype)
    padded[1:-1, 1:-1] = np.asarray(keys).reshape(height, width)
    padded = padded.reshape(-1)
    padded.setflags(write=False)
    return padded


def unpadded(padded: np.ndarray, width: int, height: int) -> np.ndarray:
    """The map's cells of a flat padded array (`pad_keys`' layout), as a (height, width) view
    without the border: no copy, so writing to it writes the padded array."""
    return padded.reshape(height + 2, width + 2)[1:-1, 1:-1]


def padded_keys_of(clearance: np.ndarray, width: int, height: int) -> np.ndarray:
    """The padded keys of the flat map `clearance` (int32), in the smallest dtype they fit."""
    clearance = np.asarray(clearance)
    band = clearance[(clearance != LETHAL_CLEARANCE) & (clearance != FREE_CLEARANCE)]
    if band.size and band.min() < 1:
        raise ValueError(f"an inflated cell's clearance must be at least 1, got {band.min()}")
    dtype = key_dtype(int(band.max()) if band.size else 0)
    return pad_keys(encode_keys(clearance, dtype), width, height)
