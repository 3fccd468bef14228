"""Scores of the heuristic agent's candidate actions, one scorer per action family.

A scorer reads one :class:`Decision` (what the agent knows and wants at this decision) and the
offsets of the legal actions inside its family's block of the codec (DESIGN 3), and returns a
float64 score per action; the agent plays the best score (ties broken by a tiny random
jitter).  Scores are in *tunnel steps* (:mod:`saboteur_agents.heuristic.maze`), less
``lam * (how suspicious the move looks)`` with the same evidence model that the agent applies to
others (:mod:`saboteur_agents.heuristic.belief`).

Normal turns (:data:`TURN_SCORERS`, family -> scorer): :func:`score_place` (RULES 3.1),
:func:`score_rockfall` (RULES 3.4), :func:`score_map` (RULES 3.5), :func:`score_tool` (broken
tools and repairs, RULES 3.2, 3.3), :func:`score_discard` (RULES 3.6; in Saboteur 2 the start of
a pass, RULES 6.7 option 4), :func:`score_xaction` (the Saboteur 2 action cards that name a
player, one scorer per card in :data:`X_CARD_SCORERS`, RULES 6.5) and :func:`score_remove`
(RULES 6.7 option 3).  Saboteur 2 sub-phases: :func:`choose_pass`, :func:`choose_discard`
(RULES 6.7) and :func:`choose_steal` (RULES 6.9).  :func:`keep_value` says how much a card is
worth keeping.  How a role values a placement is one of :func:`dig`, :func:`sabotage` and
:func:`collect_crystals`, named in the role table (:mod:`saboteur_agents.heuristic.strategy`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from saboteur_env.encoding.codec import Codec
from saboteur_env.engine.cards import (
    CARD_KINDS,
    FRONT_THEFT,
    VARIANT_CRYSTALS,
    VARIANT_DOOR,
    VARIANT_LADDER,
    VARIANTS,
    X_ACTION_KINDS,
)

from .belief import EV_BREAK, EV_DEAD_END, EV_PROGRESS, EV_REPAIR, rockfall_evidence
from .maze import CAP, VARIANT_THROUGH, WIN_BONUS, Analysis, Evaluation, Maze, dist_after_removal

if TYPE_CHECKING:
    from .strategy import GamePlay, RolePlay, Style, Tactics

#: effect name of each row of the codec's ``xaction`` block (RULES 6.5)
X_CARDS = tuple(CARD_KINDS[k].id for k in X_ACTION_KINDS)
#: keep values of the Saboteur 2 action cards (0 = useless)
X_KEEP = {
    "theft": 0.8,
    "hands_off": 0.3,
    "swap_hand": 0.05,
    "inspection": 0.4,
    "swap_hats": 0.2,
    "trapped": 0.5,
    "free_at_last": 0.6,
}


class PlacementRows:
    """Card data of each row of the codec's placement block (one oriented path card).

    Attributes (``(n_variants,)`` each): ``open`` int64 openings, ``thr`` bool through card,
    ``dead`` bool dead-end kind, ``door`` int64 door colour code, ``cry`` float64 crystals,
    ``lad`` bool ladder, ``bits`` int64 number of openings.
    """

    def __init__(self, codec: Codec) -> None:
        vs = list(codec.variants)
        self.open = np.array([VARIANTS[v].openings for v in vs])
        self.thr = VARIANT_THROUGH[vs]
        self.dead = np.array([CARD_KINDS[VARIANTS[v].kind].is_dead_end for v in vs])
        self.door = VARIANT_DOOR[vs].astype(np.int64)
        self.cry = VARIANT_CRYSTALS[vs].astype(np.float64)
        self.lad = VARIANT_LADDER[vs].astype(bool)
        self.bits = np.array([bin(int(o)).count("1") for o in self.open])


@dataclass
class Keeping:
    """What :func:`keep_value` reads.

    Attributes:
        play: the role's way of playing (:class:`~saboteur_agents.heuristic.strategy.RolePlay`).
        hostile: the agent is sabotaging now.
        known: int ``(3,)``, goal identities it knows (-1 unknown, 0 gold, 1-2 stone).
        hand: float32 ``(n_kinds,)`` own cards per kind.
        rockfall_keep: a digger's keep value of a rockfall now.
    """

    play: RolePlay
    hostile: bool
    known: np.ndarray
    hand: np.ndarray
    rockfall_keep: float


@dataclass
class Decision(Keeping):
    """What the scorers of one normal turn read (seats absolute; ``n`` players).

    Attributes:
        codec, rows: the action codec and its :class:`PlacementRows`.
        game, style, tactics: the game's and the agent's way of playing, and its version's
            :class:`~saboteur_agents.heuristic.strategy.Tactics`.
        mapped_by: per goal slot, the seats that played a map on it this round.
        fit: float64 ``(16, 16)`` :func:`~saboteur_agents.heuristic.maze.fit_table` of the deck.
        seat, n, own_turns: the agent's seat, the player count, own turns this round.
        lam: the penalty per unit of suspicion a move gives observers.
        plan: the maze the agent plans on (its own maze, or without routes through the doors
            that block its team, RULES 6.9).
        ev: :class:`Evaluation` of ``plan`` for ``p_mine``; ``ev_play`` for ``p_play`` (the
            goal weights it plays for); ``ev_look`` for the weights its moves are judged with.
        p_mine: float64 ``(3,)``, P(gold) per goal slot from its own knowledge.
        p_play: float64 ``(3,)``, the goal weights it plays for.
        q: float64 ``(n,)``, P(saboteur) per seat; ``e``: float64 ``(n,)`` how much it wants
            to hurt each seat (0 friend .. 1 enemy; zeros where the role table has no enemy
            row); ``hurt``: float64 ``(n,)`` in ``[-1, 1]``, the help (negative) or harm
            (positive) it wants for each seat's tools.
        share: float64 ``(n,)``, each seat's share of this round's public progress.
        broken: bool ``(n, 3)`` broken tools; ``trapped``: bool ``(n,)`` a Trapped! card in
            front of each seat (RULES 3.2, 6.5).
        inspected: ``{seat: role}`` seen by its Inspection.
        belief: the agent's belief, float64 ``(n, n_roles)``.
    """

    codec: Codec
    rows: PlacementRows
    game: GamePlay
    style: Style
    tactics: Tactics
    mapped_by: list[list[int]]
    fit: np.ndarray
    seat: int
    n: int
    own_turns: int
    lam: float
    plan: Maze
    ev: Evaluation
    ev_play: Evaluation
    ev_look: Evaluation
    p_mine: np.ndarray
    p_play: np.ndarray
    q: np.ndarray
    e: np.ndarray
    hurt: np.ndarray
    share: np.ndarray
    broken: np.ndarray
    trapped: np.ndarray
    inspected: dict
    belief: Callable[[], np.ndarray]

    def target(self, rel: int) -> int:
        """The absolute seat of relative seat ``rel`` (DESIGN 3)."""
        return (self.seat + rel) % self.n


@dataclass
class Placements:
    """What-if of placements: ``prog`` float64 ``(k,)`` progress for the played goal weights,
    ``gold_reach`` float64 ``(k,)`` own gold probability reached, ``dead``, ``door``, ``cry``,
    ``bits`` per candidate (:class:`PlacementRows` columns)."""

    prog: np.ndarray
    gold_reach: np.ndarray
    dead: np.ndarray
    door: np.ndarray
    cry: np.ndarray
    bits: np.ndarray


# --- how a role values a placement (named in the role table) -------------------------------
def dig(d: Decision, c: Placements) -> np.ndarray:
    """Honest digging: progress (reaching the gold wins), dead ends cost, cards with many
    openings are harder to block; a saboteur in its honest phase never hands the gold over;
    a team digger plays its own doors on the main line and never the other team's, others
    avoid doors (RULES 6.9)."""
    util = np.where(c.prog > 1e-9, c.prog, -0.4) - 0.6 * c.dead
    util = util + 0.02 * c.bits * (c.prog > 0)
    if d.play.sabotages:
        util = util - 3 * WIN_BONUS * c.gold_reach
    if d.play.own_door:
        util = (
            util
            + 0.3 * ((c.door == d.play.own_door_code) & (c.prog > 0))
            - 2.0 * (c.door == d.play.wall_door_code)
        )
    else:
        util = util - 0.3 * (c.door > 0)
    return util


def sabotage(d: Decision, c: Placements) -> np.ndarray:
    """Hostile saboteur: lengthen the diggers' way (dead ends and detours at the front),
    never reach the gold."""
    util = -c.prog - WIN_BONUS * c.gold_reach
    return np.where(util > 0, util, np.minimum(util, 0) - 0.3)


def collect_crystals(d: Decision, c: Placements) -> np.ndarray:
    """Geologist: crystal cards anywhere (RULES 6.9), little interest in the tunnel."""
    return 1.2 * c.cry - 0.3 - 0.1 * np.clip(c.prog, 0, 3) - WIN_BONUS * c.gold_reach


# --- action families -------------------------------------------------------------------
def score_place(d: Decision, idx: np.ndarray) -> np.ndarray:
    """Placements (RULES 3.1; a ladder is connected wherever it lies, RULES 6.4)."""
    codec, rows, ev, ev_look = d.codec, d.rows, d.ev_play, d.ev_look
    row, cell = np.divmod(idx, codec.n_cells)
    cells = (cell // codec.width + 1) * d.plan.stride + cell % codec.width + 1
    vo, vt, lad = rows.open[row], rows.thr[row], rows.lad[row]
    D, C, reached = ev.place(vo, vt, cells, lad)
    prog = ev.V - ev.value(D, C) + WIN_BONUS * (d.p_play[:, None] * reached).sum(0)
    if ev_look is ev:
        prog_look = prog
    else:
        Dl, Cl, rl = ev_look.place(vo, vt, cells, lad)
        prog_look = ev_look.V - ev_look.value(Dl, Cl) + WIN_BONUS * (ev_look.p[:, None] * rl).sum(0)
    dead = rows.dead[row]
    susp = -EV_PROGRESS * np.clip(prog_look, -3, 2) + EV_DEAD_END * dead * np.where(
        prog_look < 0, 1.0, 0.3
    )
    c = Placements(
        prog,
        (d.p_mine[:, None] * reached).sum(0),
        dead,
        rows.door[row],
        rows.cry[row],
        rows.bits[row],
    )
    utility = d.play.place_hostile if d.hostile else d.play.place
    util = utility(d, c) - d.lam * susp
    if d.tactics.rescore_top and ev.scarcity > 0 and len(idx) > 1:
        # the fast what-if ignores the walls the new card sets around the front: value the
        # best few again on the maze with the card laid, and choose among those only
        top = np.argsort(-util)[: d.tactics.rescore_top]
        prog = prog.copy()
        for j in top.tolist():
            after = d.plan.copy()
            x, y = codec.xy(int(cell[j]))
            after.place_variant(x, y, int(codec.variants[int(row[j])]))
            gold = WIN_BONUS * float((d.p_play * reached[:, j]).sum())
            prog[j] = ev.V - Evaluation(after, d.p_play, None, ev.scarcity, d.fit).V + gold
        c.prog = prog
        rescored = utility(d, c) - d.lam * susp
        util = np.full_like(util, rescored[top].min() - 1.0)
        util[top] = rescored[top]
    return util


def rockfall_score(d: Decision, x: int, y: int) -> float:
    """One rockfall on ``(x, y)`` (RULES 3.4): only cards touching the connected tunnel
    matter; diggers clear what blocks the front, a hostile saboteur cuts the main line."""
    maze, ev, ev_look = d.plan, d.ev, d.ev_look
    i = maze.idx(x, y)
    dead = not maze.thr[i]
    if not ev.fc[i] and not (maze.conn[i] and maze.thr[i]):
        return -1.0
    after = maze.copy()
    after.remove(x, y)
    a_after = Analysis(after, dist_after_removal(ev.dist, maze, i))
    prog = ev.V - Evaluation(after, ev.p, a_after, ev.scarcity, ev.fit).V
    prog_look = (
        prog
        if ev_look is ev
        else ev_look.V - Evaluation(after, ev_look.p, a_after, ev.scarcity, ev.fit).V
    )
    sus = rockfall_evidence(prog_look, dead)
    if not d.hostile:
        return prog - 0.4 - d.lam * sus
    # a cut far behind the front gives the saboteur away and is soon mended
    if not d.tactics.rockfall_far:
        return -prog - 0.4 - d.lam * sus
    front = min((goal_manhattan(maze, int(f)) for f in np.flatnonzero(ev.frontier)), default=0)
    behind = max(0, goal_manhattan(maze, i) - front - 1)
    return -prog - 0.4 - d.lam * sus - d.tactics.rockfall_far * behind


def goal_manhattan(maze: Maze, i: int) -> int:
    """Manhattan cells from padded cell ``i`` to the nearest goal card (RULES 2.1)."""
    x, y = maze.xy(i)
    return min(abs(x - gx) + abs(y - gy) for gx, gy in (maze.xy(g) for g in maze.goal_idx))


def score_rockfall(d: Decision, idx: np.ndarray) -> list[float]:
    """Rockfalls (RULES 3.4); roles that do not care for the tunnel never play them."""
    if not d.play.rockfalls:
        return [-1.0] * len(idx)
    return [rockfall_score(d, *d.codec.xy(cell)) for cell in idx.tolist()]


def score_map(d: Decision, idx: np.ndarray) -> list[float]:
    """Maps (RULES 3.5): early, on the likeliest then nearest unknown goal."""
    gold_known = (d.known == 0).any()
    base = d.play.map_value[d.hostile]
    out = []
    for slot in idx.tolist():
        if gold_known or d.known[slot] >= 0:
            out.append(-1.0)
            continue
        u = base + 0.05 * d.p_mine[slot] - 0.01 * min(d.ev.D[slot], CAP)
        trusted = [1.0 - d.q[s] for s in d.mapped_by[slot] if s != d.seat]
        out.append(u - d.tactics.mapped_penalty * max(trusted, default=0.0))
    return out


def score_tool(d: Decision, idx: np.ndarray) -> list[float]:
    """Broken tools and repairs (RULES 3.2, 3.3): break likely enemies who advanced the
    tunnel most (a saboteur in its honest phase holds fire), repair oneself and friends."""
    q, hurt, seat = d.q, d.hurt, d.seat
    nb = d.broken.sum(axis=1) + d.trapped
    out = []
    for i in idx.tolist():
        row, rel = divmod(i, d.codec.max_players)
        kind = CARD_KINDS[d.codec.tool_pairs[row][0]]
        t = d.target(rel)
        if kind.effect[0] == "break":
            if t == seat:
                out.append(-5.0)
                continue
            B = 1.0 if nb[t] == 0 else d.tactics.break_blocked
            sus = EV_BREAK * (1 - 2 * q[t])
            if d.hostile:
                u = B * hurt[t] * (0.6 + 1.5 * d.share[t]) - 0.1
            elif d.play.sabotages:
                u = min(B * (2 * q[t] - 1) - 0.3, -0.1)  # cover: hold fire
            else:
                u = B * hurt[t] - 0.15
            out.append(u - d.lam * sus)
        else:
            R = 1.0 if nb[t] == 1 else 0.35
            versatile = 0.05 * (len(kind.effect[1]) - 1)
            if t == seat:
                u = d.play.self_repair(R, d.hostile)
                sus = 0.0
            else:
                u = R * -hurt[t]
                sus = -EV_REPAIR * (1 - 2 * q[t]) if d.game.watched_repairs else 0.0
            out.append(u - versatile - d.lam * sus)
    return out


def _theft(d: Decision, t: int) -> float:
    early = 1.0 if d.own_turns < 3 else 0.8
    return 0.75 * early if not d.trapped[d.seat] else 0.3


def _free_at_last(d: Decision, t: int) -> float:
    if t == d.seat:
        return 1.3 if not d.hostile else 0.8
    return 0.8 * (1 - 2 * d.e[t]) - 0.1


def _trapped(d: Decision, t: int) -> float:
    if not d.play.traps:
        return -0.3
    B = 1.0 if not d.broken[t].any() else 0.5
    if d.hostile:
        return B * (2 * d.e[t] - 1) * (0.7 + 1.5 * d.share[t]) - 0.05
    if d.play.sabotages:
        return -0.2
    return B * (2 * d.e[t] - 1) - 0.1


def _hands_off(d: Decision, t: int) -> float:
    return -1.0 if t == d.seat else 0.2 + 0.4 * d.e[t] - 0.2


def _inspection(d: Decision, t: int) -> float:
    if t in d.inspected:
        return -0.5
    uncertain = 1.0 - d.belief()[t].max()
    return 0.3 + 0.4 * uncertain + 0.3 * d.q[t]


def _swap_hats(d: Decision, t: int) -> float:
    return -0.5 if t == d.seat else 0.8 * (d.e[t] - 0.6)


#: Saboteur 2 action card (effect name) -> score of playing it on absolute seat ``t``
#: (RULES 6.5): Theft on oneself early, Free at last! on oneself first, Trapped! on likely
#: enemies, Hands off! on an enemy's Theft, Inspection on the most uncertain or suspicious
#: player, Swap your hats on a likely enemy (rarely), Swap your hand almost never.
X_CARD_SCORERS: dict[str, Callable[[Decision, int], float]] = {
    "theft": _theft,
    "free_at_last": _free_at_last,
    "trapped": _trapped,
    "hands_off": _hands_off,
    "inspection": _inspection,
    "swap_hats": _swap_hats,
    "swap_hand": lambda d, t: -0.4,
}


def score_xaction(d: Decision, idx: np.ndarray) -> list[float]:
    """Saboteur 2 action cards naming a player (RULES 6.5, :data:`X_CARD_SCORERS`)."""
    out = []
    for i in idx.tolist():
        row, rel = divmod(i, d.codec.max_players)
        scorer = X_CARD_SCORERS.get(X_CARDS[row])
        out.append(scorer(d, d.target(rel)) if scorer else -1.0)
    return out


def score_remove(d: Decision, idx: np.ndarray) -> list[float]:
    """Discard two cards to remove a card in front of oneself (RULES 6.7 option 3): never
    one's own Theft, less gladly with a short hand."""
    hs = d.hand.sum()
    out = []
    for slot in idx.tolist():
        if slot == FRONT_THEFT:
            out.append(-2.0)
            continue
        u = d.play.remove_value[d.hostile]
        if hs < 4:
            u -= 0.3
        out.append(u)
    return out


def keep_value(d: Keeping, k: int) -> float:
    """How much the agent wants to keep one card of kind ``k`` (0 = useless)."""
    kind = CARD_KINDS[k]
    play, hostile = d.play, d.hostile
    if kind.category == "path":
        if play.collects_crystals:
            return 1.0 if kind.crystals else 0.1
        if kind.door and play.own_door:
            return 0.8 if kind.door == play.own_door else 0.0
        if kind.door and not hostile and not play.sabotages:
            return 0.2
        if kind.is_ladder and not hostile:
            return 0.7
        if kind.is_dead_end:
            return 1.0 if play.sabotages else 0.0
        if hostile:
            return 0.1  # hoarding: through cards are what the diggers need
        return 0.5 + 0.1 * bin(kind.openings).count("1")
    if kind.id in X_KEEP:
        return 0.9 if kind.id == "trapped" and hostile else X_KEEP[kind.id]
    eff = kind.effect[0]
    if eff == "map":
        return 0.0 if (d.known == 0).any() or d.hand[k] > 1 else 0.8
    if eff == "rockfall":
        return 0.6 if play.sabotages else d.rockfall_keep
    if eff == "break":
        return 0.9 if play.sabotages else 0.3
    if eff == "repair":
        return 0.7
    return 0.2


def keep_values(d: Keeping, idx: np.ndarray) -> np.ndarray:
    """float64 ``(k,)`` :func:`keep_value` of the card kinds ``idx``."""
    return np.array([keep_value(d, int(k)) for k in idx])


def score_discard(d: Decision, idx: np.ndarray) -> np.ndarray:
    """Discarding (RULES 3.6; in Saboteur 2 the start of a pass, RULES 6.7 option 4): what
    only hurts goes first (dead ends for a digger, RULES 3.6)."""
    return -0.05 - 0.3 * keep_values(d, idx)


def _discards(d: Keeping, legal: np.ndarray, codec: Codec) -> tuple[np.ndarray, np.ndarray]:
    """The legal discards and their :func:`keep_values`."""
    off, size = codec.blocks["discard"]
    cand = legal[(legal >= off) & (legal < off + size)]
    return cand, keep_values(d, cand - off)


def _least_kept(cand: np.ndarray, keep: np.ndarray, rng: np.random.Generator) -> int:
    return int(cand[int(np.argmin(keep + 1e-6 * rng.random(len(keep))))])


def choose_discard(d: Keeping, legal: np.ndarray, codec: Codec, rng: np.random.Generator) -> int:
    """A discard that is forced (removing a card in front of oneself, RULES 6.7 option 3):
    the card least worth keeping."""
    cand, keep = _discards(d, legal, codec)
    return _least_kept(cand, keep, rng) if len(cand) else int(legal[0])


def choose_pass(d: Keeping, legal: np.ndarray, codec: Codec, rng: np.random.Generator) -> int:
    """In a pass (RULES 6.7 option 4): discard another card only if it is useless, else end
    the pass."""
    done = codec.blocks["done"][0]
    cand, keep = _discards(d, legal, codec)
    if len(cand) and (keep.min() < 0.15 or done not in legal):
        return _least_kept(cand, keep, rng)
    return done if done in legal else int(legal[0])


def choose_steal(
    e: np.ndarray, seat: int, n: int, legal: np.ndarray, codec: Codec, rng: np.random.Generator
) -> int:
    """Round-end Theft (RULES 6.9): rob the likeliest enemy (``e``: float64 ``(n,)``, how
    much the thief wants to hurt each seat)."""
    off, _ = codec.blocks["steal"]
    scores = [e[(seat + int(i) - off) % n] + 1e-6 * rng.random() for i in legal]
    return int(legal[int(np.argmax(scores))])


#: family -> scorer of a normal turn (the families a ruleset offers, RULES 3, 6.7)
TURN_SCORERS: dict[str, Callable[[Decision, np.ndarray], object]] = {
    "place": score_place,
    "rockfall": score_rockfall,
    "map": score_map,
    "tool": score_tool,
    "xaction": score_xaction,
    "remove": score_remove,
    "discard": score_discard,
}

__all__ = [
    "Decision",
    "Keeping",
    "PlacementRows",
    "Placements",
    "TURN_SCORERS",
    "X_CARD_SCORERS",
    "X_KEEP",
    "choose_discard",
    "choose_pass",
    "choose_steal",
    "collect_crystals",
    "dig",
    "keep_value",
    "keep_values",
    "rockfall_score",
    "sabotage",
    "score_discard",
    "score_map",
    "score_place",
    "score_remove",
    "score_rockfall",
    "score_tool",
    "score_xaction",
]
