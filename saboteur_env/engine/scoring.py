"""Saboteur 2 round-end evaluation as pure functions (RULES 6.8, 6.9).

Nothing here touches a :class:`~saboteur_env.engine.state.Game`; the engine calls these with plain
values so that every row of the door evaluation and of the payout table can be tested alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import (
    BLUE_DIGGER,
    BOSS,
    GEOLOGIST,
    GREEN_DIGGER,
    PROFITEER,
    S2_PAYOUT,
    S2_PAYOUT_MANY,
    S2_PAYOUT_REDUCTION,
    X_SABOTEUR,
)


def door_outcome(found: bool, connector_role: int | None, pass_blue: bool,
                 pass_green: bool) -> tuple[bool, bool]:
    """``(blue_wins, green_wins)`` by the door evaluation of RULES 6.9.

    Args:
        found: the gold is connected to a root.
        connector_role: the role (cards.GREEN_DIGGER ...) of the player whose placement
            connected the gold, at round end; ``None`` when not found.
        pass_blue: a route from a root to the gold uses no GREEN door.
        pass_green: a route from a root to the gold uses no BLUE door.
    """
    blue = found and pass_blue and (connector_role != GREEN_DIGGER or not pass_green)
    green = found and pass_green and (connector_role != BLUE_DIGGER or not pass_blue)
    return bool(blue), bool(green)


def winners_s2(roles: Sequence[int], found: bool, connector_role: int | None,
               pass_blue: bool, pass_green: bool, trapped: Sequence[bool],
               both_doors_rule: str = "seed") -> tuple[list[int], str]:
    """The winners set ``W`` of RULES 6.9 (trapped players removed) and the winning side.

    Sides: ``"saboteurs"`` (gold not found, or the SEED both-doors rule without a Boss),
    ``"blue"``, ``"green"``, ``"blue+green"``, ``"boss"`` (gold found behind doors of both colours
    on every route).  Geologists are never winners.

    Both-doors case (``blue_wins`` and ``green_wins`` false although the gold was found):
    ``both_doors_rule="seed"``: the Boss alone wins; with no Boss in play the saboteurs win
    (and the Profiteer with them).  ``"bga"``: the Boss and the Profiteer win (whoever of them
    is in play; with neither, nobody wins).
    """
    n = len(roles)
    seats = range(n)

    def of(*rs):
        return [s for s in seats if roles[s] in rs]

    if not found:
        w, side = of(X_SABOTEUR, PROFITEER), "saboteurs"
    else:
        bw, gw = door_outcome(found, connector_role, pass_blue, pass_green)
        if bw or gw:
            teams = ([BLUE_DIGGER] if bw else []) + ([GREEN_DIGGER] if gw else [])
            w = of(*teams, BOSS, PROFITEER)
            side = "blue+green" if bw and gw else "blue" if bw else "green"
        elif both_doors_rule == "seed":
            if of(BOSS):
                w, side = of(BOSS), "boss"
            else:
                w, side = of(X_SABOTEUR, PROFITEER), "saboteurs"
        else:
            w, side = of(BOSS, PROFITEER), "boss"
    return [s for s in w if not trapped[s]], side


def payouts_s2(roles: Sequence[int], winners: Sequence[int], crystals: int,
               trapped: Sequence[bool]) -> list[int]:
    """Gold each seat receives before thefts (RULES 6.9).

    Each winner gets ``S2_PAYOUT[|W|]`` (1 for 5 or more), the Boss one less, the Profiteer two
    less, never below 0.  Each untrapped geologist gets ``crystals // g``, ``g`` = geologists
    in play (trapped ones included in ``g``, RULES 7.29).
    """
    n = len(roles)
    out = [0] * n
    if winners:
        base = S2_PAYOUT.get(len(winners), S2_PAYOUT_MANY)
        for s in winners:
            out[s] = max(0, base - S2_PAYOUT_REDUCTION.get(int(roles[s]), 0))
    geos = [s for s in range(n) if roles[s] == GEOLOGIST]
    if geos:
        share = crystals // len(geos)
        for s in geos:
            if not trapped[s]:
                out[s] = share
    return out


def theft_order(theft_turn: Sequence[int], has_theft: Sequence[bool],
                trapped: Sequence[bool]) -> list[int]:
    """Seats whose Theft works, in resolution order (RULES 6.9).

    A trapped thief's Theft does not work (RULES 6.5).  Ruling: the working thief who played
    his Theft most recently goes first, then the other working thieves clockwise from him.
    """
    n = len(has_theft)
    thieves = [s for s in range(n) if has_theft[s] and not trapped[s]]
    if not thieves:
        return []
    first = max(thieves, key=lambda s: theft_turn[s])
    return [(first + i) % n for i in range(n) if (first + i) % n in thieves]
