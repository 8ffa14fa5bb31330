"""Agent ids (file names under specs/agents/) must be lowercase words joined by hyphens.

The id becomes the OpenCode agent name and the Claude Code `name`. Claude Code
skips names with a `:` or a leading `-`; capitals and spaces give ids a person
cannot type after `@`. Subfolders are allowed (`team/reviewer`); each part is
checked.

Options: none.

Fails:
    specs/agents/Code Reviewer.md
Passes:
    specs/agents/code-reviewer.md
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from compiler.diagnostics import Problem
from compiler.project import Project

ID = "agent-id"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}

_PART = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    for ident, spec in project.agents.items():
        bad = [part for part in ident.split("/") if not _PART.match(part)]
        if bad:
            yield Problem(
                1,
                1,
                f"agent id '{ident}' is not lowercase-hyphen "
                f"(rename the file, e.g. '{_suggest(ident)}.md')",
                path=spec.source.path,
            )


def _suggest(ident: str) -> str:
    parts = (re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in ident.split("/"))
    return "/".join(parts)
