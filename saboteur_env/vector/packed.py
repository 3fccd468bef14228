"""The arguments of :func:`~saboteur_env.vector.kernels.step` for a one-game
:class:`~saboteur_env.vector.arrays.ArrayGames` held in one compiled object, so that a call of
:func:`~saboteur_env.vector.kernels.step_one` unboxes one object instead of some 60 arrays
(``raw_env``'s array backend: a few microseconds of each decision).

Imported only where the kernels are in use: it needs numba (``numba.experimental.structref``).
"""

from __future__ import annotations

from typing import Any

import numba
from numba.core import types
from numba.experimental import structref

#: the fields of a :class:`Pack`: the arguments of :func:`~saboteur_env.vector.kernels.step`
#: (a field may not be named ``st``: numba's generated constructor uses that name)
FIELDS = (
    "acts",
    "S",
    "T",
    "P",
    "obs",
    "mask",
    "lidx",
    "stack",
    "ev",
    "codes",
    "chg",
    "rewards",
    "scratch",
)


@structref.register
class PackType(types.StructRef):
    """numba's type of a :class:`Pack` (one per tuple of field types)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Pack(structref.StructRefProxy):
    """The arguments of :func:`~saboteur_env.vector.kernels.step` (:data:`FIELDS`), held by
    reference: the arrays stay the caller's, written in place by the kernels.  Not
    picklable (its holder drops it and makes it again)."""


structref.define_proxy(Pack, PackType, list(FIELDS))


@numba.njit(cache=True)
def _make(acts, S, T, P, obs, mask, lidx, stack, ev, codes, chg, rewards, scratch):
    # made in compiled code, which numba caches (the proxy's own constructor is compiled
    # anew in every process)
    return Pack(acts, S, T, P, obs, mask, lidx, stack, ev, codes, chg, rewards, scratch)


def make_pack(*arrays: Any) -> Pack:
    """A :class:`Pack` of ``arrays``, in the order of :data:`FIELDS`.

    Raises:
        TypeError: not one array per field.
    """
    if len(arrays) != len(FIELDS):
        raise TypeError(f"make_pack takes the {len(FIELDS)} arrays {FIELDS}")
    return _make(*arrays)  # type: ignore[no-any-return]
