"""Saboteur 2 turn option 3: discard two cards to remove a card in front of oneself (RULES 6.7).

The card in front is chosen first (this family), then the two discards follow as
:attr:`Phase.REMOVE` decisions of the same seat (the discard family), then the seat draws one.


Restated by the batched engine's compiled kernels (``saboteur_env/vector/kernels.py``), which
``tests/test_vector.py`` checks against this module over whole games: a change here needs the
same change there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..cards import FRONT_SLOTS, FRONT_THEFT
from ..events import EventType
from ..phases import Phase
from ..turn import end_turn
from .family import ActionFamily, Layout, is_int
from .types import RemoveFront

if TYPE_CHECKING:
    from ..events import Event
    from ..state import Game
    from .types import Action


def finish_remove(game: Game, seat: int) -> None:
    """After the discards: the card in front goes to the discard pile; draw one card."""

    slot = game.phase_slot
    k = game.front_kind(seat, slot)
    if slot < 3:
        game.broken[seat, slot] = False
        game.broken_kind[seat, slot] = -1
    else:
        game.xfront[seat, slot - 3] = False
        if slot == FRONT_THEFT:
            game.theft_turn[seat] = -1
    game.discards[k] += 1
    game.emit(EventType.FRONT_REMOVED, seat, {"slot": slot, "kind": k})
    game.phase, game.phase_count, game.phase_slot = Phase.TURN, 0, -1
    end_turn(game, seat)  # RULES 6.7 option 3: draw only one


class RemoveFamily(ActionFamily):
    """Choose the card in front of oneself to remove (block: ``cards.FRONT_SLOTS``)."""

    name = "remove"
    types = (RemoveFront,)

    def shape(self, lay: Layout) -> tuple[int, ...]:
        return (len(FRONT_SLOTS),)

    def index(self, lay: Layout, action: Action, actor: int, n: int) -> int:
        assert isinstance(action, RemoveFront)
        if action.slot not in range(len(FRONT_SLOTS)):
            raise ValueError(f"cannot encode {action!r}")
        return int(action.slot)

    def action(self, lay: Layout, i: int, actor: int, n: int) -> Action:
        return RemoveFront(i)

    def legal(
        self, game: Game, seat: int, held: list[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Slots with a card in front of the seat, when it holds enough cards to pay."""
        out = self.blank(game.layout, out)
        if game.hands[seat].sum() >= game.rules.remove_discards:
            out[:] = game.front(seat)
        return out

    def form(self, game: Game, seat: int, action: Action) -> str | None:
        assert isinstance(action, RemoveFront)
        if not is_int(action.slot) or action.slot not in range(len(FRONT_SLOTS)):
            return f"slot {action.slot!r} is not 0-4 ({FRONT_SLOTS})"
        return None

    def explain(self, game: Game, seat: int, action: Action) -> str:
        assert isinstance(action, RemoveFront)
        if game.hands[seat].sum() < game.rules.remove_discards:
            return "discard-two-to-remove needs at least 2 cards in hand (RULES 6.7)"
        return (
            f"seat {seat} has no {FRONT_SLOTS[action.slot]} card in front of "
            "himself to remove (RULES 6.7)"
        )

    def apply(self, game: Game, seat: int, action: Action) -> None:
        assert isinstance(action, RemoveFront)
        game.phase, game.phase_count, game.phase_slot = Phase.REMOVE, 0, action.slot
        game.emit(EventType.REMOVE_STARTED, seat, {"slot": action.slot})

    def describe(self, action: Action) -> str:
        assert isinstance(action, RemoveFront)
        return (
            f"discard two cards to remove the {FRONT_SLOTS[action.slot]} card in front of yourself"
        )

    def from_event(self, event: Event) -> Action | None:
        if event.type is not EventType.REMOVE_STARTED:
            return None
        return RemoveFront(event.data["slot"])
