"""Connected components of the free cells: reachability answered without a search.

The planner labels the 4-connected components of the free cells once per grid. Diagonal steps
never cut a corner (both orthogonal neighbours must be free too), so two free cells joined by a
diagonal step are also joined through those neighbours: the labels serve 8-connected plans too.
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE, njit


@njit(cache=True, nogil=True, inline="always")
def _root(parent, run):
    """The root of `run`'s set (its lowest run), halving the path on the way."""
    while parent[run] != run:
        parent[run] = parent[parent[run]]
        run = parent[run]
    return run


@njit(cache=True, nogil=True)
def label_components_kernel(free, width, height, first, last, parent, labels, sizes):
    """4-connected component labels of `free` (flat bool) into `labels` (-1 off the mask, else
    0, 1, ...) and each component's cell count into `sizes`; returns the component count.

    Works on runs (maximal horizontal stretches of free cells), not cells: a map with few
    obstacles has few runs, so the union-find touches little and the labels are written one
    run at a time. One scan finds each row's runs and joins each to the runs of the row below
    that overlap it (the lower run wins, so a root is its set's first run, which holds the
    set's lowest cell); a second numbers the roots in order and fills the cells.
    `first`, `last` and `parent` are int32 scratch with room for every run
    (width // 2 + 1 a row at most).
    """
    runs = 0
    below = 0  # the first run of the previous row
    for y in range(height):
        row = y * width
        row_runs = runs
        x = 0
        while x < width:
            if not free[row + x]:
                x += 1
                continue
            start = x
            while x < width and free[row + x]:
                x += 1
            first[runs] = row + start
            last[runs] = row + x - 1
            parent[runs] = runs
            runs += 1
        # Join this row's runs with the overlapping runs of the row below (two sorted lists).
        other = below
        for run in range(row_runs, runs):
            low = first[run] - width
            high = last[run] - width
            while other < row_runs and last[other] < low:
                other += 1
            probe = other
            while probe < row_runs and first[probe] <= high:
                a = _root(parent, run)
                b = _root(parent, probe)
                if a < b:
                    parent[b] = a
                elif b < a:
                    parent[a] = b
                probe += 1
        below = row_runs
    count = 0
    done = 0  # the cells before `done` are written
    for run in range(runs):
        root = _root(parent, run)
        if root == run:
            label = count
            sizes[label] = 0
            count += 1
        else:
            label = labels[first[root]]
        labels[done:first[run]] = -1
        labels[first[run]:last[run] + 1] = label
        done = last[run] + 1
        sizes[label] += done - first[run]
    labels[done:] = -1
    return count


def label_components(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(labels, sizes) of the 4-connected components of the 2-D bool mask `free`: flat int32
    labels (-1 off the mask) numbered in the order of their lowest flat index, and the int64
    cell count of each. Compiled when numba is available, else a vectorised NumPy union-find
    that gives the same answer.
    """
    height, width = free.shape
    flat = np.ascontiguousarray(free, dtype=np.bool_).reshape(-1)
    if not NUMBA_AVAILABLE:
        return label_components_numpy(free)
    room = (width // 2 + 1) * height
    scratch = [np.empty(room, dtype=np.int32) for _ in range(3)]
    labels = np.empty(flat.size, dtype=np.int32)  # NumPy allocates: see `layers.cell_arrays`
    sizes = np.empty(room, dtype=np.int64)
    count = label_components_kernel(flat, width, height, *scratch, labels, sizes)
    return labels, sizes[:count].copy()


def label_components_numpy(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    sizes = np.bincount(labels[members], minlength=0).astype(np.int64)
    return labels, sizes


Region = tuple[int, int, int, int]
# `patch_labels` relabels a box locally only when it is at most this share of the map.
LOCAL_SHARE = 8


def union_region(first: Region, second: Region) -> Region:
    """The smallest (top, bottom, left, right) row/column range holding both ranges."""
    return (min(first[0], second[0]), max(first[1], second[1]),
            min(first[2], second[2]), max(first[3], second[3]))


def patch_labels(
    labels: np.ndarray, sizes: np.ndarray, region: Region, free: np.ndarray, reach: int = 16
) -> tuple[np.ndarray, np.ndarray] | None:
    """The components of the 2-D mask `free`, from `labels` and `sizes` (those of a mask that
    differed from `free` only in `region`, rows top..bottom-1 and columns left..right-1), or
    None when only a full labelling can tell.

    Only a box of `reach` more cells round the region is labelled again (None when the box is
    more than 1 / LOCAL_SHARE of the map). Its edge cells (those
    next to a cell outside the box) are unchanged, so they keep their labels, and every path
    into the box crosses them: a local component touching the edge takes the label of its edge
    cells, one touching none is a component of its own (a new label after the others), and a
    component that lay wholly inside the box is gone (its size drops to 0). When a local
    component touches edge cells of two labels (the patch joined two components) or one label's
    edge cells fall into two local components (the patch may have cut one: the cut may close
    outside the box), only the whole map can tell: None. The result is a correct partition,
    not numbered by lowest cell.
    """
    height, width = free.shape
    top, bottom, left, right = region
    box_top, box_bottom = max(0, top - reach), min(height, bottom + reach)
    box_left, box_right = max(0, left - reach), min(width, right + reach)
    if (box_bottom - box_top) * (box_right - box_left) * LOCAL_SHARE > height * width:
        return None  # most of the map: labelling all of it costs about the same
    box = (slice(box_top, box_bottom), slice(box_left, box_right))
    local, _ = label_components(free[box])
    local = local.reshape(free[box].shape)
    old = labels.reshape(height, width)[box]
    edge = np.zeros(local.shape, dtype=np.bool_)
    edge[0, :] |= box_top > 0
    edge[-1, :] |= box_bottom < height
    edge[:, 0] |= box_left > 0
    edge[:, -1] |= box_right < width
    edge &= local >= 0
    pairs = np.unique(local[edge].astype(np.int64) << 32 | old[edge].astype(np.int64))
    pairs = np.stack((pairs >> 32, pairs & 0xFFFFFFFF))
    if np.unique(pairs[0]).size != pairs.shape[1] or np.unique(pairs[1]).size != pairs.shape[1]:
        return None
    count = int(local.max()) + 1
    mapping = np.full(count + 1, -1, dtype=np.int32)  # local label -> label; -1 stays -1
    mapping[pairs[0]] = pairs[1]
    fresh = np.flatnonzero(mapping[:count] < 0)
    mapping[fresh] = np.arange(sizes.size, sizes.size + fresh.size, dtype=np.int32)
    relabelled = mapping[local]  # index -1 reads the last entry, -1
    patched = labels.copy()
    patched.reshape(height, width)[box] = relabelled
    total = sizes.size + fresh.size
    counts = np.concatenate((sizes, np.zeros(fresh.size, dtype=np.int64)))
    counts -= np.bincount(old[old >= 0], minlength=total)
    counts += np.bincount(relabelled[relabelled >= 0], minlength=total)
    return patched, counts
