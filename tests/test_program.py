"""The `promptc` program: what a run prints, exits with and writes is what the
library call gives; a library call leaves the interpreter as it found it (exit
handlers run, the garbage collector untouched, nothing imported it did not
need), and the program ends without freeing the run once its output is out."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from promptc_compiler import api
from promptc_compiler.cli import main as cli
from promptc_compiler.core.config import Config, load_config
from tests.conftest import loaded_modules

pytestmark = pytest.mark.slow


def _program(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "promptc_compiler", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_program_prints_and_exits_as_main_returns(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (sample / "specs/agents/extra.md").write_text("---\ndescription: x\n---\nHola.\n")
    done = _program(sample, "check", "--no-cache")
    expected = cli.main(["check", "--no-cache"])
    out, err = capsys.readouterr()
    assert expected == 1  # nothing built yet: every output is stale
    assert (done.returncode, done.stdout, done.stderr) == (expected, out, err)
    assert done.stdout.count("[stale-output]") >= 3


def test_the_program_leaves_every_file_it_writes_complete(sample: Path) -> None:
    built = _program(sample, "build", "-q")
    assert (built.returncode, built.stderr) == (0, "")
    # A second, fresh process finds every output (and the cache) intact.
    assert _program(sample, "check", "--no-cache").returncode == 0
    assert _program(sample, "check").returncode == 0
    assert _program(sample, "check").returncode == 0


def test_verbose_output_larger_than_a_pipe_buffer_arrives_whole(sample: Path) -> None:
    for n in range(300):
        (sample / f"specs/agents/a{n}.md").write_text(f"---\ndescription: x{n}\n---\nHola.\n")
    done = _program(sample, "check", "--no-cache", "-v")
    assert done.returncode == 1
    assert len(done.stdout) > 65536
    assert done.stdout.endswith("\n")
    for n in range(300):
        assert f"specs/agents/a{n}.md:" in done.stdout


@pytest.mark.parametrize("command", [["check", "--no-cache", "-v"], ["lint", "-v"]])
def test_a_reader_that_goes_away_ends_the_run_quietly(sample: Path, command: list[str]) -> None:
    # `promptc check | head -1`: the pipe closes before promptc writes: exit 1 without a word.
    for n in range(50):
        (sample / f"specs/agents/a{n}.md").write_text(f"---\ndescription: x{n}\n---\nHola.\n")
    with subprocess.Popen(
        [sys.executable, "-m", "promptc_compiler", *command],
        cwd=sample,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as program:
        assert program.stdout is not None
        assert program.stderr is not None
        program.stdout.close()
        err = program.stderr.read()
        assert (program.wait(), err) == (1, "")


@pytest.mark.parametrize("command", ["lint", "check"])
def test_a_program_started_without_stdout_reports_on_stderr_and_exits_as_usual(
    sample: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Started with its stdout closed (`promptc lint >&-`), Python sets sys.stdout to None.
    (sample / "specs/agents/extra.md").write_text("---\ndescription: x\n---\nHola.\n")
    code = (
        f"import sys; sys.stdout = None; from promptc_compiler.cli.main import run; "
        f"sys.argv = ['promptc', '{command}', '--no-cache']; run()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=sample, capture_output=True, text=True, check=False
    )
    expected = cli.main([command, "--no-cache"])
    assert (done.returncode, done.stderr) == (expected, capsys.readouterr().err)
    assert "internal error" not in done.stderr


PROBE = """\
import atexit, gc, sys
from promptc_compiler.cli import main as cli
{before}
atexit.register(lambda: print("exit handler ran"))
code = cli.main(["check", "--no-cache", "-q"])
print(code, gc.isenabled())
sys.exit(code)
"""


@pytest.mark.parametrize(
    ("before", "enabled"), [("", "True"), ("gc.disable()", "False")], ids=["on", "off"]
)
def test_a_run_leaves_the_garbage_collector_and_exit_handlers_alone(
    sample: Path, before: str, enabled: str
) -> None:
    assert cli.main(["build", "-q"]) == 0  # the probe's check then finds it fresh
    code = PROBE.format(before=before)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=sample, capture_output=True, text=True, check=False
    )
    assert done.stdout.split("\n")[:2] == [f"0 {enabled}", "exit handler ran"], done.stderr
    assert done.returncode == 0


ENTRY = """\
import atexit, sys
from promptc_compiler.cli.main import run
{before}
atexit.register(lambda: print("exit handler ran", file=sys.stderr))
sys.argv = ["promptc", "check", "--no-cache", "-v"]
run()
"""


@pytest.mark.parametrize(
    ("before", "handled"),
    [
        ("", False),
        ("sys.setprofile(lambda *_: None)", True),
        ("sys.settrace(lambda *_: None)", True),
    ],
    ids=["plain", "profiled", "traced"],
)
def test_the_program_ends_without_freeing_its_run_unless_profiled(
    sample: Path, before: str, handled: bool
) -> None:
    """The console script ends with os._exit once its output is flushed (no exit
    handler runs, nothing is freed); under a profiler or a tracer, which write
    their data at exit, Python's own exit runs the handlers."""
    for n in range(300):
        (sample / f"specs/agents/a{n}.md").write_text(f"---\ndescription: x{n}\n---\nHola.\n")
    done = subprocess.run(
        [sys.executable, "-c", ENTRY.format(before=before)],
        cwd=sample,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1  # stale outputs
    assert len(done.stdout) > 65536  # block-buffered into a pipe: flushed before the exit
    assert done.stdout.endswith("\n")
    assert ("exit handler ran" in done.stderr) == handled


@pytest.mark.parametrize("command", ["lint", "build", "check"])
@pytest.mark.usefixtures("sample")
def test_what_a_run_made_is_freed_when_it_returns(command: str) -> None:
    """No reference cycle holds a run's objects: one through the bundle would
    keep its whole graph alive until a full collection, at the latest the one
    at exit (at 1,000 agents, a tenth of a cold build)."""
    runs: dict[str, Callable[[Config], object]] = {
        "lint": api.lint,
        "build": api.build,
        "check": api.check,
    }
    run = runs[command]
    config = load_config()
    run(config)  # the first run also sets up what a process keeps
    gc.collect()
    run(config)
    assert gc.collect() < 200  # a few Jinja2 environments and JSON encoders


def test_only_the_language_server_and_the_watch_load_their_libraries(sample: Path) -> None:
    """pygls and lsprotocol take longer to import than a cold check of 16 agents
    takes in all: `promptc lsp` alone loads them; watchfiles only `--watch`
    (docs/architecture.md, "Imports")."""
    server = {"promptc_compiler.editor.lsp", "pygls", "lsprotocol"}
    watch = {"promptc_compiler.editor.watch", "watchfiles"}
    watched = {*server, *watch, "promptc_compiler.api", "yaml"}
    assert loaded_modules(sample, watched, "--version") == ["0", "promptc_compiler.api", "yaml"]
    assert loaded_modules(sample, watched, "build", "-q") == ["0", "promptc_compiler.api", "yaml"]
    assert loaded_modules(sample, watched, "check") == [
        "0",
        "promptc_compiler.api",
        "yaml",
    ]  # a hit
    code, *loaded = loaded_modules(sample, watched, "lsp", "--help")
    assert code == "0"
    assert not server & set(loaded)
    code, *loaded = loaded_modules(sample, watched, "lsp")  # stdin ends: exit 1, no shutdown
    assert code == "1"
    assert server <= set(loaded)
    assert not watch & set(loaded)
