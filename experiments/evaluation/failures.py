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
* ``wins_available``: decisions of a gold-digger side seat where a legal path-card placement
  of a card in its hand would have reached the gold goal (RULES 3.1, 4.1, 4.2: the round ends
  with the gold found), and ``wins_missed``: those where the seat played something else;
  counted at decision time by :class:`MissedWins` (a hook in the playing loop), not from the
  events;
* per round: ``lost_near_gold``, a round the gold-diggers lost (the gold not found) with a
  card connected to the start within 2 cells (Manhattan) of the gold goal (RULES 4.1, 5.1).

Roles are the ones at the end of the round (in Saboteur 2 after any Swap your hats), except
for :class:`MissedWins`, which takes the seat's role when it acted; the side of a role is
:func:`saboteur_experiments.evaluation.outcomes.side_of`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from saboteur_env.engine.actions import FAMILIES, PlacePath
from saboteur_env.engine.cards import CARD_KINDS, FACING, GOAL_CELLS, GOAL_GOLD, SIDE_DELTA
from saboteur_env.engine.events import EventType
from saboteur_env.engine.phases import FAMILIES_OF_PHASE
from saboteur_env.engine.ruleset import Ruleset
from saboteur_experiments.evaluation.outcomes import side_of

_PLACE = FAMILIES["place"]

#: the per-seat counters of :func:`game_failures`
SEAT_COUNTERS = (
    "rockfalls_discarded",
    "maps_repeated",
    "maps_of_mapped",
    "breaks",
    "breaks_on_blocked",
    "friendly_breaks",
    "wins_available",
    "wins_missed",
)
#: each counter's column label in the tournament's table, in the table's order (the missed
#: wins before the wins available, as "missed (of available)" reads)
COUNTER_LABELS = {
    "rockfalls_discarded": "rockfall discarded (digger)",
    "maps_repeated": "map of a goal it saw",
    "maps_of_mapped": "map of a goal another saw",
    "breaks": "breaks",
    "breaks_on_blocked": "on a blocked player",
    "friendly_breaks": "on own side",
    "wins_missed": "winning placement missed",
    "wins_available": "win available",
}
if set(COUNTER_LABELS) != set(SEAT_COUNTERS):
    raise AssertionError("COUNTER_LABELS must label every one of SEAT_COUNTERS")
#: the counters of :class:`MissedWins` (decision time), the rest come from the event log
WIN_COUNTERS = ("wins_available", "wins_missed")
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


def winning_placements(game, seat: int) -> list[PlacePath]:
    """The legal placements of ``seat`` (to act in ``game``) that reach the gold goal: the
    round would end with the gold found (RULES 4.2, 5.1).  Reads the true goal identities (an
    evaluation tool, not an agent).

    Only a few placements are tried: the gold is reached through a connected opening of a card
    next to it (RULES 4.1), so either the new card lies next to the gold goal, on an empty cell
    that a connected opening faces (a placement needs one, RULES 3.1.5; a Saboteur 2 ladder may
    not lie next to a goal, RULES 6.4), or a card already next to it has an opening facing it
    (not connected, else the gold would be face up: a rockfall cut it off, RULES 3.4), and
    then any legal placement may reconnect it.  The candidates are the place family's legal
    set (the engine's ``FIT`` look-up); each is tried on a copy of the board
    (``Board.place``, the call the engine plays it with).
    """
    board = game.board
    if game.game_over or seat != game.current or "place" not in FAMILIES_OF_PHASE[game.phase]:
        return []
    if not game.can_place_paths(seat):  # RULES 3.1.1, 3.2, 6.5
        return []
    gold = np.flatnonzero(board.goal_identity == GOAL_GOLD)
    if not len(gold) or board.goal_revealed[int(gold[0])]:
        return []
    gx, gy = GOAL_CELLS[int(gold[0])]
    gr, gc = board.rc(gx, gy)
    codes = board.codes()  # cached per board version (the agent's mask computed it)
    cells: list[tuple[int, int]] = []
    dangling = False
    for b, (dx, dy) in enumerate(SIDE_DELTA):
        r, c = gr + dy, gc + dx
        if board.var[r, c] >= 0:
            dangling |= bool(board.opn[r, c] & FACING[b])
        elif board.in_window(gx + dx, gy + dy) and (codes[r - 1, c - 1] >> 8) & 15:
            cells.append((gx + dx, gy + dy))
    if not cells and not dangling:
        return []
    lay = game.layout
    legal = _PLACE.legal(game, seat)
    if dangling:
        rows, cols = np.nonzero(legal)
    else:
        idx = [lay.cell(x, y) for x, y in cells]
        rows, sub = np.nonzero(legal[:, idx])
        cols = np.asarray(idx, dtype=np.int64)[sub]
    out = []
    for row, col in zip(rows.tolist(), cols.tolist()):
        a = _PLACE.action(lay, row * lay.n_cells + col, seat, game.n)
        assert isinstance(a, PlacePath)
        trial = board.copy()
        revealed = trial.place(lay.variants[row], a.x, a.y)
        if any(ident == GOAL_GOLD for _slot, ident, _rot in revealed):
            out.append(a)
    return out


class MissedWins:
    """Decision-time recorder of ``wins_available`` / ``wins_missed`` (RULES 3.1, 4.2).

    ``watch = MissedWins(game)`` once per game, then ``watch.before(seat, action)`` before
    each decision is applied (``action``: structured, or a flat index decoded with ``codec``).
    Counted only for a seat whose role (when it acts) is on the gold-digger side
    (:func:`saboteur_experiments.evaluation.outcomes.side_of` ``== "digger"``: the base game's
    gold-digger, Saboteur 2's green and blue diggers).  ``counts[round][seat]``: the two
    counters of that round (``game.round``, 0-based), read by :func:`game_failures`.
    """

    def __init__(self, game, codec=None) -> None:
        self.game = game
        self.codec = codec
        self.counts: dict[int, list[dict]] = {}

    def before(self, seat: int, action) -> None:
        """Count the decision of ``seat`` about to play ``action`` in the live game."""
        game = self.game
        if side_of(int(game.roles[seat]), game.rules) != "digger":
            return
        wins = winning_placements(game, seat)
        if not wins:
            return
        if isinstance(action, (int, np.integer)):
            action = self.codec.decode(int(action), seat, game.n)
        taken = isinstance(action, PlacePath) and any(
            (w.kind, w.x, w.y, bool(w.rotated))
            == (action.kind, action.x, action.y, bool(action.rotated))
            for w in wins
        )
        seats = self.counts.setdefault(
            game.round, [dict.fromkeys(WIN_COUNTERS, 0) for _ in range(game.n)]
        )
        seats[seat]["wins_available"] += 1
        seats[seat]["wins_missed"] += not taken


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


def game_failures(game, rules: Ruleset, watch: MissedWins | None = None) -> list[dict]:
    """One dict per finished round of ``game`` (a :class:`saboteur_env.engine.Game`):
    ``{"seats": round_failures(...), "gold_found": bool, "distance": int | None,
    "lost_near_gold": bool}``; the seats' :data:`WIN_COUNTERS` are those of ``watch`` (the
    :class:`MissedWins` that watched the game's decisions; 0 without one)."""
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
        seats = round_failures(events, res.roles, rules)
        if watch is not None:
            for s, c in enumerate(watch.counts.get(res.round, [])):
                seats[s].update(c)
        out.append(
            {
                "seats": seats,
                "gold_found": bool(res.gold_found),
                "distance": dist,
                "lost_near_gold": dist is not None and dist <= NEAR,
            }
        )
    return out


def failure_report(results: Sequence[dict], agents: Sequence[str]) -> dict:
    """Per agent, each counter per 100 rounds it played (and its raw count), plus the share
    of rounds the gold-diggers lost with the tunnel within :data:`NEAR` cells of the gold.

    ``results``: game results of :func:`saboteur_experiments.tournament.play` (their
    ``"failures"``). Returns ``{"agents": {agent: {"rounds": int, counter: {"count",
    "per_100_rounds"}}}, "digger_losses": int, "lost_near_gold": int, "near": NEAR}``.
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
