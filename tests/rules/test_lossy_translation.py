"""lossy-translation: OpenCode rules and keys the Claude Code files cannot express (infos)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.conftest import MakeBundle, Run
from tests.rules.conftest import Diagnostics, Expected, Messages, agent, assert_found

RULE = "lossy-translation"
A = "specs/agents/a.md"
SUBAGENT = "description: Reviews diffs for bugs and missing tests.\nmode: subagent\n"
CLAUDE = "[targets.claude]\n"
GIT_ONLY = 'permission:\n  bash:\n    "*": deny\n    "git status*": allow\n'
LEFT_OUT = (
    '`bash "git status*": allow` in Claude Code: Bash: lost, left out of a\'s tools: '
    'Claude Code cannot deny only part of `bash` for one agent (`bash "*": deny`)'
)
LOSSY = """\
---
description: Implementador con bash acotado a git.
mode: subagent
permission:
  bash:
    "*": deny
    "git status*": allow
  plan_db: allow
temperature: 0.2
---
Cuerpo.
"""
BOSS = agent(
    "description: Plans the work for the whole team.\nmode: primary\npermission:\n  bash: deny"
)
BOSS_MODE = (
    "---\ndescription: Fixes what the user asks now.\nagent: boss\n---\nArregla: $ARGUMENTS\n"
)

# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param({A: agent(SUBAGENT + GIT_ONLY)}, CLAUDE, [(A, 7, 5, LEFT_OUT)], id="docstring-fails"),
    pytest.param({A: agent(SUBAGENT + "permission:\n  bash: deny")}, CLAUDE, [], id="docstring-passes"),
    pytest.param(
        {A: agent(SUBAGENT + GIT_ONLY)}, "[targets.claude-plugin]\n", [(A, 7, 5, LEFT_OUT)], id="plugin"
    ),
    pytest.param({A: agent(SUBAGENT + GIT_ONLY)}, "", [], id="silent-without-a-claude-target"),
    pytest.param(
        {A: agent(SUBAGENT + "permission:\n  bash: deny\n  external_directory:\n    '~/notes/*': allow")},
        CLAUDE,
        [(A, 7, 5, "`external_directory \"~/notes/*\": allow` in Claude Code: narrowed to ask")],
        id="narrowed-to-ask",
    ),
    pytest.param(
        {A: agent(SUBAGENT + "permission:\n  bash: deny\nmodel: openai/gpt-4o")},
        CLAUDE,
        [(A, 6, 1, "model `openai/gpt-4o` has no Claude Code counterpart in the `models` option")],
        id="unmapped-model",
    ),
    pytest.param(
        {A: agent(SUBAGENT + "permission:\n  bash: deny\nmodel: openai/gpt-4o")},
        CLAUDE + '[targets.claude.models]\n"openai/gpt-4o" = "sonnet"\n',
        [],
        id="models-option-maps-it",
    ),
    pytest.param(
        {"specs/agents/boss.md": BOSS, "specs/modes/fix.md": BOSS_MODE},
        CLAUDE,
        [("specs/modes/fix.md", 3, 1, "start it with `claude --agent boss`")],
        id="mode-of-a-primary-agent",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_lossy_translation(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    found = diagnostics(RULE, files, config)
    assert_found(found, RULE, expected)
    assert {d.severity.value for d in found} <= {"info"}


def test_lossy_rules_are_infos_at_their_lines_and_strict_does_not_fail(
    make_bundle: MakeBundle, run: Callable[..., Run]
) -> None:
    make_bundle(
        {
            "promptc.toml": 'custom_tools = ["plan_db"]\n[targets.claude]\n',
            "specs/agents/smith.md": LOSSY,
        }
    )
    result = run("lint", "--strict", "--format", "json")
    assert result.code == 0, result.out
    found = [
        (d["path"], d["line"], d["column"], d["rule"], d["severity"])
        for d in json.loads(result.out)["diagnostics"]
    ]
    assert found == [
        ("specs/agents/smith.md", 7, 5, "lossy-translation", "info"),
        ("specs/agents/smith.md", 8, 3, "lossy-translation", "info"),
        ("specs/agents/smith.md", 9, 1, "lossy-translation", "info"),
    ]


def test_the_lossy_message_says_what_is_lost(messages: Messages) -> None:
    files = {"specs/agents/smith.md": LOSSY}
    assert messages(RULE, files, 'custom_tools = ["plan_db"]\n[targets.claude]\n') == [
        'specs/agents/smith.md:7:5: info [lossy-translation] `bash "git status*": allow` in Claude '
        "Code: Bash: lost, left out of smith's tools: Claude Code cannot deny only part of `bash` "
        'for one agent (`bash "*": deny`)',
        "specs/agents/smith.md:8:3: info [lossy-translation] `plan_db: allow` in Claude Code: "
        "lost: Claude Code gives smith no `plan_db` tool",
        "specs/agents/smith.md:9:1: info [lossy-translation] `temperature` has no Claude Code "
        "equivalent; the Claude agent leaves it out",
    ]
