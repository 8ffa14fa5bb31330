"""Entry: the `promptc` command, with the everyday command lines run before click loads.

A pre-commit hook runs `promptc check` on every commit, and most of those
runs find nothing changed: then the answer is in the cache, and loading the
command-line library would cost more than the rest of the run. So `main`
first looks at the command line itself, and runs it here when it is
`promptc --version`, or `promptc check` / `promptc build` with only the
everyday options (--config, --format, --strict, -q, -v, --no-color,
--no-cache, and --check and --force for build). Any other command line (a
help request, --fix, --target, --depfile, a typo) goes to compiler.cli, which
parses it in full with click.

Both ways end in the same functions below (compiler.cli's `check` and `build`
call them too), so output and exit codes do not depend on the way taken.
"""

from __future__ import annotations

import os
import sys
import time

from compiler import __version__
from compiler.errors import PromptcError, UsageError

# Not `typing.TYPE_CHECKING`: typing, dataclasses and pathlib each cost more
# to import than a whole cache hit, so this module imports none of them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path
    from typing import NoReturn

    from compiler.api import Result
    from compiler.cache import Hit
    from compiler.config import Config

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

FORMATS = ("text", "json", "github", "sarif")


class Options:
    """The options `check` and `build` share with every checking command."""

    __slots__ = ("config_path", "fmt", "no_color", "quiet", "strict", "verbose")

    def __init__(
        self,
        config_path: Path | None = None,
        fmt: str | None = None,
        strict: bool = False,
        quiet: bool = False,
        verbose: bool = False,
        no_color: bool = False,
    ) -> None:
        self.config_path = config_path
        self.fmt = fmt
        self.strict = strict
        self.quiet = quiet
        self.verbose = verbose
        self.no_color = no_color


class TargetError(UsageError):
    """`--target` names a target the config does not have (click reports it as usage)."""


def main(argv: Sequence[str] | None = None) -> int:
    """The `promptc` command: a simple command line here, any other through click."""
    args = list(sys.argv[1:] if argv is None else argv)
    code = run_simple(args)
    if code is not None:
        return code
    from compiler.cli import main as full

    return full(args)


def run() -> NoReturn:
    """The `promptc` program (console script and `python -m compiler`): `main`,
    then an exit that skips the interpreter's teardown.

    Freeing every module and object one by one at exit takes longer than a
    cache hit (about 13 ms after a cold check of 16 agents) and does nothing
    for the user: every file promptc writes is closed (and renamed into place)
    before `main` returns. Only the two standard streams may still hold
    output, so they are flushed first; if that fails (a closed pipe), the
    ordinary exit runs and reports it as it always has.

    For the same reason the cyclic garbage collector stays off: the api
    pauses it during a run (api._collector_paused), and turned back on, its
    first pass scanned everything the run still held (16 ms after a build of
    1,000 agents) to free nothing this short-lived process needs back."""
    import gc

    gc.disable()
    code = main()
    if "compiler.classcode" in sys.modules:  # the pipeline was loaded
        from compiler import classcode

        classcode.save()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        sys.exit(code)
    os._exit(code)


def load_pipeline() -> None:
    """Import compiler.api (the first time) with the cyclic garbage collector
    paused: the import makes tens of thousands of objects and no garbage, and
    the collections their count would trigger cost several ms for nothing.
    Its dataclasses take their methods' compiled code from compiler.classcode's
    store (`run` adds what this run had to compile)."""
    if "compiler.api" in sys.modules:
        return
    import gc

    from compiler import classcode

    classcode.install()
    paused = gc.isenabled()
    gc.disable()
    try:
        import compiler.api  # noqa: F401
    finally:
        if paused:
            gc.enable()


def _pipeline() -> None:
    """load_pipeline(), then the cache key a missed lookup started hashing
    meanwhile (cache.key_ahead): in hand before the run reads any input."""
    load_pipeline()
    if "compiler.cache" in sys.modules:
        from compiler import cache

        cache.await_key()


def run_simple(args: Sequence[str]) -> int | None:
    """Run `args` when it is a simple command line; None when click must parse it."""
    if list(args) == ["--version"]:
        echo(f"promptc, version {__version__}")
        return EXIT_OK
    parsed = _parse(args)
    if parsed is None:
        return None
    command, options, flags = parsed
    try:
        if command == "check":
            return run_check(options, no_cache="--no-cache" in flags)
        return run_build(
            options,
            check_only="--check" in flags,
            force="--force" in flags,
            no_cache="--no-cache" in flags,
        )
    except PromptcError as exc:
        echo(f"promptc: {exc}", err=True)
        return exc.exit_code
    except (EOFError, KeyboardInterrupt):
        echo("", err=True)
        echo("promptc: aborted", err=True)
        return EXIT_PROBLEMS
    except BrokenPipeError:
        # The reader went away (`promptc check | head -1`): exit 1 quietly, as
        # click does on the other command lines.
        _silence_stdout()
        return EXIT_PROBLEMS
    except Exception as exc:  # the last line of defence: one line, exit 3
        internal_error(exc)
        return EXIT_INTERNAL


_FLAGS = {
    "check": {"--strict", "--quiet", "-q", "--verbose", "-v", "--no-color", "--no-cache"},
    "build": {
        "--strict",
        "--quiet",
        "-q",
        "--verbose",
        "-v",
        "--no-color",
        "--no-cache",
        "--check",
        "--force",
    },
}


def _parse(args: Sequence[str]) -> tuple[str, Options, set[str]] | None:
    """(command, options, flags given) of a simple command line, else None."""
    if not args or args[0] not in _FLAGS:
        return None
    allowed = _FLAGS[args[0]]
    flags: set[str] = set()
    values: dict[str, str] = {}
    rest = list(args[1:])
    while rest:
        word = rest.pop(0)
        name, equals, value = word.partition("=")
        if name in ("--config", "--format"):
            if not equals:
                if not rest:
                    return None
                value = rest.pop(0)
            values[name] = value  # click too takes the last of a repeated option
        elif word in allowed:
            flags.add(word)
        else:
            return None
    fmt = values.get("--format")
    if fmt is not None and fmt not in FORMATS:
        return None
    config = values.get("--config")
    if config is not None and (not config or config.startswith("-") or os.path.isdir(config)):
        return None  # click's own message says what is wrong with it
    if config is not None:
        from pathlib import Path

    options = Options(
        config_path=None if config is None else Path(config),
        fmt=fmt,
        strict="--strict" in flags,
        quiet=bool(flags & {"--quiet", "-q"}),
        verbose=bool(flags & {"--verbose", "-v"}),
        no_color="--no-color" in flags,
    )
    return args[0], options, flags


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing what is left at exit cannot
    fail again on the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def internal_error(exc: Exception) -> None:
    echo(
        f"promptc: internal error: {type(exc).__name__}: {exc} "
        "(re-run with --traceback to see where)",
        err=True,
    )


def echo(line: str, *, err: bool = False) -> None:
    stream = sys.stderr if err else sys.stdout
    stream.write(f"{line}\n")
    stream.flush()


# --- the commands -------------------------------------------------------------------


def run_check(options: Options, *, fix: bool = False, no_cache: bool = False) -> int:
    """`promptc check`: lint plus `build --check`."""
    use_cache = not (no_cache or fix)
    mode = cache_mode(check=True, force=False)
    hit = cached(options.config_path, (), mode) if use_cache else None
    if hit is not None:
        return report(hit, options)

    _pipeline()
    from compiler import api

    result = api.check(load(options.config_path), fix=fix, cache=use_cache)
    return report_fixed(result, options)


def run_build(
    options: Options,
    *,
    only: tuple[str, ...] = (),
    check_only: bool = False,
    force: bool = False,
    depfile: Path | None = None,
    stamp: Path | None = None,
    no_cache: bool = False,
) -> int:
    """`promptc build`: compose and emit every target into the output folder."""
    started = time.time_ns()  # before any input is read: see compiler/depfile.py
    # A depfile lists what the full run read: it always runs.
    use_cache = not (no_cache or depfile or stamp)
    mode = cache_mode(check=check_only, force=force)
    hit = cached(options.config_path, only, mode) if use_cache else None
    if hit is not None:
        return report(hit, options)

    _pipeline()
    from compiler import api
    from compiler.depfile import record

    config = load(options.config_path)
    check_targets(config, only)
    run = api.build_cached if use_cache else api.build
    result = run(config, only=only, force=force, check=check_only)
    if (depfile or stamp) and not fails(result, options.strict):
        result = record(config, result, depfile=depfile, stamp=stamp, started_ns=started)
    return report(result, options)


def load(config_path: Path | None) -> Config:
    from compiler.config import load_config

    config = load_config(config_path)
    if not config.specs.is_dir():
        raise UsageError(
            f"specs folder not found: {config.specs} (set `specs` in "
            "[tool.promptc] or run promptc inside a bundle)",
        )
    return config


def check_targets(config: Config, only: Sequence[str]) -> None:
    from compiler.suggest import did_you_mean

    for name in only:
        if name not in config.targets:
            hint = did_you_mean(name, config.targets)
            raise TargetError(f"target '{name}' is not configured{hint}")


def cache_mode(*, check: bool, force: bool) -> str:
    # compiler.api.cache_mode, without importing the pipeline on the warm path.
    return ("check" if check else "build") + (" --force" if force else "")


def cached(config_path: Path | None, only: Sequence[str], mode: str) -> Hit | None:
    """The stored result of this very run when nothing it reads has changed."""
    from compiler import cache

    if cache.disabled(os.environ):
        return None
    found = cache.raw_layout(config_path, os.getcwd())
    if found is None or not found[1]:
        return None
    layout = found[0]
    if not os.path.isdir(layout.specs):
        return None
    if not cache.may_hit(layout):
        cache.key_ahead(layout, mode, only, os.environ)  # collected by _pipeline()
        return None
    digest = cache.key(layout, mode, only, os.environ)
    return None if digest is None else cache.lookup(layout, digest)


# --- reporting ------------------------------------------------------------------------


def report(result: Result | Hit, options: Options) -> int:
    """Print the diagnostics and the summary; the exit code they mean."""
    fmt = options.fmt or default_format(os.environ)
    severities = _severities(result)
    shown = [
        index
        for index, severity in enumerate(severities)
        if (not options.quiet or severity == "error")
        # Infos (what a translation could not keep) can run to hundreds of lines;
        # people read them with --verbose or in the target's TRANSLATION.md.
        and (fmt not in ("text", "github") or options.verbose or severity != "info")
    ]
    # Machine formats print a document even when it lists nothing.
    if shown or fmt not in ("text", "github"):
        from compiler.report import REPORTERS

        diagnostics = result.diagnostics
        color = fmt == "text" and use_color(options.no_color, os.environ) and sys.stdout.isatty()
        for line in REPORTERS[fmt]([diagnostics[i] for i in shown], color):
            echo(line)
    failed = _failed(severities, options.strict)
    # Machine formats keep stdout a single document; the summary goes to stderr anyway.
    if not options.quiet and fmt in ("text", "github"):
        summary(result, options.verbose)
    return EXIT_PROBLEMS if failed else EXIT_OK


def _severities(result: Result | Hit) -> list[str]:
    """Each diagnostic's severity; a cache hit has them without building diagnostics."""
    from compiler.cache import Hit

    if isinstance(result, Hit):
        return result.severities
    return [d.severity.value for d in result.diagnostics]


def _failed(severities: list[str], strict: bool) -> bool:
    failing = ("error", "warning") if strict else ("error",)
    return any(severity in failing for severity in severities)


def report_fixed(result: Result, options: Options) -> int:
    """Name each file --fix changed, then report what remains; changed files mean exit 1."""
    for path in result.fixed:
        echo(f"Fixing {path}", err=True)
    code = report(result, options)
    return EXIT_PROBLEMS if result.fixed else code


def fails(result: Result | Hit, strict: bool) -> bool:
    return _failed(_severities(result), strict)


def default_format(environ: Mapping[str, str]) -> str:
    """`github` inside GitHub Actions, so annotations appear without any flag."""
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"


def use_color(no_color: bool, environ: Mapping[str, str]) -> bool:
    # no-color.org: NO_COLOR set to a non-empty value turns colour off.
    return not no_color and not environ.get("NO_COLOR")


def summary(result: Result | Hit, verbose: bool) -> None:
    severities = _severities(result)
    # compiler.diagnostics.Severity's values, in its order.
    counts = {s: severities.count(s) for s in ("error", "warning", "info")}
    parts = [f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n]
    if counts["info"] and not verbose:
        parts[-1] += " (shown with --verbose)"
    files = f"; wrote {len(result.written)}, removed {len(result.removed)} file(s)"
    changed = files if result.written or result.removed else ""
    if result.fixed:
        changed += f"; fixed {len(result.fixed)} file(s)"
    echo(f"promptc: {', '.join(parts) or 'no problems'}{changed}", err=True)
