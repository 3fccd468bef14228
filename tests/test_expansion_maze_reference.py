"""An independent reference for the Saboteur 2 maze and round end (RULES 6.3, 6.4, 6.9, 7.17,
7.25, 7.26, 7.29, 7.30, Appendix A), compared with the engine over seeded random games.

The reference knows the cards only through its own table below, transcribed from RULES
Appendix A (segments at 0 degrees with ``L`` the ladder node, stubs as one-side segments, door
colours, crystals); it reads from the engine only *which* card (kind id and whether it is
turned) lies on which cell, the roles and the cards in front of the players.  It never uses
``board.FIT``, the neighbourhood codes, the engine's connectivity arrays, ``gold_reachable``,
``crystals``, ``door_outcome``, ``winners_s2`` or ``payouts_s2``.

Checked on every position: placement legality of every oriented path card of the expansion
deck (RULES 3.1, 6.4: ladders touch the maze, never lie beside a goal and need no connection;
bridges and double curves need one connected tunnel; doors never restrict placement), the
connected openings with the start and every ladder as roots (RULES 4.1, 6.4), and that no
face-down goal is faced by a connected opening (RULES 4.2, 7.26).  Checked at every round end:
the door evaluation by routes (RULES 6.9, 7.17), the winners set, the payouts by ``|W|`` with
the Boss and Profiteer reductions, and the geologists' share of every crystal on the table
(RULES 6.9, 7.23, 7.29, 7.30).
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from saboteur_env.encoding.codec import Codec
from saboteur_env.engine.board import HIDDEN_GOAL
from saboteur_env.engine.cards import ALL_KINDS, CARD_KINDS, KIND_INDEX, VARIANTS
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import EventType
from saboteur_env.engine.state import Game, PlacePath

DELTA = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
TURN = {"N": "S", "S": "N", "E": "W", "W": "E", "L": "L"}
GOAL_SLOTS = [(8, -2), (8, 0), (8, 2)]
START = (0, 0)

# --- RULES Appendix A, transcribed: id -> (count, segments at 0 degrees, door, crystals) -------
# a one-letter segment is a stub (a dead end); "L" is the ladder node (a root, RULES 6.4)
TABLE = {
    "B01": (4, ["NS"], "", 0),
    "B02": (3, ["EW"], "", 0),
    "B03": (5, ["NE"], "", 0),
    "B04": (4, ["NW"], "", 0),
    "B05": (5, ["NES"], "", 0),
    "B06": (5, ["NEW"], "", 0),
    "B07": (5, ["NESW"], "", 0),
    "B08": (1, ["N"], "", 0),
    "B09": (1, ["E"], "", 0),
    "B10": (1, ["N", "S"], "", 0),
    "B11": (1, ["E", "W"], "", 0),
    "B12": (1, ["N", "E"], "", 0),
    "B13": (1, ["N", "W"], "", 0),
    "B14": (1, ["N", "E", "S"], "", 0),
    "B15": (1, ["N", "E", "W"], "", 0),
    "B16": (1, ["N", "E", "S", "W"], "", 0),
    "X01": (2, ["NS", "EW"], "", 0),
    "X02": (1, ["NW", "ES"], "", 0),
    "X03": (1, ["NE", "SW"], "", 0),
    "X04": (1, ["NL"], "", 0),
    "X05": (1, ["EL"], "", 0),
    "X06": (1, ["NWL"], "", 0),
    "X07": (1, ["NEL"], "", 0),
    "X08": (1, ["NW"], "green", 0),
    "X09": (1, ["EW"], "green", 0),
    "X10": (1, ["NS", "E"], "green", 0),
    "X11": (1, ["NS"], "blue", 0),
    "X12": (1, ["EW"], "blue", 0),
    "X13": (1, ["NE"], "blue", 0),
    "X14": (1, ["NE", "S"], "", 0),
    "X15": (1, ["NS", "E", "W"], "", 0),
    "X16": (1, ["EW", "N", "S"], "", 0),
    "X17": (1, ["NS", "E"], "", 0),
    "X18": (2, ["ES", "N"], "", 0),
    "X19": (1, ["E"], "", 1),
    "X20": (1, ["N"], "", 1),
    "X21": (3, ["NEW"], "", 1),
    "X22": (1, ["NEW", "S"], "", 1),
    "X23": (1, ["NES"], "", 1),
    "X24": (1, ["NSW", "E"], "", 1),
    "X25": (1, ["NESW"], "", 1),
    "X26": (1, ["EW", "S"], "", 1),
    "START": (1, ["NESWL"], "", 0),
    "G_GOLD": (1, ["NESW"], "", 0),
    "G_STONE_A": (1, ["NE"], "", 0),
    "G_STONE_B": (1, ["NW"], "", 0),
}
#: RULES 6.2 / 6.9: role names of the expansion (the engine's role ids index this tuple)
ROLES = ("green-digger", "blue-digger", "boss", "profiteer", "geologist", "saboteur")
#: RULES 6.9: gold per winner by |W|; 5 or more winners: 1
PAYOUT = {1: 5, 2: 4, 3: 3, 4: 2}


def segments(card_id: str, turned: bool) -> list[frozenset[str]]:
    return [frozenset(TURN[c] if turned else c for c in seg) for seg in TABLE[card_id][1]]


def openings(segs) -> frozenset[str]:
    out: set[str] = set()
    for s in segs:
        out |= s - {"L"}
    return frozenset(out)


def forms(card_id: str) -> list[bool]:
    a, b = segments(card_id, False), segments(card_id, True)
    return [False] if set(a) == set(b) else [False, True]


PATH_IDS = [cid for cid in TABLE if cid[0] in "BX"]
LADDERS = {cid for cid in PATH_IDS if any("L" in seg for seg in TABLE[cid][1])}


def read_table(game, board=None) -> tuple[dict, set]:
    """``({(x, y): (card id, segments)}, {hidden goal cells})`` of the maze."""
    face_up, hidden = {}, set()
    for x, y, v in (board or game.board).cards():
        if v == HIDDEN_GOAL:
            hidden.add((x, y))
            continue
        var = VARIANTS[v]
        cid = ALL_KINDS[var.kind].id
        face_up[(x, y)] = (cid, segments(cid, bool(var.rotated)))
    return face_up, hidden


def reachable(face_up: dict, blocked: str = "") -> set[tuple[int, int, int]]:
    """RULES 4.1, 6.4: ``(x, y, segment index)`` reachable from the roots (the start and every
    ladder node) by explicit BFS; a through segment of a door card of colour ``blocked`` cannot
    be entered (RULES 6.9: that door blocks the other team)."""

    def passable(cell, i) -> bool:
        cid, segs = face_up[cell]
        return not (blocked and TABLE[cid][2] == blocked and len(segs[i]) > 1)

    seen: set[tuple[int, int, int]] = set()
    queue: deque = deque()
    for cell, (_cid, segs) in face_up.items():
        for i, seg in enumerate(segs):
            if "L" in seg and passable(cell, i):
                seen.add((*cell, i))
                queue.append((*cell, i))
    while queue:
        x, y, i = queue.popleft()
        for side in face_up[(x, y)][1][i] - {"L"}:
            dx, dy = DELTA[side]
            nb = (x + dx, y + dy)
            if nb not in face_up:
                continue
            for j, seg in enumerate(face_up[nb][1]):
                if OPPOSITE[side] in seg and (*nb, j) not in seen and passable(nb, j):
                    seen.add((*nb, j))
                    queue.append((*nb, j))
    return seen


def connected_openings(face_up: dict) -> set[tuple[int, int, str]]:
    """Openings of reached segments that lead back to a root: not stubs (a stub leads nowhere;
    a ladder's single opening leads to its ladder node)."""
    out = set()
    for x, y, i in reachable(face_up):
        seg = face_up[(x, y)][1][i]
        if len(seg) > 1:
            out |= {(x, y, s) for s in seg - {"L"}}
    return out


def reference_placements(game) -> set[tuple[str, bool, int, int]]:
    """Every (card id, turned, x, y) a free player may place (RULES 3.1, 6.4)."""
    face_up, hidden = read_table(game)
    conn = connected_openings(face_up)
    occupied = set(face_up) | hidden
    x0, x1, y0, y1 = game.config.window
    out = set()
    for x in range(x0, x1 + 1):
        for y in range(y0, y1 + 1):
            if (x, y) in occupied:
                continue
            nbs = {s: (x + d[0], y + d[1]) for s, d in DELTA.items()}
            if not any(c in occupied for c in nbs.values()):
                continue  # touches no card
            beside_goal = any(c in GOAL_SLOTS for c in nbs.values())
            for cid in PATH_IDS:
                for turned in forms(cid):
                    segs = segments(cid, turned)
                    mine = openings(segs)
                    ok, linked = True, False
                    for side, cell in nbs.items():
                        if cell not in face_up:
                            continue  # empty or a hidden goal: imposes nothing
                        if (side in mine) != (OPPOSITE[side] in openings(face_up[cell][1])):
                            ok = False
                            break
                        if side in mine and (*cell, OPPOSITE[side]) in conn:
                            linked = True
                    ladder = any("L" in s for s in segs)
                    if ok and (not beside_goal if ladder else linked):
                        out.add((cid, turned, x, y))
    return out


def check_position(game, codec: Codec) -> None:
    """Placement legality of every path card, connectivity and reveals (see the docstring)."""
    g = game.copy()
    s = g.current
    g.hands[s, :] = 0
    for cid in PATH_IDS:
        g.hands[s, KIND_INDEX[cid]] = 1
    g.broken[s] = False
    g.xfront[s, 0] = False
    m = codec.mask(g)
    got = set()
    for i in np.flatnonzero(m):
        a = codec.decode(int(i), s, g.n)
        if isinstance(a, PlacePath):
            got.add((CARD_KINDS[a.kind].id, bool(a.rotated), a.x, a.y))
    assert got == reference_placements(g)
    face_up, hidden = read_table(game)
    conn = connected_openings(face_up)
    bits = {"N": 1, "E": 2, "S": 4, "W": 8}
    for x, y in face_up:
        want = sum(bits[sd] for sd in "NESW" if (x, y, sd) in conn)
        assert game.board.connected_openings(x, y) == want, (x, y)
    for gx, gy in hidden:  # RULES 4.2: a faced goal would have been turned over
        for sd, (dx, dy) in DELTA.items():
            assert (gx + dx, gy + dy, OPPOSITE[sd]) not in conn


def reference_round(board, roles, trapped, connector, rule="seed") -> dict:
    """RULES 6.9 from the final maze: door evaluation, winners, payouts before thefts."""
    face_up, _ = read_table(None, board)
    gold = [c for c in GOAL_SLOTS if c in face_up and face_up[c][0] == "G_GOLD"]
    found = bool(gold) and (*gold[0], 0) in reachable(face_up)
    pass_blue = found and (*gold[0], 0) in reachable(face_up, blocked="green")
    pass_green = found and (*gold[0], 0) in reachable(face_up, blocked="blue")
    name = [ROLES[r] for r in roles]
    conn = name[connector] if found else None
    blue = found and pass_blue and (conn != "green-digger" or not pass_green)
    green = found and pass_green and (conn != "blue-digger" or not pass_blue)
    seats = range(len(roles))
    if not found:
        w = [s for s in seats if name[s] in ("saboteur", "profiteer")]
    elif blue or green:
        team = {"blue-digger"} if blue else set()
        team |= {"green-digger"} if green else set()
        w = [s for s in seats if name[s] in team | {"boss", "profiteer"}]
    elif rule == "seed" and "boss" in name:
        w = [s for s in seats if name[s] == "boss"]
    elif rule == "seed":
        w = [s for s in seats if name[s] in ("saboteur", "profiteer")]
    else:
        w = [s for s in seats if name[s] in ("boss", "profiteer")]
    w = [s for s in w if s not in trapped]
    crystals = sum(TABLE[cid][3] for cid, _ in face_up.values())
    paid = [0] * len(roles)
    each = PAYOUT.get(len(w), 1)
    for s in w:
        paid[s] = max(0, each - {"boss": 1, "profiteer": 2}.get(name[s], 0))
    geos = [s for s in seats if name[s] == "geologist"]
    for s in geos:
        if s not in trapped:
            paid[s] = crystals // len(geos)
    return {
        "gold_found": found,
        "pass_blue": pass_blue,
        "pass_green": pass_green,
        "winners": w,
        "crystals": crystals,
        "paid": paid,
    }


def test_reference_table_is_appendix_a():
    """RULES 6.3, 6.5, Appendix A: the reference's own table holds 30 expansion path cards
    (2 bridges, 2 double curves, 4 ladders, 3 doors of each colour, 10 crystals) and the
    engine's card table has the same counts, shapes, doors and crystals kind by kind."""
    x = {cid: row for cid, row in TABLE.items() if cid.startswith("X")}
    assert sum(r[0] for r in x.values()) == 30
    assert sum(r[0] for r in x.values() if any("L" in s for s in r[1])) == 4
    assert [sum(r[0] for r in x.values() if r[2] == c) for c in ("green", "blue")] == [3, 3]
    assert sum(r[0] * r[3] for r in x.values()) == 10
    for cid in PATH_IDS:
        kind = CARD_KINDS[KIND_INDEX[cid]]
        count, segs, door, crystals = TABLE[cid]
        assert kind.count_base + kind.count_expansion == count, cid
        side = {"N": 1, "E": 2, "S": 4, "W": 8, "L": 16}
        want = sorted(sum(side[c] for c in seg) for seg in segs)
        assert sorted(kind.segments) == want, cid
        assert (kind.door, kind.crystals) == (door, crystals), cid


def _play(n: int, seed: int, rule: str, positions: int):
    """Seeded random Saboteur 2 games favouring path placements next to the face-down goals
    (so that goals are reached and doors and ladders lie on the routes); yields
    ``(game, codec, None)`` for the first ``positions`` turns and ``(game, codec, before)``
    after each round end, ``before`` the state before the decision that ended it (thieves'
    choices are made at random first)."""
    cfg = GameConfig(num_players=n, expansion=True, both_doors_rule=rule, num_rounds=3)
    codec = Codec(cfg)
    rng = np.random.default_rng(seed)
    g = Game(cfg, seed)
    p0, plen = codec.blocks["place"]
    count = 0
    while not g.game_over:
        if count < positions and g.phase == "turn":
            yield g, codec, None
            count += 1
        before = g.copy()
        idx = np.flatnonzero(codec.mask(g))
        places = idx[(idx >= p0) & (idx < p0 + plen)]
        r = rng.random()
        if len(places) and r < 0.8:
            cells = (places - p0) % codec.n_cells
            x, y = cells % codec.width + cfg.window[0], cells // codec.width + cfg.window[2]
            goals = [c for sl, c in enumerate(GOAL_SLOTS) if not g.board.goal_revealed[sl]]
            d = np.min([abs(x - gx) + abs(y - gy) for gx, gy in goals or [(8, 0)]], axis=0)
            pick = places[d <= d.min() + 1] if r < 0.6 else places
        else:
            pick = idx
        rounds = len(g.round_results)
        g.apply(codec.decode(int(rng.choice(pick)), g.current, g.n))
        if g.phase == "theft" or len(g.round_results) > rounds:
            # the round ended with this decision: score it from the state it ended in
            while g.phase == "theft":
                vic = np.flatnonzero(codec.mask(g))
                g.apply(codec.decode(int(rng.choice(vic)), g.current, g.n))
            yield g, codec, before


@pytest.mark.parametrize(
    "n, seed, rule, positions",
    [(3, 1, "seed", 80), (6, 2, "seed", 60), (12, 3, "bga", 40), (2, 4, "seed", 60)],
)
def test_engine_equals_reference(n, seed, rule, positions):
    """RULES 3.1, 4.1, 4.2, 6.4, 6.9: the engine's placements, connectivity, reveals and
    round ends equal the reference's on seeded random games (several games per case)."""
    seen = {"found": 0, "not found": 0, "ladder": 0, "door": 0}
    for game_seed in range(seed * 100, seed * 100 + 4):
        for g, codec, before in _play(n, game_seed, rule, positions):
            if before is None:
                check_position(g, codec)
                face_up, _ = read_table(g)
                seen["ladder"] += any(c in LADDERS for c, _ in face_up.values())
                continue
            res = g.round_results[-1]
            board = g.round_boards[-1]
            ref = reference_round(board, res.roles, set(res.trapped), res.connector, rule)
            assert res.gold_found == ref["gold_found"]
            assert (res.pass_blue, res.pass_green) == (ref["pass_blue"], ref["pass_green"])
            assert res.winners == ref["winners"]
            assert res.crystals == ref["crystals"]
            assert res.paid == ref["paid"]
            # trapped at round end: as in front of the players before the last decision,
            # unless that decision itself laid or lifted a Trapped! card
            was = [s for s in range(n) if before.xfront[s, 0]]
            # the action cards played by the decision that ended the round (not earlier ones)
            last = [e for e in g.events[len(before.events) :] if e.type == EventType.ACTION_PLAYED]
            if not any(e.data["card"] in ("trapped", "free_at_last") for e in last):
                assert sorted(res.trapped) == was
            face_up, _ = read_table(None, board)
            seen["found" if res.gold_found else "not found"] += 1
            seen["door"] += any(TABLE[c][2] for c, _ in face_up.values())
    assert all(v > 0 for v in seen.values()), seen
