"""Evaluation protocols: who sits where, on which deals (DESIGN 9).

``role-probe`` (:func:`role_probe`) - isolates how well a *candidate* plays one role.  For role
``q``, the deals are the first ``deals`` deals of the split (from ``first``) in which some seat
holds ``q`` in the (only) round; the probe seat is one of those seats (rotated by deal).  Each
such deal is played twice, one round each:

* the *reference game*: every seat is the reference agent;
* the *probe game*: the probe seat is the candidate, every other seat the reference agent.

Same deal, same roles, same agent seeds per seat, so the paired difference (candidate won minus
reference won, in that seat and role) measures the candidate's play of ``q`` and nothing else.
The reference game of a deal does not depend on the probe seat, so it is played once per deal
and shared by every role's probe.  Run for every role of the ruleset (base: gold-digger,
saboteur; Saboteur 2: its six roles).  One-round games: a role is fixed for one round only
(RULES 2.2 deals new role cards every round).  The probe is by the role *dealt*: in Saboteur 2
a Swap your hats card (RULES 6.5, 7.21) can give the probe seat another role during the round,
and the round is then scored under the role the seat holds at its end (RULES 6.9), as the game
does; the pairing is by the deal, so both games of a pair start from the same roles.

``mixed`` - the tournament's rotation (:func:`saboteur_experiments.tournament.schedule`): every
agent in every seat of every deal once; for ratings (:mod:`saboteur_experiments.evaluation.team`),
not for per-role claims, since each role's result there also contains the agent's play of the
others.

``external`` (:func:`external_protocol`) - the protocol of the one published Saboteur AI result
(4 players, base game, a saboteur candidate against three heuristic gold-diggers, the
saboteur's win rate over 500 games): ``role-probe`` for the saboteur at 4 players with the
heuristic as reference.  At 4 players at most one saboteur is in play, so the other three
seats are gold-diggers in every probed deal.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from saboteur_env.engine.ruleset import BASE, Ruleset, ruleset_of
from saboteur_experiments.evaluation.outcomes import role_won
from saboteur_experiments.evaluation.splits import DealSplit, agent_seed, deal_seeds, split_named
from saboteur_experiments.evaluation.stats import (
    Estimate,
    cluster_rate,
    paired_difference,
    paired_ratio,
)

#: published figures of the external protocol (their engine and bots, not ours)
EXTERNAL_PUBLISHED = {
    "BC + KL-regularised PPO saboteur (published)": 0.756,
    "their heuristic saboteur (published)": 0.348,
}
#: how far past ``deals`` a probe may scan the split for deals holding its role
SCAN_FACTOR = 200


def dealt_roles(deal_seed: int, players: int, expansion: bool = False) -> np.ndarray:
    """int64 ``(players,)``: the role of every seat in round 1 of the deal (RULES 2.2).

    Raises:
        saboteur_env.engine.config.ConfigError: for a player count the game does not allow.
    """
    import saboteur_env

    # only the deal is read: no kernels to load (the array backend's)
    env = saboteur_env.raw_env(
        num_players=players, num_rounds=1, expansion=expansion, backend="engine"
    )
    env.reset(seed=int(deal_seed))
    return np.asarray(env.game.roles, dtype=np.int64).copy()


@dataclass(frozen=True)
class Probe:
    """One probed (deal, role): the candidate plays ``role`` in ``seat``.

    Attributes:
        deal: the deal's index within its split (from the split's start).
        deal_seed: the environment seed of the deal.
        role: the role id (of the ruleset) dealt to ``seat`` in round 1.
        seat: the probe seat.
    """

    deal: int
    deal_seed: int
    role: int
    seat: int


def probe_deals(
    role: int,
    players: int,
    deals: int,
    split: DealSplit | str = "test",
    first: int = 0,
    expansion: bool = False,
    roles_cache: dict | None = None,
) -> list[Probe]:
    """The probes of ``role``: the first ``deals`` deals of ``split`` (from ``first``) in which
    a seat holds ``role``; the seat is the ``(k % m)``-th of the ``m`` seats holding it in the
    ``k``-th such deal.

    Raises:
        ValueError: for a role id the ruleset does not have, or when fewer than ``deals`` deals
            hold the role within ``SCAN_FACTOR * deals`` deals of the split.
    """
    rules = ruleset_of(expansion)
    if not 0 <= role < rules.n_roles:
        raise ValueError(f"role {role}: {rules.name} has roles 0-{rules.n_roles - 1}")
    s = split_named(split) if isinstance(split, str) else split
    cache = {} if roles_cache is None else roles_cache
    out: list[Probe] = []
    if not 0 <= first < s.size:
        raise ValueError(f"first deal {first}: the {s.name} split has deals 0-{s.size - 1}")
    limit = min(SCAN_FACTOR * max(deals, 1), s.size - first)
    for k, ds in enumerate(deal_seeds(s, limit, first)):
        if len(out) == deals:
            break
        if ds not in cache:
            cache[ds] = dealt_roles(ds, players, expansion)
        seats = np.flatnonzero(cache[ds] == role)
        if len(seats):
            out.append(Probe(first + k, ds, role, int(seats[len(out) % len(seats)])))
    if len(out) < deals:
        raise ValueError(
            f"only {len(out)} of {limit} {s.name} deals hold the role {rules.roles[role]!r} "
            f"at {players} players; {deals} were asked for"
        )
    return out


def probe_schedule(
    candidate: str,
    reference: str,
    players: int = 5,
    deals: int = 500,
    split: str = "test",
    first: int = 0,
    seed: int = 0,
    expansion: bool = False,
    roles: Sequence[int] | None = None,
    num_rounds: int = 1,
    roles_cache: dict | None = None,
) -> tuple[list, dict[int, list[tuple[Probe, int, int]]]]:
    """The games of a ``role-probe`` run: ``(tasks, pairs)`` where ``tasks`` are
    :class:`saboteur_experiments.tournament.Task` in game-id order and ``pairs[role]`` lists
    ``(probe, probe_game_id, reference_game_id)``.  ``roles_cache``: a dict of dealt roles by
    deal seed to share between calls on the same game (:func:`head_to_head`).

    Raises:
        ValueError: for an unknown split or role, or too few deals holding a role.
    """
    from saboteur_experiments.tournament import Task

    rules: Ruleset = ruleset_of(expansion)
    s = split_named(split)
    role_ids = list(range(rules.n_roles)) if roles is None else [int(r) for r in roles]
    cache: dict = {} if roles_cache is None else roles_cache
    config = (("expansion", rules.expansion),)
    tasks: list = []
    ref_game: dict[int, int] = {}
    probe_game: dict[tuple[int, int], int] = {}

    def task(deal: int, ds: int, lineup: tuple[str, ...], offset: int) -> int:
        # offset 0 in both games of a pair: the reference seats start alike
        seeds = tuple(agent_seed(seed, ds, 0, p) for p in range(players))
        tasks.append(Task(len(tasks), deal, ds, offset, lineup, seeds, num_rounds, "none", config))
        return len(tasks) - 1

    pairs: dict[int, list[tuple[Probe, int, int]]] = {}
    for q in role_ids:
        pairs[q] = []
        for p in probe_deals(q, players, deals, s, first, expansion, roles_cache=cache):
            if p.deal_seed not in ref_game:
                ref_game[p.deal_seed] = task(p.deal, p.deal_seed, (reference,) * players, 0)
            key = (p.deal_seed, p.seat)
            if key not in probe_game:
                lineup = tuple(candidate if i == p.seat else reference for i in range(players))
                probe_game[key] = task(p.deal, p.deal_seed, lineup, 1 + p.seat)
            pairs[q].append((p, probe_game[key], ref_game[p.deal_seed]))
    return tasks, pairs


def role_probe(
    candidate: str,
    reference: str,
    players: int = 5,
    deals: int = 500,
    split: str = "test",
    first: int = 0,
    seed: int = 0,
    expansion: bool = False,
    roles: Sequence[int] | None = None,
    workers: int = 1,
    progress: bool = False,
    num_rounds: int = 1,
    roles_cache: dict | None = None,
    backend: str = "local",
    address: str | None = None,
) -> dict:
    """Run the ``role-probe`` protocol (module docstring) of ``candidate`` against
    ``reference`` for every role (or the role ids in ``roles``).  Games have ``num_rounds``
    rounds (for agents trained on longer games); only round 1, where the role is fixed, is
    probed.  ``roles_cache``: as :func:`probe_schedule`.  ``backend``/``address``: where the
    games are played (:func:`saboteur_experiments.backends.map_tasks`; the same results).

    Returns a JSON-ready dict: ``{"protocol", "candidate", "reference", "players",
    "expansion", "split", "first", "seed", "games", "roles": {role name: {"deals",
    "role_changed", "candidate", "reference", "diff"}}}`` where the last three are
    :meth:`Estimate.as_dict` (win rates of the probe seat and their paired difference,
    deal-clustered; fractions) and ``role_changed`` counts the pairs in which the probe seat
    ended the round with another role in either game (Saboteur 2's Swap your hats); ``ratio``
    is the candidate's win rate over the reference's
    (:func:`~saboteur_experiments.evaluation.stats.paired_ratio`), ``None`` when the reference
    never won.

    Raises:
        ValueError: for an unknown split, role or agent spec, or too few deals holding a role.
    """
    from saboteur_experiments.tournament import run

    rules: Ruleset = ruleset_of(expansion)
    s = split_named(split)
    tasks, pairs = probe_schedule(
        candidate,
        reference,
        players,
        deals,
        s.name,
        first,
        seed,
        expansion,
        roles,
        num_rounds,
        roles_cache,
    )
    results = run(tasks, workers=workers, progress=progress, backend=backend, address=address)
    out_roles = {}
    for q, qpairs in pairs.items():
        cw, rw, clusters = [], [], []
        changed = 0
        for p, pg, rg in qpairs:
            rc = results[pg]["rounds"][0]
            rr = results[rg]["rounds"][0]
            changed += rc["roles"][p.seat] != q or rr["roles"][p.seat] != q  # Swap your hats
            cw.append(float(role_won(rc, p.seat, rules)))
            rw.append(float(role_won(rr, p.seat, rules)))
            clusters.append(p.deal_seed)
        c, r, cl = np.array(cw), np.array(rw), np.array(clusters)
        ratio = paired_ratio(c, r, cl)
        out_roles[rules.roles[q]] = {
            "deals": len(cl),
            "role_changed": int(changed),
            "candidate": cluster_rate(c, cl).as_dict(),
            "reference": cluster_rate(r, cl).as_dict(),
            "diff": paired_difference(c, r, cl).as_dict(),
            # None when the reference never won: no ratio (NaN is neither JSON nor equal to itself)
            "ratio": ratio.as_dict() if ratio.value == ratio.value else None,
        }
    return {
        "protocol": "role-probe",
        "candidate": candidate,
        "reference": reference,
        "players": players,
        "expansion": expansion,
        "ruleset": rules.name,
        "split": s.name,
        "first": first,
        "seed": seed,
        "num_rounds": num_rounds,
        "games": len(tasks),
        "roles": out_roles,
    }


def head_to_head(
    candidate: str,
    references: Sequence[str],
    players: int = 5,
    deals: int = 500,
    split: str = "test",
    first: int = 0,
    seed: int = 0,
    expansion: bool = False,
    workers: int = 1,
    progress: bool = False,
    num_rounds: int = 1,
    backend: str = "local",
    address: str | None = None,
) -> dict:
    """:func:`role_probe` of ``candidate`` against each reference: ``{"candidate", "players",
    "expansion", "split", "first", "deals", "seed", "against": {reference: role_probe(...)}}``.

    Raises:
        ValueError: as :func:`role_probe` (an unknown split, role or agent spec, too few deals
            holding a role, a checkpoint that does not fit the game).
    """
    cache: dict = {}  # the deals' dealt roles, the same for every reference
    return {
        "protocol": "role-probe",
        "candidate": candidate,
        "players": players,
        "expansion": expansion,
        "split": split,
        "first": first,
        "deals": deals,
        "seed": seed,
        "num_rounds": num_rounds,
        "against": {
            ref: role_probe(
                candidate,
                ref,
                players,
                deals,
                split,
                first,
                seed,
                expansion,
                workers=workers,
                progress=progress,
                num_rounds=num_rounds,
                roles_cache=cache,
                backend=backend,
                address=address,
            )
            for ref in references
        },
    }


def format_head_to_head(h2h: dict) -> str:
    """The head-to-head table: one line per reference and role.  Where the probe seat's role
    changed during the round in some pairs (Saboteur 2's Swap your hats), a last column counts
    them, with a note: such a pair scores the role the seat ended with."""
    game = ruleset_of(h2h["expansion"]).title
    changed = any(
        r.get("role_changed") for res in h2h["against"].values() for r in res["roles"].values()
    )
    lines = [
        f"role-probe: {h2h['candidate']} in one seat, every other seat the reference; "
        f"{game}, {h2h['players']} players, round 1 of {h2h.get('num_rounds', 1)}-round "
        f"games, {h2h['split']} deals from "
        f"{h2h['first']} ({h2h['deals']} per role), seed {h2h['seed']}; deal-clustered 95%",
        f"{'reference':<18} {'role':<12} {'deals':>5}  {'candidate win':>20}  "
        f"{'reference win':>20}  {'difference (points)':>22}"
        + (f"  {'role changed':>12}" if changed else ""),
    ]
    for ref, res in h2h["against"].items():
        for role, r in res["roles"].items():
            c, b, d = (Estimate(**r[k]) for k in ("candidate", "reference", "diff"))
            lines.append(
                f"{ref:<18} {role:<12} {r['deals']:>5}  {c.pct():>20}  {b.pct():>20}  "
                f"{d.pct(signed=True):>22}"
                + (f"  {r.get('role_changed', 0):>12}" if changed else "")
            )
    if changed:
        lines.append(
            "role changed: pairs in which the probe seat ended the round with another role in "
            "either game (Swap your hats, RULES 6.5); its win is judged by the role it ended with"
        )
    return "\n".join(lines)


def external_protocol(
    candidates: Sequence[str],
    deals: int = 500,
    split: str = "test",
    first: int = 0,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    backend: str = "local",
    address: str | None = None,
    reference: str = "heuristic",
) -> dict:
    """The external protocol (module docstring) for each candidate: its saboteur win rate in
    a 4-player base round against three ``reference`` gold-diggers (default: the heuristic;
    ``"heuristic:v1"`` reproduces figures measured before heuristic v2), over ``deals`` deals.

    Returns ``{"protocol": "external", "deals", "split", "first", "seed", "reference",
    "candidates": {spec: Estimate.as_dict() + {"reference": the reference's own
    saboteur win rate on the same deals and seats, "ratio": candidate over reference (paired
    deal bootstrap)} | {"error": text}}, "published":
    EXTERNAL_PUBLISHED}``; a checkpoint whose spaces do not fit 4 players gets
    ``{"error": ...}``, one trained at another player count (the base game's spaces are the
    same at every N) plays and gets ``"note": "trained at N players"``.

    Raises:
        ValueError: for an unknown split or agent spec, or too few deals holding a saboteur.
    """
    out: dict = {}
    for spec in candidates:
        try:
            res = role_probe(
                spec,
                reference,
                players=4,
                deals=deals,
                split=split,
                first=first,
                seed=seed,
                roles=[BASE.saboteur],
                workers=workers,
                progress=progress,
                backend=backend,
                address=address,
            )
        except ValueError as err:
            network = sys.modules.get("saboteur_agents.network")
            if network is None or not isinstance(err, network.CheckpointMismatchError):
                raise  # a deal range or spec problem, not this candidate's
            out[spec] = {"error": str(err).splitlines()[0]}
            continue
        probe = res["roles"][BASE.roles[BASE.saboteur]]
        out[spec] = dict(probe["candidate"], reference=probe["reference"], ratio=probe["ratio"])
        trained = trained_players(spec)
        if trained not in (None, 4):
            out[spec]["note"] = f"trained at {trained} players"
    return {
        "protocol": "external",
        "players": 4,
        "deals": deals,
        "split": split,
        "first": first,
        "seed": seed,
        "reference": reference,
        "candidates": out,
        "published": dict(EXTERNAL_PUBLISHED),
    }


def trained_players(spec: str) -> int | None:
    """The player count a ``ppo`` spec's checkpoint was trained at (``None`` for other agents
    or a checkpoint without that metadata)."""
    if spec.split(":", 1)[0] != "ppo":
        return None
    try:
        from saboteur_agents import make_agent
        from saboteur_agents.network import read_checkpoint
        from saboteur_agents.ppo import SHIPPED

        _, meta = read_checkpoint(make_agent(spec).path or SHIPPED[BASE.name])  # None: shipped
        return int(meta.get("game_config", {}).get("num_players"))
    except (OSError, ValueError, TypeError, ImportError, AttributeError):
        return None


def format_external(ext: dict) -> str:
    """The external protocol's table, ours beside the published figures."""
    ref = ext.get("reference", "heuristic")
    lines = [
        f"external protocol: base game, 4 players, the candidate as saboteur against three "
        f"{ref} gold-diggers, {ext['deals']} {ext['split']} deals from {ext['first']}; "
        "deal-clustered 95%",
        f"{'saboteur':<46} {'win rate':>22} {f'{ref} saboteur':>22} {'ratio (paired)':>22}",
    ]
    notes = []
    for spec, r in ext["candidates"].items():
        name = spec if len(spec) <= 46 else spec[:43] + "..."
        if "error" in r:
            lines.append(f"{name:<46} {r['error']}")
            continue
        est = Estimate(**{k: v for k, v in r.items() if k not in ("note", "reference", "ratio")})
        ref = Estimate(**r["reference"]).pct() if "reference" in r else ""
        ratio = "-"  # the reference saboteur never won: no ratio
        if r.get("ratio"):
            q = r["ratio"]
            ratio = f"{q['value']:.2f} [{q['lo']:.2f}, {q['hi']:.2f}]"
        lines.append(f"{name:<46} {est.pct():>22} {ref:>22} {ratio:>22}")
        if "note" in r:
            notes.append(f"({name}: {r['note']})")
    lines += notes
    for name, v in ext["published"].items():
        lines.append(f"{name:<46} {100 * v:>21.1f}%")
    lines.append("(published: their engine and their bots; ours: this engine and ours)")
    return "\n".join(lines)
