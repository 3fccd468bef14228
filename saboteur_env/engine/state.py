"""The rules engine (base game RULES 2-5, Saboteur 2 RULES 6): state, legality, apply, rounds
and scoring.

Pure Python + numpy; no RL library is imported here (DESIGN 1).  The engine works in *seats*
``0..N-1``; play goes clockwise, i.e. ``seat + 1 mod N`` (RULES 2.4).

Actions are small frozen dataclasses (:class:`PlacePath`, :class:`BreakTool`, :class:`Repair`,
:class:`Rockfall`, :class:`Map`, :class:`Discard`).  :meth:`Game.check` names the rule an action
breaks (or returns ``None``); :meth:`Game.apply` raises :class:`IllegalActionError` for an illegal
action and leaves the state untouched, otherwise mutates the state and returns the
:class:`Event` s it caused.  Events are the history; an event with ``visible_to=None`` is public,
otherwise it is private to that seat.

Saboteur 2 (``config.expansion``, RULES 6) adds :class:`PlayCard`, :class:`RemoveFront`,
:class:`EndPass` and :class:`Steal`.  Options that take several cards are one decision per card
by the same seat (``Game.phase``: ``"pass"`` after a first :class:`Discard`, ``"remove"`` after
:class:`RemoveFront`, ``"theft"`` at round end while thieves choose victims; ``"turn"``
otherwise).  Card effects come from the card table (``cards.X_EFFECTS``, door colours,
crystals); the round-end evaluation lives in :mod:`saboteur_env.engine.scoring`.  Rulings of this
implementation where RULES 6 leaves room:

* discard-two-to-remove: the card in front is chosen first, then the two discards (face
  down); it needs a card in front and at least two in hand; the player draws one card;
* a pass discards face down; the number of discarded cards is public;
* Swap your hats draws the top card of the shuffled dwarf cards aside;
* Swap your hand may target a player with an empty hand; that player then draws one card;
* thefts: the working thief (not trapped) who played his Theft most recently first, then the
  other working thieves clockwise from him; victims are other players with at least 1 gold;
  a thief with no possible victim is skipped without a decision;
* ``both_doors_rule="bga"`` without a Boss in play: the Profiteer alone (if in play) wins;
* geologists: ``g`` counts every geologist in play at round end, trapped or not;
* ``role_table`` and ``broken_tool_forfeit`` are base-game options and have no effect.

Build any position by hand with :func:`build_state` (the test hook, DESIGN 2).
"""

from __future__ import annotations

import copy as _copy
from dataclasses import dataclass, field
from itertools import product

import numpy as np

from .board import EMPTY, HIDDEN_GOAL, Board
from .cards import (
    ALL_KINDS,
    CARD_KINDS,
    EXPANSION_ROLES,
    FRONT_SLOTS,
    FRONT_THEFT,
    FRONT_TRAPPED,
    GOAL_CELLS,
    GOAL_GOLD,
    GOLD_CARDS,
    GOLD_DIGGER,
    HAND_SIZE,
    KIND_INDEX,
    N_BASE_KINDS,
    N_EXPANSION_KINDS,
    ROLE_TABLE_PUBLISHED,
    ROLE_TABLE_SEED,
    ROLES_S2,
    S2_HAND_SIZE,
    S2_REMOVED,
    SABOTEUR,
    SABOTEUR_PAYOUT,
    TOOLS,
    VARIANT_OF,
    VARIANTS,
    X_EFFECTS,
    deck_counts,
    kind_label,
)
from .config import GameConfig
from .scoring import payouts_s2, theft_order, winners_s2


class IllegalActionError(ValueError):
    """An action that the rules forbid in this state; the message names the rule (RULES x.y).

    The state is left unchanged.
    """


# --- actions (DESIGN 2) ---------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PlacePath:
    """Place path card ``kind`` at cell (x, y), turned 180 degrees if ``rotated`` (RULES 3.1).

    For kinds that look the same after a 180-degree turn only ``rotated=False`` is legal, so
    every distinct move has exactly one action (cases P15)."""

    kind: int
    x: int
    y: int
    rotated: bool = False


@dataclass(frozen=True, slots=True)
class BreakTool:
    """Play broken-tool card ``kind`` in front of seat ``target`` (RULES 3.2)."""

    kind: int
    target: int


@dataclass(frozen=True, slots=True)
class Repair:
    """Play repair card ``kind`` on seat ``target``, repairing ``tool`` (0 pick, 1 lantern,
    2 cart); a double repair card names the one tool it repairs (RULES 3.3)."""

    kind: int
    tool: int
    target: int


@dataclass(frozen=True, slots=True)
class Rockfall:
    """Play a rockfall card and remove the tunnel card at (x, y) (RULES 3.4)."""

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Map:
    """Play a map card and look at goal slot ``goal`` (0 top, 1 middle, 2 bottom) (RULES 3.5)."""

    goal: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Pass, discarding one card of ``kind`` face down (RULES 3.6)."""

    kind: int


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play Saboteur 2 action card ``kind`` (Theft, Hands off!, Swap your hand, Inspection, Swap
    your hats, Trapped!, Free at last!) on seat ``target`` (RULES 6.5)."""

    kind: int
    target: int


@dataclass(frozen=True, slots=True)
class RemoveFront:
    """Saboteur 2 turn option 3 (RULES 6.7): remove the card in front of yourself in ``slot``
    (``cards.FRONT_SLOTS``: 0-2 broken tools, 3 Trapped!, 4 Theft).  The same seat then
    discards two hand cards, one :class:`Discard` decision each; then draws one card."""

    slot: int


@dataclass(frozen=True, slots=True)
class EndPass:
    """Saboteur 2 pass (RULES 6.7 option 4): stop discarding after one or two cards (the pass
    ends by itself after the third card or when the hand is empty), then draw as many."""


@dataclass(frozen=True, slots=True)
class Steal:
    """Round-end Theft (RULES 6.9): the thief to act takes 1 gold from seat ``target``."""

    target: int


Action = PlacePath | BreakTool | Repair | Rockfall | Map | Discard | PlayCard | RemoveFront | \
    EndPass | Steal


class EventData(dict):
    """A read-only dict: events are shared by every agent's ``infos`` and the game's history,
    so no reader may change them (treat lists inside as read-only too).

    Raises:
        TypeError: on any attempt to modify it.
    """

    __slots__ = ()

    def _read_only(self, *args, **kwargs):
        raise TypeError("event data is read-only (shared by every observer and the history)")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _read_only
    __ior__ = _read_only

    def __reduce__(self):
        return (EventData, (dict(self),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened.  ``visible_to=None``: public; else private to that seat.

    ``type`` is one of ``round_start``, ``path_placed``, ``goal_revealed``, ``tool_broken``,
    ``tool_repaired``, ``rockfall``, ``map_played``, ``map_result`` (private), ``discarded``,
    ``discarded_card`` (private), ``card_drawn`` (private), ``round_end``, ``gold_received``
    (private), ``game_end``.  ``seat`` is the actor (absolute), ``data`` the details (a
    read-only :class:`EventData`).
    """

    type: str
    seat: int | None = None
    data: dict = field(default_factory=dict)
    visible_to: int | None = None


# --- game state ----------------------------------------------------------------------
class Game:
    """The full state of one game of the base game (RULES 2-5).

    Construct with ``Game(config, seed)``; a new game deals round 0 at once.

    Attributes:
        config: the :class:`GameConfig`.
        n: number of players.
        rng: the game's only random generator (``numpy.random.Generator``).
        round: 0-based round index.
        roles: int8 ``(n,)``: GOLD_DIGGER (0) or SABOTEUR (1) per seat.
        set_aside: roles of the dwarf cards not dealt this round (RULES 2.2).
        hands: int16 ``(n, n_kinds)``: cards of each kind in each hand.
        deck: int16 ``(k,)``: the draw pile, top card first.
        discards: int64 ``(n_kinds,)``: cards in the discard pile by kind.
        board: the :class:`~saboteur_env.engine.board.Board`.
        broken: bool ``(n, 3)``: broken pick / lantern / cart in front of each seat.
        broken_kind: int16 ``(n, 3)``: kind of the broken card in front (-1 none).
        known_goals: bool ``(n, 3)``: seat has seen goal slot (map or reveal).
        nuggets: int8 ``(k,)``: the face-down gold supply, top card first.
        gold: int64 ``(n,)``: nuggets each seat holds; gold_cards int64 ``(n, 3)`` by value.
        current: seat to act.  turn: turns taken this round.  last_card_seat: seat of the
        last card-consuming turn (RULES 5.4).
        round_over / game_over: flags; ``round_results`` a list of per-round dicts.
        events: every event of the game, in order.
    """

    def __init__(self, config: GameConfig | None = None, seed: int | None = None,
                 _deal: bool = True) -> None:
        self.config = config or GameConfig()
        self.n = self.config.num_players
        self.expansion = self.config.expansion
        self.n_kinds = N_EXPANSION_KINDS if self.expansion else N_BASE_KINDS
        self.phase = "turn"
        self.rng = np.random.default_rng(seed)
        self.round = 0
        self.game_over = False
        self.round_over = False
        self.round_results: list[dict] = []
        self.round_boards: list[Board] = []
        self.events: list[Event] = []
        self.gold = np.zeros(self.n, dtype=np.int64)
        self.gold_cards = np.zeros((self.n, 3), dtype=np.int64)
        self.decisions = 0
        if _deal:
            if self.expansion:  # RULES 6.1, 6.6: gold is an integer, no nugget cards
                self.nuggets = np.zeros(0, dtype=np.int8)
            else:
                nug = np.repeat(np.array(list(GOLD_CARDS), dtype=np.int8),
                                list(GOLD_CARDS.values()))
                self.nuggets = self.rng.permutation(nug)  # RULES 2.4 step 4, once per game
            fp = self.config.first_player
            first = int(self.rng.integers(self.n)) if fp == "random" else int(fp)
            self._deal_round(first)

    # --- setup (RULES 2.4, 5.4) ------------------------------------------------------
    def _deal_round(self, first: int) -> None:
        if self.expansion:
            self._deal_round_s2(first)
        else:
            self._deal_round_base(first)
        self._init_round_state(first)

    def _deal_round_s2(self, first: int) -> None:
        """RULES 6.6: shuffle the 118 path and action cards, remove 10 unseen (every round, or
        only in the first with ``remove_cards_each_round=False``), deal 6 each; shuffle the 15
        dwarf cards, deal one each, the rest stay aside (for Swap your hats)."""
        cfg, n, rng = self.config, self.n, self.rng
        counts = deck_counts(True)
        deck = rng.permutation(np.repeat(np.arange(self.n_kinds, dtype=np.int16), counts))
        k = S2_REMOVED if (cfg.remove_cards_each_round or self.round == 0) else 0
        self.removed = np.bincount(deck[:k], minlength=self.n_kinds).astype(np.int64)
        deck = deck[k:]
        self.hands = np.zeros((n, self.n_kinds), dtype=np.int16)
        h = S2_HAND_SIZE
        for s in range(n):
            np.add.at(self.hands[s], deck[s * h:(s + 1) * h], 1)
        self.deck = deck[n * h:]
        role_deck = rng.permutation(np.repeat(np.arange(len(ROLES_S2), dtype=np.int8),
                                              list(ROLES_S2.values())))
        self.roles = role_deck[:n].copy()
        self.set_aside = role_deck[n:].tolist()
        self.board = Board(cfg.board_window, rng.permutation(3).astype(np.int8))

    def _deal_round_base(self, first: int) -> None:
        cfg, n, rng = self.config, self.n, self.rng
        table = ROLE_TABLE_PUBLISHED if cfg.role_table == "published" else ROLE_TABLE_SEED
        sab, dig = table[n]
        role_deck = rng.permutation(np.array([SABOTEUR] * sab + [GOLD_DIGGER] * dig,
                                             dtype=np.int8))
        self.roles = role_deck[:n].copy()
        self.set_aside = role_deck[n:].tolist()
        goals = rng.permutation(3).astype(np.int8)
        self.board = Board(cfg.board_window, goals)
        counts = deck_counts(False)
        deck = rng.permutation(np.repeat(np.arange(self.n_kinds, dtype=np.int16), counts))
        h = HAND_SIZE[n]
        self.hands = np.zeros((n, self.n_kinds), dtype=np.int16)
        for s in range(n):
            np.add.at(self.hands[s], deck[s * h:(s + 1) * h], 1)
        self.deck = deck[n * h:]
        self.removed = np.zeros(self.n_kinds, dtype=np.int64)

    def _init_round_state(self, first: int) -> None:
        n = self.n
        self.discards = np.zeros(self.n_kinds, dtype=np.int64)
        #: Saboteur 2: [Trapped!, Theft] in front of each seat; the decision count at which
        #: each Theft was played; inspections seen ([inspector, target] = role seen, -1 none);
        #: the dwarf cards discarded by Swap your hats (out for the round).
        self.xfront = np.zeros((n, 2), dtype=bool)
        self.theft_turn = np.full(n, -1, dtype=np.int64)
        self.inspected = np.full((n, n), -1, dtype=np.int8)
        self.hat_swaps = np.zeros(n, dtype=np.int16)
        self.inspected_swaps = np.zeros((n, n), dtype=np.int16)
        self.hats_discarded: list[int] = []
        self.phase = "turn"
        self.phase_count = 0
        self.phase_slot = -1
        self.theft_queue: list[int] = []
        self.round_ctx: dict | None = None
        self.broken = np.zeros((n, 3), dtype=bool)
        self.broken_kind = np.full((n, 3), -1, dtype=np.int16)
        self.known_goals = np.zeros((n, 3), dtype=bool)
        self.current = first
        self.first_player = first
        self.turn = 0
        self.last_card_seat = first
        self.round_over = False
        self._reset_history()
        self._emit("round_start", None, {"round": self.round, "first_player": first})
        for s in range(n):
            self._emit("role_dealt", s, {"role": int(self.roles[s])}, visible_to=s)

    def _reset_history(self) -> None:
        n = self.n
        #: public history of this round: per actor [through cards placed, dead ends placed,
        #: rockfalls, maps, discards]; per actor x target [tools broken, tools repaired]
        self.actor_counts = np.zeros((n, 5), dtype=np.int16)
        self.tool_counts = np.zeros((n, n, 2), dtype=np.int16)
        #: Saboteur 2: per actor x target x card (X_EFFECTS order), this round's plays
        self.xcounts = np.zeros((n, n, len(X_EFFECTS)), dtype=np.int16)
        #: the last public actions of this round: (actor, type 0-5, target, x, y, tool)
        self.recent: list[tuple] = []
        #: the cell of the most recent path card placed this round that is still in the maze
        self.last_placed: tuple[int, int] | None = None

    def _record(self, actor: int, typ: int, target=-1, x=0, y=0, tool=-1, dead_end=0) -> None:
        self.recent.append((actor, typ, target, x, y, tool, dead_end))
        if len(self.recent) > 8:
            del self.recent[0]

    # --- copying ---------------------------------------------------------------------
    def copy(self) -> Game:
        """An independent deep copy (numpy arrays and the generator state copied)."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        for k, v in self.__dict__.items():
            if isinstance(v, np.ndarray):
                setattr(g, k, v.copy())
        g.board = self.board.copy()
        g.rng = _copy.deepcopy(self.rng)
        g.events = list(self.events)
        g.round_results = list(self.round_results)
        g.round_boards = list(self.round_boards)
        g.set_aside = list(self.set_aside)
        g.recent = list(self.recent)
        g.hats_discarded = list(self.hats_discarded)
        g.theft_queue = list(self.theft_queue)
        g.round_ctx = _copy.deepcopy(self.round_ctx)
        g.__dict__["_pending"] = []
        return g

    # --- helpers ---------------------------------------------------------------------
    def _emit(self, type_: str, seat, data, visible_to=None) -> Event:
        e = Event(type_, seat, EventData(data), visible_to)
        self.events.append(e)
        self._new_events.append(e)
        return e

    @property
    def _new_events(self) -> list:
        ne = self.__dict__.get("_pending")
        if ne is None:
            ne = self.__dict__["_pending"] = []
        return ne

    def hand_size(self, seat: int) -> int:
        return int(self.hands[seat].sum())

    def hand_kinds(self, seat: int) -> list[int]:
        """Kinds held by ``seat``, sorted, one entry per card."""
        return np.repeat(np.arange(self.n_kinds), self.hands[seat]).tolist()

    def can_place_paths(self, seat: int) -> bool:
        """RULES 3.1.1 / 3.2: no broken tool in front of the seat; Saboteur 2: not Trapped!
        (RULES 6.5)."""
        return not self.broken[seat].any() and not self.xfront[seat, 0]

    def front(self, seat: int) -> np.ndarray:
        """Bool ``(5,)``: the cards in front of ``seat`` by ``cards.FRONT_SLOTS``."""
        return np.concatenate([self.broken[seat], self.xfront[seat]])

    def front_kind(self, seat: int, slot: int) -> int:
        """Card kind lying in front of ``seat`` in ``slot`` (the slot must be taken)."""
        if slot < 3:
            return int(self.broken_kind[seat, slot])
        return KIND_INDEX["trapped" if slot == FRONT_TRAPPED else "theft"]

    def x_targets(self, seat: int, kind: int) -> np.ndarray:
        """Bool ``(n,)`` absolute seats on which ``seat`` may play Saboteur 2 action card
        ``kind`` (RULES 6.5), from the card's row of ``cards.X_EFFECTS``."""
        verb, slot, who = X_EFFECTS[CARD_KINDS[kind].id]
        n = self.n
        if who == "self":
            ok = np.arange(n) == seat
        elif who == "other":
            ok = np.arange(n) != seat
        else:
            ok = np.ones(n, dtype=bool)
        if verb == "put":
            ok &= ~self.xfront[:, slot - 3]
        elif verb == "clear":
            ok &= self.xfront[:, slot - 3]
        elif verb == "swap_hats" and not self.set_aside:
            ok[:] = False  # RULES 7.21: no dwarf card left to draw
        return ok

    def steal_targets(self, seat: int) -> np.ndarray:
        """Bool ``(n,)``: players the thief ``seat`` may rob: anyone else holding gold
        (RULES 6.9)."""
        ok = self.gold >= 1
        ok[seat] = False
        return ok

    # --- legality (structured, for explanations and tests) -----------------------------
    def check(self, action: Action, seat: int | None = None) -> str | None:
        """Why ``action`` is illegal for ``seat`` (default: the current seat), or ``None``.

        The returned text names the rule (RULES section) that forbids it.
        """
        seat = self.current if seat is None else seat
        if self.game_over:
            return "the game is over (RULES 5.5)"
        if seat != self.current:
            return f"it is seat {self.current}'s turn, not seat {seat}'s"
        hand = self.hands[seat]
        if self.phase != "turn" or isinstance(action, (PlayCard, RemoveFront, EndPass, Steal)):
            return self._check_s2(action, seat)
        kind = getattr(action, "kind", KIND_INDEX["rockfall"] if isinstance(action, Rockfall)
                       else KIND_INDEX["map"] if isinstance(action, Map) else None)
        if kind is None or not isinstance(kind, (int, np.integer)) or \
                not 0 <= kind < self.n_kinds:
            return f"unknown card kind in {action!r}"
        if hand[kind] == 0:
            return f"seat {seat} holds no {ALL_KINDS[kind].id} card"
        info = ALL_KINDS[kind]
        if isinstance(action, Discard):
            return None
        if isinstance(action, PlacePath):
            if info.category != "path":
                return f"{info.id} is not a path card (RULES 3.1)"
            if action.rotated and VARIANT_OF[(kind, True)] == VARIANT_OF[(kind, False)]:
                return (f"{info.id} is symmetric under 180 degrees: use rotated=False "
                        "(one action per distinct move)")
            if not self.can_place_paths(seat):
                return ("a player with a broken tool or a Trapped! card may not place path "
                        "cards (RULES 3.1.1, 3.2, 6.5)")
            b = self.board
            if not b.in_window(action.x, action.y):
                return f"cell ({action.x}, {action.y}) is outside the board window (DESIGN 3)"
            if b.variant_at(action.x, action.y) != EMPTY:
                return f"cell ({action.x}, {action.y}) is not empty (RULES 3.1.2)"
            if not b.fits(VARIANT_OF[(kind, action.rotated)], action.x, action.y):
                return (f"{kind_label(kind, action.rotated)} does not fit at "
                        f"({action.x}, {action.y}): it must touch the maze, match every "
                        "face-up neighbour's edges and connect to the start "
                        "(RULES 3.1.2, 3.1.4, 3.1.5)")
            return None
        if isinstance(action, BreakTool):
            if info.effect[:1] != ("break",):
                return f"{info.id} is not a broken-tool card (RULES 3.2)"
            t = action.target
            if not isinstance(t, (int, np.integer)) or not 0 <= t < self.n:
                return f"target seat {t!r} is not in play"
            if t == seat and not self.config.self_sabotage:
                return "self_sabotage=False: a broken tool may not be played on oneself (RULES 3.2)"
            tool = info.effect[1]
            if self.broken[t, tool]:
                return f"seat {t} already has a broken {TOOLS[tool]} (RULES 3.2)"
            return None
        if isinstance(action, Repair):
            if info.effect[:1] != ("repair",):
                return f"{info.id} is not a repair card (RULES 3.3)"
            t = action.target
            if not isinstance(t, (int, np.integer)) or not 0 <= t < self.n:
                return f"target seat {t!r} is not in play"
            if action.tool not in info.effect[1]:
                tool_name = TOOLS[action.tool] if action.tool in (0, 1, 2) else repr(action.tool)
                return f"{info.id} cannot repair a {tool_name} (RULES 3.3)"
            if not self.broken[t, action.tool]:
                return f"seat {t} has no broken {TOOLS[action.tool]} to repair (RULES 3.3)"
            return None
        if isinstance(action, Rockfall):
            b = self.board
            if not b.in_window(action.x, action.y) or \
                    not b.removable()[b.cell_index(action.x, action.y)]:
                return (f"no removable tunnel card at ({action.x}, {action.y}): rockfall "
                        "removes a path card, never the start or a goal (RULES 3.4)")
            return None
        if isinstance(action, Map):
            if action.goal not in (0, 1, 2):
                return f"goal slot {action.goal!r} is not 0, 1 or 2"
            if self.board.goal_revealed[action.goal]:
                return "a map may only look at a face-down goal (RULES 3.5)"
            return None
        return f"unknown action {action!r}"

    def _check_s2(self, action: Action, seat: int) -> str | None:
        """:meth:`check` for the Saboteur 2 actions and sub-phases (RULES 6.5, 6.7, 6.9)."""
        if not self.expansion:
            return f"{action!r} exists only in the Saboteur 2 expansion (RULES 6)"
        hand = self.hands[seat]
        n = self.n
        if self.phase == "theft":
            if not isinstance(action, Steal):
                return "at round end the thief must choose a victim (Steal, RULES 6.9)"
            t = action.target
            if not isinstance(t, (int, np.integer)) or not 0 <= t < n \
                    or not self.steal_targets(seat)[t]:
                return (f"seat {t!r} cannot be robbed: a thief steals from another player "
                        "holding at least 1 gold (RULES 6.9)")
            return None
        if self.phase in ("pass", "remove"):
            if isinstance(action, EndPass):
                if self.phase == "pass":
                    return None
                return "discard-two-to-remove needs exactly two discards (RULES 6.7)"
            if not isinstance(action, Discard):
                what = "pass (discard or EndPass)" if self.phase == "pass" else \
                    "discard-two-to-remove (discard a second card)"
                return f"seat {seat} is in the middle of a {what} (RULES 6.7)"
            k = action.kind
            if not isinstance(k, (int, np.integer)) or not 0 <= k < self.n_kinds \
                    or hand[k] == 0:
                return f"seat {seat} holds no card of kind {k!r}"
            return None
        if isinstance(action, (EndPass, Steal)):
            return f"{action!r} is only legal in a pass or at round end (RULES 6.7, 6.9)"
        if isinstance(action, RemoveFront):
            if action.slot not in range(5):
                return f"slot {action.slot!r} is not 0-4 ({FRONT_SLOTS})"
            if hand.sum() < 2:
                return "discard-two-to-remove needs at least 2 cards in hand (RULES 6.7)"
            if not self.front(seat)[action.slot]:
                return (f"seat {seat} has no {FRONT_SLOTS[action.slot]} card in front of "
                        "himself to remove (RULES 6.7)")
            return None
        k = action.kind
        if not isinstance(k, (int, np.integer)) or not 0 <= k < self.n_kinds or hand[k] == 0:
            return f"seat {seat} holds no card of kind {k!r}"
        if CARD_KINDS[k].id not in X_EFFECTS:
            return f"{CARD_KINDS[k].id} is not a Saboteur 2 action card (RULES 6.5)"
        t = action.target
        if not isinstance(t, (int, np.integer)) or not 0 <= t < n:
            return f"target seat {t!r} is not in play"
        if not self.x_targets(seat, k)[t]:
            verb, slot, who = X_EFFECTS[CARD_KINDS[k].id]
            return (f"{CARD_KINDS[k].id} cannot target seat {t}: target must be "
                    f"{ {'self': 'yourself', 'any': 'any player', 'other': 'another player'}[who] }"
                    + (f", with no {FRONT_SLOTS[slot]} card already in front" if verb == "put"
                       else f", with a {FRONT_SLOTS[slot]} card in front" if verb == "clear"
                       else ", and a dwarf card must be left to draw" if verb == "swap_hats"
                       else "") + " (RULES 6.5, 7.21)")
        return None

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal action of the current seat, by brute force over :meth:`check`.

        Slow and obviously correct: the reference for the codec's array mask.
        """
        seat = self.current if seat is None else seat
        if self.game_over or seat != self.current:
            return []
        out: list[Action] = []
        x0, x1, y0, y1 = self.board.window
        if self.phase == "theft":
            return [a for a in (Steal(t) for t in range(self.n)) if self.check(a, seat) is None]
        if self.phase in ("pass", "remove"):
            cands = [Discard(k) for k in np.nonzero(self.hands[seat])[0].tolist()]
            cands.append(EndPass())
            return [a for a in cands if self.check(a, seat) is None]
        if self.expansion:
            out += [a for a in (RemoveFront(sl) for sl in range(5))
                    if self.check(a, seat) is None]
        for k in np.nonzero(self.hands[seat])[0].tolist():
            info = CARD_KINDS[k]
            cands: list[Action] = [Discard(k)]
            if info.id in X_EFFECTS:
                cands += [PlayCard(k, t) for t in range(self.n)]
            if info.category == "path":
                rots = (False, True) if VARIANT_OF[(k, True)] != VARIANT_OF[(k, False)] \
                    else (False,)
                cands += [PlacePath(k, x, y, r) for r in rots
                          for x, y in product(range(x0, x1 + 1), range(y0, y1 + 1))]
            elif info.effect[0] == "break":
                cands += [BreakTool(k, t) for t in range(self.n)]
            elif info.effect[0] == "repair":
                cands += [Repair(k, tool, t) for tool in info.effect[1] for t in range(self.n)]
            elif info.effect[0] == "rockfall":
                cands += [Rockfall(x, y) for x, y in product(range(x0, x1 + 1),
                                                             range(y0, y1 + 1))]
            elif info.effect[0] == "map":
                cands += [Map(g) for g in range(3)]
            out += [a for a in cands if self.check(a, seat) is None]
        return out

    # --- applying --------------------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        """Play ``action`` for the current seat and advance the game.

        Returns the events caused (public and private).

        Raises:
            IllegalActionError: the action breaks a rule (named in the message); nothing changes.
        """
        why = self.check(action)
        if why is not None:
            raise IllegalActionError(why)
        return self._apply_unchecked(action)

    def _apply_unchecked(self, action: Action) -> list[Event]:
        if self.expansion and (self.phase != "turn"
                               or isinstance(action, (Discard, PlayCard, RemoveFront))):
            return self._apply_s2(action)
        self.__dict__["_pending"] = []
        seat = self.current
        self.decisions += 1
        self.turn += 1
        gold_found = False
        if isinstance(action, PlacePath):
            k = action.kind
            self.hands[seat, k] -= 1
            variant = VARIANT_OF[(k, action.rotated)]
            revealed = self.board.place(variant, action.x, action.y)
            self._emit("path_placed", seat, {"kind": k, "x": action.x, "y": action.y,
                                             "rotated": VARIANTS[variant].rotated,
                                             "variant": variant})
            dead = int(CARD_KINDS[k].is_dead_end)
            self.actor_counts[seat, 1 if dead else 0] += 1
            self._record(seat, 0, -1, action.x, action.y, -1, dead)
            self.last_placed = (action.x, action.y)
            for slot, ident, rotated in revealed:
                self.known_goals[:, slot] = True
                gx, gy = GOAL_CELLS[slot]
                self._emit("goal_revealed", seat, {"goal": slot, "x": gx, "y": gy,
                                                   "identity": ident, "rotated": rotated})
                gold_found |= ident == GOAL_GOLD
        elif isinstance(action, BreakTool):
            k = action.kind
            tool = CARD_KINDS[k].effect[1]
            self.hands[seat, k] -= 1
            self.broken[action.target, tool] = True
            self.broken_kind[action.target, tool] = k
            self._emit("tool_broken", seat, {"kind": k, "target": action.target, "tool": tool})
            self.tool_counts[seat, action.target, 0] += 1
            self._record(seat, 1, action.target, 0, 0, tool)
        elif isinstance(action, Repair):
            k, t, tool = action.kind, action.target, action.tool
            self.hands[seat, k] -= 1
            self.discards[k] += 1
            self.discards[self.broken_kind[t, tool]] += 1
            self.broken[t, tool] = False
            self.broken_kind[t, tool] = -1
            self._emit("tool_repaired", seat, {"kind": k, "target": t, "tool": tool})
            self.tool_counts[seat, t, 1] += 1
            self._record(seat, 2, t, 0, 0, tool)
        elif isinstance(action, Rockfall):
            k = KIND_INDEX["rockfall"]
            self.hands[seat, k] -= 1
            removed = self.board.remove(action.x, action.y)
            self.discards[k] += 1
            self.discards[VARIANTS[removed].kind] += 1
            self._emit("rockfall", seat, {"x": action.x, "y": action.y, "variant": removed,
                                          "kind": int(VARIANTS[removed].kind)})
            self.actor_counts[seat, 2] += 1
            self._record(seat, 3, -1, action.x, action.y)
            if self.last_placed == (action.x, action.y):
                self.last_placed = None
        elif isinstance(action, Map):
            k = KIND_INDEX["map"]
            self.hands[seat, k] -= 1
            self.discards[k] += 1
            self.known_goals[seat, action.goal] = True
            self._emit("map_played", seat, {"goal": action.goal})
            self.actor_counts[seat, 3] += 1
            self._record(seat, 4, -1, *GOAL_CELLS[action.goal])
            self._emit("map_result", seat, {"goal": action.goal,
                                            "identity": int(self.board.goal_identity[action.goal])},
                       visible_to=seat)
        elif isinstance(action, Discard):
            self.hands[seat, action.kind] -= 1
            self.discards[action.kind] += 1
            self._emit("discarded", seat, {})
            self.actor_counts[seat, 4] += 1
            self._record(seat, 5)
            self._emit("discarded_card", seat, {"kind": action.kind}, visible_to=seat)
        self.last_card_seat = seat
        if gold_found:
            self._end_round(gold_found=True, connector=seat)
            return self._take_pending()
        if len(self.deck):  # RULES 3.7: draw if the pile is not empty
            k = int(self.deck[0])
            self.deck = self.deck[1:]
            self.hands[seat, k] += 1
            self._emit("card_drawn", seat, {"kind": k}, visible_to=seat)
        self._advance()
        return self._take_pending()

    # --- Saboteur 2 turns (RULES 6.5, 6.7) ------------------------------------------------
    def _apply_s2(self, action: Action) -> list[Event]:
        """Apply a Saboteur 2 action or a step of a multi-decision option (DESIGN 3): a pass
        (discard 1-3 cards, one per decision, ``EndPass`` or automatically after the third
        card / an empty hand), discard-two-to-remove (``RemoveFront`` then two discards), and
        the round-end thefts (``Steal``).  The same seat keeps acting until the option ends."""
        self.__dict__["_pending"] = []
        seat = self.current
        self.decisions += 1
        if self.phase == "theft":
            self._steal(seat, action.target)
            return self._take_pending()
        if self.phase == "pass":
            if isinstance(action, EndPass):
                self._finish_pass(seat, explicit=True)
            else:
                self._discard_secret(seat, action.kind)
                self.phase_count += 1
                if self.phase_count == 3 or not self.hands[seat].any():
                    self._finish_pass(seat)
            return self._take_pending()
        if self.phase == "remove":
            self._discard_secret(seat, action.kind)
            self.phase_count += 1
            if self.phase_count == 2:
                slot = self.phase_slot
                k = self.front_kind(seat, slot)
                if slot < 3:
                    self.broken[seat, slot] = False
                    self.broken_kind[seat, slot] = -1
                else:
                    self.xfront[seat, slot - 3] = False
                    if slot == FRONT_THEFT:
                        self.theft_turn[seat] = -1
                self.discards[k] += 1
                self._emit("front_removed", seat, {"slot": slot, "kind": k})
                self._record(seat, 13, seat, tool=slot)
                self.phase, self.phase_count, self.phase_slot = "turn", 0, -1
                self._draw(seat, 1)  # RULES 6.7 option 3: draw only one
                self._advance()
            return self._take_pending()
        self.turn += 1
        self.last_card_seat = seat
        if isinstance(action, Discard):
            self.phase, self.phase_count = "pass", 1
            self._discard_secret(seat, action.kind)
            if not self.hands[seat].any():
                self._finish_pass(seat)
        elif isinstance(action, RemoveFront):
            self.phase, self.phase_count, self.phase_slot = "remove", 0, action.slot
            self._emit("remove_started", seat, {"slot": action.slot})
        else:
            self._play_s2_card(seat, action)
        return self._take_pending()

    def _discard_secret(self, seat: int, k: int) -> None:
        self.hands[seat, k] -= 1
        self.discards[k] += 1
        self._emit("discarded", seat, {})
        self.actor_counts[seat, 4] += 1
        self._record(seat, 5)
        self._emit("discarded_card", seat, {"kind": k}, visible_to=seat)

    def _draw(self, seat: int, count: int) -> None:
        """``seat`` draws up to ``count`` cards, as far as the pile allows (RULES 3.7, 6.7)."""
        for _ in range(min(count, len(self.deck))):
            k = int(self.deck[0])
            self.deck = self.deck[1:]
            self.hands[seat, k] += 1
            self._emit("card_drawn", seat, {"kind": k}, visible_to=seat)

    def _finish_pass(self, seat: int, explicit: bool = False) -> None:
        """RULES 6.7 option 4: draw as many cards as were discarded.  ``explicit``: ended by
        an :class:`EndPass` decision (else after the third card or with an empty hand)."""
        k = self.phase_count
        self.phase, self.phase_count = "turn", 0
        self._emit("pass_done", seat, {"discarded": k, "done": explicit})
        self._draw(seat, k)
        self._advance()

    def _play_s2_card(self, seat: int, action: PlayCard) -> None:
        """RULES 6.5: the effect comes from the card's row of ``cards.X_EFFECTS``."""
        k, t = action.kind, action.target
        cid = CARD_KINDS[k].id
        verb, slot, _who = X_EFFECTS[cid]
        ei = list(X_EFFECTS).index(cid)
        self.hands[seat, k] -= 1
        self.xcounts[seat, t, ei] += 1
        self._record(seat, 6 + ei, t)
        self._emit("action_played", seat, {"kind": k, "card": cid, "target": t})
        drawer = seat
        if verb == "put":
            self.xfront[t, slot - 3] = True
            if slot == FRONT_THEFT:
                self.theft_turn[t] = self.decisions
        elif verb == "clear":
            self.discards[self.front_kind(t, slot)] += 1
            self.discards[k] += 1
            self.xfront[t, slot - 3] = False
            if slot == FRONT_THEFT:
                self.theft_turn[t] = -1
        else:
            self.discards[k] += 1
            if verb == "swap_hand":  # RULES 7.20: the target draws, the active player does not
                self.hands[[seat, t]] = self.hands[[t, seat]]
                drawer = t
            elif verb == "inspection":  # private to the inspector, stays as seen
                self.inspected[seat, t] = self.roles[t]
                self.inspected_swaps[seat, t] = self.hat_swaps[t]
                self._emit("inspection_result", seat, {"target": t, "role": int(self.roles[t])},
                           visible_to=seat)
            elif verb == "swap_hats":  # RULES 7.21: the old card is out for the round
                self.hats_discarded.append(int(self.roles[t]))
                self.hat_swaps[t] += 1
                self.roles[t] = self.set_aside.pop(0)
                self._emit("role_dealt", t, {"role": int(self.roles[t]), "swapped": True},
                           visible_to=t)
        self._draw(drawer, 1)
        self._advance()

    # --- Saboteur 2 round end (RULES 6.8, 6.9) --------------------------------------------
    def _end_round_s2(self, gold_found: bool, connector: int | None) -> None:
        b, n = self.board, self.n
        trapped = self.xfront[:, 0].tolist()
        roles = self.roles.tolist()
        pass_blue = gold_found and b.gold_reachable(1)   # no green door on the route
        pass_green = gold_found and b.gold_reachable(2)  # no blue door on the route
        conn_role = roles[connector] if connector is not None else None
        winners, side = winners_s2(roles, gold_found, conn_role, pass_blue, pass_green,
                                   trapped, self.config.both_doors_rule)
        crystals = b.crystals()
        received = np.array(payouts_s2(roles, winners, crystals, trapped), dtype=np.int64)
        self.gold += received
        self.round_ctx = {
            "round": self.round, "gold_found": gold_found, "winning_side": side,
            "winners": winners, "connector": connector, "roles": roles,
            "received": received.tolist(), "paid": received.tolist(),
            "last_card_seat": self.last_card_seat, "turns": self.turn,
            "pass_blue": bool(pass_blue), "pass_green": bool(pass_green),
            "crystals": crystals, "trapped": [s for s in range(n) if trapped[s]],
            "thefts": [],
        }
        self.phase = "theft"
        self.theft_queue = theft_order(self.theft_turn.tolist(), self.xfront[:, 1].tolist(),
                                       trapped)
        self._next_thief()

    def _next_thief(self) -> None:
        while self.theft_queue:
            s = self.theft_queue[0]
            if self.steal_targets(s).any():
                self.current = s
                return
            self.theft_queue.pop(0)
            self._emit("theft_skipped", s, {})
        self._finish_round_s2()

    def _steal(self, seat: int, target: int) -> None:
        self.gold[target] -= 1
        self.gold[seat] += 1
        ctx = self.round_ctx
        ctx["received"][target] -= 1
        ctx["received"][seat] += 1
        ctx["thefts"].append((seat, target))
        self._emit("theft", seat, {"target": target})
        self._record(seat, 14, target)
        self.theft_queue.pop(0)
        self._next_thief()

    def _finish_round_s2(self) -> None:
        result = self.round_ctx
        self.round_ctx = None
        self.phase = "turn"
        self._close_round(result, ("round", "gold_found", "winning_side", "winners",
                                   "connector", "roles", "pass_blue", "pass_green", "crystals",
                                   "thefts"))

    def _close_round(self, result: dict, public: tuple[str, ...]) -> None:
        """Record the round's result, emit ``round_end`` (the ``public`` keys, roles revealed,
        RULES 5.1), each seat's private ``gold_received``, then end the game (RULES 5.5) or
        deal the next round with the left neighbour of the last player (RULES 5.4)."""
        n = self.n
        self.round_results.append(result)
        self.round_boards.append(self.board)  # the final maze of each round, for replays
        self.round_over = True
        self._emit("round_end", None, {k: result[k] for k in public})
        for s in range(n):
            self._emit("gold_received", s, {"round": result["round"],
                                            "gold": int(result["received"][s])}, visible_to=s)
        if self.round + 1 >= self.config.num_rounds:
            self.game_over = True
            best = int(self.gold.max())
            self._emit("game_end", None, {"gold": self.gold.tolist(),
                                          "winners": [s for s in range(n)
                                                      if self.gold[s] == best]})
            return
        self.round += 1
        self._deal_round((self.last_card_seat + 1) % n)

    def _take_pending(self) -> list[Event]:
        out = self.__dict__.get("_pending") or []
        self.__dict__["_pending"] = []
        return out

    def _advance(self) -> None:
        """Next seat clockwise that holds cards; end the round when no hand has cards (5.1)."""
        sizes = self.hands.sum(axis=1)
        if not sizes.any():
            self._end_round(gold_found=False, connector=None)
            return
        s = self.current
        for _ in range(self.n):
            s = (s + 1) % self.n
            if sizes[s]:
                self.current = s
                return

    # --- scoring (RULES 5) -----------------------------------------------------------
    def _end_round(self, gold_found: bool, connector: int | None) -> None:
        if self.expansion:
            self._end_round_s2(gold_found, connector)
            return
        n = self.n
        received = np.zeros(n, dtype=np.int64)
        if gold_found:
            winners = [s for s in range(n) if self.roles[s] == GOLD_DIGGER]
            self._pay_diggers(connector, received)
        else:
            winners = [s for s in range(n) if self.roles[s] == SABOTEUR]
            self._pay_saboteurs(received)
        self.gold += received
        result = {
            "round": self.round,
            "gold_found": gold_found,
            "winning_side": "gold-digger" if gold_found else "saboteur",
            "winners": winners,
            "connector": connector,
            "roles": self.roles.tolist(),
            "received": received.tolist(),
            "last_card_seat": self.last_card_seat,
            "turns": self.turn,
        }
        self._close_round(result, ("round", "gold_found", "winning_side", "winners",
                                   "connector", "roles"))

    def _take_nugget(self, i: int) -> int:
        v = int(self.nuggets[i])
        self.nuggets = np.delete(self.nuggets, i)
        return v

    def _pay_diggers(self, connector: int, received: np.ndarray) -> None:
        """RULES 5.2: N cards (9 at 10 players) picked counter-clockwise by the diggers,
        starting with the connector (or the first digger counter-clockwise from a saboteur
        connector).  Each picker automatically keeps the highest card left (RULES 10.1)."""
        n = self.n
        take = min(9 if n == 10 else n, len(self.nuggets))
        eligible = [
            self.roles[s] == GOLD_DIGGER
            and not (self.config.broken_tool_forfeit and self.broken[s].any())
            for s in range(n)
        ]
        if not any(eligible) or take == 0:
            return
        cards = sorted(self.nuggets[:take].tolist(), reverse=True)
        self.nuggets = self.nuggets[take:]
        order = [(connector - i) % n for i in range(n)]  # counter-clockwise from connector
        pickers = [s for s in order if eligible[s]]
        for i, v in enumerate(cards):
            s = pickers[i % len(pickers)]
            received[s] += v
            self.gold_cards[s, v - 1] += 1

    def _pay_saboteurs(self, received: np.ndarray) -> None:
        """RULES 5.3: 4/3/3/2 nuggets each for 1/2/3/4 saboteurs; the change ruling: in turn
        order from the player after the last player, each takes an exact-sum combination with
        the largest values first, else the largest total not above the entitlement."""
        n = self.n
        sabs = [(self.last_card_seat + 1 + i) % n for i in range(n)]
        sabs = [s for s in sabs if self.roles[s] == SABOTEUR]
        if not sabs:
            return
        due = SABOTEUR_PAYOUT[min(len(sabs), 4)]
        for s in sabs:
            avail = [int((self.nuggets == v).sum()) for v in (1, 2, 3)]
            best = None
            for n3 in range(min(avail[2], due // 3), -1, -1):
                for n2 in range(min(avail[1], (due - 3 * n3) // 2), -1, -1):
                    n1 = min(avail[0], due - 3 * n3 - 2 * n2)
                    key = (3 * n3 + 2 * n2 + n1, n3, n2)
                    if best is None or key > best[0]:
                        best = (key, (n1, n2, n3))
            n1, n2, n3 = best[1]
            for v, cnt in ((3, n3), (2, n2), (1, n1)):
                for _ in range(cnt):
                    i = int(np.nonzero(self.nuggets == v)[0][0])
                    self._take_nugget(i)
                    received[s] += v
                    self.gold_cards[s, v - 1] += 1

    def determinize(self, seat: int, rng: np.random.Generator) -> Game:
        """A full state consistent with what ``seat`` knows, for information-set search
        (DESIGN 2).

        Reshuffled: the cards ``seat`` cannot see (other hands and the draw pile, keeping every
        hand size), the roles of the other players together with the set-aside dwarf cards
        (``seat``'s own role kept), the identities of the goals ``seat`` has not seen, and the
        order of the gold supply.  Public state and ``seat``'s own hand, role and map results are
        unchanged.  The game's own generator is replaced by one drawn from ``rng``.

        Saboteur 2: the 10 removed cards join the unseen pool (their number kept); the dwarf cards
        aside and those discarded by Swap your hats join the hidden roles, except the roles
        ``seat`` has inspected and that no Swap your hats has changed since; other seats'
        inspection results are forgotten.  (What ``seat`` knows of a hand it swapped away is not
        used.)
        """
        g = self.copy()
        n = g.n
        if g.expansion:
            return g._determinize_s2(seat, rng)
        others = [s for s in range(n) if s != seat]
        sizes = [int(g.hands[s].sum()) for s in others]
        pool = np.concatenate([np.repeat(np.arange(g.n_kinds, dtype=np.int16), g.hands[s])
                               for s in others] + [g.deck.astype(np.int16)])
        pool = rng.permutation(pool)
        pos = 0
        for s, h in zip(others, sizes):
            g.hands[s] = np.bincount(pool[pos:pos + h], minlength=g.n_kinds)
            pos += h
        g.deck = pool[pos:]
        hidden_roles = rng.permutation(np.array([g.roles[s] for s in others] + g.set_aside,
                                                dtype=np.int8))
        g.roles[others] = hidden_roles[:len(others)]
        g.set_aside = hidden_roles[len(others):].tolist()
        unknown = [sl for sl in range(3) if not g.known_goals[seat, sl]]
        if unknown:
            ids = rng.permutation(g.board.goal_identity[unknown])
            # who mapped which goal is public (map_played events), so other seats keep their
            # knowledge flags; they now know the resampled identity
            g.board.goal_identity[unknown] = ids
        g.nuggets = rng.permutation(g.nuggets)
        g.rng = np.random.default_rng(int(rng.integers(2**63)))
        return g

    def _determinize_s2(self, seat: int, rng: np.random.Generator) -> Game:
        g, n = self, self.n
        others = [s for s in range(n) if s != seat]
        sizes = [int(g.hands[s].sum()) for s in others]
        kinds = np.arange(g.n_kinds, dtype=np.int16)
        n_removed = int(g.removed.sum())
        pool = np.concatenate([np.repeat(kinds, g.hands[s]) for s in others]
                              + [g.deck.astype(np.int16), np.repeat(kinds, g.removed)])
        pool = rng.permutation(pool)
        pos = 0
        for s, h in zip(others, sizes):
            g.hands[s] = np.bincount(pool[pos:pos + h], minlength=g.n_kinds)
            pos += h
        g.deck = pool[pos:len(pool) - n_removed]
        g.removed = np.bincount(pool[len(pool) - n_removed:], minlength=g.n_kinds).astype(
            np.int64)
        known = [s for s in others if g.inspected[seat, s] >= 0
                 and g.inspected_swaps[seat, s] == g.hat_swaps[s]]
        free = [s for s in others if s not in known]
        hidden = rng.permutation(np.array([g.roles[s] for s in free] + g.set_aside
                                          + g.hats_discarded, dtype=np.int8)).tolist()
        g.roles[free] = hidden[:len(free)]
        rest = hidden[len(free):]
        g.set_aside = rest[:len(g.set_aside)]
        g.hats_discarded = rest[len(g.set_aside):]
        mine = g.inspected[seat].copy()
        g.inspected[:] = -1
        g.inspected[seat] = mine
        unknown = [sl for sl in range(3) if not g.known_goals[seat, sl]]
        if unknown:
            g.board.goal_identity[unknown] = rng.permutation(g.board.goal_identity[unknown])
            for s in others:
                g.known_goals[s, unknown] = False
        g.rng = np.random.default_rng(int(rng.integers(2**63)))
        return g

    # --- queries -----------------------------------------------------------------------
    def winners(self) -> list[int]:
        """Seats with the most gold once the game is over (ties share, RULES 5.5)."""
        if not self.game_over:
            return []
        best = self.gold.max()
        return [s for s in range(self.n) if self.gold[s] == best]

    def cards_accounted(self) -> int:
        """Draw pile + hands + maze tunnel cards + discards + cards in front of players.

        Equals 67 in every base-game state (card conservation, RULES 1); with the expansion,
        counting Trapped! / Theft cards in front and the 10 removed cards, 118 (RULES 6.5)."""
        return int(len(self.deck) + self.hands.sum() + self.board.path_cards_on_board()
                   + self.discards.sum() + self.broken.sum() + self.xfront.sum()
                   + self.removed.sum())


# --- the test hook (DESIGN 2) ----------------------------------------------------------
def _kind(k) -> int:
    if isinstance(k, str):
        if k not in KIND_INDEX:
            raise ValueError(f"unknown card kind {k!r}; valid: {sorted(KIND_INDEX)}")
        return KIND_INDEX[k]
    return int(k)


def build_state(
    config: GameConfig | None = None,
    *,
    roles,
    hands,
    board=(),
    goals=(GOAL_GOLD, 1, 2),
    revealed=(),
    set_aside=(),
    deck=None,
    nuggets=None,
    broken=None,
    known_goals=None,
    gold=None,
    current: int = 0,
    round: int = 0,
    last_card_seat: int | None = None,
    seed: int = 0,
    trapped=(),
    theft=(),
    removed=None,
    inspected=None,
) -> Game:
    """Build any base-game position by hand (the test hook, DESIGN 2).

    Args:
        config: the game's options (default :class:`GameConfig` with ``num_players=len(roles)``).
        roles: role per seat, ``"gold-digger"``/``"saboteur"`` or 0/1.
        hands: per seat, a list of card kinds (ids like ``"B07"``, ``"map"``, or kind indexes).
        board: ``[(x, y, kind, rotated), ...]`` tunnel cards in the maze.
        goals: goal identity per slot (top, middle, bottom): 0 gold, 1 stone A, 2 stone B.
        revealed: ``[(slot, rotated), ...]`` goals already face up.
        set_aside: roles of the set-aside dwarf card(s).
        deck: the draw pile, top first (kinds); default: every card not placed elsewhere,
            shuffled with ``seed``.  When given, cards left over go to the discard pile.
        nuggets: the gold supply, top first (values 1-3); default: the 28 cards shuffled.
        broken: per seat, an iterable of tools (``"pick"``, ``"lantern"``, ``"cart"`` or 0-2).
        known_goals: per seat, goal slots that seat has mapped.
        gold: nuggets already held per seat.
        current / round / last_card_seat: the seat to act, the round index, RULES 5.4's seat.
        seed: seeds the game's generator (later rounds' deals, default deck order).
        trapped: Saboteur 2: seats with a Trapped! card in front (RULES 6.5).
        theft: Saboteur 2: seats with a Theft card in front, in the order they were played
            (the last one is the most recent, RULES 6.9).
        removed: Saboteur 2: kinds of the cards removed unseen (RULES 6.6); default none, so
            every card not placed elsewhere is in the deck (or discards).
        inspected: Saboteur 2: ``{(inspector, target): role seen}`` (RULES 6.5).

    With ``config.expansion`` the roles are Saboteur 2 roles (``"green-digger"``,
    ``"blue-digger"``, ``"boss"``, ``"profiteer"``, ``"geologist"``, ``"saboteur"`` or 0-5),
    ``set_aside`` the dwarf cards aside (top first, drawn by Swap your hats), gold is an integer
    and ``nuggets`` is unused.

    Returns:
        A :class:`Game` in that position, connectivity computed.

    Raises:
        ValueError: a card count exceeds the deck (RULES 1), a cell is outside the window or
            taken, or an option is inconsistent.
    """
    n = len(roles)
    if config is None:
        config = GameConfig(num_players=n)
    if config.num_players != n:
        raise ValueError(f"config.num_players={config.num_players} but {n} roles given")
    if config.expansion:
        roles = [_x_role(r) for r in roles]
        aside = [_x_role(r) for r in set_aside]
    else:
        roles = [SABOTEUR if r in ("saboteur", SABOTEUR) else GOLD_DIGGER
                 if r in ("gold-digger", GOLD_DIGGER) else _bad_role(r) for r in roles]
        aside = [SABOTEUR if r in ("saboteur", SABOTEUR) else GOLD_DIGGER for r in set_aside]
    if sorted(int(x) for x in goals) != [0, 1, 2]:
        raise ValueError(f"goals={tuple(goals)!r}: one gold (0) and the two stone goals (1, 2), "
                         "one per slot (RULES 1.2)")
    if not isinstance(current, (int, np.integer)) or not 0 <= current < n:
        raise ValueError(f"current={current!r}: must be a seat 0..{n - 1}")
    if nuggets is not None and any(int(v) not in (1, 2, 3) for v in nuggets):
        raise ValueError(f"nuggets={list(nuggets)!r}: gold-nugget cards are worth 1, 2 or 3 "
                         "(RULES 1.4)")
    if broken is not None:
        for tools in broken:
            for t in tools:
                if t not in TOOLS and t not in (0, 1, 2):
                    raise ValueError(f"broken tool {t!r}: use one of {TOOLS} or 0-2 (RULES 1.3)")
    g = Game(config, seed, _deal=False)
    g.round = round
    g.roles = np.array(roles, dtype=np.int8)
    g.set_aside = aside
    g.board = Board(config.board_window, goals)
    total = deck_counts(config.expansion)
    g.xfront = np.zeros((n, 2), dtype=bool)
    g.theft_turn = np.full(n, -1, dtype=np.int64)
    g.inspected = np.full((n, n), -1, dtype=np.int8)
    g.hat_swaps = np.zeros(n, dtype=np.int16)
    g.inspected_swaps = np.zeros((n, n), dtype=np.int16)
    g.hats_discarded = []
    g.phase, g.phase_count, g.phase_slot = "turn", 0, -1
    g.theft_queue, g.round_ctx = [], None
    g.removed = np.zeros(g.n_kinds, dtype=np.int64)
    used = np.zeros(g.n_kinds, dtype=np.int64)
    for x, y, k, rot in board:
        k = _kind(k)
        if CARD_KINDS[k].category != "path":
            raise ValueError(f"{CARD_KINDS[k].id} is not a path card")
        if not g.board.in_window(x, y) or g.board.variant_at(x, y) != EMPTY:
            raise ValueError(f"cell ({x}, {y}) is outside the window or already taken")
        r, c = g.board.rc(x, y)
        v = VARIANT_OF[(k, bool(rot))]
        g.board.var[r, c] = v
        g.board.opn[r, c] = VARIANTS[v].openings
        used[k] += 1
    for slot, rot in revealed:
        from .cards import GOAL_KINDS
        r, c = g.board._goal_rc[slot]
        v = VARIANT_OF[(GOAL_KINDS[int(g.board.goal_identity[slot])], bool(rot))]
        g.board.var[r, c] = v
        g.board.opn[r, c] = VARIANTS[v].openings
        g.board.goal_revealed[slot] = True
    g.board.version += 1
    g.board.recompute_connectivity()
    if len(hands) != n:
        raise ValueError(f"{len(hands)} hands given for {n} players")
    g.hands = np.zeros((n, g.n_kinds), dtype=np.int16)
    for s, h in enumerate(hands):
        for k in h:
            g.hands[s, _kind(k)] += 1
    used += g.hands.sum(axis=0)
    g.broken = np.zeros((n, 3), dtype=bool)
    g.broken_kind = np.full((n, 3), -1, dtype=np.int16)
    for s, tools in enumerate(broken or [()] * n):
        for t in tools:
            t = TOOLS.index(t) if isinstance(t, str) else int(t)
            k = KIND_INDEX[("break_pick", "break_lantern", "break_cart")[t]]
            g.broken[s, t] = True
            g.broken_kind[s, t] = k
            used[k] += 1
    for s in trapped:
        g.xfront[s, 0] = True
        used[KIND_INDEX["trapped"]] += 1
    for i, s in enumerate(theft):
        g.xfront[s, 1] = True
        g.theft_turn[s] = i
        used[KIND_INDEX["theft"]] += 1
    if removed is not None:
        for k in removed:
            g.removed[_kind(k)] += 1
        used += g.removed
    for (a, t), r in (inspected or {}).items():
        g.inspected[a, t] = _x_role(r)
    left = total - used
    if (left < 0).any():
        bad = [CARD_KINDS[k].id for k in np.nonzero(left < 0)[0]]
        raise ValueError(f"more {bad} cards than the deck holds (RULES 1)")
    if deck is None:
        g.deck = g.rng.permutation(np.repeat(np.arange(g.n_kinds, dtype=np.int16), left))
        g.discards = np.zeros(g.n_kinds, dtype=np.int64)
    else:
        g.deck = np.array([_kind(k) for k in deck], dtype=np.int16)
        g.discards = left - np.bincount(g.deck, minlength=g.n_kinds)
        if (g.discards < 0).any():
            raise ValueError("the given deck holds cards that are already elsewhere")
    if config.expansion:
        g.nuggets = np.zeros(0, dtype=np.int8)
    elif nuggets is None:
        nug = np.repeat(np.array(list(GOLD_CARDS), dtype=np.int8), list(GOLD_CARDS.values()))
        g.nuggets = g.rng.permutation(nug)
    else:
        g.nuggets = np.array(nuggets, dtype=np.int8)
    g.known_goals = np.zeros((n, 3), dtype=bool)
    g.known_goals[:, g.board.goal_revealed] = True
    for s, slots in enumerate(known_goals or [()] * n):
        for sl in slots:
            g.known_goals[s, sl] = True
    if gold is not None:
        g.gold = np.array(gold, dtype=np.int64)
    g.current = current
    g.first_player = current
    g.turn = 0
    g.last_card_seat = current if last_card_seat is None else last_card_seat
    g.round_over = False
    g.game_over = False
    g._reset_history()
    if not g.hands[current].any() and g.hands.any():
        raise ValueError(f"seat {current} is to act but holds no card")
    return g


def _x_role(r) -> int:
    if isinstance(r, str):
        if r not in EXPANSION_ROLES:
            raise ValueError(f"unknown Saboteur 2 role {r!r}; use one of {EXPANSION_ROLES}")
        return EXPANSION_ROLES.index(r)
    if not 0 <= int(r) < len(EXPANSION_ROLES):
        raise ValueError(f"unknown Saboteur 2 role {r!r}")
    return int(r)


def _bad_role(r):
    raise ValueError(f"unknown role {r!r}; use 'gold-digger' or 'saboteur'")


__all__ = [
    "Action", "BreakTool", "Discard", "EndPass", "Event", "Game", "HIDDEN_GOAL",
    "IllegalActionError", "Map", "PlacePath", "PlayCard", "RemoveFront", "Repair", "Rockfall",
    "Steal", "build_state",
]
