"""Where planner_node's plans start and end: the current start and the goal_pose goal.

The current start is the robot's pose from TF where tf2_ros is installed (as Nav2 does), else
the latest `initialpose` / `amcl_pose`. A goal from `goal_pose` stays pending until a map and a
start exist, is planned on a background worker that always plans the latest goal only, and is
planned again when the map changes; its plans are published on `plan`.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.qos import QoSPolicyKind, QoSProfile

from grid_planner.nodes.conversions import pose_fault
from grid_planner.nodes.frames import FrameError, FrameResolver, Pose2D, make_tf_buffer
from grid_planner.nodes.latest_job import Job, LatestJobWorker
from grid_planner.nodes.map_input import shown_topic
from grid_planner.nodes.plan_query import Codes, PlanAnswer, PlanQuery, QueryError
from grid_planner.nodes.qos import COMMAND_QOS, LATCHED_POSE_QOS, VOLATILE_POSE_QOS

if TYPE_CHECKING:
    from grid_planner.nodes.planner_node import PlannerNode

WAITING_FOR_START = "start pose"  # what a pending goal waits for, beside "map"


class PoseInputs:
    """The start poses and the goal_pose goal of one planner node, between configure and
    cleanup (`open` / `close`)."""

    def __init__(self, node: PlannerNode, tf_buffer: object | None) -> None:
        self._node = node
        self._given_tf_buffer = tf_buffer
        self._lock = threading.Lock()
        self._start: PoseStamped | None = None
        self._goal: PoseStamped | None = None
        self._waiting_logged: str | None = None
        self.frames = FrameResolver(None)
        self._worker: LatestJobWorker | None = None
        self._listener = None
        self._start_topics: tuple[str, ...] = ("initialpose", "amcl_pose")

    def open(self) -> None:
        """Start the goal worker and, where wanted and installed, the TF listener."""
        buffer = self._given_tf_buffer
        use_tf = self._node.get_parameter("use_tf").value
        if buffer is None and use_tf:
            buffer = make_tf_buffer(self._node)
            self._listener = getattr(self._node, "_tf_listener", None)
        self.frames = FrameResolver(
            buffer, "this install has no tf2_ros" if use_tf else "use_tf is false, no TF"
        )
        self._worker = LatestJobWorker("goal_planner")

    def subscribe_starts(self, group: object) -> None:
        """Take start poses from the start topics (callbacks in `group`); Nav2's launch files
        turn initialpose off. Messages name the topics as remap rules do."""
        node = self._node
        shown = []
        if node.get_parameter("subscribe_initialpose").value:
            shown.append(self._subscribe_start("initialpose", COMMAND_QOS, group))
        latched = node.get_parameter("start_pose_transient_local").value
        shown.append(self._subscribe_start(
            "amcl_pose", LATCHED_POSE_QOS if latched else VOLATILE_POSE_QOS, group))
        self._start_topics = tuple(shown)

    def _subscribe_start(self, topic: str, qos: QoSProfile, group: object) -> str:
        """Take start poses from `topic`; its name as messages give it. A publisher whose QoS
        cannot match is named with the setting that would match a volatile one (slam_toolbox
        publishes its pose volatile)."""
        node, shown = self._node, shown_topic(self._node, topic)

        def incompatible(event: object) -> None:
            policy = QoSPolicyKind(event.last_policy_kind)
            hint = ("; a volatile publisher (slam_toolbox's pose) needs "
                    "start_pose_transient_local false"
                    if policy == QoSPolicyKind.DURABILITY and topic == "amcl_pose" else "")
            node.get_logger().warning(
                f"a publisher on '{shown}' offers an incompatible QoS ({policy.name.lower()}): "
                f"no start poses come from it{hint}"
            )

        node.keep(node.create_subscription(
            PoseWithCovarianceStamped, topic, lambda msg: self.on_start(msg, shown), qos,
            callback_group=group,
            event_callbacks=SubscriptionEventCallbacks(incompatible_qos=incompatible),
        ))
        return shown

    def close(self) -> None:
        """Stop the worker and the TF listener; forget the start and the goal."""
        if self._worker is not None:
            self._worker.join()
            self._worker = None
        if self._listener is not None:
            self._listener.unregister()
            self._listener = None
        self.frames = FrameResolver(None)
        with self._lock:
            self._start = self._goal = self._waiting_logged = None

    def cancel(self) -> None:
        """Cancel the running goal plan (deactivation)."""
        if self._worker is not None:
            self._worker.cancel_all()

    def stop(self) -> None:
        """Cancel the goal plan and take no more (shutdown); returns at once."""
        if self._worker is not None:
            self._worker.stop()

    @property
    def pending(self) -> bool:
        """Whether the active goal waits for a map or a start (it was never planned)."""
        with self._lock:
            return self._goal is not None and self._waiting_logged is not None

    @property
    def start_source(self) -> str:
        """Where the current start comes from, for the ready line."""
        topics = " or ".join(self._start_topics)
        return f"TF, else {topics}" if self.frames.buffer is not None else f"{topics} (no TF)"

    # --- messages -------------------------------------------------------------------------------

    def refusal(self, pose: PoseStamped) -> str | None:
        """Why a start or goal pose from a topic is of no use (not finite, or in a frame that
        can never be expressed in `global_frame`), or None."""
        fault = pose_fault(pose.pose)
        if fault is not None:
            return fault
        return self.frames.never_global(pose, self._node.get_parameter("global_frame").value)

    def on_start(self, msg: PoseWithCovarianceStamped, topic: str) -> None:
        """A start pose from `initialpose` or `amcl_pose`."""
        start = PoseStamped(header=msg.header, pose=msg.pose.pose)
        refusal = self.refusal(start)
        if refusal is not None:
            self._node.get_logger().warning(
                f"{topic} refused: {refusal}; the previous start stays"
            )
            return
        with self._lock:
            self._start = start
            waiting = self._waiting_logged is not None
        if waiting:
            self.plan_active_goal("a start pose arrived")

    def on_goal(self, msg: PoseStamped) -> None:
        """A goal from `goal_pose` (RViz "2D Goal Pose")."""
        refusal = self.refusal(msg)
        if refusal is not None:
            self._node.get_logger().warning(
                f"goal_pose refused: {refusal}; the previous goal stays"
            )
            return
        with self._lock:
            self._goal = msg
            self._waiting_logged = None
        self.plan_active_goal("a new goal arrived")

    def plan_active_goal(self, why: str, supersede: bool = True) -> None:
        """Plan the active goal on the worker, or keep it pending. `supersede`: cancel a plan
        still running (a new goal, or one waiting for a map or start); else (a map change, the
        period) that plan is finished and published first, then this one runs."""
        with self._lock:
            goal = self._goal
            if goal is None or not self._node.serving or self._worker is None:
                return
        missing = None if self._node.has_map else "map"
        if missing is None and not self._has_current_start():
            missing = WAITING_FOR_START
        with self._lock:
            # A start stored after the check above, while `_waiting_logged` was still unset,
            # left this goal to this call (`on_start` replans only a goal already waiting):
            # plan it now. Either this call sees that start here or `on_start` sees this wait.
            if missing == WAITING_FOR_START and self._start is not None:
                missing = None
            newly_waiting = missing is not None and self._waiting_logged != missing
            self._waiting_logged = missing
        if missing == "map" and self._node.has_map:
            # The map landed after the check above, and its `map_changed` may have looked
            # before this goal was marked pending: plan it now.
            self.plan_active_goal(why, supersede)
            return
        if newly_waiting:
            waiting = missing if missing == "map" else f"start pose ({self.start_source})"
            self._node.get_logger().info(f"goal pending: waiting for a {waiting}")
        if missing is not None:
            return
        self._node.get_logger().debug(f"planning the active goal: {why}")
        query = PlanQuery(goal=goal)
        with self._lock:
            # A newer goal stored since this call read `goal` is planned by its own call: this
            # older one must not be queued after it (it would be published last).
            if self._goal is not goal or self._worker is None:
                return
            self._worker.submit(Job(
                run=lambda cancel: self._node.compute(query, cancel, announce=True),
                deliver=self._deliver,
            ), supersede)

    def _has_current_start(self) -> bool:
        if self._start is not None:
            return True
        try:
            return self.robot_pose() is not None
        except FrameError:
            return False

    def _deliver(self, answer: PlanAnswer) -> None:
        if answer.error_code == Codes.NONE:
            self._node.goal_planned(answer)
        elif answer.error_code == Codes.NO_START:
            with self._lock:
                self._waiting_logged = WAITING_FOR_START

    # --- poses in the global frame --------------------------------------------------------------

    def pose_in_global(self, pose: PoseStamped, role: str, global_frame: str) -> Pose2D:
        """`pose` in the global frame; QueryError (INVALID_POSE, TF_ERROR) naming `role`."""
        fault = pose_fault(pose.pose)
        if fault is not None:
            raise QueryError(Codes.INVALID_POSE, f"{role} {fault}")
        timeout = self._node.get_parameter("transform_tolerance").value
        try:
            return self.frames.to_global(pose, global_frame, timeout)
        except FrameError as error:
            raise QueryError(Codes.TF_ERROR, f"{role}: {error}") from error

    def robot_pose(self) -> Pose2D | None:
        """The robot's pose from TF (None without TF); FrameError when TF has none."""
        value = self._node.get_parameter
        return self.frames.robot_pose(
            value("global_frame").value, value("robot_base_frame").value,
            value("transform_tolerance").value,
        )

    def start_pose(self, explicit: PoseStamped | None, global_frame: str) -> Pose2D:
        """`explicit` in the global frame, or the current start (TF, else the start topics)."""
        if explicit is not None:
            return self.pose_in_global(explicit, "start", global_frame)
        if self.frames.buffer is not None:
            try:
                robot = self.robot_pose()
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
                Codes.NO_START, f"no start pose yet: publish {' or '.join(self._start_topics)}, "
                "or set use_start in the request",
            )
        return self.pose_in_global(start, "start", global_frame)
