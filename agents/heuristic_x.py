"""ExpansionHeuristic: the heuristic player for Saboteur 2 (RULES 6, issue 4's expansion part).

``make_agent("heuristic")`` builds a :class:`~agents.heuristic.HeuristicAgent`; when it is
reset with ``config.expansion`` it becomes an :class:`ExpansionHeuristic` (a subclass), and
back again for a base-game config.  It reads only its own observation, mask and events, like
the base agent, and reuses the base agent's maze model and ``V`` (distance to the goals,
weighted by the gold probabilities).

Additions for the expansion:

* The maze (:class:`XMaze`) follows tunnels segment by segment (bridges and double curves do
  not join their two tunnels; the ``join_*`` board channels), treats every ladder as a root
  (RULES 6.4), and can treat the doors of one colour as walls: a green gold-digger plans on
  the maze without blue-door routes and the reverse (RULES 6.9 door evaluation).  A ladder
  placement counts as connected wherever it lies.
* Roles (RULES 6.2, 6.9):

  - green / blue gold-digger: extend the tunnel towards the likeliest gold goal on routes free
    of the other team's doors, play their own doors on the main line, never the other
    team's, rockfall the other team's doors when that opens a route;
  - boss and profiteer: dig like a gold-digger of no team (doors of either colour avoided);
  - geologist: place crystal cards (any legal place), otherwise keep the round going;
  - saboteur: like the base saboteur (dead ends and detours at the front, broken tools and
    Trapped! on the players who advanced the tunnel most, rockfalls on the main line).

* Action cards (RULES 6.5): Theft on oneself (early), Free at last! / repairs on oneself
  first, Trapped! and broken tools on likely enemies, Inspection on the most uncertain or
  suspicious player, Hands off! on an enemy's Theft, Swap your hats on a likely enemy
  (rarely), Swap your hand almost never.  Discard-two-to-remove frees oneself when no card
  can.  A pass discards the least useful card, then another one only if it is useless, then
  ``done``.  At round end the thief robs the likeliest enemy.

Suspicion model (:meth:`ExpansionHeuristic.belief`): ``(n_players, 6)``, columns in
``cards.EXPANSION_ROLES`` order (the observation's role one-hot).  The prior of every other
seat is the exact marginal of the 15-card dwarf deck (RULES 6.2) less the own card (and less
cards seen by Inspection); evidence adds per-seat log-likelihoods (progress and harm move the
saboteur column as in the base agent, doors on the main line move the team columns, crystal
cards the geologist column); Inspection results make a row one-hot until that player's hat is
swapped.  The seats are treated as independent given the deck (the marginal is exact before
any evidence; after evidence it is an approximation of the joint posterior).
"""

from __future__ import annotations

import numpy as np

from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import N_BOARD_CHANNELS, ObservationEncoder
from saboteur_env.engine.cards import (
    BLUE_DIGGER,
    CARD_KINDS,
    EXPANSION_ROLES,
    FACING,
    GEOLOGIST,
    GOAL_CELLS,
    GOAL_KINDS,
    GREEN_DIGGER,
    ROLES_S2,
    VARIANT_CRYSTALS,
    VARIANT_DOOR,
    VARIANT_LADDER,
    VARIANT_OF,
    VARIANTS,
    X_ACTION_KINDS,
    X_SABOTEUR,
)
from saboteur_env.engine.config import GameConfig

from .base import Agent
from .heuristic import (
    CAP,
    EV_BREAK,
    EV_BREAK_ME,
    EV_DEAD_END,
    EV_PROGRESS,
    EV_REPAIR,
    LLR_CLIP,
    WIN_BONUS,
    Evaluation,
    HeuristicAgent,
    Maze,
)

N_ROLES = len(EXPANSION_ROLES)
#: the 15 dwarf cards (RULES 6.2) in role one-hot order
DWARF_DECK = np.array([ROLES_S2[r] for r in range(N_ROLES)], dtype=np.float64)
#: door codes as in cards.VARIANT_DOOR: 1 green, 2 blue; the doors that block a team
OWN_DOOR = {GREEN_DIGGER: 1, BLUE_DIGGER: 2}
BLOCKING_DOOR = {GREEN_DIGGER: 2, BLUE_DIGGER: 1}
#: how much each role (row) wants to hurt each role (column): 1 enemy, 0 friend
ENEMY = np.array([
    # green blue  boss  prof  geol  sab
    [0.0, 0.3, 0.0, 0.0, 0.1, 1.0],  # green gold-digger
    [0.3, 0.0, 0.0, 0.0, 0.1, 1.0],  # blue gold-digger
    [0.0, 0.0, 0.0, 0.0, 0.1, 1.0],  # boss
    [0.0, 0.0, 0.0, 0.0, 0.1, 1.0],  # profiteer (plays like a boss)
    [0.3, 0.3, 0.3, 0.3, 0.0, 0.3],  # geologist (neutral)
    [1.0, 1.0, 1.0, 0.6, 0.3, 0.0],  # saboteur
])
#: keep values of the Saboteur 2 action cards (0 = useless), per "am I a hostile saboteur"
X_KEEP = {"theft": 0.8, "hands_off": 0.3, "swap_hand": 0.05, "inspection": 0.4,
          "swap_hats": 0.2, "trapped": 0.5, "free_at_last": 0.6}
EV_DOOR = 0.4  # a door of a colour on the main line: evidence for that team
EV_CRYSTAL = 0.3  # a crystal card placed: evidence for a geologist

# join channels (observation X_BOARD_CHANNELS 4..9): pairs of side bits joined by one tunnel
_JOIN_PAIRS = ((1, 4), (2, 8), (1, 2), (2, 4), (4, 8), (8, 1))
_CH_LADDER, _CH_GREEN, _CH_BLUE, _CH_CRYSTAL = (N_BOARD_CHANNELS + i for i in range(4))
_CH_JOIN = N_BOARD_CHANNELS + 4


def _joined_table() -> np.ndarray:
    """``T[join_mask, b]``: 4-bit mask of the sides joined to side bit ``b`` (itself included)."""
    t = np.zeros((64, 4), dtype=np.int64)
    for jm in range(64):
        for b in range(4):
            s = 1 << b
            m = s
            for j, (a, c) in enumerate(_JOIN_PAIRS):
                if jm >> j & 1:
                    if a == s:
                        m |= c
                    elif c == s:
                        m |= a
            t[jm, b] = m
    return t


JOINED = _joined_table()
_FACING_BIT = tuple(int(f).bit_length() - 1 for f in FACING)


def _variant_joins(v) -> int:
    return sum(1 << j for j, (a, c) in enumerate(_JOIN_PAIRS)
               if any((seg & a) and (seg & c) for seg in v.segments))


VARIANT_JOINS = np.array([_variant_joins(v) for v in VARIANTS], dtype=np.int64)


# --- the maze with segments, ladders and doors ------------------------------------------
class XMaze(Maze):
    """:class:`~agents.heuristic.Maze` for Saboteur 2: ``join`` 6-bit joined side pairs per
    card, ``lad`` ladder cards (roots, RULES 6.4), ``door`` 0/1 green/2 blue; ``block``: the
    door colour treated as a wall (0 none)."""

    def __init__(self, window, block: int = 0) -> None:
        super().__init__(window)
        size = self.opn.shape[0]
        self.join = np.zeros(size, dtype=np.int64)
        self.lad = np.zeros(size, dtype=bool)
        self.door = np.zeros(size, dtype=np.int8)
        self.block = block

    def copy(self) -> XMaze:
        m = XMaze.__new__(XMaze)
        m.__dict__.update(self.__dict__)
        for k in ("opn", "thr", "occ", "conn", "join", "lad", "door"):
            setattr(m, k, getattr(self, k).copy())
        return m

    @classmethod
    def initial(cls, window, block: int = 0) -> XMaze:
        m = cls(window, block)
        m.opn[m.start_idx] = 15
        m.thr[m.start_idx] = True
        m.occ[m.start_idx] = 1
        m.join[m.start_idx] = 63
        for g in m.goal_idx:
            m.occ[g] = 2
        m.recompute()
        return m

    @classmethod
    def from_view(cls, window, board: np.ndarray, block: int = 0) -> XMaze:
        m = super().from_view(window, board)
        m.block = block
        H, W = m.H, m.W
        b = board.astype(np.int64)

        def put(arr, vals):
            arr.reshape(H + 2, W + 2)[1:-1, 1:-1] = vals

        jm = np.zeros((H, W), dtype=np.int64)
        for j in range(6):
            jm |= b[_CH_JOIN + j] << j
        put(m.join, jm)
        put(m.lad, b[_CH_LADDER] > 0)
        put(m.door, np.where(b[_CH_GREEN] > 0, 1, np.where(b[_CH_BLUE] > 0, 2, 0)))
        m.recompute()
        return m

    def place_variant(self, x: int, y: int, var: int) -> None:
        v = VARIANTS[var]
        i = self.idx(x, y)
        self.opn[i], self.thr[i], self.occ[i] = v.openings, any(not s for s in v.stub), 1
        self.join[i], self.lad[i], self.door[i] = VARIANT_JOINS[var], VARIANT_LADDER[var], \
            VARIANT_DOOR[var]
        self._changed()

    def remove(self, x: int, y: int) -> None:
        i = self.idx(x, y)
        self.join[i], self.lad[i], self.door[i] = 0, False, 0
        super().remove(x, y)

    def reveal(self, slot: int, identity: int, rotated: bool) -> None:
        var = VARIANT_OF[(GOAL_KINDS[identity], bool(rotated))]
        self.join[self.goal_idx[slot]] = VARIANT_JOINS[var]
        super().reveal(slot, identity, rotated)

    def recompute(self) -> None:
        """Connected openings from the roots (the start and every ladder, RULES 6.4), one
        segment at a time; a card with a ``block`` door is never entered."""
        if not hasattr(self, "join"):  # during Maze.__init__ / from_view
            return super().recompute()
        conn = np.zeros_like(self.conn)
        opn, occ, off, join = self.opn, self.occ, self.offsets, self.join
        door, block = self.door, self.block
        roots = [self.start_idx] + [int(i) for i in np.flatnonzero(self.lad & (occ == 1))
                                    if not (block and door[i] == block)]
        stack = []
        for i in roots:
            conn[i] = opn[i]
            stack.append((i, int(opn[i])))
        while stack:
            i, sides = stack.pop()
            for b in range(4):
                if not sides >> b & 1:
                    continue
                j = i + off[b]
                if occ[j] != 1 or not opn[j] & FACING[b]:
                    continue
                if block and door[j] == block:
                    continue
                fb = _FACING_BIT[b]
                seg = int(JOINED[join[j], fb]) & int(opn[j])
                if seg == 1 << fb:
                    continue  # a dead-end stub leads nowhere (RULES 4.1)
                add = seg & ~int(conn[j])
                if add:
                    conn[j] |= add
                    stack.append((j, add))
        self.conn = conn


def dwarf_prior(my_role: int | None, known: dict | None = None) -> np.ndarray:
    """Exact marginal role distribution of another seat (RULES 6.2): the 15 dwarf cards less
    the own card (and less the ``known`` roles of other seats), ``(6,)`` summing to 1."""
    c = DWARF_DECK.copy()
    if my_role is not None:
        c[my_role] -= 1
    for r in (known or {}).values():
        if c[r] > 0:
            c[r] -= 1
    return c / c.sum()


# --- the agent -------------------------------------------------------------------------
class ExpansionHeuristic(HeuristicAgent):
    """The heuristic for Saboteur 2 (module docstring); becomes a plain
    :class:`~agents.heuristic.HeuristicAgent` again when reset with a base-game config."""

    def reset(self, seat: int, config: GameConfig, seed: int | None = None) -> None:
        if not config.expansion:
            self.__class__ = HeuristicAgent
            self._config = None
            HeuristicAgent.reset(self, seat, config, seed)
            return
        Agent.reset(self, seat, config, seed)
        if getattr(self, "_xconfig", None) != config:
            self._xconfig = config
            self._config = None  # the base agent's caches belong to another config
            self.codec = Codec(config)
            self.encoder = ObservationEncoder(config)
            vs = list(self.codec.variants)
            self._var_open = np.array([VARIANTS[v].openings for v in vs])
            self._var_thr = np.array([any(not st for st in VARIANTS[v].stub) for v in vs])
            self._var_dead = np.array([CARD_KINDS[VARIANTS[v].kind].is_dead_end for v in vs])
            self._var_door = VARIANT_DOOR[vs].astype(np.int64)
            self._var_cry = VARIANT_CRYSTALS[vs].astype(np.float64)
            self._var_lad = VARIANT_LADDER[vs].astype(bool)
            self._x_ids = [CARD_KINDS[k].id for k in X_ACTION_KINDS]
        self.n = config.num_players
        self.role: int | None = None
        self._fed = []
        self._start_round(0)

    def _start_round(self, round_index: int | None) -> None:
        n = self.n
        self.round = -1 if round_index is None else round_index
        self.L = np.zeros((n, N_ROLES))  # per-seat log-likelihoods of each role
        self.llr = self.L[:, X_SABOTEUR]  # a view: the base agent's saboteur evidence
        self.progress = np.zeros(n)
        self.maze = XMaze.initial(self.config.board_window)
        self.known = np.full(3, -1)
        self.public = np.full(3, -1)
        self.inspected: dict[int, int] = {}  # seat -> role seen by my Inspection
        self.own_turns = 0
        self._belief_cache = None

    # --- belief ------------------------------------------------------------------------
    def belief(self) -> np.ndarray:
        """``(n_players, 6)`` role probabilities per absolute seat (columns
        ``cards.EXPANSION_ROLES``); rows sum to 1; the own row is one-hot once the role is
        known, a seen (and not since swapped) role is one-hot too."""
        key = (self.role, self.L.tobytes(), tuple(sorted(self.inspected.items())))
        if self._belief_cache is not None and self._belief_cache[0] == key:
            return self._belief_cache[1].copy()
        prior = dwarf_prior(self.role, self.inspected)
        with np.errstate(divide="ignore"):
            logp = np.log(prior)
        logits = logp[None, :] + self.L
        logits = logits - logits.max(axis=1, keepdims=True)
        b = np.exp(logits)
        b /= b.sum(axis=1, keepdims=True)
        for t, r in self.inspected.items():
            b[t] = 0.0
            b[t, r] = 1.0
        if self.role is not None:
            b[self.seat] = 0.0
            b[self.seat, self.role] = 1.0
        else:
            b[self.seat] = DWARF_DECK / DWARF_DECK.sum()
        self._belief_cache = (key, b)
        return b.copy()

    def _q(self) -> np.ndarray:
        return self.belief()[:, X_SABOTEUR]

    def _enemy(self) -> np.ndarray:
        """Per seat: how much I want to hurt that player (0 friend .. 1 enemy)."""
        role = X_SABOTEUR if self.role is None else self.role
        e = self.belief() @ ENEMY[role]
        e[self.seat] = 0.0
        return e

    # --- events --------------------------------------------------------------------------
    def _addx(self, seat: int, role: int, llr: float) -> None:
        self.L[seat, role] = float(np.clip(self.L[seat, role] + llr, -LLR_CLIP, LLR_CLIP))

    def _add(self, seat: int, llr: float) -> None:
        self._addx(seat, X_SABOTEUR, llr)

    def _process_events(self, events) -> None:
        for e in events:
            vis = e.visible_to
            if vis is not None and vis != self.seat:
                continue
            t = e.type
            d = e.data
            if t == "round_start":
                self._start_round(d["round"])
            elif t == "role_dealt":
                self.role = int(d["role"])
                self._belief_cache = None
            elif t == "map_result":
                self.known[d["goal"]] = int(d["identity"])
            elif t == "goal_revealed":
                self.known[d["goal"]] = int(d["identity"])
                self.public[d["goal"]] = int(d["identity"])
                self.maze.reveal(d["goal"], int(d["identity"]), d["rotated"])
            elif t == "path_placed":
                var = int(d["variant"])
                v = VARIANTS[var]
                x, y = d["x"], d["y"]
                thr = any(not st for st in v.stub)
                p = self._p_public() if e.seat == self.seat else self._p_judge()
                prog = self._placement_progress(self.maze, p, v.openings, thr, x, y)
                self.progress[e.seat] += max(prog, 0.0)
                if e.seat != self.seat:
                    self._add(e.seat, self._ev_place(prog, not thr))
                    door = int(VARIANT_DOOR[var])
                    if door and prog > 0:
                        team = GREEN_DIGGER if door == 1 else BLUE_DIGGER
                        self._addx(e.seat, team, EV_DOOR)
                        self._addx(e.seat, BLUE_DIGGER + GREEN_DIGGER - team, -EV_DOOR)
                    if VARIANT_CRYSTALS[var]:
                        self._addx(e.seat, GEOLOGIST, EV_CRYSTAL)
                self.maze.place_variant(x, y, var)
            elif t == "rockfall":
                x, y = d["x"], d["y"]
                if e.seat != self.seat:
                    before = Evaluation(self.maze, self._p_judge())
                    after = self.maze.copy()
                    dead = not after.thr[after.idx(x, y)]
                    after.remove(x, y)
                    prog = before.V - Evaluation(after, self._p_judge()).V
                    self._add(e.seat, self._ev_rockfall(prog, dead))
                self.maze.remove(x, y)
            elif t == "tool_broken" and e.seat != self.seat:
                self._add(e.seat, self._ev_break(d["target"]))
            elif t == "tool_repaired" and e.seat != self.seat:
                self._add(e.seat, self._ev_repair(e.seat, d["target"]))
            elif t == "action_played":
                card, target = d["card"], int(d["target"])
                if card == "swap_hats":
                    self.inspected.pop(target, None)
                    if target != self.seat:
                        self.L[target] = 0.0  # a new dwarf card: old evidence is void
                    self._belief_cache = None
                elif e.seat != self.seat:
                    if card == "trapped":
                        self._add(e.seat, self._ev_break(target))
                    elif card == "free_at_last":
                        self._add(e.seat, self._ev_repair(e.seat, target))
            elif t == "inspection_result":
                self.inspected[int(d["target"])] = int(d["role"])
                self._belief_cache = None

    def _ev_break(self, target: int) -> float:
        if target == self.seat:
            return EV_BREAK_ME if self.role != X_SABOTEUR else -0.5
        q = self._q()[target]
        return EV_BREAK * (1.0 - 2.0 * q)

    def _ev_repair(self, actor: int, target: int) -> float:
        if target == actor:
            return 0.0
        if target == self.seat:
            return -EV_REPAIR * 1.5 if self.role != X_SABOTEUR else 0.3
        q = self._q()[target]
        return -EV_REPAIR * (1.0 - 2.0 * q)

    # --- acting --------------------------------------------------------------------------
    def act(self, observation, action_mask, info=None) -> int:
        legal = np.flatnonzero(np.asarray(action_mask))
        if len(legal) == 0:
            raise ValueError("ExpansionHeuristic.act: the action mask has no legal action")
        V = self.encoder.views(np.asarray(observation))
        game = V["game"]
        if info and info.get("events"):
            events = list(info["events"])
            k = 0
            while k < len(events) and k < len(self._fed) and events[k] == self._fed[k]:
                k += 1
            self._process_events(events[k:])
        self._fed = []
        if int(game[0]) != self.round:
            self._start_round(int(game[0]))
        role = int(np.argmax(V["role"]))
        if self.role != role:
            self.role = role
            self._belief_cache = None
        board = V["board"]
        window = self.config.board_window
        self.maze = XMaze.from_view(window, board)
        for slot, (gx, gy) in enumerate(GOAL_CELLS):
            r, c = gy - window[2], gx - window[0]
            if board[12, r, c] or board[14, r, c]:
                self.known[slot] = 0
            elif (board[13, r, c] or board[15, r, c]) and self.known[slot] < 0:
                self.known[slot] = 1
            if board[12, r, c]:
                self.public[slot] = 0
            elif board[13, r, c] and self.public[slot] < 0:
                self.public[slot] = 1
        phase = int(np.argmax(V["phase"][:4]))
        if phase == 3:
            action = self._choose_steal(legal)
        elif phase == 1:
            action = self._choose_pass(legal, V, int(V["phase"][4]))
        elif phase == 2:
            action = self._choose_discard(legal, V)
        else:
            action = self._choose_turn(legal, V)
            self.own_turns += 1
        return int(action)

    # --- sub-phases ----------------------------------------------------------------------
    def _rel_target(self, rel: int) -> int:
        return (self.seat + rel) % self.n

    def _choose_steal(self, legal: np.ndarray) -> int:
        """Round-end Theft (RULES 6.9): rob the likeliest enemy."""
        off, _ = self.codec.blocks["steal"]
        e = self._enemy()
        scores = [e[self._rel_target(int(i) - off)] + 1e-6 * self.rng.random() for i in legal]
        return int(legal[int(np.argmax(scores))])

    def _discard_scores(self, legal: np.ndarray, V: dict) -> tuple[np.ndarray, np.ndarray]:
        off, size = self.codec.blocks["discard"]
        sel = (legal >= off) & (legal < off + size)
        hostile = self._hostile(V)
        keep = np.array([self._keep_x(int(k), V["hand"], hostile) for k in legal[sel] - off])
        return sel, keep

    def _choose_discard(self, legal: np.ndarray, V: dict) -> int:
        sel, keep = self._discard_scores(legal, V)
        if not sel.any():
            return int(legal[0])
        cand = legal[sel]
        return int(cand[int(np.argmin(keep + 1e-6 * self.rng.random(len(keep))))])

    def _choose_pass(self, legal: np.ndarray, V: dict, count: int) -> int:
        """In a pass (RULES 6.7 option 4): discard another card only if it is useless."""
        done = self.codec.blocks["done"][0]
        sel, keep = self._discard_scores(legal, V)
        if sel.any() and (keep.min() < 0.15 or done not in legal):
            cand = legal[sel]
            return int(cand[int(np.argmin(keep + 1e-6 * self.rng.random(len(keep))))])
        return done if done in legal else int(legal[0])

    # --- a normal turn -------------------------------------------------------------------
    def _hostile(self, V: dict) -> bool:
        if self.role != X_SABOTEUR:
            return False
        st = self.style
        if self.own_turns >= st.honest_turns:
            return True
        d = Evaluation(self.maze, self._p_mine()).D
        return int(d.min()) <= st.honest_until

    def _choose_turn(self, legal: np.ndarray, V: dict) -> int:
        n, seat, codec = self.n, self.seat, self.codec
        role = self.role
        style = self.style
        players = V["players"]
        xpl = V["xplayers"]
        hand = V["hand"]
        broken = np.zeros((n, 3), dtype=bool)
        trapped = np.zeros(n, dtype=bool)
        theft = np.zeros(n, dtype=bool)
        for r in range(n):
            s = (seat + r) % n
            broken[s] = players[r, 2:5] > 0
            trapped[s] = xpl[r, 0] > 0
            theft[s] = xpl[r, 1] > 0
        saboteur = role == X_SABOTEUR
        hostile = self._hostile(V)
        geo = role == GEOLOGIST
        team = role in (GREEN_DIGGER, BLUE_DIGGER)
        e = self._enemy()
        q = self._q()
        p_mine = self._p_mine()
        block = BLOCKING_DOOR.get(role, 0)
        plan = XMaze.from_view(self.config.board_window, V["board"], block) if block \
            else self.maze
        ev = Evaluation(plan, p_mine)  # place(..., always=ladders): RULES 6.4
        lam = style.suspicion_weight if hostile else style.digger_caution
        scores = np.full(len(legal), -np.inf)
        blocks = codec.blocks
        share = self.progress / max(self.progress.sum(), 1.0)
        # --- placements ---
        p_off, p_size = blocks["place"]
        sel = (legal >= p_off) & (legal < p_off + p_size)
        if sel.any():
            i = legal[sel] - p_off
            row, cell = np.divmod(i, codec.n_cells)
            cells = (cell // codec.width + 1) * plan.stride + cell % codec.width + 1
            vo, vt, dead = self._var_open[row], self._var_thr[row], self._var_dead[row]
            door, cry, lad = self._var_door[row], self._var_cry[row], self._var_lad[row]
            D, C, reached = ev.place(vo, vt, cells, lad)
            gold_reach = (p_mine[:, None] * reached).sum(0)
            prog = ev.V - ev.value(D, C) + WIN_BONUS * gold_reach
            susp = -EV_PROGRESS * np.clip(prog, -3, 2) + EV_DEAD_END * dead * np.where(
                prog < 0, 1.0, 0.3)
            if hostile:
                util = -prog - WIN_BONUS * gold_reach
                util = np.where(util > 0, util, np.minimum(util, 0) - 0.3)
            elif geo:
                util = 1.2 * cry - 0.3 - 0.1 * np.clip(prog, 0, 3) - WIN_BONUS * gold_reach
            else:
                util = np.where(prog > 1e-9, prog, -0.4) - 0.6 * dead
                util = util + 0.02 * np.array([bin(int(o)).count("1") for o in vo]) * (prog > 0)
                if saboteur:  # cover: never hand the gold over
                    util = util - 3 * WIN_BONUS * gold_reach
                if team:
                    util = util + 0.3 * ((door == OWN_DOOR[role]) & (prog > 0)) \
                        - 2.0 * (door == block)
                else:
                    util = util - 0.3 * (door > 0)
            scores[sel] = util - lam * susp
        # --- rockfalls ---
        r_off, r_size = blocks["rockfall"]
        sel = (legal >= r_off) & (legal < r_off + r_size)
        if sel.any():
            saved = self.maze
            self.maze = plan
            out = []
            for c in (legal[sel] - r_off).tolist():
                x, y = codec.xy(c)
                if geo:
                    out.append(-1.0)
                    continue
                out.append(self._rockfall_score(x, y, ev, ev, hostile, lam))
            self.maze = saved
            scores[sel] = out
        # --- maps ---
        m_off, _ = blocks["map"]
        sel = (legal >= m_off) & (legal < m_off + 3)
        if sel.any():
            gold_known = (self.known == 0).any()
            out = []
            for slot in (legal[sel] - m_off).tolist():
                if gold_known or self.known[slot] >= 0:
                    out.append(-1.0)
                    continue
                base = 0.1 if geo else (0.5 if hostile else 1.1)
                out.append(base + 0.05 * p_mine[slot] - 0.01 * min(ev.D[slot], CAP))
            scores[sel] = out
        # --- tools ---
        t_off, t_size = blocks["tool"]
        sel = (legal >= t_off) & (legal < t_off + t_size)
        if sel.any():
            out = []
            nb = broken.sum(axis=1) + trapped
            for i in (legal[sel] - t_off).tolist():
                row, rel = divmod(i, codec.max_players)
                kind, _tool = codec.tool_pairs[row]
                t = self._rel_target(rel)
                if CARD_KINDS[kind].effect[0] == "break":
                    if t == seat:
                        out.append(-5.0)
                        continue
                    B = 1.0 if nb[t] == 0 else 0.25
                    sus = EV_BREAK * (1 - 2 * q[t])
                    if hostile:
                        u = B * (2 * e[t] - 1) * (0.6 + 1.5 * share[t]) - 0.1
                    elif saboteur:
                        u = min(B * (2 * q[t] - 1) - 0.3, -0.1)
                    else:
                        u = B * (2 * e[t] - 1) - 0.15
                    out.append(u - lam * sus)
                else:
                    R = 1.0 if nb[t] == 1 else 0.35
                    versatile = 0.05 * (len(CARD_KINDS[kind].effect[1]) - 1)
                    if t == seat:
                        u = R + 0.2 if not hostile else 0.6 * R
                        if geo:
                            u = 0.3 * R
                    else:
                        u = R * (1 - 2 * e[t])
                    out.append(u - versatile)
            scores[sel] = out
        # --- Saboteur 2 action cards ---
        x_off, x_size = blocks["xaction"]
        sel = (legal >= x_off) & (legal < x_off + x_size)
        if sel.any():
            out = []
            for i in (legal[sel] - x_off).tolist():
                row, rel = divmod(i, codec.max_players)
                out.append(self._x_score(self._x_ids[row], self._rel_target(rel), e, q, share,
                                         hostile, trapped, broken, hand))
            scores[sel] = out
        # --- discard two to remove a card in front of me ---
        f_off, f_size = blocks["remove"]
        sel = (legal >= f_off) & (legal < f_off + f_size)
        if sel.any():
            hs = hand.sum()
            out = []
            for slot in (legal[sel] - f_off).tolist():
                if slot == 4:  # my own Theft
                    out.append(-2.0)
                    continue
                u = 0.2 if hostile or geo else 0.35
                if hs < 4:
                    u -= 0.3
                out.append(u)
            scores[sel] = out
        # --- discards (start a pass) ---
        d_off, d_size = blocks["discard"]
        sel = (legal >= d_off) & (legal < d_off + d_size)
        if sel.any():
            scores[sel] = [-0.05 - 0.3 * self._keep_x(int(k), hand, hostile)
                           for k in legal[sel] - d_off]
        scores = scores + 1e-6 * self.rng.random(len(scores))
        return int(legal[int(np.argmax(scores))])

    def _x_score(self, cid: str, t: int, e, q, share, hostile, trapped, broken, hand) -> float:
        me = t == self.seat
        early = 1.0 if self.own_turns < 3 else 0.8
        if cid == "theft":
            return 0.75 * early if not trapped[self.seat] else 0.3
        if cid == "free_at_last":
            if me:
                return 1.3 if not hostile else 0.8
            return 0.8 * (1 - 2 * e[t]) - 0.1
        if cid == "trapped":
            if self.role == GEOLOGIST:
                return -0.3
            B = 1.0 if not broken[t].any() else 0.5
            if hostile:
                return B * (2 * e[t] - 1) * (0.7 + 1.5 * share[t]) - 0.05
            if self.role == X_SABOTEUR:
                return -0.2
            return B * (2 * e[t] - 1) - 0.1
        if cid == "hands_off":
            return -1.0 if me else 0.2 + 0.4 * e[t] - 0.2
        if cid == "inspection":
            if t in self.inspected:
                return -0.5
            row = self.belief()[t]
            uncertain = 1.0 - row.max()
            return 0.3 + 0.4 * uncertain + 0.3 * q[t]
        if cid == "swap_hats":
            if me:
                return -0.5
            return 0.8 * (e[t] - 0.6)
        if cid == "swap_hand":
            return -0.4
        return -1.0

    def _keep_x(self, k: int, hand: np.ndarray, hostile: bool) -> float:
        """How much the agent wants to keep one card of kind ``k`` (0 = useless)."""
        kind = CARD_KINDS[k]
        role = self.role
        if kind.category == "path":
            if role == GEOLOGIST:
                return 1.0 if kind.crystals else 0.1
            if kind.door and role in (GREEN_DIGGER, BLUE_DIGGER):
                own = (kind.door == "green") == (role == GREEN_DIGGER)
                return 0.8 if own else 0.0
            if kind.door and not hostile and role != X_SABOTEUR:
                return 0.2
            if kind.is_ladder and not hostile:
                return 0.7
            return self._keep_value(k, hand, hostile, role == X_SABOTEUR)
        if kind.id in X_KEEP:
            v = X_KEEP[kind.id]
            if kind.id == "trapped" and hostile:
                v = 0.9
            return v
        return self._keep_value(k, hand, hostile, role == X_SABOTEUR)


__all__ = ["ExpansionHeuristic", "XMaze", "dwarf_prior", "DWARF_DECK", "ENEMY"]
