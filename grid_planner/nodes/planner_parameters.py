"""planner_node's parameters: defaults, descriptions and the rules a value must meet."""

from __future__ import annotations

from grid_planner.nodes.parameters import Rule, at_least, in_range, non_empty, one_of
from grid_planner.search.registry import GRID, domain_algorithms

GRID_ALGORITHMS = domain_algorithms(GRID)
MAX_ROBOT_RADIUS_M = 100.0  # a typo guard; max_inflation_cells is the bound that matters
# Fixed at start-up: the subscription QoS, the TF listener and the executor threads follow them.
READ_ONLY = frozenset(
    {"start_pose_transient_local", "use_tf", "max_concurrent_plans", "max_queued_plans"}
)


def planner_parameters(radius_fits_map: Rule) -> dict[str, tuple[object, str, Rule | None]]:
    """`name -> (default, description, rule)`; `radius_fits_map` checks robot_radius against
    the map in use (max_inflation_cells)."""
    radius_range = in_range(0.0, MAX_ROBOT_RADIUS_M)
    return {
        "algorithm": ("astar", f"search algorithm: {', '.join(GRID_ALGORITHMS)}",
                      one_of(GRID_ALGORITHMS)),
        "occupied_threshold": (65, "a cell with value >= this is lethal (1..100)",
                               lambda v: None if 1 <= v <= 100 else "must be in 1..100"),
        "allow_unknown": (False, "false: unknown (-1) cells are lethal", None),
        "robot_radius": (0.0, "m; cells within this of a lethal cell are inflated",
                         lambda v: radius_range(v) or radius_fits_map(v)),
        "goal_tolerance": (0.0, "m; a blocked goal may move this far in x and y", at_least(0.0)),
        "max_planning_time": (5.0, "s (steady clock) a plan may take", at_least(0.001)),
        "use_final_approach_orientation": (
            False, "last pose faces along the last step instead of the goal's yaw", None),
        "publish_expanded": (False, "publish the expanded cells on expanded_cells", None),
        "global_frame": ("map", "frame of maps, poses and paths", non_empty),
        "start_pose_transient_local": (
            True, "amcl_pose durability: transient_local (AMCL) or volatile", None),
        "use_tf": (True, "take the start from TF where tf2_ros is installed", None),
        "robot_base_frame": ("base_link", "robot frame looked up in TF", non_empty),
        "transform_tolerance": (0.3, "s to wait for a TF transform", at_least(0.0)),
        "max_concurrent_plans": (2, "service plans that run at once", at_least(1)),
        "max_queued_plans": (16, "service requests that wait for a running slot; further ones "
                             "are answered BUSY at once", at_least(0)),
        "max_map_cells": (4096 * 4096, "largest map accepted (width x height cells)",
                          at_least(1)),
        "max_inflation_cells": (100, "robot_radius / map resolution may be at most this",
                                at_least(0)),
        "max_path_poses": (200_000, "longest path sent; longer ones fail NO_VALID_PATH",
                           at_least(1)),
        "max_nodes": (2_000_000, "nodes one plan may expand (bounds a search's memory)",
                      at_least(1)),
    }
