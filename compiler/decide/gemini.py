"""How Gemini CLI (@google/gemini-cli 0.61.0) decides a call, from the files promptc wrote.

Read from a `gemini` output: an extension (`gemini-extension.json`,
`agents/*.md`, `policies/*.toml`) and the user policy beside it
(`user-policies/*.toml`). The model decides what a user who follows the
documented set-up meets, interactively: the extension linked or installed,
the user policy copied to `~/.gemini/policies/` (or passed with `--policy`).
Skipping the user policy only narrows (its allow rules are missing; the
extension's deny and ask rules still hold).

Gemini CLI has no primary agents: an OpenCode primary is not written, and
its calls have no agent to make them. A subagent (`invoke_agent` from the
main session) has the tools its `tools` list names (all without a list) and
starts no other agent. A call of a tool it has is decided by Gemini's policy
engine, as the bundle's chunk-*.js `PolicyEngine.check` does (read there and
run on the binary, see tests/test_decisions_gemini.py):

- rules of three tiers: the user policy (priority 4 + p/1000), the
  extension's (2 + p/1000; Gemini drops an extension's `allow` rules), and
  Gemini's own (1 + p/1000: `read_file`, `glob`, `grep_search`,
  `list_directory`, `google_web_search` allowed; the shell, `write_file`,
  `replace`, `activate_skill` and `web_fetch` asked interactively, denied
  without a user); the highest-priority rule whose tool, `subagent`,
  `interactive` and `argsPattern` match decides; none: ask (deny without a
  user). `argsPattern` is tested against the call's arguments as a stable
  JSON text with each top-level pair between NULs.
- a shell line is decided as a whole, then each of its commands (as
  tree-sitter-bash splits it; compiler.shell here): a deny refuses, an ask
  asks; an allowed line with a redirection asks.
- file tools refuse a path outside the project, and a file named `.env`
  (Gemini's own exclusion).

Without a user (`gemini -p`, `interactive=False`): a tool whose first rule
without a `subagent` denies it (Gemini's own, for the shell and the edit
tools) is not offered at all, and an ask is refused for want of a user; the
oracle tests read that outcome against this model's `headless` decision.
"""

from __future__ import annotations

import json
import posixpath
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass

import yaml

from compiler import calls, shell
from compiler.calls import Call, Verdict

RUNTIME = "Gemini CLI"
TARGETS = ("gemini",)

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
# The argument a tool's OpenCode input goes into (the others take none the matrix sets).
ARGUMENT = {
    "run_shell_command": "command",
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
RANK = {"deny": 0, "ask": 1, "allow": 2}
_DECISION = {"allow": "allow", "ask_user": "ask", "deny": "deny"}


@dataclass(frozen=True)
class Rule:
    tool: str
    decision: str  # allow | ask | deny
    priority: float
    where: str  # the file it came from
    subagent: str | None = None
    args: re.Pattern[str] | None = None
    interactive: bool | None = None


# Gemini's own policies (bundle/policies/read-only.toml, write.toml,
# non-interactive.toml), as far as the tools above go.
_WRITE = ("replace", "run_shell_command", "write_file", "activate_skill", "web_fetch")
DEFAULTS = (
    *(
        Rule(t, "allow", 1.05, "Gemini CLI's read-only.toml")
        for t in ("glob", "grep_search", "list_directory", "read_file", "google_web_search")
    ),
    *(Rule(t, "ask", 1.01, "Gemini CLI's write.toml", interactive=True) for t in _WRITE),
    *(Rule(t, "deny", 1.01, "Gemini CLI's write.toml", interactive=False) for t in _WRITE),
    Rule("ask_user", "deny", 1.999, "Gemini CLI's non-interactive.toml", interactive=False),
)


@dataclass(frozen=True)
class Agent:
    tools: frozenset[str]
    path: str


@dataclass(frozen=True)
class Gemini:
    agents: Mapping[str, Agent]
    rules: tuple[Rule, ...]  # every tier, the highest priority first
    interactive: bool = True

    def decide(self, call: Call) -> Verdict:
        agent = self.agents.get(call.agent.replace("/", "-"))
        if agent is None:
            return Verdict("deny", "no agent file: Gemini CLI has no such agent")
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
            if posixpath.basename(full) == ".env":
                return Verdict("deny", f"`{tool}` refuses `.env` files (Gemini's own exclusion)")
        name = call.agent.replace("/", "-")
        if tool == "run_shell_command":
            return self._shell(name, call.input)
        return self._check(name, tool, _args(tool, call.input))

    def excluded(self, tool: str) -> bool:
        """Gemini leaves a tool out of the list when the first rule for it that
        names no subagent (an argsPattern one only if it denies) denies it."""
        for rule in self.rules:
            if rule.tool not in (tool, "*") or rule.subagent is not None:
                continue
            if not self._mode(rule):
                continue
            if rule.args is not None:
                if rule.decision != "deny":
                    return False
                continue
            return rule.decision == "deny"
        return not self.interactive

    def _mode(self, rule: Rule) -> bool:
        return rule.interactive is None or rule.interactive == self.interactive

    def _match(self, subagent: str, tool: str, args: str) -> Rule | None:
        for rule in self.rules:
            if rule.tool not in (tool, "*") or not self._mode(rule):
                continue
            if rule.subagent is not None and rule.subagent != subagent:
                continue
            if rule.args is not None and not rule.args.search(args):
                continue
            return rule
        return None

    def _check(self, subagent: str, tool: str, args: str) -> Verdict:
        rule = self._match(subagent, tool, args)
        if rule is None:
            return Verdict("ask" if self.interactive else "deny", "no policy rule matches")
        return Verdict(rule.decision, f"{rule.where}: {rule.decision} `{tool}`")

    def _shell(self, subagent: str, line: str) -> Verdict:
        whole = self._check(subagent, "run_shell_command", _args("run_shell_command", line))
        if whole.action == "deny":
            return whole
        found = whole
        for command in shell.commands(line):
            text = command.text.strip()
            if text == line:
                continue
            part = self._check(subagent, "run_shell_command", _args("run_shell_command", text))
            if part.action == "deny":
                return part
            if RANK[part.action] < RANK[found.action]:
                found = part
        if found.action == "allow" and _redirects(line):
            return Verdict("ask", "Gemini CLI asks before a command with a redirection")
        return found


def _args(tool: str, value: str) -> str:
    """The call's arguments as Gemini's stableStringify writes them (one key)."""
    key = ARGUMENT.get(tool)
    if key is None:
        return "{}"
    return "{\x00" + json.dumps(key) + ":" + json.dumps(value, ensure_ascii=False) + "\x00}"


_REDIRECT = re.compile(r"(?<![<>&0-9])(?:[0-9]*>>?|<<?<?|&>>?)(?!\()")


def _redirects(line: str) -> bool:
    """A redirection outside quotes (Gemini's hasRedirection, roughly)."""
    plain = re.sub(r"'[^']*'|\"(?:\\.|[^\"\\])*\"", "", line)
    return _REDIRECT.search(plain) is not None


def load(files: Mapping[str, str], *, interactive: bool = True) -> Gemini:
    agents: dict[str, Agent] = {}
    found: list[Rule] = list(DEFAULTS)
    for rel, text in sorted(files.items()):
        if rel.startswith("agents/") and rel.endswith(".md") and text.startswith("---\n"):
            front = yaml.safe_load(text[4:].split("\n---", 1)[0])
            if isinstance(front, dict) and isinstance(front.get("name"), str):
                listed = front.get("tools")
                tools = ALL if listed is None or "*" in listed else frozenset(listed)
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


def headless(files: Mapping[str, str]) -> Gemini:
    """The model of a run without a user (`gemini -p`)."""
    return load(files, interactive=False)

