"""`task` rules that allow starting a primary agent, which OpenCode never offers.

OpenCode's task tool lists only agents whose mode is not `primary`, so a
rule allowing `task` for a primary (yours, or OpenCode's `build` and `plan`)
does not make it available to the agent; it only looks as if it did. Make the
target a `subagent` (or `all`), or remove the rule.

Fails:
    permission:
      task:
        "*": deny
        foreman: allow     # foreman is a primary agent
Passes:
    permission:
      task:
        "*": deny
        scout: allow
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.runtime import problem_at
from promptc_compiler.runtimes.translations import Translated

ID = "task-primary"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Translated, _options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    own = (rule for agent in runtime.bundle_agents() for _, rule in agent.own_rules())
    rules = [r for r in (*runtime.config_rules, *own) if r.permission == "task"]
    for rule in rules:
        if rule.action == "deny" or rule.written is None or not wildcard.is_literal(rule.pattern):
            continue
        target = runtime.agents.get(rule.pattern)
        if target is None or target.mode != "primary":
            continue
        kind = "OpenCode's own primary agent" if target.native else "a primary agent"
        yield problem_at(
            rule.origin,
            f"`{rule.text()}`: `{target.name}` is {kind}, and OpenCode's task tool never "
            "offers primaries, so this rule gives nothing",
            f"make `{target.name}` a subagent (mode: subagent or all), or remove the rule",
        )
