"""When a changed map replans the active goal_pose goal (`replan_on_map_update`).

`always` replans on every full map and every patch; `never` on none (the next goal or
`replan_period` does); `when_blocked` (the default) only when a pose of the current path from
the one nearest the robot on lies on a cell that the change newly blocked (as is_path_valid
judges a pose: outside the map or blocked), when the robot's start has moved off the path
(farther than `off_path_distance` from every pose), when the map's geometry changed, when
there is no current path, or when the path stops short of its goal (`goal_tolerance` chose
another cell) and a cell nearer the goal has become free and reachable. Comparing the new grid
with the one before it, rather than judging every pose afresh, lets a robot that stands in the
inflated band keep its path.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np

from grid_planner.grid.path_checks import ShortOf, replan_reason
from grid_planner.grid.planning_grid import PlanningGrid
from grid_planner.nodes.plan_query import QueryError
from grid_planner.nodes.steady_timers import steady_timer

if TYPE_CHECKING:
    from grid_planner.nodes.planner_node import PlannerNode
    from grid_planner.nodes.pose_inputs import PoseInputs

REPLAN_POLICIES = ("always", "when_blocked", "never")
DEFAULT_REPLAN_POLICY = "when_blocked"
# A replan_period other than 0 (off) lies in this range (s): 1e-9 kept the node replanning at
# 82 % of a core, and above about 9.2e9 s rclpy cannot make the timer (int64 nanoseconds).
MIN_REPLAN_PERIOD = 0.05
MAX_REPLAN_PERIOD = 86_400.0


class GoalPath:
    """The latest path planned for the goal_pose goal (world points), the grid it was planned
    on and, when it stops short of the goal, where; shared between the goal worker and the map
    callbacks."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._points: np.ndarray | None = None
        self._grid: PlanningGrid | None = None
        self._short_of: ShortOf | None = None

    def snapshot(self) -> tuple[np.ndarray | None, PlanningGrid | None, ShortOf | None]:
        """The path's world points ((n, 2); None before the first goal plan), the grid it was
        planned on and where it stops short of its goal, read together (the goal worker may set
        a new path meanwhile)."""
        with self._lock:
            return self._points, self._grid, self._short_of

    def set(self, points: np.ndarray | None, grid: PlanningGrid | None = None,
            short_of: ShortOf | None = None) -> None:
        """Remember the path just planned for the goal, its grid and where it stops short of
        the goal (None: forget them)."""
        with self._lock:
            self._points, self._grid, self._short_of = points, grid, short_of


class GoalReplanner:
    """Replans the goal_pose goal of one planner node: after map changes as
    `replan_on_map_update` says, and every `replan_period` seconds while the node is active
    (`start` / `stop`; a changed period restarts the timer)."""

    def __init__(self, node: PlannerNode, poses: PoseInputs, callback_group: object) -> None:
        self._node = node
        self._poses = poses
        self._group = callback_group
        # The timer and whether one is wanted, changed by activation and by parameter changes
        # in their own threads: under the lock, so exactly one timer of the period set last
        # runs while active, and none after `stop`.
        self._lock = threading.Lock()
        self._timer = None
        self._active = False
        self.path = GoalPath()
        node.add_post_set_parameters_callback(self._on_parameters_set)

    def map_changed(self, after: PlanningGrid | None, why: str) -> None:
        """Replan the active goal after the map became `after`, if the policy says so; a goal
        still pending (never planned: it came before a map) is planned whatever the policy."""
        node = self._node
        policy = node.get_parameter("replan_on_map_update").value
        if after is None:
            return
        if self._poses.pending:
            self._poses.plan_active_goal(why)
            return
        if policy == "never":
            return
        if policy == "when_blocked":
            try:
                robot = node.start_pose(None, node.get_parameter("global_frame").value)
                start = (robot.x, robot.y)
            except QueryError:
                start = None
            points, grid, short_of = self.path.snapshot()
            reason = replan_reason(grid, after, points, start, short_of)
            if reason is None:
                node.get_logger().debug(f"{why}: the current path stays clear, no replan")
                return
            why = f"{why} and {reason}"
        self._poses.plan_active_goal(why, supersede=False)

    def start(self) -> None:
        """Replan periodically from now on (activation), if `replan_period` > 0."""
        with self._lock:
            self._active = True
            self._restart()

    def stop(self) -> None:
        """No more periodic replanning (deactivation)."""
        with self._lock:
            self._active = False
            self._restart()

    def _restart(self) -> None:
        """The timer the current period asks for while active, none otherwise (lock held)."""
        if self._timer is not None:
            self._node.destroy_timer(self._timer)
            self._timer = None
        period = self._node.get_parameter("replan_period").value
        if self._active and period > 0.0:
            # In wall time, as a behaviour tree's rate controller ticks.
            self._timer = steady_timer(
                self._node, period,
                lambda: self._poses.plan_active_goal("replan_period", supersede=False),
                self._group,
            )

    def _on_parameters_set(self, parameters: list) -> None:
        if any(p.name == "replan_period" for p in parameters):
            with self._lock:
                if self._active:
                    self._restart()
