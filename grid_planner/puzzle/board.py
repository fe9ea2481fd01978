"""Sliding-tile boards: parsing, validation, goals, solvability, moves and printing.

A board is `n * n` tiles in row-major order with 0 for the blank, n >= 2. Moves name the
blank's motion: "Up" moves the blank to the row above (the tile above it slides down).
Internally boards are `bytes` (compact, hashable, hash cached); the public functions accept
any sequence of ints or a string such as "1 2 3 4 0 6 7 5 8" (spaces and/or commas).
"""

from __future__ import annotations

import bisect
import math
import operator
import re
from collections import Counter
from collections.abc import Iterable, Sequence

MOVES = ("Up", "Down", "Left", "Right")
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


def neighbour_table(side: int, order: Sequence[str] = MOVES) -> list[list[tuple[int, str]]]:
    """For each blank position, the `(position the blank moves to, move)` pairs, in `order`."""
    unknown = [move for move in order if move not in OPPOSITE]
    if unknown or sorted(order) != sorted(MOVES):
        raise InvalidRequestError(f"move order must be a permutation of {MOVES}, got {order}")
    offsets = {"Up": (-1, 0), "Down": (1, 0), "Left": (0, -1), "Right": (0, 1)}
    table = []
    for position in range(side * side):
        row, column = divmod(position, side)
        moves = []
        for move in order:
            d_row, d_column = offsets[move]
            r, c = row + d_row, column + d_column
            if 0 <= r < side and 0 <= c < side:
                moves.append((r * side + c, move))
        table.append(moves)
    return table


def apply_move(board: Sequence[int], move: str, side: int | None = None) -> tuple[int, ...]:
    """The board after the blank makes `move`; raises IllegalMoveError off the board."""
    side = board_side(board) if side is None else side
    tiles = list(board)
    blank = tiles.index(0)
    row, column = divmod(blank, side)
    if move == "Up" and row > 0:
        target = blank - side
    elif move == "Down" and row < side - 1:
        target = blank + side
    elif move == "Left" and column > 0:
        target = blank - 1
    elif move == "Right" and column < side - 1:
        target = blank + 1
    elif move in OPPOSITE:
        raise IllegalMoveError(f"move {move} would push the blank (row {row}, column {column})"
                               f" off the {side}x{side} board")
    else:
        raise IllegalMoveError(f"unknown move {move!r}; moves are {', '.join(MOVES)}")
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
