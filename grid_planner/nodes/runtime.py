"""Start-up and shutdown of every executable: one path, whatever signals arrive and when.

The console scripts enter through `entry` and `run_entry`. Before anything heavy is imported,
SIGINT and SIGTERM are routed to a `Shutdown` watcher thread instead of raising
KeyboardInterrupt at a random line: a signal during the imports, the JIT warm-up, a plan or a
solve, or a second and third Ctrl-C during the teardown, all lead to the same orderly stop.

The stop, in this order, once:
1. as soon as the first signal arrives, the watcher calls `begin_shutdown()` on every node that
   has one (`Stoppable`): running searches are cancelled, queued requests are refused;
2. the executor stops taking new work; callbacks still running finish (bounded by
   SHUTDOWN_GRACE_S) and their callers get an answer. While an action goal the stop ended
   still waits for its client's result request (`ClaimsResults`, at most a second), the
   executor goes on taking callbacks, within the same SHUTDOWN_GRACE_S. The last answers
   get a moment to be read (`NodeExecutor.linger`) before their writers go;
3. the nodes are destroyed (timers, servers, subscriptions) in reverse order of creation, then
   the executor and the ROS context; the exit code is 0.
A lifecycle node fits the same protocol: `begin_shutdown()` cancels, `destroy_node()` finalises.

The teardown and, for the console scripts, the interpreter's exit after it have a deadline
(`bound_the_stop`): a destroy or an exit that hangs in a library never keeps a stopped node
alive. After TEARDOWN_LIMIT_S the process prints where each thread was and leaves with 0; if no
Python thread can run by then, faulthandler prints the stacks and ends it with 1 a little later.
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib
import os
import select
import signal
import socket
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from rclpy.node import Node

    from grid_planner.nodes.executor import NodeExecutor

CLAIM_POLL_S = 0.05  # how often the stop checks whether late result requests have come
SHUTDOWN_GRACE_S = 4.0  # teardown waits this long for running callbacks (launch kills after 5 s)
CONTEXT_POLL_S = 0.25  # how often the watcher checks for a context shut down by other means
SPARE_THREADS = 2  # executor threads beyond the nodes' own needs (parameters, busy answers)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# From the start of the teardown to the end of the process (the teardown's own waits add up to
# about 14 s at worst: the callbacks, deactivation, the goal worker, the bond).
TEARDOWN_LIMIT_S = 20.0
# How much later faulthandler ends a process whose Python threads cannot run.
HARD_LIMIT_EXTRA_S = 2.0


@runtime_checkable
class Stoppable(Protocol):
    """A node that has work to cancel when shutdown begins."""

    def begin_shutdown(self) -> None:
        """Cancel running work and refuse new work; called once, from the watcher thread.

        Must return at once (set events, no joins) and must not raise.
        """


@runtime_checkable
class ClaimsResults(Protocol):
    """A node whose action goals may end before their clients have asked for the results, or
    whose accepted goals' executions still wait for the executor."""

    def claims_pending(self) -> float:
        """Seconds the stop should go on taking result requests and tasks (0.0: none is
        expected)."""


class Shutdown:
    """The process-wide stop request: set once by a signal, the context or the runtime itself.

    SIGINT and SIGTERM reach a socket through `signal.set_wakeup_fd`, so the watcher thread
    wakes at once even while the main thread is blocked in C (a DDS wait, a compiled kernel);
    the Python-level handlers do nothing, so no KeyboardInterrupt is ever raised.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requested = threading.Event()
        self._hooks_done = threading.Event()
        self.reason = ""
        self._hooks: list[Callable[[], None]] = []
        self._context = None
        self._reader, writer = socket.socketpair()
        writer.setblocking(False)
        self._writer = writer  # kept open: the wake-up fd must outlive the handlers
        signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        for signum in STOP_SIGNALS:
            signal.signal(signum, _ignore)
        threading.Thread(target=self._watch, name="shutdown_watcher", daemon=True).start()

    @property
    def requested(self) -> bool:
        """Whether shutdown has begun."""
        return self._requested.is_set()

    def watch_context(self, context: object) -> None:
        """Also stop when `context` is shut down by other means (an rclpy.shutdown() call)."""
        self._context = context

    def add_hook(self, hook: Callable[[], None]) -> None:
        """Run `hook` when shutdown begins (at once if it already has)."""
        with self._lock:
            if not self._requested.is_set():
                self._hooks.append(hook)
                return
        _run_hook(hook)

    def request(self, reason: str) -> None:
        """Begin shutdown and run every hook once; later calls wait until the hooks have run."""
        with self._lock:
            first = not self._requested.is_set()
            if first:
                self.reason = reason
                self._requested.set()
                hooks, self._hooks = self._hooks, []
        if not first:
            self._hooks_done.wait(SHUTDOWN_GRACE_S)
            return
        for hook in hooks:
            _run_hook(hook)
        self._hooks_done.set()

    def ignore_further_signals(self) -> None:
        """From now on SIGINT and SIGTERM do nothing (main thread only).

        Once the stop has begun a further signal has nothing left to ask for, and Python resets
        handlers that are Python functions to the default action while it finalises, so a late
        second Ctrl-C would otherwise kill the exiting process (exit code -2).
        """
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)

    def _watch(self) -> None:
        while True:
            readable, _, _ = select.select([self._reader], [], [], CONTEXT_POLL_S)
            if readable:
                for signum in self._reader.recv(64):
                    if signum in STOP_SIGNALS:  # other handlers' signals reach the fd too
                        self.request(signal.Signals(signum).name)
            context = self._context
            if context is not None and not context.ok():
                self.request("the ROS context was shut down")


def _ignore(_signum: int, _frame: object) -> None:
    """Python-level handler: the signal was already written to the watcher's socket."""


def _run_hook(hook: Callable[[], None]) -> None:
    try:
        hook()
    except Exception as error:  # one faulty hook must not keep the others from running
        print(f"shutdown hook {hook!r} failed: {error!r}", file=sys.stderr)


_shutdown: Shutdown | None = None


def install_shutdown() -> Shutdown:
    """The process's Shutdown, created (signal handling installed) on first use.

    Python installs signal handlers only from the main thread, so the runtime must start there.
    """
    global _shutdown
    if _shutdown is None:
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("the node runtime must start in the main thread")
        _shutdown = Shutdown()
    return _shutdown


def _creation_refusal(error: Exception, argv: Sequence[str]) -> str:
    """The line printed for a node that could not be created: the faults of the `__ns` remap
    rules rcl refuses, where rcl refused the node (its own message can name another fault),
    else the error."""
    from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy

    from grid_planner.nodes.ros_names import namespace_rule_faults

    faults = namespace_rule_faults(argv) if isinstance(error, _rclpy.RCLError) else []
    return "; ".join(faults) or str(error)


def spin_nodes(
    node_factories: Sequence[Callable[[], Node]],
    num_threads: int = 0,
    args: Sequence[str] | None = None,
    ready_message: str | None = None,
) -> int:
    """Create the nodes, spin them on one multi-threaded executor until shutdown; exit code.

    The executor gets at least `num_threads` threads, and enough for every node's
    `callback_threads` (the callbacks a node may hold at once) plus SPARE_THREADS. A node
    refusing its configuration (a ValueError or a parameter of the wrong type), or that rcl
    refuses to make (an invalid namespace), prints one line and exits with 1; a stop request
    before or during start-up is a clean stop (exit 0).
    `ready_message` is logged (with the thread count) once all nodes exist.
    """
    shutdown = install_shutdown()
    argv = list(args) if args is not None else sys.argv
    program = Path(argv[0]).name if argv else "node"
    if shutdown.requested:
        return 0
    import rclpy
    from rclpy.exceptions import ParameterException
    from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
    from rclpy.signals import SignalHandlerOptions

    from grid_planner.nodes.param_files import remember_arguments

    remember_arguments(argv, len(node_factories))
    try:
        rclpy.init(args=argv, signal_handler_options=SignalHandlerOptions.NO)
    except Exception as error:  # malformed --ros-args: rcl says which
        print(f"{program}: {error}", file=sys.stderr)
        return 1
    shutdown.watch_context(rclpy.get_default_context())
    nodes: list[Node] = []
    executor = None
    try:
        for factory in node_factories:
            if shutdown.requested:
                return 0
            try:
                with warnings.catch_warnings():
                    # rclpy's aside when rcl refused the node it was making.
                    warnings.filterwarnings("ignore", "Failed to fini rosout publisher")
                    node = factory()
            except Exception as error:
                if not rclpy.ok():
                    return 0  # the context was shut down under the node being created
                if not isinstance(error, (ValueError, ParameterException, _rclpy.RCLError)):
                    raise
                print(f"{program}: {_creation_refusal(error, argv)}", file=sys.stderr)
                return 1
            nodes.append(node)
            if isinstance(node, Stoppable):
                shutdown.add_hook(node.begin_shutdown)
        needed = sum(getattr(node, "callback_threads", 1) for node in nodes) + SPARE_THREADS
        executor = _spin(nodes, max(num_threads, needed), shutdown, ready_message)
        return 0
    finally:
        shutdown.request("the runtime is stopping")
        shutdown.ignore_further_signals()
        release = bound_the_stop(program)
        _teardown(executor, nodes, shutdown.reason, program)
        release()  # a caller that goes on living is not ended later


def bound_the_stop(program: str) -> Callable[[], None]:
    """End the process TEARDOWN_LIMIT_S from now unless the returned `release` is called first.

    A watcher thread prints where every thread was and leaves with 0: the node's work was
    cancelled and answered before the teardown began, so what hangs is only its cleanup. A
    hang that holds the interpreter's lock stops that thread too; faulthandler's own thread
    then prints the stacks and ends the process with 1.
    """
    released = threading.Event()
    # Without a stderr that has a file descriptor (an embedding that replaced it), the watcher
    # thread alone keeps the deadline.
    with contextlib.suppress(AttributeError, OSError, RuntimeError, ValueError):
        faulthandler.dump_traceback_later(TEARDOWN_LIMIT_S + HARD_LIMIT_EXTRA_S, exit=True)

    def leave() -> None:
        if released.wait(TEARDOWN_LIMIT_S):
            return
        try:
            print(f"{program}: the stop has not finished after {TEARDOWN_LIMIT_S:.0f} s; "
                  "leaving without the rest of it. Where each thread was:", file=sys.stderr,
                  flush=True)
            faulthandler.dump_traceback(all_threads=True)
            sys.stderr.flush()
        finally:
            os._exit(0)

    def release() -> None:
        released.set()
        faulthandler.cancel_dump_traceback_later()

    threading.Thread(target=leave, name="stop_deadline", daemon=True).start()
    return release


def _spin(
    nodes: list[Node], num_threads: int, shutdown: Shutdown, ready_message: str | None
) -> NodeExecutor | None:
    """Spin `nodes` until shutdown is requested; the executor (None if stopped before)."""
    import rclpy

    from grid_planner.nodes.executor import NodeExecutor

    if shutdown.requested:
        return None
    executor = NodeExecutor(num_threads, stop=lambda: shutdown.requested)
    for node in nodes:
        executor.add_node(node)
    shutdown.add_hook(executor.wake)
    if ready_message:
        rclpy.logging.get_logger("bringup").info(
            f"{ready_message} on {num_threads} executor threads"
        )
    executor.spin_until_stopped()
    return executor


def _teardown(
    executor: NodeExecutor | None, nodes: list[Node], reason: str, program: str
) -> None:
    """Let running callbacks answer, then destroy the nodes, the executor and the context."""
    import rclpy

    if executor is not None:
        logger = rclpy.logging.get_logger(program)
        logger.info(f"shutting down: {reason}")
        deadline = time.monotonic() + SHUTDOWN_GRACE_S  # for both waits together
        if executor.wait_running(SHUTDOWN_GRACE_S):
            _take_late_result_requests(executor, nodes, deadline)
        if not executor.drain(max(0.0, deadline - time.monotonic())):
            logger.warning(
                f"callbacks still running after {SHUTDOWN_GRACE_S:.0f} s; leaving without them"
            )
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)  # destroying nodes under running callbacks is what breaks
        executor.linger()
        executor.shutdown(timeout_sec=0.0)
    for node in reversed(nodes):
        node.destroy_node()
    rclpy.try_shutdown()


def _take_late_result_requests(
    executor: NodeExecutor, nodes: list[Node], deadline: float
) -> None:
    """Go on taking callbacks (until `deadline`, on the monotonic clock) while a goal ended by
    the stop still expects its client's result request, or an accepted goal's execution has
    not yet run (it then ends at once and answers); new work among them is refused, as the
    node is shutting down."""

    def left() -> float:
        return max([0.0] + [node.claims_pending() for node in nodes
                            if isinstance(node, ClaimsResults)])

    while (wait := left()) > 0.0 and executor.context.ok() and time.monotonic() < deadline:
        executor.spin_once(min(wait, CLAIM_POLL_S))


def run_entry(module: str, early_signals: Sequence[int]) -> int:
    """Run executable `module`'s main under the runtime's signal handling (see `entry`).

    `early_signals` are stop signals that arrived before the handling was installed: they
    request the stop at once.
    """
    shutdown = install_shutdown()
    for signum in early_signals:
        shutdown.request(signal.Signals(signum).name)
    try:
        loaded = importlib.import_module(module)
        return 0 if shutdown.requested else loaded.main()
    finally:
        shutdown.ignore_further_signals()
        bound_the_stop(module.rsplit(".", 1)[-1])  # the interpreter's exit, which comes next
