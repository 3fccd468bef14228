"""The batched engine (saboteur_env.vector) against single envs: bit-identical play.

The differential test steps ``B`` games of a :class:`VectorGame` and ``B`` ``raw_env``s reset
with the same seeds, feeding both the same random legal actions, through several games each
(auto-reset against the env's unseeded ``reset()``), and compares every array after every step
(:func:`saboteur_experiments.fast_paths.check_vector`; ``python -m
saboteur_experiments.fast_paths --vector 5000`` runs longer).
"""

import numpy as np
import pytest

import saboteur_env
from saboteur_env import IllegalActionError
from saboteur_env.engine.events import EventType
from saboteur_env.vector import VectorGame, kernels
from saboteur_experiments.fast_paths import Mismatch, check_vector

STEPS = 700  # about three base games per env at 5 players (200-250 decisions a game)

needs_numba = pytest.mark.skipif(not kernels.ENABLED, reason="the array backend needs numba")


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
    after every step equal those of single envs (``check_vector``), through auto-resets; the
    engine backend."""
    ended = check_vector(options, num_envs=3, steps=STEPS, seed=40, backend="engine")
    assert ended >= 3  # every game ended at least once on average: auto-reset exercised


#: the array backend's configurations, with the share of decisions that place the card
#: furthest east (``choose_actions``: mazes that reach the goals): every option the kernels
#: read (players, window, self_sabotage) or hand to the engine (rounds, reward, max_cycles,
#: forfeit, roles, first player)
ARRAY_CONFIGS = [
    ({"num_players": 5}, 0.8),
    ({"num_players": 3, "reward": "gold"}, 0.8),
    ({"num_players": 10, "num_rounds": 2}, 0.0),
    ({"num_players": 4, "max_cycles": 20}, 0.0),
    ({"num_players": 7, "self_sabotage": False, "role_table": "seed"}, 0.5),
    ({"num_players": 6, "broken_tool_forfeit": True, "first_player": "random"}, 0.8),
    ({"num_players": 5, "board_window": (-3, 10, -4, 4)}, 0.5),
    # Saboteur 2: doors, ladders, crystals, the action cards, passes, removals and thefts
    ({"num_players": 5, "expansion": True}, 0.8),
    ({"num_players": 2, "expansion": True, "reward": "gold"}, 0.8),
    (
        {
            "num_players": 12,
            "expansion": True,
            "both_doors_rule": "bga",
            "remove_cards_each_round": False,
            "self_sabotage": False,
        },
        0.5,
    ),
]


@needs_numba
@pytest.mark.parametrize("options, east", ARRAY_CONFIGS)
def test_the_array_backend_equals_single_envs_with_the_same_seeds(options, east):
    """The compiled array backend: every observation, mask, reward and event after every step,
    each finished game's whole event list and, every 50 steps, each game's state and event
    list equal single envs' (``check_vector``), through round ends and auto-resets."""
    ended = check_vector(options, num_envs=4, steps=STEPS, seed=41, backend="array", east=east)
    assert ended >= 4


@needs_numba
def test_the_differential_run_plays_every_action_family_and_goal_reveal():
    """The first configuration of the array backend's differential test reaches every base
    action family, goal reveals of both orientations, the gold and round ends of both kinds:
    the check above is not blind to any of the kernels' branches."""
    from saboteur_experiments.fast_paths import choose_actions

    vec = VectorGame(4, backend="array", num_players=5)
    vec.reset(41)
    rng = np.random.default_rng(41)
    seen = set()
    rotated = set()
    for _ in range(STEPS):
        vec.step(choose_actions(vec.legal_action_mask, rng, vec.codec, ARRAY_CONFIGS[0][1]))
        for events in vec.events:
            for e in events:
                seen.add(e.type)
                if e.type is EventType.GOAL_REVEALED:
                    rotated.add((e.data["identity"] == 0, e.data["rotated"]))
                if e.type is EventType.ROUND_END:
                    seen.add(("gold found", e.data["gold_found"]))
    for t in (
        EventType.PATH_PLACED,
        EventType.ROCKFALL,
        EventType.MAP_PLAYED,
        EventType.MAP_RESULT,
        EventType.TOOL_BROKEN,
        EventType.TOOL_REPAIRED,
        EventType.DISCARDED,
        EventType.CARD_DRAWN,
        EventType.GAME_END,
        ("gold found", True),
        ("gold found", False),
    ):
        assert t in seen, t
    assert {(True, False), (False, False), (False, True)} <= rotated


@needs_numba
def test_the_saboteur_2_differential_run_plays_every_card_phase_and_theft():
    """The Saboteur 2 configurations of the array backend's differential test together reach
    every action card, a removal of each kind of card in front, passes ended both ways,
    thefts made and skipped, Swap your hats and Inspection, and both round ends: the check
    is not blind to the kernels' Saboteur 2 branches or the caller's round end."""
    from saboteur_env.engine.cards import X_EFFECTS
    from saboteur_experiments.fast_paths import choose_actions

    seen = set()
    for options, east in (c for c in ARRAY_CONFIGS if c[0].get("expansion")):
        vec = VectorGame(4, backend="array", **options)
        vec.reset(41)
        rng = np.random.default_rng(41)
        for _ in range(STEPS):
            vec.step(choose_actions(vec.legal_action_mask, rng, vec.codec, east))
            _note_events(vec, seen)
    expected = {
        *X_EFFECTS,
        EventType.INSPECTION_RESULT,
        EventType.REMOVE_STARTED,
        ("removed", 0),  # a broken tool
        ("removed", 3),  # a Trapped! or a Theft
        ("pass ended by done", True),
        ("pass ended by done", False),
        EventType.ROUND_SCORED,
        EventType.THEFT,
        EventType.THEFT_SKIPPED,
        "swapped",
        ("gold found", True),
        ("gold found", False),
        EventType.GAME_END,
    }
    assert expected <= seen, expected - seen


def _note_events(vec: VectorGame, seen: set) -> None:
    """Add what the last step's events show to ``seen``: event types, cards played, the
    kind of card removed (a tool, or a Trapped!/Theft), how passes ended, swaps of hats and
    how rounds ended."""
    for events in vec.events:
        for e in events:
            seen.add(e.type)
            if e.type is EventType.ACTION_PLAYED:
                seen.add(e.data["card"])
            elif e.type is EventType.FRONT_REMOVED:
                seen.add(("removed", min(e.data["slot"], 3)))
            elif e.type is EventType.PASS_DONE:
                seen.add(("pass ended by done", e.data["done"]))
            elif e.type is EventType.ROLE_DEALT and e.data.get("swapped"):
                seen.add("swapped")
            elif e.type is EventType.ROUND_END:
                seen.add(("gold found", e.data["gold_found"]))


def test_the_backend_is_chosen_by_numba_and_the_ruleset(monkeypatch):
    """``auto`` takes the array backend for both games where numba is in use, the engine
    otherwise; asking for what cannot run is a clear error."""
    from saboteur_env.vector import arrays

    assert VectorGame(1, backend="engine", num_players=5).backend == "engine"
    with pytest.raises(ValueError, match="backend='numpy': one of auto, array, engine"):
        VectorGame(1, backend="numpy")
    if kernels.ENABLED:
        assert VectorGame(1, num_players=5).backend == "array"
        assert VectorGame(1, num_players=5, expansion=True).backend == "array"
        # a ruleset the kernels do not play (none today) takes the engine, or is refused
        with monkeypatch.context() as m:
            m.setattr(arrays, "supports", lambda config: not config.expansion)
            assert VectorGame(1, num_players=5, expansion=True).backend == "engine"
            with pytest.raises(ValueError, match="does not play Saboteur 2 yet: use 'engine'"):
                VectorGame(1, backend="array", expansion=True)
    monkeypatch.setattr(kernels, "ENABLED", False)
    assert VectorGame(1, num_players=5, expansion=True).backend == "engine"
    assert VectorGame(1, num_players=5).backend == "engine"
    with pytest.raises(RuntimeError, match="needs numba: .*(SABOTEUR_NUMBA=0|not installed)"):
        VectorGame(1, backend="array", num_players=5)


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_observation_and_mask_are_read_only(backend):
    """The mask is what ``step`` checks actions against: no caller may widen it."""
    vec = VectorGame(2, backend=backend, num_players=4)
    vec.reset(0)
    with pytest.raises(ValueError, match="read-only"):
        vec.observation[0, 0] = 1
    with pytest.raises(ValueError, match="read-only"):
        vec.legal_action_mask[0, 0] = True


@needs_numba
def test_sample_actions_draws_the_same_legal_actions_on_both_backends():
    """``sample_actions``: a legal action per game, the same on both backends for the same
    generator (position floor(u * count) of the ascending legal list)."""
    a, e = (VectorGame(5, backend=b, num_players=5) for b in ("array", "engine"))
    a.reset(7)
    e.reset(7)
    ra, re = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(120):
        x, y = a.sample_actions(ra), e.sample_actions(re)
        np.testing.assert_array_equal(x, y)
        assert a.legal_action_mask[np.arange(5), x].all()
        a.step(x)
        e.step(y)
    with pytest.raises(RuntimeError, match="reset"):
        VectorGame(1, num_players=3).sample_actions(ra)
    with pytest.raises(TypeError, match="rng: a numpy.random.Generator"):
        a.sample_actions(0)


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_a_game_played_on_in_place_is_refused_and_load_takes_it_back(backend):
    """A ``Game`` read from the batch and played on in place no longer matches the batch's
    mask (a move legal there may be illegal in it, and the array backend's kernels never see
    the edit): the next step (engine) or read (array) refuses it, and no game moves; giving
    the edited game back with ``load`` continues from it."""
    vec = VectorGame(2, backend=backend, num_players=5)
    vec.reset(3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        vec.step(vec.sample_actions(rng))
    g = vec.game(1)
    g.apply(g.legal_actions(g.current)[0])
    before = vec.observation.copy()
    with pytest.raises(RuntimeError, match="game 1 was played on in place"):
        vec.step(vec.sample_actions(rng))
    with pytest.raises(RuntimeError, match=r"load\(1, game\)"):
        vec.game(1)
    assert vec.game(0).decisions == 5  # no game moved
    vec.load(1, g)
    assert vec.current_player[1] == g.current
    assert not np.array_equal(vec.observation[1], before[1])
    vec.step(vec.sample_actions(rng))
    assert vec.game(1).decisions == 7
    with pytest.raises(TypeError):
        vec.games[1] = g  # games is read-only: a game is replaced through load()


@needs_numba
def test_an_ended_game_played_on_in_place_is_refused_on_the_array_backend():
    """The array backend replays an ended game's last actions onto its ``Game`` when read: a
    ``Game`` read before it ended and played on in place since is refused, not corrupted."""
    vec = VectorGame(1, backend="array", num_players=3, num_rounds=1)
    vec.reset(1)
    rng = np.random.default_rng(1)
    g = vec.game(0)  # read now: it lags the kernels until read again
    vec.step(vec.sample_actions(rng))
    while not vec.terminated[0]:
        vec.step(vec.sample_actions(rng))
    g.apply(g.legal_actions(g.current)[0])
    for _ in range(2):  # and again: its last actions were not dropped by the first refusal
        with pytest.raises(RuntimeError, match="slot 0 was played on in place"):
            vec.ended_games[0]


@needs_numba
def test_a_position_loaded_mid_round_continues_identically_on_both_backends():
    """``load`` of a game in the middle of a round (its public history, last card placed and
    maze taken from the game itself) plays on exactly as the engine does."""
    env = saboteur_env.raw_env(num_players=5)
    env.reset(seed=12)
    rng = np.random.default_rng(12)
    for _ in range(40):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    vecs = [VectorGame(1, backend=b, num_players=5) for b in ("array", "engine")]
    for v in vecs:
        v.reset(0)
        v.load(0, env.game.copy())
    for _ in range(150):
        np.testing.assert_array_equal(vecs[0].observation, vecs[1].observation)
        np.testing.assert_array_equal(vecs[0].legal_action_mask, vecs[1].legal_action_mask)
        a = vecs[1].sample_actions(rng)
        for v in vecs:
            v.step(a)
        assert vecs[0].events == vecs[1].events


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_the_differential_check_sees_a_difference(monkeypatch, backend):
    """The check can fail: a vector whose rewards are off by one in game 0 is caught."""
    real = VectorGame.step

    def off(self, actions):
        real(self, actions)
        if self.rewards[0].any():
            self.rewards[0, 0] += 1

    monkeypatch.setattr(VectorGame, "step", off)
    with pytest.raises(Mismatch, match="game 0, rewards"):
        check_vector({"num_players": 3}, num_envs=1, steps=STEPS, seed=40, backend=backend)


@needs_numba
def test_the_differential_check_sees_a_kernel_difference(monkeypatch):
    """A kernel that writes one observation value wrong at the 100th step is caught."""
    from saboteur_env.vector.arrays import ArrayGames

    real = ArrayGames.step
    calls = []

    def off(self, actions, rewards):
        out = real(self, actions, rewards)
        calls.append(1)
        if len(calls) == 100:
            self.obs[0, self.P[kernels.P_OBS_GAME] + 4] += 1  # the turn counter
        return out

    monkeypatch.setattr(ArrayGames, "step", off)
    with pytest.raises(Mismatch, match="step 100, game 0, observation"):
        check_vector({"num_players": 4}, num_envs=2, steps=STEPS, seed=40, backend="array")


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_reset_takes_one_seed_per_game_and_checks_them(backend):
    vec = VectorGame(2, backend=backend, num_players=4)
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


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_bad_actions_are_refused_and_no_game_moves(backend):
    vec = VectorGame(3, backend=backend, num_players=5)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step([0, 0, 0])
    vec.reset(0)
    snapshot = (vec.observation.copy(), vec.legal_action_mask.copy(), vec.current_player.copy())
    decisions = [g.decisions for g in vec.games]
    good = np.array([np.flatnonzero(m)[0] for m in vec.legal_action_mask])
    bad = good.copy()
    bad[2] = np.flatnonzero(~vec.legal_action_mask[2])[0]
    with pytest.raises(
        IllegalActionError, match=r"^game 2: seat \d may not play \d+ \(.+\): seat \d holds no"
    ):
        vec.step(bad)
    with pytest.raises(IllegalActionError, match=r"game 1: action 99999 is outside"):
        vec.step([good[0], 99999, good[2]])
    huge = np.array([good[0], 2**64 - 1, good[2]], dtype=np.uint64)
    with pytest.raises(IllegalActionError, match=r"game 1: action 18446744073709551615 is outside"):
        vec.step(huge)
    with pytest.raises(ValueError, match=r"3 integers \(shape \(3,\)\), got shape \(2,\)$"):
        vec.step(good[:2])
    with pytest.raises(ValueError, match=r"3 integers \(shape \(3,\)\), got float64 values$"):
        vec.step(good.astype(float))
    assert [g.decisions for g in vec.games] == decisions
    for a, b in zip(snapshot, (vec.observation, vec.legal_action_mask, vec.current_player)):
        np.testing.assert_array_equal(a, b)
    vec.step(good)
    assert [g.decisions for g in vec.games] == [d + 1 for d in decisions]
    with pytest.raises(ValueError, match="num_envs=0"):
        VectorGame(0)


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_the_aec_view_of_a_game_continues_it_without_moving_the_batch(backend):
    vec = VectorGame(2, backend=backend, num_players=4)
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


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_reset_game_deals_one_slot_as_the_env_deals_its_seed(backend):
    """``reset_game(i, seed)``: slot ``i`` plays exactly ``raw_env.reset(seed=seed)``'s game and,
    once it ends, the env's next unseeded deal; the other slots are untouched.  The finished
    game is in ``ended_games`` for that step; a new deal clears the slot's outcome rows."""
    import saboteur_env

    options = {"num_players": 3, "num_rounds": 1}
    vec = VectorGame(2, backend=backend, **options)
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


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_reset_game_and_load_refuse_bad_input_and_leave_the_batch_unchanged(backend):
    from saboteur_env import Game, GameConfig

    vec = VectorGame(2, backend=backend, num_players=4)
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
    over = Game(GameConfig(num_players=4), 3)
    rng = np.random.default_rng(0)
    while not over.game_over:
        legal = over.legal_actions()
        over.apply(legal[int(rng.integers(len(legal)))])
    with pytest.raises(ValueError, match="game 0: the game given is over"):
        vec.load(0, over)
    assert np.array_equal(vec.observation, before[0]) and vec.games == before[2]
    game = Game(GameConfig(num_players=4), 9)
    vec.load(1, game)
    assert vec.games[1] is game and vec.events[1] == [] and vec.current_player[1] == game.current


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_a_pickled_batch_plays_on_like_the_original(backend):
    """A pickled batch (its read-only views rebuilt) steps exactly as the original."""
    import pickle

    vec = VectorGame(3, backend=backend, num_players=5)
    vec.reset(2)
    rng = np.random.default_rng(2)
    for _ in range(30):
        vec.step(vec.sample_actions(rng))
    twin = pickle.loads(pickle.dumps(vec))
    r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(200):
        a = vec.sample_actions(r1)
        np.testing.assert_array_equal(a, twin.sample_actions(r2))
        vec.step(a)
        twin.step(a)
        np.testing.assert_array_equal(vec.observation, twin.observation)
        np.testing.assert_array_equal(vec.legal_action_mask, twin.legal_action_mask)
        np.testing.assert_array_equal(vec.rewards, twin.rewards)
    assert not twin.observation.flags.writeable


@needs_numba
def test_the_array_backend_refuses_a_position_with_more_cards_than_the_deck():
    """The arrays (draw pile, event log) are sized by the deck: a hand-built position with
    more cards in play is refused with the limit named, and the slot is left as it was."""
    from saboteur_env import GameConfig, build_state

    big = ["B07"] * 60
    g = build_state(
        GameConfig(num_players=3),
        roles=["gold-digger", "saboteur", "gold-digger"],
        hands=[big, big, big],
        check_counts=False,
    )
    vec = VectorGame(2, backend="array", num_players=3)
    vec.reset(1)
    before = (vec.observation.copy(), vec.legal_action_mask.copy(), vec.game(0))
    with pytest.raises(ValueError, match=r"\d+ cards in the draw pile .* the deck's 67 .*'engine'"):
        vec.load(0, g)
    assert vec.game(0) is before[2]
    np.testing.assert_array_equal(vec.observation, before[0])
    np.testing.assert_array_equal(vec.legal_action_mask, before[1])
    engine = VectorGame(1, backend="engine", num_players=3)
    engine.reset(0)
    engine.load(0, g)  # the engine backend plays it
    assert engine.legal_action_mask.any()


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_sample_actions_names_a_game_without_a_legal_action(backend):
    from saboteur_env import GameConfig, build_state

    empty = build_state(
        GameConfig(num_players=3), roles=["gold-digger", "saboteur", "gold-digger"], hands=[[]] * 3
    )
    vec = VectorGame(2, backend=backend, num_players=3)
    vec.reset(0)
    vec.load(1, empty)
    with pytest.raises(ValueError, match="game 1 has no legal action"):
        vec.sample_actions(np.random.default_rng(0))


@needs_numba
def test_more_legal_actions_than_the_kernels_list_still_play_identically():
    """A position with over MAX_LEGAL legal actions (a maze of crossings, eight path kinds in
    hand): the mask is cleared whole, sampling falls back to the mask, and play stays equal
    to the engine backend's."""
    from saboteur_env import GameConfig, build_state

    board = [(x, y, "B07", False) for x in (-5, -2, 1, 4) for y in range(-8, 9) if (x, y) != (0, 0)]
    board += [(x, 0, "B07", False) for x in (-4, -3, -1, 2, 3)]
    hand = ["B03", "B04", "B05", "B06", "B12", "B13", "B14", "B15"]
    g = build_state(
        GameConfig(num_players=3),
        roles=["gold-digger", "saboteur", "gold-digger"],
        hands=[hand, [*hand, "rockfall"], hand],
        board=board,
        deck=["B07"] * 20,
        check_counts=False,
    )
    vecs = [VectorGame(1, backend=b, num_players=3) for b in ("array", "engine")]
    for v in vecs:
        v.reset(0)
        v.load(0, g.copy())
    assert vecs[0].legal_action_mask.sum() > kernels.MAX_LEGAL
    rngs = [np.random.default_rng(1), np.random.default_rng(1)]
    for _ in range(60):
        np.testing.assert_array_equal(vecs[0].observation, vecs[1].observation)
        np.testing.assert_array_equal(vecs[0].legal_action_mask, vecs[1].legal_action_mask)
        a, b = (v.sample_actions(r) for v, r in zip(vecs, rngs))
        np.testing.assert_array_equal(a, b)
        for v in vecs:
            v.step(a)
        assert vecs[0].events == vecs[1].events


@needs_numba
def test_a_kept_game_is_a_snapshot_and_ended_games_completes_the_events():
    """On the array backend a Game read through ``game(i)`` shows that moment; the game that
    ended, read through ``ended_games`` in the step it ended, has every event, as the
    engine's."""
    vecs = [VectorGame(2, backend=b, num_players=3, num_rounds=1) for b in ("array", "engine")]
    for v in vecs:
        v.reset(4)
    rng = np.random.default_rng(4)
    ended = 0
    for _ in range(300):
        a = vecs[1].sample_actions(rng)
        for v in vecs:
            v.step(a)
        for i in range(2):
            if vecs[1].terminated[i]:
                assert vecs[0].ended_games[i].events == vecs[1].ended_games[i].events
                ended += 1
    assert ended >= 2
    assert vecs[0].games == [vecs[0].game(0), vecs[0].game(1)]
    assert len(vecs[0].games) == 2 and vecs[0].games[-1] is vecs[0].game(1)


@needs_numba
def test_the_array_backend_refuses_too_many_nuggets_and_a_generator_drawn_after_the_deal():
    """More gold-nugget cards than the game's supply is refused before the slot changes; a
    loaded game whose generator a caller draws is dealt otherwise by the engine than by the
    kernels, which dealt every round at the load: its next read says so."""
    from saboteur_env import GameConfig, build_state

    roles = ["gold-digger", "saboteur", "gold-digger"]
    vec = VectorGame(1, backend="array", num_players=3, num_rounds=2)
    vec.reset(3)
    kept = vec.game(0)
    too_many = build_state(
        GameConfig(num_players=3, num_rounds=2), roles=roles, hands=[[]] * 3, nuggets=[1] * 30
    )
    with pytest.raises(ValueError, match="30 gold-nugget cards .* at most the game's 28"):
        vec.load(0, too_many)
    assert vec.game(0) is kept
    vec.game(0).rng.permutation(10)  # a caller's draw
    rng = np.random.default_rng(0)
    with pytest.raises(RuntimeError, match="generator .* was drawn since"):
        for _ in range(200):
            vec.step(vec.sample_actions(rng))
            vec.events[0]  # a round end's events: the engine brings the game up to date


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_round_truth_is_every_games_hidden_roles_and_goal_cards(backend):
    """``round_truth`` (for a trainer's critic): each game's current roles and goal cards,
    through round ends and games dealt anew by the auto-reset, as copies; refused before
    ``reset``."""
    with pytest.raises(RuntimeError, match="reset"):
        VectorGame(2, backend=backend, num_players=5).round_truth()
    vec = VectorGame(3, backend=backend, num_players=5, num_rounds=2)
    vec.reset(40)
    rng = np.random.default_rng(5)
    ends = 0
    for _ in range(260):
        roles, goals = vec.round_truth()
        assert roles.dtype == np.int8 and roles.shape == (3, 5) and goals.shape == (3, 3)
        for i in range(3):
            g = vec.game(i)
            assert roles[i].tolist() == g.roles.tolist()
            assert goals[i].tolist() == g.board.goal_identity.tolist()
            assert sorted(goals[i].tolist()) == [0, 1, 2]
        roles[:] = 9  # a copy: the games are untouched
        assert vec.round_truth()[0].max() < 2
        vec.step(vec.sample_actions(rng))
        ends += int(vec.rewards.any(axis=1).sum())
    assert ends >= 6  # round ends and new games were crossed


def test_round_truth_follows_a_swap_of_hats_in_saboteur_2():
    """Saboteur 2 (engine backend): a role changed by Swap your hats mid-round (RULES 6.5)
    is the new one."""
    vec = VectorGame(4, num_players=5, expansion=True)
    vec.reset(3)
    rng = np.random.default_rng(2)
    changed = 0
    before = vec.round_truth()[0]
    for _ in range(400):
        vec.step(vec.sample_actions(rng))
        now = vec.round_truth()[0]
        for i in range(4):
            assert now[i].tolist() == vec.game(i).roles.tolist()
            swapped = any(
                e.type is EventType.ROLE_DEALT and e.data.get("swapped") for e in vec.events[i]
            )
            if swapped and not vec.rewards[i].any():  # a mid-round change, not a new deal
                changed += int(now[i].tolist() != before[i].tolist())
        before = now
    assert changed >= 1


def test_kernel_records_make_shared_read_only_events():
    """``events_of`` makes one :class:`Event` per distinct record and hands the same object
    to every step that logs that record again: safe because an event cannot be changed (a
    frozen dataclass with read-only data), and equal to one made afresh."""
    import dataclasses

    from saboteur_env.vector import arrays as A
    from saboteur_env.vector import kernels as K

    rec = np.array([[K.EV_CARD_DRAWN, 2, 2, 5, 0, 0, 0], [K.EV_DISCARDED, 3, -1, 0, 0, 0, 0]])
    first, second = A.events_of(rec), A.events_of(rec.copy())
    assert [a is b for a, b in zip(first, second)] == [True, True]
    assert first == [A._event(r) for r in rec.tolist()]
    assert first[0].type is EventType.CARD_DRAWN and first[0].data == {"kind": 5}
    assert (first[0].seat, first[0].visible_to) == (2, 2) and first[1].visible_to is None
    with pytest.raises(TypeError, match="read-only"):
        first[0].data["kind"] = 6  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        first[0].seat = 1  # type: ignore[misc]


@pytest.mark.parametrize("backend", ["engine", pytest.param("array", marks=needs_numba)])
def test_an_auto_reset_gives_the_new_deals_events_in_new_game_events(backend):
    """Where a step ends a game, ``events`` ends with the finished game's ``game_end`` and
    ``new_game_events`` holds the deal that replaced it: the events of the env's next
    unseeded ``reset()`` (round_start, one role_dealt per seat), which the new game's
    players must see before they act; the other slots' lists are empty, and the next step
    empties it again."""
    options = {"num_players": 4, "num_rounds": 1}
    vec = VectorGame(2, backend=backend, **options)
    vec.reset(seed=[11, 12])
    env = saboteur_env.raw_env(**options)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    assert list(vec.new_game_events) == [[], []]
    for _ in range(400):
        a = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        b = int(rng.choice(np.flatnonzero(vec.legal_action_mask[1])))
        env.step(a)
        vec.step(np.array([a, b]))
        if vec.terminated[0]:
            break
        assert vec.new_game_events[0] == []
    assert vec.terminated[0] and vec.events[0][-1].type is EventType.GAME_END
    env.reset()  # the env's next deal of the same stream
    deal = env.unwrapped.game.events
    assert [e.type for e in deal[: 1 + 4]] == [EventType.ROUND_START] + [EventType.ROLE_DEALT] * 4
    assert vec.new_game_events[0] == deal
    assert vec.new_game_events[1] == [] or vec.terminated[1]
    vec.step(vec.sample_actions(rng))
    assert vec.new_game_events[0] == [] or vec.terminated[0]


@needs_numba
def test_a_saboteur_2_batch_loaded_or_pickled_in_the_thefts_plays_as_the_engine():
    """A game loaded while a thief chooses his victim, and the batch pickled there, step on
    as the engine backend's games do: observations, masks, rewards and events."""
    import pickle

    from saboteur_env.engine import Game, GameConfig

    config = GameConfig(num_players=5, expansion=True)
    rng = np.random.default_rng(5)
    g = None
    for seed in range(20):
        g = Game(config, seed)
        while g.phase.value != "theft" and not g.game_over:
            legal = g.legal_actions()
            g.apply(legal[int(rng.integers(len(legal)))])
        if not g.game_over:
            break
    assert g is not None and g.phase.value == "theft"
    a, e = (VectorGame(2, backend=b, num_players=5, expansion=True) for b in ("array", "engine"))
    for v in (a, e):
        v.reset(3)
        v.load(1, g.copy())
    a = pickle.loads(pickle.dumps(a))
    ra, re = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(150):
        np.testing.assert_array_equal(a.observation, e.observation)
        np.testing.assert_array_equal(a.legal_action_mask, e.legal_action_mask)
        a.step(a.sample_actions(ra))
        e.step(e.sample_actions(re))
        np.testing.assert_array_equal(a.rewards, e.rewards)
        assert list(a.events) == list(e.events)


@needs_numba
def test_the_kernels_stay_within_their_arrays_under_bounds_checking(tmp_path):
    """numba does not check indexes by default: a kernel that writes past an array corrupts
    memory silently (the base game's dwarf card aside once went to an array of width 0).
    With ``NUMBA_BOUNDSCHECK=1`` (compiled afresh in a cache of its own) both games play
    several rounds on the batched engine and on ``raw_env`` without an ``IndexError``."""
    import os
    import subprocess
    import sys

    script = """
import numpy as np
import saboteur_env
from saboteur_env.vector import VectorGame
rng = np.random.default_rng(0)
for options in ({"num_players": 5}, {"num_players": 10}, {"num_players": 5, "expansion": True},
                {"num_players": 12, "expansion": True}):
    vec = VectorGame(3, backend="array", **options)
    vec.reset(0)
    for _ in range(400):
        vec.step(vec.sample_actions(rng))
    env = saboteur_env.raw_env(backend="array", **options)
    env.reset(seed=1)
    for _ in range(300):
        if all(env.terminations.values()):
            env.reset(seed=2)
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
print("ok")
"""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


@needs_numba
def test_more_dwarf_cards_aside_than_a_deal_leaves_is_refused_and_the_env_encodes_it():
    """A hand-built Saboteur 2 position with more dwarf cards aside than the deal leaves
    (the engine plays it): the array backend's ``load`` refuses it, naming the count, and
    leaves the batch as it was; ``raw_env`` on the array backend encodes it as the engine
    backend does."""
    import saboteur_env
    from saboteur_env.engine import Game, GameConfig

    config = GameConfig(num_players=5, expansion=True)
    g = Game(config, 4)
    g.set_aside = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 5, 5]  # 14: the deal leaves 10
    vec = VectorGame(2, backend="array", num_players=5, expansion=True)
    vec.reset(1)
    before = (vec.observation.copy(), vec.legal_action_mask.copy())
    with pytest.raises(ValueError, match="14 dwarf cards aside: the array backend holds at most"):
        vec.load(1, g)
    np.testing.assert_array_equal(vec.observation, before[0])
    np.testing.assert_array_equal(vec.legal_action_mask, before[1])
    fast, ref = (saboteur_env.raw_env(backend=b, **config.options()) for b in ("array", "engine"))
    for e in (fast, ref):
        e.reset(seed=0)
        e.load(g.copy())
    a, b = (e.observe(e.agent_selection) for e in (fast, ref))
    np.testing.assert_array_equal(a["observation"], b["observation"])
    np.testing.assert_array_equal(a["action_mask"], b["action_mask"])


@needs_numba
def test_a_batch_pickled_by_an_older_layout_is_refused_by_name():
    """Arrays pickled before Saboteur 2 ran on the kernels (no ``xfront``...) are another
    layout: unpickling says so, rather than failing inside the kernels' argument tuples."""
    from saboteur_env.vector.arrays import ArrayGames

    vec = VectorGame(1, backend="array", num_players=5)
    vec.reset(0)
    state = vec._arrays.__getstate__()
    del state["xfront"]
    blank = ArrayGames.__new__(ArrayGames)
    with pytest.raises(ValueError, match="pickled by an older saboteur-env"):
        blank.__setstate__(state)
