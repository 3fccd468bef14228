"""Invariants over many seeded random games (RULES 1, 3, 3.7, 5; DESIGN 5).

520 games with the engine directly (``Codec.mask`` + ``Game.apply``), 3..10 players, all rules
options that change the flow, and 40 more through the PettingZoo env.  In every state:

* card conservation: draw pile + hands + maze tunnel cards + discards + broken tools in front of
  players = 67 (``Game.cards_accounted``), and the same per card kind (RULES 1, 2.4);
* nugget conservation: supply + all gold held = 44 nuggets on 28 cards (RULES 1.4);
* the seat to act holds a card and has at least one legal action (RULES 3.6: any card can be
  discarded; players with no cards are skipped);
* every turn consumes exactly one card of draw pile + hands (RULES 3, 3.7), so a round takes at
  most 67 turns and every game ends;
* rewards per round equal the gold received (``reward="gold"``), and +1 / -1 for the winning /
  losing side with ``reward="win"`` (DESIGN 5); the sum of a game's rewards is the final gold.
"""

from __future__ import annotations

import numpy as np
import pytest

import saboteur_env
from saboteur_env import Codec, Game, GameConfig
from saboteur_env.engine.cards import (
    ALL_KINDS,
    GOLD_DIGGER,
    ROLE_TABLE_PUBLISHED,
    SABOTEUR,
    VARIANT_KIND,
    deck_counts,
)

DECK = deck_counts(False)
N_CARDS = int(DECK.sum())
assert N_CARDS == 67


def cards_by_kind(g: Game) -> np.ndarray:
    """Where every card is, counted per kind."""
    c = g.hands.sum(axis=0).astype(np.int64)
    c += np.bincount(g.deck, minlength=g.n_kinds)
    c += g.discards
    for t in g.broken_kind[g.broken]:
        c[t] += 1
    var = g.board.var
    kinds = VARIANT_KIND[var[var >= 0]]  # face-up cards, start and goals included
    c += np.bincount(kinds, minlength=len(ALL_KINDS))[: g.n_kinds]  # tunnel kinds only
    return c


def check_state(g: Game) -> None:
    assert g.cards_accounted() == N_CARDS
    assert (g.hands >= 0).all() and (g.discards >= 0).all()
    np.testing.assert_array_equal(cards_by_kind(g), DECK)
    assert int(g.nuggets.astype(np.int64).sum() + g.gold.sum()) == 44
    assert len(g.nuggets) + int(g.gold_cards.sum()) == 28
    np.testing.assert_array_equal(g.gold_cards @ np.array([1, 2, 3]), g.gold)
    assert g.broken.sum() == (g.broken_kind >= 0).sum()


CONFIGS = [
    {},
    {"role_table": "seed"},
    {"self_sabotage": False},
    {"broken_tool_forfeit": True},
    {"first_player": "random"},
    {"num_rounds": 1},
]


@pytest.mark.parametrize("chunk", range(4))
def test_engine_invariants_random_games(chunk):
    """130 games per chunk (520 in all), seeds spread over 3..10 players and the configs."""
    games = 0
    for seed in range(chunk * 130, (chunk + 1) * 130):
        n = 3 + seed % 8
        opts = CONFIGS[(seed // 8) % len(CONFIGS)]
        cfg = GameConfig(num_players=n, **opts)
        g, codec = Game(cfg, seed), Codec(cfg)
        rng = np.random.default_rng(seed)
        check_state(g)
        turns_this_round = 0
        decisions = 0
        while not g.game_over:
            assert g.hand_size(g.current) > 0
            mask = codec.mask(g)
            legal = np.flatnonzero(mask)
            assert len(legal) > 0
            cards_before = len(g.deck) + int(g.hands.sum())
            round_before = len(g.round_results)
            g.apply(codec.decode(int(rng.choice(legal)), g.current, g.n))
            decisions += 1
            turns_this_round += 1
            assert turns_this_round <= 67
            check_state(g)
            if len(g.round_results) > round_before:
                res = g.round_results[-1]
                assert res.turns == turns_this_round
                check_round_result(g, res, cfg)
                turns_this_round = 0
            else:
                assert len(g.deck) + int(g.hands.sum()) == cards_before - 1
            assert decisions <= 67 * cfg.num_rounds
        assert len(g.round_results) == cfg.num_rounds
        assert sum(np.array(r.received) for r in g.round_results).tolist() == g.gold.tolist()
        assert g.winners() == [s for s in range(n) if g.gold[s] == g.gold.max()]
        games += 1
    assert games == 130


def check_round_result(g: Game, res: dict, cfg: GameConfig) -> None:
    """RULES 5.1-5.3: the right side wins and only its members receive gold."""
    n = cfg.num_players
    roles = res.roles
    received = res.received
    side = GOLD_DIGGER if res.gold_found else SABOTEUR
    assert res.winners == [s for s in range(n) if roles[s] == side]
    assert all(received[s] == 0 for s in range(n) if roles[s] != side)
    if res.gold_found:
        assert 0 < sum(received) <= 3 * (9 if n == 10 else n)
    else:
        assert res.turns > 0 and g.round_boards[-1] is not None
        k = sum(r == SABOTEUR for r in roles)
        due = {0: 0, 1: 4, 2: 3, 3: 3, 4: 2}[k]
        assert all(received[s] <= due for s in range(n) if roles[s] == SABOTEUR)
    if cfg.role_table == "published":
        sab, dig = ROLE_TABLE_PUBLISHED[n]
        assert sum(r == SABOTEUR for r in roles) <= sab
        assert sum(r == GOLD_DIGGER for r in roles) <= dig


@pytest.mark.parametrize("reward", ["gold", "win"])
def test_env_invariants_and_rewards(reward):
    """20 games per reward mode through the wrapped env: every selected live agent has a
    legal action and a non-empty hand; rewards arrive only at round ends and equal the gold
    received (or +1 / -1); each agent's cumulative rewards over the game, collected with
    last(), sum to its final gold (reward="gold")."""
    for seed in range(20):
        n = 3 + (seed * 3) % 8
        e = saboteur_env.env(num_players=n, reward=reward)
        e.reset(seed=500 + seed)
        g = e.unwrapped.game
        rng = np.random.default_rng(seed)
        collected = dict.fromkeys(e.possible_agents, 0)
        rounds = 0
        for agent in e.agent_iter():
            obs, r, term, trunc, _ = e.last()
            collected[agent] += r
            if term or trunc:
                assert term and not trunc
                e.step(None)
                continue
            seat = e.unwrapped.agent_name_mapping[agent]
            assert seat == g.current and g.hand_size(seat) > 0
            assert obs["action_mask"].any()
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            g = e.unwrapped.game
            check_state(g)
            if len(g.round_results) > rounds:
                res = g.round_results[rounds]
                rounds += 1
                if reward == "gold":
                    expected = res.received
                else:
                    expected = [1 if s in res.winners else -1 for s in range(n)]
                assert [e.rewards[f"player_{s}"] for s in range(n)] == expected
            else:
                assert not any(e.rewards.values())
        assert rounds == 3
        if reward == "gold":
            assert [collected[a] for a in e.possible_agents] == g.gold.tolist()
        else:
            wins = [sum(s in r.winners for r in g.round_results) for s in range(n)]
            assert [collected[a] for a in e.possible_agents] == [2 * w - 3 for w in wins]
