"""The executables' malloc arena limit: threads that allocate share one arena after it, and a
limit given in the environment is left alone."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from shared_data import PROJECT_ROOT

from grid_planner.nodes.malloc_arenas import limit_malloc_arenas

# Four threads each allocate a block while all are alive, then glibc's malloc_info lists the
# arenas (one <heap nr=...> each) on stdout; argv[1] "limit" sets the limit first.
PROBE = """
import ctypes, sys, threading
from grid_planner.nodes.malloc_arenas import limit_malloc_arenas
if sys.argv[1] == "limit" and not limit_malloc_arenas():
    sys.exit(3)
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.fdopen.restype = ctypes.c_void_p
together = threading.Barrier(4)
def allocate():
    libc.malloc(65536)
    together.wait()
threads = [threading.Thread(target=allocate) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
out = ctypes.c_void_p(libc.fdopen(1, b"w"))
libc.malloc_info(0, out)
libc.fflush(out)
"""


def arenas(mode: str) -> int:
    env = {k: v for k, v in os.environ.items() if k not in ("MALLOC_ARENA_MAX", "GLIBC_TUNABLES")}
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    run = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True,
                         env=env, timeout=60)
    if run.returncode == 3:
        pytest.skip("the C library has no mallopt (not glibc)")
    assert run.returncode == 0, run.stderr
    return run.stdout.count("<heap nr=")


def test_threads_that_allocate_share_one_arena_after_the_limit() -> None:
    assert arenas("none") > 1  # glibc's default: the threads made arenas of their own
    assert arenas("limit") == 1


@pytest.mark.parametrize("name, value", [("MALLOC_ARENA_MAX", "4"),
                                         ("GLIBC_TUNABLES", "glibc.malloc.arena_max=4")])
def test_a_limit_from_the_environment_is_left_as_it_is(monkeypatch, name, value) -> None:
    monkeypatch.setenv(name, value)
    assert limit_malloc_arenas() is False
