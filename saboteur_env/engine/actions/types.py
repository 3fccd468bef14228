"""The structured actions: small frozen dataclasses, one per kind of decision (DESIGN 2).

Seats are absolute here; card kinds index ``cards.CARD_KINDS``.  Which family an action belongs
to, and how it is checked, applied, encoded and described, is the family's module in this
package (:mod:`saboteur_env.engine.actions`).
"""

from __future__ import annotations

from dataclasses import dataclass


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


Action = (
    PlacePath
    | BreakTool
    | Repair
    | Rockfall
    | Map
    | Discard
    | PlayCard
    | RemoveFront
    | EndPass
    | Steal
)
