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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.permissions import ruleset as permissions
from promptc_compiler.permissions.coverage import Coverage
from promptc_compiler.permissions.ruleset import Rule
from promptc_compiler.permissions.runtime import problem_at
from promptc_compiler.permissions.wildcard import TooComplex
from promptc_compiler.runtimes.translations import Translated

ID = "shadowed-rule"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {
    "redundant": {"type": "boolean", "default": False},
}


def check(project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    redundant = options["redundant"]
    judged: dict[tuple[object, ...], tuple[Dead, ...]] = {}
    coverage = runtime.coverage
    for agent in runtime.bundle_agents():
        for dead in _dead_rules(agent.rules, redundant, judged, coverage):
            yield _problem(agent.rules, dead)
    config_rules = runtime.config_rules
    for dead in _judge(config_rules, range(len(config_rules)), redundant, coverage):
        yield _problem(runtime.config_rules, dead)


class Dead(NamedTuple):
    """A rule that never decides (or, with `redundant`, decides nothing new)."""

    at: int  # its index
    later: tuple[int, ...]  # the later rules that match some of what it matches
    single: int | None  # the later rule that alone matches all of it, if one does
    same: bool  # every one of them has its action


def _dead_rules(
    rules: Sequence[Rule],
    redundant: bool,
    judged: dict[tuple[object, ...], tuple[Dead, ...]],
    coverage: Coverage,
) -> tuple[Dead, ...]:
    """The dead rules the agent wrote. Which they are depends on each rule's
    permission, pattern and action, and on which ones the spec wrote, alone;
    agents share those lists (the same defaults, maps copied from spec to
    spec), so a run judges each list once (`judged`)."""
    key = tuple([(r.permission, r.pattern, r.action, r.kind == "agent") for r in rules])
    found = judged.get(key)
    if found is None:
        own = [i for i, r in enumerate(rules) if r.kind == "agent"]
        found = judged[key] = tuple(_judge(rules, own, redundant, coverage))
    return found


def _judge(
    rules: Sequence[Rule], indices: Iterable[int], redundant: bool, coverage: Coverage
) -> Iterator[Dead]:
    for index in indices:
        try:
            if coverage.decides(rules, index) is not None:
                continue
            later = coverage.overlapping(rules, index)
        except TooComplex:
            continue
        rule = rules[index]
        same = all(rules[j].action == rule.action for j in later)
        if same and not redundant:
            continue
        try:
            single = coverage.covering(rules, index)
        except TooComplex:  # the pairwise search has its own budget: name every later rule
            single = None
        yield Dead(index, tuple(later), single, same)


def _problem(rules: Sequence[Rule], dead: Dead) -> Problem:
    rule = rules[dead.at]
    if dead.single is not None:
        single = rules[dead.single]
        cause = f"the later `{single.text()}` ({_at(single, rule)}) matches "
        cause += "everything it matches"
    else:
        places = ", ".join(f"`{rules[j].text()}` ({_at(rules[j], rule)})" for j in dead.later)
        cause = f"later rules {places} together match everything it matches"
    verdict = "is redundant" if dead.same else "never decides"
    hint = None
    if not dead.same:
        hint = (
            "OpenCode applies the last matching rule, not the most specific: put broad rules first"
        )
    if permissions.is_index_key(rule.permission if rule.written is None else rule.written):
        hint = (
            "OpenCode reads the map as a JavaScript object, which moves numeric keys "
            "such as this one before all the others"
        )
    return problem_at(rule.origin, f"`{rule.text()}` {verdict}: {cause}", hint)


def _at(rule: Rule, seen_from: Rule) -> str:
    origin = rule.origin
    if origin.path is None:
        return origin.label
    if origin.path == seen_from.origin.path:
        return f"line {origin.line}"
    return f"{origin.path.name}:{origin.line}"
