"""The action families and the one dispatch that checks, lists and applies actions (DESIGN 8).

:data:`FAMILIES` holds every family by name (``place``, ``rockfall``, ``map``, ``tool``,
``discard``, ``xaction``, ``remove``, ``done``, ``steal``); a ruleset offers some of them
(``Ruleset.families``, in block order) and a phase offers some of those
(``phases.FAMILIES_OF_PHASE``).  :func:`check`, :func:`legal_set`, :func:`legal_actions` and
:func:`apply` are the engine's only way to decide and carry out a decision; ``Game.check``,
``Game.legal_actions`` and ``Game.apply`` call them, and the codec's mask is
:func:`legal_set` laid end to end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..phases import FAMILIES_OF_PHASE, Phase
from .discard import DiscardFamily, DoneFamily
from .family import ActionFamily, Layout, held_kinds, is_int, layout_of
from .map import MapFamily
from .place import PlaceFamily
from .remove import RemoveFamily
from .rockfall import RockfallFamily
from .steal import StealFamily
from .tool import ToolFamily
from .types import (
    Action,
    BreakTool,
    Discard,
    EndPass,
    Map,
    PlacePath,
    PlayCard,
    RemoveFront,
    Repair,
    Rockfall,
    Steal,
)
from .xaction import XActionFamily

if TYPE_CHECKING:
    from ..events import Event
    from ..state import Game

#: every action family by name
FAMILIES: dict[str, ActionFamily] = {
    f.name: f
    for f in (
        PlaceFamily(),
        RockfallFamily(),
        MapFamily(),
        ToolFamily(),
        DiscardFamily(),
        XActionFamily(),
        RemoveFamily(),
        DoneFamily(),
        StealFamily(),
    )
}
_FAMILY_OF_TYPE: dict[type, ActionFamily] = {t: f for f in FAMILIES.values() for t in f.types}


class IllegalActionError(ValueError):
    """An action that the rules forbid in this state; the message names the rule (RULES x.y).

    The state is left unchanged.
    """


def family_of(action: object) -> ActionFamily | None:
    """The family that owns ``action`` (``None`` for anything that is not an action)."""
    return _FAMILY_OF_TYPE.get(type(action))


def _wrong_phase(game: Game, seat: int, action: Action, family: ActionFamily) -> str:
    """Why a family the ruleset has is not offered in the current phase (RULES 6.7, 6.9)."""
    phase = game.phase
    if phase is Phase.THEFT:
        return "at round end the thief must choose a victim (Steal, RULES 6.9)"
    if phase is Phase.TURN:
        if family.name == "steal":
            return f"{action!r} is only legal at round end, by a thief (RULES 6.9)"
        return f"{action!r} is only legal in a pass (RULES 6.7)"
    if phase is Phase.REMOVE and family.name == "done":
        return "discard-two-to-remove needs exactly two discards (RULES 6.7)"
    what = (
        "pass (discard or EndPass)"
        if phase is Phase.PASS
        else "discard-two-to-remove (discard a second card)"
    )
    return f"seat {seat} is in the middle of a {what} (RULES 6.7)"


def check(game: Game, action: object, seat: int | None = None) -> str | None:
    """Why ``action`` is illegal for ``seat`` (default: the seat to act), or ``None``.

    The text names the rule (RULES section) that forbids it.
    """
    seat = game.current if seat is None else seat
    if game.game_over:
        return "the game is over (RULES 5.5)"
    if seat != game.current:
        return f"it is seat {game.current}'s turn, not seat {seat}'s"
    family = family_of(action)
    if family is None:
        return f"unknown action {action!r}"
    if not game.rules.offers(family.name):
        return f"{action!r} is not an action of {game.rules.title} (RULES 6: Saboteur 2 only)"
    if family.name not in FAMILIES_OF_PHASE[game.phase]:
        return _wrong_phase(game, seat, action, family)  # type: ignore[arg-type]
    return family.check(game, seat, action)  # type: ignore[arg-type]


def _seat(game: Game, seat: int | None) -> int:
    """The seat asked about (default: the seat to act).

    Raises:
        ValueError: not a seat in play.
    """
    if seat is None:
        return game.current
    if not is_int(seat) or not 0 <= seat < game.n:
        raise ValueError(f"seat={seat!r}: a seat 0..{game.n - 1}")
    return int(seat)


def legal_set(
    game: Game,
    seat: int | None = None,
    offered_only: bool = False,
    out: dict[str, np.ndarray] | None = None,
    reference: bool = False,
) -> dict[str, np.ndarray]:
    """The legal actions of ``seat`` (default: the seat to act) as one bool array per family
    of the ruleset, each laid out as its block of the flat action space (DESIGN 3): all
    ``False`` for families the phase does not offer, and everywhere when the game is over or
    ``seat`` is not to act.

    Args:
        offered_only: leave out the families the phase does not offer (no legal action).
        out: family name -> an all-zero array of the family's shape to write into (e.g. the
            blocks of a mask); the result then holds these arrays.
        reference: build each array with the family's plain ``legal_reference`` (the
            specification the tuned ``legal`` is tested against; ``out`` is then ignored).
    """
    seat = _seat(game, seat)
    active = not game.game_over and seat == game.current
    allowed = FAMILIES_OF_PHASE[game.phase] if active else ()
    held = held_kinds(game, seat)
    result = {}
    for name in game.rules.families:
        fam = FAMILIES[name]
        dest = None if out is None else out[name]
        if name in allowed and reference:
            result[name] = fam.legal_reference(game, seat)
        elif name in allowed:
            result[name] = fam.legal(game, seat, held, dest)
        elif not offered_only:
            result[name] = fam.blank(game.layout, dest)
    return result


def legal_actions(game: Game, seat: int | None = None) -> list[Action]:
    """Every legal action of ``seat`` (default: the seat to act), structured, in block
    order: :func:`legal_set` decoded."""
    seat = _seat(game, seat)
    lay = game.layout
    out: list[Action] = []
    for name, legal in legal_set(game, seat).items():
        fam = FAMILIES[name]
        out += [fam.action(lay, i, seat, game.n) for i in np.flatnonzero(legal).tolist()]
    return out


def apply(game: Game, action: object, verify: bool = True) -> list[Event]:
    """Play ``action`` for the seat to act and advance the game; the events it caused.

    ``verify=False`` skips :func:`check` for an action the caller took from this very state's
    :func:`legal_set` (the env's mask is that set): membership in the legal set is the check.

    Raises:
        IllegalActionError: the action breaks a rule (named in the message); nothing changes.
    """
    if verify:
        why = check(game, action)
        if why is not None:
            raise IllegalActionError(why)
    family = family_of(action)
    assert family is not None
    game.begin_decision()
    family.apply(game, game.current, action)  # type: ignore[arg-type]
    return game.take_events()


def describe(action: object) -> str:
    """English text for a structured action (absolute seats)."""
    family = family_of(action)
    return repr(action) if family is None else family.describe(action)  # type: ignore[arg-type]


def actions_from_events(events: list[Event]) -> list[tuple[int, Action]]:
    """The ``(seat, action)`` of every decision, recovered from a game's full event log
    (private events included): each family's record inverse."""
    out: list[tuple[int, Action]] = []
    fams = list(FAMILIES.values())
    for e in events:
        for f in fams:
            a = f.from_event(e)
            if a is not None:
                assert e.seat is not None
                out.append((e.seat, a))
                break
    return out


__all__ = [
    "FAMILIES",
    "Action",
    "ActionFamily",
    "BreakTool",
    "Discard",
    "EndPass",
    "IllegalActionError",
    "Layout",
    "Map",
    "PlacePath",
    "PlayCard",
    "RemoveFront",
    "Repair",
    "Rockfall",
    "Steal",
    "actions_from_events",
    "apply",
    "check",
    "describe",
    "family_of",
    "layout_of",
    "legal_actions",
    "legal_set",
]
