"""task-primary: `task` rules that allow starting a primary agent, which OpenCode never offers."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found
from tests.rules.task_files import CREW, A, starter

RULE = "task-primary"
NEVER = "and OpenCode's task tool never offers primaries, so this rule gives nothing"

# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        starter("'*': deny", "foreman: allow"),
        "",
        [(A, 7, 5, f'`task "foreman": allow`: `foreman` is a primary agent, {NEVER}')],
        id="docstring-fails",
    ),
    pytest.param(starter("'*': deny", "scout: allow"), "", [], id="docstring-passes"),
    pytest.param(
        starter("'*': deny", "foreman: ask"),
        "",
        [(A, 7, 5, '`task "foreman": ask`: `foreman` is a primary agent')],
        id="ask",
    ),
    pytest.param(starter("'*': deny", "foreman: deny"), "", [], id="deny"),
    pytest.param(
        starter("'*': deny", "build: allow", "plan: ask"),
        "",
        [
            (A, 7, 5, f'`task "build": allow`: `build` is OpenCode\'s own primary agent, {NEVER}'),
            (A, 8, 5, '`task "plan": ask`: `plan` is OpenCode\'s own primary agent'),
        ],
        id="opencode-primaries",
    ),
    pytest.param(starter("'*': deny", "scout: allow", "'fore*': allow"), "", [], id="patterns-are-not-checked"),
    pytest.param(
        {**starter("'*': deny", "boss: allow"), "specs/agents/boss.md": agent("description: Plans the work for the team.\nmode: all")},
        "",
        [],
        id="mode-all-is-offered",
    ),
    pytest.param(
        {A: agent("description: Plain subagent for the test.\nmode: subagent"), **CREW},
        '[permission]\ntask = { "*" = "deny", foreman = "allow" }\n',
        [("promptc.toml", 2, 24, '`task "foreman": allow`: `foreman` is a primary agent')],
        id="config-level-task-rules",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_task_primary(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


def test_hint_says_how_to_offer_it(diagnostics: Diagnostics) -> None:
    [found] = diagnostics(RULE, starter("'*': deny", "foreman: allow"))
    assert found.hint == "make `foreman` a subagent (mode: subagent or all), or remove the rule"
