"""The whole bluff benchmark in one call: :func:`run` (records, fitting, scoring, summaries,
outputs)."""

from __future__ import annotations

import contextlib
import sys
import time
import zlib
from collections.abc import Sequence
from pathlib import Path

from saboteur_env.engine.config import GameConfig

from .detectors import (
    AgentBeliefDetector,
    BayesDetector,
    LogisticDetector,
    PolicyBayesDetector,
    PriorDetector,
    UniformDetector,
    ceiling_problem,
    load_detector,
    load_detectors,
    population_models,
)
from .harness import (
    TRACKS,
    Scored,
    fit_from_data,
    merge_training_data,
    score_record,
    subsample,
    training_data,
)
from .populations import policies, population_problem, usable_populations, variant
from .records import MAX_GAMES, MIN_GAMES, record_seeds, record_set
from .report import (
    bluff_frontier,
    ceiling_gaps,
    format_tables,
    make_plots,
    remove_plots,
    summarize,
    write_csv,
    write_json,
)

#: default test games per population and player count (test-split deals, paired)
GAMES = 200
#: default training games per population and player count (train-split deals; half as many
#: dev-split deals calibrate the classifiers)
FIT_GAMES = 24
#: the detectors with parameters, fitted leave-one-population-out
FITTED = ("bayes-fit", "logistic")
#: games per task of a worker (``workers``)
CHUNK = 20
#: most classifier rows per fit (drawn uniformly, :func:`.harness.subsample`)
MAX_ROWS = 60_000


def run(
    players: Sequence[int] | None = None,
    games: int = GAMES,
    pops: Sequence[str] | None = None,
    rounds: int = 3,
    seed: int = 0,
    out: str | Path = "runs/bluff",
    bootstrap: int = 1000,
    threshold: float = 0.5,
    stride: int = 1,
    plots: bool = True,
    quiet: bool = False,
    ppo: str | None = None,
    expansion: bool = False,
    records: str | Path | None = None,
    fit_games: int = FIT_GAMES,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    detectors: Sequence[str] = (),
) -> dict:
    """Run the whole benchmark (see :mod:`saboteur_experiments.bluff`); returns the summary dict.

    ``games`` test games per population and player count (test-split deals), ``fit_games``
    training games (train-split deals) and ``max(2, fit_games // 2)`` calibration games
    (dev-split deals); every population plays the same deals (:func:`.records.record_seeds`).
    ``players``: default the ruleset's (:data:`.populations.VARIANTS`).

    Leave-one-population-out: the detectors with parameters (:data:`FITTED`) are fitted once
    per scored population, on the training games of every *other* population, and scored on
    that population's test games; each cell's ``fitted_on`` and the summary's
    ``fit_populations`` name the populations a fit saw.  With a single population there is
    nothing to fit on and the fitted detectors are left out.

    ``ppo``: a PPO checkpoint for the ``ppo`` and ``heuristic-pposab`` populations (default:
    the one the figures were measured with, ``ppo:v1``, in Saboteur 2 ``ppo:sab2-v1``:
    :data:`.populations.POPULATIONS`).

    ``expansion``: the Saboteur 2 track (its :data:`.populations.VARIANTS` entry:
    :data:`.populations.EXPANSION_POPULATIONS` by default, records under ``<tag>_x<N>``; the
    roles, the role deck and the saboteur column come from its ruleset): six roles, the labels
    are the target's role at that moment (Swap your hats changes it, RULES 6.5), the exact
    prior is the 15-card deck's (conditioned in-seat on the roles the observer held, RULES
    6.2), the saboteur column is 5, the Bayes detectors use the Saboteur 2 event model on exact
    or sampled role assignments (:class:`.detectors.BayesDetector`), and the PPO populations play
    the Saboteur 2 checkpoint.

    ``records``: a folder of game records (e.g. the human games of ``saboteur serve``,
    :func:`record_population`) scored as one more population with the same detectors (fitted
    on every generated population) and metrics; its games are never used for fitting (every
    one is scored), only those at the player counts of ``players`` and of this ruleset are
    read, and it has no plot panel.

    ``workers``: processes playing, fitting and scoring (the results do not depend on it);
    ``backend="ray"`` (``address``: a cluster's) runs those tasks as Ray tasks instead
    (:func:`saboteur_experiments.backends.map_tasks`; ``workers <= 0``: every CPU of the Ray).
    The records are written where this process runs: on a cluster ``out`` must be a folder every
    node sees.

    ``detectors``: specs of the user's own detectors, ``"MODULE.ATTR"`` each
    (:func:`.detectors.load_detector`), scored beside the benchmark's own on the tracks they
    declare, on every population, under their names; they are not fitted (build what they need
    when constructed).

    Raises:
        ValueError: ``games`` or ``fit_games`` out of range, a bad backend, a detector spec that
            does not load, or two detectors with one name."""
    from tqdm import tqdm

    from saboteur_env.record import read_record

    t0, c0, k0 = time.time(), time.process_time(), _children_cpu()
    for what, k in (("games", games), ("fit_games", fit_games)):
        if not MIN_GAMES <= k <= MAX_GAMES:
            raise ValueError(
                f"{what}={k}: {MIN_GAMES} to {MAX_GAMES} games per population and split"
            )
    detectors = tuple(detectors)
    load_detectors(detectors)  # every spec loads, no two share a name: before any game
    v = variant(expansion)
    rules = v.ruleset
    players = list(players or v.players)
    pops = list(pops or v.populations)
    specs, usable, skipped = usable_populations(pops, players, expansion, ppo)
    from saboteur_experiments.backends import check_backend

    check_backend(backend, address)  # BackendError (a ValueError) naming the option
    # absolute: Ray workers (on other machines: a shared filesystem) write and read the records
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    log = (lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr))
    for pop, why in skipped.items():
        log(f"population {pop!r} skipped: {why}")
    counts = {"test": games, "train": fit_games, "dev": max(MIN_GAMES, fit_games // 2)}
    recs: dict[tuple[str, int], list] = {}  # the test games (the frontier's too)
    fit_recs: dict[tuple[str, str], list] = {}  # (population, "train" | "dev") -> records
    total = len(usable) * len(players) * sum(counts.values())
    t_play = time.time()
    tasks = [
        (pop, n, split, k, a, min(k, a + CHUNK))
        for pop in usable
        for n in players
        for split, k in counts.items()
        for a in range(0, k, CHUNK)
    ]
    opts = {"seed": seed, "rounds": rounds, "expansion": expansion, "specs": specs, "out": out}
    got: dict[tuple, list] = {}
    with tqdm(total=total, desc="records", disable=quiet) as bar:
        for task, paths in _map(_play_chunk, [(t, opts) for t in tasks], workers, backend, address):
            got[task] = paths
            bar.update(task[5] - task[4])
    test_paths: dict[tuple[str, int], list] = {}
    for pop, n, split, k, a, b in tasks:  # in task order: deterministic
        rlist = [read_record(p) for p in got[(pop, n, split, k, a, b)]]
        if split == "test":
            test_paths.setdefault((pop, n), []).extend(got[(pop, n, split, k, a, b)])
            recs.setdefault((pop, n), []).extend(rlist)
        else:
            fit_recs.setdefault((pop, split), []).extend(rlist)
    t_play = time.time() - t_play
    extra = None
    if records is not None:
        extra = record_population(records, players, expansion, taken=set(usable), log=log)

    # leave-one-population-out: training data once per population, one fit per scored one
    t_fit = time.time()
    data: dict[str, tuple[dict, dict]] = {}
    with tqdm(
        total=sum(len(r) for r in fit_recs.values()) if len(usable) > 1 or extra else 0,
        desc="fitting data",
        disable=quiet,
    ) as bar:
        for pop in usable if len(usable) > 1 or extra else []:
            k = zlib.crc32(pop.encode()) % 10**6  # a population's data never depends on others
            tr = training_data(fit_recs[(pop, "train")], seed + 2 * k)
            bar.update(len(fit_recs[(pop, "train")]))
            va = training_data(fit_recs[(pop, "dev")], seed + 2 * k + 1)
            bar.update(len(fit_recs[(pop, "dev")]))
            data[pop] = (tr, va)
    fits: dict[tuple[str, ...], dict] = {}

    def fit_for(on) -> dict | None:
        return fits[tuple(on)] if on else None

    fit_pops = {pop: [q for q in usable if q != pop] for pop in usable}
    if extra is not None:
        fit_pops[extra[0]] = list(usable)
    wanted = list(dict.fromkeys(tuple(on) for on in fit_pops.values() if on))
    fit_tasks = (
        (
            subsample(merge_training_data([data[p][0] for p in on]), MAX_ROWS, seed),
            merge_training_data([data[p][1] for p in on]),
            rules,
            seed,
        )
        for on in wanted
    )
    with tqdm(total=len(wanted), desc="fits", disable=quiet) as bar:
        for on, f in zip(wanted, _map(_fit, fit_tasks, workers, backend, address)):
            fits[on] = f
            bar.update(1)
    t_fit = time.time() - t_fit

    heuristic_ok = population_problem("heuristic", players[0], expansion) is None
    skipped_dets: dict[str, str] = {}  # every detector runs on both games
    if len(usable) == 1 and extra is None:
        skipped_dets.update(
            {
                d: "one population: nothing to fit on without seeing the scored one "
                "(leave-one-population-out)"
                for d in FITTED
            }
        )

    cells = []

    def cells_of(pop, n, sink):
        for track in TRACKS:
            prior = sink[(track, "prior")].arrays()
            for name in [d for t, d in sink if t == track]:  # in the order they were scored
                s = summarize(
                    sink[(track, name)].arrays(),
                    prior,
                    B=bootstrap,
                    seed=seed,
                    threshold=threshold,
                    sab=rules.saboteur,
                    diggers=rules.diggers,
                )
                on = fit_pops[pop] if name in FITTED else []
                assert pop not in on  # leave-one-population-out
                cells.append(
                    {
                        "track": track,
                        "detector": name,
                        "population": pop,
                        "players": n,
                        "held_out": pop not in on,
                        "fitted_on": list(on),
                        **s,
                    }
                )

    t_score = time.time()
    keys = [(pop, n) for pop in usable for n in players]
    chunks = [
        (
            test_paths[k][a : a + CHUNK],
            a,
            fit_for(fit_pops[k[0]]),
            heuristic_ok,
            stride,
            policies(specs[k[0]]),
            v.policy_samples,
            detectors,
        )
        for k in keys
        for a in range(0, len(test_paths[k]), CHUNK)
    ]
    owner = [k for k in keys for _ in range(0, len(test_paths[k]), CHUNK)]
    sinks: dict[tuple[str, int], dict] = {k: {} for k in keys}
    with tqdm(total=len(keys) * games, desc="scoring", disable=quiet) as bar:
        for k, c, part in zip(owner, chunks, _map(_score_chunk, chunks, workers, backend, address)):
            _merge_sink(sinks[k], part)
            bar.update(len(c[0]))
    for pop, n in keys:
        cells_of(pop, n, sinks[(pop, n)])
    if extra is not None:  # records already read (a --records folder): in this process
        rpop, by_n = extra
        facs = {
            t: _factories(t, fit_for(fit_pops[rpop]), heuristic_ok, user=detectors) for t in TRACKS
        }
        for n, rlist in by_n.items():
            recs[(rpop, n)] = rlist
            sink: dict = {}
            for i, rec in enumerate(rlist):
                where = f"{rpop} record {i} ({n} players, deal seed {rec.seed})"
                score_record(rec, i, facs, sink, stride=stride, where=where)
            cells_of(rpop, n, sink)
    t_score = time.time() - t_score
    frontier = bluff_frontier(cells, recs, usable, players, B=bootstrap, seed=seed)
    if extra is not None:
        frontier += bluff_frontier(cells, recs, [rpop], list(by_n), B=bootstrap, seed=seed)
    gaps = ceiling_gaps(cells, B=bootstrap, seed=seed)
    for c in cells:
        c.pop("_game_sums", None)
    summary = {
        "players": list(players),
        "user_detectors": list(detectors),
        "games": games,
        "fit_games": fit_games,
        "deals": {
            split: {
                str(n): [record_seeds(seed, n, split, k)[0], record_seeds(seed, n, split, k)[-1]]
                for n in players
            }
            for split, k in counts.items()
        },
        "populations": usable,
        "records": None
        if extra is None
        else {
            "folder": str(records),
            "population": extra[0],
            "games": {str(n): len(r) for n, r in extra[1].items()},
        },
        "expansion": expansion,
        "skipped_detectors": skipped_dets,
        "specs": {p: specs[p] for p in usable},
        "policies": {p: policies(specs[p]) for p in usable},
        # per population: "computed", or why the Bayes ceiling (and the sampled policy-bayes
        # spectator) is not
        "ceiling": {
            p: ceiling_problem(policies(specs[p]), GameConfig(expansion=expansion)) or "computed"
            for p in usable
        },
        "policy_bayes": {
            p: (
                ceiling_problem(policies(specs[p]), GameConfig(expansion=expansion), True)
                or f"computed ({v.policy_samples} samples per decision)"
            )
            if v.policy_samples
            else f"not run on {rules.title} (Variant.policy_samples = 0: too slow there)"
            for p in usable
        },
        "skipped": skipped,
        "fit_populations": fit_pops,
        "rounds": rounds,
        "seed": seed,
        "threshold": threshold,
        "stride": stride,
        "bootstrap": bootstrap,
        "fit": {",".join(k): f["fit"] for k, f in fits.items()},
        "cells": cells,
        "frontier": frontier,
        "ceiling_gaps": gaps,
    }
    write_csv(summary, out)
    remove_plots(out)  # an earlier run's: replaced below, or gone with --no-plots
    if plots:
        summary["plots"] = [str(f) for f in make_plots(summary, out, players, usable)]
    summary["seconds"] = time.time() - t0
    summary["cpu_seconds"] = time.process_time() - c0 + _children_cpu() - k0
    summary["stage_seconds"] = {"records": t_play, "fitting": t_fit, "scoring": t_score}
    write_json(summary, out)
    if not quiet:
        print(format_tables(summary))
        print(
            f"\nwritten to {out}/ in {summary['seconds']:.0f} s ({summary['cpu_seconds']:.0f} "
            f"CPU s; records {t_play:.0f} s, fitting {t_fit:.0f} s, scoring {t_score:.0f} s)"
        )
    return summary


def record_population(
    folder: str | Path,
    players: Sequence[int],
    expansion: bool,
    taken: set | frozenset = frozenset(),
    log=None,
) -> tuple[str, dict[int, list]]:
    """The records of ``folder`` (every ``*.jsonl``, sorted by name) as one population:
    ``(name, {player count: [Record, ...]})``.

    The name is the records' common header ``meta["population"]`` (``"human"`` for the games
    of ``saboteur serve``), else the folder's name; ``records:<name>`` when a generated
    population already has it (``taken``).  Every seat of these games is scored, the agents'
    seats beside the human ones too (the header's ``meta["human_seats"]`` is not yet used to
    score the human seats alone).  Records of the other ruleset or of a player count
    not in ``players`` are left out (``log`` says how many).

    Raises:
        ValueError: no such folder, a file that is not a record, or no record left.
    """
    from saboteur_env.record import RecordError, read_record

    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"records folder {folder}: not a folder")
    by_n: dict[int, list] = {}
    pops = set()
    skipped = 0
    for path in sorted(folder.glob("*.jsonl")):
        try:
            rec = read_record(path)
        except (OSError, RecordError) as err:
            raise ValueError(f"{path}: not a game record ({err})") from None
        if bool(rec.config.expansion) != bool(expansion) or rec.config.num_players not in players:
            skipped += 1
            continue
        pops.add(str((rec.header.get("meta") or {}).get("population", folder.name)))
        by_n.setdefault(rec.config.num_players, []).append(rec)
    if not by_n:
        game = variant(expansion).ruleset.title
        raise ValueError(
            f"records folder {folder}: no record of {game}"
            f" at {', '.join(map(str, players))} players ({skipped} other records)"
        )
    if skipped and log is not None:
        log(
            f"records folder {folder}: {skipped} records of another ruleset or player count skipped"
        )
    name = pops.pop() if len(pops) == 1 else folder.name
    if name in taken:
        name = f"records:{name}"
    return name, dict(sorted(by_n.items()))


def _map(fn, tasks, jobs: int, backend: str = "local", address: str | None = None):
    """``fn`` over ``tasks`` in order: as Ray tasks (``backend="ray"``,
    :func:`saboteur_experiments.backends.map_tasks`), in this process (``jobs <= 1``), else in
    ``jobs`` fresh worker processes (spawned, each with one BLAS and torch thread: on busy cores
    a multi-threaded BLAS spends most of the classifier's fit waiting for its own threads)."""
    if backend == "ray":
        from saboteur_experiments.backends import map_tasks

        yield from map_tasks(fn, list(tasks), jobs, backend, address)
        return
    if jobs <= 1:
        with _one_thread_here():  # as the workers below: the same sums, bit for bit
            yield from map(fn, tasks)
        return
    import multiprocessing as mp
    import os

    keys = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    saved = {k: os.environ.get(k) for k in keys}
    os.environ.update({k: "1" for k in keys})  # read by the workers' fresh numpy
    try:
        with mp.get_context("spawn").Pool(jobs, initializer=_one_thread) as pool:
            yield from pool.imap(fn, tasks)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def _one_thread_here():
    """This process with one BLAS thread and one torch thread while inside (restored after;
    around :func:`_map`'s generator, so the caller's loop body between items runs with one
    thread too, until the generator is exhausted or closed),
    as :func:`_one_thread` makes each worker: a multi-threaded BLAS sums in another order, so
    ``--workers 1`` moved fitted parameters by about 1e-8 and AUROCs in the fourth decimal
    against ``--workers 2`` (docs/bluff.md: the results do not depend on the workers)."""
    from threadpoolctl import threadpool_limits

    try:
        import torch
    except ImportError:
        torch = None
    before = torch.get_num_threads() if torch is not None else None
    with threadpool_limits(limits=1):
        if torch is not None:
            torch.set_num_threads(1)
        try:
            yield
        finally:
            if torch is not None:
                torch.set_num_threads(before)


def _one_thread() -> None:
    """A worker process: one torch thread (the processes share the cores)."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def _play_chunk(arg) -> tuple[tuple, list]:
    """Worker: play (or find) games ``a .. b - 1`` of one record set."""
    (pop, n, split, k, a, b), o = arg
    paths = record_set(
        o["out"],
        pop,
        n,
        b,
        split=split,
        seed=o["seed"],
        rounds=o["rounds"],
        spec=o["specs"][pop],
        expansion=o["expansion"],
        first=a,
    )
    return (pop, n, split, k, a, b), paths


def _children_cpu() -> float:
    """CPU seconds of this process's finished worker processes."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _fit(arg) -> dict:
    """Worker: one leave-one-population-out fit (:func:`.harness.fit_from_data`)."""
    tr, va, rules, seed = arg
    return fit_from_data(tr, va, ruleset=rules, seed=seed, max_rows=MAX_ROWS)


def _score_chunk(arg) -> dict:
    """Worker: score the test records ``paths`` (game indices from ``first``)."""
    from saboteur_env.record import read_record

    paths, first, fitted, heuristic_ok, stride, pair, samples, user = arg
    sink: dict = {}
    facs = None
    for i, p in enumerate(paths):
        rec = read_record(p)
        if facs is None:  # the population's policies as likelihoods, where they can be
            exact = population_models(pair, rec.config)[0]
            # the same models serve the sampled form when they are stateless
            sampled = samples and exact and not ceiling_problem(pair, rec.config, sampled=True)
            models = (exact, exact if sampled else None)
            facs = {t: _factories(t, fitted, heuristic_ok, models, samples, user) for t in TRACKS}
        score_record(rec, first + i, facs, sink, stride=stride, where=f"record {p}")
    return sink


def _merge_sink(sink: dict, part: dict) -> None:
    """Append the scored rows of ``part`` to ``sink`` (both ``(track, detector) -> Scored``)."""
    from dataclasses import fields

    for key, sc in part.items():
        dst = sink.setdefault(key, Scored())
        for f in fields(Scored):
            getattr(dst, f.name).extend(getattr(sc, f.name))


def _factories(
    track: str,
    fitted: dict | None,
    heuristic_ok: bool,
    models: tuple = (None, None),
    samples: int = 0,
    user: Sequence[str] = (),
) -> list:
    """The detectors scored on ``track``: the baselines, the fitted ones (``fitted``, this
    population's leave-one-out fit; none: left out), in-seat the heuristic's belief, and on the
    spectator track, when the population's policies give action probabilities, the Bayes
    ceiling and the sampled spectator ``policy-bayes`` with ``samples`` states per decision
    (``models``: their model factories, :func:`.detectors.population_models`, ``None`` where
    they cannot run); then the user's own detectors ``user`` (specs,
    :func:`.detectors.load_detector`) that declare ``track``."""
    fs = [
        ("uniform", UniformDetector),
        ("prior", PriorDetector),
        ("bayes", BayesDetector),
    ]
    if fitted is not None:
        fs += [
            (
                "bayes-fit",
                lambda: BayesDetector(
                    fitted["bayes-fit"].category_probs,
                    fitted["bayes-fit"].target_ratios,
                    name="bayes-fit",
                ),
            ),
            ("logistic", lambda: _copy_logistic(fitted["logistic"][track])),
        ]
    exact, sampled = models
    if track == "spectator" and exact is not None:
        fs.append(("ceiling", lambda: PolicyBayesDetector(exact)))
    if track == "spectator" and sampled is not None:
        fs.append(("policy-bayes", lambda: PolicyBayesDetector(sampled, samples=samples)))
    if track == "in-seat" and heuristic_ok:
        from saboteur_agents import make_agent

        fs.append(
            (
                "heuristic-belief",
                lambda: AgentBeliefDetector(
                    lambda: make_agent("heuristic"), name="heuristic-belief"
                ),
            )
        )
    for spec in user:
        name, factory, tracks = load_detector(spec)
        if track in tracks:
            fs.append((name, factory))
    return fs


def _copy_logistic(d: LogisticDetector) -> LogisticDetector:
    return LogisticDetector(d.W, d.mu, d.sd, d.temperature, name=d.name)
