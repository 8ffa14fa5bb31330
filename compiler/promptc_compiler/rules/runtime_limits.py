"""Agents and modes that Copilot CLI, Gemini CLI or Codex would not load, or would run otherwise.

Reported only for the configured `copilot`, `gemini` and `codex` targets,
for the agents and modes each writes:

- both: two ids that become one name (`team/reviewer` and `team-reviewer`
  are both `team-reviewer`), so one file would overwrite the other;
- Copilot CLI: an agent body over 30,000 characters, GitHub's limit for a
  custom agent's prompt;
- Gemini CLI: an agent name that is not a slug (`^[a-z0-9-_]+$`) or starts
  with `_`, or an agent without a description, which Gemini refuses or
  skips; `${name}` in an agent body, which Gemini fills from the agent's
  inputs, refusing to run the agent when one is missing; `!{` or `@{` in a
  mode body, which Gemini would run as a shell command or replace with a
  file's text.
- Codex CLI: a role whose description is blank, which Codex 0.171 refuses
  to load (its `targets.codex.description`, else the spec's).

Bodies are read as composed for the run's lint target (the first configured
target): branch on `target` only where it changes none of these.

Options: none.

Fails (with `[tool.promptc.targets.gemini]` configured):
    specs/agents/Code Reviewer.md
    Usa ${PROJECT_ROOT} como raíz.
Passes:
    specs/agents/code-reviewer.md
    Usa la raíz del proyecto.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Session, Spec, by_spec
from promptc_compiler.runtimes import configured
from promptc_compiler.runtimes.translations import Translated

ID = "runtime-limits"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]:
    return by_spec(project, session(project, options))


def session(project: Translated, _options: Mapping[str, Any]) -> Session:
    found = (runtime.limits(project) for runtime in configured(project.config))
    return _Limits([limits for limits in found if limits is not None])


class _Limits:
    """Every configured runtime's limits, spec by spec."""

    def __init__(self, sessions: Sequence[Session]) -> None:
        self.sessions = sessions

    def spec(self, spec: Spec) -> Iterator[Problem]:
        for limits in self.sessions:
            yield from limits.spec(spec)

    def end(self) -> Iterator[Problem]:
        for limits in self.sessions:
            yield from limits.end()
