"""The checked model of a bundle that rules and targets work on.

A Project holds every loaded spec together with its composed body for one
target. Specs whose file could not be loaded are kept out (their syntax
errors are already reported), so rules never see half-parsed data.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.bundle import SKILL_FILE, Bundle, SkillSource
from promptc_compiler.core.compose import Bodies, BodyLines, Composition
from promptc_compiler.core.config import Config
from promptc_compiler.core.loader import Frontmatter, Pos, SourceFile

PROMPTC_KEYS = ("targets",)  # source-only keys: never emitted
NO_OVERRIDE: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Spec:
    """An agent or a mode: its id, file, frontmatter and composed body."""

    id: str
    source: SourceFile
    # Where the composed body is (the composition's), under `key` (default: the id).
    texts: Bodies = field(repr=False)
    key: str = ""

    @property
    def body(self) -> str:
        return self.texts[self.key or self.id]

    def body_lines(self) -> BodyLines:
        """Where each line of the composed body comes from in the spec's file."""
        return self.texts.lines(self.key or self.id)

    @property
    def meta(self) -> Mapping[str, Any]:
        return self.source.frontmatter.data if self.source.frontmatter else {}

    @property
    def frontmatter(self) -> Frontmatter | None:
        return self.source.frontmatter

    def where(self, *path: str | int, key: bool = False) -> Pos:
        if self.source.frontmatter is None:
            return Pos(1, 1)
        return self.source.frontmatter.where(path, key=key)

    def view(self, target: str) -> dict[str, Any]:
        """Frontmatter as one target sees it: overrides applied, promptc keys removed."""
        return target_view(self.meta, target)

    def override(self, target: str) -> Mapping[str, Any]:
        """The spec's `targets.<target>` override (empty when it has none)."""
        targets = self.meta.get("targets")
        if targets is None:  # most specs: asked many times per agent, no abstract-type checks
            return NO_OVERRIDE
        mine = targets.get(target) if isinstance(targets, Mapping) else None
        return mine if isinstance(mine, Mapping) else NO_OVERRIDE

    @property
    def mode(self) -> str:
        value = self.meta.get("mode", "all")
        return value if isinstance(value, str) else "all"


def target_view(meta: Mapping[str, Any], target: str) -> dict[str, Any]:
    """`meta` as `target` sees it: its `targets.<target>` override applied, promptc keys removed."""
    data = {k: v for k, v in meta.items() if k not in PROMPTC_KEYS}
    overrides = meta.get("targets", {})
    if isinstance(overrides, Mapping) and isinstance(overrides.get(target), Mapping):
        data.update(overrides[target])
    return data


class Skill(NamedTuple):
    """A skill: SKILL.md as a Spec (its id is the folder name) and its supporting files.

    `files` holds each supporting file's full text as emitted, by path relative
    to the skill folder: a markdown file is its frontmatter exactly as written
    followed by its composed body (so a file without placeholders comes out
    byte for byte), any other file its text unchanged.
    """

    name: str  # the folder name
    source: SkillSource
    spec: Spec
    files: Mapping[str, str]

    @property
    def levels(self) -> tuple[str, ...] | None:
        """The levels the skill declares (`metadata.levels`, space-separated), if any."""
        metadata = self.spec.meta.get("metadata")
        value = metadata.get("levels") if isinstance(metadata, Mapping) else None
        return tuple(value.split()) if isinstance(value, str) else None


@dataclass(frozen=True)
class Project:
    """The checked model of a bundle for one target: what rules and targets read."""

    config: Config
    bundle: Bundle
    target: str
    agents: Mapping[str, Spec]
    modes: Mapping[str, Spec]
    composition: Composition
    skills: Mapping[str, Skill] = field(default_factory=dict)

    def may_be_an_agent(self, name: str) -> bool:
        """An agent of this name may exist although it is not in `agents`: its spec
        did not load, or a file or folder under the agents folder could not be read
        (their own errors say why). Rules that need only a name take it as existing."""
        if name in self.bundle.agents and name not in self.agents:
            return True
        folder = self.config.specs / "agents"
        return any(
            rule == "syntax" and (path == folder or folder in path.parents)
            for rule, path, _ in self.bundle.findings
        )


class Session(Protocol):
    """A rule that reads composed bodies, one at a time.

    A rule module that reads `spec.body` defines `session(project, options)`
    returning a Session: `spec(spec)` is called once for every agent and mode
    (project.agents, then project.modes) and `end()` once after the last. The
    pipeline calls every session for one spec before going to the next, so
    each body is composed once for all of them. The module's
    `check(project, options)` is `by_spec(project, session(project, options))`.
    """

    def spec(self, spec: Spec) -> Iterable[Problem]: ...

    def end(self) -> Iterable[Problem]: ...


def specs(project: Project) -> Iterator[Spec]:
    """Every spec a session sees, in its order."""
    yield from project.agents.values()
    yield from project.modes.values()


def by_spec(project: Project, session: Session) -> Iterator[Problem]:
    """Run one session over every spec: the rule's `check`."""
    for spec in specs(project):
        yield from session.spec(spec)
    yield from session.end()


def make_project(config: Config, bundle: Bundle, composition: Composition, target: str) -> Project:
    # One view of each kind for all its specs (a view is made per access).
    composed, modes_composed = composition.agents, composition.modes
    agents = {i: Spec(i, bundle.agents[i], composed) for i in composed}
    modes = {i: Spec(i, bundle.modes[i], modes_composed) for i in modes_composed}
    skills = {
        name: skill
        for name, source in bundle.skills.items()
        if (skill := _skill(source, composition)) is not None
    }
    return Project(config, bundle, target, agents, modes, composition, skills)


def _skill(source: SkillSource, composition: Composition) -> Skill | None:
    """The composed skill; None when its SKILL.md did not load (its errors say why).

    A supporting markdown file that did not load is left out; its syntax error
    already blocks all output.
    """
    composed = composition.skills
    main = f"{source.name}/{SKILL_FILE}"
    if main not in composed:
        return None
    files: dict[str, str] = {}
    for rel, file in source.markdown.items():
        key = f"{source.name}/{rel}"
        if rel != SKILL_FILE and key in composed:
            files[rel] = frontmatter_text(file) + composed[key]
    files.update(source.assets)
    spec = Spec(source.name, source.main, composed, main)
    return Skill(source.name, source, spec, dict(sorted(files.items())))


def frontmatter_text(source: SourceFile) -> str:
    """The lines before the body, exactly as written (empty without frontmatter)."""
    if source.body_line <= 1:
        return ""
    lines = source.text.split("\n")
    return "\n".join(lines[: source.body_line - 1]) + "\n"
