"""Metrics of the bluff-detection benchmark, on arrays of scored beliefs.

A *scored row* is one (moment, observer, target): the belief row ``p`` (``n_roles`` floats
summing to 1), the target's true role ``y`` at that moment, a weight ``w`` and the game it
belongs to.  Weights make **rounds weigh equally**: every round's rows share a total weight of
1 (:func:`round_weights`).  Natural logarithms throughout.

* log loss ``-ln p[y]`` (probabilities clipped at ``1e-15``);
* Brier score ``0.5 * sum_r (p_r - [y == r])^2``: in [0, 1]; with two roles it is the familiar
  binary Brier score ``(p_saboteur - [y is saboteur])^2``;
* skill score against a reference (the exact prior): ``1 - loss / loss_ref`` over the same rows
  (0 = the prior, 1 = perfect, negative = worse than the prior);
* weighted AUROC of ``p_saboteur`` (ties count one half);
* reliability diagram and expected calibration error (ECE) of ``p_saboteur``, equal-width bins;
* detection time: the first round progress at which ``p_saboteur > threshold`` for a true
  saboteur (censored at the round's end), its survival curve, and the false-accusation rate: the
  share of gold-digger targets that ever get ``p_saboteur > threshold`` in a round;
* 95% intervals by bootstrap over whole games (:func:`bootstrap_ratio`), seeded.
"""

from __future__ import annotations

import numpy as np

EPS = 1e-15


def log_loss_rows(P: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``-ln P[i, y_i]`` per row; ``P`` float ``(m, n_roles)``, ``y`` int ``(m,)``."""
    return -np.log(np.clip(P[np.arange(len(y)), y], EPS, 1.0))


def brier_rows(P: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``0.5 * sum_r (P[i, r] - [y_i == r])^2`` per row."""
    Y = np.eye(P.shape[1])[y]
    return 0.5 * ((P - Y) ** 2).sum(axis=1)


def round_weights(round_ids: np.ndarray) -> np.ndarray:
    """Weights giving every round (distinct id) a total weight of 1."""
    _, inv, cnt = np.unique(round_ids, return_inverse=True, return_counts=True)
    return 1.0 / cnt[inv]


def wmean(x: np.ndarray, w: np.ndarray) -> float:
    """The ``w``-weighted mean of ``x`` (float arrays of one shape)."""
    return float((x * w).sum() / w.sum())


def skill(loss: np.ndarray, loss_ref: np.ndarray, w: np.ndarray) -> float:
    """``1 - sum(w * loss) / sum(w * loss_ref)`` (``nan`` when the reference loss is 0, e.g. a
    saboteur observer at 3-4 players, who knows every role from the prior alone)."""
    ref = (w * loss_ref).sum()
    return float(1.0 - (w * loss).sum() / ref) if ref > 0 else float("nan")


def auroc(score: np.ndarray, positive: np.ndarray, w: np.ndarray | None = None) -> float:
    """Weighted area under the ROC curve (probability that a random positive scores above a
    random negative, ties one half); ``nan`` without both classes."""
    score = np.asarray(score, float)
    positive = np.asarray(positive, bool)
    w = np.ones(len(score)) if w is None else np.asarray(w, float)
    wp, wn = (w * positive).sum(), (w * ~positive).sum()
    if wp == 0 or wn == 0:
        return float("nan")
    order = np.argsort(score, kind="mergesort")
    s, p, ww = score[order], positive[order], w[order]
    uniq, start = np.unique(s, return_index=True)
    grp = np.repeat(np.arange(len(uniq)), np.diff(np.append(start, len(s))))
    pos_g = np.bincount(grp, weights=ww * p, minlength=len(uniq))
    neg_g = np.bincount(grp, weights=ww * ~p, minlength=len(uniq))
    neg_below = np.cumsum(neg_g) - neg_g
    return float((pos_g * (neg_below + 0.5 * neg_g)).sum() / (wp * wn))


def reliability(
    p: np.ndarray, positive: np.ndarray, w: np.ndarray, bins: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Reliability diagram of probabilities ``p`` for the event ``positive``.

    Returns ``(confidence, frequency, weight, ece)``: per equal-width bin the mean predicted
    probability, the observed frequency and the bin's share of the weight (``nan`` in empty
    bins), and the expected calibration error ``sum_b weight_b * |frequency_b - confidence_b|``.
    """
    b = np.minimum((np.asarray(p) * bins).astype(int), bins - 1)
    W = np.bincount(b, weights=w, minlength=bins)
    conf = np.bincount(b, weights=w * p, minlength=bins)
    freq = np.bincount(b, weights=w * positive, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        conf, freq = conf / W, freq / W
    share = W / W.sum()
    ece = float(np.nansum(share * np.abs(freq - conf)))
    return conf, freq, share, ece


def first_crossing(
    groups: np.ndarray, progress: np.ndarray, p: np.ndarray, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per group (one target in one round for one observer): the first progress at which
    ``p > threshold`` (``inf`` if never).  Returns ``(group ids, times)``."""
    ids, inv = np.unique(groups, return_inverse=True)
    t = np.where(p > threshold, progress, np.inf)
    first = np.full(len(ids), np.inf)
    np.minimum.at(first, inv, t)
    return ids, first


def survival_curve(times: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Share of targets not yet detected at each grid point (times ``inf`` = never;
    censoring happens only at the round's end, so the empirical curve is Kaplan-Meier)."""
    times = np.asarray(times)
    if len(times) == 0:
        return np.full(len(grid), np.nan)
    return np.array([(times > g).mean() for g in grid])


def bootstrap_ratio(
    num: np.ndarray, den: np.ndarray | None = None, *, B: int = 1000, seed: int = 0, transform=None
) -> tuple[float, float, float]:
    """Point estimate and 95% percentile interval of ``sum(num) / sum(den)`` by resampling
    whole games.

    Args:
        num, den: per-game sums ``(n_games,)`` (``den`` default: ones, i.e. a mean over games),
            or ``(n_games, k)`` to bootstrap a ratio of several columns with ``transform``.
        transform: maps the ratio (or the ``(B, k)`` column sums) to the statistic, e.g.
            ``lambda r: 1 - r`` for a skill score.
        seed: the bootstrap's generator seed (same seed, same interval).
    """
    num = np.asarray(num, float)
    den = np.ones(len(num)) if den is None else np.asarray(den, float)
    tf = transform or (lambda r: r)
    if len(num) == 0:
        return float("nan"), float("nan"), float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        point = tf(num.sum(axis=0) / den.sum(axis=0))
    rng = np.random.default_rng(seed)
    g = len(num)
    idx = rng.integers(0, g, size=(B, g))
    counts = np.zeros((B, g))
    np.add.at(counts, (np.arange(B)[:, None], idx), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        stats = tf((counts @ num) / (counts @ den))
    lo, hi = np.nanpercentile(stats, [2.5, 97.5], axis=0)
    return float(point), float(lo), float(hi)


def per_game_sums(game: np.ndarray, values: np.ndarray, n_games: int | None = None) -> np.ndarray:
    """``sum(values)`` per game index (``game`` ints ``0..n_games-1``)."""
    n_games = int(game.max()) + 1 if n_games is None else n_games
    return np.bincount(game, weights=values, minlength=n_games)


__all__ = [
    "auroc",
    "bootstrap_ratio",
    "brier_rows",
    "first_crossing",
    "log_loss_rows",
    "per_game_sums",
    "reliability",
    "round_weights",
    "skill",
    "survival_curve",
    "wmean",
]
