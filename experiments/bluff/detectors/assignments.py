"""Weighted sets of role assignments, the state of the Bayes detector: :class:`RoleAssignments`
(Saboteur 2, exact or sampled, roles that change mid-round: RULES 6.2, 6.5, 7.21) and
:class:`DealtAssignments` (the base game's enumeration, roles fixed for the round: RULES 2.2)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from saboteur_env.engine.cards import X_EFFECTS
from saboteur_env.engine.events import EventType

from .priors import _Assignments, count_assignments, marginals


def hat_swap_target(event) -> int | None:
    """The seat whose dwarf card a public Swap your hats redraws (RULES 6.5, 7.21): the target
    of an ``action_played`` event whose card's effect (``X_EFFECTS``) is ``swap_hats``, else
    ``None``."""
    if event.type != EventType.ACTION_PLAYED:
        return None
    effect = X_EFFECTS.get(event.data.get("card"))
    return int(event.data["target"]) if effect and effect[0] == "swap_hats" else None


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

    def __init__(
        self,
        counts,
        n: int,
        *,
        max_exact: int = 50_000,
        particles: int = 4096,
        seed: int = 0,
        moves: int = 20,
        max_states: int = 400_000,
    ) -> None:
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
        if w.sum() ** 2 / (w**2).sum() >= 0.5 * len(w):
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
        return np.stack(
            [np.bincount(R[:, j], weights=w, minlength=self.n_roles) for j in range(self.n)]
        )

    @property
    def size(self) -> int:
        """Number of members (assignments or particles)."""
        return len(self.logw)

    def ess(self) -> float:
        """Effective sample size of the weights (the number of members when all are equal)."""
        w = np.exp(self.logw - self.logw.max())
        return float(w.sum() ** 2 / (w**2).sum())


class DealtAssignments:
    """Every role assignment of a game whose roles stay put for the round (the base game,
    RULES 2.2), with a log weight each: the weighted set of :class:`BayesDetector` when no card
    redeals a role (the same methods as :class:`RoleAssignments`).

    ``R`` int8 ``(k, n)``, ``onehot`` float ``(k, n * n_roles)`` and the prior ``logp``
    float64 ``(k,)`` are the cached enumeration of ``config``'s role deck
    (:func:`~.priors.enumerate_assignments`); ``logw`` float64 ``(k,)`` the current weights.
    """

    def __init__(self, config) -> None:
        self.R, self.logp, self.onehot = _Assignments.get(config)
        self.n = config.num_players

    def start(self, fixed: Sequence[tuple[int, int]] = ()) -> None:
        """A new round: the prior, conditioned on ``fixed`` ``(seat, role)`` pairs."""
        lp = self.logp
        for seat, role in fixed:
            lp = np.where(self.R[:, seat] == role, lp, -np.inf)
        self.logw = lp.copy()

    def factor(self, seat: int, logf: np.ndarray) -> None:
        """Multiply every member by ``exp(logf[role of seat])``; ``logf`` float ``(n_roles,)``."""
        self.logw = self.logw + logf[self.R[:, seat]]

    def pair(self, a: int, t: int, logf: np.ndarray) -> None:
        """Multiply by ``exp(logf[role of a, role of t])``; ``logf`` ``(n_roles, n_roles)``."""
        self.logw = self.logw + logf[self.R[:, a], self.R[:, t]]

    def fix(self, seat: int, role: int) -> None:
        """Condition on ``seat`` holding ``role``."""
        self.logw = np.where(self.R[:, seat] == role, self.logw, -np.inf)

    def swap(self, t: int) -> None:
        """No card redeals a role in this game.

        Raises:
            ValueError: always.
        """
        raise ValueError("no card redeals a role in this game (the base game, RULES 2.2)")

    def marginals(self) -> np.ndarray:
        """Role marginals float64 ``(n, n_roles)`` of the weighted assignments."""
        return marginals(self.onehot, self.logw, self.n)
