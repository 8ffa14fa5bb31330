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
from typing import Any, NamedTuple

from promptc_compiler import rules
from promptc_compiler.base.diagnostics import Diagnostic, Problem, Severity
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.core.config import Config, freeze
from promptc_compiler.core.project import Project, Session, specs
from promptc_compiler.runtimes.translations import Translated

LEVELS = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "off": None}


class RuleSettings(NamedTuple):
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


def run_rules(project: Translated, settled: Settings) -> Iterator[Diagnostic]:
    """Every enabled rule's diagnostics (`settled`: the run's `settings`): the rules
    over the whole project first, then the sessions, spec by spec."""
    enabled = list(_enabled(settled))
    for rule_id, rule, level, options in enabled:
        if not hasattr(rule, "session"):
            yield from _stamped(project, rule_id, level, rule.check(project, options))
    sessions: list[tuple[str, Severity, Session]] = [
        (rule_id, level, rule.session(project, options))
        for rule_id, rule, level, options in enabled
        if hasattr(rule, "session")
    ]
    for spec in specs(project):
        for rule_id, level, session in sessions:
            yield from _stamped(project, rule_id, level, session.spec(spec))
    for rule_id, level, session in sessions:
        yield from _stamped(project, rule_id, level, session.end())
    project.translations.rules_done()


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
