"""Multi-agent self-play PPO on RLlib (its new API stack): ``saboteur train --backend rllib``.

``python -m saboteur_experiments.train_rllib --iterations 20 --players 5 --env-runners 4
--out runs/rllib`` (or ``saboteur train --backend rllib ...`` with the same options).

* The environment: ``saboteur_env.env(num_players=N, num_rounds=1)`` (a base-game round per
  episode, reward ``win``) through RLlib's PettingZoo wrapper
  (``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``, registered as ``saboteur``), in a
  thin subclass (:class:`SaboteurRLlibEnv`) that drops the per-step ``infos`` (the event lists:
  nothing RLlib reads) and counts the actions it is given and those the mask forbids (the
  engine raises :class:`~saboteur_env.engine.errors.IllegalActionError` on one, which ends
  the run).
* One shared policy (``"shared"``) for every seat: the policy mapping sends every agent id to
  it.  ``--policies role``: one policy per role (``gold-digger``, ``saboteur``); the env then
  names its agents ``player_k@ROLE`` after the seat's role in the episode (RLlib maps an agent
  before its first observation, so the role has to be in the id), and the mapping sends each to
  its role's policy.
* The policy: :class:`saboteur_agents.rllib_module.MaskedPPOTorchRLModule`, PPO's default MLP
  module with the logits of illegal actions masked to the smallest float (RLlib's
  action-masking example, adapted to the keys ``observation``/``action_mask``).
* Rollouts on ``--env-runners`` env runners (0: in the driver), learning on one learner; on
  a cluster (``--address``) both go where Ray places them.
* Outputs in ``--out``: ``checkpoint/`` (``Algorithm.save_to_path``; the RLModule lies in
  ``checkpoint/learner_group/learner/rl_module/shared``, or one folder per role),
  ``progress.csv`` (one row per
  iteration: losses, env steps, env steps/s, illegal actions), ``rllib.json`` (the options).

The checkpoint plays as the agent ``rllib:OUT/checkpoint`` (:mod:`saboteur_agents.rllib_agent`)
in every command that takes agent specs, e.g. ``saboteur tournament --agents
rllib:runs/rllib/checkpoint,heuristic,random``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass

ENV_NAME = "saboteur"
POLICY = "shared"


@dataclass
class RLlibOptions:
    iterations: int = 10
    players: int = 5
    env_runners: int = 2
    envs_per_runner: int = 1
    address: str | None = None
    out: str = "runs/rllib"
    seed: int = 0
    train_batch: int = 4000
    minibatch: int = 256
    epochs: int = 3
    lr: float = 3e-4
    hidden: int = 256
    num_cpus: int | None = None  # a local Ray's CPUs (None: all)
    progress: bool = True
    policies: str = "shared"  # "shared": one policy; "role": one per role


def make_env(config: dict | None = None):
    """The RLlib env (``register_env``'s creator): :class:`SaboteurRLlibEnv` of a one-round
    base game at ``config["players"]`` players (``config["by_role"]``: agent ids name the
    seat's role)."""
    config = dict(config or {})
    return SaboteurRLlibEnv(int(config.get("players", 5)), bool(config.get("by_role", False)))


#: the policies of ``--policies role``: the base game's roles (a one-round game: a seat's role
#: is fixed for the episode)
ROLE_POLICIES = ("gold-digger", "saboteur")


def _env_class():
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    import saboteur_env

    class _SaboteurRLlibEnv(PettingZooEnv):
        """RLlib's PettingZoo wrapper around ``saboteur_env.env`` (module docstring)."""

        def __init__(self, players: int = 5, by_role: bool = False):
            super().__init__(saboteur_env.env(num_players=players, num_rounds=1))
            self.actions = 0
            self.illegal = 0
            self.by_role = by_role
            self._ids = {a: a for a in self.env.possible_agents}
            if by_role:  # agent ids "player_k@role": every seat under every role
                seats = list(self.env.possible_agents)
                ids = [f"{a}@{r}" for a in seats for r in ROLE_POLICIES]
                self.possible_agents = ids
                self.agents = list(ids)
                self._agent_ids = set(ids)
                obs_space = self.env.observation_space(seats[0])
                act_space = self.env.action_space(seats[0])
                self.observation_spaces = {i: obs_space for i in ids}
                self.action_spaces = {i: act_space for i in ids}
                import gymnasium as gym

                self.observation_space = gym.spaces.Dict(self.observation_spaces)
                self.action_space = gym.spaces.Dict(self.action_spaces)

        def _rename(self, d: dict) -> dict:
            return {self._ids.get(k, k): v for k, v in d.items()}

        def reset(self, *, seed=None, options=None):
            obs, _ = super().reset(seed=seed, options=options)
            if self.by_role:
                roles = self.env.unwrapped.game.roles
                self._ids = {
                    a: f"{a}@{ROLE_POLICIES[int(roles[i])]}"
                    for i, a in enumerate(self.env.possible_agents)
                }
                self.agents = list(self._ids.values())
            return self._rename(obs), {}

        def step(self, action):
            agent = self.env.agent_selection
            a = int(action[self._ids[agent]])
            mask = self.env.observe(agent)["action_mask"]
            self.actions += 1
            if not (0 <= a < len(mask) and mask[a]):
                self.illegal += 1  # the engine raises IllegalActionError below
            obs, rew, term, trunc, _ = super().step({agent: a})
            obs, rew, term, trunc = (self._rename(d) for d in (obs, rew, term, trunc))
            return obs, rew, term, trunc, {k: {} for k in obs}

    return _SaboteurRLlibEnv


class _Lazy:
    cls = None


def SaboteurRLlibEnv(players: int = 5, by_role: bool = False):  # noqa: N802  (a class)
    """RLlib's ``PettingZooEnv`` around ``saboteur_env.env(num_players=players,
    num_rounds=1)``, with action counters ``actions`` and ``illegal``; ``by_role``: the agent
    ids are ``player_k@ROLE`` (the seat's role this episode), for one policy per role.  The
    class is built once Ray is imported."""
    if _Lazy.cls is None:
        _Lazy.cls = _env_class()
    return _Lazy.cls(players, by_role)


def _callbacks_class():
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class LegalityCallback(RLlibCallback):
        """Logs ``actions`` and ``illegal_actions`` (sums) from every env's counters."""

        def on_episode_end(self, *, env=None, metrics_logger=None, **kwargs):
            counts = [0, 0]
            for e in _sub_envs(env):
                counts[0] += e.actions
                counts[1] += e.illegal
                e.actions = e.illegal = 0
            if metrics_logger is not None:
                metrics_logger.log_value("actions", counts[0], reduce="sum")
                metrics_logger.log_value("illegal_actions", counts[1], reduce="sum")

    return LegalityCallback


def _sub_envs(env) -> list:
    """The :class:`SaboteurRLlibEnv` objects inside RLlib's (vector) env ``env``."""
    seen, todo, out = set(), [env], []
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if hasattr(e, "illegal") and hasattr(e, "actions"):
            out.append(e)
            continue
        for attr in ("envs", "env", "unwrapped"):
            sub = getattr(e, attr, None)
            if isinstance(sub, (list, tuple)):
                todo.extend(sub)
            elif sub is not None and sub is not e:
                todo.append(sub)
    return out


def build_config(opts: RLlibOptions):
    """The ``PPOConfig`` of a run (new API stack, one shared masked policy)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from saboteur_agents.rllib_module import MaskedPPOTorchRLModule

    register_env(ENV_NAME, make_env)
    names = policy_names(opts.policies)
    spec = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        model_config={
            "fcnet_hiddens": [opts.hidden],
            "fcnet_activation": "relu",
            "vf_share_layers": True,
        },
    )
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(
            ENV_NAME, env_config={"players": opts.players, "by_role": opts.policies == "role"}
        )
        .framework("torch")
        .env_runners(
            num_env_runners=opts.env_runners,
            num_envs_per_env_runner=opts.envs_per_runner,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=0)
        .multi_agent(policies=set(names), policy_mapping_fn=_to_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={n: spec for n in names}))
        .training(
            train_batch_size_per_learner=opts.train_batch,
            minibatch_size=opts.minibatch,
            num_epochs=opts.epochs,
            lr=opts.lr,
        )
        .callbacks(_callbacks_class())
        .debugging(seed=opts.seed)
        .reporting(metrics_num_episodes_for_smoothing=10)
    )


def policy_names(policies: str) -> tuple[str, ...]:
    """The module ids of ``--policies``: ``("shared",)`` or the roles (:data:`ROLE_POLICIES`)."""
    if policies == "shared":
        return (POLICY,)
    if policies == "role":
        return ROLE_POLICIES
    raise ValueError(f"--policies {policies!r}: 'shared' or 'role'")


def _to_policy(agent_id, *args, **kwargs) -> str:
    """Every agent to ``shared``; ``player_k@ROLE`` (``--policies role``) to ``ROLE``."""
    return agent_id.rsplit("@", 1)[1] if "@" in str(agent_id) else POLICY


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flat(v, key + "/"))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[key] = float(v)
    return out


def losses(result: dict) -> dict[str, float]:
    """The learner's losses of one ``Algorithm.train()`` result (``policy_loss``, ``vf_loss``,
    ``total_loss``, ...), by name."""
    learners = result.get("learners", {})
    out = {}
    for name in (POLICY, *ROLE_POLICIES):
        stats = learners.get(name, {})
        prefix = "" if name == POLICY else name + "/"
        for k, v in stats.items():
            if "loss" in k and isinstance(v, (int, float)):
                out[prefix + k] = float(v)
    return out


def train(opts: RLlibOptions) -> dict:
    """Train; returns ``{"rows": per-iteration dicts, "checkpoint": path, "env_steps_per_s",
    "illegal_actions", "actions"}``."""
    from saboteur_experiments.backends import ensure_ray

    ray = ensure_ray(opts.address, num_cpus=opts.num_cpus)
    os.makedirs(opts.out, exist_ok=True)
    algo = build_config(opts).build_algo()
    rows, t_start = [], time.perf_counter()
    steps_total = illegal = actions = 0
    try:
        for it in range(1, opts.iterations + 1):
            t0 = time.perf_counter()
            res = algo.train()
            dt = time.perf_counter() - t0
            er = res.get("env_runners", {})
            steps = int(er.get("num_env_steps_sampled", 0))
            steps_total = int(er.get("num_env_steps_sampled_lifetime", steps_total + steps))
            illegal += int(er.get("illegal_actions", 0) or 0)
            actions += int(er.get("actions", 0) or 0)
            row = {
                "iteration": it,
                "env_steps": steps,
                "env_steps_lifetime": steps_total,
                "seconds": dt,
                "env_steps_per_s": steps / dt if dt > 0 else float("nan"),
                "episode_return_mean": float(er.get("episode_return_mean", float("nan"))),
                "episode_len_mean": float(er.get("episode_len_mean", float("nan"))),
                "illegal_actions": int(er.get("illegal_actions", 0) or 0),
                **losses(res),
            }
            rows.append(row)
            if opts.progress:
                totals = [v for k, v in row.items() if k.endswith("total_loss")]
                loss = sum(totals) / len(totals) if totals else float("nan")
                print(
                    f"iteration {it}: {steps} env steps in {dt:.1f} s "
                    f"({row['env_steps_per_s']:.0f}/s), total loss {loss:.4g} (policies' mean), "
                    f"illegal actions {row['illegal_actions']}",
                    file=sys.stderr,
                    flush=True,
                )
        ckpt = os.path.abspath(os.path.join(opts.out, "checkpoint"))
        algo.save_to_path(ckpt)
    finally:
        algo.stop()
    elapsed = time.perf_counter() - t_start
    _write_rows(os.path.join(opts.out, "progress.csv"), rows)
    summary = {
        "options": asdict(opts),
        "ray": ray.__version__,
        "checkpoint": ckpt,
        "agent_spec": "rllib:" + ckpt,
        "seconds": elapsed,
        "env_steps": sum(r["env_steps"] for r in rows),
        "env_steps_per_s": sum(r["env_steps"] for r in rows)
        / max(1e-9, sum(r["seconds"] for r in rows)),
        "illegal_actions": illegal,
        "actions": actions,
        "finite_losses": all(
            math.isfinite(v) for r in rows for k, v in r.items() if k.endswith("loss")
        ),
    }
    with open(os.path.join(opts.out, "rllib.json"), "w") as f:
        json.dump(summary, f, indent=2, default=str)
    return {**summary, "rows": rows}


def _write_rows(path: str, rows: list[dict]) -> None:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def parser(prog: str = "python -m saboteur_experiments.train_rllib") -> argparse.ArgumentParser:
    from saboteur_experiments.cli_args import DefaultsHelp, at_least

    d = RLlibOptions()
    p = argparse.ArgumentParser(
        prog=prog,
        description="Multi-agent self-play PPO on RLlib: one shared masked policy for every "
        "seat (the 'ray' extra and torch; docs/ray.md).",
        formatter_class=DefaultsHelp,
    )
    if prog.startswith("saboteur train"):
        p.add_argument("--backend", choices=("rllib",), required=True)
    p.add_argument("--iterations", type=at_least(1), default=d.iterations)
    p.add_argument(
        "--players", type=int, default=d.players, help="players per game (base game, 3-10)"
    )
    p.add_argument(
        "--env-runners",
        type=at_least(0),
        default=d.env_runners,
        help="rollout workers (0: sample in the driver)",
    )
    p.add_argument("--envs-per-runner", type=at_least(1), default=d.envs_per_runner)
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="the Ray cluster (none: a local Ray is started)",
    )
    p.add_argument("--num-cpus", type=at_least(1), default=None, help="a local Ray's CPUs")
    p.add_argument("--out", default=d.out, help="output folder")
    p.add_argument("--seed", type=at_least(0), default=d.seed)
    p.add_argument(
        "--train-batch", type=at_least(2), default=d.train_batch, help="env steps per update"
    )
    p.add_argument("--minibatch", type=at_least(2), default=d.minibatch)
    p.add_argument("--epochs", type=at_least(1), default=d.epochs)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--hidden", type=at_least(1), default=d.hidden, help="MLP width")
    p.add_argument(
        "--policies",
        choices=("shared", "role"),
        default=d.policies,
        help="shared: one policy for every seat; role: one per role (gold-digger, saboteur; "
        "a seat's role is fixed in the one-round games)",
    )
    p.add_argument("--no-progress", action="store_true")
    return p


def main(argv=None, prog: str = "python -m saboteur_experiments.train_rllib") -> dict:
    from saboteur_agents.base import MissingExtraError, require_extra
    from saboteur_experiments.cli_args import check_config, check_output_dir

    p = parser(prog)
    a = p.parse_args(argv)
    check_config(p, num_players=a.players, num_rounds=1)
    check_output_dir(p, a.out, "--out")
    if not (a.lr > 0 and math.isfinite(a.lr)):
        p.error(f"--lr {a.lr}: must be a number > 0")
    if a.minibatch > a.train_batch:
        p.error(f"--minibatch {a.minibatch}: larger than --train-batch {a.train_batch}")
    try:
        require_extra("ray", ["ray", "ray.rllib"], "saboteur train --backend rllib")
        require_extra("train", ["torch"], "saboteur train --backend rllib")
    except MissingExtraError as err:
        p.error(str(err))
    opts = RLlibOptions(
        iterations=a.iterations,
        players=a.players,
        env_runners=a.env_runners,
        envs_per_runner=a.envs_per_runner,
        address=a.address,
        out=a.out,
        seed=a.seed,
        train_batch=a.train_batch,
        minibatch=a.minibatch,
        epochs=a.epochs,
        lr=a.lr,
        hidden=a.hidden,
        num_cpus=a.num_cpus,
        progress=not a.no_progress,
        policies=a.policies,
    )
    res = train(opts)
    print(
        f"{res['env_steps']} env steps in {res['seconds']:.0f} s "
        f"({res['env_steps_per_s']:.0f} env steps/s while sampling and learning); "
        f"illegal actions: {res['illegal_actions']}; checkpoint: {res['checkpoint']} "
        f"(agent spec {res['agent_spec']})"
    )
    return res


if __name__ == "__main__":
    main()
