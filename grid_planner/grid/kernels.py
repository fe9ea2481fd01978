"""Compiled grid searches (numba): A*, Dijkstra, BFS and DFS over a padded clearance array.

The move rule lives in one array, `clearance` (see `planning_grid`): a step from `c` to a
neighbour `v` is allowed when `clearance[v] == FREE_CLEARANCE or clearance[v] > clearance[c]`.
Neighbours are visited in the fixed order east (+x), north (+y), west (-x), south (-y).

The kernels run on `pad_clearance`'s copy of it: the map framed by a one-cell LETHAL border,
`row = width + 2` entries a row. Every map cell then has its four neighbours at the offsets
`(+1, +row, -1, -row)`, and the move rule itself refuses the border, so an expansion needs no
bounds check and no `cell % width` or `cell // width`. `run_search` converts at its boundary
(start and targets in, path out) and `SearchBuffers.expanded_indices` answers in map indices.

Every kernel works on `SearchBuffers` that belong to the grid: `stamp` and `g` hold one entry
per padded cell and are allocated once per map. A query never clears them; it takes a fresh
*generation* `base` (a multiple of 8) instead. `stamp[c] < base` means "not seen in this
query"; otherwise `stamp[c] - base` is the direction (0-3, an index into the offsets) of the
step that reached `c`, plus `_CLOSED` once `c` is expanded. So a query costs O(cells it
touches), not O(map area), even on a 4096 x 4096 map, and one store per reached cell records
both that it was seen and its parent (`c - offsets[direction]`): no parent array.

Kernels are resumable: each call expands at most `max_expansions` nodes and returns PAUSED, or
GROW when its frontier array is full; the driver (`run_search`) checks the deadline and the
cancel event between calls, grows the frontier and calls again. Budgets are therefore enforced
inside compiled code without any callback into Python, with an overshoot of one chunk
(CHUNK_EXPANSIONS expansions, about a millisecond).

Counting follows `grid_planner.search`: `nodes_expanded` are cells whose neighbours were
generated; `nodes_generated` every allowed neighbour produced, duplicates included, plus the
start; `max_frontier` the peak heap (stale entries included), queue, or DFS stack (the
reference DFS reports its path depth instead, as it keeps lazy iterators, not a stack).

When numba cannot be imported `NUMBA_AVAILABLE` is False and the planner falls back to the
reference algorithms of `grid_planner.search` (with a logged warning).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE, njit
from grid_planner.search.result import Budget, LimitKind

_log = logging.getLogger(__name__)

FREE_CLEARANCE = np.int32(np.iinfo(np.int32).max)
LETHAL_CLEARANCE = np.int32(-1)

STATUS_SOLVED = 0
STATUS_EXHAUSTED = 1
STATUS_PAUSED = 2
STATUS_GROW = 3

# Expansions per kernel call between two budget checks.
CHUNK_EXPANSIONS = 1 << 15

# Layout of the int64 `state` array that a resumable kernel reads and updates.
_FRONTIER_END = 0  # heap size, stack size, or queue tail
_EXPANDED = 1
_GENERATED = 2
_MAX_FRONTIER = 3
_FOUND = 4
_QUEUE_HEAD = 5
_DEPTH_PRUNED = 6

_LOW32 = np.int64(0xFFFFFFFF)

# Stamps: a generation takes 8 values, base + direction (0-3) + _CLOSED once expanded.
_CLOSED = 4
_GENERATION_STEP = 8


# --- helpers ----------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _is_target(cell, targets):
    for k in range(targets.shape[0]):  # noqa: SIM110 (numba compiles loops, not any())
        if targets[k] == cell:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _manhattan(x, y, target_x, target_y):
    best = np.int64(1) << 62
    for k in range(target_x.shape[0]):
        d = abs(x - target_x[k]) + abs(y - target_y[k])
        if d < best:
            best = d
    return best


# The A* heap is one int64 array of (key, cell) pairs, heap[2 i] and heap[2 i + 1]: a move
# reads and writes one place instead of two arrays (measured faster).


@njit(cache=True, nogil=True, inline="always")
def _heap_push(heap, size, key, cell):
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if heap[2 * up] <= key:
            break
        heap[2 * i] = heap[2 * up]
        heap[2 * i + 1] = heap[2 * up + 1]
        i = up
    heap[2 * i] = key
    heap[2 * i + 1] = cell


@njit(cache=True, nogil=True, inline="always")
def _heap_pop_fix(heap, size):
    """Restore the heap after its root was taken; `size` is the new size."""
    if size == 0:
        return
    key = heap[2 * size]
    cell = heap[2 * size + 1]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        # The right child when strictly smaller, as an add (not a jump: the outcome is a coin
        # flip, a mispredicted branch per level costs more than the heap move itself).
        if child + 1 < size:
            child += heap[2 * child + 2] < heap[2 * child]
        if heap[2 * child] >= key:
            break
        heap[2 * i] = heap[2 * child]
        heap[2 * i + 1] = heap[2 * child + 1]
        i = child
    heap[2 * i] = key
    heap[2 * i + 1] = cell


@njit(cache=True, nogil=True, inline="always")
def _entry_floor(own):
    """The clearance a neighbour must exceed to be entered from a cell of clearance `own`.

    One comparison per neighbour instead of two: from a free cell only FREE_CLEARANCE exceeds
    `FREE_CLEARANCE - 1`; from any other cell FREE_CLEARANCE and every higher clearance exceed
    `own`. The border (LETHAL_CLEARANCE) never exceeds a start's clearance, not even a lethal
    start's.
    """
    return own - 1 if own == FREE_CLEARANCE else own


# --- kernels ----------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def astar_kernel(
    clearance,
    row,
    targets,
    target_x,
    target_y,
    use_heuristic,
    stamp,
    g,
    base,
    heap,
    state,
    max_expansions,
):
    """A* (Dijkstra when `use_heuristic` is False) on unit 4-connected steps.

    The heap orders by f = g + Manhattan distance to the nearest target, ties toward the
    larger g (the key's low 32 bits hold `0xFFFFFFFF - g`). Stale heap entries are skipped on
    pop (lazy deletion). The goal test is made when a node is popped. The first entry popped
    for a cell has its least g (same h, smaller f), so g comes from the key, and the cell's
    coordinates (for h) from one division per expansion.
    """
    closed = base + _CLOSED
    size = state[_FRONTIER_END]
    expanded = state[_EXPANDED]
    generated = state[_GENERATED]
    max_frontier = state[_MAX_FRONTIER]
    capacity = heap.shape[0] // 2
    first = targets[0]
    several = targets.shape[0] > 1
    first_x = target_x[0]
    first_y = target_y[0]
    offsets = (1, row, -1, -row)
    step_x = (1, 0, -1, 0)
    step_y = (0, 1, 0, -1)
    status = STATUS_EXHAUSTED
    done = 0
    while True:
        if size == 0:
            status = STATUS_EXHAUSTED
            break
        if size + 4 > capacity:
            status = STATUS_GROW
            break
        key = heap[0]
        cell = heap[1]
        size -= 1
        _heap_pop_fix(heap, size)
        if stamp[cell] >= closed:
            continue
        if cell == first or (several and _is_target(cell, targets)):
            state[_FOUND] = cell
            status = STATUS_SOLVED
            break
        if done >= max_expansions:
            # Out of budget for this call: put the entry back, so a resumed call pops it again.
            _heap_push(heap, size, key, cell)
            size += 1
            status = STATUS_PAUSED
            break
        stamp[cell] += _CLOSED
        expanded += 1
        done += 1
        floor = _entry_floor(clearance[cell])
        step_g = (_LOW32 - (key & _LOW32)) + 1
        cx = 0
        cy = 0
        if use_heuristic:
            cy = cell // row
            cx = cell - cy * row
        for k in range(4):
            nxt = cell + offsets[k]
            if clearance[nxt] <= floor:
                continue
            generated += 1
            seen = stamp[nxt]
            if seen >= closed:
                continue
            if seen >= base and g[nxt] <= step_g:
                continue
            stamp[nxt] = base + k
            g[nxt] = step_g
            f = step_g
            if use_heuristic:
                nx = cx + step_x[k]
                ny = cy + step_y[k]
                if several:
                    f += _manhattan(nx, ny, target_x, target_y)
                else:
                    f += abs(nx - first_x) + abs(ny - first_y)
            _heap_push(heap, size, (f << 32) | (_LOW32 - step_g), nxt)
            size += 1
        if size > max_frontier:
            max_frontier = size
    state[_FRONTIER_END] = size
    state[_EXPANDED] = expanded
    state[_GENERATED] = generated
    state[_MAX_FRONTIER] = max_frontier
    return status


@njit(cache=True, nogil=True)
def bfs_kernel(clearance, row, targets, stamp, base, queue, state, max_expansions):
    """Breadth-first search with an array FIFO; the goal test is made when a node is generated.

    Unit steps need no g, so a reached cell costs one stamp store and one queue store.
    """
    head = state[_QUEUE_HEAD]
    tail = state[_FRONTIER_END]
    generated = state[_GENERATED]
    max_frontier = state[_MAX_FRONTIER]
    capacity = queue.shape[0]
    first = targets[0]
    several = targets.shape[0] > 1
    offsets = (1, row, -1, -row)
    stop = head + max_expansions
    status = STATUS_EXHAUSTED
    while status == STATUS_EXHAUSTED:
        if head == tail:
            break
        if head >= stop:
            status = STATUS_PAUSED
            break
        if tail + 4 > capacity:
            status = STATUS_GROW
            break
        cell = np.int64(queue[head])
        head += 1
        stamp[cell] += _CLOSED
        floor = _entry_floor(clearance[cell])
        for k in range(4):
            nxt = cell + offsets[k]
            if clearance[nxt] <= floor:
                continue
            generated += 1
            if stamp[nxt] >= base:
                continue
            stamp[nxt] = base + k
            queue[tail] = nxt
            tail += 1
            if nxt == first or (several and _is_target(nxt, targets)):
                state[_FOUND] = nxt
                status = STATUS_SOLVED
                break
        if tail - head > max_frontier:
            max_frontier = tail - head
    state[_EXPANDED] += head - state[_QUEUE_HEAD]
    state[_QUEUE_HEAD] = head
    state[_FRONTIER_END] = tail
    state[_GENERATED] = generated
    state[_MAX_FRONTIER] = max_frontier
    return status


@njit(cache=True, nogil=True)
def dfs_kernel(
    clearance,
    row,
    targets,
    depth_limit,
    stamp,
    g,
    base,
    stack_cell,
    stack_step,
    state,
    max_expansions,
):
    """Depth-first graph search with an explicit stack of (cell, direction it was reached by).

    A cell is closed when it is popped and the first neighbour in the fixed order is explored
    first, which visits cells in the same order as recursive DFS. With `depth_limit >= 0` a
    cell at that depth is goal-tested but not expanded, and a closed cell is entered again
    when reached at a shallower depth (it then has more depth left), so no solution within the
    limit is missed. A cell pruned by the limit sets the DEPTH_PRUNED flag. Only a limited
    search keeps depths in `g`. The start's direction is -1.
    """
    size = state[_FRONTIER_END]
    expanded = state[_EXPANDED]
    generated = state[_GENERATED]
    max_frontier = state[_MAX_FRONTIER]
    pruned = state[_DEPTH_PRUNED]
    capacity = stack_cell.shape[0]
    first = targets[0]
    several = targets.shape[0] > 1
    limited = depth_limit >= 0
    offsets = (1, row, -1, -row)
    status = STATUS_EXHAUSTED
    done = 0
    depth = 0
    while True:
        if size == 0:
            status = STATUS_EXHAUSTED
            break
        if done >= max_expansions:
            status = STATUS_PAUSED
            break
        if size + 4 > capacity:
            status = STATUS_GROW
            break
        size -= 1
        cell = np.int64(stack_cell[size])
        step = stack_step[size]
        if limited:
            depth = 0 if step < 0 else g[cell - offsets[step]] + 1
            # Seen before in this query (>= base): skip, unless now reached shallower.
            if stamp[cell] >= base and depth >= g[cell]:
                continue
            g[cell] = depth
        elif stamp[cell] >= base:
            continue
        reached = base + max(step, 0)
        if cell == first or (several and _is_target(cell, targets)):
            stamp[cell] = reached
            state[_FOUND] = cell
            status = STATUS_SOLVED
            break
        if limited and depth >= depth_limit:
            stamp[cell] = reached
            pruned = 1
            continue
        stamp[cell] = reached + _CLOSED
        expanded += 1
        done += 1
        floor = _entry_floor(clearance[cell])
        # Pushed in reverse order so that east is popped (explored) first.
        for k in range(3, -1, -1):
            nxt = cell + offsets[k]
            if clearance[nxt] <= floor:
                continue
            generated += 1
            if stamp[nxt] >= base and (not limited or depth + 1 >= g[nxt]):
                continue
            stack_cell[size] = nxt
            stack_step[size] = k
            size += 1
        if size > max_frontier:
            max_frontier = size
    state[_FRONTIER_END] = size
    state[_EXPANDED] = expanded
    state[_GENERATED] = generated
    state[_MAX_FRONTIER] = max_frontier
    state[_DEPTH_PRUNED] = pruned
    return status


@njit(cache=True, nogil=True)
def trace_path(stamp, width, start, goal):
    """The map indices of the path from padded cell `start` to padded cell `goal`.

    Follows the directions in the stamps back from the goal (a parent is always reached at a
    smaller depth, so the walk ends at the start).
    """
    row = width + 2
    offsets = (1, row, -1, -row)
    count = 1
    cell = goal
    while cell != start:
        cell -= offsets[stamp[cell] & 3]
        count += 1
    path = np.empty(count, dtype=np.int64)
    cell = goal
    for i in range(count - 1, 0, -1):
        path[i] = cell - 2 * (cell // row) - width - 1
        cell -= offsets[stamp[cell] & 3]
    path[0] = start - 2 * (start // row) - width - 1
    return path


@njit(cache=True, nogil=True)
def label_components_kernel(free, width, height):
    """4-connected component labels of `free` (flat bool): -1 off the mask, else 0, 1, ...

    Components are numbered in the order of their lowest cell index.
    """
    count = free.shape[0]
    labels = np.full(count, -1, dtype=np.int32)
    queue = np.empty(count, dtype=np.int64)
    label = 0
    for seed in range(count):
        if not free[seed] or labels[seed] >= 0:
            continue
        labels[seed] = label
        head = 0
        tail = 1
        queue[0] = seed
        while head < tail:
            cell = queue[head]
            head += 1
            cx = cell % width
            cy = cell // width
            if cx + 1 < width and free[cell + 1] and labels[cell + 1] < 0:
                labels[cell + 1] = label
                queue[tail] = cell + 1
                tail += 1
            if cy + 1 < height and free[cell + width] and labels[cell + width] < 0:
                labels[cell + width] = label
                queue[tail] = cell + width
                tail += 1
            if cx > 0 and free[cell - 1] and labels[cell - 1] < 0:
                labels[cell - 1] = label
                queue[tail] = cell - 1
                tail += 1
            if cy > 0 and free[cell - width] and labels[cell - width] < 0:
                labels[cell - width] = label
                queue[tail] = cell - width
                tail += 1
        label += 1
    return labels


# --- layout, buffers and the driver -----------------------------------------------------------


def pad_clearance(clearance: np.ndarray, width: int, height: int) -> np.ndarray:
    """The flat map `clearance` framed by a one-cell LETHAL border: (height+2) * (width+2).

    Read-only, like the grid's own arrays (numba compiles one version per writability).
    """
    padded = np.full((height + 2, width + 2), LETHAL_CLEARANCE, dtype=np.int32)
    padded[1:-1, 1:-1] = np.asarray(clearance, dtype=np.int32).reshape(height, width)
    padded = padded.reshape(-1)
    padded.setflags(write=False)
    return padded


def to_padded(index, width: int):
    """The padded index of map index `index` (an int or an integer array)."""
    return index + 2 * (index // width) + width + 3


def from_padded(padded, width: int):
    """The map index of padded index `padded` (an int or an integer array)."""
    return padded - 2 * (padded // (width + 2)) - width - 1


# The last generation: a multiple of the step whose stamps (up to base + 7) still fit int32.
_MAX_BASE = np.iinfo(np.int32).max + 1 - _GENERATION_STEP


class SearchBuffers:
    """Per-grid scratch arrays for the kernels, reused by every query on that grid.

    `stamp` and `g` have one entry per cell of the padded clearance (`cell_count` of them,
    allocated once; a query on a larger clearance reallocates them). The frontier arrays (the
    A* heap's (key, cell) pairs, the BFS queue or DFS stack cells, the DFS directions) start
    small and grow on demand, so a short query on a huge map stays cheap. `lock` serialises
    queries (kernels release the GIL, so two threads could otherwise share the arrays).
    `width` is the map width of the latest query, for `expanded_indices`.
    """

    def __init__(self, cell_count: int, frontier_capacity: int = 1024) -> None:
        self._allocate(cell_count)
        self.frontier_heap = np.empty(2 * frontier_capacity, dtype=np.int64)
        self.frontier_cell = np.empty(frontier_capacity, dtype=np.int32)
        self.frontier_step = np.empty(frontier_capacity, dtype=np.int32)
        self.state = np.zeros(8, dtype=np.int64)
        self.base = 0
        self.width = 0
        self.lock = threading.Lock()

    def _allocate(self, cell_count: int) -> None:
        self.cell_count = cell_count
        # Only `stamp` needs initialising (zeros: untouched); g is read only for cells whose
        # stamp says it was written in the current query (and BFS never touches it).
        self.stamp = np.zeros(cell_count, dtype=np.int32)
        self.g = np.empty(cell_count, dtype=np.int32)

    def reserve(self, cell_count: int) -> None:
        """Make sure the per-cell arrays hold at least `cell_count` entries."""
        if cell_count > self.cell_count:
            self._allocate(cell_count)

    def next_generation(self) -> int:
        """A fresh generation `base` (a multiple of 8); every cell then reads as unseen."""
        self.base += _GENERATION_STEP
        if self.base > _MAX_BASE:
            self.stamp.fill(0)
            self.base = _GENERATION_STEP
        return self.base

    def grow_frontier(self, live_from: int, live_to: int, compact: bool) -> tuple[int, int]:
        """Make room for more frontier entries; returns the new `(live_from, live_to)`.

        With `compact` (the BFS queue) the live slice moves to the front; otherwise the arrays
        are only enlarged.
        """
        live = live_to - live_from
        capacity = self.frontier_cell.shape[0]
        new_capacity = max(capacity, 2 * (live + 8)) if compact else 2 * capacity
        heap = np.empty(2 * new_capacity, dtype=np.int64)
        cell = np.empty(new_capacity, dtype=np.int32)
        step = np.empty(new_capacity, dtype=np.int32)
        first, end = (live_from, live_to) if compact else (0, live_to)
        heap[: 2 * (end - first)] = self.frontier_heap[2 * first : 2 * end]
        cell[: end - first] = self.frontier_cell[first:end]
        step[: end - first] = self.frontier_step[first:end]
        self.frontier_heap, self.frontier_cell, self.frontier_step = heap, cell, step
        return (0, live) if compact else (live_from, live_to)

    def expanded_indices(self) -> np.ndarray:
        """Map indices of the cells the latest query expanded (O(map area); for display)."""
        return from_padded(np.flatnonzero(self.stamp >= self.base + _CLOSED), self.width)


@dataclass
class KernelOutcome:
    """What one kernel search ended with; `path` is set when it found a target."""

    status: str  # "solved", "no_solution" or "limit"
    path: np.ndarray | None
    nodes_expanded: int
    nodes_generated: int
    max_frontier: int
    elapsed: float
    limit: LimitKind | None = None


KERNEL_ALGORITHMS = ("astar", "dijkstra", "bfs", "dfs")


def _budget_limit(budget: Budget | None, expanded: int) -> LimitKind | None:
    if budget is None:
        return None
    if budget.max_nodes is not None and expanded >= budget.max_nodes:
        return LimitKind.MAX_NODES
    if budget.cancel is not None and budget.cancel.is_set():
        return LimitKind.CANCELLED
    if budget.deadline is not None and time.monotonic() >= budget.deadline:
        return LimitKind.DEADLINE
    return None


def run_search(
    algorithm: str,
    clearance: np.ndarray,
    width: int,
    height: int,
    buffers: SearchBuffers,
    start: int,
    targets: np.ndarray,
    budget: Budget | None = None,
    depth_limit: int | None = None,
    chunk: int = CHUNK_EXPANSIONS,
) -> KernelOutcome:
    """Run one compiled search from map cell `start` to the nearest of map cells `targets`.

    `clearance` is either the map's flat clearance or, so that a query touches only the cells
    it searches, its `pad_clearance` copy (the planner passes PlanningGrid's); a map-sized one
    is padded here, at O(map area) per call. The caller holds `buffers.lock` and checks that
    `start` is not lethal. The budget (node count, cancel event, deadline) is checked before
    every chunk of `chunk` expansions. The outcome's path holds map indices.
    """
    if algorithm not in KERNEL_ALGORITHMS:
        raise ValueError(f"no compiled kernel for {algorithm!r}")
    began = time.perf_counter()
    padded_count = (width + 2) * (height + 2)
    if clearance.shape[0] != padded_count:
        clearance = pad_clearance(clearance, width, height)
    row = width + 2
    buffers.reserve(padded_count)
    buffers.width = width
    base = buffers.next_generation()
    targets = to_padded(np.asarray(targets, dtype=np.int64), width)
    start = to_padded(int(start), width)
    if np.any(targets == start):
        path = np.array([from_padded(start, width)], dtype=np.int64)
        return KernelOutcome("solved", path, 0, 1, 1, 0.0)
    target_y = targets // row
    target_x = targets - target_y * row
    state = buffers.state
    state[:] = 0
    state[_FOUND] = -1
    stamp, g = buffers.stamp, buffers.g
    if algorithm != "dfs":  # DFS marks a cell when it pops it, the others when they push it
        stamp[start] = base
    state[_FRONTIER_END] = 1
    state[_GENERATED] = 1
    state[_MAX_FRONTIER] = 1
    if algorithm in ("astar", "dijkstra"):
        heuristic = 0
        if algorithm == "astar":
            start_y, start_x = divmod(start, row)
            heuristic = int(np.min(np.abs(target_x - start_x) + np.abs(target_y - start_y)))
        buffers.frontier_heap[0] = (heuristic << 32) | 0xFFFFFFFF
        buffers.frontier_heap[1] = start
    elif algorithm == "bfs":
        buffers.frontier_cell[0] = start
    else:
        buffers.frontier_cell[0] = start
        buffers.frontier_step[0] = -1
    dfs_depth = -1 if depth_limit is None else int(depth_limit)

    limit: LimitKind | None = None
    while True:
        limit = _budget_limit(budget, int(state[_EXPANDED]))
        if limit is not None:
            break
        max_expansions = chunk
        if budget is not None and budget.max_nodes is not None:
            max_expansions = min(chunk, budget.max_nodes - int(state[_EXPANDED]))
        if algorithm in ("astar", "dijkstra"):
            status = astar_kernel(
                clearance,
                row,
                targets,
                target_x,
                target_y,
                algorithm == "astar",
                stamp,
                g,
                base,
                buffers.frontier_heap,
                state,
                max_expansions,
            )
        elif algorithm == "bfs":
            status = bfs_kernel(
                clearance,
                row,
                targets,
                stamp,
                base,
                buffers.frontier_cell,
                state,
                max_expansions,
            )
        else:
            status = dfs_kernel(
                clearance,
                row,
                targets,
                dfs_depth,
                stamp,
                g,
                base,
                buffers.frontier_cell,
                buffers.frontier_step,
                state,
                max_expansions,
            )
        if status == STATUS_GROW:
            if algorithm == "bfs":
                head, tail = buffers.grow_frontier(
                    int(state[_QUEUE_HEAD]), int(state[_FRONTIER_END]), compact=True
                )
                state[_QUEUE_HEAD], state[_FRONTIER_END] = head, tail
            else:
                buffers.grow_frontier(0, int(state[_FRONTIER_END]), compact=False)
            continue
        if status != STATUS_PAUSED:
            break

    path = None
    if limit is not None:
        outcome = "limit"
    elif status == STATUS_SOLVED:
        outcome = "solved"
        path = trace_path(stamp, width, start, np.int64(state[_FOUND]))
    elif algorithm == "dfs" and state[_DEPTH_PRUNED]:
        outcome, limit = "limit", LimitKind.MAX_DEPTH
    else:
        outcome = "no_solution"
    return KernelOutcome(
        status=outcome,
        path=path,
        nodes_expanded=int(state[_EXPANDED]),
        nodes_generated=int(state[_GENERATED]),
        max_frontier=int(state[_MAX_FRONTIER]),
        elapsed=time.perf_counter() - began,
        limit=limit,
    )


def label_components(free: np.ndarray) -> np.ndarray:
    """Labels of the 4-connected components of the 2-D bool mask `free` (flat int32, -1 off).

    Components are numbered in the order of their lowest flat index; compiled when numba is
    available, else a vectorised NumPy union-find that gives the same labels.
    """
    height, width = free.shape
    flat = np.ascontiguousarray(free, dtype=np.bool_).reshape(-1)
    if NUMBA_AVAILABLE:
        return label_components_kernel(flat, width, height)
    return label_components_numpy(free)


def label_components_numpy(free: np.ndarray) -> np.ndarray:
    """The NumPy-only version of `label_components` (hooking plus pointer jumping)."""
    height, width = free.shape
    count = height * width
    free = np.asarray(free, dtype=np.bool_)
    index = np.arange(count, dtype=np.int64).reshape(height, width)
    horizontal = free[:, :-1] & free[:, 1:]
    vertical = free[:-1, :] & free[1:, :]
    u = np.concatenate((index[:, :-1][horizontal], index[:-1, :][vertical]))
    v = np.concatenate((index[:, 1:][horizontal], index[1:, :][vertical]))
    root = np.arange(count, dtype=np.int64)
    while True:
        ru, rv = root[u], root[v]
        differ = ru != rv
        if not differ.any():
            break
        np.minimum.at(root, np.maximum(ru, rv)[differ], np.minimum(ru, rv)[differ])
        while True:
            jumped = root[root]
            if np.array_equal(jumped, root):
                break
            root = jumped
    labels = np.full(count, -1, dtype=np.int32)
    members = np.flatnonzero(free.reshape(-1))
    if members.size:
        _, inverse = np.unique(root[members], return_inverse=True)
        labels[members] = inverse.reshape(-1).astype(np.int32)
    return labels


_fallback_warned = False


def warn_fallback_once() -> None:
    """Log once that the compiled kernels are unavailable and the reference path is used."""
    global _fallback_warned
    if not _fallback_warned:
        _fallback_warned = True
        _log.warning(
            "numba is not importable: grid planning uses the pure-Python reference algorithms, "
            "which are much slower on large maps (pip install numba)"
        )
