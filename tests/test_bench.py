"""``saboteur bench`` in its tiny configuration: the table's rows are there and every ratio is a
finite positive number (speeds are never asserted)."""

from __future__ import annotations

import math

from saboteur_experiments import bench


def test_quick_bench_prints_every_row_with_finite_ratios(capsys):
    rows = bench.main(["--quick", "--no-hanabi", "--profile", "--vector", "4"])
    out = capsys.readouterr().out
    labels = [r["label"] for r in rows]
    from saboteur_env.vector import kernels

    def rows_of(game: str) -> list[str]:
        vector = [f"{game} vector[array] B=4"] if kernels.ENABLED else []
        engine = [f"{game} raw_env[engine]"] if kernels.ENABLED else []
        return [
            f"{game} raw_env",
            f"{game} env()",
            *engine,
            *vector,
            f"{game} vector[engine] B=4",
        ]

    assert labels == [*rows_of("base 3p"), *rows_of("sab2 2p"), bench.REFERENCE, bench.FLOOR]
    for r in rows:
        assert r["label"] in out
        for key in ("cpu", "wall", "ratio", "wall_ratio", "floor_ratio"):
            assert math.isfinite(r[key]) and r[key] > 0, (r["label"], key, r[key])
    ref = rows[labels.index(bench.REFERENCE)]
    assert ref["ratio"] == 1.0 and ref["wall_ratio"] == 1.0
    assert "legal/dec" in out  # the legal-action statistics table
    assert "raw_env, us per decision" in out  # the profile, of both backends of the base game
    for game in ("base 3p", "sab2 2p"):  # the profile of both backends of both games
        assert (f"{game} [array]" in out) == kernels.ENABLED and f"{game} [engine]" in out


def test_profile_names_every_part():
    """The profile's parts are finite (no speed is asserted: the parts are timings, and the
    timer's own cost taken off a tiny part can leave it near zero)."""
    r = bench.profile({"num_players": 3}, games=1, seed=0)
    assert set(r) >= {"observation", "mask", "kernels", "engine", "AEC + loop", "total"}
    assert all(math.isfinite(v) for v in r.values())


def test_floor_env_passes_pettingzoo_api_test():
    from pettingzoo.test import api_test

    api_test(bench.floor_env(), num_cycles=20)


def test_quick_bench_keeps_the_player_counts_given(capsys):
    """``--quick`` shortens the run but plays the player counts and rounds given (it played 3
    and 2 players and 2 rounds whatever was asked); an empty list still skips the rows."""
    rows = bench.main(
        [
            "--quick",
            "--no-hanabi",
            "--no-stats",
            "--players",
            "4",
            "--expansion-players",
            "--repeats",
            "3",
        ]
    )
    assert "3 interleaved rounds of 0.02 CPU-s blocks" in capsys.readouterr().out
    from saboteur_env.vector import kernels

    engine = ["base 4p raw_env[engine]"] if kernels.ENABLED else []
    labels = [r["label"] for r in rows]
    assert labels == ["base 4p raw_env", "base 4p env()", *engine, bench.REFERENCE, bench.FLOOR]
