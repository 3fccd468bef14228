"""saboteur-env: the card game Saboteur as a pure rules engine and a PettingZoo AEC environment.

Quick start::

    import saboteur_env
    env = saboteur_env.env(num_players=5)
    env.reset(seed=1)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)  # the players' draws, seeded apart from the deal
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else \\
            env.action_space(agent).sample(obs["action_mask"])
        env.step(action)
"""

from .encoding.codec import Codec, legal_indices
from .encoding.observation import ObservationEncoder
from .engine import (
    BASE,
    SABOTEUR_2,
    ConfigError,
    EventType,
    Game,
    GameConfig,
    IllegalActionError,
    Phase,
    RoundResult,
    Ruleset,
    build_state,
)

__version__ = "0.1.0"

__all__ = [
    "BASE",
    "SABOTEUR_2",
    "Codec",
    "ConfigError",
    "EventType",
    "Game",
    "GameConfig",
    "IllegalActionError",
    "ObservationEncoder",
    "Phase",
    "RoundResult",
    "Ruleset",
    "build_state",
    "env",
    "legal_indices",
    "parallel_env",
    "raw_env",
    "saboteur_v0",
    "__version__",
]


def __getattr__(name: str) -> object:
    """``env``, ``raw_env``, ``parallel_env`` and ``saboteur_v0`` import PettingZoo: loaded on
    first use (``parallel_env`` is ``saboteur_v0.parallel_env``), so that
    ``import saboteur_env.engine`` (the rules engine) needs numpy only (DESIGN 1).  The adapter
    lives in :mod:`saboteur_env.aec` (not ``env.py``: a submodule called ``env`` would take the
    place of the ``env()`` function once imported)."""
    if name in ("env", "raw_env", "parallel_env", "saboteur_v0"):
        import importlib

        adapter = importlib.import_module(".aec", __name__)
        v0 = importlib.import_module(".saboteur_v0", __name__)
        globals().update(
            env=adapter.env, raw_env=adapter.raw_env, parallel_env=v0.parallel_env, saboteur_v0=v0
        )
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
