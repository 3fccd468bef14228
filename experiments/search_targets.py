"""Search targets: one step of expert iteration for the PPO policy (issue 18's "search targets").

The policy is improved by a search that compares its own candidate moves, not by PPO's noisy
returns.  Two stages, each a command:

``collect``
    Plays one-round games of the role-probe's own table on **train** deals
    (:func:`~saboteur_experiments.evaluation.splits.draw_train_seed`): the learning seat is a
    seat holding the role asked for (saboteur and gold-digger alternately, RULES 2.2) and plays
    the checkpoint being improved; every other seat is the heuristic (``heuristic``, its current
    version).  At a decision of the learning seat in a normal turn (RULES 4) with two or more
    legal actions, the *candidates* are the policy's ``top`` most probable actions and the
    heuristic's choice for that seat (a shadow heuristic fed the seat's observations and
    events), and each candidate is scored by one **rollout from the true state**: a copy of
    the live game (:meth:`~saboteur_env.engine.state.Game.copy`, the deck's order included),
    the candidate applied, every seat then played to the end of the round by the heuristic fed
    the events it could see (:func:`saboteur_agents.ismcts.heuristic_playout`,
    ``rollout=events``), the same players' seeds for every candidate.  The value ``q`` is 1
    when the learning seat won the round (RULES 5.3), else 0.

    Reading the true state is allowed here because it is training, not play: the policy still
    reads only its observation.  For one state the rollout is deterministic, so two
    candidates' values differ only where the move itself changes the round's outcome (common
    random numbers); over the states of one information set, which the games visit with their
    true frequencies, the mean of ``q`` is the candidate's value under heuristic play from
    there on, :math:`Q^h(I, a)`: ``q`` is an unbiased estimate of it, with none of a whole
    game's noise.  (The fitted target below, an average of per-state reweightings
    :math:`\\exp(\\beta q)`, is not :math:`\\pi_0 \\exp(\\beta Q^h)` itself, but it moves
    probability the same way: toward the moves that won more often.)

``fit``
    Trains the policy toward the improved distribution of every collected state
    (:func:`improved_targets`): the starting policy :math:`\\pi_0` with its mass on the
    candidates reweighted by :math:`\\exp(\\beta\\,q_a)` (the candidates' total mass kept,
    every other action's probability unchanged), minimising the cross-entropy (the KL to the
    target) by Adam.  Only the policy is trained; the value head is left to drift with the
    shared trunk (a later PPO run re-fits it).  The result is an ordinary checkpoint
    (``ppo:PATH``).

Files: ``collect`` writes ``OUT/shard_SEED.npz`` (:func:`save_shard`) and ``OUT/collect_SEED.json``
(its options and counts); ``fit`` writes the checkpoint ``OUT`` with its metadata beside it
(``OUT`` with suffix ``.json``, as every checkpoint; its ``train_config`` is the starting
checkpoint's with a ``search_targets`` entry added) and ``OUT.fit.json`` (its options, the
figures of every epoch).  Neither overwrites an existing output without ``--overwrite``.

Figures.  ``q`` is a round's outcome for the learning seat, 1 won and 0 lost, so a mean of ``q``
is a win rate (a fraction; the README quotes differences of it in points, hundredths).
``collect_SEED.json`` gives per role the searched ``states``, the mean ``q`` of the policy's
most probable candidate (``q_policy_top``), of the heuristic's choice (``q_heuristic``) and of
the best candidate of each state (``q_best``, which knows the true state), and the
``states_with_a_difference`` (not every candidate had the same ``q``).  ``fit`` prints per
epoch the mean training ``loss`` (the cross-entropy to the targets) and, on the held-out
deals' states, ``kl`` (the mean KL divergence from the starting policy to the fitted one,
nats) and ``value`` against ``value_start``: the candidates' mean ``q`` weighted by the fitted
and by the starting policy's probabilities (``sum_a pi(a) q_a / sum_a pi(a)`` over each
state's candidates), the win rate a decision of each would get under heuristic play from
there on.  (This ``value`` is not the network's value head.)  Run as ``python -m
saboteur_experiments.search_targets collect ...`` / ``fit ...`` (``--help``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from saboteur_agents.base import Agent
from saboteur_env.engine.config import GameConfig

#: the arrays of a shard and their dtypes; ``K`` is ``top + 1`` (unused slots: -1 / NaN)
SHARD_FIELDS = {
    "obs": np.float16,  # (m, obs_size): the learning seat's observation
    "mask": np.uint8,  # (m, ceil(n_actions / 8)): np.packbits of the action mask
    "cand": np.int32,  # (m, K): candidate flat actions, -1 padded
    "q": np.float32,  # (m, K): rollout values (1 won, 0 lost), NaN padded
    "p0": np.float32,  # (m, K): the collecting policy's probabilities of the candidates
    "role": np.int8,  # (m,): the learning seat's role id
    "deal": np.int64,  # (m,): the deal seed (train split)
    "heuristic": np.int32,  # (m,): the heuristic's choice (one of cand)
    "played": np.int32,  # (m,): the action the policy played in the game
}


@dataclass
class CollectConfig:
    """Options of :func:`collect` (see the module docstring).

    Attributes:
        checkpoint: the policy to improve (``.pt``).
        out: the output folder.
        seed: the run's seed (deals, agents' seeds, the policy's sampling).
        players: the number of players (base game).
        top: the policy's most probable actions searched (plus the heuristic's choice).
        minutes: stop starting games after this many wall minutes (``None``: ``games`` only).
        games: stop after this many games (``None``: ``minutes`` only).
        roles: the learning seat's roles, in turn (names of the base game's roles; ``None``:
            the saboteur, then every other role of the ruleset).
        threads: torch threads.
        overwrite: replace an existing shard of this seed in ``out``.
    """

    checkpoint: str
    out: str
    seed: int = 0
    players: int = 5
    top: int = 4
    minutes: float | None = None
    games: int | None = None
    roles: tuple[str, ...] | None = None
    threads: int = 1
    overwrite: bool = False


def collect(cfg: CollectConfig, progress: bool = True) -> dict:
    """Collect search targets (module docstring) and write ``OUT/shard_SEED.npz``.

    Returns:
        The summary written to ``OUT/collect_SEED.json``: the options, ``games``, ``states``,
        ``rollouts``, ``wall_s``, ``interrupted`` (Ctrl-C: the games finished by then are
        kept and written), and per role the figures of the module docstring.  The time
        budget is checked between games: a run ends with the game it is playing.

    Raises:
        ValueError: a bad option (named: no ``minutes`` nor ``games``, one of them not > 0,
            ``top`` or ``threads`` < 1, no or an unknown role, an ``out`` that is a file, a
            shard of this seed there already without ``overwrite``), a checkpoint that is
            not one of the base game's spaces or is a residual on a prior.
        FileNotFoundError: the checkpoint does not exist.
    """
    import torch

    import saboteur_env
    from saboteur_agents.network import CheckpointMismatchError
    from saboteur_agents.ppo import PPOAgent

    if cfg.minutes is None and cfg.games is None:
        raise ValueError("collect: give minutes or games (or both)")
    if cfg.top < 1:
        raise ValueError(f"collect: top must be >= 1, got {cfg.top}")
    if cfg.games is not None and cfg.games < 1:
        raise ValueError(f"collect: games must be >= 1, got {cfg.games}")
    if cfg.minutes is not None and not 0 < cfg.minutes < float("inf"):
        raise ValueError(f"collect: minutes must be a finite number > 0, got {cfg.minutes}")
    if cfg.threads < 1:
        raise ValueError(f"collect: threads must be >= 1, got {cfg.threads}")
    if cfg.roles is not None and not cfg.roles:
        raise ValueError("collect: give at least one role (--roles)")
    out = Path(cfg.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"collect: --out {out} is a file; give a folder")
    if (out / f"shard_{cfg.seed}.npz").exists() and not cfg.overwrite:
        raise ValueError(
            f"collect: {out / f'shard_{cfg.seed}.npz'} exists; pass --overwrite to replace it "
            "or another --seed or --out"
        )
    torch.set_num_threads(cfg.threads)
    env = saboteur_env.raw_env(num_players=cfg.players, num_rounds=1, backend="engine")
    rules = env.config.ruleset
    if cfg.roles is None:
        role_ids = [rules.saboteur] + [r for r in range(rules.n_roles) if r != rules.saboteur]
    else:
        unknown = [r for r in cfg.roles if r not in rules.roles]
        if unknown:
            raise ValueError(f"collect: unknown roles {unknown}; the base game's: {rules.roles}")
        role_ids = [rules.roles.index(r) for r in cfg.roles]
    config = env.config
    rng = np.random.default_rng(cfg.seed)
    policy = PPOAgent(cfg.checkpoint)
    try:
        policy.reset(0, config)  # loads the network (its spaces checked against the game's)
    except CheckpointMismatchError as err:
        raise ValueError(
            f"collect: {cfg.checkpoint} is not a checkpoint of the base game's spaces (search "
            f"targets play the base game): {str(err).splitlines()[0][:300]}"
        ) from None
    if getattr(policy.net, "prior", ""):
        raise ValueError(
            f"collect: {cfg.checkpoint} is a residual on the prior {policy.net.prior!r}; "
            "fit trains a network's own policy (a checkpoint without --prior)"
        )
    space = env.observation_space(env.possible_agents[0])["observation"]
    if np.abs(np.concatenate([space.low, space.high])).max() > 2048:
        # float16 holds every integer up to 2048 exactly: the shards would lose information
        raise ValueError("collect: observation values beyond +-2048 do not fit float16 shards")
    rows: dict[str, list] = {k: [] for k in SHARD_FIELDS}
    done = {"games": 0, "rollouts": 0, "states": 0}  # counts of the games finished
    t0 = time.time()
    deadline = None if cfg.minutes is None else t0 + 60 * cfg.minutes
    bar = _bar(progress, cfg)
    interrupted = False
    try:
        _play(cfg, env, rng, role_ids, policy, rows, done, deadline, bar)
    except KeyboardInterrupt:  # keep the states of the games finished so far
        interrupted = True
        for k in rows:
            del rows[k][done["states"] :]
    finally:
        if bar is not None:
            bar.close()
    out.mkdir(parents=True, exist_ok=True)
    shard = save_shard(out / f"shard_{cfg.seed}.npz", rows, cfg.top + 1, env)
    summary = {
        "options": asdict(cfg),
        "games": done["games"],
        "states": len(rows["role"]),
        "rollouts": done["rollouts"],
        "wall_s": round(time.time() - t0, 1),
        "interrupted": interrupted,
        "shard": str(shard),
        "roles": _summary(load_shards([shard]), rules.roles),
    }
    (out / f"collect_{cfg.seed}.json").write_text(json.dumps(summary, indent=2) + "\n")
    if interrupted:
        print(f"collect: interrupted; kept the {done['games']} games finished", file=sys.stderr)
    return summary


def _play(cfg, env, rng, role_ids, policy, rows, done, deadline, bar) -> None:
    """The games of :func:`collect`, through :func:`~saboteur_experiments.play.play_game`
    with a :class:`TargetCollector` in the learning seat: appends each searched state to
    ``rows`` and, when a game ends, counts it in ``done`` (``games``, ``rollouts``,
    ``states``: what an interrupted run keeps)."""
    from saboteur_agents.heuristic import HeuristicAgent
    from saboteur_experiments.evaluation.protocols import dealt_roles
    from saboteur_experiments.evaluation.splits import TRAIN, draw_train_seed
    from saboteur_experiments.play import play_game

    n = cfg.players
    collector = TargetCollector(policy, rng, cfg.top, rows)
    opponents = [HeuristicAgent() for _ in range(n)]
    while (cfg.games is None or done["games"] < cfg.games) and (
        deadline is None or time.time() < deadline
    ):
        role = role_ids[done["games"] % len(role_ids)]
        deal = draw_train_seed(rng)
        if deal not in TRAIN:  # never a dev or test deal (DESIGN 9)
            raise RuntimeError(f"collect: deal seed {deal} is outside the train split")
        seats = np.flatnonzero(dealt_roles(deal, n) == role)
        if not len(seats):
            continue  # no seat holds the role in this deal: another deal
        learner = int(seats[rng.integers(len(seats))])
        seeds = [int(rng.integers(2**63)) for _ in range(n)]
        collector.deal = deal
        agents = [collector if s == learner else opponents[s] for s in range(n)]
        play_game(agents, deal, agent_seeds=seeds, num_rounds=1, backend=env.backend)
        done.update(games=done["games"] + 1, rollouts=collector.rollouts, states=len(rows["role"]))
        if bar is not None:
            bar.update(1)
            bar.set_postfix(states=done["states"])


class TargetCollector(Agent):
    """The learning seat of :func:`collect`: plays the policy (sampling its own move) and, at
    each normal turn (RULES 4) with two or more legal actions, scores the candidates by
    :func:`candidate_values` and appends the state to ``rows`` (:data:`SHARD_FIELDS`).

    It reads the **true** game it is attached to, which breaks the agent contract
    (:attr:`saboteur_agents.base.Agent.needs_game`: a search agent may read the game only
    through ``game.determinize``) on purpose: the values are training targets, and the policy
    itself still reads only its observation.  Not a registered agent.

    Args:
        policy: a :class:`~saboteur_agents.ppo.PPOAgent` (its own network, no prior).
        rng: the run's generator (the policy's samples and the rollout seeds).
        top: the policy's most probable actions searched (plus the heuristic's choice).
        rows: the shard's columns, appended to.

    Attributes:
        deal: the deal seed of the game being played (set by the caller, stored per state).
        rollouts: the rollouts run so far.
    """

    name = "search-targets"
    needs_game = True

    def __init__(self, policy, rng: np.random.Generator, top: int, rows: dict[str, list]):
        from saboteur_agents.heuristic import HeuristicAgent

        self.policy, self.stream, self.top, self.rows = policy, rng, top, rows
        self.shadow = HeuristicAgent()  # the heuristic's choice for this seat
        self.deal = -1
        self.rollouts = 0
        self._config: GameConfig | None = None

    def reset(self, seat: int, config: GameConfig, seed: int | None = None) -> None:
        """A new game: the policy and the shadow heuristic get the seat's seed."""
        super().reset(seat, config, seed)
        self.policy.reset(seat, config, seed=seed)
        self.shadow.reset(seat, config, seed=seed)
        if self._config != config:
            from saboteur_agents.heuristic import HeuristicAgent
            from saboteur_env.encoding.codec import Codec
            from saboteur_env.encoding.observation import ObservationEncoder

            self._config = config
            self.codec, self.encoder = Codec(config), ObservationEncoder(config)
            self.players = [HeuristicAgent() for _ in range(config.num_players)]  # rollouts

    def act(self, observation, action_mask, info=None) -> int:
        """The policy's sampled move; the state recorded first when it is searched."""
        import torch

        from saboteur_agents.network import masked_log_probs
        from saboteur_env.engine.phases import Phase

        mask = np.asarray(action_mask)
        legal, hscores = self.shadow.scores(observation, mask, info)
        logits = self.policy.policy_logits(observation, mask, info)[0].numpy()
        # float64: rng.choice checks that the probabilities sum to 1
        z = torch.from_numpy(logits).double()[None]
        p = masked_log_probs(z, torch.from_numpy(mask)[None])[0].exp().numpy()
        action = int(self.stream.choice(len(p), p=p))  # the policy's own move: its state visits
        phase = self.encoder.phase_of(self.encoder.views(np.asarray(observation)))
        if len(legal) < 2 or phase is not Phase.TURN:
            return action
        h = int(legal[int(np.argmax(hscores))])
        top = [int(a) for a in np.argsort(-p, kind="stable")[: self.top] if mask[a]]
        cand = top + ([h] if h not in top else [])
        seed = int(self.stream.integers(2**63))
        q = candidate_values(self.game, cand, self.players, self.codec, self.encoder, seed)
        self.rollouts += len(cand)
        pad = self.top + 1 - len(cand)
        rows = self.rows
        rows["obs"].append(np.asarray(observation, dtype=np.float16))
        rows["mask"].append(np.packbits(mask.astype(bool)))
        rows["cand"].append(cand + [-1] * pad)
        rows["q"].append(q + [np.nan] * pad)
        rows["p0"].append([float(p[a]) for a in cand] + [np.nan] * pad)
        rows["role"].append(int(self.game.roles[self.seat]))
        rows["deal"].append(self.deal)
        rows["heuristic"].append(h)
        rows["played"].append(action)
        return action


def candidate_values(game, cand: Sequence[int], players, codec, encoder, seed: int) -> list[float]:
    """The rollout value of each candidate from the true state of ``game`` (module docstring):
    for each, a copy of the game, the candidate applied for the seat to act, then every seat
    played to the end of the round by ``players`` (heuristics fed the events they could see,
    :func:`saboteur_agents.ismcts.heuristic_playout`) seeded alike from ``seed``.  ``game`` is
    not changed.

    Args:
        game: the live :class:`~saboteur_env.engine.state.Game`, at the decision.
        cand: flat actions legal for ``game.current`` (from the env's mask: not re-checked).
        players: one :class:`~saboteur_agents.heuristic.HeuristicAgent` per seat.
        codec, encoder: the env's codec and observation encoder of the game's config.
        seed: the rollout players' seed (the same for every candidate).

    Returns:
        One float per candidate: 1.0 when the seat to act won the round (RULES 5.3, 6.9),
        else 0.0.

    Raises:
        saboteur_env.engine.IllegalActionError: a candidate that is
            not legal for the seat to act.
    """
    from saboteur_agents.ismcts import heuristic_playout
    from saboteur_env.engine.scoring import seat_won

    s, n, r0 = game.current, game.n, len(game.round_results)
    q = []
    for a in cand:
        sim = game.copy()
        sim.apply(codec.decode(int(a), s, n))  # verified: a bad candidate raises here
        heuristic_playout(
            sim, players, game.config, codec, encoder, np.random.default_rng(seed), r0, True
        )
        res = sim.round_results[r0]
        q.append(float(seat_won(res.winners, res.roles, res.paid, s, game.rules)))
    return q


def _bar(progress: bool, cfg: CollectConfig):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=cfg.games, unit="game", desc="search targets", mininterval=5)


def save_shard(path: Path, rows: dict[str, list], k: int, env) -> Path:
    """Write the collected rows as one compressed ``.npz`` (:data:`SHARD_FIELDS`), with
    ``n_actions`` and ``obs_size`` so that a reader can unpack the masks."""
    m = len(rows["role"])
    n_actions = env.action_space(env.possible_agents[0]).n
    obs_size = env.observation_space(env.possible_agents[0])["observation"].shape[0]
    arrays = {}
    for name, dtype in SHARD_FIELDS.items():
        if m:
            arrays[name] = np.asarray(rows[name], dtype=dtype)
        else:  # an empty shard keeps its shapes
            width = {"obs": (obs_size,), "mask": ((n_actions + 7) // 8,), "cand": (k,)}
            width.update({"q": (k,), "p0": (k,)})
            arrays[name] = np.zeros((0, *width.get(name, ())), dtype=dtype)
    np.savez_compressed(path, n_actions=n_actions, obs_size=obs_size, **arrays)
    return path


def load_shards(paths: Sequence[str | Path]) -> dict[str, np.ndarray]:
    """The rows of several shards, concatenated; ``mask`` unpacked to bool ``(m, n_actions)``.

    Raises:
        ValueError: no paths, a path given twice, a file that is not a shard of
            :func:`collect` (named), or shards of different games (action or observation
            sizes).
    """
    if not paths:
        raise ValueError("load_shards: no shard given")
    seen = [Path(p).resolve() for p in paths]
    if len(set(seen)) < len(seen):
        raise ValueError("load_shards: a shard is given twice: its states would count twice")
    parts = []
    for p in paths:
        try:
            z = np.load(p, allow_pickle=False)
            missing = {"n_actions", "obs_size", *SHARD_FIELDS} - set(z.files)
        except (OSError, ValueError, AttributeError) as err:
            raise ValueError(f"load_shards: {p} is not a shard of collect ({err})") from None
        if missing:
            raise ValueError(f"load_shards: {p} is not a shard of collect (no {sorted(missing)})")
        parts.append(z)
    sizes = {(int(z["n_actions"]), int(z["obs_size"])) for z in parts}
    if len(sizes) != 1:
        raise ValueError(f"load_shards: shards of different games (actions, obs): {sizes}")
    ((n_actions, _),) = sizes
    k = max(z["cand"].shape[1] for z in parts)
    out: dict[str, np.ndarray] = {}
    for name in SHARD_FIELDS:
        cols = []
        for z in parts:
            a = z[name]
            if name in ("cand", "q", "p0") and a.shape[1] < k:  # pad to the widest shard
                fill = -1 if name == "cand" else np.nan
                a = np.concatenate([a, np.full((len(a), k - a.shape[1]), fill, a.dtype)], 1)
            cols.append(a)
        out[name] = np.concatenate(cols)
    out["mask"] = np.unpackbits(out["mask"], axis=1, count=n_actions).astype(bool)
    return out


def _summary(data: dict[str, np.ndarray], role_names: Sequence[str]) -> dict:
    """Per role: states, and the mean rollout value of the policy's most probable
    candidate (column 0), of the heuristic's choice and of the best candidate."""
    out = {}
    for r, name in enumerate(role_names):
        sel = data["role"] == r
        if not sel.any():
            continue
        q, cand = data["q"][sel], data["cand"][sel]
        hq = q[cand == data["heuristic"][sel][:, None]]
        out[name] = {
            "states": int(sel.sum()),
            "q_policy_top": round(float(q[:, 0].mean()), 4),
            "q_heuristic": round(float(hq.mean()), 4),
            "q_best": round(float(np.nanmax(q, axis=1).mean()), 4),
            "states_with_a_difference": int((np.nanmax(q, 1) != np.nanmin(q, 1)).sum()),
        }
    return out


# --- fit --------------------------------------------------------------------------------
def improved_targets(p0, cand, q, beta: float):
    """The improved policy of each state: ``p0`` with the candidates' mass reweighted by
    ``exp(beta * q)`` (their total kept), every other action unchanged.

    Args:
        p0: float torch ``(m, n_actions)``, the starting policy's probabilities.
        cand: int64 torch ``(m, K)``, candidate actions (-1: unused slot).
        q: float torch ``(m, K)``, their values (NaN in unused slots).
        beta: the inverse temperature (0: the target is ``p0``).

    Returns:
        float torch ``(m, n_actions)``, rows summing to 1.

    Raises:
        ValueError: ``beta`` < 0.
    """
    import torch

    if beta < 0:
        raise ValueError(f"improved_targets: beta must be >= 0, got {beta}")
    used, idx, pc, qc = _on_candidates(p0, cand, q)
    w = pc * torch.exp(beta * (qc - 1.0))  # q <= 1: no overflow
    mass = pc.sum(1, keepdim=True)
    new = w / w.sum(1, keepdim=True).clamp(min=1e-30) * mass
    # add the changes: an unused slot (index clamped to 0) adds 0, where a plain scatter of
    # the values would write action 0's old probability back over its new one
    return p0.scatter_add(1, idx, torch.where(used, new - pc, torch.zeros_like(new)))


@dataclass
class FitConfig:
    """Options of :func:`fit`.

    Attributes:
        shards: the ``.npz`` shards of :func:`collect`.
        init: the checkpoint to start from (the one collected with).
        out: the checkpoint to write.
        beta: the targets' inverse temperature (:func:`improved_targets`).
        epochs, lr, minibatch: Adam's passes over the states, learning rate, batch size.
        holdout: the fraction of deals held out for the figures of every epoch.
        seed: shuffles and the held-out deals.
        threads: torch threads.
        overwrite: replace an existing ``out`` (never the ``init`` checkpoint itself).
    """

    shards: tuple[str, ...]
    init: str
    out: str
    beta: float = 3.0
    epochs: int = 4
    lr: float = 1e-4
    minibatch: int = 256
    holdout: float = 0.1
    seed: int = 0
    threads: int = 2
    overwrite: bool = False


def fit(cfg: FitConfig, progress: bool = True) -> dict:
    """Train the policy toward :func:`improved_targets` (module docstring) and save it.

    Returns:
        The summary also written to ``OUT.fit.json``: the options, ``states`` (train and
        held out), ``checkpoint``, ``checkpoint_bytes``, ``wall_s`` and, per epoch, the mean
        loss and on the held-out states the mean KL from the starting policy and the
        candidates' value under the policy (``sum_a pi(a) q_a / sum_a pi(a)`` over the
        candidates) against the starting policy's.

    Raises:
        ValueError: a bad option (each named), a residual (``--prior``) checkpoint, or no
            states to train on.
        CheckpointMismatchError: shards of another game than the checkpoint's, or collected
            with another checkpoint (their stored probabilities differ).
    """
    import torch

    from saboteur_agents.network import load_checkpoint, masked_log_probs, save_checkpoint

    bad = [
        f"{name}={value!r} ({want})"
        for name, value, ok, want in (
            ("epochs", cfg.epochs, cfg.epochs >= 1, "an int >= 1"),
            ("minibatch", cfg.minibatch, cfg.minibatch >= 1, "an int >= 1"),
            ("holdout", cfg.holdout, 0 <= cfg.holdout < 1, "in [0, 1)"),
            ("lr", cfg.lr, 0 < cfg.lr < float("inf"), "a finite number > 0"),
            ("beta", cfg.beta, 0 <= cfg.beta < float("inf"), "a finite number >= 0"),
            ("threads", cfg.threads, cfg.threads >= 1, "an int >= 1"),
        )
        if not ok
    ]
    if bad:
        raise ValueError("fit: bad options: " + "; ".join(bad))
    out = Path(cfg.out)
    if out.is_dir():
        raise ValueError(f"fit: --out {out} is a folder; give the checkpoint's file name (.pt)")
    if out.exists() and out.resolve() == Path(cfg.init).resolve():
        raise ValueError(f"fit: --out {out} is the --init checkpoint; write another file")
    if out.exists() and not cfg.overwrite:
        raise ValueError(f"fit: {out} exists; pass --overwrite to replace it")
    t0 = time.time()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    data = load_shards(cfg.shards)
    m = len(data["role"])
    if m == 0:
        raise ValueError(f"fit: the shards {list(cfg.shards)} hold no state")
    net, meta = load_checkpoint(cfg.init)
    if (
        net.spec["n_actions"] != data["mask"].shape[1]
        or net.spec["obs_size"] != data["obs"].shape[1]
    ):
        from saboteur_agents.network import CheckpointMismatchError

        raise CheckpointMismatchError(
            f"fit: the shards' game (actions {data['mask'].shape[1]}, observation "
            f"{data['obs'].shape[1]}) is not the checkpoint's ({net.spec['n_actions']}, "
            f"{net.spec['obs_size']}): {cfg.init} was trained for another game"
        )
    if net.prior:
        raise ValueError(
            f"fit: {cfg.init} is a residual on the prior {net.prior!r}; search targets fit a "
            "network's own policy (a checkpoint without --prior)"
        )
    ref, _ = load_checkpoint(cfg.init)  # the starting policy, frozen
    _check_collected_with(ref, data, cfg.init)
    rng = np.random.default_rng(cfg.seed)
    deals = np.unique(data["deal"])
    held = set(rng.choice(deals, size=int(round(cfg.holdout * len(deals))), replace=False).tolist())
    is_held = np.array([d in held for d in data["deal"]])
    train_idx, held_idx = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    if not len(train_idx):
        raise ValueError("fit: every state is held out; lower holdout")
    if not len(held_idx) and cfg.holdout > 0:
        print(
            f"fit: {len(deals)} deals are too few to hold out {cfg.holdout:.0%} of them: "
            "no held-out figures (kl, value)",
            file=sys.stderr,
        )

    def batch(idx):
        obs = torch.tensor(data["obs"][idx].astype(np.float32))
        mask = torch.tensor(data["mask"][idx])
        cand = torch.tensor(data["cand"][idx].astype(np.int64))
        q = torch.tensor(data["q"][idx])
        with torch.no_grad():
            logp0 = masked_log_probs(ref(obs)[0], mask)
            target = improved_targets(logp0.exp(), cand, q, cfg.beta)
        return obs, mask, cand, q, logp0, target

    def held_figures() -> dict:
        if not len(held_idx):
            return {}
        net.eval()
        kl = v_new = v_old = 0.0
        with torch.no_grad():
            for i in range(0, len(held_idx), 512):
                obs, mask, cand, q, logp0, _ = batch(held_idx[i : i + 512])
                logp = masked_log_probs(net(obs)[0], mask)
                p0, p = logp0.exp(), logp.exp()
                kl += float((p0 * (logp0 - logp)).sum())
                v_new += float(_candidate_value(p, cand, q).sum())
                v_old += float(_candidate_value(p0, cand, q).sum())
        h = len(held_idx)
        return {"kl": kl / h, "value": v_new / h, "value_start": v_old / h}

    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    epochs = []
    for epoch in range(cfg.epochs):
        net.train()
        order = rng.permutation(train_idx)
        total = 0.0
        for i in range(0, len(order), cfg.minibatch):
            obs, mask, _, _, _, target = batch(order[i : i + cfg.minibatch])
            logp = masked_log_probs(net(obs)[0], mask)
            loss = -(target * torch.where(mask, logp, torch.zeros_like(logp))).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
            total += float(loss.detach()) * len(obs)
        row = {"epoch": epoch + 1, "loss": total / len(order), **held_figures()}
        epochs.append(row)
        if progress:
            print(json.dumps(row))
    net.eval()
    train_config = {
        **(meta.get("train_config") or {}),
        "search_targets": {k: v for k, v in asdict(cfg).items() if k != "out"},
    }
    path = save_checkpoint(cfg.out, net, meta["game_config"], train_config)
    summary = {
        "options": asdict(cfg),
        "states": {"train": int(len(train_idx)), "held_out": int(len(held_idx))},
        "epochs": epochs,
        "checkpoint": str(path),
        "checkpoint_bytes": path.stat().st_size,
        "wall_s": round(time.time() - t0, 1),
    }
    Path(str(cfg.out) + ".fit.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def _check_collected_with(ref, data: dict[str, np.ndarray], init: str, k: int = 256) -> None:
    """Raise :class:`~saboteur_agents.network.CheckpointMismatchError` unless ``ref`` gives the
    candidates of the first ``k`` states the probabilities stored when they were collected
    (the targets are built from ``ref``: another checkpoint would make them silently wrong)."""
    import torch

    from saboteur_agents.network import CheckpointMismatchError, masked_log_probs

    k = min(k, len(data["role"]))
    with torch.no_grad():
        obs = torch.tensor(data["obs"][:k].astype(np.float32))
        p = masked_log_probs(ref(obs)[0], torch.tensor(data["mask"][:k])).exp()
    cand, stored = torch.tensor(data["cand"][:k].astype(np.int64)), data["p0"][:k]
    used, _, pc, _ = _on_candidates(p, cand, torch.tensor(stored))
    gap = float(np.abs(pc.numpy() - np.nan_to_num(stored))[used.numpy()].max())
    if gap > 1e-3:
        raise CheckpointMismatchError(
            f"fit: the shards were not collected with {init} (its probabilities of their "
            f"candidates differ by up to {gap:.3g}); pass the checkpoint given to collect"
        )


def _on_candidates(p, cand, q):
    """``(used, idx, pc, qc)``: bool ``(m, K)`` the used slots, int64 ``(m, K)`` their
    actions (an unused slot's clamped to 0), and ``p``'s probabilities and the values ``q`` on
    them (0 in unused slots), torch tensors."""
    import torch

    used = cand >= 0
    idx = cand.clamp(min=0)
    zero = torch.zeros_like(q)
    return used, idx, torch.where(used, p.gather(1, idx), zero), torch.where(used, q, zero)


def _candidate_value(p, cand, q):
    """float torch ``(m,)``: the candidates' mean value weighted by the policy ``p``
    (``sum_a p(a) q_a / sum_a p(a)`` over each state's candidates)."""
    _, _, pc, qc = _on_candidates(p, cand, q)
    return (pc * qc).sum(1) / pc.sum(1).clamp(min=1e-30)


# --- command line -----------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> None:
    """``python -m saboteur_experiments.search_targets collect|fit ...`` (``--help``)."""
    fmt = argparse.ArgumentDefaultsHelpFormatter
    ap = argparse.ArgumentParser(
        prog="python -m saboteur_experiments.search_targets",
        description="Search targets for the PPO policy (one step of expert iteration): "
        "collect rollout values of the policy's candidate moves on train deals, then fit "
        "the policy to them (the module docstring: help(saboteur_experiments.search_targets)).",
        formatter_class=fmt,
    )
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser(
        "collect", help="play train deals and score the policy's candidates", formatter_class=fmt
    )
    c.add_argument("--checkpoint", required=True, help="the policy to improve (.pt, base game)")
    c.add_argument("--out", required=True, help="output folder (shard_SEED.npz, collect_SEED.json)")
    c.add_argument("--seed", type=int, default=0, help="deals, agents' seeds, sampling")
    c.add_argument("--players", type=int, default=5, help="players (the base game: 3-10)")
    c.add_argument("--top", type=int, default=4, help="the policy's best actions searched")
    c.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="wall minutes of games (checked between games: the last one is finished)",
    )
    c.add_argument("--games", type=int, default=None, help="games to play")
    c.add_argument(
        "--roles",
        default=None,
        help="the learning seat's roles in turn, comma-separated (default: the saboteur, then "
        "the other roles)",
    )
    c.add_argument("--threads", type=int, default=1, help="torch threads")
    c.add_argument("--overwrite", action="store_true", help="replace this seed's shard")
    f = sub.add_parser(
        "fit", help="train the policy toward the improved targets", formatter_class=fmt
    )
    f.add_argument("shards", nargs="+", help="shard_SEED.npz files of collect")
    f.add_argument("--init", required=True, help="the checkpoint collected with")
    f.add_argument("--out", required=True, help="the checkpoint to write (.pt)")
    f.add_argument("--beta", type=float, default=3.0, help="the targets' inverse temperature")
    f.add_argument("--epochs", type=int, default=4, help="passes over the states")
    f.add_argument("--lr", type=float, default=1e-4, help="Adam's learning rate")
    f.add_argument("--minibatch", type=int, default=256, help="states per step")
    f.add_argument("--holdout", type=float, default=0.1, help="fraction of deals held out")
    f.add_argument("--seed", type=int, default=0, help="shuffles and the held-out deals")
    f.add_argument("--threads", type=int, default=2, help="torch threads")
    f.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    args = ap.parse_args(argv)
    try:
        if args.command == "collect":
            res = collect(
                CollectConfig(
                    checkpoint=args.checkpoint,
                    out=args.out,
                    seed=args.seed,
                    players=args.players,
                    top=args.top,
                    minutes=args.minutes,
                    games=args.games,
                    roles=None
                    if args.roles is None
                    else tuple(r.strip() for r in args.roles.split(",") if r.strip()),
                    threads=args.threads,
                    overwrite=args.overwrite,
                )
            )
        else:
            res = fit(
                FitConfig(
                    shards=tuple(args.shards),
                    init=args.init,
                    out=args.out,
                    beta=args.beta,
                    epochs=args.epochs,
                    lr=args.lr,
                    minibatch=args.minibatch,
                    holdout=args.holdout,
                    seed=args.seed,
                    threads=args.threads,
                    overwrite=args.overwrite,
                )
            )
    except (ValueError, FileNotFoundError) as err:
        ap.error(str(err))
    print(json.dumps({k: v for k, v in res.items() if k != "epochs"}, indent=2))


if __name__ == "__main__":
    main()
