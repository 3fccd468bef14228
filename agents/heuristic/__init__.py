"""The heuristic agent (``make_agent("heuristic")``, styles ``"heuristic:subtle"`` and
``"heuristic:blatant"``): one role-aware rule-based player with a suspicion model for the base
game and Saboteur 2 (DESIGN 6, 8).

* :mod:`.maze`: the maze model, rebuilt from the observation and replayed from events, and its
  value in tunnel steps.
* :mod:`.belief`: the exact role priors and the suspicion model (self-contained).
* :mod:`.scorers`: one scorer per action family (placement, rockfall, map, tools, discard, the
  Saboteur 2 action cards and sub-phases).
* :mod:`.strategy`: styles, the per-role strategy tables and what differs between the games.
* :mod:`.agent`: :class:`HeuristicAgent`.
"""

from ..base import register_agent
from .agent import HeuristicAgent
from .belief import exact_prior_belief, role_assignment_prior, role_marginal
from .maze import Evaluation, Maze, SegmentMaze
from .strategy import STYLES, Style

__all__ = [
    "Evaluation",
    "HeuristicAgent",
    "Maze",
    "STYLES",
    "SegmentMaze",
    "Style",
    "exact_prior_belief",
    "role_assignment_prior",
    "role_marginal",
]

register_agent("heuristic", HeuristicAgent)
