"""Loops compiled by numba where it is installed: the registry the project's kernel modules
share (the batched engine's, :mod:`saboteur_env.vector.kernels`, and the heuristic agent's,
``saboteur_agents.heuristic.kernels``).

A kernel module writes each loop as a plain Python function ``_py_<name>`` decorated with its
:class:`Kernels` registry's :meth:`~Kernels.register`, declares ``<name>: Any`` for readers,
and forwards its module ``__getattr__`` to :meth:`Kernels.lookup`.  The first lookup imports
numba and binds every registered loop, compiled lazily by numba (or read from numba's cache),
to its name in the module, so the kernels call each other by those names and importing the
module stays cheap.  numba is optional: :func:`enabled` says whether it is in use (installed,
and the environment variable ``SABOTEUR_NUMBA`` is not ``0``).  When numba begins to compile
one of a module's loops rather than read it from its cache (numba's ``numba:compile``
event), one line on stderr says so, once per module and process: a first ``reset`` or
``step`` that compiles for tens of seconds is not silent, and one that reads the cache says
nothing.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from typing import Any


def enabled() -> bool:
    """numba is installed and ``SABOTEUR_NUMBA`` is not ``0`` (numba is not imported here)."""
    return (
        os.environ.get("SABOTEUR_NUMBA", "1") != "0"
        and importlib.util.find_spec("numba") is not None
    )


class Kernels:
    """The compiled loops of one module.

    Args:
        namespace: the module's ``globals()``: compiled loops are bound there by name, and its
            ``ENABLED`` (a bool the module sets, tests may patch) is read at each lookup.
        module: the module's name, for error messages.
        refcount: whether the loops keep numba's reference counts of the arrays they touch
            (numba's default).  ``False`` compiles them without numba's runtime: every
            array a loop takes from a tuple, or slices, then costs nothing, where each
            otherwise costs two atomic operations (about a third of the batched engine's
            time).  Such a loop must not allocate (no ``np.zeros``, ``copy``, or array to
            array assignment, which may copy first); one that must is registered with
            :meth:`register_refcounted`.  Where this numba does not offer the choice, the
            loops keep the counts.
    """

    def __init__(self, namespace: dict[str, Any], module: str, refcount: bool = True) -> None:
        self.namespace = namespace
        self.module = module
        self.refcount = refcount
        #: kernel name -> its Python source function
        self.sources: dict[str, Callable[..., Any]] = {}
        #: kernels that keep reference counts in a module that does not
        self.refcounted: set[str] = set()

    def register(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """Register ``_py_<name>`` as kernel ``<name>`` (a decorator; returns ``f``)."""
        self.sources[f.__name__.removeprefix("_py_")] = f
        return f

    def register_refcounted(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """:meth:`register`, for a loop that needs numba's runtime in a module compiled
        without it (one that allocates, or reads a structref)."""
        self.refcounted.add(f.__name__.removeprefix("_py_"))
        return self.register(f)

    def compile_all(self) -> None:
        """Bind every kernel, compiled lazily by numba (at its first call, or from numba's
        cache), to its name in the module."""
        import numba

        for name, f in self.sources.items():
            options: dict[str, Any] = {"cache": True, "nogil": True}
            if not (self.refcount or name in self.refcounted) and _runtime_optional(numba):
                options["_nrt"] = False
            self.namespace[name] = numba.njit(**options)(f)
            _MODULE_OF[id(self.namespace[name])] = self.module
        _listen()  # the notice comes when numba begins to compile one of these loops

    def lookup(self, name: str) -> Any:
        """The module ``__getattr__``: kernel ``name``, compiling the module's kernels first.

        Raises:
            AttributeError: ``name`` is not a kernel, or numba is not in use.
        """
        if name in self.sources:
            if not self.namespace.get("ENABLED", False):
                raise AttributeError(f"kernel {name!r}: numba is not in use (kernels.ENABLED)")
            self.compile_all()
            return self.namespace[name]
        raise AttributeError(f"module {self.module!r} has no attribute {name!r}")


#: id of each compiled loop (a numba dispatcher) -> its module's name; the modules whose
#: compile notice was printed in this process
_MODULE_OF: dict[int, str] = {}
_NOTICED: set[str] = set()
#: whether the listener of numba's compile events is registered
_LISTENING: list[bool] = []


def _notice(module: str) -> None:
    """Say once per process that ``module``'s loops are being compiled: tens of seconds that
    would otherwise leave a first ``reset`` or ``step`` silent."""
    if module not in _NOTICED:
        _NOTICED.add(module)
        print(
            f"saboteur: compiling the loops of {module} with numba (once: numba caches them; "
            "tens of seconds)",
            file=sys.stderr,
            flush=True,
        )


def _listen() -> None:
    """Register (once) a listener of numba's ``numba:compile`` event, which numba sends when it
    compiles a loop rather than reading it from its cache (numba's event API, as
    ``saboteur train``'s compile clock uses it): the first compile of one of a module's loops
    prints its notice."""
    if _LISTENING:
        return
    from numba.core import event

    class _CompileNotice(event.Listener):
        def on_start(self, ev: Any) -> None:
            data = ev.data if isinstance(ev.data, dict) else {}
            module = _MODULE_OF.get(id(data.get("dispatcher")))
            if module is not None:
                _notice(module)

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", _CompileNotice())
    _LISTENING.append(True)


def _runtime_optional(numba: Any) -> bool:
    """Whether this numba compiles a loop without its runtime on request (``_nrt=False``, an
    option of its CPU target, not part of its documented interface; checked with numba 0.68,
    and by ``tests/test_vector_deals.py``)."""
    try:
        from numba.core.cpu import CPUTargetOptions

        return hasattr(CPUTargetOptions, "_nrt")
    except Exception:
        return False
