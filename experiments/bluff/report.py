"""Summaries and outputs of the bluff benchmark: the metrics of every cell
(:func:`summarize`), the bluff frontier (:func:`bluff_frontier`, :func:`pareto`), the
terminal tables (:func:`format_tables`), ``summary.csv`` and the plots (:func:`make_plots`)."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from saboteur_env.engine.ruleset import BASE
from saboteur_experiments import jsonio
from saboteur_experiments.evaluation.stats import error_bars

from . import metrics as M
from .detectors.base import BUILTIN_NAMES
from .harness import TRACKS
from .populations import BLATANT, FRONTIER, MIMIC, variant

PANEL = ("bayes", "bayes-fit", "logistic", "heuristic-belief")


def summarize(
    sc: dict,
    prior: dict,
    *,
    B: int,
    seed: int,
    threshold: float,
    sab: int = BASE.saboteur,
    diggers: Sequence[int] = BASE.diggers,
) -> dict:
    """All metrics of one (track, detector, population, N) cell (:mod:`.metrics`).

    ``sc`` and ``prior``: :meth:`.harness.Scored.arrays` of the detector and of the exact prior
    on the same points (same order).  ``sab``: the saboteur's column, ``diggers``: the
    gold-digger columns (``Ruleset.saboteur`` and ``Ruleset.diggers``: 1 and (0,) in the base
    game, 5 and green, blue in Saboteur 2).  Returns ``{}`` for no rows, else the metrics
    (point values, or ``(value, lo, hi)`` 95% bootstrap intervals over games, ``B``
    resamples seeded by ``seed``).
    """
    P, y, w, g = sc["P"], sc["y"], None, sc["game"]
    if len(y) == 0:
        return {}
    w = M.round_weights(sc["round"])
    _, gi = np.unique(g, return_inverse=True)
    ng = int(gi.max()) + 1
    ll, br = M.log_loss_rows(P, y), M.brier_rows(P, y)
    llp, brp = M.log_loss_rows(prior["P"], y), M.brier_rows(prior["P"], y)
    num = np.stack(
        [
            M.per_game_sums(gi, w * ll, ng),
            M.per_game_sums(gi, w * llp, ng),
            M.per_game_sums(gi, w * br, ng),
            M.per_game_sums(gi, w * brp, ng),
            M.per_game_sums(gi, w, ng),
        ],
        axis=1,
    )

    def boot(f):
        return M.bootstrap_ratio(num, np.ones_like(num), B=B, seed=seed, transform=f)

    out = {
        "rows": int(len(y)),
        "games": ng,
        "rounds": int(len(np.unique(sc["round"]))),
        "log_loss": boot(lambda s: s[..., 0] / s[..., 4]),
        "brier": boot(lambda s: s[..., 2] / s[..., 4]),
        "ll_skill": boot(lambda s: 1 - s[..., 0] / s[..., 1]),
        "brier_skill": boot(lambda s: 1 - s[..., 2] / s[..., 3]),
    }
    ps = P[:, sab]
    pos = y == sab
    out["auroc"] = M.auroc(ps, pos, w)
    dec = np.minimum((sc["progress"] * 10).astype(int), 9)
    out["auroc_by_decile"] = [M.auroc(ps[dec == k], pos[dec == k], w[dec == k]) for k in range(10)]
    sk = []
    for k in range(10):
        m = dec == k
        sk.append(M.skill(ll[m], llp[m], w[m]) if m.any() else float("nan"))
    out["ll_skill_by_decile"] = sk
    conf, freq, share, ece = M.reliability(ps, pos, w)
    out["reliability"] = {
        "confidence": conf.tolist(),
        "frequency": freq.tolist(),
        "share": share.tolist(),
    }
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
    out["false_accusation"] = (
        float(np.isfinite(first[~lab]).mean()) if (~lab).any() else float("nan")
    )
    out["infeasible"] = float(1 - sc["feasible"].mean())
    # in-seat: skill as seen by gold-digger observers and by saboteur observers (who must find
    # their fellow saboteurs)
    for r, label in ((tuple(diggers), "digger_observers"), ((sab,), "saboteur_observers")):
        m = np.isin(sc["observer_role"], r)
        out[f"ll_skill_{label}"] = M.skill(ll[m], llp[m], w[m]) if m.any() else float("nan")
    # per-deal sums (log loss, prior log loss, Brier, prior Brier, weight) for the frontier's
    # paired deal bootstrap (:func:`bluff_frontier`); dropped before the summary is written
    out["_game_sums"] = (np.unique(g), num)
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
def plot_file(kind: str, track: str | None = None) -> str:
    """The name of one plot :func:`make_plots` writes: ``<kind>_<track>.png`` per track, the
    frontier ``bluff_frontier.png``."""
    return f"{kind}_{track}.png" if track else f"{kind}.png"


#: per track kinds of plot, then the frontier: the files :func:`make_plots` writes (an earlier
#: run's are removed first: a run without plots leaves none of another run's beside its summary)
TRACK_PLOTS = ("skill_by_progress", "reliability", "survival")
PLOT_FILES = (
    *(plot_file(kind, track) for track in TRACKS for kind in TRACK_PLOTS),
    plot_file("bluff_frontier"),
)


def remove_plots(out: Path) -> None:
    """Remove the plots of an earlier run from ``out`` (:data:`PLOT_FILES`)."""
    for name in PLOT_FILES:
        (Path(out) / name).unlink(missing_ok=True)


def make_plots(summary: dict, out: Path, players: Sequence[int], pops: Sequence[str]) -> list:
    """Write the plots of ``summary`` into ``out`` and return their paths: per track the skill
    and AUROC by decile of round progress, the reliability diagrams and the detection survival
    curves (all at 5 players if played, else the largest count), then the bluff frontier."""
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
        files.append(
            _finish(
                plt,
                fig,
                axes,
                ("log-loss skill vs prior", "AUROC (saboteur)"),
                f"{track}: skill and AUROC by decile of round progress",
                out / plot_file("skill_by_progress", track),
            )
        )
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
        files.append(
            _finish(
                plt,
                fig,
                axes,
                ("observed frequency",),
                f"{track}: reliability ({n_main}p)",
                out / plot_file("reliability", track),
            )
        )
        # survival
        fig, axes = plt.subplots(1, len(pops), figsize=(4 * len(pops), 3.4), squeeze=False)
        for ax, pop in zip(axes[0], pops):
            for c in sel:
                if c["population"] == pop and c["detector"] not in ("uniform", "prior"):
                    ax.step(np.linspace(0, 1, 21), c["survival"], where="post", label=c["detector"])
            ax.set_title(f"{pop} ({n_main}p)")
            ax.set_xlabel("round progress")
            ax.set_ylim(0, 1.02)
        files.append(
            _finish(
                plt,
                fig,
                axes,
                ("saboteurs not yet detected",),
                f"{track}: detection survival (P(saboteur) > {summary['threshold']})",
                out / plot_file("survival", track),
            )
        )
    # bluff frontier
    fig, ax = plt.subplots(figsize=(6.5, 5))
    markers = "osD^v<>"
    for j, n in enumerate(players):
        pts = [
            p
            for p in summary["frontier"]
            if p["on_frontier"]
            and p["players"] == n
            and p["detection"][0] == p["detection"][0]
            and p["win_rate_drop"][0] == p["win_rate_drop"][0]
        ]
        for p in pts:
            x, y = p["win_rate_drop"], p["detection"]
            ax.errorbar(
                x[0],
                y[0],
                xerr=error_bars([x[0]], [x[1]], [x[2]]),
                yerr=error_bars([y[0]], [y[1]], [y[2]]),
                marker=markers[j % 7],
                capsize=2,
                color=f"C{list(FRONTIER).index(p['population'])}",
                alpha=0.8,
            )
            ax.annotate(
                f"{p['saboteur_policy']} {n}p",
                (x[0], y[0]),
                fontsize=7,
                xytext=(4, 4),
                textcoords="offset points",
            )
        front = pareto(pts)
        if len(front) > 1:
            ax.plot(
                [p["win_rate_drop"][0] for p in front],
                [p["detection"][0] for p in front],
                ls="--",
                color="grey",
                lw=0.8,
            )
    ax.axhline(0, color="grey", lw=0.5)
    ax.axhline(1, color="grey", lw=0.5, ls=":")
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel(variant(bool(summary.get("expansion"))).rate_axis)
    ax.set_ylabel("detection: panel skill, 0 = mimic, 1 = blatant (lower = better bluff)")
    ax.set_title("bluff frontier (heuristic gold-diggers, paired test deals)")
    files.append(_save(plt, fig, out / plot_file("bluff_frontier")))
    return files


def _finish(plt, fig, axes, ylabels: Sequence[str], title: str, path: Path) -> Path:
    """A grid of panels done: ``ylabels`` on the first panel of each row, the legend on the
    last panel of the first row, the title; saved to ``path`` (:func:`_save`)."""
    for row, label in zip(axes, ylabels):
        row[0].set_ylabel(label)
    axes[0][-1].legend(fontsize=7)
    fig.suptitle(title)
    return _save(plt, fig, path)


def _save(plt, fig, path: Path) -> Path:
    """Lay out ``fig``, write it to ``path`` (PNG, 90 dpi), close it; returns ``path``."""
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _panel_sums(cells: list, pop: str, n: int, dets: Sequence[str]) -> tuple | None:
    """``(deals, sums)``: per test deal of ``pop`` at ``n`` players the spectator log-loss sums
    of the detectors ``dets`` and of the exact prior over **all** targets, float
    ``(n_deals, len(dets), 2)`` (``None`` if a detector has no cell)."""
    got = {
        c["detector"]: c["_game_sums"]
        for c in cells
        if c["track"] == "spectator"
        and c["population"] == pop
        and c["players"] == n
        and "_game_sums" in c
    }
    if not dets or any(d not in got for d in dets):
        return None
    deals = got[dets[0]][0]
    return deals, np.stack([got[d][1][:, :2] for d in dets], axis=1)


def _by_deal(panel: tuple, n_deals: int) -> np.ndarray:
    """The sums of :func:`_panel_sums` on one row per deal of the record set, in record order
    (zeros for a deal with no scored decision, e.g. under a large ``--stride``), so that the
    rows line up with the deal weights and with the other populations' rows of the same deals.

    Raises:
        ValueError: a scored deal index outside the record set.
    """
    deals, sums = panel
    deals = np.asarray(deals, dtype=np.int64)
    if len(deals) and (deals.min() < 0 or deals.max() >= n_deals):
        raise ValueError(
            f"scored deal indices {deals.min()}..{deals.max()} outside 0..{n_deals - 1}"
        )
    out = np.zeros((n_deals, *sums.shape[1:]))
    out[deals] = sums
    return out


def panel_skill(sums: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """The panel score: the mean over the panel's detectors of the log-loss skill against the
    exact prior over all targets (a proper score: the exact prior scores 0, a detector that
    accuses everyone far below it).  ``sums`` float ``(n_deals, k, 2)`` (:func:`_panel_sums`),
    ``w`` deal weights ``(n_deals,)`` or ``(B, n_deals)`` (bootstrap counts; default ones)."""
    w = np.ones(len(sums)) if w is None else w
    tot = np.tensordot(w, sums, axes=([-1], [0]))  # (..., k, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (1 - tot[..., 0] / tot[..., 1]).mean(axis=-1)


def ceiling_gaps(cells: list, B: int = 1000, seed: int = 0) -> list[dict]:
    """How far each spectator detector is from the Bayes ceiling (the ``ceiling`` detector,
    :class:`.detectors.PolicyBayesDetector`) on every population and player count that has
    one: the ceiling's log-loss skill minus the detector's (both over all targets, against the
    exact prior), with a 95% bootstrap interval over test deals, paired (the same resampled
    deals for both).

    Returns:
        one dict per (population, players, detector): ``population``, ``players``,
        ``detector``, ``skill`` and ``ceiling`` (the cells' ``ll_skill``), ``gap`` ``(point,
        lo, hi)`` in skill points.
    """
    out = []
    spect = [c for c in cells if c["track"] == "spectator" and "_game_sums" in c]
    for top in (c for c in spect if c["detector"] == "ceiling"):
        pop, n = top["population"], top["players"]
        for c in spect:
            if c["population"] != pop or c["players"] != n or c["detector"] == "ceiling":
                continue
            deals, sums = _panel_sums(cells, pop, n, ["ceiling", c["detector"]])
            # columns: ceiling log loss, detector log loss, prior log loss (per deal)
            num = np.stack([sums[:, 0, 0], sums[:, 1, 0], sums[:, 0, 1]], axis=1)
            gap = M.bootstrap_ratio(
                num,
                np.ones_like(num),
                B=B,
                seed=seed,
                transform=lambda r: (r[..., 1] - r[..., 0]) / r[..., 2],
            )
            out.append(
                {
                    "population": pop,
                    "players": n,
                    "detector": c["detector"],
                    "skill": c["ll_skill"],
                    "ceiling": top["ll_skill"],
                    "gap": gap,
                }
            )
    return out


def bluff_frontier(
    cells: list,
    recs: dict,
    pops: Sequence[str],
    players: Sequence[int],
    *,
    B: int,
    seed: int,
    mimic: str = MIMIC,
    blatant: str = BLATANT,
) -> list[dict]:
    """One point per population and player count.

    * ``digger_win_rate``: the gold-diggers' round win rate over the test deals;
      ``win_rate_drop``: its drop below ``mimic``'s on the same (paired) deals.
    * ``panel_skill``: the spectator panel's (:data:`PANEL`) mean log-loss skill against the
      exact prior over all targets (:func:`panel_skill`, unanchored).
    * ``detection``: the frontier's detection axis, ``(S(pop) - S(mimic)) / (S(blatant) -
      S(mimic))`` with ``S`` the panel skill: 0 for the mimic saboteurs (nothing to detect), 1
      for the blatant heuristic saboteurs, by construction.

    Intervals (95%) by a paired deal bootstrap: every resample draws test deals with
    replacement and recomputes all three populations on the same deals (populations with
    other deals, e.g. ``--records``, are resampled on their own).  The panel is the
    :data:`PANEL` detectors scored on ``pop`` and both anchors.  ``on_frontier`` marks the
    populations that share the heuristic gold-diggers (:data:`.populations.FRONTIER`)."""
    from saboteur_experiments.evaluation.stats import cluster_weights, percentile_interval

    nan3 = (float("nan"),) * 3

    def ci(point, reps):
        lo, hi = percentile_interval(np.asarray(reps, float)[:, None])
        return float(point), float(lo[0]), float(hi[0])

    out = []
    for n in players:
        present = {
            c["detector"]
            for c in cells
            if c["track"] == "spectator" and c["players"] == n and "_game_sums" in c
        }
        for pop in pops:
            if (pop, n) not in recs:
                continue
            per = np.array(
                [
                    [sum(r["gold_found"] for r in rec.rounds), len(rec.rounds)]
                    for rec in recs[(pop, n)]
                ],
                float,
            )
            deals = np.array([rec.seed for rec in recs[(pop, n)]])
            W = cluster_weights(np.arange(len(per)), B, seed)
            wr = ci(per[:, 0].sum() / per[:, 1].sum(), (W @ per[:, 0]) / (W @ per[:, 1]))
            anchors = [a for a in (mimic, blatant) if (a, n) in recs]
            paired = all(np.array_equal(deals, [rec.seed for rec in recs[(a, n)]]) for a in anchors)
            Wa = W
            if not paired and (mimic, n) in recs:  # e.g. --records: its own deals
                Wa = cluster_weights(np.arange(len(recs[(mimic, n)])), B, seed + 1)
            drop = nan3
            if pop in FRONTIER and (mimic, n) in recs:
                ref = np.array(
                    [
                        [sum(r["gold_found"] for r in rec.rounds), len(rec.rounds)]
                        for rec in recs[(mimic, n)]
                    ],
                    float,
                )
                drop = ci(
                    ref[:, 0].sum() / ref[:, 1].sum() - wr[0],
                    (Wa @ ref[:, 0]) / (Wa @ ref[:, 1]) - (W @ per[:, 0]) / (W @ per[:, 1]),
                )
            dets = [
                d
                for d in PANEL
                if d in present
                and all(
                    any(
                        c["detector"] == d
                        and c["population"] == q
                        and c["players"] == n
                        and c["track"] == "spectator"
                        and "_game_sums" in c
                        for c in cells
                    )
                    for q in (pop, *anchors)
                )
            ]
            sk, det = nan3, nan3
            got = _panel_sums(cells, pop, n, dets)
            if got is not None:
                mine = _by_deal(got, len(per))
                sk = ci(panel_skill(mine), panel_skill(mine, W))
                # the scale runs from the mimic to the blatant saboteurs among the heuristic
                # gold-diggers: it measures only saboteurs that play among those diggers
                if len(anchors) == 2 and pop in FRONTIER:
                    m = _by_deal(_panel_sums(cells, mimic, n, dets), len(recs[(mimic, n)]))
                    b = _by_deal(_panel_sums(cells, blatant, n, dets), len(recs[(blatant, n)]))
                    Wb = Wa
                    with np.errstate(invalid="ignore", divide="ignore"):
                        point = (panel_skill(mine) - panel_skill(m)) / (
                            panel_skill(b) - panel_skill(m)
                        )
                        reps = (panel_skill(mine, W) - panel_skill(m, Wa)) / (
                            panel_skill(b, Wb) - panel_skill(m, Wa)
                        )
                    det = ci(point, reps)
            out.append(
                {
                    "population": pop,
                    "players": n,
                    "saboteur_policy": FRONTIER.get(pop),
                    "on_frontier": pop in FRONTIER,
                    "paired": paired,
                    "panel": dets,
                    "digger_win_rate": wr,
                    "win_rate_drop": drop,
                    "panel_skill": sk,
                    "detection": det,
                }
            )
    return out


def pareto(points: list[dict], key: str = "detection") -> list[dict]:
    """The frontier points no other point beats on both axes (a larger win-rate drop and a
    lower detection score, ``key``), sorted by win-rate drop."""
    pts = sorted(points, key=lambda p: p["win_rate_drop"][0])
    return [
        p
        for p in pts
        if not any(
            q is not p
            and q["win_rate_drop"][0] >= p["win_rate_drop"][0]
            and q[key][0] <= p[key][0]
            and (q["win_rate_drop"][0], q[key][0]) != (p["win_rate_drop"][0], p[key][0])
            for q in pts
        )
    ]


CSV_FIELDS = (
    "track",
    "detector",
    "population",
    "players",
    "fitted_on",
    "games",
    "rounds",
    "rows",
    "log_loss",
    "brier",
    "ll_skill",
    "ll_skill_lo",
    "ll_skill_hi",
    "brier_skill",
    "brier_skill_lo",
    "brier_skill_hi",
    "auroc",
    "ece",
    "median_detection",
    "detected_share",
    "false_accusation",
    "infeasible",
    "ll_skill_digger_observers",
    "ll_skill_saboteur_observers",
)


def write_csv(summary: dict, out: Path) -> None:
    """``<out>/summary.csv``: one row per scored cell, columns :data:`CSV_FIELDS`."""
    with open(out / "summary.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(CSV_FIELDS)
        for c in summary["cells"]:
            if not c.get("rows"):
                continue
            wr.writerow(
                [
                    c["track"],
                    c["detector"],
                    c["population"],
                    c["players"],
                    ";".join(c.get("fitted_on", [])),
                    c["games"],
                    c["rounds"],
                    c["rows"],
                    f"{c['log_loss'][0]:.4f}",
                    f"{c['brier'][0]:.4f}",
                    *(f"{v:.4f}" for v in c["ll_skill"]),
                    *(f"{v:.4f}" for v in c["brier_skill"]),
                    f"{c['auroc']:.4f}",
                    f"{c['ece']:.4f}",
                    f"{c['median_detection']:.3f}",
                    f"{c['detected_share']:.3f}",
                    f"{c['false_accusation']:.3f}",
                    f"{c['infeasible']:.3f}",
                    f"{c['ll_skill_digger_observers']:.4f}",
                    f"{c['ll_skill_saboteur_observers']:.4f}",
                ]
            )


def write_json(summary: dict, out: Path) -> None:
    """``<out>/summary.json``: the whole summary (numpy values as JSON numbers and lists; a
    value with no data, NaN, as ``null``: :func:`saboteur_experiments.jsonio.write_json`; any
    other object as its ``str``)."""
    jsonio.write_json(out / "summary.json", summary, default=str)


def format_tables(summary: dict) -> str:
    """The per-track tables: detector x population rows, log-loss skill [95% CI] per player
    count, then at the largest count: AUROC, ECE, the false-accusation rate (FA), the share of
    infeasible beliefs and (in-seat) the skill of saboteur observers alone (sab-obs)."""
    lines = []
    players = summary["players"]
    for track in TRACKS:
        cells = [c for c in summary["cells"] if c["track"] == track and c.get("rows")]
        game = variant(bool(summary.get("expansion"))).heading
        lines.append(
            f"\n== {game}{track} track: log-loss skill vs the exact prior [95% deal-bootstrap "
            f"CI], test deals; fitted detectors never saw the scored population =="
        )
        head = f"{'detector':<17}{'population':<21}" + "".join(f"{f'{n}p':<27}" for n in players)
        head += f"{'Brier sk':>9}{'AUROC':>7}{'ECE':>7}{'FA':>6}{'infeas':>7}"
        if track == "in-seat":
            head += f"{'sab-obs':>8}"
        lines.append(head)
        keys = sorted(
            {(c["detector"], c["population"]) for c in cells},
            key=lambda k: (_DET_ORDER.get(k[0], len(_DET_ORDER)), k[0], k[1]),
        )
        for det, pop in keys:
            row = f"{det:<17}{pop:<21}"
            last = None
            for n in players:
                c = next(
                    (
                        c
                        for c in cells
                        if c["detector"] == det and c["population"] == pop and c["players"] == n
                    ),
                    None,
                )
                row += f"{_fmt(c['ll_skill']) if c else 'n/a':<27}"
                last = c or last
            if last:
                row += (
                    f"{last['brier_skill'][0]:>+9.3f}{last['auroc']:>7.3f}{last['ece']:>7.3f}"
                    f"{last['false_accusation']:>6.2f}{last['infeasible']:>7.2f}"
                )
                if track == "in-seat":
                    row += f"{last['ll_skill_saboteur_observers']:>8.3f}"
            lines.append(row)
    fits = summary.get("fit_populations") or {}
    if fits:
        lines.append(
            "\nleave-one-population-out: bayes-fit and logistic scored on a population were "
            "fitted on (train deals) and calibrated on (dev deals) only these:"
        )
        for pop, on in fits.items():
            lines.append(f"  {pop:<21} <- {', '.join(on) if on else '(none: not scored)'}")
    lines.append(
        "\n== bluff frontier: saboteur policies with the heuristic gold-diggers on paired "
        "test deals (detection: spectator panel log-loss skill over all players, 0 = mimic, "
        "1 = blatant) =="
    )
    rate = variant(bool(summary.get("expansion"))).rate
    lines.append(
        f"{'population':<21}{'saboteurs':<19}{'N':>3}  {rate:<22}"
        f"{'drop vs mimic':<24}{'panel skill':<22}{'detection':<22}"
    )
    for pt in summary["frontier"]:
        wr, dr, sk = pt["digger_win_rate"], pt["win_rate_drop"], pt["panel_skill"]
        lines.append(
            f"{pt['population']:<21}{pt['saboteur_policy'] or '(own diggers)':<19}"
            f"{pt['players']:>3}  {_fmt2(wr):<22}{_fmt2(dr):<24}{_fmt2(sk):<22}"
            f"{_fmt2(pt['detection']):<22}"
        )
    by = {(pt["population"], pt["players"]): pt for pt in summary["frontier"]}
    for n in players:
        m, b = by.get((MIMIC, n)), by.get((BLATANT, n))
        if m and b and b["panel_skill"][0] - m["panel_skill"][0] < 0.1:
            lines.append(
                f"warning ({n}p): the anchors' panel skills differ by only "
                f"{b['panel_skill'][0] - m['panel_skill'][0]:+.3f} (mimic "
                f"{m['panel_skill'][0]:+.3f}, blatant {b['panel_skill'][0]:+.3f}): the detection "
                "axis divides by that difference, so its values are not informative (too few "
                "games?)"
            )
    gaps = summary.get("ceiling_gaps") or []
    if gaps:
        lines.append(
            "\n== gap to the Bayes ceiling (spectator track; the ceiling knows the population's "
            "policies and every card, not the roles, except in Saboteur 2 those an actor's "
            "Inspection showed it): ceiling skill minus the detector's, [95% paired "
            "deal-bootstrap CI] =="
        )
        lines.append(f"{'population':<21}{'N':>3}  {'ceiling':<9}{'detector':<17}{'skill':<9}gap")
        for g in gaps:
            lines.append(
                f"{g['population']:<21}{g['players']:>3}  {g['ceiling'][0]:<+9.3f}"
                f"{g['detector']:<17}{g['skill'][0]:<+9.3f}{_fmt(g['gap'])}"
            )
    no_ceiling = {p: w for p, w in (summary.get("ceiling") or {}).items() if w != "computed"}
    if no_ceiling:
        lines.append(
            "\nno Bayes ceiling for: " + "; ".join(f"{p} ({w})" for p, w in no_ceiling.items())
        )
    # where the ceiling was computed but the sampled spectator was not (a policy that keeps
    # event-fed state, or a ruleset where it is too slow), say why
    no_sampled = {
        p: w
        for p, w in (summary.get("policy_bayes") or {}).items()
        if not w.startswith("computed") and p not in no_ceiling
    }
    if no_sampled:
        lines.append(
            "\nno policy-bayes spectator for: "
            + "; ".join(f"{p} ({w})" for p, w in no_sampled.items())
        )
    if summary.get("skipped_detectors"):
        lines.append(
            "\nskipped detectors: "
            + "; ".join(f"{k}: {v}" for k, v in summary["skipped_detectors"].items())
        )
    if summary["skipped"]:
        lines.append(
            "\nskipped populations: "
            + "; ".join(f"{k}: {v}" for k, v in summary["skipped"].items())
        )
    return "\n".join(lines)


#: the order of the benchmark's own detectors in the tables (a user's come after them)
_DET_ORDER = {name: i for i, name in enumerate(BUILTIN_NAMES)}
