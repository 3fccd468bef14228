"""One viewer's view of a game as a JSON-ready dict (the data the browser pages draw).

:func:`view` reads only what the viewer may know (DESIGN 4; RULES 2.2, 3.5, 3.6, 5.3): the
public maze (face-up cards; a face-down goal card shows its identity only to a seat that has
seen it this round, RULES 3.5), the public state of every player (hand size, broken tools and
other cards in front, RULES 3.2, 6.5), the draw pile and discard pile sizes, the events the
viewer may see (:func:`saboteur_experiments.human.event_text`), and the viewer's own hand, role
and gold.  Other players' hands, roles (before the round ends, RULES 5.1), gold (before the
game ends, RULES 5.3), the draw pile's order and the face-down goals stay out; so
``json.dumps(view(game, s))`` is byte-identical for every state ``game.determinize(s, rng)``
can give (``tests/test_web.py``).  ``"spectator"`` reveals everything (debugging, replays).
"""

from __future__ import annotations

from collections.abc import Sequence

from saboteur_env.encoding.codec import Codec, legal_indices
from saboteur_env.engine.board import EMPTY, HIDDEN_GOAL
from saboteur_env.engine.cards import (
    ALL_KINDS,
    FRONT_THEFT,
    FRONT_TRAPPED,
    GOAL_CELLS,
    GOAL_GOLD,
    KIND_INDEX,
    START_CELL,
    TOOLS,
    VARIANTS,
    turns,
)
from saboteur_env.engine.events import EventType
from saboteur_env.engine.phases import Phase
from saboteur_env.engine.state import Game
from saboteur_env.render import _centre, check_known, goal_seen
from saboteur_experiments.human import event_text, round_result_text

#: what the ``kind`` of a legal move is: the codec's block name (``place``, ``rockfall``,
#: ``map``, ``tool``, ``discard``; Saboteur 2 ``xaction``, ``remove``, ``done``, ``steal``)
MOVE_KINDS = ("place", "rockfall", "map", "tool", "discard", "xaction", "remove", "done", "steal")


def _viewer(game: Game, viewer) -> int | str:
    if viewer == "spectator":
        return "spectator"
    if isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < game.n:
        raise ValueError(f"viewer={viewer!r}: a seat 0..{game.n - 1} or 'spectator'")
    return viewer


def card_info(k: int) -> dict:
    """``{"kind", "id", "name", "category"}`` of card kind ``k`` (a row of the card table)."""
    c = ALL_KINDS[k]
    return {"kind": int(k), "id": c.id, "name": c.name, "category": c.category}


def maze(game: Game, viewer, board=None, known=None) -> dict:
    """The maze as ``{"window": [x0, x1, y0, y1], "cells": [...]}`` from ``viewer``'s view.

    ``window``: the drawn extent (the cards laid, the start and the goals, one cell of margin,
    clipped to the board window).  Each cell: ``{"x", "y", "card"}`` with ``card`` ``None``
    for an empty cell, else ``{"id", "name", "openings"`` (4 bits: 1 N, 2 E, 4 S, 8 W),
    ``"segments"`` (``[[side bits, stub], ...]``), ``"symbol"`` (the text render's centre
    letter), ``"rotated"``, ``"start"``, ``"goal"`` (``None`` or ``"hidden"``, ``"gold"``,
    ``"stone"``), ``"seen"`` (a face-down goal whose identity the viewer knows: its own map
    result this round, RULES 3.5, or the spectator)``}``.  ``known``: the viewer's map
    knowledge per goal slot for a ``board`` of a finished round (what it knew when that round
    ended; by default none is shown there: ``known_goals`` already belong to the next round;
    :func:`~saboteur_env.render.goal_seen`).

    Raises:
        ValueError: ``known`` is not 3 flags.
    """
    check_known(known)
    b = game.board if board is None else board
    laid = [(x, y) for x, y, _ in b.cards()]
    xs = [x for x, _ in laid] + [START_CELL[0], GOAL_CELLS[0][0]]
    ys = [y for _, y in laid] + [GOAL_CELLS[0][1], GOAL_CELLS[2][1]]
    x0, x1 = max(min(xs) - 1, b.window[0]), min(max(xs) + 1, b.window[1])
    y0, y1 = max(min(ys) - 1, b.window[2]), min(max(ys) + 1, b.window[3])
    cells = []
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            v = int(b.variant_at(x, y))
            card = None
            if v == HIDDEN_GOAL:
                slot = GOAL_CELLS.index((x, y))
                knows = goal_seen(game, b, viewer, slot, known)
                goal = "hidden"
                if knows:
                    goal = "gold" if int(b.goal_identity[slot]) == GOAL_GOLD else "stone"
                card = {
                    "id": "goal",
                    "name": "face-down goal card",
                    "openings": 0,
                    "segments": [],
                    "symbol": "?",
                    "rotated": False,
                    "start": False,
                    "goal": goal,
                    "seen": knows,
                }
            elif v != EMPTY:
                var = VARIANTS[v]
                kind = ALL_KINDS[var.kind]
                is_goal = (x, y) in GOAL_CELLS
                card = {
                    "id": kind.id,
                    "name": kind.name,
                    "openings": int(var.openings),
                    "segments": [[int(s) & 15, bool(st)] for s, st in zip(var.segments, var.stub)],
                    "symbol": "S"
                    if (x, y) == START_CELL
                    else ("G" if kind.id == "G_GOLD" else "O")
                    if is_goal
                    else _centre(var),
                    "rotated": bool(var.rotated),
                    "start": (x, y) == START_CELL,
                    "goal": ("gold" if kind.id == "G_GOLD" else "stone") if is_goal else None,
                    "seen": False,
                }
            cells.append({"x": x, "y": y, "card": card})
    return {"window": [x0, x1, y0, y1], "cells": cells}


def legal_moves(game: Game, seat: int, codec: Codec | None = None) -> list[dict]:
    """The legal moves of ``seat`` (empty unless it is to act): ``[{"index", "text", "kind",
    "card", "cell", "target", "rotated", "turns", "goal", "tool"}, ...]`` in index order.

    ``index`` is the flat action index (the ``action_mask`` entry, :class:`Codec`), ``text``
    :meth:`Codec.describe`, ``kind`` the codec block (:data:`MOVE_KINDS`), ``card`` the hand
    card kind played (or ``None``), ``cell`` ``[x, y]`` for a placement or rockfall and the
    goal cell for a map, ``target`` the absolute seat for tool and Saboteur 2 action cards and
    thefts, ``turns`` whether a placement's card looks otherwise turned 180 degrees (``rotated``
    then says which way it lies).
    """
    codec = codec or Codec(game.config)
    if game.game_over or game.current != seat:
        return []
    mask = codec.mask(game, seat)
    out = []
    for i in legal_indices(mask).tolist():
        a = codec.decode(i, seat, game.n)
        block, _ = codec.block_of(i)
        cell = None
        if hasattr(a, "x"):
            cell = [int(a.x), int(a.y)]
        elif hasattr(a, "goal"):
            cell = list(GOAL_CELLS[int(a.goal)])
        kind = getattr(a, "kind", None)
        if block in ("rockfall", "map"):  # the hand card played (its kind is implied)
            kind = KIND_INDEX[block]
        out.append(
            {
                "index": int(i),
                "text": codec.describe(i, seat, game.n),
                "kind": block,
                "card": None if kind is None else int(kind),
                "cell": cell,
                "target": None if getattr(a, "target", None) is None else int(a.target),
                "rotated": bool(getattr(a, "rotated", False)),
                # a placement of a card that looks otherwise turned 180 degrees (the page
                # offers it only when its "rotate" box says so)
                "turns": block == "place" and turns(kind),
                "goal": None if getattr(a, "goal", None) is None else int(a.goal),
                "tool": None if getattr(a, "tool", None) is None else int(a.tool),
            }
        )
    return out


def history(game: Game, viewer, names: Sequence[str] | None = None, start: int = 0) -> list[str]:
    """The lines of the game's history that ``viewer`` may see, from event ``start`` on (the
    round results with the gold shown as :func:`round_result_text` allows)."""
    viewer = _viewer(game, viewer)
    me = viewer if isinstance(viewer, int) else None
    lines: list[str] = []
    results = 0
    for i, e in enumerate(game.events):
        if e.type is EventType.ROUND_END:
            results += 1
        if i < start:
            continue
        if e.type is EventType.ROUND_END:
            res = game.round_results[results - 1]
            lines.extend(round_result_text(res, me, game.game_over, game.rules).split("\n"))
            continue
        if e.type is EventType.GAME_END:
            lines.append(
                "=== Game over: final gold "
                + ", ".join(f"seat {s}: {int(g)}" for s, g in enumerate(game.gold))
                + f"; winners: {', '.join(map(str, game.winners()))} ==="
            )
            continue
        text = event_text(e, viewer, names, game.rules)
        if text:
            lines.append(text)
    return lines


def view(
    game: Game,
    viewer,
    names: Sequence[str] | None = None,
    *,
    codec: Codec | None = None,
    with_history: bool = True,
    with_moves: bool = True,
) -> dict:
    """Everything ``viewer`` (a seat ``0..n-1`` or ``"spectator"``) may know of ``game``, as a
    JSON-ready dict.

    Keys: ``viewer``, ``ruleset`` (title), ``expansion``, ``players`` (count), ``round``,
    ``rounds``, ``turn`` (the turn being played, from 1), ``to_act`` (seat, ``None`` once the
    game is over), ``phase``, ``game_over``, ``deck`` (cards in the draw pile), ``discards``
    (cards on the discard pile), ``maze`` (:func:`maze`), ``seats`` (per seat: ``seat``,
    ``name``, ``hand_size``, ``broken`` tool names, ``trapped``, ``theft``, ``role`` and
    ``gold`` where the viewer may know them, else ``None``, ``inspected``: the role a seat saw
    with an Inspection card, else ``None``), ``you`` (a seat's own ``seat``,
    ``role``, ``gold``, ``hand`` as :func:`card_info` dicts, ``goals_seen``; ``None`` for the
    spectator), ``spectator`` (every role, hand and gold; only for the spectator), ``history``
    (:func:`history`, when ``with_history``), ``moves`` (:func:`legal_moves` of a seat to
    act, when ``with_moves``; always ``[]`` for the spectator), ``winners``.

    Raises:
        ValueError: ``viewer`` is neither a seat in play nor ``"spectator"``.
    """
    viewer = _viewer(game, viewer)
    roles = game.rules.roles
    names = list(names) if names is not None else [f"seat {s}" for s in range(game.n)]
    spectator = viewer == "spectator"
    # roles are public once the round is over (RULES 5.1): during Saboteur 2's thefts, between
    # rounds and at the game end
    last = None
    if game.pending_result is not None:
        last = game.pending_result.roles
    elif game.roles_revealed and game.round_results:
        last = game.round_results[-1].roles
    gold_public = game.rules.public_gold_holders  # RULES 6.9
    seats = []
    for s in range(game.n):
        own = s == viewer
        role = None
        if spectator or own:
            role = roles[int(game.roles[s])]
        elif last is not None:
            role = roles[int(last[s])]
        gold = int(game.gold[s]) if (spectator or own or game.game_over) else None
        seats.append(
            {
                "seat": s,
                "name": names[s],
                "hand_size": game.hand_size(s),
                "broken": [TOOLS[t] for t in range(3) if game.broken[s, t]],
                "trapped": bool(game.front(s)[FRONT_TRAPPED]),
                "theft": bool(game.front(s)[FRONT_THEFT]),
                "has_gold": bool(game.gold[s] > 0) if gold_public or gold is not None else None,
                "role": role,
                # the role the viewer saw with an Inspection card (RULES 6.5; a Swap your hats
                # since may have changed it), as the observation's inspection channel shows it
                "inspected": roles[int(game.inspected[viewer, s])]
                if isinstance(viewer, int) and game.inspected[viewer, s] >= 0
                else None,
                "gold": gold,
            }
        )
    you = None
    if isinstance(viewer, int):
        you = {
            "seat": viewer,
            "role": roles[int(game.roles[viewer])],
            "gold": int(game.gold[viewer]),
            "hand": [card_info(k) for k in game.hand_kinds(viewer)],
            "goals_seen": [
                {
                    "goal": g,
                    "cell": list(GOAL_CELLS[g]),
                    "identity": "gold"
                    if int(game.board.goal_identity[g]) == GOAL_GOLD
                    else "stone",
                }
                for g in range(3)
                if game.known_goals[viewer, g]
            ],
            "can_place_paths": bool(game.can_place_paths(viewer)),
        }
    out = {
        "viewer": viewer,
        "ruleset": game.rules.title,
        "expansion": bool(game.config.expansion),
        "players": game.n,
        "round": game.round + 1,
        "rounds": game.config.num_rounds,
        "turn": game.turn + 1,
        "to_act": None if game.game_over else int(game.current),
        "phase": str(game.phase) if game.phase is not Phase.TURN else "turn",
        "game_over": bool(game.game_over),
        "deck": int(len(game.deck)),
        "discards": int(game.discards.sum()),
        "maze": maze(game, viewer),
        "seats": seats,
        "you": you,
        "winners": game.winners(),
    }
    if spectator:
        out["spectator"] = {
            "roles": [roles[int(r)] for r in game.roles],
            "hands": [[ALL_KINDS[k].id for k in game.hand_kinds(s)] for s in range(game.n)],
            "gold": [int(g) for g in game.gold],
            "goals": [
                "gold" if int(game.board.goal_identity[g]) == GOAL_GOLD else "stone"
                for g in range(3)
            ],
            "deck": [ALL_KINDS[int(k)].id for k in game.deck],
        }
    if with_history:
        out["history"] = history(game, viewer, names)
    if with_moves:
        out["moves"] = [] if spectator else legal_moves(game, viewer, codec)
    return out
