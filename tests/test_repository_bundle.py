"""The repository's own bundle, the ndomo team, checked here and nowhere else.

specs/, fragments/ and `[tool.promptc]` in pyproject.toml describe a real team
that changes as the team does: no unit test of promptc reads them (those run
on fixtures, tests/fixtures/team being a frozen copy of this bundle's shape).
This file holds the bundle to what it promises: it builds for every target,
`promptc check` finds build/ fresh and clean, sixteen agents and three modes,
the caveman snippet in the fourteen subagents, shared text written once, and
written for this project.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path

import pytest

from promptc_compiler import api
from promptc_compiler.base.diagnostics import Severity
from promptc_compiler.core.bundle import load_bundle
from promptc_compiler.core.config import load_config
from tests import oracle
from tests.bundles import REPOSITORY as ROOT
from tests.claude.test_conformance_claude import validate
from tests.rules.test_required_snippet import assert_the_rule_holds
from tests.test_security import SECURITY

pytestmark = pytest.mark.slow  # collected first: tests/conftest.py

SEEDS = ROOT.parent / "shared" / "seeds"
SUBAGENTS = {
    "chronicler",
    "go-smith",
    "guild",
    "inspector",
    "js-smith",
    "painter",
    "python-smith",
    "rust-smith",
    "sage",
    "scout",
    "scribe",
    "smith",
    "vue-smith",
    "zig-smith",
}
PRIMARIES = {"craftsman", "foreman"}
TARGETS = {"opencode", "claude", "claude-plugin", "codex", "copilot", "gemini"}
CAVEMAN = (
    "Tono: caveman por default, nivel full. Activa siempre.\n"
    "Excepción: prosa normal para advertencias de seguridad, acciones irreversibles o "
    "ambigüedad multi-paso."
)


@pytest.fixture(autouse=True)
def _in_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def linted() -> api.Result:
    """One lint of the bundle for the tests that read its findings."""
    return api.lint(load_config(cwd=ROOT))


@pytest.fixture(scope="module")
def rendered() -> api.Result:
    """One render of every target for the tests that read what it writes."""
    return api.render(load_config(cwd=ROOT))


def sources() -> list[Path]:
    return sorted([*ROOT.glob("specs/**/*.md"), *ROOT.glob("fragments/**/*.md")])


def test_sixteen_agents_and_three_modes() -> None:
    config = load_config()
    bundle = load_bundle(config)
    assert set(bundle.agents) == SUBAGENTS | PRIMARIES
    assert set(bundle.modes) == {"build", "hack", "review"}
    modes = {
        ident: src.frontmatter.data["mode"]
        for ident, src in bundle.agents.items()
        if src.frontmatter
    }
    assert {i for i, m in modes.items() if m == "primary"} == PRIMARIES
    assert {i for i, m in modes.items() if m == "subagent"} == SUBAGENTS


def test_lint_is_clean_under_strict(linted: api.Result) -> None:
    result = linted
    # Infos say what the Claude translation cannot keep; they never fail a run.
    shown = [d.as_text() for d in result.diagnostics if d.severity is not Severity.INFO]
    assert shown == []
    assert any(d.rule == "lossy-translation" for d in result.diagnostics)


def test_caveman_snippet_is_exact_in_the_fourteen_subagents(rendered: api.Result) -> None:
    carriers = set()
    for rel, content in rendered.files.items():
        match = re.fullmatch(r"opencode/\.opencode/agents/(.+)\.md", rel)
        if not match:
            continue
        body = content.decode().split("\n---\n", 1)[1]
        if body.startswith(CAVEMAN + "\n"):
            carriers.add(match.group(1))
        assert body.count("Tono: caveman") <= 1
    assert carriers == SUBAGENTS


def test_the_snippet_rule_holds() -> None:
    assert load_config().rules["required-snippet"]["expected_count"] == len(SUBAGENTS)
    assert_the_rule_holds(load_config())


def test_every_target_builds_without_error(rendered: api.Result) -> None:
    result = rendered
    assert [d.as_text() for d in result.diagnostics if d.severity is Severity.ERROR] == []
    assert {rel.split("/", 1)[0] for rel in result.files} == TARGETS


def test_check_finds_build_fresh_and_clean() -> None:
    """What `make test` runs: build/ holds exactly what the sources emit (no
    stale, missing or extra file); the only warnings say which tools a runtime
    cannot give an agent."""
    result = api.check(load_config())
    assert [d.as_text() for d in result.diagnostics if d.severity is Severity.ERROR] == []
    assert {d.rule for d in result.diagnostics if d.severity is Severity.WARNING} <= {"lost-tool"}
    assert result.exit_code() == 0
    assert {rel.split("/", 1)[0] for rel in result.generated} == TARGETS


def test_no_security_rule_finds_anything(linted: api.Result) -> None:
    found = linted.diagnostics
    assert [d.as_text() for d in found if d.rule in SECURITY] == []


@pytest.mark.parametrize("target", ["claude", "claude-plugin"])
def test_the_real_claude_validates_build_strictly(target: str) -> None:
    oracle.binary("claude")
    code, result = validate(ROOT / "build" / target)
    assert (code, result["success"], result["contents"]) == (0, True, []), result


def _paragraph_windows(text: str) -> set[str]:
    """Every run of three consecutive non-blank lines inside one paragraph."""
    windows = set()
    for paragraph in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in paragraph.splitlines() if line.strip()]
        for i in range(len(lines) - 2):
            window = "\n".join(lines[i : i + 3])
            if len(window) > 60:  # table rows and list stubs are too short to count as prose
                windows.add(window)
    return windows


def test_no_paragraph_of_three_lines_is_repeated_across_files() -> None:
    seen: dict[str, set[str]] = defaultdict(set)
    for path in sources():
        text = path.read_text(encoding="utf-8").split("\n---\n", 1)[-1]
        for window in _paragraph_windows(text):
            seen[window].add(path.relative_to(ROOT).as_posix())
    repeated = {w: files for w, files in seen.items() if len(files) > 1}
    assert repeated == {}


def _sentences(text: str) -> set[str]:
    parts = re.split(r"(?<=[.!?:])\s+|\n+", text)
    return {" ".join(p.split()) for p in parts if len(p.split()) >= 8}


def test_no_sentence_is_copied_from_the_seeds() -> None:
    if not SEEDS.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{SEEDS} is missing")
        pytest.skip("the seed documents are not beside this checkout")
    seed_text = "\n".join(p.read_text(encoding="utf-8") for p in SEEDS.glob("*.txt"))
    seed_sentences = _sentences(re.sub(r"^[+-]", "", seed_text, flags=re.M))
    ours = set()
    for path in sources():
        ours |= _sentences(path.read_text(encoding="utf-8"))
    copied = {s for s in ours & seed_sentences if "caveman" not in s and "Excepción" not in s}
    assert copied == set()
