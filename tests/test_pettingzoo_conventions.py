"""PettingZoo conventions (DESIGN 5, 8): ``max_cycles`` with PettingZoo's per-agent meaning, the
``saboteur_v0.parallel_env`` entry point, ``state()`` / ``state_space`` (the spectator's view for
centralised critics) and ``render_seat`` validated at construction."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from pettingzoo.test import max_cycles_test, parallel_api_test

import saboteur_env
from saboteur_env import ConfigError, GameConfig, saboteur_v0
from saboteur_env.encoding.observation import HIDDEN_VIEWS, ObservationEncoder, gold_bound
from saboteur_env.engine.cards import GOAL_GOLD

CONFIGS = [{"num_players": 5}, {"num_players": 4, "expansion": True}]


def legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# --- max_cycles ----------------------------------------------------------------------------
@pytest.mark.parametrize("options", CONFIGS)
@pytest.mark.parametrize("max_cycles", [1, 4])
def test_max_cycles_is_per_agent(options, max_cycles):
    """Each agent acts about max_cycles times: every agent is truncated in the step of the
    (max_cycles * num_players)-th decision, then gets one dead step (DESIGN 5)."""
    e = saboteur_v0.env(max_cycles=max_cycles, **options)
    e.reset(seed=3)
    n = e.unwrapped.config.num_players
    assert e.unwrapped.config.max_decisions == max_cycles * n
    rng = np.random.default_rng(3)
    live, dead = 0, []
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        assert not term
        if trunc:
            dead.append(agent)
            e.step(None)
            continue
        e.step(legal(obs["action_mask"], rng))
        live += 1
        assert all(e.truncations.values()) == (live == max_cycles * n)
    assert live == max_cycles * n == e.unwrapped.game.decisions
    assert sorted(dead) == sorted(e.possible_agents)


@pytest.mark.parametrize("bad", [True, False, 0, -3, 2.5, "4"])
def test_max_cycles_must_be_a_positive_int(bad):
    with pytest.raises(ConfigError, match=r"max_cycles=.*positive int"):
        GameConfig(max_cycles=bad)


def test_max_cycles_default_is_unbounded():
    assert GameConfig().max_cycles is None and GameConfig().max_decisions is None


def test_pettingzoo_max_cycles_test():
    """PettingZoo's own test, unmodified: its unmasked ``action_space(agent).sample()`` draws
    legal actions (:class:`saboteur_env.aec.ActionSpace`), the parallel view truncates after
    ``max_cycles`` parallel steps and each AEC agent acts ``max_cycles`` times (base game:
    in Saboteur 2 one agent's pass is several decisions, and the bound counts decisions)."""
    max_cycles_test(saboteur_v0)


@pytest.mark.parametrize("max_cycles", [1, 3])
def test_parallel_view_truncates_after_max_cycles_steps(max_cycles):
    par = saboteur_v0.parallel_env(max_cycles=max_cycles, num_players=4)
    par.reset(seed=5)
    for step in range(1, max_cycles + 1):
        actor = par.unwrapped.agent_selection
        mask = par.unwrapped.observe(actor)["action_mask"]
        action = int(np.flatnonzero(mask)[0])
        _, _, terms, truncs, _ = par.step({a: (action if a == actor else 0) for a in par.agents})
        assert all(truncs.values()) == (step == max_cycles)
        assert not any(terms.values())
    assert par.agents == [] and par.unwrapped.game.decisions == max_cycles
    assert par.step({}) == ({}, {}, {}, {}, {})
    par.reset(seed=5)  # the count starts again
    assert len(par.agents) == 4


@pytest.mark.parametrize("players", [2, 12])
def test_parallel_view_of_saboteur_2_outside_the_base_counts(players):
    """max_cycles is checked with the other options (it was checked as a base game)."""
    par = saboteur_v0.parallel_env(num_players=players, expansion=True, max_cycles=2)
    par.reset(seed=1)
    assert len(par.agents) == players


def test_parallel_view_checks_max_cycles():
    with pytest.raises(ConfigError, match=r"max_cycles="):
        saboteur_v0.parallel_env(max_cycles=0)


def test_parallel_step_without_the_acting_agents_action_is_refused_untouched():
    p = saboteur_v0.parallel_env(num_players=3)
    obs, _ = p.reset(seed=1)
    acting = p.aec_env.agent_selection
    before = p.aec_env.unwrapped.game.decisions
    for bad in ({}, {a: 0 for a in p.agents if a != acting}, [0, 0, 0]):
        with pytest.raises(ValueError, match=rf"'{acting}' is to act"):
            p.step(bad)
    assert p.aec_env.unwrapped.game.decisions == before and p.aec_env.agent_selection == acting
    p.step({acting: int(np.flatnonzero(obs[acting]["action_mask"])[0])})
    assert p.aec_env.unwrapped.game.decisions == before + 1


def test_unmasked_sample_is_a_legal_action_of_the_agent_to_act():
    e = saboteur_v0.env(num_players=5)
    e.reset(seed=3)
    for a in e.possible_agents:
        e.action_space(a).seed(7)
    for _ in range(60):
        agent = e.agent_selection
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            break
        action = e.action_space(agent).sample()
        assert obs["action_mask"][action] == 1
        other = next(a for a in e.agents if a != agent)
        assert e.action_space(other).sample() == 0  # not to act: ignored
        e.step(action)
    # with a mask it is Gymnasium's sample
    only = np.zeros(e.action_space("player_0").n, dtype=np.int8)
    only[17] = 1
    assert e.action_space("player_0").sample(mask=only) == 17


def test_parallel_env_passes_parallel_api_test():
    par = saboteur_v0.parallel_env(num_players=3, num_rounds=1)
    parallel_api_test(par, num_cycles=200)
    assert par.state_space == par.unwrapped.state_space


# --- state() / state_space ----------------------------------------------------------------
def _check_state(e) -> None:
    raw = e.unwrapped
    g, enc = raw.game, raw.encoder
    s = e.state()
    assert s.dtype == np.float32 and s.shape == (enc.state_size,) == raw.state_space.shape
    assert raw.state_space.contains(s)
    # the observation of seat 0, byte for byte, then the hidden block
    np.testing.assert_array_equal(s[: enc.size], raw.observe("player_0")["observation"])
    v = enc.views(s)
    n, nk = g.n, enc.n_kinds
    np.testing.assert_array_equal(v["all_hands"][:n], g.hands[:, :nk])
    assert not v["all_hands"][n:].any()
    assert v["all_roles"][:n].argmax(axis=1).tolist() == g.roles.tolist()
    assert v["all_roles"].sum() == n
    np.testing.assert_array_equal(v["all_gold"][:n], g.gold)
    np.testing.assert_array_equal(v["all_known_goals"][:n], g.known_goals)
    assert v["goals"].argmax(axis=1).tolist() == g.board.goal_identity.tolist()
    assert v["goals"][:, GOAL_GOLD].sum() == 1
    np.testing.assert_array_equal(v["deck"], np.bincount(g.deck, minlength=nk)[:nk])
    np.testing.assert_array_equal(v["discards"], g.discards[:nk])
    if g.rules.nugget_cards:
        assert v["nuggets"].tolist() == [int((g.nuggets == k).sum()) for k in (1, 2, 3)]
    else:
        assert v["aside"].sum() == len(g.set_aside)
        np.testing.assert_array_equal(v["removed"], g.removed[:nk])
        assert (
            v["all_hands"].sum() + v["deck"].sum() + v["removed"].sum() + v["discards"].sum()
            <= g.rules.deck.sum()
        )


@pytest.mark.parametrize("options", CONFIGS)
def test_state_is_the_spectators_view_through_a_game(options):
    e = saboteur_v0.env(**options)
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    checked = 0
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if checked % 7 == 0:
            before = copy.deepcopy(e.unwrapped.game)
            _check_state(e)
            assert e.unwrapped.game.events == before.events
            assert repr(e.unwrapped.game.rng.bit_generator.state) == repr(
                before.rng.bit_generator.state
            )
        checked += 1
        e.step(None if term or trunc else legal(obs["action_mask"], rng))
    _check_state(e)


@pytest.mark.parametrize("options", CONFIGS)
def test_state_spec_is_contiguous_and_documented(options):
    enc = ObservationEncoder(GameConfig(**options))
    spec = enc.state_spec()
    assert [v.name for v in spec[: len(enc.spec())]] == [v.name for v in enc.spec()]
    hidden = [v.name for v in spec[len(enc.spec()) :]]
    assert hidden == [h for h, _ in HIDDEN_VIEWS if h in hidden] and "all_hands" in hidden
    off = 0
    for v in spec:
        assert v.offset == off and v.low < v.high and v.meaning
        off += v.size
    assert off == enc.state_size
    box_hi = saboteur_env.raw_env(**options).state_space.high
    for v in spec:
        np.testing.assert_array_equal(box_hi[v.offset : v.offset + v.size], v.high)


def test_state_before_reset_and_bad_viewer():
    e = saboteur_env.raw_env()
    with pytest.raises(RuntimeError, match="reset"):
        e.state()
    e.reset(seed=0)
    with pytest.raises(ValueError, match=r"viewer 'player_0'.*'spectator'"):
        e.encoder.encode(e.game, "player_0")


def test_seat_observation_and_fingerprint_unchanged():
    """The flat observation of a seat keeps its layout: the fingerprints of the Version
    History (DESIGN 8) hold."""
    from saboteur_agents.network import env_spec

    assert env_spec(GameConfig())["fingerprint"] == "364a8b740de28874"
    assert env_spec(GameConfig(expansion=True))["fingerprint"] == "c61d02f7f3378431"
    assert saboteur_env.raw_env().observation_space("player_0")["observation"].shape == (6701,)


# --- gold bounds ---------------------------------------------------------------------------
def test_gold_bounds_are_honest():
    """Base game: the whole nugget supply (44, RULES 1.4); Saboteur 2: num_rounds x (the
    largest payout, 5 or the deck's crystals, + 1 stolen) (RULES 6.9)."""
    assert gold_bound(GameConfig()) == 44 == gold_bound(GameConfig(num_rounds=1000))
    assert gold_bound(GameConfig(expansion=True, num_players=3, num_rounds=1000)) >= 1000 * 6
    e = saboteur_env.raw_env(expansion=True, num_players=3, num_rounds=1000)
    e.reset(seed=0)
    e.game.gold[:] = [5000, 0, 1000 * 6]  # a lone winner every round, plus a theft each round
    for a in e.agents:
        assert e.observation_space(a).contains(e.observe(a)), a
    assert e.state_space.contains(e.state())


# --- render_seat ---------------------------------------------------------------------------
@pytest.mark.parametrize("seat", [9, 5, -1, "foo", 1.5, "player_1", True, [0]])
def test_bad_render_seat_is_refused_at_construction(seat):
    with pytest.raises(ValueError, match=r"render_seat=.*valid: None.*0\.\.4.*'spectator'"):
        saboteur_env.env(num_players=5, render_mode="ansi", render_seat=seat)


@pytest.mark.parametrize("seat", [None, 0, 4, np.int64(2), "spectator"])
def test_good_render_seats_render(seat):
    """Each accepted render_seat draws that seat's view (None: the seat to act)."""
    from saboteur_env.render import render_ansi

    e = saboteur_env.env(num_players=5, render_mode="ansi", render_seat=seat)
    e.reset(seed=1)
    game = e.unwrapped.game
    want = game.current if seat is None else seat if seat == "spectator" else int(seat)
    assert e.render() == render_ansi(game, want)
    others = {s for s in (0, 2, 4, "spectator") if s != want}
    assert all(e.render() != render_ansi(game, s) for s in others)  # the seat matters


def test_the_package_names_every_entry_point_of_saboteur_v0():
    """``saboteur_env.env``, ``raw_env`` and ``parallel_env`` are ``saboteur_v0``'s, as in
    PettingZoo's own packages (a new user tried ``saboteur_env.parallel_env`` and met an
    AttributeError)."""
    import saboteur_env

    assert saboteur_env.parallel_env is saboteur_v0.parallel_env
    assert saboteur_env.env is saboteur_v0.env and saboteur_env.raw_env is saboteur_v0.raw_env
    assert {"env", "raw_env", "parallel_env", "saboteur_v0"} <= set(saboteur_env.__all__)
    p = saboteur_env.parallel_env(num_players=3)
    obs, infos = p.reset(seed=1)
    assert set(obs) == {"player_0", "player_1", "player_2"}
    # the agent to act is named from the reset on, as after every step
    acting = p.aec_env.agent_selection
    assert {a: i["active_agent"] for a, i in infos.items()} == dict.fromkeys(obs, acting)
    assert obs[acting]["action_mask"].any()
    assert not any(obs[a]["action_mask"].any() for a in obs if a != acting)
    _, _, _, _, infos = p.step(
        {acting: int(saboteur_env.legal_indices(obs[acting]["action_mask"])[0])}
    )
    assert {i["active_agent"] for i in infos.values()} == {p.aec_env.agent_selection}
