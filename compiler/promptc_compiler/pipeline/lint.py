"""Lint: run every enabled rule over a Project and stamp id and severity on its problems.

Each rule's `[rules.<id>]` table is checked against the rule's own options
here (`settings`), where the rules are known; the config checks only its own
keys.

Rules that read composed bodies run as sessions (project.Session), every
session on one spec before the next spec, so each body is composed once for
all of them; the others run over the whole project.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from promptc_compiler import rules
from promptc_compiler.base.diagnostics import Diagnostic, Problem, Severity
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.core.config import Config, freeze
from promptc_compiler.core.project import Project, Session, Spec, specs
from promptc_compiler.runtimes.translations import Translated

LEVELS = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "off": None}


@dataclass(frozen=True)
class RuleSettings:
    """A rule's level (None when off) and its options with defaults filled in."""

    level: Severity | None
    options: Mapping[str, Any]
    # Findings kept on purpose (promptc_compiler.core.suppress): the `suppress` entries of its
    # table.
    suppress: tuple[Mapping[str, Any], ...] = ()


Settings = Mapping[str, RuleSettings]


def settings(config: Config) -> dict[str, RuleSettings]:
    """Every rule's level and options: its `[rules.<id>]` table checked against
    the rule's options (a ConfigError at the table's line), defaults filled in."""
    tables = config.rules
    for rule_id in tables:
        if rule_id not in rules.RULES:
            hint = did_you_mean(rule_id, rules.RULES)
            raise config.fail(("rules", rule_id), f"unknown rule '{rule_id}'{hint}")
    found: dict[str, RuleSettings] = {}
    for rule_id, module in rules.RULES.items():
        raw = dict(tables.get(rule_id, {}))
        config.check_table(("rules", rule_id), raw, rules.options_schema(module))
        level_name = raw.pop("level", module.DEFAULT_LEVEL)
        if rules.fixed_level(module) and level_name != module.DEFAULT_LEVEL:
            raise config.fail(("rules", rule_id, "level"), f"'{rule_id}' cannot be reconfigured")
        kept = tuple(freeze(entry) for entry in raw.pop("suppress", ()))
        options = {**rules.option_defaults(module), **raw}
        found[rule_id] = RuleSettings(LEVELS[level_name], freeze(options), kept)
    return found


def unsuppressible(rule_id: str) -> str | None:
    """Why a suppression cannot name `rule_id` (None: it can)."""
    module = rules.RULES.get(rule_id)
    if module is None:
        return f"suppress[{rule_id}]: no rule `{rule_id}`{did_you_mean(rule_id, rules.RULES)}"
    if rules.fixed_level(module):
        return (
            f"suppress[{rule_id}]: [{rule_id}] findings cannot be suppressed: its errors "
            "guard what promptc writes (fix the cause instead)"
        )
    return None


def run_rules(
    project: Translated, *, sessions: bool = True, settled: Settings | None = None
) -> Iterator[Diagnostic]:
    """Every rule's diagnostics; without `sessions`, the caller runs SpecRules itself
    (api runs them as it emits each body). `settled`: the run's `settings`."""
    settled = settings(project.config) if settled is None else settled
    for rule_id, rule, level, options in _enabled(settled):
        if not hasattr(rule, "session"):  # those run in SpecRules
            yield from _stamped(project, rule_id, level, rule.check(project, options))
    if sessions:
        by_spec = SpecRules(project, settled)
        for spec in specs(project):
            yield from by_spec.check(spec)
        yield from by_spec.end()
    project.translations.rules_done()


class SpecRules:
    """The enabled rules that read composed bodies, as sessions over one project."""

    def __init__(self, project: Translated, settled: Settings | None = None) -> None:
        self.project = project
        self.sessions: list[tuple[str, Severity, Session]] = []
        settled = settings(project.config) if settled is None else settled
        for rule_id, rule, level, options in _enabled(settled):
            start = getattr(rule, "session", None)
            if start is not None:
                self.sessions.append((rule_id, level, start(project, options)))

    def check(self, spec: Spec) -> Iterator[Diagnostic]:
        for rule_id, level, session in self.sessions:
            yield from _stamped(self.project, rule_id, level, session.spec(spec))

    def end(self) -> Iterator[Diagnostic]:
        for rule_id, level, session in self.sessions:
            yield from _stamped(self.project, rule_id, level, session.end())


def _enabled(settled: Settings) -> Iterator[tuple[str, rules.Rule, Severity, Mapping[str, Any]]]:
    """(id, module, level, options) of every rule the config turns on."""
    for rule_id, rule in rules.RULES.items():
        found = settled.get(rule_id)
        if not rule.STAGE and found is not None and found.level is not None:
            yield rule_id, rule, found.level, found.options


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
