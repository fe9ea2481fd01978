"""The one algorithm registry: every search by name, what it guarantees, where it runs compiled.

`ALGORITHMS` maps each algorithm's name to its `AlgorithmInfo`; no other module keeps a list
of algorithms. The grid and the puzzle offer the subsets in `DOMAIN_ALGORITHMS`, spelt as their
users know them: the grid says `dijkstra`, an alias of `uniform_cost` (one algorithm, one
entry), and each domain accepts its own spellings (`offered`); `lookup` accepts any.

An entry's `kernels` names, per domain, the compiled kernel family that runs it there
(`grid_planner.grid.kernels.run.FAMILIES`, `grid_planner.puzzle.compiled_idastar`); without one
the domain runs `function`, the readable reference implementation. A new algorithm is one entry
here (and a name in its domains); a new grid kernel family is one module and one FAMILIES entry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .informed import astar, idastar, uniform_cost
from .result import SearchResult
from .uninformed import bfs, bidirectional_bfs, dfs, iddfs

GRID = "grid"
PUZZLE = "puzzle"


@dataclass(frozen=True)
class AlgorithmInfo:
    """One search algorithm and its guarantees.

    `optimal`: the algorithm guarantees a least-cost path; when `unit_cost_only` that holds only
    for problems whose steps all cost the same (the breadth-first family minimises steps).
    `complete`: it finds a solution whenever one exists, also in an infinite state space with
    finite branching (depth-first search can descend forever). `memory`: what it holds.
    `informed`: it uses `problem.heuristic`. `reversible`: it needs a ReversibleProblem.
    `depth_option`: the keyword of its depth limit, if it takes one. `kernels`: domain -> the
    compiled kernel family that runs it there. Calling the entry calls the algorithm.
    """

    name: str
    function: Callable[..., SearchResult]
    description: str
    optimal: bool
    complete: bool
    memory: str
    unit_cost_only: bool = False
    informed: bool = False
    reversible: bool = False
    depth_option: str | None = None
    aliases: tuple[str, ...] = ()
    kernels: Mapping[str, str] = field(default_factory=dict)

    def __call__(self, problem, budget=None, **options) -> SearchResult:
        """Run the algorithm on `problem`; `options` go to it (`depth_limit`, `max_depth`)."""
        return self.function(problem, budget, **options)

    def kernel(self, domain: str) -> str | None:
        """The compiled kernel family that runs this algorithm in `domain` (None: reference)."""
        return self.kernels.get(domain)


ALGORITHMS: dict[str, AlgorithmInfo] = {
    info.name: info
    for info in (
        AlgorithmInfo(
            "bfs", bfs, "breadth-first search", optimal=True, complete=True,
            memory="frontier and visited set, O(b^d)", unit_cost_only=True,
            kernels={GRID: "breadth_first"},
        ),
        AlgorithmInfo(
            "dfs", dfs, "depth-first search: a valid path, usually far from the shortest",
            optimal=False, complete=False, memory="visited set and the current path",
            depth_option="depth_limit", kernels={GRID: "depth_first"},
        ),
        AlgorithmInfo(
            "iddfs", iddfs, "iterative deepening: depth-limited passes 0, 1, 2, ...",
            optimal=True, complete=True, memory="current path and the states seen in one pass",
            unit_cost_only=True, depth_option="max_depth",
        ),
        AlgorithmInfo(
            "bidirectional_bfs", bidirectional_bfs, "breadth-first from both ends",
            optimal=True, complete=True, memory="both frontiers and visited sets, O(b^(d/2))",
            unit_cost_only=True, reversible=True, kernels={GRID: "bidirectional"},
        ),
        AlgorithmInfo(
            "astar", astar, "A*: best-first by g + h, ties to the entry pushed last", optimal=True,
            complete=True, memory="open and closed sets, O(b^d) at worst", informed=True,
            kernels={GRID: "best_first"},
        ),
        AlgorithmInfo(
            "idastar", idastar, "IDA*: depth-first passes bounded by g + h", optimal=True,
            complete=True, memory="current path, O(d)", informed=True,
            kernels={PUZZLE: "idastar"},
        ),
        AlgorithmInfo(
            "uniform_cost", uniform_cost, "Dijkstra (uniform-cost search, A* without h)",
            optimal=True, complete=True, memory="open and closed sets", aliases=("dijkstra",),
            kernels={GRID: "best_first"},
        ),
    )
}

# The algorithms each domain offers, in the order its users see them (help texts, `compare`).
DOMAIN_ALGORITHMS: dict[str, tuple[str, ...]] = {
    GRID: ("astar", "dijkstra", "bfs", "dfs", "bidirectional_bfs"),
    PUZZLE: ("astar", "idastar", "bfs", "bidirectional_bfs", "iddfs", "dfs", "uniform_cost"),
}

_BY_NAME: dict[str, AlgorithmInfo] = {
    spelling: info
    for info in ALGORITHMS.values()
    for spelling in (info.name, *info.aliases)
}


def lookup(name: str) -> AlgorithmInfo | None:
    """The algorithm called `name` (its name or an alias), or None."""
    return _BY_NAME.get(name)


def domain_algorithms(domain: str) -> tuple[str, ...]:
    """The names `domain` offers, in its order."""
    return DOMAIN_ALGORITHMS[domain]


def offered(domain: str, name: str) -> AlgorithmInfo | None:
    """The algorithm `name` if `domain` offers it under that spelling, else None."""
    return _BY_NAME[name] if name in DOMAIN_ALGORITHMS[domain] else None
