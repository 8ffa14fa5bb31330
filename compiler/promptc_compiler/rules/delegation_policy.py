"""The bundle's own delegation policy: edges that must not exist, agents reachable only via some.

Configured in `[tool.promptc.rules.delegation-policy]`; names are agent ids
and may use OpenCode's wildcards (`"*-smith"`). An edge exists when the
starting agent's `task` decision for the target is not deny (`ask` counts:
the user can approve it), evaluated exactly as OpenCode does, so an agent
whose `task` map forgot `"*": deny` violates the policy through OpenCode's
default allow. Each violation is reported at the rule that decides the edge.
OpenCode's own agents (build, plan) are not checked.

Options:
    forbidden (list of {from, to}, default []): `from` may start none of `to`.
    only_via (map of agent to list, default {}): only the listed agents may
        start it.

    [tool.promptc.rules.delegation-policy]
    forbidden = [{from = "foreman", to = ["smith", "*-smith", "painter"]}]
    only_via = {painter = ["craftsman"]}

Fails:
    # foreman.md, with the policy above
    permission:
      task:
        "*": deny
        smith: allow
Passes:
    permission:
      task:
        "*": deny
        scout: allow
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.core.project import Project
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.delegation import can_start
from promptc_compiler.permissions.ruleset import Decision
from promptc_compiler.permissions.runtime import Agent, Runtime, anchor, problem_at
from promptc_compiler.runtimes.translations import Translated

ID = "delegation-policy"
DEFAULT_LEVEL = "error"
STAGE = False
NAMES = {"type": "array", "items": {"type": "string", "minLength": 1}}
OPTIONS: dict[str, Any] = {
    "forbidden": {
        "type": "array",
        "items": {
            "type": "object",
            "additionalProperties": False,
            "required": ["from", "to"],
            "properties": {"from": {"type": "string", "minLength": 1}, "to": NAMES},
        },
        "default": [],
    },
    "only_via": {"type": "object", "additionalProperties": NAMES, "default": {}},
}


def check(project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    yield from _unknown_names(project, runtime, options)
    found: dict[tuple[str, int], list[tuple[Agent, Agent, Decision, str]]] = {}
    for violation in _violations(runtime, options):
        source, _, decision, _ = violation
        found.setdefault((source.name, id(decision.rule)), []).append(violation)
    for group in found.values():
        yield _report(group)


def _violations(
    runtime: Runtime, options: Mapping[str, Any]
) -> Iterator[tuple[Agent, Agent, Decision, str]]:
    agents = runtime.bundle_agents()
    everyone = list(runtime.agents.values())
    for entry in options["forbidden"]:
        for source in _named(agents, [entry["from"]]):
            for target in _named(everyone, entry["to"]):
                decision = can_start(source, target)
                if decision.action != "deny" and target.mode != "primary":
                    yield source, target, decision, f"forbids {source.name} -> {target.name}"
    for name, via in options["only_via"].items():
        for target in _named(everyone, [name]):
            for source in agents:
                if _named([source], via) or target.mode == "primary":
                    continue
                decision = can_start(source, target)
                if decision.action != "deny":
                    why = f"lets only {', '.join(via)} start {target.name}"
                    yield source, target, decision, why


def _named(agents: Sequence[Agent], patterns: Sequence[str]) -> list[Agent]:
    return [a for a in agents if any(wildcard.match(a.name, p) for p in patterns)]


def _report(group: list[tuple[Agent, Agent, Decision, str]]) -> Problem:
    source, _, decision, _ = group[0]
    targets = ", ".join(dict.fromkeys(t.name for _, t, _, _ in group))
    whys = "; it ".join(dict.fromkeys(why for _, _, _, why in group))
    verb = "may start" if decision.action == "allow" else "may ask to start"
    rule = decision.rule
    if rule is not None and rule.path is not None:
        return problem_at(
            rule.origin, f"`{rule.text()}`: {source.name} {verb} {targets}, but the policy {whys}"
        )
    label = rule.label if rule is not None else "fallback"
    return problem_at(
        anchor(source, "task"),
        f"{source.name} {verb} {targets} through OpenCode's {label} "
        f"`{rule.text() if rule else 'ask'}`, but the policy {whys}",
        f'give {source.name} a `task` map starting with `"*": deny`',
    )


def _unknown_names(
    project: Project, runtime: Runtime, options: Mapping[str, Any]
) -> Iterator[Problem]:
    config = project.config
    if config.source is None:
        return
    line, column = config.where(("rules", ID))
    names = list(runtime.agents)
    mentioned = [e["from"] for e in options["forbidden"]]
    mentioned += [n for e in options["forbidden"] for n in e["to"]]
    mentioned += [n for k, v in options["only_via"].items() for n in (k, *v)]
    for name in dict.fromkeys(mentioned):
        if any(wildcard.match(agent, name) for agent in names):
            continue
        yield Problem(
            line,
            column,
            f"the delegation policy names `{name}`, but no agent matches it"
            f"{did_you_mean(name, names)}",
            path=config.source,
        )
