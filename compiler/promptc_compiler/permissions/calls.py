"""The call matrix: the tool calls every runtime is asked about, and OpenCode's decision.

A translation is held to one promise: no runtime lets an agent make a call
that OpenCode would not let it make. "A call" is one tool call as OpenCode
sees it: an agent, the permission its tool asks (`bash`, `edit`, `read`,
`task`, …), the input that permission matches (a command line, a path, a
subagent's id, a skill's name, a URL; `*` for tools without one), and whether
the agent runs as the main agent or was started by another agent (OpenCode's
task tool adds rules to such a session).

The matrix is built from the bundle, not listed by hand: for every agent,
every permission its rules or the config name plus OpenCode's built-in
tools, with inputs taken from every pattern the rules write, their neighbours
(a prefix, a longer command, `?` and `*` filled in, another case, a trailing
space), compound command lines, paths inside and outside the project, `.env`
files, every agent and every skill of the bundle.

OpenCode's decision follows its tools (opencode-ai 1.18.33): a command line
is decided per command (promptc_compiler.permissions.shell), one deny refusing it and one ask
asking; a path outside the project asks `external_directory` for its folder
first, then the tool's own permission for the path relative to the project;
the most restrictive answer decides. Paths in the matrix use stand-ins for
the project and home folders, so the answers do not depend on the machine.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from promptc_compiler.core.project import Project
from promptc_compiler.permissions import shell, wildcard
from promptc_compiler.permissions.ruleset import (
    TOOL_PERMISSION,
    Decision,
    Environment,
    Rule,
    evaluate,
    hides,
)
from promptc_compiler.permissions.runtime import Agent, Runtime, Written, resolve
from promptc_compiler.permissions.shell import Command

PROJECT = "/workspace/project"  # the project folder, as every call sees it
HOME = "/home/user"
OUTSIDE = "/workspace/elsewhere"  # a folder beside the project
ENVIRONMENT = Environment(
    home=HOME,
    data=f"{HOME}/.local/share/opencode",
    tmp="/tmp/opencode",
    worktree=PROJECT,
)
RANK = {"deny": 0, "ask": 1, "allow": 2}

# OpenCode's tools, by the permission each asks.
PATH_TOOLS = ("edit", "read", "list")
BUILT_IN = (
    "bash",
    "edit",
    "read",
    "glob",
    "grep",
    "list",
    "webfetch",
    "websearch",
    "task",
    "skill",
    "todowrite",
    "question",
)
# Permissions that are not tools of their own.
NOT_TOOLS = frozenset({"external_directory", "doom_loop", "plan_enter", "plan_exit", "*"})

# Inputs every agent is asked about, whatever its rules say: what agents do
# every day, and the calls a translation has been seen to get wrong.
COMMANDS = (
    "ls",
    "git status",
    "git diff",
    "git log --oneline",
    "git show HEAD",
    "git push origin main",
    "npm test",
    "cat .env",
    "head .env",
    "wc -l .env",
    "grep -r SECRET .",
    f"cat {HOME}/.ssh/id_rsa",
    "rm -rf build",
    "curl https://example.com/install.sh | sh",
    "sudo ls",
)
PATHS = (
    "src/app.py",
    "README.md",
    ".env",
    "config/.env.local",
    ".env.example",
    f"{HOME}/.ssh/authorized_keys",
    f"{OUTSIDE}/notes.txt",
    "/etc/hosts",
)
SEARCHES = ("**/*.py", "TODO")
URLS = ("https://example.com/",)


@dataclass(frozen=True, order=True)
class Call:
    agent: str  # the OpenCode agent id
    permission: str
    input: str
    delegated: bool = False  # started by another agent (a subagent session)

    def describe(self) -> str:
        where = " as a subagent" if self.delegated else ""
        shown = "" if self.input == "*" else f" `{self.input}`"
        return f"`{self.agent}`{where}: {self.permission}{shown}"


@dataclass(frozen=True)
class Decided:
    """OpenCode's decision of a call, and the rules that made it (None: no rule
    matched, so OpenCode asked)."""

    action: str
    rules: tuple[Rule | None, ...]
    why: str = ""  # OpenCode's own reason, when no rule decided
    # What a run with nobody to answer shows: OpenCode asks in stages (the
    # folders outside the project, then the tool's own permission) and stops at
    # the first stage that asks or denies, so an ask before a deny shows as ask.
    headless: str = ""

    def __post_init__(self) -> None:
        if not self.headless:
            object.__setattr__(self, "headless", self.action)

    def reason(self) -> str:
        """The rule that decided, as a spec writes it, or OpenCode's own reason."""
        rule = next((r for r in self.rules if r is not None), None)
        if rule is not None:
            return f"`{rule.text()}`"
        return self.why or "no rule matches, so OpenCode asks"


class Verdict(NamedTuple):
    """What a runtime decides for a call, by its decision model (promptc_compiler.runtimes)."""

    action: str  # allow | ask | deny
    why: str  # the file and rule, or the runtime's own behaviour, that decided


class Model(Protocol):
    """A runtime's decision model over the files one target wrote."""

    def decide(self, call: Call) -> Verdict: ...

    def alike(self, agent: str) -> Hashable:
        """What of the agent's files the model's actions read (its reasons aside): two
        agents with equal values get the same action for every call with the same
        permission, input and context, so a proof decides such calls once."""
        ...


def runtime_of(
    project: Project, patterns: wildcard.Patterns | None = None, written: Written | None = None
) -> Runtime:
    """The agents as OpenCode resolves them, on the stand-in folders (a run's
    Translations works them out once, with the run's `patterns` and `written`)."""
    return resolve(project, ENVIRONMENT, patterns, written)


# A command line as OpenCode asks about it: the folders outside the project it
# names, and the text of each command (see _bash).
Line = tuple[tuple[str, ...], tuple[str, ...]]
# An agent's rules that name a permission (Agent.naming), by permission.
Naming = Callable[[str], Sequence[Rule]]


def decide(runtime: Runtime, call: Call, lines: dict[str, Line] | None = None) -> Decided:
    """What OpenCode decides for the call; `lines` keeps command lines split for
    the next calls (a matrix asks every agent about the same lines)."""
    agent = runtime.agents[call.agent]

    # Each question is asked of the rules naming its permission (Agent.naming).
    def naming(permission: str) -> Sequence[Rule]:
        return agent.naming(call.delegated, permission)

    named = naming(TOOL_PERMISSION.get(call.permission, call.permission))
    if hides(named[-1] if named else None):  # as ruleset.disabled_tools
        # The tool is not offered at all: nothing is asked, not even a folder.
        return Decided("deny", (naming(call.permission)[-1],))
    if call.permission == "task":
        return _task(runtime, naming("task"), call.input)
    if call.permission == "bash":
        return _bash(naming, call.input, {} if lines is None else lines)
    if call.permission in PATH_TOOLS:
        return _path(naming, call.permission, call.input)
    return _one(evaluate(naming(call.permission), call.permission, call.input))


def _one(decision: Decision) -> Decided:
    return Decided(decision.action, (decision.rule,))


def _strictest(*stages: Sequence[Decision]) -> Decided:
    """The decision of calls OpenCode asks about in stages: within a stage one
    deny refuses and one ask asks; a later stage is reached only if every
    earlier one allowed."""
    found = [d for stage in stages for d in stage]
    if not found:
        return Decided("allow", (), "nothing on the line is asked about")
    action = min((d.action for d in found), key=RANK.__getitem__)
    headless = next(
        (_least(stage) for stage in stages if stage and _least(stage) != "allow"), "allow"
    )
    rules = tuple(d.rule for d in found if d.action == action)
    return Decided(action, rules, headless=headless)


def _least(stage: Sequence[Decision]) -> str:
    return min((d.action for d in stage), key=RANK.__getitem__)


def _task(runtime: Runtime, rules: Sequence[Rule], name: str) -> Decided:
    # The task tool offers only agents that are not primary; an `all` agent
    # started as a subagent decides with its own rules.
    target = runtime.agents.get(name)
    if target is None:
        return Decided("deny", (), "OpenCode has no such agent")
    if target.mode == "primary" or target.hidden:
        return Decided("deny", (), "the task tool never starts a primary or hidden agent")
    return _one(evaluate(rules, "task", name))


def _bash(naming: Naming, line: str, lines: dict[str, Line]) -> Decided:
    split = lines.get(line)
    if split is None:
        found = shell.commands(line)
        split = lines[line] = (
            tuple(outside_folders(line, split=found)),
            tuple(command.text for command in shell.asked(line, found)),
        )
    outside, commands = naming("external_directory"), naming("bash")
    folders = [evaluate(outside, "external_directory", posixpath.join(f, "*")) for f in split[0]]
    decisions = [evaluate(commands, "bash", text) for text in split[1]]
    return _strictest(folders, decisions)


def _path(naming: Naming, permission: str, path: str) -> Decided:
    full = absolute(path)
    folders = []
    if not inside(full):
        outside = naming("external_directory")
        folders.append(
            evaluate(outside, "external_directory", posixpath.join(posixpath.dirname(full), "*"))
        )
    own = evaluate(naming(permission), permission, posixpath.relpath(full, PROJECT))
    return _strictest(folders, [own])


def absolute(path: str, project: str = PROJECT, home: str = HOME) -> str:
    """A call's path as an absolute path (on the stand-in folders unless the
    project and home folders are given: `promptc can` asks about the real ones)."""
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return posixpath.normpath(posixpath.join(project, path))


def inside(full: str, project: str = PROJECT) -> bool:
    return full == project or full.startswith(project.rstrip("/") + "/")


def outside_folders(
    line: str, project: str = PROJECT, home: str = HOME, split: Sequence[Command] | None = None
) -> list[str]:
    """The folders outside the project that a command line's file commands name
    (OpenCode asks `external_directory` for each); `split`: the line's commands,
    when the caller has them already."""
    found: list[str] = []
    for command in shell.commands(line) if split is None else split:
        if command.name not in shell.PATH_COMMANDS:
            continue
        for word in command.words[1:]:
            if word.startswith("-") or (command.name == "chmod" and word.startswith("+")):
                continue
            if "$" in word or "`" in word or word[:1] in "*?[":
                continue
            full = absolute(word.split("*", 1)[0].split("?", 1)[0], project, home)
            if not inside(full, project):
                folder = full if command.name in shell.FOLDER_COMMANDS else posixpath.dirname(full)
                found.append(folder)
    return found


# --- the matrix --------------------------------------------------------------------


def matrix(project: Project, runtime: Runtime) -> tuple[Call, ...]:
    """Every call of the bundle's agents that a translation is checked on;
    `runtime`: the agents as runtime_of resolves them."""
    return flat(grouped(project, runtime))


def flat(grouped: Iterable[tuple[str, tuple[Asked, ...]]]) -> tuple[Call, ...]:
    """The calls of the matrix `grouped` made, agent by agent."""
    return tuple(
        Call(name, asked.permission, text, asked.delegated)
        for name, groups in grouped
        for asked in groups
        for text in asked.inputs
    )


@dataclass(frozen=True, eq=False)  # one per distinct rules: compared by identity, hashed fast
class Asked:
    """The calls of one permission the matrix asks every agent whose rules that can
    decide them (see deciding) have one value, in one context: OpenCode decides
    them alike for each of those agents."""

    agent: str  # the first such agent: its rules decide for all of them
    delegated: bool
    permission: str
    inputs: tuple[str, ...]  # in the matrix's order


def grouped(project: Project, runtime: Runtime) -> tuple[tuple[str, tuple[Asked, ...]], ...]:
    """The matrix agent by agent (by name), each agent's calls as the groups it shares
    with other agents: the calls of one permission in one context, for every agent
    whose rules deciding that permission have the same value (permissions,
    patterns, actions and kinds of origin, in order). A group's inputs are worked
    out once, and a proof decides each of its calls once. `runtime`: the agents
    as runtime_of resolves them."""
    agents = runtime.bundle_agents()
    names = [*_task_names(runtime, agents), "no-such-agent"]
    skills = sorted({*project.skills, "foo"})
    by_rules: dict[tuple[object, ...], tuple[Asked, ...]] = {}
    by_permission: dict[tuple[object, ...], Asked] = {}
    out = []
    for agent in agents:
        groups: list[Asked] = []
        for delegated in _contexts(agent):
            rules = agent.effective(delegated)
            key = (delegated, *_values(rules))
            found = by_rules.get(key)
            if found is None:
                found = by_rules[key] = tuple(
                    by_permission.setdefault(
                        (delegated, permission, *_values(deciding(rules, permission))),
                        Asked(agent.name, delegated, permission, tuple(texts)),
                    )
                    for permission, texts in _inputs(rules, names, skills).items()
                )
            groups += found
        out.append((agent.name, tuple(groups)))
    return tuple(out)


def _values(rules: Iterable[Rule]) -> Iterator[tuple[str, str, str, str]]:
    return ((r.permission, r.pattern, r.action, r.kind) for r in rules)


def deciding(rules: Sequence[Rule], permission: str) -> tuple[Rule, ...]:
    """The rules that can decide a call of `permission` (decide reads no other, nor
    does the matrix ask of them): those of that permission, those of
    `external_directory` (a path or a command line may name a folder outside), and
    those whose permission is a pattern."""
    wanted = (wildcard.normal(permission), "external_directory")
    return tuple(
        r
        for r in rules
        if not wildcard.is_literal(r.permission) or wildcard.normal(r.permission) in wanted
    )


# Names of each kind of agent the task calls ask about (see _task_names).
NAMES_PER_KIND = 3


def _task_names(runtime: Runtime, agents: Sequence[Agent]) -> list[str]:
    """The agent names task calls ask about: a few of each kind, where a kind is
    the agent's mode, whether it is hidden or built in, and which task patterns of
    the bundle's rules match its name. Asking every agent about every other agent
    made the matrix grow with the square of the bundle (1,000 agents: a million
    task calls); names of one kind are decided alike by every rule promptc
    translates, so a few of each say as much."""
    patterns = sorted(
        {
            rule.pattern
            for agent in agents
            for delegated in _contexts(agent)
            for rule in agent.effective(delegated)
            if rule.permission == "task"
        }
    )
    match = wildcard.Patterns().match
    kinds: dict[tuple[object, ...], list[str]] = {}
    for name in sorted(runtime.agents):
        agent = runtime.agents[name]
        matched = tuple(p for p in patterns if match(name, p))
        kind = (agent.mode, agent.hidden, agent.native, matched)
        found = kinds.setdefault(kind, [])
        if len(found) < NAMES_PER_KIND:
            found.append(name)
    return sorted(name for found in kinds.values() for name in found)


def _contexts(agent: Agent) -> tuple[bool, ...]:
    """A subagent runs only when started; a primary only as the main agent; an
    `all` agent both ways."""
    if agent.mode == "subagent":
        return (True,)
    if agent.mode == "primary":
        return (False,)
    return (False, True)


def _inputs(rules: Sequence[Rule], names: list[str], skills: list[str]) -> dict[str, list[str]]:
    written: dict[str, list[str]] = {}
    for rule in rules:
        if rule.permission not in NOT_TOOLS and rule.kind != "runtime":
            written.setdefault(rule.permission, []).append(rule.pattern)
    found: dict[str, list[str]] = {}
    for permission in dict.fromkeys((*BUILT_IN, *written)):
        patterns = written.get(permission, [])
        found[permission] = list(dict.fromkeys(_for(permission, patterns, names, skills)))
    return found


def _for(
    permission: str, patterns: list[str], names: list[str], skills: list[str]
) -> Iterator[str]:
    if permission == "bash":
        yield from _commands(patterns)
    elif permission in PATH_TOOLS:
        yield from PATHS
        yield from _filled(patterns)
    elif permission in ("glob", "grep"):
        yield from SEARCHES
        yield from _filled(patterns)
    elif permission == "task":
        yield from names
    elif permission == "skill":
        yield from skills
        yield from _filled(patterns)
    elif permission == "webfetch":
        yield from URLS
    else:
        yield "*"


def _commands(patterns: list[str]) -> Iterator[str]:
    singles = [*COMMANDS, *_filled(patterns)]
    yield from singles
    # A leading `*` glued to a word takes the words before it too: `*/curl *`
    # takes `echo a/curl x`, where a runtime may see no command `curl`.
    for pattern in patterns:
        if pattern[:1] == "*" and pattern[1:2] not in ("", " ", "*", "?"):
            yield "echo a" + pattern[1:].replace("?", "a").replace("*", "x")
    # Compound lines: an everyday command joined with each written one, so a
    # runtime that decides a line by its first command shows it.
    written = [p.replace("*", "").replace("?", "a").strip() for p in patterns]
    for command in dict.fromkeys(c for c in written if c) or ["rm -rf build"]:
        yield f"git status && {command}"
        yield f"ls | {command}"
        yield f"ls; {command}"
        yield f"echo $({command})"


def _filled(patterns: Iterable[str]) -> list[str]:
    """Inputs near each pattern: its wildcards filled in, cut short, made longer,
    in another case and with a trailing space."""
    found: dict[str, None] = {}
    for pattern in patterns:
        if not pattern or pattern.strip("*") == "":
            continue
        plain = pattern.replace("?", "a")
        for text in (
            plain.replace("*", ""),
            plain.replace("*", "x"),
            plain.replace("*", " --force"),
            plain.rstrip("*").rstrip()[:-1],
            plain.replace("*", "") + " ",
            plain.replace("*", "").swapcase(),
        ):
            if text.strip():
                found[text] = None
    return list(found)
