"""The signal matrix: every executable stopped by every signal pattern, judged by how it exits.

A case starts one executable in a session of its own and sends the signals to the whole process
group, as a terminal's Ctrl-C or `ros2 launch` does. Patterns that need work in progress (a
plan, a solve, a map being prepared) first start that work over DDS and wait until the node is
busy with it (its CPU time climbs while the answer is still outstanding). A case is clean when
the process exits with code 0, leaves no core file and writes nothing to stderr but INFO/DEBUG
log lines (so no traceback, no "never retrieved", no "Destroyable"). The "after start" delays
count from the moment the program's entry point has run: before that the interpreter is still
starting (site, .pth files; 30 ms idle, far more under load), which no program can handle.
Cases run concurrently, each in its own namespace, so the matrix fits in CI on two cores.

`python signal_matrix.py REPS WORKERS FOLDER` runs the matrix in a process of its own and prints
the summary (exit code 1 when a case was not clean): test_signal_matrix.py runs it so, with
`long_lease_profile` (LEASE_S says why).
"""

from __future__ import annotations

import faulthandler
import os
import resource
import signal
import subprocess
import sys
import threading
import time
import uuid
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import rclpy
from grid_planner_interfaces.srv import ComputePath, SolvePuzzle
from nav_msgs.msg import OccupancyGrid
from planner_harness import SLOW_SIDE, slow_plan_arguments, slow_plan_map, slow_plan_request
from ros_harness import BIN_DIR, ClientNode, cpu_seconds
from shared_data import PROJECT_ROOT

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.conversions import map_to_msg
from grid_planner.nodes.qos import MAP_QOS

TUTORIAL_MAP = PROJECT_ROOT / "config" / "maps" / "tutorial_grid.yaml"
NODES = ("planner_node", "puzzle_node", "map_publisher", "bringup")
# Korf's instance 1 (57 moves) for the goal 1..15, 0: A* with misplaced tiles runs for seconds.
HARD_15 = [13, 6, 8, 12, 15, 14, 0, 10, 11, 7, 4, 5, 9, 1, 3, 2]
# A cluttered map that MAP_ARRIVAL_PARAMETERS make slow to prepare: its 20 m (400 cell)
# inflation layer takes ~0.75 CPU s, against ~0.05 s for a plain robot radius, so the node is
# still at work on it well after BUSY_CPU_S (receiving the 16 MB message costs some of those).
MAP_SIDE = 4000
MAP_ARRIVAL_PARAMETERS = ("robot_radius:=0.5", "cost_model:=inflation", "inflation_radius:=20.0",
                          "max_inflation_cells:=400")
BUSY_CPU_S = 0.15  # CPU seconds a node spends after a request before it counts as busy with it
ALLOWED_STDERR = ("[INFO]", "[DEBUG]")
# A case whose set-up failed tested nothing: it is run again, up to this many attempts in all.
ATTEMPTS = 3
SET_UP_FAILED = "set-up failed"
# Loaded by the runtime's imports, right after the entry point has taken over the stop signals;
# the interpreter's own start-up before that (site, .pth files) is no program's to handle.
ENTRY_MARKER = "_socket"
# Fast DDS 2.14 can deadlock a participant for good: its event thread, checking whether a remote
# participant's lease ran out, waits for the discovery lock, which a receive thread holds while
# it removes a remote writer and waits for the event thread to go idle. The matrix's client sees
# 68 node processes come and go within a minute or two, and hung so twice in about forty runs.
# A lease of an hour, announced by every participant of the matrix, means no such check comes
# due while it runs (the first is due one lease after discovery).
LEASE_S = 3600


@dataclass(frozen=True)
class Pattern:
    """When to signal: `trigger` is ready, start (`delay` s after the entry point ran), plan,
    solve or map."""

    trigger: str
    signals: tuple[tuple[float, int], ...]  # (seconds after the previous signal, signal)
    delay: float = 0.0


SIGINT, SIGTERM = signal.SIGINT, signal.SIGTERM
PATTERNS = {
    "1 SIGINT": Pattern("ready", ((0.0, SIGINT),)),
    "2 SIGINT 5 ms apart": Pattern("ready", ((0.0, SIGINT), (0.005, SIGINT))),
    "3 SIGINT in 20 ms": Pattern("ready", ((0.0, SIGINT), (0.01, SIGINT), (0.01, SIGINT))),
    "SIGTERM": Pattern("ready", ((0.0, SIGTERM),)),
    "SIGINT 0.2 s after start": Pattern("start", ((0.0, SIGINT),), delay=0.2),
    "SIGINT 0.5 s after start": Pattern("start", ((0.0, SIGINT),), delay=0.5),
    "SIGINT 1 s after start": Pattern("start", ((0.0, SIGINT),), delay=1.0),
    "SIGINT during a plan": Pattern("plan", ((0.0, SIGINT),)),
    "SIGINT during a solve": Pattern("solve", ((0.0, SIGINT),)),
    "SIGINT during a map arrival": Pattern("map", ((0.0, SIGINT),)),
}
# Which executables have the work a pattern interrupts.
WORK_OF = {"plan": {"planner_node", "bringup"}, "solve": {"puzzle_node", "bringup"},
           "map": {"planner_node", "bringup"}}


def cases(reps: int) -> list[tuple[str, str, int]]:
    """(executable, pattern, repetition) for every pattern that applies to each executable."""
    return [
        (node, name, rep)
        for rep in range(reps)
        for node in NODES
        for name, pattern in PATTERNS.items()
        if pattern.trigger not in WORK_OF or node in WORK_OF[pattern.trigger]
    ]


@dataclass
class Outcome:
    """How one case ended; `problem` is empty for a clean stop."""

    node: str
    pattern: str
    returncode: int | None
    problem: str
    stderr: str
    attempts: int = 1


def _command(node: str, namespace: str, pattern: Pattern) -> list[str]:
    executable = str(BIN_DIR / node)
    parameters = {"map": [arg for value in MAP_ARRIVAL_PARAMETERS for arg in ("-p", value)],
                  "plan": slow_plan_arguments()}.get(pattern.trigger, [])
    if node == "bringup":
        args = ["--map", str(TUTORIAL_MAP), "--namespace", namespace]
        return [executable, *args, *(["--ros-args", *parameters] if parameters else [])]
    ros_args = ["--ros-args", "-r", f"__ns:=/{namespace}", *parameters]
    if node == "map_publisher":
        ros_args += ["-p", f"yaml_filename:={TUTORIAL_MAP}"]
    return [executable, *ros_args]


def _allow_core_files() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))


class MatrixClient:
    """The DDS side of the matrix: one client node shared by all cases.

    Entity creation is locked (rclpy's is not thread-safe) and entities live until `close`:
    destroying one while the client's executor waits on it breaks that executor.
    """

    def __init__(self) -> None:
        self.client = ClientNode("signal_matrix")
        self._lock = threading.Lock()
        self._plan_map = map_to_msg(slow_plan_map(), self.client.node.get_clock().now().to_msg())
        rng = np.random.default_rng(7)
        clutter = np.where(rng.random(MAP_SIDE**2) < 0.01, 100, 0).astype(np.int8)
        self._big_map = map_to_msg(
            OccupancyMap(MAP_SIDE, MAP_SIDE, 0.05, clutter),
            self.client.node.get_clock().now().to_msg(),
        )

    def create(self, factory: Callable[..., object], *args, **kwargs):
        """Create an entity on the client node (rclpy entity creation is not thread-safe)."""
        with self._lock:
            return factory(*args, **kwargs)

    def publish_map(self, namespace: str, which: str) -> None:
        """Publish the plan map or the big cluttered map, latched, into `namespace`."""
        publisher = self.create(
            self.client.node.create_publisher, OccupancyGrid, f"/{namespace}/map", MAP_QOS
        )
        publisher.publish(self._plan_map if which == "plan" else self._big_map)

    def start_plan(self, namespace: str):
        """Ask for a plan that runs for a second or more; the future of its answer."""
        client = self.create(
            self.client.node.create_client, ComputePath, f"/{namespace}/compute_path"
        )
        assert client.wait_for_service(timeout_sec=30.0), "compute_path not available"
        return client.call_async(slow_plan_request())

    def start_solve(self, namespace: str):
        """Ask for a solve that takes seconds; the future of its answer."""
        client = self.create(
            self.client.node.create_client, SolvePuzzle, f"/{namespace}/solve_puzzle"
        )
        assert client.wait_for_service(timeout_sec=30.0), "solve_puzzle not available"
        return client.call_async(SolvePuzzle.Request(
            board=HARD_15, algorithm="astar", heuristic="misplaced", timeout=3.0
        ))

    def close(self) -> None:
        """Destroy the client node."""
        self.client.close()


class Case:
    """One executable run through one pattern."""

    def __init__(self, node: str, pattern_name: str, workdir: Path, dds: MatrixClient) -> None:
        self.node, self.pattern_name = node, pattern_name
        self.pattern = PATTERNS[pattern_name]
        self.root = workdir
        self.dds = dds
        self._new_attempt(1)

    def _new_attempt(self, attempt: int) -> None:
        """A fresh namespace and working folder for attempt number `attempt`."""
        self.namespace = f"sm{uuid.uuid4().hex[:10]}"
        self.workdir = self.root / f"attempt{attempt}"
        self.workdir.mkdir(parents=True)
        self.stderr_path = self.workdir / "stderr.log"

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def _wait_for(self, process: subprocess.Popen, text: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.stderr():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{text!r} not logged")
            time.sleep(0.02)

    @staticmethod
    def _wait_for_entry(process: subprocess.Popen, timeout: float = 60.0) -> float:
        """When the program's entry point ran (ENTRY_MARKER mapped into the process)."""
        maps = Path(f"/proc/{process.pid}/maps")
        deadline = time.monotonic() + timeout
        while True:
            try:
                if ENTRY_MARKER in maps.read_text():
                    return time.monotonic()
            except OSError:
                pass  # the process is gone: poll() says so below
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the entry point never ran")
            time.sleep(0.001)

    def _wait_until_busy(self, process: subprocess.Popen, future, since: float) -> None:
        """Wait until the node has spent BUSY_CPU_S on the request while it is unanswered."""
        deadline = time.monotonic() + 30.0
        while cpu_seconds(process.pid) - since < BUSY_CPU_S:
            if future is not None and future.done():
                raise RuntimeError("the work ended before the signal")
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the node never got busy with the request")
            time.sleep(0.01)
        if future is not None and future.done():
            raise RuntimeError("the work ended before the signal")

    def _prepare(self, process: subprocess.Popen) -> None:
        trigger = self.pattern.trigger
        if trigger == "start":
            entered = self._wait_for_entry(process)
            time.sleep(max(0.0, entered + self.pattern.delay - time.monotonic()))
            return
        self._wait_for(process, "ready: bringup" if self.node == "bringup" else "ready:")
        if trigger == "ready":
            return
        if trigger == "plan":
            self.dds.publish_map(self.namespace, "plan")
            self._wait_for(process, f"{SLOW_SIDE} x {SLOW_SIDE} cells")
            since = cpu_seconds(process.pid)
            future = self.dds.start_plan(self.namespace)
        elif trigger == "solve":
            since = cpu_seconds(process.pid)
            future = self.dds.start_solve(self.namespace)
        else:
            since = cpu_seconds(process.pid)
            self.dds.publish_map(self.namespace, "map")
            future = None
        self._wait_until_busy(process, future, since)
        if trigger == "map" and f"{MAP_SIDE} x {MAP_SIDE} cells" in self.stderr():
            raise RuntimeError("the map was ready before the signal")

    def run(self) -> Outcome:
        """Run the case, again (up to ATTEMPTS) while its set-up fails."""
        outcome = self._run_once()
        for attempt in range(2, ATTEMPTS + 1):
            if not outcome.problem.startswith(SET_UP_FAILED):
                break
            self._new_attempt(attempt)
            outcome = self._run_once()
            outcome.attempts = attempt
        return outcome

    def _run_once(self) -> Outcome:
        """Start the executable, signal it as the pattern says and judge the exit."""
        stdout_path = self.workdir / "stdout.log"
        with stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            env = dict(os.environ, PYTHONUNBUFFERED="1", RCUTILS_LOGGING_BUFFERED_STREAM="0")
            process = subprocess.Popen(
                _command(self.node, self.namespace, self.pattern), stdout=out, stderr=err,
                cwd=self.workdir, env=env, start_new_session=True, preexec_fn=_allow_core_files,
            )
            problem = ""
            try:
                self._prepare(process)
                for pause, sig in self.pattern.signals:
                    time.sleep(pause)
                    os.killpg(process.pid, sig)
                process.wait(30.0)
            except subprocess.TimeoutExpired:
                problem = "did not exit within 30 s"
            except RuntimeError as error:
                problem = f"{SET_UP_FAILED}: {error}"
            finally:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        return self._judge(process.returncode, problem, stdout_path.read_text(errors="replace"))

    def _judge(self, returncode: int, problem: str, stdout: str) -> Outcome:
        stderr = self.stderr()
        cores = [path.name for path in self.workdir.iterdir() if path.name.startswith("core")]
        for path in cores:
            (self.workdir / path).unlink()
        stray = [
            line for line in stderr.splitlines()
            if line.strip() and not line.startswith(ALLOWED_STDERR)
        ]
        if not problem:
            if cores:
                problem = f"core file {cores[0]}"
            elif returncode != 0:
                problem = f"exit code {returncode}"
            elif stray:
                problem = f"stderr: {stray[0][:160]}"
            elif "Traceback" in stdout:
                problem = "traceback on stdout"
        return Outcome(self.node, self.pattern_name, returncode, problem, stderr)


def run_matrix(reps: int, root: Path, workers: int) -> list[Outcome]:
    """Run every case `reps` times, `workers` at once; the outcomes in case order."""
    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    dds = MatrixClient()
    try:
        jobs = []
        for index, (node, name, _rep) in enumerate(cases(reps)):
            workdir = root / f"case{index:04d}"
            workdir.mkdir(parents=True)
            jobs.append(Case(node, name, workdir, dds))
        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(Case.run, jobs))
    finally:
        dds.close()
        if owns_context:
            rclpy.shutdown()


def long_lease_profile(base: Path, out: Path) -> Path:
    """Write to `out` the Fast DDS profile file `base` with the default participant's lease set
    to LEASE_S (a default participant profile added if `base` has none); returns `out`.

    Fast DDS reads tags in its namespace or in none, under a root `<dds>` or `<profiles>`."""
    tree = ElementTree.parse(base)
    root = tree.getroot()
    namespace = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    if namespace:
        ElementTree.register_namespace("", namespace[1:-1])
    kind = root.tag[len(namespace):]
    if kind not in ("dds", "profiles"):
        raise ValueError(f"{base}: the root of a Fast DDS profile file is <dds> or <profiles>, "
                         f"not <{kind}>")
    profiles = root if kind == "profiles" else _child(root, "profiles", namespace)
    participant = profiles.find("{*}participant[@is_default_profile='true']")
    if participant is None:
        participant = ElementTree.SubElement(
            profiles, f"{namespace}participant",
            profile_name="signal_matrix", is_default_profile="true",
        )
    lease = participant
    for tag in ("rtps", "builtin", "discovery_config", "leaseDuration"):
        lease = _child(lease, tag, namespace)
    for tag, value in (("sec", LEASE_S), ("nanosec", 0)):
        _child(lease, tag, namespace).text = str(value)
    tree.write(out, encoding="UTF-8", xml_declaration=True)
    return out


def _child(parent: ElementTree.Element, tag: str, namespace: str) -> ElementTree.Element:
    """`parent`'s first child `tag` (in any namespace or none), made in `namespace` if there
    is none."""
    found = parent.find(f"{{*}}{tag}")
    return ElementTree.SubElement(parent, namespace + tag) if found is None else found


def summary(outcomes: list[Outcome]) -> str:
    """A table of clean stops per executable and pattern, then the first problem of each cell."""
    total = Counter((o.node, o.pattern) for o in outcomes)
    clean = Counter((o.node, o.pattern) for o in outcomes if not o.problem)
    lines = [f"{'executable':<14} {'pattern':<30} clean"]
    problems = []
    for node in NODES:
        for name in PATTERNS:
            if (node, name) not in total:
                continue
            lines.append(f"{node:<14} {name:<30} {clean[node, name]}/{total[node, name]}")
            first = next((o for o in outcomes if (o.node, o.pattern) == (node, name)
                          and o.problem), None)
            if first is not None:
                kinds = Counter(o.problem.split(":")[0] for o in outcomes
                                if (o.node, o.pattern) == (node, name) and o.problem)
                tail = " | ".join(first.stderr.strip().splitlines()[-3:])[-400:]
                problems.append(f"  {node} / {name}: {dict(kinds)}; first: {first.problem}; "
                                f"its stderr ends: {tail}")
    repeated = sum(o.attempts > 1 for o in outcomes)
    lines.append(f"all: {sum(clean.values())}/{sum(total.values())} clean "
                 f"({repeated} cases run again after a failed set-up)")
    return "\n".join(lines + problems)


def main(argv: list[str]) -> int:
    """Run the matrix (REPS WORKERS FOLDER) and print its summary; 1 when a case was not clean.
    SIGABRT prints where every thread is (faulthandler), even with the interpreter's lock held."""
    faulthandler.enable()
    reps, workers, root = int(argv[0]), int(argv[1]), Path(argv[2])
    outcomes = run_matrix(reps, root, workers)
    print(f"signal matrix, {reps} repetitions:\n{summary(outcomes)}")
    return 0 if all(not outcome.problem for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
