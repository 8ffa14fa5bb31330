"""Claude Code syntax in an OpenCode-layout spec, which OpenCode loads but misreads.

Files copied between the two ecosystems are common. What OpenCode rejects
outright (`tools` as a list or a comma string, Claude colour names) is a
`schema` error, with a message that says where the syntax comes from. This
rule reports what OpenCode accepts and then gets wrong:

- `model` without a provider: `haiku`, `sonnet`, `inherit`, `claude-…` are
  Claude Code names, and OpenCode needs `provider/model`; the agent fails
  when it runs. A mode value (`model: subagent`) in `model` is reported too.
- Claude Code keys (`allowed-tools`, `permissionMode`, `maxTurns`, `hooks`,
  …): OpenCode moves them into `options` and ignores them. `allowed-tools` is
  the commands-and-skills key: on an agent both runtimes ignore it, so it
  restricts nothing (Claude Code grants every tool when `tools` is absent).
  `hooks: []` makes Claude Code drop the agent. Claude settings belong under
  `targets: {claude: {…}}`.
- Permission keys written as Claude Code tools (`Bash`, `WebFetch`,
  `Bash(git *)`, `mcp__server__tool`): OpenCode's keys are lowercase and its
  MCP tools are `server_tool`, so such a rule matches nothing.

Checked in agents (top level and `targets.opencode`) and in modes (`model`).

Options: none.

Fails:
    ---
    description: Reviews diffs for bugs and missing tests.
    model: haiku          # Claude Code model name; OpenCode needs provider/model
    allowed-tools: Read, Grep
    ---
Passes:
    ---
    description: Reviews diffs for bugs and missing tests.
    model: anthropic/claude-haiku-4-5
    permission:
      edit: deny
    targets:
      claude:
        model: haiku
    ---
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.loader import JsonPath
from promptc_compiler.core.project import Project, Spec
from promptc_compiler.core.validate import opencode_sections
from promptc_compiler.runtimes.claude.agents import claude_key

ID = "cross-ecosystem"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}

MODES = ("subagent", "primary", "all")
CLAUDE_MODELS = ("sonnet", "opus", "haiku", "fable", "inherit")
# Claude Code tool name -> the OpenCode permission key that governs it.
CLAUDE_TOOLS = {
    "Bash": "bash",
    "Edit": "edit",
    "Write": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Read": "read",
    "Glob": "glob",
    "Grep": "grep",
    "LS": "list",
    "WebFetch": "webfetch",
    "WebSearch": "websearch",
    "Task": "task",
    "Agent": "task",
    "TodoWrite": "todowrite",
    "AskUserQuestion": "question",
    "LSP": "lsp",
    "Skill": "skill",
}
_CLAUDE_RULE = re.compile(r"^([A-Z][A-Za-z]*)\((.*)\)$")


def check(project: Project, _options: Mapping[str, Any]) -> Iterator[Problem]:
    for spec in project.agents.values():
        for base, section in opencode_sections(spec.meta):
            yield from _keys(spec, base, section)
            yield from _model(spec, base, section)
            yield from _permission_keys(spec, base, section.get("permission"))
    for spec in project.modes.values():
        yield from _model(spec, (), spec.meta)
        yield from _model(spec, ("targets", "opencode"), spec.override("opencode"))


def _at(spec: Spec, path: JsonPath, message: str, *, key: bool = False) -> Problem:
    pos = spec.where(*path, key=key)
    return Problem(*pos, message, path=spec.source.path)


def _keys(spec: Spec, base: JsonPath, section: Mapping[str, Any]) -> Iterator[Problem]:
    for key, value in section.items():
        meant = claude_key(key)
        if meant is None:
            continue
        if meant == "allowed-tools":
            message = (
                f"`{key}` is a Claude Code key for commands and skills: on an agent both "
                "runtimes ignore it, so it restricts nothing (Claude Code grants every tool, "
                "OpenCode moves it into `options`). Restrict tools with `permission:` "
                "(e.g. `permission: {edit: deny, bash: deny}`)"
            )
        else:
            spelt = f"`{key}` (Claude Code's `{meant}`)" if key != meant else f"`{key}`"
            message = (
                f"{spelt} is a Claude Code key: OpenCode moves it into `options` and ignores "
                f"it. Put it under `targets: {{claude: {{{meant}: …}}}}`"
            )
            if meant == "hooks" and isinstance(value, list):
                message += ", as a map: `hooks: []` makes Claude Code drop the agent"
        yield _at(spec, (*base, key), message, key=True)


def _model(spec: Spec, base: JsonPath, section: Mapping[str, Any]) -> Iterator[Problem]:
    model = section.get("model")
    if not isinstance(model, str) or "/" in model:
        return
    if model in MODES:
        message = (
            f"`model: {model}` names a mode, not a model: write `mode: {model}`, and set "
            "`model` only to pick one (`provider/model`)"
        )
    elif model in CLAUDE_MODELS or model.startswith("claude-"):
        message = (
            f"'{model}' is a Claude Code model name; OpenCode needs `provider/model` "
            "(e.g. `anthropic/claude-haiku-4-5`) and fails when the agent runs. For "
            f"Claude Code, set it under `targets: {{claude: {{model: {model}}}}}`"
        )
    else:
        message = (
            f"model '{model}' has no provider: OpenCode needs `provider/model` "
            f"(e.g. `openai/{model}`) and fails when the agent runs"
        )
    yield _at(spec, (*base, "model"), message)


def _permission_keys(spec: Spec, base: JsonPath, permission: Any) -> Iterator[Problem]:
    if not isinstance(permission, Mapping):
        return
    for key in permission:
        message = _claude_permission(key)
        if message:
            yield _at(spec, (*base, "permission", key), message, key=True)


def _claude_permission(key: str) -> str | None:
    if key in CLAUDE_TOOLS:
        return (
            f"`{key}` is a Claude Code tool name: OpenCode's permission keys are lowercase, "
            f"so this rule matches no tool. Write `{CLAUDE_TOOLS[key]}`"
        )
    rule = _CLAUDE_RULE.match(key)
    if rule and rule.group(1) in CLAUDE_TOOLS:
        tool, pattern = CLAUDE_TOOLS[rule.group(1)], rule.group(2)
        return (
            f"`{key}` is a Claude Code permission rule; OpenCode matches it against no tool. "
            f'Write `{tool}: {{"{pattern}": allow}}` (or ask, deny)'
        )
    if key.startswith("mcp__"):
        server, _, tool = key[5:].partition("__")
        return (
            f"`{key}` is Claude Code's MCP naming; OpenCode names MCP tools "
            f"`<server>_<tool>`: write `{server}_{tool or '*'}`"
        )
    return None
