"""is_path_valid: does a path still run through free cells of the current map?

Nav2 jazzy's rules (an empty path is invalid; checking starts at the pose nearest the robot; a
pose outside the map is invalid; a lethal or inscribed cell is invalid) on our grid: a pose is
invalid when its cell is outside the map or blocked (an obstacle, inside `robot_radius` of one,
or unknown while `allow_unknown` is false). The grid is the one of the first configured
planner's settings. Two choices of ours: with no known robot pose every pose is checked (jazzy
checks none and answers valid), and `invalid_pose_indices` lists every invalid pose from the
first one checked (jazzy never fills it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path

from grid_planner.grid.path_checks import invalid_indices, nearest_index
from grid_planner.nodes.plan_query import QueryError

if TYPE_CHECKING:
    from grid_planner.nodes.planner_node import PlannerNode


def check_path(node: PlannerNode, path: Path) -> tuple[bool, list[int]]:
    """(is_valid, invalid_pose_indices) of `path` on the node's current map."""
    if not path.poses:
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
    points: list[tuple[float, float] | None] = []
    for stamped in path.poses:
        pose = PoseStamped(header=path.header, pose=stamped.pose)
        try:
            planar = node.pose_in_global(pose, "path pose", global_frame)
            points.append((planar.x, planar.y))
        except QueryError:
            points.append(None)
    first = 0
    try:
        robot = node.start_pose(None, global_frame)
    except QueryError:
        robot = None
    known = [(i, p) for i, p in enumerate(points) if p is not None]
    if robot is not None and known:
        nearest = nearest_index(np.array([p for _, p in known]), (robot.x, robot.y))
        first = known[nearest][0]
    invalid = invalid_indices(grid, points, first)
    return not invalid, invalid
