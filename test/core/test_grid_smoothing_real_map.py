"""Smoothing on a real map, the TurtleBot3 world with a Nav2-like profile.

Outcome checks, run compiled only: as plain Python they take most of a minute, and the
kernels' plain-Python paths are covered on small maps by test_grid_smoothing.
"""

from __future__ import annotations

from shared_data import shared_path

from grid_planner.grid import PlanningGrid, load_map, plan
from grid_planner.grid.path_quality import path_quality, total_heading_change


def test_a_smoothed_path_turns_far_less_than_a_staircase():
    # On a cost field a 4-connected path zig-zags between cells of equal cost.
    grid = PlanningGrid(load_map(shared_path("maps", "turtlebot3_world.yaml")), robot_radius=0.22,
                        cost_model="inflation", inflation_radius=0.55, cost_scaling_factor=3.0)
    staircase = plan(grid, (167, 165), (234, 233), "astar")
    for smoothing in ("shortcut", "gradient"):
        smoothed = plan(grid, (167, 165), (234, 233), "astar", smoothing=smoothing)
        assert total_heading_change(smoothed.points) < total_heading_change(staircase.points) / 3
        assert smoothed.length_m < staircase.length_m


def test_cost_aware_paths_keep_clearly_further_from_walls_than_hard_inflation_alone():
    # Same map, goals, robot radius (so the same hard inflation), both 8-connected and
    # smoothed: only the inflation cost field differs.
    occupancy = load_map(shared_path("maps", "turtlebot3_world.yaml"))
    means = {}
    for model in ("uniform", "inflation"):
        grid = PlanningGrid(occupancy, robot_radius=0.22, cost_model=model,
                            inflation_radius=0.55, cost_scaling_factor=3.0)
        found = plan(grid, (167, 165), (234, 233), "astar", connectivity=8,
                     smoothing="shortcut")
        quality = path_quality(grid, found.points)
        assert quality.min_clearance_m > 0.22
        means[model] = quality.mean_clearance_m
    assert means["inflation"] > 1.25 * means["uniform"], means
