"""The algorithms by name, with what each guarantees, for nodes, the CLI and benchmarks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .informed import astar, idastar, uniform_cost
from .result import SearchResult
from .uninformed import bfs, bidirectional_bfs, dfs, iddfs


@dataclass(frozen=True)
class AlgorithmInfo:
    """One search algorithm and its guarantees.

    `optimal`: the algorithm guarantees a least-cost path; when `unit_cost_only` that holds only
    for problems whose steps all cost the same (the breadth-first family minimises steps).
    `informed`: it uses `problem.heuristic`. `reversible`: it needs a ReversibleProblem.
    Calling the entry calls the algorithm.
    """

    name: str
    function: Callable[..., SearchResult]
    optimal: bool
    unit_cost_only: bool = False
    informed: bool = False
    reversible: bool = False

    def __call__(self, problem, budget=None, **options) -> SearchResult:
        """Run the algorithm on `problem`; `options` go to it (`depth_limit`, `max_depth`)."""
        return self.function(problem, budget, **options)


ALGORITHMS: dict[str, AlgorithmInfo] = {
    info.name: info
    for info in (
        AlgorithmInfo("bfs", bfs, optimal=True, unit_cost_only=True),
        AlgorithmInfo("dfs", dfs, optimal=False),
        AlgorithmInfo("iddfs", iddfs, optimal=True, unit_cost_only=True),
        AlgorithmInfo(
            "bidirectional_bfs", bidirectional_bfs, optimal=True, unit_cost_only=True,
            reversible=True,
        ),
        AlgorithmInfo("astar", astar, optimal=True, informed=True),
        AlgorithmInfo("idastar", idastar, optimal=True, informed=True),
        AlgorithmInfo("uniform_cost", uniform_cost, optimal=True),
    )
}
