"""Which parameter-file keys a node gets only from wildcard blocks (left out of its
unknown-key warning)."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from grid_planner.nodes.param_files import (
    initialised_arguments,
    remember_arguments,
    wildcard_only_keys,
)

FILE = """\
/**:
  ros__parameters:
    use_sim_time: true
    default_timeout: 5.0
    shared:
      group: 1
/**/planner_server:
  ros__parameters:
    use_sim_time: true
    expected_planner_frequencyy: 20.0
robot1:
  "**":
    ros__parameters:
      nested_wild: 2
  planner_server:
    ros__parameters:
      nested_named: 3
"""


def test_keys_given_only_by_wildcard_blocks(tmp_path: Path) -> None:
    path = tmp_path / "params.yaml"
    path.write_text(FILE)
    argv = ["planner_node", "--ros-args", "--params-file", str(path)]
    assert wildcard_only_keys(argv, "/robot1/planner_server") == {
        "default_timeout", "shared.group", "nested_wild"}
    # robot1's blocks do not apply outside /robot1, nor planner_server's to another node.
    assert wildcard_only_keys(argv, "/planner_server") == {"default_timeout", "shared.group"}
    assert wildcard_only_keys(argv, "/controller_server") == {
        "use_sim_time", "default_timeout", "shared.group"}


def write(tmp_path: Path, name: str, blocks: dict) -> str:
    path = tmp_path / name
    path.write_text(yaml.dump({block: {"ros__parameters": values}
                               for block, values in blocks.items()}))
    return str(path)


def test_another_nodes_block_does_not_name_a_key_for_this_one(tmp_path: Path) -> None:
    # default_timeout was named in planner_server's WARN when bt_navigator's block gave it
    # too, and in /robot1/grid_planner's when /robot2/grid_planner's did.
    nav2 = write(tmp_path, "nav2.yaml", {"/**": {"default_timeout": 5.0},
                                         "bt_navigator": {"default_timeout": 7.0},
                                         "planner_server": {"tolerance": 0.5}})
    assert wildcard_only_keys(["x", "--params-file", nav2], "/planner_server") == {
        "default_timeout"}
    robots = write(tmp_path, "robots.yaml", {"/**": {"default_timeout": 5.0},
                                             "/robot2/grid_planner": {"default_timeout": 7.0},
                                             "/robot1/grid_planner": {"algorithm": "astar"}})
    assert wildcard_only_keys(["x", "--params-file", robots], "/robot1/grid_planner") == {
        "default_timeout"}


def test_one_wildcard_block_for_all_nodes_is_shared(tmp_path: Path) -> None:
    # bringup and grid_planner.launch.py take one file for all their nodes: grid_planner named
    # the puzzle node's keys of a file of one /** block.
    shared = write(tmp_path, "all.yaml", {"/**": {"algorithm": "astar",
                                                  "default_algorithm": "auto"}})
    assert wildcard_only_keys(["x", "--params-file", shared], "/grid_planner") == {
        "algorithm", "default_algorithm"}


def test_a_launch_files_parameters_dict_is_the_nodes_own(tmp_path: Path) -> None:
    # launch_ros writes it as one /** block when the launch file leaves the node's name or
    # namespace out: a typo there went unnamed, also where a shared file gave the same key.
    nav2 = write(tmp_path, "nav2.yaml", {"/**": {"default_timeout": 5.0, "use_sim_time": True},
                                         "bt_navigator": {"default_timeout": 7.0}})
    own = write(tmp_path, "launch_params_x1y2", {"/**": {"default_timeout": 3.0,
                                                        "algoritm": "bfs"}})
    argv = ["x", "--ros-args", "--params-file", nav2, "--params-file", own]
    assert wildcard_only_keys(argv, "/planner_server") == {"use_sim_time"}


def test_the_arguments_rclpy_was_given_are_read_where_recorded() -> None:
    remember_arguments(["bringup", "--ros-args", "--params-file", "a.yaml"])
    try:
        assert initialised_arguments() == ["bringup", "--ros-args", "--params-file", "a.yaml"]
    finally:
        remember_arguments([])
    assert initialised_arguments() == sys.argv


def test_no_file_or_an_unreadable_one_gives_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("a: [1, 2\n")
    assert wildcard_only_keys(["planner_node"], "/a") == frozenset()
    assert wildcard_only_keys(["x", "--params-file", str(broken)], "/a") == frozenset()
    assert wildcard_only_keys(["x", "--params-file", str(tmp_path / "missing.yaml")], "/a") == (
        frozenset())
    assert wildcard_only_keys(["x", "--params-file"], "/a") == frozenset()
