"""The expansion (Saboteur 2) track of the bluff benchmark: role deck, exact prior, hat swaps,
a tiny end-to-end run."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.bluff import BoundDetector, run, score_record
from experiments.detectors import (
    LogisticDetector,
    PriorDetector,
    UniformDetector,
    exact_prior,
    feasible_count_bounds,
    role_deck,
    saboteur_index,
)
from saboteur_env.cards import BOSS, GEOLOGIST, X_SABOTEUR
from saboteur_env.config import GameConfig
from saboteur_env.game import Event, EventData

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


def test_tiny_expansion_run_end_to_end(tmp_path):
    s = run(players=[5], games=7, pops=["random"], held_out="none", out=tmp_path, rounds=1,
            stride=2, bootstrap=50, plots=False, quiet=True, expansion=True)
    assert s["expansion"] and set(s["skipped_detectors"]) == {"bayes", "bayes-fit"}
    cells = {(c["track"], c["detector"]): c for c in s["cells"]}
    assert ("spectator", "bayes") not in cells
    assert {("spectator", "logistic"), ("in-seat", "logistic"), ("in-seat", "prior"),
            ("spectator", "uniform")} <= set(cells)
    assert cells[("spectator", "prior")]["ll_skill"][0] == pytest.approx(0.0)
    assert (tmp_path / "summary.csv").exists()
    assert list((tmp_path / "records").iterdir())[0].name == "random_x5"


def test_expansion_labels_follow_hat_swaps(tmp_path):
    """The label is the target's role at that moment: after a Swap your hats it changes."""
    from experiments.bluff import record_set
    from saboteur_env.record import read_record, replay

    paths = record_set(tmp_path, "random", 5, 6, expansion=True)
    found = False
    for gi, p in enumerate(paths):
        rec = read_record(p)
        swaps = [(st.index, e.seat, e.data["role"]) for st in replay(rec, copy=False)
                 for e in st.events if e.type == "role_dealt" and e.data.get("swapped")]
        if not swaps:
            continue
        sink: dict = {}
        score_record(rec, gi, {"spectator": [("prior", PriorDetector)]}, sink)
        a = sink[("spectator", "prior")].arrays()
        for _, seat, role in swaps:
            assert (a["y"][a["target"] == seat] == role).any()
        found = True
        break
    assert found, "no Swap your hats in six random games"
    assert LogisticDetector is not None
