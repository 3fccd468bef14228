"""A stochastic heuristic: samples from a softmax of the heuristic agent's action scores.

The heuristic agent (:mod:`saboteur_agents.heuristic`) plays the argmax of its scores, so the
probability it gives an action is 0 or 1.  :class:`SoftmaxAgent` plays the same scores as a
Boltzmann policy, ``p(a) = exp(s_a / t) / sum_b exp(s_b / t)`` over the legal actions, and says
what those probabilities are (:meth:`SoftmaxAgent.probs`): a population whose policy a detector
can use as its likelihood (the bluff benchmark's Bayes ceiling,
:mod:`saboteur_experiments.bluff.detectors.policy`).  In the phases after a normal turn
(Saboteur 2: pass, remove, theft) the heuristic scores its choice 1 and the rest 0, so at the
default temperature the softmax nearly always plays its choice there.
"""

from __future__ import annotations

import numpy as np

from saboteur_env.engine.config import GameConfig

from .base import Agent, register_agent
from .heuristic import HeuristicAgent

#: the default temperature, in the heuristic's score units: in 774 decisions of six 5-player
#: base games of heuristic play (train-split deals) the median gap between its best and
#: second-best move was 0.11 and the median move scored 1.1 below the best, so at 0.1 it mostly
#: picks among its two or three best moves; role-probe against the heuristic on 150 dev deals
#: per role: gold-digger +3.3 [-2.4, +9.0], saboteur -2.0 [-6.8, +2.8] points
#: (``saboteur evaluate softmax --against heuristic --deals 150 --split dev``)
TEMPERATURE = 0.1
#: the seed of the inner heuristic's tie-breaks: the same in every copy, so a detector's copy of
#: the agent given the same events and observations scores the moves exactly alike
INNER_SEED = 0


class SoftmaxAgent(Agent):
    """The heuristic's scores played as a softmax (``make_agent("softmax[:t=T]")``).

    Args:
        option: ``"t=T"``, the temperature (a float above 0; default :data:`TEMPERATURE`).
            The inner heuristic is the latest version in its default style.

    Raises:
        ValueError: an option that is not ``t=`` a positive number.
    """

    name = "softmax"

    def __init__(self, option: str = "") -> None:
        self.temperature = TEMPERATURE
        if option:
            key, eq, value = option.partition("=")
            try:
                t = float(value) if key == "t" and eq else float("nan")
            except ValueError:
                t = float("nan")
            if not t > 0 or not np.isfinite(t):
                raise ValueError(
                    f"bad softmax option {option!r}: 't=T' with a temperature T > 0 "
                    f"(e.g. 'softmax:t={TEMPERATURE}')"
                )
            self.temperature = t
        self.inner = HeuristicAgent()

    @property
    def spec(self) -> str:
        """The canonical spec of this agent, ``"softmax:t=T"`` (``"softmax"`` and
        ``"softmax:t=0.10"`` are ``"softmax:t=0.1"``)."""
        return f"softmax:t={self.temperature!r}"

    def reset(self, seat: int, config: GameConfig, seed: int | None = None) -> None:
        """A new game: ``seed`` seeds the sampling; the inner heuristic's tie-breaks always use
        :data:`INNER_SEED`."""
        super().reset(seat, config, seed)
        self.inner.reset(seat, config, seed=INNER_SEED)

    def observe(self, events) -> None:
        """Events between turns (:meth:`HeuristicAgent.observe`)."""
        self.inner.observe(events)

    def belief(self) -> np.ndarray:
        """The inner heuristic's role belief, float64 ``(n_players, n_roles)``."""
        return self.inner.belief()

    def probs(
        self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions and the probability of each, at a decision.

        This *is* the decision's update, as :meth:`act` is (the inner heuristic reads the
        events of ``info`` and counts the turn): call it once per decision, instead of
        :meth:`act` (which calls it), not beside it.

        Returns:
            ``(legal, p)``: int64 ``(k,)`` flat action indexes and float64 ``(k,)``
            probabilities summing to 1.

        Raises:
            ValueError: the mask has no legal action.
        """
        legal, z = self.logits(observation, action_mask, info)
        p = np.exp(z)
        return legal, p / p.sum()

    def logits(
        self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions and their logits ``s_a / t`` shifted so that the best is 0 (a
        -inf score stays -inf, probability 0): what :meth:`probs` normalises, and the prior a
        trained policy adds its own logits to (:attr:`saboteur_agents.network.PolicyValueNet.
        prior`).  Like
        :meth:`probs` it *is* the decision's update: call one of them once per decision.

        Returns:
            ``(legal, z)``: int64 ``(k,)`` flat action indexes and float64 ``(k,)`` logits,
            ``max(z) == 0``.

        Raises:
            ValueError: the mask has no legal action, or the scores are NaN, +inf or all -inf.
        """
        legal, scores = self.inner.scores(observation, action_mask, info)
        if np.isnan(scores).any() or np.isposinf(scores).any() or not np.isfinite(scores).any():
            raise ValueError(f"SoftmaxAgent: heuristic scores {scores} are not a distribution")
        z = scores / self.temperature
        return legal, z - z.max()

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None = None
    ) -> int:
        """A legal flat action drawn from :meth:`probs` with the agent's own generator."""
        legal, p = self.probs(observation, action_mask, info)
        return int(legal[int(self.rng.choice(len(p), p=p))])


register_agent("softmax", SoftmaxAgent)
