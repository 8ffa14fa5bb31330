"""Skill and agent files for the skill rules' tests."""

from __future__ import annotations

A = "specs/agents/a.md"
S = "specs/skills/{}/SKILL.md"


def skill(name: str, extra: str = "") -> str:
    """A SKILL.md whose `name` is at line 2, column 7; `extra` frontmatter lines from line 4."""
    return f"---\nname: {name}\ndescription: A skill for the tests.\n{extra}---\nBody.\n"


def skill_map(*entries: str) -> str:
    """A subagent's frontmatter whose `skill` map holds `entries`, the first at line 7."""
    lines = "\n".join(f"    {e}" for e in entries)
    return (
        f"description: Reads the code and reports.\nmode: subagent\npermission:\n  skill:\n{lines}"
    )
