"""The Nav2 interfaces and bondpy the tests talk to the nodes with are Jazzy's own.

A client built against a different definition of a type does not interoperate with Nav2, so
the type hashes (RIHS01) of the installed definitions are pinned to Jazzy's. Where a real ROS
installation provides the packages they are checked there; otherwise the test set-up
(`make test-env`) built them from the shared folder, and without it these tests skip with the
reason (fail under CI=true).
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest
from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
from nav2_clients import require
from shared_data import shared_dir, unavailable

# Jazzy's type hashes (every Jazzy release agrees; Kilted changed ComputePathThroughPoses and
# IsPathValid).
JAZZY_TYPE_HASHES = {
    "nav2_msgs/action/ComputePathToPose":
        "RIHS01_b11d50c914791956069419b8f4ad441e3c66fcfbd9461f8e87110b77dc6febe9",
    "nav2_msgs/action/ComputePathThroughPoses":
        "RIHS01_bb3cde2342f7eadfe65ed4dff5253edc37e44ae14a3fcee77272d7fef552440c",
    "nav2_msgs/srv/IsPathValid":
        "RIHS01_0949cf401a29b88bd6e2a8cd8c1df0ccd9374ca4e51557266eaab2b0a9db5778",
    "nav2_msgs/msg/Costmap":
        "RIHS01_d51bf7aecafdbb3f8f98215de648abe6d53f8db69156d6e143125d2ad2bf0027",
    "nav2_msgs/msg/CostmapUpdate":
        "RIHS01_b44706e1f0906a3f72a1640bc2153e85576ff8e8ad203ec48b78c187669168a2",
    "map_msgs/msg/OccupancyGridUpdate":
        "RIHS01_c4095b0be2e4363f8978a1570e0293ee093436f1e1c61d99b48502ac317025e8",
    "bond/msg/Status":
        "RIHS01_87eaccffa254ffffadc0b61600452e8251740f06c25659a2dbda4927fdb1f70a",
}
PYTHON_MODULES = ("nav2_msgs.action", "nav2_msgs.srv", "nav2_msgs.msg", "map_msgs.msg",
                  "bond.msg", "smclib.statemap", "bondpy.bondpy")


@pytest.mark.parametrize("module", PYTHON_MODULES)
def test_module_imports(module: str) -> None:
    require(module)
    importlib.import_module(module)


@pytest.mark.parametrize("type_name", sorted(JAZZY_TYPE_HASHES))
def test_installed_definition_has_jazzys_type_hash(type_name: str) -> None:
    package, kind, name = type_name.split("/")
    require(f"{package}.{kind}")
    try:
        share = Path(get_package_share_directory(package))
    except PackageNotFoundError:
        unavailable(f"{package} imports but is not in the ament index (AMENT_PREFIX_PATH)")
    description = json.loads((share / kind / f"{name}.json").read_text())
    hashes = {entry["type_name"]: entry["hash_string"] for entry in description["type_hashes"]}
    assert hashes[f"{package}/{kind}/{name}"] == JAZZY_TYPE_HASHES[type_name]


def test_pins_agree_with_the_shared_folders_table() -> None:
    readme = shared_dir() / "interfaces" / "README.md"
    if not readme.is_file():
        unavailable(f"{readme} not found (set GRID_PLANNER_SHARED)")
    table = dict(re.findall(r"^\| `([\w/]+)` \| `(RIHS01_[0-9a-f]{64})` \|$",
                            readme.read_text(), re.MULTILINE))
    assert table == JAZZY_TYPE_HASHES
