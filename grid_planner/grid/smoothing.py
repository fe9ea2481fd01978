"""Smoothing a planned path: straight shortcuts, or a Smac-style gradient smoother.

Parameter `smoothing`: ``none`` (the default: the cell centres as searched), ``shortcut`` or
``gradient``. Both work on the path's points in cell coordinates (see `sweep`) and keep the
clearance guarantee: every pose, and every point swept between two poses, is farther than
`robot_radius` from every obstacle cell centre, and every cell swept is free.

- ``shortcut`` walks from the start and joins it to a far later point that a straight segment
  reaches clear and at no more cost than the stretch of path it replaces (the cost model's
  factor integrated along both), found by galloping ahead and bisecting; then does the same
  from there.
- ``gradient`` is Smac Planner's smoother: Gauss-Seidel sweeps, endpoints fixed, each inner point
  moved by ``w_data * (original - point) + w_smooth * (next + previous - 2 point)`` until the summed
  movement of a sweep falls under `tolerance` or after `max_iterations` sweeps. A run that settled
  under `tolerance` is refined as in Smac (`do_refinement`, `refinement_num`): smoothed again, up to
  `refinement_num` more runs, each anchored to the result of the last, which straightens the wiggles
  one run leaves; a run that changes nothing ends the refinement. A move that would break the
  guarantee on either segment of the point is refused (the point stays), where Smac stops smoothing
  at its first refused move and checks the pose's cell only. A result longer than the path it
  started from is dropped for that path.

The part of a path inside the inflated band around an inflated start is kept as searched (no
free cell there to smooth through). The result keeps the start and goal points exactly and its
poses lie about a cell apart: a shortcut path keeps its corners and cuts each segment into equal
pieces of at most one cell; a gradient path is resampled every L / ceil(L) cells of its length
L, keeping the smoothed points between two samples whose chord would not be clear.
"""

from __future__ import annotations

import math
import numbers
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from grid_planner.jit import njit

from .cell_points import SQUARE_SAFE, polyline_length_kernel
from .occupancy import index_points
from .sweep import polyline_costs, segment_walk

if TYPE_CHECKING:
    from .planning_grid import PlanningGrid

SMOOTHINGS = ("none", "shortcut", "gradient")
DEFAULT_SMOOTHING = "none"
# A shortcut may cost this much more than the stretch it replaces (float noise, in cells).
_COST_SLACK = 1e-9
# The raw costs of a grid without a cost field, read-only like a grid's own.
_NO_RAW = np.zeros(1, dtype=np.uint8)
_NO_RAW.setflags(write=False)
# The gradient smoother sweeps in chunks of about this many point moves (a few ms), and looks
# at the deadline and the cancel flag between chunks.
_GRADIENT_CHUNK_MOVES = 1 << 15
# How far (cells along the path) a smoothed point must lie from a resampling station to be kept
# beside the station's own sample: one within rounding of it would be a second pose there.
STATION_SLACK = 1e-9


# The most sweeps a run and refinement runs a smoothing may ask for: 100 times Smac's defaults,
# so a plan whose time limit is huge (Nav2 users set one to mean "none") still ends.
MAX_SMOOTHER_ITERATIONS = 100_000
MAX_REFINEMENTS = 200


@dataclass(frozen=True)
class SmootherParams:
    """The gradient smoother's settings (Smac Planner's defaults and key names)."""

    w_smooth: float = 0.3
    w_data: float = 0.2
    tolerance: float = 1e-10
    max_iterations: int = 1000
    do_refinement: bool = True
    refinement_num: int = 2

    def __post_init__(self) -> None:
        for name in ("w_smooth", "w_data", "tolerance"):
            value = float(getattr(self, name))
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"smoother.{name} must be a finite number >= 0, got {value}")
        for name, most in (("max_iterations", MAX_SMOOTHER_ITERATIONS),
                           ("refinement_num", MAX_REFINEMENTS)):
            value = getattr(self, name)
            whole = isinstance(value, numbers.Real) and not isinstance(value, bool) and (
                math.isfinite(value) and int(value) == value
            )
            if not (whole and 0 <= value <= most):
                raise ValueError(
                    f"smoother.{name} must be an integer in [0, {most:,}], got {value!r}"
                )
        if not isinstance(self.do_refinement, bool):
            raise ValueError(
                f"smoother.do_refinement must be true or false, got {self.do_refinement!r}"
            )

    @property
    def refinements(self) -> int:
        """The most extra runs after a settled one (0 when refinement is off)."""
        return int(self.refinement_num) if self.do_refinement else 0


def check_smoothing(smoothing: str) -> str:
    """`smoothing` if it names a method; ValueError listing them otherwise."""
    if smoothing not in SMOOTHINGS:
        raise ValueError(f"smoothing must be one of {', '.join(SMOOTHINGS)}, got {smoothing!r}")
    return smoothing


@njit(cache=True, nogil=True, inline="always")
def _shortcut_ok(points, anchor, j, width, height, free, safe, obstacle, limit2, reach, raw,
                 table, stretch_costs):
    """Whether the straight segment from point `anchor` to point `j` may replace the path
    between them: clear, and no dearer than that stretch."""
    clear, cost = segment_walk(
        points[anchor, 0], points[anchor, 1], points[j, 0], points[j, 1], width, height, free,
        safe, obstacle, limit2, reach, raw, table,
    )
    return clear and cost <= stretch_costs[j] - stretch_costs[anchor] + _COST_SLACK


@njit(cache=True, nogil=True)
def shortcut_kernel(points, width, height, free, safe, obstacle, limit2, reach, raw, table,
                    stretch_costs):
    """The kept vertices (indices into `points`) of the shortcut path; see the module doc.

    `stretch_costs[i]` is the cost of the path from point 0 to point i. From each kept point
    the reach is found by galloping (2, 4, 8, ... points ahead while the shortcut is allowed)
    and then bisecting between the last allowed and the first refused point: O(log n)
    segment tests a kept point instead of one per point passed. Every kept segment was tested.
    """
    count = points.shape[0]
    kept = np.empty(count, dtype=np.int64)
    kept[0] = 0
    size = 1
    anchor = 0
    while anchor < count - 1:
        allowed = anchor + 1
        refused = count
        span = 2
        while True:
            probe = min(anchor + span, count - 1)
            if probe <= allowed:
                break
            if _shortcut_ok(points, anchor, probe, width, height, free, safe, obstacle,
                            limit2, reach, raw, table, stretch_costs):
                allowed = probe
                span *= 2
            else:
                refused = probe
                break
        while refused - allowed > 1:
            middle = (allowed + refused) // 2
            if _shortcut_ok(points, anchor, middle, width, height, free, safe, obstacle,
                            limit2, reach, raw, table, stretch_costs):
                allowed = middle
            else:
                refused = middle
        kept[size] = allowed
        size += 1
        anchor = allowed
    return kept[:size]


@njit(cache=True, nogil=True)
def gradient_kernel(points, smooth, width, height, free, safe, obstacle, limit2, reach,
                    w_smooth, w_data, tolerance, sweeps):
    """Up to `sweeps` Smac-style sweeps moving `smooth` (in place) towards a smooth path
    anchored to `points`; whether a sweep settled under `tolerance`. See the module doc."""
    count = points.shape[0]
    unit = np.ones(1)
    no_raw = np.zeros(1, dtype=np.uint8)  # length only: the gradient smoother ignores costs
    for _ in range(sweeps):
        change = 0.0
        for i in range(1, count - 1):
            x = smooth[i, 0]
            y = smooth[i, 1]
            nx = x + w_data * (points[i, 0] - x) + w_smooth * (
                smooth[i + 1, 0] + smooth[i - 1, 0] - 2.0 * x
            )
            ny = y + w_data * (points[i, 1] - y) + w_smooth * (
                smooth[i + 1, 1] + smooth[i - 1, 1] - 2.0 * y
            )
            before, _ = segment_walk(smooth[i - 1, 0], smooth[i - 1, 1], nx, ny, width, height,
                                     free, safe, obstacle, limit2, reach, no_raw, unit)
            if not before:
                continue
            after, _ = segment_walk(nx, ny, smooth[i + 1, 0], smooth[i + 1, 1], width, height,
                                    free, safe, obstacle, limit2, reach, no_raw, unit)
            if not after:
                continue
            change += abs(nx - x) + abs(ny - y)
            smooth[i, 0] = nx
            smooth[i, 1] = ny
        if change < tolerance:
            return True
    return False


def _gradient_run(
    points: np.ndarray, shape: tuple, params: SmootherParams, stop: Callable[[], bool]
) -> tuple[np.ndarray, bool]:
    """One smoother run from `points`: (the smoothed copy, whether it settled). It sweeps in
    chunks of about _GRADIENT_CHUNK_MOVES point moves and ends early, unsettled, when `stop()`
    says so after a chunk, so a long path's run heeds a deadline or a cancel within
    milliseconds."""
    smooth = points.copy()
    per_chunk = max(1, _GRADIENT_CHUNK_MOVES // len(points))
    left = int(params.max_iterations)
    while left > 0:
        sweeps = min(per_chunk, left)
        if gradient_kernel(points, smooth, *shape, params.w_smooth, params.w_data,
                           params.tolerance, sweeps):
            return smooth, True
        left -= sweeps
        if stop():
            break
    return smooth, False


def segment_lengths(points: np.ndarray) -> np.ndarray:
    """The lengths of the segments of a polyline `(n, 2)`: n - 1 values.

    sqrt(dx^2 + dy^2) first: `np.hypot` costs about five times as much (a millisecond on the
    benchmark maze's path of 39,000 cells). Where a square may have left the float range (a
    length outside 1e-150..1e150: a map of 1e300 m cells, say, or zero) the segment is measured
    again with hypot, which never overflows or underflows.
    """
    points = np.asarray(points, dtype=np.float64)
    dx = np.diff(points[:, 0])
    dy = np.diff(points[:, 1])
    with np.errstate(over="ignore", under="ignore"):
        lengths = np.sqrt(dx * dx + dy * dy)
    doubtful = ~((lengths >= SQUARE_SAFE[0]) & (lengths <= SQUARE_SAFE[1]))
    if doubtful.any():
        lengths[doubtful] = np.hypot(dx[doubtful], dy[doubtful])
    return lengths


def polyline_length(points: np.ndarray) -> float:
    """The length of a polyline `(n, 2)`, in its own units (the segments' lengths as
    `segment_lengths` measures them, summed in order)."""
    return float(polyline_length_kernel(
        np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 2)))


def subdivide(points: np.ndarray, spacing: float = 1.0) -> np.ndarray:
    """`points` with every segment longer than `spacing` cut into equal pieces of at most that.

    The polyline is unchanged (the new points lie on it) and every original point is kept.
    """
    if len(points) < 2:
        return points.copy()
    lengths = segment_lengths(points)
    pieces = np.maximum(1, np.ceil(lengths / spacing - 1e-9).astype(np.int64))
    parts = [points[:1]]
    for start, end, count in zip(points[:-1], points[1:], pieces, strict=True):
        share = np.arange(1, count + 1, dtype=np.float64)[:, None] / count
        parts.append(start + share * (end - start))
    result = np.vstack(parts)
    result[-1] = points[-1]
    return result


def resample(points: np.ndarray, chord_clear) -> np.ndarray:
    """`points` resampled every L / ceil(L) along the polyline (L its length in cells).

    `chord_clear(a, b)` says whether a straight segment is clear; where a chord between two
    samples is not, the original points between them are kept too, so the result is clear
    wherever the polyline is.
    """
    if len(points) < 2:
        return points.copy()
    lengths = segment_lengths(points)
    along = np.concatenate(([0.0], np.cumsum(lengths)))
    total = along[-1]
    if total <= 0.0:
        return points[[0, -1]].copy()
    stations = np.linspace(0.0, total, math.ceil(total - 1e-9) + 1)
    samples = np.column_stack(
        (np.interp(stations, along, points[:, 0]), np.interp(stations, along, points[:, 1]))
    )
    samples[0], samples[-1] = points[0], points[-1]
    result = [samples[0]]
    for i in range(1, len(samples)):
        if not chord_clear(result[-1], samples[i]):
            # Strictly inside: a point on a station up to rounding would repeat its sample.
            inside = (along > stations[i - 1] + STATION_SLACK) & (
                along < stations[i] - STATION_SLACK)
            result.extend(points[inside])
        result.append(samples[i])
    return np.array(result)


def smooth_cells(
    grid: PlanningGrid,
    indices: np.ndarray,
    smoothing: str,
    params: SmootherParams,
    cost_travel_multiplier: float,
    deadline: float | None = None,
    cancel: threading.Event | None = None,
) -> np.ndarray:
    """The points (cell coordinates, `(n, 2)`) of the path through flat cells `indices`.

    `none` gives the cell centres; `shortcut` and `gradient` smooth them (module doc). Past
    `deadline` (a `time.monotonic()` instant), or once `cancel` is set, the gradient smoother
    keeps what it has smoothed so far (every move it made is clear) and runs no refinement, as
    Smac bounds its smoothing by the planning time left; the caller tells a cancel apart.
    """
    check_smoothing(smoothing)
    points = index_points(indices, grid.width)
    if smoothing == "none":
        return points
    if len(points) < 3:
        return subdivide(points)
    first_free = int(np.argmax(grid.free_mask[indices]))
    head, body = points[:first_free], points[first_free:]
    masks = grid.sweep_masks
    shape = (grid.width, grid.height, masks.free, masks.safe, masks.obstacle, masks.limit2,
             masks.reach)
    if smoothing == "shortcut":
        straight, _ = grid.step_costs(cost_travel_multiplier)
        raw = grid.raw_costs if grid.raw_costs is not None else _NO_RAW
        segment_costs, _ = polyline_costs(body, *shape, raw, straight)
        stretch = np.concatenate(([0.0], np.cumsum(segment_costs)))
        body = subdivide(body[shortcut_kernel(body, *shape, raw, straight, stretch)])
    else:
        def stop() -> bool:
            return (deadline is not None and time.monotonic() > deadline) or (
                cancel is not None and cancel.is_set()
            )

        smoothed, settled = _gradient_run(body, shape, params, stop)
        for _ in range(params.refinements):
            if not settled or stop():
                break
            refined, settled = _gradient_run(smoothed, shape, params, stop)
            if np.array_equal(refined, smoothed):
                break  # a fixed point: every further run would return it again
            smoothed = refined
        if polyline_length(smoothed) <= polyline_length(body):
            unit, no_raw = np.ones(1), _NO_RAW

            def chord_clear(a: np.ndarray, b: np.ndarray) -> bool:
                return segment_walk(a[0], a[1], b[0], b[1], *shape, no_raw, unit)[0]

            body = resample(smoothed, chord_clear)
    return np.vstack((head, body))
