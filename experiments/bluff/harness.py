"""The scoring harness of the bluff benchmark: detectors bound to a track and an observer
(:class:`BoundDetector`), the replay of a record that asks every detector for its belief
(:func:`score_record`), and the fitting of the detectors with parameters
(:func:`training_data`, :func:`fit_detectors`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from saboteur_agents.base import AgentError
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import EventData, EventType
from saboteur_env.engine.ruleset import BASE, Ruleset

from . import metrics as M
from .detectors import (
    BayesDetector,
    Detector,
    FeatureDetector,
    LogisticDetector,
    event_categories,
    feasible_count_bounds,
    fit_logistic,
    fit_temperature,
)

TRACKS = ("spectator", "in-seat")


class LeakError(RuntimeError):
    """The harness was asked to pass an event the detector's track may not see."""


class BeliefError(ValueError):
    """A detector's belief is not an (n_players, n_roles) array of rows summing to 1."""


class DetectorError(AgentError):
    """A detector failed while a record was scored (:func:`score_record`): one of its methods
    raised, or its belief was not a distribution (:class:`BeliefError`).  The message names
    the detector, its track and seat, the record and the decision (the command line prints it
    as one line, as a failing agent's :class:`~saboteur_agents.base.AgentError`); the original
    exception is its ``__cause__`` (in this process)."""


def _blame(
    err: Exception, name: str, track: str, seat: int | None, where: str, decisions: int
) -> DetectorError:
    """``err``, raised by detector ``name`` (its row label) on ``track`` for observer
    ``seat``, as a :class:`DetectorError` naming it, the record and the decision."""
    at = "" if seat is None else f", seat {seat}"
    return DetectorError(
        f"detector {name!r} ({track} track{at}) on {where}, decision {decisions}: "
        f"{type(err).__name__}: {err}"
    )


def check_belief(b, n: int, n_roles: int) -> np.ndarray:
    """``b`` as float64 ``(n, n_roles)`` if it is a distribution per row, else
    :class:`BeliefError`."""
    if b is None:
        raise BeliefError(f"belief() returned None, not a float array of shape {(n, n_roles)}")
    try:
        b = np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        raise BeliefError(
            f"belief() returned {type(b).__name__} {b!r:.60}, not a float array of shape "
            f"{(n, n_roles)}"
        ) from None
    if b.shape != (n, n_roles):
        raise BeliefError(f"belief shape {b.shape}, expected {(n, n_roles)}")
    if not np.isfinite(b).all() or (b < -1e-9).any():
        raise BeliefError("belief has a negative or non-finite entry")
    if np.abs(b.sum(axis=1) - 1).max() > 1e-6:
        raise BeliefError(f"belief rows sum to {b.sum(axis=1)}, not 1")
    return b


@dataclass
class BoundDetector:
    """A detector in one track for one observer: the only way events reach it.

    ``feed`` raises :class:`LeakError` for an event the track may not see: any private event
    on the spectator track, another seat's private event in-seat.

    Raises:
        ValueError: an unknown track, a seat on the spectator track (or none in-seat), or a
            detector that does not run on this track (its ``tracks``, e.g. the in-seat only
            :class:`.detectors.AgentBeliefDetector`).
    """

    det: Detector
    track: str
    seat: int | None
    config: GameConfig
    own_role: int | None = None
    _bounds: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.track not in TRACKS:
            raise ValueError(f"unknown track {self.track!r}; valid: {TRACKS}")
        if (self.track == "spectator") != (self.seat is None):
            raise ValueError("the spectator track has no seat; the in-seat track needs one")
        if self.track not in getattr(self.det, "tracks", TRACKS):
            raise ValueError(
                f"detector {self.det.name!r} runs on the {self.det.tracks} "
                f"track(s) only, not {self.track!r}"
            )
        if self.track == "spectator":
            self.own_role = None
        self.det.reset(self.seat, self.config, self.own_role)

    def allowed(self, event) -> bool:
        """Whether the track may see ``event``: public ones, and in-seat the seat's own."""
        return event.visible_to is None or (
            self.track == "in-seat" and event.visible_to == self.seat
        )

    def feed(self, event) -> None:
        """Pass ``event`` to the detector (in-seat, a ``role_dealt`` also updates
        ``own_role``); :class:`LeakError` if the track may not see it."""
        if not self.allowed(event):
            raise LeakError(
                f"{self.track} detector {self.det.name!r} (seat {self.seat}) may not "
                f"see the private {str(event.type)!r} event of seat {event.visible_to}"
            )
        if event.type == EventType.ROLE_DEALT and self.track == "in-seat":
            self.own_role = int(event.data["role"])
        self.det.observe(event)

    def belief(self) -> tuple[np.ndarray, bool]:
        """The checked belief and whether its marginals are feasible."""
        n = self.config.num_players
        k = self.config.ruleset.n_roles
        b = check_belief(self.det.belief(), n, k)
        key = self.own_role
        if key not in self._bounds:
            self._bounds[key] = feasible_count_bounds(self.config, self.seat, self.own_role)
        lo, hi = self._bounds[key]
        s = b.sum(axis=0)
        ok = bool((s >= lo - 1e-6).all() and (s <= hi + 1e-6).all())
        if self.seat is not None and self.own_role is not None:
            ok &= bool(abs(b[self.seat, self.own_role] - 1) < 1e-6)
        return b, ok


Factory = Callable[[], Detector]


@dataclass
class Scored:
    """Scored rows of one (track, detector) over many games (see :mod:`.metrics`)."""

    game: list = field(default_factory=list)
    round: list = field(default_factory=list)
    observer: list = field(default_factory=list)
    target: list = field(default_factory=list)
    progress: list = field(default_factory=list)
    P: list = field(default_factory=list)
    y: list = field(default_factory=list)
    feasible: list = field(default_factory=list)
    observer_role: list = field(default_factory=list)

    def arrays(self) -> dict:
        """The rows as arrays: int64 ``game``, ``round``, ``observer`` (-1: spectator),
        ``target``, ``y`` (the target's true role) and ``observer_role`` (-1), float
        ``progress`` (turn / the round's turns), bool ``feasible``, float ``P``
        ``(rows, n_roles)``."""
        cat = {
            k: np.concatenate(getattr(self, k)) if getattr(self, k) else np.zeros(0)
            for k in (
                "game",
                "round",
                "observer",
                "target",
                "progress",
                "y",
                "feasible",
                "observer_role",
            )
        }
        cat["P"] = np.concatenate(self.P) if self.P else np.zeros((0, 2))
        for k in ("game", "round", "observer", "target", "y", "observer_role"):
            cat[k] = cat[k].astype(np.int64)
        cat["feasible"] = cat["feasible"].astype(bool)
        return cat


def score_record(
    rec,
    game_index: int,
    factories: dict[str, Sequence[tuple[str, Factory]]],
    sink: dict[tuple[str, str], Scored],
    stride: int = 1,
    where: str = "",
) -> dict:
    """Replay one record and score every detector before every ``stride``-th decision of
    the rounds' play (not the Saboteur 2 thefts, which come after the roles are revealed,
    RULES 5.1, 6.9).

    Besides the events its track allows, a detector may ask for more at every decision:
    ``needs_turns`` (in-seat, :class:`.detectors.AgentBeliefDetector`): its own seat's
    observation, mask and events on that seat's turns; ``needs_decisions``
    (:class:`.detectors.PolicyBayesDetector`): with ``samples == 0`` every actor's view with
    its roles removed (:func:`without_roles`) before the decision and, after it, the action
    and what an Inspection showed the actor; with ``samples = K`` the actor's view and mask in
    ``K`` spectator samples (``Game.determinize(None, rng)``, seeded by the deal and the
    decision) and then the action.

    Args:
        rec: a :class:`saboteur_env.record.Record`.
        factories: track -> ``[(detector name, factory), ...]``.
        sink: ``(track, detector name) -> Scored`` collecting rows.
        where: the record as an error names it (default: its deal seed).

    Returns:
        ``{"rounds": [{"round", "gold_found", "roles", "turns"}, ...]}``.

    Raises:
        DetectorError: a detector raised, or gave a belief that is not a distribution
            (named: detector, track, seat, record, decision).
    """
    from saboteur_env.encoding.codec import Codec
    from saboteur_env.encoding.observation import ObservationEncoder
    from saboteur_env.record import replay

    cfg = rec.config
    n = cfg.num_players
    steps = replay(rec, copy=False)
    first = next(steps)
    game = first.game
    where = where or f"the record of deal seed {rec.seed}"

    names: dict[int, str] = {}  # id of a bound detector -> its row label

    def blame(err: Exception, b: BoundDetector) -> DetectorError:
        return _blame(err, names[id(b)], b.track, b.seat, where, game.decisions)

    def call(b: BoundDetector, method: Callable, *args):
        """``method(*args)`` of detector ``b`` (or of ``b`` itself), its errors named."""
        try:
            return method(*args)
        except Exception as err:
            raise blame(err, b) from err

    bound: list[tuple[str, str, BoundDetector]] = []
    for track in TRACKS:
        for name, fac in factories.get(track, ()):
            for s in [None] if track == "spectator" else range(n):
                try:
                    b = BoundDetector(
                        fac(), track, s, cfg, None if s is None else int(game.roles[s])
                    )
                except Exception as err:  # its reset, or a track it does not run on
                    raise _blame(err, name, track, s, where, game.decisions) from err
                names[id(b)] = name
                bound.append((track, name, b))
    turn_takers = [b for _, _, b in bound if getattr(b.det, "needs_turns", False)]
    # privileged detectors (the Bayes ceiling): each actor's view and action, no role
    deciders = [b for _, _, b in bound if getattr(b.det, "needs_decisions", False)]
    privileged = [b for b in deciders if not getattr(b.det, "samples", 0)]
    sampled = [b for b in deciders if getattr(b.det, "samples", 0)]
    counter: list[int] = []  # the decisions handed to them so far
    enc = codec = None
    pending: list[list] = [[] for _ in range(n)]
    if turn_takers or deciders:
        enc, codec = ObservationEncoder(cfg), Codec(cfg)
    buf: dict[tuple[str, str], dict] = defaultdict(lambda: defaultdict(list))
    round_turns: dict[int, int] = {}

    def feed(events):
        for e in events:
            for _, _, b in bound:
                if b.allowed(e):
                    try:
                        b.feed(e)
                    except LeakError:  # the harness's fault, not the detector's
                        raise
                    except Exception as err:
                        raise blame(err, b) from err
            if turn_takers or deciders:
                for s in range(n):
                    if e.seen_by(s):
                        pending[s].append(e)

    def point():
        r, t = game.round, game.turn
        cur = game.current
        if turn_takers or deciders:
            obs = enc.encode(game, cur)
            mask = codec.mask(game)
            for b in turn_takers:
                if b.seat == cur:
                    call(b, b.det.observe_turn, obs, mask, {"events": list(pending[cur])})
            if privileged:
                seen, events = without_roles(enc, obs, pending[cur])
                for b in privileged:
                    call(b, b.det.before_decision, seen, mask, cur, events)
            if sampled:
                # K states consistent with the public record alone, seeded by the deal and
                # the decision: the same samples for every detector and every run
                rng = np.random.default_rng([int(rec.seed), len(counter)])
                K = max(b.det.samples for b in sampled)
                O, Ms = [], []
                for _ in range(K):
                    g = game.determinize(None, rng)
                    O.append(without_roles(enc, enc.encode(g, cur), [])[0])
                    Ms.append(codec.mask(g))
                O, Ms = np.stack(O), np.stack(Ms)
                for b in sampled:
                    call(
                        b,
                        b.det.before_decision_sampled,
                        O[: b.det.samples],
                        Ms[: b.det.samples],
                        cur,
                    )
            counter.append(cur)
            pending[cur] = []
        if t % stride or game.roles_revealed:  # Saboteur 2's thefts: every role is face up
            return
        roles = game.roles.astype(np.int64)
        for track, name, b in bound:
            P, ok = call(b, b.belief)
            tg = np.arange(n) if b.seat is None else np.delete(np.arange(n), b.seat)
            d = buf[(track, name)]
            d["round"].append(np.full(len(tg), r))
            d["turn"].append(np.full(len(tg), t))
            d["observer"].append(np.full(len(tg), -1 if b.seat is None else b.seat))
            d["target"].append(tg)
            d["P"].append(P[tg])
            d["y"].append(roles[tg])
            d["feasible"].append(np.full(len(tg), ok))
            d["observer_role"].append(
                np.full(len(tg), -1 if b.seat is None else int(roles[b.seat]))
            )

    feed(first.events)
    point()
    for step in steps:
        if privileged:  # what an Inspection showed the actor (Saboteur 2): its policy reads it
            seen_roles = [
                (e.data["target"], e.data["role"])
                for e in step.events
                if e.type == EventType.INSPECTION_RESULT
            ]
        for b in privileged:
            call(b, b.det.after_decision, step.seat, step.action, seen_roles)
        if sampled:  # a spectator: a face-down discard is any discard (RULES 3.6)
            public = codec.public_actions(step.action)
        for b in sampled:
            call(b, b.det.after_decision, step.seat, public)
        feed(step.events)
        if step.round_result is not None:
            round_turns[step.round_result.round] = step.round_result.turns
        if not game.game_over and not game.round_over:
            point()
    for key, d in buf.items():
        sc = sink.setdefault(key, Scored())
        rnd = np.concatenate(d["round"])
        T = np.array([round_turns.get(int(x), 1) for x in rnd], float)
        sc.game.append(np.full(len(rnd), game_index))
        # round ids unique per record set: game_index * 64 + round (more rounds: a wider
        # stride, so a round of one game never shares an id with another's)
        sc.round.append(game_index * max(64, cfg.num_rounds) + rnd)
        sc.observer.append(np.concatenate(d["observer"]))
        sc.target.append(np.concatenate(d["target"]))
        sc.progress.append(np.concatenate(d["turn"]) / np.maximum(T, 1))
        sc.P.append(np.concatenate(d["P"]))
        sc.y.append(np.concatenate(d["y"]))
        sc.feasible.append(np.concatenate(d["feasible"]))
        sc.observer_role.append(np.concatenate(d["observer_role"]))
    return {
        "rounds": [
            {k: getattr(r, k) for k in ("round", "gold_found", "roles", "turns")}
            for r in game.round_results
        ]
    }


def without_roles(enc, observation: np.ndarray, events: Sequence) -> tuple[np.ndarray, list]:
    """What a privileged detector (``needs_decisions``) is shown of an actor's decision: a copy
    of its observation with the own-role one-hot zeroed, and its events with every dealt role
    (``role_dealt``) replaced by -1: every card, no role (in Saboteur 2 the roles the actor's
    own Inspections showed it stay in its view)."""
    from dataclasses import replace

    seen = np.array(observation, dtype=np.float32)
    enc.views(seen)["role"][...] = 0
    events = [
        replace(e, data=EventData({**e.data, "role": -1})) if e.type == EventType.ROLE_DEALT else e
        for e in events
    ]
    return seen, events


# --- fitting ---------------------------------------------------------------------------------
class _FeatureProbe(FeatureDetector):
    """Collects per-player features at every scoring point (training data of the classifier)."""

    name = "probe"

    def belief(self) -> np.ndarray:
        self.rows.append(np.concatenate([self.features(), self.offsets()], axis=1))
        return np.full((self.n, self.n_roles), 1.0 / self.n_roles)

    def reset(self, seat, config, own_role) -> None:
        self.rows = []
        super().reset(seat, config, own_role)


def training_data(records: Sequence, seed: int = 0) -> dict:
    """Everything the fitted detectors learn from, taken from records with their true roles.

    Returns ``{"bayes": [(actor_role, category, target_role, base_role)], "spectator": (X, y,
    round), "in-seat": (X, y, round)}``.  The event model's roles are those held when the event
    happened (``role_dealt`` events, also after a Saboteur 2 Swap your hats); its categories
    are the game's (:func:`.detectors.event_categories`).
    """
    from saboteur_env.record import replay

    rng = np.random.default_rng(seed)
    samples = []
    data = {t: ([], [], []) for t in TRACKS}
    for gi, rec in enumerate(records):
        # event model samples (public events, true roles at that moment)
        tracker, cat_index = event_categories(rec.config)
        by_round = [r["roles"] for r in rec.rounds]
        roles = None
        for step in replay(rec, copy=False):
            for e in step.events:
                if e.type == EventType.ROUND_START:
                    tracker.new_round()
                    r = int(e.data["round"])
                    roles = list(by_round[r] if r < len(by_round) else step.game.roles.tolist())
                    continue
                if e.type == EventType.ROLE_DEALT:  # the deal, or a Swap your hats (RULES 6.5)
                    roles[e.seat] = int(e.data["role"])
                    continue
                if e.visible_to is not None:
                    continue
                cat = tracker.categorize(e)
                if cat is None:
                    continue
                a, c, tg = cat
                others = [s for s in range(rec.config.num_players) if s != a]
                base = int(roles[others[rng.integers(len(others))]])
                samples.append(
                    (int(roles[a]), cat_index[c], int(roles[tg]) if tg >= 0 else -1, base)
                )
        # classifier features
        probes: list = []

        def fac(probes=probes):
            p = _FeatureProbe()
            probes.append(p)
            return p

        sink: dict = {}
        score_record(rec, gi, {"spectator": [("probe", fac)], "in-seat": [("probe", fac)]}, sink)
        for track in TRACKS:
            sc = sink[(track, "probe")].arrays()
            tp = [p for p in probes if (p.seat is None) == (track == "spectator")]
            # rows were appended per point per observer in the same order as the sink rows
            X = _probe_rows(tp, sc, rec.config.num_players)
            data[track][0].append(X)
            data[track][1].append(sc["y"])
            data[track][2].append(sc["round"])
    out = {"bayes": samples}
    for t in TRACKS:
        X, y, r = data[t]
        out[t] = (np.concatenate(X), np.concatenate(y), np.concatenate(r)) if X else None
    return out


def _probe_rows(probes, sc, n) -> np.ndarray:
    """Feature rows aligned with the scored rows of a probe track."""
    if probes[0].seat is None:
        return np.concatenate(probes[0].rows)  # targets = all seats, in order
    # in-seat: rows interleave observers point by point, in seat order
    per = [iter(p.rows) for p in probes]
    out = []
    while True:
        try:
            for s, it in enumerate(per):
                f = next(it)
                out.append(np.delete(f, s, axis=0))
        except StopIteration:
            break
    return np.concatenate(out)


def merge_training_data(parts: Sequence[dict]) -> dict:
    """One :func:`training_data` dict from several (e.g. one per population): the event-model
    samples and the classifier rows concatenated, the round ids of part ``k`` offset by
    ``k * 10**9`` so that rounds of different parts never share a round weight."""
    out: dict = {"bayes": [s for p in parts for s in p["bayes"]]}
    for t in TRACKS:
        got = [(k, p[t]) for k, p in enumerate(parts) if p.get(t) is not None]
        out[t] = (
            (
                np.concatenate([x[0] for _, x in got]),
                np.concatenate([x[1] for _, x in got]),
                np.concatenate([x[2] + k * 10**9 for k, x in got]),
            )
            if got
            else None
        )
    return out


def fit_detectors(
    train, val, ruleset: Ruleset = BASE, seed: int = 0, progress=None, max_rows: int = 60_000
) -> dict:
    """Fit the event model and the classifiers; returns ``{"bayes-fit": BayesDetector,
    "logistic": {track: LogisticDetector}, "fit": diagnostics}``.

    ``train`` and ``val`` are records of one ruleset, ``ruleset`` (its roles are the
    classes; the event model has its categories, :data:`.detectors.CATEGORY_TABLES`).  The
    classifier is fitted on at most ``max_rows`` scored rows drawn uniformly (seeded) from the
    training split, keeping their round weights (:func:`fit_from_data`)."""
    tr = training_data(train, seed)
    if progress is not None:
        progress.update(len(train))
    va = training_data(val, seed + 1)
    if progress is not None:
        progress.update(len(val))
    return fit_from_data(tr, va, ruleset=ruleset, seed=seed, max_rows=max_rows)


def subsample(tr: dict, max_rows: int, seed: int = 0) -> dict:
    """``tr`` (:func:`training_data`) with every track's round weights (``<track>_weights``,
    taken over all its rows) and at most ``max_rows`` of its rows, drawn uniformly (seeded);
    already subsampled data is returned as it is."""
    if all(f"{t}_weights" in tr for t in TRACKS):
        return tr
    out = dict(tr)
    for t in TRACKS:
        XO, y, r = tr[t]
        w = M.round_weights(r)
        if len(y) > max_rows:
            keep = np.sort(np.random.default_rng(seed).choice(len(y), max_rows, replace=False))
            XO, y, r, w = XO[keep], y[keep], r[keep], w[keep]
        out[t], out[f"{t}_weights"] = (XO, y, r), w
    return out


def fit_from_data(
    tr: dict, va: dict, ruleset: Ruleset = BASE, seed: int = 0, max_rows: int = 60_000
) -> dict:
    """:func:`fit_detectors` on :func:`training_data` already taken (``tr`` to fit, ``va`` to
    calibrate the classifiers' temperature)."""
    n_roles = ruleset.n_roles
    tr = subsample(tr, max_rows, seed)
    bayes = BayesDetector.fit(tr["bayes"], ruleset=ruleset)
    diag: dict = {
        "bayes_category_probs": bayes.category_probs.round(4).tolist(),
        "bayes_target_ratios": {k: v.round(3).tolist() for k, v in bayes.target_ratios.items()},
    }
    logit = {}
    for t in TRACKS:
        XO, y, w = tr[t][0], tr[t][1], tr[f"{t}_weights"]
        X, O = XO[:, :-n_roles], XO[:, -n_roles:]
        W, mu, sd = fit_logistic(X, y, n_roles, sample_weight=w, offset=O)
        det = LogisticDetector(W, mu, sd)
        XOv, yv, rv = va[t]
        T = fit_temperature(
            det.logits(XOv[:, :-n_roles], XOv[:, -n_roles:]), yv, M.round_weights(rv)
        )
        logit[t] = LogisticDetector(W, mu, sd, T, name="logistic")
        diag[f"logistic_{t}"] = {"rows": int(len(y)), "temperature": T}
    return {"bayes-fit": bayes, "logistic": logit, "fit": diag}
