"""deprecated-key: the `tools` map and `maxSteps`, which OpenCode still reads."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, agent, assert_found

RULE = "deprecated-key"
A = "specs/agents/a.md"
DESCRIPTION = "description: Reviews diffs for bugs and missing tests.\n"

# (frontmatter after the description, each (line, column, words) reported)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        "tools:\n  bash: false\npermission:\n  edit: deny\n",
        [
            (
                3,
                1,
                "`tools` is deprecated, and next to `permission` it is merged in first: its rules "
                "come before the permission map's. Move its entries into `permission` "
                "(`permission: {bash: deny}`)",
            )
        ],
        id="docstring-fails",
    ),
    pytest.param("permission:\n  bash: deny\n  edit: deny\n", [], id="docstring-passes"),
    pytest.param(
        "tools:\n  bash: false\n  write: false\n  webfetch: true\n  read: false\n",
        [
            (
                3,
                1,
                "`tools` is deprecated: write the same as `permission` "
                "(`permission: {bash: deny, edit: deny, webfetch: allow}`)",
            )
        ],
        id="tools-alone-the-first-three-as-permission",
    ),
    pytest.param(
        "tools: {}\n",
        [(3, 1, "`tools` is deprecated: write the same as `permission`")],
        id="tools-empty",
    ),
    pytest.param("maxSteps: 5\n", [(3, 1, "`maxSteps` is deprecated: write `steps`")], id="max-steps"),
    pytest.param(
        "steps: 3\nmaxSteps: 5\n",
        [(4, 1, "write `steps` (`steps` is set too, and wins)")],
        id="max-steps-beside-steps",
    ),
    pytest.param("steps: 3\n", [], id="steps"),
    pytest.param(
        "targets:\n  opencode:\n    maxSteps: 5\n    tools:\n      bash: false\n",
        [
            (5, 5, "`maxSteps` is deprecated"),
            (6, 5, "`tools` is deprecated: write the same as `permission` (`permission: {bash: deny}`)"),
        ],
        id="targets-opencode",
    ),
    pytest.param("targets:\n  claude:\n    maxTurns: 5\n", [], id="targets-claude"),
]  # fmt: skip


@pytest.mark.parametrize(("front", "expected"), CASES)
def test_deprecated_key(
    diagnostics: Diagnostics, front: str, expected: list[tuple[int, int, str]]
) -> None:
    found = diagnostics(RULE, {A: agent(DESCRIPTION + front)})
    assert_found(found, RULE, [(A, line, column, words) for line, column, words in expected])


def test_is_a_warning_that_can_be_raised(diagnostics: Diagnostics) -> None:
    files = {A: agent(DESCRIPTION + "maxSteps: 5\n")}
    [found] = diagnostics(RULE, files)
    assert found.severity.value == "warning"
    [raised] = diagnostics(RULE, files, '[rules.deprecated-key]\nlevel = "error"\n')
    assert raised.severity.value == "error"
