"""Lint: run every enabled rule over a Project and stamp id and severity on its problems."""

from __future__ import annotations

from collections.abc import Iterator

from compiler import rules
from compiler.diagnostics import Diagnostic
from compiler.project import Project


def run_rules(project: Project) -> Iterator[Diagnostic]:
    config = project.config
    for rule_id, rule in rules.RULES.items():
        settings = config.rules.get(rule_id)
        if rule.STAGE or settings is None or settings.level is None:
            continue
        for problem in rule.check(project, settings.options):
            if problem.path is None:
                raise ValueError(f"rule {rule_id} reported a problem without a path")
            yield Diagnostic(
                config.display(problem.path),
                problem.line,
                problem.column,
                rule_id,
                settings.level,
                problem.message,
                problem.hint,
                problem.fix,
            )
