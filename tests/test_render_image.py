"""Images of the maze (saboteur_env.render_image, render_mode="rgb_array"/"human")."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import saboteur_env
from saboteur_agents import make_agent
from saboteur_env.engine.cards import GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B
from saboteur_env.engine.events import RoundResult
from saboteur_env.engine.state import build_state
from saboteur_env.render_image import (
    DEAD_END,
    GOLD,
    ROCK,
    TUNNEL,
    TUNNEL_DISCONNECTED,
    draw_text,
    layout,
    png_bytes,
    render_rgb,
    save_gif,
    save_png,
)

ROLES5 = ["gold-digger", "saboteur", "gold-digger", "gold-digger", "saboteur"]


def _state(**kw):
    args = dict(
        roles=ROLES5,
        hands=[["map", "B07"], ["rockfall"], ["B01"], ["break_pick"], ["B03"]],
        board=[
            (0, -1, "B01", False),
            (1, 0, "B02", False),
            (0, 1, "B08", False),
            (2, 0, "B07", False),
        ],
        goals=(GOAL_STONE_A, GOAL_GOLD, GOAL_STONE_B),
        revealed=[(1, False)],
        known_goals=[[0], [], [], [], []],
    )
    args.update(kw)
    return build_state(**args)


def _pix(img, rc):
    return tuple(int(v) for v in img[rc[0], rc[1]])


def _cell(img, lay, x, y):
    r0, c0, r1, c1 = lay.cell_box(x, y)
    return img[r0:r1, c0:c1]


def _has(block, color) -> bool:
    return bool((block == np.array(color, dtype=np.uint8)).all(axis=-1).any())


@pytest.mark.parametrize("seat", [0, 3, None, "spectator"])
def test_shape_and_dtype(seat):
    g = _state()
    img = render_rgb(g, seat)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[0] >= 200 and img.shape[1] >= 400


@pytest.mark.parametrize("n", [3, 7, 10])
def test_shape_for_every_player_count(n):
    env = saboteur_env.raw_env(num_players=n, render_mode="rgb_array")
    env.reset(seed=n)
    img = env.render()
    assert img.dtype == np.uint8 and img.shape[2] == 3


def test_revealed_gold_goal_is_drawn_at_its_cell():
    g = _state()
    img = render_rgb(g, 2)  # seat 2 mapped nothing: the gold is face up for everyone
    lay = layout(g.board)
    assert _pix(img, lay.cell_center(8, 0)) == GOLD
    # the face-down goals show no gold, and no other cell is gold-coloured
    assert not _has(_cell(img, lay, 8, -2), GOLD)
    assert not _has(_cell(img, lay, 8, 2), GOLD)
    assert not _has(_cell(img, lay, 4, 0), GOLD)


def test_dead_end_is_drawn_where_it_should_be():
    g = _state()
    img = render_rgb(g, 0)
    lay = layout(g.board)
    cy, cx = lay.cell_center(0, 1)  # B08: a dead end open to the north, below the start
    r0, c0, r1, c1 = lay.cell_box(0, 1)
    assert _pix(img, (cy, cx)) == ROCK  # the tunnel stops before the centre
    assert _pix(img, (r0 + 3, cx)) == TUNNEL  # it starts at the north edge, connected
    top, bottom = img[r0:cy, c0:c1], img[cy:r1, c0:c1]
    assert _has(top, DEAD_END) and not _has(bottom, DEAD_END)
    # a straight N-S card above the start: its tunnel runs through the centre
    assert _pix(img, lay.cell_center(0, -1)) == TUNNEL
    # a through card never shows a dead-end cap
    assert not _has(_cell(img, lay, 2, 0), DEAD_END)


def test_disconnected_tunnels_are_dimmer():
    g = _state(board=[(0, -1, "B01", False), (3, 3, "B07", False)])
    img = render_rgb(g, 0)
    lay = layout(g.board)
    assert _pix(img, lay.cell_center(0, -1)) == TUNNEL
    assert _pix(img, lay.cell_center(3, 3)) == TUNNEL_DISCONNECTED


def test_mapped_goal_marked_for_the_observer_only():
    g = _state(
        goals=(GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B),
        revealed=[],
        known_goals=[[0], [], [], [], []],
    )
    lay = layout(g.board)
    mine = render_rgb(g, 0)
    other = render_rgb(g, 1)
    assert _has(_cell(mine, lay, 8, -2), GOLD)
    assert not _has(_cell(other, lay, 8, -2), GOLD)
    spec = render_rgb(g, "spectator")
    assert _has(_cell(spec, lay, 8, -2), GOLD)


def test_identical_images_when_the_observer_cannot_tell_the_states_apart():
    common = dict(
        board=[(0, -1, "B01", False), (1, 0, "B02", False)],
        revealed=[],
        known_goals=[[1], [], [0], [], []],
        broken=[[], ["lantern"], [], [], []],
    )
    a = build_state(
        roles=ROLES5,
        goals=(GOAL_GOLD, GOAL_STONE_A, GOAL_STONE_B),
        hands=[["map", "B07"], ["rockfall", "B03"], ["B01"], ["break_pick"], ["B04"]],
        seed=1,
        **common,
    )
    # other hands (same sizes), other roles, the identity of goals seat 0 has not mapped,
    # the deck order and the gold supply all differ
    b = build_state(
        roles=["gold-digger", "gold-digger", "saboteur", "saboteur", "gold-digger"],
        goals=(GOAL_STONE_B, GOAL_STONE_A, GOAL_GOLD),
        hands=[["map", "B07"], ["B05", "B06"], ["map"], ["B09"], ["repair_cart"]],
        seed=99,
        **common,
    )
    assert len(a.deck) == len(b.deck) and a.discards.sum() == b.discards.sum()
    for seat in (0, None):
        assert np.array_equal(render_rgb(a, seat), render_rgb(b, seat))
    # seats that know what differs see a difference, and so does the spectator
    assert not np.array_equal(render_rgb(a, 1), render_rgb(b, 1))  # own hand and role
    assert not np.array_equal(render_rgb(a, 2), render_rgb(b, 2))  # mapped goal 0
    assert not np.array_equal(render_rgb(a, "spectator"), render_rgb(b, "spectator"))


def test_rendering_changes_neither_the_state_nor_the_generator():
    env = saboteur_env.raw_env(num_players=5, render_mode="rgb_array")
    env.reset(seed=5)
    agent = make_agent("random")
    agent.reset(0, env.config, seed=1)
    for _ in range(30):
        obs, *_ = env.last()
        env.step(agent.act(obs["observation"], obs["action_mask"]))
    g = env.game
    before = pickle.dumps(g)
    rng_state = g.rng.bit_generator.state
    twin = g.copy()
    for seat in (0, 1, None, "spectator"):
        render_rgb(g, seat)
    env.render()
    env.render_seat = "spectator"
    env.render()
    assert pickle.dumps(g) == before
    assert g.rng.bit_generator.state == rng_state
    # and the game goes on exactly as an unrendered copy does
    assert g.rng.random() == twin.rng.random()


def test_env_render_modes(capsys):
    assert "rgb_array" in saboteur_env.raw_env.metadata["render_modes"]
    e = saboteur_env.env(num_players=4, render_mode="rgb_array", render_seat="spectator")
    e.reset(seed=2)
    img = e.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8
    # human: no window here (headless backend), so it falls back to the ansi text
    h = saboteur_env.raw_env(num_players=4, render_mode="human")
    h.reset(seed=2)
    assert h.render() is None
    assert "round 1/" in capsys.readouterr().out
    h.close()


def test_past_round_board_and_caption():
    from saboteur_experiments.play import play_game

    buf = io.StringIO()
    play_game([make_agent("random") for _ in range(4)], 3, num_rounds=2, record=buf)
    from saboteur_env.record import replay_game

    g = replay_game(buf.getvalue())
    res = g.round_results[0]
    img = render_rgb(g, 1, board=g.round_boards[0], round_result=res, caption="round over")
    assert img.dtype == np.uint8
    with pytest.raises(ValueError):
        render_rgb(g, 7)
    with pytest.raises(ValueError):
        render_rgb(g, "everyone")


def test_png_and_gif_files(tmp_path):
    g = _state()
    img = render_rgb(g, 0)
    data = png_bytes(img)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    save_png(img, tmp_path / "a.png")
    pil = pytest.importorskip("PIL.Image")
    back = np.asarray(pil.open(tmp_path / "a.png").convert("RGB"))
    assert np.array_equal(back, img)
    save_gif([img, render_rgb(g, 1)], tmp_path / "a.gif")
    assert pil.open(tmp_path / "a.gif").n_frames == 2


def test_font_draws_and_clips():
    img = np.zeros((20, 30, 3), dtype=np.uint8)
    end = draw_text(img, "A~", 2, 2, (255, 255, 255), 1)  # unknown '~' drawn as '?'
    assert end == 14 and img.any()
    draw_text(img, "WIDE TEXT OUTSIDE", 15, 20, (255, 0, 0), 2)  # clipped, no error


def test_human_window_path(monkeypatch):
    """Where a window can open, render_mode="human" shows the image and reuses the window."""
    import warnings

    plt = pytest.importorskip("matplotlib.pyplot")
    from saboteur_env import render_image

    monkeypatch.setattr(render_image, "_interactive_backend", lambda: True)
    env = saboteur_env.raw_env(num_players=3, render_mode="human")
    env.reset(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Agg backend says it cannot show a window
        env.render()
        first = env._window
        assert first is not None
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # human mode renders each step
        assert env._window[0] is first[0]
        shown = env._window[1].get_array()
        assert np.array_equal(np.asarray(shown), render_rgb(env.game, env.game.current))
    env.close()
    assert env._window is None and not plt.fignum_exists(first[0].number)


def test_ansi_header_and_image_panel_show_the_same_turn():
    """Both count the turn now being played from 1 (game.turn + 1: game.turn counts the
    turns already taken this round); "game over" replaces it at the end."""
    import re

    from saboteur_env.render import render_ansi
    from saboteur_env.render_image import _panel_lines

    env = saboteur_env.raw_env(num_players=4, num_rounds=1)
    env.reset(seed=6)
    rng = np.random.default_rng(0)
    checked = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        g = env.game
        text = render_ansi(g, 0).split("\n")[0]
        panel = [row[1] for row in _panel_lines(g, 0, None, None) if row[0] == "text"]
        if g.game_over:
            assert "game over" in text and "GAME OVER" in panel and "turn" not in text
        else:
            t = int(re.search(r"\bturn (\d+)\b", text).group(1))
            assert t == g.turn + 1 and f"TURN {t}" in panel
            checked += 1
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    assert checked > 10
    assert render_ansi(env.game, 0).startswith("round 1/1  game over  ")


def test_round_result_panel_hides_other_seats_gold_before_the_end():
    """RULES 5.3: a seat's image shows only its own gold received until the game ends; the
    spectator's shows every amount."""
    g = _state()
    assert not g.game_over

    def result(received):
        return RoundResult(
            round=0,
            gold_found=True,
            winning_side="gold-digger",
            winners=[0, 2, 3],
            connector=0,
            roles=[0, 1, 0, 0, 1],
            received=received,
            paid=received,
            last_card_seat=0,
            turns=9,
        )

    a, b, c = result([2, 0, 3, 1, 0]), result([2, 0, 4, 3, 0]), result([1, 0, 3, 1, 0])
    seat = [render_rgb(g, 0, round_result=r) for r in (a, b, c)]
    assert np.array_equal(seat[0], seat[1])  # others' amounts change no pixel
    assert not np.array_equal(seat[0], seat[2])  # the seat's own amount is shown
    spec = [render_rgb(g, "spectator", round_result=r) for r in (a, b)]
    assert not np.array_equal(spec[0], spec[1])
    g.game_over = True  # at the end every amount is public
    assert not np.array_equal(render_rgb(g, 0, round_result=a), render_rgb(g, 0, round_result=b))
