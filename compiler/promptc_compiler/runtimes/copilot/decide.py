"""How GitHub Copilot CLI (@github/copilot 1.0.102) decides a call, from the files promptc wrote.

Read from a `copilot` output (`.github/agents/*.agent.md`). An agent has the
tools its `tools` list names (every tool, `sql` included, without a list or
with `"*"`), aliases resolved as Copilot does (`read` -> view, `search` ->
grep and glob, `edit` -> edit and create, `execute` -> the shell, `agent` ->
task, `web` -> web_fetch and web_search, `skill` -> skill). Run as the main
session (`copilot --agent`) it also has `skill` and `sql` whatever the list
says; started by `task` it has exactly its list (`tools: ["view"]` offered
`view` alone; no list, or `"*"`, ran `sql`). A `tools`
entry such as `shell(git status:*)` names no tool, and a `skills:` key
limits nothing. `task` starts no agent whose file says `infer: false` (the
agent's hook is asked first: its ask or deny stands).

A call of a tool the agent has goes first to the agent file's own
preToolUse hooks: Copilot runs them for that agent's calls only, whether it
runs as the main session or was started by `task` (then the hook's input
holds `parentAgentId`), and never for another agent's. The hook's allow
runs the call unasked, its ask asks, its deny (or its failure) refuses it. A
hook promptc wrote is read and decided as promptc_compiler.runtimes.copilot.script says; any
other hook could answer anything, so the model takes it as allowing every
call. Where no hook decides (none, or a tool promptc's leaves to Copilot),
Copilot's own behaviour decides, as a user meets it interactively
(permission rules are command-line flags, not agent-file keys):

- reading (`.env` too) and searching inside the project run; a path outside
  it asks;
- `create` and `edit` ask, inside the project or not; fetching asks;
- a shell line whose every command is read-only (`ls`, `cat`, `head`, `wc`,
  `grep`, `echo`, `git status`, `git log`, `git diff`, `git show`, ...) and
  names no path outside the project runs unasked; any other line asks;
- `task` starts any custom agent; `skill` loads any skill; `sql` runs.

In non-interactive runs (`copilot -p`) an ask is refused "because no
interactive user response was available" (a hook's ask: "unable to ask user
for confirmation"): the oracle counts both as asked. Every fact here was
seen on the binary; tests/copilot/test_decisions_copilot.py runs each hook promptc
wrote in sh on every call of the matrix against copilot_script.decide, and
the real CLI on a sample.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, NamedTuple

from promptc_compiler.core import loader
from promptc_compiler.permissions import calls, shell
from promptc_compiler.permissions.calls import Call, Verdict
from promptc_compiler.runtimes.copilot import script as copilot_script
from promptc_compiler.runtimes.copilot.script import Case, Cases, Table

RUNTIME = "Copilot CLI"

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
    "skill": "skill",
    # Its session store, where its todo list lives: a tool of its own, no alias.
    "todowrite": "sql",
}
# OpenCode permission -> the Copilot tool a call is made with, and the argument
# its input goes in.
TOOL = {
    "read": ("view", "path"),
    "list": ("view", "path"),
    "glob": ("glob", "pattern"),
    "grep": ("grep", "pattern"),
    "edit": ("create", "path"),
    "bash": ("bash", "command"),
    "task": ("task", "agent_type"),
    "webfetch": ("web_fetch", "url"),
    "websearch": ("web_search", "query"),
    "skill": ("skill", "skill"),
    "todowrite": ("sql", ""),
}
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
# The fetch tool's own name (its status line reads `case "web_fetch": case "fetch"`).
_NAMES |= {"web_fetch": "web"}
UNKNOWN = "unknown"  # an agent's hooks are not one promptc wrote


class Agent(NamedTuple):
    tools: frozenset[str]
    path: str
    offered: bool = True  # `task` may start it (no `infer: false`)
    hook: Cases | str | None = None  # promptc's hook, UNKNOWN, or None (no hook)


class Copilot(NamedTuple):
    agents: Mapping[str, Agent]

    def decide(self, call: Call) -> Verdict:
        agent = self.agents.get(call.agent.replace("/", "-"))
        if agent is None:
            return Verdict("deny", "no agent file: Copilot CLI has no such agent")
        always = call.permission in ALWAYS and not call.delegated
        alias = ALIAS.get(call.permission)
        if not always and (alias is None or alias not in agent.tools):
            return Verdict("deny", f"{agent.path}: `tools` has no tool for `{call.permission}`")
        # The hook answers before `task` looks for the agent: its ask or deny
        # stands even for an agent `task` cannot start (seen on the binary).
        hooked = self._hook(agent, call)
        if hooked is not None and hooked.action != "allow":
            return hooked
        target = self.agents.get(call.input.replace("/", "-"))
        if call.permission == "task" and (target is None or not target.offered):
            return Verdict("deny", "task starts no such agent (none, or `infer: false`)")
        if hooked is not None:
            return hooked
        if always:
            return Verdict(
                "allow", f"Copilot CLI gives its main session `{ALWAYS[call.permission]}`"
            )
        return _own(call, alias or "")

    def alike(self, agent: str) -> Hashable:
        """The agent's tools and its hook's tables (the hook names the agent only in
        its reasons)."""
        found = self.agents.get(agent.replace("/", "-"))
        if found is None:
            return None
        hook = found.hook
        if isinstance(hook, Cases):
            return (found.tools, (hook.hook.contexts, tuple(hook.hook.tables.items())))
        return (found.tools, hook)

    def _hook(self, agent: Agent, call: Call) -> Verdict | None:
        if agent.hook is None:
            return None
        if agent.hook == UNKNOWN:
            return Verdict("allow", f"{agent.path}: a preToolUse hook promptc did not write")
        tool, argument = TOOL[call.permission]
        value = call.input
        if call.permission in ("read", "list", "edit"):
            value = calls.absolute(value)
        elif call.permission == "task":
            value = value.replace("/", "-")
        args = {argument: value} if argument else {}
        assert isinstance(agent.hook, Cases)
        found = copilot_script.decide(agent.hook, tool, args, call.delegated, calls.PROJECT)
        if found is None:
            return None
        return Verdict(found, f"{agent.path}: its preToolUse hook answers {found}")


def _own(call: Call, alias: str) -> Verdict:
    """Copilot CLI's own decision, where no hook decides."""
    if alias in PATHS and not calls.inside(calls.absolute(call.input)):
        return Verdict("ask", "Copilot CLI asks before touching files outside the project")
    if alias == "execute":
        return _shell(call.input)
    if alias in ASKS:
        return Verdict("ask", f"Copilot CLI asks before `{alias}` calls")
    return Verdict("allow", f"Copilot CLI runs `{alias}` calls")


def _shell(line: str) -> Verdict:
    found = shell.commands(line)
    local = not any(w.startswith(("/", "~")) or ".." in w for c in found for w in c.words[1:])
    if found and all(_read_only(c.words) for c in found) and local:
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


def _hook_of(front: Mapping[str, Any], known: dict[Table, Case]) -> Cases | str | None:
    """The agent's preToolUse hook as promptc writes it, UNKNOWN for any other
    hooks, None for none."""
    hooks = front.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict) or set(hooks) != {"preToolUse"}:
        return UNKNOWN
    entries = hooks["preToolUse"]
    if not isinstance(entries, list) or len(entries) != 1 or not isinstance(entries[0], dict):
        return UNKNOWN
    entry = entries[0]
    script = entry.get("bash")
    if entry.get("type") != "command" or not isinstance(script, str) or "cwd" in entry:
        return UNKNOWN
    hook = copilot_script.parse(script)
    return UNKNOWN if hook is None else hook.cases(calls.HOME, known)


def load(files: Mapping[str, str]) -> Copilot:
    agents: dict[str, Agent] = {}
    known: dict[Table, Case] = {}  # each table read once (Hook.cases)
    for rel in sorted(files):  # each text read in turn, not all at once
        if not (rel.startswith(".github/agents/") and rel.endswith(".md")):
            continue
        text = files[rel]
        if text.startswith("---\n"):
            front = loader.safe_load(text[4:].split("\n---", 1)[0])
            if not isinstance(front, dict):
                continue
            name = front.get("name") or rel.rsplit("/", 1)[-1].split(".", 1)[0]
            listed = front.get("tools")
            if isinstance(listed, str):
                listed = [listed]
            tools = ALL if listed is None or "*" in listed else frozenset(map(_alias, listed))
            offered = front.get("infer") is not False
            agents[str(name)] = Agent(tools, rel, offered, _hook_of(front, known))
    return Copilot(agents)
