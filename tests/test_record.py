"""Game records (saboteur_env.record) and `saboteur replay`."""

from __future__ import annotations

import io
import json
import os
import re

import numpy as np
import pytest

import saboteur_env
from saboteur_agents import make_agent
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.record import (
    FORMAT_VERSION,
    RecordError,
    actions_from_events,
    read_record,
    replay,
    replay_game,
    write_record,
)
from saboteur_experiments.play import play_game


def _play_env(n=5, seed=4, rounds=2, **cfg):
    """Play with the env, keeping every seat's observation and the event log after each step."""
    env = saboteur_env.raw_env(num_players=n, num_rounds=rounds, **cfg)
    env.reset(seed=seed)
    enc = ObservationEncoder(env.config)
    agents = [make_agent("random") for _ in range(n)]
    for s, a in enumerate(agents):
        a.reset(s, env.config, seed=100 + s)
    snaps = [([enc.encode(env.game, s) for s in range(n)], list(env.game.events))]
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        s = env.agent_name_mapping[name]
        env.step(agents[s].act(obs["observation"], obs["action_mask"], info))
        snaps.append(([enc.encode(env.game, k) for k in range(n)], list(env.game.events)))
    return env, snaps


def test_replay_reproduces_every_state():
    env, snaps = _play_env()
    buf = io.StringIO()
    write_record(buf, env.game, 4, ["random"] * 5)
    rec = read_record(buf.getvalue())
    assert len(rec.decisions) == len(snaps) - 1 == env.game.decisions
    enc = ObservationEncoder(rec.config)
    steps = list(replay(rec))
    assert len(steps) == len(snaps)
    for step, (obs, events) in zip(steps, snaps):
        for s in range(5):
            assert np.array_equal(enc.encode(step.game, s), obs[s]), (step.index, s)
        assert step.game.events == events
    final = steps[-1].game
    assert final.game_over
    assert final.gold.tolist() == env.game.gold.tolist()
    assert final.round_results == env.game.round_results
    assert [r["round"] for r in rec.rounds] == [0, 1]
    assert rec.end["type"] == "game_end" and rec.end["gold"] == env.game.gold.tolist()


def test_record_format_header_and_lines(tmp_path):
    path = tmp_path / "g.jsonl"
    res = play_game(
        [make_agent("random") for _ in range(4)],
        9,
        record=str(path),
        num_rounds=1,
        self_sabotage=False,
    )
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    h = lines[0]
    assert h["type"] == "header" and h["format"] == "saboteur-record"
    assert h["version"] == FORMAT_VERSION and h["seed"] == 9
    assert h["agents"] == ["random"] * 4 and h["agent_seeds"] == [9000, 9001, 9002, 9003]
    assert h["config"]["num_players"] == 4 and h["config"]["self_sabotage"] is False
    decisions = [x for x in lines if x["type"] == "decision"]
    assert len(decisions) == res["decisions"]
    assert [d["i"] for d in decisions] == list(range(len(decisions)))
    assert all(set(d) >= {"seat", "action", "round", "turn", "text"} for d in decisions)
    assert [x["type"] for x in lines[-2:]] == ["round_end", "game_end"]
    g = replay_game(str(path))
    assert g.gold.tolist() == res["gold"] and not g.config.self_sabotage


def test_actions_from_events_one_per_decision():
    env, _ = _play_env(n=3, seed=1, rounds=1)
    acts = actions_from_events(env.game.events)
    assert len(acts) == env.game.decisions


def test_truncated_game_is_recorded_and_replays():
    # max_cycles counts cycles of decisions: 5 x 4 players = 20 decisions
    env, snaps = _play_env(n=4, seed=2, rounds=3, max_cycles=5)
    buf = io.StringIO()
    write_record(buf, env.game, 2)
    rec = read_record(buf.getvalue())
    assert rec.end == {"type": "truncated", "decisions": 20}
    assert rec.agents == [f"seat_{s}" for s in range(4)]
    assert len(list(replay(rec))) == 21


def _record_text(seed=6):
    buf = io.StringIO()
    play_game([make_agent("random") for _ in range(4)], seed, record=buf, num_rounds=1)
    return buf.getvalue()


def test_bad_records_are_refused():
    text = _record_text()
    lines = text.splitlines()
    with pytest.raises(RecordError, match="header"):
        read_record("\n".join(lines[1:]) + "\n")
    newer = json.loads(lines[0])
    newer["version"] = FORMAT_VERSION + 1
    with pytest.raises(RecordError, match="version"):
        read_record("\n".join([json.dumps(newer)] + lines[1:]))
    with pytest.raises(RecordError, match="not JSON"):
        read_record(lines[0] + "\n{oops\n")
    # a decision by the wrong seat
    d = json.loads(lines[1])
    d["seat"] = (d["seat"] + 1) % 4
    with pytest.raises(RecordError, match="turn"):
        list(replay("\n".join([lines[0], json.dumps(d)] + lines[2:]) + "\n"))
    # a round result that does not match what the engine computes
    end = [i for i, x in enumerate(lines) if '"round_end"' in x][0]
    r = json.loads(lines[end])
    r["received"] = [99] * 4
    lines2 = lines[:end] + [json.dumps(r)] + lines[end + 1 :]
    with pytest.raises(RecordError, match="round_end of round 0"):
        list(replay("\n".join(lines2) + "\n"))


def test_a_cut_off_record_does_not_replay():
    """A record without its game_end / truncated line (a file cut off mid-game) is refused at
    the end of the replay, whatever the cut."""
    lines = _record_text().splitlines()
    cut = [x for x in lines if json.loads(x)["type"] != "game_end"]
    with pytest.raises(RecordError, match="without its game_end or truncated line"):
        list(replay("\n".join(cut) + "\n"))
    half = lines[: len(lines) // 2]
    assert not any('"game_end"' in x for x in half)
    with pytest.raises(RecordError, match="a cut-off file"):
        list(replay("\n".join(half) + "\n"))


def test_edited_decision_numbers_texts_and_counts_do_not_replay():
    lines = _record_text().splitlines()
    text = _edited(lines, "decision", lambda d: d.__setitem__("i", 5))
    with pytest.raises(RecordError, match="decision 'i' is 5; .* this one is 0"):
        read_record(text)
    text = _edited(lines, "decision", lambda d: d.__setitem__("text", "discard B01"))
    with pytest.raises(RecordError, match="the record's text 'discard B01' is not the action's"):
        list(replay(text))
    text = _edited(lines, "game_end", lambda e: e.__setitem__("decisions", 3))
    with pytest.raises(RecordError, match="the game_end line says 3 decisions"):
        list(replay(text))


def test_a_truncated_line_must_match_the_replay():
    env, _ = _play_env(n=4, seed=2, rounds=3, max_cycles=5)
    buf = io.StringIO()
    write_record(buf, env.game, 2)
    lines = buf.getvalue().splitlines()
    text = _edited(lines, "truncated", lambda e: e.__setitem__("decisions", 19))
    with pytest.raises(
        RecordError, match="the truncated line says 19 decisions; the replay played 20"
    ):
        list(replay(text))


def test_unknown_line_types_are_ignored():
    text = _record_text()
    lines = text.splitlines()
    extra = lines[:2] + ['{"type": "comment", "text": "hello"}'] + lines[2:]
    a = replay_game("\n".join(extra) + "\n")
    b = replay_game(text)
    assert a.gold.tolist() == b.gold.tolist()


def test_seedless_game_cannot_be_recorded():
    g = saboteur_env.Game(saboteur_env.GameConfig(num_players=3), None)
    with pytest.raises(RecordError):
        write_record(io.StringIO(), g, None)


# --- saboteur replay ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def record_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "game.jsonl"
    play_game([make_agent("random") for _ in range(4)], 12, record=str(path), num_rounds=2)
    return str(path)


def test_replay_text_from_a_seat_hides_what_it_may_not_know(record_path):
    from saboteur_experiments.cli import main

    out = io.StringIO()
    from saboteur_experiments.replay import main as replay_main

    replay_main([record_path, "--seat", "1", "--no-pause"], out=out)
    text = out.getvalue()
    assert "Round 1 is over" in text and "Round 2 is over" in text
    assert "you are seat 1" in text
    for s in (0, 2, 3):
        assert f"(seat {s} discarded" not in text
        assert f"you are seat {s}" not in text
    spec = io.StringIO()
    replay_main([record_path, "--spectator", "--no-pause"], out=spec)
    assert "roles: " in spec.getvalue() and "discarded" in spec.getvalue()
    assert callable(main)


def test_replay_text_pauses_on_scripted_input(record_path):
    from saboteur_experiments.replay import main as replay_main

    out = io.StringIO()
    replay_main([record_path, "--seat", "0"], inp=io.StringIO("\n\nq\n"), out=out)
    assert out.getvalue().count("[Enter: next, q: quit]") == 3


def test_replay_writes_png_frames_and_gif(record_path, tmp_path):
    from saboteur_experiments.replay import main as replay_main

    rec = read_record(record_path)
    folder = tmp_path / "frames"
    said = io.StringIO()
    replay_main([record_path, "--seat", "2", "--out", str(folder)], out=said)
    files = sorted(os.listdir(folder))
    # the deal, every decision, and one extra frame per round end except the last
    d = len(rec.decisions)
    assert len(rec.rounds) == 2 and len(files) == 1 + d + 1
    # the message says what the frames are (more images than decisions + 1 is by design)
    assert said.getvalue() == (
        f"wrote {d + 2} images to {folder} (the deal, {d} decisions, and 1 deal of a next "
        "round after a round's result)\n"
    )
    said = io.StringIO()
    replay_main([record_path, "--html", str(tmp_path / "r.html")], out=said)
    assert said.getvalue() == (
        f"wrote {tmp_path / 'r.html'} ({d + 2} states: the deal, {d} decisions, and 1 deal of "
        "a next round after a round's result)\n"
    )
    from saboteur_experiments.replay import _frames_note

    assert _frames_note(68, 67) == "the deal and 67 decisions"  # one round: no next deal
    assert _frames_note(72, 69) == (
        "the deal, 69 decisions, and 2 deals of a next round after a round's result"
    )
    # the page shows round 1's end before round 2's deal (the game already holds the deal)
    from saboteur_experiments.web.replay_html import replay_data

    steps = replay_data(rec, 2, beliefs=False)["steps"]
    assert len(steps) == d + 2
    end = next(i for i, st in enumerate(steps) if "round 1 is over" in st.get("caption", ""))
    assert steps[end]["index"] == steps[end + 1]["index"]
    assert steps[end + 1]["caption"].startswith("round 2 is dealt")
    assert steps[end]["view"]["maze"] != steps[end + 1]["view"]["maze"]
    over = steps[end]["view"]
    assert over["round"] == 1 and over["round_over"] and over["to_act"] is None
    assert over["winners"] == rec.rounds[0]["winners"]
    assert [s["role"] for s in over["seats"]] == [
        rec.config.ruleset.roles[r] for r in rec.rounds[0]["roles"]
    ]  # every role revealed at the round's end (RULES 5.1)
    assert over["you"] is None  # the viewer's hand there would be round 2's
    # piles, tools and turn as before the round's last decision, not round 2's fresh deal
    for key in ("turn", "deck", "discards"):
        assert over[key] == steps[end - 1]["view"][key], key

    def seen_goals(v):
        return {
            (c["x"], c["y"]): c["card"]["seen"]
            for c in v["maze"]["cells"]
            if c["card"] and c["card"]["goal"] not in (None,) and c["card"]["id"] == "goal"
        }

    # a viewer's maps of the round still show on its final maze (seat 0 mapped the bottom
    # goal in round 1 of this deal; the round's known_goals were already reset for round 2)
    steps0 = replay_data(rec, 0, beliefs=False)["steps"]
    end0 = next(i for i, st in enumerate(steps0) if "round 1 is over" in st.get("caption", ""))
    before, after = seen_goals(steps0[end0 - 1]["view"]), seen_goals(steps0[end0]["view"])
    assert before[(8, 2)] and after == before
    assert steps[end + 1]["view"]["round"] == 2
    assert files[0] == "0000.png"
    pytest.importorskip("PIL")
    gif = tmp_path / "game.gif"
    replay_main([record_path, "--spectator", "--out", str(gif), "--cell", "24"], out=io.StringIO())
    from PIL import Image

    assert Image.open(gif).n_frames == len(files)


def test_replay_cli_errors(tmp_path, record_path):
    from saboteur_experiments.replay import main as replay_main

    with pytest.raises(SystemExit):
        replay_main([str(tmp_path / "missing.jsonl")])
    with pytest.raises(SystemExit):
        replay_main([record_path, "--seat", "9"])
    for seat in ("0", "2"):  # either seat with --spectator: two views asked for, refused
        with pytest.raises(SystemExit) as e:
            replay_main([record_path, "--seat", seat, "--spectator", "--no-pause"])
        assert e.value.code == 2


def test_replay_seat_view_hides_other_seats_gold_until_the_end(record_path):
    """RULES 5.3: before the game ends a seat's replay shows only its own gold received; the
    spectator sees every amount; at the end (round 2 of 2 here) all are public."""
    from saboteur_experiments.replay import main as replay_main

    rec = read_record(record_path)
    received = [r["received"] for r in rec.rounds]

    def block(text, rnd):
        lines = text[text.index(f"=== Round {rnd} is over") :].split("\n")[1:]
        return lines[:4]

    out = io.StringIO()
    replay_main([record_path, "--seat", "1", "--no-pause"], out=out)
    seat = out.getvalue()
    first = block(seat, 1)
    assert re.search(rf"seat 1: \S+\s+\+{received[0][1]} gold\s+<- you", first[1])
    for s in (0, 2, 3):
        assert "+" not in first[s], first[s]
    assert all(f"+{received[1][s]} gold" in block(seat, 2)[s] for s in range(4))
    spec = io.StringIO()
    replay_main([record_path, "--spectator", "--no-pause"], out=spec)
    for rnd in (1, 2):
        lines = block(spec.getvalue(), rnd)
        assert all(f"+{received[rnd - 1][s]} gold" in lines[s] for s in range(4))


def test_replay_prints_a_round_end_before_the_next_deal(record_path):
    from saboteur_experiments.replay import main as replay_main

    for view in (["--seat", "2"], ["--spectator"]):
        out = io.StringIO()
        replay_main([record_path, *view, "--no-pause"], out=out)
        text = out.getvalue()
        begins = text.index("--- Round 2 begins")
        assert text.index("The maze at the end of round 1:") < begins
        assert text.index("=== Round 1 is over") < begins
        if view[0] == "--seat":  # the new role is dealt after the old result
            assert text.index("You are a ", text.index("=== Round 1 is over")) > begins


@pytest.mark.parametrize("players", [2, 5, 12])
def test_expansion_records_with_events_replay_exactly(players):
    """Saboteur 2 records with event lines (version 2) replay and check every event, also the
    multi-step decisions (pass, discard-two-to-remove, round-end thefts; RULES 6.7, 6.9)."""
    import io

    import numpy as np

    from saboteur_env import Codec
    from saboteur_env.engine.config import GameConfig
    from saboteur_env.engine.state import Game
    from saboteur_env.record import read_record, replay_game, write_record

    cfg = GameConfig(num_players=players, expansion=True)
    g, codec = Game(cfg, 11), Codec(cfg)
    rng = np.random.default_rng(players)
    while not g.game_over:
        legal = np.flatnonzero(codec.mask(g))
        g.apply(codec.decode(int(legal[rng.integers(len(legal))]), g.current, g.n))
    buf = io.StringIO()
    write_record(buf, g, 11, events=True)
    rec = read_record(io.StringIO(buf.getvalue()))
    assert len(rec.events) == len(g.events)
    assert replay_game(io.StringIO(buf.getvalue())).gold.tolist() == g.gold.tolist()


def test_records_from_before_the_round_scored_event_still_replay():
    """Saboteur 2's ``round_scored`` event (roles revealed before the thefts, RULES 5.1, 6.9)
    is recorded and checked like any event; a version 2 record written before it existed
    (none in it) still replays, compared without it; an edited one does not replay."""
    import numpy as np

    from saboteur_env import Codec
    from saboteur_env.engine.config import GameConfig
    from saboteur_env.engine.state import Game

    cfg = GameConfig(num_players=5, expansion=True, num_rounds=1)
    g, codec = Game(cfg, 21), Codec(cfg)
    rng = np.random.default_rng(21)
    while not g.game_over:
        g.apply(codec.decode(int(rng.choice(np.flatnonzero(codec.mask(g)))), g.current, g.n))
    buf = io.StringIO()
    write_record(buf, g, 21, events=True)
    lines = buf.getvalue().splitlines()
    scored = [i for i, x in enumerate(lines) if json.loads(x).get("event") == "round_scored"]
    assert len(scored) == 1
    assert replay_game(buf.getvalue()).gold.tolist() == g.gold.tolist()
    old = "\n".join(x for i, x in enumerate(lines) if i not in scored) + "\n"
    assert replay_game(old).gold.tolist() == g.gold.tolist()
    obj = json.loads(lines[scored[0]])
    obj["data"]["roles"] = obj["data"]["roles"][::-1]
    edited = lines[: scored[0]] + [json.dumps(obj)] + lines[scored[0] + 1 :]
    with pytest.raises(RecordError, match="replayed events differ"):
        replay_game("\n".join(edited) + "\n")


def _edited(lines, kind, edit):
    """``lines`` with the first line of type ``kind`` changed by ``edit(obj)``."""
    i = next(i for i, x in enumerate(lines) if json.loads(x)["type"] == kind)
    obj = json.loads(lines[i])
    edit(obj)
    return "\n".join(lines[:i] + [json.dumps(obj)] + lines[i + 1 :]) + "\n"


@pytest.mark.parametrize(
    "field, value",
    [("version", True), ("seed", 3.7), ("seed", "7"), ("seed", True), ("agents", "abcd")],
)
def test_header_fields_of_the_wrong_type_are_refused(field, value):
    """``version: true`` is not version 1, ``seed: 3.7`` is not the deal 3, ``agents: "abcd"``
    is not four names: each is a RecordError naming the field."""
    lines = _record_text().splitlines()
    text = _edited(lines, "header", lambda h: h.__setitem__(field, value))
    with pytest.raises(RecordError, match=rf"header field '{field}' must be"):
        read_record(text)


def test_an_edited_game_end_does_not_replay():
    lines = _record_text().splitlines()
    text = _edited(lines, "game_end", lambda e: e.__setitem__("gold", [99, 0, 0, 0]))
    read_record(text)  # well-formed
    with pytest.raises(RecordError, match="game end differs"):
        list(replay(text))
    text = _edited(lines, "game_end", lambda e: e.__setitem__("winners", [3, 2, 1, 0]))
    with pytest.raises(RecordError, match="game end differs"):
        list(replay(text))


@pytest.mark.parametrize("edit", ["action", "seat", "seed", "result", "end"])
def test_replay_cli_on_an_edited_record_is_one_line_and_exit_2(tmp_path, record_path, edit, capsys):
    """``saboteur replay`` on a record that does not replay: one line on stderr, exit code 2, no
    traceback, and nothing printed (the whole record is replayed before anything is shown)."""
    from saboteur_experiments.replay import main as replay_main

    lines = open(record_path, encoding="utf-8").read().splitlines()
    if edit == "action":
        text = _edited(lines, "decision", lambda d: d.__setitem__("action", 10**6))
    elif edit == "seat":
        text = _edited(lines, "decision", lambda d: d.__setitem__("seat", (d["seat"] + 1) % 4))
    elif edit == "seed":
        text = _edited(lines, "header", lambda h: h.__setitem__("seed", h["seed"] + 1))
    elif edit == "result":
        text = _edited(lines, "round_end", lambda r: r.__setitem__("received", [99] * 4))
    else:
        text = _edited(lines, "game_end", lambda e: e.__setitem__("gold", [99, 0, 0, 0]))
    path = tmp_path / "edited.jsonl"
    path.write_text(text)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        replay_main([str(path), "--no-pause"])
    assert exc.value.code == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.startswith("saboteur replay: cannot replay") and cap.err.count("\n") == 1
    assert "Traceback" not in cap.err
    gif = tmp_path / "x.gif"
    with pytest.raises(SystemExit) as exc:
        replay_main([str(path), "--out", str(gif)])
    assert exc.value.code == 2 and not gif.exists()


def test_replay_out_with_a_file_suffix_that_is_not_gif_is_a_usage_error(
    tmp_path, record_path, capsys
):
    """``--out g.txt`` made a folder of PNGs named g.txt."""
    from saboteur_experiments.replay import main as replay_main

    with pytest.raises(SystemExit) as exc:
        replay_main([record_path, "--out", str(tmp_path / "g.txt")])
    assert exc.value.code == 2
    assert "a .gif file or a folder for PNG frames, not a .txt file" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_rounds_final_maze_keeps_the_viewers_maps_of_that_round(record_path):
    """The round's last decision deals the next round, which forgets the seats' map results
    (they belong to a round); the replay's round-end maze still shows what the viewer had
    mapped in it, in text, in the image and on the page (seat 0 mapped the bottom goal, a
    stone, in round 1 of this deal; seat 2 mapped nothing)."""
    from saboteur_env.render import render_ansi
    from saboteur_experiments.replay import replay_text

    out = io.StringIO()
    replay_text(record_path, 0, out=out)
    text = out.getvalue()
    end = text[text.index("The maze at the end of round 1") :].split("Round 2", 1)[0]
    rows = [line for line in end.splitlines() if "[" in line]
    assert [r.split()[0] for r in rows] == ["-2", "0", "2"]
    assert "[o]" in rows[2] and "[?]" in rows[0] and "[?]" in rows[1]
    # the renderers take the knowledge explicitly; by default a past maze shows none
    rec = read_record(record_path)
    from saboteur_env.record import replay

    g = list(replay(rec))[-1].game
    past = g.round_boards[0]
    assert "[o]" not in render_ansi(g, 0, board=past)
    assert "[o]" in render_ansi(g, 0, board=past, known=[False, False, True])
    from saboteur_env.render_image import render_rgb

    plain = render_rgb(g, 0, board=past, cell=24)
    assert not np.array_equal(plain, render_rgb(g, 0, board=past, cell=24, known=[0, 0, 1]))
    assert np.array_equal(plain, render_rgb(g, 0, board=past, cell=24, known=[0, 0, 0]))


def test_renders_refuse_a_known_that_is_not_three_flags(record_path):
    """``known`` (the viewer's map results on a past maze) is one flag per goal slot; the
    text render, the image and the web view name a bad one alike."""
    from saboteur_env.record import replay
    from saboteur_env.render import render_ansi
    from saboteur_env.render_image import render_rgb
    from saboteur_experiments.web.view import maze

    g = list(replay(read_record(record_path)))[-1].game
    past = g.round_boards[0]
    for bad in ([True, False], [0, 2, 1], "abc"):
        for draw in (render_ansi, render_rgb, maze):
            with pytest.raises(ValueError, match="one bool per goal slot"):
                draw(g, 0, board=past, known=bad)


@pytest.mark.parametrize("expansion", [False, True])
def test_decision_turns_count_the_rounds_turns(expansion):
    """A decision line's ``turn`` is the turn of the round it belongs to: in the base game the
    decision's index in the round; in Saboteur 2 a pass or removal of several cards is one
    turn (and the round-end thefts carry the last turn's number), so every round's turn
    numbers run 0 .. its ``round_end`` ``turns`` - 1.  With and without event lines the
    decision lines are the same."""
    from saboteur_env import Game, GameConfig
    from saboteur_env.record import record_lines

    config = GameConfig(num_players=5, expansion=expansion)
    game = Game(config, 4)
    rng = np.random.default_rng(4)
    while not game.game_over:
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    lines = record_lines(game, 4, events=False)
    assert lines == [x for x in record_lines(game, 4, events=True) if x["type"] != "event"]
    decisions = [x for x in lines if x["type"] == "decision"]
    ends = [x for x in lines if x["type"] == "round_end"]
    assert len(ends) == 3
    multi = 0
    for r, end in enumerate(ends):
        turns = [d["turn"] for d in decisions if d["round"] == r]
        assert sorted(set(turns)) == list(range(end["turns"]))
        assert turns == sorted(turns)
        multi += len(turns) - end["turns"]
        if not expansion:
            assert turns == list(range(len(turns)))  # every decision is a turn
    assert (multi > 0) == expansion  # Saboteur 2: some turn took several decisions


def test_a_game_recorded_under_another_seed_is_a_record_error():
    """``record_lines`` replays the decisions on ``Game(config, seed)``: a game dealt from
    another seed is refused with a ``RecordError`` naming the seed, not an engine error."""
    from saboteur_env import Game, GameConfig
    from saboteur_env.record import RecordError, record_lines

    game = Game(GameConfig(num_players=4, num_rounds=1), 3)
    rng = np.random.default_rng(0)
    for _ in range(12):
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    assert record_lines(game, 3)[0]["seed"] == 3
    for events in (False, True):
        with pytest.raises(RecordError, match="not dealt from seed 4"):
            record_lines(game, 4, events=events)
