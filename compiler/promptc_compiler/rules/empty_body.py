"""Agents and modes whose body (after composition) is empty.

An agent's body is its whole system prompt and a mode's body is the command
template: an empty one is almost always a file cut short.

Options: none.

Fails:
    ---
    description: Reviews diffs for bugs.
    ---
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Project, Session, Spec, by_spec

ID = "empty-body"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    return by_spec(project, session(project, options))


def session(project: Project, options: Mapping[str, Any]) -> Session:
    return _Empty()


class _Empty:
    def spec(self, spec: Spec) -> Iterator[Problem]:
        if not spec.body.strip():
            yield Problem(
                spec.source.body_line,
                1,
                "body is empty: nothing to send to the model",
                path=spec.source.path,
            )

    def end(self) -> Iterator[Problem]:
        return iter(())
