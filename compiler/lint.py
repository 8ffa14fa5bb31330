"""Lint: run every enabled rule over a Project and stamp id and severity on its problems.

Rules that read composed bodies run as sessions (project.Session), every
session on one spec before the next spec, so each body is composed once for
all of them; the others run over the whole project.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from compiler import rules
from compiler.diagnostics import Diagnostic, Problem, Severity
from compiler.project import Project, Session, Spec, specs


def run_rules(project: Project, *, sessions: bool = True) -> Iterator[Diagnostic]:
    """Every rule's diagnostics; without `sessions`, the caller runs SpecRules itself
    (api runs them as it emits each body)."""
    for rule_id, rule, level, options in _enabled(project):
        if not hasattr(rule, "session"):  # those run in SpecRules
            yield from _stamped(project, rule_id, level, rule.check(project, options))
    if sessions:
        by_spec = SpecRules(project)
        for spec in specs(project):
            yield from by_spec.check(spec)
        yield from by_spec.end()


class SpecRules:
    """The enabled rules that read composed bodies, as sessions over one project."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.sessions: list[tuple[str, Severity, Session]] = []
        for rule_id, rule, level, options in _enabled(project):
            start = getattr(rule, "session", None)
            if start is not None:
                self.sessions.append((rule_id, level, start(project, options)))

    def check(self, spec: Spec) -> Iterator[Diagnostic]:
        for rule_id, level, session in self.sessions:
            yield from _stamped(self.project, rule_id, level, session.spec(spec))

    def end(self) -> Iterator[Diagnostic]:
        for rule_id, level, session in self.sessions:
            yield from _stamped(self.project, rule_id, level, session.end())


def _enabled(project: Project) -> Iterator[tuple[str, rules.Rule, Severity, Mapping[str, Any]]]:
    """(id, module, level, options) of every rule the config turns on."""
    for rule_id, rule in rules.RULES.items():
        settings = project.config.rules.get(rule_id)
        if not rule.STAGE and settings is not None and settings.level is not None:
            yield rule_id, rule, settings.level, settings.options


def _stamped(
    project: Project, rule_id: str, level: Severity, problems: Iterable[Problem]
) -> Iterator[Diagnostic]:
    config = project.config
    for problem in problems:
        if problem.path is None:
            raise ValueError(f"rule {rule_id} reported a problem without a path")
        yield Diagnostic(
            config.display(problem.path),
            problem.line,
            problem.column,
            rule_id,
            level,
            problem.message,
            problem.hint,
            problem.fix,
        )
