"""The rules engine: pure Python + numpy, no RL library (DESIGN 1, 8).

Layers, one concern each: :mod:`.cards` (the card table), :mod:`.ruleset` (a variant as data:
:data:`BASE`, :data:`SABOTEUR_2`), :mod:`.config` (:class:`GameConfig`), :mod:`.board` (the maze),
:mod:`.state` (:class:`Game`), :mod:`.setup` (deals, :func:`build_state`), :mod:`.actions` (one
module per action family: check, legal set, apply, codec block, text, record form),
:mod:`.phases`, :mod:`.events`, :mod:`.turn`, :mod:`.scoring`, :mod:`.determinize`.
"""

from .actions import (
    FAMILIES,
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
    actions_from_events,
    describe,
    family_of,
    layout_of,
)
from .config import ConfigError, GameConfig
from .determinize import DeterminizeError, determinize
from .events import Event, EventData, EventType, RoundResult
from .phases import Phase
from .ruleset import BASE, RULESETS, SABOTEUR_2, Ruleset
from .setup import build_state
from .state import Game

__all__ = [
    "BASE",
    "FAMILIES",
    "RULESETS",
    "SABOTEUR_2",
    "Action",
    "BreakTool",
    "ConfigError",
    "Discard",
    "EndPass",
    "Event",
    "EventData",
    "EventType",
    "Game",
    "GameConfig",
    "IllegalActionError",
    "Map",
    "Phase",
    "PlacePath",
    "PlayCard",
    "RemoveFront",
    "Repair",
    "Rockfall",
    "RoundResult",
    "Ruleset",
    "Steal",
    "actions_from_events",
    "build_state",
    "describe",
    "DeterminizeError",
    "determinize",
    "family_of",
    "layout_of",
]
