"""Over-ROS overhead: a service round trip against the same solve or plan in-process.

Starts the project's `map_publisher` (TurtleBot3 map), `planner_node` and `puzzle_node`
executables from the virtual environment on a private DDS domain (localhost discovery only),
then times `solve_puzzle`, `compute_path` and `plan_path` calls from a client node in this
process against `solve(...)` and `plan(...)` called directly (timed first, before any node or
executor thread runs), and a `get_parameters` call to each node as the baseline cost of a
round trip that does no work.

Overhead of a call = its round trip minus the node's own `planning_time` of that same call where
the answer carries one (the solve measured inside the node's process, so machine noise in the
solve does not count as overhead), else minus the in-process median. Big paths are also fetched
by a client that takes the answer raw (`grid_planner.nodes.prebuilt.raw_response_type`, then
decodes it with NumPy inside the timed round trip): with rclpy's generated Python response the
client's own conversion of thousands of PoseStamped objects is most of the round trip, whatever
the server does.
Prints one JSON line (the last line of stdout) for `run_all.py`; run it from the repository root.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import puzzle_sets
import scenarios
from puzzle_planners import best_project_heuristic

CALLS = 20
BIG_MAP_SEED = 2024  # grid_bench.SEED: the same 2048^2 random map as the grid benchmark
READY_TIMEOUT_S = 60.0
BIN_DIR = Path(sys.executable).parent


def set_ros_environment(log_dir: Path) -> None:
    """Set what rclpy (imported later) and the nodes need: the venv first on the ament prefix
    path, localhost discovery, a domain of this run's own and ROS logs in `log_dir` (unless
    those two are set already)."""
    prefixes = [str(BIN_DIR.parent), *filter(None, os.environ.get("AMENT_PREFIX_PATH", "")
                                             .split(os.pathsep))]
    os.environ["AMENT_PREFIX_PATH"] = os.pathsep.join(dict.fromkeys(prefixes))
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ.setdefault("ROS_DOMAIN_ID", str(1 + os.getpid() % 100))
    os.environ.setdefault("ROS_LOG_DIR", str(log_dir))
    os.environ["PYTHONUNBUFFERED"] = "1"


@contextmanager
def node_process(
    executable: str, args: list[str], ready: str, log_dir: Path, log_name: str | None = None
):
    """Run one of the package's executables until the block ends, once it printed `ready`."""
    log_path = log_dir / f"{log_name or executable}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen([str(BIN_DIR / executable), *args], stdout=log,
                                   stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + READY_TIMEOUT_S
            while ready not in log_path.read_text(errors="replace"):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{executable} did not print {ready!r}: "
                                       f"{log_path.read_text(errors='replace')[-500:]}")
                time.sleep(0.05)
            yield process
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class Caller:
    """A client node spun in a background thread; `call` is one timed round trip."""

    def __init__(self) -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        rclpy.init()
        self.node = rclpy.create_node(f"bench_client_{os.getpid()}")
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def client(self, service_type: type, name: str):
        """A client of `name`, once the service is there."""
        client = self.node.create_client(service_type, name)
        if not client.wait_for_service(timeout_sec=READY_TIMEOUT_S):
            raise RuntimeError(f"service {name} did not appear")
        return client

    def call(self, client, request, receive: Callable[[object], object]) -> tuple[float, object]:
        """`(seconds, answer)` of one round trip, `receive` (reading the response) included."""
        done = threading.Event()
        began = time.perf_counter()
        future = client.call_async(request)
        future.add_done_callback(lambda _future: done.set())
        if not done.wait(60.0):
            raise RuntimeError(f"{client.srv_name} did not answer")
        answer = receive(future.result())
        return time.perf_counter() - began, answer

    def close(self) -> None:
        """Stop spinning and shut rclpy down."""
        import rclpy

        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.shutdown()


@dataclass(frozen=True)
class Case:
    """One service call and the same work done in-process."""

    name: str
    service_type: type  # what the client is created with (a raw stand-in for raw clients)
    service: str
    request: object
    in_process: Callable[[], object]
    planning_time: Callable[[object], float | None]  # the node's own timing; None: not reported
    receive: Callable[[object], object] = lambda response: response  # a raw answer's decoding


def _median_ms(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1e3


def puzzle_cases() -> list[Case]:
    """`solve_puzzle` against `solve` on a hard 8-puzzle (A* with linear conflict, and with the
    exact table, whose solve is too short for noise to matter) and an easy Korf 15-puzzle (IDA*
    with the strongest heuristic on offer)."""
    from grid_planner_interfaces.srv import SolvePuzzle

    from grid_planner.puzzle.solver import solve

    def planning_time(response) -> float:
        if not response.success:
            raise RuntimeError(f"solve_puzzle failed: {response.message}")
        return response.planning_time

    easiest = min(puzzle_sets.korf_100(), key=lambda k: k.ida_md_nodes)
    strongest = best_project_heuristic()
    return [
        Case(f"{title}, {algorithm}/{heuristic}", SolvePuzzle, "solve_puzzle",
             SolvePuzzle.Request(board=list(board), algorithm=algorithm, heuristic=heuristic),
             lambda b=board, a=algorithm, h=heuristic: solve(b, None, a, h), planning_time)
        for title, board, algorithm, heuristic in (
            ("8-puzzle, 31 moves", puzzle_sets.HARDEST_8[0], "astar", "linear_conflict"),
            ("8-puzzle, 31 moves", puzzle_sets.HARDEST_8[0], "astar", "table"),
            (f"15-puzzle, Korf #{easiest.number}", easiest.board, "idastar", strongest),
        )
    ]


def end_poses(scenario, occupancy) -> list:
    """PoseStamped messages (frame `map`) at the centres of the scenario's start and goal."""
    from geometry_msgs.msg import PoseStamped

    poses = []
    for cell in (scenario.start, scenario.goal):
        pose = PoseStamped()
        pose.header.frame_id = "map"
        pose.pose.position.x, pose.pose.position.y = occupancy.cell_to_world(*cell)
        pose.pose.orientation.w = 1.0
        poses.append(pose)
    return poses


def grid_case(occupancy) -> Case:
    """`compute_path` against `plan` on the TurtleBot3 map (A*, far-apart free cells)."""
    from grid_planner_interfaces.srv import ComputePath

    from grid_planner.grid.planner import plan
    from grid_planner.grid.planning_grid import PlanningGrid

    scenario = scenarios.turtlebot3_world()
    poses = end_poses(scenario, occupancy)

    def planning_time(response) -> float:
        if response.error_code != 0:
            raise RuntimeError(f"compute_path failed: {response.error_msg}")
        return response.planning_time.sec + response.planning_time.nanosec * 1e-9

    grid = PlanningGrid(occupancy)
    return Case("grid A*, TurtleBot3 map", ComputePath, "compute_path",
                ComputePath.Request(start=poses[0], goal=poses[1], use_start=True,
                                    algorithm="astar"),
                lambda: plan(grid, scenario.start, scenario.goal), planning_time)


def big_map_cases(scenario, occupancy) -> list[Case]:
    """`plan_path` (GetPlan: a bare Path of ~4,000 poses) and `compute_path` against `plan` on
    the 2048^2 map, on the planner in namespace /big that the client fed this map; each by a
    client that takes the answer raw and by rclpy's generated client."""
    from grid_planner_interfaces.srv import ComputePath
    from nav_msgs.srv import GetPlan

    from grid_planner.grid.planner import plan
    from grid_planner.grid.planning_grid import PlanningGrid
    from grid_planner.nodes.cdr import decode_compute_path_answer, decode_path
    from grid_planner.nodes.prebuilt import raw_response_type

    poses = end_poses(scenario, occupancy)
    grid = PlanningGrid(occupancy)
    pose_count = plan(grid, scenario.start, scenario.goal).length + 1

    def checked(count: int) -> None:
        if count != pose_count:
            raise RuntimeError(f"the answer has {count} poses, not {pose_count}")

    def get_plan_time(response) -> None:
        checked(len(response.plan.poses))  # GetPlan carries no timing

    def raw_get_plan_time(path) -> None:
        checked(path.pose_count)

    def compute_time(response) -> float:
        checked(len(response.path.poses))
        return response.planning_time.sec + response.planning_time.nanosec * 1e-9

    def raw_compute_time(answer) -> float:
        checked(answer.path.pose_count)
        return answer.planning_time_sec + answer.planning_time_nanosec * 1e-9

    def in_process():
        return plan(grid, scenario.start, scenario.goal)

    get_plan = GetPlan.Request(start=poses[0], goal=poses[1])
    compute = ComputePath.Request(start=poses[0], goal=poses[1], use_start=True)
    title = f"grid A*, 2048^2 random map ({pose_count} poses)"
    return [
        Case(f"{title}, plan_path, raw client", raw_response_type(GetPlan), "/big/plan_path",
             get_plan, in_process, raw_get_plan_time, decode_path),
        Case(f"{title}, plan_path, rclpy client", GetPlan, "/big/plan_path", get_plan,
             in_process, get_plan_time),
        Case(f"{title}, compute_path, raw client", raw_response_type(ComputePath),
             "/big/compute_path", compute, in_process, raw_compute_time,
             decode_compute_path_answer),
        Case(f"{title}, compute_path, rclpy client", ComputePath, "/big/compute_path", compute,
             in_process, compute_time),
    ]


def publish_map(caller: Caller, topic: str, occupancy) -> object:
    """Publish `occupancy` latched on `topic` from the client node; returns the publisher."""
    from nav_msgs.msg import OccupancyGrid

    from grid_planner.nodes.conversions import map_to_msg
    from grid_planner.nodes.qos import MAP_QOS

    publisher = caller.node.create_publisher(OccupancyGrid, topic, MAP_QOS)
    publisher.publish(map_to_msg(occupancy, caller.node.get_clock().now().to_msg()))
    return publisher


def wait_for_log(path: Path, text: str) -> None:
    """Wait until `text` appears in the log file at `path`."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while text not in path.read_text(errors="replace"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{path.name} never printed {text!r}")
        time.sleep(0.05)


def baseline_cases() -> list[Case]:
    """A `get_parameters` round trip to each node: transport plus executor, no work."""
    from rcl_interfaces.srv import GetParameters

    return [
        Case(f"baseline: {node} get_parameters", GetParameters, f"{node}/get_parameters",
             GetParameters.Request(names=[parameter]), lambda: None, lambda _response: None)
        for node, parameter in (("puzzle_solver", "max_nodes"), ("grid_planner", "algorithm"))
    ]


def in_process_times(case: Case) -> list[float]:
    """Seconds of CALLS in-process runs of the case's work, after one untimed run."""
    case.in_process()
    times = []
    for _ in range(CALLS):
        began = time.perf_counter()
        case.in_process()
        times.append(time.perf_counter() - began)
    return times


def round_trips(caller: Caller, case: Case) -> tuple[list[float], list[float | None]]:
    """Seconds of CALLS round trips (after one untimed call), and the node's planning times."""
    client = caller.client(case.service_type, case.service)
    caller.call(client, case.request, case.receive)
    times, reported = [], []
    for _ in range(CALLS):
        seconds, response = caller.call(client, case.request, case.receive)
        times.append(seconds)
        reported.append(case.planning_time(response))
    return times, reported


def measure(log_dir: Path) -> dict:
    """Time every case in-process (nothing else running), then start the nodes (their output
    goes to `log_dir`) and time the same cases over ROS, then stop the nodes."""
    from grid_planner.grid.map_io import load_map
    from grid_planner.grid.occupancy import OccupancyMap

    map_yaml = scenarios.shared_dir() / "maps" / "turtlebot3_world.yaml"
    occupancy = load_map(map_yaml)
    big = scenarios.random_obstacles(2048, BIG_MAP_SEED)
    big_map = OccupancyMap(width=big.width, height=big.height, resolution=0.05,
                           data=np.asarray(big.blocked, dtype=np.int8).reshape(-1) * 100)
    cases = [*baseline_cases(), *puzzle_cases(), grid_case(occupancy),
             *big_map_cases(big, big_map)]
    local = [in_process_times(case) for case in cases]
    with ExitStack() as stack:
        stack.enter_context(node_process("puzzle_node", [], "ready", log_dir))
        stack.enter_context(node_process("planner_node", [], "ready", log_dir))
        stack.enter_context(node_process(
            "planner_node", ["--ros-args", "-r", "__ns:=/big"], "ready", log_dir, "big_planner"))
        stack.enter_context(node_process(
            "map_publisher", ["--ros-args", "-p", f"yaml_filename:={map_yaml}"], "ready",
            log_dir))
        caller = Caller()
        stack.callback(caller.close)
        publish_map(caller, "/big/map", big_map)
        wait_for_log(log_dir / "planner_node.log", "map received in frame")
        wait_for_log(log_dir / "big_planner.log", "map received in frame")
        remote = [round_trips(caller, case) for case in cases]
    return {"calls": CALLS, "cases": [
        case_result(case.name, in_process, round_trip, reported)
        for case, in_process, (round_trip, reported) in zip(cases, local, remote, strict=True)
    ]}


def case_result(name: str, in_process: list[float], round_trip: list[float],
                reported: list[float | None]) -> dict:
    """Medians of one case; the overhead pairs each round trip with the node's own time of
    that call when the answers report one."""
    paired = None not in reported
    overheads = ([trip - solve for trip, solve in zip(round_trip, reported, strict=True)]
                 if paired else [trip - statistics.median(in_process) for trip in round_trip])
    return {
        "case": name, "round_trip_ms": _median_ms(round_trip),
        "in_process_ms": _median_ms(in_process),
        "node_planning_time_ms": _median_ms(reported) if paired else None,
        "overhead_vs_in_process_ms": _median_ms(round_trip) - _median_ms(in_process),
        "overhead_ms": _median_ms(overheads),
        "overhead_paired": paired,
    }


def main() -> int:
    """Measure and print the JSON line; exit 1 (with the reason on stderr) on failure."""
    missing = [name for name in ("puzzle_node", "planner_node", "map_publisher")
               if not (BIN_DIR / name).exists()]
    if missing:
        print(json.dumps({"error": f"executables not installed: {', '.join(missing)}"}))
        return 1
    with tempfile.TemporaryDirectory(prefix="grid_planner_bench_ros_") as scratch:
        set_ros_environment(Path(scratch))
        try:
            answer = measure(Path(scratch))
        except Exception as error:  # report, don't crash the caller's run
            print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
            return 1
    for case in answer["cases"]:
        print(f"{case['case']}: round trip {case['round_trip_ms']:.2f} ms, in-process "
              f"{case['in_process_ms']:.2f} ms, overhead {case['overhead_ms']:.2f} ms",
              file=sys.stderr)
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
