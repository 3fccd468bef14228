"""The expansion (Saboteur 2) track of the bluff benchmark: role deck, exact prior, hat swaps,
a tiny end-to-end run."""

from __future__ import annotations

import numpy as np
import pytest

from saboteur_env.engine.cards import BOSS, GEOLOGIST, X_SABOTEUR
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import EventType
from saboteur_env.engine.state import Event, EventData
from saboteur_experiments.bluff import BoundDetector, run, score_record
from saboteur_experiments.bluff.detectors import (
    PriorDetector,
    UniformDetector,
    exact_prior,
    feasible_count_bounds,
    role_deck,
    saboteur_index,
)

DECK = np.array([4, 4, 1, 1, 2, 3], float)


def cfg(n=5):
    return GameConfig(num_players=n, expansion=True)


def test_expansion_role_deck_and_saboteur_column():
    assert role_deck(cfg()).tolist() == [4, 4, 1, 1, 2, 3]
    assert role_deck(cfg(12)).sum() == 15
    assert saboteur_index(cfg()) == X_SABOTEUR == 5
    assert saboteur_index(GameConfig(num_players=5)) == 1


def test_expansion_prior_by_hand():
    # spectator: every seat's marginal is the deck's counts / 15
    sp = exact_prior(cfg())
    assert sp.shape == (5, 6)
    np.testing.assert_allclose(sp, np.tile(DECK / 15, (5, 1)))
    # in-seat, own role boss: the 14 other cards, 4/4/0/1/2/3
    b = exact_prior(cfg(), seat=2, own_role=BOSS)
    np.testing.assert_allclose(b[2], np.eye(6)[BOSS])
    for s in (0, 1, 3, 4):
        np.testing.assert_allclose(b[s], np.array([4, 4, 0, 1, 2, 3]) / 14)
    np.testing.assert_allclose(b.sum(axis=1), 1)
    # after a Swap your hats on the observer (boss -> geologist): 13 cards left for the others
    b2 = exact_prior(cfg(), seat=2, own_role=GEOLOGIST, held=[BOSS, GEOLOGIST])
    np.testing.assert_allclose(b2[0], np.array([4, 4, 0, 1, 1, 3]) / 13)
    np.testing.assert_allclose(b2.sum(axis=1), 1)


def test_expansion_feasible_bounds():
    lo, hi = feasible_count_bounds(cfg())
    assert lo.tolist() == [0] * 6 and hi.tolist() == [4, 4, 1, 1, 2, 3]
    lo, hi = feasible_count_bounds(cfg(12))  # 12 of 15 cards: at most 3 of a role missing
    assert lo.tolist() == [1, 1, 0, 0, 0, 0] and hi.tolist() == [4, 4, 1, 1, 2, 3]
    lo, hi = feasible_count_bounds(cfg(), seat=0, own_role=BOSS)
    assert lo[BOSS] == hi[BOSS] == 1


def test_hat_swap_reconditions_prior_without_forgetting_the_round():
    d = PriorDetector()
    bd = BoundDetector(d, "in-seat", 2, cfg(), BOSS)
    bd.feed(Event("round_start", None, EventData({"round": 0, "first_player": 0}), None))
    bd.feed(Event("role_dealt", 2, EventData({"role": BOSS}), 2))
    b, ok = bd.belief()
    assert ok and b[0, BOSS] == 0
    bd.feed(Event("role_dealt", 2, EventData({"role": GEOLOGIST, "swapped": True}), 2))
    b, ok = bd.belief()
    assert ok and bd.own_role == GEOLOGIST and d.held == [BOSS, GEOLOGIST]
    np.testing.assert_allclose(b[0], np.array([4, 4, 0, 1, 1, 3]) / 13)
    u = UniformDetector()
    u.reset(None, cfg(), None)
    assert u.belief().shape == (5, 6)


def test_the_thefts_are_not_scored():
    """RULES 5.1, 6.9: every role is face up during the Saboteur 2 thefts (the
    ``round_scored`` event tells them), so no belief is scored at a theft decision: one row
    per seat at every other decision (fix: the thieves' decisions were scored too)."""
    import io

    from saboteur_env import Codec, Game
    from saboteur_env.record import read_record, write_record

    c = GameConfig(num_players=5, expansion=True, num_rounds=1)
    g, codec = Game(c, 21), Codec(c)
    rng = np.random.default_rng(21)
    while not g.game_over:
        g.apply(codec.decode(int(rng.choice(np.flatnonzero(codec.mask(g)))), g.current, g.n))
    thefts = sum(e.type == EventType.THEFT for e in g.events)
    assert thefts > 0
    buf = io.StringIO()
    write_record(buf, g, 21, events=True)
    sink: dict = {}
    score_record(read_record(buf.getvalue()), 0, {"spectator": [("u", UniformDetector)]}, sink)
    assert len(sink[("spectator", "u")].arrays()["y"]) == 5 * (g.decisions - thefts)


def test_tiny_expansion_run_end_to_end(tmp_path):
    """A small Saboteur 2 run with every detector, the Bayes ones included, fitted
    leave-one-population-out, and the frontier (mimic and blatant references)."""
    s = run(
        players=[5],
        games=3,
        fit_games=2,
        pops=["random", "heuristic-blatant", "heuristic-mimic"],
        out=tmp_path,
        rounds=1,
        stride=2,
        bootstrap=50,
        plots=False,
        quiet=True,
        expansion=True,
    )
    assert s["expansion"] and not s["skipped_detectors"]
    assert s["fit_populations"]["heuristic-blatant"] == ["random", "heuristic-mimic"]
    cells = {(c["track"], c["detector"], c["population"]): c for c in s["cells"]}
    for track in ("spectator", "in-seat"):
        for det in ("uniform", "prior", "bayes", "bayes-fit", "logistic"):
            assert (track, det, "heuristic-blatant") in cells
    assert ("in-seat", "heuristic-belief", "random") in cells
    for pop in ("random", "heuristic-blatant", "heuristic-mimic"):
        assert cells[("spectator", "prior", pop)]["ll_skill"][0] == pytest.approx(0.0)
        for track in ("spectator", "in-seat"):
            assert cells[(track, "bayes", pop)]["infeasible"] == 0.0
            assert cells[(track, "bayes-fit", pop)]["infeasible"] == 0.0
    assert np.array(s["fit"]["random,heuristic-mimic"]["bayes_category_probs"]).shape == (6, 26)
    # blatant saboteurs are found: the hand-set Bayes detector beats the prior on them
    assert cells[("spectator", "bayes", "heuristic-blatant")]["ll_skill"][0] > 0.1
    front = {p["population"]: p for p in s["frontier"]}
    assert front["heuristic-mimic"]["win_rate_drop"][0] == pytest.approx(0.0)
    assert front["heuristic-blatant"]["on_frontier"]
    assert front["heuristic-mimic"]["detection"][0] == 0.0
    assert front["heuristic-blatant"]["detection"][0] == 1.0
    # random plays with its own gold-diggers: off the frontier, no detection or drop
    assert not front["random"]["on_frontier"]
    assert np.isnan(front["random"]["detection"]).all()
    assert np.isnan(front["random"]["win_rate_drop"]).all()
    assert not np.isnan(front["random"]["panel_skill"][0])
    assert (tmp_path / "summary.csv").exists()
    assert {p.name for p in (tmp_path / "records" / "paired").iterdir()} == {
        "random_x5",
        "heuristic-blatant_x5",
        "heuristic-mimic_x5",
    }


def test_expansion_plays_its_own_ppo_and_skips_a_base_checkpoint_with_a_reason(tmp_path):
    from saboteur_experiments.bluff import EXPANSION_POPULATIONS, fingerprint, population_problem

    # the expansion's populations play the Saboteur 2 checkpoint of their figures
    assert EXPANSION_POPULATIONS["ppo"] == "ppo:sab2-v1"
    assert population_problem(EXPANSION_POPULATIONS["ppo"], 5, expansion=True) is None
    assert population_problem(EXPANSION_POPULATIONS["heuristic-pposab"], 5, expansion=True) is None
    why = population_problem("rolesplit:heuristic/ppo:v1", 5, expansion=True)
    assert why and "CheckpointMismatchError" in why
    assert population_problem("heuristic:subtle", 5, expansion=True) is None
    # its records are named by the checkpoint it loads, not the base game's
    assert fingerprint("ppo", expansion=True) != fingerprint("ppo")


def test_oracle_scores_skill_one_on_the_expansion(tmp_path):
    """A detector given the true roles (following every Swap your hats) scores skill 1."""
    from saboteur_env.record import read_record, replay
    from saboteur_experiments.bluff import record_set, summarize
    from saboteur_experiments.bluff.detectors import OracleDetector

    sink: dict = {}
    swapped = 0
    for gi, p in enumerate(record_set(tmp_path, "random", 5, 3, rounds=2, expansion=True)):
        rec = read_record(p)
        deal: list = []
        swaps: list = []
        for st in replay(rec, copy=False):
            for e in st.events:
                if e.type == "round_start":
                    deal.append([0] * 5)
                    swaps.append([])
                elif e.type == "role_dealt" and e.data.get("swapped"):
                    swaps[-1].append((e.seat, int(e.data["role"])))
                elif e.type == "role_dealt":
                    deal[-1][e.seat] = int(e.data["role"])
        swapped += sum(map(len, swaps))

        def oracle(d=deal, w=swaps):
            return OracleDetector(d, w)

        score_record(
            rec,
            gi,
            {t: [("prior", PriorDetector), ("oracle", oracle)] for t in ("spectator", "in-seat")},
            sink,
        )
    assert swapped > 0  # the labels change mid-round in these games
    for track in ("spectator", "in-seat"):
        prior = sink[(track, "prior")].arrays()
        s = summarize(
            sink[(track, "oracle")].arrays(),
            prior,
            B=50,
            seed=0,
            threshold=0.5,
            sab=5,
            diggers=(0, 1),
        )
        assert s["ll_skill"][0] == pytest.approx(1.0)
        assert s["brier_skill"][0] == pytest.approx(1.0)
        assert s["false_accusation"] == 0.0


def test_mimic_saboteur_plays_as_the_boss():
    """Saboteur 2 ``rolesplit:heuristic/mimic``: a saboteur's turns go to the digger policy
    shown the boss card (RULES 6.9: the boss digs for either team)."""
    import saboteur_experiments.bluff.actors  # noqa: F401
    from saboteur_agents import make_agent
    from saboteur_env.engine.cards import BOSS

    a = make_agent("rolesplit:heuristic/mimic")
    a.reset(0, cfg(), seed=0)
    assert (a.sab, a.n_roles, a.disguise) == (X_SABOTEUR, 6, BOSS)
    ev = [
        Event("role_dealt", 0, EventData({"role": X_SABOTEUR}), 0),
        Event("role_dealt", 0, EventData({"role": GEOLOGIST, "swapped": True}), 0),
    ]
    assert [e.data["role"] for e in a._disguise(ev)] == [BOSS, GEOLOGIST]


def test_expansion_labels_follow_hat_swaps(tmp_path):
    """The label is the target's role at that moment: after a Swap your hats it changes, and
    not before (rows before the swap carry the role dealt, rows after it the new one)."""
    from saboteur_env.record import read_record, replay
    from saboteur_experiments.bluff import record_set

    paths = record_set(tmp_path, "random", 5, 6, expansion=True)
    checked = 0
    for p in paths:
        rec = read_record(p)
        dealt: dict[int, list[int]] = {}
        swaps = []
        for st in replay(rec, copy=False):
            dealt.setdefault(st.game.round, st.game.roles.tolist())
            swaps += [
                (st.game.round, e.seat, e.data["role"])
                for e in st.events
                if e.type == "role_dealt" and e.data.get("swapped")
            ]
        once = [w for w in swaps if sum(x[:2] == w[:2] for x in swaps) == 1]
        once = [(r, seat, role) for r, seat, role in once if dealt[r][seat] != role]
        if not once:
            continue
        sink: dict = {}
        score_record(rec, 0, {"spectator": [("prior", PriorDetector)]}, sink)  # rounds 0, 1, 2
        a = sink[("spectator", "prior")].arrays()
        for r, seat, role in once:
            ys = a["y"][(a["target"] == seat) & (a["round"] == r)]
            assert ys[0] == dealt[r][seat] and ys[-1] == role, (r, seat)
            assert int((np.diff(ys) != 0).sum()) == 1  # it changes once, at the swap
            checked += 1
    assert checked > 0, "no Swap your hats in six random games"


def test_every_population_plays_the_same_deals_from_the_project_splits():
    """Paired deals: the seeds depend on the split, the player count and --seed only (no
    population), test deals lie in the project's test split, fitting deals in train / dev."""
    from saboteur_experiments.bluff import record_seeds
    from saboteur_experiments.bluff.records import MAX_GAMES, MAX_SEED
    from saboteur_experiments.evaluation.splits import DEV, TEST, TRAIN

    for n in (2, 5, 12):
        for split, rng in (("test", TEST), ("train", TRAIN), ("dev", DEV)):
            seeds = record_seeds(MAX_SEED, n, split, MAX_GAMES)
            assert all(x in rng for x in seeds) and len(set(seeds)) == MAX_GAMES
    # player counts and --seed values never share a deal
    blocks = [set(record_seeds(s, n, "test", MAX_GAMES)) for s in (0, 1) for n in (2, 5, 12)]
    assert sum(map(len, blocks)) == len(set().union(*blocks))
    with pytest.raises(ValueError, match="1000"):
        record_seeds(0, 5, "test", MAX_GAMES + 1)
    with pytest.raises(ValueError, match="seed"):
        record_seeds(MAX_SEED + 1, 5, "test", 1)
