"""The state of one game: :class:`Game`, its fields declared once (DESIGN 2, 8).

Pure Python + numpy; no RL library is imported by the engine (DESIGN 1).  The engine works in
*seats* ``0..N-1``; play goes clockwise, i.e. ``seat + 1 mod N`` (RULES 2.4).

A :class:`Game` holds data and answers questions about it; the rules live beside it, one module
per concern: the variant as data (:mod:`.ruleset`), setup and the test hook :func:`build_state`
(:mod:`.setup`), one module per action family with its check, legal set and effect
(:mod:`.actions`), the end of a turn (:mod:`.turn`), round end and scoring (:mod:`.scoring`),
sampling what a seat cannot see (:mod:`.determinize`).  :meth:`Game.check` names the rule an
action breaks; :meth:`Game.apply` raises :class:`IllegalActionError` for an illegal action and
leaves the state untouched, otherwise changes the state and returns the :class:`Event` s it
caused (public ones with ``visible_to=None``, private ones for their owner).

Saboteur 2 (RULES 6) adds :class:`PlayCard`, :class:`RemoveFront`, :class:`EndPass` and
:class:`Steal`.  Options that take several cards are one decision per card by the same seat
(``Game.phase``, a :class:`~.phases.Phase`).  Rulings of this implementation where RULES 6
leaves room:

* discard-two-to-remove: the card in front is chosen first, then the two discards (face
  down); it needs a card in front and at least two in hand; the player draws one card;
* a pass discards face down; the number of discarded cards is public;
* Swap your hats draws the top card of the shuffled dwarf cards aside;
* Swap your hand may target a player with an empty hand; that player then draws one card;
* thefts: the player who played a Theft most recently goes first, then the other thieves
  clockwise from him, trapped thieves skipped (RULES 6.9); victims are other players with at
  least 1 gold; a thief with no possible victim is skipped without a decision;
* ``both_doors_rule="bga"`` without a Boss in play: the Profiteer alone (if in play) wins
  (winning side ``"profiteer"``); with neither in play nobody wins (side ``"none"``);
* geologists: ``g`` counts every geologist in play at round end, trapped or not;
* ``remove_cards_each_round=False``: the 10 cards removed in the first round stay out of the
  game in every round;
* ``role_table`` and ``broken_tool_forfeit`` are base-game options (``Ruleset.variant_options``):
  ``GameConfig`` refuses a value other than the default with ``expansion=True``.
"""

from __future__ import annotations

import copy as _copy
from typing import TYPE_CHECKING, Any

import numpy as np

from . import actions as _actions
from .actions import (
    Action,
    BreakTool,
    Discard,
    EndPass,
    IllegalActionError,
    Map,
    PlacePath,
    PlayCard,
    RemoveFront,
    Repair,
    Rockfall,
    Steal,
    layout_of,
)
from .actions.family import is_int
from .board import HIDDEN_GOAL, Board
from .cards import FRONT_THEFT, FRONT_TRAPPED, KIND_INDEX
from .config import GameConfig
from .events import Event, EventData, EventType, RoundResult
from .phases import Phase
from .scoring import most_gold
from .setup import build_state, game_generator, start_game

if TYPE_CHECKING:
    from .actions import Layout
    from .ruleset import Ruleset

#: Every field of a game state, declared once, with how :meth:`Game.copy` copies it:
#: ``shared`` (immutable), ``value`` (a scalar), ``array`` (a numpy array), ``list`` (a list of
#: immutable items), ``board`` (its own copy), ``deep`` (a deep copy).
FIELDS: dict[str, str] = {
    "config": "shared",  # GameConfig
    "rules": "shared",  # the Ruleset of the config
    "layout": "shared",  # the action Layout of the config
    "n": "value",  # number of players
    "rng": "deep",  # numpy Generator: the game's only source of randomness
    "round": "value",  # 0-based round index
    "phase": "value",  # Phase of the decision to take
    "phase_count": "value",  # cards discarded so far in a pass / removal
    "phase_slot": "value",  # front slot being removed (-1 none)
    "current": "value",  # seat to act
    "first_player": "value",  # seat that started this round
    "turn": "value",  # turns taken this round
    "last_card_seat": "value",  # seat of the last card-consuming turn (RULES 5.4)
    "decisions": "value",  # decisions taken in the game
    "round_over": "value",
    "game_over": "value",
    "roles": "array",  # int8 (n,): role id per seat (the ruleset's roles)
    "set_aside": "list",  # role ids of the dwarf cards not dealt (top first)
    "hands": "array",  # int16 (n, n_kinds): cards of each kind in each hand
    "deck": "array",  # int16 (k,): the draw pile, top first
    "discards": "array",  # int64 (n_kinds,): the discard pile by kind
    "secret_discards": "array",  # int64 (n, n_kinds): face-down discards of each seat
    "removed": "array",  # int64 (n_kinds,): cards removed unseen (RULES 6.6)
    "board": "board",  # the maze
    "broken": "array",  # bool (n, 3): broken pick / lantern / cart in front
    "broken_kind": "array",  # int16 (n, 3): kind of that broken-tool card (-1 none)
    "known_goals": "array",  # bool (n, 3): seat has seen goal slot (map or reveal)
    "nuggets": "array",  # int8 (k,): the face-down gold supply, top first
    "gold": "array",  # int64 (n,): gold each seat holds
    "gold_cards": "array",  # int64 (n, 3): gold-nugget cards held by value 1-3
    "xfront": "array",  # bool (n, 2): Trapped! and Theft in front (Saboteur 2)
    "theft_turn": "array",  # int64 (n,): decision count when each Theft was played
    "inspected": "array",  # int8 (n, n): [inspector, target] role seen, -1 none
    "hat_swaps": "array",  # int16 (n,): Swap your hats played on each seat
    "inspected_swaps": "array",  # int16 (n, n): hat_swaps of the target when inspected
    "hats_discarded": "list",  # role ids discarded by Swap your hats (out for the round)
    "hats_discarded_from": "list",  # the seat each of those dwarf cards was taken from
    "theft_queue": "list",  # thieves still to act at round end, in order
    "pending_result": "deep",  # the RoundResult while thefts are resolved
    "events": "list",  # every event of the game, in order
    "round_results": "list",  # RoundResult of each finished round
    "round_boards": "list",  # the final maze of each finished round
}


class Game:
    """The full state of one game (fields: :data:`FIELDS`).

    Construct with ``Game(config, seed)``; a new game deals round 1 at once.  ``seed`` is
    ``None`` (fresh entropy) or an int: the one generator every random draw comes from
    (RULES 10).
    """

    config: GameConfig
    rules: Ruleset
    layout: Layout
    n: int
    rng: np.random.Generator
    round: int
    phase: Phase
    phase_count: int
    phase_slot: int
    current: int
    first_player: int
    turn: int
    last_card_seat: int
    decisions: int
    round_over: bool
    game_over: bool
    roles: np.ndarray
    set_aside: list[int]
    hands: np.ndarray
    deck: np.ndarray
    discards: np.ndarray
    secret_discards: np.ndarray
    removed: np.ndarray
    board: Board
    broken: np.ndarray
    broken_kind: np.ndarray
    known_goals: np.ndarray
    nuggets: np.ndarray
    gold: np.ndarray
    gold_cards: np.ndarray
    xfront: np.ndarray
    theft_turn: np.ndarray
    inspected: np.ndarray
    hat_swaps: np.ndarray
    inspected_swaps: np.ndarray
    hats_discarded: list[int]
    hats_discarded_from: list[int]
    theft_queue: list[int]
    pending_result: RoundResult | None
    events: list[Event]
    round_results: list[RoundResult]
    round_boards: list[Board]

    def __init__(
        self, config: GameConfig | None = None, seed: int | None = None, _deal: bool = True
    ) -> None:
        if config is not None and not isinstance(config, GameConfig):
            raise TypeError(f"config must be a GameConfig, not {type(config).__name__}")
        if seed is not None and (not is_int(seed) or seed < 0):
            raise ValueError(f"seed={seed!r}: None or a non-negative int (RULES 10)")
        self.config = config or GameConfig()
        self.rules = self.config.ruleset
        self.layout = layout_of(self.config)
        n = self.n = self.config.num_players
        self.rng = game_generator(seed)
        self.round = 0
        self.decisions = 0
        self.game_over = False
        self.round_over = False
        self.round_results = []
        self.round_boards = []
        self.events = []
        self._pending: list[Event] = []
        self.gold = np.zeros(n, dtype=np.int64)
        self.gold_cards = np.zeros((n, 3), dtype=np.int64)
        self.removed = np.zeros(self.rules.n_kinds, dtype=np.int64)
        if _deal:
            start_game(self)

    # --- copying ---------------------------------------------------------------------
    def copy(self, rng: np.random.Generator | None = None) -> Game:
        """An independent copy (arrays, lists, the board and the generator state copied), as
        :data:`FIELDS` declares.

        Args:
            rng: the copy's generator instead of a deep copy of this one's (e.g. one made
                from its state alone, which draws the same numbers and is cheaper to make).
        """
        g = Game.__new__(Game)
        d, src = g.__dict__, self.__dict__
        for name, how in FIELDS.items():
            v = src[name]
            if name == "rng" and rng is not None:
                v = rng
            elif how == "array":
                v = v.copy()
            elif how == "list":
                v = list(v)
            elif how == "board":
                v = v.copy()
            elif how == "deep":
                v = _copy.deepcopy(v)
            d[name] = v
        g._pending = []
        return g

    def __getstate__(self) -> dict[str, Any]:
        # the ruleset and layout follow from the config: rebuilt on unpickling
        return {name: self.__dict__[name] for name in FIELDS if name not in ("rules", "layout")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.rules = self.config.ruleset
        self.layout = layout_of(self.config)
        self._pending = []

    # --- events ------------------------------------------------------------------------
    def emit(
        self,
        type_: EventType,
        seat: int | None,
        data: dict[str, Any],
        visible_to: int | None = None,
    ) -> Event:
        """Record an event (engine use: the action families, setup and scoring)."""
        e = Event(type_, seat, EventData(data), visible_to)
        self.events.append(e)
        self._pending.append(e)
        return e

    @property
    def opens_turn(self) -> bool:
        """Whether the decision to take opens a turn (RULES 3, 6.7): one in the ``TURN`` phase;
        the further cards of a Saboteur 2 pass or removal and the round-end thefts do not."""
        return self.phase is Phase.TURN

    def begin_decision(self) -> None:
        """Start applying a decision: count it; a decision that opens a turn is a turn and
        consumes a card (RULES 5.4)."""
        self._pending = []
        self.decisions += 1
        if self.opens_turn:
            self.turn += 1
            self.last_card_seat = self.current

    def take_events(self) -> list[Event]:
        """The events of the decision just applied."""
        out, self._pending = self._pending, []
        return out

    # --- the rules (one dispatch: engine.actions) ----------------------------------------
    def check(self, action: object, seat: int | None = None) -> str | None:
        """Why ``action`` is illegal for ``seat`` (default: the seat to act), or ``None``.
        The text names the rule (RULES section) that forbids it."""
        return _actions.check(self, action, seat)

    def legal(self, seat: int | None = None) -> dict[str, np.ndarray]:
        """The legal actions as one bool array per action family (``engine.actions.
        legal_set``); the codec's mask is these arrays laid end to end."""
        return _actions.legal_set(self, seat)

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal action of ``seat`` (default: the seat to act), structured."""
        return _actions.legal_actions(self, seat)

    def apply(self, action: Action, verify: bool = True) -> list[Event]:
        """Play ``action`` for the seat to act and advance the game.

        Args:
            action: a structured action.
            verify: ``False`` only for an action taken from this state's legal set
                (:meth:`legal`, e.g. the env's mask): it skips the check.

        Returns:
            The events caused (public and private).

        Raises:
            IllegalActionError: the action breaks a rule (named in the message); nothing
                changes.
        """
        return _actions.apply(self, action, verify)

    def determinize(self, seat: int | None, rng: np.random.Generator) -> Game:
        """A full state consistent with what ``seat`` knows (``None``: a spectator;
        :func:`.determinize.determinize`)."""
        from .determinize import determinize

        return determinize(self, seat, rng)

    # --- queries -----------------------------------------------------------------------
    @property
    def n_kinds(self) -> int:
        """Hand card kinds of the ruleset."""
        return self.rules.n_kinds

    def hand_size(self, seat: int) -> int:
        return int(self.hands[seat].sum())

    def hand_kinds(self, seat: int) -> list[int]:
        """Kinds held by ``seat``, sorted, one entry per card."""
        kinds: list[int] = np.repeat(np.arange(self.n_kinds), self.hands[seat]).tolist()
        return kinds

    def can_place_paths(self, seat: int) -> bool:
        """RULES 3.1.1 / 3.2: no broken tool in front of the seat; Saboteur 2: not Trapped!
        (RULES 6.5)."""
        return True not in self.broken[seat].tolist() and not self.xfront[seat, 0]

    def front(self, seat: int) -> np.ndarray:
        """Bool ``(5,)``: the cards in front of ``seat`` by ``cards.FRONT_SLOTS``."""
        return np.concatenate([self.broken[seat], self.xfront[seat]])

    def front_kind(self, seat: int, slot: int) -> int:
        """Card kind lying in front of ``seat`` in ``slot`` (the slot must be taken)."""
        if slot < 3:
            return int(self.broken_kind[seat, slot])
        return KIND_INDEX["trapped" if slot == FRONT_TRAPPED else "theft"]

    @property
    def roles_revealed(self) -> bool:
        """Whether every player's dwarf card is face up: from the end of a round (RULES 5.1;
        in Saboteur 2 the thefts, :attr:`~.phases.Phase.THEFT`, come after it, RULES 6.9)
        until the next deal, and once the game is over."""
        return self.pending_result is not None or self.round_over

    def roles_known_to(self, seat: int | None) -> list[bool]:
        """Per seat, whether ``seat`` (``None``: a spectator) knows that seat's current role:
        its own; every role once they are face up (:attr:`roles_revealed`, RULES 5.1); and one
        it saw with an Inspection with no Swap your hats on that player since (RULES 6.5).  What
        a search may not resample (``determinize``, ``saboteur_agents.ismcts``)."""
        n = self.n
        if self.roles_revealed:
            return [True] * n
        if seat is None:
            return [False] * n
        seen, swaps = self.inspected[seat], self.inspected_swaps[seat]
        return [
            s == seat or (int(seen[s]) >= 0 and int(swaps[s]) == int(self.hat_swaps[s]))
            for s in range(n)
        ]

    def winners(self) -> list[int]:
        """Seats with the most gold once the game is over (ties share, RULES 5.5)."""
        if not self.game_over:
            return []
        return most_gold(self.gold.tolist())

    def ended_round(self, events: list[Event]) -> RoundResult | None:
        """The result of the round that ``events`` (those :meth:`apply` returned) ended
        (RULES 5.1-5.3), ``None`` where they ended none."""
        for e in events:
            if e.type is EventType.ROUND_END:
                rnd = e.data["round"]
                return next(r for r in reversed(self.round_results) if r.round == rnd)
        return None

    def cards_accounted(self) -> int:
        """Draw pile + hands + maze tunnel cards + discards + cards in front of players +
        removed cards: the ruleset's deck size (67, Saboteur 2 118) in every state dealt by
        the engine (card conservation, RULES 1, 6.5)."""
        return int(
            len(self.deck)
            + self.hands.sum()
            + self.board.path_cards_on_board()
            + self.discards.sum()
            + self.broken.sum()
            + self.xfront.sum()
            + self.removed.sum()
        )


__all__ = [
    "FIELDS",
    "HIDDEN_GOAL",
    "Action",
    "BreakTool",
    "Discard",
    "EndPass",
    "Event",
    "EventType",
    "Game",
    "IllegalActionError",
    "Map",
    "PlacePath",
    "PlayCard",
    "RemoveFront",
    "Repair",
    "Rockfall",
    "RoundResult",
    "Steal",
    "build_state",
    "FRONT_THEFT",
]
