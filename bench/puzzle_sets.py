"""The puzzle benchmark's boards: the two 31-move 8-puzzles, seeded random 8-puzzles and
Korf's 100 15-puzzles. Every board is for the goal 1, 2, ..., n*n-1, 0 (blank last)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from scenarios import shared_dir

Board = tuple[int, ...]

# The only two 8-puzzle boards whose optimal solution is 31 moves (the puzzle's diameter).
HARDEST_8 = ((8, 6, 7, 2, 5, 4, 3, 0, 1), (6, 4, 7, 8, 5, 0, 3, 2, 1))
HARDEST_LENGTH = 31


@dataclass(frozen=True)
class KorfInstance:
    """One of Korf's 100: id, board (converted to the blank-last goal), optimal length, and
    the nodes IDA* with Manhattan distance generated on it in Korf's table (a hardness
    measure)."""

    number: int
    board: Board
    optimal_length: int
    ida_md_nodes: int


def solvable(board: Board) -> bool:
    """Whether an odd-width board reaches the blank-last goal (even inversion count)."""
    tiles = [tile for tile in board if tile]
    inversions = sum(
        1 for i, tile in enumerate(tiles) for later in tiles[i + 1 :] if tile > later
    )
    return inversions % 2 == 0


def random_8_puzzles(count: int, seed: int) -> list[Board]:
    """`count` 8-puzzle boards drawn uniformly from the solvable ones (seeded)."""
    chooser = random.Random(seed)
    boards = []
    while len(boards) < count:
        tiles = list(range(9))
        chooser.shuffle(tiles)
        if solvable(tuple(tiles)):
            boards.append(tuple(tiles))
    return boards


def from_blank_first(board: Board) -> Board:
    """A board for the blank-first goal (0 1 2 ... 15) restated for the blank-last goal.

    Renaming tile v to 16 - v and turning the board by 180 degrees maps one goal onto the
    other and keeps every distance (the README of the shared puzzles).
    """
    count = len(board)
    return tuple(count - tile if tile else 0 for tile in reversed(board))


def _rows(path: Path) -> list[list[int]]:
    return [
        [int(field) for field in line.split()]
        for line in path.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]


def korf_100() -> list[KorfInstance]:
    """Korf's 100 instances from the shared puzzle folder."""
    folder = shared_dir() / "puzzles"
    nodes = {row[0]: row[3] for row in _rows(folder / "korf100_ida_md_nodes.txt")}
    return [
        KorfInstance(row[0], from_blank_first(tuple(row[1:17])), row[17], nodes[row[0]])
        for row in _rows(folder / "korf100.txt")
    ]
