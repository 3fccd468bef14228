"""Smoke test of the reference-table script (DESIGN 6, 9): one cell per block, a few rounds."""

from __future__ import annotations

import json

from saboteur_experiments.reference import main


def _rates_ok(r: dict) -> None:
    assert 0.0 <= r["lo"] <= r["rate"] <= r["hi"] <= 1.0


def test_reference_smoke(tmp_path, capsys):
    out = tmp_path / "ref"
    report = main(
        [
            "--out",
            str(out),
            "--base-players",
            "3",
            "--x-players",
            "4",
            "--probe-players",
            "5",
            "--rounds-random",
            "4",
            "--rounds-heuristic",
            "3",
            "--probe-deals",
            "2",
            "--legal-games",
            "2",
            "--workers",
            "1",
        ]
    )
    assert [(c["players"], c["agent"]) for c in report["base"]] == [(3, "random"), (3, "heuristic")]
    assert [(c["players"], c["agent"]) for c in report["expansion"]] == [
        (4, "random"),
        (4, "heuristic"),
    ]
    assert [c["players"] for c in report["probe"]] == [5]
    for c in report["base"] + report["expansion"]:
        assert c["rounds"] == (4 if c["agent"] == "random" else 3)
        _rates_ok(c["saboteur_win"])
        _rates_ok(c["gold_not_found"])
        assert c["round_length"] > 0 and c["legal_per_decision"] >= 1
    for way in ("heuristic_among_random", "random_among_heuristic"):
        for role in ("gold-digger", "saboteur"):
            r = report["probe"][0][way][role]
            assert r["deals"] == 2
            d = r["diff"]
            assert abs(d["value"] - (r["candidate"]["value"] - r["reference"]["value"])) < 1e-12
            assert -1 <= d["lo"] <= d["value"] <= d["hi"] <= 1
    md = (out / "reference.md").read_text()
    assert md in capsys.readouterr().out
    assert (
        "python -m saboteur_experiments.reference --out" in md and "agent_seed(0, deal_seed" in md
    )
    rows = [ln for ln in md.splitlines() if ln.startswith("| ") and not ln.startswith("| N ")]
    assert len(rows) == 10  # 2 base + 2 expansion, their balance rows, 2 probe (roles)
    for c in report["base"] + report["expansion"]:  # balance: the cells partition the rounds
        assert sum(b["rounds"] for b in c["by_saboteurs"].values()) == c["rounds"]
    assert json.loads((out / "reference.json").read_text())["meta"]["seed"] == 0
