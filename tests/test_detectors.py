"""Detectors of the bluff benchmark (issue 6): the exact prior, enumeration, Bayes, classifier."""

from __future__ import annotations

import numpy as np
import pytest

from experiments import bluff_metrics as M
from experiments.detectors import (
    CAT_INDEX,
    CATEGORIES,
    BayesDetector,
    LogisticDetector,
    PriorDetector,
    UniformDetector,
    enumerate_assignments,
    exact_prior,
    feasible_count_bounds,
    fit_logistic,
    fit_temperature,
    p_no_saboteur,
    role_deck,
)
from saboteur_env.cards import GOLD_DIGGER, SABOTEUR
from saboteur_env.config import GameConfig
from saboteur_env.game import Event


def expected_prior_scores(n: int, seat: int = 0, role: int = GOLD_DIGGER):
    """Expected log loss and Brier score per target of the exact prior, averaged over the
    deals the observer cannot tell apart (the prior's own score, exact)."""
    cfg = GameConfig(num_players=n)
    R, logp = enumerate_assignments(n, role_deck(cfg))
    keep = R[:, seat] == role
    p = np.exp(logp[keep])
    p /= p.sum()
    b = exact_prior(cfg, seat, role)
    targets = [t for t in range(n) if t != seat]
    # one scored row per (deal, target), weighted by the deal's probability: the harness's
    # metric functions then give the expected score per target
    P = np.concatenate([b[targets] for _ in p])
    y = np.concatenate([a[targets] for a in R[keep]]).astype(int)
    w = np.repeat(p, len(targets))
    return M.wmean(M.log_loss_rows(P, y), w), M.wmean(M.brier_rows(P, y), w)


@pytest.mark.parametrize("n,ll,br", [(3, 0.637, 0.222), (4, 0.562, 0.188), (5, 0.673, 0.240),
                                     (10, 0.673, 0.240)])
def test_prior_reference_values(n, ll, br):
    got_ll, got_br = expected_prior_scores(n)
    assert round(got_ll, 3) == ll
    assert round(got_br, 3) == br


def test_no_saboteur_probability():
    # RULES 2.2: 1/4 at 3 players, 1/5 at 4 (before anyone looks at a card: the spectator)
    assert round(p_no_saboteur(GameConfig(num_players=3)), 3) == 0.250
    assert round(p_no_saboteur(GameConfig(num_players=4)), 3) == 0.200
    # a gold-digger who has seen their own card: 1/3 and 1/4
    assert p_no_saboteur(GameConfig(num_players=3), 0, GOLD_DIGGER) == pytest.approx(1 / 3)
    assert p_no_saboteur(GameConfig(num_players=4), 0, GOLD_DIGGER) == pytest.approx(1 / 4)
    assert p_no_saboteur(GameConfig(num_players=5)) == 0.0


def test_enumeration_counts_and_normalisation():
    R, logp = enumerate_assignments(10, np.array([7, 4]))
    assert len(R) == 120 + 210  # 3 or 4 saboteurs among 10 seats
    assert np.exp(logp).sum() == pytest.approx(1.0)
    # seed table at 10 players: 10 of 11 cards, the same set of deals
    R3, logp3 = enumerate_assignments(3, np.array([3, 1]))
    assert len(R3) == 4  # no saboteur, or one in any of 3 seats
    p = dict(zip(map(tuple, R3), np.exp(logp3)))
    assert p[(0, 0, 0)] == pytest.approx(0.25)
    assert p[(1, 0, 0)] == pytest.approx(0.25)


def test_exact_prior_saboteur_observer_and_bounds():
    cfg = GameConfig(num_players=5)
    b = exact_prior(cfg, 2, SABOTEUR)
    assert b[2].tolist() == [0.0, 1.0]
    assert b[0, SABOTEUR] == pytest.approx(1 / 5)  # one saboteur card left among 5
    lo, hi = feasible_count_bounds(cfg, 2, SABOTEUR)
    assert lo.tolist() == [3, 1] and hi.tolist() == [4, 2]
    assert exact_prior(cfg)[0, SABOTEUR] == pytest.approx(2 / 6)


def test_prior_and_uniform_detectors_follow_rounds():
    cfg = GameConfig(num_players=4)
    d = PriorDetector()
    d.reset(0, cfg, GOLD_DIGGER)
    assert d.belief()[1, SABOTEUR] == pytest.approx(0.25)
    d.observe(Event("round_start", None, {"round": 1, "first_player": 0}))
    d.observe(Event("role_dealt", 0, {"role": SABOTEUR}, visible_to=0))
    assert d.belief()[1, SABOTEUR] == pytest.approx(0.0)
    u = UniformDetector()
    u.reset(None, cfg, None)
    assert np.allclose(u.belief(), 0.5)


def test_bayes_detector_updates_on_a_broken_tool_and_stays_feasible():
    cfg = GameConfig(num_players=5)
    d = BayesDetector()
    d.reset(None, cfg, None)
    prior = d.belief()
    d.observe(Event("path_placed", 1, {"kind": _dead_end_kind(), "x": 1, "y": 0,
                                       "rotated": False, "variant": 0}))
    b = d.belief()
    assert b[1, SABOTEUR] > prior[1, SABOTEUR]
    assert np.allclose(b.sum(axis=1), 1)
    assert b[:, SABOTEUR].sum() == pytest.approx(prior[:, SABOTEUR].sum(), abs=0.5)
    lo, hi = feasible_count_bounds(cfg)
    assert lo[1] - 1e-9 <= b[:, SABOTEUR].sum() <= hi[1] + 1e-9
    # private events are ignored by the event model
    d.observe(Event("map_result", 3, {"goal": 0, "identity": 0}, visible_to=3))
    assert np.allclose(d.belief(), b)


def _dead_end_kind() -> int:
    from saboteur_env.cards import CARD_KINDS
    return next(k for k, c in enumerate(CARD_KINDS) if c.is_dead_end)


def test_bayes_fit_is_maximum_likelihood():
    rng = np.random.default_rng(0)
    true = np.array([[0.5, 0.1, 0.0, 0.1, 0.0, 0.1, 0.1, 0.1, 0.0, 0.0],
                     [0.1, 0.1, 0.3, 0.0, 0.1, 0.1, 0.1, 0.2, 0.0, 0.0]])
    samples = []
    for _ in range(20000):
        r = int(rng.integers(2))
        c = int(rng.choice(len(CATEGORIES), p=true[r]))
        t = int(rng.integers(2)) if CATEGORIES[c] in ("break", "repair_other") else -1
        samples.append((r, c, t, int(rng.integers(2))))
    det = BayesDetector.fit(samples, smoothing=0.01)
    assert np.allclose(det.category_probs, true, atol=0.015)
    assert det.category_probs[1, CAT_INDEX["path_dead_end"]] > 0.25


def test_logistic_and_temperature():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(4000, 3))
    logit = 2.0 * X[:, 0] - 1.0 * X[:, 1]
    y = (rng.random(4000) < 1 / (1 + np.exp(-logit))).astype(int)
    W, mu, sd = fit_logistic(X, y, 2, iters=400)
    det = LogisticDetector(W, mu, sd)
    P = np.exp(det.logits(X))
    P /= P.sum(axis=1, keepdims=True)
    acc = ((P[:, 1] > 0.5) == y).mean()
    assert acc > 0.75
    # a model whose logits are 3x too large is calibrated back by T close to 3
    z = np.stack([np.zeros(4000), 3 * logit], axis=1)
    assert fit_temperature(z, y) == pytest.approx(3.0, rel=0.15)
