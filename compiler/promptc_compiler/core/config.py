"""Configuration: discovery, defaults, validation, and the frozen Config.

Where a config is found and what it holds: docs/reference/config.md. Defaults
live here, in code; the loaded result is immutable and passed explicitly.

This module validates the config's own keys (schemas/config.schema.json)
and where its folders lie: `specs`, `fragments` and `out` inside the project
(the folder holding the config), the output never in the sources (the rule:
docs/robustness.md, "Where promptc writes"). Every problem is reported at
once, each at its key's line (ConfigErrors). The tables of `[rules.<id>]` and
`[targets.<name>]` are kept as written: the rule runner (promptc_compiler.pipeline.lint) and
the target registry check them against each rule's and target's own options,
where they are used, and report a problem at its line here (`Config.fail`,
`Config.check_table`).
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from promptc_compiler.base.confine import Area, inside
from promptc_compiler.base.errors import ConfigError
from promptc_compiler.base.files import CACHE_FOLDER, read_config
from promptc_compiler.base.limits import toml_problem, tomllib_loads
from promptc_compiler.base.source import SOURCE
from promptc_compiler.core.resources import load_schema
from promptc_compiler.core.tomlpos import locate, toml_error
from promptc_compiler.core.validate import SchemaValidator, issues

DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {
        "specs": "specs",
        "fragments": "fragments",
        "out": "build",
        "layout": "out",
        "targets": {SOURCE: {}},
        "custom_tools": [],
        "default_agent": None,
        "permission": None,
        "rules": {},
        "cache": True,
    }
)

# `layout = "root"`: each runtime's files at the project root, where the
# runtime reads them (promptc_compiler.pipeline.emitter.place); "out": each target under
# `<out>/<target>/`, ready to copy.
ROOT_LAYOUT = "root"

# The folders a bundle is read from: never written, never holding the output.
SOURCES = ("specs", "fragments")


class ConfigErrors(ConfigError):
    """Every problem found in a config, each `file:line:col: message` on a line
    of its own, in the order of the file (`messages`, one per problem)."""

    def __init__(self, messages: Sequence[str]) -> None:
        super().__init__("\n".join(messages))
        self.messages = tuple(messages)

    @classmethod
    def of(cls, errors: Iterable[ConfigError]) -> ConfigErrors:
        """The problems of several errors as one."""
        found = [getattr(e, "messages", None) or (str(e),) for e in errors]
        return cls([message for messages in found for message in messages])


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
    # `[rules.<id>]` tables as written (promptc_compiler.pipeline.lint checks and completes them).
    rules: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    # Store results in .promptc-cache/ so an unchanged bundle skips the work
    # (promptc_compiler.pipeline.cache).
    cache: bool = True
    # "out" or ROOT_LAYOUT: where each target's files land.
    layout: str = "out"
    # The config file's text, and the table promptc's keys live under in it:
    # where a problem found in a table later is reported.
    text: str = field(default="", repr=False, compare=False)
    prefix: tuple[str, ...] = field(default=(), repr=False, compare=False)
    # An editor's unsaved texts by file path (the paths the bundle's walk
    # finds): the loader reads these instead of the files (promptc_compiler.editor.lsp).
    overlays: Mapping[Path, str] = field(
        default_factory=lambda: MappingProxyType({}), repr=False, compare=False
    )
    # `--ignore-inline-suppressions` (CI): the specs' own suppression comments count
    # for nothing, only the config's (promptc_compiler.core.suppress). Never cached.
    inline_suppressions: bool = field(default=True, compare=False)
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

    @property
    def at_root(self) -> bool:
        """Whether the runtimes' files land at the project root (`layout = "root"`)."""
        return self.layout == ROOT_LAYOUT

    @property
    def base(self) -> Path:
        """The folder the writer keeps its manifest in, and every generated path is
        relative to: the project root in the root layout, else `out`."""
        return self.root if self.at_root else self.out

    def where(self, path: tuple[str, ...]) -> tuple[int, int]:
        """Line and column of the key at `path` (below promptc's table) in the config file."""
        return locate(self.text, (*self.prefix, *path))

    def fail(self, path: tuple[str, ...], message: str) -> ConfigError:
        """A ConfigError about the key at `path` (below promptc's table), at its line."""
        return ConfigError(self._placed(path, message)[2])

    def _placed(self, path: tuple[str, ...], message: str) -> tuple[int, int, str]:
        line, column = self.where(path)
        where = f"{shown(self.source)}:{line}:{column}" if self.source else "<defaults>"
        return line, column, f"{where}: {message}"

    def check_table(self, where: tuple[str, ...], value: Any, schema: Mapping[str, Any]) -> None:
        """Raise a ConfigError naming every problem of the table at `where` against
        `schema`, each at its line."""
        found = self.table_problems(where, value, schema)
        if found:
            raise self.failures(found)

    def table_problems(
        self, where: tuple[str, ...], value: Any, schema: Mapping[str, Any]
    ) -> list[tuple[tuple[str, ...], str]]:
        """Each problem of the table at `where` against `schema`: (key path, message)."""
        plain = thaw(value)  # a schema's "object" and "array" are dict and list
        found = issues(
            plain, SchemaValidator(schema), lambda p: self.table_name(where + p), yaml=False
        )
        return [(where + tuple(map(str, path)), message) for path, message, _ in found]

    def failures(self, problems: Iterable[tuple[tuple[str, ...], str]]) -> ConfigErrors:
        """One ConfigError for every (key path, message), in the order of the file."""
        placed = sorted(self._placed(path, message) for path, message in problems)
        return ConfigErrors([text for _, _, text in placed])

    def area(self) -> Area:
        """Where a run may write (promptc_compiler.base.confine): inside the project, never
        through a symlink, never in the sources or the result cache."""
        barred = {str(folder): "the sources" for folder in (self.specs, self.fragments)}
        barred[str(self.root / CACHE_FOLDER)] = "the result cache"
        return Area(self.root, barred)

    def table_name(self, path: tuple[str | int, ...]) -> str:
        """How messages name the table at `path`: `[tool.promptc.rules.x]`."""
        full = (*self.prefix, *path)
        return "[" + ".".join(map(str, full)) + "]" if full else "the top level"

    def _realpath(self, cwd: str, path: str) -> str:
        """os.path.realpath, remembered for this Config (one run) per working directory."""
        key = (cwd, path)
        found = self._real.get(key)
        if found is None:
            found = self._real[key] = os.path.realpath(path)
        return found


def _check_pasted_prefix(config: Config, table: Mapping[str, Any]) -> None:
    """`[tool.promptc...]` tables copied from a pyproject.toml into promptc.toml, where
    promptc's keys stand at the top level: say to drop the prefix, at the header."""
    tool = table.get("tool")
    if not isinstance(tool, Mapping) or "promptc" not in tool:
        return
    line, column = locate(config.text, ("tool", "promptc"))
    header = config.text.splitlines()[line - 1].split("#", 1)[0].strip() if line else ""
    name = header.strip("[] ")
    if name.startswith("tool.promptc."):
        advice = f"drop the `tool.promptc.` prefix (`[{name.removeprefix('tool.promptc.')}]`)"
    else:
        advice = "drop the `[tool.promptc]` header"
    where = f"{shown(config.source)}:{line}:{column}"
    raise ConfigError(
        f"{where}: {header or '[tool.promptc]'}: promptc.toml holds promptc's keys at the "
        f"top level; {advice}"
    )


def freeze(value: Any) -> Any:
    """Deep-immutable copy of parsed TOML/JSON data."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """freeze(), undone: plain dicts and lists again."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


def shown(path: Path | None) -> str:
    """A config file as messages name it: relative to the working directory when
    inside it, as diagnostics name every file (Config.display)."""
    if path is None:
        return "<defaults>"
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


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
                    raise ConfigError(f"{shown(candidate)}:1:1: [tool.promptc] must be a table")
                return candidate, table, text
    return None


def _read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = read_config(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{shown(path)}: cannot read config: {exc}") from None
    try:
        return text, tomllib_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _invalid_toml(path, text, str(exc)) from None


def _invalid_toml(path: Path, text: str, error: str) -> ConfigError:
    """A TOML syntax error at `path:line:col:`, as every other config problem is named
    (an editor places it by that); "at end of document" is the end of the last line."""
    message, line, column = toml_error(text, error)
    if not line:
        return ConfigError(f"{shown(path)}: invalid TOML: {error}")
    return ConfigError(f"{shown(path)}:{line}:{column}: invalid TOML: {message}")


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
        raise ConfigError(f"{shown(path)}: config file not found")
    text, data = _read_toml(path)
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("promptc")
        if not isinstance(table, dict):
            raise ConfigError(f"{shown(path)}:1:1: no [tool.promptc] table")
        return path, table, text
    return path, data, text


def _build(root: Path, source: Path | None, table: dict[str, Any], text: str) -> Config:
    prefix = ("tool", "promptc") if source is not None and source.name == "pyproject.toml" else ()
    unchecked = Config(root, source, root, root, root, {}, (), None, text=text, prefix=prefix)
    if not prefix:
        _check_pasted_prefix(unchecked, table)
    refused = toml_problem(table)
    if refused is not None:  # before any check reads it (promptc_compiler.base.limits)
        raise unchecked.failures([refused])
    problems = unchecked.table_problems((), table, load_schema("config"))
    wrong = {path[0] for path, _ in problems if path}
    merged = {**DEFAULTS, **table}
    problems += _layout_problems(root, source, merged, wrong, given=table)
    if problems:
        raise unchecked.failures(problems)
    return Config(
        root=root,
        source=source,
        specs=(root / merged["specs"]).resolve(),
        fragments=(root / merged["fragments"]).resolve(),
        # As written, not resolved: the writer refuses a symlink on the way
        # (promptc_compiler.base.confine) instead of writing where it leads.
        out=Path(os.path.normpath(root / merged["out"])),
        targets=freeze(merged["targets"]),
        custom_tools=tuple(merged["custom_tools"]),
        default_agent=merged["default_agent"],
        permission=freeze(merged["permission"]),
        rules=freeze(merged["rules"]),
        cache=merged["cache"],
        layout=merged["layout"],
        text=text,
        prefix=prefix,
    )


def _layout_problems(
    root: Path,
    source: Path | None,
    merged: Mapping[str, Any],
    wrong: Collection[str],
    given: Mapping[str, Any],
) -> list[tuple[tuple[str, ...], str]]:
    """Where the folders lie: each inside the project, the sources a folder in it
    (symlinks resolved: they are read through), the output (as written: it is
    never written through a symlink) neither in the sources nor in the cache.
    The output may hold the sources (`out = "."`): the writer never writes in
    them (Config.area). `wrong`: keys the schema refused already."""
    holder = f"the folder holding {source.name}" if source else "the working directory"
    found: list[tuple[tuple[str, ...], str]] = []
    folders: dict[str, str] = {}
    for key in (*SOURCES, "out"):
        if key in wrong:
            continue
        setting = f"`{key} = {json.dumps(merged[key], ensure_ascii=False)}`"
        setting += "" if key in given else " (the default)"
        folder, problem = _folder_problem(str(root), key, merged[key], holder)
        if problem is None:
            folders[key] = folder
        else:
            found.append(((key,), f"{setting} {problem}"))
    out = folders.get("out")
    for key in SOURCES:
        if out is not None and key in folders and inside(out, folders[key]):
            at = f"`out = {json.dumps(merged['out'], ensure_ascii=False)}`"
            found.append(
                (("out",), f"{at} lies in the sources (`{key}`): a build would write over them")
            )
    return found


def _folder_problem(project: str, key: str, value: str, holder: str) -> tuple[str, str | None]:
    """The folder `key` names (absolute), and what is wrong with where it lies."""
    written = os.path.normpath(os.path.join(project, value))
    real = os.path.realpath(written) if key in SOURCES else written
    does = "reads its sources" if key in SOURCES else "writes"
    if not inside(written, project):
        return (
            real,
            f"leads outside the project ({project}, {holder}); promptc {does} only inside it",
        )
    if not inside(real, project):
        return real, (
            f"leads outside the project through a symlink (to {real}); "
            f"promptc {does} only inside the project"
        )
    if key in SOURCES and real == project:
        return (
            real,
            "is the whole project: the sources are a folder inside it, apart from the output",
        )
    if inside(real, os.path.join(project, CACHE_FOLDER)):
        return real, f"lies in promptc's result cache (`{CACHE_FOLDER}`): choose another folder"
    return real, None
