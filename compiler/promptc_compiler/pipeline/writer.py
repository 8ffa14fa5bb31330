"""Write: put generated files on disk, safely, or check that they are fresh.

The manifest (`<out>/.promptc-manifest.json`) lists every file promptc
generated with the hash of the content it wrote: a file that differs from it
was edited by hand and is not overwritten or removed without `force`; a file
the build no longer produces is removed; a file not in the manifest is never
touched (unless `force` takes over a path the build now produces). A file is
replaced only when its bytes change, so mtimes stay stable for make. How a
killed build, a symlink leading out and two builds at once are handled:
docs/robustness.md ("Writing").
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from promptc_compiler.base.confine import Area
from promptc_compiler.base.confine import safe_relative as safe_relative
from promptc_compiler.base.files import MANIFEST as MANIFEST
from promptc_compiler.base.files import (
    TEMPORARY,
    NotRegular,
    kind,
    read_regular,
    replace_file,
    temporary_name,
    unlink,
    write_new,
)
from promptc_compiler.core.merge import (
    KeyPath,
    MergeError,
    adopted,
    decode_path,
    encode_path,
    merge,
    strip,
)

LOCK = ".promptc.lock"
MAX_MANIFEST_BYTES = 16 << 20
# A shared file (opencode.json, .claude/settings.json, .codex/config.toml) is
# read whole to merge promptc's keys into it: a few KB in any real project.
MAX_SHARED_BYTES = 4 << 20

# The hash of each managed key promptc wrote, by shared file (promptc_compiler.core.merge).
Keys = Mapping[str, Mapping[KeyPath, str]]


class Conflict(NamedTuple):
    """A file the writer will not touch, and why."""

    path: str
    message: str
    line: int = 1  # where in the file, when the file itself is wrong (a shared file)
    column: int = 1


class Plan(NamedTuple):
    """What a build would do, computed without touching the disk."""

    write: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()
    forget: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    conflicts: tuple[Conflict, ...] = ()

    @property
    def clean(self) -> bool:
        return not (self.write or self.remove or self.conflicts or self.forget)


@dataclass(frozen=True)
class Outcome:
    """What a build did on disk: the files written and removed, the refusals."""

    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    errors: tuple[Conflict, ...] = field(default=())
    # The hash of every generated file, as the build left it on disk.
    digests: Mapping[str, str] = field(default_factory=dict)


def digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


class ManifestError(Exception):
    """A manifest the writer will not trust: the diagnostic stands on `path`, the manifest."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class LockError(OSError):
    """The output folder's lock is held by another build, or is not a lock at all."""


def load_manifest(out: Path) -> tuple[dict[str, list[str]], dict[str, dict[KeyPath, str]]]:
    """Manifest entries, and the managed keys of each shared file: key path ->
    the hash of the value promptc wrote (promptc_compiler.core.merge)."""
    path = out / MANIFEST
    try:
        data = json.loads(read_regular(path, MAX_MANIFEST_BYTES))
    except FileNotFoundError:
        return {}, {}
    except (OSError, ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else exc
        raise ManifestError(
            path, f"unreadable manifest ({reason}); delete it or use --force"
        ) from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        raise ManifestError(path, "not a promptc manifest; delete it or use --force")
    for rel in files:
        # The output folder is trusted no more than the sources: a manifest naming
        # `../x` would otherwise make a build delete a file outside it.
        if not safe_relative(str(rel)):
            raise ManifestError(
                path,
                f"names {rel!r}, which is not a path inside the output folder; "
                "delete the manifest or use --force",
            )
    entries = {str(k): [str(h) for h in v] for k, v in files.items() if isinstance(v, list)}
    return entries, _keys(data.get("keys"), entries)


def _keys(found: object, entries: Mapping[str, list[str]]) -> dict[str, dict[KeyPath, str]]:
    """The manifest's `keys`, for the files it lists; anything malformed is left out
    (the file then counts as one promptc never merged into: nothing of it is removed)."""
    keys: dict[str, dict[KeyPath, str]] = {}
    if not isinstance(found, dict):
        return keys
    for rel, paths in found.items():
        if rel not in entries or not isinstance(paths, dict):
            continue
        decoded = {decode_path(str(p)): str(h) for p, h in paths.items()}
        keys[rel] = {p: h for p, h in decoded.items() if p is not None}
    return keys


# What stands at a generated path when it is not a regular file: never equal to
# a content hash, so the plan treats it as a file promptc did not write.
_FOLDER = "folder"
_SPECIAL = "special"
_SAME = "same"  # the file holds exactly the expected bytes


def _disk_hash(path: str | Path, expected: bytes | None = None) -> str | None:
    """The hash of what stands at `path`, or _SAME (it holds `expected`),
    _FOLDER, _SPECIAL, None (nothing). A symlink, FIFO or device is never
    followed or read."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISDIR(info.st_mode):
        return _FOLDER
    if not stat.S_ISREG(info.st_mode):
        return _SPECIAL
    with open(path, "rb") as handle:
        content = handle.read()
    return _SAME if content == expected else digest(content)


def default_area(out: Path) -> Area:
    """Where a build into `out` may write when no project says more: inside
    `out`, which must not be a symlink itself."""
    return Area(os.path.dirname(os.path.abspath(out)))


def plan(
    out: Path,
    files: Mapping[str, bytes],
    manifest: Mapping[str, list[str]],
    *,
    force: bool = False,
    area: Area | None = None,
) -> Plan:
    """What a build of `files` into `out` would do (`area`: where it may write,
    the project's Config.area(); by default inside `out`)."""
    planner = Planner(out, manifest, force=force, area=area)
    for rel in sorted(files):
        planner.add(rel, files[rel])
    return planner.plan()


def first_folder(rel: str) -> str:
    """The target a path under `<out>/` belongs to, in the default layout."""
    return rel.split("/", 1)[0]


class Planner:
    """A plan built one generated file at a time (apply touches the lock between
    files); with `digests`, the hash of each file compared, for the cache.

    Every path is checked against `area` (promptc_compiler.base.confine): a file whose
    folder is reached through a symlink, or lies in the sources, is a
    conflict; an output folder that is refused itself is the only conflict.
    """

    def __init__(
        self,
        out: Path,
        manifest: Mapping[str, list[str]],
        *,
        force: bool = False,
        digests: bool = False,
        area: Area | None = None,
        shared: Mapping[str, Sequence[str]] | None = None,
        keys: Keys | None = None,
    ) -> None:
        self.out = out
        self.manifest = manifest
        self.force = force
        # The shared files among the generated ones (the root layout), and the
        # managed keys promptc wrote into each last time (promptc_compiler.core.merge).
        self.shared = shared or {}
        self.keys = keys or {}
        # A shared file's bytes as merged, and the hash of each managed key.
        self.merged: dict[str, bytes] = {}
        self.key_digests: dict[str, Mapping[KeyPath, str]] = {}
        self.area = area or default_area(out)
        self.refused = self.area.problem(out)  # the output folder itself
        self.names: set[str] = set()
        self.write: list[str] = []
        self.missing: list[str] = []
        self.unchanged: list[str] = []
        self.conflicts: list[Conflict] = []
        # With `digests`, the hash of each regular file compared (None: missing).
        self.digests: dict[str, str | None] | None = {} if digests else None
        # The hash of each generated file's bytes, for the manifest (a shared
        # file's entry is of its keys: key_digests). Hashed as it is compared:
        # a build's files are held packed (emitter.Files), each read costs.
        self.made: dict[str, str] = {}

    def add(self, rel: str, data: bytes) -> None:
        """Compare one generated file with what stands on disk."""
        self.names.add(rel)
        manifest, force = self.manifest, self.force
        refused = self.refusal(rel)
        if refused is not None:
            self.conflicts.append(Conflict(rel, refused))
            return
        if rel in self.shared:
            self._add_shared(rel, data)
            return
        made = self.made[rel] = digest(data)
        # Text, not a Path: per file, pathlib cost more than the system calls.
        on_disk = _disk_hash(os.path.join(self.out, rel), data)
        if self.digests is not None and on_disk not in (_FOLDER, _SPECIAL):
            self.digests[rel] = made if on_disk == _SAME else on_disk
        if on_disk == _SAME:
            self.unchanged.append(rel)
        elif on_disk == _FOLDER:
            self.conflicts.append(Conflict(rel, "a folder stands where a generated file goes"))
        elif on_disk == _SPECIAL and not force:
            self.conflicts.append(Conflict(rel, _SPECIAL_MESSAGE))
        elif on_disk is None:
            self.missing.append(rel)
        elif on_disk in manifest.get(rel, ()) or force:
            self.write.append(rel)
        elif rel in manifest:
            self.conflicts.append(
                Conflict(rel, "generated file was edited by hand; not overwritten without --force")
            )
        else:
            self.conflicts.append(
                Conflict(
                    rel,
                    "file exists and was not generated by promptc; not overwritten without --force",
                )
            )

    def _add_shared(self, rel: str, data: bytes) -> None:
        """A shared file: promptc's keys merged into what stands there. Its own
        keys being the user's, only a managed key edited by hand is a conflict."""
        readable, disk = self._read_shared(rel)
        if not readable:
            return
        try:
            merged = merge(rel, disk, data, self.shared[rel], self.keys.get(rel), force=self.force)
        except MergeError as exc:
            self.conflicts.append(Conflict(rel, exc.message, exc.line, exc.column))
            return
        self.merged[rel] = merged.content
        self.key_digests[rel] = merged.digests
        if self.digests is not None:
            self.digests[rel] = None if disk is None else digest(disk)
        if disk is None:
            self.missing.append(rel)
        elif disk == merged.content:
            self.unchanged.append(rel)
        else:
            self.write.append(rel)

    def _read_shared(self, rel: str) -> tuple[bool, bytes | None]:
        """Whether a shared file can be merged into (else a conflict says why),
        and its bytes (None: there is none)."""
        try:
            return True, read_regular(os.path.join(self.out, rel), MAX_SHARED_BYTES)
        except (FileNotFoundError, NotADirectoryError):
            return True, None
        except NotRegular as exc:
            self.conflicts.append(Conflict(rel, f"{exc}; promptc merges its keys into a file only"))
        except OSError as exc:
            self.conflicts.append(Conflict(rel, f"cannot read it: {exc.strerror or exc}"))
        return False, None

    def _strip_shared(self, rel: str, remove: list[str], conflicts: list[Conflict]) -> None:
        """A shared file no target generates any more: promptc's keys taken out of
        it (and the file removed when nothing else is left)."""
        readable, disk = self._read_shared(rel)
        if not readable:
            conflicts.append(self.conflicts.pop())
            return
        if disk is None:
            return
        try:
            left = strip(rel, disk, self.keys[rel], force=self.force)
        except MergeError as exc:
            conflicts.append(Conflict(rel, exc.message, exc.line, exc.column))
            return
        if left is None:
            remove.append(rel)
        elif left != disk:
            self.merged[rel] = left
            self.write.append(rel)

    def refusal(self, rel: str) -> str | None:
        """Why the generated path `rel` may not be written or removed, or None."""
        if self.refused is not None:
            return self.refused
        if not safe_relative(rel):
            return _OUTSIDE
        folder, _, name = rel.rpartition("/")
        # Text, not a Path: per file, pathlib cost more than the system calls.
        return self.area.file_problem(os.path.join(self.out, folder), name)

    def plan(self) -> Plan:
        if self.refused is not None:  # one conflict says it, not one per file
            return Plan(conflicts=(Conflict("", self.refused),))
        conflicts = sorted(self.conflicts, key=lambda conflict: conflict.path)
        remove, forget = self._obsolete(conflicts)
        return Plan(
            tuple(sorted(self.write)),
            tuple(sorted(self.missing)),
            tuple(remove),
            tuple(forget),
            tuple(sorted(self.unchanged)),
            tuple(conflicts),
        )

    def _obsolete(self, conflicts: list[Conflict]) -> tuple[list[str], list[str]]:
        """The manifest's files the build no longer produces: to remove, or to forget."""
        remove: list[str] = []
        forget: list[str] = []
        for rel in sorted(set(self.manifest) - self.names):
            refused = self.refusal(rel)
            if refused is not None:
                conflicts.append(Conflict(rel, refused))
                continue
            if rel in self.keys:
                self._strip_shared(rel, remove, conflicts)
                continue
            on_disk = _disk_hash(self.out / rel)
            if on_disk is None:
                forget.append(rel)
            elif on_disk in self.manifest[rel]:
                remove.append(rel)
            elif self.force:
                forget.append(rel)  # hand-edited: left on disk, no longer promptc's
            else:
                message = "no longer generated, but edited by hand; not removed without --force"
                conflicts.append(Conflict(rel, message))
        return remove, forget


_SPECIAL_MESSAGE = (
    "a symlink, FIFO or device stands where a generated file goes; not replaced without --force"
)
_OUTSIDE = "path leads outside the output folder; refused"


PathOwner = Callable[[str], str]  # the target a path belongs to


def owned(
    manifest: Mapping[str, list[str]], only: Collection[str], owner: PathOwner = first_folder
) -> dict[str, list[str]]:
    """The manifest's entries a build of the targets `only` (all when empty) answers
    for: `promptc build --target claude` neither removes nor reports OpenCode's files."""
    return {rel: hashes for rel, hashes in manifest.items() if _in(rel, only, owner)}


def _in(rel: str, only: Collection[str], owner: PathOwner = first_folder) -> bool:
    return not only or owner(rel) in only


def apply(
    out: Path,
    files: Mapping[str, bytes],
    *,
    force: bool = False,
    only: Collection[str] = (),
    area: Area | None = None,
    shared: Mapping[str, Sequence[str]] | None = None,
    owner: PathOwner = first_folder,
) -> Outcome:
    """Bring `out` in line with `files`, the output of the targets `only` (all when
    empty). Nothing is written if any conflict exists. `area`: where the build
    may write (the project's Config.area()); by default inside `out`. `shared`:
    the files whose other keys are the user's (promptc_compiler.core.merge), with the keys
    managed one level down; `owner`: the target of a path."""
    area = area or default_area(out)
    refused = area.problem(out)
    if refused is not None:
        return Outcome(errors=(Conflict("", refused),))
    area.make_folder(out)
    with _locked(out) as lock:
        manifest, keys = _manifest_or_empty(out, force)
        mine = owned(manifest, only, owner)
        planner = Planner(
            out,
            mine,
            force=force,
            area=area,
            shared=shared,
            keys={rel: found for rel, found in keys.items() if rel in mine},
        )
        for rel in sorted(files):
            planner.add(rel, files[rel])
            lock.touch()
        todo = planner.plan()
        if todo.conflicts:
            return Outcome(errors=todo.conflicts)
        _clear_leftovers(out, [*files, *manifest], area)
        changing = (*todo.missing, *todo.write)
        others = {rel: hashes for rel, hashes in manifest.items() if not _in(rel, only, owner)}
        final = {
            **others,
            **{rel: [_entry(rel, planner.made, planner.key_digests)] for rel in files},
        }
        final_keys: dict[str, Mapping[KeyPath, str]] = {
            rel: found for rel, found in keys.items() if rel in others
        }
        final_keys.update(planner.key_digests)
        current: Mapping[str, list[str]] = manifest  # what the manifest on disk says
        current_keys: Keys = keys
        if changing:
            pending = {rel: list(hashes) for rel, hashes in manifest.items()}
            for rel in changing:
                pending[rel] = [*pending.get(rel, []), *final.get(rel, [])]
            current, current_keys = pending, {**keys, **planner.key_digests}
            _write_manifest(out, current, current_keys)
        _write_all(out, changing, files, lock, area, planner.merged)
        for rel in todo.remove:
            _remove(out, rel)
        # Into an empty folder the pending manifest is the final one already.
        if current != final or current_keys != final_keys:
            _write_manifest(out, final, final_keys)
        digests = {rel: final[rel][0] for rel in files}
        return Outcome(written=changing, removed=todo.remove, digests=digests)


def adopt(
    out: Path,
    files: Mapping[str, bytes],
    *,
    area: Area,
    shared: Mapping[str, Sequence[str]],
) -> tuple[str, ...]:
    """Take the files of `files` that stand in `out` unwritten by promptc into the
    manifest, as they are, so that the next build replaces them: `promptc import`
    in the root layout has just read them into the specs. Of a shared file, only
    the keys promptc manages. A path the build could not write (a symlink, the
    sources), a file already in the manifest or one that does not parse is left
    as it is; the paths taken over are returned."""
    if area.problem(out) is not None or not os.path.isdir(out):
        return ()
    with _locked(out):
        try:
            manifest, keys = load_manifest(out)
        except ManifestError:
            return ()  # the build names it
        checker = Planner(out, manifest, area=area)
        taken = [rel for rel in sorted(files) if rel not in manifest and not checker.refusal(rel)]
        done = []
        for rel in taken:
            path = os.path.join(out, rel)
            on_disk = _disk_hash(path)
            if on_disk in (None, _FOLDER, _SPECIAL):
                continue
            if rel in shared:
                found = adopted(rel, read_regular(path, MAX_SHARED_BYTES), files[rel], shared[rel])
                if found is None:
                    continue
                keys[rel] = found
                on_disk = _entry(rel, {}, keys)
            manifest[rel] = [str(on_disk)]
            done.append(rel)
        if done:
            _write_manifest(out, manifest, keys)
    return tuple(done)


def _entry(rel: str, made: Mapping[str, str], keys: Keys) -> str:
    """A generated file's manifest hash: of its bytes, or for a shared file of the
    managed keys alone (the project's own keys may change: they are not promptc's)."""
    if rel in keys:
        managed = sorted((encode_path(path), value) for path, value in keys[rel].items())
        return digest(json.dumps(managed).encode())
    return made[rel]


def _manifest_or_empty(
    out: Path, force: bool
) -> tuple[dict[str, list[str]], dict[str, dict[KeyPath, str]]]:
    try:
        return load_manifest(out)
    except ManifestError:
        if force:
            return {}, {}
        raise


def _write_manifest(out: Path, files: Mapping[str, list[str]], keys: Keys | None = None) -> None:
    body: dict[str, object] = {
        "generator": "promptc",
        "format": 1,
        "files": dict(sorted(files.items())),
    }
    if keys:  # the root layout's shared files (an older promptc ignores the key)
        body["keys"] = {
            rel: {encode_path(path): value for path, value in sorted(found.items())}
            for rel, found in sorted(keys.items())
            if rel in files
        }
    _atomic_write(out / MANIFEST, (json.dumps(body, indent=2) + "\n").encode())


def _atomic_write(path: Path, content: bytes) -> None:
    replace_file(path, content)


def _write_all(
    out: Path,
    rels: Sequence[str],
    files: Mapping[str, bytes],
    lock: _Lock,
    area: Area,
    merged: Mapping[str, bytes],
) -> None:
    """Replace each of `rels` under `out` with its new bytes (a shared file's
    `merged` into what stood there, else its `files`'), every file old or new
    at any moment: all are written under temporary names first, and renamed into
    place only once every one is written. An error before the renames leaves
    every file as it was and no temporary file behind."""
    staged: list[tuple[str, str]] = []  # (temporary, final), in the order written
    renamed = 0
    folders: set[str] = set()
    try:
        for rel in rels:
            # Text, not a Path: per file, pathlib cost a third of the writes.
            path = os.path.join(out, rel)
            folder = os.path.dirname(path)
            if folder not in folders:  # once per folder, not per file
                area.make_folder(folder)  # never through a symlink
                folders.add(folder)
            temp = temporary_name(path)
            shared = merged.get(rel)
            _stage(temp, files[rel] if shared is None else shared)
            staged.append((temp, path))
            if shared is not None:  # a shared file keeps the project's permission bits
                _keep_mode(temp, path)
            lock.touch()
        for temp, path in staged:
            _rename(temp, path)
            renamed += 1
            lock.touch()
    finally:
        for temp, _ in staged[renamed:]:
            unlink(temp)


def _keep_mode(temp: str, path: str) -> None:
    with contextlib.suppress(FileNotFoundError):  # a new file: the default bits
        os.chmod(temp, stat.S_IMODE(os.lstat(path).st_mode))


def _stage(temp: str, content: bytes) -> None:
    """Write a generated file's new bytes under its temporary name."""
    write_new(temp, content)


def _rename(temp: str, path: str) -> None:
    os.replace(temp, path)


def _clear_leftovers(out: Path, rels: list[str], area: Area) -> None:
    """Remove temporary files a killed build left next to the files promptc manages.

    Runs under the lock, so no other build is writing: every temp file is stale.
    Only the folders promptc writes to are looked at, never the whole tree, and
    never one `area` refuses (a symlink's target is not listed).
    """
    # Each folder once, by the text before a path's last `/` (a Path per file
    # cost more than the listings).
    folders = {out} | {out / folder for folder in {rel.rpartition("/")[0] for rel in rels}}
    for folder in sorted(folders):
        if area.problem(folder) is not None:
            continue
        try:
            names = os.listdir(folder)
        except OSError:
            continue  # missing or unreadable: a later write reports it
        for name in names:
            if TEMPORARY.match(name):
                with contextlib.suppress(OSError):  # a folder by that name: leave it
                    (folder / name).unlink()


def _remove(out: Path, rel: str) -> None:
    (out / rel).unlink(missing_ok=True)
    _prune(out, (out / rel).parent)


def _prune(out: Path, folder: Path) -> None:
    """Remove folders left empty by a removal, up to (not including) out."""
    while folder != out and out in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


# --- the lock ------------------------------------------------------------------
#
# A file made with O_CREAT | O_EXCL, which only one process can make, naming
# its owner (pid, host, and a random token that tells two owners of one pid
# apart), removed when the build ends. A build killed while it writes
# (SIGKILL, a power cut) cannot remove it. When the owner is on this host and
# its pid no longer runs (os.kill(pid, 0), POSIX), the lock is taken over at
# once. Otherwise no portable call tells: on Windows os.kill would end the
# process, and a lock from another host (a shared folder), an old promptc or a
# pid reused since proves nothing. So a build also touches its lock at least
# every _TOUCH_SECONDS while it holds it, and a lock untouched for
# _STALE_SECONDS was left by a build that is gone and is taken over. A build
# waits at most _WAIT_SECONDS for a lock that stays fresh, then gives up with a
# [write] error.
_TOUCH_SECONDS = 1.0
_STALE_SECONDS = 10.0
_WAIT_SECONDS = 120.0
_POLL_SECONDS = 0.05
_MAX_LOCK_BYTES = 512


class _Lock:
    """The lock this build holds."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.touched = time.monotonic()

    def touch(self) -> None:
        """Show the lock is held, at most once per _TOUCH_SECONDS (asked per file)."""
        now = time.monotonic()
        if now - self.touched >= _TOUCH_SECONDS:
            with contextlib.suppress(OSError):  # gone: the build goes on all the same
                os.utime(self.path, follow_symlinks=os.utime not in os.supports_follow_symlinks)
            self.touched = now


class Owner(NamedTuple):
    """Who holds a lock, as its file says: pid, host and token (None where the
    file does not say, as an older promptc's `pid` alone)."""

    pid: int | None
    host: str | None
    token: str | None

    def text(self) -> bytes:
        return f"pid {self.pid}\nhost {self.host}\ntoken {self.token}\n".encode()

    @classmethod
    def parse(cls, data: bytes) -> Owner:
        text = data.decode("utf-8", "replace")
        if text.strip().isdigit():  # an older promptc wrote the pid alone
            return cls(int(text), None, None)
        fields = dict(line.partition(" ")[::2] for line in text.splitlines())
        pid = fields.get("pid", "")
        return cls(int(pid) if pid.isdigit() else None, fields.get("host"), fields.get("token"))

    def gone(self) -> bool:
        """Whether the owner is known to be dead: on this host, and its pid runs no more."""
        if self.pid is None or self.pid <= 0 or self.host != host_name():
            return False  # os.kill(0 or -1, 0) would ask about whole process groups
        return self.pid != os.getpid() and not _running(self.pid)

    def shown(self) -> str:
        where = f" on {self.host}" if self.host else ""
        return f"pid {'?' if self.pid is None else self.pid}{where}"


def host_name() -> str:
    """This machine's name, without importing socket."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    return os.environ.get("COMPUTERNAME", "")


def _running(pid: int) -> bool:
    """Whether `pid` runs; True when that cannot be told (Windows, where os.kill
    with signal 0 would terminate the process)."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it runs, as another user
        return True
    return True


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[_Lock]:
    # Two builds at once would race on the manifest: the second one waits.
    path = os.path.join(out, LOCK)
    mine = Owner(os.getpid(), host_name(), os.urandom(8).hex()).text()
    _acquire(path, mine)
    try:
        yield _Lock(path)
    finally:
        _release(path, mine)


def _acquire(path: str, mine: bytes) -> None:
    started = time.monotonic()
    while True:
        if _create(path, mine):
            return
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue  # released meanwhile
        if not stat.S_ISREG(info.st_mode):
            message = f"{kind(info.st_mode)} stands where the build's lock goes; remove it"
            raise LockError(errno.EEXIST, message, path)
        held = _held(path)
        abandoned = held is not None and Owner.parse(held).gone()
        if abandoned or time.time() - info.st_mtime > _STALE_SECONDS:
            _take_over(path, held)
            continue
        if time.monotonic() - started > _WAIT_SECONDS:
            raise LockError(errno.EBUSY, _busy(held), path)
        time.sleep(_POLL_SECONDS)


def _create(path: str, mine: bytes) -> bool:
    """Make the lock holding `mine`; False when a lock is there already. A write
    that fails (a full disk) removes the file it made: no empty lock is left."""
    try:
        write_new(path, mine)
    except FileExistsError:
        return False  # exclusive creation fails on anything there, a symlink too
    return True


def _held(path: str) -> bytes | None:
    """What the lock says (None: gone or unreadable)."""
    try:
        return read_regular(path, _MAX_LOCK_BYTES)
    except OSError:
        return None


def _take_over(path: str, held: bytes | None) -> None:
    """Remove a lock left by a build that is gone, unless it changed since it
    was read: another build took it over first, and it is that build's now."""
    if _held(path) == held:
        unlink(path)


def _busy(held: bytes | None) -> str:
    owner = Owner.parse(held or b"").shown()
    return (
        f"another promptc build ({owner}) has been writing this folder for "
        f"{_WAIT_SECONDS:.0f} s; if none is running, delete its lock"
    )


def _release(path: str, mine: bytes) -> None:
    """Remove the lock, unless another build took it over meanwhile."""
    if _held(path) == mine:
        with contextlib.suppress(OSError):
            os.unlink(path)
