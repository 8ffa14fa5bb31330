"""What one run works out from its bundle once, for the rules, the targets and the proof.

A run checks a bundle with its rules, then writes it for each target and
proves each target's files against OpenCode's decisions. They all read the
same few analyses of the bundle: its agents as OpenCode resolves them (on
this machine, for the rules; in the stand-in folders every translation and
the proof are decided in), the call matrix, each runtime's translation of
the permissions and what the security rules share. A run's Translations
works each out the first time it is asked and holds it for the rest of the
run; a Translated is a project of the run (one per target whose
composition is emitted) together with the run's Translations, which is what
rules and targets are handed. Nothing outlives the run: the api makes a new
Translations for each.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from promptc_compiler.core.project import Project
from promptc_compiler.permissions import calls, wildcard
from promptc_compiler.permissions.calls import Asked, Call
from promptc_compiler.permissions.runtime import Runtime, Written, resolve
from promptc_compiler.runtimes.translation import ENVIRONMENT, Translator

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Shared(Generic[T]):
    """What the rules of a run share, made from the project the run lints the
    first time one asks (the security rules' Exposure:
    promptc_compiler.rules.exposure). The value itself is the key, as each
    runtime's Translator is."""

    make: Callable[[Project], T]


@dataclass(frozen=True, eq=False)
class Translations:
    """The run's analyses of `project` (the project the run lints), each worked
    out when first asked. Their answers about patterns are shared (`patterns`):
    every agent inherits OpenCode's defaults, in each environment alike."""

    project: Project = field(repr=False)
    patterns: wildcard.Patterns = field(default_factory=wildcard.Patterns, repr=False)
    # each agent's own rules, shared by its resolutions (permissions.runtime.Written)
    written: Written = field(default_factory=Written, init=False, repr=False)
    _translated: dict[Translator[Any], Any] = field(default_factory=dict, init=False, repr=False)
    _shared: dict[Shared[Any], Any] = field(default_factory=dict, init=False, repr=False)
    # `opencode` once worked out, until rules_done: a box, not a cached_property,
    # since a frozen dataclass refuses to `del` one.
    _on_machine: list[Runtime] = field(default_factory=list, init=False, repr=False)

    @property
    def opencode(self) -> Runtime:
        """The agents OpenCode would load on this machine: what the rules check."""
        if not self._on_machine:
            self._on_machine.append(resolve(self.project, None, self.patterns, self.written))
        return self._on_machine[0]

    @functools.cached_property
    def stand_in(self) -> Runtime:
        """The agents in the stand-in environment every translation is decided in."""
        return resolve(self.project, ENVIRONMENT, self.patterns, self.written)

    @functools.cached_property
    def call_agents(self) -> Runtime:
        """The agents in the stand-in folders of the call matrix."""
        return calls.runtime_of(self.project, self.patterns, self.written)

    @functools.cached_property
    def grouped(self) -> tuple[tuple[str, tuple[Asked, ...]], ...]:
        """The call matrix agent by agent, as groups of calls decided alike
        (promptc_compiler.permissions.calls.grouped): what every proof reads."""
        return calls.grouped(self.project, self.call_agents)

    @functools.cached_property
    def matrix(self) -> tuple[Call, ...]:
        """Every call a translation is checked on."""
        return calls.flat(self.grouped)

    def of(self, translator: Translator[T]) -> T:
        """A runtime's translation of the bundle."""
        if translator not in self._translated:
            self._translated[translator] = translator.translate(self.project, self.stand_in)
        return cast(T, self._translated[translator])

    def shared(self, key: Shared[T]) -> T:
        """What `key` makes of the project the run lints."""
        if key not in self._shared:
            self._shared[key] = key.make(self.project)
        return cast(T, self._shared[key])

    def rules_done(self) -> None:
        """Drop what only the rules read, once the last rule ran: what they
        shared (the security rules' Exposure holds every file's whole text, its
        head and body joined, and where each of its lines starts) and the
        agents as OpenCode loads them on this machine (the targets and the
        proof read the stand-in ones). Asked again, each is worked out anew."""
        self._shared.clear()
        self._on_machine.clear()


@dataclass(frozen=True)
class Translated(Project):
    """A project of the run with the run's Translations: what rules and targets read."""

    translations: Translations = field(kw_only=True, repr=False, compare=False)

    @classmethod
    def of(cls, project: Project, translations: Translations | None = None) -> Translated:
        """`project` with the run's `translations` (new ones of it when None)."""
        fields = {f.name: getattr(project, f.name) for f in dataclasses.fields(Project)}
        return cls(**fields, translations=translations or Translations(project))
