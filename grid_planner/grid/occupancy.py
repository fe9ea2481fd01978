"""The occupancy map value object: nav_msgs/OccupancyGrid's fields, without ROS.

Cells are stored flat in OccupancyGrid order: `index = y * width + x`, row `y = 0` at the
bottom of the map (the lowest world y when the origin is not rotated). Values follow the
message: 0 free ... 100 occupied, -1 unknown. A value the message does not define (above 100
or below -1) is read as Nav2's static layer reads its byte: occupied (`obstacle_cells`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .cell_points import index_points_kernel, world_points_kernel
from .errors import UnsupportedMapError

FREE = 0
OCCUPIED = 100
UNKNOWN = -1
# Cell coordinates of far-off points are clamped to this (2^62): a point 1e308 m away is
# outside every map, not an overflow.
_FAR_CELL = float(1 << 62)


def obstacle_cells(values: np.ndarray, occupied_threshold: int) -> np.ndarray:
    """Where `values` (a map's int8 values) are obstacles: at least `occupied_threshold`, or
    below -1.

    A value below -1 is no occupancy at all: read as an unsigned byte (128..254), as Nav2's
    static layer reads it, it lies above every threshold, so it is lethal there too; reading
    it as unknown would let a plan through it wherever unknown space is allowed. Computed as
    Nav2 reads the bytes, in one subtraction and one comparison (a full 4096^2 map is 16
    million cells): with b the byte and t the threshold (1..100), t <= b < 255 is
    (b - t) mod 256 < 255 - t.
    """
    values = np.asarray(values)
    if values.dtype != np.int8:  # the byte trick holds for int8 only
        return (values >= occupied_threshold) | (values < UNKNOWN)
    threshold = np.uint8(occupied_threshold)
    return np.subtract(values.view(np.uint8), threshold) < np.uint8(255) - threshold


def unknown_cells(values: np.ndarray) -> np.ndarray:
    """Where `values` are unknown: -1 exactly."""
    return np.asarray(values) == UNKNOWN


@dataclass(frozen=True, eq=False)
class OccupancyMap:
    """A map: size, resolution (m/cell), origin pose of cell (0, 0)'s outer corner, and values.

    `data` is a read-only flat int8 array of `width * height` values. The origin may be rotated
    by `origin_yaw` (radians, about the origin); world<->cell conversions honour it.
    `raw_costs`, when given, holds a Nav2 costmap's exact raw costs (uint8, 0..255, same
    order), which the `costmap` cost model reads instead of translating `data` back.

    >>> m = OccupancyMap.from_rows([[0, 100], [0, 0]], resolution=0.5)
    >>> m.value(1, 1), m.cell_to_world(1, 1)
    (100, (0.75, 0.75))
    """

    width: int
    height: int
    resolution: float
    data: np.ndarray
    origin_x: float = 0.0
    origin_y: float = 0.0
    origin_yaw: float = 0.0
    frame_id: str = "map"
    raw_costs: np.ndarray | None = None

    def __post_init__(self) -> None:
        if int(self.width) <= 0 or int(self.height) <= 0:
            raise UnsupportedMapError(
                f"map size must be positive, got {self.width} x {self.height} cells"
            )
        resolution = float(self.resolution)
        if not (math.isfinite(resolution) and resolution > 0.0):
            raise UnsupportedMapError(f"map resolution must be > 0 m/cell, got {self.resolution}")
        for name in ("origin_x", "origin_y", "origin_yaw"):
            if not math.isfinite(float(getattr(self, name))):
                raise UnsupportedMapError(f"map {name} must be finite, got {getattr(self, name)}")
        values = _whole_numbers(np.asarray(self.data), np.int8, "map values")
        if not _immutable(values):
            values = np.array(values, dtype=np.int8, copy=True).reshape(-1)
        if values.size != int(self.width) * int(self.height):
            raise UnsupportedMapError(
                f"map data has {values.size} values, expected width * height = "
                f"{self.width} * {self.height} = {int(self.width) * int(self.height)}"
            )
        values.setflags(write=False)
        if self.raw_costs is not None:
            raw = _whole_numbers(np.asarray(self.raw_costs), np.uint8, "raw costs")
            if not (_immutable(raw) and raw.dtype == np.uint8):
                raw = np.array(raw, dtype=np.uint8, copy=True).reshape(-1)
            if raw.size != values.size:
                raise UnsupportedMapError(
                    f"raw costs have {raw.size} values, expected {values.size}"
                )
            raw.setflags(write=False)
            object.__setattr__(self, "raw_costs", raw)
        object.__setattr__(self, "width", int(self.width))
        object.__setattr__(self, "height", int(self.height))
        object.__setattr__(self, "resolution", resolution)
        object.__setattr__(self, "origin_x", float(self.origin_x))
        object.__setattr__(self, "origin_y", float(self.origin_y))
        object.__setattr__(self, "origin_yaw", float(self.origin_yaw))
        object.__setattr__(self, "data", values)

    # --- construction -------------------------------------------------------------------------

    @classmethod
    def from_rows(
        cls,
        rows: Sequence[Sequence[int]] | np.ndarray,
        resolution: float = 1.0,
        origin: Sequence[float] = (0.0, 0.0, 0.0),
        *,
        top_row_first: bool = True,
        frame_id: str = "map",
    ) -> OccupancyMap:
        """A map from a 2-D array of values, printed with its top row first (as an image).

        With `top_row_first=False` row 0 of `rows` is the bottom row (OccupancyGrid order).
        """
        values = np.asarray(rows)
        if values.ndim != 2:
            raise UnsupportedMapError(f"rows must be a 2-D array, got shape {values.shape}")
        if len(origin) not in (2, 3):
            raise UnsupportedMapError(f"origin must be (x, y) or (x, y, yaw), got {origin!r}")
        if top_row_first:
            values = values[::-1]
        height, width = values.shape
        return cls(
            width=width,
            height=height,
            resolution=resolution,
            data=values.reshape(-1),
            origin_x=origin[0],
            origin_y=origin[1],
            origin_yaw=origin[2] if len(origin) > 2 else 0.0,
            frame_id=frame_id,
        )

    # --- views and counts ---------------------------------------------------------------------

    @property
    def cell_count(self) -> int:
        """The number of cells, `width * height`."""
        return self.width * self.height

    @property
    def origin(self) -> tuple[float, float, float]:
        """The origin as map_server writes it: `(x, y, yaw)`."""
        return (self.origin_x, self.origin_y, self.origin_yaw)

    def same_cells(self, other: OccupancyMap) -> bool:
        """Whether `other` covers the same cells in the same place: size, resolution, origin
        and frame."""
        return (self.width, self.height, self.resolution, self.origin, self.frame_id) == (
            other.width, other.height, other.resolution, other.origin, other.frame_id
        )

    def grid2d(self) -> np.ndarray:
        """A read-only `(height, width)` view of the values; row 0 is the bottom row."""
        return self.data.reshape(self.height, self.width)

    def value(self, x: int, y: int) -> int:
        """The value of cell (x, y)."""
        return int(self.data[self.cell_index(x, y)])

    def value_counts(self) -> dict[str, int]:
        """How many cells are free (0), occupied (100, or a value outside -1..100), unknown
        (-1) and in between (1..99)."""
        values = self.data
        free = int(np.count_nonzero(values == FREE))
        occupied = int(np.count_nonzero(obstacle_cells(values, OCCUPIED)))
        unknown = int(np.count_nonzero(unknown_cells(values)))
        return {
            "free": free,
            "occupied": occupied,
            "unknown": unknown,
            "other": values.size - free - occupied - unknown,
        }

    # --- cells and indices --------------------------------------------------------------------

    def contains_cell(self, x: int, y: int) -> bool:
        """Whether cell (x, y) lies inside the map."""
        return 0 <= x < self.width and 0 <= y < self.height

    def cell_index(self, x: int, y: int) -> int:
        """The flat index `y * width + x` of cell (x, y); raises IndexError outside the map."""
        if not self.contains_cell(x, y):
            raise IndexError(f"cell ({x}, {y}) is outside the {self.width} x {self.height} map")
        return y * self.width + x

    def index_cell(self, index: int) -> tuple[int, int]:
        """The cell (x, y) of flat index `index`."""
        y, x = divmod(int(index), self.width)
        return (x, y)

    # --- world <-> cell -----------------------------------------------------------------------

    def world_to_cell(self, wx: float, wy: float) -> tuple[int, int]:
        """The cell (x, y) containing world point (wx, wy), by floor; may lie outside the map."""
        dx = wx - self.origin_x
        dy = wy - self.origin_y
        if self.origin_yaw != 0.0:
            c, s = math.cos(self.origin_yaw), math.sin(self.origin_yaw)
            dx, dy = c * dx + s * dy, -s * dx + c * dy
        return (_cell_floor(dx / self.resolution), _cell_floor(dy / self.resolution))

    def worlds_to_cells(self, points: np.ndarray) -> np.ndarray:
        """`world_to_cell` of each row of `points` ((n, 2) world x, y): an (n, 2) int64 array."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        with np.errstate(over="ignore", invalid="ignore"):  # far-off points: clamped below
            dx = points[:, 0] - self.origin_x
            dy = points[:, 1] - self.origin_y
            if self.origin_yaw != 0.0:
                c, s = math.cos(self.origin_yaw), math.sin(self.origin_yaw)
                dx, dy = c * dx + s * dy, -s * dx + c * dy
            cells = np.floor(np.column_stack((dx, dy)) / self.resolution)
        cells[np.isnan(cells)] = _FAR_CELL
        return np.clip(cells, -_FAR_CELL, _FAR_CELL).astype(np.int64)

    def cell_to_world(self, x: int, y: int) -> tuple[float, float]:
        """The world coordinates of cell (x, y)'s centre: `origin + (i + 0.5) * resolution`."""
        lx = (x + 0.5) * self.resolution
        ly = (y + 0.5) * self.resolution
        if self.origin_yaw != 0.0:
            c, s = math.cos(self.origin_yaw), math.sin(self.origin_yaw)
            lx, ly = c * lx - s * ly, s * lx + c * ly
        return (self.origin_x + lx, self.origin_y + ly)

    def indices_to_world(self, indices: np.ndarray | Sequence[int]) -> np.ndarray:
        """An `(n, 2)` float array of the world centres of the flat cell `indices`."""
        return self.cells_to_world(index_points(indices, self.width))

    def cells_to_world(self, points: np.ndarray) -> np.ndarray:
        """World coordinates `(n, 2)` of points in cell coordinates: cell (x, y)'s centre is
        the point (x, y), its corners lie at the half-integers."""
        points = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 2)
        return world_points_kernel(
            points, float(self.resolution), float(self.origin_x), float(self.origin_y),
            math.cos(self.origin_yaw), math.sin(self.origin_yaw), self.origin_yaw != 0.0,
        )


def _cell_floor(cells: float) -> int:
    """The cell index `floor(cells)` of a coordinate in cells, clamped to +-_FAR_CELL; NaN (an
    infinite offset that a rotated origin turned indeterminate) is far outside too."""
    if cells != cells:
        return _FAR_CELL
    return math.floor(min(max(cells, -_FAR_CELL), _FAR_CELL))


def index_points(indices: np.ndarray | Sequence[int], width: int) -> np.ndarray:
    """The cells (x, y) of flat `indices` on a map `width` cells wide, as an `(n, 2)` float
    array."""
    flat = np.ascontiguousarray(indices, dtype=np.int64).reshape(-1)
    return index_points_kernel(flat, int(width))


def _whole_numbers(values: np.ndarray, dtype: type, what: str) -> np.ndarray:
    """`values` as `dtype` when every one is a whole number in its range; a NaN or 64.9 was
    cast to 0 or 64 (free), a plan then crossed it."""
    if values.dtype == dtype:
        return values
    if values.dtype.kind not in "biuf":
        raise UnsupportedMapError(f"{what} must be numbers, got an array of {values.dtype}")
    info = np.iinfo(dtype)
    if values.size:
        if values.dtype.kind == "f":
            bad = ~np.isfinite(values) | (values != np.round(values))
            if bad.any():
                raise UnsupportedMapError(
                    f"{what} must be whole numbers, got {values.reshape(-1)[np.argmax(bad)]}"
                )
        if values.min() < info.min or values.max() > info.max:
            raise UnsupportedMapError(f"{what} must fit in {dtype.__name__} "
                                      f"({info.min}..{info.max})")
    return values.astype(dtype)


def _immutable(array: np.ndarray) -> bool:
    """Whether `array` is flat, read-only and owns its memory: no one holds a writable view
    of it, so a map may keep it without a copy (a patched map's new values do this)."""
    return array.ndim == 1 and not array.flags.writeable and array.base is None
