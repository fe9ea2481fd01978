"""Start, spin and cleanly stop rclpy nodes from console scripts (SIGINT and SIGTERM alike)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node

SHUTDOWN_POLL_S = 0.25


def spin_nodes(
    node_factories: Sequence[Callable[[], Node]],
    num_threads: int,
    args: Sequence[str] | None = None,
    ready_message: str | None = None,
) -> int:
    """Create the nodes, spin them on one multi-threaded executor until shutdown; exit code.

    rclpy's default signal handlers turn SIGINT and SIGTERM into a context shutdown, which ends
    the spin with KeyboardInterrupt or ExternalShutdownException; both are a clean stop, also
    while the nodes are still being created. A node refusing its configuration (a ValueError:
    a bad parameter value, a map that does not load) prints one line and exits with 1.
    `ready_message` is logged once all nodes exist.

    The executor waits at most SHUTDOWN_POLL_S at a time. rclpy's signal thread triggers the
    executors' wake-up guard before it shuts the context down; when the executor is between two
    waits at that moment, the wake-up is spent and an unbounded wait would never see the
    shutdown (seen as a hang on SIGTERM right after start-up). A bounded wait rechecks it.
    """
    argv = list(args) if args is not None else sys.argv
    program = Path(argv[0]).name if argv else "node"
    rclpy.init(args=argv)
    nodes: list[Node] = []
    executor = MultiThreadedExecutor(num_threads=num_threads)
    try:
        for factory in node_factories:
            try:
                node = factory()
            except ValueError as error:
                print(f"{program}: {error}", file=sys.stderr)
                return 1
            nodes.append(node)
            executor.add_node(node)
        if ready_message:
            rclpy.logging.get_logger("bringup").info(ready_message)
        while executor.context.ok():
            executor.spin_once(timeout_sec=SHUTDOWN_POLL_S)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:
        if rclpy.ok():
            raise  # a real start-up failure; a signal during start-up is a clean stop
    finally:
        executor.shutdown()
        for node in nodes:
            node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
    return 0
