"""Verdicts and report sections of the grid's speed and path-quality targets.

Speed: the project's searches against the C references compiled in the same run (`search ms`:
each one's own search time) and against pyastar2d on the same cost field (whole calls, warm),
each ratio from `paired.py`'s alternating rounds (the rows' own ratio when a pair did not run).
Path quality: `path_quality.py`'s rows and goals.
"""

from __future__ import annotations

import statistics

C_RATIO = 1.5
METHOD_NOTES = (
    "- The C references (`c_*` rows, `bench/c/grid_search.c`, compiled with `gcc -O2` when "
    "the bench runs) report their own search time as `search ms`, of a second search in the "
    "process (the first pays the page faults of fresh arrays); their warm and first times are "
    "whole process runs (start-up and reading the map included). Speed targets against C "
    "compare `search ms`: the project's kernel time against the C search alone, on the same "
    "map in the same run. `c_astar_two_stack` keeps the project's tie rule, so it expands "
    "exactly the same cells.",
    "- Each speed target's ratio is paired (`bench/paired.py`): one worker runs the project's "
    "planner and its reference on the same map in alternating blocks (3 calls each, 1 for a "
    "call over a second, the order swapped every round), 5 rounds, and the target reads the "
    "median round's ratio with the spread of the rounds. The machine's speed drifts within "
    "minutes, and the table's rows are each measured in a worker of their own at another "
    "time, so the ratio of two rows can differ from the paired one.",
    "- `project_astar8_costs` and `pyastar2d_8_costs` plan 8-connected on the same weights "
    "(1 + c / 252 for Nav2-style inflation costs c: inflation radius 0.55 m, scaling 3.0, "
    "0.05 m cells) but not the same problem: for pyastar2d a diagonal step costs the cell's "
    "weight (not sqrt 2 times it), a diagonal may cut a blocked corner and the heuristic is "
    "the Chebyshev distance; so their lengths differ and are not compared (on the maze, "
    "whose corridors are one cell wide, pyastar2d's path has 26,521 steps against the "
    "project's 39,144). Their targets compare whole warm calls.",
    "- `project_astar4_costs` and `pyastar2d_4_costs` plan 4-connected on the same weights, "
    "where the two solve the same problem (a step costs the weight of the cell it enters; "
    "Manhattan heuristics, the project's scaled by the least weight): the like-for-like "
    "comparison of the two weighted searches, paired like the rest and reported beside the "
    "8-connected target without a target of its own.",
)
SPEED_MAPS = (("random2048", "random 2048^2"), ("maze1024", "maze 1024^2"),
              ("warehouse4096", "warehouse 4096^2"))


def _row(rows: list[dict], scenario: str, planner: str) -> dict | None:
    for row in rows:
        if row["scenario"] == scenario and row["planner"] == planner and row.get("warm_s"):
            return row
    return None


def _verdict(name: str, target: str, passed: bool | None, measured: str) -> dict:
    status = "N/A" if passed is None else ("PASS" if passed else "FAIL")
    return {"name": name, "target": target, "status": status, "measured": measured}


def _pair(pairs: list[dict], scenario: str, ours: str, theirs: str) -> dict | None:
    for pair in pairs:
        if (pair["scenario"], pair["ours"], pair["theirs"]) == (scenario, ours, theirs):
            return None if "error" in pair else pair
    return None


def paired_text(pair: dict, speedup: bool) -> tuple[float, str]:
    """A pair's median ratio (theirs / ours when `speedup`, else ours / theirs) and its text:
    the median, the spread over the rounds, and the median times."""
    ratios = sorted(1.0 / r if speedup else r for r in pair["ratios"])
    ratio = 1.0 / pair["ratio"] if speedup else pair["ratio"]
    ours = statistics.median(pair["ours_s"]) * 1e3
    theirs = statistics.median(pair["theirs_s"]) * 1e3
    return ratio, (f"{ratio:.2f}x paired ({ratios[0]:.2f}-{ratios[-1]:.2f} over "
                   f"{len(ratios)} rounds; {ours:,.2f} vs {theirs:,.2f} ms)")


def _against_c(rows: list[dict], pairs: list[dict], scenario: str, label: str, ours: str,
               theirs: str, what: str) -> dict:
    name = f"grid {what} vs C, {label}"
    target = f"search time <= {C_RATIO}x the C {theirs.removeprefix('c_')} (same map, same run)"
    mine, reference = _row(rows, scenario, ours), _row(rows, scenario, theirs)
    if not (mine and reference and mine.get("search_s") and reference.get("search_s")):
        why = (reference or {}).get("note") or "not measured in this run"
        return _verdict(name, target, None, why)
    expanded = f"expanded {mine['expanded']:,} vs {reference['expanded']:,}"
    pair = _pair(pairs, scenario, ours, theirs)
    if pair is not None:
        ratio, measured = paired_text(pair, speedup=False)
        measured = f"{measured}; {expanded}"
    else:
        ratio = mine["search_s"] / reference["search_s"]
        measured = (f"{ratio:.2f}x unpaired ({mine['search_s'] * 1e3:.2f} vs "
                    f"{reference['search_s'] * 1e3:.2f} ms; {expanded})")
    return _verdict(name, target, ratio <= C_RATIO, measured)


def _astar_vs_bfs(rows: list[dict]) -> dict:
    name = "grid A* vs our BFS, warehouse 4096^2"
    target = "A* no slower than BFS (search time)"
    astar, bfs = _row(rows, "warehouse4096", "project_astar"), _row(rows, "warehouse4096",
                                                                    "project_bfs")
    if not (astar and bfs):
        return _verdict(name, target, None, "not measured in this run")
    measured = (f"{astar['search_s'] * 1e3:.1f} vs {bfs['search_s'] * 1e3:.1f} ms "
                f"({astar['expanded']:,} vs {bfs['expanded']:,} expanded)")
    return _verdict(name, target, astar["search_s"] <= bfs["search_s"], measured)


def _against_pyastar2d(rows: list[dict], pairs: list[dict], scenario: str, label: str) -> dict:
    name = f"weighted 8-connected A*, inflation costs, {label}"
    target = "ahead of pyastar2d on the same weights (warm call)"
    mine = _row(rows, scenario, "project_astar8_costs")
    theirs = _row(rows, scenario, "pyastar2d_8_costs")
    if not (mine and theirs):
        why = next((r["note"] for r in rows if r["scenario"] == scenario
                    and r["planner"] == "pyastar2d_8_costs" and "note" in r),
                   "not measured in this run")
        return _verdict(name, target, None, why)
    pair = _pair(pairs, scenario, "project_astar8_costs", "pyastar2d_8_costs")
    if pair is not None:
        speedup, measured = paired_text(pair, speedup=True)
    else:
        speedup = theirs["warm_s"] / mine["warm_s"]
        measured = (f"{speedup:.2f}x unpaired ({mine['warm_s'] * 1e3:,.1f} vs "
                    f"{theirs['warm_s'] * 1e3:,.1f} ms)")
    same_problem = _pair(pairs, scenario, "project_astar4_costs", "pyastar2d_4_costs")
    if same_problem is not None:
        measured += f"; the same problem, 4-connected: {paired_text(same_problem, speedup=True)[1]}"
    return _verdict(name, target, speedup > 1.0, measured)


def _quality_rows(quality: dict) -> list[dict]:
    if "maps" not in quality:
        return [_verdict("path quality", "see the path quality section", None,
                         quality.get("error") or quality.get("note", "not measured"))]
    found = []
    for entry in quality["maps"]:
        found += [_verdict(f"path quality, {entry['name']}, {v['setting']}", v["goal"],
                           v["holds"], v["measured"]) for v in entry["verdicts"]]
        if "drawn" in entry:
            drawn = entry["drawn"]
            found += [_verdict(f"path quality, {entry['name']}, {drawn['count']} drawn queries, "
                               f"{v['setting']}", f"{v['goal']} (the median query)",
                               v["holds"], v["measured"]) for v in drawn["verdicts"]]
    return found


def targets(grid: dict, quality: dict) -> list[dict]:
    """The issue's grid speed and path-quality targets with their verdicts; a speed ratio is
    the median of `grid["pairs"]`'s rounds (`paired.py`) where that pair ran."""
    rows, pairs = grid["rows"], grid.get("pairs", [])
    found = []
    for scenario, label in SPEED_MAPS[:2]:
        found.append(_against_c(rows, pairs, scenario, label, "project_astar",
                                "c_astar_two_stack", "A*"))
    found.append(_astar_vs_bfs(rows))
    for scenario, label in SPEED_MAPS:
        found.append(_against_c(rows, pairs, scenario, label, "project_bfs", "c_bfs", "BFS"))
    found += [_against_pyastar2d(rows, pairs, scenario, label) for scenario, label in SPEED_MAPS]
    return found + _quality_rows(quality)


def quality_section(quality: dict) -> list[str]:
    """The path-quality section of the report."""
    out = ["## Path quality", ""]
    if "maps" not in quality:
        return [*out, f"Not measured: {quality.get('error') or quality.get('note')}.", ""]
    profile = quality["profile"]
    out += [f"`bench/path_quality.py`: robot radius {profile['robot_radius']} m, "
            f"`cost_model: inflation` (inflation radius {profile['inflation_radius']} m, cost "
            f"scaling {profile['cost_scaling_factor']}, cost_travel_multiplier 1.0), A*. "
            "Clearance is measured from obstacle cell centres at points a quarter cell apart "
            "along the path; plan ms is a warm plan (search and smoothing), the first plan on "
            "a map also prepares its clearance masks once.", ""]
    header = ["setting", "length m", "min clearance m", "mean clearance m",
              "heading change deg", "poses", "plan ms"]
    for entry in quality["maps"]:
        least = entry.get("fewest_turns_deg")
        turning = ("" if least is None else f" No 8-connected path between them turns less "
                   f"than {least:.0f} deg in total (`bench/fewest_turns.py`).")
        out += [f"### {entry['title']}", "",
                f"Start cell {tuple(entry['start'])}, goal cell {tuple(entry['goal'])}.{turning}",
                ""]
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        for row in entry["rows"]:
            cells = [row["setting"], f"{row['length_m']:.2f}", f"{row['min_clearance_m']:.3f}",
                     f"{row['mean_clearance_m']:.3f}", f"{row['heading_change_deg']:.0f}",
                     f"{row['poses']:,}", f"{row['plan_s'] * 1e3:,.1f}"]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        if "drawn" in entry:
            drawn = entry["drawn"]
            out += [f"The same settings between {drawn['count']} pairs of cells drawn at random "
                    f"(seed {drawn['seed']}, at least {drawn['min_apart_m']} m apart) are judged "
                    "on the median query; the targets table gives each goal's spread and how "
                    "many queries meet it (a heading share is inf where the 4-connected path "
                    "runs straight and the judged one turns).", ""]
    return out
