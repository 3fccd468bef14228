"""saboteur-env: the card game Saboteur as a pure rules engine and a PettingZoo AEC environment.

Quick start::

    import saboteur_env
    env = saboteur_env.env(num_players=5)
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else \\
            env.action_space(agent).sample(obs["action_mask"])
        env.step(action)
"""

from .encoding.codec import Codec
from .engine.config import ConfigError, GameConfig
from .engine.state import Game, IllegalActionError, build_state
from .env import env, raw_env

__version__ = "0.1.0"

__all__ = ["Codec", "ConfigError", "Game", "GameConfig", "IllegalActionError", "build_state",
           "env", "raw_env", "__version__"]
