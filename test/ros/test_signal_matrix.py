"""Every executable stops cleanly on every signal pattern (exit 0, no traceback, no core file).

The matrix runs in a process and a ROS domain of its own, with a Fast DDS profile whose
participants announce a lease of an hour (`signal_matrix.LEASE_S` says why), for no longer than
LIMIT_S.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from ros_domains import SCENARIO_DOMAINS, claim_domain
from ros_harness import stat_fields
from shared_data import PROJECT_ROOT, SERVICE_PROFILE
from signal_matrix import long_lease_profile

pytestmark = pytest.mark.alone

# Repetitions of each case; the matrix runs this many times over in one concurrent batch. Two
# keep the whole suite inside CI's 20 minutes on a slow day (three took 104-125 s of it);
# SIGNAL_MATRIX_REPS=10 is the soak run.
REPS = int(os.environ.get("SIGNAL_MATRIX_REPS", "2"))
WORKERS = int(os.environ.get("SIGNAL_MATRIX_WORKERS", "6"))
MATRIX = Path(__file__).with_name("signal_matrix.py")
# Two repetitions take about 60 s; a matrix still running after this is stuck, not slow.
LIMIT_S = 150.0 * max(REPS, 1) + 300.0


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for folder in Path("/proc").glob("[0-9]*"):
        fields = stat_fields(int(folder.name))
        if fields is not None and int(fields[1]) == pid:
            found.append(int(folder.name))
    return found


def _stop_stuck(matrix: subprocess.Popen) -> str:
    """End the stuck matrix and the nodes it started (each leads a session of its own), and
    return what it printed, where its threads were last. The matrix is paused first: it then
    starts no node meanwhile, and a node that has ended keeps its pid (unreaped) until then."""
    matrix.send_signal(signal.SIGSTOP)
    for node in _children(matrix.pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(node, signal.SIGKILL)
    matrix.send_signal(signal.SIGABRT)
    matrix.send_signal(signal.SIGCONT)
    try:
        printed, _ = matrix.communicate(timeout=30.0)
    except subprocess.TimeoutExpired:
        matrix.kill()
        printed, _ = matrix.communicate()
    return printed


@pytest.mark.timeout(LIMIT_S + 120.0)  # the test's own limit comes first
def test_every_executable_stops_cleanly_on_every_signal_pattern(tmp_path: Path) -> None:
    base = Path(os.environ.get("FASTRTPS_DEFAULT_PROFILES_FILE", SERVICE_PROFILE))
    helpers = [str(PROJECT_ROOT / "test"), os.environ.get("PYTHONPATH")]
    env = dict(
        os.environ,
        FASTRTPS_DEFAULT_PROFILES_FILE=str(long_lease_profile(base, tmp_path / "fastdds.xml")),
        PYTHONPATH=os.pathsep.join(filter(None, helpers)),
        ROS_DOMAIN_ID=str(claim_domain(SCENARIO_DOMAINS)),
    )
    command = [sys.executable, str(MATRIX), str(REPS), str(WORKERS), str(tmp_path / "cases")]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        cwd=tmp_path,
    ) as matrix:
        try:
            report, _ = matrix.communicate(timeout=LIMIT_S)
        except BaseException as error:
            printed = _stop_stuck(matrix)
            if isinstance(error, subprocess.TimeoutExpired):
                pytest.fail(f"the matrix did not end within {LIMIT_S:.0f} s; it printed:\n"
                            f"{printed}")
            raise
    print(f"\n{report}")
    assert matrix.returncode == 0, report
