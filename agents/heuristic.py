"""HeuristicAgent: a role-aware rule-based player with a suspicion model (issue 4, DESIGN 6).

What it reads: only its own flat observation (split with
:meth:`~saboteur_env.encoding.observation.ObservationEncoder.views`), its action mask and its own
``info["events"]`` (public events and its own private ones, RULES 3.6).  It uses the public card
tables and the :class:`~saboteur_env.encoding.codec.Codec` to decode actions; it never touches a
:class:`~saboteur_env.engine.state.Game`.

How it plays (units: "tunnel steps", the number of cards still needed to reach a goal):

* The maze is rebuilt from the observation at every turn (the ``open_*``, ``conn_*``,
  ``through`` and goal channels determine every base-game card) and replayed event by event
  between turns, so that every other player's move can be judged on the maze it was made on.
* ``V = sum_g p_g * D_g``: ``D_g`` is the shortest route through empty cells from the connected
  tunnel front to goal ``g`` (breadth-first search; every opening combination of two or more
  sides exists among the through cards, so walls only matter where cards already lie), ``p_g``
  the probability that goal ``g`` hides the gold (own map results and public reveals, RULES 3.5,
  4.2).  A move's *progress* is the drop of ``V``.
* Gold-digger: extends the tunnel where progress is largest (reaching the gold wins), uses maps
  early on unknown goals, repairs itself and trusted players, breaks the tools of suspected
  saboteurs, rockfalls dead ends and misplaced cards that block the front, discards what only
  hurts (dead ends first).
* Saboteur: plays honest for a while (cover, configurable), then hurts the diggers: dead ends and
  detours at the tunnel front, broken tools on the players who advanced the tunnel most,
  rockfalls on key cards of the main line, hoarding (discarding through cards rather than playing
  them).  Each candidate move pays a penalty ``suspicion_weight * (how suspicious the move looks
  to an observer)``, computed with the same evidence model the agent applies to others.
* Styles (``make_agent("heuristic:<style>")``): ``""`` (default), ``"subtle"`` (long honest
  phase, quiet sabotage), ``"blatant"`` (sabotage from the first turn, no concern for looks).

Suspicion model (:meth:`HeuristicAgent.belief`): every public action of another player adds a
log-likelihood ratio ``log P(action | saboteur) / P(action | gold-digger)`` to that player's
score (progress is honest, harm is suspicious, breaking a trusted player is suspicious, ...).
The posterior over the joint role assignment of the other players is exact given those scores:
the prior of each assignment is the deal's hypergeometric probability (RULES 2.2: the role deck
with one card set aside, conditioned on the agent's own role) and the likelihood is the product
of the per-player ratios.  Rows are absolute seats, columns ``[gold-digger, saboteur]``
(``BASE_ROLES``); the own row is one-hot.

Saboteur 2 (``config.expansion``): :meth:`HeuristicAgent.reset` turns the agent into an
:class:`agents.heuristic_x.ExpansionHeuristic` (six role columns, doors, ladders, crystals and
the expansion's action cards and sub-phases); see that module.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from math import comb

import numpy as np

from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.cards import (
    CARD_KINDS,
    FACING,
    GOAL_CELLS,
    GOAL_KINDS,
    GOLD_DIGGER,
    ROLE_TABLE_PUBLISHED,
    ROLE_TABLE_SEED,
    SABOTEUR,
    START_CELL,
    VARIANT_OF,
    VARIANTS,
)
from saboteur_env.engine.config import GameConfig

from .base import Agent, register_agent

ROLES = ("gold-digger", "saboteur")
INF = 99  # distance of an unreachable goal
CAP = 16  # distances are capped here inside V
WIN_BONUS = 8.0  # value of reaching the gold, in tunnel steps
ROBUST = 0.25  # value of each extra equally short route (up to three routes)

# evidence weights (log-likelihood ratios, saboteur vs gold-digger)
EV_PROGRESS = 0.6  # per tunnel step of progress (negative for harm)
EV_DEAD_END = 0.6  # a dead end placed on the tunnel front
EV_BREAK = 1.0  # breaking a player who looks like a gold-digger
EV_REPAIR = 0.6  # repairing a player who looks like a gold-digger
EV_BREAK_ME = 1.5  # breaking my tools when I know I am a gold-digger
LLR_CLIP = 5.0


@dataclass(frozen=True)
class Style:
    """How a saboteur hides (issue 4 "subtlety").

    Attributes:
        honest_turns: own turns per round played as an honest gold-digger before sabotaging.
        honest_until: sabotage starts earlier once the tunnel front is this close to a goal.
        suspicion_weight: penalty per unit of evidence a move gives observers (0 = blatant).
        digger_caution: the same penalty for gold-digger moves (stay trusted).
    """

    honest_turns: int
    honest_until: int
    suspicion_weight: float
    digger_caution: float = 0.1


STYLES = {
    "": Style(honest_turns=1, honest_until=5, suspicion_weight=0.35),
    "subtle": Style(honest_turns=4, honest_until=3, suspicion_weight=1.0),
    "blatant": Style(honest_turns=0, honest_until=99, suspicion_weight=0.0),
}


# --- role prior (RULES 2.2) ------------------------------------------------------------
def role_deck(config: GameConfig) -> tuple[int, int]:
    """(saboteur cards, gold-digger cards) of the role deck (RULES 2.2, 10)."""
    table = ROLE_TABLE_PUBLISHED if config.role_table == "published" else ROLE_TABLE_SEED
    return table[config.num_players]


def role_assignment_prior(config: GameConfig, my_role: int) -> tuple[np.ndarray, np.ndarray]:
    """Every assignment of roles to the other ``n - 1`` players and its exact prior.

    The role deck (RULES 2.2) minus the own card is shuffled; the others get ``n - 1`` cards,
    the rest is set aside.  A given assignment with ``k`` saboteurs has probability
    ``C(aside, S' - k) / C(pool, S')`` (``S'`` saboteur cards left, ``pool`` cards left).

    Returns:
        ``combos`` int8 ``(m, n - 1)`` (1 = saboteur) and ``prior`` float64 ``(m,)``
        (sums to 1, zero-probability assignments dropped).
    """
    sab, dig = role_deck(config)
    n = config.num_players
    pool = sab + dig - 1
    s_left = sab - (1 if my_role == SABOTEUR else 0)
    aside = pool - (n - 1)
    combos = np.array(list(product((0, 1), repeat=n - 1)), dtype=np.int8).reshape(-1, n - 1)
    k = combos.sum(axis=1)
    prior = np.array([comb(aside, s_left - int(kk)) if 0 <= s_left - kk <= aside else 0
                      for kk in k], dtype=np.float64) / comb(pool, s_left)
    keep = prior > 0
    return combos[keep], prior[keep]


def exact_prior_belief(config: GameConfig, seat: int, my_role: int) -> np.ndarray:
    """The belief before any public event: ``(n, 2)``, own row one-hot, others
    ``P(saboteur) = S' / pool`` (RULES 2.2)."""
    sab, dig = role_deck(config)
    n = config.num_players
    s_left = sab - (1 if my_role == SABOTEUR else 0)
    q = s_left / (sab + dig - 1)
    b = np.tile([1.0 - q, q], (n, 1))
    b[seat] = 0.0
    b[seat, my_role] = 1.0
    return b


#: distances depend only on which cells are empty: shared by every agent of the process
_DIST_CACHE: dict = {}


# --- the maze model --------------------------------------------------------------------
class Maze:
    """The maze as the agent sees it, on padded arrays (one ring of blocked cells).

    ``opn`` 4-bit openings, ``thr`` the card joins its openings (a through card; base-game dead
    ends join nothing), ``occ`` 0 empty, 1 face-up card, 2 face-down goal, 3 outside the window,
    ``conn`` the openings connected to the start (RULES 4.1).  Base-game cards are fully
    described by (openings, through); Saboteur 2 bridges would need their segments here.
    """

    def __init__(self, window: tuple[int, int, int, int]) -> None:
        x0, x1, y0, y1 = window
        self.window = window
        self.H, self.W = y1 - y0 + 1, x1 - x0 + 1
        self.stride = self.W + 2
        size = (self.H + 2) * self.stride
        self.opn = np.zeros(size, dtype=np.int64)
        self.thr = np.zeros(size, dtype=bool)
        self.occ = np.full((self.H + 2, self.W + 2), 3, dtype=np.int8)
        self.occ[1:-1, 1:-1] = 0
        self.occ = self.occ.ravel()
        self.conn = np.zeros(size, dtype=np.int64)
        s = self.stride
        self.offsets = (-s, 1, s, -1)  # N, E, S, W (SIDE_DELTA order)
        self.goal_idx = tuple(self.idx(x, y) for x, y in GOAL_CELLS)
        self.start_idx = self.idx(*START_CELL)
        self._dist = None

    def idx(self, x: int, y: int) -> int:
        return (y - self.window[2] + 1) * self.stride + (x - self.window[0] + 1)

    def xy(self, i: int) -> tuple[int, int]:
        r, c = divmod(i, self.stride)
        return c - 1 + self.window[0], r - 1 + self.window[2]

    def copy(self) -> Maze:
        m = Maze.__new__(Maze)
        m.__dict__.update(self.__dict__)
        for k in ("opn", "thr", "occ", "conn"):
            setattr(m, k, getattr(self, k).copy())
        return m

    def _changed(self) -> None:
        self._dist = None
        self.recompute()

    @classmethod
    def initial(cls, window) -> Maze:
        """Start card face up, three face-down goals (RULES 2.1)."""
        m = cls(window)
        m.opn[m.start_idx] = 15
        m.thr[m.start_idx] = True
        m.occ[m.start_idx] = 1
        for g in m.goal_idx:
            m.occ[g] = 2
        m.recompute()
        return m

    @classmethod
    def from_view(cls, window, board: np.ndarray) -> Maze:
        """From the ``board`` view (C, H, W) of an observation."""
        m = cls(window)
        H, W = m.H, m.W
        b = board.astype(np.int64)

        def put(arr, vals):
            a = arr.reshape(H + 2, W + 2)
            a[1:-1, 1:-1] = vals

        put(m.opn, b[0] | (b[1] << 1) | (b[2] << 2) | (b[3] << 3))
        put(m.conn, b[4] | (b[5] << 1) | (b[6] << 2) | (b[7] << 3))
        put(m.thr, b[8] > 0)
        occ = np.where(b[11] > 0, 2, np.where(b[9] > 0, 1, 0))
        put(m.occ, occ)
        return m

    # --- changes (replaying public events) ---------------------------------------------
    def place(self, x: int, y: int, openings: int, through: bool) -> None:
        i = self.idx(x, y)
        self.opn[i], self.thr[i], self.occ[i] = openings, through, 1
        self._changed()

    def remove(self, x: int, y: int) -> None:
        i = self.idx(x, y)
        self.opn[i], self.thr[i], self.occ[i] = 0, False, 0
        self._changed()

    def reveal(self, slot: int, identity: int, rotated: bool) -> None:
        v = VARIANTS[VARIANT_OF[(GOAL_KINDS[identity], bool(rotated))]]
        i = self.goal_idx[slot]
        self.opn[i], self.thr[i], self.occ[i] = v.openings, True, 1
        self._changed()

    def recompute(self) -> None:
        """Connected openings from the start (RULES 4.1): through cards pass the tunnel on,
        dead-end stubs do not; both sides of an edge must be open."""
        conn = np.zeros_like(self.conn)
        opn, thr, occ, off = self.opn, self.thr, self.occ, self.offsets
        seen = {self.start_idx}
        stack = [self.start_idx]
        while stack:
            i = stack.pop()
            o = int(opn[i])
            conn[i] = o
            for b in range(4):
                if o >> b & 1:
                    j = i + off[b]
                    if occ[j] == 1 and j not in seen and opn[j] & FACING[b] and thr[j]:
                        seen.add(j)
                        stack.append(j)
        self.conn = conn

    # --- analysis ----------------------------------------------------------------------
    def facing_conn(self) -> np.ndarray:
        """4-bit mask per cell: sides whose neighbour has a connected opening facing it."""
        conn = self.conn
        out = np.zeros_like(conn)
        for b in range(4):
            # the neighbour across side b of cell i is i + o; it faces i with FACING[b]
            o = self.offsets[b]
            bit = ((conn & FACING[b]) != 0).astype(np.int64) << b
            if o > 0:
                out[:-o] |= bit[o:]
            else:
                out[-o:] |= bit[:o]
        return out

    def distances(self) -> np.ndarray:
        """``(3, size)`` shortest number of cards from each cell to each goal through empty
        cells (1 next to the goal), ``INF`` where no route exists.  Cached until a change."""
        if self._dist is not None:
            return self._dist
        key = (self.window, self.occ.tobytes())
        d = _DIST_CACHE.get(key)
        if d is not None:
            self._dist = d
            return d
        size = self.occ.shape[0]
        empty = (self.occ == 0).tolist()
        offs = self.offsets
        rows = []
        for gi in self.goal_idx:
            dist = [INF] * size
            queue = []
            for o in offs:
                if empty[gi + o]:
                    dist[gi + o] = 1
                    queue.append(gi + o)
            for i in queue:  # breadth-first: the list grows while it is read
                nd = dist[i] + 1
                for o in offs:
                    j = i + o
                    if empty[j] and dist[j] > nd:
                        dist[j] = nd
                        queue.append(j)
            rows.append(dist)
        d = np.array(rows, dtype=np.int64)
        d.flags.writeable = False
        if len(_DIST_CACHE) > 4096:
            _DIST_CACHE.clear()
        _DIST_CACHE[key] = d
        self._dist = d
        return d


class Analysis:
    """What a maze means for every goal, independent of goal probabilities: distances,
    frontier (empty cells a connected opening faces) and the best two frontier distances."""

    __slots__ = ("dist", "fc", "frontier", "m1", "cnt1", "m2", "cnt2")

    def __init__(self, maze: Maze, dist: np.ndarray | None = None) -> None:
        self.dist = maze.distances() if dist is None else dist
        self.fc = maze.facing_conn()
        self.frontier = (maze.occ == 0) & (self.fc != 0)
        fidx = np.flatnonzero(self.frontier)
        self.m1 = np.full(3, INF, dtype=np.int64)
        self.cnt1 = np.zeros(3, dtype=np.int64)
        self.m2 = np.full(3, INF, dtype=np.int64)
        self.cnt2 = np.zeros(3, dtype=np.int64)
        if len(fidx):
            vals = np.sort(self.dist[:, fidx], axis=1)
            self.m1 = vals[:, 0].copy()
            self.cnt1 = (vals == vals[:, :1]).sum(axis=1)
            if vals.shape[1] > 1:
                self.m2 = vals[:, 1].copy()
                self.cnt2 = (vals == vals[:, 1:2]).sum(axis=1)


#: analyses depend only on the public maze: shared by every agent of the process
_ANALYSIS_CACHE: dict = {}


def analyse(maze: Maze) -> Analysis:
    key = (maze.window, maze.occ.tobytes(), maze.conn.tobytes())
    a = _ANALYSIS_CACHE.get(key)
    if a is None:
        if len(_ANALYSIS_CACHE) > 4096:
            _ANALYSIS_CACHE.clear()
        a = _ANALYSIS_CACHE[key] = Analysis(maze)
    return a


class Evaluation:
    """``V`` of a maze for goal probabilities ``p`` and fast what-ifs for placements."""

    def __init__(self, maze: Maze, p: np.ndarray, analysis: Analysis | None = None) -> None:
        a = analyse(maze) if analysis is None else analysis
        self.maze, self.p, self.analysis = maze, p, a
        self.dist, self.fc, self.frontier = a.dist, a.fc, a.frontier
        self.m1, self.cnt1, self.m2, self.cnt2 = a.m1, a.cnt1, a.m2, a.cnt2
        self.D = self.m1
        self.V = self.value(self.D, self.cnt1)

    def value(self, D: np.ndarray, C: np.ndarray) -> np.ndarray | float:
        """``V = sum_g p_g (min(D_g, CAP) - ROBUST * (min(C_g, 3) - 1))``: distance to each
        goal, less a bonus for several equally short routes (harder to block)."""
        v = np.minimum(D, CAP) - ROBUST * (np.clip(C, 1, 3) - 1)
        return (v * self.p[:, None] if D.ndim == 2 else v * self.p).sum(axis=0)

    def place(self, var_open: np.ndarray, var_thr: np.ndarray, cells: np.ndarray,
              always: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """What-if for placements (arrays of openings, through flags, padded cells; ``always``:
        bool per placement, connected whatever its neighbours, e.g. a ladder, RULES 6.4).

        Returns ``D_after`` and ``C_after`` (the number of frontier cells at that distance),
        ``(3, k)`` each, and ``reached`` bool ``(3, k)`` (a face-down goal that the card connects
        to, RULES 4.2).  The card's tunnel is connected when one of its openings
        meets a connected opening (RULES 3.1.5)."""
        m = self.maze
        connected = var_thr & ((var_open & self.fc[cells]) != 0)
        if always is not None:
            connected = connected | always
        k = len(cells)
        # the frontier without the filled cell
        d_here = self.dist[:, cells]
        here_best = (d_here == self.m1[:, None]) & self.frontier[cells][None, :]
        unique_best = here_best & (self.cnt1[:, None] == 1)
        base = np.where(unique_best, self.m2[:, None], self.m1[:, None])
        base_c = np.where(unique_best, self.cnt2[:, None], self.cnt1[:, None] - here_best)
        vals = []
        reached = np.zeros((3, k), dtype=bool)
        for b in range(4):
            side = connected & ((var_open >> b) & 1).astype(bool)
            nb = cells + m.offsets[b]
            ok = side & (m.occ[nb] == 0)
            vals.append(np.where(ok[None, :], self.dist[:, nb], INF))
            for g, gi in enumerate(m.goal_idx):
                reached[g] |= side & (nb == gi) & (m.occ[gi] == 2)
        new = np.minimum(np.minimum(vals[0], vals[1]), np.minimum(vals[2], vals[3]))
        D = np.minimum(base, new)
        C = np.where(base == D, base_c, 0) + sum((v == D).astype(np.int64) for v in vals)
        D[reached] = 0
        C[reached] = 1
        return D, C, reached


def _dist_after_removal(dist: np.ndarray, maze: Maze, i: int) -> np.ndarray:
    """Distances once cell ``i`` is emptied (rockfall): the cell itself gets one more than its
    best neighbour; routes through it elsewhere are ignored (a cheap, slightly pessimistic
    approximation)."""
    d = dist.copy()
    for g, gi in enumerate(maze.goal_idx):
        best = INF
        for o in maze.offsets:
            j = i + o
            if j == gi:
                best = 0
            elif maze.occ[j] == 0:
                best = min(best, int(dist[g, j]))
        d[g, i] = min(best + 1, INF)
    return d


# --- the agent -------------------------------------------------------------------------
class HeuristicAgent(Agent):
    """Role-aware heuristic player with a suspicion model (see the module docstring).

    Args:
        style: ``""`` (default), ``"subtle"`` or ``"blatant"`` (:data:`STYLES`).

    Raises:
        ValueError: an unknown style.
    """

    name = "heuristic"

    def __init__(self, style: str = "") -> None:
        if style not in STYLES:
            raise ValueError(f"unknown heuristic style {style!r}; valid: "
                             f"{sorted(s for s in STYLES if s)} or none")
        self.style_name = style
        self.style = STYLES[style]
        self.rng = np.random.default_rng()
        self._config = None

    # --- lifecycle ---------------------------------------------------------------------
    def reset(self, seat: int, config: GameConfig, seed: int | None = None) -> None:
        super().reset(seat, config, seed)
        if config.expansion:  # Saboteur 2: the expansion behaviour (agents.heuristic_x)
            from .heuristic_x import ExpansionHeuristic

            self.__class__ = ExpansionHeuristic
            ExpansionHeuristic.reset(self, seat, config, seed)
            return
        if self._config != config:
            self._config = config
            self.codec = Codec(config)
            self.encoder = ObservationEncoder(config)
            self._priors = {r: role_assignment_prior(config, r) for r in (GOLD_DIGGER, SABOTEUR)}
            self._var_open = np.array([VARIANTS[v].openings for v in self.codec.variants])
            self._var_thr = np.array([any(not st for st in VARIANTS[v].stub)
                                      for v in self.codec.variants])
            self._var_dead = np.array([CARD_KINDS[VARIANTS[v].kind].is_dead_end
                                       for v in self.codec.variants])
        self.n = config.num_players
        self.role: int | None = None
        self._fed: list = []
        self._start_round(0)  # a game starts in round 0 (the round_start event repeats it)

    def _start_round(self, round_index: int | None) -> None:
        n = self.n
        self.round = -1 if round_index is None else round_index
        self.llr = np.zeros(n)
        self.progress = np.zeros(n)  # public progress made by each seat this round
        self.maze = Maze.initial(self.config.board_window)
        self.known = np.full(3, -1)  # goal identity known to me (-1 unknown)
        self.public = np.full(3, -1)  # goal identity known to everyone
        self.own_turns = 0
        self._belief_cache = None

    # --- events between turns --------------------------------------------------------------
    def observe(self, events) -> None:
        """Feed events as they happen (public ones and this seat's private ones), so that
        :meth:`belief` is current between the agent's turns (e.g. right after a round starts).

        :meth:`act` then skips these events at the head of its ``info["events"]``.
        """
        events = list(events)
        self._fed.extend(events)
        self._process_events(events)

    # --- belief ------------------------------------------------------------------------
    def belief(self) -> np.ndarray:
        """``(n_players, 2)``: P(gold-digger), P(saboteur) per absolute seat; rows sum to 1."""
        role = GOLD_DIGGER if self.role is None else self.role
        if self._belief_cache is not None and self._belief_cache[0] == (role, self.llr.tobytes()):
            return self._belief_cache[1].copy()
        combos, prior = self._priors[role]
        others = [(self.seat + 1 + i) % self.n for i in range(self.n - 1)]
        llr = np.clip(self.llr[others], -LLR_CLIP, LLR_CLIP)
        logw = np.log(prior) + combos @ llr
        w = np.exp(logw - logw.max())
        w /= w.sum()
        q = w @ combos
        b = np.zeros((self.n, 2))
        b[others, 1] = q
        b[others, 0] = 1.0 - q
        b[self.seat, role] = 1.0
        self._belief_cache = ((role, self.llr.tobytes()), b)
        return b.copy()

    def _q(self) -> np.ndarray:
        return self.belief()[:, 1]

    # --- goal probabilities ------------------------------------------------------------
    @staticmethod
    def _p_from(ident: np.ndarray) -> np.ndarray:
        """P(gold) per goal slot given known identities (-1 unknown, 0 gold, 1/2 stone)."""
        if (ident == 0).any():
            return (ident == 0).astype(float)
        unknown = ident < 0
        if not unknown.any():
            return np.full(3, 1 / 3)
        return unknown / unknown.sum()

    def _p_mine(self) -> np.ndarray:
        return self._p_from(self.known)

    def _p_public(self) -> np.ndarray:
        return self._p_from(self.public)

    def _p_judge(self) -> np.ndarray:
        """Goal weights for judging others: half public, half my own knowledge."""
        return 0.5 * (self._p_public() + self._p_mine())

    # --- events --------------------------------------------------------------------------
    def _process_events(self, events) -> None:
        for e in events:
            vis = e.visible_to
            if vis is not None and vis != self.seat:
                continue  # never ours to see (defensive: the env routes only ours)
            t = e.type
            if t == "round_start":
                self._start_round(e.data["round"])
            elif t == "role_dealt":
                self.role = int(e.data["role"])
            elif t == "map_result":
                self.known[e.data["goal"]] = int(e.data["identity"])
            elif t == "goal_revealed":
                self.known[e.data["goal"]] = int(e.data["identity"])
                self.public[e.data["goal"]] = int(e.data["identity"])
                self.maze.reveal(e.data["goal"], int(e.data["identity"]), e.data["rotated"])
            elif t == "path_placed":
                v = VARIANTS[e.data["variant"]]
                x, y = e.data["x"], e.data["y"]
                thr = any(not st for st in v.stub)
                if e.seat != self.seat:
                    prog = self._placement_progress(self.maze, self._p_judge(), v.openings, thr,
                                                    x, y)
                    pub = self._placement_progress(self.maze, self._p_public(), v.openings,
                                                   thr, x, y) if (self.known != self.public
                                                                  ).any() else prog
                    self.progress[e.seat] += max(pub, 0.0)
                    self._add(e.seat, self._ev_place(prog, not thr))
                else:
                    pub = self._placement_progress(self.maze, self._p_public(), v.openings,
                                                   thr, x, y)
                    self.progress[e.seat] += max(pub, 0.0)
                self.maze.place(x, y, v.openings, thr)
            elif t == "rockfall":
                x, y = e.data["x"], e.data["y"]
                if e.seat != self.seat:
                    before = Evaluation(self.maze, self._p_judge())
                    after = self.maze.copy()
                    dead = not after.thr[after.idx(x, y)]
                    after.remove(x, y)
                    prog = before.V - Evaluation(after, self._p_judge()).V
                    self._add(e.seat, self._ev_rockfall(prog, dead))
                self.maze.remove(x, y)
            elif t == "tool_broken" and e.seat != self.seat:
                self._add(e.seat, self._ev_break(e.data["target"]))
            elif t == "tool_repaired" and e.seat != self.seat:
                self._add(e.seat, self._ev_repair(e.seat, e.data["target"]))

    def _add(self, seat: int, llr: float) -> None:
        self.llr[seat] = float(np.clip(self.llr[seat] + llr, -LLR_CLIP, LLR_CLIP))

    def _placement_progress(self, maze: Maze, p, openings, thr, x, y) -> float:
        ev = Evaluation(maze, p)
        D, C, reached = ev.place(np.array([openings]), np.array([thr]),
                                 np.array([maze.idx(x, y)]))
        return float(ev.V - ev.value(D, C)[0] + WIN_BONUS * (p * reached[:, 0]).sum())

    # evidence: log P(action | saboteur) - log P(action | gold-digger)
    @staticmethod
    def _ev_place(progress: float, dead_end: bool) -> float:
        ev = -EV_PROGRESS * float(np.clip(progress, -3.0, 2.0))
        if dead_end:
            ev += EV_DEAD_END * (1.0 if progress < 0 else 0.3)
        return ev

    @staticmethod
    def _ev_rockfall(progress: float, removed_dead_end: bool) -> float:
        ev = -EV_PROGRESS * float(np.clip(progress, -3.0, 2.0))
        return ev - (0.5 if removed_dead_end else 0.0)

    def _ev_break(self, target: int) -> float:
        if target == self.seat:
            return EV_BREAK_ME if self.role == GOLD_DIGGER else -0.5
        q = self._q()[target]
        return EV_BREAK * (1.0 - 2.0 * q)

    def _ev_repair(self, actor: int, target: int) -> float:
        if target == actor:
            return 0.0
        if target == self.seat:
            return -EV_REPAIR * 1.5 if self.role == GOLD_DIGGER else 0.3
        q = self._q()[target]
        return -EV_REPAIR * (1.0 - 2.0 * q)

    # --- acting --------------------------------------------------------------------------
    def act(self, observation, action_mask, info=None) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError("HeuristicAgent.act: the action mask has no legal action")
        V = self.encoder.views(np.asarray(observation))
        game = V["game"]
        if info and info.get("events"):
            events = list(info["events"])
            k = 0  # skip the events already fed through observe()
            while k < len(events) and k < len(self._fed) and events[k] == self._fed[k]:
                k += 1
            self._process_events(events[k:])
        self._fed = []
        if int(game[0]) != self.round:
            self._start_round(int(game[0]))
        role = int(np.argmax(V["role"][:2]))
        if self.role != role:
            self.role = role
            self._belief_cache = None
        board = V["board"]
        self.maze = Maze.from_view(self.config.board_window, board)
        # goal knowledge from the board channels (reveals and own maps)
        for slot, (gx, gy) in enumerate(GOAL_CELLS):
            r, c = gy - self.config.board_window[2], gx - self.config.board_window[0]
            if board[12, r, c] or board[14, r, c]:
                self.known[slot] = 0
            elif (board[13, r, c] or board[15, r, c]) and self.known[slot] < 0:
                self.known[slot] = 1
            if board[12, r, c]:
                self.public[slot] = 0
            elif board[13, r, c] and self.public[slot] < 0:
                self.public[slot] = 1
        action = self._choose(legal, V)
        self.own_turns += 1
        return int(action)

    def _choose(self, legal: np.ndarray, V: dict) -> int:
        n, seat, codec = self.n, self.seat, self.codec
        style = self.style
        players = V["players"]
        rel_rows = [(r, (seat + r) % n) for r in range(n)]
        broken = np.zeros((n, 3), dtype=bool)
        for r, s in rel_rows:
            broken[s] = players[r, 2:5] > 0
        hand = V["hand"]
        q = self._q()
        p_mine, p_pub = self._p_mine(), self._p_public()
        saboteur = self.role == SABOTEUR
        ev_mine = Evaluation(self.maze, p_mine)
        dmin = int(ev_mine.D.min())
        if saboteur:
            sabotage = self.own_turns >= style.honest_turns or dmin <= style.honest_until
        else:
            sabotage = False
        # the goal weights the agent plays for
        if saboteur and not sabotage and (self.known != self.public).any():
            # cover play towards goals the public cannot rule out but I know to be stone
            cover = (self.public < 0) & (self.known > 0)
            p_play = cover / cover.sum() if cover.any() else p_pub
        else:
            p_play = p_mine
        ev_play = ev_mine if p_play is p_mine else Evaluation(self.maze, p_play, ev_mine.analysis)
        ev_pub = ev_mine if np.array_equal(p_pub, p_mine) else \
            Evaluation(self.maze, p_pub, ev_mine.analysis)
        lam = style.suspicion_weight if sabotage else style.digger_caution
        hostile = saboteur and sabotage
        scores = np.full(len(legal), -np.inf)
        blocks = codec.blocks
        # --- placements ---
        p_off, p_size = blocks["place"]
        sel = (legal >= p_off) & (legal < p_off + p_size)
        if sel.any():
            i = legal[sel] - p_off
            row, cell = np.divmod(i, codec.n_cells)
            cells = (cell // codec.width + 1) * self.maze.stride + cell % codec.width + 1
            vo, vt = self._var_open[row], self._var_thr[row]
            dead = self._var_dead[row]
            D, C, reached = ev_play.place(vo, vt, cells)
            prog = ev_play.V - ev_play.value(D, C) \
                + WIN_BONUS * (p_play[:, None] * reached).sum(0)
            if ev_pub is ev_play:
                prog_pub = prog
            else:
                Dp, Cp, rp = ev_pub.place(vo, vt, cells)
                prog_pub = ev_pub.V - ev_pub.value(Dp, Cp) \
                    + WIN_BONUS * (p_pub[:, None] * rp).sum(0)
            susp = -EV_PROGRESS * np.clip(prog_pub, -3, 2) + EV_DEAD_END * dead * np.where(
                prog_pub < 0, 1.0, 0.3)
            if hostile:
                gold_reach = (p_mine[:, None] * reached).sum(0)
                util = -(ev_mine.V - ev_mine.value(D, C)) - 2 * WIN_BONUS * gold_reach \
                    if p_play is p_mine else -prog
                util = np.where(util > 0, util, np.minimum(util, 0) - 0.3)
            else:
                util = np.where(prog > 1e-9, prog, -0.4) - 0.6 * dead
                if saboteur:  # honest phase: never hand the gold over
                    util = util - 3 * WIN_BONUS * (p_mine[:, None] * reached).sum(0)
                # small preference for cards that keep many openings (harder to block)
                util = util + 0.02 * np.array([bin(int(o)).count("1") for o in vo]) * (prog > 0)
            scores[sel] = util - lam * susp
        # --- rockfalls ---
        r_off, r_size = blocks["rockfall"]
        sel = (legal >= r_off) & (legal < r_off + r_size)
        if sel.any():
            out = []
            for cell in (legal[sel] - r_off).tolist():
                x, y = codec.xy(cell)
                out.append(self._rockfall_score(x, y, ev_mine, ev_pub, hostile, lam))
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
                base = 1.1 if not saboteur else (0.9 if not sabotage else 0.5)
                # prefer the likeliest, then the nearest goal
                out.append(base + 0.05 * p_mine[slot] - 0.01 * min(ev_mine.D[slot], CAP))
            scores[sel] = out
        # --- tools ---
        t_off, t_size = blocks["tool"]
        sel = (legal >= t_off) & (legal < t_off + t_size)
        if sel.any():
            out = []
            nb = broken.sum(axis=1)
            share = self.progress / max(self.progress.sum(), 1.0)
            for i in (legal[sel] - t_off).tolist():
                row, rel = divmod(i, codec.max_players)
                kind, tool = codec.tool_pairs[row]
                t = (seat + rel) % n
                qt = 0.0 if t == seat else q[t]
                if CARD_KINDS[kind].effect[0] == "break":
                    if t == seat:
                        out.append(-5.0)
                        continue
                    B = 1.0 if nb[t] == 0 else 0.25
                    sus = EV_BREAK * (1 - 2 * qt)
                    if hostile:
                        u = B * (1 - 2 * qt) * (0.6 + 1.5 * share[t]) - 0.1
                    elif saboteur:
                        u = min(B * (2 * qt - 1) - 0.3, -0.1)  # cover: hold fire
                    else:
                        u = B * (2 * qt - 1) - 0.15
                    out.append(u - lam * sus)
                else:
                    R = 1.0 if nb[t] == 1 else 0.35
                    versatile = 0.05 * (len(CARD_KINDS[kind].effect[1]) - 1)
                    if t == seat:
                        u = R + 0.2 if not hostile else 0.6 * R
                        sus = 0.0
                    else:
                        sus = -EV_REPAIR * (1 - 2 * qt)
                        u = R * (2 * qt - 1) if hostile else R * (1 - 2 * qt)
                    out.append(u - versatile - lam * sus)
            scores[sel] = out
        # --- discards ---
        d_off, d_size = blocks["discard"]
        sel = (legal >= d_off) & (legal < d_off + d_size)
        if sel.any():
            kinds = (legal[sel] - d_off).tolist()
            scores[sel] = [-0.05 - 0.3 * self._keep_value(k, hand, hostile, saboteur)
                           for k in kinds]
        scores = scores + 1e-6 * self.rng.random(len(scores))
        return int(legal[int(np.argmax(scores))])

    def _rockfall_score(self, x, y, ev_mine: Evaluation, ev_pub: Evaluation, hostile: bool,
                        lam: float) -> float:
        maze = self.maze
        i = maze.idx(x, y)
        fc = ev_mine.fc[i]
        dead = not maze.thr[i]
        # only cards touching the connected tunnel matter
        if not fc and not (maze.conn[i] and maze.thr[i]):
            return -1.0
        after = maze.copy()
        after.remove(x, y)
        a_after = Analysis(after, _dist_after_removal(ev_mine.dist, maze, i))
        e_after = Evaluation(after, ev_mine.p, a_after)
        prog = ev_mine.V - e_after.V
        if ev_pub is ev_mine:
            prog_pub = prog
        else:
            prog_pub = ev_pub.V - Evaluation(after, ev_pub.p, a_after).V
        sus = self._ev_rockfall(prog_pub, dead)
        if hostile:
            return -prog - 0.4 - lam * sus
        return prog - 0.4 - lam * sus

    def _keep_value(self, k: int, hand: np.ndarray, hostile: bool, saboteur: bool) -> float:
        """How much the agent wants to keep one card of kind ``k`` (0 = useless)."""
        kind = CARD_KINDS[k]
        if kind.category == "path":
            if kind.is_dead_end:
                return 1.0 if saboteur else 0.0
            if hostile:
                return 0.1  # hoarding: through cards are what the diggers need
            return 0.5 + 0.1 * bin(kind.openings).count("1")
        eff = kind.effect[0]
        if eff == "map":
            return 0.0 if (self.known == 0).any() or hand[k] > 1 else 0.8
        if eff == "rockfall":
            return 0.6 if saboteur else 0.4
        if eff == "break":
            return 0.9 if saboteur else 0.3
        if eff == "repair":
            return 0.7
        return 0.2


__all__ = ["HeuristicAgent", "Maze", "Evaluation", "STYLES", "Style", "exact_prior_belief",
           "role_assignment_prior"]

register_agent("heuristic", HeuristicAgent)
