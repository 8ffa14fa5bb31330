"""Emit: every target's files, each with the rules that read its spec's body
and a check of the file itself against its format's schema.

Bodies go one at a time: the rules that read composed bodies (lint.SpecRules)
check each body of the lint target right when a target emits it, and the
file goes to the sink before the next body is composed, so a bundle of 10,000
agents never holds its composed bodies (compose.Texts); the sink decides what
it keeps of the files.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from compiler import targets as target_registry
from compiler.bundle import Bundle
from compiler.compose import compose_bundle
from compiler.config import Config
from compiler.diagnostics import Diagnostic, Problem
from compiler.lint import Settings, SpecRules
from compiler.project import Project, Spec, make_project
from compiler.validate import Schemas, check_emitted, output_schema

Sink = Callable[[str, bytes], None]


class Collector(Protocol):
    """What emitting reports to (api._Collector): findings with display paths."""

    config: Config
    settings: Settings  # the run's rule settings (lint.settings)
    schemas: Schemas  # the run's validators

    def display(self, path: Path) -> str: ...

    def add(self, rule: str, path: Path, problem: Problem) -> None: ...

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None: ...

    def failed(self, shown: str | None) -> bool: ...


def compose_as(name: str) -> str:
    """The target name a target's text is composed for (claude-plugin reads as claude)."""
    target = target_registry.TARGETS.get(name)
    return str(getattr(target, "COMPOSE_AS", name))


class Step:
    """One run's emit step: `run()` emits every file of the selected targets
    (the lint target's first), `end()` runs the body rules of the specs no
    target emitted and the rules' end."""

    def __init__(
        self,
        collector: Collector,
        bundle: Bundle,
        lint_project: Project,
        names: Iterable[str],
        sink: Sink,
    ) -> None:
        self.collector = collector
        self.bundle = bundle
        self.lint = lint_project
        self.sink = sink
        # The lint target's files first: each body's rules have run before any
        # other target's file from that spec is checked (a spec with errors is not).
        self.names = sorted(names, key=lambda name: compose_as(name) != lint_project.target)
        self.by_spec = SpecRules(lint_project, collector.settings)
        self.projects = {lint_project.target: lint_project}  # by the target composed for
        self.checked: set[str] = set()  # "agent:<id>" / "mode:<id>" of the lint specs checked

    def project(self, composed_for: str) -> Project:
        """The project a target's files come from, composed for `composed_for`."""
        project = self.projects.get(composed_for)
        if project is None:
            config = self.collector.config
            composition = compose_bundle(self.bundle, composed_for, self.collector.display)
            project = make_project(config, self.bundle, composition, composed_for)
            self.projects[composed_for] = project
        return project

    def run(self) -> None:
        for name in self.names:
            self.target(name)

    def target(self, name: str) -> None:
        project = self.project(compose_as(name))
        options = self.collector.config.targets.get(name, {})
        for rel, text in target_registry.TARGETS[name].files(project, options):
            spec = _origin(project, name, rel)
            if spec is not None:
                self._check_body(_counterpart(spec, project, self.lint))
            problems = _check_emitted(self.collector, project, name, rel, text, spec)
            for problem in problems:
                self.collector.add("emit", self.collector.config.out / name / rel, problem)
            self.sink(f"{name}/{rel}", text.encode("utf-8"))

    def end(self) -> None:
        for kind, items in (("agent", self.lint.agents), ("mode", self.lint.modes)):
            for spec in items.values():
                self._check_body((kind, spec))
        self.collector.extend(self.by_spec.end())

    def _check_body(self, found: tuple[str, Spec] | None) -> None:
        """The body rules of a lint-target spec, once, before its first file is checked."""
        if found is None:
            return
        kind, spec = found
        key = f"{kind}:{spec.id}"
        if key not in self.checked:
            self.checked.add(key)
            self.collector.extend(self.by_spec.check(spec))


def _counterpart(spec: Spec, project: Project, other: Project) -> tuple[str, Spec] | None:
    """The agent or mode of `other` that `spec`, an agent or mode of `project`, is
    (the same file composed for another target), with its kind; None for a skill."""
    for kind, mine, theirs in (
        ("agent", project.agents, other.agents),
        ("mode", project.modes, other.modes),
    ):
        found = theirs.get(spec.id)
        if mine.get(spec.id) is spec and found is not None:
            return kind, found
    return None


def _check_emitted(
    collector: Collector,
    project: Project,
    target: str,
    rel: str,
    text: str,
    spec: Spec | None,
) -> list[Problem]:
    """An emitted file against its format's schema, before anything is written.

    A failure is a promptc bug; files whose spec already has errors are not
    checked, since those errors explain them.
    """
    origin = spec.source.path if spec is not None else None
    shown = collector.display(origin) if origin is not None else None
    if origin is not None and (project.composition.failed(origin) or collector.failed(shown)):
        return []
    source = f"; generated from {shown}" if shown else ""
    return [
        replace(
            problem, message=f"{problem.message}{source}. This is a promptc bug: please report it"
        )
        for problem in check_emitted(target, rel, text, collector.schemas)
    ]


def _origin(project: Project, target: str, rel: str) -> Spec | None:
    """The spec an emitted agent, command or skill file was generated from."""
    schema = output_schema(target, rel) or ""
    if "skill" in schema:
        name = rel.rsplit("/", 2)[-2]
        skill = project.skills.get(name)
        return skill.spec if skill else None
    specs = project.agents if "agent" in schema else project.modes if "command" in schema else {}
    # The longest id the path ends with, at a `/`: `team/reviewer`, else `reviewer`.
    parts = rel.removesuffix(".md").split("/")
    for start in range(len(parts)):
        spec = specs.get("/".join(parts[start:]))
        if spec is not None:
            return spec
    return None


def unmanaged(out: Path, names: Iterable[str], generated: Collection[str]) -> Iterator[str]:
    """Paths (`<target>/<path>`, sorted) of files in the output that promptc did not
    generate, where the target's runtime loads files from: the runtime would load them
    as if they were the bundle's."""
    for name in names:
        loaded = target_registry.TARGETS[name].LOADED
        base = out / name
        found = []
        for folder, _, files in os.walk(base):
            for file in files:
                rel = Path(folder, file).relative_to(base).as_posix()
                if loaded.fullmatch(rel) and f"{name}/{rel}" not in generated:
                    found.append(f"{name}/{rel}")
        yield from sorted(found)
