"""ament_python build of grid_planner: the package, its launch and config files, executables."""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = "grid_planner"
SHARE = f"share/{PACKAGE}"

# What the search core and the `grid-planner` command line import, for `pip install .` without
# ROS (test/core/test_packaging.py checks the list against the imports and package.xml). A ROS
# install gets the same libraries from package.xml's <exec_depend>s (rosdep, apt); colcon neither
# installs nor checks these, and its console scripts find their entry point through
# importlib.metadata without resolving requirements. So: lower bounds, never pins (constraints.txt
# pins what the venv tests with), each met by Ubuntu 24.04's apt packages for Jazzy, because a
# process that imports pkg_resources resolves them through the script's `__requires__`.
# numba is a requirement, not an extra, as package.xml's python3-numba is: without it every
# kernel runs as plain Python, correct but many times slower, and the README's numbers and the
# default timeouts assume compiled kernels. Where numba has no wheel, `pip install --no-deps .`
# plus the others by hand gives that fallback. ROS packages (rclpy, the msgs, launch) are never
# pip requirements: only grid_planner.nodes imports them, and they come from ROS.
INSTALL_REQUIRES = [
    "numpy>=1.26",
    "numba>=0.58",
    "pyyaml>=6.0",
    "pillow>=10.0",  # Image.Resampling
    "platformdirs>=3.0",
    "filelock>=3.12",
    "tqdm>=4.66",
]

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*", "bench", "tools"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (SHARE, ["package.xml"]),
        (f"{SHARE}/launch", glob("launch/*.launch.py")),
        (f"{SHARE}/config", glob("config/*.yaml") + glob("config/*.rviz") + glob("config/*.xml")),
        (f"{SHARE}/config/maps", glob("config/maps/*.yaml") + glob("config/maps/*.pgm")),
    ],
    install_requires=INSTALL_REQUIRES,
    zip_safe=True,
    maintainer="grid_planner developers",
    maintainer_email="dev@grid-planner.local",
    description="BFS, DFS and A* planning on occupancy grids and a sliding-puzzle solver.",
    license="Apache-2.0",
    entry_points={
        "console_scripts": [
            "planner_node = grid_planner.nodes.entry:planner_node",
            "puzzle_node = grid_planner.nodes.entry:puzzle_node",
            "map_publisher = grid_planner.nodes.entry:map_publisher",
            "bringup = grid_planner.nodes.entry:bringup",
            "grid-planner = grid_planner.cli:main",
        ],
    },
)
