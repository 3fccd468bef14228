"""Failure statistics (saboteur_experiments.evaluation.failures): hand-made event sequences and a
hand-built maze with the counts worked out by hand."""

from __future__ import annotations

import pytest

from saboteur_env import build_state
from saboteur_env.engine.actions import Discard, PlacePath
from saboteur_env.engine.cards import CARD_KINDS, GOAL_GOLD
from saboteur_env.engine.events import Event, EventType
from saboteur_env.engine.ruleset import BASE
from saboteur_experiments.evaluation.failures import (
    MissedWins,
    failure_report,
    round_failures,
    tunnel_distance_to_gold,
    winning_placements,
)

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
    from saboteur_experiments.tournament import run, schedule, summarize

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
    missed = rep["agents"]["random"]["wins_missed"]
    assert missed["per_100_rounds"] == 100 * missed["count"] / 20
    assert missed["count"] <= rep["agents"]["random"]["wins_available"]["count"]
    assert rep["digger_losses"] == sum(not r["rounds"][0]["gold_found"] for r in res)
    assert summarize(res, ["random", "heuristic"], n_boot=10)["failures"] == rep


# --- winning placements missed (decision time) -------------------------------------------
B02, B04 = (next(i for i, k in enumerate(CARD_KINDS) if k.id == c) for c in ("B02", "B04"))


def _maze(board, hand, role="gold-digger"):
    """Seat 0 (``role``) to act with ``hand``; the gold is the middle goal at (8, 0)."""
    return build_state(
        roles=[role] + ["gold-digger"] * 3 + ["saboteur"],
        hands=[hand] + [[]] * 4,
        board=[(x, 0, "B02", False) for x in board],
        goals=(1, GOAL_GOLD, 2),
        check_counts=False,
    )


def test_a_missed_winning_placement_is_counted():
    """Straight E-W cards at x = 1..6: a straight at (7, 0) reaches the gold at (8, 0)."""
    g = _maze(range(1, 7), ["B02", "map"])
    assert winning_placements(g, 0) == [PlacePath(B02, 7, 0, False)]
    watch = MissedWins(g)
    watch.before(0, Discard(B02))
    assert watch.counts[g.round][0] == {"wins_available": 1, "wins_missed": 1}
    watch = MissedWins(g)
    watch.before(0, PlacePath(B02, 7, 0, False))
    assert watch.counts[g.round][0] == {"wins_available": 1, "wins_missed": 0}


def test_a_placement_next_to_the_gold_behind_a_wall_is_no_win():
    """A curve N-W at (7, 0), its only legal placement next to the gold at (8, 0), turns its
    wall to the gold (the others lie by the start)."""
    g = _maze(range(1, 7), ["B04"])
    places = [a for a in g.legal_actions() if isinstance(a, PlacePath) and a.x > 1]
    assert places == [PlacePath(B04, 7, 0, False)]
    assert winning_placements(g, 0) == []
    watch = MissedWins(g)
    watch.before(0, places[0])
    watch.before(0, Discard(B04))
    assert watch.counts == {}


def test_a_cut_off_tunnel_reconnected_far_from_the_gold_is_a_win():
    """A rockfall hole at (4, 0): cards 5..7 lie cut off (RULES 3.4); refilling the hole
    reaches the gold although the new card is 4 cells from it."""
    g = _maze([1, 2, 3, 5, 6, 7], ["B02"])
    assert winning_placements(g, 0) == [PlacePath(B02, 4, 0, False)]


def test_a_saboteur_with_a_winning_placement_is_not_counted():
    g = _maze(range(1, 7), ["B02"], role="saboteur")
    watch = MissedWins(g)
    watch.before(0, Discard(B02))
    assert watch.counts == {}


def _reaches_gold(game, action) -> bool:
    """Brute force: ``action`` applied to a copy of ``game`` ends the round with the gold found
    (Saboteur 2: the round's result waits for the thefts, ``pending_result``)."""
    trial = game.copy()
    trial.apply(action, verify=False)
    done = trial.round_results[len(game.round_results) :]
    result = done[0] if done else trial.pending_result
    return result is not None and result.gold_found


@pytest.mark.parametrize("players, expansion", [(5, False), (6, True)])
def test_tournament_counts_equal_a_brute_force_recount(tmp_path, players, expansion):
    """Seeded games through ``play`` (records written), replayed: at each decision of a
    gold-digger side seat (its role then) every legal placement is applied to a copy of the
    game."""
    from saboteur_env.record import replay
    from saboteur_experiments.evaluation.outcomes import side_of
    from saboteur_experiments.tournament import play, schedule

    keys = ("wins_available", "wins_missed")
    tasks = schedule(
        ["random", "heuristic:v1"],  # v1 misses some wins, so both counts are exercised
        players,
        deals=2,
        seed=3,
        num_rounds=2,
        record_dir=str(tmp_path),
        config={"expansion": True} if expansion else None,
    )
    total = [0, 0]
    for task in tasks:
        res = play(task)
        want = [[dict.fromkeys(keys, 0) for _ in range(players)] for _ in res["failures"]]
        steps = iter(replay(tmp_path / f"game_{task.game_id:06d}.jsonl"))
        game = next(steps).game
        for step in steps:  # game: the state before step's decision
            seat = step.seat
            if side_of(int(game.roles[seat]), game.rules) == "digger":
                places = [a for a in game.legal_actions() if isinstance(a, PlacePath)]
                wins = [a for a in places if _reaches_gold(game, a)]
                if wins:
                    want[game.round][seat]["wins_available"] += 1
                    want[game.round][seat]["wins_missed"] += step.structured not in wins
            game = step.game
        got = [[{k: s[k] for k in keys} for s in rd["seats"]] for rd in res["failures"]]
        assert got == want
        total[0] += sum(s["wins_available"] for rd in want for s in rd)
        total[1] += sum(s["wins_missed"] for rd in want for s in rd)
    assert total[0] > 0 and total[1] > 0
