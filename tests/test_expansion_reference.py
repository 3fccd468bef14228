"""An independent reference for the Saboteur 2 action families the base-game legality reference
does not cover (RULES 6.5, 6.7, 6.9): each rule written here from the rules text, over the
state's arrays, and compared with the engine's ``check`` on every candidate action of random
positions (the engine's ``legal_actions`` and mask come from the same legal set as ``check``)."""

import numpy as np
import pytest

from saboteur_env import Codec, Game, GameConfig
from saboteur_env.engine import Discard, EndPass, Phase, PlayCard, RemoveFront, Steal
from saboteur_env.engine.cards import CARD_KINDS, X_ACTION_KINDS


def expected(g, a) -> bool:
    """RULES 6.5 (action cards on a player), 6.7 (pass of 1-3 cards, discard two to remove a
    card in front of oneself), 6.9 (a thief robs another player who has gold)."""
    s, hand, phase = g.current, g.hands[g.current], g.phase
    if isinstance(a, Steal):
        return phase is Phase.THEFT and a.target != s and g.gold[a.target] >= 1
    if isinstance(a, EndPass):
        return phase is Phase.PASS
    if isinstance(a, Discard):
        return phase is not Phase.THEFT and hand[a.kind] > 0
    if phase is not Phase.TURN:
        return False
    if isinstance(a, RemoveFront):
        front = list(g.broken[s]) + [g.xfront[s, 0], g.xfront[s, 1]]
        return hand.sum() >= 2 and bool(front[a.slot])
    assert isinstance(a, PlayCard)
    if hand[a.kind] == 0:
        return False
    t, card = a.target, CARD_KINDS[a.kind].id
    trapped, theft = g.xfront[t, 0], g.xfront[t, 1]
    return {
        "theft": t == s and not theft,
        "hands_off": bool(theft),
        "swap_hand": t != s,
        "inspection": t != s,
        "swap_hats": len(g.set_aside) > 0,
        "trapped": t != s and not trapped,
        "free_at_last": bool(trapped),
    }[card]


@pytest.mark.parametrize("n", [2, 5, 9])
def test_saboteur2_families_match_the_reference(n):
    cfg = GameConfig(num_players=n, expansion=True)
    codec = Codec(cfg)
    rng = np.random.default_rng(n)
    checked = {"steal": 0, "done": 0, "remove": 0, "xaction": 0}
    for seed in range(12):
        g = Game(cfg, seed)
        while not g.game_over:
            cands = (
                [Steal(t) for t in range(n)]
                + [EndPass()]
                + [Discard(k) for k in range(cfg.ruleset.n_kinds)]
                + [RemoveFront(sl) for sl in range(5)]
                + [PlayCard(k, t) for k in X_ACTION_KINDS for t in range(n)]
            )
            for a in cands:
                want = expected(g, a)
                assert (g.check(a) is None) == want, (seed, g.phase, a, g.check(a))
                if want:
                    fam = {
                        Steal: "steal",
                        EndPass: "done",
                        RemoveFront: "remove",
                        PlayCard: "xaction",
                    }.get(type(a))
                    if fam:
                        checked[fam] += 1
            legal = np.flatnonzero(codec.mask(g))
            g.apply(codec.decode(int(legal[rng.integers(len(legal))]), g.current, g.n))
    assert all(v > 0 for v in checked.values()), checked
