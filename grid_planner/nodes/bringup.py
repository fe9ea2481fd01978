"""Run map_publisher, planner_node and puzzle_node in one process (for installs without launch).

Takes the same settings as `launch/grid_planner.launch.py`, as flags:

    bringup --map office.yaml --params-file my_params.yaml --namespace robot1 --use-sim-time
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rclpy.node import Node
from rclpy.parameter import Parameter

from grid_planner.nodes.paths import config_file


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The bringup flags; anything after `--ros-args` is left for rclpy."""
    parser = argparse.ArgumentParser(
        prog="bringup", description="map_publisher + grid_planner + puzzle_solver in one process"
    )
    parser.add_argument(
        "--map", type=Path, default=config_file("maps/demo_map.yaml"),
        help="map_server YAML that map_publisher serves (default: the package's demo map)",
    )
    parser.add_argument(
        "--params-file", type=Path, default=None,
        help="parameter file for all nodes (default: config/planner.yaml and config/puzzle.yaml)",
    )
    parser.add_argument(
        "--use-map-publisher", action=argparse.BooleanOptionalAction, default=True,
        help="--no-use-map-publisher when map_server or slam_toolbox already publishes map",
    )
    parser.add_argument("--namespace", default="", help="namespace of all three nodes")
    parser.add_argument("--use-sim-time", action="store_true",
                        help="use the /clock topic (without it, use_sim_time from a parameters "
                        "file or -p applies)")
    parser.add_argument(
        "--threads", type=int, default=0,
        help="executor threads shared by the nodes, at least (default 0: as many as the "
        "nodes' request limits can hold, max_concurrent_* + max_queued_*, plus spares)",
    )
    return parser.parse_args(argv)


def node_factories(options: argparse.Namespace) -> list[Callable[[], Node]]:
    """Constructors for the nodes bringup runs, with the flags applied."""
    from grid_planner.nodes.map_publisher import MapPublisher
    from grid_planner.nodes.planner_node import PlannerNode
    from grid_planner.nodes.puzzle_node import PuzzleNode

    # The flag sets use_sim_time; without it a parameters file or `-p` may (an override here
    # would outrank both).
    sim_time = ([Parameter("use_sim_time", Parameter.Type.BOOL, True)]
                if options.use_sim_time else [])
    common = {"namespace": options.namespace}
    factories: list[Callable[[], Node]] = []
    if options.use_map_publisher:
        map_yaml = Parameter("yaml_filename", Parameter.Type.STRING, str(options.map.resolve()))
        factories.append(lambda: MapPublisher(parameter_overrides=[map_yaml, *sim_time],
                                              **common))
    factories.append(lambda: PlannerNode(parameter_overrides=sim_time, **common))
    factories.append(lambda: PuzzleNode(parameter_overrides=sim_time, **common))
    return factories


def ros_arguments(options: argparse.Namespace, extra: Sequence[str]) -> list[str]:
    """rclpy arguments: the parameter files, then whatever the user gave after --ros-args."""
    if options.params_file is not None:
        files = [options.params_file]
    else:
        files = [config_file("planner.yaml"), config_file("puzzle.yaml")]
    args = ["--ros-args"]
    for path in files:
        if not Path(path).is_file():
            raise SystemExit(f"bringup: parameter file {path} not found")
        args += ["--params-file", str(path)]
    return [*args, *extra]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `bringup` console script."""
    from grid_planner.nodes.ros_names import check_namespace
    from grid_planner.nodes.runtime import spin_nodes

    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--ros-args" in argv:
        split = argv.index("--ros-args")
        argv, extra = argv[:split], argv[split + 1 :]
    options = parse_args(argv)
    if options.threads < 0:
        raise SystemExit("bringup: --threads must not be negative")
    if options.use_map_publisher and not options.map.is_file():
        raise SystemExit(f"bringup: map file {options.map} not found")
    namespace_problem = check_namespace(options.namespace)
    if namespace_problem is not None:
        raise SystemExit(f"bringup: --namespace {options.namespace!r}: {namespace_problem}")
    args = ["bringup", *ros_arguments(options, extra)]
    factories = node_factories(options)
    ready = f"ready: bringup runs {len(factories)} nodes"
    return spin_nodes(factories, num_threads=options.threads, args=args, ready_message=ready)


if __name__ == "__main__":
    sys.exit(main())
