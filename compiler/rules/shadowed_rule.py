"""Permission rules that can never decide, because later rules match everything they match.

OpenCode uses the LAST rule that matches a request, not the most specific
one. A rule followed by a broader one (typically a catch-all `"*": deny`
written at the end of an allow-list) is dead: whatever it matches, the later
rule matches too and wins, so the agent cannot do what the earlier rule says
it may. Numeric pattern keys (`"2"`, `"10"`) are easy to miss: OpenCode
(JavaScript object order) moves them before every other key of their map.

The check is exact: rule patterns are compared as languages (`*` crossing
`/`, `?`, the optional trailing ` *`, and permission keys such as `"*"` or
`mcp_*` that cover other keys), and a rule is reported only when no
(permission, input) pair is left that it decides. Rules of the config-level
`permission` are checked against each other too.

Options:
    redundant (boolean, default false): also report rules whose overriders
        decide the same action (harmless, but dead text).

Fails:
    permission:
      bash:
        "rg *": allow      # never decides: "*": deny below matches all of it
        "*": deny
Passes:
    permission:
      bash:
        "*": deny
        "rg *": allow
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from compiler import coverage, permissions
from compiler.diagnostics import Problem
from compiler.permissions import Rule
from compiler.project import Project
from compiler.runtime import for_project, problem_at
from compiler.wildcard import TooComplex

ID = "shadowed-rule"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {
    "redundant": {"type": "boolean", "default": False},
}


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = for_project(project)
    for agent in runtime.bundle_agents():
        for index, _ in agent.own_rules():
            yield from _dead(agent.rules, index, options["redundant"])
    for index in range(len(runtime.config_rules)):
        yield from _dead(runtime.config_rules, index, options["redundant"])


def _dead(rules: Sequence[Rule], index: int, redundant: bool) -> Iterator[Problem]:
    try:
        if coverage.decides(rules, index) is not None:
            return
        later = coverage.overlapping(rules, index)
    except TooComplex:
        return
    rule = rules[index]
    same = all(rules[j].action == rule.action for j in later)
    if same and not redundant:
        return
    try:
        single = coverage.covering(rules, index)
    except TooComplex:  # the pairwise search has its own budget: name every later rule
        single = None
    if single is not None:
        cause = f"the later `{rules[single].text()}` ({_at(rules[single], rule)}) matches "
        cause += "everything it matches"
    else:
        places = ", ".join(f"`{rules[j].text()}` ({_at(rules[j], rule)})" for j in later)
        cause = f"later rules {places} together match everything it matches"
    verdict = "is redundant" if same else "never decides"
    hint = None
    if not same:
        hint = (
            "OpenCode applies the last matching rule, not the most specific: put broad rules first"
        )
    if permissions.is_index_key(rule.permission if rule.written is None else rule.written):
        hint = (
            "OpenCode reads the map as a JavaScript object, which moves numeric keys "
            "such as this one before all the others"
        )
    yield problem_at(rule.origin, f"`{rule.text()}` {verdict}: {cause}", hint)


def _at(rule: Rule, seen_from: Rule) -> str:
    origin = rule.origin
    if origin.path is None:
        return origin.label
    if origin.path == seen_from.origin.path:
        return f"line {origin.line}"
    return f"{_name(origin.path)}:{origin.line}"


def _name(path: Path) -> str:
    return path.name
