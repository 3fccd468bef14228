"""The two rulesets as data (RULES 1, 2.2, 2.3, 6.1, 6.2, 6.6): values checked by hand, and
the phases and action families each one declares agree with the one dispatch table."""

import copy
import pickle

import pytest

from saboteur_env.engine import BASE, FAMILIES, SABOTEUR_2, GameConfig, Phase
from saboteur_env.engine.phases import FAMILIES_OF_PHASE


def test_base_game_values():
    assert BASE.roles == ("gold-digger", "saboteur") and BASE.player_range == (3, 10)
    assert BASE.n_cards == 67 and BASE.removed_per_round == 0 and BASE.nugget_cards
    assert BASE.role_deck(5).tolist() == [4, 2]  # RULES 2.2: 5 players, 2 saboteurs of 6 cards
    assert BASE.role_deck(10).tolist() == [7, 4]
    assert BASE.role_deck(5, "seed").tolist() == [3, 2]
    assert [BASE.hand_size(n) for n in (3, 5, 6, 8, 10)] == [6, 6, 5, 4, 4]
    assert BASE.role_prior(4).tolist() == [0.8, 0.2]
    with pytest.raises(ValueError, match="3 to 10"):
        BASE.role_deck(2)


def test_saboteur_2_values():
    assert SABOTEUR_2.roles[SABOTEUR_2.saboteur] == "saboteur"
    assert [SABOTEUR_2.roles[r] for r in SABOTEUR_2.diggers] == ["green-digger", "blue-digger"]
    assert (
        SABOTEUR_2.role_deck(2).tolist() == SABOTEUR_2.role_deck(12).tolist() == [4, 4, 1, 1, 2, 3]
    )  # RULES 6.2: all 15 dwarf cards whatever the count
    assert SABOTEUR_2.n_cards == 118 and SABOTEUR_2.removed_per_round == 10
    assert SABOTEUR_2.hand_size(2) == SABOTEUR_2.hand_size(12) == 6
    assert SABOTEUR_2.pass_cards == 3 and BASE.pass_cards == 1
    assert [SABOTEUR_2.roles[r] for r in SABOTEUR_2.paid_roles] == ["geologist"]


@pytest.mark.parametrize("rules", [BASE, SABOTEUR_2], ids=["base", "saboteur_2"])
def test_phases_and_families_agree(rules):
    assert set(rules.families) <= set(FAMILIES)
    offered = {f for ph in rules.phases for f in FAMILIES_OF_PHASE[ph]}
    assert set(rules.families) <= offered  # every family of the ruleset can be played
    assert rules.phases[0] is Phase.TURN
    cfg = GameConfig(expansion=rules.expansion)
    assert cfg.ruleset is rules and cfg.board_window == rules.default_window
    assert pickle.loads(pickle.dumps(rules)) is rules and copy.deepcopy(rules) is rules
    assert {rules: 1}[rules] == 1
