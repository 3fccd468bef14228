"""History features of the current round, computed from the public events (DESIGN 4, 8).

The observation's ``history``, ``tools``, ``recent`` and ``xhistory`` views and the
``last_placed`` board channel are what every seat saw happen this round; they are derived here
from the game's events, so the engine keeps no state for the encoder.  One handler per event
type (:data:`HANDLERS`) says what the event adds.  :class:`HistoryCache` keeps the features of
recently encoded games up to date incrementally (the engine only appends events).

Restated (base game and Saboteur 2) by the batched engine's compiled kernels
(``saboteur_env/vector/kernels.py``), which ``tests/test_vector.py`` checks against this module
over whole games: a change here needs the same change there.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from itertools import count

import numpy as np

from ..engine.cards import CARD_KINDS, GOAL_CELLS, X_EFFECTS
from ..engine.events import Event, EventType
from .spec import HistoryColumn, RecentType

# plain ints of the named columns and types (these run at every event)
_H = {m.name: int(m) for m in HistoryColumn}
_T = {m.name: int(m) for m in RecentType}
_THROUGH, _DEAD, _ROCKFALLS, _MAPS, _DISCARDS = (
    _H[k] for k in ("PLACED_THROUGH", "PLACED_DEAD_END", "ROCKFALLS", "MAPS", "DISCARDS")
)
_PLACE, _BREAK, _REPAIR, _ROCKFALL, _MAP, _DISCARD, _REMOVE, _STEAL = (
    _T[k] for k in ("PLACE", "BREAK", "REPAIR", "ROCKFALL", "MAP", "DISCARD", "REMOVE", "STEAL")
)

#: rows kept in the ``recent`` view
N_RECENT = 8
_X_INDEX = {e: i for i, e in enumerate(X_EFFECTS)}
#: stamps of :attr:`RoundHistory.stamp`: unique over the process
_STAMPS = count()


class RoundHistory:
    """The public history of one round.

    Attributes:
        actor_counts: int16 ``(n, len(HistoryColumn))``: per actor, this round's through cards
            placed, dead ends placed, rockfalls, maps and discards.
        tool_counts: int16 ``(n, n, 2)``: [actor, target, 0] tools broken, [.., 1] repaired.
        xcounts: int16 ``(n, n, len(X_EFFECTS))``: Saboteur 2 action cards played.
        recent: the last :data:`N_RECENT` public actions, oldest first, as
            ``(actor, RecentType, target, x, y, tool, dead_end)`` (-1: no target / tool).
        last_placed: cell of the most recent path card placed this round that is still in the
            maze, or ``None``.
        stamp: an int, new (unique in the process) whenever ``recent`` changes: a cache key
            for what the encoder derives from it.
        round_stamp: the ``stamp`` the round's history started with; ``added``: the actions
            added to ``recent`` since then (the last ``added`` minus an earlier ``added`` of the
            same ``round_stamp`` are the rows that are new).
    """

    __slots__ = (
        "actor_counts",
        "tool_counts",
        "xcounts",
        "recent",
        "last_placed",
        "stamp",
        "round_stamp",
        "added",
    )

    def __init__(self, n: int) -> None:
        self.actor_counts = np.zeros((n, len(HistoryColumn)), dtype=np.int16)
        self.tool_counts = np.zeros((n, n, 2), dtype=np.int16)
        self.xcounts = np.zeros((n, n, len(X_EFFECTS)), dtype=np.int16)
        self.recent: list[tuple[int, int, int, int, int, int, int]] = []
        self.last_placed: tuple[int, int] | None = None
        self.stamp = self.round_stamp = next(_STAMPS)
        self.added = 0

    def add(
        self,
        actor: int,
        typ: int,
        target: int = -1,
        x: int = 0,
        y: int = 0,
        tool: int = -1,
        dead_end: int = 0,
    ) -> None:
        self.recent.append((actor, typ, target, x, y, tool, dead_end))
        if len(self.recent) > N_RECENT:
            del self.recent[0]
        self.stamp = next(_STAMPS)
        self.added += 1

    def update(self, events: Sequence[Event], start: int = 0) -> None:
        """Take in ``events[start:]`` (a new round's start clears everything)."""
        for i in range(start, len(events)):
            e = events[i]
            if e.visible_to is None:
                h = HANDLERS.get(e.type)
                if h is not None:
                    h(self, e)


def _round_start(h: RoundHistory, e: Event) -> None:
    h.__init__(len(h.actor_counts))  # type: ignore[misc]


def _path_placed(h: RoundHistory, e: Event) -> None:
    d, s = e.data, e.seat
    dead = int(CARD_KINDS[d["kind"]].is_dead_end)
    h.actor_counts[s, _DEAD if dead else _THROUGH] += 1
    h.add(s, _PLACE, -1, d["x"], d["y"], -1, dead)
    h.last_placed = (d["x"], d["y"])


def _tool_broken(h: RoundHistory, e: Event) -> None:
    d = e.data
    h.tool_counts[e.seat, d["target"], 0] += 1
    h.add(e.seat, _BREAK, d["target"], 0, 0, d["tool"])


def _tool_repaired(h: RoundHistory, e: Event) -> None:
    d = e.data
    h.tool_counts[e.seat, d["target"], 1] += 1
    h.add(e.seat, _REPAIR, d["target"], 0, 0, d["tool"])


def _rockfall(h: RoundHistory, e: Event) -> None:
    d = e.data
    h.actor_counts[e.seat, _ROCKFALLS] += 1
    h.add(e.seat, _ROCKFALL, -1, d["x"], d["y"])
    if h.last_placed == (d["x"], d["y"]):
        h.last_placed = None


def _map_played(h: RoundHistory, e: Event) -> None:
    h.actor_counts[e.seat, _MAPS] += 1
    h.add(e.seat, _MAP, -1, *GOAL_CELLS[e.data["goal"]])


def _discarded(h: RoundHistory, e: Event) -> None:
    h.actor_counts[e.seat, _DISCARDS] += 1
    h.add(e.seat, _DISCARD)


def _action_played(h: RoundHistory, e: Event) -> None:
    d = e.data
    ei = _X_INDEX[d["card"]]
    h.xcounts[e.seat, d["target"], ei] += 1
    h.add(e.seat, _T[d["card"].upper()], d["target"])


def _front_removed(h: RoundHistory, e: Event) -> None:
    h.add(e.seat, _REMOVE, e.seat, tool=e.data["slot"])


def _theft(h: RoundHistory, e: Event) -> None:
    h.add(e.seat, _STEAL, e.data["target"])


#: what each public event adds to the round's history (other events add nothing)
HANDLERS: dict[EventType, Callable[[RoundHistory, Event], None]] = {
    EventType.ROUND_START: _round_start,
    EventType.PATH_PLACED: _path_placed,
    EventType.TOOL_BROKEN: _tool_broken,
    EventType.TOOL_REPAIRED: _tool_repaired,
    EventType.ROCKFALL: _rockfall,
    EventType.MAP_PLAYED: _map_played,
    EventType.DISCARDED: _discarded,
    EventType.ACTION_PLAYED: _action_played,
    EventType.FRONT_REMOVED: _front_removed,
    EventType.THEFT: _theft,
}


def round_history(events: Sequence[Event], n: int) -> RoundHistory:
    """The history of the last round in ``events`` (from its ``round_start`` on)."""
    start = 0
    for i in range(len(events) - 1, -1, -1):
        if events[i].type is EventType.ROUND_START:
            start = i
            break
    h = RoundHistory(n)
    h.update(events, start)
    return h


class HistoryCache:
    """:class:`RoundHistory` of the games encoded lately, kept up to date by taking in only
    the events added since the last call (keyed by the game's event list, which the engine
    only appends to; a copied game has its own list and starts afresh)."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._cache: OrderedDict[int, tuple[list[Event], RoundHistory, int]] = OrderedDict()
        self._last: tuple[list[Event], RoundHistory, int] | None = None

    def get(self, events: list[Event], n: int) -> RoundHistory:
        """The history of the last round in ``events``, brought up to date."""
        last = self._last
        if last is not None and last[0] is events and last[2] <= len(events):
            h = last[1]
            if last[2] < len(events):
                h.update(events, last[2])
                self._last = (events, h, len(events))
            return h
        if last is not None:  # keep the previous game: envs may interleave several games
            self._cache[id(last[0])] = last
            if len(self._cache) > self.size:
                self._cache.popitem(last=False)
        hit = self._cache.pop(id(events), None)
        if hit is not None and hit[0] is events and hit[2] <= len(events):
            h = hit[1]
            h.update(events, hit[2])
        else:
            h = round_history(events, n)
        self._last = (events, h, len(events))
        return h

    def __getstate__(self) -> dict[str, int]:
        return {"size": self.size}  # a cache: not part of what is pickled

    def __setstate__(self, state: dict[str, int]) -> None:
        self.__init__(state["size"])  # type: ignore[misc]
