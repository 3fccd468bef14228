"""The populations of the bluff benchmark: who plays the recorded games.

A population is an agent spec that every seat plays (:data:`POPULATIONS`, Saboteur 2
:data:`EXPANSION_POPULATIONS`); :func:`usable_populations` says which of them can play here and
why not the others (:func:`population_problem`), :func:`fingerprint` names the PPO checkpoint a
spec loads so that a new checkpoint gets new records.  What the benchmark does differently
per ruleset (its populations, record folders, defaults and labels) is data:
:data:`VARIANTS`, keyed by ``Ruleset.name``.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.ruleset import BASE, SABOTEUR_2, Ruleset, ruleset_of

#: the search saboteur's options (``ismcts``, :mod:`saboteur_agents.ismcts`): two of the
#: heuristic's candidates, four random rollouts each, about 0.5 s a 5-player game (heuristic
#: rollouts: about 11 s)
ISMCTS_SABOTEUR = "iters=4+top=2+rollout=random"
#: population name -> agent spec (every seat plays it; the heuristic styles differ only in how
#: their saboteurs play).  The ``heuristic-*`` populations share the heuristic gold-diggers, so
#: they isolate the saboteur policy (:mod:`saboteur_experiments.bluff.actors`): ``heuristic-mimic``
#: saboteurs play exactly like gold-diggers (the zero-sabotage reference of the frontier).
POPULATIONS = {
    "random": "random",
    "heuristic-blatant": "heuristic:blatant",
    "heuristic-subtle": "heuristic:subtle",
    # the PPO populations keep the checkpoint the benchmark's figures were measured with
    "ppo": "ppo:v1",
    "heuristic-mimic": "rolesplit:heuristic/mimic",
    "heuristic-randomsab": "rolesplit:heuristic/random",
    "heuristic-pposab": "rolesplit:heuristic/ppo:v1",
    "heuristic-ismctssab": f"rolesplit:heuristic/ismcts:{ISMCTS_SABOTEUR}",
    "heuristic": "heuristic",
    "heuristic-evasivesab": "rolesplit:heuristic/evasive",
    # the heuristic's scores played as a softmax (every seat): a heuristic-like population
    # whose action probabilities are known, so that it has a Bayes ceiling
    "softmax": "softmax",
}
#: saboteur policy of each population on the frontier (all play with heuristic gold-diggers)
FRONTIER = {
    "heuristic-mimic": "mimic (reference)",
    "heuristic-randomsab": "random",
    "heuristic-blatant": "heuristic blatant",
    "heuristic-subtle": "heuristic subtle",
    "heuristic-pposab": "ppo",
    "heuristic-ismctssab": "ismcts search",
    "heuristic-evasivesab": "evasive (vs bayes)",
    "heuristic": "heuristic default",
}
#: populations of the expansion track (``--expansion``, Saboteur 2): the heuristic in its three
#: styles (the styles differ only in how saboteurs play, so the non-saboteur seats play alike),
#: and the frontier's references with the same heuristic non-saboteurs (``rolesplit`` splits
#: saboteur against every other role; a mimic saboteur plays as the boss would), and the
#: Saboteur 2 PPO checkpoint the figures were measured with (``ppo:sab2-v1``) in every seat and
#: as the saboteur.
EXPANSION_POPULATIONS = {
    "random": "random",
    "heuristic": "heuristic",
    "heuristic-blatant": "heuristic:blatant",
    "heuristic-subtle": "heuristic:subtle",
    "heuristic-mimic": "rolesplit:heuristic/mimic",
    "heuristic-randomsab": "rolesplit:heuristic/random",
    "heuristic-ismctssab": f"rolesplit:heuristic/ismcts:{ISMCTS_SABOTEUR}",
    # the checkpoint the benchmark's figures were measured with (the shipped one since has a
    # prior, whose event-fed state the ceiling cannot follow through Swap your hats)
    "ppo": "ppo:sab2-v1",
    "heuristic-pposab": "rolesplit:heuristic/ppo:sab2-v1",
}
#: the frontier's anchors: the detection axis is 0 for the mimic saboteurs (nothing to detect)
#: and 1 for the blatant heuristic saboteurs (:func:`.report.bluff_frontier`)
MIMIC, BLATANT = "heuristic-mimic", "heuristic-blatant"


@dataclass(frozen=True)
class Variant:
    """What the benchmark does on one ruleset.

    Attributes:
        ruleset: the game (its roles, saboteur and gold-digger columns, role deck).
        populations: the default populations, name -> agent spec.
        folder: record sets live in ``records/<population>_<folder><N>``.
        players: the default player counts (``--players``).
        out: the default output folder (``--out``).
        heading: what the table titles start with.
        rate: the frontier's name for the gold-diggers' rate.
        rate_axis: the frontier plot's x-axis label.
        policy_samples: sampled states per decision of the ``policy-bayes`` spectator (0: not
            run; in Saboteur 2 a PPO population would cost about 6 CPU s a game with 8).
    """

    ruleset: Ruleset
    populations: Mapping[str, str]
    folder: str
    players: tuple[int, ...]
    out: str
    heading: str
    rate: str
    rate_axis: str
    policy_samples: int


#: ruleset name -> the benchmark on that ruleset.  Saboteur 2's frontier rate is the share of
#: rounds in which the gold is found (the saboteurs' loss; which digger team, the boss or the
#: profiteer then wins depends on the doors, RULES 6.9).
VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        BASE.name: Variant(
            BASE,
            POPULATIONS,
            "n",
            (5,),
            "runs/bluff",
            "",
            "digger win rate",
            "drop of the gold-diggers' round win rate vs mimic saboteurs",
            8,
        ),
        SABOTEUR_2.name: Variant(
            SABOTEUR_2,
            EXPANSION_POPULATIONS,
            "x",
            (5,),
            "runs/bluff-expansion",
            "Saboteur 2, ",
            "gold found",
            "drop of the share of rounds with the gold found vs mimic saboteurs",
            0,
        ),
    }
)


def variant(expansion: bool) -> Variant:
    """The benchmark on the ruleset that ``GameConfig(expansion=expansion)`` selects (the
    ``--expansion`` switch)."""
    return VARIANTS[ruleset_of(expansion).name]


def usable_populations(
    pops: Sequence[str],
    players: Sequence[int],
    expansion: bool = False,
    ppo: str | None = None,
) -> tuple[dict[str, str], list[str], dict[str, str]]:
    """The agent spec of every population, those that can play here and why the others
    cannot (:func:`population_problem`, e.g. no torch for a PPO population).

    Returns:
        ``(specs, usable, skipped)``: population -> spec, the usable populations in order,
        population -> reason.

    Raises:
        ValueError: no population can play.
    """
    table = variant(expansion).populations
    specs = {p: table.get(p, POPULATIONS.get(p, p)) for p in pops}
    if ppo:
        specs.update(
            {
                k: v
                for k, v in (
                    ("ppo", f"ppo:{ppo}"),
                    ("heuristic-pposab", f"rolesplit:heuristic/ppo:{ppo}"),
                )
                if k in specs
            }
        )
    skipped: dict[str, str] = {}
    usable: list[str] = []
    for pop in pops:
        why = population_problem(specs[pop], players[0], expansion)
        if why:
            skipped[pop] = why
        else:
            usable.append(pop)
    if not usable:
        raise ValueError(
            "no population can play: " + "; ".join(f"{k}: {v}" for k, v in skipped.items())
        )
    return specs, usable, skipped


def population_problem(spec: str, n_players: int, expansion: bool = False) -> str | None:
    """Why population ``spec`` cannot play ``n_players`` here (``None``: it can)."""
    try:
        from saboteur_agents import make_agent
        from saboteur_experiments.bluff import actors  # noqa: F401  (registers "rolesplit")

        a = make_agent(spec)
        a.reset(0, GameConfig(num_players=n_players, expansion=expansion), seed=0)
    except Exception as err:  # noqa: BLE001 - report any reason (missing torch, checkpoint)
        return f"{type(err).__name__}: {err}"
    return None


def policies(spec: str) -> dict[str, str]:
    """A population as a (saboteur policy, gold-digger policy) pair: ``rolesplit:D/S`` is
    ``{"saboteur": S, "digger": D}`` (``S = "mimic"``: D shown a gold-digger's view); the
    heuristic's styles differ only in how saboteurs play (``heuristic:subtle``: subtle
    saboteurs, ``heuristic`` gold-diggers); any other spec plays both roles."""
    name, _, opt = spec.partition(":")
    if name == "rolesplit":
        digger, _, saboteur = opt.partition("/")
        return {"saboteur": saboteur, "digger": digger}
    if name == "heuristic" and opt in ("blatant", "subtle"):
        return {"saboteur": spec, "digger": "heuristic"}
    return {"saboteur": spec, "digger": spec}


def _searches(spec: str) -> bool:
    """Whether the agent of ``spec`` is a search agent (``Agent.needs_game``: it reads the game
    through ``Game.determinize``); a spec that does not build is not."""
    from saboteur_agents import make_agent

    from . import actors  # noqa: F401  (registers rolesplit and the evasive saboteur)

    try:
        return bool(getattr(make_agent(spec), "needs_game", False))
    except Exception:
        return False


def fingerprint(spec: str, expansion: bool = False) -> str:
    """``spec``, plus the CRC-32 of every PPO checkpoint it loads (``ppo`` = the one shipped for
    the game ``expansion`` selects) or of the source file of a user's own agent (``MODULE.ATTR``:
    the module's file; modules it imports in turn are not followed), and for a search agent the
    revision of ``Game.determinize`` (its games change with it: ``determinize.REVISION``): what
    a record set is named by (:func:`.records.record_set`), so that a new checkpoint, an edit of
    the agent or a new determinization gets new records."""
    name, _, opt = spec.partition(":")
    if name == "rolesplit":
        digger, _, saboteur = opt.partition("/")
        return f"rolesplit:{fingerprint(digger, expansion)}/{fingerprint(saboteur, expansion)}"
    out = spec
    if "." in name:  # a user's agent (registered names have no dot)
        out += _crc_of(_module_file(name.rpartition(".")[0]))
    elif name == "ppo":
        from saboteur_agents.ppo import checkpoint_path

        out += _crc_of(checkpoint_path(opt, ruleset_of(expansion)))
    if _searches(spec):  # its games follow the engine's determinization
        from saboteur_env.engine.determinize import REVISION

        out += f"#determinize{REVISION}"
    return out


def _module_file(module: str) -> str | None:
    """The source file of the importable ``module`` (``None``: not found)."""
    import importlib.util

    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return None if found is None else found.origin


def _crc_of(path: str | None) -> str:
    """``"#<CRC-32 of the file>"``, or ``""`` when there is no such file."""
    if path is None:
        return ""
    try:
        return f"#{zlib.crc32(Path(path).read_bytes()):08x}"
    except OSError:
        return ""
