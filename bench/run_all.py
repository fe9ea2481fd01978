"""Run every benchmark (grid, then puzzles), judge the targets, write the reports.

`make bench` runs this from the repository root. A full run writes
`bench/results/latest.json` and `docs/benchmarks.md`; `--quick` (a small subset, for checking
the scripts in well under a minute) writes `bench/results/quick.json` and
`bench/results/quick.md` instead, and skips the over-ROS measurement. The exit status is 1
when planners disagree on a path length, 2 when the shared data folder (maps, puzzle sets) is
missing, 0 otherwise: targets are reported, not enforced (benchmarks are not tests).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import grid_bench
import puzzle_bench
import report
from grid_planners import PLANNERS
from measure import REPO_ROOT, RESULTS_DIR, machine_info, run_json
from puzzle_planners import eight_puzzle_solvers
from scenarios import shared_dir

BENCH_DIR = REPO_ROOT / "bench"
ROS_TIMEOUT_S = 300.0
QUALITY_TIMEOUT_S = 600.0
LIVE_TIMEOUT_S = 600.0


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _notes() -> list[str]:
    """Which optional peers this run had to leave out."""
    notes = [f"grid peer {p.name} skipped: {p.missing()}" for p in PLANNERS.values()
             if p.kind == "peer" and p.missing()]
    notes += [f"puzzle peer {s.name} skipped: {s.missing()}" for s in eight_puzzle_solvers()
              if s.kind == "peer" and s.missing()]
    if notes:
        notes.append("`make bench` installs the peers of bench/requirements*.txt")
    return notes


def main(argv: list[str] | None = None) -> int:
    """Run everything; see the module docstring for what is written where."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    puzzle_bench.add_arguments(parser)
    args = parser.parse_args(argv)
    shared = shared_dir()
    if not (shared / "maps").is_dir() or not (shared / "puzzles").is_dir():
        _log(f"bench: no maps/ and puzzles/ in the shared data folder {shared}: set "
             "GRID_PLANNER_SHARED to the folder (make bench SHARED=DIR)")
        return 2
    began = time.perf_counter()
    load_average_start = round(os.getloadavg()[0], 2)
    _log("grid benchmark" + (" (quick)" if args.quick else ""))
    grid = grid_bench.run(args.quick, log=_log)
    _log("path quality (bench/path_quality.py)")
    quality = run_json(BENCH_DIR / "path_quality.py", ["--quick"] if args.quick else [],
                       QUALITY_TIMEOUT_S)
    _log(f"  {quality.get('error') or 'done'}")
    _log("live maps (bench/live_maps.py)")
    live = run_json(BENCH_DIR / "live_maps.py", ["--quick"] if args.quick else [],
                    LIVE_TIMEOUT_S)
    _log(f"  {live.get('error') or 'done'}")
    _log("puzzle benchmark" + (" (quick)" if args.quick else ""))
    puzzle = puzzle_bench.run(args.quick, args.korf_budget, args.korf_total, log=_log)
    disagreements = grid["length_disagreements"] + [
        line for puzzle_set in puzzle["sets"] for line in puzzle_set["length_disagreements"]
    ]
    if args.quick:
        ros = {"note": "not run with --quick"}
    else:
        _log("over-ROS overhead (bench/ros_overhead.py)")
        ros = run_json(BENCH_DIR / "ros_overhead.py", [], ROS_TIMEOUT_S)
        _log(f"  {ros.get('error') or 'done'}")
    korf = puzzle["korf100"]
    if korf.get("wrong_length"):
        disagreements.append(f"korf100: {korf['wrong_length']} instance(s) solved at a length "
                             "other than the published optimum")
    results = {
        "meta": {"machine": machine_info(), "quick": args.quick,
                 "load_average_start": load_average_start,
                 "seconds": time.perf_counter() - began},
        "targets": report.targets(grid, puzzle, ros, quality) + live.get("targets", []),
        "length_disagreements": disagreements,
        "notes": _notes(),
        "grid": grid,
        "path_quality": quality,
        "live_maps": live,
        "puzzle": puzzle,
        "ros": ros,
    }
    stem = "quick" if args.quick else "latest"
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / f"{stem}.json").write_text(json.dumps(results, indent=2) + "\n")
    text = report.markdown(results)
    markdown_path = RESULTS_DIR / "quick.md" if args.quick else REPO_ROOT / "docs" / "benchmarks.md"
    markdown_path.parent.mkdir(parents=True, exist_ok=True)
    markdown_path.write_text(text)
    for target in results["targets"]:
        _log(f"{target['status']:<4}  {target['name']}: {target['measured']} "
             f"(target {target['target']})")
    for line in disagreements:
        _log(f"!!! LENGTH DISAGREEMENT: {line}")
    _log(f"wrote {markdown_path.relative_to(REPO_ROOT)} and "
         f"{(RESULTS_DIR / f'{stem}.json').relative_to(REPO_ROOT)} in "
         f"{results['meta']['seconds']:.0f} s")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
