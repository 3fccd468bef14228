"""The test hook rejects inconsistent positions with a clear ValueError (DESIGN 2), and the
``last_placed`` board channel follows the engine's own record of the last placement."""

import numpy as np
import pytest

from saboteur_env import build_state
from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.history import round_history
from saboteur_env.encoding.observation import BOARD_CHANNELS, ObservationEncoder
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.state import Discard, PlacePath, Repair, Rockfall

ROLES = ["gold-digger", "saboteur", "gold-digger"]
HANDS = [["B07"], ["B02"], ["map"]]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"goals": (0, 0, 0)}, "one gold"),
        ({"nuggets": [7]}, "worth 1, 2 or 3"),
        ({"current": 5}, "must be a seat 0..2"),
        ({"broken": [["hammer"], [], []]}, "broken tool 'hammer'"),
        ({"hands": [["B07"], [], ["map"]], "current": 1}, "seat 1 is to act but holds no card"),
    ],
)
def test_build_state_rejects_inconsistent_positions(kwargs, match):
    """RULES 1.2 (goals), 1.4 (nugget values), 1.3 (tools), 5.1 (nobody can act)."""
    args = {"roles": ROLES, "hands": HANDS, **kwargs}
    with pytest.raises(ValueError, match=match):
        build_state(**args)


def test_double_repair_error_names_the_tool():
    """RULES 3.3: the message names the tool, not its index."""
    g = build_state(
        roles=ROLES, hands=[["repair_pick_lantern"], ["B02"], ["map"]], broken=[["cart"], [], []]
    )
    assert g.check(Repair(22, 2, 0)) == "repair_pick_lantern cannot repair a cart (RULES 3.3)"


def test_last_placed_channel_tracks_the_last_placement_and_its_removal():
    """DESIGN 4: channel ``last_placed`` marks the most recent path card still in the maze,
    however many other actions came after it (RULES 3.1, 3.4)."""
    cfg = GameConfig(num_players=3)
    g = build_state(
        cfg,
        roles=ROLES,
        hands=[
            ["B02", "rockfall", "repair_pick", "repair_cart", "repair_lantern"],
            ["map"] * 3,
            ["map"] * 3,
        ],
    )
    enc = ObservationEncoder(cfg)
    codec = Codec(cfg)
    ch = [n for n, _ in BOARD_CHANNELS].index("last_placed")
    x0, _, y0, _ = cfg.board_window

    def marked():
        board = enc.views(enc.encode(g, 1))["board"][ch]
        return [(int(c) + x0, int(r) + y0) for r, c in zip(*np.nonzero(board))]

    assert marked() == []
    g.apply(PlacePath(1, 1, 0))  # B02 east of the start
    assert marked() == [(1, 0)]
    for _ in range(9):  # nine discards, more than the 8 actions of the `recent` view
        if g.current == 0:
            g.apply(Discard(min(k for k in (19, 20, 21) if g.hands[0, k])))
        else:
            legal = np.flatnonzero(codec.mask(g))
            g.apply(codec.decode(int(legal[-1]), g.current, g.n))
    recent = round_history(g.events, g.n).recent
    assert len([r for r in recent if r[1] == 0]) == 0  # the placement left `recent`
    assert marked() == [(1, 0)]
    while g.current != 0:
        legal = np.flatnonzero(codec.mask(g))
        g.apply(codec.decode(int(legal[-1]), g.current, g.n))
    g.apply(Rockfall(1, 0))
    assert marked() == []


def test_event_data_is_read_only_and_survives_copies():
    """Events are shared by every observer's infos and the history: nobody may change them."""
    import copy
    import pickle

    import saboteur_env

    env = saboteur_env.env(num_players=4)
    env.reset(seed=0)
    info = env.last()[4]
    with pytest.raises(TypeError, match="read-only"):
        info["events"][0].data["round"] = 99
    with pytest.raises(TypeError, match="read-only"):
        info["events"][0].data.update(round=99)
    assert env.unwrapped.game.events[0].data["round"] == 0
    for clone in (pickle.loads(pickle.dumps(env.unwrapped)), copy.deepcopy(env.unwrapped)):
        assert clone.game.events[0].data == {"round": 0, "first_player": 0}


def test_ansi_draws_saboteur_2_cards_by_their_data():
    """RULES 6.3: ladders, bridges, doors and crystals get their own symbol in the text view;
    base cards keep ``+`` / ``x``."""
    from saboteur_env.engine.cards import KIND_INDEX, VARIANT_OF, VARIANTS
    from saboteur_env.render import _centre

    def centre(kid):
        return _centre(VARIANTS[VARIANT_OF[(KIND_INDEX[kid], False)]])

    assert [centre(k) for k in ("B07", "B16", "X05", "X01", "X02", "X09", "X11", "X25", "X19")] == [
        "+",
        "x",
        "H",
        "&",
        "&",
        "=",
        "#",
        "*",
        "*",
    ]


def test_check_counts_false_loads_more_copies_than_the_deck_holds():
    """RULES 1.1: the deck holds 5 crossroads (B07); a position with 6 is refused by default,
    naming the way out, and loaded with ``check_counts=False`` (the deck then holds none)."""
    from saboteur_env.engine.cards import KIND_INDEX
    from saboteur_env.engine.ruleset import BASE

    k = KIND_INDEX["B07"]
    copies = int(BASE.deck[k]) + 1
    assert copies == 6
    cells = [(x, 0, "B07", False) for x in range(1, copies + 1)]
    with pytest.raises(ValueError, match="check_counts=False"):
        build_state(GameConfig(num_players=3), roles=ROLES, hands=[["map"]] * 3, board=cells)
    g = build_state(
        GameConfig(num_players=3), roles=ROLES, hands=[["map"]] * 3, board=cells, check_counts=False
    )
    assert g.board.path_cards_on_board() == copies
    assert g.hands[:, k].sum() == 0 and (g.deck != k).all()
    assert g.board.connected_openings(copies, 0) != 0  # connectivity computed


@pytest.mark.parametrize(
    "options,words",
    [
        ({"hands": [[-1], ["map"], ["map"]]}, "card kind -1"),
        ({"hands": [[999], ["map"], ["map"]]}, "card kind 999"),
        ({"hands": [["theft"], ["map"], ["map"]]}, "this game's deck"),
        ({"trapped": [0]}, "trapped"),
        ({"gold": [1, 2]}, "gold"),
        ({"gold": [1, -2, 0]}, "gold"),
        ({"known_goals": [[5], [], []]}, "known_goals"),
    ],
)
def test_build_state_names_bad_arguments(options, words):
    """The test hook refuses what no game can hold, naming the argument (base game)."""
    kw = {"roles": ROLES, "hands": [["map"]] * 3, **options}
    with pytest.raises(ValueError, match=words):
        build_state(GameConfig(num_players=3), **kw)


def test_thefts_in_front_come_before_a_new_theft():
    """RULES 6.9: Thefts already in front of a hand-built position were played before any
    Theft played from it, so a new Theft is the most recent and goes first (fix: their order
    numbers collided with the new one's)."""
    from saboteur_env.engine import PlayCard
    from saboteur_env.engine.cards import KIND_INDEX

    cfg = GameConfig(num_players=5, expansion=True)
    g = build_state(
        cfg,
        roles=["green-digger"] * 5,
        hands=[["theft"], [], [], [], []],
        deck=[],
        theft=[3, 4, 2],
        gold=[1, 1, 1, 1, 1],
    )
    g.apply(PlayCard(KIND_INDEX["theft"], 0))
    from saboteur_env.engine.scoring import theft_order

    assert theft_order(g.theft_turn.tolist(), g.xfront[:, 1].tolist(), g.xfront[:, 0].tolist()) == [
        0,
        2,
        3,
        4,
    ]
