"""Public-event categories: what a public event says about its actor (and target)."""

from __future__ import annotations

from saboteur_env.engine.cards import CARD_KINDS, GOAL_CELLS
from saboteur_env.engine.config import GameConfig

GOAL_X = GOAL_CELLS[0][0]


# --- public-event categories -----------------------------------------------------------
#: what a public event says about its actor (and, for tools, its target)
CATEGORIES = ("path_advance", "path_other", "path_dead_end", "rockfall_dead_end",
              "rockfall_through", "map", "discard", "break", "repair_self", "repair_other")
CAT_INDEX = {c: i for i, c in enumerate(CATEGORIES)}
TARGETED = ("break", "repair_other")


class PublicTracker:
    """Turns public events into (actor, category, target) triples, keeping the little public
    state it needs (which maze cells hold tunnel cards: a through card that reaches a column
    further east than any before is ``path_advance``)."""

    def __init__(self) -> None:
        self.new_round()

    def new_round(self) -> None:
        self.cells: dict[tuple[int, int], int] = {}
        self.turn = 0

    def frontier(self) -> int:
        return max((x for x, _ in self.cells), default=0)

    def categorize(self, event) -> tuple[int, str, int] | None:
        t, d, a = event.type, event.data, event.seat
        if t == "path_placed":
            self.turn += 1
            dead = CARD_KINDS[d["kind"]].is_dead_end
            front = self.frontier()
            self.cells[(d["x"], d["y"])] = d["kind"]
            if dead:
                return a, "path_dead_end", -1
            return a, ("path_advance" if d["x"] > front and d["x"] < GOAL_X else "path_other"), -1
        if t == "rockfall":
            self.turn += 1
            self.cells.pop((d["x"], d["y"]), None)
            dead = CARD_KINDS[d["kind"]].is_dead_end
            return a, ("rockfall_dead_end" if dead else "rockfall_through"), -1
        if t == "map_played":
            self.turn += 1
            return a, "map", -1
        if t == "discarded":
            self.turn += 1
            return a, "discard", -1
        if t == "tool_broken":
            self.turn += 1
            return a, "break", int(d["target"])
        if t == "tool_repaired":
            self.turn += 1
            tg = int(d["target"])
            return (a, "repair_self", -1) if tg == a else (a, "repair_other", tg)
        return None


# --- Saboteur 2 public-event categories (RULES 6.3-6.9) ---------------------------------
#: what a public Saboteur 2 event says about its actor (and, for the targeted ones, its
#: target).  Path cards by their most telling feature: a door (RULES 6.4: a team's doors keep
#: the other team from winning), a crystal (RULES 6.9: geologists are paid per crystal), a dead
#: end, else an advance of the tunnel front or another tunnel card; rockfalls by the card they
#: remove; one category per action card (RULES 6.5), split by self / other target where the
#: meaning differs; ``pass`` is one pass of 1-3 discards (RULES 6.7 option 4, one
#: ``pass_done`` event), ``remove`` discarding two cards (option 3) or a Hands off! on one's
#: own Theft, ``steal`` the round-end Theft victim (RULES 6.9).
X_CATEGORIES = (
    "path_advance", "path_other", "path_dead_end", "door_green", "door_blue", "crystal",
    "rockfall_dead_end", "rockfall_through", "rockfall_door_green", "rockfall_door_blue",
    "map", "pass", "remove", "break", "repair_self", "repair_other", "trapped", "free_self",
    "free_other", "theft", "hands_off", "inspection", "swap_hats_self", "swap_hats_other",
    "swap_hand", "steal")
X_CAT_INDEX = {c: i for i, c in enumerate(X_CATEGORIES)}
#: categories with a target factor ``f_c(actor role, target role)``: harmful ones (a player
#: hurts whom it takes for an enemy), helpful ones (it helps a friend) and the neutral ones
#: (inspection and swaps: factor 1 when hand-set, fitted like the others)
X_HARMFUL = ("break", "trapped", "hands_off", "swap_hats_other", "steal")
X_HELPFUL = ("repair_other", "free_other")
X_TARGETED = X_HARMFUL + X_HELPFUL + ("inspection", "swap_hand")


class XPublicTracker(PublicTracker):
    """:class:`PublicTracker` for Saboteur 2: public events -> ``(actor, category in
    X_CATEGORIES, target or -1)``; single ``discarded`` cards, ``front_removed``, goal reveals
    and the round end carry no category."""

    def categorize(self, event) -> tuple[int, str, int] | None:
        t, d, a = event.type, event.data, event.seat
        if t == "path_placed":
            self.turn += 1
            kind = CARD_KINDS[d["kind"]]
            front = self.frontier()
            self.cells[(d["x"], d["y"])] = d["kind"]
            if kind.door:
                return a, f"door_{kind.door}", -1
            if kind.crystals:
                return a, "crystal", -1
            if kind.is_dead_end:
                return a, "path_dead_end", -1
            return a, ("path_advance" if front < d["x"] < GOAL_X else "path_other"), -1
        if t == "rockfall":
            self.turn += 1
            self.cells.pop((d["x"], d["y"]), None)
            kind = CARD_KINDS[d["kind"]]
            if kind.door:
                return a, f"rockfall_door_{kind.door}", -1
            return a, ("rockfall_dead_end" if kind.is_dead_end else "rockfall_through"), -1
        if t in ("map_played", "tool_broken", "tool_repaired"):
            return super().categorize(event)  # the same cards and meaning as the base game
        if t in ("pass_done", "remove_started"):
            self.turn += 1
            return a, ("pass" if t == "pass_done" else "remove"), -1
        if t == "theft":
            return a, "steal", int(d["target"])
        if t == "action_played":
            self.turn += 1
            card, tg = d["card"], int(d["target"])
            if card == "theft":
                return a, "theft", -1
            if card in ("hands_off", "free_at_last", "swap_hats") and tg == a:
                return a, {"hands_off": "remove", "free_at_last": "free_self",
                           "swap_hats": "swap_hats_self"}[card], -1
            return a, {"free_at_last": "free_other", "swap_hats": "swap_hats_other"}.get(
                card, card), tg
        return None


def event_categories(config: GameConfig) -> tuple[PublicTracker, dict[str, int]]:
    """A fresh public-event tracker and the category index of ``config``'s game: base game
    :class:`PublicTracker` / :data:`CAT_INDEX`, Saboteur 2 :class:`XPublicTracker` /
    :data:`X_CAT_INDEX`."""
    if getattr(config, "expansion", False):
        return XPublicTracker(), X_CAT_INDEX
    return PublicTracker(), CAT_INDEX
