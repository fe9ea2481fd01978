"""Every executable stops cleanly on every signal pattern (exit 0, no traceback, no core file)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from signal_matrix import run_matrix, summary

pytestmark = pytest.mark.alone

# Repetitions of each case; the matrix runs this many times over in one concurrent batch. Two
# keep the whole suite inside CI's 20 minutes on a slow day (three took 104-125 s of it);
# SIGNAL_MATRIX_REPS=10 is the soak run.
REPS = int(os.environ.get("SIGNAL_MATRIX_REPS", "2"))
WORKERS = int(os.environ.get("SIGNAL_MATRIX_WORKERS", "6"))


def test_every_executable_stops_cleanly_on_every_signal_pattern(tmp_path: Path) -> None:
    outcomes = run_matrix(REPS, tmp_path, WORKERS)
    report = summary(outcomes)
    print(f"\nsignal matrix, {REPS} repetitions:\n{report}")
    assert all(not outcome.problem for outcome in outcomes), report
