"""HeuristicAgent: a role-aware rule-based player with a suspicion model, for the base game and
Saboteur 2 (DESIGN 6).

What it reads: only its own flat observation (split with
:meth:`~saboteur_env.encoding.observation.ObservationEncoder.views` and read through the named
indexes of :mod:`saboteur_env.encoding.observation`), its action mask and its own
``info["events"]`` (public events and its own private ones, RULES 3.6).  It uses the public card
tables and the :class:`~saboteur_env.encoding.codec.Codec` to decode actions; it never touches a
:class:`~saboteur_env.engine.state.Game`.

How it plays:

* The maze (:mod:`saboteur_agents.heuristic.maze`) is rebuilt from the observation at every decision
  and replayed event by event between them, so that every other player's move is judged on the
  maze it was made on.
* Each move of another player adds evidence to the belief (:mod:`saboteur_agents.heuristic.belief`).
* Each legal action gets a score from its family's scorer
  (:mod:`saboteur_agents.heuristic.scorers`); how the agent's role plays (digging, sabotage after an
  honest phase for cover, crystals, doors, whom to hurt) is the role table of
  :mod:`saboteur_agents.heuristic.strategy`, and the few ways the games differ are that module's
  :class:`~saboteur_agents.heuristic.strategy.GamePlay`, chosen by ``config.ruleset.name``.
* Styles (``make_agent("heuristic:<style>")``): ``""`` (default), ``"subtle"`` (long honest
  phase, quiet sabotage), ``"blatant"`` (sabotage from the first turn, no concern for looks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

import numpy as np

from saboteur_env.encoding.codec import Codec, legal_indices
from saboteur_env.encoding.observation import (
    BoardChannel,
    GameFeature,
    ObservationEncoder,
    PlayerFeature,
    XPlayerFeature,
)
from saboteur_env.engine.cards import GOAL_CELLS, VARIANT_CRYSTALS, VARIANT_DOOR
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.events import Event, EventType
from saboteur_env.engine.phases import FAMILIES_OF_PHASE, Phase
from saboteur_env.engine.ruleset import Ruleset

from ..base import Agent
from .belief import (
    EV_CRYSTAL,
    EV_DOOR,
    RoleBelief,
    break_evidence,
    placement_evidence,
    repair_evidence,
    rockfall_evidence,
)
from .maze import (
    VARIANT_THROUGH,
    Analysis,
    Evaluation,
    Maze,
    analyse,
    fit_table,
    placement_progress,
    removal_progress,
)
from .scorers import (
    TURN_SCORERS,
    Decision,
    Keeping,
    PlacementRows,
    choose_discard,
    choose_pass,
    choose_steal,
)
from .strategy import LATEST, STYLES, TACTICS, RolePlay, game_play

#: the broken-tool columns of a ``players`` row (pick, lantern, cart)
_TOOLS = slice(PlayerFeature.BROKEN_PICK, PlayerFeature.BROKEN_CART + 1)


@lru_cache(maxsize=16)
def _config_tables(config: GameConfig) -> tuple:
    """What an agent reads about ``config`` and never changes: the game's play tables, the
    codec, the encoder (its views and phase only), the placement rows, the fit table, and per
    role id its :class:`RolePlay` and enemy row, and the normal turn's offered families with
    their codec blocks (``(family, offset)`` pairs, and the blocks' ``[start, end)`` edges,
    int64 ``(2 * families,)``).  Made once per configuration and shared:
    a trainer makes new agents for every game, and building these took about 8% of a
    heuristic seat's time there."""
    rules = config.ruleset
    gameplay = game_play(rules)
    codec = Codec(config)
    plays = tuple(gameplay.roles[r] for r in rules.roles)
    fit = fit_table(rules.variants, rules.deck)
    fit.flags.writeable = False  # shared by every agent of the configuration
    families = [f for f in FAMILIES_OF_PHASE[Phase.TURN] if rules.offers(f)]
    blocks = [codec.blocks[f] for f in families]
    edges = np.array([e for off, size in blocks for e in (off, off + size)], dtype=np.int64)
    edges.flags.writeable = False
    return (
        gameplay,
        codec,
        ObservationEncoder(config),
        PlacementRows(codec),
        fit,
        plays,
        tuple(p.enemy_row(rules.roles) for p in plays),
        tuple((f, off) for f, (off, _) in zip(families, blocks)),
        edges,
    )


def _goal_p(ident: np.ndarray) -> np.ndarray:
    """float64 ``(3,)``: :meth:`HeuristicAgent._p_from` (uncached)."""
    if (ident == 0).any():
        return (ident == 0).astype(float)
    unknown = ident < 0
    if not unknown.any():
        return np.full(3, 1 / 3)
    return unknown / unknown.sum()


#: :func:`_goal_p` per goal identities' bytes (at most 4 ** 3 of them)
_GOAL_P: dict[bytes, np.ndarray] = {}
#: float64 ``(3, 3)``: row ``g`` all the weight on goal ``g`` (a mapper's hint)
_ONE_GOAL = np.eye(3)
_ONE_GOAL.flags.writeable = False


class HeuristicAgent(Agent):
    """Role-aware heuristic player with a suspicion model (see the module docstring), for
    every ruleset that :data:`~saboteur_agents.heuristic.strategy.GAME_PLAYS` knows.

    Args:
        option: the spec's option, tokens joined by ``-``: a style ``"subtle"`` or
            ``"blatant"`` (:data:`~saboteur_agents.heuristic.strategy.STYLES`; none: the default
            style) and a version ``"v1"`` or ``"v2"``
            (:data:`~saboteur_agents.heuristic.strategy.TACTICS`; none: the latest), e.g.
            ``"heuristic:v1-subtle"``.

    Raises:
        ValueError: an unknown token (the message lists the valid ones).

    Attributes (after :meth:`reset`):
        maze: the agent's :class:`~saboteur_agents.heuristic.maze.Maze`.
        beliefs: its :class:`~saboteur_agents.heuristic.belief.RoleBelief`.
        known, public: int ``(3,)``, goal identities known to it / to everyone (-1 unknown,
            0 gold, 1-2 stone).
        progress: float64 ``(n,)``, public progress made by each seat this round.
        round, own_turns: the round it is in and its own normal turns in it.
    """

    name = "heuristic"

    def __init__(self, option: str = "") -> None:
        style, version = "", ""
        for token in option.split("-") if option else []:
            if token in TACTICS and not version:
                version = token
            elif token in STYLES and token and not style:
                style = token
            else:
                raise ValueError(
                    f"bad heuristic option {token!r} in {option!r} (unknown or given twice); "
                    "valid: one style "
                    f"{sorted(s for s in STYLES if s)} and/or one version {sorted(TACTICS)}, "
                    "joined by '-' (e.g. 'v1-subtle')"
                )
        self.style_name = style
        self.version = version or LATEST
        self.tactics = TACTICS[self.version]
        self.style = STYLES[style]
        self.rng = np.random.default_rng()
        self._config: GameConfig | None = None

    # --- lifecycle ---------------------------------------------------------------------
    def reset(self, seat: int, config: GameConfig, seed: int | None = None) -> None:
        """A new game: seat, config and the agent's own random generator (tie-breaks)."""
        super().reset(seat, config, seed)
        if not self.style_name:
            self.style = self.tactics.style_for(config.num_players)
        if self._config != config:
            self._config = config
            (
                self.gameplay,
                self.codec,
                self.encoder,
                self.rows,
                self.fit,
                self._plays,
                self._enemy_rows,
                self._turn_blocks,
                self._turn_edges,
            ) = _config_tables(config)
        self.n = config.num_players
        self.beliefs: RoleBelief = self.gameplay.belief(config, seat)
        self._fed: list = []
        self._start_round(0)  # a game starts in round 0 (the round_start event repeats it)

    @property
    def rules(self) -> Ruleset:
        """The game's ruleset (``config.ruleset``)."""
        return self.config.ruleset

    def _start_round(self, round_index: int | None) -> None:
        self.round = -1 if round_index is None else round_index
        self.beliefs.new_round()
        self.progress = np.zeros(self.n)
        self.maze = self.gameplay.maze.initial(self.config.board_window)
        self.known = np.full(3, -1)
        self.public = np.full(3, -1)
        self.own_turns = 0
        #: the round's turn at this decision (the observation's ``turn``, RULES 3), and the
        #: turn of the first own decision after the tunnel front last came nearer a goal
        self.turn = 0
        self._moved: int | None = None
        self._front = float("inf")
        self._advanced = False
        #: seats that played a map on each goal this round, in order (RULES 3.5)
        self.mapped_by: list[list[int]] = [[], [], []]
        #: float64 ``(3,)``: log-odds hints that a goal hides the gold, read from mappers
        self.hint = np.zeros(3)

    # --- the belief --------------------------------------------------------------------
    @property
    def role(self) -> int | None:
        """The agent's own role id (``None`` until dealt)."""
        return self.beliefs.role

    @role.setter
    def role(self, role: int | None) -> None:
        self.beliefs.role = role

    @property
    def llr(self) -> np.ndarray:
        """float64 ``(n,)``: the saboteur evidence per seat (a writable view)."""
        return self.beliefs.llr

    @property
    def inspected(self) -> dict[int, int]:
        """``{seat: role}`` seen by the agent's Inspection this round (RULES 6.5)."""
        return self.beliefs.inspected

    def belief(self) -> np.ndarray:
        """float64 ``(n_players, n_roles)``: role probabilities per absolute seat, columns in
        ``config.ruleset.roles`` order; rows sum to 1, the own row is one-hot once dealt."""
        return self.beliefs.belief()

    def _q(self) -> np.ndarray:
        return self.beliefs.suspicion()

    def _enemy(self) -> np.ndarray:
        """float64 ``(n,)``: how much the agent wants to hurt each seat (0 friend .. 1)."""
        role = self.rules.saboteur if self.role is None else self.role
        e = self.belief() @ self._enemy_rows[role]
        e[self.seat] = 0.0
        return e

    def _add(self, seat: int, llr: float, role: int | None = None) -> None:
        self.beliefs.add(seat, llr, role)

    # --- goal probabilities ------------------------------------------------------------
    @staticmethod
    def _p_from(ident: np.ndarray) -> np.ndarray:
        """float64 ``(3,)``, read-only: P(gold) per goal slot given known identities (int64
        ``(3,)``: -1 unknown, 0 gold, 1-2 stone)."""
        key = ident.tobytes()
        p = _GOAL_P.get(key)
        if p is None:
            p = _GOAL_P[key] = _goal_p(ident)
            p.flags.writeable = False  # shared by every agent
        return p

    def _p_mine(self) -> np.ndarray:
        p = self._p_from(self.known)
        w = self.tactics.infer_goals
        if w and (self.known != 0).all() and self.hint.any():
            p = p * np.exp(w * np.clip(self.hint, -2.0, 2.0))
            p = p / p.sum()
        return p

    def _p_public(self) -> np.ndarray:
        return self._p_from(self.public)

    def _p_judge(self) -> np.ndarray:
        """Goal weights for judging others: half public, half my own knowledge."""
        return 0.5 * (self._p_public() + self._p_mine())

    # --- events --------------------------------------------------------------------------
    def observe(self, events: Iterable[Event]) -> None:
        """Feed events as they happen (public ones and this seat's private ones), so that
        :meth:`belief` is current between the agent's turns (e.g. right after a round starts).

        :meth:`act` then skips these events at the head of its ``info["events"]``.
        """
        events = list(events)
        self._fed.extend(events)
        self._process_events(events)

    def _process_events(self, events: Iterable[Event]) -> None:
        for e in events:
            if not e.seen_by(self.seat):
                continue  # never ours to see (defensive: the env routes only ours)
            # a str enum hashes as its value: a raw type string finds its handler too, and one
            # that is not an engine event type finds none
            handler = _EVENT_HANDLERS.get(e.type)
            if handler is not None:
                handler(self, e)
            if e.type in _MAZE_EVENTS and self.tactics.scarcity_stall:
                front = float(analyse(self.maze).m1[self._p_public() > 0].min())
                if front < self._front:
                    self._front, self._advanced = front, True

    def _on_round_start(self, e: Event) -> None:
        self._start_round(e.data["round"])

    def _on_role_dealt(self, e: Event) -> None:
        self.role = int(e.data["role"])

    def _on_map_played(self, e: Event) -> None:
        """A map on a goal (RULES 3.5): a trusted player who maps another goal next found the
        one it mapped before to be stone."""
        goal = int(e.data["goal"])
        if e.seat != self.seat and self.tactics.infer_goals:
            trust = 1.0 - float(self._q()[e.seat])
            for g in range(3):
                if g != goal and e.seat in self.mapped_by[g]:
                    self.hint[g] -= 2.0 * trust
        self.mapped_by[goal].append(e.seat)

    def _read_mapper(self, seat: int, var: int, x: int, y: int) -> None:
        """A trusted mapper's placement that digs towards the goal it mapped, and away from the
        others, hints that the goal hides the gold."""
        for g in range(3):
            if seat not in self.mapped_by[g] or self.known[g] >= 0:
                continue
            towards = placement_progress(self.maze, _ONE_GOAL[g], var, x, y)
            others = [
                placement_progress(self.maze, _ONE_GOAL[h], var, x, y)
                for h in range(3)
                if h != g and self.public[h] < 0
            ]
            if towards > 0.5 and max(others, default=0.0) <= 0.0:
                self.hint[g] += 0.7 * (1.0 - float(self._q()[seat]))

    def _on_map_result(self, e: Event) -> None:
        self.known[e.data["goal"]] = int(e.data["identity"])

    def _on_goal_revealed(self, e: Event) -> None:
        d = e.data
        self.known[d["goal"]] = int(d["identity"])
        self.public[d["goal"]] = int(d["identity"])
        self.maze.reveal(d["goal"], int(d["identity"]), d["rotated"])

    def _on_path_placed(self, e: Event) -> None:
        """Credit the placer's progress and judge it (RULES 3.1): progress is honest, doors
        on the main line speak for their team, crystals for the crystal collectors (RULES
        6.3, 6.9)."""
        var = int(e.data["variant"])
        x, y = e.data["x"], e.data["y"]
        if e.seat == self.seat:
            credit = placement_progress(self.maze, self._p_public(), var, x, y)
        else:
            prog = placement_progress(self.maze, self._p_judge(), var, x, y)
            credit = prog
            if self.gameplay.public_credit and (self.known != self.public).any():
                credit = placement_progress(self.maze, self._p_public(), var, x, y)
        self.progress[e.seat] += max(credit, 0.0)
        if e.seat != self.seat and self.tactics.infer_goals and any(self.mapped_by):
            self._read_mapper(e.seat, var, x, y)
        if e.seat != self.seat:
            self._add(e.seat, placement_evidence(prog, not VARIANT_THROUGH[var]))
            door = int(VARIANT_DOOR[var])
            for r, play in enumerate(self._plays):
                if door and prog > 0 and play.own_door_code == door:
                    self._add(e.seat, EV_DOOR, r)
                elif door and prog > 0 and play.wall_door_code == door:
                    self._add(e.seat, -EV_DOOR, r)
                if VARIANT_CRYSTALS[var] and play.collects_crystals:
                    self._add(e.seat, EV_CRYSTAL, r)
        self.maze.place_variant(x, y, var)

    def _on_rockfall(self, e: Event) -> None:
        x, y = e.data["x"], e.data["y"]
        if e.seat != self.seat:
            prog, dead = removal_progress(self.maze, self._p_judge(), x, y)
            self._add(e.seat, rockfall_evidence(prog, dead))
        self.maze.remove(x, y)

    def _judge_break(self, actor: int, target: int) -> None:
        """A tool broken or a Trapped! played (RULES 3.2, 6.5)."""
        q = 0.0 if target == self.seat else self._q()[target]
        self._add(actor, break_evidence(target == self.seat, self.beliefs.honest, q))

    def _judge_repair(self, actor: int, target: int) -> None:
        """A tool repaired or a Free at last! played (RULES 3.3, 6.5)."""
        q = 0.0 if target in (actor, self.seat) else self._q()[target]
        self._add(
            actor, repair_evidence(target == actor, target == self.seat, self.beliefs.honest, q)
        )

    def _on_tool_broken(self, e: Event) -> None:
        if e.seat != self.seat:
            self._judge_break(e.seat, e.data["target"])

    def _on_tool_repaired(self, e: Event) -> None:
        if e.seat != self.seat:
            self._judge_repair(e.seat, e.data["target"])

    def _on_action_played(self, e: Event) -> None:
        card, target = e.data["card"], int(e.data["target"])
        if card == "swap_hats":
            self.beliefs.hats_swapped(target)
        elif e.seat != self.seat and card == "trapped":
            self._judge_break(e.seat, target)
        elif e.seat != self.seat and card == "free_at_last":
            self._judge_repair(e.seat, target)

    def _on_inspection_result(self, e: Event) -> None:
        self.beliefs.inspect(int(e.data["target"]), int(e.data["role"]))

    # --- acting --------------------------------------------------------------------------
    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None = None
    ) -> int:
        """Choose a legal flat action (see :meth:`saboteur_agents.base.Agent.act`).

        Raises:
            ValueError: the mask has no legal action.
        """
        legal, scores = self.scores(observation, action_mask, info)
        return int(legal[int(np.argmax(scores))])

    def scores(
        self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions and the agent's score of each (what :meth:`act` maximises; a
        search agent's prior).  Reads the events of ``info`` as :meth:`act` does.

        Returns:
            ``(legal, scores)``: int64 ``(k,)`` flat action indexes, float64 ``(k,)``; in a
            normal turn the family scorers' values (tie-breaks added), in the other phases
            1 for the chosen action and 0 elsewhere.

        Raises:
            ValueError: the mask has no legal action.
        """
        legal, V, phase = self._prepare(observation, action_mask, info)
        if phase is Phase.TURN:
            scores = self._turn_scores(legal, V)
            self.own_turns += 1  # after scoring: the scorers read the turns taken before
            return legal, scores
        action = _PHASE_CHOOSERS[phase](self, legal, V)
        return legal, (legal == action).astype(np.float64)

    def observe_decision(
        self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None = None
    ) -> None:
        """Everything :meth:`act` learns at a decision (the events of ``info``, the maze, the
        goals, the turn) without choosing: its :meth:`belief` afterwards is the one
        :meth:`act` leaves (an observer of the agent's beliefs, e.g. the bluff benchmark's
        ``heuristic-belief`` detector, need not score the moves).

        Raises:
            ValueError: the mask has no legal action.
        """
        if self._prepare(observation, action_mask, info)[2] is Phase.TURN:
            self.own_turns += 1

    def _prepare(
        self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None
    ) -> tuple[np.ndarray, dict[str, np.ndarray], Phase]:
        """The state update of a decision: ``(legal, views, phase)``."""
        legal = legal_indices(action_mask)
        if len(legal) == 0:
            raise ValueError("HeuristicAgent.act: the action mask has no legal action")
        V = self.encoder.views(np.asarray(observation))
        if info and info.get("events"):
            events = list(info["events"])
            k = 0  # skip the events already fed through observe()
            while k < len(events) and k < len(self._fed) and events[k] == self._fed[k]:
                k += 1
            self._process_events(events[k:])
        self._fed = []
        if int(V["game"][GameFeature.ROUND]) != self.round:
            self._start_round(int(V["game"][GameFeature.ROUND]))
        self.turn = int(V["game"][GameFeature.TURN])
        if self._moved is None or self._advanced:
            # the stall clock starts at the first decision seen (an agent may join mid-round)
            self._moved, self._advanced = self.turn, False
        self.role = int(np.argmax(V["role"]))
        board = V["board"]
        self.maze = self.gameplay.maze.from_view(self.config.board_window, board)
        self._read_goals(board)
        return legal, V, self.encoder.phase_of(V)

    def _read_goals(self, board: np.ndarray) -> None:
        """Goal knowledge from the board channels (reveals and own maps, RULES 3.5, 4.2)."""
        x0, _, y0, _ = self.config.board_window
        for slot, (gx, gy) in enumerate(GOAL_CELLS):
            c = board[:, gy - y0, gx - x0]
            if c[BoardChannel.GOAL_GOLD_REVEALED] or c[BoardChannel.KNOWN_GOLD]:
                self.known[slot] = 0
            elif (
                c[BoardChannel.GOAL_STONE_REVEALED] or c[BoardChannel.KNOWN_STONE]
            ) and self.known[slot] < 0:
                self.known[slot] = 1
            if c[BoardChannel.GOAL_GOLD_REVEALED]:
                self.public[slot] = 0
            elif c[BoardChannel.GOAL_STONE_REVEALED] and self.public[slot] < 0:
                self.public[slot] = 1

    def _play(self) -> RolePlay:
        return self._plays[self.role]

    def scarcity(self) -> float:
        """The extra cost of a walled-off tunnel-front cell now, in tunnel steps
        (:class:`~saboteur_agents.heuristic.strategy.Tactics`): the base cost, plus the stall cost
        once the front has not come nearer a goal for a whole table round of turns, in full after
        two (the players have had their chance to fit the cell and did not); turns are the
        engine's (the observation's ``turn``), so a Saboteur 2 pass of several cards is one."""
        stuck = min(1.0, max(0.0, (self.turn - (self._moved or 0) - self.n) / self.n))
        return self.tactics.scarcity_stall * stuck

    def _evaluate(self, maze: Maze, p: np.ndarray, analysis: Analysis | None = None) -> Evaluation:
        """:class:`Evaluation` of ``maze`` for the agent's own decisions (walls respected as
        its tactics say)."""
        return Evaluation(maze, p, analysis, self.scarcity(), self.fit)

    def _hostile(self, play: RolePlay, ev_mine: Evaluation | None = None) -> bool:
        """A sabotaging role sabotages after its honest phase (:class:`Style`), or earlier once
        the tunnel nears a goal."""
        if not play.sabotages:
            return False
        st = self.style
        if self.own_turns >= st.honest_turns:
            return True
        if ev_mine is None:
            ev_mine = self._evaluate(self.maze, self._p_mine())
        return int(ev_mine.D.min()) <= st.honest_until

    def _keeping(self, V: dict[str, np.ndarray]) -> Keeping:
        play = self._play()
        return Keeping(play, self._hostile(play), self.known, V["hand"], self._rockfall_keep())

    def _rockfall_keep(self, ev: Evaluation | None = None) -> float:
        """A digger's keep value of a rockfall (higher once the front nears a goal)."""
        t = self.tactics
        if t.keep_rockfall_near == t.keep_rockfall_far:
            return t.keep_rockfall_far
        if ev is None:
            ev = self._evaluate(self.maze, self._p_mine())
        return t.keep_rockfall_near if float(ev.D.min()) <= t.near_steps else t.keep_rockfall_far

    def _choose_steal(self, legal: np.ndarray, V: dict[str, np.ndarray]) -> int:
        return choose_steal(self._enemy(), self.seat, self.n, legal, self.codec, self.rng)

    def _choose_pass(self, legal: np.ndarray, V: dict[str, np.ndarray]) -> int:
        return choose_pass(self._keeping(V), legal, self.codec, self.rng)

    def _choose_discard(self, legal: np.ndarray, V: dict[str, np.ndarray]) -> int:
        return choose_discard(self._keeping(V), legal, self.codec, self.rng)

    def _decision(self, V: dict[str, np.ndarray]) -> Decision:
        """Everything the turn scorers read
        (:class:`~saboteur_agents.heuristic.scorers.Decision`)."""
        n, seat, gp = self.n, self.seat, self.gameplay
        players = V["players"]
        xplayers = V.get("xplayers")
        broken = np.zeros((n, _TOOLS.stop - _TOOLS.start), dtype=bool)
        trapped = np.zeros(n, dtype=bool)
        for r in range(n):
            s = (seat + r) % n
            broken[s] = players[r, _TOOLS] > 0
            if xplayers is not None:
                trapped[s] = xplayers[r, XPlayerFeature.TRAPPED] > 0
        play = self._play()
        q, e = self._q(), self._enemy()
        p_mine, p_pub = self._p_mine(), self._p_public()
        ev_mine = self._evaluate(self.maze, p_mine)
        hostile = self._hostile(play, ev_mine)
        # the maze a team plans on: the other team's doors are walls (RULES 6.9)
        block = play.wall_door_code
        plan = (
            gp.maze.from_view(self.config.board_window, V["board"], block=block)
            if block
            else self.maze
        )
        ev = ev_mine if plan is self.maze else self._evaluate(plan, p_mine)
        p_play = p_mine
        if gp.cover_play and play.sabotages and not hostile and (self.known != self.public).any():
            # cover play towards goals the public cannot rule out but I know to be stone
            cover = (self.public < 0) & (self.known > 0)
            p_play = cover / cover.sum() if cover.any() else p_pub
        ev_play = ev if p_play is p_mine else self._evaluate(plan, p_play, ev.analysis)
        ev_look = ev
        if gp.public_looks and not np.array_equal(p_pub, p_mine):
            ev_look = self._evaluate(plan, p_pub, ev.analysis)
        return Decision(
            play=play,
            hostile=hostile,
            known=self.known,
            hand=V["hand"],
            rockfall_keep=self._rockfall_keep(ev_mine),
            codec=self.codec,
            rows=self.rows,
            game=gp,
            style=self.style,
            tactics=self.tactics,
            mapped_by=self.mapped_by,
            fit=self.fit,
            seat=seat,
            n=n,
            own_turns=self.own_turns,
            lam=self.style.suspicion_weight if hostile else self.style.digger_caution,
            plan=plan,
            ev=ev,
            ev_play=ev_play,
            ev_look=ev_look,
            p_mine=p_mine,
            p_play=p_play,
            q=q,
            e=e,
            hurt=gp.hurt(q, e, hostile),
            share=self.progress / max(self.progress.sum(), 1.0),
            broken=broken,
            trapped=trapped,
            inspected=self.inspected,
            belief=self.belief,
        )

    def _turn_scores(self, legal: np.ndarray, V: dict[str, np.ndarray]) -> np.ndarray:
        """A normal turn: a score per legal action from its family's scorer (RULES 3, 6.7)."""
        d = self._decision(V)
        scores = np.full(len(legal), -np.inf)
        # legal is ascending (the mask's flatnonzero): each family's actions are one slice
        cut = np.searchsorted(legal, self._turn_edges).tolist()
        for j, (family, off) in enumerate(self._turn_blocks):
            lo, hi = cut[2 * j], cut[2 * j + 1]
            if lo < hi:
                scores[lo:hi] = TURN_SCORERS[family](d, legal[lo:hi] - off)
        return scores + 1e-6 * self.rng.random(len(scores))


#: event type -> what the agent does with it
_EVENT_HANDLERS: dict[EventType, Callable[[HeuristicAgent, Event], None]] = {
    EventType.ROUND_START: HeuristicAgent._on_round_start,
    EventType.ROLE_DEALT: HeuristicAgent._on_role_dealt,
    EventType.MAP_PLAYED: HeuristicAgent._on_map_played,
    EventType.MAP_RESULT: HeuristicAgent._on_map_result,
    EventType.GOAL_REVEALED: HeuristicAgent._on_goal_revealed,
    EventType.PATH_PLACED: HeuristicAgent._on_path_placed,
    EventType.ROCKFALL: HeuristicAgent._on_rockfall,
    EventType.TOOL_BROKEN: HeuristicAgent._on_tool_broken,
    EventType.TOOL_REPAIRED: HeuristicAgent._on_tool_repaired,
    EventType.ACTION_PLAYED: HeuristicAgent._on_action_played,
    EventType.INSPECTION_RESULT: HeuristicAgent._on_inspection_result,
}

#: the public events that change the maze
_MAZE_EVENTS = frozenset({EventType.PATH_PLACED, EventType.ROCKFALL})

#: phase -> how the agent decides in the sub-phases of a turn (DESIGN 3 multi-step decisions)
_PHASE_CHOOSERS: dict[Phase, Callable[[HeuristicAgent, np.ndarray, dict], int]] = {
    Phase.PASS: HeuristicAgent._choose_pass,
    Phase.REMOVE: HeuristicAgent._choose_discard,
    Phase.THEFT: HeuristicAgent._choose_steal,
}

__all__ = ["HeuristicAgent"]
