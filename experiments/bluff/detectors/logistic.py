"""The learned classifier: per-player public-history features, multinomial logistic
regression with temperature calibration (numpy)."""

from __future__ import annotations

import numpy as np

from .base import Detector
from .categories import BASE_CATEGORIES, CAT_INDEX, CATEGORIES, PublicTracker
from .priors import exact_prior


# --- learned classifier -----------------------------------------------------------------
def player_features(
    counts: np.ndarray,
    recv: np.ndarray,
    rel: np.ndarray,
    turn: int,
    n: int,
    seat: int | None,
    own_role: int | None,
    n_roles: int,
) -> np.ndarray:
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
    f = np.concatenate(
        [
            counts.astype(float),
            frac,
            recv.astype(float),
            rel.astype(float),
            role1h,
            np.full((n, 1), turn / 30.0),
            np.full((n, 1), n / 10.0),
            np.full((n, 1), 1.0),
            np.log1p(tot),
            np.full((n, 1), float(seat is not None)),
            np.full((n, 1), 0.0) if seat is None else (np.arange(n) == seat)[:, None].astype(float),
        ],
        axis=1,
    )
    return f


class FeatureDetector(Detector):
    """Base of detectors on per-player public-history features (keeps the counts)."""

    def reset(self, seat, config, own_role) -> None:
        self.tracker = PublicTracker(BASE_CATEGORIES)
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
            self._off = np.log(
                np.clip(exact_prior(self.config, self.seat, self.own_role, self.held), 1e-6, 1)
            )
        return self._off

    def features(self) -> np.ndarray:
        """The feature matrix of this round so far (:func:`player_features`)."""
        return player_features(
            self.counts,
            self.recv,
            self.rel,
            self.tracker.turn,
            self.n,
            self.seat,
            self.own_role,
            self.n_roles,
        )


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def fit_logistic(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    l2: float = 1e-3,
    iters: int = 300,
    sample_weight: np.ndarray | None = None,
    offset: np.ndarray | None = None,
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
        W -= lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + 1e-8)
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

    Saboteur 2: the features are the base game's (:data:`CATEGORIES`, :data:`BASE_CATEGORIES`):
    the expansion's action cards (Trapped!, Theft, Swap your hats...) are not counted, every
    single discard of a pass counts as a ``discard``, and a seat's counts survive a Swap your
    hats (they describe the seat, not its current card); only the offset (the exact prior,
    conditioned on the cards the observer held) follows the expansion."""

    name = "logistic"

    def __init__(
        self,
        W: np.ndarray,
        mu: np.ndarray,
        sd: np.ndarray,
        temperature: float = 1.0,
        name: str | None = None,
    ) -> None:
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
