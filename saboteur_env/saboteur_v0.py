"""The versioned entry point, PettingZoo's convention: ``from saboteur_env import saboteur_v0``,
then ``saboteur_v0.env(num_players=5)``, ``saboteur_v0.raw_env(...)`` or
``saboteur_v0.parallel_env(...)``.  The suffix moves when the observation or action spaces change
(Version History in :mod:`saboteur_env.aec`).
"""

from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .aec import env, raw_env


def parallel_env(**config):
    """The Parallel API view of :func:`env` (PettingZoo's ``turn_based_aec_to_parallel``):
    each parallel step plays one decision, the action of the agent to act (the others' actions
    are ignored); ``infos[agent]["active_agent"]`` names the next agent to act.  Keyword options
    as :func:`env` (DESIGN 5); ``state()`` and ``state_space`` are the env's.

    With ``max_cycles=k`` the game is truncated after ``k * num_players`` parallel steps (one
    per decision).  PettingZoo's ``max_cycles_test`` cannot pass unmodified: it plays
    ``action_space.sample()``, almost always a masked move, which raises (no silent penalty),
    and it expects ``k`` parallel steps; ``tests/test_pettingzoo_conventions.py`` runs it with
    masked actions and this step count."""
    return turn_based_aec_to_parallel(env(**config))


__all__ = ["env", "parallel_env", "raw_env"]
