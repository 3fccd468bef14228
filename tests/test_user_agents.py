"""A user's own agent by spec, ``MODULE.ATTR`` (``saboteur_agents.base.make_agent``): built from
an importable module, played by the tournament and the evaluation like a shipped agent, with
clear errors for a module that does not import, a missing attribute and a non-agent."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from saboteur_agents import make_agent

EAST = textwrap.dedent(
    '''
    import numpy as np
    from saboteur_agents.base import Agent

    class FirstLegal(Agent):
        """Always the lowest legal action index."""
        def act(self, observation, action_mask, info=None):
            return int(np.flatnonzero(action_mask)[0])

    def nth(option="0"):
        agent = FirstLegal()
        agent.k = int(option)
        return agent

    def not_an_agent():
        return 3

    class Raises(Agent):
        def act(self, observation, action_mask, info=None):
            raise KeyError("boom")

    class Illegal(Agent):
        """Always the lowest illegal action index."""
        def act(self, observation, action_mask, info=None):
            return int(np.flatnonzero(action_mask == 0)[0])
    '''
)
BROKEN = "import a_package_that_is_not_installed_anywhere\n"


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "my_saboteur_agents.py").write_text(EAST)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_saboteur_agents"


def test_a_module_path_spec_builds_the_users_agent(user_module):
    a = make_agent(f"{user_module}.FirstLegal")
    assert type(a).__name__ == "FirstLegal" and a.name == f"{user_module}.FirstLegal"
    mask = np.zeros(10, dtype=np.int8)
    mask[[4, 7]] = 1
    assert a.act(np.zeros(3, dtype=np.float32), mask) == 4
    b = make_agent(f"{user_module}.nth:5")  # a factory with an option, as registered ones
    assert b.k == 5 and b.name == f"{user_module}.nth:5"


def test_a_module_path_spec_that_does_not_fit_says_why(user_module):
    with pytest.raises(ValueError, match=r"module 'no_such_module' does not import .*PYTHONPATH"):
        make_agent("no_such_module.East")
    with pytest.raises(ValueError, match=r"has no agent class or factory 'East'"):
        make_agent(f"{user_module}.East")
    with pytest.raises(ValueError, match=r"returned int, not an agent"):
        make_agent(f"{user_module}.not_an_agent")
    with pytest.raises(ValueError, match=r"unknown agent 'heuristik'; known agents: .*MODULE"):
        make_agent("heuristik")
    with pytest.raises(ValueError, match=r"Agent does not implement act\(\)"):
        make_agent(f"{user_module}.Agent")  # the base class, imported into the module


def test_every_unknown_agent_message_lists_the_entry_points_agents_too(monkeypatch):
    """An agent offered by another package's entry point, not yet imported, is named in the
    message of an unknown name and of a MODULE.ATTR that does not import alike."""
    import saboteur_agents.base as base

    offered = base._offered
    monkeypatch.setattr(base, "_offered", lambda: {**offered(), "offered_elsewhere": None})
    known = base.known_agents()
    assert {"offered_elsewhere", "evasive", "rolesplit", "heuristic", "ppo"} <= set(known)
    for spec in ("heuristik", "no_such_module.East"):
        with pytest.raises(ValueError) as err:
            make_agent(spec)
        assert f"known agents: {known}" in str(err.value)


def test_a_module_whose_own_import_fails_is_not_called_missing(tmp_path, monkeypatch):
    (tmp_path / "broken_saboteur_agents.py").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=r"importing module 'broken_saboteur_agents' failed: No "):
        make_agent("broken_saboteur_agents.East")


@pytest.mark.filterwarnings("ignore::saboteur_experiments.tournament.OneSidedWarning")
def test_the_tournament_and_the_evaluation_play_the_users_agent(user_module, tmp_path):
    from saboteur_experiments.evaluation.protocols import role_probe
    from saboteur_experiments.tournament import Options, tournament

    spec = f"{user_module}.FirstLegal"
    results, summary = tournament(
        Options(
            agents=[spec, "random"],
            players=4,
            deals=2,
            rounds=1,
            workers=1,
            out=str(tmp_path / "t"),
            bootstrap=10,
            plots=False,
            progress=False,
        )
    )
    assert len(results) == 4 and spec in summary["agents"]
    probe = role_probe(spec, "random", players=4, deals=2, workers=1)
    assert probe["candidate"] == spec and set(probe["roles"]) == {"gold-digger", "saboteur"}


def test_an_agent_that_fails_in_a_game_is_named_with_its_seat_and_deal(
    user_module, tmp_path, capsys
):
    from saboteur_agents.base import AgentError
    from saboteur_experiments.cli import main
    from saboteur_experiments.play import play_game

    raises, illegal = f"{user_module}.Raises", f"{user_module}.Illegal"
    with pytest.raises(
        AgentError,
        match=rf"agent '{raises}' at seat 1 \(deal seed 7, decision \d+\): KeyError: 'boom'",
    ):
        play_game([make_agent("random"), make_agent(raises), make_agent("random")], 7)
    with pytest.raises(
        AgentError,
        match=rf"agent '{illegal}' at seat 0 \(deal seed 3, decision \d+\): IllegalActionError: "
        "player_0 may not play",
    ):
        play_game([make_agent(illegal), make_agent("random"), make_agent("random")], 3)
    # the command line: one line naming the agent, the game and the deal; exit status 1
    out = tmp_path / "t"
    with pytest.raises(SystemExit) as e:
        main(
            [
                "tournament",
                "--agents",
                f"{raises},random",
                "--deals",
                "1",
                "--workers",
                "1",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
    assert e.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"saboteur tournament: error: agent '{raises}' at seat ")
    assert "(game " in err and "deal seed " in err and err.endswith("KeyError: 'boom'")


def test_blame_agent_names_the_agent_for_its_errors_only():
    from saboteur_agents.base import REFUSED_ACTION, AgentError, blame_agent

    agent = make_agent("random")
    with pytest.raises(AgentError, match=r"agent 'random' at seat 2 \(here\): KeyError: 'x'"):
        with blame_agent(agent, 2, "here"):
            raise KeyError("x")  # anything act() raises is the agent's
    with pytest.raises(AgentError, match=r"ValueError: illegal"):
        with blame_agent(agent, 2, "here", only=REFUSED_ACTION):
            raise ValueError("illegal")  # a refused action is the agent's too
    with pytest.raises(AgentError, match=r"SystemExit: 3"):
        with blame_agent(agent, 2, "here"):
            raise SystemExit(3)  # an agent does not end the harness
    with pytest.raises(RuntimeError, match="engine"):
        with blame_agent(agent, 2, "here", only=REFUSED_ACTION):
            raise RuntimeError("engine")  # what else a step raises is the engine's


def test_a_bare_checkpoint_path_is_told_to_use_ppo(capsys):
    """``saboteur evaluate runs/x/final.pt`` read the path as MODULE.ATTR and blamed the
    import path; a spec ending in .pt names the ppo form instead."""
    import pytest

    from saboteur_agents import make_agent
    from saboteur_experiments.cli import main

    with pytest.raises(ValueError, match=r"is played by the ppo agent, 'ppo:runs/x/final.pt'"):
        make_agent("runs/x/final.pt")
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "runs/x/final.pt", "--deals", "1"])
    assert exc.value.code == 2 and "'ppo:runs/x/final.pt'" in capsys.readouterr().err


def test_the_bluff_benchmarks_agents_are_made_by_name_in_a_fresh_process():
    """``evasive`` and ``rolesplit`` live with the bluff benchmark (saboteur_experiments) and
    are offered to ``make_agent`` through the package's entry points (``saboteur_env.agents``):
    a process that never imported the benchmark makes them by name, and the unknown-agent
    message lists them."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from saboteur_agents import make_agent\n"
        "assert 'saboteur_experiments.bluff.adversary' not in sys.modules\n"
        "print(type(make_agent('evasive:margin=0.3')).__name__)\n"
        "print(type(make_agent('rolesplit:heuristic/random')).__name__)\n"
        "try:\n"
        "    make_agent('heuristik')\n"
        "except ValueError as err:\n"
        "    print(err)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[:2] == ["EvasiveAgent", "RoleSplitAgent"]
    assert "'evasive'" in out[2] and "'rolesplit'" in out[2] and "'heuristic'" in out[2]


def test_an_entry_point_that_registers_nothing_is_named(monkeypatch):
    """An installed package's entry point whose module imports but calls no
    ``register_agent`` for its name: the error names the entry point, not "unknown agent"."""
    from importlib.metadata import EntryPoint

    import saboteur_agents.base as base

    ep = EntryPoint(name="ghost", value="json", group=base.ENTRY_POINTS)
    monkeypatch.setattr(base, "_offered", lambda: {"ghost": ep})
    with pytest.raises(
        ValueError,
        match=r"agent 'ghost': its entry point \(saboteur_env.agents: json\) imports, but",
    ):
        make_agent("ghost")
