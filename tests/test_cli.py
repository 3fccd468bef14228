"""The ``saboteur`` command line (DESIGN 6): ``saboteur play --players 5 --seed 1 --render ansi``
runs a whole game (RULES 5.5: three rounds), prints each round's result and maze and a final gold
table consistent with the round results, and is reproducible from the seed."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from saboteur_experiments.cli import main

ROOT = Path(__file__).resolve().parent.parent
ARGV = ["play", "--players", "5", "--seed", "1", "--render", "ansi"]


def run(capsys, argv) -> str:
    main(list(argv))
    return capsys.readouterr().out


def test_play_prints_three_rounds_and_a_consistent_gold_table(capsys):
    out = run(capsys, ARGV)
    rounds = re.findall(
        r"^Round (\d): the (gold-diggers|saboteurs) win after (\d+) turns", out, re.M
    )
    assert [r[0] for r in rounds] == ["1", "2", "3"]
    assert all(1 <= int(r[2]) <= 67 for r in rounds)
    received = [ast.literal_eval(x) for x in re.findall(r"^  gold received: (\[.*\])$", out, re.M)]
    roles = re.findall(r"^  roles: (.*)$", out, re.M)
    assert len(received) == 3 and len(roles) == 3
    assert all(len(r) == 5 for r in received)
    # each round's gold went to the winning side only (RULES 5.2, 5.3)
    for (_, side, _), rec, role_line in zip(rounds, received, roles):
        winners = {
            int(s)
            for s, r in re.findall(r"seat (\d): ([a-z-]+)", role_line)
            if (r == "gold-digger") == (side == "gold-diggers")
        }
        assert all(g == 0 for s, g in enumerate(rec) if s not in winners)
    # the three mazes (ansi render) come before their round results
    assert out.count("S") >= 3 and out.count("round 1/3") >= 1
    assert out.index("round 1/3") < out.index("Round 1:")
    # the final gold table: one row per seat, gold = sum of the rounds, winners marked
    table = out[out.index("Final gold:") :]
    rows = re.findall(r"^\s+(\d)\s+(\S+)\s+(\d+)(\s+<- winner)?$", table, re.M)
    assert [int(r[0]) for r in rows] == [0, 1, 2, 3, 4]
    gold = [int(r[2]) for r in rows]
    assert gold == [sum(rec[s] for rec in received) for s in range(5)]
    assert [int(r[0]) for r in rows if r[3]] == [s for s in range(5) if gold[s] == max(gold)]
    assert all(r[1] == "random" for r in rows)
    decisions = int(re.search(r"^(\d+) decisions$", out, re.M).group(1))
    assert decisions == sum(int(r[2]) for r in rounds)


def test_same_seed_same_text_other_seed_other_text(capsys):
    first = run(capsys, ARGV)
    second = run(capsys, ARGV)
    assert first == second
    other = run(capsys, [*ARGV[:4], "2", *ARGV[5:]])
    assert other != first


def test_play_without_render_prints_no_maze(capsys):
    out = run(capsys, ["play", "--players", "3", "--seed", "4", "--rounds", "1"])
    assert len(re.findall(r"^Round \d:", out, re.M)) == 1
    assert "[?]" not in out and "Final gold:" in out


def test_unknown_command_and_help(capsys):
    with pytest.raises(SystemExit) as err:
        main(["nonsense"])
    assert err.value.code == 2
    assert "usage: saboteur" in capsys.readouterr().err  # an error: on stderr, like argparse
    with pytest.raises(SystemExit) as err:
        main(["--help"])
    assert err.value.code == 0


def test_bad_player_count_is_a_clear_error(capsys):
    """A bad option is reported as a usage error (exit 2) naming the option, no traceback."""
    with pytest.raises(SystemExit) as exc:
        main(["play", "--players", "2"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "num_players=2" in err and "3 to 10 players" in err


def _usage_error(capsys, argv) -> str:
    """Run ``argv``; it must stop with a usage error (exit 2) before playing anything."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2, argv
    cap = capsys.readouterr()
    assert cap.out == "", f"{argv} printed before failing: {cap.out[:200]!r}"
    assert "Traceback" not in cap.err and "usage:" in cap.err
    return cap.err


def test_bad_play_options_are_usage_errors(capsys, tmp_path):
    err = _usage_error(capsys, ["play", "--seed", "-1"])
    assert "--seed" in err and "-1" in err
    err = _usage_error(capsys, ["play", "--agents", "foo"])
    assert "--agents" in err and "'foo'" in err
    err = _usage_error(capsys, ["play", "--agents", "random,foo", "--human", "0"])
    assert "--agents" in err and "'foo'" in err
    for seat in ("7", "-1"):
        err = _usage_error(capsys, ["play", "--human", seat, "--players", "4"])
        assert f"--human {seat}" in err and "0..3" in err
    err = _usage_error(capsys, ["play", "--rounds", "0"])
    assert "--rounds" in err
    missing = tmp_path / "no_such_folder" / "x.jsonl"
    for extra in ([], ["--human", "0"]):
        err = _usage_error(capsys, ["play", "--record", str(missing), *extra])
        assert "--record" in err and "does not exist" in err
    assert not missing.parent.exists()
    err = _usage_error(capsys, ["play", "--record", str(tmp_path)])
    assert "--record" in err and "folder" in err
    err = _usage_error(capsys, ["play", "--human", "0", "--expansion"])
    assert "--human" in err and "saboteur serve --expansion" in err  # where Saboteur 2 is played


def test_players_help_gives_the_default_and_each_rulesets_range(capsys):
    """Each command's ``--players`` help, as printed: the parser's default and the ranges of
    the rulesets it plays (terminal play: the base game only)."""
    from saboteur_experiments.human import main as human_main
    from saboteur_experiments.tournament import main as tournament_main
    from saboteur_experiments.web.server import main as serve_main

    both = "players per game (default: 5; the base game 3-10, Saboteur 2 2-12)"
    for command, expected in [
        (lambda a: main(["play", *a]), both),
        (tournament_main, both),
        (serve_main, both),
        (human_main, "players per game (default: 5; the base game 3-10)"),
    ]:
        with pytest.raises(SystemExit):
            command(["--help"])
        assert expected in " ".join(capsys.readouterr().out.split())


def test_bad_bench_options_are_usage_errors(capsys):
    for opt in ("--games", "--repeats", "--stats-games"):
        for value in ("-3", "0"):
            err = _usage_error(capsys, ["bench", opt, value])
            assert f"argument {opt}: must be >= 1, got {value}" in err
    err = _usage_error(capsys, ["bench", "--players", "11"])
    assert "--players 11" in err
    err = _usage_error(capsys, ["bench", "--expansion-players", "13"])
    assert "--expansion-players 13" in err
    # --quick keeps the counts given (it replaced them with 2 and skipped this check)
    err = _usage_error(capsys, ["bench", "--quick", "--expansion-players", "13"])
    assert "--expansion-players 13" in err


def test_bad_tournament_options_are_usage_errors(capsys, tmp_path):
    out = tmp_path / "t"
    base = ["tournament", "--out", str(out), "--no-plots"]
    err = _usage_error(capsys, [*base, "--agents", "random,foo", "--deals", "1"])
    assert "--agents" in err and "'foo'" in err
    err = _usage_error(capsys, [*base, "--deals", "0"])
    assert "argument --deals: must be >= 1, got 0" in err
    err = _usage_error(capsys, [*base, "--players", "11", "--deals", "1"])
    assert "--players 11" in err and "3 to 10 players" in err
    assert "games:" not in err  # no progress bar was drawn
    err = _usage_error(capsys, [*base, "--seed", "-2"])
    assert "--seed" in err
    err = _usage_error(capsys, [*base, "--agents", "random,heuristic,random"])
    assert "--agents: 'random' listed twice; list each agent once" in err
    err = _usage_error(capsys, [*base, "--records", "--role-override", "all-digger"])
    assert "--records with --role-override" in err and "would not replay" in err
    assert not out.exists()  # nothing written


def test_unknown_command_is_named(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bogus"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown command 'bogus'" in err
    assert err.index("unknown command 'bogus'") < err.index("usage: saboteur")


@pytest.mark.parametrize("command", ["play", "bench", "replay", "tournament", "bluff"])
def test_help_texts_name_no_issue_numbers(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert f"saboteur {command}" in text
    assert not re.search(r"issue\s*#?\d", text, re.I), text


def test_version_is_single_sourced(capsys):
    """``saboteur --version`` prints the package version, which the installed metadata reads
    from ``saboteur_env.__version__``."""
    import importlib.metadata

    import saboteur_env

    main(["--version"])
    out = capsys.readouterr().out.strip()
    assert out == f"saboteur-env {saboteur_env.__version__}"
    assert importlib.metadata.version("saboteur-env") == saboteur_env.__version__
    assert saboteur_env.raw_env.metadata["render_fps"] > 0


# --- missing extras, `saboteur spaces` options, empty paths, broken pipes --------------------
@pytest.mark.parametrize(
    "argv, module, extra",
    [
        # ["train", "--help"] shows the options without torch: test_train_help_works_without_torch
        (["train"], "torch", "train"),
        (["tournament", "--deals", "1"], "tqdm", "tournament"),
        (["tournament"], "openskill", "tournament"),
        (["tournament"], "matplotlib", "tournament"),
    ],
)
def test_a_missing_extra_is_named(capsys, monkeypatch, argv, module, extra):
    """Without the optional dependencies the command names the extra to install, instead of a
    ModuleNotFoundError traceback (``sys.modules[name] = None`` makes the import fail)."""
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    torch_first = "pip install torch==2.13.0 && " if extra == "train" else ""
    assert f"needs the '{extra}' extra: {torch_first}pip install 'saboteur-env[{extra}]'" in cap.err
    assert f"pip install -e '.[{extra}]'" in cap.err  # and from a clone
    assert f"saboteur {argv[0]}" in cap.err and repr(module) in cap.err


def test_make_agent_ppo_without_torch_names_the_extra(monkeypatch):
    from saboteur_agents import make_agent
    from saboteur_agents.base import MissingExtraError

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingExtraError, match=r"'ppo' agent needs the 'train' extra"):
        make_agent("ppo")
    assert issubclass(MissingExtraError, ImportError)


def test_play_with_ppo_without_torch_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    err = _usage_error(capsys, ["play", "--agents", "ppo"])
    assert "--agents" in err and "'train' extra" in err


def test_spaces_default_output_is_docs_spaces_md(capsys):
    main(["spaces"])
    out = capsys.readouterr().out
    assert out == (ROOT / "docs" / "spaces.md").read_text()


def test_spaces_takes_players_and_expansion(capsys):
    from saboteur_env.encoding.observation import describe_spaces
    from saboteur_env.engine.config import GameConfig

    main(["spaces", "--players", "4"])
    assert capsys.readouterr().out == describe_spaces(GameConfig(num_players=4)) + "\n"
    main(["spaces", "--expansion", "--players", "12"])
    out = capsys.readouterr().out
    assert out == describe_spaces(GameConfig(num_players=12, expansion=True)) + "\n"
    # the configuration line names the game, and calls only the default the default
    assert out.splitlines()[2] == (
        "Configuration: Saboteur 2, 12 players, board window (-9, 17, -11, 11) "
        "(x_min, x_max, y_min, y_max)."
    )
    with pytest.raises(SystemExit) as exc:
        main(["spaces", "--help"])
    assert exc.value.code == 0
    assert "--players" in capsys.readouterr().out


def test_bad_spaces_options_are_usage_errors(capsys):
    err = _usage_error(capsys, ["spaces", "--bogus"])
    assert "unrecognized arguments: --bogus" in err
    err = _usage_error(capsys, ["spaces", "--players", "2"])
    assert "--players 2" in err
    err = _usage_error(capsys, ["spaces", "--players", "x"])
    assert "--players" in err and "'x'" in err
    err = _usage_error(capsys, ["spaces", "--expansion", "--players", "13"])
    assert "--players 13" in err


def test_empty_paths_and_option_free_agents_are_usage_errors(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = _usage_error(capsys, ["play", "--record", ""])
    assert "--record ''" in err and "empty path" in err
    err = _usage_error(capsys, ["tournament", "--out", "", "--no-plots", "--deals", "1"])
    assert "--out ''" in err and "empty path" in err
    err = _usage_error(capsys, ["play", "--agents", "random:x"])
    assert "--agents" in err and "'random'" in err and "takes no option" in err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_make_agent_rejects_options_and_non_strings():
    from saboteur_agents import make_agent

    with pytest.raises(ValueError, match=r"agent 'random' takes no option, got 'random:3'"):
        make_agent("random:3")
    with pytest.raises(ValueError, match="takes no option"):
        make_agent("random:")
    with pytest.raises(TypeError, match="NoneType"):
        make_agent(None)
    with pytest.raises(TypeError, match="int"):
        make_agent(3)
    assert make_agent("heuristic:subtle").name == "heuristic:subtle"
    for spec in ("heuristic:", "ismcts:"):
        with pytest.raises(ValueError, match=rf"agent spec '{spec}' has an empty option"):
            make_agent(spec)


@pytest.mark.parametrize(
    "argv",
    [["spaces"], ["play", "--players", "3", "--rounds", "1"], ["replay", "RECORD", "--no-pause"]],
)
def test_a_closed_pipe_exits_quietly(tmp_path, argv):
    """``saboteur spaces | head``: the reader is gone; no BrokenPipeError traceback."""
    import os
    import subprocess

    if "RECORD" in argv:
        record = tmp_path / "g.jsonl"
        main(["play", "--players", "3", "--rounds", "1", "--record", str(record)])
        argv = [str(record) if a == "RECORD" else a for a in argv]
    r, w = os.pipe()
    os.close(r)  # the reader left before anything was written
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "saboteur_experiments.cli", *argv],
            stdout=w,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    finally:
        os.close(w)
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert proc.returncode == 1


def test_the_notebook_extra_installs_what_the_quickstart_needs():
    """``pip install 'saboteur-env[notebook]'`` is enough to execute the quick-start notebook
    (tests/test_notebooks.py): its runner and kernel and every third-party module it imports."""
    import json

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    names = {re.split(r"[<>=\[ ]", r)[0].lower() for r in extras["notebook"]}
    assert {"nbclient", "nbformat", "ipykernel", "matplotlib", "pillow"} <= names
    assert {"openskill", "tqdm"} <= names  # the notebook runs a small tournament
    test = (ROOT / "tests" / "test_notebooks.py").read_text()
    for module in re.findall(r'importorskip\("([a-z_]+)', test):
        assert module in names, module
    cells = json.loads((ROOT / "notebooks" / "quickstart.ipynb").read_text())["cells"]
    source = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    for module in set(re.findall(r"^\s*(?:import|from) ([a-z_]+)", source, re.M)):
        if module in (
            "os",
            "tempfile",
            "warnings",
            "saboteur_env",
            "saboteur_agents",
            "saboteur_experiments",
        ):
            continue
        known = {"numpy", "pettingzoo"} | names  # numpy/pettingzoo are base dependencies
        assert module in known, module


def test_play_game_names_a_bad_seed_and_a_player_count_that_disagrees():
    """``play_game`` takes one agent per seat and an int deal seed."""
    from saboteur_agents import make_agent
    from saboteur_experiments.play import play_game

    agents = [make_agent("random") for _ in range(3)]
    with pytest.raises(TypeError, match="seed"):
        play_game(agents, seed=None)
    with pytest.raises(ValueError, match="num_players"):
        play_game(agents, seed=0, num_players=5)
    assert len(play_game(agents, seed=0, num_players=3, num_rounds=1)["rounds"]) == 1


_NO_TORCH = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "sb3_contrib", "stable_baselines3"):
            raise ModuleNotFoundError(f"No module named {name!r}")
sys.meta_path.insert(0, Block())
from saboteur_experiments.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize(
    "argv, code, words",
    [
        (["train", "--help"], 0, "usage: saboteur train [-h] [--players"),
        (["train", "--evaluate", "x.pt", "--help"], 0, "usage: saboteur train --evaluate"),
        (["train", "--minutes", "1"], 2, "needs the 'train' extra: pip install torch==2.13.0"),
    ],
)
def test_train_help_works_without_torch(argv, code, words):
    """Without the train extra, ``saboteur train --help`` still shows the options (they live in
    the torch-free ``train_options``); running it names the extra to install."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _NO_TORCH, *argv], capture_output=True, text=True)
    assert run.returncode == code, run.stderr[-500:]
    assert words in (run.stdout if code == 0 else run.stderr)
    assert "Traceback" not in run.stderr


def test_evaluate_ppo_names_the_shipped_checkpoint(monkeypatch):
    pytest.importorskip("torch")
    import saboteur_experiments.train as train
    from saboteur_agents.ppo import DEFAULT_CHECKPOINT

    seen = {}

    def fake(path, *args, **kwargs):
        seen["path"] = path
        return {"roles": {}}

    monkeypatch.setattr(train, "evaluate_checkpoint", fake)
    monkeypatch.setattr(train, "_print_evaluation", lambda res: None)
    train.main(["--evaluate", "ppo", "--deals", "1"])
    assert seen["path"] == str(DEFAULT_CHECKPOINT)


@pytest.mark.parametrize(
    "module, argv, words",
    [
        ("bench_search", ["--players", "0"], "argument --players: must be >= 1, got 0"),
        ("bench_search", ["--spec", "random:x"], "--spec: agent 'random' takes no option"),
        ("bench_search", ["--players", "2"], "--players 2:"),
        ("reference", ["--workers", "-1"], "argument --workers: must be >= 1, got -1"),
        ("reference", ["--probe-deals", "0"], "argument --probe-deals: must be >= 1, got 0"),
    ],
)
def test_module_scripts_give_usage_errors(module, argv, words, capsys):
    import importlib

    main_ = importlib.import_module(f"saboteur_experiments.{module}").main
    with pytest.raises(SystemExit) as exc:
        main_(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_play_round_text_shows_the_pay_beside_a_net_after_thefts():
    """RULES 6.9: a theft takes 1 gold from its victim after the pay, so a robbed seat paid
    nothing received -1 this round; ``saboteur play`` prints the pay beside the net."""
    from types import SimpleNamespace

    from saboteur_env.engine.events import RoundResult
    from saboteur_env.engine.ruleset import SABOTEUR_2
    from saboteur_experiments.play import _round_text

    res = RoundResult(
        round=0,
        gold_found=False,
        winning_side="saboteurs",
        winners=[2],
        connector=None,
        roles=[0, 1, 5, 0, 1],
        received=[-1, 0, 4, 0, 0],
        paid=[0, 0, 3, 0, 0],
        last_card_seat=4,
        turns=30,
        thefts=[(2, 0)],
        fields=("thefts",),
    )
    text = _round_text(res, SimpleNamespace(rules=SABOTEUR_2))
    assert "gold received: [-1, 0, 4, 0, 0] (paid [0, 0, 3, 0, 0], then the thefts)" in text
    assert "thefts (thief, victim): [(2, 0)]" in text
    unrobbed = _round_text(
        RoundResult(**{**res.__dict__, "received": [0, 0, 3, 0, 0], "thefts": []}),
        SimpleNamespace(rules=SABOTEUR_2),
    )
    assert "gold received: [0, 0, 3, 0, 0]\n" in unrobbed and "paid" not in unrobbed
