"""Tournaments over duplicate deals (DESIGN 6, cases T1, T3, T5, T7, T9).

``saboteur tournament --agents random,heuristic --players 5 --deals 100``

Schedule (duplicate deals).  Deal ``d`` has the seed ``deal_seed(seed, d)``; the environment is
reset with it (``env.reset(seed=...)``), so the role cards, goal cards and every shuffle of every
round are fixed by the deal alone.  Each deal is played ``k`` times (``k`` = number of agent
specs), game ``o`` seating ``specs[(seat + o) % k]`` in each seat: over the ``k`` games of a deal
every agent sits in every seat exactly once, and so meets every role assignment of that deal.
Agents get their own seeds (``agent_seed(seed, d, o, seat)``), so how much randomness an agent
consumes never changes the deal.  Results are sorted by game id, so they are identical for any
number of worker processes.

Reported: OpenSkill Plackett-Luce ratings (online, game order = game id; order-dependent) and
a batch Bradley-Terry fit with bootstrap 95% intervals over whole games
(:mod:`experiments.ratings`); per-agent win rates by role with Wilson 95% intervals; mean gold;
per-seat win rates, gold and role frequencies (a seat-bias check); the side win rates
with a warning when one side wins more than 99% of rounds; the full pairwise win
matrix and any non-transitive cycle.

Outputs in ``--out`` (default ``runs/tournament``): ``games.csv`` (one row per game and seat),
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
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from experiments.cli_args import at_least, check_agents, check_config, check_output_dir
from experiments.ratings import (
    OnlineRatings,
    bootstrap_bt,
    bradley_terry,
    cycles,
    pair_results,
    wilson,
    win_matrix,
)
from saboteur_env.engine.ruleset import BASE, RULESETS, SABOTEUR_2, Ruleset

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


def deal_seed(seed: int, deal: int) -> int:
    """The environment seed of deal ``deal`` of a tournament seeded ``seed``."""
    return int(np.random.SeedSequence([seed, deal, 0x5AB]).generate_state(1)[0])


def agent_seed(seed: int, deal: int, offset: int, seat: int) -> int:
    """The seed of the agent in ``seat`` of game ``offset`` of deal ``deal``."""
    return int(np.random.SeedSequence([seed, deal, offset, seat, 0xA6E]).generate_state(1)[0])


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
) -> list[Task]:
    """Every game of a tournament, in game-id order (see the module docstring)."""
    if not specs:
        raise ValueError("at least one agent spec is needed")
    if role_override not in ROLE_OVERRIDES:
        raise ValueError(f"role_override={role_override!r}; valid: {ROLE_OVERRIDES}")
    k = len(specs)
    tasks = []
    cfg = tuple(sorted((config or {}).items()))
    for d in range(deals):
        ds = deal_seed(seed, d)
        for o in range(k):
            tasks.append(
                Task(
                    len(tasks),
                    d,
                    ds,
                    o,
                    lineup(specs, players, o),
                    tuple(agent_seed(seed, d, o, s) for s in range(players)),
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
    from agents import make_agent

    n = len(task.lineup)
    env = saboteur_env.raw_env(num_players=n, num_rounds=task.num_rounds, **dict(task.config))
    env.reset(seed=task.deal_seed)
    game = env.game
    agents = [make_agent(spec) for spec in task.lineup]
    for seat, agent in enumerate(agents):
        agent.reset(seat, env.config, seed=task.agent_seeds[seat])
    override = task.role_override != "none"
    seen_round = -1
    decisions = 0
    for name in env.agent_iter():
        if override and game.round != seen_round and not game.game_over:
            _override_roles(game, task.role_override)
            seen_round = game.round
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[name]
        env.step(agents[seat].act(obs["observation"], obs["action_mask"], info))
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
    }


def run(tasks: Sequence[Task], workers: int = 1, progress: bool = True) -> list[dict]:
    """Play every task, in parallel when ``workers > 1``; results sorted by game id."""
    from tqdm import tqdm

    bar = tqdm(total=len(tasks), desc="games", unit="game", disable=not progress, file=sys.stderr)
    results = []
    if workers <= 1:
        for t in tasks:
            results.append(play(t))
            bar.update()
    else:
        import multiprocessing as mp

        methods = mp.get_all_start_methods()
        ctx = mp.get_context("fork" if "fork" in methods else "spawn")
        chunk = max(1, min(8, len(tasks) // (workers * 8)))
        with ctx.Pool(workers) as pool:
            for r in pool.imap_unordered(play, tasks, chunksize=chunk):
                results.append(r)
                bar.update()
    bar.close()
    results.sort(key=lambda r: r["game_id"])
    return results


# --- statistics ------------------------------------------------------------------------
def _rate(k, n) -> dict:
    lo, hi = wilson(k, n)
    return {"wins": int(k), "n": int(n), "rate": (k / n) if n else float("nan"), "lo": lo, "hi": hi}


def ruleset_of(result: dict) -> Ruleset:
    """The ruleset a game result of :func:`play` was played under (default: the base game)."""
    return RULESETS[result.get("ruleset", BASE.name)]


def role_won(rd: dict, seat: int, rules: Ruleset) -> bool:
    """Did ``seat`` win round ``rd``: in the winners set; Saboteur 2 geologists: paid > 0
    (RULES 6.9, module docstring)."""
    if seat in rd["winners"]:
        return True
    return rd["roles"][seat] in rules.paid_roles and rd["paid"][seat] > 0


def role_labels(rules: Ruleset) -> list[str]:
    """The role names of ``games.csv``: initials when they tell the roles apart (the base
    game's ``g`` / ``s``), else the full names (Saboteur 2)."""
    initials = [r[0] for r in rules.roles]
    return initials if len(set(initials)) == len(initials) else list(rules.roles)


def summarize(
    results: Sequence[dict], specs: Sequence[str], n_boot: int = 200, seed: int = 0
) -> dict:
    """All statistics of a tournament (see the module docstring) as a JSON-ready dict."""
    agents = list(dict.fromkeys(specs))
    k = len(agents)
    n = len(results[0]["lineup"]) if results else 0
    rules = ruleset_of(results[0]) if results else BASE
    role_names = rules.roles
    sab = rules.saboteur
    nr = rules.n_roles
    # per role win rates (rounds), mean gold (games), per-seat statistics
    role_w = {a: np.zeros((nr, 2)) for a in agents}  # [role] -> (wins, n)
    gold = {a: [] for a in agents}
    game_w = {a: [0.0, 0] for a in agents}
    seat_w = np.zeros(n)
    seat_gold = np.zeros(n)
    seat_sab = np.zeros(n)
    seat_games = np.zeros(n)
    seat_rounds = np.zeros(n)
    seat_agent = np.zeros((n, k))
    side = np.zeros(2)
    online = OnlineRatings(agents)
    for r in results:
        lu = r["lineup"]
        for s, a in enumerate(lu):
            gold[a].append(r["gold"][s])
            won = s in r["winners"]
            game_w[a][0] += won
            game_w[a][1] += 1
            seat_w[s] += won
            seat_gold[s] += r["gold"][s]
            seat_games[s] += 1
            seat_agent[s, agents.index(a)] += 1
        for rd in r["rounds"]:
            side[0 if rd["gold_found"] else 1] += 1
            for s, a in enumerate(lu):
                role = rd["roles"][s]
                role_w[a][role, 0] += role_won(rd, s, rules)
                role_w[a][role, 1] += 1
                seat_sab[s] += role == sab
                seat_rounds[s] += 1
        online.update(lu, r["gold"])
    per_game = pair_results([r["lineup"] for r in results], [r["gold"] for r in results], agents)
    wins = per_game.sum(axis=0)
    bt = bradley_terry(wins)
    lo, hi = bootstrap_bt(per_game, n_boot=n_boot, seed=seed)
    P = win_matrix(wins)
    rounds_total = side.sum()
    warn = []
    if rounds_total:
        for i, name in enumerate(("gold-diggers", "saboteurs")):
            if side[i] / rounds_total > 0.99:
                warn.append(
                    f"the {name} won {side[i] / rounds_total:.1%} of {int(rounds_total)}"
                    " rounds (> 99%): check the rules engine and the agents"
                )
    online_t = online.table()
    agents_out = {}
    for i, a in enumerate(agents):
        g = np.array(gold[a], dtype=float)
        sem = g.std(ddof=1) / math.sqrt(len(g)) if len(g) > 1 else float("nan")
        agents_out[a] = {
            "games": len(g),
            "mean_gold": float(g.mean()) if len(g) else float("nan"),
            "mean_gold_ci": [float(g.mean() - 1.96 * sem), float(g.mean() + 1.96 * sem)]
            if len(g) > 1
            else [float("nan")] * 2,
            "game_win": _rate(*game_w[a]),
            "roles": {
                role_names[role]: _rate(role_w[a][role, 0], role_w[a][role, 1])
                for role in range(nr)
            },
            "openskill": online_t[a],
            "bt_elo": float(bt[i]),
            "bt_elo_ci": [float(lo[i]), float(hi[i])],
        }
    seats = [
        {
            "seat": s,
            "games": int(seat_games[s]),
            "win": _rate(seat_w[s], seat_games[s]),
            "mean_gold": float(seat_gold[s] / seat_games[s]) if seat_games[s] else None,
            "saboteur_share": float(seat_sab[s] / seat_rounds[s]) if seat_rounds[s] else None,
            "agent_games": {a: int(seat_agent[s, j]) for j, a in enumerate(agents)},
        }
        for s in range(n)
    ]
    return {
        "expansion": rules.expansion,
        "ruleset": rules.name,
        "role_names": list(role_names),
        "agents": agents_out,
        "seats": seats,
        "sides": {
            "gold-digger": _rate(side[0], rounds_total),
            "saboteur": _rate(side[1], rounds_total),
        },
        "pairwise": {
            "agents": agents,
            "p_win": [[None if np.isnan(x) else float(x) for x in row] for row in P],
        },
        "cycles": [list(c) for c in cycles(P, agents)],
        "games": len(results),
        "rounds": int(rounds_total),
        "warnings": warn,
        "rating_notes": (
            "openskill: Plackett-Luce, online in game-id order (order-dependent); "
            "bt_elo: batch Bradley-Terry MLE on pairwise gold comparisons, "
            "order-independent, bootstrap 95% over whole games"
        ),
    }


def _digger_rate(roles: dict, rules: Ruleset) -> dict:
    """The rate of the ruleset's digger roles, pooled (Saboteur 2: both digger teams)."""
    names = [rules.roles[r] for r in rules.diggers]
    if len(names) == 1:
        return roles[names[0]]
    return _rate(sum(roles[k]["wins"] for k in names), sum(roles[k]["n"] for k in names))


def _summary_ruleset(summary: dict) -> Ruleset:
    """The ruleset of a :func:`summarize` result."""
    return RULESETS[summary.get("ruleset", BASE.name)]


def format_summary(summary: dict) -> str:
    """The terminal table."""
    lines = []
    rules = _summary_ruleset(summary)
    w = max([len(a) for a in summary["agents"]] + [5])
    lines.append(
        f"{summary['games']} games, {summary['rounds']} rounds"
        + ("" if rules is BASE else f" ({rules.title})")
    )
    lines.append(
        f"{'agent':<{w}}  {'BT elo [95%]':>22}  {'OS mu±sd':>12}  {'gold':>5}  "
        f"{'game win':>8}  {'digger win [95%]':>20}  {'saboteur win [95%]':>20}"
    )
    for a, s in summary["agents"].items():
        d, b = _digger_rate(s["roles"], rules), s["roles"][rules.roles[rules.saboteur]]
        lo, hi = s["bt_elo_ci"]
        lines.append(
            f"{a:<{w}}  {s['bt_elo']:>7.0f} [{lo:>5.0f},{hi:>5.0f}]     "
            f"{s['openskill']['mu']:>5.1f}±{s['openskill']['sigma']:<4.1f}  "
            f"{s['mean_gold']:>5.2f}  {s['game_win']['rate']:>8.1%}  "
            f"{d['rate']:>6.1%} [{d['lo']:.1%},{d['hi']:.1%}]  "
            f"{b['rate']:>6.1%} [{b['lo']:.1%},{b['hi']:.1%}]"
        )
    sd = summary["sides"]
    lines.append(
        f"side win rates: gold-diggers {sd['gold-digger']['rate']:.1%} "
        f"[{sd['gold-digger']['lo']:.1%},{sd['gold-digger']['hi']:.1%}], "
        f"saboteurs {sd['saboteur']['rate']:.1%}"
    )
    lines.append("seat  win rate [95%]        mean gold  saboteur share")
    for s in summary["seats"]:
        lines.append(
            f"{s['seat']:>4}  {s['win']['rate']:>6.1%} [{s['win']['lo']:.1%},"
            f"{s['win']['hi']:.1%}]   {s['mean_gold']:>9.2f}  "
            f"{s['saboteur_share']:>14.1%}"
        )
    pw = summary["pairwise"]
    if len(pw["agents"]) > 1:
        lines.append("pairwise P(row has more gold than column), ties 1/2:")
        lines.append(" " * (w + 2) + "".join(f"{a[:10]:>11}" for a in pw["agents"]))
        for a, row in zip(pw["agents"], pw["p_win"]):
            lines.append(
                f"{a:<{w}}  " + "".join(f"{'-':>11}" if x is None else f"{x:>11.3f}" for x in row)
            )
    if summary["cycles"]:
        lines.append(
            "NON-TRANSITIVE cycles (a beats b beats c beats a): "
            + "; ".join(" > ".join(c) for c in summary["cycles"])
        )
    roles = list(rules.roles)
    if len(roles) > 2:  # more roles than the digger and saboteur columns above
        note = "".join(f" ({rules.roles[r]}: paid > 0)" for r in rules.paid_roles)
        lines.append(f"{rules.title} round win rate by role [Wilson 95%]{note}:")
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
    for msg in summary["warnings"]:
        lines.append("WARNING: " + msg)
    return "\n".join(lines)


# --- outputs ---------------------------------------------------------------------------
#: what a tournament writes in ``--out`` (``records/``: with ``--records``)
OUTPUT_FILES = ("games.csv", "rounds.csv", "summary.json", "ratings.png", "win_rates.png")


def existing_outputs(out: str) -> list[str]:
    """The outputs of an earlier tournament in folder ``out`` (:data:`OUTPUT_FILES`, and
    ``records/`` when it holds records)."""
    found = [f for f in OUTPUT_FILES if os.path.exists(os.path.join(out, f))]
    records = os.path.join(out, "records")
    if os.path.isdir(records) and any(f.endswith(".jsonl") for f in os.listdir(records)):
        found.append("records/")
    return found


def settings_text(meta: dict) -> str:
    """One line naming the settings of a tournament (the plots' subtitle)."""
    text = (
        f"agents {', '.join(meta.get('agents', []))}; {meta.get('players')} players, "
        f"{meta.get('rounds')} rounds, {meta.get('deals')} deals, seed {meta.get('seed')}"
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
            rules = ruleset_of(r)
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
            rules = ruleset_of(r)
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
    with open(p, "w") as f:
        json.dump({"meta": meta, **summary}, f, indent=2, default=float)
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
    elo = np.array([ag[a]["bt_elo"] for a in names])
    ci = np.array([ag[a]["bt_elo_ci"] for a in names])
    axes[0].errorbar(x, elo, yerr=[elo - ci[:, 0], ci[:, 1] - elo], fmt="o", capsize=5)
    axes[0].set_xticks(x, names, rotation=20)
    axes[0].set_ylabel("Bradley-Terry Elo (batch), 95% bootstrap")
    axes[0].set_title("batch rating")
    mu = np.array([ag[a]["openskill"]["mu"] for a in names])
    sd = np.array([ag[a]["openskill"]["sigma"] for a in names])
    axes[1].errorbar(x, mu, yerr=2 * sd, fmt="s", capsize=5, color="C1")
    axes[1].set_xticks(x, names, rotation=20)
    axes[1].set_ylabel("OpenSkill mu ± 2 sigma (online)")
    axes[1].set_title("OpenSkill Plackett-Luce")
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
            yerr=[np.maximum(rates_plot - lo, 0), np.maximum(hi - rates_plot, 0)],
            capsize=4,
        )
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylim(0, 1)
    ax.set_ylabel("round win rate (Wilson 95%)")
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


def tournament(opts: Options) -> tuple[list[dict], dict]:
    """Run a tournament and return ``(results, summary)`` (no files written)."""
    from agents import make_agent

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
    )
    workers = opts.workers or os.cpu_count() or 1
    results = run(tasks, workers=workers, progress=opts.progress)
    summary = summarize(results, opts.agents, n_boot=opts.bootstrap, seed=opts.seed)
    for msg in summary["warnings"]:
        warnings.warn(msg, OneSidedWarning, stacklevel=2)
    return results, summary


def main(argv=None) -> None:
    p = argparse.ArgumentParser(
        prog="saboteur tournament", description="Duplicate-deal tournament between agents."
    )
    p.add_argument(
        "--agents",
        default="random,heuristic",
        help="comma-separated agent specs (default: random,heuristic)",
    )
    p.add_argument("--players", type=int, default=5)
    p.add_argument(
        "--deals",
        type=at_least(1),
        default=Options.deals,
        help="deals; each is played once per agent spec (default 100)",
    )
    p.add_argument("--rounds", type=at_least(1), default=3, help="rounds per game (default 3)")
    p.add_argument("--seed", type=at_least(0), default=0)
    p.add_argument("--workers", type=at_least(0), default=0, help="processes (default: all cores)")
    p.add_argument("--out", default="runs/tournament", help="output folder")
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
        help="Saboteur 2 (RULES 6; 2-12 players): win rates per Saboteur 2 role",
    )
    a = p.parse_args(argv)
    # every check before the progress bar is drawn (usage errors, exit 2)
    specs = [s.strip() for s in a.agents.split(",") if s.strip()]
    if not specs:
        p.error("--agents: at least one agent spec is needed")
    check_agents(p, specs)
    check_config(p, num_players=a.players, num_rounds=a.rounds, expansion=a.expansion)
    check_output_dir(p, a.out, "--out")
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
    )
    t0 = time.perf_counter()
    results, summary = tournament(opts)
    elapsed = time.perf_counter() - t0
    for name in earlier:  # --overwrite: e.g. no earlier plot stays beside --no-plots results
        if name in OUTPUT_FILES:
            os.remove(os.path.join(opts.out, name))
    meta = {
        **asdict(opts),
        "elapsed_s": elapsed,
        "workers_used": opts.workers or os.cpu_count() or 1,
    }
    paths = write_outputs(results, summary, opts.out, meta, plots=opts.plots)
    print(format_summary(summary))
    print(f"\n{len(results)} games in {elapsed:.1f} s; wrote " + ", ".join(paths))


if __name__ == "__main__":
    main()
