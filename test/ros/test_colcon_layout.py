"""Both installations `ros2 run` and `ros2 launch` serve: the venv's and a colcon workspace's.

The venv's set-up links the console scripts where ROS looks for executables; a colcon
workspace, built here from the checkout and sourced over the venv, takes precedence (it comes
first on AMENT_PREFIX_PATH and PYTHONPATH), and each node's ready line says which installation
runs and which other one is there too.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from ros_cli import LongRunning, assert_clean_stop, cli_env, require_cli, ros2
from shared_data import PROJECT_ROOT

VENV = Path(sys.prefix).resolve()
SCRIPTS = sorted(
    e.name for e in metadata.distribution("grid_planner").entry_points
    if e.group == "console_scripts"
)


def test_venv_links_every_console_script_where_ros_looks() -> None:
    libexec = VENV / "lib" / "grid_planner"
    assert sorted(p.name for p in libexec.iterdir()) == SCRIPTS
    for name in SCRIPTS:
        assert (libexec / name).resolve() == (VENV / "bin" / name).resolve()
    marker = VENV / "share" / "ament_index" / "resource_index" / "packages" / "grid_planner"
    assert marker.is_file()


def test_ros2_finds_the_venv_executables() -> None:
    require_cli()
    result = ros2("pkg", "executables", "grid_planner")
    assert sorted(result.stdout.split()[1::2]) == SCRIPTS, result.stdout
    assert ros2("pkg", "prefix", "grid_planner").stdout.strip() == str(VENV)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A colcon workspace with grid_planner built from the checkout (the venv as underlay)."""
    require_cli()
    root = tmp_path_factory.mktemp("colcon_ws")
    result = subprocess.run(
        [str(VENV / "bin" / "colcon"), "build", "--base-paths", str(PROJECT_ROOT),
         "--build-base", str(root / "build"), "--install-base", str(root / "install")],
        cwd=root, env=cli_env(), capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    yield root


def sourced(command: str) -> str:
    """`command` after sourcing the workspace, as a user's shell runs it."""
    return f"source install/setup.bash && {command}"


def test_sourced_workspace_wins_and_the_ready_line_says_so(workspace: Path) -> None:
    prefix = workspace / "install" / "grid_planner"
    result = subprocess.run(
        ["bash", "-c", sourced("ros2 pkg prefix grid_planner")], cwd=workspace, env=cli_env(),
        capture_output=True, text=True, timeout=120,
    )
    assert result.stdout.strip() == str(prefix), result.stdout + result.stderr
    proc = LongRunning(sourced("exec ros2 launch grid_planner puzzle.launch.py"), workspace,
                       cwd=workspace)
    try:
        (ready,) = proc.wait_for_ready(["/puzzle_solver"]).values()
        assert_clean_stop(proc, proc.interrupt())
    finally:
        proc.kill()
    assert ready.endswith(f"grid_planner from colcon workspace {prefix}; also installed in {VENV}")


def test_ros2_run_from_the_workspace(workspace: Path) -> None:
    prefix = workspace / "install" / "grid_planner"
    proc = LongRunning(
        sourced("exec ros2 run grid_planner planner_node --ros-args -p algorithm:=bfs"),
        workspace, cwd=workspace,
    )
    try:
        # A fresh workspace has no compiled kernels yet: this first start compiles them (about
        # a minute on one core) and says why configure waits.
        (ready,) = proc.wait_for_ready(["/grid_planner"], timeout=300).values()
        assert_clean_stop(proc, proc.interrupt())
    finally:
        proc.kill()
    assert "warming the search kernels: the first start after an install" in proc.output()
    assert ready.startswith("algorithm bfs")
    assert ready.endswith(f"grid_planner from colcon workspace {prefix}; also installed in {VENV}")


def test_venv_executable_under_a_workspace_names_the_shadowing(workspace: Path) -> None:
    # The venv first on AMENT_PREFIX_PATH, the workspace's PYTHONPATH still set: the venv's
    # executable runs, imports the workspace's code and uses the venv's share files.
    prefix = workspace / "install" / "grid_planner"
    command = sourced(
        f"export AMENT_PREFIX_PATH={VENV}:$AMENT_PREFIX_PATH && "
        "exec ros2 run grid_planner puzzle_node"
    )
    proc = LongRunning(command, workspace, cwd=workspace)
    try:
        (ready,) = proc.wait_for_ready(["/puzzle_solver"]).values()
        assert_clean_stop(proc, proc.interrupt())
    finally:
        proc.kill()
    assert ready.endswith(
        f"grid_planner from colcon workspace {prefix}; ament index resolves its share files to "
        f"{VENV} first; also installed in {VENV}"
    )
