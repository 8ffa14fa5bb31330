"""Files: read a file only when it is a regular one, replace one atomically,
and the names promptc gives its own files in an output folder.

The loader reads specs with it, the writer its manifest and the files it
generated, the cache the output folder it compares. A FIFO or a device named
like a spec or an output would block the run or never end, so the file is
looked at (os.stat) before it is opened. This module imports only the
standard library's cheapest parts: a cache hit reads through it before
anything else of promptc is loaded.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat

MANIFEST = ".promptc-manifest.json"
# A file's new bytes, written next to it under this name, then renamed over
# it (replace_file); a build that was killed leaves one.
TEMPORARY = re.compile(r"^\..+\.promptc-\d+\.tmp$")

# Windows translates line endings of a descriptor opened without O_BINARY.
_BINARY = getattr(os, "O_BINARY", 0)


class NotRegular(OSError):
    """A path that holds a folder, a symlink (when not followed), a FIFO or a device."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        super().__init__(f"not a regular file but {kind(mode)}")


class TooLarge(OSError):
    """A file past the size its reader allows."""

    def __init__(self, path: str | os.PathLike[str], size: int, limit: int) -> None:
        super().__init__(f"larger than {limit:,} bytes")
        self.size = size


def read_regular(
    path: str | os.PathLike[str], limit: int | None = None, *, follow_symlinks: bool = False
) -> bytes:
    """The bytes of the regular file at `path`; NotRegular for anything else
    (a symlink too, unless `follow_symlinks`), TooLarge past `limit` bytes,
    refused from its size before it is read."""
    info = os.stat(path, follow_symlinks=follow_symlinks)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegular(path, info.st_mode)
    if limit is not None and info.st_size > limit:
        raise TooLarge(path, info.st_size, limit)
    fd = os.open(path, os.O_RDONLY | _BINARY)
    try:
        data = _read_to_end(fd, info.st_size, None if limit is None else limit + 1)
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:  # it grew since it was looked at
        raise TooLarge(path, len(data), limit)
    return data


def _read_to_end(fd: int, size: int, cap: int | None) -> bytes:
    """Everything to the end of the file (at most `cap` bytes), in reads of the
    size it had: a buffered reader asked for `cap` bytes allocates that much,
    a megabyte for every spec."""
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


def temporary_name(path: str) -> str:
    """Where `path`'s new bytes are written before they replace it (TEMPORARY)."""
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.promptc-{os.getpid()}.tmp")


def write_new(path: str, content: bytes) -> None:
    """Create `path` holding `content`. Exclusive creation: a file or symlink
    planted under the name fails the write instead of redirecting it."""
    handle = open(path, "xb")  # noqa: SIM115 - closed below, the file removed if the write fails
    try:
        with handle:
            handle.write(content)
    except BaseException:
        unlink(path)
        raise


def replace_file(path: str | os.PathLike[str], content: bytes, mode: int | None = None) -> None:
    """Replace the file at `path` with `content` (and permission bits `mode`):
    whoever reads it meanwhile sees the old bytes or the new, never a part."""
    temp = temporary_name(os.fspath(path))
    try:
        write_new(temp, content)
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    finally:
        unlink(temp)


def unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
