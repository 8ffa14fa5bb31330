"""Shared fixtures: throwaway bundles on disk and a CLI runner that returns exit codes."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from compiler.cli import main

MakeBundle = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture(autouse=True)
def _neutral_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same defaults everywhere: under GitHub Actions promptc would default to `github`."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


@pytest.fixture
def make_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MakeBundle:
    """Write {relative path: content} under tmp_path/bundle, chdir there, return the root.

    Text content is dedented, so tests can indent file bodies naturally.
    """

    def make(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / "bundle"
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        (root / "specs").mkdir(exist_ok=True)
        monkeypatch.chdir(root)
        return root

    return make


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    def invoke(*args: str) -> Run:
        code = main(list(args))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return invoke


AGENT = """\
---
description: Explores the codebase read-only and reports findings.
mode: subagent
permission:
  edit: deny
  bash: deny
---
# Scout

Lee el código y reporta.
"""

MODE = """\
---
description: Build a feature from the user's request.
agent: scout
---
Trabaja en: $ARGUMENTS
"""


@pytest.fixture
def sample(make_bundle: MakeBundle) -> Path:
    """A small clean bundle: one agent, one mode, one fragment used by the agent."""
    return make_bundle(
        {
            "promptc.toml": "",
            "specs/agents/scout.md": AGENT.replace("# Scout", "<<tone>>\n\n# Scout"),
            "specs/modes/build.md": MODE,
            "fragments/tone.md": "Tono: directo.\n",
        }
    )
