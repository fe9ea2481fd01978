"""Over-ROS overhead: a service round trip against the same solve or plan in-process.

Starts the project's `map_publisher` (TurtleBot3 map), `planner_node` and `puzzle_node`
executables from the virtual environment on a private DDS domain (localhost discovery only),
then times `solve_puzzle` and `compute_path` calls from a client node in this process
against `solve(...)` and `plan(...)` called directly, and a `get_parameters` call to each
node as the baseline cost of a round trip that does no work. Prints one JSON line (the last line of
stdout) for `run_all.py`; run it from the repository root.
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
from contextlib import ExitStack, contextmanager
from pathlib import Path

import puzzle_sets
import scenarios

CALLS = 20
READY_TIMEOUT_S = 60.0
BIN_DIR = Path(sys.executable).parent


def set_ros_environment() -> None:
    """Set what rclpy (imported later) and the nodes need: the venv first on the ament prefix
    path, localhost discovery, a domain of this run's own (unless one is set), a log folder."""
    prefixes = [str(BIN_DIR.parent), *filter(None, os.environ.get("AMENT_PREFIX_PATH", "")
                                             .split(os.pathsep))]
    os.environ["AMENT_PREFIX_PATH"] = os.pathsep.join(dict.fromkeys(prefixes))
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ.setdefault("ROS_DOMAIN_ID", str(1 + os.getpid() % 100))
    os.environ.setdefault("ROS_LOG_DIR", tempfile.mkdtemp(prefix="grid_planner_bench_ros_"))
    os.environ["PYTHONUNBUFFERED"] = "1"


@contextmanager
def node_process(executable: str, args: list[str], ready: str, log_dir: Path):
    """Run one of the package's executables until the block ends, once it printed `ready`."""
    log_path = log_dir / f"{executable}.log"
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

    def call(self, client, request) -> tuple[float, object]:
        """`(seconds, response)` of one round trip."""
        done = threading.Event()
        began = time.perf_counter()
        future = client.call_async(request)
        future.add_done_callback(lambda _future: done.set())
        if not done.wait(60.0):
            raise RuntimeError(f"{client.srv_name} did not answer")
        return time.perf_counter() - began, future.result()

    def close(self) -> None:
        """Stop spinning and shut rclpy down."""
        import rclpy

        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.shutdown()


def _median_ms(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1e3


def _compare(case: str, round_trip: list[float], in_process: list[float],
             reported: list[float]) -> dict:
    return {"case": case, "round_trip_ms": _median_ms(round_trip),
            "in_process_ms": _median_ms(in_process), "node_planning_time_ms": _median_ms(reported),
            "overhead_ms": _median_ms(round_trip) - _median_ms(in_process)}


def _timed_calls(caller: Caller, client, request, check) -> tuple[list[float], list[float]]:
    caller.call(client, request)  # first call: connections, node-side warm-up
    round_trip, reported = [], []
    for _ in range(CALLS):
        seconds, response = caller.call(client, request)
        reported.append(check(response))
        round_trip.append(seconds)
    return round_trip, reported


def puzzle_cases(caller: Caller) -> list[dict]:
    """`solve_puzzle` against `solve` on a hard 8-puzzle and an easy Korf 15-puzzle."""
    from grid_planner_interfaces.srv import SolvePuzzle

    from grid_planner.puzzle.solver import solve

    client = caller.client(SolvePuzzle, "solve_puzzle")
    easiest = min(puzzle_sets.korf_100(), key=lambda k: k.ida_md_nodes)
    cases = [("8-puzzle, 31 moves, astar/linear_conflict", puzzle_sets.HARDEST_8[0], "astar"),
             (f"15-puzzle, Korf #{easiest.number}, idastar/linear_conflict", easiest.board,
              "idastar")]
    results = []
    for case, board, algorithm in cases:
        request = SolvePuzzle.Request(board=list(board), algorithm=algorithm,
                                      heuristic="linear_conflict")

        def check(response) -> float:
            if not response.success:
                raise RuntimeError(f"solve_puzzle failed: {response.message}")
            return response.planning_time

        round_trip, reported = _timed_calls(caller, client, request, check)
        in_process = []
        for _ in range(CALLS):
            began = time.perf_counter()
            solve(board, None, algorithm, "linear_conflict")
            in_process.append(time.perf_counter() - began)
        results.append(_compare(case, round_trip, in_process, reported))
    return results


def grid_case(caller: Caller, occupancy) -> dict:
    """`compute_path` against `plan` on the TurtleBot3 map (A*, far-apart free cells)."""
    from geometry_msgs.msg import PoseStamped
    from grid_planner_interfaces.srv import ComputePath

    from grid_planner.grid.planner import plan
    from grid_planner.grid.planning_grid import PlanningGrid

    scenario = scenarios.turtlebot3_world()
    poses = []
    for cell in (scenario.start, scenario.goal):
        pose = PoseStamped()
        pose.header.frame_id = "map"
        pose.pose.position.x, pose.pose.position.y = occupancy.cell_to_world(*cell)
        pose.pose.orientation.w = 1.0
        poses.append(pose)
    request = ComputePath.Request(start=poses[0], goal=poses[1], use_start=True,
                                  algorithm="astar")

    def check(response) -> float:
        if response.error_code != 0:
            raise RuntimeError(f"compute_path failed: {response.error_msg}")
        return response.planning_time.sec + response.planning_time.nanosec * 1e-9

    round_trip, reported = _timed_calls(caller, caller.client(ComputePath, "compute_path"),
                                        request, check)
    grid = PlanningGrid(occupancy)
    plan(grid, scenario.start, scenario.goal)  # the node has warmed up too
    in_process = []
    for _ in range(CALLS):
        began = time.perf_counter()
        plan(grid, scenario.start, scenario.goal)
        in_process.append(time.perf_counter() - began)
    return _compare("grid A*, TurtleBot3 map", round_trip, in_process, reported)


def baseline_cases(caller: Caller) -> list[dict]:
    """A `get_parameters` round trip to each node: transport plus executor, no work."""
    from rcl_interfaces.srv import GetParameters

    results = []
    for node, parameter in (("puzzle_solver", "max_nodes"), ("grid_planner", "algorithm")):
        client = caller.client(GetParameters, f"{node}/get_parameters")
        round_trip, _ = _timed_calls(caller, client, GetParameters.Request(names=[parameter]),
                                     lambda _response: 0.0)
        results.append({"case": f"baseline: {node} get_parameters",
                         "round_trip_ms": _median_ms(round_trip), "in_process_ms": 0.0,
                         "node_planning_time_ms": 0.0, "overhead_ms": _median_ms(round_trip)})
    return results


def measure() -> dict:
    """Start the nodes, time both services, stop the nodes."""
    from grid_planner.grid.map_io import load_map

    map_yaml = scenarios.shared_dir() / "maps" / "turtlebot3_world.yaml"
    occupancy = load_map(map_yaml)
    log_dir = Path(tempfile.mkdtemp(prefix="grid_planner_bench_nodes_"))
    with ExitStack() as stack:
        stack.enter_context(node_process("puzzle_node", [], "ready", log_dir))
        stack.enter_context(node_process("planner_node", [], "ready", log_dir))
        stack.enter_context(node_process(
            "map_publisher", ["--ros-args", "-p", f"yaml_filename:={map_yaml}"], "ready",
            log_dir))
        caller = Caller()
        stack.callback(caller.close)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while "map received" not in (log_dir / "planner_node.log").read_text(errors="replace"):
            if time.monotonic() > deadline:
                raise RuntimeError("planner_node never received the map")
            time.sleep(0.05)
        return {"calls": CALLS, "cases": [*baseline_cases(caller), *puzzle_cases(caller),
                                          grid_case(caller, occupancy)]}


def main() -> int:
    """Measure and print the JSON line; exit 1 (with the reason on stderr) on failure."""
    missing = [name for name in ("puzzle_node", "planner_node", "map_publisher")
               if not (BIN_DIR / name).exists()]
    if missing:
        print(json.dumps({"error": f"executables not installed: {', '.join(missing)}"}))
        return 1
    set_ros_environment()
    try:
        answer = measure()
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
