"""Hidden information (DESIGN 4; RULES 2.2, 2.4, 3.5, 3.6, 5.3, 6; cases P9).

For a seat ``s``, two states that differ only in what ``s`` cannot know -- other players' hands,
other players' roles, the set-aside dwarf card, the identities of goals ``s`` has not seen, the
order (and content) of the draw pile, the kinds of cards others discarded face down, other
players' map results, other players' gold, the nugget supply, the game's generator -- must give
``s`` byte-identical observations (``ObservationEncoder.encode``), masks, infos entries (the
events ``s`` may see) and ansi renders (``render_ansi(game, s)``).

The state pairs are built two ways: with :func:`build_state` (hand-built positions, then a
scripted sequence of turns played through the env) and by scrambling the hidden parts of states
reached by random play (our own scrambler and the engine's ``Game.determinize``).
"""

from __future__ import annotations

import copy
from dataclasses import fields

import numpy as np
import pytest

import saboteur_env
from saboteur_env import Codec, Game, GameConfig, build_state
from saboteur_env.encoding.observation import BOARD_CHANNELS, ObservationEncoder
from saboteur_env.engine.cards import KIND_INDEX
from saboteur_env.engine.state import BreakTool, Discard, Map, PlacePath, Rockfall
from saboteur_env.render import render_ansi

K = KIND_INDEX
CH = {name: i for i, (name, _) in enumerate(BOARD_CHANNELS)}


def events_seen(events, s) -> list:
    return [
        (e.type, e.seat, repr(e.data), e.visible_to)
        for e in events
        if e.visible_to is None or e.visible_to == s
    ]


def seen_by(g: Game, s: int, enc: ObservationEncoder, codec: Codec) -> dict:
    """Everything seat ``s`` can perceive of ``g``."""
    return {
        "observation": enc.encode(g, s).tobytes(),
        "mask": codec.mask(g, s).tobytes(),
        "render": render_ansi(g, s),
        "events": events_seen(g.events, s),
    }


def scramble(g: Game, s: int, rng: np.random.Generator, keep_deck: bool = False) -> Game:
    """A copy of ``g`` with everything ``s`` cannot know re-randomised (and kept consistent:
    card and nugget conservation hold, hand sizes and the public discard count are kept)."""
    h = g.copy()
    n = h.n
    others = [t for t in range(n) if t != s]
    # cards: other hands, the draw pile, the kinds others passed face down this round (RULES 3.6)
    start = max(i for i, e in enumerate(h.events) if e.type == "round_start")
    passed = [
        e.data["kind"] for e in h.events[start:] if e.type == "discarded_card" and e.visible_to != s
    ]
    sizes = [h.hand_size(t) for t in others]
    parts = [np.repeat(np.arange(h.n_kinds), h.hands[t]) for t in others]
    parts.append(np.array(passed, dtype=np.int64))
    if not keep_deck:
        parts.append(h.deck.astype(np.int64))
    pool = rng.permutation(np.concatenate(parts)).astype(np.int16)
    pos = 0
    for t, size in zip(others, sizes):
        h.hands[t] = np.bincount(pool[pos : pos + size], minlength=h.n_kinds)
        pos += size
    new_passed = pool[pos : pos + len(passed)]
    pos += len(passed)
    if not keep_deck:
        h.deck = pool[pos:]
    h.discards = (
        h.discards
        - np.bincount(np.array(passed, dtype=np.int64), minlength=h.n_kinds)
        + np.bincount(new_passed, minlength=h.n_kinds)
    )
    assert (h.discards >= 0).all()
    # roles: the others' and the set-aside dwarf card(s) (RULES 2.2)
    roles = rng.permutation(
        np.array([h.roles[t] for t in others] + list(h.set_aside), dtype=np.int8)
    )
    h.roles[others] = roles[: len(others)]
    h.set_aside = roles[len(others) :].tolist()
    # goals s has not seen (others keep which slots they looked at: that is public)
    unknown = [sl for sl in range(3) if not h.known_goals[s, sl]]
    h.board.goal_identity[unknown] = rng.permutation(h.board.goal_identity[unknown])
    # gold: others' gold cards and the supply (RULES 5.3: gold is kept secret)
    values = [h.nuggets.astype(np.int64)] + [np.repeat([1, 2, 3], h.gold_cards[t]) for t in others]
    counts = [int(h.gold_cards[t].sum()) for t in others]
    vpool = rng.permutation(np.concatenate(values))
    pos = 0
    for t, c in zip(others, counts):
        got = vpool[pos : pos + c]
        pos += c
        h.gold_cards[t] = [int((got == v).sum()) for v in (1, 2, 3)]
        h.gold[t] = int(got.sum())
    h.nuggets = vpool[pos:].astype(np.int8)
    h.rng = np.random.default_rng(int(rng.integers(2**32)))
    return h


def random_states(seeds, every, n_of=lambda seed: 3 + seed % 8):
    """(game, codec, encoder) at every ``every``-th decision of random games."""
    for seed in seeds:
        cfg = GameConfig(num_players=n_of(seed))
        g, codec, enc = Game(cfg, seed), Codec(cfg), ObservationEncoder(cfg)
        rng = np.random.default_rng(seed)
        step = 0
        while not g.game_over:
            if step % every == every // 2:
                yield g, codec, enc
            g.apply(codec.decode(int(rng.choice(np.flatnonzero(codec.mask(g)))), g.current, g.n))
            step += 1
        yield g, codec, enc


# --- random play: scrambled hidden parts --------------------------------------------------
def test_scrambled_hidden_parts_of_random_play_states_are_invisible():
    """States of random games (3-10 players, all rounds, the final state too), each seat in
    turn: our scrambler and Game.determinize change nothing the seat perceives.  The scrambles
    do change hidden state (checked), so the comparison has teeth."""
    rng = np.random.default_rng(0)
    changed = checked = gold_changed = gold_checked = 0
    for g, codec, enc in random_states(range(16), every=45):
        for s in range(g.n):
            base = seen_by(g, s, enc, codec)
            for h in (scramble(g, s, rng), g.determinize(s, rng)):
                assert seen_by(h, s, enc, codec) == base, (g.n, g.round, g.turn, s)
                if g.game_over:  # every role face up, hands and pile empty: nothing to hide
                    continue
                changed += any(
                    not np.array_equal(getattr(g, k), getattr(h, k))
                    for k in ("hands", "roles", "deck")
                )
                checked += 1
                if g.round_results:  # the others' gold cards, once a round has paid some
                    gold_changed += not np.array_equal(g.gold_cards, h.gold_cards)
                    gold_checked += 1
    assert checked > 300 and changed > 0.9 * checked
    assert gold_checked > 100 and gold_changed > 0.3 * gold_checked


def test_scrambles_are_visible_to_the_others():
    """Sanity of the method: a scramble for seat s usually changes what some other seat sees
    (their hand, role or gold is in their own observation)."""
    rng = np.random.default_rng(1)
    differs = total = 0
    for g, codec, enc in random_states(range(4), every=40):
        if g.game_over:
            continue
        h = scramble(g, 0, rng)
        total += 1
        differs += any(
            seen_by(g, t, enc, codec)["observation"] != seen_by(h, t, enc, codec)["observation"]
            for t in range(1, g.n)
        )
    assert total > 5 and differs == total


def test_swapping_two_other_players_roles_changes_nothing():
    """DESIGN 4: swapping the hidden roles of two other players (also with the set-aside card)
    changes nothing seat s perceives -- observation, mask, events and render."""
    swaps = 0
    for g, codec, enc in random_states(range(8, 24), every=60):
        if g.game_over:
            continue
        for s in range(g.n):
            others = [t for t in range(g.n) if t != s]
            a = next((t for t in others if g.roles[t] == 1), None)
            b = next((t for t in others if g.roles[t] == 0), None)
            base = seen_by(g, s, enc, codec)
            if a is not None and b is not None:
                h = g.copy()
                h.roles[a], h.roles[b] = h.roles[b], h.roles[a]
                assert seen_by(h, s, enc, codec) == base
                swaps += 1
            if g.set_aside and b is not None and g.set_aside[0] != g.roles[b]:
                h = g.copy()
                h.set_aside[0], h.roles[b] = int(g.roles[b]), g.set_aside[0]
                assert seen_by(h, s, enc, codec) == base
    assert swaps > 50


# --- random play through the env: others act differently in hidden ways ----------------
@pytest.mark.parametrize("n, seed", [(3, 1), (5, 2), (7, 3), (10, 4)])
def test_env_views_stay_identical_while_others_act_on_hidden_cards(n, seed):
    """Two envs in the same random-play position; in the second the other players' hands,
    roles, unseen goals, gold and generator are scrambled (draw pile kept, so the observer's
    own draws match).  Both are then played on with publicly identical moves (a move legal in
    both, or a face-down discard of possibly different cards; s itself plays no map) until a
    goal is turned over or the round ends: seat s's infos, observation, mask and render stay
    byte-identical."""
    rng = np.random.default_rng(seed)
    e = saboteur_env.raw_env(num_players=n, render_mode="ansi", render_seat=0)
    e.reset(seed=seed)
    for _ in range(3 * n):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    s, me = 0, "player_0"
    f = copy.deepcopy(e)
    f.game = scramble(e.game, s, rng, keep_deck=True)
    f._mask_cache = None
    discard_off, _ = e.codec.blocks["discard"]
    map_off, _ = e.codec.blocks["map"]
    compared = 0
    for _ in range(200):
        t = e.game.current
        me_e, me_f = e.observe(e.agent_selection), f.observe(f.agent_selection)
        if t == s:
            np.testing.assert_array_equal(me_e["action_mask"], me_f["action_mask"])
            m = me_e["action_mask"].copy()
            m[map_off : map_off + 3] = 0  # a map would show s a (scrambled) unseen goal
            a = b = int(rng.choice(np.flatnonzero(m)))
        else:
            both = np.flatnonzero(
                me_e["action_mask"][:discard_off] & me_f["action_mask"][:discard_off]
            )
            if len(both) and rng.random() < 0.6:
                a = b = int(rng.choice(both))
            else:
                a = discard_off + int(rng.choice(np.flatnonzero(e.game.hands[t])))
                b = discard_off + int(rng.choice(np.flatnonzero(f.game.hands[t])))
        n_ev = len(e.game.events), len(f.game.events)
        e.step(a)
        f.step(b)
        new = [x.type for x in e.game.events[n_ev[0] :] + f.game.events[n_ev[1] :]]
        if "goal_revealed" in new or "round_end" in new:
            break
        assert repr(e.infos[me]) == repr(f.infos[me])
        oe, of = e.observe(me), f.observe(me)
        assert oe["observation"].tobytes() == of["observation"].tobytes()
        assert oe["action_mask"].tobytes() == of["action_mask"].tobytes()
        assert e.render() == f.render() == render_ansi(e.game, s)
        assert events_seen(e.game.events, s) == events_seen(f.game.events, s)
        compared += 1
    assert compared >= 2 * n


# --- hand-built pair, scripted through the env -----------------------------------------------
def pair_4p():
    """Two 4-player states (round 2) that differ only in what seat 0 cannot know: other hands,
    roles (B has no saboteur in play: the saboteur card is set aside), goal identities of the
    slots seat 0 has not seen, draw-pile cards other than seat 0's draws, seat 2's earlier map
    result, others' gold, the nugget supply and the generator seed."""
    common = dict(round=1, current=0, known_goals=[(), (), (0,), ()])
    a = build_state(
        roles=["gold-digger", "saboteur", "gold-digger", "gold-digger"],
        set_aside=["gold-digger"],
        hands=[
            ["map", "B02", "B05", "B06", "B03", "B04"],
            ["B07", "break_lantern", "B01", "B03", "rockfall", "B08"],
            ["B04", "B09", "B10", "B11", "break_cart", "B03"],
            ["map", "rockfall", "B05", "B06", "B07", "repair_lantern"],
        ],
        goals=(0, 1, 2),
        deck=["B07", "B01", "map", "repair_pick", "B05", "B06", "B04", "B02"],
        gold=[2, 3, 0, 1],
        seed=1,
        **common,
    )
    b = build_state(
        roles=["gold-digger"] * 4,
        set_aside=["saboteur"],
        hands=[
            ["map", "B02", "B05", "B06", "B03", "B04"],
            ["B07", "break_lantern", "B12", "repair_cart", "B05", "map"],
            ["break_cart", "B13", "B14", "B01", "B01", "repair_pick"],
            ["map", "rockfall", "B15", "B16", "B02", "B03"],
        ],
        goals=(2, 1, 0),
        deck=["B07", "B06", "B03", "B04", "B05", "B01", "B06", "B02"],
        gold=[2, 0, 4, 0],
        seed=2,
        **common,
    )
    return a, b


def script_4p():
    """(seat, action in A, action in B) for nine turns: maps, placements, a broken tool, a
    rockfall, and face-down discards of different cards."""
    return [
        (0, Map(1), Map(1)),  # slot 1 is stone A in both
        (1, PlacePath(K["B07"], 1, 0), PlacePath(K["B07"], 1, 0)),
        (2, Discard(K["B04"]), Discard(K["B13"])),
        (3, Map(2), Map(2)),  # stone B in A, gold in B
        (0, PlacePath(K["B02"], 2, 0), PlacePath(K["B02"], 2, 0)),
        (1, BreakTool(K["break_lantern"], 3), BreakTool(K["break_lantern"], 3)),
        (2, Discard(K["B09"]), Discard(K["B14"])),
        (3, Rockfall(2, 0), Rockfall(2, 0)),
        (0, Discard(K["B03"]), Discard(K["B03"])),
    ]


def _env_for(game, **kw):
    cfg = {f.name: getattr(game.config, f.name) for f in fields(game.config)}
    e = saboteur_env.raw_env(**cfg, **kw)
    e.reset(seed=0)
    e.load(game)
    return e


def test_build_state_pair_identical_for_seat_0_through_a_scripted_round():
    """RULES 3.5 (map results private), 3.6 (discards face down), 3.7 (draws private), 5.3
    (gold secret), 2.2 (set-aside role): after every scripted turn seat 0's infos entry,
    observation, mask and render are identical in A and B, while seats 2 and 3 see different
    things (their hands / map results differ)."""
    a, b = pair_4p()
    ea, eb = (
        _env_for(a, render_mode="ansi", render_seat=0),
        _env_for(b, render_mode="ansi", render_seat=0),
    )
    enc, codec = ea.encoder, ea.codec
    assert seen_by(a, 0, enc, codec) == seen_by(b, 0, enc, codec)
    for seat, act_a, act_b in script_4p():
        assert ea.game.current == eb.game.current == seat
        ea.step(codec.encode(act_a, seat, 4))
        eb.step(codec.encode(act_b, seat, 4))
        assert repr(ea.infos["player_0"]) == repr(eb.infos["player_0"])
        oa, ob = ea.observe("player_0"), eb.observe("player_0")
        assert oa["observation"].tobytes() == ob["observation"].tobytes()
        assert oa["action_mask"].tobytes() == ob["action_mask"].tobytes()
        assert ea.render() == eb.render()
        assert seen_by(a, 0, enc, codec) == seen_by(b, 0, enc, codec)
        for t in (2, 3):
            assert (
                seen_by(a, t, enc, codec)["observation"] != seen_by(b, t, enc, codec)["observation"]
            )
    # seat 3's private map result differs; only seat 3 got it
    res = {g: [x for x in g.events if x.type == "map_result" and x.seat == 3] for g in (a, b)}
    assert [x.data["identity"] for x in res[a]] == [2] and [x.data["identity"] for x in res[b]] == [
        0
    ]
    assert all(x.visible_to == 3 for x in res[a] + res[b])
    # the public history seat 0 saw: discards as bare "discarded" events
    seen = [x for x in ea.game.events if x.visible_to in (None, 0)]
    assert [x.data for x in seen if x.type == "discarded"] == [{}, {}, {}]
    assert all(
        x.type != "discarded_card" or x.visible_to == 0
        for x in ea.game.events
        if x.visible_to in (None, 0)
    )


def test_build_state_pair_swapped_roles_and_set_aside():
    """Swapping two other players' roles, or another player's role with the set-aside card,
    in a hand-built state changes nothing seat 0 perceives (obs, mask, events, render)."""
    a, _ = pair_4p()
    enc, codec = ObservationEncoder(a.config), Codec(a.config)
    base = seen_by(a, 0, enc, codec)
    for change in ("swap", "aside"):
        h = a.copy()
        if change == "swap":
            h.roles[1], h.roles[2] = h.roles[2], h.roles[1]
        else:
            h.roles[1], h.set_aside[0] = 0, 1
        assert seen_by(h, 0, enc, codec) == base
        assert seen_by(h, 1, enc, codec)["observation"] != seen_by(a, 1, enc, codec)["observation"]


# --- the map result is private ---------------------------------------------------------------
@pytest.mark.parametrize("target_gold", [True, False])
def test_mapped_goal_identity_only_in_the_mappers_observation(target_gold):
    """RULES 3.5: seat 1 maps the top goal.  Two games differ only in whether that goal is the
    gold (G1) or a stone (G2, the gold moved to the bottom slot nobody has seen).  Seats 0 and
    2 perceive nothing different (observation, mask, events, render, env infos); seat 1's
    observation shows the identity in exactly the known_gold / known_stone channel of the top
    goal's cell, its render shows g / o there, and only it receives the map_result event."""
    goals_1, goals_2 = (0, 1, 2), (2, 1, 0)
    games = []
    for goals in (goals_1, goals_2):
        g = build_state(
            roles=["gold-digger", "saboteur", "gold-digger"],
            hands=[["B01", "B02"], ["map", "B03"], ["B04", "B05"]],
            goals=goals,
            current=1,
            seed=3,
        )
        games.append(_env_for(g))
    for e in games:
        e.step(e.codec.encode(Map(0), 1, 3))
    (e1, e2) = games
    enc, codec = e1.encoder, e1.codec
    for s in (0, 2):
        assert seen_by(e1.game, s, enc, codec) == seen_by(e2.game, s, enc, codec)
        assert repr(e1.infos[f"player_{s}"]) == repr(e2.infos[f"player_{s}"])
        assert not any(x.type == "map_result" for x in e1.infos[f"player_{s}"]["events"])
    mine = [x for x in e1.infos["player_1"]["events"] if x.type == "map_result"]
    assert [x.data for x in mine] == [{"goal": 0, "identity": 0}]
    # seat 1's board view: the top goal cell (8, -2) -> row -2 - y_min, col 8 - x_min
    x0, _, y0, _ = e1.config.board_window
    rc = (-2 - y0, 8 - x0)
    for e, is_gold in ((e1, True), (e2, False)):
        views = {s: enc.views(enc.encode(e.game, s)) for s in range(3)}
        b1 = views[1]["board"]
        assert b1[CH["known_gold"]][rc] == float(is_gold)
        assert b1[CH["known_stone"]][rc] == float(not is_gold)
        assert b1[CH["goal_hidden"]][rc] == 1
        for s in (0, 2):
            assert views[s]["board"][CH["known_gold"]].sum() == 0
            assert views[s]["board"][CH["known_stone"]].sum() == 0
        text = render_ansi(e.game, 1)
        assert ("[g]" if is_gold else "[o]") in text and text.count("[?]") == 2
        assert "[g]" not in render_ansi(e.game, 0) and "[o]" not in render_ansi(e.game, 0)
    o1 = enc.encode(e1.game, 1)
    o2 = enc.encode(e2.game, 1)
    diff = np.flatnonzero(o1 != o2)
    board = enc.views(np.arange(enc.size))["board"]
    assert sorted(diff.tolist()) == sorted(
        [int(board[CH["known_gold"]][rc]), int(board[CH["known_stone"]][rc])]
    )


def test_past_round_maze_never_shows_a_seats_current_map_results():
    """render_ansi(game, seat, board=<a past round's maze>) draws that round's face-down goals
    as '?': the seat's map results belong to the current round (fixed: they used to be
    applied to the past maze, showing a past goal's identity)."""
    cfg = GameConfig(num_players=3)
    g, codec = Game(cfg, 12), Codec(cfg)
    rng = np.random.default_rng(0)
    while not g.round_results:
        g.apply(codec.decode(int(rng.choice(np.flatnonzero(codec.mask(g)))), g.current, g.n))
    g.known_goals[:] = True  # as if every seat had mapped every goal this round
    past = g.round_boards[0]
    hidden = int((~past.goal_revealed).sum())
    for s in range(3):
        text = render_ansi(g, s, board=past)
        assert text.count("[?]") == hidden
        assert text.splitlines()[0] == "round 1/3: final maze"


def test_who_holds_gold_is_public_only_where_the_ruleset_says_so():
    """RULES 6.9: in Saboteur 2 every seat sees who holds gold (not how much), in the
    observation's ``xplayers`` ``has_gold`` column and in the web view; in the base game a
    player's gold is private until the game ends (RULES 5.3), and the ruleset says which."""
    from saboteur_env.encoding.spec import XPlayerFeature
    from saboteur_experiments.web.view import view as game_view

    g = Game(GameConfig(num_players=4, expansion=True), seed=3)
    assert g.rules.public_gold_holders
    g.gold[:] = (0, 0, 4, 1)
    enc = ObservationEncoder(g.config)
    for fast in (True, False):
        obs = enc.encode(g, 1) if fast else enc.encode_reference(g, 1)
        col = enc.views(obs)["xplayers"][:, XPlayerFeature.HAS_GOLD]
        # relative to seat 1: itself, seat 2, seat 3, seat 0, then padding
        assert col.tolist()[:5] == [0.0, 1.0, 1.0, 0.0, 0.0]
    seats = game_view(g, 1)["seats"]
    assert [s["has_gold"] for s in seats] == [False, False, True, True]
    assert [s["gold"] for s in seats] == [None, 0, None, None]

    base = Game(GameConfig(num_players=4), seed=3)
    assert not base.rules.public_gold_holders
    base.gold[:] = (0, 0, 4, 1)
    assert [s["has_gold"] for s in game_view(base, 1)["seats"]] == [None, False, None, None]


# --- Saboteur 2 (RULES 6): random play, scrambled hidden parts ------------------------------
def scramble_s2(g: Game, s: int, rng: np.random.Generator) -> Game:
    """A copy of a Saboteur 2 game ``g`` with everything seat ``s`` cannot know re-randomised:
    the other hands, their face-down discards and passes, the draw pile, the cards removed
    unseen (RULES 6.6), the other roles with the dwarf cards aside and those Swap your hats
    discarded (RULES 6.2, 6.5; the roles ``s`` inspected and its own discarded cards kept; every
    role kept during the thefts, when they are face up, RULES 5.1, 6.9),
    the other seats' inspection results and the payloads of their private events, the goals
    ``s`` has not seen, the amounts of the others' gold (who holds gold is public, RULES 6.9),
    the generator."""
    h = g.copy()
    n, nk = h.n, h.rules.n_kinds
    others = [t for t in range(n) if t != s]
    kinds = np.arange(nk)
    sizes = [int(h.hands[t].sum()) for t in others]
    secret = [int(h.secret_discards[t].sum()) for t in others]
    n_removed = int(h.removed.sum())
    before = h.secret_discards[others].sum(axis=0)
    parts = [np.repeat(kinds, h.hands[t]) for t in others]
    parts += [np.repeat(kinds, h.secret_discards[t]) for t in others]
    parts += [np.repeat(kinds, h.removed), h.deck.astype(np.int64)]
    pool = rng.permutation(np.concatenate(parts).astype(np.int64))
    pos = 0
    for t, k in zip(others, sizes):
        h.hands[t] = np.bincount(pool[pos : pos + k], minlength=nk)
        pos += k
    for t, k in zip(others, secret):
        h.secret_discards[t] = np.bincount(pool[pos : pos + k], minlength=nk)
        pos += k
    h.discards = h.discards - before + h.secret_discards[others].sum(axis=0)
    h.removed = np.bincount(pool[pos : pos + n_removed], minlength=nk).astype(np.int64)
    h.deck = pool[pos + n_removed :].astype(np.int16)
    if h.roles_revealed:  # the thefts: every dwarf card is face up (RULES 5.1, 6.9)
        known = others
    else:
        known = [t for t in others if h.inspected[s, t] >= 0]
    free = [t for t in others if t not in known]
    out = [i for i, t in enumerate(h.hats_discarded_from) if t != s and t not in known]
    roles = [int(h.roles[t]) for t in free] + list(h.set_aside) + [h.hats_discarded[i] for i in out]
    roles = rng.permutation(np.array(roles, dtype=np.int64)).tolist()
    for t, r in zip(free, roles[: len(free)]):
        h.roles[t] = r
    rest = roles[len(free) :]
    h.set_aside = rest[: len(h.set_aside)]
    for i, r in zip(out, rest[len(h.set_aside) :]):
        h.hats_discarded[i] = r
    for t in others:
        seen_row = h.inspected[t] >= 0
        h.inspected[t, seen_row] = rng.integers(h.rules.n_roles, size=int(seen_row.sum()))
    unknown = [sl for sl in range(3) if not h.known_goals[s, sl]]
    h.board.goal_identity[unknown] = rng.permutation(h.board.goal_identity[unknown])
    if not h.game_over:  # gold becomes public at the game's end
        for t in others:
            if h.gold[t] > 0:
                h.gold[t] = int(rng.integers(1, 12))
    events = []
    for e in h.events:
        if e.visible_to is not None and e.visible_to != s:
            data = {
                k: int(rng.integers(3)) if k in ("kind", "role", "identity") else v
                for k, v in e.data.items()
            }
            e = type(e)(e.type, e.seat, type(e.data)(data), e.visible_to)
        events.append(e)
    h.events = events
    h.rng = np.random.default_rng(int(rng.integers(2**63)))
    return h


@pytest.mark.parametrize("n", [2, 5, 8, 12])
def test_saboteur_2_scrambled_hidden_parts_are_invisible(n):
    """Saboteur 2 states of random 2-round games (turns and passes; removals and thefts at 5
    and 8 players), each seat in turn: the scramble above and ``Game.determinize`` change
    nothing the seat perceives (observation, mask, ansi render, its events).  The scrambles
    do change hidden state (checked)."""
    cfg = GameConfig(num_players=n, expansion=True, num_rounds=2)
    enc, codec = ObservationEncoder(cfg), Codec(cfg)
    rng = np.random.default_rng(n)
    checked = changed = 0
    phases = set()
    for seed in range(2):
        g = Game(cfg, seed)
        play = np.random.default_rng(seed + 1000)
        step = 0
        while True:
            if step % 19 == 9 or g.game_over:
                phases.add(g.phase.name)
                for s in range(g.n):
                    base = seen_by(g, s, enc, codec)
                    for h in (scramble_s2(g, s, rng), g.determinize(s, rng)):
                        assert seen_by(h, s, enc, codec) == base, (n, seed, g.round, g.turn, s)
                        changed += not (
                            np.array_equal(g.hands, h.hands) and np.array_equal(g.roles, h.roles)
                        )
                        checked += 1
            if g.game_over:
                break
            legal = np.flatnonzero(codec.mask(g))
            g.apply(codec.decode(int(play.choice(legal)), g.current, g.n))
            step += 1
    assert checked > 50 and changed > 0.8 * checked
    assert {"TURN", "PASS"} <= phases
    if n in (5, 8):  # these seeds reach a removal and a theft at 5 and 8 players
        assert {"REMOVE", "THEFT"} <= phases
