"""The PettingZoo API of the environment (DESIGN 5; cases P6, P8).

* ``pettingzoo.test.api_test`` and ``seed_test`` pass for 3, 5 and 10 players, on the wrapped
  and the raw environment.
* ``copy.deepcopy`` and ``pickle`` copies of an environment in mid-game continue exactly like the
  original (observations, masks, rewards, terminations, infos, the whole game state including
  hands, draw pile, nugget supply, roles and the random generator), and stepping a copy never
  changes the original (case P8).  The same holds for :meth:`Game.copy` (DESIGN 2).
"""

from __future__ import annotations

import contextlib
import copy
import io
import pickle
import warnings
from functools import partial

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import saboteur_env
from saboteur_env import Codec, Game, GameConfig

#: warnings api_test always gives for the classic Dict(observation, action_mask) convention
#: (PettingZoo's own classic environments get the same two); anything else is a failure.
EXPECTED_API_WARNINGS = (
    "Observation space for each agent probably should be",
    "Observation is not a NumPy array",
)

GAME_FIELDS = (
    "round",
    "game_over",
    "round_over",
    "round_results",
    "roles",
    "set_aside",
    "hands",
    "deck",
    "discards",
    "broken",
    "broken_kind",
    "known_goals",
    "nuggets",
    "gold",
    "gold_cards",
    "current",
    "first_player",
    "turn",
    "last_card_seat",
    "decisions",
    "secret_discards",
    "removed",
    "xfront",
    "phase",
)
BOARD_FIELDS = ("var", "opn", "reached", "conn", "goal_identity", "goal_revealed", "window")


def board_snapshot(b) -> tuple:
    return tuple((k, np.asarray(getattr(b, k)).tobytes()) for k in BOARD_FIELDS)


def game_snapshot(g: Game) -> dict:
    """Every part of a game's state, as comparable values (the generator's state included)."""
    out = {}
    for k in GAME_FIELDS:
        v = getattr(g, k)
        out[k] = (v.dtype.str, v.shape, v.tobytes()) if isinstance(v, np.ndarray) else repr(v)
    out["board"] = board_snapshot(g.board)
    out["round_boards"] = [board_snapshot(b) for b in g.round_boards]
    out["rng"] = repr(g.rng.bit_generator.state)
    out["events"] = [(e.type, e.seat, repr(e.data), e.visible_to) for e in g.events]
    return out


def env_snapshot(e) -> dict:
    """What an agent loop can see of an env, plus the full game state."""
    raw = e.unwrapped
    out = {
        "agents": list(raw.agents),
        "selection": raw.agent_selection,
        "rewards": dict(raw.rewards),
        "cumulative": dict(raw._cumulative_rewards),
        "terminations": dict(raw.terminations),
        "truncations": dict(raw.truncations),
        "infos": {a: repr(i) for a, i in raw.infos.items()},
        "game": game_snapshot(raw.game),
    }
    for a in raw.agents:
        o = raw.observe(a)
        out["obs_" + a] = (o["observation"].tobytes(), o["action_mask"].tobytes())
    return out


def policy(e, rng) -> int | None:
    """A uniformly random legal action of the selected agent (None when it is done)."""
    obs, _, term, trunc, _ = e.last()
    if term or trunc:
        return None
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


# --- api_test / seed_test ---------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 5, 10])
@pytest.mark.parametrize("wrapped", [True, False])
def test_api_test_passes(n, wrapped):
    """pettingzoo.test.api_test over a whole game (num_cycles > any game's length), with no
    warning other than the two every classic Dict-observation env gets (cases P6)."""
    make = saboteur_env.env if wrapped else saboteur_env.raw_env
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(num_players=n), num_cycles=1000, verbose_progress=False)
    unexpected = [
        str(w.message)
        for w in caught
        if not any(x in str(w.message) for x in EXPECTED_API_WARNINGS)
    ]
    assert unexpected == []


@pytest.mark.parametrize("n", [3, 5, 10])
def test_seed_test_passes(n):
    seed_test(partial(saboteur_env.env, num_players=n), num_cycles=500)


@pytest.mark.parametrize("n", [3, 5, 10])
def test_same_seed_same_game_different_seed_different_game(n):
    """reset(seed) fixes the whole game (RULES 10: one generator seeded by reset)."""

    def trajectory(seed):
        e = saboteur_env.env(num_players=n)
        e.reset(seed=seed)
        rng = np.random.default_rng(7)
        for _ in e.agent_iter():
            e.step(policy(e, rng))
        return e.unwrapped.game.events

    a, b, c = trajectory(4), trajectory(4), trajectory(5)
    assert [(x.type, x.seat, repr(x.data), x.visible_to) for x in a] == [
        (x.type, x.seat, repr(x.data), x.visible_to) for x in b
    ]
    assert [repr(x.data) for x in a] != [repr(x.data) for x in c]


def test_reset_restarts_the_same_env():
    """A second reset(seed) on a used env starts exactly the game a fresh env starts."""
    e = saboteur_env.env(num_players=4)
    e.reset(seed=9)
    rng = np.random.default_rng(1)
    for _ in range(40):
        e.step(policy(e, rng))
    e.reset(seed=3)
    f = saboteur_env.env(num_players=4)
    f.reset(seed=3)
    assert env_snapshot(e) == env_snapshot(f)


# --- case P8: deepcopy / pickle ------------------------------------------------------------
def _copy(e, how):
    return copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("render_mode", [None, "ansi", "human"])
def test_p8_copies_continue_identically(how, render_mode):
    """Case P8: after 25 random steps, a copy equals the original; both stepped with the same
    10 actions stay equal (observations, masks, rewards, infos, hands, deck, nuggets, roles,
    RNG); then 10 more steps of only the copy leave the original untouched."""
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        e = saboteur_env.env(num_players=5, render_mode=render_mode)
        e.reset(seed=21)
        rng = np.random.default_rng(0)
        for _ in range(25):
            e.step(policy(e, rng))
        c = _copy(e, how)
        assert env_snapshot(c) == env_snapshot(e)
        for _ in range(10):
            a = policy(e, rng)
            e.step(a)
            c.step(a)
            assert env_snapshot(c) == env_snapshot(e)
        before = env_snapshot(e)
        for _ in range(10):
            c.step(policy(c, rng))
        assert env_snapshot(e) == before
        assert env_snapshot(c) != before
        if render_mode == "ansi":
            assert c.render() == saboteur_env.render.render_ansi(
                c.unwrapped.game, c.unwrapped.agent_name_mapping[c.unwrapped.agent_selection]
            )


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_p8_copy_plays_the_rest_of_the_game_identically(how):
    """A copy taken in round 1 and the original, given the same actions, produce the same
    rewards and infos at every step, the same redeals (the generator is copied) and the same
    final gold."""
    e = saboteur_env.env(num_players=4)
    e.reset(seed=5)
    rng = np.random.default_rng(3)
    for _ in range(30):
        e.step(policy(e, rng))
    c = _copy(e, how)
    rounds_seen = 0
    for agent in e.agent_iter():
        assert c.agent_selection == agent
        out_e, out_c = e.last(), c.last()
        assert out_e[1:4] == out_c[1:4]
        assert repr(out_e[4]) == repr(out_c[4])
        np.testing.assert_array_equal(out_e[0]["observation"], out_c[0]["observation"])
        np.testing.assert_array_equal(out_e[0]["action_mask"], out_c[0]["action_mask"])
        a = policy(e, rng)
        e.step(a)
        c.step(a)
        rounds_seen = len(e.unwrapped.game.round_results)
    assert rounds_seen == 3
    assert c.agents == [] and e.agents == []
    assert c.unwrapped.game.gold.tolist() == e.unwrapped.game.gold.tolist()
    assert game_snapshot(c.unwrapped.game) == game_snapshot(e.unwrapped.game)


def test_p8_pickle_before_reset_and_after_game_end():
    e = saboteur_env.env(num_players=3)
    c = _copy(e, "pickle")
    c.reset(seed=1)
    e.reset(seed=1)
    rng = np.random.default_rng(2)
    for _ in e.agent_iter():
        e.step(policy(e, rng))
    d = _copy(e, "pickle")
    assert d.agents == [] and d.unwrapped.game.game_over
    assert game_snapshot(d.unwrapped.game) == game_snapshot(e.unwrapped.game)


def test_game_copy_is_independent_and_continues_identically():
    """Game.copy (DESIGN 2 cheap copies): same continuation, no shared mutable state."""
    cfg = GameConfig(num_players=6)
    codec = Codec(cfg)
    g = Game(cfg, 8)
    rng = np.random.default_rng(0)
    for _ in range(40):
        legal = np.flatnonzero(codec.mask(g))
        g.apply(codec.decode(int(rng.choice(legal)), g.current, g.n))
    c = g.copy()
    assert game_snapshot(c) == game_snapshot(g)
    before = game_snapshot(g)
    rng_c = np.random.default_rng(1)
    while not c.game_over:
        legal = np.flatnonzero(codec.mask(c))
        c.apply(codec.decode(int(rng_c.choice(legal)), c.current, c.n))
    assert game_snapshot(g) == before
    # and the original, replaying the copy's actions, reaches the same end
    d = g.copy()
    rng_c = np.random.default_rng(1)
    while not d.game_over:
        legal = np.flatnonzero(codec.mask(d))
        d.apply(codec.decode(int(rng_c.choice(legal)), d.current, d.n))
    assert game_snapshot(d) == game_snapshot(c)


def test_unseeded_reset_after_a_seeded_one_continues_the_seeded_stream():
    """RULES 10: every random draw comes from one generator seeded by ``reset(seed=...)``; an
    unseeded reset after a seeded one continues that stream, so two envs reset the same way
    deal the same games (fix: it drew fresh OS entropy)."""
    deals = []
    for _ in range(2):
        e = saboteur_env.raw_env(num_players=5)
        e.reset(seed=11)
        first = e.game.hands.copy()
        e.reset()
        second = (e.game.hands.copy(), e.game.roles.copy())
        e.reset()
        deals.append((first, second, e.game.hands.copy()))
    (f1, s1, t1), (f2, s2, t2) = deals
    assert np.array_equal(f1, f2) and np.array_equal(t1, t2)
    assert np.array_equal(s1[0], s2[0]) and np.array_equal(s1[1], s2[1])
    assert not np.array_equal(f1, s1[0]) and not np.array_equal(s1[0], t1)


def test_load_continues_from_a_given_game_and_refuses_a_mismatch():
    """raw_env.load: a hand-built position becomes the env's game (the seat to act is the agent
    to act); before reset, or for a game of other options, a clear error and nothing changes."""
    from saboteur_env import build_state

    e = saboteur_env.raw_env(num_players=3)
    g = build_state(
        e.config, roles=["gold-digger"] * 3, hands=[["map"], ["map"], ["map"]], current=2
    )
    with pytest.raises(RuntimeError, match="reset"):
        e.load(g)
    e.reset(seed=0)
    with pytest.raises(ValueError, match="options"):
        e.load(Game(GameConfig(num_players=4), 0))
    over = build_state(e.config, roles=["gold-digger"] * 3, hands=[[], [], []])
    over.game_over = True  # a finished game: nothing left to play
    with pytest.raises(ValueError, match="the game is over"):
        e.load(over)
    assert e.game is not over
    e.load(g)
    assert e.game is g and e.agent_selection == "player_2"
    assert e.observe("player_2")["action_mask"].sum() == 1 + 3  # discard the map, or map a goal


@pytest.mark.parametrize(
    "name",
    ["agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents"],
)
def test_the_wrapped_env_reads_the_aec_fields_as_pettingzoo_does(name):
    """``env()``'s order wrapper reads these fields from the raw env without PettingZoo's
    ``__getattr__`` hops: before ``reset`` the same ``AttributeError`` as PettingZoo's
    ``OrderEnforcingWrapper`` (so ``hasattr`` is False), after it the raw env's very objects,
    also in a copy and a pickled env."""
    from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

    e = saboteur_env.env(num_players=3)
    stock = OrderEnforcingWrapper(AssertOutOfBoundsWrapper(saboteur_env.raw_env(num_players=3)))
    for w in (e, stock):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(w, name)
        assert not hasattr(w, name)
    e.reset(seed=4)
    stock.reset(seed=4)
    assert getattr(e, name) == getattr(stock, name)
    if name != "num_agents":  # an int property of the raw env
        assert getattr(e, name) is getattr(e.unwrapped, name)
    for c in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        assert c._raw is c.unwrapped
        assert getattr(c, name) == getattr(e, name)
        c.step(int(np.flatnonzero(c.observe(c.agent_selection)["action_mask"])[0]))
        assert c.agent_selection == c.unwrapped.agent_selection  # the copy's own raw env


def test_legal_indices_of_a_mask_in_every_dtype():
    """``saboteur_env.legal_indices``: the nonzero indices, ascending, int64, for the env's
    int8 mask (read through a bool view: numpy's nonzero of int8 was a tenth of a Saboteur 2
    heuristic decision) and for bool, uint8 and int64 masks alike; equal to the mask of a real
    state."""
    from saboteur_env import legal_indices

    for dtype in (np.int8, np.uint8, np.bool_, np.int64, np.float32):
        m = np.zeros(12, dtype=dtype)
        m[[0, 5, 11]] = 1
        got = legal_indices(m)
        assert got.dtype == np.int64 and got.tolist() == [0, 5, 11], dtype
    assert legal_indices([0, 2, 0, 1]).tolist() == [1, 3]
    for bad in (np.eye(3, dtype=np.int8), np.array(["1", "0"]), np.int8(1)):
        with pytest.raises(ValueError, match="action_mask: a 1-d bool, integer or float array"):
            legal_indices(bad)
    assert legal_indices(np.zeros(4, np.int8)).tolist() == []
    env = saboteur_env.raw_env(num_players=5, expansion=True)
    env.reset(seed=3)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask.dtype == np.int8
    legal = legal_indices(mask)
    assert legal.tolist() == [i for i, v in enumerate(mask.tolist()) if v]
    assert len(legal) == int(mask.sum()) == 31
