"""The detector protocol (:class:`Detector`) and the reference detectors: uniform, the exact
prior and the oracle."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import EventType

from .assignments import hat_swap_target
from .priors import exact_prior


class Detector:
    """Base class of the detector protocol (see :mod:`saboteur_experiments.bluff.detectors`).

    After :meth:`reset` it holds ``seat``, ``config``, ``own_role``, ``n`` (players),
    ``n_roles`` (``config.ruleset.n_roles``) and ``held`` (every role the observer held this
    round).  :meth:`observe` handles the round starts and the observer's own ``role_dealt``
    events (RULES 2.2, 6.5) and passes every other event to :meth:`update`.
    """

    name = "detector"
    #: tracks it may run on: "spectator" (public events only) and/or "in-seat"
    tracks: tuple[str, ...] = ("spectator", "in-seat")

    def reset(self, seat: int | None, config: GameConfig, own_role: int | None) -> None:
        """A new game: ``seat`` ``None`` for a spectator, else the observer's seat and its
        role id ``own_role``."""
        self.seat, self.config, self.own_role = seat, config, own_role
        self.n = config.num_players
        self.n_roles = config.ruleset.n_roles
        #: every role the observer held this round (several after a Swap your hats on it)
        self.held = [] if own_role is None else [int(own_role)]
        self.new_round()

    def new_round(self) -> None:
        """A round starts (roles redealt): forget the evidence of the last round."""

    def role_changed(self) -> None:
        """Saboteur 2: a Swap your hats gave the observer a new role (``own_role``, also last in
        ``held``) mid-round; the round's evidence stays (override to re-condition)."""

    def observe(self, event) -> None:
        """One event the track allows, in order."""
        if event.type == EventType.ROUND_START:
            self.held = []
            self.new_round()
        elif (
            event.type == EventType.ROLE_DEALT and self.seat is not None and event.seat == self.seat
        ):
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
        """float64 ``(n, n_roles)``: each player's role probabilities, rows summing to 1."""
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

    def __init__(
        self,
        roles_by_round: Sequence[Sequence[int]],
        swaps_by_round: Sequence[Sequence[tuple[int, int]]] | None = None,
    ) -> None:
        self.roles_by_round = roles_by_round
        self.swaps_by_round = swaps_by_round

    def reset(self, seat, config, own_role) -> None:
        self.round = -1
        self.cur: list[int] | None = None
        super().reset(seat, config, own_role)

    def observe(self, event) -> None:
        if event.type == EventType.ROUND_START:
            self.round = int(event.data["round"])
            if self.swaps_by_round is not None:
                self.cur = list(self.roles_by_round[self.round])
                self._swaps = list(self.swaps_by_round[self.round])
        elif self.cur is not None and hat_swap_target(event) is not None:
            t, r = self._swaps.pop(0)
            self.cur[t] = r

    def belief(self) -> np.ndarray:
        r = np.asarray(
            self.cur if self.cur is not None else self.roles_by_round[max(self.round, 0)]
        )
        return np.eye(self.n_roles)[r]


#: the names of the benchmark's own detectors (``saboteur bluff`` scores them by these names;
#: a user's detector may not take one)
BUILTIN_NAMES = (
    "uniform",
    "prior",
    "bayes",
    "bayes-fit",
    "logistic",
    "heuristic-belief",
    "policy-bayes",
    "ceiling",
)


def load_detector(spec: str) -> tuple[str, Callable[[], Detector], tuple[str, ...]]:
    """A user's own detector for ``saboteur bluff --detectors``: ``spec`` is ``"MODULE.ATTR"``,
    ``ATTR`` of the importable module ``MODULE`` (e.g. ``mydetectors.HarmCounter`` with
    ``PYTHONPATH=.``), a :class:`Detector` subclass or a factory taking no argument that
    returns a fresh detector.  Every process that scores imports the module by name.

    Returns:
        ``(name, factory, tracks)``: the detector's :attr:`Detector.name` (``spec`` where it
        keeps the default ``"detector"``), the factory called once per game and observer, and
        the tracks it runs on (:attr:`Detector.tracks`).

    Raises:
        ValueError: the module does not import, lacks ``ATTR``, ``ATTR`` fails or does not
            return a :class:`Detector`, its name is one of :data:`BUILTIN_NAMES`, its tracks
            are not among ``"spectator"`` and ``"in-seat"``, or it asks for the actors'
            private views (``needs_decisions`` without ``samples``).
    """
    from saboteur_agents.base import import_callable

    factory = import_callable(spec, spec, "detector")
    try:
        det = factory()
    except Exception as err:
        raise ValueError(
            f"detector spec {spec!r}: {spec}() failed ({type(err).__name__}: {err}); it must "
            "build a detector with no argument"
        ) from err
    if not isinstance(det, Detector):
        raise ValueError(
            f"detector spec {spec!r}: {spec}() returned {type(det).__name__}, not a "
            "saboteur_experiments.bluff.detectors.Detector"
        )
    name = spec if det.name == Detector.name else str(det.name)
    if name in BUILTIN_NAMES:
        raise ValueError(
            f"detector spec {spec!r}: its name {name!r} is one of the benchmark's own "
            f"({', '.join(BUILTIN_NAMES)}); give the class another name"
        )
    if getattr(det, "needs_decisions", False) and not getattr(det, "samples", 0):
        # the harness shows such a detector every actor's own view (the Bayes ceiling's
        # privilege): a user's detector gets only what its track may see
        raise ValueError(
            f"detector spec {spec!r}: needs_decisions without samples asks for every actor's "
            "private view (the privileged Bayes ceiling's); a detector of your own sees only "
            "its track's events (or give samples=K: K spectator samples per decision)"
        )
    from ..harness import TRACKS

    tracks = tuple(det.tracks)
    if not tracks or not set(tracks) <= set(TRACKS):
        raise ValueError(f"detector spec {spec!r}: tracks {tracks!r}, some of {TRACKS}")
    return name, factory, tracks


def load_detectors(specs: Sequence[str]) -> list[str]:
    """The names of the user's detectors ``specs`` (:func:`load_detector` each), checked
    before a run.

    Raises:
        ValueError: a spec that does not load, or two detectors with one name.
    """
    names = [load_detector(spec)[0] for spec in specs]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"detectors {list(specs)}: two are named {name!r}")
    return names
