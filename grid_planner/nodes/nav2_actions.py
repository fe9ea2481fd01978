"""Nav2's planner interface on planner_node: compute_path_to_pose, compute_path_through_poses
and is_path_valid (where nav2_msgs is installed).

Semantics are Nav2 jazzy's planner_server's (result codes, planner ids, the costmap wait before
anything else, legs joined without the repeated pose, every success also published on `plan`)
with these differences, by design:
- a goal that arrives while one runs preempts it: the running search stops at its next kernel
  chunk and that goal is aborted with an empty result; the new goal is planned at once (jazzy
  finishes the running plan, keeps one pending goal);
- `error_msg` and `planning_time` are filled on every outcome (jazzy fills neither on a
  failure); a canceled goal's result carries the time and nodes spent so far;
- our codes without a Nav2 counterpart map onto the nearest one: no map (after
  `costmap_update_timeout`) -> TIMEOUT, no start -> TF_ERROR, a NaN pose -> UNKNOWN, each with
  the reason in `error_msg`.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from geometry_msgs.msg import Point, Pose, PoseStamped, Quaternion
from rclpy.action import CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from std_msgs.msg import Header

from grid_planner.nodes.action_server import ReadyActionServer
from grid_planner.nodes.conversions import path_message, seconds_to_duration
from grid_planner.nodes.path_validity import check_path
from grid_planner.nodes.plan_query import Codes, PlanAnswer, PlanQuery
from grid_planner.nodes.qos import SERVICE_QOS
from grid_planner.nodes.wire.cdr import PathArrays

if TYPE_CHECKING:
    from grid_planner.nodes.planner_node import PlannerNode

# Executor threads the actions may hold: per action a finishing (preempted) goal, the running
# one and a request being answered; one for is_path_valid.
ACTION_THREADS = 2 * 3 + 1
MAP_POLL_S = 0.01  # how often an action waits for the first map (Nav2 polls at 100 Hz)
# Our ComputePath codes without a Nav2 counterpart -> the nearest Nav2 code (200 range).
NEAREST_NAV2_CODE = {
    Codes.NO_MAP: Codes.TIMEOUT,
    Codes.NO_START: Codes.TF_ERROR,
    Codes.INVALID_POSE: Codes.UNKNOWN,
    Codes.BUSY: Codes.UNKNOWN,
}


def nav2_problem() -> str | None:
    """Why Nav2's actions cannot be offered here (nav2_msgs missing), or None."""
    try:
        import nav2_msgs.action
        import nav2_msgs.srv  # noqa: F401
    except ImportError as error:
        return f"nav2_msgs is not importable ({error})"
    return None


def nav2_code(code: int, base: int) -> int:
    """A ComputePath code as the code of a Nav2 action whose UNKNOWN is `base` (200 or 300);
    a code beyond ComputePath's (NO_VIAPOINTS_GIVEN, 309) is the action's own already."""
    if code > Codes.BUSY:
        return code
    code = NEAREST_NAV2_CODE.get(code, code)
    return Codes.NONE if code == Codes.NONE else code - Codes.UNKNOWN + base


@dataclass
class _Goal:
    """A goal being executed: its handle, the event that stops its search, why it was ended."""

    handle: ServerGoalHandle
    cancel: threading.Event = field(default_factory=threading.Event)
    ended_by: str = ""  # set when the server ends it (preemption, deactivation, shutdown)


class _Lane:
    """One action server: a newer goal preempts the running one; cancel stops its search."""

    def __init__(self, node: PlannerNode, action_type: type, name: str,
                 plan: Callable[[object, threading.Event], tuple[object, PlanAnswer]]) -> None:
        self._node = node
        self._plan = plan
        self._type = action_type
        self._lock = threading.Condition()
        self._goals: dict[bytes, _Goal] = {}
        self._current: _Goal | None = None
        result_timeout = max(1, round(node.get_parameter("action_server_result_timeout").value))
        # Its services keep every request (rclpy's default keeps the last 10: a burst of goals
        # or result requests lost the older ones unanswered).
        self.server = node.keep(ReadyActionServer(
            node, action_type, name, self._execute, callback_group=ReentrantCallbackGroup(),
            goal_callback=self._on_goal, handle_accepted_callback=self._on_accepted,
            cancel_callback=self._on_cancel, result_timeout=result_timeout,
            goal_service_qos_profile=SERVICE_QOS, result_service_qos_profile=SERVICE_QOS,
            cancel_service_qos_profile=SERVICE_QOS,
        ))

    def _on_goal(self, _goal: object) -> GoalResponse:
        if self._node.serving:
            return GoalResponse.ACCEPT
        self._node.get_logger().info(f"goal rejected: {self._node.refusal()}")
        return GoalResponse.REJECT

    def _on_accepted(self, handle: ServerGoalHandle) -> None:
        goal = _Goal(handle)
        with self._lock:
            previous, self._current = self._current, goal
            self._goals[bytes(handle.goal_id.uuid)] = goal
            if previous is not None:
                previous.ended_by = "preempted by a newer goal"
                previous.cancel.set()
        handle.execute()

    def _on_cancel(self, handle: ServerGoalHandle) -> CancelResponse:
        with self._lock:
            goal = self._goals.get(bytes(handle.goal_id.uuid))
        if goal is None or not handle.is_active:
            return CancelResponse.REJECT
        goal.cancel.set()
        return CancelResponse.ACCEPT

    def _execute(self, handle: ServerGoalHandle) -> object:
        key = bytes(handle.goal_id.uuid)
        with self._lock:
            goal = self._goals[key]
        try:
            if not self._node.serving:
                goal.ended_by = self._node.refusal()
                result, answer = self._type.Result(), None
            else:
                result, answer = self._plan(handle.request, goal.cancel)
            return self._finish(goal, result, answer)
        finally:
            with self._lock:
                del self._goals[key]
                if self._current is goal:
                    self._current = None
                self._lock.notify_all()

    def _finish(self, goal: _Goal, result: object, answer: PlanAnswer | None) -> object:
        """End the goal with its state: succeeded, aborted (failure, or ended by the server:
        an empty result saying why) or canceled (the statistics so far)."""
        handle = goal.handle
        if answer is not None and answer.ok:
            handle.succeed()
            return result
        if answer is None or (answer.cancelled and goal.ended_by):
            handle.abort()
            return self._type.Result(error_msg=goal.ended_by or "ended by the server")
        if answer.cancelled and handle.is_cancel_requested:
            handle.canceled()
            result.error_code = Codes.NONE
            result.error_msg = (f"canceled after {answer.planning_time * 1000:.0f} ms, "
                                f"{answer.nodes_expanded} nodes expanded")
            return result
        handle.abort()
        return result

    def stop(self, why: str, wait: float) -> None:
        """End every goal (aborted with `why`), waiting up to `wait` s for their answers."""
        with self._lock:
            for goal in self._goals.values():
                goal.ended_by = why
                goal.cancel.set()
            self._lock.wait_for(lambda: not self._goals, wait)


class PathActions:
    """The two actions and is_path_valid of one planner node, made at configure."""

    def __init__(self, node: PlannerNode) -> None:
        from nav2_msgs.action import ComputePathThroughPoses, ComputePathToPose
        from nav2_msgs.srv import IsPathValid

        self._node = node
        self._through_type = ComputePathThroughPoses
        self._lanes = (
            _Lane(node, ComputePathToPose, "compute_path_to_pose",
                  self._planned(ComputePathToPose.Result, 200, self._to_pose)),
            _Lane(node, ComputePathThroughPoses, "compute_path_through_poses",
                  self._planned(ComputePathThroughPoses.Result, 300, self._through_poses)),
        )
        node.keep(node.create_service(
            IsPathValid, "is_path_valid", self._on_is_path_valid, qos_profile=SERVICE_QOS,
            callback_group=ReentrantCallbackGroup(),
        ))

    def stop(self, why: str, wait: float) -> None:
        """End every running goal with `why` (deactivation, shutdown)."""
        for lane in self._lanes:
            lane.stop(why, wait)

    def _planned(self, result_type: type, base: int,
                 plan: Callable[[object, threading.Event], PlanAnswer]) -> Callable:
        """`plan` after Nav2's wait for a map, its answer made the action's timed result."""

        def run(goal: object, cancel: threading.Event) -> tuple[object, PlanAnswer]:
            started = time.monotonic()
            answer = self._wait_for_map(cancel) or plan(goal, cancel)
            return self._result(result_type, base, started, answer)

        return run

    def _wait_for_map(self, cancel: threading.Event) -> PlanAnswer | None:
        """Wait up to costmap_update_timeout for a map (Nav2 waits for a current costmap
        first); the failure when none came or the goal was cancelled meanwhile."""
        timeout = self._node.get_parameter("costmap_update_timeout").value
        deadline = time.monotonic() + timeout
        while not self._node.has_map:
            if cancel.is_set():
                return PlanAnswer(self._node.empty_path(), Codes.UNKNOWN,
                                  "cancelled while waiting for a map", cancelled=True)
            if time.monotonic() >= deadline:
                return self._failed(Codes.NO_MAP, self._node.no_map(
                    f"within costmap_update_timeout {timeout:g} s"))
            time.sleep(MAP_POLL_S)
        return None

    def _to_pose(self, goal: object, cancel: threading.Event) -> PlanAnswer:
        query = PlanQuery(goal=goal.goal, start=goal.start if goal.use_start else None,
                          planner_id=goal.planner_id)
        return self._node.compute(query, cancel)

    def _through_poses(self, goal: object, cancel: threading.Event) -> PlanAnswer:
        if not goal.goals:
            return self._failed(self._through_type.Result.NO_VIAPOINTS_GIVEN, "no goals given")
        start = goal.start if goal.use_start else None
        most_poses = self._node.get_parameter("max_path_poses").value
        legs: list[PathArrays] = []
        expanded = poses = 0
        for index, via in enumerate(goal.goals):
            answer = self._node.compute(
                PlanQuery(goal=via, start=start, planner_id=goal.planner_id), cancel
            )
            expanded += answer.nodes_expanded
            poses += answer.path.pose_count - (1 if legs else 0)
            if answer.ok and poses > most_poses:
                answer = self._failed(
                    Codes.NO_VALID_PATH, f"the path through the first {index + 1} goals has "
                    f"{poses} poses, more than max_path_poses {most_poses}; it is not sent",
                )
            if not answer.ok:
                answer.nodes_expanded = expanded
                answer.error_msg = f"leg {index + 1} of {len(goal.goals)}: {answer.error_msg}"
                return answer
            legs.append(answer.path)
            start = last_pose(answer.path)
        answer.path = join_legs(legs)
        answer.nodes_expanded = expanded
        return answer

    def _failed(self, code: int, message: str) -> PlanAnswer:
        return PlanAnswer(self._node.empty_path(), code, message)

    def _result(self, result_type: type, base: int, started: float,
                answer: PlanAnswer) -> tuple[object, PlanAnswer]:
        """The action result of `answer` (published on `plan` and timed when it succeeded)."""
        elapsed = time.monotonic() - started
        answer.planning_time = elapsed
        result = result_type(error_code=nav2_code(answer.error_code, base),
                             error_msg=answer.error_msg,
                             planning_time=seconds_to_duration(elapsed))
        if answer.ok:
            result.path = path_message(answer.path)
            self._node.publish_plan(answer.path)
            frequency = self._node.get_parameter("expected_planner_frequency").value
            if 0.0 < frequency < math.inf and elapsed > 1.0 / frequency:
                self._node.get_logger().warning(
                    f"planning took {elapsed:.3f} s, longer than the period of "
                    f"expected_planner_frequency {frequency:g} Hz"
                )
        return result, answer

    def _on_is_path_valid(self, request: object, response: object) -> object:
        node = self._node
        if not node.serving:
            node.get_logger().warning(f"is_path_valid answers false: {node.refusal()}")
            response.is_valid = False
            return response
        response.is_valid, response.invalid_pose_indices = check_path(node, request.path)
        return response


def last_pose(path: PathArrays) -> PoseStamped:
    """The last pose of `path` as a PoseStamped (the start of the next leg)."""
    (x, y, z), (qx, qy, qz, qw) = path.positions[-1], path.orientations[-1]
    return PoseStamped(
        header=Header(frame_id=path.frame_id),
        pose=Pose(position=Point(x=float(x), y=float(y), z=float(z)),
                  orientation=Quaternion(x=float(qx), y=float(qy), z=float(qz), w=float(qw))),
    )


def join_legs(legs: list[PathArrays]) -> PathArrays:
    """One path through every leg: each later leg without its first pose (the previous leg's
    last); the header is the last leg's, as Nav2 jazzy (1.3.9 on) gives it."""
    positions = [legs[0].positions] + [leg.positions[1:] for leg in legs[1:]]
    orientations = [legs[0].orientations] + [leg.orientations[1:] for leg in legs[1:]]
    last = legs[-1]
    return PathArrays(last.frame_id, last.stamp_sec, last.stamp_nanosec,
                      np.concatenate(positions), np.concatenate(orientations))
