"""The warm-up notice: said once while a compile runs, never after a quick load or a failure."""

from __future__ import annotations

import io
import sys
import threading
import time

import pytest

from grid_planner.cli.output import warm_kernels
from grid_planner.jit.warm_notice import warm_with_notice


class Recorder:
    """A logger that keeps its lines and signals the first one."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.logged = threading.Event()

    def info(self, message: str) -> None:
        self.lines.append(message)
        self.logged.set()


def test_a_slow_warm_up_says_once_what_it_compiles() -> None:
    log = Recorder()

    def compiling() -> float:  # runs until the notice is out
        assert log.logged.wait(30.0), "no notice while the warm-up ran"
        time.sleep(0.2)  # a timer that repeated would log again here
        return 12.5

    assert warm_with_notice(compiling, log, "search kernels", after=0.05) == 12.5
    assert log.lines == [
        "warming the search kernels: the first start after an install or an upgrade "
        "compiles them into numba's cache, and configure answers when it is done; later "
        "starts load them"
    ]


@pytest.mark.parametrize("ends", ["returns", "raises"])
def test_a_warm_up_that_ends_in_time_says_nothing(ends: str) -> None:
    log = Recorder()

    def quick() -> float:
        if ends == "raises":
            raise RuntimeError("no compiler")
        return 0.01

    if ends == "raises":
        with pytest.raises(RuntimeError, match="no compiler"):
            warm_with_notice(quick, log, "IDA* kernel", after=1.0)
    else:
        assert warm_with_notice(quick, log, "IDA* kernel", after=1.0) == 0.01
    assert not log.logged.wait(1.5)  # the timer was cancelled, not merely late
    assert log.lines == []


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_command_line_says_it_on_a_terminal_only(monkeypatch) -> None:
    def compiling() -> float:
        time.sleep(0.3)
        return 0.3

    for stderr, said in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stderr)
        assert warm_kernels(compiling, after=0.05) == 0.3
        assert stderr.getvalue() == (
            "grid-planner: warming the search kernels: the first run after an install or an "
            "upgrade compiles them into numba's cache, and the command goes on when it is done; "
            "later runs load them\n" if said else ""
        )
