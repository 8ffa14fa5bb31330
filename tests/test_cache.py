"""The result cache: a warm run skips the pipeline, and no change ever gets a stale answer."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from compiler import api, cache, resources
from compiler import entry as program

from .conftest import Run


@pytest.fixture
def pipeline_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """One entry per real run of the pipeline (a cache hit adds none)."""
    calls: list[bool] = []
    real = api.build

    def counting(*args: object, **kwargs: object) -> api.Result:
        calls.append(True)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "build", counting)
    yield calls


@pytest.fixture(autouse=True)
def _cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMPTC_NO_CACHE", raising=False)


def test_second_check_is_a_hit_with_the_same_report(
    sample: Path, run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    assert run("build").code == 0
    first = run("check")
    second = run("check")
    assert (first.code, second.code) == (0, 0)
    assert second.out == first.out and second.err == first.err
    assert len(pipeline_runs) == 2  # build and the first check; the second check was a hit
    assert (sample / ".promptc-cache" / ".gitignore").read_text().endswith("*\n")


def test_warm_build_writes_nothing_and_says_so(
    sample: Path, run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    assert "wrote" in run("build").err
    again = run("build")
    assert again.code == 0 and "wrote" not in again.err
    assert len(pipeline_runs) == 1


def test_cached_diagnostics_keep_every_field(
    sample: Path, run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    agent = sample / "specs/agents/scout.md"
    agent.write_text(agent.read_text().replace("mode: subagent", "mode: subagnet"))
    first = run("check", "--format", "json")
    second = run("check", "--format", "json")
    assert first.code == second.code == 1
    assert second.out == first.out and "subagnet" in first.out
    assert len(pipeline_runs) == 1


def test_changed_fragment_is_a_miss(
    sample: Path, run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    assert run("build").code == 0
    assert run("check").code == 0
    (sample / "fragments/tone.md").write_text("Tono: otro.\n")
    changed = run("check")
    assert changed.code == 1
    assert "build/opencode/.opencode/agents/scout.md:1:1: error [stale-output]" in changed.out
    assert len(pipeline_runs) == 3


def test_changed_config_value_is_a_miss(
    sample: Path, run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    assert run("check").code == 1  # nothing built yet: every output is missing
    (sample / "promptc.toml").write_text('out = "elsewhere"\n')
    moved = run("check")
    assert "elsewhere/opencode/opencode.json:1:1: error [stale-output]" in moved.out
    assert len(pipeline_runs) == 2


def test_edited_output_is_a_miss(
    sample: Path, run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    assert run("build").code == 0
    assert run("check").code == 0
    output = sample / "build/opencode/.opencode/agents/scout.md"
    output.write_text(output.read_text() + "edited\n")
    stale = run("check")
    assert stale.code == 1
    assert "build/opencode/.opencode/agents/scout.md:1:1: error [stale-output]" in stale.out
    output.unlink()
    assert "generated file is missing" in run("check").out
    assert len(pipeline_runs) == 4


def test_check_and_build_do_not_share_entries(
    sample: Path, run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    assert run("check").code == 1  # outputs missing
    assert run("build").code == 0  # must really build, not replay the check
    assert (sample / "build/opencode/opencode.json").is_file()
    assert run("check").code == 0


def test_corrupt_entry_is_a_miss(
    sample: Path, run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    assert run("build").code == 0
    for entry in (sample / ".promptc-cache").glob("*.json"):
        entry.write_text("{not json")
    assert run("build").code == 0
    assert len(pipeline_runs) == 2


@pytest.mark.parametrize(
    "how",
    [
        pytest.param(("--no-cache",), id="flag"),
        pytest.param((), id="environment"),
        pytest.param((), id="config"),
    ],
)
def test_cache_can_be_disabled(
    sample: Path,
    run: Callable[..., Run],
    pipeline_runs: list[bool],
    monkeypatch: pytest.MonkeyPatch,
    how: tuple[str, ...],
    request: pytest.FixtureRequest,
) -> None:
    case = request.node.callspec.id
    if case == "environment":
        monkeypatch.setenv("PROMPTC_NO_CACHE", "1")
    if case == "config":
        (sample / "promptc.toml").write_text("cache = false\n")
    for _ in range(2):
        assert run("build", *how).code == 0
    assert len(pipeline_runs) == 2
    assert not (sample / ".promptc-cache").exists()


def test_cache_key_must_be_a_boolean(sample: Path, run: Callable[..., Run]) -> None:
    (sample / "promptc.toml").write_text('cache = "no"\n')
    result = run("check")
    assert result.code == 2
    assert "promptc.toml:1:" in result.err


def _key(root: Path) -> str | None:
    found = cache.raw_layout(None, root)
    assert found is not None
    return cache.key(found[0], "check", (), {})


def test_key_follows_promptc_version(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _key(sample)
    monkeypatch.setattr(cache, "__version__", "999.0")
    assert _key(sample) != before


def test_key_follows_shipped_schemas(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "schemas"
    shutil.copytree(resources.schema_dir(), copy)
    monkeypatch.setattr(resources, "schema_folder", lambda: str(copy))
    monkeypatch.setattr(cache, "_CODE", [])
    before = _key(sample)
    monkeypatch.setattr(cache, "_CODE", [])
    assert _key(sample) == before  # the same bytes give the same key
    schema = copy / "agent.schema.json"
    schema.write_text(schema.read_text().replace('"description"', '"description" ', 1))
    monkeypatch.setattr(cache, "_CODE", [])
    assert _key(sample) != before


def test_layout_defaults_are_the_config_defaults() -> None:
    from compiler.config import DEFAULTS

    assert {k: DEFAULTS[k] for k in cache.LAYOUT_DEFAULTS} == cache.LAYOUT_DEFAULTS
    assert tuple(DEFAULTS["targets"]) == cache.DEFAULT_TARGETS


def test_key_follows_home(sample: Path) -> None:
    found = cache.raw_layout(None, sample)
    assert found is not None
    one = cache.key(found[0], "check", (), {"HOME": "/home/a"})
    other = cache.key(found[0], "check", (), {"HOME": "/home/b"})
    assert one != other


def test_new_file_anywhere_in_the_trees_is_a_miss(sample: Path) -> None:
    before = _key(sample)
    (sample / "fragments/notes.txt").write_text("stray\n")
    assert _key(sample) != before


def test_symlinked_bundle_is_never_cached(sample: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.md").write_text("Tono: afuera.\n")
    (sample / "fragments/linked.md").symlink_to(tmp_path / "elsewhere.md")
    assert _key(sample) is None


# What the cheap paths import: measured as behaviour (modules loaded), never as time.
HEAVY = ("yaml", "jinja2", "jsonschema", "click", "typing", "dataclasses", "pathlib", "tomllib")
PROBE = """\
import sys
before = set(sys.modules)
from compiler.entry import main
code = main(sys.argv[1:])
loaded = set(sys.modules) - before
print(code, *sorted(m for m in loaded if m.split(".")[0] in {heavy!r}))
"""


def _imports(folder: Path, *args: str) -> list[str]:
    import os
    import subprocess
    import sys

    probe = PROBE.format(heavy=set(HEAVY))
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "PROMPTC_NO_CACHE"},
    )
    return done.stdout.splitlines()[-1].split()  # the probe prints last


def test_version_imports_no_heavy_module(sample: Path) -> None:
    assert _imports(sample, "--version") == ["0"]


def test_cache_hit_imports_no_heavy_module(sample: Path) -> None:
    cold = _imports(sample, "check")
    assert cold[0] == "1"  # nothing built yet; this run fills the cache
    assert {"yaml", "dataclasses"} <= set(cold)  # the probe sees a real run's imports
    assert _imports(sample, "build")[0] == "0"
    assert _imports(sample, "check")[0] == "0"  # a miss: the build changed the outputs
    assert _imports(sample, "check") == ["0"]
    assert _imports(sample, "build", "-q") == ["0"]


def test_the_lookup_key_is_reused_once_by_the_run(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = cache.raw_layout(None, sample)
    assert found is not None
    layout = found[0]
    calls: list[str] = []
    real = cache._key

    def counting(*args: object) -> str | None:
        calls.append("hash")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(cache, "_key", counting)
    looked_up = cache.key(layout, "check", (), {})
    assert cache.key_before_run(layout, "check", (), {}) == looked_up
    assert len(calls) == 1  # the run reused the lookup's hash
    assert cache.key_before_run(layout, "check", (), {}) == looked_up
    assert len(calls) == 2  # once only: the next asks again
    cache.key(layout, "check", (), {})
    cache.key_before_run(layout, "build", (), {})
    assert len(calls) == 4  # another command's key is never reused


def test_a_fifo_in_the_trees_is_never_cached(sample: Path) -> None:
    import os

    os.mkfifo(sample / "fragments" / "pipe.md")
    assert _key(sample) is None


def test_a_symlinked_folder_is_never_cached(sample: Path, tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    (sample / "fragments" / "shared").symlink_to(tmp_path / "shared", target_is_directory=True)
    assert _key(sample) is None


def test_the_trees_are_every_regular_file_in_order(sample: Path) -> None:
    (sample / "fragments" / "deep" / "er").mkdir(parents=True)
    (sample / "fragments" / "deep" / "er" / "x.md").write_text("x\n")
    (sample / "fragments" / "deep-b.md").write_text("y\n")
    files = cache._tree(str(sample / "fragments"))
    assert files is not None
    names = [Path(f).relative_to(sample / "fragments").as_posix() for f in files]
    assert names == ["deep-b.md", "deep/er/x.md", "tone.md"]


@pytest.mark.parametrize("size", [0, 1, 100, 65536, 65537, 200_000])
@pytest.mark.parametrize("limit", [None, 0, 99, 100, 101, 150_000])
def test_read_regular_reads_what_a_buffered_read_reads(
    tmp_path: Path, size: int, limit: int | None
) -> None:
    path = tmp_path / "file"
    content = bytes(i % 251 for i in range(size))
    path.write_bytes(content)
    if limit is not None and size > limit:
        with pytest.raises(cache.Unreadable, match="is larger than"):
            cache.read_regular(path, limit)
    else:
        assert cache.read_regular(path, limit) == content


def test_read_regular_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "target").write_text("outside\n")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OSError):  # not followed
        cache.read_regular(tmp_path / "link")
    with pytest.raises(cache.Unreadable, match="not a regular file"):
        cache.read_regular(tmp_path / "fifo")  # and never blocks on it
    with pytest.raises(IsADirectoryError):
        cache.read_regular(tmp_path)


# --- after the run: an edit made meanwhile is never stored ------------------------------


@pytest.fixture
def edit_during_run(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], None]], None]:
    """Make the next real run do `edit` right after its inputs were hashed."""

    def arm(edit: Callable[[], None]) -> None:
        real = api.build

        def editing(*args: object, **kwargs: object) -> api.Result:
            monkeypatch.setattr(api, "build", real)
            edit()
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(api, "build", editing)

    return arm


def _same_size_edit(path: Path, old: str, new: str) -> Callable[[], None]:
    def edit() -> None:
        before = path.stat()
        text = path.read_text()
        assert old in text and len(old) == len(new)
        path.write_text(text.replace(old, new))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime as it was

    return edit


@pytest.mark.parametrize("settled", [True, False], ids=["settled", "recent"])
def test_an_input_edited_during_the_run_is_never_stored(
    sample: Path,
    run: Callable[..., Run],
    monkeypatch: pytest.MonkeyPatch,
    edit_during_run: Callable[[Callable[[], None]], None],
    settled: bool,
) -> None:
    """A same-size edit with its mtime put back: a settled file is caught by its
    ctime, a recent one by its hash. Had the result been stored under the key of
    the old bytes, putting them back would replay an answer about the new ones."""
    if settled:  # every file counts as changed long before the run
        monkeypatch.setattr(cache, "_SETTLED_NS", -(10**12))
    agent = sample / "specs/agents/scout.md"
    original = agent.read_text()
    edit_during_run(_same_size_edit(agent, "mode: subagent", "mode: subagnet"))
    edited = run("check")
    assert "subagnet" in edited.out
    agent.write_text(original)
    back = run("check")
    assert "subagnet" not in back.out  # not a stale hit on the old bytes' key


def test_settled_inputs_are_vouched_for_by_their_stat_data(
    sample: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the run, files that changed long before it are not read again."""
    monkeypatch.setattr(cache, "_SETTLED_NS", -(10**12))
    monkeypatch.setattr(cache, "_hash_ahead", lambda *args: None)  # read here, counted
    read: list[str] = []
    real_read, real_reading = cache._read, cache._Reading.read

    def counting(path: str) -> bytes:
        read.append(path)
        return real_read(path)

    def counting_reading(self: cache._Reading, path: str) -> bytes:
        read.append(path)
        return real_reading(self, path)

    monkeypatch.setattr(cache, "_read", counting)
    monkeypatch.setattr(cache._Reading, "read", counting_reading)
    assert run("build").code == 0
    inputs = [path for path in read if "/specs/" in path or "/fragments/" in path]
    assert inputs and len(inputs) == len(set(inputs))  # each read once: for the key only
    assert run("build").code == 0  # a hit: the result was stored
    assert "wrote" not in run("build").err


def test_recent_inputs_are_hashed_again(sample: Path) -> None:
    found = cache.raw_layout(None, sample)
    assert found is not None
    layout = found[0]
    digest = cache.key(layout, "check", (), {})
    assert digest is not None
    assert cache.unchanged(layout, "check", (), {}, digest)
    agent = sample / "specs/agents/scout.md"
    agent.write_text(agent.read_text())  # rewritten, same bytes: unchanged
    assert cache.unchanged(layout, "check", (), {}, digest)
    _same_size_edit(agent, "mode: subagent", "mode: subagnet")()
    assert not cache.unchanged(layout, "check", (), {}, digest)


@pytest.mark.parametrize("change", ["add", "remove", "replace"])
def test_a_file_that_came_went_or_was_replaced_is_a_change(
    sample: Path, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "_SETTLED_NS", -(10**12))  # stat data only
    found = cache.raw_layout(None, sample)
    assert found is not None
    layout = found[0]
    digest = cache.key(layout, "check", (), {})
    assert digest is not None
    agent = sample / "specs/agents/scout.md"
    if change == "add":
        (sample / "fragments/new.md").write_text("new\n")
    elif change == "remove":
        agent.unlink()
    else:  # the same bytes under a new inode, with the mtime put back
        text, before = agent.read_bytes(), agent.stat()
        agent.unlink()
        agent.write_bytes(text)
        os.utime(agent, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert all(isinstance(noted, tuple) for noted in cache._READINGS[digest].files.values())
    assert not cache.unchanged(layout, "check", (), {}, digest)


def test_without_a_reading_every_input_is_hashed_again(sample: Path) -> None:
    found = cache.raw_layout(None, sample)
    assert found is not None
    layout = found[0]
    digest = cache.key(layout, "check", (), {})
    assert digest is not None
    cache._READINGS.clear()
    assert cache.unchanged(layout, "check", (), {}, digest)
    (sample / "fragments/tone.md").write_text("Tono: otro.\n")
    cache._READINGS.clear()
    assert not cache.unchanged(layout, "check", (), {}, digest)


# --- outputs: recorded as the run left them, not read again -----------------------------


def test_outputs_are_recorded_as_written_without_reading_them(
    sample: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []
    real = cache.read_regular

    def counting(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
        read.append(os.fspath(path))
        return real(path, limit)

    monkeypatch.setattr(cache, "read_regular", counting)
    assert run("build").code == 0
    outputs = [p for p in read if "/build/" in p and not p.endswith(".promptc-manifest.json")]
    assert outputs == []
    assert "wrote" not in run("build").err  # recorded right: a hit
    read.clear()
    assert run("check").code == 0  # a check records what it compared
    outputs = [p for p in read if "/build/" in p and not p.endswith(".promptc-manifest.json")]
    assert outputs == []
    assert run("check").code == 0


def test_an_output_edited_right_after_the_build_is_a_miss(
    sample: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the build wrote is recorded, not what stands there when the entry is
    stored: an edit in between makes the next run a miss that reports it."""
    output = sample / "build/opencode/.opencode/agents/scout.md"
    real = cache.store

    def edit_then_store(*args: object, **kwargs: object) -> None:
        output.write_text(output.read_text() + "edited\n")
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cache, "store", edit_then_store)
    assert run("build").code == 0
    monkeypatch.setattr(cache, "store", real)
    stale = run("check")
    assert stale.code == 1
    assert "build/opencode/.opencode/agents/scout.md:1:1: error [stale-output]" in stale.out


def test_a_run_that_cannot_hit_hashes_its_inputs_in_a_child_while_it_imports(
    sample: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No stored result at all: the key is hashed by a forked child, collected
    before the run reads any input (the config first), used as it is (this
    process hashes nothing), and the result it stores is a hit next time."""
    events: list[str] = []
    real_ahead, real_await, real_key, real_load = (
        cache._hash_ahead,
        cache.await_key,
        cache.key,
        program.load,
    )

    def ahead(*args: Any) -> object:
        child = real_ahead(*args)
        events.append("fork" if child is not None else "no fork")
        return child

    def collect() -> None:
        events.append("collect")
        real_await()

    def key(*args: Any) -> str | None:
        events.append("hash here")
        return real_key(*args)

    def load(*args: Any) -> object:
        events.append("read config")
        return real_load(*args)

    monkeypatch.setattr(cache, "_hash_ahead", ahead)
    monkeypatch.setattr(cache, "await_key", collect)
    monkeypatch.setattr(cache, "key", key)
    monkeypatch.setattr(program, "load", load)
    assert not (sample / cache.FOLDER).exists()
    assert run("build").code == 0
    assert events == ["fork", "collect", "read config"]
    assert not cache._AHEAD  # collected
    events.clear()
    assert "wrote" not in run("build").err  # a hit
    assert events == ["hash here"]  # a bundle with stored results looks up first


@pytest.mark.parametrize("how", ["raise", "unpicklable", "not a key"])
def test_a_failed_key_child_is_hashed_here(
    sample: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    from compiler import split

    start = split.Helper.start.__func__  # type: ignore[attr-defined]

    def failing(cls: type[split.Helper], work: object) -> split.Helper | None:
        def broken(put: split.Put) -> object:
            if how == "raise":
                raise RuntimeError("the child broke")
            return (lambda: None) if how == "unpicklable" else "garbage"

        return start(cls, broken)  # type: ignore[no-any-return]

    hashed: list[object] = []
    real_key = cache.key
    monkeypatch.setattr(split.Helper, "start", classmethod(failing))
    monkeypatch.setattr(cache, "key", lambda *args: hashed.append(args) or real_key(*args))
    assert run("build").code == 0
    assert len(hashed) == 1  # hashed here, before the run read its inputs
    monkeypatch.undo()
    monkeypatch.chdir(sample)
    assert "wrote" not in run("build").err  # stored under the key computed here


def test_no_key_child_while_other_threads_run(sample: Path) -> None:
    import threading

    found = cache.raw_layout(None, sample)
    assert found is not None
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert cache._hash_ahead(found[0], "build", (), {}) is None
    finally:
        release.set()
        thread.join()
