"""The bluff benchmark's Bayes ceiling: exact Bayes with the population's own policies as
likelihoods (:class:`PolicyBayesDetector`), the softmax heuristic whose probabilities it
uses, and the heuristic's belief update without scoring moves."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from saboteur_agents import make_agent
from saboteur_agents.softmax import SoftmaxAgent
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import Event, EventType
from saboteur_env.record import read_record
from saboteur_experiments.bluff import run, score_record
from saboteur_experiments.bluff.detectors import (
    ActionModel,
    AgentBeliefDetector,
    Detector,
    PolicyBayesDetector,
    PriorDetector,
    ceiling_problem,
    exact_prior,
    gives_probabilities,
    population_models,
    role_deck,
)
from saboteur_experiments.bluff.detectors.policy import UniformModel, role_slice
from saboteur_experiments.bluff.records import play_recorded

CFG3 = GameConfig(num_players=3)
#: per role, a weight per flat action 0..5: the toy policy plays legal actions in proportion
TOY = {0: np.array([1.0, 1, 1, 1, 1, 1]), 1: np.array([1.0, 4, 1, 0.5, 2, 8])}


class ToyModel(ActionModel):
    """A known stochastic policy that reads its role from the observation, as agents do."""

    def probs(self, observation, action_mask, events):
        role = int(np.argmax(observation[role_slice(CFG3)]))
        assert observation[role_slice(CFG3)].sum() == 1  # exactly one role shown
        w = np.zeros(len(action_mask))
        w[:6] = TOY[role]
        w = w * (np.asarray(action_mask) > 0)
        return w / w.sum()


#: a hand-built round: (seat, legal actions, action taken)
ROUND = [
    (0, [0, 1, 2, 3], 1),
    (1, [0, 1, 5], 5),
    (2, [2, 3, 4], 3),
    (0, [0, 1, 4, 5], 5),
    (1, [0, 3], 0),
]


def brute_force(decisions) -> np.ndarray:
    """P(seat is saboteur) by enumerating every order of the 3-player role deck (3
    gold-digger cards, 1 saboteur card; the first three go to seats 0-2, RULES 2.2), each
    order equally likely, times the toy policy's probability of every decision."""
    deck = [0, 0, 0, 1]
    num, den = np.zeros(3), 0.0
    for order in itertools.permutations(deck):
        roles = order[:3]
        w = 1.0
        for seat, legal, a in decisions:
            p = TOY[roles[seat]][legal]
            w *= TOY[roles[seat]][a] / p.sum()
        num += w * (np.array(roles) == 1)
        den += w
    return num / den


def _mask(legal, size=40):
    m = np.zeros(size, dtype=np.int8)
    m[legal] = 1
    return m


def test_ceiling_equals_brute_force_bayes_on_a_hand_built_round():
    det = PolicyBayesDetector({0: ToyModel, 1: ToyModel})
    det.reset(None, CFG3, None)
    obs = np.zeros(6701, dtype=np.float32)
    assert det.belief()[:, 1] == pytest.approx([0.25, 0.25, 0.25])
    for k, (seat, legal, a) in enumerate(ROUND):
        det.before_decision(obs, _mask(legal), seat, [])
        det.after_decision(seat, a)
        np.testing.assert_allclose(det.belief()[:, 1], brute_force(ROUND[: k + 1]), rtol=1e-12)
    # by hand for the first decision: seat 0 played 1 from {0..3}: 4 / (1 + 4 + 1 + 0.5) as a
    # saboteur, 1/4 as a gold-digger; P(seat 0 saboteur) = .25 * 4/6.5 / (.25 * 4/6.5 + .75/4)
    det.reset(None, CFG3, None)
    det.before_decision(obs, _mask([0, 1, 2, 3]), 0, [])
    det.after_decision(0, 1)
    p0 = 0.25 * 4 / 6.5 / (0.25 * 4 / 6.5 + 0.75 / 4)
    assert det.belief()[0, 1] == pytest.approx(p0, rel=1e-12)
    # a new round forgets the evidence (roles are redealt)
    det.observe(Event(EventType.ROUND_START, data={"round": 1}))
    assert det.belief()[:, 1] == pytest.approx([0.25, 0.25, 0.25])


def test_ceiling_refuses_an_action_its_models_call_impossible():
    det = PolicyBayesDetector({0: ToyModel, 1: ToyModel})
    det.reset(None, CFG3, None)
    obs = np.zeros(6701, dtype=np.float32)
    with pytest.raises(RuntimeError, match="without before_decision"):
        det.after_decision(0, 1)
    det.before_decision(obs, _mask([0, 1]), 0, [])
    before = det.belief()
    with pytest.raises(ValueError, match="probability 0 under every role"):
        det.after_decision(0, 7)  # not on the mask
    np.testing.assert_array_equal(det.belief(), before)  # nothing changed
    det.after_decision(0, 1)  # the decision is still pending: a legal action is taken
    assert det.belief()[0, 1] > before[0, 1]


def test_sampled_spectator_averages_the_policy_over_the_samples():
    """``samples=K``: a role's likelihood of the action is its policy's probability averaged
    over the sampled states (0 where the sampled hand cannot play it)."""
    det = PolicyBayesDetector({0: ToyModel, 1: ToyModel}, samples=2)
    det.reset(None, CFG3, None)
    assert det.name == "policy-bayes"
    obs = np.zeros((2, 6701), dtype=np.float32)
    masks = np.stack([_mask([0, 1, 2, 3]), _mask([0, 2, 3])])  # action 1 legal in one sample
    det.before_decision_sampled(obs, masks, 0)
    det.after_decision(0, 1)
    sab, dig = (4 / 6.5 + 0) / 2, (1 / 4 + 0) / 2
    assert det.belief()[0, 1] == pytest.approx(0.25 * sab / (0.25 * sab + 0.75 * dig), rel=1e-12)
    # a decision no sample can explain is no evidence
    before = det.belief()
    det.before_decision_sampled(obs, masks, 1)
    det.after_decision(1, 5)
    np.testing.assert_array_equal(det.belief(), before)
    assert det.unexplained == 1


def test_sampled_spectator_refuses_a_stateful_model():
    from saboteur_experiments.bluff.detectors.policy import SoftmaxModel

    det = PolicyBayesDetector({0: lambda: SoftmaxModel("softmax"), 1: UniformModel}, samples=4)
    with pytest.raises(ValueError, match="not stateless"):
        det.reset(None, GameConfig(num_players=5), None)


def test_sampled_spectator_is_reproducible_and_sees_no_role(tmp_path):
    path = tmp_path / "g.jsonl"
    play_recorded([make_agent("random") for _ in range(5)], 13, path, num_rounds=1)
    rec = read_record(path)
    seen = []

    class Probe(PolicyBayesDetector):
        def before_decision_sampled(self, observations, masks, seat):
            seen.append((observations[:, role_slice(self.config)].copy(), masks.copy()))
            super().before_decision_sampled(observations, masks, seat)

    beliefs = []
    for _ in range(2):
        sink: dict = {}
        fac = ("pb", lambda: Probe({0: UniformModel, 1: UniformModel}, samples=3))
        score_record(rec, 0, {"spectator": [fac]}, sink)
        beliefs.append(sink[("spectator", "pb")].arrays()["P"])
    np.testing.assert_array_equal(beliefs[0], beliefs[1])
    # the random policy is no evidence: the exact prior throughout
    np.testing.assert_allclose(beliefs[0][:5], exact_prior(rec.config))
    assert len(seen) == 2 * len(rec.decisions)
    assert all(not o.any() for o, _ in seen)  # role blanked in every sample
    # the samples' hands differ: some action is legal in one sample and not another
    assert any((m.min(axis=0) != m.max(axis=0)).any() for _, m in seen)


def test_a_spectator_is_told_a_face_down_discard_as_any_discard(tmp_path):
    """RULES 3.6: which card a discard is is private; a sampled (spectator) detector is
    handed every action it cannot tell apart from the one taken (``Codec.public_actions``),
    and weighs them together."""
    from saboteur_env.encoding.codec import Codec

    path = tmp_path / "g.jsonl"
    play_recorded([make_agent("random") for _ in range(5)], 21, path, num_rounds=1)
    rec = read_record(path)
    codec = Codec(rec.config)
    off, size = codec.blocks["discard"]
    told = []

    class Probe(PolicyBayesDetector):
        def after_decision(self, seat, action, inspections=()):
            told.append(np.asarray(action).tolist())
            super().after_decision(seat, action, inspections)

    sink: dict = {}
    score_record(
        rec,
        0,
        {"spectator": [("pb", lambda: Probe({0: UniformModel, 1: UniformModel}, samples=2))]},
        sink,
    )
    taken = [int(d["action"]) for d in rec.decisions]
    assert len(told) == len(taken)
    discards = [i for i, a in enumerate(taken) if off <= a < off + size]
    assert discards  # the game has face-down discards
    for a, t in zip(taken, told):
        assert t == (list(range(off, off + size)) if off <= a < off + size else [a])
    assert codec.public_actions(off + 3).tolist() == list(range(off, off + size))
    assert codec.public_actions(0).tolist() == [0]


def test_which_policies_give_a_ceiling():
    assert gives_probabilities("random") and gives_probabilities("softmax:t=0.2")
    assert gives_probabilities("ppo:v1") and not gives_probabilities("ppo:greedy")
    assert not gives_probabilities("heuristic") and not gives_probabilities("ismcts")
    base = GameConfig(num_players=5)
    assert ceiling_problem({"saboteur": "ppo:v1", "digger": "ppo:v1"}, base) is None
    # a mimic saboteur is shown another role's view: not modelled
    assert "mimic" in ceiling_problem({"saboteur": "mimic", "digger": "softmax"}, base)
    # the softmax heuristic's copy follows the player only when it plays every turn
    assert "follow" in ceiling_problem({"saboteur": "softmax", "digger": "ppo:v1"}, base)
    why = ceiling_problem({"saboteur": "ppo:v1", "digger": "heuristic"}, base)
    assert "gold-digger policy 'heuristic'" in why
    # Saboteur 2: every role but the saboteur plays the gold-digger policy
    x = GameConfig(num_players=5, expansion=True)
    assert ceiling_problem({"saboteur": "random", "digger": "random"}, x) is None
    models, _ = population_models({"saboteur": "random", "digger": "random"}, x)
    assert set(models) == set(range(6))
    models, why = population_models({"saboteur": "random", "digger": "random"}, base)
    assert why == "" and set(models) == {0, 1}
    # the sampled spectator needs stateless policies: not the softmax heuristic
    pair = {"saboteur": "softmax", "digger": "softmax"}
    assert ceiling_problem(pair, base) is None
    assert "event-fed beliefs" in ceiling_problem(pair, base, sampled=True)


class Spy(Detector):
    """Records what the harness hands a privileged detector."""

    name = "spy"
    tracks = ("spectator",)
    needs_decisions = True

    def reset(self, seat, config, own_role):
        self.seen, self.dealt, self.actions, self.k = [], [], [], role_slice(config)
        super().reset(seat, config, own_role)

    def before_decision(self, observation, action_mask, seat, events):
        self.seen.append(observation[self.k].copy())
        self.dealt += [e.data["role"] for e in events if e.type == EventType.ROLE_DEALT]
        self.last = (seat, action_mask.copy())

    def after_decision(self, seat, action, inspections=()):
        assert not inspections  # the base game has no Inspection
        assert seat == self.last[0] and self.last[1][action] == 1
        self.actions.append(action)

    def belief(self):
        return np.full((self.n, self.n_roles), 0.5)


def test_the_harness_shows_a_privileged_detector_no_role(tmp_path):
    path = tmp_path / "g.jsonl"
    play_recorded([make_agent("random") for _ in range(4)], 7, path, num_rounds=2)
    rec = read_record(path)
    spies: list = []

    def fac():
        spies.append(Spy())
        return spies[-1]

    score_record(rec, 0, {"spectator": [("spy", fac)]}, {})
    (spy,) = spies
    assert spy.actions == [int(d["action"]) for d in rec.decisions]
    assert len(spy.actions) > 10
    assert all(not s.any() for s in spy.seen)  # the role one-hot blanked
    assert spy.dealt and set(spy.dealt) == {-1}  # every dealt role seen blanked


def test_the_random_population_ceiling_is_the_exact_prior(tmp_path):
    """The random agent plays alike in both roles: no decision is evidence."""
    path = tmp_path / "g.jsonl"
    play_recorded([make_agent("random") for _ in range(5)], 11, path, num_rounds=1)
    sink: dict = {}
    ceiling = ("ceiling", lambda: PolicyBayesDetector({0: UniformModel, 1: UniformModel}))
    score_record(read_record(path), 0, {"spectator": [("prior", PriorDetector), ceiling]}, sink)
    P = sink[("spectator", "ceiling")].arrays()["P"]
    assert len(P) > 50
    np.testing.assert_allclose(P, np.tile(exact_prior(GameConfig(num_players=5)), (len(P) // 5, 1)))


def test_saboteur_2_ceiling_redraws_a_swapped_card():
    """Evidence on a seat's card stays with that card: after a public Swap your hats the
    seat's new card is one of the 14 others (RULES 6.5, 7.21), computed here by hand."""
    from saboteur_env.encoding.observation import ObservationEncoder

    cfg = GameConfig(num_players=5, expansion=True)
    k, sab = role_slice(cfg), cfg.ruleset.saboteur

    class Tell(ActionModel):  # a saboteur plays action 1 four times as often as another role
        def probs(self, observation, action_mask, events):
            w = np.ones(len(action_mask))
            w[1] = 4.0 if np.argmax(observation[k]) == sab else 1.0
            w = w * (np.asarray(action_mask) > 0)
            return w / w.sum()

    det = PolicyBayesDetector({r: Tell for r in range(6)})
    det.reset(None, cfg, None)
    obs = np.zeros(ObservationEncoder(cfg).size, dtype=np.float32)
    for _ in range(3):
        det.before_decision(obs, _mask([0, 1, 2]), 0, [])
        det.after_decision(0, 1)
    counts = role_deck(cfg).astype(float)
    L = np.where(np.arange(6) == sab, (4 / 6) ** 3, (1 / 3) ** 3)
    q = counts * L / (counts * L).sum()  # seat 0's card
    np.testing.assert_allclose(det.belief()[0], q, rtol=1e-9)
    det.observe(Event(EventType.ACTION_PLAYED, 2, {"card": "swap_hats", "target": 0}))
    new = sum(q[r] * (counts - np.eye(6)[r]) / (counts.sum() - 1) for r in range(6))
    np.testing.assert_allclose(det.belief()[0], new, rtol=1e-9)
    assert det.belief()[0, sab] < q[sab] - 0.1


def test_saboteur_2_ceiling_follows_swap_your_hats(tmp_path):
    """Saboteur 2: the ceiling weighs the 15-card dwarf deck's assignments and redraws a
    target's card at every public Swap your hats; random play is no evidence, so every seat's
    marginal stays the deck's share (RULES 6.2, 6.5)."""
    cfg = GameConfig(num_players=5, expansion=True)
    for seed in range(40):
        path = tmp_path / f"g{seed}.jsonl"
        play_recorded(
            [make_agent("random") for _ in range(5)], seed, path, num_rounds=1, expansion=True
        )
        rec = read_record(path)
        cards = {e.data.get("card") for _, e in rec.events}
        if "swap_hats" in cards and "inspection" not in cards:  # an Inspection would fix a role
            break
    else:
        pytest.fail("no game with a Swap your hats and no Inspection in 40 random games")
    sink: dict = {}
    ceiling = ("ceiling", lambda: PolicyBayesDetector({r: UniformModel for r in range(6)}))
    score_record(rec, 0, {"spectator": [ceiling]}, sink)
    P = sink[("spectator", "ceiling")].arrays()["P"]
    np.testing.assert_allclose(P, np.tile(exact_prior(cfg)[0], (len(P), 1)), atol=1e-12)


class LoggingSoftmax(SoftmaxAgent):
    log: list = []

    def act(self, observation, action_mask, info=None):
        legal, p = self.probs(observation, action_mask, info)
        a = int(legal[int(self.rng.choice(len(p), p=p))])
        self.log.append((self.seat, a, float(p[legal == a][0])))
        return a


class LoggingCeiling(PolicyBayesDetector):
    def reset(self, seat, config, own_role):
        self.log, self.round = [], 0
        super().reset(seat, config, own_role)

    def observe(self, event):
        if event.type == EventType.ROUND_START:
            self.round = int(event.data["round"])
        super().observe(event)

    def after_decision(self, seat, action, inspections=()):
        self.log.append((self.round, seat, action, self._pending[1][:, action].copy()))
        super().after_decision(seat, action, inspections)


def test_the_softmax_ceiling_uses_exactly_the_players_probabilities(tmp_path):
    """The detector's copy of the softmax heuristic, in the seat's true role, gives every
    action the probability the player drew it with (so the ceiling is exact Bayes)."""
    LoggingSoftmax.log = []
    path = tmp_path / "g.jsonl"
    agents = [LoggingSoftmax("t=0.2") for _ in range(5)]
    play_recorded(agents, 12, path, num_rounds=2)
    rec = read_record(path)
    models, _ = population_models(
        {"saboteur": "softmax:t=0.2", "digger": "softmax:t=0.2"}, rec.config
    )
    dets: list = []

    def fac():
        dets.append(LoggingCeiling(models))
        return dets[-1]

    score_record(rec, 0, {"spectator": [("ceiling", fac)]}, {})
    played = LoggingSoftmax.log
    (det,) = dets
    assert len(det.log) == len(played) > 20
    roles = [r["roles"] for r in rec.rounds]
    differ = 0
    for (rnd, seat, a, P), (seat2, a2, p) in zip(det.log, played):
        assert (seat, a) == (seat2, a2)
        true = roles[rnd][seat]
        assert P[true] == pytest.approx(p, rel=1e-9, abs=1e-12)
        differ += abs(P[1 - true] - p) > 1e-6
    assert differ > 0  # the other role would have played differently somewhere


def test_heuristic_observe_decision_leaves_the_belief_act_leaves(tmp_path):
    """The ``heuristic-belief`` detector updates the agent without scoring moves
    (``HeuristicAgent.observe_decision``): its beliefs equal those of the agent that acts."""

    class ActOnly:
        def __init__(self):
            self.a = make_agent("heuristic")

        def __getattr__(self, k):
            if k == "observe_decision":
                raise AttributeError(k)
            return getattr(self.a, k)

    path = tmp_path / "g.jsonl"
    play_recorded([make_agent("heuristic:subtle") for _ in range(5)], 3, path, num_rounds=2)
    rec = read_record(path)
    got = {}
    for name, fac in (("act", ActOnly), ("update", lambda: make_agent("heuristic"))):
        sink: dict = {}
        det = ("hb", lambda fac=fac: AgentBeliefDetector(fac, name="hb"))
        score_record(rec, 0, {"in-seat": [det]}, sink)
        got[name] = sink[("in-seat", "hb")].arrays()["P"]
    assert len(got["act"]) > 100
    np.testing.assert_array_equal(got["act"], got["update"])
    assert (got["act"][:, 1] > 0.5).any()  # the beliefs moved


def test_benchmark_reports_the_ceiling_and_the_gaps(tmp_path):
    s = run(
        players=[5],
        games=2,
        fit_games=2,
        pops=["random", "softmax", "heuristic-mimic"],
        out=tmp_path,
        rounds=1,
        stride=3,
        bootstrap=50,
        plots=False,
        quiet=True,
    )
    assert s["ceiling"]["random"] == s["ceiling"]["softmax"] == "computed"
    assert "mimic" in s["ceiling"]["heuristic-mimic"]
    cells = {c["population"]: c for c in s["cells"] if c["detector"] == "ceiling"}
    assert set(cells) == {"random", "softmax"}
    pb = {c["population"]: c for c in s["cells"] if c["detector"] == "policy-bayes"}
    assert set(pb) == {"random"} and pb["random"]["ll_skill"][0] == pytest.approx(0, abs=1e-12)
    assert s["policy_bayes"]["random"].startswith("computed")
    assert cells["random"]["ll_skill"][0] == pytest.approx(0.0, abs=1e-12)
    assert cells["softmax"]["ll_skill"][0] > 0.3
    gaps = {(g["population"], g["detector"]): g for g in s["ceiling_gaps"]}
    # the prior's gap is the ceiling's skill; the detectors' gaps are ceiling minus skill
    g = gaps[("softmax", "prior")]
    assert g["gap"][0] == pytest.approx(cells["softmax"]["ll_skill"][0])
    g = gaps[("softmax", "bayes")]
    assert g["gap"][0] == pytest.approx(g["ceiling"][0] - g["skill"][0])
    assert ("heuristic-mimic", "bayes") not in gaps
    from saboteur_experiments.bluff.report import format_tables

    text = format_tables(s)  # softmax keeps event-fed state: the reason is printed, once
    assert "no policy-bayes spectator for: softmax (the gold-digger policy" in text
    assert "heuristic-mimic" not in text.split("no policy-bayes spectator for:")[1]


def test_tables_warn_when_the_frontier_anchors_nearly_coincide():
    from saboteur_experiments.bluff.report import format_tables

    def point(pop, skill):
        ci = (skill, skill, skill)
        return {
            "population": pop,
            "players": 5,
            "saboteur_policy": pop,
            "digger_win_rate": ci,
            "win_rate_drop": ci,
            "panel_skill": ci,
            "detection": ci,
        }

    summary = {"players": [5], "cells": [], "expansion": False, "skipped": {}}
    summary["frontier"] = [point("heuristic-mimic", -0.10), point("heuristic-blatant", -0.04)]
    assert "anchors' panel skills differ by only +0.060" in format_tables(summary)
    summary["frontier"] = [point("heuristic-mimic", -0.10), point("heuristic-blatant", 0.6)]
    assert "anchors' panel skills" not in format_tables(summary)


def test_a_ppo_checkpoint_with_a_prior_is_modelled_with_its_prior(tmp_path):
    """``ppo:PATH`` of a network trained on a prior (``saboteur train --prior``): the model
    gives every action the probability the player's masked softmax of network plus prior
    logits gives it, decision by decision (with a residual that is not 0), and, since it
    keeps the prior's event-fed state, the sampled spectator refuses it."""
    torch = pytest.importorskip("torch")
    import saboteur_env
    from saboteur_agents.network import (
        PolicyValueNet,
        add_prior,
        env_spec,
        masked_log_probs,
        prior_rows,
        save_checkpoint,
    )
    from saboteur_experiments.bluff.detectors.policy import ResidualModel, policy_model

    env = saboteur_env.raw_env(num_players=5)
    env.reset(seed=21)
    torch.manual_seed(0)
    net = PolicyValueNet(env_spec(env.config), channels=8, hidden=32, conv_layers=2).eval()
    net.start_at_prior("softmax:t=0.2")
    with torch.no_grad():  # a residual that is not 0
        for m in (net.place_head, net.flat_head):
            m.bias.normal_(0.0, 1.0)
    path = save_checkpoint(tmp_path / "r.pt", net, env.config)
    spec = f"ppo:{path}"
    factory = policy_model(spec, env.config)
    models = [factory() for _ in range(5)]
    assert all(isinstance(m, ResidualModel) for m in models)
    players = [SoftmaxAgent("t=0.2") for _ in range(5)]  # the player's prior, by hand
    for s in range(5):
        models[s].reset(s, env.config)
        players[s].reset(s, env.config, seed=0)
    decisions, worst = 0, 0.0
    while not all(env.terminations.values()):
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        o, info = env.observe(agent), env.infos[agent]
        got = models[seat].probs(o["observation"], o["action_mask"], info["events"])
        prior = players[seat].logits(o["observation"], o["action_mask"], info)
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(o["observation"])[None])
            logits = add_prior(logits, *prior_rows([prior], logits.shape[1]))
            want = masked_log_probs(logits, torch.as_tensor(o["action_mask"])[None])[0].exp()
        worst = max(worst, float(np.abs(got - want.double().numpy()).max()))
        assert got[o["action_mask"] == 0].sum() == 0
        decisions += 1
        legal = np.flatnonzero(o["action_mask"])
        env.step(int(legal[np.argmax(got[legal])]))
    assert decisions > 50 and worst < 1e-5
    pair = {"saboteur": spec, "digger": spec}
    assert ceiling_problem(pair, env.config) is None
    assert "keeps event-fed beliefs" in ceiling_problem(pair, env.config, sampled=True)
