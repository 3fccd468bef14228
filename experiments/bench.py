"""Speed benchmark of random play: decisions/s and games/s through ``env()`` and
``raw_env``, the mean number of legal actions per decision, and the share of decisions where a
legal placement would lie outside the board window.

Run ``saboteur bench`` (or ``python -m saboteur_experiments.bench``).  Figures are printed; nothing
here is a test.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import saboteur_env
from saboteur_env.engine.ruleset import BASE, SABOTEUR_2, Ruleset
from saboteur_experiments.cli_args import at_least, check_config

#: the ``game`` column of each ruleset
LABELS = {BASE.name: "base", SABOTEUR_2.name: "sab2"}


def _run(make, n_players: int, games: int, seed: int, rules: Ruleset = BASE) -> tuple[int, float]:
    env = make(num_players=n_players, expansion=rules.expansion)
    rng = np.random.default_rng(seed)
    decisions = 0
    t0 = time.perf_counter()
    for g in range(games):
        env.reset(seed=seed + g)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"].view(bool))  # bool: 8x faster
            env.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
    return decisions, time.perf_counter() - t0


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
            legal = np.flatnonzero(m)
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


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="saboteur bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, nargs="*", default=[3, 5, 10])
    p.add_argument(
        "--expansion-players",
        type=int,
        nargs="*",
        default=[2, 5, 12],
        help="player counts of the Saboteur 2 rows (none: skip them)",
    )
    p.add_argument("--games", type=at_least(1), default=20, help="games per run")
    p.add_argument("--repeats", type=at_least(1), default=3, help="runs per cell (median reported)")
    p.add_argument(
        "--stats-games",
        type=at_least(1),
        default=200,
        help="games for the legal-action and window-overflow statistics",
    )
    p.add_argument("--seed", type=at_least(0), default=0)
    args = p.parse_args(argv)
    for n in args.players:
        check_config(p, num_players=n)
    for n in args.expansion_players:
        check_config(p, {"num_players": "--expansion-players"}, num_players=n, expansion=True)
    print(
        f"{'game':>9} {'players':>7} {'api':>8} {'decisions/s':>12} {'games/s':>8} "
        f"{'legal/dec':>10} {'overflow':>9}"
    )
    rows = [(BASE, n) for n in args.players] + [(SABOTEUR_2, n) for n in args.expansion_players]
    for rules, n in rows:
        legal, overflow = _stats(n, args.stats_games, args.seed, rules)
        for name, make in (("raw_env", saboteur_env.raw_env), ("env", saboteur_env.env)):
            dps, gps = [], []
            for r in range(args.repeats):
                d, t = _run(make, n, args.games, args.seed + 1000 * r, rules)
                dps.append(d / t)
                gps.append(args.games / t)
            print(
                f"{LABELS[rules.name]:>9} {n:>7} {name:>8} {statistics.median(dps):>12,.0f} "
                f"{statistics.median(gps):>8.1f} {legal:>10.1f} {overflow:>9.4%}"
            )


if __name__ == "__main__":
    main()
