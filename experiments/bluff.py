"""The bluff-detection benchmark: ``saboteur bluff``.

Pipeline
========

1. **Record sets.**  Every population of actors (:data:`POPULATIONS`: random; heuristic with
   blatant saboteurs; heuristic with subtle saboteurs; the trained PPO agent) plays seeded games
   at each player count; each game is written once as a game record
   (:mod:`saboteur_env.record`, the project's one JSON Lines format) under
   ``<out>/records/<population>_n<N>/game_<seed>.jsonl`` (``<population>@<hash>`` for PPO
   checkpoints, :func:`fingerprint`; ``game_<seed>_r<rounds>.jsonl`` for games of other than
   3 rounds) with every event and its visibility (record format version
   2) and read back from there afterwards, so a record set is frozen: a later run with the same
   options reuses it.  Seeds are
   ``seed * 10**6 + N * 10**4 + population index * 10**3 + i`` (:func:`record_seed`; no two
   named populations share a deal).  Games ``i % 10 < 4`` are the training split, ``4, 5`` the
   validation split, ``>= 6`` the test split.  The events of a game
   (with their visibility) and the true roles of every round come from replaying its record
   through the engine (:func:`saboteur_env.record.replay`; the replay checks every round result
   against the record).
2. **Fitting.**  Detectors with parameters are fitted on the training split (and calibrated on
   the validation split) of every population except the held-out one (``--held-out``, default
   ``heuristic-subtle``), which is never used to fit anything.
3. **Scoring.**  The test split of every population is replayed; before every decision of a
   round each detector is asked for its belief.  Two tracks:

   * ``spectator``: one detector per game (``reset(None, config, None)``), fed public events
     only; targets are all players.
   * ``in-seat``: one detector per seat (``reset(seat, config, own_role)``), fed public events
     and that seat's private events; targets are the other players (a saboteur must find its
     fellow saboteurs too).

   The harness (:class:`BoundDetector`) refuses to pass an event that the track may not see
   (:class:`LeakError`), rejects a belief that is not a distribution (:class:`BeliefError`) and
   records beliefs whose marginals no role assignment can produce (role counts outside what
   the role deck allows, or an in-seat own row other than the own role).
4. **Metrics** (:mod:`experiments.bluff_metrics`): log loss and Brier score, their skill scores
   against the exact prior, AUROC by decile of round progress, reliability and ECE, detection
   survival and false-accusation rate; the label is the target's true role at that moment; every
   round weighs the same; 95% intervals by bootstrap over whole games (seeded).
5. **Deception.**  Each saboteur policy (random, heuristic blatant, heuristic subtle, PPO) also
   plays beside the *same* heuristic gold-diggers (:mod:`experiments.bluff_actors`), and
   ``heuristic-mimic`` saboteurs play exactly like gold-diggers (no sabotage, nothing to
   detect; Saboteur 2: like the boss).  The *bluff frontier* plots, per policy and player
   count, the panel's (:data:`PANEL`, spectator track) mean log-loss skill on the saboteurs'
   seats (lower: the policy hides better) against the drop of the gold-diggers' round win rate
   below the mimic reference (higher: the policy sabotages more); both with 95% bootstrap
   intervals.  A good bluffer sits low and to the right; the dashed line joins the
   non-dominated policies.

Saboteur 2 track (``--expansion``, RULES 6)
===========================================

The same pipeline on Saboteur 2 games (records under ``<population>_x<N>``, default 5 players,
40 games per population, held out ``heuristic-subtle``), with six roles (columns in
``cards.EXPANSION_ROLES`` order; the saboteur column is 5) and roles that change mid-round: the
label is the role a target holds at that moment (Swap your hats, RULES 6.5).  The exact prior is
the 15-card dwarf deck's (RULES 6.2), conditioned in-seat on every card the observer held.
Populations (:data:`EXPANSION_POPULATIONS`): random; the heuristic in its default, blatant and
subtle styles (their non-saboteur seats play alike); ``heuristic-mimic`` (saboteurs play as the
boss would: dig for either team, no sabotage) and ``heuristic-randomsab`` (random saboteurs)
beside the same heuristic non-saboteurs.  Every detector runs, the Bayes detectors on exact or
sampled Saboteur 2 role assignments with their own event categories
(:class:`experiments.detectors.BayesDetector`).  The bluff frontier runs too, with one
difference: the gold-diggers' "round win rate" is the share of rounds in which the gold is found
(the saboteurs' loss; which digger team, the boss or the profiteer then wins depends on the
doors, RULES 6.9).  No PPO: the PPO agent and its checkpoint are base-game only, so a ``ppo``
population is skipped with that reason.

Outputs under ``--out`` (default ``runs/bluff``): ``summary.csv`` (one row per track x detector
x population x player count), ``summary.json`` (also the skill and AUROC by progress decile,
reliability bins, survival curves, the frontier), ``skill_by_progress_<track>.png``,
``reliability_<track>.png``, ``survival_<track>.png``, ``bluff_frontier.png``, and a table per
track on the terminal.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from experiments import bluff_metrics as M
from experiments.detectors import (
    AgentBeliefDetector,
    BayesDetector,
    Detector,
    FeatureDetector,
    LogisticDetector,
    PriorDetector,
    UniformDetector,
    digger_roles,
    event_categories,
    feasible_count_bounds,
    fit_logistic,
    fit_temperature,
    role_deck,
    saboteur_index,
)
from saboteur_env.engine.config import GameConfig

#: population name -> agent spec (every seat plays it; the heuristic styles differ only in how
#: their saboteurs play).  The ``heuristic-*`` populations share the heuristic gold-diggers, so
#: they isolate the saboteur policy (:mod:`experiments.bluff_actors`): ``heuristic-mimic``
#: saboteurs play exactly like gold-diggers (the zero-sabotage reference of the frontier).
POPULATIONS = {
    "random": "random",
    "heuristic-blatant": "heuristic:blatant",
    "heuristic-subtle": "heuristic:subtle",
    "ppo": "ppo",
    "heuristic-mimic": "rolesplit:heuristic/mimic",
    "heuristic-randomsab": "rolesplit:heuristic/random",
    "heuristic-pposab": "rolesplit:heuristic/ppo",
}
#: saboteur policy of each population on the frontier (all play with heuristic gold-diggers)
FRONTIER = {"heuristic-mimic": "mimic (reference)", "heuristic-randomsab": "random",
            "heuristic-blatant": "heuristic blatant", "heuristic-subtle": "heuristic subtle",
            "heuristic-pposab": "ppo", "heuristic": "heuristic default"}
#: populations of the expansion track (``--expansion``, Saboteur 2): the heuristic in its three
#: styles (the styles differ only in how saboteurs play, so the non-saboteur seats play alike),
#: and the frontier's references with the same heuristic non-saboteurs (``rolesplit`` splits
#: saboteur against every other role; a mimic saboteur plays as the boss would).  No PPO: the
#: PPO agent and its checkpoint are base-game only.
EXPANSION_POPULATIONS = {
    "random": "random",
    "heuristic": "heuristic",
    "heuristic-blatant": "heuristic:blatant",
    "heuristic-subtle": "heuristic:subtle",
    "heuristic-mimic": "rolesplit:heuristic/mimic",
    "heuristic-randomsab": "rolesplit:heuristic/random",
}
TRACKS = ("spectator", "in-seat")
SPLITS = ("train", "val", "test")
PANEL = ("bayes", "bayes-fit", "logistic", "heuristic-belief")


class LeakError(RuntimeError):
    """The harness was asked to pass an event the detector's track may not see."""


class BeliefError(ValueError):
    """A detector's belief is not an (n_players, n_roles) array of rows summing to 1."""


#: fewest games per record set that fill every split (:func:`split_of`): 4 train, 2 val, 1 test
MIN_GAMES = 7
#: most games per record set (:func:`record_seed` gives each population 1000 deal seeds)
MAX_GAMES = 1000


def usable_populations(pops: Sequence[str], held_out: str, players: Sequence[int],
                       expansion: bool = False, ppo: str | None = None
                       ) -> tuple[dict[str, str], list[str], dict[str, str]]:
    """The agent spec of every population, those that can play here and why the others
    cannot (:func:`population_problem`, e.g. no torch for a PPO population).

    Returns:
        ``(specs, usable, skipped)``: population -> spec, the usable populations in order,
        population -> reason.

    Raises:
        ValueError: no population can play, or every usable one is ``held_out`` (nothing
            left to fit the detectors on).
    """
    table = EXPANSION_POPULATIONS if expansion else POPULATIONS
    specs = {p: table.get(p, POPULATIONS.get(p, p)) for p in pops}
    if ppo:
        specs.update({k: v for k, v in (("ppo", f"ppo:{ppo}"),
                                         ("heuristic-pposab", f"rolesplit:heuristic/ppo:{ppo}"))
                      if k in specs})
    skipped: dict[str, str] = {}
    usable: list[str] = []
    for pop in pops:
        why = population_problem(specs[pop], players[0], expansion)
        if why:
            skipped[pop] = why
        else:
            usable.append(pop)
    if not usable:
        raise ValueError("no population can play: " + "; ".join(
            f"{k}: {v}" for k, v in skipped.items()))
    if not [p for p in usable if p != held_out]:
        raise ValueError(f"every usable population is held out ({held_out}): nothing to fit "
                         f"the detectors on")
    return specs, usable, skipped


def split_of(i: int) -> str:
    """Split of game ``i`` of a record set: 40% train, 20% validation, 40% test."""
    r = i % 10
    return "train" if r < 4 else "val" if r < 6 else "test"


# --- record sets -------------------------------------------------------------------------
def population_problem(spec: str, n_players: int, expansion: bool = False) -> str | None:
    """Why population ``spec`` cannot play ``n_players`` here (``None``: it can)."""
    parts = spec.removeprefix("rolesplit:").split("/")
    if expansion and any(p.partition(":")[0] == "ppo" for p in parts):
        return ("the PPO agent is base-game only (its checkpoint has the base game's spaces; "
                "no Saboteur 2 checkpoint is shipped)")
    try:
        import experiments.bluff_actors  # noqa: F401  (registers "rolesplit")
        from agents import make_agent
        a = make_agent(spec)
        a.reset(0, GameConfig(num_players=n_players, expansion=expansion), seed=0)
    except Exception as err:  # noqa: BLE001 - report any reason (missing torch, checkpoint)
        return f"{type(err).__name__}: {err}"
    return None


#: every named population, in the order of their seed index (:func:`record_seed`)
_SEED_ORDER = (*POPULATIONS, *(p for p in EXPANSION_POPULATIONS if p not in POPULATIONS))


def record_seed(seed: int, n_players: int, pop: str, i: int) -> int:
    """Deal seed of game ``i`` (``0 <= i < 1000``) of population ``pop`` at ``n_players``:
    ``seed * 10**6 + N * 10**4 + k * 10**3 + i`` with ``k`` the population's index in
    :data:`POPULATIONS` then the expansion-only populations (``heuristic`` is 7), so that no
    two named populations share a deal at the same player count; any other population (an
    agent spec) gets ``k = 10 + CRC-32 % 990``."""
    if not 0 <= i < 1000:
        raise ValueError(f"game index {i}: at most 1000 games per record set")
    k = (_SEED_ORDER.index(pop) if pop in _SEED_ORDER
         else 10 + zlib.crc32(pop.encode()) % 990)
    return seed * 10**6 + n_players * 10**4 + k * 10**3 + i


def record_set(out: Path, pop: str, n_players: int, n_games: int, *, seed: int = 0,
               rounds: int = 3, progress=None, spec: str | None = None,
               expansion: bool = False) -> list[Path]:
    """Paths of the frozen record set of ``pop`` at ``n_players``, playing the missing games.

    ``spec``: the agent spec (default ``POPULATIONS[pop]``); a non-default spec, or one that
    loads a PPO checkpoint, gets its own folder (``<pop>@<fingerprint>``, :func:`fingerprint`),
    so a new checkpoint never reuses old records.  A game already on disk is never replayed or
    rewritten (its seed is in its file name, ``game_<seed>.jsonl``, or
    ``game_<seed>_r<rounds>.jsonl`` for games of other than 3 rounds); one whose header does
    not match the game asked for (player count, rounds, expansion, seed) raises
    :class:`ValueError`.  ``expansion``: Saboteur 2 games, in ``<tag>_x<N>`` folders
    (``<tag>_n<N>`` for the base game).
    """
    default = (EXPANSION_POPULATIONS if expansion else POPULATIONS).get(pop, pop)
    spec = spec or default
    import experiments.bluff_actors  # noqa: F401  (registers "rolesplit")
    from agents import make_agent

    fp = fingerprint(spec)
    tag = pop if spec == default and fp == spec else f"{pop}@{zlib.crc32(fp.encode()):08x}"
    d = out / "records" / f"{tag}_{'x' if expansion else 'n'}{n_players}"
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n_games):
        s = record_seed(seed, n_players, pop, i)
        p = d / (f"game_{s}.jsonl" if rounds == 3 else f"game_{s}_r{rounds}.jsonl")
        if p.exists():
            _check_reused(p, n_players, rounds, expansion, s)
        else:
            agents = [make_agent(spec) for _ in range(n_players)]
            tmp = p.with_suffix(".tmp")
            extra = {"expansion": True} if expansion else {}
            play_recorded(agents, s, tmp, meta={"population": pop, "spec": fp},
                          num_rounds=rounds, **extra)
            tmp.replace(p)
        paths.append(p)
        if progress is not None:
            progress.update(1)
    return paths


def _check_reused(path: Path, n_players: int, rounds: int, expansion: bool, seed: int) -> None:
    """A record already on disk must be the game asked for (its header's config and seed),
    else :class:`ValueError` naming the file (e.g. one written by an older version)."""
    with open(path, encoding="utf-8") as f:
        head = json.loads(f.readline() or "{}")
    cfg = head.get("config", {})
    got = (cfg.get("num_players"), cfg.get("num_rounds"), bool(cfg.get("expansion")),
           head.get("seed"))
    want = (n_players, rounds, bool(expansion), seed)
    if got != want:
        raise ValueError(
            f"{path} holds another game than the one asked for (players, rounds, expansion, "
            f"seed: {got} instead of {want}); remove it or choose another output folder")


def fingerprint(spec: str) -> str:
    """``spec``, plus the CRC-32 of every PPO checkpoint it loads (``ppo`` = the shipped one)."""
    name, _, opt = spec.partition(":")
    if name == "rolesplit":
        digger, _, saboteur = opt.partition("/")
        return f"rolesplit:{fingerprint(digger)}/{fingerprint(saboteur)}"
    if name != "ppo":
        return spec
    path = next((o for o in opt.split(",") if o and o != "greedy"), None)
    if path is None:
        from agents.ppo import DEFAULT_CHECKPOINT
        path = DEFAULT_CHECKPOINT
    try:
        return f"{spec}#{zlib.crc32(Path(path).read_bytes()):08x}"
    except OSError:
        return spec


def play_recorded(agents: Sequence, seed: int, path, meta: dict | None = None, **config) -> None:
    """Play one game (agent ``i`` in seat ``i``, agent seeds ``seed * 1000 + seat`` as in
    :func:`experiments.play.play_game`) and write its record with every event
    (:func:`saboteur_env.record.write_record` ``events=True``)."""
    import saboteur_env
    from saboteur_env.record import write_record

    n = len(agents)
    env = saboteur_env.raw_env(num_players=n, **config)
    env.reset(seed=seed)
    seeds = [seed * 1000 + s for s in range(n)]
    for s, a in enumerate(agents):
        a.reset(s, env.config, seed=seeds[s])
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(agents[env.agent_name_mapping[name]].act(obs["observation"],
                                                          obs["action_mask"], info))
    write_record(str(path), env.game, seed, [a.name for a in agents], agent_seeds=seeds,
                 meta=meta, events=True)


# --- the harness ---------------------------------------------------------------------------
def check_belief(b, n: int, n_roles: int) -> np.ndarray:
    """``b`` as float64 ``(n, n_roles)`` if it is a distribution per row, else
    :class:`BeliefError`."""
    b = np.asarray(b, dtype=float)
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
            :class:`experiments.detectors.AgentBeliefDetector`).
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
            raise ValueError(f"detector {self.det.name!r} runs on the {self.det.tracks} "
                             f"track(s) only, not {self.track!r}")
        if self.track == "spectator":
            self.own_role = None
        self.det.reset(self.seat, self.config, self.own_role)

    def allowed(self, event) -> bool:
        return event.visible_to is None or (self.track == "in-seat"
                                            and event.visible_to == self.seat)

    def feed(self, event) -> None:
        if not self.allowed(event):
            raise LeakError(f"{self.track} detector {self.det.name!r} (seat {self.seat}) may not "
                            f"see the private {event.type!r} event of seat {event.visible_to}")
        if event.type == "role_dealt" and self.track == "in-seat":
            self.own_role = int(event.data["role"])
        self.det.observe(event)

    def belief(self) -> tuple[np.ndarray, bool]:
        """The checked belief and whether its marginals are feasible."""
        n = self.config.num_players
        k = role_deck(self.config).size
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
    """Scored rows of one (track, detector) over many games (see :mod:`bluff_metrics`)."""

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
        cat = {k: np.concatenate(getattr(self, k)) if getattr(self, k) else np.zeros(0)
               for k in ("game", "round", "observer", "target", "progress", "y", "feasible",
                         "observer_role")}
        cat["P"] = np.concatenate(self.P) if self.P else np.zeros((0, 2))
        for k in ("game", "round", "observer", "target", "y", "observer_role"):
            cat[k] = cat[k].astype(np.int64)
        cat["feasible"] = cat["feasible"].astype(bool)
        return cat


def score_record(rec, game_index: int, factories: dict[str, Sequence[tuple[str, Factory]]],
                 sink: dict[tuple[str, str], Scored], stride: int = 1) -> dict:
    """Replay one record and score every detector before every ``stride``-th decision.

    Args:
        rec: a :class:`saboteur_env.record.Record`.
        factories: track -> ``[(detector name, factory), ...]``.
        sink: ``(track, detector name) -> Scored`` collecting rows.

    Returns:
        ``{"rounds": [{"round", "gold_found", "roles", "turns"}, ...]}``.
    """
    from saboteur_env.encoding.codec import Codec
    from saboteur_env.encoding.observation import ObservationEncoder
    from saboteur_env.record import replay

    cfg = rec.config
    n = cfg.num_players
    steps = replay(rec, copy=False)
    first = next(steps)
    game = first.game
    bound: list[tuple[str, str, BoundDetector]] = []
    for track in TRACKS:
        for name, fac in factories.get(track, ()):
            if track == "spectator":
                bound.append((track, name, BoundDetector(fac(), track, None, cfg)))
            else:
                for s in range(n):
                    bound.append((track, name, BoundDetector(fac(), track, s, cfg,
                                                             int(game.roles[s]))))
    turn_takers = [b for _, _, b in bound if getattr(b.det, "needs_turns", False)]
    enc = codec = None
    pending: list[list] = [[] for _ in range(n)]
    if turn_takers:
        enc, codec = ObservationEncoder(cfg), Codec(cfg)
    buf: dict[tuple[str, str], dict] = defaultdict(lambda: defaultdict(list))
    round_turns: dict[int, int] = {}

    def feed(events):
        for e in events:
            for _, _, b in bound:
                if b.allowed(e):
                    b.feed(e)
            if turn_takers:
                for s in range(n):
                    if e.visible_to is None or e.visible_to == s:
                        pending[s].append(e)

    def point():
        r, t = game.round, game.turn
        cur = game.current
        if turn_takers:
            obs = enc.encode(game, cur)
            mask = codec.mask(game)
            for b in turn_takers:
                if b.seat == cur:
                    b.det.observe_turn(obs, mask, {"events": list(pending[cur])})
            pending[cur] = []
        if t % stride:
            return
        roles = game.roles.astype(np.int64)
        for track, name, b in bound:
            P, ok = b.belief()
            tg = np.arange(n) if b.seat is None else np.delete(np.arange(n), b.seat)
            d = buf[(track, name)]
            d["round"].append(np.full(len(tg), r))
            d["turn"].append(np.full(len(tg), t))
            d["observer"].append(np.full(len(tg), -1 if b.seat is None else b.seat))
            d["target"].append(tg)
            d["P"].append(P[tg])
            d["y"].append(roles[tg])
            d["feasible"].append(np.full(len(tg), ok))
            d["observer_role"].append(np.full(len(tg), -1 if b.seat is None
                                              else int(roles[b.seat])))

    feed(first.events)
    point()
    for step in steps:
        feed(step.events)
        if step.round_result is not None:
            round_turns[step.round_result["round"]] = step.round_result["turns"]
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
    return {"rounds": [{k: r[k] for k in ("round", "gold_found", "roles", "turns")}
                       for r in game.round_results]}


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
    are the game's (:func:`experiments.detectors.event_categories`).
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
                if e.type == "round_start":
                    tracker.new_round()
                    r = int(e.data["round"])
                    roles = list(by_round[r] if r < len(by_round) else step.game.roles.tolist())
                    continue
                if e.type == "role_dealt":  # the deal, or a Swap your hats (RULES 6.5)
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
                samples.append((int(roles[a]), cat_index[c],
                                int(roles[tg]) if tg >= 0 else -1, base))
        # classifier features
        probes: list = []

        def fac(probes=probes):
            p = _FeatureProbe()
            probes.append(p)
            return p

        sink: dict = {}
        score_record(rec, gi, {"spectator": [("probe", fac)], "in-seat": [("probe", fac)]},
                     sink)
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


def fit_detectors(train, val, n_roles: int = 2, seed: int = 0, progress=None,
                  max_rows: int = 60_000, expansion: bool = False) -> dict:
    """Fit the event model and the classifiers; returns ``{"bayes-fit": BayesDetector,
    "logistic": {track: LogisticDetector}, "fit": diagnostics}``.

    ``n_roles`` 2 (base game) or 6 (``expansion``, Saboteur 2: the event model of
    :data:`experiments.detectors.X_CATEGORIES`).  The classifier is fitted on at most
    ``max_rows`` scored rows drawn uniformly (seeded) from the training split, keeping their
    round weights."""
    tr = training_data(train, seed)
    if progress is not None:
        progress.update(len(train))
    va = training_data(val, seed + 1)
    if progress is not None:
        progress.update(len(val))
    if expansion != (n_roles != 2):
        raise ValueError(f"n_roles={n_roles} does not fit expansion={expansion}")
    bayes = BayesDetector.fit(tr["bayes"], n_roles=n_roles)
    diag: dict = {"bayes_category_probs": bayes.category_probs.round(4).tolist(),
                  "bayes_target_ratios": {k: v.round(3).tolist()
                                          for k, v in bayes.target_ratios.items()}}
    logit = {}
    for t in TRACKS:
        XO, y, r = tr[t]
        w = M.round_weights(r)
        if len(y) > max_rows:
            keep = np.sort(np.random.default_rng(seed).choice(len(y), max_rows, replace=False))
            XO, y, w = XO[keep], y[keep], w[keep]
        X, O = XO[:, :-n_roles], XO[:, -n_roles:]
        W, mu, sd = fit_logistic(X, y, n_roles, sample_weight=w, offset=O)
        det = LogisticDetector(W, mu, sd)
        XOv, yv, rv = va[t]
        T = fit_temperature(det.logits(XOv[:, :-n_roles], XOv[:, -n_roles:]), yv,
                            M.round_weights(rv))
        logit[t] = LogisticDetector(W, mu, sd, T, name="logistic")
        diag[f"logistic_{t}"] = {"rows": int(len(y)), "temperature": T}
    return {"bayes-fit": bayes, "logistic": logit, "fit": diag}


# --- summaries -------------------------------------------------------------------------------
def summarize(sc: dict, prior: dict, *, B: int, seed: int, threshold: float,
              sab: int = 1, diggers: Sequence[int] = (0,)) -> dict:
    """All metrics of one (track, detector, population, N) cell; ``prior`` holds the exact
    prior's rows for the same points (same order).  ``sab``: the saboteur's column (5 in the
    expansion); ``diggers``: the gold-digger columns (green and blue in the expansion)."""
    SABOTEUR = sab
    P, y, w, g = sc["P"], sc["y"], None, sc["game"]
    if len(y) == 0:
        return {}
    w = M.round_weights(sc["round"])
    _, gi = np.unique(g, return_inverse=True)
    ng = int(gi.max()) + 1
    ll, br = M.log_loss_rows(P, y), M.brier_rows(P, y)
    llp, brp = M.log_loss_rows(prior["P"], y), M.brier_rows(prior["P"], y)
    num = np.stack([M.per_game_sums(gi, w * ll, ng), M.per_game_sums(gi, w * llp, ng),
                    M.per_game_sums(gi, w * br, ng), M.per_game_sums(gi, w * brp, ng),
                    M.per_game_sums(gi, w, ng)], axis=1)

    def boot(f):
        return M.bootstrap_ratio(num, np.ones_like(num), B=B, seed=seed, transform=f)

    out = {
        "rows": int(len(y)), "games": ng, "rounds": int(len(np.unique(sc["round"]))),
        "log_loss": boot(lambda s: s[..., 0] / s[..., 4]),
        "brier": boot(lambda s: s[..., 2] / s[..., 4]),
        "ll_skill": boot(lambda s: 1 - s[..., 0] / s[..., 1]),
        "brier_skill": boot(lambda s: 1 - s[..., 2] / s[..., 3]),
    }
    ps = P[:, SABOTEUR]
    pos = y == SABOTEUR
    out["auroc"] = M.auroc(ps, pos, w)
    dec = np.minimum((sc["progress"] * 10).astype(int), 9)
    out["auroc_by_decile"] = [M.auroc(ps[dec == k], pos[dec == k], w[dec == k])
                              for k in range(10)]
    sk = []
    for k in range(10):
        m = dec == k
        sk.append(M.skill(ll[m], llp[m], w[m]) if m.any() else float("nan"))
    out["ll_skill_by_decile"] = sk
    conf, freq, share, ece = M.reliability(ps, pos, w)
    out["reliability"] = {"confidence": conf.tolist(), "frequency": freq.tolist(),
                          "share": share.tolist()}
    out["ece"] = ece
    # one group per round, observer and target, split by the label: a Saboteur 2 Swap your
    # hats can make a target a saboteur mid-round or stop it being one (RULES 6.5); a crossing
    # while the target is no saboteur is a false accusation
    grp = ((sc["round"] * 16 + (sc["observer"] + 1)) * 16 + sc["target"]) * 2 + pos
    ids, first = M.first_crossing(grp, sc["progress"], ps, threshold)
    lab = np.zeros(len(ids), bool)
    uniq_idx = np.unique(grp, return_index=True)[1]
    lab[:] = pos[uniq_idx]
    grid = np.linspace(0, 1, 21)
    out["survival"] = M.survival_curve(first[lab], grid).tolist()
    det_t = first[lab]
    out["median_detection"] = float(np.median(det_t)) if len(det_t) else float("nan")
    out["detected_share"] = float(np.isfinite(det_t).mean()) if len(det_t) else float("nan")
    out["false_accusation"] = float(np.isfinite(first[~lab]).mean()) if (~lab).any() \
        else float("nan")
    out["infeasible"] = float(1 - sc["feasible"].mean())
    # in-seat: skill as seen by gold-digger observers and by saboteur observers (who must find
    # their fellow saboteurs)
    for r, label in ((tuple(diggers), "digger_observers"), ((SABOTEUR,), "saboteur_observers")):
        m = np.isin(sc["observer_role"], r)
        out[f"ll_skill_{label}"] = M.skill(ll[m], llp[m], w[m]) if m.any() else float("nan")
    # skill on saboteur targets only (the deception measure)
    m = pos
    if m.any():
        gs = np.stack([M.per_game_sums(gi[m], (w * ll)[m], ng),
                       M.per_game_sums(gi[m], (w * llp)[m], ng)], axis=1)
        out["ll_skill_saboteurs"] = M.bootstrap_ratio(
            gs, np.ones_like(gs), B=B, seed=seed,
            transform=lambda s: 1 - s[..., 0] / s[..., 1])
        out["_saboteur_sums"] = (np.unique(g), gs)
    return out


def _fmt(ci) -> str:
    if not ci or ci[0] != ci[0]:
        return "n/a"
    return f"{ci[0]:+.3f} [{ci[1]:+.3f},{ci[2]:+.3f}]"


def _fmt2(ci) -> str:
    if not ci or ci[0] != ci[0]:
        return "n/a"
    return f"{ci[0]:+.2f} [{ci[1]:+.2f},{ci[2]:+.2f}]"


# --- plots -------------------------------------------------------------------------------------
def make_plots(summary: dict, out: Path, players: Sequence[int], pops: Sequence[str]) -> list:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    cells = summary["cells"]
    n_main = 5 if 5 in players else players[-1]
    for track in TRACKS:
        dets = sorted({c["detector"] for c in cells if c["track"] == track})
        sel = [c for c in cells if c["track"] == track and c["players"] == n_main]
        # skill and AUROC by progress
        fig, axes = plt.subplots(2, len(pops), figsize=(3.6 * len(pops), 6.4), squeeze=False)
        for j, pop in enumerate(pops):
            for c in sel:
                if c["population"] == pop and c["detector"] not in ("prior",):
                    x = np.arange(10) / 10 + 0.05
                    axes[0][j].plot(x, c["ll_skill_by_decile"], marker="o", label=c["detector"])
                    axes[1][j].plot(x, c["auroc_by_decile"], marker="o", label=c["detector"])
            axes[0][j].axhline(0, color="grey", lw=0.8)
            axes[1][j].axhline(0.5, color="grey", lw=0.8)
            axes[0][j].set_title(f"{pop} ({n_main}p)", fontsize=9)
            axes[1][j].set_xlabel("round progress")
            axes[0][j].set_ylim(-1, 1)
            axes[1][j].set_ylim(0.3, 1)
        axes[0][0].set_ylabel("log-loss skill vs prior")
        axes[1][0].set_ylabel("AUROC (saboteur)")
        axes[0][-1].legend(fontsize=7)
        fig.suptitle(f"{track}: skill and AUROC by decile of round progress")
        fig.tight_layout()
        f = out / f"skill_by_progress_{track}.png"
        fig.savefig(f, dpi=90)
        plt.close(fig)
        files.append(f)
        # reliability
        fig, axes = plt.subplots(1, len(dets), figsize=(3.2 * len(dets), 3.2), squeeze=False)
        for ax, det in zip(axes[0], dets):
            for c in sel:
                if c["detector"] == det:
                    r = c["reliability"]
                    ax.plot(r["confidence"], r["frequency"], marker="o", label=c["population"])
            ax.plot([0, 1], [0, 1], color="grey", lw=0.8)
            ax.set_title(det)
            ax.set_xlabel("P(saboteur)")
        axes[0][0].set_ylabel("observed frequency")
        axes[0][-1].legend(fontsize=7)
        fig.suptitle(f"{track}: reliability ({n_main}p)")
        fig.tight_layout()
        f = out / f"reliability_{track}.png"
        fig.savefig(f, dpi=90)
        plt.close(fig)
        files.append(f)
        # survival
        fig, axes = plt.subplots(1, len(pops), figsize=(4 * len(pops), 3.4), squeeze=False)
        for ax, pop in zip(axes[0], pops):
            for c in sel:
                if c["population"] == pop and c["detector"] not in ("uniform", "prior"):
                    ax.step(np.linspace(0, 1, 21), c["survival"], where="post",
                            label=c["detector"])
            ax.set_title(f"{pop} ({n_main}p)")
            ax.set_xlabel("round progress")
            ax.set_ylim(0, 1.02)
        axes[0][0].set_ylabel("saboteurs not yet detected")
        axes[0][-1].legend(fontsize=7)
        fig.suptitle(f"{track}: detection survival (P(saboteur) > {summary['threshold']})")
        fig.tight_layout()
        f = out / f"survival_{track}.png"
        fig.savefig(f, dpi=90)
        plt.close(fig)
        files.append(f)
    # bluff frontier
    fig, ax = plt.subplots(figsize=(6.5, 5))
    markers = "osD^v<>"
    for j, n in enumerate(players):
        pts = [p for p in summary["frontier"] if p["on_frontier"] and p["players"] == n
               and p["panel_skill"][0] == p["panel_skill"][0]
               and p["win_rate_drop"][0] == p["win_rate_drop"][0]]
        for p in pts:
            x, y = p["win_rate_drop"], p["panel_skill"]
            ax.errorbar(x[0], y[0], xerr=[[x[0] - x[1]], [x[2] - x[0]]],
                        yerr=[[y[0] - y[1]], [y[2] - y[0]]], marker=markers[j % 7],
                        capsize=2, color=f"C{list(FRONTIER).index(p['population'])}",
                        alpha=0.8)
            ax.annotate(f"{p['saboteur_policy']} {n}p", (x[0], y[0]), fontsize=7,
                        xytext=(4, 4), textcoords="offset points")
        front = pareto(pts)
        if len(front) > 1:
            ax.plot([p["win_rate_drop"][0] for p in front], [p["panel_skill"][0] for p in front],
                    ls="--", color="grey", lw=0.8)
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("drop of the share of rounds with the gold found vs mimic saboteurs"
                  if summary.get("expansion") else
                  "drop of the gold-diggers' round win rate vs mimic saboteurs")
    ax.set_ylabel("panel log-loss skill on the saboteurs' seats (lower = better bluff)")
    ax.set_title("bluff frontier (heuristic gold-diggers, spectator panel)")
    fig.tight_layout()
    f = out / "bluff_frontier.png"
    fig.savefig(f, dpi=90)
    plt.close(fig)
    files.append(f)
    return files


# --- the command -------------------------------------------------------------------------------
def run(players: Sequence[int] = (3, 5), games: int = 40, pops: Sequence[str] | None = None,
        held_out: str = "heuristic-subtle", rounds: int = 3, seed: int = 0,
        out: str | Path = "runs/bluff", bootstrap: int = 1000, threshold: float = 0.5,
        stride: int = 1, plots: bool = True, quiet: bool = False, ppo: str | None = None,
        expansion: bool = False) -> dict:
    """Run the whole benchmark (see the module docstring); returns the summary dict.

    ``ppo``: a PPO checkpoint for the ``ppo`` and ``heuristic-pposab`` populations (default:
    the checkpoint shipped with the package, :mod:`agents.ppo`).

    ``expansion``: the Saboteur 2 track (six roles, :data:`EXPANSION_POPULATIONS` by default,
    records under ``<tag>_x<N>``): the labels are the target's role at that moment (Swap your
    hats changes it), the exact prior is the 15-card deck's (conditioned in-seat on the roles
    the observer held), the saboteur column is 5, the Bayes detectors use the Saboteur 2 event
    model on exact or sampled role assignments (:class:`experiments.detectors.BayesDetector`),
    and populations with a PPO agent are skipped (base-game only)."""
    from tqdm import tqdm

    from saboteur_env.record import read_record

    t0 = time.time()
    if not MIN_GAMES <= games <= MAX_GAMES:
        raise ValueError(f"games={games}: {MIN_GAMES} to {MAX_GAMES} games per population "
                         f"(games i % 10 < 4 train, 4-5 validation, >= 6 test; distinct deal "
                         f"seeds for at most {MAX_GAMES})")
    table = EXPANSION_POPULATIONS if expansion else POPULATIONS
    pops = list(pops or table)
    specs, usable, skipped = usable_populations(pops, held_out, players, expansion, ppo)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    xcfg = GameConfig(num_players=players[0], expansion=expansion)
    n_roles = int(role_deck(xcfg).size)
    log = (lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr))
    for pop, why in skipped.items():
        log(f"population {pop!r} skipped: {why}")
    recs: dict[tuple[str, int], list] = {}
    with tqdm(total=len(usable) * len(players) * games, desc="records", disable=quiet) as bar:
        for pop in usable:
            for n in players:
                paths = record_set(out, pop, n, games, seed=seed, rounds=rounds, progress=bar,
                                   spec=specs[pop], expansion=expansion)
                recs[(pop, n)] = [read_record(p) for p in paths]
    fit_pops = [p for p in usable if p != held_out]
    train = [r for p in fit_pops for n in players
             for i, r in enumerate(recs[(p, n)]) if split_of(i) == "train"]
    val = [r for p in fit_pops for n in players
           for i, r in enumerate(recs[(p, n)]) if split_of(i) == "val"]
    with tqdm(total=len(train) + len(val), desc="fitting", disable=quiet) as bar:
        fitted = fit_detectors(train, val, n_roles=n_roles, seed=seed, progress=bar,
                               expansion=expansion)

    heuristic_ok = population_problem("heuristic", players[0], expansion) is None
    skipped_dets: dict[str, str] = {}  # every detector runs on both games

    def factories(track):
        fs = [("uniform", UniformDetector), ("prior", PriorDetector), ("bayes", BayesDetector),
              ("bayes-fit", lambda: BayesDetector(fitted["bayes-fit"].category_probs,
                                                  fitted["bayes-fit"].target_ratios,
                                                  name="bayes-fit")),
              ("logistic", lambda: _copy_logistic(fitted["logistic"][track]))]
        if track == "in-seat" and heuristic_ok:
            from agents import make_agent
            fs.append(("heuristic-belief",
                       lambda: AgentBeliefDetector(lambda: make_agent("heuristic"),
                                                   name="heuristic-belief")))
        return [f for f in fs if f[0] not in skipped_dets]

    facs = {t: factories(t) for t in TRACKS}
    cells = []
    meta_rounds: dict[tuple[str, int], list] = {}
    test_total = sum(1 for k in recs for i in range(len(recs[k])) if split_of(i) == "test")
    with tqdm(total=test_total, desc="scoring", disable=quiet) as bar:
        for pop in usable:
            for n in players:
                sink: dict = {}
                rounds_info = []
                for i, rec in enumerate(recs[(pop, n)]):
                    if split_of(i) != "test":
                        continue
                    info = score_record(rec, i, facs, sink, stride=stride)
                    rounds_info.append(info["rounds"])
                    bar.update(1)
                meta_rounds[(pop, n)] = rounds_info
                for track in TRACKS:
                    prior = sink[(track, "prior")].arrays()
                    for name, _ in facs[track]:
                        sc = sink[(track, name)].arrays()
                        s = summarize(sc, prior, B=bootstrap, seed=seed, threshold=threshold,
                                      sab=saboteur_index(xcfg), diggers=digger_roles(xcfg))
                        cells.append({"track": track, "detector": name, "population": pop,
                                      "players": n, "held_out": pop == held_out, **s})
    frontier = bluff_frontier(cells, recs, usable, players, B=bootstrap, seed=seed)
    for c in cells:
        c.pop("_saboteur_sums", None)
    summary = {"players": list(players), "games": games, "populations": usable,
               "expansion": expansion, "skipped_detectors": skipped_dets,
               "specs": {p: specs[p] for p in usable},
               "skipped": skipped, "held_out": held_out, "fit_populations": fit_pops,
               "rounds": rounds, "seed": seed, "threshold": threshold, "stride": stride,
               "bootstrap": bootstrap, "fit": fitted["fit"], "cells": cells,
               "frontier": frontier}
    _write_outputs(summary, out)
    if plots:
        summary["plots"] = [str(f) for f in make_plots(summary, out, players, usable)]
    summary["seconds"] = time.time() - t0
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=_json_default))
    if not quiet:
        print(format_tables(summary))
        print(f"\nwritten to {out}/ in {summary['seconds']:.0f} s")
    return summary


def _panel_skill(cells: list, pop: str, n: int, B: int, seed: int) -> tuple[float, ...]:
    """Mean log-loss skill of the spectator panel (:data:`PANEL`) on the saboteurs' seats of
    ``pop`` at ``n`` players, with a 95% interval by bootstrap over the same test games."""
    panel = [c for c in cells if c["track"] == "spectator" and c["population"] == pop
             and c["players"] == n and c["detector"] in PANEL and "_saboteur_sums" in c]
    if not panel:
        return float("nan"), float("nan"), float("nan")
    games = np.unique(np.concatenate([c["_saboteur_sums"][0] for c in panel]))
    cols = []
    for c in panel:
        g, gs = c["_saboteur_sums"]
        full = np.zeros((len(games), 2))
        full[np.searchsorted(games, g)] = gs
        cols.append(full)
    num = np.concatenate(cols, axis=1)
    k = len(panel)
    return M.bootstrap_ratio(num, np.ones_like(num), B=B, seed=seed, transform=lambda s: np.mean(
        [1 - s[..., 2 * i] / s[..., 2 * i + 1] for i in range(k)], axis=0))


def bluff_frontier(cells: list, recs: dict, pops: Sequence[str], players: Sequence[int], *,
                   B: int, seed: int, reference: str = "heuristic-mimic") -> list[dict]:
    """One point per population and player count: the gold-diggers' round win rate over all
    games of the record set, its drop against ``reference`` (saboteurs that play like
    gold-diggers; independent bootstraps), and the spectator panel's skill on the saboteurs'
    seats.  ``on_frontier`` marks the populations that share the heuristic gold-diggers."""
    rng_seed = seed
    rates = {}
    for pop in pops:
        for n in players:
            per = np.array([[sum(r["gold_found"] for r in rec.rounds), len(rec.rounds)]
                            for rec in recs[(pop, n)]], float)
            rates[(pop, n)] = per
    out = []
    for pop in pops:
        for n in players:
            per = rates[(pop, n)]
            wr = M.bootstrap_ratio(per[:, 0], per[:, 1], B=B, seed=rng_seed)
            drop = (float("nan"),) * 3
            if (reference, n) in rates and pop in FRONTIER:
                ref = rates[(reference, n)]
                a = _boot_rate(ref, B, rng_seed + 1)
                b = _boot_rate(per, B, rng_seed + 2)
                d = a - b
                drop = (float(ref[:, 0].sum() / ref[:, 1].sum() - wr[0]),
                        *map(float, np.percentile(d, [2.5, 97.5])))
            out.append({"population": pop, "players": n, "saboteur_policy": FRONTIER.get(pop),
                        "on_frontier": pop in FRONTIER, "digger_win_rate": wr,
                        "win_rate_drop": drop,
                        "panel_skill": _panel_skill(cells, pop, n, B, seed)})
    return out


def pareto(points: list[dict]) -> list[dict]:
    """The frontier points no other point beats on both axes (a larger win-rate drop and a
    lower panel skill), sorted by win-rate drop."""
    pts = sorted(points, key=lambda p: p["win_rate_drop"][0])
    return [p for p in pts if not any(
        q is not p and q["win_rate_drop"][0] >= p["win_rate_drop"][0]
        and q["panel_skill"][0] <= p["panel_skill"][0]
        and (q["win_rate_drop"][0], q["panel_skill"][0]) != (p["win_rate_drop"][0],
                                                             p["panel_skill"][0])
        for q in pts)]


def _boot_rate(per: np.ndarray, B: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(per), size=(B, len(per)))
    return per[idx, 0].sum(axis=1) / per[idx, 1].sum(axis=1)


def _copy_logistic(d: LogisticDetector) -> LogisticDetector:
    return LogisticDetector(d.W, d.mu, d.sd, d.temperature, name=d.name)


def _json_default(o):
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


CSV_FIELDS = ("track", "detector", "population", "players", "held_out", "games", "rounds",
              "rows", "log_loss", "brier", "ll_skill", "ll_skill_lo", "ll_skill_hi",
              "brier_skill", "brier_skill_lo", "brier_skill_hi", "auroc", "ece",
              "median_detection", "detected_share", "false_accusation", "infeasible",
              "ll_skill_digger_observers", "ll_skill_saboteur_observers")


def _write_outputs(summary: dict, out: Path) -> None:
    with open(out / "summary.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(CSV_FIELDS)
        for c in summary["cells"]:
            if not c.get("rows"):
                continue
            wr.writerow([c["track"], c["detector"], c["population"], c["players"],
                         c["held_out"], c["games"], c["rounds"], c["rows"],
                         f"{c['log_loss'][0]:.4f}", f"{c['brier'][0]:.4f}",
                         *(f"{v:.4f}" for v in c["ll_skill"]),
                         *(f"{v:.4f}" for v in c["brier_skill"]),
                         f"{c['auroc']:.4f}", f"{c['ece']:.4f}",
                         f"{c['median_detection']:.3f}", f"{c['detected_share']:.3f}",
                         f"{c['false_accusation']:.3f}", f"{c['infeasible']:.3f}",
                         f"{c['ll_skill_digger_observers']:.4f}",
                         f"{c['ll_skill_saboteur_observers']:.4f}"])


def format_tables(summary: dict) -> str:
    """The per-track tables: detector x population rows, log-loss skill [95% CI] per player
    count, then at the largest count: AUROC, ECE, the false-accusation rate (FA), the share of
    infeasible beliefs and (in-seat) the skill of saboteur observers alone (sab-obs)."""
    lines = []
    players = summary["players"]
    for track in TRACKS:
        cells = [c for c in summary["cells"] if c["track"] == track and c.get("rows")]
        game = "Saboteur 2, " if summary.get("expansion") else ""
        lines.append(f"\n== {game}{track} track: log-loss skill vs the exact prior [95% CI], "
                     f"test games (held out: {summary['held_out']}) ==")
        head = f"{'detector':<17}{'population':<21}" + "".join(f"{f'{n}p':<27}" for n in players)
        head += f"{'AUROC':>7}{'ECE':>7}{'FA':>6}{'infeas':>7}"
        if track == "in-seat":
            head += f"{'sab-obs':>8}"
        lines.append(head)
        keys = sorted({(c["detector"], c["population"]) for c in cells},
                      key=lambda k: (_DET_ORDER.get(k[0], 9), k[1]))
        for det, pop in keys:
            row = f"{det:<17}{pop + ('*' if pop == summary['held_out'] else ''):<21}"
            last = None
            for n in players:
                c = next((c for c in cells if c["detector"] == det and c["population"] == pop
                          and c["players"] == n), None)
                row += f"{_fmt(c['ll_skill']) if c else 'n/a':<27}"
                last = c or last
            if last:
                row += (f"{last['auroc']:>7.3f}{last['ece']:>7.3f}"
                        f"{last['false_accusation']:>6.2f}{last['infeasible']:>7.2f}")
                if track == "in-seat":
                    row += f"{last['ll_skill_saboteur_observers']:>8.3f}"
            lines.append(row)
    lines.append("\n== bluff frontier: saboteur policies with the heuristic gold-diggers "
                 "(spectator panel skill on the saboteurs' seats) ==")
    rate = "gold found" if summary.get("expansion") else "digger win rate"
    lines.append(f"{'population':<21}{'saboteurs':<19}{'N':>3}  {rate:<22}"
                 f"{'drop vs mimic':<24}{'panel skill':<22}")
    for pt in summary["frontier"]:
        wr, dr, sk = pt["digger_win_rate"], pt["win_rate_drop"], pt["panel_skill"]
        lines.append(f"{pt['population']:<21}{pt['saboteur_policy'] or '(own diggers)':<19}"
                     f"{pt['players']:>3}  {_fmt2(wr):<22}{_fmt2(dr):<24}{_fmt2(sk):<22}")
    if summary.get("skipped_detectors"):
        lines.append("\nskipped detectors: " + "; ".join(
            f"{k}: {v}" for k, v in summary["skipped_detectors"].items()))
    if summary["skipped"]:
        lines.append("\nskipped populations: " + "; ".join(
            f"{k}: {v}" for k, v in summary["skipped"].items()))
    return "\n".join(lines)


_DET_ORDER = {"uniform": 0, "prior": 1, "bayes": 2, "bayes-fit": 3, "logistic": 4,
              "heuristic-belief": 5}


def _unit_interval(text: str) -> float:
    """An argparse ``type``: a float strictly between 0 and 1 (the accusation threshold)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid float value: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {value}")
    return value


def main(argv=None) -> dict:
    """``saboteur bluff``: every bad option is a usage error (exit code 2, the option and its
    value named) found before anything is played or written."""
    from experiments.cli_args import at_least, check_config, check_output_dir

    p = argparse.ArgumentParser(prog="saboteur bluff",
                                description="The bluff-detection benchmark: calibrated role "
                                            "inference against deceivers (see the README).")
    p.add_argument("--expansion", action="store_true",
                   help="Saboteur 2 track (defaults: --players 5 --games 40, the expansion "
                        "populations below, --held-out heuristic-subtle, --out "
                        "runs/bluff-expansion; no PPO: it is base-game only)")
    p.add_argument("--players", default=None,
                   help="comma-separated player counts (3,5; expansion: 5)")
    p.add_argument("--games", type=at_least(MIN_GAMES), default=None,
                   help="games per population and player count, 7 to 1000 (40: 16 train, "
                        "8 val, 16 test)")
    p.add_argument("--populations", default=None,
                   help="comma-separated: " + ", ".join(POPULATIONS) + "; expansion: "
                        + ", ".join(EXPANSION_POPULATIONS))
    p.add_argument("--held-out", default=None,
                   help="population never used to fit a detector, one of --populations "
                        "(default heuristic-subtle when it is among them; 'none': fit on every "
                        "population)")
    p.add_argument("--rounds", type=at_least(1), default=3)
    p.add_argument("--seed", type=at_least(0), default=0)
    p.add_argument("--bootstrap", type=at_least(1), default=1000)
    p.add_argument("--threshold", type=_unit_interval, default=0.5,
                   help="P(saboteur) above which a target counts as accused")
    p.add_argument("--stride", type=at_least(1), default=1, help="score every k-th decision")
    p.add_argument("--out", default=None, help="runs/bluff (expansion: runs/bluff-expansion)")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--ppo", default=None,
                   help="PPO checkpoint for the ppo populations (default: the shipped one)")
    a = p.parse_args(argv)
    x = a.expansion
    table = EXPANSION_POPULATIONS if x else POPULATIONS
    players_text = a.players or ("5" if x else "3,5")
    players = []
    for v in players_text.split(","):
        try:
            players.append(int(v))
        except ValueError:
            p.error(f"--players {players_text}: {v.strip()!r} is not a player count "
                    f"(comma-separated integers, e.g. 3,5)")
    for n in dict.fromkeys(players):
        check_config(p, num_players=n, num_rounds=a.rounds, expansion=x)
    if len(set(players)) != len(players):
        p.error(f"--players {players_text}: a player count is repeated")
    games = a.games if a.games is not None else 40
    if games > MAX_GAMES:
        p.error(f"argument --games: must be <= {MAX_GAMES}, got {games}")
    pops = [v.strip() for v in (a.populations or ",".join(table)).split(",")]
    if len(set(pops)) != len(pops) or "" in pops:
        p.error(f"--populations {a.populations}: empty or repeated population")
    known = {*table, *POPULATIONS}
    for pop in pops:
        if pop not in known:
            from agents import make_agent
            try:
                make_agent(pop)  # any agent spec is a population of its own
            except ValueError:
                p.error(f"--populations: unknown population {pop!r}; known: "
                        f"{', '.join(table)} (or any agent spec)")
    # the default held-out population holds out nothing when it is not among --populations
    held_out = a.held_out or "heuristic-subtle"
    if a.held_out is not None and held_out != "none" and held_out not in pops:
        p.error(f"--held-out {held_out}: not one of the populations ({', '.join(pops)}) "
                f"nor 'none'")
    if a.ppo is not None and not Path(a.ppo).is_file():
        p.error(f"--ppo {a.ppo}: no such checkpoint file")
    out = a.out or ("runs/bluff-expansion" if x else "runs/bluff")
    check_output_dir(p, out, "--out")
    try:
        usable_populations(pops, held_out, players, x, a.ppo)
    except ValueError as err:
        p.error(f"--populations {','.join(pops)}: {err}")
    return run(players=players, games=games, pops=pops, held_out=held_out, rounds=a.rounds,
               seed=a.seed, out=out, bootstrap=a.bootstrap, threshold=a.threshold,
               stride=a.stride, plots=not a.no_plots, ppo=a.ppo, expansion=x)

if __name__ == "__main__":
    main()
