"""Sliding-tile boards and their geometry: parsing, goals, solvability, moves, ranks, printing.

A board is `n * n` tiles in row-major order with 0 for the blank, n >= 2. Moves name the
blank's motion: "Up" moves the blank to the row above (the tile above it slides down).
Internally boards are `bytes` (compact, hashable, hash cached); the public functions accept
any sequence of ints or a string such as "1 2 3 4 0 6 7 5 8" (spaces and/or commas).

Everything else in `grid_planner.puzzle` takes its geometry from here: the side of a board
(`board_side`), the blank's moves (`move_targets`), the Manhattan table, the permutation rank
and the canonical goal that the precomputed tables are built for.
"""

from __future__ import annotations

import bisect
import math
import operator
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np

from grid_planner.jit import njit

MOVES = ("Up", "Down", "Left", "Right")
# Directions as indices into MOVES; a direction's opposite is `direction ^ 1`.
UP, DOWN, LEFT, RIGHT = range(4)
# The move order of Korf (1985), whose IDA* node counts are reproduced with it.
KORF_MOVE_ORDER = ("Up", "Left", "Right", "Down")
OPPOSITE = {"Up": "Down", "Down": "Up", "Left": "Right", "Right": "Left"}
# The largest board whose tiles fit a byte each.
MAX_SIDE = 16

BoardLike = str | bytes | Sequence[int]


class PuzzleError(ValueError):
    """Base class of the sliding-puzzle errors; `str(error)` is a message fit for users."""


class InvalidBoardError(PuzzleError):
    """The board is not a permutation of 0..n*n-1 for some n >= 2."""


class InvalidRequestError(PuzzleError):
    """The request around a valid board is wrong: goal, algorithm, heuristic or limits."""


class IllegalMoveError(PuzzleError):
    """A move name is unknown or would push the blank off the board."""


def _tiles_from_text(text: str, error: type[PuzzleError], what: str) -> list[int]:
    tokens = [token for token in re.split(r"[\s,]+", text.strip()) if token]
    tiles = []
    for token in tokens:
        try:
            tiles.append(int(token))
        except ValueError:
            raise error(f"{what} tile {token!r} is not an integer") from None
    return tiles


def _tiles(board: BoardLike, error: type[PuzzleError], what: str) -> list[int]:
    if isinstance(board, str):
        return _tiles_from_text(board, error, what)
    if isinstance(board, bytes | bytearray):
        return list(board)
    tiles = []
    for tile in board:
        if isinstance(tile, bool):
            raise error(f"{what} tile {tile!r} is not an integer")
        try:
            tiles.append(operator.index(tile))
        except TypeError:
            raise error(f"{what} tile {tile!r} is not an integer") from None
    return tiles


def side_of(tile_count: int) -> int | None:
    """The side n of a board of `tile_count` tiles, or None if that is not a square >= 4."""
    side = math.isqrt(tile_count)
    return side if side >= 2 and side * side == tile_count else None


def _check_permutation(tiles: list[int], error: type[PuzzleError], what: str) -> int:
    count = len(tiles)
    side = side_of(count)
    if side is None:
        raise error(
            f"{what} has {count} tiles; it needs n*n tiles with n >= 2 (4, 9, 16, 25, ...)"
        )
    if side > MAX_SIDE:
        raise error(f"{what} is {side}x{side}; at most {MAX_SIDE}x{MAX_SIDE} is supported")
    out_of_range = sorted({tile for tile in tiles if not 0 <= tile < count})
    if out_of_range:
        listed = ", ".join(map(str, out_of_range))
        raise error(f"{what} tile value(s) {listed} out of range 0..{count - 1}")
    duplicates = sorted(tile for tile, seen in Counter(tiles).items() if seen > 1)
    if duplicates:
        missing = sorted(set(range(count)) - set(tiles))
        raise error(
            f"{what} has duplicate tile(s) {', '.join(map(str, duplicates))}"
            f" (missing {', '.join(map(str, missing))})"
        )
    return side


def parse_board(board: BoardLike) -> tuple[int, ...]:
    """The validated board as a tuple of ints; raises InvalidBoardError naming the fault.

    >>> parse_board("1 2 3, 4 0 6, 7 5 8")
    (1, 2, 3, 4, 0, 6, 7, 5, 8)
    """
    tiles = _tiles(board, InvalidBoardError, "board")
    _check_permutation(tiles, InvalidBoardError, "board")
    return tuple(tiles)


def default_goal(side: int) -> tuple[int, ...]:
    """The usual goal 1, 2, ..., n*n-1 with the blank last."""
    return (*range(1, side * side), 0)


def parse_goal(goal: BoardLike | None, side: int) -> tuple[int, ...]:
    """The validated goal for an n x n board (None or empty: `default_goal`).

    Raises InvalidRequestError: a bad goal is a bad request, not a bad board.
    """
    if goal is None:
        return default_goal(side)
    tiles = _tiles(goal, InvalidRequestError, "goal")
    if not tiles:
        return default_goal(side)
    if len(tiles) != side * side:
        raise InvalidRequestError(
            f"goal has {len(tiles)} tiles but the board is {side}x{side} ({side * side} tiles)"
        )
    _check_permutation(tiles, InvalidRequestError, "goal")
    return tuple(tiles)


def board_side(board: Sequence[int]) -> int:
    """The side n of a valid board's length."""
    side = side_of(len(board))
    if side is None:
        raise InvalidBoardError(f"board has {len(board)} tiles; it needs n*n tiles with n >= 2")
    return side


def inversions(board: Sequence[int]) -> int:
    """The number of tile pairs (blank excluded) that appear in decreasing order."""
    earlier: list[int] = []  # the tiles seen so far, sorted
    count = 0
    for tile in board:
        if tile:
            at = bisect.bisect(earlier, tile)
            count += len(earlier) - at  # earlier tiles larger than this one
            earlier.insert(at, tile)
    return count


def _invariant(board: Sequence[int], side: int) -> int:
    """The parity that no move changes.

    A horizontal move leaves the tile order alone. A vertical move carries one tile past the
    n-1 tiles between its old and new place, changing the inversion count by an amount with
    the parity of n-1: nothing on odd widths, and on even widths exactly as the blank's row
    changes. So odd widths keep the inversion parity, even widths inversions + blank row.
    """
    parity = inversions(board)
    if side % 2 == 0:
        parity += board.index(0) // side
    return parity % 2


def is_solvable(board: Sequence[int], goal: Sequence[int] | None = None) -> bool:
    """Whether `goal` can be reached from `board` (both valid, same size).

    Boards with the same invariant parity (see `_invariant`) are exactly one move class: for
    every n >= 2 the moves reach half of all permutations, the half that shares the parity.
    """
    side = board_side(board)
    target = default_goal(side) if goal is None else goal
    return _invariant(board, side) == _invariant(target, side)


def move_targets(side: int) -> np.ndarray:
    """Flat int64 `targets[cell * 4 + direction]`: where the blank goes (-1: off the board)."""
    count = side * side
    targets = np.full(count * 4, -1, dtype=np.int64)
    for cell in range(count):
        row, column = divmod(cell, side)
        if row > 0:
            targets[cell * 4 + UP] = cell - side
        if row < side - 1:
            targets[cell * 4 + DOWN] = cell + side
        if column > 0:
            targets[cell * 4 + LEFT] = cell - 1
        if column < side - 1:
            targets[cell * 4 + RIGHT] = cell + 1
    return targets


@lru_cache(maxsize=16)
def _targets(side: int) -> tuple[int, ...]:
    """`move_targets` as a tuple, kept: Python code reads it one move at a time."""
    return tuple(move_targets(side).tolist())


def neighbour_table(side: int, order: Sequence[str] = MOVES) -> list[list[tuple[int, str]]]:
    """For each blank position, the `(position the blank moves to, move)` pairs, in `order`."""
    if sorted(order) != sorted(MOVES):
        raise InvalidRequestError(f"move order must be a permutation of {MOVES}, got {order}")
    targets = _targets(side)
    directions = [MOVES.index(move) for move in order]
    return [
        [(targets[cell * 4 + d], MOVES[d]) for d in directions if targets[cell * 4 + d] >= 0]
        for cell in range(side * side)
    ]


def apply_move(board: Sequence[int], move: str, side: int | None = None) -> tuple[int, ...]:
    """The board after the blank makes `move`; raises IllegalMoveError off the board."""
    side = board_side(board) if side is None else side
    if move not in OPPOSITE:
        raise IllegalMoveError(f"unknown move {move!r}; moves are {', '.join(MOVES)}")
    tiles = list(board)
    blank = tiles.index(0)
    target = _targets(side)[blank * 4 + MOVES.index(move)]
    if target < 0:
        row, column = divmod(blank, side)
        raise IllegalMoveError(f"move {move} would push the blank (row {row}, column {column})"
                               f" off the {side}x{side} board")
    tiles[blank], tiles[target] = tiles[target], 0
    return tuple(tiles)


def replay_boards(
    board: Sequence[int], moves: Iterable[str], side: int | None = None
) -> list[tuple[int, ...]]:
    """Every board along `moves`, from `board` itself to the final one."""
    side = board_side(board) if side is None else side
    boards = [tuple(board)]
    for move in moves:
        boards.append(apply_move(boards[-1], move, side))
    return boards


def replay(
    board: Sequence[int], moves: Iterable[str], side: int | None = None
) -> tuple[int, ...]:
    """The board after making `moves` from `board`; raises IllegalMoveError on a bad move."""
    return replay_boards(board, moves, side)[-1]


def format_board(board: Sequence[int], side: int | None = None, blank: str = "_") -> str:
    """The board as a grid of right-aligned tiles, one row per line, blank shown as `blank`.

    >>> print(format_board((1, 2, 3, 4, 0, 6, 7, 5, 8)))
    1 2 3
    4 _ 6
    7 5 8
    """
    side = board_side(board) if side is None else side
    width = max(len(str(len(board) - 1)), len(blank))
    cells = [blank if tile == 0 else str(tile) for tile in board]
    return "\n".join(
        " ".join(cell.rjust(width) for cell in cells[row * side : (row + 1) * side])
        for row in range(side)
    )


def blank_description(side: int, blank: int) -> str:
    """'row r, column c' of a cell, 0-based, for messages."""
    row, column = divmod(blank, side)
    return f"row {row}, column {column}"


def manhattan_table(goal: Sequence[int]) -> np.ndarray:
    """Flat int64 `table[cell * count + tile]`: tile's row + column distance from `cell` to its
    cell in `goal` (0 for the blank)."""
    count = len(goal)
    side = board_side(goal)
    home = np.empty(count, dtype=np.int64)
    home[list(goal)] = np.arange(count)
    cells = np.arange(count)[:, None]
    table = np.abs(cells // side - home // side) + np.abs(cells % side - home % side)
    table[:, 0] = 0
    return table.reshape(-1)


# --- goals the precomputed tables are built for -----------------------------------------------


def canonical_goal(side: int, blank: int) -> tuple[int, ...]:
    """The goal every table for this blank cell is built for: 1, 2, ... row-major around it."""
    tiles = [0] * (side * side)
    label = 1
    for cell in range(side * side):
        if cell != blank:
            tiles[cell] = label
            label += 1
    return tuple(tiles)


def relabelling(goal: Sequence[int]) -> bytes:
    """A `bytes.translate` table renaming `goal`'s tiles to the canonical goal's (blank kept).

    A board's distance to a goal does not change when the tiles are renamed on both, so a
    table built for the canonical goal serves every goal with its blank on the same cell.
    """
    canonical = canonical_goal(board_side(goal), list(goal).index(0))
    table = bytearray(range(256))
    for cell, tile in enumerate(goal):
        table[tile] = canonical[cell]
    return bytes(table)


# --- permutation rank: one function for three callers -----------------------------------------


def permutation_rank(board: Sequence[int]) -> int:
    """The lexicographic rank of the permutation `board` among all orderings of its values."""
    rank = 0
    count = len(board)
    used = 0  # bit v set once value v has been seen
    for i, value in enumerate(board):
        smaller_unused = value - (used & ((1 << value) - 1)).bit_count()
        rank = rank * (count - i) + smaller_unused
        used |= 1 << value
    return rank


def permutation_ranks(boards: np.ndarray) -> np.ndarray:
    """`permutation_rank` of every row of the 2-D array `boards` (int64), vectorised."""
    count = boards.shape[1]
    ranks = np.zeros(boards.shape[0], dtype=np.int64)
    for i in range(count):
        smaller_later = (boards[:, i + 1 :] < boards[:, i : i + 1]).sum(axis=1)
        ranks = ranks * (count - i) + smaller_later
    return ranks


@njit(cache=True, nogil=True, inline="always")
def rank_tiles(tiles):  # pragma: no cover - compiled; tests compare it with permutation_rank
    """`permutation_rank` of a 1-D int array, for compiled code."""
    count = tiles.shape[0]
    rank = 0
    for i in range(count):
        value = tiles[i]
        smaller = 0
        for j in range(i + 1, count):
            if tiles[j] < value:
                smaller += 1
        rank = rank * (count - i) + smaller
    return rank
