"""How Claude Code (@anthropic-ai/claude-code 2.1.332) decides a call, from the files promptc wrote.

Read from a `claude` output (`.claude/agents/*.md`, `.claude/settings.json`,
`.claude/skills/*/SKILL.md`) or a `claude-plugin` one (`.claude-plugin/
plugin.json`, `agents/*.md`, `skills/*/SKILL.md`; a plugin carries no
settings, so only Claude Code's own defaults apply). Every fact below was
seen on the binary, run offline (`claude -p`, scratch HOME) against a
scripted model endpoint that makes the main agent (`--agent`, or the
settings' `agent`) or a subagent started with the Agent tool attempt one
call, the CLI's tool result and `permission_denials` read back; the decision
tests (tests/claude/test_decisions_claude.py) hold the model to the binary.

- Which tools an agent has: its `tools` (all of them when it has none);
  an entry with a specifier (`Bash(git status *)`) grants the whole tool.
  Glob and Grep are offered only when `tools` names them and the agent has
  no Bash ("Glob is not available in this session — find files with `find`
  via the Bash tool instead"): an agent with Bash searches with `find . -name
  PATTERN` and `grep -r PATTERN .`, decided as those commands.
  `disallowedTools` takes a tool away whole, specifier or not. TodoWrite and
  AskUserQuestion are not offered in a non-interactive run. A tool the agent
  does not have is a deny.
- Agent: `Agent(a, b)` in `tools` limits what the main agent starts; a
  subagent holding Agent starts any agent (the list is not read for it),
  Claude Code's own ones too (general-purpose, Explore, Plan, ...; their
  names are matched in any case); a name Claude Code has no agent for is
  refused ("Agent type ... not found").
- Then the session's settings rules: any matching deny, else any matching
  ask, else any matching allow. A whole-tool rule (`Edit`, `Bash`) holds
  everywhere, outside the project too.
- Bash: a line is decided per command (promptc_compiler.permissions.shell), the strictest
  deciding, a substituted command too (a deny of `rm *` refuses `echo $(rm
  x)`); a substitution makes Claude Code ask for a line it would run ("can't
  be checked before it runs"), and so does one an escaped closing
  parenthesis leaves open, whatever the commands inside it. A command is
  matched as the shell reads it (`Bash(C:\\tools\\*)` does not refuse
  `C:\\tools\\x`, which is `C:toolsx`). A whole-tool `Bash` allow runs
  anything no deny or ask rule matches, files outside the project and
  substitutions included. Per command: a Bash deny rule, or a Read
  (Edit) deny rule matching a file it reads (writes), refuses; a Bash ask
  rule asks; a file outside the project asks; a Bash allow rule runs it; a
  read-only command runs unasked (promptc_compiler.runtimes.claude.decide_shell); anything
  else asks. Each kind of rule, and the read-only test, reads the command in
  the spellings Claude Code reads it in (promptc_compiler.runtimes.claude.variants:
  blanks as one space; an allow behind `nohup`, `LANG=C` or a quoted first
  word; a deny or ask with its words unquoted); a trailing ` *` is optional
  only when it is the rule's one `*`.
- Read runs inside the project and asks outside it; Edit and Write ask
  everywhere; WebFetch and WebSearch ask; Glob, Grep and Agent run. A path
  Windows could read otherwise (a name ending in a dot or a space, `~1`, a
  run of three dots, `.CON`, once trailing spaces are trimmed) makes Read
  and Write ask whatever allows it ("contains a suspicious Windows path
  pattern"), after the denies.
- Skill (the name trimmed): a deny `Skill(name)` or `Skill(prefix:*)`
  refuses; an ask rule with a specifier is not read (only a whole `Skill`
  ask asks); an allow runs; with no rule a skill runs unasked, unless its
  SKILL.md carries `allowed-tools` or `hooks` (then Claude Code asks). A
  skill the files do not ship is one the user installed: it runs unasked.
- Paths in Read and Edit rules are gitignore patterns, matched in any case
  (`Edit(lib/**/*)` allows `LIB/a.py`; Bash rules keep their case): `/x`
  and `./x` from the project folder, `~/x` from home, `//x` from the
  file-system root, `x` (no `/` before its end) a name at any depth in the
  project; a matched folder covers what is inside it (`src/**` matches `src`
  too).

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
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
import shlex
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from promptc_compiler.core import loader
from promptc_compiler.permissions import calls, shell
from promptc_compiler.permissions.calls import Call, Verdict
from promptc_compiler.runtimes.claude import decide_shell as claude_shell
from promptc_compiler.runtimes.claude import variants
from promptc_compiler.runtimes.globs import Star

RUNTIME = "Claude Code"

ALL_TOOLS = frozenset(
    {
        *("Read", "Edit", "Write", "NotebookEdit", "Glob", "Grep", "Bash", "WebFetch"),
        *("WebSearch", "Agent", "TodoWrite", "AskUserQuestion", "Skill", "LSP"),
    }
)
# Offered only when an agent's `tools` names them, and it has no Bash.
LISTED_ONLY = frozenset({"Glob", "Grep"})
# Not offered in a non-interactive run, whatever `tools` says.
NOT_OFFERED = frozenset({"TodoWrite", "AskUserQuestion"})
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
# Claude Code's own agents, by their names in lower case.
BUILT_IN_AGENTS = frozenset({"general-purpose", "explore", "plan", "claude", "statusline-setup"})
# SKILL.md keys that make Claude Code ask before loading the skill.
UNSAFE_SKILL_KEYS = ("allowed-tools", "hooks")
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

    # A model decides thousands of calls with the same rules: each rule's
    # pattern is built when it is first matched, once.
    @functools.cached_property
    def bash(self) -> tuple[Star, ...]:
        """A Bash rule's specifier as patterns, one of which matches a command it holds."""
        return _bash_patterns(self.spec or "")

    @functools.cached_property
    def path(self) -> PathRule:
        """A Read or Edit rule's specifier as a path rule."""
        return PathRule.of(self.spec or "")


class Agent(NamedTuple):
    name: str  # the runtime's name (a plugin's without its prefix)
    tools: frozenset[str]
    spawn: frozenset[str] | None  # None: any agent
    path: str
    mode: str | None = None  # its permissionMode


class Rules:
    """One settings list (deny, ask or allow), found by tool, and Bash rules by the
    first word of their specifier: a command is matched only against the rules
    that can match it (the repository's settings hold a hundred Bash rules)."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.whole: dict[str, list[Entry]] = {}
        self.by_tool: dict[str, list[Entry]] = {}
        self.by_word: dict[str, list[Entry]] = {}
        self.any_word: list[Entry] = []  # a wildcard in the first word
        for entry in entries:
            tool = "Agent" if entry.tool == "Task" else entry.tool
            if entry.spec is None or entry.spec in ("*", ""):
                self.whole.setdefault(tool, []).append(entry)
            elif tool == "Bash":
                word = variants.blanks(entry.spec.removesuffix(":*")).split(" ", 1)[0]
                found = self.any_word if "*" in word else self.by_word.setdefault(word, [])
                found.append(entry)
            else:
                self.by_tool.setdefault(tool, []).append(entry)

    def candidates(self, tool: str, value: str) -> list[Entry]:
        if tool in EDITING:
            return [
                *self.whole.get(tool, ()),
                *self.whole.get("Edit", ()),
                *self.by_tool.get("Edit", ()),
            ]
        if tool == "Bash":
            word = value.split(" ", 1)[0]
            return [*self.whole.get(tool, ()), *self.by_word.get(word, ()), *self.any_word]
        return [*self.whole.get(tool, ()), *self.by_tool.get(tool, ())]


@dataclass(frozen=True)
class Claude:
    agents: Mapping[str, Agent]  # by name
    rules: Mapping[str, Rules]  # deny / ask / allow
    settings: str | None  # the settings file's path, when there is one
    prefix: str  # "<plugin>:" for a plugin, else ""
    skills: Mapping[str, bool]  # the shipped skills: name -> Claude Code asks before loading
    mode: str = "default"  # the settings' defaultMode
    # A command line is decided by the session's settings alone, whoever runs it:
    # each line once, though every agent of a bundle is asked about it.
    lines: dict[str, Verdict] = field(default_factory=dict, compare=False, repr=False)

    def decide(self, call: Call) -> Verdict:
        verdict = self._decide(call)
        agent = self.agents.get(call.agent.replace("/", "-"))
        if agent is not None and verdict.action == "ask" and self._mode(agent) == "dontAsk":
            return Verdict("deny", f"{verdict.why}; in don't-ask mode Claude Code refuses it")
        return verdict

    def alike(self, agent: str) -> Hashable:
        """The agent's tools, the agents it may start and its mode: its name and
        path show only in the reasons."""
        found = self.agents.get(agent.replace("/", "-"))
        return None if found is None else (found.tools, found.spawn, found.mode)

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
        if tool in NOT_OFFERED:
            return Verdict("deny", f"Claude Code offers no {tool} in a non-interactive run")
        if tool in LISTED_ONLY and tool not in agent.tools and "Bash" in agent.tools:
            command = search_command(tool, call.input)
            found = self._bash(command)
            why = f"Claude Code offers no {tool} beside Bash, so `{command}`: {found.why}"
            return Verdict(found.action, why)
        if tool not in agent.tools:
            return Verdict("deny", f"{agent.path}: the agent has no {tool}")
        if tool == "Agent":
            return self._agent(agent, call)
        if tool == "Bash":
            return self._bash(call.input)
        if tool == "Skill":
            return self._skill(call.input)
        return self._single(tool, call.input, self._mode(agent))

    def _agent(self, agent: Agent, call: Call) -> Verdict:
        name = call.input.replace("/", "-")
        qualified = f"{self.prefix}{name}"
        if name not in self.agents and name.lower() not in BUILT_IN_AGENTS:
            return Verdict("deny", f"Claude Code has no agent `{qualified}`")
        if not call.delegated and agent.spawn is not None and qualified not in agent.spawn:
            return Verdict("deny", f"{agent.path}: `Agent(...)` does not list {qualified}")
        return self._single("Agent", qualified if name in self.agents else name, "default")

    def _bash(self, line: str) -> Verdict:
        found = self.lines.get(line)
        if found is None:
            found = self.lines[line] = self._line(line)
        return found

    def _line(self, line: str) -> Verdict:
        substituted = "$(" in line or "`" in line
        if substituted and not _closed(line):
            # An escaped closing parenthesis leaves the substitution open: Claude
            # Code checks only what stands before it, and asks.
            outer = [self._command(c) for c in shell.commands(line.split("$(", 1)[0])]
            denied = next((v for v in outer if v.action == "deny"), None)
            unchecked = self._whole_bash_allow() or Verdict(
                "ask", "Claude Code asks: the line can't be checked"
            )
            return denied or unchecked
        verdicts = [self._command(command) for command in shell.commands(line)]
        if not verdicts:
            return Verdict("allow", "an empty command line")
        strictest = min(verdicts, key=lambda v: calls.RANK[v.action])
        if strictest.action == "allow" and substituted and self._whole_bash_allow() is None:
            return Verdict("ask", "Claude Code asks: a substituted command can't be checked")
        return strictest

    def _command(self, command: shell.Command) -> Verdict:
        found = self._bash_rules(command.text)
        if found is not None and found.action == "deny":
            return found
        files = claude_shell.files(command)
        for tool, paths in (("Read", files.reads), ("Edit", files.writes)):
            for path in paths:
                denied = self._rule("deny", tool, path)
                if denied is not None:
                    return denied
        if found is not None and found.action == "ask":
            return found
        whole = self._whole_bash_allow()
        if whole is not None:
            return whole  # over Claude Code's own asks: outside files, any command
        if files.outside:
            return Verdict("ask", f"Claude Code asks: `{command.name}` names a file outside")
        if found is not None:
            return found
        if claude_shell.read_only(variants.read_only_command(command)):
            return Verdict("allow", f"Claude Code runs `{command.name}` unasked (read-only)")
        return Verdict("ask", "Claude Code asks before Bash")

    def _bash_rules(self, text: str) -> Verdict | None:
        """The first Bash deny, ask or allow rule that matches the command in one of
        the spellings Claude Code reads it in for that kind of rule (variants)."""
        stops = _spelled(text, variants.stop_texts(text))
        allows = _spelled(text, variants.allow_texts(text))
        for action, texts in (("deny", stops), ("ask", stops), ("allow", allows)):
            for spelled in texts:
                found = self._rule(action, "Bash", spelled)
                if found is not None:
                    return found
        return None

    def _whole_bash_allow(self) -> Verdict | None:
        entries = self.rules["allow"].whole.get("Bash", ())
        if not entries:
            return None
        return Verdict("allow", f"{self.settings}: allow `{entries[0].text}` (every command)")

    def _skill(self, name: str) -> Verdict:
        name = name.strip()  # `foo ` is `foo`
        found = self._rules("Skill", name)
        if found is not None:
            return found
        if self.skills.get(name, False):
            return Verdict("ask", f"Claude Code asks before loading `{name}` (allowed-tools)")
        return Verdict("allow", "Claude Code loads a skill unasked")

    def _single(self, tool: str, value: str, mode: str) -> Verdict:
        if mode == "plan" and tool in EDITING:
            return Verdict("deny", "Claude Code writes no file in plan mode")
        found = self._rules(tool, value)
        if found is not None and found.action == "deny":
            return found
        if tool in ("Read", *EDITING) and _suspicious(value.rstrip()):
            return Verdict("ask", "Claude Code asks: a suspicious Windows path pattern")
        if found is not None:
            return found
        if mode == "acceptEdits" and tool in EDITING and calls.inside(calls.absolute(value)):
            return Verdict("allow", "Claude Code accepts edits in the project (acceptEdits)")
        return Verdict(_default(tool, value), f"Claude Code's default for {tool}")

    def _rules(self, tool: str, value: str) -> Verdict | None:
        for action in _ORDER:
            found = self._rule(action, tool, value)
            if found is not None:
                return found
        return None

    def _rule(self, action: str, tool: str, value: str) -> Verdict | None:
        for entry in self.rules[action].candidates(tool, value):
            if _matches(entry, tool, value, action):
                where = entry.source or self.settings
                return Verdict(action, f"{where}: {action} `{entry.text}`")
        return None


_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _spelled(text: str, spellings: tuple[str, ...]) -> tuple[str, ...]:
    """The command as the shell reads it (`C:\\tools\\x` is `C:toolsx`), then its spellings."""
    return tuple(dict.fromkeys(_UNESCAPE.sub(r"\1", t) for t in (text, *spellings)))


def _closed(line: str) -> bool:
    """Whether every `$(` of the line is closed, a backslash escaping the next character."""
    depth, i = 0, 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line.startswith("$(", i):
            depth, i = depth + 1, i + 2
            continue
        if line[i] == ")" and depth:
            depth -= 1
        i += 1
    return depth == 0


_SUSPICIOUS_NAME = re.compile(r"[.\s]+$")
_SUSPICIOUS_PATH = re.compile(r"~\d|(^|/)\.{3,}(/|$)|\.(CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])$", re.I)


def _suspicious(path: str) -> bool:
    """A path Claude Code asks about whatever the rules say (its own list)."""
    names = [n for n in path.split("/") if n not in ("", ".", "..")]
    return any(_SUSPICIOUS_NAME.search(n) for n in names) or bool(_SUSPICIOUS_PATH.search(path))


def search_command(tool: str, pattern: str) -> str:
    """The shell command Claude Code points an agent with Bash to instead of Glob or Grep."""
    if tool == "Glob":
        return f"find . -name {shlex.quote(pattern)}"
    return f"grep -r {shlex.quote(pattern)} ."


def _default(tool: str, value: str) -> str:
    if tool in EDITING or tool in ("WebFetch", "WebSearch"):
        return "ask"
    if tool == "Read":
        return "allow" if calls.inside(calls.absolute(value)) else "ask"
    return "allow"


def _matches(entry: Entry, tool: str, value: str, action: str) -> bool:
    name = "Agent" if entry.tool == "Task" else entry.tool
    if entry.spec is None or entry.spec in ("*", ""):
        return name == tool or (name == "Edit" and tool in EDITING)
    if name == "Bash":
        return tool == "Bash" and any(pattern.matches(value) for pattern in entry.bash)
    if name == "Edit" and tool in EDITING:
        return entry.path.matches(value)
    if name == "Read" and tool == "Read":
        return entry.path.matches(value)
    if name == "WebFetch" and tool == "WebFetch":
        host = value.split("://", 1)[-1].split("/", 1)[0]
        return entry.spec == f"domain:{host}"
    if name == "Skill" and tool == "Skill":
        return action != "ask" and _skill_match(entry.spec, value)
    if name == "Agent" and tool == "Agent":
        return entry.spec == value
    return False


def _skill_match(spec: str, name: str) -> bool:
    """`name` exactly, or `prefix:*` for every name starting with the prefix."""
    if spec.endswith(":*"):
        return name.startswith(spec[:-2])
    return spec == name


def _bash_patterns(spec: str) -> tuple[Star, ...]:
    """`*` is any text; a run of blanks is one space; a trailing ` *` (or `:*`) is
    optional when it is the rule's only `*` (`git st*tus *` needs the space): the
    command without it matches too. Matched in linear time (runtimes.globs)."""
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    spec = variants.blanks(spec)
    if spec.endswith(" *") and spec.count("*") == 1:
        return (Star.literal(spec[:-2]), Star.literal(spec))
    return (Star.literal(spec),)


class PathRule(NamedTuple):
    """A Read or Edit path rule: the folder it starts from, whether it names a
    path from there (anchored) or a name at any depth, and its pattern."""

    base: str
    anchored: bool
    regex: re.Pattern[str]

    @classmethod
    def of(cls, spec: str) -> PathRule:
        if spec.startswith("//"):
            base, rest = "/", spec[2:]
        elif spec.startswith("~/"):
            base, rest = calls.HOME, spec[2:]
        elif spec.startswith(("/", "./")):
            base, rest = calls.PROJECT, spec.removeprefix(".").removeprefix("/")
        else:
            base, rest = calls.PROJECT, spec
        # `./` names the project's folder and anchors nothing of its own: Claude
        # Code 2.1.332 lets `Edit(./.env)` write `x/.env` unasked, `Edit(./a/b)`
        # only `a/b` (tests/claude/test_decisions_claude.py, the real binary).
        anchored = spec.startswith(("//", "~/", "/")) or "/" in rest.rstrip("/")
        return cls(base, anchored, _path_regex(rest.rstrip("/")))

    def matches(self, value: str) -> bool:
        """A call's path (relative to the project, or absolute) against the rule;
        trailing spaces do not count (`Edit(**/*.env)` refuses `.env `)."""
        full = calls.absolute(value.rstrip())
        base = self.base
        if not (full == base or full.startswith(base.rstrip("/") + "/")):
            return False
        parts = posixpath.relpath(full, base).split("/")
        for end in range(1, len(parts) + 1):  # the path and every folder holding it
            candidate = "/".join(parts[:end]) if self.anchored else parts[end - 1]
            if self.regex.fullmatch(candidate):
                return True
        return False


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
    return re.compile(out, re.DOTALL | re.IGNORECASE)


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


def _frontmatter(text: str) -> dict[str, object] | None:
    if not text.startswith("---\n") or "\n---" not in text[3:]:
        return None
    front = loader.safe_load(text[4:].split("\n---", 1)[0])
    return front if isinstance(front, dict) else None


def _agent(path: str, text: str) -> Agent | None:
    front = _frontmatter(text)
    if front is None or not isinstance(front.get("name"), str):
        return None
    tools = set(ALL_TOOLS - LISTED_ONLY)
    spawn: frozenset[str] | None = None
    listed = front.get("tools")
    if listed is not None and listed not in ("*", ["*"]):
        tools = set()
        for entry in map(_entry, _entries(listed)):
            tool = "Agent" if entry.tool == "Task" else entry.tool
            tools.add(tool)
            if tool == "Agent" and entry.spec:
                spawn = frozenset(n.strip() for n in entry.spec.split(",") if n.strip())
    for entry in map(_entry, _entries(front.get("disallowedTools"))):
        tools.discard("Agent" if entry.tool == "Task" else entry.tool)
    if "Bash" in tools:
        tools -= LISTED_ONLY
    mode = front.get("permissionMode")
    return Agent(
        str(front["name"]), frozenset(tools), spawn, path, mode if isinstance(mode, str) else None
    )


def _skill_asks(text: str) -> bool:
    front = _frontmatter(text) or {}
    return any(front.get(key) for key in UNSAFE_SKILL_KEYS)


def load(files: Mapping[str, str]) -> Claude:
    plugin = files.get(".claude-plugin/plugin.json")
    root = "" if plugin is not None else ".claude/"
    agents: dict[str, Agent] = {}
    skills: dict[str, bool] = {}
    # Each file's text read when its turn comes: a build hands the files as
    # bytes decoded when read (promptc_compiler.pipeline.emitter), and every
    # text at once held the target's files twice.
    for rel in sorted(files):
        if rel.startswith(f"{root}agents/") and rel.endswith(".md"):
            agent = _agent(rel, files[rel])
            if agent is not None:
                agents[agent.name] = agent
        elif rel.startswith(f"{root}skills/") and rel.endswith("/SKILL.md"):
            skills[rel.split("/")[-2]] = _skill_asks(files[rel])
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
    rules = {action: Rules(entries) for action, entries in found.items()}
    prefix = f"{json.loads(plugin)['name']}:" if plugin is not None else ""
    return Claude(agents, rules, settings_path, prefix, skills, mode)
