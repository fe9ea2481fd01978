"""Lifecycle nodes that a Nav2 lifecycle manager drives, or that start themselves.

Every node that serves requests is an `rclpy.lifecycle` node with Nav2's per-node keys:
- `autostart_node` (our default true): configure and activate at start-up, so `ros2 run`, the
  launch files and `bringup` need no lifecycle manager. Under one it must be false (the Nav2
  launch sets it); it is deliberately not called `autostart`, the key nav2_bringup rewrites.
- `bond_heartbeat_period` and `/bond_disable_heartbeat_timeout`: the bond a manager forms after
  activating the node (see `bond.py`).

A subclass creates what it serves in `configure_resources` / `activate_resources` (registering
each subscription, publisher, service and action server with `keep`, so cleanup destroys it)
and releases it in `deactivate_resources` / `cleanup_resources`; this class runs them in the
transitions,
turns an exception into a failed transition with the reason logged, forms and breaks the bond,
and knows whether the node serves now (`serving`). While it does not, requests are refused with
`refusal()` as the reason.

Shutdown from any state takes the runtime's one path (`runtime.py`): `begin_shutdown()` (from
the watcher thread, at once) stops serving and cancels running work through `halt_work()`;
`destroy_node()` (after running callbacks answered) takes the node down through deactivate,
cleanup and shutdown to FINALIZED, so the bond is broken and every resource released.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from rclpy.lifecycle.publisher import LifecyclePublisher
from rclpy.service import Service
from rclpy.subscription import Subscription

from grid_planner.nodes.action_server import ReadyActionServer
from grid_planner.nodes.bond import DISABLE_HEARTBEAT_TIMEOUT_PARAM, ServerBond, bondpy_problem
from grid_planner.nodes.concurrency import SHUTTING_DOWN
from grid_planner.nodes.parameters import declare_checked, declare_validated

Entity = TypeVar("Entity")
SUCCESS = TransitionCallbackReturn.SUCCESS
FAILURE = TransitionCallbackReturn.FAILURE
# Executor threads the lifecycle services may hold (they share the node's default group).
LIFECYCLE_THREADS = 1
DEACTIVATE_WAIT_S = 2.0  # deactivation waits this long for cancelled requests to answer
CLEANUP_WAIT_S = 2.0  # cleanup waits this long for callbacks at work on what it destroys

LIFECYCLE_PARAMETERS = {
    "autostart_node": (True, "configure and activate at start-up; false: wait for a lifecycle "
                       "manager (or `ros2 lifecycle set`)", None),
    "bond_heartbeat_period": (0.1, "s between heartbeats of the bond a lifecycle manager forms "
                              "after activation; <= 0: no bond", None),
}


class ManagedNode(LifecycleNode):
    """A lifecycle node with Nav2's start-up keys, a bond, and the runtime's shutdown path."""

    def __init__(self, node_name: str, **node_options) -> None:
        super().__init__(node_name, **node_options)
        declare_validated(self, LIFECYCLE_PARAMETERS,
                          read_only=frozenset({"autostart_node", "bond_heartbeat_period"}))
        declare_checked(
            self, DISABLE_HEARTBEAT_TIMEOUT_PARAM, True,
            ParameterDescriptor(description="the server side of the bond never times out"),
        )
        self._shutting_down = threading.Event()
        self._serving = False
        self._autostarting = False
        self._bond: ServerBond | None = None
        self._bond_missing_said = False
        self._failure = ""
        self._kept: list[object] = []
        self._answer_invalid_transitions()

    def _answer_invalid_transitions(self) -> None:
        """Answer false to a change_state request whose transition the current state lacks.

        rclpy's service raises when rcl refuses such a transition (activate while
        unconfigured, configure while active), so the caller (nav2_lifecycle_manager sends raw
        ChangeState requests) never gets an answer; an rclcpp node logs an error and answers
        false, and so does this one.
        """
        service = getattr(self, "_service_change_state", None)
        if service is None:
            return
        change_state = service.callback

        def answered(request, response):
            try:
                return change_state(request, response)
            except _rclpy.RCLError:
                transitions = ", ".join(
                    f"{label} ({number})"
                    for number, label, *_ in self._state_machine.available_transitions
                )
                self.get_logger().error(
                    f"change_state refused: transition {request.transition.id} cannot start "
                    f"in state '{self.lifecycle_state}' (its transitions: {transitions})"
                )
                response.success = False
                return response

        service.callback = answered

    # --- what subclasses provide ----------------------------------------------------------------

    def configure_resources(self) -> None:
        """Create what the node serves with (raise ValueError with the reason to refuse)."""

    def activate_resources(self) -> None:
        """Start serving."""

    def deactivate_resources(self) -> None:
        """Stop serving: refuse new requests, cancel and wait for running ones."""

    def cleanup_resources(self) -> None:
        """Release what configure created; must also undo a configure that failed halfway."""

    def halt_work(self) -> None:
        """Cancel running work at once (no joins); called when shutdown begins."""

    def serving_started(self) -> None:
        """Catch up on what came while the node did not serve; called once it serves again."""

    def announce(self) -> None:
        """Say that the node serves now (its `ready:` line); called once activation is done."""

    def keep(self, entity: Entity) -> Entity:
        """Register an entity configure created; cleanup destroys them, last kept first."""
        self._kept.append(entity)
        return entity

    def _release(self) -> None:
        """Run the subclass's cleanup, then destroy every kept entity once the callbacks it
        had already started have answered (at most CLEANUP_WAIT_S) and their last answers
        have had a moment to be read (`NodeExecutor.linger`); none starts meanwhile.

        Before that, an action goal this cleanup ended sends its result from its own execution
        (which no entity's callback counts), and its client's result request, if it has not
        come yet, is still taken for a moment (`ReadyActionServer.wait_claimed`)."""
        try:
            self.cleanup_resources()
        finally:
            kept, self._kept = self._kept, []
            servers = _action_servers(kept)
            unfinished = sum(not server.wait_idle(CLEANUP_WAIT_S) for server in servers)
            for server in servers:
                server.wait_claimed()
            closing = getattr(self.executor, "closing", None)  # NodeExecutor's; others: none
            with closing(kept) if closing else contextlib.nullcontext(None) as settle:
                unfinished += settle(CLEANUP_WAIT_S) if settle else 0
                if unfinished:
                    self.get_logger().warning(
                        f"{unfinished} callback(s) still running after {CLEANUP_WAIT_S:.0f} s; "
                        "destroying their services and subscriptions anyway"
                    )
                elif closing:
                    self.executor.linger(kept)  # their last answers are read before they go
                for entity in reversed(kept):
                    self._destroy(entity)

    def claims_pending(self) -> float:
        """Seconds a stop should go on taking requests for the results of goals it has just
        ended, and the tasks of goals accepted but not yet executed (0.0: none is expected)."""
        return max([0.0] + [server.claims_pending() for server in _action_servers(self._kept)])

    def _destroy(self, entity: object) -> None:
        """Destroy one kept entity the way its kind is destroyed."""
        if isinstance(entity, LifecyclePublisher):
            self.destroy_lifecycle_publisher(entity)
        elif isinstance(entity, Subscription):
            self.destroy_subscription(entity)
        elif isinstance(entity, Service):
            self.destroy_service(entity)
        else:  # an action server
            entity.destroy()

    # --- state --------------------------------------------------------------------------------

    @property
    def serving(self) -> bool:
        """Whether the node is active and not shutting down."""
        return self._serving and not self._shutting_down.is_set()

    @property
    def shutting_down(self) -> bool:
        """Whether shutdown has begun."""
        return self._shutting_down.is_set()

    @property
    def lifecycle_state(self) -> str:
        """The label of the current lifecycle state (`unconfigured`, `active`, ...)."""
        return self._state_machine.current_state[1]

    def refusal(self) -> str:
        """Why a request is refused while the node does not serve."""
        if self._shutting_down.is_set():
            return SHUTTING_DOWN
        return (
            f"{self.get_name()} is inactive: a lifecycle manager or `ros2 lifecycle set` "
            "activates it"
        )

    @property
    def autostarting(self) -> bool:
        """Whether the transitions under way are `start`'s (a failure then ends the process)."""
        return self._autostarting

    @property
    def last_failure(self) -> str:
        """Why the last transition that failed did (empty until one fails)."""
        return self._failure

    def start(self) -> None:
        """Configure and activate now when `autostart_node` is set (subclasses call this last
        in their constructor); a refused transition raises ValueError with the reason."""
        if not self.get_parameter("autostart_node").value:
            self.get_logger().info(
                "waiting for lifecycle transitions (autostart_node is false): configure, then "
                "activate"
            )
            return
        self._autostarting = True
        try:
            for name, transition in (("configure", self.trigger_configure),
                                     ("activate", self.trigger_activate)):
                if transition() != SUCCESS:
                    raise ValueError(f"{self.get_name()} failed to {name}: {self._failure}")
        finally:
            self._autostarting = False

    # --- transitions --------------------------------------------------------------------------

    def _run(self, name: str, steps: Callable[[], None], undo: Callable[[], None]) -> bool:
        """Run a transition's `steps`; on an exception log it, run `undo` and report failure."""
        try:
            steps()
            return True
        except Exception as error:  # a failed transition must leave the node usable
            self._failure = str(error) if isinstance(error, ValueError) else repr(error)
            self.get_logger().error(f"{name} failed: {self._failure}")
            try:
                undo()
            except Exception as undo_error:
                self.get_logger().error(f"releasing after the failed {name}: {undo_error!r}")
            return False

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Create everything the node serves with."""
        return SUCCESS if self._run("configure", self.configure_resources,
                                    self._release) else FAILURE

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Start serving; form the bond last, as Nav2's servers do."""
        if not self._run("activate", self.activate_resources, self._stop_serving):
            return FAILURE
        super().on_activate(state)  # enables the lifecycle publishers
        self._serving = True
        self.serving_started()
        self.announce()
        if not self._autostarting:
            self._form_bond()
        return SUCCESS

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop serving (running work is cancelled and answered); break the bond last."""
        self._stop_serving()
        return SUCCESS

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release everything configure created."""
        return SUCCESS if self._run("cleanup", self._release, lambda: None) else FAILURE

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """From any state: stop serving, then release everything. Requests refused from now
        on are told that the node is shutting down (not that it waits to be activated)."""
        self._shutting_down.set()
        if state.label == "active":
            self._stop_serving()
        if state.label in ("active", "inactive"):
            self._run("shutdown", self._release, lambda: None)
        return SUCCESS

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        """A transition raised past its own handling: release everything, back to unconfigured."""
        self._stop_serving()
        self._run("error recovery", self._release, lambda: None)
        return SUCCESS

    def _stop_serving(self) -> None:
        self._serving = False
        try:
            self.deactivate_resources()
        finally:
            super().on_deactivate(LifecycleState(0, "deactivating"))  # lifecycle publishers off
            self._break_bond()

    # --- bond ---------------------------------------------------------------------------------

    def _form_bond(self) -> None:
        period = self.get_parameter("bond_heartbeat_period").value
        if period <= 0.0:
            return
        problem = bondpy_problem()
        if problem is not None:
            if not self._bond_missing_said:
                self._bond_missing_said = True
                self.get_logger().warning(
                    f"no bond to a lifecycle manager: {problem}; a nav2_lifecycle_manager "
                    "managing this node needs bond_timeout: 0.0"
                )
            return
        self.get_logger().info(f"creating bond ({self.get_name()}) to lifecycle manager")
        self._bond = ServerBond(self, period)

    def _break_bond(self) -> None:
        bond, self._bond = self._bond, None
        if bond is not None:
            self.get_logger().info(f"destroying bond ({self.get_name()}) to lifecycle manager")
            bond.break_bond()

    # --- shutdown -----------------------------------------------------------------------------

    def begin_shutdown(self) -> None:
        """Stop serving and cancel running work; new and waiting requests are refused."""
        self._shutting_down.set()
        self.halt_work()

    def destroy_node(self) -> None:
        """Take the node down to FINALIZED (deactivate, cleanup: bond broken, everything
        released), then destroy it."""
        self.begin_shutdown()
        if self.lifecycle_state != "finalized":
            self.trigger_shutdown()
        super().destroy_node()


def _action_servers(entities: list[object]) -> list[ReadyActionServer]:
    """The action servers among kept entities."""
    return [entity for entity in entities if isinstance(entity, ReadyActionServer)]
