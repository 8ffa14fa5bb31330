"""promptc as a library: what `promptc lint`, `build`, `check`, `can` and `import` do,
as typed functions that return results (docs/api.md).

    from promptc_compiler.public import lint, load_config

    result = lint(load_config("promptc.toml"))
    for diagnostic in result.diagnostics:
        print(diagnostic.as_text())
    raise SystemExit(result.exit_code())

Every result says the exit code the command would return (`exit_code()`); a
bad config or a usage mistake raises a PromptcError that carries its own
(`exit_code`). The functions wrap promptc_compiler.api, the pipeline the command
line runs, with only the options a program needs (no result cache, nothing
kept between runs).

This is a module of its own, not the package root, because `promptc_compiler`
is imported by everything that imports any of its modules (the command line
reads its `__version__`): re-exporting the pipeline there would import it
with every module, 0.3 ms becoming about 300 ms (`python -X importtime -c
"import promptc_compiler"`), and would make the package root a layer above
api that every layer below api imports.

`can` and `can_on` are promptc_compiler.api's own; `lint`, `build` and `check`
wrap api's to leave out the result cache and what a long-running program keeps.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from promptc_compiler import api
from promptc_compiler.api import Answer, Imported, Result, TargetAnswer, can, can_on
from promptc_compiler.base.diagnostics import Diagnostic, Fix, Severity
from promptc_compiler.base.errors import ConfigError, PromptcError, UsageError
from promptc_compiler.core import config as configuration
from promptc_compiler.core.config import Config

__all__ = [
    "Answer",
    "Config",
    "ConfigError",
    "Diagnostic",
    "Fix",
    "Imported",
    "PromptcError",
    "Result",
    "Severity",
    "TargetAnswer",
    "UsageError",
    "build",
    "can",
    "can_on",
    "check",
    "import_bundle",
    "lint",
    "load_config",
]

PathLike = str | os.PathLike[str]


def load_config(path: PathLike | None = None, *, start: PathLike | None = None) -> Config:
    """The bundle's validated, frozen configuration.

    `path`: a `promptc.toml`, or a `pyproject.toml` with a `[tool.promptc]` table.
    Without it, the first of those found walking up from `start` (default: the
    working directory); when there is none, the defaults, rooted at `start`.
    Raises ConfigError (exit code 2) naming every problem at its `file:line:col`.
    """
    return configuration.load_config(_path(path), _path(start))


def lint(config: Config, *, fix: bool = False) -> Result:
    """`promptc lint`: check specs, fragments and config; write nothing. With `fix`,
    first rewrite the sources with the fixes rules offer (`Result.fixed` names
    the files changed, and then `exit_code()` is 1, as pre-commit expects)."""
    return api.lint(config, fix=fix)


def build(config: Config, *, targets: Iterable[str] = (), force: bool = False) -> Result:
    """`promptc build`: compose and emit the `targets` (default: every configured one)
    into the output folder. Nothing is written while any error exists. `force`
    overwrites generated files edited by hand. A UsageError names a target the
    config does not configure."""
    return api.build(config, only=tuple(targets), force=force)


def check(config: Config, *, targets: Iterable[str] = (), fix: bool = False) -> Result:
    """`promptc check`: lint plus `build --check`, writing no output: a stale,
    missing or extra generated file is a `stale-output` or `unmanaged-file`
    error. `fix` as for lint."""
    return api.check(config, only=tuple(targets), fix=fix)


def import_bundle(
    runtime: str, folder: PathLike, config: Config, *, force: bool = False
) -> Imported:
    """`promptc import <runtime>`: turn the runtime's folder (a project holding
    `.opencode/`, `.claude/`, ... or that folder itself) into specs and fragments of
    the bundle `config` describes, then lint the result. Replaces no existing
    file unless `force`; writes a promptc.toml when the bundle has no config."""
    return api.import_bundle(runtime, Path(folder), config, force=force)


def _path(path: PathLike | None) -> Path | None:
    return None if path is None else Path(path)
