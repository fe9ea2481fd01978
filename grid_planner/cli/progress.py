"""A progress bar on stderr for each heuristic-table build the CLI waits for (tqdm).

Shown only on a terminal and only for builds that last more than a second (a cold 15-puzzle
pattern database: several seconds); a build served from the cache or in well under a second
leaves no trace.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tqdm import tqdm

from grid_planner.puzzle.tables import TableBuild, add_listener, remove_listener

SHOW_AFTER_S = 1.0


@contextmanager
def table_build_bars() -> Iterator[None]:
    """Draw a bar for every table build that runs inside the block."""
    bars: dict[int, tqdm] = {}
    lock = threading.Lock()

    def on_build(build: TableBuild) -> None:
        with lock:
            bar = bars.get(id(build))
            if bar is None and not build.finished:
                bar = bars[id(build)] = tqdm(
                    total=100, desc=f"building {build.title}", unit="%", delay=SHOW_AFTER_S,
                    disable=None, leave=False, bar_format="{desc}: {percentage:3.0f}%|{bar}| "
                    "{elapsed}<{remaining}",
                )
            if bar is None:
                return
            bar.update(round(build.fraction * 100) - bar.n)
            if build.finished:
                bar.close()
                del bars[id(build)]

    add_listener(on_build)
    try:
        yield
    finally:
        remove_listener(on_build)
        with lock:
            for bar in bars.values():
                bar.close()
