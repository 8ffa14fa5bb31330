"""Shared fixtures: throwaway bundles on disk and a CLI runner that returns exit codes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from promptc_compiler.base.diagnostics import Diagnostic
from promptc_compiler.cli.main import main
from tests.decisions import FIGURES
from tests.strategies import EXAMPLES

# Hypothesis profiles, chosen by HYPOTHESIS_PROFILE: "ci" (the default, in
# `make test`) is short; "fuzz" (`make fuzz`) runs enough examples per fuzz
# test to pass 100,000 across the fuzz suites. No deadline: speed is measured
# by benchmarks/adversarial.py, never by a test.
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "ci", max_examples=100, deadline=None, suppress_health_check=_QUIET, print_blob=True
)
settings.register_profile(
    "fuzz", max_examples=9_000, deadline=None, suppress_health_check=_QUIET, print_blob=True
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# Under pytest-xdist each worker counts the examples it generated; the
# controller adds up the workers' counts as each one finishes, before its own
# session ends, so the minimum and the summary below cover the whole run.
_WORKER_COUNTS = "fuzz_examples"
_WORKER_FIGURES = "decision_figures"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: one worker more than the cores. A worker waits on the real
    runtimes and the promptc processes it starts; on 2 cores a third worker
    took `make test`'s tests from 4:46 to 4:32 (user time 8:18 and 8:04)."""
    if config.option.numprocesses != "auto" or os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # `-n logical`, or a count the caller chose: xdist's own answer
    return (os.cpu_count() or 1) + 1


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any) -> None:
    EXAMPLES.update(node.workeroutput.get(_WORKER_COUNTS, {}))
    FIGURES.extend(node.workeroutput.get(_WORKER_FIGURES, []))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under FUZZ_MIN_EXAMPLES, a fuzz run that generated fewer examples fails."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller judges
        workeroutput[_WORKER_COUNTS] = dict(EXAMPLES)
        workeroutput[_WORKER_FIGURES] = list(FIGURES)
        return
    minimum = int(os.environ.get("FUZZ_MIN_EXAMPLES", "0"))
    if sum(EXAMPLES.values()) < minimum and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if FIGURES:
        terminalreporter.write_line("decisions: never wider, call by call (tests/decisions.py)")
        for line in sorted(FIGURES):
            terminalreporter.write_line(f"  {line}")
    total = sum(EXAMPLES.values())
    if not total:
        return
    profile = settings.get_current_profile_name()
    terminalreporter.write_line(f"fuzz: {total:,} generated examples ({profile} profile)")
    for name, count in sorted(EXAMPLES.items()):
        terminalreporter.write_line(f"  {count:>9,}  {name}")
    minimum = int(os.environ.get("FUZZ_MIN_EXAMPLES", "0"))
    if total < minimum:
        terminalreporter.write_line(f"fuzz: fewer than FUZZ_MIN_EXAMPLES={minimum:,}", red=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files marked `slow` first, every file's tests in their own order.

    `make test` hands whole files to the workers (`--dist loadfile`) in
    collection order (`--no-loadscope-reorder`): a slow file handed out near the
    end would keep one worker busy long after the other ran out of files.
    """
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


MakeBundle = Callable[[Mapping[str, str | bytes]], Path]


def finished(root: Path, *args: str, hung: str) -> subprocess.CompletedProcess[str]:
    """`promptc ARGS` run in `root` in a child process, so that a test of an input
    that could make promptc run forever fails (with `hung`) rather than hangs. The
    timeout is a guard, not a measure."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "promptc_compiler", *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(hung)


def every_field(diagnostics: Iterable[Diagnostic]) -> list[tuple[object, ...]]:
    """Diagnostics with all their fields: Diagnostic's own equality compares only
    the place and the rule, so two runs whose words differ would compare equal."""
    return [astuple(d) for d in diagnostics]


@pytest.fixture(autouse=True)
def _neutral_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same defaults everywhere: under GitHub Actions promptc would default to `github`."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


@pytest.fixture
def make_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MakeBundle:
    """Write {relative path: content} under tmp_path/bundle, chdir there, return the root.

    Text content is dedented, so tests can indent file bodies naturally.
    """

    def make(files: Mapping[str, str | bytes]) -> Path:
        root = tmp_path / "bundle"
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        (root / "specs").mkdir(exist_ok=True)
        monkeypatch.chdir(root)
        return root

    return make


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        """The output's lines, each long message whole: the text format goes on
        with it, indented, on the lines below its diagnostic (hints stay apart)."""
        return re.sub(r"\n {4,}(?!hint: )", " ", self.out).splitlines()


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    def invoke(*args: str) -> Run:
        code = main(list(args))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return invoke


AGENT = """\
---
description: Explores the codebase read-only and reports findings.
mode: subagent
permission:
  edit: deny
  bash: deny
---
# Scout

Lee el código y reporta.
"""

MODE = """\
---
description: Build a feature from the user's request.
agent: scout
---
Trabaja en: $ARGUMENTS
"""


@pytest.fixture
def sample(make_bundle: MakeBundle) -> Path:
    """A small clean bundle: one agent, one mode, one fragment used by the agent."""
    return make_bundle(
        {
            "promptc.toml": "",
            "specs/agents/scout.md": AGENT.replace("# Scout", "<<tone>>\n\n# Scout"),
            "specs/modes/build.md": MODE,
            "fragments/tone.md": "Tono: directo.\n",
        }
    )


_PROBE = """\
import sys
from promptc_compiler.cli.main import main
code = main(sys.argv[1:])
print(code, *sorted(m for m in sys.modules if m in {watched!r}))
"""


def loaded_modules(folder: Path, watched: set[str], *args: str) -> list[str]:
    """[exit code, the `watched` modules loaded] after one promptc run in a fresh
    process: what a run imports, checked as behaviour, never as time."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(watched=watched), *args],
        cwd=folder,
        stdin=subprocess.DEVNULL,  # `lsp` reads it: at its end, the server exits
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.splitlines()[-1].split()  # the probe prints last
