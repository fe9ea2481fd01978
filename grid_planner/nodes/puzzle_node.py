"""puzzle_node (node name `puzzle_solver`): the `solve_puzzle` service over the search core."""

from __future__ import annotations

import math
import sys
import threading

from grid_planner_interfaces.srv import SolvePuzzle
from rclpy.node import Node

from grid_planner.nodes.concurrency import BoundedCallbackGroup
from grid_planner.nodes.parameters import at_least, declare_validated, one_of
from grid_planner.nodes.paths import install_source
from grid_planner.nodes.qos import QUEUED_SERVICE_QOS
from grid_planner.puzzle import (
    HEURISTICS,
    PUZZLE_ALGORITHMS,
    PuzzleStatus,
    prepare,
    solve,
    warm_up,
)
from grid_planner.search.result import Budget

HEURISTIC_NAMES = tuple(HEURISTICS)
# What `prepare_tables` may name: the table heuristic and the board side it is built for.
PREPARABLE_TABLES = {"table": 3, "pdb": 4}


def known_tables(names: object) -> str | None:
    """Accept a list of PREPARABLE_TABLES names."""
    unknown = [name for name in names if name not in PREPARABLE_TABLES]
    if unknown:
        return f"names unknown tables {unknown}: choose from {', '.join(PREPARABLE_TABLES)}"
    return None


class PuzzleNode(Node):
    """Solves sliding-tile puzzles; at most `max_concurrent_solves` run at once, the rest queue."""

    def __init__(self, **node_options) -> None:
        super().__init__("puzzle_solver", **node_options)
        declare_validated(
            self,
            {
                "default_algorithm": ("astar", "algorithm when a request names none",
                                      one_of(PUZZLE_ALGORITHMS)),
                "default_heuristic": ("manhattan", "heuristic when a request names none",
                                      one_of(HEURISTIC_NAMES)),
                "default_max_depth": (0, "dfs/iddfs depth limit when a request gives 0 "
                                      "(0: the solver's default for the board size)", at_least(0)),
                "default_timeout": (10.0, "seconds a solve may take when a request gives 0",
                                    at_least(0.001)),
                "max_nodes": (2_000_000, "nodes one solve may expand (its memory budget)",
                              at_least(1)),
                "max_concurrent_solves": (2, "solves that run at once; further requests wait",
                                          at_least(1)),
                "prepare_tables": (["table"], "heuristic tables built (or loaded from the cache) "
                                   "at start-up: table = exact 8-puzzle distances, pdb = 15-puzzle "
                                   "6-6-3 pattern database (~10 s to build once)", known_tables),
            },
            read_only=frozenset({"max_concurrent_solves", "prepare_tables"}),
        )
        warm_seconds = warm_up()
        for name in self._param("prepare_tables"):
            seconds = prepare(name, PREPARABLE_TABLES[name])
            self.get_logger().info(f"heuristic table '{name}' ready in {seconds:.2f} s")
        self._stopping = threading.Event()
        limit = self.get_parameter("max_concurrent_solves").value
        self._service = self.create_service(
            SolvePuzzle, "solve_puzzle", self._on_solve,
            qos_profile=QUEUED_SERVICE_QOS, callback_group=BoundedCallbackGroup(limit),
        )
        self.get_logger().info(
            f"ready: serving '{self._service.service_name}' "
            f"(default {self._param('default_algorithm')} / {self._param('default_heuristic')}, "
            f"{limit} concurrent solves, IDA* kernel warm-up {warm_seconds * 1000:.0f} ms); "
            f"{install_source()}"
        )

    def _param(self, name: str):
        return self.get_parameter(name).value

    def destroy_node(self) -> None:
        """Stop running solves (they end with LIMIT_REACHED) before the node goes away."""
        self._stopping.set()
        super().destroy_node()

    def _on_solve(
        self, request: SolvePuzzle.Request, response: SolvePuzzle.Response
    ) -> SolvePuzzle.Response:
        try:
            self._solve_into(request, response)
        except Exception as error:  # a bug must cost one answer, never the node
            self.get_logger().error(f"solve_puzzle failed unexpectedly: {error!r}")
            response.status = SolvePuzzle.Response.INVALID_REQUEST
            response.success = False
            response.message = f"internal error: {error}"
        return response

    def _solve_into(self, request: SolvePuzzle.Request, response: SolvePuzzle.Response) -> None:
        algorithm = request.algorithm.strip() or self._param("default_algorithm")
        heuristic = request.heuristic.strip() or self._param("default_heuristic")
        timeout = request.timeout if request.timeout != 0.0 else self._param("default_timeout")
        max_depth = request.max_depth or self._param("default_max_depth")
        if not math.isfinite(timeout) or timeout < 0.0:
            response.status = SolvePuzzle.Response.INVALID_REQUEST
            response.message = f"timeout must be a finite number of seconds >= 0, got {timeout}"
            return
        budget = Budget.from_timeout(
            timeout, max_nodes=self._param("max_nodes"), cancel=self._stopping
        )
        outcome = solve(
            list(request.board), goal=list(request.goal) or None, algorithm=algorithm,
            heuristic=heuristic, max_depth=max_depth, budget=budget,
        )
        response.status = int(outcome.status)
        response.success = outcome.status is PuzzleStatus.SOLVED
        response.message = outcome.message
        response.moves = list(outcome.moves)
        response.length = len(outcome.moves)
        response.optimal = outcome.optimal
        response.nodes_expanded = outcome.nodes_expanded
        response.nodes_generated = outcome.nodes_generated
        response.max_frontier = outcome.max_frontier
        response.planning_time = outcome.planning_time
        # One rclpy log call costs ~1.5 ms (it inspects the caller's source): answers are
        # logged at DEBUG, so a service call pays only for the solve.
        self.get_logger().debug(
            f"solve_puzzle {algorithm}/{heuristic}: {outcome.message} "
            f"({outcome.nodes_expanded} expanded, {outcome.planning_time * 1000:.1f} ms)"
        )


def main(args: list[str] | None = None) -> int:
    """Entry point of the `puzzle_node` console script."""
    from grid_planner.nodes.runtime import spin_nodes

    return spin_nodes([PuzzleNode], num_threads=4, args=args)


if __name__ == "__main__":
    sys.exit(main())
