"""The deal as draws (``setup.draw_start``, ``setup.draw_round``; RULES 2.1-2.4, 5.4, 10) and
the batched engine's own deals from them (``ArrayGames.start``), its games made from their
seeds when read, and the compiled loops' reference-counting choice (``compiled.Kernels``)."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.setup import draw_round, draw_start, game_generator
from saboteur_env.engine.state import Game
from saboteur_env.vector import VectorGame, kernels

needs_numba = pytest.mark.skipif(not kernels.usable(), reason="the array backend needs numba")


def test_a_seed_draws_this_game_start_and_these_two_rounds():
    # pinned: a change in the draws' order or method deals every seeded game otherwise (RULES 10)
    cfg = GameConfig.from_kwargs(num_players=5)
    rng = game_generator(7)
    nuggets, first = draw_start(cfg, rng)
    assert first == 0 and nuggets[:6].tolist() == [2, 1, 3, 1, 1, 1] and len(nuggets) == 28
    d0 = draw_round(cfg, rng, 0, np.zeros(cfg.ruleset.n_kinds, dtype=np.int64))
    assert d0.roles.tolist() == [1, 0, 0, 0, 1] and d0.set_aside == [0]
    assert d0.goals.tolist() == [0, 2, 1]
    assert d0.hands.sum(axis=1).tolist() == [6] * 5  # RULES 2.3: 6 cards each at 5 players
    assert len(d0.deck) == 37 and d0.deck[:5].tolist() == [11, 18, 17, 4, 1]
    assert np.flatnonzero(d0.hands[0]).tolist() == [6, 9, 14, 18, 21, 24]
    d1 = draw_round(cfg, rng, 1, d0.removed)
    assert d1.roles.tolist() == [0, 0, 1, 1, 0] and d1.goals.tolist() == [1, 0, 2]
    assert d1.deck[:5].tolist() == [1, 2, 19, 24, 3]


def test_the_engine_deals_what_the_draws_draw():
    cfg = GameConfig.from_kwargs(num_players=5)
    g = Game(cfg, 7)
    rng = game_generator(7)
    _, first = draw_start(cfg, rng)
    d0 = draw_round(cfg, rng, 0, np.zeros(cfg.ruleset.n_kinds, dtype=np.int64))
    assert g.current == first
    assert g.roles.tolist() == d0.roles.tolist()
    assert g.board.goal_identity.tolist() == d0.goals.tolist()
    assert (g.hands == d0.hands).all() and g.deck.tolist() == d0.deck.tolist()
    # the same stream as numpy's default_rng(seed), made directly
    assert game_generator(7).bit_generator.state == np.random.default_rng(7).bit_generator.state


def test_a_ruleset_without_the_three_draws_is_refused():
    cfg = GameConfig.from_kwargs(num_players=5)
    rules = dataclasses.replace(cfg.ruleset, deal_steps=("roles", "cards"))
    fake = type("Config", (), {"ruleset": rules, "num_players": 5})()
    with pytest.raises(ValueError, match="deal_steps"):
        draw_round(fake, game_generator(0), 0, np.zeros(rules.n_kinds, dtype=np.int64))


@needs_numba
def test_start_writes_the_arrays_loading_the_engines_game_writes():
    seeds = [3, 77]
    vec = VectorGame(2, backend="array", num_players=5, num_rounds=3)
    vec.reset(0)
    arr = vec._arrays
    rows = np.arange(2, dtype=np.int64)
    arr.start(rows, seeds)
    started = {name: getattr(arr, name).copy() for name in kernels.STATE}
    obs, mask = arr.obs.copy(), arr.mask.copy()
    for i, s in enumerate(seeds):
        arr.load(i, Game(vec.config, s))
    arr.refresh(rows)
    for name in kernels.STATE:
        if name in ("actions", "ints"):
            continue
        assert (getattr(arr, name) == started[name]).all(), name
    cols = [kernels.I_CURRENT, kernels.I_FIRST, kernels.I_ROUND, kernels.I_DECK_LEN]
    cols += [kernels.I_NUGGETS, kernels.I_DECISIONS, kernels.I_RMIN, kernels.I_CMAX]
    assert (arr.ints[:, cols] == started["ints"][:, cols]).all()
    assert (arr.obs == obs).all() and (arr.mask == mask).all()
    with pytest.raises(ValueError, match="1 seeds for 2 games"):
        arr.start(rows, [5])


@needs_numba
def test_a_batch_pickled_after_auto_resets_continues_and_makes_the_same_games():
    vec = VectorGame(4, backend="array", num_players=3, num_rounds=1)
    vec.reset(11)
    rng = np.random.default_rng(0)
    while not vec.terminated.any():
        vec.step(vec.sample_actions(rng))
    ended = int(np.flatnonzero(vec.terminated)[0])
    assert vec._games[ended] is None  # dealt by the kernels, not made yet
    state = vec._arrays.__getstate__()
    assert not {"S", "T", "P"} & set(state)  # derived data: rebuilt on unpickling
    # a pickle of an older layout (its tables stale, no encoder kept) loads with fresh tables
    old = dict(state, T=("stale",))
    del old["encoder"]
    revived = type(vec._arrays).__new__(type(vec._arrays))
    revived.__setstate__(old)
    assert all((a == b).all() for a, b in zip(revived.T, vec._arrays.T, strict=True))
    copy = pickle.loads(pickle.dumps(vec))
    for _ in range(5):
        acts = vec.sample_actions(rng)
        vec.step(acts)
        copy.step(acts)
        assert (vec.observation == copy.observation).all()
        assert (vec.legal_action_mask == copy.legal_action_mask).all()
    a, b = vec.game(ended), copy.game(ended)
    assert a is not b and a.events == b.events and a.decisions == b.decisions
    # the game made from its seed is the engine's game of that seed after the same actions
    assert (
        a.events[: len(Game(vec.config, vec._seeds[ended]).events)]
        == Game(vec.config, vec._seeds[ended]).events
    )


def test_kernels_choose_reference_counting_per_loop():
    numba = pytest.importorskip("numba")
    from saboteur_env.compiled import Kernels, _runtime_optional

    ns: dict = {"ENABLED": True}
    reg = Kernels(ns, "test_module", refcount=False)

    @reg.register
    def _py_plain(a):
        return a[0] + 1

    @reg.register_refcounted
    def _py_allocating(n):
        return np.zeros(n).size

    reg.compile_all()
    assert isinstance(ns["plain"], numba.core.registry.CPUDispatcher)
    assert ns["plain"](np.arange(3)) == 1 and ns["allocating"](4) == 4
    if _runtime_optional(numba):
        assert ns["plain"].targetoptions.get("_nrt") is False
    assert "_nrt" not in ns["allocating"].targetoptions


def test_the_compile_notice_comes_when_numba_compiles_a_loop_not_when_it_reads_its_cache(
    monkeypatch, capsys, tmp_path
):
    """The notice comes once per module when numba begins to compile one of its loops (numba's
    ``numba:compile`` event), whatever else is cached; loops read from numba's cache say
    nothing."""
    numba = pytest.importorskip("numba")
    import saboteur_env.compiled as compiled

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))  # an empty cache

    def module(name: str) -> dict:
        ns: dict = {"ENABLED": True}
        reg = compiled.Kernels(ns, name)

        @reg.register
        def _py_one(a):
            return a + 1

        @reg.register
        def _py_two(a):
            return a + 2

        reg.compile_all()
        return ns

    ns = module("notice_module_a")
    assert capsys.readouterr().err == ""  # nothing compiled yet
    assert ns["one"](1) == 2
    assert capsys.readouterr().err.count("compiling the loops of notice_module_a") == 1
    assert ns["two"](1) == 3  # the same module: said once
    assert capsys.readouterr().err == ""
    ns = module("notice_module_b")  # the same loops, now in the cache
    assert ns["one"](1) == 2 and ns["two"](1) == 3
    assert capsys.readouterr().err == ""
