"""`promptc build --watch` and `check --watch`: the real command, run on a scratch bundle."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import watchfiles

from promptc_compiler.api import Kept
from promptc_compiler.cli.main import main
from promptc_compiler.core.config import load_config
from promptc_compiler.editor import watch

pytestmark = pytest.mark.slow  # collected first: tests/conftest.py

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
            [sys.executable, "-m", "promptc_compiler", *args, "--watch", "--no-color"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.ends: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            # The line that ends each run goes aside: the tests read the runs.
            if RUN_END.fullmatch(line.rstrip("\n")):
                self.ends.append(line.rstrip("\n"))
            else:
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


RUN_END = re.compile(r"promptc: -+ \d\d:\d\d:\d\d, \d+\.\d\d s -+")


def summary(line: str) -> bool:
    return line.startswith("promptc: ") and any(
        word in line for word in ("problem", "error", "warning")
    )


def save(bundle: Path, rel: str, text: str) -> None:
    (bundle / rel).parent.mkdir(parents=True, exist_ok=True)
    (bundle / rel).write_text(text, encoding="utf-8")


AGENTS = "build/opencode/.opencode/agents"


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


# What each watched run keeps for the next (api.Kept) serves only files whose
# bytes did not change: the tests below hold that a run after each edit reports
# and writes what a fresh run would.


def test_a_fragment_edit_rebuilds_every_agent_that_includes_it_with_the_new_text(
    bundle: Path,
) -> None:
    # Both agents reach `voice` through `tone`: an edit of either fragment reaches them.
    save(bundle, "fragments/tone.md", "Be brief.\n<<voice>>\n")
    save(bundle, "fragments/voice.md", "Speak plainly.\n")
    save(bundle, "specs/agents/helper.md", LEAD.replace("mode: primary", "mode: subagent"))
    save(bundle, "specs/agents/plain.md", LEAD.replace("<<tone>>", "Plain words."))
    edits = [
        ("fragments/tone.md", "Be terse.\n<<voice>>\n", "Be terse.\nSpeak plainly."),
        ("fragments/voice.md", "Speak softly.\n", "Be terse.\nSpeak softly."),
        ("fragments/voice.md", "Speak plainly.\n", "Be terse.\nSpeak plainly."),
        ("fragments/tone.md", "Be brief.\n<<voice>>\n", "Be brief.\nSpeak plainly."),
    ]  # the last two restore the first texts
    watching = Watching(bundle, "build")
    try:
        watching.until(lambda line: line.startswith("promptc: watching"))
        for rel, text, composed in edits:
            save(bundle, rel, text)
            rebuilt = watching.until(summary)
            assert rebuilt[-1] == "promptc: no problems; wrote 2, removed 0 file(s)", rel
            for name in ("lead", "helper"):
                assert composed in (bundle / AGENTS / f"{name}.md").read_text("utf-8"), rel
        assert "Be " not in (bundle / AGENTS / "plain.md").read_text("utf-8")
    finally:
        watching.close()


def test_a_removed_fragment_is_reported_missing_by_the_next_watched_run(
    build_watch: Watching, bundle: Path
) -> None:
    built = bundle / AGENTS / "lead.md"
    build_watch.until(lambda line: line.startswith("promptc: watching"))
    before = built.read_bytes()
    (bundle / "fragments/tone.md").unlink()
    failed = build_watch.until(summary)
    assert "specs/agents/lead.md:8:1: error [compose] unknown fragment 'tone'" in failed
    assert failed[-1] == "promptc: 1 error"
    assert built.read_bytes() == before  # an error writes nothing
    save(bundle, "fragments/tone.md", "Be brief.\n")
    assert build_watch.until(summary)[-1] == "promptc: no problems"


def test_a_renamed_agent_has_its_old_output_removed_and_the_new_one_written(
    bundle: Path,
) -> None:
    # The byte-order mark draws a warning that names the file: the renamed
    # file's bytes are the same, and the warning must name it by its new path.
    save(bundle, "specs/agents/lead.md", "\ufeff" + LEAD)
    watching = Watching(bundle, "build")
    try:
        first = watching.until(lambda line: line.startswith("promptc: watching"))
        assert "promptc: 1 warning; wrote 2, removed 0 file(s)" in first
        (bundle / "specs/agents/lead.md").rename(bundle / "specs/agents/chief.md")
        renamed = watching.until(summary)
        assert renamed[-2:] == [
            "specs/agents/chief.md:1:1: warning [encoding] byte-order mark at the start of "
            "the file; remove it",
            "promptc: 1 warning; wrote 1, removed 1 file(s)",
        ]
        assert not (bundle / AGENTS / "lead.md").exists()
        assert "# Lead" in (bundle / AGENTS / "chief.md").read_text("utf-8")
    finally:
        watching.close()


def test_a_schema_error_its_fix_and_the_same_error_again_are_each_reported(
    build_watch: Watching, bundle: Path
) -> None:
    built = bundle / AGENTS / "lead.md"
    build_watch.until(lambda line: line.startswith("promptc: watching"))
    wrong = LEAD.replace("mode: primary", "mode: primray")
    error = (
        "specs/agents/lead.md:3:7: error [schema] $.mode: 'primray' is not one of "
        "subagent, primary, all (did you mean `primary`?)"
    )
    for attempt in range(2):
        save(bundle, "specs/agents/lead.md", wrong)
        failed = build_watch.until(summary)
        assert failed[-2:] == [error, "promptc: 1 error"], attempt
        before = built.read_bytes()
        save(bundle, "specs/agents/lead.md", LEAD.replace("# Lead", f"# Lead {attempt}"))
        fixed = build_watch.until(summary)
        assert fixed[-1] == "promptc: no problems; wrote 1, removed 0 file(s)", attempt
        assert built.read_bytes() != before
        save(bundle, "specs/agents/lead.md", wrong)
        again = build_watch.until(summary)
        assert again[-2:] == [error, "promptc: 1 error"], attempt
        assert built.read_text("utf-8").endswith(f"# Lead {attempt}\n")  # written nothing


def git(root: Path, *args: str) -> None:
    author = ["-c", "user.name=promptc", "-c", "user.email=promptc@example.com"]
    subprocess.run(["git", *author, *args], cwd=root, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_specs_removed_and_checked_out_again_are_watched_again(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    assert main(["init", str(root)]) == 0
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a new bundle")
    watching = Watching(root, "build")
    try:
        watching.until(lambda line: line.startswith("promptc: watching"))
        shutil.rmtree(root / "specs")  # `git stash` or a branch switch do the same
        watching.until(lambda line: "specs folder not found" in line)
        git(root, "checkout", "specs")
        back = watching.until(summary)
        # One change or several, as the file watcher batches the checkout's events.
        assert any(
            re.fullmatch(
                r"promptc: specs(/\S+)?( and \d+ more file\(s\))? changed; running again", line
            )
            for line in back
        ), back
        assert back[-1].startswith("promptc: no problems")
        # The folder that came back is watched: an edit in it rebuilds.
        lead = root / "specs/agents/lead.md"
        lead.write_text(lead.read_text("utf-8") + "\nOne more line.\n", encoding="utf-8")
        rebuilt = watching.until(summary)
        assert rebuilt[-1] == "promptc: no problems; wrote 1, removed 0 file(s)"
        built = root / AGENTS / "lead.md"
        assert built.read_text("utf-8").endswith("One more line.\n")
    finally:
        watching.close()


def test_fragments_moved_away_and_back_are_watched_again(
    build_watch: Watching, bundle: Path, tmp_path: Path
) -> None:
    build_watch.until(lambda line: line.startswith("promptc: watching"))
    (bundle / "fragments").rename(tmp_path / "away")
    gone = build_watch.until(summary)
    assert "specs/agents/lead.md:8:1: error [compose] unknown fragment 'tone'" in gone
    (tmp_path / "away").rename(bundle / "fragments")
    back = build_watch.until(summary)
    assert "promptc: fragments changed; running again" in back
    assert back[-1] == "promptc: no problems"
    save(bundle, "fragments/tone.md", "Be terse.\n")
    rebuilt = build_watch.until(summary)
    assert rebuilt[-1] == "promptc: no problems; wrote 1, removed 0 file(s)"
    assert "Be terse." in (bundle / AGENTS / "lead.md").read_text("utf-8")


@pytest.mark.parametrize("back", [True, False])
def test_a_folder_back_between_two_looks_is_a_change_and_watched_again(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, back: bool
) -> None:
    """The race of the test above, scripted: the fragments folder goes while a run
    is in progress, the watch's next look finds it gone, and (with `back`) it is
    moved back, with its inode, before the new watch's first look."""
    fragments, away = bundle / "fragments", tmp_path / "away"
    started: list[list[str]] = []

    def steps(*paths: Path, **_options: object) -> Iterator[set[tuple[watchfiles.Change, str]]]:
        started.append(sorted(Path(p).name for p in paths))
        if len(started) > 1:
            yield set()  # the new watch's first step: what it was told, if anything
            raise KeyboardInterrupt
        try:
            yield set()  # the first step, before the first run
            fragments.rename(away)
            yield {(watchfiles.Change.deleted, str(fragments))}
        finally:  # the watch is stopped after the look that found the folder gone
            if back:
                away.rename(fragments)

    monkeypatch.setattr(watchfiles, "watch", steps)
    ran: list[bool] = []
    echoed: list[str] = []
    code = watch.watch(
        lambda: load_config(bundle / "promptc.toml"),
        lambda _config, _kept: ran.append(fragments.is_dir()),
        echoed.append,
    )
    assert code == 0
    assert started == [["fragments", "specs"], ["fragments", "specs"] if back else ["specs"]]
    told = [line for line in echoed if line.endswith("/fragments changed; running again")]
    if back:
        # A run without the folder, and one with it again.
        assert ran == [True, False, True]
        assert len(told) == 2, echoed
    else:
        assert ran == [True, False]
        assert len(told) == 1, echoed


def test_every_run_of_one_watch_is_handed_the_same_kept_and_a_new_watch_a_new_one(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tone = str(bundle / "fragments/tone.md")

    def changes(_current: object) -> Iterator[set[tuple[watchfiles.Change, str]]]:
        yield set()  # the watch's first step, before its first run
        yield {(watchfiles.Change.modified, tone)}
        yield {(watchfiles.Change.modified, tone)}
        raise KeyboardInterrupt

    monkeypatch.setattr(watch, "_changes", changes)
    handed: list[Kept] = []
    for _ in range(2):
        code = watch.watch(
            lambda: load_config(bundle / "promptc.toml"),
            lambda _config, kept: handed.append(kept),
            lambda _line: None,
        )
        assert code == 0
    assert len(handed) == 6
    assert len({id(kept) for kept in handed[:3]}) == 1
    assert len({id(kept) for kept in handed[3:]}) == 1
    assert handed[0] is not handed[3]


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
@pytest.mark.skipif(
    signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
    reason="SIGINT is ignored here (a background job without job control), and so in the watch",
)
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


def test_each_run_ends_with_its_time_and_duration(bundle: Path, build_watch: Watching) -> None:
    build_watch.until(lambda line: line.startswith("promptc: watching"))
    assert len(build_watch.ends) == 1
    save(bundle, "fragments/tone.md", "Be terse.\n")
    build_watch.until(summary)
    deadline = time.monotonic() + 30
    while len(build_watch.ends) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(build_watch.ends) == 2, build_watch.seen


@pytest.mark.parametrize(
    "name",
    [".tone.md.swp", ".tone.md.swx", "tone.md~", "4913", ".#tone.md", "tone.md.tmp",
     "tone.md___jb_tmp___", "tone.md___jb_old___", "tone.md.vsctmp"],
)  # fmt: skip
def test_editors_temporary_files_are_no_change(name: str) -> None:
    assert watch._EDITOR_TEMPS.search(name) is not None
    assert watch._EDITOR_TEMPS.search("tone.md") is None
    assert watch._EDITOR_TEMPS.search("tmp-notes.md") is None


def test_a_save_through_temporary_files_makes_one_run_for_the_file(
    bundle: Path, build_watch: Watching
) -> None:
    build_watch.until(lambda line: line.startswith("promptc: watching"))
    # What vim, Emacs, JetBrains and VS Code write beside a file they save.
    for name in (".tone.md.swp", "4913", "tone.md~", ".#tone.md", "tone.md___jb_tmp___"):
        save(bundle, f"fragments/{name}", "x\n")
    time.sleep((watch.DEBOUNCE_MS + 300) / 1000)
    save(bundle, "fragments/tone.md", "Be terse.\n")
    rebuilt = build_watch.until(summary)
    assert rebuilt[0] == "promptc: fragments/tone.md changed; running again"
