"""Which parameter-file keys reach a node only through a wildcard block (`/**:`, `**:`).

One file often serves a whole stack: a `/**:` block holds keys for every node, most of them
meant for the others (`use_sim_time`, a controller's `default_timeout`). rclpy hands a node its
overrides without saying which block each came from, so the files named after `--params-file`
in the arguments rclpy was initialised with are read again here. Of the blocks that apply to
this node (matched against its fully qualified name as rcl matches them), a key that only
wildcard blocks give is no typo of this node's, and the unknown-key warning leaves it out. The
file launch_ros writes for a launch file's `parameters=[{...}]` dict is this node's own, whatever
its block is called (`/**` when the launch file leaves the node's name or namespace out).
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import yaml

PARAMETERS_KEY = "ros__parameters"
# launch_ros writes a Node action's `parameters` dict to a temporary file named so.
LAUNCH_DICT_PREFIX = "launch_params_"
_INITIALISED_WITH: list[str] = []
# How many nodes this process runs (bringup: several, each executable alone: one).
_NODES_IN_PROCESS = [1]


def remember_arguments(argv: Sequence[str], nodes: int = 1) -> None:
    """Record the arguments rclpy is initialised with in this process (bringup makes its own
    from its options, so `sys.argv` does not hold them) and how many nodes it runs."""
    _INITIALISED_WITH[:] = list(argv)
    _NODES_IN_PROCESS[0] = nodes


def shared_argument_keys(argv: Sequence[str]) -> frozenset[str]:
    """The names that plain `-p name:=value` arguments in `argv` give, when this process runs
    several nodes: rcl gives such a value to every node, so in bringup a planner key is no typo
    of puzzle_node's (`-p node_name:name:=value` is one node's and is not counted)."""
    if _NODES_IN_PROCESS[0] < 2:
        return frozenset()
    names = set()
    for flag, value in itertools.pairwise(argv):
        if flag in ("-p", "--param"):
            name = value.partition(":=")[0]
            if ":" not in name:
                names.add(name)
    return frozenset(names)


def initialised_arguments() -> list[str]:
    """The arguments `remember_arguments` recorded, else `sys.argv`."""
    return list(_INITIALISED_WITH or sys.argv)


def wildcard_only_keys(argv: Sequence[str], node: str) -> frozenset[str]:
    """The parameter names that the `--params-file` files in `argv` give the node of fully
    qualified name `node` only in blocks whose node name is a wildcard (`*` in its last part);
    a file that cannot be read adds nothing (rcl has read or refused it already)."""
    wildcard: set[str] = set()
    own: set[str] = set()
    files = [argv[i + 1] for i in range(len(argv) - 1) if argv[i] == "--params-file"]
    for path in files:
        try:
            document = yaml.safe_load(Path(path).read_text())
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        from_launch_dict = Path(path).name.startswith(LAUNCH_DICT_PREFIX)
        for block_name, parameters in _blocks(document, ""):
            tokens = [token for token in block_name.split("/") if token]
            if not tokens or not _applies(tokens, node):
                continue
            names = _flat_names(parameters, "")
            (own if from_launch_dict or "*" not in tokens[-1] else wildcard).update(names)
    return frozenset(wildcard - own)


def _applies(tokens: list[str], node: str) -> bool:
    """Whether a block named by `tokens` applies to the node `node`: `**` stands for any
    number of names, `*` for any part of one."""
    pattern = "".join(
        "(?:/[^/]+)*" if token == "**"
        else "/" + "[^/]*".join(re.escape(part) for part in token.split("*"))
        for token in tokens
    )
    return re.fullmatch(pattern, node) is not None


def _blocks(value: object, path: str) -> Iterator[tuple[str, dict]]:
    """(node name, its `ros__parameters` mapping) of each block, however nested the names."""
    if not isinstance(value, dict):
        return
    for key, inner in value.items():
        if key == PARAMETERS_KEY:
            if isinstance(inner, dict):
                yield path, inner
        else:
            yield from _blocks(inner, f"{path}/{key}")


def _flat_names(parameters: dict, prefix: str) -> Iterator[str]:
    """The dotted names of a block's parameters (a nested mapping is a group of them)."""
    for key, value in parameters.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _flat_names(value, f"{name}.")
        else:
            yield name
