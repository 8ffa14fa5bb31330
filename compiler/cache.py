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

Inputs are hashed before the run and checked again after it (`unchanged`:
files that last changed well before the run by their stat data, the others by
their hash); the result is stored only when nothing changed, so a file edited
mid-run cannot pin a stale answer. When the cache holds no result for the
bundle at all, the lookup cannot hit: the inputs are hashed by a forked child
while the run imports its pipeline (key_ahead), and collected before the run
reads any of them. A result whose outputs were checked or
written also records the hash of the manifest and of every file it names or
the build produces (as the run wrote or compared it, without reading it
again): a hit re-reads them and is a miss unless the output folder is byte
for byte as it was.

Entries live in `.promptc-cache/` next to the config (the folder ignores
itself with its own .gitignore), are written atomically, and any unreadable or
malformed entry is a miss. `--no-cache`, PROMPTC_NO_CACHE=1 or `cache = false`
in the config turn it off.

This module is on the warm path: it imports neither YAML, Jinja2 nor
jsonschema, and reads the config's raw TOML without validating it (a stored
entry exists only for a config that validated when it was stored).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time

from compiler import __version__, resources

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from os import PathLike
    from typing import Any

    from compiler.diagnostics import Diagnostic

FOLDER = ".promptc-cache"
FORMAT = 2  # bump when the entry layout or the key changes
KEEP = 16  # entries kept per bundle; the oldest go first
ENVIRONMENT = ("HOME", "XDG_DATA_HOME", "TMPDIR", "TMP", "TEMP")
DEPENDENCIES = ("yaml", "jinja2", "jsonschema", "click")
MANIFEST = ".promptc-manifest.json"  # compiler.writer.MANIFEST, without importing the writer
# The layout keys of compiler.config.DEFAULTS, without importing the config
# module (tests/test_cache.py keeps the two equal).
LAYOUT_DEFAULTS = {"specs": "specs", "fragments": "fragments", "out": "build"}
DEFAULT_TARGETS = ("opencode",)


class Layout:
    """What the cache needs to know of a bundle: where its inputs and outputs are.

    Absolute paths as strings: the warm path never imports pathlib.
    """

    __slots__ = ("fragments", "out", "root", "source", "specs", "targets")

    def __init__(
        self,
        root: str | PathLike[str],
        source: str | PathLike[str] | None,
        specs: str | PathLike[str],
        fragments: str | PathLike[str],
        out: str | PathLike[str],
        targets: tuple[str, ...],  # every configured target, sorted
    ) -> None:
        self.root = os.fspath(root)
        self.source = None if source is None else os.fspath(source)
        self.specs = os.fspath(specs)
        self.fragments = os.fspath(fragments)
        self.out = os.fspath(out)
        self.targets = targets


class Hit:
    """A stored result, valid for the inputs and output folder as they are now.

    The diagnostics are rebuilt only when asked for: a run with nothing to
    show reads the severities alone, and never imports the diagnostics module.
    """

    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    fixed: tuple[str, ...] = ()

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self._items = items
        self._built: tuple[Diagnostic, ...] | None = None
        self.severities = [str(item["severity"]) for item in items]

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        if self._built is None:
            self._built = tuple(_diagnostic(item) for item in self._items)
        return self._built


def disabled(environ: Mapping[str, str]) -> bool:
    return environ.get("PROMPTC_NO_CACHE", "") not in ("", "0")


def raw_layout(
    config_path: str | PathLike[str] | None, cwd: str | PathLike[str]
) -> tuple[Layout, bool] | None:
    """The bundle's layout and whether its config allows caching, from the raw
    TOML (no validation); None when the config cannot be read."""
    cwd = os.path.realpath(cwd)
    indexed = _indexed_layout(config_path, cwd)
    if indexed is not None:
        return indexed, True
    import tomllib

    source: str | None = None
    table: Any = {}
    try:
        if config_path is not None:
            source = os.path.realpath(config_path)
            with open(source, encoding="utf-8") as handle:
                data = tomllib.loads(handle.read())
            pyproject = os.path.basename(source) == "pyproject.toml"
            table = data.get("tool", {}).get("promptc") if pyproject else data
        else:
            located = _find_config(cwd, tomllib.loads)
            if located is not None:
                source, table = located
    except Exception:  # any problem: the full run reports it properly
        return None
    if not isinstance(table, dict):
        return None
    root = os.path.dirname(source) if source else cwd
    merged = {**LAYOUT_DEFAULTS, **table}
    try:
        targets = table.get("targets", dict.fromkeys(DEFAULT_TARGETS))
        layout = Layout(
            root,
            source,
            os.path.realpath(os.path.join(root, merged["specs"])),
            os.path.realpath(os.path.join(root, merged["fragments"])),
            os.path.realpath(os.path.join(root, merged["out"])),
            tuple(sorted(targets)),
        )
    except (TypeError, AttributeError):
        return None
    return layout, table.get("cache", True) is not False


def _indexed_layout(config_path: str | PathLike[str] | None, cwd: str) -> Layout | None:
    """The layout a stored result recorded for this very config file, without reading TOML.

    store() writes `layout-<hash of the config's path and bytes>.json` next to
    its entries; such a file exists only for a config that validated and
    allowed caching. Any doubt (no config file, a pyproject.toml that may not
    be the config, an unreadable index) is None, and raw_layout parses the TOML.
    """
    try:
        if config_path is not None:
            source = os.path.realpath(config_path)
        else:
            found = _first_candidate(cwd)
            if found is None:
                return None
            source = found
        with open(source, "rb") as handle:
            raw = handle.read()
        root = os.path.dirname(source)
        with open(os.path.join(root, FOLDER, _index_name(source, raw)), encoding="utf-8") as handle:
            data = json.load(handle)
        return Layout(
            root,
            source,
            str(data["specs"]),
            str(data["fragments"]),
            str(data["out"]),
            tuple(str(t) for t in data["targets"]),
        )
    except Exception:  # missing or malformed: parse the config instead
        return None


def _first_candidate(start: str) -> str | None:
    folder = start
    while True:
        for name in ("promptc.toml", "pyproject.toml"):
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _index_name(source: str, raw: bytes) -> str:
    digest = hashlib.sha256(repr((FORMAT, source)).encode() + b"\0" + raw).hexdigest()
    return f"layout-{digest}.json"


def _find_config(start: str, parse: Any) -> tuple[str, Any] | None:
    """compiler.config.find_config without pathlib: (path, raw table) or None."""
    folder = start
    while True:
        for name in ("promptc.toml", "pyproject.toml"):
            candidate = os.path.join(folder, name)
            if not os.path.isfile(candidate):
                continue
            with open(candidate, encoding="utf-8") as handle:
                data = parse(handle.read())
            if name == "promptc.toml":
                return candidate, data
            table = data.get("tool", {}).get("promptc")
            if table is not None:
                return candidate, table
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def key(layout: Layout, mode: str, only: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """The hash of every input of a run (`mode` names the command and its flags);
    None when the bundle cannot be cached."""
    digest = _key(layout, mode, only, environ)
    _MISSED[:] = [(_signature(layout, mode, only, environ), digest)]
    return digest


def key_before_run(
    layout: Layout, mode: str, only: Sequence[str], environ: Mapping[str, str]
) -> str | None:
    """key(), reusing the one the lookup of this very run just computed (once):
    at N files, hashing them again costs as much as the lookup did."""
    if _MISSED and _MISSED[0][0] == _signature(layout, mode, only, environ):
        return _MISSED.pop()[1]
    return key(layout, mode, only, environ)


_MISSED: list[tuple[tuple[object, ...], str | None]] = []


def _is_entry(name: str) -> bool:
    """An entry's file name: its key (64 hex digits) and `.json`."""
    digest, dot, suffix = name.partition(".")
    return dot == "." and suffix == "json" and len(digest) == 64 and digest.isalnum()


def may_hit(layout: Layout) -> bool:
    """Whether the cache holds any result for this bundle (else a lookup must miss)."""
    try:
        with os.scandir(os.path.join(layout.root, FOLDER)) as entries:
            return any(_is_entry(entry.name) for entry in entries)
    except OSError:
        return False


def _signature(
    layout: Layout, mode: str, only: Sequence[str], environ: Mapping[str, str]
) -> tuple[object, ...]:
    where = (layout.root, layout.source, layout.specs, layout.fragments, layout.out)
    inputs = (layout.targets, tuple(sorted(only)), mode, os.getcwd())
    return (*where, *inputs, tuple(environ.get(name) for name in ENVIRONMENT))


def unchanged(
    layout: Layout, mode: str, only: Sequence[str], environ: Mapping[str, str], digest: str
) -> bool:
    """Whether every input still holds what the key `digest` was computed from.

    Asked after a run, to store its result only when nothing changed meanwhile.
    A file whose last change was well before the key read it (_SETTLED) and
    whose stat data are as they were then is unchanged: any write since would
    have moved its ctime past that change. Only the others are read again,
    and compared by their hash. Without a record of that key's reading, all
    the inputs are hashed again."""
    reading = _READINGS.get(digest)
    if reading is None:
        return _key(layout, mode, only, environ) == digest
    paths = [] if layout.source is None else [layout.source]
    for folder in (layout.specs, layout.fragments):
        try:
            files = _tree(folder)
        except OSError:
            return False
        if files is None:
            return False
        paths += files
    if len(paths) != len(reading.files) or any(path not in reading.files for path in paths):
        return False  # a file came or went
    return all(reading.same(path) for path in paths)


# How long before a key's reading a file must have last changed for its stat
# data to vouch for its bytes: more than the coarsest timestamp a file system
# keeps (FAT: 2 s) and a small step of the clock.
_SETTLED_NS = 5_000_000_000


class _Reading:
    """What one key read: each file's stat data, and the hash of the files that
    changed too recently (_SETTLED_NS) for stat data to vouch for them."""

    __slots__ = ("files", "settled_before")

    def __init__(self) -> None:
        self.settled_before = time.time_ns() - _SETTLED_NS
        self.files: dict[str, tuple[int, int, int, int] | bytes] = {}

    def __getstate__(self) -> tuple[int, dict[str, tuple[int, int, int, int] | bytes]]:
        return self.settled_before, self.files

    def __setstate__(self, state: tuple[int, dict[str, tuple[int, int, int, int] | bytes]]) -> None:
        self.settled_before, self.files = state

    def read(self, path: str) -> bytes:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            info = os.fstat(fd)
            data = _read_fd(fd, info.st_size, None)
        finally:
            os.close(fd)
        noted = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        if max(info.st_mtime_ns, info.st_ctime_ns) < self.settled_before:
            self.files[path] = noted
        else:
            self.files[path] = hashlib.sha256(data).digest()
        return data

    def same(self, path: str) -> bool:
        noted = self.files[path]
        try:
            if isinstance(noted, bytes):
                return hashlib.sha256(_read(path)).digest() == noted
            info = os.stat(path)
        except OSError:
            return False
        return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns) == noted


_READINGS: dict[str, _Reading] = {}  # the last key computed, and what it read


def _key(layout: Layout, mode: str, only: Sequence[str], environ: Mapping[str, str]) -> str | None:
    reading = _Reading()
    found = _hashed(layout, mode, only, environ, reading)
    _READINGS.clear()
    if found is not None:
        _READINGS[found] = reading
    return found


def _hashed(
    layout: Layout,
    mode: str,
    only: Sequence[str],
    environ: Mapping[str, str],
    reading: _Reading,
) -> str | None:
    digest = hashlib.sha256()

    def add(*parts: object) -> None:
        for part in parts:
            data = part if isinstance(part, bytes) else repr(part).encode()
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)

    add(FORMAT, __version__, _code_digest(), sys.version, os.getcwd())
    add(*(environ.get(name) for name in ENVIRONMENT))
    add(layout.root, layout.source, layout.specs, layout.fragments)
    add(layout.out, layout.targets, tuple(sorted(only)), mode)
    if layout.source is not None:
        try:
            config = reading.read(layout.source)
        except OSError:
            return None
        add(config)
        _CONFIG_READ[layout.source] = config
    for folder in (layout.specs, layout.fragments):
        try:
            files = _tree(folder)
        except OSError:  # unreadable: the full run reports it
            return None
        if files is None:
            return None
        for path in files:
            try:
                add(path, reading.read(path))
            except OSError:
                return None
    return digest.hexdigest()


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


_CODE: list[str] = []
_CONFIG_READ: dict[str, bytes] = {}  # the config bytes each key was computed from


def _code_digest() -> str:
    """promptc's own code and schemas, and where its dependencies are installed."""
    if _CODE:
        return _CODE[0]
    digest = hashlib.sha256()
    package = os.path.dirname(os.path.realpath(__file__))
    schemas = resources.schema_folder()
    files = [p for p in _walk(package) if p.endswith(".py")]
    files += sorted(os.path.join(schemas, n) for n in os.listdir(schemas) if n.endswith(".json"))
    for path in files:
        digest.update(path.encode() + b"\0" + _read(path) + b"\0")
    for name in DEPENDENCIES:
        origin = _origin(name)
        info = os.stat(origin) if origin else None
        digest.update(repr((name, origin, info and (info.st_size, info.st_mtime_ns))).encode())
    _CODE.append(digest.hexdigest())
    return _CODE[0]


def _origin(name: str) -> str | None:
    """Where `import name` finds a package's __init__.py (what find_spec reports),
    without importing importlib.util."""
    for entry in sys.path:
        candidate = os.path.join(entry or os.getcwd(), name, "__init__.py")
        if os.path.isfile(candidate):
            return candidate
    return None


def _walk(folder: str) -> list[str]:
    found: list[str] = []
    for top, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found.extend(os.path.join(top, name) for name in names)
    return sorted(found)


def _tree(folder: str) -> list[str] | None:
    """Every file under folder, sorted; None when a symlink is found."""
    if os.path.islink(folder):
        return None
    if not os.path.isdir(folder):
        return [] if not os.path.exists(folder) else None
    files: list[str] = []
    return sorted(files) if _collect(folder, files) else None


def _collect(folder: str, files: list[str]) -> bool:
    """Add the regular files under folder to `files`; False when the tree holds a
    symlink, or a FIFO or device (which would block, or never end, when hashed:
    such a bundle is never cached, and the loader reports the file), or cannot
    be listed."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_symlink():
                    return False
                if entry.is_dir(follow_symlinks=False):
                    if not _collect(entry.path, files):
                        return False
                elif entry.is_file(follow_symlinks=False):
                    files.append(entry.path)
                else:
                    return False
    except OSError:
        return False
    return True


# Entries.


def _entry_path(layout: Layout, digest: str) -> str:
    return os.path.join(layout.root, FOLDER, f"{digest}.json")


def lookup(layout: Layout, digest: str) -> Hit | None:
    """The stored result for `digest`, if any and if the output folder still matches."""
    try:
        with open(_entry_path(layout, digest), encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("format") != FORMAT or data.get("key") != digest:
            return None
        outputs = data["outputs"]
        if outputs is not None and (
            _snapshot(layout.out, outputs) != outputs or _littered(layout.out)
        ):
            return None
        items = data["diagnostics"]
        hit = Hit(items)
        for item in items:  # a malformed entry is a miss, not a failure later on
            _check_item(item)
        return hit
    except Exception:  # missing, unreadable or malformed: a miss
        return None


def store(
    layout: Layout,
    digest: str,
    diagnostics: Iterable[Diagnostic],
    outputs: Iterable[str] | None,
    known: Mapping[str, str | None] | None = None,
) -> None:
    """Record a result. `outputs` (paths under out/) are hashed as they are now,
    except those in `known`: the hashes the run itself wrote or compared (None:
    missing). An edit since then makes the next lookup a miss, where hashing
    them now would record the edit and replay a verdict about the old bytes.
    None for `outputs` means the result does not depend on the output folder."""
    folder = os.path.join(layout.root, FOLDER)
    try:
        os.makedirs(folder, exist_ok=True)
        ignore = os.path.join(folder, ".gitignore")
        if not os.path.exists(ignore):
            with open(ignore, "w", encoding="utf-8") as handle:
                handle.write("# Created by promptc: the cache is never committed.\n*\n")
        snapshot = (
            None
            if outputs is None
            else _snapshot(layout.out, _with_manifest(layout, outputs), known or {})
        )
        entry = {
            "format": FORMAT,
            "key": digest,
            "outputs": snapshot,
            "diagnostics": [_encode(d) for d in diagnostics],
        }
        target = _entry_path(layout, digest)
        temporary = os.path.join(folder, f".{os.path.basename(target)}.{os.getpid()}.tmp")
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(entry))
        os.replace(temporary, target)
        _index(layout, folder)
        _prune(folder)
    except OSError:
        return  # a cache that cannot be written only costs speed


def _index(layout: Layout, folder: str) -> None:
    """Record where this config puts things, for _indexed_layout."""
    raw = _CONFIG_READ.get(layout.source) if layout.source is not None else None
    if layout.source is None or raw is None:
        return
    name = _index_name(layout.source, raw)
    data = {
        "specs": layout.specs,
        "fragments": layout.fragments,
        "out": layout.out,
        "targets": list(layout.targets),
    }
    temporary = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(data))
    os.replace(temporary, os.path.join(folder, name))


def _with_manifest(layout: Layout, outputs: Iterable[str]) -> list[str]:
    """The outputs, the manifest and every file the manifest names."""
    names = {*outputs, MANIFEST}
    try:
        manifest = json.loads(read_regular(os.path.join(layout.out, MANIFEST)))
        names.update(str(name) for name in manifest.get("files", {}))
    except (OSError, ValueError, AttributeError):
        pass
    return sorted(names)


def _snapshot(
    out: str, names: Iterable[str], known: Mapping[str, str | None] | None = None
) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for name in names:
        if known and name in known:
            found[name] = known[name]
            continue
        try:
            found[name] = hashlib.sha256(read_regular(os.path.join(out, name))).hexdigest()
        except FileNotFoundError:
            found[name] = None
    return found


def _littered(out: str) -> bool:
    """Whether a killed build left temporary files or a staging folder behind:
    only a real build clears them, so their presence is a miss."""
    for top, folders, names in os.walk(out):
        if top == out and any(name.startswith(".promptc-stage-") for name in folders):
            from compiler.writer import STAGE_NAME

            if any(STAGE_NAME.match(name) for name in folders):
                return True
        for name in names:
            if name.endswith(".tmp"):  # the writer (and its imports) only then
                from compiler.writer import TEMP_NAME

                if TEMP_NAME.match(name):
                    return True
    return False


class Unreadable(OSError):
    """A path in the output folder that is not a regular file, or too large."""


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of a regular file in the output folder, read without following a
    symlink or blocking on a FIFO (either would lead outside or hang the run);
    Unreadable past `limit` bytes. The writer reads its manifest with it too:
    it lives here because a warm run must not import the writer."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            # A folder fails in fdopen (IsADirectoryError), as it always has.
            with os.fdopen(fd, "rb", closefd=False):
                raise Unreadable(f"{os.fspath(path)} is not a regular file")
        raw = _read_fd(fd, info.st_size, None if limit is None else limit + 1)
    finally:
        os.close(fd)
    if limit is not None and len(raw) > limit:
        raise Unreadable(f"{os.fspath(path)} is larger than {limit:,} bytes")
    return raw


def _read_fd(fd: int, size: int, cap: int | None) -> bytes:
    """Everything up to the end of the file (at most `cap` bytes), in reads of its
    size: what a buffered reader returns, without building one per file (that
    cost as much as the read, for every output file a run hashes)."""
    chunks: list[bytes] = []
    total = 0
    want = size + 1  # one more, to see the end in the same read
    while cap is None or total < cap:
        chunk = os.read(fd, want if cap is None else min(want, cap - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = 1 << 16
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _prune(folder: str) -> None:
    import contextlib

    entries = [os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".json")]
    entries.sort(key=lambda p: os.stat(p).st_mtime_ns, reverse=True)
    for old in entries[KEEP:]:
        with contextlib.suppress(OSError):
            os.unlink(old)


SEVERITIES = ("error", "warning", "info")  # compiler.diagnostics.Severity, in its order


def _check_item(item: Mapping[str, Any]) -> None:
    """Raise as _diagnostic would on a malformed item, without building it."""
    str(item["path"]), int(item["line"]), int(item["column"]), str(item["rule"])
    str(item["message"]), item["hint"]
    fix = item["fix"]
    if item["severity"] not in SEVERITIES or (fix is not None and len(fix) != 3):
        raise ValueError("malformed cache entry")


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
    from compiler.diagnostics import Diagnostic, Fix, Severity

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


def mode(command: str, *, force: bool = False) -> str:
    """What a run's entry is keyed by: the command (`lint`, `build`, `check`) and its flags."""
    return command + (" --force" if force else "")


def lookup_run(
    config_path: str | PathLike[str] | None,
    cwd: str,
    mode: str,
    only: Sequence[str],
    environ: Mapping[str, str],
) -> Hit | None:
    """The stored result of this very run when nothing it reads has changed,
    found from the raw config (before the pipeline is loaded)."""
    if disabled(environ):
        return None
    found = raw_layout(config_path, cwd)
    if found is None or not found[1]:
        return None
    layout = found[0]
    if not os.path.isdir(layout.specs) or not may_hit(layout):
        return None
    digest = key(layout, mode, only, environ)
    return None if digest is None else lookup(layout, digest)
