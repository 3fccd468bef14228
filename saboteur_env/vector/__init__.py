"""Many games of one configuration stepped together, for self-play (DESIGN 8).

:class:`VectorGame` holds ``num_envs`` games and exposes them as arrays, Pgx-style:
``reset(seed)``, ``step(actions)`` with auto-reset, and per game ``current_player``,
``observation`` ``(B, obs)``, ``legal_action_mask`` ``(B, n)``, ``rewards`` ``(B, N)``,
``terminated`` and ``truncated`` ``(B,)``.  Game ``i`` is bit-identical to a ``raw_env`` reset
with the same seed and given the same actions (``tests/test_vector.py`` plays both side by
side), whichever backend steps it:

* ``"array"`` (:mod:`.arrays`, :mod:`.kernels`): the games' state lives in arrays and one
  compiled call plays a decision of every game, with the round end and next deal it causes
  (a Saboteur 2 round end is scored by the engine's own scoring, game by game:
  :meth:`.arrays.ArrayGames.settle`), and writes its observation and mask; a new game's every
  round is drawn when it is dealt, by the engine's own draws, and its
  :class:`~saboteur_env.engine.state.Game` object is the engine's own, made from its seed
  and brought up to date when read by playing the game's recorded actions through the
  engine.  Needs numba (the ``fast`` extra) and a ruleset the kernels play
  (:func:`.arrays.supports`): the base game and Saboteur 2.
* ``"engine"``: every game is the engine's own :class:`~saboteur_env.engine.state.Game`,
  stepped one after another and encoded by the env's
  :class:`~saboteur_env.encoding.observation.ObservationEncoder` and
  :class:`~saboteur_env.encoding.codec.Codec`; only numpy is needed.

``backend="auto"`` (the default) takes the array backend where it can.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..encoding.codec import Codec, legal_indices
from ..encoding.observation import ObservationEncoder
from ..engine.actions import IllegalActionError
from ..engine.config import GameConfig
from ..engine.scoring import round_rewards
from ..engine.state import Event, Game
from . import kernels
from .arrays import BACKENDS, ArrayGames, resolve_backend

#: VectorGame attributes that are views of others (not pickled: rebuilt)
_VIEWS = ("observation", "legal_action_mask")


class PerGame(Sequence):
    """A read-only sequence of ``n`` entries, entry ``i`` made by ``get(i)`` when read (the
    array backend's ``games``, ``ended_games`` and ``events``: each entry is brought up to
    date alone); equal to a list of the same entries."""

    __slots__ = ("_n", "_get")

    def __init__(self, n: int, get) -> None:
        self._n, self._get = n, get

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._get(j) for j in range(*i.indices(self._n))]
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"index {i!r}: an int or a slice")
        if not -self._n <= i < self._n:
            raise IndexError(f"game {i}: the games are 0..{self._n - 1}")
        return self._get(int(i) % self._n)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, PerGame)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


__all__ = ["BACKENDS", "VectorGame"]


class VectorGame:
    """``num_envs`` Saboteur games of one configuration, stepped together with auto-reset.

    Args:
        num_envs: the number of games ``B`` (>= 1).
        backend: ``"auto"`` (default: ``"array"`` where numba is installed and the ruleset
            is supported, else ``"engine"``), ``"array"`` or ``"engine"`` (module docstring).
        **config: :class:`~saboteur_env.engine.config.GameConfig` options (as ``env()``).

    Attributes (after :meth:`reset`; every array is overwritten in place by each step):
        current_player: int64 ``(B,)``, the seat to act in each game.
        observation: float32 ``(B, obs)``, the observation of that seat (the env's
            ``observe(agent_selection)["observation"]``).
        legal_action_mask: bool ``(B, n)``, that seat's legal actions (the env's
            ``action_mask``).
        rewards: float32 ``(B, N)``, each seat's reward from the last step (nonzero only when
            it ended a round; :func:`~saboteur_env.engine.scoring.round_rewards`).
        terminated: bool ``(B,)``, the last step ended that game (it was then replaced by a
            new one: ``observation``, ``legal_action_mask`` and ``current_player`` are the
            new game's, ``rewards`` and ``final_gold`` the finished one's).
        truncated: bool ``(B,)``, the last step reached ``max_cycles`` (auto-reset likewise).
        final_gold: int64 ``(B, N)``, the gold of a game that ended in the last step (zeros
            elsewhere).
        events: ``B`` lists, the events each game's last step emitted (all of them, hidden
            ones too: for logs and tests, never for a player; ``engine.events.route_events``
            or ``Event.seen_by(seat)`` give a seat what it may see, as the env's ``infos`` do).
            After :meth:`reset` and :meth:`reset_game`, the new deal's events.  Where a step
            ended a game, its events are the ended game's last ones (up to ``game_end``), and
            the deal that replaced it is in ``new_game_events``.
        new_game_events: ``B`` lists: where the last step ended game ``i`` and dealt a new
            one (``terminated`` or ``truncated``), that game's deal events (``round_start``,
            each seat's ``role_dealt``, as ``reset_game`` puts in ``events``), to route to
            the new game's players before they act; empty lists elsewhere.
        ended_games: ``B`` entries, the :class:`~saboteur_env.engine.state.Game` that ended in
            the last step (its ``round_results``, ``gold`` and ``events``), ``None`` where
            none ended.
        games: the ``B`` :class:`~saboteur_env.engine.state.Game` objects (on the array
            backend a sequence: ``games[i]`` is :meth:`game` ``(i)``).
        backend: the backend in use, ``"array"`` or ``"engine"``.

    Every array above is overwritten in place by the next step: copy what you keep.
    ``observation`` and ``legal_action_mask`` are read-only views (``step`` checks actions
    against the mask; the array backend rewrites a game's board planes only where its board
    changed, so a value written into them would stay).  On the array backend the first
    ``VectorGame`` of a process compiles the kernels, 20-30 seconds once, then numba's
    cache (``NUMBA_CACHE_DIR``, else beside the package) makes it a fraction of a second.
    There the arrays, ``rewards``, ``final_gold``, ``terminated`` and the events of a step
    inside a round cost nothing more, but a ``Game`` object (``game(i)``, ``games[i]``,
    ``ended_games[i]``) and the events of a step that ended a round are made by playing the
    game's recorded actions through the engine, once each, at engine speed (about 20
    microseconds a decision): read them where you need them, not every step (an ended game
    only in the step it ended: after that its slot's record belongs to the next game, and a
    ``Game`` kept from an earlier read stays as it was then).  It deals every
    round of a game when the game is dealt or loaded (the engine's generator is drawn at deals
    only), so a caller must not draw a game's generator (``Game.rng``) itself: the next read
    of that game then raises ``RuntimeError``.  A ``Game`` read from the batch is its state,
    not a copy to edit: a game played on in place (``game(i).apply(...)``) is refused with a
    ``RuntimeError`` by the next :meth:`step` (before any game moves) or read of it (the
    batch's mask, and the array backend's kernels, never saw the edit).  The check counts the
    decisions played, so any other edit in place (cards moved between hands, a role changed)
    goes unseen and leaves the batch's arrays describing another state: to continue from an
    edited position, always edit a copy and give it back with :meth:`load`.

    Raises:
        ValueError: ``num_envs`` < 1; an unknown ``backend``; ``backend="array"`` for a
            ruleset it does not play.
        RuntimeError: ``backend="array"`` without numba (``pip install numba``).
        saboteur_env.engine.config.ConfigError: a bad option.
    """

    def __init__(self, num_envs: int, backend: str = "auto", **config) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise TypeError(f"num_envs must be an int, not {type(num_envs).__name__}")
        if num_envs < 1:
            raise ValueError(f"num_envs={num_envs}: must be >= 1")
        self.config = GameConfig.from_kwargs(**config)
        self.backend = resolve_backend(backend, self.config)
        self.num_envs = int(num_envs)
        self.num_players = self.config.num_players
        self.codec = Codec(self.config)
        self.encoder = ObservationEncoder(self.config)
        self.encoder.cache_games(self.num_envs)  # the B games are encoded in turn
        self.num_actions = self.codec.n
        self.observation_size = self.encoder.size
        b, n = self.num_envs, self.num_players
        self.current_player = np.zeros(b, dtype=np.int64)
        # written by the backends; callers get read-only views (the mask is what step()
        # checks actions against, and the array backend updates both in place)
        self._obs = np.zeros((b, self.observation_size), dtype=np.float32)
        self._mask = np.zeros((b, self.num_actions), dtype=bool)
        self.observation = self._obs.view()
        self.observation.flags.writeable = False
        self.legal_action_mask = self._mask.view()
        self.legal_action_mask.flags.writeable = False
        self.rewards = np.zeros((b, n), dtype=np.float32)
        self.terminated = np.zeros(b, dtype=bool)
        self.truncated = np.zeros(b, dtype=bool)
        self.final_gold = np.zeros((b, n), dtype=np.int64)
        self._events: list[list[Event]] = [[] for _ in range(b)]
        #: the games the last step ended and replaced (their deals: new_game_events)
        self._new_games: set[int] = set()
        self._ended: list[Game | None] = [None] * b
        self._no_games: list[Game | None] = [None] * b
        self._row_starts = np.arange(b, dtype=np.int64) * self.num_actions
        # on the array backend an entry is None until read: game(i) makes it from _seeds[i]
        # (kept current on that backend only)
        self._games: list[Game | None] = []
        self._seeds: list[int] = []
        self._streams: list[np.random.Generator] = []
        #: per game, its ``Game.decisions`` when the batch last wrote its arrays from it (or
        #: brought it up to date): a ``Game`` played on in place since is refused
        self._synced = [0] * b
        self._arrays = None
        if self.backend == "array":
            self._arrays = ArrayGames(
                self.config,
                b,
                self.codec,
                self.encoder,
                self._obs,
                self._mask,
            )
            self._events_stale = [False] * b
            #: games whose last step ended a round
            self._round_ended: set[int] = set()
            #: per game, the recorded actions its Game object has been brought up to date
            #: with, and where the last one's events begin in its event list
            self._replayed = [0] * b
            self._last_mark = [0] * b
            #: per game that ended in the last step: its actions not yet played on its Game
            #: object, then (once played) where its last action's events begin
            self._ended_pending: dict[int, np.ndarray] = {}
            self._ended_marks: dict[int, int] = {}
            #: per game that ended in the last step and was never read: its seed
            self._ended_seeds: dict[int, int] = {}
            #: per game that ended in the last step and was read before: its ``_synced``
            self._ended_synced: dict[int, int] = {}

    # --- games and events (the array backend builds them when read) ------------------------
    def __getstate__(self) -> dict:
        # the read-only views would pickle as copies of their own: rebuilt on unpickling
        return {k: v for k, v in self.__dict__.items() if k not in _VIEWS}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        # a batch pickled before these attributes existed (its games are all Game objects)
        b = self.num_envs
        self.__dict__.setdefault("_no_games", [None] * b)
        self.__dict__.setdefault("_row_starts", np.arange(b, dtype=np.int64) * self.num_actions)
        self.__dict__.setdefault("_seeds", [0] * b)
        self.__dict__.setdefault("_new_games", set())
        if "_synced" not in self.__dict__:
            self._synced = [0 if g is None else g.decisions for g in self._games]
        if self._arrays is not None:
            self.__dict__.setdefault("_ended_seeds", {})
            self.__dict__.setdefault("_ended_synced", {})
        self.observation = self._obs.view()
        self.observation.flags.writeable = False
        self.legal_action_mask = self._mask.view()
        self.legal_action_mask.flags.writeable = False

    @property
    def games(self) -> Sequence[Game]:
        """The ``B`` games (see the class docstring): a read-only sequence whose ``games[i]``
        is :meth:`game` ``(i)``."""
        if not self._games:
            return ()
        # a read-only sequence on both backends: a game is replaced through load(), which
        # rewrites its arrays, never by assigning into a list
        return PerGame(self.num_envs, self.game)

    def game(self, i: int) -> Game:
        """Game ``i`` (``games[i]``), brought up to date alone on the array backend (a
        :class:`~saboteur_env.engine.state.Game` there is brought up to date only when read
        through this, ``games`` or ``ended_games``: a reference kept from an earlier read
        shows that moment's state).

        Raises:
            RuntimeError: before :meth:`reset`.
            IndexError: ``i`` is not a game index.
        """
        self._check_index(i)
        g = self._games[i]
        if g is None:  # dealt by the kernels, not read since
            self._games[i] = g = Game(self.config, self._seeds[i])
            self._synced[i] = g.decisions
        self._check_synced(i, g)
        if self._arrays is not None and self._replayed[i] < self._arrays.ints[i, kernels.I_NACTS]:
            self._replayed[i], mark = self._arrays.catch_up(i, g, self._replayed[i])
            self._last_mark[i] = mark
            self._synced[i] = g.decisions
        return g

    def _check_synced(self, i: int, g: Game) -> None:
        """Refuse game ``i`` if its ``Game`` was played on in place since the batch last
        wrote or read it (its arrays, or the actions the kernels recorded, would no longer
        be its state).

        Raises:
            RuntimeError: naming the game, and ``load`` as the way to continue from an edit.
        """
        if g.decisions != self._synced[i]:
            raise RuntimeError(
                f"game {i} was played on in place ({g.decisions} decisions, the batch has "
                f"{self._synced[i]}): its observation and mask no longer describe it.  To "
                f"continue from an edited position, edit a copy and give it back with "
                f"load({i}, game)"
            )

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action of every game, int64 ``(B,)``: with ``u`` drawn by
        ``rng.random(B)``, the legal action at position ``floor(u * count)`` of the game's
        legal actions in ascending order (the same actions on both backends for the same
        ``rng``; the array backend reads the legal lists its kernels keep, without a pass over
        the masks).

        Raises:
            RuntimeError: before :meth:`reset`.
            TypeError: ``rng`` is not a ``numpy.random.Generator``.
            ValueError: a game has no legal action (a loaded position where no hand holds a
                card: the rules end such a round before anyone acts).
        """
        if not self._games:
            raise RuntimeError("call reset(seed) before sample_actions()")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(
                f"rng: a numpy.random.Generator (np.random.default_rng(seed)), not {rng!r}"
            )
        u = rng.random(self.num_envs)
        if self._arrays is not None:
            out = self._arrays.sample(u)
            for i in np.flatnonzero(out < 0).tolist():  # a legal list too long to keep
                legal = legal_indices(self._mask[i])
                if not len(legal):
                    raise ValueError(f"game {i} has no legal action")
                out[i] = legal[int(u[i] * len(legal))]
            return out
        # flat indices of the raveled mask, not np.nonzero of the 2-D mask: about 16x faster
        # (measured at B = 1,024 on Saboteur 2's 43,779 actions: 6 ms against 103 ms)
        rows, cols = np.divmod(np.flatnonzero(self._mask.view(np.bool_)), self._mask.shape[1])
        starts = np.searchsorted(rows, np.arange(self.num_envs))
        counts = np.diff(np.append(starts, len(rows)))
        if not counts.all():
            raise ValueError(f"game {int(np.flatnonzero(counts == 0)[0])} has no legal action")
        return cols[starts + (u * counts).astype(np.int64)].astype(np.int64)

    def round_truth(self) -> tuple[np.ndarray, np.ndarray]:
        """What every game's current round hides from its players: ``(roles int8 (B, n),
        goal_identity int8 (B, 3))``, copies.  ``roles[i, s]`` is absolute seat ``s``'s role
        id, an index into the ruleset's ``roles`` (``config.ruleset.roles``: in the base game
        0 gold-digger and 1 saboteur, in Saboteur 2 other roles under the same numbers;
        RULES 2.2, 6.2; after any Swap your hats, RULES 6.5); observations, unlike this, put
        the observer first.  ``goal_identity[i, g]`` is the card of goal slot ``g`` (slots in
        the order of ``saboteur_env.engine.cards.GOAL_CELLS``): ``GOAL_GOLD`` (0) or a stone
        (1, 2) (RULES 1.2).  For trainers only (a critic that sees the hidden state, the
        ``--privileged-critic`` of ``saboteur train``): a player's observation must never
        be built from it.  Cheap on both backends: the array backend reads its arrays
        without bringing a ``Game`` up to date.

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        if not self._games:
            raise RuntimeError("call reset(seed) before round_truth()")
        if self._arrays is not None:
            return self._arrays.roles.copy(), self._arrays.goal_identity.copy()
        games = self._games
        roles = np.array([g.roles for g in games], dtype=np.int8)  # type: ignore[union-attr]
        goals = np.array([g.board.goal_identity for g in games], dtype=np.int8)  # type: ignore[union-attr]
        return roles, goals

    @property
    def ended_games(self) -> Sequence[Game | None]:
        """Per game, the :class:`~saboteur_env.engine.state.Game` that ended in the last step
        (its ``round_results``, ``gold`` and ``events``), ``None`` where none ended."""
        if self._arrays is None:
            return self._ended
        return PerGame(self.num_envs, self._ended_game)

    @ended_games.setter
    def ended_games(self, value: list[Game | None]) -> None:
        self._ended = list(value)
        if self._arrays is not None:
            self._ended_pending, self._ended_marks, self._ended_seeds = {}, {}, {}
            self._ended_synced = {}

    def _ended_game(self, i: int) -> Game | None:
        """``ended_games[i]``, brought up to date first (array backend).

        Raises:
            RuntimeError: its ``Game``, read before it ended, was played on in place since
                (every later read raises too: its last actions cannot be replayed onto it).
        """
        g, synced = self._ended[i], self._ended_synced.get(i)
        if i in self._ended_pending and g is not None and synced not in (None, g.decisions):
            raise RuntimeError(
                f"the game that ended in slot {i} was played on in place ({g.decisions} "
                f"decisions, the batch had {synced}) before its last actions were replayed"
            )
        pending = self._ended_pending.pop(i, None)
        self._ended_synced.pop(i, None)
        if i in self._ended_seeds:  # dealt by the kernels and never read: made now
            self._ended[i] = Game(self.config, self._ended_seeds.pop(i))
        g = self._ended[i]
        if pending is not None:
            assert g is not None and self._arrays is not None
            mark = self._arrays.replay(g, pending)
            self._ended_marks[i] = mark if mark >= 0 else self._last_mark[i]
        return g

    @property
    def events(self) -> Sequence[list[Event]]:
        """Per game, the events of its last step (see the class docstring); on the array
        backend a sequence that makes game ``i``'s events when ``events[i]`` is read."""
        if self._arrays is None:
            return self._events
        return PerGame(self.num_envs, self._step_events)

    def _step_events(self, i: int) -> list[Event]:
        """``events[i]`` (array backend): made from the kernels' records at the first read;
        where the step ended a round, the engine's own, by bringing the game up to date."""
        if self._events_stale[i]:
            assert self._arrays is not None
            if i in self._ended_pending or i in self._ended_marks:  # the game ended
                g = self._ended_game(i)
                assert g is not None
                self._events[i] = g.events[self._ended_marks[i] :]
            elif i in self._round_ended:
                g = self.game(i)
                self._events[i] = g.events[self._last_mark[i] :]
            else:
                self._events[i] = self._arrays.events(i)
            self._events_stale[i] = False
        return self._events[i]

    @property
    def new_game_events(self) -> Sequence[list[Event]]:
        """Per game, the deal events of the game the last step dealt in its place where it
        ended one (see the class docstring), else an empty list: every seat's, its private
        ``role_dealt`` too (for logs and tests; route them with ``Event.seen_by(seat)``, as
        ``events``, before a player sees them)."""
        return PerGame(self.num_envs, self._new_game_events)

    def _new_game_events(self, i: int) -> list[Event]:
        # a game dealt by the last step has taken no decision: its events are its deal's
        return list(self.game(i).events) if i in self._new_games else []

    # --- lifecycle -----------------------------------------------------------------------
    def reset(self, seed: int | Sequence[int]) -> None:
        """Deal every game: game ``i`` from ``seed + i`` (an int) or ``seed[i]`` (one per game).

        A game that ends is replaced by the next deal of its own stream: the seed
        ``np.random.default_rng(seed_i).integers(2**63)``, then the next, exactly as
        ``raw_env`` deals an unseeded ``reset()`` after ``reset(seed=seed_i)``.

        Raises:
            TypeError / ValueError: a seed that is not a non-negative int, or a sequence of
                the wrong length.
        """
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        elif isinstance(seed, (str, bytes)) or not isinstance(seed, Sequence | np.ndarray):
            raise TypeError(f"seed {seed!r}: a non-negative int or one int per game")
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} games")
        for s in seeds:
            if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
                raise TypeError(f"seed {s!r}: must be a non-negative int")
            if s < 0:
                raise ValueError(f"seed {s}: must be non-negative")
        self._streams = [np.random.default_rng(int(s)) for s in seeds]
        self._seeds = [int(s) for s in seeds]
        self._games = [Game(self.config, int(s)) for s in seeds]
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        self.final_gold[:] = 0
        self._new_games = set()
        self.ended_games = [None] * self.num_envs
        for i, g in enumerate(self._games):
            self._set_events(i, list(g.events))
            self._load(i)

    def reset_game(self, i: int, seed: int) -> None:
        """Deal game ``i`` anew from ``seed`` (its later auto-resets then follow ``seed``'s
        stream, as :meth:`reset` seeds it); the other games are untouched.  For callers that
        choose every deal themselves (training draws only train-split seeds, DESIGN 9).

        Raises:
            RuntimeError: before :meth:`reset`.
            IndexError: ``i`` is not a game index.
            TypeError / ValueError: ``seed`` is not a non-negative int.
        """
        self._check_index(i)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed {seed!r}: must be a non-negative int")
        if seed < 0:
            raise ValueError(f"seed {seed}: must be non-negative")
        self._streams[i] = np.random.default_rng(int(seed))
        self._seeds[i] = int(seed)
        self._games[i] = g = Game(self.config, int(seed))
        self._set_events(i, list(g.events))
        self._clear(i)
        self._load(i)

    def load(self, i: int, game: Game) -> None:
        """Continue game ``i`` from ``game`` (a hand-built position, for tests and analysis);
        as the env's ``load``, no earlier event is replayed (``events[i]`` is empty).

        Raises:
            RuntimeError: before :meth:`reset`.
            IndexError: ``i`` is not a game index.
            ValueError: ``game`` was made for other options than this batch's, or is over
                (nothing is left to play in it); on the array backend, it has more cards in
                play than the ruleset's deck, or more dwarf cards aside than a deal leaves.
        """
        self._check_index(i)
        if not isinstance(game, Game):
            raise TypeError(f"game must be a saboteur_env Game, not {type(game).__name__}")
        if game.config != self.config:
            raise ValueError(
                f"the game's options {game.config} differ from the batch's {self.config}"
            )
        if game.game_over:
            raise ValueError(f"game {i}: the game given is over: load a position still in play")
        if self._arrays is not None:
            self._arrays.check(game)
        self._games[i] = game
        self._set_events(i, [])
        self._clear(i)
        self._load(i)

    def _clear(self, i: int) -> None:
        """Game ``i``'s rows of the last step's outcome, emptied (a new game in that slot)."""
        self.rewards[i] = 0
        self.terminated[i] = False
        self.truncated[i] = False
        self.final_gold[i] = 0
        self._ended[i] = None
        self._new_games.discard(i)
        if self._arrays is not None:
            self._ended_pending.pop(i, None)
            self._ended_marks.pop(i, None)
            self._ended_seeds.pop(i, None)
            self._round_ended.discard(i)

    def _set_events(self, i: int, events: list[Event]) -> None:
        """Game ``i``'s events of the last step (or deal) are ``events``."""
        self._events[i] = events
        if self._arrays is not None:
            self._events_stale[i] = False

    def _check_index(self, i: object) -> None:
        if not self._games:
            raise RuntimeError("call reset(seed) first")
        if (
            isinstance(i, bool)
            or not isinstance(i, (int, np.integer))
            or not 0 <= i < self.num_envs
        ):
            raise IndexError(f"game {i}: the games are 0..{self.num_envs - 1}")

    def step(self, actions) -> None:
        """Play ``actions[i]`` (a flat action index) in every game ``i``, then deal a new game
        wherever one ended (see the class docstring for what the arrays then hold).

        Raises:
            RuntimeError: before :meth:`reset`.
            ValueError: ``actions`` is not ``B`` integers.
            saboteur_env.engine.IllegalActionError: an action that is not legal in its game
                (named with the game's index); every action is checked before any is
                played, so no game moves.
        """
        if not self._games:
            raise RuntimeError("call reset(seed) before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            got = (
                f"{acts.dtype} values" if acts.shape == (self.num_envs,) else f"shape {acts.shape}"
            )
            raise ValueError(
                f"actions: {self.num_envs} integers (shape ({self.num_envs},)), got {got}"
            )
        out = (acts < 0) | (acts >= self.num_actions)  # in the given dtype: no wrap-around
        if out.any():
            i = int(np.flatnonzero(out)[0])
            raise IllegalActionError(
                f"game {i}: action {acts[i]} is outside Discrete({self.num_actions})"
            )
        acts = acts.astype(np.int64)
        synced = self._synced
        for i, g in enumerate(self._games):  # none played on in place since it was read
            if g is not None and g.decisions != synced[i]:
                self._check_synced(i, g)
        # each game's entry of its own mask row, by flat index (cheaper than a 2-d gather)
        illegal = ~self._mask.reshape(-1).take(self._row_starts + acts)
        if illegal.any():
            i = int(np.flatnonzero(illegal)[0])
            a, seat = int(acts[i]), int(self.current_player[i])
            what = self.codec.describe(a, seat, self.num_players)
            why = self.game(i).check(self.codec.decode(a, seat, self.num_players))
            raise IllegalActionError(f"game {i}: seat {seat} may not play {a} ({what}): {why}")
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        self.final_gold[:] = 0
        ended = self._ended
        ended[:] = self._no_games
        self._new_games = set()
        if self._arrays is not None:
            self._step_arrays(acts)
            return
        max_decisions = self.config.max_decisions
        for i, g in enumerate(self._games):
            a = int(acts[i])
            # the mask is the engine's legal set of this state: the action is verified
            events = g.apply(self.codec.decode(a, g.current, g.n), verify=False)
            self._events[i] = events
            res = g.ended_round(events)
            if res is not None:
                self.rewards[i] = round_rewards(res, self.config.reward, self.config.ruleset)
            if g.game_over or (max_decisions is not None and g.decisions >= max_decisions):
                self.terminated[i] = g.game_over
                self.truncated[i] = not g.game_over
                self.final_gold[i] = g.gold
                ended[i] = g
                self._games[i] = g = Game(self.config, int(self._streams[i].integers(2**63)))
                self._new_games.add(i)
            self._load(i)

    def _step_arrays(self, acts: np.ndarray) -> None:
        """:meth:`step` on the array backend: the kernels play every game's decision, and the
        round ends and deals it causes; where a game ended (or reached ``max_cycles``) a new
        one is dealt, as on the engine backend.  The ``Game`` objects and the events of a
        step that ended a round are made when read (:meth:`game`, :meth:`_step_events`)."""
        from .arrays import K

        arr = self._arrays
        assert arr is not None
        status = arr.step(acts, self.rewards)
        ints = arr.ints
        self._events_stale = [True] * self.num_envs
        # the games whose step ended a round: their events are the engine's, made on reading
        self._round_ended = set(np.flatnonzero(status != K.CONTINUE).tolist()) | set(arr.settled)
        over = np.flatnonzero(status == K.GAME_OVER).tolist()
        max_decisions = self.config.max_decisions
        if max_decisions is not None:
            late = (ints[:, K.I_DECISIONS] >= max_decisions) & (status != K.GAME_OVER)
            over += np.flatnonzero(late).tolist()
        self._ended_pending, self._ended_marks, self._ended_seeds = {}, {}, {}
        self._ended_synced = {}
        seeds = []
        for i in over:
            self.terminated[i] = status[i] == K.GAME_OVER
            self.truncated[i] = status[i] != K.GAME_OVER
            self.final_gold[i] = arr.gold[i]
            # the ended game's Game, or its seed where it was never read (made when read)
            self._ended[i] = self._games[i]
            if self._games[i] is None:
                self._ended_seeds[i] = self._seeds[i]
            else:  # an ended Game read before: its edits are refused as a live one's are
                self._ended_synced[i] = self._synced[i]
            # the actions the ended game has not yet been brought up to date with
            total = int(ints[i, K.I_NACTS])
            self._ended_pending[i] = arr.actions[i, self._replayed[i] : total].copy()
            self._seeds[i] = seed = int(self._streams[i].integers(2**63))
            seeds.append(seed)
            self._games[i] = None
            self._replayed[i] = 0
            self._synced[i] = 0
        if over:
            arr.start(np.array(over, dtype=np.int64), seeds)
        self._new_games = set(over)
        self.current_player[:] = ints[:, K.I_CURRENT]

    def _load(self, i: int) -> None:
        """Write game ``i``'s seat to act, its observation and its mask into the arrays."""
        g = self._games[i]
        self._synced[i] = g.decisions
        if self._arrays is not None:
            self._arrays.load(i, g)
            self._arrays.refresh(np.array([i], dtype=np.int64))
            self._replayed[i] = 0
            self.current_player[i] = g.current
            return
        s = g.current
        self.current_player[i] = s
        row = self._obs[i]
        row[:] = 0
        self.encoder.encode(g, s, out=row)
        self._mask[i] = self.codec.mask(g, s).view(bool)

    def aec_env(self, i: int, render_mode: str | None = None, render_seat=None):
        """A PettingZoo AEC env (``raw_env``) continuing from a copy of game ``i`` (for code that
        needs the AEC API; stepping it leaves this batch unchanged).  Its game is this copy
        until it ends; a later unseeded ``reset()`` of it deals from seed 0's stream, not game
        ``i``'s.

        Raises:
            RuntimeError: before :meth:`reset`.
            IndexError: ``i`` is not a game index.
        """
        if not self._games:
            raise RuntimeError("call reset(seed) before aec_env()")
        self._check_index(i)
        from ..aec import raw_env

        env = raw_env(render_mode=render_mode, render_seat=render_seat, **self.config.options())
        env.reset(seed=0)
        env.load(self.game(i).copy())
        return env
