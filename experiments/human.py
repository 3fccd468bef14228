"""Play Saboteur in the terminal against agents: ``saboteur play --human 0 --agents heuristic``.

Each time the person is to act they see what happened since their last turn (only what their
seat may know: other players' discards are face down, map results are private), the maze and
their own role, gold and hand (:func:`~saboteur_env.render.render_ansi`), and every legal move
in words, numbered; they type a number.  Bad input gets a clear message and the question again.
``m`` redraws the maze, ``h`` shows help, ``q`` stops the game.  Round results (roles revealed,
gold received) are shown as rounds end, and the final standings at the end.

Input is read from a stream (stdin by default) and output written to a stream (stdout), so a
game can be scripted (tests do).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

import saboteur_env
from saboteur_agents.base import REFUSED_ACTION, attach_game, blame_agent
from saboteur_env.encoding.codec import legal_indices
from saboteur_env.engine.cards import (
    ALL_KINDS,
    FRONT_SLOTS,
    GOAL_CELLS,
    GOAL_GOLD,
    TOOLS,
    VARIANT_OF,
    VARIANTS,
)
from saboteur_env.engine.events import EventType, RoundResult
from saboteur_env.engine.ruleset import BASE, RULESETS, Ruleset
from saboteur_env.engine.scoring import side_text
from saboteur_env.engine.state import BreakTool, Discard, Map, PlacePath, Repair, Rockfall
from saboteur_env.render import render_ansi
from saboteur_experiments.play import default_agent_seeds

GOAL_POS = ("top", "middle", "bottom")
#: the action families whose moves :func:`move_text` tells in words (the base game's, RULES 3)
FAMILIES = ("place", "rockfall", "map", "tool", "discard")
HELP = """\
How to play: type the number of a move and press Enter.
  m  show the maze again      h  this help      q  stop the game
Coordinates are (x, y): x grows towards the goals (east), y grows downwards (south);
the start is (0, 0), the goals are at (8, -2), (8, 0) and (8, 2).
A "rotated" card is turned 180 degrees; the letters say where its tunnels then open.
In the maze: S start, + tunnel card, x dead end, [?] face-down goal, [g]/[o] a goal you mapped
as gold/stone, G/O a goal turned over; | and - are tunnel openings."""


def _seat(s: int, me: int) -> str:
    return "you" if s == me else f"seat {s}"


def _seat_pos(s: int, me: int, actor: int) -> str:
    """Whose (seat ``s``'s) card ``actor``'s move touches, told to seat ``me``."""
    if s == me:
        return "your own" if actor == me else "your"
    return "their own" if s == actor else f"seat {s}'s"


def _seat_obj(s: int, me: int) -> str:
    return "you" if s == me else f"seat {s}"


def card_name(k: int) -> str:
    """``B05 T-junction N-E-S`` for a path card, ``broken lantern`` for an action card."""
    kind = ALL_KINDS[k]
    return f"{kind.id} {kind.name}" if kind.category == "path" else kind.name


def supports(rules) -> bool:
    """Whether a person can play a game of ``rules`` here: every action family it offers has
    its moves told in words (:data:`FAMILIES`; Saboteur 2's action cards are not)."""
    return set(rules.families) <= set(FAMILIES)


def move_text(action, actor: int) -> str:
    """A legal move of ``actor`` in words, e.g. ``place B05 T-junction N-E-S rotated (opens
    N-S-W) at (3, -1)`` or ``break seat 2's lantern``."""
    if isinstance(action, PlacePath):
        kind = ALL_KINDS[action.kind]
        text = f"place {kind.id} {kind.name}"
        if action.rotated:
            v = VARIANTS[VARIANT_OF[(action.kind, True)]]
            sides = "-".join(n for b, n in enumerate("NESW") if v.openings & (1 << b))
            text += f" rotated (opens {sides})"
        return text + f" at ({action.x}, {action.y})"
    if isinstance(action, BreakTool):
        tool = TOOLS[ALL_KINDS[action.kind].effect[1]]
        return f"break {_seat_pos(action.target, actor, actor)} {tool}"
    if isinstance(action, Repair):
        return (
            f"repair {_seat_pos(action.target, actor, actor)} {TOOLS[action.tool]}"
            f" (with {ALL_KINDS[action.kind].name})"
        )
    if isinstance(action, Rockfall):
        return f"rockfall: remove the card at ({action.x}, {action.y})"
    if isinstance(action, Map):
        x, y = GOAL_CELLS[action.goal]
        return f"map: look at the {GOAL_POS[action.goal]} goal ({x}, {y})"
    if isinstance(action, Discard):
        return f"pass, discarding {card_name(action.kind)}"
    return repr(action)


def event_text(e, viewer, names: Sequence[str] | None = None, rules: Ruleset = BASE) -> str | None:
    """What ``viewer`` (a seat, or ``"spectator"``) sees of event ``e``; ``None``: nothing to
    say (the event is private to someone else, or is shown another way).  ``rules``: the
    game's ruleset (``game.rules``: its role names, RULES 1.5, 6.2)."""
    roles = rules.roles
    if viewer != "spectator" and not e.seen_by(viewer):
        return None
    me = viewer if isinstance(viewer, int) else -1
    d = e.data
    who = ""
    if e.seat is not None:
        who = _seat(e.seat, me).capitalize() if e.seat == me else f"Seat {e.seat}"
        if names and e.seat != me:
            who += f" ({names[e.seat]})"
    t = e.type
    if t is EventType.ROUND_START:
        return f"--- Round {d['round'] + 1} begins; seat {d['first_player']} plays first ---"
    if t is EventType.ROLE_DEALT:
        return (
            f"{who} are a {roles[d['role']]}."
            if e.seat == me
            else f"{who} is a {roles[d['role']]}."
        )
    if t is EventType.PATH_PLACED:
        a = PlacePath(d["kind"], d["x"], d["y"], bool(d["rotated"]))
        return f"{who}: {move_text(a, e.seat)}"
    if t is EventType.GOAL_REVEALED:
        what = "GOLD!" if d["identity"] == GOAL_GOLD else "stone"
        return f"  The {GOAL_POS[d['goal']]} goal ({d['x']}, {d['y']}) is turned over: {what}"
    if t is EventType.TOOL_BROKEN:
        return f"{who}: break {_seat_pos(d['target'], me, e.seat)} {TOOLS[d['tool']]}"
    if t is EventType.TOOL_REPAIRED:
        return f"{who}: repair {_seat_pos(d['target'], me, e.seat)} {TOOLS[d['tool']]}"
    if t is EventType.ROCKFALL:
        return f"{who}: rockfall removes the card at ({d['x']}, {d['y']})"
    if t is EventType.MAP_PLAYED:
        return f"{who}: look at the {GOAL_POS[d['goal']]} goal with a map"
    if t is EventType.MAP_RESULT:
        what = "GOLD" if d["identity"] == GOAL_GOLD else "stone"
        whose = "Your" if e.seat == me else f"Seat {e.seat}'s"
        return f"  {whose} map: the {GOAL_POS[d['goal']]} goal is {what}."
    if t is EventType.DISCARDED:  # a seat's own discard is told with its card, next
        return None if e.seat == me else f"{who}: pass, discarding a card face down"
    if t is EventType.DISCARDED_CARD:
        if e.seat == me:
            return f"{who}: pass, discarding {card_name(d['kind'])} face down"
        return f"  (seat {e.seat} discarded {ALL_KINDS[d['kind']].id})"
    if t is EventType.CARD_DRAWN:
        return f"  {who} draw{'' if e.seat == me else 's'} {card_name(d['kind'])}."
    if t is EventType.GOLD_RECEIVED:
        return f"  {who} receive{'' if e.seat == me else 's'} {d['gold']} gold."
    if t in (EventType.ROUND_END, EventType.GAME_END):
        return None  # printed with the round result
    if t is EventType.ROUND_SCORED:  # Saboteur 2: the roles are turned up before the thefts
        revealed = ", ".join(f"seat {s}: {roles[r]}" for s, r in enumerate(d["roles"]))
        return (
            f"--- Round {d['round'] + 1} is over: "
            f"{side_text(d['winning_side'], d['roles'], rules)}; "
            f"roles revealed ({revealed}); the thefts follow ---"
        )
    # Saboteur 2 (RULES 6.5-6.9)
    if t is EventType.ACTION_PLAYED:
        card = ALL_KINDS[d["kind"]].name
        return f"{who}: play {card} on {_seat_obj(d['target'], me)}"
    if t is EventType.INSPECTION_RESULT:
        return f"  Your inspection: seat {d['target']} is a {roles[d['role']]}."
    if t is EventType.REMOVE_STARTED:
        return f"{who}: discard two cards to remove the {FRONT_SLOTS[d['slot']]} card in front"
    if t is EventType.FRONT_REMOVED:
        return f"  {who} remove{'' if e.seat == me else 's'} the {FRONT_SLOTS[d['slot']]} card."
    if t is EventType.PASS_DONE:
        return f"{who}: pass, {d['discarded']} card(s) discarded face down"
    if t is EventType.THEFT:
        return f"{who}: steal 1 gold from {_seat_obj(d['target'], me)}"
    if t is EventType.THEFT_SKIPPED:
        return f"{who}: no one to steal from"
    # a new event type must get its own text here (its payload is not printed raw: it may
    # hold what another viewer should not read aloud)
    raise ValueError(f"event_text: no text for event type {t}")


def round_result_text(
    res: RoundResult,
    me: int | None = None,
    game_over: bool = False,
    rules: Ruleset = BASE,
) -> str:
    """The result of a round: winners, every seat's role (public at round end, RULES 5.1) and
    the gold received.

    ``me``: the viewing seat, or ``None`` for the spectator.  Gold cards are secret until the
    game ends (RULES 5.3), so before the end (``game_over`` false) a seat sees only its own
    amount; the spectator, and everyone once the game is over, sees every amount.  ``rules``:
    the game's ruleset (``game.rules``: its role names)."""
    roles = rules.roles
    lines = [
        f"=== Round {res.round + 1} is over: "
        + f"{side_text(res.winning_side, res.roles, rules)} after {res.turns} turns"
        + (f" (seat {res.connector} reached the gold)" if res.gold_found else "")
        + " ==="
    ]
    public = me is None or game_over
    for s, r in enumerate(res.roles):
        you = "  <- you" if s == me else ""
        gold = f" {res.received[s]:+d} gold" if public or s == me else ""  # a theft: -1
        lines.append(f"  seat {s}: {roles[r]:<12}{gold}{you}".rstrip())
    if not public:
        lines.append("  (the others' gold stays secret until the game ends)")
    return "\n".join(lines)


def move_lines(moves: Sequence, actor: int, compact_over: int = 30, width: int = 100) -> list[str]:
    """The numbered list of ``moves`` (1-based), one move a line; when there are more than
    ``compact_over`` moves, placements of the same oriented card share a line
    (``place B05 T-junction N-E-S at:  3) (1, 0)   4) (2, -1)``)."""
    if len(moves) <= compact_over:
        return [f"{k + 1:>3}) {move_text(a, actor)}" for k, a in enumerate(moves)]
    lines: list[str] = []
    group, head = None, ""
    for k, a in enumerate(moves):
        if not isinstance(a, PlacePath):
            group = None
            lines.append(f"{k + 1:>3}) {move_text(a, actor)}")
            continue
        key = (a.kind, a.rotated)
        item = f"{k + 1:>3}) ({a.x}, {a.y})"
        if key != group:
            group = key
            head = move_text(PlacePath(a.kind, 0, 0, a.rotated), actor).rsplit(" at ", 1)[0]
            lines.append(f"{head} at:")
        if len(lines[-1]) + len(item) + 2 > width:
            lines.append(" " * 4)
        lines[-1] += "  " + item
    return lines


def build_agents(specs: Sequence[str], players: int, human: int, out) -> list:
    """One agent per seat (``None`` at the human's seat), specs cycled over the other seats.

    An unknown spec (e.g. ``"heuristic"`` before it exists) falls back to ``"random"`` with a
    message."""
    from saboteur_agents import make_agent

    agents = []
    others = [s for s in range(players) if s != human]
    missing = {}
    for s in range(players):
        if s == human:
            agents.append(None)
            continue
        spec = specs[others.index(s) % len(specs)]
        try:
            agents.append(make_agent(spec))
        except ValueError as err:
            missing.setdefault(spec, (err, []))[1].append(s)
            agents.append(make_agent("random"))
    for spec, (err, seats) in missing.items():
        print(
            f"Agent {spec!r} is not available yet ({err}); seat(s) "
            f"{', '.join(map(str, seats))} play 'random' instead.",
            file=out,
        )
    return agents


class _Quit(Exception):
    pass


def _ask(inp, out, n_moves: int) -> int | str:
    """Read one answer: a move number (0-based) or a command letter; re-prompt on bad input."""
    while True:
        print(f"Your move (1-{n_moves}; m maze, h help, q quit): ", end="", file=out)
        out.flush() if hasattr(out, "flush") else None
        line = inp.readline()
        if line == "":
            print("\nInput ended: stopping the game.", file=out)
            raise _Quit
        text = line.strip().lower()
        if text in ("q", "quit", "exit"):
            raise _Quit
        if text in ("m", "h", "help", "?"):
            return "h" if text in ("h", "help", "?") else "m"
        if not text:
            print("Please type the number of a move.", file=out)
            continue
        try:
            k = int(text)
        except ValueError:
            print(
                f"'{line.strip()}' is not a move number: type a number from 1 to {n_moves}, "
                "or m, h, q.",
                file=out,
            )
            continue
        if not 1 <= k <= n_moves:
            print(f"There is no move {k}: choose a number from 1 to {n_moves}.", file=out)
            continue
        return k - 1


def fresh_seed() -> int:
    """A deal seed of the train split drawn from the operating system's entropy (a human game
    given no ``--seed``: the same default deal every time would let a person who played it
    once know where the gold is)."""
    from saboteur_experiments.evaluation.splits import draw_train_seed

    return draw_train_seed(np.random.default_rng())


def play_human(
    human: int = 0,
    agents: Sequence[str] = ("random",),
    *,
    players: int = 5,
    seed: int | None = None,
    rounds: int = 3,
    inp=None,
    out=None,
    record=None,
    **config,
) -> dict:
    """Play one game in the terminal: a person at seat ``human``, agents at the others.

    Args:
        human: the person's seat.
        agents: agent specs, cycled over the other seats (unknown ones fall back to random).
        players / seed / rounds: number of players, deal seed, rounds in the game.  With no
            seed a fresh one is drawn from the train split (:func:`fresh_seed`), so a person
            playing again does not meet a deal whose gold they already found; it is printed
            when the game ends or is stopped (it gives the whole deal away).
        inp / out: text streams for input and output (default stdin / stdout).
        record: optional path or stream for the game record (:mod:`saboteur_env.record`).
        config: other :class:`~saboteur_env.engine.config.GameConfig` options.

    Returns:
        ``{"gold", "winners", "rounds", "decisions", "quit"}``.
    """
    inp = sys.stdin if inp is None else inp
    out = sys.stdout if out is None else out
    if not 0 <= human < players:
        raise ValueError(f"--human {human}: the seat must be 0..{players - 1}")
    env = saboteur_env.raw_env(num_players=players, num_rounds=rounds, **config)
    if not supports(env.config.ruleset):
        raise ValueError(f"human play is base game only, not {env.config.ruleset.title}")
    bots = build_agents(list(agents), players, human, out)
    names = ["you" if b is None else b.name for b in bots]
    drawn = seed is None
    if drawn:
        seed = fresh_seed()  # told only when the game is over: it gives the whole deal away
    env.reset(seed=seed)
    game = env.game
    seeds = default_agent_seeds(seed, players)
    for s, b in enumerate(bots):
        if b is not None:
            b.reset(s, env.config, seed=seeds[s])
    attach_game([b for b in bots if b is not None], game)
    print(
        f"Saboteur: you are seat {human} of {players}; "
        + ", ".join(f"seat {s}: {n}" for s, n in enumerate(names) if s != human)
        + f". {rounds} round(s). Type h for help.",
        file=out,
    )
    cursor = 0
    shown = 0
    quit_ = False
    decisions = 0

    def flush_events():
        nonlocal cursor, shown
        for e in game.events[cursor:]:
            text = event_text(e, human, names, game.rules)
            if text:
                print(text, file=out)
            if e.type is EventType.ROUND_END:
                res = game.round_results[shown]
                shown += 1
                maze = render_ansi(game, human, board=game.round_boards[res.round])
                print(f"The maze at the end of round {res.round + 1}:", file=out)
                print(maze.split("\n", 1)[1], end="", file=out)
                print(round_result_text(res, human, game.game_over, game.rules), file=out)
        cursor = len(game.events)

    try:
        for name in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            flush_events()
            seat = env.agent_name_mapping[name]
            if seat != human:
                where = f"decision {game.decisions}"  # not the seed: it tells the deal
                with blame_agent(bots[seat], seat, where):
                    action = bots[seat].act(obs["observation"], obs["action_mask"], info)
                with blame_agent(bots[seat], seat, where, only=REFUSED_ACTION):
                    env.step(action)
            else:
                action = _human_turn(env, game, human, obs["action_mask"], inp, out)
                env.step(action)
            decisions += 1
        flush_events()
    except _Quit:
        quit_ = True
    if record is not None:  # a stopped game is recorded as "truncated"
        from saboteur_env.record import write_record

        write_record(record, game, seed, names)
    winners = game.winners()
    if game.game_over:
        print("\nFinal gold:", file=out)
        for s in range(players):
            mark = "  <- winner" if s in winners else ""
            print(f"  seat {s} {names[s]:<16} {int(game.gold[s]):>3}{mark}", file=out)
    else:  # gold stays secret until the game ends (RULES 5.3): only the person's own
        print(
            f"\nFinal gold (game stopped early): your gold {int(game.gold[human])}; "
            "the others' gold stays secret.",
            file=out,
        )
    if drawn:
        print(f"deal seed {seed} (--seed {seed} deals this game again)", file=out)
    return {
        "gold": game.gold.tolist(),
        "winners": winners,
        "rounds": game.round_results,
        "decisions": decisions,
        "quit": quit_,
    }


def _human_turn(env, game, human: int, mask, inp, out) -> int:
    codec = env.codec
    legal = legal_indices(mask).tolist()
    moves = [codec.decode(i, human, game.n) for i in legal]
    order = sorted(range(len(moves)), key=lambda j: _move_key(moves[j]))
    legal = [legal[j] for j in order]
    moves = [moves[j] for j in order]

    def show():
        print("", file=out)
        print(render_ansi(game, human), end="", file=out)
        if game.broken[human].any():
            broken = ", ".join(TOOLS[t] for t in range(3) if game.broken[human, t])
            print(f"Your broken tools: {broken} (you may not place path cards).", file=out)
        ident = game.board.goal_identity
        known = [
            f"{GOAL_POS[g]}: {'gold' if ident[g] == GOAL_GOLD else 'stone'}"
            for g in range(3)
            if game.known_goals[human, g] and not game.board.goal_revealed[g]
        ]
        if known:
            print("Goals you have seen: " + ", ".join(known), file=out)
        print(f"Your legal moves ({len(moves)}):", file=out)
        for line in move_lines(moves, human):
            print(line, file=out)

    show()
    while True:
        ans = _ask(inp, out, len(moves))
        if ans == "h":
            print(HELP, file=out)
        elif ans == "m":
            show()
        else:
            return legal[ans]


def _move_key(a) -> tuple:
    order = (PlacePath, BreakTool, Repair, Rockfall, Map, Discard)
    t = next(i for i, c in enumerate(order) if isinstance(a, c))
    return (
        t,
        getattr(a, "kind", 0),
        bool(getattr(a, "rotated", False)),
        getattr(a, "x", 0),
        getattr(a, "y", 0),
        getattr(a, "target", 0),
        getattr(a, "goal", 0),
    )


def main(argv=None) -> None:
    """``python -m saboteur_experiments.human`` (same options as ``saboteur play --human``)."""
    import argparse

    from saboteur_experiments.cli_args import (
        add_game_size,
        at_least,
        check_agents,
        check_config,
        check_output_file,
    )

    p = argparse.ArgumentParser(
        prog="saboteur play --human", description="Play one game in the terminal against agents."
    )
    p.add_argument("--human", type=int, default=0, metavar="SEAT")
    add_game_size(p, [r for r in RULESETS.values() if supports(r)])
    p.add_argument(
        "--seed",
        type=at_least(0),
        default=None,
        help="deal seed (default: a fresh one, printed after the game)",
    )
    p.add_argument("--agents", default="random")
    p.add_argument("--record", default=None, metavar="PATH")
    args = p.parse_args(argv)
    check_config(p, num_players=args.players, num_rounds=args.rounds)
    specs = [s.strip() for s in args.agents.split(",")]
    check_agents(p, specs)
    if not 0 <= args.human < args.players:
        p.error(f"--human {args.human}: the seat must be 0..{args.players - 1}")
    if args.record is not None:
        check_output_file(p, args.record, "--record")
    play_human(
        args.human,
        specs,
        players=args.players,
        seed=args.seed,
        rounds=args.rounds,
        record=args.record,
    )


if __name__ == "__main__":
    main()
