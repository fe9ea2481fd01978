"""Which parameter-file keys reach a node only through a wildcard block (`/**:`, `**:`).

One file often serves a whole stack: a `/**:` block holds keys for every node, most of them
meant for the others (`use_sim_time`, a controller's `default_timeout`). rclpy hands a node its
overrides without saying which block each came from, so the files named after `--params-file`
in the arguments rclpy was initialised with are read again here; a key that only wildcard
blocks of such a shared file give is no typo of this node's, and the unknown-key warning leaves
it out. A file of one wildcard block is its reader's own: launch_ros writes a launch file's
`parameters=[{...}]` dict that way for a node without a namespace.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import yaml

PARAMETERS_KEY = "ros__parameters"
_INITIALISED_WITH: list[str] = []


def remember_arguments(argv: Sequence[str]) -> None:
    """Record the arguments rclpy is initialised with in this process (bringup makes its own
    from its options, so `sys.argv` does not hold them)."""
    _INITIALISED_WITH[:] = list(argv)


def initialised_arguments() -> list[str]:
    """The arguments `remember_arguments` recorded, else `sys.argv`."""
    return list(_INITIALISED_WITH or sys.argv)


def wildcard_only_keys(argv: Sequence[str], node_name: str) -> frozenset[str]:
    """The parameter names that the `--params-file` files in `argv` give node `node_name` only
    in blocks whose node name is a wildcard (`*` in its last part), counting only files of more
    than one block; a file that cannot be read adds nothing (rcl has read or refused it
    already)."""
    wildcard: set[str] = set()
    own: set[str] = set()
    files = [argv[i + 1] for i in range(len(argv) - 1) if argv[i] == "--params-file"]
    for path in files:
        try:
            document = yaml.safe_load(Path(path).read_text())
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        blocks = list(_blocks(document, ""))
        if len(blocks) < 2:
            continue
        for block_name, parameters in blocks:
            last = block_name.rstrip("/").rsplit("/", 1)[-1]
            if "*" in last:
                wildcard.update(_flat_names(parameters, ""))
            elif last == node_name:
                own.update(_flat_names(parameters, ""))
    return frozenset(wildcard - own)


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
