"""Permissions: the ordered rule lists OpenCode (opencode-ai 1.18.33) builds, and its decisions.

The list OpenCode concatenates for every agent, how keys become rules and how
it decides (the LAST matching rule wins; no match asks): docs/permissions.md.
What the page leaves out: OpenCode's own agents are build, plan, general,
explore, compaction, title and summary; a deprecated `tools` map comes before
`permission` (`write`, `edit` and `patch` become `edit`; true is allow, false
deny). Deciding is `rules.findLast(r => match(permission, r.permission) &&
match(input, r.pattern))`.

Every rule here remembers where it came from (a spec's file:line:col, the
promptc config, or OpenCode itself), so a decision can name its line.
promptc_compiler.permissions.runtime applies all this to a bundle.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from promptc_compiler.base.source import SOURCE
from promptc_compiler.permissions import wildcard

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


def js_keys(mapping: Mapping[str, Any]) -> list[str]:
    """Keys in JavaScript's Object.entries order: array indices first, ascending."""
    index = [k for k in mapping if is_index_key(k)]
    if not index:
        return list(mapping)  # the common case: written order
    index.sort(key=int)
    return index + [k for k in mapping if not is_index_key(k)]


def is_index_key(key: str) -> bool:
    return (
        key.isascii()
        and key.isdigit()
        and (key == "0" or not key.startswith("0"))
        and int(key) <= 2**32 - 2
    )


class Origin(NamedTuple):
    """Where a rule was written: a file position, or OpenCode itself (`path` None)."""

    kind: str  # default | native | config | agent | runtime | session
    label: str  # shown when there is no file: "built-in default", ...
    path: Path | None = None
    line: int = 0
    column: int = 0


@dataclass(frozen=True, slots=True, init=False)
class Rule:
    """One rule: `permission` and `pattern` decide `action`; written where its
    origin says (Rule(permission, pattern, action, origin, written, matchers))."""

    permission: str
    pattern: str
    action: str
    # The origin's fields, held by the rule (see origin): an Origin per rule was
    # one object more for the garbage collector to walk to the end of a run, 8
    # per agent of the 51 it walked in a lint of 10,000 agents.
    kind: str
    label: str
    path: Path | None
    line: int
    column: int
    written: str | None = None  # the pattern as written, when it was a map entry
    # The matchers of `permission` and `pattern` (wildcard.matcher), given by
    # from_config from the run's Patterns, or built when first asked.
    matchers: tuple[wildcard.Matcher, wildcard.Matcher] | None = field(
        default=None, repr=False, compare=False
    )

    def __init__(
        self,
        permission: str,
        pattern: str,
        action: str,
        origin: Origin,
        written: str | None = None,
        matchers: tuple[wildcard.Matcher, wildcard.Matcher] | None = None,
    ) -> None:
        put = object.__setattr__  # frozen: as a dataclass's own __init__ puts them
        put(self, "permission", permission)
        put(self, "pattern", pattern)
        put(self, "action", action)
        put(self, "kind", origin.kind)
        put(self, "label", origin.label)
        put(self, "path", origin.path)
        put(self, "line", origin.line)
        put(self, "column", origin.column)
        put(self, "written", written)
        put(self, "matchers", matchers)

    @property
    def origin(self) -> Origin:
        """Where the rule was written."""
        return Origin(self.kind, self.label, self.path, self.line, self.column)

    def text(self) -> str:
        """The rule as a spec would write it: `bash "git push*": deny`, `edit: deny`."""
        if self.written is None:
            return f"{_quote(self.permission)}: {self.action}"
        return f'{_quote(self.permission)} "{self.written}": {self.action}'

    def as_json(self) -> dict[str, str]:
        return {"permission": self.permission, "pattern": self.pattern, "action": self.action}

    def names(self, permission: str) -> bool:
        """The rule's key matches this permission name (in wildcard.normal form)."""
        return wildcard.accepts((self.matchers or self._built())[0], permission)

    def applies(self, permission: str, text: str) -> bool:
        """The rule matches this permission name and input (both in wildcard.normal form)."""
        key, pattern = self.matchers or self._built()
        return wildcard.accepts(key, permission) and wildcard.accepts(pattern, text)

    def _built(self) -> tuple[wildcard.Matcher, wildcard.Matcher]:
        found = (wildcard.matcher(self.permission), wildcard.matcher(self.pattern))
        object.__setattr__(self, "matchers", found)
        return found


def _quote(key: str) -> str:
    return f'"{key}"' if not key.replace("_", "a").isalnum() else key


class Decision(NamedTuple):
    action: str
    rule: Rule | None  # None: nothing matched, OpenCode's fallback `ask`


def evaluate(rules: Sequence[Rule], permission: str, text: str) -> Decision:
    """OpenCode's Permission.evaluate: the last rule matching both wins."""
    name, value = wildcard.normal(permission), wildcard.normal(text)
    for rule in reversed(rules):
        if rule.applies(name, value):
            return Decision(rule.action, rule)
    return Decision("ask", None)


def reaching(rules: Sequence[Rule], permission: str, wanted: Collection[str]) -> set[str] | None:
    """Every text (in wildcard.normal form) whose decision may be one of the `wanted`
    actions, or None when that may be any text.

    Graph rules ask one agent's rules about every other agent: when the rules
    decide every text but a few they spell out, only those few need asking.
    Past the last rule whose pattern is only `*`, a rule with another wildcard
    and a wanted action may decide any text; a literal pattern, its own.
    """
    name = wildcard.normal(permission)
    found: set[str] = set()
    for rule in reversed(rules):
        if not rule.names(name):
            continue
        if rule.pattern and not rule.pattern.strip("*"):
            return None if rule.action in wanted else found
        if rule.action in wanted:
            if not wildcard.is_literal(rule.pattern):
                return None
            found.add(wildcard.normal(rule.pattern))
    return None if "ask" in wanted else found  # no rule matches: OpenCode asks


def matching(rules: Sequence[Rule], permission: str, text: str) -> list[Rule]:
    """Every rule that matches, in order; the last one decides."""
    name, value = wildcard.normal(permission), wildcard.normal(text)
    return [r for r in rules if r.applies(name, value)]


def disabled_tools(tools: Iterable[str], rules: Sequence[Rule]) -> set[str]:
    """Tools OpenCode hides from the model: the last rule for the tool's
    permission (any pattern) is `"*"` with action deny."""
    hidden = set()
    for tool in tools:
        permission = wildcard.normal(TOOL_PERMISSION.get(tool, tool))
        if hides(next((r for r in reversed(rules) if r.names(permission)), None)):
            hidden.add(tool)
    return hidden


def hides(last: Rule | None) -> bool:
    """Whether the last rule for a tool's permission hides the tool: `"*": deny`."""
    return last is not None and last.pattern == "*" and last.action == "deny"


class Environment(NamedTuple):
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
        # OpenCode's own folders bear its name.
        return cls(
            home=home,
            data=_join(data_home, SOURCE),
            tmp=_join(tmp, SOURCE),
            worktree=_worktree(directory),
            skill_dirs=_skill_dirs(directory),
        )

    @property
    def tool_output(self) -> str:
        """The folder-glob OpenCode always allows: where it saves truncated tool output."""
        return _join(self.data, "tool-output", "*")


def _skill_dirs(directory: Path) -> tuple[str, ...]:
    """The project's own skill folders, as OpenCode finds them in `.opencode/`: each
    one gets an `external_directory` allow rule in the defaults."""
    found: list[str] = []
    for folder in ("skill", "skills"):
        root = directory / ".opencode" / folder
        if root.is_dir():
            found += [p.parent.resolve().as_posix() for p in sorted(root.rglob("SKILL.md"))]
    return tuple(found)


def _worktree(directory: Path) -> str:
    for folder in (directory, *directory.parents):
        if (folder / ".git").exists():
            return folder.as_posix()
    return "/"


def _join(*parts: str) -> str:
    """Node's path.join: join, then normalise."""
    return posixpath.normpath(posixpath.join(*parts))


# OpenCode replaces a leading `~` or `$HOME` of any pattern with the home
# folder. promptc translates for the other runtimes with this stand-in, so the
# output never depends on the machine; each runtime maps it back to its own `~/`.
HOME_STAND_IN = "/~"


def names_home(pattern: str) -> bool:
    """expand_home changes this pattern (it depends on the home folder)."""
    return pattern.startswith(("~/", "$HOME")) or pattern == "~"


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


def from_config(
    data: Mapping[str, Any], home: str, locate: Locate, patterns: wildcard.Patterns
) -> list[Rule]:
    """OpenCode's Permission.fromConfig over a validated permission object; each
    rule's matchers come from the run's `patterns`."""
    rules: list[Rule] = []
    matchers = patterns.matchers
    for key in js_keys(data):
        value = data[key]
        if isinstance(value, str):
            rules.append(Rule(key, "*", value, locate((key,)), None, matchers(key, "*")))
            continue
        for written in js_keys(value):
            pattern = expand_home(written, home)
            origin = locate((key, written))
            rules.append(
                Rule(key, pattern, value[written], origin, written, matchers(key, pattern))
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


def defaults(env: Environment) -> dict[str, Any]:
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


class Native(NamedTuple):
    mode: str
    rules: Mapping[str, Any]
    hidden: bool = False


def natives(env: Environment) -> dict[str, Native]:
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
