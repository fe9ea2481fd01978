"""Grid benchmark: the project's planners beside the textbook and peers on the same queries.

Run from the repository root: `python bench/grid_bench.py [--quick] [--json PATH]` prints
one line per row; `bench/run_all.py` runs it together with the puzzle benchmark and writes
the reports. Each planner x scenario runs in its own worker process (see `measure`): it
warms up (JIT compile or cache load, timed apart), prepares the map (timed apart), runs the
query once while its peak memory is measured, then repeats it for the warm median.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import c_reference
import paired
import scenarios
from grid_planners import PLANNERS, SMALL_MAP_CELLS, UNIT_FAMILIES, project_warm_up
from measure import (
    PeakMemory,
    median_or_none,
    repeat_timings,
    run_worker,
    timed,
    worker_reply,
)

SEED = 2024
REPEATS = 7
REPEAT_BUDGET_S = 3.0
QUICK_REPEATS = 3
QUICK_REPEAT_BUDGET_S = 0.5
# Every query gets at least MIN_WARM_RUNS repeats, except one slower than SINGLE_RUN_S: its
# first run is its only sample.
MIN_WARM_RUNS = 2
SINGLE_RUN_S = 20.0
WORKER_TIMEOUT_S = 900.0
# Below this the textbook's peak is page-granularity noise and a memory ratio means nothing.
MIN_MEMORY_FOR_RATIO_MB = 1.0

# The project's rows on this scenario compile the kernels from scratch (empty numba cache);
# elsewhere compile_s is numba loading its cache.
FRESH_COMPILE_SCENARIO = "tutorial"
# The speed references and the cost-field family run on the three big maps only.
SPEED_PLANNERS = ("c_bfs", "c_astar_two_stack", "c_astar_heap", "project_astar8_costs",
                  "pyastar2d_8_costs", "project_astar4_costs", "pyastar2d_4_costs")
ALL_PLANNERS = tuple(name for name in PLANNERS if name not in SPEED_PLANNERS)
QUICK_PLANNERS = ("project_astar", "project_bfs", "textbook_astar", "textbook_bfs", "c_bfs",
                  "c_astar_two_stack", "project_astar8_costs", "pyastar2d_8_costs")
TILE_PLANNERS = ("project_astar", "pyastar2d")
# Rows left out on purpose, with the reason the report gives.
_WAREHOUSE_TEXTBOOK = ("skipped: both searches expand ~10M cells here; the tuple-dict "
                       "versions would need several GB and minutes")
DELIBERATE_SKIPS = {
    ("warehouse4096", "textbook_astar"): _WAREHOUSE_TEXTBOOK,
    ("warehouse4096", "textbook_bfs"): _WAREHOUSE_TEXTBOOK,
}


def build_scenarios(quick: bool) -> list[tuple[scenarios.GridScenario, tuple[str, ...]]]:
    """The scenarios of this run, each with the planners to run on it."""
    alone, embedded = scenarios.embedded_tile(SEED)
    if quick:
        return [
            (scenarios.tutorial(), ALL_PLANNERS),
            (scenarios.random_obstacles(512, SEED), QUICK_PLANNERS),
            (scenarios.turtlebot3_world(), ("project_astar", "textbook_astar")),
            (alone, ("project_astar",)),
            (embedded, ("project_astar",)),
        ]
    return [
        (scenarios.tutorial(), ALL_PLANNERS),
        (scenarios.random_obstacles(512, SEED), ALL_PLANNERS),
        (scenarios.random_obstacles(2048, SEED), ALL_PLANNERS + SPEED_PLANNERS),
        (scenarios.perfect_maze(1024, SEED), ALL_PLANNERS + SPEED_PLANNERS),
        (scenarios.warehouse(4096, SEED), ALL_PLANNERS + SPEED_PLANNERS),
        (scenarios.turtlebot3_world(), ALL_PLANNERS),
        (alone, TILE_PLANNERS),
        (embedded, TILE_PLANNERS),
    ]


# --- the worker -------------------------------------------------------------------------------


def worker(spec: dict) -> dict:
    """Run one planner on one saved scenario and measure it (in this fresh process)."""
    planner = PLANNERS[spec["planner"]]
    scenario = scenarios.load_scenario(spec["scenario"])
    answer: dict = {"compile_s": project_warm_up() if planner.compiled else None}
    with PeakMemory() as prep_memory:
        answer["prep_s"], query = timed(lambda: planner.prepare(scenario))
    with PeakMemory() as memory:
        answer["first_s"], (length, expanded, first_search_s) = timed(query)
    search_times: list[float] = []

    def warm_query() -> object:
        found = query()
        if found[2] is not None:
            search_times.append(found[2])
        return found

    warm = []
    if answer["first_s"] <= SINGLE_RUN_S:
        warm = repeat_timings(warm_query, spec["repeats"], spec["budget_s"], MIN_WARM_RUNS)
    # Only the project has warm state (compiled kernels, search buffers) that the first run
    # sets up; for the others the first run is a sample like any other.
    samples = warm if planner.compiled else [answer["first_s"], *warm]
    answer.update(
        length=length,
        expanded=expanded,
        warm_s=median_or_none(samples) if samples else answer["first_s"],
        search_s=median_or_none(search_times) if search_times else first_search_s,
        warm_runs=len(warm),
        # A C reference runs in a process of its own, which this one does not measure.
        prep_mb=None if planner.kind == "c" else prep_memory.megabytes,
        peak_mb=None if planner.kind == "c" else memory.megabytes,
    )
    return answer


# --- the run ----------------------------------------------------------------------------------


def _skip_reason(planner_name: str, scenario: scenarios.GridScenario) -> str | None:
    planner = PLANNERS[planner_name]
    missing = planner.missing()
    if missing:
        return f"skipped: {missing}"
    if planner.too_big(scenario):
        return f"skipped: limited to maps up to {SMALL_MAP_CELLS:,} cells"
    return DELIBERATE_SKIPS.get((scenario.name, planner_name))


def _add_ratios(rows: list[dict]) -> None:
    """Give each row its speed-up over the textbook reference of its family, same scenario."""
    reference = {
        (row["scenario"], row["family"]): row
        for row in rows
        if row["kind"] == "textbook" and row.get("warm_s")
    }
    for row in rows:
        ref = reference.get((row["scenario"], row["family"]))
        # A C row's warm time is a whole process run: no ratio of it means anything.
        if ref is not None and row.get("warm_s") and row["kind"] != "c":
            row["speedup_vs_textbook"] = ref["warm_s"] / row["warm_s"]
            own, textbook = row.get("peak_mb"), ref.get("peak_mb") or 0.0
            if own is not None and textbook >= MIN_MEMORY_FOR_RATIO_MB:
                row["memory_vs_textbook"] = own / textbook


def _length_disagreements(scenario: scenarios.GridScenario, rows: list[dict]) -> list[str]:
    measured = {row["planner"]: row["length"] for row in rows
                if row.get("length") is not None and row["family"] in UNIT_FAMILIES}
    expected = scenario.expected_length
    lengths = set(measured.values()) | ({expected} if expected is not None else set())
    if len(lengths) <= 1:
        return []
    listed = ", ".join(f"{name} {length}" for name, length in measured.items())
    known = f" (known optimum {expected})" if expected is not None else ""
    return [f"{scenario.name}: path lengths disagree: {listed}{known}"]


def _measure_row(
    scenario: scenarios.GridScenario, path: Path, name: str, quick: bool, folder: str
) -> dict:
    """One table row: planner `name` on `scenario` (saved at `path`), in a worker process."""
    planner = PLANNERS[name]
    row = {"scenario": scenario.name, "planner": name, "family": planner.family,
           "kind": planner.kind}
    skip = _skip_reason(name, scenario)
    if skip is not None:
        return {**row, "note": skip}
    spec = {"planner": name, "scenario": str(path),
            "repeats": QUICK_REPEATS if quick else REPEATS,
            "budget_s": QUICK_REPEAT_BUDGET_S if quick else REPEAT_BUDGET_S}
    env = None
    if planner.compiled and not quick and scenario.name == FRESH_COMPILE_SCENARIO:
        # An empty numba cache: this row's compile_s is a real compile.
        env = {"NUMBA_CACHE_DIR": tempfile.mkdtemp(dir=folder)}
        row["fresh_compile"] = True
    row["worker_s"], answer = timed(
        lambda: run_worker(Path(__file__), spec, WORKER_TIMEOUT_S, env)
    )
    return {**row, **answer}


def run(quick: bool, log=print) -> dict:
    """Run the grid benchmark; returns its JSON-ready results."""
    began = time.perf_counter()
    generated_s, plan = timed(lambda: build_scenarios(quick))
    log(f"grid: {len(plan)} scenarios generated in {generated_s:.1f} s")
    rows: list[dict] = []
    disagreements: list[str] = []
    with tempfile.TemporaryDirectory(prefix="grid_bench_") as folder:
        c_skipped = c_reference.compile_reference(Path(folder))
        if c_skipped:
            log(f"grid: C references skipped: {c_skipped}")
        saved: dict[str, Path] = {}
        for scenario, planner_names in plan:
            path = saved[scenario.name] = scenario.save(Path(folder))
            scenario_rows = []
            for name in planner_names:
                scenario_rows.append(_measure_row(scenario, path, name, quick, folder))
                log(_progress(scenario_rows[-1]))
            disagreements += _length_disagreements(scenario, scenario_rows)
            rows += scenario_rows
        log("grid: paired speed ratios (bench/paired.py)")
        pairs = paired.run(saved, rows, quick, log)
    _add_ratios(rows)
    for line in disagreements:
        log(f"!!! {line}")
    return {
        "scenarios": [scenario.describe() for scenario, _ in plan],
        "rows": rows,
        "pairs": pairs,
        "length_disagreements": disagreements,
        "seconds": time.perf_counter() - began,
    }


def _progress(row: dict) -> str:
    head = f"  {row['scenario']:<22} {row['planner']:<18}"
    if "error" in row:
        return f"{head} ERROR {row['error']}"
    if "note" in row:
        return f"{head} {row['note']}"
    return (f"{head} warm {row['warm_s'] * 1e3:10.2f} ms  length {row['length']}  "
            f"expanded {row['expanded']}  peak {row['peak_mb'] or 0.0:.1f} MB  "
            f"(worker {row['worker_s']:.1f} s)")


def main(argv: list[str] | None = None) -> int:
    """Command line: `--quick` for the small set, `--worker SPEC` is internal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small maps only (seconds)")
    parser.add_argument("--json", metavar="PATH", help="also write the results here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker_reply(worker(json.loads(args.worker)))
        return 0
    results = run(args.quick, log=lambda line: print(line, file=sys.stderr))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 1 if results["length_disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
