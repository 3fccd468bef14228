"""The agent ``rllib:PATH``: a policy trained by ``saboteur train --backend rllib``
(:mod:`saboteur_experiments.train_rllib`) playing from its checkpoint.

``PATH`` is the run's ``checkpoint/`` folder (``Algorithm.save_to_path``), or the RLModule's
own folder inside it (``checkpoint/learner_group/learner/rl_module/shared``).  A run with one
policy per role (``--policies role``) plays each game with its seat's role's policy (the role is
in the seat's own observation).  The agent samples
from the masked policy with its own seeded generator (``rllib:PATH+greedy``: the most likely
legal action), so only legal actions are played.  Ray, RLlib and torch are imported when such
an agent is built (the ``ray`` extra; without it :class:`~saboteur_agents.base.MissingExtraError`
names the extra).  The module is loaded once per path and process.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .base import Agent, register_agent

#: the RLModules inside an algorithm checkpoint (train_rllib's shared policy, or one per role)
MODULES_DIR = Path("learner_group", "learner", "rl_module")
MODULE_DIR = MODULES_DIR / "shared"
ROLE_MODULES = ("gold-digger", "saboteur")

_MODULES: dict[str, object] = {}


def _is_module(d: Path) -> bool:
    return (d / "class_and_ctor_args.pkl").exists() and (d / "module_state.pkl").exists()


def module_dirs(path: str | Path) -> dict[str, Path]:
    """The RLModule folders of ``path`` by policy: ``{"shared": ...}`` or one per role
    (``--policies role``); ``path`` is an algorithm checkpoint or a module folder.

    Raises:
        FileNotFoundError: ``path`` is neither.
    """
    p = Path(path)
    for base in (p / MODULES_DIR, p / "rl_module", p):
        if _is_module(base / "shared"):
            return {"shared": base / "shared"}
        if all(_is_module(base / r) for r in ROLE_MODULES):
            return {r: base / r for r in ROLE_MODULES}
    if _is_module(p) and (p / "metadata.json").exists():
        return {"shared": p}
    raise FileNotFoundError(
        f"rllib:{path}: no RLlib checkpoint there (expected the checkpoint folder of "
        f"saboteur train --backend rllib, holding {MODULE_DIR} or one module per role)"
    )


def module_dir(path: str | Path) -> Path:
    """The shared policy's RLModule folder of ``path`` (the first one for a per-role run)."""
    return next(iter(module_dirs(path).values()))


def load_module(d: str | Path):
    """The RLModule in folder ``d``, loaded once per process."""
    d = str(Path(d).resolve())
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
        self.dirs = module_dirs(self.path)  # a missing checkpoint fails when the spec is built
        self.modules: dict = {}
        self.module = None

    def reset(self, seat, config, seed=None) -> None:
        super().reset(seat, config, seed)
        if not self.modules:
            self.modules = {name: load_module(d) for name, d in self.dirs.items()}
        self.module = next(iter(self.modules.values()))
        want_obs, want_act, self._role_view = _sizes(config)
        for module in self.modules.values():
            space = getattr(module, "observation_space", None)
            inner = getattr(space, "spaces", {}).get("observation")
            n_actions = getattr(getattr(module, "action_space", None), "n", None)
            got_obs = inner.shape[0] if inner is not None else None
            if (got_obs, n_actions) != (want_obs, want_act):
                raise ValueError(
                    f"rllib:{self.path}: the checkpoint's observation and action sizes "
                    f"({got_obs}, {n_actions}) are not this game's ({want_obs}, {want_act})"
                )
        if "shared" not in self.modules and tuple(config.ruleset.roles) != ROLE_MODULES:
            raise ValueError(f"rllib:{self.path}: a per-role checkpoint plays the base game only")
        self.gen = self._torch.Generator().manual_seed(
            int(np.random.SeedSequence(seed).generate_state(1)[0])
            if seed is not None
            else int(self.rng.integers(2**31))
        )

    def act(self, observation, action_mask, info=None) -> int:
        from ray.rllib.core.columns import Columns

        from .network import sample_masked

        torch = self._torch
        if self.module is None:
            raise RuntimeError("RLlibAgent.act before reset()")
        module = self.module
        if "shared" not in self.modules:  # one policy per role: the seat's role, observed
            off, size = self._role_view
            role = int(np.argmax(np.asarray(observation)[off : off + size]))
            module = self.modules[ROLE_MODULES[role]]
        mask = np.asarray(action_mask)
        if not mask.any():
            raise ValueError("RLlibAgent.act: the action mask has no legal action")
        m = torch.tensor(mask)[None]  # copies: read-only input warns
        obs = {
            "observation": torch.tensor(np.asarray(observation, dtype=np.float32))[None],
            "action_mask": m,
        }
        with torch.no_grad():
            out = module.forward_inference({Columns.OBS: obs})
            # the project's masked draw (also the PPO agent's): never a masked action
            a, _ = sample_masked(out[Columns.ACTION_DIST_INPUTS], m, self.gen, greedy=self.greedy)
        return int(a[0])


def _sizes(config) -> tuple[int, int, tuple[int, int]]:
    """(observation size, action count, (offset, size) of the own-role view) of ``config``."""
    from saboteur_env.encoding.codec import Codec
    from saboteur_env.encoding.observation import ObservationEncoder

    enc = ObservationEncoder(config)
    role = next((int(v.offset), int(np.prod(v.shape))) for v in enc.spec() if v.name == "role")
    return int(enc.size), int(Codec(config).n), role


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
