"""Argument checks shared by the ``saboteur`` subcommands.

Every check reports a bad option through ``parser.error`` (a usage line and a message naming the
option on stderr, exit code 2) before anything is played or written, instead of a traceback
later.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable


class DefaultsHelp(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` with each option's default, except where there is none to show (``None``,
    a ``store_true`` flag's ``False``)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False or action.default == "":
            return action.help or ""
        return super()._get_help_string(action) or ""


def at_least(lo: int):
    """An argparse ``type``: an int ``>= lo`` (``argument --games: must be >= 1, got 0``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {value}")
        return value

    parse.__name__ = f"int >= {lo}"
    return parse


def check_unique(
    p: argparse.ArgumentParser, specs: list[str], option: str = "--agents", what: str = "agent"
) -> None:
    """A usage error for an empty entry or one listed twice in ``option`` (each listed agent,
    population or detector is one row of the results; a tournament gives each agent an equal
    share of the seats)."""
    if "" in specs:
        p.error(f"{option}: an empty {what} (two commas, or one at an end)")
    repeated = sorted({s for s in specs if specs.count(s) > 1})
    if repeated:
        p.error(f"{option}: {', '.join(map(repr, repeated))} listed twice; list each {what} once")


def check_agents(
    p: argparse.ArgumentParser, specs: Iterable[str], option: str = "--agents"
) -> None:
    """Build each agent spec once; an unknown or unusable one is a usage error."""
    from saboteur_agents import make_agent

    for spec in dict.fromkeys(specs):
        if not spec:
            p.error(f"{option}: empty agent spec")
        try:
            make_agent(spec)
        except (ValueError, OSError, ImportError) as err:  # ImportError: MissingExtraError
            p.error(f"{option}: {err}")


OPTION_OF = {"num_players": "--players", "num_rounds": "--rounds"}


def player_ranges(rulesets=None) -> str:
    """Each ruleset's player range told in words, e.g. ``"the base game 3-10, Saboteur 2
    2-12"``, from the rulesets themselves (``Ruleset.title``, ``Ruleset.player_range``, RULES
    2.2 and 6.1); ``rulesets``: the ones a command plays (default: every one of
    ``RULESETS``)."""
    from saboteur_env.engine.ruleset import RULESETS

    chosen = RULESETS.values() if rulesets is None else rulesets
    return ", ".join(f"{r.title} {r.player_range[0]}-{r.player_range[1]}" for r in chosen)


def players_help(rulesets=None) -> str:
    """The help of a ``--players`` option: its default (argparse's ``%(default)s``, so it is
    the parser's own) and each ruleset's range (:func:`player_ranges`)."""
    return f"players per game (default: %(default)s; {player_ranges(rulesets)})"


def add_game_size(p: argparse.ArgumentParser, rulesets=None) -> None:
    """Add ``--players`` and ``--rounds`` to ``p``, their defaults ``GameConfig``'s and their
    help :func:`players_help` (``rulesets``: those the command plays) and the rounds'
    default: the one definition of both options of the commands that play games."""
    from saboteur_env.engine.config import GameConfig

    p.add_argument(
        "--players", type=int, default=GameConfig.num_players, help=players_help(rulesets)
    )
    p.add_argument(
        "--rounds",
        type=at_least(1),
        default=GameConfig.num_rounds,
        help="rounds per game (default: %(default)s)",
    )


def check_config(p: argparse.ArgumentParser, options: dict | None = None, **config) -> None:
    """Validate game options (:class:`~saboteur_env.engine.config.GameConfig`), e.g. the player
    count, as usage errors naming the command-line option (``options``: config field ->
    option name, default :data:`OPTION_OF`)."""
    from saboteur_env.engine.config import ConfigError, GameConfig

    try:
        GameConfig(**config)
    except ConfigError as err:
        names = {**OPTION_OF, **(options or {})}
        # the field the message is about ("GameConfig.num_players=13: ... (expansion=True)")
        field = next((f for f in config if f"GameConfig.{f}=" in str(err)), None) or next(
            (f for f in config if f"{f}=" in str(err)), None
        )
        prefix = f"{names[field]} {config[field]}: " if field in names else ""
        p.error(prefix + str(err))


def check_output_file(p: argparse.ArgumentParser, path: str, option: str) -> None:
    """``path`` must be writable: not empty, its folder exists and is writable, and it is not a
    folder."""
    if not path.strip():
        p.error(f"{option} {path!r}: an empty path")
    if os.path.isdir(path):
        p.error(f"{option} {path}: is a folder, not a file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        p.error(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        p.error(f"{option} {path}: not writable")


def check_output_dir(p: argparse.ArgumentParser, path: str, option: str) -> None:
    """``path`` must be a folder that exists or can be created under a writable folder (not an
    empty path)."""
    if not path.strip():
        p.error(f"{option} {path!r}: an empty path")
    if os.path.exists(path) and not os.path.isdir(path):
        p.error(f"{option} {path}: exists and is not a folder")
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe) or not os.access(probe, os.W_OK):
        p.error(f"{option} {path}: cannot write under {probe}")


def check_agents_fit(
    p: argparse.ArgumentParser,
    specs: Iterable[str],
    num_players: int,
    expansion: bool = False,
    option: str = "--agents",
) -> None:
    """Build each agent spec and ``reset`` it for the game: a checkpoint whose spaces do not
    fit ``num_players`` / ``expansion`` (or a file that is not a checkpoint) is a usage error
    naming the option, before anything is played."""
    from saboteur_agents import make_agent
    from saboteur_env.engine.config import GameConfig

    config = GameConfig(num_players=num_players, expansion=expansion)
    for spec in dict.fromkeys(specs):
        try:
            make_agent(spec).reset(0, config, seed=0)
        except (ValueError, OSError, RuntimeError, ImportError) as err:
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            if "does not match the environment's spaces" in first:  # a fingerprint dump
                first = "the checkpoint's observation and action spaces are not this game's"
                other = _checkpoint_game(spec)
                if other is not None and other != config.ruleset.title:
                    first += f" (it was trained for {other})"
            elif len(first) > 160:  # e.g. torch's own load message: keep our sentence
                first = first.split(" (")[0][:160]
            p.error(
                f"{option}: {spec!r} cannot play {config.ruleset.title} at {num_players} "
                f"players: {first}"
            )


def _checkpoint_game(spec: str) -> str | None:
    """The game a ``ppo:PATH`` spec's checkpoint was trained for (its title), if readable."""
    name, _, option = spec.partition(":")
    if name != "ppo":
        return None
    from saboteur_agents.ppo import parse_option

    path = parse_option(option)[0]
    if not path or path.startswith("avg="):
        return None
    try:
        from saboteur_agents.network import read_checkpoint
        from saboteur_env.engine.ruleset import ruleset_of

        _, meta = read_checkpoint(path)
        return ruleset_of(bool(meta.get("game_config", {}).get("expansion", False))).title
    except Exception:  # unreadable: the caller's message says enough
        return None


def add_deal_range(p: argparse.ArgumentParser) -> None:
    """Add ``--split`` (default ``test``) and ``--first-deal`` (default 0): where a command's
    deals come from (:mod:`saboteur_experiments.evaluation.splits`)."""
    from saboteur_experiments.evaluation.splits import SPLITS

    p.add_argument(
        "--split",
        choices=tuple(SPLITS),
        default="test",
        help="deal split the deals come from (saboteur_experiments.evaluation.splits; "
        "default: %(default)s)",
    )
    p.add_argument("--first-deal", type=at_least(0), default=0, help="first deal of the split")


def check_deal_range(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error when ``--first-deal`` + ``--deals`` run past the end of ``--split``."""
    from saboteur_experiments.evaluation.splits import range_problem

    problem = range_problem(args.split, args.first_deal, args.deals)
    if problem:
        p.error(problem)


def add_backend(p: argparse.ArgumentParser) -> None:
    """Add ``--backend {local,ray}`` (default ``local``) and ``--address ADDR`` (with
    ``--backend ray``: the Ray cluster to use; none: a local Ray is started), see
    :mod:`saboteur_experiments.backends` and docs/ray.md."""
    p.add_argument(
        "--backend",
        default="local",
        metavar="{local,ray}",
        help="where the games are played: local processes, or Ray tasks (the 'ray' extra; "
        "docs/ray.md); the results are the same (default: %(default)s)",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: the Ray cluster (e.g. 10.0.0.1:6379, or 'auto' on a node "
        "that joined one); none: a local Ray is started",
    )


def check_backend_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error (exit 2) for an unknown ``--backend``, ``--address`` without
    ``--backend ray``, or ``--backend ray`` without the ``ray`` extra."""
    from saboteur_experiments.backends import BackendError, check_backend

    try:
        check_backend(args.backend, args.address)
    except BackendError as err:
        p.error(str(err))
