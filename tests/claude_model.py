"""How Claude Code 2.1.332 decides a tool call, read from a `.claude` folder a user wrote.

The source side of `promptc import claude`: tests/test_import_never_widens.py
holds the importer to it. (The files promptc emits are read by
compiler/decide/claude.py, which the build proves with and
tests/test_decisions_claude.py holds to the real CLI.) Written apart from
compiler.import_claude, from Claude Code's documented rules:

- a tool missing from the agent's `tools` does not exist for it (deny); an
  `Agent(a, b)` entry allows starting only a and b;
- settings rules: any matching deny, else any matching ask, else any
  matching allow; nothing matching: ask for tools that need permission
  (Bash, Edit, Write, NotebookEdit, WebFetch, WebSearch, Skill), run (allow)
  for the others;
- `Bash(spec)`: `*` is any text, a trailing ` *` (or `:*`) is optional,
  everything else literal;
- `Read(spec)` / `Edit(spec)` (Edit rules cover Write and NotebookEdit):
  gitignore patterns relative to the project root: `*` and `?` stay within
  a folder, `**` crosses folders, a pattern without `/` matches a name at
  any depth, a matched folder covers all inside it; `~/`, `//` and `/`
  patterns never match a path inside the project.
- `Agent(name)`: that subagent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

TOOLS = (
    "Read",
    "Edit",
    "Write",
    "NotebookEdit",
    "Glob",
    "Grep",
    "Bash",
    "WebFetch",
    "WebSearch",
    "Agent",
    "TodoWrite",
    "AskUserQuestion",
    "Skill",
    "LSP",
)
ASKS = {"Bash", "Edit", "Write", "NotebookEdit", "WebFetch", "WebSearch", "Skill"}
EDITING = {"Edit", "Write", "NotebookEdit"}
RANK = {"deny": 0, "ask": 1, "allow": 2}
_RULE = re.compile(r"([A-Za-z]+)(?:\((.*)\))?", re.DOTALL)


@dataclass(frozen=True)
class Settings:
    allow: tuple[tuple[str, str | None], ...]
    ask: tuple[tuple[str, str | None], ...]
    deny: tuple[tuple[str, str | None], ...]
    agent: str | None


def parse_rule(text: str) -> tuple[str, str | None]:
    match = _RULE.fullmatch(text)
    assert match, f"not a Claude Code permission rule: {text!r}"
    return match[1], match[2]


def _matches(rule: tuple[str, str | None], tool: str, value: str) -> bool:
    name, spec = rule
    if spec is None:
        return name == tool
    if name == "Bash":
        return tool == "Bash" and bash_match(spec, value)
    if name == "Edit":
        return tool in EDITING and path_match(spec, value)
    if name == "Read":
        return tool == "Read" and path_match(spec, value)
    if name == "Agent":
        return tool == "Agent" and spec == value
    raise AssertionError(f"promptc wrote a rule this model does not know: {name}({spec})")


@lru_cache(maxsize=4096)
def _bash_regex(spec: str) -> re.Pattern[str]:
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    optional = spec.endswith(" *")
    body = spec[:-2] if optional else spec
    text = "".join(".*" if c == "*" else re.escape(c) for c in body)
    return re.compile(text + ("(?: .*)?" if optional else ""), re.DOTALL)


def bash_match(spec: str, command: str) -> bool:
    return _bash_regex(spec).fullmatch(command) is not None


@lru_cache(maxsize=4096)
def _path_regex(spec: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(spec):
        if spec.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif spec.startswith("/**", i) and i + 3 == len(spec):
            out, i = out + "/.*", i + 3
        elif spec.startswith("**", i):
            out, i = out + ".*", i + 2
        elif spec[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif spec[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(spec[i]), i + 1
    return re.compile(out, re.DOTALL)


def path_match(spec: str, path: str) -> bool:
    if spec.startswith(("//", "~/", "/")):
        return False
    spec = spec.removeprefix("./")
    anchored = "/" in spec.rstrip("/")
    regex = _path_regex(spec.rstrip("/"))
    parts = path.split("/")
    for end in range(1, len(parts) + 1):  # the path and every folder holding it
        candidate = "/".join(parts[:end]) if anchored else parts[end - 1]
        if regex.fullmatch(candidate):
            return True
    return False


# --- a `.claude` folder as Claude Code runs it (the source of `promptc import claude`) ---
#
# For an agent's frontmatter and the session's settings (settings.json and
# settings.local.json, merged): a tool is missing when `tools` lists some and
# not it, or when `disallowedTools` names it whole; `Agent(a, b)` in `tools`
# allows starting only a and b; a `disallowedTools` entry with a specifier is a
# deny rule of that agent. Then the session rules as in `decide`, plus
# `WebFetch(domain:x)` (the URL's host is x) and the agent's permission mode
# (its `permissionMode`, else the settings' `defaultMode`): `plan` denies Bash and
# every editing tool, `dontAsk` turns every ask into a deny.


@dataclass(frozen=True)
class SourceAgent:
    tools: frozenset[str]
    spawn: frozenset[str] | None
    denies: tuple[tuple[str, str | None], ...]
    mode: str | None


def entries(value: object) -> list[str]:
    """A `tools` value: a list, or text split at commas outside parentheses."""
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    if not isinstance(value, str):
        return []
    return [part.strip() for part in re.split(r",(?![^(]*\))", value) if part.strip()]


def source_agent(meta: Mapping[str, object]) -> SourceAgent:
    listed = meta.get("tools")
    tools = set(TOOLS)
    spawn: frozenset[str] | None = None
    if listed is not None and listed not in ("*", ["*"]):
        tools = set()
        for entry in entries(listed):
            tool, spec = parse_rule(entry)
            tool = "Agent" if tool == "Task" else tool
            tools.add(tool)
            if tool == "Agent" and spec is not None:
                spawn = frozenset(n.strip() for n in spec.split(",") if n.strip())
    denies: list[tuple[str, str | None]] = []
    for entry in entries(meta.get("disallowedTools")):
        tool, spec = parse_rule(entry)
        tool = "Agent" if tool == "Task" else tool
        if spec is None:
            tools.discard(tool)
        else:
            denies.append((tool, spec))
    mode = meta.get("permissionMode")
    return SourceAgent(
        frozenset(tools), spawn, tuple(denies), mode if isinstance(mode, str) else None
    )


def source_settings(docs: list[Mapping[str, object]]) -> tuple[Settings, str]:
    """The merged rules of the settings files, and the session's default mode."""
    lists: dict[str, list[tuple[str, str | None]]] = {"allow": [], "ask": [], "deny": []}
    mode = "default"
    for doc in docs:
        permissions = doc.get("permissions", {})
        assert isinstance(permissions, Mapping)
        for action, found in lists.items():
            for text in permissions.get(action, []):
                tool, spec = parse_rule(text)
                found.append(("Agent" if tool == "Task" else tool, spec))
        mode = str(permissions.get("defaultMode", mode))
    return Settings(*(tuple(lists[k]) for k in ("allow", "ask", "deny")), None), mode


def source_decide(agent: SourceAgent, settings: Settings, mode: str, tool: str, value: str) -> str:
    if tool not in agent.tools:
        return "deny"
    if tool == "Agent" and agent.spawn is not None and value not in agent.spawn:
        return "deny"
    mode = agent.mode or mode
    if mode == "plan" and (tool == "Bash" or tool in EDITING):
        return "deny"
    decided = "ask" if tool in ASKS else "allow"
    for action, rules in (("deny", settings.deny + agent.denies), ("ask", settings.ask)):
        if any(_source_matches(rule, tool, value) for rule in rules):
            decided = action
            break
    else:
        if any(_source_matches(rule, tool, value) for rule in settings.allow):
            decided = "allow"
    return "deny" if mode == "dontAsk" and decided == "ask" else decided


def _source_matches(rule: tuple[str, str | None], tool: str, value: str) -> bool:
    name, spec = rule
    if name == "WebFetch" and spec is not None:
        host = value.split("://", 1)[-1].split("/", 1)[0]
        return tool == "WebFetch" and spec == f"domain:{host}"
    if name in ("Bash", "Edit", "Read", "Agent") or spec is None:
        return _matches(rule, tool, value)
    return False
