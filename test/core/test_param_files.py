"""Which parameter-file keys a node gets only from wildcard blocks (left out of its
unknown-key warning)."""

from __future__ import annotations

from pathlib import Path

from grid_planner.nodes.param_files import wildcard_only_keys

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
    assert wildcard_only_keys(argv) == {"default_timeout", "shared.group", "nested_wild"}


def test_no_file_or_an_unreadable_one_gives_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("a: [1, 2\n")
    assert wildcard_only_keys(["planner_node"]) == frozenset()
    assert wildcard_only_keys(["x", "--params-file", str(broken)]) == frozenset()
    assert wildcard_only_keys(["x", "--params-file", str(tmp_path / "missing.yaml")]) == (
        frozenset())
    assert wildcard_only_keys(["x", "--params-file"]) == frozenset()
