"""The planner's map input: nav_msgs/OccupancyGrid, or a Nav2 costmap_raw (nav2_msgs/Costmap).

Nav2's global costmap publishes `costmap` (OccupancyGrid, costs squeezed into 1..98) and
`costmap_raw` (nav2_msgs/Costmap, the exact 0..255 costs). The planner follows whichever its map
topic carries, by the type its publishers use: `MapFollower` subscribes as OccupancyGrid, looks
at the topic's publishers every `POLL_PERIOD_S`, and switches the subscription to
nav2_msgs/Costmap when one of them publishes that (exact costs win), back to OccupancyGrid when
none does. nav2_msgs is imported only here, so the planner needs it only to read costmap_raw.
Partial updates arrive on `<map topic>_updates` (`updates_topic`: the map subscription's
remapped name, so Nav2's `costmap_raw_updates` for `costmap_raw`) in the type that goes with
the map's: map_msgs/OccupancyGridUpdate with an OccupancyGrid (`update_class`, None where
map_msgs is missing: then the planner follows full maps only), nav2_msgs/CostmapUpdate (raw
costs, which `update_to_patch` keeps) with a nav2_msgs/Costmap.
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
from grid_planner.nodes.conversions import (
    header_frame,
    msg_to_map,
    quaternion_norm,
    quaternion_to_yaw,
)
from grid_planner.nodes.steady_timers import steady_timer

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


def costmap_update_class() -> type | None:
    """nav2_msgs/CostmapUpdate, or None where nav2_msgs (or that message, new in Jazzy) is
    missing."""
    try:
        from nav2_msgs.msg import CostmapUpdate
    except ImportError:
        return None
    return CostmapUpdate


def is_costmap_update(msg: object) -> bool:
    """Whether `msg` is a nav2_msgs/CostmapUpdate (else a map_msgs/OccupancyGridUpdate)."""
    costmap_update = costmap_update_class()
    return costmap_update is not None and isinstance(msg, costmap_update)


def update_size(msg: object) -> tuple[int, int]:
    """(width, height) in cells of an OccupancyGridUpdate or a nav2_msgs/CostmapUpdate."""
    if is_costmap_update(msg):
        return msg.size_x, msg.size_y
    return msg.width, msg.height


def remapped_name(node: Node, topic: str) -> str | None:
    """The name a remap rule gives `topic` on `node`, None when none does."""
    remapped = node.resolve_topic_name(topic)
    return remapped if remapped != node.resolve_topic_name(topic, only_expand=True) else None


def shown_topic(node: Node, topic: str) -> str:
    """`topic` as messages name it: the name a remap rule gives it, else as configured."""
    return remapped_name(node, topic) or topic


def updates_topic(node: Node, topic: str) -> str:
    """The updates topic of the map topic `topic`: `<topic>_updates` where a remap rule names
    that, else the map's resolved (remapped) name plus `_updates`, so a node told
    `-r map:=global_costmap/costmap_raw` follows `global_costmap/costmap_raw_updates`."""
    return remapped_name(node, f"{topic}_updates") or (
        f"{node.resolve_topic_name(topic)}_updates")


def update_to_patch(msg: object) -> MapPatch:
    """The core patch of a map_msgs/OccupancyGridUpdate or, with its raw costs kept, of a
    nav2_msgs/CostmapUpdate, whose values are those raw costs translated as `costmap_to_map`
    translates a full costmap's (checked against the map later)."""
    if is_costmap_update(msg):
        raw = np.frombuffer(bytes(msg.data), dtype=np.uint8)
        return MapPatch(int(msg.x), int(msg.y), int(msg.size_x), int(msg.size_y),
                        costmap_value(raw), raw)
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
        frame_id=header_frame(msg),
        raw_costs=raw,
    )


def message_to_map(msg: object) -> OccupancyMap:
    """The core map of either map message (raises UnsupportedMapError when malformed)."""
    if isinstance(msg, OccupancyGrid):
        return msg_to_map(msg)
    return costmap_to_map(msg)


class TypedSubscription:
    """A subscription to one topic whose message type may change (made again in the new type)."""

    def __init__(
        self, node: Node, topic: str, callback: Callable[[object], None], qos: QoSProfile,
        callback_group: object,
    ) -> None:
        self._node = node
        self.topic = topic
        self._callback = callback
        self._qos = qos
        self._group = callback_group
        self.message_type: type | None = None
        self._subscription = None

    def subscribe(self, message_type: type | None) -> None:
        """Subscribe as `message_type` (None: not at all); raises what rclpy raises."""
        if message_type is not None:
            self._subscription = self._node.create_subscription(
                message_type, self.topic, self._callback, self._qos, callback_group=self._group
            )
        self.message_type = message_type

    def follow(self, message_type: type | None) -> bool:
        """Subscribe as `message_type` unless it is so already; False, to be called again
        later, while that is not done yet. A subscription of another type is destroyed first
        and the new one made on a later call: rclpy lets the old one go only once the executor's
        wait ends, and until then DDS refuses the topic's new type (rcutils printing its error
        to stderr)."""
        if message_type is self.message_type:
            return True
        if self._subscription is not None:
            self.destroy()
            return False
        try:
            self.subscribe(message_type)
        except RuntimeError as error:
            # DDS may still hold the old reader of the other type for a moment.
            self._node.get_logger().debug(f"topic '{self.topic}': {error}; retrying")
            return False
        return True

    def destroy(self) -> None:
        """Destroy the subscription, if any."""
        if self._subscription is not None:
            self._node.destroy_subscription(self._subscription)
            self._subscription = None
        self.message_type = None


class MapFollower:
    """The map subscription and its updates subscription, in the types the map topic's
    publishers use (see the module doc)."""

    def __init__(
        self, node: Node, topic: str, on_map: Callable[[object], None],
        on_update: Callable[[object], None], qos: QoSProfile, updates_qos: QoSProfile,
        callback_group: object,
    ) -> None:
        self._node = node
        self._topic = topic
        self._map = TypedSubscription(node, topic, on_map, qos, callback_group)
        self._map.subscribe(OccupancyGrid)
        self._updates = TypedSubscription(
            node, updates_topic(node, topic), on_update, updates_qos, callback_group
        )
        self._update_types: dict[type, type | None] = {OccupancyGrid: update_class()}
        self._warn_without_updates(OccupancyGrid)
        self._updates.subscribe(self._update_types[OccupancyGrid])
        self._costmap = costmap_class()
        self._timer = None
        if self._costmap is not None:
            self._update_types[self._costmap] = costmap_update_class()
            # Steady: a paused simulation must not keep the node on the wrong type.
            self._timer = steady_timer(node, POLL_PERIOD_S, self._follow_type, callback_group)

    def destroy(self) -> None:
        """Destroy the subscriptions and the type-following timer (a lifecycle cleanup)."""
        if self._timer is not None:
            self._node.destroy_timer(self._timer)
            self._timer = None
        self._updates.destroy()
        self._map.destroy()

    def _warn_without_updates(self, map_type: type) -> None:
        """Say so when the update type that goes with `map_type` is not installed."""
        if self._update_types[map_type] is None:
            missing = "map_msgs" if map_type is OccupancyGrid else "nav2_msgs/msg/CostmapUpdate"
            self._node.get_logger().warning(
                f"{missing} is not installed: no partial map updates on '{self._updates.topic}'"
            )

    def _follow_type(self) -> None:
        """Switch the subscriptions to the types the map topic's publishers use, if they
        differ."""
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
        switched = wanted is not self._map.message_type
        map_followed = self._map.follow(wanted)
        self._updates.follow(self._update_types[wanted])
        if map_followed and switched:
            name = COSTMAP_TYPE if wanted is self._costmap else OCCUPANCY_GRID_TYPE
            self._node.get_logger().info(f"map topic '{self._topic}' carries {name}: following it")
            self._warn_without_updates(wanted)
