"""An agent's own beliefs as a detector (in-seat only)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .base import Detector


class AgentBeliefDetector(Detector):
    """An agent's own ``belief()`` (in-seat only).  The harness replays the game through the
    environment and hands this detector the seat's observations on the seat's turns
    (:meth:`observe_turn`), where it calls ``agent.act`` to let the agent update itself; the
    chosen action is ignored."""

    name = "agent-belief"
    tracks = ("in-seat",)
    needs_turns = True

    def __init__(self, factory: Callable[[], object], name: str | None = None) -> None:
        self.factory = factory
        if name:
            self.name = name

    def reset(self, seat, config, own_role) -> None:
        self.agent = self.factory()
        self.agent.reset(seat, config, seed=0)
        super().reset(seat, config, own_role)

    def observe(self, event) -> None:
        super().observe(event)
        if hasattr(self.agent, "observe"):  # keep the agent's belief current between turns
            self.agent.observe([event])

    def observe_turn(self, observation, action_mask, info) -> None:
        """The seat's turn: the agent acts on its observation (float32), its action mask and
        its ``info`` (the events since its last turn), which updates its belief (an agent
        with an ``observe_decision`` method, e.g. the heuristic, updates without choosing a
        move)."""
        update = getattr(self.agent, "observe_decision", None)
        (update or self.agent.act)(observation, action_mask, info)

    def belief(self) -> np.ndarray:
        b = np.asarray(self.agent.belief(), dtype=float)
        return b
