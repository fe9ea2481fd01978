"""Declaring parameters with descriptors and validating runtime changes against rules."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter

from grid_planner.nodes.param_files import (
    initialised_arguments,
    shared_argument_keys,
    wildcard_only_keys,
)

# A rule returns None for an acceptable value, else the reason it is refused.
Rule = Callable[[object], str | None]


def one_of(choices: tuple[str, ...]) -> Rule:
    """Accept only one of `choices`."""
    return lambda value: None if value in choices else f"must be one of {', '.join(choices)}"


def at_least(minimum: float) -> Rule:
    """Accept numbers >= `minimum` (and finite)."""

    def rule(value: object) -> str | None:
        ok = isinstance(value, int | float) and value == value and value >= minimum
        return None if ok and value != float("inf") else f"must be a finite number >= {minimum}"

    return rule


def in_range(low: float, high: float) -> Rule:
    """Accept finite numbers in [`low`, `high`]."""

    def rule(value: object) -> str | None:
        ok = isinstance(value, int | float) and low <= value <= high
        return None if ok else f"must be a finite number in [{low}, {high}]"

    return rule


def off_or_in_range(low: float, high: float) -> Rule:
    """Accept 0 (off) or finite numbers in [`low`, `high`]."""
    within = in_range(low, high)

    def rule(value: object) -> str | None:
        if value == 0 or within(value) is None:
            return None
        return f"must be 0 (off) or a finite number in [{low:g}, {high:g}]"

    return rule


def non_empty(value: object) -> str | None:
    """Accept a non-empty string."""
    return None if isinstance(value, str) and value.strip() else "must not be empty"


def frame_name(value: object) -> str | None:
    """Accept a tf2 frame name: not empty, no leading '/', no whitespace anywhere."""
    empty = non_empty(value)
    if empty is not None:
        return empty
    if value.startswith("/"):
        return f"must not start with '/' (a map or pose in '{value}' is read in '{value[1:]}')"
    if any(character.isspace() for character in value):
        return "must not contain whitespace (no map, pose or transform would match it)"
    return None


def parameter_overrides(node: Node) -> dict[str, Parameter]:
    """The values the node's parameter files and `-p` arguments give it, declared or not.

    rclpy keeps them in `Node._parameter_overrides` (the same since Foxy) and offers no public
    accessor; they are what the unknown-key check and the declarations read.
    """
    return dict(getattr(node, "_parameter_overrides", {}))


def undeclared_overrides(node: Node) -> list[str]:
    """The keys the node's parameter files and `-p` arguments give it that it does not
    declare (typos, or keys of another node), sorted; less `qos_overrides.*` (rclpy's) and
    those meant for other nodes too (`param_files`: given only by wildcard blocks, or by a
    plain `-p` in a process running several nodes)."""
    argv = initialised_arguments()
    shared = (wildcard_only_keys(argv, node.get_fully_qualified_name())
              | shared_argument_keys(argv))
    return sorted(name for name in parameter_overrides(node)
                  if not node.has_parameter(name) and name not in shared
                  and not name.startswith("qos_overrides."))


def warn_unknown(node: Node, unknown: Iterable[str], warned: set[str], whose: str) -> None:
    """One WARN naming the keys of `unknown` that `warned` does not hold yet (then it does:
    each key is named once per process): `... (not keys of <whose>)`."""
    fresh = [key for key in unknown if key not in warned]
    if fresh:
        warned.update(fresh)
        node.get_logger().warning(
            f"unknown parameters ignored: {', '.join(fresh)} (not keys of {whose})"
        )


def declare_checked(node: Node, name: str, default: object,
                    descriptor: ParameterDescriptor) -> None:
    """Declare `name`; a file or `-p` value that YAML reads as null (`[]`, a blank), which has
    no type for rclpy ("not initialized" on the first read), is refused with the reason."""
    given = parameter_overrides(node).get(name)
    if given is not None and given.type_ == Parameter.Type.NOT_SET:
        raise ValueError(
            f"parameter {name} was given no value: YAML reads an empty list or a blank value as "
            f"null, which has no type (the default is {default!r})"
        )
    node.declare_parameter(name, default, descriptor)


def declare_validated(
    node: Node,
    parameters: Mapping[str, tuple[object, str, Rule | None]],
    read_only: frozenset[str] = frozenset(),
) -> None:
    """Declare `name -> (default, description, rule)` and refuse runtime values that break a rule.

    Values from parameter files are checked too: a bad one stops the node with the reason.
    A refused runtime change keeps the old value and returns the reason to the caller.
    """
    rules = {name: rule for name, (_, _, rule) in parameters.items() if rule is not None}
    for name, (default, description, _) in parameters.items():
        declare_checked(node, name, default,
                        ParameterDescriptor(description=description, read_only=name in read_only))
        reason = rules.get(name, lambda _v: None)(node.get_parameter(name).value)
        if reason is not None:
            raise ValueError(f"parameter {name}={node.get_parameter(name).value!r} {reason}")

    def validate(changes: list[Parameter]) -> SetParametersResult:
        for change in changes:
            rule = rules.get(change.name)
            if rule is None:
                continue
            reason = rule(change.value)
            if reason is not None:
                return SetParametersResult(
                    successful=False, reason=f"{change.name}={change.value!r} refused: {reason}"
                )
        return SetParametersResult(successful=True)

    node.add_on_set_parameters_callback(validate)
