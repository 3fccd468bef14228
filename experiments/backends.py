"""Where the games of a tournament are played: the local backend (this process, or a
``multiprocessing`` pool) or Ray (tasks on a local Ray or on a cluster, docs/ray.md).

Every protocol plays its games through :func:`map_tasks` (the tournament's
:func:`saboteur_experiments.tournament.run`, the evaluation protocols, the reference tables and the
bluff benchmark's record generation), so ``--backend ray --address ADDR`` works the same for all of
them.  A game's result depends on its task alone (its deal seed and its agents' seeds), never on
the worker that played it or on the order the results come back, and the caller gets them back in
task order: the same results for any backend and any number of workers.

Ray is an extra (``pip install "saboteur-env[ray]"``) imported only when the Ray backend is used.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

#: the backends (``--backend``)
BACKENDS = ("local", "ray")


class BackendError(ValueError):
    """An unusable backend choice: an unknown backend, ``address`` without the Ray backend, or
    the Ray backend without Ray installed (the message names the option and the extra)."""


def check_backend(backend: str, address: str | None = None) -> None:
    """Raise :class:`BackendError` for an unknown ``backend``, an ``address`` given to the local
    backend, or the Ray backend when Ray is not installed."""
    if backend not in BACKENDS:
        raise BackendError(f"--backend {backend!r}: unknown backend; valid: {', '.join(BACKENDS)}")
    if address == "":
        raise BackendError("--address '': an empty address (give host:port, or 'auto')")
    if address and backend != "ray":
        raise BackendError(f"--address {address}: only with --backend ray")
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise BackendError(
                "--backend ray needs the 'ray' extra: pip install 'saboteur-env[ray]' (from a "
                "clone: pip install -e '.[ray]'; module 'ray' is not installed)"
            ) from None


def map_tasks(
    fn: Callable[[Any], Any],
    items: Sequence,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    on_result: Callable[[Any], None] | None = None,
) -> list:
    """``[fn(x) for x in items]``, in ``items`` order, computed by ``backend``.

    ``local``: in this process when ``workers <= 1``, else a ``ProcessPoolExecutor`` of
    ``workers`` processes (fork where the platform has it, or a fork server once this process
    has imported torch), over chunks of items; a worker that dies raises
    ``concurrent.futures.process.BrokenProcessPool``.  ``ray``: Ray tasks over chunks of items
    on the Ray at ``address`` (none: a local Ray with ``workers`` CPUs is started, or the one
    already initialised is used); ``workers`` bounds the chunks in flight, so ``workers=1``
    plays one chunk at a time (``workers <= 0``: every CPU of the Ray, e.g. a whole cluster's).
    ``fn`` must be a module-level function (it is pickled).  ``on_result`` is called once per
    finished item, in completion order (the progress bar)."""
    check_backend(backend, address)
    items = list(items)
    done = on_result or (lambda r: None)
    if backend == "ray":
        return _ray_map(fn, items, workers, address, done)
    if workers <= 0:
        import os

        workers = os.cpu_count() or 1
    if workers <= 1 or len(items) < 2:
        out = []
        for x in items:
            out.append(fn(x))
            done(out[-1])
        return out
    import multiprocessing as mp
    import sys

    methods = mp.get_all_start_methods()
    # fork copies this process's threads' locks but not the threads: once torch has started
    # its thread pool here (an agent of the user's built to check its spec), a forked worker
    # that runs torch waits forever; then the workers start from a clean server process
    if "torch" in sys.modules and "forkserver" in methods:
        ctx = mp.get_context("forkserver")
    else:
        ctx = mp.get_context("fork" if "fork" in methods else "spawn")
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    chunk = max(1, min(8, len(items) // (workers * 8)))
    starts = range(0, len(items), chunk)
    out = [None] * len(items)
    # an executor, not a Pool: a worker that dies (killed for memory, an agent's sys.exit)
    # fails the call with BrokenProcessPool, where a Pool waited for its task forever
    with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        pending = {pool.submit(_play_chunk, fn, list(items[a : a + chunk])): a for a in starts}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                a = pending.pop(future)
                for k, r in enumerate(future.result()):
                    out[a + k] = r
                    done(r)
    return out


def _chunk_size(n: int, workers: int) -> int:
    """Items per Ray task: about 4 tasks per worker (a game is ~10-100 ms, a Ray task's
    overhead ~1 ms), at most 16 items so the progress bar moves."""
    return max(1, min(16, n // (max(1, workers) * 4)))


def _play_chunk(fn: Callable[[Any], Any], chunk: list) -> list:
    return [fn(x) for x in chunk]


def ensure_ray(address: str | None = None, num_cpus: int | None = None) -> Any:
    """``ray`` initialised: connected to ``address`` (``"auto"``: the cluster this machine has
    joined), or a local Ray with ``num_cpus`` CPUs when no address is given; a Ray already
    initialised in this process is used as it is."""
    import ray

    if not ray.is_initialized():
        kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        kw["logging_level"] = logging.WARNING  # no "Started a local Ray instance" lines
        if address:
            ray.init(address=address, **kw)
        else:  # "local": a new Ray even when `ray start` left one running on this machine
            ray.init(address="local", num_cpus=num_cpus, **kw)
    return ray


def _ray_map(fn, items: list, workers: int, address: str | None, done) -> list:
    ray = ensure_ray(address, num_cpus=workers if workers > 0 else None)
    if not items:
        return []
    if workers <= 0:  # every CPU of the Ray (a cluster's, with an address)
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    play = ray.remote(num_cpus=1)(_play_chunk)
    size = _chunk_size(len(items), workers)
    starts = list(range(0, len(items), size))
    fn_ref = ray.put(fn)
    pending: dict[Any, int] = {}
    out: list = [None] * len(items)
    limit = max(1, workers)  # chunks in flight: one per worker
    nxt = 0
    while nxt < len(starts) or pending:
        while nxt < len(starts) and len(pending) < limit:
            s = starts[nxt]
            pending[play.remote(fn_ref, items[s : s + size])] = s
            nxt += 1
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            s = pending.pop(ref)
            for j, r in enumerate(ray.get(ref)):
                out[s + j] = r
                done(r)
    return out
