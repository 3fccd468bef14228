"""Play whole games with agents through the PettingZoo AEC loop."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import saboteur_env
from saboteur_agents.base import REFUSED_ACTION, Agent, attach_game, blame_agent
from saboteur_env.encoding.codec import legal_indices
from saboteur_env.engine.events import RoundResult
from saboteur_env.engine.scoring import side_text
from saboteur_env.render import render_ansi


def default_agent_seeds(seed: int, n: int) -> list[int]:
    """The agents' seeds of a game dealt with ``seed`` when none are given: ``seed * 1000 +
    seat`` for seats ``0..n-1`` (:func:`play_game`, the human game, the bluff records and the
    replay page's re-created agents all use this)."""
    return [seed * 1000 + s for s in range(n)]


def play_game(
    agents: Sequence[Agent],
    seed: int,
    *,
    render: str | None = None,
    out=None,
    agent_seeds: Sequence[int] | None = None,
    record=None,
    record_meta: dict | None = None,
    record_events: bool = False,
    **config,
) -> dict:
    """Play one full game; agent ``i`` sits in seat ``i``.

    Args:
        agents: one agent per seat.
        seed: the deal seed (``env.reset(seed=seed)``); agents get their own seeds
            (``agent_seeds``, default :func:`default_agent_seeds`), so the deal never depends on how
            much randomness the agents use.
        render: ``"ansi"``: write each round's final maze (spectator view) to ``out``.
        out: a text stream for round results (``None``: print nothing).
        record: a path or text stream: write the game record there when the game ends
            (:mod:`saboteur_env.record`, JSON Lines; replay with ``saboteur replay``).
        record_meta: extra header fields of the record.
        record_events: also record every engine event with its visibility (record format
            version 2 ``event`` lines).
        config: :class:`~saboteur_env.engine.config.GameConfig` options.

    Returns:
        ``{"gold": [...], "winners": [...], "rounds": [RoundResult, ...], "decisions": int}``
        (``rounds``: ``game.round_results``).

    Raises:
        TypeError: ``seed`` is not an int.  ValueError: ``num_players`` is given and is not
            the number of agents.
    """
    n = len(agents)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int (the deal seed), not {type(seed).__name__}")
    if config.pop("num_players", n) != n:
        raise ValueError(f"num_players does not match the {n} agents given (one per seat)")
    env = saboteur_env.raw_env(num_players=n, **config)
    env.reset(seed=seed)
    seeds = list(agent_seeds) if agent_seeds is not None else default_agent_seeds(seed, n)
    for seat, agent in enumerate(agents):
        agent.reset(seat, env.config, seed=seeds[seat])
    game = env.game
    attach_game(agents, game)
    decisions = 0
    shown = 0
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[name]
        where = f"deal seed {seed}, decision {decisions}"
        with blame_agent(agents[seat], seat, where):
            action = agents[seat].act(obs["observation"], obs["action_mask"], info)
        with blame_agent(agents[seat], seat, where, only=REFUSED_ACTION):
            env.step(action)
        decisions += 1
        if out is not None and len(game.round_results) > shown:
            res = game.round_results[shown]
            shown += 1
            if render == "ansi":
                print(render_ansi(game, "spectator", board=game.round_boards[shown - 1]), file=out)
            print(_round_text(res, game), file=out)
    if record is not None:
        from saboteur_env.record import write_record

        write_record(
            record,
            game,
            seed,
            [a.name for a in agents],
            agent_seeds=seeds,
            meta=record_meta,
            events=record_events,
        )
    return {
        "gold": game.gold.tolist(),
        "winners": game.winners(),
        "rounds": game.round_results,
        "decisions": decisions,
    }


def _round_text(res: RoundResult, game) -> str:
    names = game.rules.roles
    roles = ", ".join(f"seat {s}: {names[r]}" for s, r in enumerate(res.roles))
    extra = ""
    if "thefts" in res.fields:  # a Saboteur 2 result (RULES 6.9)
        extra = (
            f"\n  winners: {res.winners}  crystals: {res.crystals}"
            f"  thefts (thief, victim): {res.thefts}"
        )
    return (
        f"Round {res.round + 1}: {side_text(res.winning_side, res.roles, game.rules)}"
        + f" after {res.turns} turns"
        + (f" (seat {res.connector} reached the gold)" if res.gold_found else "")
        + f"\n  roles: {roles}\n  gold received: {res.received}"
        + (
            # after thefts (RULES 6.9, 1 gold each) a robbed seat's net can be < 0: show the pay
            f" (paid {res.paid}, then the thefts)" if res.paid != res.received else ""
        )
        + extra
    )


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = legal_indices(mask)
    return int(legal[rng.integers(len(legal))])
