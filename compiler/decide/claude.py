"""How Claude Code (@anthropic-ai/claude-code 2.1.332) decides a call, from the files promptc wrote.

Read from a `claude` output (`.claude/agents/*.md`, `.claude/settings.json`)
or a `claude-plugin` one (`.claude-plugin/plugin.json`, `agents/*.md`; a
plugin carries no settings, so only Claude Code's own defaults apply):

- the agent file's `tools` says which tools exist for the agent (all of them
  when it has no `tools`); `disallowedTools` takes tools away, or denies
  calls by rule (`Bash(cat *)`); a tool that does not exist is a deny;
  `Agent(a, b)` lets it start only a and b; a subagent starts no subagent;
- then the session's settings rules: any matching deny, else any matching
  ask, else any matching allow; a command line is decided per command, the
  strictest command deciding;
- nothing matching: Claude Code's own behaviour: Bash asks, except its
  read-only commands, which run unasked whatever the settings ask; Edit and
  Write ask; Read runs inside the project and asks outside it; WebFetch and
  WebSearch ask; Skill, Glob, Grep, TodoWrite, AskUserQuestion and Agent run;
- a whole-tool rule (`Edit`, `Bash`) applies everywhere, outside the
  project too; a path rule (`Edit(/src/**)`) is a gitignore pattern: `/x` and
  `./x` from the project folder, `~/x` from home, `//x` from the file-system
  root, `x` (no `/` before its end) a name at any depth in the project.

A hand-written `.claude` folder (what `promptc import claude` reads) may also
have `.claude/settings.local.json`, whose rules join those of settings.json
and whose `defaultMode` wins, and an agent's `permissionMode`, which decides
over the session's mode, except that a session in `acceptEdits` keeps it for
an agent in `default` (seen on the binary, a subagent started with Agent):

- `dontAsk`: whatever would be asked is refused; read-only commands and what
  a rule allows still run (`auto`, which needs a server-side check, refuses
  the same calls offline);
- `plan`: Write and Edit refuse ("cannot write while in plan mode"); the
  shell asks as by default;
- `acceptEdits`: an edit in the project that no rule decides runs; outside
  the project it asks;
- `bypassPermissions` in an agent changes nothing, and as the session's mode
  it is taken as `default` (the runtime may run more: narrower is safe for
  the import this is held against).

The tests hold this to the real `claude` (tests/oracles/claude.py).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import yaml

from compiler import calls, shell
from compiler.calls import Call, Verdict

RUNTIME = "Claude Code"
TARGETS = ("claude", "claude-plugin")

ALL_TOOLS = frozenset(
    {
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
    }
)
EDITING = frozenset({"Edit", "Write", "NotebookEdit"})
# The tool each OpenCode permission's calls are made with.
TOOL = {
    "bash": "Bash",
    "edit": "Write",
    "read": "Read",
    "glob": "Glob",
    "grep": "Grep",
    "webfetch": "WebFetch",
    "websearch": "WebSearch",
    "task": "Agent",
    "skill": "Skill",
    "todowrite": "TodoWrite",
    "question": "AskUserQuestion",
    "lsp": "LSP",
}
# Commands Claude Code runs without asking as long as no deny rule matches
# (its read-only shortcut; no setting switches it off).
READ_ONLY = frozenset(
    {
        *("cat", "head", "tail", "wc", "grep", "rg", "ls", "pwd", "echo", "find", "stat"),
        *("file", "sort", "uniq", "cut", "tree", "du", "df", "which", "diff", "less", "more"),
    }
)
READ_ONLY_GIT = frozenset({"status", "diff", "log", "show", "branch", "blame", "ls-files"})
_RULE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\((.*)\))?", re.DOTALL)
_ORDER = ("deny", "ask", "allow")
LOCAL = ".claude/settings.local.json"
# Permission modes, by how they decide (unknown ones decide as `default`).
MODES = {
    "default": "default",
    "manual": "default",
    "bypassPermissions": "default",
    "acceptEdits": "acceptEdits",
    "plan": "plan",
    "dontAsk": "dontAsk",
    "auto": "dontAsk",
}


@dataclass(frozen=True)
class Entry:
    tool: str
    spec: str | None
    text: str  # as written, for messages
    source: str | None = None  # the settings file it is in, when not settings.json


@dataclass(frozen=True)
class Agent:
    name: str  # the runtime's name (a plugin's without its prefix)
    tools: frozenset[str]
    spawn: frozenset[str] | None  # None: any subagent
    denies: tuple[Entry, ...]  # disallowedTools entries with a specifier
    path: str
    mode: str | None = None  # its permissionMode


@dataclass(frozen=True)
class Claude:
    agents: Mapping[str, Agent]  # by name
    rules: Mapping[str, tuple[Entry, ...]]  # deny / ask / allow
    settings: str | None  # the settings file's path, when there is one
    prefix: str  # "<plugin>:" for a plugin, else ""
    mode: str = "default"  # the settings' defaultMode

    def decide(self, call: Call) -> Verdict:
        verdict = self._decide(call)
        agent = self.agents.get(call.agent.replace("/", "-"))
        if agent is not None and verdict.action == "ask" and self._mode(agent) == "dontAsk":
            return Verdict("deny", f"{verdict.why}; in don't-ask mode Claude Code refuses it")
        return verdict

    def _mode(self, agent: Agent) -> str:
        session = MODES.get(self.mode, "default")
        own = MODES.get(agent.mode, "default") if agent.mode is not None else None
        if session == "acceptEdits" and own in (None, "default"):
            return session
        return own or session

    def _decide(self, call: Call) -> Verdict:
        agent = self.agents.get(call.agent.replace("/", "-"))
        if agent is None:
            return Verdict("deny", "no agent file: Claude Code has no such agent")
        tool = TOOL.get(call.permission)
        if tool is None:
            return Verdict("deny", f"Claude Code has no tool for `{call.permission}`")
        if tool not in agent.tools:
            return Verdict("deny", f"{agent.path}: `tools` leaves out {tool}")
        if tool == "Agent":
            return self._agent(agent, call)
        if tool == "Bash":
            return self._bash(agent, call.input)
        return self._single(agent, tool, call.input)

    def _agent(self, agent: Agent, call: Call) -> Verdict:
        if call.delegated:
            return Verdict("deny", "a Claude Code subagent starts no subagents")
        name = call.input.replace("/", "-")
        if agent.spawn is not None and f"{self.prefix}{name}" not in agent.spawn:
            return Verdict("deny", f"{agent.path}: `Agent(...)` does not list {name}")
        return self._single(agent, "Agent", f"{self.prefix}{name}")

    def _bash(self, agent: Agent, line: str) -> Verdict:
        verdicts = [self._command(agent, command) for command in shell.commands(line)]
        if not verdicts:
            return Verdict("allow", "an empty command line")
        return min(verdicts, key=lambda v: calls.RANK[v.action])

    def _command(self, agent: Agent, command: shell.Command) -> Verdict:
        found = self._rules(agent, "Bash", command.text)
        if found is not None and found.action == "deny":
            return found
        if _read_only(command):
            return Verdict("allow", f"Claude Code runs `{command.name}` unasked (read-only)")
        return found or Verdict("ask", "Claude Code asks before Bash")

    def _single(self, agent: Agent, tool: str, value: str) -> Verdict:
        mode = self._mode(agent)
        if mode == "plan" and tool in EDITING:
            return Verdict("deny", f"{agent.path}: Claude Code writes no file in plan mode")
        found = self._rules(agent, tool, value)
        if found is not None:
            return found
        if mode == "acceptEdits" and tool in EDITING and calls.inside(calls.absolute(value)):
            return Verdict("allow", "Claude Code accepts edits in the project (acceptEdits)")
        return Verdict(_default(tool, value), f"Claude Code's default for {tool}")

    def _rules(self, agent: Agent, tool: str, value: str) -> Verdict | None:
        for entry in agent.denies:
            if _matches(entry, tool, value):
                return Verdict("deny", f"{agent.path}: disallowedTools `{entry.text}`")
        for action in _ORDER:
            for entry in self.rules[action]:
                if _matches(entry, tool, value):
                    where = entry.source or self.settings
                    return Verdict(action, f"{where}: {action} `{entry.text}`")
        return None


def _default(tool: str, value: str) -> str:
    if tool in EDITING or tool in ("WebFetch", "WebSearch"):
        return "ask"
    if tool == "Read":
        return "allow" if calls.inside(calls.absolute(value)) else "ask"
    return "allow"


def _read_only(command: shell.Command) -> bool:
    words = command.words
    if words[0] == "git":
        return len(words) > 1 and words[1] in READ_ONLY_GIT
    return words[0] in READ_ONLY and not any(c in command.text for c in "<>")


def _matches(entry: Entry, tool: str, value: str) -> bool:
    if entry.tool == "Task":
        entry = Entry("Agent", entry.spec, entry.text)
    if entry.spec is None or entry.spec in ("*", ""):
        return entry.tool == tool or (entry.tool == "Edit" and tool in EDITING)
    if entry.tool == "Bash":
        return tool == "Bash" and _bash_regex(entry.spec).fullmatch(value) is not None
    if entry.tool in ("Edit", "Write") and tool in EDITING:
        return path_match(entry.spec, value)
    if entry.tool == "Read" and tool == "Read":
        return path_match(entry.spec, value)
    if entry.tool == "WebFetch" and tool == "WebFetch":
        host = value.split("://", 1)[-1].split("/", 1)[0]
        return entry.spec == f"domain:{host}"
    return entry.tool == tool and entry.spec == value


@lru_cache(maxsize=4096)
def _bash_regex(spec: str) -> re.Pattern[str]:
    """`*` is any text; a trailing ` *` (or `:*`) is optional."""
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    optional = spec.endswith(" *")
    body = spec[:-2] if optional else spec
    text = "".join(".*" if c == "*" else re.escape(c) for c in body)
    return re.compile(text + ("(?: .*)?" if optional else ""), re.DOTALL)


def path_match(spec: str, value: str) -> bool:
    """A Read or Edit path rule against a call's path (relative to the project, or absolute)."""
    full = calls.absolute(value)
    if spec.startswith("//"):
        base, rest = "/", spec[2:]
    elif spec.startswith("~/"):
        base, rest = calls.HOME, spec[2:]
    elif spec.startswith(("/", "./")):
        base, rest = calls.PROJECT, spec.removeprefix(".").removeprefix("/")
    else:
        base, rest = calls.PROJECT, spec
    if not (full == base or full.startswith(base.rstrip("/") + "/")):
        return False
    relative = posixpath.relpath(full, base)
    anchored = spec.startswith(("//", "~/", "/", "./")) or "/" in rest.rstrip("/")
    regex = _path_regex(rest.rstrip("/"))
    parts = relative.split("/")
    for end in range(1, len(parts) + 1):  # the path and every folder holding it
        candidate = "/".join(parts[:end]) if anchored else parts[end - 1]
        if regex.fullmatch(candidate):
            return True
    return False


@lru_cache(maxsize=4096)
def _path_regex(spec: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(spec):
        if spec.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif spec.startswith("/**", i) and i + 3 == len(spec):
            out, i = out + "(?:/.*)?", i + 3
        elif spec.startswith("**", i):
            out, i = out + ".*", i + 2
        elif spec[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif spec[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(spec[i]), i + 1
    return re.compile(out, re.DOTALL)


def _entries(value: object) -> list[str]:
    """A `tools` value: a list, or text split at commas outside parentheses."""
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    if not isinstance(value, str):
        return []
    return [part.strip() for part in re.split(r",(?![^(]*\))", value) if part.strip()]


def _entry(text: str) -> Entry:
    match = _RULE.fullmatch(text.strip())
    if match is None:
        return Entry(text, None, text)
    return Entry(match[1], match[2], text)


def _agent(path: str, text: str) -> Agent | None:
    if not text.startswith("---\n") or "\n---" not in text[3:]:
        return None
    front = yaml.safe_load(text[4:].split("\n---", 1)[0])
    if not isinstance(front, dict) or not isinstance(front.get("name"), str):
        return None
    tools = set(ALL_TOOLS)
    spawn: frozenset[str] | None = None
    listed = front.get("tools")
    if listed is not None and listed not in ("*", ["*"]):
        tools = set()
        for entry in map(_entry, _entries(listed)):
            tool = "Agent" if entry.tool == "Task" else entry.tool
            tools.add(tool)
            if tool == "Agent" and entry.spec:
                spawn = frozenset(n.strip() for n in entry.spec.split(",") if n.strip())
    denies = []
    for entry in map(_entry, _entries(front.get("disallowedTools"))):
        if entry.spec is None:
            tools.discard("Agent" if entry.tool == "Task" else entry.tool)
        else:
            denies.append(entry)
    mode = front.get("permissionMode")
    return Agent(
        front["name"],
        frozenset(tools),
        spawn,
        tuple(denies),
        path,
        mode if isinstance(mode, str) else None,
    )


def load(files: Mapping[str, str]) -> Claude:
    plugin = files.get(".claude-plugin/plugin.json")
    folder = "agents/" if plugin is not None else ".claude/agents/"
    agents: dict[str, Agent] = {}
    for rel, text in sorted(files.items()):
        if rel.startswith(folder) and rel.endswith(".md"):
            agent = _agent(rel, text)
            if agent is not None:
                agents[agent.name] = agent
    settings_path = None if plugin is not None else ".claude/settings.json"
    found: dict[str, list[Entry]] = {action: [] for action in _ORDER}
    mode = "default"
    # settings.local.json's rules join settings.json's; its defaultMode wins.
    for rel in () if plugin is not None else (".claude/settings.json", LOCAL):
        permissions: Mapping[str, Sequence[str]] = (
            json.loads(files[rel]).get("permissions", {}) if rel in files else {}
        )
        source = rel if rel == LOCAL else None
        for action in _ORDER:
            texts = permissions.get(action, [])
            found[action] += (replace(_entry(text), source=source) for text in texts)
        own_mode = permissions.get("defaultMode")
        mode = own_mode if isinstance(own_mode, str) else mode
    rules = {action: tuple(entries) for action, entries in found.items()}
    prefix = f"{json.loads(plugin)['name']}:" if plugin is not None else ""
    return Claude(agents, rules, settings_path, prefix, mode)
