"""Team-aware ratings (saboteur_experiments.evaluation.team): who wins a round is a side (RULES
5.3)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from saboteur_experiments.evaluation.outcomes import round_table
from saboteur_experiments.evaluation.team import (
    ELO,
    fit_team_model,
    format_team_ratings,
    team_ratings,
)
from saboteur_experiments.tournament import lineup, run, schedule

DIG, SAB = 0, 1  # base-game role ids


def _result(game_id, deal, offset, seats, roles, diggers_win, winners=None, ruleset="base"):
    """A result dict shaped like ``saboteur_experiments.tournament.play``'s, one round: of the
    base game (the winners from ``diggers_win``) or of ``ruleset`` with ``winners`` given."""
    if winners is None:
        winners = [s for s, r in enumerate(roles) if (r == DIG) == diggers_win]
    n = len(seats)
    return {
        "game_id": game_id,
        "deal": deal,
        "deal_seed": 1000 + deal,
        "offset": offset,
        "lineup": list(seats),
        "gold": [0] * n,
        "winners": winners,
        "rounds": [
            {
                "round": 1,
                "gold_found": diggers_win,
                "winners": winners,
                "roles": list(roles),
                "received": [0] * n,
                "turns": 30,
                "connector": None,
                "paid": [0] * n,
            }
        ],
        "decisions": 30,
        "ruleset": ruleset,
    }


def _deal_roles(rng, players=5):
    """A base 5-player deal: 4 gold-diggers and 2 saboteurs, one card set aside (RULES 2.2)."""
    deck = [DIG] * 4 + [SAB] * 2
    rng.shuffle(deck)
    return deck[:players]


def _split_tournament(deals=120, seed=0):
    """A is a perfect saboteur and a terrible gold-digger; B plays a fair coin.

    Per deal (same roles in every game of it): five games with A in one seat (each seat once)
    and B in the others, and five games of B alone.  A round with an A saboteur is won by the
    saboteurs; one with an A gold-digger (so only B saboteurs) is lost by the diggers; a round
    without A goes either way with probability 1/2."""
    rng = random.Random(seed)
    results = []
    for d in range(deals):
        roles = _deal_roles(rng)
        for o in range(10):
            seats = ["B"] * 5
            if o < 5:
                seats[o] = "A"
                diggers_win = False  # A saboteur wins, A digger loses: the diggers lose
            else:
                diggers_win = rng.random() < 0.5
            results.append(_result(len(results), d, o, seats, roles, diggers_win))
    return results


def _symmetric_tournament(deals=150, seed=1):
    """A and B rotated through the seats (``tournament.lineup``); the outcome ignores who plays:
    the diggers win with probability 0.55 whatever the lineup."""
    rng = random.Random(seed)
    results = []
    for d in range(deals):
        roles = _deal_roles(rng)
        for o in range(2):
            seats = lineup(["A", "B"], 5, o)
            results.append(_result(len(results), d, o, seats, roles, rng.random() < 0.55))
    return results


def test_perfect_saboteur_terrible_digger_shows_the_split():
    s = team_ratings(_split_tournament(), ["A", "B"], n_boot=200, seed=0)
    a, b = s["agents"]["A"], s["agents"]["B"]
    # A's saboteur rating above B's, intervals apart
    assert a["saboteur"]["rating"] > b["saboteur"]["rating"]
    assert a["saboteur"]["lo"] > b["saboteur"]["hi"]
    # A's gold-digger rating below B's, intervals apart
    assert a["gold-digger"]["rating"] < b["gold-digger"]["rating"]
    assert a["gold-digger"]["hi"] < b["gold-digger"]["lo"]
    # a real split, not a shift: each interval contains its point
    for e in (a, b):
        for c in ("gold-digger", "saboteur", "overall"):
            assert e[c]["lo"] <= e[c]["rating"] <= e[c]["hi"]
    # the rows: A holds one seat of five games per deal, B the rest
    assert a["gold-digger"]["rows"] + a["saboteur"]["rows"] == 120 * 5
    assert s["rows"] == 120 * 10 * 5 and s["deals"] == 120
    text = format_team_ratings(s)
    assert "saboteur" in text and "gold-digger" in text and "\nA " in text


def test_ratings_do_not_depend_on_the_order_of_the_results():
    results = _split_tournament(deals=40)
    s = team_ratings(results, ["A", "B"], n_boot=50, seed=3)
    shuffled = results[:]
    random.Random(7).shuffle(shuffled)
    t = team_ratings(shuffled, ["A", "B"], n_boot=50, seed=3)
    for a in ("A", "B"):
        for c in ("gold-digger", "saboteur", "overall"):
            for key in ("rating", "lo", "hi"):
                assert s["agents"][a][c][key] == pytest.approx(t["agents"][a][c][key], abs=1e-9)
            assert s["agents"][a][c]["rows"] == t["agents"][a][c]["rows"]
    # the plain fit too, for a shuffled table
    f1 = fit_team_model(round_table(results, ["A", "B"]))
    f2 = fit_team_model(round_table(shuffled, ["A", "B"]))
    np.testing.assert_allclose(f1["theta"], f2["theta"], rtol=0, atol=1e-9)


def test_identical_agents_rate_near_zero():
    s = team_ratings(_symmetric_tournament(), ["A", "B"], n_boot=200, seed=0)
    for a in ("A", "B"):
        for c in ("gold-digger", "saboteur", "overall"):
            e = s["agents"][a][c]
            assert abs(e["rating"]) < 60, (a, c, e)
            assert e["lo"] <= 0.0 <= e["hi"], (a, c, e)


def test_fit_alpha_is_the_role_luck_and_theta_has_the_documented_shape():
    results = _symmetric_tournament(deals=100, seed=2)
    table = round_table(results, ["A", "B"])
    f = fit_team_model(table)
    assert f["theta"].shape == (2, 2) and f["theta"].dtype == np.float64
    assert f["rows"] == len(table)
    # base 5 players: 1 or 2 saboteurs in play, both seen
    assert set(f["alpha"]) == {
        ("gold-digger", 1),
        ("gold-digger", 2),
        ("saboteur", 1),
        ("saboteur", 2),
    }
    # identical agents: alpha carries the win rate of each role class, theta is ~0
    won = table.won
    dig = table.role == DIG
    rate = won[dig].mean()
    pooled = (f["alpha"][("gold-digger", 1)] + f["alpha"][("gold-digger", 2)]) / 2
    assert abs(pooled - np.log(rate / (1 - rate))) < 0.3
    assert np.abs(f["theta"]).max() < 60
    # zero weight on every row: only the prior is left, every rating 0
    z = fit_team_model(table, weights=np.zeros(len(table)))
    np.testing.assert_allclose(z["theta"], 0.0, atol=1e-9)
    # an always-winning saboteur still has a finite fit (the ridge prior)
    g = fit_team_model(round_table(_split_tournament(deals=30), ["A", "B"]))
    assert np.isfinite(g["theta"]).all() and g["theta"][0, 1] > 0 > g["theta"][0, 0]


def test_ridge_shrinks_the_ratings():
    table = round_table(_split_tournament(deals=30), ["A", "B"])
    weak = fit_team_model(table, lam=0.1)["theta"]
    strong = fit_team_model(table, lam=10.0)["theta"]
    assert np.abs(strong).max() < np.abs(weak).max()
    assert ELO == pytest.approx(173.717792761)


def test_real_small_run_heuristic_digs_better_than_random():
    agents = ["random", "heuristic"]
    results = run(schedule(agents, 5, deals=6, seed=0, num_rounds=1), workers=1, progress=False)
    s = team_ratings(results, agents, n_boot=200, seed=0)
    assert s["deals"] == 6 and s["rows"] == 6 * 2 * 5 and s["n_boot"] == 200
    h, r = s["agents"]["heuristic"], s["agents"]["random"]
    assert h["gold-digger"]["rating"] > r["gold-digger"]["rating"]
    assert h["overall"]["rating"] > r["overall"]["rating"]
    assert h["gold-digger"]["rows"] + h["saboteur"]["rows"] == 30
    import json

    json.dumps(s)  # JSON-ready


def test_bad_input_is_refused():
    results = _split_tournament(deals=3)
    with pytest.raises(ValueError, match="no game results"):
        team_ratings([], ["A", "B"])
    with pytest.raises(ValueError, match="'A' is not one of"):
        team_ratings(results, ["B"])
    with pytest.raises(ValueError, match="lam"):
        team_ratings(results, ["A", "B"], lam=-1.0)
    with pytest.raises(ValueError, match="lam"):
        fit_team_model(round_table(results, ["A", "B"]), lam=-0.5)
    with pytest.raises(ValueError, match="twice"):
        team_ratings(results, ["A", "B", "A"])
    with pytest.raises(ValueError, match="n_boot"):
        team_ratings(results, ["A", "B"], n_boot=0)
    with pytest.raises(ValueError, match="weights"):
        fit_team_model(round_table(results, ["A", "B"]), weights=np.ones(3))
    dup = results + [dict(results[0])]
    with pytest.raises(ValueError, match="twice"):
        team_ratings(dup, ["A", "B"])


def test_saboteur_2_fits_diggers_against_saboteurs_only():
    """RULES 6.9: green and blue diggers pooled as gold-diggers against the saboteurs; the boss,
    profiteer and geologist rows are left out of the fit and are nobody's opponent."""
    import copy

    from saboteur_env.engine.ruleset import SABOTEUR_2 as S2

    agents = ["random", "heuristic"]
    tasks = schedule(agents, 6, deals=4, seed=0, num_rounds=1, config={"expansion": True})
    results = run(tasks, workers=1, progress=False)
    assert results[0]["ruleset"] == "saboteur_2"
    table = round_table(results, agents)
    fitted = np.isin(table.role, (*S2.diggers, S2.saboteur))
    assert 0 < fitted.sum() < len(table)  # some boss/profiteer/geologist seats were dealt
    s = team_ratings(results, agents, n_boot=50)
    assert s["rows"] == int(fitted.sum())
    # what the other roles did changes nothing: make every one of them a winner
    changed = copy.deepcopy(results)
    for r in changed:
        for rd in r["rounds"]:
            for seat, role in enumerate(rd["roles"]):
                if role not in (*S2.diggers, S2.saboteur) and seat not in rd["winners"]:
                    rd["winners"].append(seat)
    assert round_table(changed, agents).won.sum() > table.won.sum()
    t = team_ratings(changed, agents, n_boot=50)
    assert t["agents"] == s["agents"]


def _objective(results, agents, theta, alpha, lam):
    """The penalised log-likelihood of the module docstring, written out seat by seat from the
    result dicts (independent of the design matrix): theta in logit units, (n_agents, 2)."""
    idx = {a: i for i, a in enumerate(agents)}
    total = 0.0
    for r in results:
        for rd in r["rounds"]:
            roles = rd["roles"]
            k = sum(1 for q in roles if q == SAB)
            for s, q in enumerate(roles):
                c = 0 if q == DIG else 1
                opp = [t for t, qt in enumerate(roles) if qt != q]
                logit = alpha[(("gold-digger", "saboteur")[c], k)] + theta[idx[r["lineup"][s]], c]
                if opp:
                    logit -= np.mean([theta[idx[r["lineup"][t]], 1 - c] for t in opp])
                y = 1.0 if s in rd["winners"] else 0.0
                total += y * logit - np.logaddexp(0.0, logit)
    ridge = 0.5 * lam * (theta**2).sum() + 0.5 * 1e-6 * sum(v * v for v in alpha.values())
    return total - ridge


def test_fit_maximises_the_documented_likelihood():
    """Every coordinate move away from the fit lowers the seat-by-seat objective."""
    rng = random.Random(5)
    agents = ["A", "B", "C"]
    results = []
    for d in range(25):
        roles = _deal_roles(rng)
        for o in range(3):
            seats = lineup(agents, 5, o)
            # C is a good saboteur, A a good digger: the outcome leans on who holds which role
            p = 0.5
            p += 0.2 * sum(1 for s, q in enumerate(roles) if q == DIG and seats[s] == "A")
            p -= 0.3 * sum(1 for s, q in enumerate(roles) if q == SAB and seats[s] == "C")
            results.append(_result(len(results), d, o, seats, roles, rng.random() < p))
    lam = 0.7
    f = fit_team_model(round_table(results, agents), lam=lam)
    theta, alpha = f["theta"] / ELO, dict(f["alpha"])
    best = _objective(results, agents, theta, alpha, lam)
    assert np.isfinite(best)
    eps = 1e-3
    for i in range(3):
        for c in range(2):
            for sign in (-1, 1):
                moved = theta.copy()
                moved[i, c] += sign * eps
                assert _objective(results, agents, moved, alpha, lam) < best
    for cell in alpha:
        for sign in (-1, 1):
            moved_alpha = dict(alpha)
            moved_alpha[cell] += sign * eps
            assert _objective(results, agents, theta, moved_alpha, lam) < best


def test_saboteur_2_classes_stay_centred_with_unopposed_saboteurs():
    """2-player Saboteur 2: a saboteur dealt beside the boss faces no digger (no opposing
    seat).  A constant added to both digger ratings must still be absorbed by alpha, so two
    agents give a mirror pair (x, -x) in each class (the legend's "relative within the
    class").  Sharing one alpha cell with the opposed rows gave diggers +367 / +129 Elo here:
    the saboteur beats the boss every time but a digger only half the time."""
    from saboteur_env.engine.ruleset import SABOTEUR_2 as S2

    green, boss, sab = S2.diggers[0], S2.roles.index("boss"), S2.saboteur
    results = []
    for d in range(12):
        for seats in (("A", "B"), ("B", "A")):
            # digger (seat 0) against saboteur: an A digger wins 3 deals of 4, a B digger 1 of 4
            dig_wins = (d % 4 != 0) if seats[0] == "A" else (d % 4 == 0)
            winners = [0] if dig_wins else [1]
            for roles, won in (((green, sab), winners), ((sab, boss), [0])):
                results.append(
                    _result(len(results), d, 0, seats, roles, dig_wins, won, "saboteur_2")
                )
    f = fit_team_model(round_table(results, ["A", "B"]))
    theta = f["theta"]
    assert theta[0, 0] > 0 > theta[1, 0]  # A digs better
    np.testing.assert_allclose(theta.sum(axis=0), 0.0, atol=1e-2)  # a mirror pair per class
    assert ("saboteur", 1, "alone") in f["alpha"] and ("saboteur", 1) in f["alpha"]
