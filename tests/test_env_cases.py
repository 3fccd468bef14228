"""Cases group P (cases.md: the PettingZoo API) as tests with exact expected values.

P1 episode end and dead steps, P3 the action mask's format, P4 illegal actions and baselines
that read the mask, P6 observations inside their space, P10 parallel conversion, P11 render
modes, P12 episode length and ``max_cycles``, P15 action identity.  (P8 is in
``test_env_api.py``.)
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from dataclasses import fields

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

import saboteur_env
from saboteur_agents import RandomAgent
from saboteur_env import Codec, Game, GameConfig, IllegalActionError, build_state
from saboteur_env.encoding.history import round_history
from saboteur_env.engine.cards import KIND_INDEX, VARIANT_OF
from saboteur_env.engine.state import BreakTool, Discard, Map, PlacePath, Repair, Rockfall
from saboteur_env.render import render_ansi
from saboteur_experiments.play import play_game

#: 28 nugget cards (RULES 1.4), top first: the first three drawn are 1, 2, 3
NUGGETS = [1, 2, 3] + [1] * 15 + [2] * 7 + [3] * 3


def load(e, game):
    """Put a hand-built game into a (raw or wrapped) env that has been reset."""
    e.unwrapped.load(game)
    return e


def env_for(game, wrapped=True, **kw):
    cfg = {f.name: getattr(game.config, f.name) for f in fields(game.config)}
    e = (saboteur_env.env if wrapped else saboteur_env.raw_env)(**cfg, **kw)
    e.reset(seed=0)
    return load(e, game)


def one_step_from_gold(round_index, num_rounds=3, reward="gold"):
    """3 players; seat 0 (gold-digger) holds B02; placing it at (7, 0) reaches the middle goal,
    which is the gold (RULES 4.2).  Seat 1 is the saboteur, seat 2 a gold-digger."""
    cfg = GameConfig(num_players=3, num_rounds=num_rounds, reward=reward)
    return build_state(
        cfg,
        roles=["gold-digger", "saboteur", "gold-digger"],
        hands=[["B02", "map", "B01"], ["B03", "B04"], ["B05", "B06"]],
        board=[
            (1, 0, "B07", False),
            (2, 0, "B07", False),
            (3, 0, "B07", False),
            (4, 0, "B02", False),
            (5, 0, "B02", False),
            (6, 0, "B06", False),
        ],
        goals=(1, 0, 2),
        nuggets=NUGGETS,
        round=round_index,
        seed=4,
    )


def gold_index(e):
    return e.unwrapped.codec.encode(PlacePath(KIND_INDEX["B02"], 7, 0), 0, 3)


def random_action(obs, rng):
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


# --- P1 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("wrapped", [True, False])
def test_p1_final_round_ends_with_one_dead_step_per_agent(wrapped):
    """Case P1, final round: the gold is reached (RULES 4.2, 5.2: N=3 cards 1, 2, 3 picked
    counter-clockwise by the diggers from the connector: seat 0 takes 3, seat 2 takes 2,
    seat 0 takes 1), so the rewards are exactly [4, 0, 2].  Then every agent is selected once
    with termination=True, a non-None action raises, step(None) removes it, ``agents`` empties
    only after the last one, and the loop ends by itself."""
    e = env_for(one_step_from_gold(round_index=2), wrapped=wrapped)
    gold_action = gold_index(e)
    selected, removed_sizes = [], []
    steps = 0
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        steps += 1
        assert steps < 10
        if not term:
            assert steps == 1 and agent == "player_0"
            e.step(gold_action)
            assert all(e.terminations.values()) and not any(e.truncations.values())
            assert e.rewards == {"player_0": 4, "player_1": 0, "player_2": 2}
            continue
        selected.append(agent)
        assert reward == {"player_0": 4, "player_1": 0, "player_2": 2}[agent]
        assert info["round_result"] == {
            "round": 2,
            "winning_side": "gold-digger",
            "saboteurs_won": False,
            "roles": [0, 1, 0],
            "gold_found": True,
        }
        assert not obs["action_mask"].any()
        with pytest.raises(IllegalActionError, match="the only valid action is None"):
            e.step(0)
        n_before = len(e.agents)
        e.step(None)
        removed_sizes.append((n_before, len(e.agents)))
        assert agent not in e.agents
    assert sorted(selected) == ["player_0", "player_1", "player_2"]
    assert selected[0] == "player_0"  # the connector is still the selected agent
    assert removed_sizes == [(3, 2), (2, 1), (1, 0)]
    assert e.agents == []
    assert e.unwrapped.game.gold.tolist() == [4, 0, 2]
    assert e.unwrapped.game.winners() == [0]


def test_p1_reaching_gold_in_round_1_does_not_terminate():
    """Case P1, rounds 1-2: the round ends with the same exact rewards but nobody terminates;
    round 2 is dealt and its first player is the connector's left neighbour (RULES 5.4)."""
    e = env_for(one_step_from_gold(round_index=0))
    e.step(gold_index(e))
    assert not any(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == {"player_0": 4, "player_1": 0, "player_2": 2}
    g = e.unwrapped.game
    assert g.round == 1 and not g.game_over
    assert e.agent_selection == "player_1" and g.current == 1
    assert [e.unwrapped.infos[a]["round_result"]["round"] for a in e.agents] == [0, 0, 0]
    assert len(e.agents) == 3


def test_p1_reward_win_mode():
    """reward="win": +1 for the winning side, -1 otherwise, given at the round end."""
    e = env_for(one_step_from_gold(round_index=1, reward="win"))
    e.step(gold_index(e))
    assert e.rewards == {"player_0": 1, "player_1": -1, "player_2": 1}
    # floats, as VectorGame.rewards (float32) and PettingZoo's own envs
    assert {type(r) for r in e.rewards.values()} == {float}
    assert not any(e.terminations.values())
    kind = int(np.flatnonzero(e.unwrapped.game.hands[1])[0])
    e.step(e.unwrapped.codec.blocks["discard"][0] + kind)  # the next round's first turn
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    assert {type(r) for r in e.rewards.values()} == {float}


@pytest.mark.parametrize("n", [3, 6, 10])
def test_p1_random_games_terminate_only_after_the_last_round(n):
    """Over whole random games: terminations stay False through rounds 1 and 2, all become
    True in the step that ends round 3, each agent then gets exactly one dead step."""
    e = saboteur_env.env(num_players=n)
    e.reset(seed=n)
    rng = np.random.default_rng(n)
    dead = []
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term:
            dead.append(agent)
            e.step(None)
            continue
        assert not trunc
        rounds_before = len(e.unwrapped.game.round_results)
        e.step(random_action(obs, rng))
        rounds_after = len(e.unwrapped.game.round_results)
        if rounds_after < 3:
            assert not any(e.terminations.values())
        else:
            assert rounds_before == 2 and all(e.terminations.values())
    assert sorted(dead) == sorted(e.possible_agents)
    assert e.agents == []


# --- P3 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 5, 10])
def test_p3_mask_format(n):
    """Case P3: 200 random legal steps; every observe(a): a dict with exactly the keys
    observation / action_mask; the mask is an int8 ndarray of shape (action_space(a).n,) with
    values in {0, 1}; the observation space's mask part is Box(0, 1, (n,), int8) and equal
    before and after reset/step; the mask of every agent that is not to act is all zeros."""
    e = saboteur_env.env(num_players=n)
    spaces_before = {a: e.observation_space(a) for a in e.possible_agents}
    e.reset(seed=n + 100)
    rng = np.random.default_rng(0)
    n_actions = e.action_space("player_0").n
    for a in e.possible_agents:
        space = e.observation_space(a)
        assert space == spaces_before[a]
        assert isinstance(space, spaces.Dict)
        assert set(space.spaces) == {"observation", "action_mask"}
        assert space["action_mask"] == spaces.Box(0, 1, (n_actions,), np.int8)
        assert e.action_space(a) == spaces.Discrete(n_actions)
    for _ in range(200):
        for a in e.agents:
            obs = e.observe(a)
            assert set(obs) == {"observation", "action_mask"}
            m = obs["action_mask"]
            assert isinstance(m, np.ndarray) and m.dtype == np.int8 and m.shape == (n_actions,)
            assert set(np.unique(m).tolist()) <= {0, 1}
            if a != e.agent_selection:
                assert not m.any()
            else:
                assert m.any()
        obs, *_ = e.last()
        e.step(random_action(obs, rng))
    assert {a: e.observation_space(a) for a in e.possible_agents} == spaces_before


# --- P4 ----------------------------------------------------------------------------------
def test_p4_illegal_index_raises_deterministically():
    """Case P4 (a): the documented policy is an exception (env docstring), the same every
    time, and the game is left exactly as it was, so the legal action still works after."""
    e = env_for(one_step_from_gold(round_index=0))
    codec = e.unwrapped.codec
    illegal = codec.encode(PlacePath(KIND_INDEX["B01"], 7, 0), 0, 3)  # N-S cannot meet E-W
    assert e.observe("player_0")["action_mask"][illegal] == 0
    msgs = set()
    for _ in range(3):
        with pytest.raises(IllegalActionError) as err:
            e.step(illegal)
        msgs.add(str(err.value))
    assert len(msgs) == 1
    assert "RULES 3.1" in msgs.pop()
    e.step(gold_index(e))
    assert e.rewards == {"player_0": 4, "player_1": 0, "player_2": 2}


class CountingRandom(RandomAgent):
    """The product's random baseline, counting actions whose mask bit is 0."""

    illegal = 0
    moves = 0

    def act(self, observation, action_mask, info=None):
        a = super().act(observation, action_mask, info)
        CountingRandom.moves += 1
        CountingRandom.illegal += int(action_mask[a] == 0)
        return a


def test_p4_random_agent_200_games_no_illegal_move():
    """Case P4 (b): the random baseline through saboteur_experiments.play.play_game, 200 games over
    3-10 players: zero illegal moves (an illegal one would also raise)."""
    CountingRandom.illegal = CountingRandom.moves = 0
    total = 0
    for seed in range(200):
        n = 3 + seed % 8
        res = play_game([CountingRandom() for _ in range(n)], seed)
        assert len(res["rounds"]) == 3
        total += res["decisions"]
    assert CountingRandom.moves == total > 0
    assert CountingRandom.illegal == 0


# --- P6 ----------------------------------------------------------------------------------
def test_p6_every_observation_in_space_100_games():
    """Case P6: observation_space(a).contains(obs) for the selected agent's observation at
    every step of 100 random games (3-10 players), and for every agent's at every 10th step
    and at the end."""
    checked = 0
    for seed in range(100):
        n = 3 + seed % 8
        e = saboteur_env.raw_env(num_players=n)
        e.reset(seed=1000 + seed)
        rng = np.random.default_rng(seed)
        for i, agent in enumerate(e.agent_iter()):
            obs, _, term, trunc, _ = e.last()
            assert e.observation_space(agent).contains(obs), (seed, i, agent)
            assert obs["observation"].dtype == np.float32
            checked += 1
            if i % 10 == 0 or term:
                for a in e.agents:
                    assert e.observation_space(a).contains(e.observe(a))
            e.step(None if term or trunc else random_action(obs, rng))
    assert checked > 100 * 150


# --- P10 ---------------------------------------------------------------------------------
def test_p10_plain_parallel_conversion_refused():
    """Case P10: is_parallelizable is False, so aec_to_parallel refuses as PettingZoo intends
    (its AssertionError names the is_parallelizable key)."""
    e = saboteur_env.env(num_players=3)
    assert e.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(e)


def test_p10_turn_based_parallel_wrapper():
    """Case P10: turn_based_aec_to_parallel passes parallel_api_test and completes a game; only
    the active agent's action is applied (the others get an index that would be illegal for
    them), infos name the active agent, and steps after the end return only empty dicts."""
    parallel_api_test(turn_based_aec_to_parallel(saboteur_env.env(num_players=4)), num_cycles=1000)
    p = turn_based_aec_to_parallel(saboteur_env.env(num_players=4))
    obs, infos = p.reset(seed=8)
    rng = np.random.default_rng(0)
    steps = 0
    while p.agents:
        active = p.aec_env.agent_selection
        legal = {a: np.flatnonzero(o["action_mask"]) for a, o in obs.items()}
        assert [a for a, ll in legal.items() if len(ll)] == [active]
        actions = {a: int(rng.choice(ll)) if len(ll) else 0 for a, ll in legal.items()}
        before = p.aec_env.unwrapped.game.decisions
        obs, rewards, terms, truncs, infos = p.step(actions)
        steps += 1
        assert p.aec_env.unwrapped.game.decisions == before + 1
        for a in p.agents:
            assert infos[a]["active_agent"] == p.aec_env.agent_selection
    g = p.aec_env.unwrapped.game
    assert g.game_over and len(g.round_results) == 3 and steps == g.decisions
    assert all(terms.values()) and not any(truncs.values())
    for _ in range(2):
        out = p.step({})
        assert all(d == {} for d in out)


# --- P11 ---------------------------------------------------------------------------------
def test_p11_render_modes():
    """Case P11: metadata lists the modes; each listed mode works; None warns and returns
    None; "ansi" returns a str equal on two calls; "human" prints that text and returns
    None."""
    modes = saboteur_env.raw_env.metadata["render_modes"]
    assert "ansi" in modes and "human" in modes and None not in modes
    e = saboteur_env.env(num_players=4)
    e.reset(seed=1)
    with pytest.warns(UserWarning, match="render_mode"):
        assert e.render() is None
    a = saboteur_env.env(num_players=4, render_mode="ansi")
    a.reset(seed=1)
    text = a.render()
    assert isinstance(text, str) and text == a.render()
    assert text == render_ansi(a.unwrapped.game, 0)
    h = saboteur_env.env(num_players=4, render_mode="human")
    h.reset(seed=1)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        assert h.render() is None
    assert sink.getvalue() == text + "\n"
    for mode in modes:
        if mode in ("ansi", "human"):
            continue
        r = saboteur_env.env(num_players=4, render_mode=mode)
        r.reset(seed=1)
        assert r.render() is not None  # e.g. rgb_array: an image


@pytest.mark.parametrize("wrapped", [True, False])
def test_p11_old_mode_keyword_is_a_clear_error(wrapped):
    e = (saboteur_env.env if wrapped else saboteur_env.raw_env)(render_mode="ansi")
    e.reset(seed=0)
    with pytest.raises(TypeError, match="mode"):
        e.render(mode="ansi")
    if not wrapped:
        with pytest.raises(TypeError, match=re.escape("render_mode=")):
            e.render("ansi")


def test_p11_render_changes_nothing():
    """Rendering at every step (ansi, human, spectator) leaves the trajectory, the RNG and the
    events identical to a run that never renders."""

    def run(render_mode, render_seat=None):
        e = saboteur_env.raw_env(num_players=5, render_mode=render_mode, render_seat=render_seat)
        e.reset(seed=33)
        rng = np.random.default_rng(4)
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in e.agent_iter():
                obs, _, term, trunc, _ = e.last()
                if render_mode is not None:
                    e.render()
                    e.render()
                e.step(None if term or trunc else random_action(obs, rng))
        g = e.game
        return (
            repr(g.rng.bit_generator.state),
            [(x.type, repr(x.data)) for x in g.events],
            g.gold.tolist(),
        )

    base = run(None)
    assert run("ansi") == base
    assert run("human") == base
    assert run("ansi", "spectator") == base


def test_p11_env_render_shows_the_selected_agents_view():
    """render_seat=None draws the view of the agent to act (its own hand and role only);
    render_seat=int fixes the seat."""
    e = saboteur_env.raw_env(num_players=4, render_mode="ansi")
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(6):
        seat = e.game.current
        text = e.render()
        assert text == render_ansi(e.game, seat)
        assert f"you are seat {seat}," in text
        assert "roles:" not in text
        e.step(random_action(e.observe(e.agent_selection), rng))
    f = saboteur_env.raw_env(num_players=4, render_mode="ansi", render_seat=2)
    f.reset(seed=2)
    assert "you are seat 2," in f.render()


# --- P12 ---------------------------------------------------------------------------------
def test_p12_turns_per_round_bounded():
    """Case P12: each turn consumes a card of the 67 (RULES 3, 3.7), so a round takes at most
    67 turns; the env selects a live agent exactly once per turn (no no-op selections)."""
    for seed in range(60):
        n = 3 + seed % 8
        e = saboteur_env.raw_env(num_players=n)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        live_steps = [0]
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            rounds = len(e.game.round_results)
            e.step(random_action(obs, rng))
            live_steps[-1] += 1
            if len(e.game.round_results) > rounds:
                live_steps.append(0)
        turns = [r.turns for r in e.game.round_results]
        assert live_steps[:3] == turns and live_steps[3] == 0
        assert all(1 <= t <= 67 for t in turns)
        assert e.game.decisions == sum(turns) <= 3 * 67


@pytest.mark.parametrize("expansion", [False, True])
@pytest.mark.parametrize("wrapped", [True, False])
@pytest.mark.parametrize("max_cycles", [1, 6, 30])
def test_p12_max_cycles_truncates_everyone_in_the_same_step(wrapped, max_cycles, expansion):
    """Case P12: with max_cycles=k every agent gets truncation=True in the step of the
    (k * num_players)-th decision, none gets termination, each gets one dead step, and the
    loop ends cleanly; in both games (in Saboteur 2 a pass is several decisions of one agent,
    so the bound counts decisions, not turns)."""
    e = (saboteur_env.env if wrapped else saboteur_env.raw_env)(
        num_players=5, max_cycles=max_cycles, expansion=expansion
    )
    e.reset(seed=6)
    rng = np.random.default_rng(6)
    live, dead = 0, []
    acted: dict[str, int] = {}
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        assert not term
        if trunc:
            dead.append(agent)
            e.step(None)
            continue
        e.step(random_action(obs, rng))
        live += 1
        acted[agent] = acted.get(agent, 0) + 1
        if live < max_cycles * 5:
            assert not any(e.truncations.values())
        else:
            assert all(e.truncations.values()) and not any(e.terminations.values())
    assert live == max_cycles * 5
    assert sorted(dead) == sorted(e.possible_agents) and e.agents == []
    assert not e.unwrapped.game.game_over
    if max_cycles == 30:  # the base game: k decisions each; Saboteur 2: passes of several
        assert (max(acted.values()) > max_cycles) == expansion, acted


def test_p12_max_cycles_larger_than_the_game_never_truncates():
    e = saboteur_env.env(num_players=3, max_cycles=10_000)
    e.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        assert not trunc
        e.step(None if term else random_action(obs, rng))
    assert e.unwrapped.game.game_over


# --- P15 ---------------------------------------------------------------------------------
def _successor_key(g: Game) -> tuple:
    return (
        g.board.var.tobytes(),
        g.hands.tobytes(),
        g.broken.tobytes(),
        g.discards.tobytes(),
        g.known_goals.tobytes(),
        g.board.goal_revealed.tobytes(),
        repr(round_history(g.events, g.n).recent),
    )


def test_p15_legal_indices_decode_to_distinct_actions_and_successors():
    """Case P15: in random states of random games, decoding every legal index gives distinct
    actions, encode(decode(i)) == i, Game.check agrees each is legal, and applying each one
    (from a copy) gives a distinct successor state; symmetric cards are offered in one
    orientation only (RULES 0.2)."""
    checked = 0
    for seed in range(12):
        n = 3 + seed % 8
        cfg = GameConfig(num_players=n)
        g, codec = Game(cfg, seed), Codec(cfg)
        rng = np.random.default_rng(seed)
        step = 0
        while not g.game_over:
            legal = np.flatnonzero(codec.mask(g)).tolist()
            if step % 23 == 5:
                acts = [codec.decode(i, g.current, g.n) for i in legal]
                assert len(set(acts)) == len(acts)
                assert [codec.encode(a, g.current, g.n) for a in acts] == legal
                succ = set()
                for a in acts:
                    assert g.check(a) is None, a
                    if isinstance(a, PlacePath) and a.rotated:  # only asymmetric kinds turn
                        assert VARIANT_OF[(a.kind, True)] != VARIANT_OF[(a.kind, False)]
                    c = g.copy()
                    c.apply(a)
                    succ.add(_successor_key(c))
                assert len(succ) == len(acts)
                checked += len(acts)
            g.apply(codec.decode(int(rng.choice(legal)), g.current, g.n))
            step += 1
    assert checked > 1000


def test_p15_action_equality_and_hash_over_all_fields():
    """Case P15: every action class compares and hashes over all of its fields (frozen
    dataclasses), and actions of different classes never compare equal."""
    examples = [
        PlacePath(3, 2, -1, True),
        BreakTool(16, 2),
        Repair(22, 1, 0),
        Rockfall(4, 1),
        Map(2),
        Discard(5),
    ]
    for a in examples:
        same = type(a)(*[getattr(a, f.name) for f in fields(a)])
        assert a == same and hash(a) == hash(same)
        for f in fields(a):
            v = getattr(a, f.name)
            other = type(a)(
                **{
                    **{g.name: getattr(a, g.name) for g in fields(a)},
                    f.name: (not v) if isinstance(v, bool) else v + 1,
                }
            )
            assert a != other, (a, f.name)
        with pytest.raises(AttributeError):
            setattr(a, fields(a)[0].name, 0)
    assert Map(1) != Discard(1) and Rockfall(1, 2) != PlacePath(1, 2, 0)
    assert len({*examples, *examples}) == len(examples)


def test_the_spectator_text_shows_every_hand():
    """``render_ansi`` for ``"spectator"`` (explicit only) lists every role, every seat's
    gold and every hand; a seat sees only its own hand."""
    from saboteur_env.engine.cards import ALL_KINDS
    from saboteur_env.render import render_ansi

    g = saboteur_env.Game(saboteur_env.GameConfig(num_players=3), 5)
    text = render_ansi(g, "spectator")
    for s in range(3):
        assert f"hand {s}: " + ", ".join(ALL_KINDS[k].id for k in g.hand_kinds(s)) in text
    own = render_ansi(g, 1)
    assert (
        "hand 0: " not in own
        and "hand: " + ", ".join(ALL_KINDS[k].id for k in g.hand_kinds(1)) in own
    )
