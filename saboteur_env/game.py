"""The rules engine of the base game (RULES 2-5): state, legality, apply, rounds and scoring.

Pure Python + numpy; no RL library is imported here (DESIGN 1).  The engine works in *seats*
``0..N-1``; play goes clockwise, i.e. ``seat + 1 mod N`` (RULES 2.4).

Actions are small frozen dataclasses (:class:`PlacePath`, :class:`BreakTool`, :class:`Repair`,
:class:`Rockfall`, :class:`Map`, :class:`Discard`).  :meth:`Game.check` names the rule an action
breaks (or returns ``None``); :meth:`Game.apply` raises :class:`IllegalActionError` for an illegal
action and leaves the state untouched, otherwise mutates the state and returns the
:class:`Event` s it caused.  Events are the history; an event with ``visible_to=None`` is public,
otherwise it is private to that seat.

Build any position by hand with :func:`build_state` (the test hook, DESIGN 2).
"""

from __future__ import annotations

import copy as _copy
from dataclasses import dataclass, field
from itertools import product

import numpy as np

from .board import EMPTY, HIDDEN_GOAL, Board
from .cards import (
    ALL_KINDS,
    CARD_KINDS,
    GOAL_CELLS,
    GOAL_GOLD,
    GOLD_CARDS,
    GOLD_DIGGER,
    HAND_SIZE,
    KIND_INDEX,
    N_BASE_KINDS,
    ROLE_TABLE_PUBLISHED,
    ROLE_TABLE_SEED,
    SABOTEUR,
    SABOTEUR_PAYOUT,
    TOOLS,
    VARIANT_OF,
    VARIANTS,
    deck_counts,
    kind_label,
)
from .config import GameConfig


class IllegalActionError(ValueError):
    """An action that the rules forbid in this state; the message names the rule (RULES x.y).

    The state is left unchanged.
    """


# --- actions (DESIGN 2) ---------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PlacePath:
    """Place path card ``kind`` at cell (x, y), turned 180 degrees if ``rotated`` (RULES 3.1).

    For kinds that look the same after a 180-degree turn only ``rotated=False`` is legal, so
    every distinct move has exactly one action (cases P15)."""

    kind: int
    x: int
    y: int
    rotated: bool = False


@dataclass(frozen=True, slots=True)
class BreakTool:
    """Play broken-tool card ``kind`` in front of seat ``target`` (RULES 3.2)."""

    kind: int
    target: int


@dataclass(frozen=True, slots=True)
class Repair:
    """Play repair card ``kind`` on seat ``target``, repairing ``tool`` (0 pick, 1 lantern,
    2 cart); a double repair card names the one tool it repairs (RULES 3.3)."""

    kind: int
    tool: int
    target: int


@dataclass(frozen=True, slots=True)
class Rockfall:
    """Play a rockfall card and remove the tunnel card at (x, y) (RULES 3.4)."""

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Map:
    """Play a map card and look at goal slot ``goal`` (0 top, 1 middle, 2 bottom) (RULES 3.5)."""

    goal: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Pass, discarding one card of ``kind`` face down (RULES 3.6)."""

    kind: int


Action = PlacePath | BreakTool | Repair | Rockfall | Map | Discard


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened.  ``visible_to=None``: public; else private to that seat.

    ``type`` is one of ``round_start``, ``path_placed``, ``goal_revealed``, ``tool_broken``,
    ``tool_repaired``, ``rockfall``, ``map_played``, ``map_result`` (private), ``discarded``,
    ``discarded_card`` (private), ``card_drawn`` (private), ``round_end``, ``gold_received``
    (private), ``game_end``.  ``seat`` is the actor (absolute), ``data`` the details.
    """

    type: str
    seat: int | None = None
    data: dict = field(default_factory=dict)
    visible_to: int | None = None


# --- game state ----------------------------------------------------------------------
class Game:
    """The full state of one game of the base game (RULES 2-5).

    Construct with ``Game(config, seed)``; a new game deals round 0 at once.

    Attributes:
        config: the :class:`GameConfig`.
        n: number of players.
        rng: the game's only random generator (``numpy.random.Generator``).
        round: 0-based round index.
        roles: int8 ``(n,)``: GOLD_DIGGER (0) or SABOTEUR (1) per seat.
        set_aside: roles of the dwarf cards not dealt this round (RULES 2.2).
        hands: int16 ``(n, n_kinds)``: cards of each kind in each hand.
        deck: int16 ``(k,)``: the draw pile, top card first.
        discards: int64 ``(n_kinds,)``: cards in the discard pile by kind.
        board: the :class:`~saboteur_env.board.Board`.
        broken: bool ``(n, 3)``: broken pick / lantern / cart in front of each seat.
        broken_kind: int16 ``(n, 3)``: kind of the broken card in front (-1 none).
        known_goals: bool ``(n, 3)``: seat has seen goal slot (map or reveal).
        nuggets: int8 ``(k,)``: the face-down gold supply, top card first.
        gold: int64 ``(n,)``: nuggets each seat holds; gold_cards int64 ``(n, 3)`` by value.
        current: seat to act.  turn: turns taken this round.  last_card_seat: seat of the
        last card-consuming turn (RULES 5.4).
        round_over / game_over: flags; ``round_results`` a list of per-round dicts.
        events: every event of the game, in order.
    """

    def __init__(self, config: GameConfig | None = None, seed: int | None = None,
                 _deal: bool = True) -> None:
        self.config = config or GameConfig()
        self.n = self.config.num_players
        self.n_kinds = N_BASE_KINDS
        self.rng = np.random.default_rng(seed)
        self.round = 0
        self.game_over = False
        self.round_over = False
        self.round_results: list[dict] = []
        self.round_boards: list[Board] = []
        self.events: list[Event] = []
        self.gold = np.zeros(self.n, dtype=np.int64)
        self.gold_cards = np.zeros((self.n, 3), dtype=np.int64)
        self.decisions = 0
        if _deal:
            nug = np.repeat(np.array(list(GOLD_CARDS), dtype=np.int8),
                            list(GOLD_CARDS.values()))
            self.nuggets = self.rng.permutation(nug)  # RULES 2.4 step 4, once per game
            fp = self.config.first_player
            first = int(self.rng.integers(self.n)) if fp == "random" else int(fp)
            self._deal_round(first)

    # --- setup (RULES 2.4, 5.4) ------------------------------------------------------
    def _deal_round(self, first: int) -> None:
        cfg, n, rng = self.config, self.n, self.rng
        table = ROLE_TABLE_PUBLISHED if cfg.role_table == "published" else ROLE_TABLE_SEED
        sab, dig = table[n]
        role_deck = rng.permutation(np.array([SABOTEUR] * sab + [GOLD_DIGGER] * dig,
                                             dtype=np.int8))
        self.roles = role_deck[:n].copy()
        self.set_aside = role_deck[n:].tolist()
        goals = rng.permutation(3).astype(np.int8)
        self.board = Board(cfg.board_window, goals)
        counts = deck_counts(False)
        deck = rng.permutation(np.repeat(np.arange(self.n_kinds, dtype=np.int16), counts))
        h = HAND_SIZE[n]
        self.hands = np.zeros((n, self.n_kinds), dtype=np.int16)
        for s in range(n):
            np.add.at(self.hands[s], deck[s * h:(s + 1) * h], 1)
        self.deck = deck[n * h:]
        self.discards = np.zeros(self.n_kinds, dtype=np.int64)
        self.broken = np.zeros((n, 3), dtype=bool)
        self.broken_kind = np.full((n, 3), -1, dtype=np.int16)
        self.known_goals = np.zeros((n, 3), dtype=bool)
        self.current = first
        self.first_player = first
        self.turn = 0
        self.last_card_seat = first
        self.round_over = False
        self._reset_history()
        self._emit("round_start", None, {"round": self.round, "first_player": first})
        for s in range(n):
            self._emit("role_dealt", s, {"role": int(self.roles[s])}, visible_to=s)

    def _reset_history(self) -> None:
        n = self.n
        #: public history of this round: per actor [through cards placed, dead ends placed,
        #: rockfalls, maps, discards]; per actor x target [tools broken, tools repaired]
        self.actor_counts = np.zeros((n, 5), dtype=np.int16)
        self.tool_counts = np.zeros((n, n, 2), dtype=np.int16)
        #: the last public actions of this round: (actor, type 0-5, target, x, y, tool)
        self.recent: list[tuple] = []

    def _record(self, actor: int, typ: int, target=-1, x=0, y=0, tool=-1, dead_end=0) -> None:
        self.recent.append((actor, typ, target, x, y, tool, dead_end))
        if len(self.recent) > 8:
            del self.recent[0]

    # --- copying ---------------------------------------------------------------------
    def copy(self) -> Game:
        """An independent deep copy (numpy arrays and the generator state copied)."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        for k, v in self.__dict__.items():
            if isinstance(v, np.ndarray):
                setattr(g, k, v.copy())
        g.board = self.board.copy()
        g.rng = _copy.deepcopy(self.rng)
        g.events = list(self.events)
        g.round_results = list(self.round_results)
        g.round_boards = list(self.round_boards)
        g.set_aside = list(self.set_aside)
        g.recent = list(self.recent)
        g.__dict__["_pending"] = []
        return g

    # --- helpers ---------------------------------------------------------------------
    def _emit(self, type_: str, seat, data, visible_to=None) -> Event:
        e = Event(type_, seat, data, visible_to)
        self.events.append(e)
        self._new_events.append(e)
        return e

    @property
    def _new_events(self) -> list:
        ne = self.__dict__.get("_pending")
        if ne is None:
            ne = self.__dict__["_pending"] = []
        return ne

    def hand_size(self, seat: int) -> int:
        return int(self.hands[seat].sum())

    def hand_kinds(self, seat: int) -> list[int]:
        """Kinds held by ``seat``, sorted, one entry per card."""
        return np.repeat(np.arange(self.n_kinds), self.hands[seat]).tolist()

    def can_place_paths(self, seat: int) -> bool:
        """RULES 3.1.1 / 3.2: no broken tool in front of the seat."""
        return not self.broken[seat].any()

    # --- legality (structured, for explanations and tests) -----------------------------
    def check(self, action: Action, seat: int | None = None) -> str | None:
        """Why ``action`` is illegal for ``seat`` (default: the current seat), or ``None``.

        The returned text names the rule (RULES section) that forbids it.
        """
        seat = self.current if seat is None else seat
        if self.game_over:
            return "the game is over (RULES 5.5)"
        if seat != self.current:
            return f"it is seat {self.current}'s turn, not seat {seat}'s"
        hand = self.hands[seat]
        kind = getattr(action, "kind", KIND_INDEX["rockfall"] if isinstance(action, Rockfall)
                       else KIND_INDEX["map"] if isinstance(action, Map) else None)
        if kind is None or not isinstance(kind, (int, np.integer)) or \
                not 0 <= kind < self.n_kinds:
            return f"unknown card kind in {action!r}"
        if hand[kind] == 0:
            return f"seat {seat} holds no {ALL_KINDS[kind].id} card"
        info = ALL_KINDS[kind]
        if isinstance(action, Discard):
            return None
        if isinstance(action, PlacePath):
            if info.category != "path":
                return f"{info.id} is not a path card (RULES 3.1)"
            if action.rotated and VARIANT_OF[(kind, True)] == VARIANT_OF[(kind, False)]:
                return (f"{info.id} is symmetric under 180 degrees: use rotated=False "
                        "(one action per distinct move)")
            if not self.can_place_paths(seat):
                return "a player with a broken tool may not place path cards (RULES 3.1.1, 3.2)"
            b = self.board
            if not b.in_window(action.x, action.y):
                return f"cell ({action.x}, {action.y}) is outside the board window (DESIGN 3)"
            if b.variant_at(action.x, action.y) != EMPTY:
                return f"cell ({action.x}, {action.y}) is not empty (RULES 3.1.2)"
            if not b.fits(VARIANT_OF[(kind, action.rotated)], action.x, action.y):
                return (f"{kind_label(kind, action.rotated)} does not fit at "
                        f"({action.x}, {action.y}): it must touch the maze, match every "
                        "face-up neighbour's edges and connect to the start "
                        "(RULES 3.1.2, 3.1.4, 3.1.5)")
            return None
        if isinstance(action, BreakTool):
            if info.effect[:1] != ("break",):
                return f"{info.id} is not a broken-tool card (RULES 3.2)"
            t = action.target
            if not isinstance(t, (int, np.integer)) or not 0 <= t < self.n:
                return f"target seat {t!r} is not in play"
            if t == seat and not self.config.self_sabotage:
                return "self_sabotage=False: a broken tool may not be played on oneself (RULES 3.2)"
            tool = info.effect[1]
            if self.broken[t, tool]:
                return f"seat {t} already has a broken {TOOLS[tool]} (RULES 3.2)"
            return None
        if isinstance(action, Repair):
            if info.effect[:1] != ("repair",):
                return f"{info.id} is not a repair card (RULES 3.3)"
            t = action.target
            if not isinstance(t, (int, np.integer)) or not 0 <= t < self.n:
                return f"target seat {t!r} is not in play"
            if action.tool not in info.effect[1]:
                return f"{info.id} cannot repair a {action.tool!r} tool (RULES 3.3)"
            if not self.broken[t, action.tool]:
                return f"seat {t} has no broken {TOOLS[action.tool]} to repair (RULES 3.3)"
            return None
        if isinstance(action, Rockfall):
            b = self.board
            if not b.in_window(action.x, action.y) or \
                    not b.removable()[b.cell_index(action.x, action.y)]:
                return (f"no removable tunnel card at ({action.x}, {action.y}): rockfall "
                        "removes a path card, never the start or a goal (RULES 3.4)")
            return None
        if isinstance(action, Map):
            if action.goal not in (0, 1, 2):
                return f"goal slot {action.goal!r} is not 0, 1 or 2"
            if self.board.goal_revealed[action.goal]:
                return "a map may only look at a face-down goal (RULES 3.5)"
            return None
        return f"unknown action {action!r}"

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal action of the current seat, by brute force over :meth:`check`.

        Slow and obviously correct: the reference for the codec's array mask.
        """
        seat = self.current if seat is None else seat
        if self.game_over or seat != self.current:
            return []
        out: list[Action] = []
        x0, x1, y0, y1 = self.board.window
        for k in np.nonzero(self.hands[seat])[0].tolist():
            info = CARD_KINDS[k]
            cands: list[Action] = [Discard(k)]
            if info.category == "path":
                rots = (False, True) if VARIANT_OF[(k, True)] != VARIANT_OF[(k, False)] \
                    else (False,)
                cands += [PlacePath(k, x, y, r) for r in rots
                          for x, y in product(range(x0, x1 + 1), range(y0, y1 + 1))]
            elif info.effect[0] == "break":
                cands += [BreakTool(k, t) for t in range(self.n)]
            elif info.effect[0] == "repair":
                cands += [Repair(k, tool, t) for tool in info.effect[1] for t in range(self.n)]
            elif info.effect[0] == "rockfall":
                cands += [Rockfall(x, y) for x, y in product(range(x0, x1 + 1),
                                                             range(y0, y1 + 1))]
            elif info.effect[0] == "map":
                cands += [Map(g) for g in range(3)]
            out += [a for a in cands if self.check(a, seat) is None]
        return out

    # --- applying --------------------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        """Play ``action`` for the current seat and advance the game.

        Returns the events caused (public and private).

        Raises:
            IllegalActionError: the action breaks a rule (named in the message); nothing changes.
        """
        why = self.check(action)
        if why is not None:
            raise IllegalActionError(why)
        return self._apply_unchecked(action)

    def _apply_unchecked(self, action: Action) -> list[Event]:
        self.__dict__["_pending"] = []
        seat = self.current
        self.decisions += 1
        self.turn += 1
        gold_found = False
        if isinstance(action, PlacePath):
            k = action.kind
            self.hands[seat, k] -= 1
            variant = VARIANT_OF[(k, action.rotated)]
            revealed = self.board.place(variant, action.x, action.y)
            self._emit("path_placed", seat, {"kind": k, "x": action.x, "y": action.y,
                                             "rotated": VARIANTS[variant].rotated,
                                             "variant": variant})
            dead = int(CARD_KINDS[k].is_dead_end)
            self.actor_counts[seat, 1 if dead else 0] += 1
            self._record(seat, 0, -1, action.x, action.y, -1, dead)
            for slot, ident, rotated in revealed:
                self.known_goals[:, slot] = True
                gx, gy = GOAL_CELLS[slot]
                self._emit("goal_revealed", seat, {"goal": slot, "x": gx, "y": gy,
                                                   "identity": ident, "rotated": rotated})
                gold_found |= ident == GOAL_GOLD
        elif isinstance(action, BreakTool):
            k = action.kind
            tool = CARD_KINDS[k].effect[1]
            self.hands[seat, k] -= 1
            self.broken[action.target, tool] = True
            self.broken_kind[action.target, tool] = k
            self._emit("tool_broken", seat, {"kind": k, "target": action.target, "tool": tool})
            self.tool_counts[seat, action.target, 0] += 1
            self._record(seat, 1, action.target, 0, 0, tool)
        elif isinstance(action, Repair):
            k, t, tool = action.kind, action.target, action.tool
            self.hands[seat, k] -= 1
            self.discards[k] += 1
            self.discards[self.broken_kind[t, tool]] += 1
            self.broken[t, tool] = False
            self.broken_kind[t, tool] = -1
            self._emit("tool_repaired", seat, {"kind": k, "target": t, "tool": tool})
            self.tool_counts[seat, t, 1] += 1
            self._record(seat, 2, t, 0, 0, tool)
        elif isinstance(action, Rockfall):
            k = KIND_INDEX["rockfall"]
            self.hands[seat, k] -= 1
            removed = self.board.remove(action.x, action.y)
            self.discards[k] += 1
            self.discards[VARIANTS[removed].kind] += 1
            self._emit("rockfall", seat, {"x": action.x, "y": action.y, "variant": removed,
                                          "kind": int(VARIANTS[removed].kind)})
            self.actor_counts[seat, 2] += 1
            self._record(seat, 3, -1, action.x, action.y)
        elif isinstance(action, Map):
            k = KIND_INDEX["map"]
            self.hands[seat, k] -= 1
            self.discards[k] += 1
            self.known_goals[seat, action.goal] = True
            self._emit("map_played", seat, {"goal": action.goal})
            self.actor_counts[seat, 3] += 1
            self._record(seat, 4, -1, *GOAL_CELLS[action.goal])
            self._emit("map_result", seat, {"goal": action.goal,
                                            "identity": int(self.board.goal_identity[action.goal])},
                       visible_to=seat)
        elif isinstance(action, Discard):
            self.hands[seat, action.kind] -= 1
            self.discards[action.kind] += 1
            self._emit("discarded", seat, {})
            self.actor_counts[seat, 4] += 1
            self._record(seat, 5)
            self._emit("discarded_card", seat, {"kind": action.kind}, visible_to=seat)
        self.last_card_seat = seat
        if gold_found:
            self._end_round(gold_found=True, connector=seat)
            return self._take_pending()
        if len(self.deck):  # RULES 3.7: draw if the pile is not empty
            k = int(self.deck[0])
            self.deck = self.deck[1:]
            self.hands[seat, k] += 1
            self._emit("card_drawn", seat, {"kind": k}, visible_to=seat)
        self._advance()
        return self._take_pending()

    def _take_pending(self) -> list[Event]:
        out = self.__dict__.get("_pending") or []
        self.__dict__["_pending"] = []
        return out

    def _advance(self) -> None:
        """Next seat clockwise that holds cards; end the round when no hand has cards (5.1)."""
        sizes = self.hands.sum(axis=1)
        if not sizes.any():
            self._end_round(gold_found=False, connector=None)
            return
        s = self.current
        for _ in range(self.n):
            s = (s + 1) % self.n
            if sizes[s]:
                self.current = s
                return

    # --- scoring (RULES 5) -----------------------------------------------------------
    def _end_round(self, gold_found: bool, connector: int | None) -> None:
        n = self.n
        received = np.zeros(n, dtype=np.int64)
        if gold_found:
            winners = [s for s in range(n) if self.roles[s] == GOLD_DIGGER]
            self._pay_diggers(connector, received)
        else:
            winners = [s for s in range(n) if self.roles[s] == SABOTEUR]
            self._pay_saboteurs(received)
        self.gold += received
        result = {
            "round": self.round,
            "gold_found": gold_found,
            "winning_side": "gold-digger" if gold_found else "saboteur",
            "winners": winners,
            "connector": connector,
            "roles": self.roles.tolist(),
            "received": received.tolist(),
            "last_card_seat": self.last_card_seat,
            "turns": self.turn,
        }
        self.round_results.append(result)
        self.round_boards.append(self.board)  # the final maze of each round, for replays
        self.round_over = True
        self._emit("round_end", None, {"round": self.round, "gold_found": gold_found,
                                       "winning_side": result["winning_side"],
                                       "winners": winners, "connector": connector,
                                       "roles": self.roles.tolist()})
        for s in range(n):
            self._emit("gold_received", s, {"round": self.round, "gold": int(received[s])},
                       visible_to=s)
        if self.round + 1 >= self.config.num_rounds:
            self.game_over = True
            best = int(self.gold.max())
            self._emit("game_end", None, {"gold": self.gold.tolist(),
                                          "winners": [s for s in range(n)
                                                      if self.gold[s] == best]})
            return
        self.round += 1
        self._deal_round((self.last_card_seat + 1) % n)

    def _take_nugget(self, i: int) -> int:
        v = int(self.nuggets[i])
        self.nuggets = np.delete(self.nuggets, i)
        return v

    def _pay_diggers(self, connector: int, received: np.ndarray) -> None:
        """RULES 5.2: N cards (9 at 10 players) picked counter-clockwise by the diggers,
        starting with the connector (or the first digger counter-clockwise from a saboteur
        connector).  Each picker automatically keeps the highest card left (RULES 10.1)."""
        n = self.n
        take = min(9 if n == 10 else n, len(self.nuggets))
        eligible = [
            self.roles[s] == GOLD_DIGGER
            and not (self.config.broken_tool_forfeit and self.broken[s].any())
            for s in range(n)
        ]
        if not any(eligible) or take == 0:
            return
        cards = sorted(self.nuggets[:take].tolist(), reverse=True)
        self.nuggets = self.nuggets[take:]
        order = [(connector - i) % n for i in range(n)]  # counter-clockwise from connector
        pickers = [s for s in order if eligible[s]]
        for i, v in enumerate(cards):
            s = pickers[i % len(pickers)]
            received[s] += v
            self.gold_cards[s, v - 1] += 1

    def _pay_saboteurs(self, received: np.ndarray) -> None:
        """RULES 5.3: 4/3/3/2 nuggets each for 1/2/3/4 saboteurs; the change ruling: in turn
        order from the player after the last player, each takes an exact-sum combination with
        the largest values first, else the largest total not above the entitlement."""
        n = self.n
        sabs = [(self.last_card_seat + 1 + i) % n for i in range(n)]
        sabs = [s for s in sabs if self.roles[s] == SABOTEUR]
        if not sabs:
            return
        due = SABOTEUR_PAYOUT[min(len(sabs), 4)]
        for s in sabs:
            avail = [int((self.nuggets == v).sum()) for v in (1, 2, 3)]
            best = None
            for n3 in range(min(avail[2], due // 3), -1, -1):
                for n2 in range(min(avail[1], (due - 3 * n3) // 2), -1, -1):
                    n1 = min(avail[0], due - 3 * n3 - 2 * n2)
                    key = (3 * n3 + 2 * n2 + n1, n3, n2)
                    if best is None or key > best[0]:
                        best = (key, (n1, n2, n3))
            n1, n2, n3 = best[1]
            for v, cnt in ((3, n3), (2, n2), (1, n1)):
                for _ in range(cnt):
                    i = int(np.nonzero(self.nuggets == v)[0][0])
                    self._take_nugget(i)
                    received[s] += v
                    self.gold_cards[s, v - 1] += 1

    def determinize(self, seat: int, rng: np.random.Generator) -> Game:
        """A full state consistent with what ``seat`` knows, for information-set search
        (DESIGN 2).

        Reshuffled: the cards ``seat`` cannot see (other hands and the draw pile, keeping every
        hand size), the roles of the other players together with the set-aside dwarf cards
        (``seat``'s own role kept), the identities of the goals ``seat`` has not seen, and the
        order of the gold supply.  Public state and ``seat``'s own hand, role and map results are
        unchanged.  The game's own generator is replaced by one drawn from ``rng``.
        """
        g = self.copy()
        n = g.n
        others = [s for s in range(n) if s != seat]
        sizes = [int(g.hands[s].sum()) for s in others]
        pool = np.concatenate([np.repeat(np.arange(g.n_kinds, dtype=np.int16), g.hands[s])
                               for s in others] + [g.deck.astype(np.int16)])
        pool = rng.permutation(pool)
        pos = 0
        for s, h in zip(others, sizes):
            g.hands[s] = np.bincount(pool[pos:pos + h], minlength=g.n_kinds)
            pos += h
        g.deck = pool[pos:]
        hidden_roles = rng.permutation(np.array([g.roles[s] for s in others] + g.set_aside,
                                                dtype=np.int8))
        g.roles[others] = hidden_roles[:len(others)]
        g.set_aside = hidden_roles[len(others):].tolist()
        unknown = [sl for sl in range(3) if not g.known_goals[seat, sl]]
        if unknown:
            ids = rng.permutation(g.board.goal_identity[unknown])
            # who mapped which goal is public (map_played events), so other seats keep their
            # knowledge flags; they now know the resampled identity
            g.board.goal_identity[unknown] = ids
        g.nuggets = rng.permutation(g.nuggets)
        g.rng = np.random.default_rng(int(rng.integers(2**63)))
        return g

    # --- queries -----------------------------------------------------------------------
    def winners(self) -> list[int]:
        """Seats with the most gold once the game is over (ties share, RULES 5.5)."""
        if not self.game_over:
            return []
        best = self.gold.max()
        return [s for s in range(self.n) if self.gold[s] == best]

    def cards_accounted(self) -> int:
        """Draw pile + hands + maze tunnel cards + discards + cards in front of players.

        Equals 67 in every base-game state (card conservation, RULES 1)."""
        return int(len(self.deck) + self.hands.sum() + self.board.path_cards_on_board()
                   + self.discards.sum() + self.broken.sum())


# --- the test hook (DESIGN 2) ----------------------------------------------------------
def _kind(k) -> int:
    if isinstance(k, str):
        if k not in KIND_INDEX:
            raise ValueError(f"unknown card kind {k!r}; valid: {sorted(KIND_INDEX)}")
        return KIND_INDEX[k]
    return int(k)


def build_state(
    config: GameConfig | None = None,
    *,
    roles,
    hands,
    board=(),
    goals=(GOAL_GOLD, 1, 2),
    revealed=(),
    set_aside=(),
    deck=None,
    nuggets=None,
    broken=None,
    known_goals=None,
    gold=None,
    current: int = 0,
    round: int = 0,
    last_card_seat: int | None = None,
    seed: int = 0,
) -> Game:
    """Build any base-game position by hand (the test hook, DESIGN 2).

    Args:
        config: the game's options (default :class:`GameConfig` with ``num_players=len(roles)``).
        roles: role per seat, ``"gold-digger"``/``"saboteur"`` or 0/1.
        hands: per seat, a list of card kinds (ids like ``"B07"``, ``"map"``, or kind indexes).
        board: ``[(x, y, kind, rotated), ...]`` tunnel cards in the maze.
        goals: goal identity per slot (top, middle, bottom): 0 gold, 1 stone A, 2 stone B.
        revealed: ``[(slot, rotated), ...]`` goals already face up.
        set_aside: roles of the set-aside dwarf card(s).
        deck: the draw pile, top first (kinds); default: every card not placed elsewhere,
            shuffled with ``seed``.  When given, cards left over go to the discard pile.
        nuggets: the gold supply, top first (values 1-3); default: the 28 cards shuffled.
        broken: per seat, an iterable of tools (``"pick"``, ``"lantern"``, ``"cart"`` or 0-2).
        known_goals: per seat, goal slots that seat has mapped.
        gold: nuggets already held per seat.
        current / round / last_card_seat: the seat to act, the round index, RULES 5.4's seat.
        seed: seeds the game's generator (later rounds' deals, default deck order).

    Returns:
        A :class:`Game` in that position, connectivity computed.

    Raises:
        ValueError: a card count exceeds the deck (RULES 1), a cell is outside the window or
            taken, or an option is inconsistent.
    """
    roles = [SABOTEUR if r in ("saboteur", SABOTEUR) else GOLD_DIGGER
             if r in ("gold-digger", GOLD_DIGGER) else _bad_role(r) for r in roles]
    n = len(roles)
    if config is None:
        config = GameConfig(num_players=n)
    if config.num_players != n:
        raise ValueError(f"config.num_players={config.num_players} but {n} roles given")
    g = Game(config, seed, _deal=False)
    g.round = round
    g.roles = np.array(roles, dtype=np.int8)
    g.set_aside = [SABOTEUR if r in ("saboteur", SABOTEUR) else GOLD_DIGGER for r in set_aside]
    g.board = Board(config.board_window, goals)
    total = deck_counts(False)
    used = np.zeros(g.n_kinds, dtype=np.int64)
    for x, y, k, rot in board:
        k = _kind(k)
        if CARD_KINDS[k].category != "path":
            raise ValueError(f"{CARD_KINDS[k].id} is not a path card")
        if not g.board.in_window(x, y) or g.board.variant_at(x, y) != EMPTY:
            raise ValueError(f"cell ({x}, {y}) is outside the window or already taken")
        r, c = g.board.rc(x, y)
        v = VARIANT_OF[(k, bool(rot))]
        g.board.var[r, c] = v
        g.board.opn[r, c] = VARIANTS[v].openings
        used[k] += 1
    for slot, rot in revealed:
        from .cards import GOAL_KINDS
        r, c = g.board._goal_rc[slot]
        v = VARIANT_OF[(GOAL_KINDS[int(g.board.goal_identity[slot])], bool(rot))]
        g.board.var[r, c] = v
        g.board.opn[r, c] = VARIANTS[v].openings
        g.board.goal_revealed[slot] = True
    g.board.version += 1
    g.board.recompute_connectivity()
    if len(hands) != n:
        raise ValueError(f"{len(hands)} hands given for {n} players")
    g.hands = np.zeros((n, g.n_kinds), dtype=np.int16)
    for s, h in enumerate(hands):
        for k in h:
            g.hands[s, _kind(k)] += 1
    used += g.hands.sum(axis=0)
    g.broken = np.zeros((n, 3), dtype=bool)
    g.broken_kind = np.full((n, 3), -1, dtype=np.int16)
    for s, tools in enumerate(broken or [()] * n):
        for t in tools:
            t = TOOLS.index(t) if isinstance(t, str) else int(t)
            k = KIND_INDEX[("break_pick", "break_lantern", "break_cart")[t]]
            g.broken[s, t] = True
            g.broken_kind[s, t] = k
            used[k] += 1
    left = total - used
    if (left < 0).any():
        bad = [CARD_KINDS[k].id for k in np.nonzero(left < 0)[0]]
        raise ValueError(f"more {bad} cards than the deck holds (RULES 1)")
    if deck is None:
        g.deck = g.rng.permutation(np.repeat(np.arange(g.n_kinds, dtype=np.int16), left))
        g.discards = np.zeros(g.n_kinds, dtype=np.int64)
    else:
        g.deck = np.array([_kind(k) for k in deck], dtype=np.int16)
        g.discards = left - np.bincount(g.deck, minlength=g.n_kinds)
        if (g.discards < 0).any():
            raise ValueError("the given deck holds cards that are already elsewhere")
    if nuggets is None:
        nug = np.repeat(np.array(list(GOLD_CARDS), dtype=np.int8), list(GOLD_CARDS.values()))
        g.nuggets = g.rng.permutation(nug)
    else:
        g.nuggets = np.array(nuggets, dtype=np.int8)
    g.known_goals = np.zeros((n, 3), dtype=bool)
    g.known_goals[:, g.board.goal_revealed] = True
    for s, slots in enumerate(known_goals or [()] * n):
        for sl in slots:
            g.known_goals[s, sl] = True
    if gold is not None:
        g.gold = np.array(gold, dtype=np.int64)
    g.current = current
    g.first_player = current
    g.turn = 0
    g.last_card_seat = current if last_card_seat is None else last_card_seat
    g.round_over = False
    g.game_over = False
    g._reset_history()
    if not g.hands[current].any() and g.hands.any():
        raise ValueError(f"seat {current} is to act but holds no card")
    return g


def _bad_role(r):
    raise ValueError(f"unknown role {r!r}; use 'gold-digger' or 'saboteur'")


__all__ = [
    "Action", "BreakTool", "Discard", "Event", "Game", "HIDDEN_GOAL", "IllegalActionError",
    "Map", "PlacePath", "Repair", "Rockfall", "build_state",
]
