"""The ismcts search agent (agents/ismcts.py, DESIGN 6): legal play in both games, seeded
reproducibility, the same action in states a seat cannot tell apart (it reads the live game only
through ``Game.determinize``), a winning placement found, and clear errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from rules_helpers import make, row0, shape_kind

from saboteur_agents import make_agent
from saboteur_agents.ismcts import DEFAULTS, ISMCTSAgent, parse_options
from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine import GameConfig, PlacePath, build_state
from saboteur_env.engine.cards import KIND_INDEX
from saboteur_experiments.play import play_game

#: small budgets: the whole file runs in well under a minute on one core
FAST = "ismcts:iters=4+top=3+rollout=random"
#: Saboteur 2's random rollouts are long (about 100 decisions): two per decision
FAST_S2 = "ismcts:iters=2+top=2+rollout=random"
SMALL = "ismcts:iters=8+top=3"


class Checked:
    """Wraps an agent: asserts every action it takes is in its mask, and logs them."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.needs_game = getattr(agent, "needs_game", False)
        self.actions: list[int] = []

    def reset(self, seat, config, seed=None) -> None:
        self.agent.reset(seat, config, seed)

    def attach(self, game) -> None:
        self.agent.attach(game)

    def act(self, observation, action_mask, info=None) -> int:
        a = self.agent.act(observation, action_mask, info)
        assert action_mask[a] == 1, f"masked action {a}"
        self.actions.append(int(a))
        return a


@pytest.mark.parametrize(
    "expansion, others",
    [(False, ("random", "heuristic")), (True, ("heuristic", "random"))],
    ids=["base", "saboteur2"],
)
def test_ismcts_never_plays_a_masked_action(expansion, others):
    """100 seeded 1-round 3-player games per game, one or two ismcts seats (the env also
    raises on an illegal action)."""
    searched = 0
    fast = FAST_S2 if expansion else FAST
    for seed in range(100):
        specs = [fast, others[seed % 2], fast if seed % 3 == 0 else others[1 - seed % 2]]
        lineup = [Checked(make_agent(s)) for s in specs]
        play_game(lineup, seed, num_rounds=1, expansion=expansion)
        searched += sum(c.agent.stats.searched for c in lineup if c.needs_game)
        assert lineup[0].actions
    assert searched > 100  # the search really ran


@pytest.mark.parametrize(
    "players, expansion", [(10, False), (2, True), (12, True)], ids=["base10", "s2-2", "s2-12"]
)
def test_ismcts_plays_every_seat_at_other_player_counts(players, expansion):
    lineup = [Checked(make_agent("ismcts:iters=2+top=2+rollout=random")) for _ in range(players)]
    play_game(lineup, 7, num_rounds=1, expansion=expansion)
    assert sum(len(c.actions) for c in lineup) > players


def test_same_seed_same_actions():
    def run():
        lineup = [Checked(make_agent(s)) for s in ("ismcts:iters=4+top=2", "heuristic", SMALL)]
        play_game(lineup, 3, num_rounds=1)
        return [c.actions for c in lineup]

    assert run() == run()


def test_the_seed_is_used():
    """Same seed, same action (above) is not enough: an agent that ignored its seed would
    pass it.  Seeds 0-5 at one state: more than one action (its determinizations differ)."""
    from saboteur_env.engine.state import Game

    cfg = GameConfig(num_players=3)
    codec, enc = Codec(cfg), ObservationEncoder(cfg)
    acts = set()
    for seed in range(6):
        g = Game(cfg, 3)
        agent = make_agent("ismcts:iters=4+top=2")
        agent.reset(g.current, cfg, seed=seed)
        agent.attach(g)
        acts.add(agent.act(enc.encode(g, g.current), codec.mask(g, g.current), None))
    assert len(acts) > 1, acts


def _pair():
    """Two base-game states equal from seat 0's view: other hands swapped, other roles and
    the unmapped goals' identities changed; the same public maze and own hand."""
    cfg = GameConfig(num_players=4)
    own = ["B07", "B09", "map", "break_pick", "B15"]
    h1 = ["B03", "B04", "B05", "B10", "repair_pick"]
    h2 = ["B11", "B12", "B13", "rockfall", "map"]
    h3 = ["B14", "B16", "B02", "break_lantern", "repair_cart"]
    board = [(1, 0, KIND_INDEX["B06"], False)]
    common = dict(board=board, known_goals=[[0], [], [], []], seed=5)
    a = build_state(
        cfg,
        roles=["gold-digger", "saboteur", "gold-digger", "gold-digger"],
        set_aside=["gold-digger"],
        hands=[own, h1, h2, h3],
        goals=(1, 0, 2),
        **common,
    )
    b = build_state(
        cfg,
        roles=["gold-digger", "gold-digger", "gold-digger", "gold-digger"],
        set_aside=["saboteur"],
        hands=[own, h3, h1, h2],
        goals=(1, 2, 0),
        **common,
    )
    return a, b


@pytest.mark.parametrize(
    "spec", [SMALL, SMALL + "+rollout=events+roles=belief+z=1+screen=1"], ids=["default", "options"]
)
def test_states_a_seat_cannot_tell_apart_give_the_same_action(spec):
    a, b = _pair()
    assert not np.array_equal(a.hands, b.hands) and not np.array_equal(a.roles, b.roles)
    assert not np.array_equal(a.board.goal_identity, b.board.goal_identity)
    enc, codec = ObservationEncoder(a.config), Codec(a.config)
    obs, mask = enc.encode(a, 0), codec.mask(a)
    assert np.array_equal(obs, enc.encode(b, 0)) and np.array_equal(mask, codec.mask(b))
    seen_a = [e for e in a.events if e.visible_to in (None, 0)]
    assert seen_a == [e for e in b.events if e.visible_to in (None, 0)]
    before = pickle.dumps(a)
    chosen, searches = [], []
    for g in (a, b):
        agent = make_agent(spec)
        agent.reset(0, g.config, seed=11)
        agent.attach(g)
        chosen.append(agent.act(obs.copy(), mask.copy(), {"events": list(seen_a)}))
        assert agent.stats.searched == 1  # a real search, not the heuristic's shortcut
        searches.append(agent.stats.last)
    assert chosen[0] == chosen[1]
    # not only the action: the whole search (every rollout's value) is the same
    assert searches[0] == searches[1]
    assert pickle.dumps(a) == before  # act never changes the live game


def _winning_position():
    """Seat 0, a gold-digger who mapped the gold behind (8, 0), holds a straight that closes
    the tunnel (1..6, 0) to it; returns the game, its encoder and codec, and the flat index
    of the winning placement at (7, 0)."""
    g = make(
        row0(1, 6),
        roles=["gold-digger", "saboteur", "gold-digger"],
        hands=[["EW", "map", "break_pick", "NS"], ["rockfall"], ["map"]],
        goals=(1, 0, 2),
        known_goals=[[1], [], []],
    )
    enc, codec = ObservationEncoder(g.config), Codec(g.config)
    kind, rotated = shape_kind("EW")
    return g, enc, codec, codec.encode(PlacePath(kind, 7, 0, rotated), 0, 3)


def test_takes_the_winning_placement():
    """Seat 0, a gold-digger who mapped the gold behind (8, 0), holds a straight that closes
    the tunnel (1..6, 0) to it: placing it at (7, 0) wins the round now (RULES 5.1)."""
    g, enc, codec, win = _winning_position()
    mask = codec.mask(g)
    assert mask[win] and mask.sum() > 4
    for rollout in ("heuristic", "events", "random"):
        agent = make_agent(f"ismcts:iters=12+top=4+rollout={rollout}")
        agent.reset(0, g.config, seed=1)
        agent.attach(g)
        assert agent.act(enc.encode(g, 0), mask, None) == win
        # the winning candidate won every rollout
        last = agent.stats.last
        assert last["means"][last["candidates"].index(win)] == 1.0


@pytest.mark.parametrize(
    "option, words",
    [
        ("foo=1", ["'foo=1'", "iters", "rollout", "time", "top"]),
        ("iters", ["'iters'", "valid options"]),
        ("iters=0", ["iters", "positive"]),
        ("top=x", ["top", "int"]),
        ("time=-1", ["time", "positive"]),
        ("rollout=mcts", ["rollout", "heuristic", "events", "random"]),
        ("iters=2+iters=3", ["iters", "twice"]),
        ("roles=exact", ["roles", "belief", "uniform"]),
        ("z=-1", ["z", ">= 0"]),
        ("z=inf", ["z", ">= 0"]),
        ("z=x", ["z", "number"]),
        ("screen=-1", ["screen", "int"]),
        ("screen=1.5", ["screen", "int"]),
    ],
)
def test_bad_options_are_named(option, words):
    with pytest.raises(ValueError) as err:
        make_agent(f"ismcts:{option}")
    for w in words:
        assert w in str(err.value)


def test_options_parse():
    assert parse_options("") == DEFAULTS
    o = parse_options("iters=64+top=4+rollout=random")
    assert (o["iters"], o["top"], o["rollout"], o["time"]) == (64, 4, "random", None)
    o = parse_options("roles=uniform+z=1.5+screen=2")
    assert (o["roles"], o["z"], o["screen"]) == ("uniform", 1.5, 2)
    o = parse_options("time=0.5")
    assert o["iters"] is None and o["time"] == 0.5
    assert isinstance(make_agent("ismcts"), ISMCTSAgent) and make_agent("ismcts").needs_game


def test_act_without_a_game_names_attach_game():
    agent = make_agent("ismcts")
    cfg = GameConfig(num_players=3)
    agent.reset(0, cfg, seed=0)
    from saboteur_env.engine import Game

    g = Game(cfg, 0)
    with pytest.raises(RuntimeError, match="attach_game"):
        agent.act(ObservationEncoder(cfg).encode(g, 0), Codec(cfg).mask(g), None)


def test_belief_roles_follow_the_evidence():
    """roles=belief redeals the hidden roles by the prior's evidence: a seat with the largest
    saboteur evidence is nearly always the saboteur of the determinization, one with the
    smallest nearly never; roles=uniform keeps Game.determinize's deal (about 1/4 each)."""
    from saboteur_env.engine import Game

    cfg = GameConfig(num_players=4)
    g = Game(cfg, 2)
    seat = next(s for s in range(4) if g.roles[s] != g.rules.saboteur)
    agent = make_agent("ismcts")
    agent.reset(seat, cfg, seed=0)
    agent.attach(g)
    sus, clear = [s for s in range(4) if s != seat][:2]
    ev = np.zeros((4, g.rules.n_roles))
    ev[sus, g.rules.saboteur] = 5.0
    ev[clear, g.rules.saboteur] = -5.0
    rng = np.random.default_rng(0)
    counts = {"belief": np.zeros(4), "uniform": np.zeros(4)}
    for _ in range(200):
        det = g.determinize(seat, rng)
        counts["uniform"] += det.roles == g.rules.saboteur
        agent._deal_roles(det, ev)
        counts["belief"] += det.roles == g.rules.saboteur
        assert sorted(det.roles.tolist() + det.set_aside) == sorted(g.roles.tolist() + g.set_aside)
        assert det.roles[seat] == g.roles[seat]
    assert counts["belief"][sus] > 190 and counts["belief"][clear] < 5
    assert 25 < counts["uniform"][sus] < 80


def test_belief_roles_are_not_redealt_during_the_thefts():
    """Saboteur 2's thefts come after every role is revealed (RULES 5.1, 6.9): roles=belief
    leaves the determinization's roles (the true ones) as they are (fix: they were redealt,
    unlike the round's pending result)."""
    from saboteur_env.engine import Game
    from saboteur_env.engine.phases import Phase

    cfg = GameConfig(num_players=5, expansion=True, num_rounds=1)
    g, codec = Game(cfg, 21), Codec(cfg)
    rng = np.random.default_rng(21)
    while g.phase is not Phase.THEFT:
        g.apply(codec.decode(int(rng.choice(np.flatnonzero(codec.mask(g)))), g.current, g.n))
    seat = g.current
    agent = make_agent("ismcts")
    agent.reset(seat, cfg, seed=0)
    agent.attach(g)
    ev = np.zeros((5, g.rules.n_roles))
    ev[(seat + 1) % 5, g.rules.saboteur] = 5.0
    ev[(seat + 2) % 5, g.rules.saboteur] = -5.0
    for _ in range(20):
        det = g.determinize(seat, rng)
        agent._deal_roles(det, ev)
        assert det.roles.tolist() == g.roles.tolist() == det.pending_result.roles


def test_screen_spends_the_rest_on_two_candidates():
    """screen=2 with 4 candidates and 16 rollouts: 2 blocks of 4, then 4 blocks of 2 (the
    prior's best and the best other); the other two candidates stop after the screen."""
    g, enc, codec, win = _winning_position()
    agent = make_agent("ismcts:iters=16+top=4+rollout=random+screen=2+z=1")
    agent.reset(0, g.config, seed=1)
    agent.attach(g)
    assert agent.act(enc.encode(g, 0), codec.mask(g), None) == win
    last = agent.stats.last
    assert last["rollouts"] == 16 and agent.stats.rollouts == 16
