"""agent-id: agent file names that are not lowercase words joined by hyphens."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found

RULE = "agent-id"
AGENT = agent("description: Reviews diffs for bugs and missing tests.\nmode: subagent")


def named(*paths: str) -> dict[str, str]:
    """One agent file at each of `paths` (under specs/agents/)."""
    return {f"specs/agents/{path}": AGENT for path in paths}


CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        named("Code Reviewer.md"),
        [
            (
                "specs/agents/Code Reviewer.md",
                1,
                1,
                "agent id 'Code Reviewer' is not lowercase-hyphen "
                "(rename the file, e.g. 'code-reviewer.md')",
            )
        ],
        id="docstring-fails",
    ),
    pytest.param(named("code-reviewer.md"), [], id="docstring-passes"),
    pytest.param(named("team/reviewer.md", "reviewer2.md", "a.md"), [], id="subfolder-and-digits"),
    pytest.param(
        named("Team/reviewer.md"),
        [("specs/agents/Team/reviewer.md", 1, 1, "e.g. 'team/reviewer.md'")],
        id="each-part-is-checked",
    ),
    pytest.param(
        named("code_reviewer.md"),
        [("specs/agents/code_reviewer.md", 1, 1, "agent id 'code_reviewer'")],
        id="underscore",
    ),
    pytest.param(
        named("CodeReviewer.md"),
        [("specs/agents/CodeReviewer.md", 1, 1, "e.g. 'codereviewer.md'")],
        id="capitals",
    ),
    pytest.param(
        named("-reviewer.md"),
        [("specs/agents/-reviewer.md", 1, 1, "e.g. 'reviewer.md'")],
        id="leading-hyphen",
    ),
    pytest.param(
        named("code--reviewer.md"),
        [("specs/agents/code--reviewer.md", 1, 1, "e.g. 'code-reviewer.md'")],
        id="double-hyphen",
    ),
]


@pytest.mark.parametrize(("files", "expected"), CASES)
def test_agent_id(diagnostics: Diagnostics, files: dict[str, str], expected: Expected) -> None:
    assert_found(diagnostics(RULE, files), RULE, expected)


def test_every_bad_file_is_reported(diagnostics: Diagnostics) -> None:
    files = named("ok.md", "Bad.md", "also_bad.md")
    assert_found(
        diagnostics(RULE, files),
        RULE,
        [
            ("specs/agents/Bad.md", 1, 1, "agent id 'Bad'"),
            ("specs/agents/also_bad.md", 1, 1, "agent id 'also_bad'"),
        ],
    )


def test_level_is_configurable(diagnostics: Diagnostics) -> None:
    files = named("Code Reviewer.md")
    [found] = diagnostics(RULE, files, '[rules.agent-id]\nlevel = "warning"\n')
    assert found.severity.value == "warning"
    assert diagnostics(RULE, files, '[rules.agent-id]\nlevel = "off"\n') == []
