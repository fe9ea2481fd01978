"""Measuring helpers shared by the benchmarks: worker subprocesses, peak memory, timing.

Every planner runs in a worker subprocess of its own (the benchmark script started again with
`--worker SPEC`), so the memory it reports is its own and nothing it leaves behind (caches,
freed-but-kept heap) colours the next planner. Peak memory is the Linux resident-set
high-water mark: `clear_refs` resets `VmHWM` to the current RSS, the measured code runs, and
`VmHWM - VmRSS(before)` is the extra memory it needed at its peak, whatever allocated it
(Python objects, NumPy arrays, numba-allocated buffers, C extensions). `malloc_trim` runs
first so that heap pages freed earlier in the worker cannot hide new allocations.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.util
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = REPO_ROOT / "bench" / "results"
_STATUS = Path("/proc/self/status")
_LIBC = ctypes.CDLL(ctypes.util.find_library("c"))


def _status_kb(field: str) -> int:
    match = re.search(rf"^{field}:\s+(\d+) kB", _STATUS.read_text(), re.MULTILINE)
    if match is None:
        raise RuntimeError(f"{field} not in {_STATUS}")
    return int(match.group(1))


class PeakMemory:
    """Context manager: `.megabytes` is the peak extra resident memory of the `with` body."""

    def __init__(self) -> None:
        self.megabytes: float | None = None
        self._before_kb = 0

    def __enter__(self) -> PeakMemory:
        # Hand freed heap pages back first, or the body could reuse them unseen.
        _LIBC.malloc_trim(0)
        Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
        self._before_kb = _status_kb("VmRSS")
        return self

    def __exit__(self, *_exc: object) -> None:
        self.megabytes = max(0, _status_kb("VmHWM") - self._before_kb) / 1024


def process_peak_mb() -> float:
    """The whole worker process's peak RSS (interpreter and imports included), in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(function: Callable[[], object]) -> tuple[float, object]:
    """`(seconds, value)` of one call of `function`."""
    began = time.perf_counter()
    value = function()
    return time.perf_counter() - began, value


def alternating_rounds(
    samples: Sequence[Callable[[], float]], rounds: int, passes: Sequence[int]
) -> list[list[float]]:
    """For each of two measurements, one value per round: the median of its `passes` samples
    in that round. The two take turns, the first going first in even rounds and second in odd
    ones, so the machine's drift within minutes falls on both alike."""
    medians: list[list[float]] = [[], []]
    for round_number in range(rounds):
        for which in (0, 1) if round_number % 2 == 0 else (1, 0):
            medians[which].append(statistics.median(samples[which]()
                                                    for _ in range(passes[which])))
    return medians


def paired_summary(answer: dict) -> dict:
    """A paired measurement (`ours_s`, `theirs_s`: one time per round) with its per-round
    ratios (ours / theirs) and their median."""
    ratios = [ours / theirs for ours, theirs in zip(answer["ours_s"], answer["theirs_s"],
                                                     strict=True)]
    return {**answer, "ratios": ratios, "ratio": statistics.median(ratios)}


def repeat_timings(
    function: Callable[[], object], repeats: int, budget_s: float, min_runs: int = 1
) -> list[float]:
    """Seconds of up to `repeats` calls: at least `min_runs`, then more only while fewer than
    `budget_s` seconds have been spent."""
    times: list[float] = []
    while len(times) < repeats and (len(times) < min_runs or sum(times) < budget_s):
        times.append(timed(function)[0])
    return times


def median_or_none(values: list[float]) -> float | None:
    """The median of `values`, None when there are none."""
    return statistics.median(values) if values else None


def run_json(
    script: Path, args: list[str], timeout_s: float, env: dict[str, str] | None = None
) -> dict:
    """Run `script ARGS` in a fresh interpreter (environment plus `env`); its last stdout line
    is its JSON answer. Failures come back as `{"error": ...}`, never raise."""
    command = [sys.executable, str(script), *args]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout_s,
            env={**os.environ, **(env or {})},
        )
    except subprocess.TimeoutExpired:
        return {"error": f"{script.name} timed out after {timeout_s:.0f} s"}
    lines = done.stdout.strip().splitlines()
    try:
        answer = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        answer = None
    if not isinstance(answer, dict) or (done.returncode != 0 and "error" not in answer):
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return {"error": f"{script.name} exited {done.returncode}: {' | '.join(tail)}"}
    return answer


def run_worker(
    script: Path, spec: dict, timeout_s: float, env: dict[str, str] | None = None
) -> dict:
    """`run_json(script, ["--worker", SPEC])`: one measurement in a fresh process."""
    return run_json(script, ["--worker", json.dumps(spec)], timeout_s, env)


def worker_reply(answer: dict) -> None:
    """Print a worker's answer as the one JSON line `run_worker` reads."""
    answer["process_peak_mb"] = process_peak_mb()
    print(json.dumps(answer))


def _cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "unknown"
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else "unknown"


def _memory_gib() -> float | None:
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return None
    match = re.search(r"^MemTotal:\s+(\d+) kB", text, re.MULTILINE)
    return round(int(match.group(1)) / 1024**2, 1) if match else None


def machine_info() -> dict:
    """What the numbers were measured on: CPU, cores, memory, OS, Python, key packages, and
    the load average (other work on the machine makes timings noisier)."""
    versions: dict[str, str | None] = {}
    for package in ("numpy", "numba", "scipy", "networkx", "pyastar2d", "pathfinding",
                    "slidingpuzzle"):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = None
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "packages": versions,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "load_average": [round(load, 2) for load in os.getloadavg()],
    }


def module_missing(module: str) -> str | None:
    """Why `module` cannot be used here (None when it is importable)."""
    try:
        found = importlib.util.find_spec(module) is not None
    except ImportError:  # a parent package that fails to import
        found = False
    return None if found else f"{module} is not importable"
