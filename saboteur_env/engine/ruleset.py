"""A game variant as data: :class:`Ruleset`, with the values :data:`BASE` and :data:`SABOTEUR_2`.

Everything that differs between the base game (RULES 1-5) and Saboteur 2 (RULES 6) is a field
here: the role deck, hand sizes, the card deck, the cards removed unseen, the action families
offered, the phases, how gold is held, the player range and the default board window.  The
engine, the codec, the encoder, the agents and the experiments ask the ruleset
(``config.ruleset``); nobody tests a yes/no flag.  A new variant is a new value (DESIGN 8).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .cards import (
    BASE_ROLES,
    BLUE_DIGGER,
    CARD_KINDS,
    DOOR_CODES,
    EXPANSION_ROLES,
    GEOLOGIST,
    GOLD_CARDS,
    GOLD_DIGGER,
    GREEN_DIGGER,
    HAND_SIZE,
    N_BASE_KINDS,
    N_EXPANSION_KINDS,
    ROLE_TABLE_PUBLISHED,
    ROLE_TABLE_SEED,
    ROLES_S2,
    S2_HAND_SIZE,
    S2_REMOVED,
    SABOTEUR,
    X_SABOTEUR,
    deck_counts,
    placeable_variants,
)
from .phases import Phase
from .scoring import base_payout, end_round_base, end_round_s2

if TYPE_CHECKING:
    from .state import Game


@dataclass(frozen=True, eq=False)
class Ruleset:
    """One game variant (see the module docstring).

    Attributes:
        name: ``"base"`` or ``"saboteur_2"``.
        title: the game's name for people.
        expansion: the value of ``GameConfig.expansion`` that selects this ruleset.
        roles: role names; a role id is an index into this tuple (RULES 1.5, 6.2).
        saboteur: role id of the saboteur.
        diggers: role ids of the roles that win when the gold is reached.
        player_range: (fewest, most) players (RULES 2.2, 6.1).
        hand_sizes: players -> cards per hand (RULES 2.3, 6.6).
        n_kinds: hand card kinds of the deck (``cards.CARD_KINDS[:n_kinds]``).
        deck: int64 ``(n_kinds,)``: copies of each kind in the draw deck (RULES 2.4, 6.5).
        removed_per_round: cards removed unseen from the shuffled deck (RULES 6.6).
        fixed_role_deck: role id -> dwarf cards, when the role deck does not depend on the
            player count (Saboteur 2's 15 cards, RULES 6.2); ``None`` for the base game's
            role tables (RULES 2.2, 10 ``role_table``).
        card_payout: where gold is won as gold-nugget cards from a shuffled supply (RULES
            1.4, 5.2, 5.3), the cards one round pays, on plain values
            (:func:`~.scoring.base_payout`: ``card_payout(supply, gold_found, connector, roles,
            last_card_seat, forfeit)``; what ``determinize`` replays to resample the others'
            secret gold); ``None`` where gold is an integer count (RULES 6.6).
        families: the action families offered, in the codec's block order (DESIGN 3).
        phases: the phases a decision can be in.
        default_window: the default board window (x_min, x_max, y_min, y_max), chosen so that
            practically no legal placement falls outside it (DESIGN 3).
        variants: placeable oriented path cards (variant ids) in the codec's row order.
        paid_roles: roles paid from their own share although never winners (Saboteur 2's
            geologists, RULES 6.9).
        gold_stake: role id -> ``+1`` when the role wins if the gold is reached (gold-diggers;
            Saboteur 2's diggers and the boss, RULES 6.2), ``-1`` when it wins if it is not
            (the saboteur), ``0`` when its result does not hang on it (the profiteer wins with
            either side, the geologist is paid for crystals; RULES 6.9).  For agents and
            trainers that value the tunnel's progress by role.
        public_gold_holders: ``True`` when every player may see who holds gold (Saboteur 2,
            where gold can be stolen, RULES 6.9); ``False``: a player's gold is private until
            the game ends (the base game's gold-nugget cards stay secret, RULES 5.3).
        pass_cards: most cards one pass may discard, one decision each (RULES 3.6: 1;
            Saboteur 2: 3, RULES 6.7 option 4).
        remove_discards: cards discarded to remove a card in front of oneself (RULES 6.7).
        deal_steps: the order of the random draws of a deal (``"roles"``, ``"goals"``,
            ``"cards"``), so that a seed deals the same game as it always has.
        role_card_order: the role ids in the order their dwarf cards lie before shuffling.
        end_round: the round end and scoring, ``end_round(game, gold_found, connector)``
            (:mod:`~saboteur_env.engine.scoring`, RULES 5, 6.9).
        role_doors: role id -> the door colour of its team (``cards.DOOR_CODES`` index: 1
            green, 2 blue; 0 for a role in no team): Saboteur 2's green and blue diggers,
            whom a door of the other colour blocks (RULES 6.4, 6.9).
        variant_options: the ``GameConfig`` variant options (RULES 10) this ruleset's rules
            read; ``GameConfig`` refuses a value other than the default for any other one
            (it would change nothing).
    """

    name: str
    title: str
    expansion: bool
    roles: tuple[str, ...]
    saboteur: int
    diggers: tuple[int, ...]
    player_range: tuple[int, int]
    hand_sizes: Mapping[int, int]
    n_kinds: int
    deck: np.ndarray
    removed_per_round: int
    fixed_role_deck: Mapping[int, int] | None
    card_payout: Callable[..., list[tuple[int, int]]] | None
    families: tuple[str, ...]
    phases: tuple[Phase, ...]
    default_window: tuple[int, int, int, int]
    variants: tuple[int, ...]
    paid_roles: tuple[int, ...]
    gold_stake: tuple[int, ...]
    public_gold_holders: bool
    pass_cards: int
    remove_discards: int
    deal_steps: tuple[str, ...]
    role_card_order: tuple[int, ...]
    end_round: Callable[[Game, bool, int | None], None]
    role_doors: tuple[int, ...]
    variant_options: frozenset[str]

    @property
    def max_players(self) -> int:
        """The largest player count: padding of every seat-indexed array and action block."""
        return self.player_range[1]

    @property
    def nugget_cards(self) -> bool:
        """Gold is won as gold-nugget cards from a shuffled supply (:attr:`card_payout`; RULES
        1.4, 5.2, 5.3), not kept as an integer count (RULES 6.6)."""
        return self.card_payout is not None

    @property
    def n_roles(self) -> int:
        return len(self.roles)

    @property
    def n_cards(self) -> int:
        """Cards of the draw deck: 67 (base game) or 118 (Saboteur 2)."""
        return int(self.deck.sum())

    def hand_size(self, num_players: int) -> int:
        """Cards dealt to each player (RULES 2.3, 6.6)."""
        return self.hand_sizes[num_players]

    def role_deck(self, num_players: int, role_table: str = "published") -> npt.NDArray[np.int64]:
        """int64 ``(n_roles,)``: dwarf cards of each role shuffled for ``num_players``.

        Base game: RULES 2.2 (``"published"``, one card more than players) or RULES 10
        (``"seed"``); Saboteur 2: the 15 cards whatever the count (RULES 6.2).

        Raises:
            ValueError: the player count is outside :attr:`player_range`, or (base game)
                ``role_table`` is neither ``"published"`` nor ``"seed"``.
        """
        lo, hi = self.player_range
        if not lo <= num_players <= hi:
            raise ValueError(f"{self.title} is for {lo} to {hi} players, not {num_players}")
        out = np.zeros(self.n_roles, dtype=np.int64)
        if self.fixed_role_deck is not None:
            for r, c in self.fixed_role_deck.items():
                out[r] = c
            return out
        tables = {"published": ROLE_TABLE_PUBLISHED, "seed": ROLE_TABLE_SEED}
        if role_table not in tables:
            raise ValueError(f"role_table={role_table!r}: 'published' or 'seed' (RULES 2.2)")
        sab, dig = tables[role_table][num_players]
        out[self.saboteur], out[self.diggers[0]] = sab, dig
        return out

    def role_prior(
        self, num_players: int, role_table: str = "published"
    ) -> npt.NDArray[np.float64]:
        """float64 ``(n_roles,)``: the chance that a given player holds each role before any
        card is seen (each dwarf card is equally likely to be any player's)."""
        deck = self.role_deck(num_players, role_table).astype(np.float64)
        prior: npt.NDArray[np.float64] = deck / deck.sum()
        return prior

    def role_id(self, role: str | int) -> int:
        """The role id of a role name or id.

        Raises:
            ValueError: not a role of this ruleset (the valid names are listed).
        """
        if isinstance(role, str):
            if role not in self.roles:
                raise ValueError(f"{role!r} is not a role of {self.title}; use one of {self.roles}")
            return self.roles.index(role)
        if (
            not isinstance(role, (int, np.integer))
            or isinstance(role, bool)
            or not 0 <= int(role) < self.n_roles
        ):
            raise ValueError(
                f"{role!r} is not a role of {self.title}; use one of {self.roles} "
                f"or 0-{self.n_roles - 1}"
            )
        return int(role)

    @property
    def roles_change_in_round(self) -> bool:
        """Whether a player's role can change during a round: the deck holds a Swap your
        hats card (Saboteur 2, RULES 6.5); in the base game a dealt role is kept to the
        round's end."""
        return any(
            self.deck[k] > 0 and CARD_KINDS[k].effect[:1] == ("swap_hats",)
            for k in range(self.n_kinds)
        )

    def offers(self, family: str) -> bool:
        """Whether the action family ``family`` exists in this variant."""
        return family in self.families

    # a ruleset is a constant: copies and pickles refer to the one value by name
    def __reduce__(self) -> tuple[Callable[[str], Ruleset], tuple[str]]:
        return (ruleset_named, (self.name,))

    def __deepcopy__(self, memo: dict[int, object]) -> Ruleset:
        return self


def _frozen(d: Mapping[int, int]) -> Mapping[int, int]:
    return MappingProxyType(dict(d))


def _deck(expansion: bool) -> np.ndarray:
    d = deck_counts(expansion)
    d.flags.writeable = False
    return d


#: The base game (RULES 1-5).
BASE = Ruleset(
    name="base",
    title="the base game",
    expansion=False,
    roles=BASE_ROLES,
    saboteur=SABOTEUR,
    diggers=(GOLD_DIGGER,),
    player_range=(3, 10),
    hand_sizes=_frozen(HAND_SIZE),
    n_kinds=N_BASE_KINDS,
    deck=_deck(False),
    removed_per_round=0,
    fixed_role_deck=None,
    card_payout=base_payout,
    families=("place", "rockfall", "map", "tool", "discard"),
    phases=(Phase.TURN,),
    default_window=(-6, 14, -8, 8),
    variants=placeable_variants(False),
    paid_roles=(),
    gold_stake=(+1, -1),  # gold-digger, saboteur
    public_gold_holders=False,
    pass_cards=1,
    remove_discards=2,
    deal_steps=("roles", "goals", "cards"),
    role_card_order=(SABOTEUR, GOLD_DIGGER),
    end_round=end_round_base,
    role_doors=(0, 0),
    variant_options=frozenset({"role_table", "self_sabotage", "broken_tool_forfeit"}),
)

#: Saboteur 2 (RULES 6): the expansion's cards, roles, turn options and scoring.
SABOTEUR_2 = Ruleset(
    name="saboteur_2",
    title="Saboteur 2",
    expansion=True,
    roles=EXPANSION_ROLES,
    saboteur=X_SABOTEUR,
    diggers=(EXPANSION_ROLES.index("green-digger"), EXPANSION_ROLES.index("blue-digger")),
    player_range=(2, 12),
    hand_sizes=_frozen({n: S2_HAND_SIZE for n in range(2, 13)}),
    n_kinds=N_EXPANSION_KINDS,
    deck=_deck(True),
    removed_per_round=S2_REMOVED,
    fixed_role_deck=_frozen(ROLES_S2),
    card_payout=None,
    families=("place", "rockfall", "map", "tool", "discard", "xaction", "remove", "done", "steal"),
    phases=(Phase.TURN, Phase.PASS, Phase.REMOVE, Phase.THEFT),
    # ladders start new tunnels, so the expansion's mazes spread further
    default_window=(-9, 17, -11, 11),
    variants=placeable_variants(True),
    paid_roles=(GEOLOGIST,),
    # green-digger, blue-digger, boss, profiteer, geologist, saboteur (EXPANSION_ROLES)
    gold_stake=(+1, +1, +1, 0, 0, -1),
    public_gold_holders=True,
    pass_cards=3,
    remove_discards=2,
    deal_steps=("cards", "roles", "goals"),
    role_card_order=tuple(range(len(EXPANSION_ROLES))),
    end_round=end_round_s2,
    # the green and the blue team (RULES 6.2, 6.9)
    role_doors=tuple(
        {GREEN_DIGGER: DOOR_CODES.index("green"), BLUE_DIGGER: DOOR_CODES.index("blue")}.get(r, 0)
        for r in range(len(EXPANSION_ROLES))
    ),
    # the dwarf cards are fixed (RULES 6.2) and the payouts are RULES 6.9's: no role table,
    # no broken-tool forfeit
    variant_options=frozenset({"self_sabotage", "both_doors_rule", "remove_cards_each_round"}),
)

RULESETS: Mapping[str, Ruleset] = MappingProxyType({r.name: r for r in (BASE, SABOTEUR_2)})

#: RULES 1.4: the gold supply of the base game, as values (28 cards, 44 nuggets).
NUGGET_SUPPLY = np.repeat(np.array(list(GOLD_CARDS), dtype=np.int8), list(GOLD_CARDS.values()))
NUGGET_SUPPLY.flags.writeable = False


def ruleset_named(name: str) -> Ruleset:
    """The ruleset called ``name`` (``"base"``, ``"saboteur_2"``).

    Raises:
        ValueError: no ruleset has that name.
    """
    if name not in RULESETS:
        raise ValueError(f"unknown ruleset {name!r}; known: {sorted(RULESETS)}")
    return RULESETS[name]


def ruleset_of(expansion: bool) -> Ruleset:
    """The ruleset that ``GameConfig(expansion=...)`` selects."""
    return SABOTEUR_2 if expansion else BASE
