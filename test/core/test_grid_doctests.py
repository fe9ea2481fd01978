"""The examples in the grid modules' docstrings run as written."""

from __future__ import annotations

import doctest

import pytest

from grid_planner.grid import map_io, occupancy, planner, planning_grid, problem


@pytest.mark.parametrize("module", [map_io, occupancy, planner, planning_grid, problem])
def test_docstring_examples_run(module):
    failures, _tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
