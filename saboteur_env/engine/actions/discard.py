"""Discarding: a pass (RULES 3.6; Saboteur 2: 1-3 cards, RULES 6.7 option 4) and the discards
that pay for removing a card in front of oneself (RULES 6.7 option 3).

A discard is face down: public only that a card was discarded, private which (RULES 3.6).  In a
pass of several cards each card is one decision of the same seat (:attr:`Phase.PASS`), ended by
the ``done`` family, by the last card the ruleset allows (``Ruleset.pass_cards``) or by an empty
hand; then the seat draws as many cards (RULES 3.7).

Restated (base game and Saboteur 2) by the batched engine's compiled kernels
(``saboteur_env/vector/kernels.py``), which ``tests/test_vector.py`` checks against this module
over whole games: a change here needs the same change there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..cards import CARD_KINDS
from ..events import EventType
from ..phases import Phase
from ..turn import draw, end_turn, next_seat
from .family import ActionFamily, Layout, hand_form
from .remove import finish_remove
from .types import Discard, EndPass

if TYPE_CHECKING:
    from ..events import Event
    from ..state import Game
    from .types import Action


def discard_face_down(game: Game, seat: int, kind: int) -> None:
    """One card from ``seat``'s hand to the discard pile, face down (RULES 3.6)."""
    game.hands[seat, kind] -= 1
    game.discards[kind] += 1
    game.secret_discards[seat, kind] += 1
    game.emit(EventType.DISCARDED, seat, {})
    game.emit(EventType.DISCARDED_CARD, seat, {"kind": kind}, visible_to=seat)


def finish_pass(game: Game, seat: int, explicit: bool = False) -> None:
    """End a pass of several cards: draw as many as were discarded (RULES 6.7 option 4).
    ``explicit``: ended by a ``done`` decision."""

    k = game.phase_count
    game.phase, game.phase_count = Phase.TURN, 0
    game.emit(EventType.PASS_DONE, seat, {"discarded": k, "done": explicit})
    draw(game, seat, k)
    next_seat(game)


class DiscardFamily(ActionFamily):
    """Discard one card of a kind (block: card kind)."""

    name = "discard"
    types = (Discard,)
    face_down = True  # which card is private (RULES 3.6)

    def shape(self, lay: Layout) -> tuple[int, ...]:
        return (lay.n_kinds,)

    def index(self, lay: Layout, action: Action, actor: int, n: int) -> int:
        assert isinstance(action, Discard)
        if not 0 <= action.kind < lay.n_kinds:
            raise ValueError(f"{action!r}: unknown kind")
        return int(action.kind)

    def action(self, lay: Layout, i: int, actor: int, n: int) -> Action:
        return Discard(i)

    def legal(
        self, game: Game, seat: int, held: list[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Any card in hand (RULES 3.6)."""
        out = self.blank(game.layout, out)
        out[:] = game.hands[seat] > 0
        return out

    def form(self, game: Game, seat: int, action: Action) -> str | None:
        assert isinstance(action, Discard)
        return hand_form(game, seat, action.kind)

    def apply(self, game: Game, seat: int, action: Action) -> None:
        """On a turn: a pass of one card ends the turn; where a pass may hold more cards it
        continues in :attr:`Phase.PASS`.  In a pass or a removal: the next card."""

        assert isinstance(action, Discard)
        discard_face_down(game, seat, action.kind)
        if game.phase is Phase.REMOVE:
            game.phase_count += 1
            if game.phase_count == game.rules.remove_discards:
                finish_remove(game, seat)
            return
        if game.phase is Phase.TURN:
            if game.rules.pass_cards == 1:  # RULES 3.6: a pass is one card
                end_turn(game, seat)
                return
            game.phase, game.phase_count = Phase.PASS, 0
        game.phase_count += 1
        if game.phase_count == game.rules.pass_cards or not game.hands[seat].any():
            finish_pass(game, seat)

    def describe(self, action: Action) -> str:
        assert isinstance(action, Discard)
        return f"discard {CARD_KINDS[action.kind].id}"

    def from_event(self, event: Event) -> Action | None:
        if event.type is not EventType.DISCARDED_CARD:
            return None
        return Discard(event.data["kind"])


class DoneFamily(ActionFamily):
    """End a pass after fewer cards than the most allowed (RULES 6.7 option 4; block: 1)."""

    name = "done"
    types = (EndPass,)

    def shape(self, lay: Layout) -> tuple[int, ...]:
        return (1,)

    def index(self, lay: Layout, action: Action, actor: int, n: int) -> int:
        return 0

    def action(self, lay: Layout, i: int, actor: int, n: int) -> Action:
        return EndPass()

    def legal(
        self, game: Game, seat: int, held: list[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        out = self.blank(game.layout, out)
        out[0] = True
        return out

    def apply(self, game: Game, seat: int, action: Action) -> None:
        finish_pass(game, seat, explicit=True)

    def describe(self, action: Action) -> str:
        return "end the pass"

    def from_event(self, event: Event) -> Action | None:
        if event.type is EventType.PASS_DONE and event.data.get("done"):
            return EndPass()
        return None
