"""Emit: every target's files, each with the rules that read its spec's body
and a check of the file itself against its format's schema.

Bodies go one at a time: the rules that read composed bodies (lint.SpecRules)
check each body of the lint target right when a target emits it, and the
file goes to the sink before the next body is composed, so a bundle of 10,000
agents never holds its composed bodies (compose.Texts); the sink decides what
it keeps of the files.

Step is a run's emit step. What emitting a file finds and makes goes to an
`Into`: straight into the run's collector and sink (Replay), or recorded as
events (Recording) for a Replay later. From 128 agents on, with two or more
cores, a build is split over two processes (compiler.split): a forked helper
records its share of the files while this process emits its own, and Split
takes the helper's events back in the order one process makes them.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from compiler import split
from compiler import targets as target_registry
from compiler.bundle import Bundle
from compiler.compose import Carried, compose_bundle
from compiler.config import Config
from compiler.diagnostics import Diagnostic, Problem, Severity
from compiler.lint import SpecRules
from compiler.project import WHOLE, Part, Project, Spec, make_project, specs
from compiler.validate import Schemas, check_emitted, output_schema
from compiler.writer import Stage

Sink = Callable[[str, bytes], None]


class Collector(Protocol):
    """What emitting reports to (api._Collector): findings with display paths."""

    config: Config
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
        # The lint target's files first: each body's rules have run before any
        # other target's file from that spec is checked (a spec with errors is not).
        order = sorted(names, key=lambda name: compose_as(name) != lint_project.target)
        self.emitter = Emitter(collector, bundle, lint_project, order)
        self.projects = self.emitter.projects
        self.live = Replay(collector, sink)
        wanted = split.wanted(len(lint_project.agents))
        # A build into an empty output folder: the helper writes its files
        # straight to the writer's staging folder (writer.Stage).
        stage = getattr(sink, "stage", None)
        self.split = Split.start(self.emitter, stage) if wanted else None

    def run(self) -> None:
        if self.split is None:
            for index in range(len(self.emitter.names)):
                self.emitter.target(index, WHOLE, self.live)
        else:
            self.split.finish(self.live)

    def end(self) -> None:
        by_spec = self.emitter.by_spec
        for spec in specs(self.emitter.lint):
            if id(spec) not in self.live.checked:
                self.live.spec(id(spec), tuple(by_spec.check(spec)))
        self.live.collector.extend(by_spec.end())


class Into(Protocol):
    """Where the emit step's findings and files go, spec by spec and file by file."""

    def failed(self, shown: str | None) -> bool: ...

    def spec(self, key: int, diagnostics: tuple[Diagnostic, ...]) -> None: ...

    def file(
        self, name: str, rel: str, data: bytes, shown: str | None, problems: tuple[Problem, ...]
    ) -> None: ...


class Emitter:
    """Emits the targets' files, each with the rules of its spec's body and the
    check of the file itself, one target and part (project.Part) at a time."""

    def __init__(
        self, collector: Collector, bundle: Bundle, lint_project: Project, names: list[str]
    ) -> None:
        self.collector = collector
        self.bundle = bundle
        self.lint = lint_project
        self.names = names
        self.by_spec = SpecRules(lint_project)
        self.projects = {lint_project.target: lint_project}  # by the target composed for
        # id() of the lint project's specs checked here. A split build's helper
        # is a fork, so the same spec has the same id() in both processes.
        self.checked: set[int] = set()

    def project(self, composed_for: str) -> Project:
        """The project a target's files come from, composed for `composed_for`."""
        project = self.projects.get(composed_for)
        if project is None:
            config = self.collector.config
            composition = compose_bundle(self.bundle, composed_for, self.collector.display)
            project = make_project(config, self.bundle, composition, composed_for)
            self.projects[composed_for] = project
        return project

    def target(self, index: int, part: Part, into: Into) -> None:
        name = self.names[index]
        project = self.project(compose_as(name))
        options = self.collector.config.targets.get(name, {})
        for rel, text in target_registry.TARGETS[name].files(project, options, part):
            spec = _origin(project, name, rel)
            linted = _counterpart(spec, project, self.lint) if spec else None
            if linted is not None and id(linted) not in self.checked:
                self.checked.add(id(linted))
                into.spec(id(linted), tuple(self.by_spec.check(linted)))
            shown, problems = _check_emitted(self.collector, project, name, rel, text, spec, into)
            into.file(name, rel, text.encode("utf-8"), shown, problems)

    def carry(self) -> _Carried:
        """What this process's sessions and compositions gathered (see split)."""
        compositions = {name: p.composition.carry() for name, p in self.projects.items()}
        return self.by_spec.carry(), compositions

    def absorb(self, carried: _Carried) -> None:
        sessions, compositions = carried
        self.by_spec.absorb(sessions)
        for name, composition in compositions.items():
            self.project(name).composition.absorb(composition)


# Emitter.carry(): the sessions' state, and each composition's by target.
_Carried = tuple[list[object], dict[str, Carried]]


class Replay:
    """Takes the emit step's findings and files into the run's collector and sink."""

    def __init__(self, collector: Collector, sink: Sink) -> None:
        self.collector = collector
        self.sink = sink
        self.checked: set[int] = set()  # the specs whose findings are in

    def failed(self, shown: str | None) -> bool:
        return self.collector.failed(shown)

    def spec(self, key: int, diagnostics: tuple[Diagnostic, ...]) -> None:
        if key not in self.checked:
            self.checked.add(key)
            self.collector.extend(diagnostics)

    def file(
        self, name: str, rel: str, data: bytes, shown: str | None, problems: tuple[Problem, ...]
    ) -> None:
        self._report(name, rel, shown, problems)
        self.sink(f"{name}/{rel}", data)

    def staged(
        self,
        name: str,
        rel: str,
        digest: str,
        size: int,
        shown: str | None,
        problems: tuple[Problem, ...],
    ) -> None:
        """A file the helper wrote to the writer's staging folder itself."""
        self._report(name, rel, shown, problems)
        self.sink.staged(f"{name}/{rel}", digest, size)  # type: ignore[attr-defined]

    def _report(
        self, name: str, rel: str, shown: str | None, problems: tuple[Problem, ...]
    ) -> None:
        # Files whose spec has errors by now are not checked: those errors explain them.
        if problems and not self.collector.failed(shown):
            for problem in problems:
                self.collector.add("emit", self.collector.config.out / name / rel, problem)

    def take(self, event: split.Event) -> None:
        """Replay an event a Recording made."""
        if event[1] == "spec":
            self.spec(*event[2:])  # type: ignore[arg-type]
        elif event[1] == "staged":
            self.staged(*event[2:])  # type: ignore[arg-type]
        else:
            self.file(*event[2:])  # type: ignore[arg-type]


class Recording:
    """Records the emit step's findings and files as events, for a Replay later:
    one process's share of a split build, tagged with its target's index."""

    def __init__(
        self, put: split.Put, collector: Collector, tag: int, stage: Stage | None = None
    ) -> None:
        self.put = put
        self.collector = collector
        self.tag = tag
        self.stage = stage  # where files go instead of into the events (Step)
        self.errors: set[str] = set()  # display paths with an error recorded here

    def failed(self, shown: str | None) -> bool:
        return shown in self.errors or self.collector.failed(shown)

    def spec(self, key: int, diagnostics: tuple[Diagnostic, ...]) -> None:
        self.errors.update(d.path for d in diagnostics if d.severity is Severity.ERROR)
        self.put((self.tag, "spec", key, diagnostics))

    def file(
        self, name: str, rel: str, data: bytes, shown: str | None, problems: tuple[Problem, ...]
    ) -> None:
        if self.stage is None:
            self.put((self.tag, "file", name, rel, data, shown, problems))
            return
        digest = self.stage.put(f"{name}/{rel}", data)
        self.put((self.tag, "staged", name, rel, digest, len(data), shown, problems))


# The share of the agents this process emits in a split build; None: the
# share that has both processes finish together by the estimates below.
OWN_SHARE: float | None = None

# What each process does in a split build, in ms per 1,000 agents, timed on
# the benchmark's bundle (benchmarks/speed.py). This process runs the
# validation and the rules of the whole bundle (_RULES; with a Claude target,
# the lossy-translation rule translates it: _LOSSY); the helper emits every
# file but the agents' (_REST per target; a Claude target's files come from
# its own translation: _TRANSLATION). Each agent costs its body's rules
# (_BODY) and one file per target (_FILE). A wrong estimate costs time (the
# process done first waits), never output.
_RULES, _LOSSY = 100, 50
_REST, _TRANSLATION = 12, 88
_BODY, _FILE = 110, 95
_STAGE = 40  # the helper writing and hashing an agent's file (a build's Stage)


def own_share(names: list[str], *, staging: bool = False) -> float:
    """The share of the agents this process emits: both processes' estimated
    work equal, this one's bundle rules against the helper's other files
    (and, with `staging`, the helper writing its files itself)."""
    if OWN_SHARE is not None:
        return OWN_SHARE
    claude = sum(compose_as(name) == "claude" for name in names)
    mine = _BODY + _FILE * len(names)
    theirs = mine + (_STAGE * len(names) if staging else 0)
    rest = _REST * len(names) + _TRANSLATION * claude
    rules = _RULES + (_LOSSY if claude else 0)
    return min(max((theirs + rest - rules) / (mine + theirs), 0.0), 1.0)


class Split:
    """A build split in two (compiler.split): this process emits the first
    agents of every target, its helper the other agents and every other file.

    One process would emit target by target, and in each the first agents
    before the others, so taking back, target by target, this process's files
    and then the helper's replays that order exactly: the collector and the
    sink see what they would have seen, and where both processes' compositions
    found one problem, this process's words (the first agents') are kept.
    """

    def __init__(
        self,
        emitter: Emitter,
        helper: split.Helper,
        held: split.Events,
        own: Part,
        theirs: Part,
        stage: Stage | None = None,
    ) -> None:
        self.emitter = emitter
        self.helper = helper
        self.held = held  # this process's files of the targets after the first
        self.own = own
        self.theirs = theirs
        self.stage = stage  # where the helper writes its files (Step)

    @classmethod
    def start(cls, emitter: Emitter, stage: Stage | None = None) -> Split | None:
        agents = list(emitter.lint.agents)
        share = own_share(emitter.names, staging=stage is not None)
        first = frozenset(agents[: int(len(agents) * share)])
        own, theirs = Part(first, rest=False), Part(frozenset(agents) - first)

        def work(put: split.Put) -> _Carried:
            for index in range(len(emitter.names)):
                emitter.target(index, theirs, Recording(put, emitter.collector, index, stage))
            return emitter.carry()

        try:
            held = split.Events()
        except OSError:
            return None
        helper = split.Helper.start(work)
        if helper is None:
            held.close()
            return None
        return cls(emitter, helper, held, own, theirs, stage)

    def finish(self, live: Replay) -> None:
        emitter, held = self.emitter, self.held
        try:
            for index in range(len(emitter.names)):
                # The first target's files go straight in; later ones wait for
                # the helper's files of the targets before them.
                into = live if index == 0 else Recording(held.put, emitter.collector, index)
                emitter.target(index, self.own, into)
            held.finish()
        except BaseException:  # a file changed while read (SourceChanged), an interrupt
            self.helper.abandon()
            held.close()
            raise
        carried = self.helper.join()
        mine = ByTarget(held.read())
        if carried is None:  # the helper failed: its share is emitted here
            self.helper.close()
            if self.stage is not None:  # with what it may have staged gone
                self.stage.clear()
            for index in range(len(emitter.names)):
                mine.replay(index, live)
                emitter.target(index, self.theirs, live)
            return
        theirs = ByTarget(self.helper.events.read())
        for index in range(len(emitter.names)):
            mine.replay(index, live)
            theirs.replay(index, live)
        emitter.absorb(carried)  # type: ignore[arg-type]


class ByTarget:
    """Events tagged with their target's index (Recording), in order, taken
    back one target at a time."""

    def __init__(self, events: Iterator[split.Event]) -> None:
        self._groups = itertools.groupby(events, key=operator.itemgetter(0))
        self._next = next(self._groups, None)

    def replay(self, index: int, live: Replay) -> None:
        if self._next is not None and self._next[0] == index:
            for event in self._next[1]:
                live.take(event)
            self._next = next(self._groups, None)


def _counterpart(spec: Spec, project: Project, other: Project) -> Spec | None:
    """The agent or mode of `other` that `spec`, an agent or mode of `project`, is
    (the same file composed for another target); None for a skill."""
    if project.agents.get(spec.id) is spec:
        return other.agents.get(spec.id)
    if project.modes.get(spec.id) is spec:
        return other.modes.get(spec.id)
    return None


def _check_emitted(
    collector: Collector,
    project: Project,
    target: str,
    rel: str,
    text: str,
    spec: Spec | None,
    into: Into,
) -> tuple[str | None, tuple[Problem, ...]]:
    """An emitted file against its format's schema, before anything is written:
    its spec's display path and the problems, to report unless the spec has
    errors by then (Replay.file).

    A failure is a promptc bug; files whose spec already has errors are not
    checked, since those errors explain them.
    """
    origin = spec.source.path if spec is not None else None
    shown = collector.display(origin) if origin is not None else None
    if origin is not None and (project.composition.failed(origin) or into.failed(shown)):
        return shown, ()
    source = f"; generated from {shown}" if shown else ""
    problems = tuple(
        replace(
            problem, message=f"{problem.message}{source}. This is a promptc bug: please report it"
        )
        for problem in check_emitted(target, rel, text, collector.schemas)
    )
    return shown, problems


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
