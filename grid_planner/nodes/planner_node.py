"""planner_node (node name `grid_planner`): plans on the latest map for goals and services.

Data flow: messages -> `PlanQuery` -> `GridPlanner.compute` (core call on a grid snapshot) ->
`PlanAnswer` -> Path / ComputePath / GetPlan. Goals from `goal_pose` run on a background worker
that always plans the latest goal only; services plan in their own callback threads.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np
from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
from grid_planner_interfaces.srv import ComputePath
from nav_msgs.msg import OccupancyGrid, Path
from nav_msgs.srv import GetPlan
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from grid_planner.grid import NUMBA_AVAILABLE, warm_up
from grid_planner.grid.errors import PlannerCancelled, PlannerError, UnsupportedMapError
from grid_planner.grid.planner import ALGORITHMS, MAX_SANE_PATH_POSES, GridPlan, plan_world
from grid_planner.grid.planning_grid import PlanningGrid
from grid_planner.nodes.cdr import ComputePathAnswer, PathArrays
from grid_planner.nodes.conversions import (
    int8_sequence,
    msg_to_map,
    planned_path,
    pose_is_finite,
    seconds_to_duration,
)
from grid_planner.nodes.frames import FrameError, FrameResolver, Pose2D, make_tf_buffer
from grid_planner.nodes.latest_job import Job, LatestJobWorker
from grid_planner.nodes.parameters import at_least, declare_validated, non_empty, one_of
from grid_planner.nodes.paths import install_source
from grid_planner.nodes.prebuilt import probe
from grid_planner.nodes.qos import COMMAND_QOS, LATCHED_POSE_QOS, MAP_QOS, PLAN_QOS
from grid_planner.search.result import Budget

Codes = ComputePath.Response
GRID_ALGORITHMS = tuple(ALGORITHMS)
GRID_SETTINGS = ("occupied_threshold", "allow_unknown", "robot_radius")


@dataclass(frozen=True)
class PlanQuery:
    """One planning request: the goal, an explicit start (None: the current start), options."""

    goal: PoseStamped
    start: PoseStamped | None = None
    algorithm: str = ""
    tolerance: float = -1.0


@dataclass
class PlanAnswer:
    """The outcome of a query: a path (empty on failure), the error code and the evidence."""

    path: PathArrays
    error_code: int = Codes.NONE
    error_msg: str = ""
    algorithm: str = ""
    length_m: float = 0.0
    nodes_expanded: int = 0
    planning_time: float = 0.0
    plan: GridPlan | None = None

    @property
    def ok(self) -> bool:
        """Whether a path was found."""
        return self.error_code == Codes.NONE


class QueryError(Exception):
    """A query refused before planning, with its ComputePath code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class PlannerNode(Node):
    """Subscribes to map, goals and start poses; publishes plans and serves plan requests."""

    def __init__(self, tf_buffer: object | None = None, **node_options) -> None:
        super().__init__("grid_planner", **node_options)
        self._declare_parameters()
        self._lock = threading.Lock()
        self._grid_key: tuple | None = None
        self._grid: PlanningGrid | None = None
        self._map = None
        self._start: PoseStamped | None = None
        self._goal: PoseStamped | None = None
        self._waiting_logged: str | None = None
        if tf_buffer is None and self._param("use_tf"):
            tf_buffer = make_tf_buffer(self)
        self._frames = FrameResolver(tf_buffer)
        self._worker = LatestJobWorker("goal_planner")
        self._stopping = threading.Event()  # ends service plans still running at shutdown
        self._wire = probe()

        warm_seconds = warm_up()
        state = MutuallyExclusiveCallbackGroup()
        services = ReentrantCallbackGroup()
        self.create_subscription(
            OccupancyGrid, "map", self._on_map, MAP_QOS, callback_group=state
        )
        self.create_subscription(
            PoseStamped, "goal_pose", self._on_goal, COMMAND_QOS, callback_group=state
        )
        self.create_subscription(
            PoseWithCovarianceStamped, "initialpose", self._on_start, COMMAND_QOS,
            callback_group=state,
        )
        amcl_qos = LATCHED_POSE_QOS if self._param("start_pose_transient_local") else QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.VOLATILE,
        )
        self.create_subscription(
            PoseWithCovarianceStamped, "amcl_pose", self._on_start, amcl_qos,
            callback_group=state,
        )
        self._plan_pub = self.create_publisher(Path, "plan", PLAN_QOS)
        self._expanded_pub = self.create_publisher(OccupancyGrid, "expanded_cells", MAP_QOS)
        self.create_service(GetPlan, "plan_path", self._on_get_plan, callback_group=services)
        self.create_service(
            ComputePath, "compute_path", self._on_compute_path, callback_group=services
        )
        backend = "numba" if NUMBA_AVAILABLE else "reference (no numba)"
        start_source = (
            "TF, else initialpose/amcl_pose" if self._frames.buffer is not None
            else "initialpose/amcl_pose (no TF)"
        )
        self.get_logger().info(
            f"ready: algorithm {self._param('algorithm')}, global frame "
            f"'{self._param('global_frame')}', kernels {backend} "
            f"(warm-up {warm_seconds * 1000:.0f} ms), start from {start_source}, paths sent as "
            f"{self._wire.description}; {install_source()}"
        )

    # --- parameters ---------------------------------------------------------------------------

    def _declare_parameters(self) -> None:
        parameters = {
            "algorithm": ("astar", f"search algorithm: {', '.join(GRID_ALGORITHMS)}",
                          one_of(GRID_ALGORITHMS)),
            "occupied_threshold": (65, "a cell with value >= this is lethal (1..100)",
                                   lambda v: None if 1 <= v <= 100 else "must be in 1..100"),
            "allow_unknown": (False, "false: unknown (-1) cells are lethal", None),
            "robot_radius": (0.0, "m; cells within this of a lethal cell are inflated",
                             at_least(0.0)),
            "goal_tolerance": (0.0, "m; a blocked goal may move this far in x and y",
                               at_least(0.0)),
            "max_planning_time": (5.0, "s (steady clock) a plan may take", at_least(0.001)),
            "use_final_approach_orientation": (
                False, "last pose faces along the last step instead of the goal's yaw", None),
            "publish_expanded": (False, "publish the expanded cells on expanded_cells", None),
            "global_frame": ("map", "frame of maps, poses and paths", non_empty),
            "start_pose_transient_local": (
                True, "amcl_pose durability: transient_local (AMCL) or volatile", None),
            "use_tf": (True, "take the start from TF where tf2_ros is installed", None),
            "robot_base_frame": ("base_link", "robot frame looked up in TF", non_empty),
            "transform_tolerance": (0.3, "s to wait for a TF transform", at_least(0.0)),
        }
        declare_validated(
            self, parameters, read_only=frozenset({"start_pose_transient_local", "use_tf"})
        )

    def _param(self, name: str):
        return self.get_parameter(name).value

    # --- state updates ------------------------------------------------------------------------

    def _on_map(self, msg: OccupancyGrid) -> None:
        global_frame = self._param("global_frame")
        if msg.header.frame_id != global_frame:
            self.get_logger().error(
                f"map refused: its frame '{msg.header.frame_id}' is not the global frame "
                f"'{global_frame}' (set global_frame or publish the map in it)"
            )
            return
        try:
            occupancy = msg_to_map(msg)
            grid = self._build_grid(occupancy)
        except (UnsupportedMapError, ValueError) as error:
            self.get_logger().error(f"map refused: {error}")
            return
        with self._lock:
            self._map = occupancy
            self._grid = grid
        self.get_logger().info(f"map received in frame '{occupancy.frame_id}': {grid.describe()}")
        self._plan_active_goal("the map changed")

    def _build_grid(self, occupancy) -> PlanningGrid:
        key = tuple(self._param(name) for name in GRID_SETTINGS)
        grid = PlanningGrid(
            occupancy, occupied_threshold=key[0], allow_unknown=key[1], robot_radius=key[2]
        )
        self._grid_key = key
        return grid

    def _snapshot(self) -> PlanningGrid | None:
        """The planning grid for the current map and grid parameters (rebuilt if they changed)."""
        with self._lock:
            if self._map is None:
                return None
            key = tuple(self._param(name) for name in GRID_SETTINGS)
            if key != self._grid_key:
                self._grid = self._build_grid(self._map)
            return self._grid

    def _on_start(self, msg: PoseWithCovarianceStamped) -> None:
        start = PoseStamped(header=msg.header, pose=msg.pose.pose)
        with self._lock:
            self._start = start
            waiting = self._waiting_logged is not None
        if waiting:
            self._plan_active_goal("a start pose arrived")

    def _on_goal(self, msg: PoseStamped) -> None:
        with self._lock:
            self._goal = msg
            self._waiting_logged = None
        self._plan_active_goal("a new goal arrived")

    # --- goal_pose planning -------------------------------------------------------------------

    def _plan_active_goal(self, why: str) -> None:
        """Plan the active goal on the worker (superseding any running plan), or keep it pending."""
        with self._lock:
            goal = self._goal
            if goal is None:
                return
            missing = "map" if self._map is None else None
        if missing is None and not self._has_current_start():
            missing = "start pose (initialpose, amcl_pose or TF)"
        if missing is not None:
            if self._waiting_logged != missing:
                self._waiting_logged = missing
                self.get_logger().info(f"goal pending: waiting for a {missing}")
            return
        self._waiting_logged = None
        self.get_logger().debug(f"planning the active goal: {why}")
        query = PlanQuery(goal=goal)
        self._worker.submit(Job(run=lambda cancel: self.compute(query, cancel, announce=True),
                                deliver=self._deliver_goal_plan))

    def _has_current_start(self) -> bool:
        if self._start is not None:
            return True
        try:
            return self._robot_pose() is not None
        except FrameError:
            return False

    def _deliver_goal_plan(self, answer: PlanAnswer) -> None:
        if answer.error_code == Codes.NONE:
            self._plan_pub.publish(self._wire.plan(answer.path))
        elif answer.error_code == Codes.NO_START:
            with self._lock:
                self._waiting_logged = "start pose (initialpose, amcl_pose or TF)"

    # --- services -----------------------------------------------------------------------------

    def _on_compute_path(
        self, request: ComputePath.Request, _response: ComputePath.Response
    ) -> ComputePath.Response:
        query = PlanQuery(
            goal=request.goal,
            start=request.start if request.use_start else None,
            algorithm=request.algorithm,
            tolerance=request.tolerance,
        )
        answer = self.compute(query, self._stopping)
        planning_time = seconds_to_duration(answer.planning_time)
        return self._wire.compute_path_response(ComputePathAnswer(
            answer.path, answer.error_code, answer.error_msg, answer.length_m,
            answer.nodes_expanded, planning_time.sec, planning_time.nanosec,
        ))

    def _on_get_plan(
        self, request: GetPlan.Request, _response: GetPlan.Response
    ) -> GetPlan.Response:
        from_current = request.start.header.frame_id == ""
        tolerance = request.tolerance if request.tolerance > 0.0 else -1.0
        query = PlanQuery(
            goal=request.goal, start=None if from_current else request.start, tolerance=tolerance
        )
        return self._wire.get_plan_response(self.compute(query, self._stopping).path)

    # --- the one planning path ----------------------------------------------------------------

    def compute(
        self, query: PlanQuery, cancel: threading.Event | None = None, announce: bool = False
    ) -> PlanAnswer:
        """Plan `query` on a snapshot of the grid; every failure becomes an error code.

        A found plan is logged at INFO when `announce` (goal_pose plans), else at DEBUG: an
        rclpy log call costs ~1.5 ms (it inspects the caller's source), too much per service
        call. Failures are always logged at WARN.
        """
        started = time.monotonic()
        global_frame = self._param("global_frame")
        empty = planned_path(np.zeros((0, 2)), global_frame, self.get_clock().now().to_msg(), None)
        try:
            answer = self._compute(query, cancel, global_frame)
        except QueryError as error:
            answer = PlanAnswer(empty, error.code, str(error))
        except PlannerCancelled as error:
            answer = PlanAnswer(empty, Codes.UNKNOWN, f"cancelled: {error}")
            return answer
        except PlannerError as error:
            answer = PlanAnswer(
                empty, error.error_code, str(error), nodes_expanded=error.nodes_expanded
            )
        except Exception as error:  # a bug must cost one answer, never the node
            self.get_logger().error(f"planning failed unexpectedly: {error!r}")
            answer = PlanAnswer(empty, Codes.UNKNOWN, f"internal error: {error!r}")
        if not answer.planning_time:
            answer.planning_time = time.monotonic() - started
        if answer.ok:
            poses = answer.path.pose_count
            log = self.get_logger().info if announce else self.get_logger().debug
            log(
                f"plan: {answer.algorithm}, {poses} poses, {answer.length_m:.2f} m, "
                f"{answer.nodes_expanded} nodes expanded, {answer.planning_time * 1000:.1f} ms"
            )
            if poses > MAX_SANE_PATH_POSES:
                self.get_logger().warning(
                    f"the path has {poses} poses (more than {MAX_SANE_PATH_POSES}): "
                    f"{answer.algorithm} paths are valid but rarely short"
                )
        else:
            self.get_logger().warning(f"no plan (code {answer.error_code}): {answer.error_msg}")
        return answer

    def _compute(
        self, query: PlanQuery, cancel: threading.Event | None, global_frame: str
    ) -> PlanAnswer:
        algorithm = query.algorithm.strip() or self._param("algorithm")
        if algorithm not in ALGORITHMS:
            raise QueryError(
                Codes.INVALID_PLANNER,
                f"unknown algorithm {algorithm!r}; choose one of {', '.join(GRID_ALGORITHMS)}",
            )
        grid = self._snapshot()
        if grid is None:
            raise QueryError(Codes.NO_MAP, "no map received yet on 'map'")
        goal = self._pose_in_global(query.goal, "goal", global_frame)
        start = self._start_pose(query.start, global_frame)
        tolerance = query.tolerance if query.tolerance >= 0.0 else self._param("goal_tolerance")
        if not math.isfinite(tolerance):
            raise QueryError(Codes.INVALID_POSE, f"tolerance must be finite, got {tolerance}")
        budget = Budget.from_timeout(self._param("max_planning_time"), cancel=cancel)
        found = plan_world(
            grid, (start.x, start.y), (goal.x, goal.y), algorithm, tolerance=tolerance,
            budget=budget, record_expanded=self._param("publish_expanded"),
        )
        final_yaw = None if self._param("use_final_approach_orientation") else goal.yaw
        if found.length == 0:
            final_yaw = goal.yaw
        stamp = self.get_clock().now().to_msg()
        path = planned_path(found.poses, global_frame, stamp, final_yaw)
        if found.expanded is not None:
            self._publish_expanded(grid, found.expanded, stamp)
        return PlanAnswer(
            path=path, algorithm=algorithm, length_m=found.length_m,
            nodes_expanded=found.nodes_expanded, planning_time=found.elapsed, plan=found,
        )

    def _pose_in_global(self, pose: PoseStamped, role: str, global_frame: str) -> Pose2D:
        if not pose_is_finite(pose.pose):
            raise QueryError(
                Codes.INVALID_POSE,
                f"{role} pose is not finite or has a zero-length quaternion: "
                f"position ({pose.pose.position.x}, {pose.pose.position.y}), orientation "
                f"({pose.pose.orientation.x}, {pose.pose.orientation.y}, "
                f"{pose.pose.orientation.z}, {pose.pose.orientation.w})",
            )
        try:
            return self._frames.to_global(pose, global_frame, self._param("transform_tolerance"))
        except FrameError as error:
            raise QueryError(Codes.TF_ERROR, f"{role}: {error}") from error

    def _robot_pose(self) -> Pose2D | None:
        return self._frames.robot_pose(
            self._param("global_frame"), self._param("robot_base_frame"),
            self._param("transform_tolerance"),
        )

    def _start_pose(self, explicit: PoseStamped | None, global_frame: str) -> Pose2D:
        if explicit is not None:
            return self._pose_in_global(explicit, "start", global_frame)
        if self._frames.buffer is not None:
            try:
                robot = self._robot_pose()
            except FrameError as error:
                if self._start is None:
                    raise QueryError(Codes.TF_ERROR, f"start from TF: {error}") from error
                robot = None
            if robot is not None:
                return robot
        with self._lock:
            start = self._start
        if start is None:
            raise QueryError(
                Codes.NO_START, "no start pose yet: publish initialpose or amcl_pose, or set "
                "use_start in the request",
            )
        return self._pose_in_global(start, "start", global_frame)

    def _publish_expanded(self, grid: PlanningGrid, expanded: np.ndarray, stamp) -> None:
        msg = OccupancyGrid()
        msg.header.frame_id = self._param("global_frame")
        msg.header.stamp = stamp
        msg.info.resolution = float(grid.resolution)
        msg.info.width = grid.width
        msg.info.height = grid.height
        origin = grid.map
        msg.info.origin.position.x = origin.origin_x
        msg.info.origin.position.y = origin.origin_y
        msg.info.origin.orientation.z = math.sin(origin.origin_yaw / 2.0)
        msg.info.origin.orientation.w = math.cos(origin.origin_yaw / 2.0)
        cells = np.zeros(grid.cell_count, dtype=np.int8)
        cells[expanded] = 100
        msg.data = int8_sequence(cells)
        self._expanded_pub.publish(msg)

    def destroy_node(self) -> None:
        """Stop the goal worker and running service plans before the node goes away."""
        self._stopping.set()
        self._worker.stop()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    """Entry point of the `planner_node` console script."""
    from grid_planner.nodes.runtime import spin_nodes

    return spin_nodes([PlannerNode], num_threads=4, args=args)


if __name__ == "__main__":
    sys.exit(main())
