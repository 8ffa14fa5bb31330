"""The command line: parse options with click, call the library API, report, return an exit code.

A command loads the config (promptc_compiler.core.config) and hands it to promptc_compiler.api,
which answers from the result cache when nothing the run reads has changed.
Every import stands at the top but those of the language server (`lsp`) and
the watch (`--watch`), which only they need.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import click

from promptc_compiler import __version__, api
from promptc_compiler import rules as registry
from promptc_compiler.api import Imported, Kept, Result
from promptc_compiler.base import exit_codes
from promptc_compiler.base.diagnostics import Severity
from promptc_compiler.base.errors import PromptcError, UsageError
from promptc_compiler.base.source import SOURCE
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.cli import init, report
from promptc_compiler.cli.can import (
    permission_note,
    render_answer,
    render_target_answer,
    unexpected,
)
from promptc_compiler.cli.depfile import record
from promptc_compiler.core.config import Config, load_config
from promptc_compiler.permissions import delegation
from promptc_compiler.pipeline import importer
from promptc_compiler.runtimes import MODELS, TARGETS

FORMATS = ("text", "json", "github", "sarif")


@dataclass(frozen=True)
class Options:
    """The options every checking command shares (lint, build, check)."""

    config_path: Path | None = None
    fmt: str | None = None
    strict: bool = False
    quiet: bool = False
    verbose: bool = False
    no_color: bool = False


Decorator = Callable[[Callable[..., None]], Callable[..., None]]


def _config_option(help: str) -> Decorator:
    path = click.Path(dir_okay=False, path_type=Path)
    return click.option("--config", "config_path", type=path, help=help)


_STRICT = click.option("--strict", is_flag=True, help="Warnings fail the run too (exit 1).")
_NO_COLOR = click.option(
    "--no-color", is_flag=True, help="Never colour output (NO_COLOR works too)."
)


def _common(func: Callable[..., None]) -> Callable[..., None]:
    """Options every checking command shares, read into one `Options`."""
    options: list[Decorator] = [
        _config_option(
            "Config file (promptc.toml or pyproject.toml); default: found by "
            "walking up from the working directory."
        ),
        click.option(
            "--format",
            "fmt",
            type=click.Choice(FORMATS),
            help="Output format for diagnostics; default: github under GitHub Actions "
            "(GITHUB_ACTIONS=true), text elsewhere.",
        ),
        _STRICT,
        click.option(
            "--quiet",
            "-q",
            is_flag=True,
            help="Print only what fails the run (errors; warnings too under --strict); no summary.",
        ),
        click.option(
            "--verbose",
            "-v",
            is_flag=True,
            help="Print info diagnostics too (text and github; json and sarif always hold them).",
        ),
        _NO_COLOR,
    ]

    # wraps() copies the name, the help text and the command's own options
    # (click keeps them on the function it decorated, in __click_params__).
    @functools.wraps(func)
    def command(**values: Any) -> None:
        shared = {option.name: values.pop(option.name) for option in fields(Options)}
        func(Options(**shared), **values)

    decorated: Callable[..., None] = command
    for option in reversed(options):
        decorated = option(decorated)
    return decorated


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

_WATCH = click.option(
    "--watch",
    is_flag=True,
    help="Run again after every change to specs, fragments, skills or the config, "
    "until Ctrl-C (exit 0).",
)

_CONFIG = _config_option("Config file (promptc.toml or pyproject.toml).")

_NO_INLINE = click.option(
    "--ignore-inline-suppressions",
    "no_inline",
    is_flag=True,
    help="Report what `# promptc: suppress[...]` comments in specs suppress (for CI); "
    "the config's `suppress` entries still apply. Never cached.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="promptc")
@click.option("--traceback", is_flag=True, help="Show the Python traceback of internal errors.")
def cli(traceback: bool) -> None:
    """promptc: compose, check and emit AI coding-agent prompt specs."""


class _TargetNames(click.types.StringParamType):
    """`--target` of init: names from the target registry, comma-separated or repeated
    (promptc_compiler.cli.init checks them, and names the ones it does not know)."""

    name = "target"

    # click 8.1 passes no context; later versions do, by keyword (so the names stay).
    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:  # noqa: ARG002
        return "[" + "|".join(TARGETS) + "][,...]"


@cli.command("init")
@click.argument("folder", type=click.Path(path_type=Path), default=".", metavar="[DIR]")
@click.option(
    "--target",
    "targets",
    type=_TargetNames(),
    multiple=True,
    help=f"A runtime the bundle is built for (repeatable, or comma-separated); default: {SOURCE}.",
)
@click.option(
    "--layout",
    type=click.Choice(["out", "root"]),
    default="out",
    show_default=True,
    help="root: write each runtime's files at the project root, where it reads them.",
)
def init_(folder: Path, targets: tuple[str, ...], layout: str) -> None:
    """Write a small, commented bundle into DIR (default: here) and build it.

    Never replaces a file: when one is in the way, nothing is written."""
    done = init.init(folder, init.choose_targets(targets), layout)
    for reason in done.refused:
        click.echo(reason)
    if done.refused:
        click.echo("promptc: nothing written", err=True)
        raise SystemExit(exit_codes.PROBLEMS)
    click.echo(f"Wrote a promptc bundle in {folder.as_posix()}/:")
    for rel in done.written:
        click.echo(f"  {rel}")
    if done.gitignore:
        click.echo(f"  .gitignore ({done.gitignore})")
    # Built at once, so that `promptc check` passes before the first edit.
    code = _report(api.build(_load(folder / "promptc.toml"), cache=True), Options(), built=True)
    click.echo(f"\n{done.next_steps}", nl=False)
    raise SystemExit(code)


@cli.command()
@_common
@_FIX
@_NO_CACHE
@_NO_INLINE
@click.argument(
    "files", nargs=-1, metavar="[FILE]...", type=click.Path(exists=True, path_type=Path)
)
def lint(
    options: Options, fix: bool, no_cache: bool, no_inline: bool, files: tuple[Path, ...]
) -> None:
    """Check specs, fragments and config; write nothing unless --fix.

    With FILEs (specs or fragments), the whole bundle is still read, and only
    their findings are reported."""
    if files and fix:
        raise click.UsageError("--fix rewrites the whole bundle; give no FILE with it")
    _checking(options, "lint", fix, no_cache, files, no_inline=no_inline)


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
@_WATCH
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
    options: Options,
    only: tuple[str, ...],
    check_only: bool,
    force: bool,
    watch: bool,
    depfile: Path | None,
    stamp: Path | None,
    no_cache: bool,
) -> None:
    """Compose and emit every target into the output folder."""
    if check_only and (depfile or stamp):
        raise click.UsageError("--depfile and --stamp record a build; --check writes nothing")
    if watch:
        if depfile or stamp:
            raise click.UsageError("--depfile and --stamp record one build; --watch runs many")

        def one(config: Config, kept: Kept) -> Result:
            _known_targets(config, only)
            return api.build(config, only=only, force=force, check=check_only, kept=kept)

        raise SystemExit(_watching(options, one, built=True))
    started = (
        time.time_ns()
    )  # before any input is read: see compiler/promptc_compiler/cli/depfile.py
    # A depfile lists what the full run read: it always runs.
    use_cache = not (no_cache or depfile or stamp)
    config = _load(options.config_path)
    _known_targets(config, only)
    result = api.build(config, only=only, force=force, check=check_only, cache=use_cache)
    if (depfile or stamp) and not exit_codes.failed(result.diagnostics, strict=options.strict):
        result = record(config, result, depfile=depfile, stamp=stamp, started_ns=started)
    raise SystemExit(_report(result, options, built=True))


@cli.command()
@_common
@_FIX
@_WATCH
@_NO_CACHE
@_NO_INLINE
def check(options: Options, fix: bool, watch: bool, no_cache: bool, no_inline: bool) -> None:
    """Lint plus `build --check`: the command for hooks and CI."""
    if watch:
        if fix:
            raise click.UsageError("--fix rewrites the sources --watch reacts to; run it once")
        raise SystemExit(_watching(options, lambda config, kept: api.check(config, kept=kept)))
    _checking(options, "check", fix, no_cache, no_inline=no_inline)


def _checking(
    options: Options,
    command: str,
    fix: bool,
    no_cache: bool,
    files: Sequence[Path] = (),
    *,
    no_inline: bool = False,
) -> None:
    """`promptc lint` or `promptc check`: a cache hit, else a run (with --fix, never cached).
    With `files`, only their findings are reported; `no_inline`: --ignore-inline-suppressions."""
    use_cache = not (no_cache or fix or no_inline)
    run = api.lint if command == "lint" else api.check
    config = _load(options.config_path)
    if no_inline:
        config = dataclasses.replace(config, inline_suppressions=False)
    if files:
        named = api.named_sources(config, files)  # checked first: a spec or fragment each
        found = run(config, cache=use_cache)
        only_named = tuple(d for d in found.diagnostics if d.path in named)
        raise SystemExit(_report(dataclasses.replace(found, diagnostics=only_named), options))
    result = run(config, fix=fix, cache=use_cache)
    # Each file --fix changed is named; changed files mean exit 1.
    for path in result.fixed:
        click.echo(f"Fixing {path}", err=True)
    raise SystemExit(_report(result, options))


@cli.command()
def lsp() -> None:
    """Run the language server on stdin and stdout, for editors (docs/editors.md)."""
    # Imported here: pygls and lsprotocol's types take longer
    # to import than a cold `promptc check` of 16 agents takes in all
    # (docs/architecture.md, "Imports"), and only this command needs them.
    from promptc_compiler.editor import lsp as server  # noqa: PLC0415

    raise SystemExit(server.serve())


@cli.command()
def rules() -> None:
    """List every rule id with its default level and summary."""
    for rule_id, rule in sorted(registry.RULES.items()):
        click.echo(f"{rule_id:24} {rule.DEFAULT_LEVEL:8} {registry.summary(rule)}")


@cli.command()
@click.argument("rule_id")
def explain(rule_id: str) -> None:
    """Print a rule's documentation."""
    rule = registry.RULES.get(rule_id)
    if rule is None:
        raise click.UsageError(f"no rule '{rule_id}'{did_you_mean(rule_id, registry.RULES)}")
    click.echo(f"{rule_id} (default level: {rule.DEFAULT_LEVEL})\n")
    click.echo(inspect.cleandoc(rule.__doc__ or ""))


@cli.command()
@click.argument("agent")
@click.argument("permission")
@click.argument("text", metavar="[INPUT]", required=False, default="*")
@_CONFIG
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option(
    "--as",
    "role",
    type=click.Choice(["primary", "subagent"]),
    help="Evaluate in a primary session or in a subagent session the task tool "
    "started (default: subagent for `mode: subagent`, else primary).",
)
@click.option("--trace", is_flag=True, help="Also list every rule that matched, in order.")
@click.option(
    "--target",
    "target",
    metavar="TARGET",
    help=f"Answer for the runtime of TARGET ({', '.join(MODELS)}): "
    "what it decides from the files promptc writes for it, beside OpenCode's answer; "
    "the exit code is that runtime's answer.",
)
@click.option(
    "--expect",
    type=click.Choice(["allow", "ask", "deny"]),
    help="Exit 0 when the answer is this one, 1 (with a line saying so) when it is not.",
)
def can(
    agent: str,
    permission: str,
    text: str,
    config_path: Path | None,
    fmt: str,
    role: str | None,
    trace: bool,
    target: str | None,
    expect: str | None,
) -> None:
    """What OpenCode decides when AGENT asks PERMISSION for INPUT, and the rule that decides.

    INPUT is what the tool asks about: a bash command, a file path, a subagent
    name for `task`, a URL; without it, `*` (what OpenCode itself asks for a
    whole tool). A command line is split as OpenCode splits it, and the
    strictest command decides. Example: promptc can craftsman bash "git push origin main"

    Exit code: 0 allow, 10 ask, 20 deny (with --expect: 0 as expected, 1 not);
    1 when the bundle has errors that make the answer unreliable; 2 usage error.
    """

    config = _load(config_path)
    subagent = None if role is None else role == "subagent"
    if target is not None:
        on = api.can_on(config, target, agent, permission, text, as_subagent=subagent)
        for line in render_target_answer(on, fmt, config.display):
            click.echo(line)
        code, wrong = on.exit_code(expect=expect), unexpected(on.verdict.action, expect, on.runtime)
    else:
        answer = api.can(config, agent, permission, text, as_subagent=subagent)
        for line in render_answer(answer, fmt, config.display, trace):
            click.echo(line)
        note = permission_note(permission, config.custom_tools)
        if note:
            click.echo(f"note: {note}", err=True)
        code = answer.exit_code(expect=expect)
        wrong = unexpected(answer.decision.action, expect, "OpenCode")
    if wrong:
        click.echo(f"promptc: {wrong}", err=True)
    raise SystemExit(code)


@cli.command()
@_CONFIG
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "mermaid", "dot"]),
    default="text",
    show_default=True,
)
def graph(config_path: Path | None, fmt: str) -> None:
    """Who can start whom through OpenCode's task tool, each edge with its deciding rule."""
    config = _load(config_path)
    click.echo(delegation.render(api.delegation_graph(config), fmt, config.display), nl=False)


@cli.group("import")
def import_() -> None:
    """Turn an existing OpenCode, Claude Code, Codex, Copilot or Gemini folder into specs and
    fragments."""


def _import_command(kind: str, layout: str) -> Callable[..., None]:
    @click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
    @_config_option(
        "Config of the bundle to import into; default: found by walking up, "
        "else a new promptc.toml in the working directory."
    )
    @click.option("--force", is_flag=True, help="Replace existing specs and fragments.")
    @_STRICT
    @_NO_COLOR
    def command(
        folder: Path, config_path: Path | None, force: bool, strict: bool, no_color: bool
    ) -> None:
        done = api.import_bundle(kind, folder, load_config(config_path), force=force)
        raise SystemExit(_report_import(done, Options(strict=strict, no_color=no_color)))

    command.__doc__ = f"""Import FOLDER (a project holding {layout}/, or {layout}/ itself).

    Writes specs/agents, specs/modes and fragments for text repeated across
    agents; never replaces an existing file without --force; reports what
    could not be carried over, then checks the result as build --check
    --target <runtime> would (the lint, and what the translation keeps)."""
    return command


# One import command per runtime whose folder the target registry names.
for _kind, _layout in importer.LAYOUTS.items():
    import_.command(_kind)(_import_command(_kind, _layout))


def _report_import(done: Imported, options: Options) -> int:
    for note in done.plan.notes:
        click.echo(note.as_text())
    for path in done.refused:
        click.echo(f"{path}: exists; not replaced (use --force)")
    if done.refused or done.lint is None:
        click.echo("promptc: nothing imported", err=True)
        return done.exit_code(strict=options.strict)
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
    if done.adopted:
        click.echo(
            f"promptc: the next build replaces the {len(done.adopted)} runtime file(s) "
            "read here, now generated from the specs (in the manifest)",
            err=True,
        )
    _report(done.lint, options, built=True)
    return done.exit_code(strict=options.strict)


# --- running a command ----------------------------------------------------------------


def _load(config_path: Path | None) -> Config:
    config = load_config(config_path)
    if not config.specs.is_dir():
        raise UsageError(
            f"specs folder not found: {config.specs} (set `specs` in "
            "[tool.promptc] or run promptc inside a bundle)"
        )
    return config


def _known_targets(config: Config, only: Iterable[str]) -> None:
    """A target the config does not configure, as a usage error before the run."""
    try:
        api.configured(config, only)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None


def _watching(
    options: Options, run: Callable[[Config, Kept], Result], *, built: bool = False
) -> int:
    """--watch: each run reported as one run of the command is (promptc_compiler.editor.watch), and
    handed the watch's Kept, what the runs before it worked out from unchanged files."""
    # Imported here: watchfiles (and the logging it sets up) cost every other run
    # of the command line some 10 ms (docs/architecture.md, "Imports").
    from promptc_compiler.editor.watch import watch as watch_runs  # noqa: PLC0415

    return watch_runs(
        lambda: _load(options.config_path),
        lambda config, kept: _report(run(config, kept), options, built=built),
        lambda line: click.echo(line, err=True),
    )


# --- reporting ------------------------------------------------------------------------


def _report(result: Result, options: Options, *, built: bool = False) -> int:
    """Print the diagnostics and the summary; the exit code they mean. A build also
    prints what its proofs found (accepted widenings, each target's usable share):
    `lint` and `check` stay one line when all is well, as hooks and CI want."""
    # `github` inside GitHub Actions, so annotations appear without any flag.
    fmt = options.fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    failing = exit_codes.failing(options.strict)
    shown = [
        index
        for index, found in enumerate(result.diagnostics)
        # --quiet keeps what fails the run: under --strict, its warnings too.
        if (not options.quiet or found.severity in failing)
        # Infos (what a translation could not keep) can run to hundreds of lines;
        # people read them with --verbose or in the target's TRANSLATION.md.
        and (fmt not in ("text", "github") or options.verbose or found.severity != Severity.INFO)
    ]
    # Machine formats print a document even when it lists nothing.
    if shown or fmt not in ("text", "github"):
        diagnostics = result.diagnostics
        # no-color.org: NO_COLOR set to a non-empty value turns colour off.
        colorless = options.no_color or os.environ.get("NO_COLOR")
        # No stdout at all (started with it closed): Python sets it to None.
        tty = sys.stdout is not None and sys.stdout.isatty()
        color = fmt == "text" and not colorless and tty
        for line in _reporter(fmt, options.verbose)([diagnostics[i] for i in shown], color):
            click.echo(line)
    # Machine formats keep stdout a single document; the summary goes to stderr anyway.
    if not options.quiet and fmt in ("text", "github"):
        for line in result.summaries if built else ():
            click.echo(f"promptc: {line}", err=True)
        _summary(result, options.verbose)
    return exit_codes.of_run(result.diagnostics, fixed=result.fixed, strict=options.strict)


def _reporter(fmt: str, verbose: bool = False) -> report.Reporter:
    if fmt == "text":
        return functools.partial(report.text, verbose=verbose)
    if fmt != "sarif":
        return report.REPORTERS[fmt]
    # A SARIF log describes every rule: that needs the registry.
    return functools.partial(report.sarif, rules=registry.RULES)


def _summary(result: Result, verbose: bool) -> None:
    severities = [d.severity.value for d in result.diagnostics]
    # promptc_compiler.base.diagnostics.Severity's values, in its order.
    counts = {s: severities.count(s) for s in ("error", "warning", "info")}
    parts = [f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n]
    if counts["info"] and not verbose:
        parts[-1] += " (shown with --verbose)"
    files = f"; wrote {len(result.written)}, removed {len(result.removed)} file(s)"
    changed = files if result.written or result.removed else ""
    if result.fixed:
        changed += f"; fixed {len(result.fixed)} file(s)"
    click.echo(f"promptc: {', '.join(parts) or 'no problems'}{changed}", err=True)


# --- the program ----------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """The `promptc` command: the exit code; never lets a traceback escape unasked."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        cli.main(args=args, prog_name="promptc", standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0) if isinstance(exc.code, int | None) else exit_codes.USAGE
    except click.exceptions.Abort:
        click.echo("promptc: aborted", err=True)
        return exit_codes.PROBLEMS
    except click.ClickException as exc:
        exc.show()
        return exit_codes.USAGE
    except PromptcError as exc:
        click.echo(f"promptc: {exc}", err=True)
        return exc.exit_code
    except BrokenPipeError:
        # The reader went away (`promptc check | head -1`): exit 1 quietly.
        _silence_stdout()
        return exit_codes.PROBLEMS
    except Exception as exc:  # the last line of defence: one line, exit 3
        if "--traceback" in args:
            raise
        click.echo(
            f"promptc: internal error: {type(exc).__name__}: {exc} "
            "(re-run with --traceback to see where)",
            err=True,
        )
        return exit_codes.INTERNAL
    return exit_codes.OK


def _silence_stdout() -> None:
    """Point stdout at the null device, so that flushing what is left at exit
    cannot fail again on the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


# What Python's own exit returns when it cannot flush the standard streams.
_UNFLUSHED = 120


def run() -> None:
    """The console script and `python -m promptc_compiler`.

    The process ends with os._exit once its output is flushed, without
    freeing what the run and the imports made: the system takes the memory
    back at once, and freeing it object by object was 4.6% of a check of 16
    agents (docs/performance.md, "Exit"). Every file promptc writes is closed
    before `main` returns. Under a tracer or a profiler (coverage, cProfile),
    which write what they found at exit, the exit is Python's own.
    """
    code = main()
    if sys.gettrace() is not None or sys.getprofile() is not None:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except OSError:  # the reader went away, the disk is full
            code = _UNFLUSHED
    os._exit(code)
