"""Admissible sliding-puzzle heuristics for any goal: misplaced, manhattan, linear_conflict.

None counts the blank. Each is a lower bound on the number of moves to the goal:

- `misplaced`: tiles not on their goal square (each needs at least one move).
- `manhattan`: the sum of each tile's row and column distance to its goal square.
- `linear_conflict`: Manhattan plus, for every row, 2 x (the tiles in that row whose goal is in
  that row, minus the longest increasing subsequence of their goal columns), and the same for
  every column. Tiles outside that subsequence must leave the line and come back, two moves
  that Manhattan does not count. Adding 2 per conflicting *pair* instead overestimates when
  one tile conflicts with several others (7 8 0 / 6 5 4 / 1 2 3 would get 28; its distance is
  26).

Per-goal tables are built once and cached; line penalties are memoised per line content.
The heuristics that look precomputed tables up (`table`, `pdb`) live in `tables`, and
`resolve` turns any heuristic name into what runs for a goal.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from functools import lru_cache
from operator import add

from .board import BoardLike, board_side, default_goal, manhattan_table, parse_board, parse_goal

# Computed from the board alone, no table to build.
CLASSIC_HEURISTICS = ("misplaced", "manhattan", "linear_conflict")

# A memo of line penalties is dropped when it grows past this many entries (big boards see
# many distinct lines; the memo is a speed-up, not a store).
_LINE_MEMO_LIMIT = 200_000


def longest_increasing_run(values: Sequence[int]) -> int:
    """The length of the longest strictly increasing subsequence of `values`."""
    tails: list[int] = []
    for value in values:
        at = bisect.bisect_left(tails, value)
        if at == len(tails):
            tails.append(value)
        else:
            tails[at] = value
    return len(tails)


class GoalTables:
    """Lookup tables of all three heuristics for one goal board (bytes, side n)."""

    def __init__(self, goal: bytes) -> None:
        count = len(goal)
        side = board_side(goal)
        self.goal = goal
        self.side = side
        self.count = count
        self.goal_row = [0] * count
        self.goal_column = [0] * count
        for position, tile in enumerate(goal):
            self.goal_row[tile], self.goal_column[tile] = divmod(position, side)
        # Flat tables indexed by position * count + tile.
        self.offsets = [position * count for position in range(count)]
        self.manhattan_table = manhattan_table(goal).tolist()
        self.misplaced_table = [0] * (count * count)
        for position in range(count):
            for tile in range(1, count):
                self.misplaced_table[position * count + tile] = int(goal[position] != tile)
        # Lines 0..n-1 are rows, n..2n-1 columns, as (start, stop, step) slices of a board.
        self.lines = [(r * side, (r + 1) * side, 1) for r in range(side)] + [
            (c, count, side) for c in range(side)
        ]
        self._memos: list[dict[bytes, int]] = [{} for _ in self.lines]

    def manhattan(self, board: bytes) -> int:
        """Manhattan distance of `board` to the goal."""
        return sum(map(self.manhattan_table.__getitem__, map(add, self.offsets, board)))

    def misplaced(self, board: bytes) -> int:
        """The number of tiles (blank excluded) off their goal square."""
        return sum(map(self.misplaced_table.__getitem__, map(add, self.offsets, board)))

    def line_penalty(self, line: int, board: bytes) -> int:
        """The linear-conflict moves that line `line` of `board` adds to Manhattan."""
        start, stop, step = self.lines[line]
        content = board[start:stop:step]
        memo = self._memos[line]
        penalty = memo.get(content)
        if penalty is None:
            penalty = self._compute_line_penalty(line, content)
            if len(memo) >= _LINE_MEMO_LIMIT:
                memo.clear()
            memo[content] = penalty
        return penalty

    def _compute_line_penalty(self, line: int, content: bytes) -> int:
        side = self.side
        if line < side:  # a row: tiles that belong to it, ordered by goal column
            home, along = self.goal_row, self.goal_column
            index = line
        else:
            home, along = self.goal_column, self.goal_row
            index = line - side
        targets = [along[tile] for tile in content if tile and home[tile] == index]
        return 2 * (len(targets) - longest_increasing_run(targets))

    def conflicts(self, board: bytes) -> int:
        """The linear-conflict addition summed over all rows and columns."""
        penalty = self.line_penalty
        return sum(penalty(line, board) for line in range(len(self.lines)))

    def linear_conflict(self, board: bytes) -> int:
        """Manhattan distance plus the linear-conflict addition."""
        return self.manhattan(board) + self.conflicts(board)

    def function(self, name: str) -> Callable[[bytes], int]:
        """The classic heuristic `name` (one of CLASSIC_HEURISTICS) as a function of a board."""
        return {
            "misplaced": self.misplaced,
            "manhattan": self.manhattan,
            "linear_conflict": self.linear_conflict,
        }[name]


@lru_cache(maxsize=16)
def tables_for(goal: bytes) -> GoalTables:
    """The (cached) heuristic tables for a validated goal."""
    return GoalTables(goal)


def _board_and_tables(board: BoardLike, goal: BoardLike | None) -> tuple[bytes, GoalTables]:
    tiles = parse_board(board)
    side = board_side(tiles)
    target = default_goal(side) if goal is None else parse_goal(goal, side)
    return bytes(tiles), tables_for(bytes(target))


def misplaced(board: BoardLike, goal: BoardLike | None = None) -> int:
    """The number of tiles (blank excluded) not on their goal square."""
    state, tables = _board_and_tables(board, goal)
    return tables.misplaced(state)


def manhattan(board: BoardLike, goal: BoardLike | None = None) -> int:
    """The sum over tiles (blank excluded) of their row + column distance to the goal square."""
    state, tables = _board_and_tables(board, goal)
    return tables.manhattan(state)


def linear_conflict(board: BoardLike, goal: BoardLike | None = None) -> int:
    """Manhattan distance plus 2 x (tiles that must leave their goal line) per row and column.

    >>> linear_conflict("7 8 0 6 5 4 1 2 3")  # 26 moves from the goal; pairwise counting says 28
    24
    """
    state, tables = _board_and_tables(board, goal)
    return tables.linear_conflict(state)
