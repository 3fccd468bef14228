"""Sampling a full state consistent with what one seat knows, for information-set search
(DESIGN 2).

What a seat knows: the public state and history, its own hand, role, face-down discards, map
results, inspection results and gold (RULES 3.5, 3.6, 5.3, 6.5).  The hidden cards, roles and
goals are resampled.  In the base game the gold-nugget cards are secret (RULES 5.3): the other
players' gold and the order of the supply are resampled by replaying the past rounds' payouts
(the ruleset's ``card_payout``, from their public results) on a random order of the whole
supply, kept only when it pays the seat exactly what it was paid (:func:`determinize`).  In
Saboteur 2 gold is a count: its totals are secret, but they follow from the public round
results and thefts (RULES 6.9), so it is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from .actions.family import is_int
from .events import Event, EventType, RoundResult
from .ruleset import NUGGET_SUPPLY

if TYPE_CHECKING:
    from .state import Game

#: the revision of what :func:`determinize` draws: raised whenever a change makes it draw
#: other samples from the same generator, so that stored games of the search agents that read
#: it (the bluff benchmark's record sets, ``saboteur_experiments.bluff.populations.fingerprint``)
#: are played anew (2: the base game's gold is resampled, and Saboteur 2 roles kept during the
#: thefts)
REVISION = 2
#: most random supply orders tried for one sample before :class:`DeterminizeError` (in the
#: heuristic games of 3 to 10 players measured, at least 1 order in 60 was kept for every
#: seat at the third round's fifth turn, and at least 1 in 2,500 for a spectator after the
#: game, when every total is public)
MAX_SUPPLY_ORDERS = 200_000
#: supply orders drawn at once: first (most states accept one of the first few), at most
_FIRST_BATCH, _LAST_BATCH = 4, 1024


#: a past round's public data for ``Ruleset.card_payout`` (:func:`~.scoring.base_payout`):
#: gold found, connector, roles, the last card's seat, the seats whose broken tool forfeits
#: their share
_Round = tuple[bool, "int | None", list[int], int, Sequence[bool]]


class DeterminizeError(RuntimeError):
    """No sample found within :data:`MAX_SUPPLY_ORDERS` supply orders (a state whose gold is
    very unlikely under the payout rules; the true state is consistent, so a sample exists)."""


def determinize(game: Game, seat: int | None, rng: np.random.Generator) -> Game:
    """A copy of ``game`` with every card, role, goal and gold card that ``seat`` cannot see
    resampled (``seat=None``: a spectator, who sees only what is public).

    Reshuffled together, keeping every count that is public: the other players' hands (their
    sizes kept), their face-down discards (how many each discarded kept, RULES 3.6), the draw
    pile and the cards removed unseen (RULES 6.6).  The roles of the other players are
    reshuffled with the dwarf cards aside and those discarded by Swap your hats, except the
    roles ``seat`` has inspected with no Swap your hats on that player since (RULES 6.5) and the
    seat's own cards that Swap your hats discarded (an inspector's knowledge of a discarded
    card is not used); once the roles are revealed (:attr:`Game.roles_revealed`: the round is
    over, e.g. Saboteur 2's thefts, RULES 5.1, 6.9, or the game) every player's role is kept.
    The identities of the goals ``seat`` has not seen are permuted (who mapped which goal is
    public, so those players keep knowing the goal, now the resampled one).  Other seats'
    private events are dropped from the copy's history and their inspection results forgotten
    (they were drawn from the old hidden state).  The copy's own generator is replaced by one
    drawn from ``rng``.  (What ``seat`` knows of a hand it gave away with Swap your hand is not
    used.)  Each hidden pool is sorted before it is shuffled, so two states that ``seat``
    cannot tell apart give the same sample for the same ``rng`` state (what an
    information-set search needs: ``saboteur_agents.ismcts``).

    A spectator (``seat=None``) knows no hand, role, face-down discard, map result or gold
    amount: every hand is resampled (sizes kept), every role not revealed, and every goal not
    revealed on the board; only public events stay in the copy's history.

    Gold, where it is won as gold-nugget cards from a shuffled supply (``Ruleset.card_payout``:
    the base game, whose gold is secret, RULES 5.3): a random order of the whole supply
    (``ruleset.NUGGET_SUPPLY``) is drawn and the past rounds' payouts are replayed on it (the
    ruleset's ``card_payout``, :func:`~.scoring.base_payout`) with their public data: the
    revealed roles, whether the gold was found and by whom, the seat of the last card (every
    turn is seen) and, under ``broken_tool_forfeit``, the broken tools at round end (from the
    public ``tool_broken`` / ``tool_repaired`` events).  An order is kept only when the replay
    pays ``seat`` the gold it received in each round (its ``gold_received`` events) and leaves
    it holding its gold cards, leaves as many cards in the supply as there are (a public count),
    and, once the game is over, gives every player the total the ``game_end`` event shows; a
    spectator conditions on nothing private.  The kept order's payouts set the other players'
    ``gold`` and ``gold_cards`` and the copy's round results (``received``, ``paid``), and what
    is left of it is the copy's supply, top first: an exact sample of the posterior given what
    the engine records of the seat's gold (its per-round amounts and the cards it holds, not
    which cards came in which round).  A state whose gold did not come from its recorded rounds'
    payouts (built by hand with ``build_state``, whose history does not start with the first
    deal) keeps every player's gold, and only its supply is reshuffled.  Where gold is a count
    whose totals, though secret, follow from the public round results and thefts (Saboteur 2,
    RULES 6.9), it is kept.

    Args:
        game: the state; not changed.
        seat: the seat whose knowledge is kept, or ``None`` for a spectator.
        rng: the generator for the resampling.

    Returns:
        A new :class:`~.state.Game`.

    Raises:
        ValueError: ``seat`` is neither ``None`` nor a seat in play.  TypeError: ``rng`` is not
            a Generator.  DeterminizeError: no supply order in :data:`MAX_SUPPLY_ORDERS` tries
            paid the seat what it was paid (a state very unlikely under the payout rules; how
            often that happens depends only on what ``seat`` knows, so it tells nothing
            hidden, where keeping the true gold would).
    """
    if seat is not None and (not is_int(seat) or not 0 <= seat < game.n):
        raise ValueError(f"seat={seat!r}: a seat 0..{game.n - 1}, or None for a spectator")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, not {type(rng).__name__}")
    g = game.copy()
    n, nk = g.n, g.rules.n_kinds
    others = [s for s in range(n) if s != seat]
    kinds = np.arange(nk, dtype=np.int16)
    hand_sizes = [int(g.hands[s].sum()) for s in others]
    secret_sizes = [int(g.secret_discards[s].sum()) for s in others]
    n_removed = int(g.removed.sum())
    secret_before = g.secret_discards[others].sum(axis=0)
    pool = np.concatenate(
        [np.repeat(kinds, g.hands[s]) for s in others]
        + [np.repeat(kinds, g.secret_discards[s]) for s in others]
        + [g.deck.astype(np.int16), np.repeat(kinds, g.removed)]
    )
    # sorted first: the sample then depends only on what ``seat`` knows (the multiset of the
    # hidden cards) and ``rng``, not on where the cards really are
    pool = rng.permutation(np.sort(pool))
    pos = 0
    for s, h in zip(others, hand_sizes):
        g.hands[s] = np.bincount(pool[pos : pos + h], minlength=nk)
        pos += h
    for s, h in zip(others, secret_sizes):
        g.secret_discards[s] = np.bincount(pool[pos : pos + h], minlength=nk)
        pos += h
    g.discards = g.discards - secret_before + g.secret_discards[others].sum(axis=0)
    g.deck = pool[pos : len(pool) - n_removed]
    g.removed = np.bincount(pool[len(pool) - n_removed :], minlength=nk).astype(np.int64)

    known = g.roles_known_to(None if seat is None else int(seat))  # face up, or inspected
    free = [s for s in others if not known[s]]
    # the dwarf cards Swap your hats took from the seat itself are known to it: they stay
    mine_out = [i for i, s in enumerate(g.hats_discarded_from) if s == seat]
    out_free = [i for i in range(len(g.hats_discarded)) if i not in mine_out]
    hidden = rng.permutation(
        np.sort(
            np.array(
                [g.roles[s] for s in free] + g.set_aside + [g.hats_discarded[i] for i in out_free],
                dtype=np.int8,
            )
        )
    ).tolist()
    g.roles[free] = hidden[: len(free)]
    rest = hidden[len(free) :]
    g.set_aside = rest[: len(g.set_aside)]
    for i, r in zip(out_free, rest[len(g.set_aside) :]):
        g.hats_discarded[i] = r
    mine = None if seat is None else g.inspected[seat].copy()
    g.inspected[:] = -1
    if seat is not None:
        g.inspected[seat] = mine
    seen = g.board.goal_revealed if seat is None else g.known_goals[seat]
    unknown = [sl for sl in range(3) if not seen[sl]]
    if unknown:
        g.board.goal_identity[unknown] = rng.permutation(np.sort(g.board.goal_identity[unknown]))
    if g.rules.card_payout is not None:
        if _replayable(game):
            _sample_gold(g, game, None if seat is None else int(seat), rng)
        else:
            g.nuggets = rng.permutation(np.sort(g.nuggets))
    viewer = None if seat is None else int(seat)
    g.events = [e for e in g.events if e.seen_by(viewer)]
    g.rng = np.random.default_rng(int(rng.integers(2**63)))
    return g


def _replayable(game: Game) -> bool:
    """Whether ``game``'s gold came from the payouts of its recorded rounds: its history
    starts with the first deal, its rounds are recorded from the first, every gold card is
    in the supply or held, and each player's gold is its cards' value (not so for a state
    built by hand, ``build_state``, e.g. with ``gold=``)."""
    ev, rounds = game.events, game.round_results
    if not ev or ev[0].type is not EventType.ROUND_START or ev[0].data["round"] != 0:
        return False
    if [r.round for r in rounds] != list(range(len(rounds))):
        return False
    cards = game.gold_cards
    held = cards.sum(axis=0) + np.bincount(game.nuggets.astype(np.intp), minlength=4)[1:4]
    if held.tolist() != np.bincount(NUGGET_SUPPLY.astype(np.intp), minlength=4)[1:4].tolist():
        return False
    return bool((cards @ np.arange(1, 4) == game.gold).all())


def _broken_at_round_ends(events: list[Event], n: int) -> dict[int, list[bool]]:
    """Round -> per seat, a broken tool in front of it when the round ended, from the public
    ``tool_broken`` / ``tool_repaired`` events (RULES 3.2, 3.3)."""
    out: dict[int, list[bool]] = {}
    broken = [[False] * 3 for _ in range(n)]
    for e in events:
        t = e.type
        if t is EventType.ROUND_START:
            broken = [[False] * 3 for _ in range(n)]
        elif t is EventType.TOOL_BROKEN:
            broken[e.data["target"]][e.data["tool"]] = True
        elif t is EventType.TOOL_REPAIRED:
            broken[e.data["target"]][e.data["tool"]] = False
        elif t is EventType.ROUND_END:
            out[e.data["round"]] = [any(b) for b in broken]
    return out


def _sample_gold(g: Game, game: Game, seat: int | None, rng: np.random.Generator) -> None:
    """Resample the other players' gold cards and the supply of ``g`` (a copy of ``game``)
    by rejection: random orders of the whole supply, the past rounds' payouts replayed on
    each (:func:`determinize`)."""
    n, rounds = game.n, game.round_results
    payout = game.rules.card_payout
    assert payout is not None  # the caller asked the ruleset
    if game.config.broken_tool_forfeit:
        at_end = _broken_at_round_ends(game.events, n)
        forfeits: list[Sequence[bool]] = [at_end[r.round] for r in rounds]
    else:
        forfeits = [()] * len(rounds)
    plays: list[_Round] = [
        (r.gold_found, r.connector, r.roles, r.last_card_seat, f) for r, f in zip(rounds, forfeits)
    ]
    own = None if seat is None else [int(r.received[seat]) for r in rounds]
    own_cards = None if seat is None else game.gold_cards[seat].tolist()
    left = len(game.nuggets)
    totals = game.gold.tolist() if game.game_over else None
    tried, batch = 0, _FIRST_BATCH
    while tried < MAX_SUPPLY_ORDERS:
        batch = min(batch, MAX_SUPPLY_ORDERS - tried)
        tried += batch
        supply = np.broadcast_to(NUGGET_SUPPLY, (batch, len(NUGGET_SUPPLY)))
        for order in rng.permuted(supply, axis=1).tolist():
            paid = _replay(payout, order, plays, seat, own)
            if paid is None or len(order) != left:
                continue
            cards = [[0, 0, 0] for _ in range(n)]
            for round_paid in paid:
                for s, v in round_paid:
                    cards[s][v - 1] += 1
            if seat is not None and cards[seat] != own_cards:
                continue
            gold = [c[0] + 2 * c[1] + 3 * c[2] for c in cards]
            if totals is not None and gold != totals:
                continue
            g.gold_cards = np.array(cards, dtype=np.int64).reshape(n, 3)
            g.gold = np.array(gold, dtype=np.int64)
            g.nuggets = np.array(order, dtype=np.int8)
            g.round_results = [_with_payout(r, p, n) for r, p in zip(rounds, paid)]
            return
        batch = min(2 * batch, _LAST_BATCH)
    who = "a spectator" if seat is None else f"seat {seat}"
    raise DeterminizeError(
        f"no order of the gold supply in {MAX_SUPPLY_ORDERS} tries pays {who} what it was "
        f"paid in rounds 1-{len(rounds)} (RULES 5.2, 5.3)"
    )


def _replay(
    payout: Callable[..., list[tuple[int, int]]],
    order: list[int],
    plays: list[_Round],
    seat: int | None,
    own: list[int] | None,
) -> list[list[tuple[int, int]]] | None:
    """The cards each past round pays (``payout``: the ruleset's ``card_payout``) from the
    supply ``order`` (changed: what is left), or ``None`` as soon as a round pays ``seat``
    other than ``own[round]``."""
    out = []
    for r, (found, connector, roles, last, forfeit) in enumerate(plays):
        paid = payout(order, found, connector, roles, last, forfeit)
        if own is not None and sum(v for s, v in paid if s == seat) != own[r]:
            return None
        out.append(paid)
    return out


def _with_payout(result: RoundResult, paid: list[tuple[int, int]], n: int) -> RoundResult:
    """``result`` with the gold each seat received (``received``, ``paid``) from ``paid``."""
    got = [0] * n
    for s, v in paid:
        got[s] += v
    return replace(result, received=got, paid=list(got))
