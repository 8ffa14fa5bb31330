"""The target registry: one module per runtime layout promptc emits.

A target module has `NAME`, `OPTIONS` (JSON Schema properties of its options
in `[tool.promptc.targets.<name>]`), `files(project, options)` yielding the
files it produces, relative to `<out>/<name>/`, as (path, text) one at a time
(agents first; see promptc_compiler.pipeline.emitter); `RUNTIME` and `LOADED` say which runtime
reads the output and which paths it loads from it; `ROOT` and `SHARED` say
which of its files the root layout writes at the project root, and which of
those are shared with the user (promptc_compiler.core.merge); `PROJECT_FOLDER` is the folder
of a project the runtime reads, which `promptc import <name>` turns into specs
(None: the target has no import). An optional `COMPOSE_AS`
names the target whose composition (the `target` variable) it emits, when two
targets must carry the same bodies.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.core.config import Config
from promptc_compiler.runtimes.claude import plugin as claude_plugin
from promptc_compiler.runtimes.claude import target as claude
from promptc_compiler.runtimes.codex import target as codex
from promptc_compiler.runtimes.copilot import target as copilot
from promptc_compiler.runtimes.gemini import target as gemini
from promptc_compiler.runtimes.opencode import target as opencode

if TYPE_CHECKING:
    from promptc_compiler.runtimes.translations import Translated


class Target(Protocol):
    NAME: str
    OPTIONS: Mapping[str, Any]
    RUNTIME: str  # the runtime that loads the files, as messages name it
    LOADED: re.Pattern[str]  # paths (relative to <out>/<name>/) the runtime reads
    # `layout = "root"`: the paths written at the project root (None: none), and
    # the shared files among them with the keys managed one level down.
    ROOT: re.Pattern[str] | None
    SHARED: Mapping[str, tuple[str, ...]]
    PROJECT_FOLDER: str | None  # what `promptc import <NAME>` reads (None: no import)

    def files(
        self, project: Translated, options: Mapping[str, Any]
    ) -> Iterator[tuple[str, str]]: ...


_MODULES: tuple[ModuleType, ...] = (opencode, claude, claude_plugin, codex, copilot, gemini)

TARGETS: Mapping[str, Target] = {module.NAME: module for module in _MODULES}


# Every runtime but OpenCode itself: the permissions whose widening the
# config accepts on purpose for that runtime (promptc_compiler.pipeline.proof).
ACCEPT_WIDER = {
    "type": "array",
    "items": {"type": "string", "minLength": 1},
    "uniqueItems": True,
    "default": [],
    "description": (
        "OpenCode permissions (bash, edit, task, ...) this runtime may decide more "
        "permissively than OpenCode, on purpose; every build prints each such call"
    ),
}


def options_schema(target: Target) -> dict[str, Any]:
    properties = dict(target.OPTIONS)
    if target.NAME != opencode.NAME:
        properties["accept_wider"] = ACCEPT_WIDER
    return {"type": "object", "additionalProperties": False, "properties": properties}


def check_options(config: Config) -> None:
    """Each `[targets.<name>]` table names a target and holds only its options
    (a ConfigError at the table's line otherwise)."""
    for name, options in config.targets.items():
        target = TARGETS.get(name)
        if target is None:
            hint = did_you_mean(name, TARGETS)
            raise config.fail(("targets", name), f"unknown target '{name}'{hint}")
        config.check_table(("targets", name), options, options_schema(target))
