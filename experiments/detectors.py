"""Bluff-detection detectors: the protocol and the baseline detectors.

A **detector** watches one game and says, at any moment, how likely each player is to hold each
role.  The protocol (DESIGN 6)::

    det.reset(seat, config, own_role)   # seat=None: spectator; own_role None for a spectator
    det.observe(event)                  # every event the track allows, in order
    det.belief() -> float array (n_players, n_roles), every row summing to 1

Roles are redealt every round (RULES 2.4, 5.4): a ``round_start`` event starts a new round and
detectors forget the last round's evidence; an in-seat detector learns its new role from its
private ``role_dealt`` event.  The role dimension is generic (``n_roles`` columns, the role
deck given by :func:`role_deck`), so the expansion's roles slot in; the base game has two
columns, ``GOLD_DIGGER`` (0) and ``SABOTEUR`` (1).

Baselines:

* :class:`UniformDetector`: every row uniform over the roles.
* :class:`PriorDetector`: the exact prior, by enumeration of every role assignment the role deck
  allows (RULES 2.2: one more dwarf card than players, the extra set aside), conditioned on the
  observer's own role.
* :class:`BayesDetector`: exact enumeration over role assignments, each public event multiplying
  every assignment by a documented likelihood (see :data:`DEFAULT_CATEGORY_PROBS` and
  :data:`DEFAULT_TARGET_RATIOS`); :meth:`BayesDetector.fit` sets them by maximum likelihood.
  Saboteur 2: the same over the 15-card dwarf deck (:class:`RoleAssignments`: exact up to 6
  players, seeded particles with resample-move beyond; Swap your hats redraws the target's
  role from each assignment's undealt cards), events in :data:`X_CATEGORIES` with the hand-set
  :data:`X_DEFAULT_CATEGORY_PROBS` and :data:`X_DEFAULT_TARGET_RATIOS`.
* :class:`LogisticDetector`: multinomial logistic regression on per-player public-history
  features (numpy), temperature-calibrated on a validation split.
* :class:`AgentBeliefDetector`: an agent's own ``belief()`` (e.g. the heuristic agent), in-seat
  only.
* :class:`OracleDetector`: knows the true roles (tests: it must score skill 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import lgamma

import numpy as np

from saboteur_env.engine.cards import (
    CARD_KINDS,
    EXPANSION_ROLES,
    GOAL_CELLS,
    GOLD_DIGGER,
    ROLE_TABLE_PUBLISHED,
    ROLE_TABLE_SEED,
    ROLES_S2,
    SABOTEUR,
    X_SABOTEUR,
)
from saboteur_env.engine.config import GameConfig

ROLE_NAMES = ("gold-digger", "saboteur")
N_ROLES = len(ROLE_NAMES)
GOAL_X = GOAL_CELLS[0][0]


# --- role assignments (RULES 2.2) -----------------------------------------------------
def role_deck(config: GameConfig) -> np.ndarray:
    """The dwarf cards in play for ``config``: int64 ``(n_roles,)`` card counts per role.

    Base game (RULES 2.2): ``role_table="published"`` uses one more card than players, the
    extra one set aside; ``"seed"`` exactly as many (10 players: 10 of the 11 cards).
    Expansion (RULES 6.2): the 15 Saboteur 2 dwarf cards (4/4/1/1/2/3 in the order of
    ``cards.EXPANSION_ROLES``), all used whatever the player count, one dealt to each player
    and the rest set aside (drawn by Swap your hats).
    """
    if getattr(config, "expansion", False):
        return np.array([ROLES_S2[r] for r in range(len(EXPANSION_ROLES))], dtype=np.int64)
    table = ROLE_TABLE_PUBLISHED if config.role_table == "published" else ROLE_TABLE_SEED
    sab, dig = table[config.num_players]
    counts = np.zeros(N_ROLES, dtype=np.int64)
    counts[GOLD_DIGGER], counts[SABOTEUR] = dig, sab
    return counts


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
    """Column of the saboteur role: 1 in the base game, 5 in the expansion."""
    return X_SABOTEUR if getattr(config, "expansion", False) else SABOTEUR


def digger_roles(config: GameConfig) -> tuple[int, ...]:
    """Columns of the gold-digger roles: (0,) in the base game, green and blue in the
    expansion."""
    return (0, 1) if getattr(config, "expansion", False) else (GOLD_DIGGER,)


def exact_prior(config: GameConfig, seat: int | None = None, own_role: int | None = None,
                held: Sequence[int] | None = None) -> np.ndarray:
    """The exact prior belief (n_players, n_roles): RULES 2.2 conditioned on the observer's role.

    ``seat``/``own_role`` ``None``: a spectator (no conditioning).

    Expansion (RULES 6.2): no enumeration (12 seats x 6 roles is too many assignments); the
    dwarf cards are exchangeable, so a spectator's marginal of every seat is the deck's counts
    / 15, whatever Swap your hats did (a swapped-in card is one more uniformly drawn card).
    In-seat, every other seat's marginal is the deck less the cards the observer knows are not
    theirs: ``held`` (every role the observer held this round, the current one last; default
    ``[own_role]``; a Swap your hats on the observer discards its old card) over what is left.
    """
    if getattr(config, "expansion", False):
        counts = role_deck(config).astype(float)
        n = config.num_players
        if seat is None or own_role is None:
            return np.tile(counts / counts.sum(), (n, 1))
        rest = counts.copy()
        for r in (held or [own_role]):
            rest[int(r)] -= 1
        out = np.tile(rest / rest.sum(), (n, 1))
        out[seat] = np.eye(len(counts))[own_role]
        return out
    R, logp, oh = _Assignments.get(config)
    if seat is not None and own_role is not None:
        logp = np.where(R[:, seat] == own_role, logp, -np.inf)
    return marginals(oh, logp, config.num_players)


def p_no_saboteur(config: GameConfig, seat: int | None = None, own_role: int | None = None
                  ) -> float:
    """Probability that no saboteur is in play at the deal (RULES 2.2: 1/4 at 3 players, 1/5
    at 4), for a spectator or conditioned on the observer's own role.

    Saboteur 2 (RULES 6.2): no saboteur among the cards dealt from the 15-card dwarf deck,
    hypergeometric (no enumeration): ``C(12, n) / C(15, n)`` for a spectator, 0 for a saboteur
    observer, ``C(11, n - 1) / C(14, n - 1)`` for any other observer (before any Swap your
    hats)."""
    if getattr(config, "expansion", False):
        from math import comb
        counts = role_deck(config)
        total, k = int(counts.sum()), config.num_players
        if seat is not None and own_role is not None:
            if int(own_role) == X_SABOTEUR:
                return 0.0
            total, k = total - 1, k - 1
        return comb(total - int(counts[X_SABOTEUR]), k) / comb(total, k)
    R, logp, _ = _Assignments.get(config)
    if seat is not None and own_role is not None:
        logp = np.where(R[:, seat] == own_role, logp, -np.inf)
    w = np.exp(logp - logp.max())
    w /= w.sum()
    return float(w[(R == SABOTEUR).sum(axis=1) == 0].sum())


def feasible_count_bounds(config: GameConfig, seat: int | None = None,
                          own_role: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest number of players holding each role over every possible assignment
    (conditioned on the observer's role): int ``(n_roles,)`` each.

    Expansion: counted from the deck (the observer's seat holds ``own_role``, the other
    ``n - 1`` seats take any of the other 14 cards); after a Swap your hats on the observer
    these bounds are slightly looser than the exact ones (its discarded card is not removed).
    """
    if getattr(config, "expansion", False):
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


class RoleAssignments:
    """A weighted set of Saboteur 2 role assignments, exact or sampled (RULES 6.2, 6.5, 7.21).

    The 15 dwarf cards are one shuffled sequence: positions ``0..n-1`` are dealt to seats
    ``0..n-1``, the rest lie aside in the order Swap your hats draws them.  ``pos`` int
    ``(n,)`` says which position each seat's current card came from: a Swap your hats on seat
    ``t`` discards its card unseen (out for the round, RULES 7.21) and gives it the next
    undealt position.  Evidence is kept per position: a factor on a seat's role adds to
    ``G`` float64 ``(15, n_roles)`` at that seat's current position, a factor on an
    (actor, target) pair to ``H`` ``(15, 15, n_roles, n_roles)``, so the log-likelihood of a
    whole deck order is ``sum_p G[p, s_p] + sum_{p,q} H[p, q, s_p, s_q]``.

    * **Exact** when the deck allows at most ``max_exact`` assignments to the seats
      (:func:`count_assignments`: up to 6 players): members are the current roles
      ``R`` int8 ``(k, n)`` and the discarded cards ``D`` int16 ``(k, n_roles)``, every
      assignment with its exact prior weight (:func:`enumerate_assignments`).  A Swap your hats
      on seat ``t`` replaces every member by one member per role ``r`` among its undealt cards
      ``L = deck - R - D``, weight times ``L_r / sum(L)``, the old role added to ``D``; equal
      states are merged (weights added).  Should the set grow beyond ``max_states`` it turns
      into the sampled form.
    * **Sampled** otherwise: ``particles`` whole deck orders drawn (seeded) from the exact prior
      (a uniform shuffle of the deck: importance sampling with the prior as proposal, every
      particle starting with the same weight), weighted by the evidence; Swap your hats needs
      no draw (the next position is already in each particle).  When the effective sample size
      falls below half the particles they are resampled (systematic) and moved by ``moves``
      Metropolis-Hastings steps that swap two positions' cards (the prior is uniform over deck
      orders, so the acceptance ratio is the likelihood ratio), which keeps the set from
      collapsing onto a few assignments as evidence piles up.

    :meth:`fix` conditions on a seat's current card (the observer's own card, an Inspection
    result): exact members that disagree are dropped; in the sampled form the position is
    pinned (moves never touch it), disagreeing particles get weight 0, and if none agrees the
    set is redrawn from the prior with every pinned position fixed.  Evidence no deal can
    produce (two roles for one card, more pinned cards of a role than the deck holds; never
    with true events) empties the set for the rest of the round: :meth:`marginals` is then
    ``None`` (:class:`BayesDetector` falls back on the exact prior).  Otherwise
    :meth:`marginals` is a mixture of assignments the deck allows, so it is always a feasible
    set of marginals.

    Args:
        counts: int ``(n_roles,)`` the dwarf cards per role (:func:`role_deck`).
        n: the number of seats.
        max_exact: largest number of assignments enumerated exactly (0: always sampled).
        particles: sample size of the sampled form.
        seed: seeds the sampled form (with the number of rounds started).
        moves: Metropolis-Hastings steps per resampling.
        max_states: largest exact set kept after Swap your hats.
    """

    def __init__(self, counts, n: int, *, max_exact: int = 50_000, particles: int = 4096,
                 seed: int = 0, moves: int = 20, max_states: int = 400_000) -> None:
        self.counts = np.asarray(counts, dtype=np.int64)
        self.n, self.n_roles, self.m = n, len(self.counts), int(self.counts.sum())
        self.max_exact, self.particles, self.seed = max_exact, particles, seed
        self.moves, self.max_states = moves, max_states
        self.exact_possible = count_assignments(n, self.counts) <= max_exact
        self.starts = 0
        #: how many times the sampled set was resampled (and moved) this round
        self.resamples = 0

    # --- building ---------------------------------------------------------------------
    def start(self, fixed: Sequence[tuple[int, int]] = ()) -> None:
        """A new round: the prior, conditioned on ``fixed`` ``(seat, role)`` pairs."""
        self.starts += 1
        self.rng = np.random.default_rng([self.seed, self.starts])
        self.pos = np.arange(self.n)
        self.swaps = 0
        self.G = np.zeros((self.m, self.n_roles))
        self.H = np.zeros((self.m, self.m, self.n_roles, self.n_roles))
        self.pairs: set[tuple[int, int]] = set()
        self.pinned: dict[int, int] = {}
        #: evidence that no deal can produce was seen this round (the set stays empty)
        self.contradicted = False
        self.resamples = 0
        self.exact = self.exact_possible
        if self.exact:
            R, logp = _Assignments.enumerated(self.n, self.counts)
            self.R, self.logw = R, logp.copy()
            self.D = np.zeros((len(R), self.n_roles), dtype=np.int16)
            for seat, role in fixed:
                self.fix(seat, role)
        else:
            for seat, role in fixed:
                self.pinned.setdefault(int(seat), int(role))  # seat s deals position s
            self._draw()

    def _draw(self) -> None:
        """Sampled form: ``particles`` deck orders from the prior with the pinned positions
        fixed, weighted by the whole round's evidence."""
        self.exact = False
        K = self.particles
        rest = self.counts.copy()
        for role in self.pinned.values():
            rest[role] -= 1
        free = [p for p in range(self.m) if p not in self.pinned]
        S = np.zeros((K, self.m), dtype=np.int8)
        for p, role in self.pinned.items():
            S[:, p] = role
        self.S = S
        if self.contradicted or (rest < 0).any():
            # contradictory pins (never with true events): an empty set
            self.logw = np.full(K, -np.inf)
            return
        deck = np.repeat(np.arange(self.n_roles, dtype=np.int8), rest)
        S[:, free] = self.rng.permuted(np.tile(deck, (K, 1)), axis=1)
        self.logw = self.loglik(S)
        self._maybe_resample()

    def loglik(self, S: np.ndarray) -> np.ndarray:
        """Log-likelihood float64 ``(K,)`` of this round's evidence for deck orders ``S`` int8
        ``(K, 15)``."""
        ll = self.G[np.arange(self.m)[None, :], S].sum(axis=1)
        if self.pairs:
            P = np.array(sorted(self.pairs))
            Hs = self.H[P[:, 0], P[:, 1]]
            ll = ll + Hs[np.arange(len(P))[None, :], S[:, P[:, 0]], S[:, P[:, 1]]].sum(axis=1)
        return ll

    def _maybe_resample(self) -> None:
        w = np.exp(self.logw - self.logw.max()) if np.isfinite(self.logw.max()) else None
        if w is None:
            return
        if w.sum() ** 2 / (w ** 2).sum() >= 0.5 * len(w):
            return
        self.resamples += 1
        K = len(w)
        cdf = np.cumsum(w / w.sum())
        idx = np.searchsorted(cdf, (self.rng.random() + np.arange(K)) / K)
        S = self.S[np.minimum(idx, K - 1)]
        free = np.array([p for p in range(self.m) if p not in self.pinned])
        ll = self.loglik(S)
        rows = np.arange(K)
        for _ in range(self.moves if len(free) > 1 else 0):
            ij = np.sort(self.rng.random((K, len(free))).argsort(axis=1)[:, :2], axis=1)
            i, j = free[ij[:, 0]], free[ij[:, 1]]
            T = S.copy()
            T[rows, i], T[rows, j] = S[rows, j], S[rows, i]
            llt = self.loglik(T)
            ok = np.log(self.rng.random(K)) < llt - ll
            S[ok], ll[ok] = T[ok], llt[ok]
        self.S, self.logw = S, np.zeros(K)

    # --- evidence -----------------------------------------------------------------------
    def factor(self, seat: int, logf: np.ndarray) -> None:
        """Multiply every member by ``exp(logf[role of seat])``; ``logf`` float ``(n_roles,)``."""
        logf = np.asarray(logf, float)
        p = int(self.pos[seat])
        self.G[p] += logf
        if self.exact:
            self.logw = self.logw + logf[self.R[:, seat]]
        else:
            self.logw = self.logw + logf[self.S[:, p]]
            self._maybe_resample()

    def pair(self, a: int, t: int, logf: np.ndarray) -> None:
        """Multiply by ``exp(logf[role of a, role of t])``; ``logf`` ``(n_roles, n_roles)``."""
        logf = np.asarray(logf, float)
        pa, pt = int(self.pos[a]), int(self.pos[t])
        if pa == pt:
            self.G[pa] += np.diag(logf)
        else:
            self.H[pa, pt] += logf
            self.pairs.add((pa, pt))
        if self.exact:
            self.logw = self.logw + logf[self.R[:, a], self.R[:, t]]
        else:
            self.logw = self.logw + logf[self.S[:, pa], self.S[:, pt]]
            self._maybe_resample()

    def swap(self, t: int) -> None:
        """Swap your hats on seat ``t`` (RULES 6.5, 7.21): its card is discarded unseen and
        a replacement drawn from the cards not dealt this round."""
        if self.n + self.swaps >= self.m:
            raise ValueError("Swap your hats with no dwarf card left to draw (RULES 7.21)")
        self.pos[t] = self.n + self.swaps
        self.swaps += 1
        if self.exact:
            self._swap_exact(t)
            if len(self.R) > self.max_states:
                self._draw()

    def fix(self, seat: int, role: int) -> None:
        """Condition on ``seat`` holding ``role`` now (own card, Inspection result)."""
        p, role = int(self.pos[seat]), int(role)
        clash = self.pinned.setdefault(p, role) != role
        self.contradicted |= clash
        if clash and not self.exact:
            # contradicts what is known of that card (never with true events): an empty set
            self.logw = np.full(len(self.logw), -np.inf)
            return
        if self.exact:
            keep = (self.R[:, seat] == role) & (not clash)
            self.R, self.D, self.logw = self.R[keep], self.D[keep], self.logw[keep]
            return
        bad = self.S[:, p] != role
        if bad.all():
            self._draw()
            return
        self.logw = np.where(bad, -np.inf, self.logw)
        self._maybe_resample()

    def _swap_exact(self, t: int) -> None:
        if not len(self.R):  # an empty set (contradictory evidence) stays empty
            return
        used = (self.R[:, :, None] == np.arange(self.n_roles)).sum(axis=1)
        L = self.counts[None, :] - used - self.D
        tot = L.sum(axis=1)
        old = self.R[:, t].astype(np.int64)
        Rs, Ds, ws = [], [], []
        for r in range(self.n_roles):
            m = L[:, r] > 0
            if not m.any():
                continue
            R2, D2 = self.R[m].copy(), self.D[m].copy()
            R2[:, t] = r
            D2[np.arange(len(D2)), old[m]] += 1
            Rs.append(R2)
            Ds.append(D2)
            ws.append(self.logw[m] + np.log(L[m, r] / tot[m]))
        R, D, logw = np.concatenate(Rs), np.concatenate(Ds), np.concatenate(ws)
        # merge equal states: key = roles in base n_roles, then discards in base 5 (<= 4 each)
        key = np.zeros(len(R), dtype=np.int64)
        for j in range(self.n):
            key = key * self.n_roles + R[:, j]
        for r in range(self.n_roles):
            key = key * 5 + D[:, r]
        uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
        top = logw.max()
        w = np.bincount(inv, weights=np.exp(logw - top), minlength=len(uniq))
        with np.errstate(divide="ignore"):
            self.R, self.D, self.logw = R[first], D[first], np.log(w) + top

    # --- reading ------------------------------------------------------------------------
    def current(self) -> np.ndarray:
        """The members' current roles: int8 ``(k, n)``."""
        return self.R if self.exact else self.S[:, self.pos]

    def marginals(self) -> np.ndarray | None:
        """Role marginals float64 ``(n, n_roles)``, rows summing to 1; ``None`` if no member
        has a positive weight (evidence that no assignment can produce)."""
        if not len(self.logw):
            return None
        top = self.logw.max()
        if not np.isfinite(top):
            return None
        w = np.exp(self.logw - top)
        w /= w.sum()
        R = self.current()
        return np.stack([np.bincount(R[:, j], weights=w, minlength=self.n_roles)
                         for j in range(self.n)])

    @property
    def size(self) -> int:
        """Number of members (assignments or particles)."""
        return len(self.logw)

    def ess(self) -> float:
        """Effective sample size of the weights (the number of members when all are equal)."""
        w = np.exp(self.logw - self.logw.max())
        return float(w.sum() ** 2 / (w ** 2).sum())


# --- the protocol ---------------------------------------------------------------------
class Detector:
    """Base class of the detector protocol (see the module docstring)."""

    name = "detector"
    #: tracks it may run on: "spectator" (public events only) and/or "in-seat"
    tracks: tuple[str, ...] = ("spectator", "in-seat")

    def reset(self, seat: int | None, config: GameConfig, own_role: int | None) -> None:
        self.seat, self.config, self.own_role = seat, config, own_role
        self.n = config.num_players
        self.n_roles = role_deck(config).size
        #: every role the observer held this round (several after a Swap your hats on it)
        self.held = [] if own_role is None else [int(own_role)]
        self.new_round()

    def new_round(self) -> None:
        """A round starts (roles redealt): forget the evidence of the last round."""

    def role_changed(self) -> None:
        """Expansion: a Swap your hats gave the observer a new role (``own_role``, also last in
        ``held``) mid-round; the round's evidence stays (override to re-condition)."""

    def observe(self, event) -> None:
        if event.type == "round_start":
            self.held = []
            self.new_round()
        elif event.type == "role_dealt" and self.seat is not None and event.seat == self.seat:
            self.own_role = int(event.data["role"])
            if event.data.get("swapped"):
                self.held.append(self.own_role)
                self.role_changed()
            else:
                self.held = [self.own_role]
                self.new_round()
        else:
            self.update(event)

    def update(self, event) -> None:
        """Any other event (override)."""

    def belief(self) -> np.ndarray:
        raise NotImplementedError


class UniformDetector(Detector):
    """Every row uniform over the roles (the observer's own row too)."""

    name = "uniform"

    def belief(self) -> np.ndarray:
        return np.full((self.n, self.n_roles), 1.0 / self.n_roles)


class PriorDetector(Detector):
    """The exact prior (RULES 2.2 role table with one card set aside, own role conditioned)."""

    name = "prior"

    def new_round(self) -> None:
        self._b = exact_prior(self.config, self.seat, self.own_role, self.held)

    def role_changed(self) -> None:
        self.new_round()

    def belief(self) -> np.ndarray:
        return self._b.copy()


class OracleDetector(Detector):
    """Knows the true roles (for tests: it must score skill 1).

    Args:
        roles_by_round: the roles dealt in each round, ``(n_rounds, n)``.
        swaps_by_round: Saboteur 2 only: per round, the ``(seat, new role)`` of every Swap your
            hats in order (RULES 6.5); applied at each public ``action_played`` Swap your hats,
            so the belief follows the roles held at every moment.
    """

    name = "oracle"

    def __init__(self, roles_by_round: Sequence[Sequence[int]],
                 swaps_by_round: Sequence[Sequence[tuple[int, int]]] | None = None) -> None:
        self.roles_by_round = roles_by_round
        self.swaps_by_round = swaps_by_round

    def reset(self, seat, config, own_role) -> None:
        self.round = -1
        self.cur: list[int] | None = None
        super().reset(seat, config, own_role)

    def observe(self, event) -> None:
        if event.type == "round_start":
            self.round = int(event.data["round"])
            if self.swaps_by_round is not None:
                self.cur = list(self.roles_by_round[self.round])
                self._swaps = list(self.swaps_by_round[self.round])
        elif (self.cur is not None and event.type == "action_played"
              and event.data.get("card") == "swap_hats"):
            t, r = self._swaps.pop(0)
            self.cur[t] = r

    def belief(self) -> np.ndarray:
        r = np.asarray(self.cur if self.cur is not None
                       else self.roles_by_round[max(self.round, 0)])
        return np.eye(self.n_roles)[r]


# --- public-event categories -----------------------------------------------------------
#: what a public event says about its actor (and, for tools, its target)
CATEGORIES = ("path_advance", "path_other", "path_dead_end", "rockfall_dead_end",
              "rockfall_through", "map", "discard", "break", "repair_self", "repair_other")
CAT_INDEX = {c: i for i, c in enumerate(CATEGORIES)}
TARGETED = ("break", "repair_other")


class PublicTracker:
    """Turns public events into (actor, category, target) triples, keeping the little public
    state it needs (which maze cells hold tunnel cards: a through card that reaches a column
    further east than any before is ``path_advance``)."""

    def __init__(self) -> None:
        self.new_round()

    def new_round(self) -> None:
        self.cells: dict[tuple[int, int], int] = {}
        self.turn = 0

    def frontier(self) -> int:
        return max((x for x, _ in self.cells), default=0)

    def categorize(self, event) -> tuple[int, str, int] | None:
        t, d, a = event.type, event.data, event.seat
        if t == "path_placed":
            self.turn += 1
            dead = CARD_KINDS[d["kind"]].is_dead_end
            front = self.frontier()
            self.cells[(d["x"], d["y"])] = d["kind"]
            if dead:
                return a, "path_dead_end", -1
            return a, ("path_advance" if d["x"] > front and d["x"] < GOAL_X else "path_other"), -1
        if t == "rockfall":
            self.turn += 1
            self.cells.pop((d["x"], d["y"]), None)
            dead = CARD_KINDS[d["kind"]].is_dead_end
            return a, ("rockfall_dead_end" if dead else "rockfall_through"), -1
        if t == "map_played":
            self.turn += 1
            return a, "map", -1
        if t == "discarded":
            self.turn += 1
            return a, "discard", -1
        if t == "tool_broken":
            self.turn += 1
            return a, "break", int(d["target"])
        if t == "tool_repaired":
            self.turn += 1
            tg = int(d["target"])
            return (a, "repair_self", -1) if tg == a else (a, "repair_other", tg)
        return None


#: Hand-set likelihoods P(category | actor's role), rows gold-digger, saboteur.  Reasoning: a
#: gold-digger mostly extends the tunnel east, rarely plays a dead end or breaks a tunnel; a
#: saboteur plays dead ends, rockfalls on through cards and broken tools more often.
#: Ratio saboteur/gold-digger per category: advance 0.43, other 1.0, dead end 7.5, rockfall on a
#: dead end 0.4, rockfall on a through card 3.3, map 0.5, discard 1.0, break 1.8, repairs 1.0.
DEFAULT_CATEGORY_PROBS = np.array([
    [0.35, 0.15, 0.02, 0.05, 0.03, 0.10, 0.10, 0.10, 0.05, 0.05],
    [0.15, 0.15, 0.15, 0.02, 0.10, 0.05, 0.10, 0.18, 0.05, 0.05],
])
#: Hand-set target ratios f(actor role, target role) for targeted categories: how much more
#: likely the pair is than the base rate.  Breaking: a gold-digger breaks a saboteur's tool
#: (ratio 2) rather than a fellow digger's (0.5); a saboteur breaks a digger's (1.5), seldom a
#: fellow saboteur's (0.3).  Repairing someone else: friends repair friends (2, 2), rarely foes.
DEFAULT_TARGET_RATIOS = {
    "break": np.array([[0.5, 2.0], [1.5, 0.3]]),
    "repair_other": np.array([[2.0, 0.5], [0.5, 2.0]]),
}


# --- Saboteur 2 public-event categories (RULES 6.3-6.9) ---------------------------------
#: what a public Saboteur 2 event says about its actor (and, for the targeted ones, its
#: target).  Path cards by their most telling feature: a door (RULES 6.4: a team's doors keep
#: the other team from winning), a crystal (RULES 6.9: geologists are paid per crystal), a dead
#: end, else an advance of the tunnel front or another tunnel card; rockfalls by the card they
#: remove; one category per action card (RULES 6.5), split by self / other target where the
#: meaning differs; ``pass`` is one pass of 1-3 discards (RULES 6.7 option 4, one
#: ``pass_done`` event), ``remove`` discarding two cards (option 3) or a Hands off! on one's
#: own Theft, ``steal`` the round-end Theft victim (RULES 6.9).
X_CATEGORIES = (
    "path_advance", "path_other", "path_dead_end", "door_green", "door_blue", "crystal",
    "rockfall_dead_end", "rockfall_through", "rockfall_door_green", "rockfall_door_blue",
    "map", "pass", "remove", "break", "repair_self", "repair_other", "trapped", "free_self",
    "free_other", "theft", "hands_off", "inspection", "swap_hats_self", "swap_hats_other",
    "swap_hand", "steal")
X_CAT_INDEX = {c: i for i, c in enumerate(X_CATEGORIES)}
#: categories with a target factor ``f_c(actor role, target role)``: harmful ones (a player
#: hurts whom it takes for an enemy), helpful ones (it helps a friend) and the neutral ones
#: (inspection and swaps: factor 1 when hand-set, fitted like the others)
X_HARMFUL = ("break", "trapped", "hands_off", "swap_hats_other", "steal")
X_HELPFUL = ("repair_other", "free_other")
X_TARGETED = X_HARMFUL + X_HELPFUL + ("inspection", "swap_hand")


class XPublicTracker(PublicTracker):
    """:class:`PublicTracker` for Saboteur 2: public events -> ``(actor, category in
    X_CATEGORIES, target or -1)``; single ``discarded`` cards, ``front_removed``, goal reveals
    and the round end carry no category."""

    def categorize(self, event) -> tuple[int, str, int] | None:
        t, d, a = event.type, event.data, event.seat
        if t == "path_placed":
            self.turn += 1
            kind = CARD_KINDS[d["kind"]]
            front = self.frontier()
            self.cells[(d["x"], d["y"])] = d["kind"]
            if kind.door:
                return a, f"door_{kind.door}", -1
            if kind.crystals:
                return a, "crystal", -1
            if kind.is_dead_end:
                return a, "path_dead_end", -1
            return a, ("path_advance" if front < d["x"] < GOAL_X else "path_other"), -1
        if t == "rockfall":
            self.turn += 1
            self.cells.pop((d["x"], d["y"]), None)
            kind = CARD_KINDS[d["kind"]]
            if kind.door:
                return a, f"rockfall_door_{kind.door}", -1
            return a, ("rockfall_dead_end" if kind.is_dead_end else "rockfall_through"), -1
        if t in ("map_played", "tool_broken", "tool_repaired"):
            return super().categorize(event)  # the same cards and meaning as the base game
        if t in ("pass_done", "remove_started"):
            self.turn += 1
            return a, ("pass" if t == "pass_done" else "remove"), -1
        if t == "theft":
            return a, "steal", int(d["target"])
        if t == "action_played":
            self.turn += 1
            card, tg = d["card"], int(d["target"])
            if card == "theft":
                return a, "theft", -1
            if card in ("hands_off", "free_at_last", "swap_hats") and tg == a:
                return a, {"hands_off": "remove", "free_at_last": "free_self",
                           "swap_hats": "swap_hats_self"}[card], -1
            return a, {"free_at_last": "free_other", "swap_hats": "swap_hats_other"}.get(
                card, card), tg
        return None


#: Hand-set likelihoods P(category | role) for Saboteur 2, columns :data:`X_CATEGORIES`, rows
#: ``cards.EXPANSION_ROLES`` (green gold-digger, blue gold-digger, boss, profiteer, geologist,
#: saboteur): a base rate per category (a gold-digger's turn mix: mostly tunnel cards and
#: passes) times a role multiplier, each row normalised.  Reasoning per role (RULES 6.9):
#: the two digger teams dig for the gold, play their own colour's doors (never the other
#: team's) and rockfall the other team's doors; the boss and the profiteer win with either team,
#: so they dig but shun doors; a geologist is paid per crystal, not for the gold, so it places
#: crystal cards, digs little and passes a lot; a saboteur plays dead ends, rockfalls on
#: tunnel cards, broken tools and Trapped! (as in the base game, ratio about 2-8 against a
#: digger) and, being the target of the others' harm, repairs and frees itself more.
X_CATEGORY_TABLE = {
    # category:          (base rate, (green, blue, boss, profiteer, geologist, saboteur))
    "path_advance":        (0.17, (1.0, 1.0, 1.0, 1.0, 0.3, 0.4)),
    "path_other":          (0.25, (1.0, 1.0, 1.0, 1.0, 0.5, 0.8)),
    "path_dead_end":       (0.01, (1.0, 1.0, 1.0, 1.0, 2.0, 8.0)),
    "door_green":          (0.02, (2.0, 0.1, 0.3, 0.5, 0.5, 1.0)),
    "door_blue":           (0.02, (0.1, 2.0, 0.3, 0.5, 0.5, 1.0)),
    "crystal":             (0.08, (1.0, 1.0, 1.0, 1.0, 3.0, 0.6)),
    "rockfall_dead_end":   (0.01, (1.0, 1.0, 1.0, 1.0, 0.5, 0.3)),
    "rockfall_through":    (0.02, (0.7, 0.7, 0.7, 0.7, 1.0, 3.0)),
    "rockfall_door_green": (0.003, (0.2, 3.0, 1.0, 1.0, 0.5, 0.5)),
    "rockfall_door_blue":  (0.003, (3.0, 0.2, 1.0, 1.0, 0.5, 0.5)),
    "map":                 (0.07, (1.0, 1.0, 1.0, 1.0, 1.0, 0.6)),
    "pass":                (0.12, (1.0, 1.0, 1.0, 1.0, 3.0, 1.3)),
    "remove":              (0.02, (1.0, 1.0, 1.0, 1.0, 0.5, 1.5)),
    "break":               (0.04, (0.7, 0.7, 0.7, 0.8, 0.5, 2.0)),
    "repair_self":         (0.01, (1.0, 1.0, 1.0, 1.0, 0.5, 1.5)),
    "repair_other":        (0.01, (1.0, 1.0, 1.0, 1.0, 1.0, 0.7)),
    "trapped":             (0.02, (0.7, 0.7, 0.7, 0.8, 0.5, 2.0)),
    "free_self":           (0.004, (1.0, 1.0, 1.0, 1.0, 0.5, 1.5)),
    "free_other":          (0.004, (1.0, 1.0, 1.0, 1.0, 1.0, 0.7)),
    "theft":               (0.04, (1.0, 1.0, 1.0, 1.2, 1.2, 1.0)),
    "hands_off":           (0.015, (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
    "inspection":          (0.02, (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
    "swap_hats_self":      (0.002, (1.0, 1.0, 0.5, 1.0, 2.0, 2.0)),
    "swap_hats_other":     (0.006, (1.0, 1.0, 1.0, 1.0, 1.0, 1.5)),
    "swap_hand":           (0.004, (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
    "steal":               (0.02, (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
}
X_DEFAULT_CATEGORY_PROBS = np.array([[X_CATEGORY_TABLE[c][0] * X_CATEGORY_TABLE[c][1][r]
                                      for c in X_CATEGORIES] for r in range(6)])
X_DEFAULT_CATEGORY_PROBS /= X_DEFAULT_CATEGORY_PROBS.sum(axis=1, keepdims=True)
#: Who takes whom for a friend (+1), a rival (-0.5: the other digger team, RULES 6.9 doors) or
#: an enemy (-1), rows the actor's role, columns the target's, in ``EXPANSION_ROLES`` order.
#: The boss wins with either team; the profiteer with anyone and the geologist with nobody, so
#: their rows are neutral.
X_RELATION = np.array([
    # green blue boss  prof geol  sab
    [1.0, -0.5, 1.0, 0.0, 0.0, -1.0],   # green gold-digger
    [-0.5, 1.0, 1.0, 0.0, 0.0, -1.0],   # blue gold-digger
    [1.0, 1.0, 0.0, 0.0, 0.0, -1.0],    # boss
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],     # profiteer
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],     # geologist
    [-1.0, -1.0, -1.0, 0.0, 0.0, 1.0],  # saboteur
])
#: Hand-set target ratios for Saboteur 2, as in the base game: a harmful card goes to an enemy
#: (factor 2) rather than a friend (0.5), ``2 ** -relation``; a helpful one the other way,
#: ``2 ** relation``; Inspection and Swap your hand say nothing (1).
X_DEFAULT_TARGET_RATIOS = {
    **{c: 2.0 ** -X_RELATION for c in X_HARMFUL},
    **{c: 2.0 ** X_RELATION for c in X_HELPFUL},
    "inspection": np.ones((6, 6)),
    "swap_hand": np.ones((6, 6)),
}


def event_categories(config: GameConfig) -> tuple[PublicTracker, dict[str, int]]:
    """A fresh public-event tracker and the category index of ``config``'s game: base game
    :class:`PublicTracker` / :data:`CAT_INDEX`, Saboteur 2 :class:`XPublicTracker` /
    :data:`X_CAT_INDEX`."""
    if getattr(config, "expansion", False):
        return XPublicTracker(), X_CAT_INDEX
    return PublicTracker(), CAT_INDEX


class BayesDetector(Detector):
    """Bayesian inference over role assignments with per-event likelihoods.

    Every possible assignment of roles to seats (RULES 2.2, :func:`enumerate_assignments`)
    carries a log weight, starting at the exact prior conditioned on the observer's role.  A
    public event of category ``c`` by actor ``a`` (and target ``t``) multiplies each assignment
    ``rho`` by ``P(c | rho_a) * f_c(rho_a, rho_t)`` (the target factor only for
    :data:`TARGETED` categories).  The event model is a pseudo-likelihood: it ignores which
    actions were legal.  ``belief()`` is the exact posterior marginal of this model, so it is
    always a feasible set of marginals.

    **Saboteur 2** (``config.expansion``, RULES 6): the same model over the six roles of the
    15-card dwarf deck (RULES 6.2), with the categories :data:`X_CATEGORIES` (tracked by
    :class:`XPublicTracker`), the hand-set :data:`X_DEFAULT_CATEGORY_PROBS` and
    :data:`X_DEFAULT_TARGET_RATIOS` by default, on a :class:`RoleAssignments` set: exact
    enumeration when the seats allow at most ``max_exact`` assignments (2-6 players), else
    ``particles`` seeded samples from the exact prior.  Roles change mid-round: a public Swap
    your hats on seat ``t`` (RULES 6.5, 7.21) redraws ``t``'s role in every assignment from that
    assignment's undealt cards (its old card out for the round), so the belief is always over
    the roles held *now*.  In-seat, the observer's own card conditions the set at the deal and
    after every Swap your hats on it (its private ``role_dealt``), and its private Inspection
    results condition it too; the observer's own actions are not used as evidence (they say
    what it believed, not what the others hold).

    Args:
        category_probs: ``(n_roles, n_categories)``, rows summing to 1 (``None``: the
            hand-set table of the game being played).
        target_ratios: category -> ``(n_roles, n_roles)`` positive factors.
        name: the detector's name in reports.
        max_exact, particles, seed, moves: Saboteur 2 only, see :class:`RoleAssignments`.

    Raises:
        ValueError: at ``reset``, tables whose shape does not fit the game.
    """

    name = "bayes"

    def __init__(self, category_probs=None, target_ratios=None, name: str | None = None, *,
                 max_exact: int = 50_000, particles: int = 4096, seed: int = 0,
                 moves: int = 20):
        self._hand_set = category_probs is None and target_ratios is None
        self.category_probs = np.asarray(
            DEFAULT_CATEGORY_PROBS if category_probs is None else category_probs, float)
        self.target_ratios = {k: np.asarray(v, float) for k, v in
                              (DEFAULT_TARGET_RATIOS if target_ratios is None
                               else target_ratios).items()}
        self._logc = np.log(self.category_probs)
        self._logt = {k: np.log(v) for k, v in self.target_ratios.items()}
        self.max_exact, self.particles, self.seed = max_exact, particles, seed
        self.moves = moves
        if name:
            self.name = name

    def reset(self, seat, config, own_role) -> None:
        self._x = bool(getattr(config, "expansion", False))
        if self._hand_set:  # the hand-set tables of the game being played (also on reuse)
            self.category_probs = X_DEFAULT_CATEGORY_PROBS if self._x else DEFAULT_CATEGORY_PROBS
            self.target_ratios = X_DEFAULT_TARGET_RATIOS if self._x else DEFAULT_TARGET_RATIOS
            self._logc = np.log(self.category_probs)
            self._logt = {k: np.log(v) for k, v in self.target_ratios.items()}
        if self._x:
            counts = role_deck(config)
            k = len(counts)
            if self.category_probs.shape != (k, len(X_CATEGORIES)) or any(
                    v.shape != (k, k) for v in self.target_ratios.values()):
                raise ValueError(f"Saboteur 2 needs category_probs of shape "
                                 f"{(k, len(X_CATEGORIES))} and {(k, k)} target ratios, got "
                                 f"{self.category_probs.shape}")
            self.tracker = XPublicTracker()
            self.assignments = RoleAssignments(
                counts, config.num_players, max_exact=self.max_exact,
                particles=self.particles, seed=self.seed, moves=self.moves)
            super().reset(seat, config, own_role)
            return
        if self.category_probs.shape != (N_ROLES, len(CATEGORIES)):
            raise ValueError(f"the base game needs category_probs of shape "
                             f"{(N_ROLES, len(CATEGORIES))}, got {self.category_probs.shape}")
        self._R, self._logp, self._oh = _Assignments.get(config)
        self.tracker = PublicTracker()
        super().reset(seat, config, own_role)

    def new_round(self) -> None:
        self.tracker.new_round()
        if self._x:
            fixed = [] if self.seat is None or self.own_role is None else \
                [(self.seat, self.own_role)]
            self.assignments.start(fixed)
            return
        lp = self._logp
        if self.seat is not None and self.own_role is not None:
            lp = np.where(self._R[:, self.seat] == self.own_role, lp, -np.inf)
        self._logw = lp.copy()

    def role_changed(self) -> None:
        # Saboteur 2: a Swap your hats on the observer (the public action came first and
        # redrew its role in every assignment); its private new card conditions the set
        self.assignments.fix(self.seat, self.own_role)

    def update(self, event) -> None:
        if self._x:
            self._update_x(event)
            return
        if event.visible_to is not None:
            return  # the event model uses public events only
        cat = self.tracker.categorize(event)
        if cat is None:
            return
        a, c, tg = cat
        if a == self.seat:
            return  # own actions say what the observer believed, not what the others hold
        ra = self._R[:, a]
        self._logw = self._logw + self._logc[ra, CAT_INDEX[c]]
        if c in self._logt and tg >= 0:
            self._logw = self._logw + self._logt[c][ra, self._R[:, tg]]

    def _update_x(self, event) -> None:
        A = self.assignments
        if event.visible_to is not None:
            if event.type == "inspection_result" and event.seat == self.seat:
                A.fix(int(event.data["target"]), int(event.data["role"]))
            return
        cat = self.tracker.categorize(event)
        if cat is not None and cat[0] != self.seat:
            a, c, tg = cat
            A.factor(a, self._logc[:, X_CAT_INDEX[c]])
            if c in self._logt and tg >= 0:
                A.pair(a, tg, self._logt[c])
        if event.type == "action_played" and event.data["card"] == "swap_hats":
            A.swap(int(event.data["target"]))

    def belief(self) -> np.ndarray:
        if self._x:
            b = self.assignments.marginals()
            if b is None:  # no assignment fits the evidence (never with true events)
                b = exact_prior(self.config, self.seat, self.own_role, self.held)
            return b
        return marginals(self._oh, self._logw, self.n)

    @classmethod
    def fit(cls, samples: Sequence[tuple[int, int, int, int]], n_roles: int = N_ROLES,
            smoothing: float = 1.0, name: str = "bayes-fit", **kwargs) -> BayesDetector:
        """Maximum-likelihood event model from training records.

        Args:
            samples: ``(actor_role, category_index, target_role or -1, base_role_mix)`` per
                public event, with the true roles at that moment (Saboteur 2: the roles held
                when the event happened); ``base_role_mix`` is unused for untargeted events
                (pass -1) and for targeted ones is the role of a target drawn uniformly from
                the other players (the base rate).  Category indexes into
                :data:`CATEGORIES` (base game, ``n_roles`` 2) or :data:`X_CATEGORIES`
                (Saboteur 2, ``n_roles`` 6).
            smoothing: add-``smoothing`` (Laplace) counts.
            kwargs: passed to the detector (``max_exact``, ``particles``, ``seed``,
                ``moves``).

        ``P(c | role)`` is the (smoothed) maximum-likelihood categorical; the target factor
        ``f_c(a, b) = P(target role b | actor a, c) / P(role b of a random other player | a)``.
        """
        expansion = n_roles != N_ROLES
        cats = X_CATEGORIES if expansion else CATEGORIES
        targeted = X_TARGETED if expansion else TARGETED
        k = len(cats)
        cc = np.full((n_roles, k), smoothing)
        tc = {c: np.full((n_roles, n_roles), smoothing) for c in targeted}
        bc = {c: np.full((n_roles, n_roles), smoothing) for c in targeted}
        for ar, ci, tr, br in samples:
            cc[ar, ci] += 1
            c = cats[ci]
            if c in tc and tr >= 0:
                tc[c][ar, tr] += 1
                bc[c][ar, br] += 1
        probs = cc / cc.sum(axis=1, keepdims=True)
        ratios = {}
        for c in targeted:
            pt = tc[c] / tc[c].sum(axis=1, keepdims=True)
            pb = bc[c] / bc[c].sum(axis=1, keepdims=True)
            ratios[c] = pt / pb
        return cls(probs, ratios, name=name, **kwargs)


# --- learned classifier -----------------------------------------------------------------
def player_features(counts: np.ndarray, recv: np.ndarray, rel: np.ndarray, turn: int, n: int,
                    seat: int | None, own_role: int | None, n_roles: int) -> np.ndarray:
    """Per-player feature matrix ``(n, 2 * len(CATEGORIES) + 12 + n_roles)`` from this round's
    public history (and, in-seat, the observer's role and its dealings with each player).

    ``counts`` ``(n, n_cat)``: categories played by each player; ``recv`` ``(n, 2)``: breaks and
    repairs received from others; ``rel`` ``(n, 4)``: tools the player broke on / repaired for
    the observer, and the observer broke on / repaired for the player (zeros for a spectator).
    """
    tot = counts.sum(axis=1, keepdims=True)
    frac = counts / np.maximum(tot, 1)
    role1h = np.zeros((n, n_roles))
    if own_role is not None:
        role1h[:, own_role] = 1
    f = np.concatenate([
        counts.astype(float), frac, recv.astype(float), rel.astype(float), role1h,
        np.full((n, 1), turn / 30.0), np.full((n, 1), n / 10.0),
        np.full((n, 1), 1.0), np.log1p(tot), np.full((n, 1), float(seat is not None)),
        np.full((n, 1), 0.0) if seat is None else (np.arange(n) == seat)[:, None].astype(float),
    ], axis=1)
    return f


class FeatureDetector(Detector):
    """Base of detectors on per-player public-history features (keeps the counts)."""

    def reset(self, seat, config, own_role) -> None:
        self.tracker = PublicTracker()
        super().reset(seat, config, own_role)

    def new_round(self) -> None:
        n = self.n
        self.tracker.new_round()
        self.counts = np.zeros((n, len(CATEGORIES)), np.int64)
        self.recv = np.zeros((n, 2), np.int64)
        self.rel = np.zeros((n, 4), np.int64)

    def update(self, event) -> None:
        if event.visible_to is not None:
            return
        cat = self.tracker.categorize(event)
        if cat is None:
            return
        a, c, tg = cat
        self.counts[a, CAT_INDEX[c]] += 1
        if tg >= 0:
            j = 0 if c == "break" else 1
            self.recv[tg, j] += 1
            s = self.seat
            if s is not None:
                if tg == s:
                    self.rel[a, j] += 1
                if a == s:
                    self.rel[tg, 2 + j] += 1

    def offsets(self) -> np.ndarray:
        """Log prior probabilities ``(n, n_roles)`` (the classifier's fixed offset)."""
        key = (self.seat, self.own_role, tuple(self.held))
        if getattr(self, "_off_key", None) != key:
            self._off_key = key
            self._off = np.log(np.clip(exact_prior(self.config, self.seat, self.own_role,
                                                   self.held), 1e-6, 1))
        return self._off

    def features(self) -> np.ndarray:
        return player_features(self.counts, self.recv, self.rel, self.tracker.turn, self.n,
                               self.seat, self.own_role, self.n_roles)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def fit_logistic(X: np.ndarray, y: np.ndarray, n_classes: int, l2: float = 1e-3,
                 iters: int = 300, sample_weight: np.ndarray | None = None,
                 offset: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Multinomial logistic regression by full-batch gradient descent with Adam (numpy).

    The logits are ``offset + ((X - mu) / sd) @ W`` (``offset`` ``(n, n_classes)``, default 0,
    e.g. the log prior).  Returns ``(W, mu, sd)``: weights ``(d, n_classes)`` on standardised
    features ``(X - mu) / sd``.
    """
    off = 0.0 if offset is None else offset
    mu, sd = X.mean(axis=0), X.std(axis=0) + 1e-6
    Z = (X - mu) / sd
    n, d = Z.shape
    w = np.ones(n) if sample_weight is None else sample_weight
    w = w / w.sum()
    Y = np.eye(n_classes)[y]
    W = np.zeros((d, n_classes))
    m, v = np.zeros_like(W), np.zeros_like(W)
    lr, b1, b2 = 0.05, 0.9, 0.999
    for t in range(1, iters + 1):
        P = _softmax(off + Z @ W)
        g = Z.T @ ((P - Y) * w[:, None]) + l2 * W
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        W -= lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + 1e-8)
    return W, mu, sd


def fit_temperature(logits: np.ndarray, y: np.ndarray, sample_weight=None) -> float:
    """The temperature T minimising the (weighted) log loss of ``softmax(logits / T)``
    (golden-section search on log T in [-3, 3])."""
    w = np.ones(len(y)) if sample_weight is None else sample_weight

    def loss(lt):
        P = _softmax(logits / np.exp(lt))
        return -(w * np.log(np.clip(P[np.arange(len(y)), y], 1e-12, 1))).sum()

    lo, hi = -3.0, 3.0
    g = (np.sqrt(5) - 1) / 2
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    for _ in range(60):
        if loss(c) < loss(d):
            hi = d
        else:
            lo = c
        c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    return float(np.exp((lo + hi) / 2))


class LogisticDetector(FeatureDetector):
    """Multinomial logistic regression on per-player public-history features, one row per
    player, with the exact prior's log probabilities as a fixed offset, temperature-calibrated
    on a validation split.  Rows are predicted independently
    (the observer's own row in-seat is its known role), so the marginals can be infeasible; the
    harness records how often.

    Saboteur 2: the features are the base game's (:data:`CATEGORIES`, :class:`PublicTracker`):
    the expansion's action cards (Trapped!, Theft, Swap your hats...) are not counted, every
    single discard of a pass counts as a ``discard``, and a seat's counts survive a Swap your
    hats (they describe the seat, not its current card); only the offset (the exact prior,
    conditioned on the cards the observer held) follows the expansion."""

    name = "logistic"

    def __init__(self, W: np.ndarray, mu: np.ndarray, sd: np.ndarray, temperature: float = 1.0,
                 name: str | None = None) -> None:
        self.W, self.mu, self.sd, self.temperature = W, mu, sd, temperature
        if name:
            self.name = name

    def logits(self, X: np.ndarray, offset=0.0) -> np.ndarray:
        """``offset + standardised(X) @ W`` (before the temperature)."""
        return offset + ((X - self.mu) / self.sd) @ self.W

    def belief(self) -> np.ndarray:
        P = _softmax(self.logits(self.features(), self.offsets()) / self.temperature)
        if self.seat is not None and self.own_role is not None:
            P[self.seat] = np.eye(self.n_roles)[self.own_role]
        return P


class AgentBeliefDetector(Detector):
    """An agent's own ``belief()`` (in-seat only).  The harness replays the game through the
    environment and hands this detector the seat's observations on the seat's turns
    (:meth:`observe_turn`), where it calls ``agent.act`` to let the agent update itself; the
    chosen action is ignored."""

    name = "agent-belief"
    tracks = ("in-seat",)
    needs_turns = True

    def __init__(self, factory: Callable[[], object], name: str | None = None) -> None:
        self.factory = factory
        if name:
            self.name = name

    def reset(self, seat, config, own_role) -> None:
        self.agent = self.factory()
        self.agent.reset(seat, config, seed=0)
        super().reset(seat, config, own_role)

    def observe(self, event) -> None:
        super().observe(event)
        if hasattr(self.agent, "observe"):  # keep the agent's belief current between turns
            self.agent.observe([event])

    def observe_turn(self, observation, action_mask, info) -> None:
        self.agent.act(observation, action_mask, info)

    def belief(self) -> np.ndarray:
        b = np.asarray(self.agent.belief(), dtype=float)
        return b


__all__ = [
    "AgentBeliefDetector", "BayesDetector", "CATEGORIES", "Detector", "LogisticDetector",
    "OracleDetector", "PriorDetector", "PublicTracker", "RoleAssignments", "UniformDetector",
    "X_CATEGORIES", "XPublicTracker", "count_assignments", "digger_roles",
    "enumerate_assignments", "event_categories", "exact_prior", "feasible_count_bounds",
    "fit_logistic", "fit_temperature", "p_no_saboteur", "role_deck", "saboteur_index",
]
