"""Actors for the bluff benchmark's frontier populations.

:class:`RoleSplitAgent` plays one policy on gold-digger turns and another on saboteur turns, so
that saboteur policies can be compared against the *same* gold-diggers.  Spec (registered with
:func:`saboteur_agents.base.register_agent`)::

    make_agent("rolesplit:<digger spec>/<saboteur spec>")
    make_agent("rolesplit:heuristic/random")      # heuristic diggers, random saboteurs
    make_agent("rolesplit:heuristic/mimic")       # saboteurs play exactly like diggers

``mimic`` is the zero-sabotage reference: the saboteur's turns are played by the digger policy
shown a gold-digger observation (own-role bits and ``role_dealt`` events rewritten), so its
saboteurs neither hurt the diggers nor give anything away.

Roles come from ``config.ruleset``; the mimic's disguise per ruleset is :data:`DISGUISE`.
Saboteur 2 (RULES 6.2): the split is saboteur (``ruleset.saboteur``) against every other role
(the digger spec plays green and blue gold-diggers, the boss, the profiteer and the geologist
as itself), and a mimic saboteur is shown the **boss** card: the boss digs for whichever team
reaches the gold and shuns doors of either colour (RULES 6.9), the honest play that favours
no team.  A Swap your hats can move a seat between the two policies mid-round.

Both sub-agents see every ``info["events"]`` batch (buffered until they next act), so their
trackers stay complete across role changes between rounds.
"""

from __future__ import annotations

import numpy as np

from saboteur_agents.base import Agent, make_agent, register_agent
from saboteur_env.engine.events import EventType
from saboteur_env.engine.ruleset import BASE, SABOTEUR_2
from saboteur_env.engine.state import Event

#: ruleset name -> the role a mimic saboteur is shown: the base game's gold-digger, Saboteur
#: 2's boss (RULES 6.9: it digs for whichever team reaches the gold and shuns either's doors)
DISGUISE = {BASE.name: "gold-digger", SABOTEUR_2.name: "boss"}
#: keys of the two sub-agents (also their seed offsets, ``seed + 7919 * key``)
DIGGER_POLICY, SABOTEUR_POLICY = 0, 1


class RoleSplitAgent(Agent):
    """Digger policy on gold-digger turns, saboteur policy on saboteur turns (Saboteur 2:
    saboteur policy on saboteur turns, digger policy on every other role's turns).

    The sub-agents are keyed :data:`DIGGER_POLICY` (0) and :data:`SABOTEUR_POLICY` (1).

    Args:
        digger: agent spec for gold-digger turns.
        saboteur: agent spec for saboteur turns, or ``"mimic"``.
    """

    name = "rolesplit"

    def __init__(self, digger: str = "heuristic", saboteur: str = "mimic") -> None:
        self.digger_spec, self.saboteur_spec = digger, saboteur
        self.rng = np.random.default_rng()

    def reset(self, seat, config, seed=None) -> None:
        super().reset(seat, config, seed)
        from saboteur_env.encoding.observation import ObservationEncoder

        self.encoder = ObservationEncoder(config)
        rules = config.ruleset
        #: the saboteur's role index, how many role bits to read, and the mimic's disguise
        self.sab, self.n_roles = rules.saboteur, rules.n_roles
        self.disguise = rules.role_id(DISGUISE[rules.name])
        self.subs = {DIGGER_POLICY: make_agent(self.digger_spec)}
        mimic = self.saboteur_spec == "mimic"
        self.subs[SABOTEUR_POLICY] = make_agent(self.digger_spec if mimic else self.saboteur_spec)
        self.mimic = mimic
        for k, a in self.subs.items():
            a.reset(seat, config, seed=None if seed is None else seed + 7919 * k)
        self.buffers = {DIGGER_POLICY: [], SABOTEUR_POLICY: []}
        #: a search sub-agent (e.g. ``ismcts``) needs the live game: the loop attaches it here
        #: (:func:`saboteur_agents.base.attach_game`) and :meth:`attach` passes it on
        self.needs_game = any(getattr(a, "needs_game", False) for a in self.subs.values())

    def attach(self, game) -> None:
        """Pass the live game on to every sub-agent that needs it (a search saboteur)."""
        super().attach(game)
        for a in self.subs.values():
            if getattr(a, "needs_game", False):
                a.attach(game)

    def _disguise(self, events):
        return [
            Event(e.type, e.seat, {**e.data, "role": self.disguise}, e.visible_to)
            if e.type == EventType.ROLE_DEALT and int(e.data["role"]) == self.sab
            else e
            for e in events
        ]

    def act(self, observation, action_mask, info=None) -> int:
        """The sub-agent of the seat's current role (read from the observation's ``role``
        view) chooses; a mimic saboteur's sub-agent sees the disguise role instead."""
        events = list((info or {}).get("events", []))
        for k in self.buffers:
            self.buffers[k].extend(
                self._disguise(events) if (k == SABOTEUR_POLICY and self.mimic) else events
            )
        role = int(np.argmax(self.encoder.views(np.asarray(observation))["role"][: self.n_roles]))
        obs = observation
        role = SABOTEUR_POLICY if role == self.sab else DIGGER_POLICY  # the sub-agent's key
        if role == SABOTEUR_POLICY and self.mimic:
            obs = np.array(observation, copy=True)
            v = self.encoder.views(obs)["role"]
            v[:] = 0
            v[self.disguise] = 1
        ev, self.buffers[role] = self.buffers[role], []
        return self.subs[role].act(obs, action_mask, {"events": ev})


def _factory(option: str = "heuristic/mimic") -> RoleSplitAgent:
    digger, sep, saboteur = option.partition("/")
    if not sep or not digger or not saboteur:
        raise ValueError(f"rolesplit:{option}: expected rolesplit:<digger spec>/<saboteur spec>")
    return RoleSplitAgent(digger, saboteur)


register_agent("rolesplit", _factory)

from . import adversary  # noqa: E402, F401  (registers "evasive", a saboteur policy)
