"""Cache: skip the whole run when nothing it reads has changed (docs/performance.md).

The key hashes the bytes of promptc's modules and schemas, not their stat data,
which would miss a same-size edit within one mtime tick; with the Python version
and where each dependency is installed. A tree holding a symlink, FIFO or device
is never cached: a link can change what it points to while no file here
changes. Entries are written atomically; anything unreadable or malformed is a
miss. The run looks its result up itself (promptc_compiler.api), on the Config the
pipeline found and validated (promptc_compiler.core.config): the bundle's folders and
targets are the run's own, never worked out a second time here.

The cache folder sits in the repository, so it is hostile input too
(docs/robustness.md, "The cache"): each entry is sealed with a keyed hash
whose key, a random secret, lives in the user's own cache folder, never in the
repository. An entry committed, planted or copied from another machine does not
verify and is a miss, never a verdict; a file that does not verify is never
pruned. The folder and its entries are never followed through a symlink, read
past MAX_ENTRY_BYTES, or opened when they are FIFOs or devices.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import importlib.util
import json
import os
import stat
import sys
from collections.abc import Collection, Iterable, Mapping, MutableMapping, Sequence
from typing import Any, NamedTuple

from promptc_compiler import __version__
from promptc_compiler.base.confine import Area, is_link, safe_relative
from promptc_compiler.base.diagnostics import Diagnostic, Fix, Severity
from promptc_compiler.base.files import (
    CACHE_FOLDER,
    MANIFEST,
    TEMPORARY,
    read_regular,
    replace_file,
    write_new,
)
from promptc_compiler.core import resources
from promptc_compiler.core.config import Config

FOLDER = CACHE_FOLDER
FORMAT = 6  # bump when the entry layout or the key changes
KEEP = 16  # entries kept per bundle; the oldest go first
ENVIRONMENT = ("HOME", "XDG_DATA_HOME", "TMPDIR", "TMP", "TEMP")
DEPENDENCIES = ("yaml", "jinja2", "jsonschema", "click")
# An entry holds a run's diagnostics: a few KB, a few MB for a bundle of
# thousands of agents. Larger is not one promptc wrote: refused unread.
MAX_ENTRY_BYTES = 64 << 20
# The seal's first line (SEAL, the keyed hash in hex), then the entry's JSON.
SEAL = b"promptc-cache "
SECRET = "secret"  # its file in the user's cache folder (user_folder)
SECRET_BYTES = 32


def mode(command: str, *, force: bool = False) -> str:
    """What a result is keyed by besides the inputs: the command (`lint`, `build`,
    `check`: `promptc check` and `promptc build --check` give the same verdict)
    and its flags."""
    return command + (" --force" if force else "")


class Layout(NamedTuple):
    """What the cache needs to know of a bundle: where its inputs and outputs are
    (absolute paths as strings, as the key hashes them and os.scandir walks them)."""

    root: str
    source: str | None
    specs: str
    fragments: str
    out: str
    targets: tuple[str, ...]  # every configured target, sorted


class Key(NamedTuple):
    """The hash of everything one run reads (`digest`), the hash of each input
    file's bytes (`inputs`, by path in key order: see unchanged), and the
    user's cache folder, where the secret that seals entries is (None: none
    is known, and nothing is cached)."""

    layout: Layout
    digest: str
    inputs: Mapping[str, bytes]
    user: str | None = None


def layout(config: Config) -> Layout:
    """The cache's view of the bundle a loaded, validated config describes."""
    source = None if config.source is None else str(config.source)
    folders = (str(config.specs), str(config.fragments), str(config.out))
    return Layout(str(config.root), source, *folders, tuple(sorted(config.targets)))


class Hit(NamedTuple):
    """A stored result, valid for the inputs and output folder as they are now."""

    diagnostics: tuple[Diagnostic, ...]
    summaries: tuple[str, ...] = ()  # api.Result.summaries


def disabled(environ: Mapping[str, str]) -> bool:
    return environ.get("PROMPTC_NO_CACHE", "") not in ("", "0")


def _folder(layout: Layout) -> str | None:
    """The cache folder when it is a real folder (a symlink is never followed)."""
    folder = os.path.join(layout.root, FOLDER)
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    return folder if stat.S_ISDIR(info.st_mode) and not is_link(info) else None


def _is_entry(name: str) -> bool:
    """An entry's file name: its key (64 hex digits) and `.json`."""
    digest, dot, suffix = name.partition(".")
    return dot == "." and suffix == "json" and len(digest) == 64 and digest.isalnum()


# --- the key --------------------------------------------------------------------


def key(
    layout: Layout,
    run_mode: str,
    only: Sequence[str],
    environ: Mapping[str, str],
    read: MutableMapping[str, bytes] | None = None,
) -> Key | None:
    """The key of a run (`run_mode`: see mode()); None when the bundle cannot be cached.

    With `read`, the bytes of every input file are put there by path, for the
    run that follows to load instead of reading each file a second time.
    """
    inputs = _inputs(layout, read)
    if inputs is None:
        return None
    parts = [FORMAT, __version__, _code_digest(), sys.version, os.getcwd()]
    parts += [environ.get(name) for name in ENVIRONMENT]
    parts += [*layout, tuple(sorted(only)), run_mode]
    parts += [part for path, digest in inputs.items() for part in (path, digest)]
    return Key(layout, _framed(parts), inputs, user_folder(environ))


def unchanged(probe: Key, taken: Collection[str] = ()) -> bool:
    """Whether every input still holds what `probe` was computed from: asked
    after a run, to store its result only when nothing changed meanwhile.

    The files in `taken` are not read again: the run loaded the very bytes the
    key hashed (key's `read`), so its result is the one for those bytes
    whatever the files hold now. The others (the config, which was read before
    the key, a skill's supporting files, anything else the run read itself)
    are hashed again, and no file may have come or gone.
    """
    paths = _input_paths(probe.layout)
    if paths is None or paths != list(probe.inputs):
        return False
    try:
        return all(
            path in taken or _file_digest(read_regular(path)) == probe.inputs[path]
            for path in paths
        )
    except OSError:  # gone or unreadable since: a change
        return False


def _framed(parts: Iterable[object]) -> str:
    """A hash of a sequence of values, each one framed by its length."""
    digest = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode()
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _file_digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _input_paths(layout: Layout) -> list[str] | None:
    """The config file and every file in the trees, in key order; None when a
    tree holds anything else or cannot be listed."""
    paths = [] if layout.source is None else [layout.source]
    for folder in (layout.specs, layout.fragments):
        files = _tree(folder)
        if files is None:
            return None
        paths += files
    return paths


def _inputs(
    layout: Layout, read: MutableMapping[str, bytes] | None = None
) -> dict[str, bytes] | None:
    """The hash of each input file's bytes, by path (each bytes put in `read`
    too, when given); None when a tree holds anything else or cannot be read."""
    paths = _input_paths(layout)
    if paths is None:
        return None
    digests: dict[str, bytes] = {}
    try:
        for path in paths:
            data = read_regular(path)
            digests[path] = _file_digest(data)
            if read is not None:
                read[path] = data
    except OSError:  # unreadable: the full run reports it
        return None
    return digests


def _code_digest() -> str:
    """promptc's own code and schemas, and where its dependencies are installed:
    each file by its size and modification time, as Python tells whether a
    module's compiled code is stale (to nanoseconds, where it keeps seconds).
    Their bytes read and hashed were a fifth of a cold lint of 16 agents."""
    digest = hashlib.sha256()
    # promptc_compiler/, the whole package (this module is promptc_compiler/pipeline/cache.py).
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    schemas = resources.schema_folder()
    # The code and the package data a run reads: the runtimes' schemas and override
    # keys are JSON inside the package, as the shipped schemas are in a wheel.
    files: set[str] = set()
    for top, dirs, names in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        files.update(os.path.join(top, n) for n in names if n.endswith((".py", ".json")))
    files.update(os.path.join(schemas, n) for n in os.listdir(schemas) if n.endswith(".json"))
    for path in sorted(files):
        written = os.stat(path)
        digest.update(repr((path, written.st_size, written.st_mtime_ns)).encode())
    for name in DEPENDENCIES:
        origin = _origin(name)
        info = os.stat(origin) if origin else None
        digest.update(repr((name, origin, info and (info.st_size, info.st_mtime_ns))).encode())
    return digest.hexdigest()


def _origin(name: str) -> str | None:
    """Where `import name` finds the package (its __init__.py)."""
    spec = importlib.util.find_spec(name)
    return None if spec is None else spec.origin


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


# --- entries --------------------------------------------------------------------


def _entry_path(probe: Key) -> str:
    return os.path.join(probe.layout.root, FOLDER, f"{probe.digest}.json")


def lookup(probe: Key) -> Hit | None:
    """The stored result for `probe`, if any and if the output folder still matches."""
    try:
        secret = _secret(probe.user, create=False)
        if secret is None or _folder(probe.layout) is None:
            return None
        sealed = read_regular(_entry_path(probe), MAX_ENTRY_BYTES)
        body = _unseal(secret, probe.digest, sealed)
        if body is None:  # not written here: planted, committed or copied
            return None
        data = json.loads(body)
        if data.get("format") != FORMAT or data.get("key") != probe.digest:
            return None
        outputs = data["outputs"]
        out = probe.layout.out
        if outputs is not None:
            listing = _listing(out)
            if (
                listing is None
                or listing != data.get("listing")
                or _snapshot(out, outputs) != outputs
            ):
                return None
        diagnostics = tuple(_diagnostic(item) for item in data["diagnostics"])
        return Hit(diagnostics, tuple(str(line) for line in data.get("summaries", ())))
    except Exception:  # missing, unreadable or malformed: a miss
        return None


def store(
    probe: Key,
    diagnostics: Iterable[Diagnostic],
    outputs: Iterable[str] | None,
    known: Mapping[str, str | None] | None = None,
    summaries: Iterable[str] = (),
) -> None:
    """Record a result (its diagnostics and summary lines). `outputs` (paths
    under out/) are hashed as they are now,
    except those in `known`: the hashes the run itself wrote or compared (None:
    missing). An edit since then makes the next lookup a miss, where hashing
    them now would record the edit and replay a verdict about the old bytes.
    None for `outputs` means the result does not depend on the output folder."""
    layout = probe.layout
    try:
        secret = _secret(probe.user, create=True)
        if secret is None:
            return  # no user cache folder to keep the secret in: no cache
        # Inside the project, never through a symlink (promptc_compiler.base.confine).
        folder = Area(layout.root).make_folder(os.path.join(layout.root, FOLDER))
        _ignore_itself(folder)
        snapshot = (
            None
            if outputs is None
            else _snapshot(layout.out, _with_manifest(layout, outputs), known or {})
        )
        entry = {
            "format": FORMAT,
            "key": probe.digest,
            "outputs": snapshot,
            "listing": None if outputs is None else _listing(layout.out),
            "diagnostics": [_encode(d) for d in diagnostics],
            "summaries": list(summaries),
        }
        body = json.dumps(entry).encode()
        replace_file(_entry_path(probe), _seal(secret, probe.digest, body))
        _prune(folder, secret)
    except OSError:
        return  # a cache that cannot be written only costs speed


def _ignore_itself(folder: str) -> None:
    """A .gitignore that keeps the folder out of commits, made only where
    nothing stands (a dangling symlink is never written through)."""
    with contextlib.suppress(FileExistsError):
        write_new(
            os.path.join(folder, ".gitignore"),
            b"# Created by promptc: the cache is never committed.\n*\n",
        )


# --- sealing: an entry is one this user's promptc wrote ----------------------------


def user_folder(environ: Mapping[str, str]) -> str | None:
    """promptc's folder in the user's cache folder (XDG_CACHE_HOME, else the
    platform's: LOCALAPPDATA on Windows, ~/Library/Caches on macOS, ~/.cache);
    None when the environment names none."""
    base = environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = environ.get("HOME", "")
        if os.name == "nt":
            base = environ.get("LOCALAPPDATA", "")
        elif home and sys.platform == "darwin":
            base = os.path.join(home, "Library", "Caches")
        elif home:
            base = os.path.join(home, ".cache")
    return os.path.join(base, "promptc") if os.path.isabs(base) else None


def _secret(user: str | None, *, create: bool) -> bytes | None:
    """The key entries are sealed with, from the user's cache folder; made
    there (`create`) when missing. None: no key, no cache."""
    if user is None:
        return None
    path = os.path.join(user, SECRET)
    try:
        secret = read_regular(path, 4 * SECRET_BYTES)
    except FileNotFoundError:
        if not create:
            return None
        secret = _new_secret(user, path)
    except OSError:
        return None
    return secret if len(secret) >= SECRET_BYTES else None


def _new_secret(user: str, path: str) -> bytes:
    os.makedirs(user, mode=0o700, exist_ok=True)
    secret = os.urandom(SECRET_BYTES).hex().encode()
    try:
        write_new(path, secret, 0o600)  # readable by its user only
    except FileExistsError:  # another run made it first: theirs holds
        return read_regular(path, 4 * SECRET_BYTES)
    return secret


def _seal(secret: bytes, name: str, body: bytes) -> bytes:
    return SEAL + _mac(secret, name, body) + b"\n" + body


def _unseal(secret: bytes, name: str, sealed: bytes) -> bytes | None:
    """The entry's body when its seal verifies for this name, else None."""
    head, newline, body = sealed.partition(b"\n")
    if not newline or not head.startswith(SEAL):
        return None
    return body if hmac.compare_digest(head[len(SEAL) :], _mac(secret, name, body)) else None


def _mac(secret: bytes, name: str, body: bytes) -> bytes:
    """BLAKE2b keyed with the secret: a MAC without HMAC's construction."""
    mac = hashlib.blake2b(key=secret[:64], digest_size=32)
    mac.update(name.encode() + b"\0")
    mac.update(body)
    return mac.hexdigest().encode()


def _with_manifest(layout: Layout, outputs: Iterable[str]) -> list[str]:
    """The outputs, the manifest and every file the manifest names (each a
    path inside the output folder: the writer refuses a manifest naming another)."""
    names = {*outputs, MANIFEST}
    try:
        manifest = json.loads(read_regular(os.path.join(layout.out, MANIFEST), MAX_ENTRY_BYTES))
        names.update(str(name) for name in manifest.get("files", {}) if safe_relative(str(name)))
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


def _listing(out: str) -> list[str] | None:
    """Every file name under the output folder, or None when a killed build left
    temporary files behind (only a real build clears them, so theirs is a miss),
    or when the folder is a symlink (which a build refuses): a file added or
    removed anywhere in it (one a runtime loads, that the result names) makes a
    miss. The cache folder is left out when the output holds it (`out = "."`)."""
    if os.path.islink(out):
        return None
    # Each path by its text past `out/`, as os.path.relpath gives it (which,
    # per file, cost more than the walk).
    cut = len(os.path.join(out, ""))
    found: list[str] = []
    for folder, dirs, names in os.walk(out):
        if folder == out and FOLDER in dirs:
            dirs.remove(FOLDER)
        found += (os.path.join(folder, name)[cut:] for name in names)
    found.sort()
    return None if any(TEMPORARY.match(os.path.basename(p)) for p in found) else found


def _prune(folder: str, secret: bytes) -> None:
    """Keep the KEEP newest entries. Only a file whose seal verifies (one this
    user's promptc wrote) counts or is removed: never a file of someone else's,
    even one named like an entry."""
    with os.scandir(folder) as found:
        named = [e for e in found if _is_entry(e.name) and e.is_file(follow_symlinks=False)]
    if len(named) <= KEEP:
        return  # nothing to remove: no entry is read
    ours: list[tuple[int, str]] = []
    for entry in named:
        with contextlib.suppress(OSError):
            sealed = read_regular(entry.path, MAX_ENTRY_BYTES)
            if _unseal(secret, entry.name.partition(".")[0], sealed) is not None:
                ours.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.path))
    ours.sort(reverse=True)
    for _, old in ours[KEEP:]:
        with contextlib.suppress(OSError):
            os.unlink(old)


def _encode(d: Diagnostic) -> dict[str, object]:
    fix = None if d.fix is None else [d.fix.start, d.fix.end, d.fix.text]
    return {**vars(d), "severity": d.severity.value, "fix": fix}


def _diagnostic(item: Mapping[str, Any]) -> Diagnostic:
    """A stored diagnostic; raises on a malformed item (then the entry is a miss)."""
    fix = item["fix"]
    if fix is not None and len(fix) != 3:
        raise ValueError("malformed cache entry")
    return Diagnostic(
        str(item["path"]),
        int(item["line"]),
        int(item["column"]),
        str(item["rule"]),
        Severity(item["severity"]),
        str(item["message"]),
        None if item["hint"] is None else str(item["hint"]),
        None if fix is None else Fix(int(fix[0]), int(fix[1]), str(fix[2])),
        None if item.get("detail") is None else str(item["detail"]),
    )
