"""planner_node over real DDS: plans on real maps, every ComputePath code, GetPlan, replanning."""

from __future__ import annotations

import math
from contextlib import suppress
from pathlib import Path

import numpy as np
import pytest
from geometry_msgs.msg import PoseWithCovarianceStamped
from grid_planner_interfaces.srv import ComputePath
from nav_msgs.srv import GetPlan
from planner_harness import (
    SPLIT,
    TUTORIAL,
    TUTORIAL_ROWS,
    PlannerHarness,
    assert_valid_path,
    centre,
    pose,
    reference_distance,
    slow_plan_arguments,
    slow_plan_map,
    slow_plan_request,
)
from ros_harness import cpu_seconds, ros_client, running, wait_until
from shared_data import PROJECT_ROOT, shared_path

from grid_planner.grid.errors import PlannerError
from grid_planner.grid.map_io import load_map
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.conversions import map_to_msg, quaternion_to_yaw
from grid_planner.nodes.frames import tf2_ros
from grid_planner.nodes.qos import VOLATILE_POSE_QOS

Codes = ComputePath.Response


@pytest.fixture(scope="module")
def planner(tmp_path_factory):
    """One planner_node in namespace /gp driven by a test client."""
    log_dir = tmp_path_factory.mktemp("planner_node")
    args = ["--ros-args", "-r", "__ns:=/gp"]
    with running("planner_node", args, log_dir) as proc, ros_client("planner_test") as client:
        yield PlannerHarness(client, proc, "/gp")


def test_no_map_then_no_start_codes(tmp_path: Path) -> None:
    with running("planner_node", ["--ros-args", "-r", "__ns:=/fresh"], tmp_path) as proc:
        with ros_client("fresh_test") as client:
            harness = PlannerHarness(client, proc, "/fresh")
            answer = harness.request(pose(1.5, 1.5))
            assert (answer.error_code, answer.error_msg) == (
                Codes.NO_MAP, "no map received yet on 'map'",
            )
            assert answer.path.poses == [] and answer.path.header.frame_id == "map"
            # A refused map left the answer at "no map received yet": the reason was only
            # in the node's log.
            odom_map = OccupancyMap.from_rows(np.zeros((3, 3)), frame_id="odom")
            harness.map_pub.publish(map_to_msg(odom_map, client.node.get_clock().now().to_msg()))
            proc.wait_for_output("map refused: its frame 'odom'")
            answer = harness.request(pose(1.5, 1.5))
            assert (answer.error_code, answer.error_msg) == (
                Codes.NO_MAP,
                "no map in use on 'map': the last one was refused: its frame 'odom' is not the "
                "global frame 'map' (set global_frame or publish the map in it)",
            )
            harness.publish_map(TUTORIAL)
            answer = harness.request(pose(1.5, 1.5))
            assert (answer.error_code, answer.error_msg) == (
                Codes.NO_START,
                "no start pose yet: publish initialpose or amcl_pose, or set use_start in the "
                "request",
            )


def test_a_remapped_start_topic_is_named_as_remapped(tmp_path: Path) -> None:
    # slam_toolbox's volatile `pose` as the start: every message said amcl_pose, and nothing
    # said why no start came through the latched subscription.
    args = ["--ros-args", "-r", "__ns:=/slam", "-r", "amcl_pose:=pose", "-p", "use_tf:=false"]
    with running("planner_node", args, tmp_path) as proc, ros_client("slam_pose") as client:
        assert "start from initialpose or /slam/pose (no TF)" in proc.output()
        harness = PlannerHarness(client, proc, "/slam")
        harness.publish_map(TUTORIAL)
        answer = harness.request(pose(1.5, 1.5))
        assert (answer.error_code, answer.error_msg) == (
            Codes.NO_START, "no start pose yet: publish initialpose or /slam/pose, or set "
            "use_start in the request",
        )
        volatile = client.node.create_publisher(PoseWithCovarianceStamped, "/slam/pose",
                                                VOLATILE_POSE_QOS)
        proc.wait_for_output(
            "a publisher on '/slam/pose' offers an incompatible QoS (durability): no start "
            "poses come from it; a volatile publisher (slam_toolbox's pose) needs "
            "start_pose_transient_local false"
        )
        client.node.destroy_publisher(volatile)


def test_rviz_goal_gives_an_optimal_path_on_the_turtlebot3_map(planner) -> None:
    occupancy = load_map(shared_path("maps", "turtlebot3_world.yaml"))
    planner.publish_map(occupancy)
    start, goal = occupancy.world_to_cell(-2.0, -0.5), occupancy.world_to_cell(1.9, 0.5)
    planner.set_start(*occupancy.cell_to_world(*start))
    before = len(planner.plans)
    planner.goal_pub.publish(pose(*occupancy.cell_to_world(*goal), yaw=1.0))
    path = planner.wait_for_plans(before + 1)
    assert_valid_path(path, occupancy, start, goal)
    assert len(path.poses) - 1 == reference_distance(occupancy, start, goal)
    assert math.isclose(quaternion_to_yaw(path.poses[-1].pose.orientation), 1.0, abs_tol=1e-6)
    assert path.header.frame_id == "map" and path.header.stamp.sec > 0
    planner.proc.wait_for_output(f"plan: astar, {len(path.poses)} poses")


def test_compute_path_reports_length_nodes_and_time(planner) -> None:
    planner.publish_map(TUTORIAL)
    answer = planner.request(centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)))
    assert answer.error_code == Codes.NONE, answer.error_msg
    assert_valid_path(answer.path, TUTORIAL, (0, 7), (9, 0))
    assert len(answer.path.poses) == 17 and answer.path_length == 16.0
    assert answer.nodes_expanded > 0
    assert answer.planning_time.sec == 0 and answer.planning_time.nanosec > 0
    for algorithm in ("bfs", "dijkstra"):
        other = planner.request(
            centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)), algorithm=algorithm
        )
        assert (other.error_code, other.path_length) == (Codes.NONE, 16.0)
    dfs = planner.request(
        centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)), algorithm="dfs"
    )
    assert dfs.error_code == Codes.NONE
    assert_valid_path(dfs.path, TUTORIAL, (0, 7), (9, 0))
    assert dfs.path_length >= 16.0


@pytest.mark.parametrize(
    ("start", "goal", "fields", "code", "message"),
    [
        ((0.5, 7.5), (20.0, 0.5), {}, Codes.GOAL_OUTSIDE_MAP, "goal (20.000, 0.500) m lies"),
        ((-3.0, 7.5), (9.5, 0.5), {}, Codes.START_OUTSIDE_MAP, "start (-3.000, 7.500) m lies"),
        ((7.5, 7.5), (9.5, 0.5), {}, Codes.START_OCCUPIED, "start cell (7, 7)"),
        ((0.5, 7.5), (7.5, 7.5), {}, Codes.GOAL_OCCUPIED, "goal cell (7, 7)"),
        ((0.5, 7.5), (9.5, 0.5), {"algorithm": "rrt"}, Codes.INVALID_PLANNER,
         "unknown grid algorithm 'rrt'; choose one of"),
    ],
)
def test_compute_path_error_codes(planner, start, goal, fields, code, message) -> None:
    planner.publish_map(TUTORIAL)
    answer = planner.request(pose(*goal), start=pose(*start), **fields)
    assert answer.error_code == code, answer.error_msg
    assert message in answer.error_msg
    assert answer.path.poses == []


@pytest.mark.parametrize(
    ("bad", "role"),
    [
        (pose(float("nan"), 1.5), "goal"),
        (pose(1.5, float("inf")), "goal"),
        ("zero-quaternion", "goal"),
        ("start-nan", "start"),
    ],
)
def test_non_finite_poses_are_invalid_pose(planner, bad, role) -> None:
    planner.publish_map(TUTORIAL)
    good = centre(TUTORIAL, (0, 7))
    if bad == "zero-quaternion":
        bad = pose(1.5, 1.5)
        bad.pose.orientation.w = 0.0
    if bad == "start-nan":
        answer = planner.request(good, start=pose(float("nan"), 0.0))
    else:
        answer = planner.request(bad, start=good)
    assert answer.error_code == Codes.INVALID_POSE
    assert answer.error_msg.startswith(f"{role} pose is not finite")


@pytest.mark.parametrize("tolerance", [math.nan, math.inf])
def test_a_non_finite_tolerance_is_invalid_pose(planner, tolerance: float) -> None:
    """NaN too: it is not negative, so it must not fall back to goal_tolerance."""
    planner.publish_map(TUTORIAL)
    answer = planner.request(centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)),
                             tolerance=tolerance)
    assert (answer.error_code, answer.error_msg) == (
        Codes.INVALID_POSE, f"tolerance must be finite, got {tolerance}"
    )


def test_pose_in_another_frame_is_tf_error(planner) -> None:
    planner.publish_map(TUTORIAL)
    answer = planner.request(pose(1.5, 1.5, frame="odom"), start=centre(TUTORIAL, (0, 7)))
    assert answer.error_code == Codes.TF_ERROR
    assert "frame 'odom'" in answer.error_msg


def test_unreachable_goal_is_no_valid_path(planner) -> None:
    planner.publish_map(SPLIT)
    answer = planner.request(centre(SPLIT, (4, 0)), start=centre(SPLIT, (0, 0)))
    assert answer.error_code == Codes.NO_VALID_PATH
    assert "not connected to the start" in answer.error_msg


def test_goal_tolerance_moves_a_blocked_goal_to_the_nearest_free_cell(planner) -> None:
    planner.publish_map(SPLIT)
    wall = centre(SPLIT, (2, 1))
    answer = planner.request(wall, start=centre(SPLIT, (0, 1)), tolerance=0.5)
    assert answer.error_code == Codes.NONE, answer.error_msg
    assert SPLIT.world_to_cell(
        answer.path.poses[-1].pose.position.x, answer.path.poses[-1].pose.position.y
    ) == (1, 1)
    tight = planner.request(wall, start=centre(SPLIT, (0, 1)), tolerance=0.0)
    assert tight.error_code == Codes.GOAL_OCCUPIED


def test_timeout_is_reported(planner) -> None:
    open_map = OccupancyMap(width=2000, height=2000, resolution=0.05, data=np.zeros(4_000_000))
    planner.publish_map(open_map, timeout=90.0)  # 4 MB in DDS fragments on a loaded machine
    assert planner.set_parameter("max_planning_time", 0.001).successful
    try:
        answer = planner.request(
            centre(open_map, (1999, 1999)), start=centre(open_map, (0, 0)), algorithm="bfs"
        )
    finally:
        assert planner.set_parameter("max_planning_time", 5.0).successful
    assert answer.error_code == Codes.TIMEOUT, answer.error_msg
    assert "deadline" in answer.error_msg


@pytest.mark.parametrize(("final_approach", "yaw"), [(False, 2.0), (True, -1.0)])
def test_start_equal_to_goal_gives_one_pose_with_the_goal_yaw(
    planner, final_approach: bool, yaw: float
) -> None:
    # With use_final_approach_orientation the one pose keeps the start's yaw, as Nav2's NavFn
    # and Smac 2D give it (it took the goal's, and a controller turned the robot on the spot).
    planner.publish_map(TUTORIAL)
    goal = pose(0.5, 7.5, yaw=2.0)
    assert planner.set_parameter("use_final_approach_orientation", final_approach).successful
    try:
        answer = planner.request(goal, start=pose(0.2, 7.9, yaw=-1.0))
    finally:
        assert planner.set_parameter("use_final_approach_orientation", False).successful
    assert answer.error_code == Codes.NONE
    assert len(answer.path.poses) == 1 and answer.path_length == 0.0
    assert math.isclose(quaternion_to_yaw(answer.path.poses[0].pose.orientation), yaw, abs_tol=1e-6)


def test_final_approach_orientation_faces_along_the_last_step(planner) -> None:
    planner.publish_map(TUTORIAL)
    assert planner.set_parameter("use_final_approach_orientation", True).successful
    try:
        answer = planner.request(pose(9.5, 0.5, yaw=2.0), start=centre(TUTORIAL, (0, 7)))
    finally:
        planner.set_parameter("use_final_approach_orientation", False)
    last, before = answer.path.poses[-1].pose.position, answer.path.poses[-2].pose.position
    heading = math.atan2(last.y - before.y, last.x - before.x)
    assert math.isclose(
        quaternion_to_yaw(answer.path.poses[-1].pose.orientation), heading, abs_tol=1e-6
    )


def test_get_plan_answers_a_failure_with_an_empty_stamped_path(planner) -> None:
    planner.publish_map(TUTORIAL)
    request = GetPlan.Request(goal=pose(7.5, 7.5), start=centre(TUTORIAL, (0, 7)))
    answer = planner.client.call(planner.get_plan, request)
    assert answer.plan.poses == []
    assert answer.plan.header.frame_id == "map" and answer.plan.header.stamp.sec > 0
    planner.proc.wait_for_output("no plan (code 206)")


def test_get_plan_with_empty_start_frame_plans_from_the_current_start(planner) -> None:
    planner.publish_map(TUTORIAL)
    planner.set_start(0.5, 7.5)
    request = GetPlan.Request(goal=pose(9.5, 0.5))
    request.start.header.frame_id = ""

    def planned() -> bool:
        answer = planner.client.call(planner.get_plan, request)
        return len(answer.plan.poses) == 17

    wait_until(planned, what="a 17-pose plan from the current start")


def test_long_plans_reach_standard_and_raw_clients_alike(planner) -> None:
    """Big answers leave the node as prebuilt CDR: every client reads the same valid path."""
    from grid_planner.nodes.cdr import decode_compute_path_answer, decode_path
    from grid_planner.nodes.prebuilt import raw_response_type

    assert "paths sent as prebuilt CDR" in planner.proc.output()
    serpentine = np.zeros((41, 60), dtype=int)
    serpentine[1::4, :-1] = 100  # walls open on the right ...
    serpentine[3::4, 1:] = 100  # ... and on the left
    occupancy = OccupancyMap.from_rows(serpentine, resolution=0.1)
    planner.publish_map(occupancy)
    start, goal = (0, 40), (0, 0)
    request = GetPlan.Request(goal=centre(occupancy, goal), start=centre(occupancy, start))
    standard = planner.client.call(planner.get_plan, request).plan
    assert_valid_path(standard, occupancy, start, goal)
    assert len(standard.poses) - 1 == reference_distance(occupancy, start, goal) > 1000
    node = planner.client.node
    raw_plan = node.create_client(raw_response_type(GetPlan), "/gp/plan_path")
    raw_compute = node.create_client(raw_response_type(ComputePath), "/gp/compute_path")
    try:
        raw = decode_path(planner.client.call(raw_plan, request))
        compute_request = ComputePath.Request(goal=request.goal, start=request.start,
                                              use_start=True)
        answer = decode_compute_path_answer(planner.client.call(raw_compute, compute_request))
    finally:
        node.destroy_client(raw_plan)
        node.destroy_client(raw_compute)
    for path in (raw, answer.path):
        assert path.frame_id == "map" and path.pose_count == len(standard.poses)
        assert np.array_equal(path.positions[:, :2], [
            (p.pose.position.x, p.pose.position.y) for p in standard.poses])
    assert answer.error_code == Codes.NONE
    assert math.isclose(answer.path_length, (raw.pose_count - 1) * 0.1, rel_tol=1e-6)


@pytest.mark.parametrize("policy", ["when_blocked", "never"])
def test_goal_before_map_is_planned_when_the_map_arrives(tmp_path: Path, policy: str) -> None:
    # `never` is about replanning a path after map changes; a pending goal had none yet.
    arguments = ["--ros-args", "-r", "__ns:=/early", "-p", f"replan_on_map_update:={policy}"]
    with running("planner_node", arguments, tmp_path) as proc:
        with ros_client("early_test") as client:
            harness = PlannerHarness(client, proc, "/early")
            wait_until(lambda: harness.goal_pub.get_subscription_count() > 0, what="subscriber")
            harness.set_start(0.5, 7.5)
            harness.goal_pub.publish(pose(9.5, 0.5))
            proc.wait_for_output("goal pending: waiting for a map")
            harness.publish_map(TUTORIAL)
            proc.wait_for_output("plan: astar, 17 poses")  # planned as the map arrived
            # `plan` is volatile and discovery runs each way on its own: the node may publish
            # before its writer has matched this reader. Then the goal is sent again.
            with suppress(AssertionError):
                wait_until(lambda: bool(harness.plans), timeout=5.0)
            if not harness.plans:
                harness.goal_pub.publish(pose(9.5, 0.5))
            path = harness.wait_for_plans(1)
            assert len(path.poses) == 17
            # Said once. Under load the start may arrive after the map (topics are not ordered
            # with each other), and then the goal waits for it too, said in a line of its own.
            assert proc.output().count("goal pending: waiting for a map") == 1


def test_new_map_replans_the_active_goal(planner) -> None:
    planner.publish_map(TUTORIAL)
    planner.set_start(0.5, 7.5)
    before = len(planner.plans)
    planner.goal_pub.publish(pose(9.5, 0.5))
    first = planner.wait_for_plan_between((0.5, 7.5), (9.5, 0.5), before)
    assert len(first.poses) == 17
    opened = OccupancyMap.from_rows(np.zeros((8, 10)), resolution=1.0)
    before = len(planner.plans)
    # Nothing on the path is blocked now: only `always` replans (when_blocked keeps the path).
    assert planner.set_parameter("replan_on_map_update", "always").successful
    try:
        planner.publish_map(opened)
        second = planner.wait_for_plan_between((0.5, 7.5), (9.5, 0.5), before)
    finally:
        assert planner.set_parameter("replan_on_map_update", "when_blocked").successful
    assert len(second.poses) == 17  # still 9 + 7 steps, now through open space
    assert_valid_path(second, opened, (0, 7), (9, 0))
    assert [p.pose.position.x for p in second.poses] != [p.pose.position.x for p in first.poses]


@pytest.mark.parametrize("frame", [
    "map",  # with a NaN x
    # Refused only when nothing can transform it; its path was dropped all the same.
    pytest.param("odom", marks=pytest.mark.skipif(tf2_ros is not None, reason="tf2_ros")),
])
def test_a_refused_goal_keeps_the_previous_goal_and_its_path(planner, frame: str) -> None:
    planner.publish_map(TUTORIAL)
    planner.set_start(0.5, 7.5)
    before = len(planner.plans)
    # A goal no earlier test of this node used: the tutorial map may replan the previous
    # test's goal first, and that plan must not pass for this goal's.
    planner.goal_pub.publish(pose(8.5, 0.5))
    planner.wait_for_plan_between((0.5, 7.5), (8.5, 0.5), before)
    refused = planner.proc.output().count("goal_pose refused")
    planner.goal_pub.publish(pose(float("nan") if frame == "map" else 1.5, 0.5, frame=frame))
    wait_until(lambda: planner.proc.output().count("goal_pose refused") > refused)
    # Counted once the refusal is read: every line the node wrote before it is read too.
    planned = planner.proc.output().count("plan: astar")
    # A map that leaves the path clear: under when_blocked the kept path is not replanned.
    planner.publish_map(OccupancyMap.from_rows(np.zeros((8, 10)), resolution=1.0))
    with suppress(AssertionError):
        wait_until(lambda: planner.proc.output().count("plan: astar") > planned, timeout=2.0)
    assert planner.proc.output().count("plan: astar") == planned


def test_expanded_cells_are_published_when_asked(planner) -> None:
    planner.publish_map(TUTORIAL)
    assert planner.set_parameter("publish_expanded", True).successful
    try:
        before = len(planner.expanded)
        answer = planner.request(centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)))
        wait_until(lambda: len(planner.expanded) > before, what="expanded_cells")
    finally:
        planner.set_parameter("publish_expanded", False)
    grid = planner.expanded[-1]
    assert (grid.info.width, grid.info.height) == (10, 8)
    assert sum(1 for v in grid.data if 1 <= v <= 98) == answer.nodes_expanded


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("algorithm", "rrt", "algorithm='rrt' refused: must be one of astar"),
        ("robot_radius", -0.5, "robot_radius=-0.5 refused"),
        ("occupied_threshold", 0, "occupied_threshold=0 refused: must be in 1..100"),
        ("global_frame", "", "global_frame='' refused: must not be empty"),
        ("global_frame", "/map", "global_frame='/map' refused: must not start with '/' (a map "
                                 "or pose in '/map' is read in 'map')"),
        ("global_frame", "map ", "global_frame='map ' refused: must not contain whitespace "
                                 "(no map, pose or transform would match it)"),
        ("robot_base_frame", "base link", "robot_base_frame='base link' refused: must not "
                                          "contain whitespace"),
    ],
)
def test_bad_parameters_are_refused_with_reasons(planner, name, value, reason) -> None:
    result = planner.set_parameter(name, value)
    assert result.successful is False
    assert reason in result.reason


def test_robot_radius_change_rebuilds_the_grid(planner) -> None:
    planner.publish_map(SPLIT)
    near_wall = centre(SPLIT, (1, 1))
    assert planner.request(near_wall, start=centre(SPLIT, (0, 1))).error_code == Codes.NONE
    assert planner.set_parameter("robot_radius", 0.5).successful
    try:
        answer = planner.request(near_wall, start=centre(SPLIT, (0, 1)))
    finally:
        planner.set_parameter("robot_radius", 0.0)
    assert answer.error_code == Codes.GOAL_OCCUPIED
    assert "inflated" in answer.error_msg


def test_unexpected_fault_is_unknown_and_the_node_keeps_serving(monkeypatch) -> None:
    from grid_planner.nodes import query_planner
    from grid_planner.nodes.planner_node import PlannerNode

    with ros_client("fault_test") as client:
        node = PlannerNode(namespace="/fault")
        client.executor.add_node(node)
        try:
            harness = PlannerHarness(client, None, "/fault")
            harness.map_pub.publish(map_to_msg(TUTORIAL, node.get_clock().now().to_msg()))
            wait_until(lambda: node._maps.current is not None, what="the map in-process")
            real = query_planner.plan_world

            def broken(*args, **kwargs):
                raise RuntimeError("injected fault")

            monkeypatch.setattr(query_planner, "plan_world", broken)
            answer = harness.request(pose(9.5, 0.5), start=pose(0.5, 7.5))
            assert answer.error_code == Codes.UNKNOWN
            assert "injected fault" in answer.error_msg
            monkeypatch.setattr(query_planner, "plan_world", real)
            answer = harness.request(pose(9.5, 0.5), start=pose(0.5, 7.5))
            assert answer.error_code == Codes.NONE and len(answer.path.poses) == 17
        finally:
            client.executor.remove_node(node)
            node.destroy_node()


def test_tutorial_map_file_is_the_tutorial_grid() -> None:
    shipped = load_map(PROJECT_ROOT / "config" / "maps" / "tutorial_grid.yaml")
    assert np.array_equal(shipped.data, TUTORIAL.data)


def test_map_in_another_frame_is_refused_and_the_old_map_stays(planner) -> None:
    planner.publish_map(TUTORIAL)
    odom_map = OccupancyMap.from_rows(np.zeros((3, 3)), frame_id="odom")
    planner.map_pub.publish(map_to_msg(odom_map, planner.client.node.get_clock().now().to_msg()))
    planner.proc.wait_for_output("map refused: its frame 'odom' is not the global frame 'map'")
    answer = planner.request(centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)))
    assert (answer.error_code, len(answer.path.poses)) == (Codes.NONE, 17)


def test_a_map_in_slash_map_is_the_map_frame_as_poses_are(planner) -> None:
    # ROS 1 style publishers and bags stamp `/map`; a pose in `/map` is read as `map` too.
    slashed = map_to_msg(TUTORIAL, planner.client.node.get_clock().now().to_msg())
    slashed.header.frame_id = "/map"
    taken = planner.proc.output().count("map received in frame 'map'")
    planner.map_pub.publish(slashed)
    planner.maps_sent += 1
    wait_until(lambda: planner.proc.output().count("map received in frame 'map'") > taken,
               what="the map in /map to be taken")
    answer = planner.request(centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)))
    assert (answer.error_code, len(answer.path.poses)) == (Codes.NONE, 17)
    assert answer.path.header.frame_id == "map"


def test_rotated_map_origin_is_planned_in_world_coordinates(planner) -> None:
    rotated = OccupancyMap.from_rows(
        np.array(TUTORIAL_ROWS) * 100, resolution=0.5, origin=(2.0, -1.0, math.pi / 2)
    )
    planner.publish_map(rotated)
    answer = planner.request(centre(rotated, (9, 0)), start=centre(rotated, (0, 7)))
    assert answer.error_code == Codes.NONE, answer.error_msg
    assert_valid_path(answer.path, rotated, (0, 7), (9, 0))
    assert answer.path_length == 8.0  # 16 steps of 0.5 m


def test_stopping_the_node_ends_a_service_plan_still_running(tmp_path: Path) -> None:
    args = ["--ros-args", "-r", "__ns:=/stopping", "-p", "max_planning_time:=120.0",
            *slow_plan_arguments()]
    with running("planner_node", args, tmp_path) as proc:
        with ros_client("stopping_test") as client:
            harness = PlannerHarness(client, proc, "/stopping")
            harness.publish_map(slow_plan_map(), timeout=90.0)
            assert harness.compute.wait_for_service(timeout_sec=30)
            before = cpu_seconds(proc.process.pid)
            slow = harness.compute.call_async(slow_plan_request())
            wait_until(lambda: cpu_seconds(proc.process.pid) - before > 0.3 or slow.done(),
                       what="the slow plan to run")
            assert not slow.done()
        code = proc.stop()  # SIGINT; the harness kills the process after 15 s
    assert code == 0, proc.output()
    assert "Traceback" not in proc.output()


def test_every_planner_error_carries_the_code_computepath_defines_under_its_name() -> None:
    # The core cannot import the message, so it writes the codes itself: they must agree.
    pending, errors = [PlannerError], []
    while pending:
        cls = pending.pop()
        errors.append(cls)
        pending.extend(cls.__subclasses__())
    assert len(errors) >= 9
    for cls in errors:
        assert getattr(Codes, cls.code_name) == cls.error_code, cls.__name__
