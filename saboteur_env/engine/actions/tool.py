"""Broken-tool and repair cards (RULES 3.2, 3.3; ``self_sabotage``, RULES 10).

One block: a row per ``(card kind, tool)`` (``Layout.tool_pairs``) x relative target seat.

Restated (base game and Saboteur 2) by the batched engine's compiled kernels
(``saboteur_env/vector/kernels.py``), which ``tests/test_vector.py`` checks against this module
over whole games: a change here needs the same change there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..cards import CARD_KINDS, TOOLS
from ..events import EventType
from ..turn import end_turn
from .family import (
    ActionFamily,
    Layout,
    hand_form,
    held_kinds,
    is_int,
    relative_seats,
    seat_form,
)
from .types import BreakTool, Repair

if TYPE_CHECKING:
    from ..events import Event
    from ..state import Game
    from .types import Action


def _tool_of(action: BreakTool | Repair) -> int:
    return action.tool if isinstance(action, Repair) else CARD_KINDS[action.kind].effect[1]


class ToolFamily(ActionFamily):
    """Break a tool of a player, or repair one (block: tool row x relative seat)."""

    name = "tool"
    types = (BreakTool, Repair)

    def shape(self, lay: Layout) -> tuple[int, ...]:
        return (len(lay.tool_pairs), lay.max_players)

    def index(self, lay: Layout, action: Action, actor: int, n: int) -> int:
        assert isinstance(action, (BreakTool, Repair))
        row = lay.tool_row.get((action.kind, _tool_of(action)))
        if row is None:
            raise ValueError(f"{action!r} has no index")
        return row * lay.max_players + (action.target - actor) % n

    def action(self, lay: Layout, i: int, actor: int, n: int) -> Action:
        row, rel = divmod(i, lay.max_players)
        if rel >= n:
            raise ValueError(f"targets relative seat {rel}, but only {n} players are in play")
        kind, tool = lay.tool_pairs[row]
        target = (actor + rel) % n
        if CARD_KINDS[kind].effect[0] == "break":
            return BreakTool(kind, target)
        return Repair(kind, tool, target)

    def legal(
        self, game: Game, seat: int, held: list[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """A broken tool goes on a player whose tool of that kind is whole (not on oneself
        with ``self_sabotage=False``); a repair on a player with that tool broken."""
        lay = game.layout
        out = self.blank(lay, out)
        n = game.n
        rel = relative_seats(seat, n)
        front = None
        for k in held_kinds(game, seat) if held is None else held:
            for row in lay.tool_rows_of_kind[k]:
                if front is None:
                    front = game.broken[rel].T  # (3, n): tool x relative seat
                broken = front[lay.tool_pairs[row][1]]
                if CARD_KINDS[k].effect[0] == "break":
                    out[row, :n] = ~broken
                    if not game.config.self_sabotage:
                        out[row, 0] = False
                else:
                    out[row, :n] = broken
        return out

    def form(self, game: Game, seat: int, action: Action) -> str | None:
        assert isinstance(action, (BreakTool, Repair))
        why = hand_form(game, seat, action.kind)
        if why is not None:
            return why
        info = CARD_KINDS[action.kind]
        verb = "break" if isinstance(action, BreakTool) else "repair"
        if info.effect[:1] != (verb,):
            what = "broken-tool" if verb == "break" else "repair"
            return f"{info.id} is not a {what} card (RULES {'3.2' if verb == 'break' else '3.3'})"
        why = seat_form(game, action.target)
        if why is not None:
            return why
        if isinstance(action, Repair):
            if not is_int(action.tool) or action.tool not in (0, 1, 2):
                return f"tool={action.tool!r}: 0 (pick), 1 (lantern) or 2 (cart) (RULES 1.3)"
            if action.tool not in info.effect[1]:
                return f"{info.id} cannot repair a {TOOLS[action.tool]} (RULES 3.3)"
        return None

    def explain(self, game: Game, seat: int, action: Action) -> str:
        assert isinstance(action, (BreakTool, Repair))
        t, tool = action.target, _tool_of(action)
        if isinstance(action, Repair):
            return f"seat {t} has no broken {TOOLS[tool]} to repair (RULES 3.3)"
        if t == seat and not game.config.self_sabotage:
            return "self_sabotage=False: a broken tool may not be played on oneself (RULES 3.2)"
        return f"seat {t} already has a broken {TOOLS[tool]} (RULES 3.2)"

    def apply(self, game: Game, seat: int, action: Action) -> None:
        """A broken tool lies in front of the target; a repair discards itself and the broken
        tool it mends (RULES 3.3)."""

        assert isinstance(action, (BreakTool, Repair))
        k, t = action.kind, action.target
        game.hands[seat, k] -= 1
        if isinstance(action, BreakTool):
            tool = CARD_KINDS[k].effect[1]
            game.broken[t, tool] = True
            game.broken_kind[t, tool] = k
            game.emit(EventType.TOOL_BROKEN, seat, {"kind": k, "target": t, "tool": tool})
        else:
            tool = action.tool
            game.discards[k] += 1
            game.discards[game.broken_kind[t, tool]] += 1
            game.broken[t, tool] = False
            game.broken_kind[t, tool] = -1
            game.emit(EventType.TOOL_REPAIRED, seat, {"kind": k, "target": t, "tool": tool})
        end_turn(game, seat)

    def describe(self, action: Action) -> str:
        if isinstance(action, BreakTool):
            return f"break seat {action.target}'s {TOOLS[CARD_KINDS[action.kind].effect[1]]}"
        assert isinstance(action, Repair)
        return (
            f"repair seat {action.target}'s {TOOLS[action.tool]} with {CARD_KINDS[action.kind].id}"
        )

    def from_event(self, event: Event) -> Action | None:
        d = event.data
        if event.type is EventType.TOOL_BROKEN:
            return BreakTool(d["kind"], d["target"])
        if event.type is EventType.TOOL_REPAIRED:
            return Repair(d["kind"], d["tool"], d["target"])
        return None
