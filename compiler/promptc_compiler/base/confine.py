"""Confinement: where promptc may write, replace or delete, and opening files
without following a symlink or blocking on a FIFO.

The rule (docs/robustness.md, "Where promptc writes"): every path promptc
writes or deletes (the output, its manifest and lock, the result cache) lies
inside the project root, the folder holding the config, is reached from it
without following any symlink, and never lies inside a barred folder (the
sources, and for the output the cache). An `Area` checks a path against that
rule by walking each component below the root with lstat; the writer, the
cache and the lock all ask the same `Area`.

A repository is hostile input: it can hold a symlink where a folder is
expected, a FIFO or a link to /dev/zero where a file is expected. A file is
therefore opened with O_NOFOLLOW and O_NONBLOCK where the platform has them
(POSIX), looked at before (lstat: a FIFO or device is never opened) and after
(fstat: the file opened is the one looked at). Windows has neither flag: there
the look before, with the reparse tag that marks its symlinks and junctions,
and the identity check after stand in for them.

It imports only the standard library: every layer of promptc reads through it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Mapping

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
# Windows translates line endings of a descriptor opened without O_BINARY.
_BINARY = getattr(os, "O_BINARY", 0)


class NotRegular(OSError):
    """A path that holds a folder, a symlink (when not followed), a FIFO or a device."""

    def __init__(self, _path: str | os.PathLike[str], mode: int) -> None:
        super().__init__(f"not a regular file but {kind(mode)}")


class Escape(OSError):
    """A path promptc will not write or delete: outside the project, through a
    symlink, or inside a barred folder. The message says which, naming the
    path from the project root."""

    def __init__(self, message: str) -> None:
        super().__init__(errno.EPERM, message)


def kind(mode: int) -> str:
    """What a file of this mode is, for messages: `a folder`, `a FIFO`..."""
    kinds = (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symlink"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    )
    return next((name for test, name in kinds if test(mode)), "a special file")


def is_link(info: os.stat_result) -> bool:
    """A symlink, or on Windows any reparse point (a junction reads as a folder)."""
    return stat.S_ISLNK(info.st_mode) or bool(getattr(info, "st_reparse_tag", 0))


def inside(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies below it, both absolute and normalised
    (text only: nothing on disk is looked at; case-blind where the platform is)."""
    path, folder = os.path.normcase(path), os.path.normcase(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


# --- opening files ------------------------------------------------------------------


def open_regular(
    path: str | os.PathLike[str], *, follow_symlinks: bool = False
) -> tuple[int, os.stat_result]:
    """A descriptor for reading the regular file at `path`, and what it is;
    NotRegular for a folder, FIFO, device or (unless `follow_symlinks`) a
    symlink, which is never opened."""
    info = os.stat(path, follow_symlinks=follow_symlinks)
    if not stat.S_ISREG(info.st_mode) or (not follow_symlinks and is_link(info)):
        raise NotRegular(path, stat.S_IFLNK if is_link(info) else info.st_mode)
    flags = os.O_RDONLY | _BINARY | _NONBLOCK | (0 if follow_symlinks else _NOFOLLOW)
    fd = os.open(path, flags)
    try:
        opened = os.fstat(fd)
        # Swapped between the look and the open (a FIFO, another file).
        if not stat.S_ISREG(opened.st_mode) or not os.path.samestat(info, opened):
            raise NotRegular(path, opened.st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd, opened


def create_new(path: str | os.PathLike[str], mode: int = 0o666) -> int:
    """A descriptor for writing a file created at `path`, which must not exist:
    exclusive creation fails on anything already there, a dangling symlink too,
    so a planted name cannot redirect the write."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY
    return os.open(path, flags, mode)


# --- the area one run may write in --------------------------------------------------


class Area:
    """Where one run may write and delete: below `root` (a real path, symlinks
    resolved), every folder on the way a real folder, never a symlink, and
    nothing inside a `barred` folder (path -> what it is, for messages).

    A folder found sound is remembered for the life of the object (one write
    of the output, one store in the cache): a build writes thousands of files
    into a handful of folders.
    """

    def __init__(self, root: str | os.PathLike[str], barred: Mapping[str, str] | None = None):
        self.root = os.path.abspath(root)
        self.barred = {os.path.abspath(path): what for path, what in (barred or {}).items()}
        self._sound: set[str] = {self.root}
        # file_problem's answers by folder text: (the folder's problem, the
        # barred folders directly in it by name, with their message).
        self._files: dict[str, tuple[str | None, dict[str, str]]] = {}

    def problem(self, folder: str | os.PathLike[str]) -> str | None:
        """Why nothing may be written in `folder` (which need not exist yet), or None."""
        path = os.path.abspath(folder)
        if path in self._sound:
            return None
        if not inside(path, self.root):
            return f"{path} lies outside the project ({self.root}); promptc writes only inside it"
        for barred, what in self.barred.items():
            if inside(path, barred):
                where = f"`{self._name(path)}` lies in {what} (`{self._name(barred)}`)"
                return f"{where}; promptc never writes there"
        return self._walk(path)

    def file_problem(self, folder: str, name: str) -> str | None:
        """Why no file `name` may be written in `folder`, or None: the folder's
        problem, or the name is itself a barred folder (one not made yet).
        Remembered by the folder's text: asked once per file of a build."""
        known = self._files.get(folder)
        if known is None:
            path = os.path.abspath(folder)
            here = {
                os.path.basename(barred): f"`{self._name(barred)}` is {what}; "
                "promptc never writes there"
                for barred, what in self.barred.items()
                if os.path.dirname(barred) == path
            }
            known = self._files[folder] = (self.problem(path), here)
        found, here = known
        return found if found is not None else here.get(name)

    def check(self, folder: str | os.PathLike[str]) -> str:
        """`folder`, absolute, after problem() found nothing; Escape otherwise."""
        found = self.problem(folder)
        if found is not None:
            raise Escape(found)
        return os.path.abspath(folder)

    def make_folder(self, folder: str | os.PathLike[str]) -> str:
        """check() `folder`, then create each missing folder on the way, one at a
        time: a component that appears as a symlink meanwhile is refused, not
        followed (os.makedirs would follow it)."""
        path = self.check(folder)
        current = self.root
        for part in self._parts(path):
            current = os.path.join(current, part)
            if current in self._sound:
                continue
            with contextlib.suppress(FileExistsError):
                os.mkdir(current)
            info = os.lstat(current)
            if is_link(info):
                raise Escape(_through(self._name(current), ""))
            if not stat.S_ISDIR(info.st_mode):
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), current)
            self._sound.add(current)
        return path

    def _walk(self, path: str) -> str | None:
        """Look at each component below the root: a symlink is a problem; a
        missing one ends the walk (it is created later, as a real folder)."""
        current = self.root
        for part in self._parts(path):
            current = os.path.join(current, part)
            if current in self._sound:
                continue
            try:
                info = os.lstat(current)
            except (FileNotFoundError, NotADirectoryError):
                return None
            if is_link(info):
                return _through(self._name(current), _target(current))
            if not stat.S_ISDIR(info.st_mode):
                return None  # a file where a folder goes: writing there fails on its own
            self._sound.add(current)
        return None

    def _parts(self, path: str) -> list[str]:
        rest = path[len(self.root) :].strip(os.sep)
        return rest.split(os.sep) if rest else []

    def _name(self, path: str) -> str:
        """A path as messages name it: from the project root, in POSIX form."""
        if path == self.root:
            return "."
        return os.path.relpath(path, self.root).replace(os.sep, "/")


def _through(name: str, target: str) -> str:
    return f"`{name}` is a symlink{target}; promptc never writes through one"


def _target(link: str) -> str:
    try:
        return f" (to {os.readlink(link)})"
    except OSError:
        return ""


def safe_relative(rel: str) -> bool:
    """A plain relative POSIX path with no `.`, `..` or empty parts: it stays
    inside the folder it is relative to (as text; symlinks are Area's)."""
    parts = rel.split("/")
    return (
        bool(rel)
        and "\0" not in rel
        and not any(mark in rel for mark in _FOREIGN_SEPARATORS)
        and all(p not in ("", ".", "..") for p in parts)
    )


# What Windows also reads as a separator or a drive: there `..\\x` and `C:x`
# would lead out of the folder.
_FOREIGN_SEPARATORS = ("\\", ":") if os.name == "nt" else ()
