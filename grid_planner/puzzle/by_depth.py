"""The classic comparison of search cost by solution depth on the 8-puzzle, with b*.

For each depth d (2, 4, ..., 24 by default) `by_depth` draws boards uniformly at random (with
replacement) from those exactly d moves from the goal, by the exact distance table, and solves
each with every run of BY_DEPTH_RUNS: iterative deepening (only up to `ids_max_depth`), graph
BFS, A* with misplaced tiles (h1), Manhattan (h2) and linear conflict, and IDA* with Manhattan.
It averages the nodes generated and expanded, and the effective branching factor b* of each
solve: the branching factor a uniform tree of depth d would need to hold the N nodes generated
plus the root, N + 1 = 1 + b* + b*^2 + ... + b*^d (the textbook's definition and averaging).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..search import Budget
from .board import default_goal
from .outcome import PuzzleStatus
from .solver import solve
from .tables import exact_table


@dataclass(frozen=True)
class DepthRun:
    """One column of the table: a label, the algorithm and the heuristic it runs."""

    label: str
    algorithm: str
    heuristic: str = ""


BY_DEPTH_RUNS = (
    DepthRun("IDS", "iddfs"),
    DepthRun("BFS", "bfs"),
    DepthRun("A*(h1)", "astar", "misplaced"),
    DepthRun("A*(h2)", "astar", "manhattan"),
    DepthRun("A*(lc)", "astar", "linear_conflict"),
    DepthRun("IDA*(h2)", "idastar", "manhattan"),
)
DEFAULT_DEPTHS = tuple(range(2, 25, 2))
DEFAULT_BOARDS = 100
# Iterative deepening runs only up to this depth, as in the textbook's table.
IDS_MAX_DEPTH = 12
SIDE = 3


def effective_branching_factor(generated: float, depth: int) -> float:
    """b* with generated + 1 = 1 + b* + ... + b*^depth (bisection to 1e-12; depth >= 1)."""
    if depth < 1:
        raise ValueError(f"b* needs a solution depth >= 1, got {depth}")
    target = generated + 1.0

    def tree(b: float) -> float:
        return float(sum(b**i for i in range(depth + 1)))

    low, high = 0.0, max(1.0, float(generated))
    while high - low > 1e-12 * max(1.0, high):
        middle = (low + high) / 2.0
        if tree(middle) < target:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def permutation_unrank(rank: int, count: int) -> tuple[int, ...]:
    """The permutation of 0..count-1 whose lexicographic rank is `rank` (inverse of
    `board.permutation_rank`)."""
    items = list(range(count))
    tiles = []
    for i in range(count):
        place, rank = divmod(rank, math.factorial(count - 1 - i))
        tiles.append(items.pop(place))
    return tuple(tiles)


def boards_at_depth(depth: int, count: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """`count` 8-puzzle boards drawn uniformly (with replacement) from those exactly `depth`
    moves from the default goal."""
    distances = exact_table(default_goal(SIDE)).distances
    ranks = np.flatnonzero(distances == depth)
    if ranks.size == 0:
        raise ValueError(f"no 8-puzzle board is {depth} moves from the goal (0..31 are)")
    return [permutation_unrank(int(r), SIDE * SIDE) for r in rng.choice(ranks, size=count)]


@dataclass
class DepthCell:
    """One run's means over a depth's boards; `limited` counts the solves its budget stopped
    (those are left out of the means)."""

    generated: float = 0.0
    expanded: float = 0.0
    branching: float = 0.0
    solved: int = 0
    limited: int = 0


@dataclass
class DepthRow:
    """One depth: how many boards, and per run label its DepthCell (None: not run)."""

    depth: int
    boards: int
    cells: dict[str, DepthCell | None] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Plain JSON-ready values."""
        return {
            "depth": self.depth,
            "boards": self.boards,
            "runs": {
                label: None if cell is None else vars(cell) for label, cell in self.cells.items()
            },
        }


def by_depth(
    depths: Sequence[int] = DEFAULT_DEPTHS,
    boards: int = DEFAULT_BOARDS,
    seed: int = 0,
    budget_per_run: Callable[[], Budget | None] = lambda: None,
    ids_max_depth: int = IDS_MAX_DEPTH,
    runs: Sequence[DepthRun] = BY_DEPTH_RUNS,
    on_row: Callable[[DepthRow], None] | None = None,
) -> list[DepthRow]:
    """The table: one DepthRow per depth, every run on the same boards (see the module doc).

    Each solve gets `budget_per_run()`; `on_row` is called after each depth (progress).
    A solve that ends neither solved optimally at the depth nor stopped by its budget raises
    RuntimeError: the table would be wrong.
    """
    if boards < 1:
        raise ValueError(f"boards per depth must be >= 1, got {boards}")
    rng = np.random.default_rng(seed)
    rows = []
    for depth in depths:
        drawn = boards_at_depth(depth, boards, rng)
        row = DepthRow(depth, boards)
        for run in runs:
            if run.algorithm == "iddfs" and depth > ids_max_depth:
                row.cells[run.label] = None
                continue
            row.cells[run.label] = _mean_cell(run, drawn, depth, budget_per_run)
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def _mean_cell(
    run: DepthRun, drawn: list[tuple[int, ...]], depth: int,
    budget_per_run: Callable[[], Budget | None],
) -> DepthCell:
    cell = DepthCell()
    for board in drawn:
        outcome = solve(board, None, run.algorithm, run.heuristic or "auto", 0, budget_per_run())
        if outcome.status is PuzzleStatus.LIMIT_REACHED:
            cell.limited += 1
            continue
        if not outcome.success or outcome.length != depth:
            raise RuntimeError(
                f"{run.label} on {board}: {outcome.status.name}, {outcome.length} moves, "
                f"expected an optimal {depth}"
            )
        cell.solved += 1
        cell.generated += outcome.nodes_generated
        cell.expanded += outcome.nodes_expanded
        cell.branching += effective_branching_factor(outcome.nodes_generated, depth)
    if cell.solved:
        cell.generated /= cell.solved
        cell.expanded /= cell.solved
        cell.branching /= cell.solved
    return cell
