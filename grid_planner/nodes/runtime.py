"""Start, spin and cleanly stop rclpy nodes from console scripts (SIGINT and SIGTERM alike)."""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import rclpy
from rclpy.context import Context
from rclpy.executors import Executor, ExternalShutdownException, MultiThreadedExecutor
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
    """
    argv = list(args) if args is not None else sys.argv
    program = Path(argv[0]).name if argv else "node"
    interrupt_once()
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
        with woken_on_shutdown(executor):
            executor.spin()
    except KeyboardInterrupt:
        await_signal_shutdown(executor.context)
    except ExternalShutdownException:
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


def interrupt_once() -> None:
    """Make the first SIGINT raise KeyboardInterrupt and ignore the ones after it.

    Ctrl-C under `ros2 launch` reaches every node twice: the terminal signals the whole process
    group, then launch signals each child. A second KeyboardInterrupt would break the teardown
    of the first (a traceback, exit code -2), and one that lands while the interpreter shuts
    down kills the process (Python restores the default handler then, but leaves an ignored
    signal ignored). rclpy's handler, installed by `rclpy.init` after this one, shuts the
    context down and then calls this handler.
    """

    def on_sigint(_signum: int, _frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)


def await_signal_shutdown(context: Context, timeout: float = 2.0) -> None:
    """Wait (at most `timeout`) until rclpy's signal thread has shut `context` down.

    On SIGINT the main thread may see KeyboardInterrupt while that thread is still triggering
    the executors' guard conditions; tearing the executor down then frees a guard condition it
    is about to trigger (a core dump showed the segfault in rcl_trigger_guard_condition). The
    context shutdown is its last step, so once the context is down the teardown is safe.
    """
    deadline = time.monotonic() + timeout
    while context.ok() and time.monotonic() < deadline:
        time.sleep(0.01)


@contextmanager
def woken_on_shutdown(executor: Executor) -> Iterator[None]:
    """Within the block, wake `executor` once its context has been shut down.

    rclpy's signal thread triggers the executors' wake-up guards and then shuts the context
    down at C level, which runs no on_shutdown callback. If the executor is between two waits
    at that moment, the wake-up is spent and `spin()` waits forever (seen as a rare hang on
    SIGTERM just after start-up). A watcher that polls the context closes that gap.
    """
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(SHUTDOWN_POLL_S):
            if not executor.context.ok():
                executor.wake()
                return

    watcher = threading.Thread(target=watch, name="shutdown_watcher", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()
