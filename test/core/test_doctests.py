"""The examples in the docstrings of every core module run as written."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import grid_planner

# The nodes' modules need rclpy (and hold no examples); `__main__` modules run when imported.
SKIPPED = ("grid_planner.nodes", "__main__")


def modules_with_examples() -> list[str]:
    """Every core module whose source holds a `>>>` example."""
    names = []
    for info in pkgutil.walk_packages(grid_planner.__path__, prefix="grid_planner."):
        if any(part in info.name for part in SKIPPED):
            continue
        spec = importlib.util.find_spec(info.name)
        if ">>>" in Path(spec.origin).read_text(encoding="utf-8"):
            names.append(info.name)
    return sorted(names)


EXAMPLES = modules_with_examples()


def test_every_module_with_examples_is_found():
    expected = {"grid_planner.grid", "grid_planner.grid.planner", "grid_planner.puzzle.board"}
    assert expected <= set(EXAMPLES)


@pytest.mark.parametrize("name", EXAMPLES)
def test_docstring_examples_run(name):
    failures, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
