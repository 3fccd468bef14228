"""A slow, obviously-correct reference for legality, written independently of the engine's
array code, compared to :meth:`Codec.mask` on thousands of positions from seeded random play
(DESIGN 2; RULES 3.1-3.6, 4.1).  Also: the codec is a bijection over every legal action, and
distinct legal actions lead to distinct successor states (cases P15).

The reference knows the cards only through its own table below (transcribed from RULES 1.1,
1.2 and Appendix A: segments at 0 degrees, stubs as one-side segments); it reads from the
engine only *which* card (kind id and whether it is turned) lies on which cell, and never uses
``board.FIT``, ``Board.fits``, ``Board.codes`` or the engine's connectivity arrays.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from rules_helpers import codec

from saboteur_env.encoding.history import round_history
from saboteur_env.engine.board import HIDDEN_GOAL
from saboteur_env.engine.cards import ALL_KINDS, CARD_KINDS, VARIANTS
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import (
    BreakTool,
    Discard,
    Game,
    Map,
    PlacePath,
    Repair,
    Rockfall,
)

# --- the reference's own card data (RULES 0.2, 1.1, 1.2, Appendix A) ------------------------
# side names; DELTA: neighbour across a side (y grows to the south); OPPOSITE: the facing side
DELTA = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
TURN_180 = {"N": "S", "S": "N", "E": "W", "W": "E"}

# id -> segments at 0 degrees (a one-side segment is a stub: a dead end)
CARD_TABLE = {
    "B01": ["NS"],
    "B02": ["EW"],
    "B03": ["NE"],
    "B04": ["NW"],
    "B05": ["NES"],
    "B06": ["NEW"],
    "B07": ["NESW"],
    "B08": ["N"],
    "B09": ["E"],
    "B10": ["N", "S"],
    "B11": ["E", "W"],
    "B12": ["N", "E"],
    "B13": ["N", "W"],
    "B14": ["N", "E", "S"],
    "B15": ["N", "E", "W"],
    "B16": ["N", "E", "S", "W"],
    "START": ["NESW"],
    "G_GOLD": ["NESW"],
    "G_STONE_A": ["NE"],
    "G_STONE_B": ["NW"],
}
TOOL_INDEX = {"pick": 0, "lantern": 1, "cart": 2}
BREAK = {"break_pick": 0, "break_lantern": 1, "break_cart": 2}
REPAIR = {
    "repair_pick": (0,),
    "repair_lantern": (1,),
    "repair_cart": (2,),
    "repair_pick_lantern": (0, 1),
    "repair_pick_cart": (0, 2),
    "repair_lantern_cart": (1, 2),
}
GOAL_SLOTS = [(8, -2), (8, 0), (8, 2)]


def segments(card_id: str, turned: bool) -> list[frozenset]:
    """Segments of a card as it lies: sets of side letters (turned = rotated 180 degrees)."""
    segs = []
    for seg in CARD_TABLE[card_id]:
        sides = {TURN_180[c] if turned else c for c in seg}
        segs.append(frozenset(sides))
    return segs


def openings(segs) -> frozenset:
    out = set()
    for s in segs:
        out |= s
    return frozenset(out)


def orientations(card_id: str) -> list[bool]:
    """0 degrees, and 180 degrees if it gives a different card (RULES 0.2)."""
    a, b = segments(card_id, False), segments(card_id, True)
    return [False] if set(a) == set(b) else [False, True]


# --- reading the table from the engine: only which card lies where ---------------------------
def read_table(game) -> tuple[dict, set]:
    """``({(x, y): segments}, {hidden goal cells})`` of the maze."""
    face_up, hidden = {}, set()
    for x, y, v in game.board.cards():
        if v == HIDDEN_GOAL:
            hidden.add((x, y))
            continue
        var = VARIANTS[v]
        face_up[(x, y)] = segments(ALL_KINDS[var.kind].id, bool(var.rotated))
    return face_up, hidden


def connected_openings(face_up: dict) -> set[tuple[int, int, str]]:
    """RULES 4.1 by explicit BFS over (cell, side) opening nodes from the start's segment.

    Inside a card, openings of one segment are linked (a stub links nothing); across cards an
    opening is linked to the facing opening of the neighbour.  Returns every reachable opening
    that belongs to a through segment (a reached stub leads nowhere: RULES 3.1.5)."""
    start = face_up[(0, 0)]
    seen: set[tuple[int, int, str]] = set()
    queue = deque()
    for side in start[0]:
        seen.add((0, 0, side))
        queue.append((0, 0, side))
    while queue:
        x, y, side = queue.popleft()
        # along the card's own segment
        for seg in face_up[(x, y)]:
            if side in seg:
                for other in seg:
                    node = (x, y, other)
                    if node not in seen:
                        seen.add(node)
                        queue.append(node)
        # across the edge
        dx, dy = DELTA[side]
        nb = (x + dx, y + dy)
        if nb in face_up and OPPOSITE[side] in openings(face_up[nb]):
            node = (nb[0], nb[1], OPPOSITE[side])
            if node not in seen:
                seen.add(node)
                queue.append(node)
    through = set()
    for x, y, side in seen:
        seg = next(s for s in face_up[(x, y)] if side in s)
        if len(seg) > 1:
            through.add((x, y, side))
    return through


#: the 26 oriented tunnel cards: (kind index, turned, openings), from the table above
FORMS = [
    (k, turned, openings(segments(CARD_KINDS[k].id, turned)))
    for k in range(16)
    for turned in orientations(CARD_KINDS[k].id)
]


def reference_placements(game, window) -> set[tuple[int, bool, int, int]]:
    """Every (kind, rotated, x, y) a player without broken tools may place with any of the 16
    tunnel kinds (RULES 3.1 rules 2-5)."""
    face_up, hidden = read_table(game)
    conn = connected_openings(face_up)
    open_sides = {cell: openings(segs) for cell, segs in face_up.items()}
    occupied = set(face_up) | hidden
    x0, x1, y0, y1 = window
    out = set()
    for x in range(x0, x1 + 1):
        for y in range(y0, y1 + 1):
            if (x, y) in occupied:
                continue  # rule 2: the cell must be empty
            nbs = {s: (x + d[0], y + d[1]) for s, d in DELTA.items()}
            if not any(c in occupied for c in nbs.values()):
                continue  # rule 2: orthogonally adjacent to some card
            for k, turned, mine in FORMS:
                ok = True
                linked = False
                for side, cell in nbs.items():
                    if cell not in face_up:
                        continue  # empty or a hidden goal: imposes nothing (rule 4)
                    if (side in mine) != (OPPOSITE[side] in open_sides[cell]):
                        ok = False  # rule 4: tunnel meets tunnel, rock meets rock
                        break
                    if side in mine and (cell[0], cell[1], OPPOSITE[side]) in conn:
                        linked = True  # rule 5: faces a connected tunnel
                if ok and linked:
                    out.add((k, turned, x, y))
    return out


def reference_legal(game, places=None) -> set:
    """Every legal action of the seat to act (RULES 3.1-3.6), as structured actions.
    ``places``: :func:`reference_placements` of this maze, if already computed."""
    seat = game.current
    n = game.n
    held = [k for k in range(27) if game.hands[seat][k] > 0]
    broken = [[bool(game.broken[s][t]) for t in range(3)] for s in range(n)]
    face_up, hidden = read_table(game)
    out: set = {Discard(k) for k in held}  # RULES 3.6
    for k in held:
        cid = CARD_KINDS[k].id
        if cid in CARD_TABLE:
            if any(broken[seat]):
                continue  # RULES 3.1.1
            if places is None:
                places = reference_placements(game, game.config.board_window)
            out |= {PlacePath(kk, x, y, t) for kk, t, x, y in places if kk == k}
        elif cid in BREAK:
            t = BREAK[cid]
            for s in range(n):
                if s == seat and not game.config.self_sabotage:
                    continue
                if not broken[s][t]:
                    out.add(BreakTool(k, s))
        elif cid in REPAIR:
            for t in REPAIR[cid]:
                for s in range(n):
                    if broken[s][t]:
                        out.add(Repair(k, t, s))
        elif cid == "rockfall":
            for x, y in face_up:
                if (x, y) != (0, 0) and (x, y) not in GOAL_SLOTS:
                    out.add(Rockfall(x, y))
        elif cid == "map":
            for slot, cell in enumerate(GOAL_SLOTS):
                if cell in hidden:
                    out.add(Map(slot))
    return out


# --- positions from seeded random play ---------------------------------------------------
def random_positions(
    n_players: int, seed: int, max_states: int, path_bias: float = 0.85, east_bias: float = 0.75
):
    """Yield game states (before each decision) of seeded random games; play favours path
    placements so that mazes grow, goals get revealed and rockfalls have targets."""
    rng = np.random.default_rng(seed)
    g = Game(GameConfig(num_players=n_players), seed=seed)
    c = codec(g)
    pe = c.blocks["place"][0] + c.blocks["place"][1]
    through_row = np.array([not ALL_KINDS[VARIANTS[v].kind].is_dead_end for v in c.variants])
    count = 0
    while count < max_states:
        if g.game_over:
            seed += 1000
            g = Game(GameConfig(num_players=n_players), seed=seed)
        yield g
        count += 1
        m = c.mask(g)
        idx = np.nonzero(m)[0]
        places = idx[idx < pe]
        r = rng.random()
        through = places[through_row[(places - c.blocks["place"][0]) // c.n_cells]]
        if len(through) and r < east_bias:  # eastmost through cards: goals get reached
            xs = (through - c.blocks["place"][0]) % c.n_cells % c.width
            pick = through[xs == xs.max()]
        elif len(places) and r < path_bias:
            pick = places
        else:
            pick = idx
        g.apply(c.decode(int(rng.choice(pick)), g.current, g.n))


def decoded_mask(game) -> set:
    c = codec(game)
    return {c.decode(int(i), game.current, game.n) for i in np.nonzero(c.mask(game))[0]}


def with_all_tunnels(game):
    """A copy where the seat to act holds every tunnel kind and no broken tool."""
    g = game.copy()
    g.hands[g.current, :16] = 1
    g.broken[g.current] = False
    return g


PLAN = [(3, 11, 700), (5, 22, 700), (10, 33, 700)]


def test_reference_implementation_sanity():
    """RULES 3.1.5 / 4.1 on the reference itself: on a fresh maze exactly the start's four
    neighbours are placeable, and a dead end does not carry the connection."""
    g = Game(GameConfig(num_players=3), seed=0)
    cells = {(x, y) for _, _, x, y in reference_placements(g, g.config.board_window)}
    assert cells == {(1, 0), (-1, 0), (0, 1), (0, -1)}
    face_up = {(0, 0): segments("START", False), (1, 0): segments("B11", False)}
    conn = connected_openings(face_up)
    assert (1, 0, "E") not in conn and (1, 0, "W") not in conn and (0, 0, "E") in conn


@pytest.mark.parametrize("n_players,seed,count", PLAN)
def test_mask_equals_reference(n_players, seed, count):
    """RULES 3.1-3.6, 4.1: on every position of seeded random play, the set of actions the
    codec's mask allows equals the reference's, both for the real hand and for a hand of all
    16 tunnel kinds without broken tools (placement legality of every shape)."""
    checked = 0
    revealed_seen = rockfalls_seen = broken_seen = islands = 0
    for g in random_positions(n_players, seed, count):
        places = reference_placements(g, g.config.board_window)
        assert decoded_mask(g) == reference_legal(g, places), (n_players, seed, checked)
        ga = with_all_tunnels(g)
        got = {(a.kind, a.rotated, a.x, a.y) for a in decoded_mask(ga) if isinstance(a, PlacePath)}
        assert got == places
        check_connectivity_and_reveals(g)
        checked += 1
        revealed_seen += bool(g.board.goal_revealed.any())
        rockfalls_seen += bool(round_history(g.events, g.n).actor_counts[:, 2].any())
        broken_seen += bool(g.broken[g.current].any())
        face_up, _ = read_table(g)
        conn = connected_openings(face_up)
        islands += any(
            not any((x, y, s) in conn for s in "NESW")
            and (x, y) not in GOAL_SLOTS
            and len(face_up[(x, y)]) == 1
            and len(face_up[(x, y)][0]) > 1
            for (x, y) in face_up
        )
    assert checked == count
    # the positions cover what matters: revealed goals, rockfalls, broken tools, islands
    assert revealed_seen > 0 and rockfalls_seen > 0 and broken_seen > 0 and islands > 0


def check_connectivity_and_reveals(g) -> None:
    """RULES 4.1: the engine's incrementally kept connected openings of every face-up card
    equal the reference BFS; RULES 4.2: no face-down goal is faced by a connected opening (it
    would have been turned over after the placement that connected it)."""
    face_up, hidden = read_table(g)
    conn = connected_openings(face_up)
    bits = {"N": 1, "E": 2, "S": 4, "W": 8}
    for x, y in face_up:
        want = sum(bits[s] for s in "NESW" if (x, y, s) in conn)
        assert g.board.connected_openings(x, y) == want, (x, y)
    for gx, gy in hidden:
        for side, (dx, dy) in DELTA.items():
            assert (gx + dx, gy + dy, OPPOSITE[side]) not in conn, (gx, gy, side)
    assert {GOAL_SLOTS[i] for i in range(3) if not g.board.goal_revealed[i]} == hidden


def test_enough_reference_positions():
    """DESIGN 2: at least 2,000 random positions are compared (3, 5 and 10 players)."""
    assert sum(c for _, _, c in PLAN) >= 2000
    assert {p for p, _, _ in PLAN} == {3, 5, 10}


def fingerprint(g, with_events: bool):
    """The state after a move: the physical state plus the round's public history (which card
    was played by whom on what: a map on a goal the player already knows changes nothing else
    than the history, yet it is a different move from discarding that map)."""
    hist = round_history(g.events, g.n)
    parts = [
        g.round,
        g.current,
        g.game_over,
        g.board.var.tobytes(),
        g.hands.tobytes(),
        g.broken.tobytes(),
        g.discards.tobytes(),
        g.deck.tobytes(),
        g.known_goals.tobytes(),
        g.gold.tobytes(),
        g.nuggets.tobytes(),
        g.board.goal_revealed.tobytes(),
        tuple(b.var.tobytes() for b in g.round_boards),
        tuple(hist.recent),
        hist.actor_counts.tobytes(),
        hist.tool_counts.tobytes(),
    ]
    if with_events:
        parts.append(
            tuple((e.type, e.seat, repr(sorted(e.data.items())), e.visible_to) for e in g.events)
        )
    return tuple(parts)


@pytest.mark.parametrize("n_players,seed", [(3, 5), (5, 6), (10, 7)])
def test_codec_bijection_and_distinct_successors(n_players, seed):
    """DESIGN 3 / cases P15: over every legal action of random states, decode(encode) and
    encode(decode) are the identity (injective both ways), the brute-force legal list of
    :meth:`Game.legal_actions` encodes to exactly the mask, and on a subset distinct legal
    indices give distinct successor states (applied from ``game.copy()``)."""
    total = 0
    for i, g in enumerate(random_positions(n_players, seed, 240)):
        c = codec(g)
        idx = np.nonzero(c.mask(g))[0].tolist()
        actions = [c.decode(j, g.current, g.n) for j in idx]
        assert len(set(actions)) == len(actions)
        assert [c.encode(a, g.current, g.n) for a in actions] == idx
        total += len(idx)
        if i % 12 == 0:
            assert sorted(c.encode(a, g.current, g.n) for a in g.legal_actions()) == idx
        if i % 8 == 0:
            succ = []
            for a in actions:
                h = g.copy()
                h.apply(a)
                succ.append(h)
            # round-ending moves are told apart by the history, the others by the state itself
            ended = any(h.round != g.round or h.game_over for h in succ)
            prints = [fingerprint(h, with_events=ended) for h in succ]
            assert len(set(prints)) == len(prints), (i, actions)
            # applying from a copy leaves the original untouched
            assert decoded_mask(g) == set(actions)
    assert total > 1000


def scrambled_board(rng, window):
    """A random maze that play would rarely produce: random tunnel cards (any shape, any
    number of copies, islands, dead ends) scattered near the start, near the goals and along the
    window's border, random goal identities and randomly revealed goals in either orientation.
    Built through ``build_state`` with the board arrays written directly (the looser path),
    then connectivity recomputed."""
    from saboteur_env.engine.state import build_state

    x0, x1, y0, y1 = window
    goals = tuple(int(i) for i in rng.permutation(3))
    revealed = [(s, bool(rng.integers(2))) for s in range(3) if rng.random() < 0.3]
    seed = int(rng.integers(1 << 30))
    taken = {(0, 0), (8, -2), (8, 0), (8, 2)}
    cards = []
    n_cards = int(rng.integers(5, 60))
    for _ in range(n_cards):
        if rng.random() < 0.15:  # on the border of the window
            x = int(rng.choice([x0, x1])) if rng.random() < 0.5 else int(rng.integers(x0, x1 + 1))
            y = int(rng.integers(y0, y1 + 1)) if x in (x0, x1) else int(rng.choice([y0, y1]))
        else:
            x, y = int(rng.integers(-3, 11)), int(rng.integers(-4, 5))
        if (x, y) in taken:
            continue
        k, turned, _ = FORMS[int(rng.integers(len(FORMS)))]
        taken.add((x, y))
        cards.append((x, y, k, turned))
    # synthetic boards hold more copies of a shape than the deck has
    return build_state(
        GameConfig(num_players=3, board_window=window),
        roles=["gold-digger"] * 3,
        hands=[["map"], ["map"], ["map"]],
        board=cards,
        goals=goals,
        revealed=revealed,
        seed=seed,
        check_counts=False,
    )


@pytest.mark.parametrize("window", [(-6, 14, -8, 8), (-3, 11, -4, 4)])
def test_mask_equals_reference_on_scrambled_boards(window):
    """RULES 3.1.2-3.1.5, 4.1 on 150 random mazes per window (incl. cards on the window's
    border, revealed goals in both orientations, islands, duplicate shapes): the placement
    mask for all 16 tunnel kinds and the connected openings equal the reference."""
    rng = np.random.default_rng(2024 + window[0])
    for _ in range(150):
        g = scrambled_board(rng, window)
        ga = with_all_tunnels(g)
        got = {(a.kind, a.rotated, a.x, a.y) for a in decoded_mask(ga) if isinstance(a, PlacePath)}
        assert got == reference_placements(ga, window)
        face_up, _ = read_table(g)
        conn = connected_openings(face_up)
        bits = {"N": 1, "E": 2, "S": 4, "W": 8}
        for x, y in face_up:
            assert g.board.connected_openings(x, y) == sum(
                bits[s] for s in "NESW" if (x, y, s) in conn
            )


GOAL_CARD = {0: "G_GOLD", 1: "G_STONE_A", 2: "G_STONE_B"}


def reference_reveals(face_up: dict, hidden: set, identity, new_cell, new_segs):
    """RULES 4.2 by the reference: after putting ``new_segs`` on ``new_cell``, turn over every
    face-down goal faced by a connected opening, repeatedly (a turned stone may lead on); a
    stone lies in the orientation that opens towards a reaching side, fewest mismatched edges,
    then 0 degrees.  Returns ``{(slot, identity, turned)}``."""
    face_up = dict(face_up)
    hidden = set(hidden)
    face_up[new_cell] = new_segs
    out = set()
    while True:
        conn = connected_openings(face_up)
        wave = []
        for cell in sorted(hidden):
            reach = {
                side
                for side, (dx, dy) in DELTA.items()
                if (cell[0] + dx, cell[1] + dy, OPPOSITE[side]) in conn
            }
            if reach:
                wave.append((cell, reach))
        if not wave:
            return out
        for cell, reach in wave:
            slot = GOAL_SLOTS.index(cell)
            ident = int(identity[slot])
            best = None
            for turned in orientations(GOAL_CARD[ident]):
                mine = openings(segments(GOAL_CARD[ident], turned))
                if not mine & reach:
                    continue
                mism = 0
                for side, (dx, dy) in DELTA.items():
                    nb = (cell[0] + dx, cell[1] + dy)
                    if nb in face_up:
                        mism += (side in mine) != (OPPOSITE[side] in openings(face_up[nb]))
                if best is None or (mism, turned) < best:
                    best = (mism, turned)
            turned = best[1]
            face_up[cell] = segments(GOAL_CARD[ident], turned)
            hidden.discard(cell)
            out.add((slot, ident, turned))


def test_reveals_equal_reference():
    """RULES 4.2: for legal placements of every shape (all those at x >= 5 plus a random few)
    in positions of seeded random play at 3, 5 and 10 players and on random mazes, the goals
    the engine turns over (and each stone's orientation) equal the reference's."""
    from saboteur_env.engine.cards import VARIANT_OF

    rng = np.random.default_rng(77)
    window = (-6, 14, -8, 8)
    boards = [
        g.copy()
        for n, seed in ((3, 41), (5, 42), (10, 43))
        for i, g in enumerate(random_positions(n, seed, 300))
        if i % 5 == 0
    ]
    boards += [scrambled_board(rng, window) for _ in range(30)]
    n_reveals = n_stone = 0
    for g in boards:
        face_up, hidden = read_table(g)
        if not hidden:
            continue
        places = sorted(reference_placements(g, window))
        near = [p for p in places if p[2] >= 5]
        sample = near + [places[i] for i in rng.permutation(len(places))[:5]]
        for k, turned, x, y in sample:
            b = g.board.copy()
            got = {
                (slot, ident, bool(rot))
                for slot, ident, rot in b.place(VARIANT_OF[(k, turned)], x, y)
            }
            want = reference_reveals(
                face_up, hidden, g.board.goal_identity, (x, y), segments(CARD_KINDS[k].id, turned)
            )
            assert got == want, (k, turned, x, y)
            n_reveals += len(got)
            n_stone += sum(1 for _, ident, _ in got if ident != 0)
    assert n_reveals > 100 and n_stone > 50
