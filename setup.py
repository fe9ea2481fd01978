"""ament_python build of grid_planner: the package, its launch and config files, executables."""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = "grid_planner"
SHARE = f"share/{PACKAGE}"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*", "bench", "tools"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (SHARE, ["package.xml"]),
        (f"{SHARE}/launch", glob("launch/*.launch.py")),
        (f"{SHARE}/config", glob("config/*.yaml") + glob("config/*.rviz")),
        (f"{SHARE}/config/maps", glob("config/maps/*.yaml") + glob("config/maps/*.pgm")),
    ],
    install_requires=["setuptools"],
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
