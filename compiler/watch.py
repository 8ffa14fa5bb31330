"""`promptc build --watch` and `promptc check --watch`: run again after every change.

The specs and fragments folders are watched (watchfiles, debounced: a save
that touches several files makes one run); the config file is looked at on
every change and once a second, since an editor that saves by renaming would
leave a watch on the file itself behind. Each run starts from the config
read again and the files as they are; what it worked out from a file is kept
for the next run (api.Kept, as the language server keeps it) and serves only
a file whose bytes did not change, so a run reports and writes what a fresh
run would. A run that finds errors writes nothing, as a plain build, and the
watch goes on. Ctrl-C ends it with exit code 0: stopping is how a watch ends.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import watchfiles

from compiler.api import Kept
from compiler.config import Config
from compiler.errors import PromptcError

DEBOUNCE_MS = 200  # how long the folders must be quiet before a run
POLL_MS = 1000  # how often the config file is looked at without any other change

Echo = Callable[[str], None]


def watch(load: Callable[[], Config], run: Callable[[Config, Kept], object], echo: Echo) -> int:
    """Run, then run again after each change, until Ctrl-C; the exit code (0).
    Every run of this watch gets its one Kept: it lives as long as the watch."""
    kept = Kept()
    try:
        config = load()  # a config that does not load at the start says what to watch: none
        folders = [folder for folder in (config.specs, config.fragments) if folder.is_dir()]
        stamp = _stamp(config.source)
        changes = _changes(folders, config)
        # The watch starts on the first step (at most POLL_MS): before the first
        # run, so that an edit made while it runs is the next change.
        early = next(changes)
        _attempt(lambda: run(config, kept), echo)
        echo(f"promptc: watching {', '.join(map(config.display, folders))} (Ctrl-C to stop)")
        for found in itertools.chain([early], changes):
            now = _stamp(config.source)
            if not found and now == stamp:
                continue
            stamp = now
            echo(f"promptc: {_what(found, config)} changed; running again")
            _attempt(lambda: run(load(), kept), echo)
    except KeyboardInterrupt:
        echo("promptc: stopped watching")
    return 0


def _changes(folders: list[Path], config: Config) -> Iterator[set[tuple[watchfiles.Change, str]]]:
    out = str(config.out) + os.sep
    plain = watchfiles.DefaultFilter()  # editors' swap and backup files, .git, caches

    def relevant(change: watchfiles.Change, path: str) -> bool:
        return not path.startswith(out) and plain(change, path)

    return watchfiles.watch(
        *folders,
        watch_filter=relevant,
        debounce=DEBOUNCE_MS,
        rust_timeout=POLL_MS,
        yield_on_timeout=True,
    )


def _attempt(run: Callable[[], object], echo: Echo) -> None:
    """One run; a config that stopped loading is reported, and the watch goes on."""
    try:
        run()
    except PromptcError as exc:
        echo(f"promptc: {exc}")


def _stamp(path: Path | None) -> tuple[int, int, int] | None:
    if path is None:
        return None
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino


def _what(changes: set[tuple[watchfiles.Change, str]], config: Config) -> str:
    if not changes:
        return config.display(config.source) if config.source else "the config"
    paths = sorted({path for _, path in changes})
    shown = config.display(Path(paths[0]))
    return shown if len(paths) == 1 else f"{shown} and {len(paths) - 1} more file(s)"
