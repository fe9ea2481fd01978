"""`compare`: one board under every algorithm (informed ones once per heuristic), for the
CLI's `compare` and the benchmarks; each run has a budget of its own."""

from __future__ import annotations

from collections.abc import Callable

from ..search import Budget
from ..search.registry import PUZZLE, offered
from .board import BoardLike
from .heuristics import CLASSIC_HEURISTICS
from .outcome import PuzzleOutcome
from .solver import PUZZLE_ALGORITHMS, solve

# A run's default limits in `compare` (the CLI's compare and --by-depth): seconds, states held.
DEFAULT_RUN_TIMEOUT = 5.0
DEFAULT_RUN_MAX_HELD = 1_000_000


def per_run_budget(
    timeout: float | None = DEFAULT_RUN_TIMEOUT, max_nodes: int | None = DEFAULT_RUN_MAX_HELD,
    max_expansions: int | None = None,
) -> Callable[[], Budget]:
    """A budget factory for `compare`: each run gets a deadline `timeout` s after it starts,
    `max_nodes` states of memory and at most `max_expansions` expansions."""

    def fresh() -> Budget:
        return Budget.from_timeout(timeout, max_nodes=max_expansions, max_held=max_nodes)

    return fresh


def compare(
    board: BoardLike,
    goal: BoardLike | None = None,
    budget_per_run: Budget | Callable[[], Budget] | None = None,
    *,
    algorithms: tuple[str, ...] = PUZZLE_ALGORITHMS,
    heuristics: tuple[str, ...] = CLASSIC_HEURISTICS,
    max_depth: int = 0,
) -> list[PuzzleOutcome]:
    """Solve `board` with every algorithm (informed ones once per heuristic), one outcome each.

    The default heuristics are the classic ones, which need no table; pass
    `heuristics=HEURISTICS` to include `table` and `pdb`.

    `budget_per_run` is a Budget shared by all runs (mind a shared deadline) or a factory
    called before each run; None means `per_run_budget()` (5 s, 1,000,000 states of memory per
    run), so hopeless runs (BFS or IDDFS on a hard 15-puzzle) come back LIMIT_REACHED.
    """
    make_budget = per_run_budget() if budget_per_run is None else budget_per_run
    outcomes = []
    for algorithm in algorithms:
        info = offered(PUZZLE, algorithm)
        informed = info is not None and info.informed
        for heuristic in heuristics if informed else ("",):
            budget = make_budget() if callable(make_budget) else make_budget
            outcomes.append(solve(board, goal, algorithm, heuristic, max_depth, budget))
    return outcomes

