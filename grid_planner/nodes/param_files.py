"""Which parameter-file keys reach a node only through a wildcard block (`/**:`, `**:`).

One file often serves a whole stack: a `/**:` block holds keys for every node, most of them
meant for the others (`use_sim_time`, a controller's `default_timeout`). rclpy hands a node its
overrides without saying which block each came from, so the files named after `--params-file`
on the command line are read again here; a key that only wildcard blocks give is no typo of
this node's, and the unknown-key warning leaves it out.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import yaml

PARAMETERS_KEY = "ros__parameters"


def wildcard_only_keys(argv: Sequence[str]) -> frozenset[str]:
    """The parameter names that the `--params-file` files in `argv` give only in blocks whose
    node name is a wildcard (`*` in its last part); a file that cannot be read adds nothing
    (rcl has read or refused it already)."""
    wildcard: set[str] = set()
    named: set[str] = set()
    files = [argv[i + 1] for i in range(len(argv) - 1) if argv[i] == "--params-file"]
    for path in files:
        try:
            document = yaml.safe_load(Path(path).read_text())
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        for node_name, parameters in _blocks(document, ""):
            wild = "*" in node_name.rstrip("/").rsplit("/", 1)[-1]
            (wildcard if wild else named).update(_flat_names(parameters, ""))
    return frozenset(wildcard - named)


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
