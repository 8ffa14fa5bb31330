"""Subagents that no primary agent of the bundle can start.

A subagent runs only when an agent starts it through the task tool (or a
user @mentions it). If every primary's `task` rules deny it, it is dead
weight in every session, or a primary's map forgot it. Agents meant to be
started only by hand go in `ignore`. OpenCode's own primaries (build,
plan) do not count as a way in; a bundle with no primary of its own relies on
them, so it is not checked.

Options:
    ignore (list of agent ids, default []): subagents started only by hand.

Fails:
    # no primary's task rules allow `painter`
Passes:
    # craftsman.md
    permission:
      task:
        "*": deny
        painter: allow
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.delegation import can_start, starters
from promptc_compiler.runtimes.translations import Translated

ID = "unreachable-subagent"
DEFAULT_LEVEL = "warning"
STAGE = False
OPTIONS: dict[str, Any] = {
    "ignore": {"type": "array", "items": {"type": "string"}, "default": []},
}


def check(project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    primaries = starters(runtime)
    if not primaries:
        return
    for agent in runtime.bundle_agents():
        if agent.mode != "subagent" or agent.spec is None:
            continue
        if any(wildcard.match(agent.name, pattern) for pattern in options["ignore"]):
            continue
        if any(can_start(p, agent).action != "deny" for p in primaries):
            continue
        pos = agent.spec.where("mode", key=True)
        who = ", ".join(p.name for p in primaries)
        yield Problem(
            *pos,
            f"no primary agent can start subagent `{agent.name}` through the task tool "
            f"(primaries: {who})",
            "allow it in a primary's `task` map, or list it in this rule's `ignore` "
            "option if users start it by hand",
            path=agent.spec.source.path,
        )
