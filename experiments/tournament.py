"""Tournaments over duplicate deals (DESIGN 6, cases T1, T3, T5, T7, T9).

``saboteur tournament --agents random,heuristic --players 5 --deals 100``

This is the ``mixed`` protocol of :mod:`saboteur_experiments.evaluation.protocols`: for ratings;
per-role claims about one agent come from ``saboteur evaluate`` (the ``role-probe`` protocol).

Schedule (duplicate deals).  Deal ``d`` is deal ``first + d`` of a deal split
(:mod:`saboteur_experiments.evaluation.splits`; ``--split``, default ``test``, and
``--first-deal``); its seed resets the environment (``env.reset(seed=...)``), so the role cards,
goal cards and every shuffle of every round are fixed by the deal alone.  Each deal is played ``k``
times
(``k`` = number of agent specs), game ``o`` seating ``specs[(seat + o) % k]`` in each seat:
over the ``k`` games of a deal every agent sits in every seat exactly once, and so meets every
role assignment of that deal.
Agents get their own seeds (``agent_seed(seed, deal_seed, o, seat)``), so how much randomness
an agent consumes never changes the deal; ``--seed`` seeds the agents and the bootstrap, not
the deals.  Results are sorted by game id, so they are identical for any
number of worker processes.

Reported (every interval deal-clustered, :mod:`saboteur_experiments.evaluation.stats`, with the
number of observations and deals): team ratings per role
(:mod:`saboteur_experiments.evaluation.team`: the winning side's seats against the losing side's,
order-free, deal-bootstrap 95% intervals); per-agent round win rates by role; mean gold; per-seat
win rates, gold and role frequencies (a seat-bias check); the side win rates, also by the number of
saboteurs in play, with a warning when one side wins more than 99% of rounds (the command
prints it once, on stderr; ``summary.json`` keeps it under ``"warnings"``).  Secondary, labelled
as a free-for-all view of final gold: OpenSkill Plackett-Luce (online, game-id order;
order-dependent), a batch Bradley-Terry fit with deal-bootstrap intervals
(:mod:`saboteur_experiments.ratings`), the full pairwise matrix and any non-transitive cycle.

Outputs in ``--out`` (default ``runs/tournament``, ``runs/tournament-expansion`` with
``--expansion``): ``games.csv`` (one row per game and seat),
``rounds.csv`` (one row per round and seat), ``summary.json``, ``ratings.png``,
``win_rates.png`` (their titles name the settings: agents, players, rounds, deals, seed).  A
second tournament into the same ``--out`` is refused (a usage error) while it holds the outputs
of an earlier one, unless ``--overwrite`` is given.

``--role-override all-digger`` (experiments only) makes every player a gold-digger in
every round: the engine deals as usual, then the harness rewrites the dealt roles before anyone
acts (agents read their role from the observation).

Saboteur 2 (``--expansion``, any player count 2-12): the same schedule on
``saboteur_env.env(expansion=True)``; win rates are reported per role of the game's ruleset
(``config.ruleset.roles``, RULES 6.2).  A role "wins" a round when the seat is in the round's
winners set (RULES 6.9: the winning digger team(s), the Boss when he wins, the Profiteer, or the
saboteurs; trapped players excluded); a geologist, never in that set, "wins" when he was paid
more than 0 gold (before thefts).  The side rates are then "gold found" (``gold-digger``) and
"gold not found" (``saboteur``).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from saboteur_env.engine.ruleset import BASE, SABOTEUR_2, Ruleset, ruleset_of
from saboteur_experiments.cli_args import (
    add_backend,
    add_deal_range,
    add_game_size,
    at_least,
    check_agents,
    check_agents_fit,
    check_backend_args,
    check_config,
    check_deal_range,
    check_output_dir,
    check_unique,
)
from saboteur_experiments.evaluation.failures import (
    COUNTER_LABELS,
    MissedWins,
    failure_report,
    game_failures,
)
from saboteur_experiments.evaluation.outcomes import (
    result_ruleset,
    role_won,
    round_table,
    saboteurs_in_play,
    saboteurs_won,
)
from saboteur_experiments.evaluation.splits import agent_seed, deal_seeds
from saboteur_experiments.evaluation.stats import (
    cluster_mean,
    cluster_rate,
    error_bars,
    rate_dict,
)
from saboteur_experiments.jsonio import write_json
from saboteur_experiments.ratings import (
    OnlineRatings,
    bootstrap_bt,
    bradley_terry,
    cycles,
    pair_results,
    win_matrix,
)

#: role names by role id (``Ruleset.roles``): the base game's and Saboteur 2's
ROLE_NAMES = BASE.roles
X_ROLE_NAMES = SABOTEUR_2.roles
ROLE_OVERRIDES = ("none", "all-digger")


class OneSidedWarning(UserWarning):
    """One side won more than 99% of the rounds: a sign of a rules or agent bug."""


@dataclass(frozen=True)
class Task:
    """One game of the schedule."""

    game_id: int
    deal: int
    deal_seed: int
    offset: int
    lineup: tuple[str, ...]
    agent_seeds: tuple[int, ...]
    num_rounds: int = 3
    role_override: str = "none"
    config: tuple = ()
    record_dir: str = ""


def lineup(specs: Sequence[str], players: int, offset: int) -> tuple[str, ...]:
    """Agent of every seat in game ``offset`` of a deal: ``specs[(seat + offset) % k]``."""
    k = len(specs)
    return tuple(specs[(s + offset) % k] for s in range(players))


def schedule(
    specs: Sequence[str],
    players: int,
    deals: int,
    seed: int = 0,
    num_rounds: int = 3,
    role_override: str = "none",
    config: dict | None = None,
    record_dir: str = "",
    split: str = "test",
    first: int = 0,
) -> list[Task]:
    """Every game of a tournament, in game-id order (see the module docstring): deals
    ``first .. first + deals - 1`` of deal split ``split``.

    Raises:
        ValueError: no agent spec, an unknown ``role_override`` or split, or deals that run
            past the end of the split.
    """
    if not specs:
        raise ValueError("at least one agent spec is needed")
    if role_override not in ROLE_OVERRIDES:
        raise ValueError(f"role_override={role_override!r}; valid: {ROLE_OVERRIDES}")
    k = len(specs)
    tasks = []
    cfg = tuple(sorted((config or {}).items()))
    for d, ds in enumerate(deal_seeds(split, deals, first)):
        for o in range(k):
            tasks.append(
                Task(
                    len(tasks),
                    d,
                    ds,
                    o,
                    lineup(specs, players, o),
                    tuple(agent_seed(seed, ds, o, s) for s in range(players)),
                    num_rounds,
                    role_override,
                    cfg,
                    record_dir,
                )
            )
    return tasks


# --- playing ---------------------------------------------------------------------------
def _override_roles(game, how: str) -> None:
    if how == "all-digger":  # the ruleset's first digger role (the base game's gold-digger)
        digger = game.rules.diggers[0]
        game.roles[:] = digger
        game.set_aside = [digger] * len(game.set_aside)


def play(task: Task) -> dict:
    """Play one scheduled game through the PettingZoo AEC loop; returns a plain dict."""
    import saboteur_env
    from saboteur_agents import make_agent
    from saboteur_agents.base import REFUSED_ACTION, attach_game, blame_agent

    n = len(task.lineup)
    # the engine backend: --role-override edits the game's roles in place each round, which
    # the array backend's kept observation would not follow (it follows step and load); and
    # a game's time here is the agents' (200 games of the default run take the same 13-15 s
    # on either backend), while the array backend's first use on a fresh install compiles
    # its kernels (about 30 s more for the README's first command)
    env = saboteur_env.raw_env(
        backend="engine", num_players=n, num_rounds=task.num_rounds, **dict(task.config)
    )
    env.reset(seed=task.deal_seed)
    game = env.game
    agents = [make_agent(spec) for spec in task.lineup]
    for seat, agent in enumerate(agents):
        agent.reset(seat, env.config, seed=task.agent_seeds[seat])
    attach_game(agents, game)
    override = task.role_override != "none"
    seen_round = -1
    decisions = 0
    watch = MissedWins(game, env.codec)  # wins_available / wins_missed, at decision time
    for name in env.agent_iter():
        if override and game.round != seen_round and not game.game_over:
            _override_roles(game, task.role_override)
            seen_round = game.round
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[name]
        where = f"game {task.game_id}, deal seed {task.deal_seed}, decision {decisions}"
        with blame_agent(agents[seat], seat, where):
            action = agents[seat].act(obs["observation"], obs["action_mask"], info)
        with blame_agent(agents[seat], seat, where, only=REFUSED_ACTION):
            watch.before(seat, action)
            env.step(action)
        decisions += 1
    if task.record_dir and not override:  # overridden roles cannot be replayed by the rules
        from saboteur_env.record import write_record

        write_record(
            os.path.join(task.record_dir, f"game_{task.game_id:06d}.jsonl"),
            game,
            task.deal_seed,
            list(task.lineup),
            agent_seeds=task.agent_seeds,
            meta={"tournament_deal": task.deal, "offset": task.offset},
        )
    rounds = [
        {
            "round": r.round,
            "gold_found": bool(r.gold_found),
            "winners": list(r.winners),
            "roles": list(r.roles),
            "received": list(r.received),
            "turns": int(r.turns),
            "connector": r.connector,
            "paid": list(r.paid),
        }
        for r in game.round_results
    ]
    for rd, r in zip(rounds, game.round_results):
        rd["winning_side"] = r.winning_side

    return {
        "game_id": task.game_id,
        "deal": task.deal,
        "deal_seed": task.deal_seed,
        "offset": task.offset,
        "lineup": list(task.lineup),
        "gold": game.gold.tolist(),
        "winners": game.winners(),
        "rounds": rounds,
        "decisions": decisions,
        "ruleset": env.config.ruleset.name,
        "failures": game_failures(game, env.config.ruleset, watch),
    }


def run(
    tasks: Sequence[Task],
    workers: int = 1,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
) -> list[dict]:
    """Play every task, in parallel when ``workers > 1`` or on Ray (``backend="ray"``, on the
    cluster at ``address``: :func:`saboteur_experiments.backends.map_tasks`); results sorted
    by game id, the same for every backend and worker count."""
    from tqdm import tqdm

    from saboteur_experiments.backends import check_backend, ensure_ray, map_tasks

    check_backend(backend, address)
    if backend == "ray":  # started (or joined) before the progress bar is drawn
        ensure_ray(address, num_cpus=workers if workers > 0 else None)
    bar = tqdm(total=len(tasks), desc="games", unit="game", disable=not progress, file=sys.stderr)
    try:
        results = map_tasks(
            play, tasks, workers, backend, address, on_result=lambda r: bar.update()
        )
    finally:
        bar.close()
    results.sort(key=lambda r: r["game_id"])
    return results


# --- statistics ------------------------------------------------------------------------
def role_labels(rules: Ruleset) -> list[str]:
    """The role names of ``games.csv``: initials when they tell the roles apart (the base
    game's ``g`` / ``s``), else the full names (Saboteur 2)."""
    initials = [r[0] for r in rules.roles]
    return initials if len(set(initials)) == len(initials) else list(rules.roles)


def summarize(
    results: Sequence[dict], specs: Sequence[str], n_boot: int = 200, seed: int = 0
) -> dict:
    """All statistics of a tournament (see the module docstring) as a JSON-ready dict.

    Every rate is clustered by deal (:func:`saboteur_experiments.evaluation.stats.cluster_rate`);
    the team ratings and the Bradley-Terry intervals resample whole deals (``n_boot`` times,
    seeded by ``seed``)."""
    from saboteur_experiments.evaluation.team import team_ratings

    agents = list(dict.fromkeys(specs))
    n = len(results[0]["lineup"]) if results else 0
    rules = result_ruleset(results[0]) if results else BASE
    role_names = rules.roles
    table = round_table(results, agents)
    # one row per (game, seat): final gold, game won
    g_deal = np.array([r["deal"] for r in results for _ in r["lineup"]], dtype=np.int64)
    g_agent = np.array([agents.index(a) for r in results for a in r["lineup"]], dtype=np.int64)
    g_seat = np.array([s for r in results for s in range(len(r["lineup"]))], dtype=np.int64)
    g_gold = np.array([x for r in results for x in r["gold"]], dtype=np.float64)
    g_won = np.array([float(s in r["winners"]) for r in results for s in range(len(r["lineup"]))])
    # one row per round: gold found, saboteurs won, saboteurs in play
    rd_deal = np.array([r["deal"] for r in results for _ in r["rounds"]], dtype=np.int64)
    rd_found = np.array([float(rd["gold_found"]) for r in results for rd in r["rounds"]])
    rd_sabwon = np.array([float(saboteurs_won(rd, rules)) for r in results for rd in r["rounds"]])
    rd_sabs = np.array(
        [saboteurs_in_play(rd, rules) for r in results for rd in r["rounds"]], dtype=np.int64
    )
    online = OnlineRatings(agents)
    for r in results:
        online.update(r["lineup"], r["gold"])
    per_game = pair_results([r["lineup"] for r in results], [r["gold"] for r in results], agents)
    wins = per_game.sum(axis=0)
    bt = bradley_terry(wins)
    # the deal is the resampled unit: sum each deal's games first
    deal_ids, deal_of_game = np.unique([r["deal"] for r in results], return_inverse=True)
    per_deal = np.zeros((len(deal_ids), *per_game.shape[1:]))
    np.add.at(per_deal, deal_of_game.reshape(-1), per_game)
    lo, hi = bootstrap_bt(per_deal, n_boot=n_boot, seed=seed)
    P = win_matrix(wins)
    team = team_ratings(results, agents, n_boot=n_boot, seed=seed, table=table) if results else None
    rounds_total = len(rd_found)
    warn = []
    if rounds_total:
        for how, outcome in (("found", rd_found), ("not found", 1 - rd_found)):
            share = float(outcome.mean())
            if share > 0.99:
                lower = cluster_rate(outcome, rd_deal).lo
                warn.append(
                    f"the gold was {how} in {share:.1%} of {int(rounds_total)} rounds (> 99%): "
                    + (
                        "check the rules engine and the agents"
                        if lower > 0.99
                        # few rounds: so one-sided a share may be chance, and says so
                        else f"its 95% interval (clustered by deal) reaches down to {lower:.0%}, "
                        "too few rounds to tell a one-sided game from chance; if it persists "
                        "over more deals, check the rules engine and the agents"
                    )
                )
    online_t = online.table()
    agents_out = {}
    for i, a in enumerate(agents):
        mg = g_agent == i
        g = g_gold[mg]
        gold_e = cluster_mean(g, g_deal[mg], n_boot=max(n_boot, 1), seed=seed)
        roles_out = {}
        for role in range(rules.n_roles):
            m = (table.agent == i) & (table.role == role)
            roles_out[role_names[role]] = rate_dict(table.won[m], table.deal[m])
        dig = (table.agent == i) & np.isin(table.role, rules.diggers)
        agents_out[a] = {
            "games": int(mg.sum()),
            "mean_gold": gold_e.value,
            "mean_gold_ci": [gold_e.lo, gold_e.hi],
            "game_win": rate_dict(g_won[mg], g_deal[mg]),
            "roles": roles_out,
            "digger_roles": rate_dict(table.won[dig], table.deal[dig]),
            "team_rating": team["agents"][a] if team else None,
            "openskill": online_t[a],
            "bt_elo": float(bt[i]),
            "bt_elo_ci": [float(lo[i]), float(hi[i])],
        }
    seats = []
    for s in range(n):
        ms = g_seat == s
        mr = table.seat == s
        seats.append(
            {
                "seat": s,
                "games": int(ms.sum()),
                "win": rate_dict(g_won[ms], g_deal[ms]),
                "mean_gold": float(g_gold[ms].mean()) if ms.any() else None,
                "saboteur_share": float((table.role[mr] == rules.saboteur).mean())
                if mr.any()
                else None,
                "agent_games": {a: int((ms & (g_agent == j)).sum()) for j, a in enumerate(agents)},
            }
        )
    by_sab = {
        str(c): {
            "rounds": int((rd_sabs == c).sum()),
            "saboteurs_won": rate_dict(rd_sabwon[rd_sabs == c], rd_deal[rd_sabs == c]),
            "gold_not_found": rate_dict(1 - rd_found[rd_sabs == c], rd_deal[rd_sabs == c]),
        }
        for c in sorted(set(rd_sabs.tolist()))
    }
    some = rd_sabs > 0
    return {
        "expansion": rules.expansion,
        "ruleset": rules.name,
        "role_names": list(role_names),
        "deals": int(len(deal_ids)),
        "agents": agents_out,
        "team_ratings": team,
        "seats": seats,
        "sides": {
            "gold_found": rate_dict(rd_found, rd_deal),
            "saboteurs_won": rate_dict(rd_sabwon, rd_deal),
        },
        "by_saboteurs": by_sab,
        "saboteurs_won_given_saboteur": rate_dict(rd_sabwon[some], rd_deal[some]),
        "pairwise": {
            "agents": agents,
            "p_win": [[None if np.isnan(x) else float(x) for x in row] for row in P],
        },
        "cycles": [list(c) for c in cycles(P, agents)],
        "failures": failure_report(results, agents),
        "games": len(results),
        "rounds": int(rounds_total),
        "warnings": warn,
        "rating_notes": (
            "team_rating: per role, the winning side's seats against the losing side's, "
            "logistic model, order-free, deal-bootstrap 95%; secondary, free-for-all on final "
            "gold: openskill (Plackett-Luce, online in game-id order, order-dependent) and "
            "bt_elo (batch Bradley-Terry on pairwise gold comparisons, deal-bootstrap 95%)"
        ),
    }


def _int(x: float) -> int:
    """Round for display without a signed zero."""
    return int(round(x)) + 0


def _ci(r: dict) -> str:
    """A rate and its interval, or ``-`` where no round of that kind was played (``n = 0``:
    no rate, as in the per-role table)."""
    if not r["n"]:
        return f"{'-':>6} {'(n=0)':<13}"
    return f"{r['rate']:>6.1%} [{r['lo']:.1%},{r['hi']:.1%}]"


def format_summary(summary: dict, with_warnings: bool = True) -> str:
    """The terminal table; with ``with_warnings``, ending in a ``WARNING:`` line per one-sided
    warning (``summary["warnings"]``).  The command line prints those on stderr instead (once),
    and ``summary.json`` keeps them."""
    lines = []
    rules = result_ruleset(summary)
    w = max([len(a) for a in summary["agents"]] + [5])
    lines.append(
        f"{summary['games']} games, {summary.get('deals', '?')} deals, {summary['rounds']} rounds"
        + ("" if rules is BASE else f" ({rules.title})")
        + "; mixed seating (every agent in every seat of every deal); 95% intervals "
        "clustered by deal"
    )
    lines.append(
        "team rating: Elo scale, per role class, relative within the class (ridge-shrunk toward "
        "0); gold: mean final gold; game win: games the seat ended with the most gold (a tie "
        "counts for every tied seat); round win: rounds won in that role"
    )
    lines.append(
        f"{'agent':<{w}}  {'team rating, digger':>20}  {'team rating, saboteur':>22}  "
        f"{'gold':>5}  {'game win':>8}  {'round win, digger':>20}  {'round win, saboteur':>20}"
    )
    for a, s in summary["agents"].items():
        d, b = s["digger_roles"], s["roles"][rules.roles[rules.saboteur]]
        tr = s.get("team_rating") or {}
        cells = []
        for key in ("gold-digger", "saboteur"):
            t = tr.get(key)
            cells.append(
                f"{_int(t['rating']):>+6d} [{_int(t['lo']):>+5d},{_int(t['hi']):>+5d}]"
                if t and t.get("rating") is not None
                else f"{'-':>20}"
            )
        lines.append(
            f"{a:<{w}}  {cells[0]:>20}  {cells[1]:>22}  "
            f"{s['mean_gold']:>5.2f}  {s['game_win']['rate']:>8.1%}  "
            f"{_ci(d):>20}  {_ci(b):>20}"
        )
    lines.append(
        "free-for-all view of final gold (secondary; ignores the hidden teams): "
        + "; ".join(
            f"{a} Bradley-Terry {_int(s['bt_elo']):+d} [{_int(s['bt_elo_ci'][0]):+d}, "
            f"{_int(s['bt_elo_ci'][1]):+d}], OpenSkill mu {s['openskill']['mu']:.1f} sigma "
            f"{s['openskill']['sigma']:.1f}"
            for a, s in summary["agents"].items()
        )
    )
    sd = summary["sides"]
    lines.append(
        f"rounds: gold found {_ci(sd['gold_found']).strip()}, saboteurs won "
        f"{_ci(sd['saboteurs_won']).strip()}"
    )
    parts = []
    for c, b in summary["by_saboteurs"].items():
        text = f"{c}: {b['rounds']} rounds, saboteurs won {_ci(b['saboteurs_won']).strip()}"
        if b["gold_not_found"]["wins"] != b["saboteurs_won"]["wins"]:
            text += f", gold not found {_ci(b['gold_not_found']).strip()}"
        parts.append(text)
    lines.append(
        "by saboteurs in play: " + "; ".join(parts) + "; saboteurs won given at least one: "
        f"{_ci(summary['saboteurs_won_given_saboteur']).strip()}"
    )
    fr = summary.get("failures")
    if fr:
        # one labelled column per statistic: a slash-separated line was hard to read
        cols = tuple(COUNTER_LABELS.items())
        lines.append(
            "failure statistics per 100 rounds played by a seat of the agent "
            "(saboteur_experiments.evaluation.failures; 'on ...': those of the breaks, also "
            "per 100 rounds; 'win available': decisions of a gold-digger side seat with a "
            "winning placement legal)"
        )
        lines.append(f"  {'agent':<{w}}" + "".join(f"  {label}" for _, label in cols))
        for a, f in fr["agents"].items():
            p100 = {k: v["per_100_rounds"] for k, v in f.items() if isinstance(v, dict)}
            lines.append(
                f"  {a:<{w}}" + "".join(f"  {p100[key]:>{len(label)}.1f}" for key, label in cols)
            )
        if fr["digger_losses"]:
            lines.append(
                f"  rounds the gold-diggers lost with the tunnel within {fr['near']} cells of "
                f"the gold: {fr['lost_near_gold']} of {fr['digger_losses']} "
                f"({fr['lost_near_gold'] / fr['digger_losses']:.0%})"
            )
    lines.append("seat  game win [95%]        mean gold  saboteur share")
    for s in summary["seats"]:
        lines.append(
            f"{s['seat']:>4}  {s['win']['rate']:>6.1%} [{s['win']['lo']:.1%},"
            f"{s['win']['hi']:.1%}]   {s['mean_gold']:>9.2f}  "
            f"{s['saboteur_share']:>14.1%}"
        )
    pw = summary["pairwise"]
    if len(pw["agents"]) > 1:
        lines.append("pairwise P(row has more gold than column), ties 1/2:")
        cw = max(6, min(24, max(len(a) for a in pw["agents"]))) + 1
        lines.append(" " * (w + 2) + "".join(f"{a[: cw - 1]:>{cw}}" for a in pw["agents"]))
        for a, row in zip(pw["agents"], pw["p_win"]):
            lines.append(
                f"{a:<{w}}  "
                + "".join(f"{'-':>{cw}}" if x is None else f"{x:>{cw}.3f}" for x in row)
            )
    if summary["cycles"]:
        lines.append(
            "non-transitive cycles in the point estimates (a beats b beats c beats a; no "
            "test of significance): " + "; ".join(" > ".join(c) for c in summary["cycles"])
        )
    roles = list(rules.roles)
    if len(roles) > 2:  # more roles than the digger and saboteur columns above
        note = "".join(f" ({rules.roles[r]}: paid > 0)" for r in rules.paid_roles)
        lines.append(f"{rules.title} round win rate by role [95%, clustered by deal]{note}:")
        for a, s in summary["agents"].items():
            cells = []
            for role in roles:
                r = s["roles"][role]
                cells.append(
                    f"{role} {r['rate']:.1%} [{r['lo']:.1%},{r['hi']:.1%}] n={r['n']}"
                    if r["n"]
                    else f"{role} - n=0"
                )
            lines.append(f"{a:<{w}}  " + "; ".join(cells))
    if with_warnings:
        lines += ["WARNING: " + msg for msg in summary["warnings"]]
    return "\n".join(lines)


# --- outputs ---------------------------------------------------------------------------
#: what a tournament writes in ``--out`` (``records/``: with ``--records``)
#: the default ``--out`` of each game, so that the two games' results never share a folder
DEFAULT_OUT = {BASE.name: "runs/tournament", SABOTEUR_2.name: "runs/tournament-expansion"}
OUTPUT_FILES = ("games.csv", "rounds.csv", "summary.json", "ratings.png", "win_rates.png")


def existing_outputs(out: str) -> list[str]:
    """The outputs of an earlier tournament in folder ``out`` (:data:`OUTPUT_FILES`, and
    ``records/`` when it holds records)."""
    found = [f for f in OUTPUT_FILES if os.path.exists(os.path.join(out, f))]
    records = os.path.join(out, "records")
    if os.path.isdir(records) and any(f.endswith(".jsonl") for f in os.listdir(records)):
        found.append("records/")
    return found


def _count(n, noun: str) -> str:
    """``"1 round"``, ``"3 rounds"``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def settings_text(meta: dict) -> str:
    """One line naming the settings of a tournament (the plots' subtitle)."""
    text = (
        f"agents {', '.join(meta.get('agents', []))}; {meta.get('players')} players, "
        f"{_count(meta.get('rounds'), 'round')}, "
        f"{_count(meta.get('deals'), meta.get('split', 'test') + ' deal')} "
        f"from {meta.get('first_deal', 0)}, seed {meta.get('seed')}"
    )
    if meta.get("expansion"):
        text += "; Saboteur 2"
    if meta.get("role_override", "none") != "none":
        text += f"; roles: {meta['role_override']}"
    return text


def write_outputs(
    results: Sequence[dict], summary: dict, out: str, meta: dict, plots: bool = True
) -> list[str]:
    """Write games.csv, rounds.csv, summary.json and the PNG plots (subtitled with
    :func:`settings_text` of ``meta``); returns the paths."""
    os.makedirs(out, exist_ok=True)
    paths = []
    p = os.path.join(out, "games.csv")
    with open(p, "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(
            [
                "game_id",
                "deal",
                "deal_seed",
                "offset",
                "seat",
                "agent",
                "gold",
                "winner",
                "roles",
                "rounds_won",
                "decisions",
            ]
        )
        for r in results:
            rules = result_ruleset(r)
            labels = role_labels(rules)
            for s, a in enumerate(r["lineup"]):
                wr.writerow(
                    [
                        r["game_id"],
                        r["deal"],
                        r["deal_seed"],
                        r["offset"],
                        s,
                        a,
                        r["gold"][s],
                        int(s in r["winners"]),
                        "|".join(labels[rd["roles"][s]] for rd in r["rounds"]),
                        sum(role_won(rd, s, rules) for rd in r["rounds"]),
                        r["decisions"],
                    ]
                )
    paths.append(p)
    p = os.path.join(out, "rounds.csv")
    with open(p, "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(
            [
                "game_id",
                "deal",
                "round",
                "seat",
                "agent",
                "role",
                "won",
                "received",
                "gold_found",
                "turns",
            ]
        )
        for r in results:
            rules = result_ruleset(r)
            for rd in r["rounds"]:
                for s, a in enumerate(r["lineup"]):
                    wr.writerow(
                        [
                            r["game_id"],
                            r["deal"],
                            rd["round"],
                            s,
                            a,
                            rules.roles[rd["roles"][s]],
                            int(role_won(rd, s, rules)),
                            rd["received"][s],
                            int(rd["gold_found"]),
                            rd["turns"],
                        ]
                    )
    paths.append(p)
    p = os.path.join(out, "summary.json")
    write_json(p, {"meta": meta, **summary}, indent=2)
    paths.append(p)
    if plots:
        paths += _plots(summary, out, settings_text(meta))
    return paths


def _plots(summary: dict, out: str, subtitle: str = "") -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summary["agents"])
    ag = summary["agents"]
    x = np.arange(len(names))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for j, role in enumerate(("gold-digger", "saboteur")):
        cells = [(ag[a].get("team_rating") or {}).get(role) or {} for a in names]
        val = np.array([c.get("rating") for c in cells], dtype=float)
        lo = np.array([c.get("lo") for c in cells], dtype=float)
        hi = np.array([c.get("hi") for c in cells], dtype=float)
        axes[0].errorbar(
            x + (j - 0.5) * 0.2,
            val,
            yerr=error_bars(val, lo, hi),
            fmt="os"[j],
            capsize=5,
            label=role,
        )
    axes[0].set_xticks(x, names, rotation=20)
    axes[0].set_ylabel("team rating (Elo scale), deal-bootstrap 95%")
    axes[0].set_title("team rating by role (winning side vs losing side)")
    axes[0].legend()
    elo = np.array([ag[a]["bt_elo"] for a in names])
    ci = np.array([ag[a]["bt_elo_ci"] for a in names])
    axes[1].errorbar(
        x, elo, yerr=error_bars(elo, ci[:, 0], ci[:, 1]), fmt="o", capsize=5, color="C2"
    )
    axes[1].set_xticks(x, names, rotation=20)
    axes[1].set_ylabel("Bradley-Terry Elo on final gold, deal-bootstrap 95%")
    axes[1].set_title("secondary: free-for-all on gold")
    if subtitle:
        fig.suptitle(subtitle, fontsize=9)
    fig.tight_layout()
    p1 = os.path.join(out, "ratings.png")
    fig.savefig(p1, dpi=100)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(8, 4))
    roles = summary.get("role_names", BASE.roles)
    width = 0.76 / len(roles)
    for j, role in enumerate(roles):
        rates = np.array([ag[a]["roles"][role]["rate"] for a in names], dtype=float)
        lo = np.array([ag[a]["roles"][role]["lo"] for a in names])
        hi = np.array([ag[a]["roles"][role]["hi"] for a in names])
        rates_plot = np.nan_to_num(rates)
        ax.bar(
            x + (j - (len(roles) - 1) / 2) * width,
            rates_plot,
            width,
            label=role,
            yerr=error_bars(rates_plot, lo, hi),
            capsize=4,
        )
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylim(0, 1)
    ax.set_ylabel("round win rate (95%, clustered by deal)")
    ax.legend()
    ax.set_title("win rate by role and agent" + (f"\n{subtitle}" if subtitle else ""), fontsize=9)
    fig.tight_layout()
    p2 = os.path.join(out, "win_rates.png")
    fig.savefig(p2, dpi=100)
    plt.close(fig)
    return [p1, p2]


# --- command line ----------------------------------------------------------------------
@dataclass
class Options:
    agents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    players: int = 5
    deals: int = 100
    rounds: int = 3
    seed: int = 0
    workers: int = 0
    out: str = "runs/tournament"
    role_override: str = "none"
    bootstrap: int = 200
    plots: bool = True
    progress: bool = True
    records: bool = False
    expansion: bool = False
    split: str = "test"
    first_deal: int = 0
    backend: str = "local"
    address: str | None = None


def tournament(opts: Options) -> tuple[list[dict], dict]:
    """Run a tournament and return ``(results, summary)`` (no files written)."""
    from saboteur_agents import make_agent

    for spec in opts.agents:
        make_agent(spec)  # fail early on an unknown spec
    record_dir = ""
    if opts.records:
        record_dir = os.path.join(opts.out, "records")
        os.makedirs(record_dir, exist_ok=True)
    tasks = schedule(
        opts.agents,
        opts.players,
        opts.deals,
        opts.seed,
        opts.rounds,
        opts.role_override,
        config={"expansion": True} if opts.expansion else None,
        record_dir=record_dir,
        split=opts.split,
        first=opts.first_deal,
    )
    if opts.backend == "ray":  # workers 0: every CPU of the Ray (a whole cluster's)
        workers = opts.workers
    else:
        workers = opts.workers or os.cpu_count() or 1
    results = run(
        tasks, workers=workers, progress=opts.progress, backend=opts.backend, address=opts.address
    )
    summary = summarize(results, opts.agents, n_boot=opts.bootstrap, seed=opts.seed)
    for msg in summary["warnings"]:
        warnings.warn(msg, OneSidedWarning, stacklevel=2)
    return results, summary


def ppo_checkpoints(specs: Sequence[str], players: int, expansion: bool = False) -> list[dict]:
    """Every distinct checkpoint file the ``ppo`` specs of ``specs`` load for the game
    (``players``, ``expansion``), in the order of first use: ``{"path": resolved path,
    "bytes": size, "sha256": its first 12 hex digits, "agents": the specs that play it,
    "trained": {"players", "rounds"} of its training games (``None`` where its metadata does not
    say)}``."""
    from saboteur_agents import make_agent
    from saboteur_env.engine.config import GameConfig

    config = GameConfig(num_players=players, expansion=expansion)
    files: dict[str, dict] = {}
    for spec in dict.fromkeys(specs):
        if spec.partition(":")[0] != "ppo":
            continue
        for path in make_agent(spec).checkpoint_files(config):
            key = str(Path(path).resolve())
            if key not in files:
                data = Path(key).read_bytes()
                sha = hashlib.sha256(data).hexdigest()[:12]
                files[key] = {"path": key, "bytes": len(data), "sha256": sha, "agents": []}
                files[key]["trained"] = _trained_game(key)
            files[key]["agents"].append(spec)
    return list(files.values())


def _trained_game(path: str) -> dict:
    """``{"players", "rounds"}`` of a checkpoint's training games, from its metadata (``None``
    where it does not say or cannot be read: the tournament itself then reports the error)."""
    try:
        from saboteur_agents.network import read_checkpoint

        game = read_checkpoint(path)[1].get("game_config") or {}
    except (OSError, ValueError, TypeError, ImportError):
        game = {}
    return {"players": game.get("num_players"), "rounds": game.get("num_rounds")}


def _workers_used(opts: Options) -> int:
    """The processes (local) or the Ray tasks in flight (Ray; 0: every CPU of the Ray)."""
    if opts.backend == "ray" and not opts.workers:
        import ray

        return int(ray.cluster_resources().get("CPU", 0)) if ray.is_initialized() else 0
    return opts.workers or os.cpu_count() or 1


def main(argv=None) -> None:
    p = argparse.ArgumentParser(
        prog="saboteur tournament", description="Duplicate-deal tournament between agents."
    )
    p.add_argument(
        "--agents",
        default="random,heuristic",
        help="comma-separated agent specs (default: random,heuristic)",
    )
    add_game_size(p)
    p.add_argument(
        "--deals",
        type=at_least(1),
        default=Options.deals,
        help="deals; each is played once per agent spec (default 100)",
    )
    add_deal_range(p)
    p.add_argument("--seed", type=at_least(0), default=0, help="seeds the agents and the bootstrap")
    p.add_argument(
        "--workers",
        type=at_least(0),
        default=0,
        help="processes, or Ray tasks in flight with --backend ray (0, the default: all cores; "
        "with Ray: every CPU of the Ray)",
    )
    add_backend(p)
    p.add_argument(
        "--out",
        default=None,
        help="output folder (default runs/tournament; with --expansion runs/tournament-expansion, "
        "so the two games' results do not share one)",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the results of an earlier tournament in --out (otherwise refused)",
    )
    p.add_argument(
        "--role-override",
        choices=ROLE_OVERRIDES,
        default="none",
        help="all-digger: every player is a gold-digger (sanity check)",
    )
    p.add_argument("--bootstrap", type=at_least(1), default=200, help="bootstrap resamples")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument(
        "--records",
        action="store_true",
        help="write every game's record to OUT/records/ (saboteur_env.record; "
        "replay with saboteur replay)",
    )
    p.add_argument(
        "--expansion",
        action="store_true",
        help="Saboteur 2 (RULES 6): win rates per Saboteur 2 role",
    )
    a = p.parse_args(argv)
    # every check before the progress bar is drawn (usage errors, exit 2)
    specs = [s.strip() for s in a.agents.split(",") if s.strip()]
    if not specs:
        p.error("--agents: at least one agent spec is needed")
    check_agents(p, specs)
    if len(set(specs)) > 1:  # one agent alone may fill every seat (the note below)
        check_unique(p, specs)
    if a.records and a.role_override != "none":
        p.error(
            "--records with --role-override: a game whose roles were overridden is not the "
            "deal of its seed, so its record would not replay; drop one of the two"
        )
    if a.bootstrap < 100:
        print(
            f"saboteur tournament: note: --bootstrap {a.bootstrap}: intervals from fewer than "
            "100 resamples are rough (they may even miss their estimate); the default is 200",
            file=sys.stderr,
        )
    if len(set(specs)) == 1:  # every seat the same agent: its ratings are +0 by construction
        print(
            f"saboteur tournament: note: every seat plays {specs[0]!r}; its ratings say nothing "
            "(give two or more agents to compare them); the games' statistics still do",
            file=sys.stderr,
        )
    check_config(p, num_players=a.players, num_rounds=a.rounds, expansion=a.expansion)
    check_agents_fit(p, specs, a.players, a.expansion)
    if a.out is None:
        a.out = DEFAULT_OUT[ruleset_of(a.expansion).name]
    check_output_dir(p, a.out, "--out")
    check_deal_range(p, a)
    check_backend_args(p, a)
    earlier = existing_outputs(a.out)
    if earlier and not a.overwrite:
        p.error(
            f"--out {a.out}: holds the results of an earlier tournament ({', '.join(earlier)}); "
            "pass --overwrite to replace them or choose another --out"
        )
    if "records/" in earlier:  # --overwrite: no record of the earlier run stays behind
        records = os.path.join(a.out, "records")
        for name in os.listdir(records):
            if name.endswith(".jsonl"):
                os.remove(os.path.join(records, name))
    opts = Options(
        agents=specs,
        players=a.players,
        deals=a.deals,
        rounds=a.rounds,
        seed=a.seed,
        workers=a.workers,
        out=a.out,
        role_override=a.role_override,
        bootstrap=a.bootstrap,
        plots=not a.no_plots,
        progress=not a.no_progress,
        records=a.records,
        expansion=a.expansion,
        split=a.split,
        first_deal=a.first_deal,
        backend=a.backend,
        address=a.address,
    )
    checkpoints = ppo_checkpoints(specs, a.players, a.expansion)
    for c in checkpoints:  # which file each ppo spec plays, before the results it makes
        t = c["trained"]
        other = (t["players"] not in (None, a.players)) or (t["rounds"] not in (None, a.rounds))
        print(
            f"ppo checkpoint {c['path']} ({c['bytes']:,} bytes, sha256 {c['sha256']}): "
            + ", ".join(c["agents"])
            + (
                f" (note: trained on {t['players']}-player {t['rounds']}-round games, played "
                f"here in {a.players}-player {a.rounds}-round games)"
                if other
                else ""
            ),
            flush=True,
        )
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", OneSidedWarning)
        results, summary = tournament(opts)
    for w in caught:  # one line each, not Python's warning with its source line
        if issubclass(w.category, OneSidedWarning):
            print(f"saboteur tournament: warning: {w.message}", file=sys.stderr)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    elapsed = time.perf_counter() - t0
    for name in earlier:  # --overwrite: e.g. no earlier plot stays beside --no-plots results
        if name in OUTPUT_FILES:
            os.remove(os.path.join(opts.out, name))
    meta = {
        **asdict(opts),
        "elapsed_s": elapsed,
        "workers_used": _workers_used(opts),
        **({"ppo_checkpoints": checkpoints} if checkpoints else {}),
    }
    paths = write_outputs(results, summary, opts.out, meta, plots=opts.plots)
    print(settings_text(meta))
    print(format_summary(summary, with_warnings=False))  # its warnings went to stderr above
    if opts.records:
        paths.append(os.path.join(opts.out, "records", f"game_*.jsonl ({len(results)} records)"))
    print(f"\n{len(results)} games in {elapsed:.1f} s; wrote " + ", ".join(paths))


if __name__ == "__main__":
    main()
