"""``saboteur bluff``: the command line of the bluff benchmark (:func:`main`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .pipeline import FIT_GAMES, GAMES, run
from .populations import POPULATIONS, usable_populations, variant
from .records import MAX_GAMES, MAX_SEED, MIN_GAMES


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
    from saboteur_experiments.cli_args import (
        add_backend,
        at_least,
        check_backend_args,
        check_config,
        check_output_dir,
        check_unique,
    )

    base, s2 = variant(False), variant(True)

    def counts(v):
        return ",".join(map(str, v.players))

    p = argparse.ArgumentParser(
        prog="saboteur bluff",
        description="The bluff-detection benchmark: calibrated role "
        "inference against deceivers (see the README).",
    )
    p.add_argument(
        "--expansion",
        action="store_true",
        help=f"Saboteur 2 track (defaults: --players {counts(s2)}, the "
        f"expansion populations below, --out {s2.out})",
    )
    p.add_argument(
        "--players",
        default=None,
        help=f"comma-separated player counts ({counts(base)}; expansion: {counts(s2)})",
    )
    p.add_argument(
        "--games",
        type=at_least(MIN_GAMES),
        default=None,
        help=f"test games (test-split deals, the same for every population) per population "
        f"and player count, {MIN_GAMES} to {MAX_GAMES} (default {GAMES})",
    )
    p.add_argument(
        "--fit-games",
        type=at_least(MIN_GAMES),
        default=FIT_GAMES,
        help=f"training games (train-split deals) per population and player count, plus half "
        f"as many dev-split calibration games (at least {MIN_GAMES}), {MIN_GAMES} to {MAX_GAMES} "
        f"(default {FIT_GAMES})",
    )
    p.add_argument(
        "--populations",
        default=None,
        help="comma-separated: "
        + ", ".join(base.populations)
        + "; expansion: "
        + ", ".join(s2.populations),
    )
    p.add_argument(
        "--rounds", type=at_least(1), default=3, help="rounds per recorded game (default: 3)"
    )
    p.add_argument(
        "--seed",
        type=at_least(0),
        default=0,
        help=f"0 to {MAX_SEED}: which block of deals of each split (record_seeds)",
    )
    p.add_argument(
        "--bootstrap",
        type=at_least(1),
        default=1000,
        help="bootstrap resamples of test deals for every interval (default: 1000)",
    )
    p.add_argument(
        "--threshold",
        type=_unit_interval,
        default=0.5,
        help="P(saboteur) above which a target counts as accused (default: 0.5)",
    )
    p.add_argument(
        "--stride", type=at_least(1), default=1, help="score every k-th decision (default: 1)"
    )
    p.add_argument("--out", default=None, help=f"{base.out} (expansion: {s2.out})")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument(
        "--records",
        default=None,
        metavar="DIR",
        help="also score the game records in DIR (e.g. human games of 'saboteur serve') as "
        "a population; never used for fitting",
    )
    p.add_argument(
        "--detectors",
        default=None,
        metavar="SPECS",
        help="comma-separated detectors of your own, each MODULE.ATTR (a Detector subclass or a "
        "factory of one, importable: e.g. PYTHONPATH=.), scored beside the benchmark's own",
    )
    p.add_argument(
        "--ppo",
        default=None,
        help="PPO checkpoint for the ppo populations (default: the one the README's figures "
        "were measured with, ppo:v1; in Saboteur 2 ppo:sab2-v1)",
    )
    p.add_argument(
        "--workers",
        type=at_least(0),
        default=None,
        help="worker processes playing, fitting and scoring, or Ray tasks in flight with "
        "--backend ray (default: 2, or 1 on one core; with Ray every CPU of the Ray; 0: all "
        "cores; the results do not depend on it)",
    )
    add_backend(p)
    a = p.parse_args(argv)
    check_backend_args(p, a)
    x = a.expansion
    game = variant(x)
    table = game.populations
    # an empty value is an error, not the default (the default is leaving the option out)
    if a.players is not None and not a.players.strip():
        p.error(f"--players {a.players!r}: empty; give comma-separated player counts, e.g. 3,5")
    if a.populations is not None and not a.populations.strip():
        p.error(f"--populations {a.populations!r}: empty; give comma-separated populations")
    players_text = a.players if a.players is not None else counts(game)
    players = []
    for v in players_text.split(","):
        try:
            players.append(int(v))
        except ValueError:
            p.error(
                f"--players {players_text}: {v.strip()!r} is not a player count "
                f"(comma-separated integers, e.g. 3,5)"
            )
    for n in dict.fromkeys(players):
        check_config(p, num_players=n, num_rounds=a.rounds, expansion=x)
    if len(set(players)) != len(players):
        p.error(f"--players {players_text}: a player count is repeated")
    games = a.games if a.games is not None else GAMES
    for opt, k in (("--games", games), ("--fit-games", a.fit_games)):
        if k > MAX_GAMES:
            p.error(f"argument {opt}: must be <= {MAX_GAMES}, got {k}")
    if a.seed > MAX_SEED:
        p.error(f"argument --seed: must be <= {MAX_SEED}, got {a.seed}")
    pops_text = a.populations if a.populations is not None else ",".join(table)
    pops = [v.strip() for v in pops_text.split(",")]
    check_unique(p, pops, "--populations", "population")
    known = {*table, *POPULATIONS}
    for pop in pops:
        if pop not in known:
            from saboteur_agents import make_agent

            try:
                make_agent(pop)  # any agent spec is a population of its own
            except (ValueError, ImportError) as err:  # ImportError: MissingExtraError
                p.error(
                    f"--populations: {pop!r} is neither a population ({', '.join(table)}) "
                    f"nor an agent spec that can be built ({err})"
                )
    detectors: list[str] = []
    if a.detectors is not None:
        from .detectors import load_detectors

        detectors = [v.strip() for v in a.detectors.split(",")]
        check_unique(p, detectors, "--detectors", "detector")
        try:
            load_detectors(detectors)
        except ValueError as err:
            p.error(f"--detectors: {err}")
    if a.ppo is not None and not Path(a.ppo).is_file():
        p.error(f"--ppo {a.ppo}: no such checkpoint file")
    out = a.out or game.out
    check_output_dir(p, out, "--out")
    if (Path(out) / "summary.json").is_file():  # by design (the records are reused): say so
        print(
            f"saboteur bluff: --out {out} holds an earlier run: its summary and plots are "
            "replaced, its game records reused where they match (docs/bluff.md)",
            file=sys.stderr,
        )
    try:
        usable_populations(pops, players, x, a.ppo)
    except ValueError as err:
        p.error(f"--populations {','.join(pops)}: {err}")
    if a.records is not None:
        from .pipeline import record_population

        try:
            record_population(a.records, players, x)
        except ValueError as err:
            p.error(f"--records {a.records}: {err}")
    if a.workers is None:  # 2 processes, or every CPU of the Ray
        workers = 0 if a.backend == "ray" else min(2, os.cpu_count() or 1)
    elif a.workers == 0 and a.backend != "ray":
        workers = os.cpu_count() or 1
    else:
        workers = a.workers
    return run(
        players=players,
        games=games,
        pops=pops,
        fit_games=a.fit_games,
        rounds=a.rounds,
        seed=a.seed,
        out=out,
        bootstrap=a.bootstrap,
        threshold=a.threshold,
        stride=a.stride,
        plots=not a.no_plots,
        ppo=a.ppo,
        expansion=x,
        records=a.records,
        workers=workers,
        backend=a.backend,
        address=a.address,
        detectors=detectors,
    )
