"""How the heuristic agent plays, as data: styles, a table of role strategies per game, and
what differs between the games.

* :data:`STYLES`: how a saboteur hides (``make_agent("heuristic:<style>")``).
* :class:`RolePlay`: how one role plays (its placement utility, its taste for maps,
  rockfalls, repairs, Trapped! and removals, its doors, whom it wants to hurt, which cards it
  keeps).  The tables :data:`BASE_ROLES` (RULES 1.5, 2.2) and :data:`SABOTEUR_2_ROLES`
  (RULES 6.2, 6.9) give one per role name of the ruleset.
* :class:`GamePlay`: one game's maze model, belief model, role table and the few ways the
  agent's play differs between the games; :data:`GAME_PLAYS` is keyed by ``Ruleset.name``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from saboteur_env.engine.cards import DOOR_CODES
from saboteur_env.engine.ruleset import Ruleset

from .belief import AssignmentBelief, RoleBelief, SeatBelief
from .maze import Maze, SegmentMaze
from .scorers import Decision, Placements, collect_crystals, dig, sabotage


@dataclass(frozen=True)
class Style:
    """How a saboteur hides.

    Attributes:
        honest_turns: own turns per round played as an honest digger before sabotaging.
        honest_until: sabotage starts earlier once the tunnel front is this close to a goal.
        suspicion_weight: penalty per unit of evidence a move gives observers (0 = blatant).
        digger_caution: the same penalty for honest moves (stay trusted).
    """

    honest_turns: int
    honest_until: int
    suspicion_weight: float
    digger_caution: float = 0.1


#: style name -> :class:`Style`: ``""`` (default), ``"subtle"`` (long honest phase, quiet
#: sabotage), ``"blatant"`` (sabotage from the first turn, no concern for looks)
STYLES: Mapping[str, Style] = MappingProxyType(
    {
        "": Style(honest_turns=1, honest_until=5, suspicion_weight=0.35),
        "subtle": Style(honest_turns=4, honest_until=3, suspicion_weight=1.0),
        "blatant": Style(honest_turns=0, honest_until=99, suspicion_weight=0.0),
    }
)


@dataclass(frozen=True)
class Tactics:
    """What a version of the heuristic does differently, as numbers (``make_agent(
    "heuristic:v1")`` plays the first version exactly; ``"heuristic"`` is the latest).  Every
    row of :data:`TACTICS` spells out every field, so a new field cannot change an old
    version unseen.

    Attributes:
        scarcity_stall: a tunnel-front cell whose laid neighbours exclude most of the fitting
            through cards costs up to this many more steps, from nothing until the front has
            been stuck for a table round of turns to all of it after two
            (:meth:`~saboteur_agents.heuristic.agent.HeuristicAgent.scarcity`,
            :meth:`~saboteur_agents.heuristic.maze.Evaluation._scarce_front`; 0: walls ignored).
        keep_rockfall_far, keep_rockfall_near, near_steps: a digger's keep value of a rockfall
            (RULES 3.4), and once the front is within ``near_steps`` steps of a goal.
        mapped_penalty: value lost by mapping a goal that a trusted player already mapped
            (times that player's trust, RULES 3.5).
        infer_goals: weight of the goal hints read from trusted mappers' play (a mapper who
            maps another goal next found stone; one who digs towards the goal found gold).
        break_blocked: worth of breaking a tool of a player who already has one broken,
            relative to an unblocked player (RULES 3.2).
        rockfall_far: a hostile rockfall's cost per cell the card lies farther from the goals
            than the tunnel front (cutting near the start gives a saboteur away at once, RULES
            3.4).
        rescore_top: the best placements by the fast what-if that are valued again on the
            maze with the card laid, walls respected (0: none).
        early_style, early_until: the :class:`Style` of a spec without one (``"heuristic"``,
            ``"heuristic:v1"``) at up to ``early_until`` players (few saboteurs dealt, RULES
            2.2); above, and for ``subtle`` / ``blatant``, :data:`STYLES` as in every version.
    """

    scarcity_stall: float
    keep_rockfall_far: float
    keep_rockfall_near: float
    near_steps: int
    mapped_penalty: float
    infer_goals: float
    break_blocked: float
    rockfall_far: float
    rescore_top: int
    early_style: Style
    early_until: int

    def style_for(self, players: int) -> Style:
        """The default style at ``players`` players."""
        return self.early_style if players <= self.early_until else STYLES[""]


#: version name -> :class:`Tactics` (the spec token ``v1`` / ``v2``; ``v2`` is the default)
TACTICS: Mapping[str, Tactics] = MappingProxyType(
    {
        "v1": Tactics(
            scarcity_stall=0.0,
            keep_rockfall_far=0.4,
            keep_rockfall_near=0.4,
            near_steps=3,
            mapped_penalty=0.0,
            infer_goals=0.0,
            break_blocked=0.25,
            rockfall_far=0.0,
            rescore_top=0,
            early_style=STYLES[""],
            early_until=0,
        ),
        "v2": Tactics(
            scarcity_stall=4.0,
            keep_rockfall_far=0.4,
            keep_rockfall_near=1.0,
            near_steps=3,
            mapped_penalty=0.8,
            infer_goals=1.5,
            break_blocked=-0.3,
            rockfall_far=0.3,
            rescore_top=6,
            # with few saboteurs, sabotage from the first turn with little care for looks: on
            # dev deals a 4-player saboteur wins 5 points more than with the default style,
            # a 7-player one 2 points less
            early_style=Style(honest_turns=0, honest_until=5, suspicion_weight=0.15),
            early_until=5,
        ),
    }
)
LATEST = "v2"


def mend_self(R: float, hostile: bool) -> float:
    """Value of repairing one's own tools (``R``: 1 for the last broken one)."""
    return R + 0.2 if not hostile else 0.6 * R


def mend_self_little(R: float, hostile: bool) -> float:
    """Value of repairing one's own tools for a role that hardly digs (the geologist)."""
    return 0.3 * R


PlacementUtility = Callable[[Decision, Placements], np.ndarray]


@dataclass(frozen=True)
class RolePlay:
    """How one role plays.

    Attributes:
        place: utility of honest placements (:func:`~saboteur_agents.heuristic.scorers.dig` or
            :func:`~saboteur_agents.heuristic.scorers.collect_crystals`).
        place_hostile: utility of placements while sabotaging.
        sabotages: plays for the saboteurs: an honest phase for cover (:class:`Style`), then
            harm; never hands the gold over, holds fire on tools while honest.
        map_value: value of a map on an unknown goal, (honest, sabotaging).
        rockfalls: plays rockfalls at all.
        self_repair: value of repairing oneself, ``(R, sabotaging) -> float``.
        traps: plays Trapped! on enemies (RULES 6.5).
        remove_value: value of discarding two to remove a card in front of oneself, (honest,
            sabotaging) (RULES 6.7 option 3).
        own_door: door colour of its team (``""`` none): played on the main line, kept.
        wall_door: door colour that blocks its team: planned around, never played.
        collects_crystals: values crystal cards (RULES 6.9).
        enemy: role name -> how much it wants to hurt a player of that role (0 friend .. 1
            enemy); missing roles are friends.
    """

    place: PlacementUtility = dig
    place_hostile: PlacementUtility = sabotage
    sabotages: bool = False
    map_value: tuple[float, float] = (1.1, 1.1)
    rockfalls: bool = True
    self_repair: Callable[[float, bool], float] = mend_self
    traps: bool = True
    remove_value: tuple[float, float] = (0.35, 0.35)
    own_door: str = ""
    wall_door: str = ""
    collects_crystals: bool = False
    enemy: Mapping[str, float] = field(default_factory=dict)

    @property
    def own_door_code(self) -> int:
        """``cards.DOOR_CODES`` index of :attr:`own_door` (0 none)."""
        return DOOR_CODES.index(self.own_door)

    @property
    def wall_door_code(self) -> int:
        """``cards.DOOR_CODES`` index of :attr:`wall_door` (0 none)."""
        return DOOR_CODES.index(self.wall_door)

    def __deepcopy__(self, memo: dict) -> RolePlay:
        return self  # a constant of the role table

    def enemy_row(self, roles: tuple[str, ...]) -> np.ndarray:
        """float64 ``(len(roles),)``: :attr:`enemy` in role-id order."""
        return np.array([self.enemy.get(r, 0.0) for r in roles])


#: the base game (RULES 1.5, 2.2): gold-diggers dig; saboteurs dig for cover, then harm
BASE_ROLES: Mapping[str, RolePlay] = {
    "gold-digger": RolePlay(),
    "saboteur": RolePlay(sabotages=True, map_value=(0.9, 0.5)),
}

#: Saboteur 2 (RULES 6.2, 6.9): the teams dig on routes free of the other team's doors, the
#: boss and the profiteer dig for whoever reaches the gold (doors of either colour avoided),
#: the geologist collects crystals and keeps the round going, the saboteur harms everyone
_DIGGER_ENEMIES = {"geologist": 0.1, "saboteur": 1.0}
SABOTEUR_2_ROLES: Mapping[str, RolePlay] = {
    "green-digger": RolePlay(
        own_door="green", wall_door="blue", enemy={"blue-digger": 0.3, **_DIGGER_ENEMIES}
    ),
    "blue-digger": RolePlay(
        own_door="blue", wall_door="green", enemy={"green-digger": 0.3, **_DIGGER_ENEMIES}
    ),
    "boss": RolePlay(enemy=_DIGGER_ENEMIES),
    "profiteer": RolePlay(enemy=_DIGGER_ENEMIES),  # plays like the boss
    "geologist": RolePlay(
        place=collect_crystals,
        map_value=(0.1, 0.1),
        rockfalls=False,
        self_repair=mend_self_little,
        traps=False,
        remove_value=(0.2, 0.2),
        collects_crystals=True,
        enemy={
            "green-digger": 0.3,
            "blue-digger": 0.3,
            "boss": 0.3,
            "profiteer": 0.3,
            "saboteur": 0.3,
        },
    ),
    "saboteur": RolePlay(
        sabotages=True,
        map_value=(1.1, 0.5),
        remove_value=(0.35, 0.2),
        enemy={
            "green-digger": 1.0,
            "blue-digger": 1.0,
            "boss": 1.0,
            "profiteer": 0.6,
            "geologist": 0.3,
        },
    ),
}


def opposed_hurt(q: np.ndarray, e: np.ndarray, hostile: bool) -> np.ndarray:
    """Two opposed camps: help whom one trusts, harm whom one suspects (``2q - 1``); a
    sabotaging saboteur the reverse."""
    return 1.0 - 2.0 * q if hostile else 2.0 * q - 1.0


def enemy_hurt(q: np.ndarray, e: np.ndarray, hostile: bool) -> np.ndarray:
    """Several camps: harm in proportion to how much of an enemy a player is likely to be
    (``2e - 1``, :attr:`RolePlay.enemy`)."""
    return 2.0 * e - 1.0


@dataclass(frozen=True)
class GamePlay:
    """One game's way of playing.

    Attributes:
        maze: the maze model (:class:`~saboteur_agents.heuristic.maze.Maze` for cards described by
        their
            openings, :class:`~saboteur_agents.heuristic.maze.SegmentMaze` for segments, ladders and
            doors, RULES 6.3, 6.4).
        belief: the belief model (:class:`~saboteur_agents.heuristic.belief.AssignmentBelief` exact
            over two-role assignments, :class:`~saboteur_agents.heuristic.belief.SeatBelief` per
            seat).
        roles: role name -> :class:`RolePlay` for every role of the ruleset.
        hurt: ``(q, e, hostile) -> float64 (n,)``, how much the agent wants to harm (positive)
            or help (negative) each seat's tools (:func:`opposed_hurt`, :func:`enemy_hurt`).
        cover_play: a saboteur's honest phase plays towards goals it knows to be stone but
            the public cannot rule out.
        public_looks: the agent judges how its own moves look with the public goal knowledge
            (else with its own).
        public_credit: other players' progress is credited with the public goal knowledge
            (else with the weights used to judge them).
        watched_repairs: repairing another player pays the suspicion penalty as well.
    """

    maze: type[Maze]
    belief: type[RoleBelief]
    roles: Mapping[str, RolePlay]
    hurt: Callable[[np.ndarray, np.ndarray, bool], np.ndarray]
    cover_play: bool
    public_looks: bool
    public_credit: bool
    watched_repairs: bool

    def __deepcopy__(self, memo: dict) -> GamePlay:
        return self  # a constant of GAME_PLAYS


#: ``Ruleset.name`` -> :class:`GamePlay`
GAME_PLAYS: Mapping[str, GamePlay] = MappingProxyType(
    {
        "base": GamePlay(
            maze=Maze,
            belief=AssignmentBelief,
            roles=BASE_ROLES,
            hurt=opposed_hurt,
            cover_play=True,
            public_looks=True,
            public_credit=True,
            watched_repairs=True,
        ),
        "saboteur_2": GamePlay(
            maze=SegmentMaze,
            belief=SeatBelief,
            roles=SABOTEUR_2_ROLES,
            hurt=enemy_hurt,
            cover_play=False,
            public_looks=False,
            public_credit=False,
            watched_repairs=False,
        ),
    }
)


def game_play(rules: Ruleset) -> GamePlay:
    """The :class:`GamePlay` of a ruleset.

    Raises:
        ValueError: no play is defined for the ruleset, or its role table misses a role.
    """
    gp = GAME_PLAYS.get(rules.name)
    if gp is None:
        raise ValueError(
            f"the heuristic has no play for {rules.title!r} ({rules.name}); "
            f"known: {sorted(GAME_PLAYS)}"
        )
    missing = [r for r in rules.roles if r not in gp.roles]
    if missing:
        raise ValueError(f"the heuristic's {rules.name} role table misses {missing}")
    return gp


__all__ = [
    "BASE_ROLES",
    "GAME_PLAYS",
    "GamePlay",
    "RolePlay",
    "SABOTEUR_2_ROLES",
    "LATEST",
    "STYLES",
    "Style",
    "TACTICS",
    "Tactics",
    "enemy_hurt",
    "game_play",
    "mend_self",
    "mend_self_little",
    "opposed_hurt",
]
