"""The library API: lint, build and check a bundle. Each returns a Result; the
command line only turns Results into output and exit codes.

Pipeline: load -> validate -> compose -> lint -> emit -> write/check. Every
stage reports diagnostics; one run reports every problem it can find. Nothing
is written while any error exists.
"""

from __future__ import annotations

import functools
import gc
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from compiler import delegation
from compiler import permissions as permission_model
from compiler import runtime as runtime_model
from compiler import targets as target_registry
from compiler.bundle import Bundle, load_bundle
from compiler.compose import compose_bundle
from compiler.config import Config
from compiler.delegation import Graph
from compiler.diagnostics import Diagnostic, Problem, Severity, has_errors
from compiler.errors import PromptcError, UsageError
from compiler.lint import run_rules
from compiler.loader import SourceFile
from compiler.permissions import Decision, Rule
from compiler.project import Project, make_project
from compiler.resources import load_schema
from compiler.runtime import Agent, Runtime
from compiler.validate import check_emitted, check_frontmatter, output_schema
from compiler.writer import ManifestError, Outcome, apply, plan, read_manifest

if TYPE_CHECKING:
    from compiler import importer  # only `promptc import` loads it


@dataclass(frozen=True)
class Result:
    """What a run found and produced: diagnostics, files written or removed, files in memory."""

    diagnostics: tuple[Diagnostic, ...]
    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    files: Mapping[str, bytes] = field(default_factory=dict)
    fixed: tuple[str, ...] = ()  # source files `--fix` changed

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
        self._shown: dict[Path, str] = {}
        self._taken: Counter[tuple[str, str]] = Counter()
        self._spilled: dict[tuple[str, str], dict[tuple[int, int], Severity]] = {}

    def display(self, path: Path) -> str:
        """config.display, once per path in a run (it resolves symlinks, a system call each)."""
        shown = self._shown.get(path)
        if shown is None:
            shown = self._shown[path] = self.config.display(path)
        return shown

    def add(
        self, rule: str, path: Path, problem: Problem, severity: Severity | None = None
    ) -> None:
        settings = self.config.rules.get(rule)
        level = severity or (settings.level if settings else Severity.ERROR)
        if level is None:
            return
        where = problem.path or path
        shown = self.display(where)
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


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _collector_paused(run: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run with Python's cycle collector paused, then restore it.

    Reference counting frees what a run drops; the collector would only
    rescan the run's growing heap again and again (a sixth of the time at
    10,000 agents, with the same peak memory without it).
    """

    @functools.wraps(run)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return run(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return paused


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
    for skill in bundle.skills.values():  # supporting files take any frontmatter
        for problem in _validate("skill", skill.main):
            out.add("schema", skill.main.path, problem)
    composition = compose_bundle(bundle, target, out.display)
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


def _compose_as(name: str) -> str:
    """The target name a target's text is composed for (claude-plugin reads as claude)."""
    target = target_registry.TARGETS.get(name)
    return str(getattr(target, "COMPOSE_AS", name))


@_collector_paused
def lint(config: Config, *, fix: bool = False) -> Result:
    """Lint the bundle; with `fix`, first apply the fixes rules offer until none is left."""
    fixed, failed = _fix(config) if fix else ((), ())
    collector, bundle, project = _analyse(config, _lint_target(config))
    for name in sorted({_compose_as(name) for name in config.targets} - {project.target}):
        # Text that only this target sees can hold its own errors.
        for rule, path, problem in compose_bundle(bundle, name, config.display).findings:
            collector.add(rule, path, problem)
    collector.extend(failed)
    return collector.result(fixed=fixed)


def _fix(config: Config) -> tuple[tuple[str, ...], tuple[Diagnostic, ...]]:
    """Fix the sources: the files changed, and an error for each that could not be written."""
    from compiler.fix import fix_until_stable

    outcome = fix_until_stable(lambda: lint(config).diagnostics)
    failed = tuple(
        Diagnostic(path, 1, 1, "write", Severity.ERROR, message) for path, message in outcome.failed
    )
    return outcome.changed, failed


@_collector_paused
def _render(config: Config, names: Iterable[str]) -> tuple[_Collector, dict[str, bytes]]:
    """Lint once, then compose and emit every selected target in memory."""
    names = list(names)
    collector, bundle, project = _analyse(config, _lint_target(config))
    files: dict[str, bytes] = {}
    for name in names:
        target = target_registry.TARGETS[name]
        compose_as = _compose_as(name)
        if compose_as != project.target:
            composition = compose_bundle(bundle, compose_as, collector.display)
            # Text that only this target sees can hold its own errors.
            for rule, path, problem in composition.findings:
                collector.add(rule, path, problem)
            project = make_project(config, bundle, composition, compose_as)
        emitted = target.emit(project, config.targets.get(name, {}))
        _check_emitted(collector, project, name, emitted)
        # Each text goes once encoded: holding every file twice is 20 MB per 1,000 agents.
        pending = dict(emitted)
        del emitted
        for rel in list(pending):
            files[f"{name}/{rel}"] = pending.pop(rel).encode("utf-8")
    return collector, files


def render(config: Config, *, only: Iterable[str] = ()) -> Result:
    """Lint, compose and emit the selected targets in memory; write nothing."""
    collector, files = _render(config, selected_targets(config, only))
    return collector.result(files=files)


def selected_targets(config: Config, only: Iterable[str] = ()) -> list[str]:
    chosen = list(only) or list(config.targets)
    return sorted(chosen)


@_collector_paused
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


def build_cached(
    config: Config, *, only: Iterable[str] = (), force: bool = False, check: bool = False
) -> Result:
    """build(), storing its result in the cache (compiler.cache) for the next run.

    The inputs are hashed before and after the run; the result is stored only
    when they agree, so an edit made while promptc ran is never hidden.
    """
    import os

    from compiler import cache

    only = tuple(only)
    if not config.cache or cache.disabled(os.environ):
        return build(config, only=only, force=force, check=check)
    layout = cache.Layout(
        config.root,
        config.source,
        config.specs,
        config.fragments,
        config.out,
        tuple(sorted(config.targets)),
    )
    mode = cache_mode(check=check, force=force)
    before = cache.key_before_run(layout, mode, only, os.environ)
    result = build(config, only=only, force=force, check=check)
    # A failed write (a full disk, a hand-edited file) is worth retrying for real.
    failed_write = any(d.rule == "write" for d in result.diagnostics)
    if (
        before is not None
        and not failed_write
        and cache.key(layout, mode, only, os.environ) == before
    ):
        cache.store(layout, before, result.diagnostics, list(result.files))
    return result


def cache_mode(*, check: bool, force: bool) -> str:
    """What the cache keys a run's flags by: `check` and `build` results differ."""
    return ("check" if check else "build") + (" --force" if force else "")


def check(
    config: Config, *, only: Iterable[str] = (), fix: bool = False, cache: bool = False
) -> Result:
    """Lint plus `build --check`: for hooks and CI. With `fix`, fix the sources first.
    With `cache`, store the result for the next run (never with `fix`)."""
    fixed, failed = _fix(config) if fix else ((), ())
    run = build_cached if cache and not fix else build
    result = run(config, only=only, check=True)
    return replace(result, diagnostics=tuple(sorted({*result.diagnostics, *failed})), fixed=fixed)


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


def _check_emitted(
    collector: _Collector, project: Project, target: str, emitted: Mapping[str, str]
) -> None:
    """Every emitted file against its format's schema, before anything is written.

    A failure is a promptc bug; files whose spec already has errors are skipped,
    since those errors explain them.
    """
    config = collector.config
    failed = {d.path for d in collector.items if d.severity is Severity.ERROR}
    for rel, text in emitted.items():
        origin = _origin(project, target, rel)
        shown = collector.display(origin) if origin is not None else None
        if shown in failed:
            continue
        source = f"; generated from {shown}" if shown else ""
        for problem in check_emitted(target, rel, text):
            message = f"{problem.message}{source}. This is a promptc bug: please report it"
            collector.add("emit", config.out / target / rel, replace(problem, message=message))


def _origin(project: Project, target: str, rel: str) -> Path | None:
    """The spec an emitted agent, command or skill file was generated from."""
    schema = output_schema(target, rel) or ""
    if "skill" in schema:
        name = rel.rsplit("/", 2)[-2]
        skill = project.skills.get(name)
        return skill.spec.source.path if skill else None
    specs = project.agents if "agent" in schema else project.modes if "command" in schema else {}
    # The longest id the path ends with, at a `/`: `team/reviewer`, else `reviewer`.
    parts = rel.removesuffix(".md").split("/")
    for start in range(len(parts)):
        spec = specs.get("/".join(parts[start:]))
        if spec is not None:
            return spec.source.path
    return None


# Permissions and delegation: `promptc can` and `promptc graph`.


@dataclass(frozen=True)
class Answer:
    """What OpenCode decides for one (agent, permission, input), and which rule decided."""

    agent: Agent
    permission: str
    input: str
    as_subagent: bool
    decision: Decision
    matching: tuple[Rule, ...]  # every rule that matched, in order; the last decided


def opencode_runtime(config: Config) -> tuple[Runtime, tuple[Diagnostic, ...]]:
    """The agents OpenCode would load from this bundle, and the problems that
    make an answer about them unreliable (files that do not load, permission
    values OpenCode refuses)."""
    out = _Collector(config)
    bundle = load_bundle(config)
    for source in bundle.agents.values():
        for rule, problem in source.findings:
            if rule == "syntax":
                out.add(rule, source.path, problem)
    composition = compose_bundle(bundle, "opencode")
    project = make_project(config, bundle, composition, "opencode")
    runtime = runtime_model.resolve(project)
    for agent in runtime.bundle_agents():
        for problem in agent.problems:
            out.add("schema", problem.path or config.root, problem)
    for problem in runtime.problems:
        out.add("schema", problem.path or config.root, problem)
    return runtime, out.result().diagnostics


def can(
    config: Config,
    agent: str,
    permission: str,
    text: str = "*",
    *,
    as_subagent: bool | None = None,
) -> Answer:
    runtime, blocking = opencode_runtime(config)
    found = runtime.agents.get(agent)
    if found is None:
        _missing_agent(config, runtime, blocking, agent)
    assert found is not None
    mine = [d for d in blocking if found.spec and d.path == config.display(found.spec.source.path)]
    if mine or runtime.problems:
        raise PromptcError(_blocked(f"cannot answer for `{agent}`", mine or list(blocking)))
    subagent = found.runs_as_subagent if as_subagent is None else as_subagent
    rules = found.effective(subagent)
    return Answer(
        found,
        permission,
        text,
        subagent,
        permission_model.evaluate(rules, permission, text),
        tuple(permission_model.matching(rules, permission, text)),
    )


def _missing_agent(
    config: Config, runtime: Runtime, blocking: tuple[Diagnostic, ...], agent: str
) -> None:
    from compiler.suggest import did_you_mean

    path = config.specs / "agents" / f"{agent}.md"
    broken = [d for d in blocking if d.path == config.display(path)]
    if broken:
        raise PromptcError(_blocked(f"agent `{agent}` does not load", broken))
    if path.is_file():
        raise UsageError(
            f"agent `{agent}` is disabled (`disable: true`): OpenCode does not load it"
        )
    hint = did_you_mean(agent, runtime.agents)
    raise UsageError(f"no agent `{agent}`{hint}")


def _blocked(what: str, diagnostics: Iterable[Diagnostic]) -> str:
    lines = [d.as_text() for d in diagnostics]
    return "\n".join([f"{what}; fix these first:", *lines])


def delegation_graph(config: Config) -> Graph:
    """Who can start whom; refuses when an agent does not load (never a silent gap)."""
    runtime, blocking = opencode_runtime(config)
    if blocking:
        raise PromptcError(_blocked("cannot draw the delegation graph", blocking))
    return delegation.graph(runtime)


# Adopting an existing bundle: `promptc import`.


@dataclass(frozen=True)
class Imported:
    """What `promptc import` did: the plan, the files written, and the lint of the result."""

    plan: importer.Plan
    written: tuple[str, ...]
    refused: tuple[str, ...]  # existing files left alone (no --force): nothing was written
    config_written: str | None  # the promptc.toml written, when there was no config
    lint: Result | None

    @property
    def ok(self) -> bool:
        notes_ok = not has_errors(list(self.plan.notes))
        return notes_ok and not self.refused and (self.lint is None or self.lint.ok)


def import_bundle(kind: str, folder: Path, config: Config, *, force: bool = False) -> Imported:
    """Import an OpenCode or Claude Code folder into the bundle `config` describes,
    then lint the result. Writes nothing when an existing spec or fragment would be
    replaced (unless `force`) or when a body would not compose back to its text."""
    from compiler import importer
    from compiler.config import load_config

    plan = importer.plan_import(kind, folder, config)
    if any("compose back" in d.message for d in plan.notes):
        return Imported(plan, (), (), None, None)
    refused = () if force else tuple(importer.conflicts(plan, config.root))
    if refused:
        return Imported(plan, (), refused, None, None)
    importer.write(plan, config.root)
    written_config = None
    if config.source is None:
        toml = config.root / "promptc.toml"
        toml.write_text(importer.config_toml(plan.config), encoding="utf-8")
        written_config = config.display(toml)
        config = load_config(toml)
    written = tuple(config.display(config.root / rel) for rel in sorted(plan.files))
    return Imported(plan, written, (), written_config, lint(config))
