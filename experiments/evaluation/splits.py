"""Deal seeds split into training, development and test ranges (DESIGN 9).

A *deal* is one environment seed (``env.reset(seed=deal_seed)``): it fixes the role cards, the
goal cards and every shuffle of every round.  The seeds are split once, here, into three
disjoint ranges of integers:

=========  ==============================  ===============================================
split      seeds                           who may use them
=========  ==============================  ===============================================
``test``   ``0 .. 999_999``                published evaluations (README, notes) only
``dev``    ``1_000_000 .. 1_999_999``      checkpoint selection, tuning, in-training
                                           evaluation
``train``  ``2_000_000 .. 2**31 - 1``      self-play and demonstration games
=========  ==============================  ===============================================

Deal ``d`` of an evaluation on split ``S`` starting at ``first`` has the seed
``S.start + first + d`` (:func:`deal_seeds`), so an evaluation names its deals exactly by
``(split, first, count)``.  Training draws its games' seeds with :func:`draw_train_seed`; a
test checks that training never resets an environment with a seed outside ``train``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DealSplit:
    """A half-open range ``[start, stop)`` of deal seeds."""

    name: str
    start: int
    stop: int

    def __contains__(self, seed: object) -> bool:
        return isinstance(seed, (int, np.integer)) and self.start <= int(seed) < self.stop

    @property
    def size(self) -> int:
        """Number of deal seeds in the split."""
        return self.stop - self.start


TEST = DealSplit("test", 0, 1_000_000)
DEV = DealSplit("dev", 1_000_000, 2_000_000)
TRAIN = DealSplit("train", 2_000_000, 2**31)
#: the splits by name
SPLITS: dict[str, DealSplit] = {s.name: s for s in (TEST, DEV, TRAIN)}


def split_named(name: str) -> DealSplit:
    """The split called ``name``.

    Raises:
        ValueError: for a name that is not ``train``, ``dev`` or ``test``.
    """
    try:
        return SPLITS[name]
    except (KeyError, TypeError):
        raise ValueError(f"deal split {name!r}; valid: {', '.join(SPLITS)}") from None


def split_of(seed: int) -> DealSplit:
    """The split that holds deal seed ``seed``.

    Raises:
        ValueError: for a seed outside ``0 .. 2**31 - 1``.
    """
    for s in SPLITS.values():
        if seed in s:
            return s
    raise ValueError(f"deal seed {seed!r} is in no split (valid: 0 .. {2**31 - 1})")


def deal_seeds(split: DealSplit | str, count: int, first: int = 0) -> list[int]:
    """The seeds of deals ``first .. first + count - 1`` of ``split``.

    Raises:
        ValueError: for an unknown split name, a negative ``count`` or ``first``, or deals
            that run past the end of the split.
    """
    s = split_named(split) if isinstance(split, str) else split
    if count < 0 or first < 0:
        raise ValueError(f"count={count}, first={first}: both must be >= 0")
    if first + count > s.size:
        raise ValueError(
            f"deals {first}..{first + count - 1} run past the {s.name} split's {s.size} deals"
        )
    return [s.start + first + d for d in range(count)]


def range_problem(split: DealSplit | str, first: int, count: int) -> str | None:
    """What is wrong with deals ``first .. first + count - 1`` of ``split`` (a sentence naming
    the options ``--first-deal`` / ``--deals`` for a usage error), or ``None`` when they fit.

    Raises:
        ValueError: for an unknown split name.
    """
    s = split_named(split) if isinstance(split, str) else split
    if first + count > s.size:
        return (
            f"--first-deal {first} --deals {count}: the {s.name} split has {s.size} deals "
            f"(0-{s.size - 1}), so --first-deal + --deals must be at most {s.size}"
        )
    return None


def agent_seed(seed: int, deal_seed: int, offset: int, seat: int) -> int:
    """The seed of the agent in ``seat`` of game ``offset`` of the deal seeded ``deal_seed``
    (tournaments: ``offset`` = the rotation; role-probe: 0 in both games of a pair, so the
    reference seats of the two games start alike).  Independent of the deal's own stream, so
    how much randomness an agent consumes never changes the deal."""
    return int(np.random.SeedSequence([seed, deal_seed, offset, seat, 0xA6E]).generate_state(1)[0])


def draw_train_seed(rng: np.random.Generator) -> int:
    """A uniformly drawn seed of the ``train`` split (for self-play and demonstration games)."""
    return int(rng.integers(TRAIN.start, TRAIN.stop))
