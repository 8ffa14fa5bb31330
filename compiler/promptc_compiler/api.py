"""The orchestration: lint, build and check a bundle, each run returning a Result;
the command line only turns Results into output and exit codes, and
promptc_compiler.public offers these runs to programs.

Pipeline: load -> validate -> compose -> lint -> emit -> write/check. Every
stage reports diagnostics; one run reports every problem it can find. Nothing
is written while any error exists.
"""

from __future__ import annotations

import functools
import operator
import os
import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from promptc_compiler.base import exit_codes
from promptc_compiler.base.diagnostics import Diagnostic, Problem, Severity, has_errors
from promptc_compiler.base.errors import ConfigError, PromptcError, UsageError
from promptc_compiler.base.source import SOURCE
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.core import suppress
from promptc_compiler.core.bundle import Bundle, load_bundle
from promptc_compiler.core.compose import Composition, compose_bundle
from promptc_compiler.core.config import Config, ConfigErrors, load_config
from promptc_compiler.core.loader import KeptFiles, SourceFile
from promptc_compiler.core.project import make_project
from promptc_compiler.core.validate import Schemas, check_frontmatter
from promptc_compiler.permissions import delegation, shell
from promptc_compiler.permissions import ruleset as permission_model
from promptc_compiler.permissions import runtime as runtime_model
from promptc_compiler.permissions.calls import (
    PATH_TOOLS,
    RANK,
    Call,
    Verdict,
    absolute,
    inside,
    outside_folders,
)
from promptc_compiler.permissions.delegation import Graph
from promptc_compiler.permissions.ruleset import Decision, Rule
from promptc_compiler.permissions.runtime import Agent, Runtime
from promptc_compiler.pipeline import cache as result_cache
from promptc_compiler.pipeline import emitter, importer, writer
from promptc_compiler.pipeline import lint as lint_rules
from promptc_compiler.pipeline.fix import fix_until_stable
from promptc_compiler.pipeline.lint import run_rules
from promptc_compiler.pipeline.proof import Proof
from promptc_compiler.pipeline.proof import lines as proof_lines
from promptc_compiler.pipeline.writer import ManifestError, Planner, apply, load_manifest, owned
from promptc_compiler.runtimes import (
    FILE_SCHEMAS,
    MODELS,
    TARGET_NAMES,
    TARGETS,
    check_options,
    compose_as,
)
from promptc_compiler.runtimes.translations import Translated


@dataclass(frozen=True)
class Result:
    """What a run found and produced: diagnostics, files written or removed, files in memory."""

    diagnostics: tuple[Diagnostic, ...]
    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    files: Mapping[str, bytes] = field(default_factory=dict)  # not kept by `check`
    fixed: tuple[str, ...] = ()  # source files `--fix` changed
    # Every generated path under Config.base, sorted: `<target>/<path>`, or in the
    # root layout the path from the project root (promptc_compiler.pipeline.emitter.place).
    generated: tuple[str, ...] = ()
    # The hash of each generated file as the run left or found it in the output
    # folder (None: missing), where it knows: the cache records them unread.
    digests: Mapping[str, str | None] = field(default_factory=dict)
    # What the translations' proofs say (promptc_compiler.pipeline.proof): every accepted
    # widening first, then one line per target with a decision model.
    summaries: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not has_errors(list(self.diagnostics))

    def exit_code(self, *, strict: bool = False) -> int:
        """The command's exit code: 1 when an error (a warning too under `strict`)
        fails the run or `--fix` changed files, else 0 (promptc_compiler.base.exit_codes)."""
        return exit_codes.of_run(self.diagnostics, fixed=self.fixed, strict=strict)


class Kept:
    """What a long-running program (the language server, watch mode) keeps from
    one run for the next: the files loaded (promptc_compiler.core.loader.KeptFiles).
    Everything kept is keyed by the content it came from, so a run with a Kept
    reports exactly what a run without one reports."""

    def __init__(self) -> None:
        self.files = KeptFiles()


class _Collector:
    """Turns stage findings into diagnostics with display paths."""

    def __init__(self, config: Config, kept: Kept | None = None) -> None:
        self.config = config
        self.kept = kept
        self.settings = _checked_settings(config)
        self.schemas = Schemas(FILE_SCHEMAS)  # the run's validators
        self.items: list[Diagnostic] = []
        self._failed: set[str | None] = set()  # display paths with an error
        self.proofs: list[Proof] = []
        self.sources: dict[str, SourceFile] = {}  # display path -> file, for `contains`
        # Plain functions over the run's data, not bound methods: a cycle through
        # the collector would keep a run's objects alive after it returns.
        self.suppressor = suppress.Suppressor(
            lint_rules.unsuppressible,
            functools.partial(_relative, config.root),
            functools.partial(_line, self.sources, config.text),
        )
        self.suppressor.add(_configured_suppressions(config, self.settings))

    def display(self, path: Path) -> str:
        return self.config.display(path)

    def add(
        self, rule: str, path: Path, problem: Problem, severity: Severity | None = None
    ) -> None:
        settings = self.settings.get(rule)
        level = severity or (settings.level if settings else Severity.ERROR)
        if level is not None:
            where, p = self.display(problem.path or path), problem
            self.extend(
                [
                    Diagnostic(
                        where, p.line, p.column, rule, level, p.message, p.hint, p.fix, p.detail
                    )
                ]
            )

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        for d in diagnostics:
            # Suppressed as it arrives: a build decides on what is left.
            if self.suppressor.covers(d):
                continue
            if d.severity is Severity.ERROR:
                self._failed.add(d.path)
            self.items.append(d)

    def failed(self, shown: str | None) -> bool:
        """Whether a file (by display path) has an error so far."""
        return shown in self._failed

    def proved(self, proof: Proof) -> None:
        self.proofs.append(proof)

    def suppressed(self, source: SourceFile) -> None:
        """Note a file's inline suppressions (and its text, for configured ones)."""
        self.sources[self.display(source.path)] = source
        if self.config.inline_suppressions:
            self.suppressor.add(suppress.inline(source))

    def result(self, **kwargs: object) -> Result:
        for found in self.suppressor.unused():
            path, line, column = found.origin
            level = Severity.ERROR if found.error else None
            self.add(suppress.RULE, path, Problem(line, column, found.message), level)
        shown = _capped(_ordered(set(self.items)))
        summaries = proof_lines(self.proofs)
        return Result(tuple(shown), summaries=summaries, **kwargs)  # type: ignore[arg-type]


def _relative(root: Path, shown: str) -> str:
    """A diagnostic's path (or an absolute one) relative to the project, as globs see it."""
    full = os.path.join(os.getcwd(), shown)
    return Path(os.path.relpath(full, root)).as_posix()


def _line(sources: Mapping[str, SourceFile], config_text: str, shown: str, line: int) -> str:
    """A line of a bundle file (by display path), else of the config."""
    source = sources.get(shown)
    lines = (source.text if source else config_text).splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _configured_suppressions(
    config: Config, settings: lint_rules.Settings
) -> Iterator[suppress.Suppression]:
    for rule_id, found in settings.items():
        if found.suppress and config.source is not None:
            where = (config.source, *config.where(("rules", rule_id, "suppress")))
            yield from suppress.configured(rule_id, found.suppress, where)


def _checked_settings(config: Config) -> lint_rules.Settings:
    """The rules' settings, after the targets' and rules' tables are checked
    where they are known: the problems of both at once, a ConfigError at each
    table's line that ends the run before it reads a spec."""
    errors: list[ConfigError] = []
    settings: lint_rules.Settings = {}
    try:
        check_options(config)
    except ConfigError as exc:
        errors.append(exc)
    try:
        settings = lint_rules.settings(config)
    except ConfigError as exc:
        errors.append(exc)
    if errors:
        raise ConfigErrors.of(errors)
    return settings


# Past this many diagnostics of one rule in one file, one summary stands for
# the rest: output stays readable and the outcome (the worst severity) is kept.
MAX_PER_FILE_RULE = 100

_ORDER = operator.attrgetter("path", "line", "column", "rule")


def _ordered(items: Iterable[Diagnostic]) -> list[Diagnostic]:
    # Diagnostic's own order as a tuple key: compared in C, not field by field.
    return sorted(items, key=_ORDER)


def _capped(ordered: list[Diagnostic]) -> list[Diagnostic]:
    groups: dict[tuple[str, str], list[Diagnostic]] = {}
    for d in ordered:
        groups.setdefault((d.path, d.rule), []).append(d)
    if all(len(group) <= MAX_PER_FILE_RULE for group in groups.values()):
        return ordered
    shown: list[Diagnostic] = []
    for (path, rule), group in groups.items():
        shown.extend(group[:MAX_PER_FILE_RULE])
        hidden = group[MAX_PER_FILE_RULE:]
        if hidden:
            severity = max((d.severity for d in hidden), key=lambda s: s.rank)
            message = (
                f"{len(hidden):,} more [{rule}] problems in this file not shown "
                f"(promptc shows the first {MAX_PER_FILE_RULE} of each rule per file)"
            )
            first = hidden[0]
            shown.append(Diagnostic(path, first.line, first.column, rule, severity, message))
    return _ordered(shown)


def _analyse(out: _Collector, target: str) -> tuple[Bundle, Translated]:
    """Load, validate, compose and lint: the bundle and the project of `target`."""
    bundle = load_bundle(out.config, out.kept.files if out.kept else None)
    for rule, path, problem in bundle.findings:
        out.add(rule, path, problem)
    for source in bundle.sources():
        out.suppressed(source)
        for rule, problem in source.findings:
            out.add(rule, source.path, problem)
    # Skills' supporting files take any frontmatter.
    skills = {name: skill.main for name, skill in bundle.skills.items()}
    for kind, sources in (
        ("agent", bundle.agents),
        ("mode", bundle.modes),
        ("fragment", bundle.fragments),
        ("skill", skills),
    ):
        for source in sources.values():
            for problem in _validate(kind, source, out.schemas):
                out.add("schema", source.path, problem)
    composition = compose_bundle(bundle, target, TARGET_NAMES, out.display)
    project = Translated.of(make_project(out.config, bundle, composition, target))
    out.extend(run_rules(project, out.settings))
    _composed(out, composition)
    return bundle, project


def _composed(out: _Collector, composition: Composition) -> None:
    for rule, path, problem in composition.findings:
        out.add(rule, path, problem)


def _validate(kind: str, source: SourceFile, schemas: Schemas) -> Iterator[Problem]:
    """The file's schema problems as a `kind`."""
    if not source.ok:
        return
    if source.frontmatter is not None:
        yield from check_frontmatter(source.frontmatter, kind, schemas)
    elif kind != "fragment":
        message = f"{kind} has no frontmatter: start the file with a `---` block holding"
        yield Problem(1, 1, f"{message} at least `description`")


def _lint_target(config: Config) -> str:
    return next(iter(config.targets), SOURCE)


def lint(
    config: Config, *, fix: bool = False, cache: bool = False, kept: Kept | None = None
) -> Result:
    """Lint the bundle; with `fix`, first apply the fixes rules offer until none is left.
    With `cache`, the stored result when nothing changed, else the run's, stored for
    the next run (never with `fix`). With `kept`, reuse what the last run with it
    worked out from unchanged files."""
    if cache and not fix:
        return _cached(
            config,
            result_cache.mode("lint"),
            (),
            lambda run_kept: lint(config, kept=run_kept),
            outputs=False,
            kept=kept,
        )
    fixed, failed = _fix(config) if fix else ((), ())
    collector = _Collector(config, kept)
    _, project = _analyse(collector, _lint_target(config))
    for name in sorted({compose_as(name) for name in config.targets} - {project.target}):
        # Text that only this target sees can hold its own errors.
        _composed(collector, project.composition.for_target(name))
    collector.extend(failed)
    return collector.result(fixed=fixed)


def _fix(config: Config) -> tuple[tuple[str, ...], tuple[Diagnostic, ...]]:
    """Fix the sources: the files changed, and an error for each that could not be written."""
    outcome = fix_until_stable(lambda: lint(config).diagnostics)
    failed = tuple(
        Diagnostic(path, 1, 1, "write", Severity.ERROR, message) for path, message in outcome.failed
    )
    return outcome.changed, failed


def _render(
    config: Config, names: Iterable[str], kept: Kept | None = None
) -> tuple[_Collector, emitter.Files]:
    """Lint once, then compose and emit every selected target: the files by
    `<target>/<path>`."""
    collector = _Collector(config, kept)
    _, project = _analyse(collector, _lint_target(config))
    return collector, emitter.emit(collector, project, names)


def render(config: Config, *, only: Iterable[str] = ()) -> Result:
    """Lint, compose and emit the selected targets in memory; write nothing."""
    collector, files = _render(config, selected_targets(config, only))
    return collector.result(files=files, generated=tuple(sorted(files)))


def selected_targets(config: Config, only: Iterable[str] = ()) -> list[str]:
    return sorted(list(only) or config.targets)


def configured(config: Config, only: Iterable[str]) -> tuple[str, ...]:
    """`only`, when the config configures each of its targets; else a UsageError
    naming the first that it does not (`render` builds any target, for `can_on`)."""
    only = tuple(only)
    for name in only:
        if name not in config.targets:
            hint = did_you_mean(name, config.targets)
            raise UsageError(f"target '{name}' is not configured{hint}")
    return only


def build(
    config: Config,
    *,
    only: Iterable[str] = (),
    force: bool = False,
    check: bool = False,
    cache: bool = False,
    kept: Kept | None = None,
) -> Result:
    """Compose and emit the selected targets into the output folder (with `check`,
    compare instead and write nothing). With `cache`, the stored result when nothing
    changed, else the run's, stored for the next run; with `kept`, reuse what the
    last run with it worked out from unchanged files.
    A UsageError names a target in `only` the config does not configure."""
    only = configured(config, only)
    if cache:
        mode = result_cache.mode("check" if check else "build", force=force)
        return _cached(
            config,
            mode,
            only,
            lambda run_kept: build(config, only=only, force=force, check=check, kept=run_kept),
            kept=kept,
        )
    if check:
        return _check_output(config, only, kept)
    collector, files = _render(config, selected_targets(config, only), kept)
    if has_errors(collector.items):
        return collector.result(files=files, generated=tuple(sorted(files)))
    placed = emitter.place(config, files)
    generated = tuple(sorted(placed.files))
    try:
        outcome = apply(
            config.base,
            placed.files,
            force=force,
            only=only,
            area=config.area(),
            shared=placed.shared,
            owner=lambda path: emitter.owner(config, path),
        )
    except ManifestError as exc:
        collector.add("write", exc.path, Problem(1, 1, exc.message))
        return collector.result(files=files, generated=generated)
    except OSError as exc:
        collector.add("write", config.base, Problem(1, 1, _os_message(exc)))
        return collector.result(files=files, generated=generated)
    for conflict in outcome.errors:
        where = Problem(conflict.line, conflict.column, conflict.message)
        collector.add("write", config.base / conflict.path, where)
    return collector.result(
        written=outcome.written,
        removed=outcome.removed,
        files=files,
        generated=generated,
        digests=outcome.digests,
    )


def _cached(
    config: Config,
    mode: str,
    only: tuple[str, ...],
    run: Callable[[Kept | None], Result],
    *,
    outputs: bool = True,
    kept: Kept | None = None,
) -> Result:
    """The stored result of this very run when nothing it reads has changed; else
    run(kept), its result stored under the key of its inputs for the next run to find.

    The inputs are read once, for the key, and the run loads those very bytes
    (KeptFiles.read_ahead), so its result is the one for the key. What the
    run read itself (the config, a skill's supporting files) is hashed again
    after it (cache.unchanged); the result is stored only when all agree, so
    an edit made while promptc ran is never hidden. `outputs`: the result
    depends on the output folder too (build, check), which the entry then
    records. `kept`: what the last run worked out, as for build.
    """
    # In the root layout the output folder is the whole project, which an entry
    # would have to list and hash to be trusted: such runs are not cached.
    if not config.cache or config.at_root or result_cache.disabled(os.environ):
        return run(kept)
    read: dict[str, bytes] = {}
    key = result_cache.key(result_cache.layout(config), mode, only, os.environ, read)
    if key is None:  # a bundle that is never cached
        return run(kept)
    hit = result_cache.lookup(key)
    if hit is not None:
        return Result(hit.diagnostics, summaries=hit.summaries)
    kept = kept or Kept()
    kept.files.read_ahead(read, key.inputs)
    del read  # the loader holds each file's bytes only until it has loaded them
    result = run(kept)
    # A failed write (a full disk, a hand-edited file) is worth retrying for real.
    failed_write = any(d.rule == "write" for d in result.diagnostics)
    if not failed_write and result_cache.unchanged(key, kept.files.taken):
        generated = list(result.generated) if outputs else None
        result_cache.store(key, result.diagnostics, generated, result.digests, result.summaries)
    return result


def check(
    config: Config,
    *,
    only: Iterable[str] = (),
    fix: bool = False,
    cache: bool = False,
    kept: Kept | None = None,
) -> Result:
    """Lint plus `build --check`: for hooks and CI. With `fix`, fix the sources first.
    With `cache`, as for build (never with `fix`); `kept` as for build."""
    only = configured(config, only)  # before --fix rewrites anything
    fixed, failed = _fix(config) if fix else ((), ())
    result = build(config, only=only, check=True, cache=cache and not fix, kept=kept)
    return replace(result, diagnostics=tuple(sorted({*result.diagnostics, *failed})), fixed=fixed)


def _check_output(config: Config, only: tuple[str, ...], kept: Kept | None) -> Result:
    """`build --check`: every generated file of the targets `only` (all when empty)
    compared with the output folder."""
    names = selected_targets(config, only)
    collector, files = _render(config, names, kept)
    if has_errors(collector.items):
        return collector.result(generated=tuple(sorted(files)))
    placed = emitter.place(config, files)
    done = tuple(sorted(placed.files))
    try:
        manifest, keys = load_manifest(config.base)
        manifest = owned(manifest, only, lambda path: emitter.owner(config, path))
        planner = Planner(
            config.base,
            manifest,
            digests=True,
            area=config.area(),
            shared=placed.shared,
            keys={rel: found for rel, found in keys.items() if rel in manifest},
        )
        for rel in done:
            planner.add(rel, placed.files[rel])
        todo = planner.plan()
    except ManifestError as exc:
        collector.add("stale-output", exc.path, Problem(1, 1, exc.message))
        return collector.result(generated=done)
    except OSError as exc:
        where = Path(exc.filename) if isinstance(exc.filename, str) else config.base
        message = f"cannot read the output: {exc.strerror or exc}"
        collector.add("stale-output", where, Problem(1, 1, message))
        return collector.result(generated=done)
    stale = [
        *((rel, 1, 1, _stale(rel, placed.shared)) for rel in todo.write),
        *((rel, 1, 1, "generated file is missing; run promptc build") for rel in todo.missing),
        *((rel, 1, 1, "file is no longer generated; run promptc build") for rel in todo.remove),
        *((c.path, c.line, c.column, c.message) for c in todo.conflicts),
    ]
    for rel, line, column, message in stale:
        collector.add("stale-output", config.base / rel, Problem(line, column, message))
    # A refused output folder (a symlink) is not walked for files it holds.
    extra = emitter.unmanaged(config, names, {*done, *todo.remove}) if not planner.refused else ()
    for rel in extra:
        runtime = TARGETS[emitter.owner(config, rel)].RUNTIME
        message = f"promptc did not generate this file, and {runtime} loads it from here"
        collector.add("unmanaged-file", config.base / rel, Problem(1, 1, message))
    return collector.result(generated=done, digests=planner.digests or {})


def _stale(rel: str, shared: Mapping[str, tuple[str, ...]]) -> str:
    if rel in shared:  # the user's own keys are never drift: only promptc's are
        return "keys promptc manages in this file are stale; run promptc build"
    return "generated file is stale; run promptc build"


def _os_message(exc: OSError) -> str:
    where = f" ({exc.filename})" if exc.filename else ""
    return f"cannot write the output: {exc.strerror or exc}{where}"


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
    # A command line of several commands: each one and its decision, as OpenCode
    # asks about them (the strictest decides the line; `matching` is its rules).
    commands: tuple[tuple[str, Decision], ...] = ()
    why: str = ""  # OpenCode's own reason, when no rule decides

    def exit_code(self, *, expect: str | None = None) -> int:
        """`promptc can`'s exit code: 0 allow, 10 ask, 20 deny; with `expect`,
        0 when the decision is that one, else 1 (promptc_compiler.base.exit_codes)."""
        return exit_codes.of_decision(self.decision.action, expect)


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
    composition = compose_bundle(bundle, SOURCE, TARGET_NAMES)
    project = make_project(config, bundle, composition, SOURCE)
    runtime = runtime_model.resolve(project)
    for agent in runtime.bundle_agents():
        for problem in agent.problems:
            out.add("schema", problem.path or config.root, problem)
    for problem in runtime.problems:
        out.add("schema", problem.path or config.root, problem)
    return runtime, out.result().diagnostics


def can(
    config: Config, agent: str, permission: str, text: str = "*", *, as_subagent: bool | None = None
) -> Answer:
    """What OpenCode decides when `agent` asks `permission` for `text` (a command, a
    path, an agent name; `*` the whole tool), and the rules that decide it. A
    command line is split as OpenCode splits it; the strictest command decides.
    `as_subagent`: the session the agent runs in (default: its `mode`). A
    UsageError for an unknown agent or a command line bash refuses (empty, or an
    operator without its command); a PromptcError when the bundle's errors make
    the answer unreliable."""
    if permission == "bash":
        _runnable(text)
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
    folders = _outside(config, permission, text)
    asked = [c.text for c in shell.asked(text)] if permission == "bash" else [text]
    if not asked and not folders and not permission_model.disabled_tools(["bash"], rules):
        # No command OpenCode asks about (an assignment, a folder change, a
        # comment): its bash tool runs the line unasked.
        why = "no command on the line is one OpenCode asks about: it runs the line unasked"
        return Answer(found, permission, text, subagent, Decision("allow", None), (), why=why)
    if (asked == [text] or not asked) and not folders:
        decision = permission_model.evaluate(rules, permission, text)
        matching = permission_model.matching(rules, permission, text)
        return Answer(found, permission, text, subagent, decision, tuple(matching))
    # OpenCode asks about each folder outside the project first, then about each
    # command (or the path itself): the strictest answer decides the call.
    questions = [(EXTERNAL, posixpath.join(folder, "*")) for folder in folders]
    questions += [(permission, c) for c in asked]
    commands = tuple(
        (_question(p, q), permission_model.evaluate(rules, p, q)) for p, q in questions
    )
    at = min(range(len(commands)), key=lambda i: RANK[commands[i][1].action])
    matching = permission_model.matching(rules, *questions[at])
    decision = commands[at][1]
    return Answer(found, permission, text, subagent, decision, tuple(matching), commands)


EXTERNAL = "external_directory"


def _runnable(line: str) -> None:
    """A UsageError for a command line no answer fits: an empty one, or one that
    bash refuses (`npm test &&`), for which OpenCode asks about an empty command."""
    if not line.strip():
        raise UsageError("the command line is empty: give the command to ask about")
    problem = shell.missing(line)
    if problem is not None:
        raise UsageError(
            f"bash refuses `{line.strip()}`: {problem} (a syntax error, so none of it "
            "runs); give the whole command line"
        )


def _question(permission: str, text: str) -> str:
    """How the answer names one question of a call: a command as it is, a folder
    outside the project as the permission OpenCode asks about it."""
    return f"{EXTERNAL} {text}" if permission == EXTERNAL else text


def _outside(config: Config, permission: str, text: str) -> list[str]:
    """The folders outside the project that OpenCode asks `external_directory`
    about for this call (promptc_compiler.permissions.calls on the project's real folders)."""
    project = Path(os.path.realpath(config.root)).as_posix()
    home = Path.home().as_posix()
    if permission == "bash":
        return outside_folders(text, project, home)
    if permission in PATH_TOOLS and text != "*":
        full = absolute(text, project, home)
        return [] if inside(full, project) else [posixpath.dirname(full)]
    return []


@dataclass(frozen=True)
class TargetAnswer:
    """What one runtime decides, from the files a target writes, beside OpenCode's answer."""

    target: str
    runtime: str  # the runtime's name
    verdict: Verdict
    opencode: Answer
    # A command line of several commands: the runtime's answer for each one
    # alone, so that the answer can name the command that decides the line.
    commands: tuple[tuple[str, Verdict], ...] = ()

    def exit_code(self, *, expect: str | None = None) -> int:
        """As Answer.exit_code, for the runtime's decision."""
        return exit_codes.of_decision(self.verdict.action, expect)


def can_on(
    config: Config,
    target: str,
    agent: str,
    permission: str,
    text: str = "*",
    *,
    as_subagent: bool | None = None,
) -> TargetAnswer:
    """What the runtime of `target` decides for the call, from the files the target
    writes (built in memory), by its decision model (promptc_compiler.runtimes)."""
    opencode = can(config, agent, permission, text, as_subagent=as_subagent)
    found = MODELS.get(target)
    if found is None:
        known = ", ".join(sorted(MODELS))
        raise UsageError(f"no decision model for target `{target}` (one of: {known})")
    result = render(config, only=[target])
    # The files are what is asked about, widenings and all: only other errors stop it.
    errors = [
        d
        for d in result.diagnostics
        if d.severity is Severity.ERROR and d.rule not in ("wider-translation", "lost-tool")
    ]
    if errors:
        raise PromptcError(_blocked(f"cannot build the {target} files", errors))
    prefix = f"{target}/"
    files = {
        path[len(prefix) :]: data.decode("utf-8")
        for path, data in result.files.items()
        if path.startswith(prefix)
    }
    runtime, load = found
    model = load(files)
    verdict = model.decide(Call(agent, permission, text, opencode.as_subagent))
    commands = tuple(
        (command, model.decide(Call(agent, permission, command, opencode.as_subagent)))
        for command, _ in opencode.commands
    )
    return TargetAnswer(target, runtime, verdict, opencode, commands)


def _missing_agent(
    config: Config, runtime: Runtime, blocking: tuple[Diagnostic, ...], agent: str
) -> None:
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
    # In the root layout: the runtime's files the import read, now the manifest's,
    # which the next build replaces (promptc_compiler.pipeline.writer.adopt).
    adopted: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        notes_ok = not has_errors(list(self.plan.notes))
        return notes_ok and not self.refused and (self.lint is None or self.lint.ok)

    def exit_code(self, *, strict: bool = False) -> int:
        """`promptc import`'s exit code: 1 when nothing was imported (a file in the
        way, a body that would not compose back) or when the import's notes or the
        lint of the result fail it (warnings too under `strict`), else 0."""
        if self.lint is None or self.refused:
            return exit_codes.PROBLEMS
        notes = exit_codes.of_run(self.plan.notes, strict=strict)
        return notes or self.lint.exit_code(strict=strict)


def import_bundle(kind: str, folder: Path, config: Config, *, force: bool = False) -> Imported:
    """Import an OpenCode or Claude Code folder into the bundle `config` describes,
    then check the result as `build --check --target <runtime>` would, writing no
    output: the lint, and what the runtime's translation keeps (a tool a build would
    take from an agent is said here, not only at the first build). Writes nothing
    when an existing spec or fragment would be replaced (unless `force`) or when a
    body would not compose back to its text."""
    if kind not in importer.LAYOUTS:
        raise UsageError(f"no import from `{kind}`{did_you_mean(kind, importer.LAYOUTS)}")
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
        text = importer.config_toml(plan.config)
        if config.root in (folder.resolve(), *folder.resolve().parents):
            # The runtime's folders are this project's own: the build writes back
            # where the runtime reads them (docs/import.md).
            text = 'layout = "root"\n' + text
        toml.write_text(text, encoding="utf-8")
        written_config = config.display(toml)
        config = load_config(toml)
    written = tuple(config.display(config.root / rel) for rel in sorted(plan.files))
    # The imported runtime's target only: its proof is what the import must say.
    checked = render(config, only=[kind]) if kind in config.targets else lint(config)
    adopted = _adopt(config, checked) if kind in config.targets else ()
    return Imported(plan, written, (), written_config, checked, adopted)


def _adopt(config: Config, rendered: Result) -> tuple[str, ...]:
    """The runtime files the import read, which the build of their target
    generates anew: promptc's from now on, so the first build replaces them
    rather than refusing files it did not write (the root layout only)."""
    if not config.at_root or not rendered.ok:
        return ()
    placed = emitter.place(config, rendered.files)
    return writer.adopt(config.base, placed.files, area=config.area(), shared=placed.shared)


def named_sources(config: Config, files: Iterable[Path]) -> frozenset[str]:
    """How diagnostics name each of `files` (`promptc lint FILE...`): each must be a spec
    or a fragment of this bundle, else a UsageError naming it."""
    root = Path(os.path.realpath(config.root))
    folders = [Path(os.path.realpath(folder)) for folder in (config.specs, config.fragments)]
    named = set()
    for file in files:
        # The folder resolved, not the name, as Config.display names files.
        where = Path(os.path.realpath(file.parent)) / file.name
        if not where.is_relative_to(root):
            raise UsageError(f"{file.as_posix()}: outside the project ({root.as_posix()})")
        if not any(where.is_relative_to(folder) for folder in folders):
            shown = " or ".join(f"{config.display(folder)}/" for folder in folders)
            raise UsageError(f"{file.as_posix()}: not a spec or fragment (those are under {shown})")
        named.add(config.display(where))
    return frozenset(named)
