"""``saboteur evaluate``: the published evaluations (DESIGN 9).

``saboteur evaluate heuristic --against random,heuristic --players 5 --deals 500``
    the ``role-probe`` head-to-head of a candidate against each reference, per role;
``saboteur evaluate --external random,heuristic,heuristic:subtle [--against heuristic:v1]``
    the external 4-player protocol (a saboteur against three heuristic gold-diggers, or the
    ``--against`` agent's), beside the published figures.

Deals come from ``--split`` (default ``test``) from ``--first-deal``; the command prints the
split, the deal count and the seed with the table, and ``--json FILE`` writes the result.
"""

from __future__ import annotations

import argparse
import time

from saboteur_experiments.cli_args import (
    DefaultsHelp,
    add_backend,
    add_deal_range,
    at_least,
    check_agents,
    check_agents_fit,
    check_backend_args,
    check_config,
    check_deal_range,
    check_output_file,
    check_unique,
)
from saboteur_experiments.jsonio import write_json


def main(argv=None) -> dict:
    """Run the command; returns the result dict (also written with ``--json``)."""
    p = argparse.ArgumentParser(
        prog="saboteur evaluate",
        description="Role-probe head-to-head of a candidate agent against reference agents "
        "(saboteur_experiments.evaluation), or the external 4-player saboteur protocol.",
        formatter_class=DefaultsHelp,
    )
    p.add_argument("candidate", nargs="?", default=None, help="agent spec under test")
    p.add_argument(
        "--against",
        default=None,
        help="reference agent specs (default: random,heuristic; with --external: the one agent "
        "of the gold-diggers, default heuristic)",
    )
    p.add_argument(
        "--external",
        default=None,
        metavar="SPECS",
        help="instead: the external protocol for these comma-separated saboteur specs",
    )
    p.add_argument("--players", type=int, default=None, help="players per game (default: 5)")
    p.add_argument("--expansion", action="store_true", help="Saboteur 2 (all six roles)")
    p.add_argument("--deals", type=at_least(1), default=500, help="deals per role")
    add_deal_range(p)
    p.add_argument("--seed", type=at_least(0), default=0, help="seeds the agents")
    p.add_argument(
        "--workers",
        type=at_least(1),
        default=None,
        help="processes, or Ray tasks in flight with --backend ray (default 1; with Ray: every "
        "CPU of the Ray); results do not depend on it",
    )
    add_backend(p)
    p.add_argument("--json", default=None, help="also write the result to this file")
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bar (games played, on stderr)"
    )
    a = p.parse_args(argv)
    check_backend_args(p, a)
    if a.workers is None:
        a.workers = 0 if a.backend == "ray" else 1
    if a.json:
        check_output_file(p, a.json, "--json")
    check_deal_range(p, a)
    from saboteur_experiments.evaluation import protocols

    t0 = time.perf_counter()
    if a.external is not None:
        if a.candidate is not None:
            p.error("--external takes its candidates itself; give no positional candidate")
        ignored = [
            flag
            for flag, given in (
                ("--players", a.players is not None),
                ("--expansion", a.expansion),
            )
            if given
        ]
        if ignored:
            p.error(
                f"--external is fixed at 4 players, base game: "
                f"{', '.join(ignored)} cannot be combined with it"
            )
        # --against: the gold-diggers (one spec; default the heuristic)
        against = "heuristic" if a.against is None else a.against  # '' is no default
        refs = [s.strip() for s in against.split(",") if s.strip()]
        if len(refs) != 1:
            p.error(f"--against {a.against!r} with --external: one agent spec, the gold-diggers")
        (reference,) = refs
        check_agents(p, [reference], "--against")
        check_agents_fit(p, [reference], 4, False, "--against")
        specs = [s.strip() for s in a.external.split(",") if s.strip()]
        if not specs:
            p.error("--external: at least one agent spec is needed")
        check_unique(p, specs, "--external")
        check_agents(p, specs, "--external")
        check_agents_fit(p, specs, 4, False, "--external")
        try:
            res = protocols.external_protocol(
                specs,
                a.deals,
                a.split,
                a.first_deal,
                a.seed,
                workers=a.workers,
                backend=a.backend,
                address=a.address,
                progress=not a.no_progress,
                reference=reference,
            )
        except ValueError as err:  # e.g. too few deals of the split hold a saboteur
            p.error(str(err))
        text = protocols.format_external(res)
    else:
        if a.candidate is None:
            p.error("give a candidate agent spec (or --external SPECS)")
        against = "random,heuristic" if a.against is None else a.against  # '' is no default
        refs = [s.strip() for s in against.split(",") if s.strip()]
        if not refs:
            p.error("--against: at least one agent spec is needed")
        check_unique(p, refs, "--against")
        players = 5 if a.players is None else a.players
        check_agents(p, [a.candidate], "candidate")
        check_agents(p, refs, "--against")
        check_config(p, num_players=players, num_rounds=1, expansion=a.expansion)
        check_agents_fit(p, [a.candidate], players, a.expansion, "candidate")
        check_agents_fit(p, refs, players, a.expansion, "--against")
        try:
            res = protocols.head_to_head(
                a.candidate,
                refs,
                players,
                a.deals,
                a.split,
                a.first_deal,
                a.seed,
                a.expansion,
                workers=a.workers,
                backend=a.backend,
                address=a.address,
                progress=not a.no_progress,
            )
        except ValueError as err:  # too few deals hold a role; a checkpoint that does not fit
            p.error(str(err).splitlines()[0])
        text = protocols.format_head_to_head(res)
        for spec in [a.candidate, *refs]:  # a checkpoint played at another player count
            trained = protocols.trained_players(spec)
            if trained is not None and trained != players:
                text += f"\nnote: {spec} was trained at {trained} players, played here at {players}"
    res["seconds"] = time.perf_counter() - t0
    print(text)
    print(f"({res['seconds']:.0f} s)")
    if a.json:
        write_json(a.json, res)
    return res
