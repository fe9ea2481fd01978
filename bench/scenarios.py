"""The grid benchmark's maps and queries: generated (seeded) and real (TurtleBot3).

A scenario is a blocked mask in OccupancyGrid order (`blocked[y, x]`, row 0 at the bottom)
plus a start and a goal cell `(x, y)`. Generated maps depend only on their seed, so every run
plans the same queries. Scenarios travel to the worker processes as `.npz` files.
"""

from __future__ import annotations

import json
import os
import random
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from measure import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "tools"))  # draw_maps: the project's own maps
from draw_maps import TUTORIAL_ROWS, TUTORIAL_SHORTEST_STEPS

Cell = tuple[int, int]

OBSTACLE_DENSITY = 0.25
TILE_SIZE = 512
TILE_MAP_SIZE = 4096
# The query inside the tile: near these two points, far enough apart to matter, close enough
# that A* expands well under 10,000 cells.
TILE_START_NEAR = (192, 192)
TILE_GOAL_NEAR = (320, 320)


@dataclass(frozen=True)
class GridScenario:
    """One map and one query; `expected_length` is the known optimal length, if any."""

    name: str
    title: str
    blocked: np.ndarray
    start: Cell
    goal: Cell
    expected_length: int | None = None

    @property
    def width(self) -> int:
        """Map width in cells."""
        return int(self.blocked.shape[1])

    @property
    def height(self) -> int:
        """Map height in cells."""
        return int(self.blocked.shape[0])

    @property
    def cell_count(self) -> int:
        """Cells in the map."""
        return self.width * self.height

    def describe(self) -> dict:
        """The scenario's facts for the report (no map data)."""
        return {
            "name": self.name,
            "title": self.title,
            "width": self.width,
            "height": self.height,
            "blocked_fraction": round(float(self.blocked.mean()), 4),
            "start": list(self.start),
            "goal": list(self.goal),
            "expected_length": self.expected_length,
        }

    def save(self, folder: Path) -> Path:
        """Write the scenario to `folder/NAME.npz`; returns the path."""
        path = folder / f"{self.name}.npz"
        meta = json.dumps(self.describe())
        np.savez(path, blocked=self.blocked, meta=np.array(meta))
        return path


def load_scenario(path: str | Path) -> GridScenario:
    """The scenario saved by `GridScenario.save`."""
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        blocked = data["blocked"]
    return GridScenario(
        meta["name"], meta["title"], blocked, tuple(meta["start"]), tuple(meta["goal"]),
        meta["expected_length"],
    )


def _largest_component(free: np.ndarray) -> np.ndarray:
    """Flat indices of the largest 4-connected component of the 2-D bool mask `free`."""
    from grid_planner.grid.components import label_components

    labels, sizes = label_components(free)
    largest = int(sizes.argmax())
    return np.flatnonzero(labels == largest)


def _nearest(cells: np.ndarray, width: int, point: Cell) -> Cell:
    ys, xs = np.divmod(cells, width)
    best = int(np.argmin(np.abs(xs - point[0]) + np.abs(ys - point[1])))
    return (int(xs[best]), int(ys[best]))


def _far_apart(blocked: np.ndarray) -> tuple[Cell, Cell]:
    """The cells of the largest free component nearest the bottom-left and top-right corners."""
    height, width = blocked.shape
    cells = _largest_component(~blocked)
    return _nearest(cells, width, (0, 0)), _nearest(cells, width, (width - 1, height - 1))


def tutorial() -> GridScenario:
    """The tutorial's 8 x 10 grid: start printed at (row 0, col 0), goal at (row 7, col 9)."""
    printed = np.array([[int(v) for v in row.split()] for row in TUTORIAL_ROWS], dtype=bool)
    height = printed.shape[0]
    # Printed row r is grid row height - 1 - r (row 0 of an OccupancyGrid is the bottom).
    return GridScenario(
        "tutorial", "tutorial 8x10 grid", printed[::-1].copy(), (0, height - 1), (9, 0),
        TUTORIAL_SHORTEST_STEPS,
    )


def random_obstacles(size: int, seed: int) -> GridScenario:
    """A size x size map, each cell blocked with probability OBSTACLE_DENSITY."""
    blocked = np.random.default_rng(seed).random((size, size)) < OBSTACLE_DENSITY
    start, goal = _far_apart(blocked)
    return GridScenario(
        f"random{size}", f"{size}^2, {OBSTACLE_DENSITY:.0%} random obstacles", blocked,
        start, goal,
    )


def perfect_maze(size: int, seed: int) -> GridScenario:
    """A perfect maze (one path between any two cells), 1-cell corridors and walls.

    Maze cells sit at odd coordinates; an iterative depth-first backtracker knocks out the wall
    between a cell and a random unvisited neighbour. Start and goal are opposite corners.
    """
    cells = (size - 1) // 2
    blocked = np.ones((size, size), dtype=bool)
    visited = np.zeros((cells, cells), dtype=bool)
    chooser = random.Random(seed)
    visited[0, 0] = True
    blocked[1, 1] = False
    stack = [(0, 0)]
    while stack:
        cx, cy = stack[-1]
        options = [
            (cx + dx, cy + dy)
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if 0 <= cx + dx < cells and 0 <= cy + dy < cells and not visited[cy + dy, cx + dx]
        ]
        if not options:
            stack.pop()
            continue
        nx, ny = chooser.choice(options)
        visited[ny, nx] = True
        blocked[2 * ny + 1, 2 * nx + 1] = False
        blocked[cy + ny + 1, cx + nx + 1] = False
        stack.append((nx, ny))
    corner = 2 * cells - 1
    return GridScenario(
        f"maze{size}", f"{size}^2 perfect maze", blocked, (1, 1), (corner, corner)
    )


def warehouse(size: int, seed: int) -> GridScenario:
    """A warehouse floor: rows of 2-deep shelves along 3-wide aisles, 4-wide cross aisles
    between shelf runs, a free margin all round. Start and goal stand in the middle of a
    shelf run in an aisle whose end towards the other is closed, so each first walks away
    from the other to get out. Their shelf runs are drawn by the seed (bottom-left and
    top-right corners)."""
    rng = np.random.default_rng(seed)
    margin, depth, aisle, run, cross = 8, 2, 3, 60, 4
    period_y, period_x = depth + aisle, run + cross
    ys = np.arange(size)
    xs = np.arange(size)
    shelf_row = (ys >= margin) & (ys < size - margin) & ((ys - margin) % period_y < depth)
    shelf_col = (xs >= margin) & (xs < size - margin) & ((xs - margin) % period_x < run)
    blocked = shelf_row[:, None] & shelf_col[None, :]
    blocked[[0, -1], :] = True
    blocked[:, [0, -1]] = True
    runs_x = (size - 2 * margin) // period_x
    aisles_y = (size - 2 * margin) // period_y - 1
    corner = 5  # start and goal runs are drawn from the 5 x 5 nearest each corner

    def query_cell(run_index: int, aisle_index: int, closed_side: int) -> Cell:
        x0 = margin + run_index * period_x
        y0 = margin + aisle_index * period_y + depth  # first row of the aisle
        wall_x = x0 + run if closed_side > 0 else x0 - 1
        blocked[y0 : y0 + aisle, wall_x] = True
        return (x0 + run // 2, y0 + 1)

    start = query_cell(int(rng.integers(corner)), int(rng.integers(corner)), +1)
    goal = query_cell(runs_x - 1 - int(rng.integers(corner)),
                      aisles_y - 1 - int(rng.integers(corner)), -1)
    return GridScenario(
        f"warehouse{size}", f"{size}^2 warehouse, start and goal behind shelves", blocked,
        start, goal,
    )


def shared_dir() -> Path:
    """The shared data folder: $GRID_PLANNER_SHARED, else ../shared beside the repository."""
    configured = os.environ.get("GRID_PLANNER_SHARED")
    return Path(configured) if configured else REPO_ROOT.parent / "shared"


def turtlebot3_world() -> GridScenario:
    """The TurtleBot3 world map (map_server rules, threshold 65, unknown blocked)."""
    from grid_planner.grid.map_io import load_map

    occupancy = load_map(shared_dir() / "maps" / "turtlebot3_world.yaml")
    values = occupancy.grid2d()
    blocked = (values >= 65) | (values < 0)
    start, goal = _far_apart(blocked)
    return GridScenario(
        "turtlebot3", "TurtleBot3 world map (384^2 at 0.05 m)", blocked, start, goal
    )


def embedded_tile(seed: int) -> tuple[GridScenario, GridScenario]:
    """The same random tile and query, as a whole TILE_SIZE^2 map and walled in at the centre
    of a TILE_MAP_SIZE^2 random map. The wall ring makes the two searches identical."""
    tile = np.random.default_rng(seed).random((TILE_SIZE, TILE_SIZE)) < OBSTACLE_DENSITY
    cells = _largest_component(~tile)
    start = _nearest(cells, TILE_SIZE, TILE_START_NEAR)
    goal = _nearest(cells, TILE_SIZE, TILE_GOAL_NEAR)
    big = np.random.default_rng(seed + 1).random((TILE_MAP_SIZE, TILE_MAP_SIZE))
    big = big < OBSTACLE_DENSITY
    at = (TILE_MAP_SIZE - TILE_SIZE) // 2
    big[at - 1 : at + TILE_SIZE + 1, at - 1 : at + TILE_SIZE + 1] = True
    big[at : at + TILE_SIZE, at : at + TILE_SIZE] = tile
    alone = GridScenario(
        f"tile{TILE_SIZE}", f"{TILE_SIZE}^2 tile as the whole map", tile, start, goal
    )
    embedded = GridScenario(
        f"tile{TILE_SIZE}_in_{TILE_MAP_SIZE}",
        f"the same tile walled in at the centre of a {TILE_MAP_SIZE}^2 map", big,
        (start[0] + at, start[1] + at), (goal[0] + at, goal[1] + at),
    )
    return alone, embedded
