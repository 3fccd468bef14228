"""Interop example: Saboteur as a single-agent Gymnasium env for sb3-contrib's MaskablePPO.

:class:`SingleAgentSaboteur` puts the learner in one seat (fixed, or drawn each game) and plays
every other seat with given agents (default: random).  Observations are the flat float32 tensor;
``action_masks()`` returns the learner's legal actions (the method MaskablePPO looks for).  The
reward of a step is the learner's reward (gold, or +1/-1 with ``reward="win"``) received between
its decision and its next one; the episode ends with the game.

An illegal action is never silently replaced: it is counted in ``illegal_actions`` and the
environment's :class:`~saboteur_env.engine.state.IllegalActionError` propagates (DESIGN 5), so an
evaluator that drops the masks fails loudly instead of reporting a meaningless score.  The
action space's mask-less ``sample()`` draws a legal action (as the PettingZoo env's does), so a
generic loop that samples after each ``reset`` or ``step`` plays legal moves.  Gymnasium's
``check_env`` still fails, and only in its step-determinism check: that check samples its action
before its seeded ``reset`` and steps it after, taking every action of the space to be valid in
every state, which a masked env that refuses masked actions cannot meet; with that one draw made
after the reset, every check passes (``tests/test_gym_wrapper.py``).  Deals come from the
``train`` split (``split="dev"`` for evaluation episodes; the test split is for published
evaluations).

Run: ``python -m saboteur_experiments.sb3_example --steps 10000`` (needs ``pip install
sb3-contrib``). Training uses :class:`sb3_contrib.common.maskable.callbacks.MaskableEvalCallback`
and the final score comes from :func:`sb3_contrib.common.maskable.evaluation.evaluate_policy`, the
maskable evaluation helpers (a plain ``stable_baselines3`` evaluator would ignore the masks).
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

import saboteur_env
from saboteur_agents.base import Agent, make_agent
from saboteur_env.encoding.codec import legal_indices
from saboteur_env.engine.state import IllegalActionError
from saboteur_experiments.evaluation.splits import split_named


class LegalSampleSpace(spaces.Discrete):
    """``Discrete(n)`` whose mask-less ``sample()`` draws uniformly, with the space's own
    generator, among the learner's legal actions (``env.action_masks()``; 0 once the game is
    over); ``sample(mask)`` is Gymnasium's."""

    def __init__(self, n: int, env: SingleAgentSaboteur) -> None:
        super().__init__(n)
        self._env = env

    def sample(self, mask=None, probability=None):
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        legal = self._env.action_masks()
        return super().sample(mask=legal.astype(np.int8)) if legal.any() else np.int64(0)


class SingleAgentSaboteur(gymnasium.Env):
    """One learning seat, the other seats played by ``opponents``.

    Args:
        opponents: agent specs (``"random"``, ``"heuristic"``...) or agents, cycled over the other
            seats; every game builds each seat's own agent (an agent object is copied for
            each seat it plays, since an agent keeps its seat and beliefs).
        seat: the learner's seat, or ``None`` to draw it uniformly each game.
        split: the deal split each game's deal is drawn from, uniformly (``"train"``, the
            default; ``"dev"`` for evaluation episodes).
        config: :class:`~saboteur_env.engine.config.GameConfig` options (default 5 players, 1 round,
            ``reward="win"``).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        opponents: Sequence[str | Agent] = ("random",),
        seat: int | None = None,
        split: str = "train",
        **config,
    ) -> None:
        super().__init__()
        self.split = split_named(split)
        config = {"num_players": 5, "num_rounds": 1, "reward": "win", **config}
        self.env = saboteur_env.raw_env(**config)
        self.n = self.env.config.num_players
        self.opponent_specs = list(opponents)
        self.fixed_seat = seat
        space = self.env.observation_space("player_0")
        self.observation_space = space["observation"]
        self.action_space = LegalSampleSpace(self.env.codec.n, self)
        self.illegal_actions = 0
        self.seat = 0
        self._obs = None
        self._mask = np.zeros(self.env.codec.n, dtype=bool)
        self._opponents: dict[int, Agent] = {}

    def _opponent(self, k: int) -> Agent:
        spec = self.opponent_specs[k % len(self.opponent_specs)]
        return make_agent(spec) if isinstance(spec, str) else copy.deepcopy(spec)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        # the deal: a seed of the split (train by default: the test split is for published
        # evaluations)
        self.env.reset(seed=int(rng.integers(self.split.start, self.split.stop)))
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(self.n))
        others = [s for s in range(self.n) if s != self.seat]
        self._opponents = {s: self._opponent(k) for k, s in enumerate(others)}
        for s, a in self._opponents.items():
            a.reset(s, self.env.config, seed=int(rng.integers(2**31)))
        reward, done = self._advance()
        return self._obs, {"seat": self.seat}

    def _advance(self) -> tuple[float, bool]:
        """Let the other seats play until the learner is to act or the game is over."""
        env = self.env
        reward = 0.0
        me = f"player_{self.seat}"
        while not (all(env.terminations.values()) or all(env.truncations.values())):
            agent = env.agent_selection
            if agent == me:
                o = env.observe(me)
                self._obs, self._mask = o["observation"], o["action_mask"].astype(bool)
                return reward, False
            seat = env.agent_name_mapping[agent]
            o = env.observe(agent)
            env.step(
                self._opponents[seat].act(o["observation"], o["action_mask"], env.infos[agent])
            )
            reward += float(env.rewards[me])
        self._obs = env.observe(me)["observation"]
        self._mask = np.zeros(self.action_space.n, dtype=bool)
        return reward, True

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, bool ``(n,)``."""
        return self._mask

    def step(self, action):
        action = int(action)
        if not self._mask[action]:
            self.illegal_actions += 1
            raise IllegalActionError(
                f"SingleAgentSaboteur: action {action} is masked for seat {self.seat} "
                f"(illegal action #{self.illegal_actions}); use the maskable policy/evaluator"
            )
        me = f"player_{self.seat}"
        self.env.step(action)
        reward = float(self.env.rewards[me])
        r2, done = self._advance()
        truncated = all(self.env.truncations.values()) and not all(self.env.terminations.values())
        return self._obs, reward + r2, done and not truncated, truncated, {}


def episode_rewards(
    act, opponents: Sequence[str | Agent], episodes: int, seed: int, **config
) -> list[float]:
    """The learner's total reward in each of ``episodes`` games seeded ``seed, seed + 1, ...``
    (the same dev-split deals, seats and opponents for every ``act``), where ``act(obs, mask)``
    chooses the learner's action.  Used to put a reference (a random agent) beside the
    trained policy."""
    env = SingleAgentSaboteur(opponents, split="dev", **config)
    totals = []
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        total, done, truncated = 0.0, False, False
        while not (done or truncated):
            obs, reward, done, truncated, _ = env.step(act(obs, env.action_masks()))
            total += reward
        totals.append(total)
    return totals


def random_policy(seed: int):
    """``act(obs, mask)``: uniform over the legal actions, with its own seeded generator."""
    rng = np.random.default_rng(seed)
    return lambda obs, mask: int(rng.choice(legal_indices(mask)))


def main(argv=None) -> dict:
    from saboteur_agents.base import MissingExtraError, require_extra
    from saboteur_experiments.cli_args import at_least, check_agents

    p = argparse.ArgumentParser(
        description="MaskablePPO on single-agent Saboteur",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--steps", type=at_least(1), default=10_000, help="training timesteps")
    p.add_argument("--opponents", default="random", help="comma-separated agent specs")
    p.add_argument("--seed", type=at_least(0), default=0)
    p.add_argument("--eval-episodes", type=at_least(1), default=20)
    p.add_argument(
        "--n-steps",
        type=at_least(2),
        default=512,
        help="rollout length per update (advantages are normalised over it)",
    )
    args = p.parse_args(argv)  # --help works without the extra
    try:
        require_extra("train", ["torch", "sb3_contrib"], "the sb3 example")
    except MissingExtraError as err:
        p.error(str(err))
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    opponents = [s.strip() for s in args.opponents.split(",")]
    check_agents(p, opponents, "--opponents")
    import torch

    torch.set_num_threads(1)
    base, eval_base = SingleAgentSaboteur(opponents), SingleAgentSaboteur(opponents, split="dev")
    eval_base.reset(seed=args.seed + 1)  # the evaluation games are seeded: a rerun repeats them
    env, eval_env = Monitor(base), Monitor(eval_base)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=min(64, args.n_steps),
        seed=args.seed,
        verbose=0,
    )
    callback = MaskableEvalCallback(
        eval_env,
        n_eval_episodes=max(1, args.eval_episodes // 4),
        eval_freq=max(args.n_steps, args.steps // 4),
        verbose=0,
    )
    model.learn(total_timesteps=args.steps, callback=callback)
    mean, std = evaluate_policy(
        model, eval_env, n_eval_episodes=args.eval_episodes, use_masking=True
    )
    # a reference on the same episodes: the trained policy and a random agent in the same
    # deals and seats (seeded episodes), so the mean reward has something to be compared with
    ref_seed = 1_000_000 + args.seed

    def model_act(obs, mask):
        return int(model.predict(obs, action_masks=mask, deterministic=True)[0])

    same_model = episode_rewards(model_act, opponents, args.eval_episodes, ref_seed)
    same_random = episode_rewards(random_policy(args.seed), opponents, args.eval_episodes, ref_seed)
    res = {
        "mean_reward": float(mean),
        "std_reward": float(std),
        "same_episodes_mean_reward": float(np.mean(same_model)),
        "random_mean_reward": float(np.mean(same_random)),
        "illegal_actions_train": base.illegal_actions,
        "illegal_actions_eval": eval_base.illegal_actions,
    }
    print(
        f"MaskablePPO after {args.steps} steps vs {opponents}: mean reward {mean:.3f} "
        f"(sd {std:.3f}, {args.eval_episodes} dev-split games); illegal actions: train "
        f"{base.illegal_actions}, "
        f"eval {eval_base.illegal_actions}\n"
        f"on {args.eval_episodes} other seeded dev-split games, the same for both: MaskablePPO "
        f"{res['same_episodes_mean_reward']:.3f}, random agent (reference) "
        f"{res['random_mean_reward']:.3f}"
    )
    return res


if __name__ == "__main__":
    main()
