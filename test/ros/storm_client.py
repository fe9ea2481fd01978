"""One client process of the request storm: sends a mix of plans and solves at once, counts answers.

    python storm_client.py NAMESPACE COUNT

Prints `ready` once its services are matched both ways, waits for a line on stdin, sends COUNT
requests without waiting (compute_path, plan_path, 8-puzzle and 15-puzzle solves, and 15-puzzle
solves that run into their timeout, in turn),
waits for every answer and prints one JSON object: how many were sent and answered, and the
outcomes per kind (an error code, a status, or for plan_path "path"/"empty").
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter

import rclpy
from grid_planner_interfaces.srv import ComputePath, SolvePuzzle
from nav_msgs.srv import GetPlan
from planner_harness import pose
from ros_harness import ClientNode

from grid_planner.nodes.qos import SERVICE_QOS

ANSWER_TIMEOUT_S = 240.0
HARD_8 = [8, 6, 7, 2, 5, 4, 3, 0, 1]
MEDIUM_15 = [5, 1, 2, 4, 9, 6, 3, 8, 13, 10, 7, 11, 0, 14, 15, 12]
# Korf's instance 1 (57 moves): runs until its 0.3 s timeout, so these fill the solve queue.
HARD_15 = [13, 6, 8, 12, 15, 14, 0, 10, 11, 7, 4, 5, 9, 1, 3, 2]


def outcome(kind: str, answer: object) -> str:
    if kind == "compute_path":
        return str(answer.error_code)
    if kind == "plan_path":
        return "path" if answer.plan.poses else "empty"
    return str(answer.status)


def main(namespace: str, count: int) -> None:
    rclpy.init()
    client = ClientNode("storm_client")
    node = client.node
    start, goal = pose(0.5, 7.5), pose(9.5, 0.5)
    clients = {
        "compute_path": (
            node.create_client(ComputePath, f"{namespace}/compute_path", qos_profile=SERVICE_QOS),
            ComputePath.Request(goal=goal, start=start, use_start=True),
        ),
        "plan_path": (
            node.create_client(GetPlan, f"{namespace}/plan_path", qos_profile=SERVICE_QOS),
            GetPlan.Request(goal=goal, start=start),
        ),
    }
    solver = node.create_client(SolvePuzzle, f"{namespace}/solve_puzzle", qos_profile=SERVICE_QOS)
    clients["solve_8"] = (solver, SolvePuzzle.Request(board=HARD_8))
    clients["solve_15"] = (
        solver, SolvePuzzle.Request(board=MEDIUM_15, algorithm="idastar", heuristic="manhattan")
    )
    clients["solve_slow"] = (
        solver, SolvePuzzle.Request(board=HARD_15, algorithm="idastar", heuristic="manhattan",
                                    timeout=0.3),
    )
    for service, request in clients.values():
        client.call(service, request, timeout=60.0)  # matched both ways before the storm
    print("ready", flush=True)
    sys.stdin.readline()
    kinds = list(clients)
    sent = []
    for index in range(count):
        kind = kinds[index % len(kinds)]
        service, request = clients[kind]
        sent.append((kind, service.call_async(request)))
    deadline = time.monotonic() + ANSWER_TIMEOUT_S
    while time.monotonic() < deadline and not all(future.done() for _, future in sent):
        time.sleep(0.05)
    outcomes = Counter(
        f"{kind}:{outcome(kind, future.result())}" for kind, future in sent if future.done()
    )
    answered = sum(future.done() for _, future in sent)
    print(json.dumps({"sent": count, "answered": answered, "outcomes": outcomes}), flush=True)
    client.close()
    rclpy.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
