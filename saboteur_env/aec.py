"""The PettingZoo AEC adapter (DESIGN 5).

``saboteur_env.env(**config)`` returns the wrapped environment (PettingZoo's
``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``), ``saboteur_env.raw_env(**config)``
the bare one.  Keyword options are those of :class:`~saboteur_env.engine.config.GameConfig` plus
``render_mode`` (``None``, ``"ansi"``, ``"rgb_array"``, ``"human"``) and ``render_seat`` (the
seat whose view ``render()`` draws: ``None`` = the agent to act, a seat ``0..N-1``, or
``"spectator"`` for everything; checked at construction, any other value is a ``ValueError``).

* ``backend``: ``"auto"`` (default), ``"array"`` or ``"engine"``, as
  :class:`~saboteur_env.vector.VectorGame`'s (``auto``: ``"array"`` for the base game and
  Saboteur 2 where numba is in use: installed, importable, and ``SABOTEUR_NUMBA`` not
  ``0``).  On ``"array"`` the batched engine's compiled kernels hold the game in a one-game
  copy of its arrays (:class:`~saboteur_env.vector.arrays.FollowedGame`) and keep the
  observation and mask of the seat to act, updating only what a move changed.  From
  :meth:`raw_env.reset` until ``env.game`` is first read, the kernels alone play the
  decisions (the events of each, a round end's and the final observations are made from their
  arrays); reading ``env.game`` brings the engine's game up to date (by playing the recorded
  actions, about 20 us each) and from then until the next ``reset`` the engine plays every
  decision, so that the object read stays the live game.  :meth:`raw_env.load` also hands
  the game to the engine.  Observing another agent than the one to act, ``state()`` and
  ``render()`` bring the engine's game up to date too (the kernels keep leading), so a loop
  that observes every agent at every step (e.g. PettingZoo's parallel wrapper) runs at about
  the engine backend's pace.  ``"engine"``: the engine plays every decision and the observation
  and mask are encoded at every ``observe``.  Both backends give byte-identical observations,
  masks, rewards, infos and games (``tests/test_aec_backends.py``).  The first env of a fresh
  install compiles the kernels (about 35 s on 2 cores, once: numba caches them).  A game
  edited in place (not through ``step``) is given back with ``load`` for the observation and
  mask to follow it (until then the engine still refuses a move the edit made illegal); a
  move applied to ``env.game`` is followed.
* Agents are ``player_0 .. player_{N-1}`` (seat ``i`` is ``player_i``).  An episode is the whole
  game (``num_rounds`` rounds); players with no cards are skipped.
* ``max_cycles`` (DESIGN 5): when the game's decisions reach ``max_cycles * num_players`` every
  agent is truncated in that step (``None``, the default: no bound).  In the base game each
  agent has then acted at most ``max_cycles`` times; in Saboteur 2 a pass or a removal is
  several decisions of one agent, so one agent may have acted more often.
* ``state()``: the spectator's view (DESIGN 8), float32 ``(state_size,)`` in ``state_space``: the
  observation of seat 0 followed by the hidden block (every hand, role and gold, the goal
  identities, ...), see :meth:`~saboteur_env.encoding.observation.ObservationEncoder.encode`
  with ``viewer="spectator"``.  For centralised critics; never give it to a player.
* Observation: ``Dict(observation=Box(float32, (size,)), action_mask=Box(0, 1, (n,), int8))``,
  identical for every agent; see :mod:`saboteur_env.encoding.observation`.  The mask of an
  agent that is not to act is all zeros.
* Reward, given when a round ends to every agent: the gold received that round
  (``reward="gold"``), or +1 for the winning side / -1 otherwise (``reward="win"``).
  Saboteur 2 (``expansion=True``): the round ends after the round-end thefts (each thief is
  selected in turn with only ``steal`` actions legal); the gold reward includes what was
  stolen (1 gold per theft suffered, RULES 6.9: a robbed player paid little or nothing gets a
  negative reward); with ``reward="win"`` a geologist, never a
  winner (RULES 6.9), gets +1 when paid more than 0 gold (``scoring.seat_won``), else -1.
* ``infos[agent]["events"]``: the events that agent may see since its last turn (public ones
  and its own private ones, :class:`~saboteur_env.engine.state.Event`); at a round end
  ``infos[agent]["round_result"]`` holds the revealed roles and the winning side.
* Illegal actions: ``step`` raises :class:`~saboteur_env.engine.IllegalActionError` naming the
  rule, and leaves the state unchanged (no silent penalty).  The env holds no rule: the mask is
  the engine's legal set (``Game.legal``) laid out by the codec, and ``step`` plays through the
  engine's public, verified ``Game.apply`` or, while they lead, the batched engine's kernels
  (their restatement of the base game, checked against the engine by the tests named above).

Version History
---------------
The adapter was ``saboteur_env/env.py`` before the engine redesign; import it as
``saboteur_env.env()`` / ``saboteur_env.raw_env()`` or from :mod:`saboteur_env.saboteur_v0`.
The ``_vN`` suffix of :mod:`saboteur_env.saboteur_v0` moves when the spaces' fingerprint changes
(``saboteur_agents.network.env_spec``: sizes, view shapes and offsets, action blocks, variants,
window).

* v0 (0.1.0): the base game (3-10 players) and Saboteur 2 (2-12 players, ``expansion=True``).
  Default spaces: base ``Discrete(9789)``, observation float32 ``(6701,)``, fingerprint
  ``364a8b740de28874``; Saboteur 2 ``Discrete(43779)``, ``(18810,)``, ``c61d02f7f3378431``.
  The engine redesign (ruleset as data, one module per action family) kept both fingerprints
  and every seeded game's event stream byte-identical (``tests/golden.py``).
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .encoding.codec import Codec
from .encoding.observation import ObservationEncoder
from .engine import Game, GameConfig, IllegalActionError
from .engine.events import route_events
from .engine.scoring import round_rewards
from .render import render_ansi
from .vector import kernels as K
from .vector.arrays import FollowedGame, resolve_backend


def env(**kwargs) -> AECEnv:
    """The wrapped Saboteur environment (out-of-bounds and call-order checks)."""
    e = raw_env(**kwargs)
    e = _BoundsWrapper(e)
    e = _OrderWrapper(e)
    return e


class _BoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's out-of-bounds check, failing with the raw env's clear errors (the wrong
    type or the out-of-range index named) instead of a bare ``AssertionError``.

    The raw env's ``step`` begins with ``_check_action``, which refuses everything PettingZoo's
    assertion would (a non-None action of a done agent, ``None`` or a non-int for a live one,
    an index outside the space) before anything changes, so the step goes straight to the env
    without repeating the check here or in Gymnasium's ``contains``."""

    def step(self, action) -> None:
        self.env.step(action)


def _raw_field(name: str) -> property:
    """The raw env's ``name``; before ``reset`` the ``AttributeError`` PettingZoo's
    ``OrderEnforcingWrapper`` raises.  Assigning sets the raw env's field."""

    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    def put(self, value) -> None:
        setattr(self._raw, name, value)

    return property(get, put, doc=f"The raw env's ``{name}`` (after ``reset``).")


class _OrderWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's call-order checks; after ``reset`` it reads the raw env's AEC fields
    (``agents``, ``agent_selection``, ``rewards``, ``terminations``, ``truncations``,
    ``infos``) and ``last()`` directly instead of through two wrappers' ``__getattr__``
    forwarding, which ``agent_iter`` and ``step`` pay on every step (the same values; before
    ``reset`` the wrapper's own errors).  It wraps :class:`_BoundsWrapper` directly (only
    :func:`env` builds it), whose ``step`` adds nothing to the raw env's.  One difference from
    the stock wrapper: assigning one of these fields sets the raw env's (the stock wrapper
    would keep the value on itself, shadowing the env's)."""

    def __init__(self, env) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    agents = _raw_field("agents")
    agent_selection = _raw_field("agent_selection")
    rewards = _raw_field("rewards")
    terminations = _raw_field("terminations")
    truncations = _raw_field("truncations")
    infos = _raw_field("infos")

    def step(self, action) -> None:
        # PettingZoo's order checks, reading ``agents`` from the raw env
        if self._has_reset and self._raw.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def last(self, observe: bool = True) -> tuple:
        if not self._has_reset:
            return super().last(observe)
        return self._raw.last(observe)  # type: ignore[no-any-return]

    def __str__(self) -> str:
        return str(self.env)


def _render_seat(value, n: int) -> int | str | None:
    """``render_seat`` checked: ``None``, ``"spectator"`` or a seat ``0..n-1`` (an int, not a
    bool; a numpy integer becomes a Python int).

    Raises:
        ValueError: any other value, naming the option and the valid values.
    """
    if value is None or (isinstance(value, str) and value == "spectator"):
        return value
    if (
        isinstance(value, (int, np.integer))
        and not isinstance(value, (bool, np.bool_))
        and 0 <= value < n
    ):
        return int(value)
    raise ValueError(
        f"render_seat={value!r}; valid: None (the agent to act), a seat 0..{n - 1} (an int) "
        "or 'spectator'"
    )


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose mask-less ``sample()`` draws a *legal* action.

    ``sample()`` draws uniformly, with the space's own generator (``seed(...)``), from the
    agent's live ``action_mask`` when that agent is to act, so PettingZoo's generic loops
    (``max_cycles_test``, ``action_space(agent).sample()``) play legal moves instead of raising
    :class:`~saboteur_env.engine.IllegalActionError`; an agent that is not to act gets ``0``
    (its action is ignored: ``None`` is what the AEC API expects, and the parallel view uses only
    the acting agent's).  ``sample(mask)`` is Gymnasium's; ``contains`` is the full range.
    """

    def __init__(self, n: int, env: raw_env, agent: str) -> None:
        super().__init__(n)
        self._env = env
        self._agent = agent

    def sample(self, mask=None, probability=None):
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        env = self._env
        if env._game is None or env.agent_selection != self._agent or env._game_over():
            return np.int64(0)
        return super().sample(mask=env._mask())


class raw_env(AECEnv):
    """Saboteur as a PettingZoo AEC environment (see the module docstring).

    Raises:
        saboteur_env.engine.config.ConfigError: an invalid or unknown option.
        ValueError: an unknown ``render_mode`` or a ``render_seat`` that is not ``None``, a seat
            or ``"spectator"``; an unknown ``backend``, or ``"array"`` for a ruleset the
            kernels do not play (none today).
        RuntimeError: ``backend="array"`` without numba in use.
    """

    metadata = {
        "name": "saboteur_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self, render_mode: str | None = None, render_seat=None, backend: str = "auto", **config
    ) -> None:
        super().__init__()
        self.config = GameConfig.from_kwargs(**config)
        #: ``"array"``: the seat to act's observation and mask are kept by the batched
        #: engine's kernels (see the module docstring); ``"engine"``: encoded each time
        self.backend = resolve_backend(backend, self.config)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode={render_mode!r}; valid: {[None, *self.metadata['render_modes']]}"
            )
        self.render_mode = render_mode
        n = self.config.num_players
        self.render_seat = _render_seat(render_seat, n)
        self.codec = Codec(self.config)
        self.encoder = ObservationEncoder(self.config)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.codec.n,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: ActionSpace(self.codec.n, self, a) for a in self.possible_agents}
        #: the spectator's state (DESIGN 8), float32 ``(state_size,)``; see :meth:`state`
        self.state_space = spaces.Box(
            self.encoder.state_low, self.encoder.state_high, dtype=np.float32
        )
        self._game: Game | None = None
        #: the kernels lead (array backend, from reset until ``game`` is read or set)
        self._lead = False
        self._over = False  # (kernels leading) the game is over
        self._mask_cache: tuple | None = None
        self._followed = (
            FollowedGame(self.config, self.codec, self.encoder) if self.backend == "array" else None
        )
        self._seed_stream: np.random.Generator | None = None

    def __setstate__(self, state: dict) -> None:
        # an array-backend env unpickled where numba is not in use continues on the engine:
        # its game is brought up to date (the engine's replay needs no numba)
        self.__dict__.update(state)
        followed = self.__dict__.get("_followed")
        if followed is not None and not K.usable():
            if self._lead and self._game is not None:
                followed.catch_up(self._game)
            self._followed, self._lead, self.backend = None, False, "engine"

    def observation_space(self, agent: str) -> spaces.Space:
        """``agent``'s observation space.

        Raises:
            KeyError: ``agent`` is not one of ``possible_agents`` (named with them).
        """
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        """``agent``'s action space.

        Raises:
            KeyError: ``agent`` is not one of ``possible_agents`` (named with them).
        """
        return self.action_spaces[self._known(agent)]

    def _known(self, agent: str) -> str:
        """``agent``, if it is one of this env's agents.

        Raises:
            KeyError: it is not (the message names the env's agents).
        """
        if agent not in self.agent_name_mapping:
            raise KeyError(f"{agent!r} is not an agent of this env: {self.possible_agents}")
        return agent

    # --- lifecycle -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game.  ``seed``: ``None`` or a non-negative int.  ``options`` is
        accepted and not read (PettingZoo's ``api_test`` passes one); the game's options are
        ``env(...)``'s keywords, fixed for the env's life.

        Raises:
            TypeError / ValueError: a seed of another type or a negative seed.
        """
        if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool)):
            raise TypeError(f"seed must be None or a non-negative int, not {type(seed).__name__}")
        if seed is not None and seed < 0:
            raise ValueError(f"seed must be non-negative, got {seed}")
        if seed is not None:
            # RULES 10: one generator seeded by reset(seed=...); an unseeded reset after a
            # seeded one continues that stream instead of drawing fresh entropy
            self._seed_stream = np.random.default_rng(int(seed))
            game_seed: int | None = int(seed)
        elif self._seed_stream is not None:
            game_seed = int(self._seed_stream.integers(2**63))
        else:
            game_seed = None
        g = self._game = Game(self.config, game_seed)
        # the kernels lead the new game until its Game object is read (a caller holding it
        # then sees every step: the engine leads)
        self._lead = self._followed is not None and self._followed.follow(g)
        self._over = False
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._rewarded = False  # whether self.rewards holds a nonzero entry (a round's end)
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._pending = [[] for _ in self.agents]
        self.infos = {a: {"events": self._pending[i]} for i, a in enumerate(self.agents)}
        self._route(g.events)
        self.agent_selection = self.agents[g.current]
        self._mask_cache = None

    @property
    def game(self) -> Game | None:
        """The engine's :class:`~saboteur_env.engine.state.Game` (``None`` before
        :meth:`reset`), up to date.  On the array backend the kernels play the decisions of a
        new game alone until this is first read; from then until the next :meth:`reset` the
        engine plays every decision (the object read stays the live game), the kernels only
        keeping the observation and mask.  Setting it replaces the game and hands it to the
        engine as :meth:`load` does, without ``load``'s checks, its clearing of the events not
        yet seen or its choice of the agent to act.

        Raises:
            RuntimeError: (array backend) the engine deals a round otherwise than the kernels
                did: the game's generator was drawn by a caller while the kernels led."""
        if self._lead:
            self._followed.catch_up(self._game)  # type: ignore[union-attr]
            self._lead = False
        return self._game

    @game.setter
    def game(self, value: Game | None) -> None:
        self._game = value
        self._lead = False
        self._mask_cache = None
        if self._followed is not None:
            self._followed.forget()

    def _state(self) -> Game:
        """The game brought up to date for the env's own reading (the kernels keep leading)."""
        g = self._game
        assert g is not None
        if self._lead:
            self._followed.catch_up(g)  # type: ignore[union-attr]
        return g

    def _game_over(self) -> bool:
        return self._over if self._lead else bool(self._game is not None and self._game.game_over)

    def _current(self) -> int:
        """The seat to act."""
        if self._lead:
            return self._followed.current  # type: ignore[union-attr]
        assert self._game is not None
        return int(self._game.current)

    def load(self, game: Game) -> None:
        """Continue from ``game`` (a hand-built position, a copy or a determinization) after a
        :meth:`reset`: it becomes the env's game, the agent to act is its seat to act, and the
        events not yet seen are cleared.

        Raises:
            RuntimeError: before :meth:`reset`.
            ValueError: ``game`` was made for other options than this env's, or is over
                (nothing is left to play in it).
        """
        if self._game is None:
            raise RuntimeError("call reset() before load()")
        if not self.agents:
            raise RuntimeError(
                "the game is over and every agent is done: call reset() before load()"
            )
        if game.config != self.config:
            raise ValueError(
                f"the game's options {game.config} differ from the env's {self.config}"
            )
        if game.game_over:
            raise ValueError("the game is over: load a position still in play")
        self.game = game  # the engine leads: the caller holds the game
        for pending in self._pending:
            pending.clear()
        self.agent_selection = self.agents[game.current]

    def _route(self, events) -> None:
        route_events(events, self._pending)

    def _mask(self) -> np.ndarray:
        followed = self._followed
        if self._lead:
            return followed.mask  # type: ignore[union-attr]
        g = self._game
        assert g is not None
        if followed is not None and followed.follow(g):
            return followed.mask
        key = (id(g), g.decisions, g.round)
        if self._mask_cache is None or self._mask_cache[0] != key:
            self._mask_cache = (key, self.codec.mask(g))
        return self._mask_cache[1]

    def observe(self, agent: str) -> dict:
        """``{"observation": float32 (size,), "action_mask": int8 (n,)}`` of ``agent``.

        Raises:
            RuntimeError: before :meth:`reset`.
            KeyError: ``agent`` is not one of ``possible_agents``.
        """
        if self._game is None:
            raise RuntimeError("call reset() before observe()")
        seat = self.agent_name_mapping[self._known(agent)]
        followed = self._followed
        if self._lead and followed is not None:
            if self._over:  # the kernels encode the ended game for any seat
                obs = followed.final_observation(seat)
                return {"observation": obs, "action_mask": np.zeros(self.codec.n, dtype=np.int8)}
            if agent == self.agent_selection and seat == self._current():
                return {
                    "observation": followed.observation.copy(),
                    "action_mask": followed.mask.copy(),
                }
        g = self._state()
        acts = seat == g.current and not g.game_over and agent == self.agent_selection
        if acts and followed is not None and followed.follow(g):
            return {"observation": followed.observation.copy(), "action_mask": followed.mask.copy()}
        obs = self.encoder.encode(g, seat)
        if acts:
            mask = self._mask().copy()
        else:
            mask = np.zeros(self.codec.n, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The full state as the spectator sees it (DESIGN 8): float32 ``(state_size,)``, in
        :attr:`state_space`; the observation of seat 0 then the hidden block (layout:
        ``self.encoder.state_spec()``).

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        if self._game is None:
            raise RuntimeError("call reset() before state()")
        return self.encoder.encode(self._state(), "spectator")

    def _check_action(self, action) -> None:
        """Raise a clear error for an action that ``step`` can never take in this state: a
        non-None action of a done agent, a non-int, an index outside the space, or any step
        before ``reset`` / after every agent is done.  Changes nothing."""
        if self._game is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise IllegalActionError(
                "the game is over and every agent is done: call reset() to start a new game"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(
                    f"{agent} is done (terminated or truncated): the only valid action is None"
                )
            return
        integer = isinstance(action, (int, np.integer)) or (
            # what the action space's contains() accepts: a 0-d integer array too
            isinstance(action, np.ndarray)
            and action.shape == ()
            and np.issubdtype(action.dtype, np.integer)
        )
        if isinstance(action, (bool, np.bool_)) or not integer:
            raise TypeError(
                f"action must be an int index into Discrete({self.codec.n}), "
                f"not {type(action).__name__}"
            )
        if not 0 <= action < self.codec.n:
            raise IllegalActionError(f"action {action} is outside Discrete({self.codec.n})")

    def step(self, action) -> None:
        """Play flat ``action`` for ``agent_selection``.

        Raises:
            IllegalActionError: the action is masked (the message names the rule), or an
                action is given for a terminated agent.  The state is unchanged.
            TypeError: ``action`` is not an int.
        """
        self._check_action(action)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = int(action)
        seat = self._current()
        if not self._mask()[action]:
            g = self._state()
            try:
                a = self.codec.decode(action, seat, g.n)
                why = g.check(a) or "it is masked"
            except ValueError as err:
                a, why = None, str(err)
            what = "" if a is None else f" ({a!r})"  # an index no action of this table has
            raise IllegalActionError(f"{agent} may not play action {action}{what}: {why}")
        result = None  # the result of a round the step ended
        if self._lead:
            # the kernels play the decision; its events and a round end's are theirs
            followed = self._followed
            assert followed is not None
            self._over, events, result = followed.lead(action)
            decisions = followed.decisions
        else:
            g = self._game
            assert g is not None
            # the engine backend's mask is the engine's legal set of this state: the action is
            # verified; the array backend's follows the game through step and load only (a
            # game read and edited in place may have left it behind): the engine checks
            try:
                events = g.apply(
                    self.codec.decode(action, seat, g.n), verify=self._followed is not None
                )
            except IllegalActionError as err:
                what = self.codec.describe(action, seat, g.n)
                raise IllegalActionError(
                    f"{agent} may not play action {action} ({what}): {err}"
                ) from None
            self._mask_cache = None
            if self._followed is not None:
                self._followed.step(g, action)
            result = g.ended_round(events)
            decisions = g.decisions
        self._cumulative_rewards[agent] = 0.0
        self._pending[seat] = []
        self.infos[agent] = {"events": self._pending[seat]}
        self._route(events)
        if self._rewarded:  # the last step paid rewards: back to zeros
            self.rewards = {ag: 0.0 for ag in self.agents}
            self._rewarded = False
        if result is not None:
            self._rewarded = True
            paid = round_rewards(result, self.config.reward, self.config.ruleset)
            for i, ag in enumerate(self.agents):
                self.rewards[ag] = float(paid[i])  # floats, as VectorGame.rewards
                self.infos[ag]["round_result"] = {
                    "round": result.round,
                    "winning_side": result.winning_side,
                    "saboteurs_won": result.saboteurs_won,
                    "roles": result.roles,
                    "gold_found": result.gold_found,
                }
        if self._game_over():
            self.terminations = {ag: True for ag in self.agents}
        elif self.config.max_decisions is not None and decisions >= self.config.max_decisions:
            self.truncations = {ag: True for ag in self.agents}
        if self._rewarded:  # otherwise every reward is 0: nothing to add
            self._accumulate_rewards()
        self.agent_selection = self.agents[self._current()]
        if self.render_mode == "human":
            self.render()

    # --- rendering -----------------------------------------------------------------------
    def render(self, *args, **kwargs):
        """Draw the maze from ``render_seat``'s view (default: the agent to act).

        ``"ansi"`` returns a str; ``"rgb_array"`` a uint8 ``(H, W, 3)`` image
        (:mod:`saboteur_env.render_image`); ``"human"`` shows that image in a matplotlib window
        where one can open, else prints the text.  Rendering never changes the game.
        """
        if args or kwargs:
            raise TypeError(
                "render() takes no arguments; choose the mode with "
                "render_mode=... when the environment is created"
            )
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; "
                "create the environment with render_mode='ansi'"
            )
            return None
        if self._game is None:
            raise RuntimeError("call reset() before render()")
        seat = self.render_seat
        if seat is None:
            seat = self.agent_name_mapping[self.agent_selection]
        if self.render_mode in ("rgb_array", "human"):
            from .render_image import render_rgb, show_human

            if self.render_mode == "rgb_array":
                return render_rgb(self._state(), seat)
            self._window = show_human(self._state(), seat, getattr(self, "_window", None))
            return None
        text = render_ansi(self._state(), seat)
        return text

    def close(self) -> None:
        if getattr(self, "_window", None) is not None:
            from .render_image import close_window

            close_window(self._window)
            self._window = None
