"""The ``saboteur`` command line: ``play``, ``bench``, ``spaces``, ``replay``, ``train``,
``tournament``, ``evaluate``, ``report``, ``bluff`` and ``serve``.

Bad options are usage errors (a message naming the option on stderr, exit code 2), found before
anything is played (:mod:`saboteur_experiments.cli_args`)."""

from __future__ import annotations

import argparse
import sys


def _play(argv) -> None:
    from saboteur_agents import make_agent
    from saboteur_experiments.cli_args import (
        add_game_size,
        at_least,
        check_agents,
        check_agents_fit,
        check_config,
        check_output_file,
    )
    from saboteur_experiments.play import play_game

    p = argparse.ArgumentParser(
        prog="saboteur play", description="Play one full game with agents and print results."
    )
    add_game_size(p)
    p.add_argument(
        "--seed",
        type=at_least(0),
        default=None,
        help="deal seed (default: 1; with --human a fresh one, printed after the game, so a "
        "second game is not a deal you have seen)",
    )
    p.add_argument("--expansion", action="store_true", help="play Saboteur 2 (RULES 6)")
    p.add_argument(
        "--agents",
        default="random",
        help="comma-separated agent specs, cycled over the seats (default: random)",
    )
    p.add_argument(
        "--render",
        choices=["ansi", "none"],
        default="none",
        help="ansi: draw each round's final maze",
    )
    p.add_argument(
        "--human",
        type=int,
        default=None,
        metavar="SEAT",
        help="play this seat yourself in the terminal; the agents take the others",
    )
    p.add_argument(
        "--record",
        default=None,
        metavar="PATH",
        help="write the game record (JSON Lines) for 'saboteur replay'",
    )
    args = p.parse_args(argv)
    # every check before anything is played (a usage error, exit 2, names the option)
    check_config(p, num_players=args.players, num_rounds=args.rounds, expansion=args.expansion)
    specs = [s.strip() for s in args.agents.split(",")]
    check_agents(p, specs)
    check_agents_fit(p, specs, args.players, args.expansion)  # e.g. a checkpoint of the other game
    if args.human is not None and not 0 <= args.human < args.players:
        p.error(f"--human {args.human}: the seat must be 0..{args.players - 1}")
    if args.human is not None:
        from saboteur_env.engine.config import GameConfig
        from saboteur_experiments.human import supports

        if not supports(GameConfig(expansion=args.expansion).ruleset):
            p.error(
                "--human cannot be combined with --expansion: terminal play is base game "
                "only; play Saboteur 2 in the browser: saboteur serve --expansion"
            )
    if args.record is not None:
        check_output_file(p, args.record, "--record")
    if args.human is not None:
        from saboteur_experiments.human import play_human

        play_human(
            args.human,
            specs,
            players=args.players,
            seed=args.seed,
            rounds=args.rounds,
            record=args.record,
        )
        return
    agents = [make_agent(specs[i % len(specs)]) for i in range(args.players)]
    res = play_game(
        agents,
        1 if args.seed is None else args.seed,
        render=None if args.render == "none" else args.render,
        out=sys.stdout,
        num_rounds=args.rounds,
        record=args.record,
        expansion=args.expansion,
    )
    print("\nFinal gold:")
    print(f"{'seat':>4}  {'agent':<20}{'gold':>5}")
    for s, g in enumerate(res["gold"]):
        mark = "  <- winner" if s in res["winners"] else ""
        print(f"{s:>4}  {agents[s].name:<20}{g:>5}{mark}")
    print(f"{res['decisions']} decisions")


def _spaces(argv) -> None:
    """``saboteur spaces``: docs/spaces.md for a configuration (default: the base game)."""
    from saboteur_env.encoding.observation import describe_spaces
    from saboteur_env.engine.config import GameConfig
    from saboteur_experiments.cli_args import check_config

    p = argparse.ArgumentParser(
        prog="saboteur spaces",
        description="Print the action and observation spaces (docs/spaces.md is this output "
        "with the defaults).",
    )
    p.add_argument("--players", type=int, default=None, help="players (default: the default game)")
    p.add_argument("--expansion", action="store_true", help="Saboteur 2 (RULES 6)")
    args = p.parse_args(argv)
    config = {"expansion": True} if args.expansion else {}
    if args.players is not None:
        config["num_players"] = args.players
    check_config(p, **config)
    print(describe_spaces(GameConfig(**config) if config else None))


def _train_backend(argv: list[str]) -> str | None:
    """The value of ``saboteur train --backend B`` (``None`` when not given); an unknown one is
    a usage error (exit 2)."""
    for i, x in enumerate(argv):
        value = None
        if x == "--backend":
            value = argv[i + 1] if i + 1 < len(argv) else ""
        elif x.startswith("--backend="):
            value = x.split("=", 1)[1]
        if value is not None:
            if value not in ("torch", "rllib"):
                print(
                    "usage: saboteur train [--backend {torch,rllib}] [options]\n"
                    f"saboteur train: error: argument --backend: invalid choice: {value!r} "
                    "(choose from 'torch', 'rllib'; rllib needs the 'ray' extra: "
                    "pip install 'saboteur-env[ray]')",
                    file=sys.stderr,
                )
                sys.exit(2)
            return value
    return None


def _without_backend(argv: list[str]) -> list[str]:
    """``argv`` without ``--backend torch`` / ``--backend=torch``."""
    out, skip = [], False
    for x in argv:
        if skip:
            skip = False
            continue
        if x == "--backend":
            skip = True
            continue
        if x.startswith("--backend="):
            continue
        out.append(x)
    return out


def _quiet_broken_pipe() -> None:
    """The reader of stdout closed the pipe (``saboteur spaces | head``): exit quietly, without
    the interpreter's second BrokenPipeError when it flushes stdout at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a real file (tests)
        pass
    sys.exit(1)


def main(argv=None) -> None:
    from saboteur_agents.base import AgentError, MissingExtraError, require_extra

    argv = sys.argv[1:] if argv is None else argv
    commands = {"play": _play}

    def bench(a):
        from saboteur_experiments.bench import main as bench_main

        bench_main(a)

    commands["bench"] = bench

    def replay(a):
        from saboteur_experiments.replay import main as replay_main

        replay_main(a)

    commands["replay"] = replay

    commands["spaces"] = _spaces

    def bluff(a):
        from saboteur_experiments.bluff.cli import main as bluff_main

        bluff_main(a)

    commands["bluff"] = bluff

    def train(a):
        backend = _train_backend(a)
        if backend == "rllib":  # multi-agent self-play on RLlib (saboteur_experiments.train_rllib)
            from saboteur_experiments.train_rllib import main as rllib_main

            rllib_main(a, prog="saboteur train --backend rllib")
            return
        if backend is not None:  # --backend torch, the default, is the PPO trainer below
            a = _without_backend(a)
        if "-h" in a or "--help" in a:  # the options show before torch is installed
            from saboteur_experiments.train_options import print_help

            print_help(a)
        require_extra("train", ["torch"], "saboteur train")
        from saboteur_experiments.train import main as train_main

        train_main(a)

    commands["train"] = train

    def tournament(a):
        require_extra("tournament", ["tqdm", "openskill", "matplotlib"], "saboteur tournament")
        from saboteur_experiments.tournament import main as tournament_main

        tournament_main(a)

    commands["tournament"] = tournament

    def evaluate(a):
        require_extra("tournament", ["tqdm"], "saboteur evaluate")
        from saboteur_experiments.evaluation.cli import main as evaluate_main

        evaluate_main(a)

    commands["evaluate"] = evaluate

    def report(a):
        require_extra("train", ["torch"], "saboteur report")
        from saboteur_experiments.learning_report import main as report_main

        report_main(a)

    commands["report"] = report

    def serve(a):
        from saboteur_experiments.web.server import main as serve_main

        serve_main(a)

    commands["serve"] = serve
    if argv and argv[0] in ("-V", "--version"):
        import saboteur_env

        print(f"saboteur-env {saboteur_env.__version__}")
        return
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in commands:
        help_ = bool(argv) and argv[0] in ("-h", "--help")
        if argv and not help_:
            print(f"saboteur: error: unknown command {argv[0]!r}", file=sys.stderr)
        print(
            "usage: saboteur {" + ",".join(commands) + "} [options]\n"
            "  play   play one game with agents (--players 5 --seed 1 --render ansi)\n"
            "  bench  random-play speed benchmark\n"
            "  spaces print the action and observation spaces (docs/spaces.md)\n"
            "  replay step through a recorded game (RECORD --seat K | --spectator,"
            " --out game.gif|folder/)\n"
            "  train  PPO self-play training (--minutes 60 --seed 1 --out runs/ppo;"
            " --evaluate CHECKPOINT; --backend rllib: on RLlib)\n"
            "  tournament  duplicate-deal tournament (--agents random,heuristic --players 5)\n"
            "  evaluate  role-probe head-to-head (CANDIDATE --against random,heuristic;"
            " --external SPECS)\n"
            "  report  the learning agent's report from training runs (RUN [RUN ...]:"
            " per seed, seed-averaged, cross-play, external, curves)\n"
            "  bluff  bluff-detection benchmark (--records DIR: score recorded games too)\n"
            "  serve  play in the browser against agents (--human 0 --agents heuristic)\n"
            "  --version  print the version",
            file=sys.stdout if help_ else sys.stderr,
        )
        sys.exit(0 if help_ else 2)
    from saboteur_env.engine.config import ConfigError

    try:
        commands[argv[0]](argv[1:])
        sys.stdout.flush()  # inside the try: a closed pipe is reported here, not at exit
    except MissingExtraError as err:  # an optional dependency group is not installed
        print(f"saboteur {argv[0]}: error: {err}", file=sys.stderr)
        sys.exit(2)
    except AgentError as err:  # an agent failed in a game: say which, where, and why
        print(f"saboteur {argv[0]}: error: {err}", file=sys.stderr)
        sys.exit(1)
    except BrokenPipeError:  # piped into `head`: the reader left, stop quietly
        _quiet_broken_pipe()
    except ValueError as err:  # a bad option is the user's input, not a crash
        # a PPO checkpoint that does not fit the game (e.g. ppo with --expansion); its class
        # is looked up only if torch was loaded, so the other commands never import it
        network = sys.modules.get("saboteur_agents.network")
        mismatch = network is not None and isinstance(err, network.CheckpointMismatchError)
        if not (isinstance(err, ConfigError) or mismatch):
            raise
        print(f"saboteur {argv[0]}: error: {err}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
