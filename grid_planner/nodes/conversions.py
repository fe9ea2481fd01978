"""Conversions between ROS messages and the core's plain values (maps, poses, paths)."""

from __future__ import annotations

import array
import math
from collections.abc import Sequence

import numpy as np
from builtin_interfaces.msg import Duration, Time
from geometry_msgs.msg import Point, Pose, PoseStamped, Quaternion
from grid_planner_interfaces.srv import ComputePath
from nav_msgs.msg import OccupancyGrid, Path
from std_msgs.msg import Header

from grid_planner.grid.errors import UnsupportedMapError
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.wire.cdr import ComputePathAnswer, PathArrays


def yaw_to_quaternion(yaw: float) -> Quaternion:
    """The quaternion of a rotation by `yaw` radians about z."""
    return Quaternion(x=0.0, y=0.0, z=math.sin(yaw / 2.0), w=math.cos(yaw / 2.0))


def quaternion_to_yaw(q: Quaternion) -> float:
    """The rotation about z of `q`, of any non-zero length; the roll and pitch are ignored.

    Both atan2 arguments scale with the squared length, so a quaternion that is not normalised
    gives the yaw of its normalised self (the unit-only form `1 - 2(y^2 + z^2)` does not). The
    components are first divided by the largest, so no square overflows (1e200 would give NaN).
    """
    largest = max(abs(q.x), abs(q.y), abs(q.z), abs(q.w))
    x, y, z, w = (v / largest for v in (q.x, q.y, q.z, q.w)) if largest > 0.0 else (0.0,) * 4
    return math.atan2(2.0 * (w * z + x * y), w * w + x * x - y * y - z * z)


def quaternion_lengths(quaternions: np.ndarray) -> np.ndarray:
    """The length of each row (x, y, z, w) of `quaternions`, (n, 4), its components first
    divided by the largest so no square overflows (the length itself may be inf); NaN where a
    component is not finite. 0 or NaN means no orientation."""
    finite = np.isfinite(quaternions).all(axis=1)
    components = np.where(finite[:, None], quaternions, 0.0)
    largest = np.abs(components).max(axis=1)
    scaled = components / np.where(largest > 0.0, largest, 1.0)[:, None]
    with np.errstate(over="ignore"):
        lengths = largest * np.sqrt((scaled * scaled).sum(axis=1))
    return np.where(finite, lengths, np.nan)


def quaternion_norm(q: Quaternion) -> float:
    """The length of `q` (see `quaternion_lengths`)."""
    return float(quaternion_lengths(np.array([[q.x, q.y, q.z, q.w]]))[0])


def header_frame(msg: object) -> str:
    """The frame a map or map update names, a leading `/` dropped (`/map` is `map`), as
    for poses."""
    return msg.header.frame_id.lstrip("/")


def pose_rows(poses: Sequence[Pose]) -> np.ndarray:
    """Each pose's position and orientation as a row (x, y, z, qx, qy, qz, qw), (n, 7)."""
    return np.array(
        [(p.position.x, p.position.y, p.position.z, p.orientation.x, p.orientation.y,
          p.orientation.z, p.orientation.w) for p in poses], dtype=np.float64,
    ).reshape(-1, 7)


def faulty_rows(rows: np.ndarray) -> np.ndarray:
    """For each row of `pose_rows`: whether the pose has a non-finite value or a zero-length
    quaternion."""
    return ~np.isfinite(rows).all(axis=1) | ~(quaternion_lengths(rows[:, 3:]) > 1e-9)


def pose_fault(pose: Pose) -> str | None:
    """What is wrong with `pose` (a non-finite value or a zero-length quaternion), or None."""
    if not faulty_rows(pose_rows([pose]))[0]:
        return None
    p, q = pose.position, pose.orientation
    return (
        f"pose is not finite or has a zero-length quaternion: position ({p.x}, {p.y}, {p.z}), "
        f"orientation ({q.x}, {q.y}, {q.z}, {q.w})"
    )


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
    msg.data = int8_sequence(occupancy.data)
    return msg


def int8_sequence(values: np.ndarray) -> array.array:
    """`values` as the array.array('b') an int8[] field stores.

    Assigning a NumPy array makes the generated setter copy it element by element (~0.5 s for
    a 2048^2 map); an array.array of the same bytes is taken as it is (~10 ms).
    """
    sequence = array.array("b")
    sequence.frombytes(np.ascontiguousarray(values, dtype=np.int8).tobytes())
    return sequence


def msg_to_map(msg: OccupancyGrid) -> OccupancyMap:
    """The core map of an OccupancyGrid message (raises UnsupportedMapError when malformed)."""
    info = msg.info
    origin = info.origin.orientation
    if not quaternion_norm(origin) > 1e-9:  # NaN fails this too
        raise UnsupportedMapError(
            f"map origin orientation ({origin.x}, {origin.y}, {origin.z}, {origin.w}) is not a "
            "rotation (a zero-length or non-finite quaternion)"
        )
    return OccupancyMap(
        width=info.width,
        height=info.height,
        resolution=info.resolution,
        data=np.asarray(msg.data, dtype=np.int8),
        origin_x=info.origin.position.x,
        origin_y=info.origin.position.y,
        origin_yaw=quaternion_to_yaw(info.origin.orientation),
        frame_id=header_frame(msg),
    )


def planned_path(
    points: np.ndarray, frame_id: str, stamp: Time, final_yaw: float | None
) -> PathArrays:
    """The path through the world `points` ((n, 2) array), each pose facing the next one.

    The last pose takes `final_yaw`, or keeps the last segment's heading when it is None; a
    one-point path has `final_yaw` (or 0). Every pose shares the path's frame and stamp.
    """
    count = len(points)
    headings = np.zeros(count)
    if count > 1:
        deltas = np.diff(points, axis=0)
        headings[:-1] = np.arctan2(deltas[:, 1], deltas[:, 0])
        headings[-1] = headings[-2]
    if count and final_yaw is not None:
        headings[-1] = final_yaw
    positions = np.zeros((count, 3))
    positions[:, :2] = points
    orientations = np.zeros((count, 4))
    orientations[:, 2] = np.sin(headings / 2.0)
    orientations[:, 3] = np.cos(headings / 2.0)
    return PathArrays(frame_id, stamp.sec, stamp.nanosec, positions, orientations)


def path_message(path: PathArrays) -> Path:
    """The nav_msgs/Path of `path`; all poses share one Header object, which rclpy serialises
    per pose like any other."""
    header = Header(frame_id=path.frame_id, stamp=Time(sec=path.stamp_sec,
                                                       nanosec=path.stamp_nanosec))
    message = Path(header=header)
    message.poses = _stamped_poses(header, path.positions.tolist(), path.orientations.tolist())
    return message


def _stamped_poses(
    header: Header, positions: list[list[float]], orientations: list[list[float]]
) -> list[PoseStamped]:
    """PoseStamped messages built without the generated constructors.

    The generated `__init__` of every nested message (Pose, Point, Quaternion) costs ~25 us a
    pose, 100 ms for a 4,000-pose path; filling the messages' slots directly costs a tenth of
    that. The slot names are those rosidl_generator_py has generated since ROS 2 Dashing, and
    test_conversions checks the result equals the constructor-built messages.
    """
    new = object.__new__
    poses = []
    for (x, y, z), (qx, qy, qz, qw) in zip(positions, orientations, strict=True):
        position = new(Point)
        position._check_fields, position._x, position._y, position._z = False, x, y, z
        orientation = new(Quaternion)
        orientation._check_fields = False
        orientation._x, orientation._y, orientation._z, orientation._w = qx, qy, qz, qw
        pose = new(Pose)
        pose._check_fields, pose._position, pose._orientation = False, position, orientation
        stamped = new(PoseStamped)
        stamped._check_fields, stamped._header, stamped._pose = False, header, pose
        poses.append(stamped)
    return poses


def compute_path_response(answer: ComputePathAnswer) -> ComputePath.Response:
    """The ComputePath response with the fields of `answer`."""
    return ComputePath.Response(
        path=path_message(answer.path),
        error_code=answer.error_code,
        error_msg=answer.error_msg,
        path_length=answer.path_length,
        nodes_expanded=answer.nodes_expanded,
        planning_time=Duration(sec=answer.planning_time_sec,
                               nanosec=answer.planning_time_nanosec),
    )


def seconds_to_duration(seconds: float) -> Duration:
    """A Duration message of `seconds` (non-negative)."""
    nanoseconds = max(0, round(seconds * 1e9))
    return Duration(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)
