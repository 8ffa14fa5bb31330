"""promptc_compiler.runtimes.translations: each analysis worked out once per run, never kept after it."""

from __future__ import annotations

import gc
import weakref
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from promptc_compiler.permissions import calls
from promptc_compiler.permissions.runtime import Runtime
from promptc_compiler.runtimes import tool_lists, translations
from promptc_compiler.runtimes.claude import translate as claude_translate
from promptc_compiler.runtimes.codex import translate as codex_translate
from promptc_compiler.runtimes.translation import ENVIRONMENT
from tests.conftest import MakeBundle
from tests.rules.conftest import agent

EVERY_TARGET = """\
[targets.opencode]
[targets.claude]
[targets.claude-plugin]
[targets.codex]
[targets.copilot]
[targets.gemini]

[rules.lossy-translation]
level = "warning"
"""
CLAUDE_CODER = "claude/.claude/agents/coder.md"
CODER = """
description: Writes code.
mode: subagent
permission:
  bash:
    "*": ask
    "git status": allow
  edit: allow
"""


def _counted(
    monkeypatch: pytest.MonkeyPatch, module: object, name: str, seen: Counter[str], key: str
) -> None:
    """module.<name> counted under `key` (by the environment's home, for resolve)."""
    real: Callable[..., Any] = getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        env = args[1] if len(args) > 1 else kwargs.get("env")
        seen[f"{key}:{getattr(env, 'home', 'machine')}" if name == "resolve" else key] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often a run resolves the agents in each environment and starts each translation."""
    found: Counter[str] = Counter()
    _counted(monkeypatch, translations, "resolve", found, "resolve")
    _counted(monkeypatch, calls, "resolve", found, "resolve")
    _counted(monkeypatch, claude_translate, "subjects", found, "claude")
    _counted(monkeypatch, codex_translate, "subjects", found, "codex")
    _counted(monkeypatch, tool_lists, "subjects", found, "tool lists")
    return found


def test_a_build_for_every_target_works_each_translation_out_once(
    make_bundle: MakeBundle, seen: Counter[str]
) -> None:
    root = make_bundle({"promptc.toml": EVERY_TARGET, "specs/agents/coder.md": agent(CODER)})
    result = api.render(load_config(root / "promptc.toml"))
    assert result.ok, result.diagnostics
    assert {d.rule for d in result.diagnostics} >= {"lossy-translation"}  # the rules asked too
    assert len(result.summaries) >= 5  # and every runtime's proof
    assert seen == {
        "resolve:machine": 1,  # what the rules check
        f"resolve:{ENVIRONMENT.home}": 1,  # what every translation reads
        f"resolve:{calls.HOME}": 1,  # the call matrix the proofs decide
        "claude": 2,  # with settings, and the plugin's
        "codex": 1,
        "tool lists": 2,  # Copilot CLI's and Gemini CLI's
    }


def test_each_run_works_its_translations_out_anew(
    make_bundle: MakeBundle, seen: Counter[str]
) -> None:
    root = make_bundle({"promptc.toml": EVERY_TARGET, "specs/agents/coder.md": agent(CODER)})
    config = load_config(root / "promptc.toml")
    before = api.render(config).files[CLAUDE_CODER].decode()
    once = dict(seen)
    (Path(root) / "specs/agents/coder.md").write_text(
        agent(CODER.replace("edit: allow", "edit: deny"))
    )
    after = api.render(config).files[CLAUDE_CODER].decode()
    assert seen == {key: 2 * count for key, count in once.items()}
    # Each run's files are its own bundle's: nothing of the first was kept.
    assert "  - Edit\n" in before
    assert "  - Edit\n" not in after


def test_the_agents_as_loaded_on_this_machine_are_let_go_once_the_rules_ran(
    make_bundle: MakeBundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the rules read them; a build of 10,000 agents held them to its end."""
    root = make_bundle({"promptc.toml": EVERY_TARGET, "specs/agents/coder.md": agent(CODER)})
    held: list[weakref.ref[Runtime]] = []
    real = translations.Translations.rules_done

    def done(self: translations.Translations) -> None:
        held.append(weakref.ref(self.opencode))
        real(self)
        gc.collect()
        assert held[-1]() is None

    monkeypatch.setattr(translations.Translations, "rules_done", done)
    assert api.render(load_config(root / "promptc.toml")).ok
    assert len(held) == 1
