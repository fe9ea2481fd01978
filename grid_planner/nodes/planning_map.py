"""The planner's current map and the grid prepared from it, consistent under concurrent updates.

A map is admitted only when it fits the node's limits (frame, cells, inflation) and converts
cleanly; otherwise it is refused with the reason and the previous map stays. The planning grid
carries the settings it was built with, and grids are kept by those settings, so a grid built
while a setting changed is rebuilt on first use instead of being served under the new settings.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rclpy.parameter import Parameter

from grid_planner.grid.components import Region
from grid_planner.grid.costs import radius_refusal
from grid_planner.grid.errors import PlannerCancelled, UnsupportedMapError
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.grid.patching import (
    MapPatch,
    PatchError,
    changed_region,
    patch_grid,
    patch_map,
    regrid,
)
from grid_planner.grid.planning_grid import PlanningGrid
from grid_planner.nodes.conversions import header_frame
from grid_planner.nodes.map_input import map_size, message_to_map

# How often a plan waiting for its grid's build checks its cancel event.
CANCEL_POLL_S = 0.02
# Grids built at once (each takes a core; more settings than MAX_GRIDS keep building).
MAX_PARALLEL_BUILDS = 2
# The parameters that decide how far a grid inflates the map (max_inflation_cells bounds it).
INFLATION_PARAMETERS = frozenset(
    {"robot_radius", "inflation_radius", "cost_model", "max_inflation_cells"}
)


@dataclass(frozen=True)
class GridSettings:
    """The parameters a planning grid is built with (its rebuild key)."""

    occupied_threshold: int
    allow_unknown: bool
    robot_radius: float
    cost_model: str = "uniform"
    inflation_radius: float = 0.55
    cost_scaling_factor: float = 10.0

    def build(
        self, occupancy: OccupancyMap, timings: dict[str, float] | None = None
    ) -> PlanningGrid:
        """The planning grid of `occupancy` under these settings (`timings`: by stage)."""
        return PlanningGrid(
            occupancy, occupied_threshold=self.occupied_threshold,
            allow_unknown=self.allow_unknown, robot_radius=self.robot_radius,
            cost_model=self.cost_model, inflation_radius=self.inflation_radius,
            cost_scaling_factor=self.cost_scaling_factor, timings=timings,
        )

    @classmethod
    def read(cls, value: Callable[[str], object]) -> GridSettings:
        """The settings `value(parameter name)` gives."""
        return cls(
            value("occupied_threshold"), value("allow_unknown"), value("robot_radius"),
            value("cost_model"), value("inflation_radius"), value("cost_scaling_factor"),
        )

    def radii(self) -> dict[str, float]:
        """The radii a grid under these settings measures out from obstacles, by name."""
        radii = {"robot_radius": self.robot_radius}
        if self.cost_model == "inflation":
            radii["inflation_radius"] = self.inflation_radius
        return radii

    def inflation_refusal(self, resolution: float, max_cells: int) -> str | None:
        """Why a grid under these settings would inflate a map of `resolution` too far (see
        the function `inflation_refusal`); None when it would not."""
        for name, radius in self.radii().items():
            refusal = inflation_refusal(radius, resolution, max_cells, name)
            if refusal is not None:
                return refusal
        return None


@dataclass(frozen=True)
class MapLimits:
    """What a map must fit: its frame, its size and the inflation its grid needs."""

    global_frame: str
    max_map_cells: int
    max_inflation_cells: int


def inflation_refusal(
    radius: float, resolution: float, max_cells: int, name: str = "robot_radius"
) -> str | None:
    """Why the radius `name` is too wide for a map of `resolution` (None when it is not).

    Preparing a grid costs O(cells x inflation cells): bounding the inflation bounds the time
    a map or a robot_radius (or inflation_radius) change holds up the plans.
    """
    return radius_refusal(name, radius, resolution, max_cells, f"max_inflation_cells {max_cells}")


def changes_inflation_refusal(
    changes: Sequence[Parameter],
    resolution: float,
    param: Callable[[str], object],
    planners: Mapping[str, Mapping[str, object]],
) -> str | None:
    """Why the parameter `changes`, judged as one batch, would make a grid of a map of
    `resolution` inflate past max_inflation_cells (None when none would): the grid of the flat
    settings (`param(name)` gives the current values) or of a planner block (`planners`: id ->
    its block's flat values). Only robot_radius, inflation_radius, cost_model and
    max_inflation_cells (flat, or a block's) decide it."""
    relevant = [c for c in changes if c.name.rpartition(".")[2] in INFLATION_PARAMETERS]
    if not relevant:
        return None
    flat = {c.name: c.value for c in relevant if "." not in c.name}
    limit = flat.pop("max_inflation_cells", param("max_inflation_cells"))
    blocks: dict[str, dict[str, object]] = {}
    for change in relevant:
        planner_id, dot, key = change.name.partition(".")
        if dot:
            blocks.setdefault(planner_id, {})[key] = change.value
    for planner_id in (None, *planners, *blocks):
        given = {**planners.get(planner_id, {}), **blocks.get(planner_id, {})}
        settings = GridSettings.read(
            lambda name, given=given: given.get(name, flat.get(name, param(name)))
        )
        refusal = settings.inflation_refusal(resolution, limit)
        if refusal is not None:
            return f"{relevant[0].name}={relevant[0].value!r} refused: {refusal}"
    return None


def admit_map(
    msg: object, limits: MapLimits, settings: Sequence[GridSettings]
) -> OccupancyMap:
    """The core map of `msg` (an OccupancyGrid or a nav2_msgs/Costmap) if it fits `limits`
    under each of `settings` (the flat ones and every planner block's); raises
    UnsupportedMapError with the reason."""
    if header_frame(msg) != limits.global_frame:
        raise UnsupportedMapError(
            f"its frame '{msg.header.frame_id}' is not the global frame "
            f"'{limits.global_frame}' (set global_frame or publish the map in it)"
        )
    width, height = map_size(msg)
    cells = width * height
    if cells > limits.max_map_cells:
        raise UnsupportedMapError(
            f"{width} x {height} = {cells} cells, more than max_map_cells {limits.max_map_cells}"
        )
    occupancy = message_to_map(msg)
    for each in settings:
        refusal = each.inflation_refusal(occupancy.resolution, limits.max_inflation_cells)
        if refusal is not None:
            raise UnsupportedMapError(refusal)
    return occupancy


def describe_change(region: Region | None) -> str:
    """How a full map's grid was made, for the log line (see `PlanningMap.replace`)."""
    if region is None:
        return ""
    top, bottom, left, right = region
    if bottom == top:
        return "; the same values as before: grid kept"
    return (f"; {right - left} x {bottom - top} cells changed at ({left}, {top}): prepared "
            "again there only")


class PlanningMap:
    """The latest admitted map and its planning grids, shared by every callback thread.

    One grid is kept per settings in use (the flat parameters and each configured planner's,
    at most MAX_GRIDS), so planners with different settings do not rebuild each other's grid.
    Patches (`apply`) replace the map and every grid with patched copies: a plan that already
    holds a grid keeps planning on it. A grid made on first use (`grid`) is built in a thread
    of its own, outside the lock: plans on other grids, maps and patches go on meanwhile (they
    waited up to a second on a 4096^2 map), and a plan cancelled while it waits stops waiting.
    A new map or a patch waits for the builds under way, as it waited for the lock before.
    """

    MAX_GRIDS = 4

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Notified when a build ends: maps and patches wait for the builds of the map they
        # replace, so that those grids are carried over instead of built again.
        self._built = threading.Condition(self._lock)
        self._map: OccupancyMap | None = None
        self._stamp_ns = 0
        self._received_ns: int | None = None  # the node's clock when the full map came
        self._grids: dict[GridSettings, PlanningGrid] = {}
        self._builds: dict[GridSettings, _Build] = {}  # grids being built for the map in use
        self._building = threading.BoundedSemaphore(MAX_PARALLEL_BUILDS)

    def apply(self, patch: MapPatch, stamp_ns: int,
              timings: dict[str, float] | None = None, now_ns: int | None = None) -> None:
        """Apply `patch` (stamped `stamp_ns`) to the map and its grids; PatchError with the
        reason, everything unchanged, when it comes before any full map, is older than the
        full map or does not fit. A patch that changes nothing (a costmap sends its updated
        bounds every cycle) keeps the map and every grid, at the cost of its window.

        `now_ns` is the node's clock: while it reads earlier than when the full map came, time
        went back (a simulator's reset) and stamps from either side of the jump compare
        nothing, so the patch's age is not judged."""
        with self._built:
            self._wait_for_builds()
            self._patchable(stamp_ns, now_ns)
            patch.check(self._map)
            if not patch.changes(self._map):
                return
            current = patch_map(self._map, patch)
            self._grids = {key: patch_grid(grid, patch, timings, current)
                           for key, grid in self._grids.items()}
            self._map = current

    def _patchable(self, stamp_ns: int, now_ns: int | None) -> None:
        """PatchError unless a patch stamped `stamp_ns` may change the map (under the lock)."""
        if self._map is None:
            raise PatchError("no full map has been received yet")
        time_went_back = (now_ns is not None and self._received_ns is not None
                          and now_ns < self._received_ns)
        if stamp_ns < self._stamp_ns and not time_went_back:
            raise PatchError(
                f"its stamp {stamp_ns / 1e9:.3f} s is older than the current full map's "
                f"{self._stamp_ns / 1e9:.3f} s"
            )

    @property
    def current(self) -> OccupancyMap | None:
        """The map in use, or None before the first one."""
        with self._lock:
            return self._map

    def replace(
        self, occupancy: OccupancyMap, stamp_ns: int, settings: GridSettings,
        timings: dict[str, float] | None = None, received_ns: int | None = None,
    ) -> tuple[PlanningGrid, Region | None]:
        """Use the full map `occupancy` (stamped `stamp_ns`, come at `received_ns` on the node's
        clock) from now on; returns its grid under `settings` and the box of cells that changed
        from the map in use ((0, 0, 0, 0) for none), or None when the grid was built from
        scratch. Each grid kept is carried over to the new map by preparing only that box
        again (`patching.regrid`) when that is cheaper, so a costmap sent again unchanged costs
        a comparison, not a build. Called from one thread at a time (the map callbacks); plans
        keep their grids meanwhile."""
        with self._built:
            self._wait_for_builds()
            before, previous = self._map, dict(self._grids)
        grids: dict[GridSettings, PlanningGrid] = {}
        # Every grid kept is of the map in use: the maps are compared once for all of them.
        region = None if before is None else changed_region(before, occupancy)
        if region is not None:
            for key, grid in previous.items():
                carried = regrid(grid, occupancy, timings if key == settings else None, region)
                if carried is not None:
                    grids[key] = carried[0]
        if settings not in grids:
            grids[settings] = settings.build(occupancy, timings)
            region = None
        with self._lock:
            self._map, self._grids, self._stamp_ns = occupancy, grids, stamp_ns
            self._received_ns = received_ns
        return grids[settings], region

    def _wait_for_builds(self) -> None:
        """Wait (under the lock, which the wait releases) for the builds under way now; not
        for those started meanwhile, so plans that keep starting builds never hold up a map."""
        under_way = list(self._builds.values())
        self._built.wait_for(lambda: all(build.done.is_set() for build in under_way))

    def peek(self, settings: GridSettings) -> PlanningGrid | None:
        """The grid under `settings` if one is made already (None otherwise; never builds)."""
        with self._lock:
            return self._grids.get(settings)

    def clear(self) -> None:
        """Forget the map and its grids (the node released its resources)."""
        with self._lock:
            self._map, self._grids = None, {}

    def grid(
        self, settings: GridSettings, cancel: threading.Event | None = None
    ) -> PlanningGrid | None:
        """The grid of the current map under `settings` (None before any map), built on first
        use. The build's own errors are raised; PlannerCancelled once `cancel` is set while
        the grid is still being built (the build goes on, and its grid is kept for the next
        plan). A grid whose map was replaced during its build is returned but not kept."""
        with self._lock:
            occupancy = self._map
            if occupancy is None:
                return None
            grid = self._grids.get(settings)
            if grid is not None:
                return grid
            build = self._builds.get(settings)
            if build is None or build.occupancy is not occupancy:
                build = self._builds[settings] = _Build(occupancy)
                try:
                    threading.Thread(target=self._build, args=(settings, build),
                                     name="grid_build", daemon=True).start()
                except BaseException:  # no thread ("can't start new thread"): nothing waits
                    del self._builds[settings]
                    build.done.set()
                    raise
        while not build.done.wait(CANCEL_POLL_S):
            if cancel is not None and cancel.is_set():
                raise PlannerCancelled("cancelled while the planning grid was being prepared")
        if build.error is not None:
            raise build.error
        return build.grid

    def _build(self, settings: GridSettings, build: _Build) -> None:
        """Build `build`'s grid (MAX_PARALLEL_BUILDS at once); keep it if its map is still the
        one in use. Whatever happens, the build ends and its waiters wake."""
        try:
            with self._building:
                build.grid = settings.build(build.occupancy)
        except Exception as error:  # raised to every caller waiting for it
            build.error = error
        finally:
            with self._built:
                if self._builds.get(settings) is build:
                    del self._builds[settings]
                if build.grid is not None and self._map is build.occupancy:
                    if len(self._grids) >= self.MAX_GRIDS:
                        self._grids.pop(next(iter(self._grids)))
                    self._grids[settings] = build.grid
                build.done.set()
                self._built.notify_all()


class _Build:
    """One grid being built, for the callers waiting for it."""

    def __init__(self, occupancy: OccupancyMap) -> None:
        self.occupancy = occupancy
        self.done = threading.Event()
        self.grid: PlanningGrid | None = None
        self.error: Exception | None = None
