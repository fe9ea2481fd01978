"""planner_node under bad input and load, over real DDS: each refusal gives its exact code and
message, the node's state (map, start, goal, parameters) does not change, and a good request is
answered afterwards."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from geometry_msgs.msg import PoseWithCovarianceStamped
from grid_planner_interfaces.srv import ComputePath
from nav_msgs.msg import OccupancyGrid
from nav_msgs.srv import GetPlan
from planner_harness import (
    SLOW_PARAMETERS,
    TUTORIAL,
    PlannerHarness,
    centre,
    pose,
    slow_plan_map,
    slow_plan_request,
)
from rcl_interfaces.srv import GetParameters
from ros_harness import cpu_seconds, ros_client, running, wait_until

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.conversions import map_to_msg, quaternion_to_yaw
from grid_planner.nodes.frames import tf2_ros
from grid_planner.nodes.qos import LATCHED_POSE_QOS, SERVICE_QOS

Codes = ComputePath.Response
NS = "/hb"
BUSY_MESSAGE = (
    "busy: 1 running and 2 waiting requests, the limits of max_concurrent_plans, "
    "max_queued_plans; try again later"
)
# A 1000 x 1000 map at 0.05 m with a wall on row 505 from x = 300 to 699: the straight route
# along row 500 passes 5 cells (0.25 m) from it.
WALL_ROW, WALL_FROM, WALL_TO = 505, 300, 699


def walled_map() -> OccupancyMap:
    values = np.zeros((1000, 1000), dtype=np.int8)
    values[WALL_ROW, WALL_FROM:WALL_TO + 1] = 100
    return OccupancyMap(1000, 1000, 0.05, values.reshape(-1))


@pytest.fixture(scope="module")
def planner(tmp_path_factory):
    """One planner_node with one running slot and two queue places, driven by a test client."""
    log_dir = tmp_path_factory.mktemp("hard_to_break")
    args = ["--ros-args", "-r", f"__ns:={NS}", "-p", "max_concurrent_plans:=1",
            "-p", "max_queued_plans:=2"]
    with running("planner_node", args, log_dir) as proc, ros_client("hard_to_break") as client:
        harness = PlannerHarness(client, proc, NS)
        harness.publish_map(TUTORIAL)
        yield harness


def parameter(planner: PlannerHarness, name: str):
    getter = planner.client.node.create_client(GetParameters, f"{NS}/grid_planner/get_parameters")
    value = planner.client.call(getter, GetParameters.Request(names=[name])).values[0]
    return {1: value.bool_value, 2: value.integer_value, 3: value.double_value,
            4: value.string_value}[value.type]


def assert_good_plan_answered(planner: PlannerHarness) -> None:
    """The tutorial map is in use and a plan across it is answered."""
    answer = planner.request(centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)))
    assert answer.error_code == Codes.NONE, answer.error_msg
    assert len(answer.path.poses) == 17


def wait_for_log(planner: PlannerHarness, text: str, count: int = 1) -> None:
    wait_until(lambda: planner.proc.output().count(text) >= count, what=f"the log line {text!r}")


def assert_map_refused(planner: PlannerHarness, msg: OccupancyGrid, reason: str) -> None:
    """Publish `msg` and wait for the planner to refuse it with `reason` (logged at ERROR)."""
    refusals = planner.proc.output().count("map refused")
    planner.map_pub.publish(msg)
    wait_for_log(planner, "map refused", refusals + 1)
    assert f"]: map refused: {reason}\n" in planner.proc.output()


def stamped(occupancy: OccupancyMap, planner: PlannerHarness) -> OccupancyGrid:
    return map_to_msg(occupancy, planner.client.node.get_clock().now().to_msg())


def test_robot_radius_set_while_a_map_is_prepared_is_always_honoured(planner) -> None:
    walled = walled_map()
    start, goal = centre(walled, (250, 500)), centre(walled, (750, 500))
    # Inflated cells lie within 10 cells of the wall (0.5 m over the float32 resolution of the
    # message, plus the grid's slack).
    limit2 = (0.5 / float(np.float32(0.05))) ** 2 + 1e-6
    planner.publish_map(walled)
    try:
        for _trial in range(3):
            assert planner.set_parameter("robot_radius", 0.0).successful
            planner.map_pub.publish(stamped(walled, planner))
            planner.maps_sent += 1
            assert planner.set_parameter("robot_radius", 0.5).successful  # map being prepared
            racing = planner.request(goal, start=start)
            wait_for_log(planner, "map received in frame", planner.maps_sent)
            settled = planner.request(goal, start=start)
            for answer in (racing, settled):
                assert answer.error_code == Codes.NONE, answer.error_msg
                for placed in answer.path.poses:
                    x, y = walled.world_to_cell(placed.pose.position.x, placed.pose.position.y)
                    dx = max(WALL_FROM - x, 0, x - WALL_TO)
                    assert dx * dx + (y - WALL_ROW) ** 2 > limit2, f"cell ({x}, {y}) is inflated"
    finally:
        assert planner.set_parameter("robot_radius", 0.0).successful
    planner.publish_map(TUTORIAL)
    assert_good_plan_answered(planner)


def test_requests_beyond_the_limits_are_answered_busy_at_once(planner) -> None:
    slow_map = slow_plan_map()
    defaults = {name: parameter(planner, name) for name in SLOW_PARAMETERS}
    for name, value in SLOW_PARAMETERS.items():
        assert planner.set_parameter(name, value).successful
    try:
        planner.publish_map(slow_map)
        before = cpu_seconds(planner.proc.process.pid)
        slow = planner.compute.call_async(slow_plan_request())  # holds the one running slot
        wait_until(lambda: cpu_seconds(planner.proc.process.pid) - before > 0.3 or slow.done(),
                   what="the slow plan to run")
        assert not slow.done()
        quick = [
            planner.compute.call_async(ComputePath.Request(
                goal=centre(slow_map, (5, 0)), start=centre(slow_map, (0, 0)), use_start=True,
            ))
            for _ in range(20)
        ]
        wait_until(lambda: all(f.done() for f in [slow, *quick]), timeout=120.0,
                   what="every request answered")
    finally:
        for name, value in defaults.items():
            assert planner.set_parameter(name, value).successful
    answers = [future.result() for future in quick]
    codes = Counter(answer.error_code for answer in answers)
    assert codes == {Codes.BUSY: 18, Codes.NONE: 2}, codes
    assert {a.error_msg for a in answers if a.error_code == Codes.BUSY} == {BUSY_MESSAGE}
    assert all(len(a.path.poses) == 6 for a in answers if a.error_code == Codes.NONE)
    wait_for_log(planner, "refused 1 request(s) since the last report")
    planner.publish_map(TUTORIAL)
    assert_good_plan_answered(planner)


@pytest.mark.parametrize("service", ["compute_path", "plan_path"])
def test_a_burst_of_100_is_answered_in_full(planner, service: str) -> None:
    # The node's 10-deep request queue once dropped 90 of 100 requests silently. The client
    # keeps all its own requests and replies, so any loss here would be the node's.
    node = planner.client.node
    start, goal = centre(TUTORIAL, (0, 7)), centre(TUTORIAL, (9, 0))
    if service == "compute_path":
        client = node.create_client(ComputePath, f"{NS}/compute_path", qos_profile=SERVICE_QOS)
        request = ComputePath.Request(goal=goal, start=start, use_start=True)
    else:
        client = node.create_client(GetPlan, f"{NS}/plan_path", qos_profile=SERVICE_QOS)
        request = GetPlan.Request(goal=goal, start=start)
    planner.client.call(client, request)  # both ways matched: no reply is lost to discovery
    futures = [client.call_async(request) for _ in range(100)]
    wait_until(lambda: all(f.done() for f in futures), timeout=120.0,
               what="all 100 requests answered")
    if service == "compute_path":
        codes = Counter(f.result().error_code for f in futures)
        assert set(codes) <= {Codes.NONE, Codes.BUSY} and codes[Codes.NONE] >= 1, codes
    else:
        lengths = Counter(len(f.result().plan.poses) for f in futures)
        assert set(lengths) <= {0, 17} and lengths[17] >= 1, lengths  # 0: busy, empty path
    assert_good_plan_answered(planner)


def test_a_goal_with_a_non_normalised_quaternion_keeps_its_yaw(planner) -> None:
    goal = centre(TUTORIAL, (9, 0))
    goal.pose.orientation.z = 3.0 * math.sin(0.5)  # yaw 1.0 at three times the unit length
    goal.pose.orientation.w = 3.0 * math.cos(0.5)
    answer = planner.request(goal, start=centre(TUTORIAL, (0, 7)))
    assert answer.error_code == Codes.NONE, answer.error_msg
    last = answer.path.poses[-1].pose.orientation
    assert math.isclose(quaternion_to_yaw(last), 1.0, abs_tol=1e-6)
    assert math.isclose(math.hypot(last.z, last.w), 1.0, abs_tol=1e-9)


def test_a_map_origin_with_a_non_normalised_quaternion_is_rotated_right(planner) -> None:
    rotated = OccupancyMap(TUTORIAL.width, TUTORIAL.height, 1.0, TUTORIAL.data,
                           origin_x=2.0, origin_y=-1.0, origin_yaw=math.pi / 2)
    msg = stamped(rotated, planner)
    msg.info.origin.orientation.z *= 0.5
    msg.info.origin.orientation.w *= 0.5
    planner.map_pub.publish(msg)
    planner.maps_sent += 1
    wait_for_log(planner, "map received in frame", planner.maps_sent)
    answer = planner.request(centre(rotated, (9, 0)), start=centre(rotated, (0, 7)))
    assert answer.error_code == Codes.NONE, answer.error_msg
    cells = [rotated.world_to_cell(p.pose.position.x, p.pose.position.y)
             for p in answer.path.poses]
    assert cells[0] == (0, 7) and cells[-1] == (9, 0) and len(cells) == 17
    planner.publish_map(TUTORIAL)
    assert_good_plan_answered(planner)


def test_a_map_origin_with_a_zero_quaternion_is_refused_and_the_map_stays(planner) -> None:
    msg = stamped(walled_map(), planner)
    msg.info.origin.orientation.w = 0.0
    assert_map_refused(planner, msg, "map origin orientation (0.0, 0.0, 0.0, 0.0) is not a "
                       "rotation (a zero-length or non-finite quaternion)")
    assert_good_plan_answered(planner)


# Bad start and goal poses: (x, frame, the reason the node gives).
NOT_FINITE = (float("nan"), "map", "pose is not finite or has a zero-length quaternion: position "
              "(nan, 1.0, 0.0), orientation (0.0, 0.0, 0.0, 1.0)")
NO_TF = (1.5, "odom", "pose is in frame 'odom', not the global frame 'map', and this install "
         "has no tf2_ros to transform it")
BAD_POSES = [NOT_FINITE, pytest.param(*NO_TF, marks=pytest.mark.skipif(
    tf2_ros is not None, reason="with tf2_ros a pose in another frame is transformed"))]


@pytest.mark.parametrize(("x", "frame", "reason"), BAD_POSES)
@pytest.mark.parametrize("topic", ["initialpose", "amcl_pose"])
def test_a_bad_start_pose_is_refused_and_the_start_stays(
    planner, topic: str, x: float, frame: str, reason: str
) -> None:
    publisher = planner.client.node.create_publisher(
        PoseWithCovarianceStamped, f"{NS}/{topic}", LATCHED_POSE_QOS
    )
    wait_until(lambda: publisher.get_subscription_count() > 0, what=f"{topic} to match")
    planner.set_start(0.5, 7.5)
    goal = centre(TUTORIAL, (9, 0))
    wait_until(lambda: planner.request(goal).error_code == Codes.NONE, what="the good start")
    bad = PoseWithCovarianceStamped()
    bad.header.frame_id = frame
    bad.pose.pose = pose(x, 1.0).pose
    refusals = planner.proc.output().count(f"{topic} refused")
    publisher.publish(bad)
    wait_for_log(planner, f"{topic} refused", refusals + 1)
    assert f"{topic} refused: {reason}; the previous start stays" in planner.proc.output()
    answer = planner.request(goal)
    assert answer.error_code == Codes.NONE, answer.error_msg
    first = answer.path.poses[0].pose.position
    assert (first.x, first.y) == (0.5, 7.5)


@pytest.mark.parametrize(("x", "frame", "reason"), BAD_POSES)
def test_a_bad_goal_pose_is_refused_and_the_goal_stays(
    planner, x: float, frame: str, reason: str
) -> None:
    planner.set_start(0.5, 7.5)
    before = len(planner.plans)
    planner.goal_pub.publish(centre(TUTORIAL, (9, 0)))
    planner.wait_for_plan_between((0.5, 7.5), (9.5, 0.5), before)
    refusals = planner.proc.output().count("goal_pose refused")
    planner.goal_pub.publish(pose(x, 1.0, frame=frame))
    wait_for_log(planner, "goal_pose refused", refusals + 1)
    assert f"goal_pose refused: {reason}; the previous goal stays" in planner.proc.output()
    after = len(planner.plans)
    assert planner.set_parameter("replan_on_map_update", "always").successful
    try:
        planner.publish_map(TUTORIAL)  # a new map replans the goal still active: the good one
        planner.wait_for_plan_between((0.5, 7.5), (9.5, 0.5), after)
    finally:
        assert planner.set_parameter("replan_on_map_update", "when_blocked").successful


def test_changing_global_frame_never_relabels_the_old_map(planner) -> None:
    start, goal = pose(0.5, 7.5, frame=""), pose(9.5, 0.5, frame="")
    assert planner.set_parameter("global_frame", "odom").successful
    try:
        answer = planner.request(goal, start=start)
        assert answer.error_code == Codes.NO_MAP
        assert answer.error_msg == (
            "the map in use is in frame 'map', not the global frame 'odom': waiting for a map "
            "in 'odom'"
        )
        in_odom = stamped(TUTORIAL, planner)
        in_odom.header.frame_id = "odom"
        planner.map_pub.publish(in_odom)
        planner.maps_sent += 1
        wait_for_log(planner, "map received in frame 'odom'")
        answer = planner.request(goal, start=start)
        assert answer.error_code == Codes.NONE, answer.error_msg
        assert answer.path.header.frame_id == "odom"
    finally:
        assert planner.set_parameter("global_frame", "map").successful
    assert planner.request(goal, start=start).error_code == Codes.NO_MAP
    planner.publish_map(TUTORIAL)
    assert_good_plan_answered(planner)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (1e300, "robot_radius=1e+300 refused: must be a finite number in [0.0, 100.0]"),
        (float("nan"), "robot_radius=nan refused: must be a finite number in [0.0, 100.0]"),
        (10.0, "robot_radius=10.0 refused: robot_radius 10.0 m is 200 cells at 0.05 m/cell, "
               "more than max_inflation_cells 100"),
    ],
)
def test_an_unworkable_robot_radius_is_refused_and_the_old_one_stays(
    planner, value: float, reason: str
) -> None:
    planner.publish_map(OccupancyMap(40, 30, 0.05, np.zeros(1200)))
    result = planner.set_parameter("robot_radius", value)
    assert (result.successful, result.reason) == (False, reason)
    assert parameter(planner, "robot_radius") == 0.0
    planner.publish_map(TUTORIAL)
    assert_good_plan_answered(planner)


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("smoother.refinement_num", 2**63 - 1, "smoother.refinement_num=9223372036854775807 "
         "refused: must be a finite number in [0, 200]"),
        ("smoother.max_iterations", 100_001, "smoother.max_iterations=100001 refused: must be "
         "a finite number in [0, 100000]"),
    ],
)
def test_smoother_counts_that_would_never_end_are_refused(planner, name, value, reason) -> None:
    # Accepted before, with max_planning_time 1e308 they kept a service plan (no cancel) and
    # its slot busy for good.
    result = planner.set_parameter(name, value)
    assert (result.successful, result.reason) == (False, reason)
    assert parameter(planner, name) == {"smoother.refinement_num": 2,
                                        "smoother.max_iterations": 1000}[name]


def test_every_change_that_would_inflate_the_map_too_far_is_refused(planner) -> None:
    # A radius counts where the cost model measures it: inflation_radius under `inflation`.
    planner.publish_map(OccupancyMap(40, 30, 0.05, np.zeros(1200)))
    try:
        assert planner.set_parameter("inflation_radius", 10.0).successful  # uniform: unused
        result = planner.set_parameter("cost_model", "inflation")
        assert (result.successful, result.reason) == (
            False, "cost_model='inflation' refused: inflation_radius 10.0 m is 200 cells at "
                   "0.05 m/cell, more than max_inflation_cells 100")
        assert planner.set_parameter("robot_radius", 2.0).successful  # 40 cells
        result = planner.set_parameter("max_inflation_cells", 39)
        assert (result.successful, result.reason) == (
            False, "max_inflation_cells=39 refused: robot_radius 2.0 m is 40 cells at "
                   "0.05 m/cell, more than max_inflation_cells 39")
        assert parameter(planner, "cost_model") == "uniform"
        assert parameter(planner, "max_inflation_cells") == 100
    finally:
        assert planner.set_parameter("robot_radius", 0.0).successful
        assert planner.set_parameter("inflation_radius", 0.55).successful
    planner.publish_map(TUTORIAL)
    assert_good_plan_answered(planner)


def test_a_map_too_fine_for_the_robot_radius_is_refused_and_the_map_stays(planner) -> None:
    assert planner.set_parameter("robot_radius", 60.0).successful  # 60 cells on the 1 m map
    try:
        assert_map_refused(planner, stamped(OccupancyMap(40, 30, 0.05, np.zeros(1200)), planner),
                           "robot_radius 60.0 m is 1200 cells at 0.05 m/cell, more than "
                           "max_inflation_cells 100")
    finally:
        assert planner.set_parameter("robot_radius", 0.0).successful
    assert_good_plan_answered(planner)  # the tutorial map is still the one in use


def test_a_map_beyond_max_map_cells_is_refused_and_the_map_stays(planner) -> None:
    assert planner.set_parameter("max_map_cells", 1000).successful
    try:
        assert_map_refused(planner, stamped(OccupancyMap(40, 30, 1.0, np.zeros(1200)), planner),
                           "40 x 30 = 1200 cells, more than max_map_cells 1000")
    finally:
        assert planner.set_parameter("max_map_cells", 4096 * 4096).successful
    assert_good_plan_answered(planner)


@pytest.mark.parametrize(
    ("name", "value", "code", "message"),
    [
        ("max_path_poses", 5, Codes.NO_VALID_PATH,
         "astar found a path of 17 poses, more than max_path_poses 5; it is not sent"),
        ("max_nodes", 3, Codes.NO_VALID_PATH,
         "astar exhausted its budget of 3 expanded nodes from start cell (0, 7)"),
    ],
)
def test_plan_limits_fail_with_the_limit_named(planner, name, value, code, message) -> None:
    default = parameter(planner, name)
    assert planner.set_parameter(name, value).successful
    try:
        answer = planner.request(centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)))
    finally:
        assert planner.set_parameter(name, default).successful
    assert answer.error_code == code
    assert answer.error_msg.startswith(message), answer.error_msg
    assert answer.path.poses == []
    assert answer.nodes_expanded > 0  # the search ran; max_path_poses once reported 0
    assert_good_plan_answered(planner)


def refused_start_up(tmp_path, executable: str, setting: str, flag: str = "-p") -> list[str]:
    """The output lines of `executable` started with `flag setting`, which must exit with 1."""
    from ros_harness import NodeProcess

    proc = NodeProcess(executable, ["--ros-args", flag, setting], tmp_path)
    proc.process.wait(60)
    assert proc.stop() == 1
    return proc.output().strip().splitlines()


@pytest.mark.parametrize(
    ("executable", "setting", "message"),
    [
        ("planner_node", "robot_radius:=abc",
         "Trying to set parameter 'robot_radius' to 'abc' of type 'STRING', expecting type "
         "'DOUBLE'"),
        ("planner_node", "max_queued_plans:=1.5",
         "Trying to set parameter 'max_queued_plans' to '1.5' of type 'DOUBLE', expecting "
         "type 'INTEGER'"),
        ("puzzle_node", "prepare_tables:=5",
         "Trying to set parameter 'prepare_tables' to '5' of type 'INTEGER', expecting type "
         "'STRING_ARRAY'"),
        ("map_publisher", "yaml_filename:=5",
         "Trying to set parameter 'yaml_filename' to '5' of type 'INTEGER', expecting type "
         "'STRING'"),
    ],
)
def test_a_parameter_of_the_wrong_type_stops_start_up_with_one_line(
    tmp_path, executable: str, setting: str, message: str
) -> None:
    name = setting.split(":=")[0]
    assert refused_start_up(tmp_path, executable, setting) == [f"{executable}: {message}: {name}"]


@pytest.mark.parametrize(
    ("executable", "setting", "default"),
    [("puzzle_node", "prepare_tables:=[]", "['table', 'pdb']"),
     ("planner_node", "global_frame:= ", "'map'"),
     ("map_publisher", "frame_id:=[]", "'map'")],
)
def test_a_null_parameter_value_stops_start_up_with_the_reason(
    tmp_path, executable: str, setting: str, default: str
) -> None:
    # It was rclpy's "The parameter 'prepare_tables' is not initialized: prepare_tables".
    name = setting.split(":=")[0]
    assert refused_start_up(tmp_path, executable, setting) == [
        f"{executable}: parameter {name} was given no value: YAML reads an empty list or a "
        f"blank value as null, which has no type (the default is {default})"
    ]


@pytest.mark.parametrize("executable", ["planner_node", "puzzle_node", "map_publisher"])
def test_a_namespace_rcl_refuses_stops_start_up_with_its_own_fault(tmp_path, executable) -> None:
    # It was a traceback ending in rcl's "invalid node namespace: node name must not start with
    # a number" for a trailing '/' (which rcl's argument parser lets through).
    assert refused_start_up(tmp_path, executable, "__ns:=/robot9/", "-r") == [
        f"{executable}: remap rule '__ns:=/robot9/': namespace must not end with a '/', unless "
        "only a '/'"
    ]


def test_a_refused_planner_block_value_at_start_up_says_only_to_correct_it(tmp_path) -> None:
    # The node exits, yet the line said to `ros2 param set` it and configure again, and blamed a
    # parameters file for a -p value.
    reason = ("parameter GridBased.tolerance=-1.0 must be a finite number >= 0.0 (given at "
              "start-up); correct it and start again")
    logged, said = refused_start_up(tmp_path, "planner_node", "GridBased.tolerance:=-1.0")
    assert logged.endswith(f"[grid_planner]: configure failed: {reason}")
    assert said == f"planner_node: grid_planner failed to configure: {reason}"
