"""Realistic broken bundles (tests/fixtures/broken/*/), written after the mistakes
real agent files make (see each fixture's README.md): `promptc lint` prints
exactly the diagnostic lines in its expected.txt (hints aside), and
`promptc build` writes nothing when any of them is an error.

expected.txt is a golden file. When a new rule or a reworded message changes
the output on purpose, regenerate and review the diff:

    PROMPTC_UPDATE_FIXTURES=1 .venv/bin/pytest tests/test_broken_fixtures.py
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import MakeBundle, Run

Runner = Callable[..., Run]

FIXTURES = Path(__file__).parent / "fixtures" / "broken"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
UPDATE = os.environ.get("PROMPTC_UPDATE_FIXTURES") == "1"


@pytest.fixture
def bundle(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root: Path = tmp_path / request.param
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
    # Diagnostic lines (a long one goes on, indented, on lines of its own), not
    # the hints below them: those are advice, worded by each stage.
    lines = "".join(
        line
        for line in result.out.splitlines(True)
        if not line.startswith(("    hint: ", " " * 10))
    )
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
        assert emitted
        assert all(b"\r" not in e and not e.startswith(b"\xef\xbb\xbf") for e in emitted)


# --- one broken file among healthy ones -------------------------------------------

LEAD = """---
description: Leads the team and hands the work to the others.
mode: primary
permission:
  bash:
    "*": ask
    "git status*": allow
  edit: ask
  task:
    "*": deny
    sidekick: allow
    {named}: deny
---
Dirige al equipo.
"""
HEALTHY: dict[str, str | bytes] = {
    "promptc.toml": 'default_agent = "lead"\n',
    "specs/agents/sidekick.md": (
        "---\ndescription: Helps with small tasks when the lead asks.\nmode: subagent\n"
        "permission:\n  bash: deny\n  task: deny\n---\nAyuda.\n"
    ),
    "specs/modes/plan.md": "---\ndescription: Plan the work step by step.\nagent: lead\n---\n$ARGUMENTS\n",
}
BROKEN_FILES = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.glob("*/specs/*/*.md"))


def _healthy(broken: str) -> dict[str, str | bytes]:
    """HEALTHY, and a lead whose `task` map names the agent `broken` (denied: a
    primary that is broken may not be allowed, but may be named); for a mode, OpenCode's
    own `build`."""
    ident = broken.rsplit("/", 1)[-1].removesuffix(".md")
    ident = "build" if broken.startswith("specs/modes/") else ident
    return {**HEALTHY, "specs/agents/lead.md": LEAD.format(named=json.dumps(ident))}


def test_the_healthy_bundle_is_clean(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(_healthy("specs/agents/nobody.md"))
    done = run("lint", "--strict")
    assert (done.code, done.out) == (1, done.out)  # `nobody` exists nowhere: one finding
    assert done.out.count("\n") == 1
    assert "[task-unknown-agent]" in done.out
    make_bundle(_healthy("specs/modes/plan.md"))
    assert run("lint", "--strict").code == 0


@pytest.mark.parametrize("broken", BROKEN_FILES)
def test_a_broken_file_raises_findings_in_itself_only(
    make_bundle: MakeBundle, run: Runner, broken: str
) -> None:
    rel = broken.split("/", 1)[1]  # specs/agents/<name>.md
    make_bundle({**_healthy(rel), rel: (FIXTURES / broken).read_bytes()})
    done = run("lint", "--format", "json")
    paths = {d["path"] for d in json.loads(done.out)["diagnostics"]}
    assert paths <= {rel}, done.out
