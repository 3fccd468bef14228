"""Tournament harness and ratings (DESIGN 6; cases T1, T3, T5, T7, T9)."""

from __future__ import annotations

import json
import math
import warnings
from collections import Counter

import numpy as np
import pytest

import saboteur_env
from saboteur_agents import make_agent
from saboteur_env.engine.cards import CARD_KINDS, GOLD_DIGGER
from saboteur_env.engine.events import EventType
from saboteur_experiments.ratings import (
    OnlineRatings,
    bootstrap_bt,
    bradley_terry,
    cycles,
    pair_results,
    ranks_from_gold,
    wilson,
    win_matrix,
)
from saboteur_experiments.tournament import (
    OneSidedWarning,
    Options,
    format_summary,
    lineup,
    main,
    play,
    run,
    schedule,
    summarize,
    tournament,
)


# --- scheduling ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "specs,n",
    [
        (["a", "b"], 5),
        (["a", "b", "c"], 5),
        (["a"], 3),
        (["a", "b", "c", "d", "e", "f"], 4),
        (["a", "b"], 10),
    ],
)
def test_every_agent_in_every_seat_equally_often(specs, n):
    tasks = schedule(specs, n, deals=4, seed=3)
    assert len(tasks) == 4 * len(specs)
    seat_counts = Counter((s, a) for t in tasks for s, a in enumerate(t.lineup))
    for s in range(n):
        for a in specs:
            assert seat_counts[(s, a)] == 4  # once per deal
    # duplicate deals: the k games of a deal share the deal seed, deals differ
    by_deal = {}
    for t in tasks:
        by_deal.setdefault(t.deal, set()).add(t.deal_seed)
    assert all(len(v) == 1 for v in by_deal.values())
    assert len({next(iter(v)) for v in by_deal.values()}) == 4


def test_schedule_is_reproducible_and_deals_do_not_depend_on_agents():
    a = schedule(["random", "heuristic"], 5, 3, seed=9)
    b = schedule(["random", "heuristic"], 5, 3, seed=9)
    c = schedule(["heuristic", "random", "heuristic:subtle"], 5, 3, seed=9)
    assert a == b
    assert [t.deal_seed for t in a][::2] == [t.deal_seed for t in c][::3]
    assert lineup(["x", "y"], 5, 1) == ("y", "x", "y", "x", "y")


def test_duplicate_deal_has_same_roles_in_every_game():
    tasks = schedule(["random", "heuristic"], 5, 2, seed=1, num_rounds=1)
    res = run(tasks, workers=1, progress=False)
    for d in range(2):
        games = [r for r in res if r["deal"] == d]
        assert len(games) == 2
        assert games[0]["rounds"][0]["roles"] == games[1]["rounds"][0]["roles"]


def test_same_results_with_one_and_two_workers():
    tasks = schedule(["random", "heuristic", "heuristic:blatant"], 4, 2, seed=5, num_rounds=1)
    r1 = run(tasks, workers=1, progress=False)
    r2 = run(tasks, workers=2, progress=False)
    assert r1 == r2
    s1 = summarize(r1, ["random", "heuristic", "heuristic:blatant"], n_boot=20)
    s2 = summarize(r2, ["random", "heuristic", "heuristic:blatant"], n_boot=20)
    assert s1 == s2


# --- statistics ------------------------------------------------------------------------------
def test_wilson_known_values():
    lo, hi = wilson(5, 10)
    assert (lo, hi) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(10, 10)
    assert hi == 1 and lo == pytest.approx(0.7225, abs=1e-4)
    lo, hi = wilson(81, 263)
    assert (lo, hi) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_ranks_from_gold_ties_share():
    assert ranks_from_gold([7, 4, 4, 9, 0]) == [2, 3, 3, 1, 5]


def _pl_update(mus, sigmas, ranks, beta=25 / 6, tau=25 / 300, kappa=1e-4):
    """Weng & Lin (2011) Algorithm 4 (Plackett-Luce), by hand, for one-player teams; ties
    share A_q and the tied players get the mean mu change (as openskill 6 does)."""
    sig = [math.sqrt(s * s + tau * tau) for s in sigmas]
    c = math.sqrt(sum(s * s + beta * beta for s in sig))
    e = [math.exp(m / c) for m in mus]
    n = len(mus)
    sum_q = [sum(e[i] for i in range(n) if ranks[i] >= ranks[q]) for q in range(n)]
    a = [sum(1 for j in range(n) if ranks[j] == ranks[q]) for q in range(n)]
    new_mu, new_sigma = [], []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] <= ranks[i]:
                p = e[i] / sum_q[q]
                delta += p * (1 - p) / a[q]
                omega += ((1 - p) if q == i else -p) / a[q]
        s2 = sig[i] ** 2
        gamma = sig[i] / c
        new_mu.append(mus[i] + s2 / c * omega)
        new_sigma.append(sig[i] * math.sqrt(max(1 - gamma * s2 / c**2 * delta, kappa)))
    for r in set(ranks):
        idx = [i for i in range(n) if ranks[i] == r]
        avg = sum(new_mu[i] - mus[i] for i in idx) / len(idx)
        for i in idx:
            new_mu[i] = mus[i] + avg
    return new_mu, new_sigma


def test_rating_update_hand_computed_five_player_game_with_tie():
    """T3: a 5-player game ranked by gold with a tie for second place."""
    gold = [7, 4, 4, 1, 0]
    ranks = ranks_from_gold(gold)
    assert ranks == [1, 2, 2, 4, 5]
    agents = ["a", "b", "c", "d", "e"]
    online = OnlineRatings(agents)
    online.update(agents, gold)
    mu0, s0 = 25.0, 25 / 3
    exp_mu, exp_sigma = _pl_update([mu0] * 5, [s0] * 5, ranks)
    t = online.table()
    for i, a in enumerate(agents):
        assert t[a]["mu"] == pytest.approx(exp_mu[i], abs=1e-9)
        assert t[a]["sigma"] == pytest.approx(exp_sigma[i], abs=1e-9)
    # equal ratings and equal ranks change equally; the order of the ranking is respected
    assert t["b"]["mu"] == pytest.approx(t["c"]["mu"])
    assert t["a"]["mu"] > t["b"]["mu"] >= t["d"]["mu"] > t["e"]["mu"]
    # hand-checked figures (openskill 6 defaults mu 25, sigma 25/3, beta 25/6, tau 25/300)
    assert exp_mu == pytest.approx([27.66683, 25.16668, 25.16668, 25.16668, 21.83314], abs=1e-4)
    assert sum(exp_mu) == pytest.approx(125.0)  # equal sigmas: the mu changes sum to zero


def test_ratings_of_equal_agents_do_not_drift_apart():
    """T3: 1,000 random 5-player games among equal agents."""
    rng = np.random.default_rng(0)
    agents = ["a", "b", "c", "d", "e"]
    online = OnlineRatings(agents)
    lineups, golds = [], []
    for _ in range(1000):
        order = list(rng.permutation(agents))
        gold = rng.integers(0, 8, 5).tolist()
        online.update(order, gold)
        lineups.append(order)
        golds.append(gold)
    # the online rating keeps wandering (tau > 0); tolerance: every mu stays within 3 sigma
    # of the mean, sigma included
    tab = online.table().values()
    mean = np.mean([r["mu"] for r in tab])
    assert all(abs(r["mu"] - mean) < 3 * r["sigma"] for r in tab)
    bt = bradley_terry(pair_results(lineups, golds, agents).sum(axis=0))
    assert np.abs(bt).max() < 25  # Elo points


def _cyclic_log(n_games=600, p=0.8, seed=0):
    """Two-player games A-B, B-C, C-A where the first beats the second with probability p."""
    rng = np.random.default_rng(seed)
    pairs = [("A", "B"), ("B", "C"), ("C", "A")]
    lineups, golds = [], []
    for g in range(n_games):
        x, y = pairs[g % 3]
        win = rng.random() < p
        lineups.append([x, y])
        golds.append([1, 0] if win else [0, 1])
    return lineups, golds


def test_non_transitive_cycle_is_reported():
    """T5: A beats B beats C beats A (80% each): the cycle is reported, the full win matrix
    shows it, and the batch rating does not invent a ladder."""
    lineups, golds = _cyclic_log()
    names = ["A", "B", "C"]
    W = pair_results(lineups, golds, names).sum(axis=0)
    P = win_matrix(W)
    assert P[0, 1] > 0.7 and P[1, 2] > 0.7 and P[2, 0] > 0.7
    assert cycles(P, names) == [("A", "B", "C")]
    bt = bradley_terry(W)
    assert np.abs(bt).max() < 30
    results = [
        {
            "game_id": i,
            "deal": i,
            "deal_seed": i,
            "offset": 0,
            "lineup": lu,
            "gold": g,
            "winners": [int(np.argmax(g))],
            "rounds": [
                {
                    "round": 0,
                    "gold_found": True,
                    "winners": [int(np.argmax(g))],
                    "roles": [0, 0],
                    "received": g,
                    "turns": 1,
                    "connector": 0,
                }
            ],
            "decisions": 1,
        }
        for i, (lu, g) in enumerate(zip(lineups, golds))
    ]
    s = summarize(results, names, n_boot=20)
    assert s["cycles"] == [["A", "B", "C"]]
    assert "non-transitive cycles" in format_summary(s)
    assert s["pairwise"]["p_win"][0][1] > 0.7


def test_batch_rating_does_not_depend_on_game_order():
    """T7: the same 500-game log shuffled 100 times."""
    rng = np.random.default_rng(1)
    names = ["p", "q", "r"]
    strength = {"p": 1.0, "q": 0.5, "r": 0.0}
    lineups, golds = [], []
    for _ in range(500):
        lu = [names[i] for i in rng.integers(0, 3, 5)]
        gold = [strength[a] + rng.normal() for a in lu]
        lineups.append(lu)
        golds.append([round(x) for x in gold])  # integer gold: ties happen
    per_game = pair_results(lineups, golds, names)
    ref = bradley_terry(per_game.sum(axis=0))
    online_spread = []
    for _ in range(100):
        perm = rng.permutation(500)
        fit = bradley_terry(per_game[perm].sum(axis=0))
        assert np.allclose(fit, ref, atol=1e-6)
        online = OnlineRatings(names)
        if len(online_spread) < 3:
            for i in perm:
                online.update(lineups[i], golds[i])
            online_spread.append([online.table()[a]["mu"] for a in names])
    assert ref[0] > ref[1] > ref[2]
    lo, hi = bootstrap_bt(per_game, n_boot=50, seed=0)
    assert (lo <= ref + 1e-9).all() and (ref <= hi + 1e-9).all()
    # the online rating is order-dependent (labelled so in the summary)
    assert np.ptp(np.array(online_spread), axis=0).max() > 0


# --- T1: seat bias -------------------------------------------------------------------------
@pytest.mark.parametrize("n,deals", [(3, 150), (5, 150), (10, 60)])
def test_seat_bias_identical_agents(n, deals):
    tasks = schedule(["random"], n, deals, seed=2, num_rounds=3)
    res = run(tasks, workers=1, progress=False)
    s = summarize(res, ["random"], n_boot=10)
    seats = s["seats"]
    assert all(x["games"] == deals for x in seats)
    # per-seat win counts: no seat differs significantly (chi-square, p < 0.001, df = n - 1)
    wins = np.array([x["win"]["wins"] for x in seats], dtype=float)
    expected = wins.sum() / n
    chi2 = ((wins - expected) ** 2 / expected).sum()
    crit = {2: 13.82, 4: 18.47, 9: 27.88}[n - 1]
    assert chi2 < crit, (chi2, wins)
    assert all(0 <= x["saboteur_share"] <= 1 for x in seats)
    # reproducible from the tournament seed
    again = run(schedule(["random"], n, 3, seed=2, num_rounds=3), progress=False)
    assert again == res[:3]


# --- T9: degenerate outcomes ---------------------------------------------------------------
def test_all_gold_digger_heuristic_rounds_reach_the_gold():
    tasks = schedule(["heuristic"], 5, 40, seed=4, num_rounds=1, role_override="all-digger")
    res = run(tasks, workers=1, progress=False)
    assert all(r["rounds"][0]["roles"] == [GOLD_DIGGER] * 5 for r in res)
    found = sum(r["rounds"][0]["gold_found"] for r in res)
    assert found >= 0.9 * len(res), found
    with warnings.catch_warnings(record=True):
        s = summarize(res, ["heuristic"], n_boot=10)
    if found == len(res):
        assert s["warnings"], "a one-sided result must be flagged"


def test_heuristic_diggers_vs_random_saboteurs():
    """T9: heuristic gold-diggers against random saboteurs; outcomes vary; every card kind of
    the base deck is dealt and played at least once over the run."""
    n, rounds = 5, 60
    dealt, played = Counter(), Counter()
    found = []
    for seed in range(rounds):
        env = saboteur_env.raw_env(num_players=n, num_rounds=1)
        env.reset(seed=1000 + seed)
        game = env.game
        agents = [
            make_agent("heuristic" if game.roles[s] == GOLD_DIGGER else "random") for s in range(n)
        ]
        for s, a in enumerate(agents):
            a.reset(s, env.config, seed=seed * 10 + s)
        for k in np.nonzero(game.hands.sum(axis=0))[0]:
            dealt[int(k)] += 1
        for name in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            s = env.agent_name_mapping[name]
            a = agents[s].act(obs["observation"], obs["action_mask"], info)
            act = env.codec.decode(a, s, n)
            env.step(a)
            if act.__class__.__name__ != "Discard":
                k = getattr(act, "kind", None)
                if k is None:
                    k = 25 if act.__class__.__name__ == "Rockfall" else 26
                played[int(k)] += 1
        for e in game.events:
            if e.type is EventType.CARD_DRAWN:
                dealt[e.data["kind"]] += 1
        found.append(game.round_results[0].gold_found)
    rate = sum(found) / rounds
    assert 0.3 < rate < 1.0, rate  # clearly non-zero, and not degenerate
    assert set(dealt) == set(range(len([k for k in CARD_KINDS if k.count_base])))
    missing = [CARD_KINDS[k].id for k in range(27) if not played[k]]
    assert not missing, missing


def _one_sided_results(deals: int) -> list[dict]:
    """``deals`` one-round games of three seats, the gold found in every one."""
    return [
        {
            "game_id": i,
            "deal": i,
            "deal_seed": i,
            "offset": 0,
            "lineup": ["x", "x", "x"],
            "gold": [3, 3, 0],
            "winners": [0, 1],
            "rounds": [
                {
                    "round": 0,
                    "gold_found": True,
                    "winners": [0, 1],
                    "roles": [0, 0, 1],
                    "received": [3, 3, 0],
                    "turns": 20,
                    "connector": 0,
                }
            ],
            "decisions": 20,
        }
        for i in range(deals)
    ]


@pytest.mark.parametrize(("deals", "firm"), [(3, False), (200, False), (800, True)])
def test_the_one_sided_warning_weighs_its_sample(deals, firm):
    """Case T9: the gold found in every round is reported, and only blamed on the engine or
    the agents when the share's 95% interval (clustered by deal) lies above 99% (800 deals);
    with few rounds the warning says they cannot tell such a share from chance."""
    (msg,) = summarize(_one_sided_results(deals), ["x"], n_boot=5)["warnings"]
    assert msg.startswith(f"the gold was found in 100.0% of {deals} rounds (> 99%): ")
    assert msg.endswith("check the rules engine and the agents")
    assert ("too few rounds to tell a one-sided game from chance" in msg) == (not firm)


def test_one_sided_warning():
    res = _one_sided_results(200)
    s = summarize(res, ["x"], n_boot=5)
    assert s["warnings"] and "99%" in s["warnings"][0]
    assert "WARNING" in format_summary(s)
    with pytest.warns(OneSidedWarning):
        tournament(
            Options(
                agents=["heuristic"],
                players=3,
                deals=3,
                rounds=1,
                workers=1,
                role_override="all-digger",
                bootstrap=5,
                progress=False,
            )
        )


# --- outputs and command line ----------------------------------------------------------------
def test_command_line_writes_outputs(tmp_path, capsys):
    out = tmp_path / "t"
    main(
        [
            "--agents",
            "random,heuristic:subtle",
            "--players",
            "3",
            "--deals",
            "2",
            "--rounds",
            "1",
            "--workers",
            "1",
            "--out",
            str(out),
            "--bootstrap",
            "10",
            "--no-progress",
        ]
    )
    for f in ("games.csv", "rounds.csv", "summary.json", "ratings.png", "win_rates.png"):
        assert (out / f).stat().st_size > 0
    text = capsys.readouterr().out
    assert "team rating" in text and "heuristic:subtle" in text and "clustered by deal" in text
    rows = (out / "games.csv").read_text().strip().splitlines()
    assert len(rows) == 1 + 2 * 2 * 3  # header + games x seats


def test_play_is_deterministic():
    t = schedule(["heuristic", "random"], 4, 1, seed=8, num_rounds=1)[0]
    assert play(t) == play(t)


def test_tournament_records_replay_to_the_same_results(tmp_path):
    """--records writes one game record per game (saboteur_env.record); replaying a record
    through the engine gives the tournament's gold for that game."""
    from saboteur_env.record import replay_game
    from saboteur_experiments.tournament import Options, tournament

    opts = Options(
        agents=["random", "heuristic"],
        players=4,
        deals=1,
        rounds=1,
        workers=1,
        out=str(tmp_path),
        records=True,
        bootstrap=10,
        plots=False,
        progress=False,
    )
    results, _ = tournament(opts)
    files = sorted((tmp_path / "records").glob("game_*.jsonl"))
    assert len(files) == len(results) == 2
    for res, f in zip(sorted(results, key=lambda r: r["game_id"]), files):
        assert replay_game(str(f)).gold.tolist() == res["gold"]


@pytest.mark.filterwarnings(
    "ignore::saboteur_experiments.tournament.OneSidedWarning"
)  # 1-deal runs
def test_a_second_tournament_into_the_same_out_is_refused_unless_overwrite(tmp_path, capsys):
    """The results of an earlier tournament are never replaced silently: the same ``--out``
    again is a usage error (exit 2) naming --out and --overwrite, and nothing is changed;
    ``--overwrite`` replaces them (no earlier plot stays beside ``--no-plots`` results)."""
    out = tmp_path / "t"
    argv = [
        "--agents",
        "random",
        "--players",
        "3",
        "--deals",
        "1",
        "--rounds",
        "1",
        "--workers",
        "1",
        "--out",
        str(out),
        "--bootstrap",
        "5",
        "--no-progress",
    ]
    main(argv)
    before = {f.name: f.read_bytes() for f in out.iterdir()}
    assert "ratings.png" in before
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main([*argv[:-1], "--seed", "5", "--no-progress"])
    assert exc.value.code == 2
    cap = capsys.readouterr()
    assert f"--out {out}" in cap.err and "--overwrite" in cap.err and "summary.json" in cap.err
    assert cap.out == ""
    assert {f.name: f.read_bytes() for f in out.iterdir()} == before
    main([*argv, "--seed", "5", "--overwrite", "--no-plots"])
    assert sorted(f.name for f in out.iterdir()) == ["games.csv", "rounds.csv", "summary.json"]
    import json

    assert json.loads((out / "summary.json").read_text())["meta"]["seed"] == 5


def test_plots_name_the_settings_that_produced_them(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from saboteur_experiments.tournament import settings_text

    titles = []
    real_suptitle = Figure.suptitle

    def suptitle(self, text, **kw):
        titles.append(text)
        return real_suptitle(self, text, **kw)

    monkeypatch.setattr(Figure, "suptitle", suptitle)
    import matplotlib.axes

    real_set_title = matplotlib.axes.Axes.set_title

    def set_title(self, text, *a, **kw):
        titles.append(text)
        return real_set_title(self, text, *a, **kw)

    monkeypatch.setattr(matplotlib.axes.Axes, "set_title", set_title)
    out = tmp_path / "t"
    main(
        [
            "--agents",
            "random,heuristic",
            "--players",
            "4",
            "--deals",
            "1",
            "--rounds",
            "2",
            "--seed",
            "7",
            "--workers",
            "1",
            "--out",
            str(out),
            "--bootstrap",
            "5",
            "--no-progress",
        ]
    )
    want = "agents random, heuristic; 4 players, 2 rounds, 1 test deal from 0, seed 7"
    assert (
        settings_text(
            {"agents": ["random", "heuristic"], "players": 4, "rounds": 2, "deals": 1, "seed": 7}
        )
        == want
    )
    assert settings_text(
        {"agents": ["random"], "players": 3, "rounds": 1, "deals": 2, "seed": 0}
    ).startswith("agents random; 3 players, 1 round, 2 test deals")
    assert titles.count(want) == 1  # the ratings figure's suptitle
    assert any(t.endswith("\n" + want) for t in titles)  # the win-rate plot's title


def test_the_cli_prints_a_one_sided_warning_as_one_line(tmp_path, capsys):
    """All-digger rounds are one-sided (> 99%); the command says so in one line, not as a
    Python warning with its source line."""
    from saboteur_experiments.tournament import main

    main(
        [
            "--agents",
            "heuristic",
            "--players",
            "3",
            "--deals",
            "3",
            "--rounds",
            "1",
            "--workers",
            "1",
            "--role-override",
            "all-digger",
            "--bootstrap",
            "5",
            "--no-progress",
            "--no-plots",
            "--out",
            str(tmp_path / "t"),
        ]
    )
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if "warning" in x.lower()]
    assert lines and all(x.startswith("saboteur tournament: warning: ") for x in lines)
    assert "99%" in lines[0] and "tournament(opts)" not in err


def test_the_cli_prints_the_one_sided_warning_once_on_stderr(tmp_path, capsys):
    """Case T9: the one-sided warning is a warning: printed once, on stderr, and not again in
    the summary on stdout; the saved summary (summary.json) keeps it."""
    from saboteur_experiments.tournament import main

    out = tmp_path / "t"
    main(
        [
            *("--agents", "heuristic", "--players", "3", "--deals", "3", "--rounds", "1"),
            *("--workers", "1", "--role-override", "all-digger", "--bootstrap", "5"),
            *("--no-progress", "--no-plots", "--out", str(out)),
        ]
    )
    cap = capsys.readouterr()
    (msg,) = json.loads((out / "summary.json").read_text())["warnings"]
    assert msg.startswith("the gold was found in 100.0% of 3 rounds (> 99%): ")
    assert cap.err.splitlines().count(f"saboteur tournament: warning: {msg}") == 1
    assert (cap.out + cap.err).count(msg) == 1
    # so few resamples: a note that the intervals are rough
    assert "saboteur tournament: note: --bootstrap 5: intervals from fewer than 100" in cap.err
    assert "WARNING" not in cap.out and "team rating" in cap.out

    # no one was a saboteur: that rate has no value, written as null (strict JSON: a bare NaN
    # is refused by JSON.parse and jq) and shown as "-", never "nan%"
    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    strict = json.loads((out / "summary.json").read_text(), parse_constant=refuse)
    sab = strict["agents"]["heuristic"]["roles"]["saboteur"]
    assert sab["n"] == 0 and sab["rate"] is None and sab["wins"] == 0
    assert "nan" not in cap.out.lower() and "- (n=0)" in cap.out


def test_the_cli_names_each_ppo_checkpoint_it_plays(tmp_path, capsys):
    """One line per distinct checkpoint file the ppo specs load (the shipped one of the game
    for 'ppo'), with its size and sha256, before the results; summary.json keeps them."""
    pytest.importorskip("torch")
    import hashlib
    import json
    import shutil

    from saboteur_agents.ppo import SHIPPED
    from saboteur_experiments.tournament import ppo_checkpoints

    copy = tmp_path / "copy.pt"
    shutil.copy(SHIPPED["base"], copy)
    out = tmp_path / "t"
    specs = ["random", "ppo", "ppo:greedy", f"ppo:avg={SHIPPED['base']}|{copy}"]
    main(
        [
            "--agents",
            ",".join(specs),
            "--players",
            "4",
            "--deals",
            "1",
            "--rounds",
            "1",
            "--workers",
            "1",
            "--out",
            str(out),
            "--bootstrap",
            "10",
            "--no-progress",
            "--no-plots",
        ]
    )
    lines = capsys.readouterr().out.splitlines()
    want = []
    for path, users in ((SHIPPED["base"], specs[1:]), (copy, specs[3:])):
        data = path.read_bytes()
        sha = hashlib.sha256(data).hexdigest()[:12]
        want.append(
            f"ppo checkpoint {path.resolve()} ({len(data):,} bytes, sha256 {sha}): "
            + ", ".join(users)
            # trained on 5-player one-round games (its metadata): played here at 4, said so
            + " (note: trained on 5-player 1-round games, played here in 4-player 1-round games)"
        )
    assert lines[:2] == want  # first, before the results
    assert not any(line.startswith("ppo checkpoint") for line in lines[2:])
    meta = json.loads((out / "summary.json").read_text())["meta"]
    assert [c["path"] for c in meta["ppo_checkpoints"]] == [
        str(SHIPPED["base"].resolve()),
        str(copy.resolve()),
    ]
    # the shipped checkpoint follows the game; no ppo spec, no line
    (sab2,) = ppo_checkpoints(["ppo", "random"], 5, expansion=True)
    assert sab2["path"] == str(SHIPPED["saboteur_2"].resolve()) and sab2["agents"] == ["ppo"]
    assert sab2["bytes"] == SHIPPED["saboteur_2"].stat().st_size
    assert sab2["trained"] == {"players": 5, "rounds": 1}
    assert ppo_checkpoints(["random", "heuristic"], 5) == []


@pytest.mark.filterwarnings("ignore::saboteur_experiments.tournament.OneSidedWarning")
def test_the_failure_statistics_print_as_a_labelled_table(tmp_path):
    """The summary's failure statistics: one header of named columns, then one row per agent
    whose numbers are the summary's per-100-round figures, column by column, in that order."""
    from saboteur_experiments.tournament import Options, tournament

    opts = Options(
        agents=["random", "heuristic"],
        players=4,
        deals=2,
        rounds=1,
        workers=1,
        out=str(tmp_path),
        bootstrap=10,
        plots=False,
        progress=False,
    )
    _, summary = tournament(opts)
    lines = format_summary(summary).splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("failure statistics"))
    header = lines[head + 1].split("  ")
    labels = [h.strip() for h in header if h.strip()]
    from saboteur_experiments.evaluation.failures import COUNTER_LABELS

    assert labels == ["agent", *COUNTER_LABELS.values()]
    assert labels[1] == "rockfall discarded (digger)" and labels[-1] == "win available"
    keys = list(COUNTER_LABELS)
    for k, agent in enumerate(["random", "heuristic"]):
        cells = lines[head + 2 + k].split()
        stats = summary["failures"]["agents"][agent]
        assert cells[0] == agent
        assert cells[1:] == [f"{stats[key]['per_100_rounds']:.1f}" for key in keys]
    # every number ends under the end of its label
    ends = [lines[head + 1].index(lab) + len(lab) for lab in labels[1:]]
    row = lines[head + 2]
    assert [row.index(c, e - len(c)) + len(c) for c, e in zip(row.split()[1:], ends)] == ends


def test_a_tournament_of_one_agent_says_its_ratings_say_nothing(tmp_path, capsys):
    from saboteur_experiments.tournament import main

    for agents, said in (("random", True), ("random,heuristic", False)):
        out = tmp_path / agents.replace(",", "-")
        small = ["--deals", "1", "--players", "3", "--rounds", "1", "--no-progress", "--no-plots"]
        main(["--agents", agents, *small, "--out", str(out)])
        err = capsys.readouterr().err
        assert ("note: every seat plays 'random'; its ratings say nothing" in err) == said


def test_the_default_out_folder_depends_on_the_game(tmp_path, monkeypatch, capsys):
    """Without --out a base tournament writes runs/tournament and a Saboteur 2 one
    runs/tournament-expansion: a newcomer's second tournament, of the other game, is not
    refused for the first one's results."""
    from saboteur_experiments.tournament import main

    monkeypatch.chdir(tmp_path)
    small = ["--agents", "random", "--deals", "1", "--rounds", "1", "--players", "3"]
    for extra in ([], ["--expansion"]):
        main([*small, *extra, "--workers", "1", "--no-plots", "--no-progress"])
    assert (tmp_path / "runs" / "tournament" / "summary.json").is_file()
    assert (tmp_path / "runs" / "tournament-expansion" / "summary.json").is_file()
    summary = json.loads((tmp_path / "runs" / "tournament-expansion" / "summary.json").read_text())
    assert summary["meta"]["expansion"] is True
