"""The result cache: a warm run skips the pipeline, and no change ever gets a stale answer."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from promptc_compiler import api
from promptc_compiler.base import files
from promptc_compiler.core import loader, resources
from promptc_compiler.core.config import load_config
from promptc_compiler.pipeline import cache

from .conftest import AGENT, MakeBundle, Run, every_field


@pytest.fixture
def pipeline_runs(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """One entry per real run of the pipeline (a cache hit adds none)."""
    calls: list[bool] = []
    real = api._render

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(True)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "_render", counting)
    return calls


@pytest.fixture(autouse=True)
def _cache_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The cache on, the secret that seals its entries in a user cache folder of
    the test's own."""
    monkeypatch.delenv("PROMPTC_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


def test_second_check_is_a_hit_with_the_same_report(
    sample: Path, run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    assert run("build").code == 0
    first = run("check")
    second = run("check")
    assert (first.code, second.code) == (0, 0)
    assert second.out == first.out
    assert second.err == first.err
    assert len(pipeline_runs) == 2  # build and the first check; the second check was a hit
    assert (sample / ".promptc-cache" / ".gitignore").read_text().endswith("*\n")


@pytest.mark.usefixtures("sample")
def test_warm_build_writes_nothing_and_says_so(
    run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    assert "wrote" in run("build").err
    again = run("build")
    assert again.code == 0
    assert "wrote" not in again.err
    assert len(pipeline_runs) == 1


def test_cached_diagnostics_keep_every_field(
    sample: Path, run: Callable[..., Run], pipeline_runs: list[bool]
) -> None:
    agent = sample / "specs/agents/scout.md"
    agent.write_text(agent.read_text().replace("mode: subagent", "mode: subagnet"))
    first = run("check", "--format", "json")
    second = run("check", "--format", "json")
    assert first.code == second.code == 1
    assert second.out == first.out
    assert "subagnet" in first.out
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


@pytest.mark.usefixtures("pipeline_runs")
def test_check_and_build_do_not_share_entries(sample: Path, run: Callable[..., Run]) -> None:
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


def _probe(
    root: Path, environ: dict[str, str] | None = None, command: str = "check"
) -> cache.Key | None:
    """The key of `promptc <command>` in `root` now, on the bundle its config describes."""
    layout = cache.layout(load_config(cwd=root))
    return cache.key(layout, cache.mode(command), (), os.environ if environ is None else environ)


def _key(root: Path, environ: dict[str, str] | None = None) -> str | None:
    probe = _probe(root, environ)
    return None if probe is None else probe.digest


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
    before = _key(sample)
    assert _key(sample) == before  # the same bytes give the same key
    schema = copy / "agent.schema.json"
    schema.write_text(schema.read_text().replace('"description"', '"description" ', 1))
    assert _key(sample) != before


def test_key_follows_the_runtimes_package_data(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A runtime's schemas and override keys are JSON inside the package: a change
    to one is a change of promptc, as a change to its code is; promptc's files
    are known by their size and modification time, as Python knows its modules."""
    before = _key(sample)
    real = os.stat

    def edited(size: int, nanoseconds: int) -> Callable[..., Any]:
        def stat(path: str, *args: Any, **kwargs: Any) -> Any:
            info = real(path, *args, **kwargs)
            if not str(path).endswith("overrides.json"):
                return info
            return SimpleNamespace(
                st_size=info.st_size + size, st_mtime_ns=info.st_mtime_ns + nanoseconds
            )

        return stat

    for size, nanoseconds in ((1, 0), (0, 1)):  # a byte more; rewritten as long
        monkeypatch.setattr(os, "stat", edited(size, nanoseconds))
        assert _key(sample) != before
    monkeypatch.setattr(os, "stat", real)
    assert _key(sample) == before


def test_the_cache_reads_the_bundle_the_config_names(
    make_bundle: MakeBundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The config found as the pipeline finds it ([tool.promptc] in a pyproject.toml
    above the working directory), with folders of its own: those are the inputs."""
    root = make_bundle(
        {
            "pyproject.toml": '[tool.promptc]\nspecs = "prompts"\nfragments = "parts"\n',
            "prompts/agents/scout.md": AGENT.replace("# Scout", "<<tone>>\n\n# Scout"),
            "parts/tone.md": "Tono: directo.\n",
            "docs/readme.md": "A folder to run from.\n",
        }
    )
    monkeypatch.chdir(root / "docs")
    assert api.lint(load_config(), cache=True).ok
    assert _stored(root / "docs") is not None
    (root / "parts/tone.md").write_text("Tono: otro.\n")
    assert _stored(root / "docs") is None
    assert api.lint(load_config(), cache=True).ok
    (root / "specs/agents").mkdir(parents=True)
    (root / "specs/agents/stray.md").write_text("---\ndescription: x\n---\nNot read.\n")
    assert _stored(root / "docs") is not None  # not in the config's folders: not an input


def test_key_follows_home(sample: Path) -> None:
    assert _key(sample, {"HOME": "/home/a"}) != _key(sample, {"HOME": "/home/b"})


def test_new_file_anywhere_in_the_trees_is_a_miss(sample: Path) -> None:
    before = _key(sample)
    (sample / "fragments/notes.txt").write_text("stray\n")
    assert _key(sample) != before


def test_symlinked_bundle_is_never_cached(sample: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.md").write_text("Tono: afuera.\n")
    (sample / "fragments/linked.md").symlink_to(tmp_path / "elsewhere.md")
    assert _key(sample) is None


def test_a_fifo_in_the_trees_is_never_cached(sample: Path) -> None:
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
def test_read_regular_reads_the_whole_file_within_its_limit(
    tmp_path: Path, size: int, limit: int | None
) -> None:
    path = tmp_path / "file"
    content = bytes(i % 251 for i in range(size))
    path.write_bytes(content)
    if limit is not None and size > limit:
        with pytest.raises(files.TooLarge, match="larger than"):
            files.read_regular(path, limit)
    else:
        assert files.read_regular(path, limit) == content


def test_read_regular_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "target").write_text("outside\n")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(files.NotRegular, match="not a regular file but a symlink"):
        files.read_regular(tmp_path / "link")  # not followed
    assert files.read_regular(tmp_path / "link", follow_symlinks=True) == b"outside\n"
    with pytest.raises(files.NotRegular, match="not a regular file but a FIFO"):
        files.read_regular(tmp_path / "fifo")  # and never blocks on it
    with pytest.raises(files.NotRegular, match="not a regular file but a folder"):
        files.read_regular(tmp_path)


# --- after the run: an edit made meanwhile is never stored ------------------------------


@pytest.fixture
def edit_during_run(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], None]], None]:
    """Make the next real run do `edit` right after its inputs were hashed."""

    def arm(edit: Callable[[], None]) -> None:
        real = api._render

        def editing(*args: object, **kwargs: object) -> object:
            monkeypatch.setattr(api, "_render", real)
            edit()
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(api, "_render", editing)

    return arm


def _same_size_edit(path: Path, old: str, new: str) -> Callable[[], None]:
    def edit() -> None:
        before = path.stat()
        text = path.read_text()
        assert old in text
        assert len(old) == len(new)
        path.write_text(text.replace(old, new))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime as it was

    return edit


def test_an_input_edited_during_the_run_is_never_stored(
    sample: Path,
    run: Callable[..., Run],
    edit_during_run: Callable[[Callable[[], None]], None],
) -> None:
    """A same-size edit with its mtime put back, made after the inputs were
    hashed: the run loads the bytes it hashed, so what it stores is the answer
    for them. The edit is the next run's miss; putting the old bytes back
    replays the answer about them, never one about the edit."""
    agent = sample / "specs/agents/scout.md"
    original = agent.read_text()
    edit_during_run(_same_size_edit(agent, "mode: subagent", "mode: subagnet"))
    during = run("check")
    assert "subagnet" not in during.out  # read once, before the edit
    edited = run("check")
    assert "subagnet" in edited.out  # the edited bytes have a key of their own
    agent.write_text(original)
    back = run("check")
    assert "subagnet" not in back.out  # not a stale hit on the edited bytes' answer


def test_a_file_the_run_reads_itself_edited_during_the_run_is_never_stored(
    sample: Path,
    run: Callable[..., Run],
    pipeline_runs: list[bool],
    edit_during_run: Callable[[Callable[[], None]], None],
) -> None:
    """A skill's supporting file is read by the run, not taken from the key's
    bytes: it is hashed again after the run. Had the result been stored, the
    old bytes put back would replay an answer about the edit."""
    skill = sample / "specs/skills/tone"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: tone\ndescription: Sets the tone of every answer.\n---\nSpeak plainly.\n"
    )
    notes = skill / "notes.txt"
    notes.write_text("version 1\n")
    edit_during_run(_same_size_edit(notes, "version 1", "version 2"))
    run("build")
    notes.write_text("version 1\n")
    run("build")
    assert len(pipeline_runs) == 2  # the first run's result was not stored
    assert (sample / "build/opencode/.opencode/skills/tone/notes.txt").read_text() == "version 1\n"


@pytest.mark.usefixtures("sample")
def test_each_input_is_read_once_for_the_key_and_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loader takes the bytes the key hashed, and the check after the run
    does not read them again."""
    read: list[str] = []
    real = files.read_regular

    def counting(path: str | os.PathLike[str], limit: int | None = None, **kwargs: bool) -> bytes:
        read.append(os.fspath(path))
        return real(path, limit, **kwargs)

    monkeypatch.setattr(cache, "read_regular", counting)
    monkeypatch.setattr(loader, "read_regular", counting)
    assert api.build(load_config(), cache=True).ok
    specs = [path for path in read if "/specs/" in path]
    assert specs
    assert sorted(specs) == sorted(set(specs))


def test_inputs_are_hashed_again_after_the_run(sample: Path) -> None:
    probe = _probe(sample)
    assert probe is not None
    assert cache.unchanged(probe)
    agent = sample / "specs/agents/scout.md"
    agent.write_text(agent.read_text())  # rewritten, same bytes: unchanged
    assert cache.unchanged(probe)
    _same_size_edit(agent, "mode: subagent", "mode: subagnet")()
    assert not cache.unchanged(probe)


def test_files_the_run_took_from_the_key_are_not_hashed_again(sample: Path) -> None:
    probe = _probe(sample)
    assert probe is not None
    agent = next(path for path in probe.inputs if path.endswith("scout.md"))
    _same_size_edit(Path(agent), "mode: subagent", "mode: subagnet")()
    assert not cache.unchanged(probe)
    assert cache.unchanged(probe, taken={agent})  # the run loaded the bytes the key hashed


@pytest.mark.parametrize("change", ["add", "remove"])
def test_a_file_that_came_or_went_is_a_change(sample: Path, change: str) -> None:
    probe = _probe(sample)
    assert probe is not None
    if change == "add":
        (sample / "fragments/new.md").write_text("new\n")
    else:
        (sample / "specs/agents/scout.md").unlink()
    assert not cache.unchanged(probe)


# --- outputs: recorded as the run left them, not read again -----------------------------


@pytest.mark.usefixtures("sample")
def test_outputs_are_recorded_as_written_without_reading_them(
    run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []
    real = files.read_regular

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


@pytest.mark.usefixtures("sample")
def test_a_run_hashes_its_inputs_once_to_look_up_and_to_store(
    monkeypatch: pytest.MonkeyPatch, pipeline_runs: list[bool]
) -> None:
    """One key per run: the lookup's, which the result is stored under on a miss."""
    hashed: list[str] = []
    real = cache._inputs

    def counting(layout: cache.Layout, read: dict[str, bytes] | None = None) -> object:
        hashed.append("")
        return real(layout, read)

    monkeypatch.setattr(cache, "_inputs", counting)
    assert api.build(load_config(), cache=True).ok  # a miss: run, then stored
    assert (len(hashed), len(pipeline_runs)) == (1, 1)  # after it, cache.unchanged
    again = api.build(load_config(), cache=True)
    assert (len(hashed), len(pipeline_runs)) == (2, 1)  # a hit: the pipeline did not run
    assert again.diagnostics == ()
    assert again.written == ()


# --- lint -------------------------------------------------------------------------------


def _stored(root: Path, command: str = "lint") -> cache.Hit | None:
    """What the cache holds for `promptc <command>` in `root` now (nothing runs)."""
    probe = _probe(root, command=command)
    return None if probe is None else cache.lookup(probe)


def _lint_hit(root: Path) -> cache.Hit | None:
    return _stored(root)


def test_a_stored_lint_is_a_hit_with_every_field(sample: Path) -> None:
    agent = sample / "specs/agents/scout.md"
    agent.write_text(agent.read_text().replace("mode: subagent", "mode: subagnet"))
    assert _lint_hit(sample) is None
    linted = api.lint(load_config(), cache=True)
    assert not linted.ok
    hit = _lint_hit(sample)
    assert hit is not None
    assert every_field(hit.diagnostics) == every_field(linted.diagnostics)


def test_a_changed_spec_misses_the_stored_lint(sample: Path) -> None:
    api.lint(load_config(), cache=True)
    assert _lint_hit(sample) is not None
    (sample / "fragments/tone.md").write_text("Tono: otro.\n")
    assert _lint_hit(sample) is None


def test_lint_ignores_the_output_folder_and_shares_no_entry(sample: Path) -> None:
    """A lint result holds whatever build/ holds; a check or build is another run."""
    api.lint(load_config(), cache=True)
    assert _stored(sample, "check") is None
    assert api.build(load_config()).ok
    assert _lint_hit(sample) is not None


def test_lint_with_fix_or_a_config_that_says_no_is_never_stored(sample: Path) -> None:
    api.lint(load_config(), fix=True, cache=True)
    assert not (sample / cache.FOLDER).exists()
    (sample / "promptc.toml").write_text("cache = false\n")
    api.lint(load_config(), cache=True)
    assert not (sample / cache.FOLDER).exists()


# --- entries: sealed, and only ever this user's -----------------------------------------


def test_an_entry_is_sealed_with_a_secret_kept_outside_the_project(
    sample: Path, tmp_path: Path
) -> None:
    api.lint(load_config(), cache=True)
    [entry] = (sample / cache.FOLDER).glob("*.json")
    head, _, body = entry.read_bytes().partition(b"\n")
    assert head.startswith(cache.SEAL)
    assert json.loads(body)["key"] == entry.stem
    secret = tmp_path / "user-cache/promptc" / cache.SECRET
    assert len(secret.read_bytes()) == 2 * cache.SECRET_BYTES
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert not any(p.name == cache.SECRET for p in sample.rglob("*"))


@pytest.mark.parametrize("change", ["body", "seal", "unsealed", "other-secret"])
def test_an_entry_whose_seal_does_not_verify_is_a_miss(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    agent = sample / "specs/agents/scout.md"
    agent.write_text(agent.read_text().replace("mode: subagent", "mode: subagnet"))
    api.lint(load_config(), cache=True)
    assert _lint_hit(sample) is not None
    [entry] = (sample / cache.FOLDER).glob("*.json")
    head, _, body = entry.read_bytes().partition(b"\n")
    clean = body.replace(json.dumps(json.loads(body)["diagnostics"]).encode(), b"[]")
    assert clean != body
    if change == "body":  # the verdict edited: "no problems"
        entry.write_bytes(head + b"\n" + clean)
    elif change == "seal":
        entry.write_bytes(head[:-1] + (b"0" if head[-1:] != b"0" else b"1") + b"\n" + body)
    elif change == "unsealed":
        entry.write_bytes(body)
    else:  # the same entry, but this user's cache folder holds another secret
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another-user"))
    assert _lint_hit(sample) is None


def test_without_a_user_cache_folder_nothing_is_cached(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("XDG_CACHE_HOME", "HOME", "LOCALAPPDATA"):
        monkeypatch.delenv(name, raising=False)
    api.lint(load_config(), cache=True)
    assert not (sample / cache.FOLDER).exists()
    assert _lint_hit(sample) is None


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"}, "/x/cache/promptc"),
        ({"XDG_CACHE_HOME": "relative", "HOME": "/home/u"}, "/home/u/.cache/promptc"),
        ({"HOME": "/home/u"}, "/home/u/.cache/promptc"),
        ({"HOME": "relative"}, None),
        ({}, None),
    ],
)
def test_the_user_cache_folder(environ: dict[str, str], expected: str | None) -> None:
    if sys.platform == "darwin" and expected and "XDG" not in str(environ):
        expected = "/home/u/Library/Caches/promptc"
    assert cache.user_folder(environ) == expected


def test_a_cache_folder_that_is_not_a_real_folder_is_never_used(
    sample: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (sample / cache.FOLDER).symlink_to(elsewhere, target_is_directory=True)
    api.lint(load_config(), cache=True)
    assert list(elsewhere.iterdir()) == []
    (sample / cache.FOLDER).unlink()
    api.lint(load_config(), cache=True)  # stored in a real folder
    os.rename(sample / cache.FOLDER, elsewhere / "real")
    (sample / cache.FOLDER).symlink_to(elsewhere / "real", target_is_directory=True)
    assert _lint_hit(sample) is None  # a lookup does not follow it either
