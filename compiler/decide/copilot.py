"""How GitHub Copilot CLI (@github/copilot 1.0.102) decides a call, from the files promptc wrote.

Read from a `copilot` output (`.github/agents/*.agent.md`). An agent has the
tools its `tools` list names (every tool without a list), aliases resolved
as Copilot does (`read` -> view, `search` -> grep and glob, `edit` -> edit and
create, `execute` -> the shell, `agent` -> task, `web` -> fetch). Run as the
main session (`copilot --agent`) it also has `skill` and `sql` whatever the
list says; started by `task` it has exactly its list (`tools: ["view"]`
offered `view` alone, and `skill` only when listed: seen on the binary,
tests/test_decisions_copilot.py). A `tools` entry such as `shell(git
status:*)` names no tool (the shell is then not offered), and a `skills:`
key limits nothing. Then Copilot's own behaviour, as a user meets it
interactively (permission rules are command-line flags, not agent-file
keys, so a bundle carries none):

- reading (`.env` too) and searching inside the project run; a path outside
  it asks;
- `create` and `edit` ask, inside the project or not; fetching asks;
- a shell line whose every command is read-only (`ls`, `cat`, `head`, `wc`,
  `grep`, `echo`, `git status`, `git log`, `git diff`, `git show`, ...) and
  names no path outside the project runs unasked; any other line asks;
- `task` starts any custom agent; `skill` loads any skill.

In non-interactive runs (`copilot -p`) an ask is refused "because no
interactive user response was available": the oracle counts it as asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import yaml

from compiler import calls, shell
from compiler.calls import Call, Verdict

RUNTIME = "Copilot CLI"
TARGETS = ("copilot",)

# OpenCode permission -> the Copilot tool alias that makes such a call
ALIAS = {
    "read": "read",
    "list": "read",
    "glob": "search",
    "grep": "search",
    "edit": "edit",
    "bash": "execute",
    "task": "agent",
    "webfetch": "web",
    "websearch": "web",
}
ALIAS["skill"] = "skill"
# What an agent run as the main session has whatever its list says.
ALWAYS = {"skill": "skill", "todowrite": "sql"}
ASKS = frozenset({"edit", "web"})
PATHS = frozenset({"read", "edit"})
ALL = frozenset(ALIAS.values())
# Commands Copilot's shell runs unasked (its read-only set, as far as seen).
READ_ONLY = frozenset(
    {"ls", "cat", "head", "tail", "wc", "grep", "echo", "pwd", "stat", "file", "which", "rg"}
)
READ_ONLY_GIT = frozenset({"status", "log", "diff", "show", "blame", "ls-files", "branch"})
_NAMES = {"view": "read", "grep": "search", "glob": "search", "create": "edit"}
_NAMES |= {"shell": "execute", "bash": "execute", "task": "agent", "fetch": "web"}


@dataclass(frozen=True)
class Agent:
    tools: frozenset[str]
    path: str
    offered: bool = True  # `task` may start it (no `infer: false`)


@dataclass(frozen=True)
class Copilot:
    agents: Mapping[str, Agent]

    def decide(self, call: Call) -> Verdict:
        agent = self.agents.get(call.agent.replace("/", "-"))
        if agent is None:
            return Verdict("deny", "no agent file: Copilot CLI has no such agent")
        if call.permission in ALWAYS and not call.delegated:
            return Verdict("allow", f"Copilot CLI gives its main session `{ALWAYS[call.permission]}`")
        alias = ALIAS.get(call.permission)
        if alias is None or alias not in agent.tools:
            return Verdict("deny", f"{agent.path}: `tools` has no tool for `{call.permission}`")
        target = self.agents.get(call.input.replace("/", "-"))
        if alias == "agent" and (target is None or not target.offered):
            return Verdict("deny", "task starts no such agent (none, or `infer: false`)")
        if alias in PATHS and not calls.inside(calls.absolute(call.input)):
            return Verdict("ask", "Copilot CLI asks before touching files outside the project")
        if alias == "execute":
            return _shell(call.input)
        if alias in ASKS:
            return Verdict("ask", f"Copilot CLI asks before `{alias}` calls")
        return Verdict("allow", f"Copilot CLI runs `{alias}` calls")


def _shell(line: str) -> Verdict:
    found = shell.commands(line)
    if found and all(_read_only(c.words) for c in found) and not calls.outside_folders(line):
        if not any(w.startswith(("/", "~")) or ".." in w for c in found for w in c.words[1:]):
            return Verdict("allow", "Copilot CLI runs read-only commands unasked")
    return Verdict("ask", "Copilot CLI asks before this shell line")


def _read_only(words: tuple[str, ...]) -> bool:
    if not words:
        return False
    if words[0] == "git":
        return len(words) > 1 and words[1] in READ_ONLY_GIT
    return words[0] in READ_ONLY


def _alias(name: str) -> str:
    return _NAMES.get(name, name)


def load(files: Mapping[str, str]) -> Copilot:
    agents: dict[str, Agent] = {}
    for rel, text in sorted(files.items()):
        if rel.startswith(".github/agents/") and rel.endswith(".md") and text.startswith("---\n"):
            front = yaml.safe_load(text[4:].split("\n---", 1)[0])
            if not isinstance(front, dict):
                continue
            name = front.get("name") or rel.rsplit("/", 1)[-1].split(".", 1)[0]
            listed = front.get("tools")
            if isinstance(listed, str):
                listed = [listed]
            tools = ALL if listed is None or "*" in listed else frozenset(map(_alias, listed))
            agents[str(name)] = Agent(tools, rel, front.get("infer") is not False)
    return Copilot(agents)
