"""`ros2 launch` of each launch file with its documented arguments, as a user runs it.

Each launch runs in its own process group and is stopped like Ctrl-C stops it (SIGINT to the
group, so every node gets the terminal's signal and launch's own); what the graph shows is
read with the real verbs: `ros2 node list` (without the daemon, then with it), `ros2 topic
info -v`, `ros2 param get`. `use_map_publisher:=false` is run by README's own commands
(test_readme_commands.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from interface_doc import code, read_sections
from ros_cli import (
    LongRunning,
    assert_clean_stop,
    own_daemon_domain,
    param_get,
    require_cli,
    ros2,
    topic_endpoints,
    wait_for_nodes,
)
from ros_harness import wait_until
from shared_data import PROJECT_ROOT

FAMILY = {"map_publisher", "grid_planner", "puzzle_solver", "planner_server"}
TUTORIAL_MAP = PROJECT_ROOT / "config" / "maps" / "tutorial_grid.yaml"


@pytest.fixture(scope="module", autouse=True)
def cli() -> None:
    """The real command line (each launch below runs in a domain of its own, with its own
    daemon)."""
    require_cli()


@contextmanager
def launched(arguments: str, nodes: set[str], log_dir: Path) -> Iterator[LongRunning]:
    """`ros2 launch grid_planner <arguments>` up with `nodes` ready and listed, in a domain and
    with a ros2 daemon of its own; on leaving, Ctrl-C and the clean-exit checks."""
    with own_daemon_domain():
        proc = LongRunning(f"ros2 launch grid_planner {arguments}", log_dir)
        try:
            proc.wait_for_ready(nodes)
            wait_for_nodes(nodes, FAMILY)
            wait_for_nodes(nodes, FAMILY, daemon=True)  # the verbs below ask the daemon
            yield proc
            assert_clean_stop(proc, proc.interrupt())
        finally:
            proc.kill()


def params_file(tmp_path: Path, parameters: dict[str, dict]) -> Path:
    """A parameter file with wildcard node keys, as the packaged ones are written."""
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(
        {f"/**/{node}": {"ros__parameters": values} for node, values in parameters.items()}
    ))
    return path


def qos(endpoints: list[dict[str, str]], node: str, kind: str) -> tuple[str, str]:
    """(reliability, durability) of `node`'s one endpoint of `kind` (PUBLISHER/SUBSCRIPTION)."""
    mine = [e for e in endpoints if e["Node name"] == node and e["Endpoint type"] == kind]
    assert len(mine) == 1, endpoints
    return mine[0]["Reliability"], mine[0]["Durability"]


PUB, SUB = "PUBLISHER", "SUBSCRIPTION"


def test_grid_planner_launch_with_every_argument(tmp_path: Path) -> None:
    params = params_file(tmp_path, {
        "grid_planner": {"algorithm": "bfs", "robot_radius": 0.3},
        # The `map` argument wins over the file's yaml_filename.
        "map_publisher": {"frame_id": "map",
                          "yaml_filename": str(PROJECT_ROOT / "config" / "maps" / "demo_map.yaml")},
    })
    arguments = (
        f"grid_planner.launch.py namespace:=robot7 map:={TUTORIAL_MAP} params_file:={params} "
        "use_map_publisher:=true use_sim_time:=true"
    )
    nodes = {"/robot7/map_publisher", "/robot7/grid_planner", "/robot7/puzzle_solver"}
    with launched(arguments, nodes, tmp_path):
        map_endpoints = topic_endpoints(
            "/robot7/map", {("map_publisher", PUB), ("grid_planner", SUB)}
        )
        assert qos(map_endpoints, "map_publisher", PUB) == ("RELIABLE", "TRANSIENT_LOCAL")
        assert qos(map_endpoints, "grid_planner", SUB) == ("RELIABLE", "TRANSIENT_LOCAL")
        assert {e["Node namespace"] for e in map_endpoints} == {"/robot7"}
        plan = topic_endpoints("/robot7/plan", {("grid_planner", PUB)})
        assert qos(plan, "grid_planner", PUB) == ("RELIABLE", "VOLATILE")
        goal = topic_endpoints("/robot7/goal_pose", {("grid_planner", SUB)})
        assert qos(goal, "grid_planner", SUB) == ("RELIABLE", "VOLATILE")
        assert param_get("/robot7/grid_planner", "algorithm") == "String value is: bfs"
        assert param_get("/robot7/grid_planner", "robot_radius") == "Double value is: 0.3"
        assert param_get("/robot7/map_publisher", "yaml_filename") == (
            f"String value is: {TUTORIAL_MAP}"
        )
        for node in nodes:
            assert param_get(node, "use_sim_time") == "Boolean value is: True"
        # puzzle_solver reads the packaged puzzle.yaml before the launch's params_file.
        assert param_get("/robot7/puzzle_solver", "default_heuristic") == (
            "String value is: auto"
        )


def test_puzzle_launch_with_every_argument(tmp_path: Path) -> None:
    # use_sim_time from the file: it wins over the launch argument's default, as under Nav2's
    # bringup (the argument came last and set false).
    params = params_file(tmp_path, {
        "puzzle_solver": {"default_algorithm": "idastar", "default_heuristic": "linear_conflict",
                          "use_sim_time": True},
    })
    arguments = f"puzzle.launch.py namespace:=tutor params_file:={params}"
    with launched(arguments, {"/tutor/puzzle_solver"}, tmp_path):
        assert param_get("/tutor/puzzle_solver", "default_algorithm") == (
            "String value is: idastar"
        )
        assert param_get("/tutor/puzzle_solver", "default_heuristic") == (
            "String value is: linear_conflict"
        )
        assert param_get("/tutor/puzzle_solver", "use_sim_time") == "Boolean value is: True"
        # The daemon learns of services apart from node names: ask until it knows this one.
        shown: list[str] = []
        wait_until(
            lambda: shown.append(ros2("service", "type", "/tutor/solve_puzzle").stdout.strip())
            or shown[-1] != "",
            timeout=60.0, what="ros2 service type /tutor/solve_puzzle",
        )
        assert shown[-1] == "grid_planner_interfaces/srv/SolvePuzzle", shown


def test_nav2_launch_arguments_win_over_the_file_only_where_they_must(tmp_path: Path) -> None:
    # The file sets autostart_node under the node's own name, and occupied_threshold under
    # `/**`: the autostart_node argument wins over the file, and the file over the launch's own
    # Nav2 settings (99). Both went the other way.
    params = tmp_path / "nav2_params.yaml"
    params.write_text(yaml.safe_dump({
        "planner_server": {"ros__parameters": {"autostart_node": False}},
        "/**": {"ros__parameters": {"occupied_threshold": 90}},
    }))
    arguments = (f"nav2_planner_server.launch.py use_costmap:=false autostart_node:=true "
                 f"params_file:={params}")
    with launched(arguments, {"/planner_server"}, tmp_path):
        assert param_get("/planner_server", "autostart_node") == "Boolean value is: True"
        assert param_get("/planner_server", "occupied_threshold") == "Integer value is: 90"
        assert param_get("/planner_server", "map_topic") == (
            "String value is: global_costmap/costmap")


def shown_arguments(launch_file: str) -> dict[str, str]:
    """name -> default of every argument `ros2 launch --show-args` lists."""
    result = ros2("launch", "grid_planner", launch_file, "--show-args")
    assert result.returncode == 0, result.stdout
    shown, name = {}, None
    for line in result.stdout.splitlines():
        text = line.strip()
        if text.startswith("'") and text.endswith("':"):
            name = text[1:-2]
        elif text.startswith("(default: ") and name:
            shown[name] = text.removeprefix("(default: ").removesuffix(")").strip("'")
    return shown


def documented_arguments(launch_file: str) -> dict[str, str]:
    """name -> default of the launch file's table in docs/interface.md (`<share>` unresolved)."""
    section = next(s for s in read_sections() if s.heading == "Launch files")
    rows = section.tables[f"`{launch_file}`"]
    return {code(row["argument"]): code(row["default"]) for row in rows}


@pytest.mark.parametrize("launch_file",
                         sorted(p.name for p in (PROJECT_ROOT / "launch").glob("*.launch.py")))
def test_documented_launch_arguments_are_the_declared_ones(launch_file: str) -> None:
    prefix = ros2("pkg", "prefix", "grid_planner").stdout.strip()
    share = f"{prefix}/share/grid_planner"
    documented = {
        name: "" if default == '""' else default.replace("<share>", share)
        for name, default in documented_arguments(launch_file).items()
    }
    assert documented == shown_arguments(launch_file)
