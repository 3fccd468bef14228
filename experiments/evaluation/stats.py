"""Deal-clustered statistics: every interval of the project's evaluations (DESIGN 9).

The seats of one deal are not independent observations: the gold-diggers of a round share one
outcome, and the duplicate games of a deal share its cards.  So every interval here treats the
*deal* as the unit that is sampled (the cluster) and reports the number of observations and
of clusters beside it.

* :func:`cluster_rate` - a rate of 0/1 outcomes: the Wilson score interval at the effective
  sample size ``n / deff``, where the design effect ``deff`` is the ratio of the cluster-robust
  variance of the mean (:func:`cluster_se`) to the naive one, ``p (1 - p) / (n - 1)`` (the
  same small-sample correction, so one observation per deal gives ``deff = 1``), floored at 1
  (Kish 1965; never narrower than the naive interval).  When the rate is 0 or 1, or there is
  one deal, the variance says nothing about clustering and the effective sample size is the
  number of deals.  Analytic, stays inside [0, 1].
* :func:`paired_difference` - the difference of two paired 0/1 outcomes with one pair per deal
  (the ``role-probe`` protocol): Newcombe's hybrid score interval for paired data (1998, method
  10, with his continuity correction of the phi coefficient), which never collapses to a
  point and stays inside [-1, 1].
* :func:`cluster_mean` - the mean of any per-observation value (paired win differences, gold):
  deal-level percentile bootstrap (resample whole deals with replacement).
* :func:`paired_ratio` - the ratio of two paired rates (a candidate's win rate over the
  reference's on the same deals and seats): deal-level percentile bootstrap, both rates from
  the same resample (method ``"deal-bootstrap-ratio"``).
* :func:`cluster_bootstrap` - the same resampling for any statistic computed from weighted
  rows (the ratings of :mod:`saboteur_experiments.evaluation.team`).

An estimate with nothing to estimate from (a role no agent was dealt, a ratio over a rate of
0) is NaN; the summary files write it as ``null`` (:mod:`saboteur_experiments.jsonio`), since
NaN is not JSON.

All intervals are 95% unless ``level`` says otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from saboteur_experiments.ratings import wilson

#: default number of deal-bootstrap resamples
N_BOOT = 2000


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its interval.

    Attributes:
        value: the estimate (a fraction for rates and win differences, not percent).
        lo, hi: the interval's ends.
        n: observations; ``clusters``: distinct deals among them.
        method: how the interval was made (``"wilson-deff"``, ``"newcombe-paired"``,
            ``"deal-bootstrap"``, ``"deal-bootstrap-ratio"``).
    """

    value: float
    lo: float
    hi: float
    n: int
    clusters: int
    method: str

    def as_dict(self) -> dict:
        """JSON-ready ``{"value", "lo", "hi", "n", "clusters", "method"}``."""
        return {
            "value": self.value,
            "lo": self.lo,
            "hi": self.hi,
            "n": self.n,
            "clusters": self.clusters,
            "method": self.method,
        }

    def as_rate(self, wins: int) -> dict:
        """The rate dict of the tournament and reference summaries: ``wins``, ``n``, ``rate``,
        ``lo``, ``hi``, ``clusters``, ``method``."""
        return {
            "wins": int(wins),
            "n": self.n,
            "rate": self.value,
            "lo": self.lo,
            "hi": self.hi,
            "clusters": self.clusters,
            "method": self.method,
        }

    def pct(self, signed: bool = False) -> str:
        """``"23.7% [19.8, 27.6]"`` (``signed``: ``"+9.0 [+2.2, +15.8]"`` points); ``"-"``
        when there is no value (NaN)."""
        if self.value != self.value:
            return "-"
        if signed:
            return f"{100 * self.value:+.1f} [{100 * self.lo:+.1f}, {100 * self.hi:+.1f}]"
        return f"{100 * self.value:.1f}% [{100 * self.lo:.1f}, {100 * self.hi:.1f}]"


def _check(values: np.ndarray, clusters: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = np.asarray(values, dtype=np.float64)
    c = np.asarray(clusters)
    if v.ndim != 1 or c.shape != v.shape:
        raise ValueError(
            f"values {v.shape} and clusters {c.shape} must be 1-d arrays of the same length"
        )
    return v, c


def cluster_se(values: np.ndarray, clusters: np.ndarray) -> float:
    """Cluster-robust standard error of the mean of ``values`` (float ``(n,)``), clustered by
    ``clusters`` (any ``(n,)`` labels):
    ``sqrt(G / (G - 1) * sum_g (S_g - m N_g)**2) / N`` with ``S_g``, ``N_g`` the sum and count
    of cluster ``g``, ``m`` the mean, ``G`` clusters, ``N`` observations (NaN for G < 2).

    Raises:
        ValueError: when the two arrays differ in shape or are not 1-d.
    """
    v, c = _check(values, clusters)
    _, inv = np.unique(c, return_inverse=True)
    g = int(inv.max()) + 1 if len(inv) else 0
    if g < 2:
        return float("nan")
    s = np.bincount(inv, weights=v, minlength=g)
    cnt = np.bincount(inv, minlength=g).astype(np.float64)
    m = v.mean()
    return math.sqrt(g / (g - 1) * float(((s - m * cnt) ** 2).sum())) / len(v)


def cluster_rate(won: np.ndarray, clusters: np.ndarray, level: float = 0.95) -> Estimate:
    """Rate of the 0/1 outcomes ``won`` (``(n,)``) with a design-effect Wilson interval
    (module docstring).  An empty input gives NaN with the interval ``(0, 1)``.

    Raises:
        ValueError: for mismatched shapes or values other than 0 and 1.
    """
    v, c = _check(won, clusters)
    if not np.isin(v, (0.0, 1.0)).all():
        raise ValueError("cluster_rate: won must hold only 0 and 1")
    n = len(v)
    g = len(np.unique(c))
    if n == 0:
        return Estimate(float("nan"), 0.0, 1.0, 0, 0, "wilson-deff")
    p = float(v.mean())
    if 0.0 < p < 1.0 and g >= 2:
        n_eff = n / max(1.0, cluster_se(v, c) ** 2 / (p * (1 - p) / (n - 1)))
    else:  # no variance to measure clustering by: count each deal once
        n_eff = float(g)
    z = _z(level)
    lo, hi = wilson(p * n_eff, n_eff, z)
    return Estimate(p, float(lo), float(hi), n, g, "wilson-deff")


def rate_dict(won: np.ndarray, clusters: np.ndarray, level: float = 0.95) -> dict:
    """:func:`cluster_rate` as the dict of the tournament and reference summaries
    (:meth:`Estimate.as_rate`, with ``wins`` the number of 1s in ``won``)."""
    won = np.asarray(won, dtype=np.float64)
    return cluster_rate(won, np.asarray(clusters), level).as_rate(int(won.sum()))


def paired_difference(
    a: np.ndarray, b: np.ndarray, clusters: np.ndarray, level: float = 0.95
) -> Estimate:
    """``mean(a) - mean(b)`` for paired 0/1 outcomes (``(n,)`` each, pair ``i`` = deal
    ``clusters[i]``, one pair per deal) with Newcombe's hybrid score interval for paired
    proportions (Newcombe 1998, Stat. Med. 17:2635, method 10): the two Wilson intervals
    combined with the phi correlation of the 2x2 table of pairs (phi = 0 when a margin is 0).

    Raises:
        ValueError: for mismatched shapes, values other than 0 and 1, or a deal that holds more
            than one pair.
    """
    x, c = _check(a, clusters)
    y, _ = _check(b, clusters)
    if not (np.isin(x, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all()):
        raise ValueError("paired_difference: outcomes must hold only 0 and 1")
    n = len(x)
    if len(np.unique(c)) != n:
        raise ValueError("paired_difference: one pair per deal (use cluster_mean otherwise)")
    if n == 0:
        return Estimate(float("nan"), -1.0, 1.0, 0, 0, "newcombe-paired")
    both = float((x * y).sum())
    only_a = float((x * (1 - y)).sum())
    only_b = float(((1 - x) * y).sum())
    neither = n - both - only_a - only_b
    z = _z(level)
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    l1, u1 = wilson(both + only_a, n, z)
    l2, u2 = wilson(both + only_b, n, z)
    den = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    # Newcombe's phi with his continuity correction: a positive numerator is reduced by n/2
    # (to 0 at most), so that concordant pairs alone never collapse the interval to a point
    num = both * neither - only_a * only_b
    num = max(num - n / 2, 0.0) if num > 0 else num
    phi = num / math.sqrt(den) if den > 0 else 0.0
    d = p1 - p2
    lo_sq = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    hi_sq = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    lo = max(-1.0, d - math.sqrt(max(lo_sq, 0.0)))
    hi = min(1.0, d + math.sqrt(max(hi_sq, 0.0)))
    return Estimate(d, lo, hi, n, n, "newcombe-paired")


def paired_ratio(
    a: np.ndarray,
    b: np.ndarray,
    clusters: np.ndarray,
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = 0.95,
) -> Estimate:
    """``mean(a) / mean(b)`` for paired outcomes (``(n,)`` each, pair ``i`` = deal
    ``clusters[i]``): e.g. a candidate's win rate over the reference's in the same seats and
    deals.  Deal-bootstrap percentile interval (whole deals resampled, both rates from the same
    resample, so the pairing is kept); a resample with ``mean(b) = 0`` has no ratio and is
    left out (the interval is then NaN when all are).  The point is NaN when ``mean(b) = 0``.

    Raises:
        ValueError: for mismatched shapes or ``n_boot < 1``.
    """
    x, c = _check(a, clusters)
    y, _ = _check(b, clusters)
    if len(x) == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0, 0, "deal-bootstrap-ratio")
    inv, draws = _draws(c, n_boot, seed)
    g = draws.shape[1]
    sx = draws @ np.bincount(inv, weights=x, minlength=g)
    sy = draws @ np.bincount(inv, weights=y, minlength=g)
    with np.errstate(divide="ignore", invalid="ignore"):
        reps = np.where(sy > 0, sx / np.where(sy > 0, sy, 1.0), np.nan)
    point = float(x.sum() / y.sum()) if y.sum() > 0 else float("nan")
    if np.isnan(reps).all():
        lo = hi = float("nan")
    else:
        lo, hi = (float(v) for v in percentile_interval(reps, level))
    return Estimate(point, lo, hi, len(x), g, "deal-bootstrap-ratio")


def _z(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level={level}: must lie strictly between 0 and 1")
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + level / 2)


def _draws(clusters: np.ndarray, n_boot: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(inverse, counts)``: each row's cluster index ``(n,)`` and how often each of the ``G``
    clusters is drawn in each resample, float64 ``(n_boot, G)`` (``G`` draws with
    replacement)."""
    if n_boot < 1:
        raise ValueError(f"n_boot={n_boot}: at least one resample is needed")
    _, inv = np.unique(np.asarray(clusters), return_inverse=True)
    g = int(inv.max()) + 1 if len(inv) else 0
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(g, np.full(g, 1.0 / g), size=n_boot) if g else np.zeros((n_boot, 0))
    return inv.reshape(-1), counts.astype(np.float64)


def cluster_weights(clusters: np.ndarray, n_boot: int, seed: int = 0) -> np.ndarray:
    """Row weights of a deal bootstrap, float64 ``(n_boot, n)``: resample the ``G`` distinct
    clusters ``G`` times with replacement; a row's weight is how often its cluster was drawn.

    Raises:
        ValueError: for ``n_boot < 1``.
    """
    inv, counts = _draws(clusters, n_boot, seed)
    return counts[:, inv]


def cluster_bootstrap(
    stat: Callable[[np.ndarray], np.ndarray],
    clusters: np.ndarray,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Deal-bootstrap replicates of ``stat``: ``stat(weights)`` maps float64 ``(n,)`` row
    weights to a float array (any shape); returns ``(point, replicates)`` with
    ``point = stat(ones)`` and replicates float64 ``(n_boot, *point.shape)``.

    Raises:
        ValueError: for ``n_boot < 1``.
    """
    c = np.asarray(clusters)
    point = np.asarray(stat(np.ones(len(c))), dtype=np.float64)
    w = cluster_weights(c, n_boot, seed)
    reps = np.stack([np.asarray(stat(w[b]), dtype=np.float64) for b in range(n_boot)])
    return point, reps


def percentile_interval(reps: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of bootstrap replicates ``(n_boot, ...)`` along the first axis
    (NaN replicates ignored); returns ``(lo, hi)`` of shape ``reps.shape[1:]``.

    Raises:
        ValueError: for a ``level`` outside (0, 1).
    """
    _z(level)  # checks level
    a = 100 * (1 - level) / 2
    return np.nanpercentile(reps, a, axis=0), np.nanpercentile(reps, 100 - a, axis=0)


def cluster_mean(
    values: np.ndarray,
    clusters: np.ndarray,
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = 0.95,
) -> Estimate:
    """Mean of ``values`` (float ``(n,)``, e.g. paired win differences in -1/0/+1) with a
    deal-bootstrap percentile interval: each resample draws whole deals with replacement and
    takes the ratio ``sum(w * v) / sum(w)``.  Vectorised: cost ``O(n_boot * G)``.

    Raises:
        ValueError: for mismatched shapes or ``n_boot < 1``.
    """
    v, c = _check(values, clusters)
    inv, draws = _draws(c, n_boot, seed)
    n = len(v)
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0, 0, "deal-bootstrap")
    g = draws.shape[1]
    s = np.bincount(inv, weights=v, minlength=g)
    cnt = np.bincount(inv, minlength=g).astype(np.float64)
    reps = (draws @ s) / (draws @ cnt)
    lo, hi = percentile_interval(reps, level)
    return Estimate(float(v.mean()), float(lo), float(hi), n, g, "deal-bootstrap")


def error_bars(point, lo, hi) -> np.ndarray:
    """Matplotlib's ``yerr`` / ``xerr`` for an interval ``[lo, hi]`` around ``point``: float64
    ``(2, ...)``, the distances down and up, never negative.

    A percentile interval may miss its point estimate, by a rounding error when it has zero
    width (a one-deal tournament) or by more for a skewed bootstrap; matplotlib refuses a
    negative bar, so the bar then stops at the point.
    """
    point, lo, hi = (np.asarray(v, dtype=float) for v in (point, lo, hi))
    return np.stack([np.maximum(point - lo, 0.0), np.maximum(hi - point, 0.0)])
