"""Expansion ranks and shades (`grid.expansion`) and the order tint of the PNG pictures."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner import render
from grid_planner.grid.expansion import NOT_EXPANDED, expansion_ranks, expansion_shades


def test_ranks_and_shades_of_a_hand_checked_order():
    order = np.array([5, 3, 3, 8, 1, 5])
    assert expansion_ranks(order, 10).tolist() == [-1, 3, -1, 1, -1, 0, -1, -1, 2, -1]
    # Ranks 0..3 of 4 cells onto 1..98: 1 + rank * 97 // 3.
    assert expansion_shades(order, 10).tolist() == [0, 98, 0, 33, 0, 1, 0, 0, 65, 0]
    assert expansion_shades(np.array([4]), 6).tolist() == [0, 0, 0, 0, 1, 0]
    assert expansion_shades(np.array([], dtype=np.int64), 3).tolist() == [0, 0, 0]
    assert expansion_ranks(np.array([], dtype=np.int64), 2).tolist() == [NOT_EXPANDED] * 2


@given(st.lists(st.integers(0, 299), min_size=1, max_size=600))
@settings(max_examples=200, deadline=None)
def test_shades_stay_in_1_to_98_and_never_decrease_along_first_expansions(order):
    shades = expansion_shades(np.array(order), 300)
    firsts = list(dict.fromkeys(order))
    along = [int(shades[cell]) for cell in firsts]
    assert along[0] == 1 and all(1 <= v <= 98 for v in along)
    assert along == sorted(along)
    if len(firsts) > 1:
        assert along[-1] == 98
    assert np.count_nonzero(shades) == len(firsts)


def test_the_picture_tints_expanded_cells_along_the_ramp_first_to_last():
    rgb = np.full((120, 3), 255.0)
    order = np.arange(100, 0, -1)  # cell 100 first, cell 1 last; 0 and 101.. untouched
    render.tint_expanded(rgb, order, 120)
    weight = render.EXPANDED_TINT_WEIGHT
    first = render.EXPANDED_RAMP_RGB[0] * weight + 255.0 * (1 - weight)
    last = render.EXPANDED_RAMP_RGB[-1] * weight + 255.0 * (1 - weight)
    np.testing.assert_allclose(rgb[100], first)
    np.testing.assert_allclose(rgb[1], last)
    assert rgb[0].tolist() == rgb[101].tolist() == [255.0] * 3
    green = rgb[order, 1]  # the ramp's green rises from first to last
    assert np.all(np.diff(green) >= 0) and green[-1] > green[0]


def test_the_legend_sits_below_the_picture_with_every_colour_it_names(tmp_path):
    from PIL import Image

    picture = Image.new("RGB", (600, 100), render.FREE_RGB)
    framed = render.with_legend(picture)
    assert framed.size == (600, 100 + render.LEGEND_PX)
    below = {tuple(c) for c in np.asarray(framed)[100:].reshape(-1, 3).tolist()}
    for colour in (render.OBSTACLE_RGB, render.PATH_RGB, render.START_RGB, render.GOAL_RGB):
        assert colour in below
    first = render.EXPANDED_RAMP_RGB[0] * render.EXPANDED_TINT_WEIGHT + 255.0 * (
        1 - render.EXPANDED_TINT_WEIGHT
    )
    assert tuple(first.astype(np.uint8).tolist()) in below
