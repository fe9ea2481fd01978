"""Partial map updates: a window of new values applied to a planning grid without a rebuild.

A costmap publisher sends one full map and then patches (map_msgs/OccupancyGridUpdate: a
window's corner, size and values; nav2_msgs/CostmapUpdate: the same in raw costs).
`patch_grid` recomputes only the window plus the grid's `margin` around it (every cell's layers
depend only on the values within `margin` cells, see `layers`), reading the values another
`margin` further out, and copies the rest of what a plan reads; the obstacle cells, which only
smoothing and pictures read, are spliced in when first asked for. The result is a new grid: one
already handed to a running plan never changes under it. The component labels are kept when the
patch changed no cell between free and blocked, and are otherwise made again on first use (from
the earlier labels and the changed region when it tells, see `components.patch_labels`), so
they are never stale. A patch that does not fit the map is refused (`PatchError`, naming the
reason) before anything changes. `regrid` treats a full map that differs from the grid's in a
small box (or not at all: a costmap sent again) as such a patch.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .components import Region
from .costs import costmap_raw
from .kernels import unpadded
from .layers import CostLayers
from .occupancy import OccupancyMap
from .planning_grid import PlanningGrid
from .timing import StageClock

# A full map is prepared again as a patch only when its changed box is at most this share of it.
REGRID_SHARE = 4


class PatchError(ValueError):
    """A patch that does not fit the map it is meant for; the message says why."""


@dataclass(frozen=True)
class MapPatch:
    """New values for the window of `width` x `height` cells whose lowest corner cell is
    (`x`, `y`); `values` flat, row by row from the window's bottom row (OccupancyGrid order).
    `raw_costs`, when given (a nav2_msgs/CostmapUpdate), holds the window's exact raw costs
    (uint8, the same order), which the map keeps, and `values` their translation."""

    x: int
    y: int
    width: int
    height: int
    values: np.ndarray
    raw_costs: np.ndarray | None = None

    def check(self, occupancy: OccupancyMap) -> None:
        """Refuse (PatchError) a patch that does not fit `occupancy`."""
        if self.width <= 0 or self.height <= 0:
            raise PatchError(f"the patch is {self.width} x {self.height} cells: empty")
        for name, array in (("values", self.values), ("raw costs", self.raw_costs)):
            if array is not None and array.size != self.width * self.height:
                raise PatchError(
                    f"the patch has {array.size} {name}, expected width * height = "
                    f"{self.width} * {self.height} = {self.width * self.height}"
                )
        if (self.x < 0 or self.y < 0 or self.x + self.width > occupancy.width
                or self.y + self.height > occupancy.height):
            raise PatchError(
                f"the patch covers cells x {self.x}..{self.x + self.width - 1}, y "
                f"{self.y}..{self.y + self.height - 1}, outside the {occupancy.width} x "
                f"{occupancy.height} map"
            )

    def changes(self, occupancy: OccupancyMap) -> bool:
        """Whether applying the patch (checked to fit) changes any value or raw cost of
        `occupancy`; reads the window only."""
        rows, columns = self.window
        shape = (occupancy.height, occupancy.width)
        if not np.array_equal(occupancy.data.reshape(shape)[rows, columns], self.value_window()):
            return True
        if occupancy.raw_costs is None:
            return self.raw_costs is not None  # the map would gain raw costs
        return not np.array_equal(occupancy.raw_costs.reshape(shape)[rows, columns],
                                  self.raw_window())

    def value_window(self) -> np.ndarray:
        """The patch's values as a `(height, width)` int8 array."""
        return np.asarray(self.values, dtype=np.int8).reshape(self.height, self.width)

    def raw_window(self) -> np.ndarray:
        """The raw costs (uint8, `(height, width)`) the patch gives its window: its own, or its
        values read back onto the raw scale (`costs.costmap_raw`)."""
        if self.raw_costs is None:
            return costmap_raw(self.value_window())
        return np.asarray(self.raw_costs, dtype=np.uint8).reshape(self.height, self.width)

    @property
    def window(self) -> tuple[slice, slice]:
        """The (rows, columns) slices of the patch in a `(height, width)` array of the map."""
        return slice(self.y, self.y + self.height), slice(self.x, self.x + self.width)


def patch_map(occupancy: OccupancyMap, patch: MapPatch) -> OccupancyMap:
    """`occupancy` with the patch's values (refused with PatchError when it does not fit).

    Raw costs: a patch's own are kept exactly; a map that carries raw costs gets a patch of
    values read back onto the raw scale (`costs.costmap_raw`), and a map without them gets
    its values read back before a patch of raw costs, as a full map of those values would.
    """
    patch.check(occupancy)
    rows, columns = patch.window
    shape = (occupancy.height, occupancy.width)
    data = occupancy.data.copy()  # flat and owned: the new map keeps it without a copy
    data.reshape(shape)[rows, columns] = patch.value_window()
    data.setflags(write=False)
    raw = occupancy.raw_costs
    if raw is not None or patch.raw_costs is not None:
        raw = costmap_raw(occupancy.data) if raw is None else raw.copy()
        raw.reshape(shape)[rows, columns] = patch.raw_window()
        raw.setflags(write=False)
    return replace(occupancy, data=data, raw_costs=raw)


def patch_grid(
    grid: PlanningGrid, patch: MapPatch, timings: dict[str, float] | None = None,
    patched: OccupancyMap | None = None,
) -> PlanningGrid:
    """The grid of `grid`'s map with `patch` applied, under the same settings; `grid` stays as
    it was. Refused (PatchError) when the patch does not fit; `timings` receives the seconds
    of the stages map, layers, copy and components. `patched`, when given, is that map made
    already (`patch_map(grid.map, patch)`), shared by the grids of one map."""
    clock = StageClock(timings)
    occupancy = patch_map(grid.map, patch) if patched is None else patched
    clock.lap("map")
    window = (patch.y, patch.y + patch.height, patch.x, patch.x + patch.width)
    return _prepare_again(grid, occupancy, window, clock)


def changed_region(before: OccupancyMap, after: OccupancyMap) -> Region | None:
    """The (top, bottom, left, right) box of the cells whose values (or raw costs) differ
    between two maps, (0, 0, 0, 0) when none does; None when they do not cover the same cells
    the same way (size, resolution, origin, frame, raw costs or not)."""
    if not before.same_cells(after) or (before.raw_costs is None) != (after.raw_costs is None):
        return None
    changed = before.data != after.data
    if before.raw_costs is not None:
        changed |= before.raw_costs != after.raw_costs
    changed = changed.reshape(before.height, before.width)
    rows = np.flatnonzero(changed.any(axis=1))
    if rows.size == 0:
        return (0, 0, 0, 0)
    columns = np.flatnonzero(changed.any(axis=0))
    return int(rows[0]), int(rows[-1]) + 1, int(columns[0]), int(columns[-1]) + 1


def regrid(
    grid: PlanningGrid, occupancy: OccupancyMap, timings: dict[str, float] | None = None,
    region: Region | None = None,
) -> tuple[PlanningGrid, Region] | None:
    """`grid` brought to `occupancy`, a new full map of the same cells, with the box of cells
    whose values changed (`region`, else `changed_region` of the two maps): the same arrays
    when none did, else the box prepared again as a patch would be. None when the maps differ
    in their cells or the box is more than 1 / REGRID_SHARE of the map: a build from scratch
    costs about the same. A costmap publisher that sends its whole map every cycle mostly
    sends it unchanged."""
    clock = StageClock(timings)
    if region is None:
        region = changed_region(grid.map, occupancy)
        clock.lap("compare")
    if region is None:
        return None
    top, bottom, left, right = region
    if (bottom - top) * (right - left) * REGRID_SHARE > grid.cell_count:
        return None
    if bottom == top:
        return grid.on_same_values(occupancy), region
    return _prepare_again(grid, occupancy, region, clock), region


def _prepare_again(
    grid: PlanningGrid, occupancy: OccupancyMap, window: Region, clock: StageClock
) -> PlanningGrid:
    """The grid of `occupancy`, a map that differs from `grid`'s only within the (top,
    bottom, left, right) `window`: the window plus the margin prepared again, the rest
    copied."""
    margin = grid.margin
    height, width = grid.height, grid.width
    # Recompute the window plus the margin; read the values a margin further out.
    top, bottom = max(0, window[0] - margin), min(height, window[1] + margin)
    left, right = max(0, window[2] - margin), min(width, window[3] + margin)
    source_top, source_bottom = max(0, top - margin), min(height, bottom + margin)
    source_left, source_right = max(0, left - margin), min(width, right + margin)
    source_rows, source_columns = slice(source_top, source_bottom), slice(source_left,
                                                                         source_right)
    shape = (source_bottom - source_top, source_right - source_left)
    values = occupancy.grid2d()[source_rows, source_columns].reshape(-1)
    raw = None
    if occupancy.raw_costs is not None:
        raw = occupancy.raw_costs.reshape(height, width)[source_rows, source_columns]
        raw = raw.reshape(-1)
    part = grid.layers_of(values, shape, raw)
    clock.lap("layers")
    inner = (slice(top - source_top, bottom - source_top),
             slice(left - source_left, right - source_left))
    region = (slice(top, bottom), slice(left, right))

    def spliced(old: np.ndarray, new: np.ndarray) -> np.ndarray:
        merged = old.copy()
        merged.reshape(height, width)[region] = new.reshape(shape)[inner]
        return merged

    def spliced_padded(old: np.ndarray, new: np.ndarray) -> np.ndarray:
        merged = old.copy()
        unpadded(merged, width, height)[region] = unpadded(new, shape[1], shape[0])[inner]
        return merged

    layers = CostLayers(
        None, None, None, spliced(grid.free_mask, part.free), None,
        spliced_padded(grid.padded_keys, part.padded),
        spliced(grid.raw_costs, part.raw) if part.raw is not None else None, margin,
    )
    clock.lap("copy")
    before = grid.free_mask.reshape(height, width)[region]
    after = layers.free.reshape(height, width)[region]
    same_free = bool(np.array_equal(before, after))
    patched = grid.with_layers(occupancy, layers, None if same_free else (top, bottom, left, right))
    obstacle = grid.made("obstacle_mask")
    if obstacle is not None:
        # Spliced only when a smoothed plan or a picture asks: a plan reads `padded_keys`.
        patched.obstacle_source = lambda: spliced(obstacle, part.obstacle)
    clock.lap("components")
    return patched
