"""The RLlib module of ``saboteur train --backend rllib`` (needs the ``ray`` extra and torch).

:class:`MaskedPPOTorchRLModule`: RLlib's default PPO torch module (an MLP encoder, a policy and a
value head) on the environment's ``"observation"`` vector, with the logits of every action whose
``"action_mask"`` entry is 0 set to the smallest float, in exploration, inference and training
alike, so a sampled or greedy action is always legal.  It follows RLlib's action-masking example
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``), adapted to this environment's
observation keys (``"observation"``, not the example's ``"observations"``) and to an ``int8``
mask (the example takes the logarithm of a float mask).
"""

from __future__ import annotations

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule as PPOTorchRLModule,
)
from ray.rllib.core.columns import Columns

#: the observation keys of the environment (``saboteur_env.env().observation_space(agent)``)
OBS_KEY, MASK_KEY = "observation", "action_mask"


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` where ``mask`` is non-zero, the smallest finite float elsewhere."""
    low = torch.finfo(logits.dtype).min
    return torch.where(mask.to(torch.bool), logits, torch.full_like(logits, low))


class MaskedPPOTorchRLModule(PPOTorchRLModule):
    """PPO's torch RLModule on ``obs["observation"]``, logits masked by ``obs["action_mask"]``."""

    def __init__(self, *, observation_space=None, action_space=None, **kwargs):
        if (
            not isinstance(observation_space, gym.spaces.Dict)
            or OBS_KEY not in observation_space.spaces
        ):
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with {OBS_KEY!r} and "
                f"{MASK_KEY!r} (saboteur_env's), got {observation_space}"
            )
        self.observation_space_with_mask = observation_space
        super().__init__(
            observation_space=observation_space[OBS_KEY], action_space=action_space, **kwargs
        )

    def setup(self):
        super().setup()  # the networks are built for the observation vector alone
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def _split(batch: dict) -> tuple[torch.Tensor, dict]:
        obs = batch[Columns.OBS]
        batch = dict(batch)
        batch[Columns.OBS] = obs[OBS_KEY]
        return obs[MASK_KEY], batch

    def _masked(self, outs: dict, mask: torch.Tensor) -> dict:
        outs[Columns.ACTION_DIST_INPUTS] = mask_logits(outs[Columns.ACTION_DIST_INPUTS], mask)
        return outs

    def _forward_inference(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)
