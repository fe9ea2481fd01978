"""Helpers for integration tests over real DDS: node subprocesses and a client node in-process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import rclpy
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.context import Context
from rclpy.exceptions import InvalidHandle
from rclpy.executors import ExternalShutdownException, ShutdownException, SingleThreadedExecutor
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.waitable import NumberOfEntities, Waitable

from grid_planner.nodes.executor import InvalidWaits, NodeExecutor

BIN_DIR = Path(sys.executable).parent
# The longest wait of a ClientNode's spin, so that `close` ends it soon.
CLIENT_WAIT_S = 0.1
# What a node prints when its teardown hung and its deadline ended it (exit 0).
STOP_DEADLINE = "the stop has not finished after"
# What faulthandler prints when it ends a process whose Python threads could not run (exit 1).
HARD_LIMIT = "Timeout (0:"


class NodeProcess:
    """One of the package's executables, run as a subprocess with its output in a log file."""

    def __init__(
        self, executable: str, args: Sequence[str], log_dir: Path, unset: Sequence[str] = ()
    ) -> None:
        """Start `executable` with this environment minus the variables named in `unset`."""
        self.log_path = log_dir / f"{executable}-{uuid.uuid4().hex[:8]}.log"
        self._log = self.log_path.open("wb")
        env = dict(os.environ, PYTHONUNBUFFERED="1", RCUTILS_LOGGING_BUFFERED_STREAM="0")
        for name in unset:
            env.pop(name, None)
        self.process = subprocess.Popen(
            [str(BIN_DIR / executable), *args],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=env,
        )

    def output(self) -> str:
        """Everything the process printed so far."""
        return self.log_path.read_text(errors="replace")

    def wait_for_output(self, text: str, timeout: float = 30.0) -> None:
        """Wait until `text` appears in the output; fail with the output if it does not."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not printed within {timeout} s:\n{self.output()}")

    def stop(self, sig: int = signal.SIGINT, timeout: float = 15.0) -> int:
        """Send `sig`, wait for the exit and return the exit code (kills after `timeout`).

        Fails when faulthandler ended the process (a stop that hung with the interpreter's
        lock held); warns, with the stacks, when the stop deadline ended it.
        """
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        text = self.output()
        # Ended by faulthandler, a process exits 1: the code a refused configuration gives too.
        assert HARD_LIMIT not in text, f"a hung stop was ended by faulthandler:\n{text}"
        if STOP_DEADLINE in text:
            warnings.warn(f"a teardown was ended by its deadline:\n{text}", stacklevel=2)
        return self.process.returncode


@contextmanager
def running(
    executable: str, args: Sequence[str], log_dir: Path, ready_text: str | None = "ready:"
) -> Iterator[NodeProcess]:
    """Run an executable for the duration of a `with` block, waiting for its ready line."""
    proc = NodeProcess(executable, args, log_dir)
    try:
        if ready_text:
            proc.wait_for_output(ready_text)
        yield proc
    finally:
        proc.stop()


class WaitWitness(Waitable):
    """A waitable with nothing to wait on, in every wait set of its node. rclpy asks each
    waitable whether it is ready only after the wait has ended normally: then it calls
    `waited`."""

    def __init__(self, waited: Callable[[], None]) -> None:
        super().__init__(ReentrantCallbackGroup())
        self._waited = waited

    def is_ready(self, wait_set: object) -> bool:
        self._waited()
        return False

    def take_data(self) -> None:
        return None

    async def execute(self, taken_data: object) -> None:
        return None

    def get_num_entities(self) -> NumberOfEntities:
        return NumberOfEntities()

    def add_to_wait_set(self, wait_set: object) -> None:
        return None


class ClientNode:
    """An rclpy node in the test process, spun in a background thread.

    A test that destroys a client it made while this thread builds its wait set makes rclpy
    raise out of the wait: InvalidHandle for a service client, RCLError ("action client
    pointer is invalid") for an ActionClient. rclpy's own `spin` then ends, silently in a
    daemon thread, and every later call of the test module waits for answers nobody collects
    (it did, after test_puzzle_action's burst of goals). Here that wait is retried instead,
    as the nodes' executor does (`nodes.executor.InvalidWaits`). rclpy builds its wait set again
    whenever a node's change wakes it, so a spin_once that raised may have waited normally
    before: a `WaitWitness` ends the run of invalid waits at every wait that ended normally.
    """

    def __init__(self, name: str = "test_client", context: Context | None = None) -> None:
        self.node = Node(f"{name}_{uuid.uuid4().hex[:6]}", context=context)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)
        self._closing = threading.Event()
        self._invalid_waits = InvalidWaits()
        self.node.add_waitable(WaitWitness(self._invalid_waits.end))
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        executor = self.executor
        invalid_waits = self._invalid_waits
        while executor.context.ok() and not self._closing.is_set():
            try:
                executor.spin_once(timeout_sec=CLIENT_WAIT_S)
            except (InvalidHandle, _rclpy.RCLError):
                # An entity destroyed during the wait: the next wait leaves it out. An
                # ActionClient is destroyed before it leaves the node's list, so the thread
                # destroying it gets a moment to finish before the next wait.
                if invalid_waits.too_long():
                    raise
                continue
            except (ExternalShutdownException, ShutdownException):
                return

    @property
    def spinning(self) -> bool:
        """Whether the spin thread still runs."""
        return self._thread.is_alive()

    def call(self, client, request, timeout: float = 30.0, attempts: int = 3):
        """Call a service and return its response (fails if it does not answer in time).

        A server that has not yet matched a new client's reply reader drops the reply once
        the wait of the Fast DDS profile runs out (2 s in the tests, 100 ms without it;
        "failed to send response (timeout)"), so an unanswered request is sent again, up to
        `attempts` times, waiting `timeout` each time.
        """
        assert client.wait_for_service(timeout_sec=timeout), f"{client.srv_name} not available"
        return first_answer(
            lambda: client.call_async(request), [timeout] * attempts,
            f"{client.srv_name} did not answer {attempts} requests, {timeout} s each",
        )

    def close(self) -> None:
        """Stop spinning and destroy the node. The spin thread ends (its wait is at most
        CLIENT_WAIT_S) before the executor is shut down: a shutdown while the thread builds a
        wait set leaves it holding the executor's guard conditions after they are gone."""
        self._closing.set()
        self._thread.join(5.0)
        self.executor.shutdown()
        self.node.destroy_node()


def first_answer(send: Callable[[], object], waits: Iterable[float], failure: str) -> object:
    """The result of the first of the futures `send` returns that completes: `send` is called
    again whenever the latest request has waited its entry of `waits` unanswered (a lost
    reply, see `ClientNode.call`); AssertionError(`failure`) once `waits` runs out."""
    done = threading.Event()
    futures = []
    for wait in waits:
        future = send()
        future.add_done_callback(lambda _f: done.set())
        futures.append(future)
        if done.wait(wait):
            return next(f for f in futures if f.done()).result()
    raise AssertionError(failure)


def send_goal(action, goal, feedback_callback=None, timeout: float = 30.0, attempts: int = 3):
    """Send an action goal and return its ClientGoalHandle (check `.accepted`).

    The goal request is a service request, so its reply is lost the same way as in
    `ClientNode.call` while the server has not yet matched this client's reply reader: an
    unanswered goal is sent again (a new goal id), up to `attempts` times within `timeout`.
    """
    return first_answer(
        lambda: action.send_goal_async(goal, feedback_callback=feedback_callback),
        [timeout / attempts] * attempts,
        f"no answer to {attempts} goal requests within {timeout} s",
    )


def goal_result(handle, timeout: float = 60.0, every: float = 10.0):
    """Wait for a goal's end and return the action's result response (`.status`, `.result`).

    The result request is asked again every `every` seconds (a server answers every result
    request of a goal, so asking twice is harmless), in case a reply was lost as above.
    """
    deadline = time.monotonic() + timeout

    def waits() -> Iterator[float]:
        while (left := deadline - time.monotonic()) > 0:
            yield min(every, left)

    return first_answer(handle.get_result_async, waits(), f"no result within {timeout} s")


def stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state, ppid, ...); None once the
    process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (0 once it is gone): a sign it is busy."""
    fields = stat_fields(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    """The resident set size of a process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def wait_until(condition: Callable[[], bool], timeout: float = 20.0, what: str = "") -> None:
    """Poll `condition` until it holds; fail naming `what` when it does not within `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what or condition}")


@contextmanager
def ros_client(name: str = "test_client", domain_id: int | None = None) -> Iterator[ClientNode]:
    """rclpy initialised for the block, with a spinning client node; in the session's domain,
    or in `domain_id` (a context of its own)."""
    context = None if domain_id is None else Context()
    owns_context = context is not None or not rclpy.ok()
    if owns_context:
        rclpy.init(context=context, domain_id=domain_id)
    client = ClientNode(name, context)
    try:
        yield client
    finally:
        client.close()
        if owns_context:
            rclpy.shutdown(context=context)


@contextmanager
def spun(nodes: Sequence[Node], make_executor=NodeExecutor, threads: int = 4) -> Iterator[object]:
    """Spin `nodes` on `make_executor(threads, stop)` in a thread of its own and yield the
    executor; after, stop it, let its callbacks end, shut it down and destroy the nodes."""
    stop = threading.Event()
    executor = make_executor(threads, stop.is_set)
    for node in nodes:
        executor.add_node(node)
    spinner = threading.Thread(target=executor.spin_until_stopped)
    spinner.start()
    try:
        yield executor
    finally:
        stop.set()
        executor.wake()
        spinner.join(10.0)
        executor.drain(5.0)
        executor.shutdown(timeout_sec=0.0)
        for node in nodes:
            node.destroy_node()
