"""unknown-permission: keys no OpenCode tool asks for."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, Lint, Messages, agent, assert_found

A = "specs/agents/a.md"
RULE = "unknown-permission"

CASES = [
    ("permission:\n  write: deny", [(4, 3)]),
    ("permission:\n  patch: deny\n  apply_patch: deny", [(4, 3), (5, 3)]),
    ("permission:\n  file_write: deny\n  bash_execution: ask", [(4, 3), (5, 3)]),
    ("permission:\n  '__OPENCODE_PROTOCOL_PATH_YAML__': allow", [(4, 3)]),
    ("permission:\n  Bash: deny", [(4, 3)]),
    ("permission:\n  plan_db: allow", [(4, 3)]),
    # known keys, wildcards over tool names, the runtime's own keys
    ("permission:\n  edit: deny\n  todowrite: deny\n  list: deny\n  plan_exit: allow", []),
    ("permission:\n  'context7_*': allow\n  '*': ask\n  'mcp_?': deny", []),
    # a misspelt `permission` key itself is key-typo's, not reported twice
    ("permissions:\n  bash: deny", []),
]


@pytest.mark.parametrize(("rest", "expected"), CASES)
def test_unknown_permission(lint: Lint, rest: str, expected: list[tuple[int, int]]) -> None:
    found = lint(RULE, {A: agent(f"description: An agent with odd keys.\n{rest}")})
    assert found == [(A, line, col, RULE) for line, col in expected]


def test_custom_tools_are_known(lint: Lint) -> None:
    files = {A: agent("description: An agent with odd keys.\npermission:\n  plan_db: allow")}
    assert lint(RULE, files, 'custom_tools = ["plan_db"]\n') == []
    assert lint(RULE, files, 'custom_tools = ["plan_*"]\n') == []


def test_config_level_keys_are_checked(lint: Lint) -> None:
    files = {A: agent("description: An agent with no rules.")}
    found = lint(RULE, files, '[permission]\nbash = "ask"\nwrite = "deny"\n')
    assert found == [("promptc.toml", 3, 1, RULE)]


def test_messages_explain_what_opencode_does(messages: Messages) -> None:
    files = {
        A: agent(
            "description: An agent with odd keys.\npermission:\n  write: deny\n"
            "  file_write: deny\n  '{{tool}}': allow"
        )
    }
    assert messages(RULE, files) == [
        "specs/agents/a.md:4:3: error [unknown-permission] OpenCode has no `write` permission: "
        "the edit, write and apply_patch tools all ask for `edit`, so this rule never applies",
        "specs/agents/a.md:5:3: error [unknown-permission] no OpenCode tool asks for "
        "`file_write`: OpenCode keeps it as a rule for an MCP or custom tool of that name, "
        "so it never applies",
        "specs/agents/a.md:6:3: error [unknown-permission] `{{tool}}` looks like a template "
        "placeholder that was never filled in: OpenCode takes it literally, as a permission "
        "no tool asks for",
    ]


DOCSTRING_CASES = [
    pytest.param(
        "permission:\n  write: deny",
        "",
        [(A, 4, 3, "OpenCode has no `write` permission: the edit, write and apply_patch tools all ask for `edit`")],
        id="docstring-fails",
    ),
    pytest.param(
        "permission:\n  edit: deny\n  plan_db: allow", 'custom_tools = ["plan_db"]\n', [], id="docstring-passes"
    ),
]  # fmt: skip


@pytest.mark.parametrize(("rest", "config", "expected"), DOCSTRING_CASES)
def test_docstring_examples(
    diagnostics: Diagnostics, rest: str, config: str, expected: Expected
) -> None:
    front = f"description: The permission map of the rule's docstring.\n{rest}"
    assert_found(diagnostics(RULE, {A: agent(front)}, config), RULE, expected)
