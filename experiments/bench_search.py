"""Speed benchmark of a search agent: CPU seconds per decision, decisions/s and ms per rollout.

``python -m saboteur_experiments.bench_search --players 5 --games 3 --spec ismcts`` plays
``--games`` seeded games with the search agent in seat 0 and ``--others`` (default ``heuristic``) in
the other seats, times every ``act`` of seat 0 with ``time.process_time`` (CPU time: the machine
is shared), and prints the figures.  Nothing here is a test (DESIGN 7: benchmarks print
figures and never fail on speed).

``--ab`` plays every deal twice, with the heuristic's compiled maze kernels
(:mod:`saboteur_agents.heuristic.kernels`, numba) on and off, in alternating order, and prints
both rates and their ratio (the two play the same moves; the module caches are cleared before
each game, so neither profits from the other's work).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np

from saboteur_agents import make_agent
from saboteur_agents.base import Agent
from saboteur_agents.heuristic import kernels, maze
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import Game
from saboteur_experiments.cli_args import at_least, check_agents, check_config
from saboteur_experiments.play import play_game


class _Timed(Agent):
    """Plays as ``agent`` and appends the CPU seconds of each ``act`` to ``times``."""

    def __init__(self, agent: Agent, times: list[float]) -> None:
        self.agent, self.times = agent, times
        self.name, self.needs_game = agent.name, agent.needs_game

    def reset(self, seat: int, config: GameConfig, seed: int | None = None) -> None:
        self.agent.reset(seat, config, seed)

    def attach(self, game: Game) -> None:
        self.agent.attach(game)

    def act(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        info: dict[str, Any] | None = None,
    ) -> int:
        t0 = time.process_time()
        action = self.agent.act(observation, action_mask, info)
        self.times.append(time.process_time() - t0)
        return action


def bench(
    spec: str,
    players: int,
    games: int,
    seed: int = 0,
    others: str = "heuristic",
    expansion: bool = False,
    rounds: int | None = None,
) -> dict[str, Any]:
    """Play ``games`` games (deal seeds ``seed, seed+1, ...``) and measure seat 0.

    Returns:
        ``{"decisions", "searched", "cpu_per_decision", "median_cpu", "max_cpu",
        "decisions_per_s",
        "rollouts", "ms_per_rollout", "steps_per_rollout"}`` (seconds are CPU seconds;
        the rollout figures are 0 for an agent without
        :class:`~saboteur_agents.ismcts.SearchStats`).

    Raises:
        ValueError: a bad spec (:func:`agents.make_agent`) or game option.
    """
    times: list[float] = []
    rollouts = steps = searched = 0
    rollout_s = 0.0
    config: dict[str, Any] = {"expansion": expansion}
    if rounds is not None:
        config["num_rounds"] = rounds
    for g in range(games):
        agent = make_agent(spec)
        lineup = [agent] + [make_agent(others) for _ in range(players - 1)]
        lineup[0] = _Timed(agent, times)
        play_game(lineup, seed + g, **config)
        st = getattr(agent, "stats", None)
        if st is not None:
            rollouts += st.rollouts
            steps += st.steps
            searched += st.searched
            rollout_s += st.rollout_seconds
    total = sum(times)
    return {
        "decisions": len(times),
        "searched": searched,
        "cpu_per_decision": total / max(len(times), 1),
        "median_cpu": statistics.median(times) if times else 0.0,
        "max_cpu": max(times, default=0.0),
        "decisions_per_s": len(times) / total if total else 0.0,
        "rollouts": rollouts,
        "ms_per_rollout": 1e3 * rollout_s / rollouts if rollouts else 0.0,
        "steps_per_rollout": steps / rollouts if rollouts else 0.0,
    }


def bench_ab(
    spec: str,
    players: int,
    games: int,
    seed: int = 0,
    others: str = "heuristic",
    expansion: bool = False,
    rounds: int | None = None,
) -> dict[str, dict[str, Any]]:
    """:func:`bench` of each deal with the compiled kernels on and off, interleaved (deal
    ``g``: on first when ``g`` is even).

    Returns:
        ``{"on": ..., "off": ...}``: each :func:`bench`'s figures over all the deals
        (``decisions``, ``cpu_per_decision``, ``decisions_per_s``).

    Raises:
        RuntimeError: numba is not in use (:data:`kernels.ENABLED` is false).
    """
    if not kernels.ENABLED:
        raise RuntimeError(
            "--ab needs numba (pip install numba, or the fast extra) and SABOTEUR_NUMBA unset"
        )
    kernels.place  # noqa: B018 (compile or load every kernel before any timing)
    parts: dict[str, list[dict[str, Any]]] = {"on": [], "off": []}
    try:
        for g in range(games):
            for mode in ("on", "off") if g % 2 == 0 else ("off", "on"):
                kernels.ENABLED = mode == "on"
                maze._DIST_CACHE.clear()
                maze._ANALYSIS_CACHE.clear()
                parts[mode].append(bench(spec, players, 1, seed + g, others, expansion, rounds))
    finally:
        kernels.ENABLED = True
    out = {}
    for mode, rs in parts.items():
        n = sum(r["decisions"] for r in rs)
        cpu = sum(r["cpu_per_decision"] * r["decisions"] for r in rs)
        out[mode] = {
            "decisions": n,
            "cpu_per_decision": cpu / max(n, 1),
            "decisions_per_s": n / cpu if cpu else 0.0,
        }
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m saboteur_experiments.bench_search", description=__doc__
    )
    p.add_argument("--spec", default="ismcts", help="the agent measured (seat 0)")
    p.add_argument("--players", type=at_least(1), default=5)
    p.add_argument("--games", type=at_least(1), default=3)
    p.add_argument("--seed", type=at_least(0), default=0, help="first deal seed")
    p.add_argument("--others", default="heuristic", help="the agent of the other seats")
    p.add_argument("--expansion", action="store_true", help="Saboteur 2")
    p.add_argument("--rounds", type=at_least(1), default=None, help="rounds per game (default 3)")
    p.add_argument(
        "--ab",
        action="store_true",
        help="each deal with the heuristic's compiled kernels on and off, interleaved",
    )
    a = p.parse_args(argv)
    check_config(p, num_players=a.players, expansion=a.expansion, num_rounds=a.rounds or 3)
    check_agents(p, [a.spec], "--spec")
    check_agents(p, [a.others], "--others")
    game = GameConfig(expansion=a.expansion).ruleset.name
    if a.ab:
        if not kernels.ENABLED:
            p.error(
                "--ab needs numba (pip install numba, or the fast extra) and SABOTEUR_NUMBA unset"
            )
        ab = bench_ab(a.spec, a.players, a.games, a.seed, a.others, a.expansion, a.rounds)
        print(f"{a.spec} ({game}, {a.players} players, {a.games} games, others {a.others})")
        for mode in ("on", "off"):
            r = ab[mode]
            print(
                f"  kernels {mode:3}: decisions {r['decisions']}, "
                f"{1e3 * r['cpu_per_decision']:.2f} CPU-ms per decision, "
                f"{r['decisions_per_s']:.1f} decisions per CPU-second"
            )
        off = ab["off"]["decisions_per_s"]
        print(f"  ratio on/off: {ab['on']['decisions_per_s'] / off if off else 0.0:.2f}")
        return
    r = bench(a.spec, a.players, a.games, a.seed, a.others, a.expansion, a.rounds)
    print(f"{a.spec} ({game}, {a.players} players, {a.games} games, others {a.others})")
    print(
        f"  decisions {r['decisions']} (searched {r['searched']}), CPU per decision mean "
        f"{r['cpu_per_decision']:.3f} s, median {r['median_cpu']:.3f} s, max "
        f"{r['max_cpu']:.3f} s, {r['decisions_per_s']:.1f} decisions/s"
    )
    print(
        f"  rollouts {r['rollouts']}, {r['ms_per_rollout']:.1f} ms per rollout, "
        f"{r['steps_per_rollout']:.1f} decisions per rollout"
    )


if __name__ == "__main__":
    main()
