"""rclpy's ActionServer, ready for requests from the moment it joins its node, and sending each
goal's result before it counts as done."""

from __future__ import annotations

import threading

from rclpy.action import ActionServer


class ReadyActionServer(ActionServer):
    """An ActionServer whose request handlers' logger exists before the server joins its node,
    and whose goals send their awaited results themselves.

    rclpy (jazzy) adds the server to its node first and sets that logger after, so a request
    taken in between (a client that knew the server of an earlier configuration) failed with
    AttributeError and was never answered. And rclpy sends a result from a task it schedules
    once the goal's execution has ended: a server destroyed in between (cleanup, shutdown, a
    signal) lost the result of the goal it had just ended. Here the goal's own execution sends
    the results asked for so far, and `wait_idle` waits for the executions under way. Same
    arguments as ActionServer.
    """

    def __init__(self, node, *args, **kwargs) -> None:
        self._logger = node.get_logger().get_child("action_server")
        self._results = threading.Condition()
        self._awaited: dict[bytes, list] = {}  # goal id -> result requests not yet answered
        self._executing = 0
        super().__init__(node, *args, **kwargs)

    async def _execute_goal(self, execute_callback, goal_handle) -> None:
        goal = bytes(goal_handle.goal_id.uuid)
        with self._results:
            self._executing += 1
        try:
            await super()._execute_goal(execute_callback, goal_handle)
        finally:
            with self._results:  # after the result is set: no request is added from now on
                awaited = self._awaited.pop(goal, [])
            result = self._result_futures.get(goal)
            if result is not None and result.done():
                for header in awaited:
                    self._send_result_response(header, result)
            with self._results:
                self._executing -= 1
                self._results.notify_all()

    async def _execute_get_result_request(self, request_header_and_message) -> None:
        header, request = request_header_and_message
        goal = bytes(request.goal_id.uuid)
        with self._results:
            result = self._result_futures.get(goal)
            pending = result is not None and not result.done()
            if pending:
                self._awaited.setdefault(goal, []).append(header)
        if pending:
            return
        if result is None:  # an unknown goal: rclpy answers STATUS_UNKNOWN
            await super()._execute_get_result_request(request_header_and_message)
            return
        self._send_result_response(header, result)

    def wait_idle(self, timeout: float) -> bool:
        """Whether every goal execution under way ends (its awaited results sent) within
        `timeout` seconds."""
        with self._results:
            return self._results.wait_for(lambda: self._executing == 0, timeout)
