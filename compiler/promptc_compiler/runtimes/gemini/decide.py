"""How Gemini CLI (@google/gemini-cli 0.61.0) decides a call, from the files promptc wrote.

Read from a `gemini` output: an extension (`gemini-extension.json`,
`agents/*.md`, `policies/*.toml`) and the user policy beside it
(`user-policies/*.toml`). The model decides what a user who follows the
documented set-up meets, interactively, with Gemini CLI started in the
project folder: the extension linked or installed, the user policy copied
to `~/.gemini/policies/` (or passed with `--policy`). Skipping the user
policy only narrows (its allow rules are missing; the extension's deny and
ask rules still hold). A project's own `.gemini/agents/*.md` (a hand-written
folder, what `promptc import gemini` reads) are agents the same way: Gemini
loads them once acknowledged, as tests/oracles/gemini.py does; 0.61 reads no
project `.gemini/policies/` (its workspace policies are switched off).

Gemini CLI has no primary agents: an OpenCode primary is not written, and
its calls have no agent to make them. A subagent (`invoke_agent` from the
main session) has the tools its `tools` list names (all without a list) and
starts no other agent. Its file tools refuse a path outside the project, and
one through `.env`, `.git` or `node_modules` (any case; Gemini's own
exclusion). Any other call of a tool it
has goes to Gemini's policy engine (the bundle's `PolicyEngine.check`),
which this model follows step by step:

- rules of three tiers: the user policy (priority 4 + p/1000), the
  extension's (2 + p/1000; Gemini drops an extension's `allow` rules), and
  Gemini's own (bundle/policies/*.toml, 1 + p/1000: `read_file`, `glob`,
  `grep_search`, `list_directory`, `google_web_search` allowed; the shell,
  `write_file`, `replace`, `activate_skill` and `web_fetch` asked
  interactively, denied without a user); the highest-priority rule whose
  tool, `subagent`, `interactive` and `argsPattern` match decides; none: ask
  (deny without a user). `argsPattern` is searched in the call's arguments
  as Gemini's stableStringify writes them: keys sorted, each top-level pair
  between NULs (`{\\x00"command":"ls"\\x00}`).
- a shell line: the deciding rule's answer for the whole line; a deny
  refuses it; an allow asks when the line redirects; then each of its
  commands (tree-sitter-bash's, without their redirections; a `bash -c`
  wrapper's own line too) is decided the same way, a deny refusing the line
  and an ask asking.
- an allowed `write_file` or `replace` of a build file (`Makefile`,
  `package.json`, `pyproject.toml`, ...) asks.

Each of these steps is held to the real engine, run in node on the same
files, call by call (tests/gemini/test_decisions_gemini.py); the rest (offered
tools, refused paths) to the real `gemini -p`.

Without a user (`gemini -p`, `headless`): a tool whose first rule without a
`subagent` denies it (Gemini's own, for the shell and the edit tools) is not
offered at all, and an ask is refused for want of a user. The oracle tests
read `gemini -p`'s outcomes against that model: absent or refused is the
headless deny, run is allow; an interactive ask shows there as a refusal
("requires user confirmation") or as the tool left out.
"""

from __future__ import annotations

import functools
import heapq
import json
import posixpath
import re
import tomllib
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from promptc_compiler.core import loader
from promptc_compiler.permissions import calls, shell
from promptc_compiler.permissions.calls import Call, Verdict

RUNTIME = "Gemini CLI"

# OpenCode permission -> the Gemini tools that make such a call
TOOLS = {
    "read": ("read_file", "read_many_files"),
    "list": ("list_directory",),
    "glob": ("glob",),
    "grep": ("grep_search",),
    "edit": ("write_file", "replace"),
    "bash": ("run_shell_command",),
    "webfetch": ("web_fetch",),
    "websearch": ("google_web_search",),
    "todowrite": ("write_todos",),
    "question": ("ask_user",),
    "skill": ("activate_skill",),
}
ALL = frozenset(tool for tools in TOOLS.values() for tool in tools)
# Old tool names a `tools` list may still use (TOOL_LEGACY_ALIASES in the
# bundle: the tool registry resolves them to the current tool).
LEGACY = {"search_file_content": "grep_search"}
SHELL = "run_shell_command"
# The argument a tool's OpenCode input goes into (the others take none the matrix sets).
ARGUMENT = {
    SHELL: "command",
    "read_file": "file_path",
    "write_file": "file_path",
    "replace": "file_path",
    "activate_skill": "name",
    "list_directory": "dir_path",
    "glob": "pattern",
    "grep_search": "pattern",
    "web_fetch": "prompt",
}
WORKSPACE_ONLY = frozenset(
    {"read_file", "read_many_files", "list_directory", "write_file", "replace"}
)
EDITS = frozenset({"write_file", "replace"})
RANK = {"deny": 0, "ask": 1, "allow": 2}
_DECISION = {"allow": "allow", "ask_user": "ask", "deny": "deny"}
# Gemini's isBuildFile: an edit of one of these asks even where a rule allows it.
BUILD_FILES = frozenset(
    {
        *("BUILD", "BUILD.bazel", "WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel"),
        *(".bazelrc", ".blazerc", "Makefile", "makefile", "GNUmakefile", "CMakeLists.txt"),
        *("package.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lockb"),
        *("setup.py", "setup.cfg", "pyproject.toml", "go.mod", "go.sum", "Cargo.toml"),
        *("Cargo.lock", "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle"),
        *("settings.gradle.kts", "Dockerfile", "Containerfile"),
    }
)
BUILD_SUFFIXES = (".bzl", ".bazel", ".bzlmod", ".mk", ".cmake")
# Gemini's stripShellWrapper: the line a `bash -c "..."` runs is decided too.
_WRAPPER = re.compile(
    r"^\s*(?:(?:(?:\S+/)?(?:sh|bash|zsh))\s+-c|cmd\.exe\s+/c"
    r"|powershell(?:\.exe)?\s+(?:-NoProfile\s+)?-Command"
    r"|pwsh(?:\.exe)?\s+(?:-NoProfile\s+)?-Command)\s+",
    re.IGNORECASE,
)


class Rule(NamedTuple):
    tool: str
    decision: str  # allow | ask | deny
    priority: float
    where: str  # the file it came from
    subagent: str | None = None
    args: re.Pattern[str] | None = None
    interactive: bool | None = None


# Gemini's own policies (bundle/policies/read-only.toml, write.toml,
# non-interactive.toml), as far as the tools above go.
_WRITE = ("replace", SHELL, "write_file", "activate_skill", "web_fetch")
DEFAULTS = (
    *(
        Rule(t, "allow", 1.05, "Gemini CLI's read-only.toml")
        for t in ("glob", "grep_search", "list_directory", "read_file", "google_web_search")
    ),
    *(Rule(t, "ask", 1.01, "Gemini CLI's write.toml", interactive=True) for t in _WRITE),
    *(Rule(t, "deny", 1.01, "Gemini CLI's write.toml", interactive=False) for t in _WRITE),
    Rule("ask_user", "deny", 1.999, "Gemini CLI's non-interactive.toml", interactive=False),
)


class Agent(NamedTuple):
    tools: frozenset[str]
    path: str


class Request(NamedTuple):
    """A tool call as Gemini's policy engine is asked about it."""

    tool: str
    subagent: str
    args: tuple[tuple[str, str], ...] = ()  # (name, value), in no order

    def arg(self, name: str) -> str:
        return dict(self.args).get(name, "")


@dataclass(frozen=True)
class Gemini:
    agents: Mapping[str, Agent]
    rules: tuple[Rule, ...]  # every tier, the highest priority first
    interactive: bool = True

    def decide(self, call: Call) -> Verdict:
        found = self.request(call)
        return found if isinstance(found, Verdict) else self.check(found)

    def alike(self, agent: str) -> Hashable:
        """The agent's tools and, in order, the rules that can decide its calls (those
        naming no subagent or this one), each without its file and its name."""
        name = agent.replace("/", "-")
        found = self.agents.get(name)
        if found is None:
            return None
        return (found.tools, *(self._shape[i] for i in self._deciding(name)))

    def _deciding(self, subagent: str) -> tuple[int, ...]:
        """The positions, in order, of the rules that can decide a call of
        `subagent`: those naming no subagent or this one. Every other agent's
        are never read (a bundle's rules grow with it). Merged once per
        subagent: each of its calls reads them."""
        found = self._merged.get(subagent)
        if found is None:
            own = self._named.get(subagent, ())
            shared = self._named.get(None, ())
            found = self._merged[subagent] = tuple(heapq.merge(shared, own)) if own else shared
        return found

    @functools.cached_property
    def _merged(self) -> dict[str, tuple[int, ...]]:
        """_deciding's answers, by subagent."""
        return {}

    @functools.cached_property
    def _named(self) -> Mapping[str | None, tuple[int, ...]]:
        """The positions of the rules naming each subagent (None: no subagent)."""
        found: dict[str | None, list[int]] = {}
        for i, rule in enumerate(self.rules):
            found.setdefault(rule.subagent, []).append(i)
        return {name: tuple(positions) for name, positions in found.items()}

    @functools.cached_property
    def _shape(self) -> tuple[Hashable, ...]:
        """What of each rule _rule reads, but its name: the same rules for two agents
        decide their calls alike."""
        return tuple(
            (r.tool, r.decision, r.subagent is None, r.args and r.args.pattern, r.interactive)
            for r in self.rules
        )

    def request(self, call: Call) -> Request | Verdict:
        """The call the policy engine decides, or the verdict reached before it."""
        agent = self.agents.get(call.agent.replace("/", "-"))
        if agent is None:
            return Verdict("deny", "no agent file: Gemini CLI has no such agent")
        if not call.delegated:
            return Verdict("deny", "Gemini CLI runs no custom agent as its main session")
        if call.permission == "task":
            return Verdict("deny", "a Gemini CLI subagent starts no agents")
        offered = [t for t in TOOLS.get(call.permission, ()) if t in agent.tools]
        if not offered:
            return Verdict("deny", f"{agent.path}: `tools` has no tool for `{call.permission}`")
        # The first tool that makes the call: read_file before read_many_files,
        # write_file before replace (both are decided alike).
        tool = offered[0]
        if not self.interactive and self.excluded(tool):
            return Verdict("deny", f"`{tool}` is not offered without a user")
        if tool in WORKSPACE_ONLY:
            full = calls.absolute(call.input)
            if not calls.inside(full):
                return Verdict("deny", f"`{tool}` refuses paths outside the workspace")
            if _blocked(posixpath.relpath(full, calls.PROJECT)):
                return Verdict("deny", f"`{tool}` refuses `.env`, `.git` and `node_modules` paths")
        argument = ARGUMENT.get(tool)
        args = ((argument, call.input),) if argument else ()
        return Request(tool, call.agent.replace("/", "-"), args)

    def check(self, request: Request) -> Verdict:
        """What Gemini's policy engine answers (PolicyEngine.check)."""
        if request.tool == SHELL:
            return self._shell(request.subagent, request.arg("command"))
        found = self._rule(request)
        path = request.arg("file_path")
        if found.action == "allow" and request.tool in EDITS and _build_file(path):
            action = "ask" if self.interactive else "deny"
            return Verdict(action, "Gemini CLI asks before editing a build file")
        return found

    def excluded(self, tool: str) -> bool:
        """Gemini leaves a tool out of the list when the first rule for it that
        names no subagent (an argsPattern one only if it denies) denies it."""
        for i in self._named.get(None, ()):
            rule = self.rules[i]
            if rule.tool not in (tool, "*"):
                continue
            if not self._mode(rule):
                continue
            if rule.args is not None:
                if rule.decision != "deny":
                    return False
                continue
            return rule.decision == "deny"
        return not self.interactive

    @functools.cached_property
    def _parsed(self) -> dict[str, list[str]]:
        """Each line's commands (see _commands), by line, once in the run."""
        return {}

    def _commands(self, line: str) -> list[str]:
        """The line's commands as Gemini parses them, none when it cannot parse
        it. Every agent is asked about the same lines (the proof's calls; at
        ndomo, 3,028 questions of 791 lines): each is parsed once."""
        found = self._parsed.get(line)
        if found is None:
            found = self._parsed[line] = subcommands(line) if parses(line) else []
        return found

    def _mode(self, rule: Rule) -> bool:
        return rule.interactive is None or rule.interactive == self.interactive

    def _for_tool(self, subagent: str, tool: str) -> tuple[Rule, ...]:
        """The rules that can decide a call of `tool` by `subagent` in this mode,
        in order: a proof asks each subagent about hundreds of calls of a few
        tools, and most of its rules name another tool."""
        key = (subagent, tool)
        found = self._by_tool.get(key)
        if found is None:
            deciding = (self.rules[i] for i in self._deciding(subagent))
            found = self._by_tool[key] = tuple(
                rule for rule in deciding if rule.tool in (tool, "*") and self._mode(rule)
            )
        return found

    @functools.cached_property
    def _by_tool(self) -> dict[tuple[str, str], tuple[Rule, ...]]:
        """_for_tool's answers, by subagent and tool."""
        return {}

    def _rule(self, request: Request) -> Verdict:
        """The answer of the highest-priority matching rule, or the default."""
        text = stable_stringify(dict(request.args))
        for rule in self._for_tool(request.subagent, request.tool):
            if rule.args is not None and not rule.args.search(text):
                continue
            return Verdict(rule.decision, f"{rule.where}: {rule.decision} `{request.tool}`")
        return Verdict("ask" if self.interactive else "deny", "no policy rule matches")

    def _shell(self, subagent: str, line: str) -> Verdict:
        """checkShellCommand: the line's own rule, then each of its commands."""
        found = self._rule(Request(SHELL, subagent, (("command", line),)))
        if found.action == "deny" or not line:
            return found
        parts = self._commands(line)
        if not parts:
            return Verdict("ask" if self.interactive else "deny", "Gemini CLI cannot parse it")
        if found.action == "allow" and redirects(line):
            found = Verdict("ask", "Gemini CLI asks before a command with a redirection")
        for part in parts:
            checked = [] if part == line else [part]
            if _unwrapped(part) != part:
                checked.insert(0, _unwrapped(part))
            for text in checked:
                verdict = self._shell(subagent, text)
                if verdict.action == "deny":
                    return verdict
                if verdict.action == "allow" and text == part and redirects(part):
                    verdict = Verdict("ask", "Gemini CLI asks before a command with a redirection")
                if RANK[verdict.action] < RANK[found.action]:
                    found = verdict
        return found


def stable_stringify(args: Mapping[str, str]) -> str:
    """The arguments as Gemini's stableStringify writes them (keys sorted, each
    top-level pair between NULs)."""
    pairs = [
        "\x00"
        + json.dumps(key, ensure_ascii=False)
        + ":"
        + json.dumps(args[key], ensure_ascii=False)
        + "\x00"
        for key in sorted(args)
    ]
    return "{" + ",".join(pairs) + "}"


def subcommands(line: str) -> list[str]:
    """The commands of a line as Gemini's parseCommandDetails gives them (their
    redirections left out), in order."""
    return [_without_redirections(c.text) for c in shell.commands(line)]


_OPENERS = {"if": "fi", "while": "done", "until": "done", "for": "done", "case": "esac"}


def parses(line: str) -> bool:
    """Whether tree-sitter-bash reads the line without an error, as far as the
    lines promptc checks go: quotes and substitutions closed, no trailing
    backslash, no empty command between operators, a parenthesis in an
    argument closed before a blank or an operator, compound commands closed."""
    stack: list[str] = []
    segment = ""  # the text since the last operator
    last = ""  # the last operator
    opened: list[str] = []
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\":
            if i + 1 >= len(line):
                return False
            segment += line[i : i + 2]
            i += 2
            continue
        if char in "'\"`":
            end = _closing(line, i)
            if end < 0:
                return False
            segment += line[i : end + 1]
            i = end + 1
            continue
        if char == "(":
            before = line[i - 1] if i else ""
            kind = "(" if before in "$<>" or not segment.strip() else "arg("
            stack.append(kind)
            segment += char
            i += 1
            continue
        if char == ")":
            if not stack:
                return False
            after = line[i + 1 : i + 2]
            if stack.pop() == "arg(" and after not in ("", " ", "\t", ";", "&", "|", ")", "\n"):
                return False
            segment += char
            i += 1
            continue
        operator = next(
            (op for op in ("&&", "||", ";;", ";", "|", "&", "\n") if line.startswith(op, i)), ""
        )
        if (
            operator
            and not (operator in "&|" and i and line[i - 1] in "<>")
            and not (operator == "&" and line.startswith("&>", i))
        ):
            if not stack:
                words = segment.split()
                if words and words[0] in _OPENERS:
                    opened.append(_OPENERS[words[0]])
                if words and opened and words[0] == opened[-1]:
                    opened.pop()
                if (
                    not segment.strip()
                    and operator != "\n"
                    and not (operator == ";" and last == "&")
                ):
                    return False
                segment, last = "", operator
            else:
                segment += operator
            i += len(operator)
            continue
        segment += char
        i += 1
    words = segment.split()
    if words and words[0] in _OPENERS:
        opened.append(_OPENERS[words[0]])
    if words and opened and words[0] == opened[-1]:
        opened.pop()
    if stack or opened:
        return False
    return bool(segment.strip()) or last in ("", ";", "&", "\n")


def _closing(line: str, start: int) -> int:
    """The index of the quote or backtick closing the one at `start`, or -1."""
    quote = line[start]
    i = start + 1
    while i < len(line):
        if line[i] == "\\" and quote != "'":
            i += 2
            continue
        if line[i] == quote:
            return i
        i += 1
    return -1


# A redirection at the end of a command: tree-sitter-bash puts it beside the command node.
_TRAILING_REDIRECTION = re.compile(
    r"\s+(?:[0-9]*|&)(?:>>|>&|>\||<<<|<&|<>|>|<)(?!\()\s*(?:'[^']*'|\"[^\"]*\"|[^\s'\"]+)\s*$"
)


def _without_redirections(text: str) -> str:
    while (found := _TRAILING_REDIRECTION.search(text)) is not None:
        text = text[: found.start()]
    return text.strip()


def redirects(line: str) -> bool:
    """A redirection outside quotes (Gemini's hasRedirection, roughly)."""
    plain = re.sub(r"'[^']*'|\"(?:\\.|[^\"\\])*\"", "", line)
    return _REDIRECT.search(plain) is not None


_REDIRECT = re.compile(r"(?<![<>&0-9])(?:[0-9]*>>?|<<?<?|&>>?)(?!\()")


def _unwrapped(text: str) -> str:
    """stripShellWrapper: the line inside `bash -c "..."`, or the text itself."""
    found = _WRAPPER.match(text)
    if not found:
        return text
    inner = text[found.end() :].strip()
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
        inner = inner[1:-1]
    return inner


_SHORT_NAMES = re.compile(
    r"^(?:(?:git|gi[0-9a-f]{4})~\d+|(?:env|en[0-9a-f]{4})~\d+|(?:node_m|no[0-9a-f]{4})~\d+"
    r"|(?:gha-cr|gh[0-9a-f]{4})~\d+\.jso(?:n)?)$"
)


def _blocked(relative: str) -> bool:
    """Gemini's hasBlockedPathSegment: a folder or file of the path is `.env`,
    `.git` or `node_modules` (any case, trailing dots and spaces dropped, or a
    short 8.3 name of one), or a `gha-creds-*.json`."""
    for segment in re.split(r"[/\\]", relative):
        clean = segment.split(":")[0].rstrip(" .").lower()
        if clean in (".git", ".env", "node_modules") or _SHORT_NAMES.match(clean):
            return True
        if clean.startswith("gha-creds-") and clean.endswith(".json"):
            return True
    return False


def _build_file(path: str) -> bool:
    name = posixpath.basename(path.replace("\\", "/").replace("\x00", ""))
    if name in BUILD_FILES or name.startswith(("Dockerfile.", "Containerfile.")):
        return True
    return posixpath.splitext(name)[1].lower() in BUILD_SUFFIXES


# Where Gemini CLI finds an agent file: an extension's `agents/` (what the
# gemini target writes) and a project's own `.gemini/agents/` (what `promptc
# import gemini` reads), decided alike.
AGENT_FOLDERS = ("agents/", ".gemini/agents/")


def load(files: Mapping[str, str], *, interactive: bool = True) -> Gemini:
    agents: dict[str, Agent] = {}
    found: list[Rule] = list(DEFAULTS)
    for rel in sorted(files):  # each text read in turn, not all at once
        text = files[rel]
        if rel.startswith(AGENT_FOLDERS) and rel.endswith(".md") and text.startswith("---\n"):
            front = loader.safe_load(text[4:].split("\n---", 1)[0])
            if isinstance(front, dict) and isinstance(front.get("name"), str):
                listed = front.get("tools")
                tools = (
                    ALL
                    if listed is None or "*" in listed
                    else frozenset(LEGACY.get(tool, tool) for tool in listed)
                )
                agents[front["name"]] = Agent(tools, rel)
        elif rel.startswith("policies/") and rel.endswith(".toml"):
            # An extension's allow rules are dropped by Gemini CLI itself.
            found += [r for r in _policy(rel, text, 2) if r.decision != "allow"]
        elif rel.startswith("user-policies/") and rel.endswith(".toml"):
            found += _policy(rel, text, 4)
    found.sort(key=lambda r: -r.priority)  # stable, as Gemini's sort
    return Gemini(agents, tuple(found), interactive)


def _policy(rel: str, text: str, tier: int) -> list[Rule]:
    found = []
    for entry in tomllib.loads(text).get("rule", []):
        tools = entry["toolName"]
        pattern = entry.get("argsPattern")
        if pattern is not None and not _safe(pattern):
            continue  # Gemini drops the rule ("potential ReDoS")
        for tool in tools if isinstance(tools, list) else [tools]:
            found.append(
                Rule(
                    tool,
                    _DECISION[entry["decision"]],
                    tier + entry.get("priority", 0) / 1000,
                    rel,
                    entry.get("subagent"),
                    re.compile(pattern) if pattern is not None else None,
                    entry.get("interactive"),
                )
            )
    return found


_NESTED_QUANTIFIER = re.compile(r"\([^)]*[*+?{].*\)[*+?{]")


def _safe(pattern: str) -> bool:
    """Gemini's isSafeRegExp: it compiles, is at most 2,048 characters long, and
    no `)` after a `(` and a quantifier is followed by a quantifier."""
    try:
        re.compile(pattern)
    except re.error:
        return False
    return len(pattern) <= 2048 and _NESTED_QUANTIFIER.search(pattern) is None


def headless(files: Mapping[str, str]) -> Gemini:
    """The model of a run without a user (`gemini -p`)."""
    return load(files, interactive=False)
