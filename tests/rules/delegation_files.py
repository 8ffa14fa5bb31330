"""A bundle of agents that delegate to each other, for the delegation rules' tests.

craftsman and foreman are primaries; smith, painter, scout and sage are subagents that
start nobody. craftsman may start smith, painter and scout; foreman scout, and sage if
the user approves.
"""

from __future__ import annotations

from tests.rules.conftest import agent

CRAFTSMAN = """
description: Implements what the user asks, delegating to smiths.
mode: primary
permission:
  task:
    "*": deny
    smith: allow
    painter: allow
    scout: allow
"""
FOREMAN = """
description: Plans the work and hands out research.
mode: primary
permission:
  task:
    "*": deny
    scout: allow
    sage: ask
"""


def sub(description: str, extra: str = "") -> str:
    """A subagent file: its description, then any further frontmatter lines."""
    return agent(f"description: {description}\nmode: subagent\n{extra}".strip())


TEAM = {
    "specs/agents/craftsman.md": agent(CRAFTSMAN),
    "specs/agents/foreman.md": agent(FOREMAN),
    "specs/agents/smith.md": sub("Writes code in any language."),
    "specs/agents/painter.md": sub("Designs user interfaces."),
    "specs/agents/scout.md": sub("Reads the code and reports."),
    "specs/agents/sage.md": sub("Weighs architecture trade-offs."),
}
