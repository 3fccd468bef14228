"""The learning agent's report (``saboteur report RUN [RUN ...]``): what a set of training runs
(one per seed, :mod:`saboteur_experiments.train`) achieved, measured as DESIGN 9 says.

For the chosen checkpoint of every run (``best_dev.pt`` by default: picked on dev deals only,
during training) it writes:

* **per seed**: the ``role-probe`` protocol
  (:func:`saboteur_experiments.evaluation.protocols.role_probe`) against the reference agent
  (default ``heuristic``) in every role of the run's game, on ``--deals`` test deals per role,
  deal-clustered 95% intervals; and the same for the **seed-averaged policy**
  (``ppo:avg=A|B|C``, :class:`saboteur_agents.network.AveragedPolicy`: the seeds' logits
  averaged, the normalised geometric mean of their policies);
* **cross-play**: every seed's checkpoint in the probe seat against every other seed's in all
  other seats (``--crossplay-deals`` per role): the matrix of paired win differences;
* **external** (base game only): the 4-player saboteur protocol
  (:func:`~saboteur_experiments.evaluation.protocols.external_protocol`): the learning
  saboteur's win rate against three heuristic gold-diggers, the heuristic saboteur's own on the
  same deals, and their ratio (paired deal bootstrap);
* **learning curves**: each run's in-training dev evaluations (``eval.csv``) against the
  reference, one line per seed and role, in ``learning_curves.png``;
* **training figures**: wall time, learning decisions, decisions per second and checkpoint
  size of each run.

Outputs in ``--out``: ``report.json``, ``report.md`` (the tables) and ``learning_curves.png``.
Runs must be of one game (base or Saboteur 2) and player count.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np

from saboteur_env.engine.ruleset import BASE, ruleset_of
from saboteur_experiments.evaluation.stats import Estimate, error_bars
from saboteur_experiments.jsonio import write_json

#: the checkpoint of a run that is reported unless ``--checkpoint`` says otherwise
DEFAULT_CHECKPOINT = "checkpoints/best_dev.pt"


def run_summary(run: Path, checkpoint: str = DEFAULT_CHECKPOINT) -> dict:
    """What one training run folder holds: its config, the chosen checkpoint and its metadata,
    the last metrics row (wall time, decisions, throughput) and the dev evaluations.

    Raises:
        FileNotFoundError: the folder has no ``config.json`` or no such checkpoint.
    """
    run = Path(run)
    cfg_path = run / "config.json"
    if not run.is_dir():
        raise FileNotFoundError(f"{run}: no such folder")
    if not cfg_path.is_file():
        raise FileNotFoundError(f"{run}: no config.json (not a saboteur train output folder)")
    ckpt = run / checkpoint
    if not ckpt.is_file():
        raise FileNotFoundError(
            f"{run}: no checkpoint {checkpoint} (a run without evaluations has no best_dev.pt: "
            "--checkpoint final.pt)"
        )
    meta = json.loads(ckpt.with_suffix(".json").read_text())
    rows = _read_csv(run / "metrics.csv")
    last = rows[-1] if rows else {}
    bc = json.loads((run / "bc.json").read_text()) if (run / "bc.json").is_file() else {}
    return {
        "run": str(run),
        "checkpoint": str(ckpt),
        "checkpoint_bytes": ckpt.stat().st_size,
        "config": json.loads(cfg_path.read_text()),
        "chosen": {k: meta.get(k) for k in ("iteration", "learning_decisions", "dev_score")},
        "elapsed_s": float(last.get("elapsed_s", "nan") or "nan"),
        "learning_decisions": int(float(last.get("learning_decisions", 0) or 0)),
        "decisions": int(float(last.get("decisions", 0) or 0)),
        "iterations": int(float(last.get("iteration", 0) or 0)),
        "bc_s": bc.get("bc_s"),
        "evals": _read_csv(run / "eval.csv"),
    }


def _read_csv(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def report(
    runs: list[Path],
    checkpoint: str = DEFAULT_CHECKPOINT,
    reference: str = "heuristic",
    deals: int = 500,
    crossplay_deals: int = 200,
    external_deals: int = 500,
    workers: int = 1,
    seed: int = 0,
    average: bool = True,
    progress: bool = False,
) -> dict:
    """Every table of the module docstring, as one JSON-ready dict.

    Raises:
        FileNotFoundError: a run folder without config or checkpoint.
        ValueError: runs of different games or player counts.
    """
    from saboteur_experiments.evaluation.protocols import external_protocol, role_probe

    summaries = [run_summary(r, checkpoint) for r in runs]
    games = {(s["config"].get("expansion", False), s["config"]["num_players"]) for s in summaries}
    if len(games) != 1:
        named = sorted(f"{ruleset_of(e).title} {n} players" for e, n in games)
        raise ValueError(f"the runs are of different games: {', '.join(named)}")
    expansion, players = games.pop()
    rules = ruleset_of(expansion)
    rounds = summaries[0]["config"]["num_rounds"]
    specs = {Path(s["run"]).name: f"ppo:{s['checkpoint']}" for s in summaries}
    if len(specs) != len(summaries):
        raise ValueError("two runs share a folder name: name each seed's folder differently")
    if average and len(summaries) > 1:
        specs["seed-averaged"] = "ppo:avg=" + "|".join(s["checkpoint"] for s in summaries)
    common = dict(
        players=players,
        split="test",
        seed=seed,
        expansion=expansion,
        workers=workers,
        progress=progress,
        num_rounds=rounds,
    )
    per_seed = {
        name: role_probe(spec, reference, deals=deals, **common) for name, spec in specs.items()
    }
    names = [Path(s["run"]).name for s in summaries]
    cross: dict = {}
    if crossplay_deals and len(names) > 1:
        for a in names:
            for b in names:
                if a != b:
                    cross[f"{a} vs {b}"] = role_probe(
                        specs[a], specs[b], deals=crossplay_deals, **common
                    )
    external = None
    if external_deals and rules is BASE:  # the external protocol is a base-game protocol
        external = external_protocol(
            list(specs.values()), deals=external_deals, seed=seed, workers=workers
        )
    return {
        "game": rules.name,
        "title": rules.title,
        "players": players,
        "num_rounds": rounds,
        "reference": reference,
        "checkpoint": checkpoint,
        "runs": summaries,
        "specs": specs,
        "per_seed": per_seed,
        "crossplay": cross,
        "external": external,
    }


def format_report(rep: dict) -> str:
    """``report.md``: the tables of :func:`report` as Markdown."""
    game = rep["title"]
    first = next(iter(rep["per_seed"].values()))
    lines = [
        f"# Learning agent: {game}, {rep['players']} players",
        "",
        f"Role-probe against `{rep['reference']}` on the test split, round 1 of "
        f"{rep['num_rounds']}-round games: the policy alone in one seat and role, every other "
        f"seat `{rep['reference']}`, paired with the all-`{rep['reference']}` game of the same "
        "deal. Cells: the policy's win rate minus the reference's in that seat, points, "
        "with Newcombe's paired 95% interval (n = probed deals).",
        "",
    ]
    roles = list(first["roles"])
    lines.append("| policy | " + " | ".join(roles) + " |")
    lines.append("|---|" + "---|" * len(roles))
    for name, res in rep["per_seed"].items():
        cells = []
        for role in roles:
            r = res["roles"][role]
            d = Estimate(**r["diff"])
            cells.append(f"{d.pct(signed=True)} (n={r['deals']})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Win rates (candidate / reference, same seats and deals):", ""]
    lines.append("| policy | " + " | ".join(roles) + " |")
    lines.append("|---|" + "---|" * len(roles))
    for name, res in rep["per_seed"].items():
        cells = [
            f"{Estimate(**res['roles'][q]['candidate']).pct()} / "
            f"{Estimate(**res['roles'][q]['reference']).pct()}"
            for q in roles
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if rep["crossplay"]:
        lines += [
            "",
            "Cross-play: the row's checkpoint alone in the probe seat, the column's in every "
            "other seat; its win rate minus the column's own in that seat (points, 95%).",
            "",
        ]
        names = [Path(s["run"]).name for s in rep["runs"]]
        for role in roles:
            lines.append(f"| {role} | " + " | ".join(names) + " |")
            lines.append("|---|" + "---|" * len(names))
            for a in names:
                cells = []
                for b in names:
                    res = rep["crossplay"].get(f"{a} vs {b}")
                    cells.append(
                        "-" if res is None else Estimate(**res["roles"][role]["diff"]).pct(True)
                    )
                lines.append(f"| {a} | " + " | ".join(cells) + " |")
            lines.append("")
    if rep["external"]:
        from saboteur_experiments.evaluation.protocols import format_external

        lines += [
            "",
            "External protocol (4 players): the policy as the one saboteur against three "
            "heuristic gold-diggers; the heuristic saboteur's own rate on the same deals; their "
            "ratio (paired deal bootstrap; - when the heuristic saboteur never won).",
            "",
            "```",
            format_external(rep["external"]),
            "```",
        ]
    lines += [
        "",
        "Training runs: wall seconds of training (warm start included, the final evaluation "
        "not), learning decisions, decisions of every seat per wall second, the learning "
        "decisions at which the reported checkpoint was chosen, and its size in bytes.",
        "",
        "| run | wall s | learning decisions | decisions/s | chosen at | bytes |",
        "|---|---|---|---|---|---|",
    ]
    for s in rep["runs"]:
        rate = s["decisions"] / s["elapsed_s"] if s["elapsed_s"] == s["elapsed_s"] else 0
        lines.append(
            f"| {Path(s['run']).name} | {s['elapsed_s']:.0f} | {s['learning_decisions']} | "
            f"{rate:.0f} | {s['chosen']['learning_decisions']} | {s['checkpoint_bytes']} |"
        )
    lines += ["", "Learning curves (dev deals, in training): `learning_curves.png`."]
    return "\n".join(lines) + "\n"


def plot_curves(rep: dict, path: Path) -> Path | None:
    """``learning_curves.png``: every run's dev evaluations against the reference, per role."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    roles = list(next(iter(rep["per_seed"].values()))["roles"])
    fig, axes = plt.subplots(1, len(roles), figsize=(5 * len(roles), 4), squeeze=False)
    base = rep["reference"].split(":")[0]
    for ax, role in zip(axes[0], roles):
        for s in rep["runs"]:
            ev = [e for e in s["evals"] if e.get(f"{base}_diff_{role}", "") not in ("", "nan")]
            if not ev:
                continue
            x = [int(float(e["learning_decisions"])) for e in ev]
            y = np.array([100 * float(e[f"{base}_diff_{role}"]) for e in ev])
            lo = np.array([100 * float(e[f"{base}_lo_{role}"]) for e in ev])
            hi = np.array([100 * float(e[f"{base}_hi_{role}"]) for e in ev])
            ax.errorbar(
                x, y, yerr=error_bars(y, lo, hi), fmt="o-", capsize=2, label=Path(s["run"]).name
            )
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(f"{role}: dev role-probe vs {base}")
        ax.set_xlabel("learning decisions")
        ax.set_ylabel("win-rate difference, points (95%)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def main(argv=None) -> dict:
    from saboteur_experiments.cli_args import at_least, check_output_dir

    p = argparse.ArgumentParser(
        prog="saboteur report",
        description="The learning agent's report from training run folders (one per seed): "
        "role-probe per seed and for the seed-averaged policy on the test split, cross-play, "
        "the 4-player external protocol (base game) and the dev learning curves.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("runs", nargs="+", help="saboteur train --out folders, one per seed")
    p.add_argument("--checkpoint", default=DEFAULT_CHECKPOINT, help="inside each run")
    p.add_argument("--reference", default="heuristic", help="the agent every other seat plays")
    p.add_argument("--deals", type=at_least(1), default=500, help="test deals per role")
    p.add_argument("--crossplay-deals", type=at_least(0), default=200)
    p.add_argument("--external-deals", type=at_least(0), default=500)
    p.add_argument("--workers", type=at_least(1), default=1)
    p.add_argument("--seed", type=at_least(0), default=0, help="seeds the agents")
    p.add_argument("--no-average", action="store_true", help="skip the seed-averaged policy")
    p.add_argument("--out", default="runs/report")
    p.add_argument("--overwrite", action="store_true", help="replace an earlier report in --out")
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bars (default: shown when stderr is a terminal)",
    )
    a = p.parse_args(argv)
    check_output_dir(p, a.out, "--out")
    if (Path(a.out) / "report.json").exists() and not a.overwrite:
        p.error(f"--out {a.out}: holds an earlier report; pass --overwrite or choose another")
    try:
        rep = report(
            [Path(r) for r in a.runs],
            a.checkpoint,
            a.reference,
            a.deals,
            a.crossplay_deals,
            a.external_deals,
            a.workers,
            a.seed,
            average=not a.no_average,
            progress=sys.stderr.isatty() and not a.no_progress,
        )
    except (FileNotFoundError, ValueError) as err:
        p.error(str(err))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "report.json", rep)
    text = format_report(rep)
    (out / "report.md").write_text(text)
    plot_curves(rep, out / "learning_curves.png")
    print(text)
    return rep


if __name__ == "__main__":
    main()
