"""What a Nav2 planner block can say: its keys (each sets one of planner_node's flat
parameters) and the plugin types users name, with the defaults each gives the keys a block
leaves out and the keys it takes quietly."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rclpy.parameter import Parameter

OUR_PLUGIN = "grid_planner::GridPlanner"
# The largest map planner_node takes by default (its max_map_cells).
DEFAULT_MAX_MAP_CELLS = 4096 * 4096
# The node budget of a Smac `max_iterations` of 0 or less, which Smac reads as no limit (its
# own stand-in is the largest int).
NO_ITERATION_LIMIT = 2**31 - 1


def _iteration_budget(value: object) -> object:
    """A Smac `max_iterations` as the node budget it sets (other types pass on to be refused)."""
    whole = isinstance(value, int) and not isinstance(value, bool)
    return NO_ITERATION_LIMIT if whole and value <= 0 else value


@dataclass(frozen=True)
class BlockKey:
    """A planner block key: the flat parameter it sets, and how its value becomes that one's.

    `kind` is the type the key itself must have where its conversion would hide it (NavFn's
    `use_astar` is a bool: any string would convert to an algorithm name).
    """

    flat: str
    convert: Callable[[object], object] = lambda value: value
    kind: Parameter.Type | None = None


BLOCK_KEYS: dict[str, BlockKey] = {
    "algorithm": BlockKey("algorithm"),
    "use_astar": BlockKey("algorithm", lambda on: "astar" if on else "dijkstra",
                          Parameter.Type.BOOL),
    "tolerance": BlockKey("goal_tolerance"),
    "allow_unknown": BlockKey("allow_unknown"),
    "max_planning_time": BlockKey("max_planning_time"),
    "use_final_approach_orientation": BlockKey("use_final_approach_orientation"),
    "occupied_threshold": BlockKey("occupied_threshold"),
    "robot_radius": BlockKey("robot_radius"),
    "max_nodes": BlockKey("max_nodes"),
    # The cost-aware planning keys: they apply where the node declares the flat parameter.
    "cost_model": BlockKey("cost_model"),
    "connectivity": BlockKey("connectivity"),
    "inflation_radius": BlockKey("inflation_radius"),
    "cost_scaling_factor": BlockKey("cost_scaling_factor"),
    "cost_travel_multiplier": BlockKey("cost_travel_multiplier"),
    "smoothing": BlockKey("smoothing"),
    "smoother.w_smooth": BlockKey("smoother.w_smooth"),
    "smoother.w_data": BlockKey("smoother.w_data"),
    "smoother.tolerance": BlockKey("smoother.tolerance"),
    "smoother.max_iterations": BlockKey("smoother.max_iterations"),
    "smoother.do_refinement": BlockKey("smoother.do_refinement"),
    "smoother.refinement_num": BlockKey("smoother.refinement_num"),
}

# Smac's expansion budget (a node is counted when it is expanded, as our max_nodes counts): a
# key of the Smac plugins' blocks only.
SMAC_KEYS = {"max_iterations": BlockKey("max_nodes", _iteration_budget, Parameter.Type.INTEGER)}

SMAC_SEARCH_KEYS = frozenset({
    "downsample_costmap", "downsampling_factor", "max_on_approach_iterations",
    "terminal_checking_interval",
})
SMAC_STATE_LATTICE_KEYS = SMAC_SEARCH_KEYS | {
    "tolerance", "allow_unknown", "max_planning_time", "cost_penalty", "change_penalty",
    "non_straight_penalty", "reverse_penalty", "retrospective_penalty", "lookup_table_size",
    "analytic_expansion_ratio", "analytic_expansion_max_length", "analytic_expansion_max_cost",
    "analytic_expansion_max_cost_override", "cache_obstacle_heuristic", "smooth_path",
    "debug_visualizations", "smoother.tolerance", "smoother.max_iterations", "smoother.w_data",
    "smoother.w_smooth", "smoother.do_refinement", "smoother.refinement_num",
}


@dataclass(frozen=True)
class PluginType:
    """A planner plugin Nav2 users name: its defaults for block keys, keys taken quietly, and
    keys of its own beside `BLOCK_KEYS`."""

    defaults: Mapping[str, object] = field(default_factory=dict)
    quiet: frozenset[str] = frozenset()
    own_keys: Mapping[str, BlockKey] = field(default_factory=dict)

    @property
    def block_keys(self) -> dict[str, BlockKey]:
        """Every key a block of this plugin may set."""
        return {**BLOCK_KEYS, **self.own_keys}


# NavFn's search has no node budget (it runs until its potential field reaches the start), so a
# NavFn block may expand every cell of the largest map the node takes by default.
NAVFN = PluginType({"tolerance": 0.5, "use_astar": False, "allow_unknown": True,
                    "use_final_approach_orientation": False,
                    "max_nodes": DEFAULT_MAX_MAP_CELLS})
SMAC_2D = PluginType(
    {"tolerance": 0.125, "allow_unknown": True, "max_planning_time": 2.0,
     "use_final_approach_orientation": False, "connectivity": 8, "cost_travel_multiplier": 1.0,
     "smoothing": "gradient", "smoother.tolerance": 1e-10, "smoother.max_iterations": 1000,
     "smoother.w_data": 0.2, "smoother.w_smooth": 0.3, "smoother.do_refinement": True,
     "smoother.refinement_num": 2, "max_iterations": 1_000_000},
    SMAC_SEARCH_KEYS, SMAC_KEYS,
)
# Jazzy's plugin names; the slash spellings are Humble's and Iron's names of the same plugins.
PLUGINS: dict[str, PluginType] = {
    OUR_PLUGIN: PluginType(),
    "nav2_navfn_planner::NavfnPlanner": NAVFN,
    "nav2_navfn_planner/NavfnPlanner": NAVFN,
    "nav2_smac_planner::SmacPlanner2D": SMAC_2D,
    "nav2_smac_planner/SmacPlanner2D": SMAC_2D,
    "nav2_theta_star_planner::ThetaStarPlanner": PluginType(
        {"allow_unknown": True, "use_final_approach_orientation": False},
        frozenset({"how_many_corners", "w_euc_cost", "w_traversal_cost",
                   "terminal_checking_interval"}),
    ),
    "nav2_smac_planner::SmacPlannerHybrid": PluginType(
        {"tolerance": 0.25, "allow_unknown": True, "max_planning_time": 5.0},
        SMAC_STATE_LATTICE_KEYS | {"motion_model_for_search", "minimum_turning_radius",
                                   "angle_quantization_bins", "use_quadratic_cost_penalty",
                                   "downsample_obstacle_heuristic",
                                   "allow_primitive_interpolation"},
        SMAC_KEYS,
    ),
    "nav2_smac_planner::SmacPlannerLattice": PluginType(
        {"tolerance": 0.25, "allow_unknown": True, "max_planning_time": 5.0},
        SMAC_STATE_LATTICE_KEYS | {"lattice_filepath", "allow_reverse_expansion",
                                   "rotation_penalty"},
        SMAC_KEYS,
    ),
}
# Every key a block of some plugin may set: a plugin change must find the keys of the one before.
ALL_BLOCK_KEYS = {key: entry for kind in PLUGINS.values() for key, entry in kind.block_keys.items()}
# Keys of planner_server (and of every node) that are never unknown.
QUIET_SERVER_KEYS = frozenset({"use_sim_time", "start_type_description_service"})
