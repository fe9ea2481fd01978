"""TF-based start poses with a stand-in buffer, a start or a map arriving while a goal is
checked, the latest-job worker and the bounded group."""

from __future__ import annotations

import logging
import math
import threading
import time

import pytest
from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped, TransformStamped
from ros_harness import wait_until

from grid_planner.nodes.conversions import quaternion_to_yaw, yaw_to_quaternion
from grid_planner.nodes.frames import FrameError, FrameResolver
from grid_planner.nodes.latest_job import Job, LatestJobWorker


class StandInBuffer:
    """tf2_ros.Buffer's lookup_transform over a fixed table of planar transforms."""

    def __init__(self, transforms: dict[tuple[str, str], tuple[float, float, float]]) -> None:
        self.transforms = transforms
        self.lookups: list[tuple[str, str]] = []

    def lookup_transform(self, target: str, source: str, time, timeout=None) -> TransformStamped:
        self.lookups.append((target, source))
        if (target, source) not in self.transforms:
            raise LookupError(f'"{source}" passed to lookupTransform does not exist')
        x, y, yaw = self.transforms[(target, source)]
        msg = TransformStamped()
        msg.header.frame_id, msg.child_frame_id = target, source
        msg.transform.translation.x, msg.transform.translation.y = x, y
        msg.transform.rotation = yaw_to_quaternion(yaw)
        return msg


def stamped(x: float, y: float, yaw: float, frame: str) -> PoseStamped:
    msg = PoseStamped()
    msg.header.frame_id = frame
    msg.pose.position.x, msg.pose.position.y = x, y
    msg.pose.orientation = yaw_to_quaternion(yaw)
    return msg


def test_robot_pose_comes_from_the_map_to_base_link_transform() -> None:
    buffer = StandInBuffer({("map", "base_link"): (2.0, -1.0, math.pi / 2)})
    robot = FrameResolver(buffer).robot_pose("map", "base_link", 0.3)
    assert (robot.x, robot.y) == (2.0, -1.0)
    assert math.isclose(robot.yaw, math.pi / 2)
    assert buffer.lookups == [("map", "base_link")]


def test_pose_in_odom_is_transformed_into_map() -> None:
    buffer = StandInBuffer({("map", "odom"): (1.0, 1.0, math.pi / 2)})
    pose = FrameResolver(buffer).to_global(stamped(1.0, 0.0, 0.0, "odom"), "map", 0.3)
    assert math.isclose(pose.x, 1.0, abs_tol=1e-12) and math.isclose(pose.y, 2.0)
    assert math.isclose(pose.yaw, math.pi / 2)


def test_is_path_valid_reads_a_path_in_its_frame_with_one_lookup() -> None:
    # Each pose was transformed on its own: a lookup per pose, about 30 us of Python each.
    import numpy as np
    from nav_msgs.msg import Path

    from grid_planner.nodes.path_validity import global_points
    from grid_planner.nodes.plan_query import QueryError

    buffer = StandInBuffer({("map", "odom"): (1.0, 1.0, math.pi / 2)})
    resolver = FrameResolver(buffer)

    class Node:
        def pose_in_global(self, pose, role, global_frame):
            try:
                return resolver.to_global(pose, global_frame, 0.3)
            except FrameError as error:
                raise QueryError(202, str(error)) from error

    path = Path()
    path.header.frame_id = "odom"
    path.poses = [stamped(1.0, 0.0, 0.3, ""), stamped(2.0, 3.0, 0.0, ""),
                  stamped(math.nan, 0.0, 0.0, "")]
    points = global_points(Node(), path, "map")
    assert buffer.lookups == [("map", "odom")]
    expected = [resolver.to_global(stamped(p.pose.position.x, p.pose.position.y, 0.0, "odom"),
                                   "map", 0.3) for p in path.poses[:2]]
    assert np.allclose(points[:2], [(e.x, e.y) for e in expected])
    assert np.isnan(points[2]).all()
    path.header.frame_id = "base_link"  # no transform: no pose can be placed
    assert np.isnan(global_points(Node(), path, "map")).all()


def test_missing_transform_is_a_frame_error_naming_both_frames() -> None:
    with pytest.raises(FrameError, match="no transform from 'odom' to 'map'"):
        FrameResolver(StandInBuffer({})).to_global(stamped(0, 0, 0, "odom"), "map", 0.3)


def test_without_tf_only_the_global_frame_is_accepted() -> None:
    resolver = FrameResolver(None)
    assert resolver.robot_pose("map", "base_link", 0.3) is None
    assert resolver.to_global(stamped(1.0, 2.0, 0.5, "map"), "map", 0.3).y == 2.0
    assert resolver.to_global(stamped(1.0, 2.0, 0.5, ""), "map", 0.3).x == 1.0
    with pytest.raises(FrameError, match="no tf2_ros"):
        resolver.to_global(stamped(1.0, 2.0, 0.5, "odom"), "map", 0.3)
    assert resolver.never_global(stamped(1.0, 2.0, 0.5, "/map"), "map") is None
    assert FrameResolver(None, "use_tf is false, no TF").never_global(
        stamped(1.0, 2.0, 0.5, "odom"), "map"
    ) == ("pose is in frame 'odom', not the global frame 'map', and use_tf is false, no TF to "
          "transform it")
    assert FrameResolver(StandInBuffer({})).never_global(stamped(0, 0, 0, "odom"), "map") is None


def test_planner_node_plans_from_the_tf_start() -> None:
    from ros_harness import ros_client

    from grid_planner.grid.occupancy import OccupancyMap
    from grid_planner.nodes.conversions import map_to_msg, path_message
    from grid_planner.nodes.planner_node import PlannerNode, PlanQuery

    buffer = StandInBuffer({("map", "base_link"): (0.5, 0.5, 0.0)})
    with ros_client("tf_test"):
        node = PlannerNode(tf_buffer=buffer, namespace="/tf_start")
        try:
            occupancy = OccupancyMap.from_rows([[0] * 5] * 3)
            node._intake.on_map(map_to_msg(occupancy, node.get_clock().now().to_msg()))
            answer = node.compute(PlanQuery(goal=stamped(4.5, 2.5, 0.0, "map")))
        finally:
            node.destroy_node()
    assert answer.ok, answer.error_msg
    path = path_message(answer.path)
    first = path.poses[0].pose.position
    assert (first.x, first.y, len(path.poses)) == (0.5, 0.5, 7)
    assert ("map", "base_link") in buffer.lookups
    assert math.isclose(quaternion_to_yaw(path.poses[-1].pose.orientation), 0.0)


def test_worker_delivers_only_the_latest_job_and_cancels_the_running_one() -> None:
    worker = LatestJobWorker("test_worker")
    started, release = threading.Event(), threading.Event()
    delivered: list[str] = []
    cancelled: list[bool] = []

    def slow(cancel: threading.Event) -> str:
        started.set()
        release.wait(5.0)
        cancelled.append(cancel.is_set())
        return "slow"

    done = threading.Event()

    def deliver_last(result: str) -> None:
        delivered.append(result)
        done.set()

    try:
        worker.submit(Job(run=slow, deliver=delivered.append))
        assert started.wait(5.0)
        worker.submit(Job(run=lambda _c: "skipped", deliver=delivered.append))
        worker.submit(Job(run=lambda _c: "latest", deliver=deliver_last))
        release.set()
        assert done.wait(5.0)
    finally:
        worker.stop()
    assert delivered == ["latest"]
    assert cancelled == [True]


def test_a_job_that_does_not_supersede_waits_for_the_running_one_which_is_delivered() -> None:
    # A replan_period shorter than one plan cancelled every plan: none was ever published.
    worker = LatestJobWorker("test_worker")
    started, release, done = threading.Event(), threading.Event(), threading.Event()
    delivered: list[str] = []
    cancelled: list[bool] = []

    def running(cancel: threading.Event) -> str:
        started.set()
        release.wait(5.0)
        cancelled.append(cancel.is_set())
        return "running"

    try:
        worker.submit(Job(run=running, deliver=delivered.append))
        assert started.wait(5.0)
        worker.submit(Job(run=lambda _c: "dropped", deliver=delivered.append), supersede=False)
        worker.submit(Job(run=lambda _c: "next", deliver=lambda r: (delivered.append(r),
                                                                    done.set())),
                      supersede=False)
        release.set()
        assert done.wait(5.0)
    finally:
        worker.stop()
    assert (delivered, cancelled) == (["running", "next"], [False])


def test_worker_survives_a_failing_job() -> None:
    worker = LatestJobWorker("test_worker")
    done = threading.Event()
    results: list[int] = []

    def fail(_cancel):
        raise RuntimeError("boom")

    try:
        worker.submit(Job(run=fail, deliver=results.append))
        worker.submit(Job(run=lambda _c: 7, deliver=lambda r: (results.append(r), done.set())))
        assert done.wait(5.0)
    finally:
        worker.stop()
    assert results == [7]


def test_worker_survives_a_failing_delivery(caplog) -> None:
    worker = LatestJobWorker("test_worker")
    tried, done = threading.Event(), threading.Event()
    results: list[int] = []

    def refuse(_result) -> None:
        tried.set()
        raise RuntimeError("publisher's context is shut down")

    try:
        with caplog.at_level(logging.ERROR, logger="grid_planner.nodes.latest_job"):
            worker.submit(Job(run=lambda _c: 1, deliver=refuse))
            assert tried.wait(5.0)
            worker.submit(Job(run=lambda _c: 2, deliver=lambda r: (results.append(r), done.set())))
            assert done.wait(5.0)
    finally:
        worker.stop()
    assert results == [2]
    assert "delivering a background job failed" in caplog.text
    assert "context is shut down" in caplog.text


def map_start() -> PoseWithCovarianceStamped:
    """An `initialpose` at (0.5, 0.5) in the map frame."""
    start = PoseWithCovarianceStamped()
    start.header.frame_id = "map"
    start.pose.pose = stamped(0.5, 0.5, 0.0, "map").pose
    return start


class GoalPlannerNode:
    """What PoseInputs reads of its planner node: serving, with a map, no TF; `compute`
    records each planned goal."""

    serving = True
    has_map = True

    def __init__(self) -> None:
        self.planned = threading.Event()
        self.logger = logging.getLogger("goal_planner_node")

    def get_logger(self) -> logging.Logger:
        return self.logger

    def get_parameter(self, name: str) -> object:
        values = {"use_tf": False, "global_frame": "map", "robot_base_frame": "base_link",
                  "transform_tolerance": 0.1, "subscribe_initialpose": True}
        return type("Parameter", (), {"value": values[name]})()

    def compute(self, query, cancel, announce) -> object:
        from grid_planner.nodes.plan_query import Codes

        self.planned.set()
        return type("Answer", (), {"error_code": Codes.NO_VALID_PATH})()  # nothing to publish


def test_a_start_stored_between_the_goals_check_and_its_wait_still_plans_the_goal() -> None:
    from grid_planner.nodes.pose_inputs import PoseInputs

    node = GoalPlannerNode()
    inputs = PoseInputs(node, None)
    inputs.open()
    assert inputs.frames.never_global(stamped(0.0, 0.0, 0.0, "odom"), "map").endswith(
        "and use_tf is false, no TF to transform it")
    start = map_start()
    checked = inputs._has_current_start

    def start_arrives_right_after_the_check() -> bool:
        # The goal's thread finds no start; the start's thread stores one before the goal's
        # thread records that the goal waits (two callbacks of a multi-threaded executor).
        found = checked()
        inputs.on_start(start, "initialpose")
        return found

    inputs._has_current_start = start_arrives_right_after_the_check
    try:
        inputs.on_goal(stamped(4.5, 2.5, 0.0, "map"))
        assert node.planned.wait(5.0), "the goal stayed pending with a start in hand"
    finally:
        inputs.close()


class NewGoalDuringTheCheck(GoalPlannerNode):
    """A planner node whose map check, made by a replan of the first goal, lets a newer goal
    arrive first (the goal_pose callback runs beside the replan timer); `compute` records the
    goals planned, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs = None
        self.newer = None
        self.order: list[object] = []
        self.idle = threading.Event()

    @property
    def has_map(self) -> bool:
        newer, self.newer = self.newer, None
        if newer is not None:
            self.inputs.on_goal(newer)
        return True

    def compute(self, query, cancel, announce) -> object:
        self.order.append(query.goal)
        return super().compute(query, cancel, announce)


def test_a_replan_of_an_older_goal_is_never_queued_after_a_newer_goal() -> None:
    # The replan read the old goal, the new goal was planned, then the replan queued the old
    # one: its path was published last (5 in 600 goals with replan_period 0.05 s).
    from grid_planner.nodes.pose_inputs import PoseInputs

    node = NewGoalDuringTheCheck()
    inputs = node.inputs = PoseInputs(node, None)
    inputs.open()
    start = map_start()
    inputs.on_start(start, "initialpose")
    older, newer = stamped(4.5, 2.5, 0.0, "map"), stamped(1.5, 3.5, 0.0, "map")
    try:
        inputs.on_goal(older)
        wait_until(lambda: node.order == [older], what="the first goal's plan")
        node.newer = newer
        inputs.plan_active_goal("replan_period", supersede=False)
        wait_until(lambda: newer in node.order, what="the newer goal's plan")
        time.sleep(0.2)  # time for a stale job queued behind it to run
    finally:
        inputs.close()
    assert node.order == [older, newer]


class MapLandsDuringTheCheck(GoalPlannerNode):
    """A planner node whose map lands just after a goal's first look at it: `has_map` answers
    False that once, and the map's replan runs then, finding no goal pending yet."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs = None
        self.arrived = False
        self.pending_when_the_map_landed: bool | None = None

    @property
    def has_map(self) -> bool:
        if self.arrived:
            return True
        self.arrived = True
        # What the map's replan (`replan_on_map_update: never`) looks at before planning.
        self.pending_when_the_map_landed = self.inputs.pending
        return False


def test_a_map_landing_between_the_goals_check_and_its_wait_still_plans_the_goal() -> None:
    from grid_planner.nodes.pose_inputs import PoseInputs

    node = MapLandsDuringTheCheck()
    inputs = node.inputs = PoseInputs(node, None)
    inputs.open()
    start = map_start()
    inputs.on_start(start, "initialpose")
    try:
        inputs.on_goal(stamped(4.5, 2.5, 0.0, "map"))
        assert node.pending_when_the_map_landed is False  # the map's replan left it to the goal
        assert node.planned.wait(5.0), "the goal stayed pending with a map in hand"
    finally:
        inputs.close()
