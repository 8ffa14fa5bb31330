"""Generated files held for the writer: in memory up to a budget, past it in a
temporary file.

`promptc build` must see every generated file before it writes one (nothing
is written while any error exists), so it holds them all. 10,000 agents make
about 100 MB of files; past KEPT_BYTES the rest go to an unlinked temporary
file (the system's temporary folder, in the page cache as a rule) and are read
back when the writer asks for them, so a build's memory stays bounded.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from compiler.writer import Stage

KEPT_BYTES = 8 << 20


class Spool(Mapping[str, bytes]):
    """Files by path, in the order added; a path added again replaces its bytes.

    With a `stage` (a writer.Stage, for a build into an output folder that
    holds nothing), a file may also be added as staged there already by
    another process (`staged`): its bytes are read back from there if asked for.
    """

    def __init__(self, stage: Stage | None = None) -> None:
        self._kept: dict[str, bytes] = {}
        self._spooled: dict[str, tuple[int, int]] = {}  # path -> (offset, length)
        self._order: dict[str, None] = {}
        self._held = 0
        self._fd: int | None = None
        self._end = 0
        self.error: OSError | None = None
        self.stage = stage

    def __call__(self, rel: str, data: bytes) -> None:
        """Add a file (the sink api._render writes to). A temporary file that cannot
        be written leaves `error` set; the files past it are not held."""
        self._order[rel] = None  # a path added again keeps its place, as in a dict
        self._kept.pop(rel, None)
        self._spooled.pop(rel, None)
        if self.stage is not None:
            self.stage.staged.pop(rel, None)  # these bytes replace the staged ones
        if self._held + len(data) <= KEPT_BYTES:
            self._held += len(data)
            self._kept[rel] = data
            return
        if self.error is not None:
            return
        try:
            if self._fd is None:
                self._fd = _unlinked_file()
                weakref.finalize(self, os.close, self._fd)  # lives as long as the spool
            os.pwrite(self._fd, data, self._end)
        except OSError as exc:
            self.error = exc
            return
        self._spooled[rel] = (self._end, len(data))
        self._end += len(data)

    def staged(self, rel: str, digest: str, size: int) -> None:
        """Add a file another process wrote to the stage (its hash and size)."""
        assert self.stage is not None
        self._order[rel] = None
        self._kept.pop(rel, None)
        self._spooled.pop(rel, None)
        self.stage.note(rel, digest, size)

    def unstage(self) -> None:
        """Hold the staged files' bytes here, and let go of the stage (which the
        caller then discards): for a build that did not write them."""
        stage = self.stage
        if stage is None or stage.moved:
            return
        self.stage = None  # so that adding them does not touch the stage
        for rel in list(stage.staged):
            self(rel, stage.read(rel))

    def __getitem__(self, rel: str) -> bytes:
        kept = self._kept.get(rel)
        if kept is not None:
            return kept
        if self.stage is not None and rel in self.stage.staged:
            return self.stage.read(rel)
        offset, length = self._spooled[rel]
        assert self._fd is not None
        data = os.pread(self._fd, length, offset)
        if len(data) != length:
            raise OSError(f"temporary file of generated files cut short at {rel}")
        return data

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, rel: object) -> bool:
        return rel in self._order


def _unlinked_file() -> int:
    """A new temporary file, already unlinked: nothing is left behind, whatever happens."""
    # Linux makes a file with no name at all (O_TMPFILE) in the folder given:
    # 0.05 ms, against 3-5 ms for importing tempfile and letting it probe its
    # candidate folders. Where that fails (no O_TMPFILE, a file system without
    # it, a folder that is not there), tempfile chooses.
    if hasattr(os, "O_TMPFILE"):
        try:
            return os.open(_temporary_folder(), os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o600)
        except OSError:
            pass
    import tempfile  # only a build past KEPT_BYTES needs it

    fd, path = tempfile.mkstemp(prefix="promptc-")
    try:
        os.unlink(path)
    except OSError:
        os.close(fd)
        raise
    return fd


def _temporary_folder() -> str:
    """tempfile's first choice: the folder TMPDIR, TEMP or TMP names, else /tmp."""
    for name in ("TMPDIR", "TEMP", "TMP"):
        folder = os.environ.get(name)
        if folder:
            return folder
    return "/tmp"
