"""The launch files agree with setup.py: executables, node names, parameter files, arguments.

`launch` is not on PyPI, so the files are read as Python syntax trees; where launch_ros is
importable (a full ROS install) the real launch description is built too.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest
import yaml
from shared_data import PROJECT_ROOT

SETUP = (PROJECT_ROOT / "setup.py").read_text()
LAUNCH_DIR = PROJECT_ROOT / "launch"
SPEC_ARGUMENTS = {"map", "params_file", "use_map_publisher", "namespace", "use_sim_time"}


def entry_points() -> dict[str, str]:
    """Console-script name -> module:function, from setup.py."""
    return dict(re.findall(r'"([\w-]+) = ([\w.]+:\w+)"', SETUP))


def launch_calls(path: Path, function: str) -> list[dict[str, ast.expr]]:
    """The keyword arguments of every call to `function` in a launch file."""
    tree = ast.parse(path.read_text())
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == function:
            calls.append({kw.arg: kw.value for kw in node.keywords if kw.arg})
    return calls


def declared_arguments(path: Path) -> set[str]:
    """The names of the DeclareLaunchArgument calls of a launch file."""
    tree = ast.parse(path.read_text())
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "DeclareLaunchArgument"
    }


def literal(expr: ast.expr) -> object:
    return expr.value if isinstance(expr, ast.Constant) else None


def test_setup_declares_the_spec_executables() -> None:
    assert set(entry_points()) == {
        "planner_node", "puzzle_node", "map_publisher", "bringup", "grid-planner",
    }
    for target in entry_points().values():
        module = target.partition(":")[0]
        assert importlib.util.find_spec(module) is not None, module


def test_setup_installs_launch_and_config_files() -> None:
    assert 'glob("launch/*.launch.py")' in SETUP
    assert 'glob("config/*.yaml")' in SETUP
    assert 'glob("config/maps/*.yaml") + glob("config/maps/*.pgm")' in SETUP
    assert (PROJECT_ROOT / "resource" / "grid_planner").is_file()


@pytest.mark.parametrize(
    ("launch_file", "expected"),
    [
        (
            "grid_planner.launch.py",
            {"map_publisher": "map_publisher", "planner_node": "grid_planner",
             "puzzle_node": "puzzle_solver"},
        ),
        ("puzzle.launch.py", {"puzzle_node": "puzzle_solver"}),
    ],
)
def test_launch_nodes_use_installed_executables(launch_file: str, expected: dict) -> None:
    calls = launch_calls(LAUNCH_DIR / launch_file, "Node")
    found = {literal(c["executable"]): literal(c["name"]) for c in calls}
    assert found == expected
    assert all(literal(c["package"]) == "grid_planner" for c in calls)
    assert set(found) <= set(entry_points())
    assert all("namespace" in c for c in calls)


def test_main_launch_file_declares_the_spec_arguments() -> None:
    assert declared_arguments(LAUNCH_DIR / "grid_planner.launch.py") == SPEC_ARGUMENTS
    assert declared_arguments(LAUNCH_DIR / "puzzle.launch.py") == {
        "params_file", "namespace", "use_sim_time",
    }


def test_launch_files_reference_existing_config_files() -> None:
    names = set()
    for path in LAUNCH_DIR.glob("*.launch.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "join":
                parts = [literal(a) for a in node.args[1:]]
                if all(isinstance(p, str) for p in parts):
                    names.add("/".join(parts))
    assert names == {"config/maps/demo_map.yaml", "config/planner.yaml", "config/puzzle.yaml",
                     "config/nav2_params.yaml"}
    for name in names:
        assert (PROJECT_ROOT / name).is_file(), name


def test_parameter_files_use_wildcard_node_keys() -> None:
    planner = yaml.safe_load((PROJECT_ROOT / "config" / "planner.yaml").read_text())
    puzzle = yaml.safe_load((PROJECT_ROOT / "config" / "puzzle.yaml").read_text())
    assert set(planner) == {"/**/grid_planner", "/**/map_publisher"}
    assert set(puzzle) == {"/**/puzzle_solver"}
    assert planner["/**/grid_planner"]["ros__parameters"]["algorithm"] == "astar"
    assert puzzle["/**/puzzle_solver"]["ros__parameters"]["default_algorithm"] == "auto"


@pytest.mark.skipif(
    importlib.util.find_spec("launch_ros") is None, reason="launch_ros is not installed"
)
def test_real_launch_description_builds() -> None:
    for path in LAUNCH_DIR.glob("*.launch.py"):
        spec = importlib.util.spec_from_file_location(path.stem.replace(".", "_"), path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        description = module.generate_launch_description()
        # The description that launch reads declares what the source says it does (the Nav2
        # file declares its table of arguments in a loop).
        names = {argument.name for argument in description.get_launch_arguments()}
        expected = set(module.ARGUMENTS) if hasattr(module, "ARGUMENTS") else (
            declared_arguments(path))
        assert names == expected and names, path.name


def test_rviz_config_shows_map_plan_and_expanded_cells_with_the_right_qos() -> None:
    rviz = yaml.safe_load((PROJECT_ROOT / "config" / "grid_planner.rviz").read_text())
    manager = rviz["Visualization Manager"]
    displays = {d["Topic"]["Value"]: d for d in manager["Displays"]}
    assert set(displays) == {"/map", "/plan", "/expanded_cells"}
    for topic in ("/map", "/expanded_cells"):
        assert displays[topic]["Class"] == "rviz_default_plugins/Map"
        # RViz defaults to volatile and would never see the latched map.
        assert displays[topic]["Topic"]["Durability Policy"] == "Transient Local"
        assert displays[topic]["Topic"]["Reliability Policy"] == "Reliable"
    assert displays["/plan"]["Class"] == "rviz_default_plugins/Path"
    tools = {t["Class"]: t.get("Topic", {}).get("Value") for t in manager["Tools"]}
    assert tools["rviz_default_plugins/SetGoal"] == "/goal_pose"
    assert tools["rviz_default_plugins/SetInitialPose"] == "/initialpose"
    assert manager["Global Options"]["Fixed Frame"] == "map"
