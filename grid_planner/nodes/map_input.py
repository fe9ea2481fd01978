"""The planner's map input: nav_msgs/OccupancyGrid, or a Nav2 costmap_raw (nav2_msgs/Costmap).

Nav2's global costmap publishes `costmap` (OccupancyGrid, costs squeezed into 1..98) and
`costmap_raw` (nav2_msgs/Costmap, the exact 0..255 costs). The planner follows whichever its map
topic carries, by the type its publishers use: `MapFollower` subscribes as OccupancyGrid, looks
at the topic's publishers every `POLL_PERIOD_S`, and switches the subscription to
nav2_msgs/Costmap when one of them publishes that (exact costs win), back to OccupancyGrid when
none does. nav2_msgs is imported only here, so the planner needs it only to read costmap_raw.
Partial updates arrive on `<map topic>_updates` as map_msgs/OccupancyGridUpdate (`update_class`,
None where map_msgs is missing: then the planner follows full maps only).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from nav_msgs.msg import OccupancyGrid
from rclpy.node import Node
from rclpy.qos import QoSProfile

from grid_planner.grid.costs import costmap_value
from grid_planner.grid.errors import UnsupportedMapError
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.grid.patching import MapPatch
from grid_planner.nodes.conversions import msg_to_map, quaternion_norm, quaternion_to_yaw

COSTMAP_TYPE = "nav2_msgs/msg/Costmap"
OCCUPANCY_GRID_TYPE = "nav_msgs/msg/OccupancyGrid"
POLL_PERIOD_S = 0.5


def costmap_class() -> type | None:
    """nav2_msgs/Costmap, or None where nav2_msgs is not installed."""
    try:
        from nav2_msgs.msg import Costmap
    except ImportError:
        return None
    return Costmap


def update_class() -> type | None:
    """map_msgs/OccupancyGridUpdate, or None where map_msgs is not installed."""
    try:
        from map_msgs.msg import OccupancyGridUpdate
    except ImportError:
        return None
    return OccupancyGridUpdate


def update_to_patch(msg: object) -> MapPatch:
    """The core patch of a map_msgs/OccupancyGridUpdate (checked against the map later)."""
    values = np.array(msg.data, dtype=np.int8).reshape(-1)
    return MapPatch(int(msg.x), int(msg.y), int(msg.width), int(msg.height), values)


def stamp_ns(msg: object) -> int:
    """A message's header stamp in nanoseconds."""
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec


def map_size(msg: object) -> tuple[int, int]:
    """(width, height) in cells of an OccupancyGrid or a nav2_msgs/Costmap."""
    if isinstance(msg, OccupancyGrid):
        return msg.info.width, msg.info.height
    return msg.metadata.size_x, msg.metadata.size_y


def costmap_to_map(msg: object) -> OccupancyMap:
    """The core map of a nav2_msgs/Costmap: its raw costs, and Nav2's translation as values."""
    meta = msg.metadata
    origin = meta.origin.orientation
    if not quaternion_norm(origin) > 1e-9:
        raise UnsupportedMapError(
            f"costmap origin orientation ({origin.x}, {origin.y}, {origin.z}, {origin.w}) is not "
            "a rotation (a zero-length or non-finite quaternion)"
        )
    raw = np.frombuffer(bytes(msg.data), dtype=np.uint8)
    if raw.size != meta.size_x * meta.size_y:
        raise UnsupportedMapError(
            f"costmap data has {raw.size} values, expected size_x * size_y = "
            f"{meta.size_x} * {meta.size_y} = {meta.size_x * meta.size_y}"
        )
    return OccupancyMap(
        width=meta.size_x,
        height=meta.size_y,
        resolution=meta.resolution,
        data=costmap_value(raw),
        origin_x=meta.origin.position.x,
        origin_y=meta.origin.position.y,
        origin_yaw=quaternion_to_yaw(origin),
        frame_id=msg.header.frame_id,
        raw_costs=raw,
    )


def message_to_map(msg: object) -> OccupancyMap:
    """The core map of either map message (raises UnsupportedMapError when malformed)."""
    if isinstance(msg, OccupancyGrid):
        return msg_to_map(msg)
    return costmap_to_map(msg)


class MapFollower:
    """The map subscription, of the type the topic's publishers use (see the module doc)."""

    def __init__(
        self, node: Node, topic: str, callback: Callable[[object], None], qos: QoSProfile,
        callback_group: object,
    ) -> None:
        self._node = node
        self._topic = topic
        self._callback = callback
        self._qos = qos
        self._group = callback_group
        self.message_type: type = OccupancyGrid
        self._subscription = node.create_subscription(
            OccupancyGrid, topic, callback, qos, callback_group=callback_group
        )
        self._costmap = costmap_class()
        self._timer = None
        if self._costmap is not None:
            self._timer = node.create_timer(
                POLL_PERIOD_S, self._follow_type, callback_group=callback_group
            )

    def destroy(self) -> None:
        """Destroy the subscription and the type-following timer (a lifecycle cleanup)."""
        if self._timer is not None:
            self._node.destroy_timer(self._timer)
            self._timer = None
        if self._subscription is not None:
            self._node.destroy_subscription(self._subscription)
            self._subscription = None

    def _follow_type(self) -> None:
        """Switch the subscription to the type the topic's publishers use, if it differs."""
        publishers = self._node.get_publishers_info_by_topic(
            self._node.resolve_topic_name(self._topic)
        )
        types = {info.topic_type for info in publishers}
        if COSTMAP_TYPE in types:
            wanted = self._costmap
        elif OCCUPANCY_GRID_TYPE in types:
            wanted = OccupancyGrid
        else:
            return
        if wanted is self.message_type and self._subscription is not None:
            return
        if self._subscription is not None:
            self._node.destroy_subscription(self._subscription)
            self._subscription = None
        try:
            self._subscription = self._node.create_subscription(
                wanted, self._topic, self._callback, self._qos, callback_group=self._group
            )
        except RuntimeError as error:
            # DDS may still hold the old reader of the other type for a moment: try next tick.
            self._node.get_logger().debug(f"map topic '{self._topic}': {error}; retrying")
            return
        self.message_type = wanted
        name = COSTMAP_TYPE if wanted is self._costmap else OCCUPANCY_GRID_TYPE
        self._node.get_logger().info(f"map topic '{self._topic}' carries {name}: following it")
