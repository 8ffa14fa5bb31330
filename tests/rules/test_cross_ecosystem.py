"""cross-ecosystem: Claude Code syntax that OpenCode loads and then gets wrong."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found

RULE = "cross-ecosystem"
A = "specs/agents/a.md"
M = "specs/modes/fix.md"
DESCRIPTION = "description: Reviews diffs for bugs and missing tests.\n"
CLAUDE_MODEL = "is a Claude Code model name; OpenCode needs `provider/model`"
CLAUDE_KEY = "is a Claude Code key: OpenCode moves it into `options` and ignores it"
CLAUDE_TOOL = "is a Claude Code tool name: OpenCode's permission keys are lowercase"


def mode(front: str) -> str:
    return f"---\ndescription: Fixes what the user asks for now.\n{front}---\nArregla: $ARGUMENTS\n"


# (frontmatter after the description, each (line, column, words) reported in the agent)
AGENT_CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        "model: haiku\nallowed-tools: Read, Grep\n",
        [
            (3, 8, f"'haiku' {CLAUDE_MODEL} (e.g. `anthropic/claude-haiku-4-5`)"),
            (4, 1, "`allowed-tools` is a Claude Code key for commands and skills"),
        ],
        id="docstring-fails",
    ),
    pytest.param(
        "model: anthropic/claude-haiku-4-5\npermission:\n  edit: deny\n"
        "targets:\n  claude:\n    model: haiku\n",
        [],
        id="docstring-passes",
    ),
    pytest.param("model: sonnet\n", [(3, 8, f"'sonnet' {CLAUDE_MODEL}")], id="model-sonnet"),
    pytest.param("model: inherit\n", [(3, 8, f"'inherit' {CLAUDE_MODEL}")], id="model-inherit"),
    pytest.param(
        "model: claude-sonnet-4-5\n",
        [(3, 8, f"'claude-sonnet-4-5' {CLAUDE_MODEL}")],
        id="model-claude-prefix",
    ),
    pytest.param(
        "model: subagent\n",
        [(3, 8, "`model: subagent` names a mode, not a model: write `mode: subagent`")],
        id="model-names-a-mode",
    ),
    pytest.param(
        "model: gpt-4o\n",
        [(3, 8, "model 'gpt-4o' has no provider: OpenCode needs `provider/model` (e.g. `openai/gpt-4o`)")],
        id="model-without-provider",
    ),
    pytest.param(
        "hooks: []\n",
        [(3, 1, f"`hooks` {CLAUDE_KEY}. Put it under `targets: {{claude: {{hooks: …}}}}`, as a map")],
        id="hooks-list",
    ),
    pytest.param("hooks:\n  Stop: x\n", [(3, 1, f"`hooks` {CLAUDE_KEY}")], id="hooks-map"),
    pytest.param(
        "permissionMode: plan\n", [(3, 1, f"`permissionMode` {CLAUDE_KEY}")], id="permission-mode"
    ),
    pytest.param("maxTurns: 3\n", [(3, 1, f"`maxTurns` {CLAUDE_KEY}")], id="max-turns"),
    pytest.param(
        "max_turns: 3\n",
        [(3, 1, "`max_turns` (Claude Code's `maxTurns`) is a Claude Code key")],
        id="claude-key-spelt-otherwise",
    ),
    pytest.param(
        "permission:\n  Bash: deny\n", [(4, 3, f"`Bash` {CLAUDE_TOOL}, so this rule matches no tool. Write `bash`")], id="permission-tool"
    ),
    pytest.param(
        "permission:\n  WebFetch: deny\n", [(4, 3, "Write `webfetch`")], id="permission-tool-camel"
    ),
    pytest.param(
        'permission:\n  "Bash(git push *)": deny\n',
        [(4, 3, 'is a Claude Code permission rule; OpenCode matches it against no tool. Write `bash: {"git push *": allow}`')],
        id="permission-rule",
    ),
    pytest.param(
        "permission:\n  mcp__github__create_issue: deny\n",
        [(4, 3, "is Claude Code's MCP naming; OpenCode names MCP tools `<server>_<tool>`: write `github_create_issue`")],
        id="permission-mcp-tool",
    ),
    pytest.param(
        "permission:\n  mcp__github: deny\n", [(4, 3, "write `github_*`")], id="permission-mcp-server"
    ),
    pytest.param(
        "permission:\n  bash: deny\n  github_create_issue: deny\n", [], id="opencode-permission-keys"
    ),
    pytest.param(
        "targets:\n  opencode:\n    model: haiku\n    maxTurns: 3\n    permission:\n      Read: deny\n",
        [
            (5, 12, f"'haiku' {CLAUDE_MODEL}"),
            (6, 5, f"`maxTurns` {CLAUDE_KEY}"),
            (8, 7, f"`Read` {CLAUDE_TOOL}"),
        ],
        id="targets-opencode",
    ),
    pytest.param(
        "targets:\n  claude:\n    maxTurns: 3\n    permissionMode: plan\n", [], id="targets-claude"
    ),
]  # fmt: skip


@pytest.mark.parametrize(("front", "expected"), AGENT_CASES)
def test_agents(diagnostics: Diagnostics, front: str, expected: list[tuple[int, int, str]]) -> None:
    found = diagnostics(RULE, {A: agent(DESCRIPTION + front)})
    assert_found(found, RULE, [(A, line, column, words) for line, column, words in expected])


MODE_CASES = [
    pytest.param("model: haiku\n", [(M, 3, 8, f"'haiku' {CLAUDE_MODEL}")], id="model"),
    pytest.param(
        "targets:\n  opencode:\n    model: sonnet\n",
        [(M, 5, 12, f"'sonnet' {CLAUDE_MODEL}")],
        id="targets-opencode-model",
    ),
    pytest.param("targets:\n  claude:\n    model: sonnet\n", [], id="targets-claude-model"),
    pytest.param("model: anthropic/claude-haiku-4-5\n", [], id="provider-model"),
]


@pytest.mark.parametrize(("front", "expected"), MODE_CASES)
def test_modes(diagnostics: Diagnostics, front: str, expected: Expected) -> None:
    assert_found(diagnostics(RULE, {M: mode(front)}), RULE, expected)


def test_level_is_configurable(diagnostics: Diagnostics) -> None:
    files = {A: agent(DESCRIPTION + "model: haiku\n")}
    [found] = diagnostics(RULE, files, '[rules.cross-ecosystem]\nlevel = "warning"\n')
    assert found.severity.value == "warning"
    assert diagnostics(RULE, files, '[rules.cross-ecosystem]\nlevel = "off"\n') == []
