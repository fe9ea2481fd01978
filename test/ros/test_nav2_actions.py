"""Nav2's planner interface over real DDS, driven as bt_navigator drives planner_server: an
rclpy ActionClient for compute_path_to_pose and compute_path_through_poses, is_path_valid."""

from __future__ import annotations

import itertools
import math
import time
from pathlib import Path

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from geometry_msgs.msg import Quaternion
from nav2_clients import ActionCaller, require
from nav_msgs.msg import Path as PathMsg
from planner_harness import (
    SPLIT,
    TUTORIAL,
    PlannerHarness,
    assert_valid_path,
    centre,
    pose,
    reference_distance,
)
from ros_harness import ros_client, running, wait_until
from shared_data import shared_path

from grid_planner.grid.map_io import load_map
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.nav2_actions import join_legs, nav2_code
from grid_planner.nodes.plan_query import Codes
from grid_planner.nodes.wire.cdr import PathArrays

NS = "/n2a"
BIG = 4096  # a 4096 x 4096 map (16.8 million cells), the largest max_map_cells allows
# Search budgets big enough for a corner-to-corner Dijkstra on the big map.
LONG_SEARCH = ["-p", "algorithm:=dijkstra", "-p", "max_nodes:=40000000",
               "-p", "max_planning_time:=120.0"]


@pytest.fixture(scope="module")
def nav2(tmp_path_factory):
    """planner_node in /n2a with a client for each action and for is_path_valid."""
    require("nav2_msgs.action")
    from nav2_msgs.action import ComputePathThroughPoses, ComputePathToPose
    from nav2_msgs.srv import IsPathValid

    log_dir = tmp_path_factory.mktemp("nav2_actions")
    args = ["--ros-args", "-r", f"__ns:={NS}", *LONG_SEARCH]
    with running("planner_node", args, log_dir) as proc, ros_client("nav2_test") as client:
        harness = PlannerHarness(client, proc, NS)
        harness.to_pose = ActionCaller(client, ComputePathToPose, f"{NS}/compute_path_to_pose")
        harness.through = ActionCaller(
            client, ComputePathThroughPoses, f"{NS}/compute_path_through_poses"
        )
        harness.is_valid = client.node.create_client(IsPathValid, f"{NS}/is_path_valid")
        harness.is_valid_type = IsPathValid
        yield harness


def assert_aborted(outcome, code: int, message: str) -> None:
    """The goal was aborted with `code`, `message` in its error_msg and no path."""
    assert outcome.status == GoalStatus.STATUS_ABORTED
    assert outcome.result.error_code == code, outcome.result.error_msg
    assert message in outcome.result.error_msg
    assert outcome.result.path.poses == []


def cells_of(path: PathMsg, occupancy: OccupancyMap) -> list[tuple[int, int]]:
    return [occupancy.world_to_cell(p.pose.position.x, p.pose.position.y) for p in path.poses]


def test_success_on_the_turtlebot3_map_is_optimal_and_published_on_plan(nav2) -> None:
    occupancy = load_map(shared_path("maps", "turtlebot3_world.yaml"))
    nav2.publish_map(occupancy)
    start, goal = occupancy.world_to_cell(-2.0, -0.5), occupancy.world_to_cell(1.9, 0.5)
    before = len(nav2.plans)
    outcome = nav2.to_pose.call(goal=centre(occupancy, goal), start=centre(occupancy, start),
                                use_start=True, planner_id="GridBased")
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED
    result = outcome.result
    assert (result.error_code, result.error_msg) == (0, "")
    assert_valid_path(result.path, occupancy, start, goal)
    assert len(result.path.poses) - 1 == reference_distance(occupancy, start, goal)
    assert result.path.header.frame_id == "map" and result.path.header.stamp.sec > 0
    assert {p.header.stamp.sec for p in result.path.poses} == {result.path.header.stamp.sec}
    assert result.planning_time.sec > 0 or result.planning_time.nanosec > 0
    published = nav2.wait_for_plans(before + 1)
    assert cells_of(published, occupancy) == cells_of(result.path, occupancy)
    assert published.header.stamp == result.path.header.stamp


@pytest.mark.parametrize("planner_id", ["", "GridBased"])
def test_empty_and_named_planner_id_both_plan_with_the_one_planner(nav2, planner_id) -> None:
    nav2.publish_map(TUTORIAL)
    outcome = nav2.to_pose.call(goal=centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)),
                                use_start=True, planner_id=planner_id)
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED
    assert len(outcome.result.path.poses) == 17


def test_use_start_false_plans_from_the_current_start(nav2) -> None:
    nav2.publish_map(TUTORIAL)
    nav2.set_start(*TUTORIAL.cell_to_world(4, 4))
    wait_until(lambda: nav2.to_pose.call(goal=centre(TUTORIAL, (9, 0)), use_start=False)
               .result.error_code == 0, what="the start pose to arrive")
    given = centre(TUTORIAL, (0, 7))
    from_current = nav2.to_pose.call(goal=centre(TUTORIAL, (9, 0)), start=given, use_start=False)
    from_given = nav2.to_pose.call(goal=centre(TUTORIAL, (9, 0)), start=given, use_start=True)
    assert cells_of(from_current.result.path, TUTORIAL)[0] == (4, 4)
    assert cells_of(from_given.result.path, TUTORIAL)[0] == (0, 7)


NAN_GOAL = pose(float("nan"), 0.5)


@pytest.mark.parametrize(
    ("start", "goal", "planner_id", "code", "message"),
    [
        ((0.5, 7.5), NAN_GOAL, "", 200, "goal pose is not finite"),
        # The start is taken before the goal, as Nav2 takes it (the goal's frame won here).
        ((float("nan"), 7.5), pose(9.5, 0.5, frame="odom"), "", 200, "start pose is not finite"),
        ((0.5, 7.5), (9.5, 0.5), "Nope", 201, "planner_id 'Nope' is not a configured planner"),
        ((0.5, 7.5), pose(9.5, 0.5, frame="odom"), "", 202, "frame 'odom'"),
        ((-3.0, 7.5), (9.5, 0.5), "", 203, "start (-3.000, 7.500) m lies"),
        ((0.5, 7.5), (20.0, 0.5), "", 204, "goal (20.000, 0.500) m lies"),
        ((7.5, 7.5), (9.5, 0.5), "", 205, "start cell (7, 7)"),
        ((0.5, 7.5), (7.5, 7.5), "", 206, "goal cell (7, 7)"),
    ],
)
def test_to_pose_result_codes(nav2, start, goal, planner_id, code, message) -> None:
    nav2.publish_map(TUTORIAL)
    goal = goal if isinstance(goal, type(NAN_GOAL)) else pose(*goal)
    assert_aborted(nav2.to_pose.call(goal=goal, start=pose(*start), use_start=True,
                                     planner_id=planner_id), code, message)


def test_unreachable_goal_is_no_valid_path(nav2) -> None:
    nav2.publish_map(SPLIT)
    outcome = nav2.to_pose.call(goal=centre(SPLIT, (4, 0)), start=centre(SPLIT, (0, 0)),
                                use_start=True)
    assert (outcome.status, outcome.result.error_code) == (GoalStatus.STATUS_ABORTED, 208)
    outcome = nav2.through.call(goals=[centre(SPLIT, (0, 3)), centre(SPLIT, (4, 0))],
                                start=centre(SPLIT, (0, 0)), use_start=True)
    assert outcome.result.error_code == 308
    assert outcome.result.error_msg.startswith("leg 2 of 2: ")


def test_through_poses_joins_legs_without_repeating_the_joint(nav2) -> None:
    nav2.publish_map(TUTORIAL)
    vias = [(9, 0), (9, 7), (0, 0)]
    before = len(nav2.plans)
    outcome = nav2.through.call(goals=[centre(TUTORIAL, v) for v in vias],
                                start=centre(TUTORIAL, (0, 7)), use_start=True)
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.error_msg
    cells = cells_of(outcome.result.path, TUTORIAL)
    assert (cells[0], cells[-1]) == ((0, 7), (0, 0))
    free = TUTORIAL.grid2d() < 65
    for (ax, ay), (bx, by) in itertools.pairwise(cells):  # continuous at the joins, no repeat
        assert abs(ax - bx) + abs(ay - by) == 1 and free[by, bx]
    legs = [((0, 7), (9, 0)), ((9, 0), (9, 7)), ((9, 7), (0, 0))]
    assert len(cells) - 1 == sum(reference_distance(TUTORIAL, a, b) for a, b in legs)
    for via in vias:
        assert via in cells
    assert cells_of(nav2.wait_for_plans(before + 1), TUTORIAL) == cells


@pytest.mark.parametrize(
    ("start", "goals", "planner_id", "code", "message"),
    [
        ((0.5, 7.5), [(9.5, 0.5), NAN_GOAL], "", 300, "leg 2 of 2: goal pose is not finite"),
        ((-3.0, 7.5), [(9.5, 0.5)], "", 303, "leg 1 of 1: start (-3.000, 7.500) m lies"),
        ((7.5, 7.5), [(9.5, 0.5)], "", 305, "leg 1 of 1: start cell (7, 7)"),
        ((0.5, 7.5), [(9.5, 0.5), (20.0, 0.5)], "", 304, "leg 2 of 2: goal (20.000, 0.500) m lies"),
        ((0.5, 7.5), [(9.5, 0.5), (7.5, 7.5)], "", 306, "leg 2 of 2: goal cell (7, 7)"),
        ((0.5, 7.5), [(9.5, 0.5)], "Nope", 301, "planner_id 'Nope'"),
        ((0.5, 7.5), [], "", 309, "no goals given"),
    ],
)
def test_through_poses_result_codes(nav2, start, goals, planner_id, code, message) -> None:
    nav2.publish_map(TUTORIAL)
    goals = [g if isinstance(g, type(NAN_GOAL)) else pose(*g) for g in goals]
    assert_aborted(nav2.through.call(goals=goals, start=pose(*start), use_start=True,
                                     planner_id=planner_id), code, message)


def test_the_joined_path_is_held_to_max_path_poses(nav2) -> None:
    # Each leg was checked alone: three legs under max_path_poses 10 sent 19 poses, and 600
    # legs under the default 200,000 sent 238,801.
    nav2.publish_map(TUTORIAL)
    first = reference_distance(TUTORIAL, (0, 7), (9, 0))
    second = reference_distance(TUTORIAL, (9, 0), (9, 7))
    most = max(first, second) + 2  # either leg alone fits
    assert first + second + 1 > most
    assert nav2.set_parameter("max_path_poses", most).successful
    try:
        outcome = nav2.through.call(
            goals=[centre(TUTORIAL, (9, 0)), centre(TUTORIAL, (9, 7)), centre(TUTORIAL, (0, 0))],
            start=centre(TUTORIAL, (0, 7)), use_start=True,
        )
    finally:
        assert nav2.set_parameter("max_path_poses", 200_000).successful
    assert_aborted(outcome, 308, (
        f"leg 2 of 3: the path through the first 2 goals has {first + second + 1} poses, more "
        f"than max_path_poses {most}; it is not sent"))
    assert outcome.result.error_msg.startswith("leg 2 of 3: ")


def test_a_burst_of_goals_and_result_requests_is_answered_every_one(nav2) -> None:
    # With rclpy's default service QoS (the last 10 requests) 25-28 of 40 goal requests and
    # some result requests were never answered.
    from nav2_msgs.action import ComputePathToPose
    from rclpy.action import ActionClient

    from grid_planner.nodes.qos import SERVICE_QOS

    nav2.publish_map(TUTORIAL)
    burst = ActionClient(nav2.client.node, ComputePathToPose, f"{NS}/compute_path_to_pose",
                         goal_service_qos_profile=SERVICE_QOS,
                         result_service_qos_profile=SERVICE_QOS,
                         cancel_service_qos_profile=SERVICE_QOS)
    try:
        assert burst.wait_for_server(timeout_sec=30.0)
        goal = ComputePathToPose.Goal(goal=centre(TUTORIAL, (9, 0)),
                                      start=centre(TUTORIAL, (0, 7)), use_start=True)
        sent = [burst.send_goal_async(goal) for _ in range(40)]
        wait_until(lambda: all(future.done() for future in sent), 60.0,
                   f"goal responses ({sum(f.done() for f in sent)} of 40 so far)")
        handles = [future.result() for future in sent]
        assert all(handle.accepted for handle in handles)
        results = [handle.get_result_async() for handle in handles]
        wait_until(lambda: all(future.done() for future in results), 60.0,
                   f"results ({sum(f.done() for f in results)} of 40 so far)")
        ended = [future.result() for future in results]
        for answer in ended:  # planned, or preempted by a later goal of the burst
            assert (answer.status, answer.result.error_msg) in {
                (GoalStatus.STATUS_SUCCEEDED, ""),
                (GoalStatus.STATUS_ABORTED, "preempted by a newer goal")}
        assert sum(a.status == GoalStatus.STATUS_SUCCEEDED for a in ended) >= 1
    finally:
        burst.destroy()


def a_valid_path(nav2):
    """A plan across the tutorial map from the robot's start, and the is_path_valid request
    of it, once is_path_valid answers it true."""
    nav2.publish_map(TUTORIAL)
    path = nav2.to_pose.call(goal=centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)),
                             use_start=True).result.path
    nav2.set_start(*TUTORIAL.cell_to_world(0, 7))
    request = nav2.is_valid_type.Request(path=path)
    wait_until(lambda: nav2.client.call(nav2.is_valid, request).is_valid,
               what="is_path_valid to answer true")
    return path, request


def test_is_path_valid_with_a_start_then_after_an_obstacle(nav2) -> None:
    path, request = a_valid_path(nav2)
    blocked = np.array(TUTORIAL.data).reshape(TUTORIAL.height, TUTORIAL.width)
    on_path = cells_of(path, TUTORIAL)[8]
    blocked[on_path[1], on_path[0]] = 100
    nav2.publish_map(OccupancyMap(width=TUTORIAL.width, height=TUTORIAL.height,
                                  resolution=TUTORIAL.resolution, data=blocked.ravel()))
    answer = nav2.client.call(nav2.is_valid, request)
    assert not answer.is_valid
    assert list(answer.invalid_pose_indices) == [8]
    empty = nav2.client.call(nav2.is_valid, nav2.is_valid_type.Request(path=PathMsg()))
    assert not empty.is_valid


def test_is_path_valid_checks_from_the_pose_nearest_the_robot(nav2) -> None:
    nav2.publish_map(TUTORIAL)
    path = nav2.to_pose.call(goal=centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)),
                             use_start=True).result.path
    path.poses[0].pose.position.x = 7.5  # an occupied cell the robot has passed already
    path.poses[0].pose.position.y = 7.5
    nav2.set_start(*TUTORIAL.cell_to_world(*cells_of(path, TUTORIAL)[5]))
    request = nav2.is_valid_type.Request(path=path)
    wait_until(lambda: nav2.client.call(nav2.is_valid, request).is_valid,
               what="the check to start at the pose nearest the robot")


def test_is_path_valid_marks_unusable_poses_and_refuses_paths_longer_than_any_sent(
    nav2,
) -> None:
    path, request = a_valid_path(nav2)
    path.poses[3].pose.position.x = float("nan")
    path.poses[4].pose.orientation = Quaternion(x=0.0, y=0.0, z=0.0, w=0.0)
    answer = nav2.client.call(nav2.is_valid, request)
    assert not answer.is_valid and list(answer.invalid_pose_indices) == [3, 4]
    # A path no plan of the node could be: its check held up every later one (1,000,000
    # poses took 30 s of Python, one pose at a time), and nothing was said.
    assert nav2.set_parameter("max_path_poses", len(path.poses) - 1).successful
    try:
        answer = nav2.client.call(nav2.is_valid, request)
        assert not answer.is_valid and list(answer.invalid_pose_indices) == []
        nav2.proc.wait_for_output(f"is_path_valid answers false: the path has {len(path.poses)} "
                                  f"poses, more than max_path_poses {len(path.poses) - 1}")
    finally:
        assert nav2.set_parameter("max_path_poses", 200_000).successful


def test_is_path_valid_answers_false_while_the_map_is_in_another_frame(nav2) -> None:
    # It judged an 'odom' path against the 'map'-frame grid, where a plan is refused.
    path, request = a_valid_path(nav2)
    assert nav2.set_parameter("global_frame", "odom").successful
    try:
        path.header.frame_id = "odom"
        answer = nav2.client.call(nav2.is_valid, request)
        assert not answer.is_valid and list(answer.invalid_pose_indices) == []
        nav2.proc.wait_for_output("is_path_valid answers false: the map in use is in frame "
                                  "'map', not the global frame 'odom'")
    finally:
        assert nav2.set_parameter("global_frame", "map").successful


@pytest.mark.alone  # cancel and preemption must be answered within 1 s
def test_cancel_ends_a_search_on_a_4096_map_within_a_second(nav2) -> None:
    # 8-connected, the corner-to-corner Dijkstra runs for about 2 s: long enough for the
    # cancel at 0.5 s and the preemption at 0.1 s to find it at work (4-connected, 0.3 s).
    assert nav2.set_parameter("connectivity", 8).successful
    try:
        cancel_and_preempt(nav2)
    finally:
        assert nav2.set_parameter("connectivity", 4).successful


def cancel_and_preempt(nav2) -> None:
    """Cancel a long search, then preempt another with a short goal; each within 1 s."""
    big = OccupancyMap(width=BIG, height=BIG, resolution=0.05, data=np.zeros(BIG * BIG))
    nav2.publish_map(big, timeout=120.0)
    handle = nav2.to_pose.send(goal=centre(big, (BIG - 1, BIG - 1)), start=centre(big, (0, 0)),
                               use_start=True)
    assert handle.accepted
    time.sleep(0.5)
    cancelled = time.monotonic()
    response = handle.cancel_goal_async()
    wait_until(response.done, timeout=5.0, what="the cancel answer")
    acknowledged = time.monotonic() - cancelled
    outcome = nav2.to_pose.outcome(handle, timeout=5.0)
    finished = time.monotonic() - cancelled
    print(f"cancel on {BIG}^2: acknowledged {acknowledged * 1000:.0f} ms, "
          f"finished {finished * 1000:.0f} ms")
    assert len(response.result().goals_canceling) == 1
    assert outcome.status == GoalStatus.STATUS_CANCELED
    assert outcome.result.path.poses == [] and outcome.result.error_code == 0
    assert outcome.result.error_msg.startswith("canceled after")
    assert acknowledged < 1.0 and finished < 1.0

    first = nav2.to_pose.send(goal=centre(big, (BIG - 1, BIG - 1)), start=centre(big, (0, 0)),
                              use_start=True)
    time.sleep(0.1)
    preempting = time.monotonic()
    second = nav2.to_pose.send(goal=centre(big, (3, 0)), start=centre(big, (0, 0)),
                               use_start=True)
    preempted = nav2.to_pose.outcome(first, timeout=5.0)
    aborted_after = time.monotonic() - preempting
    answered = nav2.to_pose.outcome(second, timeout=5.0)
    answered_after = time.monotonic() - preempting
    print(f"preemption on {BIG}^2: first aborted after {aborted_after * 1000:.0f} ms, "
          f"second answered after {answered_after * 1000:.0f} ms")
    assert preempted.status == GoalStatus.STATUS_ABORTED
    assert preempted.result.path.poses == [] and preempted.result.error_code == 0
    assert preempted.result.error_msg == "preempted by a newer goal"
    assert answered.status == GoalStatus.STATUS_SUCCEEDED
    assert len(answered.result.path.poses) == 4
    assert aborted_after < 1.0 and answered_after < 1.0


def test_no_map_is_timeout_and_no_start_is_tf_error(tmp_path: Path) -> None:
    require("nav2_msgs.action")
    from nav2_msgs.action import ComputePathThroughPoses, ComputePathToPose
    from nav2_msgs.srv import IsPathValid

    # As Nav2's launch files start it: no initialpose, so no hint to publish one.
    args = ["--ros-args", "-r", "__ns:=/n2fresh", "-p", "costmap_update_timeout:=0.5",
            "-p", "subscribe_initialpose:=false"]
    with running("planner_node", args, tmp_path) as proc, ros_client("nav2_fresh") as client:
        to_pose = ActionCaller(client, ComputePathToPose, "/n2fresh/compute_path_to_pose")
        through = ActionCaller(client, ComputePathThroughPoses,
                               "/n2fresh/compute_path_through_poses")
        waited = time.monotonic()
        outcome = to_pose.call(goal=pose(1.5, 1.5), planner_id="Nope")
        assert time.monotonic() - waited >= 0.5
        assert outcome.result.error_code == 207  # the map is checked before the planner id
        assert outcome.result.error_msg == (
            "no map received on 'map' within costmap_update_timeout 0.5 s"
        )
        assert through.call(goals=[]).result.error_code == 307  # before the empty goals
        harness = PlannerHarness(client, proc, "/n2fresh", initialpose=False)
        harness.publish_map(TUTORIAL)
        outcome = to_pose.call(goal=centre(TUTORIAL, (9, 0)), use_start=False)
        assert (outcome.result.error_code, outcome.result.error_msg) == (
            202, "no start pose yet: publish amcl_pose, or set use_start in the request")
        assert "start from amcl_pose (no TF)" in proc.output()
        assert through.call(goals=[centre(TUTORIAL, (9, 0))]).result.error_code == 302
        # With no known start every pose is checked: a path through an obstacle is invalid.
        path = PathMsg()
        path.header.frame_id = "map"
        path.poses = [centre(TUTORIAL, (6, 7)), centre(TUTORIAL, (7, 7))]
        answer = client.call(client.node.create_client(IsPathValid, "/n2fresh/is_path_valid"),
                             IsPathValid.Request(path=path))
        assert (answer.is_valid, list(answer.invalid_pose_indices)) == (False, [1])


def test_our_codes_map_onto_the_nearest_nav2_code() -> None:
    assert [nav2_code(c, 200) for c in (0, 200, 208)] == [0, 200, 208]
    assert [nav2_code(c, 300) for c in (0, 201, 206)] == [0, 301, 306]
    assert nav2_code(Codes.NO_MAP, 200) == 207 and nav2_code(Codes.NO_MAP, 300) == 307
    assert nav2_code(Codes.NO_START, 300) == 302
    assert nav2_code(Codes.INVALID_POSE, 200) == 200
    assert nav2_code(309, 300) == 309  # NO_VIAPOINTS_GIVEN, the through-poses action's own


def test_join_legs_drops_each_later_legs_first_pose() -> None:
    def leg(*xs: float) -> PathArrays:
        positions = np.array([[x, 0.0, 0.0] for x in xs])
        return PathArrays("map", 1, 2, positions, np.tile([0.0, 0.0, 0.0, 1.0], (len(xs), 1)))

    joined = join_legs([leg(0, 1, 2), leg(2), leg(2, 3)])
    assert joined.positions[:, 0].tolist() == [0, 1, 2, 3]
    assert math.isclose(joined.orientations[-1][3], 1.0)
