"""The planning grid: what may be entered, computed once per map and parameter set.

Definitions (the parameters of planner_node and the CLI; `costs` says how each cost model reads
the map, see there for `costmap`):

- *obstacle*: a cell whose value is >= `occupied_threshold`, or outside -1..100 (as Nav2 reads
  it, `occupancy.obstacle_cells`); unknown cells (-1) are never obstacles.
- *lethal*: an obstacle, or an unknown cell (-1) when `allow_unknown` is false.
- *inflated*: not lethal, and its centre lies within `robot_radius` (<=) of an obstacle cell's
  centre. Only obstacles inflate, so unknown cells do not. A slack of 1e-6 cells^2 absorbs the
  float error of decimal radii (0.15 m at 0.05 m/cell reaches exactly 3 cells).
- *blocked*: lethal or inflated; *free* (unblocked): everything else.

The steps a plan may take between cells (the inflated-start rule, connectivity) and what a
start can reach are `cell_graph`'s.
"""

from __future__ import annotations

import copy
import math
import threading
from collections.abc import Callable

import numpy as np

from .cell_graph import CellGraph
from .components import Region, label_components, patch_labels, union_region
from .costs import (
    DEFAULT_COST_MODEL,
    DEFAULT_COST_SCALING_FACTOR,
    DEFAULT_INFLATION_RADIUS,
    radius_refusal,
    step_cost_tables,
)
from .kernels import LETHAL_KEY, SearchBuffers, decode_keys, free_key, unpadded
from .kernels.keys import WIDEST_CLEARANCE_CELLS
from .layers import MAX_INFLATION_REACH_CELLS, CostLayers, cost_layers, obstacle_layer
from .occupancy import OccupancyMap
from .sweep import SweepMasks, sweep_masks
from .timing import StageClock

DEFAULT_OCCUPIED_THRESHOLD = 65
# What a grid is built with besides its map (PlanningGrid's keyword arguments).
SETTING_NAMES = ("occupied_threshold", "allow_unknown", "robot_radius", "cost_model",
                 "inflation_radius", "cost_scaling_factor")


def occupied_threshold_refusal(value: int) -> str | None:
    """Why the integer `value` cannot be an occupied threshold (None when it can): map values
    run 0..100, and 0 would make every free cell lethal."""
    return None if 1 <= value <= 100 else "must be in 1..100"


class PlanningGrid(CellGraph):
    """A map prepared for planning: lethal, inflated and blocked masks, clearance, components.

    Built once per map and parameter set; every plan on it reuses these arrays and the kernel
    buffers. All masks are flat, read-only and in OccupancyGrid order (`y * width + x`), except
    `padded_keys`: the clearance as the kernels read it (`kernels.keys`; `free_key` marks a
    free cell), framed by a lethal border, kept so that a query never pads the whole map.
    `raw_costs` holds the cost model's raw cost of every cell (None for `uniform`; see
    `costs`).

    >>> from grid_planner.grid.occupancy import OccupancyMap
    >>> grid = PlanningGrid(OccupancyMap.from_rows([[0, 0, 0], [0, 100, 0]]), robot_radius=1.0)
    >>> grid.blocked_mask.reshape(2, 3).astype(int).tolist()  # row 0 = bottom row
    [[1, 1, 1], [0, 1, 0]]
    """

    def __init__(
        self,
        occupancy: OccupancyMap,
        *,
        occupied_threshold: int = DEFAULT_OCCUPIED_THRESHOLD,
        allow_unknown: bool = False,
        robot_radius: float = 0.0,
        cost_model: str = DEFAULT_COST_MODEL,
        inflation_radius: float = DEFAULT_INFLATION_RADIUS,
        cost_scaling_factor: float = DEFAULT_COST_SCALING_FACTOR,
        timings: dict[str, float] | None = None,
    ) -> None:
        """Prepare `occupancy`; `timings`, when given, receives the seconds of each stage
        (threshold, layers). The component labels are made on first use."""
        if not isinstance(occupancy, OccupancyMap):
            raise TypeError(f"PlanningGrid needs an OccupancyMap, got {occupancy!r}")
        if isinstance(occupied_threshold, bool) or int(occupied_threshold) != occupied_threshold:
            raise ValueError(f"occupied_threshold must be an integer, got {occupied_threshold!r}")
        refusal = occupied_threshold_refusal(occupied_threshold)
        if refusal:
            raise ValueError(f"occupied_threshold {refusal}, got {occupied_threshold}")
        self._set_map(occupancy)
        self.occupied_threshold = int(occupied_threshold)
        self.allow_unknown = bool(allow_unknown)
        # Under the inflation model both radii are bounded by the inflation layer's reach.
        inflation = cost_model == "inflation"
        if inflation:
            reach = (MAX_INFLATION_REACH_CELLS,
                     f"the {MAX_INFLATION_REACH_CELLS:,} cells the inflation layer reaches")
        else:
            reach = (WIDEST_CLEARANCE_CELLS,
                     f"the {WIDEST_CLEARANCE_CELLS:,} cells of clearance a grid holds")
        self.robot_radius = _within_reach("robot_radius", robot_radius, self.resolution, reach)
        self.cost_model = cost_model
        self.inflation_radius = (
            _within_reach("inflation_radius", inflation_radius, self.resolution, reach)
            if inflation else _non_negative("inflation_radius", inflation_radius, "m")
        )
        self.cost_scaling_factor = _non_negative("cost_scaling_factor", cost_scaling_factor, "")
        layers = self.layers_of(occupancy.data, (self.height, self.width), occupancy.raw_costs,
                                timings)
        clock = StageClock(timings)
        self._set_layers(layers)
        clock.lap("layers")

    def _set_map(self, occupancy: OccupancyMap) -> None:
        self.map = occupancy
        self.width = occupancy.width
        self.height = occupancy.height
        self.resolution = occupancy.resolution
        self.cell_count = occupancy.cell_count

    def with_layers(
        self, occupancy: OccupancyMap, layers: CostLayers, free_changed: Region | None = None
    ) -> PlanningGrid:
        """A grid of `occupancy` with `layers`, under this grid's settings (a patch's result,
        see `patching`). `free_changed` (top, bottom, left, right) bounds the cells whose
        free/blocked state may differ from this grid's; None says none does, so the components
        are this grid's. Otherwise they are made on first use, by relabelling just that region
        when this grid's labels are known (`components.patch_labels`)."""
        grid = object.__new__(type(self))
        for name in SETTING_NAMES:
            setattr(grid, name, getattr(self, name))
        grid._set_map(occupancy)
        if free_changed is None:
            grid._set_layers(layers, self._labels, self._sizes)
            grid._label_base = self._label_base
        else:
            grid._set_layers(layers)
            if self._labels is not None:
                grid._label_base = (self._labels, self._sizes, free_changed)
            elif self._label_base is not None:
                labels, sizes, region = self._label_base
                grid._label_base = (labels, sizes, union_region(region, free_changed))
        # The same map size: the search scratch carries over (queries take turns on its lock
        # and each starts a fresh stamp generation), sparing the next plan its page faults.
        grid._buffers = self._buffers
        return grid

    def on_same_values(self, occupancy: OccupancyMap) -> PlanningGrid:
        """This grid for `occupancy`, a map of the same cells with the same values (a costmap
        sent again): every array, the labels and the search scratch are shared."""
        grid = copy.copy(self)
        grid._set_map(occupancy)
        grid._derived = dict(self._derived)
        grid._lazy_lock = threading.RLock()
        return grid

    def layers_of(
        self, values: np.ndarray, shape: tuple[int, int], raw_costs: np.ndarray | None,
        timings: dict[str, float] | None = None,
    ) -> CostLayers:
        """The cost layers of `values` (a map or a part of one, `shape` rows x columns) under
        this grid's settings."""
        return cost_layers(
            values, shape, self.resolution, cost_model=self.cost_model,
            occupied_threshold=self.occupied_threshold, allow_unknown=self.allow_unknown,
            robot_radius=self.robot_radius, inflation_radius=self.inflation_radius,
            cost_scaling_factor=self.cost_scaling_factor, raw_costs=raw_costs, timings=timings,
        )

    def _set_layers(
        self, layers: CostLayers, labels: np.ndarray | None = None,
        sizes: np.ndarray | None = None,
    ) -> None:
        """Adopt the per-cell arrays (made read-only) and forget every lazily made one;
        `labels` and `sizes` are the components when known to be those of these arrays."""
        free, raw = layers.free, layers.raw
        for array in layers:
            if isinstance(array, np.ndarray):
                array.setflags(write=False)
        self.free_mask = free
        self.padded_keys = layers.padded
        self.free_key = free_key(layers.padded.dtype)
        self.raw_costs = raw
        self.margin = layers.margin
        self._lazy_lock = threading.RLock()  # derived arrays read others
        # Derived from the arrays above when the layers leave them out (a patch does).
        self._derived = {name: array for name, array in (
            ("obstacle_mask", layers.obstacle), ("lethal_mask", layers.lethal),
            ("inflated_mask", layers.inflated), ("clearance", layers.clearance))
            if array is not None}
        # How `obstacle_mask` is made when the layers leave it out (None: from the map).
        self.obstacle_source: Callable[[], np.ndarray] | None = None
        # The least raw cost a step may enter (never a lethal cell): it bounds the heuristic.
        self.least_raw_cost = 0
        if raw is not None:
            lethal = self.lethal_mask
            if not lethal.all():  # lethal cells read 255 here
                self.least_raw_cost = int((raw | lethal.view(np.uint8) * np.uint8(255)).min())
        self._labels = labels
        self._sizes = sizes
        # (labels, sizes, region): an earlier grid's components, whose free cells differ from
        # this grid's only inside region; what `component_labels` starts from when it can.
        self._label_base: tuple[np.ndarray, np.ndarray, Region] | None = None
        self._buffers: SearchBuffers | None = None
        self._padded_costs: np.ndarray | None = None
        self._sweep_masks: SweepMasks | None = None

    # --- derived facts ------------------------------------------------------------------------

    def _derived_array(self, name: str, make) -> np.ndarray:
        """The read-only array `name`, made by `make()` on first use (once, under the lock)."""
        array = self._derived.get(name)
        if array is None:
            with self._lazy_lock:
                array = self._derived.get(name)
                if array is None:
                    array = make()
                    array.setflags(write=False)
                    self._derived[name] = array
        return array

    def made(self, name: str) -> np.ndarray | None:
        """The lazily made array `name` (e.g. "obstacle_mask") if it has been made, else None;
        makes nothing."""
        return self._derived.get(name)

    @property
    def obstacle_mask(self) -> np.ndarray:
        """The obstacle cells (see the module doc): the ones that inflate, and that smoothed
        paths keep `robot_radius` from. A patched grid makes them on first use, by
        `obstacle_source` when the patch left one (its grid's mask with the window spliced in),
        else from the map: a plan reads `padded_keys`, so patches spare the copy."""
        mask = self._derived_array("obstacle_mask", self.obstacle_source or (
            lambda: obstacle_layer(self.map.data, self.cost_model, self.occupied_threshold,
                                   self.raw_costs)))
        self.obstacle_source = None  # made: the earlier grid's mask it holds can go
        return mask

    @property
    def clearance(self) -> np.ndarray:
        """The clearance of each cell (int32, see `cell_graph`): `padded_keys` without their
        border, decoded."""
        return self._derived_array("clearance", lambda: decode_keys(
            unpadded(self.padded_keys, self.width, self.height)
        ).reshape(-1))

    @property
    def lethal_mask(self) -> np.ndarray:
        """The lethal cells (never entered)."""
        return self._derived_array("lethal_mask", lambda: (
            unpadded(self.padded_keys, self.width, self.height) == LETHAL_KEY).reshape(-1))

    @property
    def inflated_mask(self) -> np.ndarray:
        """The inflated cells: blocked, not lethal."""
        return self._derived_array("inflated_mask", lambda: ~(self.free_mask | self.lethal_mask))

    @property
    def blocked_mask(self) -> np.ndarray:
        """The blocked cells: lethal or inflated."""
        return self._derived_array("blocked_mask", lambda: ~self.free_mask)

    @property
    def component_labels(self) -> np.ndarray:
        """The 4-connected component label of each cell (-1 blocked). Made on first use (a
        map replaced before any plan reads them costs no labelling) from this grid's own free
        cells, so never stale: numbered in the order of their lowest cell index on a full map;
        after a patch, the earlier labels with the patched region labelled again (new
        components take new labels, a vanished one leaves its label unused) when that region
        tells, else from scratch; a patch that changed no free cell keeps its grid's labels."""
        if self._labels is None:
            with self._lazy_lock:
                if self._labels is None:
                    free = self.free_mask.reshape(self.height, self.width)
                    found = None
                    if self._label_base is not None:
                        found = patch_labels(*self._label_base, free)
                        self._label_base = None
                    labels, sizes = found if found is not None else label_components(free)
                    labels.setflags(write=False)
                    sizes.setflags(write=False)
                    self._sizes = sizes
                    self._labels = labels
        return self._labels

    @property
    def component_sizes(self) -> np.ndarray:
        """How many cells each label of `component_labels` marks (0 for a label a patch
        left unused)."""
        self.component_labels  # noqa: B018 - makes both
        return self._sizes

    @property
    def component_count(self) -> int:
        """How many 4-connected components the free cells form."""
        return int(np.count_nonzero(self.component_sizes))

    @property
    def buffers(self) -> SearchBuffers:
        """The kernel scratch buffers of this grid (allocated on first use, then reused)."""
        if self._buffers is None:
            with self._lazy_lock:
                if self._buffers is None:
                    self._buffers = SearchBuffers(self.padded_keys.size)
        return self._buffers

    @property
    def padded_costs(self) -> np.ndarray:
        """The raw costs (uint8) in the kernels' padded layout; zeros for `uniform`.

        Made on the first weighted search (O(map area) once), not with the grid.
        """
        if self._padded_costs is None:
            with self._lazy_lock:
                if self._padded_costs is None:
                    padded = np.zeros((self.height + 2, self.width + 2), dtype=np.uint8)
                    if self.raw_costs is not None:
                        padded[1:-1, 1:-1] = self.raw_costs.reshape(self.height, self.width)
                    padded = padded.reshape(-1)
                    padded.setflags(write=False)
                    self._padded_costs = padded
        return self._padded_costs

    @property
    def sweep_masks(self) -> SweepMasks:
        """What smoothing's segment tests read (`sweep`), made on the first smoothed plan."""
        if self._sweep_masks is None:
            with self._lazy_lock:
                if self._sweep_masks is None:
                    self._sweep_masks = sweep_masks(
                        self.free_mask.copy(), self.obstacle_mask.copy(),
                        (self.height, self.width), self.robot_radius, self.resolution,
                    )
        return self._sweep_masks

    def step_costs(self, cost_travel_multiplier: float) -> tuple[np.ndarray, np.ndarray]:
        """The straight and diagonal step cost tables of this grid's cost model (`costs`)."""
        return step_cost_tables(self.cost_model, cost_travel_multiplier)

    def least_step_factor(self, cost_travel_multiplier: float) -> float:
        """The least cost per unit of length of any step on this grid: the heuristic's scale.

        A map whose every free cell carries some cost (every cell near an obstacle) makes a
        plain distance a weak estimate; scaled by this factor it stays admissible and
        consistent (every step costs at least its length times it) and A* expands far less.
        """
        straight, _ = self.step_costs(cost_travel_multiplier)
        return float(straight[self.least_raw_cost])

    def describe(self) -> str:
        """A one-line summary of the grid and its parameters, for logs (the component count
        once the labels are made: a log line does not label a map no plan may read)."""
        model = self.cost_model
        if model == "inflation":
            model += (
                f" (inflation_radius {self.inflation_radius} m, cost_scaling_factor "
                f"{self.cost_scaling_factor})"
            )
        # A map message's float32 resolution read as a float64 (0.1 is 0.10000000149011612)
        # is shown to float32's 7 digits. Counted on the arrays every grid holds: a log line
        # derives no mask.
        border = 2 * (self.width + 2) + 2 * self.height
        lethal = int(np.count_nonzero(self.padded_keys == LETHAL_KEY)) - border
        free = int(np.count_nonzero(self.free_mask))
        return (
            f"{self.width} x {self.height} cells at {self.resolution:.7g} m, cost model {model}, "
            f"threshold {self.occupied_threshold}, allow_unknown {self.allow_unknown}, "
            f"robot_radius {self.robot_radius} m: {lethal} lethal, "
            f"{self.cell_count - lethal - free} inflated, {free} free cells"
            + (f" in {self.component_count} components" if self._labels is not None else "")
        )


def _within_reach(
    name: str, radius: float, resolution: float, reach: tuple[int, str]
) -> float:
    """`radius` (m) when it is a finite number >= 0 of at most `reach` = (cells, the bound's
    words) cells; ValueError saying why otherwise (1e300 m overflowed its square)."""
    radius = _non_negative(name, radius, "m")
    most, bound = reach
    refusal = radius_refusal(name, radius, resolution, most, bound)
    if refusal:
        raise ValueError(refusal)
    return radius


def _non_negative(name: str, value: float, unit: str) -> float:
    value = float(value)
    if not (math.isfinite(value) and value >= 0.0):
        raise ValueError(f"{name} must be a finite number >= 0{' ' + unit if unit else ''}, "
                         f"got {value}")
    return value
