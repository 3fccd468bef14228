"""The observation spec (DESIGN 4): the spec kept as data in
``saboteur_env.encoding.observation`` matches the flat tensor and the env's ``Box``; the named
views have the documented shapes; and the encoded values at hand-built positions are exactly
what the channels' meanings say (RULES 2.1, 3.1, 4.1, 4.2, 3.5).
"""

from __future__ import annotations

import numpy as np
import pytest

import saboteur_env
from saboteur_env import Game, GameConfig, build_state
from saboteur_env.encoding.observation import (
    BOARD_CHANNELS,
    GAME_FEATURES,
    HISTORY_ACTOR,
    PLAYER_FEATURES,
    PRIVATE_FEATURES,
    RECENT_TYPES,
    ObservationEncoder,
)
from saboteur_env.engine.cards import GOAL_CELLS, KIND_INDEX
from saboteur_env.engine.ruleset import BASE
from saboteur_env.engine.state import BreakTool, PlacePath

CH = {name: i for i, (name, _) in enumerate(BOARD_CHANNELS)}
OPEN = ("open_n", "open_e", "open_s", "open_w")
CONN = ("conn_n", "conn_e", "conn_s", "conn_w")


@pytest.mark.parametrize(
    "options", [{}, {"num_players": 3}, {"num_players": 10, "board_window": (-3, 10, -4, 5)}]
)
def test_spec_partitions_the_flat_tensor_and_matches_the_box(options):
    cfg = GameConfig(**options)
    enc = ObservationEncoder(cfg)
    spec = enc.spec()
    assert [v.name for v in spec] == [
        "board",
        "hand",
        "role",
        "players",
        "history",
        "tools",
        "recent",
        "game",
        "private",
    ]
    off = 0
    for v in spec:
        assert v.offset == off and v.size == int(np.prod(v.shape))
        off += v.size
    assert off == enc.size
    e = saboteur_env.raw_env(**options)
    box = e.observation_space("player_0")["observation"]
    assert box.shape == (enc.size,) and box.dtype == np.float32
    for v in spec:
        np.testing.assert_array_equal(box.low[v.offset : v.offset + v.size], v.low)
        np.testing.assert_array_equal(box.high[v.offset : v.offset + v.size], v.high)
        assert v.low < v.high and v.meaning
    x0, x1, y0, y1 = cfg.board_window
    mp = cfg.max_players
    shapes = {v.name: v.shape for v in spec}
    assert shapes == {
        "board": (len(BOARD_CHANNELS), y1 - y0 + 1, x1 - x0 + 1),
        "hand": (27,),
        "role": (len(BASE.roles),),
        "players": (mp, len(PLAYER_FEATURES)),
        "history": (mp, len(HISTORY_ACTOR)),
        "tools": (mp, mp, 2),
        "recent": (8, mp + len(RECENT_TYPES) + mp + 3 + 4),
        "game": (len(GAME_FEATURES),),
        "private": (len(PRIVATE_FEATURES),),
    }
    assert len(BOARD_CHANNELS) == 17 and len({n for n, _ in BOARD_CHANNELS}) == 17


def test_views_shapes_single_and_batch():
    enc = ObservationEncoder(GameConfig())
    flat = np.arange(enc.size, dtype=np.float32)
    views = enc.views(flat)
    for v in enc.spec():
        assert views[v.name].shape == v.shape
        assert views[v.name].ravel()[0] == v.offset  # the view starts at its offset
        assert np.shares_memory(views[v.name], flat)
    batch = np.stack([flat, flat + 1])
    bviews = enc.views(batch)
    for v in enc.spec():
        assert bviews[v.name].shape == (2, *v.shape)
        np.testing.assert_array_equal(bviews[v.name][1], views[v.name] + 1)


def test_views_refuse_an_observation_of_another_size():
    """An observation of the other game (Saboteur 2's 18,810 values to the base game's
    encoder of 6,701, and the reverse) or a scalar is refused naming both sizes; before, a
    longer one was split silently into base-shaped views of the wrong values."""
    base = ObservationEncoder(GameConfig())
    s2 = ObservationEncoder(GameConfig(expansion=True))
    assert (base.size, base.state_size, s2.size, s2.state_size) == (6701, 7097, 18810, 19845)
    with pytest.raises(ValueError, match=r"shape \(18810,\); .* 6701 values .* 7097"):
        base.views(np.zeros(s2.size, dtype=np.float32))
    with pytest.raises(ValueError, match=r"shape \(2, 6701\); .* 18810 values"):
        s2.views(np.zeros((2, base.size), dtype=np.float32))
    with pytest.raises(ValueError, match="got float 1.0"):
        base.views(1.0)  # type: ignore[arg-type]
    assert base.views(np.zeros(base.state_size))["all_roles"].shape[0] == base.max_players


def test_big_num_rounds_stays_inside_the_box():
    """The ``game`` view holds num_rounds: its upper bound follows the option (fixed: a game of
    more than 1000 rounds produced observations outside the observation space)."""
    e = saboteur_env.raw_env(num_players=3, num_rounds=5000)
    e.reset(seed=0)
    obs = e.observe("player_0")
    assert e.observation_space("player_0").contains(obs)
    assert e.encoder.views(obs["observation"])["game"][1] == 5000


# --- exact values at a hand-built position --------------------------------------------------
def position() -> Game:
    """Start (0,0); B05 turned 180 (N,S,W) at (0,-1); B03 (N,E) at (0,1); B02 (E,W) at (1,0);
    the dead end B11 (stubs E and W) at (2,0); B02 at (3,0), cut off behind the dead end.
    Goals: top stone A, middle stone B face up at 0 degrees (N, W), bottom gold.  Seat 0 mapped
    the bottom goal, seat 1 the top one."""
    return build_state(
        roles=["gold-digger", "saboteur", "gold-digger"],
        hands=[["B02", "map"], ["break_lantern", "B01", "B01"], ["B04"]],
        board=[
            (0, -1, "B05", True),
            (0, 1, "B03", False),
            (1, 0, "B02", False),
            (2, 0, "B11", False),
            (3, 0, "B02", False),
        ],
        goals=(1, 2, 0),
        revealed=[(1, False)],
        known_goals=[(2,), (0,), ()],
        gold=[3, 1, 0],
        round=1,
        seed=5,
    )


def board_of(g: Game, seat: int) -> tuple[np.ndarray, ObservationEncoder]:
    enc = ObservationEncoder(g.config)
    return enc.views(enc.encode(g, seat))["board"], enc


def cell(g: Game, board: np.ndarray, x: int, y: int) -> dict:
    x0, _, y0, _ = g.config.board_window
    return {name: float(board[i, y - y0, x - x0]) for name, i in CH.items()}


def expect(**on) -> dict:
    return {name: float(name in on) for name in CH}


def sides(prefix, s):
    return {f"{prefix}_{c.lower()}": 1 for c in s}


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_board_channels_exact_values(seat):
    g = position()
    board, _ = board_of(g, seat)
    known = {0: {"gold": [(8, 2)]}, 1: {"stone": [(8, -2)]}, 2: {}}[seat]
    expected = {
        (0, 0): expect(
            **sides("open", "NESW"), **sides("conn", "NESW"), through=1, occupied=1, start=1
        ),
        (0, -1): expect(**sides("open", "NSW"), **sides("conn", "NSW"), through=1, occupied=1),
        (0, 1): expect(**sides("open", "NE"), **sides("conn", "NE"), through=1, occupied=1),
        (1, 0): expect(**sides("open", "EW"), **sides("conn", "EW"), through=1, occupied=1),
        # a dead end: its W stub is reached, but a stub leads nowhere (RULES 4.1)
        (2, 0): expect(**sides("open", "EW"), occupied=1),
        # behind the dead end: not connected (RULES 3.1.5 / 4.1)
        (3, 0): expect(**sides("open", "EW"), through=1, occupied=1),
        # the face-up stone B at 0 degrees opens N and W; nothing reaches it
        (8, 0): expect(
            **sides("open", "NW"), through=1, occupied=1, goal_stone_revealed=1, known_stone=1
        ),
        (8, -2): expect(
            occupied=1,
            goal_hidden=1,
            **({"known_stone": 1} if (8, -2) in known.get("stone", []) else {}),
        ),
        (8, 2): expect(
            occupied=1,
            goal_hidden=1,
            **({"known_gold": 1} if (8, 2) in known.get("gold", []) else {}),
        ),
        (5, 5): expect(),
        (-1, 0): expect(),
        (1, 1): expect(),
    }
    for (x, y), want in expected.items():
        assert cell(g, board, x, y) == want, (x, y)
    # nothing anywhere else
    total = sum(sum(v.values()) for v in expected.values())
    assert board.sum() == total


def test_other_views_exact_values_and_hand_equals_the_actual_hand():
    g = position()
    enc = ObservationEncoder(g.config)
    for seat in range(3):
        v = enc.views(enc.encode(g, seat))
        np.testing.assert_array_equal(v["hand"], g.hands[seat])
        assert v["hand"].sum() == g.hand_size(seat)
        assert v["role"].tolist() == ([0, 1] if g.roles[seat] else [1, 0])
        rows = v["players"]
        for r in range(10):
            if r >= 3:
                assert not rows[r].any()
                continue
            s = (seat + r) % 3
            want = [
                1,
                float(s == g.current),
                *g.broken[s].astype(float),
                g.hand_size(s),
                float(s == g.last_card_seat),
                float(s == g.first_player),
            ]
            assert rows[r].tolist() == want, (seat, r)
        assert v["game"].tolist() == [1, 3, len(g.deck), g.discards.sum(), 0, 3, 5]
        assert v["private"].tolist() == [[3, 1, 0][seat], seat]
        assert not v["history"].any() and not v["tools"].any() and not v["recent"].any()
        assert not v["board"][CH["last_placed"]].any()


def test_public_history_views_after_two_turns():
    """After seat 0 places B02 at (-1, 0) and seat 1 breaks seat 0's lantern: the last_placed
    channel marks (-1, 0) only; history / tools / recent are in relative seats."""
    g = position()
    g.apply(PlacePath(KIND_INDEX["B02"], -1, 0))
    g.apply(BreakTool(KIND_INDEX["break_lantern"], 0))
    enc = ObservationEncoder(g.config)
    mp, nt = 10, len(RECENT_TYPES)
    for seat in range(3):
        v = enc.views(enc.encode(g, seat))
        board = v["board"]
        assert cell(g, board, -1, 0) == expect(
            **sides("open", "EW"), **sides("conn", "EW"), through=1, occupied=1, last_placed=1
        )
        assert board[CH["last_placed"]].sum() == 1
        placer, breaker = (0 - seat) % 3, (1 - seat) % 3
        hist = np.zeros((mp, len(HISTORY_ACTOR)))
        hist[placer, HISTORY_ACTOR.index("placed_through")] = 1
        np.testing.assert_array_equal(v["history"], hist)
        tools = np.zeros((mp, mp, 2))
        tools[breaker, placer, 0] = 1  # seat 1 broke seat 0's tool
        np.testing.assert_array_equal(v["tools"], tools)
        rec = v["recent"]
        assert not rec[:6].any()
        place = np.zeros(rec.shape[1])
        place[placer] = 1
        place[mp + RECENT_TYPES.index("place")] = 1
        place[2 * mp + nt + 3 : 2 * mp + nt + 7] = [-1, 0, 0, 1]
        np.testing.assert_array_equal(rec[6], place)
        brk = np.zeros(rec.shape[1])
        brk[breaker] = 1
        brk[mp + RECENT_TYPES.index("break")] = 1
        brk[mp + nt + placer] = 1
        brk[2 * mp + nt + 1] = 1  # lantern
        brk[2 * mp + nt + 6] = 1
        np.testing.assert_array_equal(rec[7], brk)
        players = v["players"]
        pf = {name: i for i, (name, _) in enumerate(PLAYER_FEATURES)}
        assert players[placer, pf["broken_lantern"]] == 1
        assert players[:, pf["to_act"]].tolist() == [
            float(r == (2 - seat) % 3) for r in range(mp)
        ]  # seat 2 acts
        gf = [name for name, _ in GAME_FEATURES]
        assert v["game"][gf.index("turn")] == 2


def test_goal_cells_of_the_spec():
    """The hidden-goal channel marks exactly the three goal cells of RULES 2.1 at the start."""
    g = Game(GameConfig(num_players=4), 0)
    board, _ = board_of(g, 0)
    x0, _, y0, _ = g.config.board_window
    marked = sorted(
        (int(c) + x0, int(r) + y0) for r, c in zip(*np.nonzero(board[CH["goal_hidden"]]))
    )
    assert marked == sorted(GOAL_CELLS)
    assert board[CH["start"]].sum() == 1 and board[CH["start"], 0 - y0, 0 - x0] == 1
    assert board[CH["occupied"]].sum() == 4


@pytest.mark.parametrize("seat", [-1, 5, True, 1.0, "player_1"])
def test_encode_names_a_viewer_that_is_not_a_seat(seat):
    """``encode(g, -1)`` returned an observation that was no seat's; 7 was an IndexError."""
    from saboteur_env.engine.state import Game

    g = Game(GameConfig(num_players=5), 0)
    enc = ObservationEncoder(GameConfig(num_players=5))
    for encode in (enc.encode, enc.encode_reference):
        with pytest.raises(ValueError, match=r"a seat 0..4 or 'spectator'"):
            encode(g, seat)
