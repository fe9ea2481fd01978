"""Conversions between ROS messages and the core's plain values (maps, poses, paths)."""

from __future__ import annotations

import math

import numpy as np
from builtin_interfaces.msg import Duration, Time
from geometry_msgs.msg import Point, Pose, PoseStamped, Quaternion
from nav_msgs.msg import OccupancyGrid, Path
from std_msgs.msg import Header

from grid_planner.grid.occupancy import OccupancyMap


def yaw_to_quaternion(yaw: float) -> Quaternion:
    """The quaternion of a rotation by `yaw` radians about z."""
    return Quaternion(x=0.0, y=0.0, z=math.sin(yaw / 2.0), w=math.cos(yaw / 2.0))


def quaternion_to_yaw(q: Quaternion) -> float:
    """The rotation about z of `q` (normalised first); the roll and pitch are ignored."""
    return math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))


def quaternion_norm(q: Quaternion) -> float:
    """The length of `q`; 0 (or NaN) means the pose has no orientation at all."""
    return math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w)


def pose_is_finite(pose: Pose) -> bool:
    """Whether the position and orientation are finite and the quaternion has a length."""
    p, q = pose.position, pose.orientation
    values = (p.x, p.y, p.z, q.x, q.y, q.z, q.w)
    return all(math.isfinite(v) for v in values) and quaternion_norm(q) > 1e-9


def map_to_msg(occupancy: OccupancyMap, stamp: Time) -> OccupancyGrid:
    """An OccupancyGrid message of `occupancy`, stamped `stamp`."""
    msg = OccupancyGrid()
    msg.header.frame_id = occupancy.frame_id
    msg.header.stamp = stamp
    msg.info.map_load_time = stamp
    msg.info.resolution = float(occupancy.resolution)
    msg.info.width = occupancy.width
    msg.info.height = occupancy.height
    msg.info.origin.position.x = occupancy.origin_x
    msg.info.origin.position.y = occupancy.origin_y
    msg.info.origin.orientation = yaw_to_quaternion(occupancy.origin_yaw)
    msg.data = np.asarray(occupancy.data, dtype=np.int8)
    return msg


def msg_to_map(msg: OccupancyGrid) -> OccupancyMap:
    """The core map of an OccupancyGrid message (raises UnsupportedMapError when malformed)."""
    info = msg.info
    return OccupancyMap(
        width=info.width,
        height=info.height,
        resolution=info.resolution,
        data=np.asarray(msg.data, dtype=np.int8),
        origin_x=info.origin.position.x,
        origin_y=info.origin.position.y,
        origin_yaw=quaternion_to_yaw(info.origin.orientation),
        frame_id=msg.header.frame_id,
    )


def path_to_msg(
    points: np.ndarray, frame_id: str, stamp: Time, final_yaw: float | None
) -> Path:
    """A Path through the world `points` ((n, 2) array), each pose facing the next one.

    The last pose takes `final_yaw`, or keeps the last segment's heading when it is None; a
    one-point path has `final_yaw` (or 0). All poses share one Header object (same frame and
    stamp), which rclpy serialises per pose like any other.
    """
    header = Header(frame_id=frame_id, stamp=stamp)
    path = Path(header=header)
    count = len(points)
    if count == 0:
        return path
    headings = np.zeros(count)
    if count > 1:
        deltas = np.diff(points, axis=0)
        headings[:-1] = np.arctan2(deltas[:, 1], deltas[:, 0])
        headings[-1] = headings[-2]
    if final_yaw is not None:
        headings[-1] = final_yaw
    half = headings / 2.0
    path.poses = _stamped_poses(
        header, points[:, 0].tolist(), points[:, 1].tolist(),
        np.sin(half).tolist(), np.cos(half).tolist(),
    )
    return path


def _stamped_poses(
    header: Header, xs: list[float], ys: list[float], qzs: list[float], qws: list[float]
) -> list[PoseStamped]:
    """PoseStamped messages for planar poses, built without the generated constructors.

    The generated `__init__` of every nested message (Pose, Point, Quaternion) costs ~25 us a
    pose, 100 ms for a 4,000-pose path; filling the messages' slots directly costs a tenth of
    that. The slot names are those rosidl_generator_py has generated since ROS 2 Dashing, and
    test_conversions checks the result equals the constructor-built messages.
    """
    new = object.__new__
    poses = []
    for x, y, qz, qw in zip(xs, ys, qzs, qws, strict=True):
        position = new(Point)
        position._check_fields, position._x, position._y, position._z = False, x, y, 0.0
        orientation = new(Quaternion)
        orientation._check_fields = False
        orientation._x, orientation._y, orientation._z, orientation._w = 0.0, 0.0, qz, qw
        pose = new(Pose)
        pose._check_fields, pose._position, pose._orientation = False, position, orientation
        stamped = new(PoseStamped)
        stamped._check_fields, stamped._header, stamped._pose = False, header, pose
        poses.append(stamped)
    return poses


def seconds_to_duration(seconds: float) -> Duration:
    """A Duration message of `seconds` (non-negative)."""
    nanoseconds = max(0, round(seconds * 1e9))
    return Duration(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)
