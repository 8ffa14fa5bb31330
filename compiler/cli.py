"""The command line: parse options, call the API, report, return an exit code."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from compiler import __version__, entry
from compiler.entry import EXIT_INTERNAL, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, FORMATS
from compiler.errors import PromptcError

if TYPE_CHECKING:
    from compiler.api import Result
    from compiler.cache import Hit
    from compiler.config import Config

F = TypeVar("F", bound=Callable[..., Any])


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


def _options(
    config_path: Path | None, fmt: str | None, strict: bool, quiet: bool, no_color: bool
) -> entry.Options:
    return entry.Options(config_path, fmt, strict, quiet, _VERBOSE.get(), no_color)


def _load(config_path: Path | None) -> Config:
    return entry.load(config_path)


def _report(
    result: Result | Hit, fmt: str | None, strict: bool, quiet: bool, no_color: bool
) -> int:
    return entry.report(result, _options(None, fmt, strict, quiet, no_color))


def _fails(result: Result | Hit, strict: bool) -> bool:
    return entry.fails(result, strict)


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
    return entry.report_fixed(result, _options(None, fmt, strict, quiet, no_color))


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
    if check_only and (depfile or stamp):
        raise click.UsageError("--depfile and --stamp record a build; --check writes nothing")
    options = _options(config_path, fmt, strict, quiet, no_color)
    try:
        code = entry.run_build(
            options,
            only=only,
            check_only=check_only,
            force=force,
            depfile=depfile,
            stamp=stamp,
            no_cache=no_cache,
        )
    except entry.TargetError as exc:
        raise click.UsageError(str(exc)) from None
    raise SystemExit(code)


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
    options = _options(config_path, fmt, strict, quiet, no_color)
    raise SystemExit(entry.run_check(options, fix=fix, no_cache=no_cache))


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
    """Entry point: returns the exit code; never lets a traceback escape unasked.

    The everyday command lines run in compiler.entry, the same way
    `promptc` itself runs them; click parses every other."""
    args = list(sys.argv[1:] if argv is None else argv)
    simple = entry.run_simple(args)
    if simple is not None:
        return simple
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
        entry.internal_error(exc)
        return EXIT_INTERNAL
    return EXIT_OK
