"""The console scripts' entry points: stop signals are caught before anything heavy is imported.

This module imports nothing but `signal` before the handlers are in place, so the window in which a
SIGINT or SIGTERM still raises KeyboardInterrupt (or kills the process) is only the interpreter's
own start-up. Next comes the malloc arena limit (`malloc_arenas`, ctypes only), which must act
before the imports start threads. A signal that arrives while the runtime and the node's module are
being imported is remembered here and handed to the runtime, which then stops cleanly (exit 0)
instead of starting the node.
"""

from __future__ import annotations

import signal
from collections.abc import Callable

# The runtime's STOP_SIGNALS, named again here: importing the runtime is what must wait.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _entry(module: str) -> Callable[[], int]:
    def main() -> int:
        early: list[int] = []
        for signum in STOP_SIGNALS:
            signal.signal(signum, lambda received, _frame: early.append(received))
        from grid_planner.nodes.malloc_arenas import limit_malloc_arenas

        limit_malloc_arenas()  # before any import starts a thread
        try:  # the runtime and the node's module import ROS: missing, it is one line
            import importlib

            from grid_planner.nodes.runtime import run_entry

            importlib.import_module(module)
        except ModuleNotFoundError as error:
            if (error.name or "grid_planner").partition(".")[0] == "grid_planner":
                raise
            import sys

            print(f"{module.rsplit('.', 1)[1]}: cannot start: no module named {error.name!r} "
                  "(the nodes need ROS 2 Jazzy and this workspace: source "
                  "/opt/ros/jazzy/setup.bash and install/setup.bash; grid-planner, the command "
                  "line, runs without ROS)", file=sys.stderr)
            return 1
        return run_entry(module, early)

    main.__doc__ = f"Entry point of the `{module.rsplit('.', 1)[1]}` executable."
    return main


planner_node = _entry("grid_planner.nodes.planner_node")
puzzle_node = _entry("grid_planner.nodes.puzzle_node")
map_publisher = _entry("grid_planner.nodes.map_publisher")
bringup = _entry("grid_planner.nodes.bringup")
