"""Ratings and interval statistics for tournaments (cases T3, T5, T7).

Two ratings are computed from each game's final gold ranking (RULES 5.5: most gold wins, ties
share; here every seat is ranked by its gold, equal gold = equal rank = a draw):

* :class:`OnlineRatings`: OpenSkill's Plackett-Luce model (Weng & Lin 2011, Algorithm 4),
  updated game by game.  Every seat is a one-player team; an agent that holds several seats of
  one game is rated with the mean of its seats' updates.  **Order-dependent**: the result depends
  on the order in which games are fed (case T7), so it is reported as the "online" rating.
* :func:`bradley_terry`: a batch maximum-likelihood fit that does not depend on game order.  Each
  game is split into all pairs of seats held by different agents (a win counts 1, a tie 1/2 to
  each side), weighted ``1 / (n - 1)`` so that every game carries the same weight; the
  Bradley-Terry strengths are fitted by Newton's method with a weak prior (one virtual
  tie of every agent against a reference of strength 1), so that the fit exists even for an
  agent that always wins.  Ratings are on the Elo scale (``400 log10 strength``), centred at 0.
  :func:`bootstrap_bt` gives percentile intervals by resampling whole games.

:func:`win_matrix` is the full pairwise matrix (P(row's gold > column's gold), ties 1/2), and
:func:`cycles` lists non-transitive triples (case T5: a cycle must stay visible instead of being
flattened into a ladder).  :func:`wilson` is the Wilson score interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes in ``n`` trials (``(0, 1)`` when ``n == 0``)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    den = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den
    lo = 0.0 if k <= 0 else max(0.0, centre - half)
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return lo, hi


def ranks_from_gold(gold: Sequence[float]) -> list[int]:
    """Competition ranks (1 = most gold); equal gold shares a rank (a draw)."""
    g = list(gold)
    return [1 + sum(1 for o in g if o > x) for x in g]


# --- online OpenSkill ----------------------------------------------------------------
class OnlineRatings:
    """OpenSkill Plackett-Luce ratings updated game by game (order-dependent).

    Args:
        agents: the agent names.
        model: an ``openskill.models.PlackettLuce`` instance (default parameters if ``None``).
    """

    def __init__(self, agents: Sequence[str], model=None) -> None:
        from openskill.models import PlackettLuce

        self.model = model or PlackettLuce()
        self.agents = list(agents)
        self.ratings = {a: self.model.rating(name=a) for a in self.agents}

    def update(self, lineup: Sequence[str], gold: Sequence[float]) -> None:
        """Rate one game: ``lineup[seat]`` is the agent of each seat, ``gold`` its final gold."""
        teams = [
            [self.model.rating(mu=self.ratings[a].mu, sigma=self.ratings[a].sigma)] for a in lineup
        ]
        new = self.model.rate(teams, ranks=ranks_from_gold(gold))
        for a in set(lineup):
            seats = [s for s, b in enumerate(lineup) if b == a]
            r = self.ratings[a]
            r.mu = float(np.mean([new[s][0].mu for s in seats]))
            r.sigma = float(np.mean([new[s][0].sigma for s in seats]))

    def table(self) -> dict[str, dict]:
        """``{agent: {"mu", "sigma", "ordinal"}}`` (ordinal = mu - 3 sigma)."""
        return {
            a: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma}
            for a, r in self.ratings.items()
        }


# --- batch Bradley-Terry ---------------------------------------------------------------
def pair_results(
    lineups: Sequence[Sequence[str]], golds: Sequence[Sequence[float]], agents: Sequence[str]
) -> np.ndarray:
    """Per-game pairwise results, float ``(games, k, k)``: ``[g, a, b]`` = weighted wins of
    agent ``a`` over agent ``b`` in game ``g`` (ties 1/2 each, weight ``1 / (n - 1)`` per pair
    of seats held by different agents)."""
    idx = {a: i for i, a in enumerate(agents)}
    k = len(agents)
    out = np.zeros((len(lineups), k, k))
    for g, (lineup, gold) in enumerate(zip(lineups, golds)):
        n = len(lineup)
        w = 1.0 / max(n - 1, 1)
        for i in range(n):
            for j in range(n):
                a, b = idx[lineup[i]], idx[lineup[j]]
                if i == j or a == b:
                    continue
                if gold[i] > gold[j]:
                    out[g, a, b] += w
                elif gold[i] == gold[j]:
                    out[g, a, b] += 0.5 * w
    return out


def bradley_terry(
    wins: np.ndarray, prior: float = 1.0, tol: float = 1e-12, max_iter: int = 100
) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry fit of a win matrix ``(k, k)`` (Newton's method on
    the log-strengths; the log-likelihood is concave).

    ``wins[a, b]`` = (fractional) wins of ``a`` over ``b``.  ``prior`` virtual games against a
    reference agent of strength 1 (half won, half lost) keep every estimate finite.  Returns
    Elo-scale ratings ``400 log10(strength)`` centred to mean 0; independent of the order of
    the games.
    """
    W = np.asarray(wins, dtype=float)
    k = W.shape[0]
    N = W + W.T
    won = W.sum(axis=1)
    theta = np.zeros(k)
    for _ in range(max_iter):
        P = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P[a, b] = P(a beats b)
        r = 1.0 / (1.0 + np.exp(-theta))  # P(a beats the reference)
        grad = won - (N * P).sum(axis=1) + prior * (0.5 - r)
        V = N * P * (1 - P)
        H = V - np.diag(V.sum(axis=1) + prior * r * (1 - r))
        step = np.linalg.solve(H, grad)
        theta = theta - step
        if np.max(np.abs(step)) < tol:
            break
    r = 400 / math.log(10) * theta
    return r - r.mean()


def bootstrap_bt(
    per_game: np.ndarray, n_boot: int = 200, seed: int = 0, prior: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """95% percentile intervals of :func:`bradley_terry` by resampling whole games.

    Returns ``(lo, hi)`` arrays of shape ``(k,)``."""
    g = per_game.shape[0]
    k = per_game.shape[1]
    if g == 0:
        return np.full(k, np.nan), np.full(k, np.nan)
    rng = np.random.default_rng(seed)
    flat = per_game.reshape(g, -1)
    fits = np.empty((n_boot, k))
    for b in range(n_boot):
        counts = np.bincount(rng.integers(0, g, g), minlength=g)
        fits[b] = bradley_terry((counts @ flat).reshape(k, k), prior=prior, tol=1e-9)
    return np.percentile(fits, 2.5, axis=0), np.percentile(fits, 97.5, axis=0)


def win_matrix(wins: np.ndarray) -> np.ndarray:
    """P(row beats column) from a win matrix (ties already split); NaN where they never met
    and on the diagonal."""
    W = np.asarray(wins, dtype=float)
    N = W + W.T
    with np.errstate(invalid="ignore", divide="ignore"):
        P = np.where(N > 0, W / N, np.nan)
    np.fill_diagonal(P, np.nan)
    return P


def cycles(P: np.ndarray, names: Sequence[str] | None = None, margin: float = 0.0) -> list[tuple]:
    """Non-transitive triples ``(a, b, c)``: a beats b, b beats c, c beats a (each > 0.5 +
    margin).  Each cycle is listed once, starting at its smallest index."""
    k = P.shape[0]
    out = []
    for a in range(k):
        for b in range(a + 1, k):
            for c in range(a + 1, k):
                if b == c:
                    continue
                if P[a, b] > 0.5 + margin and P[b, c] > 0.5 + margin and P[c, a] > 0.5 + margin:
                    out.append((a, b, c) if names is None else (names[a], names[b], names[c]))
    return out
