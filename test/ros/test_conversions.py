"""Message conversions: maps both ways, paths with headings, durations, pose checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point, Pose, PoseStamped, Quaternion
from rclpy.serialization import deserialize_message, serialize_message
from std_msgs.msg import Header

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.conversions import (
    int8_sequence,
    map_to_msg,
    msg_to_map,
    path_message,
    planned_path,
    pose_fault,
    quaternion_norm,
    quaternion_to_yaw,
    seconds_to_duration,
    yaw_to_quaternion,
)


def test_map_round_trips_through_an_occupancy_grid() -> None:
    occupancy = OccupancyMap.from_rows(
        [[0, 100, -1], [50, 0, 0]], resolution=0.25, origin=(-1.0, 2.0, 0.3), frame_id="world"
    )
    msg = map_to_msg(occupancy, Time(sec=5))
    assert (msg.info.width, msg.info.height, msg.header.frame_id) == (3, 2, "world")
    back = msg_to_map(deserialize_message(serialize_message(msg), type(msg)))
    assert np.array_equal(back.data, occupancy.data)
    assert math.isclose(back.origin_yaw, 0.3, abs_tol=1e-7)
    assert (back.origin_x, back.origin_y, back.resolution) == (-1.0, 2.0, 0.25)


def test_path_poses_face_the_next_pose_and_end_with_the_goal_yaw() -> None:
    points = np.array([[0.5, 0.5], [1.5, 0.5], [1.5, 1.5]])
    path = path_message(planned_path(points, "map", Time(sec=3), final_yaw=-1.0))
    yaws = [quaternion_to_yaw(p.pose.orientation) for p in path.poses]
    assert np.allclose(yaws, [0.0, math.pi / 2, -1.0])
    approach = path_message(planned_path(points, "map", Time(sec=3), final_yaw=None))
    assert math.isclose(quaternion_to_yaw(approach.poses[-1].pose.orientation), math.pi / 2)
    assert all(p.header.frame_id == "map" and p.header.stamp.sec == 3 for p in path.poses)


def test_fast_path_poses_equal_constructor_built_ones() -> None:
    points = np.array([[0.5, 0.5], [1.5, 0.5]])
    path = path_message(planned_path(points, "map", Time(sec=7, nanosec=9), final_yaw=0.25))
    header = Header(frame_id="map", stamp=Time(sec=7, nanosec=9))
    expected = [
        PoseStamped(header=header, pose=Pose(
            position=Point(x=0.5, y=0.5), orientation=yaw_to_quaternion(0.0))),
        PoseStamped(header=header, pose=Pose(
            position=Point(x=1.5, y=0.5), orientation=yaw_to_quaternion(0.25))),
    ]
    assert path.poses == expected
    decoded = deserialize_message(serialize_message(path), type(path))
    assert decoded.poses == expected


def test_empty_path_keeps_its_header() -> None:
    path = path_message(planned_path(np.zeros((0, 2)), "map", Time(sec=1), final_yaw=0.0))
    assert path.poses == [] and path.header.frame_id == "map" and path.header.stamp.sec == 1


def test_pose_checks_reject_nan_inf_and_zero_quaternions() -> None:
    good = Pose(orientation=Quaternion(w=1.0))
    assert pose_fault(good) is None
    assert pose_fault(Pose(position=Point(x=float("nan")), orientation=Quaternion(w=1.0)))
    assert pose_fault(Pose(position=Point(y=float("inf")), orientation=Quaternion(w=1.0)))
    assert pose_fault(Pose(orientation=Quaternion(w=0.0))) == (
        "pose is not finite or has a zero-length quaternion: position (0.0, 0.0, 0.0), "
        "orientation (0.0, 0.0, 0.0, 0.0)"
    )


def test_huge_quaternions_keep_their_yaw_and_length() -> None:
    # Squares of 1e200 overflow: the components are scaled first.
    huge = Quaternion(z=1e200, w=1e200)
    assert quaternion_to_yaw(huge) == pytest.approx(math.pi / 2)
    assert pose_fault(Pose(orientation=huge)) is None
    assert quaternion_to_yaw(Quaternion(z=-1e-5, w=1e-5)) == pytest.approx(-math.pi / 2)
    assert math.isnan(quaternion_norm(Quaternion(z=math.inf, w=math.nan)))  # hypot says inf


def test_seconds_become_a_duration() -> None:
    duration = seconds_to_duration(1.25)
    assert (duration.sec, duration.nanosec) == (1, 250_000_000)
    assert seconds_to_duration(-1.0).sec == 0


def test_int8_sequence_keeps_every_value() -> None:
    values = np.array([-1, 0, 100, 65, -128, 127], dtype=np.int8)
    msg = map_to_msg(OccupancyMap.from_rows([values.tolist()]), Time())
    assert list(msg.data) == values.tolist()
    assert list(int8_sequence(values.reshape(2, 3))) == values.tolist()
