"""Make integration: after a successful `promptc build --stamp STAMP --depfile
FILE`, FILE holds one make rule in the format of `gcc -MD -MP`: the stamp
depends on the config file, every spec and fragment, and the folders they live
in (a folder's mtime changes when a file is added or removed, so a new spec
rebuilds too); an empty rule per prerequisite keeps make from failing when
one is deleted. The stamp gets the mtime of the moment the build started, so a
file saved while promptc ran is still newer and the next make builds again.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from promptc_compiler.api import Result
from promptc_compiler.base.diagnostics import Diagnostic, Severity
from promptc_compiler.base.files import replace_file
from promptc_compiler.core.bundle import load_bundle
from promptc_compiler.core.config import Config

# The kernel stamps files with a coarse clock (one tick: up to 10 ms), so a file
# saved just after the build started can carry an mtime just before that moment.
# Dating the build this much earlier costs at worst one needless rebuild.
CLOCK_SLACK_NS = 10_000_000


class DepfileError(ValueError):
    pass


def inputs(config: Config) -> list[Path]:
    """Every file and folder the build reads, config first, in a stable order."""
    bundle = load_bundle(config)
    files = sorted(source.path for source in bundle.sources())
    config_file = [config.source] if config.source is not None else []
    return [*config_file, *files, *_folders(config.specs), *_folders(config.fragments)]


def _folders(root: Path) -> Iterator[Path]:
    if not root.is_dir():
        return
    yield root
    for path in sorted(root.rglob("*")):
        hidden = any(part.startswith(".") for part in path.relative_to(root).parts)
        if path.is_dir() and not hidden:
            yield path


def escape(name: str) -> str:
    """A file name as make reads it in a rule: `$$`, and `\\` before space, `#` and `:`."""
    if any(char in name for char in "\n\r\t"):
        raise DepfileError(f"make cannot name a file with a tab or line break: {name!r}")
    name = name.replace("$", "$$")
    for char in " #:":
        name = name.replace(char, "\\" + char)
    return name


def render(target: str, prerequisites: Sequence[str]) -> str:
    names = [escape(name) for name in prerequisites]
    rule = " \\\n  ".join([f"{escape(target)}:", *names])
    return rule + "\n" + "".join(f"{name}:\n" for name in names)


def record(
    config: Config, result: Result, *, depfile: Path | None, stamp: Path | None, started_ns: int
) -> Result:
    """Write the depfile, then the stamp, after a successful build; a failure is a diagnostic."""
    started_ns -= CLOCK_SLACK_NS
    if depfile is not None:
        try:
            names = [config.display(path) for path in inputs(config)]
            # make may read the depfile while a build runs: it sees the old or the new one.
            depfile.parent.mkdir(parents=True, exist_ok=True)
            replace_file(depfile, render(config.display(stamp or depfile), names).encode())
            if stamp is None:  # the depfile is its own target
                os.utime(depfile, ns=(started_ns, started_ns))
        except (OSError, DepfileError) as exc:
            return _failed(config, result, depfile, "depfile", exc)
    if stamp is not None:
        try:
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.touch()
            os.utime(stamp, ns=(started_ns, started_ns))
        except OSError as exc:
            return _failed(config, result, stamp, "stamp", exc)
    return result


def _failed(config: Config, result: Result, path: Path, what: str, exc: Exception) -> Result:
    message = f"cannot write the {what}: {exc}"
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        message = f"cannot write the {what}: {exc.strerror or exc}{where}"
    problem = Diagnostic(config.display(path), 1, 1, "write", Severity.ERROR, message)
    return replace(result, diagnostics=tuple(sorted((*result.diagnostics, problem))))
