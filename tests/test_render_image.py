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


# --- Saboteur 2: doors, ladders, crystals, and the cards in front of players -----------------
S2_ROLES = ["green-digger", "blue-digger", "boss", "geologist", "saboteur"]


def _s2_state(**kw):
    from saboteur_env.engine.config import GameConfig

    args = dict(
        roles=S2_ROLES,
        hands=[["B07", "theft"], ["B01"], ["X25"], ["map"], ["trapped"]],
        board=[
            (1, 0, "X09", False),  # green door E-W
            (2, 0, "X12", False),  # blue door E-W
            (3, 0, "X21", False),  # crystal T-junction N-E-W (one crystal)
            (0, -1, "X04", True),  # ladder, its tunnel turned to the south (the start)
            (0, 1, "X11", False),  # blue door N-S
            (1, 1, "X10", True),  # green door N-S with a stub
            (4, 0, "X14", False),  # a Saboteur 2 card with no door, ladder or crystal
        ],
        goals=(GOAL_STONE_A, GOAL_GOLD, GOAL_STONE_B),
    )
    args.update(kw)
    return build_state(GameConfig(num_players=5, expansion=True, num_rounds=1), **args)


def _greenish(block) -> bool:
    b = block.astype(int)
    return bool(((b[..., 1] > b[..., 0] + 80) & (b[..., 1] > b[..., 2] + 80)).any())


def _blueish(block) -> bool:
    b = block.astype(int)
    return bool(((b[..., 2] > b[..., 0] + 80) & (b[..., 2] > b[..., 1] + 80)).any())


def test_saboteur2_doors_ladders_and_crystals_are_drawn_apart():
    """RULES 6.3: the door colour decides which team wins (6.9), so a green door, a blue door,
    a ladder and a crystal each get their own marker: no shared light-blue dot."""
    from saboteur_env.render_image import CRYSTAL, DOOR_COLORS, LADDER

    g = _s2_state()
    img = render_rgb(g, 0)
    lay = layout(g.board)
    green, blue = DOOR_COLORS["green"], DOOR_COLORS["blue"]
    for x, y in ((1, 0), (1, 1)):  # green doors
        c = _cell(img, lay, x, y)
        assert _has(c, green) and _greenish(c) and not _has(c, blue) and not _blueish(c)
    for x, y in ((2, 0), (0, 1)):  # blue doors
        c = _cell(img, lay, x, y)
        assert _has(c, blue) and _blueish(c) and not _has(c, green) and not _greenish(c)
    # the bar lies across the tunnel, halfway along its first arm: E on an E-W card, N on N-S
    cy, cx = lay.cell_center(1, 0)
    assert _pix(img, (cy, cx + lay.cell // 4)) == green
    assert _pix(img, (cy, cx)) == TUNNEL  # the tunnel itself is still drawn
    cy, cx = lay.cell_center(0, 1)
    assert _pix(img, (cy - lay.cell // 4, cx)) == blue
    # the ladder: dark rails and rungs at the centre of its card, and nothing else there
    ladder = _cell(img, lay, 0, -1)
    assert _has(ladder, LADDER) and not _greenish(ladder) and not _blueish(ladder)
    assert not _has(ladder, CRYSTAL)
    cy, cx = lay.cell_center(0, -1)
    rails = [
        c for c in range(cx - lay.cell // 4, cx + lay.cell // 4) if _pix(img, (cy, c)) == LADDER
    ]
    assert rails and rails[0] < cx < rails[-1]  # a rail either side of the centre
    # the crystal: a diamond in the rock of the card's north-east corner
    crystal = _cell(img, lay, 3, 0)
    assert _has(crystal, CRYSTAL) and not _has(crystal, LADDER)
    assert not _greenish(crystal) and not _blueish(crystal)
    cy, cx = lay.cell_center(3, 0)
    q = int(lay.cell * 0.3)
    assert _pix(img, (cy - q, cx + q)) == CRYSTAL
    # doors carry no ladder or crystal marker, and a plain Saboteur 2 card carries none at all
    for x, y in ((1, 0), (2, 0), (0, 1), (1, 1), (4, 0)):
        c = _cell(img, lay, x, y)
        assert not _has(c, LADDER) and not _has(c, CRYSTAL)
    plain = _cell(img, lay, 4, 0)
    assert not _greenish(plain) and not _blueish(plain)


def _diamonds(block, color) -> int:
    """How many diamonds of ``color``: pixels of it with none of it in the three above."""
    m = np.pad((block == np.array(color, dtype=np.uint8)).all(axis=-1), 1)
    above = m[:-2, :-2] | m[:-2, 1:-1] | m[:-2, 2:]
    return int((m[1:-1, 1:-1] & ~above).sum())


def test_every_saboteur2_card_shows_what_its_card_table_row_says():
    """Each path card alone in the maze, both ways up: door colour, ladder and the number of
    crystals drawn follow the card table (RULES 6.3, Appendix A)."""
    from saboteur_env.engine.cards import CARD_KINDS
    from saboteur_env.render_image import CRYSTAL, DOOR_COLORS, LADDER

    checked = set()
    for kind in CARD_KINDS:
        if kind.category != "path":
            continue
        for rotated in (False, True):
            g = _s2_state(board=[(3, 3, kind.id, rotated)], hands=[["map"], [], [], [], []])
            lay = layout(g.board)
            c = _cell(render_rgb(g, None), lay, 3, 3)
            assert _has(c, DOOR_COLORS["green"]) == (kind.door == "green"), kind.id
            assert _has(c, DOOR_COLORS["blue"]) == (kind.door == "blue"), kind.id
            assert _has(c, LADDER) == kind.is_ladder, kind.id
            assert _diamonds(c, CRYSTAL) == kind.crystals, kind.id
            checked.add((kind.door, kind.is_ladder, kind.crystals))
    assert {("green", False, 0), ("blue", False, 0), ("", True, 0), ("", False, 1)} <= checked


def _seat_row(img, game, seat, s):
    """The pixels of seat ``s``'s row in the side panel (from the tag column on)."""
    from saboteur_env.render_image import MARGIN, TAG_LEFT, _panel_lines, panel_width

    y = MARGIN + 4
    for row in _panel_lines(game, seat, None, None):
        if row[0] == "seat" and row[1] == s:
            break
        y += (
            10
            if row[0] == "gap"
            else 24
            if row[0] == "seat"
            else 7 * (row[3] if len(row) > 3 else 2) + 6
        )
    left = img.shape[1] - panel_width(game) + MARGIN
    return img[y - 3 : y + 19, left + TAG_LEFT :]


def test_panel_shows_trapped_theft_and_gold_as_the_ansi_render_does():
    """RULES 6.5, 6.9: a Trapped! or Theft card in front of a seat, and whether it holds gold,
    are public; the image panel shows them for exactly the seats the ``ansi`` text names."""
    from saboteur_env.render import render_ansi
    from saboteur_env.render_image import THEFT_TAG, TRAPPED_TAG

    g = _s2_state(trapped=[1, 3], theft=[3, 0], gold=[0, 2, 0, 1, 0])
    for seat in (0, 2, None):
        img = render_rgb(g, seat)
        text = render_ansi(g, seat).splitlines()
        for s in range(g.n):
            line = next(t for t in text if t[2:].startswith(f"seat {s}:"))
            row = _seat_row(img, g, seat, s)
            assert _has(row, TRAPPED_TAG) == ("TRAPPED" in line), (seat, s)
            assert _has(row, THEFT_TAG) == ("theft" in line), (seat, s)
            assert _has(row, GOLD) == ("has gold" in line), (seat, s)
    assert [bool(g.xfront[s, 0]) for s in range(5)] == [False, True, False, True, False]
    # the same position with nothing in front: the tag columns are empty
    bare = _s2_state()
    img = render_rgb(bare, 0)
    for s in range(bare.n):
        row = _seat_row(img, bare, 0, s)
        assert not _has(row, TRAPPED_TAG) and not _has(row, THEFT_TAG) and not _has(row, GOLD)


def test_panel_names_a_saboteur2_phase_as_the_ansi_render_does():
    from saboteur_env.engine.phases import Phase
    from saboteur_env.render import render_ansi
    from saboteur_env.render_image import _panel_lines

    env = saboteur_env.raw_env(num_players=4, expansion=True, num_rounds=2)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    seen = set()
    for _agent in env.agent_iter(2000):
        obs, _, term, trunc, _ = env.last()
        g = env.game
        panel = [row[1] for row in _panel_lines(g, 0, None, None) if row[0] == "text"]
        if g.phase is not Phase.TURN:
            seen.add(g.phase)
            assert f"PHASE: {g.phase}".upper() in panel and f"phase: {g.phase}" in render_ansi(g, 0)
        else:
            assert not any(p.startswith("PHASE") for p in panel)
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    assert seen


def test_base_game_image_is_unchanged():
    """The Saboteur 2 markers and tags leave the base game's image as it was, pixel for pixel
    (sha256 of the pixels before they were added).  Change these digests only with a deliberate
    change to the base game's image."""
    import hashlib

    from saboteur_env.render_image import CRYSTAL, DOOR_COLORS, LADDER, THEFT_TAG

    g = _state(broken=[[], ["lantern"], [], ["pick", "cart"], []], gold=[1, 0, 2, 0, 0])
    want = {
        0: "2798b4a8f755a7275e65e9b8559c7b49ef2438d7efe6b41cfde3380a1938922f",
        "spectator": "c6bab67ba342c5141030371125e0896e3c3982160f14d8432e5fd9069d271d1e",
        None: "c625c9979f86f914098a82387dfeac4749a0d9e8de70697cc25afc3c542e8fd7",
    }
    for seat, digest in want.items():
        img = render_rgb(g, seat)
        assert img.shape == (374, 968, 3)
        assert hashlib.sha256(img.tobytes()).hexdigest() == digest, seat
        for color in (*DOOR_COLORS.values(), CRYSTAL, LADDER, THEFT_TAG):
            assert not _has(img, color)


# --- Saboteur 2: role colours, the winning side, action-card labels --------------------------
def _text_row(img, game, seat, round_result, text):
    """The pixels of the panel's text row ``text`` (as wide as the text), and the row."""
    from saboteur_env.render_image import MARGIN, _panel_lines, panel_width, text_size

    y = MARGIN + 4
    for row in _panel_lines(game, seat, round_result, None):
        scale = row[3] if row[0] == "text" and len(row) > 3 else 2
        if row[0] == "text" and row[1] == text:
            left = img.shape[1] - panel_width(game) + MARGIN
            th, tw = text_size(text, scale)
            return img[y : y + th, left : left + tw], row
        y += 10 if row[0] == "gap" else 24 if row[0] == "seat" else 7 * scale + 6
    raise AssertionError(f"no panel row {text!r}")


def _drawn(text, color, scale=2):
    """``text`` as :func:`draw_text` writes it on the panel's colour."""
    from saboteur_env.render_image import PANEL, text_size

    h, w = text_size(text, scale)
    out = np.empty((h, w, 3), dtype=np.uint8)
    out[:] = PANEL
    draw_text(out, text, 0, 0, color, scale)
    return out


def test_saboteur2_roles_are_coloured_from_the_ruleset_not_as_saboteurs():
    """RULES 6.2: only the saboteur is written in the saboteur's red; a blue or green digger in
    its team's door colour, the boss in gold, the profiteer and the geologist in a neutral
    grey (``gold_stake`` 0).  The base game keeps gold and red."""
    from saboteur_env.engine.ruleset import BASE, SABOTEUR_2
    from saboteur_env.render_image import (
        DOOR_COLORS,
        ROLE_NEUTRAL,
        SABOTEUR_RED,
        role_color,
    )

    want = {
        "green-digger": DOOR_COLORS["green"],
        "blue-digger": DOOR_COLORS["blue"],
        "boss": GOLD,
        "profiteer": ROLE_NEUTRAL,
        "geologist": ROLE_NEUTRAL,
        "saboteur": SABOTEUR_RED,
    }
    assert {name: role_color(SABOTEUR_2, r) for r, name in enumerate(SABOTEUR_2.roles)} == want
    assert [role_color(BASE, r) for r in range(2)] == [GOLD, SABOTEUR_RED]
    for name, color in want.items():
        roles = [name, *(r for r in S2_ROLES if r != name)][:5]
        g = _s2_state(roles=roles)
        img = render_rgb(g, 0)
        block, row = _text_row(img, g, 0, None, name)
        assert row[2] == color
        assert np.array_equal(block, _drawn(name.upper(), color)), name
        assert _has(block, SABOTEUR_RED) == (name == "saboteur"), name
    # the blue digger's role text, pixel by pixel: blue, never the saboteur's red
    g = _s2_state()
    block, _ = _text_row(render_rgb(g, 1), g, 1, None, "blue-digger")
    assert _has(block, DOOR_COLORS["blue"]) and not _has(block, SABOTEUR_RED)


def _s2_result(side, winners, roles=(0, 1, 2, 4, 5)):
    return RoundResult(
        round=0,
        gold_found=side != "saboteurs",
        winning_side=side,
        winners=list(winners),
        connector=1,
        roles=list(roles),
        received=[4 if s in winners else 0 for s in range(len(roles))],
        paid=[4 if s in winners else 0 for s in range(len(roles))],
        last_card_seat=1,
        turns=20,
    )


def test_round_result_panel_names_the_saboteur2_winning_side_and_winners():
    """RULES 6.9: the panel says which side won (a team, both teams, the boss or the
    saboteurs) and which seats won; a blue digger's result row is in blue."""
    from saboteur_env.render_image import DOOR_COLORS, SABOTEUR_RED, side_label

    g = _s2_state()
    img = render_rgb(g, 0, round_result=_s2_result("blue", [1, 2]))
    block, _ = _text_row(img, g, 0, _s2_result("blue", [1, 2]), "ROUND OVER: BLUE DIGGERS WIN")
    assert np.array_equal(block, _drawn("ROUND OVER: BLUE DIGGERS WIN", GOLD))
    block, _ = _text_row(img, g, 0, _s2_result("blue", [1, 2]), "WINNERS: 1 2")
    assert np.array_equal(block, _drawn("WINNERS: 1 2", (235, 235, 235)))
    text = [r[1] for r in _panel_lines_of(g, 0, _s2_result("blue", [1, 2]))]
    assert not any("GOLD-DIGGERS" in t or "SABOTEURS WIN" in t for t in text)
    row = next(t for t in text if t.startswith("1"))
    block, _ = _text_row(img, g, 0, _s2_result("blue", [1, 2]), row)
    assert _has(block, DOOR_COLORS["blue"]) and not _has(block, SABOTEUR_RED)
    assert "blue-digger " in row and "green-digger " in next(t for t in text if t[0] == "0")
    # every side the scoring names (scoring.winners_s2), and a round nobody won
    cases = {
        "saboteurs": ("SABOTEURS WIN", [4]),
        "blue": ("BLUE DIGGERS WIN", [1, 2]),
        "green": ("GREEN DIGGERS WIN", [0, 2]),
        "blue+green": ("BLUE+GREEN DIGGERS WIN", [0, 1, 2]),
        "boss": ("BOSS WINS", [2]),
    }
    for side, (label, winners) in cases.items():
        assert side_label(side) == label
        text = [r[1] for r in _panel_lines_of(g, 0, _s2_result(side, winners))]
        assert f"ROUND OVER: {label}" in text
        assert f"WINNERS: {' '.join(map(str, winners))}" in text
    assert "WINNERS: NONE" in [r[1] for r in _panel_lines_of(g, 0, _s2_result("boss", []))]
    # the base game's wording, and no winners line there (a seat's role tells it)
    assert side_label("gold-digger") == "GOLD-DIGGERS WIN"
    assert side_label("saboteur") == "SABOTEURS WIN"
    base = _state()
    rr = RoundResult(
        round=0,
        gold_found=False,
        winning_side="saboteur",
        winners=[1, 4],
        connector=None,
        roles=[0, 1, 0, 0, 1],
        received=[0, 3, 0, 0, 3],
        paid=[0, 3, 0, 0, 3],
        last_card_seat=0,
        turns=9,
    )
    text = [r[1] for r in _panel_lines_of(base, 0, rr)]
    assert "ROUND OVER: SABOTEURS WIN" in text and not any(t.startswith("WINNERS") for t in text)


def _panel_lines_of(game, seat, round_result):
    from saboteur_env.render_image import _panel_lines

    return [r for r in _panel_lines(game, seat, round_result, None) if r[0] == "text"]


def test_seeded_saboteur2_results_show_their_side_and_winners():
    """Real round results of a seeded Saboteur 2 game (heuristic players; seed 2 played
    both teams winning with a trapped player left out, then green, then blue): the panel
    names each one's side and winners, and writes each seat's role in the role's colour."""
    from saboteur_env.record import replay_game
    from saboteur_env.render_image import DOOR_COLORS, SABOTEUR_RED, role_color, side_label
    from saboteur_experiments.play import play_game

    buf = io.StringIO()
    agents = [make_agent("heuristic") for _ in range(5)]
    play_game(agents, 2, expansion=True, num_rounds=3, record=buf)
    g = replay_game(buf.getvalue())
    labels = {
        "saboteurs": "SABOTEURS WIN",
        "blue": "BLUE DIGGERS WIN",
        "green": "GREEN DIGGERS WIN",
        "blue+green": "BLUE+GREEN DIGGERS WIN",
        "boss": "BOSS WINS",
    }
    assert {"blue", "green", "blue+green"} & {rr.winning_side for rr in g.round_results}
    for rr in g.round_results:
        assert side_label(rr.winning_side) == labels[rr.winning_side]
        text = _panel_lines_of(g, 0, rr)
        assert f"ROUND OVER: {labels[rr.winning_side]}" in [r[1] for r in text]
        won = " ".join(map(str, rr.winners)) or "NONE"
        assert f"WINNERS: {won}" in [r[1] for r in text]
        img = render_rgb(g, 0, round_result=rr)
        for s, role in enumerate(rr.roles):
            row = next(r for r in text if r[1].startswith(str(s)))
            assert row[2] == role_color(g.rules, role)
            block, _ = _text_row(img, g, 0, rr, row[1])
            assert _has(block, SABOTEUR_RED) == (g.rules.roles[role] == "saboteur")
            if g.rules.roles[role] == "blue-digger":
                assert _has(block, DOOR_COLORS["blue"])


def test_every_action_card_has_a_label_that_fits_its_hand_column():
    """Every action card of the card table (Saboteur 2's included, RULES 6.5) is written in
    the hand list by a label of at most ``LABEL_WIDTH`` characters, never its raw id; the
    base game's labels are the ones it always had."""
    from saboteur_env.engine.cards import ALL_KINDS
    from saboteur_env.render_image import (
        LABEL_WIDTH,
        MARGIN,
        SHORT_NAMES,
        _card_short,
        panel_width,
        text_size,
    )

    actions = [k for k, kind in enumerate(ALL_KINDS) if kind.category == "action"]
    labels = [_card_short(k) for k in actions]
    assert len(set(labels)) == len(labels) == len(SHORT_NAMES)
    for k, label in zip(actions, labels):
        assert len(label) <= LABEL_WIDTH and "_" not in label, (ALL_KINDS[k].id, label)
        assert text_size(label, 2)[1] <= LABEL_WIDTH * 12
    assert SHORT_NAMES["hands_off"] == "HANDSOFF" and SHORT_NAMES["free_at_last"] == "FREE!"
    assert {k: SHORT_NAMES[k] for k in list(SHORT_NAMES)[:11]} == {
        "break_pick": "BREAK-P",
        "break_lantern": "BREAK-L",
        "break_cart": "BREAK-C",
        "repair_pick": "FIX-P",
        "repair_lantern": "FIX-L",
        "repair_cart": "FIX-C",
        "repair_pick_lantern": "FIX-P/L",
        "repair_pick_cart": "FIX-P/C",
        "repair_lantern_cart": "FIX-L/C",
        "rockfall": "ROCKFALL",
        "map": "MAP",
    }
    # a hand of every Saboteur 2 action card: three labels a row, each in its column
    x_actions = [ALL_KINDS[k].id for k in actions if ALL_KINDS[k].count_expansion]
    assert "free_at_last" in x_actions and "hands_off" in x_actions
    g = _s2_state(hands=[x_actions, ["B01"], ["X25"], ["map"], ["trapped"]])
    img = render_rgb(g, 0)
    text = [r[1] for r in _panel_lines_of(g, 0, None)]
    rows = text[text.index("HAND:") + 1 :]
    assert len(rows) == -(-len(x_actions) // 3)
    for i, row in enumerate(rows):
        want = [SHORT_NAMES[c] for c in x_actions[3 * i : 3 * i + 3]]
        assert [row[j : j + LABEL_WIDTH].strip() for j in range(0, len(row), 9)] == want
        assert text_size(row, 2)[1] <= panel_width(g) - 2 * MARGIN
        block, _ = _text_row(img, g, 0, None, row)
        assert np.array_equal(block, _drawn(row, (235, 235, 235)))
