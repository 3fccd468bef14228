"""Images of the maze from one seat's view (``render_mode="rgb_array"`` and ``"human"``).

:func:`render_rgb` draws a ``numpy.uint8`` array of shape ``(H, W, 3)`` with numpy only (a
built-in 5x7 pixel font writes the text, so no font file, no Pillow and no copyrighted art is
needed, and the same state always gives the same pixels):

* the maze, one square cell per card, with the game coordinates ``x`` above the columns and
  ``y`` left of the rows.  A tunnel card is brown rock with its tunnels in sand colour: bright
  where the tunnel is connected to the start, dimmer where it is not.  A dead end (a stub that
  joins nothing) stops short of the card's centre and ends in a red cap.  The start card is blue
  with an ``S``; a face-down goal is a navy card back with ``?``; a revealed gold goal shows a
  yellow nugget, a revealed stone goal a grey stone.  A face-down goal that the observer has
  mapped gets a coloured frame and a label (``GOLD`` in yellow, ``STONE`` in grey).
* a side panel: round, turn (``TURN T``: the turn now being played, counted from 1 within the
  round, i.e. ``game.turn + 1``, as in the ``ansi`` header; ``GAME OVER`` at the end),
  draw-pile and discard-pile sizes; for every seat its hand size and
  its three tools (``P`` pick, ``L`` lantern, ``C`` cart; green = working, red with a cross =
  broken), ``>`` marking the seat to act; then the observer's own role, gold and hand.
  A role's name is coloured from the ruleset (:func:`role_color`): a team of diggers in its
  door colour, otherwise by ``rules.gold_stake``: gold for a role that wins when the gold is
  reached, red for the saboteur, grey for Saboteur 2's profiteer and geologist.  Hand cards
  are written three to a row in columns of :data:`LABEL_WIDTH` characters: a path card by its
  id, an action card by its label in :data:`SHORT_NAMES`, made from the card table
  (``BREAK-P``, ``FIX-P/L``, ``ROCKFALL``, ``HANDSOFF``, ``FREE!``).
  Saboteur 2 (RULES 6.5, 6.9) widens the panel: each seat row ends with what the ``ansi`` text
  also shows, a red ``TRAPPED!`` tag and an orange ``THEFT`` tag for those cards lying in front
  of the seat (``game.front``) and ``HAS GOLD`` in yellow when it holds gold (public there),
  each in its own column; a ``PHASE: PASS`` / ``REMOVE`` / ``THEFT`` line names a phase other
  than an ordinary turn.
* optionally a caption line (replays write the decision there) and a round result: the
  winning side (:func:`side_label`: ``GOLD-DIGGERS WIN`` / ``SABOTEURS WIN`` in the base
  game; in Saboteur 2 also ``BLUE DIGGERS WIN``, ``GREEN DIGGERS WIN``,
  ``BLUE+GREEN DIGGERS WIN`` or ``BOSS WINS``, RULES 6.9), in Saboteur 2 a ``WINNERS:`` line
  with the winning seats (a seat's role does not tell it there), then every seat's role and
  the gold it received.

Only what the observer may know is drawn (DESIGN 4): other players' hands, roles and gold and
unmapped face-down goals never change a pixel.  ``seat="spectator"`` (explicit only) shows
everything: every goal's identity, every role and every player's gold.  ``seat=None`` draws the
public information only.  Drawing reads the game and never changes it or its generator.

Saboteur 2 cards (RULES 6.3): cards with several through segments (bridges, double curves)
are drawn segment by segment with the joints pulled towards each segment's corner, and
:func:`_draw_card_extras` marks, from the card tables (``VARIANT_DOOR``, ``VARIANT_LADDER``,
``VARIANT_CRYSTALS``): a door as a bar across its tunnel, halfway along its first arm, green or
blue as the door (the colour decides which team wins, RULES 6.9); a ladder as a dark ladder
(two rails, four rungs) standing in a shaft at the card's centre; a crystal as a violet diamond
in a rock corner of the card, one per crystal.  The base game's image has none of these.

:func:`show_human` puts the image in a matplotlib window where an interactive backend is
available and otherwise prints the ``ansi`` text.  :func:`save_png` writes a PNG with the
standard library only; :func:`save_gif` needs Pillow.
"""

from __future__ import annotations

import struct
import sys
import zlib
from dataclasses import dataclass

import numpy as np

from .engine.board import EMPTY, HIDDEN_GOAL
from .engine.cards import (
    ALL_KINDS,
    DOOR_CODES,
    FRONT_THEFT,
    FRONT_TRAPPED,
    GOAL_CELLS,
    GOAL_GOLD,
    KIND_INDEX,
    START_CELL,
    TOOLS,
    VARIANT_CRYSTALS,
    VARIANT_DOOR,
    VARIANT_LADDER,
    VARIANTS,
)
from .engine.events import RoundResult
from .engine.phases import Phase
from .engine.scoring import side_text
from .render import check_known, goal_seen

# --- colours (RGB) ----------------------------------------------------------------------
BACKGROUND = (30, 28, 34)
GRID = (58, 54, 64)
PANEL = (44, 42, 52)
TEXT = (235, 235, 235)
TEXT_DIM = (160, 160, 170)
ROCK = (112, 84, 58)
ROCK_EDGE = (68, 50, 36)
TUNNEL = (240, 208, 140)
TUNNEL_DISCONNECTED = (170, 150, 120)
DEAD_END = (205, 45, 40)
START = (70, 104, 150)
GOAL_BACK = (36, 52, 104)
GOLD = (250, 205, 30)
STONE = (140, 140, 140)
TOOL_OK = (70, 160, 80)
TOOL_BROKEN = (205, 45, 40)
HIGHLIGHT = (72, 66, 96)
SABOTEUR_RED = (230, 110, 100)
# Saboteur 2 (RULES 6.3, 6.5): door colours by ``cards.DOOR_CODES`` name, crystals, ladders,
# and the tags for the cards that lie in front of a player
DOOR_COLORS = {"green": (40, 200, 70), "blue": (40, 110, 245)}
CRYSTAL = (205, 120, 255)
LADDER = (52, 32, 18)
TRAPPED_TAG = (205, 45, 40)
THEFT_TAG = (235, 140, 40)
TAG_TEXT = (20, 20, 20)


#: a role whose result does not hang on the gold (Saboteur 2's profiteer and geologist)
ROLE_NEUTRAL = (200, 200, 215)


def _role_name(game, role: int) -> str:
    """The role's name in the game's ruleset (RULES 1.5; Saboteur 2 has six roles, RULES
    6.2)."""
    return game.rules.roles[role]


def _team(rules, role: int) -> str | None:
    """The door colour (``cards.DOOR_CODES`` name) of a role's team (``Ruleset.role_doors``:
    Saboteur 2's green and blue diggers, RULES 6.2, 6.9), else ``None``."""
    door = rules.role_doors[role]
    return DOOR_CODES[door] if door else None


def role_color(rules, role: int) -> tuple[int, int, int]:
    """The colour a role's name is written in, from the ruleset's data: a team of diggers in
    its door colour (RULES 6.9), other roles by ``rules.gold_stake``: gold for a role that
    wins when the gold is reached (the base gold-digger, Saboteur 2's boss), red for one that
    wins when it is not (the saboteur), a neutral grey for one whose result does not hang on
    it (the profiteer, the geologist)."""
    team = _team(rules, role)
    if team is not None:
        return DOOR_COLORS[team]
    stake = rules.gold_stake[role]
    return GOLD if stake > 0 else SABOTEUR_RED if stake < 0 else ROLE_NEUTRAL


def side_label(side: str, roles=None, rules=None) -> str:
    """``RoundResult.winning_side`` as the round-result panel writes it, e.g.
    ``GOLD-DIGGERS WIN`` (base game), ``SABOTEURS WIN``, ``BLUE DIGGERS WIN``,
    ``BLUE+GREEN DIGGERS WIN``, ``BOSS WINS`` (Saboteur 2, RULES 6.9): the words of
    :func:`~saboteur_env.engine.scoring.side_text` (given the round's ``roles`` and
    ``rules``, a saboteur win with no saboteur in play says so), in capitals."""
    return side_text(side, roles, rules).removeprefix("the ").upper()


def _states_winners(rules) -> bool:
    """Whether the round-result panel lists the winners: where roles share a gold stake
    (Saboteur 2's two teams and the boss, RULES 6.9; trapped players are left out of the
    winners) a seat's role does not tell whether it won; in the base game it does."""
    return len(set(rules.gold_stake)) < len(rules.roles)


#: characters of a hand-card column in the panel (hand cards are written three to a row)
LABEL_WIDTH = 8
#: a tool's letter: the first of its name (``cards.TOOLS``: P, L, C)
_TOOL_LETTERS = "".join(t[0].upper() for t in TOOLS)
#: shorter labels for action cards whose name is longer than :data:`LABEL_WIDTH` (by effect)
_LABEL_ABBREVIATIONS = {
    "hands_off": "HANDSOFF",
    "swap_hand": "SWAP-HND",
    "swap_hats": "SWAP-HAT",
    "inspection": "INSPECT",
    "free_at_last": "FREE!",
}


def _action_label(kind) -> str:
    """An action card's label in the hand list, from its card-table row: a tool card from its
    effect (``BREAK-P``, ``FIX-P/L``), another from its name (``ROCKFALL``, ``TRAPPED!``) or,
    where the name is too long, its abbreviation (else the name cut to the column)."""
    verb = kind.effect[0]
    if verb == "break":
        return f"BREAK-{_TOOL_LETTERS[kind.effect[1]]}"
    if verb == "repair":
        return "FIX-" + "/".join(_TOOL_LETTERS[t] for t in kind.effect[1])
    name = kind.name.upper().replace(" ", "-")
    return name if len(name) <= LABEL_WIDTH else _LABEL_ABBREVIATIONS.get(verb, name[:LABEL_WIDTH])


#: card id -> its label in the hand list, for every action card of the card table (base
#: game and Saboteur 2); path cards are written by their id (``B07``, ``X25``)
SHORT_NAMES = {k.id: _action_label(k) for k in ALL_KINDS if k.category == "action"}

# --- a 5x7 pixel font -------------------------------------------------------------------
_GLYPH_ROWS = {
    "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "###.. #..#. #...# #...# #...# #..#. ###..",
    "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....",
    "G": ".###. #...# #.... #.### #...# #...# .####",
    "H": "#...# #...# #...# ##### #...# #...# #...#",
    "I": ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "S": ".#### #.... #.... .###. ....# ....# ####.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
    "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####",
    "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
    "1": "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.",
    "2": ".###. #...# ....# ...#. ..#.. .#... #####",
    "3": "##### ...#. ..#.. ...#. ....# #...# .###.",
    "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
    "5": "##### #.... ####. ....# ....# #...# .###.",
    "6": "..##. .#... #.... ####. #...# #...# .###.",
    "7": "##### ....# ...#. ..#.. .#... .#... .#...",
    "8": ".###. #...# #...# .###. #...# #...# .###.",
    "9": ".###. #...# #...# .#### ....# ...#. .##..",
    " ": "..... ..... ..... ..... ..... ..... .....",
    ":": "..... .##.. .##.. ..... .##.. .##.. .....",
    "-": "..... ..... ..... ##### ..... ..... .....",
    "/": "..... ....# ...#. ..#.. .#... #.... .....",
    "(": "...#. ..#.. .#... .#... .#... ..#.. ...#.",
    ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
    ",": "..... ..... ..... ..... .##.. ..#.. .#...",
    ".": "..... ..... ..... ..... ..... .##.. .##..",
    "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
    "!": "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..",
    ">": ".#... ..#.. ...#. ....# ...#. ..#.. .#...",
    "<": "...#. ..#.. .#... #.... .#... ..#.. ...#.",
    "=": "..... ..... ##### ..... ##### ..... .....",
    "+": "..... ..#.. ..#.. ##### ..#.. ..#.. .....",
    "'": "..#.. ..#.. .#... ..... ..... ..... .....",
    "#": ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#.",
    "_": "..... ..... ..... ..... ..... ..... #####",
    "*": "..... ..#.. #.#.# .###. #.#.# ..#.. .....",
    "[": ".###. .#... .#... .#... .#... .#... .###.",
    "]": ".###. ...#. ...#. ...#. ...#. ...#. .###.",
}
GLYPHS = {
    ch: np.array([[c == "#" for c in row] for row in rows.split()], dtype=bool)
    for ch, rows in _GLYPH_ROWS.items()
}


_SCALED: dict = {}


def _glyph(ch: str, scale: int) -> np.ndarray:
    key = (ch, scale)
    g = _SCALED.get(key)
    if g is None:
        g = GLYPHS.get(ch, GLYPHS["?"])
        if scale > 1:
            g = np.kron(g, np.ones((scale, scale), dtype=bool))
        _SCALED[key] = g
    return g


def text_size(text: str, scale: int = 2) -> tuple[int, int]:
    """(height, width) in pixels of ``text`` drawn at ``scale``."""
    return 7 * scale, max(len(text) * 6 * scale - scale, 0)


def draw_text(img: np.ndarray, text: str, top: int, left: int, color=TEXT, scale: int = 2) -> int:
    """Write ``text`` (upper-cased; unknown characters as ``?``) with its top-left corner at
    pixel (top, left), clipped to the image.  Returns the x pixel just after the text."""
    h, w = img.shape[:2]
    x = left
    col = np.array(color, dtype=np.uint8)
    for ch in text.upper():
        g = _glyph(ch, scale)
        gh, gw = g.shape
        r0, c0 = max(top, 0), max(x, 0)
        r1, c1 = min(top + gh, h), min(x + gw, w)
        if r1 > r0 and c1 > c0:
            sub = g[r0 - top : r1 - top, c0 - x : c1 - x]
            img[r0:r1, c0:c1][sub] = col
        x += 6 * scale
    return x


def _fill(img, r0, c0, r1, c1, color) -> None:
    h, w = img.shape[:2]
    r0, c0, r1, c1 = max(int(r0), 0), max(int(c0), 0), min(int(r1), h), min(int(c1), w)
    if r1 > r0 and c1 > c0:
        img[r0:r1, c0:c1] = color


def _frame(img, r0, c0, r1, c1, color, t=1) -> None:
    _fill(img, r0, c0, r0 + t, c1, color)
    _fill(img, r1 - t, c0, r1, c1, color)
    _fill(img, r0, c0, r1, c0 + t, color)
    _fill(img, r0, c1 - t, r1, c1, color)


def _disc(img, cy, cx, radius, color) -> None:
    r0, r1 = int(cy - radius), int(cy + radius) + 1
    c0, c1 = int(cx - radius), int(cx + radius) + 1
    yy, xx = np.mgrid[r0:r1, c0:c1]
    m = (yy - cy) ** 2 + (xx - cx) ** 2 <= radius**2
    h, w = img.shape[:2]
    ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w) & m
    img[yy[ok], xx[ok]] = color


def _diamond(img, cy, cx, radius, color) -> None:
    r0, r1 = int(cy - radius), int(cy + radius) + 1
    c0, c1 = int(cx - radius), int(cx + radius) + 1
    yy, xx = np.mgrid[r0:r1, c0:c1]
    m = np.abs(yy - cy) + np.abs(xx - cx) <= radius
    h, w = img.shape[:2]
    ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w) & m
    img[yy[ok], xx[ok]] = color


# --- layout -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Layout:
    """Where things are in an image: the maze extent (inclusive game coordinates), the cell
    size in pixels and the pixel origin of the maze."""

    x0: int
    x1: int
    y0: int
    y1: int
    cell: int
    top: int
    left: int

    def cell_box(self, x: int, y: int) -> tuple[int, int, int, int]:
        """Pixel box ``(row0, col0, row1, col1)`` (end exclusive) of game cell (x, y)."""
        r0 = self.top + (y - self.y0) * self.cell
        c0 = self.left + (x - self.x0) * self.cell
        return r0, c0, r0 + self.cell, c0 + self.cell

    def cell_center(self, x: int, y: int) -> tuple[int, int]:
        """Pixel (row, col) of the centre of game cell (x, y)."""
        r0, c0, _, _ = self.cell_box(x, y)
        return r0 + self.cell // 2, c0 + self.cell // 2

    @property
    def maze_size(self) -> tuple[int, int]:
        return (self.y1 - self.y0 + 1) * self.cell, (self.x1 - self.x0 + 1) * self.cell


def board_extent(*boards) -> tuple[int, int, int, int]:
    """Smallest ``(x0, x1, y0, y1)`` showing the start, the goals and every card of
    ``boards`` with one empty cell around, clipped to the board window.  Pass every board of a
    replay to get one extent (same-sized frames)."""
    xs = [START_CELL[0], GOAL_CELLS[0][0]]
    ys = [GOAL_CELLS[0][1], GOAL_CELLS[2][1]]
    window = boards[0].window
    for b in boards:
        for x, y, _ in b.cards():
            xs.append(x)
            ys.append(y)
    return (
        max(min(xs) - 1, window[0]),
        min(max(xs) + 1, window[1]),
        max(min(ys) - 1, window[2]),
        min(max(ys) + 1, window[3]),
    )


LABEL_TOP = 22
LABEL_LEFT = 40
MARGIN = 8
PANEL_WIDTH = 384
#: Saboteur 2's panel is wider: each seat row ends with tags for the Trapped! and Theft cards
#: in front of the seat and for whether it holds gold (RULES 6.5, 6.9)
PANEL_WIDTH_S2 = 480
#: x offset in the panel of the first such tag (after a two-digit seat's tools and hand)
TAG_LEFT = 312


def panel_width(game) -> int:
    """Width of the side panel: wider where the ruleset's deck holds cards that lie in front
    of players besides broken tools (Trapped!, Theft: Saboteur 2), or who holds gold is public
    (the ``TRAPPED!`` / ``THEFT`` / ``HAS GOLD`` columns)."""
    rules = game.rules
    in_deck = [k for k in (KIND_INDEX["trapped"], KIND_INDEX["theft"]) if k < rules.n_kinds]
    wide = rules.public_gold_holders or any(rules.deck[k] for k in in_deck)
    return PANEL_WIDTH_S2 if wide else PANEL_WIDTH


def layout(board, extent=None, cell: int = 48) -> Layout:
    """The :class:`Layout` :func:`render_rgb` uses for ``board`` (and ``extent``, ``cell``)."""
    x0, x1, y0, y1 = extent if extent is not None else board_extent(board)
    return Layout(x0, x1, y0, y1, cell, MARGIN + LABEL_TOP, MARGIN + LABEL_LEFT)


# --- cards ------------------------------------------------------------------------------
_SIDE_VEC = ((-1, 0), (0, 1), (1, 0), (0, -1))  # (drow, dcol) of N, E, S, W


def _arm(img, cy, cx, jy, jx, side, half, cell, color) -> None:
    """A tunnel from the edge on ``side`` to the joint (jy, jx), ``2 * half`` wide."""
    r0c, c0c = cy - cell // 2, cx - cell // 2
    if side == 0:
        _fill(img, r0c, jx - half, jy + half, jx + half, color)
    elif side == 2:
        _fill(img, jy - half, jx - half, r0c + cell, jx + half, color)
    elif side == 1:
        _fill(img, jy - half, jx - half, jy + half, c0c + cell, color)
    else:
        _fill(img, jy - half, c0c, jy + half, jx + half, color)


def _draw_variant(img, cy, cx, cell, variant, reached: int, fill) -> None:
    """Draw an oriented card (tunnels, dead ends) centred at pixel (cy, cx)."""
    v = VARIANTS[variant]
    r0, c0 = cy - cell // 2, cx - cell // 2
    _fill(img, r0 + 1, c0 + 1, r0 + cell - 1, c0 + cell - 1, fill)
    _frame(img, r0 + 1, c0 + 1, r0 + cell - 1, c0 + cell - 1, ROCK_EDGE)
    half = max(cell // 7, 2)
    through = [i for i, s in enumerate(v.segments) if not v.stub[i] and s & 15]
    for i, seg in enumerate(v.segments):
        sides = [b for b in range(4) if seg & (1 << b)]
        if not sides:
            continue
        color = TUNNEL if reached & (1 << i) else TUNNEL_DISCONNECTED
        if v.stub[i]:  # a dead end: a short tunnel from the edge, capped in red
            b = sides[0]
            dr, dc = _SIDE_VEC[b]
            depth = int(cell * 0.30)
            ey, ex = cy + dr * (cell // 2 - depth), cx + dc * (cell // 2 - depth)
            _arm(img, cy, cx, ey, ex, b, half, cell, color)
            cap = max(cell // 12, 2)
            if dr:
                _fill(img, ey - cap, ex - half - 1, ey + cap, ex + half + 1, DEAD_END)
            else:
                _fill(img, ey - half - 1, ex - cap, ey + half + 1, ex + cap, DEAD_END)
            continue
        jy, jx = cy, cx
        if len(through) > 1:  # Saboteur 2 double curves: each joint towards its corner
            dy = sum(_SIDE_VEC[b][0] for b in sides)
            dx = sum(_SIDE_VEC[b][1] for b in sides)
            jy, jx = cy + dy * cell // 5, cx + dx * cell // 5
        if len(through) > 1 and i == through[-1] and (jy, jx) == (cy, cx):
            # a bridge: the second straight passes over the first, with dark edges
            for b in sides:
                dr, dc = _SIDE_VEC[b]
                if dr:
                    _fill(img, r0, cx - half - 2, r0 + cell, cx + half + 2, ROCK_EDGE)
                else:
                    _fill(img, cy - half - 2, c0, cy + half + 2, c0 + cell, ROCK_EDGE)
        for b in sides:
            _arm(img, cy, cx, jy, jx, b, half, cell, color)
    _draw_card_extras(img, cy, cx, cell, variant, reached)


def _draw_card_extras(img, cy, cx, cell, variant, reached: int) -> None:
    """Saboteur 2 card features (RULES 6.3), read from the card tables ``VARIANT_DOOR``,
    ``VARIANT_LADDER`` and ``VARIANT_CRYSTALS``: a door is a bar across its tunnel in the door's
    colour, a ladder a ladder glyph in a shaft at the card's centre, a crystal a violet diamond
    in a corner of the rock (one per crystal).  Base-game cards have none of these, so nothing
    is drawn for them."""
    v = VARIANTS[variant]
    half = max(cell // 7, 2)  # the tunnel's half width, as in _draw_variant
    door = int(VARIANT_DOOR[variant])
    if door:
        # the door sits across the card's through tunnel, halfway along its first arm
        through = [i for i, sg in enumerate(v.segments) if not v.stub[i] and sg & 15]
        seg = v.segments[through[0] if through else 0]
        b = next(b for b in range(4) if seg & (1 << b))
        dr, dc = _SIDE_VEC[b]
        dy, dx = cy + dr * (cell // 4), cx + dc * (cell // 4)
        t, o = max(cell // 8, 3), max(cell // 16, 2)  # thickness, overhang beyond the tunnel
        if dr:
            box = (dy - t // 2, dx - half - o, dy + t - t // 2, dx + half + o)
        else:
            box = (dy - half - o, dx - t // 2, dy + half + o, dx + t - t // 2)
        _fill(img, box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1, ROCK_EDGE)
        _fill(img, *box, DOOR_COLORS[DOOR_CODES[door]])
    if VARIANT_LADDER[variant]:
        seg_i = next(i for i, sg in enumerate(v.segments) if sg & 16)  # the segment with L
        shaft = TUNNEL if reached & (1 << seg_i) else TUNNEL_DISCONNECTED
        lh, lw = cell // 4, max(cell // 7, 3)  # half height, half width
        rail = max(cell // 24, 1)
        _fill(img, cy - lh - 2, cx - lw - 2, cy + lh + 2, cx + lw + 2, shaft)
        _fill(img, cy - lh, cx - lw, cy + lh, cx - lw + rail, LADDER)
        _fill(img, cy - lh, cx + lw - rail, cy + lh, cx + lw, LADDER)
        rungs = 4
        for k in range(rungs):
            ry = cy - lh + (2 * lh - rail) * (2 * k + 1) // (2 * rungs)
            _fill(img, ry, cx - lw, ry + rail, cx + lw, LADDER)
    n = int(VARIANT_CRYSTALS[variant])
    if n:
        r = max(cell // 9, 3)
        q = int(cell * 0.3)
        corners = ((-1, 1), (1, -1), (-1, -1), (1, 1))  # NE, SW, NW, SE
        for i in range(n):
            sy, sx = corners[i % 4]
            inward = (i // 4) * (r + 1)  # a fifth crystal and more: nearer the centre
            py, px = cy + sy * (q - inward), cx + sx * (q - inward)
            _diamond(img, py, px, r + 1, ROCK_EDGE)
            _diamond(img, py, px, r, CRYSTAL)


def _draw_goal_back(img, cy, cx, cell, known: int | None) -> None:
    """A face-down goal; ``known``: None (unknown), or the goal identity the observer knows."""
    r0, c0 = cy - cell // 2, cx - cell // 2
    _fill(img, r0 + 1, c0 + 1, r0 + cell - 1, c0 + cell - 1, GOAL_BACK)
    if known is None:
        th, tw = text_size("?", 3)
        draw_text(img, "?", cy - th // 2, cx - tw // 2, TEXT, 3)
        _frame(img, r0 + 1, c0 + 1, r0 + cell - 1, c0 + cell - 1, ROCK_EDGE)
        return
    color = GOLD if known == GOAL_GOLD else STONE
    _frame(img, r0 + 1, c0 + 1, r0 + cell - 1, c0 + cell - 1, color, max(cell // 12, 2))
    if known == GOAL_GOLD:
        _diamond(img, cy - cell // 8, cx, cell // 6, GOLD)
    else:
        _disc(img, cy - cell // 8, cx, cell // 7, STONE)
    label = "GOLD" if known == GOAL_GOLD else "STONE"
    th, tw = text_size(label, 1)
    draw_text(img, label, r0 + cell - th - max(cell // 12, 2) - 2, cx - tw // 2, color, 1)


def _draw_cell(img, lay: Layout, game, b, x, y, seat, known=None) -> None:
    cy, cx = lay.cell_center(x, y)
    cell = lay.cell
    v = b.variant_at(x, y)
    if v == EMPTY:
        return
    if v == HIDDEN_GOAL:
        slot = GOAL_CELLS.index((x, y))
        ident = int(b.goal_identity[slot])
        knows = goal_seen(game, b, seat, slot, known)
        _draw_goal_back(img, cy, cx, cell, ident if knows else None)
        return
    r, c = b.rc(x, y)
    reached = int(b.reached[r, c])
    kid = ALL_KINDS[VARIANTS[v].kind].id
    if (x, y) == START_CELL:
        _draw_variant(img, cy, cx, cell, v, reached, START)
        th, tw = text_size("S", 2)
        _fill(img, cy - th // 2 - 2, cx - tw // 2 - 2, cy + th // 2 + 3, cx + tw // 2 + 3, START)
        draw_text(img, "S", cy - th // 2, cx - tw // 2, TEXT, 2)
    elif kid == "G_GOLD":
        _draw_variant(img, cy, cx, cell, v, reached, ROCK)
        _frame(
            img,
            cy - cell // 2 + 1,
            cx - cell // 2 + 1,
            cy + cell // 2 - 1,
            cx + cell // 2 - 1,
            GOLD,
            2,
        )
        _diamond(img, cy, cx, cell // 4, GOLD)
    elif kid.startswith("G_"):
        _draw_variant(img, cy, cx, cell, v, reached, ROCK)
        _frame(
            img,
            cy - cell // 2 + 1,
            cx - cell // 2 + 1,
            cy + cell // 2 - 1,
            cx + cell // 2 - 1,
            STONE,
            2,
        )
        _disc(img, cy, cx, cell // 5, STONE)
    else:
        _draw_variant(img, cy, cx, cell, v, reached, ROCK)


# --- the panel --------------------------------------------------------------------------
def _card_short(k: int) -> str:
    kid = ALL_KINDS[k].id
    return SHORT_NAMES.get(kid, kid)


def _tool_boxes(img, top, left, broken, size=16) -> int:
    for t, letter in enumerate(_TOOL_LETTERS):
        c0 = left + t * (size + 4)
        color = TOOL_BROKEN if broken[t] else TOOL_OK
        _fill(img, top, c0, top + size, c0 + size, color)
        draw_text(img, letter, top + (size - 7) // 2, c0 + (size - 5) // 2, TEXT, 1)
        if broken[t]:
            for d in range(size):
                for dd in (0, 1):
                    if 0 <= d + dd < size:
                        img[top + d, c0 + d + dd] = (20, 20, 20)
                        img[top + d, c0 + size - 1 - d - dd] = (20, 20, 20)
    return left + 3 * (size + 4)


def _panel_lines(game, seat, round_result, names):
    """A list of (kind, payload) rows for the side panel."""
    rows = []
    rnd = game.round + 1 if round_result is None else round_result.round + 1
    rows.append(("text", f"ROUND {rnd}/{game.config.num_rounds}", TEXT))
    if round_result is None:
        status = "GAME OVER" if game.game_over else f"TURN {game.turn + 1}"
        rows.append(("text", status, TEXT_DIM))
        rows.append(("text", f"DRAW PILE {len(game.deck)}", TEXT))
        rows.append(("text", f"DISCARDS {int(game.discards.sum())}", TEXT_DIM))
        rows.append(("gap",))
        for s in range(game.n):
            rows.append(("seat", s))
        legend = "  ".join(f"{letter} {tool.upper()}" for letter, tool in zip(_TOOL_LETTERS, TOOLS))
        rows.append(("text", legend, TEXT_DIM, 1))
        if game.phase is not Phase.TURN:  # a Saboteur 2 pass, removal or theft (RULES 6.7, 6.9)
            rows.append(("text", f"PHASE: {str(game.phase).upper()}", GOLD))
    else:
        rules = game.rules
        side = side_label(round_result.winning_side, round_result.roles, rules)
        head, _, note = side.partition(" (")  # the note on a line of its own: the panel is narrow
        rows.append(("text", f"ROUND OVER: {head}", GOLD))
        if note:
            rows.append(("text", f"({note}", GOLD))
        if _states_winners(rules):
            won = " ".join(str(s) for s in round_result.winners) or "NONE"
            rows.append(("text", f"WINNERS: {won}", TEXT))
        rows.append(("gap",))
        wide = max(len(r) for r in rules.roles)
        for s, r in enumerate(round_result.roles):
            name = f" {names[s]}" if names else ""
            # gold is secret until the game ends (RULES 5.3): a seat sees only its own amount
            own = isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and s == seat
            public = seat == "spectator" or getattr(game, "game_over", False)
            got = f"{round_result.received[s]:+d}" if public or own else ""  # a theft: -1
            rows.append(
                (
                    "text",
                    f"{s}{name[:10]:<11}{_role_name(game, r)[:wide]:<{wide + 1}}{got}",
                    role_color(rules, r),
                )
            )
    rows.append(("gap",))
    if seat == "spectator":
        if round_result is None:
            rows.append(("text", "SPECTATOR: ALL REVEALED", SABOTEUR_RED))
            for s in range(game.n):
                role = _role_name(game, int(game.roles[s]))
                rows.append(("text", f"{s} {role:<12} GOLD {int(game.gold[s])}", TEXT_DIM))
    elif isinstance(seat, (int, np.integer)) and not isinstance(seat, bool):
        rows.append(("text", f"YOU: SEAT {seat}", TEXT))
        if round_result is None:
            role = int(game.roles[seat])
            rows.append(("text", _role_name(game, role), role_color(game.rules, role)))
        rows.append(("text", f"GOLD {int(game.gold[seat])}", TEXT))
        if round_result is None:
            hand = [_card_short(k) for k in game.hand_kinds(seat)]
            rows.append(("text", "HAND:", TEXT_DIM))
            for i in range(0, len(hand), 3):
                row = " ".join(f"{h:<{LABEL_WIDTH}}" for h in hand[i : i + 3]).rstrip()
                rows.append(("text", row, TEXT))
    return rows


def _seat_tags(game, s) -> list[tuple[str, tuple[int, int, int], tuple[int, int, int] | None]]:
    """``(label, text colour, tag colour or None)`` for what lies in front of seat ``s``
    besides its tools and what the ``ansi`` render shows with it: a Trapped! and a Theft card
    (``game.front``, ``cards.FRONT_SLOTS``; RULES 6.5) and, where that is public, whether the
    seat holds gold (RULES 6.9).  Empty in the base game."""
    front = game.front(s)
    tags: list[tuple[str, tuple[int, int, int], tuple[int, int, int] | None]] = []
    if front[FRONT_TRAPPED]:
        tags.append(("TRAPPED!", TEXT, TRAPPED_TAG))
    if front[FRONT_THEFT]:
        tags.append(("THEFT", TAG_TEXT, THEFT_TAG))
    if game.rules.public_gold_holders and game.gold[s] > 0:
        tags.append(("HAS GOLD", GOLD, None))
    return tags


def _draw_tags(img, y, x, tags) -> None:
    """Small scale-1 labels in fixed columns (a label on a coloured tag where one is given)."""
    columns = {"TRAPPED!": 0, "THEFT": 56, "HAS GOLD": 94}
    for label, color, tag in tags:
        c0 = x + columns[label]
        _, tw = text_size(label, 1)
        if tag is not None:
            _fill(img, y, c0, y + 11, c0 + tw + 4, tag)
        draw_text(img, label, y + 2, c0 + 2, color, 1)


def _draw_panel(img, top, left, game, seat, round_result, names) -> None:
    y = top
    pw = panel_width(game)
    for row in _panel_lines(game, seat, round_result, names):
        if row[0] == "gap":
            y += 10
        elif row[0] == "text":
            scale = row[3] if len(row) > 3 else 2
            draw_text(img, row[1], y, left, row[2], scale)
            y += 7 * scale + 6
        else:
            s = row[1]
            if s == game.current and not game.game_over:
                _fill(img, y - 3, left - 4, y + 19, left + pw - 2 * MARGIN, HIGHLIGHT)
            mark = ">" if s == game.current and not game.game_over else " "
            who = "YOU" if s == seat else (names[s][:10] if names else "")
            x = draw_text(img, f"{mark}{s} {who:<10}", y, left, TEXT, 2)
            x = _tool_boxes(img, y, x + 4, game.broken[s])
            draw_text(img, f"HAND {game.hand_size(s)}", y, x + 8, TEXT_DIM, 2)
            _draw_tags(img, y + 1, left + TAG_LEFT, _seat_tags(game, s))
            y += 24


def _panel_height(game, seat, round_result, names) -> int:
    h = 0
    for row in _panel_lines(game, seat, round_result, names):
        if row[0] == "gap":
            h += 10
        elif row[0] == "text":
            h += 7 * (row[3] if len(row) > 3 else 2) + 6
        else:
            h += 24
    return h


# --- the image --------------------------------------------------------------------------
def render_rgb(
    game,
    seat: int | str | None,
    board=None,
    *,
    extent=None,
    cell: int = 48,
    caption: str | None = None,
    round_result: RoundResult | None = None,
    names=None,
    known=None,
) -> np.ndarray:
    """The maze and the public state as an RGB image, from ``seat``'s view.

    Args:
        game: the :class:`~saboteur_env.engine.state.Game` (read only: never changed).
        seat: an absolute seat (its own role, gold, hand and map results are shown), ``None``
            (public information only) or ``"spectator"`` (everything revealed; debugging and
            replays only).
        board: draw this maze instead of the current one (e.g. ``game.round_boards[i]``); map
            results are then not shown, as they belong to the current round, unless given
            as ``known``.
        extent: ``(x0, x1, y0, y1)`` cells to draw (default :func:`board_extent`).
        cell: cell size in pixels (>= 24).
        caption: a line of text drawn under the maze (e.g. the last decision).
        round_result: a ``game.round_results`` entry (a
            :class:`~saboteur_env.engine.events.RoundResult`): the panel shows it instead of
            the seats.
        names: optional agent names per seat, shown in the panel.
        known: with ``board`` a past round's maze, ``seat``'s map results when that round
            ended (bool ``(3,)`` per goal slot).

    Returns:
        ``numpy.uint8`` array of shape ``(H, W, 3)``.
    """
    if cell < 24:
        raise ValueError(f"cell={cell}: at least 24 pixels are needed to draw a card")
    check_known(known)
    if isinstance(seat, str) and seat != "spectator":
        raise ValueError(f"seat={seat!r}: use an int seat, None or 'spectator'")
    if (
        isinstance(seat, (int, np.integer))
        and not isinstance(seat, bool)
        and not 0 <= seat < game.n
    ):
        raise ValueError(f"seat={seat} is not in play (0..{game.n - 1})")
    b = game.board if board is None else board
    lay = layout(b, extent, cell)
    mh, mw = lay.maze_size
    ph = _panel_height(game, seat, round_result, names) + 2 * MARGIN
    cap_h = 26 if caption else 0
    height = max(lay.top + mh + MARGIN, ph) + cap_h
    width = lay.left + mw + MARGIN + panel_width(game)
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = BACKGROUND
    # grid and coordinates
    for x in range(lay.x0, lay.x1 + 1):
        r0, c0, r1, c1 = lay.cell_box(x, lay.y0)
        lbl = str(x)
        th, tw = text_size(lbl, 2)
        draw_text(img, lbl, MARGIN + 2, c0 + (cell - tw) // 2, TEXT_DIM, 2)
    for y in range(lay.y0, lay.y1 + 1):
        r0, c0, r1, c1 = lay.cell_box(lay.x0, y)
        lbl = str(y)
        th, tw = text_size(lbl, 2)
        draw_text(img, lbl, r0 + (cell - th) // 2, lay.left - tw - 6, TEXT_DIM, 2)
    img[lay.top : lay.top + mh + 1, lay.left : lay.left + mw + 1 : cell] = GRID
    img[lay.top : lay.top + mh + 1 : cell, lay.left : lay.left + mw + 1] = GRID
    for x, y, _ in b.cards():
        if lay.x0 <= x <= lay.x1 and lay.y0 <= y <= lay.y1:
            _draw_cell(img, lay, game if board is None else None, b, x, y, seat, known)
    # panel
    pl = lay.left + mw + MARGIN
    _fill(img, 0, pl, height - cap_h, width, PANEL)
    _draw_panel(img, MARGIN + 4, pl + MARGIN, game, seat, round_result, names)
    if caption:
        draw_text(img, caption, height - cap_h + 6, MARGIN, TEXT, 2)
    return img


# --- files ------------------------------------------------------------------------------
def png_bytes(img: np.ndarray) -> bytes:
    """Encode an RGB uint8 image as PNG with the standard library only."""
    img = np.ascontiguousarray(img, dtype=np.uint8)
    h, w = img.shape[:2]
    raw = np.concatenate([np.zeros((h, 1), dtype=np.uint8), img.reshape(h, w * 3)], axis=1)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + tag
            + data
            + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
        )

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
        + chunk(b"IEND", b"")
    )


def save_png(img: np.ndarray, path) -> None:
    """Write ``img`` (uint8 ``(H, W, 3)``) to ``path`` as PNG (no extra dependency)."""
    with open(path, "wb") as f:
        f.write(png_bytes(img))


def pad_frames(frames) -> list[np.ndarray]:
    """Pad images to one common size (bottom/right, background colour)."""
    h = max(f.shape[0] for f in frames)
    w = max(f.shape[1] for f in frames)
    out = []
    for f in frames:
        if f.shape[:2] == (h, w):
            out.append(f)
            continue
        g = np.empty((h, w, 3), dtype=np.uint8)
        g[:] = BACKGROUND
        g[: f.shape[0], : f.shape[1]] = f
        out.append(g)
    return out


def save_gif(frames, path, duration_ms: int = 700) -> None:
    """Write images as an animated GIF (needs Pillow: ``pip install pillow``).

    Raises:
        ImportError: Pillow is not installed (the message says how to install it).
    """
    try:
        from PIL import Image
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "writing a GIF needs Pillow: pip install pillow "
            "(or write PNG frames to a folder instead)"
        ) from err
    frames = pad_frames(list(frames))
    if not frames:
        raise ValueError("no frames to write")
    ims = [Image.fromarray(f) for f in frames]
    ims[0].save(
        path, save_all=True, append_images=ims[1:], duration=duration_ms, loop=0, optimize=False
    )


# --- a window for render_mode="human" ---------------------------------------------------
def _interactive_backend() -> bool:
    """Whether matplotlib can open a window here (an interactive backend, a display)."""
    if "matplotlib" not in sys.modules:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return False
    import matplotlib

    backend = str(matplotlib.get_backend()).lower()
    if backend in ("agg", "pdf", "ps", "svg", "pgf", "cairo", "template") or "inline" in backend:
        return False
    return True


def show_human(game, seat, window=None, out=None):
    """Show the image of ``seat``'s view in a matplotlib window, or print the ``ansi`` text
    where no window can be opened (no matplotlib, a non-interactive backend).

    Returns the window handle to pass back next time (``None`` when text was printed).
    """
    if window is None and not _interactive_backend():
        from .render import render_ansi

        print(render_ansi(game, seat), file=out or sys.stdout)
        return None
    import matplotlib.pyplot as plt

    img = render_rgb(game, seat)
    if window is None or not plt.fignum_exists(window[0].number):
        plt.ion()
        fig, ax = plt.subplots(figsize=(img.shape[1] / 100, img.shape[0] / 100))
        ax.set_axis_off()
        fig.subplots_adjust(0, 0, 1, 1)
        im = ax.imshow(img)
        window = (fig, im)
    else:
        fig, im = window
        if im.get_array().shape != img.shape:
            im.remove()
            im = fig.axes[0].imshow(img)
            window = (fig, im)
        else:
            im.set_data(img)
    fig.canvas.draw_idle()
    plt.pause(0.001)
    return window


def close_window(window) -> None:
    """Close a window opened by :func:`show_human` (no-op for ``None``)."""
    if window is None:
        return
    import matplotlib.pyplot as plt

    plt.close(window[0])


__all__ = [
    "Layout",
    "board_extent",
    "draw_text",
    "layout",
    "pad_frames",
    "png_bytes",
    "render_rgb",
    "save_gif",
    "save_png",
    "show_human",
    "close_window",
]
