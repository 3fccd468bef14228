"""PPO self-play training of the Saboteur policy (``saboteur train``; the base game, RULES 1-5,
or Saboteur 2 with ``--expansion``, RULES 6).

One shared :class:`~saboteur_agents.network.PolicyValueNet` plays every *learning* seat.  Each game,
one seat chosen uniformly at random always plays the current policy (so the latest policy is never
excluded), and every other seat draws its player from an :class:`OpponentPool`: the current
policy (another learning seat), a frozen past snapshot, the heuristic agent, the random agent
or the search agent (``--search-agent``), with configurable weights.  Seats are uniform and
roles are dealt by the game, so every pool entry plays every seat and role.

Trajectories are kept per (game slot, seat): a seat's step ``t`` is its ``t``-th decision,
and every reward the environment hands that seat (rewards arrive to *every* agent when a round
ends, also to seats that did not act) is added to that seat's most recent decision.  A reward
that arrives before the seat's first decision of the game has no decision to credit and is
counted in ``uncredited_rewards``.  When the game ends, GAE is computed over each learning
seat's own trajectory (``done`` at its last decision).  Only finished games enter a PPO batch;
games still running when an iteration ends continue into the next one (their decisions keep
the behaviour log-probabilities they were sampled with, which the PPO ratio uses).

Warm start (``bc_decisions``, default 30,000; 0 turns it off): before PPO, all-heuristic
games are played and the network is fitted to the heuristic's decisions (masked cross-entropy)
and to their returns (value); the wall-clock budget (``minutes``) includes this phase, which
stops collecting at a quarter of it and fitting at half, so that PPO keeps the rest.  Reward
shaping (``shaping``, default 1.0): a potential-based bonus for the tunnel's progress toward the
goals, signed by role (:class:`ProgressPotential`).

The ``num_envs`` games are the slots of one batched engine
(:class:`~saboteur_env.vector.VectorGame`, bit-identical to as many ``raw_env``s): at every tick,
each game's seat to act is grouped by its player, each network (current or snapshot) runs once
on the whole group, the agents of the pool act one by one, and one ``step`` plays every game.
Every deal comes from the train split (:func:`draw_train_seed`, DESIGN 9).

``--overlap`` runs the PPO update of one batch in a second thread while the next batch is
collected: the collector plays the current seats with a copy of the network (the behaviour
policy), refreshed after every update, so a batch is learned one update after the policy that
collected it (the PPO ratio is taken to that policy, whose log-probabilities the steps keep).
The learner has its own random stream and the collector never reads the learner's network, so a
seed gives the same run whatever the threads' timing.  The update's heavy work runs in torch
without the GIL, so the two threads use two cores.  ``--precision bf16`` runs the update's
forward pass under bfloat16 autocast.  ``--prior SPEC`` (e.g. ``softmax:t=0.1``) makes the
policy an agent's logits plus the network's, a residual that starts at 0
(:meth:`PolicyValueNet.start_at_prior`): every network seat keeps that agent, fed the seat's
events, each step keeps its prior logits, and the update adds them as the collector did.

Outputs in ``--out`` (default ``runs/ppo``): ``metrics.csv`` (one row per iteration; its
``decisions_per_s`` is per wall second of the iteration, numba's compiling included: on a fresh
install, or after a kernel's source changed, iteration 1 compiles the engine's and the
heuristic's loops, tens of seconds, which its ``compile_s`` gives; 0 once numba's cache holds
them, :class:`CompileClock`),
``eval.csv``, TensorBoard event files in ``tb/`` (``tensorboard``, in the ``train`` extra),
``learning_curve.png`` (if matplotlib is installed), ``checkpoints/iter_XXXX.pt``,
``checkpoints/eval_latest.pt`` (the policy of the last evaluation), ``checkpoints/best_dev.pt``
(the evaluated policy with the best :func:`dev_score`: checkpoint selection on dev deals only,
DESIGN 9) and ``final.pt`` (+ ``.json``
metadata; also written when training is stopped with Ctrl-C, or by ``kill`` (SIGTERM) on the
command line).  With ``--privileged-critic`` the critic is written beside each of these but
``eval_latest.pt`` (``final.critic.pt``, ...: :func:`save_critic`); the policy checkpoints
hold the policy network alone.  An earlier run's outputs in ``--out`` are removed when the
run starts (``train_options.clear_run``; the command line refuses such an ``--out`` unless
``--overwrite`` is given).  Bad options are usage errors
naming the option and value (:meth:`TrainConfig.problems`), found before anything is trained.
"""

from __future__ import annotations

import copy
import csv
import json
import math
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

import saboteur_env
from saboteur_agents.base import Agent, attach_game, make_agent
from saboteur_agents.network import (
    PolicyValueNet,
    PrivilegedCritic,
    add_prior,
    env_spec,
    masked_entropy,
    masked_log_probs,
    prior_agent,
    prior_mismatch,
    prior_rows,
    sample_masked,
    save_checkpoint,
)
from saboteur_env.encoding.spec import BoardChannel
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import route_events
from saboteur_env.engine.scoring import seat_won
from saboteur_env.engine.state import Game
from saboteur_env.vector import VectorGame
from saboteur_experiments.evaluation.splits import draw_train_seed
from saboteur_experiments.evaluation.stats import error_bars
from saboteur_experiments.jsonio import write_json
from saboteur_experiments.train_options import (  # re-exported: the options live there
    TrainConfig,
    clear_run,
    evaluate_parser,
    parse_args,
)

#: set by ``kill`` (SIGTERM) on the command line (:func:`main`): the run stops at the next safe
#: point (a decision of the batch, a warm-start minibatch, an iteration's end) as if its
#: budget were spent, and writes ``final.pt``.  A flag, not an exception: an exception raised
#: by the signal inside numba's compiler or torch would be lost or leave them half done.
STOP = threading.Event()


def _due(deadline: float | None) -> bool:
    """Whether a phase must stop: ``kill`` was received (:data:`STOP`) or ``deadline`` (a
    ``time.perf_counter()`` value; ``None``: none) is reached."""
    return STOP.is_set() or (deadline is not None and time.perf_counter() >= deadline)


class CompileClock:
    """The seconds this process has spent in numba's compiler since :meth:`start`: loops
    compiled, not those read from numba's cache (numba's event API, the ``numba:compile``
    event, nested compiles counted once; always 0 without numba).  It gives ``compile_s`` in
    ``metrics.csv``: on a fresh install the first iteration compiles the engine's and the
    heuristic's loops, tens of seconds inside its ``decisions_per_s``."""

    def __init__(self) -> None:
        self._listener = None
        self._registered = False

    def start(self) -> CompileClock:
        from saboteur_env.compiled import enabled

        if enabled() and not self._registered:
            from numba.core import event

            self._listener = event.TimingListener()
            event.register("numba:compile", self._listener)
            self._registered = True
        return self

    def stop(self) -> None:
        """Stop counting (:meth:`seconds` keeps the count; a later :meth:`start` begins anew)."""
        if self._listener is not None and self._registered:
            from numba.core import event

            event.unregister("numba:compile", self._listener)
            self._registered = False

    def seconds(self) -> float:
        """Seconds compiled since :meth:`start` (compiles still running not yet counted)."""
        listener = self._listener
        return float(listener.duration) if listener is not None and listener.done else 0.0


# --- the opponent pool --------------------------------------------------------------------
class OpponentPool:
    """Who plays a non-anchor seat: ``"current"``, ``"snapshot:<i>"``, or an agent of
    :data:`POOL_AGENTS` (``"heuristic"``, ``"random"``, ``"search"``).

    ``weights`` gives the share of ``current``, ``snapshots`` (split evenly among the stored
    snapshots) and each pool agent.  An entry that is unavailable (no snapshot yet, no
    heuristic agent installed) has its share spread over the others in proportion to their
    weights; :meth:`probabilities` shows the effective distribution.  ``agents`` maps a pool
    agent to its :func:`~saboteur_agents.base.make_agent` spec (default :data:`POOL_AGENTS`).

    Raises:
        ValueError: an unknown key, a negative weight, or all weights 0.
    """

    def __init__(
        self,
        weights: dict[str, float],
        max_snapshots: int = 8,
        heuristic_available: bool | None = None,
        agents: dict[str, str] | None = None,
    ) -> None:
        self.agents = dict(POOL_AGENTS if agents is None else agents)
        keys = {"current", "snapshots", *self.agents}
        bad = set(weights) - keys
        if bad or any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
            raise ValueError(
                f"pool weights {weights}: keys {'/'.join(sorted(keys))}, non-negative, not all zero"
            )
        self.weights = dict(weights)
        self.max_snapshots = max_snapshots
        self.snapshots: list[tuple[str, PolicyValueNet]] = []
        if heuristic_available is None:
            heuristic_available = _heuristic_available()
        self.heuristic_available = heuristic_available

    def add_snapshot(self, name: str, net: PolicyValueNet) -> None:
        frozen = copy.deepcopy(net).eval()
        for p in frozen.parameters():
            p.requires_grad_(False)
        self.snapshots.append((name, frozen))
        if len(self.snapshots) > self.max_snapshots:
            self.snapshots.pop(0)

    def probabilities(self) -> dict[str, float]:
        entries: dict[str, float] = {"current": self.weights.get("current", 0.0)}
        if self.snapshots:
            share = self.weights.get("snapshots", 0.0) / len(self.snapshots)
            for i in range(len(self.snapshots)):
                entries[f"snapshot:{i}"] = share
        for key in self.agents:
            # the heuristic and the search agent (built on it) need the heuristic package
            if key == "random" or self.heuristic_available:
                entries[key] = self.weights.get(key, 0.0)
        total = sum(entries.values())
        if total <= 0:
            return {"current": 1.0}
        return {k: v / total for k, v in entries.items() if v > 0}

    def sample(self, rng: np.random.Generator, size: int | None = None):
        probs = self.probabilities()
        keys = list(probs)
        idx = rng.choice(len(keys), size=size, p=np.array(list(probs.values())))
        if size is None:
            return keys[int(idx)]
        return [keys[int(i)] for i in idx]

    def net(self, key: str) -> PolicyValueNet:
        return self.snapshots[int(key.split(":")[1])][1]


#: the agents a pool can seat besides networks, by pool key: ``make_agent`` specs
POOL_AGENTS = {"heuristic": "heuristic", "random": "random", "search": "ismcts"}


def pool_of(cfg: TrainConfig) -> OpponentPool:
    """The opponent pool of a training run (``--pool-*`` weights, ``--search-agent``)."""
    return OpponentPool(
        {
            "current": cfg.pool_current,
            "snapshots": cfg.pool_snapshots,
            "heuristic": cfg.pool_heuristic,
            "random": cfg.pool_random,
            "search": cfg.pool_search,
        },
        cfg.max_snapshots,
        agents={**POOL_AGENTS, "search": cfg.search_agent},
    )


def _heuristic_available() -> bool:
    try:
        make_agent("heuristic")
        return True
    except Exception:
        return False


# --- trajectories -------------------------------------------------------------------------
@dataclass
class Step:
    obs: np.ndarray
    mask: np.ndarray
    action: int
    logp: float
    value: float
    reward: float = 0.0
    potential: float = 0.0
    #: the prior's logits of this decision (``--prior``): legal actions int64 ``(k,)``, float32
    #: ``(k,)``; the update adds them to the network's as the collector did
    prior: tuple[np.ndarray, np.ndarray] | None = None
    #: ``--privileged-critic``: what the round hid at this decision, float32
    #: ``(truth_size,)`` (:meth:`PrivilegedCritic.truth_features`), for the critic only
    truth: np.ndarray | None = None


@dataclass
class SeatTrajectories:
    """The decisions of every learning seat of one game, and their rewards."""

    learning: set[int]
    steps: dict[int, list[Step]] = field(default_factory=dict)
    uncredited: int = 0

    def record(self, seat: int, step: Step) -> None:
        self.steps.setdefault(seat, []).append(step)

    def credit(self, rewards: dict[int, float]) -> None:
        """Add each seat's reward to its most recent decision (learning seats only)."""
        for seat, r in rewards.items():
            if seat not in self.learning or r == 0:
                continue
            steps = self.steps.get(seat)
            if steps:
                steps[-1].reward += float(r)
            else:
                self.uncredited += 1


def gae(
    rewards: np.ndarray, values: np.ndarray, gamma: float, lam: float
) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns of one finished trajectory (terminal after the last step)."""
    n = len(rewards)
    adv = np.zeros(n, dtype=np.float32)
    last = 0.0
    for t in range(n - 1, -1, -1):
        nv = values[t + 1] if t + 1 < n else 0.0
        delta = rewards[t] + gamma * nv - values[t]
        last = delta + gamma * lam * last
        adv[t] = last
    return adv, adv + values.astype(np.float32)


class ProgressPotential:
    """Potential for reward shaping, read from the observation alone: how far the tunnel
    connected to the start has come toward the nearest goal the observer does not know to be a
    stone (0 at the start, 7/8 next to a goal), times the seat's role's ``gold_stake`` in the
    ruleset (+1 for the gold-diggers and Saboteur 2's boss, -1 for the saboteur, 0 for the
    profiteer and the geologist, whose result does not hang on the gold).  The trainer adds
    ``shaping * (gamma * phi(next decision) - phi(this decision))`` to each decision's
    reward, with ``phi = 0`` after the seat's last decision of the game (potential-based
    shaping: the sum over a game telescopes, so what is optimal is unchanged; the win/gold
    reward stays the only goal).
    """

    def __init__(self, config: GameConfig) -> None:
        from saboteur_env.encoding.observation import ObservationEncoder
        from saboteur_env.engine.cards import GOAL_CELLS, START_CELL

        enc = ObservationEncoder(config)
        views = {v.name: v for v in enc.spec()}
        self.board = views["board"]
        # the sign of the potential: the role one-hot times each role's stake in the gold
        role = views["role"]
        self.role_cols = slice(role.offset, role.offset + role.size)
        self.stake = np.array(config.ruleset.gold_stake, dtype=np.float32)
        _, h, w = self.board.shape
        x0, _, y0, _ = config.board_window
        rows, cols = np.mgrid[0:h, 0:w]
        self.goal_rc = [(gy - y0, gx - x0) for gx, gy in GOAL_CELLS]
        dist = np.stack([np.abs(rows - r) + np.abs(cols - c) for r, c in self.goal_rc])
        start = dist[:, START_CELL[1] - y0, START_CELL[0] - x0].min()
        self.progress = np.clip(1.0 - dist / start, 0.0, 1.0).astype(np.float32)  # (3, H, W)

    def __call__(self, obs: np.ndarray) -> float:
        v = self.board
        board = obs[v.offset : v.offset + v.size].reshape(v.shape)
        C = BoardChannel
        conn = board[C.CONN_N : C.CONN_W + 1].max(axis=0) > 0
        if not conn.any():
            return 0.0
        best = 0.0
        for slot, (r, c) in enumerate(self.goal_rc):
            if board[C.GOAL_STONE_REVEALED, r, c] or board[C.KNOWN_STONE, r, c]:
                continue  # a revealed or known stone
            best = max(best, float(self.progress[slot][conn].max()))
        return best * float(obs[self.role_cols][: len(self.stake)] @ self.stake)


# --- the batched collector ---------------------------------------------------------------
class Collector:
    """Steps ``num_envs`` games together in one :class:`~saboteur_env.vector.VectorGame`; see
    the module docstring.

    Every deal is drawn here from the train split (:meth:`VectorGame.reset_game`), not by the
    batch's own auto-reset.  Agents that read ``info`` (the heuristic, the search agent) get
    ``{"events": ...}``: the events their seat may see since its last turn, routed by
    :func:`~saboteur_env.engine.events.route_events` as the env routes its ``infos`` events
    (the env's ``round_result`` entry, which no agent reads, is not built here).
    """

    def __init__(
        self,
        cfg: TrainConfig,
        net: PolicyValueNet,
        pool: OpponentPool,
        rng: np.random.Generator,
        generator: torch.Generator,
        critic: PrivilegedCritic | None = None,
    ) -> None:
        self.cfg = cfg
        self.net = net
        #: ``--privileged-critic``: the value of the learning seats' decisions (GAE's
        #: baseline) comes from it, fed the round's hidden state; the policy never reads it
        self.critic = critic
        self.pool = pool
        self.rng = rng
        self.gen = generator
        self.config = cfg.game_config()
        self.role_names = self.config.ruleset.roles
        #: --learner-role as a role id (None: every role)
        self.learner_role = cfg.learner_role_id()
        b = cfg.num_envs
        # a search agent reads the live game, which the array backend keeps only in arrays
        # during a round: then the engine backend (the same games either way)
        needs_game = any(
            getattr(make_agent(pool.agents[key]), "needs_game", False)
            for key in pool.probabilities()
            if key in pool.agents
        )
        self.vec = VectorGame(
            b, backend="engine" if needs_game else "auto", **self.config.options()
        )
        self.vec.reset([draw_train_seed(rng) for _ in range(b)])
        self.players: list[list[str]] = [[] for _ in range(b)]
        self.agents: list[dict[int, Agent]] = [{} for _ in range(b)]
        # --prior: per game, the prior agent of every seat a network plays; the network's own
        # prior is the one source (snapshots and the behaviour copy are copies of it)
        self.prior = net.prior
        self.priors: list[dict[int, Agent]] = [{} for _ in range(b)]
        # per game and seat: the events that seat may see since its last turn
        self.pending: list[list[list]] = [[] for _ in range(b)]
        self.trajs: list[SeatTrajectories | None] = [None] * b
        self.finished: list[list[Step]] = []
        self.results: list[dict] = []  # per finished round of a learning seat
        self.decisions = 0  # every seat's decisions
        self.learning_decisions = 0
        self.uncredited = 0  # rewards that arrived before a seat's 1st decision
        self.timers = {"env": 0.0, "inference": 0.0, "agents": 0.0}
        self.potential = ProgressPotential(self.config) if cfg.shaping else None
        for i in range(b):
            self.start_game(i)

    def start_game(
        self, i: int, game: Game | None = None, players: list[str] | None = None
    ) -> None:
        """New game in slot ``i`` (``game``: a hand-built position, for tests)."""
        vec = self.vec
        role = self.learner_role
        if game is None:
            vec.reset_game(i, draw_train_seed(self.rng))  # training deals: the train split only
            while role is not None and role not in vec.game(i).roles:
                vec.reset_game(i, draw_train_seed(self.rng))  # no seat holds --learner-role
        else:
            if role is not None and role not in game.roles:  # checked before the slot changes
                raise ValueError(
                    f"start_game: no seat of this game holds the --learner-role "
                    f"{self.cfg.learner_role!r} (its roles: {game.roles.tolist()})"
                )
            vec.load(i, game)
        n = self.cfg.num_players
        dealt = vec.game(i).roles.tolist()
        if players is None:
            players = self.pool.sample(self.rng, size=n)
            holders = [s for s in range(n) if role is None or dealt[s] == role]
            players[holders[int(self.rng.integers(len(holders)))]] = "current"
        self.players[i] = list(players)
        self.agents[i] = {}
        self.priors[i] = {}
        for s, key in enumerate(players):
            if key in self.pool.agents:
                a = make_agent(self.pool.agents[key])
                a.reset(s, self.config, seed=int(self.rng.integers(2**31)))
                self.agents[i][s] = a
            elif self.prior:  # a network seat: current or snapshot, both residuals on it
                p = prior_agent(self.prior)
                p.reset(s, self.config, seed=0)  # its logits draw no random numbers
                self.priors[i][s] = p
        attach_game(self.agents[i], vec.game(i))  # the search agent's information set
        self.pending[i] = [[] for _ in range(n)]
        self._route(i)
        # --learner-role: a "current" seat of another role plays but is not learned from
        self.trajs[i] = SeatTrajectories(
            {
                s
                for s, k in enumerate(players)
                if k == "current" and (role is None or dealt[s] == role)
            }
        )

    def _route(self, i: int) -> None:
        route_events(self.vec.events[i], self.pending[i])

    def tick(self) -> int:
        """One decision in every game; returns the number of learning decisions made."""
        vec = self.vec
        t1 = time.perf_counter()
        seats = vec.current_player.tolist()
        groups: dict[str, list[int]] = {}
        for i, seat in enumerate(seats):
            groups.setdefault(self.players[i][seat], []).append(i)
        obs_all, mask_all = vec.observation, vec.legal_action_mask
        actions = np.zeros(vec.num_envs, dtype=np.int64)
        learned = 0
        t_agents = 0.0
        for key, idx in groups.items():
            if key in self.pool.agents:
                ta = time.perf_counter()
                for i in idx:
                    seat = seats[i]
                    actions[i] = self.agents[i][seat].act(
                        obs_all[i], mask_all[i], {"events": self.pending[i][seat]}
                    )
                t_agents += time.perf_counter() - ta
                continue
            net = self.net if key == "current" else self.pool.net(key)
            obs = torch.from_numpy(obs_all[idx])
            mask = torch.from_numpy(mask_all[idx])
            priors = None
            if net.prior != self.prior:
                raise ValueError(f"{key}: its prior {net.prior!r} is not {self.prior!r}")
            if self.prior:  # the prior's logits, from the seat's own prior agent
                ta = time.perf_counter()
                priors = [
                    self.priors[i][seats[i]].logits(
                        obs_all[i], mask_all[i], {"events": self.pending[i][seats[i]]}
                    )
                    for i in idx
                ]
                priors = [(legal, z.astype(np.float32)) for legal, z in priors]
                t_agents += time.perf_counter() - ta
            with torch.no_grad():
                if key == "current" and self.critic is not None:
                    logits, value, feats = net.forward_features(obs)
                    roles, goals = vec.round_truth()
                    truth = self.critic.truth_features(
                        roles[idx], goals[idx], np.asarray(seats)[idx]
                    )
                    value = self.critic(feats, torch.from_numpy(truth), value)
                else:
                    logits, value = net(obs)
                    truth = None
                if priors is not None:
                    logits = add_prior(logits, *prior_rows(priors, logits.shape[1]))
                act, logp = sample_masked(logits, mask, self.gen)
            act_l = act.tolist()
            actions[idx] = act_l
            if key == "current":
                logp_l, value_l = logp.tolist(), value.tolist()
                for j, i in enumerate(idx):
                    if seats[i] not in self.trajs[i].learning:
                        continue  # --learner-role: this seat holds another role
                    o = obs_all[i].copy()  # the batch's rows are overwritten by each step
                    phi = self.potential(o) if self.potential is not None else 0.0
                    prior = priors[j] if priors is not None else None
                    step = Step(o, mask_all[i].copy(), act_l[j], logp_l[j], value_l[j])
                    step.potential, step.prior = phi, prior
                    if truth is not None:
                        step.truth = truth[j]
                    self.trajs[i].record(seats[i], step)
                    learned += 1
        t2 = time.perf_counter()
        self.apply(actions, seats)
        t3 = time.perf_counter()
        self.timers["env"] += t3 - t2
        self.timers["inference"] += t2 - t1 - t_agents
        self.timers["agents"] += t_agents
        self.decisions += vec.num_envs
        self.learning_decisions += learned
        return learned

    def apply(self, actions: np.ndarray, seats: list[int] | None = None) -> None:
        """Play ``actions`` (int64 ``(num_envs,)``) in every game, route the new events, credit
        the rewards, and finish (then restart) every game that ended."""
        vec = self.vec
        if seats is None:
            seats = vec.current_player.tolist()
        vec.step(actions)
        done = vec.terminated | vec.truncated
        paid = vec.rewards.any(axis=1)
        for i, seat in enumerate(seats):
            if paid[i]:
                self.trajs[i].credit(dict(enumerate(vec.rewards[i].tolist())))
            if done[i]:
                self.finish_game(i)
            else:
                self.pending[i][seat] = []
                self._route(i)

    def finish_game(self, i: int) -> None:
        game = self.vec.ended_games[i]
        traj = self.trajs[i]
        for seat in sorted(traj.steps):
            steps = traj.steps[seat]
            if steps:
                self.finished.append(steps)
        for res in game.round_results:
            for seat in traj.learning:
                role = int(res.roles[seat])
                # won as the evaluation and the "win" reward count it (a paid geologist too)
                won = seat_won(res.winners, res.roles, res.paid, seat, game.rules)
                self.results.append({"role": role, "win": int(won), "gold": res.received[seat]})
        self.uncredited += traj.uncredited
        self.start_game(i)

    def collect(self, n_steps: int, deadline: float | None = None) -> list[list[Step]]:
        """Tick until at least ``n_steps`` learning decisions lie in finished games, or until
        ``deadline`` (a ``time.perf_counter()`` value): then the games finished so far."""
        while sum(len(t) for t in self.finished) < n_steps:
            if _due(deadline):
                break
            self.tick()
        out, self.finished = self.finished, []
        return out


# --- PPO ----------------------------------------------------------------------------------
def make_batch(
    trajs: list[list[Step]], gamma: float, lam: float, shaping: float = 0.0
) -> dict[str, torch.Tensor]:
    """Flatten finished trajectories into tensors, with GAE advantages and returns (rewards
    plus ``shaping`` times the potential difference, see :class:`ProgressPotential`).

    Keys (``N`` steps): ``obs`` float32 ``(N, obs_size)``, ``mask`` bool ``(N, n_actions)``,
    ``action`` int64, ``logp``, ``adv``, ``ret`` and ``value`` float32 ``(N,)``; with a prior
    (``--prior``) ``prior_idx`` int64 and ``prior_val`` float32 ``(N, K)``
    (:func:`~saboteur_agents.network.prior_rows`); with the round's truth in the steps
    (``--privileged-critic``) ``truth`` float32 ``(N, truth_size)`` and ``ret_mc`` float32
    ``(N,)``, the discounted returns without bootstrapping (the critic's targets)."""
    obs, mask, act, logp, adv, ret, val, prior, truth = [], [], [], [], [], [], [], [], []
    ret_mc = []  # --privileged-critic: the critic's targets
    for steps in trajs:
        r = np.array([s.reward for s in steps], dtype=np.float32)
        if shaping:
            phi = np.array([s.potential for s in steps] + [0.0], dtype=np.float32)
            r = r + shaping * (gamma * phi[1:] - phi[:-1])
        v = np.array([s.value for s in steps], dtype=np.float32)
        a, rt = gae(r, v, gamma, lam)
        adv.append(a)
        ret.append(rt)
        val.append(v)
        if steps[0].truth is not None:
            ret_mc.append(gae(r, v, gamma, 1.0)[1])  # the discounted return, no bootstrap
        for s in steps:
            obs.append(s.obs)
            mask.append(s.mask)
            act.append(s.action)
            logp.append(s.logp)
            prior.append(s.prior)
            truth.append(s.truth)
    extra = {}
    if prior and prior[0] is not None:  # --prior: every step has one
        extra = dict(zip(("prior_idx", "prior_val"), prior_rows(prior, len(mask[0]))))
    if truth and truth[0] is not None:  # --privileged-critic: every step has it
        extra["truth"] = torch.from_numpy(np.stack(truth))
        extra["ret_mc"] = torch.from_numpy(np.concatenate(ret_mc))
    return {
        **extra,
        "obs": torch.from_numpy(np.stack(obs)),
        "mask": torch.from_numpy(np.stack(mask)),
        "action": torch.tensor(act, dtype=torch.long),
        "logp": torch.tensor(logp, dtype=torch.float32),
        "adv": torch.from_numpy(np.concatenate(adv)),
        "ret": torch.from_numpy(np.concatenate(ret)),
        "value": torch.from_numpy(np.concatenate(val)),
    }


def ppo_update(
    net: PolicyValueNet,
    opt: torch.optim.Optimizer,
    batch: dict,
    cfg: TrainConfig,
    rng: np.random.Generator,
    critic: PrivilegedCritic | None = None,
) -> dict[str, float]:
    """``cfg.epochs`` passes of clipped PPO over ``batch``; returns mean losses and stats.

    ``cfg.precision == "bf16"`` runs the network's forward pass (and so its backward) under
    bfloat16 autocast: the logits are cast to float32 (they carry bfloat16 rounding), the
    losses, optimizer and weights are float32.  With ``critic`` (``--privileged-critic``;
    ``opt`` then holds its parameters too) the critic's loss on ``batch["truth"]``
    (``state_value_loss``) is added to the network's own value loss (``value_loss``: its value
    head stays trained on the GAE returns, which are then built from the critic's values, so a
    checkpoint's value still means something).  The critic's targets are the discounted
    returns without bootstrapping (``batch["ret_mc"]``): a bootstrapped target is built from
    values that do not yet know the hidden roles, so the roles' effect, which only the
    round's end reveals, reaches the early decisions' values slowly (measured on held-out
    games of one batch: fitted to the GAE returns the critic gained nothing over the
    network's value; fitted to these, about a tenth less squared error)."""
    n = len(batch["action"])
    bf16 = cfg.precision == "bf16"
    keys = ["policy_loss", "value_loss", "entropy", "approx_kl", "clip_frac"]
    if critic is not None:
        keys.append("state_value_loss")
    stats: dict[str, list[float]] = {k: [] for k in keys}
    net.train()
    for _ in range(cfg.epochs):
        perm = torch.from_numpy(rng.permutation(n))
        for start in range(0, n, cfg.minibatch):
            mb = perm[start : start + cfg.minibatch]
            if len(mb) < 2:
                continue
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                if critic is not None:
                    logits, value, feats = net.forward_features(batch["obs"][mb])
                    state_value = critic(feats, batch["truth"][mb], value).float()
                else:
                    logits, value = net(batch["obs"][mb])
            logits, value = logits.float(), value.float()  # losses and softmax in float32
            if "prior_idx" in batch:  # --prior: the policy is the prior plus the network
                logits = add_prior(logits, batch["prior_idx"][mb], batch["prior_val"][mb])
            mask = batch["mask"][mb]
            logp_all = masked_log_probs(logits, mask)
            logp = logp_all.gather(1, batch["action"][mb][:, None]).squeeze(1)
            ent = masked_entropy(logp_all, mask).mean()
            adv = batch["adv"][mb]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            ratio = torch.exp(logp - batch["logp"][mb])
            pg = -torch.min(ratio * adv, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * adv).mean()
            vloss = F.mse_loss(value, batch["ret"][mb])
            loss = pg + cfg.vf_coef * vloss - cfg.ent_coef * ent
            if critic is not None:
                svloss = F.mse_loss(state_value, batch["ret_mc"][mb])
                stats["state_value_loss"].append(float(svloss.detach()))
                loss = loss + cfg.vf_coef * svloss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            if critic is not None:  # its own norm: its gradients do not shrink the policy's
                torch.nn.utils.clip_grad_norm_(critic.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                lr = logp - batch["logp"][mb]
                stats["approx_kl"].append(float(((lr.exp() - 1) - lr).mean()))
                stats["clip_frac"].append(float(((ratio - 1).abs() > cfg.clip).float().mean()))
            stats["policy_loss"].append(float(pg.detach()))
            stats["value_loss"].append(float(vloss.detach()))
            stats["entropy"].append(float(ent.detach()))
    net.eval()
    return {k: float(np.mean(v)) if v else float("nan") for k, v in stats.items()}


# --- warm start: behaviour cloning of the heuristic ---------------------------------------
def collect_demonstrations(
    n_decisions: int,
    cfg: TrainConfig,
    seed: int,
    teacher: str = "heuristic",
    deadline: float | None = None,
    progress=None,
) -> dict[str, np.ndarray]:
    """Every decision of ``teacher`` agents in all-``teacher`` games: observations (int8: every
    observation value is a small integer), packed masks, actions, and each decision's return
    (the rewards its seat receives from then on to the end of the game).

    ``deadline`` (a ``time.perf_counter()`` value): stop when it is reached, keeping only the
    games played to their end (``"cut_short"`` is then true; the budget of ``--minutes``
    includes the warm start).  ``progress(decisions)`` is called after every game."""
    rng = np.random.default_rng(seed)
    obs, masks, acts, rets = [], [], [], []
    cut_short = False
    while len(acts) < n_decisions:
        if _due(deadline):
            cut_short = True
            break
        game_start = len(acts)
        env = saboteur_env.raw_env(**cfg.game_config().options())
        env.reset(seed=draw_train_seed(rng))  # demonstrations: the train split only
        agents = [make_agent(teacher) for _ in range(cfg.num_players)]
        for s, a in enumerate(agents):
            a.reset(s, env.config, seed=int(rng.integers(2**31)))
        mine: list[list[int]] = [[] for _ in agents]  # decision indexes per seat
        while not all(env.terminations.values()) and not all(env.truncations.values()):
            ag = env.agent_selection
            seat = env.agent_name_mapping[ag]
            o = env.observe(ag)
            a = agents[seat].act(o["observation"], o["action_mask"], env.infos[ag])
            mine[seat].append(len(acts))
            obs.append(o["observation"].astype(np.int8))
            masks.append(np.packbits(o["action_mask"].astype(bool)))
            acts.append(int(a))
            rets.append(0.0)
            env.step(a)
            for other, r in env.rewards.items():
                if r:
                    for i in mine[env.agent_name_mapping[other]]:
                        rets[i] += float(r)
            if _due(deadline):
                # an unfinished game has no returns yet: drop it
                del obs[game_start:], masks[game_start:], acts[game_start:], rets[game_start:]
                cut_short = True
                break
        if cut_short:
            break
        if progress is not None:
            progress(len(acts))
    if not obs:  # the budget ran out during the first game
        n_obs = int(env_spec(cfg.game_config())["obs_size"])
    return {
        "obs": np.stack(obs) if obs else np.zeros((0, n_obs), dtype=np.int8),
        "mask": np.stack(masks) if masks else np.zeros((0, 0), dtype=np.uint8),
        "action": np.array(acts, dtype=np.int64),
        "ret": np.array(rets, dtype=np.float32),
        "cut_short": cut_short,
    }


def behaviour_cloning(
    net: PolicyValueNet,
    data: dict,
    cfg: TrainConfig,
    rng: np.random.Generator,
    deadline: float | None = None,
) -> dict[str, float]:
    """Fit the policy to the demonstrations (masked cross-entropy) and the value to their
    returns (a network with a :attr:`~saboteur_agents.network.PolicyValueNet.prior`: the value
    only, since its policy starts at the prior, which is the teacher's own scores); returns
    the last epoch's mean losses and the accuracy, and ``bc_minibatches``
    (the updates made: fewer than planned when ``deadline`` is reached first)."""
    opt = torch.optim.Adam(net.parameters(), lr=cfg.bc_lr)
    n = len(data["action"])
    n_act = net.n_actions
    net.train()
    stats: dict = {}
    updates = 0
    for _ in range(cfg.bc_epochs):
        ce_l, v_l, acc_l = [], [], []
        perm = rng.permutation(n)
        for start in range(0, n, cfg.minibatch):
            if _due(deadline):
                break
            updates += 1
            mb = np.sort(perm[start : start + cfg.minibatch])
            obs = torch.from_numpy(data["obs"][mb].astype(np.float32))
            mask = torch.from_numpy(np.unpackbits(data["mask"][mb], axis=1, count=n_act))
            act = torch.from_numpy(data["action"][mb])
            logits, value = net(obs)
            logp = masked_log_probs(logits, mask)
            ce = -logp.gather(1, act[:, None]).mean()
            vl = F.mse_loss(value, torch.from_numpy(data["ret"][mb]))
            loss = cfg.vf_coef * vl if net.prior else ce + cfg.vf_coef * vl
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            ce_l.append(float(ce.detach()))
            v_l.append(float(vl.detach()))
            acc_l.append(float((logp.argmax(1) == act).float().mean()))
        if v_l:
            stats = {"bc_value_loss": float(np.mean(v_l))}
            if not net.prior:  # with a prior the policy was not fitted: its figures mean nothing
                stats.update(bc_ce=float(np.mean(ce_l)), bc_accuracy=float(np.mean(acc_l)))
    net.eval()
    return {**stats, "bc_minibatches": updates}  # no losses when no minibatch was fitted


# --- the training loop --------------------------------------------------------------------
class _Logs:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.rows: list[dict] = []
        self.evals: list[dict] = []
        self.tb = None
        try:
            import tensorboard  # noqa: F401
            from torch.utils.tensorboard import SummaryWriter

            self.tb = SummaryWriter(str(out / "tb"))
        except Exception:
            self.tb = None

    def log(self, row: dict) -> None:
        self.rows.append(row)
        _write_csv(self.out / "metrics.csv", self.rows)
        if self.tb is not None:
            for k, v in row.items():
                if isinstance(v, (int, float)) and k != "iteration":
                    self.tb.add_scalar(k, v, row["learning_decisions"])

    def log_eval(self, row: dict) -> None:
        self.evals.append(row)
        _write_csv(self.out / "eval.csv", self.evals)
        if self.tb is not None:
            for k, v in row.items():
                if isinstance(v, float):
                    self.tb.add_scalar("eval/" + k, v, row["learning_decisions"])

    def close(self) -> None:
        if self.tb is not None:
            self.tb.close()


def _write_csv(path: Path, rows: list[dict]) -> None:
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def plot_learning_curve(out: Path, rows: list[dict], evals: list[dict]) -> Path | None:
    """``learning_curve.png``: training win rate per role, entropy and losses, evaluations."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:
        return None
    if not rows:
        return None
    x = [r["learning_decisions"] for r in rows]
    roles = [k[len("win_") :] for k in rows[0] if k.startswith("win_")]  # the run's game's
    fig, axes = plt.subplots(1, 4, figsize=(19, 4))
    ax = axes[0]
    k = max(1, len(rows) // 50)  # moving average: a training batch holds ~100-200 rounds
    for role in roles:
        y = np.array([r.get(f"win_{role}", float("nan")) for r in rows], float)
        ys = np.convolve(
            np.nan_to_num(y, nan=np.nanmean(y) if np.isfinite(y).any() else 0),
            np.ones(k) / k,
            mode="valid",
        )  # trailing mean, no edge effects
        ax.plot(x, y, alpha=0.25)
        ax.plot(
            x[k - 1 :],
            ys,
            label=f"{role} (mean of last {k} iterations)",
            color=ax.lines[-1].get_color(),
        )
    ax.set_xlabel("learning decisions")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    ax.set_title("training win rate per role (against the pool)")
    ax = axes[3]
    for base in ("random", "heuristic"):
        for role in roles:
            key = f"{base}_diff_{role}"
            ev = [e for e in evals if key in e and e[key] == e[key]]
            if ev:
                ex = [e["learning_decisions"] for e in ev]
                ey = np.array([100 * e[key] for e in ev])
                lo = np.array([100 * e.get(f"{base}_lo_{role}", e[key]) for e in ev])
                hi = np.array([100 * e.get(f"{base}_hi_{role}", e[key]) for e in ev])
                ax.errorbar(
                    ex,
                    ey,
                    yerr=error_bars(ey, lo, hi),
                    fmt="o--",
                    capsize=3,
                    label=f"vs {base}: {role}",
                )
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("learning decisions")
    ax.set_ylabel("win-rate difference, points (95% interval)")
    ax.set_title("evaluation: PPO minus baseline, same seats")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    axes[1].plot(x, [r["entropy"] for r in rows])
    axes[1].set_title("policy entropy")
    axes[1].set_xlabel("learning decisions")
    axes[2].plot(x, [r["policy_loss"] for r in rows], label="policy")
    axes[2].plot(x, [r["value_loss"] for r in rows], label="value")
    if "state_value_loss" in rows[0]:  # --privileged-critic
        axes[2].plot(x, [r["state_value_loss"] for r in rows], label="privileged critic")
    axes[2].legend()
    axes[2].set_title("losses")
    axes[2].set_xlabel("learning decisions")
    fig.tight_layout()
    path = out / "learning_curve.png"
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def evaluate(
    net: PolicyValueNet, cfg: TrainConfig, deals: int, seed: int, path: Path | None = None
) -> dict:
    """The in-training evaluation: the ``role-probe`` protocol
    (:func:`saboteur_experiments.evaluation.protocols.role_probe`) of the current policy against
    random
    and the heuristic, on ``deals`` deals per role of the **dev** split (never the test split:
    checkpoint selection and the learning curve must not see the published deals).  The network
    is saved to ``path`` first.  Returns flat keys ``{base}_{role}`` (the policy's win rate in
    the probe seat), ``{base}_base_{role}`` (the reference's), ``{base}_diff_{role}`` and its
    deal-clustered 95% interval ``{base}_lo_{role}`` / ``{base}_hi_{role}`` (fractions)."""
    from saboteur_experiments.evaluation.protocols import role_probe

    out: dict[str, float] = {}
    path = Path(path or Path(cfg.out) / "checkpoints" / "eval_latest.pt")
    save_checkpoint(path, net, cfg.game_config(), asdict(cfg))
    bases = ["random"] + (["heuristic"] if _heuristic_available() else [])
    role = cfg.learner_role_id()
    roles = None if role is None else [role]
    threads = torch.get_num_threads()
    try:
        results = {
            base: role_probe(
                f"ppo:{path}",
                base,
                players=cfg.num_players,
                deals=deals,
                split="dev",
                seed=seed,
                expansion=cfg.expansion,
                num_rounds=cfg.num_rounds,
                roles=roles,
            )
            for base in bases
        }
    finally:  # building a PPO agent limits torch to one thread; training keeps --threads
        torch.set_num_threads(threads)
    for base, res in results.items():
        for role, r in res["roles"].items():
            out[f"{base}_{role}"] = r["candidate"]["value"]
            out[f"{base}_base_{role}"] = r["reference"]["value"]
            out[f"{base}_diff_{role}"] = r["diff"]["value"]
            out[f"{base}_lo_{role}"] = r["diff"]["lo"]
            out[f"{base}_hi_{role}"] = r["diff"]["hi"]
    return out


def dev_score(ev: dict) -> float:
    """The score that picks ``best_dev.pt`` among a run's evaluations (:func:`evaluate`): the
    mean over roles of the win-rate difference against the strongest baseline evaluated (the
    heuristic when installed, else random), each role weighted equally (a policy must be good
    in every role it can be dealt, not in the common one only; a ``--learner-role``
    specialist's evaluations score its one role).  NaN when none was scored."""
    base = "heuristic" if any(k.startswith("heuristic_diff_") for k in ev) else "random"
    diffs = [v for k, v in ev.items() if k.startswith(f"{base}_diff_") and v == v]
    return float(np.mean(diffs)) if diffs else float("nan")


def evaluate_checkpoint(
    path: str | Path,
    deals: int = 500,
    seed: int = 0,
    baselines: Sequence[str] = ("random", "heuristic"),
    workers: int = 1,
    num_rounds: int | None = None,
    split: str = "test",
    first: int = 0,
) -> dict:
    """The reported evaluation of a checkpoint (``saboteur train --evaluate PATH``): the
    ``role-probe`` head-to-head (:func:`saboteur_experiments.evaluation.protocols.head_to_head`)
    against each baseline, per role, on ``deals`` deals per role of ``split`` (default ``test``)
    from ``first``, at the checkpoint's player count; games have ``num_rounds`` rounds (default: as
    many as its training games) and round 1 is probed.

    Returns the head-to-head dict plus ``"checkpoint"``, ``"num_players"``, ``"num_rounds"``
    and ``"seconds"``.  Raises :class:`~saboteur_agents.network.CheckpointMismatchError` (a
    ``ValueError``) for a checkpoint that does not match the environment's spaces.
    """
    from saboteur_agents.network import CheckpointMismatchError, read_checkpoint
    from saboteur_experiments.evaluation.protocols import head_to_head

    _, meta = read_checkpoint(path)  # refuses a game_config that is not an object
    game = meta.get("game_config", {})
    for name in ("num_players", "num_rounds"):
        value = game.get(name, 1)
        # a JSON "5" or 5.7 is a damaged checkpoint, not 5 players
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise CheckpointMismatchError(
                f"{path}: metadata game_config {name}={value!r}; must be a positive int"
            )
    players = game.get("num_players", 5)
    expansion = game.get("expansion", False)
    if not isinstance(expansion, bool):
        raise CheckpointMismatchError(
            f"{path}: metadata game_config expansion={expansion!r}; must be true or false"
        )
    if num_rounds is None:
        num_rounds = game.get("num_rounds", 1)
    t0 = time.perf_counter()
    out = head_to_head(
        f"ppo:{path}",
        list(baselines),
        players,
        deals,
        split,
        first,
        seed,
        expansion=expansion,
        workers=workers,
        num_rounds=num_rounds,
    )
    out.update(
        checkpoint=str(path),
        num_players=players,
        num_rounds=num_rounds,
        seconds=time.perf_counter() - t0,
    )
    return out


def _print_evaluation(res: dict) -> None:
    from saboteur_experiments.evaluation.protocols import format_head_to_head

    print(format_head_to_head(res))


def _warm_start(
    net: PolicyValueNet, cfg: TrainConfig, rng: np.random.Generator, out: Path, t_start: float
) -> dict:
    """The behaviour-cloning warm start of :func:`train` (``cfg.bc_decisions`` heuristic
    decisions, inside the ``--minutes`` budget that began at ``t_start``, a
    ``time.perf_counter()`` value); writes ``out/bc.json`` and returns its figures."""
    done_bar = _warm_start_progress(cfg)
    # the warm start leaves PPO at least half of a --minutes budget: its demonstrations
    # stop at a quarter of it, its fitting at half (a short run would else only imitate)
    demo_end = t_start + cfg.minutes * 15 if cfg.minutes else None
    fit_end = t_start + cfg.minutes * 30 if cfg.minutes else None
    data = collect_demonstrations(
        cfg.bc_decisions, cfg, seed=cfg.seed + 7919, deadline=demo_end, progress=done_bar
    )
    done_bar(None)
    t_demo = time.perf_counter() - t_start
    if cfg.progress:
        print(
            f"warm start: fitting {len(data['action'])} heuristic decisions "
            f"({cfg.bc_epochs} epochs{'; the value only, for --prior' if net.prior else ''})"
            + (
                f"; cut short at a quarter of --minutes {cfg.minutes:g}"
                if data["cut_short"]
                else ""
            ),
            file=sys.stderr,
        )
    bc_stats = behaviour_cloning(net, data, cfg, rng, deadline=fit_end)
    bc_stats.update(
        {
            "bc_decisions": len(data["action"]),
            "bc_cut_short": bool(data["cut_short"])
            or bc_stats["bc_minibatches"]
            < cfg.bc_epochs * math.ceil(len(data["action"]) / cfg.minibatch),
            "bc_demo_s": t_demo,
            "bc_s": time.perf_counter() - t_start,
        }
    )
    (out / "bc.json").write_text(json.dumps(bc_stats, indent=2) + "\n")
    del data
    if cfg.progress:
        print(f"behaviour cloning: {bc_stats}", file=sys.stderr)
        if not bc_stats["bc_minibatches"]:
            print(
                "warm start: no minibatch was fitted before half of --minutes: PPO starts "
                "from the initial weights (a larger --minutes, or --bc-decisions 0)",
                file=sys.stderr,
            )
    return bc_stats


#: the ``format`` of a privileged critic's file (:func:`save_critic`)
CRITIC_FORMAT = "saboteur-critic-1"


def critic_file(checkpoint: str | Path) -> Path:
    """Where the privileged critic of a policy checkpoint lies: beside it, ``NAME.critic.pt``
    (``final.pt`` -> ``final.critic.pt``).  The policy checkpoint itself holds the policy
    network alone, in its usual format."""
    return Path(checkpoint).with_suffix(".critic.pt")


def save_critic(checkpoint: str | Path, critic: PrivilegedCritic) -> Path:
    """Write ``critic``'s weights beside the policy checkpoint ``checkpoint``
    (:func:`critic_file`): ``{"state_dict": tensors, "meta": JSON text}``, readable with
    ``torch.load(weights_only=True)``.  Returns the path."""
    path = critic_file(checkpoint)
    meta = {
        "format": CRITIC_FORMAT,
        "hidden": critic.hidden,
        "truth_size": critic.truth_size,
        "num_players": critic.num_players,
    }
    state = {k: v.detach().cpu().clone() for k, v in critic.state_dict().items()}
    torch.save({"state_dict": state, "meta": json.dumps(meta, sort_keys=True)}, path)
    return path


def _critic_beside(checkpoint: Path, critic: PrivilegedCritic | None) -> None:
    """After writing the policy checkpoint ``checkpoint``: its critic beside it
    (:func:`save_critic`), in a run with one (an earlier run's critics went with its files,
    ``clear_run``: a critic is only ever found beside the policy it was trained with)."""
    if critic is not None:
        save_critic(checkpoint, critic)


def load_critic(checkpoint: str | Path, critic: PrivilegedCritic) -> str:
    """Load into ``critic`` the critic saved beside the policy checkpoint ``checkpoint``
    (:func:`critic_file`), if there is one that fits; returns one line saying whether it was
    loaded or ``critic`` starts fresh, and why."""
    path = critic_file(checkpoint)
    if not path.is_file():
        return f"privileged critic: started fresh (no {path} beside --init)"
    try:
        try:
            blob = torch.load(path, map_location="cpu", weights_only=True)
        except Exception:  # torch's own text advises an unsafe load: not for this file
            raise ValueError("not a file torch reads with weights_only=True") from None
        meta = json.loads(blob["meta"])
        if meta.get("format") != CRITIC_FORMAT:
            raise ValueError(f"format {meta.get('format')!r}, this code reads {CRITIC_FORMAT}")
        state = blob["state_dict"]
        # every tensor checked before any is copied: load_state_dict copies the ones that fit
        # before it raises, which would leave a half-loaded critic said to be fresh
        mine = critic.state_dict()
        if set(state) != set(mine):
            raise ValueError(f"its weights are {sorted(state)}, this critic's {sorted(mine)}")
        for k, v in mine.items():
            if tuple(state[k].shape) != tuple(v.shape):
                raise ValueError(
                    f"{k} has shape {tuple(state[k].shape)}, this critic's {tuple(v.shape)} "
                    "(another network size or game)"
                )
        if not all(bool(torch.isfinite(v).all()) for v in state.values()):
            raise ValueError("NaN or infinite weights")
        critic.load_state_dict(state)
    except Exception as err:  # a file that does not fit: the run goes on with a new critic
        why = " ".join(str(err).split()) or type(err).__name__
        return f"privileged critic: started fresh ({path} not loaded: {why[:300]})"
    return f"privileged critic: loaded from {path}"


def train(cfg: TrainConfig) -> dict:
    """Run PPO self-play as configured; returns a summary (paths, last metrics).

    With ``cfg.init`` the network (its shape and prior) comes from that checkpoint and there
    is no warm start; the config written to ``config.json`` and the checkpoints says so
    (``channels``/``hidden``/``conv_layers`` and ``prior`` of the checkpoint, ``bc_decisions``
    0).  Ctrl-C
    stops training and still writes ``final.pt`` (its JSON has ``"interrupted": true``).

    Raises:
        ValueError: an unusable option (:meth:`TrainConfig.problems`), or an ``init``
            checkpoint that does not fit
            (:class:`~saboteur_agents.network.CheckpointMismatchError`).
    """
    bad = cfg.problems()
    if bad:
        raise ValueError("; ".join(bad))
    if cfg.prior:  # one spelling of the prior everywhere (config.json, checkpoints)
        from saboteur_agents.network import canonical_prior

        cfg = replace(cfg, prior=canonical_prior(cfg.prior))
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    gen = torch.Generator().manual_seed(cfg.seed)
    out = Path(cfg.out)
    game_config = cfg.game_config()
    spec = env_spec(game_config)
    if cfg.init:
        from saboteur_agents.network import load_checkpoint

        net, _ = load_checkpoint(cfg.init, game_config)
        why = prior_mismatch(net.prior, cfg.prior)
        if why:
            raise ValueError(f"--init {cfg.init}: {why}")
        # what this run really does: the checkpoint's shape and prior, no warm start
        cfg = replace(cfg, bc_decisions=0, prior=net.prior, **net.hparams)
    else:
        net = PolicyValueNet(
            spec, channels=cfg.channels, hidden=cfg.hidden, conv_layers=cfg.conv_layers
        )
        if cfg.prior:
            net.start_at_prior(cfg.prior)
    critic = None
    groups = [{"params": list(net.parameters()), "lr": cfg.lr}]
    if cfg.privileged_critic:
        critic = PrivilegedCritic(int(net.hparams["hidden"]), game_config)
        if cfg.init:  # the critic saved beside the checkpoint, if any (read before an
            print(load_critic(cfg.init, critic), file=sys.stderr)  # earlier run's files go)
        # a critic (new, or beside a trained network): it learns at its own rate
        groups.append({"params": list(critic.parameters()), "lr": cfg.critic_lr})
    # an earlier run's outputs go (read --init and its critic first: they may lie among
    # them); the command line refuses such an --out without --overwrite
    clear_run(out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    best = out / "checkpoints" / "best_dev.pt"
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=2) + "\n")
    net.eval()
    opt = torch.optim.Adam(groups, lr=cfg.lr, eps=1e-5)
    pool = pool_of(cfg)
    t_start = time.perf_counter()
    # the wall-clock budget covers the warm start and PPO: no phase starts or goes on past it
    deadline = t_start + cfg.minutes * 60 if cfg.minutes else None
    interrupted = False
    if cfg.bc_decisions and not cfg.init:
        try:
            _warm_start(net, cfg, rng, out, t_start)  # its figures: bc.json
        except KeyboardInterrupt:  # Ctrl-C (kill stops it through STOP): the weights so far
            interrupted = True
            net.eval()
            print(f"\ninterrupted in the warm start: writing {out / 'final.pt'}", file=sys.stderr)
    # with --overlap the collector plays the current seats with a copy of the network (the
    # behaviour policy), refreshed after every update, while the learner thread updates
    # ``net`` with its own random stream: results do not depend on the threads' timing
    behave = copy.deepcopy(net).eval() if cfg.overlap else net
    behave_critic = copy.deepcopy(critic) if cfg.overlap and critic is not None else critic
    update_rng = np.random.default_rng([cfg.seed, 1]) if cfg.overlap else rng
    collector = Collector(cfg, behave, pool, rng, gen, behave_critic)
    logs = _Logs(out)
    bar = _progress(cfg)
    it = 0
    update_time = 0.0
    summary: dict = {}
    # the last evaluation's duration, kept back from --minutes so the final one fits in it
    eval_reserve = 0.0
    # the last update's duration, kept back too: collection stops early enough that the
    # update of its batch still ends inside --minutes
    update_reserve = 0.0
    best_score = -math.inf
    stop_at: float | None = None

    last_eval = {"iteration": 0}  # the iteration of the last evaluation

    def run_eval(learning_decisions: int) -> dict:
        """Evaluate ``net`` on dev deals after iteration ``it``: log the row to eval.csv, keep
        the best as best_dev.pt (selection on dev deals only) and its duration as the reserve
        of the next one; the row, ``dev_score`` included."""
        nonlocal eval_reserve, best_score
        te = time.perf_counter()
        ev = evaluate(net, cfg, cfg.eval_deals, seed=cfg.seed)
        eval_reserve = time.perf_counter() - te
        score = dev_score(ev)
        if score == score and score > best_score:
            best_score = score
            save_checkpoint(
                best,
                net,
                game_config,
                asdict(cfg),
                {"iteration": it, "learning_decisions": learning_decisions, "dev_score": score},
            )
            _critic_beside(best, critic)
        ev["dev_score"] = score
        logs.log_eval({"iteration": it, "learning_decisions": learning_decisions, **ev})
        last_eval["iteration"] = it
        return ev

    def finish(collected: dict, stats: dict, update_s: float, t_end: float) -> bool:
        """Log iteration ``it`` (its batch collected, then learned), snapshot, evaluate and
        checkpoint as configured; True when the run is done.  ``collected["wall_s"]``: the wall
        time in which the batch was collected (with ``--overlap``, the collection window, which
        overlapped the previous update)."""
        nonlocal summary
        batch, trajs, results = collected["batch"], collected["trajs"], collected["results"]
        row = {
            "iteration": it,
            "learning_decisions": collected["learning_decisions"],
            "decisions": collected["decisions"],
            "batch": len(batch["action"]),
            "episodes": len(trajs),
            **stats,
            "explained_var": _explained_var(batch["value"], batch["ret"]),
            "mean_return": float(batch["ret"].mean()),
            "mean_env_reward": float(np.mean([sum(st.reward for st in t) for t in trajs])),
            "decisions_per_s": collected["new_decisions"] / collected["wall_s"],
            "learning_decisions_per_s": collected["new_learning"] / collected["wall_s"],
            # of that wall time, numba compiling loops (0 once its cache holds them)
            "compile_s": collected["compile_s"],
            "collect_s": collected["collect_s"],
            "update_s": update_s,
            **collected["totals"],
            "update_s_total": update_time,
            "snapshots": len(pool.snapshots),
            "uncredited_rewards": collected["uncredited"],
            "elapsed_s": t_end - t_start,
        }
        for role, name in enumerate(collector.role_names):
            rr = [r["win"] for r in results if r["role"] == role]
            row[f"win_{name}"] = float(np.mean(rr)) if rr else float("nan")
            row[f"rounds_{name}"] = len(rr)
        if not all(math.isfinite(row[k]) for k in ("policy_loss", "value_loss", "entropy")):
            raise FloatingPointError(f"non-finite loss at iteration {it}: {stats}")
        if cfg.snapshot_every and it % cfg.snapshot_every == 0:
            pool.add_snapshot(f"iter_{it}", net)
        done = bool(
            (cfg.iterations and it >= cfg.iterations)
            # the boundary the next iteration's start will test, with this update's duration
            or (deadline is not None and t_end >= deadline - eval_reserve - update_reserve)
            or STOP.is_set()
            or (cfg.total_decisions and collected["learning_decisions"] >= cfg.total_decisions)
        )
        # a run stopped by kill skips the final evaluation: it is to stop now
        if cfg.eval_every and (it % cfg.eval_every == 0 or (done and not STOP.is_set())):
            ev = run_eval(collected["learning_decisions"])
            row.update(
                {
                    f"eval_{k}": v
                    for k, v in ev.items()
                    if "_lo_" not in k and "_hi_" not in k and "_base_" not in k
                }
            )
        logs.log(row)
        if cfg.checkpoint_every and it % cfg.checkpoint_every == 0:
            save_checkpoint(
                out / "checkpoints" / f"iter_{it:04d}.pt",
                net,
                game_config,
                asdict(cfg),
                {"iteration": it},
            )
            _critic_beside(out / "checkpoints" / f"iter_{it:04d}.pt", critic)
            plot_learning_curve(out, logs.rows, logs.evals)
        bar(row)
        summary = row
        return done

    def collect() -> dict | None:
        """The next batch: collected with the behaviour policy, with its GAE targets."""
        t0 = time.perf_counter()
        d0, ld0 = collector.decisions, collector.learning_decisions
        trajs = collector.collect(cfg.steps_per_iter, deadline=stop_at)
        if not trajs:  # the budget ran out before any game finished
            return None
        results, collector.results = collector.results, []
        return {
            "batch": make_batch(trajs, cfg.gamma, cfg.gae_lambda, cfg.shaping),
            "trajs": trajs,
            "results": results,
            "decisions": collector.decisions,
            "learning_decisions": collector.learning_decisions,
            "new_decisions": collector.decisions - d0,
            "new_learning": collector.learning_decisions - ld0,
            "collect_s": time.perf_counter() - t0,
            "totals": {f"{k}_s_total": collector.timers[k] for k in ("env", "inference", "agents")},
            "uncredited": collector.uncredited,
        }

    def last_batch(collected: dict) -> bool:
        """Whether learning ``collected`` ends the run by its iteration or decision budget
        (with ``--overlap``, no further batch is then collected)."""
        return bool(
            (cfg.iterations and it + 1 >= cfg.iterations)
            or (cfg.total_decisions and collected["learning_decisions"] >= cfg.total_decisions)
        )

    def learn(collected: dict, box: dict) -> None:
        """The PPO update on ``collected``'s batch; its stats, time or error into ``box``."""
        t = time.perf_counter()
        try:
            box["stats"] = ppo_update(net, opt, collected["batch"], cfg, update_rng, critic)
        except BaseException as err:  # raised again in the main thread
            box["error"] = err
        box["stats_s"] = time.perf_counter() - t

    def learned(box: dict) -> tuple[dict, float]:
        """``(stats, seconds)`` of a finished update (its error raised here); the caller
        marks ``box["counted"]`` once the iteration counts it."""
        nonlocal update_time, update_reserve
        if "error" in box:
            raise box["error"]
        update_time += box["stats_s"]
        update_reserve = box["stats_s"]
        return box["stats"], box["stats_s"]

    worker: threading.Thread | None = None
    box: dict = {}
    pending: dict | None = None  # --overlap: collected, waiting for its update
    clock = CompileClock().start()
    try:
        if interrupted:
            pass  # stopped in the warm start: no PPO iteration
        elif not cfg.overlap:
            while True:
                stop_at = None if deadline is None else deadline - eval_reserve - update_reserve
                if _due(stop_at):
                    break  # the budget is spent (e.g. by the warm start): no iteration starts
                t0, c0 = time.perf_counter(), clock.seconds()
                collected = collect()
                if collected is None:
                    break
                it += 1
                box = {}
                learn(collected, box)
                stats, update_s = learned(box)
                box["counted"] = True
                t2 = time.perf_counter()
                collected["wall_s"], collected["compile_s"] = t2 - t0, clock.seconds() - c0
                if finish(collected, stats, update_s, t2):
                    break
        else:
            while True:
                stop_at = None if deadline is None else deadline - eval_reserve - update_reserve
                over = _due(stop_at)
                if pending is None and over:
                    break
                t0, c0 = time.perf_counter(), clock.seconds()
                box = {}
                if pending is not None:
                    worker = threading.Thread(target=learn, args=(pending, box), daemon=True)
                    worker.start()
                # no batch is collected that would not be learned
                final = pending is not None and (over or last_batch(pending))
                collected = None if final else collect()
                t1 = time.perf_counter()
                if collected is not None:
                    collected["wall_s"], collected["compile_s"] = t1 - t0, clock.seconds() - c0
                if worker is not None:
                    worker.join()
                    worker = None
                    stats, update_s = learned(box)
                    box["counted"] = True
                    t2 = time.perf_counter()
                    assert pending is not None
                    it += 1
                    if finish(pending, stats, update_s, t2):
                        break
                if collected is None:
                    break
                behave.load_state_dict(net.state_dict())  # the next batch's policy
                if behave_critic is not None and critic is not None:
                    behave_critic.load_state_dict(critic.state_dict())
                pending = collected
    except KeyboardInterrupt:  # Ctrl-C: keep what was learned
        interrupted = True
        if worker is not None and worker.is_alive():
            worker.join()  # an update in flight finishes before the weights are written
        if "stats" in box and not box.get("counted") and pending is not None:
            # --overlap: that update is in the weights, so its iteration is logged too
            stats, update_s = learned(box)
            box["counted"] = True
            it += 1
            finish(pending, stats, update_s, time.perf_counter())
        net.eval()
        print(f"\ninterrupted in iteration {it}: writing {out / 'final.pt'}", file=sys.stderr)
    finally:
        clock.stop()
        if worker is not None and worker.is_alive():
            worker.join()  # never leave the learner changing the weights after an error
    if (
        cfg.eval_every
        and it > 0
        and last_eval["iteration"] != it
        and not interrupted
        and not STOP.is_set()
    ):
        # the loop ended without marking its last iteration done (no game finished before the
        # budget's end): that iteration still gets the final evaluation
        run_eval(int(summary["learning_decisions"]))
    if STOP.is_set() and not interrupted:
        interrupted = True
        print(
            f"\nstopped by kill (SIGTERM) after iteration {it}: writing {out / 'final.pt'}",
            file=sys.stderr,
        )
    final = save_checkpoint(
        out / "final.pt",
        net,
        game_config,
        asdict(cfg),
        {
            "iteration": summary.get("iteration", 0),
            # the decisions the logged iterations learned from (with --overlap the collector
            # may hold a batch collected but not learned, when interrupted)
            "learning_decisions": summary.get("learning_decisions", 0),
            **({"interrupted": True} if interrupted else {}),
        },
    )
    _critic_beside(final, critic)
    plot_learning_curve(out, logs.rows, logs.evals)
    logs.close()
    bar(None)
    return {
        "checkpoint": str(final),
        "critic": str(critic_file(final)) if critic is not None else None,
        "best_dev": str(best) if best.exists() else None,
        "best_dev_score": best_score if best.exists() else None,
        "out": str(out),
        "last": summary,
        "interrupted": interrupted,
        "timers": dict(collector.timers, update=update_time),
    }


def _explained_var(v: torch.Tensor, r: torch.Tensor) -> float:
    var = float(r.var())
    return float("nan") if var == 0 else 1.0 - float((r - v).var()) / var


def _warm_start_progress(cfg: TrainConfig):
    """A progress callback for the warm start's demonstrations (tqdm over ``bc_decisions``
    when available, else nothing); ``callback(None)`` closes it."""
    bar = None
    if cfg.progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=cfg.bc_decisions, unit="dec", desc="warm start", file=sys.stderr)
        except ImportError:
            print(f"warm start: playing {cfg.bc_decisions} heuristic decisions", file=sys.stderr)
    state = {"last": 0}

    def update(decisions):
        if bar is None:
            return
        if decisions is None:
            bar.close()
            return
        bar.update(decisions - state["last"])
        state["last"] = decisions

    return update


def _progress(cfg: TrainConfig):
    """A progress callback: tqdm when available, else one line per row.  The bar counts the
    first budget given of ``--total-decisions`` (learning decisions), ``--iterations`` and
    ``--minutes`` (seconds); with none, learning decisions without a total.  (With several
    budgets, another may stop the run before the bar is full.)"""
    if cfg.total_decisions:
        unit, total = "dec", cfg.total_decisions
    elif cfg.iterations:
        unit, total = "it", cfg.iterations
    elif cfg.minutes:
        unit, total = "s", int(cfg.minutes * 60)
    else:
        unit, total = "dec", 0
    key = {"dec": "learning_decisions", "it": "iteration", "s": "elapsed_s"}[unit]
    bar = None
    if cfg.progress:
        try:
            from tqdm import tqdm

            # a time budget's rate would read "s/s": its bar shows seconds, no rate
            fmt = (
                "{l_bar}{bar}| {n_fmt}/{total_fmt} s [{elapsed}<{remaining}{postfix}]"
                if unit == "s"
                else None
            )
            bar = tqdm(
                total=total or None, unit=unit, desc="train", file=sys.stderr, bar_format=fmt
            )
        except ImportError:
            bar = None
    state = {"last": 0}

    def update(row):
        if row is None:
            if bar is not None:
                bar.close()
            return
        if bar is not None:
            # a batch is a little larger than --steps-per-iter: never past the total
            pos = int(row[key]) if not total else min(int(row[key]), total)
            bar.update(max(0, pos - state["last"]))
            state["last"] = pos
            bar.set_postfix(
                it=row["iteration"],
                ent=f"{row['entropy']:.2f}",
                win=_win_text(row),
                dps=f"{row['decisions_per_s']:.0f}",
            )
        elif cfg.progress:
            print(
                f"it {row['iteration']}: {row['learning_decisions']} decisions, "
                f"entropy {row['entropy']:.2f}, win {_win_text(row)}",
                file=sys.stderr,
            )

    return update


def _win_text(row: dict) -> str:
    """The iteration's training win rate of every role played, ``"gold-digger 0.52 ..."``."""
    return " ".join(
        f"{k[len('win_') :]} {v:.2f}" for k, v in row.items() if k.startswith("win_") and v == v
    )


def _interrupt(signum, frame) -> None:
    STOP.set()  # see STOP: the run stops at its next safe point


def main(argv=None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--evaluate" in argv:
        from saboteur_experiments.cli_args import (
            check_deal_range,
            check_output_file,
        )

        p = evaluate_parser()
        a, unknown = p.parse_known_args(argv)
        for u in unknown:  # --threads and its abbreviations (a training option)
            name = u.split("=", 1)[0]
            if len(name) > 4 and "--threads".startswith(name):
                # batch-1 inference runs one torch thread per process (saboteur_agents.ppo)
                p.error(f"{name}: an evaluation runs one torch thread per process; use --workers N")
        if unknown:
            p.error(f"unrecognized arguments: {' '.join(unknown)}")
        if a.evaluate == "ppo" or a.evaluate.startswith("ppo:"):
            # a shipped checkpoint, wherever the package is installed (the agents' own names)
            from saboteur_agents.ppo import checkpoint_path, parse_option
            from saboteur_env.engine.ruleset import ruleset_of

            option = a.evaluate[len("ppo:") :] if ":" in a.evaluate else ""
            path, greedy = parse_option(option)
            if greedy or path.startswith("avg="):
                p.error(f"--evaluate {a.evaluate!r}: one checkpoint, evaluated as it samples")
            if path and a.expansion:
                p.error(f"--expansion: only with --evaluate ppo ({a.evaluate!r} names its game)")
            a.evaluate = checkpoint_path(option, ruleset_of(a.expansion))
        elif a.expansion:
            p.error("--expansion: only with --evaluate ppo (a checkpoint file names its game)")
        if not Path(a.evaluate).is_file():
            p.error(f"--evaluate {a.evaluate!r}: no such checkpoint file")
        check_deal_range(p, a)
        if a.json:
            check_output_file(p, a.json, "--json")
        try:
            res = evaluate_checkpoint(
                a.evaluate,
                a.deals,
                a.seed,
                workers=a.workers,
                num_rounds=a.rounds,
                split=a.split,
                first=a.first_deal,
            )
        except ValueError as err:  # CheckpointMismatchError: the user's file, not a crash
            p.error(f"--evaluate {a.evaluate!r}: {err}")
        _print_evaluation(res)
        if a.json:
            write_json(a.json, res)
        return
    cfg = parse_args(argv)
    # `kill PID` (SIGTERM) stops a run as Ctrl-C does, final.pt included: a job started in the
    # background of a non-interactive shell ignores SIGINT, so Ctrl-C cannot reach it
    STOP.clear()
    before = signal.signal(signal.SIGTERM, _interrupt)
    try:
        res = train(cfg)
    finally:
        signal.signal(signal.SIGTERM, before)
    last = res["last"]
    print(f"checkpoint: {res['checkpoint']}" + (" (interrupted)" if res["interrupted"] else ""))
    if last:
        print(
            f"iterations {last['iteration']}, learning decisions "
            f"{last['learning_decisions']}, decisions {last['decisions']}, "
            f"{last['elapsed_s']:.0f} s"
        )
    else:  # a budget shorter than one iteration: nothing was learned, nothing to log
        print(
            "no PPO iteration finished (the budget ran out, or Ctrl-C or kill came, before the "
            "first): "
            "final.pt holds the weights before PPO (the warm start's fit, if bc.json counts "
            "bc_minibatches above 0; else the initial weights) and there is no metrics.csv"
        )
    t = res["timers"]
    print(
        f"time: env {t['env']:.0f} s, inference {t['inference']:.0f} s, "
        f"update {t['update']:.0f} s, other agents {t['agents']:.0f} s"
        + (" (the prior's scores included)" if cfg.prior else "")
    )


if __name__ == "__main__":
    main()
