"""The Ray backend and RLlib training (docs/ray.md).

Skipped only where the ``ray`` extra is not installed (CI installs it: the README's test command
has ``[...,ray]``), so a user without the extra can still run the suite.  One local Ray (2 CPUs)
serves the module; the two-node cluster test starts its own after shutting it down.
"""

from __future__ import annotations

import json
import math

import pytest

ray = pytest.importorskip("ray")

from saboteur_experiments.tournament import Options, run, schedule, summarize, tournament  # noqa: E402

SPECS = ["random", "heuristic"]


def tiny_tasks():
    return schedule(SPECS, 3, 4, seed=0, num_rounds=1)


@pytest.fixture(scope="module")
def local_results():
    return run(tiny_tasks(), workers=1, progress=False)


@pytest.fixture(scope="module")
def local_ray():
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def _summary_json(results) -> str:
    return json.dumps(summarize(results, SPECS, n_boot=20, seed=0), sort_keys=True, default=float)


def test_ray_tournament_equals_local(local_ray, local_results):
    """A tiny tournament (3 players, 1 round, 4 deals, 2 agents) on a local Ray: the same
    results, game by game, and the same summary as the local backend, at 1 and 2 workers."""
    for workers in (1, 2):
        res = run(tiny_tasks(), workers=workers, progress=False, backend="ray")
        assert [r["game_id"] for r in res] == list(range(8))
        assert res == local_results
        assert _summary_json(res) == _summary_json(local_results)


def test_ray_tournament_options_and_records(local_ray, tmp_path):
    """``tournament(Options(backend="ray"))`` with ``--records``: the same results and record
    files as the local backend."""
    kw = dict(agents=SPECS, players=3, deals=2, rounds=1, bootstrap=10, progress=False)
    kw |= dict(records=True, plots=False)
    a, sa = tournament(Options(**kw, out=str(tmp_path / "local"), workers=1))
    b, sb = tournament(Options(**kw, out=str(tmp_path / "ray"), workers=2, backend="ray"))
    assert a == b and sa == sb
    names = sorted(p.name for p in (tmp_path / "local" / "records").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ray" / "records").iterdir())
    for n in names:
        assert (tmp_path / "local" / "records" / n).read_bytes() == (
            tmp_path / "ray" / "records" / n
        ).read_bytes()


def test_tournament_command_with_ray_writes_the_same_files(local_ray, tmp_path, capsys):
    """``saboteur tournament --backend ray``: the same games.csv, rounds.csv and summary (but
    the run's settings and timing) as the local backend, and the same progress bar."""
    from saboteur_experiments.tournament import main

    base = ["--players", "3", "--rounds", "1", "--deals", "2", "--no-plots", "--bootstrap", "10"]
    main([*base, "--workers", "1", "--out", str(tmp_path / "l")])
    local_err = capsys.readouterr().err
    main([*base, "--workers", "2", "--backend", "ray", "--out", str(tmp_path / "r")])
    ray_err = capsys.readouterr().err
    assert "games: 100%" in local_err and "games: 100%" in ray_err
    for name in ("games.csv", "rounds.csv"):
        assert (tmp_path / "l" / name).read_bytes() == (tmp_path / "r" / name).read_bytes()
    a, b = (json.loads((tmp_path / d / "summary.json").read_text()) for d in "lr")
    assert b["meta"]["backend"] == "ray" and a.pop("meta") != b.pop("meta")
    assert a == b


def test_ray_protocols_and_bluff_records(local_ray, tmp_path):
    """The role probe and the bluff benchmark's record generation give the local results."""
    from saboteur_experiments.bluff.records import record_set
    from saboteur_experiments.evaluation.protocols import role_probe

    kw = dict(players=3, deals=3, split="dev", seed=1)
    assert role_probe("heuristic", "random", **kw) == role_probe(
        "heuristic", "random", **kw, workers=2, backend="ray"
    )
    a = record_set(tmp_path / "a", "random", 3, 3, rounds=1)
    b = record_set(tmp_path / "b", "random", 3, 3, rounds=1, workers=2, backend="ray")
    assert [p.name for p in a] == [p.name for p in b]
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]


def test_ray_reference_map(local_ray):
    """reference.py's second map (the legal-action counts) goes through the same backend."""
    from saboteur_experiments.reference import _map, legal_counts

    tasks = tiny_tasks()[:3]
    assert _map(legal_counts, tasks, 2, "ray") == _map(legal_counts, tasks, 1)


def test_backend_usage_errors(capsys):
    """An unknown backend, or --address without --backend ray: usage errors (exit 2) naming
    the option."""
    from saboteur_experiments.tournament import main

    for argv, needle in (
        (["--backend", "spark"], "--backend 'spark': unknown backend"),
        (["--address", "1.2.3.4:6379"], "--address 1.2.3.4:6379: only with --backend ray"),
        (["--backend", "ray", "--address", ""], "--address '': an empty address"),
    ):
        with pytest.raises(SystemExit) as e:
            main(["--deals", "1", "--no-progress", *argv])
        assert e.value.code == 2
        assert needle in capsys.readouterr().err


def test_missing_ray_is_a_usage_error(monkeypatch, capsys):
    """Without Ray installed, --backend ray is a usage error naming the 'ray' extra."""
    import builtins

    from saboteur_experiments.evaluation.cli import main

    real = builtins.__import__

    def no_ray(name, *a, **k):
        if name == "ray" or name.startswith("ray."):
            raise ImportError("No module named 'ray'")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(SystemExit) as e:
        main(["random", "--deals", "1", "--backend", "ray"])
    assert e.value.code == 2
    assert "pip install 'saboteur-env[ray]'" in capsys.readouterr().err


def test_two_node_cluster_equals_local(local_results):
    """The same tiny tournament on a two-node cluster simulated on this machine
    (``ray.cluster_utils.Cluster``, one CPU per node), reached by its address."""
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        res = run(tiny_tasks(), workers=0, progress=False, backend="ray", address=cluster.address)
        assert len(ray.nodes()) == 2
        assert ray.cluster_resources()["CPU"] == 2
        assert res == local_results
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_rllib_one_iteration_and_agent(tmp_path):
    """One RLlib PPO iteration on a local Ray with 2 CPUs (one env runner): finite losses, no
    illegal action among the sampled ones (the env counts them; the engine would also raise),
    a checkpoint, and that checkpoint plays a whole game as the agent ``rllib:PATH``."""
    pytest.importorskip("torch")
    from saboteur_agents import make_agent
    from saboteur_experiments.play import play_game
    from saboteur_experiments.train_rllib import RLlibOptions, train

    if ray.is_initialized():
        ray.shutdown()
    try:
        res = train(
            RLlibOptions(
                iterations=1,
                players=3,
                env_runners=1,
                out=str(tmp_path / "rllib"),
                train_batch=256,
                minibatch=64,
                epochs=1,
                hidden=32,
                num_cpus=2,
                progress=False,
            )
        )
    finally:
        ray.shutdown()
    row = res["rows"][0]
    assert row["env_steps"] >= 256
    loss_keys = [k for k in row if k.endswith("loss")]
    assert {"policy_loss", "vf_loss", "total_loss"} <= set(loss_keys)
    assert all(math.isfinite(row[k]) for k in loss_keys)
    assert res["finite_losses"]
    assert res["actions"] > 0 and res["illegal_actions"] == 0
    agent = make_agent(res["agent_spec"])
    game = play_game([agent, make_agent("random"), make_agent("random")], 5, num_rounds=1)
    assert game["decisions"] > 0 and len(game["gold"]) == 3
    # greedy, and the module's own folder as the path
    sub = tmp_path / "rllib" / "checkpoint" / "learner_group" / "learner" / "rl_module" / "shared"
    greedy = [make_agent(f"rllib:{sub}+greedy"), make_agent("random"), make_agent("random")]
    play_game(greedy, 6, num_rounds=1)


def test_rllib_agent_errors(tmp_path, monkeypatch):
    """``rllib:`` with no checkpoint there is an error naming the path; without Ray the agent
    is a MissingExtraError naming the 'ray' extra."""
    import sys

    from saboteur_agents import make_agent
    from saboteur_agents.base import MissingExtraError

    with pytest.raises(FileNotFoundError, match="no RLlib checkpoint"):
        make_agent(f"rllib:{tmp_path}")
    with pytest.raises(ValueError, match="empty option"):
        make_agent("rllib:")
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "ray", None)
        with pytest.raises(MissingExtraError, match=r"'rllib' agent needs the 'ray' extra"):
            make_agent(f"rllib:{tmp_path}")


def test_rllib_per_role_policies_through_the_cli(tmp_path, capsys):
    """``saboteur train --backend rllib --policies role``: one policy per role, each with
    finite losses after one iteration; the checkpoint plays with its seat's role's policy."""
    pytest.importorskip("torch")
    from saboteur_agents import make_agent
    from saboteur_experiments.cli import main
    from saboteur_experiments.play import play_game

    out = tmp_path / "role"
    if ray.is_initialized():
        ray.shutdown()
    try:
        main(
            ["train", "--backend", "rllib", "--policies", "role", "--iterations", "1"]
            + ["--players", "4", "--env-runners", "0", "--num-cpus", "2", "--train-batch", "300"]
            + ["--minibatch", "64", "--epochs", "1", "--hidden", "16", "--no-progress"]
            + ["--out", str(out)]
        )
    finally:
        ray.shutdown()
    assert "illegal actions: 0" in capsys.readouterr().out
    summary = json.loads((out / "rllib.json").read_text())
    assert summary["illegal_actions"] == 0 and summary["finite_losses"]
    head = (out / "progress.csv").read_text().splitlines()[0].split(",")
    assert {"gold-digger/total_loss", "saboteur/total_loss"} <= set(head)
    agent = make_agent(summary["agent_spec"])
    play_game([agent] + [make_agent("random") for _ in range(3)], 2, num_rounds=1)
    assert sorted(agent.modules) == ["gold-digger", "saboteur"]


def test_train_backend_usage_errors(capsys):
    """``saboteur train --backend`` takes torch (the default trainer) or rllib."""
    from saboteur_experiments.cli import main

    with pytest.raises(SystemExit) as e:
        main(["train", "--backend", "spark"])
    assert e.value.code == 2 and "invalid choice: 'spark'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["train", "--backend", "rllib", "--players", "2"])
    assert e.value.code == 2 and "--players 2" in capsys.readouterr().err


def test_the_bluff_pipeline_checks_its_backend(tmp_path):
    """``pipeline.run`` itself refuses an unknown backend or a stray address (the CLI was the
    only check; a typo ran the benchmark locally)."""
    from saboteur_experiments.backends import BackendError
    from saboteur_experiments.bluff.pipeline import run

    for kwargs, needle in (
        ({"backend": "nope"}, "unknown backend"),
        ({"address": "x:1"}, "only with --backend ray"),
    ):
        with pytest.raises(BackendError, match=needle):
            run(players=[3], games=2, out=tmp_path, plots=False, quiet=True, **kwargs)
    assert not any(tmp_path.iterdir())  # refused before anything was written
