"""What a played round means for each seat: the outcome table every statistic is built on.

A game result is the plain dict of :func:`saboteur_experiments.tournament.play` (``lineup``,
``deal``, ``rounds`` with ``roles``, ``winners``, ``paid``, ...).  :func:`round_table` flattens a
list of them into one row per (game, round, seat), with the deal as the cluster of every interval
(:mod:`saboteur_experiments.evaluation.stats`): all seats of one deal share its cards, so they are
not independent observations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from saboteur_env.engine.ruleset import BASE, Ruleset, ruleset_named
from saboteur_env.engine.scoring import saboteurs_in_play as scoring_saboteurs_in_play
from saboteur_env.engine.scoring import seat_won


def result_ruleset(result: dict) -> Ruleset:
    """The ruleset a game result (or a tournament summary) names in ``"ruleset"`` (default:
    the base game).

    Raises:
        ValueError: for a name no ruleset has.
    """
    return ruleset_named(result.get("ruleset", BASE.name))


def role_won(rd: dict, seat: int, rules: Ruleset) -> bool:
    """Did ``seat`` win round ``rd`` (a round dict of the tournament's results):
    :func:`saboteur_env.engine.scoring.seat_won` of its fields."""
    return seat_won(rd["winners"], rd["roles"], rd.get("paid", ()), seat, rules)


def side_of(role: int, rules: Ruleset) -> str:
    """The side of a role id: ``"digger"`` (``Ruleset.diggers``: RULES 2.1, 6.2),
    ``"saboteur"`` or ``"other"`` (Saboteur 2's boss, profiteer, geologist)."""
    if role in rules.diggers:
        return "digger"
    return "saboteur" if role == rules.saboteur else "other"


def saboteurs_won(rd: dict, rules: Ruleset) -> bool:
    """Did the saboteurs win round ``rd``: a seat holding the saboteur role is in the round's
    winners set (RULES 5.3: the gold was not found; RULES 6.9: also the both-doors rule without
    a Boss; trapped saboteurs are not winners).  A round without a saboteur in play is never
    won by them, whether or not the gold was found (count those apart:
    :func:`saboteurs_in_play`)."""
    return any(rd["roles"][s] == rules.saboteur for s in rd["winners"])


def saboteurs_in_play(rd: dict, rules: Ruleset) -> int:
    """Number of seats holding the saboteur role at the end of round ``rd`` (the round
    result's roles: in Saboteur 2 after any Swap your hats, RULES 6.5; RULES 2.2: some role
    cards stay face down, so a 4-player base round has 0 or 1)."""
    return scoring_saboteurs_in_play(rd["roles"], rules)


@dataclass(frozen=True)
class RoundTable:
    """One row per (game, round, seat), all arrays of shape ``(rows,)``.

    Attributes:
        deal: int64 deal index (the cluster).
        deal_seed: int64 environment seed of the deal.
        game: int64 game id; ``round``: int64 round number (1-based); ``seat``: int64.
        agent: int64 index into ``agents``; ``role``: int64 role id of ``rules``.
        won: float64 1.0 when the seat won the round (:func:`role_won`), else 0.0.
        saboteurs: int64 saboteurs in play in that round (:func:`saboteurs_in_play`).
        gold: float64 gold the seat received in the round (Saboteur 2 thefts included).
        agents: the agent names; ``rules``: the ruleset of every game.
    """

    deal: np.ndarray
    deal_seed: np.ndarray
    game: np.ndarray
    round: np.ndarray
    seat: np.ndarray
    agent: np.ndarray
    role: np.ndarray
    won: np.ndarray
    saboteurs: np.ndarray
    gold: np.ndarray
    agents: tuple[str, ...]
    rules: Ruleset

    def __len__(self) -> int:
        return len(self.won)


#: the array columns of a :class:`RoundTable`
COLUMNS = tuple(f.name for f in fields(RoundTable) if f.name not in ("agents", "rules"))


def round_table(results: Sequence[dict], agents: Sequence[str] | None = None) -> RoundTable:
    """Flatten game results into a :class:`RoundTable`.

    Raises:
        ValueError: when ``results`` mix rulesets, or an agent of a lineup is not in
            ``agents`` (default: every agent of the lineups, in order of appearance).
    """
    if agents is None:
        agents = list(dict.fromkeys(a for r in results for a in r["lineup"]))
    idx = {a: i for i, a in enumerate(agents)}
    rules = result_ruleset(results[0]) if results else BASE
    cols: dict[str, list] = {k: [] for k in COLUMNS}
    for r in results:
        if result_ruleset(r) is not rules:
            raise ValueError(
                f"results mix rulesets: game {r['game_id']} is {result_ruleset(r).name}, "
                f"the first is {rules.name}"
            )
        for a in r["lineup"]:
            if a not in idx:
                raise ValueError(f"game {r['game_id']}: agent {a!r} is not one of {list(agents)}")
        for rd in r["rounds"]:
            nsab = saboteurs_in_play(rd, rules)
            for s, a in enumerate(r["lineup"]):
                cols["deal"].append(r["deal"])
                cols["deal_seed"].append(r["deal_seed"])
                cols["game"].append(r["game_id"])
                cols["round"].append(rd["round"])
                cols["seat"].append(s)
                cols["agent"].append(idx[a])
                cols["role"].append(rd["roles"][s])
                cols["won"].append(float(role_won(rd, s, rules)))
                cols["saboteurs"].append(nsab)
                cols["gold"].append(float(rd["received"][s]))
    arrays = {
        k: np.asarray(v, dtype=np.float64 if k in ("won", "gold") else np.int64)
        for k, v in cols.items()
    }
    return RoundTable(**arrays, agents=tuple(agents), rules=rules)
