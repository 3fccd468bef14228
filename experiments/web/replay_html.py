"""``saboteur replay REC --html out.html``: a self-contained replay page (no server needed).

The page holds, for one viewer (a seat ``K`` or the spectator), the view of every state of the
record (:func:`.view.view`, without legal moves), the history lines that viewer may see with
the decision they came with, and, where the record's agent at a seat has ``belief()`` (the
heuristic), that agent's role belief (``(n_players, n_roles)``, :meth:`belief`) re-created by
building the agent from the record's agent name, resetting it with the recorded agent seed and
feeding it that seat's observations while replaying (its chosen actions are ignored).  A seat's
page holds only that seat's views and that seat's agent's belief; the spectator page holds
every view and every belief.  The drawing code is the play page's (``static/saboteur.js``),
inlined with the CSS and the data, so the file opens from disk in any browser.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.scoring import side_text
from saboteur_env.record import read_record, replay

from .view import history, maze, view

STATIC = Path(__file__).with_name("static")


def _belief_agents(rec, seats) -> dict[int, object]:
    """Agents with ``belief()`` re-created from the record's agent names (seats ``seats``);
    an agent name that is not a spec, or an agent that needs the live game (a search agent),
    gets none."""
    from saboteur_agents import make_agent
    from saboteur_experiments.play import default_agent_seeds

    seeds = rec.header.get("agent_seeds") or default_agent_seeds(rec.seed, len(rec.agents))
    out = {}
    for s in seats:
        try:
            a = make_agent(rec.agents[s])
        except (ValueError, ImportError, OSError):
            continue
        if not hasattr(a, "belief") or getattr(a, "needs_game", False):
            continue
        a.reset(s, rec.config, seed=int(seeds[s]))
        out[s] = a
    return out


def replay_data(record, viewer, *, beliefs: bool = True) -> dict:
    """The data of a replay page: ``{"viewer", "agents", "roles", "steps", "history"}``.

    ``steps[i]``: ``{"index", "text"`` (the decision, as ``viewer`` may read it), ``"view"``,
    ``"belief"`` (``{seat: rows}`` of the agents with a belief that ``viewer`` may see:
    its own seat's, or every seat's for the spectator), ``"caption"`` (on the two steps
    a round end adds)``}``: the deal, one step per decision, and where a decision ended a
    round and the game goes on, that step shows the round's final maze and result and one
    more shows the next round's deal, so ``1 + D + (R - 1)`` steps for ``D`` decisions in
    ``R`` rounds (as the images of ``saboteur replay --out``); ``history``: ``[[step,
    line], ...]``.

    Raises:
        RecordError: the record does not replay.  ValueError: a bad viewer.
    """
    from saboteur_experiments.replay import _known, decision_text

    rec = read_record(record) if not hasattr(record, "decisions") else record
    n = rec.config.num_players
    if viewer != "spectator" and (
        isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < n
    ):
        raise ValueError(f"viewer={viewer!r}: a seat 0..{n - 1} or 'spectator'")
    seats = range(n) if viewer == "spectator" else [viewer]
    agents = _belief_agents(rec, seats) if beliefs else {}
    enc, codec = ObservationEncoder(rec.config), Codec(rec.config)
    pending: dict[int, list] = {s: [] for s in agents}
    steps, lines = [], []
    seen = 0
    prev: dict = {}  # the view before this step's decision, and the viewer's maps then
    prev_known = None
    for step in replay(rec, copy=False):
        g = step.game
        for e in step.events:
            for s, a in agents.items():
                if e.seen_by(s):
                    pending[s].append(e)
                    if hasattr(a, "observe"):
                        a.observe([e])
        for s, a in agents.items():  # the agent's turn: let it act on what it saw (ignored)
            if not g.game_over and g.current == s:
                a.act(enc.encode(g, s), codec.mask(g, s), {"events": pending[s]})
                pending[s] = []
        hist = history(g, viewer, rec.agents, start=seen)
        seen = len(g.events)
        lines += [[step.index, t] for t in hist]
        text = decision_text(step, viewer, rec.agents).split("\n")[0].strip()
        belief = {
            str(s): np.round(np.asarray(a.belief(), float), 4).tolist() for s, a in agents.items()
        }
        state = view(g, viewer, rec.agents, with_history=False, with_moves=False)
        entry = {"index": step.index, "text": text, "view": state, "belief": belief}
        res = step.round_result
        if res is not None and not g.game_over:
            # the round's end first (the game already holds the next round's deal)
            end = _round_end_view(prev, prev_known, g, viewer, res)
            told = side_text(res.winning_side, res.roles, g.rules)
            over = f"round {res.round + 1} is over: {told}"
            steps.append(
                {
                    "index": step.index,
                    "text": text,
                    "caption": f"decision {step.index}: {text}; {over}",
                    "view": end,
                    "belief": belief,
                }
            )
            entry["text"] = dealt = f"round {res.round + 2} is dealt"
            entry["caption"] = f"{dealt} (after decision {step.index})"
        steps.append(entry)
        prev, prev_known = state, _known(g, viewer)
    return {
        "viewer": viewer,
        "agents": rec.agents,
        "roles": list(rec.config.ruleset.roles),
        "belief_seats": sorted(agents),
        "steps": steps,
        "history": lines,
    }


def _round_end_view(before: dict, known, game, viewer, res) -> dict:
    """The view of round ``res``'s end, made from ``before``, the view before the decision
    that ended it (the game after it already holds the next round's deal): that round's
    final maze (with what the viewer had mapped, ``known``), every role revealed (RULES 5.1),
    its winners, nobody to act, ``round_over`` set; the rest (piles, tools, hand sizes) as
    before that last decision, and no hand of the viewer's or spectator's block."""
    roles = game.rules.roles
    end = dict(
        before,
        maze=maze(game, viewer, board=game.round_boards[res.round], known=known),
        round=res.round + 1,
        to_act=None,
        round_over=True,
        winners=list(res.winners),
        you=None,
        seats=[dict(s, role=roles[int(res.roles[s["seat"]])]) for s in before["seats"]],
    )
    end.pop("spectator", None)
    return end


def _script_json(obj) -> str:
    """JSON safe inside ``<script>``: no ``</`` (a closing tag) and no ``<!--``."""
    return json.dumps(obj, separators=(",", ":")).replace("<", "\\u003c")


def replay_html(record, viewer, *, beliefs: bool = True) -> str:
    """The self-contained replay page (one HTML string) of ``record`` from ``viewer``'s view
    (:func:`replay_data`)."""
    return _page(replay_data(record, viewer, beliefs=beliefs), viewer)


def _page(data: dict, viewer) -> str:
    """The HTML of a replay page holding ``data`` (:func:`replay_data`)."""
    css = (STATIC / "saboteur.css").read_text(encoding="utf-8")
    js = (STATIC / "saboteur.js").read_text(encoding="utf-8")
    page = (STATIC / "replay.js").read_text(encoding="utf-8")
    who = "spectator" if viewer == "spectator" else f"seat {viewer}"
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Saboteur replay ({who})</title>
<style>
{css}
</style>
</head>
<body>
<header><h1>Saboteur replay</h1><span id="status" class="status"></span>
<button id="first">&laquo;</button><button id="prev">&lsaquo; back</button>
<input type="range" id="slider" min="0" value="0">
<button id="next">forward &rsaquo;</button><button id="last">&raquo;</button>
<span id="step"></span></header>
<main>
<section><h2>The maze</h2><div id="maze"></div><div id="caption"></div></section>
<section><h2>Players</h2><div id="seats"></div><h2>View of {who}</h2><div id="you"></div>
<h2>Belief</h2><div id="belief"></div></section>
<section><h2>History</h2><div id="history" class="history"></div></section>
</main>
<script id="replay-data" type="application/json">{_script_json(data)}</script>
<script>
{js}
</script>
<script>
{page}
</script>
</body>
</html>
"""


def write_html(record, viewer, dest, *, beliefs: bool = True) -> int:
    """Write :func:`replay_html` to ``dest``; returns the number of states in the page."""
    data = replay_data(record, viewer, beliefs=beliefs)
    Path(dest).write_text(_page(data, viewer), encoding="utf-8")
    return len(data["steps"])
