"""A real colcon build of both packages, laid out as a ROS workspace would hold them.

Checks the README's workspace commands: the repository sits at src/grid_planner, and colcon
is pointed at it and at the nested interface package explicitly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import PROJECT_ROOT

pytestmark = pytest.mark.alone

COLCON = Path(sys.executable).parent / "colcon"


def copy_sources(dest: Path) -> None:
    """Copy the tracked project files (not the venv or build output) to `dest`."""
    ignore = shutil.ignore_patterns(
        ".venv", "build", "install", "log", ".git", "__pycache__", "*.egg-info", ".*cache"
    )
    shutil.copytree(PROJECT_ROOT, dest, ignore=ignore)


def test_colcon_builds_both_packages(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    copy_sources(workspace / "src" / "grid_planner")
    path = f"{COLCON.parent}:{os.environ['PATH']}"
    env = dict(os.environ, AMENT_PREFIX_PATH=sys.prefix, PATH=path)
    result = subprocess.run(
        [
            str(COLCON), "build",
            "--base-paths", "src/grid_planner", "src/grid_planner/grid_planner_interfaces",
            "--cmake-args", f"-DPython3_EXECUTABLE={sys.executable}", "-DBUILD_TESTING=OFF",
        ],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 packages finished" in result.stdout, result.stdout
    install = workspace / "install"
    for executable in ("planner_node", "puzzle_node", "map_publisher", "bringup", "grid-planner"):
        assert (install / "grid_planner" / "lib" / "grid_planner" / executable).is_file()
    share = install / "grid_planner" / "share" / "grid_planner"
    assert (share / "launch" / "grid_planner.launch.py").is_file()
    assert (share / "config" / "planner.yaml").is_file()
    assert (share / "config" / "fastdds_services.xml").is_file()  # the README's export
    srv = install / "grid_planner_interfaces" / "share" / "grid_planner_interfaces" / "srv"
    assert {p.name for p in srv.glob("*.srv")} == {"ComputePath.srv", "SolvePuzzle.srv"}
