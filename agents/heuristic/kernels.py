"""Compiled loops of the heuristic's maze model (:mod:`.maze`), when numba is installed.

The heuristic values every candidate placement by breadth-first distances and what-if front
costs over the padded board (``maze.py``); in numpy these are dozens of small-array calls per
candidate, and they were most of a heuristic decision's time.  Here the same computations are
plain loops compiled by `numba <https://numba.pydata.org>`_ (``pip install numba``, or the
project's ``fast`` extra: wheels for Linux, macOS and Windows, no compiler needed).

Without numba, or with the environment variable ``SABOTEUR_NUMBA=0``, :data:`ENABLED` is
false and ``maze.py`` runs its numpy code instead.  The two give the same arrays, value for
value (``tests/test_heuristic_kernels.py`` compares them on the mazes of many seeded games, and
the heuristic's actions over whole games), so the agent plays the same moves either way.

Array arguments: ``occ`` int8 cell codes (``maze.EMPTY`` ...), ``opn``/``conn`` int64 4-bit
side masks, ``thr`` bool, ``offs`` int64 ``(4,)`` flat neighbour offsets N, E, S, W,
``facing`` int64 ``(4,)`` the side bit each neighbour faces back with, ``goal_idx`` int64
``(3,)``; every per-cell array is flat over the padded window (``Maze.idx``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from saboteur_env.compiled import Kernels, enabled

#: whether the compiled kernels are in use: numba is installed and the environment variable
#: ``SABOTEUR_NUMBA`` is not ``0`` (numba itself is imported, and the kernels compiled or read
#: from numba's cache, at the first call of one, so importing the agents stays cheap)
ENABLED = enabled()

# the cell codes of maze.py (EMPTY, FACE_UP, HIDDEN_GOAL), repeated as literals for the
# compiled code; tests/test_heuristic_kernels.py checks they agree
_EMPTY, _FACE_UP, _HIDDEN_GOAL = 0, 1, 2

#: this module's compiled loops (saboteur_env.compiled)
_KERNELS = Kernels(globals(), __name__)
_kernel = _KERNELS.register


# the compiled kernels, bound by Kernels.compile_all (declared for readers and type checkers; until
# then a name is looked up through __getattr__ below)
distances: Any
connect: Any
segment_connect: Any
facing_conn: Any
neighbour_sides: Any
front_value: Any
place: Any
front_values: Any
value: Any
read_board: Any
front_ranks: Any
read_segments: Any


def __getattr__(name: str) -> Any:
    return _KERNELS.lookup(name)


@_kernel
def _py_distances(
    empty: np.ndarray, goal_idx: np.ndarray, offs: np.ndarray, inf: int
) -> np.ndarray:
    """int64 ``(3, size)``: cards from each cell to each goal through empty cells (1 next to
    the goal), ``inf`` where no route exists (``Maze.distances``); ``empty``: bool
    ``(size,)``."""
    size = empty.shape[0]
    out = np.full((goal_idx.shape[0], size), inf, dtype=np.int64)
    queue = np.empty(size, dtype=np.int64)
    for g in range(goal_idx.shape[0]):
        gi = goal_idx[g]
        tail = 0
        for b in range(4):
            j = gi + offs[b]
            if empty[j] and out[g, j] > 1:
                out[g, j] = 1
                queue[tail] = j
                tail += 1
        head = 0
        while head < tail:
            i = queue[head]
            head += 1
            nd = out[g, i] + 1
            for b in range(4):
                j = i + offs[b]
                if empty[j] and out[g, j] > nd:
                    out[g, j] = nd
                    queue[tail] = j
                    tail += 1
    return out


@_kernel
def _py_connect(
    opn: np.ndarray,
    thr: np.ndarray,
    occ: np.ndarray,
    offs: np.ndarray,
    facing: np.ndarray,
    start: int,
) -> np.ndarray:
    """int64 ``(size,)``: the openings connected to the start card (``Maze.recompute``, base
    cards, RULES 4.1): through cards pass the tunnel on, both sides of an edge open."""
    size = opn.shape[0]
    conn = np.zeros(size, dtype=np.int64)
    seen = np.zeros(size, dtype=np.bool_)
    stack = np.empty(size, dtype=np.int64)
    seen[start] = True
    stack[0] = start
    top = 1
    while top:
        top -= 1
        i = stack[top]
        o = opn[i]
        conn[i] = o
        for b in range(4):
            if o >> b & 1:
                j = i + offs[b]
                if occ[j] == _FACE_UP and not seen[j] and opn[j] & facing[b] and thr[j]:
                    seen[j] = True
                    stack[top] = j
                    top += 1
    return conn


@_kernel
def _py_segment_connect(
    opn: np.ndarray,
    occ: np.ndarray,
    offs: np.ndarray,
    facing: np.ndarray,
    facing_bit: np.ndarray,
    join: np.ndarray,
    joined: np.ndarray,
    lad: np.ndarray,
    door: np.ndarray,
    block: int,
    start: int,
) -> np.ndarray:
    """int64 ``(size,)``: the openings connected to the roots, one tunnel segment at a time
    (``SegmentMaze.recompute``, Saboteur 2 cards, RULES 4.1, 6.3, 6.4): the roots are the
    start card and every face-up ladder; ``join`` int64 the side pairs each card joins,
    ``joined`` int64 ``(64, 4)`` (``maze.JOINED``), ``lad`` bool, ``door`` int8 colour codes;
    a card with a door of colour ``block`` (0: none) is never entered."""
    size = opn.shape[0]
    conn = np.zeros(size, dtype=np.int64)
    # each push adds a side to its cell's connected openings: at most 4 per cell, plus roots
    stack_i = np.empty(5 * size + 1, dtype=np.int64)
    stack_s = np.empty(5 * size + 1, dtype=np.int64)
    top = 0
    for i in range(-1, size):
        r = start if i < 0 else i
        if i >= 0 and not (lad[i] and occ[i] == _FACE_UP and not (block and door[i] == block)):
            continue
        conn[r] = opn[r]
        stack_i[top] = r
        stack_s[top] = opn[r]
        top += 1
    while top:
        top -= 1
        i = stack_i[top]
        sides = stack_s[top]
        for b in range(4):
            if not sides >> b & 1:
                continue
            j = i + offs[b]
            if occ[j] != _FACE_UP or not opn[j] & facing[b]:
                continue
            if block and door[j] == block:
                continue
            fb = facing_bit[b]
            seg = joined[join[j], fb] & opn[j]
            if seg == 1 << fb:
                continue  # a dead-end stub leads nowhere (RULES 4.1)
            add = seg & ~conn[j]
            if add:
                conn[j] |= add
                stack_i[top] = j
                stack_s[top] = add
                top += 1
    return conn


@_kernel
def _py_facing_conn(conn: np.ndarray, offs: np.ndarray, facing: np.ndarray) -> np.ndarray:
    """int64 ``(size,)``: per cell, the sides whose neighbour has a connected opening facing it
    (``Maze.facing_conn``)."""
    size = conn.shape[0]
    out = np.zeros(size, dtype=np.int64)
    for i in range(size):
        m = 0
        for b in range(4):
            j = i + offs[b]
            if 0 <= j < size and conn[j] & facing[b]:
                m |= 1 << b
        out[i] = m
    return out


@_kernel
def _py_neighbour_sides(
    opn: np.ndarray, occ: np.ndarray, offs: np.ndarray, facing: np.ndarray, outside: int
) -> tuple[np.ndarray, np.ndarray]:
    """int64 ``(size,)`` each, ``(opening, wall)``: the sides whose neighbour is a face-up card
    with an opening / a wall facing the cell, or lies outside the window (a wall)
    (``Maze.neighbour_sides``)."""
    size = opn.shape[0]
    opening = np.zeros(size, dtype=np.int64)
    wall = np.zeros(size, dtype=np.int64)
    for i in range(size):
        mo = 0
        mw = 0
        for b in range(4):
            j = i + offs[b]
            if 0 <= j < size:
                up = occ[j] == _FACE_UP
                has = up and (opn[j] & facing[b]) != 0
                if has:
                    mo |= 1 << b
                if (up and not has) or occ[j] == outside:
                    mw |= 1 << b
        opening[i] = mo
        wall[i] = mw
    return opening, wall


@_kernel
def _py_read_board(
    board: np.ndarray,
    chans: np.ndarray,
    opn: np.ndarray,
    conn: np.ndarray,
    thr: np.ndarray,
    occ: np.ndarray,
    stride: int,
) -> None:
    """``Maze._read``: fill the window's cells of ``opn``, ``conn`` (int64), ``thr`` (bool)
    and ``occ`` (int8) from ``board`` ``(C, H, W)`` (an observation's board view, any real
    dtype; each opening channel read as an int, as ``astype`` does); ``chans`` int64
    ``(11,)``: the channels open N, E, S, W, conn N, E, S, W, through, goal hidden,
    occupied."""
    for y in range(board.shape[1]):
        for x in range(board.shape[2]):
            i = (y + 1) * stride + x + 1
            o = np.int64(0)
            c = np.int64(0)
            for b in range(4):
                o |= np.int64(board[chans[b], y, x]) << b
                c |= np.int64(board[chans[4 + b], y, x]) << b
            opn[i] = o
            conn[i] = c
            thr[i] = board[chans[8], y, x] > 0
            if board[chans[9], y, x] > 0:
                occ[i] = _HIDDEN_GOAL
            elif board[chans[10], y, x] > 0:
                occ[i] = _FACE_UP
            else:
                occ[i] = _EMPTY


@_kernel
def _py_read_segments(
    board: np.ndarray,
    chans: np.ndarray,
    join: np.ndarray,
    lad: np.ndarray,
    door: np.ndarray,
    stride: int,
) -> None:
    """``SegmentMaze._read``'s Saboteur 2 cells: fill ``join`` (int64), ``lad`` (bool) and
    ``door`` (int8) from ``board`` ``(C, H, W)``; ``chans`` int64: the ``join_*`` channels
    (bit ``j`` of ``join`` each), then ladder, door green, door blue."""
    nj = chans.shape[0] - 3
    for y in range(board.shape[1]):
        for x in range(board.shape[2]):
            i = (y + 1) * stride + x + 1
            jm = np.int64(0)
            for j in range(nj):
                jm |= np.int64(board[chans[j], y, x]) << j
            join[i] = jm
            lad[i] = board[chans[nj], y, x] > 0
            if board[chans[nj + 1], y, x] > 0:
                door[i] = 1
            elif board[chans[nj + 2], y, x] > 0:
                door[i] = 2
            else:
                door[i] = 0


@_kernel
def _py_front_value(
    dist: np.ndarray,
    occ: np.ndarray,
    goal_idx: np.ndarray,
    offs: np.ndarray,
    fit: np.ndarray,
    cell: int,
    need: int,
    walls: int,
    entry: int,
    exclude: int,
    scarcity: float,
    inf: float,
    g: int,
) -> float:
    """One entry of ``front_values`` and of ``place``'s new fronts: goal ``g`` of front cell
    ``cell`` (``exclude``: the cell no exit may lead into, -1 for none)."""
    best = inf
    for b in range(4):
        bit = 1 << b
        to = cell + offs[b]
        fits = fit[need | bit, walls]
        ratio = min(fits / max(fit[entry | bit, 0], 1e-9), 1.0)
        if (walls & bit) != 0 or fits <= 0 or to == exclude:
            cost = inf
        else:
            cost = 1.0 + scarcity * (1.0 - ratio)
        if to == goal_idx[g]:
            after = 0.0 if occ[goal_idx[g]] == _HIDDEN_GOAL else inf
        elif occ[to] == _EMPTY:
            after = float(dist[g, to])
        else:
            after = inf
        v = cost + after
        if v < best:
            best = v
    return min(best, inf)


@_kernel
def _py_place(
    var_open: np.ndarray,
    var_thr: np.ndarray,
    cells: np.ndarray,
    always: np.ndarray,
    fc: np.ndarray,
    frontier: np.ndarray,
    front_dist: np.ndarray,
    m1: np.ndarray,
    cnt1: np.ndarray,
    m2: np.ndarray,
    cnt2: np.ndarray,
    dist: np.ndarray,
    occ: np.ndarray,
    goal_idx: np.ndarray,
    offs: np.ndarray,
    facing: np.ndarray,
    use_fit: bool,
    fit: np.ndarray,
    opening: np.ndarray,
    wall: np.ndarray,
    start: int,
    scarcity: float,
    inf: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Evaluation.place`` for ``k`` candidate placements (``var_open`` int64, ``var_thr``
    and ``always`` bool, ``cells`` int64, each ``(k,)``): ``D`` float64, ``C`` int64 and
    ``reached`` bool, each ``(3, k)``.  ``front_dist`` float64 ``(3, size)``, ``m1``/``m2``
    float64 and ``cnt1``/``cnt2`` int64 ``(3,)`` are the evaluation's front; with
    ``use_fit`` a new front cell's distance is :func:`front_values`' (``opening``/``wall``:
    ``Maze.neighbour_sides``), else ``dist``'s."""
    k = cells.shape[0]
    ng = goal_idx.shape[0]
    D = np.empty((ng, k))
    C = np.empty((ng, k), dtype=np.int64)
    reached = np.zeros((ng, k), dtype=np.bool_)
    here = np.empty((4, ng))
    ok = np.zeros(4, dtype=np.bool_)
    for c in range(k):
        cell = cells[c]
        o = var_open[c]
        connected = (var_thr[c] and (o & fc[cell]) != 0) or always[c]
        for b in range(4):
            side = connected and (o >> b) & 1 != 0
            nb = cell + offs[b]
            ok[b] = side and occ[nb] == _EMPTY
            front = nb if occ[nb] == _EMPTY else start
            for g in range(ng):
                if use_fit:
                    here[b, g] = front_value(  # noqa: F821 (bound by Kernels.compile_all)
                        dist,
                        occ,
                        goal_idx,
                        offs,
                        fit,
                        front,
                        opening[front] | facing[b],
                        wall[front],
                        facing[b],
                        cell,
                        scarcity,
                        inf,
                        g,
                    )
                else:
                    here[b, g] = dist[g, nb]
                if side and nb == goal_idx[g] and occ[goal_idx[g]] == _HIDDEN_GOAL:
                    reached[g, c] = True
        for g in range(ng):
            here_best = abs(front_dist[g, cell] - m1[g]) < 1e-9 and frontier[cell]
            if here_best and cnt1[g] == 1:
                base, base_c = m2[g], cnt2[g]
            else:
                base, base_c = m1[g], cnt1[g] - (1 if here_best else 0)
            if reached[g, c]:
                D[g, c] = 0.0
                C[g, c] = 1
                continue
            d = base
            for b in range(4):
                v = here[b, g] if ok[b] else inf
                if v < d:
                    d = v
            n = base_c if base == d else 0
            for b in range(4):
                v = here[b, g] if ok[b] else inf
                if v == d:
                    n += 1
            D[g, c] = d
            C[g, c] = n
    return D, C, reached


@_kernel
def _py_front_values(
    dist: np.ndarray,
    occ: np.ndarray,
    goal_idx: np.ndarray,
    offs: np.ndarray,
    fit: np.ndarray,
    cells: np.ndarray,
    need: np.ndarray,
    walls: np.ndarray,
    entry: np.ndarray,
    scarcity: float,
    inf: float,
) -> np.ndarray:
    """float64 ``(3, k)``: ``Evaluation._front_values`` with no excluded cell (the cheapest
    exit of each front cell of ``cells``, int64 ``(k,)``, its card opening on ``need`` and
    closed on ``walls``, entered by ``entry``, all int64 ``(k,)``); ``fit``: float64
    ``(16, 16)`` (``maze.fit_table``)."""
    k = cells.shape[0]
    ng = goal_idx.shape[0]
    best = np.empty((ng, k))
    for c in range(k):
        for g in range(ng):
            best[g, c] = front_value(  # noqa: F821 (bound by Kernels.compile_all)
                dist,
                occ,
                goal_idx,
                offs,
                fit,
                cells[c],
                need[c],
                walls[c],
                entry[c],
                -1,
                scarcity,
                inf,
                g,
            )
    return best


@_kernel
def _py_front_ranks(
    vals: np.ndarray, cols: np.ndarray, inf: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``maze.front_ranks``: per row of ``vals[:, cols]`` (``vals`` int64 or float64
    ``(3, size)``, ``cols`` int64 ``(k,)``) the smallest and second smallest value (``inf``
    where there are fewer than one / two) and how many columns hold each (within 1e-9)."""
    ng = vals.shape[0]
    m1 = np.empty(ng, dtype=vals.dtype)
    m2 = np.empty(ng, dtype=vals.dtype)
    cnt1 = np.zeros(ng, dtype=np.int64)
    cnt2 = np.zeros(ng, dtype=np.int64)
    k = cols.shape[0]
    for g in range(ng):
        # the two smallest in column order; an equal value keeps its place, as in a sort
        a = vals[g, cols[0]] if k > 0 else inf
        b = vals[g, cols[1]] if k > 1 else inf
        if k > 1 and b < a:
            a, b = b, a
        for c in range(2, k):
            v = vals[g, cols[c]]
            if v < a:
                a, b = v, a
            elif v < b:
                b = v
        m1[g] = a
        m2[g] = b
        for c in range(k):
            v = vals[g, cols[c]]
            if abs(v - a) < 1e-9:
                cnt1[g] += 1
            if k > 1 and abs(v - b) < 1e-9:
                cnt2[g] += 1
    return m1, cnt1, m2, cnt2


@_kernel
def _py_value(D: np.ndarray, C: np.ndarray, p: np.ndarray, cap: int, robust: float) -> np.ndarray:
    """float64 ``(k,)``: ``Evaluation.value`` of ``D`` (int64 or float64 ``(3, k)``) and ``C``
    (int64 ``(3, k)``) for goal weights ``p`` (float64 ``(3,)``), summed over the goals in
    order as numpy's ``sum(axis=0)`` does."""
    k = D.shape[1]
    out = np.empty(k)
    for c in range(k):
        acc = 0.0
        for g in range(D.shape[0]):
            n = min(max(C[g, c], 1), 3)
            v = (float(min(D[g, c], cap)) - robust * float(n - 1)) * p[g]
            acc = v if g == 0 else acc + v
        out[c] = acc
    return out
