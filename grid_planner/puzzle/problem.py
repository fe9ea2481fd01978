"""The sliding puzzle as a `ReversibleProblem` with incremental heuristics."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .board import (
    MOVES,
    OPPOSITE,
    BoardLike,
    InvalidRequestError,
    board_side,
    neighbour_table,
    parse_board,
    parse_goal,
)
from .heuristics import tables_for
from .resolve import TABLE_HEURISTICS, ResolvedHeuristic, resolve_heuristic


class PuzzleProblem:
    """An n x n sliding puzzle from `board` to `goal`; states are `bytes` boards.

    Actions are the blank's moves ("Up" = the blank moves to the row above), every move costs
    1 (`unit_cost`). `move_order` fixes the order in which successors are yielded, which
    decides tie-breaking in every algorithm. `successors_with_heuristic` updates the chosen
    heuristic per move instead of recomputing it: one table lookup for misplaced/Manhattan,
    plus at most one line re-scored for linear conflict (only the line the moving tile
    leaves or enters can change, and only if the tile belongs to it). `heuristic` is a name
    of `resolve.HEURISTICS` or a `ResolvedHeuristic` for this goal (e.g. with a custom pattern
    database).

    The problem does not check solvability; `grid_planner.puzzle.solver.solve` does.
    """

    unit_cost = True

    def __init__(
        self,
        board: BoardLike,
        goal: BoardLike | None = None,
        heuristic: str | ResolvedHeuristic = "manhattan",
        move_order: Sequence[str] = MOVES,
    ) -> None:
        tiles = parse_board(board)
        self.side = board_side(tiles)
        self._start = bytes(tiles)
        self._goal = bytes(parse_goal(goal, self.side))
        if isinstance(heuristic, ResolvedHeuristic):
            if heuristic.goal != self._goal:
                raise InvalidRequestError("the resolved heuristic belongs to another goal")
            resolved = heuristic
        else:
            resolved = resolve_heuristic(heuristic, self._goal)
        self.resolved = resolved
        # What actually runs: `table` and `pdb` may fall back to linear_conflict.
        self._kind = resolved.kind
        self.tables = tables_for(self._goal)
        self.heuristic = resolved.evaluate
        self._neighbours = neighbour_table(self.side, move_order)
        count = len(tiles)
        # swap[t] maps byte 0 <-> t and leaves the rest: translating a board by it slides tile
        # t into the blank (every board holds each value once), in one C call.
        identity = bytes(range(256))
        self._swap = [identity] + [
            identity.translate(bytes.maketrans(bytes([0, tile]), bytes([tile, 0])))
            for tile in range(1, count)
        ]
        self._steps = self._step_tables()

    def _step_tables(self) -> list[list[tuple]]:
        """Per blank position: (tile position, move, h delta by tile, line, home by tile)."""
        tables = self.tables
        count, side = tables.count, self.side
        base = tables.misplaced_table if self._kind == "misplaced" else (
            tables.manhattan_table
        )
        steps = []
        for blank, moves in enumerate(self._neighbours):
            entries = []
            for source, move in moves:
                # The tile at `source` moves to `blank`.
                delta = [
                    base[blank * count + tile] - base[source * count + tile]
                    for tile in range(count)
                ]
                if move in ("Left", "Right"):  # the tile changes column
                    lines = (side + source % side, side + blank % side)
                    home = [side + column for column in tables.goal_column]
                else:  # the tile changes row
                    lines = (source // side, blank // side)
                    home = list(tables.goal_row)
                entries.append((source, move, delta, lines, home))
            steps.append(entries)
        return steps

    @property
    def start(self) -> bytes:
        """The board to solve."""
        return self._start

    @property
    def goal(self) -> bytes:
        """The goal board."""
        return self._goal

    def is_goal(self, state: bytes) -> bool:
        """Whether `state` is the goal board."""
        return state == self._goal

    def successors(self, state: bytes) -> Iterator[tuple[str, bytes, int]]:
        """`(move, board after it, 1)` for each legal blank move, in `move_order`."""
        swap = self._swap
        for source, move in self._neighbours[state.index(0)]:
            yield move, state.translate(swap[state[source]]), 1

    def predecessors(self, state: bytes) -> Iterator[tuple[str, bytes, int]]:
        """`(forward move, previous board, 1)`: moves are reversible, so undo each one."""
        swap = self._swap
        for source, move in self._neighbours[state.index(0)]:
            yield OPPOSITE[move], state.translate(swap[state[source]]), 1

    def successors_with_heuristic(
        self, state: bytes, h: int
    ) -> Iterator[tuple[str, bytes, int, int]]:
        """`successors` with each child's heuristic, updated from `h` by the moved tile.

        Table heuristics (`table`, `pdb`) look each child up instead (the compiled IDA*'s
        kernel, `idastar_kernel`, is where they are updated per move).
        """
        swap = self._swap
        if self._kind in TABLE_HEURISTICS:
            evaluate = self.heuristic
            for source, move in self._neighbours[state.index(0)]:
                child = state.translate(swap[state[source]])
                yield move, child, 1, evaluate(child)
            return
        with_lines = self._kind == "linear_conflict"
        penalty = self.tables.line_penalty
        for source, move, delta, lines, home in self._steps[state.index(0)]:
            tile = state[source]
            child = state.translate(swap[tile])
            h_child = h + delta[tile]
            if with_lines:
                line = home[tile]
                if line == lines[0] or line == lines[1]:
                    h_child += penalty(line, child) - penalty(line, state)
            yield move, child, 1, h_child
