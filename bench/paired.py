"""Paired speed ratios: a project planner and its reference timed in alternating blocks.

The machine is shared, and its speed drifts by tens of percent within minutes. Two table rows,
each measured in its own worker minutes apart, carry that drift into their ratio (the same
search measured 1.32x and 1.58x a C one in two runs). Here one worker prepares both planners on
the same map and alternates: a block of the project's calls, then a block of the reference's,
the order swapped every round. A round's ratio compares blocks seconds apart; a speed target
reads the median round and reports the spread.

Run by `grid_bench.py` after its rows, inside the same run (scenario files, C binary); the
worker is `python bench/paired.py --worker SPEC`.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import scenarios
from grid_planners import PLANNERS, project_warm_up
from grid_targets import SPEED_MAPS
from measure import alternating_rounds, paired_summary, run_worker, timed, worker_reply

ROUNDS = 5
BLOCK = 3
# A call slower than this gets blocks of one (a warehouse plan takes seconds).
SLOW_CALL_S = 1.0
WORKER_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class Pair:
    """The project's planner `ours` against `theirs` on `scenario`; `what` is "search" (each
    one's own search time, as its query reports it) or "warm" (whole calls)."""

    scenario: str
    ours: str
    theirs: str
    what: str


_SPEED = [name for name, _label in SPEED_MAPS]
# The speed targets' comparisons (`grid_targets`): A* against C on the first two maps.
PAIRS = (
    *(Pair(name, "project_astar", "c_astar_two_stack", "search") for name in _SPEED[:2]),
    *(Pair(name, "project_bfs", "c_bfs", "search") for name in _SPEED),
    *(Pair(name, "project_astar8_costs", "pyastar2d_8_costs", "warm") for name in _SPEED),
    # The like-for-like comparison (no target of its own): the same problem, 4-connected.
    *(Pair(name, "project_astar4_costs", "pyastar2d_4_costs", "warm") for name in _SPEED),
)


def worker(spec: dict) -> dict:
    """Both planners of `spec` on its saved scenario, in alternating blocks (this process)."""
    scenario = scenarios.load_scenario(spec["scenario"])
    planners = [PLANNERS[spec["ours"]], PLANNERS[spec["theirs"]]]
    if any(planner.compiled for planner in planners):
        project_warm_up()
    queries = [planner.prepare(scenario) for planner in planners]

    def sample(query) -> float:
        seconds, answer = timed(query)
        return answer[2] if spec["what"] == "search" else seconds

    # The first calls (their set-up) stay out of the rounds; their time sets the block.
    first = [timed(query)[0] for query in queries]
    block = 1 if max(first) > SLOW_CALL_S else spec["block"]
    medians = alternating_rounds([lambda query=query: sample(query) for query in queries],
                                 spec["rounds"], (block, block))
    return {"ours_s": medians[0], "theirs_s": medians[1], "block": block}


def run(saved: dict[str, Path], rows: list[dict], quick: bool, log=print) -> list[dict]:
    """Every pair whose scenario was saved in this run (`saved`: name -> file) and whose two
    planners gave rows without a skip or an error."""
    measured = {(row["scenario"], row["planner"]) for row in rows
                if row.get("warm_s") and "error" not in row}
    found = []
    for pair in PAIRS:
        if pair.scenario not in saved or not {(pair.scenario, pair.ours),
                                              (pair.scenario, pair.theirs)} <= measured:
            continue
        spec = {"scenario": str(saved[pair.scenario]), "ours": pair.ours, "theirs": pair.theirs,
                "what": pair.what, "rounds": 2 if quick else ROUNDS, "block": BLOCK}
        answer = run_worker(Path(__file__), spec, WORKER_TIMEOUT_S)
        entry = {"scenario": pair.scenario, "ours": pair.ours, "theirs": pair.theirs,
                 "what": pair.what}
        if "error" in answer:
            found.append({**entry, "error": answer["error"]})
            log(f"  paired {pair.scenario} {pair.ours} / {pair.theirs}: {answer['error']}")
            continue
        found.append({**entry, **paired_summary(answer)})
        ratios = ", ".join(f"{ratio:.2f}" for ratio in found[-1]["ratios"])
        log(f"  paired {pair.scenario:<14} {pair.ours} / {pair.theirs}: {ratios}")
    return found


def main(argv: list[str] | None = None) -> int:
    """`--worker SPEC`: one pair in this process (internal to `run`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", required=True, help=argparse.SUPPRESS)
    worker_reply(worker(json.loads(parser.parse_args(argv).worker)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
