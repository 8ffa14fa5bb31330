"""The agents OpenCode would load from a bundle, each with its ordered, located rules.

`resolve` applies promptc_compiler.permissions.ruleset to what the opencode target emits:
OpenCode's own agents (build, plan, general, explore, compaction, title,
summary) first, then every spec agent, which either overrides one of them or
is new (mode `all` unless it says otherwise); `disable: true` removes an
agent altogether. Rules written in a spec point at the pattern key in the
spec's source, following a `targets: {opencode: ...}` override when it
supplies the key; config-level rules point into the promptc config file.
Values OpenCode would refuse to load become problems, not rules.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.source import SOURCE
from promptc_compiler.core.config import Config
from promptc_compiler.core.project import Project, Spec
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.coverage import Coverage
from promptc_compiler.permissions.ruleset import (
    DEFAULT,
    RUNTIME,
    SESSION,
    Environment,
    Locate,
    Origin,
    Rule,
    check_permission,
    defaults,
    from_config,
    js_keys,
    names_home,
    natives,
)

AGENT_TARGET = SOURCE
# The skill OpenCode 1.18.33 always lists, whatever the bundle holds.
BUILT_IN_SKILLS = ("customize-opencode",)


# Rules are values: every subagent session shares these.
_SESSION_DENY = {p: Rule(p, "*", "deny", SESSION) for p in ("todowrite", "task")}


@dataclass(frozen=True)
class Agent:
    """One agent as OpenCode resolves it."""

    name: str
    mode: str
    rules: tuple[Rule, ...]
    spec: Spec | None = None  # None: one of OpenCode's own agents
    hidden: bool = False
    problems: tuple[Problem, ...] = ()  # entries OpenCode would refuse (path set)

    @property
    def native(self) -> bool:
        return self.spec is None

    def own_rules(self) -> Iterator[tuple[int, Rule]]:
        """(index, rule) of the rules written in this agent's spec."""
        rules = self.rules
        return ((i, rules[i]) for i in self._own)

    @functools.cached_property
    def _own(self) -> tuple[int, ...]:
        # Several rules ask for every agent: worked out once. Kept as indices: the
        # collector stops walking a tuple of ints, and (index, rule) pairs were
        # 8 of the 64 objects per agent it walked in a lint's last full collection.
        return tuple(i for i, r in enumerate(self.rules) if r.kind == "agent")

    def session_rules(self) -> tuple[Rule, ...]:
        """What the task tool appends when it starts this agent as a subagent."""
        written = {r.permission for r in self.rules}
        return tuple(_SESSION_DENY[p] for p in ("todowrite", "task") if p not in written)

    def effective(self, as_subagent: bool) -> tuple[Rule, ...]:
        return self._subagent_rules if as_subagent else self.rules

    @property
    def task_rules(self) -> tuple[Rule, ...]:
        """The rules that can decide a `task` call from this agent, in the
        context it runs in (see naming): every delegation rule asks it for each
        pair of agents."""
        return self.naming(self.runs_as_subagent, "task")

    def naming(self, as_subagent: bool, permission: str) -> tuple[Rule, ...]:
        """The effective rules whose key matches `permission`, in order: the
        only ones evaluate can find to apply, so its decision is the same. A
        proof asks each agent about hundreds of calls of a few permissions."""
        key = (as_subagent, permission)
        found = self._naming.get(key)
        if found is None:
            name = wildcard.normal(permission)
            rules = self.effective(as_subagent)
            found = self._naming[key] = tuple(r for r in rules if r.names(name))
        return found

    @functools.cached_property
    def _naming(self) -> dict[tuple[bool, str], tuple[Rule, ...]]:
        return {}

    @functools.cached_property
    def _subagent_rules(self) -> tuple[Rule, ...]:
        # Graph rules ask for every pair of agents: build the list once.
        return self.rules + self.session_rules()

    @property
    def runs_as_subagent(self) -> bool:
        """A `subagent` only ever runs in a session the task tool started."""
        return self.mode == "subagent"


@dataclass(frozen=True)
class Runtime:
    """Every agent OpenCode would load from the emitted bundle, plus its own."""

    agents: Mapping[str, Agent]
    config_rules: tuple[Rule, ...]
    env: Environment
    problems: tuple[Problem, ...] = field(default=())  # config-level permission problems
    # the run's answers about patterns, for the analyses of these agents
    patterns: wildcard.Patterns = field(default_factory=wildcard.Patterns, compare=False)

    def bundle_agents(self) -> list[Agent]:
        """The bundle's own agents, by name."""
        return list(self._bundle_agents)

    @functools.cached_property
    def coverage(self) -> Coverage:
        """What each of these agents' rules can still decide, each question once."""
        return Coverage(self.patterns)

    @functools.cached_property
    def _bundle_agents(self) -> tuple[Agent, ...]:
        # Every rule asks for them: sort once.
        return tuple(
            sorted((a for a in self.agents.values() if not a.native), key=lambda a: a.name)
        )

    @functools.cached_property
    def offered(self) -> tuple[Agent, ...]:
        """Agents the task tool can offer at all (mode is not primary), in load order."""
        return tuple(a for a in self.agents.values() if a.mode != "primary")

    @functools.cached_property
    def offered_by_name(self) -> Mapping[str, list[tuple[int, Agent]]]:
        """wildcard.normal(name) -> [(position in `offered`, agent)]: the agents a
        pattern without wildcards names."""
        found: dict[str, list[tuple[int, Agent]]] = {}
        for index, agent in enumerate(self.offered):
            found.setdefault(wildcard.normal(agent.name), []).append((index, agent))
        return found


AGENT_KEYS = (
    *("description", "mode", "model", "variant", "temperature", "top_p", "steps", "color"),
    *("hidden", "disable", "options", "permission"),
)
OMITTED_KEYS = ("name", "prompt")


def agent_frontmatter(spec: Spec) -> dict[str, Any]:
    """The frontmatter OpenCode reads for an agent (the opencode target emits it):
    known keys in order, then the rest."""
    data = spec.view(SOURCE)
    known = {key: data[key] for key in AGENT_KEYS if key in data}
    extra = {k: v for k, v in data.items() if k not in known and k not in OMITTED_KEYS}
    return {**known, **extra}


def anchor(agent: Agent, *path: str) -> Origin:
    """Where to report something about an agent's permission: the key at
    `path` under `permission` if written, else the nearest written parent."""
    if agent.spec is None:
        return Origin("native", f"built-in `{agent.name}` agent")
    return locator(agent.spec, "permission")(path)


def written_under(spec: Spec, base: str) -> tuple[str, ...]:
    """The frontmatter path above the `base` key (permission, tools) OpenCode reads:
    `targets.opencode` when that override supplies the key, else the top level."""
    overrides = spec.meta.get("targets")
    if isinstance(overrides, Mapping):
        mine = overrides.get(AGENT_TARGET)
        if isinstance(mine, Mapping) and base in mine:
            return ("targets", AGENT_TARGET)
    return ()


def locator(spec: Spec, base: str) -> Locate:
    """Position of a key under `base` (permission, tools) in the spec's source,
    following a `targets: {opencode: ...}` override when it supplies the key."""
    prefix = written_under(spec, base)

    def locate(path: tuple[str, ...]) -> Origin:
        pos = spec.where(*prefix, base, *path, key=True)
        return Origin("agent", spec.id, spec.source.path, pos.line, pos.column)

    return locate


def _agent_object(
    spec: Spec, data: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Locate], list[Problem]]:
    """The permission object OpenCode derives from `tools` and `permission`
    (Object.assign of the latter over the former), with a locator per key.
    Entries OpenCode would refuse are left out and reported."""
    problems: list[Problem] = []
    merged: dict[str, Any] = {}
    locators: dict[str, Locate] = {}
    tools = data.get("tools")
    if tools is not None:
        tool_at = locator(spec, "tools")
        if not isinstance(tools, Mapping) or not all(isinstance(v, bool) for v in tools.values()):
            problems.append(problem_at(tool_at(()), "`tools` must map tool names to true or false"))
        else:
            for name in js_keys(tools):
                key = "edit" if name in ("write", "edit", "patch") else name
                merged[key] = "allow" if tools[name] else "deny"
                locators[key] = _fixed(tool_at((name,)))
    permission = data.get("permission")
    if permission is None:
        return merged, locators, problems
    at = locator(spec, "permission")
    bad = dict(check_permission(permission))
    for path, message in bad.items():
        problems.append(problem_at(at(path), f"{message}; OpenCode refuses to load the agent"))
    if isinstance(permission, str):
        if not bad:
            merged["*"] = permission
            locators["*"] = _fixed(at(()))
    elif isinstance(permission, Mapping):
        for key, value in permission.items():
            if not any(path[:1] == (key,) for path in bad):
                merged[key] = value
                locators[key] = at
    return merged, locators, problems


def _fixed(origin: Origin) -> Locate:
    return lambda _path: origin


def problem_at(origin: Origin, message: str, hint: str | None = None) -> Problem:
    """A Problem at a written rule's position (origin.path must be set)."""
    return Problem(origin.line or 1, origin.column or 1, message, hint, path=origin.path)


def _agent_rules(
    spec: Spec, home: str, front: Mapping[str, Any], patterns: wildcard.Patterns
) -> tuple[list[Rule], list[Problem]]:
    """The rules of an agent whose emitted frontmatter is `front`."""
    data, locators, problems = _agent_object(spec, front)
    return from_config(data, home, lambda path: locators[path[0]](path), patterns), problems


class Written:
    """Each spec agent's own rules and the problems in writing them, worked out
    once in a run for every environment it is resolved in.

    They are the same in each, unless a pattern names the home folder (`~/`,
    `$HOME`), which each environment expands to its own: such an agent's
    rules are worked out again for another home. A build resolves the bundle
    three times (on this machine, in the translations' stand-in, on the call
    matrix's folders), and the rules are most of a resolution's work.
    """

    def __init__(self) -> None:
        # spec id -> (the spec, the home its rules were worked out for, rules, problems)
        self._found: dict[str, tuple[Spec, str, tuple[Rule, ...], tuple[Problem, ...]]] = {}

    def rules(
        self, spec: Spec, home: str, front: Mapping[str, Any], patterns: wildcard.Patterns
    ) -> tuple[tuple[Rule, ...], tuple[Problem, ...]]:
        """`_agent_rules` of the spec in an environment whose home is `home`."""
        found = self._found.get(spec.id)
        # Whether a rule names the home is asked only for another home: a lint
        # that resolves the bundle once never asks it.
        if (
            found is not None
            and found[0] is spec
            and (found[1] == home or not any(map(_names_home, found[2])))
        ):
            return found[2], found[3]
        rules, problems = _agent_rules(spec, home, front, patterns)
        kept = self._found[spec.id] = (spec, home, tuple(rules), tuple(problems))
        return kept[2], kept[3]


def _names_home(rule: Rule) -> bool:
    return rule.written is not None and names_home(rule.written)


def config_locator(config: Config) -> Locate:
    """Position of a key under the config-level `permission` in the config file."""

    def locate(path: tuple[str, ...]) -> Origin:
        line, column = config.where(("permission", *path))
        return Origin("config", "config", config.source, line, column)

    return locate


def config_rules(
    project: Project, env: Environment, patterns: wildcard.Patterns
) -> tuple[list[Rule], list[Problem]]:
    """The config-level permission, as the opencode target writes it to opencode.json."""
    value = project.config.permission
    if value is None:
        return [], []
    locate = config_locator(project.config)
    problems = [
        problem_at(locate(path), f"{message}; OpenCode refuses to load the config")
        for path, message in check_permission(value)
    ]
    if problems:
        return [], problems
    data = {"*": value} if isinstance(value, str) else value
    return from_config(data, env.home, locate, patterns), []


def resolve(
    project: Project,
    env: Environment | None = None,
    patterns: wildcard.Patterns | None = None,
    written: Written | None = None,
) -> Runtime:
    """Every agent OpenCode would load from this bundle, with its ordered rules.
    `patterns` and `written`: the answers about patterns and the agents' own
    rules to share with other resolutions of the run
    (promptc_compiler.runtimes.translations), else the runtime's own."""
    env = env or Environment.from_environ(os.environ, project.config.root)
    patterns = patterns or wildcard.Patterns()
    written = written or Written()
    base = from_config(defaults(env), env.home, lambda _path: DEFAULT, patterns)
    shared, config_problems = config_rules(project, env, patterns)
    folder = env.tool_output
    tool_output = Rule("external_directory", folder, "allow", RUNTIME, written=folder)
    agents: dict[str, Agent] = {}
    native_rules: dict[str, tuple[Rule, ...]] = {}  # what a spec agent of the name inherits
    for name, native in natives(env).items():
        origin = Origin("native", f"built-in `{name}` agent")
        extra = from_config(native.rules, env.home, _fixed(origin), patterns)
        rules = native_rules[name] = (*base, *extra, *shared)
        agents[name] = Agent(
            name, native.mode, _with_tool_output(rules, tool_output), hidden=native.hidden
        )
    default = (*base, *shared)
    for ident, spec in project.agents.items():
        data = agent_frontmatter(spec)
        if data.get("disable") is True:
            agents.pop(ident, None)
            continue
        own, written_problems = written.rules(spec, env.home, data, patterns)
        problems = list(written_problems)
        overridden = agents.get(ident)
        mode = data.get("mode")
        if mode is not None and mode not in ("primary", "subagent", "all"):
            pos = spec.where("mode")
            message = f"mode {mode!r} is not subagent, primary or all; OpenCode refuses to load it"
            problems.append(Problem(pos.line, pos.column, message, path=spec.source.path))
        if mode not in ("primary", "subagent", "all"):
            mode = overridden.mode if overridden else "all"
        hidden = data.get("hidden")
        if not isinstance(hidden, bool):
            hidden = overridden.hidden if overridden else False
        rules = (*native_rules.get(ident, default), *own)
        rules = _with_tool_output(rules, tool_output)
        agents[ident] = Agent(ident, mode, rules, spec, hidden, tuple(problems))
    return Runtime(agents, tuple(shared), env, tuple(config_problems), patterns)


def _with_tool_output(rules: tuple[Rule, ...], extra: Rule) -> tuple[Rule, ...]:
    """An agent's rules with OpenCode's allow rule for its tool-output folder
    (one Rule for every agent: rules are immutable), unless a rule denies
    exactly that. Each agent is made once, with its rules complete."""
    return rules if _denies(rules, extra.pattern) else (*rules, extra)


def _denies(rules: tuple[Rule, ...], glob: str) -> bool:
    """Some rule denies exactly this `external_directory` pattern."""
    return any(
        r.pattern == glob and r.action == "deny" and r.permission == "external_directory"
        for r in rules
    )
