"""docs/spaces.md is generated from the spec kept as data in code (DESIGN 4)."""

from pathlib import Path

from saboteur_env.encoding.observation import describe_spaces


def test_spaces_doc_is_current():
    """docs/spaces.md equals `saboteur spaces` (regenerate: saboteur spaces > docs/spaces.md)."""
    doc = Path(__file__).resolve().parents[1] / "docs" / "spaces.md"
    assert doc.read_text() == describe_spaces() + "\n"
