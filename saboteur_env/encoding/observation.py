"""What one seat may see, as one flat float32 tensor with named views (DESIGN 4).

The spec is data: :data:`BOARD_CHANNELS` names every channel of the ``board`` view and
:meth:`ObservationEncoder.spec` lists every view with its shape and meaning.  Every per-player
row is indexed by the seat *relative to the observer* (0 = observer, 1 = next clockwise, ...),
padded to the largest player count.

What a seat sees (DESIGN 4, RULES 3.6, 5.3): the maze and revealed goals, every player's broken
tools and hand size, the draw-pile and discard-pile sizes, the round, the public history of this
round (who placed, broke, repaired, caused a rockfall, used a map, discarded, on whom and where);
privately its own role, hand, map results and gold.  Never: other players' roles, hands or gold,
unmapped goals, the order of the draw pile, the kinds of discarded cards, the set-aside dwarf
card.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ..engine.board import HIDDEN_GOAL
from ..engine.cards import (
    ALL_KINDS,
    EXPANSION_ROLES,
    FRONT_SLOTS,
    GOAL_CELLS,
    GOAL_GOLD,
    N_BASE_KINDS,
    N_EXPANSION_KINDS,
    START_CELL,
    VARIANT_CRYSTALS,
    VARIANT_DOOR,
    VARIANT_LADDER,
    VARIANTS,
    X_EFFECTS,
)
from ..engine.config import GameConfig
from ..engine.scoring import theft_order
from ..engine.state import Game

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
_JOIN_PAIRS = ((1, 4), (2, 8), (1, 2), (2, 4), (4, 8), (8, 1))

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
ROLE_NAMES = ("gold-digger", "saboteur")
#: Saboteur 2 only: public columns of an ``xplayers`` row (RULES 6.5, 6.9).
X_PLAYER_FEATURES = (
    ("trapped", "a Trapped! card lies in front of that seat"),
    ("theft", "a Theft card lies in front of that seat"),
    ("theft_order", "position (1 = first) of that seat in the round-end theft order if the "
                    "round ended now; 0 = no working Theft"),
    ("has_gold", "that seat holds at least 1 gold (public, RULES 6.9)"),
)
#: Saboteur 2 only: the ``phase`` view (DESIGN 3 multi-step decisions).
PHASE_FEATURES = (
    ("turn", "a normal turn"), ("pass", "in a pass: discard another card or end it"),
    ("remove", "discard-two-to-remove: discard the next card"),
    ("theft", "round end: choose a theft victim"),
    ("count", "cards discarded so far in this pass / removal"),
    *((f"remove_{n}", f"the {n} card in front of you is being removed") for n in FRONT_SLOTS),
    ("dwarf_aside", "dwarf cards left aside for Swap your hats"),
    ("removed", "cards removed unseen at the start of the round"),
)
_PHASES = {"turn": 0, "pass": 1, "remove": 2, "theft": 3}
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


@dataclass(frozen=True)
class View:
    """One named view: ``flat[offset:offset + size].reshape(shape)``."""

    name: str
    shape: tuple[int, ...]
    offset: int
    low: float
    high: float
    meaning: str
    size: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", int(np.prod(self.shape)))


class ObservationEncoder:
    """Encodes a :class:`~saboteur_env.engine.state.Game` from one seat's view.

    ``encode(game, seat)`` returns float32 ``(size,)``; ``views(flat)`` splits it into named
    arrays (``board`` (C, H, W), ``hand``, ``role``, ``players``, ``history``, ``tools``,
    ``recent``, ``game``, ``private``).
    """

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        x0, x1, y0, y1 = config.board_window
        self.H, self.W = y1 - y0 + 1, x1 - x0 + 1
        mp = self.max_players = config.max_players
        x = self.expansion = config.expansion
        self.n_kinds = N_EXPANSION_KINDS if x else N_BASE_KINDS
        n_recent = 8
        self.recent_types = X_RECENT_TYPES if x else RECENT_TYPES
        self.n_tool_cols = len(FRONT_SLOTS) if x else 3
        self.recent_width = mp + len(self.recent_types) + mp + self.n_tool_cols + 4
        self.n_channels = N_BOARD_CHANNELS + (len(X_BOARD_CHANNELS) if x else 0)
        cards = 118 if x else 67
        roles = EXPANSION_ROLES if x else ROLE_NAMES
        defs = [
            ("board", (self.n_channels, self.H, self.W), 0, 1,
             "the maze, channels BOARD_CHANNELS (+ X_BOARD_CHANNELS with the expansion)"),
            ("hand", (self.n_kinds,), 0, cards,
             "own cards per card kind (cards.CARD_KINDS order)"),
            ("role", (len(roles),), 0, 1, "own current role, one-hot (" + ", ".join(roles) + ")"),
            ("players", (mp, len(PLAYER_FEATURES)), 0, cards,
             "public state per relative seat, columns PLAYER_FEATURES"),
            ("history", (mp, len(HISTORY_ACTOR)), 0, cards,
             "this round's public actions per relative actor, columns HISTORY_ACTOR"),
            ("tools", (mp, mp, 2), 0, cards,
             "this round: [actor, target, 0] tools broken, [actor, target, 1] tools repaired, "
             "relative seats"),
            ("recent", (n_recent, self.recent_width), -64, 64,
             "the last 8 public actions, newest last: actor one-hot, type one-hot "
             "(RECENT_TYPES), target one-hot, tool one-hot, x, y, dead end, present"),
            ("game", (len(GAME_FEATURES),), 0, max(1000, config.num_rounds),
             "columns GAME_FEATURES"),
            ("private", (len(PRIVATE_FEATURES),), 0, 1000, "columns PRIVATE_FEATURES"),
        ]
        if x:
            defs += [
                ("xplayers", (mp, len(X_PLAYER_FEATURES)), 0, mp,
                 "Saboteur 2 public state per relative seat, columns X_PLAYER_FEATURES"),
                ("inspections", (mp, len(EXPANSION_ROLES)), 0, 1,
                 "own Inspection results: role seen per relative seat, one-hot, as it was "
                 "seen (not updated by later Swap your hats)"),
                ("xhistory", (mp, mp, len(X_EFFECTS)), 0, cards,
                 "this round: [actor, target, card] Saboteur 2 action cards played "
                 "(X_EFFECTS order), relative seats"),
                ("phase", (len(PHASE_FEATURES),), 0, 15, "columns PHASE_FEATURES"),
            ]
        self._views: dict[str, View] = {}
        off = 0
        for name, shape, lo, hi, meaning in defs:
            v = View(name, shape, off, lo, hi, meaning)
            self._views[name] = v
            off += v.size
        if x:
            V = self._views
            self._x_offsets = (V["xplayers"].offset, V["inspections"].offset,
                               V["xhistory"].offset, V["phase"].offset,
                               len(X_PLAYER_FEATURES))
        self.size = off
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.zeros(self.size, dtype=np.float32)
        for v in self._views.values():
            self.low[v.offset:v.offset + v.size] = v.low
            self.high[v.offset:v.offset + v.size] = v.high
        self._start_rc = (START_CELL[1] - y0, START_CELL[0] - x0)
        self._goal_rc = [(gy - y0, gx - x0) for gx, gy in GOAL_CELLS]
        self._through = np.array(
            [any(not st for st in v.stub) for v in VARIANTS], dtype=np.float32)
        xf = np.zeros((len(VARIANTS), len(X_BOARD_CHANNELS)), dtype=np.float32)
        for v in VARIANTS:
            xf[v.index, 0] = VARIANT_LADDER[v.index]
            xf[v.index, 1] = VARIANT_DOOR[v.index] == 1
            xf[v.index, 2] = VARIANT_DOOR[v.index] == 2
            xf[v.index, 3] = VARIANT_CRYSTALS[v.index] > 0
            for j, (a, b) in enumerate(_JOIN_PAIRS):
                xf[v.index, 4 + j] = any((seg & a) and (seg & b) for seg in v.segments)
        self._xfeat = np.ascontiguousarray(xf.T)  # (channels, n_variants)
        self._board_cache: tuple | None = None
        self._shifts = np.arange(4, dtype=np.uint8)
        self._rel: dict = {}

    def _make_rel(self, n: int, seat: int) -> tuple:
        rel = (seat + np.arange(n)) % n
        self._rel[(n, seat)] = (rel, np.ix_(rel, rel))
        return self._rel[(n, seat)]

    # --- spec --------------------------------------------------------------------------
    def spec(self) -> list[View]:
        """Every view, in order (name, shape, offset, bounds, meaning)."""
        return list(self._views.values())

    def views(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """Split a flat observation (or a batch ``(..., size)``) into named views."""
        out = {}
        lead = flat.shape[:-1]
        for v in self._views.values():
            out[v.name] = flat[..., v.offset:v.offset + v.size].reshape(*lead, *v.shape)
        return out

    # --- encoding ----------------------------------------------------------------------
    def _public_board(self, game: Game) -> np.ndarray:
        """Channels that are the same for every observer; cached per board version."""
        b = game.board
        key = (b.uid, b.version)
        if self._board_cache is not None and self._board_cache[0] == key:
            return self._board_cache[1]
        planes = np.zeros((self.n_channels, self.H, self.W), dtype=np.float32)
        var = b.var[2:-2, 2:-2]
        opn = b.opn[2:-2, 2:-2]
        conn = b.conn[2:-2, 2:-2]
        planes[0:4] = (opn[None] >> self._shifts[:, None, None]) & 1
        planes[4:8] = (conn[None] >> self._shifts[:, None, None]) & 1
        faceup = var >= 0
        planes[8] = np.where(faceup, self._through[np.maximum(var, 0)], 0)
        planes[9] = var != -1
        planes[10][self._start_rc] = 1
        for slot, rc in enumerate(self._goal_rc):
            if var[rc] == HIDDEN_GOAL:
                planes[11][rc] = 1
            elif b.goal_identity[slot] == GOAL_GOLD:
                planes[12][rc] = 1
            else:
                planes[13][rc] = 1
        if self.expansion:
            planes[N_BOARD_CHANNELS:] = np.where(faceup[None], self._xfeat[:, np.maximum(var, 0)],
                                                 0)
        self._board_cache = (key, planes)
        return planes

    def encode(self, game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``seat``: float32 ``(size,)`` (DESIGN 4)."""
        o = np.zeros(self.size, dtype=np.float32) if out is None else out
        V = self._views
        n, mp = game.n, self.max_players
        # relative row r shows absolute seat rel[r]
        rel, rel_ix = self._rel.get((n, seat)) or self._make_rel(n, seat)
        bv = V["board"]
        board = o[bv.offset:bv.offset + bv.size].reshape(bv.shape)
        board[:] = self._public_board(game)
        for slot, rc in enumerate(self._goal_rc):
            if game.known_goals[seat, slot]:
                board[14 if game.board.goal_identity[slot] == GOAL_GOLD else 15][rc] = 1
        if game.last_placed is not None:
            x, y = game.last_placed
            x0, _, y0, _ = self.config.board_window
            board[16, y - y0, x - x0] = 1
        hv = V["hand"]
        o[hv.offset:hv.offset + self.n_kinds] = game.hands[seat, :self.n_kinds]
        o[V["role"].offset + int(game.roles[seat])] = 1  # the current role (Swap your hats)
        pv = V["players"]
        pl = o[pv.offset:pv.offset + pv.size].reshape(pv.shape)
        pl[:n, 0] = 1
        if not game.game_over:
            pl[(game.current - seat) % n, 1] = 1
        pl[:n, 2:5] = game.broken[rel]
        pl[:n, 5] = game.hands[rel].sum(axis=1)
        pl[(game.last_card_seat - seat) % n, 6] = 1
        pl[(game.first_player - seat) % n, 7] = 1
        hv = V["history"]
        o[hv.offset:hv.offset + hv.size].reshape(hv.shape)[:n] = game.actor_counts[rel]
        tv = V["tools"]
        tl = o[tv.offset:tv.offset + tv.size].reshape(tv.shape)
        tl[:n, :n] = game.tool_counts[rel_ix]
        rv = V["recent"]
        rc = o[rv.offset:rv.offset + rv.size].reshape(rv.shape)
        nt = len(self.recent_types)
        tc = self.n_tool_cols
        base = len(game.recent)
        for i, (actor, typ, target, x, y, tool, dead) in enumerate(game.recent):
            row = rc[8 - base + i]
            row[(actor - seat) % n] = 1
            row[mp + typ] = 1
            if target >= 0:
                row[mp + nt + (target - seat) % n] = 1
            if tool >= 0:
                row[2 * mp + nt + tool] = 1
            row[2 * mp + nt + tc] = x
            row[2 * mp + nt + tc + 1] = y
            row[2 * mp + nt + tc + 2] = dead
            row[2 * mp + nt + tc + 3] = 1
        gv = V["game"].offset
        o[gv:gv + 7] = (game.round, game.config.num_rounds, len(game.deck),
                        game.discards.sum(), game.turn, n, game.board.path_cards_on_board())
        pv = V["private"].offset
        o[pv] = game.gold[seat]
        o[pv + 1] = seat
        if self.expansion:
            self._encode_s2(game, seat, o, rel, rel_ix)
        return o

    def _encode_s2(self, game: Game, seat: int, o: np.ndarray, rel: np.ndarray,
                   rel_ix: tuple) -> None:
        n = game.n
        xp_off, ins_off, hist_off, ph, ncol = self._x_offsets
        xf = game.xfront
        if xf.any():
            xp = o[xp_off:xp_off + self.max_players * ncol].reshape(self.max_players, ncol)
            xp[:n, 0:2] = xf[rel]
            if xf[:, 1].any():
                order = theft_order(game.theft_turn.tolist(), xf[:, 1].tolist(),
                                    xf[:, 0].tolist())
                for i, s in enumerate(order):
                    xp[(s - seat) % n, 2] = i + 1
        if game.gold.any():
            o[xp_off + 3:xp_off + 3 + n * ncol:ncol] = game.gold[rel] > 0
        if game.inspected[seat].max() >= 0:
            nr = len(EXPANSION_ROLES)
            seen = game.inspected[seat, rel]
            rows = np.nonzero(seen >= 0)[0]
            o[ins_off + rows * nr + seen[rows]] = 1
        if game.xcounts.any():
            hv = self._views["xhistory"]
            o[hist_off:hist_off + hv.size].reshape(hv.shape)[:n, :n] = game.xcounts[rel_ix]
        o[ph + _PHASES[game.phase]] = 1
        o[ph + 4] = game.phase_count
        if game.phase_slot >= 0:
            o[ph + 5 + game.phase_slot] = 1
        o[ph + 10] = len(game.set_aside)
        o[ph + 11] = game.removed.sum()


def describe_spec(encoder: ObservationEncoder) -> str:
    """The observation spec as Markdown (docs/spaces.md is generated from it)."""
    lines = ["| view | shape | offset | meaning |", "|---|---|---|---|"]
    for v in encoder.spec():
        lines.append(f"| `{v.name}` | {v.shape} | {v.offset} | {v.meaning} |")
    lines += ["", f"Total size: {encoder.size} float32 values.", "",
              "Board channels:", "", "| channel | name | meaning |", "|---|---|---|"]
    chans = BOARD_CHANNELS + (X_BOARD_CHANNELS if encoder.expansion else ())
    lines += [f"| {i} | `{n}` | {m} |" for i, (n, m) in enumerate(chans)]
    tables = [("players", PLAYER_FEATURES), ("game", GAME_FEATURES),
              ("private", PRIVATE_FEATURES)]
    if encoder.expansion:
        tables += [("xplayers", X_PLAYER_FEATURES), ("phase", PHASE_FEATURES)]
    for title, table in tables:
        lines += ["", f"Columns of `{title}`:", ""]
        lines += [f"{i}. `{n}`: {m}" for i, (n, m) in enumerate(table)]
    lines += ["", "Columns of `history`: " + ", ".join(f"`{c}`" for c in HISTORY_ACTOR),
              "", "Card kinds (order of `hand` and of the discard block): "
              + ", ".join(f"`{k.id}`" for k in ALL_KINDS[:encoder.n_kinds])]
    return "\n".join(lines)


def describe_spaces(config: GameConfig | None = None) -> str:
    """docs/spaces.md: the action blocks and the observation spec of ``config``."""
    from .codec import Codec

    config = config or GameConfig()
    codec = Codec(config)
    enc = ObservationEncoder(config)
    lines = ["# Action and observation spaces (generated by `saboteur spaces`)",
             "", f"Default configuration: {config.num_players} players, board window "
             f"{config.board_window} (x_min, x_max, y_min, y_max).", "",
             f"## Actions: `Discrete({codec.n})`", "", "| block | offset | size |", "|---|---|---|"]
    lines += [f"| `{name}` | {off} | {size} |" for name, (off, size) in codec.blocks.items()]
    lines += ["", f"Placement rows (oriented card kinds): {len(codec.variants)}; cells: "
              f"{codec.n_cells} ({codec.width} x {codec.height}, row-major from "
              "(x_min, y_min)). Tool rows: "
              + ", ".join(f"{ALL_KINDS[k].id}/{('pick', 'lantern', 'cart')[t]}"
                          for k, t in codec.tool_pairs)
              + f"; each x {codec.max_players} relative target seats.", "",
              "## Observation", "", describe_spec(enc), ""]
    if not config.expansion and config == GameConfig():
        x = GameConfig(expansion=True)
        xc, xe = Codec(x), ObservationEncoder(x)
        lines += ["# Saboteur 2 (`expansion=True`, any player count 2-12)", "",
                  f"## Actions: `Discrete({xc.n})`", "", "| block | offset | size |",
                  "|---|---|---|"]
        lines += [f"| `{name}` | {off} | {size} |" for name, (off, size) in xc.blocks.items()]
        lines += ["", f"Placement rows: {len(xc.variants)}; tool, xaction and steal rows "
                  f"x {xc.max_players} relative seats; xaction rows: "
                  + ", ".join(f"`{ALL_KINDS[k].id}`" for k in xc.x_pos)
                  + "; remove slots: " + ", ".join(f"`{n}`" for n in FRONT_SLOTS) + ".", "",
                  "## Observation", "", describe_spec(xe), ""]
    return "\n".join(lines)

