"""`make demo` as a new user runs it: tools/demo.py over DDS, every step, every file it names."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from PIL import Image
from shared_data import PROJECT_ROOT


def test_the_demo_runs_every_step_and_writes_its_pictures() -> None:
    result = subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "tools" / "demo.py")], cwd=PROJECT_ROOT,
        env=dict(os.environ), capture_output=True, text=True, timeout=300,
    )
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    # The RViz-style goal and the three searches on the floor plan: BFS and A* agree on the
    # optimal length, DFS is longer, A* expands fewer cells than BFS.
    assert "[demo] map received on 'map': 280 x 180 cells at 0.05 m (floor_plan.yaml)" in out
    rows = dict(
        (name, (float(metres), int(expanded.replace(",", ""))))
        for name, metres, expanded in re.findall(
            r"\[demo\]\s+(bfs|dfs|astar)\s+([\d.]+) m\s+\d+\s+([\d,]+)", out
        )
    )
    assert set(rows) == {"bfs", "dfs", "astar"}
    assert rows["bfs"][0] == rows["astar"][0] < rows["dfs"][0]
    assert rows["astar"][1] < rows["bfs"][1]
    assert "solved in 31 moves (optimal)" in out
    assert "[demo] bringup stopped cleanly (exit code 0)" in out
    written = re.findall(r"\[demo\] wrote (\S+)", out)
    assert sorted(written) == ["build/demo/plan.png", "build/demo/puzzle.gif",
                               "build/demo/search.gif"]
    with Image.open(PROJECT_ROOT / "build/demo/search.gif") as gif:
        assert gif.n_frames > 1
    with Image.open(PROJECT_ROOT / "build/demo/puzzle.gif") as gif:
        assert gif.n_frames == 32  # the start board and each of the 31 moves
