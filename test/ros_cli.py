"""Drive the nodes as ROS users do: the real `ros2` command line, one-shot verbs and launches.

The command line comes from a real ROS installation where one is importable, else from the
test set-up (`make test-env`, from the shared folder). When neither is there the tests skip
with the reason (fail under CI=true). Long-running commands (`ros2 launch`, `ros2 run` of a
node) run in their own process group and are stopped like Ctrl-C stops them in a terminal:
SIGINT to the whole group.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ros_domains import SCENARIO_DOMAINS, claim_domain
from ros_harness import STOP_DEADLINE
from shared_data import shared_dir, unavailable

# What must import for `ros2 launch`, `ros2 run` and the verbs the tests use.
CLI_MODULES = "ros2cli, ros2launch.api, launch_ros.actions, ros2run, ros2param, ros2topic"
# A hang guard for one command, far above what any command takes on a loaded machine.
COMMAND_TIMEOUT_S = 180.0
# Domains a scenario tries before it fails because no ros2 daemon of its own would start.
DAEMON_DOMAIN_ATTEMPTS = 5
NODE_LIST = ("node", "list", "--no-daemon", "--spin-time", "3")
# What the verbs print when the daemon has not discovered the node or topic asked about.
UNDISCOVERED = ("Node not found", "Unknown topic", "Could not determine the type for the passed")


@functools.cache
def _cli_problem() -> str | None:
    """Why the command line cannot run here, or None when it can."""
    # From /, so that the project's own launch/ folder cannot pass for the launch package.
    probe = subprocess.run(
        [sys.executable, "-c", f"import {CLI_MODULES}"], cwd="/", capture_output=True,
        text=True, env=cli_env(),
    )
    if probe.returncode != 0:
        installer = shared_dir() / "ros_cli_install.sh"
        where = "run `make test-env`" if installer.exists() else f"{installer} not found"
        return (f"the ros2 command line is not importable ({probe.stderr.strip().splitlines()[-1]}"
                f"); the test set-up installs it from the shared folder: {where}")
    if ros2_executable() is None:
        return "the ros2 command line imports but no `ros2` executable was found"
    return None


def require_cli() -> None:
    """Skip the calling test (fail under CI=true) when the real command line is missing."""
    problem = _cli_problem()
    if problem:
        unavailable(problem)


def ros2_executable() -> Path | None:
    """`ros2` beside this interpreter (the venv's), else the one on PATH."""
    beside = Path(sys.executable).parent / "ros2"
    if beside.is_file():
        return beside
    found = shutil.which("ros2")
    return Path(found) if found else None


def cli_env() -> dict[str, str]:
    """This environment with the interpreter's bin first on PATH and an AMENT_PREFIX_PATH."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", RCUTILS_LOGGING_BUFFERED_STREAM="0")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("AMENT_PREFIX_PATH", sys.prefix)
    return env


def ros2(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `ros2 <args>` to completion (stdout and stderr together)."""
    return subprocess.run(
        [str(ros2_executable()), *args], cwd=cwd, env=cli_env(), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT_S,
    )


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a command line verbatim in bash, as a user pastes it (stdout and stderr together)."""
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=cli_env(), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT_S,
    )


def until_discovered(
    run: Callable[[], subprocess.CompletedProcess[str]], timeout: float = 60.0
) -> subprocess.CompletedProcess[str]:
    """Run a verb again while it answers only that the ros2 daemon has not discovered its
    node or topic yet (a fresh daemon's graph fills in over a few seconds, on a loaded
    machine sometimes node by node), as a user would retry; any other answer is final."""
    deadline = time.monotonic() + timeout
    while True:
        result = run()
        undiscovered = any(text in result.stdout for text in UNDISCOVERED)
        if not undiscovered or time.monotonic() > deadline:
            return result
        time.sleep(0.5)


def node_names(*, daemon: bool = False) -> set[str]:
    """The fully qualified node names `ros2 node list` shows (without the daemon by default)."""
    result = ros2(*(("node", "list") if daemon else NODE_LIST))
    assert result.returncode == 0, result.stdout
    return {line.strip() for line in result.stdout.splitlines() if line.startswith("/")}


def wait_for_nodes(expected: Iterable[str], family: Iterable[str], *, daemon: bool = False,
                   timeout: float = 90.0) -> set[str]:
    """Poll `ros2 node list` until the nodes named like `family` in the namespaces of
    `expected` are exactly `expected`; returns the last listing.

    Other nodes (a test's own client nodes, another session's nodes elsewhere) are ignored.
    """
    expected = set(expected)
    family = set(family)
    namespaces = {node.rpartition("/")[0] for node in expected}
    deadline = time.monotonic() + timeout
    while True:
        listed = node_names(daemon=daemon)
        ours = {
            node for node in listed
            if node.rpartition("/")[2] in family and node.rpartition("/")[0] in namespaces
        }
        if ours == expected or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert ours == expected, f"ros2 node list shows {sorted(listed)}, expected {sorted(expected)}"
    return listed


def stop_daemon() -> None:
    """Stop this domain's ros2 daemon if a command started one."""
    ros2("daemon", "stop")


@contextmanager
def own_daemon_domain() -> Iterator[int]:
    """Run a command-line scenario in a ROS domain of its own, with a ros2 daemon started for
    it before its nodes, and stopped after; yields the domain.

    The verbs then always ask a daemon that has watched the whole scenario. In a domain whose
    last daemon was just stopped, no new one may start for up to a minute (its port can stay in
    TIME_WAIT), and each verb falls back to a direct node that looks at the graph for half a
    second: `ros2 topic echo` may then see a latched topic's subscriber but not yet its
    publisher, subscribe volatile and wait for ever.
    """
    previous = os.environ["ROS_DOMAIN_ID"]
    try:
        answers = []
        for _attempt in range(DAEMON_DOMAIN_ATTEMPTS):
            os.environ["ROS_DOMAIN_ID"] = str(claim_domain(SCENARIO_DOMAINS))
            started = ros2("daemon", "start")
            if "The daemon has been started" in started.stdout:
                break
            # Its port is taken (say, still closing after another process's daemon), or the
            # daemon was slow to start: leave no daemon behind there, and take another domain.
            answers.append(f"domain {os.environ['ROS_DOMAIN_ID']}: {started.stdout.strip()}")
            stop_daemon()
        else:
            raise AssertionError(f"no ros2 daemon could start: {answers}")
        yield int(os.environ["ROS_DOMAIN_ID"])
    finally:
        stop_daemon()
        os.environ["ROS_DOMAIN_ID"] = previous


def ready_line_pattern(node: str) -> re.Pattern[str]:
    """A node's `ready:` log line: rclpy logs it under `<namespace>.<name>` without the slash."""
    logger = re.escape(node.lstrip("/").replace("/", "."))
    return re.compile(rf"\[{logger}\]: ready: (.*)")


class LongRunning:
    """A command that runs until interrupted (`ros2 launch`, `ros2 run` of a node), in bash,
    in its own process group, with its output in a log file. A non-interactive bash waits for
    a foreground command that Ctrl-C stops and exits with its status."""

    def __init__(self, command: str | list[str], log_dir: Path, cwd: Path | None = None) -> None:
        self.command = command
        self.log_path = log_dir / f"long-running-{uuid.uuid4().hex[:8]}.log"
        self._log = self.log_path.open("wb")
        argv = ["bash", "-c", command] if isinstance(command, str) else command
        self.process = subprocess.Popen(
            argv, cwd=cwd or log_dir, env=cli_env(), stdout=self._log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )

    def output(self) -> str:
        """Everything printed so far."""
        return self.log_path.read_text(errors="replace")

    def wait_for_ready(self, nodes: Iterable[str], timeout: float = 120.0) -> dict[str, str]:
        """Wait for each node's `ready:` line; node -> the rest of that line."""
        patterns = {node: ready_line_pattern(node) for node in nodes}
        deadline = time.monotonic() + timeout
        while True:
            text = self.output()
            found = {node: p.search(text) for node, p in patterns.items()}
            if all(found.values()):
                return {node: match.group(1) for node, match in found.items()}
            if self.process.poll() is not None or time.monotonic() > deadline:
                missing = [node for node, match in found.items() if not match]
                raise AssertionError(
                    f"no ready line from {missing} (exit code {self.process.poll()}):\n{text}"
                )
            time.sleep(0.1)

    def interrupt(self, timeout: float = 60.0) -> int:
        """SIGINT to the whole process group (Ctrl-C); the exit code. Kills the group after
        `timeout` and fails, so a hang never outlives the test."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                raise AssertionError(
                    f"not stopped by SIGINT within {timeout} s:\n{self.output()}"
                ) from None
        self._log.close()
        return self.process.returncode

    def kill(self) -> None:
        """Kill the whole group (clean-up after a failed test)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self._log.close()


def assert_clean_stop(proc: LongRunning, exit_code: int) -> None:
    """The command exited 0 without a traceback; under launch, every process finished cleanly.

    A node whose teardown hung and was ended by its deadline (exit 0, see the runtime) passes,
    with a pytest warning that carries the stacks it printed, so the CI log shows it.
    """
    text = proc.output()
    if STOP_DEADLINE in text:
        warnings.warn(f"a teardown was ended by its deadline:\n{text}", stacklevel=2)
    assert exit_code == 0, f"exit code {exit_code}:\n{text}"
    assert "Traceback" not in text, text
    started = re.findall(r"\[INFO\] \[([\w.-]+)\]: process started with pid", text)
    finished = re.findall(r"\[INFO\] \[([\w.-]+)\]: process has finished cleanly", text)
    assert sorted(started) == sorted(finished), text
    assert "process has died" not in text, text


def topic_endpoints(topic: str, wanted: set[tuple[str, str]]) -> list[dict[str, str]]:
    """The endpoints `ros2 topic info -v` shows for `topic`, each as its `key: value` lines,
    once every wanted (node name, PUBLISHER/SUBSCRIPTION) is among them. Asks the daemon (warm
    it with `wait_for_nodes(..., daemon=True)` first), again until the wanted ones have been
    discovered: endpoints travel apart from node names."""
    deadline = time.monotonic() + 60.0
    while True:
        result = ros2("topic", "info", "-v", topic)
        # "Unknown topic" (exit code 1) until the daemon has discovered an endpoint.
        assert result.returncode == 0 or "Unknown topic" in result.stdout, result.stdout
        endpoints: list[dict[str, str]] = []
        for line in result.stdout.splitlines():
            key, sep, value = line.strip().partition(": ")
            if key == "Node name":
                endpoints.append({})
            if sep and endpoints:
                endpoints[-1][key] = value.strip()
        found = {(e.get("Node name"), e.get("Endpoint type")) for e in endpoints}
        if wanted <= found:
            return endpoints
        assert time.monotonic() < deadline, f"{sorted(wanted)} not all in:\n{result.stdout}"
        time.sleep(0.5)


def wait_for_topics(
    topics: Iterable[str], published: Iterable[str] = (), timeout: float = 60.0
) -> None:
    """Poll the daemon's `ros2 topic list -v` until it holds every one of `topics`, and a
    publisher of every one of `published` (verbs such as `ros2 topic echo` ask the daemon for a
    topic's type, and choose their QoS from the publishers it knows: a latched topic whose
    subscriber alone is known yet would be echoed volatile, and wait for ever)."""
    topics, published = set(topics), set(published)
    deadline = time.monotonic() + timeout
    while True:
        listed: dict[str, set[str]] = {"Published": set(), "Subscribed": set()}
        section = listed["Published"]
        for line in ros2("topic", "list", "-v").stdout.splitlines():
            words = line.split()
            if words and words[0] in listed:
                section = listed[words[0]]
            elif len(words) > 1 and words[0] == "*":
                section.add(words[1])
        missing = (topics - listed["Published"] - listed["Subscribed"]) | (
            published - listed["Published"])
        if not missing:
            return
        assert time.monotonic() < deadline, f"{sorted(missing)} not (published) in ros2 topic list"
        time.sleep(0.5)


def param_get(node: str, name: str) -> str:
    """What `ros2 param get` prints for one parameter (asking the daemon which nodes exist)."""
    result = until_discovered(lambda: ros2("param", "get", node, name))
    assert result.returncode == 0, result.stdout
    return result.stdout.strip()
