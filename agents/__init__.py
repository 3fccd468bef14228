"""Baseline agents behind one small interface (DESIGN 6).

An agent is an object with

* ``reset(seat, config, seed=None)``: a new game begins; ``seat`` is its absolute seat;
* ``act(observation, action_mask, info=None) -> int``: choose a legal flat action, reading only
  its own observation (the flat float32 tensor), its mask and its own ``infos`` entry;
* optionally ``belief() -> np.ndarray (n_players, n_roles)``: its role beliefs.

:func:`make_agent` builds an agent from a spec string such as ``"random"``.
"""

from . import (
    ppo,  # noqa: F401  (registers "ppo"; imports torch only when built)
    rllib_agent,  # noqa: F401  (registers "rllib"; imports ray only when built)
)
from .base import Agent, make_agent, register_agent
from .heuristic import HeuristicAgent  # noqa: F401  (registers "heuristic")
from .ismcts import ISMCTSAgent  # noqa: F401  (registers "ismcts"; needs the live game)
from .random_agent import RandomAgent
from .softmax import SoftmaxAgent  # noqa: F401  (registers "softmax")

__all__ = ["Agent", "RandomAgent", "make_agent", "register_agent"]
