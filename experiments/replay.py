"""``saboteur replay RECORD``: step through a recorded game (:mod:`saboteur_env.record`).

* As terminal text (default): the deal and the state after every decision, drawn by
  :func:`~saboteur_env.render.render_ansi` from seat ``K``'s view (``--seat K``, default 0) or
  with everything revealed (``--spectator``).  What a seat may not know stays hidden: other
  players' discards are "a card face down", other players' map results are not shown.  When
  stdin is a terminal it waits for Enter after each state (``q`` stops); ``--no-pause`` prints
  everything at once.
* As images: ``--out game.gif`` writes an animated GIF (needs Pillow), ``--out folder/`` (or
  any path not ending in ``.gif``) one PNG per frame, ``0000.png`` the deal.  A frame is a
  state (the deal, then the state after each decision), except that the decision that ends a
  round shows that round's final maze and result, followed, when a next round is dealt, by
  one extra frame of that deal.  So a finished game of ``D`` decisions and ``R`` rounds has
  ``1 + D + (R - 1)`` frames (204 for 201 decisions in 3 rounds); the last round's result
  stands in for the game-over state.
* As a web page: ``--html out.html`` writes one self-contained HTML file (no server) that
  steps forward and back through the states from that view, with the belief of each agent
  that has one (:mod:`saboteur_experiments.web.replay_html`): its states are the frames of
  the images, ``1 + D + (R - 1)``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from saboteur_env.engine.events import EventType
from saboteur_env.record import read_record, replay
from saboteur_env.render import render_ansi
from saboteur_experiments.cli_args import at_least, check_output_dir, check_output_file
from saboteur_experiments.human import event_text, round_result_text


def decision_text(step, viewer, names=None) -> str:
    """The last decision of ``step`` as ``viewer`` may see it."""
    lines = [event_text(e, viewer, names, step.game.rules) for e in step.events]
    return "\n".join(t for t in lines if t)


def _caption(step, viewer, names) -> str:
    text = decision_text(step, viewer, names).split("\n")[0].strip()
    return f"{step.index}: {text}" if text else ""


def _known(g, viewer):
    """``viewer``'s map results now (bool ``(3,)``), kept for the round's final maze: the
    round's last decision deals the next round, which forgets them (``None``: not a seat)."""
    return g.known_goals[viewer].copy() if isinstance(viewer, int) else None


def _print_round_end(g, res, viewer, out, known=None) -> None:
    """Round ``res``'s final maze (with ``viewer``'s map results then, ``known``) and result
    (and the final gold once the game is over)."""
    maze = render_ansi(g, viewer, board=g.round_boards[res.round], known=known)
    print(f"The maze at the end of round {res.round + 1}:", file=out)
    print(maze.split("\n", 1)[1], end="", file=out)
    print(
        round_result_text(res, viewer if isinstance(viewer, int) else None, g.game_over, g.rules),
        file=out,
    )
    if g.game_over:
        print(
            "Final gold: " + ", ".join(f"seat {s}: {int(x)}" for s, x in enumerate(g.gold)),
            file=out,
        )


def replay_text(record, viewer, *, out=None, inp=None, pause: bool = False) -> int:
    """Print every state of ``record`` from ``viewer``'s view; returns states shown."""
    out = sys.stdout if out is None else out
    rec = read_record(record) if not hasattr(record, "decisions") else record
    names = rec.agents
    total = len(rec.decisions)
    who = "spectator (everything revealed)" if viewer == "spectator" else f"seat {viewer}"
    print(
        f"Replay: {rec.config.num_players} players, seed {rec.seed}, {total} decisions; "
        f"agents {', '.join(f'{s}: {n}' for s, n in enumerate(names))}; view: {who}",
        file=out,
    )
    shown = 0
    known = None
    for step in replay(rec, copy=False):
        g = step.game
        head = f"--- decision {step.index}/{total}"
        if step.seat is not None:
            head += f" (seat {step.seat}, {names[step.seat]})"
        print(head + " ---", file=out)
        # a round's last decision also deals the next round: its final maze and result come
        # before the next round's "Round N begins" and the new deal
        pending = step.round_result
        for e in step.events:
            if e.type is EventType.ROUND_START and pending is not None:
                _print_round_end(g, pending, viewer, out, known)
                pending = None
            text = event_text(e, viewer, names, g.rules)
            if text:
                print(text, file=out)
        if pending is not None:
            _print_round_end(g, pending, viewer, out, known)
        if not g.game_over:
            print(render_ansi(g, viewer), end="", file=out)
        known = _known(g, viewer)
        shown += 1
        if pause:
            print("[Enter: next, q: quit] ", end="", file=out)
            out.flush()
            line = (inp or sys.stdin).readline()
            if line == "" or line.strip().lower() == "q":
                break
    return shown


def replay_frames(record, viewer, *, cell: int = 40):
    """The frames of ``record`` from ``viewer``'s view (one extent for all): the deal, then one
    per decision; a decision that ends a round is drawn as that round's final maze and result,
    followed, unless the game is over, by a frame of the next round's deal.  A finished game
    of ``D`` decisions in ``R`` rounds gives ``1 + D + (R - 1)`` frames."""
    from saboteur_env.render_image import board_extent, render_rgb

    rec = read_record(record) if not hasattr(record, "decisions") else record
    boards = []
    for step in replay(rec, copy=False):
        boards.append(step.game.board.copy())
    extent = board_extent(*boards)
    names = rec.agents
    known = None
    for step in replay(rec, copy=False):
        g = step.game
        cap = _caption(step, viewer, names)
        if step.round_result is not None:
            res = step.round_result
            yield render_rgb(
                g,
                viewer,
                board=g.round_boards[res.round],
                extent=extent,
                cell=cell,
                caption=cap,
                round_result=res,
                names=names,
                known=known,
            )
            if g.game_over:
                continue
            cap = f"{step.index}: round {res.round + 2} is dealt"
        yield render_rgb(g, viewer, extent=extent, cell=cell, caption=cap, names=names)
        known = _known(g, viewer)


def write_images(record, viewer, dest, *, cell: int = 40, duration_ms: int = 700) -> int:
    """Write the frames of :func:`replay_frames` as a GIF (``dest`` ends in ``.gif``) or as
    numbered PNG files in folder ``dest``.  Returns the number of images."""
    from saboteur_env.render_image import save_gif, save_png

    frames = list(replay_frames(record, viewer, cell=cell))
    if str(dest).lower().endswith(".gif"):
        save_gif(frames, dest, duration_ms)
    else:
        os.makedirs(dest, exist_ok=True)
        for i, f in enumerate(frames):
            save_png(f, os.path.join(dest, f"{i:04d}.png"))
    return len(frames)


def _frames_note(n: int, d: int) -> str:
    """What ``n`` frames (or page states) of a game of ``d`` decisions are: the deal, one per
    decision, and a next round's deal after each round's result but the last."""
    dealt = n - 1 - d
    if not dealt:  # a one-round game (or one stopped in its first round)
        return f"the deal and {d} decisions"
    return (
        f"the deal, {d} decisions, and {dealt} {'deal' if dealt == 1 else 'deals'} of a next "
        "round after a round's result"
    )


def main(argv=None, *, inp=None, out=None) -> None:
    p = argparse.ArgumentParser(
        prog="saboteur replay",
        description="Step through a recorded game (JSON Lines from play --record).",
    )
    p.add_argument("record", help="the game record (.jsonl)")
    view = p.add_mutually_exclusive_group()
    # default None, not 0: "--seat 0 --spectator" is then refused as every other seat is
    view.add_argument("--seat", type=int, default=None, help="whose view to show (default 0)")
    view.add_argument(
        "--spectator",
        action="store_true",
        help="show everything: roles, gold, every goal, and (as text) every hand",
    )
    p.add_argument(
        "--out",
        default=None,
        help="write images instead: game.gif (needs Pillow) or a folder of PNGs",
    )
    p.add_argument(
        "--html",
        default=None,
        metavar="PATH",
        help="write a self-contained replay page (HTML, steps forward and back) instead",
    )
    p.add_argument(
        "--cell",
        type=at_least(24),
        default=40,
        help="cell size in pixels (images; default 40, at least 24)",
    )
    p.add_argument("--duration", type=at_least(1), default=700, help="ms per GIF frame")
    p.add_argument(
        "--no-pause", action="store_true", help="print every state without waiting for Enter"
    )
    args = p.parse_args(argv)
    out = sys.stdout if out is None else out
    try:
        rec = read_record(args.record)
        for _ in replay(rec, copy=False):  # the whole record replays before anything is shown
            pass
    except (OSError, ValueError) as err:  # ValueError: RecordError
        msg = " ".join(str(err).split())  # one line
        print(f"saboteur replay: cannot replay {args.record}: {msg}", file=sys.stderr)
        sys.exit(2)
    viewer = "spectator" if args.spectator else (0 if args.seat is None else args.seat)
    if viewer != "spectator" and not 0 <= viewer < rec.config.num_players:
        print(
            f"saboteur replay: --seat {viewer} is not a seat of this "
            f"{rec.config.num_players}-player game",
            file=sys.stderr,
        )
        sys.exit(2)
    if args.html and args.out:
        p.error("--html and --out: choose one")
    if args.html:
        check_output_file(p, args.html, "--html")
        from saboteur_experiments.web.replay_html import write_html

        n = write_html(rec, viewer, args.html)
        print(f"wrote {args.html} ({n} states: {_frames_note(n, len(rec.decisions))})", file=out)
        return
    if args.out:
        suffix = Path(args.out).suffix.lower()
        if suffix == ".gif":
            check_output_file(p, args.out, "--out")
        elif suffix and not Path(args.out).is_dir():
            # "g.txt" would become a folder of PNGs named g.txt
            p.error(
                f"--out {args.out!r}: a .gif file or a folder for PNG frames, not a {suffix} file"
            )
        else:
            check_output_dir(p, args.out, "--out")
        try:
            n = write_images(rec, viewer, args.out, cell=args.cell, duration_ms=args.duration)
        except ImportError as err:
            print(f"saboteur replay: {err}", file=sys.stderr)
            sys.exit(2)
        print(f"wrote {n} images to {args.out} ({_frames_note(n, len(rec.decisions))})", file=out)
        return
    stdin = sys.stdin if inp is None else inp
    pause = not args.no_pause and inp is None and stdin.isatty()
    replay_text(
        rec, viewer, out=out, inp=stdin, pause=pause or (inp is not None and not args.no_pause)
    )


if __name__ == "__main__":
    main()
