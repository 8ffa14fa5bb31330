"""How Gemini CLI (@google/gemini-cli 0.61.0) decides a call, from the files promptc wrote.

Read from a `gemini` output (`.gemini/agents/*.md`). Gemini CLI has no
primary agents: an OpenCode primary is not written, and its calls have no
agent to make them. A subagent (`invoke_agent` from the main session) has the
tools its `tools` list names (all of them without a list); each tool then
decides by Gemini's default policy, as a user meets it interactively:

- reading, listing and searching files (`read_file`, `read_many_files`,
  `list_directory`, `glob`, `grep_search`) run, inside the workspace only
  (a path outside it is refused);
- `run_shell_command`, `write_file`, `replace` and `web_fetch` ask; file
  tools refuse paths outside the workspace, the shell does not;
- `google_web_search`, `write_todos`, `ask_user` and `activate_skill` run;
- a subagent starts no other agent.

In non-interactive runs (`gemini -p`) a tool that would ask is not offered at
all; the oracle (tests/oracles/gemini.py) counts that as the ask it stands for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import yaml

from compiler import calls
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
ASKS = frozenset({"run_shell_command", "write_file", "replace", "web_fetch"})
WORKSPACE_ONLY = frozenset(
    {"read_file", "read_many_files", "list_directory", "write_file", "replace"}
)
ALL = frozenset(tool for tools in TOOLS.values() for tool in tools)
# Old tool names a `tools` list may still use (TOOL_LEGACY_ALIASES in the
# bundle: the tool registry resolves them to the current tool).
LEGACY = {"search_file_content": "grep_search"}


@dataclass(frozen=True)
class Agent:
    tools: frozenset[str]
    path: str


@dataclass(frozen=True)
class Gemini:
    agents: Mapping[str, Agent]

    def decide(self, call: Call) -> Verdict:
        agent = self.agents.get(call.agent.replace("/", "-"))
        if agent is None:
            return Verdict("deny", "no agent file: Gemini CLI has no such agent")
        if call.permission == "task":
            return Verdict("deny", "a Gemini CLI subagent starts no agents")
        offered = [t for t in TOOLS.get(call.permission, ()) if t in agent.tools]
        if not offered:
            return Verdict("deny", f"{agent.path}: `tools` has no tool for `{call.permission}`")
        tool = offered[0]
        if tool in WORKSPACE_ONLY and not calls.inside(calls.absolute(call.input)):
            return Verdict("deny", f"`{tool}` refuses paths outside the workspace")
        if tool in ASKS:
            return Verdict("ask", f"Gemini CLI's default policy asks before `{tool}`")
        return Verdict("allow", f"Gemini CLI's default policy runs `{tool}`")


def load(files: Mapping[str, str]) -> Gemini:
    agents: dict[str, Agent] = {}
    for rel, text in sorted(files.items()):
        if rel.startswith(".gemini/agents/") and rel.endswith(".md") and text.startswith("---\n"):
            front = yaml.safe_load(text[4:].split("\n---", 1)[0])
            if isinstance(front, dict) and isinstance(front.get("name"), str):
                listed = front.get("tools")
                tools = (
                    ALL
                    if listed is None or "*" in listed
                    else frozenset(LEGACY.get(tool, tool) for tool in listed)
                )
                agents[front["name"]] = Agent(tools, rel)
    return Gemini(agents)
