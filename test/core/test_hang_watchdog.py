"""The hang watchdog (test/hang_watchdog.py) ends a test that holds the interpreter's lock past
its timeout, which pytest-timeout's signal handler cannot interrupt, and prints its stack."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HELPERS = Path(__file__).resolve().parent.parent
# A mutex locked twice by one thread: libc waits for good, signals or not, and ctypes.PyDLL
# calls it without releasing the interpreter's lock, as a library stuck on a lock does.
STUCK_TEST = """import ctypes

import pytest


{marker}
def test_holds_the_interpreters_lock():
    libc, mutex = ctypes.PyDLL(None), ctypes.create_string_buffer(64)
    libc.pthread_mutex_lock(mutex)
    libc.pthread_mutex_lock(mutex)
"""


def _pytest(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    """pytest run in `folder` with the watchdog plugin and `arguments`."""
    path = os.pathsep.join(filter(None, [str(HELPERS), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "hang_watchdog", "-p", "no:cacheprovider",
         *arguments],
        cwd=folder, env=dict(os.environ, PYTHONPATH=path), capture_output=True, text=True,
        timeout=300,
    )


@pytest.mark.parametrize(("marker", "option"), [
    ("", "--timeout=3"),
    ("@pytest.mark.timeout(3)", "--timeout=0"),
], ids=["option", "marker"])
def test_a_test_holding_the_interpreters_lock_ends_with_its_stack(
    tmp_path: Path, marker: str, option: str
) -> None:
    (tmp_path / "test_stuck.py").write_text(STUCK_TEST.format(marker=marker))
    run = _pytest(tmp_path, option, "test_stuck.py")
    assert run.returncode == 1
    # faulthandler's report (hang_limit(3.0) is 8.3 s), not pytest-timeout's, which never ran.
    assert re.search(r"^Timeout \(0:00:08\.\d+\)!$", run.stderr, re.MULTILINE), run.stderr
    assert re.search(r'test_stuck\.py", line 10 in test_holds_the_interpreters_lock', run.stderr)
    assert "+ Timeout +" not in run.stdout + run.stderr


def test_the_watchdog_runs_beside_pytests_faulthandler_plugin_turned_off(tmp_path: Path) -> None:
    """`-p no:faulthandler` takes away the `faulthandler_timeout` setting the watchdog reads."""
    (tmp_path / "test_quick.py").write_text("def test_quick():\n    pass\n")
    run = _pytest(tmp_path, "-p", "no:faulthandler", "--timeout=60", "test_quick.py")
    assert run.returncode == 0, run.stdout + run.stderr
