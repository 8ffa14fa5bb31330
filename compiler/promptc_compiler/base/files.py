"""Files: read a file only when it is a regular one, replace one atomically,
and the names promptc gives its own files.

The loader reads specs with it, the writer its manifest and the files it
generated, the cache its entries and the output folder it compares. A FIFO or
a device named like a spec or an output would block the run or never end, and
a symlink would lead anywhere: the file is opened through promptc_compiler.base.confine,
which looks at it before and after it is opened and never follows a symlink
unless asked.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re

from promptc_compiler.base.confine import NotRegular as NotRegular
from promptc_compiler.base.confine import create_new, open_regular
from promptc_compiler.base.confine import kind as kind

MANIFEST = ".promptc-manifest.json"
# The result cache's folder, next to the config (promptc_compiler.pipeline.cache).
CACHE_FOLDER = ".promptc-cache"
# A file's new bytes, written next to it under this name, then renamed over
# it (replace_file); a build that was killed leaves one.
TEMPORARY = re.compile(r"^\..+\.promptc-\d+\.tmp$")


class TooLarge(OSError):
    """A file past the size its reader allows."""

    def __init__(self, _path: str | os.PathLike[str], size: int, limit: int) -> None:
        super().__init__(f"larger than {limit:,} bytes")
        self.size = size


def read_regular(
    path: str | os.PathLike[str], limit: int | None = None, *, follow_symlinks: bool = False
) -> bytes:
    """The bytes of the regular file at `path`; NotRegular for anything else
    (a symlink too, unless `follow_symlinks`), TooLarge past `limit` bytes,
    refused from its size before it is read."""
    fd, info = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        size = info.st_size
        if limit is not None and size > limit:
            raise TooLarge(path, size, limit)
        data = _read_to_end(fd, size, None if limit is None else limit + 1)
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:  # it grew since it was looked at
        raise TooLarge(path, len(data), limit)
    return data


# A pyproject.toml of a large project is tens of KB.
MAX_CONFIG_BYTES = 4 << 20


def read_config(path: str | os.PathLike[str]) -> str:
    """A config file's text (promptc_compiler.core.config, and the cache before it), newlines
    read as Python's text mode reads them. Followed when a symlink (a config
    may be shared), but never a FIFO or a device, which would block or never
    end, and never past MAX_CONFIG_BYTES."""
    data = read_regular(path, MAX_CONFIG_BYTES, follow_symlinks=True)
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


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


def temporary_name(path: str) -> str:
    """Where `path`'s new bytes are written before they replace it (TEMPORARY)."""
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.promptc-{os.getpid()}.tmp")


def write_new(path: str, content: bytes, mode: int = 0o666) -> None:
    """Create `path` holding `content`. Exclusive creation: a file or symlink
    planted under the name fails the write instead of redirecting it."""
    fd = create_new(path, mode)
    try:
        try:
            _write_to_end(fd, content)
        finally:
            os.close(fd)
    except BaseException:
        unlink(path)
        raise


def _write_to_end(fd: int, content: bytes) -> None:
    """Write all of `content` to `fd`, as the descriptor takes it. Not through
    a file object: open() asks the system for the file's status first, and a
    build writes thousands of files."""
    view = memoryview(content)
    while view:
        written = os.write(fd, view)
        if not written:  # a file system that takes nothing would be asked forever
            raise OSError(errno.EIO, "the file system took none of the bytes written")
        view = view[written:]


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
