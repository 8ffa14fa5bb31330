"""`task` patterns that name no agent OpenCode would load.

A `task` rule's pattern is matched against the name of the agent to start.
A name that no agent has (a typo, a renamed or disabled agent) is a rule
that never applies, and usually a sign that the agent meant to be reachable
is not. OpenCode's own agents (build, plan, general, explore, ...) count as
existing, and so does a spec that does not load; a wildcard pattern that
matches no agent is reported too.

Fails:
    permission:
      task:
        "*": deny
        reviwer: allow     # no agent `reviwer` (did you mean `reviewer`?)
Passes:
    permission:
      task:
        "*": deny
        reviewer: allow
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.runtime import problem_at
from promptc_compiler.runtimes.translations import Translated

ID = "task-unknown-agent"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Translated, _options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    # A spec that did not load still exists (its own errors say what is wrong):
    # its name counts.
    unloaded = [ident for ident in project.bundle.agents if ident not in project.agents]
    names = [*runtime.agents, *unloaded]
    disabled = set(project.agents) - set(runtime.agents)
    own = (rule for agent in runtime.bundle_agents() for _, rule in agent.own_rules())
    rules = [r for r in (*runtime.config_rules, *own) if r.permission == "task"]
    known = {wildcard.normal(name) for name in names}
    matches: dict[str, bool] = {}  # pattern -> some agent matches it (maps repeat patterns)
    for rule in rules:
        if rule.written is None or wildcard.universal(rule.pattern):
            continue
        pattern = rule.pattern
        literal = wildcard.is_literal(pattern)
        if pattern not in matches:
            matches[pattern] = (
                wildcard.normal(pattern) in known
                if literal
                else any(wildcard.match(name, pattern) for name in names)
            )
        if matches[pattern]:
            continue
        if not literal:
            message = f"`task` pattern `{pattern}` matches no agent"
        elif pattern in disabled:
            message = f"`task` names `{pattern}`, which is disabled: OpenCode does not load it"
        elif project.may_be_an_agent(pattern):
            continue  # a file under the agents folder could not be read
        else:
            hint = did_you_mean(pattern, names)
            message = f"`task` names `{pattern}`, but no agent has that name{hint}"
        yield problem_at(rule.origin, message)
