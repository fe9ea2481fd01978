"""The grid benchmark's C references (`bench/c/grid_search.c`), compiled when the bench runs.

`compile_reference` builds the program with the system C compiler (`gcc`, else `cc`) at `-O2`
into a run's temporary folder and publishes its path in the environment variable `BINARY_ENV`,
so the worker processes find it; without a compiler the C rows are skipped with a note. The
program times the search alone (not the map loading, not the per-query reset), which is what the
project's `search ms` (its kernel's own time) is compared with. Each run searches WARM_RUNS + 1
times and reports the last: the first search of a process also pays the page faults of its
freshly allocated arrays, which the project's warm queries (reusing their buffers) do not.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np

from scenarios import GridScenario

SOURCE = Path(__file__).resolve().parent / "c" / "grid_search.c"
BINARY_ENV = "GRID_BENCH_C_BINARY"
COMPILE_TIMEOUT_S = 120.0
RUN_TIMEOUT_S = 300.0
WARM_RUNS = 1


def compiler() -> str | None:
    """The C compiler on PATH (gcc preferred), or None."""
    return shutil.which("gcc") or shutil.which("cc")


def compile_reference(folder: Path) -> str | None:
    """Compile the C references into `folder` and publish the binary; returns why not, or None.
    """
    cc = compiler()
    if cc is None:
        return "no C compiler (gcc or cc) on PATH"
    binary = folder / "grid_search"
    done = subprocess.run(
        [cc, "-O2", "-o", str(binary), str(SOURCE)], capture_output=True, text=True,
        timeout=COMPILE_TIMEOUT_S, check=False,
    )
    if done.returncode != 0:
        return f"{Path(cc).name} -O2 failed: {done.stderr.strip().splitlines()[-1:]}"
    os.environ[BINARY_ENV] = str(binary)
    return None


def missing() -> str | None:
    """Why the C references cannot run in this process (None when they can)."""
    if os.environ.get(BINARY_ENV):
        return None
    return "the C references were not compiled (no C compiler, or the compile failed)"


def write_map(scenario: GridScenario, path: Path) -> Path:
    """The scenario in the program's map format: six int32 (width, height, start, goal), then
    one byte per cell, row 0 first."""
    with path.open("wb") as handle:
        header = [scenario.width, scenario.height, *scenario.start, *scenario.goal]
        np.array(header, dtype=np.int32).tofile(handle)
        np.ascontiguousarray(scenario.blocked, dtype=np.uint8).tofile(handle)
    return path


def run(algorithm: str, map_path: Path) -> tuple[int, int, float]:
    """`(length, expanded, search seconds)` of a warm search of the C `algorithm` on `map_path`.
    """
    done = subprocess.run(
        [os.environ[BINARY_ENV], algorithm, str(map_path), str(WARM_RUNS + 1)],
        capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=True,
    )
    answer = json.loads(done.stdout)
    if answer["length"] < 0:
        raise RuntimeError(f"the C {algorithm} found no path")
    return answer["length"], answer["expanded"], answer["times_ms"][-1] / 1e3
