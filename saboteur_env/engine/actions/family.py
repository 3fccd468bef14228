"""What every action family provides, and the per-configuration index layout (DESIGN 3, 8).

An *action family* is one kind of decision (placing a path card, a rockfall, a map, ...).  Its
module owns everything about it, side by side: the structural checks and the rule it enforces
(:meth:`ActionFamily.check`), its legal set as an array (:meth:`ActionFamily.legal`), its effect
(:meth:`ActionFamily.apply`), its block of the flat action space (:meth:`ActionFamily.shape`,
:meth:`ActionFamily.index`, :meth:`ActionFamily.action`), its text and its record form (the
action recovered from its event, :meth:`ActionFamily.from_event`).  ``check``, ``legal_actions``,
the codec's mask and ``apply`` all go through the family, so each rule is written once.

Legal arrays are laid out exactly as the family's block of the flat action space: cells of the
board window in row-major order, target seats *relative to the actor* (0 = self, 1 = next
clockwise, ...) padded to the ruleset's largest player count.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, TypeGuard

import numpy as np

from ..board import FIT
from ..cards import CARD_KINDS, VARIANTS, X_ACTION_KINDS
from ..config import GameConfig

if TYPE_CHECKING:
    from ..events import Event
    from ..state import Game
    from .types import Action


@dataclass(frozen=True)
class Layout:
    """The index layout of one configuration: the board window's cells, the placement rows
    (oriented path cards of the ruleset), the tool rows and the action-card rows.

    Attributes:
        window: (x_min, x_max, y_min, y_max), inclusive.
        width, height, n_cells: the window's size; cell ``(y - y_min) * width + (x - x_min)``.
        max_players: padding of every target-seat axis.
        n_kinds: hand card kinds of the ruleset.
        variants: variant ids of the placement rows, in order.
        variant_row: variant id -> placement row.
        rows_of_kind: card kind -> its placement rows.
        fit: bool ``(len(variants), 2**14)``: the rows of ``board.FIT``.
        tool_pairs: ``(kind, tool)`` of each tool row: broken-tool cards first, then every
            tool of each repair card (a double repair names the tool it repairs, RULES 3.3).
        tool_row: ``(kind, tool)`` -> tool row; ``tool_rows_of_kind``: kind -> its tool rows.
        x_kinds: card kinds of the Saboteur 2 action-card rows (``cards.X_EFFECTS`` order).
        x_row: kind -> action-card row.
    """

    window: tuple[int, int, int, int]
    width: int
    height: int
    n_cells: int
    max_players: int
    n_kinds: int
    variants: tuple[int, ...]
    variant_row: dict[int, int]
    rows_of_kind: dict[int, tuple[int, ...]]
    fit: np.ndarray
    tool_pairs: tuple[tuple[int, int], ...]
    tool_row: dict[tuple[int, int], int]
    tool_rows_of_kind: dict[int, tuple[int, ...]]
    x_kinds: tuple[int, ...]
    x_row: dict[int, int] = field(default_factory=dict)

    def cell(self, x: int, y: int) -> int:
        """Index of window cell (x, y).

        Raises:
            ValueError: (x, y) is outside the board window.
        """
        x0, x1, y0, y1 = self.window
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            raise ValueError(f"cell ({x}, {y}) is outside the board window {self.window}")
        return (y - y0) * self.width + (x - x0)

    def xy(self, cell: int) -> tuple[int, int]:
        """Game cell (x, y) of a window cell index."""
        return cell % self.width + self.window[0], cell // self.width + self.window[2]


@lru_cache(maxsize=64)
def layout_of(config: GameConfig) -> Layout:
    """The :class:`Layout` of ``config`` (cached: configs are immutable)."""
    rules = config.ruleset
    x0, x1, y0, y1 = config.window
    width, height = x1 - x0 + 1, y1 - y0 + 1
    variants = rules.variants
    kinds = CARD_KINDS[: rules.n_kinds]
    tool_pairs = [
        (k, kind.effect[1]) for k, kind in enumerate(kinds) if kind.effect[:1] == ("break",)
    ]
    tool_pairs += [
        (k, t)
        for k, kind in enumerate(kinds)
        if kind.effect[:1] == ("repair",)
        for t in kind.effect[1]
    ]
    x_kinds = X_ACTION_KINDS if rules.offers("xaction") else ()
    fit = FIT[np.array(variants)]
    fit.flags.writeable = False
    return Layout(
        window=config.window,
        width=width,
        height=height,
        n_cells=width * height,
        max_players=rules.max_players,
        n_kinds=rules.n_kinds,
        variants=variants,
        variant_row={v: i for i, v in enumerate(variants)},
        rows_of_kind={
            k: tuple(i for i, v in enumerate(variants) if VARIANTS[v].kind == k)
            for k in range(rules.n_kinds)
        },
        fit=fit,
        tool_pairs=tuple(tool_pairs),
        tool_row={p: i for i, p in enumerate(tool_pairs)},
        tool_rows_of_kind={
            k: tuple(i for i, (kk, _) in enumerate(tool_pairs) if kk == k)
            for k in range(rules.n_kinds)
        },
        x_kinds=x_kinds,
        x_row={k: i for i, k in enumerate(x_kinds)},
    )


def is_int(v: object) -> TypeGuard[int | np.integer[Any]]:
    """An int or numpy integer, not a bool."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def held_kinds(game: Game, seat: int) -> list[int]:
    """The card kinds ``seat`` holds, ascending (one entry per kind)."""
    return game.hands[seat].nonzero()[0].tolist()  # type: ignore[no-any-return]


@cache
def relative_seats(seat: int, n: int) -> np.ndarray:
    """int64 ``(n,)``: the absolute seat at each relative position from ``seat``."""
    rel = (seat + np.arange(n)) % n
    rel.flags.writeable = False  # cached: shared by every caller
    return rel


class ActionFamily:
    """One kind of decision (see the module docstring).  Subclasses are stateless singletons.

    Attributes:
        name: the family's name, also its block name in the flat action space.
        types: the action classes the family owns.
        face_down: the other players see only that the family's action was taken, not which
            one (a discard, RULES 3.6); ``Codec.public_actions``.
    """

    name: ClassVar[str]
    types: ClassVar[tuple[type, ...]]
    face_down: ClassVar[bool] = False

    # --- the block of the flat action space ----------------------------------------------
    def shape(self, lay: Layout) -> tuple[int, ...]:
        """Shape of the family's legal array (its block is that array, raveled)."""
        raise NotImplementedError

    def index(self, lay: Layout, action: Action, actor: int, n: int) -> int:
        """Index of ``action`` taken by seat ``actor`` within the family's raveled block.

        Raises:
            ValueError: the action cannot be expressed (a cell outside the window, a rotated
                symmetric card, an unknown kind, a card of another family).
        """
        raise NotImplementedError

    def action(self, lay: Layout, i: int, actor: int, n: int) -> Action:
        """The action at index ``i`` of the block, for seat ``actor`` of ``n`` players.

        Raises:
            ValueError: the index names a target seat that is not in play.
        """
        raise NotImplementedError

    # --- rules -----------------------------------------------------------------------------
    def legal(
        self, game: Game, seat: int, held: list[int] | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """bool ``shape(layout)``: the family's legal actions for ``seat`` in this state (the
        caller has checked that ``seat`` is to act and that the phase offers the family).
        ``held``: the kinds the seat holds (:func:`held_kinds`), when the caller has them;
        ``out``: an array of that shape, all zeros, to write into (e.g. the block of a mask)."""
        raise NotImplementedError

    def legal_reference(self, game: Game, seat: int) -> np.ndarray:
        """:meth:`legal` written plainly, where :meth:`legal` is tuned for speed (the
        specification it is tested against, ``tests/test_fast_paths.py``); the same bool
        array of ``shape(layout)``.  Families whose :meth:`legal` is already plain inherit it."""
        return self.legal(game, seat)

    def blank(self, lay: Layout, out: np.ndarray | None) -> np.ndarray:
        """``out``, or a new all-``False`` legal array."""
        return np.zeros(self.shape(lay), dtype=bool) if out is None else out

    def check(self, game: Game, seat: int, action: Action) -> str | None:
        """Why ``action`` is illegal for ``seat`` (naming the RULES section), or ``None``.

        The structural checks come first (:meth:`form`); legality itself is membership in
        :meth:`legal`, and :meth:`explain` only words a refusal.
        """
        why = self.form(game, seat, action)
        if why is not None:
            return why
        if self.allows(game, seat, action):
            return None
        return self.explain(game, seat, action)

    def allows(self, game: Game, seat: int, action: Action) -> bool:
        """Whether a well-formed ``action`` is in :meth:`legal` (families may look up the one
        entry without building the whole array)."""
        i = self.index(game.layout, action, seat, game.n)
        return bool(self.legal(game, seat).ravel()[i])

    def form(self, game: Game, seat: int, action: Action) -> str | None:
        """Structural problems of ``action`` (wrong types, unknown kinds, cards not in hand,
        seats not in play) that leave it without an index; ``None`` when it has one."""
        return None

    def explain(self, game: Game, seat: int, action: Action) -> str:
        """Words for a well-formed action that :meth:`legal` refuses."""
        return f"{action!r} is not legal here"

    def apply(self, game: Game, seat: int, action: Action) -> None:
        """Carry out a legal ``action`` of ``seat``: change the state, emit its events, and
        end the turn or the round as the rules say.  Not checked here."""
        raise NotImplementedError

    # --- text and records --------------------------------------------------------------
    def describe(self, action: Action) -> str:
        """A short English description (absolute seats)."""
        raise NotImplementedError

    def from_event(self, event: Event) -> Action | None:
        """The action a decision event records (the record inverse), or ``None``."""
        return None


def hand_form(game: Game, seat: int, kind: object) -> str | None:
    """``kind`` must be a hand card kind that ``seat`` holds."""
    if not is_int(kind):
        return f"card kind {kind!r} is not an int (a card kind index 0..{game.rules.n_kinds - 1})"
    if not 0 <= int(kind) < game.rules.n_kinds:
        return f"seat {seat} holds no card of kind {kind!r}"
    if game.hands[seat, int(kind)] == 0:
        return f"seat {seat} holds no {CARD_KINDS[int(kind)].id} card"
    return None


def seat_form(game: Game, target: object) -> str | None:
    """``target`` must be a seat in play."""
    if not is_int(target) or not 0 <= int(target) < game.n:
        return f"target seat {target!r} is not in play"
    return None
