"""The golden streams (tests/golden.py) replay identically: event streams, observations, masks
and actions of fixed seeded games, base game and Saboteur 2, random and heuristic seats; and the
observation/action spec fingerprints the shipped PPO checkpoint was trained on."""

import json

import pytest
from golden import GAMES, PATH, play, spec_fingerprints

GOLDEN = json.loads(PATH.read_text())


@pytest.mark.parametrize(
    "name,config,specs,seed",
    [(n, c, s, seed) for n, c, s, seeds in GAMES for seed in seeds],
    ids=[f"{n}_seed{seed}" for n, _, _, seeds in GAMES for seed in seeds],
)
def test_game_stream_unchanged(name, config, specs, seed):
    assert play(config, specs, seed) == GOLDEN["games"][f"{name}_seed{seed}"]


def test_spec_fingerprints_unchanged():
    assert spec_fingerprints() == GOLDEN["spec_fingerprints"]
    meta = json.loads((PATH.parents[2] / "agents/checkpoints/ppo_base_5p.json").read_text())
    assert GOLDEN["spec_fingerprints"]["5p"] == meta["spec"]["fingerprint"]
