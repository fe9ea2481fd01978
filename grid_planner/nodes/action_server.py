"""rclpy's ActionServer, ready for requests from the moment it joins its node."""

from __future__ import annotations

from rclpy.action import ActionServer


class ReadyActionServer(ActionServer):
    """An ActionServer whose request handlers' logger exists before the server joins its node.

    rclpy (jazzy) adds the server to its node first and sets that logger after, so a request
    taken in between (a client that knew the server of an earlier configuration) failed with
    AttributeError and was never answered. Same arguments as ActionServer.
    """

    def __init__(self, node, *args, **kwargs) -> None:
        self._logger = node.get_logger().get_child("action_server")
        super().__init__(node, *args, **kwargs)
