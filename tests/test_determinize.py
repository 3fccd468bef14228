"""Game.determinize (DESIGN 2): a sampled full state consistent with one seat's knowledge."""

import numpy as np

from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import Game


def _advance(game, codec, steps, rng):
    for _ in range(steps):
        legal = np.flatnonzero(codec.mask(game))
        game.apply(codec.decode(int(legal[rng.integers(len(legal))]),
                                           game.current, game.n))


def test_determinize_keeps_the_information_set():
    """Same observation for the seat; hidden parts resampled; cards conserved (RULES 1)."""
    cfg = GameConfig(num_players=5)
    codec, enc = Codec(cfg), ObservationEncoder(cfg)
    rng = np.random.default_rng(3)
    changed_hands = changed_roles = 0
    for seed in range(20):
        g = Game(cfg, seed)
        _advance(g, codec, 12, rng)
        seat = g.current
        d = g.determinize(seat, np.random.default_rng(seed))
        assert np.array_equal(enc.encode(g, seat), enc.encode(d, seat))
        assert np.array_equal(codec.mask(g), codec.mask(d))
        assert d.cards_accounted() == 67
        assert d.hands.sum(axis=1).tolist() == g.hands.sum(axis=1).tolist()
        assert sorted(d.roles.tolist() + d.set_aside) == sorted(g.roles.tolist() + g.set_aside)
        assert d.roles[seat] == g.roles[seat]
        assert sorted(d.nuggets.tolist()) == sorted(g.nuggets.tolist())
        changed_hands += not np.array_equal(d.hands, g.hands)
        changed_roles += not np.array_equal(d.roles, g.roles)
        # the original is untouched and both continue independently
        _advance(d, codec, 5, rng)
        assert g.cards_accounted() == 67
    assert changed_hands >= 15 and changed_roles >= 5
