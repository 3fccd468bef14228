"""What one seat may see, as one flat float32 tensor with named views (DESIGN 4).

The spec is data: :data:`BOARD_CHANNELS` names every channel of the ``board`` view and
:meth:`ObservationEncoder.spec` lists every view with its shape and meaning.  Every per-player
row is indexed by the seat *relative to the observer* (0 = observer, 1 = next clockwise, ...),
padded to the largest player count.

What a seat sees (DESIGN 4, RULES 3.6, 5.3): the maze and revealed goals, every player's broken
tools and hand size, the draw-pile and discard-pile sizes, the round, the public history of this
round (who placed, broke, repaired, caused a rockfall, used a map, discarded, on whom and where);
privately its own role, hand, map results and gold.  Never: other players' roles, hands or gold,
unmapped goals, the order of the draw pile, the kinds of discarded cards, the set-aside dwarf
card.

The spectator (DESIGN 8, ``encode(game, "spectator")``, the env's ``state()``): the observation
of seat 0 (whose relative seats are the absolute seats) followed by the *hidden block*
(:data:`HIDDEN_VIEWS`, absolute seats, padded to the largest player count): every seat's hand,
current role, gold and goal knowledge, every goal's identity, the draw pile, discard pile and
(base game) gold-nugget supply by kind, and in Saboteur 2 the dwarf cards aside and the cards
removed unseen.  It still leaves out the order of the draw pile and of the nugget supply.

Bounds (the Box of every view) are honest: ``gold`` is bounded by the base game's nugget supply
(44, RULES 1.4) or, in Saboteur 2 where gold is a count (RULES 6.6, 6.9), by ``num_rounds``
times the largest one-round gain (the largest payout, 5 or the crystals of the deck, plus 1 stolen).

Restated (base game and Saboteur 2) by the batched engine's compiled kernels
(``saboteur_env/vector/kernels.py``), which ``tests/test_vector.py`` checks against this module
over whole games: a change here needs the same change there.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from types import SimpleNamespace

import numpy as np

from ..engine.board import HIDDEN_GOAL
from ..engine.cards import (
    ALL_KINDS,
    FRONT_SLOTS,
    GOAL_CELLS,
    GOAL_GOLD,
    GOAL_KINDS,
    S2_PAYOUT,
    START_CELL,
    START_KIND,
    VARIANT_CRYSTALS,
    VARIANT_DOOR,
    VARIANT_LADDER,
    VARIANTS,
    X_EFFECTS,
)
from ..engine.config import GameConfig
from ..engine.phases import Phase
from ..engine.ruleset import NUGGET_SUPPLY
from ..engine.scoring import theft_order
from ..engine.state import Game
from .history import N_RECENT, HistoryCache, RoundHistory
from .spec import (  # noqa: F401  (re-exported: the spec tables and names live in .spec)
    BOARD_CHANNELS,
    EXTRA_BOARD_CHANNELS,
    EXTRA_VIEWS,
    GAME_FEATURES,
    HISTORY_ACTOR,
    N_BOARD_CHANNELS,
    PHASE_FEATURES,
    PLAYER_FEATURES,
    PRIVATE_FEATURES,
    RECENT_TOOL_COLUMNS,
    RECENT_TYPES,
    RECENT_TYPES_OF,
    X_BOARD_CHANNELS,
    X_PLAYER_FEATURES,
    X_RECENT_TYPES,
    BoardChannel,
    GameFeature,
    HistoryColumn,
    PhaseFeature,
    PlayerFeature,
    PrivateFeature,
    RecentType,
    XPlayerFeature,
)

_JOIN_PAIRS = ((1, 4), (2, 8), (1, 2), (2, 4), (4, 8), (8, 1))


def _ints(names: type[IntEnum]) -> SimpleNamespace:
    """The members of a named index as plain ints (indexing numpy with an IntEnum member costs
    a conversion each time; the encoder runs at every step)."""
    return SimpleNamespace(**{m.name: int(m) for m in names})


_C, _P, _X, _F, _PR = (
    _ints(e) for e in (BoardChannel, PlayerFeature, XPlayerFeature, PhaseFeature, PrivateFeature)
)
_N_GAME = len(GameFeature)

#: The spectator's hidden block (DESIGN 8), after the observation of seat 0: (name, meaning) of
#: each view, rows indexed by *absolute* seat.  ``nuggets`` is the base game's only,
#: ``aside`` and ``removed`` Saboteur 2's only.
HIDDEN_VIEWS: tuple[tuple[str, str], ...] = (
    ("all_hands", "every seat's cards per card kind, (max_players, n_kinds)"),
    ("all_roles", "every seat's current role, one-hot, (max_players, n_roles)"),
    ("all_gold", "every seat's gold, (max_players,)"),
    ("all_known_goals", "goal slots each seat has seen (map or reveal), (max_players, 3)"),
    ("goals", "identity of goal slot 0/1/2: one-hot gold, stone A, stone B, (3, 3)"),
    ("deck", "the draw pile per card kind (its order is not encoded), (n_kinds,)"),
    ("discards", "the discard pile per card kind, (n_kinds,)"),
    ("nuggets", "base game: the gold-nugget supply left, cards of value 1/2/3, (3,)"),
    ("aside", "Saboteur 2: dwarf cards aside per role, (n_roles,)"),
    ("removed", "Saboteur 2: cards removed unseen this round per card kind, (n_kinds,)"),
)


def gold_bound(config: GameConfig) -> int:
    """The most gold one seat can hold in a game of ``config``: the base game's whole nugget
    supply (RULES 1.4, 5.2, 5.3), or in Saboteur 2 ``num_rounds`` times the largest one-round
    gain: the largest payout (a lone winner's 5, or a lone geologist's crystals, at most every
    crystal of the deck) plus 1 stolen (RULES 6.9)."""
    rules = config.ruleset
    if rules.nugget_cards:
        return int(NUGGET_SUPPLY.sum())
    crystals = sum(int(c) * ALL_KINDS[k].crystals for k, c in enumerate(rules.deck.tolist()))
    crystals += sum(ALL_KINDS[k].crystals for k in (*GOAL_KINDS, START_KIND))
    return config.num_rounds * (max(max(S2_PAYOUT.values()), crystals) + 1)


@dataclass(frozen=True)
class View:
    """One named view: ``flat[offset:offset + size].reshape(shape)``."""

    name: str
    shape: tuple[int, ...]
    offset: int
    low: float
    high: float
    meaning: str
    size: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", int(np.prod(self.shape)))


def _check_seat(game: Game, seat: object) -> None:
    """``seat`` must be a seat in play (an int or numpy integer, not a bool).

    Raises:
        ValueError: any other value (``-1`` read seat n-1's row; ``7`` an IndexError).
    """
    if (
        isinstance(seat, (bool, np.bool_))
        or not isinstance(seat, (int, np.integer))
        or not 0 <= seat < game.n
    ):
        raise ValueError(f"viewer {seat!r}: a seat 0..{game.n - 1} or 'spectator'")


class ObservationEncoder:
    """Encodes a :class:`~saboteur_env.engine.state.Game` from one seat's view.

    ``encode(game, seat)`` returns float32 ``(size,)``; ``views(flat)`` splits it into named
    arrays (``board`` (C, H, W), ``hand``, ``role``, ``players``, ``history``, ``tools``,
    ``recent``, ``game``, ``private``).  ``encode(game, "spectator")`` returns the full state,
    float32 ``(state_size,)`` in ``[state_low, state_high]``, laid out by :meth:`state_spec`
    (DESIGN 8); ``views`` splits it too.
    """

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        rules = self.rules = config.ruleset
        x0, x1, y0, y1 = config.board_window
        self.H, self.W = y1 - y0 + 1, x1 - x0 + 1
        mp = self.max_players = config.max_players
        self.n_kinds = rules.n_kinds
        self.recent_types = RECENT_TYPES_OF[rules.name]
        self.n_tool_cols = RECENT_TOOL_COLUMNS[rules.name]
        self.recent_width = mp + len(self.recent_types) + mp + self.n_tool_cols + 4
        self.board_channels = BOARD_CHANNELS + EXTRA_BOARD_CHANNELS[rules.name]
        self.n_channels = len(self.board_channels)
        cards = rules.n_cards
        roles = rules.roles
        defs = [
            (
                "board",
                (self.n_channels, self.H, self.W),
                0,
                1,
                "the maze, channels BOARD_CHANNELS (+ X_BOARD_CHANNELS in Saboteur 2)",
            ),
            ("hand", (self.n_kinds,), 0, cards, "own cards per card kind (cards.CARD_KINDS order)"),
            ("role", (len(roles),), 0, 1, "own current role, one-hot (" + ", ".join(roles) + ")"),
            (
                "players",
                (mp, len(PLAYER_FEATURES)),
                0,
                cards,
                "public state per relative seat, columns PLAYER_FEATURES",
            ),
            (
                "history",
                (mp, len(HISTORY_ACTOR)),
                0,
                cards,
                "this round's public actions per relative actor, columns HISTORY_ACTOR",
            ),
            (
                "tools",
                (mp, mp, 2),
                0,
                cards,
                "this round: [actor, target, 0] tools broken, [actor, target, 1] tools repaired, "
                "relative seats",
            ),
            (
                "recent",
                (N_RECENT, self.recent_width),
                -64,
                64,
                "the last 8 public actions, newest last: actor one-hot, type one-hot "
                "(RECENT_TYPES), target one-hot, tool one-hot, x, y, dead end, present",
            ),
            (
                "game",
                (len(GAME_FEATURES),),
                0,
                max(1000, config.num_rounds),
                "columns GAME_FEATURES",
            ),
            (
                "private",
                (len(PRIVATE_FEATURES),),
                0,
                max(gold_bound(config), mp - 1),
                "columns PRIVATE_FEATURES",
            ),
        ]
        extra = {
            "xplayers": (
                (mp, len(X_PLAYER_FEATURES)),
                0,
                mp,
                "Saboteur 2 public state per relative seat, columns X_PLAYER_FEATURES",
            ),
            "inspections": (
                (mp, len(roles)),
                0,
                1,
                "own Inspection results: role seen per relative seat, one-hot, as "
                "it was seen (not updated by later Swap your hats)",
            ),
            "xhistory": (
                (mp, mp, len(X_EFFECTS)),
                0,
                cards,
                "this round: [actor, target, card] Saboteur 2 action cards played "
                "(X_EFFECTS order), relative seats",
            ),
            "phase": ((len(PHASE_FEATURES),), 0, 15, "columns PHASE_FEATURES"),
        }
        defs += [(name, *extra[name]) for name in EXTRA_VIEWS[rules.name]]
        self._views: dict[str, View] = {}
        off = 0
        for name, shape, lo, hi, meaning in defs:
            v = View(name, shape, off, lo, hi, meaning)
            self._views[name] = v
            off += v.size
        self._has_x = "xplayers" in self._views
        self._gold_public = rules.public_gold_holders  # RULES 6.9: who holds gold is public
        if self._has_x:
            V = self._views
            self._x_offsets = (
                V["xplayers"].offset,
                V["inspections"].offset,
                V["xhistory"].offset,
                V["phase"].offset,
                len(X_PLAYER_FEATURES),
            )
        self.size = off
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.zeros(self.size, dtype=np.float32)
        for v in self._views.values():
            self.low[v.offset : v.offset + v.size] = v.low
            self.high[v.offset : v.offset + v.size] = v.high
        self._build_state_spec(cards)
        self._start_rc = (START_CELL[1] - y0, START_CELL[0] - x0)
        self._goal_rc = [(gy - y0, gx - x0) for gx, gy in GOAL_CELLS]
        self._through = np.array([any(not st for st in v.stub) for v in VARIANTS], dtype=np.float32)
        xf = np.zeros((len(VARIANTS), len(X_BOARD_CHANNELS)), dtype=np.float32)
        for v in VARIANTS:
            xf[v.index, 0] = VARIANT_LADDER[v.index]
            xf[v.index, 1] = VARIANT_DOOR[v.index] == 1
            xf[v.index, 2] = VARIANT_DOOR[v.index] == 2
            xf[v.index, 3] = VARIANT_CRYSTALS[v.index] > 0
            for j, (a, b) in enumerate(_JOIN_PAIRS):
                xf[v.index, 4 + j] = any((seg & a) and (seg & b) for seg in v.segments)
        self._xfeat = np.ascontiguousarray(xf.T)  # (channels, n_variants)
        self._board_cache: tuple | None = None
        self._shifts = np.arange(4, dtype=np.uint8)
        self._rel: dict = {}
        self._history = HistoryCache()
        self._build_fast_tables()

    def _build_fast_tables(self) -> None:
        """Look-up tables and caches of :meth:`encode` (the fast path; :meth:`encode_reference`
        is the plain one it must equal)."""
        C = _C
        nv = len(VARIANTS)
        # board channels OPEN_N..CONN_W (0-7) from one byte per cell: openings | conn << 4
        byte = np.arange(256)
        self._lut_oc = ((byte[None, :] >> np.arange(8)[:, None]) & 1).astype(np.float32)
        # channels THROUGH, OCCUPIED and Saboteur 2's from the variant id + 2 (HIDDEN_GOAL -2,
        # EMPTY -1, then the variants); GOAL_* and START are set per cell
        lv = np.zeros((self.n_channels - C.THROUGH, nv + 2), dtype=np.float32)
        lv[C.THROUGH - C.THROUGH, 2:] = self._through
        lv[C.OCCUPIED - C.THROUGH, :] = 1
        lv[C.OCCUPIED - C.THROUGH, 1] = 0  # EMPTY
        if self.n_channels > N_BOARD_CHANNELS:
            lv[N_BOARD_CHANNELS - C.THROUGH :, 2:] = self._xfeat
        # the rows that are not all zero: THROUGH, OCCUPIED (GOAL_HIDDEN is set per goal
        # cell, the start by its cell) and Saboteur 2's channels
        self._lut_through = np.ascontiguousarray(lv[: C.OCCUPIED - C.THROUGH + 1])
        self._lut_x = np.ascontiguousarray(lv[N_BOARD_CHANNELS - C.THROUGH :])
        V = self._views
        self._board_size = V["board"].size
        hw = self.H * self.W
        self._goal_flat = [
            (
                C.GOAL_GOLD_REVEALED * hw + r * self.W + c,
                C.GOAL_STONE_REVEALED * hw + r * self.W + c,
                C.KNOWN_GOLD * hw + r * self.W + c,
                C.KNOWN_STONE * hw + r * self.W + c,
            )
            for r, c in self._goal_rc
        ]
        self._goal_index = tuple(np.array(self._goal_rc).T)
        self._goal_hidden_flat = [C.GOAL_HIDDEN * hw + r * self.W + c for r, c in self._goal_rc]
        self._start_flat = C.START * hw + self._start_rc[0] * self.W + self._start_rc[1]
        self._last_placed_flat = C.LAST_PLACED * hw
        #: board uid -> (version, n, float32 (size,)): _fast_template, the latest
        #: ``_cache_games`` boards
        self._template: dict = {}
        #: round stamp -> (actions added, float32 (N_RECENT, recent_width)): _recent_ring
        self._recent_cache: dict = {}
        self._cache_games = 1
        self._recent_rows: dict = {}  # RoundHistory.recent entry -> its row, absolute seats
        self._recent_idx: dict = {}  # (n, seat, oldest ring row) -> take index of `recent`
        self._scatter: dict = {}  # (n, seat) -> index arrays of the fast path

    #: caches keyed by board uids and history stamps, which count afresh in another process:
    #: never pickled (an unpickled encoder starts with empty caches)
    _CACHES = ("_board_cache", "_template", "_recent_cache")

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self._CACHES}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._board_cache = None
        self._template, self._recent_cache = {}, {}

    def cache_games(self, k: int) -> None:
        """Keep the fast path's caches (public board template, ``recent`` rows, round
        histories) for the ``k`` games encoded last instead of one (e.g. ``k`` games stepped
        in turn by :class:`saboteur_env.vector.VectorGame`; each game costs about one
        observation's size).  The observations are the same either way.

        Raises:
            ValueError: ``k`` < 1.
        """
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"cache_games({k!r}): a positive int")
        self._cache_games = k
        self._history.size = max(self._history.size, k)

    def _remember(self, cache: dict, key, value) -> None:
        """``cache[key] = value``, dropping the oldest entries beyond ``_cache_games``."""
        cache.pop(key, None)
        cache[key] = value
        while len(cache) > self._cache_games:
            del cache[next(iter(cache))]

    def _fast_template(self, game: Game) -> np.ndarray:
        """float32 ``(size,)``: the public board channels, ``PRESENT`` of the ``n`` seats in
        play, zeros elsewhere; cached per board version (do not modify)."""
        b, n = game.board, game.n
        t = self._template.get(b.uid)
        if t is not None and t[0] == b.version and t[1] == n:
            return t[2]  # type: ignore[no-any-return]
        o = np.zeros(self.size, dtype=np.float32)
        planes = o[: self._board_size].reshape(self.n_channels, self.H, self.W)
        C = _C
        var = b.var[2:-2, 2:-2]
        byte = b.opn[2:-2, 2:-2] | (b.conn[2:-2, 2:-2] << 4)
        np.take(self._lut_oc, byte, axis=1, out=planes[: C.THROUGH], mode="clip")
        vi = var + 2
        np.take(self._lut_through, vi, axis=1, out=planes[C.THROUGH : C.OCCUPIED + 1], mode="clip")
        if self.n_channels > N_BOARD_CHANNELS:
            np.take(self._lut_x, vi, axis=1, out=planes[N_BOARD_CHANNELS:], mode="clip")
        o[self._start_flat] = 1
        hidden = var[self._goal_index].tolist()
        ident = b.goal_identity.tolist()
        for slot, (gold_i, stone_i, _, _) in enumerate(self._goal_flat):
            if hidden[slot] == HIDDEN_GOAL:
                o[self._goal_hidden_flat[slot]] = 1
            else:
                o[gold_i if ident[slot] == GOAL_GOLD else stone_i] = 1
        pv = self._views["players"]
        o[pv.offset + _P.PRESENT : pv.offset + n * pv.shape[1] : pv.shape[1]] = 1
        o.flags.writeable = False
        self._remember(self._template, b.uid, (b.version, n, o))
        return o

    def _scatter_of(self, n: int, seat: int) -> tuple:
        """Index arrays of the fast path for ``n`` players seen from ``seat``: where each
        absolute-seat value lands in the flat observation."""
        key = (n, seat)
        got = self._scatter.get(key)
        if got is not None:
            return got  # type: ignore[no-any-return]
        V, mp, P = self._views, self.max_players, _P
        relpos = (np.arange(n) - seat) % n  # absolute seat -> relative row
        pw = V["players"].shape[1]
        hw = V["history"].shape[1]
        parts = [
            V["hand"].offset + np.arange(self.n_kinds),
            (
                V["players"].offset
                + relpos[:, None] * pw
                + P.BROKEN_PICK
                + np.arange(P.BROKEN_CART - P.BROKEN_PICK + 1)[None, :]
            ).ravel(),
            V["players"].offset + relpos * pw + P.HAND_SIZE,
            (V["history"].offset + relpos[:, None] * hw + np.arange(hw)[None, :]).ravel(),
            (
                V["tools"].offset
                + (relpos[:, None, None] * mp + relpos[None, :, None]) * 2
                + np.arange(2)[None, None, :]
            ).ravel(),
        ]
        if self._has_x:
            X = _X
            xp_off, _, xh_off, _, ncol = self._x_offsets
            ne = len(X_EFFECTS)
            parts += [
                (xp_off + relpos[:, None] * ncol + X.TRAPPED + np.arange(2)[None, :]).ravel(),
                (
                    xh_off
                    + (relpos[:, None, None] * mp + relpos[None, :, None]) * ne
                    + np.arange(ne)[None, None, :]
                ).ravel(),
            ]
            if self._gold_public:
                parts.append(xp_off + relpos * ncol + X.HAS_GOLD)
        index = np.concatenate(parts).astype(np.intp)
        nt = len(self.recent_types)
        perm = np.arange(self.recent_width)
        rel = (seat + np.arange(n)) % n
        perm[:n] = rel
        perm[mp + nt : mp + nt + n] = mp + nt + rel
        got = (index, perm)
        self._scatter[key] = got
        return got

    def _recent_row(self, entry: tuple) -> np.ndarray:
        """float32 ``(recent_width,)``: one ``recent`` row of ``entry`` (a
        :attr:`RoundHistory.recent` tuple) with *absolute* actor and target seats; cached
        (do not modify)."""
        row = self._recent_rows.get(entry)
        if row is not None:
            return row  # type: ignore[no-any-return]
        actor, typ, target, x, y, tool, dead = entry
        mp, nt, tc = self.max_players, len(self.recent_types), self.n_tool_cols
        row = np.zeros(self.recent_width, dtype=np.float32)
        row[actor] = 1
        row[mp + typ] = 1
        if target >= 0:
            row[mp + nt + target] = 1
        if tool >= 0:
            row[2 * mp + nt + tool] = 1
        row[2 * mp + nt + tc : 2 * mp + nt + tc + 4] = (x, y, dead, 1)
        if len(self._recent_rows) >= 50_000:
            self._recent_rows.clear()
        self._recent_rows[entry] = row
        return row

    def _recent_ring(self, hist: RoundHistory) -> np.ndarray:
        """float32 ``(N_RECENT, recent_width)``: the rows of ``hist.recent`` (absolute seats),
        the action added as number ``i`` of the round in row ``i % N_RECENT``, rows of no
        action zero.  Kept per round (``round_stamp``) and brought up to date by writing only
        the rows added since the last call."""
        c = self._recent_cache.get(hist.round_stamp)
        recent = hist.recent
        if c is not None and c[0] <= hist.added:
            ring = c[1]
            new = min(hist.added - c[0], len(recent))
        else:
            ring = np.zeros((N_RECENT, self.recent_width), dtype=np.float32)
            new = len(recent)
        k, added = len(recent), hist.added
        for j in range(k - new, k):
            ring[(added - k + j) % N_RECENT] = self._recent_row(recent[j])
        self._remember(self._recent_cache, hist.round_stamp, (added, ring))
        return ring

    def _recent_index(self, n: int, seat: int, head: int) -> np.ndarray:
        """intp ``(N_RECENT * recent_width,)``: where each value of the observer's ``recent``
        view lies in the raveled ring of :meth:`_recent_ring` whose oldest row is ``head``
        (rows in age order, seats relative to ``seat``)."""
        key = (n, seat, head)
        got = self._recent_idx.get(key)
        if got is None:
            _, perm = self._scatter.get((n, seat)) or self._scatter_of(n, seat)
            rows = (head + np.arange(N_RECENT)) % N_RECENT
            got = (rows[:, None] * self.recent_width + perm[None, :]).ravel().astype(np.intp)
            self._recent_idx[key] = got
        return got  # type: ignore[no-any-return]

    def _encode_fast(self, game: Game, seat: int, out: np.ndarray | None) -> np.ndarray:
        """:meth:`encode` of a seat: cached public parts, one scatter of the per-seat counts,
        no loop over cells or players (equal to :meth:`encode_reference`, tested)."""
        template = self._fast_template(game)
        if out is None:
            o = template.copy()
        else:
            o = out
            o[:] = template
        n, V = game.n, self._views
        hist = self._history.get(game.events, n)
        index, _ = self._scatter.get((n, seat)) or self._scatter_of(n, seat)
        counts = (
            game.hands[seat, : self.n_kinds],
            game.broken.ravel(),
            game.hands.sum(axis=1),
            hist.actor_counts.ravel(),
            hist.tool_counts.ravel(),
        )
        if self._has_x:
            counts += (game.xfront.ravel(), hist.xcounts.ravel())
            if self._gold_public:
                counts += (game.gold > 0,)
        o[index] = np.concatenate(counts)
        kg = game.known_goals[seat].tolist()
        if True in kg:
            ident = game.board.goal_identity.tolist()
            for slot, known in enumerate(kg):
                if known:
                    _, _, gold_i, stone_i = self._goal_flat[slot]
                    o[gold_i if ident[slot] == GOAL_GOLD else stone_i] = 1
        if hist.last_placed is not None:
            x, y = hist.last_placed
            x0, _, y0, _ = self.config.board_window
            o[self._last_placed_flat + (y - y0) * self.W + (x - x0)] = 1
        pv = V["players"]
        pw = pv.shape[1]
        o[V["role"].offset + int(game.roles[seat])] = 1
        o[pv.offset + ((game.last_card_seat - seat) % n) * pw + _P.LAST_CARD] = 1
        o[pv.offset + ((game.first_player - seat) % n) * pw + _P.FIRST_PLAYER] = 1
        if not game.game_over:
            o[pv.offset + ((game.current - seat) % n) * pw + _P.TO_ACT] = 1
        if hist.recent:
            rv = V["recent"]
            ring = self._recent_ring(hist)
            idx = self._recent_idx.get((n, seat, hist.added % N_RECENT))
            if idx is None:
                idx = self._recent_index(n, seat, hist.added % N_RECENT)
            ring.take(idx, out=o[rv.offset : rv.offset + rv.size])
        self._write_game_and_private(game, seat, o)
        if self._has_x:
            self._encode_s2_fast(game, seat, o)
        return o

    def _write_game_and_private(self, game: Game, seat: int, o: np.ndarray) -> None:
        """The ``game`` view (round, rounds, draw pile, discards, turn, players, path cards on
        the board) and the ``private`` view's gold and seat of ``seat``, into ``o`` (both
        encode paths: these few values are the same computation)."""
        V = self._views
        gv = V["game"].offset
        o[gv : gv + _N_GAME] = (
            game.round,
            game.config.num_rounds,
            len(game.deck),
            sum(game.discards.tolist()),  # a short array: cheaper than numpy's reduction
            game.turn,
            game.n,
            game.board.path_cards_on_board(),
        )
        pv = V["private"].offset
        o[pv + _PR.GOLD] = game.gold[seat]
        o[pv + _PR.SEAT] = seat

    def _encode_s2_fast(self, game: Game, seat: int, o: np.ndarray) -> None:
        """What :meth:`_encode_s2` adds beyond the scatter of :meth:`_encode_fast` (the
        Trapped!/Theft cards, ``has_gold`` and ``xhistory`` went in with it)."""
        n = game.n
        X, F = _X, _F
        xp_off, ins_off, _, ph, ncol = self._x_offsets
        thefts = game.xfront[:, 1].tolist()
        if True in thefts:
            order = theft_order(game.theft_turn.tolist(), thefts, game.xfront[:, 0].tolist())
            for i, s in enumerate(order):
                o[xp_off + ((s - seat) % n) * ncol + X.THEFT_ORDER] = i + 1
        seen_row = game.inspected[seat].tolist()
        if max(seen_row) >= 0:
            nr = self.rules.n_roles
            for target, role in enumerate(seen_row):
                if role >= 0:
                    o[ins_off + ((target - seat) % n) * nr + role] = 1
        o[ph + getattr(F, game.phase.name)] = 1
        o[ph + F.COUNT] = game.phase_count
        if game.phase_slot >= 0:
            o[ph + F.REMOVE_PICK + game.phase_slot] = 1
        o[ph + F.DWARF_ASIDE] = len(game.set_aside)
        o[ph + F.REMOVED] = game.removed.sum()

    def _build_state_spec(self, cards: int) -> None:
        """The spectator's views: the observation's, then the hidden block (HIDDEN_VIEWS)."""
        mp, nk, nr = self.max_players, self.n_kinds, self.rules.n_roles
        shapes = {
            "all_hands": ((mp, nk), cards),
            "all_roles": ((mp, nr), 1),
            "all_gold": ((mp,), gold_bound(self.config)),
            "all_known_goals": ((mp, 3), 1),
            "goals": ((3, 3), 1),
            "deck": ((nk,), cards),
            "discards": ((nk,), cards),
            "nuggets": ((3,), len(NUGGET_SUPPLY)),
            "aside": ((nr,), max(1, len(self.rules.fixed_role_deck or ()))),
            "removed": ((nk,), cards),
        }
        skip = {"aside", "removed"} if self.rules.nugget_cards else {"nuggets"}
        self._state_views: dict[str, View] = dict(self._views)
        off = self.size
        for name, meaning in HIDDEN_VIEWS:
            if name in skip:
                continue
            shape, hi = shapes[name]
            v = View(name, shape, off, 0, hi, meaning)
            self._state_views[name] = v
            off += v.size
        self.state_size = off
        self.state_low = np.zeros(off, dtype=np.float32)
        self.state_high = np.zeros(off, dtype=np.float32)
        for v in self._state_views.values():
            self.state_low[v.offset : v.offset + v.size] = v.low
            self.state_high[v.offset : v.offset + v.size] = v.high

    def _make_rel(self, n: int, seat: int) -> tuple:
        rel = (seat + np.arange(n)) % n
        self._rel[(n, seat)] = (rel, np.ix_(rel, rel))
        return self._rel[(n, seat)]

    # --- spec --------------------------------------------------------------------------
    def spec(self) -> list[View]:
        """Every view, in order (name, shape, offset, bounds, meaning)."""
        return list(self._views.values())

    def state_spec(self) -> list[View]:
        """Every view of the spectator's state (``encode(game, "spectator")``), in order: the
        observation's views (of seat 0), then the hidden block (:data:`HIDDEN_VIEWS`)."""
        return list(self._state_views.values())

    def views(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """Split a flat observation (or a batch ``(..., size)``) into named views; a spectator
        state (``(..., state_size)``) also gets its hidden views.

        Raises:
            ValueError: the last axis is neither ``size`` nor ``state_size`` (e.g. an
                observation of the other game, or of another board window).
        """
        shape = getattr(flat, "shape", ())  # an array or a tensor: views alias it
        if not shape or shape[-1] not in (self.size, self.state_size):
            got = f"shape {tuple(shape)}" if shape else f"{type(flat).__name__} {flat!r:.40}"
            raise ValueError(
                f"views: got {got}; this encoder ({self.rules.title}, window "
                f"{self.config.board_window}) splits observations of {self.size} values and "
                f"spectator states of {self.state_size}"
            )
        out = {}
        lead = flat.shape[:-1]
        table = self._state_views if flat.shape[-1] == self.state_size else self._views
        for v in table.values():
            out[v.name] = flat[..., v.offset : v.offset + v.size].reshape(*lead, *v.shape)
        return out

    def phase_of(self, views: dict[str, np.ndarray]) -> Phase:
        """The :class:`~saboteur_env.engine.phases.Phase` of the decision one observation was
        made for, from its :meth:`views` (the one-hot ``phase`` view; a ruleset with a single
        phase has none to read)."""
        phases = self.rules.phases
        if len(phases) == 1:
            return phases[0]
        cols = [PhaseFeature[p.name] for p in phases]
        return phases[int(np.argmax(views["phase"][cols]))]

    # --- encoding ----------------------------------------------------------------------
    def _public_board(self, game: Game) -> np.ndarray:
        """Channels that are the same for every observer; cached per board version."""
        b = game.board
        key = (b.uid, b.version)
        if self._board_cache is not None and self._board_cache[0] == key:
            return self._board_cache[1]
        planes = np.zeros((self.n_channels, self.H, self.W), dtype=np.float32)
        var = b.var[2:-2, 2:-2]
        opn = b.opn[2:-2, 2:-2]
        conn = b.conn[2:-2, 2:-2]
        C = _C
        planes[C.OPEN_N : C.OPEN_W + 1] = (opn[None] >> self._shifts[:, None, None]) & 1
        planes[C.CONN_N : C.CONN_W + 1] = (conn[None] >> self._shifts[:, None, None]) & 1
        faceup = var >= 0
        planes[C.THROUGH] = np.where(faceup, self._through[np.maximum(var, 0)], 0)
        planes[C.OCCUPIED] = var != -1
        planes[C.START][self._start_rc] = 1
        for slot, rc in enumerate(self._goal_rc):
            if var[rc] == HIDDEN_GOAL:
                planes[C.GOAL_HIDDEN][rc] = 1
            elif b.goal_identity[slot] == GOAL_GOLD:
                planes[C.GOAL_GOLD_REVEALED][rc] = 1
            else:
                planes[C.GOAL_STONE_REVEALED][rc] = 1
        if self.n_channels > N_BOARD_CHANNELS:
            planes[N_BOARD_CHANNELS:] = np.where(
                faceup[None], self._xfeat[:, np.maximum(var, 0)], 0
            )
        self._board_cache = (key, planes)
        return planes

    def encode(self, game: Game, seat: int | str, out: np.ndarray | None = None) -> np.ndarray:
        """What ``seat`` (the viewer) sees, DESIGN 4, 8.

        The fast path: the public board and the ``recent`` rows are cached per board version
        and per history stamp, the per-seat counts go in with one scatter.  It returns exactly
        what :meth:`encode_reference` returns (``tests/test_fast_paths.py`` compares every seat
        of every state of many seeded games byte for byte).

        Args:
            seat: a seat ``0..n-1``: its observation, float32 ``(size,)``; or ``"spectator"``:
                the full state, float32 ``(state_size,)`` (the observation of seat 0, then the
                hidden block, :meth:`state_spec`).
            out: a zeroed float32 array of that shape to write into (default: a new one).

        Raises:
            ValueError: ``seat`` is neither a seat in play nor ``"spectator"``.
        """
        if isinstance(seat, str):
            if seat != "spectator":
                raise ValueError(f"viewer {seat!r}: a seat 0..{game.n - 1} or 'spectator'")
            return self._encode_spectator(game, out, self.encode)
        _check_seat(game, seat)
        return self._encode_fast(game, seat, out)

    def encode_reference(
        self, game: Game, seat: int | str, out: np.ndarray | None = None
    ) -> np.ndarray:
        """:meth:`encode` written plainly, view by view (the specification the fast path is
        tested against); same arguments, result and errors."""
        if isinstance(seat, str):
            if seat != "spectator":
                raise ValueError(f"viewer {seat!r}: a seat 0..{game.n - 1} or 'spectator'")
            return self._encode_spectator(game, out, self.encode_reference)
        _check_seat(game, seat)
        o = np.zeros(self.size, dtype=np.float32) if out is None else out
        V = self._views
        C, P = _C, _P
        n, mp = game.n, self.max_players
        hist = self._history.get(game.events, n)
        # relative row r shows absolute seat rel[r]
        rel, rel_ix = self._rel.get((n, seat)) or self._make_rel(n, seat)
        bv = V["board"]
        board = o[bv.offset : bv.offset + bv.size].reshape(bv.shape)
        board[:] = self._public_board(game)
        for slot, rc in enumerate(self._goal_rc):
            if game.known_goals[seat, slot]:
                gold = game.board.goal_identity[slot] == GOAL_GOLD
                board[C.KNOWN_GOLD if gold else C.KNOWN_STONE][rc] = 1
        if hist.last_placed is not None:
            x, y = hist.last_placed
            x0, _, y0, _ = self.config.board_window
            board[C.LAST_PLACED, y - y0, x - x0] = 1
        hv = V["hand"]
        o[hv.offset : hv.offset + self.n_kinds] = game.hands[seat, : self.n_kinds]
        o[V["role"].offset + int(game.roles[seat])] = 1  # the current role (Swap your hats)
        pv = V["players"]
        pl = o[pv.offset : pv.offset + pv.size].reshape(pv.shape)
        pl[:n, P.PRESENT] = 1
        if not game.game_over:
            pl[(game.current - seat) % n, P.TO_ACT] = 1
        pl[:n, P.BROKEN_PICK : P.BROKEN_CART + 1] = game.broken[rel]
        pl[:n, P.HAND_SIZE] = game.hands[rel].sum(axis=1)
        pl[(game.last_card_seat - seat) % n, P.LAST_CARD] = 1
        pl[(game.first_player - seat) % n, P.FIRST_PLAYER] = 1
        hv = V["history"]
        o[hv.offset : hv.offset + hv.size].reshape(hv.shape)[:n] = hist.actor_counts[rel]
        tv = V["tools"]
        tl = o[tv.offset : tv.offset + tv.size].reshape(tv.shape)
        tl[:n, :n] = hist.tool_counts[rel_ix]
        rv = V["recent"]
        rc = o[rv.offset : rv.offset + rv.size].reshape(rv.shape)
        nt = len(self.recent_types)
        tc = self.n_tool_cols
        base = len(hist.recent)
        for i, (actor, typ, target, x, y, tool, dead) in enumerate(hist.recent):
            row = rc[N_RECENT - base + i]
            row[(actor - seat) % n] = 1
            row[mp + typ] = 1
            if target >= 0:
                row[mp + nt + (target - seat) % n] = 1
            if tool >= 0:
                row[2 * mp + nt + tool] = 1
            row[2 * mp + nt + tc] = x
            row[2 * mp + nt + tc + 1] = y
            row[2 * mp + nt + tc + 2] = dead
            row[2 * mp + nt + tc + 3] = 1
        self._write_game_and_private(game, seat, o)
        if self._has_x:
            self._encode_s2(game, seat, o, rel, rel_ix, hist)
        return o

    def _encode_spectator(self, game: Game, out: np.ndarray | None, encode) -> np.ndarray:
        o = np.zeros(self.state_size, dtype=np.float32) if out is None else out
        encode(game, 0, o[: self.size])
        n, V = game.n, self._state_views

        def view(name: str) -> np.ndarray:
            v = V[name]
            return o[v.offset : v.offset + v.size].reshape(v.shape)

        view("all_hands")[:n] = game.hands[:, : self.n_kinds]
        view("all_roles")[np.arange(n), game.roles.astype(np.intp)] = 1
        view("all_gold")[:n] = game.gold
        view("all_known_goals")[:n] = game.known_goals
        view("goals")[np.arange(3), game.board.goal_identity.astype(np.intp)] = 1
        view("deck")[:] = np.bincount(game.deck.astype(np.intp), minlength=self.n_kinds)[
            : self.n_kinds
        ]
        view("discards")[:] = game.discards[: self.n_kinds]
        if "nuggets" in V:
            view("nuggets")[:] = np.bincount(game.nuggets.astype(np.intp), minlength=4)[1:4]
        else:
            aside = np.bincount(np.asarray(game.set_aside, dtype=np.intp), minlength=0)
            view("aside")[: len(aside)] = aside
            view("removed")[:] = game.removed[: self.n_kinds]
        return o

    def _encode_s2(
        self,
        game: Game,
        seat: int,
        o: np.ndarray,
        rel: np.ndarray,
        rel_ix: tuple,
        hist: RoundHistory,
    ) -> None:
        n = game.n
        X, F = _X, _F
        xp_off, ins_off, hist_off, ph, ncol = self._x_offsets
        xf = game.xfront
        if xf.any():
            xp = o[xp_off : xp_off + self.max_players * ncol].reshape(self.max_players, ncol)
            xp[:n, X.TRAPPED : X.THEFT + 1] = xf[rel]
            if xf[:, 1].any():
                order = theft_order(game.theft_turn.tolist(), xf[:, 1].tolist(), xf[:, 0].tolist())
                for i, s in enumerate(order):
                    xp[(s - seat) % n, X.THEFT_ORDER] = i + 1
        if self._gold_public and game.gold.any():
            o[xp_off + X.HAS_GOLD : xp_off + X.HAS_GOLD + n * ncol : ncol] = game.gold[rel] > 0
        if game.inspected[seat].max() >= 0:
            nr = self.rules.n_roles
            seen = game.inspected[seat, rel]
            rows = np.nonzero(seen >= 0)[0]
            o[ins_off + rows * nr + seen[rows]] = 1
        if hist.xcounts.any():
            hv = self._views["xhistory"]
            o[hist_off : hist_off + hv.size].reshape(hv.shape)[:n, :n] = hist.xcounts[rel_ix]
        o[ph + getattr(F, game.phase.name)] = 1
        o[ph + F.COUNT] = game.phase_count
        if game.phase_slot >= 0:
            o[ph + F.REMOVE_PICK + game.phase_slot] = 1
        o[ph + F.DWARF_ASIDE] = len(game.set_aside)
        o[ph + F.REMOVED] = game.removed.sum()


def describe_spec(encoder: ObservationEncoder) -> str:
    """The observation spec as Markdown (docs/spaces.md is generated from it)."""
    lines = ["| view | shape | offset | meaning |", "|---|---|---|---|"]
    for v in encoder.spec():
        lines.append(f"| `{v.name}` | {v.shape} | {v.offset} | {v.meaning} |")
    lines += [
        "",
        f"Total size: {encoder.size} float32 values.",
        "",
        "Board channels:",
        "",
        "| channel | name | meaning |",
        "|---|---|---|",
    ]
    lines += [f"| {i} | `{n}` | {m} |" for i, (n, m) in enumerate(encoder.board_channels)]
    tables = [
        ("players", PLAYER_FEATURES),
        ("game", GAME_FEATURES),
        ("private", PRIVATE_FEATURES),
        ("xplayers", X_PLAYER_FEATURES),
        ("phase", PHASE_FEATURES),
    ]
    tables = [(title, t) for title, t in tables if title in encoder._views]
    for title, table in tables:
        lines += ["", f"Columns of `{title}`:", ""]
        lines += [f"{i}. `{n}`: {m}" for i, (n, m) in enumerate(table)]
    lines += [
        "",
        "Columns of `history`: " + ", ".join(f"`{c}`" for c in HISTORY_ACTOR),
        "",
        "Card kinds (order of `hand` and of the discard block): "
        + ", ".join(f"`{k.id}`" for k in ALL_KINDS[: encoder.n_kinds]),
    ]
    return "\n".join(lines)


def describe_spaces(config: GameConfig | None = None) -> str:
    """docs/spaces.md: the action blocks and the observation spec of ``config``."""
    from .codec import Codec

    config = config or GameConfig()
    codec = Codec(config)
    enc = ObservationEncoder(config)
    lines = [
        "# Action and observation spaces (generated by `saboteur spaces`)",
        "",
        f"Configuration: {config.ruleset.title}, {config.num_players} players, board window "
        f"{config.board_window} (x_min, x_max, y_min, y_max)"
        + (", the default." if config == GameConfig() else "."),
        "",
        f"## Actions: `Discrete({codec.n})`",
        "",
        "| block | offset | size |",
        "|---|---|---|",
    ]
    lines += [f"| `{name}` | {off} | {size} |" for name, (off, size) in codec.blocks.items()]
    lines += [
        "",
        f"Placement rows (oriented card kinds): {len(codec.variants)}; cells: "
        f"{codec.n_cells} ({codec.width} x {codec.height}, row-major from "
        "(x_min, y_min)). Tool rows: "
        + ", ".join(
            f"{ALL_KINDS[k].id}/{('pick', 'lantern', 'cart')[t]}" for k, t in codec.tool_pairs
        )
        + f"; each x {codec.max_players} relative target seats.",
        "",
        "Card codes: B01-B16 are the base game's path cards and X01-X26 Saboteur 2's, in the "
        "card tables of [rules.md](rules.md); decode an index with "
        "`env.unwrapped.codec.describe(index, seat, num_players)` ([actions.md](actions.md)).",
        "",
        "## Observation",
        "",
        describe_spec(enc),
        "",
    ]
    if config == GameConfig():  # the default config's page also shows Saboteur 2
        x = GameConfig(expansion=True)
        xc, xe = Codec(x), ObservationEncoder(x)
        lines += [
            "# Saboteur 2 (`expansion=True`, any player count 2-12)",
            "",
            f"## Actions: `Discrete({xc.n})`",
            "",
            "| block | offset | size |",
            "|---|---|---|",
        ]
        lines += [f"| `{name}` | {off} | {size} |" for name, (off, size) in xc.blocks.items()]
        lines += [
            "",
            f"Placement rows: {len(xc.variants)}; tool, xaction and steal rows "
            f"x {xc.max_players} relative seats; xaction rows: "
            + ", ".join(f"`{ALL_KINDS[k].id}`" for k in xc.x_pos)
            + "; remove slots: "
            + ", ".join(f"`{n}`" for n in FRONT_SLOTS)
            + ".",
            "",
            "## Observation",
            "",
            describe_spec(xe),
            "",
        ]
    return "\n".join(lines)
