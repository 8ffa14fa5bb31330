"""claude-name: agent and command names that clash in Claude Code, and reserved plugin names."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, Messages, agent, assert_found

RULE = "claude-name"
AGENT = agent("description: Reviews diffs for bugs and missing tests.\nmode: subagent")
MODE = "---\ndescription: Fixes what the user asks for now.\n---\nArregla: $ARGUMENTS\n"
CLAUDE = "[targets.claude]\n"
PLUGIN = "[targets.claude-plugin]\n"
CLASH = {"specs/agents/team/reviewer.md": AGENT, "specs/agents/team-reviewer.md": AGENT}
RESERVED = "is reserved by Claude Code for Anthropic's own plugins; name it for what it does"

CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        CLASH,
        CLAUDE,
        [
            (
                "specs/agents/team-reviewer.md",
                1,
                1,
                "agent 'team-reviewer' and 'team/reviewer' are both named 'team-reviewer' "
                "in Claude Code; rename one",
            )
        ],
        id="docstring-fails-clash",
    ),
    pytest.param(
        {"specs/agents/a.md": AGENT},
        PLUGIN + 'name = "claude-tools"\n',
        [("promptc.toml", 2, 1, f"plugin name 'claude-tools' {RESERVED}")],
        id="docstring-fails-plugin-name",
    ),
    pytest.param(
        {"specs/agents/team/reviewer.md": AGENT, "specs/agents/reviewer.md": AGENT},
        CLAUDE,
        [],
        id="docstring-passes-no-clash",
    ),
    pytest.param(
        {"specs/agents/a.md": AGENT}, PLUGIN + 'name = "ndomo"\n', [], id="docstring-passes-name"
    ),
    pytest.param(
        CLASH, PLUGIN, [("specs/agents/team-reviewer.md", 1, 1, "rename one")], id="plugin"
    ),
    pytest.param(CLASH, "", [], id="silent-without-a-claude-target"),
    pytest.param(CLASH, "[targets.opencode]\n", [], id="silent-for-opencode-only"),
    pytest.param(
        {
            "specs/agents/a.md": AGENT,
            "specs/modes/team/fix.md": MODE,
            "specs/modes/team-fix.md": MODE,
        },
        CLAUDE,
        [
            (
                "specs/modes/team-fix.md",
                1,
                1,
                "command 'team-fix' and 'team/fix' are both named 'team-fix' in Claude Code",
            )
        ],
        id="commands-clash",
    ),
    pytest.param(
        {"specs/agents/team/fix.md": AGENT, "specs/modes/team-fix.md": MODE},
        CLAUDE,
        [],
        id="an-agent-and-a-command-may-share-a-name",
    ),
]


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_claude_name(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


PLUGIN_NAMES = [
    ("claude", True),
    ("claude-code", True),
    ("claude-helpers", True),
    ("anthropic-kit", True),
    ("cc-plugin-x", True),
    ("official-claude-tools", True),
    ("anthropic-official", True),
    ("official-tools", False),
    ("my-claude", False),
    ("ndomo", False),
]


@pytest.mark.parametrize(("name", "reserved"), PLUGIN_NAMES)
def test_reserved_plugin_names(diagnostics: Diagnostics, name: str, reserved: bool) -> None:
    config = f'[targets.opencode]\n\n[targets.claude-plugin]\nversion = "1.0.0"\nname = "{name}"\n'
    expected = [("promptc.toml", 5, 1, f"plugin name '{name}' {RESERVED}")] if reserved else []
    assert_found(diagnostics(RULE, {"specs/agents/a.md": AGENT}, config), RULE, expected)


def test_plugin_name_in_pyproject_points_at_the_key(diagnostics: Diagnostics) -> None:
    pyproject = '[project]\nname = "x"\n\n[tool.promptc.targets.claude-plugin]\nname = "claude-x"\n'
    files = {"pyproject.toml": pyproject, "specs/agents/a.md": AGENT}
    assert_found(
        diagnostics(RULE, files, None),
        RULE,
        [("pyproject.toml", 5, 1, f"plugin name 'claude-x' {RESERVED}")],
    )


def test_a_plugin_name_of_its_own_in_pyproject_passes(diagnostics: Diagnostics) -> None:
    pyproject = '[project]\nname = "x"\n\n[tool.promptc.targets.claude-plugin]\nname = "x-review"\n'
    files = {"pyproject.toml": pyproject, "specs/agents/a.md": AGENT}
    assert diagnostics(RULE, files, None) == []


def test_clash_and_plugin_name_in_one_run(messages: Messages) -> None:
    config = PLUGIN + 'name = "claude-helpers"\n'
    assert messages(RULE, CLASH, config) == [
        "promptc.toml:2:1: error [claude-name] plugin name 'claude-helpers' is reserved by Claude "
        "Code for Anthropic's own plugins; name it for what it does",
        "specs/agents/team-reviewer.md:1:1: error [claude-name] agent 'team-reviewer' and "
        "'team/reviewer' are both named 'team-reviewer' in Claude Code; rename one",
    ]
