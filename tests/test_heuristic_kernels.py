"""The heuristic's compiled maze kernels (agents/heuristic/kernels.py) equal its numpy code.

Every kernel call the heuristic makes while playing seeded games (base and Saboteur 2) is
computed both ways and compared, value and dtype; and whole games give the same actions with the
kernels on and off.  Skipped without numba (the numpy code is then the only one).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from saboteur_agents import make_agent
from saboteur_agents.heuristic import kernels, maze
from saboteur_env import raw_env

pytest.importorskip("numba")


def _play(expansion: bool, seeds: range, n: int = 5, seen=None) -> list[int]:
    """The heuristic's actions in games of ``n`` heuristic players, one list for all games;
    ``seen(agent, observation)`` is called at each decision."""
    env = raw_env(num_players=n, expansion=expansion)
    actions: list[int] = []
    for seed in seeds:
        env.reset(seed=seed)
        agents = {}
        for i, a in enumerate(env.agents):
            agents[a] = make_agent("heuristic")
            agents[a].reset(i, env.unwrapped.config, seed=seed * 10 + i)
        for a in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            if seen is not None:
                seen(agents[a], obs["observation"])
            act = agents[a].act(obs["observation"], obs["action_mask"], info)
            actions.append(act)
            env.step(act)
    return actions


def _same(fast, slow, what: str) -> None:
    if isinstance(fast, float):  # a scalar value: a numpy float64 both ways
        assert type(fast) is type(slow) and fast == slow, (what, fast, slow)
        return
    if isinstance(fast, tuple):
        assert len(fast) == len(slow), what
        for i, (f, s) in enumerate(zip(fast, slow)):
            _same(f, s, f"{what}[{i}]")
        return
    assert fast.dtype == slow.dtype, (what, fast.dtype, slow.dtype)
    assert fast.shape == slow.shape, (what, fast.shape, slow.shape)
    assert np.array_equal(fast, slow), what


def test_the_cell_codes_agree():
    assert (kernels._EMPTY, kernels._FACE_UP, kernels._HIDDEN_GOAL) == (
        maze.EMPTY,
        maze.FACE_UP,
        maze.HIDDEN_GOAL,
    )


@pytest.mark.parametrize("expansion", [False, True])
def test_every_kernel_call_in_play_equals_the_numpy_code(monkeypatch, expansion):
    assert kernels.ENABLED
    calls: dict[str, int] = {}

    def numpy_of(f, *args):
        kernels.ENABLED = False
        try:
            return f(*args)
        finally:
            kernels.ENABLED = True

    def checked(name, method):
        def run(self, *args):
            fast = method(self, *args)
            if name == "recompute":  # it sets self.conn (a new array each time)
                fast = self.conn
                numpy_of(method, self, *args)
                slow = self.conn
            else:
                slow = numpy_of(method, self, *args)
            _same(fast, slow, name)
            calls[name] = calls.get(name, 0) + 1
            return fast

        return run

    for cls, name in [
        (maze.Maze, "recompute"),
        (maze.SegmentMaze, "recompute"),
        (maze.Maze, "facing_conn"),
        (maze.Maze, "neighbour_sides"),
        (maze.Evaluation, "place"),
        (maze.Evaluation, "_front_values"),
        (maze.Evaluation, "value"),
        (maze, "front_ranks"),
    ]:
        monkeypatch.setattr(cls, name, checked(name, getattr(cls, name)))

    real = maze.Maze.distances

    def distances(self):
        fast = real(self)
        _same(fast, self._distances_numpy(), "distances")
        calls["distances"] = calls.get("distances", 0) + 1
        return fast

    monkeypatch.setattr(maze.Maze, "distances", distances)
    maze._DIST_CACHE.clear()
    maze._ANALYSIS_CACHE.clear()
    _play(expansion, range(3100, 3103))
    # the calls were made, many times (each name is a kernel the play used)
    expected = {"recompute", "distances", "facing_conn", "neighbour_sides", "place", "value"}
    expected.add("front_ranks")
    expected.add("_front_values")  # the scarcity costs of heuristic v2
    assert expected <= set(calls), calls
    assert calls["place"] > 100 and calls["distances"] > 20, calls


@pytest.mark.parametrize("expansion", [False, True])
def test_whole_games_play_the_same_with_the_kernels_on_and_off(monkeypatch, expansion):
    seeds = range(3200, 3203)
    with_kernels = _play(expansion, seeds)
    monkeypatch.setattr(kernels, "ENABLED", False)
    maze._DIST_CACHE.clear()
    maze._ANALYSIS_CACHE.clear()
    assert _play(expansion, seeds) == with_kernels
    assert len(with_kernels) > 100


@pytest.mark.parametrize("expansion", [False, True])
def test_reading_the_board_equals_the_numpy_code(expansion):
    read = []

    def seen(agent, observation):
        cls = agent.gameplay.maze  # the game's maze, as the agent plays it
        # a segment maze also plans with either door colour as a wall (0: none)
        blocks = (0, 1, 2) if issubclass(cls, maze.SegmentMaze) else (0,)
        options = [{"block": b} if b else {} for b in blocks]
        board = agent.encoder.views(observation)["board"]
        for kw in options:
            fast = cls.from_view(agent.config.board_window, board, **kw)
            kernels.ENABLED = False
            try:
                slow = cls.from_view(agent.config.board_window, board, **kw)
            finally:
                kernels.ENABLED = True
            for name in cls.ARRAYS:
                _same(getattr(fast, name), getattr(slow, name), name)
        read.append(1)

    _play(expansion, range(3300, 3302), seen=seen)
    assert len(read) > 100


def test_saboteur_numba_0_turns_the_kernels_off():
    code = (
        "import sys; from saboteur_agents.heuristic import kernels; "
        "print(kernels.ENABLED, 'numba' in sys.modules)"
    )
    env = dict(os.environ, SABOTEUR_NUMBA="0")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]
    env["SABOTEUR_NUMBA"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    # on, but numba is imported only when a kernel is first called
    assert out.stdout.split() == ["True", "False"]


def test_a_kernel_name_without_numba_in_use_is_a_named_error(monkeypatch):
    monkeypatch.setattr(kernels, "ENABLED", False)
    monkeypatch.delitem(kernels.__dict__, "place", raising=False)
    with pytest.raises(AttributeError, match="numba is not in use"):
        kernels.place  # noqa: B018
