"""The planning grid: what may be entered, computed once per map and parameter set.

Definitions (the parameters of planner_node and the CLI):

- *obstacle*: a cell whose value is >= `occupied_threshold` (unknown cells are never obstacles).
- *lethal*: an obstacle, or an unknown cell (-1) when `allow_unknown` is false.
- *inflated*: not lethal, and its centre lies within `robot_radius` (<=) of an obstacle cell's
  centre. Only obstacles inflate, so unknown cells do not. A slack of 1e-6 cells^2 absorbs the
  float error of decimal radii (0.15 m at 0.05 m/cell reaches exactly 3 cells).
- *blocked*: lethal or inflated; *free* (unblocked): everything else.

The inflated-start rule. A start inside the inflated band is allowed and the path may leave the
band, never through lethal cells. Each cell gets a `clearance` key: FREE_CLEARANCE for free
cells, the squared distance (cells^2) to the nearest obstacle for inflated cells, and
LETHAL_CLEARANCE (-1) for lethal ones. A step from `c` to a neighbour `v` is allowed when

    clearance[v] == FREE_CLEARANCE  or  clearance[v] > clearance[c]

so a free cell only steps to free cells, and a path inside the band must strictly gain
clearance with every step: it can only climb out of the band, never slide along a wall through
it or go back in. The rule is local (no per-query flood fill), so every algorithm, compiled or
reference, sees the same static graph and stays optimal on it; a start in a pocket where no
step gains clearance (a corridor narrower than the robot) has no path out, as it should.

Reachability is precomputed too: `component_labels` numbers the 4-connected components of the
free cells. A free start reaches exactly its own component; an inflated start reaches the
components next to its (small) band-escape region. The planner uses this to answer an
unreachable goal at once, and to pick the nearest reachable cell for a goal tolerance, without
searching the whole map.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE, njit

from .kernels import FREE_CLEARANCE, LETHAL_CLEARANCE, SearchBuffers, pad_clearance
from .occupancy import OccupancyMap

RADIUS_SLACK_CELLS2 = 1e-6
DEFAULT_OCCUPIED_THRESHOLD = 65

# Neighbour order shared by the kernels and the reference problem: east, north, west, south.
DIRECTIONS = (("east", 1, 0), ("north", 0, 1), ("west", -1, 0), ("south", 0, -1))


def inflation_limit_cells2(robot_radius: float, resolution: float) -> float:
    """The largest squared cell distance (cells^2) that counts as "within robot_radius"."""
    if robot_radius <= 0.0:
        return 0.0
    return (robot_radius / resolution) ** 2 + RADIUS_SLACK_CELLS2


def obstacle_distance2(obstacles: np.ndarray, max_offset: int) -> np.ndarray:
    """Squared distance (cells^2) from each cell centre to the nearest `obstacles` cell centre.

    Exact wherever the true value is <= `max_offset`^2 plus anything that rounds down to it
    (every offset of a nearest obstacle is then <= max_offset); elsewhere the result is some
    value > the true limit. Two passes: the vertical distance to the nearest obstacle in each
    column (capped at max_offset + 1), then the minimum of `dx^2 + column^2` over the shifted
    columns |dx| <= max_offset. O(area * max_offset), NumPy only.
    """
    height, width = obstacles.shape
    cap = max_offset + 1
    column = np.empty((height, width), dtype=np.int32)
    run = np.full(width, cap, dtype=np.int32)
    for y in range(height):
        run = np.where(obstacles[y], 0, np.minimum(run + 1, cap))
        column[y] = run
    run = np.full(width, cap, dtype=np.int32)
    for y in range(height - 1, -1, -1):
        run = np.where(obstacles[y], 0, np.minimum(run + 1, cap))
        np.minimum(column[y], run, out=column[y])
    column2 = column * column
    best = column2.copy()
    for dx in range(1, min(max_offset, width - 1) + 1):
        shifted = column2 + np.int32(dx * dx)
        np.minimum(best[:, dx:], shifted[:, :-dx], out=best[:, dx:])
        np.minimum(best[:, :-dx], shifted[:, dx:], out=best[:, :-dx])
    return best


# --- free components ------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def label_components_kernel(free, width, height):
    """4-connected component labels of `free` (flat bool): -1 off the mask, else 0, 1, ...

    Components are numbered in the order of their lowest cell index.
    """
    count = free.shape[0]
    labels = np.full(count, -1, dtype=np.int32)
    queue = np.empty(count, dtype=np.int64)
    label = 0
    for seed in range(count):
        if not free[seed] or labels[seed] >= 0:
            continue
        labels[seed] = label
        head = 0
        tail = 1
        queue[0] = seed
        while head < tail:
            cell = queue[head]
            head += 1
            cx = cell % width
            cy = cell // width
            if cx + 1 < width and free[cell + 1] and labels[cell + 1] < 0:
                labels[cell + 1] = label
                queue[tail] = cell + 1
                tail += 1
            if cy + 1 < height and free[cell + width] and labels[cell + width] < 0:
                labels[cell + width] = label
                queue[tail] = cell + width
                tail += 1
            if cx > 0 and free[cell - 1] and labels[cell - 1] < 0:
                labels[cell - 1] = label
                queue[tail] = cell - 1
                tail += 1
            if cy > 0 and free[cell - width] and labels[cell - width] < 0:
                labels[cell - width] = label
                queue[tail] = cell - width
                tail += 1
        label += 1
    return labels


def label_components(free: np.ndarray) -> np.ndarray:
    """Labels of the 4-connected components of the 2-D bool mask `free` (flat int32, -1 off).

    Components are numbered in the order of their lowest flat index; compiled when numba is
    available, else a vectorised NumPy union-find that gives the same labels.
    """
    height, width = free.shape
    flat = np.ascontiguousarray(free, dtype=np.bool_).reshape(-1)
    if NUMBA_AVAILABLE:
        return label_components_kernel(flat, width, height)
    return label_components_numpy(free)


def label_components_numpy(free: np.ndarray) -> np.ndarray:
    """The NumPy-only version of `label_components` (hooking plus pointer jumping)."""
    height, width = free.shape
    count = height * width
    free = np.asarray(free, dtype=np.bool_)
    index = np.arange(count, dtype=np.int64).reshape(height, width)
    horizontal = free[:, :-1] & free[:, 1:]
    vertical = free[:-1, :] & free[1:, :]
    u = np.concatenate((index[:, :-1][horizontal], index[:-1, :][vertical]))
    v = np.concatenate((index[:, 1:][horizontal], index[1:, :][vertical]))
    root = np.arange(count, dtype=np.int64)
    while True:
        ru, rv = root[u], root[v]
        differ = ru != rv
        if not differ.any():
            break
        np.minimum.at(root, np.maximum(ru, rv)[differ], np.minimum(ru, rv)[differ])
        while True:
            jumped = root[root]
            if np.array_equal(jumped, root):
                break
            root = jumped
    labels = np.full(count, -1, dtype=np.int32)
    members = np.flatnonzero(free.reshape(-1))
    if members.size:
        _, inverse = np.unique(root[members], return_inverse=True)
        labels[members] = inverse.reshape(-1).astype(np.int32)
    return labels


# --- the planning grid ------------------------------------------------------------------------


class PlanningGrid:
    """A map prepared for planning: lethal, inflated and blocked masks, clearance, components.

    Built once per map and parameter set; every plan on it reuses these arrays and the kernel
    buffers. All masks are flat, read-only and in OccupancyGrid order (`y * width + x`), except
    `padded_clearance`: the clearance framed by a lethal border, the kernels' layout (see
    `kernels.pad_clearance`), kept so that a query never pads the whole map.

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
    ) -> None:
        if isinstance(occupied_threshold, bool) or int(occupied_threshold) != occupied_threshold:
            raise ValueError(f"occupied_threshold must be an integer, got {occupied_threshold!r}")
        if not 1 <= occupied_threshold <= 100:
            raise ValueError(f"occupied_threshold must be in 1..100, got {occupied_threshold}")
        robot_radius = float(robot_radius)
        if not (math.isfinite(robot_radius) and robot_radius >= 0.0):
            raise ValueError(f"robot_radius must be a finite number >= 0 m, got {robot_radius}")
        self.map = occupancy
        self.width = occupancy.width
        self.height = occupancy.height
        self.resolution = occupancy.resolution
        self.cell_count = occupancy.cell_count
        self.occupied_threshold = int(occupied_threshold)
        self.allow_unknown = bool(allow_unknown)
        self.robot_radius = robot_radius
        self.inflation_limit2 = inflation_limit_cells2(robot_radius, self.resolution)

        values = occupancy.data
        obstacle = values >= self.occupied_threshold
        lethal = obstacle.copy() if self.allow_unknown else obstacle | (values < 0)
        clearance = np.full(self.cell_count, FREE_CLEARANCE, dtype=np.int32)
        inflated = np.zeros(self.cell_count, dtype=np.bool_)
        if self.inflation_limit2 >= 1.0 and obstacle.any():
            max_offset = math.isqrt(math.floor(self.inflation_limit2))
            distance2 = obstacle_distance2(
                obstacle.reshape(self.height, self.width), max_offset
            ).reshape(-1)
            inflated = ~lethal & (distance2 <= self.inflation_limit2)
            clearance[inflated] = distance2[inflated]
        clearance[lethal] = LETHAL_CLEARANCE
        blocked = lethal | inflated
        free = ~blocked
        labels = label_components(free.reshape(self.height, self.width))
        sizes = np.bincount(labels[labels >= 0], minlength=0).astype(np.int64)
        padded = pad_clearance(clearance, self.width, self.height)

        for array in (obstacle, lethal, inflated, blocked, free, clearance, labels, sizes):
            array.setflags(write=False)
        self.obstacle_mask = obstacle
        self.lethal_mask = lethal
        self.inflated_mask = inflated
        self.blocked_mask = blocked
        self.free_mask = free
        self.clearance = clearance
        self.padded_clearance = padded
        self.component_labels = labels
        self.component_sizes = sizes
        self._buffers: SearchBuffers | None = None
        self._buffers_lock = threading.Lock()

    # --- derived facts ------------------------------------------------------------------------

    @property
    def component_count(self) -> int:
        """How many 4-connected components the free cells form."""
        return int(self.component_sizes.size)

    @property
    def buffers(self) -> SearchBuffers:
        """The kernel scratch buffers of this grid (allocated on first use, then reused)."""
        if self._buffers is None:
            with self._buffers_lock:
                if self._buffers is None:
                    self._buffers = SearchBuffers(self.padded_clearance.size)
        return self._buffers

    def describe(self) -> str:
        """A one-line summary of the grid and its parameters, for logs."""
        return (
            f"{self.width} x {self.height} cells at {self.resolution} m, threshold "
            f"{self.occupied_threshold}, allow_unknown {self.allow_unknown}, robot_radius "
            f"{self.robot_radius} m: {int(self.lethal_mask.sum())} lethal, "
            f"{int(self.inflated_mask.sum())} inflated, {int(self.free_mask.sum())} free cells "
            f"in {self.component_count} components"
        )

    # --- cells --------------------------------------------------------------------------------

    def contains_cell(self, x: int, y: int) -> bool:
        """Whether cell (x, y) lies inside the map."""
        return 0 <= x < self.width and 0 <= y < self.height

    def cell_index(self, x: int, y: int) -> int:
        """The flat index of cell (x, y); raises IndexError outside the map."""
        return self.map.cell_index(x, y)

    def index_cell(self, index: int) -> tuple[int, int]:
        """The cell (x, y) of a flat index."""
        return self.map.index_cell(index)

    def world_to_cell(self, wx: float, wy: float) -> tuple[int, int]:
        """The cell containing world point (wx, wy) (floor); may lie outside the map."""
        return self.map.world_to_cell(wx, wy)

    def cell_to_world(self, x: int, y: int) -> tuple[float, float]:
        """The world centre of cell (x, y)."""
        return self.map.cell_to_world(x, y)

    def is_blocked(self, x: int, y: int) -> bool:
        """Whether cell (x, y) is lethal or inflated."""
        return bool(self.blocked_mask[self.cell_index(x, y)])

    def can_step(self, from_index: int, to_index: int) -> bool:
        """Whether the move rule allows the step between these two (adjacent) cells."""
        own = int(self.clearance[from_index])
        other = int(self.clearance[to_index])
        return own != LETHAL_CLEARANCE and (other == FREE_CLEARANCE or other > own)

    def neighbours(self, index: int) -> list[int]:
        """The in-map 4-neighbours of a flat index, in the fixed order east, north, west, south."""
        y, x = divmod(index, self.width)
        result = []
        for _name, dx, dy in DIRECTIONS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < self.width and 0 <= ny < self.height:
                result.append(ny * self.width + nx)
        return result

    def reachable_components(self, start_index: int) -> set[int]:
        """The labels of the free components a path from `start_index` can reach.

        A free start reaches its own component. An inflated start first climbs out of the band
        (a small search over band cells of rising clearance, bounded by the band's depth), and
        reaches every component next to that escape region. A lethal start reaches nothing.
        """
        clearance = self.clearance
        labels = self.component_labels
        own = int(clearance[start_index])
        if own == FREE_CLEARANCE:
            return {int(labels[start_index])}
        if own == LETHAL_CLEARANCE:
            return set()
        reached: set[int] = set()
        seen = {start_index}
        stack = [start_index]
        while stack:
            cell = stack.pop()
            level = int(clearance[cell])
            for other in self.neighbours(cell):
                key = int(clearance[other])
                if key == FREE_CLEARANCE:
                    reached.add(int(labels[other]))
                elif key > level and other not in seen:
                    seen.add(other)
                    stack.append(other)
        return reached
