"""Round-end Theft in Saboteur 2: the thief to act robs a player of 1 gold (RULES 6.9).

Restated by the batched engine's compiled kernels (``saboteur_env/vector/kernels.py``), which
``tests/test_vector.py`` checks against this module over whole games: a change here needs the
same change there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..events import EventType
from ..scoring import steal
from .family import ActionFamily, Layout, is_int, relative_seats
from .types import Steal

if TYPE_CHECKING:
    from ..events import Event
    from ..state import Game
    from .types import Action


def victims(game: Game, seat: int) -> np.ndarray:
    """bool ``(n,)``: players the thief ``seat`` may rob: anyone else holding gold (whether a
    player has any gold is public, RULES 6.9)."""
    return victims_of(game.gold, seat)


def victims_of(gold: np.ndarray, seat: int) -> np.ndarray:
    """:func:`victims` from every seat's gold, int64 ``(n,)`` (the batched engine's thefts
    ask here too)."""
    ok: np.ndarray = gold >= 1
    ok[seat] = False
    return ok


class StealFamily(ActionFamily):
    """Choose the victim of a Theft (block: relative seat)."""

    name = "steal"
    types = (Steal,)

    def shape(self, lay: Layout) -> tuple[int, ...]:
        return (lay.max_players,)

    def index(self, lay: Layout, action: Action, actor: int, n: int) -> int:
        assert isinstance(action, Steal)
        return int((action.target - actor) % n)

    def action(self, lay: Layout, i: int, actor: int, n: int) -> Action:
        if i >= n:
            raise ValueError(f"targets relative seat {i}, but only {n} players are in play")
        return Steal((actor + i) % n)

    def legal(
        self, game: Game, seat: int, held: list[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        out = self.blank(game.layout, out)
        out[: game.n] = victims(game, seat)[relative_seats(seat, game.n)]
        return out

    def form(self, game: Game, seat: int, action: Action) -> str | None:
        assert isinstance(action, Steal)
        if not is_int(action.target) or not 0 <= action.target < game.n:
            return self.explain(game, seat, action)
        return None

    def explain(self, game: Game, seat: int, action: Action) -> str:
        assert isinstance(action, Steal)
        return (
            f"seat {action.target!r} cannot be robbed: a thief steals from another player "
            "holding at least 1 gold (RULES 6.9)"
        )

    def apply(self, game: Game, seat: int, action: Action) -> None:

        assert isinstance(action, Steal)
        steal(game, seat, action.target)

    def describe(self, action: Action) -> str:
        assert isinstance(action, Steal)
        return f"steal 1 gold from seat {action.target}"

    def from_event(self, event: Event) -> Action | None:
        if event.type is not EventType.THEFT:
            return None
        return Steal(event.data["target"])
