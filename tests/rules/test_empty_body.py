"""empty-body: agents and modes whose composed body is empty."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found

RULE = "empty-body"
A = "specs/agents/a.md"
M = "specs/modes/fix.md"
EMPTY = "body is empty: nothing to send to the model"
CLAUDE_ONLY = '<% if target == "claude" %>\nSolo para Claude Code.\n<% endif %>\n'

# (files, config, expected)
CASES = [
    # The docstring's Fails example; its Passes is any body with text.
    pytest.param(
        {A: "---\ndescription: Reviews diffs for bugs.\n---\n"},
        "",
        [(A, 4, 1, EMPTY)],
        id="docstring-fails",
    ),
    pytest.param(
        {A: "---\ndescription: Reviews diffs for bugs.\n---\nRevisa el diff.\n"},
        "",
        [],
        id="body-with-text",
    ),
    pytest.param(
        {A: agent("description: Reviews diffs for bugs.\nmode: subagent", "\n   \n\n")},
        "",
        [(A, 5, 1, EMPTY)],
        id="only-blank-lines",
    ),
    pytest.param(
        {M: "---\ndescription: Fixes what the user asks now.\n---\n"},
        "",
        [(M, 4, 1, EMPTY)],
        id="mode",
    ),
    pytest.param(
        {M: "---\ndescription: Fixes what the user asks now.\n---\nArregla: $ARGUMENTS\n"},
        "",
        [],
        id="mode-with-text",
    ),
    pytest.param(
        {
            A: agent("description: Reviews diffs for bugs.", "<<empty>>\n"),
            "fragments/empty.md": "\n",
        },
        "",
        [(A, 4, 1, EMPTY)],
        id="empty-after-composing-a-fragment",
    ),
    pytest.param(
        {A: agent("description: Reviews diffs for bugs.", CLAUDE_ONLY)},
        "",
        [(A, 4, 1, EMPTY)],
        id="empty-when-composed-for-opencode",
    ),
    pytest.param(
        {A: agent("description: Reviews diffs for bugs.", CLAUDE_ONLY)},
        "[targets.claude]\n",
        [],
        id="not-empty-when-composed-for-claude",
    ),
]


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_empty_body(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


def test_level_is_configurable(diagnostics: Diagnostics) -> None:
    files = {A: "---\ndescription: Reviews diffs for bugs.\n---\n"}
    [found] = diagnostics(RULE, files, '[rules.empty-body]\nlevel = "warning"\n')
    assert found.severity.value == "warning"
    assert diagnostics(RULE, files, '[rules.empty-body]\nlevel = "off"\n') == []
