"""`promptc build --watch` and `check --watch`: the real command, run on a scratch bundle."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from compiler.cli import main

LEAD = """\
---
description: Leads the work and answers the user.
mode: primary
permission:
  edit: deny
  bash: deny
---
<<tone>>

# Lead
"""


def write_bundle(root: Path) -> Path:
    files = {
        "promptc.toml": "[targets.opencode]\n",
        "fragments/tone.md": "Be brief.\n",
        "specs/agents/lead.md": LEAD,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


class Watching:
    """A `promptc ... --watch` process and the lines it prints (stdout and stderr, merged)."""

    def __init__(self, root: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "compiler", *args, "--watch", "--no-color"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def until(self, wanted: Callable[[str], bool], timeout: float = 60) -> list[str]:
        """The lines printed up to and including the first that `wanted` accepts."""
        end = time.monotonic() + timeout
        got: list[str] = []
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            got.append(line)
            self.seen.append(line)
            if wanted(line):
                return got
        raise AssertionError(f"not printed within {timeout} s; printed: {self.seen}")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        self.reader.join(timeout=30)
        assert self.process.stdout is not None
        self.process.stdout.close()


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return write_bundle(tmp_path / "bundle")


@pytest.fixture
def build_watch(bundle: Path) -> Iterator[Watching]:
    watching = Watching(bundle, "build")
    yield watching
    watching.close()


def summary(line: str) -> bool:
    return line.startswith("promptc: ") and ("problem" in line or "error" in line)


def test_a_watched_build_follows_edits_and_writes_nothing_while_broken(
    build_watch: Watching, bundle: Path
) -> None:
    built = bundle / "build/opencode/.opencode/agents/lead.md"
    first = build_watch.until(lambda line: line.startswith("promptc: watching"))
    assert "promptc: no problems; wrote 2, removed 0 file(s)" in first
    assert "Be brief." in built.read_text(encoding="utf-8")

    (bundle / "fragments/tone.md").write_text("Be terse.\n", encoding="utf-8")
    rebuilt = build_watch.until(summary)
    assert rebuilt[0] == "promptc: fragments/tone.md changed; running again"
    assert rebuilt[-1] == "promptc: no problems; wrote 1, removed 0 file(s)"
    assert "Be terse." in built.read_text(encoding="utf-8")
    before = built.read_bytes()

    broken = LEAD.replace("---\n<<tone>>", "<<tone>>")  # the frontmatter is never closed
    (bundle / "specs/agents/lead.md").write_text(broken, encoding="utf-8")
    failed = build_watch.until(summary)
    assert any(
        line.startswith("specs/agents/lead.md:1:1: error [syntax] frontmatter opened here")
        for line in failed
    )
    assert failed[-1].startswith("promptc: 1 error")
    assert built.read_bytes() == before

    (bundle / "specs/agents/lead.md").write_text(LEAD.replace("# Lead", "# Lead, again"))
    fixed = build_watch.until(summary)
    assert fixed[-1] == "promptc: no problems; wrote 1, removed 0 file(s)"
    assert built.read_text(encoding="utf-8").endswith("# Lead, again\n")
    assert build_watch.process.poll() is None  # still watching


def test_a_removed_fragment_is_gone_from_the_next_watched_run(
    build_watch: Watching, bundle: Path
) -> None:
    build_watch.until(lambda line: line.startswith("promptc: watching"))
    (bundle / "fragments/tone.md").unlink()
    failed = build_watch.until(summary)
    assert any("unknown fragment 'tone'" in line for line in failed)


def test_a_broken_config_is_reported_and_the_watch_goes_on(
    build_watch: Watching, bundle: Path
) -> None:
    build_watch.until(lambda line: line.startswith("promptc: watching"))
    (bundle / "promptc.toml").write_text("[targets.opencode\n", encoding="utf-8")
    build_watch.until(lambda line: "invalid TOML" in line)
    (bundle / "promptc.toml").write_text("[targets.opencode]\n", encoding="utf-8")
    again = build_watch.until(summary)
    assert again[-1].startswith("promptc: no problems")


def test_check_watch_reports_each_run(bundle: Path) -> None:
    watching = Watching(bundle, "check")
    try:
        first = watching.until(lambda line: line.startswith("promptc: watching"))
        assert any("generated file is missing; run promptc build" in line for line in first)
        assert "promptc: 2 errors" in first
        assert not (bundle / "build").exists()  # check writes nothing
    finally:
        watching.close()


@pytest.mark.skipif(sys.platform == "win32", reason="Ctrl-C is a console event on Windows")
def test_ctrl_c_ends_the_watch_with_exit_code_0(build_watch: Watching) -> None:
    build_watch.until(lambda line: line.startswith("promptc: watching"))
    build_watch.process.send_signal(signal.SIGINT)
    assert build_watch.process.wait(timeout=30) == 0
    build_watch.until(lambda line: line == "promptc: stopped watching")
    assert not [line for line in build_watch.seen if "Traceback" in line]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["build", "--watch", "--depfile", "x.d"], "--depfile and --stamp record one build"),
        (["check", "--watch", "--fix"], "--fix rewrites the sources --watch reacts to"),
    ],
)
def test_watch_refuses_options_that_record_or_rewrite(
    args: list[str],
    message: str,
    bundle: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(bundle)
    assert main(args) == 2
    assert message in capsys.readouterr().err
    assert not os.path.exists(bundle / "build")
