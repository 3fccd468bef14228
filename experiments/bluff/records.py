"""Record sets of the bluff benchmark: seeded games played once, written as game records
(:mod:`saboteur_env.record`) and reused from disk afterwards; their deal seeds and splits.

Deals are **paired**: every population plays the same deal seeds (:func:`record_seeds`), taken
from the project's deal splits (:mod:`saboteur_experiments.evaluation.splits`, DESIGN 9): the
scored games are test-split deals, the detectors are fitted on train-split deals and calibrated
on dev-split deals.  A deal fixes the role cards of every round (the engine deals from the
environment's own generator, never the agents'), so populations compared on one deal also share
its role assignments; the agents' seeds are the deal's too
(:func:`saboteur_experiments.play.default_agent_seeds`, :func:`play_recorded`).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from pathlib import Path

from saboteur_experiments.evaluation.splits import deal_seeds, split_named

from .populations import fingerprint, variant

#: the deal splits the benchmark plays (the project's, DESIGN 9): training games, calibration
#: games and test games
SPLITS = ("train", "dev", "test")
#: fewest games per record set (two deals: a bootstrap over deals needs more than one)
MIN_GAMES = 2
#: most games per record set and split (:func:`record_seeds`)
MAX_GAMES = 1000
#: most ``--seed`` values: the deals of seed ``s`` at ``N`` players start at deal
#: ``(s * 16 + N) * MAX_GAMES`` of each split, inside the test split's million deals
MAX_SEED = 61
#: characters of an agent spec that no folder name may hold (on Windows) -> their stand-ins
_FOLDER_SAFE = str.maketrans({":": "~", "/": "+", "\\": "+", **dict.fromkeys('*?"<>|', "_")})
#: the record folder of this deal scheme (a new scheme gets a new folder, so record sets
#: written under an older one, with other deals, are never reused)
SCHEME = "paired"


def record_seeds(seed: int, n_players: int, split: str, count: int) -> list[int]:
    """Deal seeds of the ``count`` games of every population at ``n_players`` in ``split``
    (``train``, ``dev`` or ``test``, :data:`SPLITS`): deals ``(seed * 16 + N) * 1000`` onwards
    of that deal split of the project's, the same for every population (paired deals)."""
    if not 0 <= count <= MAX_GAMES:
        raise ValueError(f"{count} games: at most {MAX_GAMES} per record set and split")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed {seed}: 0 to {MAX_SEED}")
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: one of {', '.join(SPLITS)}")
    return deal_seeds(split_named(split), count, first=(seed * 16 + n_players) * MAX_GAMES)


def record_set(
    out: Path,
    pop: str,
    n_players: int,
    n_games: int,
    *,
    split: str = "test",
    seed: int = 0,
    rounds: int = 3,
    progress=None,
    spec: str | None = None,
    expansion: bool = False,
    first: int = 0,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
) -> list[Path]:
    """Paths of the frozen record set of ``pop`` at ``n_players`` in ``split`` (its deals:
    :func:`record_seeds`), playing the missing games.

    Records live in ``<out>/records/paired/<tag>_<folder><N>/`` (``folder``: the ruleset's
    ``Variant.folder``, ``n`` for the base game, ``x`` for Saboteur 2).  ``spec``: the agent
    spec (default: ``pop``'s in the ruleset's populations, :data:`.populations.VARIANTS`); a
    non-default spec, or one that loads a PPO checkpoint, plays a search agent or is a user's
    own agent, gets its own folder (``<pop>@<hash of its fingerprint>``, :func:`fingerprint`),
    so a new checkpoint, determinization or edited agent never reuses old records (in the
    folder's name a spec's ``:`` is written ``~``, ``/`` and ``\\`` ``+``, and ``*?"<>|``
    ``_``).  A game already on disk is never replayed or rewritten (its seed is in its file
    name, ``game_<seed>.jsonl``, or ``game_<seed>_r<rounds>.jsonl`` for games of other than 3
    rounds); one whose header does not match the game asked for (player count, rounds,
    expansion, seed, population spec) raises :class:`ValueError`.  ``first``: only games
    ``first .. n_games - 1`` (a share of the work of one process, :func:`.pipeline.run`).
    ``workers``/``backend``/``address``: where the missing games are played
    (:func:`saboteur_experiments.backends.map_tasks`; a game's record depends on its seed
    alone, so every backend writes the same files, here, from the text the worker sends; the
    benchmark's own pipeline calls this in its workers instead, so there the records are
    written where each worker runs).
    """
    v = variant(expansion)
    default = v.populations.get(pop, pop)
    spec = spec or default
    fp = fingerprint(spec, expansion)
    tag = pop if spec == default and fp == spec else f"{pop}@{zlib.crc32(fp.encode()):08x}"
    # a spec's separators are no characters of one folder's name (``/``), or not on Windows
    tag = tag.translate(_FOLDER_SAFE)
    d = out / "records" / SCHEME / f"{tag}_{v.folder}{n_players}"
    d.mkdir(parents=True, exist_ok=True)
    paths, missing = [], []
    for s in record_seeds(seed, n_players, split, n_games)[first:]:
        p = d / (f"game_{s}.jsonl" if rounds == 3 else f"game_{s}_r{rounds}.jsonl")
        if p.exists():
            _check_reused(p, n_players, rounds, expansion, s, fp)
            if progress is not None:
                progress.update(1)
        else:
            meta = {"population": pop, "spec": fp, "split": split}
            missing.append((str(p), spec, n_players, s, meta, rounds, expansion))
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

        map_tasks(record_text, missing, workers, backend, address, on_result=write)
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


def _check_reused(
    path: Path, n_players: int, rounds: int, expansion: bool, seed: int, spec: str | None = None
) -> None:
    """A record already on disk must be the game asked for (its header's config, seed and
    population spec), else :class:`ValueError` naming the file (e.g. one written by an older
    version)."""
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
    meta_spec = (head.get("meta") or {}).get("spec")
    if got != want or (spec is not None and meta_spec != spec):
        raise ValueError(
            f"{path} holds another game than the one asked for (players, rounds, expansion, "
            f"seed: {got} instead of {want}; population spec {meta_spec!r} instead of "
            f"{spec!r}); remove it or choose another output folder"
        )


def play_recorded(agents: Sequence, seed: int, path, meta: dict | None = None, **config) -> None:
    """Play one game (agent ``i`` in seat ``i``, agent seeds
    :func:`saboteur_experiments.play.default_agent_seeds`, as
    :func:`saboteur_experiments.play.play_game` gives them) and write its record to ``path``
    with every event and the header fields ``meta`` (:func:`saboteur_env.record.write_record`
    ``events=True``)."""
    from saboteur_experiments.play import play_game

    play_game(agents, seed, record=str(path), record_meta=meta, record_events=True, **config)
