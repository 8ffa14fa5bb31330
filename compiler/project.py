"""The checked model of a bundle that rules and targets work on.

A Project holds every loaded spec together with its composed body for one
target. Specs whose file could not be loaded are kept out (their syntax
errors are already reported), so rules never see half-parsed data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from compiler.bundle import Bundle
from compiler.compose import Composition
from compiler.config import Config
from compiler.loader import Frontmatter, Pos, SourceFile

PROMPTC_KEYS = ("targets",)  # source-only keys: never emitted


@dataclass(frozen=True)
class Spec:
    """An agent or a mode: its id, file, frontmatter and composed body."""

    id: str
    source: SourceFile
    body: str

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

    def for_target(self, target: str) -> dict[str, Any]:
        """Frontmatter as one target sees it: overrides applied, promptc keys removed."""
        data = {k: v for k, v in self.meta.items() if k not in PROMPTC_KEYS}
        overrides = self.meta.get("targets", {})
        if isinstance(overrides, Mapping) and isinstance(overrides.get(target), Mapping):
            data.update(overrides[target])
        return data

    @property
    def mode(self) -> str:
        value = self.meta.get("mode", "all")
        return value if isinstance(value, str) else "all"


@dataclass(frozen=True)
class Project:
    config: Config
    bundle: Bundle
    target: str
    agents: Mapping[str, Spec]
    modes: Mapping[str, Spec]
    composition: Composition


def make_project(config: Config, bundle: Bundle, composition: Composition, target: str) -> Project:
    agents = {i: Spec(i, bundle.agents[i], body) for i, body in composition.agents.items()}
    modes = {i: Spec(i, bundle.modes[i], body) for i, body in composition.modes.items()}
    return Project(config, bundle, target, agents, modes, composition)
