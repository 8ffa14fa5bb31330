"""The library API: lint, build and check a bundle. Each returns a Result; the
command line only turns Results into output and exit codes.

Pipeline: load -> validate -> compose -> lint -> emit -> write/check. Every
stage reports diagnostics; one run reports every problem it can find. Nothing
is written while any error exists.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from compiler import targets as target_registry
from compiler.bundle import Bundle, load_bundle
from compiler.compose import compose_bundle
from compiler.config import Config
from compiler.diagnostics import Diagnostic, Problem, Severity, has_errors
from compiler.lint import run_rules
from compiler.loader import SourceFile
from compiler.project import Project, make_project
from compiler.resources import load_schema
from compiler.validate import check_frontmatter
from compiler.writer import ManifestError, Outcome, apply, plan, read_manifest


@dataclass(frozen=True)
class Result:
    diagnostics: tuple[Diagnostic, ...]
    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    files: Mapping[str, bytes] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not has_errors(list(self.diagnostics))


class _Collector:
    """Turns stage findings into diagnostics with display paths.

    A hostile or broken file can hold 100,000 problems of one kind. Past
    _INTAKE findings of one rule in one file, only their positions and
    severities are kept (spilled), so time and memory stay bounded; `items`
    still holds at least one finding of every file and rule, each rule's
    findings sharing one severity, so it tells where errors are.
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self.items: list[Diagnostic] = []
        self._shown: dict[Path, str] = {}  # display names, worked out once per file
        self._taken: Counter[tuple[str, str]] = Counter()
        self._spilled: dict[tuple[str, str], dict[tuple[int, int], Severity]] = {}

    def add(
        self, rule: str, path: Path, problem: Problem, severity: Severity | None = None
    ) -> None:
        settings = self.config.rules.get(rule)
        level = severity or (settings.level if settings else Severity.ERROR)
        if level is None:
            return
        where = problem.path or path
        shown = self._shown.get(where)
        if shown is None:
            shown = self._shown[where] = self.config.display(where)
        if self._full(shown, rule, problem.line, problem.column, level):
            return
        self.items.append(
            Diagnostic(
                shown,
                problem.line,
                problem.column,
                rule,
                level,
                problem.message,
                problem.hint,
                problem.fix,
            )
        )

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        for d in diagnostics:
            if not self._full(d.path, d.rule, d.line, d.column, d.severity):
                self.items.append(d)

    def _full(self, path: str, rule: str, line: int, column: int, level: Severity) -> bool:
        """Count a finding; True (and keep only its position) once its file and rule are full."""
        key = (path, rule)
        self._taken[key] += 1
        if self._taken[key] <= _INTAKE:
            return False
        self._spilled.setdefault(key, {}).setdefault((line, column), level)
        return True

    def result(self, **kwargs: object) -> Result:
        shown = _capped(_ordered(set(self.items)), self._spilled)
        return Result(tuple(shown), **kwargs)  # type: ignore[arg-type]


# Past this many diagnostics of one rule in one file, one summary stands for
# the rest: output stays readable and the outcome (the worst severity) is kept.
MAX_PER_FILE_RULE = 100
_INTAKE = 10 * MAX_PER_FILE_RULE

_ORDER = operator.attrgetter("path", "line", "column", "rule")


def _ordered(items: Iterable[Diagnostic]) -> list[Diagnostic]:
    # Diagnostic's own order as a tuple key: compared in C, not field by field.
    return sorted(items, key=_ORDER)


def _capped(
    ordered: list[Diagnostic], spilled: Mapping[tuple[str, str], Mapping[tuple[int, int], Severity]]
) -> list[Diagnostic]:
    groups: dict[tuple[str, str], list[Diagnostic]] = {}
    for d in ordered:
        groups.setdefault((d.path, d.rule), []).append(d)
    if all(len(group) <= MAX_PER_FILE_RULE for group in groups.values()) and not spilled:
        return ordered
    shown: list[Diagnostic] = []
    for (path, rule), group in groups.items():
        shown.extend(group[:MAX_PER_FILE_RULE])
        hidden = {(d.line, d.column): d.severity for d in group[MAX_PER_FILE_RULE:]}
        kept = {(d.line, d.column) for d in group}  # a spilled duplicate is not counted
        for position, level in spilled.get((path, rule), {}).items():
            if position not in kept:
                hidden.setdefault(position, level)
        if hidden:
            line, column = min(hidden)
            severity = max(hidden.values(), key=lambda s: s.rank)
            message = (
                f"{len(hidden):,} more [{rule}] problems in this file not shown "
                f"(promptc shows the first {MAX_PER_FILE_RULE} of each rule per file)"
            )
            shown.append(Diagnostic(path, line, column, rule, severity, message))
    return _ordered(shown)


def _analyse(config: Config, target: str) -> tuple[_Collector, Bundle, Project]:
    out = _Collector(config)
    bundle = load_bundle(config)
    for rule, path, problem in bundle.findings:
        out.add(rule, path, problem)
    for source in bundle.sources():
        for rule, problem in source.findings:
            out.add(rule, source.path, problem)
    for kind, items in (
        ("agent", bundle.agents),
        ("mode", bundle.modes),
        ("fragment", bundle.fragments),
    ):
        for source in items.values():
            for problem in _validate(kind, source):
                out.add("schema", source.path, problem)
    composition = compose_bundle(bundle, target)
    for rule, path, problem in composition.findings:
        out.add(rule, path, problem)
    project = make_project(config, bundle, composition, target)
    out.extend(run_rules(project))
    return out, bundle, project


def _validate(kind: str, source: SourceFile) -> Iterator[Problem]:
    if not source.ok:
        return
    if source.frontmatter is None:
        if kind != "fragment":
            yield Problem(
                1,
                1,
                f"{kind} has no frontmatter: start the file with a `---` block "
                "holding at least `description`",
            )
        return
    yield from check_frontmatter(source.frontmatter, load_schema(kind))


def _lint_target(config: Config) -> str:
    return next(iter(config.targets), "opencode")


def lint(config: Config) -> Result:
    collector, _, _ = _analyse(config, _lint_target(config))
    return collector.result()


def _render(config: Config, names: Iterable[str]) -> tuple[_Collector, dict[str, bytes]]:
    """Lint once, then compose and emit every selected target in memory."""
    names = list(names)
    collector, bundle, project = _analyse(config, _lint_target(config))
    files: dict[str, bytes] = {}
    for name in names:
        target = target_registry.TARGETS[name]
        if name != project.target:
            composition = compose_bundle(bundle, name)
            project = make_project(config, bundle, composition, name)
        for rel, text in target.emit(project, config.targets.get(name, {})).items():
            files[f"{name}/{rel}"] = text.encode("utf-8")
    return collector, files


def selected_targets(config: Config, only: Iterable[str] = ()) -> list[str]:
    chosen = list(only) or list(config.targets)
    return sorted(chosen)


def build(
    config: Config, *, only: Iterable[str] = (), force: bool = False, check: bool = False
) -> Result:
    collector, files = _render(config, selected_targets(config, only))
    if has_errors(collector.items):
        return collector.result(files=files)
    if check:
        return _check_output(config, collector, files)
    try:
        outcome = apply(config.out, files, force=force)
    except (ManifestError, OSError) as exc:
        collector.add("write", config.out, Problem(1, 1, _os_message(exc)))
        return collector.result(files=files)
    _conflicts(config, collector, outcome)
    return collector.result(written=outcome.written, removed=outcome.removed, files=files)


def check(config: Config, *, only: Iterable[str] = ()) -> Result:
    """Lint plus `build --check`: for hooks and CI."""
    return build(config, only=only, check=True)


def _check_output(config: Config, collector: _Collector, files: Mapping[str, bytes]) -> Result:
    try:
        todo = plan(config.out, files, read_manifest(config.out))
    except ManifestError as exc:
        collector.add("stale-output", config.out, Problem(1, 1, str(exc)))
        return collector.result(files=files)
    except OSError as exc:  # an unreadable output folder: say so, never a traceback
        where = Path(exc.filename) if isinstance(exc.filename, str) else config.out
        message = f"cannot read the output: {exc.strerror or exc}"
        collector.add("stale-output", where, Problem(1, 1, message))
        return collector.result(files=files)
    for rel in todo.missing:
        collector.add(
            "stale-output",
            config.out / rel,
            Problem(1, 1, "generated file is missing; run promptc build"),
        )
    for rel in todo.write:
        collector.add(
            "stale-output",
            config.out / rel,
            Problem(1, 1, "generated file is stale; run promptc build"),
        )
    for rel in todo.remove:
        collector.add(
            "stale-output",
            config.out / rel,
            Problem(1, 1, "file is no longer generated; run promptc build"),
        )
    for conflict in todo.conflicts:
        collector.add("stale-output", config.out / conflict.path, Problem(1, 1, conflict.message))
    return collector.result(files=files)


def _conflicts(config: Config, collector: _Collector, outcome: Outcome) -> None:
    for conflict in outcome.errors:
        collector.add("write", config.out / conflict.path, Problem(1, 1, conflict.message))


def _os_message(exc: Exception) -> str:
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        return f"cannot write the output: {exc.strerror or exc}{where}"
    return str(exc)
