"""Placing a path card (RULES 3.1, 4.2; Saboteur 2 ladders RULES 6.4).

Legality is the board's neighbourhood code per window cell looked up in ``board.FIT`` for each
oriented card (DESIGN 2): one array operation per placement row, no move is tried.

Restated (base game and Saboteur 2) by the batched engine's compiled kernels
(``saboteur_env/vector/kernels.py``), which ``tests/test_vector.py`` checks against this module
over whole games: a change here needs the same change there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..board import EMPTY
from ..cards import CARD_KINDS, GOAL_CELLS, GOAL_GOLD, VARIANT_OF, VARIANTS, kind_label, turns
from ..events import EventType
from ..scoring import end_round
from ..turn import end_turn
from .family import ActionFamily, Layout, hand_form, held_kinds, is_int
from .types import PlacePath

if TYPE_CHECKING:
    from ..events import Event
    from ..state import Game
    from .types import Action


#: card kind -> whether it is a path card
_IS_PATH = tuple(k.category == "path" for k in CARD_KINDS)


class PlaceFamily(ActionFamily):
    """Put an oriented path card on a window cell (block: placement row x cell)."""

    name = "place"
    types = (PlacePath,)

    def shape(self, lay: Layout) -> tuple[int, ...]:
        return (len(lay.variants), lay.n_cells)

    def index(self, lay: Layout, action: Action, actor: int, n: int) -> int:
        assert isinstance(action, PlacePath)
        v = VARIANT_OF.get((action.kind, bool(action.rotated)))
        if v is None or v not in lay.variant_row or VARIANTS[v].rotated != bool(action.rotated):
            raise ValueError(f"{action!r} has no index (unknown kind or symmetric rotation)")
        return lay.variant_row[v] * lay.n_cells + lay.cell(action.x, action.y)

    def action(self, lay: Layout, i: int, actor: int, n: int) -> Action:
        row, cell = divmod(i, lay.n_cells)
        v = VARIANTS[lay.variants[row]]
        return PlacePath(int(v.kind), *lay.xy(cell), v.rotated)

    def legal(
        self, game: Game, seat: int, held: list[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Rows of the path cards in hand, where the seat may place paths: ``FIT`` of each
        oriented card at each cell's neighbourhood code."""
        lay = game.layout
        out = self.blank(lay, out)
        if not game.can_place_paths(seat):  # RULES 3.1.1, 3.2, 6.5
            return out
        codes = None
        fit = lay.fit
        dest = out if out.dtype == np.bool_ else out.view(np.bool_)  # a mask's int8 block
        for k in held_kinds(game, seat) if held is None else held:
            if not _IS_PATH[k]:
                continue
            if codes is None:
                codes = game.board.window_codes()
            for row in lay.rows_of_kind[k]:
                fit[row].take(codes, out=dest[row])
        return out

    def legal_reference(self, game: Game, seat: int) -> np.ndarray:
        """:meth:`legal` row by row with a plain fancy index (its specification)."""
        lay = game.layout
        out = self.blank(lay, None)
        if not game.can_place_paths(seat):
            return out
        hand = game.hands[seat]
        codes = game.board.window_codes(fresh=True)  # not the cache legal() reads
        for k in held_kinds(game, seat):
            if CARD_KINDS[k].category == "path" and hand[k]:
                for row in lay.rows_of_kind[k]:
                    out[row] = lay.fit[row, codes]
        return out

    def allows(self, game: Game, seat: int, action: Action) -> bool:
        """The one entry of :meth:`legal`: the same predicate and the same ``FIT`` look-up."""
        assert isinstance(action, PlacePath)
        if not game.can_place_paths(seat):
            return False
        lay = game.layout
        row = lay.variant_row[VARIANT_OF[(action.kind, bool(action.rotated))]]
        return bool(lay.fit[row, game.board.window_codes()[lay.cell(action.x, action.y)]])

    def form(self, game: Game, seat: int, action: Action) -> str | None:
        assert isinstance(action, PlacePath)
        k = action.kind
        why = hand_form(game, seat, k)
        if why is not None:
            return why
        if not isinstance(action.rotated, (bool, np.bool_)):
            return f"rotated={action.rotated!r}: must be a bool (RULES 0.2)"
        if CARD_KINDS[k].category != "path":
            return f"{CARD_KINDS[k].id} is not a path card (RULES 3.1)"
        if action.rotated and not turns(k):
            return (
                f"{CARD_KINDS[k].id} is symmetric under 180 degrees: use rotated=False "
                "(one action per distinct move)"
            )
        if not game.can_place_paths(seat):
            return self.explain(game, seat, action)
        if not (is_int(action.x) and is_int(action.y)):
            return f"cell ({action.x!r}, {action.y!r}): coordinates must be ints"
        if not game.board.in_window(action.x, action.y):
            return f"cell ({action.x}, {action.y}) is outside the board window (DESIGN 3)"
        return None

    def explain(self, game: Game, seat: int, action: Action) -> str:
        assert isinstance(action, PlacePath)
        if not game.can_place_paths(seat):
            return (
                "a player with a broken tool or a Trapped! card may not place path "
                "cards (RULES 3.1.1, 3.2, 6.5)"
            )
        if game.board.variant_at(action.x, action.y) != EMPTY:
            return f"cell ({action.x}, {action.y}) is not empty (RULES 3.1.2)"
        label, x, y = kind_label(action.kind, action.rotated), action.x, action.y
        if CARD_KINDS[action.kind].is_ladder:  # RULES 6.4: exempt from 3.1.5, kept off goals
            if game.board.touches_goal(x, y):
                return (
                    f"{label} may not go at ({x}, {y}): a ladder may not touch a goal card "
                    "orthogonally (RULES 6.4)"
                )
            return (
                f"{label} does not fit at ({x}, {y}): it must touch the maze and match every "
                "face-up neighbour's edges (RULES 3.1.2, 3.1.4; a ladder needs no connection "
                "to the start, RULES 6.4)"
            )
        return (
            f"{label} does not fit at ({x}, {y}): it must touch the maze, match every "
            "face-up neighbour's edges and connect to the start "
            "(RULES 3.1.2, 3.1.4, 3.1.5)"
        )

    def apply(self, game: Game, seat: int, action: Action) -> None:
        """Place the card; turn over every goal it connects (RULES 4.2); reaching the gold
        ends the round at once (RULES 5.1), else the seat draws (RULES 3.7)."""

        assert isinstance(action, PlacePath)
        k = action.kind
        game.hands[seat, k] -= 1
        variant = VARIANT_OF[(k, action.rotated)]
        revealed = game.board.place(variant, action.x, action.y)
        game.emit(
            EventType.PATH_PLACED,
            seat,
            {
                "kind": k,
                "x": action.x,
                "y": action.y,
                "rotated": VARIANTS[variant].rotated,
                "variant": variant,
            },
        )
        gold_found = False
        for slot, ident, rotated in revealed:
            game.known_goals[:, slot] = True
            gx, gy = GOAL_CELLS[slot]
            game.emit(
                EventType.GOAL_REVEALED,
                seat,
                {"goal": slot, "x": gx, "y": gy, "identity": ident, "rotated": rotated},
            )
            gold_found |= ident == GOAL_GOLD
        if gold_found:
            end_round(game, gold_found=True, connector=seat)
        else:
            end_turn(game, seat)

    def describe(self, action: Action) -> str:
        assert isinstance(action, PlacePath)
        return f"place {kind_label(action.kind, action.rotated)} at ({action.x}, {action.y})"

    def from_event(self, event: Event) -> Action | None:
        if event.type is not EventType.PATH_PLACED:
            return None
        d = event.data
        return PlacePath(d["kind"], d["x"], d["y"], bool(d["rotated"]))
