"""The end of a decision: drawing and passing play on (RULES 3.7, 5.1, 6.7).

Restated (base game and Saboteur 2) by the batched engine's compiled kernels
(``saboteur_env/vector/kernels.py``), which ``tests/test_vector.py`` checks against this module
over whole games: a change here needs the same change there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .events import EventType
from .scoring import end_round

if TYPE_CHECKING:
    from .state import Game


def draw(game: Game, seat: int, count: int) -> None:
    """``seat`` draws up to ``count`` cards, as far as the pile allows (RULES 3.7, 6.7)."""
    for _ in range(min(count, len(game.deck))):
        k = int(game.deck[0])
        game.deck = game.deck[1:]
        game.hands[seat, k] += 1
        game.emit(EventType.CARD_DRAWN, seat, {"kind": k}, visible_to=seat)


def next_seat(game: Game) -> None:
    """Play passes to the next seat clockwise that holds cards; the round ends when no hand
    holds a card (RULES 5.1)."""
    hands, n = game.hands, game.n
    s = game.current
    for _ in range(n):  # the next seats in turn, the current seat last
        s = (s + 1) % n
        if np.count_nonzero(hands[s]):  # a third of a full reduction's cost
            game.current = s
            return
    end_round(game, gold_found=False, connector=None)


def end_turn(game: Game, seat: int, drawer: int | None = None) -> None:
    """A card was played or discarded: ``drawer`` (default ``seat``) draws one card if the
    pile has one (RULES 3.7), and play passes on."""
    draw(game, seat if drawer is None else drawer, 1)
    next_seat(game)
