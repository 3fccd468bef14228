"""The card catalogue as data (RULES 1, 6.2-6.5, Appendix A).

Every card *kind* is one row of :data:`CARD_KINDS`.  A path-type kind is described by its
segments at rotation 0 (RULES 0.3): each segment is a 5-bit mask of sides (``N=1, E=2, S=4,
W=8``, ``L=16`` for the ladder / start node of Saboteur 2).  A segment of a single side is a
dead-end *stub*.  Openings (used for edge matching) are the union of all segments without ``L``.

Rotation by 180 degrees is the bit permutation ``N<->S, E<->W`` (:func:`rotate`).  Every
distinct oriented form of a path-type kind is a *variant* (:data:`VARIANTS`); a kind that is
symmetric under 180 degrees has one variant, the others two (RULES 0.2).  Nothing about a card's
shape is written as code: rules read these tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

# --- sides (RULES 0.2) ---------------------------------------------------------------
N, E, S, W, L = 1, 2, 4, 8, 16
SIDES = (N, E, S, W)
SIDE_NAMES = {N: "N", E: "E", S: "S", W: "W", L: "L"}
#: (dx, dy) of the neighbour across each side, indexed by side bit position 0..3 (N, E, S, W).
SIDE_DELTA = ((0, -1), (1, 0), (0, 1), (-1, 0))
#: bit of the facing side, indexed by side bit position 0..3.
FACING = (S, W, N, E)

# --- tools (RULES 1.3) ----------------------------------------------------------------
TOOLS = ("pick", "lantern", "cart")
PICK, LANTERN, CART = 0, 1, 2

# --- roles (RULES 1.5, 6.2) -----------------------------------------------------------
GOLD_DIGGER, SABOTEUR = 0, 1
BASE_ROLES = ("gold-digger", "saboteur")

#: RULES 2.2: players -> (saboteur cards, gold-digger cards) with one card set aside.
ROLE_TABLE_PUBLISHED = {
    3: (1, 3),
    4: (1, 4),
    5: (2, 4),
    6: (2, 5),
    7: (3, 5),
    8: (3, 6),
    9: (3, 7),
    10: (4, 7),
}
#: RULES 10 ``role_table="seed"``: exactly as many cards as players (10p deals 10 of all 11).
ROLE_TABLE_SEED = {
    3: (1, 2),
    4: (1, 3),
    5: (2, 3),
    6: (2, 4),
    7: (3, 4),
    8: (3, 5),
    9: (3, 6),
    10: (4, 7),
}
#: RULES 2.3: players -> hand size.
HAND_SIZE = {3: 6, 4: 6, 5: 6, 6: 5, 7: 5, 8: 4, 9: 4, 10: 4}
#: RULES 5.3: saboteurs in play -> nuggets each.
SABOTEUR_PAYOUT = {1: 4, 2: 3, 3: 3, 4: 2}
#: RULES 1.4: nugget value -> number of gold-nugget cards (28 cards, 44 nuggets).
GOLD_CARDS = {1: 16, 2: 8, 3: 4}

# --- goals (RULES 1.2, 2.1) -----------------------------------------------------------
#: Goal slots, top to bottom: (x, y) cells of the three goal cards.
GOAL_CELLS = ((8, -2), (8, 0), (8, 2))
START_CELL = (0, 0)
GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B = 0, 1, 2
GOAL_NAMES = ("gold", "stone", "stone")


@dataclass(frozen=True)
class CardKind:
    """One card kind: a row of the card table.

    Attributes:
        id: the RULES Appendix A id (``"B05"``, ``"break_pick"``, ...).
        name: a short English name.
        category: ``"path"`` (tunnel card in the draw deck), ``"action"``, or ``"fixed"``
            (start and goal cards, never in a hand).
        count_base: copies in the base-game deck (RULES 1).
        count_expansion: copies added by Saboteur 2 (RULES 6.3, 6.5).
        segments: path kinds only: segments at rotation 0, 5-bit side masks (RULES 0.3).
        effect: action kinds only: ``("break", tool)``, ``("repair", (tool, ...))``,
            ``("rockfall",)``, ``("map",)`` or an expansion effect name.
        door: ``""``, ``"green"`` or ``"blue"`` (RULES 6.3).
        crystals: crystals shown on the card (RULES 6.3).
    """

    id: str
    name: str
    category: str
    count_base: int
    count_expansion: int
    segments: tuple[int, ...] = ()
    effect: tuple[Any, ...] = ()
    door: str = ""
    crystals: int = 0

    @property
    def openings(self) -> int:
        """4-bit mask of tunnel openings at rotation 0 (``L`` removed)."""
        m = 0
        for s in self.segments:
            m |= s
        return m & 15

    @property
    def is_ladder(self) -> bool:
        return any(s & L for s in self.segments) and self.category == "path"

    @property
    def is_dead_end(self) -> bool:
        """True when no segment joins two sides (every opening is a stub)."""
        return all(bin(s & 15).count("1") <= 1 and not s & L for s in self.segments)


def _seg(*sides: str) -> int:
    m = 0
    for s in sides:
        m |= {"N": N, "E": E, "S": S, "W": W, "L": L}[s]
    return m


def _path(
    kid: str,
    name: str,
    base: int,
    exp: int,
    segments: Iterable[str],
    stubs: Iterable[str] = (),
    *,
    door: str = "",
    crystals: int = 0,
) -> CardKind:
    """A path kind: ``segments`` as strings of sides (``"NS"``), ``stubs`` one side each."""
    segs = tuple(_seg(*g) for g in segments) + tuple(_seg(s) for s in stubs)
    return CardKind(kid, name, "path", base, exp, segs, door=door, crystals=crystals)


def _action(kid: str, name: str, base: int, exp: int, effect: tuple[Any, ...]) -> CardKind:
    return CardKind(kid, name, "action", base, exp, (), effect)


# The card table (RULES 1.1, 1.3, 6.3, 6.5, Appendix A).  Order fixes the kind index.
CARD_KINDS: tuple[CardKind, ...] = (
    # base tunnel cards: 31 through cards, 9 dead ends (RULES 1.1)
    _path("B01", "straight N-S", 4, 0, ["NS"]),
    _path("B02", "straight E-W", 3, 0, ["EW"]),
    _path("B03", "curve N-E", 5, 0, ["NE"]),
    _path("B04", "curve N-W", 4, 0, ["NW"]),
    _path("B05", "T-junction N-E-S", 5, 0, ["NES"]),
    _path("B06", "T-junction N-E-W", 5, 0, ["NEW"]),
    _path("B07", "crossroads", 5, 0, ["NESW"]),
    _path("B08", "dead end N", 1, 0, [], "N"),
    _path("B09", "dead end E", 1, 0, [], "E"),
    _path("B10", "dead end N/S", 1, 0, [], "NS"),
    _path("B11", "dead end E/W", 1, 0, [], "EW"),
    _path("B12", "dead end N/E", 1, 0, [], "NE"),
    _path("B13", "dead end N/W", 1, 0, [], "NW"),
    _path("B14", "dead end N/E/S", 1, 0, [], "NES"),
    _path("B15", "dead end N/E/W", 1, 0, [], "NEW"),
    _path("B16", "dead end N/E/S/W", 1, 0, [], "NESW"),
    # base action cards (RULES 1.3)
    _action("break_pick", "broken pick", 3, 0, ("break", PICK)),
    _action("break_lantern", "broken lantern", 3, 0, ("break", LANTERN)),
    _action("break_cart", "broken cart", 3, 0, ("break", CART)),
    _action("repair_pick", "repair pick", 2, 0, ("repair", (PICK,))),
    _action("repair_lantern", "repair lantern", 2, 0, ("repair", (LANTERN,))),
    _action("repair_cart", "repair cart", 2, 0, ("repair", (CART,))),
    _action("repair_pick_lantern", "repair pick or lantern", 1, 0, ("repair", (PICK, LANTERN))),
    _action("repair_pick_cart", "repair pick or cart", 1, 0, ("repair", (PICK, CART))),
    _action("repair_lantern_cart", "repair lantern or cart", 1, 0, ("repair", (LANTERN, CART))),
    _action("rockfall", "rockfall", 3, 1, ("rockfall",)),
    _action("map", "map", 6, 0, ("map",)),
    # Saboteur 2 path cards (RULES 6.3)
    _path("X01", "bridge", 0, 2, ["NS", "EW"]),
    _path("X02", "double curve N-W/E-S", 0, 1, ["NW", "ES"]),
    _path("X03", "double curve N-E/S-W", 0, 1, ["NE", "SW"]),
    _path("X04", "ladder N", 0, 1, ["NL"]),
    _path("X05", "ladder E", 0, 1, ["EL"]),
    _path("X06", "ladder curve N-W", 0, 1, ["NWL"]),
    _path("X07", "ladder curve N-E", 0, 1, ["NEL"]),
    _path("X08", "green door curve N-W", 0, 1, ["NW"], door="green"),
    _path("X09", "green door E-W", 0, 1, ["EW"], door="green"),
    _path("X10", "green door N-S, stub E", 0, 1, ["NS"], "E", door="green"),
    _path("X11", "blue door N-S", 0, 1, ["NS"], door="blue"),
    _path("X12", "blue door E-W", 0, 1, ["EW"], door="blue"),
    _path("X13", "blue door curve N-E", 0, 1, ["NE"], door="blue"),
    _path("X14", "curve N-E, stub S", 0, 1, ["NE"], "S"),
    _path("X15", "straight N-S, stubs E/W", 0, 1, ["NS"], "EW"),
    _path("X16", "straight E-W, stubs N/S", 0, 1, ["EW"], "NS"),
    _path("X17", "straight N-S, stub E", 0, 1, ["NS"], "E"),
    _path("X18", "curve E-S, stub N", 0, 2, ["ES"], "N"),
    _path("X19", "crystal dead end E", 0, 1, [], "E", crystals=1),
    _path("X20", "crystal dead end N", 0, 1, [], "N", crystals=1),
    _path("X21", "crystal T N-E-W", 0, 3, ["NEW"], crystals=1),
    _path("X22", "crystal T N-E-W, stub S", 0, 1, ["NEW"], "S", crystals=1),
    _path("X23", "crystal T N-E-S", 0, 1, ["NES"], crystals=1),
    _path("X24", "crystal T N-S-W, stub E", 0, 1, ["NSW"], "E", crystals=1),
    _path("X25", "crystal crossroads", 0, 1, ["NESW"], crystals=1),
    _path("X26", "crystal E-W, stub S", 0, 1, ["EW"], "S", crystals=1),
    # Saboteur 2 action cards (RULES 6.5); the extra rockfall is counted on "rockfall" above
    _action("theft", "theft", 0, 4, ("theft",)),
    _action("hands_off", "hands off!", 0, 3, ("hands_off",)),
    _action("swap_hand", "swap your hand", 0, 2, ("swap_hand",)),
    _action("inspection", "inspection", 0, 2, ("inspection",)),
    _action("swap_hats", "swap your hats", 0, 2, ("swap_hats",)),
    _action("trapped", "trapped!", 0, 3, ("trapped",)),
    _action("free_at_last", "free at last!", 0, 4, ("free_at_last",)),
)

#: Start and goal cards: not in any deck (RULES 1.2).
FIXED_KINDS: tuple[CardKind, ...] = (
    CardKind("START", "start", "fixed", 1, 0, (_seg("N", "E", "S", "W", "L"),)),
    CardKind("G_GOLD", "gold goal", "fixed", 1, 0, (_seg("N", "E", "S", "W"),)),
    CardKind("G_STONE_A", "stone goal A", "fixed", 1, 0, (_seg("N", "E"),)),
    CardKind("G_STONE_B", "stone goal B", "fixed", 1, 0, (_seg("N", "W"),)),
)
ALL_KINDS = CARD_KINDS + FIXED_KINDS
KIND_INDEX = {k.id: i for i, k in enumerate(ALL_KINDS)}
START_KIND = KIND_INDEX["START"]
#: goal identity (GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B) -> kind index
GOAL_KINDS = (KIND_INDEX["G_GOLD"], KIND_INDEX["G_STONE_A"], KIND_INDEX["G_STONE_B"])

#: number of kinds that can be in a hand: base game, expansion (RULES 1, 6)
N_BASE_KINDS = 27
N_EXPANSION_KINDS = len(CARD_KINDS)


def rotate(mask: int) -> int:
    """Rotate a 5-bit side mask by 180 degrees (RULES 0.2): N<->S, E<->W, L unchanged."""
    return (
        ((mask & N) << 2) | ((mask & S) >> 2) | ((mask & E) << 2) | ((mask & W) >> 2) | (mask & L)
    )


@dataclass(frozen=True)
class Variant:
    """One oriented form of a path-type kind as it lies on the table.

    ``segments`` are 5-bit masks after rotation; ``seg_of_side[b]`` is the index of the
    segment holding side bit position ``b`` (0..3), or -1 when that side is closed.
    """

    index: int
    kind: int
    rotated: bool
    segments: tuple[int, ...]
    openings: int
    seg_of_side: tuple[int, int, int, int]
    stub: tuple[bool, ...]


def _segment_of_side(segs: tuple[int, ...], b: int) -> int:
    """Index of the first segment holding side bit position ``b``, or -1 (side closed)."""
    return next((i for i, s in enumerate(segs) if s & (1 << b)), -1)


def _build_variants() -> tuple[tuple[Variant, ...], dict[tuple[int, bool], int]]:
    out: list[Variant] = []
    index: dict[tuple[int, bool], int] = {}
    for k, kind in enumerate(ALL_KINDS):
        if kind.category == "action":
            continue
        seen: list[frozenset[int]] = []
        for rotated in (False, True):
            segs = tuple(rotate(s) if rotated else s for s in kind.segments)
            if frozenset(segs) in seen:
                index[(k, rotated)] = index[(k, False)]
                continue
            seen.append(frozenset(segs))
            opening = 0
            for s in segs:
                opening |= s
            sos = (
                _segment_of_side(segs, 0),
                _segment_of_side(segs, 1),
                _segment_of_side(segs, 2),
                _segment_of_side(segs, 3),
            )
            stub = tuple(bin(s).count("1") == 1 for s in segs)
            v = Variant(len(out), k, rotated, segs, opening & 15, sos, stub)
            index[(k, rotated)] = v.index
            out.append(v)
    return tuple(out), index


#: All oriented forms of every path, start and goal kind.  Index = variant id.
VARIANTS, VARIANT_OF = _build_variants()
N_VARIANTS = len(VARIANTS)
#: per-variant card kind (int16)
VARIANT_KIND = np.array([v.kind for v in VARIANTS], dtype=np.int16)


def turns(k: int) -> bool:
    """Whether a card of kind ``k`` looks otherwise turned 180 degrees (two variants; a
    symmetric one, e.g. a straight or the crossroads, has one, RULES 0.2).  ``False`` for a
    kind that is not laid in the maze."""
    return (k, True) in VARIANT_OF and VARIANT_OF[(k, True)] != VARIANT_OF[(k, False)]


def placeable_variants(expansion: bool) -> tuple[int, ...]:
    """Variant ids of the path cards of the deck (base: 26, expansion: 69), in kind order.

    These index the placement block of the action codec (DESIGN 3).
    """
    n_kinds = N_EXPANSION_KINDS if expansion else N_BASE_KINDS
    return tuple(
        v.index for v in VARIANTS if v.kind < n_kinds and ALL_KINDS[v.kind].category == "path"
    )


def deck_counts(expansion: bool) -> np.ndarray:
    """Copies of each hand kind in the draw deck, shape ``(n_kinds,)`` int64.

    Base game: 67 cards over 27 kinds (RULES 2.4); expansion: 118 over 60 (RULES 6.5).
    """
    n_kinds = N_EXPANSION_KINDS if expansion else N_BASE_KINDS
    c = np.array(
        [k.count_base + (k.count_expansion if expansion else 0) for k in CARD_KINDS[:n_kinds]],
        dtype=np.int64,
    )
    return c


def kind_label(k: int, rotated: bool = False) -> str:
    """The kind's id with its openings as they lie, e.g. ``"B03 NE"`` / ``"B03 SW (180)"``."""
    kind = ALL_KINDS[k]
    if kind.category == "action":
        return kind.id
    v = VARIANTS[VARIANT_OF[(k, rotated)]]
    return f"{kind.id} {segments_text(v.segments)}" + (" (180)" if v.rotated else "")


def segments_text(segments: tuple[int, ...]) -> str:
    """Segments as text in the notation of cases/positions (``"NS"``, ``"N/S"``, ``"NES/W"``)."""
    parts = []
    for s in segments:
        parts.append("".join(SIDE_NAMES[b] for b in (N, E, S, W, L) if s & b))
    return "/".join(parts)


# --- Saboteur 2 (RULES 6) ----------------------------------------------------------------
#: Saboteur 2 roles (RULES 6.2), in the order of the expansion's role one-hot.
GREEN_DIGGER, BLUE_DIGGER, BOSS, PROFITEER, GEOLOGIST, X_SABOTEUR = range(6)
EXPANSION_ROLES = ("green-digger", "blue-digger", "boss", "profiteer", "geologist", "saboteur")
#: RULES 6.2: the 15 dwarf cards of Saboteur 2, all used whatever the player count.
ROLES_S2 = {GREEN_DIGGER: 4, BLUE_DIGGER: 4, BOSS: 1, PROFITEER: 1, GEOLOGIST: 2, X_SABOTEUR: 3}
#: RULES 6.9: gold per winner by the number of winners; 5 or more winners get 1 each.
S2_PAYOUT = {1: 5, 2: 4, 3: 3, 4: 2}
S2_PAYOUT_MANY = 1
#: RULES 6.9: a winner of this role gets that much less than a normal winner (never below 0).
S2_PAYOUT_REDUCTION = {BOSS: 1, PROFITEER: 2}
#: RULES 6.6: cards per hand and cards removed unseen, whatever the player count.
S2_HAND_SIZE = 6
S2_REMOVED = 10

#: Cards that may lie in front of a player (RULES 3.2, 6.5): one of each at most.  Slots 0-2
#: are the broken tools (``Game.broken``), 3 Trapped!, 4 Theft (``Game.xfront``).
FRONT_SLOTS = ("pick", "lantern", "cart", "trapped", "theft")
FRONT_TRAPPED, FRONT_THEFT = 3, 4

#: The Saboteur 2 action cards that name a player (RULES 6.5), in codec order, as data:
#: effect name -> (what it does, front slot it puts / clears or -1, who may be the target).
#: ``put``: lay the card in front of the target (slot must be free); ``clear``: discard the card
#: in that slot of the target together with this card (slot must be taken); the other verbs are
#: their own effects.  Targets: ``self`` (only yourself), ``any`` (anyone incl. yourself),
#: ``other`` (anyone but yourself).
X_EFFECTS = {
    "theft": ("put", FRONT_THEFT, "self"),
    "hands_off": ("clear", FRONT_THEFT, "any"),
    "swap_hand": ("swap_hand", -1, "other"),
    "inspection": ("inspection", -1, "other"),
    "swap_hats": ("swap_hats", -1, "any"),
    "trapped": ("put", FRONT_TRAPPED, "other"),
    "free_at_last": ("clear", FRONT_TRAPPED, "any"),
}
X_ACTION_KINDS = tuple(KIND_INDEX[e] for e in X_EFFECTS)
#: per variant: door colour code (0 none, 1 green, 2 blue) and crystals (RULES 6.3)
DOOR_CODES = ("", "green", "blue")
VARIANT_DOOR = np.array([DOOR_CODES.index(ALL_KINDS[v.kind].door) for v in VARIANTS], dtype=np.int8)
VARIANT_CRYSTALS = np.array([ALL_KINDS[v.kind].crystals for v in VARIANTS], dtype=np.int16)
VARIANT_LADDER = np.array([ALL_KINDS[v.kind].is_ladder for v in VARIANTS], dtype=bool)
