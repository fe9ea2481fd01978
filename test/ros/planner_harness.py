"""The planner_node test harness: a client that publishes maps, starts and goals, collects the
plans, calls the services, and checks paths against an independent BFS."""

from __future__ import annotations

import itertools
import math
import threading
from collections import deque

import numpy as np
from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
from grid_planner_interfaces.srv import ComputePath
from nav_msgs.msg import OccupancyGrid
from nav_msgs.msg import Path as PathMsg
from nav_msgs.srv import GetPlan
from rcl_interfaces.msg import Parameter as ParameterMsg
from rcl_interfaces.msg import ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from ros_harness import wait_until

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.conversions import map_to_msg, quaternion_to_yaw, yaw_to_quaternion
from grid_planner.nodes.qos import COMMAND_QOS, MAP_QOS, PLAN_QOS

Codes = ComputePath.Response
TUTORIAL_ROWS = [  # 1 = blocked, first row printed at the top
    [0, 0, 0, 0, 0, 0, 0, 1, 0, 0],
    [0, 1, 1, 1, 0, 0, 0, 1, 0, 0],
    [0, 0, 0, 1, 0, 1, 0, 0, 0, 0],
    [0, 1, 0, 0, 0, 1, 0, 1, 1, 0],
    [0, 1, 0, 1, 0, 0, 0, 0, 1, 0],
    [0, 0, 0, 1, 0, 1, 1, 0, 0, 0],
    [1, 1, 0, 0, 0, 0, 0, 1, 0, 0],
    [0, 0, 0, 1, 1, 0, 0, 0, 0, 0],
]
TUTORIAL = OccupancyMap.from_rows(np.array(TUTORIAL_ROWS) * 100, resolution=1.0)
# Two rooms split by a solid wall at x = 2: nothing on the right is reachable from the left.
SPLIT = OccupancyMap.from_rows([[0, 0, 100, 0, 0]] * 4, resolution=0.5, origin=(-1.0, -1.0, 0.0))
# A plan that runs for a second or more, for tests that need one at work: Dijkstra with
# `connectivity` 8 expands every cell of an open map this wide, corner to corner, about 1.2 s
# for its 9 million cells here. The node needs SLOW_PARAMETERS (`max_nodes` is 2,000,000 by
# default).
SLOW_SIDE = 3000
SLOW_RESOLUTION = 0.05
SLOW_PARAMETERS = {"connectivity": 8, "max_nodes": 10_000_000}


def reference_distance(occupancy: OccupancyMap, start: tuple, goal: tuple) -> int | None:
    """Steps of the shortest 4-connected path through cells < 65 and not unknown (plain BFS)."""
    grid = occupancy.grid2d()
    height, width = grid.shape

    def free(x: int, y: int) -> bool:
        return 0 <= x < width and 0 <= y < height and 0 <= grid[y, x] < 65

    seen = {start: 0}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        if (x, y) == goal:
            return seen[(x, y)]
        for nx, ny in ((x + 1, y), (x, y + 1), (x - 1, y), (x, y - 1)):
            if free(nx, ny) and (nx, ny) not in seen:
                seen[(nx, ny)] = seen[(x, y)] + 1
                queue.append((nx, ny))
    return None


def assert_valid_path(path: PathMsg, occupancy: OccupancyMap, start: tuple, goal: tuple) -> None:
    """Poses at cell centres, 4-connected unit steps through free cells, start to goal."""
    cells = []
    for pose in path.poses:
        x, y = pose.pose.position.x, pose.pose.position.y
        cell = occupancy.world_to_cell(x, y)
        cx, cy = occupancy.cell_to_world(*cell)
        # OccupancyGrid carries the resolution as float32, hence the tolerance.
        assert math.isclose(x, cx, abs_tol=1e-5) and math.isclose(y, cy, abs_tol=1e-5)
        assert pose.header.frame_id == "map"
        cells.append(cell)
    assert cells[0] == start and cells[-1] == goal
    grid = occupancy.grid2d()
    for (ax, ay), (bx, by) in itertools.pairwise(cells):
        assert abs(ax - bx) + abs(ay - by) == 1
        assert 0 <= grid[by, bx] < 65
    for a, b in zip(path.poses, path.poses[1:], strict=False):
        heading = math.atan2(
            b.pose.position.y - a.pose.position.y, b.pose.position.x - a.pose.position.x
        )
        assert math.isclose(quaternion_to_yaw(a.pose.orientation), heading, abs_tol=1e-6)


def pose(x: float, y: float, yaw: float = 0.0, frame: str = "map") -> PoseStamped:
    msg = PoseStamped()
    msg.header.frame_id = frame
    msg.pose.position.x = float(x)
    msg.pose.position.y = float(y)
    msg.pose.orientation = yaw_to_quaternion(yaw)
    return msg


def centre(occupancy: OccupancyMap, cell: tuple) -> PoseStamped:
    return pose(*occupancy.cell_to_world(*cell))


def slow_plan_map() -> OccupancyMap:
    """The open map of the slow plan."""
    return OccupancyMap(SLOW_SIDE, SLOW_SIDE, SLOW_RESOLUTION,
                        np.zeros(SLOW_SIDE**2, dtype=np.int8))


def slow_plan_arguments() -> list[str]:
    """SLOW_PARAMETERS as `-p name:=value` arguments (after --ros-args)."""
    return [part for name, value in SLOW_PARAMETERS.items() for part in ("-p", f"{name}:={value}")]


def slow_plan_request() -> ComputePath.Request:
    """The slow plan on `slow_plan_map()`: corner cell to corner cell by Dijkstra."""
    near, far = 0.5 * SLOW_RESOLUTION, (SLOW_SIDE - 0.5) * SLOW_RESOLUTION
    return ComputePath.Request(goal=pose(far, far), start=pose(near, near), use_start=True,
                               algorithm="dijkstra")


class PlannerHarness:
    """A planner_node subprocess, a client node with its topics, and helpers to drive it."""

    def __init__(self, client, proc, namespace: str, initialpose: bool = True) -> None:
        """`initialpose`: whether the node subscribes it (`subscribe_initialpose`)."""
        self.client = client
        self.proc = proc
        ns = namespace
        node = client.node
        self.map_pub = node.create_publisher(OccupancyGrid, f"{ns}/map", MAP_QOS)
        self.goal_pub = node.create_publisher(PoseStamped, f"{ns}/goal_pose", COMMAND_QOS)
        self.start_pub = node.create_publisher(
            PoseWithCovarianceStamped, f"{ns}/initialpose", COMMAND_QOS
        )
        self.plans: list[PathMsg] = []
        self.expanded: list[OccupancyGrid] = []
        self._lock = threading.Lock()
        plan_sub = node.create_subscription(PathMsg, f"{ns}/plan", self._on_plan, PLAN_QOS)
        node.create_subscription(
            OccupancyGrid, f"{ns}/expanded_cells", self.expanded.append, MAP_QOS
        )
        self.compute = node.create_client(ComputePath, f"{ns}/compute_path")
        self.get_plan = node.create_client(GetPlan, f"{ns}/plan_path")
        self.set_params = node.create_client(SetParameters, f"{ns}/grid_planner/set_parameters")
        self.maps_sent = 0
        # goal_pose, initialpose and plan are volatile: a message sent before matching is lost.
        wait_until(
            lambda: self.goal_pub.get_subscription_count() > 0
            and (self.start_pub.get_subscription_count() > 0 or not initialpose)
            and plan_sub.get_publisher_count() > 0,
            what=f"the planner under {ns or '/'} to match goal_pose, initialpose and plan",
        )

    def _on_plan(self, msg: PathMsg) -> None:
        with self._lock:
            self.plans.append(msg)

    def publish_map(self, occupancy: OccupancyMap, timeout: float = 20.0) -> None:
        self.map_pub.publish(map_to_msg(occupancy, self.client.node.get_clock().now().to_msg()))
        self.maps_sent += 1
        wait_until(
            lambda: self.proc.output().count("map received in frame") >= self.maps_sent,
            timeout=timeout,
            what="the planner to take the map",
        )

    def set_start(self, x: float, y: float, yaw: float = 0.0) -> None:
        msg = PoseWithCovarianceStamped()
        msg.header.frame_id = "map"
        msg.pose.pose = pose(x, y, yaw).pose
        self.start_pub.publish(msg)

    def request(self, goal: PoseStamped, start: PoseStamped | None = None, **fields):
        request = ComputePath.Request(goal=goal, **fields)
        if start is not None:
            request.start = start
            request.use_start = True
        return self.client.call(self.compute, request)

    def set_parameter(self, name: str, value) -> object:
        if isinstance(value, bool):
            pv = ParameterValue(type=ParameterType.PARAMETER_BOOL, bool_value=value)
        elif isinstance(value, int):
            pv = ParameterValue(type=ParameterType.PARAMETER_INTEGER, integer_value=value)
        elif isinstance(value, float):
            pv = ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=value)
        else:
            pv = ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=value)
        request = SetParameters.Request(parameters=[ParameterMsg(name=name, value=pv)])
        return self.client.call(self.set_params, request).results[0]

    def wait_for_plan_between(self, start: tuple, goal: tuple, after: int) -> PathMsg:
        """The first plan published after plan number `after` that runs from start to goal."""

        def ends(path: PathMsg) -> tuple:
            first, last = path.poses[0].pose.position, path.poses[-1].pose.position
            return (first.x, first.y), (last.x, last.y)

        def matching() -> list[PathMsg]:
            with self._lock:
                return [p for p in self.plans[after:] if p.poses and ends(p) == (start, goal)]

        wait_until(lambda: matching(), what=f"a plan from {start} to {goal}")
        return matching()[0]

    def wait_for_plans(self, count: int) -> PathMsg:
        wait_until(lambda: len(self.plans) >= count, what=f"{count} plans on 'plan'")
        with self._lock:
            return self.plans[count - 1]
