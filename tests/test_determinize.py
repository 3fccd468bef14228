"""Game.determinize (DESIGN 2): a sampled full state consistent with one seat's knowledge."""

import importlib

import numpy as np
import pytest

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


# --- the base game's secret gold (RULES 5.2, 5.3) -------------------------------------------
def _heuristic_game(n, seed, until=(2, 3), **config):
    """A base game of heuristic agents played to ``(round, turn)`` (or its end): the state (a
    copy), the supply's order at the deal, and each past round's last decision (the state
    before it, the action)."""
    import saboteur_env
    from saboteur_agents import make_agent

    env = saboteur_env.raw_env(num_players=n, backend="engine", **config)
    env.reset(seed=seed)
    supply = env.game.nuggets.tolist()
    agents = [make_agent("heuristic") for _ in range(n)]
    for s, a in enumerate(agents):
        a.reset(s, env.config, seed=1000 * seed + s)
    ends = []
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        g = env.game
        if (g.round, g.turn) == until:
            return g.copy(), supply, ends
        s = env.agent_name_mapping[name]
        a = agents[s].act(obs["observation"], obs["action_mask"], info)
        pre, done = g.copy(), len(g.round_results)
        env.step(a)
        if len(env.game.round_results) > done:
            ends.append((pre, env.codec.decode(a, s, n)))
    return env.game, supply, ends


#: (players, deal seed) of heuristic games whose first two rounds were won by: the saboteurs
#: then the diggers, the diggers then the saboteurs, the diggers twice (4 and 5 players)
GOLD_GAMES = [(5, 3), (5, 2), (4, 0), (5, 1)]
ALL_CARDS = [16, 8, 4]  # gold-nugget cards of value 1, 2, 3 (RULES 1.4)


def _gold_consistent(d, game):
    """Every gold card held or in the supply, each seat's gold its cards' value and the sum
    of what the round results say it received, the supply as long as it is."""
    held = d.gold_cards.sum(axis=0) + np.bincount(d.nuggets, minlength=4)[1:]
    assert held.tolist() == ALL_CARDS
    assert d.gold.tolist() == (d.gold_cards @ [1, 2, 3]).tolist()
    assert d.gold.tolist() == np.sum([r.received for r in d.round_results], axis=0).tolist()
    assert len(d.nuggets) == len(game.nuggets)
    for r, t in zip(d.round_results, game.round_results):
        assert r.paid == r.received
        assert r.public_data() == t.public_data() and r.last_card_seat == t.last_card_seat


def test_determinize_resamples_the_other_players_gold():
    """RULES 5.3: gold-nugget cards are secret, so a seat's sample keeps its own cards and
    per-round amounts exactly and resamples the others' (all 28 cards accounted for, each
    seat's gold the value of its cards and the sum of its round results); a spectator's
    keeps only the public.  Fix: every seat's true gold was kept (a search agent read it)."""
    moved = total = 0
    for n, seed in GOLD_GAMES:
        game, _, _ = _heuristic_game(n, seed)
        assert any(r.gold_found for r in game.round_results)
        for seat in [*range(n), None]:
            others = [s for s in range(n) if s != seat]
            rng = np.random.default_rng(seed)
            for _ in range(25):
                d = game.determinize(seat, rng)
                _gold_consistent(d, game)
                if seat is not None:
                    assert d.gold[seat] == game.gold[seat]
                    assert d.gold_cards[seat].tolist() == game.gold_cards[seat].tolist()
                    assert [r.received[seat] for r in d.round_results] == [
                        r.received[seat] for r in game.round_results
                    ]
                moved += d.gold[others].tolist() != game.gold[others].tolist()
                total += 1
    assert moved > 0.5 * total


def test_determinize_gold_is_the_engines_posterior():
    """The sampled gold follows the posterior given what the seat knows, computed with the
    engine itself: random supply orders put into each past round's state before its last
    decision, that decision applied, kept when the seat is paid what it was and ends with
    its cards.  Each other seat's gold and the supply's top card have the same distribution
    (total variation below 0.08 over 3,000 tries against 1,500 samples)."""
    from collections import Counter

    from saboteur_env.engine.ruleset import NUGGET_SUPPLY

    def tv(a, b):
        ca, cb = Counter(a), Counter(b)
        return 0.5 * sum(abs(ca[v] / len(a) - cb[v] / len(b)) for v in set(ca) | set(cb))

    checked = 0
    for (n, seed), seat in (((5, 3), 4), ((4, 0), 2), ((5, 1), 2), ((5, 2), None)):
        game, _, ends = _heuristic_game(n, seed)
        rng = np.random.default_rng(7)
        oracle = []
        for _ in range(3000):
            supply = rng.permutation(NUGGET_SUPPLY)
            gold, cards = np.zeros(n, np.int64), np.zeros((n, 3), np.int64)
            for r, (pre, action) in enumerate(ends):
                h = pre.copy()
                h.nuggets, h.gold, h.gold_cards = supply, gold, cards
                h.apply(action)
                mine = h.round_results[-1].received
                if seat is not None and mine[seat] != game.round_results[r].received[seat]:
                    break
                supply, gold, cards = h.nuggets, h.gold, h.gold_cards
            else:
                if len(supply) == len(game.nuggets) and (
                    seat is None or cards[seat].tolist() == game.gold_cards[seat].tolist()
                ):
                    oracle.append((gold.tolist(), int(supply[0])))
        assert len(oracle) > 300
        samples = [game.determinize(seat, rng) for _ in range(1500)]
        sampled = [(d.gold.tolist(), int(d.nuggets[0])) for d in samples]
        for s in range(n):
            if s != seat:
                assert tv([o[0][s] for o in oracle], [x[0][s] for x in sampled]) < 0.08
                checked += 1
        assert tv([o[1] for o in oracle], [x[1] for x in sampled]) < 0.08
    assert checked == 16


@pytest.mark.parametrize("forfeit", [False, True])
def test_replaying_the_true_supply_order_gives_the_engines_payouts(forfeit):
    """The public data ``determinize`` replays the payouts with (the round results' roles,
    connector, gold found and last card's seat; under ``broken_tool_forfeit`` the broken
    tools at round end from the public events, RULES 5.2) are what the engine paid from: the
    true order of the supply gives every round's payouts, every seat's cards and what is left
    of the supply, in order.  With the forfeit, a broken digger's share changed something."""
    from saboteur_env.engine.scoring import base_payout

    det = importlib.import_module("saboteur_env.engine.determinize")
    mattered = False
    for n, seed in ((4, 1), (5, 9), (6, 2)):
        game, supply, _ = _heuristic_game(n, seed, until=(9, 9), broken_tool_forfeit=forfeit)
        assert game.game_over
        at_end = det._broken_at_round_ends(game.events, n) if forfeit else {}
        cards = np.zeros((n, 3), np.int64)
        for r in game.round_results:
            args = (r.gold_found, r.connector, r.roles, r.last_card_seat)
            paid = base_payout(supply, *args, at_end.get(r.round, ()))
            if forfeit:
                mattered |= paid != base_payout(list(supply), *args)
            got = [0] * n
            for s, v in paid:
                got[s] += v
                cards[s, v - 1] += 1
            assert got == r.received
        assert cards.tolist() == game.gold_cards.tolist()
        assert supply == game.nuggets.tolist()
    assert mattered == forfeit


def test_determinize_gold_depends_only_on_what_the_seat_knows():
    """Two states that differ only in the other seats' gold give the same sample for the same
    generator (fix: each kept its own true gold)."""
    from dataclasses import replace

    game, _, _ = _heuristic_game(5, 1)
    seat, a, b = 2, 1, 3
    assert game.gold[a] != game.gold[b]
    other = game.copy()  # seats a and b's gold swapped, in the round results too
    for arr in (other.gold, other.gold_cards):
        arr[[a, b]] = arr[[b, a]]
    swapped = []
    for r in other.round_results:
        got = list(r.received)
        got[a], got[b] = got[b], got[a]
        swapped.append(replace(r, received=got, paid=list(got)))
    other.round_results = swapped
    for k in range(5):
        x = game.determinize(seat, np.random.default_rng(k))
        y = other.determinize(seat, np.random.default_rng(k))
        assert x.gold_cards.tolist() == y.gold_cards.tolist()
        assert x.nuggets.tolist() == y.nuggets.tolist()
        assert [r.received for r in x.round_results] == [r.received for r in y.round_results]


def test_determinize_after_the_game_keeps_the_public_totals():
    """After the game the totals are public (``game_end``): every sample keeps them, and the
    roles of the last round (revealed, RULES 5.1); the cards and the supply still vary."""
    game, _, _ = _heuristic_game(5, 1, until=(9, 9))
    assert game.game_over
    rng = np.random.default_rng(0)
    samples = [game.determinize(s, rng) for s in [0, 3, None] for _ in range(10)]
    for d in samples:
        assert d.gold.tolist() == game.gold.tolist()
        assert d.roles.tolist() == game.roles.tolist()
        _gold_consistent(d, game)
    assert len({tuple(d.gold_cards.ravel()) for d in samples}) > 1


def test_determinize_keeps_the_gold_of_a_hand_built_state():
    """A state built by hand with gold (no payout of a recorded round made it) keeps every
    seat's gold; only its supply is reshuffled."""
    from saboteur_env.engine import build_state

    g = build_state(
        GameConfig(num_players=3),
        roles=["gold-digger", "saboteur", "gold-digger"],
        hands=[["B02"], ["B05"], ["B09"]],
        gold=[3, 5, 0],
        round=1,
    )
    d = g.determinize(0, np.random.default_rng(0))
    assert d.gold.tolist() == [3, 5, 0]
    assert sorted(d.nuggets.tolist()) == sorted(g.nuggets.tolist())


def test_determinize_raises_when_no_supply_order_pays_the_seat(monkeypatch):
    """The rejection loop is bounded: a seat said to have received what no supply order pays
    it raises DeterminizeError (rather than handing back the true gold)."""
    from dataclasses import replace

    det = importlib.import_module("saboteur_env.engine.determinize")
    monkeypatch.setattr(det, "MAX_SUPPLY_ORDERS", 500)
    game, _, _ = _heuristic_game(5, 1)
    game.round_results = [replace(r, received=[44] * 5) for r in game.round_results]
    with pytest.raises(det.DeterminizeError, match="500 tries"):
        game.determinize(0, np.random.default_rng(0))
    game.determinize(None, np.random.default_rng(0))  # a spectator conditions on no amount


# --- Saboteur 2: the roles are face up during the thefts (RULES 5.1, 6.9) ---------------------
def _theft_phase(n, seed):
    """A Saboteur 2 state in the theft phase, reached by random play."""
    from saboteur_env.engine.phases import Phase

    cfg = GameConfig(num_players=n, expansion=True, num_rounds=1)
    g, codec = Game(cfg, seed), Codec(cfg)
    rng = np.random.default_rng(seed)
    while g.phase is not Phase.THEFT:
        g.apply(codec.decode(int(rng.choice(np.flatnonzero(codec.mask(g)))), g.current, g.n))
    return g


@pytest.mark.parametrize("n, seed", [(5, 17), (5, 21), (6, 0)])
def test_determinize_keeps_every_role_during_the_thefts(n, seed):
    """The dwarf cards are revealed at round end, before the thefts (RULES 5.1, 6.9): a
    sample keeps every role, consistent with the round's pending result (fix: the roles were
    resampled while ``pending_result.roles`` kept the true ones)."""
    g = _theft_phase(n, seed)
    assert g.roles_revealed and g.pending_result.roles == g.roles.tolist()
    rng = np.random.default_rng(seed)
    for seat in [*range(n), None]:
        for _ in range(10):
            d = g.determinize(seat, rng)
            assert d.roles.tolist() == g.roles.tolist()
            assert d.pending_result.roles == d.roles.tolist()
            assert sorted(d.set_aside + d.hats_discarded) == sorted(g.set_aside + g.hats_discarded)
