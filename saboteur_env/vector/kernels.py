"""Compiled loops of the batched engine's array backend (:mod:`.arrays`), when numba is installed.

The array backend keeps ``B`` games in arrays (one row per game) and plays a decision of
every game in one call of :func:`step` (RULES 3.1-3.7, 4.1, 4.2, 5.1-5.4, 6.4-6.7): the
placement with its connectivity and goal reveals (ladders, bridges), rockfall, map, broken
tool and repair, discard, Saboteur 2's action cards, passes of several cards, removals and
a thief's theft, the draw and the next seat, and where a base-game round ends its payouts,
rewards and the next round, dealt from the deals drawn (by the engine's own draws) when the
game was dealt or loaded; then it writes each game's observation and action mask in place.
A Saboteur 2 round end goes back to the caller (``ROUND_SCORE``, ``THEFT_DONE``: scored with
the engine's scoring, ``arrays.ArrayGames.settle``), as does the end of a game
(``GAME_OVER``), which deals a new one (:func:`start`, from the engine's draws).

Nothing here is a rule table: every table (card openings and segments, the ``FIT`` look-up,
the neighbour codes, the tool rows, the payout table, the observation's offsets) is built
from the engine's and the encoder's own data by :mod:`.arrays` and passed in.  These loops
restate the engine's steps within a game, so they are checked against it:
``tests/test_vector.py`` plays the array backend and single ``raw_env`` s side by side and
compares every observation, mask, reward and event (``python -m
saboteur_experiments.fast_paths --vector STEPS --backend array`` runs longer).

Without numba, or with ``SABOTEUR_NUMBA=0``, :data:`ENABLED` is false and
:class:`~saboteur_env.vector.VectorGame` steps the engine game by game instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compiled import Kernels, enabled
from ..encoding.history import N_RECENT
from ..encoding.spec import (
    BoardChannel,
    GameFeature,
    HistoryColumn,
    PhaseFeature,
    PlayerFeature,
    PrivateFeature,
    RecentType,
    XPlayerFeature,
)
from ..engine.board import EMPTY, HIDDEN_GOAL
from ..engine.cards import FACING, FRONT_THEFT, FRONT_TRAPPED, SIDE_DELTA, X_EFFECTS
from ..engine.phases import Phase

#: whether the compiled kernels can be used: numba is installed and ``SABOTEUR_NUMBA`` is not
#: ``0`` (numba is imported, and the kernels compiled or read from its cache, at first use)
ENABLED = enabled()


def usable() -> bool:
    """:data:`ENABLED`, and numba imports (an installed numba that fails to import, e.g. one
    built for another numpy, leaves ``backend="auto"`` on the engine)."""
    if not ENABLED:
        return False
    try:
        import numba  # noqa: F401
    except Exception:
        return False
    return True


# --- what step() reports per game (ints[:, I_STATUS]) ---------------------------------------
#: the round goes on; (apply only) the gold was reached / no hand holds a card; the round
#: ended and the next was dealt; the game ended (the caller deals a new one)
CONTINUE, GOLD_FOUND, HANDS_EMPTY, ROUND_DONE, GAME_OVER = 0, 1, 2, 3, 4
#: (rulesets whose gold is a count, Saboteur 2) the round ended and the caller scores it
#: (``ints[:, I_GOLD_FOUND]``, ``I_CONNECTOR``); a thief took his gold and the caller goes on
#: with the thefts (``I_THIEF``, ``I_VICTIM``).  The kernels then write no observation or mask
ROUND_SCORE, THEFT_DONE = 5, 6

# --- columns of the per-game int64 array ``ints`` (B, N_INTS) --------------------------------
I_CURRENT = 0  # seat to act
I_FIRST = 1  # seat that started the round
I_TURN = 2  # turns this round
I_LAST_CARD = 3  # seat of the last card-consuming turn
I_DECISIONS = 4  # decisions of the game
I_ROUND = 5  # 0-based round
I_DECK_POS = 6  # index of the top of the draw pile in ``deck``
I_DECK_LEN = 7  # cards in ``deck`` (the pile is deck[pos:len])
I_ADDED = 8  # public actions added to ``recent`` this round
I_LAST_R = 9  # padded row of the last path card placed this round (-1: none)
I_LAST_C = 10  # its padded column
I_GAME_OVER = 11
I_PATHS = 12  # tunnel cards in the maze
I_DIRTY = 13  # the observation's board planes are to be written whole (a deal, a load)
I_STATUS = 14  # CONTINUE / ROUND_DONE / GAME_OVER of the last step
I_NEV = 15  # events the last step wrote to ``ev``
I_NACTS = 16  # actions recorded in ``actions`` since the game was dealt or loaded
I_NUGGETS = 17  # gold-nugget cards left in the supply (the first of ``nuggets``)
I_PREV_LAST = 18  # flat observation index of the LAST_PLACED entry written (-1: none)
I_NLEGAL = 19  # legal actions of the seat to act (the first of them listed in ``legal_index``)
I_RMIN = 20  # padded rows and columns spanned by the cards of the maze (a bounding box that
I_RMAX = 21  # only grows during a round: every empty cell next to a card lies within one
I_CMIN = 22  # cell of it)
I_CMAX = 23
I_PHASE = 24  # PH_* of the decision to take (engine.phases.Phase, in its order)
I_PHASE_COUNT = 25  # cards discarded so far in a pass / removal
I_PHASE_SLOT = 26  # front slot being removed (-1: none)
I_ASIDE_POS = 27  # the top of the dwarf cards aside (``set_aside[pos:len]``)
I_ASIDE_LEN = 28
I_REMOVED = 29  # cards removed unseen this round (RULES 6.6)
I_GOLD_FOUND = 30  # ROUND_SCORE: whether the gold was reached, and by whom (-1: nobody)
I_CONNECTOR = 31
I_THIEF = 32  # THEFT_DONE: the thief and his victim
I_VICTIM = 33
N_INTS = 34

# --- phases (engine.phases.Phase, in order) and action families (the order of
# phases.FAMILIES_OF_PHASE's union: a family's column of the ``phase_fams`` table) -----------
PH_TURN, PH_PASS, PH_REMOVE, PH_THEFT = 0, 1, 2, 3
F_PLACE, F_ROCKFALL, F_MAP, F_TOOL, F_DISCARD, F_XACTION, F_REMOVE, F_DONE, F_STEAL = range(9)
#: the family names of the F_* columns
FAMILY_COLUMNS = (
    "place",
    "rockfall",
    "map",
    "tool",
    "discard",
    "xaction",
    "remove",
    "done",
    "steal",
)
#: the verbs of the Saboteur 2 action cards (``cards.X_EFFECTS``) and who they may target
XV_PUT, XV_CLEAR, XV_SWAP_HAND, XV_INSPECTION, XV_SWAP_HATS = range(5)
X_VERBS = ("put", "clear", "swap_hand", "inspection", "swap_hats")
XW_SELF, XW_OTHER, XW_ANY = range(3)
X_WHO = ("self", "other", "any")
#: placement rows per word of a placement-row bit set: two words hold a ruleset's rows
#: (Saboteur 2 has 69, more than one int64 holds)
ROW_BITS = 63

#: legal actions listed per game (``legal_index``); a game with more has its mask cleared
#: whole at the next step and is sampled from its mask
MAX_LEGAL = 1024

# --- entries of the int64 parameter array ``P`` ---------------------------------------------
P_N = 0  # players
P_MP = 1  # max players (padding of seat axes)
P_K = 2  # hand card kinds
P_NCELLS = 3
P_W = 4  # window width
P_H = 5  # window height
P_X0 = 6  # window x_min
P_Y0 = 7  # window y_min
P_PLACE = 8  # offsets of the action blocks
P_ROCK = 9
P_MAP = 10
P_TOOL = 11
P_DISCARD = 12
P_ROCKFALL_KIND = 13
P_MAP_KIND = 14
P_SELF_SABOTAGE = 15
P_START_R = 16
P_START_C = 17
P_NUM_ROUNDS = 18
P_NT = 19  # recent types
P_TC = 20  # recent tool columns
P_RW = 21  # recent row width
P_OBS_HAND = 22  # observation offsets
P_OBS_ROLE = 23
P_OBS_PLAYERS = 24
P_OBS_PW = 25
P_OBS_HISTORY = 26
P_OBS_HW = 27
P_OBS_TOOLS = 28
P_OBS_RECENT = 29
P_OBS_GAME = 30
P_OBS_PRIVATE = 31
P_BOARD_SIZE = 32
P_GOLD = 33  # goal identity of the gold
P_DIGGER = 34  # role ids (cards.GOLD_DIGGER, cards.SABOTEUR)
P_SABOTEUR = 35
P_FORFEIT = 36  # broken_tool_forfeit
P_REWARD_GOLD = 37  # reward="gold" (else "win")
P_SAB_PAY = 38  # and the next 3: gold a saboteur gets with 1..4 saboteurs
P_TAKE = 42  # gold-nugget cards drawn when the gold is reached (scoring.nugget_cards_drawn)
P_EMPTY_BBOX = 43  # and the next 3: rows and columns spanned by a new maze
P_NW = 47  # words of a placement-row bit set in use (1 or 2; ROW_BITS rows a word)
P_XACTION = 48  # offsets of the Saboteur 2 action blocks (-1: not offered)
P_REMOVE = 49
P_DONE = 50
P_STEAL = 51
P_PASS_CARDS = 52  # most cards of a pass (Ruleset.pass_cards)
P_REMOVE_DISCARDS = 53  # cards discarded to remove one in front (Ruleset.remove_discards)
P_TRAPPED_KIND = 54  # kinds of the cards of the front slots trapped / theft (-1: none)
P_THEFT_KIND = 55
P_NUGGET_CARDS = 56  # the kernels pay the round (gold-nugget cards, RULES 5.2, 5.3); else
# the caller scores it (ROUND_SCORE)
P_XCH = 57  # board channels after the base game's (x_feat columns)
P_OBS_XPLAYERS = 58  # offsets of the Saboteur 2 views (-1: none) and their widths
P_OBS_XPW = 59
P_OBS_INSPECT = 60
P_NROLES = 61
P_OBS_XHIST = 62
P_OBS_PHASE = 63
P_GOLD_PUBLIC = 64  # who holds gold is public (Ruleset.public_gold_holders)
N_PARAMS = 65

# --- event codes of the records ``ev`` (B, MAX_EVENTS, 7) of each game's last decision: type,
# seat, visible_to, p0..p3 (the engine's events in order; a round end's come from the engine) --
EV_PATH_PLACED = 0  # p: kind, x, y, variant
EV_GOAL_REVEALED = 1  # p: goal, identity, rotated
EV_CARD_DRAWN = 2  # p: kind (private)
EV_ROCKFALL = 3  # p: x, y, variant, kind
EV_MAP_PLAYED = 4  # p: goal
EV_MAP_RESULT = 5  # p: goal, identity (private)
EV_TOOL_BROKEN = 6  # p: kind, target, tool
EV_TOOL_REPAIRED = 7  # p: kind, target, tool
EV_DISCARDED = 8  # no payload
EV_DISCARDED_CARD = 9  # p: kind (private)
EV_ACTION_PLAYED = 10  # p: kind, target
EV_INSPECTION_RESULT = 11  # p: target, role (private)
EV_ROLE_SWAPPED = 12  # role_dealt with swapped=True; p: role (private)
EV_REMOVE_STARTED = 13  # p: slot
EV_FRONT_REMOVED = 14  # p: slot, kind
EV_PASS_DONE = 15  # p: discarded, done
EV_THEFT = 16  # p: target
#: the most events one decision writes (the last card of a pass: the discard, its card, the
#: pass's end and three draws)
MAX_EVENTS = 6

# --- the observation's columns and the history's, as plain ints from the spec's names (the
# compiled code reads globals as constants) ---------------------------------------------------
R_PLACE, R_BREAK, R_REPAIR = int(RecentType.PLACE), int(RecentType.BREAK), int(RecentType.REPAIR)
R_ROCKFALL, R_MAP = int(RecentType.ROCKFALL), int(RecentType.MAP)
R_DISCARD = int(RecentType.DISCARD)
R_X0 = int(RecentType.THEFT)  # the first Saboteur 2 action card's type (X_EFFECTS order)
R_REMOVE, R_STEAL = int(RecentType.REMOVE), int(RecentType.STEAL)
H_THROUGH, H_DEAD = int(HistoryColumn.PLACED_THROUGH), int(HistoryColumn.PLACED_DEAD_END)
H_ROCKFALLS, H_MAPS = int(HistoryColumn.ROCKFALLS), int(HistoryColumn.MAPS)
H_DISCARDS = int(HistoryColumn.DISCARDS)
#: a ``recent`` ring entry: actor, type, target, x, y, tool, dead end, present
RECENT_FIELDS = 8
C_OPEN = int(BoardChannel.OPEN_N)  # OPEN_N..OPEN_W then CONN_N..CONN_W: the card's byte, bit b
C_THROUGH, C_OCCUPIED = int(BoardChannel.THROUGH), int(BoardChannel.OCCUPIED)
C_START, C_GOAL_HIDDEN = int(BoardChannel.START), int(BoardChannel.GOAL_HIDDEN)
C_GOLD_REVEALED = int(BoardChannel.GOAL_GOLD_REVEALED)
C_STONE_REVEALED = int(BoardChannel.GOAL_STONE_REVEALED)
C_KNOWN_GOLD, C_KNOWN_STONE = int(BoardChannel.KNOWN_GOLD), int(BoardChannel.KNOWN_STONE)
C_LAST_PLACED = int(BoardChannel.LAST_PLACED)
PF_PRESENT, PF_TO_ACT = int(PlayerFeature.PRESENT), int(PlayerFeature.TO_ACT)
PF_BROKEN = int(PlayerFeature.BROKEN_PICK)  # pick, lantern, cart: three columns in tool order
PF_HAND_SIZE, PF_LAST_CARD = int(PlayerFeature.HAND_SIZE), int(PlayerFeature.LAST_CARD)
PF_FIRST = int(PlayerFeature.FIRST_PLAYER)
G_ROUND, G_NUM_ROUNDS = int(GameFeature.ROUND), int(GameFeature.NUM_ROUNDS)
G_DRAW_PILE, G_DISCARD_PILE = int(GameFeature.DRAW_PILE), int(GameFeature.DISCARD_PILE)
G_TURN, G_NUM_PLAYERS = int(GameFeature.TURN), int(GameFeature.NUM_PLAYERS)
G_PATHS = int(GameFeature.PATH_CARDS_IN_MAZE)
PR_GOLD, PR_SEAT = int(PrivateFeature.GOLD), int(PrivateFeature.SEAT)
XP_TRAPPED, XP_THEFT = int(XPlayerFeature.TRAPPED), int(XPlayerFeature.THEFT)
XP_ORDER, XP_HAS_GOLD = int(XPlayerFeature.THEFT_ORDER), int(XPlayerFeature.HAS_GOLD)
PF_COUNT, PF_REMOVE0 = int(PhaseFeature.COUNT), int(PhaseFeature.REMOVE_PICK)
PF_ASIDE, PF_REMOVED = int(PhaseFeature.DWARF_ASIDE), int(PhaseFeature.REMOVED)
# the runs the loops write by offset: a card's eight opening and connection channels, in the
# bit order of its byte ``opn | conn << 4``, and the three broken-tool columns
_RUNS = (
    ([BoardChannel[f"{w}_{d}"] for w in ("OPEN", "CONN") for d in "NESW"], C_OPEN),
    (
        [PlayerFeature.BROKEN_PICK, PlayerFeature.BROKEN_LANTERN, PlayerFeature.BROKEN_CART],
        PF_BROKEN,
    ),
)
_RUNS += (
    ([PhaseFeature.TURN, PhaseFeature.PASS, PhaseFeature.REMOVE, PhaseFeature.THEFT], 0),
    ([RecentType[e.upper()] for e in X_EFFECTS], R_X0),
)
if [p.name for p in Phase] != ["TURN", "PASS", "REMOVE", "THEFT"]:
    raise AssertionError("the engine's phases are not PH_TURN .. PH_THEFT in order")
if (FRONT_TRAPPED, FRONT_THEFT) != (3, 4):
    raise AssertionError("the front slots are not the three tools, then trapped and theft")
for _run, _first in _RUNS:
    if [int(m) for m in _run] != list(range(_first, _first + len(_run))):
        raise AssertionError(f"the spec's {_run} are not consecutive: the kernels write them so")


# --- the state arrays (tuple ``S``) and tables (tuple ``T``) the kernels take, by name ----
#: names of the state arrays of :class:`~saboteur_env.vector.arrays.ArrayGames`, in ``S`` order
STATE = (
    "ints",
    "var",
    "opn",
    "reached",
    "conn",
    "goal_identity",
    "goal_revealed",
    "hands",
    "deck",
    "discards",
    "secret_discards",
    "broken",
    "known_goals",
    "broken_kind",
    "actor_counts",
    "tool_counts",
    "recent",
    "roles",
    "gold",
    "nuggets",
    "deal_roles",
    "deal_goals",
    "deal_hands",
    "deal_deck",
    "deal_deck_len",
    "actions",
    "xfront",
    "theft_turn",
    "inspected",
    "xcounts",
    "set_aside",
    "deal_aside",
    "deal_aside_len",
    "deal_removed",
)
S_INTS = 0
S_VAR = 1
S_OPN = 2
S_REACHED = 3
S_CONN = 4
S_GOAL_IDENTITY = 5
S_GOAL_REVEALED = 6
S_HANDS = 7
S_DECK = 8
S_DISCARDS = 9
S_SECRET_DISCARDS = 10
S_BROKEN = 11
S_KNOWN_GOALS = 12
S_BROKEN_KIND = 13
S_ACTOR_COUNTS = 14
S_TOOL_COUNTS = 15
S_RECENT = 16
S_ROLES = 17
S_GOLD = 18
S_NUGGETS = 19
S_DEAL_ROLES = 20
S_DEAL_GOALS = 21
S_DEAL_HANDS = 22
S_DEAL_DECK = 23
S_DEAL_DECK_LEN = 24
S_ACTIONS = 25
S_XFRONT = 26
S_THEFT_TURN = 27
S_INSPECTED = 28
S_XCOUNTS = 29
S_SET_ASIDE = 30
S_DEAL_ASIDE = 31
S_DEAL_ASIDE_LEN = 32
S_DEAL_REMOVED = 33
#: names of the tables :func:`~saboteur_env.vector.arrays.tables` builds, in ``T`` order
TABLES = (
    "v_open",
    "v_seg",
    "v_stub",
    "v_sos",
    "v_root",
    "v_rot",
    "goal_var",
    "goal_rc",
    "v_kind",
    "row_var",
    "kind_dead",
    "tool_kind",
    "tool_tool",
    "tool_break",
    "v_through",
    "fit_bits",
    "lut",
    "goal_adj",
    "empty_var",
    "empty_opn",
    "empty_reached",
    "empty_conn",
    "phase_fams",
    "x_kind",
    "x_verb",
    "x_slot",
    "x_who",
    "x_feat",
)
T_V_OPEN = 0
T_V_SEG = 1
T_V_STUB = 2
T_V_SOS = 3
T_V_ROOT = 4
T_V_ROT = 5
T_GOAL_VAR = 6
T_GOAL_RC = 7
T_V_KIND = 8
T_ROW_VAR = 9
T_KIND_DEAD = 10
T_TOOL_KIND = 11
T_TOOL_TOOL = 12
T_TOOL_BREAK = 13
T_V_THROUGH = 14
T_FIT_BITS = 15
T_LUT = 16
T_GOAL_ADJ = 17
T_EMPTY_VAR = 18
T_EMPTY_OPN = 19
T_EMPTY_REACHED = 20
T_EMPTY_CONN = 21
T_PHASE_FAMS = 22
T_X_KIND = 23
T_X_VERB = 24
T_X_SLOT = 25
T_X_WHO = 26
T_X_FEAT = 27
for _names, _prefix in ((STATE, "S_"), (TABLES, "T_")):  # one index per name, in order
    if [globals()[_prefix + n.upper()] for n in _names] != list(range(len(_names))):
        raise AssertionError(f"the {_prefix}* indexes disagree with their names")

#: this module's compiled loops (saboteur_env.compiled)
_KERNELS = Kernels(globals(), __name__, refcount=False)
_kernel = _KERNELS.register


step: Any
step_one: Any
start: Any
deal_next: Any
refresh: Any
sample: Any
# the kernels' calls of each other (bound to the compiled functions by Kernels.compile_all)
propagate: Any
goal_rotated: Any
place: Any
reconnect: Any
event: Any
add_recent: Any
apply: Any
encode: Any
legal: Any
board_cell: Any
seat_rel: Any
seat_abs: Any
allow: Any
finish_round: Any
pay: Any
deal: Any
draw: Any
next_seat: Any
finish_pass: Any
finish_remove: Any
encode_x: Any


def __getattr__(name: str) -> Any:
    return _KERNELS.lookup(name)


# side b = 0 N, 1 E, 2 S, 3 W: the neighbour's row and column offsets and the side bit it
# faces back with (cards.SIDE_DELTA, cards.FACING)
_DR = np.array([dy for _, dy in SIDE_DELTA], dtype=np.int64)
_DC = np.array([dx for dx, _ in SIDE_DELTA], dtype=np.int64)
_FACING = np.array(FACING, dtype=np.int64)


@_kernel
def _py_propagate(var, reached, conn, st, sp, T, chg):
    """Mark the segments reachable from the ``sp`` seeds on the stack ``st`` ((row, col,
    segment) rows) as ``Board._propagate`` does (RULES 4.1); each cell it changes is appended
    to ``chg`` (``chg[0]``: the count, then flat padded cells)."""
    v_seg, v_stub, v_sos = T[T_V_SEG], T[T_V_STUB], T[T_V_SOS]
    C = var.shape[1]
    while sp > 0:
        sp -= 1
        r, c, s = st[sp, 0], st[sp, 1], st[sp, 2]
        bit = 1 << s
        if reached[r, c] & bit:
            continue
        reached[r, c] |= bit
        chg[0] += 1
        chg[chg[0]] = r * C + c
        v = var[r, c]
        seg = v_seg[v, s]
        if not v_stub[v, s]:
            conn[r, c] |= seg & 15
        for b in range(4):
            if not seg & (1 << b):
                continue
            nr, nc = r + _DR[b], c + _DC[b]
            nv = var[nr, nc]
            if nv < 0:
                continue
            t = v_sos[nv, (b + 2) & 3]
            if t >= 0 and not reached[nr, nc] & (1 << t):
                st[sp, 0], st[sp, 1], st[sp, 2] = nr, nc, t
                sp += 1


@_kernel
def _py_goal_rotated(var, opn, ident, r, c, sides, T, P):
    """RULES 4.2 orientation ruling (``Board._goal_orientation``): open towards a reaching
    side; if both orientations do, fewest mismatched edges, then 0 degrees."""
    v_open, goal_var = T[T_V_OPEN], T[T_GOAL_VAR]
    if ident == P[P_GOLD]:
        return 0
    best_m, best_rot = 99, 0
    for rot in range(2):
        v = goal_var[ident, rot]
        if not v_open[v] & sides:
            continue
        m = 0
        for b in range(4):
            nv = var[r + _DR[b], c + _DC[b]]
            if nv >= 0:
                has = (opn[r + _DR[b], c + _DC[b]] & _FACING[b]) != 0
                m += has != ((v_open[v] & (1 << b)) != 0)
        if m < best_m:
            best_m, best_rot = m, rot
    return best_rot


@_kernel
def _py_place(b, variant, r, c, S, T, P, st, ev, chg):
    """Lay ``variant`` at padded (r, c), connect it and turn over every goal it connects,
    wave by wave (``Board.place``, RULES 3.1, 4.2); each reveal is written to ``ev``.
    Returns whether the gold was turned over."""
    ints = S[S_INTS]
    var = S[S_VAR]
    opn = S[S_OPN]
    reached = S[S_REACHED]
    conn = S[S_CONN]
    goal_id = S[S_GOAL_IDENTITY]
    goal_rev = S[S_GOAL_REVEALED]
    known = S[S_KNOWN_GOALS]
    v_open = T[T_V_OPEN]
    v_sos = T[T_V_SOS]
    v_root = T[T_V_ROOT]
    goal_var = T[T_GOAL_VAR]
    goal_rc = T[T_GOAL_RC]
    v_rot = T[T_V_ROT]
    vb, ob, rb, cb = var[b], opn[b], reached[b], conn[b]
    vb[r, c] = variant
    ob[r, c] = v_open[variant]
    C = vb.shape[1]
    chg[0] += 1
    chg[chg[0]] = r * C + c
    sp = 0
    for s in range(4):
        if v_open[variant] & (1 << s):
            if cb[r + _DR[s], c + _DC[s]] & _FACING[s]:
                st[sp, 0], st[sp, 1], st[sp, 2] = r, c, v_sos[variant, s]
                sp += 1
    for i in range(4):
        if v_root[variant, i]:
            st[sp, 0], st[sp, 1], st[sp, 2] = r, c, i
            sp += 1
    propagate(vb, rb, cb, st, sp, T, chg)
    gold = False
    n = P[P_N]
    # sides reaching each goal of this wave (0: none), kept in the stack's last row (no
    # allocation here): written and read only between propagations, while the stack is empty
    wave = st[st.shape[0] - 1]
    while True:
        any_goal = False
        for slot in range(3):
            wave[slot] = 0
            if goal_rev[b, slot]:
                continue
            gr, gc = goal_rc[slot, 0], goal_rc[slot, 1]
            sides = 0
            for s in range(4):
                if cb[gr + _DR[s], gc + _DC[s]] & _FACING[s]:
                    sides |= 1 << s
            if sides:
                wave[slot] = sides
                any_goal = True
        if not any_goal:
            return gold
        for slot in range(3):
            if wave[slot] == 0:
                continue
            gr, gc = goal_rc[slot, 0], goal_rc[slot, 1]
            ident = goal_id[b, slot]
            rot = goal_rotated(vb, ob, ident, gr, gc, wave[slot], T, P)
            gv = goal_var[ident, rot]
            vb[gr, gc] = gv
            ob[gr, gc] = v_open[gv]
            chg[0] += 1
            chg[chg[0]] = gr * C + gc
            goal_rev[b, slot] = True
            for s in range(n):
                known[b, s, slot] = True
            event(ev, ints, b, EV_GOAL_REVEALED, ints[b, I_CURRENT], -1, slot, ident, v_rot[gv], 0)
            gold |= ident == P[P_GOLD]
        sp = 0
        for slot in range(3):
            if wave[slot] == 0:
                continue
            gr, gc = goal_rc[slot, 0], goal_rc[slot, 1]
            gv = vb[gr, gc]
            for s in range(4):
                if wave[slot] & (1 << s) and v_open[gv] & (1 << s):
                    st[sp, 0], st[sp, 1], st[sp, 2] = gr, gc, v_sos[gv, s]
                    sp += 1
        propagate(vb, rb, cb, st, sp, T, chg)


@_kernel
def _py_reconnect(b, S, T, P, st, chg):
    """``Board.recompute_connectivity``: connectivity from the start and every ladder segment
    anew (after a rockfall, RULES 3.4)."""
    var, reached, conn = S[S_VAR][b], S[S_REACHED][b], S[S_CONN][b]
    v_root = T[T_V_ROOT]
    reached[:] = 0
    conn[:] = 0
    st[0, 0], st[0, 1], st[0, 2] = P[P_START_R], P[P_START_C], 0
    sp = 1
    R, C = var.shape
    for r in range(R):
        for c in range(C):
            v = var[r, c]
            if v >= 0:
                for i in range(4):
                    if v_root[v, i]:
                        st[sp, 0], st[sp, 1], st[sp, 2] = r, c, i
                        sp += 1
    propagate(var, reached, conn, st, sp, T, chg)


@_kernel
def _py_event(ev, ints, b, typ, seat, vis, p0, p1, p2, p3):
    """Append one record to game ``b``'s events of this step, ``ev[b]``."""
    k = ints[b, I_NEV]
    ev[b, k, 0], ev[b, k, 1], ev[b, k, 2] = typ, seat, vis
    ev[b, k, 3], ev[b, k, 4], ev[b, k, 5], ev[b, k, 6] = p0, p1, p2, p3
    ints[b, I_NEV] = k + 1


@_kernel
def _py_add_recent(recent, ints, b, actor, typ, target, x, y, tool, dead):
    """``RoundHistory.add``: the action numbered ``added`` goes to ring row ``added % 8``."""
    q = ints[b, I_ADDED] % N_RECENT
    recent[b, q, 0], recent[b, q, 1], recent[b, q, 2] = actor, typ, target
    recent[b, q, 3], recent[b, q, 4], recent[b, q, 5] = x, y, tool
    recent[b, q, 6], recent[b, q, 7] = dead, 1
    ints[b, I_ADDED] += 1


@_kernel
def _py_apply(b, a, S, T, P, st, ev, chg):
    """Play flat action ``a`` (legal: taken from this state's mask) for the seat to act of
    game ``b``: the action family's effect, then the draw and the next seat (RULES 3.1-3.7,
    5.1, 6.5, 6.7, 6.9).  Returns CONTINUE (also within a pass or a removal, the same seat to
    act), GOLD_FOUND, HANDS_EMPTY or, after a thief's theft, THEFT_DONE."""
    ints = S[S_INTS]
    hands = S[S_HANDS]
    discards = S[S_DISCARDS]
    secret = S[S_SECRET_DISCARDS]
    broken = S[S_BROKEN]
    broken_kind = S[S_BROKEN_KIND]
    actor_counts = S[S_ACTOR_COUNTS]
    tool_counts = S[S_TOOL_COUNTS]
    recent = S[S_RECENT]
    var = S[S_VAR]
    v_kind, row_var, kind_dead, tool_kind, tool_tool, tool_break, goal_rc = (
        T[T_V_KIND],
        T[T_ROW_VAR],
        T[T_KIND_DEAD],
        T[T_TOOL_KIND],
        T[T_TOOL_TOOL],
        T[T_TOOL_BREAK],
        T[T_GOAL_RC],
    )
    n, mp, W, ncells = P[P_N], P[P_MP], P[P_W], P[P_NCELLS]
    x0, y0 = P[P_X0], P[P_Y0]
    s = ints[b, I_CURRENT]
    ints[b, I_NEV] = 0
    ints[b, I_DECISIONS] += 1
    if ints[b, I_PHASE] == PH_TURN:  # Game.begin_decision: a turn's first decision
        ints[b, I_TURN] += 1
        ints[b, I_LAST_CARD] = s
    drawer = s
    if a < P[P_ROCK]:  # place (RULES 3.1)
        i = a - P[P_PLACE]
        row, cell = i // ncells, i % ncells
        variant = row_var[row]
        k = v_kind[variant]
        hands[b, s, k] -= 1
        r, c = cell // W + 2, cell % W + 2
        x, y = cell % W + x0, cell // W + y0
        event(ev, ints, b, EV_PATH_PLACED, s, -1, k, x, y, variant)
        dead = kind_dead[k]
        actor_counts[b, s, H_DEAD if dead else H_THROUGH] += 1
        add_recent(recent, ints, b, s, R_PLACE, -1, x, y, -1, 1 if dead else 0)
        ints[b, I_LAST_R], ints[b, I_LAST_C] = r, c
        ints[b, I_PATHS] += 1
        ints[b, I_RMIN] = min(ints[b, I_RMIN], r)
        ints[b, I_RMAX] = max(ints[b, I_RMAX], r)
        ints[b, I_CMIN] = min(ints[b, I_CMIN], c)
        ints[b, I_CMAX] = max(ints[b, I_CMAX], c)
        if place(b, variant, r, c, S, T, P, st, ev, chg):
            return GOLD_FOUND
    elif a < P[P_MAP]:  # rockfall (RULES 3.4)
        cell = a - P[P_ROCK]
        rk = P[P_ROCKFALL_KIND]
        hands[b, s, rk] -= 1
        r, c = cell // W + 2, cell % W + 2
        x, y = cell % W + x0, cell // W + y0
        removed = var[b, r, c]
        var[b, r, c] = EMPTY
        S[S_OPN][b, r, c] = 0
        # the connections before, kept in the upper half of chg (the reconnection lists at
        # most four segments a cell in the lower half; no allocation here)
        conn = S[S_CONN][b]
        R, C = conn.shape
        before = chg[chg.shape[0] // 2 :]
        for rr in range(R):
            for cc in range(C):
                before[rr * C + cc] = conn[rr, cc]
        reconnect(b, S, T, P, st, chg)
        # the observation's board changes at this cell and where the connections changed
        chg[0] = 1
        chg[1] = r * C + c
        for rr in range(conn.shape[0]):
            for cc in range(C):
                if conn[rr, cc] != before[rr * C + cc]:
                    chg[0] += 1
                    chg[chg[0]] = rr * C + cc
        discards[b, rk] += 1
        discards[b, v_kind[removed]] += 1
        event(ev, ints, b, EV_ROCKFALL, s, -1, x, y, removed, v_kind[removed])
        actor_counts[b, s, H_ROCKFALLS] += 1
        add_recent(recent, ints, b, s, R_ROCKFALL, -1, x, y, -1, 0)
        if ints[b, I_LAST_R] == r and ints[b, I_LAST_C] == c:
            ints[b, I_LAST_R], ints[b, I_LAST_C] = -1, -1
        ints[b, I_PATHS] -= 1
    elif a < P[P_TOOL]:  # map (RULES 3.5)
        g = a - P[P_MAP]
        mk = P[P_MAP_KIND]
        hands[b, s, mk] -= 1
        discards[b, mk] += 1
        S[S_KNOWN_GOALS][b, s, g] = True
        event(ev, ints, b, EV_MAP_PLAYED, s, -1, g, 0, 0, 0)
        event(ev, ints, b, EV_MAP_RESULT, s, s, g, S[S_GOAL_IDENTITY][b, g], 0, 0)
        actor_counts[b, s, H_MAPS] += 1
        gx, gy = goal_rc[g, 1] - 2 + x0, goal_rc[g, 0] - 2 + y0
        add_recent(recent, ints, b, s, R_MAP, -1, gx, gy, -1, 0)
    elif a < P[P_DISCARD]:  # broken tool / repair (RULES 3.2, 3.3)
        i = a - P[P_TOOL]
        tr, rel = i // mp, i % mp
        k, tool = tool_kind[tr], tool_tool[tr]
        t = seat_abs(s, rel, n)
        hands[b, s, k] -= 1
        if tool_break[tr]:
            broken[b, t, tool] = True
            broken_kind[b, t, tool] = k
            event(ev, ints, b, EV_TOOL_BROKEN, s, -1, k, t, tool, 0)
            tool_counts[b, s, t, 0] += 1
            add_recent(recent, ints, b, s, R_BREAK, t, 0, 0, tool, 0)
        else:
            discards[b, k] += 1
            discards[b, broken_kind[b, t, tool]] += 1
            broken[b, t, tool] = False
            broken_kind[b, t, tool] = -1
            event(ev, ints, b, EV_TOOL_REPAIRED, s, -1, k, t, tool, 0)
            tool_counts[b, s, t, 1] += 1
            add_recent(recent, ints, b, s, R_REPAIR, t, 0, 0, tool, 0)
    elif P[P_XACTION] < 0 or a < P[P_XACTION]:  # discard (RULES 3.6, 6.7)
        k = a - P[P_DISCARD]
        hands[b, s, k] -= 1
        discards[b, k] += 1
        secret[b, s, k] += 1
        event(ev, ints, b, EV_DISCARDED, s, -1, 0, 0, 0, 0)
        event(ev, ints, b, EV_DISCARDED_CARD, s, s, k, 0, 0, 0)
        actor_counts[b, s, H_DISCARDS] += 1
        add_recent(recent, ints, b, s, R_DISCARD, -1, 0, 0, -1, 0)
        phase = ints[b, I_PHASE]
        if phase == PH_REMOVE:  # a card paid for a removal (RULES 6.7 option 3)
            ints[b, I_PHASE_COUNT] += 1
            if ints[b, I_PHASE_COUNT] == P[P_REMOVE_DISCARDS]:
                return finish_remove(b, s, S, T, P, ev)
            return CONTINUE
        if phase == PH_TURN and P[P_PASS_CARDS] > 1:  # a pass of several cards begins
            ints[b, I_PHASE] = phase = PH_PASS
            ints[b, I_PHASE_COUNT] = 0
        if phase == PH_PASS:  # RULES 6.7 option 4: ended by the last card allowed or held
            ints[b, I_PHASE_COUNT] += 1
            empty = True
            for kk in range(P[P_K]):
                if hands[b, s, kk]:
                    empty = False
            if ints[b, I_PHASE_COUNT] == P[P_PASS_CARDS] or empty:
                return finish_pass(b, s, 0, S, P, ev)
            return CONTINUE
    elif a < P[P_REMOVE]:  # a Saboteur 2 action card on a player (RULES 6.5, 7.20, 7.21)
        i = a - P[P_XACTION]
        row, rel = i // mp, i % mp
        k = T[T_X_KIND][row]
        verb, slot = T[T_X_VERB][row], T[T_X_SLOT][row]
        t = seat_abs(s, rel, n)
        xfront = S[S_XFRONT]
        hands[b, s, k] -= 1
        event(ev, ints, b, EV_ACTION_PLAYED, s, -1, k, t, 0, 0)
        S[S_XCOUNTS][b, s, t, row] += 1
        add_recent(recent, ints, b, s, R_X0 + row, t, 0, 0, -1, 0)
        # xfront's columns are the front slots after the three tools: trapped, theft
        if verb == XV_PUT:
            xfront[b, t, slot - FRONT_TRAPPED] = True
            if slot == FRONT_THEFT:  # its decision orders the thefts (RULES 6.9)
                S[S_THEFT_TURN][b, t] = ints[b, I_DECISIONS]
        elif verb == XV_CLEAR:
            discards[b, P[P_TRAPPED_KIND] if slot == FRONT_TRAPPED else P[P_THEFT_KIND]] += 1
            discards[b, k] += 1
            xfront[b, t, slot - FRONT_TRAPPED] = False
            if slot == FRONT_THEFT:
                S[S_THEFT_TURN][b, t] = -1
        else:
            discards[b, k] += 1
            if verb == XV_SWAP_HAND:  # the target draws instead (RULES 7.20)
                for kk in range(P[P_K]):
                    hands[b, s, kk], hands[b, t, kk] = hands[b, t, kk], hands[b, s, kk]
                drawer = t
            elif verb == XV_INSPECTION:
                role = S[S_ROLES][b, t]
                S[S_INSPECTED][b, s, t] = role
                event(ev, ints, b, EV_INSPECTION_RESULT, s, s, t, role, 0, 0)
            else:  # Swap your hats: the top dwarf card aside (RULES 7.21)
                q = ints[b, I_ASIDE_POS]
                S[S_ROLES][b, t] = S[S_SET_ASIDE][b, q]
                ints[b, I_ASIDE_POS] = q + 1
                event(ev, ints, b, EV_ROLE_SWAPPED, t, t, S[S_ROLES][b, t], 0, 0, 0)
    elif a < P[P_DONE]:  # choose a card in front to remove; the discards follow (RULES 6.7)
        slot = a - P[P_REMOVE]
        ints[b, I_PHASE] = PH_REMOVE
        ints[b, I_PHASE_COUNT] = 0
        ints[b, I_PHASE_SLOT] = slot
        event(ev, ints, b, EV_REMOVE_STARTED, s, -1, slot, 0, 0, 0)
        return CONTINUE
    elif a < P[P_STEAL]:  # end a pass (RULES 6.7 option 4)
        return finish_pass(b, s, 1, S, P, ev)
    else:  # a thief takes 1 gold (RULES 6.9); the caller goes on with the thefts
        t = seat_abs(s, a - P[P_STEAL], n)
        gold = S[S_GOLD]
        gold[b, t] -= 1
        gold[b, s] += 1
        event(ev, ints, b, EV_THEFT, s, -1, t, 0, 0, 0)
        add_recent(recent, ints, b, s, R_STEAL, t, 0, 0, -1, 0)
        ints[b, I_THIEF], ints[b, I_VICTIM] = s, t
        return THEFT_DONE
    # end of the turn: draw one card if the pile has one (RULES 3.7), then the next seat that
    # holds cards; none: the round is over (RULES 5.1)
    draw(b, drawer, 1, S, ev)
    return next_seat(b, s, S, P)


@_kernel
def _py_draw(b, seat, count, S, ev):
    """``seat`` draws up to ``count`` cards, as far as the pile allows (``turn.draw``,
    RULES 3.7, 6.7)."""
    ints, deck, hands = S[S_INTS], S[S_DECK], S[S_HANDS]
    for _ in range(count):
        pos = ints[b, I_DECK_POS]
        if pos >= ints[b, I_DECK_LEN]:
            return
        k = deck[b, pos]
        ints[b, I_DECK_POS] = pos + 1
        hands[b, seat, k] += 1
        event(ev, ints, b, EV_CARD_DRAWN, seat, seat, k, 0, 0, 0)


@_kernel
def _py_next_seat(b, s, S, P):
    """The next seat after ``s`` that holds cards is to act (``turn.next_seat``); none:
    HANDS_EMPTY (RULES 5.1), else CONTINUE."""
    ints, hands = S[S_INTS], S[S_HANDS]
    n, K = P[P_N], P[P_K]
    for i in range(1, n + 1):
        s2 = seat_abs(s, i, n)
        for k in range(K):
            if hands[b, s2, k]:
                ints[b, I_CURRENT] = s2
                return CONTINUE
    return HANDS_EMPTY


@_kernel
def _py_finish_pass(b, s, explicit, S, P, ev):
    """End a pass of several cards: draw as many as were discarded (``discard.finish_pass``,
    RULES 6.7 option 4)."""
    ints = S[S_INTS]
    k = ints[b, I_PHASE_COUNT]
    ints[b, I_PHASE] = PH_TURN
    ints[b, I_PHASE_COUNT] = 0
    event(ev, ints, b, EV_PASS_DONE, s, -1, k, explicit, 0, 0)
    draw(b, s, k, S, ev)
    return next_seat(b, s, S, P)


@_kernel
def _py_finish_remove(b, s, S, T, P, ev):
    """After the discards that pay for it, the card in front goes to the discard pile and the
    seat draws one card (``remove.finish_remove``, RULES 6.7 option 3)."""
    ints = S[S_INTS]
    slot = ints[b, I_PHASE_SLOT]
    if slot < FRONT_TRAPPED:  # a broken tool
        k = S[S_BROKEN_KIND][b, s, slot]
        S[S_BROKEN][b, s, slot] = False
        S[S_BROKEN_KIND][b, s, slot] = -1
    else:
        k = P[P_TRAPPED_KIND] if slot == FRONT_TRAPPED else P[P_THEFT_KIND]
        S[S_XFRONT][b, s, slot - FRONT_TRAPPED] = False
        if slot == FRONT_THEFT:
            S[S_THEFT_TURN][b, s] = -1
    S[S_DISCARDS][b, k] += 1
    event(ev, ints, b, EV_FRONT_REMOVED, s, -1, slot, k, 0, 0)
    add_recent(S[S_RECENT], ints, b, s, R_REMOVE, s, 0, 0, slot, 0)
    ints[b, I_PHASE] = PH_TURN
    ints[b, I_PHASE_COUNT] = 0
    ints[b, I_PHASE_SLOT] = -1
    draw(b, s, 1, S, ev)
    return next_seat(b, s, S, P)


@_kernel
def _py_seat_rel(a, seat, n):
    """Seat ``a`` relative to ``seat``, ``(a - seat) % n`` for seats in ``0..n-1``, without a
    division (the observation's per-seat rows are relative, DESIGN 4)."""
    d = a - seat
    return d + n if d < 0 else d


@_kernel
def _py_seat_abs(seat, rel, n):
    """The seat ``rel`` places after ``seat`` (``0 <= rel <= n``), ``(seat + rel) % n``
    without a division (the tool rows' target, the next seat)."""
    t = seat + rel
    return t - n if t >= n else t


@_kernel
def _py_board_cell(o, b, r, c, S, T, P):
    """The public board channels (OPEN_N .. GOAL_STONE_REVEALED) of padded cell (r, c)."""
    var, opn, conn, goal_id = S[S_VAR], S[S_OPN], S[S_CONN], S[S_GOAL_IDENTITY]
    v_through, goal_rc = T[T_V_THROUGH], T[T_GOAL_RC]
    W, H = P[P_W], P[P_H]
    if r < 2 or c < 2 or r >= H + 2 or c >= W + 2:
        return
    hw = H * W
    f = (r - 2) * W + c - 2
    v = var[b, r, c]
    byte = np.int64(opn[b, r, c]) | (np.int64(conn[b, r, c]) << 4)
    for ch in range(8):
        o[(C_OPEN + ch) * hw + f] = (byte >> ch) & 1
    o[C_THROUGH * hw + f] = v_through[v] if v >= 0 else 0.0
    o[C_OCCUPIED * hw + f] = 1.0 if v != EMPTY else 0.0
    o[C_START * hw + f] = 1.0 if r == P[P_START_R] and c == P[P_START_C] else 0.0
    o[C_GOAL_HIDDEN * hw + f] = 0.0
    o[C_GOLD_REVEALED * hw + f] = 0.0
    o[C_STONE_REVEALED * hw + f] = 0.0
    for slot in range(3):
        if goal_rc[slot, 0] == r and goal_rc[slot, 1] == c:
            if v == HIDDEN_GOAL:
                o[C_GOAL_HIDDEN * hw + f] = 1.0
            elif goal_id[b, slot] == P[P_GOLD]:
                o[C_GOLD_REVEALED * hw + f] = 1.0
            else:
                o[C_STONE_REVEALED * hw + f] = 1.0
    x_feat = T[T_X_FEAT]
    for j in range(P[P_XCH]):  # Saboteur 2: ladder, doors, crystal, joins (RULES 6.3)
        o[(C_LAST_PLACED + 1 + j) * hw + f] = x_feat[v, j] if v >= 0 else 0.0


@_kernel
def _py_encode(b, S, T, P, obs, chg):
    """Write the observation of game ``b``'s seat to act into ``obs[b]``, equal to
    ``ObservationEncoder.encode`` (DESIGN 4).  The public board channels are rewritten whole
    after a deal or a load (``I_DIRTY``), else only at the cells the last decision changed
    (``chg``: a placement's cell and the cells it connected, a rockfall's cell and the cells
    whose connections it changed); then the seat's own parts."""
    ints, goal_id, hands, discards = S[S_INTS], S[S_GOAL_IDENTITY], S[S_HANDS], S[S_DISCARDS]
    known, roles, gold, broken = S[S_KNOWN_GOALS], S[S_ROLES], S[S_GOLD], S[S_BROKEN]
    actor_counts, tool_counts, recent = S[S_ACTOR_COUNTS], S[S_TOOL_COUNTS], S[S_RECENT]
    goal_rc = T[T_GOAL_RC]
    o = obs[b]
    n, mp, W, H = P[P_N], P[P_MP], P[P_W], P[P_H]
    hw = H * W
    C = W + 4
    seat = ints[b, I_CURRENT]
    if ints[b, I_DIRTY]:
        ints[b, I_DIRTY] = 0
        o[: P[P_BOARD_SIZE]] = 0.0
        for r in range(2, H + 2):
            for c in range(2, W + 2):
                board_cell(o, b, r, c, S, T, P)
        ints[b, I_PREV_LAST] = -1
    else:
        for j in range(1, chg[0] + 1):
            board_cell(o, b, chg[j] // C, chg[j] % C, S, T, P)
    # the seat's own board channels: known goals, and the last path card placed
    for slot in range(3):
        f = (goal_rc[slot, 0] - 2) * W + goal_rc[slot, 1] - 2
        o[C_KNOWN_GOLD * hw + f] = 0.0
        o[C_KNOWN_STONE * hw + f] = 0.0
        if known[b, seat, slot]:
            o[(C_KNOWN_GOLD if goal_id[b, slot] == P[P_GOLD] else C_KNOWN_STONE) * hw + f] = 1.0
    if ints[b, I_PREV_LAST] >= 0:
        o[ints[b, I_PREV_LAST]] = 0.0
        ints[b, I_PREV_LAST] = -1
    if ints[b, I_LAST_R] >= 0:
        f = C_LAST_PLACED * hw + (ints[b, I_LAST_R] - 2) * W + ints[b, I_LAST_C] - 2
        o[f] = 1.0
        ints[b, I_PREV_LAST] = f
    o[P[P_BOARD_SIZE] :] = 0.0
    K = P[P_K]
    for k in range(K):
        o[P[P_OBS_HAND] + k] = hands[b, seat, k]
    o[P[P_OBS_ROLE] + roles[b, seat]] = 1.0
    po, pw = P[P_OBS_PLAYERS], P[P_OBS_PW]
    ho, hwid = P[P_OBS_HISTORY], P[P_OBS_HW]
    to = P[P_OBS_TOOLS]
    for a in range(n):
        ra = seat_rel(a, seat, n)
        row = po + ra * pw
        o[row + PF_PRESENT] = 1.0
        for t in range(3):
            o[row + PF_BROKEN + t] = 1.0 if broken[b, a, t] else 0.0
        size = 0
        for k in range(K):
            size += hands[b, a, k]
        o[row + PF_HAND_SIZE] = size
        for j in range(hwid):
            o[ho + ra * hwid + j] = actor_counts[b, a, j]
        for t in range(n):
            rt = seat_rel(t, seat, n)
            o[to + (ra * mp + rt) * 2] = tool_counts[b, a, t, 0]
            o[to + (ra * mp + rt) * 2 + 1] = tool_counts[b, a, t, 1]
    o[po + seat_rel(ints[b, I_LAST_CARD], seat, n) * pw + PF_LAST_CARD] = 1.0
    o[po + seat_rel(ints[b, I_FIRST], seat, n) * pw + PF_FIRST] = 1.0
    if not ints[b, I_GAME_OVER]:
        o[po + seat_rel(ints[b, I_CURRENT], seat, n) * pw + PF_TO_ACT] = 1.0
    added = ints[b, I_ADDED]
    ro, rw, nt, tc = P[P_OBS_RECENT], P[P_RW], P[P_NT], P[P_TC]
    for j in range(N_RECENT):
        q = (added + j) % N_RECENT
        if not recent[b, q, 7]:
            continue
        base = ro + j * rw
        o[base + seat_rel(recent[b, q, 0], seat, n)] = 1.0
        o[base + mp + recent[b, q, 1]] = 1.0
        if recent[b, q, 2] >= 0:
            o[base + mp + nt + seat_rel(recent[b, q, 2], seat, n)] = 1.0
        if recent[b, q, 5] >= 0:
            o[base + 2 * mp + nt + recent[b, q, 5]] = 1.0
        e = base + 2 * mp + nt + tc
        o[e], o[e + 1], o[e + 2], o[e + 3] = recent[b, q, 3], recent[b, q, 4], recent[b, q, 6], 1.0
    go = P[P_OBS_GAME]
    total = 0
    for k in range(K):
        total += discards[b, k]
    o[go + G_ROUND] = ints[b, I_ROUND]
    o[go + G_NUM_ROUNDS] = P[P_NUM_ROUNDS]
    o[go + G_DRAW_PILE] = ints[b, I_DECK_LEN] - ints[b, I_DECK_POS]
    o[go + G_DISCARD_PILE] = total
    o[go + G_TURN] = ints[b, I_TURN]
    o[go + G_NUM_PLAYERS] = n
    o[go + G_PATHS] = ints[b, I_PATHS]
    o[P[P_OBS_PRIVATE] + PR_GOLD] = gold[b, seat]
    o[P[P_OBS_PRIVATE] + PR_SEAT] = seat
    if P[P_OBS_XPLAYERS] >= 0:
        encode_x(b, seat, S, P, o)


@_kernel
def _py_encode_x(b, seat, S, P, o):
    """The Saboteur 2 views of ``seat``'s observation (``xplayers``, ``inspections``,
    ``xhistory``, ``phase``; ``ObservationEncoder._encode_s2``), into ``o`` (zeros there)."""
    ints, xfront, theft_turn = S[S_INTS], S[S_XFRONT], S[S_THEFT_TURN]
    gold, inspected, xcounts = S[S_GOLD], S[S_INSPECTED], S[S_XCOUNTS]
    n, mp = P[P_N], P[P_MP]
    xo, xw, io, nr = P[P_OBS_XPLAYERS], P[P_OBS_XPW], P[P_OBS_INSPECT], P[P_NROLES]
    ho, nx = P[P_OBS_XHIST], xcounts.shape[3]
    first = -1  # the most recent Theft played (scoring.theft_order)
    for a in range(n):
        ra = seat_rel(a, seat, n)
        row = xo + ra * xw
        if xfront[b, a, 0]:
            o[row + XP_TRAPPED] = 1.0
        if xfront[b, a, 1]:
            o[row + XP_THEFT] = 1.0
            if first < 0 or theft_turn[b, a] > theft_turn[b, first]:
                first = a
        if P[P_GOLD_PUBLIC] and gold[b, a] > 0:
            o[row + XP_HAS_GOLD] = 1.0
        role = inspected[b, seat, a]
        if role >= 0:
            o[io + ra * nr + role] = 1.0
        for t in range(n):
            rt = seat_rel(t, seat, n)
            for e in range(nx):
                c = xcounts[b, a, t, e]
                if c:
                    o[ho + (ra * mp + rt) * nx + e] = c
    if first >= 0:  # then the other thieves clockwise; a trapped one's Theft does not work
        pos = 0
        for i in range(n):
            a = seat_abs(first, i, n)
            if xfront[b, a, 1] and not xfront[b, a, 0]:
                pos += 1
                o[xo + seat_rel(a, seat, n) * xw + XP_ORDER] = pos
    ph = P[P_OBS_PHASE]
    o[ph + ints[b, I_PHASE]] = 1.0
    o[ph + PF_COUNT] = ints[b, I_PHASE_COUNT]
    if ints[b, I_PHASE_SLOT] >= 0:
        o[ph + PF_REMOVE0 + ints[b, I_PHASE_SLOT]] = 1.0
    o[ph + PF_ASIDE] = ints[b, I_ASIDE_LEN] - ints[b, I_ASIDE_POS]
    o[ph + PF_REMOVED] = ints[b, I_REMOVED]


@_kernel
def _py_allow(m, lidx, ints, b, i):
    """Action ``i`` of game ``b`` is legal: set it in the mask and list it."""
    m[i] = True
    k = ints[b, I_NLEGAL]
    if k < MAX_LEGAL:
        lidx[b, k] = i
    ints[b, I_NLEGAL] = k + 1


@_kernel
def _py_legal(b, S, T, P, mask, lidx, codes):
    """Write game ``b``'s action mask of the seat to act into ``mask[b]``, equal to the
    engine's legal set laid end to end (``Codec.mask``; RULES 3.1-3.6, 6.5, 6.7, 6.9): the
    families its phase offers (``phase_fams``, from ``phases.FAMILIES_OF_PHASE``), and list
    its legal actions in ascending order in ``lidx[b]`` (``I_NLEGAL`` of them).  Only the
    entries set by the last call are cleared first.  ``codes`` is scratch (three times the
    window's cells) for the candidate cells and the placement rows in hand that fit there, as
    bit sets of two words (``FIT`` of their neighbourhood codes, ``Board.window_codes``)."""
    ints = S[S_INTS]
    var = S[S_VAR]
    opn = S[S_OPN]
    conn = S[S_CONN]
    goal_rev = S[S_GOAL_REVEALED]
    hands = S[S_HANDS]
    broken = S[S_BROKEN]
    xfront = S[S_XFRONT]
    fit_bits = T[T_FIT_BITS]
    row_var = T[T_ROW_VAR]
    v_kind = T[T_V_KIND]
    lut = T[T_LUT]
    goal_adj = T[T_GOAL_ADJ]
    tool_kind = T[T_TOOL_KIND]
    tool_tool = T[T_TOOL_TOOL]
    tool_break = T[T_TOOL_BREAK]
    goal_rc = T[T_GOAL_RC]
    m = mask[b]
    old = ints[b, I_NLEGAL]
    if old > MAX_LEGAL:
        m[:] = False
    else:
        for j in range(old):
            m[lidx[b, j]] = False
    ints[b, I_NLEGAL] = 0
    if ints[b, I_GAME_OVER]:
        return
    s = ints[b, I_CURRENT]
    offered = T[T_PHASE_FAMS][ints[b, I_PHASE]]
    n, mp, W, H, K, ncells = P[P_N], P[P_MP], P[P_W], P[P_H], P[P_K], P[P_NCELLS]
    nw = P[P_NW]
    vb, ob, cb = var[b], opn[b], conn[b]
    hand = hands[b, s]
    # the window's cells within one cell of the maze's bounding box
    r0, r1 = max(2, ints[b, I_RMIN] - 1), min(H + 1, ints[b, I_RMAX] + 1)
    c0, c1 = max(2, ints[b, I_CMIN] - 1), min(W + 1, ints[b, I_CMAX] + 1)
    can_place = not (broken[b, s, 0] or broken[b, s, 1] or broken[b, s, 2])  # RULES 3.1.1, 3.2
    if xfront[b, s, 0]:  # Trapped! (RULES 6.5)
        can_place = False
    if offered[F_PLACE] and can_place:
        # the placement rows of the path cards in hand, as bits: two words (ROW_BITS rows
        # each; the second is empty where a ruleset has fewer rows, supports() checks it),
        # held in registers
        cand = codes[ncells * 2 :]  # scratch: the candidate cells (codes: two words each)
        nrows = row_var.shape[0]
        rows0, rows1 = np.int64(0), np.int64(0)
        for row in range(nrows):
            if hand[v_kind[row_var[row]]]:
                if row < ROW_BITS:
                    rows0 |= np.int64(1) << row
                else:
                    rows1 |= np.int64(1) << (row - ROW_BITS)
        two = nw > 1
        ncand = 0
        if rows0 or rows1:
            # the empty cells next to a card (a card must touch the maze, RULES 3.1.2: FIT is
            # false for every other cell) where a row in hand fits, with those rows as bits
            for r in range(r0, r1 + 1):
                for c in range(c0, c1 + 1):
                    if vb[r, c] != EMPTY:
                        continue
                    if (
                        vb[r - 1, c] == EMPTY
                        and vb[r + 1, c] == EMPTY
                        and vb[r, c - 1] == EMPTY
                        and vb[r, c + 1] == EMPTY
                    ):
                        continue
                    code = goal_adj[r - 1, c - 1]
                    for side in range(4):
                        nr, nc = r + _DR[side], c + _DC[side]
                        nv = vb[nr, nc]
                        stt = np.int64(ob[nr, nc]) | (np.int64(cb[nr, nc]) << 4)
                        if nv >= 0:
                            stt |= 1 << 8
                        if nv != EMPTY:
                            stt |= 1 << 9
                        code |= lut[side, stt]
                    f0 = fit_bits[code, 0] & rows0
                    f1 = fit_bits[code, 1] & rows1 if two else np.int64(0)
                    if f0 or f1:
                        cand[ncand] = (r - 2) * W + c - 2
                        codes[2 * ncand] = f0
                        codes[2 * ncand + 1] = f1
                        ncand += 1
        # rows outer, cells inner: the actions in ascending order
        for row in range(nrows):
            w = 0 if row < ROW_BITS else 1
            bit = np.int64(1) << (row - w * ROW_BITS)
            if not (rows1 if w else rows0) & bit:
                continue
            base = P[P_PLACE] + row * ncells
            for j in range(ncand):
                if codes[2 * j + w] & bit:
                    allow(m, lidx, ints, b, base + cand[j])
    if offered[F_ROCKFALL] and hand[P[P_ROCKFALL_KIND]]:  # RULES 3.4: never the start or a goal
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                if vb[r, c] < 0 or (r == P[P_START_R] and c == P[P_START_C]):
                    continue
                goal = False
                for g in range(3):
                    goal |= goal_rc[g, 0] == r and goal_rc[g, 1] == c
                if not goal:
                    allow(m, lidx, ints, b, P[P_ROCK] + (r - 2) * W + c - 2)
    if offered[F_MAP] and hand[P[P_MAP_KIND]]:  # RULES 3.5
        for g in range(3):
            if not goal_rev[b, g]:
                allow(m, lidx, ints, b, P[P_MAP] + g)
    if offered[F_TOOL]:
        for tr in range(tool_kind.shape[0]):  # RULES 3.2, 3.3
            if not hand[tool_kind[tr]]:
                continue
            tool = tool_tool[tr]
            base = P[P_TOOL] + tr * mp
            for rel in range(n):
                t = seat_abs(s, rel, n)
                if tool_break[tr]:
                    ok = (not broken[b, t, tool]) and (P[P_SELF_SABOTAGE] != 0 or rel != 0)
                else:
                    ok = broken[b, t, tool]
                if ok:
                    allow(m, lidx, ints, b, base + rel)
    if offered[F_DISCARD]:
        for k in range(K):  # RULES 3.6, 6.7
            if hand[k] > 0:
                allow(m, lidx, ints, b, P[P_DISCARD] + k)
    if offered[F_XACTION]:  # RULES 6.5, 7.21 (xaction.targets)
        x_kind, x_verb, x_slot, x_who = T[T_X_KIND], T[T_X_VERB], T[T_X_SLOT], T[T_X_WHO]
        for row in range(x_kind.shape[0]):
            if not hand[x_kind[row]]:
                continue
            verb, who = x_verb[row], x_who[row]
            base = P[P_XACTION] + row * mp
            for rel in range(n):
                if (who == XW_SELF and rel != 0) or (who == XW_OTHER and rel == 0):
                    continue
                t = seat_abs(s, rel, n)
                if verb == XV_PUT:
                    ok = not xfront[b, t, x_slot[row] - FRONT_TRAPPED]
                elif verb == XV_CLEAR:
                    ok = xfront[b, t, x_slot[row] - FRONT_TRAPPED]
                elif verb == XV_SWAP_HATS:
                    ok = ints[b, I_ASIDE_POS] < ints[b, I_ASIDE_LEN]
                else:
                    ok = True
                if ok:
                    allow(m, lidx, ints, b, base + rel)
    if offered[F_REMOVE]:  # RULES 6.7 option 3: a card in front, and cards to pay with
        size = 0
        for k in range(K):
            size += hand[k]
        if size >= P[P_REMOVE_DISCARDS]:
            for slot in range(FRONT_TRAPPED):  # the tools, then trapped and theft
                if broken[b, s, slot]:
                    allow(m, lidx, ints, b, P[P_REMOVE] + slot)
            for j in range(xfront.shape[2]):
                if xfront[b, s, j]:
                    allow(m, lidx, ints, b, P[P_REMOVE] + FRONT_TRAPPED + j)
    if offered[F_DONE]:  # RULES 6.7 option 4: end a pass
        allow(m, lidx, ints, b, P[P_DONE])
    if offered[F_STEAL]:  # RULES 6.9: another player holding gold
        gold = S[S_GOLD]
        for rel in range(1, n):
            t = seat_abs(s, rel, n)
            if gold[b, t] >= 1:
                allow(m, lidx, ints, b, P[P_STEAL] + rel)


@_kernel
def _py_finish_round(b, gold_found, connector, S, T, P, rewards, scratch):
    """The round of game ``b`` is over (RULES 5.1): pay it (:func:`pay`), write each seat's
    reward, and deal the next round from the deals prepared when the game was dealt or loaded
    (RULES 5.4: the left neighbour of the last player starts), or end the game (RULES 5.5).
    Returns ROUND_DONE or GAME_OVER."""
    ints, gold = S[S_INTS], S[S_GOLD]
    n = P[P_N]
    received = scratch[:n]
    winner = scratch[n : 2 * n]
    pay(b, gold_found, connector, S, P, received, winner, scratch[2 * n :])
    for s in range(n):
        gold[b, s] += received[s]
        if P[P_REWARD_GOLD]:
            rewards[b, s] = received[s]
        else:
            rewards[b, s] = 1.0 if winner[s] else -1.0
    r = ints[b, I_ROUND] + 1
    if r >= P[P_NUM_ROUNDS]:
        ints[b, I_GAME_OVER] = 1
        return GAME_OVER
    first = (ints[b, I_LAST_CARD] + 1) % n
    deal(b, r, first, S, T, P)
    return ROUND_DONE


@_kernel
def _py_pay(b, gold_found, connector, S, P, received, winner, tmp):
    """The base game's payouts (``scoring.end_round_base``, RULES 5.2, 5.3, 10.1):
    ``received[s]`` the gold of seat ``s``, ``winner[s]`` 1 for the winning side; the cards
    leave the supply ``nuggets`` in the engine's order."""
    ints, roles, broken, nug = S[S_INTS], S[S_ROLES], S[S_BROKEN], S[S_NUGGETS]
    n = P[P_N]
    count = ints[b, I_NUGGETS]
    for s in range(n):
        received[s] = 0
        winner[s] = 0
    if gold_found:
        for s in range(n):
            winner[s] = 1 if roles[b, s] == P[P_DIGGER] else 0
        take = min(P[P_TAKE], count)
        # pickers: the eligible diggers counter-clockwise from the connector
        pickers = tmp[:n]
        npk = 0
        for i in range(n):
            s = (connector - i) % n
            forfeit = P[P_FORFEIT] and (broken[b, s, 0] or broken[b, s, 1] or broken[b, s, 2])
            if roles[b, s] == P[P_DIGGER] and not forfeit:
                pickers[npk] = s
                npk += 1
        if npk == 0 or take == 0:
            return
        cards = tmp[n : n + take]
        for j in range(take):
            cards[j] = nug[b, j]
        for j in range(1, take):  # highest first (insertion sort of at most 10 cards)
            v = cards[j]
            k = j - 1
            while k >= 0 and cards[k] < v:
                cards[k + 1] = cards[k]
                k -= 1
            cards[k + 1] = v
        for j in range(count - take):
            nug[b, j] = nug[b, j + take]
        ints[b, I_NUGGETS] = count - take
        for j in range(take):
            received[pickers[j % npk]] += cards[j]
        return
    nsab = 0
    for i in range(n):
        if roles[b, (ints[b, I_LAST_CARD] + 1 + i) % n] == P[P_SABOTEUR]:
            nsab += 1
    for s in range(n):
        winner[s] = 1 if roles[b, s] == P[P_SABOTEUR] else 0
    if nsab == 0:
        return
    due = P[P_SAB_PAY + min(nsab, 4) - 1]
    for i in range(n):
        s = (ints[b, I_LAST_CARD] + 1 + i) % n
        if roles[b, s] != P[P_SABOTEUR]:
            continue
        a1 = a2 = a3 = 0
        for j in range(count):
            v = nug[b, j]
            if v == 1:
                a1 += 1
            elif v == 2:
                a2 += 1
            else:
                a3 += 1
        # the exact sum with the largest values first, else the largest total under it
        best_t, best3, best2, b1, b2, b3 = -1, -1, -1, 0, 0, 0
        for n3 in range(min(a3, due // 3), -1, -1):
            for n2 in range(min(a2, (due - 3 * n3) // 2), -1, -1):
                n1 = min(a1, due - 3 * n3 - 2 * n2)
                t = 3 * n3 + 2 * n2 + n1
                if (t, n3, n2) > (best_t, best3, best2):
                    best_t, best3, best2, b1, b2, b3 = t, n3, n2, n1, n2, n3
        for v, cnt in ((3, b3), (2, b2), (1, b1)):
            for _ in range(cnt):  # the first card of that value leaves the supply
                j = 0
                while nug[b, j] != v:
                    j += 1
                for k in range(j, count - 1):
                    nug[b, k] = nug[b, k + 1]
                count -= 1
                received[s] += v
    ints[b, I_NUGGETS] = count


@_kernel
def _py_deal(b, r, first, S, T, P):
    """Round ``r`` of game ``b`` from its prepared deal (RULES 2, 5.4): roles, goals, hands
    and draw pile as the engine's deal drew them, a new maze, the round's state cleared
    (``setup._clear_round_state``, ``setup._start_round``)."""
    ints = S[S_INTS]
    n, K = P[P_N], P[P_K]
    # element loops, not array assignments: those may allocate a temporary, and the kernels
    # run without numba's reference counting (compiled.Kernels, refcount=False)
    roles, deal_roles = S[S_ROLES], S[S_DEAL_ROLES]
    hands, deal_hands = S[S_HANDS], S[S_DEAL_HANDS]
    for s in range(n):
        roles[b, s] = deal_roles[b, r, s]
        for k in range(K):
            hands[b, s, k] = deal_hands[b, r, s, k]
    for g in range(3):
        S[S_GOAL_IDENTITY][b, g] = S[S_DEAL_GOALS][b, r, g]
    S[S_GOAL_REVEALED][b, :] = False
    d = S[S_DEAL_DECK_LEN][b, r]
    deck, deal_deck = S[S_DECK], S[S_DEAL_DECK]
    for j in range(d):
        deck[b, j] = deal_deck[b, r, j]
    var, opn, reached, conn = S[S_VAR], S[S_OPN], S[S_REACHED], S[S_CONN]
    e_var, e_opn, e_reached, e_conn = (
        T[T_EMPTY_VAR],
        T[T_EMPTY_OPN],
        T[T_EMPTY_REACHED],
        T[T_EMPTY_CONN],
    )
    for rr in range(e_var.shape[0]):
        for cc in range(e_var.shape[1]):
            var[b, rr, cc] = e_var[rr, cc]
            opn[b, rr, cc] = e_opn[rr, cc]
            reached[b, rr, cc] = e_reached[rr, cc]
            conn[b, rr, cc] = e_conn[rr, cc]
    S[S_DISCARDS][b] = 0
    S[S_SECRET_DISCARDS][b] = 0
    S[S_BROKEN][b] = False
    S[S_BROKEN_KIND][b] = -1
    S[S_KNOWN_GOALS][b] = False
    S[S_ACTOR_COUNTS][b] = 0
    S[S_TOOL_COUNTS][b] = 0
    S[S_RECENT][b] = 0
    S[S_XFRONT][b] = False
    S[S_THEFT_TURN][b] = -1
    S[S_INSPECTED][b] = -1
    S[S_XCOUNTS][b] = 0
    aside, deal_aside = S[S_SET_ASIDE], S[S_DEAL_ASIDE]
    na = S[S_DEAL_ASIDE_LEN][b, r]
    for j in range(na):
        aside[b, j] = deal_aside[b, r, j]
    ints[b, I_ASIDE_POS] = 0
    ints[b, I_ASIDE_LEN] = na
    ints[b, I_REMOVED] = S[S_DEAL_REMOVED][b, r]
    ints[b, I_PHASE] = PH_TURN
    ints[b, I_PHASE_COUNT] = 0
    ints[b, I_PHASE_SLOT] = -1
    ints[b, I_ROUND] = r
    ints[b, I_CURRENT] = first
    ints[b, I_FIRST] = first
    ints[b, I_LAST_CARD] = first
    ints[b, I_TURN] = 0
    ints[b, I_DECK_POS] = 0
    ints[b, I_DECK_LEN] = d
    ints[b, I_ADDED] = 0
    ints[b, I_LAST_R] = -1
    ints[b, I_LAST_C] = -1
    ints[b, I_PATHS] = 0
    ints[b, I_DIRTY] = 1  # the observation's board planes: written whole
    ints[b, I_NLEGAL] = MAX_LEGAL + 1  # the mask row: cleared whole
    for j in range(4):
        ints[b, I_RMIN + j] = P[P_EMPTY_BBOX + j]


@_kernel
def _py_start(games, firsts, S, T, P):
    """A new game in each row ``games[i]`` from the deals written for it (RULES 2.4): no
    gold, no decision yet, round 0 dealt (:func:`deal`) with seat ``firsts[i]`` to start, as
    ``Game(config, seed)`` sets it up.  The gold supply (``nuggets``, ``I_NUGGETS``) is the
    caller's."""
    ints = S[S_INTS]
    for i in range(games.shape[0]):
        b = games[i]
        supply = ints[b, I_NUGGETS]
        ints[b, :] = 0
        ints[b, I_NUGGETS] = supply
        ints[b, I_PREV_LAST] = -1
        S[S_GOLD][b] = 0
        deal(b, 0, firsts[i], S, T, P)


@_kernel
def _py_deal_next(games, S, T, P):
    """The next round of each game in ``games`` (the caller ended the last one), started by
    the left neighbour of the last player (RULES 5.4, 6.6)."""
    ints = S[S_INTS]
    for i in range(games.shape[0]):
        b = games[i]
        first = seat_abs(ints[b, I_LAST_CARD], 1, P[P_N])
        deal(b, ints[b, I_ROUND] + 1, first, S, T, P)


@_kernel
def _py_step(acts, S, T, P, obs, mask, lidx, st, ev, codes, chg, rewards, scratch):
    """Play ``acts[b]`` in every game ``b`` (:func:`apply`; a base-game round that ends is
    paid and the next dealt, :func:`finish_round`); where the game goes on, write its
    observation and mask.  ``ints[:, I_STATUS]``: CONTINUE, ROUND_DONE or GAME_OVER;
    ``rewards[b]`` is written where a round ended.  A Saboteur 2 round end (ROUND_SCORE) and
    a theft (THEFT_DONE) go back to the caller (``arrays.ArrayGames.settle``), which writes
    that game's observation and mask."""
    ints = S[S_INTS]
    actions = S[S_ACTIONS]
    for b in range(acts.shape[0]):
        chg[0] = 0
        actions[b, ints[b, I_NACTS]] = acts[b]
        ints[b, I_NACTS] += 1
        status = apply(b, acts[b], S, T, P, st, ev, chg)
        if status == GOLD_FOUND or status == HANDS_EMPTY:
            connector = ints[b, I_CURRENT] if status == GOLD_FOUND else -1
            if P[P_NUGGET_CARDS]:
                status = finish_round(b, status == GOLD_FOUND, connector, S, T, P, rewards, scratch)
            else:
                ints[b, I_GOLD_FOUND] = status == GOLD_FOUND
                ints[b, I_CONNECTOR] = connector
                status = ROUND_SCORE
        ints[b, I_STATUS] = status
        if status == CONTINUE or status == ROUND_DONE:
            encode(b, S, T, P, obs, chg)
            legal(b, S, T, P, mask, lidx, codes)


@_KERNELS.register_refcounted
def _py_step_one(p):
    """:func:`step` of one game, its arguments read from one object (``packed.Pack``, made
    once per one-game ``ArrayGames``): a call unboxes one object instead of some 60 arrays."""
    step(
        p.acts,
        p.S,
        p.T,
        p.P,
        p.obs,
        p.mask,
        p.lidx,
        p.stack,
        p.ev,
        p.codes,
        p.chg,
        p.rewards,
        p.scratch,
    )


@_kernel
def _py_refresh(games, S, T, P, obs, mask, lidx, codes, chg):
    """Write the observation and mask of each game in ``games`` (after a deal or a load)."""
    for i in range(games.shape[0]):
        b = games[i]
        S[S_INTS][b, I_DIRTY] = 1
        encode(b, S, T, P, obs, chg)
        legal(b, S, T, P, mask, lidx, codes)


@_kernel
def _py_sample(u, ints, lidx, out):
    """``out[b]``: the legal action at position ``floor(u[b] * count)`` of game ``b``'s
    ascending legal list, or -1 where the list is incomplete (more than MAX_LEGAL)."""
    for b in range(u.shape[0]):
        k = ints[b, I_NLEGAL]
        out[b] = lidx[b, int(u[b] * k)] if 0 < k <= MAX_LEGAL else -1
