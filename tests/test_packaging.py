"""Packaging: what ``pip install`` puts into site-packages.

The repository keeps its folders ``agents/`` and ``experiments/``; they install as
``saboteur_agents`` and ``saboteur_experiments`` (``[tool.setuptools] package-dir`` in
pyproject.toml), so that installing the project never shadows a user's own ``agents`` module.
"""

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: repository folder -> the import name it installs as
FOLDERS = {
    "saboteur_env": "saboteur_env",
    "agents": "saboteur_agents",
    "experiments": "saboteur_experiments",
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel built from a copy of the sources (a copy: no stale ``build/`` folder of the
    checkout can leak modules into it)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for folder in FOLDERS:
        shutil.copytree(
            ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    out = tmp_path_factory.mktemp("wheel")
    run = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    (path,) = out.glob("saboteur_env-*.whl")
    return zipfile.ZipFile(path)


def test_the_wheel_installs_only_saboteur_import_names(wheel):
    top_level = next(n for n in wheel.namelist() if n.endswith(".dist-info/top_level.txt"))
    names = wheel.read(top_level).decode().split()
    assert sorted(names) == ["saboteur_agents", "saboteur_env", "saboteur_experiments"]
    tops = {n.split("/")[0] for n in wheel.namelist() if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"saboteur_agents", "saboteur_env", "saboteur_experiments"}


def test_the_wheel_holds_every_module_the_folders_have(wheel):
    """pyproject lists the packages by hand: a new subpackage left out of it fails here."""
    held = set(wheel.namelist())
    for folder, name in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            assert f"{name}/{path.relative_to(ROOT / folder).as_posix()}" in held, path
    assert "saboteur_agents/checkpoints/ppo_base_5p.pt" in held
    assert "saboteur_agents/checkpoints/ppo_base_5p.json" in held
    assert "saboteur_agents/checkpoints/ppo_sab2_5p.pt" in held
    assert "saboteur_agents/checkpoints/ppo_sab2_5p.json" in held
    assert "saboteur_agents/checkpoints/ppo_sab2_5p_v1.pt" in held  # ppo:sab2-v1
    assert "saboteur_agents/checkpoints/ppo_sab2_5p_v1.json" in held
    assert "saboteur_env/py.typed" in held
    # the browser pages (package data of saboteur_experiments.web)
    for name in ("play.html", "play.js", "replay.js", "saboteur.js", "saboteur.css"):
        assert f"saboteur_experiments/web/static/{name}" in held, name
    entry = next(n for n in held if n.endswith(".dist-info/entry_points.txt"))
    assert "saboteur = saboteur_experiments.cli:main" in wheel.read(entry).decode()


def test_no_file_imports_the_folder_names():
    """Code, docs and the notebook import ``saboteur_agents`` / ``saboteur_experiments``; an
    ``import agents`` would work in the checkout only, and load a second copy of each module."""
    bad = re.compile(
        r"^\s*(?:from|import) (?:agents|experiments)\b|python -m (?:agents|experiments)\.", re.M
    )
    files = [
        p
        for folder in (*FOLDERS, "tests", "docs", "notebooks")
        for p in (ROOT / folder).rglob("*")
        if p.suffix in (".py", ".md", ".ipynb")
    ]
    files.append(ROOT / "README.md")
    offenders = [str(p.relative_to(ROOT)) for p in files if bad.search(p.read_text())]
    assert offenders == []


#: packages only the tests use (the ``dev`` extra): no installed module may import them, or a
#: user of another extra (``tournament``, ``train``, ...) would need them
TEST_ONLY = ("pytest", "_pytest", "hypothesis", "nbclient", "selenium")


def test_no_installed_module_imports_a_test_only_package():
    """``pip install '.[tournament]'`` has no pytest, and needs none: no module of the
    package imports a test-only package (the README's test command installs the ``dev``
    extra for the tests)."""
    names = "|".join(TEST_ONLY)
    bad = re.compile(
        rf"^\s*(?:from|import)\s+(?:{names})\b|import_module\(['\"](?:{names})\b", re.M
    )
    offenders = [
        str(p.relative_to(ROOT))
        for folder in FOLDERS
        for p in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in p.parts and bad.search(p.read_text())
    ]
    assert offenders == []
    assert bad.search("    import pytest\n") and bad.search("from hypothesis import given\n")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^dev = \[[^\]]*"pytest>=', pyproject, re.M)
    assert "pytest" not in re.search(r"^tournament = \[.*\]$", pyproject, re.M).group(0)
