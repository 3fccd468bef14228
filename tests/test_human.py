"""Human play in the terminal (experiments/human.py), driven by scripted input streams."""

from __future__ import annotations

import io
import re
import sys

import pytest

from saboteur_env.engine.cards import KIND_INDEX
from saboteur_env.engine.events import RoundResult
from saboteur_env.engine.ruleset import BASE, SABOTEUR_2
from saboteur_env.engine.state import BreakTool, Discard, Map, PlacePath, Repair, Rockfall
from saboteur_experiments.human import move_lines, move_text, play_human


def test_scripted_game_with_invalid_inputs_completes_a_round():
    script = "hello\n0\n999\n\n-3\nh\nm\n" + "1\n" * 400
    out = io.StringIO()
    res = play_human(0, ["random"], players=4, seed=5, rounds=1, inp=io.StringIO(script), out=out)
    text = out.getvalue()
    assert not res["quit"] and len(res["rounds"]) == 1 and res["decisions"] > 4
    assert "'hello' is not a move number" in text
    assert "There is no move 0" in text and "There is no move 999" in text
    assert "Please type the number of a move." in text
    assert "How to play" in text
    assert "Round 1 is over" in text and "Final gold" in text
    assert "Your legal moves" in text and re.search(r"^\s+1\) ", text, re.M)


def test_the_person_sees_only_what_their_seat_may_know():
    out = io.StringIO()
    play_human(2, ["random"], players=5, seed=8, rounds=1, inp=io.StringIO("1\n" * 400), out=out)
    before_end = out.getvalue().split("Round 1 is over")[0]
    for s in (0, 1, 3, 4):
        assert f"Seat {s} (random) draws" not in before_end
        assert f"(seat {s} discarded" not in before_end
        assert f"Seat {s}'s map" not in before_end
        assert not re.search(rf"Seat {s} \(random\) is a ", before_end)
    assert "You are a " in before_end


def test_input_end_and_quit_stop_the_game():
    out = io.StringIO()
    res = play_human(0, ["random"], players=3, seed=1, rounds=1, inp=io.StringIO("1\n"), out=out)
    assert res["quit"] and "Input ended" in out.getvalue()
    out = io.StringIO()
    res = play_human(0, ["random"], players=3, seed=1, rounds=1, inp=io.StringIO("q\n"), out=out)
    assert res["quit"] and "game stopped early" in out.getvalue()


def test_unknown_agent_falls_back_to_random_with_a_message():
    out = io.StringIO()
    res = play_human(
        1, ["no_such_agent"], players=3, seed=2, rounds=1, inp=io.StringIO("1\n" * 300), out=out
    )
    text = out.getvalue()
    assert "Agent 'no_such_agent' is not available" in text and "play 'random'" in text
    assert not res["quit"]


def test_record_of_a_human_game_replays(tmp_path):
    from saboteur_env.record import read_record, replay_game

    path = tmp_path / "h.jsonl"
    res = play_human(
        0,
        ["random"],
        players=3,
        seed=3,
        rounds=1,
        inp=io.StringIO("1\n" * 300),
        out=io.StringIO(),
        record=str(path),
    )
    rec = read_record(str(path))
    assert rec.agents[0] == "you"
    assert replay_game(rec).gold.tolist() == res["gold"]


def test_moves_in_words():
    b05 = KIND_INDEX["B05"]
    assert move_text(PlacePath(b05, 3, -1, False), 0) == "place B05 T-junction N-E-S at (3, -1)"
    assert (
        move_text(PlacePath(b05, 3, -1, True), 0)
        == "place B05 T-junction N-E-S rotated (opens N-S-W) at (3, -1)"
    )
    assert move_text(BreakTool(KIND_INDEX["break_lantern"], 2), 0) == "break seat 2's lantern"
    assert move_text(BreakTool(KIND_INDEX["break_pick"], 0), 0) == "break your own pick"
    assert (
        move_text(Repair(KIND_INDEX["repair_pick_cart"], 2, 1), 0)
        == "repair seat 1's cart (with repair pick or cart)"
    )
    assert move_text(Rockfall(2, 1), 0) == "rockfall: remove the card at (2, 1)"
    assert move_text(Map(0), 0) == "map: look at the top goal (8, -2)"
    assert move_text(Discard(KIND_INDEX["map"]), 0) == "pass, discarding map"
    many = [PlacePath(b05, x, 0, False) for x in range(40)] + [Map(1)]
    lines = move_lines(many, 0)
    assert lines[0].startswith("place B05 T-junction N-E-S at:")
    assert " 41) map: look at the middle goal" in lines[-1]
    assert all(len(line) <= 100 for line in lines)


def test_cli_play_human(monkeypatch, capsys):
    from saboteur_experiments.cli import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("x\n" + "1\n" * 300))
    main(
        [
            "play",
            "--human",
            "0",
            "--players",
            "3",
            "--rounds",
            "1",
            "--agents",
            "random",
            "--seed",
            "4",
        ]
    )
    text = capsys.readouterr().out
    assert "is not a move number" in text and "Final gold" in text


def test_bad_seat():
    with pytest.raises(ValueError):
        play_human(5, ["random"], players=5, inp=io.StringIO(""), out=io.StringIO())


def _result_block(text: str, rnd: int) -> str:
    """The seat lines under the "=== Round ``rnd`` is over" heading."""
    lines = text[text.index(f"=== Round {rnd} is over") :].split("\n")[1:]
    block = []
    for line in lines:
        if not line.startswith("  "):
            break
        block.append(line)
    return "\n".join(block)


def test_round_result_shows_only_the_seat_own_gold_until_the_game_ends():
    """RULES 5.3: gold cards are secret until the game ends; a seat sees only its own
    amount at a round end that is not the end of the game, the spectator sees all."""
    from saboteur_experiments.human import round_result_text

    res = RoundResult(
        round=0,
        gold_found=True,
        winning_side="gold-digger",
        winners=[0, 2, 3],
        connector=2,
        roles=[0, 1, 0, 0, 1],
        received=[3, 0, 5, 2, 0],
        paid=[3, 0, 5, 2, 0],
        last_card_seat=2,
        turns=30,
    )
    seat = round_result_text(res, 2)
    assert re.search(r"seat 2: gold-digger\s+\+5 gold\s+<- you", seat)
    for s in (0, 1, 3, 4):
        line = next(x for x in seat.split("\n") if x.startswith(f"  seat {s}:"))
        assert "+" not in line, line
    assert "+3 gold" not in seat and "+2 gold" not in seat
    spectator = round_result_text(res, None)
    assert all(f"+{g} gold" in spectator for g in res.received)
    over = round_result_text(res, 2, game_over=True)
    assert all(f"+{g} gold" in over for g in res.received)


@pytest.mark.parametrize(
    ("side", "gold_found", "told"),
    [
        ("gold-digger", True, "the gold-diggers win"),
        ("saboteur", False, "the saboteurs win"),
        ("saboteurs", True, "the saboteurs win"),  # Saboteur 2: gold behind both doors
        ("blue", True, "the blue diggers win"),
        ("blue+green", True, "the blue+green diggers win"),
        ("boss", True, "the boss wins"),
    ],
)
def test_round_result_tells_the_winning_side_of_the_result(side, gold_found, told):
    """The text says the result's winning side (RULES 5.2, 5.3, 6.9), in the human game, the
    replay and the played game's log alike (scoring.side_text): it said 'the gold-diggers
    win' whenever the gold was found, also for a Saboteur 2 round the saboteurs or one team
    won."""
    from saboteur_env.engine.scoring import side_text
    from saboteur_experiments.human import round_result_text

    res = RoundResult(
        round=1,
        gold_found=gold_found,
        winning_side=side,
        winners=[0],
        connector=0 if gold_found else None,
        roles=[0, 1],
        received=[2, 0],
        paid=[2, 0],
        last_card_seat=0,
        turns=12,
    )
    assert side_text(side) == told
    assert round_result_text(res, None).startswith(f"=== Round 2 is over: {told} after 12 turns")


def test_a_saboteur_win_with_no_saboteur_in_play_says_so(capsys):
    """RULES 2.2, 6.9: with 3-4 players, or in Saboteur 2, a round can be a saboteur win with
    no saboteur dealt (in Saboteur 2 the Profiteer may be its only winner); the text says the
    saboteurs' side won and that no saboteur was in play, not 'the saboteurs win'."""
    from saboteur_env.engine.cards import BLUE_DIGGER, GEOLOGIST, PROFITEER, X_SABOTEUR
    from saboteur_env.engine.scoring import side_text
    from saboteur_experiments.cli import main

    told = "the saboteurs' side wins (no saboteur in play)"
    assert side_text("saboteur", [BASE.diggers[0]] * 3, BASE) == told
    assert side_text("saboteurs", [BLUE_DIGGER, PROFITEER, GEOLOGIST], SABOTEUR_2) == told
    assert side_text("saboteurs", [BLUE_DIGGER, X_SABOTEUR], SABOTEUR_2) == "the saboteurs win"
    assert side_text("saboteur", [BASE.diggers[0], BASE.saboteur], BASE) == "the saboteurs win"
    assert side_text("blue", [BLUE_DIGGER], SABOTEUR_2) == "the blue diggers win"
    assert side_text("saboteurs") == "the saboteurs win"  # roles unknown: the side alone
    from saboteur_env.render_image import side_label

    label = side_label("saboteurs", [BLUE_DIGGER, PROFITEER], SABOTEUR_2)
    assert label == "SABOTEURS' SIDE WINS (NO SABOTEUR IN PLAY)"
    # the game the new-user trial met: round 2 dealt no saboteur and the gold was not found
    argv = ["play", "--expansion", "--players", "5", "--seed", "3", "--render", "none"]
    main([*argv, "--agents", "heuristic,random"])
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("Round 2:"))
    roles_line = out.splitlines()[out.splitlines().index(line) + 1]
    assert line.startswith(f"Round 2: {told} after ")
    assert roles_line.startswith("  roles: ") and "saboteur" not in roles_line
    assert all(name in SABOTEUR_2.roles for name in re.findall(r"seat \d: ([a-z-]+)", roles_line))


def test_human_game_hides_other_seats_gold_before_the_end():
    out = io.StringIO()
    res = play_human(
        1, ["random"], players=4, seed=3, rounds=2, inp=io.StringIO("1\n" * 800), out=out
    )
    text = out.getvalue()
    assert not res["quit"]
    first = _result_block(text, 1)
    assert re.search(r"seat 1: \S+\s+\+\d+ gold\s+<- you", first)
    for s in (0, 2, 3):
        assert not re.search(rf"seat {s}: .*\+\d+ gold", first), first
    last = _result_block(text, 2)  # the game is over: every amount is public
    for s in range(4):
        assert re.search(rf"seat {s}: \S+\s+\+{res['rounds'][1].received[s]} gold", last)
    assert re.findall(
        r"^  seat \d .* (\d+)(?:  <- winner)?$", text.split("Final gold:")[1], re.M
    ) == [str(g) for g in res["gold"]]


def test_stopped_game_shows_only_own_gold():
    out = io.StringIO()
    res = play_human(0, ["random"], players=3, seed=1, rounds=1, inp=io.StringIO("q\n"), out=out)
    tail = out.getvalue().split("game stopped early")[1]
    assert res["quit"] and "your gold 0" in tail
    assert "seat 1" not in tail and "seat 2" not in tail


def test_every_event_type_has_a_text_in_saboteur_2_games():
    """No event falls through to its raw payload (Saboteur 2 events printed ``theft {...}``):
    every event of seeded Saboteur 2 games gets a text for the spectator and for its own seat,
    and an unknown type is an error, not a dump."""
    import numpy as np

    from saboteur_env.encoding.codec import Codec
    from saboteur_env.engine.config import GameConfig
    from saboteur_env.engine.state import Event, Game
    from saboteur_experiments.human import event_text

    cfg = GameConfig(num_players=5, expansion=True, num_rounds=1)
    codec = Codec(cfg)
    seen = set()
    for seed in range(6):
        g = Game(cfg, seed)
        rng = np.random.default_rng(seed)
        while not g.game_over:
            legal = np.flatnonzero(codec.mask(g))
            g.apply(codec.decode(int(legal[rng.integers(len(legal))]), g.current, g.n))
        for e in g.events:
            seen.add(e.type)
            for viewer in ("spectator", e.seat if e.seat is not None else 0):
                text = event_text(e, viewer, rules=cfg.ruleset)
                assert text is None or "{" not in text, (e, text)
    assert {"action_played", "pass_done"} <= {str(t) for t in seen}
    from saboteur_env.engine.events import EventType

    theft = Event(EventType.THEFT, 2, {"target": 0})
    assert event_text(theft, 0) == "Seat 2: steal 1 gold from you"
    scored = Event(
        EventType.ROUND_SCORED, None, {"round": 0, "winning_side": "blue", "roles": [1, 5]}
    )
    assert event_text(scored, 1, rules=cfg.ruleset) == (
        "--- Round 1 is over: the blue diggers win; roles revealed (seat 0: blue-digger, "
        "seat 1: saboteur); the thefts follow ---"
    )
    with pytest.raises(ValueError, match="no text for event type"):
        event_text(Event("made_up", 0, {}), "spectator")


def test_a_round_result_signs_the_gold_received():
    """A Saboteur 2 theft can leave a seat with less gold than before the round (RULES 6.9):
    it is told as -1, not +-1."""
    from saboteur_experiments.human import round_result_text

    res = RoundResult(
        round=0,
        gold_found=True,
        winning_side="blue",
        winners=[1],
        connector=1,
        roles=[0, 1],
        received=[-1, 3],
        paid=[0, 2],
        last_card_seat=1,
        turns=9,
    )
    text = round_result_text(res, None, rules=SABOTEUR_2)
    assert re.search(r"seat 0: green-digger\s+-1 gold", text)
    assert re.search(r"seat 1: blue-digger\s+\+3 gold", text) and "+-" not in text


def test_human_game_without_a_seed_draws_a_fresh_train_deal(monkeypatch):
    """No --seed: a fresh train-split deal, printed (the same default deal every time would
    let a person who played it once know where the gold is)."""
    from saboteur_experiments import human
    from saboteur_experiments.evaluation.splits import split_of

    seeds = iter([123_456_789, 987_654_321])
    monkeypatch.setattr(human, "fresh_seed", lambda: next(seeds))
    texts = []
    for _ in range(2):
        out = io.StringIO()
        play_human(0, ["random"], players=3, rounds=1, inp=io.StringIO("q\n"), out=out)
        texts.append(out.getvalue())
    # told after the game (here: stopped at once), never before: it gives the deal away
    assert texts[0].endswith("deal seed 123456789 (--seed 123456789 deals this game again)\n")
    assert texts[1].endswith("deal seed 987654321 (--seed 987654321 deals this game again)\n")
    assert all(t.count("deal seed") == 1 for t in texts)
    monkeypatch.undo()
    assert split_of(human.fresh_seed()).name == "train"
    assert human.fresh_seed() != human.fresh_seed()


def test_tool_events_and_own_discards_read_right_from_every_seat():
    """Seat 0 breaks seat 1's cart: seat 1 reads "break your cart" (not "your own"), seat 2
    "break seat 1's cart"; a seat breaking its own pick reads "your own" to itself and "their
    own" to others.  A seat's own discard names the card, once; others see it face down."""
    from saboteur_env.engine.events import Event, EventData, EventType
    from saboteur_experiments.human import event_text

    def broken(actor, target, tool):
        data = {"kind": KIND_INDEX["break_cart"], "target": target, "tool": tool}
        return Event(EventType.TOOL_BROKEN, actor, EventData(data))

    cart, pick = 2, 0
    assert event_text(broken(0, 1, cart), 1) == "Seat 0: break your cart"
    assert event_text(broken(0, 1, cart), 2) == "Seat 0: break seat 1's cart"
    assert event_text(broken(0, 1, cart), 0) == "You: break seat 1's cart"
    assert event_text(broken(3, 3, pick), 3) == "You: break your own pick"
    assert event_text(broken(3, 3, pick), 1) == "Seat 3: break their own pick"
    face_down = Event(EventType.DISCARDED, 2, EventData({}))
    card = Event(EventType.DISCARDED_CARD, 2, EventData({"kind": KIND_INDEX["map"]}), 2)
    assert [event_text(e, 2) for e in (face_down, card)] == [
        None,
        "You: pass, discarding map face down",
    ]
    assert [event_text(e, 0) for e in (face_down, card)] == [
        "Seat 2: pass, discarding a card face down",
        None,
    ]
