"""planner_node (node name `grid_planner`, or `planner_server` in a Nav2 stack): plans on the
latest map for goals, services and Nav2's actions.

Data flow: messages -> `PlanQuery` -> `PlannerNode.compute` (`query_planner.py`: core call on
a grid snapshot) -> `PlanAnswer` -> Path / ComputePath / GetPlan / Nav2 action results. Goals
from `goal_pose` run on a background worker that always plans the latest goal only; services
plan in their own callback threads, Nav2's actions in theirs (`nav2_actions.py`). A lifecycle
node (`lifecycle.py`): it makes its subscriptions, publishers, services and actions at
configure, serves while active.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import replace

import numpy as np
from geometry_msgs.msg import PoseStamped
from grid_planner_interfaces.srv import ComputePath
from nav_msgs.msg import OccupancyGrid, Path
from nav_msgs.srv import GetPlan
from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.parameter import Parameter

from grid_planner.grid import NUMBA_AVAILABLE, warm_up
from grid_planner.grid.expansion import expansion_shades
from grid_planner.grid.path_checks import ShortOf
from grid_planner.grid.planning_grid import PlanningGrid
from grid_planner.jit.warm_notice import warm_with_notice
from grid_planner.nodes.concurrency import RequestGate
from grid_planner.nodes.conversions import (
    map_to_msg,
    planned_path,
    seconds_to_duration,
)
from grid_planner.nodes.frames import Pose2D
from grid_planner.nodes.lifecycle import DEACTIVATE_WAIT_S, LIFECYCLE_THREADS, ManagedNode
from grid_planner.nodes.map_input import shown_topic
from grid_planner.nodes.map_intake import MapIntake
from grid_planner.nodes.nav2_actions import ACTION_THREADS, PathActions, nav2_problem
from grid_planner.nodes.nav2_parameters import (
    SERVER_PARAMETERS,
    PlannerTable,
    UnknownPlannerError,
    block_rule,
    configure_planners,
    warn_unknown_keys,
)
from grid_planner.nodes.parameters import declare_validated
from grid_planner.nodes.paths import install_source
from grid_planner.nodes.plan_query import Codes, PlanAnswer, PlanQuery, QueryError
from grid_planner.nodes.planner_parameters import (
    INPUT_READ_ONLY,
    READ_ONLY,
    input_parameters,
    planner_parameters,
)
from grid_planner.nodes.planning_map import (
    GridSettings,
    PlanningMap,
    changes_inflation_refusal,
)
from grid_planner.nodes.pose_inputs import PoseInputs
from grid_planner.nodes.qos import COMMAND_QOS, MAP_QOS, PLAN_QOS, SERVICE_QOS
from grid_planner.nodes.query_planner import QueryPlanner
from grid_planner.nodes.replanning import GoalReplanner
from grid_planner.nodes.wire.cdr import ComputePathAnswer, PathArrays
from grid_planner.nodes.wire.prebuilt import probe

__all__ = ["PlanAnswer", "PlanQuery", "PlannerNode", "main"]


class PlannerNode(ManagedNode):
    """Subscribes to map, goals and start poses; publishes plans and serves plan requests."""

    def __init__(self, tf_buffer: object | None = None, **node_options) -> None:
        # Held while a parameter change is checked and committed, and while a map is admitted:
        # the two judge each other (a radius against the map in use, a map against the radius)
        # and must not both pass against what the other is about to replace.
        self.settings_lock = threading.RLock()
        super().__init__("grid_planner", **node_options)
        self._maps = PlanningMap()
        parameters = {**planner_parameters(), **input_parameters(),
                      **SERVER_PARAMETERS}
        self._rules = {name: rule for name, (_, _, rule) in parameters.items() if rule}
        # rclpy runs the newest callback first: the per-value rules come before this one.
        self.add_on_set_parameters_callback(self._inflation_rule)
        declare_validated(self, parameters, read_only=READ_ONLY | INPUT_READ_ONLY)
        self.add_on_set_parameters_callback(block_rule(self._rules))
        self._poses = PoseInputs(self, tf_buffer)
        self._halt = threading.Event()  # set: the running plans of this activation stop
        self._gate = self._new_gate()
        self._gate.close(self.refusal())
        self._planners: PlannerTable | None = None
        self._actions: PathActions | None = None
        self._goal_sub = None
        self._state_group = MutuallyExclusiveCallbackGroup()
        self._replanner = GoalReplanner(self, self._poses, self._state_group)
        self._planning = QueryPlanner(self, self._maps)
        self._intake = MapIntake(
            self, self._maps, self._replanner,
            lambda: None if self._planners is None else self._planners.planners,
        )
        self._warned_keys: set[str] = set()
        self._block_defaults: dict[str, object] = {}  # block keys at a plugin's default
        # Block keys holding a stand-in for a refused file value, until they are set.
        self._block_stand_ins: dict[str, str] = {}
        self.add_post_set_parameters_callback(self._forget_stand_ins)
        self._warm_seconds = 0.0
        # Executor threads the callbacks may hold: the service requests, the state group,
        # rclpy's parameter services, the lifecycle services and Nav2's actions.
        self.callback_threads = self._gate.threads + 2 + LIFECYCLE_THREADS + ACTION_THREADS
        self._wire = probe()
        self.start()

    def _forget_stand_ins(self, parameters: list) -> None:
        """A block key set at runtime holds someone's value now, not a stand-in."""
        for parameter in parameters:
            self._block_stand_ins.pop(parameter.name, None)

    # --- lifecycle ----------------------------------------------------------------------------

    def configure_resources(self) -> None:
        """Warm the kernels, read the planner blocks, make every subscription, publisher,
        service and action (they refuse requests until activation)."""
        self._warm_seconds = warm_with_notice(warm_up, self.get_logger(), "search kernels")
        self._planners = configure_planners(self, self._rules, self._block_defaults,
                                            self._block_stand_ins,
                                            can_retry=not self.autostarting)
        warn_unknown_keys(self, self._planners, self._warned_keys)
        state = self._state_group
        self._poses.open()
        self._poses.subscribe_starts(state)
        self._intake.open(state)
        self._plan_pub = self.keep(self.create_lifecycle_publisher(Path, "plan", PLAN_QOS))
        self._expanded_pub = self.keep(
            self.create_lifecycle_publisher(OccupancyGrid, "expanded_cells", MAP_QOS)
        )
        services = ReentrantCallbackGroup()
        self.keep(self.create_service(GetPlan, "plan_path", self._on_get_plan,
                                      qos_profile=SERVICE_QOS, callback_group=services))
        self.keep(self.create_service(ComputePath, "compute_path", self._on_compute_path,
                                      qos_profile=SERVICE_QOS, callback_group=services))
        problem = nav2_problem()
        if problem is None:
            self._actions = PathActions(self)
        else:
            self.get_logger().warning(f"no Nav2 actions or is_path_valid: {problem}")

    def activate_resources(self) -> None:
        """Open the request gate and subscribe to goal_pose (when enabled)."""
        self._halt = threading.Event()
        self._gate = self._new_gate()
        if self._param("subscribe_goal_pose"):
            self._goal_sub = self.create_subscription(
                PoseStamped, "goal_pose", self._on_goal, COMMAND_QOS,
                callback_group=MutuallyExclusiveCallbackGroup(),
            )
        self._replanner.start()

    def _new_gate(self) -> RequestGate:
        return RequestGate(
            self._param("max_concurrent_plans"), self._param("max_queued_plans"),
            "max_concurrent_plans, max_queued_plans",
        )

    def serving_started(self) -> None:
        """Judge the goal_pose goal's path against the map as it is now, as after a map
        change: maps and patches that came while inactive replanned nothing. A failure here
        costs that replan, never the activation."""
        try:
            self._replanner.map_changed(self._maps.grid(self.grid_settings()),
                                        "the node was activated")
        except Exception as error:  # the next map event or goal replans
            self.get_logger().warning(f"no replan at activation: {error!r}")

    def announce(self) -> None:
        """The ready line: what plans and how, once the node serves."""
        backend = "numba" if NUMBA_AVAILABLE else "reference (no numba)"
        actions = "Nav2 actions" if self._actions is not None else "no Nav2 actions"
        self.get_logger().info(
            f"ready: algorithm {self._param('algorithm')}, global frame "
            f"'{self._param('global_frame')}', map on '{self._map_topic()}', kernels "
            f"{backend} (warm-up {self._warm_seconds * 1000:.0f} ms), start from "
            f"{self._poses.start_source}, {actions} (planners "
            f"{', '.join(self._planners.planners)}), paths sent as {self._wire.description}; "
            f"{install_source()}"
        )

    def deactivate_resources(self) -> None:
        """Refuse new requests, cancel running ones and wait until they have answered."""
        self._halt.set()
        self._gate.close(self.refusal())
        self._poses.cancel()
        if self._actions is not None:
            reason = ("the planner is shutting down" if self.shutting_down
                      else "the planner was deactivated")
            self._actions.stop(reason, DEACTIVATE_WAIT_S)
        self._gate.wait_idle(DEACTIVATE_WAIT_S)
        self._replanner.stop()
        if self._goal_sub is not None:
            self.destroy_subscription(self._goal_sub)
            self._goal_sub = None

    def cleanup_resources(self) -> None:
        """Stop the goal worker and the TF listener, forget the map, poses and planners."""
        self._intake.close()
        self._poses.close()
        self._actions = None
        self._planners = None
        self._maps.clear()
        self._replanner.path.set(None)

    def halt_work(self) -> None:
        """Cancel the goal plan, the actions' goals and running service plans; waiting and new
        requests are refused."""
        self._halt.set()
        self._gate.close()
        self._poses.stop()
        if self._actions is not None:
            self._actions.stop("the planner is shutting down", 0.0)

    # --- parameters ---------------------------------------------------------------------------

    def set_parameters(self, parameter_list: list[Parameter]) -> list[SetParametersResult]:
        """rclpy's, under `settings_lock`."""
        with self.settings_lock:
            return super().set_parameters(parameter_list)

    def set_parameters_atomically(self, parameter_list: list[Parameter]) -> SetParametersResult:
        """rclpy's (what the parameter services call), under `settings_lock`."""
        with self.settings_lock:
            return super().set_parameters_atomically(parameter_list)

    def _param(self, name: str):
        return self.get_parameter(name).value

    def _inflation_rule(self, changes: list[Parameter]) -> SetParametersResult:
        """Refuse changes after which a grid of the map in use would inflate it too far."""
        current = self._maps.current
        if current is None:
            return SetParametersResult(successful=True)
        planners = self._planners
        reason = changes_inflation_refusal(
            changes, current.resolution, self._param,
            {} if planners is None else {pid: planners.values(planner)
                                         for pid, planner in planners.planners.items()},
        )
        return SetParametersResult(successful=reason is None, reason=reason or "")

    def parameter_lookup(self, planner_id: str | None) -> Callable[[str], object]:
        """`name -> value` of the flat parameters, with the block values of `planner_id`."""
        overrides = {}
        if planner_id is not None:
            try:
                overrides = self._planners.values(self._planners.resolve(planner_id))
            except UnknownPlannerError as error:
                raise QueryError(Codes.INVALID_PLANNER, str(error)) from error
        return lambda name: overrides[name] if name in overrides else self._param(name)

    @property
    def has_map(self) -> bool:
        """Whether a map has been admitted."""
        return self._maps.current is not None

    def no_map(self, within: str = "") -> str:
        """Why no map is in use, for an answer (`within`: the wait, e.g. "within ... s"): none
        came on the map topic, or the last one was refused, which only the log had said."""
        topic = self._map_topic()
        refusal = self._intake.refusal
        if refusal is not None:
            waited = f" {within}" if within else ""
            return f"no map in use on '{topic}'{waited}: the last one was refused: {refusal}"
        return f"no map received on '{topic}' {within}" if within else (
            f"no map received yet on '{topic}'")

    def _map_topic(self) -> str:
        return shown_topic(self, self._param("map_topic"))

    def default_grid(self) -> PlanningGrid | None:
        """The current map's grid under the first configured planner's settings."""
        return self._maps.grid(self.grid_settings(self._planners.default.id))

    def grid_settings(self, planner_id: str | None = None) -> GridSettings:
        """The grid settings of the flat parameters, or of a configured planner."""
        return GridSettings.read(self.parameter_lookup(planner_id))

    # --- state updates ------------------------------------------------------------------------

    def _on_goal(self, msg: PoseStamped) -> None:
        """A new goal_pose goal: the previous goal's path no longer stands for it (a refused
        goal changes nothing: the previous goal and its path stay)."""
        if self._poses.refusal(msg) is None:
            self._replanner.path.set(None)
        self._poses.on_goal(msg)

    def publish_plan(self, path: PathArrays) -> None:
        """Publish `path` on `plan` (only while active)."""
        self._plan_pub.publish(self._wire.plan(path))

    def goal_planned(self, answer: PlanAnswer) -> None:
        """The goal_pose goal's found plan, still current: the path the map changes are
        judged against (`replan_on_map_update: when_blocked`), published on `plan`."""
        self._replanner.path.set(answer.path.positions[:, :2], answer.grid,
                                 ShortOf.of(answer.plan))
        self.publish_plan(answer.path)

    # --- services -----------------------------------------------------------------------------

    def _on_compute_path(
        self, request: ComputePath.Request, _response: ComputePath.Response
    ) -> ComputePath.Response:
        query = PlanQuery(
            goal=request.goal,
            start=request.start if request.use_start else None,
            algorithm=request.algorithm,
            tolerance=request.tolerance,
        )
        answer = self._admitted(query)
        planning_time = seconds_to_duration(answer.planning_time)
        return self._wire.compute_path_response(ComputePathAnswer(
            answer.path, answer.error_code, answer.error_msg, answer.length_m,
            answer.nodes_expanded, planning_time.sec, planning_time.nanosec,
        ))

    def _on_get_plan(
        self, request: GetPlan.Request, _response: GetPlan.Response
    ) -> GetPlan.Response:
        from_current = request.start.header.frame_id == ""
        # 0 (GetPlan's default) or less: the node's goal_tolerance; NaN is refused later.
        tolerance = -1.0 if request.tolerance <= 0.0 else request.tolerance
        query = PlanQuery(
            goal=request.goal, start=None if from_current else request.start, tolerance=tolerance
        )
        return self._wire.get_plan_response(self._admitted(query).path)

    def _admitted(self, query: PlanQuery) -> PlanAnswer:
        """Plan a service query in its turn, or answer BUSY when the gate refuses it."""
        gate, halt = self._gate, self._halt
        with gate.turn() as refusal:
            if refusal is None:
                return self.compute(query, halt)
        report = gate.refusal_report()
        if report:
            self.get_logger().warning(report)
        return PlanAnswer(self.empty_path(), Codes.BUSY, refusal)

    # --- the one planning path ----------------------------------------------------------------

    def compute(
        self, query: PlanQuery, cancel: threading.Event | None = None, announce: bool = False
    ) -> PlanAnswer:
        """Plan `query` on a snapshot of the grid (`QueryPlanner.compute`); every failure
        becomes an error code. `announce` (goal_pose plans) logs a found plan at INFO."""
        return self._planning.compute(query, cancel, announce)

    def empty_path(self) -> PathArrays:
        """A path with no poses, in the global frame, stamped now."""
        return planned_path(np.zeros((0, 2)), self._param("global_frame"),
                            self.get_clock().now().to_msg(), None)

    def pose_in_global(self, pose: PoseStamped, role: str, global_frame: str) -> Pose2D:
        """`pose` in the global frame; QueryError (INVALID_POSE, TF_ERROR) naming `role`."""
        return self._poses.pose_in_global(pose, role, global_frame)

    def start_pose(self, explicit: PoseStamped | None, global_frame: str) -> Pose2D:
        """`explicit` in the global frame, or the current start (TF, else the start topics)."""
        return self._poses.start_pose(explicit, global_frame)

    def publish_expanded(self, grid: PlanningGrid, expanded: np.ndarray, stamp) -> None:
        """Publish the cells `expanded` on `grid` on `expanded_cells` (only while active)."""
        # 1..98 by expansion rank: RViz's costmap colour scheme shows the search's wave.
        cells = expansion_shades(expanded, grid.cell_count)
        shown = replace(grid.map, data=cells, frame_id=self._param("global_frame"))
        self._expanded_pub.publish(map_to_msg(shown, stamp))


def main(args: list[str] | None = None) -> int:
    """Run planner_node until shutdown; the exit code."""
    from grid_planner.nodes.runtime import spin_nodes

    return spin_nodes([PlannerNode], args=args)


if __name__ == "__main__":
    sys.exit(main())
