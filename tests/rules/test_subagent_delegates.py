"""subagent-delegates: subagents whose permission lets them start other agents."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found
from tests.rules.delegation_files import TEAM, sub

RULE = "subagent-delegates"
SMITH = "specs/agents/smith.md"
DELEGATES = "through the task tool; OpenCode refuses task calls from subagent sessions at its default subagent_depth of 1"


def smith(extra: str) -> dict[str, str]:
    """TEAM, with smith's frontmatter extended by `extra`."""
    return {**TEAM, SMITH: sub("Writes code in any language.", extra)}


# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        smith("permission:\n  task:\n    '*': deny\n    scout: allow"),
        "",
        [(SMITH, 5, 3, f"subagent `smith` may start scout {DELEGATES}")],
        id="docstring-fails",
    ),
    pytest.param(smith("permission:\n  task: deny"), "", [], id="docstring-passes"),
    pytest.param(
        smith("permission:\n  task:\n    '*': deny\n    scout: ask"),
        "",
        [(SMITH, 5, 3, f"subagent `smith` may start scout {DELEGATES}")],
        id="ask",
    ),
    pytest.param(
        smith("permission:\n  task: allow"),
        "",
        [(SMITH, 5, 3, "subagent `smith` may start general, explore, painter, sage, scout, smith")],
        id="task-allow",
    ),
    # OpenCode appends task: deny to a subagent session that never mentions task.
    pytest.param(TEAM, "", [], id="no-task-rules"),
    pytest.param(
        {**TEAM, SMITH: agent("description: Writes code in any language.\nmode: all\npermission:\n  task: allow")},
        "",
        [],
        id="mode-all-is-no-subagent",
    ),
    pytest.param(
        TEAM,
        '[permission]\ntask = "allow"\n',
        [
            ("specs/agents/painter.md", 1, 1, "subagent `painter` may start general, explore, painter"),
            ("specs/agents/sage.md", 1, 1, "subagent `sage` may start"),
            ("specs/agents/scout.md", 1, 1, "subagent `scout` may start"),
            ("specs/agents/smith.md", 1, 1, "subagent `smith` may start"),
        ],
        id="config-level-task-rules",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_subagent_delegates(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


def test_hint_points_back_at_the_primary(diagnostics: Diagnostics) -> None:
    [found] = diagnostics(RULE, smith("permission:\n  task: allow"))
    assert found.hint == "set `task: deny` and let the primary that started it delegate"
    assert found.severity.value == "warning"
