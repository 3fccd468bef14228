"""Text rendering of the maze from one seat's view (``render_mode="ansi"``).

Each cell is drawn 3 characters wide and 3 high: ``|`` / ``-`` for tunnel openings, and the
centre shows ``+`` a tunnel joining its openings, ``x`` a dead end (stubs only), ``S`` the start,
``?`` a face-down goal, ``g`` / ``o`` a face-down goal the observer has mapped as gold / stone,
``G`` / ``O`` a face-up gold / stone goal, ``.`` an empty cell.  Saboteur 2 cards (RULES 6.3):
``H`` a ladder, ``&`` a bridge or double curve (two tunnels that do not join), ``=`` a green
door, ``#`` a blue door, ``*`` a crystal (card-table flags decide, in that order).  Nothing the
observer may not know is shown unless ``seat="spectator"`` is asked for explicitly.
"""

from __future__ import annotations

import numpy as np

from .engine.board import EMPTY, HIDDEN_GOAL
from .engine.cards import (
    ALL_KINDS,
    GOAL_CELLS,
    GOAL_GOLD,
    START_CELL,
    TOOLS,
    VARIANTS,
)
from .engine.phases import Phase
from .engine.state import Game


def goal_seen(game: Game, b, seat, slot: int, known=None) -> bool:
    """Whether ``seat`` sees the identity of face-down goal ``slot`` on maze ``b`` (every
    render asks this): the spectator always; a seat through its own map results (RULES 3.5),
    which belong to the current round, so on a past round's maze only through ``known`` (its
    map results when that round ended, bool ``(3,)``; none by default).  ``game`` may be
    ``None`` for a past maze."""
    if seat == "spectator":
        return True
    if not isinstance(seat, (int, np.integer)) or isinstance(seat, bool):
        return False
    row = game.known_goals[seat] if game is not None and b is game.board else known
    return row is not None and bool(row[slot])


def check_known(known) -> None:
    """Refuse a ``known`` argument of the renders that is not one flag per goal slot.

    Raises:
        ValueError: ``known`` is neither ``None`` nor 3 bools (0/1).
    """
    if known is None:
        return
    arr = np.asarray(known)
    if arr.shape != (3,) or not np.isin(arr, (0, 1)).all():
        raise ValueError(f"known={known!r}: one bool per goal slot, 3 in all (or None)")


def _cell_art(game: Game, b, x: int, y: int, seat, known=None) -> tuple[str, str, str]:
    v = b.variant_at(x, y)
    if v == EMPTY:
        return ("   ", " . ", "   ")
    if v == HIDDEN_GOAL:
        slot = GOAL_CELLS.index((x, y))
        ident = int(b.goal_identity[slot])
        c = ("g" if ident == GOAL_GOLD else "o") if goal_seen(game, b, seat, slot, known) else "?"
        return ("   ", f"[{c}]", "   ")
    var = VARIANTS[v]
    o = var.openings
    if (x, y) == START_CELL:
        c = "S"
    elif (x, y) in GOAL_CELLS:
        c = "G" if ALL_KINDS[var.kind].id == "G_GOLD" else "O"
    else:
        c = _centre(var)
    n = " | " if o & 1 else "   "
    s = " | " if o & 4 else "   "
    mid = ("-" if o & 8 else " ") + c + ("-" if o & 2 else " ")
    return (n, mid, s)


def _centre(var) -> str:
    """Centre symbol of a tunnel card, from its card-table data (RULES 6.3)."""
    kind = ALL_KINDS[var.kind]
    through = [seg for seg, stub in zip(var.segments, var.stub) if not stub]
    if kind.is_ladder:
        return "H"
    if len(through) >= 2:
        return "&"
    if kind.door:
        return "=" if kind.door == "green" else "#"
    if kind.crystals:
        return "*"
    return "x" if all(var.stub) else "+"


def render_ansi(game: Game, seat: int | str | None, board=None, known=None) -> str:
    """The maze and public state as text, from ``seat``'s view.

    The header reads ``round R/N  turn T  draw pile ...  to act: seat S``: ``R`` and ``T``
    count from 1, ``T`` is the turn now being played in this round (``game.turn + 1``; the
    image panel of :func:`~saboteur_env.render_image.render_rgb` shows the same number); once
    the game is over ``game over`` replaces the turn.

    Args:
        seat: an absolute seat (its own hand, role and map results are shown), ``None``
            (public information only) or ``"spectator"`` (everything revealed: debugging only).
        board: draw this maze instead of the current one (e.g. ``game.round_boards[i]``).
        known: with ``board`` a past round's maze, ``seat``'s map results when that round
            ended (bool ``(3,)`` per goal slot; default: none shown, as ``game.known_goals``
            belong to the current round).

    Raises:
        ValueError: ``known`` is not 3 flags (:func:`check_known`).
    """
    check_known(known)
    b = game.board if board is None else board
    cells = [(x, y) for x, y, _ in b.cards()]
    xs = [x for x, _ in cells] + [START_CELL[0], GOAL_CELLS[0][0]]
    ys = [y for _, y in cells] + [GOAL_CELLS[0][1], GOAL_CELLS[2][1]]
    x0, x1 = max(min(xs) - 1, b.window[0]), min(max(xs) + 1, b.window[1])
    y0, y1 = max(min(ys) - 1, b.window[2]), min(max(ys) + 1, b.window[3])
    lines = []
    if board is None or board is game.board:
        # "turn T": the turn now being played, counted from 1 within the round like the round
        # number (game.turn counts the turns already taken, so T = game.turn + 1); the same
        # convention as the image panel (render_image: "TURN T" / "GAME OVER")
        status = "game over" if game.game_over else f"turn {game.turn + 1}"
        lines.append(
            f"round {game.round + 1}/{game.config.num_rounds}  {status}  "
            f"draw pile {len(game.deck)}  discards {int(game.discards.sum())}"
            + ("" if game.game_over else f"  to act: seat {game.current}")
        )
    else:  # a past round's maze: the header must not describe the current round
        past = [i for i, pb in enumerate(game.round_boards) if pb is board]
        lines.append(
            f"round {past[0] + 1}/{game.config.num_rounds}: final maze" if past else "a past maze"
        )
    lines.append("     " + "".join(f"{x:^3d}" for x in range(x0, x1 + 1)))
    for y in range(y0, y1 + 1):
        arts = [_cell_art(game, b, x, y, seat, known) for x in range(x0, x1 + 1)]
        for k in range(3):
            label = f"{y:>4d} " if k == 1 else "     "
            lines.append(label + "".join(a[k] for a in arts))
    if board is not None:  # a past round's maze: the players' state is no longer that round's
        return "\n".join(lines) + "\n"
    names = game.rules.roles
    # whether a player holds gold is public only where Theft exists (RULES 5.3, 6.9)
    gold_public = game.rules.public_gold_holders
    for s in range(game.n):
        tools = ",".join(TOOLS[t] for t in range(3) if game.broken[s, t]) or "-"
        mark = ">" if s == game.current and not game.game_over else " "
        # Trapped! and Theft in front of a player (Saboteur 2, RULES 6.5)
        extra = (
            ("  TRAPPED" if game.xfront[s, 0] else "")
            + ("  theft" if game.xfront[s, 1] else "")
            + ("  has gold" if gold_public and game.gold[s] > 0 else "")
        )
        lines.append(f"{mark} seat {s}: hand {game.hand_size(s)}  broken {tools}{extra}")
    if game.phase is not Phase.TURN:  # a Saboteur 2 pass, removal or theft (RULES 6.7, 6.9)
        lines.append(f"phase: {game.phase}")
    if seat == "spectator":
        lines.append("roles: " + ", ".join(names[r] for r in game.roles.tolist()))
        lines.append("gold: " + ", ".join(str(g) for g in game.gold.tolist()))
        for s in range(game.n):  # every hand: the spectator sees everything
            lines.append(
                f"hand {s}: " + (", ".join(ALL_KINDS[k].id for k in game.hand_kinds(s)) or "-")
            )
    elif isinstance(seat, int):
        hand = ", ".join(ALL_KINDS[k].id for k in game.hand_kinds(seat))
        lines.append(
            f"you are seat {seat}, a {names[int(game.roles[seat])]}; "
            f"gold {int(game.gold[seat])}; hand: {hand}"
        )
    return "\n".join(lines) + "\n"
