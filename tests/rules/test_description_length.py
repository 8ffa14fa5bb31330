"""description-length: descriptions too short to route by, or longer than runtimes accept."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found

RULE = "description-length"
A = "specs/agents/a.md"
M = "specs/modes/fix.md"
REVIEWS = "Reviews diffs for bugs and missing tests. Use after code changes."


def mode(description: str) -> str:
    return f"---\ndescription: {description}\n---\nArregla: $ARGUMENTS\n"


# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        {A: agent("description: Helper")},
        "",
        [(A, 2, 14, "description is 6 characters; write at least 20 saying when to use it")],
        id="docstring-fails",
    ),
    pytest.param({A: agent(f"description: {REVIEWS}")}, "", [], id="docstring-passes"),
    pytest.param(
        {A: agent("description: ''")}, "", [(A, 2, 14, "description is 0 characters")], id="empty"
    ),
    pytest.param(
        {A: agent("description: '   Too short   '")},
        "",
        [(A, 2, 14, "description is 9 characters")],
        id="surrounding-spaces-do-not-count",
    ),
    pytest.param(
        {A: agent("description: x")},
        "",
        [(A, 2, 14, "description is 1 character; write at least 20 saying when to use it")],
        id="one-character-is-singular",
    ),
    pytest.param({A: agent("description: Twenty characters ok")}, "", [], id="twenty-is-enough"),
    pytest.param(
        {A: agent("description: " + "x" * 1025)},
        "",
        [(A, 2, 14, "description is 1025 characters; the limit is 1024")],
        id="over-the-agent-skills-limit",
    ),
    pytest.param({A: agent("description: " + "x" * 1024)}, "", [], id="at-the-limit"),
    pytest.param(
        {M: mode("Fix it")},
        "",
        [(M, 2, 14, "description is 6 characters; write at least 20")],
        id="mode",
    ),
    pytest.param(
        {A: agent("description: Helper")},
        "[rules.description-length]\nmin = 6\n",
        [],
        id="min-option-passes",
    ),
    pytest.param(
        {A: agent("description: Helper")},
        "[rules.description-length]\nmin = 7\n",
        [(A, 2, 14, "description is 6 characters; write at least 7 saying when to use it")],
        id="min-option-fails",
    ),
    pytest.param(
        {A: agent(f"description: {REVIEWS}")},
        "[rules.description-length]\nmax = 30\n",
        [(A, 2, 14, "description is 65 characters; the limit is 30")],
        id="max-option",
    ),
    pytest.param(
        {A: agent("description: Helper"), M: mode("Fix it")},
        "[rules.description-length]\nmin = 0\n",
        [],
        id="min-zero-turns-the-lower-bound-off",
    ),
]


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_description_length(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


def test_a_missing_description_is_the_schema_stage_s(diagnostics: Diagnostics) -> None:
    files = {A: agent("mode: subagent")}
    assert diagnostics(RULE, files) == []
    assert [d.rule for d in diagnostics("schema", files)] == ["schema"]
