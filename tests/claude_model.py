"""How Claude Code 2.1.332 decides a tool call, read from the files promptc emitted.

Written apart from compiler.translate, from Claude Code's documented rules,
so the property tests check the emitted files rather than the translator's
own bookkeeping:

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

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import yaml

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
class ClaudeAgent:
    tools: frozenset[str]
    spawn: frozenset[str] | None  # None: any subagent


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


def agent_file(text: str) -> tuple[str, ClaudeAgent]:
    front = yaml.safe_load(text[4:].split("\n---\n", 1)[0])
    tools: set[str] = set()
    spawn: frozenset[str] | None = None
    for entry in front["tools"]:
        tool, spec = parse_rule(entry)
        tools.add(tool)
        if tool == "Agent" and spec is not None:
            spawn = frozenset(n.strip() for n in spec.split(","))
    return front["name"], ClaudeAgent(frozenset(tools), spawn)


def settings_file(text: str) -> Settings:
    doc = json.loads(text)
    permissions = doc.get("permissions", {})
    lists = {
        k: tuple(parse_rule(r) for r in permissions.get(k, [])) for k in ("allow", "ask", "deny")
    }
    return Settings(lists["allow"], lists["ask"], lists["deny"], doc.get("agent"))


MAIN_THREAD = ClaudeAgent(frozenset(TOOLS), None)


def decide(agent: ClaudeAgent, settings: Settings, tool: str, value: str) -> str:
    if tool not in agent.tools:
        return "deny"
    if tool == "Agent" and agent.spawn is not None and value not in agent.spawn:
        return "deny"
    for action in ("deny", "ask", "allow"):
        if any(_matches(rule, tool, value) for rule in getattr(settings, action)):
            return action
    return "ask" if tool in ASKS else "allow"


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


def load(files: Mapping[str, bytes]) -> tuple[dict[str, ClaudeAgent], Settings]:
    """The agents (by Claude name) and settings of a `claude` target's output."""
    agents = dict(
        agent_file(data.decode())
        for rel, data in files.items()
        if rel.startswith(".claude/agents/")
    )
    return agents, settings_file(files[".claude/settings.json"].decode())
