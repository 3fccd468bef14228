"""ISMCTSAgent: a determinized search agent over the heuristic's best candidates (DESIGN 6, 8).

``make_agent("ismcts")``, options ``"ismcts:iters=12+top=3+rollout=events+roles=belief+z=1"``
(the defaults; see :func:`parse_options`).

The choice of search: **determinized Monte Carlo** (perfect-information Monte Carlo, PIMC) with
candidate pruning, not a full information-set tree.  At each normal turn:

1. The agent's own :class:`~saboteur_agents.heuristic.HeuristicAgent` (fed the same observation,
   mask and ``info`` stream as the agent itself) scores every legal action
   (:meth:`~saboteur_agents.heuristic.HeuristicAgent.scores`); only its ``top`` best are searched.
2. Each *iteration* is one fresh determinization ``game.determinize(seat, rng)`` (a full state
   consistent with what the seat knows, RULES 3.5, 3.6, 6.5) and one rollout: apply the
   candidate, then play every seat with the rollout policy to the end of the current round.
   With ``roles=belief`` (default) the determinization's hidden roles are then redealt by the
   prior's role evidence (:meth:`ISMCTSAgent._deal_roles`: a seat the prior suspects is
   usually the saboteur of the sample), not uniformly.  The rollout policy (``rollout=``):
   ``events`` (default), the heuristic for every seat fed the events it could see, so its
   suspicion follows the public play, the candidate's included; ``heuristic``, the same
   event-blind (half the cost, but nobody in the rollout ever suspects anyone, so harm by a
   saboteur costs it nothing there); ``random``.
   The value is 1 when the agent's seat won that round
   (:func:`saboteur_env.engine.scoring.seat_won`: its side won, RULES 5.3; in Saboteur 2
   the winners set of RULES 6.9, a geologist when he was paid), else 0.
3. The budget is split equally over the candidates (``screen=N``: after N blocks over all of
   them, the rest goes to the prior's best and the best other), and the candidates share
   their determinizations: the j-th rollout of every candidate starts from the same
   determinized state with the same rollout seed (common random numbers), so that the
   comparison between candidates is not drowned in deal noise.  The prior's best is kept
   unless another candidate beats it in the paired comparison over those shared blocks by at
   least ``z`` standard errors (default 1; ``z=0``: the best mean wins); among those that
   do, the best mean wins; ties go to the heuristic's score.  A few win/loss rollouts cannot
   rank candidates a few points apart, and the prior is a strong player: the guard keeps its
   choice unless the search has evidence against it.

Measured (dev split, role-probe against ``heuristic`` at 5 players, 80 deals per role, points of
win rate, deal-clustered 95% intervals; with ``determinize`` revision 1, before it resampled the
base game's gold, which changes every sample drawn since, and not re-run): the old default
``iters=16+top=4+rollout=heuristic`` gold-digger +5.0 [-4.6, +14.4], saboteur -3.7 [-12.3,
+4.9]; ``roles=belief+z=1`` with it +6.3 [-3.7, +15.9], -8.7 [-18.3, +1.1]; the default +5.0
[-5.2, +15.0], +0.0 [-7.6, +7.6].

Why not a tree (SO-ISMCTS): with a few dozen rollouts per decision (a heuristic rollout of a
5-player round costs ~15-30 ms in pure Python, ~50 ms fed the events), a tree below the root
would hold one or two visits per node; the root-only, pruned search spends every rollout on
the decision at hand.

What the agent reads: its observation, mask and ``info`` (through its heuristic prior and the
env's :class:`~saboteur_env.encoding.codec.Codec`), and the live game **only** through
``self.game.determinize(self.seat, rng)``, never a hidden field.  ``determinize`` samples from
the seat's information set alone (each hidden pool is sorted before it is shuffled), so two
states that the seat cannot tell apart give the same actions for the same seed.

Sub-phase decisions (Saboteur 2's pass, remove and theft phases, RULES 6.7, 6.9) and decisions
with a single candidate take the heuristic's choice without a search.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from saboteur_env.encoding.codec import Codec, legal_indices
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.phases import Phase
from saboteur_env.engine.scoring import seat_won
from saboteur_env.engine.state import Game

from .base import Agent, register_agent
from .heuristic import HeuristicAgent

#: the rollout policies: every seat plays the heuristic, or uniformly random legal actions
ROLLOUTS = ("heuristic", "events", "random")

#: how the determinizations deal the other players' hidden roles: uniformly (what
#: ``Game.determinize`` samples) or weighted by the prior's role evidence
ROLES = ("belief", "uniform")

#: option name -> default (``time=None``: no time budget, only ``iters``)
DEFAULTS: dict[str, object] = {
    "iters": 12,
    "top": 3,
    "rollout": "events",
    "roles": "belief",
    "z": 1.0,
    "screen": 0,
    "time": None,
}

#: rejection-sampling tries for a belief-weighted role deal (then the heaviest deal seen)
_ROLE_TRIES = 200

#: a rollout longer than this many decisions is a bug (a round of the largest game has a
#: few hundred decisions at most: the deck is finite)
_MAX_ROLLOUT = 10_000


@dataclass
class SearchStats:
    """What the agent's searches cost, summed since :meth:`ISMCTSAgent.reset` (for benchmarks).

    Attributes:
        decisions: decisions taken; ``searched``: those that ran a search.
        rollouts: rollouts run; ``steps``: decisions played inside them.
        rollout_seconds: CPU seconds (``time.process_time``) spent in rollouts.
        search_seconds: CPU seconds spent in whole searches (determinizations included).
        last: the last search: ``candidates`` (flat actions), ``means`` (their mean rollout
            values) and ``rollouts``.
    """

    decisions: int = 0
    searched: int = 0
    rollouts: int = 0
    steps: int = 0
    rollout_seconds: float = 0.0
    search_seconds: float = 0.0
    last: dict[str, Any] = field(default_factory=dict)


def parse_options(option: str) -> dict[str, object]:
    """Parse the option part of an ``ismcts`` spec: ``key=value`` pairs joined by ``+``.

    Keys: ``iters`` (int >= 1, rollouts per decision, default 12), ``top`` (int >= 1, the
    heuristic's best actions searched, default 3), ``rollout`` (``events``, the default:
    heuristic players fed the events they could see; ``heuristic``: the same event-blind;
    ``random``), ``roles`` (``belief``, the default: the other players' hidden roles redealt
    by the prior's role evidence, see :meth:`ISMCTSAgent._deal_roles`; ``uniform``: as
    ``Game.determinize`` deals them), ``z`` (float >= 0, default 1: a candidate replaces the
    prior's best only when it beats it by at least ``z`` standard errors in the paired
    comparison over the shared determinizations; ``0``: the best mean wins), ``screen``
    (int >= 0: after this many blocks over every candidate the rest of the budget goes to the
    prior's best and the best other candidate; ``0``, the default: an equal split), ``time``
    (float > 0, CPU seconds per decision by ``time.process_time``; without ``iters`` the
    search runs until the time is spent, with it whichever ends first; not reproducible, for
    users only).  ``""`` gives the defaults
    (:data:`DEFAULTS`).  ``+`` joins options because the command line splits agent lists on
    commas.

    Returns:
        ``{"iters": int | None, "top": int, "rollout": str, "roles": str, "z": float,
        "screen": int, "time": float | None}``.

    Raises:
        ValueError: an unknown option (the message names it and the valid ones), a repeated
            option, a pair without ``=``, or a bad value.
    """
    opts = dict(DEFAULTS)
    if not option:
        return opts
    seen: set[str] = set()
    valid = sorted(DEFAULTS)
    for part in option.split("+"):
        key, eq, value = part.partition("=")
        if not eq or key not in DEFAULTS:
            raise ValueError(
                f"ismcts: bad option {part!r}; valid options: {valid} as key=value joined "
                "by '+', e.g. 'ismcts:iters=64+top=4'"
            )
        if key in seen:
            raise ValueError(f"ismcts: option {key!r} given twice in {option!r}")
        seen.add(key)
        opts[key] = _option_value(key, value)
    if "time" in seen and "iters" not in seen:
        opts["iters"] = None  # a time budget alone: search until the time is spent
    return opts


def _option_value(key: str, value: str) -> object:
    """One option's value, checked (see :func:`parse_options`)."""
    if key in ("rollout", "roles"):
        valid = ROLLOUTS if key == "rollout" else ROLES
        if value not in valid:
            raise ValueError(f"ismcts: {key}={value!r}; valid: {list(valid)}")
        return value
    if key == "screen":
        if not value.isdigit():
            raise ValueError(f"ismcts: screen={value!r} is not an int >= 0")
        return int(value)
    if key == "z":
        try:
            z = float(value)
        except ValueError:
            raise ValueError(f"ismcts: z={value!r} is not a number") from None
        if not z >= 0 or not math.isfinite(z):
            raise ValueError(f"ismcts: z={value!r} must be a finite number >= 0")
        return z
    try:
        number: float = int(value) if key in ("iters", "top") else float(value)
    except ValueError:
        kind = "an int" if key in ("iters", "top") else "a number of seconds"
        raise ValueError(f"ismcts: {key}={value!r} is not {kind}") from None
    if not number > 0 or not math.isfinite(number):
        raise ValueError(f"ismcts: {key}={value!r} must be positive")
    return number


class ISMCTSAgent(Agent):
    """Determinized search over the heuristic's ``top`` candidates (see the module docstring).

    Args:
        option: the spec's option string (:func:`parse_options`), e.g. ``"iters=64+top=4"``.

    Raises:
        ValueError: a bad option (:func:`parse_options`).

    Attributes:
        iters, top, rollout, time_budget: the parsed options.
        stats: the :class:`SearchStats` of the game so far.
    """

    name = "ismcts"
    needs_game = True

    def __init__(self, option: str = "") -> None:
        opts = parse_options(option)
        self.iters: int | None = opts["iters"]  # type: ignore[assignment]
        self.top: int = opts["top"]  # type: ignore[assignment]
        self.rollout: str = opts["rollout"]  # type: ignore[assignment]
        self.time_budget: float | None = opts["time"]  # type: ignore[assignment]
        self.roles: str = opts["roles"]  # type: ignore[assignment]
        self.z: float = opts["z"]  # type: ignore[assignment]
        self.screen: int = opts["screen"]  # type: ignore[assignment]
        self._config: GameConfig | None = None
        self.game: Game | None = None
        self.stats = SearchStats()

    # --- lifecycle ---------------------------------------------------------------------
    def reset(self, seat: int, config: GameConfig, seed: int | None = None) -> None:
        """A new game: seat, config and the agent's generator; the attached game is dropped
        (the loop attaches the new one, :func:`saboteur_agents.base.attach_game`)."""
        super().reset(seat, config, seed)
        if self._config != config:
            self._config = config
            self.codec = Codec(config)
            self.encoder = ObservationEncoder(config)
            # one reusable rollout player per seat (reset before every rollout)
            self._players = [HeuristicAgent() for _ in range(config.num_players)]
        self.prior = HeuristicAgent()
        self.prior.reset(seat, config, seed=int(self.rng.integers(2**63)))
        self.game = None
        self.stats = SearchStats()

    # --- acting --------------------------------------------------------------------------
    def act(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        info: dict[str, Any] | None = None,
    ) -> int:
        """Choose a legal flat action (see :meth:`saboteur_agents.base.Agent.act`).

        Raises:
            RuntimeError: no game attached (call :func:`saboteur_agents.base.attach_game` after
                :meth:`reset`), or the attached game is not at this seat's decision.
            ValueError: the mask has no legal action.
        """
        if self.game is None:
            raise RuntimeError(
                "ISMCTSAgent.act: no game attached; call "
                "saboteur_agents.base.attach_game(agents, game) (or agent.attach(game)) after "
                "reset(), as saboteur_experiments.play.play_game does"
            )
        # the prior sees every decision, as the heuristic itself would (its beliefs and maze
        # are replayed from the info events)
        legal, scores = self.prior.scores(observation, action_mask, info)
        self.stats.decisions += 1
        order = np.argsort(-scores, kind="stable")
        best = int(legal[order[0]])
        if (
            len(legal) == 1
            or self.encoder.phase_of(self.encoder.views(np.asarray(observation))) is not Phase.TURN
        ):
            return best
        keep = [i for i in order[: self.top] if np.isfinite(scores[i])] or [order[0]]
        if len(keep) == 1:
            return best
        return self._search(legal[keep], scores[keep])

    def _search(self, candidates: np.ndarray, prior: np.ndarray) -> int:
        """The candidate with the best mean rollout value (ties: the best prior).

        Args:
            candidates: int64 ``(k,)`` flat legal actions, best prior first.
            prior: float64 ``(k,)`` their heuristic scores.
        """
        assert self.game is not None
        t0 = time.process_time()
        deadline = None if self.time_budget is None else t0 + self.time_budget
        k = len(candidates)
        budget = math.inf if self.iters is None else self.iters
        n = self.config.num_players
        actions = [self.codec.decode(int(c), self.seat, n) for c in candidates]
        values: list[np.ndarray] = []  # one row of k rollout values per block (NaN: not run)
        live = list(range(k))  # the candidates the blocks still run
        used = 0
        evidence = self.prior.beliefs.L if self.roles == "belief" else None
        while not values or (
            used + len(live) <= budget and (deadline is None or time.process_time() < deadline)
        ):
            if self.screen and len(values) == self.screen and len(live) > 2:
                # screened: the rest of the budget goes to the prior's best and the best other
                means = np.nanmean(np.array(values), axis=0)
                other = int(np.lexsort((prior[1:], means[1:]))[-1]) + 1
                live = [0, other]
                if used + len(live) > budget:
                    break
            det = self.game.determinize(self.seat, self.rng)
            if det.current != self.seat or det.game_over:
                raise RuntimeError(
                    f"ISMCTSAgent: the attached game is not at seat {self.seat}'s decision "
                    f"(seat {det.current} to act); attach the game being played"
                )
            if evidence is not None:
                self._deal_roles(det, evidence)
            seed = int(self.rng.integers(2**63))
            r0 = len(det.round_results)
            row = np.full(k, np.nan)
            for i in live:
                sim = det.copy()
                sim.apply(actions[i])  # verified: legal in the live game, so legal here
                row[i] = self._rollout(sim, r0, np.random.default_rng(seed))
            values.append(row)
            used += len(live)
        v = np.array(values)
        means = np.nanmean(v, axis=0)
        eligible = np.zeros(k, dtype=bool)
        eligible[live] = True
        pick = self._pick(v, means, prior, eligible)
        self.stats.searched += 1
        self.stats.search_seconds += time.process_time() - t0
        self.stats.last = {
            "candidates": candidates.tolist(),
            "means": means.tolist(),
            "rollouts": used,
        }
        return int(candidates[pick])

    def _pick(
        self, v: np.ndarray, means: np.ndarray, prior: np.ndarray, eligible: np.ndarray
    ) -> int:
        """The index of the chosen candidate: the best mean among the prior's best (index 0)
        and the candidates that beat it significantly in the paired comparison over the
        shared blocks (mean difference > 0 and at least ``z`` standard errors; ``z=0``: any
        candidate with a better mean); ties go to the better prior.

        Args:
            v: float64 ``(blocks, k)`` rollout values (NaN: not run); ``means`` its column
                means; ``prior`` float64 ``(k,)`` the heuristic's scores; ``eligible`` bool
                ``(k,)``: the candidates still run at the end (index 0 always is).
        """
        ok = np.zeros(len(means), dtype=bool)
        ok[0] = True
        for i in np.flatnonzero(eligible[1:]) + 1:
            d = v[:, i] - v[:, 0]
            d = d[~np.isnan(d)]
            m = len(d)
            dm = float(d.mean())
            if dm <= 0:
                continue
            if self.z == 0:
                ok[i] = True
                continue
            if m < 2:
                continue
            se = float(d.std(ddof=1)) / math.sqrt(m)
            ok[i] = se == 0 or dm >= self.z * se
        # lexsort: the last key is the primary one
        order = np.lexsort((prior, np.where(ok, means, -np.inf)))
        return int(order[-1])

    def _deal_roles(self, det: Game, evidence: np.ndarray) -> None:
        """Redeal ``det``'s hidden roles (the other seats' roles not inspected, and the cards
        set aside) weighted by the prior's evidence: each deal of the same cards has weight
        ``exp(sum of evidence[s, role of s])`` over those seats times its uniform chance, the
        posterior of :class:`saboteur_agents.heuristic.belief.AssignmentBelief`, by rejection
        sampling from uniform permutations (after ``_ROLE_TRIES`` rejections the heaviest deal
        seen).  Once the roles are revealed (``Game.roles_revealed``: Saboteur 2's thefts,
        RULES 5.1, 6.9) nothing is redealt.

        Args:
            det: a determinization (``Game.determinize``); changed in place.
            evidence: float64 ``(n, n_roles)``, the prior's per-seat log-likelihoods.
        """
        known = det.roles_known_to(self.seat)  # all once face up (Saboteur 2's thefts)
        free = [s for s in range(det.n) if not known[s]]
        if not free or not evidence[free].any():
            return
        pool = np.array([det.roles[s] for s in free] + list(det.set_aside), dtype=np.int64)
        ev = evidence[free]
        top = ev.max(axis=1).sum()
        cols = np.arange(len(free))
        best, best_w = pool, -math.inf
        for _ in range(_ROLE_TRIES):
            deal = self.rng.permutation(pool)
            w = float(ev[cols, deal[: len(free)]].sum()) - top
            if self.rng.random() < math.exp(w):
                best = deal
                break
            if w > best_w:
                best, best_w = deal, w
        det.roles[free] = best[: len(free)]
        det.set_aside = [int(r) for r in best[len(free) :]]

    # --- rollouts ------------------------------------------------------------------------
    def _rollout(self, sim: Game, r0: int, rng: np.random.Generator) -> float:
        """Play ``sim`` to the end of round ``r0`` (an index into ``sim.round_results``: the
        round of the decision searched, which the candidate may have ended) with the rollout
        policy for every seat; 1.0 when the agent's seat won that round (RULES 5.3, 6.9),
        else 0.0."""
        t0 = time.process_time()
        steps = 0
        if self.rollout != "random":
            steps = self._heuristic_rollout(sim, rng, r0, self.rollout == "events")
        else:
            codec, n = self.codec, sim.n
            while len(sim.round_results) == r0 and not sim.game_over:
                # uniform over the env's mask: about twice as fast as Game.legal_actions,
                # which builds every structured action
                legal = legal_indices(codec.mask(sim))
                s = sim.current
                sim.apply(codec.decode(int(legal[rng.integers(len(legal))]), s, n), verify=False)
                steps += 1
                if steps > _MAX_ROLLOUT:
                    raise RuntimeError("ISMCTSAgent: a rollout did not end its round")
        res = sim.round_results[r0]
        won = seat_won(res.winners, res.roles, res.paid, self.seat, sim.rules)
        st = self.stats
        st.rollouts += 1
        st.steps += steps
        st.rollout_seconds += time.process_time() - t0
        return 1.0 if won else 0.0

    def _heuristic_rollout(
        self, sim: Game, rng: np.random.Generator, r0: int, events: bool = False
    ) -> int:
        """Every seat played by this agent's rollout players (:func:`heuristic_playout`);
        returns the decisions played."""
        return heuristic_playout(
            sim, self._players, self.config, self.codec, self.encoder, rng, r0, events
        )


def heuristic_playout(
    sim: Game,
    players: list[HeuristicAgent],
    config: GameConfig,
    codec: Codec,
    encoder: ObservationEncoder,
    rng: np.random.Generator,
    r0: int,
    events: bool = False,
) -> int:
    """Play ``sim`` to the end of round ``r0`` (an index into ``sim.round_results``) with
    ``players[s]`` (reset here, seeded from ``rng``) in every seat ``s``, through the env's own
    encoder and codec (the observation and mask that seat would get from the env).  Shared by
    the search agent's rollouts and the search targets of
    :mod:`saboteur_experiments.search_targets`.

    ``events=False`` (``rollout=heuristic``): the players get no events (``info=None``): their
    maze is rebuilt from the observation at every decision, and their role beliefs stay at the
    exact prior, so they never suspect anyone (a saboteur's harm in the rollout costs it
    nothing).  ``events=True`` (``rollout=events``): each gets the events it could see in
    ``sim`` (the public ones and its own; a determinization has dropped the others' private
    ones), the history at its first decision and the new ones after, as the env's ``info``
    would give them, so their suspicion follows the public play; slower.

    Args:
        sim: the game, changed in place.
        players: one heuristic per seat.
        config, codec, encoder: the game's config and the env's codec and encoder for it.
        rng: seeds the players (the same seed: the same play, common random numbers).
        r0: the round to finish.
        events: feed the players their events (above).

    Returns:
        The decisions played.

    Raises:
        RuntimeError: the round did not end within ``_MAX_ROLLOUT`` decisions (a bug).
    """
    n = sim.n
    for s, p in enumerate(players):
        p.reset(s, config, seed=int(rng.integers(2**63)))
    steps = 0
    seen = [0] * n  # per seat: the events of sim.events already given to it
    while len(sim.round_results) == r0 and not sim.game_over:
        s = sim.current
        mask = codec.mask(sim)
        info = None
        if events:
            new = [e for e in sim.events[seen[s] :] if e.seen_by(s)]
            seen[s] = len(sim.events)
            info = {"events": new}
        a = players[s].act(encoder.encode(sim, s), mask, info)
        # the mask is the engine's legal set of this state: no second check
        sim.apply(codec.decode(a, s, n), verify=False)
        steps += 1
        if steps > _MAX_ROLLOUT:
            raise RuntimeError("heuristic_playout: a rollout did not end its round")
    return steps


register_agent("ismcts", ISMCTSAgent)

__all__ = [
    "DEFAULTS",
    "ROLLOUTS",
    "ISMCTSAgent",
    "SearchStats",
    "heuristic_playout",
    "parse_options",
]
