"""Sampling a full state consistent with what one seat knows, for information-set search
(DESIGN 2).

What a seat knows: the public state and history, its own hand, role, face-down discards, map
results and inspection results (RULES 3.5, 3.6, 6.5).  The hidden cards, roles and goals are
resampled; the other players' gold is kept as it is (in the base game it is secret, RULES 5.3,
but how much each side won is public, so a resample would need the round history).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .actions.family import is_int

if TYPE_CHECKING:
    from .state import Game


def determinize(game: Game, seat: int | None, rng: np.random.Generator) -> Game:
    """A copy of ``game`` with every card, role and goal that ``seat`` cannot see resampled
    (``seat=None``: a spectator, who sees only what is public).

    Reshuffled together, keeping every count that is public: the other players' hands (their
    sizes kept), their face-down discards (how many each discarded kept, RULES 3.6), the draw
    pile and the cards removed unseen (RULES 6.6).  The roles of the other players are
    reshuffled with the dwarf cards aside and those discarded by Swap your hats, except the
    roles ``seat`` has inspected with no Swap your hats on that player since (RULES 6.5) and the
    seat's own cards that Swap your hats discarded (an inspector's knowledge of a discarded
    card is not used); the
    identities of the goals ``seat`` has not seen are permuted (who mapped which goal is public,
    so those players keep knowing the goal, now the resampled one); the gold supply is
    reshuffled.  Other seats' private events are dropped from the copy's history and their
    inspection results forgotten (they were drawn from the old hidden state).  The copy's own
    generator is replaced by one drawn from ``rng``.  (What ``seat`` knows of a hand it gave
    away with Swap your hand is not used.)  Each hidden pool is sorted before it is shuffled,
    so two states that ``seat`` cannot tell apart give the same sample for the same ``rng``
    state (what an information-set search needs: ``saboteur_agents.ismcts``).

    A spectator (``seat=None``) knows no hand, role, face-down discard or map result: every
    hand is resampled (sizes kept), every role, and every goal not revealed on the board; only
    public events stay in the copy's history.  As for a seat, every player's gold is kept as it
    is (secret in the base game, RULES 5.3, though the round results show what each side won).

    Args:
        game: the state; not changed.
        seat: the seat whose knowledge is kept, or ``None`` for a spectator.
        rng: the generator for the resampling.

    Returns:
        A new :class:`~.state.Game`.

    Raises:
        ValueError: ``seat`` is neither ``None`` nor a seat in play.  TypeError: ``rng`` is not
            a Generator.
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

    known = (
        []
        if seat is None
        else [
            s
            for s in others
            if g.inspected[seat, s] >= 0 and g.inspected_swaps[seat, s] == g.hat_swaps[s]
        ]
    )
    free = [s for s in others if s not in known]
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
    g.nuggets = rng.permutation(np.sort(g.nuggets))
    viewer = None if seat is None else int(seat)
    g.events = [e for e in g.events if e.seen_by(viewer)]
    g.rng = np.random.default_rng(int(rng.integers(2**63)))
    return g
