"""The batched engine (saboteur_env.vector) against single envs: bit-identical play.

The differential test steps ``B`` games of a :class:`VectorGame` and ``B`` ``raw_env``s reset
with the same seeds, feeding both the same random legal actions, through several games each
(auto-reset against the env's unseeded ``reset()``), and compares every array after every step
(:func:`saboteur_experiments.fast_paths.check_vector`; ``python -m
saboteur_experiments.fast_paths --vector 5000`` runs longer).
"""

import numpy as np
import pytest

from saboteur_env import IllegalActionError
from saboteur_env.vector import VectorGame
from saboteur_experiments.fast_paths import Mismatch, check_vector

STEPS = 700  # about three base games per env at 5 players (200-250 decisions a game)


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 5},
        {"num_players": 3, "reward": "gold"},
        {"num_players": 5, "expansion": True},
        {"num_players": 4, "max_cycles": 20},
    ],
)
def test_vector_games_equal_single_envs_with_the_same_seeds(options):
    """Seat to act, observation, mask, rewards, events, terminated/truncated and final gold
    after every step equal those of single envs (``check_vector``), through auto-resets."""
    ended = check_vector(options, num_envs=3, steps=STEPS, seed=40)
    assert ended >= 3  # every game ended at least once on average: auto-reset exercised


def test_the_differential_check_sees_a_difference(monkeypatch):
    """The check can fail: a vector whose rewards are off by one in game 0 is caught."""
    real = VectorGame.step

    def off(self, actions):
        real(self, actions)
        if self.rewards[0].any():
            self.rewards[0, 0] += 1

    monkeypatch.setattr(VectorGame, "step", off)
    with pytest.raises(Mismatch, match="game 0, rewards"):
        check_vector({"num_players": 3}, num_envs=1, steps=STEPS, seed=40)


def test_reset_takes_one_seed_per_game_and_checks_them():
    vec = VectorGame(2, num_players=4)
    vec.reset([7, 7])
    np.testing.assert_array_equal(vec.observation[0], vec.observation[1])
    vec.reset(7)  # 7 and 8
    assert not np.array_equal(vec.observation[0], vec.observation[1])
    with pytest.raises(ValueError, match="3 seeds for 2 games"):
        vec.reset([1, 2, 3])
    with pytest.raises(ValueError, match="seed -1"):
        vec.reset([1, -1])
    with pytest.raises(TypeError, match="seed 1.5"):
        vec.reset([1, 1.5])
    with pytest.raises(TypeError, match="seed 1.5: a non-negative int or one int per game"):
        vec.reset(1.5)


def test_bad_actions_are_refused_and_no_game_moves():
    vec = VectorGame(3, num_players=5)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step([0, 0, 0])
    vec.reset(0)
    snapshot = (vec.observation.copy(), vec.legal_action_mask.copy(), vec.current_player.copy())
    decisions = [g.decisions for g in vec.games]
    good = np.array([np.flatnonzero(m)[0] for m in vec.legal_action_mask])
    bad = good.copy()
    bad[2] = np.flatnonzero(~vec.legal_action_mask[2])[0]
    with pytest.raises(IllegalActionError, match=r"^game 2: seat \d may not play"):
        vec.step(bad)
    with pytest.raises(IllegalActionError, match=r"game 1: action 99999 is outside"):
        vec.step([good[0], 99999, good[2]])
    huge = np.array([good[0], 2**64 - 1, good[2]], dtype=np.uint64)
    with pytest.raises(IllegalActionError, match=r"game 1: action 18446744073709551615 is outside"):
        vec.step(huge)
    with pytest.raises(ValueError, match=r"3 integers"):
        vec.step(good[:2])
    with pytest.raises(ValueError, match=r"3 integers"):
        vec.step(good.astype(float))
    assert [g.decisions for g in vec.games] == decisions
    for a, b in zip(snapshot, (vec.observation, vec.legal_action_mask, vec.current_player)):
        np.testing.assert_array_equal(a, b)
    vec.step(good)
    assert [g.decisions for g in vec.games] == [d + 1 for d in decisions]
    with pytest.raises(ValueError, match="num_envs=0"):
        VectorGame(0)


def test_the_aec_view_of_a_game_continues_it_without_moving_the_batch():
    vec = VectorGame(2, num_players=4)
    vec.reset(3)
    vec.step([np.flatnonzero(m)[0] for m in vec.legal_action_mask])
    env = vec.aec_env(1)
    assert env.game.decisions == vec.games[1].decisions == 1
    np.testing.assert_array_equal(
        env.observe(env.agent_selection)["observation"], vec.observation[1]
    )
    a = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(a)
    assert vec.games[1].decisions == 1
    with pytest.raises(IndexError, match="the games are 0..1"):
        vec.aec_env(2)


def test_reset_game_deals_one_slot_as_the_env_deals_its_seed():
    """``reset_game(i, seed)``: slot ``i`` plays exactly ``raw_env.reset(seed=seed)``'s game and,
    once it ends, the env's next unseeded deal; the other slots are untouched.  The finished
    game is in ``ended_games`` for that step; a new deal clears the slot's outcome rows."""
    import saboteur_env

    options = {"num_players": 3, "num_rounds": 1}
    vec = VectorGame(2, **options)
    vec.reset(seed=[10, 11])
    other = (vec.observation[1].copy(), vec.legal_action_mask[1].copy())
    vec.reset_game(0, 2_000_007)
    assert np.array_equal(vec.observation[1], other[0])
    assert np.array_equal(vec.legal_action_mask[1], other[1])
    env = saboteur_env.raw_env(**options)
    env.reset(seed=2_000_007)
    rng = np.random.default_rng(0)
    ended = None
    for _ in range(400):
        o = env.observe(env.agent_selection)
        assert np.array_equal(vec.observation[0], o["observation"])
        assert np.array_equal(vec.legal_action_mask[0], o["action_mask"].astype(bool))
        a = int(rng.choice(np.flatnonzero(o["action_mask"])))
        b = int(rng.choice(np.flatnonzero(vec.legal_action_mask[1])))
        played = vec.games[0]
        env.step(a)
        vec.step(np.array([a, b]))
        if all(env.terminations.values()):
            ended = played
            break
        assert vec.ended_games[0] is None
    assert ended is not None and vec.terminated[0] and vec.ended_games[0] is ended
    assert ended.game_over and vec.final_gold[0].tolist() == list(ended.gold)
    env.reset()  # the env's next deal of the same stream
    assert np.array_equal(vec.observation[0], env.observe(env.agent_selection)["observation"])
    vec.reset_game(0, 2_000_008)
    assert not vec.terminated[0] and vec.ended_games[0] is None and not vec.final_gold[0].any()


def test_reset_game_and_load_refuse_bad_input_and_leave_the_batch_unchanged():
    from saboteur_env import Game, GameConfig

    vec = VectorGame(2, num_players=4)
    with pytest.raises(RuntimeError, match="reset"):
        vec.reset_game(0, 1)
    vec.reset(seed=5)
    before = vec.observation.copy(), [g.decisions for g in vec.games], list(vec.games)
    for args, err, text in (
        ((2, 1), IndexError, "0..1"),
        ((True, 1), IndexError, "game True"),
        ((0, -1), ValueError, "non-negative"),
        ((0, 1.5), TypeError, "non-negative int"),
    ):
        with pytest.raises(err, match=text):
            vec.reset_game(*args)
    with pytest.raises(TypeError, match="Game"):
        vec.load(0, "a game")
    with pytest.raises(ValueError, match="options"):
        vec.load(0, Game(GameConfig(num_players=5), 1))
    assert np.array_equal(vec.observation, before[0]) and vec.games == before[2]
    game = Game(GameConfig(num_players=4), 9)
    vec.load(1, game)
    assert vec.games[1] is game and vec.events[1] == [] and vec.current_player[1] == game.current
