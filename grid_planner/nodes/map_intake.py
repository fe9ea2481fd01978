"""planner_node's map intake: full maps and partial updates into its `PlanningMap`.

A full map on `map_topic` that fits the node's limits replaces the map in use (compared first,
see `PlanningMap.replace`); a patch on `<map_topic>_updates` (see `map_input`) is applied to it
as a `MapPatch`: a map_msgs/OccupancyGridUpdate's values, a nav2_msgs/CostmapUpdate's raw
costs (kept exactly). A map or patch that does not fit is refused with the reason in the log
and the map stays as it was. After either, the active goal's path is checked
(`GoalReplanner`). A lifecycle cleanup `close`s the intake before it releases the planners and
forgets the map: a map callback still running then finishes first, and later ones do nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from grid_planner.grid.errors import UnsupportedMapError
from grid_planner.grid.patching import PatchError
from grid_planner.grid.timing import format_timings
from grid_planner.nodes.conversions import header_frame
from grid_planner.nodes.map_input import (
    MapFollower,
    stamp_ns,
    update_size,
    update_to_patch,
)
from grid_planner.nodes.planning_map import (
    MapLimits,
    PlanningMap,
    admit_map,
    describe_change,
)
from grid_planner.nodes.qos import MAP_QOS, MAP_UPDATES_QOS
from grid_planner.nodes.replanning import GoalReplanner


class MapIntake:
    """Keeps `maps` current from the node's map topics; `planner_ids()` names the configured
    planners (None once they are released: no map is worth preparing then)."""

    def __init__(
        self, node: object, maps: PlanningMap, replanner: GoalReplanner,
        planner_ids: Callable[[], Sequence[str] | None],
    ) -> None:
        self._node = node
        self._maps = maps
        self._replanner = replanner
        self._planner_ids = planner_ids
        # Held by a map callback while it works, and by `close`; `_open` says maps are wanted.
        self._lock = threading.Lock()
        self._open = False
        # Why the last full map was refused, until one is taken (the answers say so).
        self.refusal: str | None = None

    def _param(self, name: str):
        return self._node.get_parameter(name).value

    def _serving(self) -> Sequence[str] | None:
        """The planner ids while maps are wanted, else None (closed, stopping or released);
        called with the lock held."""
        if not self._open or self._node.shutting_down:
            return None
        return self._planner_ids()

    def open(self, group: object) -> None:
        """Follow the map topic and its updates topic (callbacks in `group`, one at a time)."""
        node = self._node
        node.keep(MapFollower(
            node, self._param("map_topic"), self.on_map, self.on_map_update, MAP_QOS,
            MAP_UPDATES_QOS, group,
        ))
        with self._lock:
            self._open = True
            self.refusal = None

    def close(self) -> None:
        """Take no more maps: waits for a map callback still at work (cleanup calls this before
        it releases what the callbacks read)."""
        with self._lock:
            self._open = False

    def on_map(self, msg: object) -> None:
        """Use the map if it fits the limits; else log why and keep the previous one. No
        parameter change is checked or committed meanwhile (the node's `settings_lock`)."""
        with self._node.settings_lock, self._lock:
            self._take_map(msg)

    def _take_map(self, msg: object) -> None:
        planners = self._serving()
        if planners is None:
            return
        node = self._node
        limits = MapLimits(self._param("global_frame"), self._param("max_map_cells"),
                           self._param("max_inflation_cells"))
        settings = node.grid_settings()
        timings: dict[str, float] = {}
        try:
            began = time.perf_counter()
            every = [settings, *(node.grid_settings(planner_id) for planner_id in planners)]
            occupancy = admit_map(msg, limits, every)
            timings["convert"] = time.perf_counter() - began
            grid, changed = self._maps.replace(occupancy, stamp_ns(msg), settings, timings,
                                               node.get_clock().now().nanoseconds)
        except (UnsupportedMapError, ValueError) as error:
            node.get_logger().error(f"map refused: {error}")
            self.refusal = str(error)
            return
        self.refusal = None
        self._prepare(planners)
        node.get_logger().info(f"map received in frame '{grid.map.frame_id}': {grid.describe()}"
                               f"{describe_change(changed)}")
        node.get_logger().debug(f"map prepared: {format_timings(timings)}")
        self._replanner.map_changed(grid, "the map changed")

    def _prepare(self, planners: Sequence[str]) -> None:
        """Make each planner's grid of the map in use, so an action's first plan finds it."""
        for planner_id in planners:
            self._maps.grid(self._node.grid_settings(planner_id))

    def on_map_update(self, msg: object) -> None:
        """Apply a partial update to the map and its grids; refuse a misfit with a WARN."""
        with self._lock:
            self._take_update(msg)

    def _take_update(self, msg: object) -> None:
        if self._serving() is None:
            return
        node = self._node
        timings: dict[str, float] = {}
        try:
            current = self._maps.current
            if current is not None and header_frame(msg) != current.frame_id:
                raise PatchError(f"its frame '{msg.header.frame_id}' is not the map's frame "
                                 f"'{current.frame_id}'")
            self._maps.apply(update_to_patch(msg), stamp_ns(msg), timings,
                             node.get_clock().now().nanoseconds)
        except PatchError as error:
            node.get_logger().warning(f"map update refused: {error}; the map stays as it was")
            return
        width, height = update_size(msg)
        node.get_logger().debug(
            f"map update {width} x {height} at ({msg.x}, {msg.y}) applied: "
            f"{format_timings(timings)}"
        )
        # The grid is built when missing (a parameter changed since the last full map): without
        # it the active goal's path would not be checked against the update.
        self._replanner.map_changed(self._maps.grid(node.grid_settings()), "the map was updated")
