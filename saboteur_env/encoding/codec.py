"""The action codec: structured actions <-> one flat ``Discrete(n)`` index (DESIGN 3).

Blocks, in index order (base game):

=========  =====================================  =========================================
block      size                                   meaning
=========  =====================================  =========================================
place      n_variants x n_cells                   place that oriented path card on that cell
rockfall   n_cells                                remove the tunnel card on that cell
map        3                                      look at goal slot 0 / 1 / 2
tool       12 (card kind, tool) x max_players     break / repair that tool of relative seat
discard    n_kinds                                pass, discarding one card of that kind
=========  =====================================  =========================================

* Placement is indexed by *variant* (card kind x rotation, RULES 0.2); a kind that looks the
  same after a 180-degree turn has one variant, so symmetric duplicates are offered once.
* Cells are the board window in row-major order (``(y - y_min) * width + (x - x_min)``).
* Target seats are relative to the actor: 0 = self, 1 = next clockwise, ...; padded to the
  largest player count (10 in the base game), so an index means the same for every seat.

Saboteur 2 (``expansion=True``) uses the same blocks, sized for 69 placeable variants, 60 hand
kinds and 12 players, and appends:

=========  =====================================  =========================================
xaction    7 (X_EFFECTS order) x max_players      theft, hands off!, swap your hand,
                                                  inspection, swap your hats, trapped!,
                                                  free at last! on that relative seat
remove     5 (cards.FRONT_SLOTS)                  option 3: remove that card in front of
                                                  yourself; two ``discard`` decisions follow
done       1                                      end a pass after 1 or 2 discards
steal      max_players                            round-end Theft: rob that relative seat
=========  =====================================  =========================================

In the expansion a ``discard`` index on a normal turn starts a pass (RULES 6.7 option 4): the
same agent acts again, the mask then offers only ``discard`` (up to 3 cards in all) and
``done``.  After a ``remove`` index only ``discard`` is offered, twice.  At round end each thief
in turn gets a mask with only ``steal`` indexes (DESIGN 3).

``Codec.mask(game)`` builds the legal-action mask with array operations (no move is tried).
"""

from __future__ import annotations

import numpy as np

from ..engine.board import FIT
from ..engine.cards import (
    ALL_KINDS,
    CARD_KINDS,
    FRONT_SLOTS,
    KIND_INDEX,
    N_BASE_KINDS,
    N_EXPANSION_KINDS,
    VARIANTS,
    X_ACTION_KINDS,
    placeable_variants,
)
from ..engine.config import GameConfig
from ..engine.state import (
    Action,
    BreakTool,
    Discard,
    EndPass,
    Game,
    Map,
    PlacePath,
    PlayCard,
    RemoveFront,
    Repair,
    Rockfall,
    Steal,
)


class Codec:
    """Encode and decode actions of one game configuration.

    Attributes:
        n: size of the flat action space.
        blocks: ``{name: (offset, size)}``.
        variants: variant ids of the placement block, in order.
        tool_pairs: ``[(kind, tool), ...]`` of the tool block, in order.
    """

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        x0, x1, y0, y1 = config.board_window
        self.window = config.board_window
        self.width, self.height = x1 - x0 + 1, y1 - y0 + 1
        self.n_cells = self.width * self.height
        self.max_players = config.max_players
        self.expansion = config.expansion
        self.n_kinds = N_EXPANSION_KINDS if config.expansion else N_BASE_KINDS
        self.variants = placeable_variants(config.expansion)
        self.variant_pos = {v: i for i, v in enumerate(self.variants)}
        self.tool_pairs = [(k, kind.effect[1]) for k, kind in enumerate(CARD_KINDS[:self.n_kinds])
                           if kind.effect[:1] == ("break",)]
        self.tool_pairs += [(k, t) for k, kind in enumerate(CARD_KINDS[:self.n_kinds])
                            if kind.effect[:1] == ("repair",) for t in kind.effect[1]]
        self.tool_pos = {p: i for i, p in enumerate(self.tool_pairs)}
        sizes = [
            ("place", len(self.variants) * self.n_cells),
            ("rockfall", self.n_cells),
            ("map", 3),
            ("tool", len(self.tool_pairs) * self.max_players),
            ("discard", self.n_kinds),
        ]
        if config.expansion:
            sizes += [
                ("xaction", len(X_ACTION_KINDS) * self.max_players),
                ("remove", len(FRONT_SLOTS)),
                ("done", 1),
                ("steal", self.max_players),
            ]
        self.x_pos = {k: i for i, k in enumerate(X_ACTION_KINDS)}
        self.blocks: dict[str, tuple[int, int]] = {}
        off = 0
        for name, size in sizes:
            self.blocks[name] = (off, size)
            off += size
        self.n = off
        # per-kind lookups for the mask
        self._variant_rows_of_kind = {
            k: [i for i, v in enumerate(self.variants) if VARIANTS[v].kind == k]
            for k in range(self.n_kinds)
        }
        self._fit = FIT[np.array(self.variants)]  # (n_variants, 2**14)
        self._tool_rows_of_kind = {
            k: [i for i, (kk, _) in enumerate(self.tool_pairs) if kk == k]
            for k in range(self.n_kinds)
        }
        self._rockfall = KIND_INDEX["rockfall"]
        self._map = KIND_INDEX["map"]

    # --- cells -----------------------------------------------------------------------
    def cell(self, x: int, y: int) -> int:
        x0, x1, y0, y1 = self.window
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            raise ValueError(f"cell ({x}, {y}) is outside the board window {self.window}")
        return (y - y0) * self.width + (x - x0)

    def xy(self, cell: int) -> tuple[int, int]:
        return cell % self.width + self.window[0], cell // self.width + self.window[2]

    # --- encode / decode ---------------------------------------------------------------
    def encode(self, action: Action, actor: int, n_players: int) -> int:
        """Flat index of ``action`` taken by seat ``actor`` in a game of ``n_players``.

        Raises:
            ValueError: the action cannot be expressed (e.g. a cell outside the window, a
                rotated symmetric card, an unknown kind).
        """
        if isinstance(action, PlacePath):
            from ..engine.cards import VARIANT_OF

            v = VARIANT_OF.get((action.kind, bool(action.rotated)))
            if v is None or v not in self.variant_pos or \
                    VARIANTS[v].rotated != bool(action.rotated):
                raise ValueError(f"{action!r} has no index (unknown kind or symmetric rotation)")
            off, _ = self.blocks["place"]
            return off + self.variant_pos[v] * self.n_cells + self.cell(action.x, action.y)
        if isinstance(action, Rockfall):
            return self.blocks["rockfall"][0] + self.cell(action.x, action.y)
        if isinstance(action, Map):
            if action.goal not in (0, 1, 2):
                raise ValueError(f"{action!r}: goal must be 0, 1 or 2")
            return self.blocks["map"][0] + action.goal
        if isinstance(action, (BreakTool, Repair)):
            tool = action.tool if isinstance(action, Repair) else \
                CARD_KINDS[action.kind].effect[1]
            pos = self.tool_pos.get((action.kind, tool))
            if pos is None:
                raise ValueError(f"{action!r} has no index")
            rel = (action.target - actor) % n_players
            return self.blocks["tool"][0] + pos * self.max_players + rel
        if isinstance(action, Discard):
            if not 0 <= action.kind < self.n_kinds:
                raise ValueError(f"{action!r}: unknown kind")
            return self.blocks["discard"][0] + action.kind
        if self.expansion:
            if isinstance(action, PlayCard) and action.kind in self.x_pos:
                rel = (action.target - actor) % n_players
                return self.blocks["xaction"][0] + self.x_pos[action.kind] * self.max_players + rel
            if isinstance(action, RemoveFront) and action.slot in range(len(FRONT_SLOTS)):
                return self.blocks["remove"][0] + action.slot
            if isinstance(action, EndPass):
                return self.blocks["done"][0]
            if isinstance(action, Steal):
                return self.blocks["steal"][0] + (action.target - actor) % n_players
        raise ValueError(f"cannot encode {action!r}")

    def decode(self, index: int, actor: int, n_players: int) -> Action:
        """The structured action of flat ``index`` for seat ``actor``.

        Raises:
            ValueError: ``index`` is outside ``0..n-1`` or names a seat not in play.
        """
        if not 0 <= index < self.n:
            raise ValueError(f"action {index} is outside the action space 0..{self.n - 1}")
        name, i = next((nm, index - off) for nm, (off, size) in self.blocks.items()
                       if index < off + size)
        if name == "place":
            row, cell = divmod(i, self.n_cells)
            v = VARIANTS[self.variants[row]]
            return PlacePath(int(v.kind), *self.xy(cell), v.rotated)
        if name == "rockfall":
            return Rockfall(*self.xy(i))
        if name == "map":
            return Map(i)
        if name == "tool":
            row, rel = divmod(i, self.max_players)
            if rel >= n_players:
                raise ValueError(f"action {index} targets relative seat {rel}, "
                                 f"but only {n_players} players are in play")
            kind, tool = self.tool_pairs[row]
            target = (actor + rel) % n_players
            if CARD_KINDS[kind].effect[0] == "break":
                return BreakTool(kind, target)
            return Repair(kind, tool, target)
        if name == "discard":
            return Discard(i)
        if name in ("xaction", "steal"):
            row, rel = divmod(i, self.max_players)
            if rel >= n_players:
                raise ValueError(f"action {index} targets relative seat {rel}, "
                                 f"but only {n_players} players are in play")
            target = (actor + rel) % n_players
            if name == "steal":
                return Steal(target)
            return PlayCard(X_ACTION_KINDS[row], target)
        if name == "remove":
            return RemoveFront(i)
        return EndPass()

    # --- the mask (array legality, DESIGN 2) ---------------------------------------------
    def mask(self, game: Game, seat: int | None = None) -> np.ndarray:
        """Legal-action mask of ``seat`` (default: the seat to act), int8 ``(n,)``.

        All zeros when the game is over or ``seat`` is not to act.
        """
        m = np.zeros(self.n, dtype=np.int8)
        s = game.current if seat is None else seat
        if game.game_over or s != game.current:
            return m
        n = game.n
        hand = game.hands[s]
        kinds = np.nonzero(hand)[0].tolist()
        off, _ = self.blocks["discard"]
        rel_seats = (s + np.arange(n)) % n
        phase = game.phase
        if phase != "turn":
            if phase == "theft":
                o, _ = self.blocks["steal"]
                m[o:o + n] = game.steal_targets(s)[rel_seats]
                return m
            m[off + np.asarray(kinds, dtype=np.int64)] = 1
            if phase == "pass":
                m[self.blocks["done"][0]] = 1
            return m
        m[off + np.asarray(kinds, dtype=np.int64)] = 1  # RULES 3.6: any card may be discarded
        board = game.board
        tool_off = self.blocks["tool"][0]
        can_place = game.can_place_paths(s)
        codes = None
        if self.expansion and hand.sum() >= 2:  # RULES 6.7 option 3
            o, _ = self.blocks["remove"]
            m[o:o + len(FRONT_SLOTS)] = game.front(s)
        for k in kinds:
            kind = CARD_KINDS[k]
            if k in self.x_pos:
                o = self.blocks["xaction"][0] + self.x_pos[k] * self.max_players
                m[o:o + n] = game.x_targets(s, k)[rel_seats]
            elif kind.category == "path":
                if not can_place:
                    continue
                if codes is None:
                    codes = board.window_codes()
                p_off = self.blocks["place"][0]
                for row in self._variant_rows_of_kind[k]:
                    start = p_off + row * self.n_cells
                    m[start:start + self.n_cells] = self._fit[row, codes]
            elif k == self._rockfall:
                o, size = self.blocks["rockfall"]
                m[o:o + size] = board.removable()
            elif k == self._map:
                o, _ = self.blocks["map"]
                m[o:o + 3] = ~board.goal_revealed
            else:
                eff = kind.effect
                for row in self._tool_rows_of_kind[k]:
                    _, tool = self.tool_pairs[row]
                    broken = game.broken[rel_seats, tool]
                    legal = ~broken if eff[0] == "break" else broken
                    if eff[0] == "break" and not game.config.self_sabotage:
                        legal = legal.copy()
                        legal[0] = False
                    base = tool_off + row * self.max_players
                    m[base:base + n] = legal
        return m

    def describe(self, index: int, actor: int, n_players: int) -> str:
        """A short English description of an action, with absolute seats."""
        a = self.decode(index, actor, n_players)
        return describe_action(a)


def describe_action(a: Action) -> str:
    """English text for a structured action (absolute seats)."""
    from ..engine.cards import TOOLS, kind_label

    if isinstance(a, PlacePath):
        return f"place {kind_label(a.kind, a.rotated)} at ({a.x}, {a.y})"
    if isinstance(a, Rockfall):
        return f"rockfall on ({a.x}, {a.y})"
    if isinstance(a, Map):
        return f"map: look at goal {('top', 'middle', 'bottom')[a.goal]}"
    if isinstance(a, BreakTool):
        return f"break seat {a.target}'s {TOOLS[CARD_KINDS[a.kind].effect[1]]}"
    if isinstance(a, Repair):
        return f"repair seat {a.target}'s {TOOLS[a.tool]} with {ALL_KINDS[a.kind].id}"
    if isinstance(a, Discard):
        return f"discard {ALL_KINDS[a.kind].id}"
    if isinstance(a, PlayCard):
        return f"play {ALL_KINDS[a.kind].id} on seat {a.target}"
    if isinstance(a, RemoveFront):
        return f"discard two cards to remove the {FRONT_SLOTS[a.slot]} card in front of yourself"
    if isinstance(a, EndPass):
        return "end the pass"
    if isinstance(a, Steal):
        return f"steal 1 gold from seat {a.target}"
    return repr(a)
