"""Names rcl refuses, with their own fault: rcl's refusal of a node can name another one (a
trailing '/' in a namespace reads "node name must not start with a number")."""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def check_namespace(namespace: str) -> str | None:
    """Why `namespace` (relative or absolute, "" for none) names no ROS namespace, or None."""
    from rclpy.exceptions import InvalidNamespaceException
    from rclpy.validate_namespace import validate_namespace

    if not namespace:
        return None
    try:
        validate_namespace(namespace if namespace.startswith("/") else f"/{namespace}")
    except InvalidNamespaceException as error:
        return str(error).splitlines()[0].removeprefix("Invalid namespace: ").rstrip(":")
    return None


def namespace_rule_faults(argv: Sequence[str]) -> list[str]:
    """Each remap rule of `argv` that sets a namespace rcl refuses (`-r [node:]__ns:=X`), as
    written, with its fault."""
    faults = []
    for flag, rule in itertools.pairwise(argv):
        name, given, namespace = rule.partition(":=")
        if flag in ("-r", "--remap") and given and name.rpartition(":")[2] == "__ns":
            fault = check_namespace(namespace)
            if fault is not None:
                faults.append(f"remap rule '{rule}': {fault}")
    return faults
