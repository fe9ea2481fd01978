"""planner_node's parameters: defaults, descriptions and the rules a value must meet."""

from __future__ import annotations

from collections.abc import Callable

from grid_planner.grid.cell_graph import CONNECTIVITIES
from grid_planner.grid.costs import (
    COST_MODELS,
    DEFAULT_COST_MODEL,
    DEFAULT_COST_SCALING_FACTOR,
    DEFAULT_COST_TRAVEL_MULTIPLIER,
    DEFAULT_INFLATION_RADIUS,
    MAX_COST_TRAVEL_MULTIPLIER,
)
from grid_planner.grid.dispatch import DEFAULT_ALGORITHM
from grid_planner.grid.planner import DEFAULT_PLAN_TIMEOUT
from grid_planner.grid.planning_grid import DEFAULT_OCCUPIED_THRESHOLD, occupied_threshold_refusal
from grid_planner.grid.smoothing import (
    DEFAULT_SMOOTHING,
    MAX_REFINEMENTS,
    MAX_SMOOTHER_ITERATIONS,
    SMOOTHINGS,
    SmootherParams,
)
from grid_planner.nodes.nav2_plugins import DEFAULT_MAX_MAP_CELLS
from grid_planner.nodes.parameters import (
    Rule,
    at_least,
    frame_name,
    in_range,
    non_empty,
    off_or_in_range,
    one_of,
)
from grid_planner.nodes.replanning import (
    DEFAULT_REPLAN_POLICY,
    MAX_REPLAN_PERIOD,
    MIN_REPLAN_PERIOD,
    REPLAN_POLICIES,
)
from grid_planner.search.registry import GRID, domain_algorithms

GRID_ALGORITHMS = domain_algorithms(GRID)
SMOOTHER_DEFAULTS = SmootherParams()
MAX_ROBOT_RADIUS_M = 100.0  # a typo guard; max_inflation_cells is the bound that matters
# Fixed at start-up: the subscription QoS, the TF listener and the executor threads follow them.
READ_ONLY = frozenset(
    {"start_pose_transient_local", "use_tf", "max_concurrent_plans", "max_queued_plans"}
)


def planner_parameters() -> dict[str, tuple[object, str, Rule | None]]:
    """`name -> (default, description, rule)`; the rules judge one value each (the node judges
    the radii against the map in use and max_inflation_cells on the whole change)."""
    radius_range = in_range(0.0, MAX_ROBOT_RADIUS_M)
    return {
        "algorithm": (DEFAULT_ALGORITHM, f"search algorithm: {', '.join(GRID_ALGORITHMS)}",
                      one_of(GRID_ALGORITHMS)),
        "occupied_threshold": (DEFAULT_OCCUPIED_THRESHOLD, "a cell with value >= this is lethal "
                               "(1..100), as is a value outside -1..100",
                               occupied_threshold_refusal),
        "allow_unknown": (False, "false: unknown (-1) cells are lethal", None),
        "robot_radius": (0.0, "m (0..100); cells within this of a lethal cell are inflated; "
                         "robot_radius / map resolution at most max_inflation_cells",
                         radius_range),
        "goal_tolerance": (0.0, "m; a blocked goal may move this far in x and y", at_least(0.0)),
        "max_planning_time": (DEFAULT_PLAN_TIMEOUT, "s (steady clock) a plan may take",
                              at_least(0.001)),
        "use_final_approach_orientation": (
            False, "last pose faces along the last step instead of the goal's yaw", None),
        "publish_expanded": (False, "publish the expanded cells on expanded_cells", None),
        "global_frame": ("map", "frame of maps, poses and paths (no leading /, as in tf2)",
                         frame_name),
        "start_pose_transient_local": (
            True, "amcl_pose durability: transient_local (AMCL) or volatile", None),
        "use_tf": (True, "take the start from TF where tf2_ros is installed", None),
        "robot_base_frame": ("base_link", "robot frame looked up in TF", frame_name),
        "transform_tolerance": (0.3, "s to wait for a TF transform", at_least(0.0)),
        "max_concurrent_plans": (2, "service plans that run at once", at_least(1)),
        "max_queued_plans": (16, "service requests that wait for a running slot; further ones "
                             "are answered BUSY at once", at_least(0)),
        "max_map_cells": (DEFAULT_MAX_MAP_CELLS, "largest map accepted (width x height cells)",
                          at_least(1)),
        "max_inflation_cells": (100, "robot_radius / map resolution (and inflation_radius / "
                                "resolution under cost_model inflation) may be at most this",
                                at_least(0)),
        "max_path_poses": (200_000, "longest path sent; longer ones fail NO_VALID_PATH",
                           at_least(1)),
        "max_nodes": (2_000_000, "nodes one plan may expand (bounds a search's memory)",
                      at_least(1)),
        "cost_model": (DEFAULT_COST_MODEL, "uniform (blocked or free), inflation (our own "
                       "inflation layer's costs) or costmap (the map is a Nav2 costmap)",
                       one_of(COST_MODELS)),
        "connectivity": (4, "4 or 8 neighbours; diagonals never cut a corner",
                         lambda v: None if v in CONNECTIVITIES else "must be 4 or 8"),
        "inflation_radius": (DEFAULT_INFLATION_RADIUS, "m; cost_model inflation: how far "
                             "costs reach from obstacles",
                             radius_range),
        "cost_scaling_factor": (DEFAULT_COST_SCALING_FACTOR, "cost_model inflation: how fast "
                                "costs fall with distance (Nav2's exponential)", at_least(0.0)),
        "cost_travel_multiplier": (DEFAULT_COST_TRAVEL_MULTIPLIER, "a step onto a cell of cost "
                                   "c costs step * (1 + this * c / 252); 0: shortest path",
                                   in_range(0.0, MAX_COST_TRAVEL_MULTIPLIER)),
        "replan_on_map_update": (DEFAULT_REPLAN_POLICY, "after a full map or a patch, replan "
                                 "the goal_pose goal: always, when_blocked (a pose of its path "
                                 "newly blocked, the start off the path, the map's geometry "
                                 "changed or no path yet) or never",
                                 one_of(REPLAN_POLICIES)),
        "replan_period": (0.0, "s; replan the goal_pose goal from the latest start this often "
                          f"(0: off; else {MIN_REPLAN_PERIOD:g} to {MAX_REPLAN_PERIOD:g})",
                          off_or_in_range(MIN_REPLAN_PERIOD, MAX_REPLAN_PERIOD)),
        "smoothing": (DEFAULT_SMOOTHING, "none, shortcut or gradient", one_of(SMOOTHINGS)),
        "smoother.w_smooth": (SMOOTHER_DEFAULTS.w_smooth, "gradient smoother: pull towards "
                              "the neighbours' midpoint", at_least(0.0)),
        "smoother.w_data": (SMOOTHER_DEFAULTS.w_data, "gradient smoother: pull towards the "
                            "searched path", at_least(0.0)),
        "smoother.tolerance": (SMOOTHER_DEFAULTS.tolerance, "gradient smoother: stop when a "
                               "sweep moves the poses less than this (cells)", at_least(0.0)),
        "smoother.max_iterations": (SMOOTHER_DEFAULTS.max_iterations, "gradient smoother: "
                                    f"most sweeps (0 to {MAX_SMOOTHER_ITERATIONS:,})",
                                    in_range(0, MAX_SMOOTHER_ITERATIONS)),
        "smoother.do_refinement": (SMOOTHER_DEFAULTS.do_refinement, "gradient smoother: "
                                   "smooth a settled run's result again (Smac's refinement)",
                                   None),
        "smoother.refinement_num": (SMOOTHER_DEFAULTS.refinement_num, "gradient smoother: "
                                    f"most runs of refinement (0 to {MAX_REFINEMENTS})",
                                    in_range(0, MAX_REFINEMENTS)),
    }


def path_options(param: Callable[[str], object]) -> dict[str, object]:
    """The keyword options of `plan_world` that shape a path, read through `param(name)`."""
    return {
        "connectivity": param("connectivity"),
        "cost_travel_multiplier": param("cost_travel_multiplier"),
        "smoothing": param("smoothing"),
        "smoother": SmootherParams(
            w_smooth=param("smoother.w_smooth"), w_data=param("smoother.w_data"),
            tolerance=param("smoother.tolerance"),
            max_iterations=param("smoother.max_iterations"),
            do_refinement=param("smoother.do_refinement"),
            refinement_num=param("smoother.refinement_num"),
        ),
    }


# --- inputs a Nav2 stack switches -------------------------------------------------------------
# Fixed at start-up like the QoS above: the subscriptions are made once per configure.
INPUT_READ_ONLY = frozenset({"map_topic", "subscribe_goal_pose", "subscribe_initialpose"})


def input_parameters() -> dict[str, tuple[object, str, Rule | None]]:
    """The map topic and the two command subscriptions a Nav2 stack turns off."""
    return {
        "map_topic": ("map", "map topic to plan on: nav_msgs/OccupancyGrid, or "
                      "nav2_msgs/Costmap when its publishers use that type (map, Nav2's "
                      "global_costmap/costmap or costmap_raw)", non_empty),
        "subscribe_goal_pose": (True, "plan goals from goal_pose (false inside Nav2, where "
                                "bt_navigator sends the goals)", None),
        "subscribe_initialpose": (True, "take the start from initialpose (false inside Nav2, "
                                  "where TF or amcl_pose give it)", None),
    }
