"""Every `ros2` command README shows, run verbatim with the real command line, block by block.

A ```bash block of README is one scenario, as a user would run it in a few terminals (in a ROS
domain of its own, with a ros2 daemon started before its first command):
- a command followed by `# runs: <node> ...` runs until Ctrl-C (`ros2 launch`, `ros2 run` of a
  node); the test waits for each listed node's `ready:` line and for `ros2 node list` (the
  daemon's view, which the later verbs use) to show exactly those nodes, keeps it up until the
  block ends, then sends SIGINT to its process group: it must exit 0 without a traceback,
  every launched process finished cleanly;
- a command followed by `# prints: <text>` must exit 0 and print each such text (run again
  while it only says that the ros2 daemon has not discovered its node or topic yet); ending in
  `&`, it runs in the background (the test waits until it has subscribed to the topic it
  names) and is checked when it ends, before the block's long-running commands are stopped.
Lines that are not `ros2` commands (make, bringup, colcon) are left to other tests. A `ros2`
command without `# runs:` or `# prints:` fails the test, so README cannot show an unchecked one.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import pytest
from interface_doc import code, node_sections
from ros_cli import (
    COMMAND_TIMEOUT_S,
    LongRunning,
    assert_clean_stop,
    own_daemon_domain,
    require_cli,
    shell,
    until_discovered,
    wait_for_nodes,
    wait_for_topics,
)
from ros_harness import ros_client, wait_until
from shared_data import PROJECT_ROOT

README = PROJECT_ROOT / "README.md"
FENCE = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)
INLINE_COMMAND = re.compile(r"`(ros2 [^`]+)`")


@dataclass
class Command:
    """One `ros2` command line of README with what it must run or print."""

    text: str
    runs: list[str] = field(default_factory=list)
    prints: list[str] = field(default_factory=list)

    @property
    def background(self) -> bool:
        """Whether README runs it with a trailing `&`."""
        return self.text.endswith("&")


def logical_lines(block: str) -> list[str]:
    """The block's lines with backslash continuations joined, as bash reads them."""
    return [line.strip() for line in block.replace("\\\n", "").splitlines() if line.strip()]


def readme_blocks(text: str | None = None) -> list[list[Command]]:
    """The `ros2` commands of each bash block of README that has any."""
    blocks = []
    for block in FENCE.findall(README.read_text() if text is None else text):
        commands: list[Command] = []
        for line in logical_lines(block):
            if line.startswith("ros2 "):
                commands.append(Command(line))
            elif line.startswith("# runs:") and commands:
                commands[-1].runs += line.removeprefix("# runs:").split()
            elif line.startswith("# prints:") and commands:
                commands[-1].prints.append(line.removeprefix("# prints:").strip())
        if commands:
            blocks.append(commands)
    return blocks


def scenarios() -> list[list[Command]]:
    """The blocks to run: each distinct list of commands once (the workspace block repeats
    the first launch)."""
    seen, unique = set(), []
    for block in readme_blocks():
        key = tuple(command.text for command in block)
        if key not in seen:
            seen.add(key)
            unique.append(block)
    return unique


def node_family() -> set[str]:
    """The base names of every node README runs; `ros2 node list` is compared on these."""
    return {node.rsplit("/", 1)[-1] for block in readme_blocks() for c in block for node in c.runs}


def documented_topics(nodes: list[str], direction: str | None = None) -> set[str]:
    """The topics docs/interface.md gives the nodes (fully qualified), in their namespaces;
    only those they `direction` ("publishes" or "subscribes") when given.

    A node run under a name the page does not head (planner_node as Nav2's planner_server,
    with the Nav2 launch file's inputs) has none to wait for.
    """
    sections = node_sections()
    topics = set()
    for node in nodes:
        namespace, _, name = node.rpartition("/")
        if name not in sections:
            continue
        for row in sections[name][1].table("Topics"):
            if direction is None or row["direction"] == direction:
                topics.add(f"{namespace}/{code(row['topic'])}")
    return topics


def scenario_id(block: list[Command]) -> str:
    """A test id from the block's first command."""
    return re.sub(r"[^\w.:=-]+", "_", block[0].text)[:60]


# --- README's commands are complete and checked ---------------------------------------------


def test_every_command_says_what_it_runs_or_prints() -> None:
    for block in readme_blocks():
        for command in block:
            assert bool(command.runs) != bool(command.prints), (
                f"README command needs exactly one of '# runs:' and '# prints:': {command.text}"
            )
            assert not (command.background and command.runs), command.text


def test_every_executable_has_a_ros2_run_command() -> None:
    scripts = {
        entry.name for entry in metadata.distribution("grid_planner").entry_points
        if entry.group == "console_scripts"
    }
    run = {
        c.text.split()[3] for block in readme_blocks() for c in block
        if c.text.startswith("ros2 run grid_planner ")
    }
    assert scripts and scripts == run


def test_every_launch_file_has_a_ros2_launch_command() -> None:
    files = {path.name for path in (PROJECT_ROOT / "launch").glob("*.launch.py")}
    launched = {
        c.text.split()[3] for block in readme_blocks() for c in block
        if c.text.startswith("ros2 launch grid_planner ")
    }
    assert files and files == launched


def test_inline_ros2_commands_are_run_by_a_block() -> None:
    # `ros2 launch` alone names a tool; a span of four words or more is a command to try.
    texts = [c.text for block in readme_blocks() for c in block]
    for span in INLINE_COMMAND.findall(README.read_text()):
        if len(span.split()) >= 4:
            assert any(span in text for text in texts), f"inline command not run: {span}"


def test_the_parser_reads_continuations_and_expectations() -> None:
    block = "```bash\nros2 a \\\n  b\n# prints: x\nmake c\nros2 d &\n# prints: y\n```\n"
    (commands,) = readme_blocks(block)
    assert [(c.text, c.prints, c.background) for c in commands] == [
        ("ros2 a   b", ["x"], False), ("ros2 d &", ["y"], True),
    ]


@pytest.mark.parametrize("path", [README, *sorted((PROJECT_ROOT / "docs").glob("*.md"))],
                         ids=lambda p: p.name)
def test_links_point_inside_the_repository(path: Path) -> None:
    root = PROJECT_ROOT.resolve()
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        resolved = (path.parent / target.split("#", 1)[0]).resolve()
        assert resolved.is_relative_to(root), f"{path.name} links outside the repository: {target}"
        assert resolved.exists(), f"{path.name} links a missing file: {target}"


# --- ...and run as they stand -----------------------------------------------------------------


@pytest.fixture(scope="module")
def cli() -> None:
    """The real command line (each block runs in a domain of its own, with its own daemon)."""
    require_cli()


def check_printed(command: Command, exit_code: int, output: str) -> None:
    """A one-shot command succeeded, printed no traceback and each expected text."""
    assert exit_code == 0, f"{command.text}\nexit code {exit_code}:\n{output}"
    assert "Traceback" not in output, f"{command.text}\n{output}"
    for text in command.prints:
        assert text in output, f"{command.text}\nexpected {text!r} in:\n{output}"


def subscription_count(client, topic: str) -> int:
    """Subscriptions on `topic`, or on the topics of an action of that name."""
    names = [name for name, _ in client.node.get_topic_names_and_types()
             if name == topic or name.startswith(f"{topic}/_action/")]
    return sum(client.node.count_subscribers(name) for name in names)


@pytest.mark.parametrize("block", scenarios(), ids=scenario_id)
def test_readme_block_runs_as_shown(block: list[Command], cli: None, tmp_path: Path) -> None:
    family = node_family()
    running: list[LongRunning] = []
    background: list[tuple[Command, LongRunning]] = []
    expected_nodes: set[str] = set()
    try:
        with own_daemon_domain() as domain, ros_client("readme", domain) as client:
            for command in block:
                if command.runs:
                    proc = LongRunning(command.text, tmp_path)
                    running.append(proc)
                    proc.wait_for_ready(command.runs)
                    expected_nodes |= set(command.runs)
                    # The daemon's view, which README's later verbs use, must be complete too.
                    wait_for_nodes(expected_nodes, family, daemon=True)
                    wait_for_topics(documented_topics(command.runs),
                                    documented_topics(command.runs, "publishes"))
                elif command.background:
                    topic = next(word for word in command.text.split() if word.startswith("/"))
                    before = subscription_count(client, topic)
                    proc = LongRunning(command.text.removesuffix("&").strip(), tmp_path)
                    background.append((command, proc))
                    try:
                        wait_until(lambda t=topic, b=before, p=proc: (
                            subscription_count(client, t) > b or p.process.poll() is not None),
                            timeout=60.0, what=f"{command.text} to subscribe to {topic}")
                    except AssertionError as error:
                        raise AssertionError(f"{error}; it printed:\n{proc.output()}") from None
                    assert proc.process.poll() is None, (
                        f"{command.text} ended before it subscribed:\n{proc.output()}")
                else:
                    try:
                        result = until_discovered(lambda c=command: shell(c.text, tmp_path))
                    except subprocess.TimeoutExpired as error:
                        raise AssertionError(f"{command.text} did not end in {error.timeout} s; "
                                             f"it printed:\n{error.output}") from None
                    check_printed(command, result.returncode, result.stdout)
            for command, proc in background:
                try:
                    exit_code = proc.process.wait(COMMAND_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    exit_code = None
                check_printed(command, exit_code, proc.output())
        while running:
            proc = running.pop()
            assert_clean_stop(proc, proc.interrupt())
    finally:
        for proc in running + [proc for _, proc in background]:
            proc.kill()
