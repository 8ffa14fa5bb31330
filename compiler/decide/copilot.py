"""How GitHub Copilot CLI (@github/copilot 1.0.102) decides a call, from the files promptc wrote.

Read from a `copilot` output (`.github/agents/*.agent.md`). An agent has the
tools its `tools` list names (every tool without a list), aliases resolved
as Copilot does (`read` -> view, `search` -> grep and glob, `edit` -> edit and
create, `execute` -> the shell, `agent` -> task, `web` -> fetch); every agent
has `skill` and its todo list whatever it says. Then Copilot's own
behaviour, as a user meets it interactively (permission rules are
command-line flags, not agent-file keys, so a bundle carries none):

- reading and searching run; editing, the shell and fetching ask; paths
  outside the project ask;
- `task` starts any custom agent.

In non-interactive runs (`copilot -p`) an ask is refused "because no
interactive user response was available": the oracle counts it as asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import yaml

from compiler import calls
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
ALWAYS = {"skill": "skill", "todowrite": "sql"}
ASKS = frozenset({"edit", "execute", "web"})
PATHS = frozenset({"read", "edit"})
ALL = frozenset(ALIAS.values())
_NAMES = {"view": "read", "grep": "search", "glob": "search", "create": "edit"}
_NAMES |= {"shell": "execute", "bash": "execute", "task": "agent", "fetch": "web"}
# The fetch tool's own name (its status line reads `case "web_fetch": case "fetch"`).
_NAMES |= {"web_fetch": "web"}


@dataclass(frozen=True)
class Agent:
    tools: frozenset[str]
    path: str


@dataclass(frozen=True)
class Copilot:
    agents: Mapping[str, Agent]

    def decide(self, call: Call) -> Verdict:
        agent = self.agents.get(call.agent.replace("/", "-"))
        if agent is None:
            return Verdict("deny", "no agent file: Copilot CLI has no such agent")
        if call.permission in ALWAYS:
            return Verdict("allow", f"Copilot CLI gives every agent `{ALWAYS[call.permission]}`")
        alias = ALIAS.get(call.permission)
        if alias is None or alias not in agent.tools:
            return Verdict("deny", f"{agent.path}: `tools` has no tool for `{call.permission}`")
        if alias == "agent" and call.input.replace("/", "-") not in self.agents:
            return Verdict("deny", "task: no such agent")
        if alias in PATHS and not calls.inside(calls.absolute(call.input)):
            return Verdict("ask", "Copilot CLI asks before touching files outside the project")
        if alias in ASKS:
            return Verdict("ask", f"Copilot CLI asks before `{alias}` calls")
        return Verdict("allow", f"Copilot CLI runs `{alias}` calls")


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
            agents[str(name)] = Agent(tools, rel)
    return Copilot(agents)
