"""The bluff-detection harness and metrics (saboteur_experiments.bluff)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import Event
from saboteur_env.record import read_record, replay, write_record
from saboteur_experiments.bluff import (
    BeliefError,
    BoundDetector,
    LeakError,
    Scored,
    record_set,
    run,
    score_record,
    summarize,
)
from saboteur_experiments.bluff import metrics as M
from saboteur_experiments.bluff.detectors import (
    Detector,
    OracleDetector,
    PriorDetector,
    UniformDetector,
)
from saboteur_experiments.bluff.report import PLOT_FILES


# --- metrics on hand-computed examples ---------------------------------------------------
def test_log_loss_and_brier_by_hand():
    P = np.array([[0.8, 0.2], [0.5, 0.5], [0.1, 0.9]])
    y = np.array([0, 1, 0])
    assert M.log_loss_rows(P, y) == pytest.approx([-np.log(0.8), np.log(2), -np.log(0.1)])
    assert M.brier_rows(P, y) == pytest.approx([0.04, 0.25, 0.81])
    w = np.array([1.0, 1.0, 2.0])
    assert M.wmean(M.brier_rows(P, y), w) == pytest.approx((0.04 + 0.25 + 1.62) / 4)
    # skill: a loss half the reference's is skill 0.5; the reference itself is 0
    assert M.skill(np.array([1.0, 1.0]), np.array([2.0, 2.0]), np.ones(2)) == 0.5
    assert M.skill(np.array([3.0]), np.array([3.0]), np.ones(1)) == 0.0


def test_round_weights_make_rounds_equal():
    w = M.round_weights(np.array([7, 7, 7, 7, 9]))
    assert w.tolist() == [0.25, 0.25, 0.25, 0.25, 1.0]


def test_auroc_by_hand():
    s = np.array([0.1, 0.4, 0.35, 0.8])
    y = np.array([0, 0, 1, 1])
    assert M.auroc(s, y) == pytest.approx(0.75)  # 3 of 4 positive-negative pairs ordered
    assert M.auroc(np.array([0.5, 0.5]), np.array([0, 1])) == 0.5  # ties count one half
    # weights act like repeated rows
    assert M.auroc(s, y, np.array([1, 1, 2, 1])) == pytest.approx(
        M.auroc(np.r_[s, 0.35], np.r_[y, 1])
    )
    assert np.isnan(M.auroc(s, np.zeros(4)))


def test_reliability_and_ece_by_hand():
    p = np.array([0.05, 0.05, 0.95, 0.95])
    y = np.array([0, 1, 1, 1])
    conf, freq, share, ece = M.reliability(p, y, np.ones(4), bins=10)
    assert conf[0] == pytest.approx(0.05) and freq[0] == 0.5 and share[0] == 0.5
    assert conf[9] == pytest.approx(0.95) and freq[9] == 1.0
    assert ece == pytest.approx(0.5 * 0.45 + 0.5 * 0.05)


def test_detection_times_and_survival():
    groups = np.array([0, 0, 0, 1, 1, 1])
    prog = np.array([0.0, 0.5, 0.9, 0.0, 0.5, 0.9])
    p = np.array([0.2, 0.6, 0.7, 0.1, 0.2, 0.3])
    ids, first = M.first_crossing(groups, prog, p, 0.5)
    assert first.tolist() == [0.5, np.inf]
    assert M.survival_curve(first, np.array([0.0, 0.5, 1.0])).tolist() == [1.0, 0.5, 0.5]


def test_bootstrap_reproducible():
    rng = np.random.default_rng(0)
    num, den = rng.random(30), np.ones(30)
    a = M.bootstrap_ratio(num, den, B=500, seed=3)
    b = M.bootstrap_ratio(num, den, B=500, seed=3)
    c = M.bootstrap_ratio(num, den, B=500, seed=4)
    assert a == b
    assert a != c
    assert a[1] < a[0] < a[2]
    assert a[0] == pytest.approx(num.mean())


# --- records and the harness -------------------------------------------------------------
@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("bluff")
    paths = record_set(out, "random", 4, 3, seed=5, rounds=2)
    return [read_record(p) for p in paths]


def test_record_round_trip_and_replay_identical(records):
    rec = records[0]
    states = list(replay(rec))
    final = states[-1].game
    # write the replayed game again: the same record; replay it again: the same states
    buf = io.StringIO()
    write_record(buf, final, rec.seed, rec.agents)
    again = read_record(buf.getvalue())
    assert again.decisions == rec.decisions and again.rounds == rec.rounds
    for s1, s2 in zip(states, replay(again)):
        g1, g2 = s1.game, s2.game
        assert g1.events == g2.events
        assert (g1.roles == g2.roles).all() and (g1.hands == g2.hands).all()
        assert (g1.board.var == g2.board.var).all()
    # the true roles of every round are in the record
    assert [r["roles"] for r in rec.rounds] == [r.roles for r in final.round_results]


def test_spectator_refuses_private_events():
    cfg = GameConfig(num_players=4)
    b = BoundDetector(UniformDetector(), "spectator", None, cfg)
    b.feed(Event("discarded", 1, {}))
    with pytest.raises(LeakError):
        b.feed(Event("map_result", 1, {"goal": 0, "identity": 0}, visible_to=1))
    s = BoundDetector(UniformDetector(), "in-seat", 1, cfg, 0)
    s.feed(Event("map_result", 1, {"goal": 0, "identity": 0}, visible_to=1))
    with pytest.raises(LeakError):
        s.feed(Event("card_drawn", 2, {"kind": 3}, visible_to=2))


class _Spy(Detector):
    name = "spy"
    seen: list = []

    def observe(self, event):
        _Spy.seen.append((self.seat, event.visible_to))
        super().observe(event)

    def belief(self):
        return np.full((self.n, self.n_roles), 0.5)


def test_harness_routes_only_visible_events(records):
    _Spy.seen = []
    score_record(records[0], 0, {"spectator": [("spy", _Spy)], "in-seat": [("spy", _Spy)]}, {})
    spect = [v for s, v in _Spy.seen if s is None]
    assert spect and all(v is None for v in spect)
    seat = [(s, v) for s, v in _Spy.seen if s is not None]
    assert any(v == s for s, v in seat)
    assert all(v is None or v == s for s, v in seat)


class _Bad(Detector):
    def belief(self):
        return np.full((self.n, self.n_roles), 0.6)


def test_harness_rejects_non_distributions_and_records_infeasible():
    cfg = GameConfig(num_players=10)
    with pytest.raises(BeliefError):
        BoundDetector(_Bad(), "spectator", None, cfg).belief()
    _, ok = BoundDetector(UniformDetector(), "spectator", None, cfg).belief()
    assert not ok  # 5 expected saboteurs, but at most 4 can be in play
    _, ok = BoundDetector(PriorDetector(), "in-seat", 3, cfg, 1).belief()
    assert ok
    from saboteur_experiments.bluff.harness import check_belief

    with pytest.raises(BeliefError, match=r"returned None, not a float array of shape \(3, 2\)"):
        check_belief(None, 3, 2)
    with pytest.raises(BeliefError, match=r"returned str 'abc', not a float array"):
        check_belief("abc", 3, 2)


def test_oracle_scores_skill_one_and_prior_zero(records):
    sink: dict = {}
    for i, rec in enumerate(records):
        oracle = [r["roles"] for r in rec.rounds]
        score_record(
            rec,
            i,
            {
                "spectator": [
                    ("prior", PriorDetector),
                    ("oracle", lambda o=oracle: OracleDetector(o)),
                ],
                "in-seat": [
                    ("prior", PriorDetector),
                    ("oracle", lambda o=oracle: OracleDetector(o)),
                ],
            },
            sink,
        )
    for track in ("spectator", "in-seat"):
        prior = sink[(track, "prior")].arrays()
        s_or = summarize(sink[(track, "oracle")].arrays(), prior, B=100, seed=0, threshold=0.5)
        s_pr = summarize(prior, prior, B=100, seed=0, threshold=0.5)
        assert s_or["ll_skill"][0] == pytest.approx(1.0)
        assert s_or["brier_skill"][0] == pytest.approx(1.0)
        assert s_pr["ll_skill"][0] == pytest.approx(0.0)
        assert s_or["false_accusation"] == 0.0
        assert s_or["infeasible"] == 0.0


def test_scored_rows_label_is_true_role_at_that_time(records):
    sink: dict = {}
    score_record(records[0], 0, {"spectator": [("uniform", UniformDetector)]}, sink)
    a = sink[("spectator", "uniform")].arrays()
    for r, res in enumerate(records[0].rounds):
        m = (a["round"] % 64) == r
        for t in range(4):
            assert set(a["y"][m & (a["target"] == t)]) == {res["roles"][t]}
    assert (a["progress"] >= 0).all() and (a["progress"] < 1).all()
    assert isinstance(Scored(), Scored)


def test_small_run_end_to_end(tmp_path):
    def small(plots):
        kw = dict(players=[3], games=4, fit_games=2, pops=["random"], bootstrap=100)
        return run(out=tmp_path, plots=plots, quiet=True, **kw)

    s = small(plots=False)
    cells = {(c["track"], c["detector"]): c for c in s["cells"]}
    assert cells[("spectator", "prior")]["ll_skill"][0] == pytest.approx(0.0)
    assert (tmp_path / "summary.csv").exists() and (tmp_path / "summary.json").exists()
    # frozen record sets: a second run reuses the same files
    files = sorted((tmp_path / "records").rglob("*.jsonl"))
    mtimes = [f.stat().st_mtime for f in files]
    s = small(plots=True)
    assert [f.stat().st_mtime for f in files] == mtimes
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == sorted(Path(f).name for f in s["plots"]) and set(pngs) <= set(PLOT_FILES)
    assert len(pngs) == len(PLOT_FILES)
    # a rerun without plots leaves none of the earlier run's beside its summary
    small(plots=False)
    assert not list(tmp_path.glob("*.png"))


def test_rolesplit_mimic_plays_like_a_digger_and_pareto():
    import saboteur_experiments.bluff.actors  # noqa: F401
    from saboteur_agents import make_agent
    from saboteur_experiments.bluff import pareto
    from saboteur_experiments.play import play_game

    res = play_game([make_agent("rolesplit:random/random") for _ in range(3)], 2, num_rounds=1)
    assert res["decisions"] > 0
    with pytest.raises(ValueError):
        make_agent("rolesplit:heuristic")
    pts = [
        {"win_rate_drop": (x,), "panel_skill": (y,)}
        for x, y in [(0.0, 0.0), (0.2, 0.9), (0.3, 0.3), (0.1, 0.5)]
    ]
    front = pareto(pts, key="panel_skill")
    assert [(p["win_rate_drop"][0], p["panel_skill"][0]) for p in front] == [(0.0, 0.0), (0.3, 0.3)]


def test_records_hold_every_event_with_visibility_and_roles(records):
    rec = records[1]
    assert rec.header["version"] >= 2 and rec.events
    assert any(e.visible_to is not None for _, e in rec.events)
    dealt = [e for _, e in rec.events if e.type == "role_dealt"]
    assert [e.data["role"] for e in dealt] == [r for res in rec.rounds for r in res["roles"]]
    final = list(replay(rec))[-1].game
    assert [e for _, e in rec.events] == final.events


def test_fingerprint_ties_ppo_record_sets_to_the_checkpoint(tmp_path):
    from saboteur_experiments.bluff import fingerprint

    ck = tmp_path / "a.pt"
    ck.write_bytes(b"one")
    f1 = fingerprint(f"rolesplit:heuristic/ppo:{ck}")
    ck.write_bytes(b"two")
    f2 = fingerprint(f"rolesplit:heuristic/ppo:{ck}")
    assert f1 != f2 and f1.startswith("rolesplit:heuristic/ppo:")
    assert fingerprint("heuristic:subtle") == "heuristic:subtle"


# --- the command line: bad options are usage errors (exit 2) before anything is written -----
@pytest.mark.parametrize(
    "args,named",
    [
        (["--players", "x"], "'x'"),
        (["--players", "3,,5"], "''"),
        (["--players", "11"], "11"),
        (["--players", "3,3"], "repeated"),
        (["--games", "1"], "1"),
        (["--games", "0"], "0"),
        (["--populations", "nope"], "'nope'"),
        (["--fit-games", "1"], "1"),
        (["--seed", "62"], "62"),
        (["--workers", "-1"], "-1"),
        (["--rounds", "0"], "0"),
        (["--stride", "0"], "0"),
        (["--threshold", "2"], "2"),
        (["--bootstrap", "0"], "0"),
        (["--seed", "-1"], "-1"),
        (["--ppo", "/nonexistent/x.pt"], "/nonexistent/x.pt"),
    ],
)
def test_bluff_cli_bad_options_are_usage_errors(tmp_path, capsys, args, named):
    from saboteur_experiments.bluff import main

    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        main([*args, "--out", str(out), "--no-plots"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "usage: saboteur bluff" in err and named in err
    assert not out.exists()  # nothing played or written


def test_bluff_cli_out_must_be_a_folder(tmp_path, capsys):
    from saboteur_experiments.bluff import main

    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(SystemExit) as e:
        main(["--out", str(f)])
    assert e.value.code == 2 and "--out" in capsys.readouterr().err


def test_record_sets_of_other_round_counts_are_not_reused(tmp_path):
    """A record set frozen with one --rounds is never handed out for another."""
    one = record_set(tmp_path, "random", 3, 2, rounds=1)
    two = record_set(tmp_path, "random", 3, 2, rounds=2)
    assert [len(read_record(p).rounds) for p in one] == [1, 1]
    assert [len(read_record(p).rounds) for p in two] == [2, 2]
    assert record_set(tmp_path, "random", 3, 2, rounds=1) == one  # still frozen
    # a file under the default name that holds another game (an older version's) is refused
    three = record_set(tmp_path, "random", 3, 1, rounds=3)[0]
    three.write_text(one[0].read_text())
    with pytest.raises(ValueError, match="another game"):
        record_set(tmp_path, "random", 3, 1, rounds=3)


def test_round_ids_stay_unique_with_many_rounds(tmp_path):
    """Rounds weigh equally per round id: games of more than 64 rounds must not share ids."""
    rec = read_record(record_set(tmp_path, "random", 3, 1, rounds=65)[0])
    sink: dict = {}
    for gi in (0, 1):
        score_record(rec, gi, {"spectator": [("uniform", UniformDetector)]}, sink, stride=50)
    a = sink[("spectator", "uniform")].arrays()
    assert len(np.unique(a["round"])) == 2 * 65


def test_in_seat_only_detectors_are_refused_on_the_spectator_track():
    from saboteur_agents import make_agent
    from saboteur_experiments.bluff.detectors import AgentBeliefDetector

    det = AgentBeliefDetector(lambda: make_agent("heuristic"))
    with pytest.raises(ValueError, match="in-seat"):
        BoundDetector(det, "spectator", None, GameConfig(num_players=5))
    b = BoundDetector(
        AgentBeliefDetector(lambda: make_agent("heuristic")),
        "in-seat",
        2,
        GameConfig(num_players=5),
        0,
    )
    assert b.belief()[0].shape == (5, 2)


def test_bluff_cli_one_population_leaves_the_fitted_detectors_out(tmp_path, capsys):
    """One population: nothing to fit on without seeing it, so the fitted detectors are left
    out (with the reason) rather than scored on their own training population."""
    from saboteur_experiments.bluff import main

    argv = [
        "--players",
        "3",
        "--games",
        "3",
        "--fit-games",
        "2",
        "--populations",
        "random",
        "--rounds",
        "1",
        "--bootstrap",
        "20",
        "--no-plots",
        "--out",
        str(tmp_path),
    ]
    s = main(argv)
    assert s["fit_populations"] == {"random": []} and s["games"] == 3
    assert set(s["skipped_detectors"]) == {"bayes-fit", "logistic"}
    assert {c["detector"] for c in s["cells"]} & {"bayes-fit", "logistic"} == set()

    # summary.json is strict JSON: a metric with no value (no saboteur seen) is null, not NaN
    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    text = (tmp_path / "summary.json").read_text()
    assert json.loads(text, parse_constant=refuse)["games"] == 3 and "NaN" not in text
    assert "holds an earlier run" not in capsys.readouterr().err
    main(argv)  # again in the same --out: the records are reused, the summary replaced, told
    assert f"--out {tmp_path} holds an earlier run" in capsys.readouterr().err
