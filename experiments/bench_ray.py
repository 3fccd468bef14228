"""The Ray backend's cost on this machine, and what it predicts for a cluster (docs/ray.md).

``python -m saboteur_experiments.bench_ray --deals 40 --players 5``

Plays the same tournament (``--agents``, default random,heuristic; one-round games) with the
local backend at 1 and 2 workers and with Ray at 1 and 2 workers (a local Ray, started once and
timed apart), checks the results are identical, and prints games/s and the overhead ratio
(local/Ray at the same worker count).  Then measures a Ray task's round trip (an empty task,
one at a time) and the driver's dispatch rate (many empty tasks in flight), and estimates the
games/s of a cluster of W CPUs from them and from the measured seconds per game and the chunk
size (:func:`saboteur_experiments.backends._chunk_size`)::

    games/s(W) = min(W * c / (c * g + o), c * r)

with ``g`` seconds per game, ``c`` games per task, ``o`` a task's overhead and ``r`` the tasks
the driver dispatches per second.  Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time


def _noop(x=None):
    return x


def main(argv=None) -> dict:
    from saboteur_experiments.backends import _chunk_size, ensure_ray
    from saboteur_experiments.cli_args import at_least
    from saboteur_experiments.tournament import run, schedule

    p = argparse.ArgumentParser(prog="python -m saboteur_experiments.bench_ray")
    p.add_argument("--deals", type=at_least(1), default=40)
    p.add_argument("--players", type=int, default=5)
    p.add_argument("--rounds", type=at_least(1), default=1)
    p.add_argument("--agents", default="random,heuristic")
    p.add_argument("--address", default=None, help="a Ray cluster (default: a local Ray)")
    p.add_argument(
        "--simulate-nodes",
        type=at_least(0),
        default=0,
        help="also time the games on a cluster of this many one-CPU nodes simulated on this "
        "machine (ray.cluster_utils.Cluster; 0: skip)",
    )
    p.add_argument("--json", default=None, help="also write the figures to this file")
    a = p.parse_args(argv)
    specs = [s.strip() for s in a.agents.split(",") if s.strip()]
    tasks = schedule(specs, a.players, a.deals, seed=0, num_rounds=a.rounds)
    out: dict = {"games": len(tasks), "players": a.players, "agents": specs}

    def timed(**kw):
        t = time.perf_counter()
        res = run(tasks, progress=False, **kw)
        return res, time.perf_counter() - t

    run(tasks[: len(specs)], progress=False)  # imports and caches, not timed
    ref, dt = timed(workers=1)
    out["local_1"] = len(tasks) / dt
    res, dt = timed(workers=2)
    assert res == ref
    out["local_2"] = len(tasks) / dt
    t = time.perf_counter()
    ray = ensure_ray(a.address, num_cpus=None if a.address else 2)
    out["ray_start_s"] = time.perf_counter() - t
    out["ray_version"] = ray.__version__
    for w in (1, 2):
        res, dt = timed(workers=w, backend="ray", address=a.address)
        assert res == ref, "the Ray backend's results differ from the local backend's"
        out[f"ray_{w}"] = len(tasks) / dt
    out["overhead_ratio_1"] = out["local_1"] / out["ray_1"]
    out["overhead_ratio_2"] = out["local_2"] / out["ray_2"]
    # a task's round trip, and the driver's dispatch rate
    noop = ray.remote(num_cpus=1)(_noop)
    ray.get(noop.remote())
    n = 50
    t = time.perf_counter()
    for _ in range(n):
        ray.get(noop.remote())
    out["task_round_trip_ms"] = 1000 * (time.perf_counter() - t) / n
    n = 500
    t = time.perf_counter()
    ray.get([noop.remote() for _ in range(n)])
    out["driver_tasks_per_s"] = n / (time.perf_counter() - t)
    g = 1 / out["local_1"]
    out["seconds_per_game"] = g
    out["result_bytes_per_game"] = len(pickle.dumps(ref)) / len(ref)
    o = out["task_round_trip_ms"] / 1000
    r = out["driver_tasks_per_s"]
    estimate = {}
    for cpus in (2, 8, 32, 128, 512):
        big = len(tasks) * 100  # a long tournament: chunks of the size the backend picks
        c = _chunk_size(big, cpus)
        estimate[cpus] = {"chunk": c, "games_per_s": min(cpus * c / (c * g + o), c * r)}
    out["cluster_estimate"] = estimate
    if a.simulate_nodes and not a.address:
        from ray.cluster_utils import Cluster

        ray.shutdown()
        cluster = Cluster(
            initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
        )
        try:
            for _ in range(a.simulate_nodes - 1):
                cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes()
            ensure_ray(cluster.address)
            res, dt = timed(workers=0, backend="ray", address=cluster.address)
            assert res == ref, "the simulated cluster's results differ from the local backend's"
            out[f"cluster_{a.simulate_nodes}_nodes"] = len(tasks) / dt
        finally:
            ray.shutdown()
            cluster.shutdown()
    print(
        f"{len(tasks)} games ({a.players} players, {a.rounds} round(s), {', '.join(specs)}); "
        f"Ray {out['ray_version']} (started in {out['ray_start_s']:.1f} s, not counted)"
    )
    print(
        f"games/s: local 1 worker {out['local_1']:.1f}, local 2 {out['local_2']:.1f}, "
        f"Ray 1 {out['ray_1']:.1f}, Ray 2 {out['ray_2']:.1f}; overhead ratio (local/Ray) "
        f"{out['overhead_ratio_1']:.2f} at 1 worker, {out['overhead_ratio_2']:.2f} at 2"
    )
    print(
        f"per game {1000 * g:.1f} ms, {out['result_bytes_per_game']:.0f} result bytes; a Ray "
        f"task's round trip {out['task_round_trip_ms']:.2f} ms, the driver dispatches "
        f"{r:.0f} tasks/s"
    )
    if a.simulate_nodes and not a.address:
        k = a.simulate_nodes
        print(f"simulated cluster of {k} one-CPU nodes: {out[f'cluster_{k}_nodes']:.1f} games/s")
    for cpus, e in estimate.items():
        print(
            f"  estimate at {cpus:>4} CPUs: {e['games_per_s']:8.0f} games/s "
            f"(chunks of {e['chunk']} games)"
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=2)
    sys.stdout.flush()
    return out


if __name__ == "__main__":
    main()
