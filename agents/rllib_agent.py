"""The agent ``rllib:PATH``: a policy trained by ``saboteur train --backend rllib``
(:mod:`saboteur_experiments.train_rllib`) playing from its checkpoint.

``PATH`` is the run's ``checkpoint/`` folder (``Algorithm.save_to_path``), or the RLModule's
own folder inside it (``checkpoint/learner_group/learner/rl_module/shared``).  The agent samples
from the masked policy with its own seeded generator (``rllib:PATH+greedy``: the most likely
legal action), so only legal actions are played.  Ray, RLlib and torch are imported when such
an agent is built (the ``ray`` extra; without it :class:`~saboteur_agents.base.MissingExtraError`
names the extra).  The module is loaded once per path and process.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .base import Agent, register_agent

#: the RLModule inside an algorithm checkpoint (the shared policy of train_rllib)
MODULE_DIR = Path("learner_group", "learner", "rl_module", "shared")

_MODULES: dict[str, object] = {}


def module_dir(path: str | Path) -> Path:
    """The RLModule folder of ``path`` (an algorithm checkpoint or a module folder).

    Raises:
        FileNotFoundError: ``path`` is neither.
    """
    p = Path(path)
    for cand in (p / MODULE_DIR, p / "rl_module" / "shared", p):
        if (cand / "module_state.pkl").exists() or (cand / "class_and_ctor_args.pkl").exists():
            if (cand / "metadata.json").exists() and cand.name != "rl_module":
                return cand
    raise FileNotFoundError(
        f"rllib:{path}: no RLlib checkpoint there (expected the checkpoint folder of "
        f"saboteur train --backend rllib, holding {MODULE_DIR})"
    )


def load_module(path: str | Path):
    """The RLModule of ``path`` (:func:`module_dir`), loaded once per process."""
    d = str(module_dir(path).resolve())
    if d not in _MODULES:
        from ray.rllib.core.rl_module.rl_module import RLModule

        module = RLModule.from_checkpoint(d)
        module.eval()
        _MODULES[d] = module
    return _MODULES[d]


class RLlibAgent(Agent):
    """The masked policy of an RLlib checkpoint (module docstring)."""

    name = "rllib"

    def __init__(self, path: str | Path, greedy: bool = False) -> None:
        import torch

        self._torch = torch
        self.path = Path(path)
        self.greedy = greedy
        module_dir(self.path)  # a missing checkpoint fails when the spec is built
        self.module = None

    def reset(self, seat, config, seed=None) -> None:
        super().reset(seat, config, seed)
        if self.module is None:
            self.module = load_module(self.path)
        space = getattr(self.module, "observation_space", None)
        inner = getattr(space, "spaces", {}).get("observation")
        n_actions = getattr(getattr(self.module, "action_space", None), "n", None)
        want_obs, want_act = _sizes(config)
        got_obs = inner.shape[0] if inner is not None else None
        if (got_obs, n_actions) != (want_obs, want_act):
            raise ValueError(
                f"rllib:{self.path}: the checkpoint's observation and action sizes "
                f"({got_obs}, {n_actions}) are not this game's ({want_obs}, {want_act})"
            )
        self.gen = self._torch.Generator().manual_seed(
            int(np.random.SeedSequence(seed).generate_state(1)[0])
            if seed is not None
            else int(self.rng.integers(2**31))
        )

    def act(self, observation, action_mask, info=None) -> int:
        from ray.rllib.core.columns import Columns

        from .rllib_module import mask_logits

        torch = self._torch
        if self.module is None:
            raise RuntimeError("RLlibAgent.act before reset()")
        mask = np.asarray(action_mask)
        if not mask.any():
            raise ValueError("RLlibAgent.act: the action mask has no legal action")
        m = torch.as_tensor(mask)[None]
        obs = {
            "observation": torch.as_tensor(np.asarray(observation, dtype=np.float32))[None],
            "action_mask": m,
        }
        with torch.no_grad():
            out = self.module.forward_inference({Columns.OBS: obs})
            logits = mask_logits(out[Columns.ACTION_DIST_INPUTS], m)[0]
            if self.greedy:
                a = int(torch.argmax(logits))
            else:
                a = int(torch.multinomial(torch.softmax(logits, -1), 1, generator=self.gen)[0])
        if not mask[a]:  # the masked logits make this impossible; never play an illegal move
            a = int(np.flatnonzero(mask)[0])
        return a


def _sizes(config) -> tuple[int, int]:
    """(observation size, action count) of the game ``config``."""
    from saboteur_env.encoding.codec import Codec
    from saboteur_env.encoding.observation import ObservationEncoder

    return int(ObservationEncoder(config).size), int(Codec(config).n)


def _factory(option: str = "") -> RLlibAgent:
    """``make_agent("rllib:PATH")`` (``rllib:PATH+greedy``: the most likely legal action)."""
    from .base import require_extra

    require_extra("ray", ["ray", "ray.rllib"], "the 'rllib' agent")
    require_extra("train", ["torch"], "the 'rllib' agent")
    greedy = option.endswith("+greedy")
    path = option[: -len("+greedy")] if greedy else option
    if not path:
        raise ValueError(
            "agent 'rllib' needs a checkpoint: rllib:PATH (saboteur train --backend "
            "rllib writes OUT/checkpoint)"
        )
    return RLlibAgent(path, greedy=greedy)


register_agent("rllib", _factory)
