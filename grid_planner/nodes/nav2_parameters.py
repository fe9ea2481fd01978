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
from dataclasses import dataclass

from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter

from grid_planner.nodes.nav2_plugins import (
    ALL_BLOCK_KEYS,
    BLOCK_KEYS,
    OUR_PLUGIN,
    PLUGINS,
    QUIET_SERVER_KEYS,
    BlockKey,
)
from grid_planner.nodes.parameters import (
    Rule,
    at_least,
    in_range,
    non_empty,
    parameter_overrides,
    undeclared_overrides,
    warn_unknown,
)

DEFAULT_PLANNER_IDS = ["GridBased"]


def planner_ids(value: object) -> str | None:
    """Accept a non-empty list of distinct, non-empty planner ids without dots, none the
    group name of flat parameters (`smoother`: its block key `tolerance` would be the flat
    `smoother.tolerance`)."""
    ids = list(value)
    if not ids or any(not isinstance(i, str) or not i or "." in i for i in ids):
        return "must list at least one planner id, each non-empty and without '.'"
    taken = sorted(set(ids) & flat_groups())
    if taken:
        return (f"must not use {', '.join(taken)} as a planner id: the node's own "
                f"{taken[0]}.* parameters have that name")
    return None if len(set(ids)) == len(ids) else "must not name a planner id twice"


def flat_groups() -> frozenset[str]:
    """The first parts of the dotted flat parameters a block sets (`smoother`)."""
    return frozenset(entry.flat.partition(".")[0] for entry in BLOCK_KEYS.values()
                     if "." in entry.flat)


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
        keys = ALL_BLOCK_KEYS
        ranked = sorted(planner.keys, key=lambda k: (k in planner.explicit, k == keys[k].flat))
        found = {}
        for key in ranked:
            entry = keys[key]
            found[entry.flat] = entry.convert(self._node.get_parameter(f"{planner.id}.{key}").value)
        return found


def block_rule(rules: Mapping[str, Rule]) -> Callable[[list[Parameter]], SetParametersResult]:
    """An on-set-parameters callback checking `<id>.<key>` values by their flat parameter's rule."""

    def validate(changes: list[Parameter]) -> SetParametersResult:
        for change in changes:
            _id, dot, key = change.name.partition(".")
            entry = ALL_BLOCK_KEYS.get(key) if dot else None
            rule = rules.get(entry.flat) if entry is not None else None
            reason = rule(entry.convert(change.value)) if rule is not None else None
            if dot and key == "plugin":
                reason = plugin_name(change.value)
            if reason is not None:
                return SetParametersResult(
                    successful=False, reason=f"{change.name}={change.value!r} refused: {reason}"
                )
        return SetParametersResult(successful=True)

    return validate


def plugin_name(value: object) -> str | None:
    """Accept a non-empty plugin type name (an unknown one is said at configure)."""
    if non_empty(value) is None:
        return None
    return "must name a plugin type, e.g. " + OUR_PLUGIN


def _as_flat_type(node: Node, value: object, flat: str) -> object:
    """`value` from the file, an int made a double where the flat parameter is a double."""
    double = node.get_parameter(flat).type_ == Parameter.Type.DOUBLE
    if double and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _refuse_bad_value(node: Node, name: str, entry: BlockKey, rule: Rule | None,
                      value: object) -> None:
    """Raise ValueError naming `name` when `value` breaks the flat parameter's rule or type
    (a key's own type first: its conversion may hide it, or judge what it cannot convert)."""
    reason = _type_mismatch(node, entry, value) if entry.kind is not None else None
    if reason is None and rule is not None:
        reason = rule(entry.convert(value))
    if reason is None and entry.kind is None:
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


def configure_planners(
    node: Node, rules: Mapping[str, Rule], defaulted: dict[str, object],
    stand_ins: dict[str, str], *, can_retry: bool = True,
) -> PlannerTable:
    """Read `planner_plugins` and each id's block; declare the block keys that apply.

    A value that breaks its flat parameter's rule raises ValueError (configure fails).
    `defaulted` (kept by the node from one configure to the next) holds the block keys this
    declared with a plugin's default: one still at that value follows the plugin named now
    (its default, or gone where it has none), so a runtime `<id>.plugin` change applies fully
    at the next configure; a key the file gives or someone set keeps its value.
    A refused start-up value (parameters file or `-p`) is replaced by a stand-in
    (`_stand_in`), so the key exists and a valid value can be set before configure is tried
    again; `stand_ins` (kept by the node, emptied of a key when it is set) holds the reason, and
    every configure refuses while the stand-in is there. `can_retry` is False where a failed
    configure ends the process (autostart): the refusal then says nothing of trying again.
    """
    overrides = parameter_overrides(node)
    planners = []
    for planner_id in node.get_parameter("planner_plugins").value:
        plugin_key = f"{planner_id}.plugin"
        declared = node.has_parameter(plugin_key)
        if declared:
            plugin = node.get_parameter(plugin_key).value
        else:  # checked before the declaration, whose own check would raise rclpy's exception
            plugin = overrides[plugin_key].value if plugin_key in overrides else OUR_PLUGIN
        reason = plugin_name(plugin)
        if reason is not None:
            raise ValueError(f"parameter {plugin_key}={plugin!r} {reason}")
        if not declared:
            node.declare_parameter(plugin_key, OUR_PLUGIN, ParameterDescriptor(
                description="plugin type: chooses the defaults of the keys the block leaves out"
            ))
        if plugin not in PLUGINS:
            node.get_logger().warning(
                f"{plugin_key} '{plugin}' is not a planner known here: planner {planner_id} "
                f"follows grid_planner's flat parameters (known: {', '.join(PLUGINS)})"
            )
        kind = PLUGINS.get(plugin, PLUGINS[OUR_PLUGIN])
        keys, explicit = [], set()
        for key, entry in ALL_BLOCK_KEYS.items():
            name = f"{planner_id}.{key}"
            given = name in overrides
            _follow_plugin(node, name, kind.defaults.get(key, _NONE), defaulted)
            if key not in kind.block_keys or not (
                    given or key in kind.defaults or node.has_parameter(name)):
                continue
            if not node.has_parameter(entry.flat):
                node.get_logger().debug(f"{name} accepted: no {entry.flat} parameter here")
                continue
            rule = rules.get(entry.flat)
            descriptor = ParameterDescriptor(
                description=f"sets {entry.flat} for this planner's goals"
            )
            if not node.has_parameter(name):
                value = _as_flat_type(
                    node, overrides[name].value if given else kind.defaults[key], entry.flat
                )
                # Checked before the declaration, whose own check would raise rclpy's
                # exception instead of this reason.
                try:
                    _refuse_bad_value(node, name, entry, rule, value)
                except ValueError as error:
                    hold = _stand_in(node, entry, kind.defaults.get(key, _NONE))
                    if not given or hold is _NONE:
                        raise
                    node.declare_parameter(name, hold, descriptor, ignore_override=True)
                    stand_ins[name] = f"{error} (given at start-up)"
                    raise _still_refused(name, stand_ins, can_retry) from None
                node.declare_parameter(name, value, descriptor, ignore_override=True)
                if not given:
                    defaulted[name] = value
            elif name in stand_ins:
                raise _still_refused(name, stand_ins, can_retry)
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


_NONE = object()  # a plugin without a default for a key


def _stand_in(node: Node, entry: BlockKey, default: object) -> object:
    """A valid value of the key's own type to hold its place: the plugin's default, else the
    flat parameter's value where the key takes it unconverted; _NONE where there is none."""
    if default is not _NONE:
        return _as_flat_type(node, default, entry.flat)
    return node.get_parameter(entry.flat).value if entry.kind is None else _NONE


def _still_refused(name: str, stand_ins: dict[str, str], can_retry: bool) -> ValueError:
    """The refusal of a configure while `name` holds a stand-in for a refused start-up value."""
    if not can_retry:
        return ValueError(f"{stand_ins[name]}; correct it and start again")
    return ValueError(f"{stand_ins[name]}; set a valid {name} (ros2 param set) and configure "
                      "again, or correct the start-up value and restart")


def _follow_plugin(node: Node, name: str, default: object, defaulted: dict[str, object]) -> None:
    """Undeclare block key `name` when an earlier configure gave it a plugin default that it
    still has and the plugin named now gives another one or none (then declared anew)."""
    if name not in defaulted:
        return
    earlier = defaulted[name]
    if not node.has_parameter(name) or node.get_parameter(name).value != earlier:
        del defaulted[name]  # set since: the value is someone's choice now
    elif default is _NONE or default != earlier:
        node.undeclare_parameter(name)
        del defaulted[name]


def warn_unknown_keys(node: Node, table: PlannerTable, warned: set[str]) -> None:
    """One WARN naming the parameter-file keys nobody knows (each named once per process);
    keys that only wildcard blocks give are meant for other nodes too and are left out."""
    warn_unknown(node, unknown_keys(node, table), warned, "this node, of planner_server or of "
                 f"the blocks of the planners {', '.join(table.planners)}")


def unknown_keys(node: Node, table: PlannerTable) -> list[str]:
    """The parameter-file keys of this node that neither it nor a configured planner knows."""
    unknown = []
    for name in undeclared_overrides(node):
        if name in QUIET_SERVER_KEYS:
            continue
        planner_id, _, key = name.partition(".")
        planner = table.planners.get(planner_id)
        if planner is not None:
            kind = PLUGINS.get(planner.plugin, PLUGINS[OUR_PLUGIN])
            if key in kind.block_keys or key in kind.quiet:
                continue
        unknown.append(name)
    return unknown
