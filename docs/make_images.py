"""Regenerate the images under docs/: ``python docs/make_images.py`` from the repository root.

* ``docs/maze.png``: a 5-player game (heuristic agents, seed 11) mid-round, from the view of the
  seat to act: its hand, role and mapped goals; other hands, roles and unmapped goals hidden.
* ``docs/round_end.png``: the same round's final maze with everything revealed (spectator).
"""

from __future__ import annotations

import io
from pathlib import Path

from saboteur_agents import make_agent
from saboteur_env.record import read_record, replay
from saboteur_env.render_image import board_extent, render_rgb, save_png
from saboteur_experiments.play import play_game

HERE = Path(__file__).resolve().parent


def main(seed: int = 11, at: int = 16) -> None:
    def agent():
        try:
            return make_agent("heuristic")
        except ValueError:
            return make_agent("random")

    buf = io.StringIO()
    play_game([agent() for _ in range(5)], seed, num_rounds=1, record=buf)
    rec = read_record(buf.getvalue())
    steps = list(replay(rec))
    final = steps[-1].game
    extent = board_extent(final.round_boards[0])
    at = min(at, len(steps) // 2)  # mid-round, also in a round shorter than 2 * at decisions
    mid = steps[at]
    seat = mid.game.current
    save_png(
        render_rgb(
            mid.game,
            seat,
            extent=extent,
            names=rec.agents,
            caption=f"seat {seat}'s view, decision {at}",
        ),
        HERE / "maze.png",
    )
    save_png(
        render_rgb(
            final,
            "spectator",
            board=final.round_boards[0],
            extent=extent,
            round_result=final.round_results[0],
            names=rec.agents,
            caption="end of the round, everything revealed",
        ),
        HERE / "round_end.png",
    )


if __name__ == "__main__":
    main()
