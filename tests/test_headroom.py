"""The headroom diagnostic's cheating agents read what they claim to (issue 18)."""

from __future__ import annotations

import numpy as np

from saboteur_agents.heuristic import HeuristicAgent
from saboteur_env import raw_env
from saboteur_env.engine.cards import GOAL_GOLD
from saboteur_experiments.headroom import Oracle, OracleGoals, OracleRoles


def _first_decision(agent, seed: int = 3):
    env = raw_env(num_players=5, backend="engine")
    env.reset(seed=seed)
    name = env.agent_selection
    seat = env.agent_name_mapping[name]
    agent.reset(seat, env.config, seed=0)
    agent.attach(env.game)
    ob = env.observe(name)
    agent.act(ob["observation"], ob["action_mask"], env.infos[name])
    return env.game, seat


def _true_roles(game) -> np.ndarray:
    """float64 ``(5, 2)``: the game's roles one-hot."""
    want = np.zeros((5, 2))
    want[np.arange(5), game.roles[:5]] = 1.0
    return want


def test_oracle_roles_believe_the_true_roles():
    agent = OracleRoles()
    game, _ = _first_decision(agent)
    want = _true_roles(game)
    assert np.array_equal(agent.belief(), want)
    assert np.array_equal(agent._q(), want[:, game.rules.saboteur])
    assert (agent.known == -1).all()  # the goals stay unknown


def test_oracle_goals_know_the_gold_and_nothing_of_the_roles():
    agent = OracleGoals()
    game, seat = _first_decision(agent)
    gold = int(np.flatnonzero(np.asarray(game.board.goal_identity) == GOAL_GOLD)[0])
    want = np.ones(3, dtype=int)
    want[gold] = 0
    assert np.array_equal(agent.known, want)
    plain = HeuristicAgent()
    _first_decision(plain)
    assert np.array_equal(agent.belief(), plain.belief())  # the roles are inferred as v2 does
    assert (plain.known == -1).all()  # the honest agent has not seen a goal at its first turn


def test_oracle_does_both():
    agent = Oracle()
    game, _ = _first_decision(agent)
    assert np.array_equal(agent.belief(), _true_roles(game))
    assert (agent.known >= 0).all()
