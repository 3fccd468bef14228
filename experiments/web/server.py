"""``saboteur serve``: play Saboteur in the browser against agents (a small Flask app).

One game per browser session: ``POST /api/games`` deals a game and gives the browser a session
token for the first human seat; every other human seat of that game is handed out once, by
``POST /api/games/<game>/join`` (another browser, or a second tab).  The agents play their
seats at once; the game waits for a human seat to act.  Each request names its token in the
``X-Saboteur-Token`` header.  The server sends a token's seat only :func:`.view.view` of that
seat (what the seat may know, DESIGN 4), refuses a move for any other seat (403), a move out of
turn (409) and an illegal move (400, the rule named), leaving the state unchanged; every error
is a 4xx JSON ``{"error": "..."}``, never a traceback.  A finished game is written with the
record writer (:func:`saboteur_env.record.write_record`, with events) to the records folder as
``human_<game>.jsonl``, header ``meta`` ``{"population": "human", "human_seats": [...]}``:
``saboteur bluff --records DIR`` scores such a folder as a population.

Routes: ``GET /`` (the play page), ``GET /static/<file>``, ``GET /api/config``,
``POST /api/games``, ``POST /api/games/<game>/join``, ``GET /api/view``, ``POST /api/move``
(``{"action": index}``, optional ``"seat"``).
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import EventType
from saboteur_env.engine.state import Game, IllegalActionError
from saboteur_experiments.evaluation.splits import agent_seed
from saboteur_experiments.human import round_result_text

from .view import maze, view

STATIC = Path(__file__).with_name("static")
TOKEN_HEADER = "X-Saboteur-Token"
#: most games one server keeps in memory (the oldest finished ones are dropped first, then
#: the one left longest without a request, if that is at least IDLE_S)
MAX_GAMES = 64
#: seconds without a request (a view or a move of any of its seats) after which a game in
#: play may be dropped to make room for a new one: a closed tab's game does not hold its
#: place for ever
IDLE_S = 30 * 60


class RequestError(Exception):
    """A bad request: the HTTP status (4xx) and the message sent as ``{"error": message}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Table:
    """One game being played: the live :class:`Game`, its agents (``None`` at human seats),
    the seat of each session token and the events each agent has not yet been shown."""

    id: str
    game: Game
    seed: int
    names: list[str]
    agents: list
    humans: list[int]
    tokens: dict[str, int] = field(default_factory=dict)
    pending: list[list] = field(default_factory=list)
    recorded: str | None = None
    #: the server's lock (every game shares the server's codec and encoder, whose caches and
    #: mask buffer are not thread-safe: one request at a time touches a game)
    lock: threading.RLock = field(default_factory=threading.RLock)
    #: why the game stopped (an agent failed), or ``None``
    broken: str | None = None
    agent_seeds: list[int] = field(default_factory=list)
    #: ``time.monotonic()`` of its last request (:meth:`Server.seat_of`) or its deal
    last_active: float = field(default_factory=time.monotonic)
    #: per human seat, the last finished round's final maze and result as that seat saw them
    #: (the game already holds the next deal): ``{"round", "maze", "result"}``
    last_round: dict[int, dict] = field(default_factory=dict)

    def free_seats(self) -> list[int]:
        return [s for s in self.humans if s not in self.tokens.values()]


class Server:
    """The games of one ``saboteur serve`` process.

    Args:
        agents: agent specs, cycled over the non-human seats.
        players / expansion / rounds: the game (:class:`GameConfig` options).
        humans: the human seats (at least one).
        seed: deal seed of the first game; game ``k`` is dealt from ``seed + k`` (for tests and
            debugging: a player who knows the seed can rebuild the deal).  ``None`` (the
            default): every deal and agent seed is drawn from :mod:`secrets`, and a request
            may not choose one.
        records: folder for the records of finished games (``None``: not recorded).

    Raises:
        ValueError: a bad option (a seat out of range, no human seat, an unknown agent spec).
    """

    def __init__(
        self,
        agents: Sequence[str] = ("heuristic",),
        *,
        players: int = 5,
        expansion: bool = False,
        rounds: int = 3,
        humans: Sequence[int] = (0,),
        seed: int | None = None,
        records: str | Path | None = None,
    ) -> None:
        from saboteur_agents import make_agent

        self.config = GameConfig(num_players=players, expansion=expansion, num_rounds=rounds)
        humans = sorted(dict.fromkeys(int(h) for h in humans))
        if not humans:
            raise ValueError("at least one human seat")
        bad = [h for h in humans if not 0 <= h < players]
        if bad:
            raise ValueError(f"human seat {bad[0]}: the seats are 0..{players - 1}")
        self.specs = list(agents)
        for spec in self.specs:
            make_agent(spec)  # an unknown spec fails here, not in a request
        self.humans = humans
        self.seed = seed
        self.records = Path(records) if records is not None else None
        self.codec = Codec(self.config)
        self.encoder = ObservationEncoder(self.config)
        self.tables: dict[str, Table] = {}
        self._count = 0
        self._lock = threading.RLock()

    # --- games ------------------------------------------------------------------------
    def new_game(self, seed: int | None = None) -> tuple[Table, str]:
        """Deal a new game, play the agents up to the first human decision; returns the table
        and the session token of its first human seat."""
        from saboteur_agents import make_agent
        from saboteur_agents.base import attach_game

        with self._lock:
            if seed is not None and self.seed is None:
                raise RequestError(
                    403, "this server deals secret seeds: start it with --seed to choose deals"
                )
            if len(self.tables) >= MAX_GAMES:
                old = next((k for k, t in self.tables.items() if t.game.game_over), None)
                if old is None:  # a game in play only once nobody has asked for it a while
                    k, t = min(self.tables.items(), key=lambda kt: kt[1].last_active)
                    if time.monotonic() - t.last_active >= IDLE_S:
                        old = k
                if old is None:
                    raise RequestError(
                        503,
                        f"the server holds {MAX_GAMES} games in play; finish one first (a game "
                        f"with no request for {IDLE_S // 60} minutes makes room)",
                    )
                del self.tables[old]
            if seed is None:
                seed = secrets.randbits(62) if self.seed is None else self.seed + self._count
            self._count += 1
            gid = secrets.token_hex(8)
        game = Game(self.config, seed)
        n = game.n
        others = [s for s in range(n) if s not in self.humans]
        # the project's agent seeds of deal ``seed`` (recorded, so the game replays)
        agent_seeds = [agent_seed(0, seed, 0, s) for s in range(n)]
        agents: list = [None] * n
        names = ["human"] * n
        for s in others:
            a = make_agent(self.specs[others.index(s) % len(self.specs)])
            a.reset(s, self.config, seed=agent_seeds[s])
            agents[s] = a
            names[s] = a.name
        attach_game([a for a in agents if a is not None], game)
        t = Table(gid, game, seed, names, agents, list(self.humans), lock=self._lock)
        t.agent_seeds = agent_seeds
        t.pending = [[] for _ in range(n)]
        self._route(t, game.events)
        token = secrets.token_urlsafe(24)
        t.tokens[token] = self.humans[0]
        with t.lock:
            self._run_agents(t)
        with self._lock:
            self.tables[gid] = t
        return t, token

    def join(self, gid: str) -> tuple[Table, str, int]:
        """A token for the next free human seat of game ``gid``.

        Raises:
            RequestError: 404 no such game, 409 every human seat is taken."""
        t = self.tables.get(gid)
        if t is None:
            raise RequestError(404, f"no game {gid!r} on this server")
        with t.lock:
            free = t.free_seats()
            if not free:
                raise RequestError(409, f"game {gid}: every human seat is taken")
            token = secrets.token_urlsafe(24)
            t.tokens[token] = free[0]
        return t, token, free[0]

    def seat_of(self, token: str | None) -> tuple[Table, int]:
        """The table and seat of a session token.

        Raises:
            RequestError: 401 no token, 403 a token this server never gave."""
        if not token:
            raise RequestError(401, f"no session token: send the {TOKEN_HEADER} header")
        for t in list(self.tables.values()):
            if token in t.tokens:
                t.last_active = time.monotonic()
                return t, t.tokens[token]
        raise RequestError(403, "unknown session token (start or join a game first)")

    def payload(self, t: Table, seat: int) -> dict:
        """What the server sends seat ``seat``: :func:`.view.view` of that seat and the game
        id, its human seats, those not yet joined, whether it was recorded and ``last_round``
        (the last finished round's final maze and result as the seat saw them,
        :attr:`Table.last_round`; ``None`` before a round ends and once the game is over)
        (nothing else)."""
        with t.lock:  # the shared codec and encoder: one request at a time (join, new game too)
            v = view(t.game, seat, t.names, codec=self.codec)
            v["game"] = t.id
            v["humans"] = list(t.humans)
            v["open_seats"] = t.free_seats()  # human seats nobody has joined yet
            v["recorded"] = t.recorded is not None
            v["last_round"] = None if t.game.game_over else t.last_round.get(seat)
        return v

    def move(self, token: str | None, body) -> tuple[Table, int]:
        """Play ``body["action"]`` (a flat action index) for the token's seat, then the agents.

        Raises:
            RequestError: 400 a malformed body or an illegal action (the rule named), 403 a
                ``seat`` in the body that is not the token's, 409 not this seat's turn or the
                game is over.  The state is unchanged in every case."""
        t, seat = self.seat_of(token)
        if not isinstance(body, dict):
            raise RequestError(400, 'the body must be a JSON object {"action": index}')
        if "seat" in body and body["seat"] != seat:
            raise RequestError(
                403, f"seat {body['seat']!r} is not yours: this session plays seat {seat}"
            )
        a = body.get("action")
        if isinstance(a, bool) or not isinstance(a, int):
            raise RequestError(400, f"'action' must be an int action index, got {a!r}")
        with t.lock:
            g = t.game
            self._check_running(t)
            if g.game_over:
                raise RequestError(409, "the game is over")
            if g.current != seat:
                raise RequestError(409, f"it is seat {g.current}'s turn, not yours (seat {seat})")
            if not 0 <= a < self.codec.n:
                raise RequestError(400, f"action {a} is outside 0..{self.codec.n - 1}")
            if not self.codec.mask(g, seat)[a]:
                try:  # the rule that forbids it (an index may name a seat not in play)
                    structured = self.codec.decode(a, seat, g.n)
                    what, why = self.codec.describe(a, seat, g.n), g.check(structured, seat)
                except ValueError as err:
                    what, why = f"action {a}", str(err)
                raise RequestError(400, f"illegal move {what!r}: {why or 'not offered'}")
            structured = self.codec.decode(a, seat, g.n)
            try:
                events = self._play(t, structured)
            except IllegalActionError as err:  # pragma: no cover (checked above)
                raise RequestError(400, f"illegal move: {err}") from None
            t.pending[seat] = []
            self._route(t, events)
            self._run_agents(t)
        return t, seat

    # --- internals ----------------------------------------------------------------------
    @staticmethod
    def _play(t: Table, action) -> list:
        """Apply ``action`` (structured) to ``t``'s game and return its events; when it ends a
        round, keep each human seat's view of that round's final maze (with the map results
        it had, which the next deal forgets) and result in :attr:`Table.last_round`.

        Raises:
            IllegalActionError: ``action`` is illegal (nothing changed)."""
        g = t.game
        known = {s: g.known_goals[s].copy() for s in t.humans}
        events = g.apply(action)
        if any(e.type is EventType.ROUND_END for e in events):
            res = g.round_results[-1]
            t.last_round = {
                s: {
                    "round": res.round + 1,
                    "maze": maze(g, s, board=g.round_boards[res.round], known=known[s]),
                    "result": round_result_text(res, s, g.game_over, g.rules),
                }
                for s in t.humans
            }
        return events

    @staticmethod
    def _route(t: Table, events) -> None:
        for e in events:
            for s in range(t.game.n):
                if e.seen_by(s):
                    t.pending[s].append(e)

    @staticmethod
    def _check_running(t: Table) -> None:
        """Raises RequestError 409 for a game an agent's failure stopped."""
        if t.broken is not None:
            raise RequestError(409, f"the game stopped: {t.broken}; start a new game")

    def _run_agents(self, t: Table) -> None:
        """Play the agents' seats up to a human decision or the end (then write the record).
        An agent that fails or plays an illegal move (its bug: never replaced by another move)
        stops the game: :attr:`Table.broken` says why, and every later request gets 409."""
        g = t.game
        while not g.game_over and g.current not in t.humans:
            s = g.current
            try:
                obs = self.encoder.encode(g, s)
                mask = self.codec.mask(g, s)
                a = int(t.agents[s].act(obs, mask, {"events": list(t.pending[s])}))
                events = self._play(t, self.codec.decode(a, s, g.n))  # verified
            except Exception as err:  # noqa: BLE001 - any agent failure stops this game only
                t.broken = f"the agent of seat {s} ({t.names[s]}) failed: {err}"
                raise RequestError(500, t.broken) from None
            t.pending[s] = []
            self._route(t, events)
        if g.game_over and t.recorded is None and self.records is not None:
            from saboteur_env.record import write_record

            path = self.records / f"human_{t.id}.jsonl"
            try:
                self.records.mkdir(parents=True, exist_ok=True)
                write_record(
                    str(path),
                    g,
                    t.seed,
                    t.names,
                    agent_seeds=t.agent_seeds,
                    meta={"population": "human", "human_seats": list(t.humans)},
                    events=True,
                )
            except OSError as err:  # the move stands: the game is over, only its record is lost
                print(f"saboteur serve: game {t.id} not recorded: {err}", file=sys.stderr)
                return
            t.recorded = str(path)


def create_app(server: Server):
    """The Flask app of ``server`` (routes in the module docstring)."""
    from flask import Flask, Response, request, send_from_directory
    from werkzeug.exceptions import HTTPException

    app = Flask("saboteur_serve", static_folder=None)

    def reply(obj: dict, status: int = 200) -> Response:
        return Response(json.dumps(obj, sort_keys=True), status=status, mimetype="application/json")

    @app.errorhandler(RequestError)
    def _bad(err: RequestError):
        return reply({"error": err.message}, err.status)

    @app.errorhandler(HTTPException)
    def _http(err: HTTPException):
        return reply({"error": f"{err.name}: {err.description}"}, err.code or 400)

    @app.errorhandler(Exception)
    def _crash(err: Exception):  # never a traceback to the browser
        app.logger.exception("internal error")
        return reply({"error": f"internal error ({type(err).__name__})"}, 500)

    def body() -> dict:
        if not request.get_data():
            return {}
        # read as JSON whatever the Content-Type (curl -d sends a form's)
        data = request.get_json(force=True, silent=True)
        if not isinstance(data, dict):
            raise RequestError(400, "the body is not a JSON object")
        return data

    @app.get("/")
    def index():
        return send_from_directory(STATIC, "play.html")

    @app.get("/static/<path:name>")
    def static_file(name: str):
        return send_from_directory(STATIC, name)

    @app.get("/api/config")
    def config():
        c = server.config
        return reply(
            {
                "players": c.num_players,
                "expansion": c.expansion,
                "rounds": c.num_rounds,
                "humans": server.humans,
                "agents": server.specs,
            }
        )

    @app.post("/api/games")
    def new_game():
        data = body()
        if not isinstance(data, dict):
            raise RequestError(400, "the body must be a JSON object")
        seed = data.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise RequestError(400, f"'seed' must be a non-negative int, got {seed!r}")
        t, token = server.new_game(seed)
        seat = t.tokens[token]
        return reply({"token": token, "seat": seat, "view": server.payload(t, seat)})

    @app.post("/api/games/<gid>/join")
    def join(gid: str):
        t, token, seat = server.join(gid)
        return reply({"token": token, "seat": seat, "view": server.payload(t, seat)})

    @app.get("/api/view")
    def get_view():
        t, seat = server.seat_of(request.headers.get(TOKEN_HEADER))
        with t.lock:
            server._check_running(t)
            return reply(server.payload(t, seat))

    @app.post("/api/move")
    def move():
        t, seat = server.move(request.headers.get(TOKEN_HEADER), body())
        with t.lock:
            return reply(server.payload(t, seat))

    return app


def main(argv=None) -> None:
    """``saboteur serve``: every bad option is a usage error (exit 2) naming the option."""
    import argparse

    from saboteur_agents.base import require_extra
    from saboteur_experiments.cli_args import (
        add_game_size,
        at_least,
        check_agents,
        check_config,
        check_output_dir,
    )

    p = argparse.ArgumentParser(
        prog="saboteur serve",
        description="Play Saboteur in the browser against agents (http://HOST:PORT/).",
    )
    p.add_argument("--agents", default="heuristic", help="agent specs cycled over the seats")
    add_game_size(p)
    p.add_argument("--expansion", action="store_true", help="Saboteur 2 (RULES 6)")
    p.add_argument("--human", default="0", metavar="SEATS", help="human seats, e.g. 0 or 0,2")
    p.add_argument(
        "--seed",
        type=at_least(0),
        default=None,
        help="deal seed of the first game, then +1 per game (tests and debugging: a player who "
        "knows it can rebuild the deal; default: secret seeds)",
    )
    p.add_argument("--records", default="runs/human", metavar="DIR", help="records folder")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default: localhost only)")
    p.add_argument(
        "--port",
        type=at_least(0),
        default=8000,
        help="port (default: %(default)s; 0: a free one, named in the first line printed)",
    )
    a = p.parse_args(argv)
    check_config(p, num_players=a.players, num_rounds=a.rounds, expansion=a.expansion)
    specs = [s.strip() for s in a.agents.split(",")]
    check_agents(p, specs)
    try:
        humans = [int(h) for h in a.human.split(",")]
    except ValueError:
        p.error(f"--human {a.human}: comma-separated seat numbers, e.g. 0,2")
    for h in humans:
        if not 0 <= h < a.players:
            p.error(f"--human {a.human}: seat {h} is not a seat 0..{a.players - 1}")
    if len(set(humans)) != len(humans):
        p.error(f"--human {a.human}: a seat is repeated")
    if a.port > 65535:
        p.error(f"--port {a.port}: at most 65535")
    check_output_dir(p, a.records, "--records")
    require_extra("serve", ["flask"], "saboteur serve")
    import socket

    from werkzeug.serving import make_server, select_address_family

    # bound first, before anything is made or printed: a port in use is a usage error that
    # leaves nothing behind (werkzeug would print and exit 1), and the line printed names the
    # port taken (with --port 0 a free one)
    try:
        sock = socket.create_server((a.host, a.port), family=select_address_family(a.host, a.port))
    except OSError as err:
        p.error(f"--host {a.host} --port {a.port}: {err.strerror or err}")
    with sock:
        try:  # made now: a folder that cannot be made fails here, not at a game's last move
            os.makedirs(a.records, exist_ok=True)
        except OSError as err:
            p.error(f"--records {a.records}: {err.strerror or err}")
        server = Server(
            specs,
            players=a.players,
            expansion=a.expansion,
            rounds=a.rounds,
            humans=humans,
            seed=a.seed,
            records=a.records,
        )
        httpd = make_server(a.host, a.port, create_app(server), threaded=True, fd=sock.fileno())
    url_host = f"[{a.host}]" if ":" in a.host else a.host
    port = httpd.socket.getsockname()[1]
    print(
        f"saboteur serve: http://{url_host}:{port}/  (records in {a.records}/)",
        flush=True,
    )
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
