"""The bond a Nav2 lifecycle manager forms with each server it activates (bondpy, where installed).

nav2_lifecycle_manager activates a server, then forms a bond with it on the relative topic
`bond` with the server's base name as the bond id, and waits `bond_timeout / 2` for it; a
server that never answers fails the whole start-up. The server side sends heartbeats every
`bond_heartbeat_period` seconds and, as Nav2's servers do, never times out itself (parameter
`/bond_disable_heartbeat_timeout`, leading slash included, declared true by the node).

bondpy needs two guards, both in the view of the node it gets (`BondNode`):
- it declares that parameter again inside its heartbeat-timeout handler, every time it runs; on
  a node that declared it already (every Nav2-style server) even the first call raises
  ParameterAlreadyDeclaredException on bondpy's timer thread, so the view's `declare_parameter`
  returns the parameter already there;
- it destroys its publisher and subscription with their own `destroy()`, which leaves them (and
  their event handlers) in the node's lists, where the next wait of an executor meets a
  destroyed handle and raises; the view's entities are destroyed through the node instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rclpy.duration import Duration

if TYPE_CHECKING:
    from rclpy.node import Node

DISABLE_HEARTBEAT_TIMEOUT_PARAM = "/bond_disable_heartbeat_timeout"
BOND_TOPIC = "bond"
HEARTBEAT_TIMEOUT_S = 4.0  # the server side's, as Nav2's servers set it (it never fires: disabled)
BREAK_ACK_WAIT_S = 0.25  # how long breaking waits for the manager to acknowledge the bond's end


def bondpy_problem() -> str | None:
    """Why no bond can be formed here (bondpy or bond's messages missing), or None."""
    try:
        from bondpy import bondpy  # noqa: F401
    except ImportError as error:
        return f"bondpy is not importable ({error})"
    return None


class _NodeDestroyed:
    """A publisher or subscription whose `destroy()` goes through its node, as rclpy wants."""

    def __init__(self, entity: Any, destroy: Callable[[Any], bool]) -> None:
        self._entity = entity
        self._destroy = destroy

    def destroy(self) -> None:
        """Remove the entity from the node and destroy it."""
        self._destroy(self._entity)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._entity, name)


class BondNode:
    """`node` as bondpy should see it (see the module text): declaring a parameter that exists
    returns it; the bond's publisher and subscription are destroyed through the node."""

    def __init__(self, node: Node) -> None:
        self._node = node
        self._lock = threading.Lock()

    def declare_parameter(self, name: str, value: Any = None, *args: Any, **kwargs: Any) -> Any:
        """The parameter `name`, declared only if the node does not have it yet."""
        with self._lock:
            if self._node.has_parameter(name):
                return self._node.get_parameter(name)
            return self._node.declare_parameter(name, value, *args, **kwargs)

    def create_publisher(self, *args: Any, **kwargs: Any) -> _NodeDestroyed:
        """The node's publisher, destroyed through the node."""
        publisher = self._node.create_publisher(*args, **kwargs)
        return _NodeDestroyed(publisher, self._node.destroy_publisher)

    def create_subscription(self, *args: Any, **kwargs: Any) -> _NodeDestroyed:
        """The node's subscription, destroyed through the node."""
        subscription = self._node.create_subscription(*args, **kwargs)
        return _NodeDestroyed(subscription, self._node.destroy_subscription)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._node, name)


class ServerBond:
    """One bond from this server to its lifecycle manager: formed on activation, broken on
    deactivation and shutdown."""

    def __init__(self, node: Node, heartbeat_period: float) -> None:
        from bondpy import bondpy

        name = node.get_name()
        formed = f"bond ({name}) formed with lifecycle manager"
        self.bond = bondpy.Bond(BondNode(node), BOND_TOPIC, name,
                                on_formed=lambda: node.get_logger().info(formed))
        self.bond.heartbeat_period = heartbeat_period
        self.bond.heartbeat_timeout = HEARTBEAT_TIMEOUT_S
        self.bond.start()

    def break_bond(self) -> None:
        """Tell the manager the bond ends, wait briefly for its answer, release everything.

        bondpy's own shutdown publishes the end once and destroys the publisher at once, which
        can lose the message; breaking first keeps it repeating until the manager answers (or
        BREAK_ACK_WAIT_S passes). Its timers and its thread are stopped, so nothing of the bond
        outlives it.
        """
        bond = self.bond
        if not bond.is_broken():
            bond.break_bond()
            bond.wait_until_broken(Duration(seconds=BREAK_ACK_WAIT_S))
        bond.shutdown()
        for timer in (bond.connect_timer, bond.heartbeat_timer, bond.disconnect_timer):
            timer.cancel()
        if bond.deadline is not None:
            bond.deadline.cancel()
        bond.thread.join(1.0)
