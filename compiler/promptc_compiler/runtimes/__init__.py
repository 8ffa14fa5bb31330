"""The runtime registry: one package per runtime promptc writes for, listed once.

Each package's `__init__.py` is its adapter (promptc_compiler.runtimes.adapter:
`Runtime`, its `Target`s and its `Decisions`); `_PACKAGES` is typed so that
mypy checks every package against the contract. Everything that lists
runtimes or targets is derived from it here: the targets by name (the
config's `[targets.<name>]` tables and their options, the output schemas),
the names compose lets `target` be compared with, the decision models the
proof and `promptc can --target` use, the folders `promptc import <runtime>`
reads, the runtimes' own rules, the keys a spec copied from a runtime carries.
The modules beside the packages (`translation`, `translations`, `tool_lists`, ...)
are owned by none of them: each runtime may import them, and no runtime
imports another (the independence contract in pyproject.toml).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from promptc_compiler.base.suggest import did_you_mean, fold
from promptc_compiler.core.config import Config
from promptc_compiler.permissions.calls import Model
from promptc_compiler.runtimes import claude, codex, copilot, gemini, opencode
from promptc_compiler.runtimes.adapter import Runtime, Target

# The registry: the source first, then every runtime it is translated into.
_PACKAGES: tuple[Runtime, ...] = (opencode, claude, codex, copilot, gemini)

RUNTIMES: Mapping[str, Runtime] = {runtime.NAME: runtime for runtime in _PACKAGES}
TARGETS: Mapping[str, Target] = {
    target.NAME: target for runtime in _PACKAGES for target in runtime.TARGETS
}
# The runtime whose files each target writes.
RUNTIME_OF: Mapping[str, Runtime] = {
    target.NAME: runtime for runtime in _PACKAGES for target in runtime.TARGETS
}
# The values a spec's `target` may be compared with, in the order messages list them.
TARGET_NAMES = tuple(sorted(TARGETS))

Loader = Callable[[Mapping[str, str]], Model]
# Target name -> (its runtime's name in messages, the loader of its decision model),
# for every target whose runtime has one (all but the source's).
MODELS: Mapping[str, tuple[str, Loader]] = {
    target.NAME: (runtime.MODEL.RUNTIME, runtime.MODEL.load)
    for runtime in _PACKAGES
    if runtime.MODEL is not None
    for target in runtime.TARGETS
}
# The schemas of the files the targets write, by the names their SCHEMAS give
# (each runtime's own; the run's validators look them up, promptc_compiler.core.validate).
FILE_SCHEMAS: Mapping[str, Mapping[str, Any]] = {
    name: schema for runtime in _PACKAGES for name, schema in runtime.FILE_SCHEMAS.items()
}
# `promptc import <runtime>`: the folder of a project each runtime reads.
IMPORT_FOLDERS: Mapping[str, str] = {runtime.NAME: runtime.IMPORT_FOLDER for runtime in _PACKAGES}
# The rules each runtime brings, in the registry's order (promptc_compiler.rules).
RULES: tuple[ModuleType, ...] = tuple(rule for runtime in _PACKAGES for rule in runtime.RULES)
# Keys of a runtime's own files by normalised spelling (so `allowed_tools` and
# `allowedTools` find `allowed-tools`).
_COPIED = {fold(key): key for runtime in _PACKAGES for key in runtime.COPIED_KEYS}


def compose_as(name: str) -> str:
    """The target name a target's text is composed for (its COMPOSE_AS)."""
    target = TARGETS.get(name)
    return target.COMPOSE_AS if target is not None else name


def configured(config: Config) -> list[Runtime]:
    """The runtimes one of whose targets the config builds, in the registry's order."""
    return [r for r in _PACKAGES if any(t.NAME in config.targets for t in r.TARGETS)]


def copied_key(key: str) -> str | None:
    """The key of a runtime's own agent or command files that `key` spells, if any."""
    return _COPIED.get(fold(key))


# Every target whose runtime has a decision model: the permissions whose
# widening the config accepts on purpose for it (promptc_compiler.pipeline.proof).
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
    """The JSON Schema of `[targets.<name>]`."""
    properties = dict(target.OPTIONS)
    if target.NAME in MODELS:
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
