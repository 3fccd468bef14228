"""The fast observation and action mask are byte-equal to their plain reference
implementations (``ObservationEncoder.encode_reference``, ``Codec.mask_reference``) for every
seat and the spectator in every state of seeded random games: base 3/5/10 and Saboteur 2
2/5/12 players, 52 games in all (``saboteur_experiments.fast_paths`` runs more)."""

from __future__ import annotations

import numpy as np
import pytest

from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import Game
from saboteur_experiments.fast_paths import CONFIGS, Mismatch, _same, check_games

GAMES = {"base 3p": 10, "base 5p": 10, "base 10p": 6, "sab2 2p": 12, "sab2 5p": 8, "sab2 12p": 6}


@pytest.mark.parametrize(("label", "options"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_fast_observation_and_mask_equal_the_reference(label, options):
    assert check_games(options, GAMES[label], seed=100) > 0


def test_the_check_sees_a_difference():
    with pytest.raises(Mismatch, match="seat 2"):
        _same(np.zeros(3, np.float32), np.ones(3, np.float32), "game 0, seat 2")


def test_mask_matches_the_legal_actions_encoded():
    """An independent route to the mask: the structured legal actions, each encoded."""
    for options in ({"num_players": 4}, {"num_players": 4, "expansion": True}):
        cfg = GameConfig(**options)
        codec = Codec(cfg)
        rng = np.random.default_rng(3)
        for g in range(3):
            game = Game(cfg, g)
            while not game.game_over:
                want = np.zeros(codec.n, np.int8)
                for a in game.legal_actions():
                    want[codec.encode(a, game.current, game.n)] = 1
                m = codec.mask(game)
                assert m.tobytes() == want.tobytes()
                legal = np.flatnonzero(m)
                game.apply(codec.decode(int(legal[rng.integers(len(legal))]), game.current, game.n))


def test_fast_encode_writes_into_out_like_the_reference():
    cfg = GameConfig(num_players=5, expansion=True)
    enc = ObservationEncoder(cfg)
    game = Game(cfg, 7)
    out = np.zeros(enc.size, np.float32)
    assert enc.encode(game, 2, out) is out
    assert out.tobytes() == enc.encode_reference(game, 2).tobytes()


@pytest.mark.parametrize("options", [{"num_players": 4}, {"num_players": 5, "expansion": True}])
def test_mask_equals_the_rule_check_of_every_index(options):
    """A route that shares no code with ``legal()``: every flat index decoded and put to the
    engine's own per-action check (``Game.check``, the rules that verify one action), on every
    20th state of seeded random games.  An index that names a seat not in play is illegal."""
    cfg = GameConfig(**options)
    codec = Codec(cfg)
    rng = np.random.default_rng(5)
    states = 0
    for g in range(2):
        game = Game(cfg, 200 + g)
        while not game.game_over:
            if game.decisions % 20 == 0:
                want = np.zeros(codec.n, np.int8)
                for i in range(codec.n):
                    try:
                        a = codec.decode(i, game.current, game.n)
                    except ValueError:
                        continue
                    want[i] = game.check(a) is None
                assert codec.mask(game).tobytes() == want.tobytes(), (g, game.decisions)
                states += 1
            legal = np.flatnonzero(codec.mask(game))
            game.apply(codec.decode(int(legal[rng.integers(len(legal))]), game.current, game.n))
    assert states > 10


def test_caches_for_several_games_give_the_same_observations():
    """``cache_games(k)``: three games encoded in turn by one encoder that keeps all three
    games' caches equal the reference (the caches must not mix the games up)."""
    cfg = GameConfig(num_players=4)
    enc = ObservationEncoder(cfg)
    enc.cache_games(3)
    codec = Codec(cfg)
    games = [Game(cfg, s) for s in (1, 2, 3)]
    rng = np.random.default_rng(0)
    for _ in range(120):
        for g in games:
            if g.game_over:
                continue
            for seat in range(g.n):
                assert enc.encode(g, seat).tobytes() == enc.encode_reference(g, seat).tobytes()
            legal = np.flatnonzero(codec.mask(g))
            g.apply(codec.decode(int(legal[rng.integers(len(legal))]), g.current, g.n))
    assert len(enc._template) <= 3 and len(enc._recent_cache) <= 3
    with pytest.raises(ValueError, match="a positive int"):
        enc.cache_games(0)
