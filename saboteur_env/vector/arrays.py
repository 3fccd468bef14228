"""The array backend of :class:`~saboteur_env.vector.VectorGame`: ``B`` games held as arrays
(one row per game, Pgx-style) and stepped together by compiled loops (:mod:`.kernels`).

What runs where:

* a decision inside a round (every action family of the base game, the draw, the next seat,
  RULES 3.1-3.7, 4.1, 4.2, 5.1), and the observation and mask that follow it: one call of
  :func:`.kernels.step` for all ``B`` games;
* a round end (scoring, RULES 5.2-5.5), the next deal and a new game: the engine itself
  (:func:`saboteur_env.engine.scoring.end_round`, ``Game(config, seed)``), on the game's
  :class:`~saboteur_env.engine.state.Game` object, which is brought up to date from the arrays
  first (:meth:`ArrayGames.store`) and read back afterwards (:meth:`ArrayGames.load`).  Rounds
  last dozens of decisions, so this costs little per decision.

The rulesets it plays are those whose decisions are all one-step turns of the base game's
families (:func:`supports`); the others (Saboteur 2) use the engine game by game.  Every table
the kernels read is built here from the engine's card data, its ``FIT`` and neighbour tables,
the action layout and the encoder's views, so the card data stays in one place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..encoding.codec import Codec
from ..encoding.history import N_RECENT, round_history
from ..encoding.observation import ObservationEncoder
from ..encoding.spec import (
    EXTRA_BOARD_CHANNELS,
    EXTRA_VIEWS,
    RECENT_TYPES,
    RECENT_TYPES_OF,
    BoardChannel,
    GameFeature,
    HistoryColumn,
    PlayerFeature,
    PrivateFeature,
    RecentType,
)
from ..engine.board import EMPTY, HIDDEN_GOAL, OCCUPIED_CODE, Board, code_tables
from ..engine.cards import (
    ALL_KINDS,
    CARD_KINDS,
    GOAL_CELLS,
    GOAL_GOLD,
    GOAL_KINDS,
    KIND_INDEX,
    START_CELL,
    VARIANT_OF,
    VARIANTS,
)
from ..engine.config import GameConfig
from ..engine.events import Event, EventData, EventType
from ..engine.phases import Phase
from ..engine.state import Game
from . import kernels as K

#: the action families, in block order, that the kernels play
FAMILIES = ("place", "rockfall", "map", "tool", "discard")


def supports(config: GameConfig) -> bool:
    """Whether the array backend plays ``config``'s ruleset: the base game's action families
    in that order, one phase (every decision a whole turn), a pass of one card, and the base
    game's observation (no extra views or board channels, its recent types)."""
    rules = config.ruleset
    return (
        rules.families == FAMILIES
        and rules.phases == (Phase.TURN,)
        and rules.pass_cards == 1
        # the observation the kernels write: the base game's views, channels and types
        and not EXTRA_VIEWS.get(rules.name)
        and not EXTRA_BOARD_CHANNELS.get(rules.name)
        and RECENT_TYPES_OF.get(rules.name) == RECENT_TYPES
    )


def _check_names() -> None:
    """The kernels' channel, column and type numbers are the spec's (one place: the spec)."""
    C, P, H, R, G = BoardChannel, PlayerFeature, HistoryColumn, RecentType, GameFeature
    pairs = [
        (K.G_ROUND, G.ROUND),
        (K.G_NUM_ROUNDS, G.NUM_ROUNDS),
        (K.G_DRAW_PILE, G.DRAW_PILE),
        (K.G_DISCARD_PILE, G.DISCARD_PILE),
        (K.G_TURN, G.TURN),
        (K.G_NUM_PLAYERS, G.NUM_PLAYERS),
        (K.G_PATHS, G.PATH_CARDS_IN_MAZE),
        (K.PR_GOLD, PrivateFeature.GOLD),
        (K.PR_SEAT, PrivateFeature.SEAT),
        (1, C.OPEN_E),
        (2, C.OPEN_S),
        (3, C.OPEN_W),
        (5, C.CONN_E),
        (6, C.CONN_S),
        (7, C.CONN_W),
        (K.PF_BROKEN + 1, P.BROKEN_LANTERN),
        (K.PF_BROKEN + 2, P.BROKEN_CART),
        (K.C_THROUGH, C.THROUGH),
        (K.C_OCCUPIED, C.OCCUPIED),
        (K.C_START, C.START),
        (K.C_GOAL_HIDDEN, C.GOAL_HIDDEN),
        (K.C_GOLD_REVEALED, C.GOAL_GOLD_REVEALED),
        (K.C_STONE_REVEALED, C.GOAL_STONE_REVEALED),
        (K.C_KNOWN_GOLD, C.KNOWN_GOLD),
        (K.C_KNOWN_STONE, C.KNOWN_STONE),
        (K.C_LAST_PLACED, C.LAST_PLACED),
        (0, C.OPEN_N),
        (4, C.CONN_N),
        (K.PF_PRESENT, P.PRESENT),
        (K.PF_TO_ACT, P.TO_ACT),
        (K.PF_BROKEN, P.BROKEN_PICK),
        (K.PF_HAND_SIZE, P.HAND_SIZE),
        (K.PF_LAST_CARD, P.LAST_CARD),
        (K.PF_FIRST, P.FIRST_PLAYER),
        (K.H_THROUGH, H.PLACED_THROUGH),
        (K.H_DEAD, H.PLACED_DEAD_END),
        (K.H_ROCKFALLS, H.ROCKFALLS),
        (K.H_MAPS, H.MAPS),
        (K.H_DISCARDS, H.DISCARDS),
        (K.R_PLACE, R.PLACE),
        (K.R_BREAK, R.BREAK),
        (K.R_REPAIR, R.REPAIR),
        (K.R_ROCKFALL, R.ROCKFALL),
        (K.R_MAP, R.MAP),
        (K.R_DISCARD, R.DISCARD),
        (K.N_RECENT, N_RECENT),
        (K.EMPTY, EMPTY),
        (K.HIDDEN_GOAL, HIDDEN_GOAL),
        (K.OCCUPIED_CODE, OCCUPIED_CODE),
    ]
    bad = [(a, int(b)) for a, b in pairs if a != int(b)]
    if bad:
        raise AssertionError(f"vector kernels disagree with the spec: {bad}")


_check_names()

#: state arrays of :class:`ArrayGames`, in the order of the kernels' tuple ``S``
STATE = K.STATE

#: event code of the kernels -> (EventType, payload keys of p0..p3)
_EVENTS: dict[int, tuple[EventType, tuple[str, ...]]] = {
    K.EV_PATH_PLACED: (EventType.PATH_PLACED, ("kind", "x", "y", "variant")),
    K.EV_GOAL_REVEALED: (EventType.GOAL_REVEALED, ("goal", "identity", "rotated")),
    K.EV_CARD_DRAWN: (EventType.CARD_DRAWN, ("kind",)),
    K.EV_ROCKFALL: (EventType.ROCKFALL, ("x", "y", "variant", "kind")),
    K.EV_MAP_PLAYED: (EventType.MAP_PLAYED, ("goal",)),
    K.EV_MAP_RESULT: (EventType.MAP_RESULT, ("goal", "identity")),
    K.EV_TOOL_BROKEN: (EventType.TOOL_BROKEN, ("kind", "target", "tool")),
    K.EV_TOOL_REPAIRED: (EventType.TOOL_REPAIRED, ("kind", "target", "tool")),
    K.EV_DISCARDED: (EventType.DISCARDED, ()),
    K.EV_DISCARDED_CARD: (EventType.DISCARDED_CARD, ("kind",)),
}


def _event(rec: list[int]) -> Event:
    """The engine's :class:`Event` of one kernel record ``[type, seat, visible_to, p0..p3]``,
    with the payload the engine's action families write."""
    typ, keys = _EVENTS[rec[0]]
    if typ is EventType.PATH_PLACED:
        v = rec[6]
        data: dict[str, Any] = {
            "kind": rec[3],
            "x": rec[4],
            "y": rec[5],
            "rotated": VARIANTS[v].rotated,
            "variant": v,
        }
    elif typ is EventType.GOAL_REVEALED:
        gx, gy = GOAL_CELLS[rec[3]]
        data = {"goal": rec[3], "x": gx, "y": gy, "identity": rec[4], "rotated": bool(rec[5])}
    else:
        data = dict(zip(keys, rec[3 : 3 + len(keys)]))
    vis = rec[2]
    return Event(typ, rec[1], EventData(data), None if vis < 0 else vis)


def events_of(records: np.ndarray) -> list[Event]:
    """The engine's events of kernel log records (int32 ``(k, 7)``)."""
    return [_event(r) for r in records.tolist()]


def merge_events(g: Game, records: np.ndarray, base: int, marks: list[tuple[int, int]]) -> None:
    """Complete ``g.events``: the kernels' log ``records`` (its rows from log position
    ``base`` on) interleaved with the engine's events that ``g.events`` already holds after a
    complete prefix, where ``marks`` says each batch of those began: ``(log position,
    index in g.events)``."""
    recs = records.tolist()
    if not marks:
        g.events.extend(_event(r) for r in recs)
        return
    prefix = marks[0][1]
    out: list[Event] = []
    lp = base
    for k, (pos, start) in enumerate(marks):
        out.extend(_event(r) for r in recs[lp - base : pos - base])
        lp = pos
        end = marks[k + 1][1] if k + 1 < len(marks) else len(g.events)
        out.extend(g.events[start:end])
    out.extend(_event(r) for r in recs[lp - base :])
    g.events[prefix:] = out


class ArrayGames:
    """``B`` games of one configuration as arrays (names in :data:`STATE`), with the tables
    the kernels read.

    Args:
        config: a configuration that :func:`supports` accepts.
        num_envs: ``B``.
        codec, encoder: the configuration's :class:`Codec` and :class:`ObservationEncoder`
            (their layout is what the kernels write).
        observation: float32 ``(B, encoder.size)`` and ``mask``: bool ``(B, codec.n)``, the
            arrays the kernels write each game's observation and mask into.

    Raises:
        ValueError: ``config`` is not supported.
    """

    def __init__(
        self,
        config: GameConfig,
        num_envs: int,
        codec: Codec,
        encoder: ObservationEncoder,
        observation: np.ndarray,
        mask: np.ndarray,
    ) -> None:
        if not supports(config):
            raise ValueError(f"the array backend does not play {config.ruleset.title}")
        self.config = config
        self.B = b = num_envs
        self.n = n = config.num_players
        lay = codec.layout
        nk = lay.n_kinds
        R, C = lay.height + 4, lay.width + 4
        rules = config.ruleset
        self.obs, self.mask = observation, mask
        # the deepest draw pile: the whole deck (hands are dealt from it)
        deck_max = int(rules.deck.sum())
        self.ints = np.zeros((b, K.N_INTS), dtype=np.int64)
        self.var = np.full((b, R, C), EMPTY, dtype=np.int16)
        self.opn = np.zeros((b, R, C), dtype=np.uint8)
        self.reached = np.zeros((b, R, C), dtype=np.uint8)
        self.conn = np.zeros((b, R, C), dtype=np.uint8)
        self.goal_identity = np.zeros((b, 3), dtype=np.int8)
        self.goal_revealed = np.zeros((b, 3), dtype=bool)
        self.hands = np.zeros((b, n, nk), dtype=np.int16)
        self.deck = np.zeros((b, deck_max), dtype=np.int16)
        self.discards = np.zeros((b, nk), dtype=np.int64)
        self.secret_discards = np.zeros((b, n, nk), dtype=np.int64)
        self.broken = np.zeros((b, n, 3), dtype=bool)
        self.known_goals = np.zeros((b, n, 3), dtype=bool)
        self.broken_kind = np.full((b, n, 3), -1, dtype=np.int16)
        self.actor_counts = np.zeros((b, n, len(HistoryColumn)), dtype=np.int16)
        self.tool_counts = np.zeros((b, n, n, 2), dtype=np.int16)
        self.recent = np.zeros((b, N_RECENT, K.RECENT_FIELDS), dtype=np.int64)
        self.roles = np.zeros((b, n), dtype=np.int8)
        self.gold = np.zeros((b, n), dtype=np.int64)
        self.S = tuple(getattr(self, name) for name in STATE)
        tables = _tables(config, codec, encoder)
        self.T = tuple(tables[name] for name in K.TABLES)
        self.P = _params(config, codec, encoder)
        # each game's event log of the decisions inside its rounds (a decision consumes a card,
        # so a round has at most as many decisions as the deck has cards); the Game objects'
        # event lists are completed from it when read (sync_events), with ``marks``: per game,
        # (log position, index in g.events) of each batch of the engine's own events since
        rounds = config.num_rounds
        self.log = np.zeros((b, rounds * K.MAX_EVENTS * (deck_max + 1), 7), dtype=np.int32)
        self.marks: list[list[tuple[int, int]]] = [[] for _ in range(b)]
        # scratch of the kernels: the connectivity stack, the neighbourhood codes
        self.stack = np.zeros((R * C * 16 + 16, 3), dtype=np.int64)
        self.codes = np.zeros(2 * lay.n_cells, dtype=np.int64)
        self.changed = np.zeros(R * C * 16 + 16, dtype=np.int64)
        #: each game's legal actions, ascending (the first ``ints[:, I_NLEGAL]``)
        self.legal_index = np.zeros((b, K.MAX_LEGAL), dtype=np.int32)

    # --- Game <-> arrays ------------------------------------------------------------------
    def check(self, g: Game) -> None:
        """Refuse a game the arrays cannot hold, before anything is written: more cards in
        the draw pile and the hands than the ruleset's deck (a position built with
        ``check_counts=False``; the draw pile and each round's event log are sized by the
        deck, every decision consuming a card).

        Raises:
            ValueError: naming the count and the limit.
        """
        cards = len(g.deck) + int(g.hands.sum())
        if cards > self.deck.shape[1]:
            raise ValueError(
                f"{cards} cards in the draw pile and the hands: the array backend holds at most "
                f"the deck's {self.deck.shape[1]} (use backend='engine' for this position)"
            )

    def load(self, i: int, g: Game, new_game: bool = True) -> None:
        """Write game ``g`` into row ``i`` (its observation and mask are written by
        :meth:`refresh`).  The round's public history comes from ``g.events``
        (:func:`~saboteur_env.encoding.history.round_history`), as the encoder reads it.
        ``new_game=False``: the same game after the engine dealt its next round (the event
        log goes on)."""
        bd = g.board
        self.var[i] = bd.var
        self.opn[i] = bd.opn
        self.reached[i] = bd.reached
        self.conn[i] = bd.conn
        self.goal_identity[i] = bd.goal_identity
        self.goal_revealed[i] = bd.goal_revealed
        self.hands[i] = g.hands
        d = len(g.deck)
        self.deck[i, :d] = g.deck
        self.discards[i] = g.discards
        self.secret_discards[i] = g.secret_discards
        self.broken[i] = g.broken
        self.known_goals[i] = g.known_goals
        self.broken_kind[i] = g.broken_kind
        self.roles[i] = g.roles
        self.gold[i] = g.gold
        if new_game or g.turn:  # else the engine dealt the round just now: no history yet
            h = round_history(g.events, g.n)
            self.actor_counts[i] = h.actor_counts
            self.tool_counts[i] = h.tool_counts
            self.recent[i] = 0
            k = len(h.recent)
            for j, (actor, typ, target, x, y, tool, dead) in enumerate(h.recent):
                self.recent[i, (h.added - k + j) % N_RECENT] = (
                    actor,
                    typ,
                    target,
                    x,
                    y,
                    tool,
                    dead,
                    1,
                )
            added, last = h.added, h.last_placed
        else:
            self.actor_counts[i] = 0
            self.tool_counts[i] = 0
            self.recent[i] = 0
            added, last = 0, None
        t = self.ints[i]
        log, synced = t[K.I_LOG], t[K.I_LOG_SYNCED]
        t[:] = 0
        if new_game:
            self.marks[i] = []
        else:
            t[K.I_LOG], t[K.I_LOG_SYNCED] = log, synced
        t[K.I_CURRENT] = g.current
        t[K.I_FIRST] = g.first_player
        t[K.I_TURN] = g.turn
        t[K.I_LAST_CARD] = g.last_card_seat
        t[K.I_DECISIONS] = g.decisions
        t[K.I_ROUND] = g.round
        t[K.I_DECK_LEN] = d
        t[K.I_ADDED] = added
        if last is None:
            t[K.I_LAST_R] = t[K.I_LAST_C] = -1
        else:
            t[K.I_LAST_R], t[K.I_LAST_C] = bd.rc(*last)
        t[K.I_GAME_OVER] = g.game_over
        t[K.I_PATHS] = bd.path_cards_on_board()
        t[K.I_DIRTY] = 1  # the observation's board planes: written whole
        t[K.I_NLEGAL] = K.MAX_LEGAL + 1  # the mask row: cleared whole
        t[K.I_PREV_LAST] = -1
        rows, cols = np.nonzero(bd.var != EMPTY)
        t[K.I_RMIN], t[K.I_RMAX] = rows.min(), rows.max()
        t[K.I_CMIN], t[K.I_CMAX] = cols.min(), cols.max()

    def store(self, i: int, g: Game) -> None:
        """Bring ``g`` (the game row ``i`` was loaded from) up to date with the row: what the
        decisions inside the round changed (its events: :meth:`sync_events`)."""
        t = self.ints[i]
        bd: Board = g.board
        bd.var[:] = self.var[i]
        bd.opn[:] = self.opn[i]
        bd.reached[:] = self.reached[i]
        bd.conn[:] = self.conn[i]
        bd.goal_revealed[:] = self.goal_revealed[i]
        bd.version += 1  # the board's caches (codes, removable cells) are stale
        g.hands = self.hands[i].copy()
        g.deck = self.deck[i, t[K.I_DECK_POS] : t[K.I_DECK_LEN]].copy()
        g.discards = self.discards[i].copy()
        g.secret_discards = self.secret_discards[i].copy()
        g.broken = self.broken[i].copy()
        g.known_goals = self.known_goals[i].copy()
        g.broken_kind = self.broken_kind[i].copy()
        g.current = int(t[K.I_CURRENT])
        g.turn = int(t[K.I_TURN])
        g.last_card_seat = int(t[K.I_LAST_CARD])
        g.decisions = int(t[K.I_DECISIONS])

    def mark(self, i: int, g: Game) -> None:
        """The engine is about to add events to ``g.events`` at game ``i``'s present log
        position (:meth:`sync_events` puts them there)."""
        self.marks[i].append((int(self.ints[i, K.I_LOG]), len(g.events)))

    def detach(self, i: int) -> tuple[np.ndarray, int, list[tuple[int, int]]]:
        """What :func:`merge_events` needs to complete game ``i``'s event list later (its
        row is about to be dealt a new game): the log rows not yet merged, their start, and
        the marks."""
        t = self.ints[i]
        done = int(t[K.I_LOG_SYNCED])
        return self.log[i, done : t[K.I_LOG]].copy(), done, self.marks[i]

    def sync_events(self, i: int, g: Game) -> None:
        """Complete ``g.events`` with game ``i``'s decisions since the last call."""
        t = self.ints[i]
        done = int(t[K.I_LOG_SYNCED])
        merge_events(g, self.log[i, done : t[K.I_LOG]], done, self.marks[i])
        self.marks[i] = []
        t[K.I_LOG_SYNCED] = t[K.I_LOG]

    # --- stepping ---------------------------------------------------------------------------
    def step(self, actions: np.ndarray) -> np.ndarray:
        """Play ``actions`` (int64 ``(B,)``, legal) in every game; returns int64 ``(B,)`` of
        ``kernels.CONTINUE`` / ``GOLD_FOUND`` / ``HANDS_EMPTY`` (a round to end)."""
        K.step(
            actions,
            self.S,
            self.T,
            self.P,
            self.obs,
            self.mask,
            self.legal_index,
            self.stack,
            self.log,
            self.codes,
            self.changed,
        )
        return self.ints[:, K.I_STATUS]

    def refresh(self, games: np.ndarray) -> None:
        """Write the observation and mask of the games ``games`` (int64 indexes)."""
        K.refresh(
            games,
            self.S,
            self.T,
            self.P,
            self.obs,
            self.mask,
            self.legal_index,
            self.codes,
            self.changed,
        )

    def sample(self, u: np.ndarray) -> np.ndarray:
        """int64 ``(B,)``: per game the legal action at ``floor(u * count)`` of its ascending
        legal list (``u``: float64 ``(B,)`` in [0, 1)); -1 where the list was too long to keep
        (the caller samples that game from its mask)."""
        out = np.empty(self.B, dtype=np.int64)
        K.sample(u, self.ints, self.legal_index, out)
        return out

    def step_records(self, i: int) -> np.ndarray:
        """A copy of the log records of game ``i``'s last decision."""
        end = self.ints[i, K.I_LOG]
        return self.log[i, end - self.ints[i, K.I_NEV] : end].copy()

    def events(self, i: int) -> list[Event]:
        """The engine's events of game ``i``'s last decision inside the round."""
        end = self.ints[i, K.I_LOG]
        return events_of(self.log[i, end - self.ints[i, K.I_NEV] : end])


def _tables(config: GameConfig, codec: Codec, encoder: ObservationEncoder) -> dict[str, np.ndarray]:
    """The kernels' tables by name (``kernels.TABLES``), from the engine's card data and the
    action layout."""
    lay = codec.layout
    nv = len(VARIANTS)
    v_open = np.array([v.openings for v in VARIANTS], dtype=np.int64)
    v_seg = np.zeros((nv, 4), dtype=np.int64)
    v_stub = np.zeros((nv, 4), dtype=bool)
    v_root = np.zeros((nv, 4), dtype=bool)
    if max(len(v.segments) for v in VARIANTS) > 4:
        raise AssertionError("the kernels hold at most 4 segments a card")
    for v in VARIANTS:
        for i, seg in enumerate(v.segments):
            v_seg[v.index, i] = seg
            v_stub[v.index, i] = v.stub[i]
            # Board._roots: the ladder / start node segments of path cards are roots
            v_root[v.index, i] = bool(seg & 16) and ALL_KINDS[v.kind].category == "path"
    v_sos = np.array([v.seg_of_side for v in VARIANTS], dtype=np.int64)
    v_rot = np.array([v.rotated for v in VARIANTS], dtype=np.int64)
    goal_var = np.array(
        [[VARIANT_OF[(GOAL_KINDS[ident], rot)] for rot in (False, True)] for ident in range(3)],
        dtype=np.int64,
    )
    probe = Board(lay.window)
    goal_rc = np.array([probe.rc(x, y) for x, y in GOAL_CELLS], dtype=np.int64)
    v_kind = np.array([v.kind for v in VARIANTS], dtype=np.int64)
    row_var = np.array(lay.variants, dtype=np.int64)
    kinds = CARD_KINDS[: lay.n_kinds]
    kind_dead = np.array([k.is_dead_end for k in kinds], dtype=bool)
    tool_kind = np.array([k for k, _ in lay.tool_pairs], dtype=np.int64)
    tool_tool = np.array([t for _, t in lay.tool_pairs], dtype=np.int64)
    tool_break = np.array([CARD_KINDS[k].effect[0] == "break" for k, _ in lay.tool_pairs])
    through = encoder._through  # the THROUGH channel's value per variant
    fit = np.ascontiguousarray(lay.fit)
    lut, goal_adj = (t.astype(np.int64) for t in code_tables(lay.window))
    return {
        "v_open": v_open,
        "v_seg": v_seg,
        "v_stub": v_stub,
        "v_sos": v_sos,
        "v_root": v_root,
        "v_rot": v_rot,
        "goal_var": goal_var,
        "goal_rc": goal_rc,
        "v_kind": v_kind,
        "row_var": row_var,
        "kind_dead": kind_dead,
        "tool_kind": tool_kind,
        "tool_tool": tool_tool,
        "tool_break": tool_break,
        "v_through": through,
        "fit": fit,
        "lut": lut,
        "goal_adj": goal_adj,
    }


def _params(config: GameConfig, codec: Codec, encoder: ObservationEncoder) -> np.ndarray:
    """The kernels' int64 parameter array ``P`` (entries ``kernels.P_*``)."""
    lay = codec.layout
    V = {v.name: v for v in encoder.spec()}
    P = np.zeros(K.N_PARAMS, dtype=np.int64)
    x0, _, y0, _ = lay.window
    probe = Board(lay.window)
    blocks = codec.blocks
    P[K.P_N] = config.num_players
    P[K.P_MP] = lay.max_players
    P[K.P_K] = lay.n_kinds
    P[K.P_NCELLS] = lay.n_cells
    P[K.P_W], P[K.P_H] = lay.width, lay.height
    P[K.P_X0], P[K.P_Y0] = x0, y0
    P[K.P_PLACE] = blocks["place"][0]
    P[K.P_ROCK] = blocks["rockfall"][0]
    P[K.P_MAP] = blocks["map"][0]
    P[K.P_TOOL] = blocks["tool"][0]
    P[K.P_DISCARD] = blocks["discard"][0]
    P[K.P_END] = codec.n
    P[K.P_ROCKFALL_KIND] = KIND_INDEX["rockfall"]
    P[K.P_MAP_KIND] = KIND_INDEX["map"]
    P[K.P_SELF_SABOTAGE] = config.self_sabotage
    P[K.P_START_R], P[K.P_START_C] = probe.rc(*START_CELL)
    P[K.P_NUM_ROUNDS] = config.num_rounds
    P[K.P_NT] = len(encoder.recent_types)
    P[K.P_TC] = encoder.n_tool_cols
    P[K.P_RW] = encoder.recent_width
    P[K.P_OBS_HAND] = V["hand"].offset
    P[K.P_OBS_ROLE] = V["role"].offset
    P[K.P_OBS_PLAYERS] = V["players"].offset
    P[K.P_OBS_PW] = V["players"].shape[1]
    P[K.P_OBS_HISTORY] = V["history"].offset
    P[K.P_OBS_HW] = V["history"].shape[1]
    P[K.P_OBS_TOOLS] = V["tools"].offset
    P[K.P_OBS_RECENT] = V["recent"].offset
    P[K.P_OBS_GAME] = V["game"].offset
    P[K.P_OBS_PRIVATE] = V["private"].offset
    P[K.P_OBS_SIZE] = encoder.size
    P[K.P_BOARD_SIZE] = V["board"].size
    P[K.P_N_TOOL_ROWS] = len(lay.tool_pairs)
    P[K.P_GOLD] = GOAL_GOLD
    # the kernels' layout assumptions, checked against the encoder's spec
    if not (V["board"].offset == 0 and V["board"].shape[0] == K.C_LAST_PLACED + 1):
        raise AssertionError("the board view is not the kernels' 17 channels at offset 0")
    if V["tools"].shape != (lay.max_players, lay.max_players, 2):
        raise AssertionError("the tools view is not (max players, max players, 2)")
    rw = lay.max_players + len(encoder.recent_types) + lay.max_players + encoder.n_tool_cols + 4
    if encoder.recent_width != rw:
        raise AssertionError("a recent row is not actor, type, target, tool, x, y, dead, present")
    return P
