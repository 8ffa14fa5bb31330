"""What every translation of OpenCode permissions shares, whatever the runtime.

A runtime's translation (promptc_compiler.runtimes.<name>) decides, for each
*subject* (a bundle agent, or the main session when the config names no
default agent), what its files can say of the OpenCode rules the subject is
decided with; the rules are cut into *spans* (the inputs one rule decides:
its pattern minus every later pattern, since the last match wins) and every
rule the files cannot say is a *loss*, one message per subject and rule, that
the lossy-translation rule and each target's TRANSLATION.md report.
Translation must not depend on the machine: the home folder is a stand-in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from promptc_compiler.core.project import Project
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.ruleset import Environment, Rule
from promptc_compiler.permissions.runtime import Agent, resolve

# OpenCode replaces a leading `~` or `$HOME` of any pattern with the home
# folder. promptc translates with this stand-in, so the output never depends
# on the machine; a runtime maps it back to its own spelling (`~/`).
HOME = "/~"
MAIN = "the main thread"
# The paths translation decides with: the stand-in home, never the machine's.
ENVIRONMENT = Environment(
    home=HOME,
    data=f"{HOME}/.local/share/opencode",
    tmp="/tmp/opencode",
    worktree="/",
)


@dataclass(frozen=True)
class Subject:
    """Whoever runs with a runtime's tools: a bundle agent, or the main thread."""

    name: str  # the OpenCode agent id, or MAIN
    agent: Agent
    rules: tuple[Rule, ...]  # the rules OpenCode decides this subject's calls with
    removable: bool = True  # False: its tools cannot be narrowed


@dataclass(frozen=True)
class Source:
    subject: str
    rule: Rule | None  # None: OpenCode's own behaviour, not a written rule


@dataclass(frozen=True)
class Loss:
    subject: str
    rule: Rule
    message: str

    @staticmethod
    def gather(notes: Mapping[tuple[str, Rule], list[str]]) -> tuple[Loss, ...]:
        """One Loss per agent and rule, its messages joined, each said once."""
        return tuple(Loss(s, r, "; ".join(dict.fromkeys(parts))) for (s, r), parts in notes.items())


def hits(
    patterns: wildcard.Patterns, include: tuple[str, ...], exclude: tuple[str, ...] = ()
) -> bool:
    """Some input matches every `include` pattern and no `exclude` one.
    Too complex to decide counts as yes: the safe answer for every caller."""
    if patterns.apart(include):
        return False
    try:
        return patterns.witness(include, exclude) is not None
    except wildcard.TooComplex:
        return True


class Span(NamedTuple):
    """The inputs one rule decides: its pattern minus every later pattern.

    The rule is named by its index in the list: which spans a list has depends
    only on its (permission, pattern, action)s, so agents whose lists have the
    same ones share them, each reading its own rule at the index.
    """

    at: int | None  # None: no rule matches, OpenCode asks
    action: str
    pattern: str
    later: tuple[str, ...]


def spans(patterns: wildcard.Patterns, rules: Sequence[Rule], permission: str) -> tuple[Span, ...]:
    name = wildcard.normal(permission)
    relevant = [i for i, r in enumerate(rules) if r.names(name)]
    found: list[Span] = []
    for position, index in enumerate(relevant):
        rule = rules[index]
        later = tuple(dict.fromkeys(rules[i].pattern for i in relevant[position + 1 :]))
        if not any(patterns.universal(p) for p in later) and hits(patterns, (rule.pattern,), later):
            found.append(Span(index, rule.action, rule.pattern, later))
    every = tuple(dict.fromkeys(rules[i].pattern for i in relevant))
    if not any(patterns.universal(p) for p in every):
        found.append(Span(None, "ask", "*", every))
    return tuple(found)


def main_agent(project: Project, runtime_agents: Mapping[str, Agent]) -> str | None:
    name = project.config.default_agent
    agent = runtime_agents.get(name) if name else None
    return name if agent is not None and not agent.native else None


def subjects(project: Project) -> tuple[tuple[Subject, ...], wildcard.Patterns]:
    """Who runs with a runtime's tools, and the run's answers about their patterns."""
    runtime = resolve(project, ENVIRONMENT)
    found = [Subject(a.name, a, a.effective(a.mode != "primary")) for a in runtime.bundle_agents()]
    if main_agent(project, runtime.agents) is None:
        default = runtime.agents.get("build")
        rules = default.rules if default else ()
        found.append(Subject(MAIN, default or Agent("build", "primary", ()), rules, False))
    return tuple(found), runtime.patterns


def join_names(names: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
