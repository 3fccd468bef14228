"""Speed benchmark of random legal play, interleaved with peers in the same run: decisions per
CPU-second and per wall-second of Saboteur's ``raw_env`` and ``env()``, PettingZoo's
``connect_four_v3`` through its ``env()``, PettingZoo's wrapper floor (a trivial AEC env through
the same wrappers as ``saboteur_env.env()``), and OpenSpiel's 5-player Hanabi with observation
tensors when ``pyspiel`` is installed; each figure with its ratio to connect_four_v3.  Also the
mean number of legal actions per decision and the share of decisions where a legal placement
would lie outside the board window.

Run ``saboteur bench`` (or ``python -m saboteur_experiments.bench``).  Every contender plays the
same loop (``env.last()``, a uniform draw among the mask's legal actions, ``env.step``); the
contenders take turns in short blocks of whole games, ``--repeats`` rounds of blocks, and each
figure is the median over the blocks, so a machine's load drift hits every contender alike.
Figures are printed; nothing here is a test (``tests/test_bench.py`` checks the table's form).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import saboteur_env
from saboteur_env.encoding.codec import legal_indices
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.ruleset import BASE, SABOTEUR_2, Ruleset
from saboteur_env.vector.arrays import resolve_backend
from saboteur_experiments.cli_args import DefaultsHelp, at_least, check_config

#: the ``game`` column of each ruleset
LABELS = {BASE.name: "base", SABOTEUR_2.name: "sab2"}
#: the row every ratio is taken to
REFERENCE = "connect_four_v3 env()"
FLOOR = "wrapper floor env()"


class FloorEnv(AECEnv):
    """The cheapest AEC env PettingZoo's wrappers can carry: 2 agents alternate for
    ``length`` steps, a ``Dict`` observation of a float32 ``(1,)`` box and an int8 ``(2,)``
    action mask, ``Discrete(2)`` actions, no rule.  Through :func:`floor_env` it measures what
    the wrappers and the AEC loop cost by themselves."""

    metadata = {"name": "floor_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, length: int = 40) -> None:
        super().__init__()
        self.length = length
        self.possible_agents = ["player_0", "player_1"]
        obs = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (1,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (2,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(2) for a in self.possible_agents}
        self._obs = np.zeros(1, dtype=np.float32)
        self._mask = np.ones(2, dtype=np.int8)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._t = 0

    def observe(self, agent: str) -> dict:
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def step(self, action) -> None:
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self._t += 1
        if self._t >= self.length:
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = self.agents[self._t % 2]


def floor_env(**_kwargs) -> AECEnv:
    """:class:`FloorEnv` through PettingZoo's stock ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper``, the stack every PettingZoo classic env's ``env()`` uses
    (``saboteur_env.env()`` uses lighter subclasses of the two, so its ratio to this floor is
    a little flattering)."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(FloorEnv()))


@dataclass
class Contender:
    """One row of the table: ``play(seed)`` plays one game and returns its decisions."""

    label: str
    play: Callable[[int], int]
    blocks: list[tuple[int, float, float]] = field(default_factory=list)  # (decisions, cpu, wall)

    def rate(self, which: int) -> float:
        """Median decisions per second over the blocks (``which``: 1 CPU, 2 wall)."""
        return statistics.median(b[0] / max(b[which], 1e-9) for b in self.blocks)


def aec_player(make: Callable[..., AECEnv], seed: int, **kwargs) -> Callable[[int], int]:
    """``play(seed)`` of random legal play through an AEC env made once by ``make(**kwargs)``:
    a uniform draw among the nonzero entries of ``action_mask``."""
    env = make(**kwargs)
    rng = np.random.default_rng(seed)

    def play(game_seed: int) -> int:
        decisions = 0
        env.reset(seed=game_seed)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = legal_indices(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
        return decisions

    return play


def vector_player(
    num_envs: int, seed: int, backend: str = "auto", quick: bool = False, **options
) -> tuple[Callable[[int], int], str]:
    """``play(seed)`` of random legal play through one :class:`~saboteur_env.vector.VectorGame`
    of ``num_envs`` games on ``backend``, dealt once (``reset(seed)``, outside the timing);
    each call plays batched steps of uniformly random legal actions (``sample_actions``),
    games ending and being dealt anew inside them as in self-play, and returns the decisions
    made (``play``'s own seed is not used).  Also returns the backend in use.

    The games of a batch start together, so their round ends come in waves, and on the array
    backend a round end (the engine's scoring and deal) costs more than the decisions between
    them: a call there plays 250 steps, about one whole game per slot at 5 players, so that
    every call averages over every phase of a game.  On the engine backend, whose decisions
    all go through the engine, a call plays ``max(1, 2048 // num_envs)`` steps.  ``quick``:
    4 steps a call."""
    from saboteur_env.vector import VectorGame

    vec = VectorGame(num_envs, backend=backend, **options)
    vec.reset(seed)
    rng = np.random.default_rng(seed)
    steps = 250 if vec.backend == "array" else max(1, 2048 // num_envs)
    if quick:
        steps = 4

    def play(game_seed: int) -> int:
        for _ in range(steps):
            vec.step(vec.sample_actions(rng))
        return num_envs * steps

    return play, vec.backend


def hanabi_player(seed: int, players: int = 5) -> Callable[[int], int] | None:
    """``play(seed)`` of random legal OpenSpiel Hanabi with the observation tensor of the
    player to act built at each decision, or ``None`` without ``pyspiel``."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("hanabi", {"players": players})
    rng = np.random.default_rng(seed)

    def play(game_seed: int) -> int:
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1
        return decisions

    return play


def contenders(
    players: list[int],
    expansion_players: list[int],
    seed: int,
    hanabi: bool = True,
    vector: Sequence[int] = (),
    quick: bool = False,
) -> tuple[list[Contender], list[str]]:
    """The rows of the table, and notes on peers left out (an import that failed).
    ``vector``: batch sizes of :class:`~saboteur_env.vector.VectorGame` rows per game
    (``quick``: their short form, :func:`vector_player`)."""
    rows = [(BASE, n) for n in players] + [(SABOTEUR_2, n) for n in expansion_players]
    out = []
    for rules, n in rows:
        for api, make in (("raw_env", saboteur_env.raw_env), ("env()", saboteur_env.env)):
            play = aec_player(make, seed, num_players=n, expansion=rules.expansion)
            out.append(Contender(f"{LABELS[rules.name]} {n}p {api}", play))
        if (
            resolve_backend("auto", GameConfig(num_players=n, expansion=rules.expansion))
            != "engine"
        ):
            # the default backend's reference: every observation and mask encoded
            play = aec_player(
                saboteur_env.raw_env,
                seed,
                num_players=n,
                backend="engine",
                expansion=rules.expansion,
            )
            out.append(Contender(f"{LABELS[rules.name]} {n}p raw_env[engine]", play))
        for b in vector:
            # the default backend, and the engine beside it where that is the array backend
            play, used = vector_player(
                b, seed, quick=quick, num_players=n, expansion=rules.expansion
            )
            out.append(Contender(f"{LABELS[rules.name]} {n}p vector[{used}] B={b}", play))
            if used != "engine":
                play, _ = vector_player(
                    b,
                    seed,
                    backend="engine",
                    quick=quick,
                    num_players=n,
                    expansion=rules.expansion,
                )
                out.append(Contender(f"{LABELS[rules.name]} {n}p vector[engine] B={b}", play))
    notes = []
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # connect_four imports pygame
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as err:  # pygame missing: the bench extra
        raise SystemExit(
            f"connect_four_v3 cannot be imported ({err}); pip install -e '.[bench]'"
        ) from None
    out.append(Contender(REFERENCE, aec_player(connect_four_v3.env, seed)))
    out.append(Contender(FLOOR, aec_player(floor_env, seed)))
    h = hanabi_player(seed) if hanabi else None
    if h is not None:
        out.append(Contender("OpenSpiel hanabi 5p tensors", h))
    elif hanabi:
        notes.append("OpenSpiel hanabi: skipped (pyspiel is not installed)")
    return out, notes


def measure(rows: list[Contender], repeats: int, block: float, min_games: int, seed: int) -> None:
    """Play ``repeats`` rounds of blocks: in each round every contender in turn plays whole
    games until it has used ``block`` CPU-seconds and ``min_games`` games; each block's
    (decisions, CPU-seconds, wall-seconds) goes to ``Contender.blocks``.  Each round plays the
    contenders in a new order (seeded by ``seed``): a block run right after another
    contender's, e.g. Hanabi's large state, starts with cold caches, and in a fixed order one
    contender would always follow the same one.  First, one unrecorded game per contender
    (the last seed of its range, which the measured games do not reach) warms its caches and
    compiled code: in a 2-round ``--quick`` run the first block's cost reversed the ranking of
    ``raw_env`` and ``env()``."""
    game_seed = [seed * 1_000_003] * len(rows)
    for i, c in enumerate(rows):
        c.play(game_seed[i] + 1_000_002)
    orders = np.random.default_rng(seed)
    for _ in range(repeats):
        for i in orders.permutation(len(rows)).tolist():
            c = rows[i]
            decisions = games = 0
            c0, w0 = time.process_time(), time.perf_counter()
            while games < min_games or time.process_time() - c0 < block:
                decisions += c.play(game_seed[i])
                game_seed[i] += 1
                games += 1
            c.blocks.append((decisions, time.process_time() - c0, time.perf_counter() - w0))


def table(rows: list[Contender]) -> list[dict]:
    """One dict per contender: ``label``, ``cpu`` and ``wall`` (decisions per second,
    medians), ``ratio`` and ``wall_ratio`` (to connect_four_v3 env()), ``floor_ratio`` (CPU, to
    the wrapper floor)."""
    ref = next(c for c in rows if c.label == REFERENCE)
    floor = next(c for c in rows if c.label == FLOOR)
    rc, rw, fc = ref.rate(1), ref.rate(2), floor.rate(1)
    return [
        {
            "label": c.label,
            "cpu": c.rate(1),
            "wall": c.rate(2),
            "ratio": c.rate(1) / rc,
            "wall_ratio": c.rate(2) / rw,
            "floor_ratio": c.rate(1) / fc,
        }
        for c in rows
    ]


def profile(options: dict, games: int, seed: int, chunk: int = 3) -> dict[str, float]:
    """Where a ``raw_env`` decision's CPU time goes under random legal play: microseconds per
    decision in the observation (``encoder.encode``), the mask (``codec.mask``), the kernels
    (the array backend's ``FollowedGame``: the decisions they play, with their events, and
    their loads and final observations), the engine (``codec.decode`` + ``Game.apply``) and
    the rest (``AEC + loop``: the env's bookkeeping in ``last`` / ``step``, the observation's
    copy and the loop's own draw), and their ``total``.  ``options`` may name the env's
    ``backend``.  Each call is timed with ``time.process_time``; the timing's own cost,
    measured on empty calls, is taken off each component (the part inside the timed span) and
    off the total (all of it).  The games are timed in chunks of ``chunk``; each figure is the
    median over the chunks."""
    from saboteur_env.engine.state import Game

    env = saboteur_env.raw_env(**options)
    keys = ("observation", "mask", "kernels", "engine")
    spent = dict.fromkeys(keys, 0.0)
    calls = dict.fromkeys(keys, 0)
    clock = time.process_time

    def timed(f, key):
        def run(*a, **k):
            t = clock()
            r = f(*a, **k)
            spent[key] += clock() - t
            calls[key] += 1
            return r

        return run

    empty = timed(lambda: None, "observation")
    t = clock()
    for _ in range(20000):
        empty()
    outer = (clock() - t) / 20000  # one timed call, all of it
    inner = spent["observation"] / 20000  # the part inside the span
    spent["observation"], calls["observation"] = 0.0, 0
    env.encoder.encode = timed(env.encoder.encode, "observation")  # type: ignore[method-assign]
    env.codec.mask = timed(env.codec.mask, "mask")  # type: ignore[method-assign]
    env.codec.decode = timed(env.codec.decode, "engine")  # type: ignore[method-assign]
    followed = env._followed
    if followed is not None:
        for name in ("step", "follow", "lead", "final_observation"):
            setattr(followed, name, timed(getattr(followed, name), "kernels"))
    apply = Game.apply
    Game.apply = timed(apply, "engine")  # type: ignore[method-assign]
    chunks: list[dict[str, float]] = []
    try:
        play = aec_player(lambda **_: env, seed)
        for c in range(0, games, chunk):
            for k in keys:
                spent[k], calls[k] = 0.0, 0
            decisions = 0
            t = clock()
            for g in range(c, min(games, c + chunk)):
                decisions += play(seed + g)
            total = clock() - t - sum(calls.values()) * outer
            r = {k: 1e6 * (spent[k] - calls[k] * inner) / decisions for k in keys}
            r["AEC + loop"] = 1e6 * total / decisions - sum(r.values())
            r["total"] = 1e6 * total / decisions
            chunks.append(r)
    finally:
        Game.apply = apply  # type: ignore[method-assign]
    # the median of chunks of games, per part (a load spike hits one chunk); the parts then
    # need not add up to the total exactly
    return {k: statistics.median(r[k] for r in chunks) for k in chunks[0]}


def _stats(n_players: int, games: int, seed: int, rules: Ruleset = BASE) -> tuple[float, float]:
    """Mean legal actions per decision and the share of decisions with a legal placement
    outside the window (random play on the engine alone: ``Game.apply``, which verifies each
    action through the same legal set as the mask)."""
    from saboteur_env.encoding.codec import Codec
    from saboteur_env.engine.cards import CARD_KINDS, VARIANTS
    from saboteur_env.engine.phases import Phase
    from saboteur_env.engine.state import Game

    cfg = saboteur_env.GameConfig(num_players=n_players, expansion=rules.expansion)
    codec = Codec(cfg)
    rng = np.random.default_rng(seed)
    legal_total = decisions = overflow = 0
    for g in range(games):
        game = Game(cfg, seed + g)
        while not game.game_over:
            m = codec.mask(game)
            legal = legal_indices(m)
            legal_total += len(legal)
            decisions += 1
            s = game.current
            if game.phase is Phase.TURN and game.can_place_paths(s):
                kinds = [
                    k for k in np.nonzero(game.hands[s])[0] if CARD_KINDS[k].category == "path"
                ]
                vs = [v for v in codec.variants if int(VARIANTS[v].kind) in kinds]
                if vs and game.board.overflow(vs):
                    overflow += 1
            game.apply(codec.decode(int(legal[rng.integers(len(legal))]), s, game.n))
    return legal_total / decisions, overflow / decisions


#: the run's size options when not given: a full run, and ``--quick``'s tiny one
_FULL: dict[str, Any] = {
    "players": [3, 5, 10],
    "expansion_players": [2, 5, 12],
    "games": 1,
    "block": 0.1,
    "repeats": 21,
    "stats_games": 200,
}
_QUICK: dict[str, Any] = {
    "players": [3],
    "expansion_players": [2],
    "games": 1,
    "block": 0.02,
    "repeats": 2,
    "stats_games": 2,
}


def main(argv=None) -> list[dict]:
    """Run the benchmark and print its tables; returns the speed table (:func:`table`)."""
    p = argparse.ArgumentParser(
        prog="saboteur bench", description=__doc__.split("\n\n")[0], formatter_class=DefaultsHelp
    )
    # a size option's None: not given (_FULL's or, with --quick, _QUICK's value is taken; a
    # value given is kept)
    sizes = (
        ("players", {"type": int, "nargs": "*"}, "player counts of the base-game rows"),
        (
            "expansion_players",
            {"type": int, "nargs": "*"},
            "player counts of the Saboteur 2 rows (none: skip them)",
        ),
        ("games", {"type": at_least(1)}, "fewest whole games in one block"),
        ("block", {"type": float}, "CPU-seconds of one contender's block"),
        ("repeats", {"type": at_least(1)}, "rounds of blocks, median reported"),
        (
            "stats_games",
            {"type": at_least(1)},
            "games for the legal-action and window-overflow statistics",
        ),
    )
    for name, kind, what in sizes:
        p.add_argument(
            "--" + name.replace("_", "-"),
            default=None,
            help=f"{what} (default: {_FULL[name]}; --quick: {_QUICK[name]})",
            **kind,
        )
    p.add_argument("--no-stats", action="store_true", help="skip those statistics")
    p.add_argument("--no-hanabi", action="store_true", help="leave OpenSpiel Hanabi out")
    p.add_argument(
        "--quick",
        action="store_true",
        help="a tiny run (3 and 2 players, 2 rounds of 0.02 s blocks, 2 statistics games, each "
        "unless given): checks that the bench works, its figures mean little",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="also print where a raw_env decision's CPU time goes (microseconds per decision)",
    )
    p.add_argument(
        "--vector",
        type=at_least(1),
        nargs="*",
        default=[],
        metavar="B",
        help="also rows of saboteur_env.vector.VectorGame with B games (e.g. --vector 64 1024): "
        "its default backend, and the engine backend beside it where that is the array backend",
    )
    p.add_argument("--seed", type=at_least(0), default=0)
    args = p.parse_args(argv)
    for name, value in (_QUICK if args.quick else _FULL).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if not math.isfinite(args.block) or args.block < 0:
        p.error(f"argument --block: must be a finite number >= 0, got {args.block}")
    for n in args.players:
        check_config(p, num_players=n)
    for n in args.expansion_players:
        check_config(p, {"num_players": "--expansion-players"}, num_players=n, expansion=True)
    rows, notes = contenders(
        args.players,
        args.expansion_players,
        args.seed,
        not args.no_hanabi,
        args.vector,
        quick=args.quick,
    )
    measure(rows, args.repeats, args.block, args.games, args.seed)
    result = table(rows)
    print(
        f"random legal play, {args.repeats} interleaved rounds of {args.block:g} CPU-s blocks, "
        "medians; ratio = decisions per CPU-second / connect_four_v3 env()'s; wall ratio: the "
        "same per wall-second; / floor: per CPU-second / the wrapper floor's"
    )
    print(
        f"{'contender':<32} {'dec/CPU-s':>10} {'dec/wall-s':>11} {'ratio':>6} {'wall ratio':>10} "
        f"{'/ floor':>7}"
    )
    for r in result:
        print(
            f"{r['label']:<32} {r['cpu']:>10,.0f} {r['wall']:>11,.0f} {r['ratio']:>6.2f} "
            f"{r['wall_ratio']:>10.2f} {r['floor_ratio']:>7.2f}"
        )
    for note in notes:
        print(note)
    if args.profile:
        print()
        print(
            f"{'raw_env, us per decision':<28} {'observation':>11} {'mask':>6} {'kernels':>7} "
            f"{'engine':>7} {'AEC + loop':>10} {'total':>6}"
        )
        cells = [(BASE, n) for n in args.players] + [
            (SABOTEUR_2, n) for n in args.expansion_players
        ]
        for rules, n in cells:
            games = 2 if args.quick else 30
            options = {"num_players": n, "expansion": rules.expansion}
            backends = [resolve_backend("auto", GameConfig(**options))]
            if backends[0] != "engine":
                backends.append("engine")
            for backend in backends:
                r = profile({**options, "backend": backend}, games, args.seed)
                label = f"{LABELS[rules.name]} {n}p [{backend}]"
                print(
                    f"{label:<28} {r['observation']:>11.1f} {r['mask']:>6.1f} "
                    f"{r['kernels']:>7.1f} {r['engine']:>7.1f} {r['AEC + loop']:>10.1f} "
                    f"{r['total']:>6.1f}"
                )
    if not args.no_stats:
        print()
        print(f"{'game':>9} {'players':>7} {'legal/dec':>10} {'overflow':>9}")
        cells = [(BASE, n) for n in args.players] + [
            (SABOTEUR_2, n) for n in args.expansion_players
        ]
        for rules, n in cells:
            legal, overflow = _stats(n, args.stats_games, args.seed, rules)
            print(f"{LABELS[rules.name]:>9} {n:>7} {legal:>10.1f} {overflow:>9.4%}")
    return result


if __name__ == "__main__":
    main()
