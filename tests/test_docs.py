"""docs/spaces.md is generated from the spec kept as data in code (DESIGN 4)."""

from pathlib import Path

from saboteur_env.encoding.observation import describe_spaces


def test_spaces_doc_is_current():
    """docs/spaces.md equals `saboteur spaces` (regenerate: saboteur spaces > docs/spaces.md)."""
    doc = Path(__file__).resolve().parents[1] / "docs" / "spaces.md"
    assert doc.read_text() == describe_spaces() + "\n"


def test_ci_runs_the_readme_test_command():
    """.ci/run calls the README's test command line for line (the second command block)."""
    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    blocks = [b.split("```", 1)[0].strip() for b in readme.split("```bash\n")[1:]]
    test_cmd = blocks[1].removeprefix("python3 -m venv .venv && . .venv/bin/activate && ")
    ci = (root / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == test_cmd


def test_readme_loop_runs_and_replays_the_same_game():
    """The README's first Python example runs as written and is reproducible."""
    import contextlib
    import io

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    outs = []
    for _ in range(2):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "README.md", "exec"), {})
        outs.append(buf.getvalue())
    assert outs[0] == outs[1] and outs[0].startswith("[")
    # the output the README shows under the code
    shown = code.split("# prints: ", 1)[1].splitlines()[0]
    assert outs[0].strip() == shown
    # the trajectory, not only the final gold (random play's gold mostly follows the deal)
    gold, rest = outs[0].split("]", 1)
    count, first = rest.split(" ", 2)[1:]
    assert int(count) > 20 and first.startswith("[") and first.count(",") == 3


def test_the_agents_doc_lists_every_event_type():
    """docs/agents.md's event table has one row per ``EventType``, no more, and says what the
    engine emits: in seeded games of both rulesets (random play, every type but the rarest),
    an event is public exactly where its row says "all", and every key of its data is named in
    its row."""
    import re

    import numpy as np

    from saboteur_env.engine.config import GameConfig
    from saboteur_env.engine.events import EventType
    from saboteur_env.engine.state import Game

    doc = (Path(__file__).resolve().parents[1] / "docs" / "agents.md").read_text()
    section = doc.split("## The events an agent sees", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \| (.+) \|$", section, flags=re.M)[1:]  # header
    assert [r[0] for r in rows] == [t.value for t in EventType]
    table = {name: (seen.strip(), data) for name, seen, data in rows}
    seen_types = set()
    for expansion in (False, True):
        for seed in range(4):
            game = Game(GameConfig(num_players=5, expansion=expansion), seed)
            rng = np.random.default_rng(seed)
            while not game.game_over:
                legal = game.legal_actions()
                game.apply(legal[int(rng.integers(len(legal)))])
            for e in game.events:
                seen_by, data = table[e.type.value]
                assert (seen_by == "all") == (e.visible_to is None), e
                missing = [k for k in e.data if f"`{k}`" not in data]
                assert not missing, (e.type.value, missing)
                seen_types.add(e.type)
    assert len(seen_types) >= len(EventType) - 4  # a game rarely holds every type


def test_the_docs_home_page_gives_the_readmes_two_commands():
    """docs/index.md repeats the README's two commands: the same lines, so neither drifts."""
    root = Path(__file__).resolve().parents[1]

    def commands(text: str) -> list[str]:
        return [b.split("```", 1)[0].strip() for b in text.split("```bash\n")[1:3]]

    index = (root / "docs" / "index.md").read_text()
    body = index.split("## The two commands", 1)[1]
    assert commands(body) == commands((root / "README.md").read_text())


def test_the_docs_list_every_winning_side():
    """README, getting-started and the agents doc's ``round_end`` row name exactly the values
    ``RoundResult.winning_side`` takes (``scoring.SIDE_TEXT``: the base game says
    ``"saboteur"``, Saboteur 2 ``"saboteurs"``, so code comparing one word missed the other
    game's saboteur wins) and the flag that holds both (``saboteurs_won``)."""
    import re

    from saboteur_env.engine.scoring import SABOTEUR_SIDES, SIDE_TEXT

    root = Path(__file__).resolve().parents[1]

    def paragraph(path: str, start: str, end: str) -> str:
        text = " ".join((root / path).read_text().split())
        return text.split(start, 1)[1].split(end, 1)[0]

    for text in (
        paragraph("README.md", "`round_result` summarises it", "revealed roles"),
        paragraph("docs/getting-started.md", "`round_result` summarises it", "revealed roles"),
        paragraph("docs/agents.md", "| `round_end` |", "`winners`"),
    ):
        assert set(re.findall(r'`"([^"`]+)"`', text)) == set(SIDE_TEXT), text
        assert "saboteurs_won" in text and 'both_doors_rule="bga"' in text
    assert set(SABOTEUR_SIDES) < set(SIDE_TEXT)
