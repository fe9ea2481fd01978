"""Connected components of the free cells: reachability answered without a search.

The planner labels the 4-connected components of the free cells once per grid. Diagonal steps
never cut a corner (both orthogonal neighbours must be free too), so two free cells joined by a
diagonal step are also joined through those neighbours: the labels serve 8-connected plans too.
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE, njit


@njit(cache=True, nogil=True, inline="always")
def _root(parent, cell):
    """The root of `cell`'s set (its lowest cell), halving the path on the way."""
    while parent[cell] != cell:
        parent[cell] = parent[parent[cell]]
        cell = parent[cell]
    return cell


@njit(cache=True, nogil=True)
def label_components_kernel(free, width, height, parent, labels):
    """4-connected component labels of `free` (flat bool) into `labels`: -1 off the mask,
    else 0, 1, ... (`parent`: int32 scratch of the same size).

    Components are numbered in the order of their lowest cell index. One scan joins each free
    cell to its free west and south neighbours' sets (union-find, the lower root wins, so a
    root is its set's lowest cell); a second numbers the roots in order and labels the rest.
    """
    count = free.shape[0]
    for y in range(height):
        row = y * width
        for x in range(width):
            cell = row + x
            if not free[cell]:
                continue
            root = cell
            if x > 0 and free[cell - 1]:
                root = _root(parent, cell - 1)
            if y > 0 and free[cell - width]:
                other = _root(parent, cell - width)
                if root == cell:
                    root = other
                elif other < root:
                    parent[root] = other
                    root = other
                elif other > root:
                    parent[other] = root
            parent[cell] = root
    labels[:] = -1
    label = 0
    for cell in range(count):
        if free[cell]:
            root = _root(parent, cell)
            if root == cell:
                labels[cell] = label
                label += 1
            else:
                labels[cell] = labels[root]


def label_components(free: np.ndarray) -> np.ndarray:
    """Labels of the 4-connected components of the 2-D bool mask `free` (flat int32, -1 off).

    Components are numbered in the order of their lowest flat index; compiled when numba is
    available, else a vectorised NumPy union-find that gives the same labels.
    """
    height, width = free.shape
    flat = np.ascontiguousarray(free, dtype=np.bool_).reshape(-1)
    if NUMBA_AVAILABLE:  # NumPy allocates: huge pages, see `layers.cell_arrays`
        labels = np.empty(flat.size, dtype=np.int32)
        label_components_kernel(flat, width, height, np.empty(flat.size, dtype=np.int32), labels)
        return labels
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
