"""Game.determinize (DESIGN 2): a sampled full state consistent with one seat's knowledge."""

import numpy as np

from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.cards import KIND_INDEX
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import Game

KIND_MAP, KIND_B05 = KIND_INDEX["map"], KIND_INDEX["B05"]


def _advance(game, codec, steps, rng):
    for _ in range(steps):
        legal = np.flatnonzero(codec.mask(game))
        game.apply(codec.decode(int(legal[rng.integers(len(legal))]), game.current, game.n))


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


def test_determinize_pools_other_players_face_down_discards():
    """RULES 3.6: a discard is face down, so another player's discarded kinds are hidden: they
    are resampled with the other unseen cards, keeping how many each player discarded; the
    seat's own discards stay (fix: they used to be kept as they were)."""
    from saboteur_env.engine import Discard, build_state

    cfg = GameConfig(num_players=3)
    g = build_state(
        cfg,
        roles=["gold-digger", "saboteur", "gold-digger"],
        hands=[["B02", "map"], ["B05", "B07"], ["B09", "B11"]],
        current=0,
    )
    g.apply(Discard(KIND_MAP))  # seat 0 discards its map face down
    g.apply(Discard(KIND_B05))  # seat 1 discards a B05 face down
    assert g.secret_discards[1, KIND_B05] == 1
    kinds_seen = set()
    for seed in range(40):
        d = g.determinize(0, np.random.default_rng(seed))
        assert d.secret_discards[0].tolist() == g.secret_discards[0].tolist()
        assert d.secret_discards[1].sum() == 1 and d.secret_discards[2].sum() == 0
        assert d.discards.sum() == g.discards.sum() and d.cards_accounted() == 67
        assert d.discards[KIND_MAP] >= 1  # own discard still in the pile
        kinds_seen.add(int(np.flatnonzero(d.secret_discards[1])[0]))
    assert len(kinds_seen) >= 5


def test_determinize_drops_other_players_private_events():
    """DESIGN 2: the copy's history holds only what the seat saw: public events and its own
    private ones (fix: other seats' card draws, roles and map results were kept)."""
    cfg = GameConfig(num_players=5)
    codec = Codec(cfg)
    g = Game(cfg, 4)
    _advance(g, codec, 15, np.random.default_rng(4))
    assert any(e.visible_to not in (None, 2) for e in g.events)
    d = g.determinize(2, np.random.default_rng(0))
    assert all(e.visible_to in (None, 2) for e in d.events)
    assert [e for e in g.events if e.visible_to in (None, 2)] == d.events


def test_determinize_keeps_the_seats_own_card_taken_by_swap_your_hats():
    """RULES 6.5, 7.21: a player knows the dwarf card Swap your hats took from him, so it stays
    out of the resampled roles; the card taken from another player is resampled (fix: both were
    reshuffled, handing the seat's old role to others)."""
    from saboteur_env.engine import PlayCard, build_state

    K = KIND_INDEX
    cfg = GameConfig(num_players=4, expansion=True)
    g = build_state(
        cfg,
        roles=["saboteur", "green-digger", "boss", "blue-digger"],
        hands=[["B01"], ["swap_hats", "swap_hats", "B01"], ["B01"], ["B01"]],
        set_aside=["geologist", "profiteer", "green-digger"],
        current=1,
    )
    g.apply(PlayCard(K["swap_hats"], 0))  # seat 0's saboteur card is discarded
    assert g.hats_discarded == [cfg.ruleset.saboteur] and g.hats_discarded_from == [0]
    for seed in range(30):
        d = g.determinize(0, np.random.default_rng(seed))
        assert d.hats_discarded == [cfg.ruleset.saboteur]
        assert d.roles[0] == g.roles[0]
        assert cfg.ruleset.saboteur not in d.roles[1:].tolist() + d.set_aside


def test_spectator_determinize_resamples_everything_private_and_keeps_the_public():
    """``seat=None``: every hand, face-down discard and role resampled, the goals not revealed
    permuted, public counts and events kept; two states a spectator cannot tell apart give
    the same sample for the same generator."""
    cfg = GameConfig(num_players=5)
    game = Game(cfg, 21)
    codec = Codec(cfg)
    _advance(game, codec, 14, np.random.default_rng(3))
    private = [e for e in game.events if e.visible_to is not None]
    assert private  # roles dealt, draws

    def hidden(g):  # the unseen cards, wherever they lie
        deck = np.bincount(g.deck, minlength=g.rules.n_kinds)
        return g.hands.sum(axis=0) + g.secret_discards.sum(axis=0) + deck + g.removed

    samples = [game.determinize(None, np.random.default_rng(k)) for k in range(12)]
    for g in samples:
        np.testing.assert_array_equal(g.hands.sum(axis=1), game.hands.sum(axis=1))
        np.testing.assert_array_equal(
            g.secret_discards.sum(axis=1), game.secret_discards.sum(axis=1)
        )
        np.testing.assert_array_equal(hidden(g), hidden(game))  # the same unseen multiset
        assert len(g.deck) == len(game.deck)
        np.testing.assert_array_equal(g.board.var, game.board.var)
        assert all(e.visible_to is None for e in g.events)
        assert len(g.events) == len(game.events) - len(private)
        assert sorted(g.roles.tolist() + list(g.set_aside)) == sorted(
            game.roles.tolist() + list(game.set_aside)
        )
    # every seat's hand and the roles do get resampled
    assert any(not np.array_equal(g.hands, game.hands) for g in samples)
    assert len({tuple(g.roles.tolist()) for g in samples}) > 1
    assert len({tuple(g.board.goal_identity.tolist()) for g in samples}) > 1
    # indistinguishable to a spectator: the same sample
    other = samples[0]
    a = game.determinize(None, np.random.default_rng(99))
    b = other.determinize(None, np.random.default_rng(99))
    np.testing.assert_array_equal(a.hands, b.hands)
    np.testing.assert_array_equal(a.roles, b.roles)
    np.testing.assert_array_equal(a.deck, b.deck)
    np.testing.assert_array_equal(a.board.goal_identity, b.board.goal_identity)
