"""Clients that talk to the nodes as Nav2 does: its actions, the lifecycle services in
nav2_lifecycle_manager's order, and the manager's side of the bond (bondpy).

nav2_msgs and bondpy come from a real ROS installation, else from the test set-up (`make
test-env`); without either, `require` skips the calling test (fails under CI=true).
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np
from lifecycle_msgs.msg import Transition
from lifecycle_msgs.srv import ChangeState, GetState
from rclpy.duration import Duration
from ros_harness import ClientNode, goal_result, send_goal
from shared_data import shared_dir, unavailable

# nav2_lifecycle_manager's bond: heartbeat period 0.1 s, timeout bond_timeout (4 s default).
MANAGER_BOND_PERIOD_S = 0.1
MANAGER_BOND_TIMEOUT_S = 4.0
# Transition ids in the order nav2_lifecycle_manager drives them (startup, pause, reset, ...).
CONFIGURE = Transition.TRANSITION_CONFIGURE
ACTIVATE = Transition.TRANSITION_ACTIVATE
DEACTIVATE = Transition.TRANSITION_DEACTIVATE
CLEANUP = Transition.TRANSITION_CLEANUP
UNCONFIGURED_SHUTDOWN = Transition.TRANSITION_UNCONFIGURED_SHUTDOWN


def costmap_message(raw: np.ndarray, resolution: float, stamp: object,
                    frame: str = "map") -> object:
    """A nav2_msgs/Costmap of the raw costs `raw` (uint8, rows from the bottom), at the origin."""
    from nav2_msgs.msg import Costmap

    msg = Costmap()
    msg.header.frame_id = frame
    msg.header.stamp = stamp
    msg.metadata.resolution = resolution
    msg.metadata.size_y, msg.metadata.size_x = raw.shape
    msg.metadata.origin.orientation.w = 1.0
    msg.data = raw.tobytes()
    return msg


def costmap_update_message(x: int, y: int, raw: np.ndarray, stamp: object,
                           frame: str = "map") -> object:
    """A nav2_msgs/CostmapUpdate putting the raw costs `raw` (rows from the bottom) at (x, y)."""
    from nav2_msgs.msg import CostmapUpdate

    msg = CostmapUpdate()
    msg.header.frame_id = frame
    msg.header.stamp = stamp
    msg.x, msg.y = x, y
    msg.size_y, msg.size_x = raw.shape
    msg.data = raw.tobytes()
    return msg


def require(module: str) -> None:
    """Skip (fail under CI=true) when `module` does not import, saying how to get it."""
    probe = subprocess.run([sys.executable, "-c", f"import {module}"], cwd="/",
                           capture_output=True, text=True)
    if probe.returncode != 0:
        interfaces = shared_dir() / "interfaces"
        how = ("run `make test-env`" if interfaces.is_dir()
               else f"the test set-up builds it from {interfaces}, which is missing")
        unavailable(f"{module} is not importable: {how}")


@dataclass
class Outcome:
    """How a goal ended: its final status (action_msgs GoalStatus) and its result."""

    status: int
    result: object


class ActionCaller:
    """An rclpy ActionClient of the client node, with blocking helpers for tests."""

    def __init__(self, client: ClientNode, action_type: type, name: str) -> None:
        from rclpy.action import ActionClient

        self.type = action_type
        self.action = ActionClient(client.node, action_type, name)
        assert self.action.wait_for_server(timeout_sec=30.0), f"action server {name}"

    def send(self, timeout: float = 30.0, **fields: object) -> object:
        """Send a goal; its ClientGoalHandle (check `.accepted`)."""
        return send_goal(self.action, self.type.Goal(**fields), timeout=timeout)

    def outcome(self, handle: object, timeout: float = 60.0) -> Outcome:
        """Wait for the goal's end."""
        answer = goal_result(handle, timeout)
        return Outcome(answer.status, answer.result)

    def call(self, **fields: object) -> Outcome:
        """Send a goal that must be accepted and wait for its end."""
        handle = self.send(**fields)
        assert handle.accepted, "goal rejected"
        return self.outcome(handle)


class Lifecycle:
    """`<node>/change_state` and `<node>/get_state`, as nav2_lifecycle_manager calls them."""

    def __init__(self, client: ClientNode, node: str) -> None:
        self._client = client
        self._change = client.node.create_client(ChangeState, f"{node}/change_state")
        self._get = client.node.create_client(GetState, f"{node}/get_state")

    def change(self, transition: int, timeout: float = 60.0) -> bool:
        """Request a transition; whether it succeeded (fails unanswered after `timeout`)."""
        request = ChangeState.Request(transition=Transition(id=transition))
        return self._client.call(self._change, request, timeout=timeout).success

    def state(self) -> str:
        """The node's current state label."""
        return self._client.call(self._get, GetState.Request()).current_state.label


class ManagerBond:
    """The lifecycle manager's side of a bond with one server, formed after its activation."""

    def __init__(self, client: ClientNode, topic: str, bond_id: str) -> None:
        from bondpy import bondpy

        from grid_planner.nodes.bond import BondNode

        self.bond = bondpy.Bond(BondNode(client.node), topic, bond_id)
        self.bond.heartbeat_period = MANAGER_BOND_PERIOD_S
        self.bond.heartbeat_timeout = MANAGER_BOND_TIMEOUT_S
        self.started = time.monotonic()
        self.bond.start()

    def formed_within(self, seconds: float) -> float | None:
        """Seconds from start until formed, or None when not formed within `seconds`."""
        if not self.bond.wait_until_formed(Duration(seconds=seconds)):
            return None
        return time.monotonic() - self.started

    def broken_within(self, seconds: float) -> bool:
        """Whether the server broke the bond within `seconds`."""
        return self.bond.wait_until_broken(Duration(seconds=seconds))

    def close(self) -> None:
        """Drop the manager's side (as the manager does after deactivating the server)."""
        self.bond.shutdown()
