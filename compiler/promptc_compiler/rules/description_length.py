"""Descriptions that are empty, too short to route by, or longer than runtimes accept.

The description is how a runtime decides when to use an agent, skill or
command: OpenCode shows it in the task tool, Claude Code routes on it. The
Agent Skills format caps it at 1024 characters.

Options:
    min (integer, default 20): shorter descriptions are reported.
    max (integer, default 1024): longer descriptions are reported.

Fails:
    description: Helper
Passes:
    description: Reviews diffs for bugs and missing tests. Use after code changes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Project

ID = "description-length"
DEFAULT_LEVEL = "warning"
STAGE = False
OPTIONS: dict[str, Any] = {
    "min": {"type": "integer", "minimum": 0, "default": 20},
    "max": {"type": "integer", "minimum": 1, "default": 1024},
}


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    for spec in (*project.agents.values(), *project.modes.values()):
        text = spec.meta.get("description")
        if not isinstance(text, str):
            continue  # missing or mistyped: the schema stage reports it
        pos = spec.where("description")
        size = len(text.strip())
        if size < options["min"]:
            yield Problem(
                *pos,
                f"description is {_characters(size)}; write at "
                f"least {options['min']} saying when to use it",
                path=spec.source.path,
            )
        elif size > options["max"]:
            yield Problem(
                *pos,
                f"description is {_characters(size)}; the limit is {options['max']}",
                path=spec.source.path,
            )


def _characters(size: int) -> str:
    return f"{size} character" if size == 1 else f"{size} characters"
