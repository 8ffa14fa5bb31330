"""A build split over two processes (compiler.split) gives exactly the one-process build.

The helper is forced on for every bundle here (split.SPLIT_FROM = 1), with
this process's share of the agents varied from none to all. Every
diagnostic, in order, and every emitted file, in order, must equal the
build with PROMPTC_SPLIT=0; and each test checks the helper did run, so a
split that quietly stopped happening would fail them.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler import api, emitter, split, writer
from compiler.config import load_config
from compiler.loader import SourceChanged
from compiler.project import Part
from tests.bundles import FIXTURES, REPOSITORY, project
from tests.conftest import every_field
from tests.strategies import bundle_on_disk

BUNDLES = [REPOSITORY, *sorted(p.parent for p in FIXTURES.rglob("promptc.toml"))]


class _Started:
    """Counts the helpers that started and the ones that handed their share back."""

    def __init__(self) -> None:
        self.count = 0
        self.joined = 0


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Started]:
    monkeypatch.setattr(split, "SPLIT_FROM", 1)
    monkeypatch.delenv(split.SWITCH, raising=False)
    seen = _Started()
    start = split.Helper.start.__func__  # type: ignore[attr-defined]

    def counting(cls: type[split.Helper], work: object) -> split.Helper | None:
        helper = start(cls, work)
        seen.count += helper is not None
        return helper  # type: ignore[no-any-return]

    monkeypatch.setattr(split.Helper, "start", classmethod(counting))
    join = split.Helper.join

    def joining(helper: split.Helper) -> object | None:
        carried = join(helper)
        seen.joined += carried is not None
        return carried

    monkeypatch.setattr(split.Helper, "join", joining)
    yield seen


def _render(root: Path, monkeypatch: pytest.MonkeyPatch, *, whole: bool) -> api.Result:
    monkeypatch.setenv(split.SWITCH, "0" if whole else "1")
    cwd = os.getcwd()
    os.chdir(root)
    try:
        return api.render(load_config(cwd=root))
    finally:
        os.chdir(cwd)


def _same(root: Path, monkeypatch: pytest.MonkeyPatch) -> api.Result:
    whole = _render(root, monkeypatch, whole=True)
    halves = _render(root, monkeypatch, whole=False)
    assert every_field(halves.diagnostics) == every_field(whole.diagnostics)
    assert list(halves.files.items()) == list(whole.files.items())
    return whole


@pytest.mark.parametrize("share", [0.0, 0.3, 1.0, None], ids=["0", "0.3", "1", "estimated"])
@pytest.mark.parametrize("root", BUNDLES, ids=lambda p: str(p.relative_to(REPOSITORY)))
def test_a_split_build_is_the_one_process_build(
    root: Path, share: float | None, started: _Started, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(emitter, "OWN_SHARE", share)
    _same(root, monkeypatch)
    config = load_config(cwd=root)
    agents = project(root, api._lint_target(config)).agents
    assert started.count == started.joined == (1 if agents else 0)


# Fragments that fail to compose, included by agents on both sides of the
# split and by a mode: one finding each, worded with the chain of the first
# body that included it, as in one process.
BROKEN = "Uses <<missing_param>> and <<nowhere>>.\n"
CAVEMAN = (
    "---\ndescription: Tone.\nparams:\n  level:\n    type: string\n"
    "    enum: [lite, full, ultra]\n    default: full\n---\nTone <<level>>.\n"
)
# Findings made while rendering a body carry its chain ("included from"): a
# value the callee's enum refuses, a condition that cannot be evaluated.
OUTER = "---\nparams:\n  level:\n    type: string\n---\nOuter <<inner(level=level)>>.\n"
INNER = (
    "---\nparams:\n  level:\n    type: string\n    enum: [lite, full]\n"
    "    default: full\n---\nInner <<level>>.\n"
)
COND = (
    "---\nparams:\n  level:\n    type: string\n    default: a\n---\n"
    "<% if level > 3 %>big<% endif %>\n"
)
PIECES = [
    '<<outer(level="ultra")>>',
    '<<outer(level="lite")>>',
    '<<cond(level="x")>>',
    "<<tone>>",
    "<<broken>>",
    '<<caveman(level="ultra")>>',
    '<<caveman(level="lite")>>',
    '<% if target == "claude" %>only claude <<broken>><% endif %>',
    "plain words",
    "",
]
FRONTMATTER = [
    "description: Reviews the change and reports findings in detail.\nmode: subagent\n",
    "description: Reviews the change and reports findings in detail.\nmode: subagent\n"
    "permission:\n  bash:\n    '*': ask\n    'git status*': allow\n  edit: deny\n",
    "description: Plans.\nmode: primary\npermission:\n  task:\n    '*': deny\n    a1: allow\n",
    "description: x\nmode: nonsense\n",  # schema and lint findings
    "description: Reviews the change and reports findings in detail.\nmode: subagent\n"
    "permission:\n  bash: allow\n",  # a dangerous allow
]
CONFIGS = [
    "[targets.opencode]\n",
    "[targets.claude]\n",
    "[targets.opencode]\n[targets.claude]\n",
    '[targets.claude]\n[targets.claude-plugin]\nname = "team"\n',
    "[targets.opencode]\n[targets.claude]\n\n[rules.required-snippet]\n"
    'fragment = "caveman"\nparams = {level = "ultra"}\n',
]


@st.composite
def _bundles(draw: st.DrawFn) -> dict[str, bytes]:
    files = {
        "promptc.toml": draw(st.sampled_from(CONFIGS)).encode(),
        "fragments/tone.md": b"Tono: directo.\n",
        "fragments/broken.md": BROKEN.encode(),
        "fragments/caveman.md": CAVEMAN.encode(),
        "fragments/outer.md": OUTER.encode(),
        "fragments/inner.md": INNER.encode(),
        "fragments/cond.md": COND.encode(),
    }
    for index in range(draw(st.integers(1, 9))):
        front = draw(st.sampled_from(FRONTMATTER))
        body = "\n\n".join(draw(st.lists(st.sampled_from(PIECES), max_size=4)))
        files[f"specs/agents/a{index}.md"] = f"---\n{front}---\n{body}\n".encode()
    if draw(st.booleans()):
        body = draw(st.sampled_from(PIECES))
        files["specs/modes/go.md"] = f"---\ndescription: Go.\n---\n{body} $ARGUMENTS\n".encode()
    return files


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(files=_bundles(), share=st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0, None]))
def test_split_builds_of_generated_bundles_are_the_one_process_builds(
    files: dict[str, bytes], share: float | None, started: _Started, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(emitter, "OWN_SHARE", share)
    before = started.count
    with bundle_on_disk(files) as (root, _):
        _same(root, monkeypatch)
    assert started.count == started.joined == before + 1


def test_a_finding_in_a_shared_fragment_keeps_the_words_of_the_first_body(
    started: _Started, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(emitter, "OWN_SHARE", 0.5)
    body = '<<outer(level="ultra")>>\n<<cond(level="x")>>\n'
    front = "description: Reviews the change and reports findings in detail.\nmode: subagent\n"
    files = {
        "promptc.toml": b"[targets.opencode]\n[targets.claude]\n",
        "fragments/outer.md": OUTER.encode(),
        "fragments/inner.md": INNER.encode(),
        "fragments/cond.md": COND.encode(),
        **{f"specs/agents/a{i}.md": f"---\n{front}---\n{body}".encode() for i in range(4)},
    }
    with bundle_on_disk(files) as (root, _):
        result = _same(root, monkeypatch)
    composing = [d.message for d in result.diagnostics if d.rule == "compose"]
    assert len(composing) == 2
    assert all("included from specs/agents/a0.md" in message for message in composing)
    assert started.count == started.joined == 1


def _failing_helper(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """Make the helper fail once it has emitted its share (carry runs only there)."""
    carry = emitter.Emitter.carry

    def failing(self: emitter.Emitter) -> object:
        if how == "raise":
            raise RuntimeError("helper broke")
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if how == "unpicklable":
            return lambda: None
        return carry(self)

    monkeypatch.setattr(emitter.Emitter, "carry", failing)


@pytest.mark.parametrize("how", ["raise", "kill", "unpicklable"])
def test_a_failed_helper_costs_time_never_output(
    how: str, started: _Started, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = FIXTURES / "claude"
    whole = _render(root, monkeypatch, whole=True)
    _failing_helper(monkeypatch, how)
    halves = _render(root, monkeypatch, whole=False)
    assert started.count == 1
    assert started.joined == 0
    assert every_field(halves.diagnostics) == every_field(whole.diagnostics)
    assert list(halves.files.items()) == list(whole.files.items())


def test_a_build_writes_the_same_folder_split_or_not(
    started: _Started, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import shutil

    noted: list[str] = []  # the files the helper wrote to the stage itself
    note = writer.Stage.note
    monkeypatch.setattr(
        writer.Stage, "note", lambda stage, rel, *a: (noted.append(rel), note(stage, rel, *a))[1]
    )
    outputs, results = [], []
    for whole in (True, False):
        root = tmp_path / ("whole" if whole else "split")
        shutil.copytree(FIXTURES / "claude", root)
        monkeypatch.setenv(split.SWITCH, "0" if whole else "1")
        monkeypatch.chdir(root)
        result = api.build(load_config(cwd=root))
        assert result.ok, result.diagnostics
        out = root / "build"
        outputs.append({p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()})
        results.append(result)
    assert started.count == started.joined == 1
    assert outputs[0] == outputs[1]
    assert every_field(results[0].diagnostics) == every_field(results[1].diagnostics)
    assert list(results[0].files.items()) == list(results[1].files.items())
    assert results[0].digests == results[1].digests
    # The helper's share, every other file included, came through the stage.
    assert noted and set(noted) < set(results[1].files)
    assert "claude/TRANSLATION.md" in noted


def test_a_helper_that_fails_after_staging_costs_time_never_output(
    started: _Started, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Its files are cleared from the stage and this process emits its share."""
    import shutil

    expected = _render(FIXTURES / "claude", monkeypatch, whole=True)
    root = tmp_path / "bundle"
    shutil.copytree(FIXTURES / "claude", root)
    monkeypatch.chdir(root)
    monkeypatch.setenv(split.SWITCH, "1")
    main, put = os.getpid(), writer.Stage.put
    staged = []

    def dying(stage: writer.Stage, rel: str, data: bytes) -> str:
        found = put(stage, rel, data)
        staged.append(rel)
        if os.getpid() != main and len(staged) == 2:
            os._exit(1)  # the helper, with two files staged
        return found

    monkeypatch.setattr(writer.Stage, "put", dying)
    result = api.build(load_config(cwd=root))
    assert result.ok and started.count == 1 and started.joined == 0
    out = root / "build"
    assert {
        p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()
    } == {
        **dict(expected.files),
        writer.MANIFEST: (out / writer.MANIFEST).read_bytes(),
        writer.LOCK: b"",
    }
    tops = {rel.partition("/")[0] for rel in expected.files}
    assert sorted(os.listdir(out)) == sorted([writer.LOCK, writer.MANIFEST, *tops])
    assert len(staged) > 2  # every file, staged again here


def test_a_check_of_a_stale_output_is_the_same_split_or_not(
    started: _Started, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`check` compares each file with the output folder as it is taken back:
    missing and stale files are reported alike."""
    import shutil

    root = tmp_path / "bundle"
    shutil.copytree(FIXTURES / "claude", root)
    monkeypatch.chdir(root)
    monkeypatch.setenv(split.SWITCH, "0")
    assert api.build(load_config(cwd=root)).ok
    out = root / "build"
    agents = sorted((out / "claude/.claude/agents").glob("*.md"))
    agents[0].unlink()
    agents[-1].write_text(agents[-1].read_text() + "edited\n")
    runs = []
    for switch in ("0", "1"):
        monkeypatch.setenv(split.SWITCH, switch)
        result = api.check(load_config(cwd=root))
        runs.append((every_field(result.diagnostics), result.generated, dict(result.digests)))
    assert started.count == started.joined == 1
    assert runs[0] == runs[1]
    stale = [row for row in runs[0][0] if row[3] == "stale-output"]
    assert len(stale) == 2


def test_a_split_build_with_errors_writes_nothing(
    started: _Started, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import shutil

    root = tmp_path / "bundle"
    shutil.copytree(FIXTURES / "claude", root)
    agent = root / "specs/agents/smith.md"
    agent.write_text(agent.read_text().replace("description:", "mode: nonsense\ndescription:", 1))
    monkeypatch.chdir(root)
    results = []
    for switch in ("0", "1"):
        monkeypatch.setenv(split.SWITCH, switch)
        results.append(api.build(load_config(cwd=root)))
        assert not (root / "build").exists()
    assert started.count == started.joined == 1
    assert not results[1].ok
    assert every_field(results[0].diagnostics) == every_field(results[1].diagnostics)


def test_when_a_build_splits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(split.SWITCH, raising=False)
    monkeypatch.setattr(split, "_cores", lambda: 2)
    assert split.wanted(split.SPLIT_FROM)
    assert not split.wanted(split.SPLIT_FROM - 1)
    monkeypatch.setenv(split.SWITCH, "0")
    assert not split.wanted(10_000)
    monkeypatch.delenv(split.SWITCH)
    monkeypatch.setattr(split, "_cores", lambda: 1)
    assert not split.wanted(10_000)


def test_no_helper_while_other_threads_run(
    started: _Started, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork would keep the locks other threads hold: the build (and the cache
    key, cache._hash_ahead) stays in this process, with the same result."""
    import threading

    whole = _render(FIXTURES / "claude", monkeypatch, whole=True)
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert split.Helper.start(lambda put: None) is None
        halves = _render(FIXTURES / "claude", monkeypatch, whole=False)
    finally:
        release.set()
        thread.join()
    assert started.joined == 0
    assert every_field(halves.diagnostics) == every_field(whole.diagnostics)
    helper = split.Helper.start(lambda put: "ran")
    assert helper is not None and helper.join() == "ran"  # no thread now: it runs
    helper.close()


def test_the_helper_hands_back_its_events_in_order_and_its_result() -> None:
    def work(put: split.Put) -> object:
        for index in range(3):
            put((index, "file", b"x" * 100_000 * index))
        return {"done": True}

    helper = split.Helper.start(work)
    assert helper is not None
    assert helper.join() == {"done": True}
    assert list(helper.events.read()) == [(i, "file", b"x" * 100_000 * i) for i in range(3)]


def test_a_failure_here_stops_the_helper(
    started: _Started, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file changed while this process read it: the run reports it, and the
    helper is stopped and waited for, not left behind."""
    target = emitter.Emitter.target

    def changed(self: emitter.Emitter, index: int, part: Part, into: object) -> None:
        if not part.rest:  # this process's share
            raise SourceChanged(Path("specs/agents/scout.md"))
        target(self, index, part, into)  # type: ignore[arg-type]

    monkeypatch.setattr(emitter.Emitter, "target", changed)
    result = _render(FIXTURES / "claude", monkeypatch, whole=False)
    assert started.count == 1 and started.joined == 0
    message = "file changed while promptc was reading it; run promptc again"
    assert message in [d.message for d in result.diagnostics]
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_an_interrupt_while_waiting_stops_the_helper(started: _Started) -> None:
    """An interrupt while this process waits for the helper: it propagates, and
    the helper is stopped and waited for."""

    def slow(put: split.Put) -> object:
        import time

        time.sleep(30)
        return None

    helper = split.Helper.start(slow)
    assert helper is not None

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(KeyboardInterrupt):
            helper.join()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    with pytest.raises(ChildProcessError):
        os.waitpid(helper.pid, os.WNOHANG)


@pytest.mark.parametrize(
    "names",
    [["opencode"], ["claude"], ["claude-plugin"], ["opencode", "claude"], ["nothing-known"]],
)
def test_the_estimated_share_leaves_this_process_less_for_its_bundle_rules(
    names: list[str],
) -> None:
    """The estimate gives this process fewer agents than the helper (it runs
    the bundle's rules too), and more where the helper also translates for
    Claude; a share set by hand wins."""
    share = emitter.own_share(names)
    assert 0.0 < share < 0.5
    # A first build's helper also writes its files (writer.Stage): it takes fewer.
    assert share < emitter.own_share(names, staging=True) < 1.0
    if "claude" not in names and "claude-plugin" not in names:
        assert share < emitter.own_share([*names[:-1], "claude"])


def test_a_share_set_by_hand_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emitter, "OWN_SHARE", 0.9)
    assert emitter.own_share(["opencode"]) == 0.9
