"""Map: look at a face-down goal card (RULES 3.5).

Restated (base game and Saboteur 2) by the batched engine's compiled kernels
(``saboteur_env/vector/kernels.py``), which ``tests/test_vector.py`` checks against this module
over whole games: a change here needs the same change there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..cards import KIND_INDEX
from ..events import EventType
from ..turn import end_turn
from .family import ActionFamily, Layout, hand_form, is_int
from .types import Map

if TYPE_CHECKING:
    from ..events import Event
    from ..state import Game
    from .types import Action

MAP = KIND_INDEX["map"]
GOAL_NAMES = ("top", "middle", "bottom")


class MapFamily(ActionFamily):
    """Play a map card on a goal slot (block: goal slot 0-2)."""

    name = "map"
    types = (Map,)

    def shape(self, lay: Layout) -> tuple[int, ...]:
        return (3,)

    def index(self, lay: Layout, action: Action, actor: int, n: int) -> int:
        assert isinstance(action, Map)
        if action.goal not in (0, 1, 2):
            raise ValueError(f"{action!r}: goal must be 0, 1 or 2")
        return int(action.goal)

    def action(self, lay: Layout, i: int, actor: int, n: int) -> Action:
        return Map(i)

    def legal(
        self, game: Game, seat: int, held: list[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Goal slots still face down (a map may also look at a goal one already knows)."""
        out = self.blank(game.layout, out)
        if game.hands[seat, MAP]:
            out[:] = ~game.board.goal_revealed
        return out

    def form(self, game: Game, seat: int, action: Action) -> str | None:
        assert isinstance(action, Map)
        why = hand_form(game, seat, MAP)
        if why is None and not (is_int(action.goal) and action.goal in (0, 1, 2)):
            return f"goal slot {action.goal!r} is not 0, 1 or 2"
        return why

    def explain(self, game: Game, seat: int, action: Action) -> str:
        return "a map may only look at a face-down goal (RULES 3.5)"

    def apply(self, game: Game, seat: int, action: Action) -> None:
        """Look at the goal: public that a map was played, private what it showed."""

        assert isinstance(action, Map)
        game.hands[seat, MAP] -= 1
        game.discards[MAP] += 1
        game.known_goals[seat, action.goal] = True
        game.emit(EventType.MAP_PLAYED, seat, {"goal": action.goal})
        game.emit(
            EventType.MAP_RESULT,
            seat,
            {"goal": action.goal, "identity": int(game.board.goal_identity[action.goal])},
            visible_to=seat,
        )
        end_turn(game, seat)

    def describe(self, action: Action) -> str:
        assert isinstance(action, Map)
        return f"map: look at goal {GOAL_NAMES[action.goal]}"

    def from_event(self, event: Event) -> Action | None:
        if event.type is not EventType.MAP_PLAYED:
            return None
        return Map(event.data["goal"])
