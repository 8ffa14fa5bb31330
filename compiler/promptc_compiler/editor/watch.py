"""`promptc build --watch` and `promptc check --watch`: run again after every change.

The specs and fragments folders are watched (watchfiles, debounced: a save
that touches several files makes one run); the config file is looked at on
every change and once a second, since an editor that saves by renaming would
leave a watch on the file itself behind. So are the folders themselves: a
watch on a folder ends with the folder, and one removed and made again
(`git checkout`, `git stash`, `rm -rf` and a restore) or made after the watch
started is watched anew, and its coming is a change. The folders are the
ones the config names, as last loaded. Each run starts from the config
read again and the files as they are; each file as loaded is kept for the
next run (api.Kept, as the language server keeps it) and serves only a file
whose bytes did not change, so a run reports and writes what a fresh run
would. A run that finds errors writes nothing, as a plain build, and the
watch goes on. Each run ends with a separator line that gives the time it
ended and how long it took. Editors' temporary, swap and backup files (vim's
`.x.swp` and `4913`, Emacs's `x~` and `.#x`, JetBrains' `___jb_tmp___`, VS
Code's `.vsctmp`, `*.tmp`) are no change: an editor that saves through them
makes one run, for the file it saved. Ctrl-C ends it with exit code 0:
stopping is how a watch ends.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import watchfiles

from promptc_compiler.api import Kept
from promptc_compiler.base.errors import PromptcError
from promptc_compiler.core.config import Config

DEBOUNCE_MS = 200  # how long the folders must be quiet before a run
POLL_MS = 1000  # how often the config file and the folders are looked at without any change

# Files editors write beside the one saved, which watchfiles' default filter
# (`.swp`, `~`, `.#`, JetBrains' `___jb_…___`) does not all know.
_EDITOR_TEMPS = re.compile(
    r"""(
        ^4913$                  # vim: may it write in this folder?
      | \.sw[a-p]$ | \.swx$     # vim swap files
      | ~$ | ^\.\#             # Emacs backups and locks
      | \.tmp$ | \.vsctmp$      # atomic saves: VS Code, and many others
      | ___jb_(tmp|old)___$     # JetBrains safe write
    )""",
    re.X | re.I,
)

Echo = Callable[[str], None]
Changes = set[tuple[watchfiles.Change, str]]
# A watched folder and what it is: its device and inode, which a folder made
# again under the same name does not keep.
Folders = dict[Path, tuple[int, int]]


def watch(load: Callable[[], Config], run: Callable[[Config, Kept], object], echo: Echo) -> int:
    """Run, then run again after each change, until Ctrl-C; the exit code (0, or 1
    when the folders cannot be watched).
    Every run of this watch gets its one Kept: it lives as long as the watch."""
    kept = Kept()
    try:
        config = load()  # a config that does not load at the start says what to watch: none

        def again() -> None:
            nonlocal config
            config = load()  # a config that stopped loading leaves the last one's folders
            run(config, kept)

        stamp = _stamp(config.source)
        changes = _changes(lambda: config)
        # The watch starts on the first step (at most POLL_MS): before the first
        # run, so that an edit made while it runs is the next change.
        found = next(changes)
        _attempt(lambda: run(config, kept), echo)
        shown = ", ".join(map(config.display, _folders(config)))
        echo(f"promptc: watching {shown or 'no folder yet'} (Ctrl-C to stop)")
        while True:
            now = _stamp(config.source)
            if found or now != stamp:
                stamp = now
                echo(f"promptc: {_what(found, config)} changed; running again")
                _attempt(again, echo)
            found = next(changes)
    except KeyboardInterrupt:
        echo("promptc: stopped watching")
    except OSError as exc:  # the system's limit of watches, say
        echo(f"promptc: cannot watch the folders: {exc}")
        return 1
    return 0


def _changes(current: Callable[[], Config]) -> Iterator[Changes]:
    """The changes in the folders of the `current` config, a set at a time, and an
    empty set every POLL_MS without any. When the folders there are are not the
    ones watched (one is gone, back, new or made again), the watch starts again
    on them, and each folder that went or came is a change. A watch that starts
    again looks at its folders against the ones last told: a folder back by
    then is a change too, though no watch saw it come."""
    came: Changes = set()
    told: Folders | None = None  # the folders as last told: those seen to go are gone
    while True:
        config = current()
        watched = _folders(config)
        if told is not None:
            # A folder back between the last watch's look and this one (moved
            # away and back, with its inode) comes with no event in either watch.
            came |= _moved(told, watched)
        told = watched
        steps = _watch(watched, config)
        try:
            for found in steps:
                # A folder that went or came is told on the new watch's first
                # step: what is written in it meanwhile is seen by the run that
                # starts, or by the next.
                yield came | found
                came = set()
                now = _folders(current())
                # A folder removed and made again between two looks may get its
                # old inode back: the watch's own word that it went counts too.
                went = {p for p in watched if (watchfiles.Change.deleted, str(p)) in found}
                if now != watched or went:
                    # A folder the watch saw go is gone as told, whatever its
                    # inode: if it is there for the next watch, it came back.
                    told = {p: identity for p, identity in now.items() if p not in went}
                    # What the watch saw (a folder's removal) was told already.
                    came = _moved(watched, told) - found
                    break
        except OSError:
            if _folders(current()) == watched:
                raise  # not a folder that went as the watch started on it
        finally:
            steps.close()


def _moved(watched: Folders, now: Folders) -> Changes:
    """The folders gone and the folders come (a folder made again is both), as changes:
    a folder moved away leaves no event behind, one made again none at all."""
    gone = {(watchfiles.Change.deleted, str(p)) for p in watched if now.get(p) != watched[p]}
    came = {(watchfiles.Change.added, str(p)) for p in now if watched.get(p) != now[p]}
    return gone | came


def _watch(folders: Folders, config: Config) -> Generator[Changes, None, None]:
    out = str(config.out) + os.sep
    plain = watchfiles.DefaultFilter()  # editors' swap and backup files, .git, caches

    def relevant(change: watchfiles.Change, path: str) -> bool:
        if path.startswith(out) or _EDITOR_TEMPS.search(os.path.basename(path)):
            return False
        return plain(change, path)

    return watchfiles.watch(
        *folders,
        watch_filter=relevant,
        debounce=DEBOUNCE_MS,
        rust_timeout=POLL_MS,
        yield_on_timeout=True,
    )


def _folders(config: Config) -> Folders:
    """The specs and fragments folders there are, each with its identity."""
    found: Folders = {}
    for folder in (config.specs, config.fragments):
        try:
            info = folder.stat()
        except OSError:
            continue
        if folder.is_dir():
            found[folder] = (info.st_dev, info.st_ino)
    return found


def _attempt(run: Callable[[], object], echo: Echo) -> None:
    """One run; a config that stopped loading is reported, and the watch goes on.
    A line with the time and the run's duration ends it, to tell runs apart."""
    began = time.monotonic()
    try:
        run()
    except PromptcError as exc:
        echo(f"promptc: {exc}")
    took = time.monotonic() - began
    echo(f"promptc: -------- {time.strftime('%H:%M:%S')}, {took:.2f} s --------")


def _stamp(path: Path | None) -> tuple[int, int, int] | None:
    if path is None:
        return None
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino


def _what(changes: Changes, config: Config) -> str:
    if not changes:
        return config.display(config.source) if config.source else "the config"
    paths = sorted({path for _, path in changes})
    shown = config.display(Path(paths[0]))
    return shown if len(paths) == 1 else f"{shown} and {len(paths) - 1} more file(s)"
