"""The steps of a found path in one compiled pass: each step's direction and the path's cost.

A vectorised version needs a division per cell (x and y of every index), a 2-D lookup, a
gather of the raw costs and a cumulative sum: several passes over arrays as long as the path
(tens of thousands of cells on a big maze), a tenth of a whole weighted plan. Here x follows
the path step by step from one division at the start.
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import njit

# The direction index (the order of `cell_graph.DIRECTIONS` and `layout.neighbour_offsets`)
# of a step (dx, dy), at (dy + 1) * 3 + dx + 1; -1 for no step.
_DIRECTION_OF_STEP = (6, 3, 7, 2, -1, 0, 5, 1, 4)


@njit(cache=True, nogil=True)
def path_steps(path, width, straight, diagonal, raw, has_raw):
    """(directions, cost) of `path` (map indices of 8-connected neighbours, start to goal) on
    a map `width` cells wide.

    A step onto cell v costs `straight[raw[v]]` or, diagonally, `diagonal[raw[v]]` (index 0
    when not `has_raw`); the cost is their sum from the start, added in path order (the
    search's own g, to the bit). On a map at least 3 cells wide the index change gives dy;
    narrower, dy is the one that leaves x on the map with |dx| <= 1 (east and north-west
    both add 1 to the index of a map 2 cells wide).
    """
    count = path.shape[0] - 1
    directions = np.empty(max(count, 0), dtype=np.int64)
    # Indexed at run time: an array, since a tuple compiles to a branch per index.
    direction_of_step = np.array(_DIRECTION_OF_STEP, dtype=np.int64)
    total = 0.0
    x = path[0] % width if count > 0 else 0
    wide = width >= 3  # then the index change alone gives dy, without a branch
    for i in range(count):
        change = path[i + 1] - path[i]
        if wide:
            dy = int(change >= width - 1) - int(change <= 1 - width)
            dx = change - dy * width
        else:
            dx = 0
            dy = -1
            while dy <= 1:
                dx = change - dy * width
                if -1 <= dx <= 1 and 0 <= x + dx < width:
                    break
                dy += 1
        x += dx
        direction = direction_of_step[(dy + 1) * 3 + dx + 1]
        directions[i] = direction
        cost = raw[path[i + 1]] if has_raw else 0
        total += diagonal[cost] if direction >= 4 else straight[cost]
    return directions, total
