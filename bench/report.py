"""The benchmark's verdicts (PASS/FAIL against the issue's targets) and its Markdown report."""

from __future__ import annotations

from collections.abc import Iterable

import grid_targets
from puzzle_bench import best_project_row

GRID_ASTAR_SPEEDUP = 20.0
GRID_BFS_SPEEDUP = 50.0
GRID_BFS_MEMORY_SHARE = 0.1
TILE_RATIO = 3.0
TILE_MAX_EXPANDED = 10_000
PUZZLE8_SPEEDUP = 100.0
KORF_TOTAL_S = 60.0
KORF_MAX_S = 10.0


def _row(rows: Iterable[dict], **match: str) -> dict | None:
    for row in rows:
        if all(row.get(key) == value for key, value in match.items()):
            return row
    return None


def _verdict(name: str, target: str, passed: bool | None, measured: str) -> dict:
    status = "N/A" if passed is None else ("PASS" if passed else "FAIL")
    return {"name": name, "target": target, "status": status, "measured": measured}


def _astar_speedup(grid_rows: list[dict], scenario: str, label: str) -> dict:
    target = f">= {GRID_ASTAR_SPEEDUP:.0f}x faster than textbook A*"
    row = _row(grid_rows, scenario=scenario, planner="project_astar")
    if row is None or row.get("speedup_vs_textbook") is None:
        return _verdict(f"grid A*, {label}", target, None, "not measured in this run")
    speedup = row["speedup_vs_textbook"]
    return _verdict(f"grid A*, {label}", target, speedup >= GRID_ASTAR_SPEEDUP,
                    f"{speedup:.1f}x")


def _bfs_target(grid_rows: list[dict]) -> dict:
    name = "grid BFS, random 2048^2"
    target = (f">= {GRID_BFS_SPEEDUP:.0f}x faster than textbook BFS, peak memory <= "
              f"1/{1 / GRID_BFS_MEMORY_SHARE:.0f} of it")
    row = _row(grid_rows, scenario="random2048", planner="project_bfs")
    if row is None or row.get("speedup_vs_textbook") is None or "memory_vs_textbook" not in row:
        return _verdict(name, target, None, "not measured in this run")
    speedup, share = row["speedup_vs_textbook"], row["memory_vs_textbook"]
    passed = speedup >= GRID_BFS_SPEEDUP and share <= GRID_BFS_MEMORY_SHARE
    return _verdict(name, target, passed, f"{speedup:.1f}x faster, memory 1/{1 / share:.1f}")


def tile_ratio(grid_rows: list[dict]) -> dict | None:
    """The project's A* on the embedded tile: both warm times, expansions and their ratio."""
    small = _row(grid_rows, scenario="tile512", planner="project_astar")
    big = _row(grid_rows, scenario="tile512_in_4096", planner="project_astar")
    if not (small and big and small.get("warm_s") and big.get("warm_s")):
        return None
    return {"small_s": small["warm_s"], "big_s": big["warm_s"],
            "ratio": big["warm_s"] / small["warm_s"],
            "expanded": (small.get("expanded"), big.get("expanded"))}


def _tile_target(grid_rows: list[dict]) -> dict:
    name = "grid A*, same 512^2 tile in a 4096^2 map"
    target = f"warm time <= {TILE_RATIO:.0f}x the 512^2 map's"
    found = tile_ratio(grid_rows)
    if found is None:
        return _verdict(name, target, None, "not measured in this run")
    small_n, big_n = found["expanded"]
    measured = (f"{found['ratio']:.2f}x ({found['big_s'] * 1e3:.2f} vs "
                f"{found['small_s'] * 1e3:.2f} ms, {small_n} cells expanded)")
    if small_n != big_n or small_n is None or small_n >= TILE_MAX_EXPANDED:
        measured += f"; query invalid: expanded {small_n} vs {big_n} (must match, < 10,000)"
        return _verdict(name, target, False, measured)
    return _verdict(name, target, found["ratio"] <= TILE_RATIO, measured)


def _puzzle8_target(puzzle: dict) -> dict:
    name = "8-puzzle, 200 random boards"
    target = f">= {PUZZLE8_SPEEDUP:.0f}x faster in total than textbook A* (setup excluded)"
    chosen = next((s for s in puzzle["sets"] if s["title"] == "random200"), None)
    best = best_project_row(chosen) if chosen else None
    if best is None or best.get("speedup_vs_textbook") is None:
        return _verdict(name, target, None, "not measured in this run")
    paired = puzzle.get("paired")
    if paired and "error" not in paired:
        speedup, measured = grid_targets.paired_text(paired, speedup=True)
    else:
        speedup = best["speedup_vs_textbook"]
        measured = f"{speedup:.1f}x unpaired"
    return _verdict(name, target, speedup >= PUZZLE8_SPEEDUP,
                    f"{measured} with {best['solver']} (setup {best['setup_s']:.3f} s apart)")


def _korf_target(korf: dict) -> dict:
    name = "15-puzzle, Korf's 100"
    target = (f"all 100 at the published optimal length, < {KORF_TOTAL_S:.0f} s in total, "
              f"none > {KORF_MAX_S:.0f} s")
    if "per_board" not in korf or len(korf["per_board"]) < 100:
        return _verdict(name, target, None, "not measured in this run (all 100 needed)")
    passed = (korf["optimal_solved"] == 100 and korf["total_s"] < KORF_TOTAL_S
              and korf["max_s"] <= KORF_MAX_S)
    how = korf["heuristic"]
    if korf.get("defaults"):
        how = f"default settings ({korf['defaults']['name']}: {how})"
    measured = (f"{korf['optimal_solved']}/100 optimal ({korf['attempted']} attempted), "
                f"{korf['total_s']:.1f} s total, slowest {korf['max_s']:.1f} s, {how}")
    return _verdict(name, target, passed, measured)


# Over-ROS overhead targets: (text in the case name, limit in ms, what the issue names, text in
# the name of a case shown beside it).
ROS_TARGETS = (
    ("8-puzzle, 31 moves, astar/linear_conflict", 10.0, "solve_puzzle on a 31-move 8-puzzle",
     "8-puzzle, 31 moves, astar/table"),
    ("plan_path, raw client", 50.0,
     "plan_path answer of ~4,000 poses, 2048^2, to a client taking it raw",
     "plan_path, rclpy client"),
)


def _ros_case(ros: dict, text: str) -> dict | None:
    return next((c for c in ros.get("cases", []) if text in c["case"]), None)


def _overhead_text(case: dict) -> str:
    if not case["overhead_paired"]:
        return (f"+{case['overhead_ms']:.1f} ms (round trip {case['round_trip_ms']:.1f} ms minus "
                f"in-process {case['in_process_ms']:.1f} ms)")
    return (f"+{case['overhead_ms']:.1f} ms (round trip {case['round_trip_ms']:.1f} ms minus the "
            f"node's own planning_time of each call; minus the in-process median "
            f"{case['in_process_ms']:.1f} ms instead: +{case['overhead_vs_in_process_ms']:.1f} ms)")


def _ros_rows(ros: dict) -> list[dict]:
    rows = []
    for text, limit_ms, label, beside in ROS_TARGETS:
        name = f"over ROS: {label}"
        target = f"overhead (round trip - the same work's own time) <= {limit_ms:.0f} ms"
        case = _ros_case(ros, text)
        if case is None:
            rows.append(_verdict(name, target, None, ros.get("error") or "not measured"))
            continue
        measured = f"{text}: {_overhead_text(case)}"
        other = _ros_case(ros, beside)
        if other is not None:
            measured += f"; {beside}: {_overhead_text(other)}"
        rows.append(_verdict(name, target, case["overhead_ms"] <= limit_ms, measured))
    return rows


def targets(grid: dict, puzzle: dict, ros: dict, quality: dict) -> list[dict]:
    """Every target of the issues with its verdict from this run's numbers."""
    rows = grid["rows"]
    return [
        _astar_speedup(rows, "random2048", "random 2048^2"),
        _astar_speedup(rows, "maze1024", "maze 1024^2"),
        _bfs_target(rows),
        _tile_target(rows),
        *grid_targets.targets(grid, quality),
        _puzzle8_target(puzzle),
        _korf_target(puzzle["korf100"]),
        *_ros_rows(ros),
    ]


# --- Markdown ---------------------------------------------------------------------------------


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return f"{seconds * 1e3:.3f}" if seconds < 0.01 else f"{seconds * 1e3:,.1f}"


def _s(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds:.3f}"


def _mb(megabytes: float | None) -> str:
    return "" if megabytes is None else f"{megabytes:,.1f}"


def _count(value: int | None) -> str:
    return "" if value is None else f"{value:,}"


def _times(value: float | None) -> str:
    return "" if value is None else f"{value:,.1f}x"


def _table(header: list[str], lines: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cells) + " |" for cells in lines]
    return out


def _grid_section(grid: dict) -> list[str]:
    out = ["## Grid planning", ""]
    header = ["planner", "warm median ms", "search ms", "first ms", "compile s", "prep s",
              "expanded", "length", "peak MB", "speed vs textbook", "memory vs textbook"]
    for scenario in grid["scenarios"]:
        rows = [r for r in grid["rows"] if r["scenario"] == scenario["name"]]
        out += [f"### {scenario['title']}", "",
                f"{scenario['width']} x {scenario['height']} cells, "
                f"{scenario['blocked_fraction']:.1%} blocked, start {tuple(scenario['start'])}, "
                f"goal {tuple(scenario['goal'])} (cells x, y; y = 0 at the bottom).", ""]
        lines = []
        notes = []
        for row in rows:
            if "error" in row or "note" in row:
                notes.append(f"- {row['planner']}: {row.get('error') or row['note']}")
                continue
            memory = row.get("memory_vs_textbook")
            compile_s = _s(row.get("compile_s"))
            if row.get("fresh_compile"):
                compile_s += " (empty cache)"
            lines.append([
                row["planner"], _ms(row["warm_s"]), _ms(row.get("search_s")),
                _ms(row["first_s"]), compile_s, _s(row["prep_s"]), _count(row["expanded"]),
                _count(row["length"]), _mb(row["peak_mb"]),
                _times(row.get("speedup_vs_textbook")),
                "" if memory is None else f"{memory:.2f}",
            ])
        out += [*_table(header, lines), ""]
        if notes:
            out += [*notes, ""]
    found = tile_ratio(grid["rows"])
    if found:
        out += [f"Cost follows cells touched: the same tile query takes "
                f"{found['big_s'] * 1e3:.3f} ms warm in the 4096^2 map and "
                f"{found['small_s'] * 1e3:.3f} ms in the 512^2 map, a ratio of "
                f"{found['ratio']:.2f}.", ""]
    return out


def _puzzle_section(puzzle: dict) -> list[str]:
    out = ["## Sliding puzzles", ""]
    header = ["solver", "boards", "total s", "median ms", "max ms", "setup s", "expanded",
              "solved", "wrong length", "peak MB", "speed vs textbook"]
    for puzzle_set in puzzle["sets"]:
        solves = (f"median of {puzzle_set['repeats']} solves each" if puzzle_set["repeats"] > 1
                  else "one solve each")
        title = (f"The two 31-move 8-puzzles ({solves})" if puzzle_set["title"] == "hardest31"
                 else f"{puzzle_set['boards']} random solvable 8-puzzles (seed "
                 f"{puzzle['seed']}, {solves})")
        out += [f"### {title}", ""]
        lines, notes = [], []
        for row in puzzle_set["rows"]:
            if "error" in row or "total_s" not in row:
                notes.append(f"- {row['solver']}: {row.get('error') or row.get('note')}")
                continue
            if row.get("note"):
                notes.append(f"- {row['solver']}: {row['note']}; its speed is compared with "
                             "the textbook's time on the same boards")
            lines.append([
                row["solver"], str(row["attempted"]), _s(row["total_s"]), _ms(row["median_s"]),
                _ms(row["max_s"]), _s(row["setup_s"]), _count(row["expanded_total"]),
                f"{row['solved']}/{row['attempted']}", str(row["wrong_length"]),
                _mb(row["peak_mb"]), _times(row.get("speedup_vs_textbook")),
            ])
        out += _table(header, lines) + [""] + ([*notes, ""] if notes else [])
    out += _korf_section(puzzle["korf100"])
    builds = puzzle.get("table_builds", [])
    if builds:
        out += ["### One-off table builds", "",
                "The first solve with an empty table cache (`GRID_PLANNER_CACHE_DIR`), one "
                "worker per heuristic and each board size it has a table for (`table`: the "
                "exact table, up to 3x3, kept in memory only; `pdb`: 4x4, saved to the "
                "cache), its compiled kernels loaded first; the `setup s` columns above are "
                "the same first solve with the cache in place.", ""]
        out += _table(["heuristic", "board", "build s"],
                      [[b["heuristic"], f"{b['side']}x{b['side']}",
                        b["error"] or _s(b["build_s"])] for b in builds])
        out += [""]
    return out


def _korf_section(korf: dict) -> list[str]:
    out = ["### Korf's 100 15-puzzles", ""]
    if "per_board" not in korf:
        return [*out, f"Not run: {korf.get('error') or korf.get('note')}", ""]
    boards = korf["per_board"]
    unsolved = [b["number"] for b in boards if b["attempted"] and b["length"] is None]
    wrong = [b["number"] for b in boards if b.get("length") not in (None, b["optimal"])]
    skipped = [b["number"] for b in boards if not b["attempted"]]
    pdb = "a pattern database" if korf["pattern_database"] else "no pattern database yet"
    defaults = korf.get("defaults")
    if defaults:
        memory = defaults["max_nodes"]
        who = (f"The project's solver with its default settings, as `grid-planner puzzle BOARD` "
               f"and `solve_puzzle` run a bare board: `{defaults['name']}` (it picks IDA* with "
               f"`{korf['heuristic']}`, {pdb}), a memory budget of "
               f"{_count(memory) if memory else 'none'} states and")
    else:
        who = f"The project's IDA* with `{korf['heuristic']}` ({pdb}),"
    out += [
        f"{who} {korf['budget_s']:.0f} s per instance, attempts stopped after "
        f"{korf['total_cap_s']:.0f} s in total; instances in the order {korf['order']}. The "
        "setup (building or loading the tables) is timed apart.", "",
        f"- solved at the published optimal length: **{korf['optimal_solved']} of "
        f"{len(boards)}**",
        f"- time over the attempted instances: {korf['total_s']:.1f} s total, median "
        f"{_s(korf['median_s'])} s, slowest {_s(korf['max_s'])} s; setup (one-off tables) "
        f"{_s(korf['setup_s'])} s"
        + (f", after {_s(korf['load_s'])} s loading the compiled kernels"
           if korf.get("load_s") else ""),
        f"- nodes expanded over the attempted instances: {_count(korf['expanded_total'])}",
        f"- hit the per-instance limit: {len(unsolved)}"
        + (f" (instances {', '.join(map(str, unsolved))})" if unsolved else ""),
        f"- not attempted (total cap): {len(skipped)}"
        + (f" (instances {', '.join(map(str, skipped))})" if skipped else ""),
        f"- wrong length: {len(wrong)}" + (f" (instances {wrong})" if wrong else ""),
        "",
    ]
    return out


def _ros_section(ros: dict) -> list[str]:
    out = ["## Over ROS", ""]
    if "cases" not in ros:
        return [*out, f"Not measured: {ros.get('error') or ros.get('note')}.", ""]
    out += [f"`bench/ros_overhead.py` starts `map_publisher` (TurtleBot3 map), `planner_node` and "
            f"`puzzle_node` from the venv on a private DDS domain and times {ros['calls']} "
            "service calls per case from a client node (median, after one untimed call) "
            "against the same call in-process; the baseline rows are a `get_parameters` "
            "round trip, the cost of a call that does no work. Overhead is each round trip "
            "minus the node's own planning_time of that call where the answer reports one "
            "(so noise in the solve itself is not counted), else minus the in-process median; "
            "the last column subtracts the in-process median throughout. A *raw client* takes "
            "the answer as bytes (`grid_planner.nodes.prebuilt.raw_response_type`) and decodes "
            "it with NumPy inside the timed round trip; an *rclpy client* gets rclpy's "
            "generated Python objects, ~40 us per pose in the client's own process.", ""]
    out += _table(
        ["case", "round trip ms", "in-process ms", "node's planning_time ms", "overhead ms",
         "round trip - in-process ms"],
        [[case["case"], f"{case['round_trip_ms']:.2f}", f"{case['in_process_ms']:.2f}",
          "" if case["node_planning_time_ms"] is None else f"{case['node_planning_time_ms']:.2f}",
          f"{case['overhead_ms']:.2f}", f"{case['overhead_vs_in_process_ms']:.2f}"]
         for case in ros["cases"]])
    return [*out, ""]


def markdown(results: dict) -> str:
    """The whole report as Markdown."""
    meta = results["meta"]
    machine = meta["machine"]
    packages = ", ".join(f"{name} {v}" for name, v in machine["packages"].items() if v)
    missing = [name for name, v in machine["packages"].items() if not v]
    out = [
        "# Benchmarks",
        "",
        f"Written by `bench/run_all.py{' --quick' if meta['quick'] else ''}` (`make bench`) on "
        f"{machine['date']}; regenerate rather than edit. Raw numbers: "
        f"`bench/results/{'quick' if meta['quick'] else 'latest'}.json`.",
        "",
        "## How to run",
        "",
        "`make bench` (about 12 minutes on 2 cores; up to 17 when Korf instances run into "
        "their time limit) or, from the repository root, "
        "`.venv/bin/python bench/run_all.py [--quick] [--korf-budget S] [--korf-total S]`; "
        "`PYTHONPATH=.` in front measures the working tree instead of the installed package. "
        "The maps and puzzle sets come from the shared data folder: `../shared` beside the "
        "checkout, or `GRID_PLANNER_SHARED` (`make bench SHARED=DIR`). "
        "`--quick` runs a small subset in well under a minute (its report goes to "
        "`bench/results/quick.md`). The peers (scipy, pyastar2d, networkx, "
        "python-pathfinding, slidingpuzzle) are pinned in `bench/requirements*.txt`; "
        "`make bench` installs them, and any that is not installed is skipped with a note.",
        "",
        "## Method",
        "",
        f"- Machine: {machine['cpu']}, {machine['cores']} cores, {machine['memory_gib']} GiB; "
        f"{machine['os']}; Python {machine['python']}; {packages}"
        + (f"; not installed: {', '.join(missing)}" if missing else "") + ". Load average "
        f"(1 min) {meta['load_average_start']} at the start and "
        f"{machine['load_average'][0]} at the end: the machine is shared, and other work on "
        "its 2 cores slows whichever planner it overlaps, so ratios carry that noise.",
        "- One run, one process per domain script, and every planner (or solver) on every "
        "map (or board set) in a worker subprocess of its own, so each is measured alone; "
        "the grid's speed targets against C and pyastar2d then time each pair again in one "
        "worker, in alternating rounds (below).",
        "- Grid times are of one query through the planner's public call (`plan(grid, "
        "start, goal, algorithm)` for the project), warm: the median of the repeats after a "
        "first run (at least 2, then up to 7 while under 3 s); for the planners without "
        "warm state (all but the project's) the first run is one of the samples. The "
        "project's first run (which allocates its per-map search buffers), the JIT "
        "compile (`compile s`: numba loading its cache, or compiling from scratch where "
        "marked) and the per-map "
        "preparation (`prep s`: the project's PlanningGrid, the textbook's list of rows, "
        "scipy's sparse graph, ...) are reported apart and not in the warm median. `search "
        "ms` is the project's own `elapsed`: the compiled search without the API's per-query "
        "work (path conversion, poses). A query slower than 20 s runs once. `expanded` is "
        "each planner's own count (the textbook A* counts every heap pop, stale ones too; "
        "scipy's BFS always visits the whole component).",
        "- Puzzle times are wall time around each solve call; `setup s` is one solve of a "
        "one-move board first, which builds whatever tables a solver makes once, excluded "
        "from the totals, and timed after the project's compiled kernels are loaded (about "
        "a second once per process, counted in neither; the Korf section gives it). On 3x3 "
        "boards `pdb` runs the "
        "exact table, so it has no rows of its own there. The 8-puzzle target is paired "
        "as the grid's are: one worker times the fastest project row and the textbook A* "
        "again on the same 200 boards in alternating rounds (a round: the textbook's set "
        "once, the project's the median of 3 passes; the order swapped every round), 5 "
        "rounds, and the target reads the median round's ratio. The project's set takes "
        "tens of milliseconds, so one unpaired pass carries whatever else the machine did "
        "in them.",
        "- Peak memory: in the worker, `malloc_trim`, then `/proc/self/clear_refs` resets "
        "the resident-set high-water mark; `peak MB` is `VmHWM` after the query (the first "
        "run) minus `VmRSS` before it. It counts everything the query touched (Python "
        "objects, NumPy and numba buffers, C extensions) and leaves out the interpreter, the "
        "imports and the prepared map. Puzzle peaks cover the whole set.",
        "- Lengths: every optimal planner must report the same path length per map (and the "
        "known optimum where there is one: 16 on the tutorial grid, 31 for the hardest "
        "8-puzzles, Korf's published lengths); a disagreement is listed at the top and makes "
        "`make bench` exit non-zero.",
        "- `speed vs textbook` is the textbook reference's time divided by the planner's "
        "(same map, same family: A* rows against textbook A*, BFS rows against textbook "
        "BFS); `memory vs textbook` is the planner's peak over the textbook's.",
        *grid_targets.METHOD_NOTES,
        "",
    ]
    disagreements = results["length_disagreements"]
    if disagreements:
        out += ["## !!! PATH LENGTHS DISAGREE !!!", ""]
        out += [f"- {line}" for line in disagreements] + [""]
    out += ["## Targets", ""]
    out += _table(["target", "goal", "measured", "verdict"],
                  [[t["name"], t["target"], t["measured"], f"**{t['status']}**"]
                   for t in results["targets"]])
    out += [""]
    out += _grid_section(results["grid"])
    out += grid_targets.quality_section(results["path_quality"])
    out += _puzzle_section(results["puzzle"])
    out += _ros_section(results["ros"])
    if results["notes"]:
        out += ["## Notes", ""] + [f"- {note}" for note in results["notes"]] + [""]
    return "\n".join(out)
