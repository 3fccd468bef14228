"""Record sets of the bluff benchmark: seeded games played once, written as game records
(:mod:`saboteur_env.record`) and reused from disk afterwards; their deal seeds and splits."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from pathlib import Path

from .populations import SEED_ORDER, fingerprint, variant

SPLITS = ("train", "val", "test")


#: fewest games per record set that fill every split (:func:`split_of`): 4 train, 2 val, 1 test
MIN_GAMES = 7
#: most games per record set (:func:`record_seed` gives each population 1000 deal seeds)
MAX_GAMES = 1000


def split_of(i: int) -> str:
    """Split of game ``i`` of a record set: 40% train, 20% validation, 40% test."""
    r = i % 10
    return "train" if r < 4 else "val" if r < 6 else "test"


def record_seed(seed: int, n_players: int, pop: str, i: int) -> int:
    """Deal seed of game ``i`` (``0 <= i < 1000``) of population ``pop`` at ``n_players``:
    ``seed * 10**6 + N * 10**4 + k * 10**3 + i`` with ``k`` the population's index in
    :data:`POPULATIONS` then the expansion-only populations (``heuristic`` is 7), so that no
    two named populations share a deal at the same player count; any other population (an
    agent spec) gets ``k = 10 + CRC-32 % 990``."""
    if not 0 <= i < 1000:
        raise ValueError(f"game index {i}: at most 1000 games per record set")
    k = SEED_ORDER.index(pop) if pop in SEED_ORDER else 10 + zlib.crc32(pop.encode()) % 990
    return seed * 10**6 + n_players * 10**4 + k * 10**3 + i


def record_set(
    out: Path,
    pop: str,
    n_players: int,
    n_games: int,
    *,
    seed: int = 0,
    rounds: int = 3,
    progress=None,
    spec: str | None = None,
    expansion: bool = False,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
) -> list[Path]:
    """Paths of the frozen record set of ``pop`` at ``n_players``, playing the missing games.

    ``spec``: the agent spec (default: ``pop``'s in the ruleset's populations,
    :data:`.populations.VARIANTS`); a non-default spec, or one that
    loads a PPO checkpoint, gets its own folder (``<pop>@<fingerprint>``, :func:`fingerprint`),
    so a new checkpoint never reuses old records.  A game already on disk is never replayed or
    rewritten (its seed is in its file name, ``game_<seed>.jsonl``, or
    ``game_<seed>_r<rounds>.jsonl`` for games of other than 3 rounds); one whose header does
    not match the game asked for (player count, rounds, expansion, seed) raises
    :class:`ValueError`.  ``expansion``: Saboteur 2 games; folders ``<tag>_<folder><N>``
    with the ruleset's ``Variant.folder`` (``x`` for Saboteur 2, ``n`` for the base game).
    ``workers``/``backend``/``address``: where the missing games are played
    (:func:`saboteur_experiments.backends.map_tasks`; a game's record depends on its seed
    alone, so every backend writes the same files).
    """
    v = variant(expansion)
    default = v.populations.get(pop, pop)
    spec = spec or default
    fp = fingerprint(spec)
    tag = pop if spec == default and fp == spec else f"{pop}@{zlib.crc32(fp.encode()):08x}"
    d = out / "records" / f"{tag}_{v.folder}{n_players}"
    d.mkdir(parents=True, exist_ok=True)
    paths, missing = [], []
    for i in range(n_games):
        s = record_seed(seed, n_players, pop, i)
        p = d / (f"game_{s}.jsonl" if rounds == 3 else f"game_{s}_r{rounds}.jsonl")
        if p.exists():
            _check_reused(p, n_players, rounds, expansion, s)
            if progress is not None:
                progress.update(1)
        else:
            missing.append((p, (spec, n_players, s, {"population": pop, "spec": fp}, rounds)))
        paths.append(p)
    if missing:
        from saboteur_experiments.backends import map_tasks

        def write(result: tuple[str, str]) -> None:  # as each game comes back
            p = Path(result[0])
            tmp = p.with_suffix(".tmp")
            tmp.write_text(result[1], encoding="utf-8")
            tmp.replace(p)
            if progress is not None:
                progress.update(1)

        jobs = [(str(p), *job, expansion) for p, job in missing]
        map_tasks(record_text, jobs, workers, backend, address, on_result=write)
    return paths


def record_text(job: tuple) -> tuple[str, str]:
    """Play one record game ``(path, spec, n_players, seed, meta, rounds, expansion)`` (as
    :func:`play_recorded`) and return ``(path, the record's text)``: a worker of any backend,
    on any machine of a Ray cluster, sends the record back instead of writing it where it
    runs."""
    import os
    import tempfile

    from saboteur_agents import make_agent
    from saboteur_experiments.bluff import actors  # noqa: F401  (registers "rolesplit")

    path, spec, n_players, s, meta, rounds, expansion = job
    agents = [make_agent(spec) for _ in range(n_players)]
    fd, tmp = tempfile.mkstemp(suffix=".jsonl")
    os.close(fd)
    try:
        play_recorded(agents, s, tmp, meta=meta, num_rounds=rounds, expansion=expansion)
        with open(tmp, encoding="utf-8") as f:
            return path, f.read()
    finally:
        os.remove(tmp)


def _check_reused(path: Path, n_players: int, rounds: int, expansion: bool, seed: int) -> None:
    """A record already on disk must be the game asked for (its header's config and seed),
    else :class:`ValueError` naming the file (e.g. one written by an older version)."""
    with open(path, encoding="utf-8") as f:
        head = json.loads(f.readline() or "{}")
    cfg = head.get("config", {})
    got = (
        cfg.get("num_players"),
        cfg.get("num_rounds"),
        bool(cfg.get("expansion")),
        head.get("seed"),
    )
    want = (n_players, rounds, bool(expansion), seed)
    if got != want:
        raise ValueError(
            f"{path} holds another game than the one asked for (players, rounds, expansion, "
            f"seed: {got} instead of {want}); remove it or choose another output folder"
        )


def play_recorded(agents: Sequence, seed: int, path, meta: dict | None = None, **config) -> None:
    """Play one game (agent ``i`` in seat ``i``, agent seeds ``seed * 1000 + seat``,
    :func:`saboteur_experiments.play.play_game`) and write its record to ``path`` with every event
    and the header fields ``meta`` (:func:`saboteur_env.record.write_record` ``events=True``)."""
    from saboteur_experiments.play import play_game

    play_game(agents, seed, record=str(path), record_meta=meta, record_events=True, **config)
