"""Action cards and passing (RULES 3.2-3.7, 5.1) on hand-built positions, with the EXACT legal
sets from :meth:`Codec.mask`, the effects of ``apply`` and who sees which event."""

from __future__ import annotations

import pytest
from rules_helpers import (
    K,
    break_targets,
    can,
    codec,
    legal,
    make,
    map_targets,
    place,
    placements_of,
    repair_targets,
    rockfall_targets,
    row0,
)

from saboteur_env.engine.cards import CART, GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B, LANTERN, PICK
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import (
    BreakTool,
    Discard,
    IllegalActionError,
    Map,
    PlacePath,
    Repair,
    Rockfall,
)

G3 = ["gold-digger", "saboteur", "gold-digger"]


# --- RULES 3.2 broken tools ----------------------------------------------------------------
def test_break_targets_exact_including_self():
    """RULES 3.2: a broken tool may go in front of any player (self included, the default
    ``self_sabotage=True``) who does not already have that tool broken; at most one of each."""
    g = make(
        roles=G3,
        hands=[["break_pick", "break_lantern", "break_cart"], ["map"], ["map"]],
        broken=[[], ["pick"], ["pick", "cart"]],
    )
    assert break_targets(g, "break_pick") == {0}
    assert break_targets(g, "break_lantern") == {0, 1, 2}
    assert break_targets(g, "break_cart") == {0, 1}
    assert set(legal(g)) == {
        BreakTool(K("break_pick"), 0),
        BreakTool(K("break_lantern"), 0),
        BreakTool(K("break_lantern"), 1),
        BreakTool(K("break_lantern"), 2),
        BreakTool(K("break_cart"), 0),
        BreakTool(K("break_cart"), 1),
        Discard(K("break_pick")),
        Discard(K("break_lantern")),
        Discard(K("break_cart")),
    }


def test_duplicate_broken_tool_illegal():
    """RULES 3.2 (cases R9): a player who already has a broken pick cannot get a second."""
    g = make(roles=G3, hands=[["break_pick"], ["map"], ["map"]], broken=[[], ["pick"], []])
    assert not can(g, BreakTool(K("break_pick"), 1))
    with pytest.raises(IllegalActionError, match="3.2"):
        g.apply(BreakTool(K("break_pick"), 1))
    assert g.broken[1].tolist() == [True, False, False]


def test_self_sabotage_false_option():
    """RULES 3.2, 10 (``self_sabotage=False``, BGA): a broken tool never targets oneself;
    repairs on oneself stay legal (RULES 3.3)."""
    cfg = GameConfig(num_players=3, self_sabotage=False)
    g = make(
        roles=G3,
        hands=[["break_pick", "repair_cart"], ["map"], ["map"]],
        config=cfg,
        broken=[["cart"], [], []],
    )
    assert break_targets(g, "break_pick") == {1, 2}
    assert repair_targets(g, "repair_cart") == {(CART, 0)}
    with pytest.raises(IllegalActionError, match="self_sabotage"):
        g.apply(BreakTool(K("break_pick"), 0))
    # default: self allowed
    g = make(roles=G3, hands=[["break_pick"], ["map"], ["map"]])
    assert break_targets(g, "break_pick") == {0, 1, 2}


def test_break_apply_effects_and_event():
    """RULES 3.2: the card lies face up in front of the target (public ``tool_broken`` event),
    it is not discarded; the target may no longer place paths (RULES 3.1.1)."""
    g = make(
        roles=G3,
        hands=[["break_lantern", "EW"], ["EW", "map"], ["map"]],
        deck=["map", "map", "map"],
    )
    d0 = g.discards.copy()
    ev = g.apply(BreakTool(K("break_lantern"), 1))
    assert g.broken.tolist() == [[False, False, False], [False, True, False], [False, False, False]]
    assert g.broken_kind[1, LANTERN] == K("break_lantern")
    assert (g.discards == d0).all()
    assert [(e.type, e.visible_to) for e in ev] == [("tool_broken", None), ("card_drawn", 0)]
    assert ev[0].data == {"kind": K("break_lantern"), "target": 1, "tool": LANTERN}
    assert g.current == 1
    assert not [a for a in legal(g) if isinstance(a, PlacePath)]
    assert set(legal(g)) == {Discard(K("EW")), Discard(K("map")), Map(0), Map(1), Map(2)}


def test_target_relative_seat_encoding():
    """RULES 3.2 / DESIGN 3: tool targets are encoded relative to the actor; the decoded action
    names the absolute seat (seat 2 of 3 targeting seat 0 = relative 1)."""
    g = make(roles=G3, hands=[["map"], ["map"], ["break_cart"]], current=2)
    c = codec(g)
    i = c.encode(BreakTool(K("break_cart"), 0), 2, 3)
    assert c.decode(i, 2, 3) == BreakTool(K("break_cart"), 0)
    assert i == c.encode(BreakTool(K("break_cart"), 1), 0, 3)  # same relative seat
    assert break_targets(g, "break_cart") == {0, 1, 2}


# --- RULES 3.3 repairs ---------------------------------------------------------------------
def test_repair_only_matching_broken_tool():
    """RULES 3.3 (cases R10): a repair needs the matching broken tool; oneself or others."""
    g = make(
        roles=G3,
        hands=[["repair_lantern", "repair_pick", "repair_cart"], ["map"], ["map"]],
        broken=[["lantern"], ["lantern", "cart"], []],
    )
    assert repair_targets(g, "repair_lantern") == {(LANTERN, 0), (LANTERN, 1)}
    assert repair_targets(g, "repair_pick") == set()
    assert repair_targets(g, "repair_cart") == {(CART, 1)}
    assert not can(g, Repair(K("repair_pick"), PICK, 2))
    assert not can(g, Repair(K("repair_lantern"), LANTERN, 2))
    assert g.check(Repair(K("repair_lantern"), CART, 1)) is not None  # not this card's tool


@pytest.mark.parametrize(
    "card,tools",
    [
        ("repair_pick_lantern", (PICK, LANTERN)),
        ("repair_pick_cart", (PICK, CART)),
        ("repair_lantern_cart", (LANTERN, CART)),
    ],
)
def test_double_repair_choices_exact(card, tools):
    """RULES 3.3 (cases R11): a double repair card removes ONE broken card of either shown
    type; the action names the tool.  Every seat has all three tools broken."""
    g = make(
        roles=G3,
        hands=[[card], ["map"], ["map"]],
        broken=[
            ["pick", "lantern", "cart"],
            ["pick", "lantern", "cart"],
            ["pick", "lantern", "cart"],
        ],
    )
    assert repair_targets(g, card) == {(t, s) for t in tools for s in range(3)}


def test_double_repair_fixes_only_one():
    """RULES 3.3: after repairing the lantern with the pick/lantern card the pick stays broken
    and the player still cannot place paths; both the repair card and the removed broken
    card go to the discard pile."""
    g = make(
        roles=G3,
        hands=[["repair_pick_lantern"], ["EW"], ["map"]],
        broken=[[], ["pick", "lantern"], []],
        deck=["map", "map"],
    )
    d0 = g.discards.copy()
    ev = g.apply(Repair(K("repair_pick_lantern"), LANTERN, 1))
    assert g.broken[1].tolist() == [True, False, False]
    diff = g.discards - d0
    assert diff[K("repair_pick_lantern")] == 1 and diff[K("break_lantern")] == 1
    assert diff.sum() == 2
    assert ev[0].type == "tool_repaired" and ev[0].visible_to is None
    assert ev[0].data == {"kind": K("repair_pick_lantern"), "target": 1, "tool": LANTERN}
    assert g.current == 1 and placements_of(g, "EW") == set()
    assert g.cards_accounted() == 67


def test_self_repair():
    """RULES 3.3: a player may repair his own tool."""
    g = make(roles=G3, hands=[["repair_cart", "EW"], ["map"], ["map"]], broken=[["cart"], [], []])
    assert placements_of(g, "EW") == set()
    g.apply(Repair(K("repair_cart"), CART, 0))
    assert not g.broken[0].any()


# --- RULES 3.4 rockfall --------------------------------------------------------------------
def test_rockfall_targets_exact():
    """RULES 3.4: any tunnel card, through card or dead end, connected or not; never the start
    or a goal (hidden or revealed)."""
    cells = row0(1, 7) + [("E/W", 0, 1), ("NS", 5, 3)]
    g = make(
        cells,
        hands=[["rockfall"], ["map"], ["map"]],
        goals=(GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B),
        revealed=[(1, True)],
    )
    assert rockfall_targets(g) == {(x, 0) for x in range(1, 8)} | {(0, 1), (5, 3)}


def test_rockfall_needs_a_card():
    """RULES 3.4 [RULING] (cases R5a): with no tunnel card in the maze a rockfall has no
    target; it can still be discarded."""
    g = make(hands=[["rockfall", "EW"], ["map"], ["map"]])
    assert rockfall_targets(g) == set()
    assert set(legal(g)) == {
        Discard(K("rockfall")),
        Discard(K("EW")),
        place("EW", 1, 0),
        place("EW", -1, 0),
    }


def test_rockfall_apply_and_disconnected_island():
    """RULES 3.4: the card is removed, both cards are discarded (public ``rockfall`` event);
    cards cut off stay but cannot be extended until reconnected (RULES 3.1.5)."""
    cells = [("EW", 1, 0), ("NESW", 2, 0), ("EW", 3, 0), ("NS", 2, 1)]
    g = make(cells, hands=[["rockfall"], ["NESW", "EW"], ["map"]], deck=["map", "map", "map"])
    d0 = g.discards.copy()
    ev = g.apply(Rockfall(1, 0))
    assert [(e.type, e.visible_to) for e in ev] == [("rockfall", None), ("card_drawn", 0)]
    assert ev[0].data["x"] == 1 and ev[0].data["y"] == 0 and ev[0].data["kind"] == K("EW")
    assert g.board.variant_at(1, 0) == -1
    diff = g.discards - d0
    assert diff[K("rockfall")] == 1 and diff[K("EW")] == 1 and diff.sum() == 2
    for x, y in ((2, 0), (3, 0), (2, 1)):
        assert g.board.variant_at(x, y) >= 0
        assert g.board.connected_openings(x, y) == 0
    # seat 1: NESW only next to the start now (not around the island)
    assert placements_of(g, "NESW") == {(1, 0), (-1, 0), (0, 1), (0, -1)}
    assert placements_of(g, "EW") == {(1, 0), (-1, 0)}
    g.apply(place("EW", 1, 0))  # reconnect
    assert g.board.connected_openings(3, 0) == 0b1010
    assert g.cards_accounted() == 67


def test_rockfall_leaves_revealed_goal_revealed():
    """RULES 3.4 / 4.2: removing the card that reached a revealed stone goal leaves it face up
    (it is not removable); the stone is then not connected."""
    g = make(
        row0(1, 7),
        hands=[["rockfall"], ["map"], ["map"]],
        goals=(GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B),
        revealed=[(1, True)],
    )
    assert g.board.connected_openings(8, 0) != 0
    g.apply(Rockfall(7, 0))
    assert g.board.goal_revealed.tolist() == [False, True, False]
    assert g.board.connected_openings(8, 0) == 0


# --- RULES 3.5 map -------------------------------------------------------------------------
def test_map_only_hidden_goals_and_result_private():
    """RULES 3.5 [RULING] (cases R8): map targets are the face-down goals only; the result is a
    private event of the player, the play itself (which goal) is public; the board does not
    change; the map card is discarded."""
    g = make(
        row0(1, 7),
        roles=G3,
        hands=[["map", "map"], ["map"], ["map"]],
        goals=(GOAL_STONE_B, GOAL_STONE_A, GOAL_GOLD),
        revealed=[(1, True)],
        deck=["NS", "NS", "NS"],
    )
    assert map_targets(g) == {0, 2}
    assert not can(g, Map(1))
    before = g.board.var.copy()
    d0 = g.discards.copy()
    ev = g.apply(Map(2))
    assert [(e.type, e.visible_to) for e in ev] == [
        ("map_played", None),
        ("map_result", 0),
        ("card_drawn", 0),
    ]
    assert ev[0].data == {"goal": 2}
    assert ev[1].data == {"goal": 2, "identity": GOAL_GOLD}
    assert (g.board.var == before).all()
    assert g.known_goals.tolist() == [
        [False, True, True],
        [False, True, False],
        [False, True, False],
    ]
    assert (g.discards - d0)[K("map")] == 1 and (g.discards - d0).sum() == 1
    assert g.hands[0, K("map")] == 1
    with pytest.raises(IllegalActionError, match="3.5"):
        g2 = make(
            row0(1, 7),
            hands=[["map"], ["map"], ["map"]],
            goals=(GOAL_STONE_B, GOAL_STONE_A, GOAL_GOLD),
            revealed=[(1, True)],
        )
        g2.apply(Map(1))


# --- RULES 3.6 discard ---------------------------------------------------------------------
def test_discard_any_card_face_down():
    """RULES 3.6: a player may pass by discarding any one card, even one he could play; the
    public event says only that a card was discarded, the kind is private to the player."""
    g = make(hands=[["EW", "map", "NS"], ["map"], ["map"]], deck=["B07"])
    acts = set(legal(g))
    assert {Discard(K("EW")), Discard(K("map")), Discard(K("NS"))} <= acts
    d0 = g.discards.copy()
    ev = g.apply(Discard(K("EW")))
    assert [(e.type, e.visible_to) for e in ev] == [
        ("discarded", None),
        ("discarded_card", 0),
        ("card_drawn", 0),
    ]
    assert ev[0].data == {}
    assert ev[1].data == {"kind": K("EW")}
    assert (g.discards - d0)[K("EW")] == 1 and (g.discards - d0).sum() == 1
    assert g.hand_kinds(0) == sorted([K("map"), K("NS"), K("B07")])


def test_discard_only_held_kinds():
    """RULES 3.6: exactly one discard action per card kind held (copies are one action)."""
    g = make(hands=[["map", "map", "break_cart"], ["map"], ["map"]])
    assert {a for a in legal(g) if isinstance(a, Discard)} == {
        Discard(K("map")),
        Discard(K("break_cart")),
    }
    assert not can(g, Discard(K("EW")))


# --- RULES 3.7 / 5.1 empty draw pile, empty hands ------------------------------------------
def test_empty_draw_pile_hands_shrink_and_empty_hands_skipped():
    """RULES 3.7: with an empty draw pile nobody draws, hands shrink by one card per turn;
    RULES 3.6/5.1: a player with an empty hand is skipped; the round ends when every hand is
    empty (saboteurs win)."""
    g = make(roles=G3, hands=[["map", "map"], ["map"], ["map", "map", "map"]], deck=[])
    order = []
    while not g.round_over and g.round == 0:
        order.append(g.current)
        ev = g.apply(Discard(K("map")))
        assert not [e for e in ev if e.type == "card_drawn"]
        if g.round != 0:
            break
    assert order == [0, 1, 2, 0, 2, 2]
    assert g.round_results[0].gold_found is False
    assert g.round_results[0].winners == [1]
    assert g.round_results[0].turns == 6


def test_last_card_drawn_then_no_more_draws():
    """RULES 3.7: the player takes the last card of the pile; the next player draws nothing."""
    g = make(hands=[["map"], ["map"], ["map"]], deck=["NS"])
    g.apply(Discard(K("map")))
    assert g.hands[0, K("NS")] == 1 and len(g.deck) == 0
    ev = g.apply(Discard(K("map")))
    assert g.hand_size(1) == 0
    assert not [e for e in ev if e.type == "card_drawn"]


def test_illegal_action_leaves_state_untouched():
    """DESIGN 2 / RULES 3.1: an illegal action raises, naming the rule, and changes nothing."""
    g = make(hands=[["EW", "break_pick"], ["map"], ["map"]], broken=[[], ["pick"], []])
    before = (g.hands.copy(), g.board.var.copy(), g.broken.copy(), g.current, len(g.events))
    for a in (
        place("EW", 3, 0),
        BreakTool(K("break_pick"), 1),
        Rockfall(0, 0),
        Map(5),
        Discard(K("NS")),
        Repair(K("repair_pick"), PICK, 1),
    ):
        with pytest.raises(IllegalActionError):
            g.apply(a)
    assert (g.hands == before[0]).all() and (g.board.var == before[1]).all()
    assert (g.broken == before[2]).all() and g.current == before[3]
    assert len(g.events) == before[4]


def test_map_result_reaches_only_the_player_through_the_env():
    """RULES 3.5 (the result is secret), DESIGN 5: through the AEC env the private
    ``map_result`` event is routed to the player's infos only; the other agents see the public
    ``map_played`` event."""
    from saboteur_env.aec import raw_env

    env = raw_env(num_players=3)
    env.reset(seed=0)
    g = make(roles=G3, hands=[["map", "EW"], ["map"], ["map"]], goals=(2, GOAL_GOLD, 1))
    env.load(g)
    idx = codec(g).encode(Map(1), 0, 3)
    assert env.observe("player_0")["action_mask"][idx] == 1
    env.step(idx)
    for i, agent in enumerate(env.agents):
        evs = env.infos[agent]["events"]
        mine = [e for e in evs if e.type == "map_result"]
        assert [e for e in evs if e.type == "map_played"], agent
        if i == 0:
            assert [e.data for e in mine] == [{"goal": 1, "identity": GOAL_GOLD}]
        else:
            assert mine == []
            assert all(e.visible_to in (None, i) for e in evs)
