"""Rockfall: remove a path card from the maze (RULES 3.4).

Restated (base game and Saboteur 2) by the batched engine's compiled kernels
(``saboteur_env/vector/kernels.py``), which ``tests/test_vector.py`` checks against this module
over whole games: a change here needs the same change there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..cards import KIND_INDEX, VARIANTS
from ..events import EventType
from ..turn import end_turn
from .family import ActionFamily, Layout, hand_form, is_int
from .types import Rockfall

if TYPE_CHECKING:
    from ..events import Event
    from ..state import Game
    from .types import Action

ROCKFALL = KIND_INDEX["rockfall"]


class RockfallFamily(ActionFamily):
    """Play a rockfall card on a window cell (block: cell)."""

    name = "rockfall"
    types = (Rockfall,)

    def shape(self, lay: Layout) -> tuple[int, ...]:
        return (lay.n_cells,)

    def index(self, lay: Layout, action: Action, actor: int, n: int) -> int:
        assert isinstance(action, Rockfall)
        return lay.cell(action.x, action.y)

    def action(self, lay: Layout, i: int, actor: int, n: int) -> Action:
        return Rockfall(*lay.xy(i))

    def legal(
        self, game: Game, seat: int, held: list[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Cells with a tunnel card that a rockfall may remove: never the start or a goal."""
        out = self.blank(game.layout, out)
        if game.hands[seat, ROCKFALL]:
            out[:] = game.board.removable()
        return out

    def form(self, game: Game, seat: int, action: Action) -> str | None:
        assert isinstance(action, Rockfall)
        why = hand_form(game, seat, ROCKFALL)
        if why is None and not (is_int(action.x) and is_int(action.y)):
            return f"cell ({action.x!r}, {action.y!r}): coordinates must be ints"
        if why is None and not (
            is_int(action.x) and is_int(action.y) and game.board.in_window(action.x, action.y)
        ):
            return self.explain(game, seat, action)
        return why

    def explain(self, game: Game, seat: int, action: Action) -> str:
        assert isinstance(action, Rockfall)
        return (
            f"no removable tunnel card at ({action.x}, {action.y}): rockfall "
            "removes a path card, never the start or a goal (RULES 3.4)"
        )

    def apply(self, game: Game, seat: int, action: Action) -> None:
        """Remove the card (both cards go to the discard pile face up) and draw."""

        assert isinstance(action, Rockfall)
        game.hands[seat, ROCKFALL] -= 1
        removed = game.board.remove(action.x, action.y)
        game.discards[ROCKFALL] += 1
        game.discards[VARIANTS[removed].kind] += 1
        game.emit(
            EventType.ROCKFALL,
            seat,
            {"x": action.x, "y": action.y, "variant": removed, "kind": int(VARIANTS[removed].kind)},
        )
        end_turn(game, seat)

    def describe(self, action: Action) -> str:
        assert isinstance(action, Rockfall)
        return f"rockfall on ({action.x}, {action.y})"

    def from_event(self, event: Event) -> Action | None:
        if event.type is not EventType.ROCKFALL:
            return None
        return Rockfall(event.data["x"], event.data["y"])
