"""`make demo`: start bringup, then drive it over ROS 2 like RViz and a service client would.

1. starts `bringup` (map_publisher + grid_planner + puzzle_solver) on the floor plan the project
   draws (`tools/draw_maps.py`: offices, a corridor, a warehouse with shelves; 280 x 180 cells);
2. waits for the latched map on `map` and for the nodes' services;
3. sets the start on `initialpose`, sends an RViz-style goal on `goal_pose`, receives `plan` and
   `expanded_cells` (shaded by expansion order) and draws them as a PNG with a legend;
4. plans the same trip with BFS, DFS and A* on `compute_path` and prints length, cells
   expanded and time, then animates the three searches side by side as a GIF;
5. asks `solve_puzzle` for one of the two hardest 8-puzzles, prints the solution and plays it
   as a GIF;
6. stops bringup with SIGINT, says where the files are, and exits 0 only if every step worked.
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
from draw_maps import FLOOR_GOAL_CELL, FLOOR_START_CELL  # beside this script, in tools/
from gallery import search_animation  # beside this script, in tools/
from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
from grid_planner_interfaces.srv import ComputePath, SolvePuzzle
from nav_msgs.msg import OccupancyGrid
from nav_msgs.msg import Path as PathMsg
from rclpy.executors import SingleThreadedExecutor

from grid_planner.animation import PUZZLE_FRAME_MS, puzzle_frames, save_gif
from grid_planner.grid.planning_grid import PlanningGrid
from grid_planner.nodes.conversions import msg_to_map
from grid_planner.nodes.paths import config_file
from grid_planner.nodes.qos import COMMAND_QOS, MAP_QOS, PLAN_QOS
from grid_planner.puzzle import default_goal, format_board, replay_boards
from grid_planner.render import plan_png

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "build" / "demo"
HARD_BOARD = [8, 6, 7, 2, 5, 4, 3, 0, 1]
SERVICES = ("/plan_path", "/compute_path", "/solve_puzzle", "/map_server/map")
COMPARED = ("bfs", "dfs", "astar")  # as in the GIF (`gallery.ANIMATED`)


@dataclass(frozen=True)
class ReceivedPlan:
    """What the renderer reads of a plan, rebuilt from the `plan` and `expanded_cells` topics:
    `expanded` lists the cells by their shade (1 first .. 98 last), the order the topic keeps."""

    indices: np.ndarray
    expanded: np.ndarray | None
    smoothing: str = "none"  # the demo's node plans unsmoothed: the path is drawn as planned
    points: np.ndarray | None = None


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


def call(node, client, request, timeout: float = 60.0, attempts: int = 3):
    """A service call's answer; RuntimeError when it does not come within `timeout`.

    A server that has not yet matched a new client's reply reader drops its reply, so a
    request left unanswered for a share of `timeout` is sent again, up to `attempts` times.
    """
    if not client.wait_for_service(timeout_sec=30):
        raise RuntimeError(f"{client.srv_name} is not available")
    done = threading.Event()
    futures = []
    for _attempt in range(attempts):
        future = client.call_async(request)
        future.add_done_callback(lambda _f: done.set())
        futures.append(future)
        if done.wait(timeout / attempts):
            return next(f for f in futures if f.done()).result()
    raise RuntimeError(f"{client.srv_name} did not answer within {timeout:.0f} s")


def run_demo(node, map_yaml: Path, files: list[Path]) -> None:
    """Steps 2-5 against a running bringup; the files written go into `files`."""
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
          f"{occupancy.resolution:.3g} m ({map_yaml.name})")
    # The nodes advertise their services once their kernels are ready: loaded from numba's
    # cache in about a second, or compiled for up to a minute on an install whose cache is
    # still empty (`make setup` fills it).
    print("[demo] waiting for the nodes' services")
    wait_for(lambda: all(s in dict(node.get_service_names_and_types()) for s in SERVICES),
             120, "the nodes' services")
    print(f"[demo] services advertised: {', '.join(SERVICES)}")

    start_xy = occupancy.cell_to_world(*FLOOR_START_CELL)
    goal_xy = occupancy.cell_to_world(*FLOOR_GOAL_CELL)
    wait_for(lambda: goal_pub.get_subscription_count() > 0 and
             initial_pub.get_subscription_count() > 0, 30, "the planner's subscriptions")
    initial = PoseWithCovarianceStamped()
    initial.header.frame_id = "map"
    initial.pose.pose = pose_msg(*start_xy).pose
    initial_pub.publish(initial)
    goal_pub.publish(pose_msg(*goal_xy))
    print(f"[demo] start ({start_xy[0]:.2f}, {start_xy[1]:.2f}) m (initialpose), RViz-style "
          f"goal ({goal_xy[0]:.2f}, {goal_xy[1]:.2f}) m (goal_pose)")
    wait_for(lambda: plans and expanded, 30, "a plan on 'plan' and its expanded cells")
    path = plans[-1]
    cells = [occupancy.world_to_cell(p.pose.position.x, p.pose.position.y) for p in path.poses]
    shades = np.asarray(expanded[-1].data, dtype=np.int64)
    searched = np.flatnonzero(shades)
    searched = searched[np.argsort(shades[searched], kind="stable")]
    print(f"[demo] plan received: {len(path.poses)} poses, {len(cells) - 1} steps "
          f"(frame '{path.header.frame_id}'), {searched.size} cells expanded, shaded 1..98 "
          "by expansion order on 'expanded_cells'")
    received = ReceivedPlan(
        indices=np.array([y * occupancy.width + x for x, y in cells]), expanded=searched
    )
    grid = PlanningGrid(occupancy)
    png = OUTPUT / "plan.png"
    plan_png(grid, received, png, legend=True)
    files.append(png)

    compute = node.create_client(ComputePath, "compute_path")
    print(f"[demo] the same trip on 'compute_path' ({occupancy.width} x {occupancy.height} "
          f"cells of {occupancy.resolution:.3g} m):")
    print(f"[demo]   {'algorithm':>9}  {'length':>8}  {'steps':>5}  {'expanded':>8}  {'ms':>7}")
    for algorithm in COMPARED:
        request = ComputePath.Request(goal=pose_msg(*goal_xy), start=pose_msg(*start_xy),
                                      use_start=True, algorithm=algorithm)
        answer = call(node, compute, request)
        if answer.error_code != ComputePath.Response.NONE:
            raise RuntimeError(f"compute_path with {algorithm} failed: {answer.error_msg}")
        seconds = answer.planning_time.sec + answer.planning_time.nanosec * 1e-9
        print(f"[demo]   {algorithm:>9}  {answer.path_length:>6.2f} m  "
              f"{len(answer.path.poses) - 1:>5}  {answer.nodes_expanded:>8,}  "
              f"{seconds * 1000:>7.2f}")
    gif = OUTPUT / "search.gif"
    search_animation(grid, gif)
    files.append(gif)

    client = node.create_client(SolvePuzzle, "solve_puzzle")
    request = SolvePuzzle.Request(board=HARD_BOARD, algorithm="astar", heuristic="linear_conflict")
    answer = call(node, client, request)
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
    puzzle_gif = OUTPUT / "puzzle.gif"
    frames = puzzle_frames(boards, list(answer.moves), default_goal(3))
    save_gif(frames, puzzle_gif, PUZZLE_FRAME_MS)
    files.append(puzzle_gif)


def main() -> int:
    """Run the whole demo; exit code 0 when every step worked."""
    began = time.monotonic()
    map_yaml = config_file("maps/floor_plan.yaml")
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
    files: list[Path] = []
    try:
        run_demo(node, map_yaml, files)
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
    for written in files:
        print(f"[demo] wrote {written.relative_to(ROOT)} ({written.stat().st_size / 1024:,.0f} kB)")
    print(f"[demo] done in {time.monotonic() - began:.1f} s")
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
