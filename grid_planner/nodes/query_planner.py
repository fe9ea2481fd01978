"""How planner_node answers a `PlanQuery`: checks in Nav2's order (the map, the poses, then the
planner), the core call on a snapshot of the grid, and every failure as an error code.

The node's services, its goal_pose worker and Nav2's actions all plan through
`PlannerNode.compute`, which is `QueryPlanner.compute`: one planning path, one set of codes.
"""

from __future__ import annotations

import math
import threading
import time
from typing import TYPE_CHECKING

from grid_planner.grid.dispatch import algorithm_info
from grid_planner.grid.errors import InvalidPlanner, PlannerCancelled, PlannerError
from grid_planner.grid.planner import MAX_SANE_PATH_POSES, plan_world
from grid_planner.nodes.conversions import planned_path
from grid_planner.nodes.plan_query import Codes, PlanAnswer, PlanQuery, QueryError
from grid_planner.nodes.planner_parameters import path_options
from grid_planner.nodes.planning_map import PlanningMap
from grid_planner.search.result import Budget

if TYPE_CHECKING:
    from grid_planner.nodes.planner_node import PlannerNode


class QueryPlanner:
    """Plans planner_node's queries on the latest map of `maps` under the node's parameters."""

    def __init__(self, node: PlannerNode, maps: PlanningMap) -> None:
        self._node = node
        self._maps = maps

    def _param(self, name: str):
        return self._node.get_parameter(name).value

    def compute(
        self, query: PlanQuery, cancel: threading.Event | None = None, announce: bool = False
    ) -> PlanAnswer:
        """Plan `query` on a snapshot of the grid; every failure becomes an error code.

        A found plan is logged at INFO when `announce` (goal_pose plans), else at DEBUG: an
        rclpy log call costs ~1.5 ms (it inspects the caller's source), too much per service
        call. Failures are always logged at WARN.
        """
        node = self._node
        started = time.monotonic()
        empty = node.empty_path()
        try:
            answer = self._plan(query, cancel, self._param("global_frame"))
        except QueryError as error:
            answer = PlanAnswer(empty, error.code, str(error), nodes_expanded=error.nodes_expanded)
        except PlannerCancelled as error:
            return PlanAnswer(empty, Codes.UNKNOWN, f"cancelled: {error}",
                              nodes_expanded=error.nodes_expanded,
                              planning_time=time.monotonic() - started, cancelled=True)
        except PlannerError as error:
            answer = PlanAnswer(
                empty, error.error_code, str(error), nodes_expanded=error.nodes_expanded
            )
        except Exception as error:  # a bug must cost one answer, never the node
            node.get_logger().error(f"planning failed unexpectedly: {error!r}")
            answer = PlanAnswer(empty, Codes.UNKNOWN, f"internal error: {error!r}")
        if not answer.planning_time:
            answer.planning_time = time.monotonic() - started
        if answer.ok:
            poses = answer.path.pose_count
            line = (
                f"plan: {answer.algorithm}, {poses} poses, {answer.length_m:.2f} m, "
                f"{answer.nodes_expanded} nodes expanded, {answer.planning_time * 1000:.1f} ms"
            )
            # One call site per severity: rclpy refuses a second severity from the same line.
            if announce:
                node.get_logger().info(line)
            else:
                node.get_logger().debug(line)
            if poses > MAX_SANE_PATH_POSES:
                node.get_logger().warning(
                    f"the path has {poses} poses (more than {MAX_SANE_PATH_POSES}): "
                    f"{answer.algorithm} paths are valid but rarely short"
                )
        else:
            node.get_logger().warning(f"no plan (code {answer.error_code}): {answer.error_msg}")
        return answer

    def _plan(
        self, query: PlanQuery, cancel: threading.Event | None, global_frame: str
    ) -> PlanAnswer:
        """The answer of a found plan; QueryError or the planner's error otherwise."""
        node = self._node
        # Nav2's order: the map, the start, the goal, then the planner.
        current = self._maps.current
        if current is None:
            raise QueryError(Codes.NO_MAP, node.no_map())
        if current.frame_id != global_frame:
            raise QueryError(
                Codes.NO_MAP, f"the map in use is in frame '{current.frame_id}', not the global "
                f"frame '{global_frame}': waiting for a map in '{global_frame}'",
            )
        start = node.start_pose(query.start, global_frame)
        goal = node.pose_in_global(query.goal, "goal", global_frame)
        value = node.parameter_lookup(query.planner_id)
        algorithm = query.algorithm.strip() or value("algorithm")
        try:
            algorithm_info(algorithm)  # before the grid is built, as Nav2 checks the planner id
        except InvalidPlanner as error:
            raise QueryError(Codes.INVALID_PLANNER, str(error)) from None
        grid = self._maps.grid(node.grid_settings(query.planner_id), cancel)
        if grid is None:
            raise QueryError(Codes.NO_MAP, "the map was released")
        tolerance = value("goal_tolerance") if query.tolerance < 0.0 else query.tolerance
        if not math.isfinite(tolerance):
            raise QueryError(Codes.INVALID_POSE, f"tolerance must be finite, got {tolerance}")
        budget = Budget.from_timeout(
            value("max_planning_time"), max_nodes=value("max_nodes"), cancel=cancel
        )
        most_poses = self._param("max_path_poses")  # read with the rest, before the search
        found = plan_world(
            grid, (start.x, start.y), (goal.x, goal.y), algorithm, tolerance=tolerance,
            budget=budget, record_expanded=self._param("publish_expanded"),
            **path_options(value),
        )
        if len(found.poses) > most_poses:
            raise QueryError(
                Codes.NO_VALID_PATH, f"{algorithm} found a path of {len(found.poses)} poses, more "
                f"than max_path_poses {most_poses}; it is not sent",
                nodes_expanded=found.nodes_expanded,
            )
        final_approach = value("use_final_approach_orientation")
        final_yaw = None if final_approach else goal.yaw
        if found.length == 0:
            # One pose, no step to face along: as Nav2's planners, the start's yaw under
            # use_final_approach_orientation (the robot need not turn on the spot), else the goal's.
            final_yaw = start.yaw if final_approach else goal.yaw
        stamp = node.get_clock().now().to_msg()
        path = planned_path(found.poses, global_frame, stamp, final_yaw)
        if found.expanded is not None:
            node.publish_expanded(grid, found.expanded, stamp)
        return PlanAnswer(
            path=path, algorithm=algorithm, length_m=found.length_m,
            nodes_expanded=found.nodes_expanded, planning_time=found.elapsed + found.smoothing_time,
            plan=found, grid=grid,
        )
