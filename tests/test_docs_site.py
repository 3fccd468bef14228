"""The documentation site (mkdocs.yml, docs/) builds with `mkdocs build --strict`.

Needs the `docs` extra (`pip install -e ".[docs]"`); skipped without mkdocs.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("material")
pytest.importorskip("mkdocstrings_handlers.python")

ROOT = Path(__file__).resolve().parents[1]


def test_docs_site_builds_strict(tmp_path):
    """Every page in the nav exists, every link resolves and the API reference renders without
    a warning (strict mode turns warnings into errors)."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "index.html").is_file()
    api = (tmp_path / "api" / "index.html").read_text()
    for name in (
        "saboteur_env.engine.Game",
        "saboteur_env.encoding.Codec",
        "saboteur_env.aec.raw_env",
        # the folders agents/ and experiments/ under their import names (pyproject package-dir)
        "saboteur_agents.heuristic.HeuristicAgent",
        "saboteur_experiments.evaluation.protocols.role_probe",
    ):
        assert f'id="{name}"' in api
