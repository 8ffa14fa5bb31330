"""Agent and command names must stay distinct, and the plugin name allowed, in Claude Code.

Reported only when a `claude` or `claude-plugin` target is configured.
Claude Code names an agent by its `name` (lowercase words and hyphens), so
the agent `team/reviewer` becomes `team-reviewer`, and so does a mode
`team/reviewer`'s command; two ids that map to one name would overwrite each
other. `claude plugin validate` refuses plugin names that pass for
Anthropic's own (`claude`, `claude-code`, anything starting with `claude-`,
`anthropic-` or `cc-plugin-`, `official` beside `claude` or `anthropic`).
An id the `agent-id` rule would refuse (`powershell-5.1-expert`), when that
rule is turned down from an error, is refused here for Claude Code at the
spec: its agent file's `name` must be lowercase letters, digits and hyphens.

Options: none.

Fails:
    specs/agents/team/reviewer.md and specs/agents/team-reviewer.md
    [tool.promptc.targets.claude-plugin] name = "claude-tools"
    specs/agents/powershell-5.1-expert.md (with [rules.agent-id] level = "warning")
Passes:
    specs/agents/team/reviewer.md and specs/agents/reviewer.md
    [tool.promptc.targets.claude-plugin] name = "ndomo"
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Project, Spec
from promptc_compiler.runtimes.claude.agents import PLUGIN, TARGETS, reserved
from promptc_compiler.runtimes.translation import flat_name

ID = "claude-name"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}

# An agent file's `name` as the claude-agent schema takes it.
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


def check(project: Project, _options: Mapping[str, Any]) -> Iterator[Problem]:
    targets = project.config.targets
    if not any(name in targets for name in TARGETS):
        return
    if project.config.rules.get("agent-id", {}).get("level", "error") != "error":
        yield from _unnamed(project.agents)  # else agent-id has refused them already
    yield from _clashes(project.agents, "agent")
    yield from _clashes(project.modes, "command")
    yield from _plugin_name(project)


def _clashes(specs: Mapping[str, Spec], kind: str) -> Iterator[Problem]:
    first: dict[str, str] = {}
    for ident, spec in specs.items():
        name = flat_name(ident)
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


def _unnamed(specs: Mapping[str, Spec]) -> Iterator[Problem]:
    for ident, spec in specs.items():
        name = flat_name(ident)
        if not _NAME.fullmatch(name):
            fixed = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
            yield Problem(
                1,
                1,
                f"agent '{ident}' would be named '{name}' in Claude Code, which takes only "
                f"lowercase letters, digits and hyphens; rename the file (e.g. '{fixed}.md')",
                path=spec.source.path,
            )


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
