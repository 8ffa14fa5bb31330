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

from compiler import permissions, wildcard
from compiler.delegation import can_start
from compiler.diagnostics import Problem
from compiler.permissions import Agent, Decision, Runtime, anchor, problem_at
from compiler.project import Project
from compiler.suggest import did_you_mean
from compiler.tomlpos import locate

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


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = permissions.runtime(project)
    yield from _unknown_names(project, runtime, options)
    agents = runtime.bundle_agents()
    for entry in options["forbidden"]:
        for source in _named(agents, [entry["from"]]):
            for target in _named(list(runtime.agents.values()), entry["to"]):
                decision = can_start(source, target)
                if decision.action != "deny" and target.mode != "primary":
                    yield _violation(source, target, decision, "the policy forbids this edge")
    for name, via in options["only_via"].items():
        for target in _named(list(runtime.agents.values()), [name]):
            for source in agents:
                if _named([source], via) or target.mode == "primary":
                    continue
                decision = can_start(source, target)
                if decision.action != "deny":
                    allowed = ", ".join(via)
                    why = f"the policy lets only {allowed} start {target.name}"
                    yield _violation(source, target, decision, why)


def _named(agents: Sequence[Agent], patterns: Sequence[str]) -> list[Agent]:
    return [a for a in agents if any(wildcard.match(a.name, p) for p in patterns)]


def _violation(source: Agent, target: Agent, decision: Decision, why: str) -> Problem:
    rule = decision.rule
    verb = "may start" if decision.action == "allow" else "may ask to start"
    if rule is not None and rule.origin.path is not None:
        return problem_at(
            rule.origin, f"`{rule.text()}`: {source.name} {verb} {target.name}, but {why}"
        )
    label = rule.origin.label if rule is not None else "fallback"
    return problem_at(
        anchor(source, "task"),
        f"{source.name} {verb} {target.name} through OpenCode's {label} "
        f"`{rule.text() if rule else 'ask'}`, but {why}",
        f'give {source.name} a `task` map starting with `"*": deny`',
    )


def _unknown_names(
    project: Project, runtime: Runtime, options: Mapping[str, Any]
) -> Iterator[Problem]:
    config = project.config
    if config.source is None:
        return
    text = config.source.read_text(encoding="utf-8")
    prefix = ("tool", "promptc") if config.source.name == "pyproject.toml" else ()
    names = list(runtime.agents)
    mentioned = [e["from"] for e in options["forbidden"]]
    mentioned += [n for e in options["forbidden"] for n in e["to"]]
    mentioned += [n for k, v in options["only_via"].items() for n in (k, *v)]
    for name in dict.fromkeys(mentioned):
        if any(wildcard.match(agent, name) for agent in names):
            continue
        line, column = locate(text, (*prefix, "rules", ID))
        yield Problem(
            line,
            column,
            f"the delegation policy names `{name}`, but no agent matches it"
            f"{did_you_mean(name, names)}",
            path=config.source,
        )
