"""An adversarial deceiver: a saboteur tuned against a detector.

:class:`EvasiveAgent` plays the heuristic, except that on a normal turn it looks at every legal
move whose heuristic score (:meth:`saboteur_agents.heuristic.HeuristicAgent.scores`) is within
``margin`` of its best, and plays the one after which a spectator's
:class:`.detectors.BayesDetector` (hand-set likelihoods: the panel's ``bayes``, fed the public
events so far) gives its own seat the lowest saboteur probability (ties: the better heuristic
score).  It looks ahead on ``game.determinize(seat, rng)`` (what its seat may know), so it needs
the live game (:attr:`~saboteur_agents.base.Agent.needs_game`).  Spec::

    make_agent("evasive")                 # margin 0.15
    make_agent("evasive:margin=0.3")
    make_agent("rolesplit:heuristic/evasive")   # the benchmark's heuristic-evasivesab

It is tuned against ``bayes`` only; the other detectors of the panel (``bayes-fit``,
``logistic``) show how far the evasion transfers.
"""

from __future__ import annotations

import numpy as np

from saboteur_agents.base import Agent, register_agent
from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.events import EventType
from saboteur_env.engine.phases import Phase

from .detectors import BayesDetector

#: the default score margin (the heuristic's scores: about 0.1 to 2 between its best moves)
MARGIN = 0.15


class EvasiveAgent(Agent):
    """The heuristic, choosing among its near-best moves the least suspicious one to a
    Bayes detector (see the module docstring).

    Args:
        margin: moves scored at least ``best - margin`` are candidates.
    """

    name = "evasive"
    needs_game = True

    def __init__(self, margin: float = MARGIN) -> None:
        self.margin = float(margin)
        self.game = None

    def reset(self, seat, config, seed=None) -> None:
        from saboteur_agents.heuristic import HeuristicAgent

        super().reset(seat, config, seed)
        self.heuristic = HeuristicAgent()
        self.heuristic.reset(seat, config, seed=int(self.rng.integers(2**63)))
        self.codec, self.encoder = Codec(config), ObservationEncoder(config)
        #: the public events of the round so far (what the spectator detector has seen)
        self.public: list = []
        self.sab = config.ruleset.saboteur
        self.game = None
        #: decisions, and those on which another move than the heuristic's best was played
        self.decisions = self.evasions = 0

    def act(self, observation, action_mask, info=None) -> int:
        for e in (info or {}).get("events", []):
            if e.visible_to is None:
                if e.type == EventType.ROUND_START:
                    self.public = []
                self.public.append(e)
        legal, scores = self.heuristic.scores(observation, action_mask, info)
        self.decisions += 1
        best = int(np.argmax(scores))
        phase = self.encoder.phase_of(self.encoder.views(np.asarray(observation)))
        near = np.flatnonzero(np.isfinite(scores) & (scores >= scores[best] - self.margin))
        if self.game is None or phase is not Phase.TURN or len(near) < 2:
            return int(legal[best])
        det = self.game.determinize(self.seat, self.rng)
        n = self.config.num_players
        suspicion = []
        for i in near:
            sim = det.copy()
            events = sim.apply(self.codec.decode(int(legal[i]), self.seat, n))
            d = BayesDetector()  # replays the round's public events, then the move's
            d.reset(None, self.config, None)
            for e in [*self.public, *events]:
                if e.visible_to is None:
                    d.observe(e)
            suspicion.append(float(d.belief()[self.seat, self.sab]))
        # least suspicious; ties: the better heuristic score
        pick = int(near[np.lexsort((-scores[near], np.round(suspicion, 9)))[0]])
        self.evasions += pick != best
        return int(legal[pick])


def _factory(option: str = "") -> EvasiveAgent:
    margin = MARGIN
    for part in filter(None, option.split("+")):
        key, eq, value = part.partition("=")
        if key != "margin" or not eq:
            raise ValueError(f"evasive: bad option {part!r}; valid: margin=<float >= 0>")
        try:
            margin = float(value)
        except ValueError:
            raise ValueError(f"evasive: margin={value!r} is not a number") from None
        if not margin >= 0:
            raise ValueError(f"evasive: margin={value!r} must be >= 0")
    return EvasiveAgent(margin)


register_agent("evasive", _factory)
