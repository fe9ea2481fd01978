"""launch/nav2_planner_server.launch.py starts what Nav2 expects in planner_server's place.

nav2_costmap_2d and nav2_lifecycle_manager are not installable here, so the nodes the launch
file would start are checked as launch_ros receives them (`node_specs`), against the names
bt_navigator and the lifecycle manager use; README's Nav2 block runs the launch file for real
with `use_costmap:=false`.
"""

from __future__ import annotations

import importlib.util

import pytest
import yaml
from nav2_clients import require
from shared_data import PROJECT_ROOT

LAUNCH_FILE = PROJECT_ROOT / "launch" / "nav2_planner_server.launch.py"
# The services bt_navigator's default recovery and the costmap clients call, relative to the
# robot's namespace (the child costmap of planner_server offers them under these names).
NAV2_COSTMAP_SERVICES = {
    f"global_costmap/{service}_global_costmap"
    for service in ("clear_entirely", "clear_except", "clear_around", "clear_around_pose",
                    "get_cost")
}


@pytest.fixture(scope="module")
def launch():
    require("launch_ros.actions")
    spec = importlib.util.spec_from_file_location("nav2_planner_server_launch", LAUNCH_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rule(parameter) -> tuple[str, object]:
    """(name, value) of a launch_ros Parameter, the `-p` rule a launch passes."""
    return "".join(part.text for part in parameter.name), parameter.value


def by_name(specs: list[dict]) -> dict[str, dict]:
    return {spec["name"]: spec for spec in specs}


@pytest.mark.parametrize("namespace", ["", "robot1"])
def test_costmap_node_offers_nav2s_names_in_the_namespace(launch, namespace: str) -> None:
    specs = by_name(launch.node_specs(namespace, "/p.yaml", False, True, False, True))
    assert set(specs) == {"planner_server", "global_costmap", "lifecycle_manager_costmap"}
    costmap = specs["global_costmap"]
    assert (costmap["package"], costmap["executable"]) == ("nav2_costmap_2d", "nav2_costmap_2d")
    prefix = f"{namespace}/" if namespace else ""
    assert costmap["namespace"] == f"{prefix}global_costmap"
    # The node's own service names (from its fixed internal name `costmap`), remapped: the
    # names it ends up with, relative to the robot's namespace.
    remapped = {f"global_costmap/{to}" for source, to in costmap["remappings"]
                if source.endswith("_costmap")}
    assert remapped == NAV2_COSTMAP_SERVICES
    sim_time, params_file, last = costmap["parameters"]
    assert (rule(sim_time), params_file) == (("use_sim_time", False), "/p.yaml")
    assert last["map_topic"] == f"/{prefix}map"  # after the file: it wins
    manager = specs["lifecycle_manager_costmap"]
    assert manager["namespace"] == namespace
    assert manager["parameters"] == [{"use_sim_time": False, "autostart": True,
                                      "bond_timeout": 0.0,
                                      "node_names": ["global_costmap/global_costmap"]}]


def test_under_a_pushed_namespace_the_nodes_take_it(launch) -> None:
    # nav2_bringup pushes /robot1 and passes namespace:=robot1 to the files it includes.
    specs = by_name(launch.node_specs("robot1", "/p.yaml", False, True, False, True, "/robot1"))
    assert specs["planner_server"]["namespace"] == ""
    assert specs["global_costmap"]["namespace"] == "global_costmap"
    assert specs["global_costmap"]["parameters"][-1]["map_topic"] == "/robot1/map"
    assert specs["lifecycle_manager_costmap"]["namespace"] == ""


def test_planner_server_waits_for_the_navigation_manager_and_follows_the_costmap(launch) -> None:
    (planner,) = launch.node_specs("robot1", "/p.yaml", True, True, False, False)
    assert (planner["package"], planner["executable"], planner["name"], planner["namespace"]) == (
        "grid_planner", "planner_node", "planner_server", "robot1"
    )
    parameters = planner["parameters"]
    file_at = parameters.index("/p.yaml")
    # `-p` rules ahead of the file (rcl applies them before any entry keyed by the node), so
    # the file may change each under any key: use_sim_time as Nav2's bringup passes it, and our
    # Nav2 settings. The autostart_node argument is keyed by the node after the file: it wins.
    ours = dict(rule(parameter) for parameter in parameters[:file_at])
    assert ours["use_sim_time"] is True
    assert (ours["map_topic"], ours["cost_model"]) == ("global_costmap/costmap", "costmap")
    assert (ours["occupied_threshold"], ours["robot_radius"]) == (99, 0.0)
    assert not ours["subscribe_goal_pose"] and not ours["subscribe_initialpose"]
    assert parameters[file_at + 1:] == [{"autostart_node": False}]
    assert ("/tf", "tf") in planner["remappings"]


def test_shipped_nav2_params_hold_jazzys_planner_block_and_a_global_costmap() -> None:
    params = yaml.safe_load((PROJECT_ROOT / "config" / "nav2_params.yaml").read_text())
    planner = params["/**/planner_server"]["ros__parameters"]
    assert planner["planner_plugins"] == ["GridBased"]
    assert planner["GridBased"]["plugin"] == "nav2_navfn_planner::NavfnPlanner"
    costmap = params["/**/global_costmap"]["ros__parameters"]
    assert "static_layer" in costmap["plugins"] and costmap["always_send_full_costmap"]
