"""Agents for the `task` rules' tests, and an agent file whose task map is given."""

from __future__ import annotations

from tests.rules.conftest import agent

A = "specs/agents/a.md"
CREW = {
    "specs/agents/scout.md": agent("description: Reads the code and reports.\nmode: subagent"),
    "specs/agents/go-smith.md": agent("description: Writes Go code when asked.\nmode: subagent"),
    "specs/agents/reviewer.md": agent("description: Reviews the diff and reports.\nmode: subagent"),
    "specs/agents/foreman.md": agent("description: Plans the work for the team.\nmode: primary"),
    "specs/agents/off.md": agent(
        "description: Switched off for now, kept.\nmode: subagent\ndisable: true"
    ),
}


def task_map(*entries: str) -> str:
    """A primary's frontmatter whose `task` map holds `entries`, the first at line 7."""
    lines = "\n".join(f"    {e}" for e in entries)
    return f"description: Starts other agents.\nmode: primary\npermission:\n  task:\n{lines}"


def starter(*entries: str) -> dict[str, str]:
    """CREW, and specs/agents/a.md starting agents through `entries`."""
    return {A: agent(task_map(*entries)), **CREW}
