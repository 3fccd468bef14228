"""Setting up: a new game, each round's deal, and any position built by hand (RULES 2.2-2.4,
5.4, 6.6; the test hook of DESIGN 2).

Every random draw comes from the game's one generator, in the order the ruleset gives
(``Ruleset.deal_steps``), so that a seed deals the same game on every machine (RULES 10).

What a new round clears and sets (``_clear_round_state``, ``_start_round``) is restated by the
batched engine's compiled kernels (``saboteur_env/vector/kernels.py``), which
``tests/test_vector.py`` checks against this module over whole games: a change here needs the
same change there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .board import EMPTY, Board
from .cards import CARD_KINDS, GOAL_GOLD, GOAL_KINDS, KIND_INDEX, TOOLS, VARIANT_OF
from .config import GameConfig
from .events import EventType
from .phases import Phase
from .ruleset import NUGGET_SUPPLY

if TYPE_CHECKING:
    from .state import Game


def game_generator(seed: int | np.integer | None) -> np.random.Generator:
    """The generator of a game dealt from ``seed`` (RULES 10): the stream of
    ``np.random.default_rng(seed)``, made directly as ``Generator(PCG64(seed))``, which takes
    a third of the time (12 against 36 us here; the batched engine deals thousands of games a
    second)."""
    return np.random.Generator(np.random.PCG64(seed))


def start_game(game: Game) -> None:
    """Shuffle the gold supply once per game (RULES 2.4 step 4; Saboteur 2 keeps gold as a
    count, RULES 6.6), choose the first player (RULES 2.4, 10) and deal round 1."""
    game.nuggets, first = draw_start(game.config, game.rng)
    deal_round(game, first)


def draw_start(config: GameConfig, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """The draws of a new game before its first deal (RULES 2.4 step 4, 10).

    Returns:
        ``(nuggets, first)``: the gold supply's order (int8, ``NUGGET_SUPPLY`` shuffled;
        empty where the ruleset keeps gold as a count) and the seat that plays first.
    """
    if config.ruleset.nugget_cards:
        nuggets = rng.permutation(NUGGET_SUPPLY)
    else:
        nuggets = np.zeros(0, dtype=np.int8)
    fp = config.first_player
    first = int(rng.integers(config.num_players)) if fp == "random" else int(fp)
    return nuggets, first


@dataclass
class RoundDeal:
    """One round's deal as drawn (RULES 2.1-2.3, 6.6), before any state holds it.

    Attributes:
        roles: int8 ``(N,)``, each seat's dwarf card; ``set_aside``: the role cards left over.
        goals: int8 ``(3,)``, the goal cards' order in the three goal slots.
        hands: int16 ``(N, n_kinds)``, card counts per seat; ``deck``: int16 ``(d,)``, the
            draw pile, top first.
        removed: int64 ``(n_kinds,)``, the cards removed unseen (``Game.removed``).
    """

    roles: np.ndarray
    set_aside: list[int]
    goals: np.ndarray
    hands: np.ndarray
    deck: np.ndarray
    removed: np.ndarray


@lru_cache(maxsize=64)
def _deal_arrays(config: GameConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unshuffled arrays a deal of ``config`` shuffles, made once per configuration (a
    deal is drawn at every round of every game: the batched engine deals thousands a
    second): the role cards in the ruleset's order (int8), the whole deck by kind (int16)
    and, for the hands, each dealt card's seat times the number of kinds (RULES 2.2, 2.3).
    Read-only: the draws shuffle copies."""
    rules, n = config.ruleset, config.num_players
    counts = rules.role_deck(n, config.role_table)
    cards = np.concatenate([np.full(counts[r], r, dtype=np.int8) for r in rules.role_card_order])
    deck = np.repeat(np.arange(rules.n_kinds, dtype=np.int16), rules.deck)
    seat_base = np.repeat(np.arange(n), rules.hand_size(n)) * rules.n_kinds
    for a in (cards, deck, seat_base):
        a.flags.writeable = False
    return cards, deck, seat_base


def _draw_roles(config: GameConfig, rng: np.random.Generator, out: dict[str, Any]) -> None:
    """Shuffle the role deck, one dwarf card each; the rest stay aside (RULES 2.2, 6.6)."""
    n = config.num_players
    role_deck = rng.permutation(_deal_arrays(config)[0])
    out["roles"] = role_deck[:n].copy()
    out["set_aside"] = role_deck[n:].tolist()


def _draw_goals(config: GameConfig, rng: np.random.Generator, out: dict[str, Any]) -> None:
    """A new maze: the three goals face down in shuffled order (RULES 2.1)."""
    out["goals"] = rng.permutation(3).astype(np.int8)


def _draw_cards(config: GameConfig, rng: np.random.Generator, out: dict[str, Any]) -> None:
    """Shuffle the deck, remove the ruleset's cards unseen (RULES 6.6), deal the hands
    (RULES 2.3, 6.6); the rest is the draw pile.

    ``remove_cards_each_round=False``: the cards removed in the first round stay out for the
    whole game (the rest is shuffled each round)."""
    rules = config.ruleset
    _, full_deck, seat_base = _deal_arrays(config)
    k = rules.removed_per_round
    if k and out["round"] > 0 and not config.remove_cards_each_round:
        kinds = np.arange(rules.n_kinds, dtype=np.int16)
        deck = rng.permutation(np.repeat(kinds, rules.deck - out["removed"]))
    else:
        deck = rng.permutation(full_deck)
        out["removed"] = np.bincount(deck[:k], minlength=rules.n_kinds).astype(np.int64)
        deck = deck[k:]
    # seat s gets the next hand_size cards: one count over (seat, kind) pairs
    dealt = len(seat_base)
    nk = rules.n_kinds
    counts = np.bincount(seat_base + deck[:dealt], minlength=config.num_players * nk)
    out["hands"] = counts.reshape(config.num_players, nk).astype(np.int16)
    out["deck"] = deck[dealt:]


_DRAW_STEPS = {"roles": _draw_roles, "goals": _draw_goals, "cards": _draw_cards}


@lru_cache(maxsize=16)
def _draw_plan(steps: tuple[str, ...]) -> tuple[Any, ...]:
    """The draw functions of ``deal_steps`` in order, checked once per ruleset (not at every
    deal).

    Raises:
        ValueError: ``steps`` are not the three draws, each once.
    """
    if sorted(steps) != sorted(_DRAW_STEPS):
        raise ValueError(f"deal_steps {steps}: the draws {tuple(_DRAW_STEPS)}, each once")
    return tuple(_DRAW_STEPS[step] for step in steps)


def draw_round(
    config: GameConfig, rng: np.random.Generator, round: int, removed: np.ndarray
) -> RoundDeal:
    """Draw round ``round``'s deal from ``rng`` in the ruleset's order (``deal_steps``; RULES
    2.1-2.3, 5.4, 6.6), given the cards ``removed`` so far (``Game.removed``).  The engine's
    :func:`deal_round` and the batched engine's deals (``vector/arrays.py``) both draw here,
    so a seed deals the same cards to both.

    Returns:
        the :class:`RoundDeal`.

    Raises:
        ValueError: the ruleset's ``deal_steps`` are not the three draws, each once.
    """
    out: dict[str, Any] = {"round": round, "removed": removed}
    for step in _draw_plan(config.ruleset.deal_steps):
        step(config, rng, out)
    return RoundDeal(
        out["roles"], out["set_aside"], out["goals"], out["hands"], out["deck"], out["removed"]
    )


def deal_round(game: Game, first: int) -> None:
    """Deal a round that ``first`` starts (RULES 2.4, 5.4, 6.6)."""
    d = draw_round(game.config, game.rng, game.round, game.removed)
    game.roles, game.set_aside = d.roles, d.set_aside
    game.board = Board(game.config.window, d.goals)
    game.hands, game.deck, game.removed = d.hands, d.deck, d.removed
    _start_round(game, first)


def _clear_round_state(game: Game) -> None:
    """Everything that lasts one round, empty (RULES 5.4: the maze, the cards in front and
    the discard pile are gathered before the next deal)."""
    n, nk = game.n, game.rules.n_kinds
    game.discards = np.zeros(nk, dtype=np.int64)
    game.secret_discards = np.zeros((n, nk), dtype=np.int64)
    game.xfront = np.zeros((n, 2), dtype=bool)
    game.theft_turn = np.full(n, -1, dtype=np.int64)
    game.inspected = np.full((n, n), -1, dtype=np.int8)
    game.hat_swaps = np.zeros(n, dtype=np.int16)
    game.inspected_swaps = np.zeros((n, n), dtype=np.int16)
    game.hats_discarded = []
    game.hats_discarded_from = []
    game.phase, game.phase_count, game.phase_slot = Phase.TURN, 0, -1
    game.theft_queue = []
    game.pending_result = None
    game.broken = np.zeros((n, 3), dtype=bool)
    game.broken_kind = np.full((n, 3), -1, dtype=np.int16)
    game.known_goals = np.zeros((n, 3), dtype=bool)
    game.turn = 0
    game.round_over = False


def _start_round(game: Game, first: int) -> None:
    # its events are restated for the batched engine's kernels (vector/arrays.py round_end)
    _clear_round_state(game)
    game.current = first
    game.first_player = first
    game.last_card_seat = first
    game.emit(EventType.ROUND_START, None, {"round": game.round, "first_player": first})
    for s in range(game.n):
        game.emit(EventType.ROLE_DEALT, s, {"role": int(game.roles[s])}, visible_to=s)


# --- the test hook (DESIGN 2) --------------------------------------------------------------
def card_kind(k: str | int, n_kinds: int | None = None) -> int:
    """A card kind index from an id (``"B07"``, ``"map"``) or an index; with ``n_kinds``, it
    must be a hand card of a ruleset with that many kinds.

    Raises:
        ValueError: an unknown id, or an index out of range.
    """
    if isinstance(k, str):
        if k not in KIND_INDEX:
            raise ValueError(f"unknown card kind {k!r}; valid: {sorted(KIND_INDEX)}")
        i = KIND_INDEX[k]
    elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
        i = int(k)
    else:
        raise ValueError(f"card kind {k!r}: an id such as 'B07' or a kind index")
    if n_kinds is not None and not 0 <= i < n_kinds:
        raise ValueError(
            f"card kind {k!r} is not a card of this game's deck (kinds 0-{n_kinds - 1})"
        )
    return i


def build_state(
    config: GameConfig | None = None,
    *,
    roles: Sequence[str | int],
    hands: Sequence[Iterable[str | int]],
    board: Iterable[tuple[int, int, str | int, bool]] = (),
    goals: Sequence[int] = (GOAL_GOLD, 1, 2),
    revealed: Iterable[tuple[int, bool]] = (),
    set_aside: Iterable[str | int] = (),
    deck: Iterable[str | int] | None = None,
    nuggets: Iterable[int] | None = None,
    broken: Sequence[Iterable[str | int]] | None = None,
    known_goals: Sequence[Iterable[int]] | None = None,
    gold: Sequence[int] | None = None,
    current: int = 0,
    round: int = 0,
    last_card_seat: int | None = None,
    seed: int = 0,
    trapped: Iterable[int] = (),
    theft: Iterable[int] = (),
    removed: Iterable[str | int] | None = None,
    inspected: Mapping[tuple[int, int], str | int] | None = None,
    check_counts: bool = True,
) -> Game:
    """Build any position by hand (the test hook, DESIGN 2).

    Args:
        config: the game's options (default :class:`GameConfig` with ``num_players=len(roles)``).
        roles: role per seat, a name of ``config.ruleset.roles`` (``"gold-digger"``,
            ``"saboteur"``; Saboteur 2 ``"green-digger"``, ``"blue-digger"``, ``"boss"``,
            ``"profiteer"``, ``"geologist"``, ``"saboteur"``) or a role id.
        hands: per seat, a list of card kinds (ids like ``"B07"``, ``"map"``, or kind indexes).
        board: ``[(x, y, kind, rotated), ...]`` tunnel cards in the maze.
        goals: goal identity per slot (top, middle, bottom): 0 gold, 1 stone A, 2 stone B.
        revealed: ``[(slot, rotated), ...]`` goals already face up.
        set_aside: roles of the dwarf cards aside (Saboteur 2: top first, drawn by Swap your
            hats).
        deck: the draw pile, top first (kinds); default: every card not placed elsewhere,
            shuffled with ``seed``.  When given, cards left over go to the discard pile.
        nuggets: the gold supply, top first (values 1-3); default: the 28 cards shuffled
            (unused where gold is a count, Saboteur 2).
        broken: per seat, an iterable of tools (``"pick"``, ``"lantern"``, ``"cart"`` or 0-2).
        known_goals: per seat, goal slots that seat has mapped.
        gold: gold already held per seat.
        current / round / last_card_seat: the seat to act, the round index, RULES 5.4's seat.
        seed: seeds the game's generator (later rounds' deals, default deck order).
        trapped: Saboteur 2: seats with a Trapped! card in front (RULES 6.5).
        theft: Saboteur 2: seats with a Theft card in front, in the order they were played
            (the last one is the most recent, RULES 6.9).
        removed: Saboteur 2: kinds of the cards removed unseen (RULES 6.6); default none, so
            every card not placed elsewhere is in the deck (or discards).
        inspected: Saboteur 2: ``{(inspector, target): role seen}`` (RULES 6.5).
        check_counts: ``True`` (default): a position may hold no more copies of a card than
            the deck has (RULES 1.1, 6.5).  ``False``: allow more (positions of other
            implementations, or scenarios that need five straights); the deck then holds
            what is left of each kind (none where a kind is over), the discard pile nothing
            beyond the given deck's complement, and card conservation no longer holds.

    Returns:
        A :class:`Game` in that position, connectivity computed.

    Raises:
        ValueError: a card count exceeds the deck (RULES 1; unless ``check_counts=False``), a
            cell is outside the window or taken, a role or card id is unknown, or an option
            is inconsistent.  Nothing is built.
    """
    from .state import Game

    n = len(roles)
    if config is None:
        config = GameConfig(num_players=n)
    if config.num_players != n:
        raise ValueError(f"config.num_players={config.num_players} but {n} roles given")
    rules = config.ruleset
    role_ids = [rules.role_id(r) for r in roles]
    aside = [rules.role_id(r) for r in set_aside]
    if sorted(int(x) for x in goals) != [0, 1, 2]:
        raise ValueError(
            f"goals={tuple(goals)!r}: one gold (0) and the two stone goals (1, 2), "
            "one per slot (RULES 1.2)"
        )
    if not isinstance(current, (int, np.integer)) or not 0 <= current < n:
        raise ValueError(f"current={current!r}: must be a seat 0..{n - 1}")
    nugget_list = None if nuggets is None else [int(v) for v in nuggets]
    if nugget_list is not None and any(v not in (1, 2, 3) for v in nugget_list):
        raise ValueError(
            f"nuggets={nugget_list!r}: gold-nugget cards are worth 1, 2 or 3 (RULES 1.4)"
        )
    broken_lists = [list(t) for t in broken] if broken is not None else [[] for _ in range(n)]
    for tools in broken_lists:
        for t in tools:
            if t not in TOOLS and t not in (0, 1, 2):
                raise ValueError(f"broken tool {t!r}: use one of {TOOLS} or 0-2 (RULES 1.3)")
    if len(hands) != n:
        raise ValueError(f"{len(hands)} hands given for {n} players")
    trapped, theft = list(trapped), list(theft)
    for name, seats in (("trapped", trapped), ("theft", theft)):
        if seats and not rules.offers("xaction"):
            raise ValueError(f"{name}={seats!r}: {rules.title} has no such cards (RULES 6.5)")
        if any(not isinstance(s, (int, np.integer)) or not 0 <= s < n for s in seats) or len(
            set(seats)
        ) != len(seats):
            raise ValueError(f"{name}={seats!r}: distinct seats 0..{n - 1}")
    if gold is not None and (len(gold) != n or any(int(v) < 0 for v in gold)):
        raise ValueError(f"gold={list(gold)!r}: one non-negative amount per seat ({n})")
    for slots in known_goals or ():
        if any(sl not in (0, 1, 2) for sl in slots):
            raise ValueError(f"known_goals={known_goals!r}: goal slots are 0, 1 and 2")
    g = Game(config, seed, _deal=False)
    g.round = round
    g.roles = np.array(role_ids, dtype=np.int8)
    g.set_aside = aside
    g.board = Board(config.window, goals)
    _clear_round_state(g)
    nk = rules.n_kinds
    g.removed = np.zeros(nk, dtype=np.int64)
    used = _lay_maze(g, board, revealed)
    g.hands = np.zeros((n, nk), dtype=np.int16)
    for s, h in enumerate(hands):
        for k in h:
            g.hands[s, card_kind(k, nk)] += 1
    used += g.hands.sum(axis=0)
    used += _lay_fronts(g, broken_lists, trapped, theft)
    g.decisions = len(theft)  # the Thefts in front were played before any decision to come
    if removed is not None:
        for k in removed:
            g.removed[card_kind(k, nk)] += 1
        used += g.removed
    for (a, t), r in (inspected or {}).items():
        g.inspected[a, t] = rules.role_id(r)
    _stock(g, used, deck, nugget_list, check_counts)
    g.known_goals[:, g.board.goal_revealed] = True
    for s, slots in enumerate(known_goals or [()] * n):
        for sl in slots:
            g.known_goals[s, sl] = True
    if gold is not None:
        g.gold = np.array(gold, dtype=np.int64)
    g.current = current
    g.first_player = current
    g.last_card_seat = current if last_card_seat is None else last_card_seat
    if not g.hands[current].any() and g.hands.any():
        raise ValueError(f"seat {current} is to act but holds no card")
    return g


def _lay_maze(
    g: Game, board: Iterable[tuple[int, int, str | int, bool]], revealed: Iterable[tuple[int, bool]]
) -> np.ndarray:
    """Lay the tunnel cards and turn up the goals of a hand-built position; connect them.
    Returns the cards used per kind."""
    used = np.zeros(g.rules.n_kinds, dtype=np.int64)
    b = g.board
    for x, y, k, rot in board:
        k = card_kind(k, g.rules.n_kinds)
        if CARD_KINDS[k].category != "path":
            raise ValueError(f"{CARD_KINDS[k].id} is not a path card")
        if not b.in_window(x, y) or b.variant_at(x, y) != EMPTY:
            raise ValueError(f"cell ({x}, {y}) is outside the window or already taken")
        b.set_card(VARIANT_OF[(k, bool(rot))], x, y)
        used[k] += 1
    for slot, rot in revealed:
        b.reveal_goal(slot, VARIANT_OF[(GOAL_KINDS[int(b.goal_identity[slot])], bool(rot))])
    b.recompute_connectivity()
    return used


def _lay_fronts(
    g: Game, broken: Sequence[Sequence[str | int]], trapped: Iterable[int], theft: Iterable[int]
) -> np.ndarray:
    """Lay the cards in front of the players (RULES 3.2, 6.5); the cards used per kind."""
    used = np.zeros(g.rules.n_kinds, dtype=np.int64)
    for s, tools in enumerate(broken):
        for t in tools:
            ti = TOOLS.index(t) if isinstance(t, str) else int(t)
            k = KIND_INDEX[("break_pick", "break_lantern", "break_cart")[ti]]
            g.broken[s, ti] = True
            g.broken_kind[s, ti] = k
            used[k] += 1
    for s in trapped:
        g.xfront[s, 0] = True
        used[KIND_INDEX["trapped"]] += 1
    for i, s in enumerate(theft):
        g.xfront[s, 1] = True
        g.theft_turn[s] = i
        used[KIND_INDEX["theft"]] += 1
    return used


def _stock(
    g: Game,
    used: np.ndarray,
    deck: Iterable[str | int] | None,
    nuggets: list[int] | None,
    check_counts: bool,
) -> None:
    """The draw pile, the discard pile (what is left of the deck) and the gold supply."""
    rules, nk = g.rules, g.rules.n_kinds
    left = rules.deck - used
    if check_counts and (left < 0).any():
        bad = [CARD_KINDS[k].id for k in np.nonzero(left < 0)[0]]
        raise ValueError(
            f"more {bad} cards than the deck holds (RULES 1); check_counts=False allows it"
        )
    left = np.maximum(left, 0)
    if deck is None:
        g.deck = g.rng.permutation(np.repeat(np.arange(nk, dtype=np.int16), left))
    else:
        g.deck = np.array([card_kind(k, nk) for k in deck], dtype=np.int16)
        g.discards = left - np.bincount(g.deck, minlength=nk)
        if check_counts and (g.discards < 0).any():
            raise ValueError("the given deck holds cards that are already elsewhere")
        g.discards = np.maximum(g.discards, 0)
    if not rules.nugget_cards:
        g.nuggets = np.zeros(0, dtype=np.int8)
    elif nuggets is None:
        g.nuggets = g.rng.permutation(NUGGET_SUPPLY)
    else:
        g.nuggets = np.array(nuggets, dtype=np.int8)
