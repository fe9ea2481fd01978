"""The one account of a planning or solving run that the CLI, the nodes and the benchmarks read.

A grid plan (`GridPlan.report`, `planner.failure_report`) and a puzzle answer
(`PuzzleOutcome.report`) both become a `RunReport`; `to_dict` is its JSON form, the fields every
`--json` answer and every `compare` row carry (each domain adds its own: path and poses, moves
and boards). `decimal` is how reports and messages write a measure.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from grid_planner.search.result import LimitKind, SearchResult

HUGE = 1e9  # from here on `decimal` writes 1e+09, not 1000000000.000


def decimal(value: float) -> str:
    """A measure for a message: three decimals ('6.124'), or the `g` form where that would run
    to dozens of digits ('1e+300')."""
    return f"{value:.3f}" if abs(value) < HUGE else f"{value:g}"


@dataclass(slots=True)
class RunReport:
    """How one run ended and what it cost.

    A plain record (not frozen: a frozen dataclass costs microseconds to build, and the
    benchmarks build one per timed query). `status` is the answer's code name (SOLVED,
    LIMIT_REACHED, NO_VALID_PATH, UNSOLVABLE, ...); `heuristic` is empty for uninformed
    algorithms, `backend` ("numba" or "reference") empty when no search ran. `length` counts
    steps or moves, `cost` is in the domain's unit (metres on a grid, moves for a puzzle).
    `planning_time` is the search alone, in seconds. `limit` says which budget ended a search
    that stopped early.
    """

    status: str
    algorithm: str
    heuristic: str = ""
    backend: str = ""
    length: int = 0
    cost: float = 0.0
    optimal: bool = False
    nodes_expanded: int = 0
    nodes_generated: int = 0
    max_frontier: int = 0
    planning_time: float = 0.0
    limit: LimitKind | None = None
    message: str = ""

    @classmethod
    def of(
        cls,
        result: SearchResult | None,
        *,
        status: str,
        algorithm: str,
        heuristic: str = "",
        backend: str = "",
        cost: float | None = None,
        message: str = "",
    ) -> RunReport:
        """The report of a run whose search gave `result` (None: no search ran).

        `cost` defaults to the result's own cost when it solved; length and optimality count
        only for a solved search.
        """
        if result is None:
            return cls(status, algorithm, heuristic, backend, message=message)
        solved = result.solved
        return cls(
            status=status,
            algorithm=algorithm,
            heuristic=heuristic,
            backend=backend,
            length=result.length if solved else 0,
            cost=(float(result.cost) if cost is None else cost) if solved else 0.0,
            optimal=result.optimal,
            nodes_expanded=result.nodes_expanded,
            nodes_generated=result.nodes_generated,
            max_frontier=result.max_frontier,
            planning_time=result.elapsed,
            limit=result.limit,
            message=message,
        )

    def to_dict(self) -> dict:
        """The report as plain JSON-ready values (the limit by its name)."""
        data = asdict(self)
        data["limit"] = self.limit.value if self.limit is not None else None
        return data
