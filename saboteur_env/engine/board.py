"""The maze on numpy arrays: placement legality, connectivity, goals, rockfall (RULES 2.1, 3.1,
3.4, 4.1, 4.2).

Cells are addressed by game coordinates ``(x, y)`` (x east towards the goals, y south; start at
``(0, 0)``).  Internally every per-cell array has shape ``(H + 4, W + 4)`` for a window of
``H x W`` cells: the window, one *ring* of cells just outside it (used only to measure how often
a legal placement would leave the window) and one more ring that is always empty, so that
neighbour look-ups are plain array slices.

Legality is computed by arrays (DESIGN 2): for every empty cell the neighbours give three 4-bit
masks, ``must_open`` (face-up neighbours with a facing opening), ``must_close`` (face-up
neighbours with a facing wall) and ``connected_facing`` (neighbours whose facing opening is
connected to a root), plus two flags, *adjacent to any card* and *adjacent to a goal*.  These
pack into a 14-bit code; one precomputed table ``FIT[variant, code]`` says whether an oriented
card fits.  The connected set is kept up to date incrementally on placement; a rockfall
recomputes it.

Restated (base game and Saboteur 2) by the batched engine's compiled kernels
(``saboteur_env/vector/kernels.py``), which ``tests/test_vector.py`` checks against this module
over whole games: a change here needs the same change there.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import numpy.typing as npt

from .cards import (
    ALL_KINDS,
    FACING,
    GOAL_CELLS,
    GOAL_GOLD,
    GOAL_KINDS,
    N_VARIANTS,
    SIDE_DELTA,
    START_CELL,
    START_KIND,
    VARIANT_OF,
    VARIANTS,
)

_UIDS = itertools.count()
EMPTY = -1
HIDDEN_GOAL = -2
_PAD = 2


def _build_fit_table() -> npt.NDArray[np.bool_]:
    """``FIT[v, code]`` (bool, shape ``(N_VARIANTS, 2**14)``): variant ``v`` fits a cell with
    that neighbourhood code (RULES 3.1 rules 2, 4, 5; ladders RULES 6.4)."""
    code = np.arange(1 << 14)
    mo, mc, cf = code & 15, (code >> 4) & 15, (code >> 8) & 15
    adj, goaladj = (code >> 12) & 1, (code >> 13) & 1
    fit = np.zeros((N_VARIANTS, 1 << 14), dtype=bool)
    for v in VARIANTS:
        o = v.openings
        match = ((o & mc) == 0) & ((o & mo) == mo) & (adj == 1)
        if ALL_KINDS[v.kind].is_ladder:
            fit[v.index] = match & (goaladj == 0)  # RULES 6.4: exempt from 3.1.5
        else:
            fit[v.index] = match & ((o & cf) != 0)  # RULES 3.1.5: connection to the start
    return fit


FIT = _build_fit_table()


def _build_neighbour_lut() -> npt.NDArray[np.int32]:
    """``LUT[b, state]``: bits a neighbour across side ``b`` adds to a cell's code, for the
    neighbour's 10-bit state ``opn | conn << 4 | faceup << 8 | occupied << 9``."""
    st = np.arange(1 << 10)
    opn, conn, faceup, occ = st & 15, (st >> 4) & 15, (st >> 8) & 1, (st >> 9) & 1
    lut = np.zeros((4, 1 << 10), dtype=np.int32)
    for b in range(4):
        f = FACING[b]
        has = (opn & f) != 0
        lut[b] = (
            (has.astype(np.int32) << b)
            | ((faceup & ~has).astype(np.int32) << (4 + b))
            | (((conn & f) != 0).astype(np.int32) << (8 + b))
            | (occ << 12)
        )
    return lut


_NEIGHBOUR_LUT = _build_neighbour_lut()
#: (window, goal cells) -> goal-adjacency bits of the codes (see ``Board._goal_adjacent``)
_GOAL_ADJ_CACHE: dict[
    tuple[tuple[int, int, int, int], tuple[tuple[int, int], ...]], npt.NDArray[np.int32]
] = {}
#: code of an occupied cell: must_open = must_close = 15, which no card satisfies.
OCCUPIED_CODE = 15 | (15 << 4)
#: window -> (var, opn, reached, conn) of a new round's maze: the start card connected and the
#: goals face down (what ``Board.__init__`` lays), kept to be copied
_EMPTY_MAZE: dict[tuple[int, int, int, int], tuple[npt.NDArray[Any], ...]] = {}


def code_tables(
    window: tuple[int, int, int, int],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """The two tables :meth:`Board.codes` builds a cell's neighbourhood code from, for other
    implementations of it (the batched engine's kernels): ``LUT`` int32 ``(4, 1024)``, the
    bits a neighbour across side ``b`` adds for its 10-bit state ``opn | conn << 4 |
    faceup << 8 | occupied << 9``, and the goal-adjacency bits, int32 ``(H + 2, W + 2)``
    over the window and its ring (row = padded row - 1)."""
    return _NEIGHBOUR_LUT, Board(window)._goal_adjacent()


class Board:
    """The maze of one round.

    Attributes (all numpy, shape ``(H + 4, W + 4)``, row = ``y - y_min + 2``,
    col = ``x - x_min + 2``):
        var: int16, variant id of a face-up card, ``EMPTY`` (-1) or ``HIDDEN_GOAL`` (-2).
        opn: uint8, 4-bit openings of face-up cards (0 elsewhere).
        reached: uint8, bit ``i`` set when segment ``i`` of the card is connected to a root.
        conn: uint8, openings that lead back to a root through the card's own tunnel (RULES 4.1):
            the openings of reached segments that are not stubs.
    Also ``goal_identity`` (int8, (3,)): GOAL_GOLD / GOAL_STONE_A / GOAL_STONE_B per goal slot
    (top, middle, bottom), ``goal_revealed`` (bool, (3,)), and ``version``, bumped on change.
    """

    __slots__ = (
        "window",
        "H",
        "W",
        "var",
        "opn",
        "reached",
        "conn",
        "goal_identity",
        "goal_revealed",
        "version",
        "_codes",
        "_codes_version",
        "_window_codes",
        "_goal_rc",
        "uid",
        "_removable",
    )

    window: tuple[int, int, int, int]
    H: int
    W: int
    var: npt.NDArray[np.int16]
    opn: npt.NDArray[np.uint8]
    reached: npt.NDArray[np.uint8]
    conn: npt.NDArray[np.uint8]
    goal_identity: npt.NDArray[np.int8]
    goal_revealed: npt.NDArray[np.bool_]
    version: int
    uid: int
    #: (version, removable cells, their count) of :meth:`removable`; version -1: not computed
    _removable: tuple[int, npt.NDArray[np.bool_] | None, int]
    _codes: npt.NDArray[np.int32] | None
    _codes_version: int
    #: :meth:`window_codes` of ``_codes`` (computed with it)
    _window_codes: npt.NDArray[np.int32] | None
    _goal_rc: tuple[tuple[int, int], ...]

    def __init__(
        self, window: tuple[int, int, int, int], goal_identity: npt.ArrayLike = (0, 1, 2)
    ) -> None:
        x0, x1, y0, y1 = window
        self.window = window
        self.W = x1 - x0 + 1
        self.H = y1 - y0 + 1
        shape = (self.H + 2 * _PAD, self.W + 2 * _PAD)
        self.var = np.full(shape, EMPTY, dtype=np.int16)
        self.opn = np.zeros(shape, dtype=np.uint8)
        self.reached = np.zeros(shape, dtype=np.uint8)
        self.conn = np.zeros(shape, dtype=np.uint8)
        self.goal_identity = np.array(goal_identity, dtype=np.int8)
        self.goal_revealed = np.zeros(3, dtype=bool)
        self.version = 0
        self.uid = next(_UIDS)
        self._removable = (-1, None, 0)
        self._codes = self._window_codes = None
        self._codes_version = -1
        self._goal_rc = tuple(self.rc(x, y) for x, y in GOAL_CELLS)
        empty = _EMPTY_MAZE.get(window)
        if empty is None:
            r, c = self.rc(*START_CELL)
            self.var[r, c] = VARIANT_OF[(START_KIND, False)]
            self.opn[r, c] = VARIANTS[self.var[r, c]].openings
            for r, c in self._goal_rc:
                self.var[r, c] = HIDDEN_GOAL
            self._propagate([(*self.rc(*START_CELL), 0)])
            _EMPTY_MAZE[window] = tuple(
                a.copy() for a in (self.var, self.opn, self.reached, self.conn)
            )
        else:  # the same start and face-down goals every round: copied
            self.var[:], self.opn[:], self.reached[:], self.conn[:] = empty

    # --- coordinates -------------------------------------------------------------------
    def rc(self, x: int, y: int) -> tuple[int, int]:
        """Array index (row, col) of game cell (x, y)."""
        return y - self.window[2] + _PAD, x - self.window[0] + _PAD

    def xy(self, r: int, c: int) -> tuple[int, int]:
        """Game cell (x, y) of array index (row, col)."""
        return c - _PAD + self.window[0], r - _PAD + self.window[2]

    def in_window(self, x: int, y: int) -> bool:
        x0, x1, y0, y1 = self.window
        return x0 <= x <= x1 and y0 <= y <= y1

    def copy(self) -> Board:
        """An independent copy (numpy arrays copied; caches shared until the next change)."""
        b = Board.__new__(Board)
        b.window, b.H, b.W = self.window, self.H, self.W
        b.var, b.opn = self.var.copy(), self.opn.copy()
        b.reached, b.conn = self.reached.copy(), self.conn.copy()
        b.goal_identity = self.goal_identity.copy()
        b.goal_revealed = self.goal_revealed.copy()
        b.version, b._codes, b._codes_version = self.version, self._codes, self._codes_version
        b._window_codes = self._window_codes
        b._goal_rc = self._goal_rc
        b._removable = self._removable
        b.uid = next(_UIDS)
        return b

    def __getstate__(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self.uid = next(_UIDS)
        self._codes, self._window_codes, self._codes_version = None, None, -1  # a cache

    # --- connectivity (RULES 4.1) ------------------------------------------------------
    def _propagate(self, seeds: list[tuple[int, int, int]]) -> None:
        """Mark segments reachable from ``seeds`` ((row, col, segment) already connected)."""
        var, reached, conn = self.var, self.reached, self.conn
        stack = list(seeds)
        while stack:
            r, c, s = stack.pop()
            bit = 1 << s
            if reached[r, c] & bit:
                continue
            reached[r, c] |= bit
            v = VARIANTS[var[r, c]]
            seg = v.segments[s]
            if not v.stub[s]:
                conn[r, c] |= seg & 15
            for b in range(4):
                if not seg & (1 << b):
                    continue
                dx, dy = SIDE_DELTA[b]
                nr, nc = r + dy, c + dx
                nv = var[nr, nc]
                if nv < 0:
                    continue
                t = VARIANTS[nv].seg_of_side[(b + 2) & 3]
                if t >= 0 and not reached[nr, nc] & (1 << t):
                    stack.append((nr, nc, t))

    def _roots(self) -> list[tuple[int, int, int]]:
        """The start segment and every ladder segment (RULES 4.1, 6.4)."""
        seeds = [(*self.rc(*START_CELL), 0)]
        rows, cols = np.nonzero(self.var >= 0)
        for r, c in zip(rows.tolist(), cols.tolist()):
            v = VARIANTS[self.var[r, c]]
            for i, seg in enumerate(v.segments):
                if seg & 16 and ALL_KINDS[v.kind].category == "path":
                    seeds.append((r, c, i))
        return seeds

    def recompute_connectivity(self) -> None:
        """Recompute ``reached`` and ``conn`` from scratch (after a rockfall, RULES 3.4)."""
        self.reached[:] = 0
        self.conn[:] = 0
        self._propagate(self._roots())

    # --- legality (RULES 3.1) ----------------------------------------------------------
    def codes(self, fresh: bool = False) -> npt.NDArray[np.int32]:
        """Neighbourhood codes of the window plus its ring, int32, shape ``(H + 2, W + 2)``.

        Bits 0-3 must_open, 4-7 must_close, 8-11 connected_facing, 12 adjacent to a card,
        13 adjacent to a goal cell; occupied cells get ``OCCUPIED_CODE``.  Cached per version;
        ``fresh=True`` computes them anew and leaves the cache as it is (the reference legal
        sets check the cache with it).
        """
        if not fresh and self._codes_version == self.version and self._codes is not None:
            return self._codes
        var = self.var
        # one 10-bit state per cell (openings, connected openings, face up, occupied); the
        # contribution of a neighbour to a cell's code is a table look-up per side
        st = self.opn.astype(np.int32)
        st |= self.conn.astype(np.int32) << 4
        st |= (var >= 0).astype(np.int32) << 8
        occ = var != EMPTY
        st |= occ.astype(np.int32) << 9
        H, W = self.H + 2, self.W + 2
        code: npt.NDArray[np.int32] = _NEIGHBOUR_LUT[0][st[0:H, 1 : 1 + W]]
        code |= _NEIGHBOUR_LUT[1][st[1 : 1 + H, 2 : 2 + W]]
        code |= _NEIGHBOUR_LUT[2][st[2 : 2 + H, 1 : 1 + W]]
        code |= _NEIGHBOUR_LUT[3][st[1 : 1 + H, 0:W]]
        code |= self._goal_adjacent()
        code[occ[1:-1, 1:-1]] = OCCUPIED_CODE
        if fresh:
            return code
        self._codes = code
        self._window_codes = code[1:-1, 1:-1].ravel()
        self._window_codes.flags.writeable = False
        self._codes_version = self.version
        return code

    def touches_goal(self, x: int, y: int) -> bool:
        """Whether cell (x, y) of the window touches a goal cell orthogonally (the bit of its
        neighbourhood code that keeps a ladder off it, RULES 6.4).

        Raises:
            ValueError: (x, y) lies outside the board window.
        """
        if not self.in_window(x, y):
            raise ValueError(f"cell ({x}, {y}) lies outside the board window {self.window}")
        r, c = self.rc(x, y)
        return bool(self._goal_adjacent()[r - 1, c - 1] >> 13 & 1)

    def _goal_adjacent(self) -> npt.NDArray[np.int32]:
        key = (self.window, self._goal_rc)
        a = _GOAL_ADJ_CACHE.get(key)
        if a is None:
            a = np.zeros((self.H + 2, self.W + 2), dtype=np.int32)
            for gr, gc in self._goal_rc:
                for dx, dy in SIDE_DELTA:
                    a[gr + dy - 1, gc + dx - 1] |= 1 << 13
            _GOAL_ADJ_CACHE[key] = a
        return a

    def window_codes(self, fresh: bool = False) -> npt.NDArray[np.int32]:
        """Codes of the window cells in codec order, int32, shape ``(H * W,)``; cached per
        version (read-only); ``fresh=True``: computed anew, the cache untouched."""
        if fresh:
            return self.codes(fresh=True)[1:-1, 1:-1].ravel()
        self.codes()
        assert self._window_codes is not None
        return self._window_codes

    def overflow(self, variants: npt.ArrayLike) -> bool:
        """True when some variant in ``variants`` would fit a cell just outside the window."""
        code = self.codes()
        ring = np.concatenate([code[0], code[-1], code[1:-1, 0], code[1:-1, -1]])
        return bool(FIT[np.asarray(variants, dtype=np.int64)][:, ring].any())

    # --- changes -----------------------------------------------------------------------
    def set_card(self, variant: int, x: int, y: int) -> None:
        """Lay a face-up card at (x, y) without connecting it (building a position by hand;
        call :meth:`recompute_connectivity` once all cards lie)."""
        r, c = self.rc(x, y)
        self.var[r, c] = variant
        self.opn[r, c] = VARIANTS[variant].openings
        self.version += 1

    def reveal_goal(self, slot: int, variant: int) -> None:
        """Turn goal ``slot`` face up as ``variant`` (building a position by hand)."""
        r, c = self._goal_rc[slot]
        self.var[r, c] = variant
        self.opn[r, c] = VARIANTS[variant].openings
        self.goal_revealed[slot] = True
        self.version += 1

    def place(self, variant: int, x: int, y: int) -> list[tuple[int, int, bool]]:
        """Put a face-up card at (x, y) and turn over every goal it connects (RULES 3.1, 4.2).

        Legality is not checked here (the place family decides it with ``FIT``).

        Returns:
            ``[(goal slot, goal identity, rotated), ...]`` for each goal turned over, in slot
            order within each wave of reveals.
        """
        r, c = self.rc(x, y)
        v = VARIANTS[variant]
        self.var[r, c] = variant
        self.opn[r, c] = v.openings
        self.version += 1
        seeds = []
        for b in range(4):
            if v.openings & (1 << b):
                dx, dy = SIDE_DELTA[b]
                if self.conn[r + dy, c + dx] & FACING[b]:
                    seeds.append((r, c, v.seg_of_side[b]))
        if any(s & 16 for s in v.segments) and ALL_KINDS[v.kind].category == "path":
            seeds.extend((r, c, i) for i, s in enumerate(v.segments) if s & 16)
        self._propagate(seeds)
        return self._reveal_reached_goals()

    def _reveal_reached_goals(self) -> list[tuple[int, int, bool]]:
        """Turn over hidden goals faced by a connected opening, repeatedly (RULES 4.2)."""
        out: list[tuple[int, int, bool]] = []
        while True:
            wave: list[tuple[int, int, int, int]] = []
            for slot, (r, c) in enumerate(self._goal_rc):
                if self.goal_revealed[slot]:
                    continue
                sides = 0
                for b in range(4):
                    dx, dy = SIDE_DELTA[b]
                    if self.conn[r + dy, c + dx] & FACING[b]:
                        sides |= 1 << b
                if sides:
                    wave.append((slot, r, c, sides))
            if not wave:
                return out
            for slot, r, c, sides in wave:
                ident = int(self.goal_identity[slot])
                rotated = self._goal_orientation(ident, r, c, sides)
                variant = VARIANT_OF[(GOAL_KINDS[ident], rotated)]
                v = VARIANTS[variant]
                self.var[r, c] = variant
                self.opn[r, c] = v.openings
                self.goal_revealed[slot] = True
                out.append((slot, ident, VARIANTS[variant].rotated))
            self.version += 1
            seeds = []
            for _slot, r, c, sides in wave:
                v = VARIANTS[self.var[r, c]]
                for b in range(4):
                    if sides & (1 << b) and v.openings & (1 << b):
                        seeds.append((r, c, v.seg_of_side[b]))
            self._propagate(seeds)

    def _goal_orientation(self, ident: int, r: int, c: int, sides: int) -> bool:
        """RULES 4.2 orientation ruling: open towards a reaching side; if both orientations
        do, fewest mismatched edges, then 0 degrees.  Returns ``rotated``."""
        if ident == GOAL_GOLD:
            return False
        k = GOAL_KINDS[ident]
        cands = []
        for rotated in (False, True):
            v = VARIANTS[VARIANT_OF[(k, rotated)]]
            if not v.openings & sides:
                continue
            mism = 0
            for b in range(4):
                dx, dy = SIDE_DELTA[b]
                nv = self.var[r + dy, c + dx]
                if nv >= 0:
                    has = bool(self.opn[r + dy, c + dx] & FACING[b])
                    mism += has != bool(v.openings & (1 << b))
            cands.append((mism, rotated))
        return min(cands)[1]

    def remove(self, x: int, y: int) -> int:
        """Rockfall: remove the path card at (x, y) and recompute connectivity (RULES 3.4).

        Returns the removed variant id.  Legality is not checked here.
        """
        r, c = self.rc(x, y)
        variant = int(self.var[r, c])
        self.var[r, c] = EMPTY
        self.opn[r, c] = 0
        self.version += 1
        self.recompute_connectivity()
        return variant

    def removable(self) -> npt.NDArray[np.bool_]:
        """Bool ``(H * W,)``: window cells holding a tunnel card that a rockfall may remove
        (not the start, not a goal; RULES 3.4).  Cached per version: do not modify."""
        cached = self._removable[1]
        if self._removable[0] == self.version and cached is not None:
            return cached
        var = self.var[_PAD:-_PAD, _PAD:-_PAD]
        out = var >= 0
        r, c = self.rc(*START_CELL)
        out[r - _PAD, c - _PAD] = False
        for gr, gc in self._goal_rc:
            out[gr - _PAD, gc - _PAD] = False
        out = out.ravel()
        out.flags.writeable = False  # cached and shared: legal sets copy it
        self._removable = (self.version, out, int(np.count_nonzero(out)))
        return out

    # --- Saboteur 2 queries (RULES 6.4, 6.9) ----------------------------------------------
    def gold_reachable(self, blocked_door: int = 0) -> bool:
        """Whether a route leads from a root (start or any ladder) to the face-up gold goal
        without passing a door of colour ``blocked_door`` (1 green, 2 blue; 0: no door blocks).

        Doors sit on a card's through tunnels (RULES 6.3): every non-stub segment of a door
        card of that colour is impassable.  Used only for the door evaluation at round end
        (RULES 6.9); doors never restrict placement or revealing (RULES 6.4).
        """
        from .cards import GOAL_KINDS, VARIANT_DOOR

        gold = [
            rc
            for slot, rc in enumerate(self._goal_rc)
            if self.goal_revealed[slot] and int(self.goal_identity[slot]) == GOAL_GOLD
        ]
        if not gold:
            return False
        gr, gc = gold[0]
        assert VARIANTS[self.var[gr, gc]].kind == GOAL_KINDS[GOAL_GOLD]
        var = self.var
        seen: set[tuple[int, int, int]] = set()
        stack = self._roots()
        while stack:
            r, c, s = stack.pop()
            if (r, c, s) in seen:
                continue
            v = VARIANTS[var[r, c]]
            if blocked_door and VARIANT_DOOR[v.index] == blocked_door and not v.stub[s]:
                continue
            seen.add((r, c, s))
            if (r, c) == (gr, gc):
                return True
            seg = v.segments[s]
            for b in range(4):
                if not seg & (1 << b):
                    continue
                dx, dy = SIDE_DELTA[b]
                nr, nc = r + dy, c + dx
                nv = var[nr, nc]
                if nv < 0:
                    continue
                t = VARIANTS[nv].seg_of_side[(b + 2) & 3]
                if t >= 0:
                    stack.append((nr, nc, t))
        return False

    def crystals(self) -> int:
        """Crystals on face-up cards anywhere in the maze, connected or not (RULES 6.9, 7.30)."""
        from .cards import VARIANT_CRYSTALS

        var = self.var
        return int(VARIANT_CRYSTALS[var[var >= 0]].sum())

    # --- queries -----------------------------------------------------------------------
    def cards(self) -> list[tuple[int, int, int]]:
        """``[(x, y, variant or HIDDEN_GOAL), ...]`` of every occupied cell, row-major."""
        rows, cols = np.nonzero(self.var != EMPTY)
        return [(*self.xy(r, c), int(self.var[r, c])) for r, c in zip(rows.tolist(), cols.tolist())]

    def variant_at(self, x: int, y: int) -> int:
        """Variant id at (x, y), ``EMPTY`` or ``HIDDEN_GOAL``."""
        r, c = self.rc(x, y)
        if not (0 <= r < self.var.shape[0] and 0 <= c < self.var.shape[1]):
            return EMPTY
        return int(self.var[r, c])

    def connected_openings(self, x: int, y: int) -> int:
        """4-bit mask of the card's openings that lead back to a root (RULES 4.1)."""
        r, c = self.rc(x, y)
        return int(self.conn[r, c])

    def path_cards_on_board(self) -> int:
        """Number of tunnel cards in the maze (not start, not goals)."""
        self.removable()
        return self._removable[2]
