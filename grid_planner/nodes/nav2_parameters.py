"""Nav2's planner_server parameters on planner_node: the server keys and the planner blocks.

A Nav2 parameter file keys its `planner_server:` block by node name, so it reaches planner_node
when the node runs as `planner_server`. `planner_plugins` names the planner ids a goal's
`planner_id` may pick; each id has a block (`GridBased.plugin`, `GridBased.tolerance`, ...).
A block key sets one of the node's flat parameters for the goals of that planner (`BLOCK_KEYS`;
`tolerance` is `goal_tolerance`, NavFn's `use_astar` chooses `algorithm`), and the plugin type
(`PLUGINS`) gives the keys a block leaves out Nav2's defaults for that plugin. Our own plugin
gives none: its planner follows the flat parameters. The node's own flat parameters stay the
settings of its services and `goal_pose`.

Each key that applies is declared as the parameter `<id>.<key>` at configure (Nav2's plugins do
the same), validated by the rule of the flat parameter it sets, and read at every plan, so a
runtime `ros2 param set` takes effect on the next goal. Keys Nav2's plugins know but we do not
act on are accepted quietly; every other key of the node's parameter file is named once in a
WARN. Adding a flat parameter to the blocks is one `BLOCK_KEYS` entry; an entry whose flat
parameter the node does not declare is accepted quietly and skipped (DEBUG).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter

from grid_planner.nodes.parameters import Rule, at_least, in_range

OUR_PLUGIN = "grid_planner::GridPlanner"
DEFAULT_PLANNER_IDS = ["GridBased"]


def planner_ids(value: object) -> str | None:
    """Accept a non-empty list of distinct, non-empty planner ids without dots."""
    ids = list(value)
    if not ids or any(not isinstance(i, str) or not i or "." in i for i in ids):
        return "must list at least one planner id, each non-empty and without '.'"
    return None if len(set(ids)) == len(ids) else "must not name a planner id twice"


SERVER_PARAMETERS: dict[str, tuple[object, str, Rule | None]] = {
    "planner_plugins": (DEFAULT_PLANNER_IDS, "planner ids an action's planner_id may name "
                        "(read at configure, with each id's block <id>.*)", planner_ids),
    "expected_planner_frequency": (1.0, "Hz; an action plan slower than its period logs a WARN "
                                   "(<= 0 or infinite: no warning)", None),
    "costmap_update_timeout": (1.0, "s an action waits for a first map before it fails with "
                               "TIMEOUT", at_least(0.0)),
    # The action server holds it in int64 nanoseconds: past about 292 years it overflows.
    "action_server_result_timeout": (10.0, "s the actions keep a finished goal's result (read "
                                     "at configure)", in_range(0.0, 1e9)),
}


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

SMAC_SEARCH_KEYS = frozenset({
    "downsample_costmap", "downsampling_factor", "max_iterations", "max_on_approach_iterations",
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
    """A planner plugin Nav2 users name: its defaults for block keys, and keys taken quietly."""

    defaults: Mapping[str, object] = field(default_factory=dict)
    quiet: frozenset[str] = frozenset()


NAVFN = PluginType({"tolerance": 0.5, "use_astar": False, "allow_unknown": True,
                    "use_final_approach_orientation": False})
SMAC_2D = PluginType(
    {"tolerance": 0.125, "allow_unknown": True, "max_planning_time": 2.0,
     "use_final_approach_orientation": False, "connectivity": 8, "cost_travel_multiplier": 1.0,
     "smoother.tolerance": 1e-10, "smoother.max_iterations": 1000, "smoother.w_data": 0.2,
     "smoother.w_smooth": 0.3, "smoother.do_refinement": True, "smoother.refinement_num": 2},
    SMAC_SEARCH_KEYS,
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
    ),
    "nav2_smac_planner::SmacPlannerLattice": PluginType(
        {"tolerance": 0.25, "allow_unknown": True, "max_planning_time": 5.0},
        SMAC_STATE_LATTICE_KEYS | {"lattice_filepath", "allow_reverse_expansion",
                                   "rotation_penalty"},
    ),
}
# Keys of planner_server (and of every node) that are never unknown.
QUIET_SERVER_KEYS = frozenset({"use_sim_time", "start_type_description_service"})


class UnknownPlannerError(ValueError):
    """A goal names a planner id that `planner_plugins` does not configure."""


@dataclass(frozen=True)
class Planner:
    """One configured planner id: its plugin, its declared block keys, which came from the file."""

    id: str
    plugin: str
    keys: tuple[str, ...]
    explicit: frozenset[str]


class PlannerTable:
    """The planners `planner_plugins` configured: a goal's planner id -> the flat values it sets."""

    def __init__(self, node: Node, planners: list[Planner]) -> None:
        self._node = node
        self.planners = {planner.id: planner for planner in planners}
        self._warned_empty_id = False

    @property
    def default(self) -> Planner:
        """The first configured planner (is_path_valid checks with its settings)."""
        return next(iter(self.planners.values()))

    def resolve(self, planner_id: str) -> Planner:
        """The planner a goal's `planner_id` names; empty only when exactly one is configured."""
        planner = self.planners.get(planner_id)
        if planner is not None:
            return planner
        ids = ", ".join(self.planners)
        if planner_id == "" and len(self.planners) == 1:
            if not self._warned_empty_id:
                self._warned_empty_id = True
                self._node.get_logger().warning(
                    f"no planner_id in the goal: using the only planner configured, {ids} "
                    "(said once)"
                )
            return self.default
        raise UnknownPlannerError(f"planner_id {planner_id!r} is not a configured planner "
                                  f"(planner_plugins: {ids})")

    def values(self, planner: Planner) -> dict[str, object]:
        """flat parameter -> value for a goal of `planner`: block values and plugin defaults.

        Where two keys set one flat parameter, a key from the file beats a plugin default, and
        our own key (named like the flat parameter, e.g. `algorithm`) beats a Nav2 one
        (`use_astar`).
        """
        ranked = sorted(planner.keys,
                        key=lambda k: (k in planner.explicit, k == BLOCK_KEYS[k].flat))
        found = {}
        for key in ranked:
            entry = BLOCK_KEYS[key]
            found[entry.flat] = entry.convert(self._node.get_parameter(f"{planner.id}.{key}").value)
        return found


def parameter_overrides(node: Node) -> dict[str, Parameter]:
    """The values the node's parameter files and `-p` arguments give it, declared or not.

    rclpy keeps them in `Node._parameter_overrides` (the same since Foxy) and offers no public
    accessor; they are what the unknown-key check and the block declarations read.
    """
    return dict(getattr(node, "_parameter_overrides", {}))


def block_rule(rules: Mapping[str, Rule]) -> Callable[[list[Parameter]], SetParametersResult]:
    """An on-set-parameters callback checking `<id>.<key>` values by their flat parameter's rule."""

    def validate(changes: list[Parameter]) -> SetParametersResult:
        for change in changes:
            _id, dot, key = change.name.partition(".")
            entry = BLOCK_KEYS.get(key) if dot else None
            rule = rules.get(entry.flat) if entry is not None else None
            reason = rule(entry.convert(change.value)) if rule is not None else None
            if reason is not None:
                return SetParametersResult(
                    successful=False, reason=f"{change.name}={change.value!r} refused: {reason}"
                )
        return SetParametersResult(successful=True)

    return validate


def _as_flat_type(node: Node, value: object, flat: str) -> object:
    """`value` from the file, an int made a double where the flat parameter is a double."""
    double = node.get_parameter(flat).type_ == Parameter.Type.DOUBLE
    if double and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _refuse_bad_value(node: Node, name: str, entry: BlockKey, rule: Rule | None,
                      value: object) -> None:
    """Raise ValueError naming `name` when `value` breaks the flat parameter's rule or type."""
    reason = rule(entry.convert(value)) if rule is not None else None
    if reason is None:
        reason = _type_mismatch(node, entry, value)
    if reason is not None:
        raise ValueError(f"parameter {name}={value!r} {reason}")


def _type_mismatch(node: Node, entry: BlockKey, value: object) -> str | None:
    """Why a block value cannot set its flat parameter's type, if it cannot: a block key takes
    its type from the file, so `max_iterations: 2.5` or `do_refinement: 1` would otherwise
    reach the planner and fail every goal."""
    if entry.kind is not None:
        wanted, given, why = entry.kind, Parameter.Type.from_parameter_value(value), ""
    else:
        wanted = node.get_parameter(entry.flat).type_
        given = Parameter.Type.from_parameter_value(entry.convert(value))
        why = f", as {entry.flat} is"
    if given == wanted:
        return None
    return f"must be {_TYPE_WORDS.get(wanted, wanted.name.lower())}{why}"


_TYPE_WORDS = {Parameter.Type.BOOL: "true or false", Parameter.Type.INTEGER: "an integer",
               Parameter.Type.DOUBLE: "a number", Parameter.Type.STRING: "a string"}


def configure_planners(node: Node, rules: Mapping[str, Rule]) -> PlannerTable:
    """Read `planner_plugins` and each id's block; declare the block keys that apply.

    A value that breaks its flat parameter's rule raises ValueError (configure fails).
    """
    overrides = parameter_overrides(node)
    planners = []
    for planner_id in node.get_parameter("planner_plugins").value:
        plugin_name = f"{planner_id}.plugin"
        if not node.has_parameter(plugin_name):
            node.declare_parameter(plugin_name, OUR_PLUGIN, ParameterDescriptor(
                description="plugin type: chooses the defaults of the keys the block leaves out"
            ))
        plugin = node.get_parameter(plugin_name).value
        if plugin not in PLUGINS:
            node.get_logger().warning(
                f"{plugin_name} '{plugin}' is not a planner known here: planner {planner_id} "
                f"follows grid_planner's flat parameters (known: {', '.join(PLUGINS)})"
            )
        kind = PLUGINS.get(plugin, PLUGINS[OUR_PLUGIN])
        keys, explicit = [], set()
        for key, entry in BLOCK_KEYS.items():
            name = f"{planner_id}.{key}"
            given = name in overrides
            if not (given or key in kind.defaults or node.has_parameter(name)):
                continue
            if not node.has_parameter(entry.flat):
                node.get_logger().debug(f"{name} accepted: no {entry.flat} parameter here")
                continue
            rule = rules.get(entry.flat)
            if not node.has_parameter(name):
                value = _as_flat_type(
                    node, overrides[name].value if given else kind.defaults[key], entry.flat
                )
                # Checked before the declaration, whose own check would raise rclpy's
                # exception instead of this reason.
                _refuse_bad_value(node, name, entry, rule, value)
                node.declare_parameter(name, value, ParameterDescriptor(
                    description=f"sets {entry.flat} for this planner's goals"
                ), ignore_override=True)
            else:  # declared by an earlier configure, maybe set since
                _refuse_bad_value(node, name, entry, rule, node.get_parameter(name).value)
            keys.append(key)
            if given:
                explicit.add(key)
        planners.append(Planner(planner_id, plugin, tuple(keys), frozenset(explicit)))
    table = PlannerTable(node, planners)
    for planner in planners:
        values = table.values(planner)
        settings = ", ".join(f"{name} {value}" for name, value in sorted(values.items()))
        node.get_logger().info(
            f"planner {planner.id} ({planner.plugin}): {settings or 'no block settings'}; "
            "the rest follows the flat parameters"
        )
    return table


def warn_unknown_keys(node: Node, table: PlannerTable, warned: set[str]) -> None:
    """One WARN naming the parameter-file keys nobody knows (each named once per process)."""
    unknown = [key for key in unknown_keys(node, table) if key not in warned]
    if unknown:
        warned.update(unknown)
        node.get_logger().warning(
            f"unknown parameters ignored: {', '.join(unknown)} (not keys of this node, of "
            f"planner_server or of the blocks of the planners {', '.join(table.planners)})"
        )


def unknown_keys(node: Node, table: PlannerTable) -> list[str]:
    """The parameter-file keys of this node that neither it nor a configured planner knows."""
    unknown = []
    for name in parameter_overrides(node):
        if node.has_parameter(name) or name in QUIET_SERVER_KEYS:
            continue
        if name.startswith("qos_overrides."):
            continue
        planner_id, _, key = name.partition(".")
        planner = table.planners.get(planner_id)
        if planner is not None:
            kind = PLUGINS.get(planner.plugin, PLUGINS[OUR_PLUGIN])
            if key in BLOCK_KEYS or key in kind.quiet:
                continue
        unknown.append(name)
    return sorted(unknown)
