"""The Saboteur 2 action cards that name a player (RULES 6.5, 7.20, 7.21).

Each card's effect is its row of ``cards.X_EFFECTS`` (what it does, the slot in front it puts
or clears, who may be the target): data, not code per card.


Restated by the batched engine's compiled kernels (``saboteur_env/vector/kernels.py``), which
``tests/test_vector.py`` checks against this module over whole games: a change here needs the
same change there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..cards import CARD_KINDS, FRONT_SLOTS, FRONT_THEFT, X_EFFECTS
from ..events import EventType
from ..turn import end_turn
from .family import ActionFamily, Layout, hand_form, held_kinds, relative_seats, seat_form
from .types import PlayCard

if TYPE_CHECKING:
    from ..events import Event
    from ..state import Game
    from .types import Action

_EFFECT_INDEX = {e: i for i, e in enumerate(X_EFFECTS)}
_WHO = {"self": "yourself", "any": "any player", "other": "another player"}


def targets(game: Game, seat: int, kind: int) -> npt.NDArray[np.bool_]:
    """bool ``(n,)`` absolute seats on which ``seat`` may play action card ``kind``."""
    verb, slot, who = X_EFFECTS[CARD_KINDS[kind].id]
    n = game.n
    ok: npt.NDArray[np.bool_]
    if who == "self":
        ok = np.arange(n) == seat
    elif who == "other":
        ok = np.arange(n) != seat
    else:
        ok = np.ones(n, dtype=bool)
    if verb == "put":
        ok &= ~game.xfront[:, slot - 3]
    elif verb == "clear":
        ok &= game.xfront[:, slot - 3]
    elif verb == "swap_hats" and not game.set_aside:
        ok[:] = False  # RULES 7.21: no dwarf card left to draw
    return ok


class XActionFamily(ActionFamily):
    """Play an action card on a player (block: ``cards.X_EFFECTS`` row x relative seat)."""

    name = "xaction"
    types = (PlayCard,)

    def shape(self, lay: Layout) -> tuple[int, ...]:
        return (len(lay.x_kinds), lay.max_players)

    def index(self, lay: Layout, action: Action, actor: int, n: int) -> int:
        assert isinstance(action, PlayCard)
        if action.kind not in lay.x_row:
            raise ValueError(f"cannot encode {action!r}")
        return lay.x_row[action.kind] * lay.max_players + (action.target - actor) % n

    def action(self, lay: Layout, i: int, actor: int, n: int) -> Action:
        row, rel = divmod(i, lay.max_players)
        if rel >= n:
            raise ValueError(f"targets relative seat {rel}, but only {n} players are in play")
        return PlayCard(lay.x_kinds[row], (actor + rel) % n)

    def legal(
        self, game: Game, seat: int, held: list[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        lay = game.layout
        out = self.blank(lay, out)
        n = game.n
        rel = relative_seats(seat, n)
        for k in held_kinds(game, seat) if held is None else held:
            if k in lay.x_row:
                out[lay.x_row[k], :n] = targets(game, seat, k)[rel]
        return out

    def form(self, game: Game, seat: int, action: Action) -> str | None:
        assert isinstance(action, PlayCard)
        why = hand_form(game, seat, action.kind)
        if why is not None:
            return why
        if CARD_KINDS[action.kind].id not in X_EFFECTS:
            return f"{CARD_KINDS[action.kind].id} is not a Saboteur 2 action card (RULES 6.5)"
        return seat_form(game, action.target)

    def explain(self, game: Game, seat: int, action: Action) -> str:
        assert isinstance(action, PlayCard)
        cid = CARD_KINDS[action.kind].id
        verb, slot, who = X_EFFECTS[cid]
        extra = (
            f", with no {FRONT_SLOTS[slot]} card already in front"
            if verb == "put"
            else f", with a {FRONT_SLOTS[slot]} card in front"
            if verb == "clear"
            else ", and a dwarf card must be left to draw"
            if verb == "swap_hats"
            else ""
        )
        return (
            f"{cid} cannot target seat {action.target}: target must be {_WHO[who]}"
            + extra
            + " (RULES 6.5, 7.21)"
        )

    def apply(self, game: Game, seat: int, action: Action) -> None:
        """The card's effect (``cards.X_EFFECTS``), then the player draws one card; after
        Swap your hand the target draws instead (RULES 7.20)."""

        assert isinstance(action, PlayCard)
        k, t = action.kind, action.target
        cid = CARD_KINDS[k].id
        verb, slot, _who = X_EFFECTS[cid]
        game.hands[seat, k] -= 1
        game.emit(EventType.ACTION_PLAYED, seat, {"kind": k, "card": cid, "target": t})
        drawer = seat
        if verb == "put":
            game.xfront[t, slot - 3] = True
            if slot == FRONT_THEFT:
                game.theft_turn[t] = game.decisions
        elif verb == "clear":
            game.discards[game.front_kind(t, slot)] += 1
            game.discards[k] += 1
            game.xfront[t, slot - 3] = False
            if slot == FRONT_THEFT:
                game.theft_turn[t] = -1
        else:
            game.discards[k] += 1
            if verb == "swap_hand":
                game.hands[[seat, t]] = game.hands[[t, seat]]
                drawer = t
            elif verb == "inspection":  # private to the inspector, stays as seen
                game.inspected[seat, t] = game.roles[t]
                game.inspected_swaps[seat, t] = game.hat_swaps[t]
                game.emit(
                    EventType.INSPECTION_RESULT,
                    seat,
                    {"target": t, "role": int(game.roles[t])},
                    visible_to=seat,
                )
            elif verb == "swap_hats":  # RULES 7.21: the old card is out for the round
                game.hats_discarded.append(int(game.roles[t]))
                game.hats_discarded_from.append(t)
                game.hat_swaps[t] += 1
                game.roles[t] = game.set_aside.pop(0)
                game.emit(
                    EventType.ROLE_DEALT,
                    t,
                    {"role": int(game.roles[t]), "swapped": True},
                    visible_to=t,
                )
        end_turn(game, seat, drawer=drawer)

    def describe(self, action: Action) -> str:
        assert isinstance(action, PlayCard)
        return f"play {CARD_KINDS[action.kind].id} on seat {action.target}"

    def from_event(self, event: Event) -> Action | None:
        if event.type is not EventType.ACTION_PLAYED:
            return None
        return PlayCard(event.data["kind"], event.data["target"])
