"""dangerous-allow: dangerous commands, or any folder, allowed without asking."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, Lint, Messages, agent, assert_found

A = "specs/agents/a.md"
RULE = "dangerous-allow"

CASES = [
    ("permission:\n  bash: allow", [(4, 3)]),
    ("permission:\n  bash:\n    '*': allow\n    'rm *': deny", [(5, 5)]),
    ("permission: allow", [(3, 1)]),
    # never mentioning bash leaves OpenCode's default "*": allow in charge
    ("permission:\n  edit: deny", [(3, 1)]),
    ("mode: subagent", [(1, 1)]),
    ("permission:\n  bash:\n    '*': ask\n    'git status*': allow", []),
    ("permission:\n  bash: deny", []),
    ("permission:\n  bash:\n    '*': ask\n    'git *': allow", [(6, 5)]),
    ("permission:\n  bash:\n    '*': ask\n    'git *': allow\n    'git push*': ask", []),
    ("permission:\n  bash:\n    '*': ask\n    'sudo apt *': allow", [(6, 5)]),
    ("permission:\n  bash:\n    '*': ask\n    'sh -c *': allow", [(6, 5)]),
    ("permission:\n  bash:\n    '*': ask\n    'rm -i *': allow", [(6, 5)]),
    ("permission:\n  bash: ask\n  external_directory: allow", [(5, 3)]),
    ("permission:\n  bash: ask\n  external_directory:\n    '~/notes/*': allow", []),
]


@pytest.mark.parametrize(("rest", "expected"), CASES)
def test_dangerous_allow(lint: Lint, rest: str, expected: list[tuple[int, int]]) -> None:
    found = lint(RULE, {A: agent(f"description: An agent with some power.\n{rest}")})
    assert found == [(A, line, col, RULE) for line, col in expected]


def test_commands_are_configurable(lint: Lint) -> None:
    files = {
        A: agent(
            "description: An agent with some power.\npermission:\n  bash:\n"
            "    '*': ask\n    'git *': allow\n    'docker *': allow"
        )
    }
    config = '[rules.dangerous-allow]\ncommands = ["docker *"]\n'
    assert lint(RULE, files, config) == [(A, 7, 5, RULE)]


def test_any_command_can_be_turned_off(lint: Lint) -> None:
    files = {A: agent("description: An agent with some power.\npermission:\n  edit: deny")}
    config = "[rules.dangerous-allow]\nany_command = false\ncommands = []\n"
    assert lint(RULE, files, config) == []


def test_message_names_the_command(messages: Messages) -> None:
    files = {
        A: agent(
            "description: An agent with some power.\npermission:\n  bash:\n"
            "    '*': ask\n    'git *': allow"
        )
    }
    assert messages(RULE, files) == [
        'specs/agents/a.md:6:5: warning [dangerous-allow] `bash "git *": allow`: this agent '
        "may run `git push*` commands without asking, `git push` for one"
    ]


def test_agents_sharing_a_map_each_get_their_own_positions(lint: Lint) -> None:
    # The same rules, so the same (cached) answers, written at different lines.
    rest = "permission:\n  bash:\n    '*': ask\n    'git *': allow"
    files = {
        A: agent(f"description: An agent with some power.\n{rest}"),
        "specs/agents/b.md": agent(f"description: Another one.\nmode: all\n\n{rest}"),
        "specs/agents/c.md": agent("description: A third one.\npermission:\n  bash: allow"),
    }
    assert lint(RULE, files) == [
        (A, 6, 5, RULE),
        ("specs/agents/b.md", 8, 5, RULE),
        ("specs/agents/c.md", 4, 3, RULE),
    ]


def test_agents_whose_maps_differ_only_in_an_action_are_judged_apart(lint: Lint) -> None:
    # Answers are shared by lists of the same permissions, patterns and actions.
    files = {
        A: agent("description: One.\npermission:\n  bash:\n    '*': ask\n    'git *': allow"),
        "specs/agents/b.md": agent(
            "description: Two.\npermission:\n  bash:\n    '*': ask\n    'git *': deny"
        ),
        "specs/agents/c.md": agent(
            "description: Three.\npermission:\n  bash:\n    '*': allow\n    'git *': deny"
        ),
    }
    assert lint(RULE, files) == [(A, 6, 5, RULE), ("specs/agents/c.md", 5, 5, RULE)]


ANY_COMMAND = "this agent may run any command no later rule names, without asking"
ANY_FOLDER = "this agent may read and write any folder outside the project that no later rule names"
MESSAGE_CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param("permission:\n  bash: allow", "", [(A, 4, 3, f"`bash: allow`: {ANY_COMMAND}")], id="docstring-fails"),
    pytest.param(
        "permission:\n  bash:\n    '*': ask\n    'git status*': allow", "", [], id="docstring-passes"
    ),
    pytest.param(
        "permission:\n  edit: deny",
        "",
        [(A, 3, 1, 'bash commands no rule names fall to OpenCode\'s built-in default `"*": allow`')],
        id="default-allow",
    ),
    pytest.param(
        "permission:\n  bash:\n    '*': ask\n    'rm *': allow",
        "",
        [(A, 6, 5, '`bash "rm *": allow`: this agent may run `rm *` commands without asking, `rm` for one')],
        id="configured-command",
    ),
    pytest.param(
        "permission:\n  bash: ask\n  external_directory: allow",
        "",
        [(A, 5, 3, f"`external_directory: allow`: {ANY_FOLDER}")],
        id="any-directory",
    ),
    pytest.param(
        "permission:\n  bash: ask\n  external_directory:\n    '*': allow",
        "",
        [(A, 6, 5, f'`external_directory "*": allow`: {ANY_FOLDER}')],
        id="any-directory-pattern",
    ),
    pytest.param(
        "permission:\n  bash: ask\n  external_directory: allow",
        "[rules.dangerous-allow]\nany_directory = false\n",
        [],
        id="any-directory-option-off",
    ),
    pytest.param(
        "permission:\n  bash: allow",
        "[rules.dangerous-allow]\nany_command = false\n",
        [(A, 4, 3, "`bash: allow`: this agent may run `rm *` commands without asking")],
        id="any-command-off-the-commands-stay",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("rest", "config", "expected"), MESSAGE_CASES)
def test_messages(diagnostics: Diagnostics, rest: str, config: str, expected: Expected) -> None:
    front = f"description: An agent with some power.\n{rest}"
    assert_found(diagnostics(RULE, {A: agent(front)}, config), RULE, expected)


@pytest.mark.parametrize(
    ("files", "config"),
    [
        # One bad action makes OpenCode refuse the agent; the map is not reasoned about.
        ({A: agent("description: An agent with some power.\npermission:\n  bash:\n    '*': ask\n    'pytest*': alow")}, ""),
        ({A: agent("description: An agent with some power.\npermission:\n  bash: sometimes")}, ""),
    ],
)  # fmt: skip
def test_a_permission_that_failed_validation_is_not_judged(
    lint: Lint, files: dict[str, str], config: str
) -> None:
    assert lint(RULE, files, config) == []
