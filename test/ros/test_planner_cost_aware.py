"""planner_node over real DDS with costs: a Nav2 costmap keeps the path central, multiplier 0
gives the shortest path, nav2_msgs/Costmap is followed by topic type, a params file turns on
8-connectivity and smoothing, bad values are refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from geometry_msgs.msg import PoseStamped
from grid_planner_interfaces.srv import ComputePath
from nav2_clients import costmap_message
from planner_harness import PlannerHarness, centre
from ros_harness import ros_client, running, wait_until

from grid_planner.grid.costs import costmap_raw
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.conversions import quaternion_to_yaw
from grid_planner.nodes.qos import MAP_QOS

Codes = ComputePath.Response
RESOLUTION = 0.05
LENGTH, WIDTH = 60, 21
CENTRE_Y = 10
START, GOAL = (2, 4), (57, 16)


def corridor_costmap() -> OccupancyMap:
    """A corridor along x as Nav2's global costmap publishes it: walls (100) at y = 0 and 20,
    inscribed (99) beside them, costs falling towards the centre line y = 10."""
    values = np.zeros((WIDTH, LENGTH), dtype=np.int8)
    for y in range(WIDTH):
        wall = min(y, WIDTH - 1 - y)
        values[y] = 100 if wall == 0 else 99 if wall == 1 else int(98 * math.exp(-0.6 * (wall - 2)))
    return OccupancyMap.from_rows(values, resolution=RESOLUTION, top_row_first=False)


def path_cells(path, occupancy: OccupancyMap) -> list[tuple[int, int]]:
    return [occupancy.world_to_cell(p.pose.position.x, p.pose.position.y) for p in path.poses]


@pytest.fixture(scope="module")
def planner(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("planner_cost_aware")
    with running("planner_node", ["--ros-args", "-r", "__ns:=/ca"], log_dir) as proc, \
            ros_client("cost_aware_test") as client:
        yield PlannerHarness(client, proc, "/ca")


def test_a_costmap_keeps_the_path_on_the_corridor_centre_line(planner) -> None:
    occupancy = corridor_costmap()
    planner.publish_map(occupancy)
    assert planner.set_parameter("cost_model", "costmap").successful
    answer = planner.request(centre(occupancy, GOAL), start=centre(occupancy, START))
    assert answer.error_code == Codes.NONE, answer.error_msg
    cells = path_cells(answer.path, occupancy)
    assert cells[0] == START and cells[-1] == GOAL
    middle = [y for x, y in cells if 15 <= x <= 45]
    assert middle and all(abs(y - CENTRE_Y) <= 1 for y in middle), middle
    # Along the costly side: with costs the path swerves towards the middle and back, with
    # the multiplier at 0 every step costs its length and the path is the straight line.
    side_goal = (GOAL[0], START[1])
    swerving = planner.request(centre(occupancy, side_goal), start=centre(occupancy, START))
    assert planner.set_parameter("cost_travel_multiplier", 0.0).successful
    try:
        shortest = planner.request(centre(occupancy, side_goal), start=centre(occupancy, START))
    finally:
        assert planner.set_parameter("cost_travel_multiplier", 1.0).successful
    assert (swerving.error_code, shortest.error_code) == (Codes.NONE, Codes.NONE)
    straight = side_goal[0] - START[0]
    assert math.isclose(shortest.path_length, straight * RESOLUTION, rel_tol=1e-6)
    assert {y for _x, y in path_cells(shortest.path, occupancy)} == {START[1]}
    assert swerving.path_length > shortest.path_length + 2 * RESOLUTION


def test_a_nav2_costmap_raw_topic_is_followed_by_its_type(tmp_path) -> None:
    costmap_msgs = pytest.importorskip("nav2_msgs.msg")
    occupancy = corridor_costmap()
    args = ["--ros-args", "-r", "__ns:=/raw", "-p", "cost_model:=costmap"]
    with running("planner_node", args, tmp_path) as proc, ros_client("costmap_raw_test") as client:
        # A process holds one DDS participant, which may not publish two types on one topic:
        # this client publishes only the Costmap (no PlannerHarness and its OccupancyGrid).
        node = client.node
        publisher = node.create_publisher(costmap_msgs.Costmap, "/raw/map", MAP_QOS)
        compute = node.create_client(ComputePath, "/raw/compute_path")
        proc.wait_for_output("carries nav2_msgs/msg/Costmap: following it")
        wait_until(lambda: publisher.get_subscription_count() > 0,
                   what="the planner to subscribe to the Costmap topic")
        raw = costmap_raw(occupancy.data).reshape(occupancy.height, occupancy.width)
        publisher.publish(costmap_message(raw, RESOLUTION, node.get_clock().now().to_msg()))
        proc.wait_for_output("map received in frame 'map'")
        request = ComputePath.Request(goal=centre(occupancy, GOAL), start=centre(occupancy, START),
                                      use_start=True)
        answer = client.call(compute, request)
    assert answer.error_code == Codes.NONE, answer.error_msg
    middle = [y for x, y in path_cells(answer.path, occupancy) if 15 <= x <= 45]
    assert middle and all(abs(y - CENTRE_Y) <= 1 for y in middle), middle


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [("connectivity", 6, "must be 4 or 8"), ("cost_model", "smac", "must be one of"),
     ("smoothing", "spline", "must be one of none, shortcut, gradient"),
     ("cost_travel_multiplier", -1.0, "must be a finite number in [0.0, 1000.0]"),
     # 1e7 made one plan allocate 2.3 GB (the bucket ring grows with the dearest step).
     ("cost_travel_multiplier", 1e7, "must be a finite number in [0.0, 1000.0]"),
     # 1e10 passed the rule, then rclpy could not make its timer: set_parameters never
     # answered, the value stayed set and replanning was off; 1e-9 kept a core busy.
     ("replan_period", 1e10, "must be 0 (off) or a finite number in [0.05, 86400]"),
     ("replan_period", 1e-9, "must be 0 (off) or a finite number in [0.05, 86400]"),
     ("smoother.w_smooth", -0.3, "must be a finite number >= 0"),
     ("smoother.refinement_num", -1, "must be a finite number in [0, 200]"),
     ("inflation_radius", -0.1, "must be a finite number in")],
)
def test_bad_cost_aware_values_are_refused_with_the_reason(planner, name, value, reason) -> None:
    result = planner.set_parameter(name, value)
    assert not result.successful
    assert name in result.reason and reason in result.reason


def test_a_params_file_turns_on_eight_connectivity_and_smoothing(tmp_path) -> None:
    params = tmp_path / "planner.yaml"
    params.write_text(
        "/**:\n  ros__parameters:\n    connectivity: 8\n    smoothing: shortcut\n"
        "    cost_model: inflation\n    robot_radius: 0.1\n"
    )
    occupancy = OccupancyMap.from_rows(np.zeros((30, 40), dtype=np.int8), resolution=RESOLUTION)
    args = ["--ros-args", "-r", "__ns:=/pf", "--params-file", str(params)]
    with running("planner_node", args, tmp_path) as proc, ros_client("params_file_test") as client:
        harness = PlannerHarness(client, proc, "/pf")
        harness.publish_map(occupancy)
        proc.wait_for_output("cost model inflation")
        before = len(harness.plans)
        harness.set_start(*occupancy.cell_to_world(3, 3))
        goal = PoseStamped()
        goal.header.frame_id = "map"
        goal.pose = centre(occupancy, (36, 20)).pose
        harness.goal_pub.publish(goal)
        path = harness.wait_for_plans(before + 1)
    headings = [quaternion_to_yaw(p.pose.orientation) for p in path.poses[:-1]]
    off_axis = [h for h in headings if abs(math.remainder(h, math.pi / 2)) > 1e-3]
    assert off_axis, headings
    steps = np.diff([(p.pose.position.x, p.pose.position.y) for p in path.poses], axis=0)
    assert (np.hypot(*steps.T) <= RESOLUTION * (1 + 1e-6)).all()  # about a cell apart
