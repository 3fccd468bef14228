"""Placing path cards (RULES 3.1), connectivity (RULES 4.1) and goal reveals (RULES 4.2) on
hand-built positions, each with the EXACT set of legal moves from :meth:`Codec.mask`.

Shapes are written as in cases/positions/README.md: ``"EW"`` a straight, ``"NE"`` a curve,
``"E/W"`` two unconnected stubs (a dead end), ``"W"`` a single stub.
"""

from __future__ import annotations

import numpy as np
import pytest
from rules_helpers import (
    ALL_SHAPES,
    SHAPE_VARIANT,
    K,
    can,
    codec,
    legal,
    make,
    place,
    placements,
    placements_of,
    row0,
    shape_kind,
    sides_text,
)

from saboteur_env.engine.cards import (
    GOAL_GOLD,
    GOAL_STONE_A,
    GOAL_STONE_B,
    VARIANT_OF,
    VARIANTS,
    placeable_variants,
    rotate,
)
from saboteur_env.engine.state import Discard, IllegalActionError, PlacePath

ALL_PATH_HAND = [
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


def all_shapes_game(cells=(), **kw):
    """A 3-player position where seat 0 holds one card of every tunnel kind."""
    return make(cells, hands=[ALL_PATH_HAND, ["map"], ["map"]], **kw)


def by_shape(game) -> dict[str, set[tuple[int, int]]]:
    out: dict[str, set] = {s: set() for s in ALL_SHAPES}
    for s, x, y in placements(game):
        out[s].add((x, y))
    return out


# --- RULES 0.2 / 3.1.3: rotations ---------------------------------------------------------
def test_only_0_and_180_degree_forms_exist():
    """RULES 0.2, 3.1.3: each base tunnel kind has its 0-degree form and, unless symmetric, the
    180-degree form (N<->S, E<->W); never a 90-degree turn.  26 oriented shapes in all."""
    vs = placeable_variants(False)
    assert len(vs) == 26
    assert sorted(SHAPE_VARIANT) == sorted(ALL_SHAPES)
    for v in vs:
        var = VARIANTS[v]
        base = VARIANTS[VARIANT_OF[(var.kind, False)]]
        expect = tuple(rotate(s) for s in base.segments) if var.rotated else base.segments
        assert var.segments == expect
    # straights: N-S and E-W are different cards, never turned into each other
    assert shape_kind("NS")[0] != shape_kind("EW")[0]
    assert shape_kind("NE")[0] == shape_kind("SW")[0] != shape_kind("NW")[0]


def test_symmetric_card_turned_180_is_not_a_second_action():
    """RULES 0.2 / cases P15: a crossroads turned 180 degrees is the same move: only
    ``rotated=False`` is legal and encodable."""
    g = make(hands=[["B07"], ["map"], ["map"]])
    assert g.check(PlacePath(K("B07"), 1, 0, False)) is None
    assert g.check(PlacePath(K("B07"), 1, 0, True)) is not None
    with pytest.raises(ValueError):
        codec(g).encode(PlacePath(K("B07"), 1, 0, True), 0, 3)


# --- RULES 3.1.2, 3.1.4, 3.1.5 on the empty maze ------------------------------------------
def test_fresh_maze_exact_legal_moves_straight():
    """RULES 3.1.2/3.1.4: only the start's four neighbours touch the maze; a straight E-W fits
    east and west of the start (tunnel meets tunnel), not north/south (its wall would meet the
    start's open N/S edge).  Full legal set = 2 placements + the discard (RULES 3.6)."""
    g = make(hands=[["EW"], ["map"], ["map"]])
    k = K("EW")
    assert set(legal(g)) == {PlacePath(k, 1, 0, False), PlacePath(k, -1, 0, False), Discard(k)}


def test_fresh_maze_exact_legal_moves_curve():
    """RULES 0.2, 3.1.4: a curve N-E fits as NE south and west of the start and, turned
    180 degrees (S-W), north and east of it."""
    g = make(hands=[["NE"], ["map"], ["map"]])
    k = K("NE")
    assert set(legal(g)) == {
        PlacePath(k, 0, 1, False),
        PlacePath(k, -1, 0, False),
        PlacePath(k, 0, -1, True),
        PlacePath(k, 1, 0, True),
        Discard(k),
    }


def test_fresh_maze_all_shapes_exact():
    """RULES 3.1.2 (orthogonal contact only, diagonal cells never), 3.1.4, 3.1.5: on the fresh
    maze each of the 26 shapes is legal exactly on the start's neighbours across which it has
    the facing opening (dead ends included: their stub meets the start's tunnel)."""
    g = all_shapes_game()
    got = by_shape(g)
    expected = {
        "NS": {(0, -1), (0, 1)},
        "EW": {(1, 0), (-1, 0)},
        "NE": {(0, 1), (-1, 0)},
        "SW": {(0, -1), (1, 0)},
        "NW": {(0, 1), (1, 0)},
        "ES": {(0, -1), (-1, 0)},
        "NES": {(0, 1), (-1, 0), (0, -1)},
        "NSW": {(0, 1), (1, 0), (0, -1)},
        "NEW": {(0, 1), (-1, 0), (1, 0)},
        "ESW": {(0, -1), (-1, 0), (1, 0)},
        "NESW": {(0, 1), (0, -1), (1, 0), (-1, 0)},
        "N": {(0, 1)},
        "S": {(0, -1)},
        "E": {(-1, 0)},
        "W": {(1, 0)},
        "N/S": {(0, -1), (0, 1)},
        "E/W": {(1, 0), (-1, 0)},
        "N/E": {(0, 1), (-1, 0)},
        "S/W": {(0, -1), (1, 0)},
        "N/W": {(0, 1), (1, 0)},
        "E/S": {(0, -1), (-1, 0)},
        "N/E/S": {(0, 1), (-1, 0), (0, -1)},
        "N/S/W": {(0, 1), (1, 0), (0, -1)},
        "N/E/W": {(0, 1), (-1, 0), (1, 0)},
        "E/S/W": {(0, -1), (-1, 0), (1, 0)},
        "N/E/S/W": {(0, 1), (0, -1), (1, 0), (-1, 0)},
    }
    assert got == expected
    # diagonal neighbours of the start and cells two away are never offered
    for s in ALL_SHAPES:
        assert not got[s] & {(1, 1), (-1, -1), (1, -1), (-1, 1), (2, 0)}


def test_occupied_cell_never_legal():
    """RULES 3.1.2: the target cell must be empty (start, path cards, goals)."""
    g = all_shapes_game(row0(1, 3))
    taken = {(0, 0), (1, 0), (2, 0), (3, 0), (8, -2), (8, 0), (8, 2)}
    for _, x, y in placements(g):
        assert (x, y) not in taken
    assert g.check(place("EW", 2, 0)) is not None


# --- RULES 3.1.5: connection to the start --------------------------------------------------
def test_dead_end_does_not_carry_connection():
    """RULES 3.1.5 / 4.1 (cases R6): ``E/W`` at (1,0) meets the start with its W stub; a card at
    (2,0) whose only neighbour is the dead end's E stub is not connected: illegal for every
    shape.  The crossroads is legal exactly at (0,-1), (0,1), (-1,0): (1,-1)/(1,1) face the dead
    end's walls (rock-to-rock only) and (2,0) faces a stub."""
    g = all_shapes_game([("E/W", 1, 0)])
    got = by_shape(g)
    for s in ALL_SHAPES:
        assert (2, 0) not in got[s], s
    assert got["NESW"] == {(0, -1), (0, 1), (-1, 0)}
    assert got["EW"] == {(-1, 0)}
    assert got["W"] == set()
    hand1 = make([("E/W", 1, 0)], hands=[["EW"], ["map"], ["map"]])
    assert not can(hand1, place("EW", 2, 0))
    with pytest.raises(IllegalActionError, match="3.1.5"):
        hand1.apply(place("EW", 2, 0))


def test_stub_facing_connected_tunnel_is_legal_but_dead():
    """RULES 3.1.5 (dead ends are legal: their stub faces a connected opening) and 4.1 (nothing
    continues beyond a stub): after ``W`` at (1,0) the cells around it are not connectable."""
    g = make(hands=[["W"], ["map"], ["map"]])
    assert can(g, place("W", 1, 0))
    g.apply(place("W", 1, 0))
    assert g.board.connected_openings(1, 0) == 0
    g2 = all_shapes_game([("W", 1, 0)])
    got = by_shape(g2)
    for s in ALL_SHAPES:
        assert not got[s] & {(2, 0), (1, -1), (1, 1)}, s


def test_rock_to_rock_contact_only_is_illegal():
    """RULES 3.1.5: ``NS`` at (0,1) is connected; a card at (1,1) touches it only where its
    wall meets the straight's E wall: edges match but nothing connects: illegal.  A card that
    meets the start's open E edge with a wall (NS at (1,0)) is illegal by RULES 3.1.4."""
    g = make([("NS", 0, 1)], hands=[["NS", "N/S"], ["map"], ["map"]])
    assert not can(g, place("NS", 1, 1))
    assert not can(g, place("N/S", 1, 1))
    assert not can(g, place("NS", 1, 0))
    assert placements_of(g, "NS") == {(0, -1), (0, 2)}
    assert placements_of(g, "N/S") == {(0, -1), (0, 2)}


def test_edge_matching_all_face_up_neighbours():
    """RULES 3.1.4: every face-up neighbour must match (tunnel meets tunnel, rock meets rock).
    An L of ``NS`` at (0,-1) and ``EW`` at (1,0): cell (1,-1) faces (0,-1)'s E wall and
    (1,0)'s N wall; only cards with neither W nor S opening would match there, and those have
    no opening facing a connected tunnel (RULES 3.1.5)."""
    g = all_shapes_game([("NS", 0, -1), ("EW", 1, 0)])
    got = by_shape(g)
    for s in ALL_SHAPES:
        assert (1, -1) not in got[s]
    # (2,0): W meets the connected E of (1,0); nothing else around
    assert {s for s in ALL_SHAPES if (2, 0) in got[s]} == {s for s in ALL_SHAPES if "W" in s}
    # (0,-2): S meets the connected N of (0,-1)
    assert {s for s in ALL_SHAPES if (0, -2) in got[s]} == {s for s in ALL_SHAPES if "S" in s}
    # (1,1): N faces (1,0)'s S wall, W faces nothing (0,1 empty) -> illegal for all
    for s in ALL_SHAPES:
        assert (1, 1) not in got[s]


def test_card_needs_only_one_connected_opening():
    """RULES 3.1.5: one opening facing a connected tunnel suffices; other openings may face
    unconnected cards as long as edges match.  ``EW`` at (1,0) (connected) and an island
    ``EW`` at (3,0): a crossroads fits at (2,0) (W meets the connected E of (1,0), E meets the
    island's W opening, N and S face empty cells) and connects the island."""
    g = make([("EW", 1, 0), ("EW", 3, 0)], hands=[["NESW", "EW", "NS"], ["map"], ["map"]])
    assert g.board.connected_openings(3, 0) == 0
    assert can(g, place("NESW", 2, 0))
    assert can(g, place("EW", 2, 0))
    assert placements_of(g, "NESW") == {(0, -1), (0, 1), (-1, 0), (2, 0)}
    # the island's far side (4,0) only touches the unconnected island: illegal
    assert placements_of(g, "EW") == {(-1, 0), (2, 0)}
    g.apply(place("EW", 2, 0))
    assert g.board.connected_openings(3, 0) == 0b1010  # E and W now connected


# --- hidden goals --------------------------------------------------------------------------
def row_m1(a: int = 1, b: int = 7):
    """A connected tunnel along y=-1: ``ES`` at (0,-1) (S meets the start), EW on (a..b, -1)."""
    return [("ES", 0, -1)] + [("EW", x, -1) for x in range(a, b + 1)]


def test_hidden_goals_impose_no_edge_matching():
    """RULES 3.1.4 [RULING]: face-down goals impose nothing.  Cell (8,-1) lies between the top
    and middle hidden goals; reached from the connected (7,-1) it takes every shape with a W
    opening, whatever it shows towards the goals (N, S)."""
    g = all_shapes_game(row_m1())
    got = by_shape(g)
    at = {s for s in ALL_SHAPES if (8, -1) in got[s]}
    assert at == {s for s in ALL_SHAPES if "W" in s}
    assert {
        "W",
        "EW",
        "NW",
        "SW",
        "NSW",
        "NEW",
        "ESW",
        "NESW",
        "E/W",
        "N/W",
        "S/W",
        "N/S/W",
        "N/E/W",
        "E/S/W",
        "N/E/S/W",
    } == at


def test_cell_touching_only_hidden_goals_is_illegal():
    """RULES 3.1.2 + 3.1.5: a hidden goal is a card on the table (adjacency), but its tunnels are
    unknown, so a cell touching only hidden goals is never connected (cell (8,-1), (7,0),
    (9,0) on the fresh maze)."""
    g = all_shapes_game()
    got = by_shape(g)
    for s in ALL_SHAPES:
        assert not got[s] & {(8, -1), (8, 1), (7, 0), (9, 0), (8, -3), (8, 3), (7, 2)}


def test_card_next_to_hidden_goal_any_side_towards_it():
    """RULES 3.1.4 [RULING] (hidden goal): at (7,0), reached by row0(1..6), a card may show the
    goal a tunnel or a wall.  NW (wall to the goal) and EW (tunnel to it) both fit."""
    g = make(row0(1, 6), hands=[["NW", "EW", "W"], ["map"], ["map"]])
    assert placements_of(g, "NW") == {(7, 0), (0, 1)}
    assert placements_of(g, "ES") == {(0, -1), (-1, 0)}
    assert placements_of(g, "EW") == {(7, 0), (-1, 0)}
    assert placements_of(g, "W") == {(7, 0)}


# --- RULES 4.2: goal reveal ----------------------------------------------------------------
def test_reveal_gold_ends_round_for_diggers():
    """RULES 4.2, 5.1: EW at (7,0) faces the hidden middle goal (gold) with a connected opening:
    the gold is turned over (public event) and the round ends with the diggers' win."""
    g = make(row0(1, 6), hands=[["EW"], ["map"], ["map"]], goals=(1, GOAL_GOLD, 2))
    ev = g.apply(place("EW", 7, 0))
    rev = [e for e in ev if e.type == "goal_revealed"]
    assert [(e.data["goal"], e.data["identity"], e.visible_to) for e in rev] == [
        (1, GOAL_GOLD, None)
    ]
    assert g.round_results[0].gold_found is True
    assert g.round_results[0].connector == 0


def test_stub_facing_goal_does_not_reveal():
    """RULES 4.2 / 4.1: a goal is reached only by a connected opening; the single stub ``W`` at
    (7,0) faces the start side, and ``E/W`` at (7,0) shows the goal an unconnected stub."""
    for shape in ("E/W", "W", "NW"):
        g = make(row0(1, 6), hands=[[shape], ["map"], ["map"]], goals=(1, GOAL_GOLD, 2))
        ev = g.apply(place(shape, 7, 0))
        assert not [e for e in ev if e.type == "goal_revealed"], shape
        assert not g.board.goal_revealed.any()
        assert not g.round_over and g.round == 0


def test_stone_goal_turned_to_continue_path_round_continues():
    """RULES 4.2: a stone goal is turned face up in place, oriented so its tunnel opens to the
    arriving tunnel, the round continues and the goal becomes part of the maze.  Stone A (NE /
    180: SW) reached from the west lies as SW; stone B (NW / 180: ES) reached from the west
    lies as NW."""
    for ident, shape in ((GOAL_STONE_A, "SW"), (GOAL_STONE_B, "NW")):
        g = make(row0(1, 6), hands=[["EW"], ["map"], ["map"]], goals=(GOAL_GOLD, ident, 3 - ident))
        ev = g.apply(place("EW", 7, 0))
        rev = [e for e in ev if e.type == "goal_revealed"]
        assert len(rev) == 1 and rev[0].data["goal"] == 1 and rev[0].visible_to is None
        v = g.board.variant_at(8, 0)
        assert sides_text(VARIANTS[v].openings) == shape
        assert g.board.goal_revealed.tolist() == [False, True, False]
        assert g.known_goals[:, 1].all()
        assert not g.round_over and g.round == 0
        # the stone's other opening is connected: S for stone A (SW), N for stone B (NW)
        assert sides_text(g.board.connected_openings(8, 0)) == shape


def test_stone_goal_from_north_orientation():
    """RULES 4.2: reached from the north (card at (8,-1) with S opening) stone A must lie NE
    (the only form with N), stone B NW."""
    for ident, shape in ((GOAL_STONE_A, "NE"), (GOAL_STONE_B, "NW")):
        g = make(
            row_m1(),
            hands=[["SW"], ["map"], ["map"]],
            goals=(GOAL_GOLD, ident, 3 - ident),
            revealed=(),
        )
        # top goal is the gold: a SW card at (8,-1) shows N a wall, so only the middle goal
        ev = g.apply(place("SW", 8, -1))
        rev = [(e.data["goal"], e.data["identity"]) for e in ev if e.type == "goal_revealed"]
        assert rev == [(1, ident)]
        assert sides_text(VARIANTS[g.board.variant_at(8, 0)].openings) == shape


def test_one_card_reaches_two_goals():
    """RULES 4.2 [RULING]: ``NSW`` at (8,-1) faces the top and middle hidden goals with
    connected openings: both are turned over in one step; with the gold among them the round
    ends with gold found."""
    g = make(
        row_m1(), hands=[["NSW"], ["map"], ["map"]], goals=(GOAL_STONE_A, GOAL_GOLD, GOAL_STONE_B)
    )
    ev = g.apply(place("NSW", 8, -1))
    rev = sorted((e.data["goal"], e.data["identity"]) for e in ev if e.type == "goal_revealed")
    assert rev == [(0, GOAL_STONE_A), (1, GOAL_GOLD)]
    assert g.round_results[0].gold_found is True
    # two stones: both turned, round goes on
    g = make(
        row_m1(), hands=[["NSW"], ["map"], ["map"]], goals=(GOAL_STONE_A, GOAL_STONE_B, GOAL_GOLD)
    )
    ev = g.apply(place("NSW", 8, -1))
    rev = sorted((e.data["goal"], e.data["identity"]) for e in ev if e.type == "goal_revealed")
    assert rev == [(0, GOAL_STONE_A), (1, GOAL_STONE_B)]
    assert not g.round_over
    # top stone A reached from the south lies SW; middle stone B from the north lies NW
    assert sides_text(VARIANTS[g.board.variant_at(8, -2)].openings) == "SW"
    assert sides_text(VARIANTS[g.board.variant_at(8, 0)].openings) == "NW"


def test_stone_goal_mismatch_tolerated_and_blocks_connection():
    """RULES 4.2 (goal-card exception, cases R1): stone B (NW) reached from the west while a
    card with a wall lies north of it: the goal is turned NW anyway; no connection leaks across
    the mismatched N edge into (8,-1)."""
    cells = [("ES", 0, -1)] + [("EW", x, -1) for x in range(1, 9)] + row0(1, 6)
    g = make(cells, hands=[["EW"], ["map"], ["map"]], goals=(GOAL_STONE_A, GOAL_STONE_B, GOAL_GOLD))
    # (8,-1) EW is connected; it faces the top and middle goals with walls
    assert not g.board.goal_revealed.any()
    ev = g.apply(place("EW", 7, 0))
    assert [
        (e.data["goal"], e.data["identity"], e.data["rotated"])
        for e in ev
        if e.type == "goal_revealed"
    ] == [(1, GOAL_STONE_B, False)]
    assert sides_text(VARIANTS[g.board.variant_at(8, 0)].openings) == "NW"
    assert not g.round_over


def test_stone_goal_reached_from_two_sides_fewest_mismatches():
    """RULES 4.2 orientation ruling: the middle goal, stone A (NE, 180: SW), is reached at once
    from the west ((7,0) EW) and from the south ((8,1) NW, connected along y=1).  NE opens to
    neither, SW to both: it lies SW."""
    cells = [("NE", 0, 1)] + [("EW", x, 1) for x in range(1, 8)] + [("NW", 8, 1)] + row0(1, 6)
    g = make(cells, hands=[["EW"], ["map"], ["map"]], goals=(GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B))
    # (8,1) NW faces the middle goal with a connected N opening, but build_state does not
    # reveal; the next placement reveals every reached goal (RULES 4.2: checked after every
    # path placement)
    assert g.board.connected_openings(8, 1) == 0b1001
    ev = g.apply(place("EW", 7, 0))
    rev = [(e.data["goal"], e.data["rotated"]) for e in ev if e.type == "goal_revealed"]
    # both (8,1)'s N and (7,0)'s E reach slot 1; stone A SW opens to both S and W: 0 mismatches
    assert rev == [(1, True)]
    assert sides_text(VARIANTS[g.board.variant_at(8, 0)].openings) == "SW"


def test_stone_goal_two_sides_tie_break():
    """RULES 4.2 orientation ruling: stone B reached from W (needs NW) and from S (needs ES):
    NW mismatches the S neighbour's N opening, ES mismatches the W neighbour's E opening: one
    mismatch each -> 0 degrees (NW)."""
    cells = [("NE", 0, 1)] + [("EW", x, 1) for x in range(1, 8)] + [("NW", 8, 1)] + row0(1, 6)
    g = make(cells, hands=[["EW"], ["map"], ["map"]], goals=(GOAL_GOLD, GOAL_STONE_B, GOAL_STONE_A))
    ev = g.apply(place("EW", 7, 0))
    rev = [(e.data["goal"], e.data["rotated"]) for e in ev if e.type == "goal_revealed"]
    assert rev == [(1, False)]
    assert sides_text(VARIANTS[g.board.variant_at(8, 0)].openings) == "NW"


def test_revealed_stone_goal_imposes_matching_and_carries_connection():
    """RULES 4.2 (a revealed stone is an ordinary part of the maze), 3.1.4/3.1.5: stone B lying
    NW at (8,0), reached from row0: (8,-1) must show S a tunnel (N opening of the stone), and
    is connected through it; (9,0) faces the stone's E wall and nothing else: illegal;
    (8,1) faces the stone's S wall: illegal."""
    g = all_shapes_game(
        row0(1, 7), goals=(GOAL_GOLD, GOAL_STONE_B, GOAL_STONE_A), revealed=[(1, False)]
    )
    assert sides_text(g.board.connected_openings(8, 0)) == "NW"
    got = by_shape(g)
    assert {s for s in ALL_SHAPES if (8, -1) in got[s]} == {s for s in ALL_SHAPES if "S" in s}
    for s in ALL_SHAPES:
        assert (9, 0) not in got[s] and (8, 1) not in got[s]


def test_non_local_reveal_when_island_reconnects():
    """RULES 4.2 (checked after every placement, for every hidden goal): an island ``EW`` row
    (2..7, 0) already faces the gold; placing the missing (1,0) connects it and reveals the
    gold although the card is far from the goal."""
    g = make(row0(2, 7), hands=[["EW"], ["map"], ["map"]], goals=(1, GOAL_GOLD, 2))
    assert g.board.connected_openings(7, 0) == 0
    ev = g.apply(place("EW", 1, 0))
    assert [(e.data["goal"], e.data["identity"]) for e in ev if e.type == "goal_revealed"] == [
        (1, GOAL_GOLD)
    ]
    assert g.round_results[0].gold_found


def test_gold_reached_through_a_stone_goal():
    """RULES 4.2 [RULING]: stone B revealed NW at (8,0), reached along row0; a card at (8,-1)
    with S and N openings is connected through the stone's N opening and reaches the gold at
    (8,-2): gold found (a path through a stone goal counts)."""
    g = make(
        row0(1, 7),
        hands=[["NS"], ["map"], ["map"]],
        goals=(GOAL_GOLD, GOAL_STONE_B, GOAL_STONE_A),
        revealed=[(1, False)],
    )
    assert can(g, place("NS", 8, -1))
    ev = g.apply(place("NS", 8, -1))
    assert [(e.data["goal"], e.data["identity"]) for e in ev if e.type == "goal_revealed"] == [
        (0, GOAL_GOLD)
    ]
    assert g.round_results[0].gold_found


# --- RULES 3.1.1 / 3.2: broken tools block placement ----------------------------------------
@pytest.mark.parametrize("tool", ["pick", "lantern", "cart"])
def test_broken_tool_blocks_every_placement(tool):
    """RULES 3.1.1, 3.2: any one broken tool forbids path placement; action cards and the
    discard remain legal."""
    g = make(hands=[["EW", "NESW", "map", "break_cart"], ["map"], ["map"]], broken=[[tool], [], []])
    acts = set(legal(g))
    assert not [a for a in acts if isinstance(a, PlacePath)]
    assert {
        Discard(K("EW")),
        Discard(K("NESW")),
        Discard(K("map")),
        Discard(K("break_cart")),
    } <= acts
    assert any(not isinstance(a, (PlacePath, Discard)) for a in acts)
    with pytest.raises(IllegalActionError, match="3.1.1"):
        g.apply(place("EW", 1, 0))


def test_placement_apply_updates_state():
    """RULES 3 (turn: play one card, then draw the top card, 3.7): the card leaves the hand,
    lies in the maze, the player draws the deck's top card; public event ``path_placed``,
    private ``card_drawn``."""
    g = make(hands=[["EW"], ["map"], ["map"]], deck=["B07", "map"])
    ev = g.apply(place("EW", 1, 0))
    assert g.hands[0, K("EW")] == 0 and g.hands[0, K("B07")] == 1
    assert g.deck.tolist() == [K("map")]
    assert VARIANTS[g.board.variant_at(1, 0)].kind == K("EW")
    assert [(e.type, e.visible_to) for e in ev] == [("path_placed", None), ("card_drawn", 0)]
    assert g.current == 1
    assert g.cards_accounted() == 67


def test_mask_agrees_with_check_on_built_positions():
    """RULES 3.1: the codec's array mask equals :meth:`Game.check` over every action of the
    action space on a few built positions (the mask's internal consistency)."""
    positions = [
        all_shapes_game(),
        all_shapes_game([("E/W", 1, 0), ("NS", 0, 1), ("EW", 3, 0)]),
        all_shapes_game(
            row0(1, 7), goals=(GOAL_GOLD, GOAL_STONE_B, GOAL_STONE_A), revealed=[(1, False)]
        ),
    ]
    for g in positions:
        c = codec(g)
        m = c.mask(g)
        for i in range(c.n):
            try:
                a = c.decode(i, g.current, g.n)
            except ValueError:
                assert m[i] == 0
                continue
            assert bool(m[i]) == (g.check(a) is None), a
        assert np.array_equal(
            np.sort([c.encode(a, g.current, g.n) for a in g.legal_actions()]), np.nonzero(m)[0]
        )
