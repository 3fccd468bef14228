"""Golden game streams: proof that a refactor changed no behaviour.

``python tests/golden.py --write`` records, for a fixed set of seeded games (base game 3/5/10
players, Saboteur 2 2/5/12, random and heuristic seats), the digest of every event of the game
(type, actor, data, visibility), of every observation and action mask shown to the seat to act,
and of the actions taken, into ``tests/data/golden.json``; ``test_golden.py`` replays the same
games and compares.  ``--dump DIR`` writes the full streams as JSON Lines for diffing.

The random seats choose with their own generator seeded from the deal seed, so the stream
depends on the engine, the codec, the encoder and the heuristic agent only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

#: (name, config options, agent specs per seat, deal seeds)
GAMES = [
    ("base3_random", {"num_players": 3}, ["random"] * 3, (1, 2)),
    ("base5_random", {"num_players": 5}, ["random"] * 5, (1, 2)),
    ("base10_random", {"num_players": 10}, ["random"] * 10, (1,)),
    (
        "base5_heuristic",
        {"num_players": 5},
        ["heuristic:v1", "random"] * 2 + ["heuristic:v1"],
        (1, 2),
    ),
    ("base4_heuristic", {"num_players": 4}, ["heuristic:v1"] * 4, (3,)),
    ("s2_2_random", {"num_players": 2, "expansion": True}, ["random"] * 2, (1, 2)),
    ("s2_5_random", {"num_players": 5, "expansion": True}, ["random"] * 5, (1, 2)),
    ("s2_12_random", {"num_players": 12, "expansion": True}, ["random"] * 12, (1,)),
    (
        "s2_5_heuristic",
        {"num_players": 5, "expansion": True},
        ["heuristic:v1", "random", "heuristic:v1", "heuristic:v1", "random"],
        (1, 2),
    ),
]

PATH = Path(__file__).parent / "data" / "golden.json"


def _plain(v):
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if hasattr(v, "value") and isinstance(v.value, str):
        return v.value  # a str enum member
    return v


def event_row(e) -> dict:
    t = e.type
    return {
        "type": getattr(t, "value", t),
        "seat": e.seat,
        "data": _plain(dict(e.data)),
        "visible_to": e.visible_to,
    }


def play(config: dict, specs: list[str], seed: int, dump=None) -> dict:
    """Play one game, returning digests of its streams."""
    import saboteur_env
    from saboteur_agents import make_agent

    env = saboteur_env.raw_env(**config)
    env.reset(seed=seed)
    n = env.config.num_players
    agents = [make_agent(s) for s in specs]
    for s, a in enumerate(agents):
        a.reset(s, env.config, seed=seed * 1000 + s)
    rng = np.random.default_rng(seed + 7)
    h_obs, h_mask, h_act = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    decisions = 0
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[name]
        o, m = obs["observation"], obs["action_mask"]
        h_obs.update(np.ascontiguousarray(o, dtype=np.float32).tobytes())
        h_mask.update(np.ascontiguousarray(m, dtype=np.int8).tobytes())
        if specs[seat] == "random":
            legal = np.flatnonzero(m)
            action = int(legal[rng.integers(len(legal))])
        else:
            action = int(agents[seat].act(o, m, info))
        h_act.update(action.to_bytes(4, "little"))
        if dump is not None:
            dump.write(
                json.dumps(
                    {
                        "decision": decisions,
                        "seat": seat,
                        "action": action,
                        "obs": hashlib.sha256(o.tobytes()).hexdigest()[:12],
                        "mask": np.flatnonzero(m).tolist(),
                    }
                )
                + "\n"
            )
        env.step(action)
        decisions += 1
    for s in range(n):  # the final view of every seat
        h_obs.update(env.encoder.encode(env.game, s).tobytes())
    events = [event_row(e) for e in env.game.events]
    if dump is not None:
        for r in events:
            dump.write(json.dumps(r, sort_keys=True) + "\n")
    ev = hashlib.sha256(json.dumps(events, sort_keys=True).encode()).hexdigest()
    return {
        "decisions": decisions,
        "events": len(events),
        "event_digest": ev,
        "obs_digest": h_obs.hexdigest(),
        "mask_digest": h_mask.hexdigest(),
        "action_digest": h_act.hexdigest(),
        "gold": env.game.gold.tolist(),
    }


def spec_fingerprints() -> dict:
    from saboteur_agents.network import env_spec
    from saboteur_env import GameConfig

    return {
        f"{p}p{'_s2' if x else ''}": env_spec(GameConfig(num_players=p, expansion=x))["fingerprint"]
        for p, x in ((5, False), (3, False), (10, False), (5, True), (12, True))
    }


def record(dump_dir: Path | None = None) -> dict:
    out: dict = {"games": {}, "spec_fingerprints": spec_fingerprints()}
    for name, config, specs, seeds in GAMES:
        for seed in seeds:
            key = f"{name}_seed{seed}"
            f = None
            if dump_dir is not None:
                dump_dir.mkdir(parents=True, exist_ok=True)
                f = open(dump_dir / f"{key}.jsonl", "w")
            out["games"][key] = play(config, specs, seed, f)
            if f is not None:
                f.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--write", action="store_true", help=f"write {PATH}")
    ap.add_argument("--dump", type=Path, help="write the full streams into this folder")
    args = ap.parse_args()
    res = record(args.dump)
    if args.write:
        PATH.write_text(json.dumps(res, indent=1, sort_keys=True) + "\n")
    else:
        old = json.loads(PATH.read_text())
        for k, v in res["games"].items():
            same = old["games"].get(k) == v
            print(f"{k}: {'same' if same else 'DIFFERENT'}")
        print(
            "spec:", "same" if old["spec_fingerprints"] == res["spec_fingerprints"] else "DIFFERENT"
        )


if __name__ == "__main__":
    main()
