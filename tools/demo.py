"""`make demo`: start bringup, then drive it over ROS 2 like RViz and a service client would.

1. starts `bringup` (map_publisher + grid_planner + puzzle_solver) on the tutorial grid map;
2. waits for the latched map on `map` and for the nodes' services;
3. sets the start on `initialpose`, sends an RViz-style goal on `goal_pose`, receives `plan`,
   prints the path on the map in ASCII and writes a PNG;
4. asks `solve_puzzle` for one of the two hardest 8-puzzles and prints the solution;
5. stops bringup with SIGINT and exits 0 only if every step worked.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import rclpy
from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
from grid_planner_interfaces.srv import SolvePuzzle
from nav_msgs.msg import OccupancyGrid
from nav_msgs.msg import Path as PathMsg
from rclpy.executors import SingleThreadedExecutor

from grid_planner.grid.planning_grid import PlanningGrid
from grid_planner.nodes.conversions import msg_to_map
from grid_planner.nodes.paths import config_file
from grid_planner.nodes.qos import COMMAND_QOS, MAP_QOS, PLAN_QOS
from grid_planner.puzzle import format_board, replay_boards
from grid_planner.render import plan_ascii, plan_png

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "build" / "demo"
HARD_BOARD = [8, 6, 7, 2, 5, 4, 3, 0, 1]
SERVICES = ("/plan_path", "/compute_path", "/solve_puzzle", "/map_server/map")


@dataclass(frozen=True)
class ReceivedPlan:
    """What the renderer reads of a plan, rebuilt from the `plan` and `expanded_cells` topics."""

    indices: np.ndarray
    expanded: np.ndarray | None
    smoothing: str = "none"  # the demo's node plans unsmoothed: the path is drawn as planned


def wait_for(condition, timeout: float, what: str) -> None:
    """Poll `condition` until true; raise with `what` when it stays false past `timeout`."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


def start_bringup(map_yaml: Path, log_path: Path) -> subprocess.Popen:
    """Run bringup in the background with its output in `log_path`."""
    bringup = Path(sys.executable).parent / "bringup"
    log = log_path.open("wb")
    return subprocess.Popen(
        [str(bringup), "--map", str(map_yaml), "--ros-args", "-p", "publish_expanded:=true"],
        stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )


def stop(process: subprocess.Popen) -> int:
    """SIGINT, then wait; kill if it does not stop within 15 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def pose_msg(x: float, y: float) -> PoseStamped:
    msg = PoseStamped()
    msg.header.frame_id = "map"
    msg.pose.position.x, msg.pose.position.y = x, y
    msg.pose.orientation.w = 1.0
    return msg


def run_demo(node, map_yaml: Path) -> None:
    """Steps 2-4 against a running bringup."""
    maps: list[OccupancyGrid] = []
    plans: list[PathMsg] = []
    expanded: list[OccupancyGrid] = []
    node.create_subscription(OccupancyGrid, "map", maps.append, MAP_QOS)
    node.create_subscription(PathMsg, "plan", plans.append, PLAN_QOS)
    node.create_subscription(OccupancyGrid, "expanded_cells", expanded.append, MAP_QOS)
    initial_pub = node.create_publisher(PoseWithCovarianceStamped, "initialpose", COMMAND_QOS)
    goal_pub = node.create_publisher(PoseStamped, "goal_pose", COMMAND_QOS)

    wait_for(lambda: maps, 30, "the latched map on 'map'")
    occupancy = msg_to_map(maps[0])
    print(f"[demo] map received on 'map': {occupancy.width} x {occupancy.height} cells at "
          f"{occupancy.resolution} m ({map_yaml.name})")
    wait_for(lambda: all(s in dict(node.get_service_names_and_types()) for s in SERVICES),
             30, "the nodes' services")
    print(f"[demo] services advertised: {', '.join(SERVICES)}")

    start_xy, goal_xy = occupancy.cell_to_world(0, 7), occupancy.cell_to_world(9, 0)
    wait_for(lambda: goal_pub.get_subscription_count() > 0 and
             initial_pub.get_subscription_count() > 0, 30, "the planner's subscriptions")
    initial = PoseWithCovarianceStamped()
    initial.header.frame_id = "map"
    initial.pose.pose = pose_msg(*start_xy).pose
    initial_pub.publish(initial)
    goal_pub.publish(pose_msg(*goal_xy))
    print(f"[demo] start {start_xy} m (initialpose), RViz-style goal {goal_xy} m (goal_pose)")
    wait_for(lambda: plans and expanded, 30, "a plan on 'plan' and its expanded cells")
    path = plans[-1]
    cells = [occupancy.world_to_cell(p.pose.position.x, p.pose.position.y) for p in path.poses]
    searched = np.flatnonzero(np.asarray(expanded[-1].data) == 100)
    print(f"[demo] plan received: {len(path.poses)} poses, {len(cells) - 1} steps "
          f"(frame '{path.header.frame_id}'), {searched.size} cells expanded")
    received = ReceivedPlan(
        indices=np.array([y * occupancy.width + x for x, y in cells]), expanded=searched
    )
    grid = PlanningGrid(occupancy)
    print(plan_ascii(grid, received))
    png = OUTPUT / "plan.png"
    plan_png(grid, received, png)
    print(f"[demo] picture of the plan: {png.relative_to(ROOT)}")

    client = node.create_client(SolvePuzzle, "solve_puzzle")
    if not client.wait_for_service(timeout_sec=30):
        raise RuntimeError("solve_puzzle is not available")
    request = SolvePuzzle.Request(board=HARD_BOARD, algorithm="astar", heuristic="linear_conflict")
    future = client.call_async(request)
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    if not done.wait(60):
        raise RuntimeError("solve_puzzle did not answer within 60 s")
    answer = future.result()
    if not answer.success:
        raise RuntimeError(f"solve_puzzle failed: {answer.message}")
    print(f"[demo] solve_puzzle {HARD_BOARD} (A*, linear conflict): {answer.message}; "
          f"{answer.nodes_expanded} nodes expanded, {answer.planning_time * 1000:.0f} ms")
    print("[demo] moves of the blank: " + " ".join(answer.moves))
    boards = replay_boards(tuple(HARD_BOARD), list(answer.moves), 3)
    print("[demo] start and goal boards:")
    print(format_board(boards[0]))
    print()
    print(format_board(boards[-1]))


def main() -> int:
    """Run the whole demo; exit code 0 when every step worked."""
    map_yaml = config_file("maps/tutorial_grid.yaml")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    log_path = OUTPUT / "bringup.log"
    os.environ.setdefault("ROS_DOMAIN_ID", str(1 + os.getpid() % 100))
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    process = start_bringup(map_yaml, log_path)
    print(f"[demo] started bringup (pid {process.pid}, ROS_DOMAIN_ID "
          f"{os.environ['ROS_DOMAIN_ID']}); its log: {log_path.relative_to(ROOT)}")
    rclpy.init()
    node = rclpy.create_node("grid_planner_demo")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    failure = None
    try:
        run_demo(node, map_yaml)
    except RuntimeError as error:
        failure = error
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.shutdown()
        code = stop(process)
    if failure is not None:
        print(f"[demo] FAILED: {failure}\n--- bringup log ---\n{log_path.read_text()}")
        return 1
    print(f"[demo] bringup stopped cleanly (exit code {code})")
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
