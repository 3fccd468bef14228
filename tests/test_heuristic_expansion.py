"""The heuristic agent in Saboteur 2 (agents/heuristic/, RULES 6): legality in every sub-phase,
the exact 15-card dwarf prior, the maze model against the engine, role behaviours, and the
expansion tournament."""

from __future__ import annotations

import os

import numpy as np
import pytest

import saboteur_env
from saboteur_agents import make_agent
from saboteur_agents.heuristic import HeuristicAgent
from saboteur_agents.heuristic import (
    HeuristicAgent as ExpansionHeuristic,  # one class plays both games
)
from saboteur_agents.heuristic.belief import role_marginal
from saboteur_env.engine.cards import (
    BLUE_DIGGER,
    EXPANSION_ROLES,
    GEOLOGIST,
    GREEN_DIGGER,
    X_SABOTEUR,
)
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.ruleset import SABOTEUR_2

#: one-round games per player count in the legality test (the brief's 100; ~25 s in all)
GAMES_PER_COUNT = 30 if os.environ.get("SABOTEUR_QUICK") else 100


def _play(n: int, seed: int, specs=("heuristic",), check=None) -> tuple[dict, dict]:
    """One 1-round expansion game; asserts every action is unmasked and every belief a proper
    ``(n, 6)`` distribution.  Returns the round result and counts of the phases acted in."""
    env = saboteur_env.raw_env(num_players=n, num_rounds=1, expansion=True)
    env.reset(seed=seed)
    agents = [make_agent(specs[(s + seed) % len(specs)]) for s in range(n)]
    for s, a in enumerate(agents):
        a.reset(s, env.config, seed=seed * 100 + s)
    phases: dict = {}
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        s = env.agent_name_mapping[name]
        phases[env.game.phase] = phases.get(env.game.phase, 0) + 1
        a = agents[s].act(obs["observation"], obs["action_mask"], info)
        assert obs["action_mask"][a] == 1, (n, seed, s, a, env.game.phase)
        if isinstance(agents[s], HeuristicAgent):
            assert isinstance(agents[s], ExpansionHeuristic)
            b = agents[s].belief()
            assert b.shape == (n, len(EXPANSION_ROLES))
            assert np.allclose(b.sum(axis=1), 1.0) and (b >= 0).all()
            if check is not None:
                check(agents[s], obs["observation"])
        env.step(a)
    return env.game.round_results[0], phases


@pytest.mark.parametrize("n", (2, 5, 8, 12))
def test_never_masked_in_any_sub_phase(n):
    phases: dict = {}
    found = 0
    for seed in range(GAMES_PER_COUNT):
        res, ph = _play(n, seed)
        found += res.gold_found
        for k, v in ph.items():
            phases[k] = phases.get(k, 0) + v
    # the sub-phases were exercised: turns, passes and round-end thefts (RULES 6.7, 6.9)
    assert {"turn", "pass", "theft"} <= set(phases), phases
    assert 0 < found <= GAMES_PER_COUNT


def test_never_masked_against_random_players():
    for n in (3, 6):
        for seed in range(10):
            _play(n, seed, ("heuristic", "random"))


@pytest.mark.parametrize("n", (2, 5, 12))
def test_belief_is_the_exact_dwarf_prior_before_any_public_event(n):
    env = saboteur_env.raw_env(num_players=n, num_rounds=1, expansion=True)
    env.reset(seed=3)
    game = env.game
    for seat in range(n):
        a = make_agent("heuristic")
        a.reset(seat, env.config, seed=0)
        a.observe([e for e in game.events if e.visible_to in (None, seat)])
        b = a.belief()
        role = int(game.roles[seat])
        counts = SABOTEUR_2.role_deck(n).astype(np.float64)
        counts[role] -= 1
        exact = counts / 14.0  # 15 dwarf cards less my own (RULES 6.2, 6.6)
        others = [s for s in range(n) if s != seat]
        assert np.allclose(b[others], exact[None, :])
        assert b[seat, role] == 1.0 and b[seat].sum() == 1.0
        assert np.allclose(role_marginal(env.config, role), exact)
    # columns in the observation's role one-hot order
    assert tuple(EXPANSION_ROLES)[X_SABOTEUR] == "saboteur"


def test_belief_moves_with_evidence_and_inspection():
    a = make_agent("heuristic")
    a.reset(0, GameConfig(expansion=True, num_players=5), seed=0)
    a.role = GREEN_DIGGER
    p0 = a.belief()
    a._add(2, 2.0)  # harm by seat 2
    assert a.belief()[2, X_SABOTEUR] > p0[2, X_SABOTEUR]
    a.inspected[3] = GEOLOGIST
    a._belief_cache = None
    b = a.belief()
    assert b[3, GEOLOGIST] == 1.0
    assert np.allclose(b.sum(axis=1), 1.0)


def test_maze_connections_match_the_engine():
    """The agent's segment/ladder-aware connectivity equals the engine's conn channels."""

    def check(agent, obs):
        V = agent.encoder.views(np.asarray(obs))
        c = V["board"][4:8].astype(np.int64)
        eng = c[0] | c[1] << 1 | c[2] << 2 | c[3] << 3
        m = agent.maze
        mine = m.conn.reshape(m.H + 2, m.W + 2)[1:-1, 1:-1]
        assert (mine == eng).all()

    for n, seed in ((2, 0), (5, 2), (8, 2), (12, 2)):
        _play(n, seed, check=check)


def test_team_digger_plans_without_the_other_teams_doors():
    from saboteur_agents.heuristic.maze import SegmentMaze as XMaze
    from saboteur_env.engine.cards import KIND_INDEX, VARIANT_OF

    window = GameConfig(expansion=True).board_window
    m = XMaze.initial(window)
    blue_ew = VARIANT_OF[(KIND_INDEX["X12"], False)]
    m.place_variant(1, 0, blue_ew)
    assert m.conn[m.idx(1, 0)]
    green_view = m.copy()
    green_view.block = 2  # blue doors are walls for the green team
    green_view.recompute()
    assert not green_view.conn[green_view.idx(1, 0)]
    assert GREEN_DIGGER != BLUE_DIGGER


def test_switches_between_base_and_expansion():
    a = make_agent("heuristic")
    a.reset(0, GameConfig(expansion=True, num_players=4), seed=0)
    assert isinstance(a, ExpansionHeuristic)
    a.reset(0, GameConfig(num_players=5), seed=0)
    assert type(a) is HeuristicAgent
    assert a.belief().shape == (5, 2)
    a.reset(1, GameConfig(expansion=True, num_players=3), seed=0)
    assert a.belief().shape == (3, 6)


def test_tournament_expansion_reports_per_role_win_rates():
    from saboteur_experiments.tournament import X_ROLE_NAMES, Options, format_summary, tournament

    results, summary = tournament(
        Options(
            agents=["random", "heuristic"],
            players=5,
            deals=4,
            rounds=1,
            workers=1,
            progress=False,
            bootstrap=10,
            plots=False,
            expansion=True,
        )
    )
    assert summary["expansion"] and summary["role_names"] == list(X_ROLE_NAMES)
    assert list(X_ROLE_NAMES) == list(EXPANSION_ROLES)
    for a in ("random", "heuristic"):
        roles = summary["agents"][a]["roles"]
        assert set(roles) == set(X_ROLE_NAMES)
        assert sum(r["n"] for r in roles.values()) == 4 * 5  # 4 deals x 5 seats per agent
    # geologists "win" when paid > 0; everyone else when in the winners set
    for r in results:
        for rd in r["rounds"]:
            for s, role in enumerate(rd["roles"]):
                if role == GEOLOGIST:
                    assert s not in rd["winners"]
    assert "geologist" in format_summary(summary)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("n", (2, 12))
def test_tournament_expansion_any_player_count(n):
    from saboteur_experiments.tournament import Options, tournament

    _, summary = tournament(
        Options(
            agents=["heuristic"],
            players=n,
            deals=2,
            rounds=1,
            workers=1,
            progress=False,
            bootstrap=5,
            plots=False,
            expansion=True,
        )
    )
    assert summary["rounds"] == 2
