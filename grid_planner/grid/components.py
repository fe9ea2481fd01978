"""Connected components of the free cells: reachability answered without a search.

The planner labels the 4-connected components of the free cells once per grid. Diagonal steps
never cut a corner (both orthogonal neighbours must be free too), so two free cells joined by a
diagonal step are also joined through those neighbours: the labels serve 8-connected plans too.
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE, njit


@njit(cache=True, nogil=True)
def label_components_kernel(free, width, height):
    """4-connected component labels of `free` (flat bool): -1 off the mask, else 0, 1, ...

    Components are numbered in the order of their lowest cell index.
    """
    count = free.shape[0]
    labels = np.full(count, -1, dtype=np.int32)
    queue = np.empty(count, dtype=np.int64)
    label = 0
    for seed in range(count):
        if not free[seed] or labels[seed] >= 0:
            continue
        labels[seed] = label
        head = 0
        tail = 1
        queue[0] = seed
        while head < tail:
            cell = queue[head]
            head += 1
            cx = cell % width
            cy = cell // width
            if cx + 1 < width and free[cell + 1] and labels[cell + 1] < 0:
                labels[cell + 1] = label
                queue[tail] = cell + 1
                tail += 1
            if cy + 1 < height and free[cell + width] and labels[cell + width] < 0:
                labels[cell + width] = label
                queue[tail] = cell + width
                tail += 1
            if cx > 0 and free[cell - 1] and labels[cell - 1] < 0:
                labels[cell - 1] = label
                queue[tail] = cell - 1
                tail += 1
            if cy > 0 and free[cell - width] and labels[cell - width] < 0:
                labels[cell - width] = label
                queue[tail] = cell - width
                tail += 1
        label += 1
    return labels


def label_components(free: np.ndarray) -> np.ndarray:
    """Labels of the 4-connected components of the 2-D bool mask `free` (flat int32, -1 off).

    Components are numbered in the order of their lowest flat index; compiled when numba is
    available, else a vectorised NumPy union-find that gives the same labels.
    """
    height, width = free.shape
    flat = np.ascontiguousarray(free, dtype=np.bool_).reshape(-1)
    if NUMBA_AVAILABLE:
        return label_components_kernel(flat, width, height)
    return label_components_numpy(free)


def label_components_numpy(free: np.ndarray) -> np.ndarray:
    """The NumPy-only version of `label_components` (hooking plus pointer jumping)."""
    height, width = free.shape
    count = height * width
    free = np.asarray(free, dtype=np.bool_)
    index = np.arange(count, dtype=np.int64).reshape(height, width)
    horizontal = free[:, :-1] & free[:, 1:]
    vertical = free[:-1, :] & free[1:, :]
    u = np.concatenate((index[:, :-1][horizontal], index[:-1, :][vertical]))
    v = np.concatenate((index[:, 1:][horizontal], index[1:, :][vertical]))
    root = np.arange(count, dtype=np.int64)
    while True:
        ru, rv = root[u], root[v]
        differ = ru != rv
        if not differ.any():
            break
        np.minimum.at(root, np.maximum(ru, rv)[differ], np.minimum(ru, rv)[differ])
        while True:
            jumped = root[root]
            if np.array_equal(jumped, root):
                break
            root = jumped
    labels = np.full(count, -1, dtype=np.int32)
    members = np.flatnonzero(free.reshape(-1))
    if members.size:
        _, inverse = np.unique(root[members], return_inverse=True)
        labels[members] = inverse.reshape(-1).astype(np.int32)
    return labels
