"""rclpy's ActionServer, ready for requests from the moment it joins its node, sending each
goal's result before it counts as done, and saying whose results nobody has asked for yet."""

from __future__ import annotations

import threading
import time

from rclpy.action import ActionServer

# How long after a stop ends a goal the node still expects its client to ask for the result.
# Clients ask as soon as the goal is accepted, so only a request delayed in transit comes
# later; the stop waits this long at most, and only for goals it ended without a request.
CLAIM_WAIT_S = 1.0


class ReadyActionServer(ActionServer):
    """An ActionServer whose request handlers' logger exists before the server joins its node,
    and whose goals send their awaited results themselves.

    rclpy (jazzy) adds the server to its node first and sets that logger after, so a request
    taken in between (a client that knew the server of an earlier configuration) failed with
    AttributeError and was never answered. And rclpy sends a result from a task it schedules
    once the goal's execution has ended: a server destroyed in between (cleanup, shutdown, a
    signal) lost the result of the goal it had just ended. Here the goal's own execution sends
    the results asked for so far, and `wait_idle` waits for the executions under way, counted
    from the moment rclpy schedules them: a goal accepted just before a cleanup, whose
    execution had not yet started, was not waited for and never answered. A goal
    that ends while its node does not serve (a stop or a deactivation ended it: the node's
    `serving` is false) before its client's result request has arrived is remembered for
    CLAIM_WAIT_S (`claims_pending`, `wait_claimed`), so the stop can take that request before
    the server goes. Same arguments as ActionServer.
    """

    def __init__(self, node, *args, **kwargs) -> None:
        self._logger = node.get_logger().get_child("action_server")
        self._results = threading.Condition()
        self._awaited: dict[bytes, list] = {}  # goal id -> result requests not yet answered
        self._unclaimed: dict[bytes, float] = {}  # goal id -> when it ended, no request yet
        self._executing: set[bytes] = set()  # goals whose execution is under way
        self._asked: set[bytes] = set()  # those of them whose result was asked for
        super().__init__(node, *args, **kwargs)

    def notify_execute(self, goal_handle, execute_callback) -> None:
        goal = bytes(goal_handle.goal_id.uuid)
        if execute_callback is not None or self._execute_callback is not None:
            with self._results:  # under way from now: the task may start any time later
                self._executing.add(goal)
        try:
            super().notify_execute(goal_handle, execute_callback)
        except BaseException:  # no task was made (no executor, or one shut down)
            with self._results:
                self._executing.discard(goal)
                self._results.notify_all()
            raise

    async def _execute_goal(self, execute_callback, goal_handle) -> None:
        goal = bytes(goal_handle.goal_id.uuid)
        try:
            await super()._execute_goal(execute_callback, goal_handle)
        finally:
            with self._results:  # after the result is set: no request is added from now on
                awaited = self._awaited.pop(goal, [])
                if goal not in self._asked and not getattr(self._node, "serving", False):
                    self._remember_unclaimed(goal)
            result = self._result_futures.get(goal)
            if result is not None and result.done():
                for header in awaited:
                    self._send_result_response(header, result)
            with self._results:
                self._executing.discard(goal)
                self._asked.discard(goal)
                self._results.notify_all()

    async def _execute_get_result_request(self, request_header_and_message) -> None:
        header, request = request_header_and_message
        goal = bytes(request.goal_id.uuid)
        with self._results:
            result = self._result_futures.get(goal)
            pending = result is not None and not result.done()
            if pending:
                self._awaited.setdefault(goal, []).append(header)
            if goal in self._executing:  # answered here or by the execution: not unclaimed
                self._asked.add(goal)
        try:
            if pending:
                return
            if result is None:  # an unknown goal: rclpy answers STATUS_UNKNOWN
                await super()._execute_get_result_request(request_header_and_message)
                return
            self._send_result_response(header, result)
        finally:
            with self._results:  # answered (or awaited): a stop need not wait for it
                if self._unclaimed.pop(goal, None) is not None:
                    self._results.notify_all()

    def _remember_unclaimed(self, goal: bytes) -> None:
        """Note that `goal` ended with no result request, forgetting notes past their wait
        (under the lock)."""
        now = time.monotonic()
        for old in [key for key, ended in self._unclaimed.items()
                    if now - ended >= CLAIM_WAIT_S]:
            del self._unclaimed[old]
        self._unclaimed[goal] = now

    def claims_pending(self) -> float:
        """Seconds a stop should still take requests and tasks: CLAIM_WAIT_S while a goal's
        execution is under way (it may not have started: its task waits for the executor),
        else until each goal ended less than CLAIM_WAIT_S ago without a result request is that
        old (0.0 when there is none)."""
        with self._results:
            return CLAIM_WAIT_S if self._executing else self._claim_wait_left()

    def _claim_wait_left(self) -> float:
        now = time.monotonic()
        return max([0.0] + [ended + CLAIM_WAIT_S - now for ended in self._unclaimed.values()])

    def wait_claimed(self) -> None:
        """Wait while `claims_pending` (at most CLAIM_WAIT_S): for result requests that the
        node's executor is still taking."""
        with self._results:
            while (left := self._claim_wait_left()) > 0.0:
                self._results.wait(left)

    def wait_idle(self, timeout: float) -> bool:
        """Whether every goal execution under way ends (its awaited results sent) within
        `timeout` seconds."""
        with self._results:
            return self._results.wait_for(lambda: not self._executing, timeout)
