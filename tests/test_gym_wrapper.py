"""Gymnasium's ``check_env`` on the single-agent wrapper of the SB3 example
(``saboteur_experiments.sb3_example.SingleAgentSaboteur``): it needs gymnasium only (a core
dependency), not sb3-contrib or torch."""

from __future__ import annotations

import pytest
from gymnasium.utils import env_checker

from saboteur_env.engine.state import IllegalActionError
from saboteur_experiments.sb3_example import SingleAgentSaboteur

#: Gymnasium's own check, before the test puts :func:`_masked_step_determinism` in its place
GYM_STEP_DETERMINISM = env_checker.check_step_determinism


def _masked_step_determinism(env, seed: int = 123) -> None:
    """Gymnasium's ``check_step_determinism`` (reset with ``seed``, step one sampled action,
    twice, and compare), with the action drawn after the seeded reset: Gymnasium draws it
    before, from whatever state the env was in, so in a masked env it is usually illegal in
    the reset's state, and the wrapper refuses masked actions by design."""
    env.reset(seed=seed)
    env.action_space.seed(seed)
    action = env.action_space.sample()
    assert env.action_masks()[action]
    env.action_space.sample = lambda *args, **kwargs: action
    try:
        GYM_STEP_DETERMINISM(env, seed)
    finally:
        del env.action_space.sample


@pytest.mark.parametrize(
    "config", [{}, {"num_players": 4, "expansion": True}, {"reward": "gold", "seat": 2}]
)
def test_check_env_passes_on_the_sb3_wrapper_but_for_its_pre_reset_action(config, monkeypatch):
    """Every check of ``gymnasium.utils.env_checker.check_env`` passes (spaces, seeded reset
    determinism, step return types, fresh data each call, one-step determinism), the
    determinism check with its action drawn after its seeded reset (see
    :func:`_masked_step_determinism`: Gymnasium assumes any action of the space is valid in
    any state, which a masked env does not meet)."""
    env = SingleAgentSaboteur(**config)
    monkeypatch.setattr(env_checker, "check_step_determinism", _masked_step_determinism)
    env_checker.check_env(env, skip_render_check=True)
    assert env.illegal_actions == 0
    # the one thing the unmodified check trips on: an action masked in the reset's state
    env.reset(seed=123)
    masked = int((~env.action_masks()).nonzero()[0][0])
    with pytest.raises(IllegalActionError):
        env.step(masked)
