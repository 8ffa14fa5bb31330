"""Positional `$1`, `$2`... in a mode body mean different arguments in OpenCode and Claude Code.

Reported only when a `claude` or `claude-plugin` target is configured. In an
OpenCode command `$1` is the first argument; in Claude Code (since 2.1.19)
`$N` counts from 0, so the same `$1` is the second argument there. A mode
body serves both, so a `$N` written once means two different things. Branch
per target (the `target` variable is `opencode` for one and `claude` for the
other) so that each runtime gets its own number, or use `$ARGUMENTS`. A `$N`
counts as branched when the line holding it is not the same in the mode
composed for OpenCode and for Claude Code.

Options: none.

Fails:
    Arregla primero $1, luego el resto: $ARGUMENTS
Passes:
    Arregla: $ARGUMENTS
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from promptc_compiler.base.body_syntax import POSITIONAL
from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.source import SOURCE
from promptc_compiler.core.project import Project
from promptc_compiler.runtimes.claude.agents import NAME, TARGETS

ID = "positional-arguments"
DEFAULT_LEVEL = "warning"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Project, _options: Mapping[str, Any]) -> Iterator[Problem]:
    targets = project.config.targets
    if not any(name in targets for name in TARGETS):
        return
    opencode, claude_modes = (_modes(project, target) for target in (SOURCE, NAME))
    for ident, spec in project.modes.items():
        shared = set(opencode.get(ident, "").split("\n")) & set(
            claude_modes.get(ident, "").split("\n")
        )
        for line in sorted(line for line in shared if POSITIONAL.search(line)):
            yield from _report(project, spec.source.path, spec.source.text, line)


def _modes(project: Project, target: str) -> Mapping[str, str]:
    """The modes composed for `target`: the project's own composition when the
    project is composed for that target (another target's renders every body
    again)."""
    if project.target == target:
        return project.composition.modes
    return project.composition.for_target(target).modes


def _report(project: Project, path: Path, text: str, composed: str) -> Iterator[Problem]:
    """Each `$N` of a composed line, where its source line stands (mode, else fragment)."""
    where = _find(path, text, composed)
    if where is None:
        for fragment in project.bundle.fragments.values():
            where = _find(fragment.path, fragment.text, composed)
            if where is not None:
                break
    if where is None:
        where = (path, 1, composed)
    source, number, line = where
    for match in POSITIONAL.finditer(line):
        n = int(match.group(1))
        yield Problem(
            number,
            match.start() + 1,
            f"`${n}` is argument {n} in OpenCode but argument {n + 1} in Claude Code, which "
            "counts from 0; branch on `target` or use `$ARGUMENTS`",
            path=source,
        )


def _find(path: Path, text: str, composed: str) -> tuple[Path, int, str] | None:
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if line == composed:
            return path, number, line
    for number, line in enumerate(lines, start=1):
        if POSITIONAL.search(line) and line.strip() and line.strip() in composed:
            return path, number, line
    return None
