"""The heuristic agent's maze model: the board rebuilt from an observation, replayed from
public events, and valued in *tunnel steps* (the cards still needed to reach a goal).

* :class:`Maze`: the base game's cards, fully described by their openings and whether they join
  them (RULES 0.2, 4.1).  :class:`SegmentMaze` adds what Saboteur 2 cards carry: tunnel
  segments (bridges and double curves join two tunnels, not four sides), ladders (roots of the
  maze, RULES 6.4) and doors (RULES 6.3), with the doors of one colour optionally treated as
  walls (a team's plan without the other team's routes, RULES 6.9).
* :class:`Analysis` / :class:`Evaluation`: ``V = sum_g p_g * D_g``, where ``D_g`` is the
  shortest route through empty cells from the connected tunnel front to goal ``g``
  (breadth-first search; every opening combination of two or more sides exists among the
  through cards, so walls only matter where cards already lie) and ``p_g`` the probability
  that goal ``g`` hides the gold (RULES 3.5, 4.2).  A move's *progress* is the drop of ``V``.

Arrays are flat over the board window padded by one ring of cells outside it (``H + 2`` rows
of ``W + 2`` cells, index :meth:`Maze.idx`).
"""

from __future__ import annotations

import numpy as np

from saboteur_env.encoding.observation import BoardChannel
from saboteur_env.engine.cards import (
    FACING,
    GOAL_CELLS,
    GOAL_KINDS,
    SIDE_NAMES,
    START_CELL,
    VARIANT_DOOR,
    VARIANT_LADDER,
    VARIANT_OF,
    VARIANTS,
)

from . import kernels

INF = 99  # distance of an unreachable goal
CAP = 16  # distances are capped here inside V
WIN_BONUS = 8.0  # value of reaching the gold, in tunnel steps
ROBUST = 0.25  # value of each extra equally short route (up to three routes)

#: ``occ`` codes of a cell
EMPTY, FACE_UP, HIDDEN_GOAL, OUTSIDE = 0, 1, 2, 3
#: all four sides open / all six side pairs joined (the start card)
ALL_SIDES, ALL_JOINS = 15, 63

_OPEN = (BoardChannel.OPEN_N, BoardChannel.OPEN_E, BoardChannel.OPEN_S, BoardChannel.OPEN_W)
_CONN = (BoardChannel.CONN_N, BoardChannel.CONN_E, BoardChannel.CONN_S, BoardChannel.CONN_W)
#: the Saboteur 2 ``join_*`` channels and the pair of side bits each one joins
_JOIN = tuple(c for c in BoardChannel if c.name.startswith("JOIN_"))
_SIDE_BIT = {name: bit for bit, name in SIDE_NAMES.items()}
JOIN_PAIRS = tuple((_SIDE_BIT[c.name[5]], _SIDE_BIT[c.name[6]]) for c in _JOIN)
#: int64: the channels the compiled ``read_board`` / ``read_segments`` kernels read, in order
_READ_CHANNELS = np.array(
    _OPEN + _CONN + (BoardChannel.THROUGH, BoardChannel.GOAL_HIDDEN, BoardChannel.OCCUPIED),
    dtype=np.int64,
)
_SEGMENT_CHANNELS = np.array(
    _JOIN + (BoardChannel.LADDER, BoardChannel.DOOR_GREEN, BoardChannel.DOOR_BLUE),
    dtype=np.int64,
)


def _side_bits(planes: np.ndarray) -> np.ndarray:
    """int64 ``(H, W)`` 4-bit side mask from four 0/1 planes ``(4, H, W)`` in N, E, S, W order."""
    b = planes.astype(np.int64)
    return b[0] | (b[1] << 1) | (b[2] << 2) | (b[3] << 3)


def _joined_table() -> np.ndarray:
    """int64 ``(64, 4)``: ``T[join_mask, b]`` the sides joined to side bit ``b`` (itself
    included) on a card whose joined side pairs are ``join_mask`` (bits in :data:`JOIN_PAIRS`
    order)."""
    t = np.zeros((64, 4), dtype=np.int64)
    for jm in range(64):
        for b in range(4):
            s = 1 << b
            m = s
            for j, (a, c) in enumerate(JOIN_PAIRS):
                if jm >> j & 1:
                    if a == s:
                        m |= c
                    elif c == s:
                        m |= a
            t[jm, b] = m
    return t


JOINED = _joined_table()
#: int64 ``(4,)``: ``FACING`` as an array (the compiled kernels' argument)
_FACING_ARR = np.array(FACING, dtype=np.int64)
#: the compiled ``place`` kernel's ``fit`` argument when there is none
_NO_FIT = np.zeros((16, 16))
_FACING_BIT = tuple(int(f).bit_length() - 1 for f in FACING)
_FACING_BIT_ARR = np.array(_FACING_BIT, dtype=np.int64)
#: int64 ``(n_variants,)``: the side pairs each variant joins (:data:`JOIN_PAIRS` bits)
VARIANT_JOINS = np.array(
    [
        sum(
            1 << j
            for j, (a, c) in enumerate(JOIN_PAIRS)
            if any((seg & a) and (seg & c) for seg in v.segments)
        )
        for v in VARIANTS
    ],
    dtype=np.int64,
)
#: bool ``(n_variants,)``: the variant joins two or more of its openings (not a dead end)
VARIANT_THROUGH = np.array([any(not st for st in v.stub) for v in VARIANTS], dtype=bool)


def goal_variant(identity: int, rotated: bool) -> int:
    """The variant id of a revealed goal card (RULES 4.2)."""
    return VARIANT_OF[(GOAL_KINDS[identity], bool(rotated))]


def fit_table(variants: tuple[int, ...], deck: np.ndarray) -> np.ndarray:
    """float64 ``(16, 16)``: ``F[need, wall]`` the copies in the draw deck (``deck``: int64
    ``(n_kinds,)``, RULES 2.4) of the through cards that can lie with an opening on every side
    of ``need`` and a wall on every side of ``wall`` (4-bit side masks; a kind counts once
    if one of its orientations ``variants`` fits, RULES 3.1)."""
    fits: dict[int, np.ndarray] = {}
    need = np.arange(16)[:, None]
    wall = np.arange(16)[None, :]
    for v in variants:
        if not VARIANT_THROUGH[v]:
            continue
        o = VARIANTS[v].openings
        ok = ((need & ~o) == 0) & ((wall & o) == 0)
        k = VARIANTS[v].kind
        fits[k] = ok if k not in fits else fits[k] | ok
    return sum((deck[k] * ok.astype(np.float64) for k, ok in fits.items()), np.zeros((16, 16)))


#: distances depend only on which cells are empty: shared by every agent of the process
_DIST_CACHE: dict = {}
#: most entries of each module-level cache (distances, analyses): a round revisits only its own
#: recent mazes, so a small cache keeps the hit rate (150 five-player games: the same CPU time
#: and the same play with 256 entries as with 4,096) and bounds a long run's memory (84 MB of
#: cached analyses after 150 games at 4,096 entries, 52 MB RSS in all at 256)
CACHE_ENTRIES = 256


class Maze:
    """The maze as the agent sees it (base-game cards).

    Attributes (flat, padded arrays of ``(H + 2) * (W + 2)`` cells):
        opn: int64 4-bit openings (N=1, E=2, S=4, W=8).
        thr: bool, the card joins its openings (a through card; dead ends join nothing).
        occ: int8 :data:`EMPTY`, :data:`FACE_UP`, :data:`HIDDEN_GOAL` or :data:`OUTSIDE`.
        conn: int64 4-bit openings connected to the start (RULES 4.1).
    """

    #: the per-cell arrays (copied by :meth:`copy`)
    ARRAYS: tuple[str, ...] = ("opn", "thr", "occ", "conn")

    def __init__(self, window: tuple[int, int, int, int]) -> None:
        x0, x1, y0, y1 = window
        self.window = window
        self.H, self.W = y1 - y0 + 1, x1 - x0 + 1
        self.stride = self.W + 2
        size = (self.H + 2) * self.stride
        self.opn = np.zeros(size, dtype=np.int64)
        self.thr = np.zeros(size, dtype=bool)
        occ = np.full((self.H + 2, self.W + 2), OUTSIDE, dtype=np.int8)
        occ[1:-1, 1:-1] = EMPTY
        self.occ = occ.ravel()
        self.conn = np.zeros(size, dtype=np.int64)
        s = self.stride
        self.offsets = (-s, 1, s, -1)  # N, E, S, W (SIDE_DELTA order)
        self.goal_idx = tuple(self.idx(x, y) for x, y in GOAL_CELLS)
        # the same two as int64 arrays, for the compiled kernels
        self._offs = np.array(self.offsets, dtype=np.int64)
        self._goals = np.array(self.goal_idx, dtype=np.int64)
        self.start_idx = self.idx(*START_CELL)
        self._dist: np.ndarray | None = None
        #: the maze's :class:`Analysis` (:func:`analyse`), cached until a change
        self._analysis: Analysis | None = None
        #: the last front of :meth:`Evaluation._scarce_front` on this maze, cached until a
        #: change: ``(analysis, scarcity, fit, front)``
        self._front: tuple | None = None

    def idx(self, x: int, y: int) -> int:
        """Flat padded index of cell ``(x, y)``."""
        return (y - self.window[2] + 1) * self.stride + (x - self.window[0] + 1)

    def xy(self, i: int) -> tuple[int, int]:
        """Cell ``(x, y)`` of flat padded index ``i``."""
        r, c = divmod(i, self.stride)
        return c - 1 + self.window[0], r - 1 + self.window[2]

    def _put(self, arr: np.ndarray, vals: np.ndarray) -> None:
        arr.reshape(self.H + 2, self.W + 2)[1:-1, 1:-1] = vals

    def copy(self) -> Maze:
        """An independent copy."""
        m = self.__class__.__new__(self.__class__)
        m.__dict__.update(self.__dict__)
        for k in self.ARRAYS:
            setattr(m, k, getattr(self, k).copy())
        return m

    def _changed(self) -> None:
        self._dist = None
        self._analysis = None
        self._front = None
        self.recompute()

    @classmethod
    def initial(cls, window: tuple[int, int, int, int], **kw) -> Maze:
        """Start card face up, three face-down goals (RULES 2.1)."""
        m = cls(window, **kw)
        m._start()
        for g in m.goal_idx:
            m.occ[g] = HIDDEN_GOAL
        m.recompute()
        return m

    def _start(self) -> None:
        """Lay the start card (a crossroads joining all sides)."""
        self._set(self.start_idx, ALL_SIDES, True, FACE_UP)

    @classmethod
    def from_view(cls, window: tuple[int, int, int, int], board: np.ndarray, **kw) -> Maze:
        """From the ``board`` view, float32 ``(C, H, W)``, of an observation (channels
        :class:`~saboteur_env.encoding.observation.BoardChannel`)."""
        m = cls(window, **kw)
        m._read(board)
        return m

    def _read(self, board: np.ndarray) -> None:
        if kernels.ENABLED:
            kernels.read_board(
                board, _READ_CHANNELS, self.opn, self.conn, self.thr, self.occ, self.stride
            )
            return
        self._put(self.opn, _side_bits(board[list(_OPEN)]))
        self._put(self.conn, _side_bits(board[list(_CONN)]))
        self._put(self.thr, board[BoardChannel.THROUGH] > 0)
        self._put(
            self.occ,
            np.where(
                board[BoardChannel.GOAL_HIDDEN] > 0,
                HIDDEN_GOAL,
                np.where(board[BoardChannel.OCCUPIED] > 0, FACE_UP, EMPTY),
            ),
        )

    # --- changes (replaying public events) ---------------------------------------------
    def _set(self, i: int, openings: int, through: bool, occ: int) -> None:
        self.opn[i], self.thr[i], self.occ[i] = openings, through, occ

    def place_variant(self, x: int, y: int, var: int) -> None:
        """A path card of variant ``var`` is placed on ``(x, y)`` (RULES 3.1)."""
        self._set(self.idx(x, y), VARIANTS[var].openings, VARIANT_THROUGH[var], FACE_UP)
        self._changed()

    def remove(self, x: int, y: int) -> None:
        """The card on ``(x, y)`` is removed (rockfall, RULES 3.4)."""
        self._set(self.idx(x, y), 0, False, EMPTY)
        self._changed()

    def reveal(self, slot: int, identity: int, rotated: bool) -> None:
        """Goal ``slot`` is turned face up (RULES 4.2)."""
        var = goal_variant(identity, rotated)
        self._set(self.goal_idx[slot], VARIANTS[var].openings, True, FACE_UP)
        self._changed()

    def recompute(self) -> None:
        """Connected openings from the start (RULES 4.1): through cards pass the tunnel on,
        dead-end stubs do not; both sides of an edge must be open."""
        if kernels.ENABLED:
            self.conn = kernels.connect(
                self.opn, self.thr, self.occ, self._offs, _FACING_ARR, self.start_idx
            )
            return
        conn = np.zeros_like(self.conn)
        opn, thr, occ, off = self.opn, self.thr, self.occ, self.offsets
        seen = {self.start_idx}
        stack = [self.start_idx]
        while stack:
            i = stack.pop()
            o = int(opn[i])
            conn[i] = o
            for b in range(4):
                if o >> b & 1:
                    j = i + off[b]
                    if occ[j] == FACE_UP and j not in seen and opn[j] & FACING[b] and thr[j]:
                        seen.add(j)
                        stack.append(j)
        self.conn = conn

    # --- analysis ----------------------------------------------------------------------
    def facing_conn(self) -> np.ndarray:
        """int64 4-bit mask per cell: sides whose neighbour has a connected opening facing
        it."""
        if kernels.ENABLED:
            return kernels.facing_conn(self.conn, self._offs, _FACING_ARR)  # type: ignore[no-any-return]
        conn = self.conn
        out = np.zeros_like(conn)
        for b in range(4):
            # the neighbour across side b of cell i is i + o; it faces i with FACING[b]
            o = self.offsets[b]
            bit = ((conn & FACING[b]) != 0).astype(np.int64) << b
            if o > 0:
                out[:-o] |= bit[o:]
            else:
                out[-o:] |= bit[:o]
        return out

    def neighbour_sides(self) -> tuple[np.ndarray, np.ndarray]:
        """int64 4-bit masks per cell, ``(opening, wall)``: the sides whose neighbour is a face-up
        card with an opening facing the cell / with a wall facing it or outside the window
        (what a card laid there must match, RULES 3.1; a face-down goal asks nothing)."""
        if kernels.ENABLED:
            return kernels.neighbour_sides(  # type: ignore[no-any-return]
                self.opn, self.occ, self._offs, _FACING_ARR, OUTSIDE
            )
        opening = np.zeros_like(self.opn)
        wall = np.zeros_like(self.opn)
        up = self.occ == FACE_UP
        has = [((self.opn & FACING[b]) != 0) & up for b in range(4)]
        for b in range(4):
            o = self.offsets[b]
            ob = has[b].astype(np.int64) << b
            wb = ((up & ~has[b]) | (self.occ == OUTSIDE)).astype(np.int64) << b
            if o > 0:
                opening[:-o] |= ob[o:]
                wall[:-o] |= wb[o:]
            else:
                opening[-o:] |= ob[:o]
                wall[-o:] |= wb[:o]
        return opening, wall

    def distances(self) -> np.ndarray:
        """int64 ``(3, size)``: the shortest number of cards from each cell to each goal
        through empty cells (1 next to the goal), :data:`INF` where no route exists.  Cached
        until a change (read-only)."""
        if self._dist is not None:
            return self._dist
        key = (self.window, self.occ.tobytes())
        d = _DIST_CACHE.get(key)
        if d is not None:
            self._dist = d
            return d
        if kernels.ENABLED:
            d = kernels.distances(self.occ == EMPTY, self._goals, self._offs, INF)
        else:
            d = self._distances_numpy()
        d.flags.writeable = False
        if len(_DIST_CACHE) >= CACHE_ENTRIES:
            _DIST_CACHE.clear()
        _DIST_CACHE[key] = d
        self._dist = d
        return d

    def _distances_numpy(self) -> np.ndarray:
        """:meth:`distances` without the compiled kernel (breadth-first over lists)."""
        size = self.occ.shape[0]
        empty = (self.occ == EMPTY).tolist()
        offs = self.offsets
        rows = []
        for gi in self.goal_idx:
            dist = [INF] * size
            queue = []
            for o in offs:
                if empty[gi + o]:
                    dist[gi + o] = 1
                    queue.append(gi + o)
            for i in queue:  # breadth-first: the list grows while it is read
                nd = dist[i] + 1
                for o in offs:
                    j = i + o
                    if empty[j] and dist[j] > nd:
                        dist[j] = nd
                        queue.append(j)
            rows.append(dist)
        return np.array(rows, dtype=np.int64)


class SegmentMaze(Maze):
    """:class:`Maze` for Saboteur 2 cards.

    Extra attributes (flat, padded):
        join: int64 6-bit side pairs joined by one tunnel (:data:`JOIN_PAIRS` order).
        lad: bool, a ladder card (a root of the maze, RULES 6.4).
        door: int8 door colour code (``cards.DOOR_CODES``: 0 none, 1 green, 2 blue).
        block: the door colour code treated as a wall (0 none): the maze a team plans on
            (RULES 6.9).
    """

    ARRAYS = Maze.ARRAYS + ("join", "lad", "door")

    def __init__(self, window: tuple[int, int, int, int], block: int = 0) -> None:
        super().__init__(window)
        size = self.opn.shape[0]
        self.join = np.zeros(size, dtype=np.int64)
        self.lad = np.zeros(size, dtype=bool)
        self.door = np.zeros(size, dtype=np.int8)
        self.block = block

    def _read(self, board: np.ndarray) -> None:
        super()._read(board)
        if kernels.ENABLED:
            kernels.read_segments(
                board, _SEGMENT_CHANNELS, self.join, self.lad, self.door, self.stride
            )
            self.recompute()
            return
        jm = np.zeros((self.H, self.W), dtype=np.int64)
        for j, ch in enumerate(_JOIN):
            jm |= board[ch].astype(np.int64) << j
        self._put(self.join, jm)
        self._put(self.lad, board[BoardChannel.LADDER] > 0)
        self._put(
            self.door,
            np.where(
                board[BoardChannel.DOOR_GREEN] > 0,
                1,
                np.where(board[BoardChannel.DOOR_BLUE] > 0, 2, 0),
            ),
        )
        self.recompute()

    def _start(self) -> None:
        super()._start()
        self.join[self.start_idx] = ALL_JOINS

    def place_variant(self, x: int, y: int, var: int) -> None:
        i = self.idx(x, y)
        self.join[i], self.lad[i], self.door[i] = (
            VARIANT_JOINS[var],
            VARIANT_LADDER[var],
            VARIANT_DOOR[var],
        )
        super().place_variant(x, y, var)

    def remove(self, x: int, y: int) -> None:
        i = self.idx(x, y)
        self.join[i], self.lad[i], self.door[i] = 0, False, 0
        super().remove(x, y)

    def reveal(self, slot: int, identity: int, rotated: bool) -> None:
        self.join[self.goal_idx[slot]] = VARIANT_JOINS[goal_variant(identity, rotated)]
        super().reveal(slot, identity, rotated)

    def recompute(self) -> None:
        """Connected openings from the roots (the start and every ladder, RULES 6.4), one
        segment at a time; a card with a ``block`` door is never entered."""
        if kernels.ENABLED:
            self.conn = kernels.segment_connect(
                self.opn,
                self.occ,
                self._offs,
                _FACING_ARR,
                _FACING_BIT_ARR,
                self.join,
                JOINED,
                self.lad,
                self.door,
                int(self.block),
                self.start_idx,
            )
            return
        conn = np.zeros_like(self.conn)
        opn, occ, off, join = self.opn, self.occ, self.offsets, self.join
        door, block = self.door, self.block
        roots = [self.start_idx] + [
            int(i)
            for i in np.flatnonzero(self.lad & (occ == FACE_UP))
            if not (block and door[i] == block)
        ]
        stack = []
        for i in roots:
            conn[i] = opn[i]
            stack.append((i, int(opn[i])))
        while stack:
            i, sides = stack.pop()
            for b in range(4):
                if not sides >> b & 1:
                    continue
                j = i + off[b]
                if occ[j] != FACE_UP or not opn[j] & FACING[b]:
                    continue
                if block and door[j] == block:
                    continue
                fb = _FACING_BIT[b]
                seg = int(JOINED[join[j], fb]) & int(opn[j])
                if seg == 1 << fb:
                    continue  # a dead-end stub leads nowhere (RULES 4.1)
                add = seg & ~int(conn[j])
                if add:
                    conn[j] |= add
                    stack.append((j, add))
        self.conn = conn


class Analysis:
    """What a maze means for every goal, independent of goal probabilities.

    Attributes:
        dist: int64 ``(3, size)`` :meth:`Maze.distances`.
        fc: int64 ``(size,)`` :meth:`Maze.facing_conn`.
        frontier: bool ``(size,)``, empty cells a connected opening faces.
        m1, cnt1, m2, cnt2: int64 ``(3,)``, the best and second-best frontier distance to each
            goal and how many frontier cells have it.
    """

    __slots__ = ("dist", "fc", "frontier", "m1", "cnt1", "m2", "cnt2", "progress")

    def __init__(self, maze: Maze, dist: np.ndarray | None = None) -> None:
        self.dist = maze.distances() if dist is None else dist
        #: :func:`placement_progress` per ``(variant, cell, goal weights' bytes)``: every agent
        #: of a game judges each public placement on the same maze
        self.progress: dict[tuple[int, int, bytes], float] = {}
        self.fc = maze.facing_conn()
        self.frontier = (maze.occ == EMPTY) & (self.fc != 0)
        self.m1, self.cnt1, self.m2, self.cnt2 = front_ranks(
            self.dist, np.flatnonzero(self.frontier)
        )


def front_ranks(
    vals: np.ndarray, cols: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(m1, cnt1, m2, cnt2)``, each ``(3,)``: per row of ``vals[:, cols]`` (``vals`` int64
    or float64 ``(3, size)``, ``cols`` int ``(k,)``) the smallest and second smallest value
    (of ``vals``' dtype; :data:`INF` where there are fewer than one / two) and how many columns
    hold each (int64, within 1e-9; 0 where none)."""
    if kernels.ENABLED:
        return kernels.front_ranks(vals, np.asarray(cols, dtype=np.int64), INF)  # type: ignore[no-any-return]
    m1 = np.full(3, INF, dtype=vals.dtype)
    cnt1 = np.zeros(3, dtype=np.int64)
    m2 = np.full(3, INF, dtype=vals.dtype)
    cnt2 = np.zeros(3, dtype=np.int64)
    if len(cols):
        v = np.sort(vals[:, cols], axis=1)
        m1 = v[:, 0].copy()
        cnt1 = (np.abs(v - v[:, :1]) < 1e-9).sum(axis=1)
        if v.shape[1] > 1:
            m2 = v[:, 1].copy()
            cnt2 = (np.abs(v - v[:, 1:2]) < 1e-9).sum(axis=1)
    return m1, cnt1, m2, cnt2


#: analyses depend only on the public maze: shared by every agent of the process
_ANALYSIS_CACHE: dict = {}


def analyse(maze: Maze) -> Analysis:
    """The :class:`Analysis` of ``maze``, cached by its occupancy and connections (and on the
    maze until it changes)."""
    a = maze._analysis
    if a is not None:
        return a
    key = (maze.window, maze.occ.tobytes(), maze.conn.tobytes())
    a = _ANALYSIS_CACHE.get(key)
    if a is None:
        if len(_ANALYSIS_CACHE) >= CACHE_ENTRIES:
            _ANALYSIS_CACHE.clear()
        a = _ANALYSIS_CACHE[key] = Analysis(maze)
    maze._analysis = a
    return a


class Evaluation:
    """``V`` of a maze for goal probabilities ``p`` (float64 ``(3,)``) and fast what-ifs for
    placements.

    Attributes:
        D: int64 ``(3,)``, the distance of the tunnel front to each goal.
        V: float, the value (:meth:`value` of ``D``).
    """

    def __init__(
        self,
        maze: Maze,
        p: np.ndarray,
        analysis: Analysis | None = None,
        scarcity: float = 0.0,
        fit: np.ndarray | None = None,
    ) -> None:
        a = analyse(maze) if analysis is None else analysis
        self.maze, self.p, self.analysis = maze, p, a
        self.scarcity = scarcity
        self.fit = fit if scarcity > 0 else None
        self._sides: tuple[np.ndarray, np.ndarray] | None = None
        self.dist, self.fc, self.frontier = a.dist, a.fc, a.frontier
        self.m1, self.cnt1, self.m2, self.cnt2 = a.m1, a.cnt1, a.m2, a.cnt2
        #: int64/float64 ``(3, size)``: the distance of each cell as a tunnel front
        self.front_dist: np.ndarray = a.dist
        if self.fit is not None:
            self._scarce_front()
        self.D = self.m1
        self.V = self.value(self.D, self.cnt1)

    def _scarce_front(self) -> None:
        """Front distances that respect the cards already laid (RULES 3.1): a front cell's
        card must open towards its route and match every face-up neighbour, opening for
        opening and wall for wall; its cost grows by ``scarcity`` times the share of the
        deck's through cards joining the tunnel to that route that those neighbours exclude
        (a cell no card fits costs :data:`INF`), so clearing a blocking card (rockfall, RULES
        3.4) is progress.  Independent of the goal weights: the last one is cached on the
        maze (an agent evaluates one maze for several weights)."""
        m, a = self.maze, self.analysis
        c = m._front
        if c is not None and c[0] is a and c[1] == self.scarcity and c[2] is self.fit:
            self._sides, self.front_dist, self.m1, self.cnt1, self.m2, self.cnt2 = c[3]
            return
        self._new_scarce_front()
        m._front = (
            a,
            self.scarcity,
            self.fit,
            (self._sides, self.front_dist, self.m1, self.cnt1, self.m2, self.cnt2),
        )

    def _new_scarce_front(self) -> None:
        """:meth:`_scarce_front` computed (not cached)."""
        m, a = self.maze, self.analysis
        fidx = np.flatnonzero(a.frontier)
        if not len(fidx):
            return
        self._sides = opening, wall = m.neighbour_sides()
        entry = a.fc[fidx] & -a.fc[fidx]  # one side the tunnel comes in by
        best = self._front_values(fidx, opening[fidx], wall[fidx], entry)
        fd = a.dist.astype(np.float64)
        fd[:, fidx] = best
        self.front_dist = fd
        self.m1, self.cnt1, self.m2, self.cnt2 = front_ranks(fd, fidx)

    def value(self, D: np.ndarray, C: np.ndarray) -> np.ndarray | float:
        """``V = sum_g p_g (min(D_g, CAP) - ROBUST * (min(C_g, 3) - 1))``: distance to each
        goal, less a bonus for several equally short routes (harder to block).  ``D``, ``C``:
        ``(3,)`` (a float) or ``(3, k)`` (float64 ``(k,)``)."""
        if kernels.ENABLED:
            if D.ndim == 2:
                return kernels.value(D, C, self.p, CAP, ROBUST)  # type: ignore[no-any-return]
            return np.float64(kernels.value(D[:, None], C[:, None], self.p, CAP, ROBUST)[0])
        # minimum/maximum rather than np.clip: the same values at a fraction of the call cost
        v = np.minimum(D, CAP) - ROBUST * (np.minimum(np.maximum(C, 1), 3) - 1)
        return (v * self.p[:, None] if D.ndim == 2 else v * self.p).sum(axis=0)

    def place(
        self,
        var_open: np.ndarray,
        var_thr: np.ndarray,
        cells: np.ndarray,
        always: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What-if for ``k`` placements: int ``(k,)`` openings, bool ``(k,)`` through flags,
        int ``(k,)`` padded cells; ``always``: bool ``(k,)``, connected whatever its
        neighbours (a ladder, RULES 6.4).

        Returns ``D_after`` and ``C_after`` (the number of frontier cells at that distance),
        int64 ``(3, k)`` each, and ``reached`` bool ``(3, k)`` (a face-down goal that the card
        connects to, RULES 4.2).  The card's tunnel is connected when one of its openings
        meets a connected opening (RULES 3.1)."""
        m = self.maze
        if kernels.ENABLED:
            return self._place_compiled(var_open, var_thr, cells, always)
        connected = var_thr & ((var_open & self.fc[cells]) != 0)
        if always is not None:
            connected = connected | always
        k = len(cells)
        # the frontier without the filled cell
        d_here = self.front_dist[:, cells]
        here_best = (np.abs(d_here - self.m1[:, None]) < 1e-9) & self.frontier[cells][None, :]
        unique_best = here_best & (self.cnt1[:, None] == 1)
        base = np.where(unique_best, self.m2[:, None], self.m1[:, None])
        base_c = np.where(unique_best, self.cnt2[:, None], self.cnt1[:, None] - here_best)
        vals = []
        reached = np.zeros((3, k), dtype=bool)
        for b in range(4):
            side = connected & ((var_open >> b) & 1).astype(bool)
            nb = cells + m.offsets[b]
            ok = side & (m.occ[nb] == EMPTY)
            here = self.dist[:, nb] if self.fit is None else self._new_front(nb, b, cells)
            vals.append(np.where(ok[None, :], here, INF))
            for g, gi in enumerate(m.goal_idx):
                reached[g] |= side & (nb == gi) & (m.occ[gi] == HIDDEN_GOAL)
        new = np.minimum(np.minimum(vals[0], vals[1]), np.minimum(vals[2], vals[3]))
        D = np.minimum(base, new)
        C = np.where(base == D, base_c, 0) + sum((v == D).astype(np.int64) for v in vals)
        D[reached] = 0
        C[reached] = 1
        return D, C, reached

    def _place_compiled(
        self,
        var_open: np.ndarray,
        var_thr: np.ndarray,
        cells: np.ndarray,
        always: np.ndarray | None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`place` by :func:`.kernels.place`; ``D`` int64 where the numpy code's is (no
        scarcity and an integer front), else float64."""
        m = self.maze
        k = len(cells)
        use_fit = self.fit is not None
        if use_fit and self._sides is None:
            self._sides = m.neighbour_sides()
        opening, wall = self._sides if self._sides is not None else (m.opn, m.opn)
        D, C, reached = kernels.place(
            np.asarray(var_open, dtype=np.int64),
            np.asarray(var_thr, dtype=np.bool_),
            np.asarray(cells, dtype=np.int64),
            np.zeros(k, dtype=np.bool_) if always is None else np.asarray(always, np.bool_),
            self.fc,
            self.frontier,
            np.asarray(self.front_dist, dtype=np.float64),
            np.asarray(self.m1, dtype=np.float64),
            np.asarray(self.cnt1, dtype=np.int64),
            np.asarray(self.m2, dtype=np.float64),
            np.asarray(self.cnt2, dtype=np.int64),
            self.dist,
            m.occ,
            m._goals,
            m._offs,
            _FACING_ARR,
            use_fit,
            self.fit if self.fit is not None else _NO_FIT,
            opening,
            wall,
            m.start_idx,
            float(self.scarcity),
            float(INF),
        )
        if not use_fit and self.m1.dtype.kind == "i" and self.m2.dtype.kind == "i":
            D = D.astype(np.int64)
        return D, C, reached

    def _new_front(self, nb: np.ndarray, b: int, cells: np.ndarray) -> np.ndarray:
        """float64 ``(3, k)``: the front distance of the empty cells ``nb`` that cards laid on
        ``cells`` open onto across side ``b``, their laid neighbours respected as in
        :meth:`_scarce_front` (the new card asks for an opening facing it)."""
        if self._sides is None:
            self._sides = self.maze.neighbour_sides()
        opening, wall = self._sides
        # a cell outside the window is never a front (the caller masks it): look at the start
        # instead, whose neighbours lie in the padded arrays
        nb = np.where(self.maze.occ[nb] == EMPTY, nb, self.maze.start_idx)
        entry = np.full_like(nb, FACING[b])
        return self._front_values(nb, opening[nb] | FACING[b], wall[nb], entry, cells)

    def _front_values(
        self,
        cells: np.ndarray,
        need: np.ndarray,
        walls: np.ndarray,
        entry: np.ndarray,
        exclude: np.ndarray | None = None,
    ) -> np.ndarray:
        """float64 ``(3, k)``: the distance to each goal of front cells ``cells`` (int
        ``(k,)``) whose card must open on the sides ``need`` and close ``walls`` (4-bit masks),
        entered by side ``entry``: the cheapest exit, each costing ``1 + scarcity * (share of
        the fitting cards excluded)`` plus the distance beyond it; an exit into ``exclude``
        (the cell of the card just laid) is none."""
        m, fit = self.maze, self.fit
        assert fit is not None
        if kernels.ENABLED and exclude is None:
            return kernels.front_values(  # type: ignore[no-any-return]
                self.dist,
                m.occ,
                m._goals,
                m._offs,
                fit,
                np.asarray(cells, dtype=np.int64),
                np.asarray(need, dtype=np.int64),
                np.asarray(walls, dtype=np.int64),
                np.asarray(entry, dtype=np.int64),
                float(self.scarcity),
                float(INF),
            )
        goals = np.array(m.goal_idx)[:, None]
        hidden = (m.occ[goals] == HIDDEN_GOAL)[:, :1]
        best = np.full((3, len(cells)), float(INF))
        for b in range(4):
            bit = 1 << b
            to = cells + m.offsets[b]
            fits = fit[need | bit, walls]
            ratio = np.minimum(fits / np.maximum(fit[entry | bit, 0], 1e-9), 1.0)
            bad = ((walls & bit) != 0) | (fits <= 0)
            if exclude is not None:
                bad |= to == exclude
            cost = np.where(bad, float(INF), 1.0 + self.scarcity * (1.0 - ratio))
            after = np.where(
                to[None, :] == goals,
                np.where(hidden, 0.0, float(INF)),
                np.where(m.occ[to][None, :] == EMPTY, self.dist[:, to], float(INF)),
            )
            best = np.minimum(best, cost[None, :] + after)
        return np.minimum(best, INF)


def dist_after_removal(dist: np.ndarray, maze: Maze, i: int) -> np.ndarray:
    """int64 ``(3, size)``: distances once cell ``i`` is emptied (rockfall, RULES 3.4): the
    cell itself gets one more than its best neighbour; routes through it elsewhere are ignored
    (a cheap, slightly pessimistic approximation)."""
    d = dist.copy()
    for g, gi in enumerate(maze.goal_idx):
        best = INF
        for o in maze.offsets:
            j = i + o
            if j == gi:
                best = 0
            elif maze.occ[j] == EMPTY:
                best = min(best, int(dist[g, j]))
        d[g, i] = min(best + 1, INF)
    return d


def placement_progress(maze: Maze, p: np.ndarray, var: int, x: int, y: int) -> float:
    """Progress (drop of ``V`` for goal weights ``p``, plus :data:`WIN_BONUS` per unit of gold
    probability reached) of placing variant ``var`` on ``(x, y)`` (RULES 3.1, 4.2).  Cached in
    the maze's :class:`Analysis` (the what-if needs only its occupancy and connections)."""
    a = analyse(maze)
    i = maze.idx(x, y)
    key = (var, i, p.tobytes())
    prog = a.progress.get(key)
    if prog is None:
        ev = Evaluation(maze, p, a)
        D, C, reached = ev.place(
            np.array([VARIANTS[var].openings]),
            np.array([bool(VARIANT_THROUGH[var])]),
            np.array([i]),
        )
        prog = a.progress[key] = float(
            ev.V - ev.value(D, C)[0] + WIN_BONUS * (p * reached[:, 0]).sum()
        )
    return prog


def removal_progress(maze: Maze, p: np.ndarray, x: int, y: int) -> tuple[float, bool]:
    """Progress of removing the card on ``(x, y)`` (rockfall, RULES 3.4) for goal weights
    ``p``, and whether that card was a dead end."""
    before = Evaluation(maze, p)
    after = maze.copy()
    dead = not after.thr[after.idx(x, y)]
    after.remove(x, y)
    return before.V - Evaluation(after, p).V, dead


__all__ = [
    "Analysis",
    "CAP",
    "Evaluation",
    "INF",
    "Maze",
    "ROBUST",
    "SegmentMaze",
    "WIN_BONUS",
    "analyse",
    "dist_after_removal",
    "front_ranks",
    "placement_progress",
    "removal_progress",
]
