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
from dataclasses import dataclass, replace

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
from grid_planner.grid.planner import MAX_SANE_PATH_POSES, GridPlan, plan_world
from grid_planner.grid.planning_grid import PlanningGrid
from grid_planner.nodes.concurrency import RequestGate
from grid_planner.nodes.conversions import (
    map_to_msg,
    planned_path,
    pose_fault,
    seconds_to_duration,
)
from grid_planner.nodes.frames import FrameError, FrameResolver, Pose2D, make_tf_buffer
from grid_planner.nodes.latest_job import Job, LatestJobWorker
from grid_planner.nodes.parameters import declare_validated
from grid_planner.nodes.paths import install_source
from grid_planner.nodes.planner_parameters import GRID_ALGORITHMS, READ_ONLY, planner_parameters
from grid_planner.nodes.planning_map import (
    GridSettings,
    MapLimits,
    PlanningMap,
    admit_map,
    inflation_refusal,
)
from grid_planner.nodes.qos import COMMAND_QOS, LATCHED_POSE_QOS, MAP_QOS, PLAN_QOS, SERVICE_QOS
from grid_planner.nodes.wire.cdr import ComputePathAnswer, PathArrays
from grid_planner.nodes.wire.prebuilt import probe
from grid_planner.search.result import Budget

Codes = ComputePath.Response


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
        self._maps = PlanningMap()
        declare_validated(self, planner_parameters(self._radius_fits_map), read_only=READ_ONLY)
        self._lock = threading.Lock()
        self._start: PoseStamped | None = None
        self._goal: PoseStamped | None = None
        self._waiting_logged: str | None = None
        if tf_buffer is None and self._param("use_tf"):
            tf_buffer = make_tf_buffer(self)
        self._frames = FrameResolver(tf_buffer)
        self._worker = LatestJobWorker("goal_planner")
        self._stopping = threading.Event()  # ends service plans still running at shutdown
        self._gate = RequestGate(
            self._param("max_concurrent_plans"), self._param("max_queued_plans"),
            "max_concurrent_plans, max_queued_plans",
        )
        # Executor threads the callbacks may hold: the service requests, the state group and
        # rclpy's parameter services.
        self.callback_threads = self._gate.threads + 2
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
            PoseWithCovarianceStamped, "initialpose",
            lambda msg: self._on_start(msg, "initialpose"), COMMAND_QOS, callback_group=state,
        )
        amcl_qos = LATCHED_POSE_QOS if self._param("start_pose_transient_local") else QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.VOLATILE,
        )
        self.create_subscription(
            PoseWithCovarianceStamped, "amcl_pose",
            lambda msg: self._on_start(msg, "amcl_pose"), amcl_qos, callback_group=state,
        )
        self._plan_pub = self.create_publisher(Path, "plan", PLAN_QOS)
        self._expanded_pub = self.create_publisher(OccupancyGrid, "expanded_cells", MAP_QOS)
        self.create_service(
            GetPlan, "plan_path", self._on_get_plan, qos_profile=SERVICE_QOS,
            callback_group=services,
        )
        self.create_service(
            ComputePath, "compute_path", self._on_compute_path, qos_profile=SERVICE_QOS,
            callback_group=services,
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

    def _param(self, name: str):
        return self.get_parameter(name).value

    def _radius_fits_map(self, radius: float) -> str | None:
        current = self._maps.current
        if current is None:
            return None
        return inflation_refusal(radius, current.resolution, self._param("max_inflation_cells"))

    def _grid_settings(self) -> GridSettings:
        return GridSettings(
            self._param("occupied_threshold"), self._param("allow_unknown"),
            self._param("robot_radius"),
        )

    # --- state updates ------------------------------------------------------------------------

    def _on_map(self, msg: OccupancyGrid) -> None:
        """Use the map if it fits the limits; else log why and keep the previous one."""
        if self._stopping.is_set():
            return  # shutting down: no grid worth preparing
        limits = MapLimits(
            self._param("global_frame"), self._param("max_map_cells"),
            self._param("max_inflation_cells"),
        )
        settings = self._grid_settings()
        try:
            grid = settings.build(admit_map(msg, limits, settings.robot_radius))
        except (UnsupportedMapError, ValueError) as error:
            self.get_logger().error(f"map refused: {error}")
            return
        self._maps.install(grid)
        self.get_logger().info(f"map received in frame '{grid.map.frame_id}': {grid.describe()}")
        self._plan_active_goal("the map changed")

    def _on_start(self, msg: PoseWithCovarianceStamped, topic: str) -> None:
        fault = pose_fault(msg.pose.pose)
        if fault is not None:
            self.get_logger().warning(f"{topic} refused: {fault}; the previous start stays")
            return
        start = PoseStamped(header=msg.header, pose=msg.pose.pose)
        with self._lock:
            self._start = start
            waiting = self._waiting_logged is not None
        if waiting:
            self._plan_active_goal("a start pose arrived")

    def _on_goal(self, msg: PoseStamped) -> None:
        fault = pose_fault(msg.pose)
        if fault is not None:
            self.get_logger().warning(f"goal_pose refused: {fault}; the previous goal stays")
            return
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
            missing = "map" if self._maps.current is None else None
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
        answer = self._admitted(query)
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
        return self._wire.get_plan_response(self._admitted(query).path)

    def _admitted(self, query: PlanQuery) -> PlanAnswer:
        """Plan a service query in its turn, or answer BUSY when the gate refuses it."""
        with self._gate.turn() as refusal:
            if refusal is None:
                return self.compute(query, self._stopping)
        report = self._gate.refusal_report()
        if report:
            self.get_logger().warning(report)
        return PlanAnswer(self._empty_path(self._param("global_frame")), Codes.BUSY, refusal)

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
        empty = self._empty_path(global_frame)
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

    def _empty_path(self, global_frame: str) -> PathArrays:
        return planned_path(np.zeros((0, 2)), global_frame, self.get_clock().now().to_msg(), None)

    def _compute(
        self, query: PlanQuery, cancel: threading.Event | None, global_frame: str
    ) -> PlanAnswer:
        algorithm = query.algorithm.strip() or self._param("algorithm")
        if algorithm not in GRID_ALGORITHMS:
            raise QueryError(
                Codes.INVALID_PLANNER,
                f"unknown algorithm {algorithm!r}; choose one of {', '.join(GRID_ALGORITHMS)}",
            )
        grid = self._maps.grid(self._grid_settings())
        if grid is None:
            raise QueryError(Codes.NO_MAP, "no map received yet on 'map'")
        if grid.map.frame_id != global_frame:
            raise QueryError(
                Codes.NO_MAP, f"the map in use is in frame '{grid.map.frame_id}', not the global "
                f"frame '{global_frame}': waiting for a map in '{global_frame}'",
            )
        goal = self._pose_in_global(query.goal, "goal", global_frame)
        start = self._start_pose(query.start, global_frame)
        tolerance = query.tolerance if query.tolerance >= 0.0 else self._param("goal_tolerance")
        if not math.isfinite(tolerance):
            raise QueryError(Codes.INVALID_POSE, f"tolerance must be finite, got {tolerance}")
        budget = Budget.from_timeout(
            self._param("max_planning_time"), max_nodes=self._param("max_nodes"), cancel=cancel
        )
        found = plan_world(
            grid, (start.x, start.y), (goal.x, goal.y), algorithm, tolerance=tolerance,
            budget=budget, record_expanded=self._param("publish_expanded"),
        )
        if len(found.poses) > self._param("max_path_poses"):
            raise QueryError(
                Codes.NO_VALID_PATH, f"{algorithm} found a path of {len(found.poses)} poses, more "
                f"than max_path_poses {self._param('max_path_poses')}; it is not sent",
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
        fault = pose_fault(pose.pose)
        if fault is not None:
            raise QueryError(Codes.INVALID_POSE, f"{role} {fault}")
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
        cells = np.zeros(grid.cell_count, dtype=np.int8)
        cells[expanded] = 100
        shown = replace(grid.map, data=cells, frame_id=self._param("global_frame"))
        self._expanded_pub.publish(map_to_msg(shown, stamp))

    def begin_shutdown(self) -> None:
        """Cancel the goal plan and running service plans; waiting and new requests are refused."""
        self._stopping.set()
        self._gate.close()
        self._worker.stop()

    def destroy_node(self) -> None:
        """Wait for the goal worker to end, then destroy the node's entities."""
        self.begin_shutdown()
        self._worker.join()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    """Run planner_node until shutdown; the exit code."""
    from grid_planner.nodes.runtime import spin_nodes

    return spin_nodes([PlannerNode], args=args)


if __name__ == "__main__":
    sys.exit(main())
