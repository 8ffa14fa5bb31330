"""Agent and command names must stay distinct, and the plugin name allowed, in Claude Code.

Reported only when a `claude` or `claude-plugin` target is configured.
Claude Code names an agent by its `name` (lowercase words and hyphens), so
the agent `team/reviewer` becomes `team-reviewer`, and so does a mode
`team/reviewer`'s command; two ids that map to one name would overwrite each
other. `claude plugin validate` refuses plugin names that pass for
Anthropic's own (`claude`, `claude-code`, anything starting with `claude-`,
`anthropic-` or `cc-plugin-`, `official` beside `claude` or `anthropic`).

Options: none.

Fails:
    specs/agents/team/reviewer.md and specs/agents/team-reviewer.md
    [tool.promptc.targets.claude-plugin] name = "claude-tools"
Passes:
    specs/agents/team/reviewer.md and specs/agents/reviewer.md
    [tool.promptc.targets.claude-plugin] name = "ndomo"
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from compiler.claude_agents import PLUGIN, TARGETS, claude_name, reserved
from compiler.diagnostics import Problem
from compiler.project import Project, Spec

ID = "claude-name"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    targets = project.config.targets
    if not any(name in targets for name in TARGETS):
        return
    yield from _clashes(project.agents, "agent")
    yield from _clashes(project.modes, "command")
    yield from _plugin_name(project)


def _clashes(specs: Mapping[str, Spec], kind: str) -> Iterator[Problem]:
    first: dict[str, str] = {}
    for ident, spec in specs.items():
        name = claude_name(ident)
        if name in first:
            yield Problem(
                1,
                1,
                f"{kind} '{ident}' and '{first[name]}' are both named '{name}' in Claude Code; "
                "rename one",
                path=spec.source.path,
            )
        else:
            first[name] = ident


def _plugin_name(project: Project) -> Iterator[Problem]:
    config = project.config
    options = config.targets.get(PLUGIN)
    name = options.get("name") if options else None
    if not isinstance(name, str) or not reserved(name) or config.source is None:
        return
    yield Problem(
        *config.where(("targets", PLUGIN, "name")),
        f"plugin name '{name}' is reserved by Claude Code for Anthropic's own plugins; "
        "name it for what it does",
        path=config.source,
    )
