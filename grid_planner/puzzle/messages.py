"""The sentences a solve answers with when it does not solve: why a board is unsolvable, and
which limit ended a search, named as the user set it (`max_nodes`, `max_expansions`, ...)."""

from __future__ import annotations

from ..search import Budget, LimitKind, SearchResult
from ..search.registry import lookup
from .board import inversions


def moves_text(count: int) -> str:
    """`count` moves in words: "1 move", "31 moves"."""
    return f"{count} move" if count == 1 else f"{count} moves"


def _parity(count: int) -> str:
    return "odd" if count % 2 else "even"


def unsolvable_reason(board: tuple[int, ...], goal: tuple[int, ...], side: int) -> str:
    """Why no sequence of moves turns `board` into `goal` (the parity argument)."""
    if side % 2:
        return (
            f"board is unsolvable: its inversion count ({inversions(board)}, "
            f"{_parity(inversions(board))}) and the goal's ({inversions(goal)}, "
            f"{_parity(inversions(goal))}) differ in parity, which no move changes"
        )
    board_sum = inversions(board) + board.index(0) // side
    goal_sum = inversions(goal) + goal.index(0) // side
    return (
        f"board is unsolvable: inversions + blank row is {board_sum} ({_parity(board_sum)}) "
        f"but {goal_sum} ({_parity(goal_sum)}) for the goal, and no move changes that parity"
    )


def limit_message(result: SearchResult, budget: Budget | None, depth: int | None) -> str:
    """Which limit ended `result`'s search, in the terms of the request's options.

    The memory budget is `max_nodes` (states held, `Budget.max_held`), the expansion limit
    `max_expansions` (`Budget.max_nodes`).
    """
    kind = result.limit
    name = result.algorithm
    if kind is LimitKind.MEMORY:
        cap = budget.max_held if budget else None
        info = lookup(name)
        what = f" ({info.memory})" if info is not None else ""
        return (
            f"memory budget exhausted: {name} held {result.nodes_held:,} states at once{what}, "
            f"the limit of max_nodes {cap}; IDA* (algorithm idastar) needs memory only for "
            "its path"
        )
    if kind is LimitKind.MAX_NODES:
        cap = budget.max_nodes if budget else None
        return (
            f"expansion limit reached: {result.nodes_expanded:,} nodes expanded "
            f"(max_expansions {cap})"
        )
    if kind is LimitKind.MAX_DEPTH:
        return f"no solution within the depth limit of {depth} moves"
    if kind is LimitKind.DEADLINE:
        return (
            f"time limit reached after {result.elapsed:.3f} s of search, "
            f"{result.nodes_expanded:,} nodes expanded"
        )
    if kind is LimitKind.CANCELLED:
        return (
            f"search cancelled after {result.elapsed:.3f} s, "
            f"{result.nodes_expanded:,} nodes expanded"
        )
    return "search stopped by a limit"
