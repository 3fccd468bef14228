"""Team-aware ratings for a hidden-team game, fitted order-free, with deal-bootstrap intervals.

The free-for-all ratings of :mod:`saboteur_experiments.ratings` rank seats by their gold.  In
Saboteur the unit that wins is a *side*: the gold-diggers of a round win together when the gold is
reached, the saboteurs when it is not (RULES 5.3; in Saboteur 2 the winners set of RULES 6.9,
green/blue diggers against the saboteurs).  So an agent is rated by how its side fared, per
role class, against the seats it actually played against.

The model is a weighted logistic regression on the rows of
:func:`saboteur_experiments.evaluation.outcomes.round_table`.  For each row (round ``r``, seat
``s``, agent ``a``, role class ``c``), where ``c`` is ``"gold-digger"`` (any digger role of the
ruleset, pooled) or ``"saboteur"``::

    logit P(s won r) = alpha[c, k(, alone)] + theta[a, c]
                       - mean_{t opposing s} theta[agent_t, class_t]

* ``k`` is the number of saboteurs in play in round ``r``: ``alpha`` is the role-luck / balance
  effect of the round (one parameter per (class, k) cell seen in the data).
* the seats opposing a digger are the round's saboteurs, those opposing a saboteur its
  digger-role seats; with no opposing seat (a round without saboteurs) the term is 0.
  Saboteur 2's boss, profiteer and geologist rows are left out of the fit and are nobody's
  opponent (they win with either side or by their own pay).  So in Saboteur 2 a saboteur may
  face no digger at all (only a boss, profiteer or geologist beside it): such unopposed rows
  get their own ``alpha`` cell, ``(class, k, "alone")``.  Sharing the cell of the opposed rows
  would tie the digger class's level to the two kinds of rows' different win rates (role luck,
  not skill), and the class would no longer be centred: two agents' digger ratings came out
  e.g. +161 / -85 instead of a mirror pair.
* there is **no seat effect** in the model: the tournament rotates every agent through every
  seat (:func:`saboteur_experiments.tournament.schedule`), and seat bias is reported separately by
  the tournament summary.
* a ridge prior ``0.5 * lam * sum(theta**2)`` (plus ``0.5 * 1e-6 * sum(alpha**2)``, and a floor
  of ``1e-6`` on ``lam``) makes the penalised likelihood strictly concave, so the fit exists and
  is unique even when an agent always wins.  Adding a constant to every digger (or every
  saboteur) rating is absorbed by ``alpha`` at no cost, so the ridge centres each role class
  near 0: ratings compare agents *within* a role class.

The fit is Newton's method on a dense design matrix built once, so it does not depend on the
order of the games (rows are put in canonical (deal, game, round, seat) order first).
Ratings are reported on the Elo scale, ``400 / ln 10 * theta``; ``"overall"`` is the mean of an
agent's two role ratings weighted by its share of (weighted) rows in each class.  Intervals are
95% deal-bootstrap percentile intervals
(:func:`saboteur_experiments.evaluation.stats.cluster_bootstrap`): every seat of a deal shares its
cards, so the deal is the resampled unit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from saboteur_experiments.evaluation.outcomes import RoundTable, round_table
from saboteur_experiments.evaluation.stats import cluster_bootstrap, percentile_interval

#: role-class names, the column order of ``theta``
CLASSES = ("gold-digger", "saboteur")
#: logit units to the Elo scale
ELO = 400.0 / math.log(10.0)
#: ridge on ``alpha`` and floor of ``lam``
TINY = 1e-6
MODEL = (
    "logit P(win) = alpha[role class, saboteurs in play(, unopposed)] + theta[agent, role class] "
    "- mean theta of the opposing seats (diggers vs saboteurs; RULES 5.3, 6.9); "
    "ridge lam={lam:g} on theta; no seat effect; Elo scale 400/ln10*theta; "
    "95% deal-bootstrap intervals"
)


class _Design:
    """The design matrix of a :class:`RoundTable`, built once for every refit.

    Attributes:
        X: float64 ``(m, p)`` over the ``m`` fitted rows; ``y``: float64 ``(m,)`` won;
        keep: int64 ``(m,)`` indices of the fitted rows into the table;
        cls: int64 ``(m,)`` role class (0 digger, 1 saboteur); agent: int64 ``(m,)``;
        cells: the ``(class_name, k)`` of every alpha column (columns ``2 * n_agents`` on),
            ``(class_name, k, "alone")`` for rows with saboteurs in play but no opposing seat;
        penalty: float64 ``(p,)`` ridge of every column.
    """

    def __init__(self, table: RoundTable, lam: float):
        rules = table.rules
        n_agents = len(table.agents)
        dig = np.isin(table.role, np.asarray(rules.diggers, dtype=np.int64))
        sab = table.role == rules.saboteur
        keep = np.flatnonzero(dig | sab)
        if len(keep) == 0:
            raise ValueError("no gold-digger or saboteur rows to fit")
        # canonical row order: the fit does not depend on the order of the results
        order = np.lexsort(
            (table.seat[keep], table.round[keep], table.game[keep], table.deal[keep])
        )
        keep = keep[order]
        cls = sab[keep].astype(np.int64)
        agent = table.agent[keep]
        k = table.saboteurs[keep]
        # one round = one (game, round) pair
        key = np.stack([table.game[keep], table.round[keep]], axis=1)
        _, rnd = np.unique(key, axis=0, return_inverse=True)
        rnd = rnd.reshape(-1)
        seat_key = np.stack([rnd, table.seat[keep]], axis=1)
        if len(np.unique(seat_key, axis=0)) != len(keep):
            raise ValueError("a (game, round, seat) appears twice: game ids must be unique")
        n_rounds = int(rnd.max()) + 1
        # count[c][g, a]: seats of class c held by agent a in round g
        count = [
            np.bincount(
                rnd[cls == c] * n_agents + agent[cls == c], minlength=n_rounds * n_agents
            ).reshape(n_rounds, n_agents)
            for c in (0, 1)
        ]
        # seats opposing each row; a saboteur row may have none with k > 0 (Saboteur 2: only a
        # boss, profiteer or geologist opposite): its own alpha cell, or the level of the digger
        # ratings would not be free (absorbed by alpha) and the class would not be centred
        n_opp = np.where(cls == 0, count[1][rnd].sum(axis=1), count[0][rnd].sum(axis=1))
        alone = (n_opp == 0).astype(np.int64)
        cell_ids = sorted({(int(c), int(kk), int(a)) for c, kk, a in zip(cls, k, alone)})
        cell_col = {ck: i for i, ck in enumerate(cell_ids)}
        m, p = len(keep), 2 * n_agents + len(cell_ids)
        X = np.zeros((m, p))
        rows = np.arange(m)
        X[rows, cls * n_agents + agent] += 1.0  # own rating
        for c in (0, 1):  # minus the mean rating of the opposing class in the round
            opp = 1 - c
            sel = cls == c
            cnt = count[opp][rnd[sel]].astype(np.float64)
            tot = cnt.sum(axis=1, keepdims=True)
            X[np.ix_(sel, opp * n_agents + np.arange(n_agents))] -= np.divide(
                cnt, tot, out=np.zeros_like(cnt), where=tot > 0
            )
        X[
            rows,
            2 * n_agents
            + np.array([cell_col[(int(c), int(kk), int(a))] for c, kk, a in zip(cls, k, alone)]),
        ] = 1.0
        self.X, self.y, self.keep, self.cls, self.agent = X, table.won[keep], keep, cls, agent
        self.n_agents = n_agents
        self.cells = [(CLASSES[c], kk) + (("alone",) if a and kk else ()) for c, kk, a in cell_ids]
        self.penalty = np.concatenate(
            [np.full(2 * n_agents, max(lam, TINY)), np.full(len(cell_ids), TINY)]
        )

    def fit(self, w: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
        """Penalised maximum-likelihood coefficients, float64 ``(p,)``, for float64 ``(m,)``
        row weights ``w`` (Newton's method with step halving, from ``start`` or 0)."""
        X, y, pen = self.X, self.y, self.penalty
        beta = np.zeros(X.shape[1]) if start is None else start.copy()

        def objective(b: np.ndarray) -> float:
            eta = X @ b
            return float(w @ (y * eta - np.logaddexp(0.0, eta)) - 0.5 * pen @ (b * b))

        f = objective(beta)
        for _ in range(200):
            eta = X @ beta
            pr = 0.5 * (1.0 + np.tanh(0.5 * eta))  # stable sigmoid
            grad = X.T @ (w * (y - pr)) - pen * beta
            hess = (X * (w * pr * (1.0 - pr))[:, None]).T @ X + np.diag(pen)
            step = np.linalg.solve(hess, grad)
            t = 1.0
            while True:
                new = beta + t * step
                fn = objective(new)
                if fn >= f - 1e-12 * abs(f) or t < 1e-8:
                    break
                t *= 0.5
            beta, f = new, fn
            if np.max(np.abs(t * step)) < 1e-11:
                break
        return beta

    def summary(self, w: np.ndarray, beta: np.ndarray) -> np.ndarray:
        """float64 ``(n_agents, 3)`` Elo ratings [digger, saboteur, overall] of ``beta``, the
        overall one weighted by each agent's share of weighted rows in each class."""
        n = self.n_agents
        theta = ELO * beta[: 2 * n].reshape(2, n).T
        share = np.zeros((n, 2))
        np.add.at(share, (self.agent, self.cls), w)
        tot = share.sum(axis=1)
        overall = np.where(
            tot > 0,
            (theta * share).sum(axis=1) / np.where(tot > 0, tot, 1.0),
            np.nan,
        )
        return np.column_stack([theta, overall])


def _check_lam(lam: float) -> float:
    lam = float(lam)
    if not math.isfinite(lam) or lam < 0:
        raise ValueError(f"lam={lam}: the ridge strength must be a finite number >= 0")
    return lam


def fit_team_model(table: RoundTable, weights: np.ndarray | None = None, lam: float = 1.0) -> dict:
    """Fit the team model (module docstring) to a :class:`RoundTable`.

    Args:
        table: the rows of :func:`~saboteur_experiments.evaluation.outcomes.round_table`; who won is
            its ``won`` column (the side winners of RULES 5.3 / RULES 6.9).
        weights: float64 ``(len(table),)`` row weights (e.g. from
            :func:`~saboteur_experiments.evaluation.stats.cluster_weights`); default all 1.
        lam: ridge strength on theta (logit units), ``>= 0`` (0 is floored at 1e-6).

    Returns:
        ``{"theta": float64 (n_agents, 2) [gold-digger, saboteur] Elo-scale ratings,
        "overall": float64 (n_agents,) (NaN for an agent without rows),
        "alpha": {(class_name, k) or (class_name, k, "alone"): float logit}, "rows": int
        fitted rows,
        "beta": float64 (p,) raw coefficients}``.

    Raises:
        ValueError: for ``lam < 0`` (or not finite), weights of the wrong shape or negative,
            a table without digger or saboteur rows, or a (game, round, seat) seen twice.
    """
    lam = _check_lam(lam)
    design = _Design(table, lam)
    w_all = np.ones(len(table)) if weights is None else np.asarray(weights, dtype=np.float64)
    if w_all.shape != (len(table),) or (w_all < 0).any():
        raise ValueError(
            f"weights {w_all.shape} must be non-negative with shape ({len(table)},) (one per row)"
        )
    w = w_all[design.keep]
    beta = design.fit(w)
    out = design.summary(w, beta)
    n = design.n_agents
    return {
        "theta": out[:, :2],
        "overall": out[:, 2],
        "alpha": {cell: float(b) for cell, b in zip(design.cells, beta[2 * n :])},
        "rows": len(design.keep),
        "beta": beta,
    }


def _entry(value: float, lo: float, hi: float, rows: int) -> dict:
    if rows == 0 or not math.isfinite(value):
        return {"rating": None, "lo": None, "hi": None, "rows": 0}
    return {"rating": float(value), "lo": float(lo), "hi": float(hi), "rows": int(rows)}


def team_ratings(
    results: Sequence[dict],
    agents: Sequence[str],
    n_boot: int = 200,
    seed: int = 0,
    lam: float = 1.0,
    table: RoundTable | None = None,
) -> dict:
    """Team-model ratings of ``agents`` from game results, with deal-bootstrap intervals.

    Args:
        results: game results of :func:`saboteur_experiments.tournament.play` (one ruleset).
        agents: the agent names; every agent of every lineup must be one of them.
        n_boot: deal-bootstrap resamples (``>= 1``); ``seed``: their seed.
        lam: ridge strength on theta, ``>= 0``.
        table: ``round_table(results, agents)`` when the caller has it already.

    Returns:
        JSON-ready ``{"agents": {agent: {"gold-digger" | "saboteur" | "overall":
        {"rating", "lo", "hi", "rows"}}}, "deals": int, "rows": int, "model": str,
        "n_boot": int, "lam": float}``: ratings on the Elo scale, a 95% percentile interval,
        the agent's (unweighted) fitted rows; ``None`` ratings for a class without rows.
        The same for any order of ``results``.

    Raises:
        ValueError: for empty ``results``, an agent of a lineup not in ``agents``, duplicate
            names in ``agents``, ``lam < 0``, ``n_boot < 1``, results mixing rulesets, or
            results without a digger or saboteur row.
    """
    lam = _check_lam(lam)
    if not results:
        raise ValueError("team_ratings: no game results")
    agents = list(agents)
    if len(set(agents)) != len(agents):
        raise ValueError(f"agents {agents} name an agent twice")
    if n_boot < 1:
        raise ValueError(f"n_boot={n_boot}: at least one resample is needed")
    if table is None:
        table = round_table(results, agents)
    design = _Design(table, lam)
    deal = table.deal[design.keep]
    start = design.fit(np.ones(len(design.keep)))

    def stat(w: np.ndarray) -> np.ndarray:
        return design.summary(w, design.fit(w, start))

    point, reps = cluster_bootstrap(stat, deal, n_boot, seed)
    lo, hi = percentile_interval(reps)
    counts = np.zeros((len(agents), 2), dtype=np.int64)
    np.add.at(counts, (design.agent, design.cls), 1)
    out: dict = {}
    for i, a in enumerate(agents):
        n_rows = [int(counts[i, 0]), int(counts[i, 1]), int(counts[i].sum())]
        out[a] = {
            name: _entry(point[i, j], lo[i, j], hi[i, j], n_rows[j])
            for j, name in enumerate((*CLASSES, "overall"))
        }
    return {
        "agents": out,
        "deals": int(len(np.unique(deal))),
        "rows": int(len(design.keep)),
        "model": MODEL.format(lam=lam),
        "n_boot": int(n_boot),
        "lam": lam,
    }


def format_team_ratings(summary: dict) -> str:
    """A terminal table of :func:`team_ratings`: one line per agent, rating [lo, hi] (rows)
    per role class and overall."""
    cols = (*CLASSES, "overall")
    width = max([5] + [len(a) for a in summary["agents"]])
    head = f"{'agent':<{width}}  " + "  ".join(f"{c:>24}" for c in cols)
    lines = [
        f"team ratings (Elo scale, 95% deal-bootstrap, {summary['deals']} deals, "
        f"{summary['rows']} rows, {summary['n_boot']} resamples)",
        head,
    ]
    for a, entry in summary["agents"].items():
        cells = []
        for c in cols:
            e = entry[c]
            if e["rating"] is None:
                cells.append(f"{'-':>24}")
            else:
                txt = f"{e['rating']:+.0f} [{e['lo']:+.0f}, {e['hi']:+.0f}] ({e['rows']})"
                cells.append(f"{txt:>24}")
        lines.append(f"{a:<{width}}  " + "  ".join(cells))
    lines.append(summary["model"])
    return "\n".join(lines)
