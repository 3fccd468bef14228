"""Failure statistics (experiments.evaluation.failures): hand-made event sequences and a
hand-built maze with the counts worked out by hand."""

from __future__ import annotations

from experiments.evaluation.failures import (
    failure_report,
    round_failures,
    tunnel_distance_to_gold,
)
from saboteur_env import build_state
from saboteur_env.engine.cards import CARD_KINDS, GOAL_GOLD
from saboteur_env.engine.events import Event, EventType
from saboteur_env.engine.ruleset import BASE

ROCKFALL = next(i for i, k in enumerate(CARD_KINDS) if k.id == "rockfall")
DIG, SAB = BASE.diggers[0], BASE.saboteur


def test_round_counters_by_hand():
    """Seats 0, 1, 3 gold-diggers, seat 2 the saboteur."""
    roles = [DIG, DIG, SAB, DIG]
    ev = [
        Event(EventType.DISCARDED_CARD, 0, {"kind": ROCKFALL}, 0),  # a digger throws a rockfall
        Event(EventType.DISCARDED_CARD, 2, {"kind": ROCKFALL}, 2),  # the saboteur may
        Event(EventType.DISCARDED_CARD, 1, {"kind": 0}, 1),  # a path card: not counted
        Event(EventType.MAP_PLAYED, 1, {"goal": 0}),
        Event(EventType.MAP_PLAYED, 1, {"goal": 0}),  # the same seat, the same goal again
        Event(EventType.MAP_PLAYED, 3, {"goal": 0}),  # a goal someone else has seen
        Event(EventType.MAP_PLAYED, 3, {"goal": 2}),
        Event(EventType.TOOL_BROKEN, 2, {"kind": 0, "target": 0, "tool": 0}),  # hostile
        Event(EventType.TOOL_BROKEN, 3, {"kind": 0, "target": 0, "tool": 1}),  # blocked, own side
        Event(EventType.TOOL_REPAIRED, 0, {"kind": 0, "target": 0, "tool": 0}),
        Event(EventType.TOOL_REPAIRED, 0, {"kind": 0, "target": 0, "tool": 1}),
        Event(EventType.TOOL_BROKEN, 1, {"kind": 0, "target": 2, "tool": 2}),  # repaired first
    ]
    s = round_failures(ev, roles, BASE)
    assert s[0] == dict.fromkeys(s[0], 0) | {"rockfalls_discarded": 1}
    assert s[1]["maps_repeated"] == 1 and s[1]["maps_of_mapped"] == 0
    assert (s[1]["breaks"], s[1]["breaks_on_blocked"], s[1]["friendly_breaks"]) == (1, 0, 0)
    assert s[2]["rockfalls_discarded"] == 0 and s[2]["breaks"] == 1
    assert (s[2]["breaks_on_blocked"], s[2]["friendly_breaks"]) == (0, 0)
    assert s[3]["maps_of_mapped"] == 1 and s[3]["maps_repeated"] == 0
    assert (s[3]["breaks"], s[3]["breaks_on_blocked"], s[3]["friendly_breaks"]) == (1, 1, 1)


def test_tunnel_distance_to_the_gold_on_a_hand_built_maze():
    """Straight E-W cards at x = 1..6 from the start (0, 0); the gold is the middle goal at
    (8, 0): the nearest connected card is 2 cells away; with x = 1..3 and the gold at the top
    goal (8, -2), 5 + 2 cells."""
    board = [(x, 0, "B02", False) for x in range(1, 7)]
    g = build_state(
        roles=["gold-digger"] * 4 + ["saboteur"],
        hands=[[]] * 5,
        board=board,
        goals=(1, GOAL_GOLD, 2),
        check_counts=False,
    )
    assert tunnel_distance_to_gold(g.board) == 2
    g = build_state(
        roles=["gold-digger"] * 4 + ["saboteur"],
        hands=[[]] * 5,
        board=board[:3],
        goals=(GOAL_GOLD, 1, 2),
        check_counts=False,
    )
    assert tunnel_distance_to_gold(g.board) == 5 + 2  # from (3, 0) to the top goal (8, -2)


def test_tournament_reports_failures_per_agent():
    from experiments.tournament import run, schedule, summarize

    res = run(schedule(["random", "heuristic"], 5, deals=4, seed=0, num_rounds=1), progress=False)
    assert all(len(r["failures"]) == 1 for r in res)
    rep = failure_report(res, ["random", "heuristic"])
    assert rep["agents"]["random"]["rounds"] == rep["agents"]["heuristic"]["rounds"] == 4 * 5
    by_hand = sum(
        rd["seats"][s]["breaks"]
        for r in res
        for rd in r["failures"]
        for s, a in enumerate(r["lineup"])
        if a == "heuristic"
    )
    assert rep["agents"]["heuristic"]["breaks"]["count"] == by_hand
    assert rep["digger_losses"] == sum(not r["rounds"][0]["gold_found"] for r in res)
    assert summarize(res, ["random", "heuristic"], n_boot=10)["failures"] == rep
