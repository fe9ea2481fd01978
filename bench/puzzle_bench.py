"""Sliding-puzzle benchmark: the project's solver beside a textbook A* and a peer.

Run from the repository root: `python bench/puzzle_bench.py [--quick] [--json PATH]` prints
progress; `bench/run_all.py` runs it together with the grid benchmark and writes the
reports. Each solver x board set runs in its own worker process: one solve of a one-move
board first (it builds whatever tables the solver makes once, timed apart as `setup_s`), then
the set, with peak memory measured over the set.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import puzzle_sets
from measure import (
    PeakMemory,
    alternating_rounds,
    median_or_none,
    paired_summary,
    run_worker,
    timed,
    worker_reply,
)
from puzzle_planners import (
    SLIDINGPUZZLE,
    TEXTBOOK,
    best_project_heuristic,
    default_settings,
    eight_puzzle_solvers,
    is_pattern_database,
    load_kernels,
    project_solver,
    runs_as,
    solver_from_spec,
    table_heuristics,
)

SEED = 2024
RANDOM_COUNT = 200
QUICK_RANDOM_COUNT = 20
HARDEST_REPEATS = 3
# The peer builds a NumPy array per node (seconds per hard board): it gets a subset.
PEER_RANDOM_COUNT = 50
QUICK_PEER_RANDOM_COUNT = 5
QUICK_KORF_COUNT = 3
FULL_ALGORITHMS = ("astar", "idastar")
QUICK_ALGORITHMS = ("idastar",)  # --quick checks each heuristic once
WORKER_TIMEOUT_S = 1800.0
# The speed target's pairing: rounds, and passes of the project's (fast) solver per round.
PAIRED_ROUNDS = 5
QUICK_PAIRED_ROUNDS = 2
PAIRED_BLOCK = 3
# Where the project's solver caches its pattern databases (grid_planner.puzzle.tables.store).
CACHE_ENV = "GRID_PLANNER_CACHE_DIR"


def _one_move_board(side: int) -> tuple[int, ...]:
    """The goal with its last two cells swapped: solved by one move."""
    count = side * side
    return (*range(1, count - 1), 0, count - 1)


# --- the worker -------------------------------------------------------------------------------


def worker(spec: dict) -> dict:
    """Solve `spec["boards"]` with one solver (in this fresh process) and measure it.

    `budget_s` limits each solve (the project's solver only); once `total_s` seconds have
    been spent the remaining boards are left out (reported as not attempted).
    """
    if "theirs" in spec:
        return paired_worker(spec)
    solver = solver_from_spec(spec["solver"])
    load_s = load_kernels(solver)
    solve = solver.make(spec.get("budget_s"))
    boards = [tuple(board) for board in spec["boards"]]
    setup_s, _ = timed(lambda: solve(_one_move_board(round(len(boards[0]) ** 0.5))))
    total_s = spec.get("total_s")
    repeats = spec.get("repeats", 1)
    results: list[dict] = []
    spent = 0.0
    with PeakMemory() as memory:
        for board in boards:
            if total_s is not None and spent >= total_s:
                results.append({"attempted": False})
                continue
            samples = []
            for _ in range(repeats):
                seconds, (length, expanded) = timed(lambda board=board: solve(board))
                samples.append(seconds)
            spent += sum(samples)
            results.append({"attempted": True, "length": length, "expanded": expanded,
                            "seconds": statistics.median(samples)})
    return {"load_s": load_s, "setup_s": setup_s, "boards": results,
            "peak_mb": memory.megabytes}


def paired_worker(spec: dict) -> dict:
    """The solvers `spec["ours"]` and `spec["theirs"]` on the same boards in alternating
    rounds (this process), the order swapped every round: a round times the whole set once for
    `theirs` and, for `ours`, the median of `spec["block"]` passes. Set-up (a one-move board
    each) comes first and is not timed."""
    solvers = [solver_from_spec(spec["ours"]), solver_from_spec(spec["theirs"])]
    solves = []
    for solver in solvers:
        load_kernels(solver)
        solves.append(solver.make(None))
    boards = [tuple(board) for board in spec["boards"]]
    for solve in solves:
        solve(_one_move_board(round(len(boards[0]) ** 0.5)))

    def whole_set(solve) -> float:
        return sum(timed(lambda board=board: solve(board))[0] for board in boards)

    totals = alternating_rounds([lambda solve=solve: whole_set(solve) for solve in solves],
                                spec["rounds"], (spec["block"], 1))
    return {"ours_s": totals[0], "theirs_s": totals[1], "block": spec["block"]}


# --- summaries --------------------------------------------------------------------------------


def _summary(name: str, kind: str, answer: dict, reference: list[int | None]) -> dict:
    """One table row: totals over the attempted boards and lengths checked against
    `reference` (the known optimum per board, None where unknown)."""
    row: dict = {"solver": name, "kind": kind}
    if "error" in answer:
        return {**row, "error": answer["error"]}
    boards = answer["boards"]
    attempted = [b for b in boards if b["attempted"]]
    solved = [b for b in attempted if b["length"] is not None]
    times = [b["seconds"] for b in attempted]
    wrong = sum(
        1 for b, known in zip(boards, reference, strict=True)
        if b["attempted"] and None not in (b["length"], known) and b["length"] != known
    )
    expanded = [b["expanded"] for b in attempted if b["expanded"] is not None]
    return {
        **row,
        "boards": len(boards),
        "attempted": len(attempted),
        "solved": len(solved),
        "wrong_length": wrong,
        "total_s": sum(times),
        "median_s": median_or_none(times),
        "max_s": max(times, default=None),
        "expanded_total": sum(expanded) if expanded else None,
        "setup_s": answer["setup_s"],
        "load_s": answer.get("load_s"),
        "peak_mb": answer["peak_mb"],
        "process_peak_mb": answer.get("process_peak_mb"),
        "per_board": boards,
    }


def _add_ratios(rows: list[dict]) -> None:
    """Each row's speed-up over the textbook on the same boards (sum of per-board times)."""
    textbook = next((r for r in rows if r["solver"] == TEXTBOOK.name and "per_board" in r), None)
    if textbook is None:
        return
    for row in rows:
        if "per_board" not in row or row["attempted"] == 0:
            continue
        same = sum(
            ref["seconds"]
            for ref, own in zip(textbook["per_board"], row["per_board"], strict=False)
            if own["attempted"]
        )
        row["speedup_vs_textbook"] = same / row["total_s"] if row["total_s"] else None


def best_project_row(puzzle_set: dict) -> dict | None:
    """The fastest project configuration (by total time) that solved every board optimally."""
    rows = [r for r in puzzle_set["rows"] if r["kind"] == "project" and r.get("total_s")
            and r["solved"] == r["boards"] and not r["wrong_length"]]
    return min(rows, key=lambda r: r["total_s"], default=None)


def _paired_with_textbook(puzzle_set: dict, boards: list, solvers: list, rounds: int,
                          log) -> dict | None:
    """The set's fastest project row and the textbook A* timed again on `boards` in one worker,
    in alternating rounds (`paired_worker`); None when either has no clean row."""
    best = best_project_row(puzzle_set)
    ours = next((s for s in solvers if best is not None and s.name == best["solver"]), None)
    textbook = next((r for r in puzzle_set["rows"] if r["solver"] == TEXTBOOK.name), None)
    if ours is None or textbook is None or "per_board" not in textbook:
        return None
    answer = run_worker(
        Path(__file__), {"ours": ours.spec(), "theirs": TEXTBOOK.spec(), "boards": boards,
                         "rounds": rounds, "block": PAIRED_BLOCK},
        WORKER_TIMEOUT_S,
    )
    entry = {"ours": ours.name, "theirs": TEXTBOOK.name}
    if "error" in answer:
        log(f"  paired     {ours.name} / {TEXTBOOK.name}: {answer['error']}")
        return {**entry, "error": answer["error"]}
    found = {**entry, **paired_summary(answer)}
    ratios = ", ".join(f"{1.0 / ratio:.1f}" for ratio in found["ratios"])
    log(f"  paired     {TEXTBOOK.name} / {ours.name}: {ratios}")
    return found


def _run_set(
    title: str, boards: list, known: list | None, solvers: list, log, peer_boards: int,
    **spec: object,
) -> dict:
    """Every solver on `boards` (the slow peer on the first `peer_boards` only); lengths are
    checked against `known` (the optimal lengths), or, where those are not known in advance,
    against the textbook A*'s (optimal too)."""
    answers = []
    for solver in solvers:
        missing = solver.missing()
        if solver is SLIDINGPUZZLE and not peer_boards:
            missing = "left out of this run (slow)"
        if missing:
            answers.append((solver, None, f"skipped: {missing}"))
            log(f"  {title:<10} {solver.name:<34} skipped: {missing}")
            continue
        subset = boards[:peer_boards] if solver is SLIDINGPUZZLE else boards
        answer = run_worker(
            Path(__file__), {"solver": solver.spec(), "boards": subset, **spec},
            WORKER_TIMEOUT_S,
        )
        note = f"first {len(subset)} boards only (the peer is slow)" if subset != boards else ""
        answers.append((solver, answer, note))
        log(f"  {title:<10} {solver.name:<34} " + (answer.get("error") or "done"))
    if known is None:
        textbook = next((a for s, a, _ in answers if s is TEXTBOOK and a and "error" not in a),
                        None)
        known = ([b["length"] for b in textbook["boards"]] if textbook
                 else [None] * len(boards))
    rows = []
    for solver, answer, note in answers:
        row = {"solver": solver.name, "kind": solver.kind}
        if answer is not None:
            row = _summary(solver.name, solver.kind, answer, known[: len(answer.get("boards", []))])
        if note:
            row["note"] = note
        rows.append(row)
    _add_ratios(rows)
    disagreements = [
        f"{title}: {row['solver']} found a different length than the optimum on "
        f"{row['wrong_length']} board(s)"
        for row in rows if row.get("wrong_length")
    ]
    for line in disagreements:
        log(f"!!! {line}")
    return {"title": title, "boards": len(boards), "repeats": spec.get("repeats", 1),
            "rows": rows, "length_disagreements": disagreements}


def _korf(quick: bool, budget_s: float, total_s: float, log) -> dict:
    """Korf's 100 with the project's default settings (the board alone, as the CLI and the
    node solve it: `auto`, the default memory budget, `budget_s` per instance), easiest first;
    where the solver has no defaults, its IDA* with its strongest heuristic."""
    instances = sorted(puzzle_sets.korf_100(), key=lambda k: k.ida_md_nodes)
    if quick:
        instances = instances[:QUICK_KORF_COUNT]
    defaults = default_settings()
    heuristic = best_project_heuristic()
    if defaults is None:
        solver = project_solver("idastar", heuristic)
    else:
        solver = project_solver(defaults[0], defaults[0])
    result = {"heuristic": heuristic, "pattern_database": is_pattern_database(heuristic),
              "defaults": None if defaults is None else {"name": defaults[0],
                                                         "max_nodes": defaults[1]},
              "budget_s": budget_s, "total_cap_s": total_s, "order": "easiest first "
              "(by Korf's IDA*-Manhattan node counts)",
              "instances": [k.number for k in instances]}
    missing = solver.missing()
    if missing:
        log(f"  korf100    skipped: {missing}")
        return {**result, "note": f"skipped: {missing}"}
    answer = run_worker(
        Path(__file__),
        {"solver": solver.spec(), "boards": [k.board for k in instances], "budget_s": budget_s,
         "total_s": total_s},
        total_s + budget_s + WORKER_TIMEOUT_S,
    )
    row = _summary(solver.name, solver.kind, answer, [k.optimal_length for k in instances])
    if "error" in row:
        log(f"  korf100    ERROR {row['error']}")
        return {**result, **row}
    for instance, board in zip(instances, row["per_board"], strict=True):
        board.update(number=instance.number, optimal=instance.optimal_length)
    row["optimal_solved"] = row["solved"] - row["wrong_length"]
    log(f"  korf100    {solver.name}: {row['optimal_solved']}/{len(instances)} at the optimal "
        f"length, {row['attempted']} attempted, {row['total_s']:.1f} s")
    return {**result, **row}


def _cold_table_builds(log) -> list[dict]:
    """For each table heuristic and each board size it has a table for, the seconds of its
    first solve with an empty table cache ($GRID_PLANNER_CACHE_DIR), the kernels loaded
    before: the one-off build itself."""
    builds = []
    for heuristic in table_heuristics():
        solver = project_solver("idastar", heuristic)
        for side in (side for side in (3, 4) if runs_as(heuristic, side) == heuristic):
            with tempfile.TemporaryDirectory(prefix="grid_planner_pdb_") as cache:
                answer = run_worker(
                    Path(__file__), {"solver": solver.spec(), "boards": [_one_move_board(side)]},
                    WORKER_TIMEOUT_S, {CACHE_ENV: cache},
                )
            build = {"heuristic": heuristic, "side": side, "build_s": answer.get("setup_s"),
                     "error": answer.get("error")}
            log(f"  tables     {heuristic} {side}x{side} from scratch: "
                + (build["error"] or f"{build['build_s']:.2f} s"))
            builds.append(build)
    return builds


def run(quick: bool, korf_budget_s: float, korf_total_s: float, log=print) -> dict:
    """Run the puzzle benchmark; returns its JSON-ready results."""
    began = time.perf_counter()
    solvers = eight_puzzle_solvers(QUICK_ALGORITHMS if quick else FULL_ALGORITHMS)
    hardest = list(puzzle_sets.HARDEST_8)
    random_count = QUICK_RANDOM_COUNT if quick else RANDOM_COUNT
    boards = puzzle_sets.random_8_puzzles(random_count, SEED)
    sets = [
        _run_set("hardest31", hardest, [puzzle_sets.HARDEST_LENGTH] * len(hardest), solvers,
                 log, 0 if quick else len(hardest), repeats=1 if quick else HARDEST_REPEATS),
        _run_set(f"random{random_count}", boards, None, solvers, log,
                 QUICK_PEER_RANDOM_COUNT if quick else PEER_RANDOM_COUNT),
    ]
    paired = _paired_with_textbook(sets[1], boards, solvers,
                                   QUICK_PAIRED_ROUNDS if quick else PAIRED_ROUNDS, log)
    korf = _korf(quick, korf_budget_s, korf_total_s, log)
    builds = [] if quick else _cold_table_builds(log)  # seconds each: full runs only
    return {"sets": sets, "paired": paired, "korf100": korf, "table_builds": builds, "seed": SEED,
            "seconds": time.perf_counter() - began}


def main(argv: list[str] | None = None) -> int:
    """Command line: `--quick`, Korf budgets; `--worker SPEC` is internal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    parser.add_argument("--json", metavar="PATH", help="also write the results here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker_reply(worker(json.loads(args.worker)))
        return 0
    results = run(args.quick, args.korf_budget, args.korf_total,
                  log=lambda line: print(line, file=sys.stderr))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 1 if any(s["length_disagreements"] for s in results["sets"]) else 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options shared with `run_all.py`."""
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_RANDOM_COUNT} random boards, {QUICK_KORF_COUNT} Korf "
                        "instances (seconds)")
    parser.add_argument("--korf-budget", type=float, default=10.0, metavar="S",
                        help="time limit per Korf instance (default 10 s)")
    parser.add_argument("--korf-total", type=float, default=300.0, metavar="S",
                        help="stop attempting Korf instances after this many seconds "
                        "(default 300 s)")


if __name__ == "__main__":
    sys.exit(main())
