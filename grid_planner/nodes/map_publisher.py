"""map_publisher: load a map_server YAML map and publish it latched, like nav2_map_server."""

from __future__ import annotations

import sys

from nav_msgs.msg import OccupancyGrid
from nav_msgs.srv import GetMap
from rclpy.node import Node

from grid_planner.grid.errors import MapLoadError
from grid_planner.grid.map_io import load_map
from grid_planner.nodes.conversions import map_to_msg
from grid_planner.nodes.parameters import declare_validated
from grid_planner.nodes.paths import install_source
from grid_planner.nodes.qos import MAP_QOS
from grid_planner.nodes.steady_timers import steady_timer

RESTAMP_POLL_S = 0.1  # how often a map stamped 0 (no /clock yet) looks at the clock again


class MapPublisher(Node):
    """Publishes the map of `yaml_filename` once on `topic_name` and serves map_server/map."""

    def __init__(self, **node_options) -> None:
        super().__init__("map_publisher", **node_options)
        declare_validated(self, {
            "yaml_filename": ("", "map_server YAML file (image path relative to it)", None),
            "frame_id": ("map", "frame of the published map", None),
            "topic_name": ("map", "topic the map is published on", None),
        }, read_only=frozenset({"yaml_filename", "frame_id", "topic_name"}))
        yaml_filename = self.get_parameter("yaml_filename").value
        frame_id = self.get_parameter("frame_id").value
        topic = self.get_parameter("topic_name").value
        if not yaml_filename:
            raise MapLoadError("parameter yaml_filename is empty: name a map_server YAML file")
        occupancy = load_map(yaml_filename, frame_id=frame_id)
        self._msg = map_to_msg(occupancy, self.get_clock().now().to_msg())
        self._publisher = self.create_publisher(OccupancyGrid, topic, MAP_QOS)
        self._service = self.create_service(GetMap, "map_server/map", self._on_get_map)
        self._publisher.publish(self._msg)
        self._restamp_timer = None
        if self.get_clock().now().nanoseconds == 0:  # simulated time before any /clock
            self._restamp_timer = steady_timer(self, RESTAMP_POLL_S, self._restamp)
        counts = occupancy.value_counts()
        self.get_logger().info(
            f"ready: published {yaml_filename} on '{self._publisher.topic_name}' "
            f"({occupancy.width} x {occupancy.height} cells at {occupancy.resolution} m, "
            f"frame '{frame_id}'; {counts['free']} free, {counts['occupied']} occupied, "
            f"{counts['unknown']} unknown); {install_source()}"
        )

    def _restamp(self) -> None:
        """Stamp the map again and publish it once simulated time has begun, as map_server's
        map is stamped when it is configured, after the clock came."""
        now = self.get_clock().now()
        if now.nanoseconds == 0:
            return
        self.destroy_timer(self._restamp_timer)
        self._msg.header.stamp = self._msg.info.map_load_time = now.to_msg()
        self._publisher.publish(self._msg)

    def _on_get_map(self, _request: GetMap.Request, response: GetMap.Response) -> GetMap.Response:
        response.map = self._msg
        return response


def main(args: list[str] | None = None) -> int:
    """Run map_publisher until shutdown; the exit code."""
    from grid_planner.nodes.runtime import spin_nodes

    return spin_nodes([MapPublisher], args=args)


if __name__ == "__main__":
    sys.exit(main())
