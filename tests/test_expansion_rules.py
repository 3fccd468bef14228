"""Saboteur 2 rules on hand-built positions (RULES 6, 7.17-7.30, cases R18-R25).

Every test names the RULES section it checks and asserts exact values.
"""

import numpy as np
import pytest

from saboteur_env.encoding.codec import Codec
from saboteur_env.engine.board import EMPTY
from saboteur_env.engine.cards import (
    ALL_KINDS,
    BLUE_DIGGER,
    BOSS,
    CARD_KINDS,
    EXPANSION_ROLES,
    GEOLOGIST,
    GREEN_DIGGER,
    KIND_INDEX,
    PROFITEER,
    ROLES_S2,
    X_SABOTEUR,
    E,
    N,
    S,
    W,
    deck_counts,
)
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import EventType
from saboteur_env.engine.phases import Phase
from saboteur_env.engine.ruleset import SABOTEUR_2
from saboteur_env.engine.scoring import door_outcome, payouts_s2, theft_order, winners_s2
from saboteur_env.engine.state import (
    Discard,
    EndPass,
    Game,
    IllegalActionError,
    PlacePath,
    PlayCard,
    RemoveFront,
    Rockfall,
    Steal,
    build_state,
)

K = KIND_INDEX
GOLD, STONE_A, STONE_B = 0, 1, 2

#: Saboteur 2's teams by role (RULES 6.2, 6.9)
S2_DOORS = SABOTEUR_2.role_doors


def cfg(n, **kw):
    """A one-round Saboteur 2 config (rounds are independent, RULES 6.6)."""
    kw.setdefault("num_rounds", 1)
    return GameConfig(num_players=n, expansion=True, **kw)


#: cards with an E-W tunnel for rows along y=0 (the deck holds only 3 straight B02; crossroads
#: B07 add N/S openings that face empty cells)
ROW_KINDS = ["B02", "B02", "B02", "B07", "B07", "B07", "B07"]


def row0(a, b, kinds=ROW_KINDS):
    return [(x, 0, kinds[i], False) for i, x in enumerate(range(a, b + 1))]


def legal_place(g, kind, x, y, rotated=False):
    return g.check(PlacePath(K[kind], x, y, rotated)) is None


def mask_of(g):
    return Codec(g.config).mask(g)


# --- card data (RULES 6.2, 6.3, 6.5, Appendix A) ---------------------------------------------
def test_card_data_counts():
    """RULES 6.2, 6.3, 6.5: 15 dwarf cards 4/4/1/1/2/3; 30 path cards; 21 action cards
    (incl. one extra Rockfall); 118 cards in the draw deck."""
    assert sum(ROLES_S2.values()) == 15
    assert [ROLES_S2[r] for r in range(6)] == [4, 4, 1, 1, 2, 3]
    assert sum(k.count_expansion for k in CARD_KINDS if k.category == "path") == 30
    assert sum(k.count_expansion for k in CARD_KINDS if k.category == "action") == 21
    assert CARD_KINDS[K["rockfall"]].count_expansion == 1
    assert int(deck_counts(True).sum()) == 118
    assert sum(k.crystals * k.count_expansion for k in CARD_KINDS) == 10
    doors = [(k.id, k.door) for k in CARD_KINDS if k.door]
    assert sum(1 for _, d in doors if d == "green") == 3
    assert sum(1 for _, d in doors if d == "blue") == 3


def test_setup_deal():
    """RULES 6.6: 6 cards each whatever the count, 10 removed unseen, one dwarf card each from
    all 15, the rest aside; no gold-nugget cards (gold is an integer); 118 cards conserved."""
    for n in (2, 5, 8, 12):
        g = Game(cfg(n), seed=n)
        assert g.hands.sum(axis=1).tolist() == [6] * n
        assert int(g.removed.sum()) == 10
        assert len(g.deck) == 108 - 6 * n
        assert len(g.set_aside) == 15 - n
        all_roles = np.bincount(np.concatenate([g.roles, g.set_aside]).astype(int), minlength=6)
        assert all_roles.tolist() == [4, 4, 1, 1, 2, 3]
        assert len(g.nuggets) == 0 and g.gold.tolist() == [0] * n
        assert g.cards_accounted() == 118


def test_remove_cards_each_round_option():
    """RULES 6.6, 7.27, 10: 10 cards removed unseen every round by default, a fresh 10 each
    round; with ``remove_cards_each_round=False`` the 10 removed in the first round stay out of
    the game in every round (fix: they used to come back into rounds 2 and 3)."""
    for each in (True, False):
        g = Game(cfg(4, num_rounds=3, remove_cards_each_round=each), seed=1)
        first = g.removed.copy()
        codec = Codec(g.config)
        rng = np.random.default_rng(0)
        removed_by_round = [first]
        while not g.game_over:
            r = g.round
            legal = np.flatnonzero(codec.mask(g))
            g.apply(codec.decode(int(legal[rng.integers(len(legal))]), g.current, g.n))
            if g.round != r and not g.game_over:
                removed_by_round.append(g.removed.copy())
                assert int(g.removed.sum()) == 10
                assert len(g.deck) == 118 - 10 - 24
                assert g.cards_accounted() == 118
        assert len(removed_by_round) == 3
        same = [np.array_equal(first, r) for r in removed_by_round[1:]]
        assert same == ([False, False] if each else [True, True])


# --- connectivity (RULES 4.1, 6.4; cases R18, R19) ---------------------------------------------
def _row_minus1():
    """(0,-1) bend S-E, (1..6,-1) T-junctions N-E-W (S closed), (7,-1) bend W-S: connected from
    the start."""
    kinds = ["B06", "B06", "B06", "X21", "X21", "X21"]
    return (
        [(0, -1, "B04", True)]
        + [(x, -1, kinds[x - 1], False) for x in range(1, 7)]
        + [(7, -1, "B03", True)]
    )


#: y=0 row under _row_minus1: N closed everywhere
ROW0_UNDER = ["B02", "B02", "B06", "B06", "X26"]


def test_bridge_only_one_segment_connected():
    """RULES 6.4, case R19: a bridge is legal when one tunnel is connected; the other tunnel
    stays unconnected (no reveal, no placement beside it) until connected on its own."""
    g = build_state(
        cfg(3),
        roles=["green-digger", "blue-digger", "saboteur"],
        hands=[["X01"], ["B02"], ["B01"]],
        board=_row_minus1(),
        goals=(GOLD, STONE_A, STONE_B),
    )
    assert legal_place(g, "X01", 7, 0)
    ev = g.apply(PlacePath(K["X01"], 7, 0))
    assert not any(e.type == "goal_revealed" for e in ev)
    assert g.board.connected_openings(7, 0) == N | S
    assert g.current == 1
    assert g.check(PlacePath(K["B02"], 6, 0)) is not None  # touches only the dead tunnel
    assert not legal_place(g, "B02", 6, 0)
    under = [(x, 0, k, x in (3, 4)) for x, k in zip(range(1, 6), ROW0_UNDER)]
    g2 = build_state(
        cfg(3),
        roles=["green-digger", "blue-digger", "saboteur"],
        hands=[[], ["B02"], ["B01"]],
        board=_row_minus1() + [(7, 0, "X01", False)] + under,
        goals=(GOLD, STONE_A, STONE_B),
        current=1,
    )
    assert g2.board.connected_openings(7, 0) == N | S
    ev = g2.apply(PlacePath(K["B02"], 6, 0))
    rev = [e.data for e in ev if e.type == "goal_revealed"]
    assert [(d["goal"], d["identity"]) for d in rev] == [(1, STONE_A)]  # non-local reveal
    assert g2.board.connected_openings(7, 0) == N | E | S | W


def test_double_curve():
    """RULES 6.3, 6.4: a double curve's two tunnels are not joined: only the one touching the
    start's tunnel is connected, and only it can be built on."""
    g = build_state(cfg(3), roles=["green-digger"] * 3, hands=[["X02"], ["B02", "B01"], []])
    # X02 at 0 degrees: N-W and E-S; its W meets the start's E opening
    g.apply(PlacePath(K["X02"], 1, 0))
    assert g.board.connected_openings(1, 0) == N | W
    assert legal_place(g, "B01", 1, -1)  # on the N end of the connected tunnel
    assert not legal_place(g, "B02", 2, 0)  # only meets the E end of the dead tunnel


def test_ladder_placement_rule():
    """RULES 6.4, 7.25, case R18(a): a ladder must touch the maze (orthogonally) and never lie
    orthogonally beside a goal, hidden or revealed; it is exempt from the connection rule.

    Note: case R18(a) names (7,-1) as 'next to G_T', but (7,-1) touches G_T (8,-2) only at a
    corner; RULES 7.25 counts orthogonal adjacency only.  Here the cells orthogonally beside
    goals, (7,-2), (8,-1) and (7,0), are checked."""
    g = build_state(
        cfg(3), roles=["green-digger"] * 3, hands=[["X05", "X04"], [], []], board=_row_minus1()
    )
    codec = Codec(g.config)
    m = codec.mask(g)
    for x, y in ((7, -2), (8, -1), (7, 0), (7, -3)):  # beside a goal, or touching no card
        for kind in ("X05", "X04"):
            for rot in (False, True):
                a = PlacePath(K[kind], x, y, rot)
                why = g.check(a)
                assert why is not None and m[codec.encode(a, 0, 3)] == 0
                # the reason names the rule that refuses it, never 3.1.5 (ladders are exempt)
                if (x, y) == (7, -3):
                    assert "touch the maze and match" in why and "RULES 3.1.2, 3.1.4;" in why
                else:
                    assert "may not touch a goal card orthogonally (RULES 6.4)" in why
                assert "3.1.5" not in why
    assert legal_place(g, "X04", 6, 0, rotated=True)  # S,L: touches (6,-1), edges match
    assert not legal_place(g, "X04", 6, 0)  # its N would face (6,-1)'s closed S
    assert "match every face-up neighbour's edges" in g.check(PlacePath(K["X04"], 6, 0))
    # the one statement of "touches a goal" that legality (FIT) and the reason both read
    touching = {(7, -2), (7, 0), (7, 2), (8, -3), (8, -1), (8, 1), (8, 3), (9, -2), (9, 0), (9, 2)}
    x0, x1, y0, y1 = g.board.window
    cells = {(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)}
    assert {c for c in cells if g.board.touches_goal(*c)} == touching
    with pytest.raises(ValueError, match=r"cell \(99, 0\) lies outside the board window"):
        g.board.touches_goal(99, 0)
    # an ordinary path card refused for want of a connection still cites 3.1.5
    assert "connect to the start (RULES 3.1.2, 3.1.4, 3.1.5)" in build_state(
        cfg(3), roles=["green-digger"] * 3, hands=[["B02"], [], []], board=[(3, 3, "B02", False)]
    ).check(PlacePath(K["B02"], 2, 3))
    # a ladder touching only an unconnected island is legal (no connection needed)
    g2 = build_state(
        cfg(3), roles=["green-digger"] * 3, hands=[["X05"], [], []], board=[(3, 3, "B02", False)]
    )
    assert g2.board.connected_openings(3, 3) == 0
    assert legal_place(g2, "X05", 2, 3)  # E meets the island's W
    assert not legal_place(g2, "B02", 2, 3)  # an ordinary card there is not connected
    # a revealed goal also forbids a ladder beside it
    g3 = build_state(
        cfg(3),
        roles=["green-digger"] * 3,
        hands=[["X05"], [], []],
        board=row0(1, 7),
        revealed=[(1, False)],
        goals=(GOLD, STONE_A, STONE_B),
    )
    assert g3.board.goal_revealed[1]
    assert not legal_place(g3, "X05", 8, 1, rotated=True)
    assert not legal_place(g3, "X05", 8, 1)


def test_ladder_reconnects_island():
    """RULES 6.4, case R18(b): after a rockfall leaves an island, a ladder touching the island
    connects it (ladder nodes are roots); new placements beside it become legal."""
    g = build_state(
        cfg(3), roles=["green-digger"] * 3, hands=[["rockfall"], ["X05"], ["B01"]], board=row0(1, 5)
    )
    g.apply(Rockfall(3, 0))
    assert g.board.variant_at(3, 0) == EMPTY
    assert g.board.connected_openings(5, 0) == 0
    g.apply(PlacePath(K["X05"], 6, 0, True))  # W opening meets (5,0)
    assert g.board.connected_openings(5, 0) == N | E | S | W  # a crossroads
    assert g.board.connected_openings(6, 0) == W
    assert g.current == 2
    assert legal_place(g, "B01", 5, -1)  # beside the reconnected island


def test_ladder_reveals_goal_far_away():
    """RULES 4.2, 6.4, case R18(c): a ladder connecting an existing bridge tunnel turns over
    the goal that tunnel faces, although the ladder is not next to it; gold ends the round."""
    g = build_state(
        cfg(3),
        roles=["green-digger", "blue-digger", "saboteur"],
        hands=[["X05"], ["B02"], ["B02"]],
        board=[(7, 0, "X01", False)],
        goals=(STONE_A, GOLD, STONE_B),
    )
    assert g.board.connected_openings(7, 0) == 0
    ev = g.apply(PlacePath(K["X05"], 6, 0))  # E opening meets the bridge's W end
    assert [(e.data["goal"], e.data["identity"]) for e in ev if e.type == "goal_revealed"] == [
        (1, GOLD)
    ]
    res = g.round_results[0]
    assert res.gold_found and res.connector == 0
    assert res.winning_side == "green" and not res.saboteurs_won  # a green connector, no doors


def test_doors_never_restrict_placement_or_reveal():
    """RULES 6.4, 7.26: a door card is placed and turns over the goal like any tunnel."""
    g = build_state(
        cfg(3),
        roles=["green-digger"] * 3,
        hands=[["X12"], [], []],
        board=row0(1, 6),
        goals=(STONE_A, STONE_B, GOLD),
    )
    assert legal_place(g, "X12", 7, 0)
    ev = g.apply(PlacePath(K["X12"], 7, 0))
    assert [e.data["goal"] for e in ev if e.type == "goal_revealed"] == [1]


# --- the door evaluation (RULES 6.9) -----------------------------------------------------------
PATTERNS = {
    "none": [],
    "green": [(3, 0, "X09", False)],
    "blue": [(3, 0, "X12", False)],
    "both": [(3, 0, "X09", False), (4, 0, "X12", False)],
}
#: expected winning side for connector role x door pattern (single route)
EXPECTED_SIDE = {
    "none": {GREEN_DIGGER: "green", BLUE_DIGGER: "blue"},
    "green": {},
    "blue": {},
    "both": {},
}


def _side(pattern, conn):
    if pattern == "none":
        return EXPECTED_SIDE["none"].get(conn, "blue+green")
    return {"green": "green", "blue": "blue", "both": "boss"}[pattern]


def _door_game(
    pattern_cells, conn_role, extra_board=(), rule="seed", boss=True, trapped=(), profiteer=True
):
    others = [GREEN_DIGGER, BLUE_DIGGER, GEOLOGIST, X_SABOTEUR]
    if boss and conn_role != BOSS:
        others.append(BOSS)
    if profiteer and conn_role != PROFITEER:
        others.append(PROFITEER)
    roles = [conn_role] + others
    n = len(roles)
    taken = {(x, y) for x, y, _, _ in pattern_cells}
    board = (
        [c for c in row0(1, 6) if (c[0], c[1]) not in taken]
        + list(pattern_cells)
        + list(extra_board)
    )
    return build_state(
        cfg(n, both_doors_rule=rule),
        roles=roles,
        hands=[["B07"]] + [[] for _ in range(n - 1)],
        board=board,
        goals=(STONE_A, GOLD, STONE_B),
        deck=[],
        trapped=trapped,
    ), roles


@pytest.mark.parametrize("pattern", list(PATTERNS))
@pytest.mark.parametrize(
    "conn", [GREEN_DIGGER, BLUE_DIGGER, BOSS, PROFITEER, GEOLOGIST, X_SABOTEUR]
)
def test_door_evaluation_every_row(pattern, conn):
    """RULES 6.9 door evaluation, one route: every connector role x door pattern (none, green,
    blue, both colours).  Winners are the winning team(s) + Boss + Profiteer; both colours:
    the Boss alone (default ``both_doors_rule="seed"``)."""
    g, roles = _door_game(PATTERNS[pattern], conn)
    g.apply(PlacePath(K["B07"], 7, 0))
    res = g.round_results[0]
    assert res.gold_found
    side = _side(pattern, conn)
    assert res.winning_side == side
    teams = {
        "green": [GREEN_DIGGER],
        "blue": [BLUE_DIGGER],
        "blue+green": [GREEN_DIGGER, BLUE_DIGGER],
        "boss": [],
    }[side]
    expected = [
        s
        for s, r in enumerate(roles)
        if r in teams or r == BOSS or (r == PROFITEER and side != "boss")
    ]
    assert res.winners == expected
    assert res.pass_blue == (pattern in ("none", "blue"))
    assert res.pass_green == (pattern in ("none", "green"))


def test_door_outcome_formula_rows():
    """RULES 6.9: the formula itself for every (connector, pass_blue, pass_green)."""
    for conn in (None, GREEN_DIGGER, BLUE_DIGGER, BOSS, PROFITEER, GEOLOGIST, X_SABOTEUR):
        assert door_outcome(True, conn, False, False, S2_DOORS) == (False, False)
        assert door_outcome(True, conn, True, False, S2_DOORS) == (True, False)
        assert door_outcome(True, conn, False, True, S2_DOORS) == (False, True)
        assert door_outcome(False, conn, True, True, S2_DOORS) == (False, False)
    assert door_outcome(True, GREEN_DIGGER, True, True, S2_DOORS) == (False, True)
    assert door_outcome(True, BLUE_DIGGER, True, True, S2_DOORS) == (True, False)
    for conn in (BOSS, PROFITEER, GEOLOGIST, X_SABOTEUR, None):
        assert door_outcome(True, conn, True, True, S2_DOORS) == (True, True)


def _second_route(doors=()):
    """Route B: start N -> (0,-1) -> (0,-2) bend S-E -> (1..6,-2) -> (7,-2) bend W-S ->
    (7,-1) -> the crossroads at (7,0); ``doors``: cards replacing cells of route B."""
    cells = [
        (0, -1, "B01", False),
        (0, -2, "B04", True),
        (7, -2, "B03", True),
        (7, -1, "B01", False),
    ]
    cells += [(x, -2, "B06" if x < 6 else "X16", False) for x in range(1, 7)]
    for d in doors:
        cells = [c for c in cells if (c[0], c[1]) != (d[0], d[1])] + [d]
    return cells


def test_two_routes_only_one_blocked():
    """RULES 6.9 (route-based evaluation): with a green door on route A and a clean route B,
    a blue connector's team passes by route B and wins alone; with a blue door on route B
    instead, a Boss connector makes both teams win (each team has a route without the other
    colour's door); both routes with both colours: the both-doors case."""
    g, roles = _door_game(PATTERNS["green"], BLUE_DIGGER, extra_board=_second_route())
    g.apply(PlacePath(K["B07"], 7, 0))
    res = g.round_results[0]
    assert (res.pass_blue, res.pass_green) == (True, True)
    assert res.winning_side == "blue"
    assert res.winners == [s for s, r in enumerate(roles) if r in (BLUE_DIGGER, BOSS, PROFITEER)]
    g, roles = _door_game(
        PATTERNS["green"], BOSS, extra_board=_second_route([(3, -2, "X12", False)])
    )
    g.apply(PlacePath(K["B07"], 7, 0))
    res = g.round_results[0]
    assert (res.pass_blue, res.pass_green) == (True, True)
    assert res.winning_side == "blue+green"
    # the same without the door on route A: a green connector's team alone
    g, roles = _door_game(
        PATTERNS["none"], GREEN_DIGGER, extra_board=_second_route([(3, -2, "X12", False)])
    )
    g.apply(PlacePath(K["B07"], 7, 0))
    assert g.round_results[0].winning_side == "green"
    # both routes carry both colours -> the both-doors case
    g, roles = _door_game(
        PATTERNS["both"],
        GREEN_DIGGER,
        extra_board=_second_route([(0, -1, "X10", False), (7, -1, "X11", False)]),
    )
    g.apply(PlacePath(K["B07"], 7, 0))
    res = g.round_results[0]
    assert (res.pass_blue, res.pass_green) == (False, False)
    assert res.winning_side == "boss"


def test_both_doors_rule_options():
    """RULES 6.9, 10 ``both_doors_rule``, case R25(c): doors of both colours on the only route,
    a blue digger connects.  'seed': the Boss alone wins, 4 gold; no Boss in play: the
    saboteurs and the Profiteer win.  'bga': Boss and Profiteer win, 3 and 2."""
    g, roles = _door_game(PATTERNS["both"], BLUE_DIGGER)
    g.apply(PlacePath(K["B07"], 7, 0))
    res = g.round_results[0]
    boss = roles.index(BOSS)
    assert res.winners == [boss]
    assert res.received == [4 if s == boss else 0 for s in range(len(roles))]
    g, roles = _door_game(PATTERNS["both"], BLUE_DIGGER, boss=False)
    g.apply(PlacePath(K["B07"], 7, 0))
    res = g.round_results[0]
    sab, prof = roles.index(X_SABOTEUR), roles.index(PROFITEER)
    assert res.winning_side == "saboteurs" and res.saboteurs_won  # the boss's bga case aside
    assert res.winners == sorted([sab, prof])
    assert res.received[sab] == 4 and res.received[prof] == 2
    g, roles = _door_game(PATTERNS["both"], BLUE_DIGGER, rule="bga")
    g.apply(PlacePath(K["B07"], 7, 0))
    res = g.round_results[0]
    boss, prof = roles.index(BOSS), roles.index(PROFITEER)
    assert res.winners == sorted([boss, prof])
    assert res.received[boss] == 3 and res.received[prof] == 2
    assert sum(res.received) == 5


# --- payouts (RULES 6.9; case R25) -------------------------------------------------------------
def test_payout_table_with_boss_and_profiteer():
    """RULES 6.9: 5/4/3/2/1 per winner by |W| (Boss and Profiteer counted), Boss -1,
    Profiteer -2, never below 0; 1 to 6 winners."""
    expect = {
        1: ([BOSS], [4]),
        2: ([BOSS, PROFITEER], [3, 2]),
        3: ([BLUE_DIGGER, BOSS, PROFITEER], [3, 2, 1]),
        4: ([BLUE_DIGGER, BLUE_DIGGER, BOSS, PROFITEER], [2, 2, 1, 0]),
        5: ([BLUE_DIGGER] * 3 + [BOSS, PROFITEER], [1, 1, 1, 0, 0]),
        6: ([BLUE_DIGGER] * 4 + [BOSS, PROFITEER], [1, 1, 1, 1, 0, 0]),
    }
    for k, (roles, pay) in expect.items():
        assert payouts_s2(roles, list(range(k)), 0, [False] * k) == pay
    assert payouts_s2([BLUE_DIGGER], [0], 0, [False]) == [5]
    assert payouts_s2([BLUE_DIGGER, BLUE_DIGGER], [0, 1], 0, [False] * 2) == [4, 4]


def test_case_r25_shares():
    """Case R25 (a), (b): winners B1, B2, Boss, Profiteer -> 2, 2, 1, 0 (geologist paid apart);
    winners B1, B2, Boss -> 3, 3, 2."""
    roles = ["blue-digger", "blue-digger", "boss", "profiteer", "geologist"]
    g = build_state(
        cfg(5),
        roles=roles,
        hands=[["B07"], [], [], [], []],
        board=row0(1, 6),
        goals=(STONE_A, GOLD, STONE_B),
        deck=[],
    )
    g.apply(PlacePath(K["B07"], 7, 0))
    assert g.round_results[0].winners == [0, 1, 2, 3]
    assert g.round_results[0].received == [2, 2, 1, 0, 0]
    roles = ["blue-digger", "blue-digger", "boss", "geologist", "saboteur"]
    g = build_state(
        cfg(5),
        roles=roles,
        hands=[["B07"], [], [], [], []],
        board=row0(1, 6),
        goals=(STONE_A, GOLD, STONE_B),
        deck=[],
    )
    g.apply(PlacePath(K["B07"], 7, 0))
    assert g.round_results[0].received == [3, 3, 2, 0, 0]


def test_trapped_winner_geologist_and_thief():
    """RULES 6.5, 6.9, 7.23, 7.29: a trapped winner is not in W (and W shrinks, so the others
    get more); a trapped geologist gets nothing while the other still gets only his half; a
    trapped thief's Theft does not work."""
    # seats: 0 blue (connector), 1 blue (trapped), 2 boss, 3 geologist (trapped), 4 geologist,
    # 5 green (thief, trapped), 6 saboteur with gold to steal
    roles = [
        "blue-digger",
        "blue-digger",
        "boss",
        "geologist",
        "geologist",
        "green-digger",
        "saboteur",
    ]
    board = [c for c in row0(1, 6) if c[0] != 3] + [
        (3, 0, "X12", False),
        (1, -2, "X21", True),
        (2, 2, "X21", False),
        (4, 2, "X25", False),
    ]
    g = build_state(
        cfg(7),
        roles=roles,
        hands=[["B07"]] + [[]] * 6,
        board=board,
        goals=(STONE_A, GOLD, STONE_B),
        deck=[],
        trapped=[1, 3, 5],
        theft=[5],
        gold=[0, 0, 0, 0, 0, 0, 3],
    )
    assert g.board.crystals() == 3
    g.apply(PlacePath(K["B07"], 7, 0))
    res = g.round_results[0]
    assert res.winning_side == "blue"
    assert res.winners == [0, 2]  # seat 1 trapped
    assert res.received == [4, 0, 3, 0, 1, 0, 0]  # |W| = 2: 4 and Boss 3; geologist 3 // 2
    assert res.thefts == []  # the only thief is trapped
    assert g.game_over and g.gold.tolist() == [4, 0, 3, 0, 1, 0, 3]


def test_geologists_count_every_visible_crystal():
    """RULES 6.9, 7.30, case R20: crystals on the table at round end, connected or not; a card
    removed by a rockfall no longer counts; two geologists split rounded down; geologists are
    not winners."""
    board = [
        (1, 0, "X25", False),
        (1, -1, "X21", True),
        (1, 1, "X23", False),
        (2, 0, "B02", False),
        (3, 0, "B02", False),
        (4, 0, "X26", False),
    ]
    for roles, expect in (
        (["geologist", "geologist", "saboteur"], [1, 1, 5]),
        (["geologist", "saboteur", "profiteer"], [3, 4, 2]),
    ):
        g = build_state(
            cfg(3), roles=roles, hands=[["rockfall"], ["rockfall"], []], board=board, deck=[]
        )
        assert g.board.crystals() == 4
        g.apply(Rockfall(3, 0))  # c2 at (4,0) is now on an island
        assert g.board.connected_openings(4, 0) == 0
        g.apply(Rockfall(1, 1))  # c3 removed
        res = g.round_results[0]
        assert res.crystals == 3 and not res.gold_found
        assert res.received == expect
        assert all(roles[s] != "geologist" for s in res.winners)


# --- theft (RULES 6.5, 6.9; case R22) ----------------------------------------------------------
def test_theft_order_hands_off_and_victims():
    """RULES 6.9, case R22: A played Theft first, C later, D last but E's Hands off! removed D's.
    Totals after awards A 0, B 1, C 2, D 5.  C (most recent working theft) steals first, then
    A (clockwise from C); a player with no gold is never a legal victim; nobody goes below 0."""
    roles = ["green-digger", "green-digger", "blue-digger", "blue-digger", "green-digger"]
    g = build_state(
        cfg(5),
        roles=roles,
        hands=[[], [], [], [], ["hands_off"]],
        deck=[],
        theft=[0, 2, 3],
        gold=[0, 1, 2, 5, 0],
        current=4,
    )
    assert g.check(PlayCard(K["hands_off"], 1)) is not None  # seat 1 has no Theft
    g.apply(PlayCard(K["hands_off"], 3))
    assert not g.xfront[3, 1]
    assert g.phase == "theft" and g.current == 2  # C first
    codec = Codec(g.config)
    m = codec.mask(g)
    o = codec.blocks["steal"][0]
    legal = {(2 + r) % 5 for r in np.flatnonzero(m[o : o + 12])}
    assert legal == {1, 3}  # B and D hold gold; A has none; never oneself
    assert np.flatnonzero(m).min() >= o  # only steal actions
    assert g.check(Steal(0)) is not None
    g.apply(Steal(1))
    assert g.gold.tolist() == [0, 0, 3, 5, 0]
    assert g.current == 0
    assert g.check(Steal(1)) is not None  # B has no gold left
    g.apply(Steal(3))
    assert g.game_over
    assert g.gold.tolist() == [1, 0, 3, 4, 0]
    res = g.round_results[0]
    assert res.thefts == [(2, 1), (0, 3)]
    assert res.received == [1, -1, 1, -1, 0]
    assert theft_order(
        [0, 1, 2, -1, -1], [True, False, True, True, False], [False, False, False, True, False]
    ) == [2, 0]


def test_theft_order_starts_from_the_latest_thief_even_when_trapped():
    """RULES 6.9: the player who played a Theft most recently goes first, then clockwise;
    trapped thieves are skipped.  Seat 2 played the last Theft but is trapped: the order starts
    from seat 2, so seat 3 robs first, then seat 4 (fix: it used to start from the latest
    working thief, seat 4)."""
    assert theft_order(
        [-1, -1, 9, 1, 5], [False, False, True, True, True], [False, False, True, False, False]
    ) == [3, 4]
    roles = ["green-digger", "green-digger", "blue-digger", "blue-digger", "geologist"]
    g = build_state(
        cfg(5),
        roles=roles,
        hands=[["B02"], [], [], [], []],
        deck=[],
        theft=[3, 4, 2],
        trapped=[2],
        gold=[2, 2, 2, 2, 2],
    )
    g.apply(Discard(K["B02"]))
    assert g.phase == "theft" and g.current == 3
    g.apply(Steal(0))
    assert g.current == 4
    g.apply(Steal(0))
    assert g.round_results[0].thefts == [(3, 0), (4, 0)]


def test_theft_without_victim_is_skipped():
    """RULES 6.9: a thief finds nobody with gold: nothing happens, no decision is asked."""
    g = build_state(
        cfg(3),
        roles=["green-digger", "saboteur", "blue-digger"],
        hands=[["B02"], [], []],
        deck=[],
        theft=[0],
    )
    g.apply(Discard(K["B02"]))
    # the saboteur wins 5 (|W| = 1) before the theft: seat 0 must rob him
    assert g.phase == "theft" and g.current == 0
    g.apply(Steal(1))
    assert g.gold.tolist() == [1, 4, 0]
    g = build_state(
        cfg(3),
        roles=["green-digger", "blue-digger", "blue-digger"],
        hands=[["B02"], [], []],
        deck=[],
        theft=[0],
    )
    ev = g.apply(Discard(K["B02"]))
    assert g.game_over and g.gold.tolist() == [0, 0, 0]
    assert [e.seat for e in ev if e.type == "theft_skipped"] == [0]


def test_the_roles_are_revealed_before_the_thefts():
    """RULES 5.1, 6.9: the dwarf cards are turned up at round end and the thefts follow the
    payouts, so a public ``round_scored`` event (every field of the coming ``round_end`` but
    the thefts) opens the theft phase, before any theft; ``round_end`` follows the thefts.
    No Theft card in front: no theft phase, no such event (fix: the roles reached the seats
    only with ``round_end``, after the thieves had chosen)."""
    roles = ["green-digger", "green-digger", "blue-digger", "blue-digger", "geologist"]
    g = build_state(
        cfg(5),
        roles=roles,
        hands=[["B02"], [], [], [], []],
        deck=[],
        theft=[3, 4, 2],
        trapped=[2],
        gold=[2, 2, 2, 2, 2],
    )
    ev = g.apply(Discard(K["B02"]))
    assert [e.type for e in ev][-1] == EventType.ROUND_SCORED and g.phase == Phase.THEFT
    scored = ev[-1]
    assert scored.visible_to is None and g.roles_revealed
    assert scored.data["roles"] == g.roles.tolist() == [SABOTEUR_2.role_id(r) for r in roles]
    g.apply(Steal(0))
    ev = g.apply(Steal(0))
    end = next(e for e in ev if e.type == EventType.ROUND_END)
    types = [e.type for e in g.events]
    assert types.index(EventType.ROUND_SCORED) < types.index(EventType.THEFT)
    assert {**scored.data, "thefts": [(3, 0), (4, 0)]} == end.data
    g = build_state(cfg(3), roles=["green-digger"] * 3, hands=[["B02"], [], []], deck=[])
    g.apply(Discard(K["B02"]))
    assert g.game_over and EventType.ROUND_SCORED not in [e.type for e in g.events]


def test_theft_and_trapped_targets_and_limit():
    """RULES 6.5: Theft only on yourself and one at most; Trapped! only on another player,
    one at most; Free at last! / Hands off! need the matching card; Trapped! blocks path
    placement; Free at last! lifts it."""
    g = build_state(
        cfg(3),
        roles=["green-digger"] * 3,
        hands=[["theft", "trapped", "B02"], ["free_at_last", "B02"], ["B01"]],
    )
    assert g.check(PlayCard(K["theft"], 1)) is not None
    assert g.check(PlayCard(K["trapped"], 0)) is not None
    assert g.check(PlayCard(K["free_at_last"], 1), seat=0) is not None  # not seat 0's turn
    g.apply(PlayCard(K["trapped"], 1))
    assert g.xfront[1, 0] and not g.can_place_paths(1)
    assert g.current == 1
    assert g.check(PlacePath(K["B02"], 1, 0)) is not None
    codec = Codec(g.config)
    m = codec.mask(g)
    assert m[: codec.blocks["place"][1]].sum() == 0
    assert g.check(PlayCard(K["free_at_last"], 0)) is not None  # seat 0 is not trapped
    before = g.discards.copy()
    g.apply(PlayCard(K["free_at_last"], 1))
    assert not g.xfront[1, 0] and g.can_place_paths(1)
    assert (g.discards - before)[K["trapped"]] == 1
    assert (g.discards - before)[K["free_at_last"]] == 1
    g2 = build_state(cfg(3), roles=["green-digger"] * 3, hands=[["theft"], [], []], theft=[0])
    assert g2.check(PlayCard(K["theft"], 0)) is not None  # one Theft at most
    g3 = build_state(cfg(3), roles=["green-digger"] * 3, hands=[["trapped"], [], []], trapped=[1])
    assert g3.check(PlayCard(K["trapped"], 1)) is not None  # one Trapped! at most
    assert g3.check(PlayCard(K["trapped"], 2)) is None


# --- turn options (RULES 6.7) ------------------------------------------------------------------
def test_discard_two_to_remove():
    """RULES 6.7 option 3, 7.28: choose the card in front of yourself, discard two cards (one
    decision each, same seat), the card goes to the discard pile, draw only one; needs >= 2
    cards; works on your own Theft too."""
    g = build_state(
        cfg(3),
        roles=["green-digger"] * 3,
        hands=[["B02", "B03", "map"], [], ["B01"]],
        broken=[["pick"], [], []],
        deck=["B07", "B05"],
    )
    assert g.check(RemoveFront(1)) is not None  # no broken lantern
    g.apply(RemoveFront(0))
    assert g.phase == "remove" and g.current == 0
    codec = Codec(g.config)
    m = codec.mask(g)
    assert set(np.flatnonzero(m)) == {
        codec.encode(Discard(K[k]), 0, 3) for k in ("B02", "B03", "map")
    }
    assert g.check(EndPass()) is not None
    g.apply(Discard(K["map"]))
    assert g.current == 0 and g.broken[0, 0]
    picks = g.discards[K["break_pick"]]
    g.apply(Discard(K["B03"]))
    assert not g.broken[0].any() and g.discards[K["break_pick"]] == picks + 1
    assert g.hands[0].sum() == 2 and g.hands[0, K["B07"]] == 1  # drew exactly one
    assert g.current == 2 and g.phase == "turn"
    assert g.cards_accounted() == 118
    g = build_state(
        cfg(3), roles=["green-digger"] * 3, hands=[["B02"], ["B01"], []], broken=[["cart"], [], []]
    )
    assert g.check(RemoveFront(2)) is not None  # one card in hand only
    g = build_state(
        cfg(3), roles=["green-digger"] * 3, hands=[["B02", "B01"], ["B01"], []], theft=[0], deck=[]
    )
    g.apply(RemoveFront(4))
    g.apply(Discard(K["B02"]))
    thefts = g.discards[K["theft"]]
    g.apply(Discard(K["B01"]))
    assert not g.xfront[0, 1] and g.discards[K["theft"]] == thefts + 1


def test_pass_one_to_three_with_pile_running_out():
    """RULES 6.7 option 4: discard 1-3 cards one decision at a time ('done' after 1 or 2; the
    pass ends by itself after the third), then draw as many as the pile allows."""
    g = build_state(
        cfg(3),
        roles=["green-digger"] * 3,
        hands=[["B02", "B03", "B04", "map"], ["B01"], []],
        deck=["B07", "B05"],
    )
    codec = Codec(g.config)
    assert g.check(EndPass()) is not None  # a pass discards at least one card
    g.apply(Discard(K["B02"]))
    assert g.phase == "pass" and g.current == 0
    m = codec.mask(g)
    assert m[codec.blocks["done"][0]] == 1
    assert m[: codec.blocks["discard"][0]].sum() == 0
    g.apply(Discard(K["B03"]))
    g.apply(Discard(K["B04"]))  # third card: the pass ends by itself
    assert g.phase == "turn" and g.current == 1
    assert len(g.deck) == 0  # the pile ran out mid-pass: 2 drawn, not 3
    assert g.hands[0].tolist()[K["B07"]] == 1 and g.hand_size(0) == 3
    g = build_state(
        cfg(3), roles=["green-digger"] * 3, hands=[["B02", "B03"], ["B01"], []], deck=["B07", "B05"]
    )
    g.apply(Discard(K["B02"]))
    g.apply(EndPass())
    assert g.hand_size(0) == 2 and len(g.deck) == 1 and g.current == 1
    g = build_state(cfg(3), roles=["green-digger"] * 3, hands=[["B02"], ["B01"], []], deck=[])
    g.apply(Discard(K["B02"]))  # the hand is empty: the pass ends
    assert g.phase == "turn" and g.current == 1


def test_empty_pile_every_player_gives_up_a_card():
    """RULES 6.7: with an empty pile every legal turn removes at least one card from the hand;
    players without cards are skipped; the round ends when all hands are empty."""
    g = build_state(
        cfg(3),
        roles=["green-digger", "blue-digger", "saboteur"],
        hands=[["B02", "map"], [], ["B01"]],
        deck=[],
    )
    codec = Codec(g.config)
    while not g.game_over:
        s, before = g.current, g.hand_size(g.current)
        assert before > 0
        legal = np.flatnonzero(codec.mask(g))
        assert codec.blocks["done"][0] not in legal or g.phase == "pass"
        g.apply(codec.decode(int(legal[0]), s, g.n))
        if g.phase == "turn" and not g.game_over:
            assert g.hand_size(s) < before or g.current == s
    assert g.round_results[0].winning_side == "saboteurs"


# --- the other action cards (RULES 6.5, 7.20, 7.21) --------------------------------------------
def test_swap_hand_full_and_empty_pile():
    """RULES 6.5, 7.20, case R24: A (6 cards incl. Swap your hand) swaps with B (4 cards): A gets
    B's 4, B gets A's other 5 and draws 1 (6); with an empty pile B keeps 5.  A does not draw."""
    a_hand = ["swap_hand", "B01", "B02", "B03", "B04", "B05"]
    b_hand = ["map", "map", "B07", "X01"]
    for deck, b_size in ((["B06", "B06"], 6), ([], 5)):
        g = build_state(
            cfg(3), roles=["green-digger"] * 3, hands=[a_hand, b_hand, ["B01"]], deck=deck
        )
        a_cards = g.hands[0].copy()
        b_cards = g.hands[1].copy()
        assert g.check(PlayCard(K["swap_hand"], 0)) is not None  # another player only
        ev = g.apply(PlayCard(K["swap_hand"], 1))
        assert np.array_equal(g.hands[0], b_cards)
        a_cards[K["swap_hand"]] -= 1
        expect_b = a_cards.copy()
        if deck:
            expect_b[K["B06"]] += 1
        assert np.array_equal(g.hands[1], expect_b)
        assert g.hand_size(0) == 4 and g.hand_size(1) == b_size
        public = [e for e in ev if e.visible_to is None]
        assert [e.type for e in public] == ["action_played"]
        assert set(public[0].data) == {"kind", "card", "target"}
        assert g.cards_accounted() == 118


def test_inspection_private_and_stays_as_seen():
    """RULES 6.5: the inspector alone learns the role; a later Swap your hats does not update
    what he saw."""
    g = build_state(
        cfg(3),
        roles=["green-digger", "saboteur", "boss"],
        hands=[["inspection", "B01"], ["swap_hats", "B01"], ["B01"]],
        set_aside=["geologist"],
    )
    ev = g.apply(PlayCard(K["inspection"], 1))
    private = [e for e in ev if e.type == "inspection_result"]
    assert len(private) == 1 and private[0].visible_to == 0
    assert private[0].data == {"target": 1, "role": X_SABOTEUR}
    assert g.inspected[0, 1] == X_SABOTEUR
    g.apply(PlayCard(K["swap_hats"], 1))  # seat 1 swaps his own hat
    assert g.roles[1] == GEOLOGIST
    assert g.inspected[0, 1] == X_SABOTEUR


def test_swap_hats_self_other_and_none_left():
    """RULES 6.5, 7.21: the target's dwarf card is discarded (out for the round) and replaced
    from the cards aside; the new role is private to its owner; with no dwarf card left the
    card cannot be played."""
    g = build_state(
        cfg(3),
        roles=["green-digger", "saboteur", "boss"],
        hands=[["swap_hats", "B01"], ["swap_hats", "B01"], ["B01"]],
        set_aside=["geologist", "profiteer"],
    )
    ev = g.apply(PlayCard(K["swap_hats"], 2))  # on another player
    assert g.roles.tolist() == [GREEN_DIGGER, X_SABOTEUR, GEOLOGIST]
    assert g.set_aside == [PROFITEER] and g.hats_discarded == [BOSS]
    new = [e for e in ev if e.type == "role_dealt"]
    assert len(new) == 1 and new[0].visible_to == 2 and new[0].data["role"] == GEOLOGIST
    g.apply(PlayCard(K["swap_hats"], 1))  # on himself
    assert g.roles[1] == PROFITEER and g.set_aside == []
    assert g.cards_accounted() == 118
    g = build_state(
        cfg(3),
        roles=["green-digger", "saboteur", "boss"],
        hands=[["swap_hats", "B01"], [], []],
        set_aside=[],
    )
    assert g.check(PlayCard(K["swap_hats"], 0)) is not None
    assert g.check(PlayCard(K["swap_hats"], 1)) is not None
    m = mask_of(g)
    codec = Codec(g.config)
    o = codec.blocks["xaction"][0] + codec.x_pos[K["swap_hats"]] * 12
    assert m[o : o + 12].sum() == 0


def test_extra_rockfall_and_trapped_blocks_only_paths():
    """RULES 6.5: the 21st expansion card is a Rockfall identical to the base one; a trapped
    player may still play action cards and pass."""
    assert ALL_KINDS[K["rockfall"]].count_base + ALL_KINDS[K["rockfall"]].count_expansion == 4
    g = build_state(
        cfg(3),
        roles=["green-digger"] * 3,
        hands=[["B02", "map", "rockfall"], [], []],
        trapped=[0],
        board=row0(1, 2),
    )
    codec = Codec(g.config)
    m = codec.mask(g)
    assert m[: codec.blocks["place"][1]].sum() == 0
    assert m[codec.blocks["map"][0] : codec.blocks["map"][0] + 3].sum() == 3
    o = codec.blocks["rockfall"][0]
    assert m[o : o + codec.n_cells].sum() == 2
    assert m[codec.encode(RemoveFront(3), 0, 3)] == 1


def test_roles_names():
    """RULES 6.2: the six Saboteur 2 roles in one-hot order."""
    assert EXPANSION_ROLES == (
        "green-digger",
        "blue-digger",
        "boss",
        "profiteer",
        "geologist",
        "saboteur",
    )


def test_illegal_actions_raise_and_leave_state():
    """DESIGN 2: an illegal Saboteur 2 action raises and changes nothing."""
    g = build_state(cfg(3), roles=["green-digger"] * 3, hands=[["theft", "B01"], [], []])
    before = g.hands.copy()
    with pytest.raises(IllegalActionError):
        g.apply(PlayCard(K["theft"], 2))
    with pytest.raises(IllegalActionError):
        g.apply(Steal(1))
    assert np.array_equal(g.hands, before) and g.current == 0


def test_bga_both_doors_side_tells_who_won():
    """RULES 6.9, 10 ``both_doors_rule="bga"``: gold behind doors of both colours on every
    route: the Boss and the Profiteer win, the saboteurs only when the gold is not found.
    With no Boss in play the winning side is the Profiteer's; with neither, nobody wins, and
    the round's text says so (it used to say "the boss wins" over an empty winners set)."""
    from saboteur_env.engine.scoring import side_text
    from saboteur_env.render_image import side_label

    # neither Boss nor Profiteer in play: nobody wins, nobody is paid (no crystals)
    g, roles = _door_game(PATTERNS["both"], BLUE_DIGGER, rule="bga", boss=False, profiteer=False)
    assert BOSS not in roles and PROFITEER not in roles
    g.apply(PlacePath(K["B07"], 7, 0))
    res = g.round_results[0]
    assert (res.gold_found, res.pass_blue, res.pass_green) == (True, False, False)
    assert (res.winners, res.winning_side) == ([], "none")
    assert res.received == [0] * len(roles)
    assert side_text(res.winning_side) == "nobody wins"
    assert side_label(res.winning_side) == "NOBODY WINS"
    # the Profiteer alone: he wins, 5 - 2 = 3 gold, and the text names him
    g, roles = _door_game(PATTERNS["both"], BLUE_DIGGER, rule="bga", boss=False)
    g.apply(PlacePath(K["B07"], 7, 0))
    res = g.round_results[0]
    prof = roles.index(PROFITEER)
    assert (res.winners, res.winning_side) == ([prof], "profiteer")
    assert res.received == [3 if s == prof else 0 for s in range(len(roles))]
    assert side_text(res.winning_side) == "the profiteer wins"
    # with a Boss in play the side stays the boss's
    roles = [GREEN_DIGGER, BLUE_DIGGER, BOSS, X_SABOTEUR]
    assert winners_s2(
        roles, True, BLUE_DIGGER, False, False, [False] * 4, "bga", role_doors=S2_DOORS
    ) == (
        [2],
        "boss",
    )
    assert side_text("boss") == "the boss wins"
    # a trapped Profiteer (no Boss): the profiteer's side, no winner left
    roles = [GREEN_DIGGER, BLUE_DIGGER, PROFITEER]
    assert winners_s2(
        roles, True, None, False, False, [False, False, True], "bga", role_doors=S2_DOORS
    ) == (
        [],
        "profiteer",
    )


def test_door_outcome_asks_the_rulesets_role_doors():
    """RULES 6.9 door evaluation reads which role is in which team from
    ``Ruleset.role_doors``: with the two teams' colours swapped, a green-digger connector
    counts as the blue team; with no team roles, every connector is neutral."""
    import dataclasses

    from saboteur_env.engine.cards import DOOR_CODES

    green, blue = DOOR_CODES.index("green"), DOOR_CODES.index("blue")
    swapped_doors = list(SABOTEUR_2.role_doors)
    swapped_doors[GREEN_DIGGER], swapped_doors[BLUE_DIGGER] = blue, green
    swapped = dataclasses.replace(SABOTEUR_2, role_doors=tuple(swapped_doors))
    teamless = dataclasses.replace(SABOTEUR_2, role_doors=(0,) * SABOTEUR_2.n_roles)
    # both ways open, a green-digger connects: his team alone wins
    assert door_outcome(True, GREEN_DIGGER, True, True, SABOTEUR_2.role_doors) == (False, True)
    assert door_outcome(True, GREEN_DIGGER, True, True, swapped.role_doors) == (True, False)
    assert door_outcome(True, BLUE_DIGGER, True, True, swapped.role_doors) == (False, True)
    assert door_outcome(True, GREEN_DIGGER, True, True, teamless.role_doors) == (True, True)
    # the connector's team blocked: the other team wins whoever the ruleset says he is
    assert door_outcome(True, GREEN_DIGGER, False, True, swapped.role_doors) == (False, True)
    assert door_outcome(False, GREEN_DIGGER, True, True, swapped.role_doors) == (False, False)
    # the winners set takes the team's members from the same table
    roles = [GREEN_DIGGER, BLUE_DIGGER, BOSS]
    assert winners_s2(roles, True, GREEN_DIGGER, True, False, [False] * 3, role_doors=S2_DOORS) == (
        [1, 2],
        "blue",
    )
    assert winners_s2(
        roles, True, GREEN_DIGGER, True, False, [False] * 3, role_doors=swapped.role_doors
    ) == (
        [0, 2],
        "blue",
    )


def test_winners_set_rules():
    """RULES 6.9: gold not found: saboteurs + Profiteer (the Profiteer alone, 3 gold, when no
    saboteur is in play); 'bga' both-doors case without a Boss: only the Profiteer; trapped
    players are removed from W."""
    roles = [GREEN_DIGGER, BLUE_DIGGER, PROFITEER, GEOLOGIST]
    w, side = winners_s2(roles, False, None, False, False, [False] * 4, role_doors=S2_DOORS)
    assert (w, side) == ([2], "saboteurs")
    assert payouts_s2(roles, w, 0, [False] * 4) == [0, 0, 3, 0]
    w, side = winners_s2(
        roles, True, BLUE_DIGGER, False, False, [False] * 4, "bga", role_doors=S2_DOORS
    )
    assert (w, side) == ([2], "profiteer")
    roles = [X_SABOTEUR, X_SABOTEUR, PROFITEER, BOSS]
    w, side = winners_s2(
        roles, False, None, False, False, [True, False, False, False], role_doors=S2_DOORS
    )
    assert w == [1, 2]


def test_the_rulesets_name_each_roles_door_colour():
    """``Ruleset.role_doors`` (RULES 6.2, 6.9): Saboteur 2's green and blue diggers are the
    teams a door of the other colour blocks; no other role, and no base-game role, has one."""
    from saboteur_env.engine.cards import DOOR_CODES
    from saboteur_env.engine.ruleset import BASE, SABOTEUR_2

    doors = {SABOTEUR_2.roles[r]: DOOR_CODES[d] for r, d in enumerate(SABOTEUR_2.role_doors)}
    assert doors == {
        "green-digger": "green",
        "blue-digger": "blue",
        "boss": "",
        "profiteer": "",
        "geologist": "",
        "saboteur": "",
    }
    assert BASE.role_doors == (0, 0) and len(BASE.role_doors) == BASE.n_roles


# --- setup at every player count, the RULES 10 defaults (RULES 6.1, 6.6, 10) -------------------
@pytest.mark.parametrize("n", range(2, 13))
def test_setup_every_player_count_every_round(n):
    """RULES 6.1, 6.2, 6.6: 2 to 12 players; in every round 6 cards each, 10 removed unseen,
    the draw pile 118 - 10 - 6n (2p: 96 ... 12p: 36), one dwarf card each from all 15 (the
    15 - n others aside for Swap your hats), the start and three face-down goals."""
    from saboteur_env.engine.setup import draw_round

    g = Game(cfg(n, num_rounds=3), seed=100 + n)
    deals = [(g.hands, g.deck, g.removed, g.roles, g.set_aside)]
    for r in (1, 2):
        d = draw_round(g.config, g.rng, r, g.removed)
        deals.append((d.hands, d.deck, d.removed, d.roles, d.set_aside))
    for hands, deck, removed, roles, aside in deals:
        assert hands.sum(axis=1).tolist() == [6] * n
        assert int(removed.sum()) == 10
        assert len(deck) == 118 - 10 - 6 * n
        assert int(hands.sum() + len(deck) + removed.sum()) == 118
        assert len(roles) == n and len(aside) == 15 - n
        all_roles = np.bincount(np.concatenate([roles, aside]).astype(int), minlength=6)
        assert all_roles.tolist() == [4, 4, 1, 1, 2, 3]
    assert len(g.board.cards()) == 4 and not g.board.goal_revealed.any()
    assert g.cards_accounted() == 118
    for bad in (1, 13):
        with pytest.raises(ValueError, match="2 to 12"):
            GameConfig(num_players=bad, expansion=True)


def test_rules_10_defaults():
    """RULES 10: every option and its default: the base game, 5 players, 3 rounds, the
    published role table, self-sabotage allowed, no broken-tool forfeit, the seed's both-doors
    rule, 10 cards removed every round, seat 0 first."""
    c = GameConfig()
    assert (c.expansion, c.num_players, c.num_rounds) == (False, 5, 3)
    assert (c.role_table, c.self_sabotage, c.broken_tool_forfeit) == ("published", True, False)
    assert (c.both_doors_rule, c.remove_cards_each_round, c.first_player) == ("seed", True, 0)
    x = GameConfig(expansion=True)
    assert (x.num_players, x.both_doors_rule, x.remove_cards_each_round) == (5, "seed", True)
    assert x.ruleset is SABOTEUR_2 and x.ruleset.player_range == (2, 12)


def test_ladder_beside_the_start_only():
    """RULES 6.4, 7.25: a ladder must touch a card already in the maze, the start card
    included, and edges must still match: on a fresh maze X04 turned (S + ladder) fits at
    (0, -1) above the start's N opening, X04 upright (N + ladder) does not (its closed S meets
    the start's open N), and X05 fits at (-1, 0) only upright (its E meets the start's W;
    turned, it opens W and shows a closed E to the start's W)."""
    g = build_state(cfg(3), roles=["green-digger"] * 3, hands=[["X04", "X05"], [], []])
    assert legal_place(g, "X04", 0, -1, rotated=True)
    assert not legal_place(g, "X04", 0, -1)
    assert legal_place(g, "X05", -1, 0)  # E meets the start's W
    assert not legal_place(g, "X05", -1, 0, rotated=True)  # closed E against the start's W
    assert not legal_place(g, "X05", -2, 0)  # touches nothing
    g.apply(PlacePath(K["X04"], 0, -1, True))
    assert g.board.connected_openings(0, -1) == S


def test_next_round_starts_left_of_the_last_card_not_the_thief():
    """RULES 6.6, 5.4: round 2 is started by the left neighbour of the player who played the
    last card of round 1; the round-end Theft (RULES 6.9) is no card played.  Seat 1 discards
    the last card (pile empty): the saboteur (seat 1) alone wins 5; thief seat 0 robs him
    (1, 4, 0); round 2 begins with seat 2 and 6 cards each."""
    g = build_state(
        cfg(3, num_rounds=2),
        roles=["green-digger", "saboteur", "blue-digger"],
        hands=[[], ["B02"], []],
        deck=[],
        theft=[0],
        current=1,
    )
    g.apply(Discard(K["B02"]))
    assert g.phase == "theft" and g.current == 0
    g.apply(Steal(1))
    assert g.gold.tolist() == [1, 4, 0]
    assert g.round == 1 and g.current == 2 and g.first_player == 2
    assert g.hands.sum(axis=1).tolist() == [6, 6, 6]
    assert not g.xfront.any()


def test_a_pass_of_several_cards_is_one_turn_on_a_hand_built_position():
    """RULES 6.7 option 4: a pass discards 1-3 cards, one decision each, ending with ``done``;
    only its first decision opens a turn (``Game.opens_turn``), so the turn count and the
    last card's seat move once (RULES 5.4), and the seat then draws as many cards."""
    from saboteur_env import GameConfig, build_state
    from saboteur_env.engine.actions import Discard, EndPass
    from saboteur_env.engine.cards import KIND_INDEX

    config = GameConfig(num_players=3, expansion=True)
    g = build_state(
        config,
        roles=["green-digger", "blue-digger", "saboteur"],
        hands=[["map", "map", "B01"], ["B02"], ["B03"]],
        deck=["B04", "B05", "B06"],
    )
    assert g.opens_turn and g.turn == 0
    g.apply(Discard(KIND_INDEX["map"]))
    assert not g.opens_turn and g.turn == 1 and g.current == 0 and g.last_card_seat == 0
    g.apply(Discard(KIND_INDEX["map"]))
    assert not g.opens_turn and g.turn == 1
    g.apply(EndPass())
    assert g.opens_turn and g.turn == 1 and g.current == 1
    assert g.hand_size(0) == 3 and len(g.deck) == 1  # two drawn for the two discarded
