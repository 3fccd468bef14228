"""PPO self-play training (issue 5): end-to-end run, reward crediting, the opponent pool and the
MaskablePPO interop example."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.network import PolicyValueNet, env_spec, load_checkpoint  # noqa: E402
from experiments.train import (  # noqa: E402
    Collector,
    OpponentPool,
    TrainConfig,
    gae,
    train,
)
from saboteur_env import build_state  # noqa: E402
from saboteur_env.cards import GOAL_GOLD  # noqa: E402
from saboteur_env.config import GameConfig  # noqa: E402
from saboteur_env.game import PlacePath  # noqa: E402

torch.set_num_threads(1)
STRAIGHT_EW = 1  # card kind 1: the straight east-west tunnel


def tiny(cfg: TrainConfig) -> PolicyValueNet:
    torch.manual_seed(0)
    return PolicyValueNet(env_spec(cfg.game_config()), channels=8, hidden=32,
                          conv_layers=2).eval()


def test_tiny_training_run_end_to_end(tmp_path):
    cfg = TrainConfig(num_envs=4, steps_per_iter=120, iterations=2, epochs=2, minibatch=64,
                      channels=8, hidden=32, conv_layers=2, snapshot_every=1,
                      pool_heuristic=0.0, eval_every=0, checkpoint_every=1,
                      out=str(tmp_path / "run"), progress=False, seed=3,
                      bc_decisions=60, bc_epochs=1)
    res = train(cfg)
    rows = list(csv.DictReader(open(tmp_path / "run" / "metrics.csv")))
    assert len(rows) == 2
    assert int(rows[-1]["learning_decisions"]) >= 240
    for r in rows:
        for k in ("policy_loss", "value_loss", "entropy", "approx_kl"):
            assert math.isfinite(float(r[k])), (k, r[k])
        assert float(r["decisions_per_s"]) > 0
        assert r["win_gold-digger"] != "" and r["win_saboteur"] != ""
    net, meta = load_checkpoint(res["checkpoint"])
    assert meta["train_config"]["seed"] == 3
    assert (tmp_path / "run" / "checkpoints" / "iter_0002.pt").exists()
    bc = json.loads((tmp_path / "run" / "bc.json").read_text())
    assert bc["bc_decisions"] >= 60 and math.isfinite(bc["bc_ce"])
    assert (tmp_path / "run" / "learning_curve.png").stat().st_size > 0
    # TensorBoard-compatible logs (the train extra installs tensorboard): the scalars read back
    ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    acc = ea.EventAccumulator(str(tmp_path / "run" / "tb"))
    acc.Reload()
    ent = acc.Scalars("entropy")
    assert [e.step for e in ent] == [int(r["learning_decisions"]) for r in rows]
    assert ent[-1].value == pytest.approx(float(rows[-1]["entropy"]), rel=1e-5)


def test_gae_terminal():
    adv, ret = gae(np.array([0, 0, 1.0]), np.array([0.5, 0.5, 0.5]), gamma=1.0, lam=1.0)
    assert np.allclose(ret, [1, 1, 1]) and np.allclose(adv, [0.5, 0.5, 0.5])


def test_reward_credited_to_the_right_seat_and_step():
    """Round 0 is hand-built so that seat 0 reaches the gold with its first decision: the round
    ends before any other seat acts.  Seat 0's reward lands on that decision; the other learning
    seats have no decision yet, so their round-0 rewards are counted as uncredited; round 1 is
    played out and each seat's round-1 reward lands on its last decision."""
    cfg = TrainConfig(num_envs=1, num_rounds=2, reward="win", pool_heuristic=0.0)
    net = tiny(cfg)
    pool = OpponentPool({"current": 1.0}, heuristic_available=False)
    col = Collector(cfg, net, pool, np.random.default_rng(0), torch.Generator().manual_seed(0))
    config = GameConfig(num_players=5, num_rounds=2, reward="win")
    # tunnel from the start to (6, 0): crosses, T-pieces and straights (each joins E and W)
    board = [(1, 0, 6, False), (2, 0, 6, False), (3, 0, 5, False), (4, 0, 5, True),
             (5, 0, 6, False), (6, 0, STRAIGHT_EW, False)]
    game = build_state(config, roles=[0, 1, 0, 0, 1],
                       hands=[[STRAIGHT_EW]] + [[0, "map"]] * 4,
                       board=board, goals=(1, GOAL_GOLD, 2), seed=1)
    players = ["current", "random", "current", "current", "current"]
    col.start_game(0, game=game, players=players)
    env = col.envs[0]
    # play the completing card by hand, through the collector's crediting path
    action = env.codec.encode(PlacePath(STRAIGHT_EW, 7, 0, False), 0, 5)
    assert env.observe("player_0")["action_mask"][action] == 1
    traj = col.trajs[0]
    from experiments.train import Step

    o = env.observe("player_0")
    traj.record(0, Step(o["observation"], o["action_mask"].astype(bool), action, 0.0, 0.0))
    col.step_env(0, action)
    assert env.game.round_results[0]["gold_found"]
    assert env.game.round == 1
    assert [s.reward for s in traj.steps[0]] == [1.0]       # seat 0 (gold-digger) won
    assert 1 not in traj.steps and 2 not in traj.steps      # nobody else has acted
    assert traj.uncredited == 3                             # seats 2, 3, 4 (seat 1 not learning)
    # play round 1 to the end with the collector (which then starts a new game)
    played = env.game
    before = len(col.finished)
    while len(col.finished) == before:
        col.tick()
    assert played.game_over and len(played.round_results) == 2
    winners_r1 = played.round_results[1]["winners"]
    by_seat = dict(zip([0, 2, 3, 4], col.finished[before:]))   # finished in seat order
    assert len(col.finished) - before == 4                       # four learning seats
    assert by_seat[0][0].reward == 1.0                           # round 0: its only decision
    for seat, steps in by_seat.items():
        assert len(steps) >= 2 if seat == 0 else len(steps) >= 1
        # round 1's reward on the seat's last decision, nothing in between
        assert steps[-1].reward == (1.0 if seat in winners_r1 else -1.0)
        middle = steps[1:-1] if seat == 0 else steps[:-1]
        assert all(st.reward == 0 for st in middle)


def test_pool_sampling_frequencies_match_configuration():
    spec = env_spec(GameConfig())
    torch.manual_seed(0)
    net = PolicyValueNet(spec, channels=4, hidden=8, conv_layers=1)
    weights = {"current": 0.4, "snapshots": 0.3, "heuristic": 0.1, "random": 0.2}
    pool = OpponentPool(weights, max_snapshots=2, heuristic_available=True)
    # without snapshots their share is spread over the others in proportion
    p0 = pool.probabilities()
    assert set(p0) == {"current", "heuristic", "random"}
    assert p0["current"] == pytest.approx(0.4 / 0.7)
    for i in range(3):
        pool.add_snapshot(f"s{i}", net)
    assert len(pool.snapshots) == 2 and pool.snapshots[0][0] == "s1"   # oldest dropped
    probs = pool.probabilities()
    assert probs == pytest.approx({"current": 0.4, "snapshot:0": 0.15, "snapshot:1": 0.15,
                                   "heuristic": 0.1, "random": 0.2})
    rng = np.random.default_rng(0)
    n = 40_000
    draws = pool.sample(rng, size=n)
    for key, p in probs.items():
        freq = draws.count(key) / n
        assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / n), (key, freq, p)
    # heuristic unavailable: its share goes to the rest
    pool2 = OpponentPool(weights, heuristic_available=False)
    assert "heuristic" not in pool2.probabilities()
    with pytest.raises(ValueError):
        OpponentPool({"bogus": 1.0})


def test_every_game_has_a_learning_seat_in_every_seat():
    cfg = TrainConfig(num_envs=1, pool_current=0.0, pool_snapshots=0.0, pool_heuristic=0.0,
                      pool_random=1.0)
    pool = OpponentPool({"current": 0.0, "random": 1.0}, heuristic_available=False)
    col = Collector(cfg, tiny(cfg), pool, np.random.default_rng(1),
                    torch.Generator().manual_seed(0))
    seats = []
    for _ in range(200):
        col.start_game(0)
        assert col.players[0].count("current") == 1
        seats.append(col.players[0].index("current"))
    assert set(seats) == set(range(5))


def test_maskable_ppo_example_no_illegal_actions():
    pytest.importorskip("sb3_contrib")
    from experiments.sb3_example import SingleAgentSaboteur, main

    res = main(["--steps", "256", "--n-steps", "128", "--eval-episodes", "2"])
    assert res["illegal_actions_train"] == 0 and res["illegal_actions_eval"] == 0
    assert math.isfinite(res["mean_reward"])
    env = SingleAgentSaboteur(["random"], seat=2)
    obs, info = env.reset(seed=0)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    from saboteur_env.game import IllegalActionError

    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.illegal_actions == 1


def test_tournament_eval_pairs_seats(tmp_path):
    from agents.network import save_checkpoint
    from experiments.train import tournament_eval

    cfg = TrainConfig()
    path = save_checkpoint(tmp_path / "t.pt", tiny(cfg), cfg.game_config())
    res = tournament_eval(f"ppo:{path}", "random", deals=2, seed=0)
    assert sum(r["n"] for r in res.values()) == 2 * 5          # deals x seats, one round
    for r in res.values():
        assert r["lo"] <= r["diff"] <= r["hi"] or math.isnan(r["lo"])
        assert r["diff"] == pytest.approx(r["candidate"] - r["baseline"])


def test_tournament_eval_breakdown_partitions_pairs(tmp_path):
    """The breakdown by who plays the other role splits every role's pairs exactly."""
    from agents.network import save_checkpoint
    from experiments.train import evaluate_checkpoint, tournament_eval

    cfg = TrainConfig()
    path = save_checkpoint(tmp_path / "t.pt", tiny(cfg), cfg.game_config())
    res = tournament_eval(f"ppo:{path}", "random", deals=3, seed=1, breakdown=True)
    parts = res.pop("breakdown")
    for role, r in res.items():
        mine = [p for k, p in parts.items() if k.startswith(role + " vs ")]
        assert sum(p["n"] for p in mine) == r["n"]
        assert sum(p["n"] * p["diff"] for p in mine) == pytest.approx(r["n"] * r["diff"])
        assert all(k.split(" vs ")[1] in ("candidate", "baseline", "both", "none")
                   for k in parts)
        assert -1 <= r["lo"] <= r["hi"] <= 1
    # the player count comes from the checkpoint (here 4 players: 4 pairs per deal)
    cfg4 = TrainConfig(num_players=4)
    path4 = save_checkpoint(tmp_path / "t4.pt", tiny(cfg4), cfg4.game_config())
    ev = evaluate_checkpoint(path4, deals=1, seed=1, baselines=("random",))
    assert ev["num_players"] == 4 and sum(r["n"] for k, r in ev["random"].items()
                                          if k != "breakdown") == 4
