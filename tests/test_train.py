"""PPO self-play training (DESIGN 6): end-to-end run, reward crediting, the opponent pool and the
MaskablePPO interop example."""

from __future__ import annotations

import csv
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import saboteur_env  # noqa: E402
from saboteur_agents.network import PolicyValueNet, env_spec, load_checkpoint  # noqa: E402
from saboteur_env import build_state  # noqa: E402
from saboteur_env.engine.cards import GOAL_GOLD  # noqa: E402
from saboteur_env.engine.config import GameConfig  # noqa: E402
from saboteur_env.engine.ruleset import BASE, SABOTEUR_2  # noqa: E402
from saboteur_env.engine.state import Game, PlacePath  # noqa: E402
from saboteur_experiments.train import (  # noqa: E402
    Collector,
    OpponentPool,
    TrainConfig,
    gae,
    train,
)

torch.set_num_threads(1)
STRAIGHT_EW = 1  # card kind 1: the straight east-west tunnel


def tiny(cfg: TrainConfig) -> PolicyValueNet:
    torch.manual_seed(0)
    return PolicyValueNet(env_spec(cfg.game_config()), channels=8, hidden=32, conv_layers=2).eval()


def test_tiny_training_run_end_to_end(tmp_path):
    cfg = TrainConfig(
        num_envs=4,
        steps_per_iter=120,
        iterations=2,
        epochs=2,
        minibatch=64,
        channels=8,
        hidden=32,
        conv_layers=2,
        snapshot_every=1,
        pool_heuristic=0.0,
        eval_every=0,
        checkpoint_every=1,
        out=str(tmp_path / "run"),
        progress=False,
        seed=3,
        bc_decisions=60,
        bc_epochs=1,
    )
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


def test_tiny_saboteur_2_training_run_on_the_batched_engine(tmp_path):
    """Saboteur 2 end to end: heuristic seats (fed routed events), PPO updates with finite
    losses, per-role training win rates of the expansion's roles, a checkpoint that fits the
    Saboteur 2 spaces and is refused by the base game."""
    from saboteur_agents.network import CheckpointMismatchError

    cfg = TrainConfig(
        expansion=True,
        num_envs=4,
        steps_per_iter=100,
        iterations=2,
        epochs=1,
        minibatch=64,
        channels=8,
        hidden=32,
        conv_layers=2,
        pool_heuristic=0.5,
        eval_every=0,
        checkpoint_every=0,
        out=str(tmp_path / "run"),
        progress=False,
        seed=4,
        bc_decisions=40,
        bc_epochs=1,
    )
    res = train(cfg)
    rows = list(csv.DictReader(open(tmp_path / "run" / "metrics.csv")))
    assert len(rows) == 2
    for r in rows:
        for k in ("policy_loss", "value_loss", "entropy", "approx_kl"):
            assert math.isfinite(float(r[k])), (k, r[k])
    assert {k for k in rows[0] if k.startswith("win_")} == {
        f"win_{name}" for name in GameConfig(expansion=True).ruleset.roles
    }
    net, meta = load_checkpoint(res["checkpoint"], GameConfig(num_players=5, expansion=True))
    assert meta["game_config"]["expansion"] is True
    assert net.n_actions == env_spec(GameConfig(num_players=5, expansion=True))["n_actions"]
    with pytest.raises(CheckpointMismatchError):
        load_checkpoint(res["checkpoint"], GameConfig(num_players=5))


def test_collector_feeds_each_seat_the_events_the_env_would(monkeypatch):
    """Through the collector's own loop (``tick``, across game ends and a round change), every
    heuristic seat's ``info`` events equal what the PettingZoo env's ``infos`` hold for that
    agent at the same decision, replaying the same deals and actions in ``raw_env``."""
    from saboteur_agents.heuristic import HeuristicAgent
    from saboteur_env.vector import VectorGame

    calls: list = []  # (seat, events) of every heuristic decision, in order
    original_act = HeuristicAgent.act

    def act(self, observation, action_mask, info=None):
        calls.append((self.seat, list(info["events"])))
        return original_act(self, observation, action_mask, info)

    seeds: list = []
    original_reset_game = VectorGame.reset_game

    def reset_game(self, i, seed):
        seeds.append(seed)
        return original_reset_game(self, i, seed)

    log: list = []  # (action, heuristic call or None, game ended) per step
    original_step = VectorGame.step

    def step(self, actions):
        done = len(calls) - sum(1 for _, c, _ in log if c is not None)
        original_step(self, actions)
        log.append((int(actions[0]), calls[-1] if done else None, bool(self.terminated[0])))

    monkeypatch.setattr(HeuristicAgent, "act", act)
    monkeypatch.setattr(VectorGame, "reset_game", reset_game)
    monkeypatch.setattr(VectorGame, "step", step)
    cfg = TrainConfig(num_envs=1, num_rounds=2, pool_current=0.0, pool_heuristic=1.0)
    pool = OpponentPool({"heuristic": 1.0}, heuristic_available=True)
    col = Collector(cfg, tiny(cfg), pool, np.random.default_rng(2), torch.Generator())
    while sum(ended for *_, ended in log) < 2:
        col.tick()
    env = saboteur_env.raw_env(num_players=5, num_rounds=2, reward="win")  # TrainConfig's
    game = 0
    env.reset(seed=seeds[game])
    compared = rounds = 0
    for action, call, ended in log:
        ag = env.agent_selection
        if call is not None:
            seat, events = call
            assert env.agent_name_mapping[ag] == seat
            assert events == env.infos[ag]["events"]
            compared += len(events)
        env.step(action)
        rounds += any(r for r in env.rewards.values())
        if ended:
            assert all(env.terminations.values())
            game += 1
            env.reset(seed=seeds[game])
    assert game == 2 and rounds >= 4 and compared > 200


def test_dev_score_weights_every_role_against_the_strongest_baseline():
    from saboteur_experiments.train import dev_score

    ev = {
        "heuristic_diff_gold-digger": 0.1,
        "heuristic_diff_saboteur": -0.3,
        "heuristic_lo_saboteur": -0.9,
        "random_diff_gold-digger": 0.5,
    }
    assert dev_score(ev) == pytest.approx(-0.1)
    assert dev_score({"random_diff_saboteur": 0.2, "random_diff_x": float("nan")}) == 0.2
    assert math.isnan(dev_score({}))


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
    board = [
        (1, 0, 6, False),
        (2, 0, 6, False),
        (3, 0, 5, False),
        (4, 0, 5, True),
        (5, 0, 6, False),
        (6, 0, STRAIGHT_EW, False),
    ]
    game = build_state(
        config,
        roles=[0, 1, 0, 0, 1],
        hands=[[STRAIGHT_EW]] + [[0, "map"]] * 4,
        board=board,
        goals=(1, GOAL_GOLD, 2),
        seed=1,
    )
    players = ["current", "random", "current", "current", "current"]
    col.start_game(0, game=game, players=players)
    vec = col.vec
    # play the completing card by hand, through the collector's crediting path
    action = vec.codec.encode(PlacePath(STRAIGHT_EW, 7, 0, False), 0, 5)
    assert vec.legal_action_mask[0, action]
    traj = col.trajs[0]
    from saboteur_experiments.train import Step

    traj.record(
        0, Step(vec.observation[0].copy(), vec.legal_action_mask[0].copy(), action, 0.0, 0.0)
    )
    played = vec.games[0]
    col.apply(np.array([action]))
    assert played.round_results[0].gold_found
    assert played.round == 1 and vec.games[0] is played
    assert [s.reward for s in traj.steps[0]] == [1.0]  # seat 0 (gold-digger) won
    assert 1 not in traj.steps and 2 not in traj.steps  # nobody else has acted
    assert traj.uncredited == 3  # seats 2, 3, 4 (seat 1 not learning)
    # play round 1 to the end with the collector (which then starts a new game)
    before = len(col.finished)
    while len(col.finished) == before:
        col.tick()
    assert played.game_over and len(played.round_results) == 2
    winners_r1 = played.round_results[1].winners
    by_seat = dict(zip([0, 2, 3, 4], col.finished[before:]))  # finished in seat order
    assert len(col.finished) - before == 4  # four learning seats
    assert by_seat[0][0].reward == 1.0  # round 0: its only decision
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
    assert len(pool.snapshots) == 2 and pool.snapshots[0][0] == "s1"  # oldest dropped
    probs = pool.probabilities()
    assert probs == pytest.approx(
        {"current": 0.4, "snapshot:0": 0.15, "snapshot:1": 0.15, "heuristic": 0.1, "random": 0.2}
    )
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
    cfg = TrainConfig(
        num_envs=1, pool_current=0.0, pool_snapshots=0.0, pool_heuristic=0.0, pool_random=1.0
    )
    pool = OpponentPool({"current": 0.0, "random": 1.0}, heuristic_available=False)
    col = Collector(
        cfg, tiny(cfg), pool, np.random.default_rng(1), torch.Generator().manual_seed(0)
    )
    seats = []
    for _ in range(200):
        col.start_game(0)
        assert col.players[0].count("current") == 1
        seats.append(col.players[0].index("current"))
    assert set(seats) == set(range(5))


def test_maskable_ppo_example_no_illegal_actions():
    pytest.importorskip("sb3_contrib")
    from saboteur_experiments.sb3_example import SingleAgentSaboteur, main

    res = main(["--steps", "256", "--n-steps", "128", "--eval-episodes", "2"])
    assert res["illegal_actions_train"] == 0 and res["illegal_actions_eval"] == 0
    assert math.isfinite(res["mean_reward"])
    env = SingleAgentSaboteur(["random"], seat=2)
    obs, info = env.reset(seed=0)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    from saboteur_env.engine.state import IllegalActionError

    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.illegal_actions == 1
    # the mask-less sample() draws a legal action of the learner, with the space's generator
    env.action_space.seed(4)
    draws = [int(env.action_space.sample()) for _ in range(20)]
    assert all(mask[a] for a in draws) and len(set(draws)) > 1


def test_maskable_ppo_example_repeats_its_evaluation_and_draws_its_splits(monkeypatch):
    """A rerun with the same seed reports the same figures (its evaluation games were
    unseeded: the first line's mean changed from run to run); training deals come from the
    train split, evaluation deals from dev, never test."""
    pytest.importorskip("sb3_contrib")
    import saboteur_experiments.sb3_example as ex
    from saboteur_experiments.evaluation.splits import split_of

    splits: dict[str, set] = {}
    real_reset = ex.SingleAgentSaboteur.reset

    def reset(self, *, seed=None, options=None):
        env_reset = self.env.reset

        def record(seed=None, options=None):  # the deal's seed, by the split it comes from
            splits.setdefault(self.split.name, set()).add(split_of(seed).name)
            return env_reset(seed=seed, options=options)

        self.env.reset = record
        try:
            return real_reset(self, seed=seed, options=options)
        finally:
            self.env.reset = env_reset

    monkeypatch.setattr(ex.SingleAgentSaboteur, "reset", reset)
    argv = ["--steps", "128", "--n-steps", "64", "--eval-episodes", "3", "--seed", "5"]
    first, second = ex.main(argv), ex.main(argv)
    assert first == second
    assert splits == {"train": {"train"}, "dev": {"dev"}}


def test_checkpoint_evaluation_is_a_role_probe_on_the_test_split(tmp_path):
    """``--evaluate`` is the role-probe protocol: per role, the checkpoint's win in the probe
    seat minus the reference's in the same seat of the same deal; the deals come from the
    test split; the player count from the checkpoint (here 4)."""
    from saboteur_agents.network import save_checkpoint
    from saboteur_experiments.evaluation.splits import TEST
    from saboteur_experiments.train import evaluate_checkpoint

    cfg4 = TrainConfig(num_players=4)
    path4 = save_checkpoint(tmp_path / "t4.pt", tiny(cfg4), cfg4.game_config())
    ev = evaluate_checkpoint(path4, deals=3, seed=1, baselines=("random",))
    assert ev["num_players"] == 4 and ev["split"] == "test" and ev["protocol"] == "role-probe"
    res = ev["against"]["random"]
    assert set(res["roles"]) == {"gold-digger", "saboteur"}
    for r in res["roles"].values():
        assert r["deals"] == 3 == r["diff"]["clusters"]
        assert r["diff"]["value"] == pytest.approx(
            r["candidate"]["value"] - r["reference"]["value"]
        )
        assert -1 <= r["diff"]["lo"] <= r["diff"]["value"] <= r["diff"]["hi"] <= 1
    assert res["split"] == "test" and 0 == TEST.start


# --- regressions: bad options, threads, --init, Ctrl-C, --evaluate, the interop example ----
def _usage_error(capsys, argv) -> str:
    """``saboteur ARGV`` must stop with a usage error (exit 2) before training anything."""
    from saboteur_experiments.cli import main

    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2, argv
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "usage:" in cap.err, cap.err
    return cap.err


def test_bad_train_options_name_the_option_and_value(capsys, tmp_path):
    """Zero/negative counts, rates outside their range, all-zero pool weights: a usage error
    naming option and value (was: --num-envs 0 looped forever, --minibatch 0 / --lr -1 /
    --steps-per-iter 0 were tracebacks, --gamma 2 / --threads 0 / --iterations -1 were run)."""
    out = tmp_path / "run"
    base = [
        "train",
        "--iterations",
        "1",
        "--num-envs",
        "1",
        "--steps-per-iter",
        "8",
        "--bc-decisions",
        "0",
        "--eval-every",
        "0",
        "--no-progress",
        "--out",
        str(out),
    ]
    for opt, value in (
        ("--minibatch", "0"),
        ("--minibatch", "1"),
        ("--lr", "-1"),
        ("--steps-per-iter", "0"),
        ("--epochs", "0"),
        ("--channels", "0"),
        ("--gamma", "2"),
        ("--threads", "0"),
        ("--iterations", "-1"),
        ("--seed", "-1"),
        ("--pool-random", "-1"),
        ("--bc-decisions", "-3"),
    ):
        err = _usage_error(capsys, [*base, opt, value])
        assert f"{opt} {value}" in err.replace(".0:", ":"), (opt, err)
    err = _usage_error(capsys, [*base, "--reward", "bogus"])
    assert "--reward bogus" in err and "'gold' or 'win'" in err
    err = _usage_error(capsys, [*base, "--init", str(tmp_path / "nope.pt")])
    assert "--init" in err and "nope.pt" in err and "no such checkpoint" in err
    (tmp_path / "junk.pt").write_bytes(b"junk")
    err = _usage_error(capsys, [*base, "--init", str(tmp_path / "junk.pt")])
    assert "--init" in err and "cannot be read" in err
    assert not out.exists()  # nothing written
    # the API refuses them too (num_envs=0 used to hang in the collector)
    for bad in (
        {"num_envs": 0},
        {"num_envs": -2},
        {"pool_current": 0.0, "pool_snapshots": 0.0, "pool_heuristic": 0.0, "pool_random": 0.0},
    ):
        cfg = TrainConfig(out=str(out), progress=False, **bad)
        assert cfg.problems()
        with pytest.raises(ValueError, match="--num-envs|--pool-current"):
            train(cfg)
    assert TrainConfig().problems() == []


def test_infinite_or_nan_rates_are_named_not_finite(capsys, tmp_path):
    """A float option given inf or nan (argparse's float reads both) is refused as not a
    finite number (was: "--lr inf: must be a number > 0", as if inf were not > 0)."""
    for name, flag, bound in (
        ("lr", "--lr", "> 0"),
        ("critic_lr", "--critic-lr", "> 0"),
        ("max_grad_norm", "--max-grad-norm", "> 0"),
        ("minutes", "--minutes", ">= 0"),
        ("ent_coef", "--ent-coef", ">= 0"),
    ):
        for value in (math.inf, -math.inf, math.nan):
            cfg = TrainConfig(**{name: value}, privileged_critic=True)
            want = f"{flag} {value}: must be a finite number {bound}"
            assert cfg.problems() == [want], (name, value)
        # a finite value out of range keeps the plain message
        cfg = TrainConfig(**{name: -1.0}, privileged_critic=True)
        assert cfg.problems() == [f"{flag} -1.0: must be a number {bound}"]
    err = _usage_error(capsys, ["train", "--lr", "inf", "--out", str(tmp_path / "run")])
    assert "--lr inf: must be a finite number > 0" in err
    err = _usage_error(capsys, ["train", "--shaping", "nan", "--out", str(tmp_path / "run")])
    assert "--shaping nan: must be a finite number >= 0" in err


def test_evaluation_keeps_the_training_thread_count(tmp_path):
    """Building a PPO agent limits torch to one thread (for tournaments); the periodic
    evaluation inside training used to leave it there, so --threads N ran on one thread from
    the first evaluation on."""
    from saboteur_experiments.train import evaluate

    cfg = TrainConfig(out=str(tmp_path / "run"), threads=2)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        evaluate(tiny(cfg), cfg, deals=1, seed=0)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_training_evaluates_with_a_comma_in_the_output_folder(tmp_path):
    """The evaluation loads ``ppo:<out>/checkpoints/eval_latest.pt``; a comma in ``--out`` was
    read as a second agent option ("at most one checkpoint path") and killed the run at its
    first evaluation."""
    from saboteur_experiments.train import evaluate

    cfg = TrainConfig(out=str(tmp_path / "run,1"))
    ev = evaluate(tiny(cfg), cfg, deals=1, seed=0)
    assert "random_diff_gold-digger" in ev or "random_diff_saboteur" in ev


def test_init_records_the_network_it_really_trains(tmp_path):
    """With --init the network's shape comes from the checkpoint and there is no warm start;
    config.json and the checkpoints used to record the command line's channels/hidden and
    bc_decisions instead."""
    from saboteur_agents.network import save_checkpoint

    cfg = TrainConfig()
    init = save_checkpoint(tmp_path / "init.pt", tiny(cfg), cfg.game_config())
    run = TrainConfig(
        num_envs=2,
        steps_per_iter=16,
        iterations=1,
        epochs=1,
        minibatch=16,
        eval_every=0,
        checkpoint_every=0,
        out=str(tmp_path / "run"),
        progress=False,
        init=str(init),
        pool_heuristic=0.0,
    )
    assert (run.channels, run.bc_decisions) == (32, 30000)
    res = train(run)
    _, meta = load_checkpoint(res["checkpoint"])
    tc = meta["train_config"]
    assert (
        (tc["channels"], tc["hidden"], tc["conv_layers"])
        == (8, 32, 2)
        == (meta["net"]["channels"], meta["net"]["hidden"], meta["net"]["conv_layers"])
    )
    assert tc["bc_decisions"] == 0 and tc["init"] == str(init)
    written = json.loads((tmp_path / "run" / "config.json").read_text())
    assert written["channels"] == 8 and written["bc_decisions"] == 0
    assert not (tmp_path / "run" / "bc.json").exists()


def interruptible(tmp_path, **options) -> TrainConfig:
    """A tiny run without a budget (it ends only when interrupted), writing to tmp_path/run."""
    return TrainConfig(
        num_envs=2,
        steps_per_iter=16,
        epochs=1,
        minibatch=16,
        channels=8,
        hidden=32,
        conv_layers=2,
        eval_every=0,
        checkpoint_every=0,
        bc_decisions=0,
        out=str(tmp_path / "run"),
        progress=False,
        pool_heuristic=0.0,
        **options,
    )


def test_ctrl_c_still_writes_the_final_checkpoint(tmp_path, monkeypatch):
    """Without a budget training runs until interrupted; Ctrl-C used to end in a traceback
    with nothing but the last periodic checkpoint."""
    import saboteur_experiments.train as tr

    calls = {"n": 0}
    real = tr.ppo_update

    def update(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(tr, "ppo_update", update)
    cfg = interruptible(tmp_path)
    try:
        res = train(cfg)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped train() without writing final.pt")
    assert res["interrupted"] and res["last"]["iteration"] == 1
    _, meta = load_checkpoint(res["checkpoint"])
    assert meta["interrupted"] is True and meta["iteration"] == 1
    assert len(list(csv.DictReader(open(tmp_path / "run" / "metrics.csv")))) == 1


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_kill_stops_a_background_run_and_still_writes_the_final_checkpoint(tmp_path):
    """A run started in the background of a non-interactive shell ignores SIGINT, so Ctrl-C
    cannot stop it: ``kill`` (SIGTERM) stops ``saboteur train`` as Ctrl-C does."""
    import signal
    import subprocess
    import time

    out = tmp_path / "run"
    argv = [
        "train", "--num-envs", "2", "--steps-per-iter", "16", "--epochs", "1",
        "--minibatch", "16", "--channels", "8", "--hidden", "32", "--conv-layers", "2",
        "--eval-every", "0", "--checkpoint-every", "0", "--bc-decisions", "0",
        "--pool-heuristic", "0", "--no-progress", "--out", str(out),
    ]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "saboteur_experiments.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # as in the background
    )
    try:
        for _ in range(600):  # until an iteration is logged (at most a minute)
            if (out / "metrics.csv").exists() or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, stderr
    assert "(interrupted)" in stdout and "stopped by kill (SIGTERM)" in stderr
    _, meta = load_checkpoint(out / "final.pt")
    assert meta["interrupted"] is True and meta["iteration"] >= 1


def test_kill_stops_the_warm_start_and_ppo_at_a_safe_point(tmp_path, monkeypatch):
    """kill (SIGTERM) sets a flag that every phase reads at its safe points: in the warm start
    the demonstrations stop (bc.json still written) and no PPO iteration starts; during PPO the
    run stops after the current iteration without its final evaluation; final.pt is written
    and marked interrupted either way."""
    import saboteur_experiments.train as tr

    real_demo, real_update = tr.collect_demonstrations, tr.ppo_update

    def demo(*args, **kwargs):
        tr.STOP.set()
        return real_demo(*args, **kwargs)

    monkeypatch.setattr(tr, "collect_demonstrations", demo)
    try:
        res = train(replace(interruptible(tmp_path / "a"), bc_decisions=40, bc_epochs=1))
        assert res["interrupted"] and res["last"] == {}
        bc = json.loads((tmp_path / "a" / "run" / "bc.json").read_text())
        assert bc["bc_cut_short"] is True
        assert load_checkpoint(res["checkpoint"])[1]["interrupted"] is True
        tr.STOP.clear()
        monkeypatch.setattr(tr, "collect_demonstrations", real_demo)

        def update(*args, **kwargs):
            out = real_update(*args, **kwargs)
            tr.STOP.set()  # kill arrives during the first update
            return out

        monkeypatch.setattr(tr, "ppo_update", update)
        res = train(replace(interruptible(tmp_path / "b"), eval_every=5, eval_deals=1))
        assert res["interrupted"] and res["last"]["iteration"] == 1
        assert not (tmp_path / "b" / "run" / "eval.csv").exists()  # no final evaluation
        _, meta = load_checkpoint(res["checkpoint"])
        assert meta["interrupted"] is True and meta["iteration"] == 1
    finally:
        tr.STOP.clear()


def test_evaluate_checkpoint_plays_the_checkpoints_round_count(tmp_path, capsys):
    """--evaluate played 1-round games whatever the checkpoint was trained on; now the
    checkpoint's round count by default (--rounds overrides; round 1 is probed), and a --json
    into a missing folder is a usage error before the (long) evaluation instead of a crash
    after it."""
    from saboteur_agents.network import save_checkpoint
    from saboteur_experiments.train import evaluate_checkpoint

    cfg = TrainConfig(num_rounds=2)
    path = save_checkpoint(tmp_path / "r2.pt", tiny(cfg), cfg.game_config())
    ev = evaluate_checkpoint(path, deals=1, seed=1, baselines=("random",))
    assert ev["num_rounds"] == 2 == ev["against"]["random"]["num_rounds"]
    assert (
        evaluate_checkpoint(path, deals=1, seed=1, baselines=("random",), num_rounds=1)[
            "num_rounds"
        ]
        == 1
    )
    err = _usage_error(
        capsys,
        [
            "train",
            "--evaluate",
            str(path),
            "--deals",
            "1",
            "--json",
            str(tmp_path / "missing" / "x.json"),
        ],
    )
    assert "--json" in err and "does not exist" in err
    err = _usage_error(capsys, ["train", "--evaluate", str(path), "--seed", "-1"])
    assert "--seed" in err and "-1" in err and "r2.pt" not in err


def test_maskable_example_gives_each_seat_its_own_agent():
    """An agent object among the opponents was shared by every seat it was cycled to, so a
    heuristic played all of them as the last seat it was reset for."""
    from saboteur_agents import make_agent
    from saboteur_agents.ppo import PPOAgent
    from saboteur_experiments.sb3_example import SingleAgentSaboteur

    net = tiny(TrainConfig())
    env = SingleAgentSaboteur([make_agent("heuristic"), PPOAgent(net=net)], seat=0)
    env.reset(seed=0)
    agents = env._opponents
    assert len({id(a) for a in agents.values()}) == 4
    assert all(a.seat == s for s, a in agents.items())
    assert agents[2].net is net and agents[4].net is net  # PPO copies share the network
    done = False
    while not done:  # a whole game with them
        _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_maskable_example_bad_options_are_usage_errors(capsys):
    pytest.importorskip("sb3_contrib")
    from saboteur_experiments.sb3_example import main

    for argv, needle in (
        (["--steps", "0"], "--steps"),
        (["--n-steps", "1"], "--n-steps"),
        (["--eval-episodes", "0"], "--eval-episodes"),
        (["--opponents", "bogus"], "'bogus'"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert needle in capsys.readouterr().err


def _fake_clock(monkeypatch, module, step: float, evaluation_s: float | None = None):
    """Replace ``module.time`` (the trainer's only clock, ``time.perf_counter``) with a fake
    one whose every reading advances ``step`` seconds, so budget tests do not depend on the
    machine's load; with ``evaluation_s``, ``module.evaluate`` too, a stand-in that advances
    the clock that much.  Returns ``(clock, evals)``: ``clock["t"]`` the time now, ``evals``
    the times at which the stand-in evaluations ended."""
    import types

    clock = {"t": 0.0}

    def perf_counter():
        clock["t"] += step
        return clock["t"]

    monkeypatch.setattr(module, "time", types.SimpleNamespace(perf_counter=perf_counter))
    evals: list[float] = []
    if evaluation_s is not None:

        def evaluate(net, cfg, deals, seed, path=None):
            clock["t"] += evaluation_s
            evals.append(clock["t"])
            return {}

        monkeypatch.setattr(module, "evaluate", evaluate)
    return clock, evals


def warm_start_run(tmp_path, **options) -> TrainConfig:
    """A tiny run with a warm start and a --minutes budget (``options``), to tmp_path/run."""
    return TrainConfig(
        num_envs=2,
        steps_per_iter=60,
        channels=8,
        hidden=32,
        conv_layers=2,
        pool_heuristic=0.0,
        eval_every=0,
        checkpoint_every=0,
        out=str(tmp_path / "run"),
        progress=False,
        **options,
    )


def test_the_warm_start_counts_against_the_time_budget(tmp_path):
    """``--minutes`` covers the warm start (a budget far smaller than the warm start it asks
    for): the demonstrations are cut short, no PPO iteration starts once the budget is spent,
    and final.pt is still written.  The assertions are on the recorded counts, not on time."""
    cfg = warm_start_run(
        tmp_path, minutes=1e-4, minibatch=64, seed=1, bc_decisions=100_000, bc_epochs=3
    )  # 6 ms
    res = train(cfg)
    bc = json.loads((tmp_path / "run" / "bc.json").read_text())
    assert bc["bc_cut_short"] is True
    assert bc["bc_decisions"] < 100_000
    assert bc["bc_minibatches"] < 3 * max(1, math.ceil(bc["bc_decisions"] / 64))
    assert res["last"] == {}  # no iteration started after the budget was spent
    assert not (tmp_path / "run" / "metrics.csv").exists()
    load_checkpoint(res["checkpoint"])


def test_the_warm_start_leaves_half_of_the_budget_to_ppo(tmp_path, monkeypatch):
    """The warm start's demonstrations stop at a quarter of ``--minutes`` and its fitting at
    half (a short run with the default --bc-decisions would else be all imitation): the
    deadlines handed to the two phases, read through stand-ins for them."""
    import saboteur_experiments.train as train_module

    seen = {}
    real_demo, real_bc = train_module.collect_demonstrations, train_module.behaviour_cloning

    def demo(n, cfg, seed=0, deadline=None, progress=None):
        seen["demo"] = deadline
        return real_demo(n, cfg, seed=seed, deadline=deadline, progress=progress)

    def bc(net, data, cfg, rng, deadline=None):
        seen["fit"] = deadline
        return real_bc(net, data, cfg, rng, deadline=deadline)

    # a fake clock (each reading advances 0.1 ms), so that a loaded machine cannot spend the
    # budget before PPO starts
    _fake_clock(monkeypatch, train_module, 1e-4)
    monkeypatch.setattr(train_module, "collect_demonstrations", demo)
    monkeypatch.setattr(train_module, "behaviour_cloning", bc)
    cfg = warm_start_run(tmp_path, minutes=0.02, bc_decisions=40, bc_epochs=1, iterations=1)
    res = train(cfg)
    # demo = start + 0.3 s and fit = start + 0.6 s, so their gap is a quarter of the budget
    assert seen["demo"] < seen["fit"]
    assert seen["fit"] - seen["demo"] == pytest.approx(0.3, abs=1e-6)
    assert res["last"].get("iteration") == 1  # PPO had the rest of the budget


def test_demonstrations_keep_only_finished_games_at_the_deadline():
    import time

    from saboteur_experiments.train import collect_demonstrations

    cfg = TrainConfig(num_players=3, num_rounds=1)
    data = collect_demonstrations(50, cfg, seed=0, deadline=time.perf_counter())
    assert data["cut_short"] and len(data["action"]) == 0
    assert data["obs"].shape[0] == data["ret"].shape[0] == 0
    seen = []
    data = collect_demonstrations(50, cfg, seed=0, progress=seen.append)
    assert not data["cut_short"] and len(data["action"]) >= 50
    assert seen and seen[-1] == len(data["action"])  # progress after every game


def test_collector_stops_at_the_deadline():
    import time

    from saboteur_experiments.train import Collector, OpponentPool

    cfg = TrainConfig(num_envs=2, num_players=3, num_rounds=1)
    net = tiny(cfg)
    pool = OpponentPool({"current": 1.0}, heuristic_available=False)
    c = Collector(cfg, net, pool, np.random.default_rng(0), torch.Generator().manual_seed(0))
    assert c.collect(10_000, deadline=time.perf_counter()) == []
    assert c.decisions == 0


def test_train_takes_players_and_rounds_like_every_other_command():
    from saboteur_experiments.train import parse_args

    cfg = parse_args(["--players", "4", "--rounds", "2"])
    assert (cfg.num_players, cfg.num_rounds) == (4, 2)
    cfg = parse_args(["--num-players", "6", "--num-rounds", "1"])  # the older names
    assert (cfg.num_players, cfg.num_rounds) == (6, 1)


def test_train_usage_errors_name_players_and_rounds(capsys):
    err = _usage_error(capsys, ["train", "--players", "2"])
    assert "--players 2" in err
    err = _usage_error(capsys, ["train", "--num-rounds", "0"])
    assert "--rounds 0" in err


def test_train_help_names_no_case_or_issue(capsys):
    import re

    from saboteur_experiments.train import main

    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert "--players" in text and "--num-players" in text
    assert not re.search(r"case [A-Z]\d|issue\s*#?\d", text, re.I), text


def test_maskable_example_prints_a_random_reference(capsys):
    pytest.importorskip("sb3_contrib")
    from saboteur_experiments.sb3_example import main

    res = main(["--steps", "128", "--n-steps", "64", "--eval-episodes", "2"])
    out = capsys.readouterr().out
    assert "random agent (reference)" in out
    assert math.isfinite(res["random_mean_reward"])
    assert math.isfinite(res["same_episodes_mean_reward"])


def _tiny_run(tmp_path, **overrides) -> TrainConfig:
    """A training run of seconds: 2 games, a small network, evaluation every iteration."""
    base = dict(
        num_envs=2,
        steps_per_iter=60,
        epochs=1,
        minibatch=32,
        channels=8,
        hidden=32,
        conv_layers=2,
        pool_heuristic=0.0,
        eval_every=1,
        out=str(tmp_path / "run"),
        progress=False,
        bc_decisions=0,
    )
    return TrainConfig(**{**base, **overrides})


def test_training_never_plays_a_test_split_deal(tmp_path, monkeypatch):
    """Every environment a training run resets (self-play on the batched engine,
    demonstrations, the in-training evaluation) gets a seed of the train or dev split, never
    one of the test split that the published evaluations use (DESIGN 9).  The batched engine's
    own auto-reset deals are replaced before they are played: every game a learning seat
    plays was dealt by ``reset_game`` from the train split."""
    from saboteur_env.vector import VectorGame
    from saboteur_experiments.evaluation.splits import DEV, TEST, TRAIN

    env_cls = type(saboteur_env.raw_env())
    seeds: list = []
    vector_seeds: list = []
    original = env_cls.reset
    original_game = VectorGame.reset_game
    original_batch = VectorGame.reset

    def reset(self, seed=None, options=None):
        seeds.append(seed)
        return original(self, seed=seed, options=options)

    def reset_game(self, i, seed):
        vector_seeds.append(seed)
        return original_game(self, i, seed)

    def reset_batch(self, seed):
        vector_seeds.extend(seed)
        return original_batch(self, seed)

    # every Game ever dealt, by object, with its seed; and every game the collector steps
    game_seed: dict[int, object] = {}
    original_init = Game.__init__

    def init(self, config=None, seed=None, _deal=True):
        game_seed[id(self)] = seed
        original_init(self, config, seed, _deal)

    stepped: list = []
    original_tick = Collector.tick

    def tick(self):
        stepped.extend(game_seed[id(g)] for g in self.vec.games)
        return original_tick(self)

    monkeypatch.setattr(env_cls, "reset", reset)
    monkeypatch.setattr(VectorGame, "reset_game", reset_game)
    monkeypatch.setattr(VectorGame, "reset", reset_batch)
    monkeypatch.setattr(Game, "__init__", init)
    monkeypatch.setattr(Collector, "tick", tick)
    res = train(
        _tiny_run(tmp_path, iterations=1, eval_deals=2, seed=5, bc_decisions=30, bc_epochs=1)
    )
    assert res["best_dev"] and Path(res["best_dev"]).is_file()  # chosen on dev deals
    drawn = [s for s in seeds if s is not None]
    assert len(drawn) > 10
    assert not [s for s in drawn if s in TEST]
    assert any(s in TRAIN for s in drawn) and any(s in DEV for s in drawn)
    # self-play: the two slots' first deals, then one per finished game, all train-split
    assert len(vector_seeds) >= 2 + 2 + 1 and all(s in TRAIN for s in vector_seeds)
    # every game a decision was made in (not only every seed asked for) is a train deal:
    # the batch's own auto-reset deals (63-bit seeds) are replaced before anyone acts
    assert len(stepped) > 60 and all(s in TRAIN for s in stepped)
    assert not [s for s in game_seed.values() if s in TEST]


def test_the_final_evaluation_fits_in_the_time_budget(tmp_path, monkeypatch):
    """``--minutes`` used to end training at the deadline and then run the final evaluation
    past it.  Now the last evaluation's duration is kept back.  A fake clock (each reading
    advances 10 ms, an evaluation 100 s) makes this exact: budget 150 s, the first evaluation
    (iteration 1) ends near 100 s, so no iteration starts after it, where the old loop ran a
    second iteration and evaluation to about 200 s."""
    import saboteur_experiments.train as tr

    clock, evals = _fake_clock(monkeypatch, tr, 0.01, evaluation_s=100.0)
    cfg = _tiny_run(tmp_path, steps_per_iter=40, minutes=150 / 60, checkpoint_every=0, seed=2)
    res = train(cfg)
    assert res["last"]["iteration"] == 1 and len(evals) == 1
    assert clock["t"] < 150.0


def test_the_last_update_fits_in_the_time_budget(tmp_path, monkeypatch):
    """``--minutes`` used to stop collecting at the deadline and then run that batch's PPO
    update past it (a 0.5-minute Saboteur 2 run took 48 s).  Now the last update's duration is
    kept back too.  A fake clock (each reading advances 10 ms, an update 100 s): budget 150 s,
    the first update ends near 100 s, so no batch is collected after it, where the old loop
    collected a second one and updated to about 200 s."""
    import saboteur_experiments.train as tr

    clock, evals = _fake_clock(monkeypatch, tr, 0.01, evaluation_s=1.0)
    real_update = tr.ppo_update
    updates = []

    def ppo_update(*args, **kwargs):
        stats = real_update(*args, **kwargs)
        clock["t"] += 100.0
        updates.append(clock["t"])
        return stats

    monkeypatch.setattr(tr, "ppo_update", ppo_update)
    cfg = _tiny_run(
        tmp_path, steps_per_iter=40, minutes=150 / 60, checkpoint_every=0, eval_every=5, seed=2
    )
    res = train(cfg)
    assert res["last"].get("iteration") == 1 and len(updates) == 1
    assert clock["t"] < 150.0
    # the iteration that ends the run is evaluated (not periodic: --eval-every 5)
    assert len(evals) == 1


def test_a_run_that_ends_with_no_game_finished_is_still_evaluated(tmp_path, monkeypatch):
    """When the budget's end comes before any game of the next batch finishes, the loop ends
    without marking the last iteration done; that iteration still gets the final evaluation
    (a 45-minute run's eval.csv ended 6 iterations before its metrics.csv)."""
    import saboteur_experiments.train as tr

    real_collect = tr.Collector.collect
    calls = []

    def collect(self, n_steps, deadline=None):
        calls.append(n_steps)
        return real_collect(self, n_steps, deadline) if len(calls) == 1 else []

    evals = []
    real_evaluate = tr.evaluate

    def evaluate(*args, **kwargs):
        evals.append(1)
        return real_evaluate(*args, **kwargs)

    monkeypatch.setattr(tr.Collector, "collect", collect)
    monkeypatch.setattr(tr, "evaluate", evaluate)
    cfg = _tiny_run(tmp_path, steps_per_iter=40, eval_every=5, eval_deals=1, seed=3)
    res = train(cfg)
    assert res["last"].get("iteration") == 1 and len(calls) == 2
    assert len(evals) == 1
    rows = (tmp_path / "run" / "eval.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("1,")


def test_report_reads_runs_and_tables_every_target(tmp_path, capsys):
    """``saboteur report`` on two tiny runs: per-seed and seed-averaged role-probes on the test
    split, a 2x2 cross-play matrix, the external 4-player protocol with the heuristic's own
    saboteur and the ratio, the run figures, and the learning-curve plot."""
    from saboteur_experiments.learning_report import main as report_main

    runs = []
    for seed in (1, 2):
        out = tmp_path / f"seed{seed}"
        train(_tiny_run(tmp_path, out=str(out), iterations=1, eval_deals=2, seed=seed))
        runs.append(str(out))
    rep = report_main(
        runs
        + [
            "--reference",
            "random",
            "--deals",
            "3",
            "--crossplay-deals",
            "2",
            "--external-deals",
            "3",
            "--out",
            str(tmp_path / "report"),
        ]
    )
    assert set(rep["per_seed"]) == {"seed1", "seed2", "seed-averaged"}
    assert rep["specs"]["seed-averaged"].startswith("ppo:avg=")
    for res in rep["per_seed"].values():
        assert res["split"] == "test" and set(res["roles"]) == {"gold-digger", "saboteur"}
        assert all(r["deals"] == 3 for r in res["roles"].values())
    assert set(rep["crossplay"]) == {"seed1 vs seed2", "seed2 vs seed1"}
    ext = rep["external"]["candidates"]
    assert len(ext) == 3 and all("ratio" in r and "reference" in r for r in ext.values())
    assert all(r["chosen"]["dev_score"] is not None for r in rep["runs"])
    text = (tmp_path / "report" / "report.md").read_text()
    assert "| seed-averaged |" in text and "ratio (paired)" in text
    assert (tmp_path / "report" / "learning_curves.png").stat().st_size > 0
    assert text in capsys.readouterr().out


def test_progress_potential_is_the_tunnels_progress_signed_by_the_roles_gold_stake():
    """A hand-built tunnel from the start (0, 0) to (6, 0): the nearest goal (8, 0) is 2 cells
    away of the start's 8, so the progress is 1 - 2/8 = 0.75; a gold-digger's potential is
    +0.75 and a saboteur's -0.75 (base game).  In Saboteur 2 the boss's sign is the diggers'
    (he wins when the gold is reached), the profiteer's and the geologist's 0."""
    from saboteur_env.encoding.observation import ObservationEncoder
    from saboteur_experiments.train import ProgressPotential

    board = [
        (1, 0, 6, False),
        (2, 0, 6, False),
        (3, 0, 5, False),
        (4, 0, 5, True),
        (5, 0, 6, False),
        (6, 0, STRAIGHT_EW, False),
    ]
    config = GameConfig(num_players=5, num_rounds=1)
    game = build_state(
        config, roles=[0, 1, 0, 0, 1], hands=[[2]] * 5, board=board, goals=(1, 0, 2), seed=1
    )
    enc = ObservationEncoder(config)
    phi = ProgressPotential(config)
    assert phi(enc.encode(game, 0)) == pytest.approx(0.75)  # gold-digger
    assert phi(enc.encode(game, 1)) == pytest.approx(-0.75)  # saboteur
    sab2 = GameConfig(num_players=5, num_rounds=1, expansion=True)
    roles = sab2.ruleset.roles
    g2 = build_state(
        sab2, roles=[0, 1, 2, 3, 5], hands=[[2]] * 5, board=board, goals=(1, 0, 2), seed=1
    )
    obs = ObservationEncoder(sab2).encode(g2, 0)
    p2 = ProgressPotential(sab2)
    assert p2(obs) == pytest.approx(0.75)  # seat 0: a green gold-digger
    role = next(v for v in ObservationEncoder(sab2).spec() if v.name == "role")
    signs = {}
    for r, name in enumerate(roles):
        o = obs.copy()
        o[role.offset : role.offset + role.size] = np.eye(role.size)[r]
        signs[name] = np.sign(round(p2(o), 9))
    assert signs == {
        "green-digger": 1,
        "blue-digger": 1,
        "boss": 1,
        "profiteer": 0,
        "geologist": 0,
        "saboteur": -1,
    }


def weights_digest(module) -> str:
    """sha256 of a module's weights, in state-dict order."""
    import hashlib

    h = hashlib.sha256()
    for v in module.state_dict().values():
        h.update(v.detach().numpy().tobytes())
    return h.hexdigest()


def spy_on_overlap(monkeypatch, of_collector, of_update) -> tuple[dict, dict]:
    """Spies on the training loop: ``seen["collect"]`` gets the :func:`weights_digest` of
    ``of_collector(collector)`` as each batch starts, ``seen["update"]`` that of
    ``of_update(net, critic)`` after each PPO update; ``delay["s"]`` slows every update down.
    Returns ``(seen, delay)``."""
    import time

    import saboteur_experiments.train as tr

    seen: dict[str, list[str]] = {"collect": [], "update": []}
    delay = {"s": 0.0}
    real_collect, real_update = tr.Collector.collect, tr.ppo_update

    def collect(self, *args, **kwargs):
        seen["collect"].append(weights_digest(of_collector(self)))
        return real_collect(self, *args, **kwargs)

    def update(net, opt, batch, cfg, rng, critic=None):
        time.sleep(delay["s"])
        out = real_update(net, opt, batch, cfg, rng, critic)
        seen["update"].append(weights_digest(of_update(net, critic)))
        return out

    monkeypatch.setattr(tr.Collector, "collect", collect)
    monkeypatch.setattr(tr, "ppo_update", update)
    return seen, delay


def test_overlapped_bf16_training_replays_exactly_for_a_seed(tmp_path, monkeypatch):
    """--overlap learns in a second thread with its own random stream while the next batch is
    collected with a copy of the policy, refreshed after every update: batch k is collected
    with the weights after update k - 2 (one update of lag); two runs of one seed end with
    identical weights even when the learner is slowed down; --precision bf16 changes the
    update (autocast is on); final.pt names the decisions the logged iterations learned from;
    a bad precision is named."""
    seen, delay = spy_on_overlap(monkeypatch, lambda col: col.net, lambda net, critic: net)

    def run(name: str, precision: str = "bf16") -> dict:
        seen["collect"].clear()
        seen["update"].clear()
        cfg = TrainConfig(
            num_envs=4,
            steps_per_iter=100,
            iterations=4,
            epochs=2,
            minibatch=64,
            channels=8,
            hidden=32,
            conv_layers=2,
            snapshot_every=1,
            pool_heuristic=0.0,
            eval_every=0,
            checkpoint_every=0,
            out=str(tmp_path / name),
            progress=False,
            seed=5,
            bc_decisions=0,
            overlap=True,
            precision=precision,
        )
        res = train(cfg)
        rows = list(csv.DictReader(open(tmp_path / name / "metrics.csv")))
        assert [int(r["iteration"]) for r in rows] == [1, 2, 3, 4]
        net, meta = load_checkpoint(res["checkpoint"])
        assert meta["iteration"] == 4
        assert meta["learning_decisions"] == int(rows[-1]["learning_decisions"])
        # 4 batches collected (none past the last iteration), 4 updates, lag of one update
        assert len(seen["collect"]) == 4 and len(seen["update"]) == 4
        start = seen["collect"][0]
        assert seen["collect"][1] == start
        assert seen["collect"][2:] == seen["update"][:2]
        assert seen["update"][-1] == weights_digest(net)
        return net.state_dict()

    a = run("a")
    delay["s"] = 0.05  # a slower learner: the collector finishes first every time
    b = run("b")
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)
    c = run("c", precision="fp32")
    assert not all(torch.equal(a[k], c[k]) for k in a)
    assert any("--precision fp16" in p for p in TrainConfig(precision="fp16").problems())


def test_overlapped_training_refreshes_the_privileged_critic_and_replays(tmp_path, monkeypatch):
    """--overlap with --privileged-critic: the collector's copy of the critic is refreshed
    with the policy's copy after every update (batch k is collected with the critic of update
    k - 2), and a seed replays the same weights whatever the threads' timing."""
    seen, delay = spy_on_overlap(monkeypatch, lambda col: col.critic, lambda net, critic: critic)

    def run(name: str) -> dict:
        seen["collect"].clear()
        seen["update"].clear()
        cfg = replace(
            interruptible(tmp_path / name),
            iterations=4,
            steps_per_iter=60,
            seed=6,
            overlap=True,
            privileged_critic=True,
        )
        res = train(cfg)
        assert len(seen["collect"]) == 4 and len(seen["update"]) == 4
        assert seen["collect"][1] == seen["collect"][0]
        assert seen["collect"][2:] == seen["update"][:2]
        assert len(set(seen["update"])) == 4  # the critic learns at every update
        return load_checkpoint(res["checkpoint"])[0].state_dict()

    a = run("a")
    delay["s"] = 0.05
    b = run("b")
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_an_interrupt_in_the_warm_start_still_writes_the_final_checkpoint(tmp_path, monkeypatch):
    """Ctrl-C or kill during the behaviour-cloning warm start: no PPO iteration, and final.pt
    holds the weights so far (marked interrupted) instead of a traceback."""
    import saboteur_experiments.train as tr

    def bc(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tr, "behaviour_cloning", bc)
    res = train(replace(interruptible(tmp_path), bc_decisions=20, bc_epochs=1))
    assert res["interrupted"] and res["last"] == {}
    _, meta = load_checkpoint(res["checkpoint"])
    assert meta["interrupted"] is True and meta["iteration"] == 0
    assert not (tmp_path / "run" / "metrics.csv").exists()


def test_ctrl_c_with_overlap_logs_the_update_it_waits_for(tmp_path, monkeypatch):
    """Ctrl-C during a collection while the learner is updating: the update finishes, its
    iteration is logged, and final.pt's iteration and decisions are the last row's."""
    import saboteur_experiments.train as tr

    calls = {"n": 0}
    real = tr.Collector.collect

    def collect(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:  # the learner is updating on batch 2 meanwhile
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(tr.Collector, "collect", collect)
    cfg = interruptible(tmp_path, overlap=True)
    res = train(cfg)
    rows = list(csv.DictReader(open(tmp_path / "run" / "metrics.csv")))
    assert [int(r["iteration"]) for r in rows] == [1, 2]
    _, meta = load_checkpoint(res["checkpoint"])
    assert meta["interrupted"] is True and meta["iteration"] == 2
    assert meta["learning_decisions"] == int(rows[-1]["learning_decisions"]) > 0


def test_training_a_residual_on_a_prior_adds_the_prior_everywhere(tmp_path, capsys):
    """``--prior softmax:t=0.1``: the collector samples from the prior plus the network (at
    the start exactly the prior), the update adds the same prior (an update with learning rate
    0 finds every ratio 1), the warm start fits the value only, the checkpoint keeps the
    prior; a bad prior, or ``--init`` of a checkpoint with another prior, is a usage error."""
    from saboteur_agents.network import add_prior, masked_log_probs, prior_rows
    from saboteur_experiments.train import make_batch, ppo_update

    cfg = _tiny_run(tmp_path, prior="softmax", num_envs=2, pool_current=1.0)
    net = tiny(cfg)
    net.start_at_prior(cfg.prior)
    assert net.prior == "softmax:t=0.1"  # the canonical spec
    pool = OpponentPool({"current": 0.4, "snapshots": 0.3, "heuristic": 0.3})
    pool.add_snapshot("s", net)
    col = Collector(cfg, net, pool, np.random.default_rng(5), torch.Generator().manual_seed(5))
    trajs = col.collect(80)
    steps = [s for t in trajs for s in t]
    assert len(steps) >= 80 and all(s.prior is not None for s in steps)
    # every network seat (current or snapshot) has a prior agent, no pool agent has one
    for i in range(cfg.num_envs):
        nets = {s for s, k in enumerate(col.players[i]) if k not in pool.agents}
        assert set(col.priors[i]) == nets and not nets & set(col.agents[i])
    assert any("snapshot" in k for p in col.players for k in p)
    # the behaviour log-probability is the prior's own (the residual is 0)
    for s in steps[:20]:
        legal, z = s.prior
        assert set(legal.tolist()) == set(np.flatnonzero(s.mask).tolist())
        p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        assert s.logp == pytest.approx(float(np.log(p[list(legal).index(s.action)])), abs=1e-4)
    batch = make_batch(trajs, cfg.gamma, cfg.gae_lambda)
    logits, _ = net(batch["obs"])
    logp = masked_log_probs(
        add_prior(logits, batch["prior_idx"], batch["prior_val"]), batch["mask"]
    )
    got = logp.gather(1, batch["action"][:, None]).squeeze(1)
    assert torch.allclose(got, batch["logp"], atol=1e-4)
    stats = ppo_update(
        net, torch.optim.Adam(net.parameters(), lr=0.0), batch, cfg, np.random.default_rng(0)
    )
    assert stats["approx_kl"] < 1e-6 and stats["clip_frac"] == 0.0
    # without the prior the same batch's ratios are far from 1
    del batch["prior_idx"], batch["prior_val"]
    stats = ppo_update(
        net, torch.optim.Adam(net.parameters(), lr=0.0), batch, cfg, np.random.default_rng(0)
    )
    assert stats["clip_frac"] > 0.5
    assert prior_rows([], 3)[0].shape == (0, 1)

    run = _tiny_run(tmp_path, prior="softmax:t=0.1", iterations=1, eval_every=0, bc_decisions=40)
    res = train(run)
    row = next(csv.DictReader(open(tmp_path / "run" / "metrics.csv")))
    for k in ("policy_loss", "value_loss", "entropy", "approx_kl"):
        assert math.isfinite(float(row[k])), (k, row[k])
    final, meta = load_checkpoint(res["checkpoint"])
    assert final.prior == "softmax:t=0.1" and meta["train_config"]["prior"] == "softmax:t=0.1"
    bc = json.loads((tmp_path / "run" / "bc.json").read_text())
    assert bc["bc_decisions"] >= 40 and math.isfinite(bc["bc_value_loss"])
    assert "bc_ce" not in bc and "bc_accuracy" not in bc  # the policy was not fitted

    base = ["train", "--iterations", "1", "--no-progress", "--out", str(tmp_path / "new")]
    err = _usage_error(capsys, [*base, "--prior", "random"])
    assert "--prior 'random'" in err and "no logits" in err
    err = _usage_error(capsys, [*base, "--init", res["checkpoint"], "--prior", "softmax:t=0.5"])
    assert "--init" in err and "its prior is 'softmax:t=0.1'" in err
    err = _usage_error(capsys, [*base, "--prior", "bogus"])
    assert "--prior 'bogus': unknown agent 'bogus'" in err  # the spec not named twice
    # the same prior spelled another way is the same prior
    for spelled in ("softmax:t=0.10", ""):  # the same prior, or none given: the checkpoint's
        cont = _tiny_run(tmp_path, prior=spelled, iterations=1, eval_every=0)
        cont = replace(cont, init=res["checkpoint"], out=str(tmp_path / "cont"))
        assert load_checkpoint(train(cont)["checkpoint"])[0].prior == "softmax:t=0.1"
        saved = json.loads((tmp_path / "cont" / "config.json").read_text())
        assert saved["prior"] == "softmax:t=0.1"
    assert not (tmp_path / "new").exists()


def test_a_budget_shorter_than_one_iteration_says_nothing_was_learned(tmp_path, capsys):
    """``saboteur train --minutes`` too small for one PPO iteration still writes final.pt, and
    says that no iteration finished and that there is no metrics.csv (was: silence)."""
    from saboteur_experiments.train import main

    out = tmp_path / "run"
    main(
        ["--minutes", "0.0001", "--bc-decisions", "0", "--eval-every", "0", "--no-progress"]
        + ["--channels", "8", "--hidden", "32", "--conv-layers", "2", "--out", str(out)]
    )
    text = capsys.readouterr().out
    assert "no PPO iteration finished (the budget ran out" in text and "no metrics.csv" in text
    assert (out / "final.pt").exists() and not (out / "metrics.csv").exists()


def test_the_progress_bar_counts_the_budget_that_stops_the_run():
    """The bar's unit and total follow the budget (iterations, learning decisions, seconds), and
    a batch larger than ``--steps-per-iter`` never takes it past its total (was: a bar over
    ``iterations * steps_per_iter`` decisions that ended past 100%)."""
    pytest.importorskip("tqdm")
    import io

    from saboteur_experiments import train as train_mod

    def run(cfg, rows):
        err = io.StringIO()
        old = train_mod.sys.stderr
        train_mod.sys.stderr = err
        try:
            bar = train_mod._progress(cfg)
            for r in rows:
                bar(r)
            bar(None)
        finally:
            train_mod.sys.stderr = old
        return err.getvalue().replace("\r", "\n").strip().splitlines()[-1]

    def row(it, dec, s):
        keys = ("iteration", "learning_decisions", "elapsed_s", "entropy", "decisions_per_s")
        return dict(zip(keys, (it, dec, s, 1.0, 500.0)))

    rows = [row(1, 2100, 3.0), row(2, 4300, 6.5)]  # batches a little over 2048
    with_iterations = run(TrainConfig(iterations=2, steps_per_iter=2048), rows)
    assert "2/2" in with_iterations and "it" in with_iterations
    budget = run(TrainConfig(total_decisions=4000), rows)
    assert "4000/4000" in budget and "100%" in budget
    seconds = run(TrainConfig(minutes=0.1), rows)
    assert "6/6 s" in seconds and "s/s" not in seconds  # no rate of seconds per second


def test_a_role_specialist_learns_only_from_seats_dealt_its_role(tmp_path):
    """--learner-role saboteur at 4 players: the learning seat holds the saboteur in every
    game (deals without one are skipped), a "current" gold-digger plays but is not learned
    from, and the in-training evaluation probes the saboteur only."""
    cfg = TrainConfig(
        num_players=4,
        num_envs=2,
        learner_role="saboteur",
        pool_current=0.5,
        pool_snapshots=0.0,
        pool_heuristic=0.0,
        pool_random=0.5,
    )
    assert cfg.problems() == []
    pool = OpponentPool({"current": 0.5, "random": 0.5}, heuristic_available=False)
    col = Collector(
        cfg, tiny(cfg), pool, np.random.default_rng(3), torch.Generator().manual_seed(0)
    )
    sab = BASE.saboteur
    seats, extra_current = [], 0
    for _ in range(100):
        col.start_game(0)
        roles = col.vec.games[0].roles.tolist()
        learning = col.trajs[0].learning
        assert learning == {s for s in range(4) if roles[s] == sab} & {
            s for s, k in enumerate(col.players[0]) if k == "current"
        }
        assert len(learning) == 1  # one saboteur at most at 4 players, and it learns
        seats.append(next(iter(learning)))
        extra_current += col.players[0].count("current") - 1
    assert set(seats) == set(range(4)) and extra_current > 0
    # a hand-built game that no saboteur is dealt in: refused by name, not an index error
    no_sab = next(
        g for g in (Game(cfg.game_config(), seed) for seed in range(50)) if sab not in g.roles
    )
    with pytest.raises(ValueError, match="no seat of this game holds the --learner-role"):
        col.start_game(1, game=no_sab)
    assert col.vec.games[1] is not no_sab  # the slot keeps its game
    got = col.collect(60)
    assert sum(len(steps) for steps in got) >= 60
    from saboteur_env.encoding.observation import ObservationEncoder

    role = {v.name: v for v in ObservationEncoder(cfg.game_config()).spec()}["role"]
    assert all(st.obs[role.offset + sab] == 1 for steps in got for st in steps)  # no gold-digger
    assert {r["role"] for r in col.results} == {sab}
    assert col.learning_decisions == sum(len(t) for t in got) + sum(
        len(s) for tr in col.trajs if tr is not None for s in tr.steps.values()
    )
    # the evaluation and the dev score see the saboteur only
    run = TrainConfig(
        num_players=4,
        learner_role="saboteur",
        num_envs=2,
        steps_per_iter=32,
        iterations=1,
        bc_decisions=0,
        eval_every=1,
        eval_deals=2,
        channels=8,
        hidden=32,
        conv_layers=2,
        progress=False,
        out=str(tmp_path / "run"),
    )
    train(run)
    header = (tmp_path / "run" / "eval.csv").read_text().splitlines()[0].split(",")
    assert "heuristic_diff_saboteur" in header and "heuristic_diff_gold-digger" not in header
    # bad values name the option
    assert TrainConfig(learner_role="boss").problems() == [
        "--learner-role boss: not a role of this game (one of gold-digger, saboteur)"
    ]
    assert TrainConfig(learner_role="saboteur", num_rounds=3).problems() == [
        "--learner-role saboteur: needs --rounds 1 (roles are dealt again each round)"
    ]
    # Saboteur 2: Swap your hats may change the learning seat's role mid-round (RULES 6.5)
    assert TrainConfig(expansion=True, learner_role="boss").problems() == [
        "--learner-role boss: in Saboteur 2 a role can change during a round (Swap your "
        "hats, RULES 6.5), so the learning seat would not keep it"
    ]
    assert TrainConfig(expansion=True).problems() == []
    assert SABOTEUR_2.roles_change_in_round and not BASE.roles_change_in_round


def test_the_collector_plays_on_the_array_backend_unless_a_search_agent_reads_the_game():
    """The batch takes the array backend (where numba is in use) unless a pool agent with a
    share reads the live game (the search agent), which only the engine backend keeps."""
    from saboteur_env.vector import kernels

    cfg = TrainConfig(num_envs=2)
    plain = OpponentPool({"current": 1.0, "heuristic": 1.0, "search": 0.0})
    col = Collector(cfg, tiny(cfg), plain, np.random.default_rng(0), torch.Generator())
    assert col.vec.backend == ("array" if kernels.ENABLED else "engine")
    searching = OpponentPool({"current": 1.0, "search": 0.5}, heuristic_available=True)
    col = Collector(cfg, tiny(cfg), searching, np.random.default_rng(0), torch.Generator())
    assert col.vec.backend == "engine"


def test_truth_features_lay_out_the_hidden_roles_from_the_observer_and_the_goal_cards():
    """``PrivilegedCritic.truth_features``: role one-hots in the observer's order (the seat,
    then the seats after it), padded to max_players rows, then 3 x 3 goal-card one-hots."""
    from saboteur_agents.network import PrivilegedCritic

    c = PrivilegedCritic(hidden=4, config=GameConfig(num_players=3))
    assert c.truth_size == 29 and c.roles_shape == (10, 2)
    got = c.truth_features(np.array([[0, 1, 1]]), np.array([[2, 0, 1]]), np.array([1]))
    # seat 1 observes: rows seat 1 (role 1), seat 2 (role 1), seat 0 (role 0)
    assert np.flatnonzero(got[0]).tolist() == [1, 3, 4, 20 + 2, 20 + 3, 20 + 6 + 1]
    assert got.dtype == np.float32 and got.sum() == 6
    bad = [
        (r"role 2 outside 0..1 \(row 0\)", [[0, 2, 1]], [[2, 0, 1]], [1]),
        ("goal identity 3 outside 0..2", [[0, 1, 1]], [[3, 0, 1]], [1]),
        ("seat 3 outside 0..2", [[0, 1, 1]], [[2, 0, 1]], [3]),
        (r"must be \(B, 3\).*has 3 players", [[0, 1, 1, 0]], [[2, 0, 1]], [1]),
        ("must be", [0, 1, 1], [[2, 0, 1]], [1]),
        ("seats must be integers, not float64", [[0, 1, 1]], [[2, 0, 1]], [1.0]),
    ]
    for why, roles, goals, seats in bad:
        with pytest.raises(ValueError, match=why):
            c.truth_features(np.array(roles), np.array(goals), np.array(seats))
    feats, truth = torch.zeros(2, 4), torch.zeros(2, 29)
    assert c(feats, truth, torch.tensor([0.5, -1.0])).tolist() == [0.5, -1.0]  # zero residual
    with pytest.raises(ValueError, match="expected"):
        c(feats, truth, torch.zeros(2, 1))  # would broadcast to (2, 2)
    with pytest.raises(TypeError, match="GameConfig"):
        PrivilegedCritic(4, {"num_players": 3})
    # Saboteur 2: six roles, twelve seats
    assert PrivilegedCritic(4, GameConfig(expansion=True)).roles_shape == (12, 6)


def test_a_privileged_critic_changes_the_baseline_only(tmp_path):
    """--privileged-critic: the collector plays exactly the same actions and observations as
    without it (the policy never reads the hidden state), each learning step keeps the
    truth of its round, the critic starts at the network's own value (a zero residual), and
    a run trains it with finite losses and writes the policy network alone."""
    from saboteur_agents.network import PrivilegedCritic

    cfg = TrainConfig(
        num_envs=3, pool_current=0.5, pool_snapshots=0, pool_heuristic=0.0, pool_random=0.5
    )
    from saboteur_env.encoding.observation import ObservationEncoder

    rules = cfg.game_config().ruleset
    role = {v.name: v for v in ObservationEncoder(cfg.game_config()).spec()}["role"]
    critic = PrivilegedCritic(32, cfg.game_config())
    cols = [
        Collector(
            cfg,
            tiny(cfg),
            OpponentPool({"current": 0.5, "random": 0.5}, False),
            np.random.default_rng(8),
            torch.Generator().manual_seed(2),
            critic=c,
        )
        for c in (None, critic)
    ]
    for _ in range(40):
        for col in cols:
            col.tick()
    # every learning step so far: in finished games, then in the games still running
    plain, priv = (
        [s for t in col.finished for s in t]
        + [s for tr in col.trajs for st in tr.steps.values() for s in st]
        for col in cols
    )
    assert len(plain) == len(priv) > 20
    for a, b in zip(plain, priv):
        assert a.action == b.action and np.array_equal(a.obs, b.obs)
        assert a.value == pytest.approx(b.value, abs=1e-6)  # the zero residual
        assert a.truth is None and b.truth.shape == (critic.truth_size,)
        assert b.truth[: rules.max_players * rules.n_roles].sum() == cfg.num_players
        # its first row is the observer's own role, as the observation's role view says
        own = b.obs[role.offset : role.offset + rules.n_roles]
        assert b.truth[: rules.n_roles].tolist() == own.tolist()
    run = replace(
        cfg,
        steps_per_iter=60,
        iterations=2,
        epochs=1,
        minibatch=32,
        channels=8,
        hidden=32,
        conv_layers=2,
        bc_decisions=0,
        eval_every=0,
        checkpoint_every=0,
        progress=False,
        privileged_critic=True,
        out=str(tmp_path / "run"),
    )
    res = train(run)
    rows = list(csv.DictReader(open(Path(res["out"]) / "metrics.csv")))
    assert all(math.isfinite(float(r["state_value_loss"])) for r in rows)
    net, meta = load_checkpoint(res["checkpoint"])
    assert meta["train_config"]["privileged_critic"] is True
    assert set(net.state_dict()) == set(tiny(cfg).state_dict())  # no critic weights


def test_the_privileged_critics_targets_are_the_discounted_returns():
    """With the truth of a round in its steps, a batch carries the critic's targets: the
    discounted sum of the rewards from each step on (no bootstrap from the values), beside
    the GAE returns of the network's own value; bad --critic-lr values name the option."""
    from saboteur_experiments.train import Step, make_batch

    steps = [
        Step(np.zeros(2, np.float32), np.ones(2, bool), 0, 0.0, value, truth=np.ones(3, np.float32))
        for value in (0.5, -0.2, 0.9)
    ]
    steps[-1].reward = 1.0
    steps[0].reward = 0.5
    b = make_batch([steps], gamma=0.9, lam=0.95)
    assert b["ret_mc"].tolist() == pytest.approx([0.5 + 0.81, 0.9, 1.0])
    assert b["truth"].shape == (3, 3)
    _, ret = gae(np.array([0.5, 0, 1.0]), np.array([0.5, -0.2, 0.9]), 0.9, 0.95)
    assert b["ret"].tolist() == pytest.approx(ret.tolist())
    plain = [Step(s.obs, s.mask, 0, 0.0, s.value, s.reward) for s in steps]
    assert "ret_mc" not in make_batch([plain], gamma=0.9, lam=0.95)
    assert TrainConfig(critic_lr=0, privileged_critic=True).problems() == [
        "--critic-lr 0: must be a number > 0"
    ]
    assert TrainConfig(critic_lr=0.01).problems() == [
        "--critic-lr 0.01: only with --privileged-critic"
    ]


def _two_iterations(tmp_path, **overrides) -> TrainConfig:
    """:func:`_tiny_run` of two iterations on three games against the current policy and
    random players, without evaluations."""
    return _tiny_run(
        tmp_path,
        num_envs=3,
        pool_current=0.5,
        pool_snapshots=0,
        pool_random=0.5,
        iterations=2,
        eval_every=0,
        **overrides,
    )


def test_the_privileged_critic_is_saved_beside_the_checkpoints_and_continued_with_init(
    tmp_path, monkeypatch, capsys
):
    """--privileged-critic writes the critic beside every policy checkpoint (NAME.critic.pt,
    readable with weights_only=True); the policy checkpoint keeps the policy network alone, in
    its format; --init PATH with --privileged-critic starts the critic from PATH's, and says
    so, or from zero when there is none; a run without the critic leaves no stale one."""
    import saboteur_experiments.train as tr
    from saboteur_agents.network import PrivilegedCritic

    at_first_update: list[dict] = []
    real_update = tr.ppo_update

    def update(net, opt, batch, cfg, rng, critic=None):
        if critic is not None and not at_first_update:
            at_first_update.append({k: v.clone() for k, v in critic.state_dict().items()})
        return real_update(net, opt, batch, cfg, rng, critic)

    monkeypatch.setattr(tr, "ppo_update", update)
    cfg = _two_iterations(tmp_path, checkpoint_every=1, privileged_critic=True)
    res = train(cfg)
    run = tmp_path / "run"
    final = run / "final.pt"
    assert res["critic"] == str(run / "final.critic.pt")
    for name in ("final", "checkpoints/iter_0001", "checkpoints/iter_0002"):
        assert (run / f"{name}.critic.pt").is_file(), name
    # the policy checkpoint: the policy network alone, as before
    blob = torch.load(final, map_location="cpu", weights_only=True)
    assert set(blob) == {"state_dict", "meta"}
    assert set(blob["state_dict"]) == set(tiny(cfg).state_dict())
    load_checkpoint(final)
    # the critic: its trained weights (its last layer starts at exactly 0)
    saved = torch.load(run / "final.critic.pt", map_location="cpu", weights_only=True)
    fresh = PrivilegedCritic(32, cfg.game_config())
    assert set(saved["state_dict"]) == set(fresh.state_dict())
    assert json.loads(saved["meta"])["format"] == tr.CRITIC_FORMAT
    assert float(saved["state_dict"]["net.2.weight"].abs().sum()) > 0
    first = torch.load(run / "checkpoints/iter_0001.critic.pt", weights_only=True)
    assert not torch.equal(saved["state_dict"]["net.2.weight"], first["state_dict"]["net.2.weight"])
    capsys.readouterr()

    # --init with the critic beside it: the first update starts from the saved critic
    at_first_update.clear()
    train(replace(cfg, init=str(final), iterations=1, out=str(tmp_path / "more")))
    err = capsys.readouterr().err
    assert f"privileged critic: loaded from {run / 'final.critic.pt'}" in err
    for k, v in saved["state_dict"].items():
        assert torch.equal(at_first_update[0][k], v), k

    # --init without one: a fresh critic (a zero residual), and the line says so
    lone = tmp_path / "lone.pt"
    lone.write_bytes(final.read_bytes())
    at_first_update.clear()
    train(replace(cfg, init=str(lone), iterations=1, out=str(tmp_path / "fresh")))
    err = capsys.readouterr().err
    assert f"privileged critic: started fresh (no {tmp_path / 'lone.critic.pt'} beside" in err
    assert float(at_first_update[0]["net.2.weight"].abs().sum()) == 0
    assert not torch.equal(at_first_update[0]["net.0.weight"], saved["state_dict"]["net.0.weight"])

    # a critic of another network size: refused before any weight is copied (the critic
    # stays at its fresh start, its last layer exactly 0), and the line names the mismatch
    from saboteur_experiments.train import load_critic

    other = PrivilegedCritic(16, cfg.game_config())
    torch.nn.init.normal_(other.net[2].weight)
    tr.save_critic(lone, other)
    target = PrivilegedCritic(32, cfg.game_config())
    before = {k: v.clone() for k, v in target.state_dict().items()}
    line = load_critic(lone, target)
    assert line.startswith(f"privileged critic: started fresh ({critic_of(lone)} not loaded: ")
    t = target.truth_size
    assert f"net.0.weight has shape (16, {16 + t}), this critic's (32, {32 + t})" in line, line
    for k, v in target.state_dict().items():
        assert torch.equal(v, before[k]), k

    # a critic file that does not fit: started fresh, and why
    torch.save({"state_dict": {}, "meta": json.dumps({"format": "other"})}, critic_of(lone))
    train(replace(cfg, init=str(lone), iterations=1, out=str(tmp_path / "bad")))
    err = capsys.readouterr().err
    assert f"privileged critic: started fresh ({critic_of(lone)} not loaded: format 'other'" in err

    # the same folder trained again without the critic: the earlier run's files are gone,
    # so no critic is left beside a policy it was not trained with
    train(replace(cfg, privileged_critic=False, iterations=1))
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        "iter_0001.json",
        "iter_0001.pt",
    ]
    assert not (run / "final.critic.pt").exists() and (run / "final.pt").exists()


def critic_of(checkpoint: Path) -> Path:
    return checkpoint.with_suffix(".critic.pt")


def test_compile_s_is_the_time_numba_compiled_inside_an_iteration(tmp_path, monkeypatch):
    """metrics.csv's compile_s: the seconds of an iteration's wall time numba spent compiling
    (its decisions_per_s includes them: on a fresh install iteration 1 compiles every loop).
    A loop compiled in iteration 1's collection is counted there, within that iteration's
    wall time; CompileClock counts compiles between start and stop, not calls of a compiled
    loop."""
    numba = pytest.importorskip("numba")
    from numba.core import event

    import saboteur_experiments.train as tr

    def fresh_loop():
        def f(x):
            s = 0
            for i in range(x):
                s += i * i
            return s

        return numba.njit(cache=False)(f)

    def compile_one() -> float:
        mine = event.TimingListener()
        with event.install_listener("numba:compile", mine):
            fresh_loop()(3)
        return mine.duration

    clock = tr.CompileClock().start()
    assert clock.seconds() == 0.0
    took = compile_one()
    assert took > 0 and clock.seconds() == pytest.approx(took, rel=0.05, abs=1e-3)
    before = clock.seconds()
    clock.stop()
    compile_one()
    assert clock.seconds() == before  # stopped: not counted
    clock.start()  # started again: counts anew
    assert clock.seconds() == 0.0
    again = compile_one()
    assert clock.seconds() == pytest.approx(again, rel=0.05, abs=1e-3)
    clock.stop()

    forced: list[float] = []
    real_collect = tr.Collector.collect

    def collect(self, *args, **kwargs):
        if not forced:
            forced.append(compile_one())
        return real_collect(self, *args, **kwargs)

    monkeypatch.setattr(tr.Collector, "collect", collect)
    cfg = _two_iterations(tmp_path, checkpoint_every=0)
    train(cfg)
    rows = list(csv.DictReader(open(tmp_path / "run" / "metrics.csv")))
    first = float(rows[0]["compile_s"])
    assert forced[0] > 0.005  # a compile of several milliseconds at least
    assert first >= forced[0] - 1e-4  # (the two listeners read the clock a moment apart)
    assert first <= float(rows[0]["collect_s"]) + float(rows[0]["update_s"])
    assert (
        0 <= float(rows[1]["compile_s"]) <= float(rows[1]["collect_s"]) + float(rows[1]["update_s"])
    )


def test_an_earlier_run_in_out_is_refused_unless_overwrite(tmp_path, capsys):
    """``saboteur train --out DIR`` where DIR holds an earlier run is a usage error naming what
    lies there (two runs' files mixed: a report read one run's curve beside the other's
    checkpoints); ``--overwrite`` takes it; an empty or unrelated folder is fine."""
    from saboteur_experiments.train_options import parse_args

    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    assert parse_args(["--out", str(out)]).out == str(out)
    (out / "eval.csv").write_text("iteration\n")
    (out / "checkpoints" / "iter_0001.pt").write_bytes(b"")
    with pytest.raises(SystemExit) as exc:
        parse_args(["--out", str(out)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"--out {out}: holds an earlier training run (eval.csv, checkpoints/)" in err
    assert "--overwrite" in err
    assert parse_args(["--out", str(out), "--overwrite"]).out == str(out)


def test_a_run_removes_the_earlier_runs_outputs_first(tmp_path):
    """A second run into the same folder leaves none of the first's files: its evaluations,
    iteration checkpoints and TensorBoard events go (the second evaluates nothing and
    checkpoints once), a file the user put there stays, and ``--init`` may point into the
    folder (read before the files go)."""
    out = tmp_path / "run"
    train(_tiny_run(tmp_path, iterations=2, eval_deals=2, checkpoint_every=1, seed=1))
    first = sorted(p.name for p in (out / "checkpoints").iterdir())
    assert "iter_0002.pt" in first and "best_dev.pt" in first and (out / "eval.csv").exists()
    (out / "notes.txt").write_text("mine")
    (out / "checkpoints" / "notes.md").write_text("mine too")
    (out / "tb" / "mine").mkdir(parents=True, exist_ok=True)
    train(
        _tiny_run(
            tmp_path,
            iterations=1,
            eval_every=0,
            checkpoint_every=1,
            seed=2,
            init=str(out / "checkpoints" / "iter_0002.pt"),
        )
    )
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "iter_0001.json",
        "iter_0001.pt",
        "notes.md",  # the user's own file stays
    ]
    assert not (out / "eval.csv").exists()
    assert (out / "notes.txt").read_text() == "mine" and (out / "tb" / "mine").is_dir()
    tb = out / "tb"
    if tb.exists():  # tensorboard installed (the train extra): the second run's events alone
        assert len(list(tb.glob("events.out.tfevents.*"))) == 1
    rows = list(csv.DictReader(open(out / "metrics.csv")))
    assert [r["iteration"] for r in rows] == ["1"]


def test_evaluate_names_the_shipped_checkpoints(monkeypatch, capsys):
    """``--evaluate ppo`` is the base game's shipped checkpoint, ``--evaluate ppo
    --expansion`` Saboteur 2's, ``ppo:NAME`` an earlier shipped one (the agents' own names): a
    new user could not name the Saboteur 2 checkpoint but by its path in site-packages."""
    import saboteur_experiments.train as tr
    from saboteur_agents.ppo import PREVIOUS, SHIPPED
    from saboteur_experiments.cli import main

    seen = []
    monkeypatch.setattr(tr, "evaluate_checkpoint", lambda path, *a, **k: seen.append(path) or {})
    monkeypatch.setattr(tr, "_print_evaluation", lambda res: None)
    for argv in (["ppo"], ["ppo", "--expansion"], ["ppo:sab2-v1"], ["ppo:v1"]):
        main(["train", "--evaluate", *argv, "--deals", "1"])
    assert seen == [
        str(SHIPPED["base"]),
        str(SHIPPED["saboteur_2"]),
        str(PREVIOUS["sab2-v1"]),
        str(PREVIOUS["v1"]),
    ]
    assert "names its game" in _usage_error(
        capsys, ["train", "--evaluate", "ppo:v1", "--expansion"]
    )
    assert "no such checkpoint file" in _usage_error(capsys, ["train", "--evaluate", "ppo:nope"])
    assert "one checkpoint" in _usage_error(capsys, ["train", "--evaluate", "ppo:greedy"])
    for threads in (["--threads", "2"], ["--thread=2"]):
        assert "use --workers" in _usage_error(capsys, ["train", "--evaluate", "ppo", *threads])
    assert "unrecognized arguments: --nope" in _usage_error(
        capsys, ["train", "--evaluate", "ppo", "--nope"]
    )
