"""Realistic broken bundles (tests/fixtures/broken/*/), written after the mistakes
real agent files make (see each fixture's README.md): `promptc lint` prints
exactly the diagnostic lines in its expected.txt (hints aside), and
`promptc build` writes nothing when any of them is an error.

expected.txt is a golden file. When a new rule or a reworded message changes
the output on purpose, regenerate and review the diff:

    PROMPTC_UPDATE_FIXTURES=1 .venv/bin/pytest tests/test_broken_fixtures.py
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run

Runner = Callable[..., Run]

FIXTURES = Path(__file__).parent / "fixtures" / "broken"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
UPDATE = os.environ.get("PROMPTC_UPDATE_FIXTURES") == "1"


@pytest.fixture
def bundle(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / request.param
    shutil.copytree(FIXTURES / request.param, root, ignore=shutil.ignore_patterns("expected.txt"))
    monkeypatch.chdir(root)
    return root


def test_every_layout_is_covered() -> None:
    assert {name.split("-")[0] for name in CASES} >= {"claude", "opencode"}
    assert len(CASES) >= 10


@pytest.mark.parametrize("bundle", CASES, indirect=True)
def test_lint_reports_the_expected_diagnostics(bundle: Path, run: Runner) -> None:
    expected_file = FIXTURES / bundle.name / "expected.txt"
    result = run("lint")
    assert "internal error" not in result.err
    # Diagnostic lines only: hints below them are advice, worded by each stage.
    lines = "".join(line for line in result.out.splitlines(True) if not line.startswith(" "))
    if UPDATE:
        expected_file.write_text(lines)
    assert lines == expected_file.read_text()
    has_error = ": error [" in result.out
    assert result.code == (1 if has_error else 0)


@pytest.mark.parametrize("bundle", CASES, indirect=True)
def test_build_writes_nothing_when_an_error_exists(bundle: Path, run: Runner) -> None:
    result = run("build")
    assert "internal error" not in result.err
    if ": error [" in result.out:
        assert result.code == 1
        assert not (bundle / "build").exists()
    else:
        assert result.code == 0
        emitted = [p.read_bytes() for p in (bundle / "build").rglob("*.md")]
        assert emitted and all(
            b"\r" not in e and not e.startswith(b"\xef\xbb\xbf") for e in emitted
        )
