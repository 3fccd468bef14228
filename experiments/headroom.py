"""How much could better information alone gain in the role-probe?  A diagnostic of issue 18.

The learning agent ends level with heuristic v2 in the role-probe (one candidate seat among
heuristic-v2 players, paired with the all-heuristic game of the same deal).  These agents ask
how much room that protocol leaves: each is heuristic v2 that **cheats**, reading hidden
information from the live game.

* :class:`OracleRoles`: its belief is every seat's true role (one-hot), where heuristic v2
  infers roles from public actions (its suspicion model).
* :class:`OracleGoals`: it knows which goal card hides the gold (as if it had mapped all
  three, RULES 3.5).
* :class:`Oracle`: both.

They break the rules (RULES 2.2, 3.5: roles and unmapped goals are hidden) and the agent
contract (:attr:`saboteur_agents.base.Agent.needs_game`: a search agent may read the game only
through ``game.determinize``), on purpose, and are not registered agents: play them by module
path, e.g.::

    saboteur evaluate saboteur_experiments.headroom.OracleRoles --against heuristic \\
        --deals 500 --workers 2

Whatever they gain over heuristic v2 is what perfect inference is worth to heuristic v2's own
play; a learner that plays differently may gain more, but a gain well beyond it would have to
come from play, not from reading the other players better.
"""

from __future__ import annotations

import numpy as np

from saboteur_agents.heuristic import HeuristicAgent
from saboteur_env.engine.cards import GOAL_GOLD


class _Cheat(HeuristicAgent):
    """Heuristic v2 reading the true roles (``roles``) and/or goal cards (``goals``) from the
    game it is attached to (engine loops attach it: ``needs_game``)."""

    needs_game = True
    roles = False
    goals = False

    def belief(self) -> np.ndarray:
        """float64 ``(n_players, n_roles)``: with ``roles``, the true roles one-hot (the
        game's ``roles`` now, so after any Swap your hats too); else heuristic v2's."""
        if not self.roles:
            return super().belief()
        b = np.zeros((self.n, self.rules.n_roles))
        b[np.arange(self.n), np.asarray(self.game.roles[: self.n], dtype=np.intp)] = 1.0
        return b

    def _q(self) -> np.ndarray:
        if not self.roles:
            return super()._q()
        return self.belief()[:, self.rules.saboteur]

    def _read_goals(self, board: np.ndarray) -> None:
        super()._read_goals(board)
        if self.goals:  # 0: the gold, 1: a stone (the heuristic's own coding of ``known``)
            self.known[:] = np.where(np.asarray(self.game.board.goal_identity) == GOAL_GOLD, 0, 1)


class OracleRoles(_Cheat):
    """Heuristic v2 that knows every seat's role (a diagnostic: it cheats)."""

    name = "oracle-roles"
    roles = True


class OracleGoals(_Cheat):
    """Heuristic v2 that knows where the gold is (a diagnostic: it cheats)."""

    name = "oracle-goals"
    goals = True


class Oracle(_Cheat):
    """Heuristic v2 that knows every role and where the gold is (a diagnostic: it cheats)."""

    name = "oracle"
    roles = True
    goals = True
