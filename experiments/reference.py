"""The project's reference table: saboteur win rates, round length, branching.

``python -m saboteur_experiments.reference --out runs/reference``

Three blocks, all one-round games (``num_rounds=1``) on the first deals of the test split
(:mod:`saboteur_experiments.evaluation.splits`; the same deals for every agent at a given N):

1. Base game, N = 3..10, all-random and all-heuristic play: rate of rounds won by the
   saboteurs (gold not found) with a 95% interval, mean round length (decisions per
   round) and mean legal actions per decision (``obs["action_mask"].sum()``, over the first
   ``--legal-games`` deals of the cell).  Balance: the same rates by the number of saboteurs
   in play (0, 1, 2, ...; RULES 2.2 leaves some role cards face down) and given at least one,
   every interval deal-clustered (:mod:`saboteur_experiments.evaluation.stats`).  An agent that
   cannot play a cell (a checkpoint trained for another player count) is listed as skipped.
2. Saboteur 2 (``expansion=True``), N = 2..12, the same columns; "saboteur win" = a round whose
   winners set includes a seat with the saboteur role (gold not found, or the both-doors rule
   giving the round to them; trapped saboteurs are not winners, and a round without a
   saboteur in play counts as not won by them, RULES 6.9).  "gold not found" is reported
   beside it.
3. Heuristic against random, base game, N = 3..10: the ``role-probe`` protocol
   (:func:`saboteur_experiments.evaluation.protocols.role_probe`) both ways - the heuristic alone in
   one seat among random players, and random alone among heuristic players - per role, with
   the paired difference to the reference agent in the same seat (deal-clustered 95%).

The games are played by :func:`saboteur_experiments.tournament.run` (worker processes, results
sorted
by game id, so the numbers do not depend on ``--workers``).  Outputs in ``--out``:
``reference.md`` (the Markdown tables, with the seed and the exact command at the top) and
``reference.json`` (every cell, rewritten after each cell so an interrupted run keeps what it
finished).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Sequence

import numpy as np

from saboteur_env.engine.ruleset import BASE, SABOTEUR_2, Ruleset
from saboteur_experiments.cli_args import add_backend, at_least, check_backend_args
from saboteur_experiments.evaluation.outcomes import saboteurs_in_play, saboteurs_won
from saboteur_experiments.evaluation.stats import Estimate, rate_dict
from saboteur_experiments.jsonio import write_json
from saboteur_experiments.tournament import Task, run, schedule


def _players(text: str) -> list[int]:
    """``"3-10"`` -> [3, ..., 10]; ``"3,5"`` -> [3, 5]; ``""`` -> []."""
    out: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "-" in part:
            a, b = part.split("-")
            out += list(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


# --- legal actions per decision (a small loop of its own: play() does not see the masks) -----
def legal_counts(task: Task) -> tuple[int, int]:
    """Replay ``task`` (same deal, same agent seeds as :func:`saboteur_experiments.tournament.play`)
    and return ``(sum of legal actions over decisions, decisions)``."""
    import saboteur_env
    from saboteur_agents import make_agent
    from saboteur_agents.base import attach_game

    n = len(task.lineup)
    env = saboteur_env.raw_env(num_players=n, num_rounds=task.num_rounds, **dict(task.config))
    env.reset(seed=task.deal_seed)
    agents = [make_agent(spec) for spec in task.lineup]
    for seat, agent in enumerate(agents):
        agent.reset(seat, env.config, seed=task.agent_seeds[seat])
    attach_game(agents, env.game)
    total = decisions = 0
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        total += int(obs["action_mask"].sum())
        decisions += 1
        env.step(
            agents[env.agent_name_mapping[name]].act(obs["observation"], obs["action_mask"], info)
        )
    return total, decisions


def _map(
    fn, items: Sequence, workers: int, backend: str = "local", address: str | None = None
) -> list:
    """``[fn(x) for x in items]`` on ``backend`` (:mod:`saboteur_experiments.backends`)."""
    from saboteur_experiments.backends import map_tasks

    return map_tasks(fn, items, workers, backend, address)


# --- cells -----------------------------------------------------------------------------------
def self_play_cell(
    spec: str,
    players: int,
    rounds: int,
    legal_games: int,
    seed: int,
    rules: Ruleset,
    workers: int,
    backend: str = "local",
    address: str | None = None,
) -> dict:
    """All seats ``spec``; ``rounds`` one-round games under ``rules``."""
    t0 = time.perf_counter()
    tasks = schedule(
        [spec],
        players,
        rounds,
        seed=seed,
        num_rounds=1,
        config=None if rules is BASE else {"expansion": rules.expansion},
    )
    results = run(tasks, workers=workers, progress=False, backend=backend, address=address)
    sab_win, not_found, nsab, deal, decisions = [], [], [], [], []
    for r in results:
        rd = r["rounds"][0]
        sab_win.append(float(saboteurs_won(rd, rules)))
        not_found.append(float(not rd["gold_found"]))
        nsab.append(saboteurs_in_play(rd, rules))
        deal.append(r["deal"])
        decisions.append(r["decisions"])
    sw, nf, ns, dl = (np.array(x) for x in (sab_win, not_found, nsab, deal))
    some = ns > 0
    lt = _map(legal_counts, tasks[:legal_games], workers, backend, address)
    legal_sum, legal_dec = sum(a for a, _ in lt), sum(b for _, b in lt)
    d = np.array(decisions, dtype=float)
    return {
        "agent": spec,
        "players": players,
        "expansion": rules.expansion,
        "rounds": len(results),
        "saboteur_win": rate_dict(sw, dl),
        "gold_not_found": rate_dict(nf, dl),
        "saboteur_win_given_saboteur": rate_dict(sw[some], dl[some]),
        "by_saboteurs": {
            str(k): {
                "rounds": int((ns == k).sum()),
                "saboteur_win": rate_dict(sw[ns == k], dl[ns == k]),
                "gold_not_found": rate_dict(nf[ns == k], dl[ns == k]),
            }
            for k in sorted(set(ns.tolist()))
        },
        "round_length": float(d.mean()),
        "round_length_sd": float(d.std(ddof=1)) if len(d) > 1 else float("nan"),
        "legal_per_decision": legal_sum / legal_dec if legal_dec else float("nan"),
        "legal_games": len(lt),
        "legal_decisions": legal_dec,
        "elapsed_s": time.perf_counter() - t0,
    }


def probe_cell(
    players: int,
    deals: int,
    seed: int,
    workers: int,
    backend: str = "local",
    address: str | None = None,
) -> dict:
    """Heuristic and random, base game, ``role-probe`` both ways (module docstring)."""
    from saboteur_experiments.evaluation.protocols import role_probe

    t0 = time.perf_counter()
    kw = {"players": players, "deals": deals, "seed": seed, "workers": workers}
    kw |= {"backend": backend, "address": address}
    h_in_r = role_probe("heuristic", "random", **kw)
    r_in_h = role_probe("random", "heuristic", **kw)
    return {
        "players": players,
        "deals": deals,
        "games": h_in_r["games"] + r_in_h["games"],
        "heuristic_among_random": h_in_r["roles"],
        "random_among_heuristic": r_in_h["roles"],
        "elapsed_s": time.perf_counter() - t0,
    }


# --- tables ----------------------------------------------------------------------------------
def _ci(r: dict) -> str:
    return f"{r['rate']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]"


def self_play_table(cells: Sequence[dict]) -> str:
    head = ["N", "agent", "rounds", "saboteur win [95%]", "gold not found [95%]"]
    head += ["decisions/round", "legal actions/decision (games)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in cells:
        row = [
            str(c["players"]),
            c["agent"],
            str(c["rounds"]),
            _ci(c["saboteur_win"]),
            _ci(c["gold_not_found"]),
        ]
        row += [f"{c['round_length']:.1f}", f"{c['legal_per_decision']:.1f} ({c['legal_games']})"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _est(e: dict, signed: bool = False) -> str:
    return Estimate(**e).pct(signed)


def probe_table(cells: Sequence[dict]) -> str:
    head = ["N", "role", "deals", "heuristic among random", "random there", "difference (points)"]
    head += ["random among heuristic", "heuristic there", "difference (points)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in cells:
        for role in BASE.roles:
            h, r = c["heuristic_among_random"][role], c["random_among_heuristic"][role]
            row = [str(c["players"]), role, str(h["deals"])]
            row += [_est(h["candidate"]), _est(h["reference"]), _est(h["diff"], True)]
            row += [_est(r["candidate"]), _est(r["reference"]), _est(r["diff"], True)]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def balance_table(cells: Sequence[dict]) -> str:
    """Saboteur win rate by saboteurs in play, and given at least one (deal-clustered 95%)."""
    ks = sorted({int(k) for c in cells for k in c["by_saboteurs"]})
    head = ["N", "agent", "rounds", "saboteur win, given >= 1 saboteur [95%]"]
    head += [f"{k} saboteur{'s' if k != 1 else ''}: rounds, saboteur win" for k in ks]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in cells:
        row = [str(c["players"]), c["agent"], str(c["rounds"])]
        row.append(_ci(c["saboteur_win_given_saboteur"]))
        for k in ks:
            b = c["by_saboteurs"].get(str(k))
            row.append("-" if b is None else f"{b['rounds']}, {_ci(b['saboteur_win'])}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def markdown(report: dict) -> str:
    m = report["meta"]
    parts = [
        "# Reference table",
        "",
        f"Command: `{m['command']}`  ",
        f"Deals: the first deals of the test split (deal d of every cell has the seed d, "
        "`saboteur_experiments.evaluation.splits`); agent seed "
        f"`agent_seed({m['seed']}, deal_seed, offset, seat)`; one-round games; "
        f"workers: {m['workers']}; run time: {m.get('elapsed_s', float('nan')):.0f} s",
        "",
        "Saboteur win = rounds won by the saboteurs; 95% intervals clustered by deal "
        "(here one round per deal: the Wilson interval). decisions/round: "
        "mean over all rounds of the cell; legal actions/decision: mean of "
        "`obs['action_mask'].sum()` over every decision of the first (games) deals of the cell. "
        "Saboteur win counts a round only when a saboteur is in play and wins it, so it can "
        'sit below "gold not found" (base game, 3-4 players: possibly no saboteur dealt).',
    ]
    if report["base"]:
        n = sorted({c["rounds"] for c in report["base"]})
        parts += [
            "",
            f"## Base game (rounds per cell: {', '.join(map(str, n))})",
            "",
            self_play_table(report["base"]),
            "",
            "Balance by saboteurs in play:",
            "",
            balance_table(report["base"]),
        ]
    if report["expansion"]:
        n = sorted({c["rounds"] for c in report["expansion"]})
        parts += [
            "",
            f"## Saboteur 2 (rounds per cell: {', '.join(map(str, n))})",
            "",
            "Saboteur win: the round's winners include a saboteur (gold not found, or "
            "the both-doors rule without a Boss; trapped saboteurs and rounds without a "
            "saboteur in play do not count).",
            "",
            self_play_table(report["expansion"]),
            "",
            "Balance by saboteurs in play:",
            "",
            balance_table(report["expansion"]),
        ]
    if report["probe"]:
        parts += [
            "",
            "## Heuristic vs random, base game, role-probe",
            "",
            "One agent alone in one seat holding the role, every other seat the other agent; "
            "each deal also played with the other agent in that seat; win rates of that seat "
            "and the paired difference (Newcombe's paired interval), 95%.",
            "",
            probe_table(report["probe"]),
        ]
    return "\n".join(parts) + "\n"


# --- command line ----------------------------------------------------------------------------
def main(argv=None) -> dict:
    p = argparse.ArgumentParser(
        prog="python -m saboteur_experiments.reference",
        description="The reference table: saboteur win rates, round length, branching.",
    )
    p.add_argument("--out", default="runs/reference")
    p.add_argument("--seed", type=at_least(0), default=0)
    p.add_argument(
        "--workers",
        type=at_least(1),
        default=None,
        help="processes, or Ray tasks in flight with --backend ray (default 2; with Ray: every "
        "CPU of the Ray)",
    )
    p.add_argument(
        "--agents",
        default="random,heuristic",
        help="self-play agents (e.g. add ppo:agents/checkpoints/ppo_base_5p.pt: cells it "
        "cannot play are skipped)",
    )
    p.add_argument("--base-players", default="3-10")
    p.add_argument("--x-players", default="2-12", help="Saboteur 2 player counts")
    p.add_argument("--probe-players", default="3-10", help="player counts of block 3")
    p.add_argument("--rounds-random", type=at_least(1), default=2000, help="rounds per random cell")
    p.add_argument(
        "--rounds-heuristic",
        type=at_least(1),
        default=2000,
        help="rounds per heuristic cell (and any other agent)",
    )
    p.add_argument("--probe-deals", type=at_least(1), default=300, help="deals per role in block 3")
    p.add_argument("--legal-games", type=at_least(1), default=100)
    add_backend(p)
    a = p.parse_args(argv)
    check_backend_args(p, a)
    if a.workers is None:
        a.workers = 0 if a.backend == "ray" else 2
    argv_list = sys.argv[1:] if argv is None else list(argv)
    command = "python -m saboteur_experiments.reference " + " ".join(
        shlex.quote(x) for x in argv_list
    )
    os.makedirs(a.out, exist_ok=True)
    specs = [s.strip() for s in a.agents.split(",") if s.strip()]
    report = {
        "meta": {"command": command.strip(), "seed": a.seed, "workers": a.workers, "args": vars(a)},
        "base": [],
        "expansion": [],
        "probe": [],
    }
    jpath = os.path.join(a.out, "reference.json")

    def save():
        write_json(jpath, report, indent=2)

    t0 = time.perf_counter()
    for key, players, rules in (
        ("base", _players(a.base_players), BASE),
        ("probe", _players(a.probe_players), BASE),
        ("expansion", _players(a.x_players), SABOTEUR_2),
    ):
        for n in players:
            if key == "probe":
                c = probe_cell(n, a.probe_deals, a.seed, a.workers, a.backend, a.address)
                report["probe"].append(c)
                save()
                print(
                    f"[{time.perf_counter() - t0:6.0f}s] probe N={n}: {c['games']} games, "
                    f"{c['elapsed_s']:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
                continue
            for spec in specs:
                rounds = a.rounds_random if spec == "random" else a.rounds_heuristic
                try:
                    c = self_play_cell(
                        spec,
                        n,
                        rounds,
                        a.legal_games,
                        a.seed,
                        rules,
                        a.workers,
                        a.backend,
                        a.address,
                    )
                except ValueError as err:  # a checkpoint whose spaces do not fit the game
                    network = sys.modules.get("saboteur_agents.network")
                    if network is None or not isinstance(err, network.CheckpointMismatchError):
                        raise
                    report.setdefault("skipped", []).append(
                        {"key": key, "players": n, "agent": spec, "why": str(err)[:200]}
                    )
                    print(f"skip {key} N={n} {spec}: {str(err)[:120]}", file=sys.stderr)
                    continue
                report[key].append(c)
                save()
                print(
                    f"[{time.perf_counter() - t0:6.0f}s] {key} N={n} {spec}: "
                    f"{c['rounds']} rounds, saboteur win {_ci(c['saboteur_win'])}, "
                    f"{c['elapsed_s']:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    report["meta"]["elapsed_s"] = time.perf_counter() - t0
    save()
    md = markdown(report)
    with open(os.path.join(a.out, "reference.md"), "w") as f:
        f.write(md)
    print(md)
    print(f"wrote {os.path.join(a.out, 'reference.md')}, {jpath}", file=sys.stderr)
    return report


if __name__ == "__main__":
    main()
