"""The base-game rule cases of ``cases/cases.md`` (group R) as tests with their exact expected
values: R1, R3, R4, R5, R6, R8, R9, R10, R11, R13, R15, R26.  (R18-R25 concern the Saboteur 2
expansion: they are tests in tests/test_expansion_rules.py.)

Scenario notation as in cases.md: ``row0(a..b)`` = ``EW`` straights on (a..b, 0); ``D[E|W]`` =
the ``E/W`` dead end.  ``row0`` needs more straights than the deck's three (RULES 1.1): the
surplus goes onto the board through the looser path of ``rules_helpers.make``.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
from rules_helpers import (
    ALL_SHAPES,
    K,
    break_targets,
    can,
    codec,
    legal,
    make,
    map_targets,
    place,
    placements,
    placements_of,
    repair_targets,
    rockfall_targets,
    row0,
    sides_text,
)

from saboteur_env.engine.cards import (
    CART,
    GOAL_GOLD,
    GOAL_STONE_A,
    GOAL_STONE_B,
    LANTERN,
    PICK,
    VARIANTS,
)
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import BreakTool, Discard, Map, PlacePath, Repair, Rockfall

D, S = "gold-digger", "saboteur"
PATH_HAND = [
    "B01",
    "B02",
    "B03",
    "B04",
    "B05",
    "B06",
    "B07",
    "B08",
    "B09",
    "B10",
    "B11",
    "B12",
    "B13",
    "B14",
    "B15",
    "B16",
]


def shapes_at(game, x, y) -> set[str]:
    return {s for s, xx, yy in placements(game) if (xx, yy) == (x, y)}


# --- R1 ------------------------------------------------------------------------------------
def r1_cells(connected_row_m1: bool = True):
    top = [("ES", 0, -1)] if connected_row_m1 else []
    return top + [("EW", x, -1) for x in range(1, 9)] + row0(1, 6)


def test_r1_stone_goal_that_cannot_fit_all_neighbours():
    """Case R1, RULES 4.2 (goal-card exception): G_M = stone bend W-N; (8,-1) shows it a wall.
    X[E,W] at (7,0) is legal, reveals G_M publicly as stone oriented W-N despite the N
    mismatch, the round continues, no exception."""
    g = make(
        r1_cells(),
        roles=[D, S, D],
        hands=[["EW"], ["map"], ["map"]],
        goals=(GOAL_GOLD, GOAL_STONE_B, GOAL_STONE_A),
        deck=["map"],
    )
    assert can(g, place("EW", 7, 0))
    ev = g.apply(place("EW", 7, 0))
    rev = [e for e in ev if e.type == "goal_revealed"]
    assert len(rev) == 1
    assert rev[0].visible_to is None
    assert rev[0].data == {"goal": 1, "x": 8, "y": 0, "identity": GOAL_STONE_B, "rotated": False}
    assert sides_text(VARIANTS[g.board.variant_at(8, 0)].openings) == "NW"
    assert g.board.goal_revealed.tolist() == [False, True, False]
    assert g.known_goals[:, 1].all() and not g.known_goals[:, 0].any()
    assert not g.round_over and g.round == 0 and g.current == 1


def test_r1_no_connectivity_leak_through_mismatched_side():
    """Case R1, RULES 4.1: with the row y=-1 NOT connected to the start, revealing G_M (W-N)
    does not connect (8,-1) through the stone's N opening (the wall at (8,-1) S blocks it):
    (8,-1) stays unconnected and nothing can be built on the island."""
    g = make(
        r1_cells(connected_row_m1=False),
        roles=[D, S, D],
        hands=[["EW"], PATH_HAND, ["map"]],
        goals=(GOAL_GOLD, GOAL_STONE_B, GOAL_STONE_A),
    )
    g.apply(place("EW", 7, 0))
    assert g.board.goal_revealed[1]
    assert sides_text(g.board.connected_openings(8, 0)) == "NW"
    for x in range(1, 9):
        assert g.board.connected_openings(x, -1) == 0
    cells = {(x, y) for _, x, y in placements(g)}
    assert not cells & ({(9, -1), (9, 0), (8, 1)} | {(x, -2) for x in range(1, 9)})


# --- R3 ------------------------------------------------------------------------------------
def test_r3_tunnel_continues_through_revealed_stone():
    """Case R3, RULES 4.2: G_M revealed stone W-N reached from row0(1..7); X[N,S] at (8,-1)
    is legal (connected through G_M's tunnel) and reveals G_T in the same step.  At (8,-1)
    exactly the shapes with an S opening fit (G_M is an ordinary connected card); nothing fits
    at (9,0) (the stone's E side is closed) or (8,1) (its S side is closed)."""
    g = make(
        row0(1, 7),
        roles=[D, S, D],
        hands=[PATH_HAND, ["map"], ["map"]],
        goals=(GOAL_STONE_A, GOAL_STONE_B, GOAL_GOLD),
        revealed=[(1, False)],
    )
    assert shapes_at(g, 8, -1) == {s for s in ALL_SHAPES if "S" in s}
    assert shapes_at(g, 9, 0) == set() and shapes_at(g, 8, 1) == set()
    ev = g.apply(place("NS", 8, -1))
    rev = [e.data for e in ev if e.type == "goal_revealed"]
    # G_T = stone A, reached from the south: lies S-W (180 degrees)
    assert rev == [{"goal": 0, "x": 8, "y": -2, "identity": GOAL_STONE_A, "rotated": True}]
    assert sides_text(VARIANTS[g.board.variant_at(8, -2)].openings) == "SW"
    assert not g.round_over
    # with the gold at G_T the same move finds the gold
    g = make(
        row0(1, 7),
        roles=[D, S, D],
        hands=[["NS"], ["map"], ["map"]],
        goals=(GOAL_GOLD, GOAL_STONE_B, GOAL_STONE_A),
        revealed=[(1, False)],
    )
    g.apply(place("NS", 8, -1))
    assert g.round_results[0].gold_found is True


def test_r3_east_of_stone_only_if_connected_otherwise():
    """Case R3, RULES 3.1.4/3.1.5/4.2: G_M revealed as stone A lying S-W, reached from
    row0(1..7); ``NE`` at (8,1) is connected through the stone's S opening.  (9,0) (facing the
    stone's closed E side) stays illegal while (9,1) is empty; once ``NW`` at (9,1) offers a
    connected N opening, (9,0) takes exactly the shapes with S and without W (a wall against
    the stone's E side)."""
    goals = (GOAL_STONE_B, GOAL_STONE_A, GOAL_GOLD)
    g = make(
        row0(1, 7) + [("NE", 8, 1)],
        roles=[D, S, D],
        hands=[PATH_HAND, ["map"], ["map"]],
        goals=goals,
        revealed=[(1, True)],
    )
    assert sides_text(g.board.connected_openings(8, 0)) == "SW"
    assert sides_text(g.board.connected_openings(8, 1)) == "NE"
    assert shapes_at(g, 9, 0) == set()
    assert shapes_at(g, 9, 1) == {s for s in ALL_SHAPES if "W" in s}
    g = make(
        row0(1, 7) + [("NE", 8, 1), ("NW", 9, 1)],
        roles=[D, S, D],
        hands=[PATH_HAND, ["map"], ["map"]],
        goals=goals,
        revealed=[(1, True)],
    )
    assert shapes_at(g, 9, 0) == {s for s in ALL_SHAPES if "S" in s and "W" not in s}


# --- R4 ------------------------------------------------------------------------------------
def test_r4_rockfall_disconnects_downstream_cards():
    """Case R4, RULES 3.4/3.1.5: row0(1..5); Rockfall on (3,0): (3,0) empty; (4,0), (5,0) stay
    on the board, disconnected; every placement at (6,0) is masked; X[E,W] at (3,0) is legal
    and reconnects the island; then (6,0) is legal again.  A revealed goal stays revealed."""
    g = make(
        row0(1, 5),
        roles=[D, S, D],
        hands=[["rockfall"], PATH_HAND, PATH_HAND],
        goals=(GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B),
        revealed=[(2, False)],
        deck=[],
    )
    g.apply(Rockfall(3, 0))
    b = g.board
    assert b.variant_at(3, 0) == -1
    assert b.variant_at(4, 0) >= 0 and b.variant_at(5, 0) >= 0
    assert b.connected_openings(4, 0) == 0 and b.connected_openings(5, 0) == 0
    assert b.goal_revealed.tolist() == [False, False, True]
    # seat 1 to move: nothing at (6,0); (3,0) takes cards with a W opening and, because (4,0)
    # shows it a tunnel, an E opening
    assert g.current == 1
    assert shapes_at(g, 6, 0) == set()
    assert shapes_at(g, 3, 0) == {s for s in ALL_SHAPES if "E" in s and "W" in s}
    c = codec(g)
    m = c.mask(g)
    for s in ALL_SHAPES:
        a = place(s, 6, 0)
        assert m[c.encode(a, 1, 3)] == 0
    g.apply(place("EW", 3, 0))
    assert b is g.board and b.connected_openings(5, 0) == 0b1010
    assert shapes_at(g, 6, 0) == {s for s in ALL_SHAPES if "W" in s}
    assert b.goal_revealed.tolist() == [False, False, True]


# --- R5 ------------------------------------------------------------------------------------
def test_r5a_fresh_round_no_rockfall_target():
    """Case R5 (a), RULES 3.4 [RULING]: at the start of a round nothing can be removed: every
    rockfall action is masked; discarding the rockfall is legal.  Checked on a hand-built
    hand and on real deals where seat 0 holds a rockfall."""
    g = make(
        roles=[D, S, D],
        hands=[["rockfall", "EW", "NS", "map", "break_pick", "B07"], ["map"], ["map"]],
    )
    c = codec(g)
    off, size = c.blocks["rockfall"]
    m = c.mask(g)
    assert m[off : off + size].sum() == 0
    assert m[c.encode(Discard(K("rockfall")), 0, 3)] == 1
    from saboteur_env.engine.state import Game

    found = 0
    for seed in range(40):
        gg = Game(GameConfig(num_players=5), seed=seed)
        if gg.hands[gg.current, K("rockfall")]:
            found += 1
            cc = codec(gg)
            mm = cc.mask(gg)
            o, sz = cc.blocks["rockfall"]
            assert mm[o : o + sz].sum() == 0
            assert mm[cc.encode(Discard(K("rockfall")), gg.current, 5)] == 1
    assert found > 0


def test_r5b_exactly_two_targets():
    """Case R5 (b), RULES 3.4: X[E,W] at (1,0) and D[W] at (2,0): exactly two rockfall
    targets, (1,0) and (2,0); the dead end is a target too."""
    g = make([("EW", 1, 0), ("W", 2, 0)], hands=[["rockfall"], ["map"], ["map"]])
    assert rockfall_targets(g) == {(1, 0), (2, 0)}
    assert set(legal(g)) == {Rockfall(1, 0), Rockfall(2, 0), Discard(K("rockfall"))}


def test_r5c_never_start_or_goal():
    """Case R5 (c), RULES 3.4: with G_M revealed as stone, no rockfall action targets (0,0) or
    any goal cell, revealed or not."""
    g = make(
        row0(1, 7),
        hands=[["rockfall"], ["map"], ["map"]],
        goals=(GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B),
        revealed=[(1, True)],
    )
    t = rockfall_targets(g)
    assert t == {(x, 0) for x in range(1, 8)}
    for cell in ((0, 0), (8, -2), (8, 0), (8, 2)):
        assert not can(g, Rockfall(*cell))


# --- R6 ------------------------------------------------------------------------------------
def test_r6_dead_end_air_pocket_illegal():
    """Case R6, RULES 3.1.5: D[E|W] at (1,0) (W stub meets the start); X[E,W] at (2,0) (its W
    meets the dead end's E stub, no other neighbour) is illegal: mask 0."""
    g = make([("E/W", 1, 0)], hands=[["EW"], ["map"], ["map"]])
    c = codec(g)
    assert c.mask(g)[c.encode(place("EW", 2, 0), 0, 3)] == 0
    assert g.check(place("EW", 2, 0)) is not None
    assert placements_of(g, "EW") == {(-1, 0)}


def test_r6_walls_only_and_wall_against_open_start():
    """Case R6, RULES 3.1.4/3.1.5: a card whose facing edges all match but which touches only
    walls is illegal (NS at (1,1) beside the NS at (0,1)); a card that shows the start's open
    E edge a wall is illegal (NS at (1,0))."""
    g = make([("NS", 0, 1)], hands=[["NS"], ["map"], ["map"]])
    assert not can(g, place("NS", 1, 1))
    assert not can(g, place("NS", 1, 0))
    assert placements_of(g, "NS") == {(0, -1), (0, 2)}


def test_r6_no_loose_placement_option():
    """Case R6: a "loose placement" variant would have to be an explicit option, off by
    default; the engine offers none (RULES 10 lists no such option)."""
    names = {f.name for f in fields(GameConfig)}
    assert not any("loose" in n or "pocket" in n for n in names)


# --- R8 ------------------------------------------------------------------------------------
def test_r8_map_on_revealed_goal_masked():
    """Case R8, RULES 3.5 [RULING]: G_M revealed stone, G_T/G_B hidden: map actions on G_M are
    masked, on G_T and G_B legal; playing a map changes nothing on the board, the result is
    only in P's own (private) events, the map card goes to the discard pile."""
    g = make(
        row0(1, 7),
        roles=[D, S, D],
        hands=[["map"], ["map"], ["map"]],
        goals=(GOAL_STONE_A, GOAL_STONE_B, GOAL_GOLD),
        revealed=[(1, False)],
        deck=[],
    )
    c = codec(g)
    m = c.mask(g)
    off = c.blocks["map"][0]
    assert m[off : off + 3].tolist() == [1, 0, 1]
    assert map_targets(g) == {0, 2}
    var0, d0 = g.board.var.copy(), g.discards.copy()
    ev = g.apply(Map(0))
    assert (g.board.var == var0).all() and g.board.goal_revealed.tolist() == [False, True, False]
    assert (g.discards - d0).tolist() == [1 if k == K("map") else 0 for k in range(27)]
    private = [e for e in ev if e.visible_to is not None]
    public = [e for e in ev if e.visible_to is None]
    assert [(e.type, e.visible_to, e.data) for e in private] == [
        ("map_result", 0, {"goal": 0, "identity": GOAL_STONE_A})
    ]
    assert [(e.type, e.data) for e in public] == [("map_played", {"goal": 0})]
    assert g.known_goals.tolist() == [
        [True, True, False],
        [False, True, False],
        [False, True, False],
    ]


# --- R9 ------------------------------------------------------------------------------------
def test_r9_broken_tool_on_already_broken():
    """Case R9, RULES 3.2: B (seat 1) has a broken pickaxe, C (seat 2) none; A holds Broken
    Pickaxe and Broken Lantern: pick->B = 0, lantern->B = 1, pick->C = 1.  B cannot place path
    cards but may play actions or discard."""
    g = make(
        roles=[D, S, D],
        hands=[["break_pick", "break_lantern"], ["EW", "map"], ["map"]],
        broken=[[], ["pick"], []],
    )
    c = codec(g)
    m = c.mask(g)
    assert m[c.encode(BreakTool(K("break_pick"), 1), 0, 3)] == 0
    assert m[c.encode(BreakTool(K("break_lantern"), 1), 0, 3)] == 1
    assert m[c.encode(BreakTool(K("break_pick"), 2), 0, 3)] == 1
    assert break_targets(g, "break_pick") == {0, 2}
    assert break_targets(g, "break_lantern") == {0, 1, 2}
    g.apply(BreakTool(K("break_lantern"), 2))
    assert g.current == 1
    assert set(legal(g)) == {Discard(K("EW")), Discard(K("map")), Map(0), Map(1), Map(2)}


# --- R10 -----------------------------------------------------------------------------------
def test_r10_repair_legality():
    """Case R10, RULES 3.3: A (seat 0) has a broken lantern, B none; A holds Repair Lantern and
    Repair Pickaxe: repair lantern -> A legal and removes it (both cards discarded); repair
    lantern -> B masked; repair pickaxe -> anyone masked (no broken pickaxe anywhere)."""
    g = make(
        roles=[D, S, D],
        hands=[["repair_lantern", "repair_pick"], ["map"], ["map"]],
        broken=[["lantern"], [], []],
        deck=[],
    )
    c = codec(g)
    m = c.mask(g)
    assert m[c.encode(Repair(K("repair_lantern"), LANTERN, 0), 0, 3)] == 1
    assert m[c.encode(Repair(K("repair_lantern"), LANTERN, 1), 0, 3)] == 0
    for t in range(3):
        assert m[c.encode(Repair(K("repair_pick"), PICK, t), 0, 3)] == 0
    assert repair_targets(g, "repair_lantern") == {(LANTERN, 0)}
    assert repair_targets(g, "repair_pick") == set()
    d0 = g.discards.copy()
    g.apply(Repair(K("repair_lantern"), LANTERN, 0))
    assert not g.broken.any()
    diff = g.discards - d0
    assert diff[K("repair_lantern")] == 1 and diff[K("break_lantern")] == 1 and diff.sum() == 2


# --- R11 -----------------------------------------------------------------------------------
def test_r11_double_repair_fixes_one():
    """Case R11, RULES 3.3: B has a broken lantern and pickaxe; A holds Repair Lantern/Pickaxe:
    (B, lantern) = 1, (B, pickaxe) = 1, (B, cart) = 0 (not even an action of this card).  After
    A repairs the lantern, B still has the broken pickaxe and cannot place path cards."""
    g = make(
        roles=[D, S, D],
        hands=[["repair_pick_lantern"], ["EW", "NS"], ["map"]],
        broken=[[], ["lantern", "pick"], []],
    )
    c = codec(g)
    m = c.mask(g)
    k = K("repair_pick_lantern")
    assert m[c.encode(Repair(k, LANTERN, 1), 0, 3)] == 1
    assert m[c.encode(Repair(k, PICK, 1), 0, 3)] == 1
    with pytest.raises(ValueError):
        c.encode(Repair(k, CART, 1), 0, 3)
    assert g.check(Repair(k, CART, 1)) is not None
    assert repair_targets(g, "repair_pick_lantern") == {(LANTERN, 1), (PICK, 1)}
    g.apply(Repair(k, LANTERN, 1))
    assert g.broken[1].tolist() == [True, False, False]
    assert g.current == 1
    assert not [a for a in legal(g) if isinstance(a, PlacePath)]


# --- R13 -----------------------------------------------------------------------------------
def enclosed_start():
    """Every opening of the start is met by a stub: no connected opening is left anywhere."""
    return [("W", 1, 0), ("E/W", -1, 0), ("N", 0, 1), ("N/S", 0, -1)]


def run_discards_only(g, turns_expected):
    turns = 0
    while g.round == 0 and not g.game_over:
        acts = legal(g)
        assert acts and all(isinstance(a, Discard) for a in acts), acts
        g.apply(acts[0])
        turns += 1
    assert turns == turns_expected
    return g.round_results[0]


def test_r13_deck_exhausted_only_discards():
    """Case R13, RULES 3.6/3.7/5.1 (reading (a): discarding is always a legal play): draw pile
    empty, 3 players with 2 cards each, every path card without a legal position and every
    broken-tool card without a legal target: only discards are legal; the round lasts exactly
    6 more turns and ends with the saboteurs' win.

    Every player already has a broken cart, so the broken-cart cards in hand have no target;
    that needs 6 broken carts (the deck has 3): the surplus goes through the looser path."""
    g = make(
        enclosed_start(),
        roles=[D, S, D],
        hands=[["EW", "break_cart"], ["NESW", "break_cart"], ["break_cart", "NS"]],
        broken=[["cart"], ["cart"], ["cart"]],
        deck=[],
    )
    res = run_discards_only(g, 6)
    assert res.gold_found is False and res.winning_side == "saboteur"
    assert res.winners == [1] and res.turns == 6


def test_r13_deck_consistent_variant():
    """Case R13 with deck-consistent cards: the start enclosed by stubs, no broken tools, each
    player holds two path cards: only discards, 6 turns, saboteurs' win."""
    g = make(
        enclosed_start(),
        roles=[D, S, S],
        hands=[["EW", "NS"], ["NESW", "B05"], ["B03", "B06"]],
        deck=[],
    )
    assert not placements(g)
    res = run_discards_only(g, 6)
    assert res.winners == [1, 2]


# --- R15 -----------------------------------------------------------------------------------
def end_by_discard(roles, last, nuggets):
    n = len(roles)
    hands = [[] for _ in range(n)]
    hands[last] = ["map"]
    g = make(roles=roles, hands=hands, current=last, nuggets=nuggets, deck=[])
    g.apply(Discard(K("map")))
    return g


def test_r15_short_nugget_deck():
    """Case R15, RULES 5.3 [RULING]: 2 saboteurs, supply [2,2,1]: no crash, nothing negative
    or duplicated, total paid <= available; first saboteur in seat order from the last player
    gets 2+1, the second gets 2."""
    g = end_by_discard([S, D, S, D, D], 4, [2, 2, 1])
    res = g.round_results[0]
    assert res.received == [3, 0, 2, 0, 0]
    assert g.gold_cards.tolist() == [[1, 1, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 0]]
    assert len(g.nuggets) == 0 and (g.gold >= 0).all()


@pytest.mark.parametrize("k,each", [(1, 4), (2, 3), (3, 3), (4, 2)])
def test_r15_full_deck_payouts(k, each):
    """Case R15, RULES 5.3: payouts 4 / 3 / 3 / 2 per saboteur for 1 / 2 / 3 / 4 saboteurs."""
    n = 10
    roles = [S] * k + [D] * (n - k)
    g = end_by_discard(roles, n - 1, [1] * 16 + [2] * 8 + [3] * 4)
    assert g.round_results[0].received == [each] * k + [0] * (n - k)


# --- R26 -----------------------------------------------------------------------------------
def round3_gold(roles=(D, S, D)):
    return make(
        row0(1, 6),
        roles=list(roles),
        hands=[["EW"], ["map"], ["map"]],
        goals=(GOAL_STONE_A, GOAL_GOLD, GOAL_STONE_B),
        round=2,
        gold=[2, 3, 4],
        nuggets=[3, 2, 1, 1],
    )


def round3_saboteurs(roles=(D, S, D)):
    return make(
        roles=list(roles),
        hands=[["map"], [], []],
        round=2,
        gold=[2, 3, 4],
        nuggets=[3, 2, 1, 1],
        deck=[],
    )


def test_r26_round_three_ends_the_game_engine():
    """Case R26, RULES 5.5: jumping to round index 2, (a) a diggers' win and (b) a saboteurs'
    win both end the game right after round-3 scoring: no fourth deal, totals persist."""
    g = round3_gold()
    ev = g.apply(place("EW", 7, 0))
    # diggers 0 and 2, counter-clockwise from 0: 0, 2 -> cards [3,2,1] -> 0: 3+1, 2: 2
    assert g.round_results[-1].received == [4, 0, 2]
    assert g.gold.tolist() == [6, 3, 6] and g.game_over and g.round == 2
    assert not [e for e in ev if e.type == "round_start"]
    assert g.winners() == [0, 2]
    g = round3_saboteurs()
    ev = g.apply(Discard(K("map")))
    assert g.round_results[-1].received == [0, 4, 0]  # 3 + 1
    assert g.gold.tolist() == [2, 7, 4] and g.game_over and g.round == 2
    assert not [e for e in ev if e.type == "round_start"]
    assert g.winners() == [1]


@pytest.mark.parametrize("which", ["gold", "saboteurs"])
def test_r26_all_agents_terminate_after_round_three_env(which):
    """Case R26 / RULES 5.5 through the AEC env: after the final round every agent terminates,
    is stepped with None once and removed; no fourth deal."""
    from saboteur_env.aec import raw_env

    env = raw_env(num_players=3)
    env.reset(seed=0)
    g = round3_gold() if which == "gold" else round3_saboteurs()
    env.load(g)
    obs = env.observe(env.agent_selection)
    mask = obs["action_mask"]
    a = place("EW", 7, 0) if which == "gold" else Discard(K("map"))
    idx = env.codec.encode(a, g.current, 3)
    assert mask[idx] == 1
    env.step(idx)
    assert all(env.terminations.values())
    steps = 0
    for _agent in env.agent_iter(max_iter=20):
        _, _, term, trunc, _ = env.last()
        assert term
        env.step(None)
        steps += 1
    assert steps == 3 and env.agents == []
    assert g.round == 2 and sum(1 for e in g.events if e.type == "round_start") == 0


def test_r26_full_games_three_rounds_both_outcomes():
    """Case R26, RULES 5.4/5.5: full seeded games: exactly 3 round results, no fourth deal;
    between rounds the board, hands and tools are reset and the gold kept; round 3 ends with
    gold found in some games and with the saboteurs' win in others."""
    outcomes = set()
    for seed in range(16):
        from saboteur_env.engine.state import Game

        g = Game(GameConfig(num_players=3 + seed % 4), seed=seed)
        c = codec(g)
        rng = np.random.default_rng(seed)
        prev_round, gold_before = 0, g.gold.copy()
        while not g.game_over:
            m = c.mask(g)
            idx = np.nonzero(m)[0]
            pe = c.blocks["place"][0] + c.blocks["place"][1]
            places = idx[idx < pe]
            if len(places) and rng.random() < 0.9:
                xs = (places - c.blocks["place"][0]) % c.n_cells % c.width
                idx = places[xs == xs.max()]
            g.apply(c.decode(int(rng.choice(idx)), g.current, g.n))
            if g.round != prev_round:
                res = g.round_results[prev_round]
                assert (g.gold == gold_before + np.array(res.received)).all()
                gold_before = g.gold.copy()
                prev_round = g.round
                assert not g.broken.any() and len(g.board.cards()) == 4
                assert g.hands.sum() == g.n * {3: 6, 4: 6, 5: 6, 6: 5}[g.n]
        res = g.round_results
        assert len(res) == 3 and g.round == 2
        assert (g.gold == gold_before + np.array(res[2].received)).all()
        assert sum(1 for e in g.events if e.type == "round_start") == 3
        outcomes.add(res[2].gold_found)
    assert outcomes == {True, False}


def test_r18_to_r25_expansion_cases_exist():
    """Cases R18-R25 concern Saboteur 2 (RULES 6): they are tests in
    tests/test_expansion_rules.py (R18 ladders, R19 bridge, R20 geologists, R22 theft, R24 swap
    hands, R25 boss/profiteer shares and both doors); the config accepts ``expansion=True``."""
    import test_expansion_rules as x

    assert GameConfig(expansion=True).max_players == 12
    for name in (
        "test_ladder_placement_rule",
        "test_ladder_reconnects_island",
        "test_ladder_reveals_goal_far_away",
        "test_bridge_only_one_segment_connected",
        "test_geologists_count_every_visible_crystal",
        "test_theft_order_hands_off_and_victims",
        "test_swap_hand_full_and_empty_pile",
        "test_case_r25_shares",
        "test_both_doors_rule_options",
    ):
        assert callable(getattr(x, name))
