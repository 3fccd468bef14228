"""The rules engine: pure Python + numpy, no RL library (DESIGN 1, 8)."""

from .config import ConfigError, GameConfig
from .state import (
    Action,
    BreakTool,
    Discard,
    EndPass,
    Event,
    Game,
    IllegalActionError,
    Map,
    PlacePath,
    PlayCard,
    RemoveFront,
    Repair,
    Rockfall,
    Steal,
    build_state,
)

__all__ = [
    "Action", "BreakTool", "ConfigError", "Discard", "EndPass", "Event", "Game", "GameConfig",
    "IllegalActionError", "Map", "PlacePath", "PlayCard", "RemoveFront", "Repair", "Rockfall",
    "Steal", "build_state",
]
