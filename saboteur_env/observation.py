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

import numpy as np

from .board import HIDDEN_GOAL
from .cards import ALL_KINDS, GOAL_CELLS, GOAL_GOLD, START_CELL, VARIANTS
from .config import GameConfig
from .game import Game

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
    ("last_placed", "the most recent path card placed this round"),
)
N_BOARD_CHANNELS = len(BOARD_CHANNELS)

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
    """Encodes a :class:`~saboteur_env.game.Game` from one seat's view.

    ``encode(game, seat)`` returns float32 ``(size,)``; ``views(flat)`` splits it into named
    arrays (``board`` (C, H, W), ``hand``, ``role``, ``players``, ``history``, ``tools``,
    ``recent``, ``game``, ``private``).
    """

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        x0, x1, y0, y1 = config.board_window
        self.H, self.W = y1 - y0 + 1, x1 - x0 + 1
        mp = self.max_players = config.max_players
        self.n_kinds = 27
        n_recent = 8
        self.recent_width = mp + len(RECENT_TYPES) + mp + 3 + 4
        defs = [
            ("board", (N_BOARD_CHANNELS, self.H, self.W), 0, 1,
             "the maze, channels BOARD_CHANNELS"),
            ("hand", (self.n_kinds,), 0, 67, "own cards per card kind (cards.CARD_KINDS order)"),
            ("role", (len(ROLE_NAMES),), 0, 1, "own role, one-hot (gold-digger, saboteur)"),
            ("players", (mp, len(PLAYER_FEATURES)), 0, 67,
             "public state per relative seat, columns PLAYER_FEATURES"),
            ("history", (mp, len(HISTORY_ACTOR)), 0, 67,
             "this round's public actions per relative actor, columns HISTORY_ACTOR"),
            ("tools", (mp, mp, 2), 0, 67,
             "this round: [actor, target, 0] tools broken, [actor, target, 1] tools repaired, "
             "relative seats"),
            ("recent", (n_recent, self.recent_width), -64, 64,
             "the last 8 public actions, newest last: actor one-hot, type one-hot "
             "(RECENT_TYPES), target one-hot, tool one-hot, x, y, dead end, present"),
            ("game", (len(GAME_FEATURES),), 0, max(1000, config.num_rounds),
             "columns GAME_FEATURES"),
            ("private", (len(PRIVATE_FEATURES),), 0, 1000, "columns PRIVATE_FEATURES"),
        ]
        self._views: dict[str, View] = {}
        off = 0
        for name, shape, lo, hi, meaning in defs:
            v = View(name, shape, off, lo, hi, meaning)
            self._views[name] = v
            off += v.size
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
        planes = np.zeros((N_BOARD_CHANNELS, self.H, self.W), dtype=np.float32)
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
        if game.recent:
            last = [e for e in game.recent if e[1] == 0]
            if last:
                x, y = last[-1][3], last[-1][4]
                x0, _, y0, _ = self.config.board_window
                board[16, y - y0, x - x0] = 1
        hv = V["hand"]
        o[hv.offset:hv.offset + self.n_kinds] = game.hands[seat, :self.n_kinds]
        o[V["role"].offset + int(game.roles[seat])] = 1
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
        nt = len(RECENT_TYPES)
        base = len(game.recent)
        for i, (actor, typ, target, x, y, tool, dead) in enumerate(game.recent):
            row = rc[8 - base + i]
            row[(actor - seat) % n] = 1
            row[mp + typ] = 1
            if target >= 0:
                row[mp + nt + (target - seat) % n] = 1
            if tool >= 0:
                row[2 * mp + nt + tool] = 1
            row[2 * mp + nt + 3] = x
            row[2 * mp + nt + 4] = y
            row[2 * mp + nt + 5] = dead
            row[2 * mp + nt + 6] = 1
        gv = V["game"].offset
        o[gv:gv + 7] = (game.round, game.config.num_rounds, len(game.deck),
                        game.discards.sum(), game.turn, n, game.board.path_cards_on_board())
        pv = V["private"].offset
        o[pv] = game.gold[seat]
        o[pv + 1] = seat
        return o


def describe_spec(encoder: ObservationEncoder) -> str:
    """The observation spec as Markdown (docs/spaces.md is generated from it)."""
    lines = ["| view | shape | offset | meaning |", "|---|---|---|---|"]
    for v in encoder.spec():
        lines.append(f"| `{v.name}` | {v.shape} | {v.offset} | {v.meaning} |")
    lines += ["", f"Total size: {encoder.size} float32 values.", "",
              "Board channels:", "", "| channel | name | meaning |", "|---|---|---|"]
    lines += [f"| {i} | `{n}` | {m} |" for i, (n, m) in enumerate(BOARD_CHANNELS)]
    for title, table in (("players", PLAYER_FEATURES), ("game", GAME_FEATURES),
                         ("private", PRIVATE_FEATURES)):
        lines += ["", f"Columns of `{title}`:", ""]
        lines += [f"{i}. `{n}`: {m}" for i, (n, m) in enumerate(table)]
    lines += ["", "Columns of `history`: " + ", ".join(f"`{c}`" for c in HISTORY_ACTOR),
              "", "Card kinds (order of `hand` and of the discard block): "
              + ", ".join(f"`{k.id}`" for k in ALL_KINDS[:27])]
    return "\n".join(lines)


def describe_spaces(config: GameConfig | None = None) -> str:
    """docs/spaces.md: the action blocks and the observation spec of ``config``."""
    from .actions import Codec

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
    return "\n".join(lines)

