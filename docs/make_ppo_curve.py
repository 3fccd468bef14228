"""Draw docs/ppo_learning_curve.png: the shipped checkpoint's training stages end to end.

Usage: ``python docs/make_ppo_curve.py runs/ppo_base_5p runs/ppo_cont2 runs/ppo_cont3``
(the training runs of the README's PPO paragraph).  Each stage's ``metrics.csv`` and
``eval.csv`` are joined, learning decisions counted from the start of the first stage, and
drawn with :func:`saboteur_experiments.train.plot_learning_curve`.
"""

from __future__ import annotations

import csv
import shutil
import sys
from pathlib import Path

from saboteur_experiments.train import plot_learning_curve


def _rows(path: Path, offset: int) -> list[dict]:
    out = []
    for r in csv.DictReader(open(path)):
        row = {}
        for k, v in r.items():
            try:
                row[k] = float(v) if v != "" else float("nan")
            except ValueError:
                row[k] = v
        row["learning_decisions"] += offset
        out.append(row)
    return out


def main(dirs: list[str]) -> None:
    rows, evals, offset = [], [], 0
    for d in map(Path, dirs):
        stage = _rows(d / "metrics.csv", offset)
        rows += stage
        if (d / "eval.csv").exists():
            evals += _rows(d / "eval.csv", offset)
        offset = int(stage[-1]["learning_decisions"])
    tmp = Path("runs/_curve")
    tmp.mkdir(parents=True, exist_ok=True)
    png = plot_learning_curve(tmp, rows, evals)
    shutil.copy(png, Path(__file__).parent / "ppo_learning_curve.png")
    print(f"{len(rows)} iterations, {offset} learning decisions -> docs/ppo_learning_curve.png")


if __name__ == "__main__":
    main(sys.argv[1:])
