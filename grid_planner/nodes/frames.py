"""Poses in `global_frame`: from TF where tf2_ros exists (as Nav2 does), else as given.

Only full ROS installs have tf2_ros; the PyPI wheels do not. Everything here talks to a
buffer object with tf2_ros.Buffer's `lookup_transform(target, source, time, timeout)`, so tests
use a stand-in buffer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from geometry_msgs.msg import PoseStamped
from rclpy.duration import Duration
from rclpy.time import Time

from grid_planner.nodes.conversions import quaternion_to_yaw

try:
    import tf2_ros
except ImportError:
    tf2_ros = None


class FrameError(Exception):
    """A pose cannot be expressed in `global_frame` (Nav2's TF_ERROR)."""


@dataclass(frozen=True)
class Pose2D:
    """A planar pose in `global_frame`: position (m) and yaw (rad)."""

    x: float
    y: float
    yaw: float


def pose_to_2d(pose: PoseStamped) -> Pose2D:
    """The planar part of a stamped pose, in its own frame."""
    p = pose.pose.position
    return Pose2D(p.x, p.y, quaternion_to_yaw(pose.pose.orientation))


def _compose(transform, pose: Pose2D) -> Pose2D:
    """`pose` mapped through a TransformStamped (its planar part: translation and yaw)."""
    t = transform.transform.translation
    yaw = quaternion_to_yaw(transform.transform.rotation)
    c, s = math.cos(yaw), math.sin(yaw)
    return Pose2D(t.x + c * pose.x - s * pose.y, t.y + s * pose.x + c * pose.y, yaw + pose.yaw)


class FrameResolver:
    """Expresses poses in `global_frame`; with a TF buffer it also finds the robot's pose.

    Without a buffer, a pose in `global_frame` (or with an empty frame, read as
    `global_frame`) passes and any other frame is a FrameError: nothing to transform it with
    (`no_tf` says why there is no buffer).
    """

    def __init__(self, buffer: object | None = None,
                 no_tf: str = "this install has no tf2_ros") -> None:
        self.buffer = buffer
        self.no_tf = no_tf

    def _lookup(self, target: str, source: str, timeout: float):
        try:
            return self.buffer.lookup_transform(
                target, source, Time(), timeout=Duration(seconds=timeout)
            )
        except Exception as error:  # tf2 raises several exception types; all mean "no transform"
            raise FrameError(f"no transform from '{source}' to '{target}': {error}") from error

    def to_global(self, pose: PoseStamped, global_frame: str, timeout: float) -> Pose2D:
        """`pose` in `global_frame`; FrameError when it is elsewhere and cannot be transformed."""
        refusal = self.never_global(pose, global_frame)
        if refusal is not None:
            raise FrameError(refusal)
        frame = pose.header.frame_id.lstrip("/")
        if frame in ("", global_frame):
            return pose_to_2d(pose)
        return _compose(self._lookup(global_frame, frame, timeout), pose_to_2d(pose))

    def never_global(self, pose: PoseStamped, global_frame: str) -> str | None:
        """Why `pose` can never be expressed in `global_frame` here (another frame and no TF
        buffer), or None when it is in that frame or TF may transform it."""
        frame = pose.header.frame_id.lstrip("/")
        if self.buffer is not None or frame in ("", global_frame):
            return None
        return (f"pose is in frame '{frame}', not the global frame '{global_frame}', and "
                f"{self.no_tf} to transform it")

    def robot_pose(self, global_frame: str, base_frame: str, timeout: float) -> Pose2D | None:
        """The robot's pose from TF, or None when there is no TF buffer."""
        if self.buffer is None:
            return None
        return _compose(self._lookup(global_frame, base_frame, timeout), Pose2D(0.0, 0.0, 0.0))


def make_tf_buffer(node) -> object | None:
    """A tf2_ros Buffer fed by a TransformListener on `node`, or None without tf2_ros."""
    if tf2_ros is None:
        return None
    buffer = tf2_ros.Buffer()
    node._tf_listener = tf2_ros.TransformListener(buffer, node)
    return buffer
