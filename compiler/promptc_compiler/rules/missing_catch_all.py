"""Allow-lists without a `"*"` entry, which OpenCode's default allow leaves wide open.

OpenCode's built-in defaults start with `"*": allow`. A pattern map that
lists what an agent may do (`allow` entries) but has no entry matching
everything leaves every unlisted input to that default: the listed allows
change nothing, and everything else is allowed too. For `task` this silently
lets the agent start every other subagent (and OpenCode's own `general` and
`explore`). Maps made only of `deny`/`ask` entries are deny-lists and are
fine, and so is a map whose unlisted inputs are decided by an earlier rule of
the agent or of the config-level permission.

`--fix` inserts `"*": ask` as the first entry of the map, indented and
quoted as the map's own first entry is (inside the braces of a flow map
`{scout: allow}`), and changes nothing else. `ask` is the narrowest choice
that keeps the agent working: `deny` could break what the agent was meant to
do, `allow` is the hole being closed; an input the map does not list now
waits for the user's answer. Write `deny` instead where that is the intent.

Fails:
    permission:
      task:
        scout: allow       # every other subagent is still allowed
Passes:
    permission:
      task:
        "*": deny
        scout: allow
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Fix, Problem
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.coverage import Coverage
from promptc_compiler.permissions.delegation import can_start, offered
from promptc_compiler.permissions.ruleset import Rule
from promptc_compiler.permissions.runtime import (
    Agent,
    Runtime,
    anchor,
    problem_at,
    written_under,
)
from promptc_compiler.runtimes.translations import Translated

ID = "missing-catch-all"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}

BUILT_IN = ("default", "native")


def check(project: Translated, _options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    for agent in runtime.bundle_agents():
        for key, entries in _maps(agent).items():
            if any(runtime.patterns.universal(r.pattern) for _, r in entries):
                continue
            if not any(r.action == "allow" for _, r in entries):
                continue
            if key == "task":
                found = _task(runtime, agent)
            elif wildcard.is_literal(key):
                found = _other(agent, key, entries, runtime.coverage)
            else:
                continue
            for problem in found:
                yield dataclasses.replace(problem, fix=catch_all_fix(agent, key))


def catch_all_fix(agent: Agent, key: str) -> Fix | None:
    """`"*": ask` inserted as the first entry of the agent's `key` map, written
    as that entry is: on a line of its own at its indentation, or before it
    inside a flow map's braces; None when the map is not written as a map."""
    spec = agent.spec
    if spec is None or spec.frontmatter is None:
        return None
    path = (*written_under(spec, "permission"), "permission", key)
    entries: Any = spec.meta
    for part in path:
        entries = entries.get(part) if isinstance(entries, Mapping) else None
    if not isinstance(entries, Mapping) or not entries:
        return None
    at = spec.frontmatter.keys.get((*path, next(iter(entries))))
    if at is None:
        return None
    number, column = at
    line = spec.source.text.split("\n")[number - 1]
    before, rest = line[: column - 1], line[column - 1 :]
    quote = "'" if rest.startswith("'") else '"'
    entry = f"{quote}*{quote}: ask"
    if before.strip():  # `task: {scout: allow}`: the entry goes inside the braces
        return Fix(number, number, f"{before}{entry}, {rest}\n")
    return Fix(number, number - 1, f"{before}{entry}\n")


def _maps(agent: Agent) -> dict[str, list[tuple[int, Rule]]]:
    """The agent's own pattern-map entries, grouped by permission key."""
    maps: dict[str, list[tuple[int, Rule]]] = {}
    for index, rule in agent.own_rules():
        if rule.written is not None:
            maps.setdefault(rule.permission, []).append((index, rule))
    return maps


def _task(runtime: Runtime, agent: Agent) -> Iterator[Problem]:
    loose = []
    for target in offered(runtime):
        decision = can_start(agent, target)
        rule = decision.rule
        if decision.action == "allow" and rule is not None and rule.kind in BUILT_IN:
            loose.append(target.name)
    if loose:
        yield problem_at(
            anchor(agent, "task"),
            '`task` map has no `"*"` entry, so OpenCode\'s built-in `"*": allow` still '
            f"lets this agent start every subagent it does not list: {', '.join(loose)}",
            'add `"*": deny` (or ask, as --fix writes) as the first entry of the map',
        )


def _other(
    agent: Agent, key: str, entries: list[tuple[int, Rule]], coverage: Coverage
) -> Iterator[Problem]:
    first = entries[0][0]
    for index in range(first - 1, -1, -1):
        rule = agent.rules[index]
        if rule.kind not in BUILT_IN or rule.action != "allow":
            continue
        if not coverage.patterns.universal(rule.pattern):
            continue  # the folders OpenCode itself allows are not the "default allow"
        try:
            # An example input for the message: a non-empty one when there is one.
            found = coverage.decides(
                agent.rules, index, permission=key, within=["?*"]
            ) or coverage.decides(agent.rules, index, permission=key)
        except wildcard.TooComplex:
            return
        if found is not None:
            yield problem_at(
                anchor(agent, key),
                f'`{key}` map has no `"*"` entry, so inputs it does not list '
                f"(such as `{found.input}`) fall to OpenCode's built-in `{rule.text()}`: "
                "its allow entries change nothing",
                'add a `"*"` entry (deny, or ask as --fix writes) as the first entry of the map',
            )
            return
