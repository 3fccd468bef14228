"""The bluff benchmark's second version: a proper, anchored frontier axis; paired deals;
leave-one-population-out fitting; deceivers from outside the detectors' code."""

from __future__ import annotations

import numpy as np
import pytest

from saboteur_env.record import read_record
from saboteur_experiments.bluff import (
    FITTED,
    Scored,
    panel_skill,
    record_set,
    run,
    score_record,
    summarize,
)
from saboteur_experiments.bluff import metrics as M
from saboteur_experiments.bluff.detectors import Detector, PriorDetector
from saboteur_experiments.bluff.records import record_seeds
from saboteur_experiments.evaluation.splits import DEV, TEST, TRAIN

POPS = ["heuristic-blatant", "heuristic-mimic", "heuristic-subtle"]


class AccuseEveryone(Detector):
    """P(saboteur) = 1 for every player."""

    name = "accuse"

    def reset(self, seat, config, own_role) -> None:
        self.n, self.k, self.sab = (
            config.num_players,
            config.ruleset.n_roles,
            config.ruleset.saboteur,
        )

    def observe(self, event) -> None:
        pass

    def belief(self) -> np.ndarray:
        b = np.zeros((self.n, self.k))
        b[:, self.sab] = 1.0
        return b


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("bluff2")
    s = run(
        players=[5],
        games=4,
        fit_games=2,
        pops=POPS,
        out=out,
        rounds=1,
        stride=2,
        bootstrap=200,
        plots=False,
        quiet=True,
    )
    return out, s


def test_accusing_everyone_scores_below_the_exact_prior(tmp_path):
    """The all-player proper score punishes accusing everyone; the old axis (log-loss skill on
    the true saboteurs only) rewarded it."""
    paths = record_set(tmp_path, "heuristic-blatant", 5, 3, rounds=1)
    sink: dict = {}
    facs = {"spectator": [("prior", PriorDetector), ("accuse", AccuseEveryone)]}
    for i, p in enumerate(paths):
        score_record(read_record(p), i, facs, sink, stride=3)
    prior = sink[("spectator", "prior")].arrays()
    acc = sink[("spectator", "accuse")].arrays()
    s = summarize(acc, prior, B=50, seed=0, threshold=0.5)
    assert s["ll_skill"][0] < 0 and s["brier_skill"][0] < 0
    # the frontier's panel score (all players) of this detector alone: below the prior's 0
    sums = s["_game_sums"][1][:, None, :2]
    assert panel_skill(sums) < 0
    ps = summarize(prior, prior, B=50, seed=0, threshold=0.5)
    assert panel_skill(ps["_game_sums"][1][:, None, :2]) == pytest.approx(0.0)
    # restricted to the true saboteurs (not a proper score) it would look perfect
    m = acc["y"] == 1
    w = M.round_weights(acc["round"])
    ll, llp = M.log_loss_rows(acc["P"], acc["y"]), M.log_loss_rows(prior["P"], prior["y"])
    assert M.skill(ll[m], llp[m], w[m]) == pytest.approx(1.0)
    assert isinstance(Scored(), Scored)


def test_frontier_is_anchored_at_mimic_zero_and_blatant_one(small):
    _, s = small
    front = {p["population"]: p for p in s["frontier"]}
    assert front["heuristic-mimic"]["detection"] == (0.0, 0.0, 0.0)
    assert front["heuristic-blatant"]["detection"] == (1.0, 1.0, 1.0)
    sub = front["heuristic-subtle"]
    assert sub["paired"] and sub["detection"][1] <= sub["detection"][0] <= sub["detection"][2]
    assert set(sub["panel"]) == {"bayes", "bayes-fit", "logistic"}
    # the unanchored score: blatant saboteurs are found, the mimic's sit near the prior (the
    # panel reads digger-like play as evidence, so slightly below 0); the anchor span is wide
    m, b = front["heuristic-mimic"]["panel_skill"], front["heuristic-blatant"]["panel_skill"]
    assert b[0] > 0.1 and abs(m[0]) < 0.5 * (b[0] - m[0]), (m, b)
    assert front["heuristic-mimic"]["win_rate_drop"][0] == 0.0


def test_paired_populations_share_deal_seeds_and_role_assignments(small):
    out, s = small
    seeds, roles = {}, {}
    for pop in POPS:
        recs = [
            read_record(p) for p in sorted((out / "records" / "paired" / f"{pop}_n5").glob("*"))
        ]
        seeds[pop] = sorted(r.seed for r in recs)
        roles[pop] = {r.seed: [x["roles"] for x in r.rounds] for r in recs}
    # the comparison holds the gold-digger policy fixed
    assert {s["policies"][p]["digger"] for p in POPS} == {"heuristic"}
    assert s["policies"]["heuristic-mimic"]["saboteur"] == "mimic"
    first = POPS[0]
    for pop in POPS[1:]:
        assert seeds[pop] == seeds[first]
        assert roles[pop] == roles[first]
    test = record_seeds(0, 5, "test", 4)
    assert set(test) <= set(seeds[first]) and all(x in TEST for x in test)
    assert all(x in TRAIN for x in record_seeds(0, 5, "train", 2))
    assert all(x in DEV for x in record_seeds(0, 5, "dev", 2))
    assert s["deals"]["test"]["5"] == [test[0], test[-1]]


def test_leave_one_population_out_never_scores_a_detector_on_its_fit(small):
    _, s = small
    for pop in POPS:
        assert s["fit_populations"][pop] == [q for q in POPS if q != pop]
    fitted_cells = [c for c in s["cells"] if c["detector"] in FITTED]
    assert {(c["population"], c["track"]) for c in fitted_cells} == {
        (p, t) for p in POPS for t in ("spectator", "in-seat")
    }
    for c in s["cells"]:
        assert c["population"] not in c["fitted_on"]
        if c["detector"] in FITTED:
            assert c["fitted_on"] == s["fit_populations"][c["population"]]
        else:
            assert c["fitted_on"] == []
    # one fit per scored population, each on the other populations only
    assert set(s["fit"]) == {",".join(q for q in POPS if q != p) for p in POPS}


def test_rolesplit_hosts_a_search_saboteur():
    """``ismcts`` needs the live game: the rolesplit actor passes attach_game on."""
    import saboteur_experiments.bluff.actors  # noqa: F401
    from saboteur_agents import make_agent
    from saboteur_experiments.play import play_game

    agents = [
        make_agent("rolesplit:heuristic/ismcts:iters=2+top=2+rollout=random") for _ in range(4)
    ]
    res = play_game(agents, 2_000_003, num_rounds=1)
    assert res["decisions"] > 0
    assert all(a.needs_game and a.subs[1].game is not None for a in agents)
    assert not make_agent("rolesplit:heuristic/mimic").needs_game


def test_evasive_saboteur_plays_a_near_best_move_the_detector_suspects_least():
    """The adversarial deceiver: only moves within its margin of the heuristic's best, the
    least suspicious one to the Bayes detector; margin 0 plays the heuristic's best."""
    import saboteur_experiments.bluff.actors  # noqa: F401
    from saboteur_agents import make_agent
    from saboteur_experiments.play import play_game

    with pytest.raises(ValueError, match="margin"):
        make_agent("evasive:margin=-1")
    with pytest.raises(ValueError, match="bad option"):
        make_agent("evasive:x=1")
    wide = [make_agent("rolesplit:heuristic/evasive:margin=0.5") for _ in range(5)]
    play_game(wide, 2_000_001, num_rounds=2)
    subs = [a.subs[1] for a in wide]
    assert sum(e.decisions for e in subs) > 0 and sum(e.evasions for e in subs) > 0
    # margin 0: the heuristic's own choice (the same game as the heuristic saboteur)
    zero = play_game(
        [make_agent("rolesplit:heuristic/evasive:margin=0") for _ in range(5)],
        2_000_001,
        num_rounds=2,
    )
    same = play_game(
        [make_agent("rolesplit:heuristic/heuristic") for _ in range(5)], 2_000_001, num_rounds=2
    )
    assert [r.gold_found for r in zero["rounds"]] == [r.gold_found for r in same["rounds"]]


def test_worker_processes_do_not_change_the_results(small):
    """``workers=2`` (spawned workers, single-threaded BLAS) gives the same numbers as one
    process (single-threaded BLAS there too), bit for bit, on the same frozen records (with a
    multi-threaded BLAS in-process they differed by about 1e-8, AUROCs in the 4th decimal)."""
    out, s1 = small
    s2 = run(
        players=[5],
        games=4,
        fit_games=2,
        pops=POPS,
        out=out,
        rounds=1,
        stride=2,
        bootstrap=200,
        plots=False,
        quiet=True,
        workers=2,
    )
    key = lambda c: (c["track"], c["detector"], c["population"])  # noqa: E731
    a = {key(c): c["ll_skill"] for c in s1["cells"]}
    b = {key(c): c["ll_skill"] for c in s2["cells"]}
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=str(k))  # NaN equals NaN here
    fa = {p["population"]: p["detection"] for p in s1["frontier"]}
    fb = {p["population"]: p["detection"] for p in s2["frontier"]}
    assert fa.keys() == fb.keys()
    for k in fa:
        np.testing.assert_array_equal(fa[k], fb[k], err_msg=k)


def test_panel_rows_are_placed_by_deal_not_by_order():
    """A deal with no scored decision (e.g. a large --stride) left the rows of the later deals
    one place early against the deal weights and the anchors' rows; now every row sits at its
    deal (zeros where nothing was scored)."""
    from saboteur_experiments.bluff.report import _by_deal

    sums = np.arange(8, dtype=float).reshape(2, 2, 2)
    out = _by_deal((np.array([0, 2]), sums), 3)
    assert out.shape == (3, 2, 2)
    np.testing.assert_array_equal(out[0], sums[0])
    np.testing.assert_array_equal(out[1], 0)
    np.testing.assert_array_equal(out[2], sums[1])
    with pytest.raises(ValueError, match="outside 0..2"):
        _by_deal((np.array([0, 3]), sums), 3)


def _blas_threads(_):
    from threadpoolctl import threadpool_info

    return sorted({int(p["num_threads"]) for p in threadpool_info() if p["user_api"] == "blas"})


def test_in_process_work_runs_with_one_blas_thread_like_the_workers():
    """``workers=1`` fits in this process with one BLAS thread, as each spawned worker does: a
    multi-threaded BLAS sums in another order (``--workers 1`` moved AUROCs in the fourth
    decimal against ``--workers 2`` on a 10-game run), and the thread count comes back after."""
    from threadpoolctl import threadpool_info

    from saboteur_experiments.bluff.pipeline import _map

    before = sorted({int(p["num_threads"]) for p in threadpool_info() if p["user_api"] == "blas"})
    assert list(_map(_blas_threads, [0, 1], jobs=1)) == [[1], [1]]
    after = sorted({int(p["num_threads"]) for p in threadpool_info() if p["user_api"] == "blas"})
    assert after == before
