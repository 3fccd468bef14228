"""Failure statistics: the mistakes an agent's play shows, counted from a game's events.

A standard report of the evaluation module for any agent (:func:`game_failures` per played
game, :func:`failure_report` over a tournament's results).  Per seat and round, from the
engine's event log (RULES sections in brackets):

* ``rockfalls_discarded``: a gold-digger put a rockfall card on the discard pile (RULES 3.4,
  3.6) - the card that clears a blocking tunnel;
* ``maps_repeated``: a map played on a goal this seat had already looked at this round
  (RULES 3.5), and ``maps_of_mapped``: on a goal someone else had already looked at;
* ``breaks``: broken-tool cards played (RULES 3.2); ``breaks_on_blocked``: on a player who
  already had a broken tool; ``friendly_breaks``: on a player of the breaker's own side (the
  roles revealed at the end of the round);
* per round: ``lost_near_gold``, a round the gold-diggers lost (the gold not found) with a
  card connected to the start within 2 cells (Manhattan) of the gold goal (RULES 4.1, 5.1).

Roles are the ones at the end of the round (in Saboteur 2 after any Swap your hats); the side
of a role is :func:`experiments.evaluation.outcomes.side_of`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from experiments.evaluation.outcomes import side_of
from saboteur_env.engine.cards import CARD_KINDS, GOAL_CELLS
from saboteur_env.engine.events import EventType
from saboteur_env.engine.ruleset import Ruleset

#: the per-seat counters of :func:`game_failures`
SEAT_COUNTERS = (
    "rockfalls_discarded",
    "maps_repeated",
    "maps_of_mapped",
    "breaks",
    "breaks_on_blocked",
    "friendly_breaks",
)
#: how close (Manhattan cells) a lost round's tunnel must come to the gold to count as near
NEAR = 2


def tunnel_distance_to_gold(board) -> int | None:
    """Manhattan distance (cells) from the gold goal to the nearest card connected to the
    start (``board.conn > 0``; RULES 4.1), or ``None`` for a board without a gold goal."""
    gold = np.flatnonzero(np.asarray(board.goal_identity) == 0)
    if not len(gold):
        return None
    gr, gc = board.rc(*GOAL_CELLS[int(gold[0])])
    rr, cc = np.nonzero(board.conn)
    if not len(rr):
        return None
    return int(np.min(np.abs(rr - gr) + np.abs(cc - gc)))


def round_failures(events: Sequence, roles: Sequence[int], rules: Ruleset) -> list[dict]:
    """The per-seat counters (:data:`SEAT_COUNTERS`) of one round's ``events``
    (:class:`saboteur_env.engine.events.Event`, in order) under the round's ``roles`` (role id
    per seat)."""
    n = len(roles)
    side = [side_of(int(q), rules) for q in roles]
    seats = [dict.fromkeys(SEAT_COUNTERS, 0) for _ in range(n)]
    broken: list[set] = [set() for _ in range(n)]
    mapped: dict[int, set] = {}
    for e in events:
        if e.type == EventType.DISCARDED_CARD and e.seat is not None:
            rockfall = CARD_KINDS[int(e.data["kind"])].effect == ("rockfall",)
            if rockfall and side[e.seat] == "digger":
                seats[e.seat]["rockfalls_discarded"] += 1
        elif e.type == EventType.MAP_PLAYED and e.seat is not None:
            who = mapped.setdefault(int(e.data["goal"]), set())
            if e.seat in who:
                seats[e.seat]["maps_repeated"] += 1
            elif who:
                seats[e.seat]["maps_of_mapped"] += 1
            who.add(e.seat)
        elif e.type == EventType.TOOL_BROKEN and e.seat is not None:
            t = int(e.data["target"])
            seats[e.seat]["breaks"] += 1
            seats[e.seat]["breaks_on_blocked"] += bool(broken[t])
            seats[e.seat]["friendly_breaks"] += side[t] == side[e.seat] != "other"
            broken[t].add(int(e.data["tool"]))
        elif e.type == EventType.TOOL_REPAIRED:
            broken[int(e.data["target"])].discard(int(e.data["tool"]))
    return seats


def game_failures(game, rules: Ruleset) -> list[dict]:
    """One dict per finished round of ``game`` (a :class:`saboteur_env.engine.Game`):
    ``{"seats": round_failures(...), "gold_found": bool, "distance": int | None,
    "lost_near_gold": bool}``."""
    rounds: list[list] = []
    for e in game.events:
        if e.type == EventType.ROUND_START:
            rounds.append([])
        elif rounds:
            rounds[-1].append(e)
    out = []
    for r, res in enumerate(game.round_results):
        events = rounds[r] if r < len(rounds) else []
        dist = None
        if not res.gold_found and r < len(game.round_boards):
            dist = tunnel_distance_to_gold(game.round_boards[r])
        out.append(
            {
                "seats": round_failures(events, res.roles, rules),
                "gold_found": bool(res.gold_found),
                "distance": dist,
                "lost_near_gold": dist is not None and dist <= NEAR,
            }
        )
    return out


def failure_report(results: Sequence[dict], agents: Sequence[str]) -> dict:
    """Per agent, each counter per 100 rounds it played (and its raw count), plus the share
    of rounds the gold-diggers lost with the tunnel within :data:`NEAR` cells of the gold.

    ``results``: game results of :func:`experiments.tournament.play` (their ``"failures"``).
    Returns ``{"agents": {agent: {"rounds": int, counter: {"count", "per_100_rounds"}}},
    "digger_losses": int, "lost_near_gold": int, "near": NEAR}``.
    """
    per = {a: {"rounds": 0, **dict.fromkeys(SEAT_COUNTERS, 0)} for a in agents}
    losses = near = 0
    for r in results:
        for rd in r.get("failures", []):
            losses += not rd["gold_found"]
            near += rd["lost_near_gold"]
            for s, a in enumerate(r["lineup"]):
                per[a]["rounds"] += 1
                for k in SEAT_COUNTERS:
                    per[a][k] += rd["seats"][s][k]
    out = {}
    for a, c in per.items():
        n = c["rounds"]
        out[a] = {"rounds": n}
        for k in SEAT_COUNTERS:
            out[a][k] = {"count": c[k], "per_100_rounds": 100 * c[k] / n if n else float("nan")}
    return {"agents": out, "digger_losses": losses, "lost_near_gold": near, "near": NEAR}
