"""The whole bluff benchmark in one call: :func:`run` (records, fitting, scoring, summaries,
outputs)."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .detectors import (
    AgentBeliefDetector,
    BayesDetector,
    LogisticDetector,
    PriorDetector,
    UniformDetector,
)
from .harness import TRACKS, fit_detectors, score_record
from .populations import population_problem, usable_populations, variant
from .records import MAX_GAMES, MIN_GAMES, record_set, split_of
from .report import (
    bluff_frontier,
    format_tables,
    make_plots,
    summarize,
    write_csv,
    write_json,
)


def run(
    players: Sequence[int] = (3, 5),
    games: int = 40,
    pops: Sequence[str] | None = None,
    held_out: str = "heuristic-subtle",
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
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
) -> dict:
    """Run the whole benchmark (see :mod:`saboteur_experiments.bluff`); returns the summary dict.

    ``ppo``: a PPO checkpoint for the ``ppo`` and ``heuristic-pposab`` populations (default:
    the checkpoint shipped with the package, :mod:`saboteur_agents.ppo`).

    ``expansion``: the Saboteur 2 track (its :data:`.populations.VARIANTS` entry:
    :data:`.populations.EXPANSION_POPULATIONS` by default, records under ``<tag>_x<N>``; the
    roles, the role deck and the saboteur column come from its ruleset): six roles, the labels
    are the target's role at that moment (Swap your hats changes it, RULES 6.5), the exact
    prior is the 15-card deck's (conditioned in-seat on the roles the observer held, RULES
    6.2), the saboteur column is 5, the Bayes detectors use the Saboteur 2 event model on exact
    or sampled role assignments (:class:`.detectors.BayesDetector`), and populations with a PPO
    agent are skipped (base-game only).

    ``records``: a folder of game records (e.g. the human games of ``saboteur serve``,
    :func:`record_population`) scored as one more population with the same detectors and
    metrics; its games are never used for fitting (every one is scored), only those at the
    player counts of ``players`` and of this ruleset are read, and it has no plot panel.

    ``workers``/``backend``/``address``: where the record games are played
    (:func:`saboteur_experiments.backends.map_tasks`: local processes or Ray; the same records).
    """
    from tqdm import tqdm

    from saboteur_env.record import read_record

    t0 = time.time()
    if not MIN_GAMES <= games <= MAX_GAMES:
        raise ValueError(
            f"games={games}: {MIN_GAMES} to {MAX_GAMES} games per population "
            f"(games i % 10 < 4 train, 4-5 validation, >= 6 test; distinct deal "
            f"seeds for at most {MAX_GAMES})"
        )
    v = variant(expansion)
    rules = v.ruleset
    pops = list(pops or v.populations)
    specs, usable, skipped = usable_populations(pops, held_out, players, expansion, ppo)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    log = (lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr))
    for pop, why in skipped.items():
        log(f"population {pop!r} skipped: {why}")
    recs: dict[tuple[str, int], list] = {}
    with tqdm(total=len(usable) * len(players) * games, desc="records", disable=quiet) as bar:
        for pop in usable:
            for n in players:
                paths = record_set(
                    out,
                    pop,
                    n,
                    games,
                    seed=seed,
                    rounds=rounds,
                    progress=bar,
                    spec=specs[pop],
                    expansion=expansion,
                    workers=workers,
                    backend=backend,
                    address=address,
                )
                recs[(pop, n)] = [read_record(p) for p in paths]
    extra = None
    if records is not None:
        extra = record_population(records, players, expansion, taken=set(usable), log=log)
    fit_pops = [p for p in usable if p != held_out]
    train = [
        r
        for p in fit_pops
        for n in players
        for i, r in enumerate(recs[(p, n)])
        if split_of(i) == "train"
    ]
    val = [
        r
        for p in fit_pops
        for n in players
        for i, r in enumerate(recs[(p, n)])
        if split_of(i) == "val"
    ]
    with tqdm(total=len(train) + len(val), desc="fitting", disable=quiet) as bar:
        fitted = fit_detectors(train, val, ruleset=rules, seed=seed, progress=bar)

    heuristic_ok = population_problem("heuristic", players[0], expansion) is None
    skipped_dets: dict[str, str] = {}  # every detector runs on both games

    def factories(track):
        fs = [
            ("uniform", UniformDetector),
            ("prior", PriorDetector),
            ("bayes", BayesDetector),
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
                        s = summarize(
                            sc,
                            prior,
                            B=bootstrap,
                            seed=seed,
                            threshold=threshold,
                            sab=rules.saboteur,
                            diggers=rules.diggers,
                        )
                        cells.append(
                            {
                                "track": track,
                                "detector": name,
                                "population": pop,
                                "players": n,
                                "held_out": pop == held_out,
                                **s,
                            }
                        )
    if extra is not None:
        rpop, by_n = extra
        for n, rlist in by_n.items():
            recs[(rpop, n)] = rlist
            sink = {}
            meta_rounds[(rpop, n)] = [
                score_record(rec, i, facs, sink, stride=stride)["rounds"]
                for i, rec in enumerate(rlist)
            ]
            for track in TRACKS:
                prior = sink[(track, "prior")].arrays()
                for name, _ in facs[track]:
                    s = summarize(
                        sink[(track, name)].arrays(),
                        prior,
                        B=bootstrap,
                        seed=seed,
                        threshold=threshold,
                        sab=rules.saboteur,
                        diggers=rules.diggers,
                    )
                    cells.append(
                        {
                            "track": track,
                            "detector": name,
                            "population": rpop,
                            "players": n,
                            "held_out": True,
                            **s,
                        }
                    )
    frontier = bluff_frontier(cells, recs, usable, players, B=bootstrap, seed=seed)
    if extra is not None:
        frontier += bluff_frontier(cells, recs, [rpop], list(by_n), B=bootstrap, seed=seed)
    for c in cells:
        c.pop("_saboteur_sums", None)
    summary = {
        "players": list(players),
        "games": games,
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
        "skipped": skipped,
        "held_out": held_out,
        "fit_populations": fit_pops,
        "rounds": rounds,
        "seed": seed,
        "threshold": threshold,
        "stride": stride,
        "bootstrap": bootstrap,
        "fit": fitted["fit"],
        "cells": cells,
        "frontier": frontier,
    }
    write_csv(summary, out)
    if plots:
        summary["plots"] = [str(f) for f in make_plots(summary, out, players, usable)]
    summary["seconds"] = time.time() - t0
    write_json(summary, out)
    if not quiet:
        print(format_tables(summary))
        print(f"\nwritten to {out}/ in {summary['seconds']:.0f} s")
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
    population already has it (``taken``).  Records of the other ruleset or of a player count
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
        game = "Saboteur 2" if expansion else "the base game"
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


def _copy_logistic(d: LogisticDetector) -> LogisticDetector:
    return LogisticDetector(d.W, d.mu, d.sd, d.temperature, name=d.name)
