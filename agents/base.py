"""The agent interface and the registry of agent specs (DESIGN 6)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from saboteur_env.engine.config import GameConfig


class Agent:
    """Base class: subclasses implement :meth:`act`; :meth:`reset` may be extended."""

    name = "agent"

    def reset(self, seat: int, config: GameConfig, seed: int | None = None) -> None:
        """A new game begins: remember the seat and config, seed the agent's own generator."""
        self.seat = seat
        self.config = config
        self.rng = np.random.default_rng(seed)

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None = None
    ) -> int:
        """Choose a flat action index with ``action_mask[index] == 1``.

        Args:
            observation: float32 ``(size,)``, the environment's ``"observation"``.
            action_mask: int8 ``(n,)``, the environment's ``"action_mask"``.
            info: the agent's own ``infos`` entry (events since its last turn), if available.
        """
        raise NotImplementedError


_REGISTRY: dict[str, Callable[..., Agent]] = {}


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``make_agent(name[:option])`` build agents with ``factory(option)``."""
    _REGISTRY[name] = factory


def make_agent(spec: str) -> Agent:
    """Build an agent from a spec: ``"random"``, ``"heuristic"``, ``"heuristic:subtle"``...

    Raises:
        ValueError: an unknown agent name; the message lists the known ones.
    """
    name, _, option = spec.partition(":")
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {spec!r}; known agents: {sorted(_REGISTRY)}")
    agent = _REGISTRY[name](option) if option else _REGISTRY[name]()
    agent.name = spec
    return agent
