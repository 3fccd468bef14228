"""The PPO network, agent and checkpoints (DESIGN 6)."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import saboteur_env  # noqa: E402
from saboteur_agents import make_agent  # noqa: E402
from saboteur_agents.network import (  # noqa: E402
    CheckpointMismatchError,
    PolicyValueNet,
    env_spec,
    load_checkpoint,
    masked_entropy,
    masked_log_probs,
    sample_masked,
    save_checkpoint,
)
from saboteur_agents.ppo import PPOAgent  # noqa: E402
from saboteur_env.engine.config import GameConfig  # noqa: E402

torch.set_num_threads(1)


def tiny_net(config=None, seed=0):
    torch.manual_seed(seed)
    return PolicyValueNet(
        env_spec(config or GameConfig()), channels=8, hidden=32, conv_layers=2
    ).eval()


def random_positions(n=40, seed=0, players=5, expansion=False):
    """(observation, mask) pairs from random play."""
    env = saboteur_env.raw_env(num_players=players, expansion=expansion)
    rng = np.random.default_rng(seed)
    out = []
    env.reset(seed=seed)
    while len(out) < n:
        if all(env.terminations.values()):
            env.reset(seed=int(rng.integers(1000)))
        o = env.observe(env.agent_selection)
        out.append((o["observation"], o["action_mask"]))
        legal = np.flatnonzero(o["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return out


def test_layout_matches_codec():
    net = tiny_net()
    codec = saboteur_env.Codec(GameConfig())
    obs = torch.from_numpy(np.stack([o for o, _ in random_positions(3)]))
    logits, value = net(obs)
    assert logits.shape == (3, codec.n) and value.shape == (3,)
    assert net.n_variants * codec.n_cells == codec.blocks["place"][1]


def test_never_samples_masked_action_and_no_nans():
    net = tiny_net()
    rng = np.random.default_rng(1)
    gen = torch.Generator().manual_seed(1)
    positions = random_positions(60)
    n = net.n_actions
    obs = torch.from_numpy(np.stack([o for o, _ in positions]))
    with torch.no_grad():
        logits, _ = net(obs)
    masks = [m for _, m in positions]
    # adversarial masks: one legal action, a handful, dense, and a single legal action at the
    # lowest-logit index
    for _ in range(60):
        m = np.zeros(n, dtype=np.int8)
        m[rng.choice(n, size=int(rng.choice([1, 2, 5, 500, 9000])), replace=False)] = 1
        masks.append(m)
    for i in range(10):
        m = np.zeros(n, dtype=np.int8)
        m[int(logits[i].argmin())] = 1
        masks.append(m)
    mask = torch.from_numpy(np.stack(masks))
    big = logits.repeat(len(masks) // len(logits) + 1, 1)[: len(masks)] * 50  # sharp logits
    for _ in range(20):
        a, logp = sample_masked(big, mask, gen)
        assert bool(mask[torch.arange(len(a)), a].all())
        assert torch.isfinite(logp).all()
    lp = masked_log_probs(big, mask)
    ent = masked_entropy(lp)
    assert torch.isfinite(lp).all() and torch.isfinite(ent).all()
    assert (ent >= -1e-5).all()
    single = mask.sum(1) == 1
    assert torch.allclose(ent[single], torch.zeros(int(single.sum())), atol=1e-5)
    probs = lp.exp()
    assert float(probs[~mask.bool()].max()) == 0.0
    # gradients stay finite too
    big = big.clone().requires_grad_(True)
    (masked_entropy(masked_log_probs(big, mask)).sum()).backward()
    assert torch.isfinite(big.grad).all()
    # given the mask, the entropy skips the exponentials of masked entries: the same value and
    # the same gradient, bit for bit
    g2 = big.detach().clone().requires_grad_(True)
    ent2 = masked_entropy(masked_log_probs(g2, mask), mask)
    assert torch.equal(ent2, masked_entropy(masked_log_probs(big.detach(), mask)))
    ent2.sum().backward()
    assert torch.equal(g2.grad, big.grad)
    with pytest.raises(ValueError):
        sample_masked(big[:1], torch.zeros(1, n, dtype=torch.int8))


def test_checkpoint_round_trip_same_actions(tmp_path):
    config = GameConfig()
    net = tiny_net(config, seed=3)
    path = save_checkpoint(tmp_path / "c.pt", net, config, {"note": "test"})
    assert path.with_suffix(".json").exists()
    net2, meta = load_checkpoint(path, config)
    assert meta["train_config"] == {"note": "test"}
    positions = random_positions(25, seed=4)
    obs = torch.from_numpy(np.stack([o for o, _ in positions]))
    with torch.no_grad():
        assert torch.equal(net(obs)[0], net2(obs)[0])
    a1, a2 = PPOAgent(net=net), PPOAgent(path)
    for agent in (a1, a2):
        agent.reset(0, config, seed=11)
    acts1 = [a1.act(o, m) for o, m in positions]
    acts2 = [a2.act(o, m) for o, m in positions]
    assert acts1 == acts2
    assert all(m[a] for (_, m), a in zip(positions, acts1))
    # the same seed again gives the same actions; the spec string works too
    a3 = make_agent(f"ppo:{path}")
    a3.reset(0, config, seed=11)
    assert [a3.act(o, m) for o, m in positions] == acts1


def test_checkpoint_mismatch_is_a_clear_error(tmp_path):
    path = save_checkpoint(tmp_path / "c.pt", tiny_net(), GameConfig())
    other = GameConfig(board_window=(-5, 14, -8, 8))
    with pytest.raises(CheckpointMismatchError, match="does not match the environment"):
        load_checkpoint(path, other)
    agent = PPOAgent(path)
    with pytest.raises(CheckpointMismatchError, match="obs_size"):
        agent.reset(0, other, seed=0)
    # the other game: said first, with the option that fixes it
    with pytest.raises(
        CheckpointMismatchError,
        match=r"was trained for the base game and the environment plays Saboteur 2: pass "
        r"expansion=False \(--expansion on the command line, left out\)",
    ):
        load_checkpoint(path, GameConfig(expansion=True))
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointMismatchError, match="cannot be read") as err:
        load_checkpoint(tmp_path / "junk.pt")
    assert "weights_only=False" not in str(err.value)  # torch's unsafe advice is not passed on
    torch.save({"x": torch.zeros(1)}, tmp_path / "other.pt")
    with pytest.raises(CheckpointMismatchError, match="not a saboteur PPO checkpoint"):
        load_checkpoint(tmp_path / "other.pt")


def test_checkpoint_works_for_other_base_player_counts(tmp_path):
    path = save_checkpoint(tmp_path / "c.pt", tiny_net(), GameConfig())
    from saboteur_experiments.play import play_game

    res = play_game(
        [PPOAgent(path)] + [make_agent("random") for _ in range(2)], seed=2, num_rounds=1
    )
    assert res["decisions"] > 0


@pytest.mark.parametrize("expansion", [False, True], ids=["base", "saboteur_2"])
def test_shipped_checkpoints_load_safely_fit_and_replay(expansion):
    """Each shipped checkpoint: under 10 MB, loads with ``weights_only=True``, fits its game's
    spaces (and is refused by the other game), plays a whole game as ``ppo``, and gives the same
    actions for the same observations and seed."""
    from saboteur_agents.ppo import SHIPPED
    from saboteur_experiments.play import play_game

    config = GameConfig(num_players=5, expansion=expansion)
    path = SHIPPED[config.ruleset.name]
    assert path.stat().st_size < 10 * 2**20
    blob = torch.load(path, weights_only=True)  # no pickled code
    assert isinstance(blob, dict)
    net, meta = load_checkpoint(path, config)
    assert meta["spec"]["fingerprint"] == env_spec(config)["fingerprint"]
    with pytest.raises(CheckpointMismatchError):
        load_checkpoint(path, GameConfig(num_players=5, expansion=not expansion))
    agents = [make_agent("ppo")] + [make_agent("random") for _ in range(4)]
    res = play_game(agents, seed=5, num_rounds=1, expansion=expansion)
    assert res["decisions"] > 0
    positions = random_positions(20, seed=4, expansion=expansion)

    def actions():
        agent = make_agent("ppo")
        agent.reset(2, config, seed=11)
        # unrelated positions: no events between them (a prior network reads them from info)
        return [agent.act(o, m, {"events": []}) for o, m in positions]

    first = actions()
    assert first == actions() and all(m[a] for a, (_, m) in zip(first, positions))


def test_checkpoint_path_with_a_comma(tmp_path):
    """``ppo:<path>`` with a comma in the path (a run folder such as ``runs/lr3e-4,ent0``)
    used to fail with 'at most one checkpoint path'; only a leading/trailing ``greedy`` is an
    option."""
    config = GameConfig()
    folder = tmp_path / "run,1"
    path = save_checkpoint(folder / "c.pt", tiny_net(config), config)
    for spec, greedy in (
        (f"ppo:{path}", False),
        (f"ppo:{path},greedy", True),
        (f"ppo:{path}+greedy", True),
        (f"ppo:greedy+{path}", True),
        (f"ppo:greedy,{path}", True),
    ):
        agent = make_agent(spec)
        assert agent.path == path and agent.greedy is greedy
        agent.reset(0, config, seed=0)
    with pytest.raises(FileNotFoundError, match="not found"):
        make_agent(f"ppo:{path},{path}")


def test_mismatched_checkpoint_is_a_usage_error_not_a_traceback(tmp_path, capsys):
    """The shipped base-game checkpoint in a Saboteur 2 game (or any checkpoint that does not
    fit) ended `saboteur tournament` / `saboteur play` in a traceback; now exit 2 with the
    mismatch, naming the checkpoint once."""
    from saboteur_experiments.cli import main

    path = save_checkpoint(tmp_path / "c.pt", tiny_net(), GameConfig())
    for argv in (
        ["play", "--agents", f"ppo:{path}", "--expansion", "--players", "5"],
        [
            "tournament",
            "--agents",
            f"ppo:{path},random",
            "--expansion",
            "--deals",
            "1",
            "--rounds",
            "1",
            "--no-progress",
            "--no-plots",
            "--out",
            str(tmp_path / "t"),
        ],
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        # checked before play: one short line naming the option, the game and the checkpoint's
        assert "--agents: " in err and "cannot play Saboteur 2 at 5 players" in err
        assert "(it was trained for the base game)" in err
        assert "spaces are not this game's" in err and "Traceback" not in err
        assert err.count(str(path)) == 1


def test_weights_that_do_not_fit_their_metadata_are_a_clear_error(tmp_path):
    path = save_checkpoint(tmp_path / "c.pt", tiny_net(), GameConfig())
    blob = torch.load(path, weights_only=True)
    meta = json.loads(blob["meta"])
    meta["net"]["channels"] = 16
    torch.save({"state_dict": blob["state_dict"], "meta": json.dumps(meta)}, path)
    with pytest.raises(CheckpointMismatchError, match="weights do not fit"):
        load_checkpoint(path)
    torch.save({"state_dict": blob["state_dict"], "meta": 3}, path)
    with pytest.raises(CheckpointMismatchError, match="metadata"):
        load_checkpoint(path)


def _edit_checkpoint(path, meta_edit=None, state_edit=None):
    blob = torch.load(path, weights_only=True)
    meta, state = json.loads(blob["meta"]), blob["state_dict"]
    if meta_edit:
        meta_edit(meta)
    if state_edit:
        state_edit(state)
    torch.save({"state_dict": state, "meta": json.dumps(meta)}, path)
    return path


@pytest.mark.parametrize(
    "key, value", [("conv_layers", 10**7), ("channels", 0), ("hidden", "128"), ("hidden", True)]
)
def test_a_network_shape_out_of_bounds_is_refused_before_building(
    tmp_path, monkeypatch, key, value
):
    """``conv_layers: 10**7`` in the metadata would build ten million layers: it is refused
    before any layer is built (the network's constructor is never called)."""
    from saboteur_agents import network

    path = save_checkpoint(tmp_path / "c.pt", tiny_net(), GameConfig())
    _edit_checkpoint(path, lambda m: m["net"].__setitem__(key, value))

    def never(*a, **k):
        raise AssertionError("PolicyValueNet built for an out-of-bounds shape")

    monkeypatch.setattr(network, "PolicyValueNet", never)
    with pytest.raises(CheckpointMismatchError, match=rf"net\.{key}=.* must be an int in"):
        load_checkpoint(path)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_weights_are_refused_on_load(tmp_path, bad):
    path = save_checkpoint(tmp_path / "c.pt", tiny_net(), GameConfig())
    first = next(iter(tiny_net().state_dict()))

    def poison(state):
        state[first] = state[first].clone()
        state[first].view(-1)[0] = bad

    _edit_checkpoint(path, state_edit=poison)
    with pytest.raises(CheckpointMismatchError, match=rf"weight '{first}' has NaN or infinite"):
        load_checkpoint(path)


def test_a_string_game_config_is_a_clear_error(tmp_path, capsys):
    """``saboteur train --evaluate`` on a checkpoint whose metadata ``game_config`` is a string:
    a usage error naming the field, not an AttributeError traceback."""
    from saboteur_experiments.cli import main

    path = save_checkpoint(tmp_path / "c.pt", tiny_net(), GameConfig())
    _edit_checkpoint(path, lambda m: m.__setitem__("game_config", "base 5p"))
    with pytest.raises(CheckpointMismatchError, match="'game_config' must be an object"):
        load_checkpoint(path)
    with pytest.raises(SystemExit) as exc:
        main(["train", "--evaluate", str(path), "--deals", "1"])
    assert exc.value.code == 2
    cap = capsys.readouterr()
    assert "game_config" in cap.err and "Traceback" not in cap.err and "usage:" in cap.err


@pytest.mark.parametrize(
    "field, value",
    [("num_players", "5"), ("num_players", 5.7), ("num_rounds", True), ("num_rounds", 0)],
)
def test_a_game_config_count_that_is_not_a_positive_int_is_refused(tmp_path, field, value):
    """``evaluate_checkpoint`` reads the player and round counts from the metadata: a JSON
    ``"5"`` or ``5.7`` is refused, not turned into 5 by ``int()``."""
    from saboteur_experiments.train import evaluate_checkpoint

    path = save_checkpoint(tmp_path / "c.pt", tiny_net(), GameConfig())
    _edit_checkpoint(path, lambda m: m["game_config"].__setitem__(field, value))
    with pytest.raises(CheckpointMismatchError, match=rf"game_config {field}={value!r}; must be"):
        evaluate_checkpoint(path, deals=1)


def test_seed_averaged_policy_averages_the_logits_and_replays_by_seed(tmp_path):
    """``ppo:avg=A|B``: the mean of the two networks' logits (so the mean of their masked
    log-probabilities up to a constant), never a masked action, the same action for the same
    observation and seed, and the single network's actions when averaging one checkpoint."""
    from saboteur_agents.network import AveragedPolicy

    config = GameConfig()
    a, b = tiny_net(config, seed=1), tiny_net(config, seed=2)
    pa = save_checkpoint(tmp_path / "a.pt", a, config)
    pb = save_checkpoint(tmp_path / "b.pt", b, config)
    positions = random_positions(12, seed=3)
    obs = torch.from_numpy(np.stack([o for o, _ in positions]))
    avg = AveragedPolicy([a, b])
    la, lb, lm = a(obs)[0], b(obs)[0], avg(obs)[0]
    assert torch.allclose(lm, (la + lb) / 2)
    mask = torch.from_numpy(np.stack([m for _, m in positions]))
    # logit averaging = the normalised geometric mean of the masked policies
    geo = (masked_log_probs(la, mask) + masked_log_probs(lb, mask)) / 2
    legal = mask.bool()
    want = torch.log_softmax(torch.where(legal, geo, torch.full_like(geo, -1e9)), dim=1)
    assert torch.allclose(masked_log_probs(lm, mask)[legal], want[legal], atol=1e-5)

    def actions(spec):
        agent = make_agent(spec)
        agent.reset(0, config, seed=7)
        return [agent.act(o, m) for o, m in positions]

    both = actions(f"ppo:avg={pa}|{pb}")
    assert both == actions(f"ppo:avg={pa}|{pb}")
    assert all(m[x] for x, (_, m) in zip(both, positions))
    assert actions(f"ppo:avg={pa}") == actions(f"ppo:{pa}")
    with pytest.raises(FileNotFoundError, match="not found"):
        make_agent(f"ppo:avg={pa}|{tmp_path / 'missing.pt'}")
    with pytest.raises(ValueError, match="different specs"):
        AveragedPolicy([a, tiny_net(GameConfig(expansion=True))])


def test_ppo_plays_the_shipped_checkpoint_of_the_game(tmp_path, monkeypatch):
    """``ppo`` without a path loads the shipped checkpoint of the game it is reset for: base
    or Saboteur 2 (a missing one is a clear error naming the game)."""
    import saboteur_agents.ppo as ppo

    base, sab2 = GameConfig(), GameConfig(expansion=True)
    pb = save_checkpoint(tmp_path / "base.pt", tiny_net(base), base)
    monkeypatch.setattr(ppo, "SHIPPED", {"base": pb, "saboteur_2": tmp_path / "none.pt"})
    agent = make_agent("ppo")
    agent.reset(0, base, seed=0)
    assert agent.net.spec["fingerprint"] == env_spec(base)["fingerprint"]
    with pytest.raises(FileNotFoundError, match="Saboteur 2"):
        make_agent("ppo").reset(0, sab2, seed=0)
    ps = save_checkpoint(tmp_path / "sab2.pt", tiny_net(sab2), sab2)
    monkeypatch.setattr(ppo, "SHIPPED", {"base": pb, "saboteur_2": ps})
    agent = make_agent("ppo")
    agent.reset(0, sab2, seed=0)
    assert agent.net.spec["fingerprint"] == env_spec(sab2)["fingerprint"]
    agent.reset(0, base, seed=0)  # the same agent in a base game plays the base checkpoint
    assert agent.net.spec["fingerprint"] == env_spec(base)["fingerprint"]


def test_a_network_at_its_prior_plays_the_softmax_heuristics_probabilities():
    """``start_at_prior``: the residual is exactly 0, so a PPO agent of the network gives every
    legal action the softmax heuristic's probability, decision by decision of a seeded 5-player
    game (the prior reads each decision's events as the softmax agent does)."""
    from saboteur_agents.softmax import SoftmaxAgent

    env = saboteur_env.raw_env(num_players=5)
    env.reset(seed=11)
    net = tiny_net(env.config)
    net.start_at_prior("softmax:t=0.1")
    ppo, soft = [PPOAgent(net=net) for _ in range(5)], [SoftmaxAgent() for _ in range(5)]
    for s in range(5):
        ppo[s].reset(s, env.config, seed=s)
        soft[s].reset(s, env.config, seed=s)
    decisions, worst = 0, 0.0
    while not all(env.terminations.values()):
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        o, info = env.observe(agent), env.infos[agent]
        legal, p = soft[seat].probs(o["observation"], o["action_mask"], info)
        with torch.no_grad():
            assert not net(torch.as_tensor(o["observation"])[None])[0].any()  # residual 0
        # what the agent samples from (act calls it)
        logits = ppo[seat].policy_logits(o["observation"], o["action_mask"], info)
        with torch.no_grad():
            q = masked_log_probs(logits, torch.as_tensor(o["action_mask"])[None])[0].exp()
        assert float(q.sum()) == pytest.approx(1.0, abs=1e-5)
        worst = max(worst, float(np.abs(q.numpy()[legal] - p).max()))
        decisions += 1
        env.step(int(legal[np.argmax(p)]))
    assert decisions > 100
    assert worst < 1e-5


def test_the_prior_travels_with_the_checkpoint_and_the_agent_adds_it(tmp_path):
    """A checkpoint keeps its network's prior; the loaded agent plays the prior plus the
    residual (with a residual of 0 the softmax heuristic's choice when greedy); a checkpoint
    with an unusable prior, or averaging networks of different priors, is refused."""
    from saboteur_agents.network import AveragedPolicy, prior_agent, prior_rows

    config = GameConfig()
    net = tiny_net(config)
    net.start_at_prior("softmax:t=0.1")
    path = save_checkpoint(tmp_path / "p.pt", net, config)
    assert json.loads(path.with_suffix(".json").read_text())["prior"] == "softmax:t=0.1"
    loaded, meta = load_checkpoint(path)
    assert loaded.prior == "softmax:t=0.1" and meta["prior"] == "softmax:t=0.1"
    plain = save_checkpoint(tmp_path / "plain.pt", tiny_net(config), config)
    assert "prior" not in json.loads(plain.with_suffix(".json").read_text())
    assert load_checkpoint(plain)[0].prior == ""

    env = saboteur_env.raw_env(num_players=5)
    env.reset(seed=4)
    greedy = make_agent(f"ppo:{path}+greedy")
    heur = make_agent("heuristic")
    for agent in (greedy, heur):
        agent.reset(0, env.config, seed=1)
    from saboteur_agents.softmax import INNER_SEED

    heur.reset(0, env.config, seed=INNER_SEED)  # the prior's inner heuristic's tie-breaks
    plays = 0
    while not all(env.terminations.values()):
        agent = env.agent_selection
        o, info = env.observe(agent), env.infos[agent]
        if env.agent_name_mapping[agent] == 0:
            a = greedy.act(o["observation"], o["action_mask"], info)
            assert a == heur.act(o["observation"], o["action_mask"], info)
            plays += 1
        else:
            legal = np.flatnonzero(o["action_mask"])
            a = int(legal[0])
        env.step(a)
    assert plays > 5
    env.reset(seed=4)
    o = env.observe(env.agent_selection)
    blind = make_agent(f"ppo:{path}")
    blind.reset(0, env.config, seed=1)
    with pytest.warns(UserWarning, match="without info"):
        blind.act(o["observation"], o["action_mask"])

    _edit_checkpoint(path, meta_edit=lambda m: m.update(prior="random"))
    with pytest.raises(CheckpointMismatchError, match="prior.*no logits"):
        load_checkpoint(path)
    _edit_checkpoint(path, meta_edit=lambda m: m.update(prior=3))
    with pytest.raises(CheckpointMismatchError, match="'prior' is unusable"):
        load_checkpoint(path)
    with pytest.raises(ValueError, match="different priors"):
        AveragedPolicy([net, tiny_net(config)])
    with pytest.raises(ValueError, match="unknown agent"):
        prior_agent("sofmax")
    n = env_spec(config)["n_actions"]
    with pytest.raises(ValueError, match="outside"):
        prior_rows([(np.array([n]), np.zeros(1))], n)
    with pytest.raises(ValueError, match="NaN"):
        prior_rows([(np.array([0]), np.array([np.nan]))], n)
    # a legal action the prior gives probability 0 is as good as masked
    idx, val = prior_rows([(np.array([3, 5]), np.array([0.0, -np.inf]))], n)
    assert idx.tolist() == [[3, 5]] and val.tolist() == [[0.0, -1e9]]


def test_the_agent_takes_the_batchs_read_only_arrays_without_a_warning():
    """``VectorGame``'s observation and mask are read-only views; the agent copies them for
    torch (which warns of a non-writable array, once per process: hence a fresh process, with
    warnings as errors) and picks the same legal action as from writable copies."""
    import subprocess
    import sys

    code = (
        "import warnings\n"
        "warnings.simplefilter('error')\n"
        "from saboteur_agents import make_agent\n"
        "from saboteur_env.vector import VectorGame\n"
        "vec = VectorGame(1, num_players=5)\n"
        "vec.reset(seed=3)\n"
        "obs, mask = vec.observation[0], vec.legal_action_mask[0]\n"
        "assert not obs.flags.writeable and not mask.flags.writeable\n"
        "picked = []\n"
        "for o, m in ((obs, mask), (obs.copy(), mask.copy())):\n"
        "    agent = make_agent('ppo')\n"
        "    agent.reset(int(vec.current_player[0]), vec.config, seed=7)\n"
        "    picked.append(agent.act(o, m, {'events': list(vec.events[0])}))\n"
        "assert picked[0] == picked[1] and mask[picked[0]]\n"
        "print('ok')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]
