"""Search targets (experiments/search_targets.py, issue 18): the improved policy computed by
hand, a candidate that wins now valued 1 from the true state, a tiny collect and fit end to
end (train deals only, legal candidates, the same seed the same shard, a checkpoint that loads
with ``weights_only=True``), and clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from saboteur_agents.heuristic import HeuristicAgent  # noqa: E402
from saboteur_agents.network import (  # noqa: E402
    CheckpointMismatchError,
    PolicyValueNet,
    env_spec,
    load_checkpoint,
    save_checkpoint,
)
from saboteur_agents.ppo import SHIPPED  # noqa: E402
from saboteur_env.engine import GameConfig  # noqa: E402
from saboteur_experiments.evaluation.splits import TRAIN  # noqa: E402
from saboteur_experiments.search_targets import (  # noqa: E402
    CollectConfig,
    FitConfig,
    candidate_values,
    collect,
    fit,
    improved_targets,
    load_shards,
    main,
)

torch.set_num_threads(1)
TOP0 = ["--top", "0", "--games", "1"]


CONFIG = GameConfig(num_players=5, num_rounds=1)
SPEC = env_spec(CONFIG)


def _tiny(tmp_path_factory, name: str, seed: int = 0, prior: str = "", sharp=False) -> str:
    """A small untrained base-game network saved as a checkpoint (fast to run); ``sharp``:
    random biases of its policy heads, far from the near-uniform policy of a fresh one."""
    torch.manual_seed(seed)
    net = PolicyValueNet(SPEC, channels=8, hidden=32, conv_layers=2).eval()
    if sharp:
        with torch.no_grad():
            net.place_head.bias.normal_(0.0, 3.0)
            net.flat_head.bias.normal_(0.0, 3.0)
    if prior:
        net.start_at_prior(prior)
    return str(save_checkpoint(tmp_path_factory.mktemp("ckpt") / name, net, CONFIG))


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory):
    return _tiny(tmp_path_factory, "tiny.pt")


def test_improved_targets_by_hand():
    """p0 = (0.5, 0.3, 0.2); candidates 0 (lost) and 1 (won), exp(beta) = 3: their mass 0.8
    is split 0.5 : 0.9, so 0.8 * 5/14 and 0.8 * 9/14; action 2 keeps 0.2."""
    p0 = torch.tensor([[0.5, 0.3, 0.2]], dtype=torch.float64)
    cand = torch.tensor([[0, 1, -1]])
    q = torch.tensor([[0.0, 1.0, float("nan")]], dtype=torch.float64)
    t = improved_targets(p0, cand, q, float(np.log(3.0)))
    assert t[0].tolist() == pytest.approx([0.8 * 5 / 14, 0.8 * 9 / 14, 0.2])
    # beta 0: the starting policy itself
    assert improved_targets(p0, cand, q, 0.0)[0].tolist() == pytest.approx([0.5, 0.3, 0.2])
    # an unused slot (-1) never writes action 0: candidates 1 and 2 only
    t = improved_targets(p0, torch.tensor([[1, 2, -1]]), torch.tensor([[1.0, 0.0, np.nan]]), 1.0)
    e = float(np.e)
    assert t[0].tolist() == pytest.approx(
        [0.5, 0.5 * 0.3 * e / (0.3 * e + 0.2), 0.5 * 0.2 / (0.3 * e + 0.2)]
    )
    with pytest.raises(ValueError, match="beta"):
        improved_targets(p0, cand, q, -1.0)


def test_a_candidate_that_wins_now_is_worth_1():
    """The search agent's test position (seat 0 can close the tunnel to the gold it mapped,
    RULES 5.1): that candidate's value is 1, the values repeat for the same seed, and the game
    is left as it was."""
    from test_ismcts import _winning_position

    g, enc, codec, win = _winning_position()
    legal = np.flatnonzero(codec.mask(g))
    others = [int(a) for a in legal if a != win][:3]
    players = [HeuristicAgent() for _ in range(g.n)]
    before = (g.current, len(g.events), len(g.round_results))
    q = candidate_values(g, [win, *others], players, codec, enc, seed=7)
    assert q[0] == 1.0
    assert all(v in (0.0, 1.0) for v in q)
    assert candidate_values(g, [win, *others], players, codec, enc, seed=7) == q
    assert (g.current, len(g.events), len(g.round_results)) == before


def test_collect_and_fit_end_to_end(tmp_path, tiny_checkpoint):
    out = tmp_path / "st"
    cfg = CollectConfig(checkpoint=tiny_checkpoint, out=str(out), seed=3, games=2, top=2)
    res = collect(cfg, progress=False)
    assert res["games"] == 2 and res["states"] > 0
    data = load_shards([out / "shard_3.npz"])
    m = res["states"]
    assert data["obs"].shape == (m, SPEC["obs_size"]) and data["mask"].shape == (
        m,
        SPEC["n_actions"],
    )
    assert all(int(d) in TRAIN for d in data["deal"])  # never a dev or test deal
    rows = np.arange(m)
    for c in range(data["cand"].shape[1]):
        used = data["cand"][:, c] >= 0
        assert data["mask"][rows[used], data["cand"][used, c]].all()  # every candidate legal
        assert np.isin(data["q"][used, c], (0.0, 1.0)).all()
    assert data["mask"][rows, data["played"]].all()
    assert (data["cand"] == data["heuristic"][:, None]).any(axis=1).all()
    # both roles, in turn: the first game's seat is a saboteur, the second's a gold-digger
    roles = CONFIG.ruleset.roles
    assert data["role"][0] == roles.index("saboteur") and data["role"][-1] == roles.index(
        "gold-digger"
    )
    assert json.loads((out / "collect_3.json").read_text())["states"] == m
    # the same seed: the same shard
    again = collect(CollectConfig(**{**cfg.__dict__, "out": str(tmp_path / "b")}), progress=False)
    data2 = load_shards([tmp_path / "b" / "shard_3.npz"])
    assert again["states"] == m
    for k in ("obs", "cand", "q", "deal", "played"):
        np.testing.assert_array_equal(data[k], data2[k])

    ck = tmp_path / "fit.pt"
    summary = fit(
        FitConfig(
            shards=(str(out / "shard_3.npz"),),
            init=tiny_checkpoint,
            out=str(ck),
            epochs=2,
            lr=1e-3,
            holdout=0.5,
            threads=1,
        ),
        progress=False,
    )
    assert [e["epoch"] for e in summary["epochs"]] == [1, 2]
    assert all(np.isfinite([e["loss"], e["kl"], e["value"]]).all() for e in summary["epochs"])
    assert summary["epochs"][-1]["kl"] > 0  # lr 1e-3: the policy moved from its start
    net, meta = load_checkpoint(ck)  # weights_only=True inside
    assert net.spec == load_checkpoint(tiny_checkpoint)[0].spec
    assert meta["train_config"]["search_targets"]["beta"] == 3.0
    assert summary["checkpoint_bytes"] == ck.stat().st_size


def test_errors_are_named(tmp_path, tiny_checkpoint, capsys):
    with pytest.raises(ValueError, match="minutes or games"):
        collect(CollectConfig(checkpoint=tiny_checkpoint, out=str(tmp_path)), progress=False)
    with pytest.raises(ValueError, match="unknown roles"):
        collect(
            CollectConfig(checkpoint=tiny_checkpoint, out=str(tmp_path), games=1, roles=("boss",)),
            progress=False,
        )
    with pytest.raises(SystemExit) as err:
        main(["collect", "--checkpoint", tiny_checkpoint, "--out", str(tmp_path)] + TOP0)
    assert err.value.code == 2 and "top must be >= 1" in capsys.readouterr().err
    collect(CollectConfig(checkpoint=tiny_checkpoint, out=str(tmp_path), games=1), progress=False)
    shard = str(tmp_path / "shard_0.npz")
    # another game's checkpoint (Saboteur 2's shipped one) is named as such
    with pytest.raises(CheckpointMismatchError, match="another game"):
        fit(FitConfig(shards=(shard,), init=str(SHIPPED["saboteur_2"]), out=str(tmp_path / "x.pt")))
    with pytest.raises(ValueError, match="not a checkpoint of the base game's spaces"):
        collect(
            CollectConfig(checkpoint=str(SHIPPED["saboteur_2"]), out=str(tmp_path / "s2"), games=1)
        )
    # never over the starting checkpoint, nor over an earlier output without overwrite
    with pytest.raises(ValueError, match="is the --init checkpoint"):
        fit(FitConfig(shards=(shard,), init=tiny_checkpoint, out=tiny_checkpoint, overwrite=True))
    with pytest.raises(ValueError, match="exists; pass --overwrite"):
        collect(CollectConfig(checkpoint=tiny_checkpoint, out=str(tmp_path), games=1))
    with pytest.raises(ValueError, match="is a file"):
        collect(CollectConfig(checkpoint=tiny_checkpoint, out=shard, games=1))
    with pytest.raises(ValueError, match="games must be >= 1"):
        collect(CollectConfig(checkpoint=tiny_checkpoint, out=str(tmp_path / "g"), games=0))
    with pytest.raises(ValueError, match="given twice"):
        load_shards([shard, shard])
    with pytest.raises(ValueError, match="collect_0.json is not a shard of collect"):
        load_shards([str(tmp_path / "collect_0.json")])
    with pytest.raises(ValueError, match="no shard"):
        load_shards([])
    with pytest.raises(ValueError, match=r"lr=nan \(a finite number > 0\); beta=-1"):
        fit(
            FitConfig(
                shards=(shard,),
                init=tiny_checkpoint,
                out=str(tmp_path / "x.pt"),
                lr=float("nan"),
                beta=-1,
            )
        )


def test_fit_refuses_shards_of_another_checkpoint(tmp_path, tmp_path_factory, tiny_checkpoint):
    """The targets are built from --init: shards collected with other weights are refused."""
    collect(CollectConfig(checkpoint=tiny_checkpoint, out=str(tmp_path), games=1), progress=False)
    other = _tiny(tmp_path_factory, "other.pt", seed=1, sharp=True)
    with pytest.raises(CheckpointMismatchError, match="not collected with"):
        fit(
            FitConfig(
                shards=(str(tmp_path / "shard_0.npz"),), init=other, out=str(tmp_path / "x.pt")
            )
        )


def test_a_residual_network_is_refused(tmp_path, tmp_path_factory, tiny_checkpoint):
    residual = _tiny(tmp_path_factory, "residual.pt", prior="softmax:t=0.1")
    with pytest.raises(ValueError, match="residual on the prior"):
        collect(CollectConfig(checkpoint=residual, out=str(tmp_path), games=1), progress=False)
    assert not list(tmp_path.iterdir())  # nothing written
    collect(CollectConfig(checkpoint=tiny_checkpoint, out=str(tmp_path), games=1), progress=False)
    with pytest.raises(ValueError, match="residual on the prior"):
        fit(
            FitConfig(
                shards=(str(tmp_path / "shard_0.npz"),), init=residual, out=str(tmp_path / "x.pt")
            )
        )
