"""Exact sliding-puzzle facts computed by plain BFS from the goal, shared by the puzzle tests.

Written independently of `grid_planner.puzzle` (its own move generation on bytearrays) so the
library is checked against a second implementation, not against itself. Tables are cached
for the whole pytest session: the full 8-puzzle table (181,440 boards) is built once.
"""

from __future__ import annotations

import random
from collections import deque
from functools import lru_cache

EIGHT_GOAL = (1, 2, 3, 4, 5, 6, 7, 8, 0)


def _blank_neighbours(side: int) -> list[list[int]]:
    table = []
    for position in range(side * side):
        row, column = divmod(position, side)
        near = []
        if row > 0:
            near.append(position - side)
        if row < side - 1:
            near.append(position + side)
        if column > 0:
            near.append(position - 1)
        if column < side - 1:
            near.append(position + 1)
        table.append(near)
    return table


@lru_cache(maxsize=8)
def distance_table(goal: tuple[int, ...]) -> dict[bytes, int]:
    """Every board reachable from `goal`, with its exact distance (moves are reversible)."""
    side = round(len(goal) ** 0.5)
    neighbours = _blank_neighbours(side)
    start = bytes(goal)
    distance = {start: 0}
    queue = deque([start])
    while queue:
        board = queue.popleft()
        next_distance = distance[board] + 1
        blank = board.index(0)
        for other in neighbours[blank]:
            child = bytearray(board)
            child[blank], child[other] = child[other], 0
            child = bytes(child)
            if child not in distance:
                distance[child] = next_distance
                queue.append(child)
    return distance


def eight_puzzle_table() -> dict[bytes, int]:
    """The distance of each of the 181,440 solvable 8-puzzle boards to 1..8, 0."""
    return distance_table(EIGHT_GOAL)


def depth_counts(table: dict[bytes, int]) -> list[int]:
    """How many boards lie at each distance 0, 1, ..., max."""
    counts = [0] * (max(table.values()) + 1)
    for depth in table.values():
        counts[depth] += 1
    return counts


@lru_cache(maxsize=8)
def boards_by_depth(goal: tuple[int, ...]) -> dict[int, list[bytes]]:
    """The boards of `distance_table(goal)` grouped by distance, in a fixed order."""
    groups: dict[int, list[bytes]] = {}
    for board, depth in distance_table(goal).items():
        groups.setdefault(depth, []).append(board)
    return groups


def sample_boards(goal: tuple[int, ...], count: int, seed: int, depths=None) -> list[bytes]:
    """`count` distinct solvable boards drawn reproducibly (optionally only at `depths`)."""
    groups = boards_by_depth(goal)
    pool = [b for d, boards in sorted(groups.items()) if depths is None or d in depths
            for b in boards]
    return random.Random(seed).sample(pool, count)


def random_walk(goal: tuple[int, ...], steps: int, rng: random.Random) -> tuple[int, ...]:
    """A board `steps` random blank moves away from `goal` (so solvable, distance <= steps)."""
    side = round(len(goal) ** 0.5)
    neighbours = _blank_neighbours(side)
    board = list(goal)
    for _ in range(steps):
        blank = board.index(0)
        other = rng.choice(neighbours[blank])
        board[blank], board[other] = board[other], 0
    return tuple(board)
