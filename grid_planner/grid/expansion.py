"""A search's expansion order as per-cell ranks and shades, for pictures and RViz.

`record_expanded` lists the cells a search expanded in the order it expanded them (a cell
opened again is listed again). A cell's *rank* is the place of its first expansion among the
distinct cells expanded; its *shade* scales that rank onto SHADE_FIRST..SHADE_LAST, so a picture
or an OccupancyGrid shows the search's wave: early cells low, late cells high. 1..98 keeps clear
of RViz's costmap colour scheme's special values (0 free, 99 inscribed, 100 lethal).
"""

from __future__ import annotations

import numpy as np

SHADE_FIRST = 1
SHADE_LAST = 98
NOT_EXPANDED = -1


def expansion_ranks(order: np.ndarray, cell_count: int) -> np.ndarray:
    """Per cell (int64, `cell_count` of them) the rank of its first expansion in `order`
    (0 for the first cell expanded), NOT_EXPANDED for a cell never expanded."""
    order = np.asarray(order, dtype=np.int64).reshape(-1)
    unseen = np.iinfo(np.int64).max
    # Each cell's first place in the order: O(order + cells), no sort (np.unique took seconds
    # on a 10-million-cell search).
    ranks = np.full(cell_count, unseen, dtype=np.int64)
    np.minimum.at(ranks, order, np.arange(order.size, dtype=np.int64))
    expanded = np.flatnonzero(ranks != unseen)
    if expanded.size < order.size:  # some cell listed twice: close the gaps in the places
        places = ranks[expanded]
        ranks[expanded[np.argsort(places, kind="stable")]] = np.arange(expanded.size)
    ranks[ranks == unseen] = NOT_EXPANDED
    return ranks


def expansion_shades(order: np.ndarray, cell_count: int) -> np.ndarray:
    """Per cell (int8) its shade: 0 when never expanded, else SHADE_FIRST..SHADE_LAST growing
    with its rank (the first cell expanded SHADE_FIRST, the last SHADE_LAST when more than one);
    never decreasing along the order of first expansions."""
    ranks = expansion_ranks(order, cell_count)
    shades = np.zeros(cell_count, dtype=np.int8)
    expanded = ranks >= 0
    distinct = int(np.count_nonzero(expanded))
    if distinct:
        span = SHADE_LAST - SHADE_FIRST
        scaled = SHADE_FIRST + (ranks[expanded] * span) // max(1, distinct - 1)
        shades[expanded] = scaled.astype(np.int8)
    return shades
