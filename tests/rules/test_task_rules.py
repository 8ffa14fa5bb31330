"""task-unknown-agent and task-primary: `task` rules naming missing or primary agents."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Lint, agent

A = "specs/agents/a.md"
BUNDLE = {
    "specs/agents/scout.md": agent("description: Reads the code and reports.\nmode: subagent"),
    "specs/agents/go-smith.md": agent("description: Writes Go code when asked.\nmode: subagent"),
    "specs/agents/foreman.md": agent("description: Plans the work for the team.\nmode: primary"),
    "specs/agents/off.md": agent(
        "description: Switched off for now, kept.\nmode: subagent\ndisable: true"
    ),
}


def task_map(*entries: str) -> str:
    lines = "\n".join(f"    {e}" for e in entries)
    return f"description: Starts other agents.\nmode: primary\npermission:\n  task:\n{lines}"


UNKNOWN = [
    (("'*': deny", "scout: allow"), []),
    (("'*': deny", "scuot: allow"), [(7, 5)]),
    (("'*': deny", "'*-smith': allow", "'*-painter': allow"), [(8, 5)]),
    (("'*': deny", "off: allow"), [(7, 5)]),
    (("'*': deny", "general: allow", "explore: ask", "build: deny"), []),
    (("'*': deny", "ghost: deny"), [(7, 5)]),
]


@pytest.mark.parametrize(("entries", "expected"), UNKNOWN)
def test_task_unknown_agent(
    lint: Lint, entries: tuple[str, ...], expected: list[tuple[int, int]]
) -> None:
    found = lint("task-unknown-agent", {A: agent(task_map(*entries)), **BUNDLE})
    assert found == [(A, line, col, "task-unknown-agent") for line, col in expected]


def test_unknown_agent_messages(messages) -> None:  # type: ignore[no-untyped-def]
    files = {A: agent(task_map("'*': deny", "scuot: allow", "off: allow")), **BUNDLE}
    assert messages("task-unknown-agent", files) == [
        "specs/agents/a.md:7:5: error [task-unknown-agent] `task` names `scuot`, but no agent "
        "has that name (did you mean `scout`?)",
        "specs/agents/a.md:8:5: error [task-unknown-agent] `task` names `off`, which is "
        "disabled: OpenCode does not load it",
    ]


PRIMARY = [
    (("'*': deny", "foreman: allow"), [(7, 5)]),
    (("'*': deny", "foreman: ask"), [(7, 5)]),
    (("'*': deny", "foreman: deny"), []),
    (("'*': deny", "build: allow", "plan: allow"), [(7, 5), (8, 5)]),
    (("'*': deny", "scout: allow", "'fore*': allow"), []),
]


@pytest.mark.parametrize(("entries", "expected"), PRIMARY)
def test_task_primary(
    lint: Lint, entries: tuple[str, ...], expected: list[tuple[int, int]]
) -> None:
    found = lint("task-primary", {A: agent(task_map(*entries)), **BUNDLE})
    assert found == [(A, line, col, "task-primary") for line, col in expected]


def test_config_level_task_rules(lint: Lint) -> None:
    config = '[permission]\ntask = { "*" = "deny", foreman = "allow", nobody = "allow" }\n'
    files = {A: agent("description: Plain subagent for the test.\nmode: subagent"), **BUNDLE}
    assert lint("task-primary", files, config) == [("promptc.toml", 2, 24, "task-primary")]
    assert lint("task-unknown-agent", files, config) == [
        ("promptc.toml", 2, 43, "task-unknown-agent")
    ]
