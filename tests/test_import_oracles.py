"""The real runtimes decide a sample of calls on the hand-written import folders
as their decision models do, and never more narrowly than the import.

tests/test_import_never_widens.py trusts promptc_compiler.runtimes on what only a
hand-written folder has (an agent without `tools`, Claude Code's modes and
settings.local.json, Codex's features and several rules files). Here each
pinned CLI runs offline on a fixture folder (tests/oracles) and decides a few
such calls; each real verdict must be the model's, and OpenCode's decision of
the imported specs must be no wider than the real one. One run per runtime is
in `make test` (`slow`); the others run with `make conformance`.

A verdict is an action: ran = allow, asked = ask, refused or absent = deny.
Gemini CLI in `-p` mode does not offer a tool that would ask, so there an
absent tool stands for an ask as well as a deny (tests/gemini/oracle.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import RANK, Call
from promptc_compiler.runtimes import MODELS
from tests import bundles
from tests.claude import oracle as claude
from tests.codex import oracle as codex
from tests.copilot import oracle as copilot
from tests.decisions import concrete, project_for
from tests.gemini import oracle as gemini
from tests.test_import_never_widens import FIXTURES, imported, original

pytestmark = pytest.mark.slow

ACTIONS: dict[str, tuple[str, ...]] = {
    "ran": ("allow",),
    "asked": ("ask",),
    "refused": ("deny",),
    "absent": ("deny",),
}
OUTSIDE = f"{calls.OUTSIDE}/notes.txt"


@dataclass(frozen=True)
class Case:
    runtime: ModuleType  # its tests/oracles driver
    kind: str  # the import (and decision model) kind
    folder: str  # under tests/fixtures/import
    agent: str  # the imported id, also the runtime's name in these folders
    delegated: bool
    probes: tuple[tuple[str, str], ...]  # (OpenCode permission, input)
    label: str = ""  # tells apart two cases of one agent

    def __str__(self) -> str:
        return "-".join(filter(None, (self.folder, self.agent, self.label)))


CASES = (
    # dontAsk from settings.local.json over settings.json, the rules of both.
    Case(
        claude,
        "claude",
        "claude-session",
        "batch-fixer",
        True,
        (
            ("bash", "npm test"),
            ("bash", "make all"),
            ("bash", "cat README.md"),
            ("edit", "src/new.py"),
            ("edit", "docs/new.md"),
            ("read", OUTSIDE),
        ),
    ),
    # No `tools`: every Copilot tool, each asked or run as Copilot does.
    Case(
        copilot,
        "copilot",
        "copilot",
        "helper",
        False,
        (
            ("bash", "npm test"),
            ("read", "src/app.py"),
            ("edit", "src/new.py"),
            ("glob", "**/*.py"),
        ),
    ),
    # No `tools` in Gemini: reads run, file tools refuse the outside, the rest asks.
    Case(
        gemini,
        "gemini",
        "gemini",
        "generalist",
        True,
        (("read", "src/app.py"), ("read", OUTSIDE), ("bash", "npm test"), ("edit", "src/new.py")),
    ),
    # Two rules files, strictest first.
    Case(
        codex,
        "codex",
        "codex",
        "implementer",
        True,
        (
            ("bash", "git status"),
            ("bash", "git push origin main"),
            ("bash", "rm -rf build"),
            ("bash", "docker ps"),
        ),
    ),
)
MORE = (
    Case(
        claude,
        "claude",
        "claude-session",
        "planner",
        True,
        (("bash", "npm test"), ("bash", "git status"), ("edit", "src/new.py")),
    ),
    Case(
        claude,
        "claude",
        "claude-session",
        "notebook-editor",
        True,
        (("bash", "python -m pytest"), ("read", "src/app.py"), ("edit", "src/new.py")),
    ),
    Case(
        claude,
        "claude",
        "claude-dontask",
        "writer",
        True,
        (("edit", "docs/new.md"), ("bash", "npm test"), ("bash", "npm install")),
    ),
    Case(copilot, "copilot", "copilot", "locked", False, (("bash", "ls"), ("read", "README.md"))),
    Case(codex, "codex", "codex", "explorer", True, (("bash", "ls"), ("bash", "git status"))),
    # A first word given as a path: Codex's rules match its basename.
    Case(
        codex,
        "codex",
        "codex",
        "implementer",
        True,
        (
            ("bash", "/bin/rm -rf build"),
            ("bash", "/usr/bin/curl https://example.com"),
            ("bash", "/usr/bin/git push origin main"),
            ("bash", "/usr/bin/git status"),
        ),
        "by-path",
    ),
)


def check(case: Case, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    imported(case.kind, FIXTURES / case.folder, bundle)
    project = calls.runtime_of(bundles.project(bundle, "opencode"))
    files = original(case.kind, FIXTURES / case.folder)
    model = MODELS[case.kind][1](files)
    home = tmp_path / "home"
    home.mkdir()
    root = project_for(tmp_path / "run", files)
    wanted = [Call(case.agent, p, text, case.delegated) for p, text in case.probes]
    attempts = [
        case.runtime.attempt(c.permission, concrete(c.input, root, home), root) for c in wanted
    ]
    assert all(attempts), attempts
    found = case.runtime.run(
        root, [a for a in attempts if a], agent=case.agent, delegate=case.delegated, home=home
    )
    wrong = []
    for call, outcome in zip(wanted, found, strict=True):
        real = ACTIONS[outcome.verdict]
        if case.runtime is gemini and outcome.verdict == "absent":
            real = ("ask", "deny")  # -p offers no tool that would ask
        modelled = model.decide(call)
        opencode = calls.decide(project, call).action
        if modelled.action not in real or RANK[opencode] > max(RANK[a] for a in real):
            wrong.append(
                f"{call.describe()}: the CLI {outcome.verdict} ({outcome.result[:120]!r}), "
                f"the model {modelled.action} ({modelled.why}), the import {opencode}"
            )
    assert not wrong, "\n".join(wrong)


def ids(cases: Sequence[Case]) -> list[str]:
    return [str(case) for case in cases]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_the_real_runtime_decides_as_its_model_and_no_narrower_than_the_import(
    case: Case, tmp_path: Path
) -> None:
    check(case, tmp_path)


@pytest.mark.conformance
@pytest.mark.parametrize("case", MORE, ids=ids(MORE))
def test_more_import_folders_on_the_real_runtimes(case: Case, tmp_path: Path) -> None:
    check(case, tmp_path)
