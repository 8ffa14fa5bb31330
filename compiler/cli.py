"""The command line: parse options, call the API, report, return an exit code."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from compiler import __version__
from compiler.errors import PromptcError, UsageError

if TYPE_CHECKING:
    from compiler.api import Result
    from compiler.cache import Hit
    from compiler.config import Config

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("text", "json", "github", "sarif")


# Whether infos are printed: set by --verbose on any checking command.
_VERBOSE: ContextVar[bool] = ContextVar("promptc_verbose", default=False)


def _common(func: F) -> F:
    """Options every checking command shares, so they read the same everywhere."""
    options = [
        click.option(
            "--config",
            "config_path",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Config file (promptc.toml or pyproject.toml); default: found by "
            "walking up from the working directory.",
        ),
        click.option(
            "--format",
            "fmt",
            type=click.Choice(FORMATS),
            help="Output format for diagnostics; default: github under GitHub Actions "
            "(GITHUB_ACTIONS=true), text elsewhere.",
        ),
        click.option("--strict", is_flag=True, help="Warnings fail the run too (exit 1)."),
        click.option("--quiet", "-q", is_flag=True, help="Print errors only; no summary."),
        click.option(
            "--verbose",
            "-v",
            is_flag=True,
            expose_value=False,
            callback=lambda ctx, param, value: _VERBOSE.set(value),
            help="Print info diagnostics too (text and github; json and sarif always hold them).",
        ),
        click.option("--no-color", is_flag=True, help="Never colour output (NO_COLOR works too)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="promptc")
@click.option("--traceback", is_flag=True, help="Show the Python traceback of internal errors.")
@click.pass_context
def cli(ctx: click.Context, traceback: bool) -> None:
    """promptc: compose, check and emit AI coding-agent prompt specs."""
    ctx.obj = {"traceback": traceback}


def _load(config_path: Path | None) -> Config:
    from compiler.config import load_config

    config = load_config(config_path)
    if not config.specs.is_dir():
        raise UsageError(
            f"specs folder not found: {config.specs} (set `specs` in "
            "[tool.promptc] or run promptc inside a bundle)",
        )
    return config


def _report(
    result: Result | Hit, fmt: str | None, strict: bool, quiet: bool, no_color: bool
) -> int:
    from compiler.diagnostics import Severity
    from compiler.report import REPORTERS

    fmt = fmt or default_format(os.environ)
    shown = [d for d in result.diagnostics if not quiet or d.severity is Severity.ERROR]
    if fmt in ("text", "github") and not _VERBOSE.get():
        # Infos (what a translation could not keep) can run to hundreds of lines;
        # people read them with --verbose or in the target's TRANSLATION.md.
        shown = [d for d in shown if d.severity is not Severity.INFO]
    color = fmt == "text" and use_color(no_color, os.environ) and sys.stdout.isatty()
    for line in REPORTERS[fmt](shown, color):
        click.echo(line)
    failed = _fails(result, strict)
    # Machine formats keep stdout a single document; the summary goes to stderr anyway.
    if not quiet and fmt in ("text", "github"):
        _summary(result)
    return EXIT_PROBLEMS if failed else EXIT_OK


def _fails(result: Result | Hit, strict: bool) -> bool:
    from compiler.diagnostics import Severity

    failing = {Severity.ERROR} | ({Severity.WARNING} if strict else set())
    return any(d.severity in failing for d in result.diagnostics)


def default_format(environ: Mapping[str, str]) -> str:
    """`github` inside GitHub Actions, so annotations appear without any flag."""
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"


def use_color(no_color: bool, environ: Mapping[str, str]) -> bool:
    # no-color.org: NO_COLOR set to a non-empty value turns colour off.
    return not no_color and not environ.get("NO_COLOR")


def _summary(result: Result | Hit) -> None:
    from compiler.diagnostics import Severity

    counts = {s: sum(1 for d in result.diagnostics if d.severity is s) for s in Severity}
    parts = [f"{n} {s.value}{'s' if n != 1 else ''}" for s, n in counts.items() if n]
    if counts[Severity.INFO] and not _VERBOSE.get():
        parts[-1] += " (shown with --verbose)"
    files = f"; wrote {len(result.written)}, removed {len(result.removed)} file(s)"
    changed = files if result.written or result.removed else ""
    if result.fixed:
        changed += f"; fixed {len(result.fixed)} file(s)"
    click.echo(f"promptc: {', '.join(parts) or 'no problems'}{changed}", err=True)


_FIX = click.option(
    "--fix",
    is_flag=True,
    help="Rewrite sources to fix what rules can fix (exit 1 when files changed).",
)


_NO_CACHE = click.option(
    "--no-cache",
    is_flag=True,
    help="Do the whole run even when nothing changed (PROMPTC_NO_CACHE=1 and "
    "`cache = false` in the config work too).",
)


def _report_fixed(
    result: Result, fmt: str | None, strict: bool, quiet: bool, no_color: bool
) -> int:
    """Name each file --fix changed, then report what remains; changed files mean exit 1."""
    for path in result.fixed:
        click.echo(f"Fixing {path}", err=True)
    code = _report(result, fmt, strict, quiet, no_color)
    return EXIT_PROBLEMS if result.fixed else code


@cli.command()
@_common
@_FIX
def lint(
    config_path: Path | None, fmt: str | None, strict: bool, quiet: bool, no_color: bool, fix: bool
) -> None:
    """Check specs, fragments and config; write nothing unless --fix."""
    from compiler import api

    result = api.lint(_load(config_path), fix=fix)
    raise SystemExit(_report_fixed(result, fmt, strict, quiet, no_color))


@cli.command()
@_common
@click.option("--target", "only", multiple=True, help="Build only this target (repeatable).")
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Write nothing; exit 1 naming every stale, missing or extra file.",
)
@click.option("--force", is_flag=True, help="Overwrite generated files edited by hand.")
@click.option(
    "--depfile",
    type=click.Path(dir_okay=False, path_type=Path),
    help="After a successful build, write a make rule to FILE: the stamp depends on the "
    "config, every spec and fragment, and their folders.",
)
@click.option(
    "--stamp",
    type=click.Path(dir_okay=False, path_type=Path),
    help="After a successful build, create FILE or set its mtime to the build's start "
    "(the make target of --depfile's rule; default: the depfile itself).",
)
@_NO_CACHE
def build(
    config_path: Path | None,
    fmt: str | None,
    strict: bool,
    quiet: bool,
    no_color: bool,
    only: tuple[str, ...],
    check_only: bool,
    force: bool,
    depfile: Path | None,
    stamp: Path | None,
    no_cache: bool,
) -> None:
    """Compose and emit every target into the output folder."""
    started = time.time_ns()  # before any input is read: see compiler/depfile.py
    if check_only and (depfile or stamp):
        raise click.UsageError("--depfile and --stamp record a build; --check writes nothing")
    # A depfile lists what the full run read: it always runs.
    use_cache = not (no_cache or depfile or stamp)
    mode = _cache_mode(check=check_only, force=force)
    hit = _cached(config_path, only, mode) if use_cache else None
    if hit is not None:
        raise SystemExit(_report(hit, fmt, strict, quiet, no_color))

    from compiler import api
    from compiler.depfile import record

    config = _load(config_path)
    _check_targets(config, only)
    run = api.build_cached if use_cache else api.build
    result = run(config, only=only, force=force, check=check_only)
    if (depfile or stamp) and not _fails(result, strict):
        result = record(config, result, depfile=depfile, stamp=stamp, started_ns=started)
    raise SystemExit(_report(result, fmt, strict, quiet, no_color))


@cli.command()
@_common
@_FIX
@_NO_CACHE
def check(
    config_path: Path | None,
    fmt: str | None,
    strict: bool,
    quiet: bool,
    no_color: bool,
    fix: bool,
    no_cache: bool,
) -> None:
    """Lint plus `build --check`: the command for hooks and CI."""
    use_cache = not (no_cache or fix)
    hit = _cached(config_path, (), _cache_mode(check=True, force=False)) if use_cache else None
    if hit is not None:
        raise SystemExit(_report(hit, fmt, strict, quiet, no_color))

    from compiler import api

    result = api.check(_load(config_path), fix=fix, cache=use_cache)
    raise SystemExit(_report_fixed(result, fmt, strict, quiet, no_color))


def _cache_mode(*, check: bool, force: bool) -> str:
    # compiler.api.cache_mode, without importing the pipeline on the warm path.
    return ("check" if check else "build") + (" --force" if force else "")


def _cached(config_path: Path | None, only: Sequence[str], mode: str) -> Hit | None:
    """The stored result of this very run when nothing it reads has changed."""
    from compiler import cache

    if cache.disabled(os.environ):
        return None
    found = cache.raw_layout(config_path, Path.cwd())
    if found is None or not found[1]:
        return None
    layout = found[0]
    if not layout.specs.is_dir():
        return None
    digest = cache.key(layout, mode, only, os.environ)
    return None if digest is None else cache.lookup(layout, digest)


def _check_targets(config: Config, only: Sequence[str]) -> None:
    from compiler.suggest import did_you_mean

    for name in only:
        if name not in config.targets:
            hint = did_you_mean(name, config.targets)
            raise click.UsageError(f"target '{name}' is not configured{hint}")


@cli.command()
def rules() -> None:
    """List every rule id with its default level and summary."""
    from compiler import rules as registry

    for rule_id, rule in sorted(registry.RULES.items()):
        click.echo(f"{rule_id:24} {rule.DEFAULT_LEVEL:8} {registry.summary(rule)}")


@cli.command()
@click.argument("rule_id")
def explain(rule_id: str) -> None:
    """Print a rule's documentation."""
    import inspect

    from compiler import rules as registry
    from compiler.suggest import did_you_mean

    rule = registry.RULES.get(rule_id)
    if rule is None:
        raise click.UsageError(f"no rule '{rule_id}'{did_you_mean(rule_id, registry.RULES)}")
    click.echo(f"{rule_id} (default level: {rule.DEFAULT_LEVEL})\n")
    click.echo(inspect.cleandoc(rule.__doc__ or ""))


@cli.command()
@click.argument("agent")
@click.argument("permission")
@click.argument("text", metavar="[INPUT]", required=False, default="*")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config file (promptc.toml or pyproject.toml).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option(
    "--as",
    "role",
    type=click.Choice(["primary", "subagent"]),
    help="Evaluate in a primary session or in a subagent session the task tool "
    "started (default: subagent for `mode: subagent`, else primary).",
)
@click.option("--trace", is_flag=True, help="Also list every rule that matched, in order.")
def can(
    agent: str,
    permission: str,
    text: str,
    config_path: Path | None,
    fmt: str,
    role: str | None,
    trace: bool,
) -> None:
    """What OpenCode decides when AGENT asks PERMISSION for INPUT, and the rule that decides.

    INPUT is what the tool asks about: a bash command, a file path, a subagent
    name for `task`, a URL; without it, `*` (what OpenCode itself asks for a
    whole tool). Example: promptc can craftsman bash "git push origin main"
    """
    from compiler import api
    from compiler.can import render_answer, shell_note

    config = _load(config_path)
    subagent = None if role is None else role == "subagent"
    answer = api.can(config, agent, permission, text, as_subagent=subagent)
    for line in render_answer(answer, fmt, config.display, trace):
        click.echo(line)
    note = shell_note(permission, text)
    if note:
        click.echo(f"note: {note}", err=True)
    raise SystemExit(EXIT_OK)


@cli.command()
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config file (promptc.toml or pyproject.toml).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "mermaid", "dot"]),
    default="text",
    show_default=True,
)
def graph(config_path: Path | None, fmt: str) -> None:
    """Who can start whom through OpenCode's task tool, each edge with its deciding rule."""
    from compiler import api, delegation

    config = _load(config_path)
    click.echo(delegation.render(api.delegation_graph(config), fmt, config.display), nl=False)
    raise SystemExit(EXIT_OK)


@cli.group("import")
def import_() -> None:
    """Turn an existing OpenCode or Claude Code folder into specs and fragments."""


def _import_command(kind: str) -> Callable[..., None]:
    @click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
    @click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Config of the bundle to import into; default: found by walking up, "
        "else a new promptc.toml in the working directory.",
    )
    @click.option("--force", is_flag=True, help="Replace existing specs and fragments.")
    @click.option("--strict", is_flag=True, help="Warnings fail the run too (exit 1).")
    @click.option("--no-color", is_flag=True, help="Never colour output (NO_COLOR works too).")
    def command(
        folder: Path, config_path: Path | None, force: bool, strict: bool, no_color: bool
    ) -> None:
        from compiler import api
        from compiler.config import load_config

        done = api.import_bundle(kind, folder, load_config(config_path), force=force)
        raise SystemExit(_report_import(done, strict, no_color))

    command.__doc__ = f"""Import FOLDER (a project holding .{kind}/, or .{kind}/ itself).

    Writes specs/agents, specs/modes and fragments for text repeated across
    agents; never replaces an existing file without --force; reports what
    could not be carried over, then lints the result."""
    return command


def _report_import(done: Any, strict: bool, no_color: bool) -> int:
    from compiler import importer
    from compiler.api import Result

    for note in done.plan.notes:
        click.echo(note.as_text())
    for path in done.refused:
        click.echo(f"{path}: exists; not replaced (use --force)")
    if done.refused or done.lint is None:
        click.echo("promptc: nothing imported", err=True)
        return EXIT_PROBLEMS
    for item in done.plan.shared:
        click.echo(
            f"shared text in {len(item.carriers)} agents -> fragment `{item.name}`", err=True
        )
    click.echo(f"promptc: imported {len(done.written)} file(s)", err=True)
    proposal = importer.config_toml(done.plan.config)
    if done.config_written:
        click.echo(f"promptc: wrote {done.config_written}", err=True)
    elif proposal:
        click.echo("Proposed config (add it to [tool.promptc] or promptc.toml):")
        click.echo(proposal, nl=False)
    code = _report(done.lint, None, strict, False, no_color)
    notes = Result(done.plan.notes)
    return EXIT_PROBLEMS if code or _fails(notes, strict) else EXIT_OK


for _kind in ("opencode", "claude"):
    import_.command(_kind)(_import_command(_kind))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: returns the exit code; never lets a traceback escape unasked."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        cli.main(args=args, prog_name="promptc", standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0) if isinstance(exc.code, int | None) else EXIT_USAGE
    except click.exceptions.Abort:
        click.echo("promptc: aborted", err=True)
        return EXIT_PROBLEMS
    except click.ClickException as exc:
        exc.show()
        return EXIT_USAGE
    except PromptcError as exc:
        click.echo(f"promptc: {exc}", err=True)
        return exc.exit_code
    except Exception as exc:  # the last line of defence: one line, exit 3
        if "--traceback" in args:
            raise
        click.echo(
            f"promptc: internal error: {type(exc).__name__}: {exc} "
            "(re-run with --traceback to see where)",
            err=True,
        )
        return EXIT_INTERNAL
    return EXIT_OK
