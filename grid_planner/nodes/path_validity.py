"""is_path_valid: does a path still run through free cells of the current map?

Nav2 jazzy's rules (an empty path is invalid; checking starts at the pose nearest the robot; a
pose outside the map is invalid; a lethal or inscribed cell is invalid) on our grid: a pose is
invalid when its cell is outside the map or blocked (an obstacle, inside `robot_radius` of one,
or unknown while `allow_unknown` is false). The grid is the one of the first configured
planner's settings. Choices of ours: with no known robot pose every pose is checked (jazzy
checks none and answers valid), `invalid_pose_indices` lists every invalid pose from the
first one checked (jazzy never fills it), and a path longer than `max_path_poses` is answered
false unread (its check would hold up every later one).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path

from grid_planner.grid.path_checks import invalid_indices, nearest_index
from grid_planner.nodes.conversions import faulty_rows, pose_rows
from grid_planner.nodes.plan_query import QueryError

if TYPE_CHECKING:
    from grid_planner.nodes.planner_node import PlannerNode


def check_path(node: PlannerNode, path: Path) -> tuple[bool, list[int]]:
    """(is_valid, invalid_pose_indices) of `path` on the node's current map; a path of more
    than `max_path_poses` poses (longer than any the node sends) is answered false unread."""
    if not path.poses:
        return False, []
    most = node.get_parameter("max_path_poses").value
    if len(path.poses) > most:
        node.get_logger().warning(
            f"is_path_valid answers false: the path has {len(path.poses)} poses, more than "
            f"max_path_poses {most}"
        )
        return False, []
    grid = node.default_grid()
    if grid is None:
        node.get_logger().warning("is_path_valid answers false: no map yet")
        return False, []
    global_frame = node.get_parameter("global_frame").value
    if grid.map.frame_id != global_frame:
        # As a plan is refused: the map is never taken for one in another frame.
        node.get_logger().warning(
            f"is_path_valid answers false: the map in use is in frame '{grid.map.frame_id}', "
            f"not the global frame '{global_frame}'"
        )
        return False, []
    points = global_points(node, path, global_frame)
    first = 0
    try:
        robot = node.start_pose(None, global_frame)
    except QueryError:
        robot = None
    known = np.flatnonzero(np.isfinite(points).all(axis=1))
    if robot is not None and known.size:
        first = int(known[nearest_index(points[known], (robot.x, robot.y))])
    invalid = invalid_indices(grid, points, first)
    return not invalid, invalid


def global_points(node: PlannerNode, path: Path, global_frame: str) -> np.ndarray:
    """The positions of the path's poses in `global_frame`, (n, 2), read in the path's header
    frame (one transform for all). A pose that is not finite or has a zero-length quaternion
    is NaN, and so is every pose when that frame cannot be transformed."""
    rows = pose_rows([stamped.pose for stamped in path.poses])
    points = rows[:, :2].copy()
    points[faulty_rows(rows)] = np.nan
    origin = PoseStamped(header=path.header)
    origin.pose.orientation.w = 1.0
    try:
        frame = node.pose_in_global(origin, "path", global_frame)
    except QueryError:
        points[:] = np.nan
        return points
    if (frame.x, frame.y, frame.yaw) == (0.0, 0.0, 0.0):
        return points
    c, s = math.cos(frame.yaw), math.sin(frame.yaw)
    return np.column_stack((frame.x + c * points[:, 0] - s * points[:, 1],
                            frame.y + s * points[:, 0] + c * points[:, 1]))
