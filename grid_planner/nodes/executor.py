"""The executor every executable spins its nodes on: multi-threaded, with a two-phase stop."""

from __future__ import annotations

import concurrent.futures
import contextlib
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator

import rclpy
from rclpy.action import ActionServer
from rclpy.exceptions import InvalidHandle
from rclpy.executors import (
    ConditionReachedException,
    Executor,
    ExternalShutdownException,
    ShutdownException,
    TimeoutException,
)
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.service import Service
from rclpy.task import Future, Task

# How long waits may keep ending on a destroyed entity before the spin gives up (NodeExecutor).
INVALID_WAITS_LIMIT_S = 2.0
# The pause after such a wait: the destroying thread's moment to take the entity off its node.
INVALID_WAIT_PAUSE_S = 0.001
# How long after the last callback ended its answer's writer is kept (see `linger`).
ANSWER_LINGER_S = 0.25
# The entities whose callbacks send answers: services, action servers.
ANSWERING = (Service, ActionServer)


class InvalidWaits:
    """A run of waits that ended on a destroyed entity (see NodeExecutor)."""

    def __init__(self) -> None:
        self._since: float | None = None

    def too_long(self) -> bool:
        """Count one more such wait: whether the run has gone on for INVALID_WAITS_LIMIT_S
        (raise then); otherwise pause INVALID_WAIT_PAUSE_S first. A count would not do: at a
        1 us switch interval, 100 waits 1 ms apart once passed before the thread destroying an
        action server had taken it off its node."""
        now = time.monotonic()
        if self._since is None:
            self._since = now
        if now - self._since >= INVALID_WAITS_LIMIT_S:
            return True
        time.sleep(INVALID_WAIT_PAUSE_S)
        return False

    def end(self) -> None:
        """A wait succeeded: the run is over."""
        self._since = None


def _never() -> bool:
    return False


class NodeExecutor(Executor):
    """Runs callbacks on a pool of threads until `stop()` holds; `drain()` then ends them.

    Unlike rclpy's MultiThreadedExecutor:
    - a failing callback is logged, not raised out of the spin, so bad input costs one
      callback and never the node;
    - `stop` is part of every wait, so `wake()` after it turns true ends the spin at once;
    - `drain()` waits for every callback already handed to the pool, so each request the node
      took is answered through a service that still exists (the nodes have cancelled their
      work by then, so these callbacks end quickly); requests not yet taken stay untaken;
    - an entity that a callback destroys while this thread builds the wait set (lifecycle
      transitions destroy the bond's publisher and subscription, and cleanup the action
      server) makes rclpy raise from the wait: InvalidHandle, or RCLError ("action server
      pointer is invalid") for an action server, which rclpy destroys before it takes it off
      the node. That wait ends, and the next one, INVALID_WAIT_PAUSE_S later, leaves the
      entity out. Only such waits going on for INVALID_WAITS_LIMIT_S (an entity destroyed but
      still listed: a bug, not a race) are raised, rather than spinning on it;
    - `closing(entities)` lets a lifecycle cleanup destroy services and subscriptions without
      losing an answer: from then on their new callbacks are dropped before they take a
      request, and those already at work are handed back to wait for.
    """

    def __init__(self, num_threads: int, stop: Callable[[], bool]) -> None:
        super().__init__()
        self._stop = stop
        self._pool = concurrent.futures.ThreadPoolExecutor(
            num_threads, thread_name_prefix="callback"
        )
        # Guards the three below; notified whenever a handler has been run.
        self._changed = threading.Condition()
        # Each run of a handler handed to the pool and not yet ended.
        self._running: set[concurrent.futures.Future] = set()
        # Each handler handed to the pool and not yet finished, with the entity it serves. rclpy
        # offers a handler again until it has finished (a coroutine resumes so), and a second
        # run returns at once while the first holds the handler: only finishing counts.
        self._started: dict[Task, object] = {}
        # ids of the entities being closed: their new handlers are dropped (see `closing`).
        self._closed: set[int] = set()
        self._logger = rclpy.logging.get_logger("executor")
        self._invalid_waits = InvalidWaits()
        # id of an answering entity (or of None, for a task) -> when a run of a handler of it
        # last ended.
        self._last_ended: dict[int, float] = {}

    def spin_until_stopped(self) -> None:
        """Execute callbacks until `stop()` holds or the context is shut down."""
        while not self._stop() and self.context.ok():
            self._spin_once_impl(None, self._stop)

    def spin_once(self, timeout_sec: float | None = None) -> None:
        """Wait at most `timeout_sec` for one ready callback and start it on the pool."""
        self._spin_once_impl(timeout_sec, _never)

    def spin_once_until_future_complete(
        self, future: Future, timeout_sec: float | None = None
    ) -> None:
        """As `spin_once`, returning early once `future` is done."""
        future.add_done_callback(lambda _future: self.wake())
        self._spin_once_impl(timeout_sec, future.done)

    def _spin_once_impl(self, timeout_sec: float | None, condition: Callable[[], bool]) -> None:
        try:
            handler, entity, _node = self.wait_for_ready_callbacks(timeout_sec, None, condition)
        except (InvalidHandle, _rclpy.RCLError):
            if self._invalid_waits.too_long():
                raise
            return
        except (
            ConditionReachedException, ExternalShutdownException, ShutdownException,
            TimeoutException,
        ):
            return
        self._invalid_waits.end()
        with self._changed:
            if id(entity) in self._closed and handler not in self._started:
                # Never run: cancelled before it took anything (its coroutine closed), so
                # rclpy stops offering it.
                handler.cancel()
                return
            running = self._pool.submit(self._run, handler, entity)  # it ends under this lock
            self._started[handler] = entity
            self._running.add(running)
        running.add_done_callback(self._forget)

    def _run(self, handler: Task, entity: object) -> None:
        try:
            handler()
        finally:
            with self._changed:
                if handler.done():
                    self._started.pop(handler, None)
                if entity is None or isinstance(entity, ANSWERING):
                    self._last_ended[id(entity)] = time.monotonic()
                self._changed.notify_all()
        error = handler.exception() if handler.done() else None
        if isinstance(error, InvalidHandle) and isinstance(entity, ANSWERING):
            # A cleanup that waited its time for this callback destroyed its server meanwhile.
            self._logger.warning(f"a request's answer is lost: a cleanup destroyed its server "
                                 f"while the callback ran ({error!r})")
        elif error is not None:
            self._logger.error(f"a callback failed: {error!r}")

    def _forget(self, running: concurrent.futures.Future) -> None:
        with self._changed:
            self._running.discard(running)

    @contextlib.contextmanager
    def closing(self, entities: Iterable[object]) -> Iterator[Callable[[float], int]]:
        """While open, start no new callback of `entities` (services, subscriptions, action
        servers, ...); yields `settle(timeout)`, which waits at most `timeout` seconds for
        their callbacks already started to finish and returns how many have not.

        A lifecycle cleanup settles and then destroys the entities inside this block: rclpy
        sends a service's response after its callback returns, and fails if the service was
        destroyed in between. A request that arrives meanwhile stays untaken, as it would a
        moment later with the service gone. The entities must be destroyed before the block
        ends.
        """
        closed = {id(entity) for entity in entities}

        def unfinished() -> list[Task]:
            return [handler for handler, entity in self._started.items()
                    if id(entity) in closed]

        def settle(timeout: float) -> int:
            with self._changed:
                self._changed.wait_for(lambda: not unfinished(), timeout)
                return len(unfinished())

        with self._changed:
            self._closed |= closed
        try:
            yield settle
        finally:
            with self._changed:
                self._closed -= closed
                for key in closed:  # destroyed by now
                    self._last_ended.pop(key, None)

    def linger(self, entities: Iterable[object] | None = None) -> None:
        """Wait until ANSWER_LINGER_S have passed since the last callback of `entities` (every
        service and action server when None) or a task (an action goal's execution, which
        sends its result) ended; timers and subscriptions send no answer and do not count.

        An answer (a service response, an action result) leaves in the writer's `write`, but
        the reader's side still reads it from the writer's transport: a writer destroyed at
        once, with its process exiting after it, lost about one answer in sixteen here (none
        of 100 a tenth of a second later). Called before the entities that answered are
        destroyed."""
        with self._changed:
            if entities is None:
                ended = self._last_ended.values()
            else:
                ended = [self._last_ended.get(key, -math.inf)
                         for key in {id(None), *map(id, entities)}]
            left = max(ended, default=-math.inf) + ANSWER_LINGER_S - time.monotonic()
        if left > 0.0:
            time.sleep(left)

    def wait_running(self, timeout: float) -> bool:
        """Whether every callback handed to the pool so far ends within `timeout` seconds."""
        with self._changed:
            running = list(self._running)
        _done, pending = concurrent.futures.wait(running, timeout)
        return not pending

    def drain(self, timeout: float) -> bool:
        """Whether every callback handed to the pool ends within `timeout` seconds; none is
        taken from now on.

        None is dropped: a handler that never runs leaves its coroutine un-awaited (a warning
        at exit) and its request taken but unanswered.
        """
        self._pool.shutdown(wait=False)
        return self.wait_running(timeout)
