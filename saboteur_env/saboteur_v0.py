"""The versioned entry point, PettingZoo's convention: ``from saboteur_env import saboteur_v0``,
then ``saboteur_v0.env(num_players=5)`` or ``saboteur_v0.raw_env(...)``.  The suffix moves when
the observation or action spaces change (Version History in :mod:`saboteur_env.aec`).
"""

from .aec import env, raw_env

__all__ = ["env", "raw_env"]
