"""RandomAgent: uniform over the legal actions, with its own seeded generator."""

from __future__ import annotations

import numpy as np

from saboteur_env.encoding.codec import legal_indices

from .base import Agent, register_agent


class RandomAgent(Agent):
    """Picks uniformly among the actions whose mask bit is 1.

    Raises:
        ValueError: the mask has no legal action.
    """

    name = "random"

    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def act(self, observation, action_mask, info=None) -> int:
        legal = legal_indices(action_mask)
        if len(legal) == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(legal[self.rng.integers(len(legal))])


register_agent("random", RandomAgent)
