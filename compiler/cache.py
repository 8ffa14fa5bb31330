"""Cache: skip the whole pipeline when nothing it reads has changed.

`promptc build` and `promptc check` are pure functions of their inputs, so
their result (the diagnostics) is stored under a hash of everything they read:

- promptc itself: its version and the bytes of every module and schema it ships
  (hashing ~70 small files costs about a millisecond; stat data would miss a
  same-size edit within one mtime tick), plus the Python version and where
  each dependency is installed, with its size and mtime;
- the config file's path and bytes, the working directory (diagnostics name
  files relative to it) and the environment the permission model reads
  (HOME, XDG_DATA_HOME, TMPDIR, TMP, TEMP);
- every file under the specs and fragments folders: path and bytes (contents,
  never mtimes), and the targets selected.

A bundle with a symlink anywhere in its trees is never cached (a link can
change what it points to without any file here changing).

Inputs are hashed before the run and again after it; the result is stored
only when both agree, so a file edited mid-run cannot pin a stale answer.
A result whose outputs were checked or written also records the hash of the
manifest and of every file it names or the build produces: a hit re-reads them
and is a miss unless the output folder is byte for byte as it was.

Entries live in `.promptc-cache/` next to the config (the folder ignores
itself with its own .gitignore), are written atomically, and any unreadable or
malformed entry is a miss. `--no-cache`, PROMPTC_NO_CACHE=1 or `cache = false`
in the config turn it off.

This module is on the warm path: it imports neither YAML, Jinja2 nor
jsonschema, and reads the config's raw TOML without validating it (a stored
entry exists only for a config that validated when it was stored).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compiler import __version__
from compiler.diagnostics import Diagnostic, Fix, Severity

FOLDER = ".promptc-cache"
FORMAT = 1  # bump when the entry layout changes
KEEP = 16  # entries kept per bundle; the oldest go first
ENVIRONMENT = ("HOME", "XDG_DATA_HOME", "TMPDIR", "TMP", "TEMP")
DEPENDENCIES = ("yaml", "jinja2", "jsonschema", "click")
MANIFEST = ".promptc-manifest.json"  # compiler.writer.MANIFEST, without importing the writer


@dataclass(frozen=True)
class Layout:
    """What the cache needs to know of a bundle: where its inputs and outputs are."""

    root: Path
    source: Path | None
    specs: Path
    fragments: Path
    out: Path
    targets: tuple[str, ...]  # every configured target, sorted


@dataclass(frozen=True)
class Hit:
    """A stored result, valid for the inputs and output folder as they are now."""

    diagnostics: tuple[Diagnostic, ...]
    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    fixed: tuple[str, ...] = ()


def disabled(environ: Mapping[str, str]) -> bool:
    return environ.get("PROMPTC_NO_CACHE", "") not in ("", "0")


def raw_layout(config_path: Path | None, cwd: Path) -> tuple[Layout, bool] | None:
    """The bundle's layout and whether its config allows caching, from the raw
    TOML (no validation); None when the config cannot be read."""
    from compiler.config import DEFAULTS, find_config

    cwd = cwd.resolve()
    source: Path | None = None
    table: Any = {}
    try:
        if config_path is not None:
            source = config_path.resolve()
            data = tomllib.loads(source.read_text(encoding="utf-8"))
            table = data.get("tool", {}).get("promptc") if source.name == "pyproject.toml" else data
        else:
            located = find_config(cwd)
            if located is not None:
                source, table = located[0], located[1]
    except Exception:  # any problem: the full run reports it properly
        return None
    if not isinstance(table, dict):
        return None
    root = source.parent if source else cwd
    merged = {**DEFAULTS, **table}
    try:
        layout = Layout(
            root,
            source,
            (root / merged["specs"]).resolve(),
            (root / merged["fragments"]).resolve(),
            (root / merged["out"]).resolve(),
            tuple(sorted(merged["targets"])),
        )
    except (TypeError, AttributeError):
        return None
    return layout, table.get("cache", True) is not False


def key(layout: Layout, mode: str, only: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """The hash of every input of a run (`mode` names the command and its flags);
    None when the bundle cannot be cached."""
    digest = hashlib.sha256()

    def add(*parts: object) -> None:
        for part in parts:
            data = part if isinstance(part, bytes) else repr(part).encode()
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)

    add(FORMAT, __version__, _code_digest(), sys.version, str(Path.cwd()))
    add(*(environ.get(name) for name in ENVIRONMENT))
    add(str(layout.root), str(layout.source), str(layout.specs), str(layout.fragments))
    add(str(layout.out), layout.targets, tuple(sorted(only)), mode)
    if layout.source is not None:
        try:
            add(layout.source.read_bytes())
        except OSError:
            return None
    for folder in (layout.specs, layout.fragments):
        try:
            files = _tree(folder)
        except OSError:  # unreadable: the full run reports it
            return None
        if files is None:
            return None
        for path in files:
            try:
                add(str(path), path.read_bytes())
            except OSError:
                return None
    return digest.hexdigest()


_CODE: list[str] = []


def _code_digest() -> str:
    """promptc's own code and schemas, and where its dependencies are installed."""
    if _CODE:
        return _CODE[0]
    from importlib.util import find_spec

    from compiler.resources import schema_dir

    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    files = sorted(package.rglob("*.py")) + sorted(schema_dir().glob("*.json"))
    for path in files:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    for name in DEPENDENCIES:
        spec = find_spec(name)
        origin = spec.origin if spec else None
        stat = os.stat(origin) if origin else None
        digest.update(repr((name, origin, stat and (stat.st_size, stat.st_mtime_ns))).encode())
    _CODE.append(digest.hexdigest())
    return _CODE[0]


def _tree(folder: Path) -> list[Path] | None:
    """Every file under folder, sorted; None when a symlink is found."""
    if folder.is_symlink():
        return None
    if not folder.is_dir():
        return [] if not folder.exists() else None
    files: list[Path] = []
    for top, dirs, names in os.walk(folder):
        for name in (*dirs, *names):
            if os.path.islink(os.path.join(top, name)):
                return None
        for name in names:
            # A FIFO or device would block (or never end) when hashed: such a
            # bundle is never cached, and the loader reports the file.
            if not stat.S_ISREG(os.lstat(os.path.join(top, name)).st_mode):
                return None
        files.extend(Path(top, name) for name in names)
    return sorted(files)


# Entries.


def _entry_path(layout: Layout, digest: str) -> Path:
    return layout.root / FOLDER / f"{digest}.json"


def lookup(layout: Layout, digest: str) -> Hit | None:
    """The stored result for `digest`, if any and if the output folder still matches."""
    try:
        data = json.loads(_entry_path(layout, digest).read_text(encoding="utf-8"))
        if data.get("format") != FORMAT or data.get("key") != digest:
            return None
        outputs = data["outputs"]
        if outputs is not None and (
            _snapshot(layout.out, outputs) != outputs or _littered(layout.out)
        ):
            return None
        return Hit(tuple(_diagnostic(item) for item in data["diagnostics"]))
    except Exception:  # missing, unreadable or malformed: a miss
        return None


def store(
    layout: Layout,
    digest: str,
    diagnostics: Iterable[Diagnostic],
    outputs: Iterable[str] | None,
) -> None:
    """Record a result. `outputs` (paths under out/) are hashed as they are now;
    None means the result does not depend on the output folder."""
    folder = layout.root / FOLDER
    try:
        folder.mkdir(exist_ok=True)
        ignore = folder / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# Created by promptc: the cache is never committed.\n*\n")
        snapshot = (
            None if outputs is None else _snapshot(layout.out, _with_manifest(layout, outputs))
        )
        entry = {
            "format": FORMAT,
            "key": digest,
            "outputs": snapshot,
            "diagnostics": [_encode(d) for d in diagnostics],
        }
        target = _entry_path(layout, digest)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(entry), encoding="utf-8")
        os.replace(temporary, target)
        _prune(folder)
    except OSError:
        return  # a cache that cannot be written only costs speed


def _with_manifest(layout: Layout, outputs: Iterable[str]) -> list[str]:
    """The outputs, the manifest and every file the manifest names."""
    names = {*outputs, MANIFEST}
    with contextlib.suppress(OSError, ValueError, AttributeError):
        manifest = json.loads(_regular_bytes(layout.out / MANIFEST))
        names.update(str(name) for name in manifest.get("files", {}))
    return sorted(names)


def _snapshot(out: Path, names: Iterable[str]) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = hashlib.sha256(_regular_bytes(out / name)).hexdigest()
        except FileNotFoundError:
            found[name] = None
    return found


def _littered(out: Path) -> bool:
    """Whether a killed build left temporary files behind: only a real build
    clears them, so their presence is a miss."""
    from compiler.writer import TEMP_NAME

    return any(TEMP_NAME.match(name) for _, _, names in os.walk(out) for name in names)


def _regular_bytes(path: Path) -> bytes:
    """A regular file's bytes. A FIFO would block and a symlink may lead anywhere:
    both raise OSError, which makes a lookup miss and a store give up."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        return handle.read()


def _prune(folder: Path) -> None:
    entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in entries[KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()


def _encode(d: Diagnostic) -> dict[str, object]:
    fix = None if d.fix is None else [d.fix.start, d.fix.end, d.fix.text]
    return {
        "path": d.path,
        "line": d.line,
        "column": d.column,
        "rule": d.rule,
        "severity": d.severity.value,
        "message": d.message,
        "hint": d.hint,
        "fix": fix,
    }


def _diagnostic(item: Mapping[str, object]) -> Diagnostic:
    fix = item["fix"]
    return Diagnostic(
        str(item["path"]),
        int(item["line"]),  # type: ignore[call-overload]
        int(item["column"]),  # type: ignore[call-overload]
        str(item["rule"]),
        Severity(item["severity"]),
        str(item["message"]),
        None if item["hint"] is None else str(item["hint"]),
        None if fix is None else Fix(*fix),  # type: ignore[misc]
    )
