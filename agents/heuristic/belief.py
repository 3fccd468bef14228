"""Role beliefs of one seat: the exact prior over role assignments and a suspicion model.

Self-contained (numpy and :mod:`saboteur_env.engine` only), so that detectors can use it.  The
role deck and the role names come from the game's ruleset (``config.ruleset``, RULES 2.2, 6.2);
columns of every belief are role ids (indexes into ``ruleset.roles``, the observation's role
one-hot order) and rows absolute seats.

* Priors: :func:`role_assignment_prior` (every saboteur / non-saboteur pattern of the other
  players and its exact hypergeometric probability), :func:`role_marginal` (the exact chance
  that another given player holds each role) and :func:`exact_prior_belief`.
* Evidence: every public action of another player adds a log-likelihood to that player's row
  of ``L`` (``(n_players, n_roles)``); the functions :func:`placement_evidence`,
  :func:`rockfall_evidence`, :func:`break_evidence` and :func:`repair_evidence` give the
  saboteur column's log-likelihood ratio ``log P(action | saboteur) / P(action | not)``
  (progress is honest, harm is suspicious, breaking a trusted player is suspicious, ...).
* Posteriors: :class:`AssignmentBelief` is exact over the joint assignment given the
  per-player ratios (two-role decks: the prior of each assignment times the product of the
  ratios of its saboteurs); :class:`SeatBelief` treats the seats as independent given the deck
  (the marginal is exact before any evidence, an approximation after it), keeps a row per
  role, and makes a row one-hot once that player's card has been seen (Inspection, RULES 6.5)
  until its hat is swapped.
"""

from __future__ import annotations

from itertools import product
from math import comb

import numpy as np

from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.ruleset import Ruleset

LLR_CLIP = 5.0  # every log-likelihood stays within +-LLR_CLIP

# evidence weights (log-likelihood ratios, saboteur vs not)
EV_PROGRESS = 0.6  # per tunnel step of progress (negative for harm)
EV_DEAD_END = 0.6  # a dead end placed on the tunnel front
EV_BREAK = 1.0  # breaking a player who looks honest
EV_REPAIR = 0.6  # repairing a player who looks honest
EV_BREAK_ME = 1.5  # breaking my tools when I know I am not a saboteur
EV_DOOR = 0.4  # a door of a colour on the main line: evidence for that team (RULES 6.3)
EV_CRYSTAL = 0.3  # a crystal card placed: evidence for the crystal collectors (RULES 6.9)


# --- priors (RULES 2.2, 6.2) ------------------------------------------------------------
def role_deck(config: GameConfig) -> np.ndarray:
    """int64 ``(n_roles,)``: the dwarf cards of each role shuffled for ``config`` (RULES 2.2,
    6.2, 10)."""
    return config.ruleset.role_deck(config.num_players, config.role_table)


def role_assignment_prior(config: GameConfig, my_role: int) -> tuple[np.ndarray, np.ndarray]:
    """Every saboteur / non-saboteur pattern of the other ``n - 1`` players and its exact prior.

    The role deck minus the own card is shuffled; the others get ``n - 1`` cards, the rest is
    set aside (RULES 2.2).  A given pattern with ``k`` saboteurs has probability
    ``C(aside, S' - k) / C(pool, S')`` (``S'`` saboteur cards left, ``pool`` cards left).

    Returns:
        ``combos`` int8 ``(m, n - 1)`` (1 = saboteur; columns: the seats after the own one,
        clockwise) and ``prior`` float64 ``(m,)`` (sums to 1, zero-probability patterns
        dropped).
    """
    deck = role_deck(config)
    sab = int(deck[config.ruleset.saboteur])
    n = config.num_players
    pool = int(deck.sum()) - 1
    s_left = sab - (1 if my_role == config.ruleset.saboteur else 0)
    aside = pool - (n - 1)
    combos = np.array(list(product((0, 1), repeat=n - 1)), dtype=np.int8).reshape(-1, n - 1)
    k = combos.sum(axis=1)
    prior = np.array(
        [comb(aside, s_left - int(kk)) if 0 <= s_left - kk <= aside else 0 for kk in k],
        dtype=np.float64,
    ) / comb(pool, s_left)
    keep = prior > 0
    return combos[keep], prior[keep]


def role_marginal(config: GameConfig, my_role: int | None, known: dict | None = None) -> np.ndarray:
    """float64 ``(n_roles,)``: the exact chance that another given player holds each role,
    summing to 1: the role deck less the own card and less the ``known`` roles of other seats
    (``{seat: role}``, e.g. seen by Inspection, RULES 6.5); every remaining card is equally
    likely to be that player's (RULES 2.2, 6.2)."""
    c = role_deck(config).astype(np.float64)
    if my_role is not None:
        c[my_role] -= 1
    for r in (known or {}).values():
        if c[r] > 0:
            c[r] -= 1
    return c / c.sum()


def exact_prior_belief(config: GameConfig, seat: int, my_role: int) -> np.ndarray:
    """The belief before any public event: float64 ``(n, n_roles)``, the own row one-hot, the
    others :func:`role_marginal` (RULES 2.2, 6.2)."""
    b = np.tile(role_marginal(config, my_role), (config.num_players, 1))
    b[seat] = 0.0
    b[seat, my_role] = 1.0
    return b


# --- evidence -------------------------------------------------------------------------------
def _clip(x: float, lo: float, hi: float) -> float:
    """``x`` clipped to ``[lo, hi]`` as a float (``np.clip``'s value, without its call cost
    on a scalar)."""
    return float(min(max(x, lo), hi))


def placement_evidence(progress: float, dead_end: bool) -> float:
    """Saboteur log-likelihood ratio of a path card placed with ``progress`` tunnel steps
    (RULES 3.1): harm is suspicious, a dead end more so."""
    ev = -EV_PROGRESS * _clip(progress, -3.0, 2.0)
    if dead_end:
        ev += EV_DEAD_END * (1.0 if progress < 0 else 0.3)
    return ev


def rockfall_evidence(progress: float, removed_dead_end: bool) -> float:
    """Saboteur log-likelihood ratio of a rockfall with ``progress`` (RULES 3.4); clearing a
    dead end is honest."""
    ev = -EV_PROGRESS * _clip(progress, -3.0, 2.0)
    return ev - (0.5 if removed_dead_end else 0.0)


def break_evidence(on_me: bool, i_am_honest: bool, q_target: float) -> float:
    """Saboteur log-likelihood ratio of breaking a tool (RULES 3.2, 6.5 Trapped!) of a target
    that is a saboteur with probability ``q_target``; ``on_me``: the target is the observer,
    who knows whether it is honest (not a saboteur)."""
    if on_me:
        return EV_BREAK_ME if i_am_honest else -0.5
    return EV_BREAK * (1.0 - 2.0 * q_target)


def repair_evidence(own_tools: bool, on_me: bool, i_am_honest: bool, q_target: float) -> float:
    """Saboteur log-likelihood ratio of a repair (RULES 3.3, 6.5 Free at last!); repairing
    oneself (``own_tools``) says nothing."""
    if own_tools:
        return 0.0
    if on_me:
        return -EV_REPAIR * 1.5 if i_am_honest else 0.3
    return -EV_REPAIR * (1.0 - 2.0 * q_target)


# --- posteriors -----------------------------------------------------------------------------
class RoleBelief:
    """Evidence about the other players of one seat's game, and the posterior over roles.

    Args:
        config: the game.
        seat: the observer's absolute seat.

    Attributes:
        role: the observer's own role id (``None`` until dealt).
        L: float64 ``(n, n_roles)``, per-seat log-likelihood of each role (clipped).
        inspected: ``{seat: role}`` seen by the observer's Inspection this round (RULES 6.5).
    """

    def __init__(self, config: GameConfig, seat: int) -> None:
        self.config = config
        self.n = config.num_players
        self.seat = seat
        self.role: int | None = None
        self.new_round()

    @property
    def rules(self) -> Ruleset:
        """The game's ruleset (``config.ruleset``)."""
        return self.config.ruleset

    def new_round(self) -> None:
        """Roles are redealt (RULES 2.4, 5.4): forget the evidence."""
        self.L = np.zeros((self.n, self.rules.n_roles))
        self.inspected: dict[int, int] = {}
        self._cache: tuple | None = None

    @property
    def llr(self) -> np.ndarray:
        """float64 ``(n,)`` view of the saboteur column of :attr:`L` (writable)."""
        return self.L[:, self.rules.saboteur]

    @property
    def honest(self) -> bool:
        """The observer knows it is not a saboteur."""
        return self.role != self.rules.saboteur

    def add(self, seat: int, llr: float, role: int | None = None) -> None:
        """Add evidence ``llr`` for ``role`` (default: the saboteur) to ``seat``'s row."""
        r = self.rules.saboteur if role is None else role
        self.L[seat, r] = _clip(self.L[seat, r] + llr, -LLR_CLIP, LLR_CLIP)

    def inspect(self, seat: int, role: int) -> None:
        """The observer saw ``seat``'s dwarf card (RULES 6.5 Inspection)."""
        self.inspected[seat] = role

    def hats_swapped(self, seat: int) -> None:
        """``seat`` took a new dwarf card (RULES 6.5 Swap your hats): what was seen of it, and
        (for another player) the evidence about it, is void."""
        self.inspected.pop(seat, None)
        if seat != self.seat:
            self.L[seat] = 0.0

    def belief(self) -> np.ndarray:
        """float64 ``(n, n_roles)``: role probabilities per absolute seat; rows sum to 1."""
        key = (self.role, self.L.tobytes(), tuple(sorted(self.inspected.items())))
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._posterior())
        return self._cache[1].copy()

    def suspicion(self) -> np.ndarray:
        """float64 ``(n,)``: P(saboteur) per absolute seat."""
        return self.belief()[:, self.rules.saboteur]

    def _posterior(self) -> np.ndarray:
        raise NotImplementedError


#: role_assignment_prior per (config, own role): shared by every belief of the process
_PRIORS: dict = {}


class AssignmentBelief(RoleBelief):
    """The exact posterior over the saboteur / non-saboteur assignment of the other players
    (RULES 2.2): each assignment's prior (:func:`role_assignment_prior`) times the product of
    the saboteur ratios ``exp(L[:, saboteur])`` of its saboteurs.  For two-role decks (the
    base game); an unknown own role counts as the non-saboteur one.

    Raises:
        ValueError: the ruleset has more than two roles.
    """

    def __init__(self, config: GameConfig, seat: int) -> None:
        if config.ruleset.n_roles != 2:
            raise ValueError(f"AssignmentBelief needs two roles, not {config.ruleset.roles}")
        super().__init__(config, seat)
        self.honest_role = 1 - self.rules.saboteur
        #: the other seats, clockwise from the observer's
        self._others = [(seat + 1 + i) % self.n for i in range(self.n - 1)]
        #: own role -> ``(combos, log prior)`` (hashing the config per posterior cost more
        #: than the posterior's arithmetic)
        self._log_priors: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _posterior(self) -> np.ndarray:
        sab = self.rules.saboteur
        role = self.honest_role if self.role is None else self.role
        cached = self._log_priors.get(role)
        if cached is None:
            key = (self.config, role)
            if key not in _PRIORS:
                _PRIORS[key] = role_assignment_prior(self.config, role)
            combos, prior = _PRIORS[key]
            cached = self._log_priors[role] = (combos, np.log(prior))
        combos, log_prior = cached
        others = self._others
        # minimum/maximum rather than np.clip: the same values at a fraction of the call cost
        llr = np.minimum(np.maximum(self.L[others, sab], -LLR_CLIP), LLR_CLIP)
        logw = log_prior + combos @ llr
        w = np.exp(logw - logw.max())
        w /= w.sum()
        q = w @ combos
        b = np.zeros((self.n, 2))
        b[others, sab] = q
        b[others, self.honest_role] = 1.0 - q
        b[self.seat, role] = 1.0
        return b


class SeatBelief(RoleBelief):
    """Independent seats given the deck: each other row is :func:`role_marginal` (the deck
    less the own card and the inspected ones) times ``exp(L[seat])``, normalised; inspected
    rows and the own row are one-hot (the own row is the deck's prior while the own role is
    unknown)."""

    def _posterior(self) -> np.ndarray:
        prior = role_marginal(self.config, self.role, self.inspected)
        with np.errstate(divide="ignore"):
            logp = np.log(prior)
        logits = logp[None, :] + self.L
        logits = logits - logits.max(axis=1, keepdims=True)
        b = np.exp(logits)
        b /= b.sum(axis=1, keepdims=True)
        for t, r in self.inspected.items():
            b[t] = 0.0
            b[t, r] = 1.0
        if self.role is not None:
            b[self.seat] = 0.0
            b[self.seat, self.role] = 1.0
        else:
            b[self.seat] = self.rules.role_prior(self.n, self.config.role_table)
        return b


__all__ = [
    "AssignmentBelief",
    "EV_BREAK",
    "EV_BREAK_ME",
    "EV_CRYSTAL",
    "EV_DEAD_END",
    "EV_DOOR",
    "EV_PROGRESS",
    "EV_REPAIR",
    "LLR_CLIP",
    "RoleBelief",
    "SeatBelief",
    "break_evidence",
    "exact_prior_belief",
    "placement_evidence",
    "repair_evidence",
    "role_assignment_prior",
    "role_deck",
    "role_marginal",
    "rockfall_evidence",
]
