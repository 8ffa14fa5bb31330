"""Subagents whose permission lets them start other agents.

OpenCode gives every subagent session `task: deny` unless the subagent's own
rules mention `task`; mentioning it with any allow or ask switches that off.
Even then, OpenCode's `subagent_depth` (default 1) refuses a task call made
from a subagent session, so the permission misleads the model and whoever
reads the spec: the work should come back to the primary that delegates.

Fails:
    mode: subagent
    permission:
      task:
        "*": deny
        scout: allow       # a subagent that may start scout
Passes:
    mode: subagent
    permission:
      task: deny
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.permissions.delegation import edges_from
from promptc_compiler.permissions.runtime import anchor, problem_at
from promptc_compiler.runtimes.translations import Translated

ID = "subagent-delegates"
DEFAULT_LEVEL = "warning"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Translated, _options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    for agent in runtime.bundle_agents():
        if agent.mode != "subagent":
            continue
        edges = list(edges_from(runtime, agent))
        if not edges:
            continue
        names = ", ".join(e.target.name for e in edges)
        yield problem_at(
            anchor(agent, "task"),
            f"subagent `{agent.name}` may start {names} through the task tool; OpenCode "
            "refuses task calls from subagent sessions at its default subagent_depth of 1",
            "set `task: deny` and let the primary that started it delegate",
        )
