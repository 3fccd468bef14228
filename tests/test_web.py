"""The browser pages' data (saboteur_experiments.web): the view of one seat, ``saboteur serve``'s
HTTP API (Flask's test client, no socket) and the self-contained replay page.

Hidden information (DESIGN 4): the JSON a seat is sent is byte-identical for every state
``game.determinize(seat, rng)`` gives, i.e. it holds nothing the seat may not know.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from saboteur_env import Game, GameConfig
from saboteur_env.record import read_record, replay_game
from saboteur_experiments.web.view import legal_moves, view

flask = pytest.importorskip("flask")

from saboteur_experiments.web.server import TOKEN_HEADER, Server, create_app  # noqa: E402

#: (config, deal seed) of the hidden-information games: base game 4 and 5 players, Saboteur 2
GAMES = [
    (GameConfig(num_players=4), 11),
    (GameConfig(num_players=5), 12),
    (GameConfig(num_players=7), 13),
    (GameConfig(num_players=5, expansion=True), 14),
]
POINTS = (0, 5, 12, 25, 40)  # decisions played at random before each check
RESAMPLES = 3


def _dump(v: dict) -> str:
    return json.dumps(v, sort_keys=True)


def _play_random(g: Game, k: int, rng) -> None:
    for _ in range(k):
        if g.game_over:
            return
        acts = g.legal_actions()
        g.apply(acts[int(rng.integers(len(acts)))])


def test_a_seats_view_is_identical_under_resampling_of_what_it_cannot_know():
    checked = differs = 0
    for config, seed in GAMES:
        g = Game(config, seed)
        rng = np.random.default_rng(seed)
        done = 0
        for point in POINTS:
            _play_random(g, point - done, rng)
            done = point
            for seat in sorted({g.current, (g.current + 1) % g.n}):
                real = _dump(view(g, seat))
                spect = _dump(view(g, "spectator"))
                for r in range(RESAMPLES):
                    sample = g.determinize(seat, np.random.default_rng(1000 * seed + r))
                    assert _dump(view(sample, seat)) == real, (config, seed, point, seat, r)
                    differs += _dump(view(sample, "spectator")) != spect
                    checked += 1
    # 4 games x 5 decision points x 2 seats x 3 resamples
    assert checked == len(GAMES) * len(POINTS) * 2 * RESAMPLES == 120
    # the spectator's view does change: the test can see a leak
    assert differs == checked


def test_the_view_holds_the_seats_own_data_and_legal_moves():
    g = Game(GameConfig(num_players=5), 3)
    v = view(g, 0)
    assert v["viewer"] == 0 and v["to_act"] == 0 and v["round"] == 1 and v["turn"] == 1
    assert [c["id"] for c in v["you"]["hand"]] == [
        "B01",
        "B03",
        "B06",
        "B06",
        "B11",
        "break_lantern",
    ]
    assert v["you"]["role"] == "gold-digger"
    assert [s["role"] for s in v["seats"]] == ["gold-digger", None, None, None, None]
    assert [s["hand_size"] for s in v["seats"]] == [6] * 5
    assert "spectator" not in v
    assert v["history"] == ["--- Round 1 begins; seat 0 plays first ---", "You are a gold-digger."]
    # the legal moves are the mask's indexes, described by the codec
    from saboteur_env.encoding.codec import Codec

    codec = Codec(g.config)
    assert [m["index"] for m in v["moves"]] == codec.mask(g, 0).nonzero()[0].tolist()
    assert v["moves"][0] == {
        "index": 153,
        "text": "place B01 NS at (0, -1)",
        "kind": "place",
        "card": 0,
        "cell": [0, -1],
        "target": None,
        "rotated": False,
        "turns": False,  # a straight looks the same turned
        "goal": None,
        "tool": None,
    }
    # B06 (a three-way card) lies either way: its placements say which
    b06 = [
        m for m in v["moves"] if m["kind"] == "place" and m["card"] == v["you"]["hand"][2]["kind"]
    ]
    assert b06 and all(m["turns"] for m in b06) and {m["rotated"] for m in b06} == {False, True}
    assert legal_moves(g, 1) == [] and view(g, 1)["moves"] == []
    # goal cells: face down for the seat, revealed for the spectator
    goals = [c["card"]["goal"] for c in v["maze"]["cells"] if c["x"] == 8 and c["card"]]
    assert goals == ["hidden"] * 3
    s = view(g, "spectator")
    assert sorted(c["card"]["goal"] for c in s["maze"]["cells"] if c["x"] == 8 and c["card"]) == [
        "gold",
        "stone",
        "stone",
    ]
    with pytest.raises(ValueError, match="a seat 0..4 or 'spectator'"):
        view(g, 5)


# --- the server ---------------------------------------------------------------------------
@pytest.fixture
def server(tmp_path):
    return Server(["heuristic"], players=4, humans=[0, 2], seed=5, records=tmp_path / "human")


def _start(client, seed=None):
    r = client.post("/api/games", json={} if seed is None else {"seed": seed})
    assert r.status_code == 200, r.get_json()
    d = r.get_json()
    return d["token"], d["view"]


def test_the_servers_json_for_a_seat_is_byte_identical_under_resampling(server):
    client = create_app(server).test_client()
    token, v = _start(client)
    table = server.tables[v["game"]]
    seat = v["viewer"]
    rng = np.random.default_rng(0)
    for step in range(4):  # a few decision points of the human seat
        real = client.get("/api/view", headers={TOKEN_HEADER: token}).data
        live = table.game
        for r in range(3):
            table.game = live.determinize(seat, np.random.default_rng(10 * step + r))
            try:
                sample = client.get("/api/view", headers={TOKEN_HEADER: token}).data
            finally:
                table.game = live
            assert sample == real
        moves = json.loads(real)["moves"]
        if not moves:
            break
        m = moves[int(rng.integers(len(moves)))]
        assert (
            client.post(
                "/api/move", json={"action": m["index"]}, headers={TOKEN_HEADER: token}
            ).status_code
            == 200
        )


def test_illegal_and_foreign_seat_moves_are_refused_with_the_state_unchanged(server):
    client = create_app(server).test_client()
    token, v = _start(client)
    table = server.tables[v["game"]]
    assert v["viewer"] == 0 and table.game.current == 0
    r = client.post(f"/api/games/{v['game']}/join")
    token2 = r.get_json()["token"]
    assert r.get_json()["seat"] == 2
    before = (table.game.decisions, _dump(view(table.game, "spectator")))
    legal = {m["index"] for m in v["moves"]}
    illegal = next(i for i in range(server.codec.n) if i not in legal)
    h = {TOKEN_HEADER: token}
    cases = [
        (h, {"action": v["moves"][0]["index"], "seat": 2}, 403, "seat 2 is not yours"),
        ({TOKEN_HEADER: token2}, {"action": v["moves"][0]["index"]}, 409, "seat 0's turn"),
        (h, {"action": illegal}, 400, "illegal move"),
        (h, {"action": server.codec.n}, 400, "outside"),
        (h, {"action": "1"}, 400, "must be an int"),
        (h, {"move": 1}, 400, "must be an int"),
        ({}, {"action": v["moves"][0]["index"]}, 401, "no session token"),
        ({TOKEN_HEADER: "forged"}, {"action": v["moves"][0]["index"]}, 403, "unknown session"),
    ]
    for headers, body, status, text in cases:
        r = client.post("/api/move", json=body, headers=headers)
        assert r.status_code == status, (body, r.get_json())
        assert text in r.get_json()["error"]
        assert "Traceback" not in r.get_data(as_text=True)
        assert (table.game.decisions, _dump(view(table.game, "spectator"))) == before
    r = client.post(
        "/api/move", data="{not json", headers={**h, "Content-Type": "application/json"}
    )
    assert r.status_code == 400 and r.get_json() == {"error": "the body is not a JSON object"}
    r = client.post("/api/move", data="null", headers={**h, "Content-Type": "application/json"})
    assert r.status_code == 400 and r.get_json() == {"error": "the body is not a JSON object"}
    # a JSON body sent as a form (curl -d) is read as JSON: here an illegal action, refused
    r = client.post(
        "/api/move",
        data='{"action": -1}',
        headers={**h, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 400 and "not JSON" not in r.get_json()["error"]
    assert (table.game.decisions, _dump(view(table.game, "spectator"))) == before
    assert client.post("/api/games/nope/join").status_code == 404
    assert client.post(f"/api/games/{v['game']}/join").status_code == 409  # both seats taken
    assert client.post("/api/games", json={"seed": -1}).status_code == 400
    assert client.get("/api/nothing").status_code == 404
    assert (table.game.decisions, _dump(view(table.game, "spectator"))) == before


def test_a_full_scripted_game_through_the_http_api_is_recorded(server, tmp_path):
    client = create_app(server).test_client()
    token, v = _start(client, seed=9)
    assert v["open_seats"] == [2]  # the page's join hint shows while a human seat is free
    token2 = client.post(f"/api/games/{v['game']}/join").get_json()["token"]
    assert client.get("/api/view", headers={TOKEN_HEADER: token}).get_json()["open_seats"] == []
    tokens = {0: token, 2: token2}
    moves = 0
    last_rounds = {}  # (seat, round) -> the last_round a seat's view showed in that round
    while not v["game_over"]:
        seat = v["to_act"]
        assert seat in tokens
        v = client.get("/api/view", headers={TOKEN_HEADER: tokens[seat]}).get_json()
        assert v["viewer"] == seat and v["moves"]
        last_rounds.setdefault((seat, v["round"]), v["last_round"])
        r = client.post(
            "/api/move",
            json={"action": v["moves"][-1]["index"]},
            headers={TOKEN_HEADER: tokens[seat]},
        )
        assert r.status_code == 200, r.get_json()
        v = r.get_json()
        moves += 1
    table = server.tables[v["game"]]
    assert v["game_over"] and v["recorded"] and v["winners"] == table.game.winners()
    assert v["round"] == 3 and moves > 10
    (path,) = (tmp_path / "human").glob("human_*.jsonl")
    rec = read_record(path)
    assert rec.seed == 9 and rec.agents == ["human", "heuristic", "human", "heuristic"]
    assert rec.header["meta"] == {"population": "human", "human_seats": [0, 2]}
    assert sum(d["seat"] in (0, 2) for d in rec.decisions) == moves
    assert replay_game(rec).gold.tolist() == table.game.gold.tolist()
    # each next round shows the round before's final maze and result, as the seat saw them:
    # the maze the replay page draws at that round's end from the seat's view (from the
    # record, another path), the result as the terminal tells it
    from saboteur_experiments.human import round_result_text
    from saboteur_experiments.web.replay_html import replay_data

    assert v["last_round"] is None  # the game is over: its final maze is the maze itself
    for seat in (0, 2):
        assert last_rounds[seat, 1] is None
        ends = [
            st["view"]["maze"]
            for st in replay_data(rec, seat, beliefs=False)["steps"]
            if " is over: " in st.get("caption", "")
        ]
        assert len(ends) == 2
        for r in (1, 2):
            shown = last_rounds[seat, r + 1]
            res = table.game.round_results[r - 1]
            assert shown["round"] == r and shown["maze"] == ends[r - 1]
            assert shown["result"] == round_result_text(res, seat, False, table.game.rules)
    r = client.post("/api/move", json={"action": 0}, headers={TOKEN_HEADER: token})
    assert r.status_code == 409 and r.get_json()["error"] == "the game is over"


def test_the_play_page_and_its_scripts_are_served(server):
    client = create_app(server).test_client()
    page = client.get("/")
    assert page.status_code == 200 and b'<script src="/static/play.js">' in page.data
    for name in ("saboteur.js", "play.js", "saboteur.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/api/config").get_json() == {
        "agents": ["heuristic"],
        "expansion": False,
        "humans": [0, 2],
        "players": 4,
        "rounds": 3,
    }


def test_server_options_are_checked():
    with pytest.raises(ValueError, match="human seat 4"):
        Server(["random"], players=4, humans=[4])
    with pytest.raises(ValueError, match="at least one human seat"):
        Server(["random"], players=4, humans=[])


# --- the replay page --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def record(tmp_path_factory):
    from saboteur_agents import make_agent
    from saboteur_experiments.play import play_game

    path = tmp_path_factory.mktemp("rec") / "game.jsonl"
    play_game(
        [make_agent(s) for s in ("heuristic", "random", "heuristic", "random")],
        4,
        record=str(path),
        num_rounds=1,
    )
    return path


def _page_data(html: str) -> dict:
    m = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def test_the_replay_page_is_self_contained_and_holds_only_its_viewers_data(record):
    from saboteur_experiments.web.replay_html import replay_data, replay_html

    rec = read_record(record)
    html = replay_html(rec, 1)
    assert "/static/" not in html and "http" not in html.split("<script")[0]
    d = _page_data(html)
    assert d == json.loads(json.dumps(replay_data(rec, 1)))
    assert len(d["steps"]) == len(rec.decisions) + 1
    assert all(s["view"]["viewer"] == 1 and "spectator" not in s["view"] for s in d["steps"])
    assert d["belief_seats"] == [] and d["steps"][0]["belief"] == {}  # seat 1 plays random
    # seat 0 plays the heuristic: its belief rows, own row one-hot, beside its view only
    d0 = replay_data(rec, 0)
    assert d0["belief_seats"] == [0]
    b = np.array(d0["steps"][-1]["belief"]["0"])
    assert b.shape == (4, 2) and np.allclose(b.sum(axis=1), 1.0)
    assert b[0].tolist() in ([1.0, 0.0], [0.0, 1.0])
    s = replay_data(rec, "spectator")
    assert s["belief_seats"] == [0, 2] and "spectator" in s["steps"][3]["view"]
    # a seat's page never holds another seat's hand: seat 1's hands per step are its own
    for step, sv in zip(d["steps"], s["steps"]):
        assert "hands" not in json.dumps(step)
        own = [c["id"] for c in step["view"]["you"]["hand"]]
        assert own == sv["view"]["spectator"]["hands"][1]


def test_replay_html_command_line(record, tmp_path, capsys):
    from saboteur_experiments.replay import main

    out = tmp_path / "r.html"
    main([str(record), "--seat", "2", "--html", str(out)])
    assert _page_data(out.read_text())["viewer"] == 2
    assert "states" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main([str(record), "--html", str(out), "--out", str(tmp_path / "g.gif")])
    assert e.value.code == 2
    assert "--html and --out" in capsys.readouterr().err


def test_serve_command_line_errors(capsys):
    from saboteur_experiments.web.server import main

    for argv, text in [
        (["--human", "7"], "--human 7: seat 7"),
        (["--human", "a"], "--human a: comma-separated"),
        (["--human", "0,0"], "repeated"),
        (["--agents", "nope"], "--agents"),
        (["--players", "1"], "--players"),
    ]:
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        assert text in capsys.readouterr().err


def test_serve_port_0_prints_the_port_it_took_and_serves_the_page(tmp_path):
    import subprocess
    import sys
    import urllib.request

    code = (
        "from saboteur_experiments.web.server import main; "
        f"main(['--port', '0', '--records', {str(tmp_path / 'rec')!r}])"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        import select

        # printed once the socket is bound (a child that stalls fails here, not hangs)
        assert select.select([proc.stdout], [], [], 120)[0], "saboteur serve printed nothing"
        line = proc.stdout.readline()
        m = re.match(r"saboteur serve: http://127\.0\.0\.1:(\d+)/ ", line)
        assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
        port = int(m.group(1))
        assert port > 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as r:
            assert r.status == 200
            assert "<html" in r.read().decode().lower()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_on_a_port_in_use_is_a_usage_error_naming_it(capsys, tmp_path):
    import socket

    from saboteur_experiments.web.server import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(SystemExit) as e:
            main(["--port", str(port), "--records", str(tmp_path / "rec")])
    assert e.value.code == 2
    assert f"--port {port}: " in capsys.readouterr().err
    assert not (tmp_path / "rec").exists()  # refused before anything was made


# --- human games as a population of the bluff benchmark ----------------------------------------
def test_a_records_folder_is_a_bluff_population(server, tmp_path):
    from saboteur_experiments.bluff.pipeline import record_population, run

    client = create_app(server).test_client()
    for seed in (1, 2):
        token, v = _start(client, seed=seed)
        token2 = client.post(f"/api/games/{v['game']}/join").get_json()["token"]
        tokens = {0: token, 2: token2}
        while not v["game_over"]:
            t = tokens[v["to_act"]]
            v = client.get("/api/view", headers={TOKEN_HEADER: t}).get_json()
            v = client.post(
                "/api/move", json={"action": v["moves"][0]["index"]}, headers={TOKEN_HEADER: t}
            ).get_json()
    folder = tmp_path / "human"
    name, by_n = record_population(folder, [4], False)
    assert name == "human" and list(by_n) == [4] and len(by_n[4]) == 2
    assert record_population(folder, [4], False, taken={"human"})[0] == "records:human"
    with pytest.raises(ValueError, match="no record of the base game at 5 players"):
        record_population(folder, [5], False)
    with pytest.raises(ValueError, match="not a folder"):
        record_population(tmp_path / "missing", [4], False)
    s = run(
        players=[4],
        games=2,
        fit_games=2,
        pops=["random"],
        rounds=1,
        out=tmp_path / "b",
        bootstrap=5,
        plots=False,
        quiet=True,
        records=folder,
    )
    assert s["records"] == {"folder": str(folder), "population": "human", "games": {"4": 2}}
    cells = [c for c in s["cells"] if c["population"] == "human"]
    assert {c["track"] for c in cells} == {"spectator", "in-seat"}
    assert {c["detector"] for c in cells} >= {"uniform", "prior", "bayes", "logistic"}
    assert all(c["held_out"] and c["games"] == 2 for c in cells)
    assert [f["population"] for f in s["frontier"]] == ["random", "human"]


def test_a_saboteur_2_game_through_the_http_api(tmp_path):
    server = Server(["heuristic"], players=5, expansion=True, humans=[1], seed=3, records=tmp_path)
    client = create_app(server).test_client()
    token, v = _start(client)
    assert v["ruleset"] == "Saboteur 2" and v["expansion"] and v["viewer"] == 1
    kinds, k = set(), 0
    while not v["game_over"]:
        m = v["moves"][k % len(v["moves"])]  # cycle through the offered moves
        kinds.add(m["kind"])
        r = client.post("/api/move", json={"action": m["index"]}, headers={TOKEN_HEADER: token})
        assert r.status_code == 200, r.get_json()
        v, k = r.get_json(), k + 1
    assert {"place", "discard", "xaction"} <= kinds
    (path,) = tmp_path.glob("human_*.jsonl")
    assert read_record(path).config.expansion and replay_game(path).game_over


def test_bluff_records_option_is_checked_before_anything_runs(tmp_path, capsys):
    from saboteur_experiments.bluff.cli import main

    with pytest.raises(SystemExit) as e:
        main(["--players", "4", "--records", str(tmp_path / "none"), "--out", str(tmp_path / "o")])
    assert e.value.code == 2
    assert "--records" in capsys.readouterr().err and not (tmp_path / "o").exists()


def test_an_index_naming_a_seat_not_in_play_is_a_400(server):
    """A tool index aimed at relative seat 7 of a 4-player game does not decode: a 400 naming
    it, not a 500."""
    client = create_app(server).test_client()
    token, v = _start(client)
    off, size = server.codec.blocks["tool"]
    bad = off + server.codec.max_players - 1  # the first tool row, the last relative seat
    r = client.post("/api/move", json={"action": bad}, headers={TOKEN_HEADER: token})
    assert r.status_code == 400 and "illegal move" in r.get_json()["error"]


def test_a_failing_agent_stops_only_its_game_with_a_clear_error(server, monkeypatch):
    client = create_app(server).test_client()
    token, v = _start(client)
    table = server.tables[v["game"]]
    agent = table.agents[1]
    monkeypatch.setattr(agent, "act", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
    move = v["moves"][0]["index"]
    r = client.post("/api/move", json={"action": move}, headers={TOKEN_HEADER: token})
    assert (
        r.status_code == 500
        and "the agent of seat 1 (heuristic) failed: boom" in r.get_json()["error"]
    )
    r = client.get("/api/view", headers={TOKEN_HEADER: token})
    assert r.status_code == 409 and "the game stopped" in r.get_json()["error"]
    token2, v2 = _start(client)  # other games go on
    assert client.get("/api/view", headers={TOKEN_HEADER: token2}).status_code == 200


def test_deals_are_secret_unless_the_server_was_given_a_seed(tmp_path):
    """A player who knows the deal seed can rebuild every hand: by default seeds are drawn from
    ``secrets`` and a request may not choose one."""
    server = Server(["random"], players=3, humans=[0], records=None)
    client = create_app(server).test_client()
    _, v1 = _start(client)
    _, v2 = _start(client)
    s1, s2 = (server.tables[v["game"]].seed for v in (v1, v2))
    assert s1 != s2 and abs(s2 - s1) != 1
    r = client.post("/api/games", json={"seed": 3})
    assert r.status_code == 403 and "start it with --seed" in r.get_json()["error"]


def test_a_full_server_refuses_a_new_game_rather_than_drop_one_in_play(server, monkeypatch):
    import saboteur_experiments.web.server as srv

    monkeypatch.setattr(srv, "MAX_GAMES", 2)
    client = create_app(server).test_client()
    tokens = [_start(client)[0] for _ in range(2)]
    r = client.post("/api/games", json={})
    assert r.status_code == 503 and "games in play" in r.get_json()["error"]
    for t in tokens:
        assert client.get("/api/view", headers={TOKEN_HEADER: t}).status_code == 200
    # a game nobody has asked for in IDLE_S seconds (a closed tab) makes room; the other stays
    first = server.seat_of(tokens[0])[0]
    first.last_active -= srv.IDLE_S
    t3 = _start(client)[0]
    assert client.get("/api/view", headers={TOKEN_HEADER: tokens[0]}).status_code == 403
    for t in (tokens[1], t3):
        assert client.get("/api/view", headers={TOKEN_HEADER: t}).status_code == 200


def test_concurrent_games_get_right_masks(tmp_path):
    """Requests of two games in two threads: the shared codec's mask buffer and the encoder's
    caches are used one request at a time (every legal move is accepted)."""
    import threading

    server = Server(["random"], players=3, humans=[0, 1, 2], records=None)
    app = create_app(server)
    errors: list = []

    def play(k: int) -> None:
        client = app.test_client()
        r = client.post("/api/games", json={}).get_json()
        gid = r["game"] if "game" in r else r["view"]["game"]
        tokens = {r["seat"]: r["token"]}
        for _ in range(2):
            j = client.post(f"/api/games/{gid}/join").get_json()
            tokens[j["seat"]] = j["token"]
        rng = np.random.default_rng(k)
        for _ in range(40):
            seat = server.tables[gid].game.current
            v = client.get("/api/view", headers={TOKEN_HEADER: tokens[seat]}).get_json()
            if v.get("game_over") or not v["moves"]:
                break
            m = v["moves"][int(rng.integers(len(v["moves"])))]["index"]
            resp = client.post(
                "/api/move", json={"action": m}, headers={TOKEN_HEADER: tokens[seat]}
            )
            if resp.status_code != 200:
                errors.append(resp.get_json())

    threads = [threading.Thread(target=play, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_seat_sees_the_role_it_inspected_and_no_one_else_does():
    """Saboteur 2 Inspection (RULES 6.5): the inspector's view names the role it saw."""
    g = Game(GameConfig(num_players=5, expansion=True), 3)
    g.inspected[0, 2] = 1
    roles = g.rules.roles
    assert view(g, 0)["seats"][2]["inspected"] == roles[1]
    assert view(g, 1)["seats"][2]["inspected"] is None
    assert all(s["inspected"] is None for s in view(g, 0)["seats"] if s["seat"] != 2)


def test_a_record_that_cannot_be_written_leaves_the_last_move_played(tmp_path, capsys, monkeypatch):
    """The records folder cannot be made (a file is in the way): the game's last move is
    still played and answered (200, ``recorded`` false), the failure said on stderr; and
    ``saboteur serve`` refuses such a folder at start-up."""
    blocked = tmp_path / "file"
    blocked.write_text("")
    server = Server(["random"], players=3, rounds=1, humans=[0], seed=4, records=blocked / "sub")
    client = create_app(server).test_client()
    token, v = _start(client)
    while not v["game_over"]:
        r = client.post(
            "/api/move", json={"action": v["moves"][0]["index"]}, headers={TOKEN_HEADER: token}
        )
        assert r.status_code == 200, r.get_json()
        v = r.get_json()
    assert v["game_over"] and not v["recorded"]
    assert "not recorded" in capsys.readouterr().err
    import saboteur_experiments.web.server as srv

    def refuse(path, exist_ok=False):  # a folder the checks pass that still cannot be made
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(srv.os, "makedirs", refuse)
    with pytest.raises(SystemExit) as e:
        srv.main(["--records", str(tmp_path / "rec")])
    assert e.value.code == 2
    assert f"--records {tmp_path / 'rec'}: Permission denied" in capsys.readouterr().err
