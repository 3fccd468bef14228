"""The evaluation module (DESIGN 9): deal splits, deal-clustered intervals, the role-probe
schedule, the balance by saboteurs in play."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from saboteur_env.engine.ruleset import BASE, SABOTEUR_2
from saboteur_experiments.evaluation.outcomes import round_table, saboteurs_in_play
from saboteur_experiments.evaluation.protocols import dealt_roles, probe_deals, probe_schedule
from saboteur_experiments.evaluation.splits import (
    DEV,
    TEST,
    TRAIN,
    deal_seeds,
    draw_train_seed,
    split_named,
    split_of,
)
from saboteur_experiments.evaluation.stats import (
    cluster_mean,
    cluster_rate,
    cluster_se,
    paired_difference,
)
from saboteur_experiments.ratings import wilson


# --- splits ----------------------------------------------------------------------------------
def test_splits_are_disjoint_and_cover_the_seed_range():
    assert TEST.stop == DEV.start and DEV.stop == TRAIN.start and TRAIN.stop == 2**31
    assert deal_seeds("test", 3, first=10) == [10, 11, 12]
    assert deal_seeds("dev", 2) == [1_000_000, 1_000_001]
    assert split_of(999_999) is TEST and split_of(1_000_000) is DEV and split_of(2**31 - 1) is TRAIN
    rng = np.random.default_rng(0)
    assert all(draw_train_seed(rng) in TRAIN for _ in range(1000))
    with pytest.raises(ValueError, match="valid: train, dev, test|valid: test, dev, train"):
        split_named("validation")
    with pytest.raises(ValueError, match="run past the test split"):
        deal_seeds("test", 2, first=TEST.size - 1)
    with pytest.raises(ValueError, match="in no split"):
        split_of(-1)


# --- deal-clustered intervals -------------------------------------------------------------
def test_clustered_rate_is_wider_than_the_naive_one_and_matches_the_hand_value():
    """Four deals, three seats each sharing the deal's outcome (1, 1, 0, 0): 12 observations
    but only 4 independent ones.  By hand: S_g = 3, 3, 0, 0, m N_g = 1.5, so the clustered
    variance of the mean is 4/3 * 4 * 1.5**2 / 12**2 = 1/12; the naive one is 0.25/11; the
    design effect is 11/3, the effective sample size 36/11, and the interval is Wilson's for
    half of 36/11 trials won."""
    won = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], dtype=float)
    deals = np.repeat([0, 1, 2, 3], 3)
    assert cluster_se(won, deals) == pytest.approx(math.sqrt(1 / 12))
    e = cluster_rate(won, deals)
    z, n_eff = 1.959963984540054, 36 / 11
    half = z * math.sqrt(0.25 / n_eff + z * z / (4 * n_eff**2)) / (1 + z * z / n_eff)
    assert (e.value, e.n, e.clusters) == (0.5, 12, 4)
    assert e.lo == pytest.approx(0.5 - half) and e.hi == pytest.approx(0.5 + half)
    assert e.lo == pytest.approx(0.1326, abs=1e-4)
    naive = wilson(6, 12)
    assert e.hi - e.lo > 1.4 * (naive[1] - naive[0])
    # independent seats (no within-deal correlation): never narrower than the naive interval
    ind = cluster_rate(np.array([1, 0, 1, 0, 1, 0], dtype=float), np.arange(6))
    assert (ind.lo, ind.hi) == pytest.approx(wilson(3, 6))


def test_a_rate_of_0_or_1_counts_each_deal_once():
    """Ten deals of ten identical rows, all lost: no variance to measure clustering by, so
    the interval is Wilson's for 0 of 10 (the deals), not 0 of 100 (the rows)."""
    e = cluster_rate(np.zeros(100), np.repeat(np.arange(10), 10))
    assert (e.value, e.lo) == (0.0, 0.0) and e.hi == pytest.approx(wilson(0, 10)[1])
    assert e.hi > 0.27 > wilson(0, 100)[1]
    one = cluster_rate(np.array([1.0, 0.0, 1.0]), np.array([7, 7, 7]))  # a single deal
    assert (one.lo, one.hi) == pytest.approx(wilson(2 / 3, 1))


def test_paired_difference_is_newcombes_hybrid_score_interval():
    """Pairs (candidate won, reference won), one per deal.  Hand values: 10 pairs all (0, 0)
    give phi = 0 and the interval (-u, +u) with u the Wilson upper limit for 0 of 10; 6 pairs
    (1,1), 3 (1,0), 1 (0,1), 10 (0,0) give phi = (6*10 - 3*1 - 20/2) / sqrt(9*11*7*13) (the
    numerator less n/2, Newcombe's continuity correction) and the interval below, worked
    through the formula of Newcombe (1998, method 10) by hand.  Two concordant pairs (1,1) and
    (0,0): the uncorrected phi = 1 collapsed the interval to [0, 0]; corrected, phi = 0."""
    zero = np.zeros(10)
    e = paired_difference(zero, zero, np.arange(10))
    u = wilson(0, 10)[1]
    assert (e.value, e.lo, e.hi, e.method) == (
        0.0,
        pytest.approx(-u),
        pytest.approx(u),
        "newcombe-paired",
    )
    a = np.array([1] * 6 + [1] * 3 + [0] * 1 + [0] * 10, dtype=float)
    b = np.array([1] * 6 + [0] * 3 + [1] * 1 + [0] * 10, dtype=float)
    e = paired_difference(a, b, np.arange(20))
    p1, p2 = 9 / 20, 7 / 20
    l1, u1 = wilson(9, 20)
    l2, u2 = wilson(7, 20)
    phi = (6 * 10 - 3 * 1 - 20 / 2) / math.sqrt(9 * 11 * 7 * 13)
    lo = 0.1 - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    hi = 0.1 + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    assert (e.value, e.lo, e.hi) == pytest.approx((0.1, lo, hi))
    assert (e.lo, e.hi) == pytest.approx((-0.1066, 0.2923), abs=5e-4)
    # the pairing (phi > 0) makes it narrower than treating the two rates as independent
    assert e.hi - e.lo < (u1 - l1) + (u2 - l2)
    with pytest.raises(ValueError, match="one pair per deal"):
        paired_difference(a, b, np.zeros(20))
    two = paired_difference(np.array([1.0, 0.0]), np.array([1.0, 0.0]), np.arange(2))
    l, u = wilson(1, 2)
    half = math.sqrt((0.5 - l) ** 2 + (u - 0.5) ** 2)  # phi = 0
    assert (two.value, two.lo, two.hi) == pytest.approx((0.0, -half, half))
    assert two.hi - two.lo > 1.0


def test_deal_bootstrap_on_two_deals_matches_its_enumeration():
    """Two deals of three rows each, all won in deal A, all lost in deal B.  Resampling two
    deals with replacement gives AA, AB, BA, BB with chance 1/4 each, i.e. means 1, 1/2, 1/2,
    0: the 2.5% and 97.5% percentiles are exactly 0 and 1, while treating the six rows as
    independent would give Wilson's [0.19, 0.81]."""
    e = cluster_mean(np.array([1, 1, 1, 0, 0, 0], dtype=float), np.repeat([0, 1], 3), seed=3)
    assert (e.value, e.lo, e.hi, e.n, e.clusters) == (0.5, 0.0, 1.0, 6, 2)
    assert wilson(3, 6) == pytest.approx((0.1876, 0.8124), abs=1e-4)


def test_deal_bootstrap_of_a_mean_agrees_with_the_cluster_robust_error():
    rng = np.random.default_rng(1)
    deal_effect = rng.normal(size=400)
    deals = np.repeat(np.arange(400), 5)
    values = deal_effect[deals] + rng.normal(scale=0.5, size=deals.size)
    e = cluster_mean(values, deals, n_boot=4000, seed=2)
    se = cluster_se(values, deals)
    assert (e.n, e.clusters) == (2000, 400)
    assert (e.hi - e.lo) == pytest.approx(2 * 1.96 * se, rel=0.08)
    # treating the 2000 rows as independent would be about twice too narrow here
    assert 2 * 1.96 * values.std(ddof=1) / math.sqrt(2000) < 0.6 * (e.hi - e.lo)
    with pytest.raises(ValueError, match="same length"):
        cluster_mean(values, deals[:-1])
    with pytest.raises(ValueError, match="only 0 and 1"):
        cluster_rate(np.array([0.5]), np.array([0]))


# --- role-probe -------------------------------------------------------------------------------
@pytest.mark.parametrize("expansion,players", [(False, 5), (False, 4), (True, 6)])
def test_role_probe_places_the_candidate_in_the_stated_role_and_seat(expansion, players):
    rules = SABOTEUR_2 if expansion else BASE
    tasks, pairs = probe_schedule(
        "cand", "ref", players=players, deals=6, split="dev", seed=3, expansion=expansion
    )
    assert set(pairs) == set(range(rules.n_roles))
    for q, qpairs in pairs.items():
        assert len(qpairs) == 6
        for probe, pg, rg in qpairs:
            p, r = tasks[pg], tasks[rg]
            assert p.deal_seed == r.deal_seed == probe.deal_seed and probe.deal_seed in DEV
            assert dealt_roles(probe.deal_seed, players, expansion)[probe.seat] == q
            assert p.lineup[probe.seat] == "cand"
            assert [a for i, a in enumerate(p.lineup) if i != probe.seat] == ["ref"] * (players - 1)
            assert r.lineup == ("ref",) * players
            assert p.agent_seeds == r.agent_seeds  # the reference seats start alike
    # the reference game of a deal is shared by all roles probed on it
    ref_ids = [rg for qp in pairs.values() for _, _, rg in qp]
    assert len({tasks[i].deal_seed for i in ref_ids}) == len(set(ref_ids))


def test_probe_deals_skip_deals_without_the_role():
    """At 4 base players a deal holds 0 or 1 saboteur (RULES 2.2); the saboteur probe takes
    the first deals that hold one."""
    probes = probe_deals(BASE.saboteur, 4, 20, "test")
    held = [s for s in range(0, probes[-1].deal_seed + 1) if BASE.saboteur in dealt_roles(s, 4)]
    assert [p.deal_seed for p in probes] == held[:20]
    with pytest.raises(ValueError, match="roles 0-1"):
        probe_deals(2, 5, 1)


def test_role_probe_pairs_are_played_on_the_same_deal_and_role():
    from saboteur_experiments.evaluation.protocols import role_probe

    res = role_probe("random", "heuristic", players=5, deals=4, split="dev", seed=0)
    assert set(res["roles"]) == {"gold-digger", "saboteur"}
    for r in res["roles"].values():
        assert r["deals"] == 4 == r["candidate"]["n"] == r["diff"]["clusters"]
        assert r["diff"]["value"] == pytest.approx(
            r["candidate"]["value"] - r["reference"]["value"]
        )


# --- balance by saboteurs in play ---------------------------------------------------------
def test_tournament_side_rates_by_saboteurs_in_play_match_a_hand_count():
    """At 4 players a round has 0 or 1 saboteur; the summary's rates given k saboteurs are
    the shares of those rounds the saboteurs won and where the gold was not found, counted
    here by hand from the raw results."""
    from saboteur_experiments.tournament import run, schedule, summarize

    results = run(schedule(["random"], 4, deals=30, seed=0, num_rounds=1), progress=False)
    s = summarize(results, ["random"], n_boot=20)
    by_hand: dict[int, list[tuple[int, int]]] = {}
    for r in results:
        rd = r["rounds"][0]
        k = saboteurs_in_play(rd, BASE)
        sab_won = any(rd["roles"][w] == BASE.saboteur for w in rd["winners"])
        by_hand.setdefault(k, []).append((int(sab_won), int(not rd["gold_found"])))
    assert set(by_hand) == {0, 1}  # both occur in 30 deals
    for k, rows in by_hand.items():
        cell = s["by_saboteurs"][str(k)]
        assert cell["rounds"] == len(rows)
        assert cell["saboteurs_won"]["wins"] == sum(w for w, _ in rows)
        assert cell["gold_not_found"]["wins"] == sum(nf for _, nf in rows)
    # no saboteur in play: nobody to win as a saboteur, even when the gold is not found
    assert s["by_saboteurs"]["0"]["saboteurs_won"]["wins"] == 0
    assert s["by_saboteurs"]["0"]["gold_not_found"]["wins"] > 0
    given = s["saboteurs_won_given_saboteur"]
    assert (given["n"], given["wins"]) == (len(by_hand[1]), sum(w for w, _ in by_hand[1]))
    t = round_table(results)
    assert len(t) == 4 * 30 and set(np.unique(t.saboteurs)) == {0, 1}


def test_saboteurs_won_follows_the_winners_set():
    """RULES 6.9: with the both-doors rule and no Boss the saboteurs win although the gold
    was found; a trapped saboteur is not a winner; a round without a saboteur is won by no
    saboteur (RULES 5.3)."""
    from saboteur_experiments.evaluation.outcomes import saboteurs_won

    sab = SABOTEUR_2.saboteur
    dig = SABOTEUR_2.diggers[0]
    both_doors = {"roles": [dig, sab, dig], "winners": [1], "gold_found": True}
    trapped = {"roles": [dig, sab, dig], "winners": [], "gold_found": False}
    none = {"roles": [BASE.diggers[0]] * 3, "winners": [], "gold_found": False}
    assert saboteurs_won(both_doors, SABOTEUR_2)
    assert not saboteurs_won(trapped, SABOTEUR_2)
    assert not saboteurs_won(none, BASE) and saboteurs_in_play(none, BASE) == 0


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["heuristic", "--first-deal", "999999", "--deals", "3"], "--first-deal 999999"),
        (["--external", "random", "--players", "9"], "--players cannot be combined"),
        (["--external", "random", "heuristic"], "no positional candidate"),
        (["--external", "random", "--against", "random,heuristic"], "one agent spec"),
        (["--external", "random", "--against", "nope"], "--against: unknown agent 'nope'"),
        (["nope"], "candidate: unknown agent 'nope'"),
        (["heuristic", "--against", "random,nope"], "--against: unknown agent 'nope'"),
        (["heuristic", "--split", "validation"], "invalid choice: 'validation'"),
        (["heuristic", "--players", "13", "--expansion"], "13"),
        (["heuristic", "--against", ""], "--against: at least one agent spec is needed"),
        (["heuristic", "--against", "random,random"], "'random' listed twice"),
        (["--external", "random,random"], "--external: 'random' listed twice"),
        (["--external", "random", "--against", ""], "one agent spec"),
    ],
)
def test_evaluate_bad_options_are_usage_errors(capsys, argv, needle):
    from saboteur_experiments.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["evaluate", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_evaluate_writes_the_head_to_head_it_prints(tmp_path, capsys):
    import json

    from saboteur_experiments.cli import main

    out = tmp_path / "h2h.json"
    main(["evaluate", "random", "--against", "heuristic", "--deals", "3", "--json", str(out)])
    text = capsys.readouterr().out
    res = json.loads(out.read_text())
    assert res["split"] == "test" and res["deals"] == 3 and res["protocol"] == "role-probe"
    for role, r in res["against"]["heuristic"]["roles"].items():
        assert role in text and r["deals"] == 3
        assert f"{100 * r['diff']['value']:+.1f}" in text


def test_evaluate_says_when_a_checkpoint_plays_at_another_player_count(capsys):
    """The shipped checkpoint, trained at 5 players, evaluated at 4: the output says so (as
    ``saboteur report`` does); at 5 it says nothing."""
    pytest.importorskip("torch")
    from saboteur_experiments.cli import main

    main(["evaluate", "ppo", "--against", "random", "--players", "4", "--deals", "2"])
    assert "note: ppo was trained at 5 players, played here at 4" in capsys.readouterr().out
    main(["evaluate", "ppo", "--against", "random", "--players", "5", "--deals", "2"])
    assert "trained at" not in capsys.readouterr().out


def test_error_bars_are_the_distances_to_the_interval_never_negative():
    """A one-deal tournament's zero-width bootstrap interval missed its point by 5e-15, a
    negative bar, and matplotlib refused the plot (fix: the bar stops at the point)."""
    from saboteur_experiments.evaluation.stats import error_bars

    bars = error_bars(
        [12.42730418253163, 5.0], [12.427304182531625, 4.0], [12.427304182531625, 8.0]
    )
    assert bars.shape == (2, 2) and bars.dtype == np.float64
    np.testing.assert_array_equal(bars[:, 1], [1.0, 3.0])
    assert bars[0, 0] == pytest.approx(5e-15, abs=1e-14) and bars[1, 0] == 0.0
    np.testing.assert_array_equal(error_bars(0.5, 0.6, 0.9), [0.0, 0.4])  # skewed: misses it


def test_paired_ratio_is_the_ratio_of_the_two_rates_with_a_deal_bootstrap():
    from saboteur_experiments.evaluation.stats import paired_ratio

    a = np.array([1, 1, 0, 1, 0, 1], float)  # 4 of 6
    b = np.array([1, 0, 0, 1, 0, 0], float)  # 2 of 6
    est = paired_ratio(a, b, np.arange(6))
    assert est.value == pytest.approx(2.0)
    assert est.lo < 2.0 < est.hi and est.clusters == 6
    none = paired_ratio(a, np.zeros(6), np.arange(6))
    assert np.isnan(none.value) and np.isnan(none.lo)


def test_role_probe_ratio_is_none_when_the_reference_never_wins():
    """A role the reference never wins has no ratio (``None``, not NaN: the result must be JSON
    and equal to itself, so that two backends' results compare equal)."""
    from saboteur_experiments.evaluation.protocols import role_probe

    kw = dict(players=3, deals=3, split="dev", seed=1)
    a = role_probe("heuristic", "random", **kw)
    assert a == role_probe("heuristic", "random", **kw)
    ratios = [r["ratio"] for r in a["roles"].values()]
    assert None in ratios  # random gold-diggers never win these deals
    assert all(q is None or q["value"] == q["value"] for q in ratios)


def test_json_ready_writes_no_value_as_null_and_numpy_as_python(tmp_path):
    """NaN (an estimate with no data) and infinities become null, so the summaries are strict
    JSON; numpy scalars and arrays become Python numbers and lists; the rest is unchanged."""
    from saboteur_experiments.jsonio import json_ready, write_json

    obj = {
        "rate": float("nan"),
        "n": np.int64(0),
        "lo": np.float32(0.25),
        "rows": np.array([1.0, np.nan, np.inf]),
        "pair": (np.float64(-np.inf), "x", None, True),
    }
    got = json_ready(obj)
    want = {"rate": None, "n": 0, "lo": 0.25, "rows": [1.0, None, None]}
    assert got == {**want, "pair": [None, "x", None, True]}
    assert type(got["n"]) is int and type(got["lo"]) is float
    assert json.loads(json.dumps(got, allow_nan=False)) == got
    write_json(tmp_path / "s.json", {**obj, "path": tmp_path}, default=str)
    text = (tmp_path / "s.json").read_text()
    assert text.endswith("}\n") and "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == {**got, "path": str(tmp_path)}
    with pytest.raises(TypeError):
        write_json(tmp_path / "t.json", {"path": tmp_path})
    assert cluster_rate(np.zeros(0), np.zeros(0)).pct() == "-"


def test_the_head_to_head_table_counts_the_pairs_whose_role_changed():
    """Saboteur 2's Swap your hats can change the probe seat's role: a profiteer row of 0%
    against 100% looked impossible, with the reason only in the JSON; the table now counts
    those pairs in a last column (absent when none changed)."""
    from saboteur_experiments.evaluation.protocols import format_head_to_head

    def est(v):
        return {"value": v, "lo": 0.0, "hi": 1.0, "n": 2, "clusters": 2, "method": "wilson"}

    def h2h(changed):
        row = {"deals": 2, "role_changed": changed, "candidate": est(0.0), "reference": est(1.0)}
        row["diff"] = est(-1.0)
        head = {"candidate": "ppo", "players": 5, "expansion": True, "split": "test"}
        return {
            **head,
            "first": 0,
            "deals": 2,
            "seed": 0,
            "against": {"heuristic": {"roles": {"profiteer": row}}},
        }

    text = format_head_to_head(h2h(2))
    header, row = text.splitlines()[1:3]
    assert header.endswith("role changed") and row.split()[-1] == "2"
    assert "judged by the role it ended with" in text
    plain = format_head_to_head(h2h(0))
    assert "role changed" not in plain
    assert plain.splitlines()[2].endswith("-100.0 [+0.0, +100.0]")


def test_external_protocol_takes_the_gold_diggers_from_against(tmp_path, capsys):
    """``--external ... --against heuristic:v1`` plays three v1 gold-diggers (the external
    table measured before heuristic v2 could not be reproduced: the gold-diggers were fixed to
    today's heuristic); without --against they are the heuristic."""
    import json

    from saboteur_experiments.cli import main

    out = tmp_path / "ext.json"
    argv = ["evaluate", "--external", "random", "--deals", "6", "--no-progress"]
    main([*argv, "--against", "heuristic:v1", "--json", str(out)])
    text = capsys.readouterr().out
    res = json.loads(out.read_text())
    assert res["reference"] == "heuristic:v1" and res["players"] == 4
    assert "against three heuristic:v1 gold-diggers" in text and "heuristic:v1 saboteur" in text
    main([*argv, "--json", str(out)])
    assert json.loads(out.read_text())["reference"] == "heuristic"
    assert "against three heuristic gold-diggers" in capsys.readouterr().out
    # the games are played against that reference: the rates are role_probe's with it, which
    # differ from the heuristic's on these deals (so the check can fail)
    from saboteur_env.engine.ruleset import BASE
    from saboteur_experiments.evaluation.protocols import role_probe

    main([*argv, "--against", "heuristic:v1", "--json", str(out)])
    got = json.loads(out.read_text())["candidates"]["random"]
    kw = dict(players=4, deals=6, split="test", first=0, seed=0, roles=[BASE.saboteur])
    v1, v2 = (
        role_probe("random", r, **kw)["roles"]["saboteur"] for r in ("heuristic:v1", "heuristic")
    )
    assert v1["reference"] != v2["reference"]
    assert got["reference"] == v1["reference"] and got["value"] == v1["candidate"]["value"]
