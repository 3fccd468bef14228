"""A user's own detector in the bluff benchmark (``saboteur bluff --detectors MODULE.ATTR``,
``bluff.detectors.load_detector``) and a user's own agent as a population (its records
fingerprinted by its source file, ``bluff.populations.fingerprint``)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from saboteur_experiments.bluff import run
from saboteur_experiments.bluff.cli import main as bluff_main
from saboteur_experiments.bluff.detectors import UniformDetector, load_detector
from saboteur_experiments.bluff.harness import TRACKS, score_record
from saboteur_experiments.bluff.populations import fingerprint

DETECTORS = textwrap.dedent(
    '''
    import numpy as np
    from saboteur_experiments.bluff.detectors import Detector

    class Tilted(Detector):
        """P(saboteur) 0.4 for every player, on both tracks."""
        name = "tilted"
        def belief(self):
            b = np.empty((self.n, self.n_roles))
            b[:, 0], b[:, 1] = 0.6, 0.4
            return b

    class Unnamed(Tilted):
        name = Detector.name
        tracks = ("spectator",)

    class Prior(Tilted):
        name = "prior"

    class NoTracks(Tilted):
        name = "no-tracks"
        tracks = ("everywhere",)

    class Peeker(Tilted):
        name = "peeker"
        needs_decisions = True

    class WrongShape(Tilted):
        name = "wrong-shape"
        def belief(self):
            return np.full((self.n, 3), 1 / 3)

    class Boom(Tilted):
        name = "boom"
        def update(self, event):
            if event.type == "path_placed":
                raise RuntimeError("detector boom")

    class Spectator(Tilted):
        name = "spectator-only"
        tracks = ("spectator",)

    def not_a_detector():
        return 3

    def fails():
        raise RuntimeError("no data file")
    '''
)
AGENT = textwrap.dedent(
    """
    import numpy as np
    from saboteur_agents.base import Agent

    class FirstLegal(Agent):
        def act(self, observation, action_mask, info=None):
            return int(np.flatnonzero(action_mask)[0])

    class Searcher(FirstLegal):
        needs_game = True
    """
)


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "my_bluff_detectors.py").write_text(DETECTORS)
    (tmp_path / "my_bluff_agents.py").write_text(AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_bluff_detectors"


def test_load_detector_names_tracks_and_errors(user_module):
    name, factory, tracks = load_detector(f"{user_module}.Tilted")
    assert (name, tracks) == ("tilted", ("spectator", "in-seat"))
    assert type(factory()).__name__ == "Tilted"
    # the default name is the spec; its own tracks are kept
    assert load_detector(f"{user_module}.Unnamed")[::2] == (
        f"{user_module}.Unnamed",
        ("spectator",),
    )
    for attr, message in (
        ("Prior", r"its name 'prior' is one of the benchmark's own"),
        ("NoTracks", r"tracks \('everywhere',\)"),
        ("Peeker", r"needs_decisions without samples asks for every actor's private view"),
        ("not_a_detector", r"returned int, not a saboteur_experiments.bluff.detectors.Detector"),
        ("fails", r"fails\(\) failed \(RuntimeError: no data file\)"),
        ("Missing", r"has no detector class or factory 'Missing'"),
    ):
        with pytest.raises(ValueError, match=message):
            load_detector(f"{user_module}.{attr}")
    with pytest.raises(ValueError, match=r"module 'no_such_detectors' does not import"):
        load_detector("no_such_detectors.Tilted")


def test_a_users_detector_is_scored_beside_the_benchmarks_own(user_module, tmp_path):
    out = tmp_path / "out"
    kw = dict(players=[3], games=3, fit_games=2, pops=["random"], bootstrap=50, plots=False)
    s = run(
        out=out, quiet=True, detectors=[f"{user_module}.Tilted", f"{user_module}.Unnamed"], **kw
    )
    cells = {(c["track"], c["detector"]): c for c in s["cells"]}
    assert ("spectator", "tilted") in cells and ("in-seat", "tilted") in cells
    assert ("spectator", f"{user_module}.Unnamed") in cells  # spectator only: its tracks
    assert ("in-seat", f"{user_module}.Unnamed") not in cells
    assert s["user_detectors"] == [f"{user_module}.Tilted", f"{user_module}.Unnamed"]
    # the figures of a constant belief, computed here from the same test records
    from saboteur_env.record import read_record
    from saboteur_experiments.bluff.records import record_seeds

    folder = out / "records" / "paired" / "random_n3"
    sink: dict = {}
    facs = {t: [("tilted", load_detector(f"{user_module}.Tilted")[1])] for t in TRACKS}
    for i, seed in enumerate(record_seeds(0, 3, "test", 3)):
        score_record(read_record(folder / f"game_{seed}.jsonl"), i, facs, sink)
    y = sink[("spectator", "tilted")].arrays()["y"]
    expected = -np.mean(np.where(y == 1, np.log(0.4), np.log(0.6)))
    assert cells[("spectator", "tilted")]["log_loss"][0] == pytest.approx(expected, rel=1e-6)
    # the benchmark's own detectors are not changed by a user's
    plain = run(out=out, quiet=True, **kw)
    before = {(c["track"], c["detector"]): c["ll_skill"] for c in plain["cells"]}
    assert before == {k: c["ll_skill"] for k, c in cells.items() if k in before}
    assert set(before) == {k for k in cells if k[1] not in ("tilted", f"{user_module}.Unnamed")}


def test_bluff_cli_refuses_a_bad_detector_before_playing(user_module, tmp_path, capsys):
    for value, message in (
        (f"{user_module}.not_a_detector", "returned int"),
        (f"{user_module}.Tilted,{user_module}.Tilted", "listed twice; list each detector once"),
        (f"{user_module}.Tilted,", "--detectors: an empty detector"),
        ("no_such_detectors.X", "does not import"),
    ):
        with pytest.raises(SystemExit) as e:
            bluff_main(["--detectors", value, "--out", str(tmp_path / "o"), "--games", "2"])
        assert e.value.code == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_a_users_agent_population_is_fingerprinted_by_its_source(user_module, tmp_path):
    spec = "my_bluff_agents.FirstLegal"
    first = fingerprint(spec)
    assert first.startswith(spec + "#") and first != spec
    assert fingerprint(spec) == first  # the same file, the same records
    path = tmp_path / "my_bluff_agents.py"
    searcher = fingerprint("my_bluff_agents.Searcher")
    path.write_text(AGENT + "\n# edited\n")
    assert fingerprint(spec) != first  # an edit plays new games
    # a search agent of the user's: both its source and the determinization name its games
    from saboteur_env.engine.determinize import REVISION

    assert searcher.endswith(f"#determinize{REVISION}") and searcher.count("#") == 2
    assert fingerprint("my_bluff_agents.Searcher") != searcher
    assert fingerprint("heuristic") == "heuristic" and UniformDetector.name == "uniform"


def test_record_folders_of_specs_are_single_folder_names(tmp_path):
    from saboteur_experiments.bluff.records import record_set

    paths = record_set(tmp_path, "rolesplit:random/random", 3, 2, rounds=1)
    assert [p.parent.name for p in paths] == ["rolesplit~random+random_n3"] * 2
    assert paths[0].parent.parent == tmp_path / "records" / "paired"
    from saboteur_experiments.bluff.records import _FOLDER_SAFE

    assert 'a:b/c\\d*e?f"g<h>i|j'.translate(_FOLDER_SAFE) == "a~b+c+d_e_f_g_h_i_j"


def test_the_benchmarks_own_detector_names_are_the_declared_ones():
    from saboteur_experiments.bluff.detectors import BUILTIN_NAMES
    from saboteur_experiments.bluff.pipeline import _factories

    fitted = {"bayes-fit": None, "logistic": {t: None for t in TRACKS}}
    models = (object(), object())  # every factory listed (none is called)
    names = {n for t in TRACKS for n, _ in _factories(t, fitted, True, models, 8)}
    assert names == set(BUILTIN_NAMES)


def test_search_populations_are_fingerprinted_by_the_determinization_revision():
    from saboteur_env.engine.determinize import REVISION
    from saboteur_experiments.bluff.populations import POPULATIONS

    tag = f"#determinize{REVISION}"
    ismcts, evasive = POPULATIONS["heuristic-ismctssab"], POPULATIONS["heuristic-evasivesab"]
    assert fingerprint(ismcts) == ismcts + tag
    assert fingerprint(evasive) == evasive + tag
    assert fingerprint("ismcts") == "ismcts" + tag
    assert fingerprint("rolesplit:heuristic/random") == "rolesplit:heuristic/random"


def test_a_failing_detector_is_named_with_its_track_seat_record_and_decision(user_module):
    """A detector that raises, or returns a belief that is not a distribution, fails the
    scoring with a ``DetectorError`` (an ``AgentError``: one line on the command line) naming
    the detector (its row label), its track and observer seat, the record and the decision."""
    import io

    from saboteur_agents.base import AgentError
    from saboteur_env import Game, GameConfig
    from saboteur_env.engine.events import EventType
    from saboteur_env.record import read_record, replay, write_record
    from saboteur_experiments.bluff.harness import DetectorError

    game = Game(GameConfig(num_players=3, num_rounds=1), 7)
    rng = np.random.default_rng(0)
    while not game.game_over:
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    buf = io.StringIO()
    write_record(buf, game, 7, ["random"] * 3)
    rec = read_record(buf.getvalue())
    # the decisions played when the first path card is placed (Boom raises on it)
    placed = next(
        st.game.decisions
        for st in replay(rec)
        if any(e.type is EventType.PATH_PLACED for e in st.events)
    )

    def fails(track, attr):
        facs = {track: [(f"my-{attr}", load_detector(f"{user_module}.{attr}")[1])]}
        with pytest.raises(DetectorError) as e:
            score_record(rec, 0, facs, {})
        assert isinstance(e.value, AgentError)
        return str(e.value)

    assert fails("spectator", "WrongShape") == (
        "detector 'my-WrongShape' (spectator track) on the record of deal seed 7, decision 0: "
        "BeliefError: belief shape (3, 3), expected (3, 2)"
    )
    assert fails("in-seat", "Boom") == (
        f"detector 'my-Boom' (in-seat track, seat 0) on the record of deal seed 7, decision "
        f"{placed}: RuntimeError: detector boom"
    )
    assert fails("in-seat", "Spectator") == (
        "detector 'my-Spectator' (in-seat track, seat 0) on the record of deal seed 7, "
        "decision 0: ValueError: detector 'spectator-only' runs on the ('spectator',) "
        "track(s) only, not 'in-seat'"
    )
