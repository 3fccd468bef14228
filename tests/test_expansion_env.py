"""Saboteur 2 through the PettingZoo API and over many seeded random games (RULES 6, DESIGN
3-5): api_test, seed_test, hidden-information invariance, card conservation, legal actions."""

import copy
import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import saboteur_env
from saboteur_agents import RandomAgent
from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.cards import KIND_INDEX
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import Game, PlayCard, build_state
from saboteur_experiments.play import play_game

K = KIND_INDEX
COUNTS = (2, 5, 8, 12)


def _random_games(n, games, seed0, check):
    """Play ``games`` one-round random games on the engine, calling ``check(game, mask)``
    before every decision."""
    cfg = GameConfig(num_players=n, expansion=True, num_rounds=1)
    codec = Codec(cfg)
    rng = np.random.default_rng(seed0)
    for gi in range(games):
        g = Game(cfg, seed0 + gi)
        while not g.game_over:
            m = codec.mask(g)
            check(g, m)
            legal = np.flatnonzero(m.view(bool))
            g.apply(codec.decode(int(legal[rng.integers(len(legal))]), g.current, g.n))
        check(g, None)


@pytest.mark.parametrize("n", COUNTS)
def test_conservation_and_legal_action_500_games(n):
    """RULES 6.5, 6.6, DESIGN 5: over 500 seeded random games, 118 cards every decision
    (counting the 10 removed), the selected seat always has a legal action, hands never go
    negative, the pass and removal sub-phases stay with the same seat."""
    stats = {"decisions": 0, "phases": set(), "gold_found": 0}

    def check(g, m):
        assert g.cards_accounted() == 118
        assert (g.hands >= 0).all()
        if m is None:
            stats["gold_found"] += g.round_results[-1].gold_found
            return
        assert m.any(), (g.phase, g.current)
        if g.phase in ("pass", "remove", "turn"):
            assert g.hand_size(g.current) > 0
        stats["decisions"] += 1
        stats["phases"].add(g.phase)

    _random_games(n, 500, 10_000 * n, check)
    assert stats["phases"] == {"turn", "pass", "remove", "theft"}
    assert stats["decisions"] > 500 * 20


@pytest.mark.parametrize("n", COUNTS)
def test_mask_equals_brute_force(n):
    """DESIGN 2-3: the mask encodes exactly the engine's legal actions and the codec is a
    bijection over them (both come from the engine's legal set; the rules themselves are
    checked against an independent reference in test_expansion_reference.py)."""
    cfg = GameConfig(num_players=n, expansion=True, num_rounds=1)
    codec = Codec(cfg)

    def check(g, m):
        if m is None or (g.decisions % 7 and g.phase == "turn"):
            return
        la = g.legal_actions()
        idx = sorted(codec.encode(a, g.current, g.n) for a in la)
        assert idx == np.flatnonzero(m).tolist()
        for a in la:
            assert codec.decode(codec.encode(a, g.current, g.n), g.current, g.n) == a

    _random_games(n, 4, 77 * n, check)


@pytest.mark.parametrize("n", COUNTS)
def test_api_test(n):
    """DESIGN 5, case P6: PettingZoo's api_test for the expansion."""
    api_test(saboteur_env.env(expansion=True, num_players=n), num_cycles=400)


def test_seed_test():
    """DESIGN 5: seeded resets replay identically."""
    seed_test(lambda: saboteur_env.env(expansion=True, num_players=5, num_rounds=1))
    seed_test(lambda: saboteur_env.env(expansion=True, num_players=12, num_rounds=1))


def test_same_spaces_for_every_count_and_role():
    """DESIGN 3-4: one action and observation space for every player count of the expansion
    (sized for 12 players); the base game's spaces are not changed by the expansion."""
    sizes = {
        (
            saboteur_env.raw_env(expansion=True, num_players=n).codec.n,
            saboteur_env.raw_env(expansion=True, num_players=n).encoder.size,
        )
        for n in range(2, 13)
    }
    assert len(sizes) == 1
    base = saboteur_env.raw_env(num_players=5)
    assert "xaction" not in base.codec.blocks and "xplayers" not in base.encoder._views
    assert base.codec.n_kinds == 27 and Game(GameConfig(), 0).n_kinds == 27
    x = saboteur_env.raw_env(expansion=True, num_players=5)
    assert list(x.codec.blocks)[:5] == list(base.codec.blocks)
    assert list(x.codec.blocks)[5:] == ["xaction", "remove", "done", "steal"]
    assert x.encoder.views(np.zeros(x.encoder.size))["role"].shape == (6,)


def _obs(g, seat):
    enc = ObservationEncoder(g.config)
    return enc.encode(g, seat), Codec(g.config).mask(g, seat)


def test_hidden_information_invariance_random_states():
    """DESIGN 4: a state resampled over everything seat s cannot know (other hands, draw pile,
    removed cards, others' roles, the dwarf cards aside and swapped away, unknown goals)
    gives s the identical observation and mask."""
    rng = np.random.default_rng(5)
    checked = 0
    for n in COUNTS:
        cfg = GameConfig(num_players=n, expansion=True, num_rounds=1)
        codec = Codec(cfg)
        for seed in range(15):
            g = Game(cfg, seed)
            steps = int(rng.integers(5, 120))
            for _ in range(steps):
                if g.game_over:
                    break
                legal = np.flatnonzero(codec.mask(g))
                g.apply(codec.decode(int(legal[rng.integers(len(legal))]), g.current, g.n))
            if g.game_over:
                continue
            for seat in range(n):
                d = g.determinize(seat, np.random.default_rng(seed))
                assert d.cards_accounted() == 118
                o1, m1 = _obs(g, seat)
                o2, m2 = _obs(d, seat)
                assert np.array_equal(o1, o2) and np.array_equal(m1, m2)
                checked += 1
    assert checked > 100


def test_hidden_information_inspection_hats_and_hands():
    """DESIGN 4, RULES 6.5: inspection results reach only the inspector (and stay as seen);
    a swapped hat is seen only by its owner; after Swap your hand the others see only hand
    sizes; swapping other players' hidden roles changes nothing for an observer."""
    roles = ["green-digger", "saboteur", "boss", "blue-digger"]
    hands = [
        ["inspection", "B01"],
        ["swap_hats", "B02"],
        ["swap_hand", "B03", "B04"],
        ["map", "B05"],
    ]
    g = build_state(
        GameConfig(num_players=4, expansion=True, num_rounds=1),
        roles=roles,
        hands=hands,
        set_aside=["geologist", "profiteer"],
        seed=3,
    )
    g.apply(PlayCard(K["inspection"], 1))
    enc = ObservationEncoder(g.config)
    views = [enc.views(enc.encode(g, s)) for s in range(4)]
    assert views[0]["inspections"][1].tolist() == [0, 0, 0, 0, 0, 1]  # saboteur, relative 1
    for s in (1, 2, 3):
        assert views[s]["inspections"].sum() == 0
    g.apply(PlayCard(K["swap_hats"], 1))  # seat 1 swaps his own hat: now a geologist
    v1 = enc.views(enc.encode(g, 1))
    assert v1["role"].tolist() == [0, 0, 0, 0, 1, 0]
    assert enc.views(enc.encode(g, 0))["inspections"][1].tolist() == [0, 0, 0, 0, 0, 1]
    # what 0, 2, 3 see does not depend on which dwarf card seat 1 drew
    alt = g.copy()
    alt.roles[1], alt.set_aside = 3, [4]
    for s in (0, 2, 3):
        assert np.array_equal(enc.encode(g, s), enc.encode(alt, s))
    assert not np.array_equal(enc.encode(g, 1), enc.encode(alt, 1))  # the owner sees it
    # Swap your hand: seat 2 swaps with seat 3; seat 0 sees only the hand sizes
    g.apply(PlayCard(K["swap_hand"], 3))
    alt = g.copy()
    alt.hands[2], alt.hands[3] = g.hands[3].copy(), g.hands[2].copy()
    alt.hands[2] = 0
    alt.hands[2, K["B07"]] = g.hand_size(2)
    alt.hands[3] = 0
    alt.hands[3, K["B06"]] = g.hand_size(3)
    for s in (0, 1):
        assert np.array_equal(enc.encode(g, s), enc.encode(alt, s))
    # swapping two other players' hidden roles changes nothing for seat 0
    alt = g.copy()
    alt.roles[2], alt.roles[3] = g.roles[3], g.roles[2]
    assert np.array_equal(enc.encode(g, 0), enc.encode(alt, 0))


def test_random_agent_plays_whole_games():
    """RULES 6: RandomAgent plays complete 3-round expansion games for every count 2-12."""
    for n in range(2, 13):
        res = play_game([RandomAgent() for _ in range(n)], seed=n, expansion=True)
        assert len(res["rounds"]) == 3
        assert res["winners"] and all(g >= 0 for g in res["gold"])


def test_cli_play_expansion(capsys):
    """RULES 6: ``saboteur play --expansion --players 8`` plays a whole game."""
    from saboteur_experiments.cli import main

    main(["play", "--expansion", "--players", "8", "--seed", "2"])
    out = capsys.readouterr().out
    assert "Round 3" in out and "Final gold" in out


def test_deepcopy_and_pickle_in_theft_phase():
    """DESIGN 2, case P8: copies of an env in the round-end theft phase continue identically."""
    e = saboteur_env.raw_env(expansion=True, num_players=5)
    for seed in range(200):
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not e.game.game_over and e.game.phase != "theft":
            m = e.observe(e.agent_selection)["action_mask"]
            legal = np.flatnonzero(m)
            e.step(int(legal[rng.integers(len(legal))]))
        if e.game.phase == "theft":
            break
    assert e.game.phase == "theft"
    for c in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        for env in (e, c):
            m = env.observe(env.agent_selection)["action_mask"]
        assert np.array_equal(
            e.observe(e.agent_selection)["action_mask"], c.observe(c.agent_selection)["action_mask"]
        )
        a = int(np.flatnonzero(m)[0])
        c.step(a)
        assert c.game.decisions == e.game.decisions + 1


def test_game_record_replays_expansion_games():
    """A Saboteur 2 game record (passes, removals, action cards, thefts) replays to the same
    final state."""
    import io

    from saboteur_env.record import actions_from_events, replay_game

    for seed in range(6):
        buf = io.StringIO()
        res = play_game([RandomAgent() for _ in range(5)], seed=seed, expansion=True, record=buf)
        g = replay_game(buf.getvalue())
        assert g.game_over and g.gold.tolist() == res["gold"]
        assert len(actions_from_events(g.events)) == res["decisions"]
