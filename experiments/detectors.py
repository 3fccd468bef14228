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

from saboteur_env.cards import (
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
from saboteur_env.config import GameConfig

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
    """Probability that no saboteur is in play (RULES 2.2: 1/4 at 3 players, 1/5 at 4)."""
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
    """Knows the true roles of every round (for tests: it must score skill 1)."""

    name = "oracle"

    def __init__(self, roles_by_round: Sequence[Sequence[int]]) -> None:
        self.roles_by_round = roles_by_round

    def reset(self, seat, config, own_role) -> None:
        self.round = -1
        super().reset(seat, config, own_role)

    def observe(self, event) -> None:
        if event.type == "round_start":
            self.round = int(event.data["round"])

    def belief(self) -> np.ndarray:
        r = np.asarray(self.roles_by_round[max(self.round, 0)])
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


class BayesDetector(Detector):
    """Exact Bayesian inference over role assignments with per-event likelihoods.

    Every possible assignment of roles to seats (RULES 2.2, :func:`enumerate_assignments`)
    carries a log weight, starting at the exact prior conditioned on the observer's role.  A
    public event of category ``c`` by actor ``a`` (and target ``t``) multiplies each assignment
    ``rho`` by ``P(c | rho_a) * f_c(rho_a, rho_t)`` (the target factor only for
    :data:`TARGETED` categories).  The event model is a pseudo-likelihood: it ignores which
    actions were legal.  ``belief()`` is the exact posterior marginal of this model, so it is
    always a feasible set of marginals.

    **Base game only**: ``reset`` raises ``NotImplementedError`` for an expansion config (a
    factored or sampled version for Saboteur 2 is not implemented); ``saboteur bluff
    --expansion`` leaves the ``bayes`` and ``bayes-fit`` detectors out.

    Args:
        category_probs: ``(n_roles, len(CATEGORIES))``, rows summing to 1.
        target_ratios: category -> ``(n_roles, n_roles)`` positive factors.
        name: the detector's name in reports.
    """

    name = "bayes"

    def __init__(self, category_probs=None, target_ratios=None, name: str | None = None):
        self.category_probs = np.asarray(
            DEFAULT_CATEGORY_PROBS if category_probs is None else category_probs, float)
        self.target_ratios = {k: np.asarray(v, float) for k, v in
                              (target_ratios or DEFAULT_TARGET_RATIOS).items()}
        self._logc = np.log(self.category_probs)
        self._logt = {k: np.log(v) for k, v in self.target_ratios.items()}
        if name:
            self.name = name

    def reset(self, seat, config, own_role) -> None:
        if getattr(config, "expansion", False):
            raise NotImplementedError(
                "BayesDetector is base-game only: exact enumeration over the expansion's "
                "6-role assignments (up to 12 seats) is not implemented (the benchmark skips it "
                "for --expansion)")
        self._R, self._logp, self._oh = _Assignments.get(config)
        self.tracker = PublicTracker()
        super().reset(seat, config, own_role)

    def new_round(self) -> None:
        self.tracker.new_round()
        lp = self._logp
        if self.seat is not None and self.own_role is not None:
            lp = np.where(self._R[:, self.seat] == self.own_role, lp, -np.inf)
        self._logw = lp.copy()

    def update(self, event) -> None:
        if event.visible_to is not None:
            return  # the event model uses public events only
        cat = self.tracker.categorize(event)
        if cat is None:
            return
        a, c, tg = cat
        ra = self._R[:, a]
        self._logw = self._logw + self._logc[ra, CAT_INDEX[c]]
        if c in self._logt and tg >= 0:
            self._logw = self._logw + self._logt[c][ra, self._R[:, tg]]

    def belief(self) -> np.ndarray:
        return marginals(self._oh, self._logw, self.n)

    @classmethod
    def fit(cls, samples: Sequence[tuple[int, int, int, int]], n_roles: int = N_ROLES,
            smoothing: float = 1.0, name: str = "bayes-fit") -> BayesDetector:
        """Maximum-likelihood event model from training records.

        Args:
            samples: ``(actor_role, category_index, target_role or -1, base_role_mix)`` per
                public event, with the true roles of that round; ``base_role_mix`` is unused
                for untargeted events (pass -1) and for targeted ones is the role of a target
                drawn uniformly from the other players (the base rate).
            smoothing: add-``smoothing`` (Laplace) counts.

        ``P(c | role)`` is the (smoothed) maximum-likelihood categorical; the target factor
        ``f_c(a, b) = P(target role b | actor a, c) / P(role b of a random other player | a)``.
        """
        k = len(CATEGORIES)
        cc = np.full((n_roles, k), smoothing)
        tc = {c: np.full((n_roles, n_roles), smoothing) for c in TARGETED}
        bc = {c: np.full((n_roles, n_roles), smoothing) for c in TARGETED}
        for ar, ci, tr, br in samples:
            cc[ar, ci] += 1
            c = CATEGORIES[ci]
            if c in tc and tr >= 0:
                tc[c][ar, tr] += 1
                bc[c][ar, br] += 1
        probs = cc / cc.sum(axis=1, keepdims=True)
        ratios = {}
        for c in TARGETED:
            pt = tc[c] / tc[c].sum(axis=1, keepdims=True)
            pb = bc[c] / bc[c].sum(axis=1, keepdims=True)
            ratios[c] = pt / pb
        return cls(probs, ratios, name=name)


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
    harness records how often."""

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
    "OracleDetector", "PriorDetector", "PublicTracker", "UniformDetector",
    "digger_roles", "enumerate_assignments", "exact_prior", "feasible_count_bounds",
    "fit_logistic", "fit_temperature", "p_no_saboteur", "role_deck", "saboteur_index",
]
