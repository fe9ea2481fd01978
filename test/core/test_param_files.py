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
    assert wildcard_only_keys(argv, "planner_server") == {
        "default_timeout", "shared.group", "nested_wild"}
    # Another node's blocks do not name a key for this one.
    assert wildcard_only_keys(argv, "controller_server") == {
        "use_sim_time", "default_timeout", "shared.group", "nested_wild"}


def test_a_key_another_node_overrides_is_still_shared(tmp_path: Path) -> None:
    # default_timeout was named in planner_server's WARN when bt_navigator's block gave it too.
    path = tmp_path / "params.yaml"
    path.write_text("/**:\n  ros__parameters:\n    default_timeout: 5.0\n"
                    "bt_navigator:\n  ros__parameters:\n    default_timeout: 7.0\n"
                    "planner_server:\n  ros__parameters:\n    tolerance: 0.5\n")
    assert wildcard_only_keys(["x", "--params-file", str(path)], "planner_server") == {
        "default_timeout"}


def test_a_file_of_one_wildcard_block_is_the_nodes_own(tmp_path: Path) -> None:
    # launch_ros writes a launch file's parameters dict so for a node without a namespace: a
    # typo there went unnamed.
    path = tmp_path / "launch_params_x"
    path.write_text(yaml.dump({"/**": {"ros__parameters": {"algoritm": "bfs"}}}))
    assert wildcard_only_keys(["x", "--params-file", str(path)], "planner_server") == (
        frozenset())


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
    assert wildcard_only_keys(["planner_node"], "a") == frozenset()
    assert wildcard_only_keys(["x", "--params-file", str(broken)], "a") == frozenset()
    assert wildcard_only_keys(["x", "--params-file", str(tmp_path / "missing.yaml")], "a") == (
        frozenset())
    assert wildcard_only_keys(["x", "--params-file"], "a") == frozenset()
