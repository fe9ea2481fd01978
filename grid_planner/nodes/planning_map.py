"""The planner's current map and the grid prepared from it, consistent under concurrent updates.

A map is admitted only when it fits the node's limits (frame, cells, inflation) and converts
cleanly; otherwise it is refused with the reason and the previous map stays. The planning grid
carries the settings it was built with, so a grid built while a setting changed is rebuilt on
first use instead of being served under the new settings.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from nav_msgs.msg import OccupancyGrid

from grid_planner.grid.errors import UnsupportedMapError
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.grid.planning_grid import PlanningGrid
from grid_planner.nodes.conversions import msg_to_map


@dataclass(frozen=True)
class GridSettings:
    """The parameters a planning grid is built with."""

    occupied_threshold: int
    allow_unknown: bool
    robot_radius: float

    @classmethod
    def of(cls, grid: PlanningGrid) -> GridSettings:
        """The settings `grid` was built with."""
        return cls(grid.occupied_threshold, grid.allow_unknown, grid.robot_radius)

    def build(self, occupancy: OccupancyMap) -> PlanningGrid:
        """The planning grid of `occupancy` under these settings."""
        return PlanningGrid(
            occupancy, occupied_threshold=self.occupied_threshold,
            allow_unknown=self.allow_unknown, robot_radius=self.robot_radius,
        )


@dataclass(frozen=True)
class MapLimits:
    """What a map must fit: its frame, its size and the inflation its grid needs."""

    global_frame: str
    max_map_cells: int
    max_inflation_cells: int


def inflation_refusal(robot_radius: float, resolution: float, max_cells: int) -> str | None:
    """Why `robot_radius` is too wide for a map of `resolution` (None when it is not).

    Preparing a grid costs O(cells x inflation cells): bounding the inflation bounds the time
    a map or a robot_radius change holds up the plans.
    """
    cells = robot_radius / resolution
    if cells <= max_cells:
        return None
    return (
        f"robot_radius {robot_radius} m is {cells:.4g} cells at {resolution:.6g} m/cell, more "
        f"than max_inflation_cells {max_cells}"
    )


def admit_map(msg: OccupancyGrid, limits: MapLimits, robot_radius: float) -> OccupancyMap:
    """The core map of `msg` if it fits `limits`; raises UnsupportedMapError with the reason."""
    if msg.header.frame_id != limits.global_frame:
        raise UnsupportedMapError(
            f"its frame '{msg.header.frame_id}' is not the global frame "
            f"'{limits.global_frame}' (set global_frame or publish the map in it)"
        )
    cells = msg.info.width * msg.info.height
    if cells > limits.max_map_cells:
        raise UnsupportedMapError(
            f"{msg.info.width} x {msg.info.height} = {cells} cells, more than max_map_cells "
            f"{limits.max_map_cells}"
        )
    occupancy = msg_to_map(msg)
    refusal = inflation_refusal(robot_radius, occupancy.resolution, limits.max_inflation_cells)
    if refusal is not None:
        raise UnsupportedMapError(refusal)
    return occupancy


class PlanningMap:
    """The latest admitted map and its planning grid, shared by every callback thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._map: OccupancyMap | None = None
        self._grid: PlanningGrid | None = None

    @property
    def current(self) -> OccupancyMap | None:
        """The map in use, or None before the first one."""
        with self._lock:
            return self._map

    def install(self, grid: PlanningGrid) -> None:
        """Use `grid` and its map from now on."""
        with self._lock:
            self._map, self._grid = grid.map, grid

    def grid(self, settings: GridSettings) -> PlanningGrid | None:
        """The grid of the current map under `settings` (rebuilt if it was built otherwise)."""
        with self._lock:
            if self._grid is not None and GridSettings.of(self._grid) != settings:
                self._grid = settings.build(self._map)
            return self._grid
