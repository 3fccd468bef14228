"""Bad input (RULES 10, DESIGN 3, 5): every wrong call gives a clear error naming what was
wrong, and leaves the environment / game exactly as it was.

Covered: a masked action index, an index outside ``Discrete(n)``, a value of the wrong type
(float, str, None for a live agent, numpy bool, Python bool), an action for a terminated agent,
a step after the game, a step before reset, bad seeds, bad options (RULES 10), and illegal
structured actions given to :meth:`Game.apply` (DESIGN 2).  The raw and the wrapped env behave
the same (the wrapped env keeps the raw env's clear messages instead of PettingZoo's bare
``AssertionError``).
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

import saboteur_env
from saboteur_env import Codec, ConfigError, Game, GameConfig, IllegalActionError, build_state
from saboteur_env.engine.state import BreakTool, Discard, Map, PlacePath, Repair, Rockfall

MAKERS = {"raw": saboteur_env.raw_env, "wrapped": saboteur_env.env}


def snapshot(e) -> tuple:
    """Everything an agent loop sees, plus the game's generator and full event history."""
    raw = e.unwrapped
    g = raw.game
    obs = tuple(
        (raw.observe(a)["observation"].tobytes(), raw.observe(a)["action_mask"].tobytes())
        for a in raw.agents
    )
    return (
        list(raw.agents),
        raw.agent_selection,
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        dict(raw.truncations),
        repr(raw.infos),
        obs,
        repr(g.rng.bit_generator.state),
        g.hands.tobytes(),
        g.deck.tobytes(),
        g.nuggets.tobytes(),
        g.roles.tobytes(),
        g.board.var.tobytes(),
        g.decisions,
        len(g.events),
    )


def game_snapshot(g: Game) -> tuple:
    return (
        g.hands.tobytes(),
        g.deck.tobytes(),
        g.discards.tobytes(),
        g.broken.tobytes(),
        g.board.var.tobytes(),
        g.board.conn.tobytes(),
        g.known_goals.tobytes(),
        g.nuggets.tobytes(),
        g.gold.tobytes(),
        g.current,
        g.turn,
        g.decisions,
        len(g.events),
        repr(g.rng.bit_generator.state),
    )


def started(kind: str, n: int = 4, seed: int = 3, steps: int = 7, **kw):
    e = MAKERS[kind](num_players=n, **kw)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs = e.observe(e.agent_selection)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return e


def finish(e, rng=None):
    rng = rng or np.random.default_rng(0)
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# --- step with a bad action ----------------------------------------------------------------
@pytest.mark.parametrize("kind", MAKERS)
def test_masked_index_raises_naming_the_rule_and_changes_nothing(kind):
    """Case P4 (a): a masked index raises IllegalActionError that names the agent, the index,
    the decoded action and the broken rule; the same call raises the same error again."""
    e = started(kind)
    before = snapshot(e)
    mask = e.observe(e.agent_selection)["action_mask"]
    raw = e.unwrapped
    codec = raw.codec
    # a placement that is masked: the first placement index whose bit is 0
    place_off, _ = codec.blocks["place"]
    bad = int(np.flatnonzero(mask[place_off:] == 0)[0]) + place_off
    messages = []
    for _ in range(2):
        with pytest.raises(IllegalActionError) as err:
            e.step(bad)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert e.agent_selection in messages[0] and str(bad) in messages[0]
    assert snapshot(e) == before
    # a discard of a card kind not in hand: the message names the missing card
    d_off, _ = codec.blocks["discard"]
    hand = raw.game.hands[raw.game.current]
    k = int(np.flatnonzero(hand == 0)[0])
    with pytest.raises(IllegalActionError, match=re.escape("holds no")):
        e.step(d_off + k)
    assert snapshot(e) == before


@pytest.mark.parametrize("kind", MAKERS)
def test_masked_tool_action_names_the_rule(kind):
    """A broken tool on a seat that already has that tool broken: RULES 3.2 named."""
    g = build_state(
        roles=["gold-digger", "saboteur", "gold-digger"],
        hands=[["break_pick", "B02"], ["B01"], ["B03"]],
        broken=[(), ("pick",), ()],
    )
    e = MAKERS[kind](num_players=3)
    e.reset(seed=0)
    raw = e.unwrapped
    raw.load(g)
    before = snapshot(e)
    idx = raw.codec.encode(BreakTool(_kind("break_pick"), 1), 0, 3)
    assert raw.observe("player_0")["action_mask"][idx] == 0
    with pytest.raises(IllegalActionError, match=re.escape("RULES 3.2")):
        e.step(idx)
    assert snapshot(e) == before


def _kind(name):
    from saboteur_env.engine.cards import KIND_INDEX

    return KIND_INDEX[name]


@pytest.mark.parametrize("kind", MAKERS)
@pytest.mark.parametrize("action", [-1, 9789 * 10, 2**40, np.int64(-5)])
def test_out_of_range_index(kind, action):
    e = started(kind)
    before = snapshot(e)
    n = e.action_space(e.agent_selection).n
    with pytest.raises(IllegalActionError, match=re.escape(f"outside Discrete({n})")):
        e.step(action)
    assert snapshot(e) == before


@pytest.mark.parametrize("kind", MAKERS)
@pytest.mark.parametrize(
    "action, typename",
    [
        (3.0, "float"),
        ("3", "str"),
        (None, "NoneType"),
        (np.bool_(True), "bool"),
        (True, "bool"),
        (np.float32(2), "float32"),
        ([3], "list"),
    ],
)
def test_wrong_type(kind, action, typename):
    """A float, a str, None for a live agent, a numpy or Python bool: TypeError naming the
    type; nothing changes."""
    e = started(kind)
    before = snapshot(e)
    with pytest.raises(TypeError, match=r"action must be an int.*not " + typename):
        e.step(action)
    assert snapshot(e) == before


@pytest.mark.parametrize("kind", MAKERS)
def test_numpy_integer_actions_are_accepted(kind):
    """np.int64 / np.int32 indexes are ints (the mask's own dtype family)."""
    e = started(kind, steps=0)
    f = started(kind, steps=0)
    legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
    e.step(np.int32(legal[0]))
    f.step(int(legal[0]))
    assert snapshot(e) == snapshot(f)


@pytest.mark.parametrize("dtype", [np.uint64, np.uint16, np.int8])
def test_unsigned_and_narrow_numpy_indexes_fail_alike_in_both_envs(dtype):
    """A masked index as np.uint64 (or any numpy integer width) gets the raw env's clear
    IllegalActionError from the wrapped env too, not PettingZoo's bare AssertionError; the
    state is untouched.  A legal one plays as the same Python int would."""
    bad = 530 if dtype is not np.int8 else 100
    errors = []
    for kind in MAKERS:
        e = started(kind)
        assert not e.observe(e.agent_selection)["action_mask"][bad]
        before = snapshot(e)
        with pytest.raises(IllegalActionError, match=rf"may not play action {bad}\b") as err:
            e.step(dtype(bad))
        errors.append(str(err.value))
        assert snapshot(e) == before
    assert errors[0] == errors[1]
    e, f = started("wrapped"), started("wrapped")
    legal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1])
    e.step(np.uint64(legal))
    f.step(legal)
    assert snapshot(e) == snapshot(f)


def test_numpy_out_of_range_uint64_is_named_by_the_wrapped_env():
    e = started("wrapped")
    before = snapshot(e)
    with pytest.raises(IllegalActionError, match=r"outside Discrete\(9789\)"):
        e.step(np.uint64(2**63 + 5))
    assert snapshot(e) == before


def test_codec_encode_with_narrow_numpy_fields_does_not_wrap():
    """Saboteur 2's indexes pass 32767: numpy int16 fields (as read from a hand array) give
    the same index as Python ints, never an int16 overflow."""
    codec = Codec(GameConfig(expansion=True))
    assert codec.encode(Discard(np.int16(59)), 0, 5) == codec.encode(Discard(59), 0, 5)
    assert codec.encode(Discard(np.int16(59)), 0, 5) == codec.blocks["discard"][0] + 59
    last = codec.variants[-1]
    from saboteur_env.engine.cards import VARIANTS

    v = VARIANTS[last]
    plain = PlacePath(int(v.kind), 3, 2, bool(v.rotated))
    narrow = PlacePath(np.int16(v.kind), np.int16(3), np.int16(2), np.bool_(v.rotated))
    i = codec.encode(narrow, 0, 5)
    assert isinstance(i, int) and i == codec.encode(plain, 0, 5) > 32767
    assert codec.decode(i, 0, 5) == plain


def test_default_and_largest_board_windows_are_accepted():
    from saboteur_env.engine.config import MAX_WINDOW_SIDE
    from saboteur_env.engine.ruleset import RULESETS

    for rules in RULESETS.values():
        x0, x1, y0, y1 = rules.default_window
        assert x1 - x0 + 1 <= MAX_WINDOW_SIDE and y1 - y0 + 1 <= MAX_WINDOW_SIDE
    cfg = GameConfig(board_window=(-51, 8, -29, 30))
    assert cfg.window == (-51, 8, -29, 30)


@pytest.mark.parametrize("kind", MAKERS)
def test_action_for_terminated_agent_raises(kind):
    """Case P1: after the game, a non-None action for a terminated agent raises; None is the
    only valid action and removes the agent."""
    e = MAKERS[kind](num_players=3, num_rounds=1)
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    while not e.unwrapped.game.game_over:
        obs = e.observe(e.agent_selection)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    agent = e.agent_selection
    assert e.terminations[agent]
    before = snapshot(e)
    for bad in (0, 5, np.int64(1)):
        with pytest.raises(IllegalActionError, match=re.escape(f"{agent} is done")):
            e.step(bad)
        assert snapshot(e) == before
    e.step(None)
    assert agent not in e.agents


def test_step_after_the_game_raw_env_raises():
    """The raw env: any step once every agent is removed is a clear error (not a KeyError)."""
    e = MAKERS["raw"](num_players=3, num_rounds=1)
    e.reset(seed=2)
    finish(e)
    assert e.agents == []
    gold = e.game.gold.copy()
    for a in (0, None):
        with pytest.raises(IllegalActionError, match="game is over.*reset"):
            e.step(a)
    np.testing.assert_array_equal(e.game.gold, gold)


def test_step_after_the_game_wrapped_env_warns():
    """The wrapped env keeps PettingZoo's OrderEnforcingWrapper convention: a step after every
    agent is done logs a warning telling to reset() and changes nothing."""
    e = MAKERS["wrapped"](num_players=3, num_rounds=1)
    e.reset(seed=2)
    finish(e)
    events = len(e.unwrapped.game.events)
    e.step(0)  # PettingZoo's EnvLogger prints the warning; nothing happens
    assert len(e.unwrapped.game.events) == events and e.agents == []


@pytest.mark.parametrize("kind", MAKERS)
def test_step_before_reset(kind):
    e = MAKERS[kind](num_players=3)
    with pytest.raises((RuntimeError, AssertionError), match="reset"):
        e.step(0)


# --- bad seeds ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", MAKERS)
@pytest.mark.parametrize(
    "seed, exc, words",
    [
        (-1, ValueError, "non-negative"),
        (1.5, TypeError, "float"),
        (2.0, TypeError, "float"),
        ("7", TypeError, "str"),
        (True, TypeError, "bool"),
        ([1], TypeError, "list"),
    ],
)
def test_bad_seed_raises_and_keeps_the_game(kind, seed, exc, words):
    e = started(kind)
    before = snapshot(e)
    with pytest.raises(exc, match=words):
        e.reset(seed=seed)
    assert snapshot(e) == before


@pytest.mark.parametrize("kind", MAKERS)
def test_numpy_and_none_seeds_are_accepted(kind):
    e, f = MAKERS[kind](num_players=3), MAKERS[kind](num_players=3)
    e.reset(seed=np.int64(12))
    f.reset(seed=12)
    assert snapshot(e) == snapshot(f)
    e.reset(seed=None)
    assert e.agents == e.possible_agents


# --- bad configs ----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", MAKERS)
@pytest.mark.parametrize(
    "options, words",
    [
        ({"num_players": 2}, r"num_players=2.*3 to 10"),
        ({"num_players": 11}, r"num_players=11.*3 to 10"),
        ({"num_players": 0}, r"num_players=0"),
        ({"num_players": "5"}, r"num_players='5'.*int"),
        ({"num_players": 5.0}, r"num_players=5.0.*int"),
        ({"num_players": True}, r"num_players=True.*int"),
        ({"num_rounds": 0}, r"num_rounds=0.*positive"),
        ({"num_rounds": -2}, r"num_rounds=-2.*positive"),
        ({"num_rounds": 1.5}, r"num_rounds=1.5"),
        ({"role_table": "official"}, r"role_table='official'.*'published' or 'seed'"),
        ({"role_table": None}, r"role_table=None"),
        ({"expansion": True, "num_players": 13}, r"num_players=13.*expansion.*2 to 12"),
        ({"expansion": True, "num_players": 1}, r"num_players=1.*2 to 12"),
        ({"expansion": "yes"}, r"expansion='yes'.*bool"),
        ({"self_sabotage": 1}, r"self_sabotage=1.*bool"),
        ({"first_player": 7, "num_players": 4}, r"first_player=7"),
        ({"first_player": "youngest"}, r"first_player='youngest'"),
        ({"reward": "points"}, r"reward='points'"),
        ({"max_cycles": 0}, r"max_cycles=0"),
        ({"max_cycles": True}, r"max_cycles=True.*positive int"),
        ({"max_cycles": 2.0}, r"max_cycles=2.0.*positive int"),
        ({"board_window": (-2000, 2000, -2000, 2000)}, r"board_window.*at most 60 a side"),
        ({"board_window": (-52, 8, -2, 2)}, r"board_window.*61 x 5 cells"),
        ({"board_window": (1, 14, -8, 8)}, r"board_window.*start"),
        ({"board_window": (0, 8, -2)}, r"board_window.*four ints"),
        ({"both_doors_rule": "x"}, r"both_doors_rule='x'"),
        ({"foo": 1}, r"unknown GameConfig option\(s\) \['foo'\]"),
        ({"players": 5}, r"unknown GameConfig option\(s\) \['players'\]"),
    ],
)
def test_bad_config_names_the_option(kind, options, words):
    """RULES 10: a clear ConfigError (a ValueError) naming the option and its bad value."""
    with pytest.raises(ConfigError, match=words):
        MAKERS[kind](**options)
    with pytest.raises(ValueError):
        MAKERS[kind](**options)


@pytest.mark.parametrize("kind", MAKERS)
def test_bad_render_mode(kind):
    with pytest.raises(ValueError, match=r"render_mode='rgb'"):
        MAKERS[kind](render_mode="rgb")


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"expansion": True, "role_table": "seed"}, r"role_table='seed': .*Saboteur 2"),
        ({"expansion": True, "broken_tool_forfeit": True}, r"broken_tool_forfeit=True: .*Sab"),
        ({"both_doors_rule": "bga"}, r"both_doors_rule='bga': is not an option of the base"),
        ({"remove_cards_each_round": False}, r"remove_cards_each_round=False: .*base game"),
    ],
)
def test_a_variant_option_of_the_other_game_is_refused(options, match):
    """A variant option (RULES 10) that the chosen game's rules never read, given a value
    other than its default, is a ConfigError naming it (it was accepted and changed nothing);
    its default stays accepted, and the game's own options too."""
    with pytest.raises(ConfigError, match=match):
        GameConfig(**options)
    name = next(k for k in options if k != "expansion")
    default = GameConfig().options()[name]
    assert getattr(GameConfig(**{**options, name: default}), name) == default
    expansion = not options.get("expansion", False)  # the game the option belongs to
    assert getattr(GameConfig(**{**options, "expansion": expansion}), name) == options[name]


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 3},
        {"num_players": 10},
        {"num_rounds": 1},
        {"role_table": "seed"},
        {"first_player": "random"},
        {"max_cycles": 5},
    ],
)
def test_good_configs_are_accepted(options):
    e = saboteur_env.env(**options)
    e.reset(seed=0)
    c = e.unwrapped.config
    assert {k: getattr(c, k) for k in options} == options  # taken, not defaulted
    assert len(e.agents) == c.num_players


# --- the engine: illegal structured actions ----------------------------------------------
def test_game_apply_illegal_actions_name_the_rule_and_change_nothing():
    """Game.apply raises IllegalActionError naming the rule (RULES section) and leaves the
    state untouched (DESIGN 2)."""
    g = build_state(
        roles=["gold-digger", "saboteur", "gold-digger"],
        hands=[["B02", "B10", "break_pick", "repair_lantern", "map", "rockfall"], ["B01"], ["B03"]],
        board=[(1, 0, "B07", False)],
        revealed=[(1, False)],
        goals=(1, 2, 0),
        broken=[(), ("pick",), ()],
    )
    cases = [
        (PlacePath(_kind("B02"), 5, 0), "RULES 3.1"),  # not touching the maze
        (PlacePath(_kind("B02"), 1, 0), "not empty"),  # occupied cell
        (PlacePath(_kind("B02"), 2, 0, True), "symmetric"),  # duplicate orientation
        (PlacePath(_kind("B01"), 2, 0), "holds no B01"),  # card not in hand
        (PlacePath(_kind("B02"), 40, 0), "outside the board window"),
        (BreakTool(_kind("break_pick"), 1), "already has a broken pick"),
        (BreakTool(_kind("break_pick"), 7), "target seat 7"),
        (Repair(_kind("repair_lantern"), 1, 2), "no broken lantern"),
        (Repair(_kind("repair_lantern"), 0, 1), "cannot repair"),
        (Rockfall(0, 0), "never the start or a goal"),
        (Rockfall(8, 0), "never the start or a goal"),
        (Rockfall(3, 3), "RULES 3.4"),
        (Map(1), "face-down goal"),
        (Map(5), "goal slot 5"),
        (Discard(_kind("B05")), "holds no B05"),
    ]
    before = game_snapshot(g)
    for action, words in cases:
        with pytest.raises(IllegalActionError, match=re.escape(words)):
            g.apply(action)
        assert g.check(action) is not None
        assert game_snapshot(g) == before, action


def test_game_apply_after_game_over_raises():
    cfg = GameConfig(num_players=3, num_rounds=1)
    g, codec = Game(cfg, 1), Codec(cfg)
    rng = np.random.default_rng(0)
    last = None
    while not g.game_over:
        last = codec.decode(int(rng.choice(np.flatnonzero(codec.mask(g)))), g.current, g.n)
        g.apply(last)
    before = game_snapshot(g)
    with pytest.raises(IllegalActionError, match=re.escape("game is over")):
        g.apply(last)
    assert game_snapshot(g) == before


def test_codec_decode_rejects_bad_indexes():
    codec = Codec(GameConfig(num_players=3))
    for bad in (-1, codec.n):
        with pytest.raises(ValueError, match="outside the action space"):
            codec.decode(bad, 0, 3)
    off, _ = codec.blocks["tool"]
    with pytest.raises(ValueError, match="relative seat 5"):
        codec.decode(off + 5, 0, 3)  # target relative seat 5 in a 3-player game
    for actor in (7, -1):  # an actor who is not a seat of the game
        with pytest.raises(ValueError, match=f"actor seat {actor} is not in play: seats 0..2"):
            codec.decode(0, actor, 3)
        with pytest.raises(ValueError, match="actor seat"):
            codec.describe(0, actor, 3)


def test_masked_tool_index_for_absent_seat_in_env():
    """A tool action aimed at a relative seat that does not exist (padding): a clear error."""
    e = started("raw", n=3)
    before = snapshot(e)
    off, _ = e.codec.blocks["tool"]
    with pytest.raises(IllegalActionError, match="only 3 players"):
        e.step(off + 9)
    assert snapshot(e) == before


def test_deepcopy_equal_after_failed_calls():
    """A deep copy taken before a burst of bad calls equals the env after them."""
    e = started("wrapped", n=5, steps=12)
    c = copy.deepcopy(e)
    for bad in (1.0, "x", None, -3, 10**7, np.bool_(False)):
        with pytest.raises((TypeError, IllegalActionError)):
            e.step(bad)
    for bad in (-1, "s"):
        with pytest.raises((TypeError, ValueError)):
            e.reset(seed=bad)
    assert snapshot(c) == snapshot(e)


@pytest.mark.parametrize(
    "bad",
    [
        "Map(1.0)",
        "Map(True)",
        "PlacePath(K['B02'], 1, 0, 'yes')",
        "PlacePath(K['B02'], 1, 0, 2)",
        "PlacePath(K['B02'], 1.0, 0)",
        "Repair(K['repair_pick'], 0.0, 1)",
        "Rockfall('1', 0)",
        "BreakTool(K['break_cart'], 1.0)",
        "Discard(-1)",
        "Discard(999)",
    ],
)
def test_malformed_actions_are_refused_with_the_state_untouched(bad):
    """Values of the wrong type are refused by ``check`` (no coercion), and ``apply`` raises
    :class:`IllegalActionError` with the state unchanged (fix: some passed ``check`` and then
    crashed half-way through ``apply``)."""
    from saboteur_env.engine import BreakTool, Map, PlacePath, Repair, Rockfall, build_state
    from saboteur_env.engine.cards import KIND_INDEX as K

    g = build_state(
        GameConfig(num_players=3),
        roles=["gold-digger"] * 3,
        hands=[["map", "B02", "repair_pick", "break_cart", "rockfall"], ["map"], ["map"]],
        broken=[[], ["pick"], []],
    )
    action = eval(
        bad,
        {
            "Map": Map,
            "PlacePath": PlacePath,
            "Repair": Repair,
            "K": K,
            "Rockfall": Rockfall,
            "BreakTool": BreakTool,
            "Discard": Discard,
        },
    )
    before = (g.hands.copy(), g.decisions, len(g.events), g.board.var.copy(), g.broken.copy())
    assert isinstance(g.check(action), str)
    with pytest.raises(IllegalActionError):
        g.apply(action)
    after = (g.hands, g.decisions, len(g.events), g.board.var, g.broken)
    assert all(np.array_equal(a, b) for a, b in zip(before, after))


def test_engine_entry_points_name_bad_arguments():
    """Game, legal, legal_actions and determinize refuse wrong types and seats by name."""
    g = Game(GameConfig(num_players=5), 0)
    with pytest.raises(TypeError, match="GameConfig"):
        Game(5)  # type: ignore[arg-type]
    for bad in ("abc", -1, 1.5):
        with pytest.raises(ValueError, match="seed"):
            Game(GameConfig(), bad)  # type: ignore[arg-type]
    for seat in (9, -1, 1.0):
        with pytest.raises(ValueError, match="seat"):
            g.legal(seat)
        with pytest.raises(ValueError, match="seat"):
            g.determinize(seat, np.random.default_rng(0))
    with pytest.raises(TypeError, match="Generator"):
        g.determinize(2, 5)
    from saboteur_env.engine import build_state
    from saboteur_env.engine.cards import KIND_INDEX

    h = build_state(
        GameConfig(num_players=3),
        roles=["gold-digger"] * 3,
        hands=[["B02", "repair_cart"], ["map"], ["map"]],
        broken=[[], [], ["cart"]],
    )
    assert "must be ints" in h.check(PlacePath(KIND_INDEX["B02"], "1", 0))
    assert "0 (pick), 1 (lantern) or 2 (cart)" in h.check(Repair(KIND_INDEX["repair_cart"], 2.0, 2))


def test_a_card_kind_that_is_not_an_int_is_named_as_such():
    """``Discard(True)`` / ``PlacePath(1.0, ...)``: the kind's type is the fault, even when
    the seat holds kind 1 (the message said "holds no card of kind True")."""
    from saboteur_env.engine import PlacePath, build_state
    from saboteur_env.engine.cards import CARD_KINDS

    g = build_state(
        GameConfig(num_players=3),
        roles=["gold-digger"] * 3,
        hands=[[CARD_KINDS[1].id, "map"], ["map"], ["map"]],
    )
    assert g.check(Discard(1)) is None
    for bad in (Discard(True), Discard(1.0), PlacePath(1.0, 1, 0)):
        assert g.check(bad).startswith(f"card kind {bad.kind!r} is not an int")


@pytest.mark.parametrize("role", [-1, 7, True, 1.0, "boss"])
def test_a_role_the_ruleset_lacks_is_named_with_the_valid_ones(role):
    from saboteur_env.engine import BASE

    with pytest.raises(ValueError, match=rf"^{re.escape(repr(role))} is not a role of the base"):
        BASE.role_id(role)


def test_an_index_no_action_of_the_table_has_and_an_unknown_agent_are_named():
    """An action index outside this player count's seats says why without a ``(None)`` where
    the action would be described; observing an agent the env does not have names the
    agents it has."""
    e = saboteur_env.raw_env(num_players=5, expansion=True)
    e.reset(seed=0)
    with pytest.raises(IllegalActionError) as err:
        e.step(e.codec.n - 1)
    assert str(err.value) == (
        f"player_0 may not play action {e.codec.n - 1}: action {e.codec.n - 1} targets "
        "relative seat 11, but only 5 players are in play"
    )
    for ask in (e.observe, e.observation_space, e.action_space):
        with pytest.raises(KeyError, match=r"'player_9' is not an agent of this env: \['player_0'"):
            ask("player_9")
