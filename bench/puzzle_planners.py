"""The sliding-puzzle solvers under test, behind one small interface.

A solver maps a board (goal 1..n*n-1, 0) to `(moves or None if unsolved, nodes expanded or
None)`. The project's solver is run in every configuration worth timing: each informed
algorithm with each heuristic it offers except `misplaced` (far weaker than Manhattan), and a
pattern-database heuristic when one appears in its heuristic list.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

import textbook
from measure import module_missing
from puzzle_sets import Board

Solve = Callable[[Board], tuple[int | None, int | None]]

SOLVER_MODULE = "grid_planner.puzzle.solver"
# Words that mark a pattern-database heuristic in the solver's heuristic names.
PDB_MARKERS = ("pdb", "pattern", "database")
WEAK_HEURISTICS = ("misplaced",)


@dataclass(frozen=True)
class PuzzleSolver:
    """A solver: where it comes from and how to make its solve function.

    `make(budget_s)` returns the solve function; `budget_s` is a per-board time limit that
    only the project's solver honours (None: no limit).
    """

    name: str
    kind: str  # "project", "textbook" or "peer"
    module: str
    make: Callable[[float | None], Solve]
    algorithm: str = ""
    heuristic: str = ""

    def spec(self) -> dict:
        """What a worker process needs to rebuild this solver (`solver_from_spec`)."""
        return {"kind": self.kind, "name": self.name, "algorithm": self.algorithm,
                "heuristic": self.heuristic}

    def missing(self) -> str | None:
        """Why this solver cannot run here (None when it can)."""
        return module_missing(self.module)


def project_heuristics() -> list[str]:
    """The heuristic names the project's solver accepts (empty when it is missing)."""
    try:
        solver = importlib.import_module(SOLVER_MODULE)
    except ImportError:
        return []
    names = getattr(solver, "HEURISTIC_NAMES", None)
    if names is None:  # the package's list of every heuristic name
        names = importlib.import_module("grid_planner.puzzle").HEURISTICS
    return list(names)


def is_pattern_database(heuristic: str) -> bool:
    """Whether a heuristic name marks a pattern database."""
    return any(marker in heuristic.lower() for marker in PDB_MARKERS)


def table_heuristics() -> list[str]:
    """The project's heuristics that look up precomputed tables (built once, then cached):
    those outside the heuristics module's `CLASSIC_HEURISTICS` (computed from the board
    alone), or, where it has no such list, the pattern databases by name."""
    names = project_heuristics()
    try:
        classic = importlib.import_module("grid_planner.puzzle.heuristics").CLASSIC_HEURISTICS
    except (ImportError, AttributeError):
        return [name for name in names if is_pattern_database(name)]
    return [name for name in names if name not in classic]


def best_project_heuristic() -> str:
    """The strongest heuristic on offer: a pattern database if any, else linear conflict."""
    names = project_heuristics()
    databases = [name for name in names if is_pattern_database(name)]
    return databases[0] if databases else "linear_conflict"


def default_settings() -> tuple[str, int | None] | None:
    """The name the project's solver gives its default choice ("auto") and its default memory
    budget in states (None where it has none), or None for a version without defaults."""
    try:
        puzzle = importlib.import_module("grid_planner.puzzle")
    except ImportError:
        return None
    auto = getattr(puzzle, "AUTO", None)
    if auto is None:
        return None
    # Older versions kept the default in the CLI's parser.
    for module, name in (("grid_planner.puzzle.solver", "DEFAULT_SOLVE_MAX_HELD"),
                         ("grid_planner.cli.parser", "DEFAULT_PUZZLE_MAX_NODES")):
        try:
            held = getattr(importlib.import_module(module), name, None)
        except ImportError:
            held = None
        if held is not None:
            return auto, held
    return auto, None


def _project(algorithm: str, heuristic: str) -> Callable[[float | None], Solve]:
    def make(budget_s: float | None) -> Solve:
        from grid_planner.puzzle.solver import solve
        from grid_planner.search.result import Budget

        defaults = default_settings()
        memory = defaults[1] if defaults else None

        def run(board: Board) -> tuple[int | None, int | None]:
            # A time limit comes with the CLI's default memory budget, as a user gets it.
            budget = Budget.from_timeout(budget_s, max_held=memory) if budget_s else None
            report = solve(board, None, algorithm, heuristic, budget=budget).report()
            return (report.length if report.status == "SOLVED" else None), report.nodes_expanded

        return run

    return make


def project_solver(algorithm: str, heuristic: str) -> PuzzleSolver:
    """The project's solver with one algorithm and heuristic."""
    return PuzzleSolver(f"project_{algorithm}_{heuristic}", "project", SOLVER_MODULE,
                        _project(algorithm, heuristic), algorithm, heuristic)


def _textbook(_budget_s: float | None) -> Solve:
    def run(board: Board) -> tuple[int | None, int | None]:
        goal = (*range(1, len(board)), 0)
        return textbook.puzzle_astar(board, goal)

    return run


def _slidingpuzzle(_budget_s: float | None) -> Solve:
    import numpy as np
    import slidingpuzzle

    def run(board: Board) -> tuple[int | None, int | None]:
        side = round(len(board) ** 0.5)
        found = slidingpuzzle.search(
            np.array(board).reshape(side, side), "a*", heuristic=slidingpuzzle.manhattan_distance
        )
        moves = None if found.solution is None else len(found.solution)
        return moves, found.expanded

    return run


TEXTBOOK = PuzzleSolver("textbook_astar", "textbook", "textbook", _textbook)
SLIDINGPUZZLE = PuzzleSolver("slidingpuzzle_astar", "peer", "slidingpuzzle", _slidingpuzzle)


def eight_puzzle_solvers(algorithms: tuple[str, ...] = ("astar", "idastar")) -> list[PuzzleSolver]:
    """The solvers timed on the 8-puzzle sets: textbook, the project with each of
    `algorithms` and each heuristic worth timing that runs as itself on a 3x3 board (one that
    would run as another, `pdb` as the exact table, would only repeat that one's row), peer."""
    project = [
        project_solver(algorithm, heuristic)
        for algorithm in algorithms
        for heuristic in project_heuristics()
        if heuristic not in WEAK_HEURISTICS and runs_as(heuristic, 3) == heuristic
    ]
    return [TEXTBOOK, *project, SLIDINGPUZZLE]


def runs_as(heuristic: str, side: int) -> str:
    """The heuristic the project's solver runs for `heuristic` on `side` x `side` boards with
    the standard goal (a table heuristic without a table for them runs another); `heuristic`
    itself where the solver does not say."""
    try:
        resolve = importlib.import_module("grid_planner.puzzle.resolve")
    except ImportError:
        return heuristic
    kind_of = getattr(resolve, "heuristic_kind", None)
    if kind_of is None:
        return heuristic
    goal = bytes((*range(1, side * side), 0))
    return kind_of(heuristic, goal)[0]


def load_kernels(solver: PuzzleSolver) -> float:
    """Seconds to load (or compile) the project's compiled puzzle kernels in this process, so
    a solver's first solve times its own set-up only; 0 for the other solvers."""
    if solver.kind != "project":
        return 0.0
    warm_up = getattr(importlib.import_module("grid_planner.puzzle"), "warm_up", None)
    return 0.0 if warm_up is None else float(warm_up())


def solver_from_spec(spec: dict) -> PuzzleSolver:
    """The solver that `PuzzleSolver.spec` described (how a worker learns what to run)."""
    if spec["kind"] == "project":
        return project_solver(spec["algorithm"], spec["heuristic"])
    return {TEXTBOOK.name: TEXTBOOK, SLIDINGPUZZLE.name: SLIDINGPUZZLE}[spec["name"]]
