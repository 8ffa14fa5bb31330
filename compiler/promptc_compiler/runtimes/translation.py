"""The translation vocabulary every runtime shares, owned by none of them.

Each runtime's translation of OpenCode permissions (Claude Code's settings and
tools in promptc_compiler.runtimes.claude.translate, Codex's prefix rules in
promptc_compiler.runtimes.codex.translate, the
tool lists of Copilot CLI and Gemini CLI in promptc_compiler.runtimes.tool_lists) speaks of the
same things: who runs with the runtime's tools (a Subject: a bundle agent, or
the main thread), the inputs each OpenCode rule decides (a Span), whose rule
stands behind a translated one (a Source), and what the runtime cannot say (a
Loss, one per OpenCode rule and agent). They are decided in one environment
that does not depend on the machine (ENVIRONMENT), and an agent id with
folders is one flat name in the runtimes that read one folder of agents
(`flat_name`). A lint reports a runtime's losses at the lines that wrote the
rules (`loss_problems`), and what an agent or mode file cannot carry at its key
(`note_problems`): the lossy-translation rule, one runtime at a time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

from promptc_compiler.base.body_syntax import positional
from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.loader import Pos
from promptc_compiler.core.project import Project, Spec
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.ruleset import HOME_STAND_IN, Environment, Rule
from promptc_compiler.permissions.runtime import Agent, Runtime

MAIN = "the main thread"
T = TypeVar("T")
# Translation must not depend on the machine: the home folder is a stand-in
# (permissions.HOME_STAND_IN), which each runtime maps back to its own `~/`.
ENVIRONMENT = Environment(
    home=HOME_STAND_IN,
    data=f"{HOME_STAND_IN}/.local/share/opencode",
    tmp="/tmp/opencode",
    worktree="/",
)


@dataclass(frozen=True, eq=False)
class Translator(Generic[T]):
    """How one runtime translates a bundle: translate(project, opencode), where
    `opencode` holds the bundle's agents as OpenCode resolves them in
    ENVIRONMENT. Each is worked out once in a run, the first time the rules,
    the targets or the proof ask the run's Translations for it
    (promptc_compiler.runtimes.translations)."""

    translate: Callable[[Project, Runtime], T]


class Subject(NamedTuple):
    """Whoever runs with a runtime's tools: a bundle agent, or the main thread."""

    name: str  # the OpenCode agent id, or MAIN
    agent: Agent
    rules: tuple[Rule, ...]  # the rules OpenCode decides this subject's calls with
    removable: bool = True  # False: its tools cannot be narrowed


class Source(NamedTuple):
    """Whose rule (or OpenCode's own behaviour) a translated rule or loss comes from."""

    subject: str
    rule: Rule | None  # None: OpenCode's own behaviour, not a written rule


class Loss(NamedTuple):
    """What a runtime cannot say of one OpenCode rule, for one agent."""

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
    """The spans of `permission` in a rule list, in order; the last is OpenCode's own
    ask where no rule matches, unless a rule matches every input."""
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
    """The config's `default_agent` when it is one of the bundle's agents (the main
    session then runs as that agent), else None."""
    name = project.config.default_agent
    agent = runtime_agents.get(name) if name else None
    return name if agent is not None and not agent.native else None


def subjects(project: Project, runtime: Runtime) -> tuple[tuple[Subject, ...], wildcard.Patterns]:
    """Who runs with a runtime's tools, and the run's answers about their patterns;
    `runtime`: the bundle's agents resolved in ENVIRONMENT (opencode)."""
    found = [Subject(a.name, a, a.effective(a.mode != "primary")) for a in runtime.bundle_agents()]
    if main_agent(project, runtime.agents) is None:
        default = runtime.agents.get("build")
        rules = default.rules if default else ()
        found.append(Subject(MAIN, default or Agent("build", "primary", ()), rules, False))
    return tuple(found), runtime.patterns


def allows_every(
    patterns: wildcard.Patterns, rules: Sequence[Rule], permission: str, pattern: str
) -> bool:
    """Whether OpenCode allows every input of `permission` that `pattern` matches."""
    return all(
        span.action == "allow"
        for span in spans(patterns, rules, permission)
        if hits(patterns, (pattern, span.pattern), span.later)
    )


def join_names(names: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def flat_name(ident: str) -> str:
    """An agent's name in a runtime that reads one flat folder of agents (Claude
    Code, Copilot CLI, Gemini CLI): `team/reviewer` -> `team-reviewer`."""
    return ident.replace("/", "-")


# --- what the lossy-translation rule reports ---------------------------------------------------

Notes = Iterable[
    tuple[tuple[str, ...], str]
]  # (frontmatter path, or ("!", cmd) / ("$", n); message)


def loss_problems(losses: Sequence[Loss], runtime: str) -> Iterator[Problem]:
    """Each rule the runtime loses, once (a shared rule is lost for many agents), at
    the line that wrote it; OpenCode's own rules are for TRANSLATION.md alone."""
    seen: set[object] = set()
    for loss in losses:
        origin = loss.rule.origin
        if origin.path is None or origin.kind not in ("agent", "config") or loss.rule in seen:
            continue
        seen.add(loss.rule)
        message = f"`{loss.rule.text()}` in {runtime}: {loss.message}"
        yield Problem(origin.line or 1, origin.column or 1, message, path=origin.path)


def note_problems(spec: Spec, notes: Notes) -> Iterator[Problem]:
    """Each note on a spec at its key, or at the shell line or `$N` of its body it names."""
    for path, message in notes:
        if path[:1] == ("!",):
            pos = _body_position(spec, re.compile(re.escape(f"!`{path[1]}`")))
        elif path[:1] == ("$",):
            pos = _body_position(spec, positional(path[1]))
        else:
            pos = spec.where(*path, key=True)
        yield Problem(pos.line, pos.column, message, path=spec.source.path)


def _body_position(spec: Spec, found: re.Pattern[str]) -> Pos:
    """Where the pattern first matches in the mode file's body (a shell line, `$1`)."""
    first = spec.source.body_line
    for number, line in enumerate(spec.source.text.split("\n")[first - 1 :], start=first):
        match = found.search(line)
        if match:
            return Pos(number, match.start() + 1)
    return Pos(spec.source.body_line, 1)
