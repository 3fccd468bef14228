"""The Bayes ceiling: a detector that knows the population's policies.

When every role of a population plays a policy that gives action probabilities (the PPO agent,
the random agent, the softmax heuristic :mod:`saboteur_agents.softmax`), the posterior over role
assignments after a round's decisions is, by Bayes' rule,

    P(roles | decisions) ~ prior(roles) * prod_t pi_{role of actor t}(a_t | o_t(role of actor t))

where ``o_t(r)`` is what actor ``t`` saw at its decision had it held role ``r``.  A player's
own role enters its observation only through the ``role`` one-hot (RULES 2.2: nobody else's
role is shown), and the deal of the cards does not depend on the roles, so with the actors'
observations known the product is exact: :class:`PolicyBayesDetector` computes it over every
role assignment the role deck allows (in Saboteur 2 following every Swap your hats).

It is **privileged**: the harness hands it each actor's observation (its hand, its map results)
with the role one-hot blanked, and the events that actor saw with its dealt role blanked, so it
knows every card but no role (in Saboteur 2 it also sees the roles an actor's Inspections
showed that actor, which its policy reads).  Knowing more can only raise the expected score of
a Bayes posterior (under the true model), so its log-loss skill is an upper bound on what any
spectator detector can reach on that population: the ceiling the benchmark's gaps are taken
to.  ``samples=K`` makes it a true spectator instead (:class:`PolicyBayesDetector`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import EventData, EventType

from .assignments import DealtAssignments, RoleAssignments, hat_swap_target
from .base import Detector
from .priors import exact_prior, role_deck, roles_change

_ROLE_SLICES: dict = {}


def role_slice(config: GameConfig) -> slice:
    """Where the observation's own-role one-hot lies (the ``role`` view of
    :class:`~saboteur_env.encoding.observation.ObservationEncoder`), cached per config."""
    if config not in _ROLE_SLICES:
        from saboteur_env.encoding.observation import ObservationEncoder

        v = {x.name: x for x in ObservationEncoder(config).spec()}["role"]
        _ROLE_SLICES[config] = slice(v.offset, v.offset + v.size)
    return _ROLE_SLICES[config]


class ActionModel:
    """One policy's action probabilities for one seat in one role hypothesis.

    :meth:`reset` starts a game; :meth:`probs` is called at each of the seat's decisions with
    the observation as that role would see it and the events the seat saw since its last
    decision (its dealt role rewritten to the hypothesis).  A ``stateless`` model's
    probabilities depend on the observation and mask alone, so it can also be asked about
    sampled states (:meth:`probs_batch`).
    """

    stateless = True

    @classmethod
    def accepts(cls, option: str) -> bool:
        """Whether the agent spec's option (after ``name:``) keeps its probabilities known."""
        return True

    @classmethod
    def factory(cls, spec: str, config: GameConfig) -> Callable[[], ActionModel]:
        """A factory of this model for the agent ``spec`` in ``config``'s game."""
        return cls

    @classmethod
    def keeps_state(cls, spec: str, config: GameConfig) -> bool:
        """Whether the model of ``spec`` keeps event-fed state (not :attr:`stateless`)."""
        return not cls.stateless

    def batch_key(self) -> object:
        """Models with one key are one function of (observation, mask): their role hypotheses
        can share one :meth:`probs_batch` call (``None``: never shared)."""
        return None

    def reset(self, seat: int, config: GameConfig) -> None:
        """A new game for ``seat``."""

    def probs(self, observation: np.ndarray, action_mask: np.ndarray, events: list) -> np.ndarray:
        """float64 ``(n_actions,)``: the probability of every flat action (0 off the mask)."""
        raise NotImplementedError

    def probs_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """float64 ``(B, n_actions)`` for float32 ``(B, obs)`` observations and ``(B,
        n_actions)`` masks (a stateless model only)."""
        return np.stack([self.probs(o, m, []) for o, m in zip(observations, masks)])


class UniformModel(ActionModel):
    """The random agent: every legal action alike (:mod:`saboteur_agents.random_agent`)."""

    @classmethod
    def accepts(cls, option: str) -> bool:
        return not option

    def batch_key(self) -> object:
        return UniformModel

    def probs(self, observation, action_mask, events) -> np.ndarray:
        m = np.asarray(action_mask, dtype=float)
        return m / m.sum()

    def probs_batch(self, observations, masks) -> np.ndarray:
        m = np.asarray(masks, dtype=float)
        return m / m.sum(axis=1, keepdims=True)


class NetworkModel(ActionModel):
    """A PPO agent that samples (:class:`saboteur_agents.ppo.PPOAgent`, not ``greedy``): the
    masked softmax of its network's logits, computed in float64.  A network with a prior
    (``saboteur train --prior``) is a :class:`ResidualModel` instead."""

    def __init__(self, net) -> None:
        self.net = net

    @classmethod
    def accepts(cls, option: str) -> bool:
        from saboteur_agents.ppo import parse_option

        return not parse_option(option)[1]  # a greedy PPO agent plays the argmax

    @classmethod
    def factory(cls, spec, config) -> Callable[[], ActionModel]:
        net = cls._net(spec, config)
        if net.prior:
            return lambda: ResidualModel(net)
        return lambda: cls(net)

    @classmethod
    def keeps_state(cls, spec: str, config: GameConfig) -> bool:
        """A network with a prior keeps its prior agent's event-fed state."""
        return bool(cls._net(spec, config).prior)

    @staticmethod
    def _net(spec: str, config: GameConfig):
        from saboteur_agents import make_agent

        agent = make_agent(spec)
        agent.reset(0, config, seed=0)  # loads the checkpoint once (cached); the models share it
        return agent.net

    def batch_key(self) -> object:
        return id(self.net)

    def probs(self, observation, action_mask, events) -> np.ndarray:
        return self.probs_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0]

    def probs_batch(self, observations, masks) -> np.ndarray:
        import torch

        with torch.no_grad():
            logits, _ = self.net(torch.as_tensor(np.asarray(observations, np.float32)))
        z = logits.double().numpy()
        z = np.where(np.asarray(masks) > 0, z, -np.inf)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)


class ResidualModel(NetworkModel):
    """A PPO agent whose network has a prior (:attr:`saboteur_agents.network.PolicyValueNet.
    prior`): the masked softmax of the network's logits plus the prior's, in float64, with a
    copy of the prior agent fed the seat's events as the player's is (so not stateless)."""

    stateless = False

    def batch_key(self) -> object:
        return None

    def reset(self, seat, config) -> None:
        from saboteur_agents.network import prior_agent

        self.prior = prior_agent(self.net.prior)
        self.prior.reset(seat, config, seed=0)

    def probs(self, observation, action_mask, events) -> np.ndarray:
        import torch

        from saboteur_agents.network import add_prior, prior_rows

        prior = self.prior.logits(observation, action_mask, {"events": events})
        with torch.no_grad():
            logits, _ = self.net(torch.as_tensor(np.asarray(observation, np.float32))[None])
            logits = add_prior(logits, *prior_rows([prior], logits.shape[1]))  # as the player
        x = logits[0].double().numpy()
        x = np.where(np.asarray(action_mask) > 0, x, -np.inf)
        p = np.exp(x - x.max())
        return p / p.sum()

    def probs_batch(self, observations, masks) -> np.ndarray:
        raise TypeError("ResidualModel keeps its prior's event-fed state: no probs_batch")


class SoftmaxModel(ActionModel):
    """The softmax heuristic (:class:`saboteur_agents.softmax.SoftmaxAgent`): a copy of the
    agent fed the seat's events, whose :meth:`~saboteur_agents.softmax.SoftmaxAgent.probs` are
    exactly the player's (its inner tie-breaks share one seed).  Not stateless: the copy keeps
    the heuristic's event-fed beliefs."""

    stateless = False

    def __init__(self, spec: str) -> None:
        self.spec = spec

    @classmethod
    def factory(cls, spec, config) -> Callable[[], ActionModel]:
        return lambda: cls(spec)

    def reset(self, seat, config) -> None:
        from saboteur_agents import make_agent

        self.agent = make_agent(self.spec)
        self.agent.reset(seat, config, seed=0)

    def probs(self, observation, action_mask, events) -> np.ndarray:
        legal, p = self.agent.probs(observation, action_mask, {"events": events})
        out = np.zeros(len(action_mask))
        out[legal] = p
        return out


#: agent name -> the :class:`ActionModel` of its action probabilities (the heuristic and the
#: search agent choose deterministically given their state: none)
MODELS: dict[str, type[ActionModel]] = {
    "random": UniformModel,
    "ppo": NetworkModel,
    "softmax": SoftmaxModel,
}


def model_class(spec: str) -> type[ActionModel] | None:
    """The :class:`ActionModel` of the agent ``spec``, or ``None`` when its action
    probabilities are not known (:data:`MODELS`; ``ppo:greedy`` plays the argmax)."""
    name, _, opt = spec.partition(":")
    cls = MODELS.get(name)
    return cls if cls is not None and cls.accepts(opt) else None


def gives_probabilities(spec: str) -> bool:
    """Whether the agent ``spec`` is a policy with known action probabilities: ``random``,
    ``ppo[:path]`` (not ``greedy``), ``softmax[:t=T]`` (:func:`model_class`)."""
    return model_class(spec) is not None


def policy_model(spec: str, config: GameConfig) -> Callable[[], ActionModel] | None:
    """A factory of :class:`ActionModel` for the agent ``spec`` when it
    :func:`gives_probabilities` (a PPO checkpoint is loaded here, once), else ``None``."""
    cls = model_class(spec)
    return None if cls is None else cls.factory(spec, config)


def _role_specs(policies: Mapping[str, str], config: GameConfig) -> dict[int, str]:
    """Role id -> the spec that role plays: the saboteur policy for the saboteur, the
    gold-digger policy for every other role (Saboteur 2's populations split saboteur against
    the rest)."""
    rules = config.ruleset
    return {
        r: policies["saboteur"] if r == rules.saboteur else policies["digger"]
        for r in range(rules.n_roles)
    }


def ceiling_problem(
    policies: Mapping[str, str], config: GameConfig, sampled: bool = False
) -> str | None:
    """Why the ceiling cannot be computed for a population given as its (saboteur policy,
    gold-digger policy) pair (:func:`..populations.policies`); ``None`` when it can.

    Reasons: a mimic saboteur (it is shown another role's view: not modelled); a policy
    without action probabilities; a policy that keeps event-fed state (the softmax heuristic)
    where its copy could not follow the player exactly: when ``sampled`` (a copy per sample
    would be needed), when the two roles play different policies (the player's copy is asked
    only on its role's turns, the detector's at every turn) or when roles change mid-round
    (Swap your hats: the copy's dealt role would be rewritten for the whole round)."""
    rules = config.ruleset
    if policies["saboteur"] == "mimic":
        return "a mimic saboteur is shown another role's view (not modelled)"
    split = policies["saboteur"] != policies["digger"]
    for role, spec in _role_specs(policies, config).items():
        cls = model_class(spec)
        if cls is None:
            return f"the {rules.roles[role]} policy {spec!r} gives no action probabilities"
        if cls.keeps_state(spec, config) and (sampled or split or roles_change(config)):
            why = (
                "on sampled states it would need a copy of the agent per sample"
                if sampled
                else "the detector's copy could not follow the player's turns exactly"
                if split
                else "Swap your hats changes the role its copy was dealt"
            )
            return f"the {rules.roles[role]} policy {spec!r} keeps event-fed beliefs: {why}"
    return None


def population_models(
    policies: Mapping[str, str], config: GameConfig, sampled: bool = False
) -> tuple[dict[int, Callable[[], ActionModel]] | None, str]:
    """Role id -> model factory for a population given as its (saboteur policy, gold-digger
    policy) pair, or ``(None, why)`` (:func:`ceiling_problem`)."""
    why = ceiling_problem(policies, config, sampled)
    if why:
        return None, why
    out = {}
    for role, spec in _role_specs(policies, config).items():
        f = policy_model(spec, config)
        assert f is not None  # ceiling_problem checked it
        out[role] = f
    return out, ""


class PolicyBayesDetector(Detector):
    """Exact Bayes over role assignments with a population's known policies as likelihoods.

    Two forms:

    * ``samples=0``, the **ceiling** (``name`` ``"ceiling"``, see the module docstring):
      privileged, shown each actor's own observation with its role blanked
      (:meth:`before_decision`), so every likelihood is exact.
    * ``samples=K``, **policy-bayes** (``"policy-bayes"``): a true spectator.  Before each
      decision the harness draws ``K`` states consistent with the public record
      (``Game.determinize(None, rng)``: every hand, role and unrevealed goal resampled) and
      shows it the actor's observation (role blanked) and mask in each
      (:meth:`before_decision_sampled`); a role's likelihood of the action is its policy's
      probability averaged over the samples (0 in a sample whose hand cannot play it).  The
      unseen hands are marginalised decision by decision from the public record alone (not
      jointly over the round, nor given the role), so this is an approximation of the
      spectator's Bayes posterior, and like any spectator detector it scores at most the
      ceiling in expectation.  A decision that no sample can explain carries no evidence
      (counted in ``unexplained``).  Stateless models only (:attr:`ActionModel.stateless`).

    Args:
        models: role id -> a factory of the :class:`ActionModel` that role plays (one model per
            seat and role hypothesis is built at :meth:`reset`).
        samples: ``K`` (0: the privileged ceiling).

    The weighted set of role assignments is :class:`BayesDetector`'s: every assignment of the
    base game's role deck (:class:`.assignments.DealtAssignments`), or in Saboteur 2 the
    15-card dwarf deck's (:class:`.assignments.RoleAssignments`, exact at 5 players), where a
    public Swap your hats redraws the target's card (RULES 6.5) and each decision weighs the
    actor's role at that moment.

    Raises (at :meth:`reset`):
        ValueError: a role without a model, or ``samples > 0`` with a model that is not
            stateless.
    """

    tracks = ("spectator",)
    #: the harness hands it each decision before it is taken (:meth:`before_decision`, or
    #: :meth:`before_decision_sampled` when :attr:`samples` > 0) and the action taken
    #: (:meth:`after_decision`)
    needs_decisions = True

    def __init__(self, models: Mapping[int, Callable[[], ActionModel]], samples: int = 0) -> None:
        self.factories = dict(models)
        self.samples = int(samples)
        self.name = "policy-bayes" if self.samples else "ceiling"

    def reset(self, seat, config, own_role) -> None:
        missing = [r for r in range(config.ruleset.n_roles) if r not in self.factories]
        if missing:
            raise ValueError(f"PolicyBayesDetector: no model for role(s) {missing}")
        self.assignments = (
            RoleAssignments(role_deck(config), config.num_players)
            if roles_change(config)
            else DealtAssignments(config)
        )
        self.models = [
            {r: f() for r, f in self.factories.items()} for _ in range(config.num_players)
        ]
        for s, by_role in enumerate(self.models):
            for m in by_role.values():
                m.reset(s, config)
                if self.samples and not m.stateless:
                    raise ValueError(
                        f"PolicyBayesDetector(samples={self.samples}): model "
                        f"{type(m).__name__} is not stateless"
                    )
        #: decisions that no sampled state could explain (no evidence taken from them)
        self.unexplained = 0
        #: beliefs asked while no assignment explained the round (the prior was reported)
        self.contradicted = 0
        self._role_block: slice | None = None
        self._pending: tuple[int, np.ndarray] | None = None
        super().reset(seat, config, own_role)

    def new_round(self) -> None:
        self.assignments.start()
        self._pending = None

    def update(self, event) -> None:
        t = hat_swap_target(event)
        if t is not None:
            self.assignments.swap(t)

    def _role_slice(self) -> slice:
        if self._role_block is None:
            self._role_block = role_slice(self.config)
        return self._role_block

    def before_decision(
        self, observation: np.ndarray, action_mask: np.ndarray, seat: int, events: Sequence
    ) -> None:
        """Seat ``seat`` is about to decide: ``observation`` float32 ``(obs,)`` is its view
        with the role one-hot blanked, ``events`` what it saw since its last decision (its
        ``role_dealt`` with the role blanked: ``-1``).  Computes each role's probabilities of
        every action."""
        block = self._role_slice()
        P = np.zeros((len(self.models[seat]), len(action_mask)))
        for r, model in self.models[seat].items():
            o = np.array(observation, dtype=np.float32)
            o[block] = 0
            o[block.start + r] = 1
            ev = [
                replace(e, data=EventData({**e.data, "role": r}))
                if e.type == EventType.ROLE_DEALT and e.seat == seat
                else e
                for e in events
            ]
            P[r] = model.probs(o, action_mask, ev)
        self._pending = (seat, P)

    def before_decision_sampled(
        self, observations: np.ndarray, masks: np.ndarray, seat: int
    ) -> None:
        """Seat ``seat`` is about to decide; float32 ``(K, obs)`` observations and ``(K,
        n_actions)`` masks: its view in each of ``K`` sampled states, role blanked.  Each
        role's probability of every action, averaged over the samples."""
        block = self._role_slice()
        K = len(observations)
        P = np.zeros((len(self.models[seat]), masks.shape[1]))
        groups: dict = {}  # role hypotheses one model call can serve together
        for r, model in self.models[seat].items():
            key = model.batch_key()
            groups.setdefault(("one", r) if key is None else key, []).append(r)
        for roles in groups.values():
            o = np.tile(np.asarray(observations, dtype=np.float32), (len(roles), 1))
            o[:, block] = 0
            for i, r in enumerate(roles):
                o[i * K : (i + 1) * K, block.start + r] = 1
            got = self.models[seat][roles[0]].probs_batch(o, np.tile(masks, (len(roles), 1)))
            for i, r in enumerate(roles):
                P[r] = got[i * K : (i + 1) * K].mean(axis=0)
        self._pending = (seat, P)

    def after_decision(
        self, seat: int, action, inspections: Sequence[tuple[int, int]] = ()
    ) -> None:
        """Seat ``seat`` took flat action ``action``: every assignment is weighted by the
        probability its role for ``seat`` gives that action.  With ``samples`` (a spectator)
        ``action`` is int64 ``(k,)``, the actions it cannot tell apart from the one taken
        (``Codec.public_actions``: any discard, RULES 3.6), whose probabilities are summed.
        ``inspections``: the ceiling only, the ``(target, role)`` an Inspection showed the
        actor (Saboteur 2, RULES 6.5): its policy reads it from then on, so the assignments
        are conditioned on it."""
        if self._pending is None or self._pending[0] != seat:
            raise RuntimeError(f"after_decision({seat}) without before_decision for that seat")
        P = self._pending[1]
        if self.samples:  # the probability of the public action: the sum over what it may be
            P = P[:, np.atleast_1d(np.asarray(action, dtype=np.int64))].sum(axis=1, keepdims=True)
            action = 0
        if self.samples and not P[:, action].any():
            self._pending = None
            self.unexplained += 1  # no sampled hand could play it: no evidence either way
            return
        if not P[:, action].any():
            # no role explains the action (a policy that is not the one that played); the
            # state stays as it was
            raise ValueError(
                f"PolicyBayesDetector: seat {seat}'s action {action} has probability 0 under "
                "every role's model: the models are not the population's policies"
            )
        self._pending = None
        with np.errstate(divide="ignore"):
            self.assignments.factor(seat, np.log(P[:, action]))
        for target, role in inspections:
            self.assignments.fix(int(target), int(role))

    def belief(self) -> np.ndarray:
        b = self.assignments.marginals()
        if b is None:
            # no assignment explains the round jointly (each decision alone had a role that
            # could play it): counted, and the exact prior reported
            self.contradicted += 1
            b = exact_prior(self.config)
        return b
