"""Permissions: the ordered rule lists OpenCode (opencode-ai 1.18.33) builds, and its decisions.

For every agent OpenCode concatenates, in this order:

1. the built-in defaults: `"*": allow`, `doom_loop: ask`, `external_directory`
   (`"*": ask`, then allow for its tool-output folder, its temporary folder and
   every skill folder it found), `question`, `plan_enter` and `plan_exit`
   denied, and `read` (`"*": allow`, `*.env` and `*.env.*` ask,
   `*.env.example` allow);
2. for its own agents only (build, plan, general, explore, compaction, title,
   summary), that agent's extra rules;
3. the config-level `permission` of opencode.json;
4. the agent's own rules: its deprecated `tools` map first (`write`, `edit`
   and `patch` become `edit`; true is allow, false deny), then `permission`;
5. `external_directory: <tool-output>/*: allow` once more, unless some rule
   denies exactly that pattern.

Each key becomes rules in JavaScript object order (keys that are array
indices, such as `"2"`, come first in numeric order, then the rest as
written); a plain action is the pattern `"*"`; a pattern starting with `~/`,
`~`, `$HOME/` or `$HOME` has that prefix replaced by the home folder.
Deciding is `rules.findLast(r => match(permission, r.permission) &&
match(input, r.pattern))`: the LAST matching rule wins, and with no match the
answer is `ask`. A subagent started through the task tool also gets
`todowrite: deny` and `task: deny` appended unless its rules mention those
permissions.

Every rule here remembers where it came from (a spec's file:line:col, the
promptc config, or OpenCode itself), so a decision can name its line.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler import wildcard
from compiler.diagnostics import Problem
from compiler.project import Project, Spec

ACTIONS = ("ask", "allow", "deny")
# Keys whose value is an action or a map of pattern -> action.
PATTERN_KEYS = (
    "read",
    "edit",
    "glob",
    "grep",
    "list",
    "bash",
    "task",
    "external_directory",
    "lsp",
    "skill",
)
# Keys that take a plain action only: a map makes OpenCode refuse the config.
SCALAR_KEYS = ("todowrite", "question", "webfetch", "websearch", "doom_loop")
# Permissions the runtime asks about that its config schema does not list.
RUNTIME_KEYS = ("plan_enter", "plan_exit")
KNOWN_KEYS = (*PATTERN_KEYS, *SCALAR_KEYS, *RUNTIME_KEYS)
# Tool ids whose visibility is decided by another permission.
TOOL_PERMISSION = {
    "edit": "edit",
    "write": "edit",
    "apply_patch": "edit",
    "list_mcp_resources": "read",
    "list_mcp_resource_templates": "read",
    "read_mcp_resource": "read",
}
NATIVE_AGENTS = ("build", "plan", "general", "explore", "compaction", "title", "summary")
AGENT_TARGET = "opencode"


def js_keys(mapping: Mapping[str, Any]) -> list[str]:
    """Keys in JavaScript's Object.entries order: array indices first, ascending."""
    index = sorted((k for k in mapping if _is_index(k)), key=int)
    return index + [k for k in mapping if not _is_index(k)]


def _is_index(key: str) -> bool:
    return (
        key.isascii()
        and key.isdigit()
        and (key == "0" or not key.startswith("0"))
        and int(key) <= 2**32 - 2
    )


@dataclass(frozen=True)
class Origin:
    """Where a rule was written: a file position, or OpenCode itself (`path` None)."""

    kind: str  # default | native | config | agent | runtime | session
    label: str  # shown when there is no file: "built-in default", ...
    path: Path | None = None
    line: int = 0
    column: int = 0


@dataclass(frozen=True)
class Rule:
    permission: str
    pattern: str
    action: str
    origin: Origin
    written: str | None = None  # the pattern as written, when it was a map entry

    def text(self) -> str:
        """The rule as a spec would write it: `bash "git push*": deny`, `edit: deny`."""
        if self.written is None:
            return f"{_quote(self.permission)}: {self.action}"
        return f'{_quote(self.permission)} "{self.written}": {self.action}'

    def as_json(self) -> dict[str, str]:
        return {"permission": self.permission, "pattern": self.pattern, "action": self.action}


def _quote(key: str) -> str:
    return f'"{key}"' if not key.replace("_", "a").isalnum() else key


@dataclass(frozen=True)
class Decision:
    action: str
    rule: Rule | None  # None: nothing matched, OpenCode's fallback `ask`


def evaluate(rules: Sequence[Rule], permission: str, text: str) -> Decision:
    """OpenCode's Permission.evaluate: the last rule matching both wins."""
    for rule in reversed(rules):
        if wildcard.match(permission, rule.permission) and wildcard.match(text, rule.pattern):
            return Decision(rule.action, rule)
    return Decision("ask", None)


def matching(rules: Sequence[Rule], permission: str, text: str) -> list[Rule]:
    """Every rule that matches, in order; the last one decides."""
    return [
        r
        for r in rules
        if wildcard.match(permission, r.permission) and wildcard.match(text, r.pattern)
    ]


def disabled_tools(tools: Iterable[str], rules: Sequence[Rule]) -> set[str]:
    """Tools OpenCode hides from the model: the last rule for the tool's
    permission (any pattern) is `"*"` with action deny."""
    hidden = set()
    for tool in tools:
        permission = TOOL_PERMISSION.get(tool, tool)
        last = next((r for r in reversed(rules) if wildcard.match(permission, r.permission)), None)
        if last is not None and last.pattern == "*" and last.action == "deny":
            hidden.add(tool)
    return hidden


@dataclass(frozen=True)
class Environment:
    """The machine-specific inputs of the defaults (all absolute POSIX paths)."""

    home: str
    data: str  # OpenCode's data folder: $XDG_DATA_HOME/opencode
    tmp: str  # OpenCode's temporary folder: os.tmpdir()/opencode
    worktree: str
    skill_dirs: tuple[str, ...] = ()

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], directory: Path) -> Environment:
        """As OpenCode computes them for a project in `directory`: os.homedir(),
        xdg-basedir, os.tmpdir(), and the git worktree ("/" outside git)."""
        home = environ.get("HOME") or os.path.expanduser("~")
        data_home = environ.get("XDG_DATA_HOME") or posixpath.join(home, ".local", "share")
        tmp = environ.get("TMPDIR") or environ.get("TMP") or environ.get("TEMP") or "/tmp"
        if len(tmp) > 1 and tmp.endswith("/"):
            tmp = tmp[:-1]
        return cls(
            home=home,
            data=_join(data_home, "opencode"),
            tmp=_join(tmp, "opencode"),
            worktree=_worktree(directory),
        )

    @property
    def tool_output(self) -> str:
        """The folder-glob OpenCode always allows: where it saves truncated tool output."""
        return _join(self.data, "tool-output", "*")


def _worktree(directory: Path) -> str:
    for folder in (directory, *directory.parents):
        if (folder / ".git").exists():
            return folder.as_posix()
    return "/"


def _join(*parts: str) -> str:
    """Node's path.join: join, then normalise."""
    return posixpath.normpath(posixpath.join(*parts))


def expand_home(pattern: str, home: str) -> str:
    """OpenCode's expansion of pattern keys (note `$HOMEx` becomes `<home>x`)."""
    if pattern.startswith("~/"):
        return home + pattern[1:]
    if pattern == "~":
        return home
    if pattern.startswith("$HOME"):
        return home + pattern[5:]
    return pattern


DEFAULT = Origin("default", "built-in default")
RUNTIME = Origin("runtime", "OpenCode (its tool-output folder)")
SESSION = Origin("session", "OpenCode subagent session")

Locate = Callable[[tuple[str, ...]], Origin]


def from_config(data: Mapping[str, Any], home: str, locate: Locate) -> list[Rule]:
    """OpenCode's Permission.fromConfig over a validated permission object."""
    rules: list[Rule] = []
    for key in js_keys(data):
        value = data[key]
        if isinstance(value, str):
            rules.append(Rule(key, "*", value, locate((key,))))
            continue
        for pattern in js_keys(value):
            rules.append(
                Rule(
                    key,
                    expand_home(pattern, home),
                    value[pattern],
                    locate((key, pattern)),
                    written=pattern,
                )
            )
    return rules


def check_permission(value: Any) -> Iterator[tuple[tuple[str, ...], str]]:
    """Why OpenCode would refuse this permission value: (path, message) pairs."""
    if isinstance(value, str):
        if value not in ACTIONS:
            yield (), _bad_action(value)
        return
    if not isinstance(value, Mapping):
        yield (), "`permission` must be an action (ask, allow, deny) or a map of rules"
        return
    for key, rule in value.items():
        if isinstance(rule, str):
            if rule not in ACTIONS:
                yield (key,), _bad_action(rule)
        elif isinstance(rule, Mapping):
            if key in SCALAR_KEYS:
                yield (key,), f"`{key}` takes a single action (ask, allow, deny), not a map"
                continue
            for pattern, action in rule.items():
                if not isinstance(action, str) or action not in ACTIONS:
                    yield (key, pattern), _bad_action(action)
        else:
            yield (key,), _bad_action(rule)


def _bad_action(value: Any) -> str:
    return f"{value!r} is not an action: use ask, allow or deny"


def _defaults(env: Environment) -> dict[str, Any]:
    folders = [env.tool_output, _join(env.tmp, "*"), *(_join(d, "*") for d in env.skill_dirs)]
    return {
        "*": "allow",
        "doom_loop": "ask",
        "external_directory": {"*": "ask", **dict.fromkeys(folders, "allow")},
        "question": "deny",
        "plan_enter": "deny",
        "plan_exit": "deny",
        "read": {"*": "allow", "*.env": "ask", "*.env.*": "ask", "*.env.example": "allow"},
    }


@dataclass(frozen=True)
class Native:
    mode: str
    rules: Mapping[str, Any]
    hidden: bool = False


def _natives(env: Environment) -> dict[str, Native]:
    plans = _join(env.data, "plans", "*.md")
    folders = [env.tool_output, _join(env.tmp, "*"), *(_join(d, "*") for d in env.skill_dirs)]
    return {
        "build": Native("primary", {"question": "allow", "plan_enter": "allow"}),
        "plan": Native(
            "primary",
            {
                "question": "allow",
                "plan_exit": "allow",
                "task": {"general": "deny"},
                "external_directory": {_join(env.data, "plans", "*"): "allow"},
                "edit": {
                    "*": "deny",
                    _join(".opencode", "plans", "*.md"): "allow",
                    posixpath.relpath(plans, env.worktree): "allow",
                },
            },
        ),
        "general": Native("subagent", {"todowrite": "deny"}),
        "explore": Native(
            "subagent",
            {
                "*": "deny",
                "grep": "allow",
                "glob": "allow",
                "list": "allow",
                "bash": "allow",
                "webfetch": "allow",
                "websearch": "allow",
                "read": "allow",
                "external_directory": {"*": "ask", **dict.fromkeys(folders, "allow")},
            },
        ),
        "compaction": Native("primary", {"*": "deny"}, hidden=True),
        "title": Native("primary", {"*": "deny"}, hidden=True),
        "summary": Native("primary", {"*": "deny"}, hidden=True),
    }


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

    def own_rules(self) -> list[tuple[int, Rule]]:
        """(index, rule) of the rules written in this agent's spec."""
        return [(i, r) for i, r in enumerate(self.rules) if r.origin.kind == "agent"]

    def mentions(self, permission: str) -> bool:
        return any(r.permission == permission for r in self.rules)

    def session_rules(self) -> tuple[Rule, ...]:
        """What the task tool appends when it starts this agent as a subagent."""
        added = [p for p in ("todowrite", "task") if not self.mentions(p)]
        return tuple(Rule(p, "*", "deny", SESSION) for p in added)

    def effective(self, as_subagent: bool) -> tuple[Rule, ...]:
        return self.rules + self.session_rules() if as_subagent else self.rules

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

    def bundle_agents(self) -> list[Agent]:
        return [a for a in self.agents.values() if not a.native]


def agent_frontmatter(spec: Spec) -> dict[str, Any]:
    """The frontmatter the opencode target emits for this agent."""
    from compiler.targets import opencode

    return opencode.agent_frontmatter(spec)


def _spec_locator(spec: Spec, base: str) -> Locate:
    """Position of a key under `base` (permission, tools) in the spec's source,
    following a `targets: {opencode: ...}` override when it supplies the key."""
    overrides = spec.meta.get("targets")
    prefix: tuple[str, ...] = ()
    if isinstance(overrides, Mapping):
        mine = overrides.get(AGENT_TARGET)
        if isinstance(mine, Mapping) and base in mine:
            prefix = ("targets", AGENT_TARGET)

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
        tool_at = _spec_locator(spec, "tools")
        if not isinstance(tools, Mapping) or not all(isinstance(v, bool) for v in tools.values()):
            problems.append(_problem(tool_at(()), "`tools` must map tool names to true or false"))
        else:
            for name in js_keys(tools):
                key = "edit" if name in ("write", "edit", "patch") else name
                merged[key] = "allow" if tools[name] else "deny"
                locators[key] = _fixed(tool_at((name,)))
    permission = data.get("permission")
    if permission is None:
        return merged, locators, problems
    at = _spec_locator(spec, "permission")
    bad = dict(check_permission(permission))
    for path, message in bad.items():
        problems.append(_problem(at(path), f"{message}; OpenCode refuses to load the agent"))
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
    return lambda path: origin


def _problem(origin: Origin, message: str) -> Problem:
    return Problem(origin.line or 1, origin.column or 1, message, path=origin.path)


def _agent_rules(spec: Spec, env: Environment) -> tuple[list[Rule], list[Problem]]:
    data, locators, problems = _agent_object(spec, agent_frontmatter(spec))
    return from_config(data, env.home, lambda path: locators[path[0]](path)), problems


def config_rules(project: Project, env: Environment) -> tuple[list[Rule], list[Problem]]:
    """The config-level permission, as the opencode target writes it to opencode.json."""
    config = project.config
    value = config.permission
    if value is None:
        return [], []
    text = _config_text(config.source)
    prefix = ("tool", "promptc") if config.source and config.source.name == "pyproject.toml" else ()

    def locate(path: tuple[str, ...]) -> Origin:
        from compiler.tomlpos import locate as toml_locate

        line, column = toml_locate(text, (*prefix, "permission", *path))
        return Origin("config", "config", config.source, line, column)

    problems = [
        _problem(locate(path), f"{message}; OpenCode refuses to load the config")
        for path, message in check_permission(value)
    ]
    if problems:
        return [], problems
    data = {"*": value} if isinstance(value, str) else value
    return from_config(data, env.home, locate), []


def _config_text(source: Path | None) -> str:
    if source is None:
        return ""
    try:
        return source.read_text(encoding="utf-8")
    except OSError:
        return ""


def resolve(project: Project, env: Environment | None = None) -> Runtime:
    """Every agent OpenCode would load from this bundle, with its ordered rules."""
    env = env or Environment.from_environ(os.environ, project.config.root)
    defaults = from_config(_defaults(env), env.home, lambda path: DEFAULT)
    shared, config_problems = config_rules(project, env)
    agents: dict[str, Agent] = {}
    for name, native in _natives(env).items():
        origin = Origin("native", f"built-in `{name}` agent")
        extra = from_config(native.rules, env.home, _fixed(origin))
        agents[name] = Agent(name, native.mode, (*defaults, *extra, *shared), hidden=native.hidden)
    for ident, spec in project.agents.items():
        data = agent_frontmatter(spec)
        if data.get("disable") is True:
            agents.pop(ident, None)
            continue
        base = agents.get(ident)
        own, problems = _agent_rules(spec, env)
        mode = data.get("mode")
        if mode not in ("primary", "subagent", "all"):
            mode = base.mode if base else "all"
        hidden = data.get("hidden") if isinstance(data.get("hidden"), bool) else False
        inherited = base.rules if base else (*defaults, *shared)
        agents[ident] = Agent(ident, mode, (*inherited, *own), spec, bool(hidden), tuple(problems))
    return Runtime(
        {name: _with_tool_output(agent, env) for name, agent in agents.items()},
        tuple(shared),
        env,
        tuple(config_problems),
    )


def _with_tool_output(agent: Agent, env: Environment) -> Agent:
    glob = env.tool_output
    denied = any(
        r.permission == "external_directory" and r.action == "deny" and r.pattern == glob
        for r in agent.rules
    )
    if denied:
        return agent
    extra = Rule("external_directory", glob, "allow", RUNTIME, written=glob)
    return Agent(
        agent.name,
        agent.mode,
        (*agent.rules, extra),
        agent.spec,
        agent.hidden,
        agent.problems,
    )


_CACHE: list[tuple[Project, Runtime]] = []


def runtime(project: Project) -> Runtime:
    """resolve(project), computed once per project for all the rules that need it."""
    if _CACHE and _CACHE[0][0] is project:
        return _CACHE[0][1]
    result = resolve(project)
    _CACHE[:] = [(project, result)]
    return result
