"""Setup tables, round end and scoring (RULES 2.2-2.4, 5.1-5.5, 10) with exact values.

Rounds are ended through the engine itself: the gold by placing ``EW`` at (7,0) after a
``row0(1..6)`` tunnel with the gold in the middle slot; a saboteurs' win by the last card of
the last non-empty hand being discarded with an empty draw pile (RULES 5.1).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from rules_helpers import K, make, place, row0

from saboteur_env.engine.cards import GOAL_GOLD, GOLD_DIGGER, SABOTEUR
from saboteur_env.engine.config import ConfigError, GameConfig
from saboteur_env.engine.state import Discard, Game

D, S = "gold-digger", "saboteur"


def gold_round(roles, connector, nuggets, **kw):
    """A position where ``connector`` reaches the gold with his next move; play it."""
    n = len(roles)
    hands = [["map"] for _ in range(n)]
    hands[connector] = ["EW"]
    cfg = kw.pop("config", GameConfig(num_players=n))
    g = make(
        row0(1, 6),
        roles=roles,
        hands=hands,
        goals=(1, GOAL_GOLD, 2),
        current=connector,
        nuggets=nuggets,
        config=cfg,
        **kw,
    )
    ev = g.apply(place("EW", 7, 0))
    return g, ev


def empty_pile_round(roles, last, nuggets, **kw):
    """A position where ``last`` discards the last card in play: the saboteurs win."""
    n = len(roles)
    hands = [[] for _ in range(n)]
    hands[last] = ["map"]
    cfg = kw.pop("config", GameConfig(num_players=n))
    g = make(roles=roles, hands=hands, current=last, nuggets=nuggets, deck=[], config=cfg, **kw)
    ev = g.apply(Discard(K("map")))
    return g, ev


# --- RULES 5.2 gold-diggers win ------------------------------------------------------------
def test_digger_payout_fixed_nugget_order():
    """RULES 5.2, 10.1: N = 5 cards (top of the supply [1,3,2,1,2]) go to the diggers,
    counter-clockwise from the connector (seat 3): 3 -> 2 -> 0 (saboteurs 1, 4 skipped), each
    keeping the highest left: 3 gets 3+1, 2 gets 2+1, 0 gets 2."""
    roles = [D, S, D, D, S]
    g, ev = gold_round(roles, 3, [1, 3, 2, 1, 2, 3, 3, 1])
    res = g.round_results[0]
    assert res.gold_found and res.winners == [0, 2, 3] and res.connector == 3
    assert res.received == [2, 0, 3, 4, 0]
    assert g.gold.tolist() == [2, 0, 3, 4, 0]
    assert g.nuggets.tolist() == [3, 3, 1]
    assert g.gold_cards.tolist() == [[0, 1, 0], [0, 0, 0], [1, 1, 0], [1, 0, 1], [0, 0, 0]]
    got = {e.visible_to: e.data["gold"] for e in ev if e.type == "gold_received"}
    assert got == {0: 2, 1: 0, 2: 3, 3: 4, 4: 0}  # private to each seat


def test_digger_payout_connector_first():
    """RULES 5.2: the connector (seat 0) picks first, then counter-clockwise (seat 4, a
    saboteur, is skipped) 3, then 2: cards [3,2,2,1,1]: 0 gets 3+1, 3 gets 2+1, 2 gets 2."""
    g, _ = gold_round([D, S, D, D, S], 0, [1, 3, 2, 1, 2])
    assert g.round_results[0].received == [4, 0, 2, 3, 0]


def test_saboteur_connector_diggers_still_win():
    """RULES 5.2 [RULING]: a saboteur (seat 1) completes the gold path: the diggers win and the
    first pick goes to the first digger counter-clockwise from him (seat 0), then 3, then 2."""
    g, _ = gold_round([D, S, D, D, S], 1, [1, 3, 2, 1, 2])
    res = g.round_results[0]
    assert res.gold_found and res.winning_side == "gold-digger" and res.connector == 1
    assert res.received == [4, 0, 2, 3, 0]


def test_ten_players_nine_cards():
    """RULES 5.2: with 10 players only 9 gold cards are drawn."""
    roles = [D, S, D, D, S, D, D, S, D, D]
    nug = [1] * 16 + [2] * 8 + [3] * 4
    g, _ = gold_round(roles, 0, nug)
    res = g.round_results[0]
    assert sum(res.received) == 9 and len(g.nuggets) == 28 - 9
    # counter-clockwise from 0: 0, 9, 8, 6, 5, 3, 2 (7, 4, 1 are saboteurs); 9 cards of value 1
    assert res.received == [2, 0, 1, 1, 0, 1, 1, 0, 1, 2]


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8, 9])
def test_n_cards_equal_players(n):
    """RULES 5.2: N = number of players (3..9), not the number of diggers (UBG's reading)."""
    roles = [S] + [D] * (n - 1)
    g, _ = gold_round(roles, 1, [1] * 16 + [2] * 8 + [3] * 4)
    assert sum(g.round_results[0].received) == n
    assert len(g.nuggets) == 28 - n


def test_broken_tool_forfeit_option():
    """RULES 5.2, 10 ``broken_tool_forfeit``: off by default (a digger with a broken tool still
    picks); on: he is skipped by the distribution."""
    roles = [D, S, D, D, S]
    g, _ = gold_round(roles, 0, [1, 3, 2, 1, 2], broken=[[], [], ["cart"], [], []])
    assert g.round_results[0].received == [4, 0, 2, 3, 0]
    cfg = GameConfig(num_players=5, broken_tool_forfeit=True)
    g, _ = gold_round(roles, 0, [1, 3, 2, 1, 2], broken=[[], [], ["cart"], [], []], config=cfg)
    # pickers 0, 3 only: [3,2,2,1,1] -> 0: 3+2+1, 3: 2+1
    assert g.round_results[0].received == [6, 0, 0, 3, 0]


def test_short_gold_supply_for_diggers():
    """RULES 5.2 [UNCONFIRMED]: fewer than N cards left: draw all that remain."""
    g, _ = gold_round([D, S, D, D, S], 0, [2, 1])
    assert g.round_results[0].received == [2, 0, 0, 1, 0]
    assert len(g.nuggets) == 0


# --- RULES 5.3 saboteurs win ---------------------------------------------------------------
@pytest.mark.parametrize("n_sab,n,each", [(1, 4, 4), (2, 5, 3), (3, 7, 3), (4, 10, 2)])
def test_saboteur_payout_table(n_sab, n, each):
    """RULES 5.3 (cases R15): 1/2/3/4 saboteurs in play get 4/3/3/2 nuggets each (value total,
    exact change from a full supply); diggers get nothing."""
    roles = [S] * n_sab + [D] * (n - n_sab)
    nug = [1] * 16 + [2] * 8 + [3] * 4
    g, _ = empty_pile_round(roles, n - 1, nug)
    res = g.round_results[0]
    assert not res.gold_found and res.winning_side == "saboteur" and res.saboteurs_won
    assert res.winners == list(range(n_sab))
    assert res.received == [each] * n_sab + [0] * (n - n_sab)
    assert sum(g.nuggets) == 44 - each * n_sab


def test_saboteur_payout_largest_values_first():
    """RULES 5.3 change ruling: an exact combination using the largest values first: 4 = 3+1
    (not 2+2), 3 = 3, 2 = 2."""
    nug = [1] * 16 + [2] * 8 + [3] * 4
    g, _ = empty_pile_round([S, D, D, D], 3, nug)
    assert g.gold_cards[0].tolist() == [1, 0, 1]
    g, _ = empty_pile_round([S, D, S, D, D], 4, nug)
    assert g.gold_cards[0].tolist() == [0, 0, 1] and g.gold_cards[2].tolist() == [0, 0, 1]
    roles = [S, S, S, S] + [D] * 6
    g, _ = empty_pile_round(roles, 9, nug)
    assert g.gold_cards[:4].tolist() == [[0, 1, 0]] * 4


def test_saboteur_short_supply_r15():
    """RULES 5.3 [RULING] (cases R15): 2 saboteurs (seats 1, 3) due 3 each, supply [2,2,1];
    processed in turn order from the player after the last player (seat 0 played last):
    seat 1 takes 2+1, seat 3 the remaining 2; nothing negative, nothing duplicated."""
    g, _ = empty_pile_round([D, S, D, S], 0, [2, 2, 1])
    assert g.round_results[0].received == [0, 3, 0, 2]
    assert g.nuggets.tolist() == []
    # same supply, seat 2 played last: seat 3 first
    g, _ = empty_pile_round([D, S, D, S], 2, [2, 2, 1])
    assert g.round_results[0].received == [0, 2, 0, 3]


def test_saboteur_no_exact_change():
    """RULES 5.3 [RULING]: no exact combination -> the largest total not above the due amount;
    an empty supply pays nothing."""
    g, _ = empty_pile_round([S, D, D], 1, [3, 3])  # due 4: 3
    assert g.round_results[0].received == [3, 0, 0] and g.nuggets.tolist() == [3]
    g, _ = empty_pile_round([S, D, D], 1, [3, 2])  # due 4: 3 (> 2)
    assert g.round_results[0].received == [3, 0, 0] and g.nuggets.tolist() == [2]
    g, _ = empty_pile_round([S, D, D], 1, [])
    assert g.round_results[0].received == [0, 0, 0]


def test_zero_saboteurs_nobody_paid():
    """RULES 5.3: saboteurs' win with no saboteur in play: nobody gets anything."""
    g, _ = empty_pile_round([D, D, D], 1, [1, 2, 3])
    res = g.round_results[0]
    assert res.received == [0, 0, 0] and res.winners == []
    assert g.nuggets.tolist() == [1, 2, 3]


# --- RULES 5.4 next round, 5.5 game end ----------------------------------------------------
def test_next_round_first_player_after_empty_pile():
    """RULES 5.4 [RULING]: the next round starts with the left neighbour of the player who
    played the last card (seat 2 discarded last -> seat 3)."""
    g, ev = empty_pile_round([D, S, D, S], 2, [2, 2, 1])
    assert g.round == 1 and g.current == 3 and g.first_player == 3
    starts = [e for e in ev if e.type == "round_start"]
    assert starts[0].data == {"round": 1, "first_player": 3}


def test_next_round_first_player_after_gold():
    """RULES 5.4: the gold connector (seat 4, 5 players) played the last card -> seat 0."""
    g, _ = gold_round([D, S, D, D, D], 4, [1, 1, 1, 1, 1])
    assert g.round == 1 and g.current == 0


def test_new_round_resets_board_hands_tools_keeps_gold():
    """RULES 5.4 (cases R26): a new deal: fresh maze, hands, no broken tools, roles redealt
    from the same cards, all 67 cards back; gold and the nugget supply carry over."""
    roles = [D, S, D, D, S]
    g, _ = gold_round(
        roles, 3, [1, 3, 2, 1, 2, 3, 3, 1], broken=[[], ["pick"], [], [], []], set_aside=[D]
    )
    assert g.round == 1 and not g.round_over
    assert g.gold.tolist() == [2, 0, 3, 4, 0]
    assert g.nuggets.tolist() == [3, 3, 1]
    assert not g.broken.any()
    assert len(g.board.cards()) == 4 and not g.board.goal_revealed.any()
    assert (g.hands.sum(axis=1) == 6).all() and len(g.deck) == 67 - 30
    assert g.cards_accounted() == 67
    assert Counter(g.roles.tolist() + g.set_aside) == {GOLD_DIGGER: 4, SABOTEUR: 2}


def test_exactly_three_rounds():
    """RULES 5.5 (cases R26): after the third round (index 2) the game is over, no fourth deal;
    the winners are the seats with the most gold (ties share)."""
    for kind in ("gold", "saboteurs"):
        if kind == "gold":
            g, ev = gold_round([D, S, D], 0, [3, 1, 1], round=2, gold=[0, 5, 0])
            assert g.gold.tolist() == [4, 5, 1]
            assert g.winners() == [1]
        else:
            g, ev = empty_pile_round([D, S, D], 0, [3, 1, 1], round=2, gold=[4, 0, 3])
            assert g.gold.tolist() == [4, 4, 3]
            assert g.winners() == [0, 1]
        assert g.game_over and g.round == 2 and len(g.round_results) == 1
        assert not [e for e in ev if e.type == "round_start"]
        assert [e.type for e in ev if e.visible_to is None][-1] == "game_end"
        assert not legal_any(g)


def legal_any(g) -> bool:
    from rules_helpers import legal

    return bool(legal(g))


@pytest.mark.parametrize("rounds", [1, 2, 4])
def test_num_rounds_option(rounds):
    """RULES 5.5, 10 ``num_rounds``: the game lasts exactly that many rounds."""
    cfg = GameConfig(num_players=3, num_rounds=rounds)
    g = Game(cfg, seed=3)
    rng = np.random.default_rng(0)
    from rules_helpers import codec

    c = codec(g)
    while not g.game_over:
        m = c.mask(g)
        g.apply(c.decode(int(rng.choice(np.nonzero(m)[0])), g.current, g.n))
    assert len(g.round_results) == rounds and g.round == rounds - 1
    assert sum(1 for e in g.events if e.type == "round_start") == rounds


def test_num_rounds_invalid():
    """RULES 10: num_rounds must be a positive integer."""
    with pytest.raises(ConfigError):
        GameConfig(num_rounds=0)


def test_full_games_three_rounds_and_gold_conservation():
    """RULES 5.5: seeded random games end after exactly 3 rounds; gold paid + supply = 44
    nuggets (RULES 1.4); both round outcomes occur in the last round over the seeds."""
    from rules_helpers import codec

    last_outcomes = set()
    for seed in range(12):
        cfg = GameConfig(num_players=3 + seed % 8)
        g = Game(cfg, seed=seed)
        c = codec(g)
        rng = np.random.default_rng(seed)
        while not g.game_over:
            m = c.mask(g)
            idx = np.nonzero(m)[0]
            # eastward path play so that the gold is found in some games
            place_end = c.blocks["place"][0] + c.blocks["place"][1]
            places = idx[idx < place_end]
            if len(places) and rng.random() < 0.9:
                xs = (places - c.blocks["place"][0]) % c.n_cells % c.width
                pick = places[xs == xs.max()]
            else:
                pick = idx
            g.apply(c.decode(int(rng.choice(pick)), g.current, g.n))
        assert len(g.round_results) == 3
        assert int(g.gold.sum()) + int(g.nuggets.astype(int).sum()) == 44
        assert g.gold_cards.sum() + len(g.nuggets) == 28
        last_outcomes.add(g.round_results[2].gold_found)
    assert last_outcomes == {True, False}


# --- RULES 2.2, 2.3: roles and hand sizes from dealt games ---------------------------------
PUBLISHED = {
    3: (1, 3),
    4: (1, 4),
    5: (2, 4),
    6: (2, 5),
    7: (3, 5),
    8: (3, 6),
    9: (3, 7),
    10: (4, 7),
}
SEED_TABLE = {
    3: (1, 2),
    4: (1, 3),
    5: (2, 3),
    6: (2, 4),
    7: (3, 4),
    8: (3, 5),
    9: (3, 6),
    10: (4, 7),
}
HAND = {3: 6, 4: 6, 5: 6, 6: 5, 7: 5, 8: 4, 9: 4, 10: 4}


@pytest.mark.parametrize("n", range(3, 11))
def test_published_role_table_and_hand_sizes(n):
    """RULES 2.2 (published table: one more dwarf card than players, one set aside face down),
    2.3 (hand sizes 6/5/4), 2.4 (the rest of the 67 cards is the draw pile), computed from
    dealt games over several seeds and all three rounds of one game."""
    sab, dig = PUBLISHED[n]
    seen_sabs = Counter()
    for seed in range(30):
        g = Game(GameConfig(num_players=n), seed=seed)
        assert len(g.roles) == n and len(g.set_aside) == 1
        assert Counter(g.roles.tolist() + g.set_aside) == {SABOTEUR: sab, GOLD_DIGGER: dig}
        assert g.hands.sum(axis=1).tolist() == [HAND[n]] * n
        assert len(g.deck) == 67 - n * HAND[n]
        assert g.cards_accounted() == 67
        seen_sabs[int((g.roles == SABOTEUR).sum())] += 1
    # the set-aside card hides the saboteur count: both sab and sab-1 occur
    assert set(seen_sabs) == {sab - 1, sab}


@pytest.mark.parametrize("n", range(3, 11))
def test_seed_role_table(n):
    """RULES 2.2, 8, 10 ``role_table="seed"``: exactly as many dwarf cards as players (10p deals
    10 of all 11)."""
    sab, dig = SEED_TABLE[n]
    for seed in range(10):
        g = Game(GameConfig(num_players=n, role_table="seed"), seed=seed)
        if n < 10:
            assert g.set_aside == []
            assert Counter(g.roles.tolist()) == {SABOTEUR: sab, GOLD_DIGGER: dig}
        else:
            assert len(g.set_aside) == 1
            assert Counter(g.roles.tolist() + g.set_aside) == {SABOTEUR: 4, GOLD_DIGGER: 7}
        assert g.hands.sum(axis=1).tolist() == [HAND[n]] * n


def test_roles_redealt_each_round_from_same_cards():
    """RULES 5.4: the same dwarf cards (incl. the set-aside one) are reshuffled every round."""
    g = Game(GameConfig(num_players=4), seed=11)
    from rules_helpers import codec

    c = codec(g)
    rng = np.random.default_rng(1)
    decks = [Counter(g.roles.tolist() + g.set_aside)]
    r = 0
    while not g.game_over:
        m = c.mask(g)
        g.apply(c.decode(int(rng.choice(np.nonzero(m)[0])), g.current, g.n))
        if g.round != r and not g.game_over:
            r = g.round
            decks.append(Counter(g.roles.tolist() + g.set_aside))
            assert g.hands.sum(axis=1).tolist() == [6] * 4
            assert len(g.board.cards()) == 4
    assert decks == [{SABOTEUR: 1, GOLD_DIGGER: 4}] * 3


@pytest.mark.parametrize("bad", [2, 11])
def test_player_count_bounds(bad):
    """RULES 2.2, 10: the base game is for 3 to 10 players."""
    with pytest.raises(ConfigError):
        GameConfig(num_players=bad)


def test_first_player_option():
    """RULES 2.4, 10 ``first_player``: seat 0 by default, any seat, or random from the RNG."""
    assert Game(GameConfig(num_players=5), seed=0).current == 0
    assert Game(GameConfig(num_players=5, first_player=3), seed=0).current == 3
    firsts = {
        Game(GameConfig(num_players=5, first_player="random"), seed=s).current for s in range(40)
    }
    assert firsts == set(range(5))


def test_ended_round_names_the_result_of_the_round_a_decision_ended():
    from saboteur_env.encoding.codec import Codec
    from saboteur_env.engine.events import EventType

    g = Game(GameConfig(num_players=3, num_rounds=2), 5)
    codec = Codec(g.config)
    rng = np.random.default_rng(0)
    seen = []
    while not g.game_over:
        legal = np.flatnonzero(codec.mask(g))
        events = g.apply(codec.decode(int(rng.choice(legal)), g.current, g.n))
        res = g.ended_round(events)
        if any(e.type is EventType.ROUND_END for e in events):
            assert res is g.round_results[-1] and res.round == len(seen)
            seen.append(res.round)
        else:
            assert res is None
    assert seen == [0, 1]


def test_the_win_reward_counts_a_paid_geologist_as_a_winner():
    """``reward="win"`` gives +1 to the seats ``seat_won`` says won (RULES 6.9): the winners
    set, and a Saboteur 2 geologist paid more than 0 gold (never in that set, he had a
    constant -1 before); a geologist paid nothing gets -1.  Hand-built: green digger 0 and
    the boss 2 won; geologists 1 (paid 2) and 3 (paid 0); saboteur 4 lost."""
    from saboteur_env.engine.cards import BOSS, GEOLOGIST, GREEN_DIGGER, X_SABOTEUR
    from saboteur_env.engine.events import RoundResult
    from saboteur_env.engine.ruleset import BASE, SABOTEUR_2
    from saboteur_env.engine.scoring import round_rewards

    result = RoundResult(
        round=0,
        gold_found=True,
        winning_side="green",
        winners=[0, 2],
        connector=0,
        roles=[GREEN_DIGGER, GEOLOGIST, BOSS, GEOLOGIST, X_SABOTEUR],
        received=[4, 2, 3, 0, 0],
        paid=[4, 2, 3, 0, 0],
        last_card_seat=0,
        turns=9,
    )
    assert round_rewards(result, "win", SABOTEUR_2) == [1, 1, 1, -1, -1]
    assert round_rewards(result, "gold", SABOTEUR_2) == [4, 2, 3, 0, 0]
    # the base game has no paid roles: the winners set alone
    assert round_rewards(result, "win", BASE) == [1, -1, 1, -1, -1]


def test_base_payout_by_hand_and_its_bad_input():
    from saboteur_env.engine.scoring import base_payout

    # 4 players, seat 1 the saboteur; seat 2 reaches the gold: 4 cards from the top, sorted,
    # picked counter-clockwise from 2 by the diggers 2, 0, 3 (RULES 5.2)
    supply = [1, 3, 2, 1, 3]
    assert base_payout(supply, True, 2, [0, 1, 0, 0], 2) == [(2, 3), (0, 2), (3, 1), (2, 1)]
    assert supply == [3]
    # seat 0's broken tool forfeits its share (the variant of RULES 5.2)
    paid = base_payout([1, 3, 2, 1], True, 2, [0, 1, 0, 0], 2, [True, False, False, False])
    assert paid == [(2, 3), (3, 2), (2, 1), (3, 1)]
    # the gold not found: the lone saboteur takes 4 in exact change, largest values first
    supply = [1, 1, 2, 3, 1]
    assert base_payout(supply, False, None, [0, 1, 0, 0], 3) == [(1, 3), (1, 1)]
    assert supply == [1, 2, 1]
    with pytest.raises(ValueError, match="gold_found with no connector"):
        base_payout([1, 2], True, None, [0, 1, 0], 0)
    with pytest.raises(ValueError, match=r"forfeit: one flag per seat \(3\), got 2"):
        base_payout([1, 2], True, 0, [0, 1, 0], 0, [False, True])
