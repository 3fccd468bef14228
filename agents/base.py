"""The agent interface and the registry of agent specs (DESIGN 6)."""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from saboteur_env.engine.config import GameConfig


class Agent:
    """Base class: subclasses implement :meth:`act`; :meth:`reset` may be extended."""

    name = "agent"
    #: a search agent sets this: the loop that plays it calls :meth:`attach` with the live
    #: :class:`~saboteur_env.engine.state.Game` after :meth:`reset`; such an agent may read
    #: the game only through ``game.determinize(self.seat, rng)`` (what its seat may know)
    needs_game = False

    def attach(self, game) -> None:
        """Give a search agent (:attr:`needs_game`) the live game, after :meth:`reset`."""
        self.game = game

    def reset(self, seat: int, config: GameConfig, seed: int | None = None) -> None:
        """A new game begins: remember the seat and config, seed the agent's own generator."""
        self.seat = seat
        self.config = config
        self.rng = np.random.default_rng(seed)

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None = None
    ) -> int:
        """Choose a flat action index with ``action_mask[index] == 1``.

        Args:
            observation: float32 ``(size,)``, the environment's ``"observation"``.
            action_mask: int8 ``(n,)``, the environment's ``"action_mask"``.
            info: the agent's own ``infos`` entry (events since its last turn), if available.
        """
        raise NotImplementedError


def attach_game(agents: Iterable[Agent] | Mapping[Any, Agent], game) -> None:
    """Call :meth:`Agent.attach` with ``game`` on every agent that :attr:`~Agent.needs_game`
    (every loop that plays agents calls this after resetting them); ``agents``: the agents,
    or a mapping whose values are the agents (PettingZoo agent id -> agent)."""
    if isinstance(agents, Mapping):
        agents = agents.values()
    for agent in agents:
        if getattr(agent, "needs_game", False):
            agent.attach(game)


class AgentError(RuntimeError):
    """An agent failed during a game (:func:`blame_agent`): its ``act`` raised, or the game
    refused the action it chose.  The message names the agent, its seat and where in which
    game; the original exception is its ``__cause__`` (in this process)."""


#: what the ``step`` of an agent's action raises when the action is the agent's fault (not
#: legal, or not an action at all); anything else a step raises is the engine's
REFUSED_ACTION: tuple[type[Exception], ...] = (ValueError, TypeError)


@contextlib.contextmanager
def blame_agent(
    agent: Any,
    seat: int,
    where: str,
    only: tuple[type[BaseException], ...] = (Exception, SystemExit),
) -> Iterator[None]:
    """Inside, an exception of the types ``only`` (but :class:`AgentError`) becomes an
    :class:`AgentError` naming the agent (its ``name``, the spec it was made from), ``seat`` and
    ``where`` (e.g. ``"deal seed 12, decision 40"``): around an agent's ``act`` (every
    exception, and a ``sys.exit`` it calls: an agent does not end the harness), and the ``step``
    of its action with ``only=REFUSED_ACTION`` (an illegal action, ``IllegalActionError``, is a
    ``ValueError``), so that a tournament of many agents says which one failed and on which
    deal, and an engine error stays the engine's.

    Raises:
        AgentError: what was raised inside, named.
    """
    try:
        yield
    except AgentError:
        raise
    except only as err:
        name = getattr(agent, "name", None) or type(agent).__name__
        raise AgentError(
            f"agent {name!r} at seat {seat} ({where}): {type(err).__name__}: {err}"
        ) from err


class MissingExtraError(ImportError):
    """A feature needs an optional dependency group (``pyproject.toml`` extras) that is not
    installed; the message names the extra and the ``pip install`` line."""


def require_extra(extra: str, modules: Sequence[str], what: str) -> None:
    """Import ``modules``; if one is missing raise :class:`MissingExtraError` naming ``extra``
    (``"saboteur train needs the 'train' extra: pip install 'saboteur-env[train]'"``)."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as err:
            torch_first = "pip install torch==2.13.0 && " if extra == "train" else ""
            raise MissingExtraError(
                f"{what} needs the {extra!r} extra: {torch_first}pip install "
                f"'saboteur-env[{extra}]' (from a clone: {torch_first}pip install -e "
                f"'.[{extra}]'; module {module!r} is not installed)"
            ) from err


_REGISTRY: dict[str, Callable[..., Agent]] = {}

#: the entry-point group through which installed packages offer agents by name (this one's
#: pyproject: the bluff benchmark's ``evasive`` and ``rolesplit``): each entry names a module
#: that calls :func:`register_agent` for that name when imported, which :func:`make_agent`
#: does at the name's first use
ENTRY_POINTS = "saboteur_env.agents"


def _offered() -> dict[str, Any]:
    """The entry points of :data:`ENTRY_POINTS` by agent name."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINTS)}


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``make_agent(name[:option])`` build agents with ``factory(option)``."""
    _REGISTRY[name] = factory


def make_agent(spec: str) -> Agent:
    """Build an agent from a spec: ``"random"``, ``"heuristic"``, ``"heuristic:subtle"``...,
    or a user's own agent as ``"MODULE.ATTR"`` (``"MODULE.ATTR:option"``): ``ATTR`` of the
    importable module ``MODULE`` (e.g. ``myagents.East`` with ``PYTHONPATH=.``), an
    :class:`Agent` subclass or a factory returning an agent, called like a registered
    factory.  Registered names have no dot, so a dotted name is always a module path; every
    process that plays it imports the module by name.

    Raises:
        TypeError: ``spec`` is not a string.
        ValueError: an unknown agent name (the message lists the known ones), a module path
            whose module does not import or lacks ``ATTR``, a factory that does not return an
            agent, an option given to an agent that takes none (``"random:3"``), or an empty
            option (``"heuristic:"``).
        MissingExtraError: the agent needs an extra that is not installed (``"ppo"``: torch).
    """
    if not isinstance(spec, str):
        raise TypeError(
            f"make_agent: the spec must be a str such as 'random', got {spec!r} "
            f"of type {type(spec).__name__}"
        )
    name, sep, option = spec.partition(":")
    if name not in _REGISTRY and "." not in name and name in (offered := _offered()):
        offered[name].load()  # the module registers the name
        if name not in _REGISTRY:
            raise ValueError(
                f"agent {name!r}: its entry point ({ENTRY_POINTS}: {offered[name].value}) "
                "imports, but registers no agent of that name (register_agent)"
            )
    if name in _REGISTRY:
        factory = _REGISTRY[name]
    elif spec.endswith((".pt", ".pth")):  # a checkpoint file given bare: it is played by ppo
        raise ValueError(
            f"unknown agent {spec!r}: a checkpoint file is played by the ppo agent, 'ppo:{spec}'"
        )
    elif "." in name:
        factory = _imported_factory(spec, name)
    else:
        raise ValueError(
            f"unknown agent {spec!r}; known agents: {known_agents()}, or "
            "MODULE.ATTR for an agent of your own (an importable module's Agent subclass or "
            "factory)"
        )
    if sep and not _takes_option(factory):
        raise ValueError(f"agent {name!r} takes no option, got {spec!r} (use {name!r})")
    if sep and not option:
        # "heuristic:" is a typo for something; the default is spelled without the colon
        raise ValueError(f"agent spec {spec!r} has an empty option (use {name!r} for the default)")
    agent = factory(option) if option else factory()
    if not callable(getattr(agent, "act", None)) or not callable(getattr(agent, "reset", None)):
        raise ValueError(
            f"agent spec {spec!r}: {name} returned {type(agent).__name__}, not an agent "
            "(an object with act(observation, action_mask, info) and reset(seat, config, seed))"
        )
    agent.name = spec
    return agent


def known_agents() -> list[str]:
    """The agent names :func:`make_agent` knows, sorted: those registered in this process and
    those other packages offer through entry points (group :data:`ENTRY_POINTS`), not yet
    imported; what every 'unknown agent' message lists."""
    return sorted({*_REGISTRY, *_offered()})


def import_callable(spec: str, path: str, what: str, unknown: str = "") -> Callable[..., Any]:
    """The callable ``ATTR`` (a class or a factory) of the importable module ``MODULE`` for
    ``path`` ``"MODULE.ATTR"``: how a user's own agent (:func:`make_agent`) or bluff detector
    (``saboteur bluff --detectors``) is named.  ``spec`` is what the user wrote and ``what``
    what it names, e.g. ``"agent"`` (for the messages); ``unknown`` follows the spec in the
    message when the module is not there (e.g. the registered names).

    Raises:
        ValueError: ``path`` is not ``MODULE.ATTR``, the module does not import, or has no
            callable ``ATTR``.
    """
    module, _, attr = path.rpartition(".")
    if not module or not attr:
        raise ValueError(f"{what} spec {spec!r}: not MODULE.ATTR{unknown}")
    try:
        mod = importlib.import_module(module)
    except ImportError as err:
        missing = getattr(err, "name", None)
        if missing is not None and not (module == missing or module.startswith(missing + ".")):
            # the module is there, and an import inside it failed
            raise ValueError(
                f"{what} spec {spec!r}: importing module {module!r} failed: {err}"
            ) from None
        raise ValueError(
            f"unknown {what} {spec!r}{unknown}; read as MODULE.ATTR, one of your own: module "
            f"{module!r} does not import ({err}); it must be on the import path (e.g. "
            f"PYTHONPATH=. for ./{module.replace('.', '/')}.py)"
        ) from None
    found = getattr(mod, attr, None)
    if not callable(found):
        raise ValueError(
            f"{what} spec {spec!r}: module {module!r} has no {what} class or factory {attr!r}"
        )
    return found  # type: ignore[no-any-return]


def _imported_factory(spec: str, name: str) -> Callable[..., Agent]:
    """``ATTR`` of module ``MODULE`` for a user's agent spec ``MODULE.ATTR`` (:func:`make_agent`).

    Raises:
        ValueError: the module does not import, or has no ``ATTR``, or it is not callable.
    """
    factory = import_callable(spec, name, "agent", f" (known agents: {known_agents()})")
    if isinstance(factory, type) and issubclass(factory, Agent) and factory.act is Agent.act:
        raise ValueError(f"agent spec {spec!r}: {name.rpartition('.')[2]} does not implement act()")
    return factory  # type: ignore[no-any-return]


def _takes_option(factory: Callable[..., Agent]) -> bool:
    """Whether ``factory`` accepts one positional argument (the spec's option)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return True
    try:
        sig.bind("option")
    except TypeError:
        return False
    return True
