"""Locate the shared real-world test data (ROS maps, puzzle sets) named by GRID_PLANNER_SHARED.

Tests that need it call `shared_path(...)`: when the folder is missing they skip with a clear
reason, except under CI (`CI=true`), where a missing folder is a failure (`unavailable`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The Fast DDS profile every test session runs with (conftest.py; README, Limits).
SERVICE_PROFILE = PROJECT_ROOT / "config" / "fastdds_services.xml"


def shared_dir() -> Path:
    """The shared data folder: $GRID_PLANNER_SHARED, else ../shared beside the project root."""
    configured = os.environ.get("GRID_PLANNER_SHARED")
    return Path(configured) if configured else PROJECT_ROOT.parent / "shared"


def shared_path(*parts: str) -> Path:
    """The path of a shared data file; skips the test (fails under CI) when it is missing."""
    path = shared_dir().joinpath(*parts)
    if not path.exists():
        unavailable(f"shared test data {path} not found (set GRID_PLANNER_SHARED)")
    return path


def unavailable(reason: str) -> NoReturn:
    """Skip the test for `reason`; under CI (`CI=true`) fail instead, so nothing goes untested."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def korf_instances() -> dict[int, tuple[tuple[int, ...], int]]:
    """Korf's 100 15-puzzles: {number: (board for the goal 0, 1, ..., 15, optimal length)}."""
    instances = {}
    for line in shared_path("puzzles", "korf100.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            numbers = [int(v) for v in line.split()]
            instances[numbers[0]] = (tuple(numbers[1:17]), numbers[17])
    return instances


def to_blank_last(board: tuple[int, ...]) -> tuple[int, ...]:
    """The puzzles README's mapping from Korf's blank-first goal to the goal 1..15, 0."""
    return tuple(16 - tile if tile else 0 for tile in reversed(board))
