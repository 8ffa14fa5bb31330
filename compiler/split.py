"""A build's per-file work split over two processes.

Once the bundle is loaded and its frontmatter composed, most of a build's
time goes to each agent's own file: its body rendered, the rules that read
it, the file made and checked against the runtime's schema. Python runs that
on one core. On a machine with two or more, the emit step (emitter.Step)
forks one helper right before the rules of the whole bundle run: the helper
emits a share of the agents (and every other file), while this process runs
those rules and emits the first agents; then this process takes the
helper's findings and files back and goes on as if it had made them itself,
in the order one process would have (emitter.Split).

A fork, not a pool of fresh workers: the helper starts with everything loaded
and composed so far, at no cost but the pages either process writes to. It
hands its results back through a file in memory (no disk, and no more than a
batch of events held in its heap) and a pipe for the summary; a helper that
fails in any way (an exception, a signal, a malformed summary) costs time,
never output: its share is emitted here instead.

Set PROMPTC_SPLIT=0 to keep a build in one process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from collections.abc import Callable, Iterator
from typing import IO

# Fewer agents than this are emitted in one process: a fork and the trip
# back cost a few milliseconds, about what 100 agents' files take.
SPLIT_FROM = 128
SWITCH = "PROMPTC_SPLIT"

Event = tuple[object, ...]
# Events go to the memory file this many at a time: reading them back one
# by one cost a third of the time this process took over the helper's share.
_BATCH = 64
Put = Callable[[Event], None]


def wanted(agents: int) -> bool:
    """Whether a build of `agents` agents is worth splitting here (Helper.start
    may still refuse to fork)."""
    if os.environ.get(SWITCH) == "0" or agents < SPLIT_FROM:
        return False
    return _cores() >= 2


def _can_fork() -> bool:
    """Whether this process may fork a helper: a fork copies only the calling
    thread, with every lock another thread held at that moment, so a program
    that embeds promptc with threads of its own gets none. (Without
    `threading` imported, no thread runs Python; importing it here would cost
    more than the rest of the module.)"""
    if not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class Events:
    """Events kept in a file in memory (not in this process's heap), written a
    batch at a time and read back once, in order."""

    def __init__(self) -> None:
        self._file = _memory_file()
        self._batch: list[Event] = []

    def put(self, event: Event) -> None:
        self._batch.append(event)
        if len(self._batch) == _BATCH:
            self._flush()

    def finish(self) -> None:
        """Write what is left: the events are complete."""
        self._flush()
        self._file.flush()

    def read(self) -> Iterator[Event]:
        """Every event put, in order (once finished); the file closes after the last."""
        self._file.seek(0)
        try:
            while True:
                try:
                    # One unpickler per batch: one for all would keep every
                    # event it read (its memo), files included.
                    batch: list[Event] = pickle.load(self._file)
                except EOFError:
                    return
                yield from batch
        finally:
            self._file.close()

    def close(self) -> None:
        self._file.close()

    def _flush(self) -> None:
        pickle.dump(self._batch, self._file, pickle.HIGHEST_PROTOCOL)
        self._batch.clear()


class Helper:
    """A forked copy of this process running `work`, which records Events."""

    def __init__(self, pid: int, events: Events, summary: int) -> None:
        self.pid = pid
        self.events = events  # read them after a successful join
        self._summary = summary

    @classmethod
    def start(cls, work: Callable[[Put], object]) -> Helper | None:
        """Fork a helper running `work(put)`; None when no helper can start."""
        if not _can_fork():
            return None
        try:
            events = Events()
        except OSError:
            return None
        try:
            summary_read, summary_write = os.pipe()
        except OSError:
            events.close()
            return None
        try:
            pid = os.fork()
        except OSError:
            for fd in (summary_read, summary_write):
                os.close(fd)
            events.close()
            return None
        if pid == 0:
            _run_helper(work, events, summary_read, summary_write)  # never returns
        os.close(summary_write)
        return cls(pid, events, summary_read)

    def join(self) -> object | None:
        """Wait for the helper: what `work` returned, or None when it failed."""
        summary, self._summary = self._summary, -1
        try:
            with os.fdopen(summary, "rb") as pipe:
                data = pipe.read()
        except BaseException:  # an interrupt while waiting: the helper goes too
            self.abandon()
            raise
        _, status = os.waitpid(self.pid, 0)
        if status != 0 or not data:
            return None
        try:
            result: object = pickle.loads(data)
        except Exception:  # a summary cut short: the helper's share is redone
            return None
        return result

    def close(self) -> None:
        self.events.close()

    def abandon(self) -> None:
        """Stop the helper and let it go: this process will not take its share."""
        import signal

        with contextlib.suppress(OSError):  # gone already
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        if self._summary >= 0:  # not closed by join yet
            os.close(self._summary)
            self._summary = -1
        self.events.close()


def _memory_file() -> IO[bytes]:
    """A file in memory where Linux has them, else an unnamed temporary file."""
    create = getattr(os, "memfd_create", None)
    if create is not None:
        return open(create("promptc-split", os.MFD_CLOEXEC), "w+b")
    import tempfile

    return tempfile.TemporaryFile()


def _run_helper(
    work: Callable[[Put], object], events: Events, summary_read: int, summary_write: int
) -> None:
    """The helper's whole life: it never returns into the caller's code, and
    leaves through os._exit so that nothing of the parent's (buffered output,
    exit handlers, temporary files) is flushed or removed twice."""
    code = 1
    try:
        os.close(summary_read)
        result = work(events.put)
        events.finish()
        data = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(summary_write, view) :]
        code = 0
    except BaseException:  # whatever it was, the parent redoes the share
        pass
    finally:
        os._exit(code)
