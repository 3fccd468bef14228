"""The array backend of :class:`~saboteur_env.vector.VectorGame`: ``B`` games held as arrays
(one row per game, Pgx-style) and stepped together by compiled loops (:mod:`.kernels`).

What runs where:

* every decision (every action family of the base game and of Saboteur 2, the draw, the
  next seat, the phases of a pass and of a removal, RULES 3.1-3.7, 4.1, 4.2, 5.1, 6.5, 6.7),
  the base game's round end it may cause (the payouts and rewards, RULES 5.2, 5.3) and the
  next round's deal, then the observation and mask that follow: one call of
  :func:`.kernels.step` for all ``B`` games.  The engine's generator is drawn only when a
  round is dealt, so every round's deal is drawn when a game is dealt or loaded, by the
  engine's own ``setup.draw_start`` and ``setup.draw_round`` in the engine's order
  (:meth:`ArrayGames.start`, :meth:`ArrayGames.load`), and the kernels deal from it;
* a Saboteur 2 round end (RULES 6.9: the doors, the payouts, the thefts): the kernels hand the
  game back (``kernels.ROUND_SCORE``, ``THEFT_DONE``) and :meth:`ArrayGames.settle` scores it
  with the engine's own ``scoring.score_s2`` and ``theft_order`` on the engine's ``Board``,
  puts the thieves' decisions to the kernels and deals the next round;
* the :class:`~saboteur_env.engine.state.Game` objects callers read: the engine itself.  The
  kernels record every action; a game's ``Game`` is made from its seed and brought up to
  date by playing the recorded actions through the engine when it is read
  (:meth:`ArrayGames.catch_up`), so its state, round results and events are the engine's own.

It plays the base game and Saboteur 2 (:func:`supports`).  Every table
the kernels read is built here from the engine's card data, its ``FIT`` and neighbour tables,
the action layout and the encoder's views, so the card data stays in one place.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
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
    HistoryColumn,
)
from ..engine.board import EMPTY, Board, code_tables
from ..engine.cards import (
    ALL_KINDS,
    CARD_KINDS,
    FRONT_THEFT,
    FRONT_TRAPPED,
    GOAL_CELLS,
    GOAL_GOLD,
    GOAL_KINDS,
    GOLD_DIGGER,
    KIND_INDEX,
    SABOTEUR,
    SABOTEUR_PAYOUT,
    START_CELL,
    VARIANT_OF,
    VARIANTS,
    X_EFFECTS,
)
from ..engine.config import GameConfig
from ..engine.events import Event, EventData, EventType, RoundResult
from ..engine.phases import FAMILIES_OF_PHASE, Phase
from ..engine.ruleset import NUGGET_SUPPLY
from ..engine.scoring import (
    base_payout,
    base_result,
    most_gold,
    nugget_cards_drawn,
    round_rewards,
    score_s2,
    scored_data,
    skip_thieves,
    theft_order,
)
from ..engine.setup import draw_round, draw_start, game_generator
from ..engine.state import Game
from . import kernels as K

#: the backends of :class:`~saboteur_env.vector.VectorGame` and ``raw_env``
BACKENDS = ("auto", "array", "engine")
#: the action families, in block order, that the kernels play
FAMILIES = ("place", "rockfall", "map", "tool", "discard")


def supports(config: GameConfig) -> bool:
    """Whether the array backend plays ``config``'s ruleset: every action family of it is one
    the kernels play (``kernels.FAMILY_COLUMNS``: the base game's and Saboteur 2's), in
    that order, its phases are the engine's, and its observation is the one the kernels
    write (the base game's views, Saboteur 2's extra views and board channels, their recent
    types).  The base game's rounds are paid by the kernels; a ruleset whose gold is a count
    (Saboteur 2) is scored by :meth:`ArrayGames.settle`, with the engine's scoring."""
    rules = config.ruleset
    base = (FAMILIES, (Phase.TURN,), (), (), RECENT_TYPES)
    sab2 = (
        K.FAMILY_COLUMNS,
        tuple(Phase),
        EXTRA_VIEWS["saboteur_2"],
        EXTRA_BOARD_CHANNELS["saboteur_2"],
        RECENT_TYPES_OF["saboteur_2"],
    )
    layout = (
        rules.families,
        rules.phases,
        EXTRA_VIEWS.get(rules.name),
        EXTRA_BOARD_CHANNELS.get(rules.name),
        RECENT_TYPES_OF.get(rules.name),
    )
    return (
        # the two layouts the kernels write: the base game's, or every Saboteur 2 family,
        # phase, view and board channel
        layout in (base, sab2)
        # the placement rows that fit a cell are two int64 words of bits (kernels.legal)
        and len(rules.variants) <= 2 * K.ROW_BITS
        # a decision's events fit the kernels' records: a pass's last card, its end, a draw
        # for each card passed
        and rules.pass_cards + 3 <= K.MAX_EVENTS
        # gold-nugget cards are paid by the kernels as the base game pays them, and nobody
        # is paid outside the winners; gold as a count is scored by ArrayGames.settle
        and (
            rules.card_payout is None or (rules.card_payout is base_payout and not rules.paid_roles)
        )
    )


def _row_words(lay: Any) -> int:
    """Words of a placement-row bit set (``kernels.ROW_BITS`` rows a word)."""
    return -(-len(lay.variants) // K.ROW_BITS)


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
    K.EV_ACTION_PLAYED: (EventType.ACTION_PLAYED, ("kind", "target")),
    K.EV_INSPECTION_RESULT: (EventType.INSPECTION_RESULT, ("target", "role")),
    K.EV_ROLE_SWAPPED: (EventType.ROLE_DEALT, ("role",)),
    K.EV_REMOVE_STARTED: (EventType.REMOVE_STARTED, ("slot",)),
    K.EV_FRONT_REMOVED: (EventType.FRONT_REMOVED, ("slot", "kind")),
    K.EV_PASS_DONE: (EventType.PASS_DONE, ("discarded", "done")),
    K.EV_THEFT: (EventType.THEFT, ("target",)),
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
    elif typ is EventType.ACTION_PLAYED:
        data = {"kind": rec[3], "card": CARD_KINDS[rec[3]].id, "target": rec[4]}
    elif rec[0] == K.EV_ROLE_SWAPPED:
        data = {"role": rec[3], "swapped": True}
    elif typ is EventType.PASS_DONE:
        data = {"discarded": rec[3], "done": bool(rec[4])}
    else:
        data = dict(zip(keys, rec[3 : 3 + len(keys)]))
    vis = rec[2]
    return Event(typ, rec[1], EventData(data), None if vis < 0 else vis)


#: the state arrays that hold the board's arrays of the same name, and the game's
_BOARD_FIELDS = ("var", "opn", "reached", "conn", "goal_identity", "goal_revealed")
_GAME_FIELDS = (
    "hands",
    "discards",
    "secret_discards",
    "broken",
    "known_goals",
    "broken_kind",
    "roles",
    "gold",
)


#: kernel record (a tuple) -> its :class:`Event`.  Events are immutable (a frozen ``Event``,
#: read-only ``EventData``), so one object serves every game and step that logs the same
#: record, and most records recur (a draw of a kind, a discard, a tool card on a seat)
_EVENTS_MADE: dict[tuple[int, ...], Event] = {}
#: about 430 bytes an entry; base-game random play makes some 12k distinct records in 300k
#: decisions
_EVENTS_MADE_MAX = 20_000


def events_of(records: np.ndarray) -> list[Event]:
    """The engine's events of kernel log records (int32 ``(k, 7)``): shared objects, the same
    ``Event`` for every step that logged the same record (events are read-only)."""
    out = []
    for rec in records.tolist():
        key = tuple(rec)
        e = _EVENTS_MADE.get(key)
        if e is None:
            if len(_EVENTS_MADE) >= _EVENTS_MADE_MAX:
                _EVENTS_MADE.clear()
            e = _EVENTS_MADE[key] = _event(rec)
        out.append(e)
    return out


def close_events(
    result: RoundResult,
    gold: list[int],
    game_over: bool,
    next_round: int,
    first: int,
    roles: list[int],
) -> list[Event]:
    """The events ``scoring.close_round`` emits after a round's result and ``setup.deal_round``
    after it (``round_end``, each seat's ``gold_received``, then ``game_end`` or
    ``round_start`` and each seat's ``role_dealt``), restated for rounds the array backend
    ends: ``gold`` is every seat's gold after the round; ``next_round``, ``first`` and
    ``roles`` are the next round's (read when the game goes on)."""
    n = len(gold)
    out = [Event(EventType.ROUND_END, None, EventData(result.public_data()))]
    out += [
        Event(
            EventType.GOLD_RECEIVED,
            s,
            EventData({"round": result.round, "gold": int(result.received[s])}),
            s,
        )
        for s in range(n)
    ]
    if game_over:
        data = {"gold": gold, "winners": most_gold(gold)}
        out.append(Event(EventType.GAME_END, None, EventData(data)))
        return out
    data = {"round": next_round, "first_player": first}
    out.append(Event(EventType.ROUND_START, None, EventData(data)))
    out += [Event(EventType.ROLE_DEALT, s, EventData({"role": roles[s]}), s) for s in range(n)]
    return out


class ArrayGames:
    """``B`` games of one configuration as arrays (names in ``kernels.STATE``), with the tables
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
        self.codec = codec
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
        self.nuggets = np.zeros((b, int(NUGGET_SUPPLY.size)), dtype=np.int8)
        # every round's deal, drawn when the game is dealt or loaded (the engine's generator is
        # drawn at deals only): roles, goal identities, hands and draw pile of round r
        rounds = config.num_rounds
        self.deal_roles = np.zeros((b, rounds, n), dtype=np.int8)
        self.deal_goals = np.zeros((b, rounds, 3), dtype=np.int8)
        self.deal_hands = np.zeros((b, rounds, n, nk), dtype=np.int16)
        self.deal_deck = np.zeros((b, rounds, deck_max), dtype=np.int16)
        self.deal_deck_len = np.zeros((b, rounds), dtype=np.int64)
        # Saboteur 2 (all False / empty in the base game): the Trapped! and Theft cards in
        # front, the decision each Theft was played at, each seat's Inspection results and
        # this round's action cards played; each round's cards removed unseen, as dealt.  The
        # dwarf cards aside, now and as each round dealt them (the base game sets one aside
        # too: the role deck has a card more than players, RULES 2.2)
        aside = int(rules.role_deck(n, config.role_table).sum()) - n
        self.xfront = np.zeros((b, n, 2), dtype=bool)
        self.theft_turn = np.full((b, n), -1, dtype=np.int64)
        self.inspected = np.full((b, n, n), -1, dtype=np.int8)
        self.xcounts = np.zeros((b, n, n, len(X_EFFECTS)), dtype=np.int16)
        self.set_aside = np.zeros((b, aside), dtype=np.int8)
        self.deal_aside = np.zeros((b, rounds, aside), dtype=np.int8)
        self.deal_aside_len = np.zeros((b, rounds), dtype=np.int64)
        self.deal_removed = np.zeros((b, rounds), dtype=np.int64)
        # every action since the game was dealt or loaded: a round's decisions each consume a
        # card, except (Saboteur 2) those that choose a card in front to remove (each paid by
        # two cards), end a pass (each after a card) or choose a theft's victim (one a seat)
        per_round = 2 * deck_max + n + 1
        self.actions = np.zeros((b, rounds * per_round + 1), dtype=np.int32)
        self.encoder = encoder
        self._derived()
        # the events of each game's last decision (kernel records)
        self.ev = np.zeros((b, K.MAX_EVENTS, 7), dtype=np.int32)
        self.scratch = np.zeros(4 * n + 16, dtype=np.int64)
        # scratch of the kernels: the connectivity stack, the neighbourhood codes
        # (one row more: a placement's goal wave, kernels.place)
        self.stack = np.zeros((R * C * 16 + 17, 3), dtype=np.int64)
        self.codes = np.zeros(3 * lay.n_cells, dtype=np.int64)
        self.changed = np.zeros(R * C * 16 + 16, dtype=np.int64)
        #: each game's legal actions, ascending (the first ``ints[:, I_NLEGAL]``)
        self.legal_index = np.zeros((b, K.MAX_LEGAL), dtype=np.int32)
        #: (Saboteur 2) per game in its round's thefts: the result so far and the thieves
        #: still to act (the engine's ``Game.pending_result`` and ``theft_queue``)
        self.pending: dict[int, tuple[RoundResult, list[int]]] = {}
        #: per game whose last step the caller settled (:meth:`settle`), the events that
        #: followed the kernels' own, and the round's result where the round closed
        self.settled: dict[int, tuple[list[Event], RoundResult | None]] = {}

    def _derived(self) -> None:
        """The kernels' argument tuples: the state arrays (``S``), and the tables (``T``) and
        parameters (``P``) built from the configuration's card data and layout."""
        self.S = tuple(getattr(self, name) for name in K.STATE)
        tables = _tables(self.config, self.codec, self.encoder)
        self.T = tuple(tables[name] for name in K.TABLES)
        self.P = _params(self.config, self.codec, self.encoder)

    def __getstate__(self) -> dict:
        # the tables and parameters are derived data: rebuilt on unpickling, so that a pickle
        # carries only the games (and one from an older layout of the tables still loads)
        state = self.__dict__.copy()
        for name in ("S", "T", "P"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        if "xfront" not in state:  # its state arrays are another layout's
            raise ValueError(
                "this batch was pickled by an older saboteur-env (before Saboteur 2 ran on "
                "the array backend): its arrays are not this version's; reset a new one"
            )
        self.__dict__.update(state)
        if "encoder" not in state:  # pickled before the encoder was kept
            self.encoder = ObservationEncoder(self.config)
        self._derived()

    # --- Game <-> arrays ------------------------------------------------------------------
    def check(self, g: Game) -> None:
        """Refuse a game the arrays cannot hold, before anything is written: more cards in
        the draw pile and the hands than the ruleset's deck, or more gold-nugget cards than
        the game's supply (a position built with ``check_counts=False``; the draw pile and the
        action record are sized by the deck, every decision consuming a card).

        Raises:
            ValueError: naming the count and the limit.
        """
        cards = len(g.deck) + int(g.hands.sum())
        if cards > self.deck.shape[1]:
            raise ValueError(
                f"{cards} cards in the draw pile and the hands: the array backend holds at most "
                f"the deck's {self.deck.shape[1]} (use backend='engine' for this position)"
            )
        if len(g.nuggets) > self.nuggets.shape[1]:
            raise ValueError(
                f"{len(g.nuggets)} gold-nugget cards in the supply: the array backend holds at "
                f"most the game's {self.nuggets.shape[1]} (use backend='engine' for this position)"
            )
        if len(g.set_aside) > self.set_aside.shape[1]:
            raise ValueError(
                f"{len(g.set_aside)} dwarf cards aside: the array backend holds at most the "
                f"{self.set_aside.shape[1]} the deal leaves (use backend='engine' for this "
                "position)"
            )

    def load(self, i: int, g: Game) -> None:
        """Write game ``g`` into row ``i`` (its observation and mask are written by
        :meth:`refresh`), with the deals of its later rounds.  The round's public history
        comes from ``g.events`` (:func:`~saboteur_env.encoding.history.round_history`), as
        the encoder reads it."""
        bd = g.board
        for name in _BOARD_FIELDS:
            getattr(self, name)[i] = getattr(bd, name)
        for name in _GAME_FIELDS:
            getattr(self, name)[i] = getattr(g, name)
        d = len(g.deck)
        self.deck[i, :d] = g.deck
        h = round_history(g.events, g.n)
        self.actor_counts[i] = h.actor_counts
        self.tool_counts[i] = h.tool_counts
        self.recent[i] = 0
        k = len(h.recent)  # the action numbered a lies in ring row a % N_RECENT
        for j, entry in enumerate(h.recent):
            self.recent[i, (h.added - k + j) % N_RECENT] = (*entry, 1)
        self.nuggets[i, : len(g.nuggets)] = g.nuggets
        self.xfront[i] = g.xfront
        self.theft_turn[i] = g.theft_turn
        self.inspected[i] = g.inspected
        self.xcounts[i] = h.xcounts
        aside = len(g.set_aside)
        self.set_aside[i, :aside] = g.set_aside
        self.pending.pop(i, None)
        if g.pending_result is not None:  # in the thefts (RULES 6.9)
            self.pending[i] = (copy.deepcopy(g.pending_result), list(g.theft_queue))
        # the later rounds' deals, drawn as the engine draws them, from a generator copied at
        # this state (the game's own draws the same when it deals them)
        bits = type(g.rng.bit_generator)()
        bits.state = g.rng.bit_generator.state
        self._write_deals(i, np.random.Generator(bits), g.round + 1, g.removed)
        t = self.ints[i]
        t[:] = 0
        t[K.I_NUGGETS] = len(g.nuggets)
        t[K.I_CURRENT] = g.current
        t[K.I_FIRST] = g.first_player
        t[K.I_TURN] = g.turn
        t[K.I_LAST_CARD] = g.last_card_seat
        t[K.I_DECISIONS] = g.decisions
        t[K.I_ROUND] = g.round
        t[K.I_DECK_LEN] = d
        t[K.I_ADDED] = h.added
        if h.last_placed is None:
            t[K.I_LAST_R] = t[K.I_LAST_C] = -1
        else:
            t[K.I_LAST_R], t[K.I_LAST_C] = bd.rc(*h.last_placed)
        t[K.I_GAME_OVER] = g.game_over
        t[K.I_PATHS] = bd.path_cards_on_board()
        t[K.I_DIRTY] = 1  # the observation's board planes: written whole
        t[K.I_NLEGAL] = K.MAX_LEGAL + 1  # the mask row: cleared whole
        t[K.I_PREV_LAST] = -1
        t[K.I_PHASE] = list(Phase).index(g.phase)
        t[K.I_PHASE_COUNT] = g.phase_count
        t[K.I_PHASE_SLOT] = g.phase_slot
        t[K.I_ASIDE_LEN] = aside
        t[K.I_REMOVED] = int(g.removed.sum())
        rows, cols = np.nonzero(bd.var != EMPTY)
        t[K.I_RMIN], t[K.I_RMAX] = rows.min(), rows.max()
        t[K.I_CMIN], t[K.I_CMAX] = cols.min(), cols.max()

    def _write_deals(
        self, i: int, rng: np.random.Generator, first_round: int, removed: np.ndarray
    ) -> None:
        """Draw game ``i``'s deals of rounds ``first_round`` on from ``rng`` as the engine draws
        them (``setup.draw_round``, the cards ``removed`` so far passed along), for the kernels
        to deal when each round begins."""
        for r in range(first_round, self.config.num_rounds):
            d = draw_round(self.config, rng, r, removed)
            self.deal_roles[i, r] = d.roles
            self.deal_goals[i, r] = d.goals
            self.deal_hands[i, r] = d.hands
            pile = len(d.deck)
            self.deal_deck[i, r, :pile] = d.deck
            self.deal_deck_len[i, r] = pile
            aside = len(d.set_aside)
            self.deal_aside[i, r, :aside] = d.set_aside
            self.deal_aside_len[i, r] = aside
            self.deal_removed[i, r] = int(d.removed.sum())
            removed = d.removed

    def start(self, games: np.ndarray, seeds: Sequence[int]) -> None:
        """A new game in each row ``games[k]`` (int64), dealt from ``seeds[k]`` as
        ``Game(config, seeds[k])`` deals it (every round drawn now, by the engine's
        ``setup.draw_start`` and ``setup.draw_round``, in the engine's order), without making
        a ``Game``; then its observation and mask (RULES 2.4, 5.4).

        Raises:
            ValueError: not one seed per game.
        """
        if len(seeds) != len(games):
            raise ValueError(f"{len(seeds)} seeds for {len(games)} games")
        firsts = np.empty(len(games), dtype=np.int64)
        config = self.config
        for k, (i, seed) in enumerate(zip(games.tolist(), seeds, strict=True)):
            rng = game_generator(seed)
            nuggets, firsts[k] = draw_start(config, rng)
            self.nuggets[i, : len(nuggets)] = nuggets
            self.ints[i, K.I_NUGGETS] = len(nuggets)
            self._write_deals(i, rng, 0, np.zeros(config.ruleset.n_kinds, dtype=np.int64))
        for i in games.tolist():
            self.pending.pop(i, None)
        K.start(games, firsts, self.S, self.T, self.P)
        self.refresh(games)

    def catch_up(self, i: int, g: Game, done: int) -> tuple[int, int]:
        """Play game ``i``'s recorded actions from number ``done`` on through the engine on
        ``g`` (the game row ``i`` was loaded from, brought up to ``done`` actions).  Returns
        the actions recorded and where the events of the last one begin in ``g.events``
        (``-1`` when no action was played).

        Raises:
            RuntimeError: the engine dealt ``g`` a round other than the kernels dealt (its
                generator was drawn by someone else after it was loaded).
        """
        total = int(self.ints[i, K.I_NACTS])
        mark = self.replay(g, self.actions[i, done:total])
        r = g.round
        if (
            r > 0
            and not g.game_over
            and (
                # the arrays' state now (roles change in a round by Swap your hats)
                g.roles.tolist() != self.roles[i].tolist()
                or g.board.goal_identity.tolist() != self.goal_identity[i].tolist()
                or g.deck.tolist()
                != self.deck[i, self.ints[i, K.I_DECK_POS] : self.ints[i, K.I_DECK_LEN]].tolist()
            )
        ):
            raise RuntimeError(
                f"game {i}: the engine dealt round {r} otherwise than the array backend, which "
                "dealt every round when the game was dealt or loaded: its generator (Game.rng) was "
                "drawn since; use backend='engine' to draw from it"
            )
        return total, mark

    def replay(self, g: Game, actions: np.ndarray) -> int:
        """Play ``actions`` (flat indexes, legal: recorded by the kernels) on ``g``; returns
        where the last one's events begin in ``g.events`` (``-1``: none played)."""
        mark = -1
        decode = self.codec.decode
        for a in actions.tolist():
            mark = len(g.events)
            g.apply(decode(a, g.current, g.n), verify=False)
        return mark

    # --- stepping ---------------------------------------------------------------------------
    def step(self, actions: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """Play ``actions`` (int64 ``(B,)``, legal) in every game; the rewards of the rounds
        that end go to ``rewards`` (float32 ``(B, N)``, zeros elsewhere are the caller's).
        Returns int64 ``(B,)`` of ``kernels.CONTINUE`` / ``ROUND_DONE`` / ``GAME_OVER``."""
        K.step(
            actions,
            self.S,
            self.T,
            self.P,
            self.obs,
            self.mask,
            self.legal_index,
            self.stack,
            self.ev,
            self.codes,
            self.changed,
            rewards,
            self.scratch,
        )
        status = self.ints[:, K.I_STATUS]
        self.settled = {}
        if not self.P[K.P_NUGGET_CARDS]:
            for i in np.flatnonzero(status >= K.ROUND_SCORE).tolist():
                self.settle(i, rewards)
        return status

    def settle(self, i: int, rewards: np.ndarray) -> None:
        """Go on where the kernels left game ``i``'s round to the caller (a ruleset whose gold
        is a count: Saboteur 2): score the round that ended (``kernels.ROUND_SCORE``, by the
        engine's :func:`~saboteur_env.engine.scoring.score_s2`) or take the theft just made
        (``THEFT_DONE``), then the next thief with a victim acts (:attr:`Phase.THEFT`), or the
        round closes: its rewards go to ``rewards[i]`` and the next round is dealt or the game
        ends (RULES 5.4, 5.5, 6.9), as ``scoring.end_round_s2``, ``_next_thief``, ``steal``
        and ``close_round`` do.  ``ints[i, I_STATUS]`` becomes CONTINUE, ROUND_DONE or
        GAME_OVER, and the events that followed the kernels' go to ``settled[i]``."""
        t = self.ints[i]
        events: list[Event] = []
        gold = self.gold[i]
        if t[K.I_STATUS] == K.ROUND_SCORE:
            found = bool(t[K.I_GOLD_FOUND])
            trapped = self.xfront[i, :, 0].tolist()
            result = score_s2(
                self.config,
                self._board(i),
                self.roles[i].tolist(),
                found,
                int(t[K.I_CONNECTOR]) if found else None,
                trapped,
                int(t[K.I_ROUND]),
                int(t[K.I_LAST_CARD]),
                int(t[K.I_TURN]),
            )
            gold += np.array(result.received, dtype=np.int64)
            queue = theft_order(self.theft_turn[i].tolist(), self.xfront[i, :, 1].tolist(), trapped)
            if queue:
                events.append(Event(EventType.ROUND_SCORED, None, EventData(scored_data(result))))
        else:  # THEFT_DONE: the kernels moved the gold
            result, queue = self.pending[i]
            thief, victim = int(t[K.I_THIEF]), int(t[K.I_VICTIM])
            result.received[victim] -= 1
            result.received[thief] += 1
            result.thefts.append((thief, victim))
            queue.pop(0)
        for s in skip_thieves(queue, gold):
            events.append(Event(EventType.THEFT_SKIPPED, s, EventData({})))
        if queue:  # the next thief chooses his victim
            self.pending[i] = (result, queue)
            t[K.I_CURRENT], t[K.I_PHASE] = queue[0], K.PH_THEFT
            t[K.I_STATUS] = K.CONTINUE
            self.refresh(np.array([i], dtype=np.int64))
            self.settled[i] = (events, None)
            return
        self.pending.pop(i, None)
        t[K.I_PHASE] = K.PH_TURN
        rewards[i] = round_rewards(result, self.config.reward, self.config.ruleset)
        over = int(t[K.I_ROUND]) + 1 >= self.config.num_rounds
        if over:
            t[K.I_GAME_OVER] = 1
            t[K.I_STATUS] = K.GAME_OVER
        else:
            games = np.array([i], dtype=np.int64)
            K.deal_next(games, self.S, self.T, self.P)
            self.refresh(games)
            t[K.I_STATUS] = K.ROUND_DONE
        events += close_events(
            result,
            gold.tolist(),
            over,
            int(t[K.I_ROUND]),
            int(t[K.I_FIRST]),
            self.roles[i].tolist(),
        )
        self.settled[i] = (events, result)

    def _board(self, i: int) -> Board:
        """Game ``i``'s maze as the engine's :class:`Board` (its final maze at a round end:
        the door evaluation and crystals are the engine's)."""
        bd = Board(self.config.window, self.goal_identity[i].copy())
        for name in _BOARD_FIELDS:
            setattr(bd, name, getattr(self, name)[i].copy())
        return bd

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

    def events(self, i: int) -> list[Event]:
        """The engine's events of game ``i``'s last decision (one that ended no round)."""
        return events_of(self.ev[i, : self.ints[i, K.I_NEV]])


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
    # FIT by neighbourhood code: bit ``row`` set where placement row ``row`` fits (one load
    # a candidate cell instead of one per row in the hand)
    fit_bits = np.zeros((lay.fit.shape[1], 2), dtype=np.int64)
    for row in range(lay.fit.shape[0]):
        fit_bits[:, row // K.ROW_BITS] |= lay.fit[row].astype(np.int64) << (row % K.ROW_BITS)
    lut, goal_adj = (t.astype(np.int64) for t in code_tables(lay.window))
    empty = Board(lay.window)  # a new round's maze: the start and the goals face down
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
        "fit_bits": fit_bits,
        "lut": lut,
        "goal_adj": goal_adj,
        "empty_var": empty.var.copy(),
        "empty_opn": empty.opn.copy(),
        "empty_reached": empty.reached.copy(),
        "empty_conn": empty.conn.copy(),
        # phase x family column: the family is offered (phases.FAMILIES_OF_PHASE, of the
        # ruleset's families), phases in Phase order
        "phase_fams": np.array(
            [
                [
                    f in config.ruleset.families and f in FAMILIES_OF_PHASE[ph]
                    for f in K.FAMILY_COLUMNS
                ]
                for ph in Phase
            ],
            dtype=bool,
        ),
        # the Saboteur 2 action-card rows (cards.X_EFFECTS: verb, front slot, who)
        "x_kind": np.array(lay.x_kinds, dtype=np.int64),
        "x_verb": np.array(
            [K.X_VERBS.index(X_EFFECTS[CARD_KINDS[k].id][0]) for k in lay.x_kinds], dtype=np.int64
        ),
        "x_slot": np.array([X_EFFECTS[CARD_KINDS[k].id][1] for k in lay.x_kinds], dtype=np.int64),
        # Saboteur 2's board channels of each variant (the encoder's, (variants, channels))
        "x_feat": np.ascontiguousarray(encoder._xfeat.T)
        if encoder.n_channels > K.C_LAST_PLACED + 1
        else np.zeros((len(VARIANTS), 0), dtype=np.float32),
        "x_who": np.array(
            [K.X_WHO.index(X_EFFECTS[CARD_KINDS[k].id][2]) for k in lay.x_kinds], dtype=np.int64
        ),
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
    P[K.P_BOARD_SIZE] = V["board"].size
    P[K.P_GOLD] = GOAL_GOLD
    P[K.P_DIGGER], P[K.P_SABOTEUR] = GOLD_DIGGER, SABOTEUR
    P[K.P_FORFEIT] = config.broken_tool_forfeit
    P[K.P_REWARD_GOLD] = config.reward == "gold"
    for k in range(1, 5):
        P[K.P_SAB_PAY + k - 1] = SABOTEUR_PAYOUT[k]
    P[K.P_TAKE] = nugget_cards_drawn(config.num_players)
    rows, cols = np.nonzero(probe.var != EMPTY)
    P[K.P_EMPTY_BBOX : K.P_EMPTY_BBOX + 4] = rows.min(), rows.max(), cols.min(), cols.max()
    rules = config.ruleset
    P[K.P_NW] = _row_words(lay)
    for name, entry in (
        ("xaction", K.P_XACTION),
        ("remove", K.P_REMOVE),
        ("done", K.P_DONE),
        ("steal", K.P_STEAL),
    ):
        P[entry] = blocks[name][0] if name in blocks else -1
    P[K.P_NUGGET_CARDS] = rules.nugget_cards
    P[K.P_XCH] = encoder.n_channels - (K.C_LAST_PLACED + 1)
    P[K.P_NROLES] = rules.n_roles
    P[K.P_GOLD_PUBLIC] = rules.public_gold_holders
    for name, entry in (
        ("xplayers", K.P_OBS_XPLAYERS),
        ("inspections", K.P_OBS_INSPECT),
        ("xhistory", K.P_OBS_XHIST),
        ("phase", K.P_OBS_PHASE),
    ):
        P[entry] = V[name].offset if name in V else -1
    P[K.P_OBS_XPW] = V["xplayers"].shape[1] if "xplayers" in V else 0
    P[K.P_PASS_CARDS] = rules.pass_cards
    P[K.P_REMOVE_DISCARDS] = rules.remove_discards
    x_of = {
        X_EFFECTS[CARD_KINDS[k].id][1]: k
        for k in lay.x_kinds
        if X_EFFECTS[CARD_KINDS[k].id][0] == "put"
    }
    P[K.P_TRAPPED_KIND] = x_of.get(FRONT_TRAPPED, -1)
    P[K.P_THEFT_KIND] = x_of.get(FRONT_THEFT, -1)
    # the kernels' layout assumptions, checked against the encoder's spec
    if not (V["board"].offset == 0 and V["board"].shape[0] >= K.C_LAST_PLACED + 1):
        raise AssertionError("the board view does not start with the kernels' 17 channels")
    if V["tools"].shape != (lay.max_players, lay.max_players, 2):
        raise AssertionError("the tools view is not (max players, max players, 2)")
    rw = lay.max_players + len(encoder.recent_types) + lay.max_players + encoder.n_tool_cols + 4
    if encoder.recent_width != rw:
        raise AssertionError("a recent row is not actor, type, target, tool, x, y, dead, present")
    return P


def resolve_backend(backend: str, config: GameConfig) -> str:
    """The backend that plays ``config``: ``"array"`` or ``"engine"`` (the one choice
    :class:`~saboteur_env.vector.VectorGame` and ``raw_env`` make).

    ``"auto"`` takes ``"array"`` where numba is in use (:func:`.kernels.usable`) and the
    ruleset is one the kernels play (:func:`supports`), else ``"engine"``.

    Raises:
        ValueError: ``backend`` is not ``"auto"``, ``"array"`` or ``"engine"``; ``"array"``
            for a ruleset the kernels do not play.
        RuntimeError: ``"array"`` without numba in use.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}: one of {', '.join(BACKENDS)}")
    if backend == "array" and not K.ENABLED:
        import importlib.util

        why = (
            "the environment variable SABOTEUR_NUMBA=0 turns numba off"
            if importlib.util.find_spec("numba") is not None
            else "numba is not installed (pip install numba, or the 'fast' extra)"
        )
        raise RuntimeError(f"backend='array' needs numba: {why}")
    if backend == "array" and not supports(config):
        raise ValueError(f"backend='array' does not play {config.ruleset.title} yet: use 'engine'")
    if backend == "array" or (backend == "auto" and supports(config) and K.usable()):
        return "array"
    return "engine"


class FollowedGame:
    """One game played by the kernels in row 0 of a one-game :class:`ArrayGames`, which keep
    the observation and mask of its seat to act (``raw_env``'s array backend).  Two ways:

    * **the kernels lead** (:meth:`lead`): the kernels alone play each decision; the engine's
      :class:`~saboteur_env.engine.state.Game` the arrays were loaded from lags behind, and
      :meth:`catch_up` brings it up to date by playing the recorded actions through the engine
      (about 20 us a decision).  The events of a decision are made from the kernels' records
      (:func:`events_of`), a round end's from the arrays (:meth:`round_end`), and the
      observations at the game's end by the kernels for each seat (:meth:`final_observation`).
    * **the engine leads** (:meth:`step`): the engine plays every decision, then the kernels
      play the same action, which updates the observation and mask in place (only what the
      move changed) instead of encoding them anew.

    The arrays hold a game from :meth:`follow`, which loads it unless they hold it already (the
    same object, lagging behind them or at the same decision and round): a game changed by
    ``Game.apply`` directly is loaded anew.  A position the arrays cannot hold
    (:meth:`ArrayGames.check`) is not followed: :meth:`follow` returns ``False`` and the
    caller encodes it.

    Attributes:
        observation: float32 ``(encoder.size,)``, the seat to act's observation (read-only).
        mask: int8 ``(codec.n,)``, its legal actions (read-only).
    """

    def __init__(self, config: GameConfig, codec: Codec, encoder: ObservationEncoder) -> None:
        obs = np.zeros((1, encoder.size), dtype=np.float32)
        mask = np.zeros((1, codec.n), dtype=bool)
        self.config = config
        self.arrays = ArrayGames(config, 1, codec, encoder, obs, mask)
        self._views()
        self._game: Game | None = None  # the game the arrays hold (held: ids are not reused)
        self._key: tuple[int, int] | None = None  # its decisions and round when up to date
        self._done = 0  # the recorded actions played on it
        # the ended round's roles and the gold before its end (round_end's inputs)
        self._roles: list[int] = []
        self._gold: list[int] = []
        self._action = np.zeros(1, dtype=np.int64)
        self._rewards = np.zeros((1, config.num_players), dtype=np.float32)
        self._row = np.zeros(1, dtype=np.int64)
        self._pack: Any = None  # kernels.step's arguments in one object (packed.Pack)

    def _views(self) -> None:
        self.observation = self.arrays.obs[0].view()
        self.observation.flags.writeable = False
        self.mask = self.arrays.mask[0].view(np.int8)
        self.mask.flags.writeable = False

    def __getstate__(self) -> dict:
        # the views are rebuilt on the copied arrays (a copied view would be a separate array),
        # the pack (a compiled object) at the next decision the kernels play
        state = self.__dict__.copy()
        del state["observation"], state["mask"]
        state["_pack"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._views()

    def forget(self) -> None:
        """Hold no game: the next :meth:`follow` loads its game anew (``raw_env.load`` of a
        position, even the same object edited in place)."""
        self._game = self._key = None

    def lagging(self) -> bool:
        """Whether the held game has recorded actions not yet played on it."""
        return self._done < int(self.arrays.ints[0, K.I_NACTS])

    def follow(self, g: Game) -> bool:
        """Whether the arrays hold ``g``'s state (its seat to act's observation and mask),
        loading ``g`` when they hold another state; ``False`` for a game that is over or
        that the arrays cannot hold."""
        if self._game is g and (self._key == (g.decisions, g.round) or self.lagging()):
            return True
        self._game = self._key = None
        if g.game_over:
            return False
        try:
            self.arrays.check(g)
        except ValueError:
            return False
        arr = self.arrays
        arr.load(0, g)
        arr.refresh(self._row)
        self._game, self._key, self._done = g, (g.decisions, g.round), 0
        self._roles, self._gold = g.roles.tolist(), g.gold.tolist()
        return True

    def catch_up(self, g: Game) -> None:
        """Play the recorded actions not yet played on ``g``, the game the arrays hold.

        Raises:
            RuntimeError: the engine dealt a round otherwise than the kernels (``g.rng`` was
                drawn since the game was dealt or loaded).
        """
        if self._game is g and self.lagging():
            total = int(self.arrays.ints[0, K.I_NACTS])
            try:
                self.arrays.catch_up(0, g, self._done)
            finally:  # played even where the deal check then fails: not played twice
                self._done = total
                self._key = (g.decisions, g.round)

    def step(self, g: Game, action: int) -> None:
        """The engine leads: play ``action`` (legal: the engine has just played it on ``g``,
        which the arrays held before it) in the arrays."""
        if self._game is not g or g.game_over:
            self._game = self._key = None
            return
        status = self._play(action)
        arr = self.arrays
        self._done = int(arr.ints[0, K.I_NACTS])
        if status == K.GAME_OVER or (
            # the kernels deal from the deals drawn at load; a generator drawn since then
            # (by a caller) makes the engine deal otherwise: load the engine's deal
            status == K.ROUND_DONE
            and (
                not np.array_equal(arr.roles[0], g.roles)
                or not np.array_equal(arr.goal_identity[0], g.board.goal_identity)
                or not np.array_equal(arr.hands[0], g.hands)
                or not np.array_equal(
                    arr.deck[0, arr.ints[0, K.I_DECK_POS] : arr.ints[0, K.I_DECK_LEN]], g.deck
                )
            )
        ):
            self._game = self._key = None
            return
        self._key = (g.decisions, g.round)
        if status == K.ROUND_DONE:
            self._roles, self._gold = g.roles.tolist(), g.gold.tolist()

    def _play(self, action: int) -> int:
        """Play ``action`` in the arrays (``ArrayGames.step`` of the one game, its arguments
        unboxed as one object: ``packed.Pack``); returns the kernels' status."""
        if self._pack is None:
            from .packed import make_pack

            arr = self.arrays
            self._pack = make_pack(
                self._action,
                arr.S,
                arr.T,
                arr.P,
                arr.obs,
                arr.mask,
                arr.legal_index,
                arr.stack,
                arr.ev,
                arr.codes,
                arr.changed,
                self._rewards,
                arr.scratch,
            )
        self._action[0] = action
        arr = self.arrays
        arr.settled = {}
        K.step_one(self._pack)
        if arr.ints[0, K.I_STATUS] >= K.ROUND_SCORE:
            arr.settle(0, self._rewards)
        return int(arr.ints[0, K.I_STATUS])

    @property
    def current(self) -> int:
        """The seat to act in the arrays."""
        return int(self.arrays.ints[0, K.I_CURRENT])

    @property
    def decisions(self) -> int:
        """The game's decisions in the arrays."""
        return int(self.arrays.ints[0, K.I_DECISIONS])

    def lead(self, action: int) -> tuple[bool, list[Event], RoundResult | None]:
        """The kernels lead: play ``action`` (legal) in the arrays alone.  Returns whether
        the game is over, the events of the decision as the engine emits them, and the
        round's result where the decision ended it."""
        arr = self.arrays
        ints = arr.ints[0]
        seat, rnd, turn = int(ints[K.I_CURRENT]), int(ints[K.I_ROUND]), int(ints[K.I_TURN])
        status = self._play(action)
        events = events_of(arr.ev[0, : ints[K.I_NEV]])
        if 0 in arr.settled:  # the caller's part of a Saboteur 2 round end (settle)
            more, closed = arr.settled[0]
            return status == K.GAME_OVER, events + more, closed
        if status == K.CONTINUE:
            return False, events, None
        over = status == K.GAME_OVER
        result, end = self.round_end(events, seat, rnd, turn, over)
        if not over:
            self._roles, self._gold = arr.roles[0].tolist(), arr.gold[0].tolist()
        return over, events + end, result

    def round_end(
        self, events: list[Event], seat: int, rnd: int, turn: int, game_over: bool
    ) -> tuple[RoundResult, list[Event]]:
        """The result of the round the kernels just ended, and the events the engine emits
        after the decision's own, made from the arrays after the step: the restatement of
        :func:`~saboteur_env.engine.scoring.close_round`'s events and, for the next round,
        ``setup.deal_round``'s (``round_end``, each seat's ``gold_received``, then
        ``game_end`` or ``round_start`` and each seat's ``role_dealt``); the result itself
        and the game's winners are the engine's (``scoring.base_result``,
        ``scoring.most_gold``).  ``events``: the decision's events; ``seat``, ``rnd``,
        ``turn``: the acting seat, the round and its turns before the decision."""
        arr = self.arrays
        n = self.config.num_players
        gold = arr.gold[0].tolist()
        received = [gold[s] - self._gold[s] for s in range(n)]
        # the gold is found by the placement that turns the gold goal face up (RULES 4.2)
        gold_found = any(
            e.type is EventType.GOAL_REVEALED and e.data["identity"] == GOAL_GOLD for e in events
        )
        # every base-game decision is a turn, which consumes a card (Game.begin_decision)
        result = base_result(
            rnd, gold_found, seat if gold_found else None, self._roles, received, seat, turn + 1
        )
        ints = arr.ints[0]
        out = close_events(
            result,
            gold,
            game_over,
            int(ints[K.I_ROUND]),
            int(ints[K.I_FIRST]),
            arr.roles[0].tolist(),
        )
        return result, out

    def final_observation(self, seat: int) -> np.ndarray:
        """float32 ``(encoder.size,)``: ``seat``'s observation of the ended game the kernels
        led to its end (a copy; the encoder's of the same state).  The arrays' observation
        and mask rows are rewritten (the seat to act is kept)."""
        ints = self.arrays.ints[0]
        current = int(ints[K.I_CURRENT])
        ints[K.I_CURRENT] = seat  # the kernels encode for the seat to act
        try:
            self.arrays.refresh(self._row)
        finally:
            ints[K.I_CURRENT] = current
        return self.observation.copy()
