"""The versioned entry point, PettingZoo's convention: ``from saboteur_env import saboteur_v0``,
then ``saboteur_v0.env(num_players=5)``, ``saboteur_v0.raw_env(...)`` or
``saboteur_v0.parallel_env(...)``.  The suffix moves when the observation or action spaces change
(Version History in :mod:`saboteur_env.aec`).
"""

from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from .aec import env, raw_env


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's ``turn_based_aec_to_parallel`` view with ``max_cycles`` counted in its own
    steps: a parallel step plays one decision (the acting agent's action; the others' are
    ignored), so a cycle of the parallel API, one step of every live agent, is one decision here.
    After ``max_cycles`` steps every live agent is truncated and ``agents`` is empty.
    """

    def __init__(
        self,
        max_cycles: int | None = None,
        render_mode: str | None = None,
        render_seat=None,
        backend: str = "auto",
        **config,
    ) -> None:
        from .engine.config import GameConfig

        # validated as the env's own option, with the rest of the options (ConfigError names it)
        GameConfig.from_kwargs(**config, max_cycles=max_cycles)
        super().__init__(
            env(render_mode=render_mode, render_seat=render_seat, backend=backend, **config)
        )
        self.max_cycles = max_cycles
        self._steps = 0

    def reset(self, seed=None, options=None):
        """As PettingZoo's view; the step count starts again, and every agent's info names
        the agent to act (``"active_agent"``, as after each step; PettingZoo's view sets it
        only in ``step``)."""
        self._steps = 0
        observations, infos = super().reset(seed=seed, options=options)
        acting = self.aec_env.agent_selection
        infos = {a: {**info, "active_agent": acting} for a, info in infos.items()}
        return observations, infos

    def step(self, actions):
        """Play the acting agent's action (PettingZoo's view); after ``max_cycles`` steps every
        live agent is truncated.  After the end: empty dicts.

        Raises:
            ValueError: ``actions`` has no entry for the acting agent (nothing is played).
        """
        if not self.agents:
            return {}, {}, {}, {}, {}
        acting = self.aec_env.agent_selection
        if not hasattr(actions, "get") or acting not in actions:
            # PettingZoo's view would raise a bare KeyError; the state is untouched here
            raise ValueError(
                f"actions must hold the acting agent's action: {acting!r} is to act (a parallel "
                f"step plays one decision; the others' actions are ignored), got {actions!r:.80}"
            )
        observations, rewards, terminations, truncations, infos = super().step(actions)
        self._steps += 1
        if self.max_cycles is not None and self._steps >= self.max_cycles and self.agents:
            truncations = {a: truncations.get(a, False) or a in self.agents for a in truncations}
            self.agents = []
        return observations, rewards, terminations, truncations, infos


def parallel_env(**config) -> TurnBasedParallelEnv:
    """The Parallel API view of :func:`env` (:class:`TurnBasedParallelEnv`): each parallel step
    plays one decision, the action of the agent to act (the others' actions are ignored);
    ``infos[agent]["active_agent"]`` names the next agent to act.  Keyword options as
    :func:`env` (DESIGN 5: ``render_mode``, ``render_seat`` and ``backend`` too); ``state()`` and
    ``state_space`` are the env's.  PettingZoo's view observes every agent at every step, which
    on the array backend brings the engine's game up to date each step: about the engine
    backend's pace.

    ``max_cycles=k`` here counts parallel steps (PettingZoo's cycle: one step of every live
    agent), so the view truncates every agent after ``k`` decisions, where ``env(max_cycles=k)``
    lets each agent act ``k`` times.  With the legal-sampling action space
    (:class:`~saboteur_env.aec.ActionSpace`) PettingZoo's ``max_cycles_test`` passes unmodified.

    Raises:
        saboteur_env.engine.config.ConfigError: an invalid option (``max_cycles`` included).
    """
    return TurnBasedParallelEnv(**config)


__all__ = ["TurnBasedParallelEnv", "env", "parallel_env", "raw_env"]
