"""The adapter contract: what a runtime package says of itself, for the registry.

A runtime promptc writes for is one package, `promptc_compiler.runtimes.<name>`,
whose `__init__.py` is its adapter: module-level constants and functions that
satisfy `Runtime` (as pre-commit's language modules satisfy its `Language`);
each constant is a read-only property here, so that a module's constant of a
narrower type (a dict for a Mapping) satisfies it.
Each target it emits is a module satisfying `Target`, and its decision model
one satisfying `Decisions`. The registry (promptc_compiler.runtimes) lists the
packages, typed as `Runtime`, so that mypy checks each against these Protocols;
every other list of runtimes or targets (compose's target names, the config's
`[targets]` options, the import command's folders, the output schemas, `promptc
init`'s choices, the docs' target lists) is derived from it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple, Protocol

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Session
from promptc_compiler.core.resources import schemas_in
from promptc_compiler.core.validate import Outputs
from promptc_compiler.permissions.calls import Model
from promptc_compiler.runtimes.reading import Reader
from promptc_compiler.runtimes.translations import Translated


class Starter(NamedTuple):
    """What `promptc init` writes for a target (promptc_compiler.cli.init)."""

    # The lines of its `[targets.<name>]` table in promptc.toml, below the header.
    table: str = ""
    # Where its files land in the root layout, as the next steps say it ("" when
    # they stay under `build/<name>/`, as a plugin or an extension does).
    at_root: str = ""
    # Other values of `--target` that choose it, with the source's target.
    aliases: tuple[str, ...] = ()


class Target(Protocol):
    """One layout a runtime reads, written to `<out>/<NAME>/` by `files`."""

    @property
    def NAME(self) -> str:
        """`[targets.<NAME>]` in the config, `<out>/<NAME>/` in the output."""

    @property
    def COMPOSE_AS(self) -> str:
        """The target whose composition (the `target` variable) it emits: NAME, or
        another target's when two must carry the same bodies."""

    @property
    def RUNTIME(self) -> str:
        """The runtime that loads the files, as messages name it."""

    @property
    def OPTIONS(self) -> Mapping[str, Any]:
        """JSON Schema properties of its options in `[targets.<NAME>]`."""

    @property
    def SCHEMAS(self) -> Outputs:
        """The schema each emitted file is checked against before anything is written."""

    @property
    def LOADED(self) -> re.Pattern[str]:
        """The paths (relative to `<out>/<NAME>/`) the runtime reads: another file
        there is one promptc did not write (rule unmanaged-file)."""

    @property
    def ROOT(self) -> re.Pattern[str] | None:
        """`layout = "root"`: the paths written at the project root (None: none)."""

    @property
    def SHARED(self) -> Mapping[str, tuple[str, ...]]:
        """The files at the root shared with the user, with the keys promptc manages
        one level down (promptc_compiler.core.merge)."""

    @property
    def STARTER(self) -> Starter:
        """What `promptc init` writes for it."""

    @property
    def SPEC_KEYS(self) -> Mapping[str, str]:
        """What a spec's `targets.<NAME>` may set, by kind of spec (`agent`, `mode`):
        the name of a definition in its runtime's DEFINITIONS (or, for the source,
        in the spec schema itself). A kind it lacks takes no `targets.<NAME>`."""

    def files(self, project: Translated, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
        """Each file, relative to `<out>/<NAME>/`, as (path, text), one at a time:
        agents first (promptc_compiler.pipeline.emitter)."""


class Decisions(Protocol):
    """What a runtime decides for a call, read only from the files a target wrote.

    A model answers, for one call of the matrix (promptc_compiler.permissions.calls.Call:
    an agent, an OpenCode permission, an input, main agent or started by
    another), what the runtime itself would do with the files a target emitted:
    run it (`allow`), ask the user (`ask`; refused for want of an answer in
    non-interactive runs), or refuse it (`deny`, also when the tool does not
    exist for the agent). A model reads nothing but those files, so it checks
    the files, not the translator's intentions; the test suite holds every
    model to the real, pinned CLI (tests/oracles/), and a call where the two
    disagree fails it. The translation proves itself with the models
    (promptc_compiler.pipeline.proof): a call the runtime would decide more
    permissively than OpenCode is an error, unless the config accepts that
    widening for that runtime. `promptc can --target` answers with it too.
    """

    @property
    def RUNTIME(self) -> str:
        """The runtime's name in the proof's messages."""

    def load(self, files: Mapping[str, str]) -> Model:
        """The model of the files one target wrote, by path under `<out>/<target>/`."""


class Runtime(Protocol):
    """A runtime promptc writes for: its package's `__init__.py`."""

    @property
    def NAME(self) -> str:
        """`promptc import <NAME>`, and the name of its first target."""

    @property
    def TARGETS(self) -> tuple[Target, ...]:
        """The layouts it reads, each written to `<out>/<target>/`."""

    @property
    def RELEASE(self) -> str:
        """The release its files, model and override keys follow, as npm names it
        (`@openai/codex 0.171.0`): the one tests/package.json pins."""

    @property
    def DEFINITIONS(self) -> Mapping[str, Any]:
        """The JSON Schema definitions of its targets' SPEC_KEYS (`overrides.json` in
        its package), which tests/spec_schemas.py copies into the `$defs` of
        schemas/agent.schema.json and mode.schema.json, and of its FILE_SCHEMAS
        that define one of the same name."""

    @property
    def FILE_SCHEMAS(self) -> Mapping[str, Mapping[str, Any]]:
        """The JSON Schemas of the files its targets write (`schemas/<name>.schema.json`
        in its package), by name: the names its targets' SCHEMAS give."""

    @property
    def MODEL(self) -> Decisions | None:
        """Its decision model; None for the source runtime, which the others are
        proved against."""

    @property
    def IMPORT_FOLDER(self) -> str:
        """The folder of a project the runtime reads, which `promptc import <NAME>`
        turns into specs."""

    @property
    def RULES(self) -> tuple[ModuleType, ...]:
        """Its own rules, each a module of promptc_compiler.rules' contract."""

    @property
    def COPIED_KEYS(self) -> tuple[str, ...]:
        """Keys of its own agent and command files that OpenCode does not read: a
        spec copied from the runtime carries them, and the runtime's own rules
        report them (unknown-key and key-typo leave them alone)."""

    def import_from(self, root: Path, reader: Reader) -> None:
        """Read the runtime's folder (`root`, its IMPORT_FOLDER) into `reader`."""

    def losses(self, project: Translated) -> Iterator[Problem]:
        """What its targets' files cannot say of the specs, at the lines that say
        it (the lossy-translation rule, while one of TARGETS is configured)."""

    def limits(self, project: Translated) -> Session | None:
        """Its part of the runtime-limits rule (None: nothing to check), while one
        of TARGETS is configured."""


def definitions(init: str) -> Mapping[str, Any]:
    """The `$defs` of the `overrides.json` beside `init`, a module of a runtime
    package: package data, read at import."""
    with open(os.path.join(os.path.dirname(init), "overrides.json"), encoding="utf-8") as file:
        found: Mapping[str, Any] = json.load(file)["$defs"]
    return found


def file_schemas(init: str) -> Mapping[str, Mapping[str, Any]]:
    """The schemas in the `schemas/` folder of the runtime package whose `__init__.py`
    is `init`, by name: package data, read at import."""
    return schemas_in(os.path.join(os.path.dirname(init), "schemas"))
