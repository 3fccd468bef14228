"""Detectors of the bluff benchmark (saboteur_experiments.bluff.detectors): the exact prior,
enumeration, Bayes, classifier."""

from __future__ import annotations

import numpy as np
import pytest

from saboteur_env.engine.cards import GOLD_DIGGER, SABOTEUR
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import Event
from saboteur_experiments.bluff import metrics as M
from saboteur_experiments.bluff.detectors import (
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


@pytest.mark.parametrize(
    "n,ll,br", [(3, 0.637, 0.222), (4, 0.562, 0.188), (5, 0.673, 0.240), (10, 0.673, 0.240)]
)
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


def test_bayes_detector_updates_on_a_dead_end_and_stays_feasible():
    """By hand: a 5-player prior of 1/3 per seat for the saboteur, a dead end's likelihood
    ratio 7.5 for seat 1: 2.5 / (2.5 + 2/3) = 15/19 for seat 1; the exact posterior over
    the role deal gives every other seat 23/95."""
    cfg = GameConfig(num_players=5)
    d = BayesDetector()
    d.reset(None, cfg, None)
    prior = d.belief()
    d.observe(
        Event(
            "path_placed",
            1,
            {"kind": _dead_end_kind(), "x": 1, "y": 0, "rotated": False, "variant": 0},
        )
    )
    b = d.belief()
    assert prior[:, SABOTEUR] == pytest.approx([1 / 3] * 5)
    assert b[:, SABOTEUR] == pytest.approx([23 / 95, 15 / 19, 23 / 95, 23 / 95, 23 / 95])
    assert np.allclose(b.sum(axis=1), 1)
    lo, hi = feasible_count_bounds(cfg)
    assert lo[1] - 1e-9 <= b[:, SABOTEUR].sum() <= hi[1] + 1e-9
    # private events are ignored by the event model
    d.observe(Event("map_result", 3, {"goal": 0, "identity": 0}, visible_to=3))
    assert np.allclose(d.belief(), b)


def _dead_end_kind() -> int:
    from saboteur_env.engine.cards import CARD_KINDS

    return next(k for k, c in enumerate(CARD_KINDS) if c.is_dead_end)


def test_bayes_fit_is_maximum_likelihood():
    rng = np.random.default_rng(0)
    true = np.array(
        [
            [0.5, 0.1, 0.0, 0.1, 0.0, 0.1, 0.1, 0.1, 0.0, 0.0],
            [0.1, 0.1, 0.3, 0.0, 0.1, 0.1, 0.1, 0.2, 0.0, 0.0],
        ]
    )
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


# --- Saboteur 2: the Bayes detector on exact / sampled role assignments (RULES 6) ------------
X_DECK = (4, 4, 1, 1, 2, 3)  # RULES 6.2, in cards.EXPANSION_ROLES order


def _xcfg(n):
    return GameConfig(num_players=n, expansion=True)


def _ev(type_, seat, data, visible_to=None):
    from saboteur_env.engine.state import EventData

    return Event(type_, seat, EventData(data), visible_to)


def _kind(kid):
    from saboteur_env.engine.cards import KIND_INDEX

    return KIND_INDEX[kid]


def _swap_hats(actor, target):
    return _ev(
        "action_played", actor, {"kind": _kind("swap_hats"), "card": "swap_hats", "target": target}
    )


def test_count_assignments_matches_enumeration():
    from saboteur_experiments.bluff.detectors import count_assignments

    for n in range(2, 7):
        R, _ = enumerate_assignments(n, np.array(X_DECK))
        assert count_assignments(n, np.array(X_DECK)) == len(R)
    assert count_assignments(5, np.array(X_DECK)) == 4580
    assert count_assignments(7, np.array(X_DECK)) == 93590
    assert count_assignments(10, np.array([7, 4])) == 330


def _brute_force(events, n, observer=None, own=None):
    """Marginals of the roles held after ``events``, by enumerating every ordered draw of
    physical dwarf cards (the deal, then one card per Swap your hats), each equally likely.
    ``events``: ("factor", seat, vector over roles), ("pair", a, t, matrix), ("swap", t) and
    ("fix", seat, role) (an Inspection result)."""
    import itertools

    deck = [r for r, c in enumerate(X_DECK) for _ in range(c)]
    swaps = sum(e[0] == "swap" for e in events)
    out = np.zeros((n, 6))
    for perm in itertools.permutations(range(15), n + swaps):
        roles = [deck[c] for c in perm[:n]]
        if observer is not None and roles[observer] != own:
            continue
        w, k = 1.0, n
        for e in events:
            if e[0] == "factor":
                w *= e[2][roles[e[1]]]
            elif e[0] == "pair":
                w *= e[3][roles[e[1]], roles[e[2]]]
            elif e[0] == "swap":
                roles[e[1]] = deck[perm[k]]
                k += 1
            elif roles[e[1]] != e[2]:
                w = 0.0
        for s in range(n):
            out[s, roles[s]] += w
    return out / out.sum(axis=1, keepdims=True)


def test_expansion_bayes_exact_matches_brute_force():
    from saboteur_experiments.bluff.detectors import (
        X_CAT_INDEX,
        X_DEFAULT_CATEGORY_PROBS,
        X_DEFAULT_TARGET_RATIOS,
        BayesDetector,
    )

    P, T = X_DEFAULT_CATEGORY_PROBS, X_DEFAULT_TARGET_RATIOS
    col = {c: P[:, X_CAT_INDEX[c]] for c in X_CAT_INDEX}
    # seat 1 plays a dead end; seat 2 breaks seat 0's pick; seat 0 swaps seat 1's hat; seat 1
    # then plays a green door (RULES 6.3) with its new role
    events = [
        _ev(
            "path_placed", 1, {"kind": _kind("B08"), "x": 1, "y": 0, "rotated": False, "variant": 0}
        ),
        _ev("tool_broken", 2, {"kind": _kind("break_pick"), "target": 0, "tool": 0}),
        _swap_hats(0, 1),
        _ev(
            "path_placed", 1, {"kind": _kind("X08"), "x": 2, "y": 0, "rotated": False, "variant": 0}
        ),
    ]
    model = [
        ("factor", 1, col["path_dead_end"]),
        ("factor", 2, col["break"]),
        ("pair", 2, 0, T["break"]),
        ("factor", 0, col["swap_hats_other"]),
        ("pair", 0, 1, T["swap_hats_other"]),
        ("swap", 1),
        ("factor", 1, col["door_green"]),
    ]
    d = BayesDetector()
    d.reset(None, _xcfg(3), None)
    assert d.assignments.exact and d.assignments.size == 183
    for e in events:
        d.observe(e)
    np.testing.assert_allclose(d.belief(), _brute_force(model, 3), atol=1e-12)
    # in-seat: seat 2 is a geologist, inspects seat 0 (a saboteur) before the swap; its own
    # actions are no evidence
    d = BayesDetector()
    d.reset(2, _xcfg(3), 4)
    d.observe(events[0])
    d.observe(_ev("inspection_result", 2, {"target": 0, "role": 5}, visible_to=2))
    for e in events[1:]:
        d.observe(e)
    model_in = [m for m in model if not (m[0] != "swap" and m[1] == 2)]
    model_in.insert(1, ("fix", 0, 5))
    want = _brute_force(model_in, 3, observer=2, own=4)
    np.testing.assert_allclose(d.belief(), want, atol=1e-12)
    assert d.belief()[0, 5] == pytest.approx(1.0) and d.belief()[2, 4] == pytest.approx(1.0)


def test_swap_your_hats_moves_probability_by_hand():
    """RULES 6.5, 7.21: after a Swap your hats the target holds a card drawn from those not
    dealt this round, its old card out."""
    from saboteur_experiments.bluff.detectors import X_CAT_INDEX, BayesDetector

    # 1) in-seat, 3 players: the observer (seat 0, the boss) inspects seat 1, a saboteur, and
    # swaps its hat (its own action is no evidence).  The other 13 cards are 4/4/0/1/2/2; seat
    # 1's new card is any of the 12 left after seat 2's, so by symmetry one of the 13: 2/13
    d = BayesDetector()
    d.reset(0, _xcfg(3), 2)
    d.observe(_ev("inspection_result", 0, {"target": 1, "role": 5}, visible_to=0))
    b = d.belief()
    assert b[1, 5] == 1.0
    np.testing.assert_allclose(b[2], np.array([4, 4, 0, 1, 2, 2]) / 13)
    d.observe(_swap_hats(0, 1))
    b = d.belief()
    np.testing.assert_allclose(b[1], np.array([4, 4, 0, 1, 2, 2]) / 13)
    np.testing.assert_allclose(b[2], np.array([4, 4, 0, 1, 2, 2]) / 13)
    # 2) spectator, 3 players: a dead end is 4x likelier from a saboteur, the other
    # category used here equally likely from every role.  Seat 1's card: P(saboteur)
    # = 3*4 / (12 + 12) = 1/2, the rest by deck counts / 24.  Swap your hats on seat 1: its
    # new card is one of the 14 others, P(r) = sum_o q_o (count_r - [o = r]) / 14; saboteur
    # (2/2 + 3/2) / 14 = 5/28, green gold-digger (4 - 1/6) / 14 = 23/84.
    P = np.full((6, 26), 0.035)
    P[:, X_CAT_INDEX["path_dead_end"]] = 0.02
    P[5, X_CAT_INDEX["path_dead_end"]] = 0.08
    P[:, X_CAT_INDEX["pass"]] = 1 - (P.sum(axis=1) - P[:, X_CAT_INDEX["pass"]])
    assert np.allclose(P.sum(axis=1), 1) and (P > 0).all()
    d = BayesDetector(P, {})
    d.reset(None, _xcfg(3), None)
    d.observe(
        _ev(
            "path_placed", 1, {"kind": _kind("B08"), "x": 1, "y": 0, "rotated": False, "variant": 0}
        )
    )
    q = d.belief()[1]
    np.testing.assert_allclose(q, np.array([4, 4, 1, 1, 2, 12]) / 24)
    d.observe(_swap_hats(0, 1))
    b = d.belief()
    assert b[1, 5] == pytest.approx(5 / 28) and b[1, 0] == pytest.approx(23 / 84)
    np.testing.assert_allclose(b[0], b[1])  # seat 0 and seat 1's new card: the same draw
    np.testing.assert_allclose(b.sum(axis=1), 1)


def test_expansion_bayes_flat_model_is_the_exact_prior():
    """With events that say nothing, the posterior is the exact prior of RULES 6.2, also after
    a Swap your hats on the observer (its old card out: ``held``)."""
    from saboteur_env.engine.cards import BOSS, GEOLOGIST
    from saboteur_experiments.bluff.detectors import BayesDetector

    flat = BayesDetector(np.full((6, 26), 1 / 26), {})
    flat.reset(2, _xcfg(5), BOSS)
    flat.observe(_ev("discarded", 0, {}))
    flat.observe(_ev("pass_done", 0, {"discarded": 1, "done": True}))
    np.testing.assert_allclose(flat.belief(), exact_prior(_xcfg(5), 2, BOSS), atol=1e-12)
    flat.observe(_swap_hats(1, 2))
    flat.observe(_ev("role_dealt", 2, {"role": GEOLOGIST, "swapped": True}, visible_to=2))
    np.testing.assert_allclose(flat.belief()[0], np.array([4, 4, 0, 1, 1, 3]) / 13)
    np.testing.assert_allclose(
        flat.belief(), exact_prior(_xcfg(5), 2, GEOLOGIST, [BOSS, GEOLOGIST]), atol=1e-12
    )


def _xgame_events(n=5, seed=3):
    """Every event of a 1-round Saboteur 2 heuristic game (the first heuristic, whose games the
    tests below were chosen from), and the true roles at each point."""
    import saboteur_env
    from saboteur_agents import make_agent

    env = saboteur_env.raw_env(num_players=n, expansion=True, num_rounds=1)
    env.reset(seed=seed)
    agents = [make_agent("heuristic:v1") for _ in range(n)]
    for s, a in enumerate(agents):
        a.reset(s, env.config, seed=seed * 100 + s)
    points = []  # (events so far, true roles) before each decision
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        g = env.game
        points.append((len(g.events), g.roles.copy()))
        env.step(
            agents[env.agent_name_mapping[name]].act(obs["observation"], obs["action_mask"], info)
        )
    return env.config, list(env.game.events), points


def test_expansion_sampled_agrees_with_exact_at_5_players():
    """The sampled form (4096 particles, seed 0, resample-move) stays within 0.05 of the exact
    posterior at every decision of a 5-player round (measured: 0.027; below 0.045 over whole
    3-round games).  This round has two Swaps your hats (seat 1 on seat 3, then seat 3 on seat
    0) and seat 3 inspects seat 0 first: in-seat, seat 3's own card changes."""
    from saboteur_experiments.bluff.detectors import BayesDetector

    cfg, events, points = _xgame_events(seed=34)
    kinds = [
        (e.type, e.seat, e.data.get("target"))
        for e in events
        if e.type == "inspection_result"
        or (e.type == "action_played" and e.data["card"] == "swap_hats")
    ]
    assert kinds == [("inspection_result", 3, 0), ("action_played", 1, 3), ("action_played", 3, 0)]
    for seat in (None, 3):
        own = (
            None
            if seat is None
            else int(
                next(e.data["role"] for e in events if e.type == "role_dealt" and e.seat == seat)
            )
        )
        ex, sm = BayesDetector(), BayesDetector(max_exact=0, particles=4096, seed=0)
        for d in (ex, sm):
            d.reset(seat, cfg, own)
        assert ex.assignments.exact and not sm.assignments.exact
        i, worst = 0, 0.0
        for k, _roles in points:
            for e in events[i:k]:
                if e.visible_to is None or e.visible_to == seat:
                    ex.observe(e)
                    sm.observe(e)
            i = k
            a, b = ex.belief(), sm.belief()
            np.testing.assert_allclose(b.sum(axis=1), 1)
            worst = max(worst, float(np.abs(a - b).max()))
        assert worst < 0.05
        assert sm.assignments.resamples > 0  # the evidence was strong enough to resample


def test_expansion_bayes_beliefs_are_feasible_distributions():
    from saboteur_experiments.bluff.detectors import BayesDetector

    cfg, events, points = _xgame_events(n=5, seed=44)  # two Swaps your hats on seat 0
    dets = {s: BayesDetector() for s in range(5)}
    dets[None] = BayesDetector(max_exact=0, particles=512)
    for s, d in dets.items():
        own = (
            None
            if s is None
            else int(next(e.data["role"] for e in events if e.type == "role_dealt" and e.seat == s))
        )
        d.reset(s, cfg, own)
    i = 0
    for k, roles in points:
        for e in events[i:k]:
            for s, d in dets.items():
                if e.visible_to is None or e.visible_to == s:
                    d.observe(e)
        i = k
        for s, d in dets.items():
            b = d.belief()
            assert b.shape == (5, 6) and (b >= 0).all()
            np.testing.assert_allclose(b.sum(axis=1), 1)
            own = None if s is None else int(roles[s])
            lo, hi = feasible_count_bounds(cfg, s, own)
            col = b.sum(axis=0)
            assert (col >= lo - 1e-9).all() and (col <= hi + 1e-9).all()
            # no role held by more seats than it has cards (RULES 6.2)
            assert (col <= np.array(X_DECK) + 1e-9).all()
            if s is not None:
                assert b[s, roles[s]] == pytest.approx(1.0)


def test_expansion_bayes_fit_is_maximum_likelihood():
    from saboteur_experiments.bluff.detectors import X_CATEGORIES, X_TARGETED, BayesDetector

    rng = np.random.default_rng(0)
    k = len(X_CATEGORIES)
    true = rng.dirichlet(np.ones(k), size=6)
    samples = []
    for _ in range(30000):
        r = int(rng.integers(6))
        c = int(rng.choice(k, p=true[r]))
        t = int(rng.integers(6)) if X_CATEGORIES[c] in X_TARGETED else -1
        samples.append((r, c, t, int(rng.integers(6)) if t >= 0 else -1))
    det = BayesDetector.fit(samples, n_roles=6, smoothing=0.01)
    assert det.category_probs.shape == (6, k)
    assert np.allclose(det.category_probs, true, atol=0.02)
    assert set(det.target_ratios) == set(X_TARGETED)
    det.reset(None, _xcfg(4), None)  # fits the Saboteur 2 game
    with pytest.raises(ValueError, match="base game"):
        det.reset(None, GameConfig(num_players=4), None)
    with pytest.raises(ValueError, match="Saboteur 2"):
        BayesDetector.fit([(0, 0, -1, -1)]).reset(None, _xcfg(4), None)


def test_p_no_saboteur_on_the_expansion_is_hypergeometric():
    """Saboteur 2 (RULES 6.2): no saboteur among the dealt cards of the 15-card deck, checked
    against the enumerated deals; the saboteur column is 5 (column 1 is the blue digger)."""
    from math import comb

    for n in (2, 3, 4):
        cfg = _xcfg(n)
        R, logp = enumerate_assignments(n, np.array(X_DECK))
        p = np.exp(logp)
        none = (R == 5).sum(axis=1) == 0
        assert p_no_saboteur(cfg) == pytest.approx(p[none].sum())
        assert p_no_saboteur(cfg) == pytest.approx(comb(12, n) / comb(15, n))
        keep = R[:, 0] == 2  # a boss observer
        assert p_no_saboteur(cfg, 0, 2) == pytest.approx(p[keep & none].sum() / p[keep].sum())
        assert p_no_saboteur(cfg, 0, 5) == 0.0
    assert p_no_saboteur(_xcfg(12)) == pytest.approx(1 / comb(15, 3))  # no enumeration


def test_hand_set_bayes_detector_can_be_reset_for_either_game():
    """One hand-set detector, reset for Saboteur 2 then the base game (and back), takes each
    game's own tables."""
    d, fresh = BayesDetector(), BayesDetector()
    d.reset(None, _xcfg(5), None)
    d.reset(None, GameConfig(num_players=5), None)
    fresh.reset(None, GameConfig(num_players=5), None)
    for det in (d, fresh):
        det.observe(
            Event(
                "path_placed",
                1,
                {"kind": _dead_end_kind(), "x": 1, "y": 0, "rotated": False, "variant": 0},
            )
        )
    np.testing.assert_allclose(d.belief(), fresh.belief())
    d.reset(None, _xcfg(5), None)
    assert d.category_probs.shape == (6, 26)


@pytest.mark.parametrize("max_exact", [50_000, 0])
def test_contradictory_evidence_falls_back_to_the_prior(max_exact):
    """Evidence no deal can produce (never with true events: the observer, the boss, is told
    that another seat holds the only boss card) empties the set, exact or sampled; the belief
    falls back to the exact prior instead of crashing, also after a Swap your hats."""
    from saboteur_env.engine.cards import BOSS

    n = 4 if max_exact else 12
    d = BayesDetector(max_exact=max_exact, particles=256)
    d.reset(0, _xcfg(n), BOSS)
    d.observe(_ev("inspection_result", 0, {"target": 2, "role": BOSS}, visible_to=0))
    want = exact_prior(_xcfg(n), 0, BOSS)
    np.testing.assert_allclose(d.belief(), want)
    d.observe(_swap_hats(1, 2))
    d.observe(_ev("inspection_result", 0, {"target": 2, "role": 5}, visible_to=0))
    np.testing.assert_allclose(d.belief(), want)


def test_contradiction_on_one_card_keeps_the_sampled_set_empty():
    """Two different roles for the same card: the sampled set is empty and a redraw from the
    prior (as after an Inspection no particle agrees with) does not revive it."""
    d = BayesDetector(max_exact=0, particles=128)
    d.reset(None, _xcfg(8), None)
    a = d.assignments
    a.fix(1, 0)
    a.fix(1, 5)  # contradicts the first
    assert a.marginals() is None
    a._draw()
    assert a.marginals() is None
    np.testing.assert_allclose(d.belief(), exact_prior(_xcfg(8)))


def test_in_seat_bayes_ignores_the_observers_own_actions():
    """Base game, in-seat: the observer breaking seat 2's pick is no evidence about seat 2
    (it says what the observer believed); the same break by seat 1 is."""
    cfg = GameConfig(num_players=5)
    d = BayesDetector()
    d.reset(0, cfg, GOLD_DIGGER)
    prior = d.belief()
    d.observe(Event("tool_broken", 0, {"target": 2, "tool": "pick"}))
    assert np.allclose(d.belief(), prior)
    d.observe(Event("tool_broken", 1, {"target": 2, "tool": "pick"}))
    b = d.belief()
    assert b[1, SABOTEUR] > prior[1, SABOTEUR] and not np.allclose(b[2], prior[2])
