"""Configuration: discovery, defaults, validation, and the frozen Config.

Config lives in `[tool.promptc]` of a pyproject.toml or at the top level of a
promptc.toml, found by walking up from the working directory. Defaults live
here, in code; the loaded result is immutable and passed explicitly.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from compiler.diagnostics import Severity
from compiler.errors import ConfigError
from compiler.resources import load_schema
from compiler.suggest import did_you_mean
from compiler.tomlpos import locate
from compiler.validate import SchemaValidator, first_error

DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {
        "specs": "specs",
        "fragments": "fragments",
        "out": "build",
        "targets": {"opencode": {}},
        "custom_tools": [],
        "default_agent": None,
        "permission": None,
        "rules": {},
        "cache": True,
    }
)

LEVELS = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "off": None}


@dataclass(frozen=True)
class RuleSettings:
    """A rule's level (None when off) and its options with defaults filled in."""

    level: Severity | None
    options: Mapping[str, Any]


@dataclass(frozen=True)
class Config:
    """The validated configuration of one bundle. Paths are absolute."""

    root: Path
    source: Path | None
    specs: Path
    fragments: Path
    out: Path
    targets: Mapping[str, Mapping[str, Any]]
    custom_tools: tuple[str, ...]
    default_agent: str | None
    # Config-level permission (opencode.json `permission`): an action or a map of rules.
    permission: Any = None
    rules: Mapping[str, RuleSettings] = field(default_factory=lambda: MappingProxyType({}))
    # Store results in .promptc-cache/ so an unchanged bundle skips the work (compiler.cache).
    cache: bool = True
    # Real paths display() has looked up, by (working directory, path): a run
    # names thousands of files in a handful of folders. Never copied by replace().
    _real: dict[tuple[str, str], str] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def display(self, path: Path) -> str:
        """How diagnostics name a file: relative to the working directory when inside it.

        Always valid UTF-8: bytes of a file name that are not are shown as `\\xff`.
        """
        here = os.getcwd()
        cwd = self._realpath(here, here)
        # Resolve the folder, not the name: a symlink is named where it stands.
        # Plain strings: pathlib costs ten times more, once per file.
        head, name = os.path.split(os.fspath(path))
        if name in ("", ".", ".."):
            resolved = self._realpath(here, os.fspath(path))
        else:
            resolved = os.path.join(self._realpath(here, head or "."), name)
        inside = cwd.rstrip(os.sep) + os.sep
        if resolved == cwd:
            text = "."
        elif resolved.startswith(inside):
            text = resolved[len(inside) :].replace(os.sep, "/")
        else:
            text = path.as_posix()
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")

    def _realpath(self, cwd: str, path: str) -> str:
        """os.path.realpath, remembered for this Config (one run) per working directory."""
        key = (cwd, path)
        found = self._real.get(key)
        if found is None:
            found = self._real[key] = os.path.realpath(path)
        return found


def freeze(value: Any) -> Any:
    """Deep-immutable copy of parsed TOML/JSON data."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def find_config(start: Path) -> tuple[Path, dict[str, Any], str] | None:
    """The nearest promptc.toml, or pyproject.toml with [tool.promptc], walking up."""
    for folder in (start, *start.parents):
        for name in ("promptc.toml", "pyproject.toml"):
            candidate = folder / name
            if not candidate.is_file():
                continue
            text, data = _read_toml(candidate)
            if name == "promptc.toml":
                return candidate, data, text
            table = data.get("tool", {}).get("promptc")
            if table is not None:
                if not isinstance(table, dict):
                    raise ConfigError(f"{candidate}:1:1: [tool.promptc] must be a table")
                return candidate, table, text
    return None


def _read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def load_config(path: Path | None = None, cwd: Path | None = None) -> Config:
    """Find (or read `path`), validate and freeze the configuration."""
    cwd = (cwd or Path.cwd()).resolve()
    found = _explicit(path.resolve()) if path is not None else find_config(cwd)
    if found is None:
        return _build(cwd, None, {}, "")
    source, table, text = found
    return _build(source.parent, source, table, text)


def _explicit(path: Path) -> tuple[Path, dict[str, Any], str]:
    if not path.is_file():
        raise ConfigError(f"{path}: config file not found")
    text, data = _read_toml(path)
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("promptc")
        if not isinstance(table, dict):
            raise ConfigError(f"{path}:1:1: no [tool.promptc] table")
        return path, table, text
    return path, data, text


def _build(root: Path, source: Path | None, table: dict[str, Any], text: str) -> Config:
    prefix = ("tool", "promptc") if source is not None and source.name == "pyproject.toml" else ()
    checker = _Checker(source, text, prefix)
    checker.validate(table)
    merged = {**DEFAULTS, **table}
    return Config(
        root=root,
        source=source,
        specs=(root / merged["specs"]).resolve(),
        fragments=(root / merged["fragments"]).resolve(),
        out=(root / merged["out"]).resolve(),
        targets=freeze(merged["targets"]),
        custom_tools=tuple(merged["custom_tools"]),
        default_agent=merged["default_agent"],
        permission=freeze(merged["permission"]),
        rules=MappingProxyType(checker.rules(merged["rules"])),
        cache=merged["cache"],
    )


@dataclass
class _Checker:
    """Validates a config table and points each error at its line in the TOML text."""

    source: Path | None
    text: str
    prefix: tuple[str, ...]

    def table_name(self, path: tuple[str | int, ...]) -> str:
        return (
            "[" + ".".join(map(str, self.prefix + path)) + "]"
            if self.prefix + path
            else "the top level"
        )

    def fail(self, path: tuple[str, ...], message: str) -> ConfigError:
        line, column = locate(self.text, self.prefix + path)
        where = f"{self.source}:{line}:{column}" if self.source else "<defaults>"
        return ConfigError(f"{where}: {message}")

    def validate(self, table: dict[str, Any]) -> None:
        from compiler import targets

        error = first_error(table, SchemaValidator(load_schema("config")), self.table_name)
        if error is not None:
            path, message = error
            raise self.fail(path, message)
        for name, options in table.get("targets", {}).items():
            module = targets.TARGETS.get(name)
            if module is None:
                hint = did_you_mean(name, targets.TARGETS)
                raise self.fail(("targets", name), f"unknown target '{name}'{hint}")
            self._check_options(("targets", name), options, targets.options_schema(module))

    def _check_options(self, where: tuple[str, ...], value: Any, schema: Mapping[str, Any]) -> None:
        validator = SchemaValidator(schema)
        error = first_error(value, validator, lambda p: self.table_name(where + p))
        if error is not None:
            path, message = error
            raise self.fail(where + path, message)

    def rules(self, table: Mapping[str, Any]) -> dict[str, RuleSettings]:
        from compiler import rules

        settings: dict[str, RuleSettings] = {}
        for rule_id, module in rules.RULES.items():
            raw = dict(table.get(rule_id, {}))
            self._check_options(("rules", rule_id), raw, rules.options_schema(module))
            level_name = raw.pop("level", module.DEFAULT_LEVEL)
            if module.STAGE and level_name != module.DEFAULT_LEVEL:
                raise self.fail(("rules", rule_id, "level"), f"'{rule_id}' cannot be reconfigured")
            options = {**rules.option_defaults(module), **raw}
            settings[rule_id] = RuleSettings(LEVELS[level_name], freeze(options))
        for rule_id in table:
            if rule_id not in rules.RULES:
                hint = did_you_mean(rule_id, rules.RULES)
                raise self.fail(("rules", rule_id), f"unknown rule '{rule_id}'{hint}")
        return settings
