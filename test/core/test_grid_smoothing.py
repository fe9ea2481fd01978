"""Smoothed paths: clear of obstacles by the robot's radius, same ends, never longer, spaced.

"Clear" is checked here from first principles: points every 1/50 cell along the smoothed path,
each in a free cell (brute-force rules) and farther than robot_radius from every obstacle
centre.
"""

from __future__ import annotations

import itertools
import math
import threading
import time

import numpy as np
import pytest
from grid_fixtures import build, kernel, random_grids
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid import OccupancyMap, PlannerCancelled, PlanningGrid, plan
from grid_planner.grid import smoothing as smoothing_module
from grid_planner.grid.path_quality import path_quality, total_heading_change
from grid_planner.grid.smoothing import (
    MAX_REFINEMENTS,
    MAX_SMOOTHER_ITERATIONS,
    SmootherParams,
    polyline_length,
    segment_lengths,
    smooth_cells,
)
from grid_planner.grid.sweep import segment_walk
from grid_planner.search import Budget

pytestmark = kernel


def assert_clear(points, rules, radius_cells):
    obstacles = [cell for cell, lethal in rules.lethal.items()
                 if lethal and rules.distance2[cell] == 0]
    for a, b in itertools.pairwise(points):
        count = max(2, math.ceil(50 * math.hypot(*(b - a))))
        for t in np.linspace(0.0, 1.0, count):
            x, y = a + t * (b - a)
            cell = (math.floor(x + 0.5), math.floor(y + 0.5))
            assert not rules.blocked(cell), (a, b, t, cell)
            for ox, oy in obstacles:
                assert (x - ox) ** 2 + (y - oy) ** 2 > radius_cells ** 2, (a, b, t, (ox, oy))


@given(random_grids(max_side=12), st.sampled_from(("uniform", "inflation")),
       st.sampled_from((4, 8)), st.sampled_from(("shortcut", "gradient")))
@settings(max_examples=200, deadline=None)
def test_smoothed_paths_are_clear_keep_their_ends_and_are_never_longer(case, model,
                                                                       connectivity, smoothing):
    values, threshold, allow_unknown, radius, start, goal = case
    _, rules = build(values, threshold, allow_unknown, radius)
    if rules.blocked(start) or rules.blocked(goal) or goal not in rules.bfs_distances(start):
        return
    grid = PlanningGrid(
        OccupancyMap.from_rows(values, top_row_first=False), occupied_threshold=threshold,
        allow_unknown=allow_unknown, robot_radius=radius, cost_model=model,
        inflation_radius=radius + 2.0, cost_scaling_factor=1.0,
    )
    raw = plan(grid, start, goal, "astar", connectivity=connectivity)
    smoothed = plan(grid, start, goal, "astar", connectivity=connectivity, smoothing=smoothing)
    points = smoothed.points
    np.testing.assert_array_equal(points[0], raw.points[0])
    np.testing.assert_array_equal(points[-1], raw.points[-1])
    assert smoothed.length_m <= raw.length_m + 1e-9
    assert_clear(points, rules, radius)
    spacing = np.hypot(*np.diff(points, axis=0).T)
    assert (spacing <= 1.0 + 1e-9).all()
    assert (spacing > 1e-6).all()  # no pose twice: its heading would be undefined
    assert len(smoothed.poses) == len(points)


@pytest.mark.parametrize(("start", "goal"), [((1, 3), (5, 3)), ((5, 3), (1, 3)), ((3, 1), (3, 5))])
def test_a_gradient_path_round_a_pillar_has_no_pose_twice(start, goal):
    # The smoothed points on a station up to rounding were kept beside its sample: two poses
    # 3e-13 m apart, the first facing nowhere.
    values = np.zeros((7, 7), dtype=np.int8)
    values[3, 3] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values, resolution=0.05), robot_radius=0.05)
    points = plan(grid, start, goal, "astar", smoothing="gradient").points
    assert np.hypot(*np.diff(points, axis=0).T).min() > 1e-6


def _scattered_gradient(**settings):
    # Scattered obstacles under a wide inflation field: the cost-aware path weaves between them.
    rng = np.random.default_rng(2)
    values = np.where(rng.random((40, 40)) < 0.03, 100, 0).astype(np.int8)
    values[:3, :3] = values[-3:, -3:] = 0
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False), robot_radius=0.5,
                        cost_model="inflation", inflation_radius=4.0, cost_scaling_factor=1.0)
    found = plan(grid, (0, 0), (39, 39), "astar", connectivity=8, smoothing="gradient",
                 smoother=SmootherParams(**settings))
    return grid, found.points


def test_refinement_smooths_a_settled_run_again_and_turns_less():
    # Smac's refinement (on, 2 runs, by default) anchors each run to the last run's result.
    _, off = _scattered_gradient(do_refinement=False)
    _, none = _scattered_gradient(refinement_num=0)
    grid, refined = _scattered_gradient()
    np.testing.assert_array_equal(none, off)
    assert total_heading_change(refined) < 0.8 * total_heading_change(off)
    assert path_quality(grid, refined).min_clearance_m > 0.5 * grid.resolution
    np.testing.assert_array_equal(refined[[0, -1]], off[[0, -1]])


def test_a_run_stopped_by_max_iterations_is_not_refined():
    _, unsettled = _scattered_gradient(max_iterations=5)
    _, unrefined = _scattered_gradient(max_iterations=5, do_refinement=False)
    np.testing.assert_array_equal(unsettled, unrefined)
    _, settled = _scattered_gradient(max_iterations=5, tolerance=1e9)
    _, settled_unrefined = _scattered_gradient(max_iterations=5, tolerance=1e9,
                                               do_refinement=False)
    assert not np.array_equal(settled, settled_unrefined)


def test_no_refinement_run_starts_after_the_deadline(monkeypatch):
    monkeypatch.setattr(smoothing_module, "_GRADIENT_CHUNK_MOVES", 1 << 30)  # runs end settled
    grid, _ = _scattered_gradient()
    path = plan(grid, (0, 0), (39, 39), "astar", connectivity=8).indices
    past, future = time.monotonic() - 1.0, time.monotonic() + 60.0
    late = smooth_cells(grid, path, "gradient", SmootherParams(), 1.0, past)
    unrefined = smooth_cells(grid, path, "gradient", SmootherParams(do_refinement=False), 1.0)
    in_time = smooth_cells(grid, path, "gradient", SmootherParams(), 1.0, future)
    np.testing.assert_array_equal(late, unrefined)
    np.testing.assert_array_equal(in_time, smooth_cells(grid, path, "gradient",
                                                        SmootherParams(), 1.0))
    assert not np.array_equal(in_time, unrefined)


def test_a_run_past_the_deadline_keeps_what_its_first_chunk_smoothed(monkeypatch):
    # One sweep a chunk: past the deadline the run ends after its first sweep, unrefined.
    monkeypatch.setattr(smoothing_module, "_GRADIENT_CHUNK_MOVES", 1)
    grid, _ = _scattered_gradient()
    path = plan(grid, (0, 0), (39, 39), "astar", connectivity=8).indices
    late = smooth_cells(grid, path, "gradient", SmootherParams(), 1.0, time.monotonic() - 1.0)
    one_sweep = smooth_cells(grid, path, "gradient",
                             SmootherParams(max_iterations=1, do_refinement=False), 1.0)
    np.testing.assert_array_equal(late, one_sweep)
    assert not np.array_equal(late, smooth_cells(grid, path, "gradient", SmootherParams(), 1.0))


def test_a_cancel_while_smoothing_cancels_the_plan(monkeypatch):
    cancel = threading.Event()
    sweep_chunk = smoothing_module.gradient_kernel

    def cancelled_meanwhile(*args):
        cancel.set()  # as a newer goal would, from another thread
        return sweep_chunk(*args)

    grid, _ = _scattered_gradient()
    monkeypatch.setattr(smoothing_module, "_GRADIENT_CHUNK_MOVES", 1)
    monkeypatch.setattr(smoothing_module, "gradient_kernel", cancelled_meanwhile)
    with pytest.raises(PlannerCancelled, match="was cancelled while smoothing its path"):
        plan(grid, (0, 0), (39, 39), "astar", connectivity=8, smoothing="gradient",
             budget=Budget(cancel=cancel))


def test_a_cancel_after_the_search_leaves_a_shortcut_plan_done(monkeypatch):
    # Only the gradient smoother stops early on a cancel; the shortcut one runs to its end.
    cancel = threading.Event()
    shortcut = smoothing_module.shortcut_kernel

    def cancelled_meanwhile(*args):
        cancel.set()
        return shortcut(*args)

    grid, _ = _scattered_gradient()
    monkeypatch.setattr(smoothing_module, "shortcut_kernel", cancelled_meanwhile)
    found = plan(grid, (0, 0), (39, 39), "astar", connectivity=8, smoothing="shortcut",
                 budget=Budget(cancel=cancel))
    assert cancel.is_set() and found.length_m > 0


def test_a_shortcut_across_open_space_is_one_straight_segment():
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((30, 40), dtype=np.int8)))
    straight = plan(grid, (0, 0), (39, 29), "astar", smoothing="shortcut")
    assert polyline_length(straight.points) == pytest.approx(math.hypot(39, 29))
    assert total_heading_change(straight.points) == pytest.approx(0.0, abs=1e-9)


def test_the_part_inside_the_band_around_an_inflated_start_is_kept_as_searched():
    values = np.zeros((9, 12), dtype=np.int8)
    values[4, 0] = 100  # an obstacle at (0, 4); the start (1, 4) lies within the radius
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False), robot_radius=2.0)
    raw = plan(grid, (1, 4), (11, 0), "astar", connectivity=8)
    smoothed = plan(grid, (1, 4), (11, 0), "astar", connectivity=8, smoothing="shortcut")
    in_band = int(np.argmax(grid.free_mask[raw.indices]))
    assert in_band >= 1
    np.testing.assert_array_equal(smoothed.points[: in_band + 1], raw.points[: in_band + 1])


def test_the_shortcut_never_pays_more_cost_to_go_straight():
    # A costly band across the middle: the searched path crosses it where it is cheapest and
    # the shortcut must not cut diagonally through the expensive part.
    values = np.zeros((20, 20), dtype=np.int8)
    values[:, 10] = 90
    values[3, 10] = 1
    occupancy = OccupancyMap.from_rows(values, top_row_first=False)
    grid = PlanningGrid(occupancy, cost_model="costmap")
    for smoothing in ("none", "shortcut"):
        found = plan(grid, (0, 6), (19, 6), "astar", connectivity=8, smoothing=smoothing,
                     cost_travel_multiplier=10.0)
        crossing = found.points[np.argmin(np.abs(found.points[:, 0] - 10.0))]
        assert crossing[1] == pytest.approx(3.0), smoothing


def test_smoother_settings_are_checked():
    with pytest.raises(ValueError, match=r"smoother\.w_smooth"):
        SmootherParams(w_smooth=-0.1)
    with pytest.raises(ValueError, match=r"smoother\.max_iterations"):
        SmootherParams(max_iterations=1.5)
    for bad in (-1, 2.5, math.inf, None, True, MAX_REFINEMENTS + 1, 2**63 - 1):
        with pytest.raises(ValueError, match=r"smoother\.refinement_num must be an integer in "
                                             r"\[0, 200\]"):
            SmootherParams(refinement_num=bad)
    with pytest.raises(ValueError, match=r"smoother\.max_iterations must be an integer in "
                                         r"\[0, 100,000\], got 100001"):
        SmootherParams(max_iterations=MAX_SMOOTHER_ITERATIONS + 1)
    SmootherParams(max_iterations=MAX_SMOOTHER_ITERATIONS, refinement_num=MAX_REFINEMENTS)
    with pytest.raises(ValueError, match=r"smoother\.do_refinement must be true or false"):
        SmootherParams(do_refinement="yes")
    grid = PlanningGrid(OccupancyMap.from_rows([[0, 0, 0]]))
    with pytest.raises(ValueError, match="smoothing must be one of none, shortcut, gradient"):
        plan(grid, (0, 0), (2, 0), smoothing="spline")


def test_weights_so_large_that_moves_overflow_leave_finite_clear_poses():
    # w_smooth 1e308 made every move infinite: the poses became non-finite and the run never
    # settled, so a plan with a huge max_planning_time never returned.
    grid, _ = _scattered_gradient()
    path = plan(grid, (0, 0), (39, 39), "astar", connectivity=8).indices
    points = smooth_cells(grid, path, "gradient", SmootherParams(w_smooth=1e308), 1.0)
    assert np.isfinite(points).all()
    assert path_quality(grid, points).min_clearance_m > 0.5 * grid.resolution
    np.testing.assert_array_equal(points[[0, -1]], smooth_cells(grid, path, "none",
                                                                SmootherParams(), 1.0)[[0, -1]])


@pytest.mark.parametrize("end", [(1e308, 1.0), (1.0, -1e308), (math.nan, 1.0), (math.inf, 1.0),
                                 (9.5, 1.0), (-0.5 - 1e-9, 1.0)])
def test_a_segment_with_an_end_off_the_map_is_not_clear(end):
    # (0, 0) -> (1e308, 1) walked no cell (its end's cell number overflowed) and was clear.
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((3, 10), dtype=np.int8)))
    masks = grid.sweep_masks
    shape = (grid.width, grid.height, masks.free, masks.safe, masks.obstacle, masks.limit2,
             masks.reach)
    unit, no_raw = np.ones(1), np.zeros(1, dtype=np.uint8)
    assert segment_walk(1.0, 1.0, 9.5 - 1e-9, 1.0, *shape, no_raw, unit)[0]
    assert not segment_walk(1.0, 1.0, *end, *shape, no_raw, unit)[0]
    assert not segment_walk(*end, 1.0, 1.0, *shape, no_raw, unit)[0]


def test_a_refinement_run_that_changes_nothing_ends_the_refinement(monkeypatch):
    runs = []
    original = smoothing_module._gradient_run

    def counted(*args):
        runs.append(1)
        return original(*args)

    monkeypatch.setattr(smoothing_module, "_gradient_run", counted)
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((3, 30), dtype=np.int8)))
    straight = plan(grid, (0, 1), (29, 1)).indices  # nothing to smooth: a fixed point at once
    smooth_cells(grid, straight, "gradient", SmootherParams(refinement_num=MAX_REFINEMENTS), 1.0)
    assert len(runs) == 2  # the first run, and one refinement that changed nothing


def test_zero_iterations_leave_the_gradient_path_as_searched():
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((10, 10), dtype=np.int8)))
    raw = plan(grid, (0, 0), (9, 9), connectivity=8)
    kept = plan(grid, (0, 0), (9, 9), connectivity=8, smoothing="gradient",
                smoother=SmootherParams(max_iterations=0))
    assert kept.length_m == pytest.approx(raw.length_m)


@pytest.mark.parametrize("scale", [1.0, 0.05, 1e-320, 1e-160, 1e160, 1e300])
def test_segment_lengths_equal_hypot_at_every_scale(scale) -> None:
    """The fast square root agrees with `math.hypot` to an ulp; where a square leaves the
    float range (lengths of 1e300 or 1e-320, a repeated point) the value is hypot's own.
    Steps: grid steps (straight, diagonal, none) and random ones."""
    rng = np.random.default_rng(7)
    steps = np.vstack((rng.integers(-1, 2, size=(200, 2)), rng.uniform(-3.0, 3.0, (200, 2))))
    points = np.cumsum(np.vstack(([0.0, 0.0], steps)), axis=0) * scale
    expected = [math.hypot(*(b - a)) for a, b in itertools.pairwise(points)]
    lengths = segment_lengths(points)
    assert np.all(np.isfinite(lengths))
    assert lengths == pytest.approx(expected, rel=2.3e-16, abs=0.0)
    assert polyline_length(points) == pytest.approx(math.fsum(expected), rel=1e-12)
