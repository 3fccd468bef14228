"""Role decks, role assignments and the exact prior (RULES 2.2, 6.2).

The dwarf cards in play (:func:`role_deck`), every role assignment a shuffled deck can deal
(:func:`enumerate_assignments`, :func:`count_assignments`), the exact prior conditioned on the
observer's own role (:func:`exact_prior`), the chance of no saboteur (:func:`p_no_saboteur`) and
the feasible role counts (:func:`feasible_count_bounds`).

Roles, role decks, the saboteur and the gold-digger columns come from ``config.ruleset``
(:class:`saboteur_env.engine.ruleset.Ruleset`).  Where a card can redeal a role mid-round
(:func:`roles_change`: Swap your hats, RULES 6.5) the prior is counted from the deck, whose
cards are exchangeable (no enumeration: 12 seats x 6 roles are too many assignments, and the
observer's discarded cards condition it); otherwise it is exact by enumeration.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import lgamma

import numpy as np

from saboteur_agents.heuristic.belief import (
    role_deck,  # the beliefs the heuristic and detectors share
)
from saboteur_env.engine.cards import KIND_INDEX
from saboteur_env.engine.config import GameConfig


# --- role assignments (RULES 2.2) -----------------------------------------------------
def roles_change(config: GameConfig) -> bool:
    """Whether a role can change mid-round in ``config``'s game: its deck holds Swap your hats
    cards (RULES 6.5; Saboteur 2, not the base game)."""
    rules = config.ruleset
    k = KIND_INDEX["swap_hats"]
    return k < rules.n_kinds and bool(rules.deck[k] > 0)


def enumerate_assignments(n: int, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every role assignment to ``n`` seats that a shuffled role deck ``counts`` can deal.

    Returns:
        ``(R, logp)``: int8 ``(k, n)`` the role of each seat in each assignment, and float64
        ``(k,)`` the log prior probability of each (they sum to 1 in probability space).  A
        deal takes ``n`` of the shuffled cards and sets the rest aside, so an assignment whose
        leftover multiset is ``rem`` has probability proportional to ``1 / prod(rem_r!)``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    out: list[tuple[int, ...]] = []
    cur = [0] * n
    left = counts.copy()

    def rec(i: int) -> None:
        if i == n:
            out.append(tuple(cur))
            return
        for r in range(len(counts)):
            if left[r]:
                left[r] -= 1
                cur[i] = r
                rec(i + 1)
                left[r] += 1

    rec(0)
    R = np.array(out, dtype=np.int8).reshape(len(out), n)
    used = np.stack([(R == r).sum(axis=1) for r in range(len(counts))], axis=1)
    rem = counts[None, :] - used
    logw = -np.array([sum(lgamma(x + 1) for x in row) for row in rem])
    logw -= np.logaddexp.reduce(logw)
    return R, logw


class _Assignments:
    """Cache of :func:`enumerate_assignments` per (n, role deck)."""

    _cache: dict = {}
    _plain: dict = {}

    @classmethod
    def enumerated(cls, n: int, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``enumerate_assignments(n, counts)``, cached (read-only arrays)."""
        key = (n, tuple(np.asarray(counts).tolist()))
        if key not in cls._plain:
            R, logp = enumerate_assignments(n, np.asarray(counts))
            R.flags.writeable = logp.flags.writeable = False
            cls._plain[key] = (R, logp)
        return cls._plain[key]

    @classmethod
    def get(cls, config: GameConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        counts = role_deck(config)
        key = (config.num_players, tuple(counts.tolist()))
        if key not in cls._cache:
            R, logp = enumerate_assignments(config.num_players, counts)
            onehot = np.eye(len(counts))[R].reshape(len(R), -1)  # (k, n * n_roles)
            cls._cache[key] = (R, logp, onehot)
        return cls._cache[key]


def marginals(R_onehot: np.ndarray, logw: np.ndarray, n: int) -> np.ndarray:
    """Marginal role probabilities (n, n_roles) of a weighted set of assignments."""
    w = np.exp(logw - logw.max())
    w /= w.sum()
    return (w @ R_onehot).reshape(n, -1)


def saboteur_index(config: GameConfig) -> int:
    """Column of the saboteur role (``config.ruleset.saboteur``): 1 in the base game, 5 in
    Saboteur 2."""
    return config.ruleset.saboteur


def digger_roles(config: GameConfig) -> tuple[int, ...]:
    """Columns of the gold-digger roles (``config.ruleset.diggers``): (0,) in the base game,
    green and blue in Saboteur 2."""
    return config.ruleset.diggers


def exact_prior(
    config: GameConfig,
    seat: int | None = None,
    own_role: int | None = None,
    held: Sequence[int] | None = None,
) -> np.ndarray:
    """The exact prior belief (n_players, n_roles): RULES 2.2 conditioned on the observer's role.

    ``seat``/``own_role`` ``None``: a spectator (no conditioning).

    Roles that change mid-round (:func:`roles_change`; Saboteur 2, RULES 6.2, 6.5): no
    enumeration (12 seats x 6 roles is too many assignments); the dwarf cards are
    exchangeable, so a spectator's marginal of every seat is the deck's counts / 15, whatever
    Swap your hats did (a swapped-in card is one more uniformly drawn card).
    In-seat, every other seat's marginal is the deck less the cards the observer knows are not
    theirs: ``held`` (every role the observer held this round, the current one last; default
    ``[own_role]``; a Swap your hats on the observer discards its old card) over what is left.
    """
    if roles_change(config):
        counts = role_deck(config).astype(float)
        n = config.num_players
        if seat is None or own_role is None:
            return np.tile(counts / counts.sum(), (n, 1))
        rest = counts.copy()
        for r in held or [own_role]:
            rest[int(r)] -= 1
        out = np.tile(rest / rest.sum(), (n, 1))
        out[seat] = np.eye(len(counts))[own_role]
        return out
    R, logp, oh = _Assignments.get(config)
    if seat is not None and own_role is not None:
        logp = np.where(R[:, seat] == own_role, logp, -np.inf)
    return marginals(oh, logp, config.num_players)


def p_no_saboteur(
    config: GameConfig, seat: int | None = None, own_role: int | None = None
) -> float:
    """Probability that no saboteur is in play at the deal (RULES 2.2: 1/4 at 3 players, 1/5
    at 4), for a spectator or conditioned on the observer's own role.

    Saboteur 2 (RULES 6.2): no saboteur among the cards dealt from the 15-card dwarf deck,
    hypergeometric (no enumeration): ``C(12, n) / C(15, n)`` for a spectator, 0 for a saboteur
    observer, ``C(11, n - 1) / C(14, n - 1)`` for any other observer (before any Swap your
    hats)."""
    sab = config.ruleset.saboteur
    if roles_change(config):
        from math import comb

        counts = role_deck(config)
        total, k = int(counts.sum()), config.num_players
        if seat is not None and own_role is not None:
            if int(own_role) == sab:
                return 0.0
            total, k = total - 1, k - 1
        return comb(total - int(counts[sab]), k) / comb(total, k)
    R, logp, _ = _Assignments.get(config)
    if seat is not None and own_role is not None:
        logp = np.where(R[:, seat] == own_role, logp, -np.inf)
    w = np.exp(logp - logp.max())
    w /= w.sum()
    return float(w[(R == sab).sum(axis=1) == 0].sum())


def feasible_count_bounds(
    config: GameConfig, seat: int | None = None, own_role: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest number of players holding each role over every possible assignment
    (conditioned on the observer's role): int ``(n_roles,)`` each.

    Roles that change mid-round (:func:`roles_change`; Saboteur 2): counted from the deck
    (the observer's seat holds ``own_role``, the other ``n - 1`` seats take any of the other
    14 cards); after a Swap your hats on the observer these bounds are slightly looser than the
    exact ones (its discarded card is not removed).
    """
    if roles_change(config):
        counts = role_deck(config)
        n, others = config.num_players, counts.copy()
        own = np.zeros_like(counts)
        m = n
        if seat is not None and own_role is not None:
            own[own_role] = 1
            others[own_role] -= 1
            m = n - 1
        total = int(others.sum())
        lo = np.maximum(0, m - (total - others)) + own
        hi = np.minimum(others, m) + own
        return lo, hi
    R, logp, _ = _Assignments.get(config)
    ok = np.ones(len(R), bool)
    if seat is not None and own_role is not None:
        ok = R[:, seat] == own_role
    cnt = np.stack([(R[ok] == r).sum(axis=1) for r in range(role_deck(config).size)], axis=1)
    return cnt.min(axis=0), cnt.max(axis=0)


def count_assignments(n: int, counts: np.ndarray) -> int:
    """How many role assignments to ``n`` seats the role deck ``counts`` can deal (the number
    of rows :func:`enumerate_assignments` would give), without enumerating them:
    ``n! [x^n] prod_r sum_{j <= counts_r} x^j / j!``.  Saboteur 2 (RULES 6.2): 4,580 at 5
    players, 21,270 at 6, 93,590 at 7."""
    from fractions import Fraction
    from math import factorial

    poly = [Fraction(1)]
    for c in np.asarray(counts, dtype=np.int64).tolist():
        nxt = [Fraction(0)] * min(len(poly) + c, n + 1)
        for i, a in enumerate(poly):
            for j in range(c + 1):
                if i + j <= n:
                    nxt[i + j] += a / factorial(j)
        poly = nxt
    return int(poly[n] * factorial(n)) if n < len(poly) else 0
