"""`pip install .` without ROS gives a working `grid-planner`: setup.py declares what it imports.

Every third-party module that grid_planner imports outside `grid_planner/nodes` (the ROS
adapters) must be named by setup.py's `install_requires`, or a fresh venv's `grid-planner` dies
with a ModuleNotFoundError traceback; and package.xml must name the same libraries for rosdep,
and exactly the ROS packages the nodes and launch files import.
No pip and no network: the imports are read with `ast` and setup.py runs with `setup` replaced.
"""

from __future__ import annotations

import ast
import re
import runpy
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import setuptools
from shared_data import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "grid_planner"
ROS_ADAPTERS = PACKAGE / "nodes"
# Import name -> distribution name, where they differ.
DISTRIBUTION_OF = {"yaml": "pyyaml", "PIL": "pillow"}
# Distribution name -> rosdep key in package.xml, where it is not python3-<name>.
ROSDEP_KEY_OF = {"pyyaml": "python3-yaml", "pillow": "python3-pil"}
ROS_PACKAGES = re.compile(r"^(ros[-_]|rclpy|launch|ament|rosidl|.*_msgs$|.*-msgs$)")
# ROS module -> the package.xml key of the ROS package that installs it, where they differ.
ROS_PACKAGE_OF = {"tf2_ros": "tf2_ros_py"}


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _setup_arguments(monkeypatch) -> dict:
    captured: dict = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: captured.update(kwargs))
    monkeypatch.chdir(PROJECT_ROOT)
    runpy.run_path(str(PROJECT_ROOT / "setup.py"), run_name="__main__")
    return captured


def _requirement_names(requirements: list[str]) -> set[str]:
    return {_normalise(re.split(r"[\s<>=!~;\[]", text, maxsplit=1)[0]) for text in requirements}


def _third_party_imports(*, with_ros: bool = False) -> dict[str, set[str]]:
    """Top-level modules imported (at any depth, lazily too) outside the ROS adapters -> files;
    `with_ros` reads the ROS adapters and the launch files too."""
    found: dict[str, set[str]] = {}
    sources = [*PACKAGE.rglob("*.py"), *(PROJECT_ROOT / "launch").glob("*.py")]
    for path in sources:
        if not with_ros and not path.is_relative_to(PACKAGE):
            continue
        if not with_ros and path.is_relative_to(ROS_ADAPTERS):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top not in {"grid_planner", "__future__"}:
                    found.setdefault(top, set()).add(str(path.relative_to(PROJECT_ROOT)))
    return found


def test_install_requires_covers_every_third_party_import_of_the_core_and_cli(monkeypatch):
    declared = _requirement_names(_setup_arguments(monkeypatch)["install_requires"])
    imports = _third_party_imports()
    assert "numpy" in imports  # the scan sees the core's imports at all
    missing = {
        name: sorted(files) for name, files in imports.items()
        if _normalise(DISTRIBUTION_OF.get(name, name)) not in declared
    }
    assert not missing, f"imported but not in setup.py's install_requires: {missing}"


def test_install_requires_names_no_ros_package_and_pins_nothing(monkeypatch):
    requirements = _setup_arguments(monkeypatch)["install_requires"]
    assert not [text for text in requirements if ROS_PACKAGES.match(_normalise(text))]
    # Lower bounds only: a ROS install brings its own NumPy etc. and must satisfy them.
    assert not [text for text in requirements if "==" in text or "<" in text]


def test_package_xml_names_the_same_libraries_for_rosdep(monkeypatch):
    declared = _requirement_names(_setup_arguments(monkeypatch)["install_requires"])
    root = ET.parse(PROJECT_ROOT / "package.xml").getroot()
    keys = {element.text for tag in ("depend", "exec_depend") for element in root.iter(tag)}
    missing = sorted(
        name for name in declared if ROSDEP_KEY_OF.get(name, f"python3-{name}") not in keys
    )
    assert not missing, f"in install_requires but no <exec_depend> in package.xml: {missing}"


def test_package_xml_names_exactly_the_ros_packages_the_nodes_and_launch_files_import(
    monkeypatch,
):
    libraries = _requirement_names(_setup_arguments(monkeypatch)["install_requires"])
    imported = {
        ROS_PACKAGE_OF.get(name, name) for name in _third_party_imports(with_ros=True)
        if _normalise(DISTRIBUTION_OF.get(name, name)) not in libraries
    }
    assert {"rclpy", "nav_msgs", "launch_ros"} <= imported  # the scan sees the nodes at all
    root = ET.parse(PROJECT_ROOT / "package.xml").getroot()
    declared = {
        element.text for tag in ("depend", "exec_depend") for element in root.iter(tag)
        if not element.text.startswith("python3-")
    }
    assert sorted(imported - declared) == [], "imported but not in package.xml"
    assert sorted(declared - imported) == [], "in package.xml but imported nowhere"


_WITHOUT_ROS = """
import sys
for name in ("rclpy", "geometry_msgs", "nav_msgs", "grid_planner_interfaces"):
    sys.modules[name] = None  # as in a venv with no ROS
from grid_planner.nodes import entry
sys.exit(getattr(entry, sys.argv[1])())
"""


@pytest.mark.parametrize("executable", ["planner_node", "puzzle_node", "map_publisher", "bringup"])
def test_a_node_without_ros_says_so_in_one_line(executable):
    run = subprocess.run([sys.executable, "-c", _WITHOUT_ROS, executable], capture_output=True,
                         text=True, cwd=PROJECT_ROOT, timeout=120, check=False)
    assert (run.returncode, run.stdout) == (1, "")
    assert re.fullmatch(
        rf"{executable}: cannot start: no module named '[a-z_.]+' \(the nodes need ROS 2 Jazzy "
        r"and this workspace: source /opt/ros/jazzy/setup.bash and install/setup.bash; "
        r"grid-planner, the command line, runs without ROS\)\n",
        run.stderr,
    ), run.stderr
