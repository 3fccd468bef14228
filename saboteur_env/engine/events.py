"""The engine's history as a typed vocabulary: :class:`EventType`, :class:`Event` and
:class:`RoundResult` (DESIGN 2, 8).

Every change of the game is told by an :class:`Event`.  Public events (``visible_to=None``) are
what every seat sees; a private event goes to its one owner (RULES 3.5, 3.6, 5.3, 6.5).  The
payload of each type is documented on the enum member (``data`` keys; seats are absolute,
``kind`` is a card kind index of ``cards.CARD_KINDS``, cells are game coordinates).  Readers
compare ``event.type`` with the members, never with strings; ``EventType`` is a ``str`` enum
so that records stay plain JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NoReturn


class EventType(str, Enum):
    """Every event type the engine emits, with its payload (``Event.data``)."""

    #: public; ``round`` (0-based), ``first_player`` (RULES 2.4, 5.4).
    ROUND_START = "round_start"
    #: private to ``seat``: ``role`` (role id); Saboteur 2 ``swapped=True`` when a Swap your
    #: hats card dealt it (RULES 2.2, 6.5).
    ROLE_DEALT = "role_dealt"
    #: public; ``kind``, ``x``, ``y``, ``rotated``, ``variant`` (RULES 3.1).
    PATH_PLACED = "path_placed"
    #: public; ``goal`` (slot 0-2), ``x``, ``y``, ``identity`` (0 gold, 1-2 stone),
    #: ``rotated`` (RULES 4.2).
    GOAL_REVEALED = "goal_revealed"
    #: public; ``kind``, ``target``, ``tool`` (0 pick, 1 lantern, 2 cart) (RULES 3.2).
    TOOL_BROKEN = "tool_broken"
    #: public; ``kind``, ``target``, ``tool`` (RULES 3.3).
    TOOL_REPAIRED = "tool_repaired"
    #: public; ``x``, ``y``, ``variant`` and ``kind`` of the removed card (RULES 3.4).
    ROCKFALL = "rockfall"
    #: public; ``goal`` looked at (RULES 3.5).
    MAP_PLAYED = "map_played"
    #: private to the map's player: ``goal``, ``identity`` (RULES 3.5).
    MAP_RESULT = "map_result"
    #: public, no payload: a card went face down onto the discard pile (RULES 3.6).
    DISCARDED = "discarded"
    #: private to the discarding seat: ``kind`` (RULES 3.6).
    DISCARDED_CARD = "discarded_card"
    #: private to the drawing seat: ``kind`` (RULES 3.7).
    CARD_DRAWN = "card_drawn"
    #: public; the round's :class:`RoundResult` fields that are public, roles revealed
    #: (``RoundResult.public``, RULES 5.1, 6.9).
    ROUND_END = "round_end"
    #: public, Saboteur 2: the round is scored and its thefts follow (emitted as the theft
    #: phase starts, whenever an untrapped player has a Theft card in front, even if no theft
    #: then finds a victim and ``theft_skipped`` follows, RULES 6.9): every field of the coming
    #: ``round_end`` but ``thefts``, the roles revealed (RULES 5.1: the dwarf cards are
    #: turned up at round end, before the thefts).  ``round_end`` follows the thefts.
    ROUND_SCORED = "round_scored"
    #: private to ``seat``: ``round``, ``gold`` received that round (RULES 5.3: gold is secret).
    GOLD_RECEIVED = "gold_received"
    #: public; ``gold`` per seat, ``winners`` (RULES 5.5).
    GAME_END = "game_end"
    #: public, Saboteur 2; ``kind``, ``card`` (effect name of ``cards.X_EFFECTS``), ``target``
    #: (RULES 6.5).
    ACTION_PLAYED = "action_played"
    #: private to the inspector, Saboteur 2: ``target``, ``role`` seen (RULES 6.5).
    INSPECTION_RESULT = "inspection_result"
    #: public, Saboteur 2; ``slot`` (``cards.FRONT_SLOTS``) of the card to remove; two discards
    #: follow (RULES 6.7 option 3).
    REMOVE_STARTED = "remove_started"
    #: public, Saboteur 2; ``slot``, ``kind`` of the card removed from in front (RULES 6.7).
    FRONT_REMOVED = "front_removed"
    #: public, Saboteur 2; ``discarded`` (1-3), ``done`` (ended by the ``done`` action)
    #: (RULES 6.7 option 4).
    PASS_DONE = "pass_done"
    #: public, Saboteur 2; ``target`` robbed of 1 gold by the thief ``seat`` (RULES 6.9).
    THEFT = "theft"
    #: public, Saboteur 2, no payload: the thief ``seat`` had no one to rob (RULES 6.9).
    THEFT_SKIPPED = "theft_skipped"

    def __str__(self) -> str:
        return self.value

    # hash as the plain string, so that a member and its value are one dict key
    __hash__ = str.__hash__


class EventData(dict[str, Any]):
    """A read-only dict: events are shared by every agent's ``infos`` and the game's history,
    so no reader may change them (treat lists inside as read-only too).

    Raises:
        TypeError: on any attempt to modify it.
    """

    __slots__ = ()

    def _read_only(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("event data is read-only (shared by every observer and the history)")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _read_only
    __ior__ = _read_only

    def __reduce__(self) -> tuple[type, tuple[dict[str, Any]]]:
        return (EventData, (dict(self),))

    def __copy__(self) -> EventData:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> EventData:
        return self


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened.

    Attributes:
        type: the :class:`EventType` (payloads documented there).
        seat: the actor (absolute seat), or ``None`` for events of the game itself.
        data: the payload, a read-only :class:`EventData`.
        visible_to: ``None`` for a public event, else the one seat that sees it.
    """

    type: EventType
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    visible_to: int | None = None

    def seen_by(self, seat: int | None) -> bool:
        """Whether ``seat`` may see this event: a public one, or a private one of its own
        (:func:`route_events`); ``seat=None``, a spectator: public events only."""
        return self.visible_to is None or self.visible_to == seat


def route_events(events: Iterable[Event], inboxes: Sequence[list[Event]]) -> None:
    """Append each event to the inbox of every seat that may see it: a public event to all,
    a private one (a dealt role, a map's goal card, a face-down discard, a draw: RULES 2.2,
    3.5-3.7) to its ``visible_to`` seat only.  ``inboxes``: one list per
    seat, in seat order.  The one place this visibility rule is applied to an event stream
    (the env's ``infos``, the batched trainer's seats)."""
    for e in events:
        if e.visible_to is None:
            for box in inboxes:
                box.append(e)
        else:
            inboxes[e.visible_to].append(e)


#: the base game's round-result fields told to every seat (RULES 5.1), and all of them
BASE_PUBLIC = ("round", "gold_found", "winning_side", "winners", "connector", "roles")
BASE_FIELDS = (*BASE_PUBLIC, "received", "last_card_seat", "turns")


@dataclass(frozen=True)
class RoundResult:
    """The outcome of one round (RULES 5.1-5.3, 6.8, 6.9).

    Attributes:
        round: 0-based round index.
        gold_found: a placement connected the gold goal to a root.
        winning_side: base game ``"gold-digger"`` / ``"saboteur"``; Saboteur 2 ``"saboteurs"``,
            ``"blue"``, ``"green"``, ``"blue+green"``, ``"boss"``, or (``both_doors_rule="bga"``
            with no Boss in play) ``"profiteer"`` / ``"none"`` (``scoring.winners_s2``).
        winners: seats that won the round (Saboteur 2: trapped players removed).
        connector: the seat whose placement reached the gold, or ``None``.
        roles: role id per seat at round end (revealed).
        received: gold each seat received this round, thefts included (int per seat).
        paid: gold each seat was paid before thefts (equal to ``received`` in the base game).
        last_card_seat: the seat of the last card-consuming turn (RULES 5.4).
        turns: turns taken this round.
        pass_blue / pass_green: Saboteur 2: a route to the gold avoids every green / blue
            door (RULES 6.9); ``False`` in the base game.
        crystals: Saboteur 2: crystals in the maze at round end (RULES 6.9).
        trapped: Saboteur 2: seats with a Trapped! card in front at round end.
        thefts: Saboteur 2: ``(thief, victim)`` pairs, in order (RULES 6.9).
        public: the fields told to every seat in the ``round_end`` event, per ruleset.
        fields: the fields of this ruleset's result (:meth:`as_dict`, records).
    """

    round: int
    gold_found: bool
    winning_side: str
    winners: list[int]
    connector: int | None
    roles: list[int]
    received: list[int]
    paid: list[int]
    last_card_seat: int
    turns: int
    pass_blue: bool = False
    pass_green: bool = False
    crystals: int = 0
    trapped: list[int] = field(default_factory=list)
    thefts: list[tuple[int, int]] = field(default_factory=list)
    public: tuple[str, ...] = BASE_PUBLIC
    fields: tuple[str, ...] = BASE_FIELDS

    @property
    def saboteurs_won(self) -> bool:
        """Whether the saboteurs' side won the round (RULES 5.3, 6.9), in either game: the base
        game spells it ``"saboteur"``, Saboteur 2 ``"saboteurs"`` (``scoring.SABOTEUR_SIDES``);
        also when no saboteur was in play (RULES 2.2)."""
        from .scoring import SABOTEUR_SIDES  # scoring imports this module

        return self.winning_side in SABOTEUR_SIDES

    def public_data(self) -> dict[str, Any]:
        """The ``round_end`` event's payload: the :attr:`public` fields."""
        return {k: getattr(self, k) for k in self.public}

    def as_dict(self) -> dict[str, Any]:
        """The ruleset's :attr:`fields` as a dict (records, reports)."""
        return {k: getattr(self, k) for k in self.fields}
