"""Game records: a versioned JSON Lines format, written from a played game and replayed
state by state through the engine.

Format ``saboteur-record`` version 2
=====================================

A record is a UTF-8 text file, one JSON object per line; every object has a ``"type"``.

1. The **header** (exactly one, the first line)::

       {"type": "header", "format": "saboteur-record", "version": 2,
        "engine": "0.1.0", "config": {...every GameConfig option...},
        "seed": 7, "agents": ["random", "heuristic", ...], "agent_seeds": [7000, ...],
        "meta": {...}}

   ``config`` holds every :class:`~saboteur_env.engine.config.GameConfig` option
   (``board_window`` as a list), ``seed`` is the deal seed (``Game(config, seed)`` /
   ``env.reset(seed=seed)``), ``agents`` one name per seat.  ``agent_seeds`` (optional) and
   ``meta`` (optional, free form) are informative only.
2. One **decision** line per action taken, in order::

       {"type": "decision", "i": 0, "round": 0, "turn": 0, "seat": 2, "action": 1234,
        "text": "place B05 NES at (1, 0)"}

   ``i`` counts decisions from 0, ``seat`` is the absolute seat that acted, ``action`` the flat
   index of :class:`~saboteur_env.encoding.codec.Codec` for this config (relative target seats,
   DESIGN 3), ``round`` / ``turn`` where it happened (``turn``: the 0-based turn of the round
   the decision belongs to; in Saboteur 2 a pass or removal of several cards is one turn, and
   the round-end thefts carry the last turn's number; records written before this version of
   the writer, still format version 2, counted a Saboteur 2 decision as a turn: nothing reads
   ``turn`` back).  ``text`` is for people; replay checks it is the action's.
3. A **round_end** line after the decision that ended each round: the engine's round result
   (:meth:`~saboteur_env.engine.events.RoundResult.as_dict`: ``round``, ``gold_found``,
   ``winning_side``, ``winners``, ``connector``, ``roles``, ``received``, ``last_card_seat``,
   ``turns``; Saboteur 2 adds ``paid``, ``pass_blue``, ``pass_green``, ``crystals``,
   ``trapped``, ``thefts``, RULES 6.9).
4. A **game_end** line when the game is over (``gold``, ``winners``, ``decisions``), or
   ``{"type": "truncated", "decisions": k}`` when it stopped early (``max_cycles``).
5. (Version 2, optional: ``write_record(..., events=True)``.)  One **event** line per engine
   event, in order, each right after the decision that caused it (the deal's events first)::

       {"type": "event", "after": 3, "event": "tool_broken", "seat": 1,
        "data": {"kind": 60, "target": 4, "tool": 0}, "visible_to": null}

   ``after`` is the number of decisions applied when it happened (0 = the deal), ``event``,
   ``seat``, ``data`` and ``visible_to`` are the :class:`~saboteur_env.engine.events.Event` fields
   (``visible_to`` null: public; else private to that seat).  With them a record holds the full
   history, public and private, and the true roles of every round (``role_dealt`` events and
   ``round_end`` lines) without the engine; :func:`replay` checks them against the engine
   (Saboteur 2's ``round_scored`` event, which opens a theft phase, only where the record
   holds one: records written before it existed replay unchanged).

Replaying (:func:`replay`) builds ``Game(config, seed)`` and applies every decision with the
engine's checked ``apply``; the game's single generator makes the deals of later rounds the
same, so every state is reproduced exactly.  Round results (and the recorded events, version 2)
are compared with the record and a mismatch raises :class:`RecordError`.  Readers accept any
version up to :data:`FORMAT_VERSION` and refuse newer ones; unknown line types are ignored (a
later version may add lines, e.g. Saboteur 2 round-end decisions, without breaking old readers).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .encoding.codec import Codec
from .engine.actions import IllegalActionError, actions_from_events
from .engine.actions import describe as describe_action
from .engine.config import GameConfig
from .engine.events import Event, EventType, RoundResult
from .engine.state import Game

FORMAT = "saboteur-record"
FORMAT_VERSION = 2


#: event types added after version 2 records were first written: a record that holds none
#: of them is replayed without comparing them (Saboteur 2's ``round_scored``)
_NEWER = frozenset({EventType.ROUND_SCORED})


class RecordError(ValueError):
    """A record that cannot be read or does not replay (the message says which line and why)."""


@dataclass
class Record:
    """A game record in memory.

    Attributes:
        config: the :class:`GameConfig`.
        seed: the deal seed.
        agents: one name per seat.
        decisions: ``[{"seat", "action", "round", "turn", "i", "text"}, ...]`` in order.
        rounds: the round results, in order.
        end: the ``game_end`` / ``truncated`` line, or ``None``.
        header: the raw header (``agent_seeds``, ``meta``, ``version``...).
        events: the recorded ``(after, Event)`` pairs (version 2 ``event`` lines; empty when
            the record was written without them).
    """

    config: GameConfig
    seed: int
    agents: list[str]
    decisions: list[dict] = field(default_factory=list)
    rounds: list[dict] = field(default_factory=list)
    end: dict | None = None
    header: dict = field(default_factory=dict)
    events: list = field(default_factory=list)


# --- writing ------------------------------------------------------------------------------
def config_dict(config: GameConfig) -> dict:
    """Every option of ``config`` as JSON-ready values (:meth:`GameConfig.options`)."""
    return config.options()


def _plain(x):
    """JSON-ready copy of event data (numpy scalars and tuples become ints and lists)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if hasattr(x, "item"):
        return x.item()
    return x


def _event_line(after: int, e: Event) -> dict:
    return {
        "type": "event",
        "after": after,
        "event": e.type,
        "seat": _plain(e.seat),
        "data": _plain(e.data),
        "visible_to": _plain(e.visible_to),
    }


def record_lines(
    game: Game,
    seed: int,
    agents: Sequence[str] | None = None,
    *,
    agent_seeds: Sequence[int] | None = None,
    meta: dict | None = None,
    events: bool = False,
) -> list[dict]:
    """The record of ``game`` (dealt by ``Game(game.config, seed)`` and played from its start)
    as a list of JSON-ready dicts, header first.

    Raises:
        RecordError: ``seed`` is not an int (a game dealt without a seed cannot be replayed),
            or ``game``'s decisions do not replay on ``Game(game.config, seed)`` (another
            seed's deal, or a game not played from its start).
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RecordError(f"seed={seed!r}: only a game dealt from an int seed can be recorded")
    cfg = game.config
    codec = Codec(cfg)
    names = list(agents) if agents is not None else [f"seat_{s}" for s in range(game.n)]
    if len(names) != game.n:
        raise RecordError(f"{len(names)} agent names for {game.n} seats")
    header = {
        "type": "header",
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "engine": _engine_version(),
        "config": config_dict(cfg),
        "seed": seed,
        "agents": names,
    }
    if agent_seeds is not None:
        header["agent_seeds"] = [int(s) for s in agent_seeds]
    if meta:
        header["meta"] = meta
    lines = [header]
    results = {r.round: r.as_dict() for r in game.round_results}
    # the decisions replayed on a fresh deal: the engine's own grouping of the events by the
    # decision that caused them (as replay() groups them) and its count of the turns
    g = Game(cfg, seed)
    if events:
        lines += [_event_line(0, e) for e in g.events]
    i = 0
    for seat, a in actions_from_events(game.events):
        lines.append(
            {
                "type": "decision",
                "i": i,
                "round": g.round,
                # the turn it belongs to: the next one, or the last begun for a decision that
                # opens none (a Saboteur 2 pass's or removal's further cards, the thefts)
                "turn": g.turn if g.opens_turn else g.turn - 1,
                "seat": seat,
                "action": codec.encode(a, seat, game.n),
                "text": describe_action(a),
            }
        )
        i += 1
        try:
            caused = g.apply(a)
        except IllegalActionError as err:  # the game was dealt from another seed
            raise RecordError(
                f"decision {i - 1} ({describe_action(a)}) does not replay on Game(config, "
                f"{seed}): the game was not dealt from seed {seed} or not played from its "
                f"start ({err})"
            ) from None
        for e in caused:
            if events:
                lines.append(_event_line(i, e))
            if e.type is EventType.ROUND_END:
                lines.append({"type": "round_end", **results[e.data["round"]]})
    if game.game_over:
        lines.append(
            {
                "type": "game_end",
                "gold": game.gold.tolist(),
                "winners": game.winners(),
                "decisions": i,
            }
        )
    else:
        lines.append({"type": "truncated", "decisions": i})
    return lines


def write_record(
    dest,
    game: Game,
    seed: int,
    agents: Sequence[str] | None = None,
    *,
    agent_seeds: Sequence[int] | None = None,
    meta: dict | None = None,
    events: bool = False,
) -> None:
    """Write the record of ``game`` to ``dest`` (a path or a text stream), JSON Lines;
    ``events=True`` adds every engine event with its visibility (version 2 ``event`` lines).

    ``game`` must have been created as ``Game(config, seed)`` (what ``env.reset(seed=seed)``
    does) and played from its start; the decisions are recovered from ``game.events``.
    """
    text = "".join(
        json.dumps(line, separators=(",", ":")) + "\n"
        for line in record_lines(
            game, seed, agents, agent_seeds=agent_seeds, meta=meta, events=events
        )
    )
    if isinstance(dest, (str, os.PathLike)):
        with open(dest, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        dest.write(text)


def _engine_version() -> str:
    try:
        from . import __version__

        return __version__
    except ImportError:  # pragma: no cover
        return "unknown"


# --- reading ------------------------------------------------------------------------------
def read_record(src) -> Record:
    """Read a record from a path, a text stream or a string holding the JSON lines.

    Raises:
        RecordError: not a record, a newer format version, a header field of the wrong type
            (``version``/``seed`` not an int, ``agents`` not a list of names), or a malformed
            line.
    """
    if isinstance(src, (str, os.PathLike)) and (not isinstance(src, str) or "\n" not in src):
        with open(src, encoding="utf-8") as f:
            text = f.read()
    elif isinstance(src, str):
        text = src
    else:
        text = src.read()
    lines = []
    for n, raw in enumerate(io.StringIO(text), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as err:
            raise RecordError(f"line {n}: not JSON ({err})") from err
        if not isinstance(obj, dict) or "type" not in obj:
            raise RecordError(f"line {n}: expected a JSON object with a 'type'")
        lines.append((n, obj))
    if not lines or lines[0][1]["type"] != "header":
        raise RecordError("the first line must be the header ({'type': 'header', ...})")
    h = lines[0][1]
    if h.get("format") != FORMAT:
        raise RecordError(f"format {h.get('format')!r} is not {FORMAT!r}")
    version = h.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise RecordError(f"line 1: header field 'version' must be an int, got {version!r}")
    if not 1 <= version <= FORMAT_VERSION:
        raise RecordError(
            f"format version {version!r} is not supported (this reader knows 1..{FORMAT_VERSION})"
        )
    for key in ("config", "seed", "agents"):
        if key not in h:
            raise RecordError(f"line 1: the header has no {key!r} field")
    seed, names = h["seed"], h["agents"]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RecordError(f"line 1: header field 'seed' must be an int, got {seed!r}")
    if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
        raise RecordError(
            f"line 1: header field 'agents' must be a list of names (str), got {names!r}"
        )
    if not isinstance(h["config"], dict):
        raise RecordError(f"line 1: header field 'config' must be an object, got {h['config']!r}")
    try:
        cfg = dict(h["config"])
        cfg["board_window"] = tuple(cfg["board_window"])
        config = GameConfig.from_kwargs(**cfg)
        rec = Record(config, seed, list(names), header=h)
    except (KeyError, TypeError, ValueError) as err:
        raise RecordError(f"line 1: bad header ({err})") from err
    for n, obj in lines[1:]:
        t = obj["type"]
        if t == "decision":
            if not isinstance(obj.get("seat"), int) or not isinstance(obj.get("action"), int):
                raise RecordError(f"line {n}: a decision needs int 'seat' and 'action'")
            if obj.get("i", len(rec.decisions)) != len(rec.decisions):
                raise RecordError(
                    f"line {n}: decision 'i' is {obj['i']!r}; decisions are numbered in order, "
                    f"so this one is {len(rec.decisions)}"
                )
            rec.decisions.append(obj)
        elif t == "round_end":
            rec.rounds.append({k: v for k, v in obj.items() if k != "type"})
        elif t in ("game_end", "truncated"):
            rec.end = obj
        elif t == "event":
            try:
                rec.events.append(
                    (
                        int(obj["after"]),
                        Event(
                            EventType(obj["event"]),
                            obj.get("seat"),
                            obj.get("data") or {},
                            obj.get("visible_to"),
                        ),
                    )
                )
            except (KeyError, TypeError, ValueError) as err:
                raise RecordError(f"line {n}: bad event line ({err})") from err
    return rec


# --- replaying ----------------------------------------------------------------------------
@dataclass
class ReplayStep:
    """One state of a replay.

    Attributes:
        index: decisions applied so far (0 = the deal).
        game: the state after them (a copy when ``copy=True``; do not keep the live one).
        seat: the seat that took the last decision (``None`` at index 0).
        action: its flat index; ``structured`` the decoded action; ``text`` in words.
        events: the events that decision caused (public and private).
        round_result: the :class:`~saboteur_env.engine.events.RoundResult` of the round the
            decision ended, else ``None``.
    """

    index: int
    game: Game
    seat: int | None = None
    action: int | None = None
    structured: object = None
    text: str = ""
    events: list = field(default_factory=list)
    round_result: RoundResult | None = None


def replay(record: Record | str, *, copy: bool = True) -> Iterator[ReplayStep]:
    """Replay a record through the engine, yielding the deal and the state after every
    decision.

    Args:
        record: a :class:`Record` or anything :func:`read_record` accepts.
        copy: yield independent copies of the state (``False``: the live game, faster, only
            valid until the next step).

    Raises:
        RecordError: a decision by the wrong seat, an illegal action, or a round result or
            game end (gold, winners) that differs from the recorded one (the record does not
            belong to this engine/config, or was edited).
    """
    rec = record if isinstance(record, Record) else read_record(record)
    game = Game(rec.config, rec.seed)
    codec = Codec(rec.config)
    if len(rec.agents) != game.n:
        raise RecordError(f"{len(rec.agents)} agent names for {game.n} seats")
    recorded: dict[int, list] = {}
    for after, e in rec.events:
        recorded.setdefault(after, []).append(e)
    # a record written before Saboteur 2's round_scored event (none in it) is compared
    # without it
    unknown = set() if any(e.type is EventType.ROUND_SCORED for _, e in rec.events) else _NEWER

    def check_events(k: int, events) -> None:
        if rec.events and [_event_line(k, e) for e in events if e.type not in unknown] != [
            _event_line(k, e) for e in recorded.get(k, [])
        ]:
            raise RecordError(
                f"after decision {k}: the replayed events differ from the recorded ones"
            )

    check_events(0, game.events)
    yield ReplayStep(0, game.copy() if copy else game, events=list(game.events))
    for k, d in enumerate(rec.decisions):
        seat = d["seat"]
        if game.game_over:
            raise RecordError(f"decision {k}: the game is already over")
        if seat != game.current:
            raise RecordError(
                f"decision {k}: seat {seat} acted, but it is seat "
                f"{game.current}'s turn in the replay"
            )
        try:
            a = codec.decode(d["action"], seat, game.n)
            n_results = len(game.round_results)
            events = game.apply(a)
        except (IllegalActionError, ValueError) as err:
            raise RecordError(f"decision {k} (action {d['action']}): {err}") from err
        if "text" in d and d["text"] != describe_action(a):
            raise RecordError(
                f"decision {k} (action {d['action']}): the record's text {d['text']!r} is not "
                f"the action's, {describe_action(a)!r}"
            )
        result = None
        if len(game.round_results) > n_results:
            result = game.round_results[-1]
            i = result.round
            if i < len(rec.rounds):
                fields = result.as_dict()
                want = {key: rec.rounds[i][key] for key in fields if key in rec.rounds[i]}
                got = {key: fields[key] for key in want}
                if json.loads(json.dumps(got)) != want:
                    raise RecordError(
                        f"round_end of round {i}: the replay gives {got}, the record says {want}"
                    )
        check_events(k + 1, events)
        yield ReplayStep(
            k + 1,
            game.copy() if copy else game,
            seat,
            d["action"],
            a,
            describe_action(a),
            events,
            result,
        )
    if rec.end is None:
        raise RecordError(
            f"the record ends after {len(rec.decisions)} decisions without its game_end or "
            "truncated line (a cut-off file?)"
        )
    if rec.end.get("type") == "truncated":
        if game.game_over or rec.end.get("decisions") != len(rec.decisions):
            raise RecordError(
                f"the truncated line says {rec.end.get('decisions')!r} decisions; the replay "
                f"played {len(rec.decisions)}"
                + (" and the game is over (a game_end line was due)" if game.game_over else "")
            )
    if rec.end.get("type") == "game_end":
        if rec.end.get("decisions", len(rec.decisions)) != len(rec.decisions):
            raise RecordError(
                f"the game_end line says {rec.end['decisions']!r} decisions; the record has "
                f"{len(rec.decisions)}"
            )
        want = {key: rec.end[key] for key in ("gold", "winners") if key in rec.end}
        got = {"gold": game.gold.tolist(), "winners": game.winners()} if game.game_over else {}
        got = {key: got[key] for key in want if key in got}
        if not game.game_over or json.loads(json.dumps(got)) != want:
            raise RecordError(
                "the game end differs: the replay gives "
                + (str(got) if game.game_over else "an unfinished game")
                + f", the record says {want}"
            )


def replay_game(record: Record | str) -> Game:
    """The final state of a replayed record."""
    last = None
    for step in replay(record, copy=False):
        last = step
    return last.game


__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Record",
    "RecordError",
    "ReplayStep",
    "actions_from_events",
    "config_dict",
    "read_record",
    "record_lines",
    "replay",
    "replay_game",
    "write_record",
]
