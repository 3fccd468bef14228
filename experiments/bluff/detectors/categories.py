"""Public-event categories: what a public event says about its actor (and, for the targeted
categories, its target), as one table per ruleset.

A :class:`CategoryTable` lists a variant's categories and, per :class:`EventType`, the rule that
names an event's category; :data:`CATEGORY_TABLES` holds one table per ruleset, keyed by
``Ruleset.name`` (``config.ruleset.name``): :data:`BASE_CATEGORIES` (RULES 3) and
:data:`S2_CATEGORIES` (RULES 6.3-6.9).  One :class:`PublicTracker` applies any table, keeping
the little public state the rules need (the maze cells that hold tunnel cards, the turn count).

The rules, as data:

* :class:`Fixed`: one category, no target (a map, a discard, a pass);
* :class:`Targeted`: one category with the event's ``target`` (a broken tool, Trapped!);
* :class:`SelfOrOther`: one category when the actor targets itself (no target), another with
  the target otherwise (repairs, Free at last!, Swap your hats, Hands off!);
* :class:`PathCard`: a placed tunnel card by its most telling mark (``"door"``:
  ``door_<colour>``; ``"crystal"``: ``crystal``), else ``path_dead_end``, else
  ``path_advance`` (a column further east than every tunnel card before, short of the goals)
  or ``path_other``;
* :class:`Rockfall`: by the card removed (``"door"``: ``rockfall_door_<colour>``), else
  ``rockfall_dead_end`` or ``rockfall_through``;
* :class:`ByCard`: a Saboteur 2 action card, one rule per effect name (``data["card"]``).

Every categorised event is a turn of the tracker's count except where a rule says
``turn=False`` (the round-end Theft victim).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from saboteur_env.engine.cards import CARD_KINDS, GOAL_CELLS
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import EventType

GOAL_X = GOAL_CELLS[0][0]

#: ``(actor seat, category, target seat or -1)``
Category = tuple[int, str, int]


# --- rules ---------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Rule:
    """How one event type is categorised; ``turn``: the event counts as a turn."""

    turn: bool = True

    def apply(self, tracker: PublicTracker, event) -> Category:
        """The category triple of ``event`` (updating ``tracker``'s maze cells if need be)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Fixed(Rule):
    """Always ``category``, no target."""

    category: str

    def apply(self, tracker, event) -> Category:
        return event.seat, self.category, -1


@dataclass(frozen=True)
class Targeted(Rule):
    """``category`` with the event's ``data["target"]``."""

    category: str

    def apply(self, tracker, event) -> Category:
        return event.seat, self.category, int(event.data["target"])


@dataclass(frozen=True)
class SelfOrOther(Rule):
    """``on_self`` (no target) when ``data["target"]`` is the actor, else ``on_other`` with the
    target."""

    on_self: str
    on_other: str

    def apply(self, tracker, event) -> Category:
        a, tg = event.seat, int(event.data["target"])
        return (a, self.on_self, -1) if tg == a else (a, self.on_other, tg)


@dataclass(frozen=True)
class PathCard(Rule):
    """A tunnel card placed at ``(x, y)`` (RULES 3.1): the first of ``marks`` the card kind has
    (``"door"``: ``door_<colour>``, RULES 6.4; ``"crystal"``: ``crystal``, RULES 6.9), else
    ``path_dead_end``, else ``path_advance`` if it reaches a column further east than every
    tunnel card of the round before it (short of the goal column), else ``path_other``."""

    marks: tuple[str, ...] = ()

    def apply(self, tracker, event) -> Category:
        d, a = event.data, event.seat
        kind = CARD_KINDS[d["kind"]]
        front = tracker.frontier()
        tracker.cells[(d["x"], d["y"])] = d["kind"]
        for mark in self.marks:
            if mark == "door" and kind.door:
                return a, f"door_{kind.door}", -1
            if mark == "crystal" and kind.crystals:
                return a, "crystal", -1
        if kind.is_dead_end:
            return a, "path_dead_end", -1
        return a, ("path_advance" if front < d["x"] < GOAL_X else "path_other"), -1


@dataclass(frozen=True)
class Rockfall(Rule):
    """A rockfall (RULES 3.4) by the card it removes: ``"door"`` in ``marks``: a door is
    ``rockfall_door_<colour>``; else ``rockfall_dead_end`` or ``rockfall_through``."""

    marks: tuple[str, ...] = ()

    def apply(self, tracker, event) -> Category:
        d, a = event.data, event.seat
        tracker.cells.pop((d["x"], d["y"]), None)
        kind = CARD_KINDS[d["kind"]]
        if "door" in self.marks and kind.door:
            return a, f"rockfall_door_{kind.door}", -1
        return a, ("rockfall_dead_end" if kind.is_dead_end else "rockfall_through"), -1


@dataclass(frozen=True)
class ByCard(Rule):
    """A Saboteur 2 action card (RULES 6.5): the rule of its effect name ``data["card"]`` in
    ``cards`` (their ``turn`` is not read: the card is one turn); any other card is its own
    name with the target."""

    cards: Mapping[str, Rule]

    def apply(self, tracker, event) -> Category:
        card = event.data["card"]
        return self.cards.get(card, Targeted(card)).apply(tracker, event)


# --- tables --------------------------------------------------------------------------------
@dataclass(frozen=True)
class CategoryTable:
    """The public-event categories of one ruleset.

    Attributes:
        ruleset: the ``Ruleset.name`` it belongs to.
        categories: every category, in column order (the event model's and the features').
        targeted: the categories with a target factor ``f_c(actor role, target role)``.
        rules: event type -> :class:`Rule`; an event of any other type has no category.
        index: category -> column (derived).
    """

    ruleset: str
    categories: tuple[str, ...]
    targeted: tuple[str, ...]
    rules: Mapping[EventType, Rule]
    index: Mapping[str, int] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", MappingProxyType(dict(self.rules)))
        object.__setattr__(
            self, "index", MappingProxyType({c: i for i, c in enumerate(self.categories)})
        )


#: The base game (RULES 3): tunnel cards by their effect on the tunnel front, rockfalls by the
#: card they remove, maps, discards, broken tools (the target says whom the actor takes for an
#: enemy) and repairs (of one's own tool, or someone else's: a friend's).
BASE_CATEGORIES = CategoryTable(
    ruleset="base",
    categories=(
        "path_advance",
        "path_other",
        "path_dead_end",
        "rockfall_dead_end",
        "rockfall_through",
        "map",
        "discard",
        "break",
        "repair_self",
        "repair_other",
    ),
    targeted=("break", "repair_other"),
    rules={
        EventType.PATH_PLACED: PathCard(),
        EventType.ROCKFALL: Rockfall(),
        EventType.MAP_PLAYED: Fixed("map"),
        EventType.DISCARDED: Fixed("discard"),
        EventType.TOOL_BROKEN: Targeted("break"),
        EventType.TOOL_REPAIRED: SelfOrOther("repair_self", "repair_other"),
    },
)

#: Saboteur 2 categories with a target factor: harmful ones (a player hurts whom it takes for
#: an enemy), helpful ones (it helps a friend) and the neutral ones (Inspection and Swap your
#: hand: factor 1 when hand-set, fitted like the others).
X_HARMFUL = ("break", "trapped", "hands_off", "swap_hats_other", "steal")
X_HELPFUL = ("repair_other", "free_other")

#: Saboteur 2 (RULES 6.3-6.9).  Path cards by their most telling feature: a door (RULES 6.4: a
#: team's doors keep the other team from winning), a crystal (RULES 6.9: geologists are paid
#: per crystal), a dead end, else an advance of the tunnel front or another tunnel card;
#: rockfalls by the card they remove; one category per action card (RULES 6.5), split by self /
#: other target where the meaning differs; ``pass`` is one pass of 1-3 discards (RULES 6.7
#: option 4, one ``pass_done`` event; its single discards carry no category), ``remove``
#: discarding two cards (option 3) or a Hands off! on one's own Theft, ``steal`` the round-end
#: Theft victim (RULES 6.9, no turn).  ``front_removed``, goal reveals and the round end carry
#: no category.
S2_CATEGORIES = CategoryTable(
    ruleset="saboteur_2",
    categories=(
        "path_advance",
        "path_other",
        "path_dead_end",
        "door_green",
        "door_blue",
        "crystal",
        "rockfall_dead_end",
        "rockfall_through",
        "rockfall_door_green",
        "rockfall_door_blue",
        "map",
        "pass",
        "remove",
        "break",
        "repair_self",
        "repair_other",
        "trapped",
        "free_self",
        "free_other",
        "theft",
        "hands_off",
        "inspection",
        "swap_hats_self",
        "swap_hats_other",
        "swap_hand",
        "steal",
    ),
    targeted=X_HARMFUL + X_HELPFUL + ("inspection", "swap_hand"),
    rules={
        EventType.PATH_PLACED: PathCard(marks=("door", "crystal")),
        EventType.ROCKFALL: Rockfall(marks=("door",)),
        EventType.MAP_PLAYED: Fixed("map"),
        EventType.TOOL_BROKEN: Targeted("break"),
        EventType.TOOL_REPAIRED: SelfOrOther("repair_self", "repair_other"),
        EventType.PASS_DONE: Fixed("pass"),
        EventType.REMOVE_STARTED: Fixed("remove"),
        EventType.THEFT: Targeted("steal", turn=False),
        EventType.ACTION_PLAYED: ByCard(
            {
                "theft": Fixed("theft"),
                "hands_off": SelfOrOther("remove", "hands_off"),
                "free_at_last": SelfOrOther("free_self", "free_other"),
                "swap_hats": SelfOrOther("swap_hats_self", "swap_hats_other"),
                "trapped": Targeted("trapped"),
                "inspection": Targeted("inspection"),
                "swap_hand": Targeted("swap_hand"),
            }
        ),
    },
)

#: ruleset name (``config.ruleset.name``) -> its public-event categories
CATEGORY_TABLES: Mapping[str, CategoryTable] = MappingProxyType(
    {t.ruleset: t for t in (BASE_CATEGORIES, S2_CATEGORIES)}
)

#: the base game's categories, their columns and the targeted ones
CATEGORIES = BASE_CATEGORIES.categories
CAT_INDEX = BASE_CATEGORIES.index
TARGETED = BASE_CATEGORIES.targeted
#: Saboteur 2's categories, their columns and the targeted ones
X_CATEGORIES = S2_CATEGORIES.categories
X_CAT_INDEX = S2_CATEGORIES.index
X_TARGETED = S2_CATEGORIES.targeted


class PublicTracker:
    """Turns public events into ``(actor, category, target or -1)`` triples by a
    :class:`CategoryTable`, keeping the public state its rules need: ``cells`` (maze cell ->
    card kind of the tunnel cards placed this round) and ``turn`` (categorised turns this
    round).

    Args:
        table: the categories to apply (:data:`CATEGORY_TABLES`, e.g. by
            :func:`event_categories`).
    """

    def __init__(self, table: CategoryTable) -> None:
        self.table = table
        self.new_round()

    def new_round(self) -> None:
        """A round starts: an empty maze, no turn taken."""
        self.cells: dict[tuple[int, int], int] = {}
        self.turn = 0

    def frontier(self) -> int:
        """The easternmost column holding a tunnel card this round (0 before any)."""
        return max((x for x, _ in self.cells), default=0)

    def categorize(self, event) -> Category | None:
        """The category triple of a public event, or ``None`` for an event type the table
        does not categorise."""
        rule = self.table.rules.get(event.type)
        if rule is None:
            return None
        if rule.turn:
            self.turn += 1
        return rule.apply(self, event)


def event_categories(config: GameConfig) -> tuple[PublicTracker, Mapping[str, int]]:
    """A fresh public-event tracker and the category columns of ``config``'s ruleset
    (:data:`CATEGORY_TABLES` by ``config.ruleset.name``)."""
    table = CATEGORY_TABLES[config.ruleset.name]
    return PublicTracker(table), table.index
