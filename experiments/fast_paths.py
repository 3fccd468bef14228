"""The fast observation and mask against their plain reference implementations, on every
state of seeded random games.

:meth:`ObservationEncoder.encode` (cached public board, cached ``recent`` rows, one scatter of
the per-seat counts) must return exactly what :meth:`ObservationEncoder.encode_reference`
returns, and :meth:`Codec.mask` exactly :meth:`Codec.mask_reference` (each family's plain
``legal_reference`` laid end to end), byte for byte, for every seat and the spectator, in every
state of every game.  ``tests/test_fast_paths.py`` runs a few dozen games;
``python -m saboteur_experiments.fast_paths --games 200`` runs more.  With ``--vector STEPS``
it checks the batched engine (:mod:`saboteur_env.vector`) against single envs instead
(:func:`check_vector`).
"""

from __future__ import annotations

import argparse

import numpy as np

import saboteur_env
from saboteur_env.encoding.codec import Codec, legal_indices
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import EventType
from saboteur_env.vector.arrays import supports

#: (label, config options) checked by default: base 3/5/10 and Saboteur 2 2/5/12 players
CONFIGS: tuple[tuple[str, dict], ...] = (
    ("base 3p", {"num_players": 3}),
    ("base 5p", {"num_players": 5}),
    ("base 10p", {"num_players": 10}),
    ("sab2 2p", {"num_players": 2, "expansion": True}),
    ("sab2 5p", {"num_players": 5, "expansion": True}),
    ("sab2 12p", {"num_players": 12, "expansion": True}),
)


class Mismatch(AssertionError):
    """A fast path differed from its reference (the message names game, decision, seat)."""


def check_games(options: dict, games: int, seed: int = 0) -> int:
    """Play ``games`` random games of ``options`` (deal seeds ``seed..seed+games-1``) through
    ``raw_env``, and at every state compare, for every seat and the spectator, the fast
    observation with the reference and the fast mask with the reference: those of the env's
    own encoder and codec (its caches used as in play: one seat per state), of a second fast
    encoder that encodes every seat, and every 25th state of a copy of the game (a new board
    and event list).  Returns the number of states checked.

    Raises:
        Mismatch: the first difference found.
    """
    env = saboteur_env.raw_env(**options)
    enc, codec = env.encoder, env.codec
    fast_all = ObservationEncoder(env.config)
    ref = ObservationEncoder(env.config)
    ref_codec = Codec(env.config)
    rng = np.random.default_rng(seed)
    states = 0
    for g in range(seed, seed + games):
        env.reset(seed=g)
        for agent in env.agent_iter():
            game = env.game
            assert game is not None
            obs, _, term, trunc, _ = env.last()
            where = f"{options}, game {g}, decision {game.decisions}"
            seat = env.agent_name_mapping[agent]
            if not game.game_over:
                _same(obs["observation"], ref.encode_reference(game, seat), f"{where}, env obs")
                _same(obs["action_mask"], ref_codec.mask_reference(game, seat), f"{where}, mask")
            views = [game] if states % 25 else [game, game.copy()]
            for v in views:
                for s in [*range(game.n), "spectator"]:
                    want = ref.encode_reference(v, s)
                    _same(fast_all.encode(v, s), want, f"{where}, seat {s}")
                    if isinstance(s, int):
                        _same(codec.mask(v, s), ref_codec.mask_reference(v, s), f"{where}, {s}")
            _same(enc.encode(game, "spectator"), ref.encode_reference(game, "spectator"), where)
            states += 1
            if term or trunc:
                env.step(None)
                continue
            legal = legal_indices(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
    return states


def choose_actions(
    mask: np.ndarray, rng: np.random.Generator, codec: Codec | None = None, east: float = 0.0
) -> np.ndarray:
    """A legal action of every row of ``mask`` (bool ``(B, n)``): uniformly random (position
    ``floor(u * count)`` of the row's ascending legal actions, ``u = rng.random(B)``, as
    ``VectorGame.sample_actions``), except that with probability ``east`` a row with a legal
    placement takes the one furthest east (``codec``'s layout; ties: the first), so that
    mazes reach the goals and the gold (random play seldom does)."""
    b = mask.shape[0]
    u = rng.random(b)
    # flat indices, not np.nonzero of the 2-D mask (about 16x faster at B = 1,024)
    rows, cols = np.divmod(np.flatnonzero(mask), mask.shape[1])
    starts = np.searchsorted(rows, np.arange(b))
    counts = np.diff(np.append(starts, len(rows)))
    out = cols[starts + (u * counts).astype(np.int64)].astype(np.int64)
    if east and codec is not None:
        off, size = codec.blocks["place"]
        go = rng.random(b) < east
        for i in np.flatnonzero(go).tolist():
            legal = cols[starts[i] : starts[i] + counts[i]]
            places = legal[(legal >= off) & (legal < off + size)]
            if len(places):
                x = ((places - off) % codec.n_cells) % codec.width
                out[i] = places[int(np.argmax(x))]
    return out


def check_vector(
    options: dict,
    num_envs: int,
    steps: int,
    seed: int = 0,
    backend: str = "auto",
    east: float = 0.0,
) -> int:
    """Step a :class:`~saboteur_env.vector.VectorGame` of ``num_envs`` games (on ``backend``)
    and as many ``raw_env``s (on the engine backend: every observation encoded) reset with
    the same seeds (``seed + i``) side by side for ``steps`` steps, feeding both the same
    random legal actions (:func:`choose_actions` with ``east``); after every step compare the
    seat to act, the observation, the mask, the step's rewards, its events, ``terminated`` /
    ``truncated`` and the final gold, game by game; a finished env is dealt its next game by
    its own unseeded ``reset()``.  Every finished game's event list, and every 50th step each
    game's state and event list (``VectorGame.game``), must equal the env's.  Returns the
    number of games that ended (auto-resets exercised).

    Raises:
        Mismatch: the first difference found.
    """
    from saboteur_env.vector import VectorGame

    vec = VectorGame(num_envs, backend=backend, **options)
    vec.reset(seed)
    # the reference: single envs that encode every observation (not the kernels)
    envs = [saboteur_env.raw_env(backend="engine", **options) for _ in range(num_envs)]
    for i, e in enumerate(envs):
        e.reset(seed=seed + i)
    rng = np.random.default_rng(seed)
    ended_games = 0
    for t in range(steps):
        for i, e in enumerate(envs):
            where = f"{options}, step {t}, game {i}"
            obs = e.observe(e.agent_selection)
            if vec.current_player[i] != e.agent_name_mapping[e.agent_selection]:
                raise Mismatch(f"{where}: seat to act differs")
            _same(vec.observation[i], obs["observation"], f"{where}, observation")
            _same(vec.legal_action_mask[i], obs["action_mask"].view(bool), f"{where}, mask")
        actions = choose_actions(vec.legal_action_mask, rng, vec.codec, east)
        before = [len(e.game.events) for e in envs]
        vec.step(actions)
        for i, e in enumerate(envs):
            where = f"{options}, step {t}, game {i}"
            game = e.game
            e.step(int(actions[i]))
            rewards = np.array([e.rewards[a] for a in e.possible_agents], dtype=np.float32)
            while e.agents and (
                e.terminations[e.agent_selection] or e.truncations[e.agent_selection]
            ):
                e.step(None)  # the dead steps of a finished game
            _same(vec.rewards[i], rewards, f"{where}, rewards")
            if vec.events[i] != game.events[before[i] :]:
                raise Mismatch(f"{where}: events differ")
            ended = not e.agents
            if (vec.terminated[i], vec.truncated[i]) != (
                ended and game.game_over,
                ended and not game.game_over,
            ):
                raise Mismatch(f"{where}: terminated/truncated differ")
            final = game.gold if ended else np.zeros_like(vec.final_gold[i])
            _same(vec.final_gold[i], final.astype(np.int64), f"{where}, final gold")
            if ended:
                got = vec.ended_games[i]
                if got is None or got.events != game.events:
                    raise Mismatch(f"{where}: the ended game's events differ")
                ended_games += 1
                e.reset()  # the env's own next deal: its seed stream
            elif t % 50 == 49:
                _same_game(vec.game(i), game, where)
    return ended_games


def aec_snapshot(env) -> dict:
    """Everything an agent loop can read of ``env`` (a ``raw_env``) without its game: the
    agent to act, the agents, rewards, cumulative rewards, terminations, truncations,
    ``repr(infos)`` and every agent's observation and mask (as bytes)."""
    out = {
        "selection": env.agent_selection,
        "agents": list(env.agents),
        "rewards": dict(env.rewards),
        "cumulative": dict(env._cumulative_rewards),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "infos": repr(env.infos),
    }
    for a in env.agents:
        o = env.observe(a)
        out[a] = (o["observation"].tobytes(), o["action_mask"].tobytes())
    return out


def check_aec(
    options: dict, games: int, seed: int = 0, east: float = 0.0, every: int = 25
) -> tuple[int, int]:
    """Play ``games`` games of ``options`` on ``raw_env``'s array backend and its engine
    backend side by side (the first reset seeded ``seed``, the rest unseeded), the same
    actions in both (:func:`choose_actions` with ``east``).  After every step compare what an
    agent loop reads (the agent to act's observation and mask, rewards, cumulative rewards,
    terminations, truncations, ``repr(infos)``), every ``every`` steps and at the game's end
    :func:`aec_snapshot` (every agent's observation: on the array backend reading another
    agent's brings the engine's game up to date, so the replays in between span many decisions
    and round ends), and after every game the round results the kernels made
    (``FollowedGame.lead``) and the games' event lists and round results (the array
    backend's ``env.game`` read only then: until it is read the kernels lead).  Returns the
    decisions played and the rounds that ended with the gold found.

    Raises:
        Mismatch: the first difference found.
    """
    fast = saboteur_env.raw_env(backend="array", **options)
    ref = saboteur_env.raw_env(backend="engine", **options)
    followed = fast._followed
    assert followed is not None
    results: list = []
    lead = followed.lead

    def recording(action: int):
        over, events, result = lead(action)
        if result is not None:
            results.append(result)
        return over, events, result

    followed.lead = recording  # type: ignore[method-assign]
    rng = np.random.default_rng(seed)
    decisions = gold = 0
    for g in range(games):
        fast.reset(seed=seed if g == 0 else None)
        ref.reset(seed=seed if g == 0 else None)
        results.clear()
        while fast.agents:
            where = f"{options}, game {g} of seed {seed}, decision {decisions}"
            agent = fast.agent_selection
            done = fast.terminations[agent] or fast.truncations[agent]
            view = aec_snapshot if decisions % every == 0 or done else _loop_view
            if view(fast) != view(ref):
                raise Mismatch(f"{where}: the envs differ")
            if done:
                fast.step(None)
                ref.step(None)
                continue
            mask = fast.observe(agent)["action_mask"].astype(bool)[None]
            a = int(choose_actions(mask, rng, fast.codec, east)[0])
            fast.step(a)
            ref.step(a)
            decisions += 1
            gold += sum(
                e.data["gold_found"]
                for e in fast.infos[agent]["events"]
                if e.type is EventType.ROUND_END
            )
        if not fast._lead:
            raise Mismatch(f"{options}, game {g}: the kernels did not lead the game")
        if results != ref.game.round_results:
            raise Mismatch(f"{options}, game {g}: the kernels' round results differ")
        if fast.game.events != ref.game.events or (
            fast.game.round_results != ref.game.round_results
        ):
            raise Mismatch(f"{options}, game {g}: the games differ")
    return decisions, gold


def _loop_view(env) -> tuple:
    """What an agent loop reads of ``env`` in a step: ``last()`` of the agent to act."""
    obs, reward, term, trunc, info = env.last()
    return (
        env.agent_selection,
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        dict(env.rewards),
        reward,
        term,
        trunc,
        dict(env.terminations),
        dict(env.truncations),
        repr(env.infos),
    )


def _same_game(got, want, where: str) -> None:
    """The state fields of two games and their event lists are equal."""
    for name in ("current", "turn", "round", "decisions", "last_card_seat", "first_player"):
        if getattr(got, name) != getattr(want, name):
            raise Mismatch(f"{where}: game.{name} differs")
    for name in ("hands", "deck", "discards", "secret_discards", "broken", "known_goals", "gold"):
        _same(np.asarray(getattr(got, name)), np.asarray(getattr(want, name)), f"{where}, {name}")
    for name in ("var", "opn", "reached", "conn", "goal_revealed", "goal_identity"):
        _same(getattr(got.board, name), getattr(want.board, name), f"{where}, board.{name}")
    if got.events != want.events:
        raise Mismatch(f"{where}: the game's events differ")


def _same(got: np.ndarray, want: np.ndarray, where: str) -> None:
    if got.dtype != want.dtype or got.shape != want.shape or got.tobytes() != want.tobytes():
        diff = np.flatnonzero(got != want)[:8] if got.shape == want.shape else "shape"
        raise Mismatch(f"{where}: fast path differs from the reference at {diff}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m saboteur_experiments.fast_paths", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--games", type=int, default=100, help="games per configuration")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--vector",
        type=int,
        default=0,
        metavar="STEPS",
        help="instead: the batched engine against single envs, 8 games each, for STEPS steps",
    )
    p.add_argument(
        "--backend",
        default="auto",
        choices=("auto", "array", "engine"),
        help="the batched engine's backend with --vector (auto: array where it plays)",
    )
    p.add_argument(
        "--east",
        type=float,
        default=0.5,
        help="with --vector or --aec: the share of decisions that place the card furthest east "
        "(mazes that reach the gold; choose_actions)",
    )
    p.add_argument(
        "--aec",
        action="store_true",
        help="instead: raw_env's array backend against its engine backend, --games games "
        "per base configuration",
    )
    args = p.parse_args(argv)
    if args.aec:
        for label, options in CONFIGS:
            if not supports(GameConfig(**options)):
                continue  # a ruleset the array backend does not play (Saboteur 2)
            n, gold = check_aec(options, args.games, args.seed, args.east)
            print(
                f"{label}: {args.games} games, {n} decisions, {gold} rounds with the gold "
                "found: raw_env array == engine"
            )
        return
    if args.vector:
        from saboteur_env.vector import VectorGame

        for label, options in CONFIGS:
            backend = VectorGame(1, backend=args.backend, **options).backend
            n = check_vector(options, 8, args.vector, args.seed, backend, args.east)
            print(
                f"{label} ({backend}): 8 games x {args.vector} steps, {n} games ended: "
                "vector == raw_env"
            )
        return
    for label, options in CONFIGS:
        n = check_games(options, args.games, args.seed)
        print(f"{label}: {args.games} games, {n} states: fast observation and mask == reference")


if __name__ == "__main__":
    main()
