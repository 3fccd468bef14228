"""Round end and scoring: the base game's gold-nugget payouts (RULES 5.1-5.5) and Saboteur 2's
door evaluation, payouts and thefts (RULES 6.8, 6.9).

The Saboteur 2 evaluation is pure functions over plain values (:func:`door_outcome`,
:func:`winners_s2`, :func:`payouts_s2`, :func:`theft_order`) so that every row of the door
evaluation and of the payout table can be tested alone; the functions over a game
(:func:`end_round`, :func:`steal`, :func:`close_round`) carry the result into the state.  Which
round end applies is the ruleset's ``end_round``.

The base game's payouts are one function over plain values, :func:`base_payout` (the supply's
card values, the round's roles, connector and last card's seat), which :func:`end_round_base`
applies to the game and ``determinize`` replays on sampled supply orders (RULES 5.3: the gold
cards are secret).

The base game's payouts and rewards (``end_round_base``, ``round_rewards``) are restated by the
batched engine's compiled kernels (``saboteur_env/vector/kernels.py``), which
``tests/test_vector.py`` checks against this module over whole games, and the events of
:func:`close_round` by ``saboteur_env/vector/arrays.py`` (``tests/test_aec_backends.py``): a
change here needs the same change there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .cards import (
    BOSS,
    DOOR_CODES,
    GEOLOGIST,
    GOLD_DIGGER,
    PROFITEER,
    S2_PAYOUT,
    S2_PAYOUT_MANY,
    S2_PAYOUT_REDUCTION,
    SABOTEUR,
    SABOTEUR_PAYOUT,
    X_SABOTEUR,
)
from .events import BASE_FIELDS, BASE_PUBLIC, EventType, RoundResult
from .phases import Phase

if TYPE_CHECKING:
    from .board import Board
    from .config import GameConfig
    from .ruleset import Ruleset
    from .state import Game


#: door colour codes (``cards.DOOR_CODES``) of the two gold-digger teams, and of no team
_BLUE, _GREEN, _NO_TEAM = DOOR_CODES.index("blue"), DOOR_CODES.index("green"), DOOR_CODES.index("")


def door_outcome(
    found: bool,
    connector_role: int | None,
    pass_blue: bool,
    pass_green: bool,
    role_doors: Sequence[int],
) -> tuple[bool, bool]:
    """``(blue_wins, green_wins)`` by the door evaluation of RULES 6.9.

    A team wins when the gold is found and a route avoids every door of the other colour,
    unless a member of the other team connected and that team's way is open too.

    Args:
        found: the gold is connected to a root.
        connector_role: the role id of the player whose placement connected the gold, at
            round end; ``None`` when not found.
        pass_blue: a route from a root to the gold uses no GREEN door.
        pass_green: a route from a root to the gold uses no BLUE door.
        role_doors: per role id, the door colour code of its team (``Ruleset.role_doors``;
            ``cards.DOOR_CODES``, 0 for no team).
    """
    open_way = {_BLUE: pass_blue, _GREEN: pass_green}
    conn_team = role_doors[connector_role] if connector_role is not None else _NO_TEAM

    def wins(team: int) -> bool:
        rival_connected = conn_team not in (_NO_TEAM, team) and open_way.get(conn_team, False)
        return bool(found and open_way[team] and not rival_connected)

    return wins(_BLUE), wins(_GREEN)


def winners_s2(
    roles: Sequence[int],
    found: bool,
    connector_role: int | None,
    pass_blue: bool,
    pass_green: bool,
    trapped: Sequence[bool],
    both_doors_rule: str = "seed",
    *,
    role_doors: Sequence[int],
) -> tuple[list[int], str]:
    """The winners set ``W`` of RULES 6.9 (trapped players removed) and the winning side.

    Sides: ``"saboteurs"`` (gold not found, or the SEED both-doors rule without a Boss),
    ``"blue"``, ``"green"``, ``"blue+green"``; gold found behind doors of both colours on
    every route: ``"boss"``, or under ``"bga"`` with no Boss in play ``"profiteer"`` (the
    Profiteer alone) or ``"none"`` (neither in play: nobody wins).  Geologists are never
    winners.  ``role_doors``: each role's team, as :func:`door_outcome` reads it.

    Both-doors case (``blue_wins`` and ``green_wins`` false although the gold was found):
    ``both_doors_rule="seed"``: the Boss alone wins; with no Boss in play the saboteurs win
    (and the Profiteer with them).  ``"bga"``: the Boss and the Profiteer win (whoever of them
    is in play; with neither, nobody wins: the saboteurs win only when the gold is not found).
    """
    n = len(roles)
    seats = range(n)

    def of(*rs: int) -> list[int]:
        return [s for s in seats if roles[s] in rs]

    if not found:
        w, side = of(X_SABOTEUR, PROFITEER), S2_SABOTEUR_SIDE
    else:
        bw, gw = door_outcome(found, connector_role, pass_blue, pass_green, role_doors)
        if bw or gw:
            won = {door for door, wins in ((_BLUE, bw), (_GREEN, gw)) if wins}
            teams = [r for r, d in enumerate(role_doors) if d in won]
            w = of(*teams, BOSS, PROFITEER)
            side = "blue+green" if bw and gw else "blue" if bw else "green"
        elif both_doors_rule == "seed":
            if of(BOSS):
                w, side = of(BOSS), "boss"
            else:
                w, side = of(X_SABOTEUR, PROFITEER), S2_SABOTEUR_SIDE
        else:
            w = of(BOSS, PROFITEER)
            side = "boss" if of(BOSS) else "profiteer" if of(PROFITEER) else "none"
    return [s for s in w if not trapped[s]], side


def payouts_s2(
    roles: Sequence[int], winners: Sequence[int], crystals: int, trapped: Sequence[bool]
) -> list[int]:
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


#: ``RoundResult.winning_side`` -> how it is told: the base game's sides (RULES 5.2, 5.3) and
#: Saboteur 2's (RULES 6.9: a team, both teams, the boss, the saboteurs; under
#: ``both_doors_rule="bga"`` with no Boss in play the profiteer, or nobody), with the verb's form
SIDE_TEXT: dict[str, tuple[str, str]] = {
    "gold-digger": ("the gold-diggers", "win"),
    "saboteur": ("the saboteurs", "win"),
    "saboteurs": ("the saboteurs", "win"),
    "blue": ("the blue diggers", "win"),
    "green": ("the green diggers", "win"),
    "blue+green": ("the blue+green diggers", "win"),
    "boss": ("the boss", "wins"),
    "profiteer": ("the profiteer", "wins"),
    "none": ("nobody", "wins"),
}


#: the ``RoundResult.winning_side`` of a saboteur win: the base game's (RULES 5.3) and
#: Saboteur 2's (RULES 6.9); the one place these are spelled (``RoundResult.saboteurs_won``)
BASE_SABOTEUR_SIDE, S2_SABOTEUR_SIDE = "saboteur", "saboteurs"
SABOTEUR_SIDES = (BASE_SABOTEUR_SIDE, S2_SABOTEUR_SIDE)


def saboteurs_in_play(roles: Sequence[int], rules: Ruleset) -> int:
    """How many seats hold the saboteur role (``roles``: role id per seat, e.g. a round
    result's, after any Swap your hats, RULES 6.5); 0 happens (RULES 2.2: some role cards stay
    face down, so a 4-player base round has 0 or 1)."""
    return sum(1 for r in roles if r == rules.saboteur)


def side_text(
    winning_side: str, roles: Sequence[int] | None = None, rules: Ruleset | None = None
) -> str:
    """The winning side of a round told in words, e.g. ``"the saboteurs win"``, ``"the boss
    wins"``, ``"nobody wins"`` (:data:`SIDE_TEXT`; an unknown side is told as it is spelled).

    Given the round's ``roles`` (role id per seat) and its ``rules``, a saboteur win with no
    saboteur in play (RULES 2.2; in Saboteur 2 the Profiteer may then be its only winner,
    RULES 6.9) is told as ``"the saboteurs' side wins (no saboteur in play)"``."""
    who, verb = SIDE_TEXT.get(winning_side, (f"the {winning_side}", "win"))
    if winning_side in SABOTEUR_SIDES and roles is not None and rules is not None:
        if not saboteurs_in_play(roles, rules):
            return "the saboteurs' side wins (no saboteur in play)"
    return f"{who} {verb}"


def seat_won(
    winners: Sequence[int], roles: Sequence[int], paid: Sequence[int], seat: int, rules: Ruleset
) -> bool:
    """Did ``seat`` win the round: it is in the round's winners set (RULES 5.3, 6.9); a
    Saboteur 2 geologist (``Ruleset.paid_roles``), never in that set, wins when he was paid
    more than 0 gold.  ``winners``, ``roles``, ``paid``: a :class:`RoundResult`'s fields."""
    if seat in winners:
        return True
    return roles[seat] in rules.paid_roles and paid[seat] > 0


def theft_order(
    theft_turn: Sequence[int], has_theft: Sequence[bool], trapped: Sequence[bool]
) -> list[int]:
    """Seats whose Theft works, in resolution order (RULES 6.9).

    The player who played a Theft card most recently goes first, then the other thieves
    clockwise from him; a trapped thief's Theft does not work (RULES 6.5), so trapped thieves
    are skipped, also when the most recent one is trapped (the order still starts from him).

    Restated for the observation's ``theft_order`` column by the batched engine's kernels
    (``saboteur_env/vector/kernels.py`` ``encode_x``), which ``tests/test_vector.py`` checks
    against the encoder: a change here needs the same change there.
    """
    n = len(has_theft)
    played = [s for s in range(n) if has_theft[s]]
    if not played:
        return []
    first = max(played, key=lambda s: theft_turn[s])
    order = [(first + i) % n for i in range(n)]
    return [s for s in order if has_theft[s] and not trapped[s]]


# --- round end over a game ---------------------------------------------------------------
#: the record fields of a Saboteur 2 round result (RULES 6.9); the base game's are the default
S2_FIELDS = (
    *BASE_FIELDS[:7],
    "paid",
    *BASE_FIELDS[7:],
    "pass_blue",
    "pass_green",
    "crystals",
    "trapped",
    "thefts",
)
S2_PUBLIC = (*BASE_PUBLIC, "pass_blue", "pass_green", "crystals", "thefts")


def end_round(game: Game, gold_found: bool, connector: int | None) -> None:
    """The round is over (RULES 5.1, 6.8): score it by the ruleset's round end."""
    game.rules.end_round(game, gold_found, connector)


def end_round_base(game: Game, gold_found: bool, connector: int | None) -> None:
    """Base game: the gold-diggers share gold-nugget cards if the gold was reached, else the
    saboteurs are paid (RULES 5.2, 5.3; :func:`base_payout` over the game's supply)."""
    n = game.n
    received = np.zeros(n, dtype=np.int64)
    supply = game.nuggets.tolist()
    forfeit: Sequence[bool] = ()
    if game.config.broken_tool_forfeit:
        forfeit = [bool(b.any()) for b in game.broken]
    paid = base_payout(
        supply, gold_found, connector, game.roles.tolist(), game.last_card_seat, forfeit
    )
    game.nuggets = np.array(supply, dtype=np.int8)
    for s, v in paid:
        received[s] += v
        game.gold_cards[s, v - 1] += 1
    game.gold += received
    result = base_result(
        game.round,
        gold_found,
        connector,
        game.roles.tolist(),
        received.tolist(),
        game.last_card_seat,
        game.turn,
    )
    close_round(game, result)


def base_result(
    round_: int,
    gold_found: bool,
    connector: int | None,
    roles: list[int],
    received: list[int],
    last_card_seat: int,
    turns: int,
) -> RoundResult:
    """The base game's :class:`RoundResult` (RULES 5.1-5.3): the gold-diggers win if the gold
    was reached, else the saboteurs; ``received``: the gold each seat was paid (ints).  Also
    read by the batched engine's ``arrays.round_end``, for rounds its kernels ended."""
    side = GOLD_DIGGER if gold_found else SABOTEUR
    return RoundResult(
        round=round_,
        gold_found=gold_found,
        winning_side="gold-digger" if gold_found else BASE_SABOTEUR_SIDE,
        winners=[s for s, role in enumerate(roles) if role == side],
        connector=connector,
        roles=list(roles),
        received=list(received),
        paid=list(received),
        last_card_seat=last_card_seat,
        turns=turns,
        fields=BASE_FIELDS,
    )


def most_gold(gold: Sequence[int]) -> list[int]:
    """The seats with the most gold (ties share the win, RULES 5.5): the game's winners."""
    best = max(gold)
    return [s for s, g in enumerate(gold) if g == best]


def nugget_cards_drawn(num_players: int) -> int:
    """Gold-nugget cards drawn when the gold is reached: one per player, 9 at 10 players
    (RULES 5.2)."""
    return 9 if num_players == 10 else num_players


def base_payout(
    supply: list[int],
    gold_found: bool,
    connector: int | None,
    roles: Sequence[int],
    last_card_seat: int,
    forfeit: Sequence[bool] = (),
) -> list[tuple[int, int]]:
    """The gold-nugget cards one base-game round pays (RULES 5.2, 5.3), on plain values: the
    one statement of the payout rules, for :func:`end_round_base` and for replaying past
    rounds on a sampled supply (``determinize``).

    Args:
        supply: the values (1-3) of the gold-nugget cards in the supply, top first; the cards
            paid are taken out of it (the list is changed).
        gold_found / connector: the gold was reached, by that seat (RULES 5.2).
        roles: the role id of each seat at round end.
        last_card_seat: the seat of the round's last card-consuming turn (RULES 5.3, 5.4).
        forfeit: per seat, a broken tool in front of it forfeits its share
            (``GameConfig.broken_tool_forfeit``, RULES 5.2); empty: no seat forfeits.

    Returns:
        ``(seat, value)`` of every card paid, in the order taken.

    Raises:
        ValueError: the gold was found with no ``connector``, or ``forfeit`` is given with
            another length than ``roles``.
    """
    if forfeit and len(forfeit) != len(roles):
        raise ValueError(f"forfeit: one flag per seat ({len(roles)}), got {len(forfeit)}")
    if gold_found:
        if connector is None:
            raise ValueError("gold_found with no connector: the seat that reached the gold")
        eligible = [
            roles[s] == GOLD_DIGGER and not (forfeit and forfeit[s]) for s in range(len(roles))
        ]
        return pay_diggers(supply, connector, eligible)
    return pay_saboteurs(supply, roles, last_card_seat)


def pay_diggers(
    supply: list[int], connector: int, eligible: Sequence[bool]
) -> list[tuple[int, int]]:
    """RULES 5.2: N cards (9 at 10 players) taken from the top of ``supply`` (the list is
    changed) and picked counter-clockwise by the ``eligible`` seats (one flag per seat),
    starting with the connector (or the first eligible digger counter-clockwise from a
    saboteur connector).  Each picker automatically keeps the highest card left (RULES 10.1).
    Nothing is drawn when no seat is eligible.  Returns ``(seat, value)`` per card."""
    n = len(eligible)
    take = min(nugget_cards_drawn(n), len(supply))
    if not any(eligible) or take == 0:
        return []
    cards = sorted(supply[:take], reverse=True)
    del supply[:take]
    order = [(connector - i) % n for i in range(n)]  # counter-clockwise from connector
    pickers = [s for s in order if eligible[s]]
    k = len(pickers)
    return [(pickers[i % k], v) for i, v in enumerate(cards)]


def pay_saboteurs(
    supply: list[int], roles: Sequence[int], last_card_seat: int
) -> list[tuple[int, int]]:
    """RULES 5.3: 4/3/3/2 nuggets each for 1/2/3/4 saboteurs, taken out of ``supply`` (the
    list is changed; of each value, the card nearest the top); the change ruling: in turn
    order from the player after the last player, each takes an exact-sum combination with
    the largest values first, else the largest total not above the entitlement.  Returns
    ``(seat, value)`` per card."""
    n = len(roles)
    sabs = [(last_card_seat + 1 + i) % n for i in range(n)]
    sabs = [s for s in sabs if roles[s] == SABOTEUR]
    if not sabs:
        return []
    due = SABOTEUR_PAYOUT[min(len(sabs), 4)]
    out: list[tuple[int, int]] = []
    for s in sabs:
        avail = [supply.count(v) for v in (1, 2, 3)]
        best: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None
        for n3 in range(min(avail[2], due // 3), -1, -1):
            for n2 in range(min(avail[1], (due - 3 * n3) // 2), -1, -1):
                n1 = min(avail[0], due - 3 * n3 - 2 * n2)
                key = (3 * n3 + 2 * n2 + n1, n3, n2)
                if best is None or key > best[0]:
                    best = (key, (n1, n2, n3))
        assert best is not None
        n1, n2, n3 = best[1]
        for v, cnt in ((3, n3), (2, n2), (1, n1)):
            for _ in range(cnt):
                supply.remove(v)
                out.append((s, v))
    return out


def score_s2(
    config: GameConfig,
    board: Board,
    roles: list[int],
    gold_found: bool,
    connector: int | None,
    trapped: list[bool],
    round: int,
    last_card_seat: int,
    turns: int,
) -> RoundResult:
    """Saboteur 2's door evaluation and payouts of a round that ended (RULES 6.9), before
    the thefts: its :class:`RoundResult` (``received`` = ``paid``, no thefts yet).  The
    engine's round end (:func:`end_round_s2`) and the batched engine's
    (``vector/arrays.py``) both score here.

    Args:
        board: the round's final maze (its doors, crystals and the gold goal).
        roles: each seat's role id at the round's end; ``trapped``: each seat has a Trapped!
            card in front; ``connector``: the seat that reached the gold (``None``: not found).
    """
    n = len(roles)
    pass_blue = gold_found and board.gold_reachable(_GREEN)  # no green door on the route
    pass_green = gold_found and board.gold_reachable(_BLUE)  # no blue door on the route
    conn_role = roles[connector] if connector is not None else None
    winners, side = winners_s2(
        roles,
        gold_found,
        conn_role,
        pass_blue,
        pass_green,
        trapped,
        config.both_doors_rule,
        role_doors=config.ruleset.role_doors,
    )
    crystals = board.crystals()
    received = payouts_s2(roles, winners, crystals, trapped)
    return RoundResult(
        round=round,
        gold_found=gold_found,
        winning_side=side,
        winners=winners,
        connector=connector,
        roles=roles,
        received=list(received),
        paid=list(received),
        last_card_seat=last_card_seat,
        turns=turns,
        pass_blue=bool(pass_blue),
        pass_green=bool(pass_green),
        crystals=crystals,
        trapped=[s for s in range(n) if trapped[s]],
        thefts=[],
        public=S2_PUBLIC,
        fields=S2_FIELDS,
    )


def scored_data(result: RoundResult) -> dict[str, object]:
    """The payload of the public ``round_scored`` event that opens the thefts: the result so
    far, every role revealed (RULES 5.1, 6.9), without the thefts (``round_end`` tells them)."""
    scored = result.public_data()
    del scored["thefts"]
    return scored


def end_round_s2(game: Game, gold_found: bool, connector: int | None) -> None:
    """Saboteur 2: the door evaluation and payouts (:func:`score_s2`), then the thefts as
    decisions of the thieves (:attr:`Phase.THEFT`); the round closes after the last theft
    (RULES 6.9).  When an untrapped player has a Theft card in front, the public
    ``round_scored`` event (the result so far, every role revealed, RULES 5.1) opens the
    theft phase."""
    trapped = game.xfront[:, 0].tolist()
    result = game.pending_result = score_s2(
        game.config,
        game.board,
        game.roles.tolist(),
        gold_found,
        connector,
        trapped,
        game.round,
        game.last_card_seat,
        game.turn,
    )
    game.gold += np.array(result.received, dtype=np.int64)
    game.phase = Phase.THEFT
    game.theft_queue = theft_order(game.theft_turn.tolist(), game.xfront[:, 1].tolist(), trapped)
    if game.theft_queue:
        # the dwarf cards are turned up and the round scored before the thefts (RULES 5.1,
        # 6.9): the thieves choose knowing the roles and the winners
        game.emit(EventType.ROUND_SCORED, None, scored_data(result))
    _next_thief(game)


# the flow of _next_thief and steal is restated for the batched engine by
# ``ArrayGames.settle`` (``saboteur_env/vector/arrays.py``, which calls score_s2, theft_order
# and skip_thieves), checked by tests/test_vector.py: change both together
def skip_thieves(queue: list[int], gold: np.ndarray) -> list[int]:
    """Take from the front of the theft ``queue`` (in place) the thieves with nobody to rob:
    no other player holds gold (RULES 6.9); returns them, in order, each skipped without a
    decision.  The queue's first thief left, if any, acts next.  ``gold``: int64 ``(n,)``,
    every seat's gold now."""
    from .actions.steal import victims_of

    skipped = []
    while queue and not victims_of(gold, queue[0]).any():
        skipped.append(queue.pop(0))
    return skipped


def _next_thief(game: Game) -> None:
    for s in skip_thieves(game.theft_queue, game.gold):
        game.emit(EventType.THEFT_SKIPPED, s, {})
    if game.theft_queue:
        game.current = game.theft_queue[0]
        return
    result = game.pending_result
    assert result is not None
    game.pending_result = None
    game.phase = Phase.TURN
    close_round(game, result)


def steal(game: Game, seat: int, target: int) -> None:
    """The thief ``seat`` takes 1 gold from ``target`` (RULES 6.9); the next thief acts."""
    game.gold[target] -= 1
    game.gold[seat] += 1
    result = game.pending_result
    assert result is not None
    result.received[target] -= 1
    result.received[seat] += 1
    result.thefts.append((seat, target))
    game.emit(EventType.THEFT, seat, {"target": target})
    game.theft_queue.pop(0)
    _next_thief(game)


def close_round(game: Game, result: RoundResult) -> None:
    """Record the round's result, emit ``round_end`` (its public fields, roles revealed,
    RULES 5.1), each seat's private ``gold_received``, then end the game (RULES 5.5) or deal
    the next round with the left neighbour of the last player (RULES 5.4).

    These events (with ``setup.deal_round``'s ``round_start`` and ``role_dealt``) are restated
    for rounds the batched engine ends by ``saboteur_env/vector/arrays.py``
    (``close_events``), which ``tests/test_aec_backends.py`` checks against this function: a
    change here needs the same change there."""
    from .setup import deal_round

    n = game.n
    game.round_results.append(result)
    game.round_boards.append(game.board)  # the final maze of each round, for replays
    game.round_over = True
    game.emit(EventType.ROUND_END, None, result.public_data())
    for s in range(n):
        game.emit(
            EventType.GOLD_RECEIVED,
            s,
            {"round": result.round, "gold": int(result.received[s])},
            visible_to=s,
        )
    if game.round + 1 >= game.config.num_rounds:
        game.game_over = True
        game.emit(EventType.GAME_END, None, {"gold": game.gold.tolist(), "winners": game.winners()})
        return
    game.round += 1
    deal_round(game, (game.last_card_seat + 1) % n)


def round_rewards(result: RoundResult, reward: str, rules: Ruleset) -> list[int]:
    """The env's reward of every seat for a finished round (``GameConfig.reward``, DESIGN 5):
    ``"win"``: +1 for a seat that won the round (:func:`seat_won`: in the winners set, or a
    Saboteur 2 geologist paid more than 0 gold, RULES 6.9), -1 otherwise; ``"gold"``: the
    gold it received that round, thefts included (RULES 5.3, 6.9).  One entry per seat, ints.

    Raises:
        ValueError: an unknown ``reward``.
    """
    if reward == "win":
        return [
            1 if seat_won(result.winners, result.roles, result.paid, i, rules) else -1
            for i in range(len(result.received))
        ]
    if reward == "gold":
        return [int(g) for g in result.received]
    raise ValueError(f"reward={reward!r}; valid: 'win', 'gold'")
