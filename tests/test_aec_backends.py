"""``raw_env``'s two backends play identically.

On the array backend (base game, numba in use) the kernels of the batched engine keep the
observation and mask of the seat to act (``saboteur_env.vector.arrays.FollowedGame``); on the
engine backend they are encoded at every ``observe``.  Side by side with the same seeds and
actions, every agent's observation and mask, the rewards, terminations, truncations and infos
must be byte-identical after every step, including after changes made outside ``step``.
"""

import copy
import pickle

import numpy as np
import pytest

import saboteur_env
from saboteur_env.engine import Game
from saboteur_env.vector import kernels
from saboteur_experiments.fast_paths import aec_snapshot, check_aec

needs_numba = pytest.mark.skipif(not kernels.ENABLED, reason="the array backend needs numba")


_snapshot = aec_snapshot


@needs_numba
@pytest.mark.parametrize(
    "options, east, seed",
    [
        ({"num_players": 5}, 0.8, 2),
        ({"num_players": 3, "reward": "gold"}, 0.8, 1),
        ({"num_players": 10, "num_rounds": 2}, 0.9, 2),  # 9 gold-nugget cards drawn
        ({"num_players": 4, "max_cycles": 20}, 0.0, 7),
        ({"num_players": 6, "self_sabotage": False, "broken_tool_forfeit": True}, 0.8, 2),
        ({"num_players": 5, "board_window": (-3, 10, -4, 4)}, 0.5, 7),
        ({"num_players": 5, "expansion": True}, 0.8, 2),
        ({"num_players": 2, "expansion": True, "reward": "gold"}, 0.8, 3),
        ({"num_players": 12, "expansion": True, "both_doors_rule": "bga"}, 0.8, 4),
    ],
)
def test_the_array_backend_plays_exactly_as_the_engine_backend(options, east, seed):
    """Every agent's observation and mask, rewards, terminations, truncations and infos after
    every step of two whole games, and the games' event lists and round results
    (``check_aec``), through round ends by empty hands and (the seeds with ``east`` 0.8 and
    more) by the gold."""
    _, gold = check_aec(options, games=2, seed=seed, east=east)
    if east >= 0.8:
        assert gold >= 1  # the gold branch of the round end was exercised


def test_the_backend_is_chosen_by_numba_and_the_ruleset(monkeypatch):
    """``auto``: the array backend for both games where numba is in use, the engine
    without numba; what cannot run is a clear error."""
    from saboteur_env.vector import arrays

    assert saboteur_env.raw_env(num_players=5, backend="engine").backend == "engine"
    with pytest.raises(ValueError, match="backend='fast': one of auto, array, engine"):
        saboteur_env.raw_env(backend="fast")
    if kernels.ENABLED:
        assert saboteur_env.raw_env(num_players=5).backend == "array"
        assert saboteur_env.raw_env(num_players=5, expansion=True).backend == "array"
        with monkeypatch.context() as m:  # a ruleset the kernels do not play (none today)
            m.setattr(arrays, "supports", lambda config: not config.expansion)
            assert saboteur_env.raw_env(num_players=5, expansion=True).backend == "engine"
            with pytest.raises(ValueError, match="does not play Saboteur 2 yet: use 'engine'"):
                saboteur_env.raw_env(backend="array", expansion=True)
    monkeypatch.setattr(kernels, "ENABLED", False)
    assert saboteur_env.raw_env(num_players=5, expansion=True).backend == "engine"
    assert saboteur_env.raw_env(num_players=5).backend == "engine"
    with pytest.raises(RuntimeError, match="needs numba"):
        saboteur_env.raw_env(backend="array", num_players=5)


def _step_randomly(envs, rng, steps: int) -> None:
    for _ in range(steps):
        mask = envs[0].observe(envs[0].agent_selection)["action_mask"]
        a = int(rng.choice(np.flatnonzero(mask)))
        for e in envs:
            e.step(a)


@needs_numba
def test_the_array_backend_follows_changes_made_outside_step():
    """A move applied to ``env.game`` directly, a game set by ``load`` (a copy, then the same
    object edited in place), and a generator drawn by a caller before a round's deal (the
    kernels dealt that round in advance): the observation and mask are still the engine's."""
    fast = saboteur_env.raw_env(backend="array", num_players=5, num_rounds=2)
    ref = saboteur_env.raw_env(backend="engine", num_players=5, num_rounds=2)
    rng = np.random.default_rng(3)
    for e in (fast, ref):
        e.reset(seed=3)
    _step_randomly([fast, ref], rng, 12)
    assert _snapshot(fast) == _snapshot(ref)
    # a move applied on the game itself
    legal = fast.game.legal_actions()
    for e in (fast, ref):
        e.game.apply(legal[0])
        e.agent_selection = e.agents[e.game.current]
    assert _snapshot(fast) == _snapshot(ref)
    # load of a copy, then of the same object edited in place
    for e in (fast, ref):
        e.load(e.game.copy())
    assert _snapshot(fast) == _snapshot(ref)
    for e in (fast, ref):
        g = e.game
        g.turn += 5
        e.load(g)
    assert _snapshot(fast) == _snapshot(ref)
    # the generator drawn: the engine deals round 2 otherwise than drawn at the load
    for e in (fast, ref):
        e.game.rng.random(8)  # (a draw or two may leave a shuffle as it was)
    while fast.game.round == 0:
        _step_randomly([fast, ref], rng, 1)
        assert _snapshot(fast) == _snapshot(ref)
    _step_randomly([fast, ref], rng, 5)
    assert _snapshot(fast) == _snapshot(ref)


@needs_numba
def test_a_game_read_mid_game_is_the_live_game_from_then_on():
    """The kernels lead a new game until ``env.game`` is read: the object read is then up to
    date and stays the live game (the engine plays every later decision), and the env plays
    on exactly as the engine backend."""
    fast = saboteur_env.raw_env(num_players=4, num_rounds=2)
    ref = saboteur_env.raw_env(num_players=4, num_rounds=2, backend="engine")
    rng = np.random.default_rng(5)
    for e in (fast, ref):
        e.reset(seed=5)
    _step_randomly([fast, ref], rng, 90)  # past the end of round 1 (asserted below)
    assert fast._lead
    held = fast.game  # 90 decisions and a deal played through the engine now
    assert not fast._lead
    assert held.round == 1 and held.events == ref.game.events and held.decisions == 90
    while not held.game_over:
        _step_randomly([fast, ref], rng, 1)
        assert _snapshot(fast) == _snapshot(ref)
    assert held is fast.game and held.events == ref.game.events
    # a new game: the kernels lead again
    for e in (fast, ref):
        e.reset(seed=6)
    assert fast._lead
    _step_randomly([fast, ref], rng, 10)
    assert _snapshot(fast) == _snapshot(ref)


@needs_numba
def test_sampling_state_and_render_leave_the_kernels_leading():
    """``action_space(agent).sample()``, ``state()`` and ``render()`` read the game without
    handing it to the engine, and equal the engine backend's."""
    fast = saboteur_env.raw_env(num_players=5, render_mode="ansi")
    ref = saboteur_env.raw_env(num_players=5, render_mode="ansi", backend="engine")
    for e in (fast, ref):
        e.reset(seed=8)
    rng = np.random.default_rng(8)
    for _ in range(3):
        _step_randomly([fast, ref], rng, 30)
        assert fast.state().tobytes() == ref.state().tobytes()
        assert fast.render() == ref.render()
        for e in (fast, ref):
            e.action_space(e.agent_selection).seed(1)
        a = fast.action_space(fast.agent_selection).sample()
        assert a == ref.action_space(ref.agent_selection).sample()
        assert fast.observe(fast.agent_selection)["action_mask"][a] == 1
        assert fast._lead
    assert _snapshot(fast) == _snapshot(ref)


@needs_numba
def test_a_game_edited_in_place_cannot_take_an_illegal_move():
    """A game read and edited in place (a card taken from the hand of the seat to act) leaves
    the kept mask behind; the engine still refuses the card no longer held, naming the rule,
    and nothing moves."""
    e = saboteur_env.raw_env(num_players=5)
    e.reset(seed=4)
    g = e.game
    seat = g.current
    kind = int(np.flatnonzero(g.hands[seat])[0])
    discard = e.codec.blocks["discard"][0] + kind
    assert e.observe(e.agent_selection)["action_mask"][discard] == 1
    g.hands[seat, kind] = 0  # edited in place, not given back with load
    before = (g.decisions, g.hands.copy(), len(g.events))
    with pytest.raises(saboteur_env.IllegalActionError, match="may not play action"):
        e.step(discard)
    assert (g.decisions, len(g.events)) == (before[0], before[2])
    np.testing.assert_array_equal(g.hands, before[1])
    e.load(g)  # given back: the mask follows
    assert e.observe(e.agent_selection)["action_mask"][discard] == 0


@needs_numba
def test_an_illegal_action_under_the_kernels_names_the_rule_and_changes_nothing():
    """The engine's error for a masked action, with the kernels leading; nothing moves."""
    fast = saboteur_env.raw_env(num_players=5)
    ref = saboteur_env.raw_env(num_players=5, backend="engine")
    for e in (fast, ref):
        e.reset(seed=2)
    _step_randomly([fast, ref], np.random.default_rng(2), 7)
    before = _snapshot(fast)
    illegal = int(np.flatnonzero(fast.observe(fast.agent_selection)["action_mask"] == 0)[0])
    errors = []
    for e in (fast, ref):
        with pytest.raises(saboteur_env.IllegalActionError) as err:
            e.step(illegal)
        errors.append(str(err.value))
    assert errors[0] == errors[1] and "may not play" in errors[0]
    assert _snapshot(fast) == before == _snapshot(ref)


@needs_numba
def test_a_position_the_arrays_cannot_hold_is_encoded():
    """A hand-built position with more cards than the deck (``check_counts=False``) is
    observed through the encoder, as on the engine backend."""
    fast = saboteur_env.raw_env(backend="array", num_players=3)
    ref = saboteur_env.raw_env(backend="engine", num_players=3)
    for e in (fast, ref):
        e.reset(seed=1)
    big = fast.game.copy()
    big.deck = np.concatenate([big.deck, big.deck, big.deck])
    assert len(big.deck) + int(big.hands.sum()) > int(fast.config.ruleset.deck.sum())
    for e in (fast, ref):
        e.load(big.copy())
    assert _snapshot(fast) == _snapshot(ref)
    _step_randomly([fast, ref], np.random.default_rng(1), 6)
    assert _snapshot(fast) == _snapshot(ref)


@needs_numba
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_env_follows_its_own_game(how):
    """``copy.deepcopy`` and pickling rebuild the kept observation on the copied arrays: the
    copy and the original continue identically and independently."""
    e = saboteur_env.raw_env(num_players=5)
    e.reset(seed=11)
    rng = np.random.default_rng(11)
    _step_randomly([e], rng, 20)
    c = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
    assert c._lead and e._lead  # the kernels lead both
    assert _snapshot(c) == _snapshot(e)
    _step_randomly([e, c], rng, 30)
    assert _snapshot(c) == _snapshot(e)
    assert isinstance(c.game, Game) and c.game is not e.game
    assert c.game.events == e.game.events
    ref = saboteur_env.raw_env(backend="engine", num_players=5)
    ref.reset(seed=0)
    ref.load(c.game.copy())
    assert c.observe(c.agent_selection)["observation"].tobytes() == (
        ref.observe(ref.agent_selection)["observation"].tobytes()
    )


@needs_numba
def test_the_side_by_side_check_sees_a_difference(monkeypatch):
    """``check_aec`` fails where the kernels' side differs: here the final observations."""
    from saboteur_env.vector.arrays import FollowedGame
    from saboteur_experiments.fast_paths import Mismatch

    real = FollowedGame.final_observation

    def off_by_one(self, seat):
        obs = real(self, seat)
        obs[0] += 1
        return obs

    monkeypatch.setattr(FollowedGame, "final_observation", off_by_one)
    with pytest.raises(Mismatch, match="the envs differ"):
        check_aec({"num_players": 3, "num_rounds": 1}, games=1, seed=0)


@needs_numba
def test_an_env_unpickled_without_numba_continues_on_the_engine(monkeypatch):
    """A pickled array-backend env, loaded where numba is not in use, brings its game up to
    date and plays on on the engine backend, as the original does on the kernels."""
    e = saboteur_env.raw_env(num_players=5)
    e.reset(seed=9)
    rng = np.random.default_rng(9)
    _step_randomly([e], rng, 25)
    data = pickle.dumps(e)
    monkeypatch.setattr(kernels, "ENABLED", False)
    c = pickle.loads(data)
    monkeypatch.setattr(kernels, "ENABLED", True)
    assert (c.backend, c._followed, c._lead) == ("engine", None, False)
    assert _snapshot(c) == _snapshot(e)
    _step_randomly([e, c], rng, 60)  # through a round end
    assert _snapshot(c) == _snapshot(e)


def test_the_parallel_view_and_odd_input_get_the_envs_own_behaviour():
    """``parallel_env`` passes ``backend``, ``render_mode`` and ``render_seat`` to the env; a
    0-d integer array is an action (the space's ``contains`` accepts it); observing before
    ``reset`` and loading after the game's end are clear errors."""
    from saboteur_env import saboteur_v0

    p = saboteur_v0.parallel_env(num_players=4, backend="engine", render_mode="ansi")
    p.reset(seed=1)
    assert p.unwrapped.backend == "engine" and p.render().startswith("round 1/3")
    e = saboteur_env.raw_env(num_players=3, num_rounds=1)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before observe\(\)"):
        e.observe("player_0")
    e.reset(seed=3)
    a = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
    assert e.action_space(e.agent_selection).contains(np.array(a))
    e.step(np.array(a))
    with pytest.raises(TypeError, match="int index"):
        e.step(np.array([a]))
    g = e.game.copy()
    while e.agents:
        agent = e.agent_selection
        if e.terminations[agent]:
            e.step(None)
            continue
        e.step(int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))
    with pytest.raises(RuntimeError, match=r"call reset\(\) before load\(\)"):
        e.load(g)


def _theft_phase_game(seed: int) -> Game:
    """A 5-player Saboteur 2 game played at random up to a thief's decision (RULES 6.9)
    before its last round (the game goes on after the thefts)."""
    g = Game(saboteur_env.engine.GameConfig(num_players=5, expansion=True), seed)
    rng = np.random.default_rng(seed)
    while g.phase.value != "theft" or g.round == g.config.num_rounds - 1:
        legal = g.legal_actions()
        g.apply(legal[int(rng.integers(len(legal)))])
        if g.game_over:  # no such theft this game: the next seed
            return _theft_phase_game(seed + 1)
    return g


@needs_numba
def test_saboteur_2_loaded_in_the_thefts_and_read_mid_game_plays_as_the_engine():
    """A Saboteur 2 game loaded while a thief chooses his victim (the array backend keeps the
    round's result and the thieves to act in Python, ``ArrayGames.settle``) plays on exactly
    as on the engine backend, and so does a game read mid-round (the engine then leads and
    the kernels follow it through passes, removals and round ends)."""
    g = _theft_phase_game(11)
    fast = saboteur_env.raw_env(num_players=5, expansion=True)
    ref = saboteur_env.raw_env(num_players=5, expansion=True, backend="engine")
    assert fast.backend == "array"
    for e in (fast, ref):
        e.reset(seed=0)
        e.load(g.copy())
    assert _snapshot(fast) == _snapshot(ref)
    rng = np.random.default_rng(11)
    _step_randomly([fast, ref], rng, 1)
    assert _snapshot(fast) == _snapshot(ref)
    while fast.game.round == g.round:  # the game read: the engine leads from here
        _step_randomly([fast, ref], rng, 1)
        assert _snapshot(fast) == _snapshot(ref)
    assert not fast._lead
    for _ in range(80):
        if all(fast.terminations.values()):
            break
        _step_randomly([fast, ref], rng, 1)
        assert _snapshot(fast) == _snapshot(ref)
    assert fast.game.events == ref.game.events
