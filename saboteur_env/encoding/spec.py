"""The observation's spec tables, as data, and the named indexes generated from them (DESIGN 4,
8).  The encoder (:mod:`.observation`), the history features (:mod:`.history`) and every reader
of an observation (agents, trainer, detectors) index through these names, never by number.
"""

from __future__ import annotations

from enum import IntEnum

from ..engine.cards import FRONT_SLOTS, X_EFFECTS

#: (name, meaning) of each channel of the ``board`` view, shape (C, H, W), row = y - y_min,
#: column = x - x_min of the board window.  Values are 0 or 1.
BOARD_CHANNELS: tuple[tuple[str, str], ...] = (
    ("open_n", "face-up card with a tunnel opening on its N side"),
    ("open_e", "face-up card with a tunnel opening on its E side"),
    ("open_s", "face-up card with a tunnel opening on its S side"),
    ("open_w", "face-up card with a tunnel opening on its W side"),
    ("conn_n", "that N opening leads back to the start (RULES 4.1)"),
    ("conn_e", "that E opening leads back to the start"),
    ("conn_s", "that S opening leads back to the start"),
    ("conn_w", "that W opening leads back to the start"),
    ("through", "the card joins two or more openings (not a dead end)"),
    ("occupied", "any card lies here (face up or a face-down goal)"),
    ("start", "the start card"),
    ("goal_hidden", "a face-down goal card"),
    ("goal_gold_revealed", "the gold goal, face up"),
    ("goal_stone_revealed", "a stone goal, face up"),
    ("known_gold", "a goal the observer knows to be the gold (own map or reveal)"),
    ("known_stone", "a goal the observer knows to be a stone (own map or reveal)"),
    ("last_placed", "the most recent path card placed this round (none once removed)"),
)
N_BOARD_CHANNELS = len(BOARD_CHANNELS)
#: Saboteur 2 only: channels appended to the ``board`` view (RULES 6.3, 6.4).
X_BOARD_CHANNELS: tuple[tuple[str, str], ...] = (
    ("ladder", "a ladder card: its ladder node is a root (RULES 6.4)"),
    ("door_green", "a green door on the card's through tunnel"),
    ("door_blue", "a blue door on the card's through tunnel"),
    ("crystal", "a crystal on the card"),
    ("join_ns", "the card's N and S openings are joined by one tunnel (same segment)"),
    ("join_ew", "E and W joined"),
    ("join_ne", "N and E joined"),
    ("join_es", "E and S joined"),
    ("join_sw", "S and W joined"),
    ("join_wn", "W and N joined"),
)

#: (name, meaning) of each column of a ``players`` row.
PLAYER_FEATURES = (
    ("present", "1 when this relative seat is in the game"),
    ("to_act", "1 for the seat to act"),
    ("broken_pick", "a broken pick lies in front of that seat"),
    ("broken_lantern", "a broken lantern lies in front of that seat"),
    ("broken_cart", "a broken cart lies in front of that seat"),
    ("hand_size", "cards in that seat's hand"),
    ("last_card", "that seat took the last card-consuming turn"),
    ("first_player", "that seat started this round"),
)
#: columns of a ``history`` row (per relative actor, this round's counts)
HISTORY_ACTOR = ("placed_through", "placed_dead_end", "rockfalls", "maps", "discards")
#: public action types in the ``recent`` view
RECENT_TYPES = ("place", "break", "repair", "rockfall", "map", "discard")
GAME_FEATURES = (
    ("round", "0-based round index"),
    ("num_rounds", "rounds in the game"),
    ("draw_pile", "cards left in the draw pile"),
    ("discard_pile", "cards in the discard pile"),
    ("turn", "turns taken this round"),
    ("num_players", "players in the game"),
    ("path_cards_in_maze", "tunnel cards in the maze"),
)
PRIVATE_FEATURES = (
    ("gold", "the observer's own nuggets (secret from others, RULES 5.3)"),
    ("seat", "the observer's absolute seat index"),
)
#: Saboteur 2 only: public columns of an ``xplayers`` row (RULES 6.5, 6.9).
X_PLAYER_FEATURES = (
    ("trapped", "a Trapped! card lies in front of that seat"),
    ("theft", "a Theft card lies in front of that seat"),
    (
        "theft_order",
        "position (1 = first) of that seat in the round-end theft order if the "
        "round ended now; 0 = no working Theft",
    ),
    ("has_gold", "that seat holds at least 1 gold (public, RULES 6.9)"),
)
#: Saboteur 2 only: the ``phase`` view (DESIGN 3 multi-step decisions).
PHASE_FEATURES = (
    ("turn", "a normal turn"),
    ("pass", "in a pass: discard another card or end it"),
    ("remove", "discard-two-to-remove: discard the next card"),
    ("theft", "round end: choose a theft victim"),
    ("count", "cards discarded so far in this pass / removal"),
    *((f"remove_{n}", f"the {n} card in front of you is being removed") for n in FRONT_SLOTS),
    ("dwarf_aside", "dwarf cards left aside for Swap your hats"),
    ("removed", "cards removed unseen at the start of the round"),
)
#: public action types of the ``recent`` view in Saboteur 2
X_RECENT_TYPES = RECENT_TYPES + tuple(X_EFFECTS) + ("remove", "steal")


def _named(cls_name: str, table) -> type[IntEnum]:
    """An IntEnum of the column names of a spec table, valued by column index."""
    names = [t[0] if isinstance(t, tuple) else t for t in table]
    return IntEnum(cls_name, [(n.upper(), i) for i, n in enumerate(names)])


#: Named indexes generated from the spec tables above: the encoder writes through them and every
#: reader (agents, trainer, detectors) reads through them, e.g. ``board[BoardChannel.CONN_E]``,
#: ``players[:, PlayerFeature.HAND_SIZE]``.  Saboteur 2 board channels follow the base ones.
BoardChannel = _named("BoardChannel", BOARD_CHANNELS + X_BOARD_CHANNELS)
PlayerFeature = _named("PlayerFeature", PLAYER_FEATURES)
HistoryColumn = _named("HistoryColumn", HISTORY_ACTOR)
GameFeature = _named("GameFeature", GAME_FEATURES)
PrivateFeature = _named("PrivateFeature", PRIVATE_FEATURES)
XPlayerFeature = _named("XPlayerFeature", X_PLAYER_FEATURES)
PhaseFeature = _named("PhaseFeature", PHASE_FEATURES)
RecentType = _named("RecentType", X_RECENT_TYPES)

#: What each ruleset's observation holds beyond the base game's views (DESIGN 4): board
#: channels appended to ``board``, the action types of the ``recent`` view, the width of its
#: tool one-hot (the three tools; Saboteur 2 every front slot, ``cards.FRONT_SLOTS``) and the
#: extra views (after ``private``, in order), by ``Ruleset.name``.
EXTRA_BOARD_CHANNELS: dict[str, tuple[tuple[str, str], ...]] = {
    "base": (),
    "saboteur_2": X_BOARD_CHANNELS,
}
RECENT_TYPES_OF: dict[str, tuple[str, ...]] = {"base": RECENT_TYPES, "saboteur_2": X_RECENT_TYPES}
RECENT_TOOL_COLUMNS: dict[str, int] = {"base": 3, "saboteur_2": len(FRONT_SLOTS)}
EXTRA_VIEWS: dict[str, tuple[str, ...]] = {
    "base": (),
    "saboteur_2": ("xplayers", "inspections", "xhistory", "phase"),
}
