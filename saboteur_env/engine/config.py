"""GameConfig: every option of RULES 10, immutable and validated."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any, NoReturn, TypeGuard, cast

from .ruleset import RULESETS, Ruleset, ruleset_of

#: The largest board window, in cells a side (width and height), DESIGN 3: it bounds the action
#: and observation sizes and keeps every window coordinate within the ``recent`` view's +-64.
MAX_WINDOW_SIDE = 60


class ConfigError(ValueError):
    """An invalid :class:`GameConfig` option; the message names the option and the valid values."""


def _is_window(w: tuple[object, ...]) -> TypeGuard[tuple[int, int, int, int]]:
    """Four ints: the shape of a board window (its extent is checked separately)."""
    return len(w) == 4 and all(isinstance(v, int) for v in w)


@dataclass(frozen=True)
class GameConfig:
    """All options of a game (RULES 10).  Immutable; validated on construction.

    Attributes:
        num_players: base game 3-10, expansion 2-12 (RULES 2.2, 6.1).
        expansion: Saboteur 2 rules on top of the base game (RULES 6).
        num_rounds: rounds per game, >= 1 (RULES 5.5).
        role_table: ``"published"`` (one dwarf card set aside) or ``"seed"`` (RULES 2.2, 10).
        self_sabotage: a broken tool may be played on oneself (RULES 3.2).
        broken_tool_forfeit: diggers with a broken tool at round end get no gold (RULES 5.2).
        both_doors_rule: ``"seed"`` or ``"bga"`` (RULES 6.9).
        remove_cards_each_round: expansion: remove 10 cards every round (RULES 6.6).
        first_player: seat that starts round 1, or ``"random"`` (RULES 2.4).
        board_window: (x_min, x_max, y_min, y_max) of the addressable cells, inclusive; must
            contain the start (0, 0) and the goals (8, -2..2) and span at most
            :data:`MAX_WINDOW_SIDE` cells a side (DESIGN 3).  ``None`` (default): the ruleset's
            ``default_window`` (21 x 17 base, 27 x 23 Saboteur 2).
        reward: ``"gold"`` (gold received each round, net of Saboteur 2's thefts: below 0
            for a seat robbed of more than it was paid) or ``"win"`` (+1 / -1 per round:
            ``scoring.seat_won``) (DESIGN 5).
        max_cycles: PettingZoo's bound on an episode (DESIGN 5), counted over the whole
            table: once the game's decisions reach ``max_cycles * num_players``
            (:attr:`max_decisions`) every agent is truncated in that step.  In the base game
            each agent has then acted ``max_cycles`` times at most; in Saboteur 2 a pass or a
            removal is several decisions of one agent (RULES 6.7), so one agent may have
            acted more often (PettingZoo's ``max_cycles_test`` holds for the base game only).
            ``None`` (default): no bound; otherwise a positive int, not a bool.

    Raises:
        ConfigError: on any invalid value, naming the option.
    """

    num_players: int = 5
    expansion: bool = False
    num_rounds: int = 3
    role_table: str = "published"
    self_sabotage: bool = True
    broken_tool_forfeit: bool = False
    both_doors_rule: str = "seed"
    remove_cards_each_round: bool = True
    first_player: int | str = 0
    board_window: tuple[int, int, int, int] | None = None
    reward: str = "gold"
    max_cycles: int | None = None

    def __post_init__(self) -> None:
        def bad(name: str, why: str) -> NoReturn:
            raise ConfigError(f"GameConfig.{name}={getattr(self, name)!r}: {why}")

        for name in (
            "expansion",
            "self_sabotage",
            "broken_tool_forfeit",
            "remove_cards_each_round",
        ):
            if not isinstance(getattr(self, name), bool):
                bad(name, "must be a bool")
        if not isinstance(self.num_players, int) or isinstance(self.num_players, bool):
            bad("num_players", "must be an int")
        rules = ruleset_of(self.expansion)
        lo, hi = rules.player_range
        if not lo <= self.num_players <= hi:
            bad(
                "num_players",
                f"{rules.title} (expansion={self.expansion}) is for {lo} to {hi} "
                "players (RULES 2.2, 6.1)",
            )
        if (
            not isinstance(self.num_rounds, int)
            or isinstance(self.num_rounds, bool)
            or self.num_rounds < 1
        ):
            bad("num_rounds", "must be a positive int (RULES 5.5)")
        if self.role_table not in ("published", "seed"):
            bad("role_table", "must be 'published' or 'seed' (RULES 2.2)")
        if self.both_doors_rule not in ("seed", "bga"):
            bad("both_doors_rule", "must be 'seed' or 'bga' (RULES 6.9)")
        for name in _VARIANT_OPTIONS - rules.variant_options:
            if getattr(self, name) != _DEFAULTS[name]:
                bad(name, f"is not an option of {rules.title} (RULES 10): it would change nothing")
        if self.first_player != "random":
            fp = self.first_player
            if not isinstance(fp, int) or isinstance(fp, bool) or not 0 <= fp < self.num_players:
                bad("first_player", f"must be 'random' or a seat 0..{self.num_players - 1}")
        if self.reward not in ("gold", "win"):
            bad("reward", "must be 'gold' or 'win'")
        if self.max_cycles is not None and (
            not isinstance(self.max_cycles, int)
            or isinstance(self.max_cycles, bool)
            or self.max_cycles < 1
        ):
            bad(
                "max_cycles",
                "must be None or a positive int (the episode bound: in env() and raw_env "
                "max_cycles x num_players decisions, in parallel_env max_cycles steps)",
            )
        if self.board_window is None:
            object.__setattr__(self, "board_window", rules.default_window)
        try:
            # any value may arrive here; a non-iterable one raises TypeError
            w: tuple[object, ...] = tuple(cast(Iterable[object], self.board_window))
        except TypeError:
            w = ()
        if not _is_window(w):
            bad("board_window", "must be four ints (x_min, x_max, y_min, y_max)")
        x0, x1, y0, y1 = w
        if not (x0 <= 0 and x1 >= 8 and y0 <= -2 and y1 >= 2):
            bad("board_window", "must contain the start (0, 0) and the goals (8, -2..2)")
        if x1 - x0 + 1 > MAX_WINDOW_SIDE or y1 - y0 + 1 > MAX_WINDOW_SIDE:
            bad(
                "board_window",
                f"spans {x1 - x0 + 1} x {y1 - y0 + 1} cells; at most {MAX_WINDOW_SIDE} a side",
            )
        object.__setattr__(self, "board_window", w)

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> GameConfig:
        """Build from keyword options; an unknown option raises :class:`ConfigError`."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - names)
        if unknown:
            raise ConfigError(
                f"unknown GameConfig option(s) {unknown}; valid options: {sorted(names)}"
            )
        return cls(**kwargs)

    def options(self) -> dict[str, Any]:
        """Every option as JSON-ready keyword values (``board_window`` a list): what
        :meth:`from_kwargs`, ``raw_env(**...)`` and ``VectorGame(n, **...)`` take back, and
        what records and checkpoints store."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["board_window"] = list(self.window)
        return d

    @property
    def window(self) -> tuple[int, int, int, int]:
        """The board window (x_min, x_max, y_min, y_max), inclusive, as normalised on
        construction: :attr:`board_window` typed without its ``None`` input form."""
        w = self.board_window
        assert w is not None, "GameConfig.__post_init__ normalises board_window"
        return w

    @property
    def max_decisions(self) -> int | None:
        """The decisions after which every agent is truncated: ``max_cycles * num_players``
        (``None``: no bound).  See :attr:`max_cycles`."""
        return None if self.max_cycles is None else self.max_cycles * self.num_players

    @property
    def ruleset(self) -> Ruleset:
        """The game variant these options select (:data:`~.ruleset.BASE` or
        :data:`~.ruleset.SABOTEUR_2`); code asks it instead of testing ``expansion``."""
        return ruleset_of(self.expansion)

    @property
    def max_players(self) -> int:
        """Largest player count of this game variant: padding for seat-indexed arrays."""
        return self.ruleset.max_players


#: the variant options of RULES 10 that some ruleset reads (``Ruleset.variant_options``)
_VARIANT_OPTIONS = frozenset().union(*(r.variant_options for r in RULESETS.values()))
#: each option's default, as declared on :class:`GameConfig`
_DEFAULTS = {f.name: f.default for f in fields(GameConfig)}
if not _VARIANT_OPTIONS <= _DEFAULTS.keys():  # a misspelt name in a ruleset: fail at import
    raise AssertionError(
        f"Ruleset.variant_options: no such option {_VARIANT_OPTIONS - _DEFAULTS.keys()}"
    )
