"""Textbook references: grid BFS, grid A* and sliding-puzzle A* as tutorials write them.

Deliberately plain Python in the tutorial style (tuples as states, dicts for `came_from` and
the g-costs, `collections.deque` and `heapq`), not tuned: the benchmark measures the project
against the code a reader would write first. Grids are lists of rows, `grid[row][col]`, with
1 for a blocked cell; cells are `(row, col)` tuples. Each search returns its answer and the
number of nodes it expanded (popped and looked at).
"""

from __future__ import annotations

import heapq
import math
from collections import deque

Cell = tuple[int, int]

STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def reconstruct_path(came_from: dict, goal: object) -> list:
    """The states from the start (whose entry is None) to `goal`."""
    path = [goal]
    while came_from[path[-1]] is not None:
        path.append(came_from[path[-1]])
    path.reverse()
    return path


def _neighbours(grid: list[list[int]], cell: Cell) -> list[Cell]:
    rows, cols = len(grid), len(grid[0])
    row, col = cell
    result = []
    for d_row, d_col in STEPS:
        r, c = row + d_row, col + d_col
        if 0 <= r < rows and 0 <= c < cols and grid[r][c] == 0:
            result.append((r, c))
    return result


def grid_bfs(grid: list[list[int]], start: Cell, goal: Cell) -> tuple[list[Cell] | None, int]:
    """`(path, cells expanded)`: a shortest 4-connected path by breadth-first search.

    `path` runs from `start` to `goal` inclusive, None when the goal cannot be reached.
    """
    frontier = deque([start])
    came_from: dict[Cell, Cell | None] = {start: None}
    expanded = 0
    while frontier:
        current = frontier.popleft()
        expanded += 1
        if current == goal:
            return reconstruct_path(came_from, goal), expanded
        for nxt in _neighbours(grid, current):
            if nxt not in came_from:
                came_from[nxt] = current
                frontier.append(nxt)
    return None, expanded


def manhattan(a: Cell, b: Cell) -> int:
    """The Manhattan distance between two cells."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def grid_astar(grid: list[list[int]], start: Cell, goal: Cell) -> tuple[list[Cell] | None, int]:
    """`(path, heap entries popped)`: a shortest 4-connected path by A* with Manhattan distance.

    `path` runs from `start` to `goal` inclusive, None when the goal cannot be reached.
    """
    frontier = [(0, start)]
    came_from: dict[Cell, Cell | None] = {start: None}
    cost_so_far = {start: 0}
    expanded = 0
    while frontier:
        _, current = heapq.heappop(frontier)
        expanded += 1
        if current == goal:
            return reconstruct_path(came_from, goal), expanded
        for nxt in _neighbours(grid, current):
            new_cost = cost_so_far[current] + 1
            if nxt not in cost_so_far or new_cost < cost_so_far[nxt]:
                cost_so_far[nxt] = new_cost
                came_from[nxt] = current
                heapq.heappush(frontier, (new_cost + manhattan(nxt, goal), nxt))
    return None, expanded


def puzzle_astar(start: tuple[int, ...], goal: tuple[int, ...]) -> tuple[int | None, int]:
    """`(moves, boards expanded)`: the optimal solution length by A* with Manhattan distance.

    Boards are tuples in row-major order, 0 for the blank; `moves` is None when `goal` cannot
    be reached.
    """
    side = math.isqrt(len(start))
    goal_position = {tile: divmod(index, side) for index, tile in enumerate(goal)}

    def heuristic(board: tuple[int, ...]) -> int:
        total = 0
        for index, tile in enumerate(board):
            if tile != 0:
                row, col = divmod(index, side)
                goal_row, goal_col = goal_position[tile]
                total += abs(row - goal_row) + abs(col - goal_col)
        return total

    frontier = [(heuristic(start), 0, start)]
    came_from: dict[tuple[int, ...], tuple[int, ...] | None] = {start: None}
    cost_so_far = {start: 0}
    closed = set()
    while frontier:
        _, cost, board = heapq.heappop(frontier)
        if board == goal:
            return len(reconstruct_path(came_from, goal)) - 1, len(closed)
        if board in closed:
            continue
        closed.add(board)
        row, col = divmod(board.index(0), side)
        for d_row, d_col in STEPS:
            r, c = row + d_row, col + d_col
            if 0 <= r < side and 0 <= c < side:
                tiles = list(board)
                blank, other = row * side + col, r * side + c
                tiles[blank], tiles[other] = tiles[other], tiles[blank]
                child = tuple(tiles)
                new_cost = cost + 1
                if child not in cost_so_far or new_cost < cost_so_far[child]:
                    cost_so_far[child] = new_cost
                    came_from[child] = board
                    heapq.heappush(frontier, (new_cost + heuristic(child), new_cost, child))
    return None, len(closed)
