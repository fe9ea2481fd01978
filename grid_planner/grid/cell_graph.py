"""The cell graph of a planning grid: which steps a plan may take, and what a start reaches.

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

Connectivity. Plans are 4-connected by default; with 8 a diagonal step is allowed when the rule
allows it *and* the steps onto both orthogonal neighbours it passes between: a diagonal never
cuts a corner. Neighbours come in the fixed order of DIRECTIONS: east, north, west, south, then
north-east, north-west, south-west, south-east.

Reachability is known without a search: `component_labels` (made on first use) numbers the
4-connected components of the free cells (valid for 8-connected plans as well, see
`components`). A free start reaches exactly its own component; an inflated start reaches the
components next to its (small) band-escape region. The planner uses this to answer an
unreachable goal at once, and to pick the nearest reachable cell for a goal tolerance, without
searching the whole map.
"""

from __future__ import annotations

import numpy as np

from .kernels import LETHAL_KEY
from .occupancy import OccupancyMap

CONNECTIVITIES = (4, 8)

# Neighbour order shared by the kernels and the reference problem: (name, dx, dy).
DIRECTIONS = (
    ("east", 1, 0), ("north", 0, 1), ("west", -1, 0), ("south", 0, -1),
    ("northeast", 1, 1), ("northwest", -1, 1), ("southwest", -1, -1), ("southeast", 1, -1),
)
# The orthogonal directions each diagonal passes between (indices into DIRECTIONS).
DIAGONAL_SIDES = ((0, 1), (2, 1), (2, 3), (0, 3))


def check_connectivity(connectivity: int) -> int:
    """`connectivity` as an int if it is 4 or 8; ValueError otherwise."""
    if isinstance(connectivity, bool) or connectivity not in CONNECTIVITIES:
        raise ValueError(f"connectivity must be 4 or 8, got {connectivity!r}")
    return int(connectivity)


class CellGraph:
    """Cell-level queries of a grid: coordinates, the step rule, the allowed steps and the
    components a start reaches. `PlanningGrid` supplies the arrays they read: `map`, `width`,
    `height`, `free_mask`, `padded_keys` (`kernels.keys`: the clearance in a small unsigned
    dtype, whose largest value `free_key` marks a free cell) and `component_labels`."""

    map: OccupancyMap
    width: int
    height: int
    free_mask: np.ndarray
    padded_keys: np.ndarray
    free_key: int
    component_labels: np.ndarray

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
        return not self.free_mask[self.cell_index(x, y)]

    def points_blocked(self, points: np.ndarray) -> np.ndarray:
        """For each world point of `points` ((n, 2)): whether its cell is outside the map or
        blocked (what is_path_valid and the replanning check call invalid)."""
        cells = self.map.worlds_to_cells(points)
        xs, ys = cells[:, 0], cells[:, 1]
        inside = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
        blocked = ~inside
        blocked[inside] = ~self.free_mask[ys[inside] * self.width + xs[inside]]
        return blocked

    def index_is_lethal(self, index: int) -> bool:
        """Whether flat cell `index` is lethal, read from the padded layout: a plan asks this
        of one or two cells and should not derive the whole `lethal_mask` to answer."""
        return self._key(index) == LETHAL_KEY

    def _key(self, index: int) -> int:
        """The key of cell `index` (`kernels.keys`), read from the padded layout (which every
        grid holds), so a query never needs the whole unpadded `clearance`."""
        y, x = divmod(index, self.width)
        return int(self.padded_keys[(y + 1) * (self.width + 2) + x + 1])

    def can_step(self, from_index: int, to_index: int) -> bool:
        """Whether the clearance rule allows entering `to_index` from `from_index` (keys keep
        the clearances' order, so the rule reads them as it reads clearances)."""
        own = self._key(from_index)
        other = self._key(to_index)
        return own != LETHAL_KEY and (other == self.free_key or other > own)

    def steps(self, index: int, connectivity: int = 4) -> list[tuple[int, int]]:
        """The allowed steps out of `index` as `(direction, neighbour)`, in DIRECTIONS order
        (a direction is an index into DIRECTIONS; 4..7, the diagonals, with `connectivity` 8,
        each allowed only where `step` allows it)."""
        allowed: list[tuple[int, int]] = []
        open_sides: set[int] = set()
        for direction in range(connectivity):
            if direction >= 4 and not open_sides.issuperset(DIAGONAL_SIDES[direction - 4]):
                continue
            other = self._entered(index, direction)
            if other is not None:
                allowed.append((direction, other))
                open_sides.add(direction)
        return allowed

    def step(self, index: int, direction: int) -> int | None:
        """The neighbour a step from `index` in `direction` enters, or None when the step is
        not allowed: a diagonal also needs the steps onto both orthogonal neighbours it passes
        between allowed (it never cuts a corner)."""
        if direction >= 4 and any(
            self._entered(index, side) is None for side in DIAGONAL_SIDES[direction - 4]
        ):
            return None
        return self._entered(index, direction)

    def _entered(self, index: int, direction: int) -> int | None:
        """The neighbour in `direction` if it is on the map and `can_step` lets `index` enter
        it, else None (no corner rule)."""
        y, x = divmod(index, self.width)
        _name, dx, dy = DIRECTIONS[direction]
        nx, ny = x + dx, y + dy
        if not (0 <= nx < self.width and 0 <= ny < self.height):
            return None
        other = ny * self.width + nx
        return other if self.can_step(index, other) else None

    def reachable_components(self, start_index: int, connectivity: int = 4) -> set[int]:
        """The labels of the free components a path from `start_index` can reach.

        A free start reaches its own component. An inflated start first climbs out of the band
        (a small search over band cells of rising clearance, bounded by the band's depth), and
        reaches every component next to that escape region. A lethal start reaches nothing.
        """
        labels = self.component_labels
        own = self._key(start_index)
        if own == self.free_key:
            return {int(labels[start_index])}
        if own == LETHAL_KEY:
            return set()
        reached: set[int] = set()
        seen = {start_index}
        stack = [start_index]
        while stack:
            cell = stack.pop()
            for _direction, other in self.steps(cell, connectivity):
                if self._key(other) == self.free_key:
                    reached.add(int(labels[other]))
                elif other not in seen:
                    seen.add(other)
                    stack.append(other)
        return reached

