"""The phases a decision can be in (DESIGN 3 multi-step decisions, OpenSpiel-style dispatch).

A normal turn is :attr:`Phase.TURN`.  Saboteur 2 options that take several cards are one
decision per card by the same seat: :attr:`Phase.PASS` after a first discard (RULES 6.7 option
4), :attr:`Phase.REMOVE` after choosing a card in front of oneself to remove (RULES 6.7 option
3), and :attr:`Phase.THEFT` at round end while thieves choose victims (RULES 6.9).  Which action
families a phase offers is the table :data:`FAMILIES_OF_PHASE`, the one place that decides it.
"""

from __future__ import annotations

from enum import Enum


class Phase(str, Enum):
    """The phase of the decision to take; a ``str`` so that records stay plain text."""

    TURN = "turn"
    PASS = "pass"
    REMOVE = "remove"
    THEFT = "theft"

    def __str__(self) -> str:
        return self.value

    # hash as the plain string, so that a member and its value are one dict key
    __hash__ = str.__hash__


#: phase -> action families that may be legal in it (a ruleset offers a subset of families).
FAMILIES_OF_PHASE: dict[Phase, tuple[str, ...]] = {
    Phase.TURN: ("place", "rockfall", "map", "tool", "discard", "xaction", "remove"),
    Phase.PASS: ("discard", "done"),
    Phase.REMOVE: ("discard",),
    Phase.THEFT: ("steal",),
}
