"""Agent ids (file names under specs/agents/) must be lowercase words joined by hyphens.

The id becomes the OpenCode agent name and the Claude Code `name`. Claude Code
skips names with a `:` or a leading `-`; capitals and spaces give ids a person
cannot type after `@`. Subfolders are allowed (`team/reviewer`); each part is
checked.

Options:
    underscores (boolean, default false): `_` may also join the words
        (`code_reviewer`), as Codex and Gemini CLI name agents: `promptc
        import` proposes it for a folder whose agents are named so, which keeps
        every name, and every reference to it (a Codex `agent_type`, a
        delegation in a body), as the runtime knew it.

Fails:
    specs/agents/Code Reviewer.md
Passes:
    specs/agents/code-reviewer.md
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Project

ID = "agent-id"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {
    "underscores": {
        "type": "boolean",
        "default": False,
        "description": "`_` may also join the words of an id (snake_case)",
    }
}

_PART = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_SNAKE_PART = re.compile(r"^[a-z0-9]+([-_][a-z0-9]+)*$")


def valid(ident: str, underscores: bool = False) -> bool:
    """Every part of the id is lowercase words joined by `-` (or `_` too)."""
    part = _SNAKE_PART if underscores else _PART
    return all(part.match(p) for p in ident.split("/"))


def proposal(idents: Iterable[str]) -> dict[str, Any] | None:
    """The options `promptc import` proposes for ids as a runtime named them:
    `underscores` when some need it and it is enough."""
    idents = list(idents)
    if all(valid(i) for i in idents) or not all(valid(i, True) for i in idents):
        return None
    return {"underscores": True}


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    part = _SNAKE_PART if options.get("underscores") else _PART
    for ident, spec in project.agents.items():
        bad = [p for p in ident.split("/") if not part.match(p)]
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
