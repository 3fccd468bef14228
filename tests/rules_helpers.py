"""Shared helpers of the rules tests (test_rules_*, test_scoring, test_positions, test_cases_rules,
test_reference_legality).

Path cards are written in the shape notation of ``cases/positions/README.md``: a card as it lies
on the table is its segments joined by ``/`` (``"EW"`` straight, ``"NE"`` curve, ``"E/W"`` two
unconnected stubs, ``"W"`` one stub).  :func:`shape_kind` maps a shape to the engine's
``(card kind, rotated)``; every one of the 26 base shapes is one oriented variant (RULES 0.2, 1.1).
"""

from __future__ import annotations

import numpy as np

from saboteur_env.encoding.codec import Codec
from saboteur_env.engine.cards import (
    ALL_KINDS,
    KIND_INDEX,
    TOOLS,
    VARIANT_OF,
    VARIANTS,
    deck_counts,
    placeable_variants,
)
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import (
    BreakTool,
    Discard,
    Map,
    PlacePath,
    Repair,
    Rockfall,
    build_state,
)

SIDE_BITS = {"N": 1, "E": 2, "S": 4, "W": 8}
ORDER = "NESW"

#: the 26 shapes of RULES 1.1 (both 180-degree forms), as listed in positions/README.md
ALL_SHAPES = (
    "NS EW NE ES SW NW NES NSW NEW ESW NESW N S E W N/S E/W N/E S/W N/W E/S N/E/S N/S/W "
    "N/E/W E/S/W N/E/S/W"
).split()


def _mask(sides: str) -> int:
    m = 0
    for ch in sides:
        m |= SIDE_BITS[ch]
    return m


def shape_key(shape: str) -> frozenset:
    """Canonical form of a shape: the set of segment masks (order of segments irrelevant)."""
    return frozenset(_mask(s) for s in shape.split("/"))


def sides_text(mask: int) -> str:
    return "".join(ch for ch in ORDER if mask & SIDE_BITS[ch])


def canonical_shape(segments) -> str:
    """Shape text of a variant's segments in the README's canonical order."""
    segs = sorted((s & 15 for s in segments), key=lambda m: [ORDER.index(c) for c in sides_text(m)])
    return "/".join(sides_text(m) for m in segs)


#: shape text -> variant id, for the 26 placeable base-game variants
SHAPE_VARIANT: dict[str, int] = {}
for _v in placeable_variants(False):
    SHAPE_VARIANT[canonical_shape(VARIANTS[_v].segments)] = _v
assert sorted(SHAPE_VARIANT) == sorted(ALL_SHAPES), sorted(SHAPE_VARIANT)
VARIANT_SHAPE = {v: s for s, v in SHAPE_VARIANT.items()}


def shape_kind(shape: str) -> tuple[int, bool]:
    """``(kind index, rotated)`` of a base-game tunnel card lying as ``shape``."""
    key = shape_key(shape)
    for s, v in SHAPE_VARIANT.items():
        if shape_key(s) == key:
            return int(VARIANTS[v].kind), bool(VARIANTS[v].rotated)
    raise KeyError(shape)


def shape_of(kind: int, rotated: bool = False) -> str:

    return VARIANT_SHAPE[VARIANT_OF[(kind, rotated)]]


def K(name: str) -> int:
    """Kind index of a card id (``"B07"``, ``"map"``, ``"break_pick"``) or a shape (``"EW"``)."""
    if name in KIND_INDEX:
        return KIND_INDEX[name]
    return shape_kind(name)[0]


def board_cards(cells) -> list[tuple[int, int, int, bool]]:
    """``[(shape, x, y), ...]`` -> the ``board=`` argument of :func:`build_state`."""
    out = []
    for shape, x, y in cells:
        k, rot = shape_kind(shape)
        out.append((x, y, k, rot))
    return out


def hand_kinds(cards) -> list[int]:
    """Hand given as card ids and/or shapes -> kind indexes."""
    return [K(c) for c in cards]


def row0(a: int, b: int, y: int = 0) -> list[tuple[str, int, int]]:
    """``X[E,W]`` cards on every cell from (a, y) to (b, y) (cases.md notation)."""
    return [("EW", x, y) for x in range(a, b + 1)]


def make(cells=(), *, n=3, hands=None, roles=None, config=None, broken=None, **kw):
    """Build a position through :func:`build_state`: ``cells`` in shape notation, hands as
    ids/shapes (default: every seat holds one map).

    The deck has only 3 ``EW`` straights, 1 of each dead end, ... (RULES 1.1), while the
    scenarios of cases.md (``row0(1..6)``) need more: positions are built with
    ``check_counts=False``, and ``game.surplus`` lists the hand and board cards beyond the
    deck's counts.
    """
    if roles is None:
        roles = ["gold-digger"] * n
    n = len(roles)
    if hands is None:
        hands = [["map"]] * n
    hands = [hand_kinds(h) for h in hands]
    if config is None:
        config = GameConfig(num_players=n)
    if kw.get("deck") is not None:
        kw["deck"] = hand_kinds(kw["deck"])
    cards = list(board_cards(cells))
    g = build_state(
        config, roles=roles, hands=hands, board=cards, broken=broken, check_counts=False, **kw
    )
    left = deck_counts(False).copy()
    for tools in broken or ():
        for t in tools:
            left[KIND_INDEX["break_" + (t if isinstance(t, str) else TOOLS[t])]] -= 1
    extra_hand, extra_cells = [], []
    for s, h in enumerate(hands):
        for k in h:
            left[k] -= 1
            if left[k] < 0:
                extra_hand.append((s, k))
    for x, y, k, rot in cards:
        left[k] -= 1
        if left[k] < 0:
            extra_cells.append((x, y, k, rot))
    g.surplus = (extra_hand, extra_cells)
    return g


_CODECS: dict = {}


def codec(game) -> Codec:
    cfg = game.config
    c = _CODECS.get(cfg)
    if c is None:
        c = _CODECS[cfg] = Codec(cfg)
    return c


def legal(game, seat=None) -> list:
    """Decoded legal actions of the seat to act (from the codec's array mask)."""
    c = codec(game)
    s = game.current if seat is None else seat
    m = c.mask(game, s)
    return [c.decode(int(i), s, game.n) for i in np.nonzero(m)[0]]


def placements(game) -> set[tuple[str, int, int]]:
    """``{(shape, x, y)}`` of legal path placements per the mask."""
    return {
        (shape_of(a.kind, a.rotated), a.x, a.y) for a in legal(game) if isinstance(a, PlacePath)
    }


def placements_of(game, shape: str) -> set[tuple[int, int]]:
    return {(x, y) for s, x, y in placements(game) if s == shape}


def rockfall_targets(game) -> set[tuple[int, int]]:
    return {(a.x, a.y) for a in legal(game) if isinstance(a, Rockfall)}


def map_targets(game) -> set[int]:
    return {a.goal for a in legal(game) if isinstance(a, Map)}


def break_targets(game, kind_id: str) -> set[int]:
    k = K(kind_id)
    return {a.target for a in legal(game) if isinstance(a, BreakTool) and a.kind == k}


def repair_targets(game, kind_id: str) -> set[tuple[int, int]]:
    """``{(tool, target seat)}`` of legal repairs with that card."""
    k = K(kind_id)
    return {(a.tool, a.target) for a in legal(game) if isinstance(a, Repair) and a.kind == k}


def discards(game) -> set[int]:
    return {a.kind for a in legal(game) if isinstance(a, Discard)}


def can(game, action) -> bool:
    """Mask bit of ``action`` for the seat to act, cross-checked against ``Game.check``."""
    c = codec(game)
    idx = c.encode(action, game.current, game.n)
    bit = bool(c.mask(game)[idx])
    assert bit == (game.check(action) is None), (action, game.check(action))
    return bit


def place(shape: str, x: int, y: int) -> PlacePath:
    k, rot = shape_kind(shape)
    return PlacePath(k, x, y, rot)


def kind_name(k: int) -> str:
    return ALL_KINDS[k].id
