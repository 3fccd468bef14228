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
    as :func:`env` (DESIGN 5)."""
    return turn_based_aec_to_parallel(env(**config))


__all__ = ["env", "parallel_env", "raw_env"]
