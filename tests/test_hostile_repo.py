"""A hostile repository: a promptc.toml, a cache folder or an output folder made
to have promptc write or delete outside the project, hang, or lie.

Each case is reproduced as it was reported, with its neighbours. Each is
refused with a clear diagnostic (exit 2 for the config, 1 for the output) or
handled, and a sibling folder `outside/` (holding a user's files) is the same
byte for byte afterwards: nothing written or deleted outside the project.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from promptc_compiler.base import files
from promptc_compiler.core.config import load_config
from promptc_compiler.pipeline import cache, writer
from tests.conftest import AGENT, MakeBundle, Run, finished

Runner = Callable[..., Run]
Tree = dict[str, object]

# A spec that builds with no diagnostic at all, using the bundle's one fragment.
CLEAN = AGENT.replace("  bash: deny\n", '  bash:\n    "*": deny\n').replace(
    "# Scout", "<<tone>>\n\n# Scout"
)


def snapshot(folder: Path) -> Tree:
    """Every entry under `folder` as lstat sees it: a file's bytes, a link's target."""
    found: Tree = {}
    for top, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = Path(top, name)
            rel = path.relative_to(folder).as_posix()
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                found[rel] = "folder"
            elif path.is_file():
                found[rel] = path.read_bytes()
            else:
                found[rel] = "special"
    return found


@pytest.fixture(autouse=True)
def _own_user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache on, its secret in a user cache folder of this test's own."""
    monkeypatch.delenv("PROMPTC_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """A sibling of the project holding a user's files, the same after the test."""
    folder = tmp_path / "outside"
    (folder / "data").mkdir(parents=True)
    for i in range(30):
        (folder / "data" / f"{i:064x}.json").write_text(json.dumps({"user": i}))
        (folder / "data" / f"notes-{i}.json").write_text("{}\n")
    (folder / "elsewhere").mkdir()
    before = snapshot(folder)
    yield folder
    assert snapshot(folder) == before, "something outside the project was written or deleted"


@pytest.fixture
def bundle(make_bundle: MakeBundle, outside: Path) -> Path:  # noqa: ARG001 (its teardown checks)
    """A clean bundle next to `outside`: it builds with exit 0."""
    return make_bundle(
        {
            "promptc.toml": "",
            "specs/agents/scout.md": CLEAN,
            "fragments/tone.md": "Tono: directo.\n",
        }
    )


def config(text: str) -> None:
    Path("promptc.toml").write_text(text)


# --- the config: folders outside the project, output over the sources ------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('out = "/"\n', '`out = "/"` leads outside the project'),
        ('out = ".."\n', '`out = ".."` leads outside the project'),
        ('out = "{outside}"\n', "leads outside the project"),
        ('out = "specs"\n', '`out = "specs"` lies in the sources (`specs`)'),
        ('specs = "../../../../etc"\n', '`specs = "../../../../etc"` leads outside the project'),
        # Neighbours.
        ('out = "build/../../outside"\n', "leads outside the project"),
        ('out = "specs/agents"\n', "lies in the sources (`specs`)"),
        ('out = "fragments"\n', "lies in the sources (`fragments`)"),
        ('fragments = "../outside"\n', '`fragments = "../outside"` leads outside the project'),
        ('fragments = "/etc"\n', "leads outside the project"),
        ('specs = "."\n', '`specs = "."` is the whole project'),
        ('out = ".promptc-cache"\n', "lies in promptc's result cache"),
        ('out = ".promptc-cache/build"\n', "lies in promptc's result cache"),
    ],
)
@pytest.mark.parametrize("command", ["build", "check", "lint"])
def test_a_folder_outside_the_project_is_a_config_error(
    bundle: Path, outside: Path, run: Runner, command: str, text: str, message: str
) -> None:
    config(text.format(outside=outside / "elsewhere"))
    top = sorted(os.listdir("/"))
    result = run(command)
    assert result.code == 2, result.err
    assert result.err.startswith("promptc: promptc.toml:1:1: "), result.err
    assert message in result.err
    assert result.out == ""
    assert sorted(os.listdir("/")) == top  # out = "/" wrote nothing there
    assert sorted(p.name for p in bundle.iterdir()) == ["fragments", "promptc.toml", "specs"]


@pytest.mark.usefixtures("bundle")
def test_a_layout_error_in_pyproject_is_at_the_key_line(run: Runner) -> None:
    Path("promptc.toml").unlink()
    Path("pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.promptc]\nspecs = "specs"\nout = "../outside"\n'
    )
    result = run("build")
    assert result.code == 2
    assert result.err.startswith('promptc: pyproject.toml:6:1: `out = "../outside"` leads outside')


def test_a_symlinked_source_folder_leading_outside_is_a_config_error(
    make_bundle: MakeBundle, outside: Path, run: Runner
) -> None:
    make_bundle({"promptc.toml": "", "fragments/tone.md": "Tono.\n"})
    os.rmdir("specs")
    os.symlink(outside / "elsewhere", "specs")
    result = run("lint")
    assert result.code == 2
    assert '`specs = "specs"` (the default) leads outside the project through a symlink' in (
        result.err
    )


def test_the_project_root_as_output_builds_beside_the_sources(bundle: Path, run: Runner) -> None:
    """`out = "."` stays allowed: the targets' folders go next to the sources."""
    config('out = "."\n')
    sources = snapshot(bundle / "specs"), snapshot(bundle / "fragments")
    assert run("build").code == 0
    assert (bundle / "opencode/.opencode/agents/scout.md").is_file()
    assert (bundle / writer.MANIFEST).is_file()
    assert run("check").code == 0
    assert (snapshot(bundle / "specs"), snapshot(bundle / "fragments")) == sources


def test_the_project_root_as_output_never_removes_a_source(bundle: Path, run: Runner) -> None:
    """A manifest at the root naming a spec, with the spec's own hash: the build
    would have removed it as a file it no longer generates."""
    config('out = "."\n')
    spec = bundle / "specs/agents/scout.md"
    manifest = {"specs/agents/scout.md": [writer.digest(spec.read_bytes())]}
    body = {"generator": "promptc", "format": 1, "files": manifest}
    Path(writer.MANIFEST).write_text(json.dumps(body))
    result = run("build")
    assert result.code == 1
    assert (
        "specs/agents/scout.md:1:1: error [write] `specs/agents` lies in the sources (`specs`)"
        in (result.out)
    )
    assert spec.read_text() == CLEAN


def test_a_target_folder_named_like_a_source_is_never_written(bundle: Path, run: Runner) -> None:
    """`out = "."` with the sources in `opencode/`: the target's files would go there."""
    os.rename("specs", "opencode")
    config('out = "."\nspecs = "opencode"\n')
    before = snapshot(bundle / "opencode")
    result = run("build")
    assert result.code == 1
    assert "lies in the sources (`opencode`); promptc never writes there" in result.out
    assert snapshot(bundle / "opencode") == before


@pytest.mark.usefixtures("bundle")
def test_a_config_that_is_a_fifo_never_blocks() -> None:
    """`--config` is read by the cache's lookup before the config is loaded."""
    os.mkfifo("fifo.toml")
    done = _promptc("lint", "--config", "fifo.toml")
    assert done.returncode == 2
    assert "fifo.toml: config file not found" in done.stderr


@pytest.mark.usefixtures("bundle")
def test_a_huge_config_is_refused_unread(outside: Path, run: Runner) -> None:
    huge = outside / "elsewhere" / "huge.toml"
    with huge.open("wb") as handle:
        handle.truncate(300 << 20)
    try:
        os.remove("promptc.toml")
        os.symlink(huge, "promptc.toml")
        result = run("lint")
    finally:
        huge.unlink()  # the folder outside as it was
    assert result.code == 2
    assert "promptc.toml: cannot read config: larger than 4,194,304 bytes" in result.err


# --- several bad keys: every one, each at its line ---------------------------------------


def test_every_bad_key_is_reported_at_its_line(bundle: Path, run: Runner) -> None:
    config('specz = "specs"\nout = "/"\nfragments = 3\n\ncache = "no"\n')
    result = run("lint")
    assert result.code == 2
    assert result.err.splitlines() == [
        "promptc: promptc.toml:1:1: unknown key 'specz' at the top level (did you mean `specs`?)",
        'promptc.toml:2:1: `out = "/"` leads outside the project '
        f"({bundle.resolve()}, the folder holding promptc.toml); promptc writes only inside it",
        "promptc.toml:3:1: [fragments]: expected a string, found the number 3",
        "promptc.toml:5:1: [cache]: expected true or false, found the text 'no'",
    ]


@pytest.mark.usefixtures("bundle")
def test_every_bad_table_is_reported_at_its_line(run: Runner) -> None:
    """The targets' and the rules' tables are checked after the config loads:
    their problems too come all at once."""
    config("[targets.opencod]\n\n[rules.nope]\n")
    result = run("lint")
    assert result.code == 2
    lines = result.err.splitlines()
    assert lines[0].startswith("promptc: promptc.toml:1:1: unknown target 'opencod'")
    assert lines[1].startswith("promptc.toml:3:1: unknown rule 'nope'")
    assert len(lines) == 2


@pytest.mark.usefixtures("bundle")
def test_every_bad_option_of_one_table_is_reported(run: Runner) -> None:
    config("[rules.description-length]\nmin = 3\nmxa = 4\nmni = 5\n")
    result = run("lint")
    assert result.code == 2
    lines = result.err.splitlines()
    assert lines[0].startswith("promptc: promptc.toml:3:1: unknown key 'mxa'")
    assert lines[1].startswith("promptc.toml:4:1: unknown key 'mni'")


# --- the output folder a symlink ------------------------------------------------------


@pytest.mark.parametrize("args", [("build",), ("build", "--force"), ("check",)])
@pytest.mark.usefixtures("bundle")
def test_an_output_folder_that_is_a_symlink_is_refused(
    outside: Path, run: Runner, args: tuple[str, ...]
) -> None:
    os.symlink(outside / "elsewhere", "build")
    result = run(*args)
    assert result.code == 1
    rule = "stale-output" if args == ("check",) else "write"
    assert result.out.splitlines() == [
        f"build:1:1: error [{rule}] `build` is a symlink (to {outside / 'elsewhere'}); "
        "promptc never writes through one"
    ]


@pytest.mark.usefixtures("bundle")
def test_an_output_folder_behind_a_symlinked_folder_is_refused(outside: Path, run: Runner) -> None:
    os.symlink(outside / "elsewhere", "gen")
    config('out = "gen/build"\n')
    result = run("build")
    assert result.code == 1
    assert "error [write] `gen` is a symlink" in result.out
    assert not (outside / "elsewhere/build").exists()


@pytest.mark.usefixtures("bundle")
def test_a_symlink_to_a_folder_inside_the_project_is_not_followed_either(run: Runner) -> None:
    Path("real").mkdir()
    os.symlink("real", "build")
    result = run("build")
    assert result.code == 1
    assert "`build` is a symlink (to real)" in result.out
    assert list(Path("real").iterdir()) == []


# --- the cache folder -----------------------------------------------------------------


@pytest.mark.usefixtures("bundle")
def test_a_symlinked_cache_folder_is_never_used(outside: Path, run: Runner) -> None:
    """Pruning deleted 15 of the 30 `.json` files the cache folder led to."""
    os.symlink(outside / "data", cache.FOLDER)
    for _ in range(3):
        assert run("build").code == 0
        Path("fragments/tone.md").write_text(Path("fragments/tone.md").read_text() + "más\n")
    assert os.path.islink(cache.FOLDER)


@pytest.mark.usefixtures("bundle")
def test_files_in_the_cache_folder_it_did_not_write_are_never_pruned(run: Runner) -> None:
    """Named like entries, in a real cache folder: not sealed, so not promptc's."""
    folder = Path(cache.FOLDER)
    folder.mkdir()
    foreign = {f"{i:064x}.json": json.dumps({"user": i}) for i in range(30)}
    for name, text in foreign.items():
        (folder / name).write_text(text)
        os.utime(folder / name, (1e9, 1e9))  # older than any entry: pruned first, were they
    assert run("lint").code == 0
    probe = cache.key(cache.layout(load_config()), cache.mode("lint"), (), os.environ)
    assert probe is not None
    for version in range(cache.KEEP + 2):  # more results than the cache keeps
        cache.store(probe._replace(digest=f"{version:x}".rjust(64, "f")), [], None)
    assert {name: (folder / name).read_text() for name in foreign} == foreign
    ours = [p for p in folder.glob("*.json") if p.name not in foreign]
    assert len(ours) == cache.KEEP  # the entries it wrote are still pruned


@pytest.mark.usefixtures("bundle")
def test_a_dangling_symlink_at_the_gitignore_is_not_written_through(
    outside: Path, run: Runner
) -> None:
    Path(cache.FOLDER).mkdir()
    os.symlink(outside / "created-by-promptc", Path(cache.FOLDER, ".gitignore"))
    assert run("lint").code == 0
    assert run("lint").code == 0
    assert not (outside / "created-by-promptc").exists()
    assert len(list(Path(cache.FOLDER).glob("*.json"))) == 1  # the cache still works


def _live_entry(root: Path, command: str = "lint") -> Path:
    """Where the result of `promptc <command>` in `root` is stored, now."""
    probe = cache.key(cache.layout(load_config(cwd=root)), cache.mode(command), (), os.environ)
    assert probe is not None
    return root / cache.FOLDER / f"{probe.digest}.json"


def _promptc(*args: str) -> subprocess.CompletedProcess[str]:
    """promptc in a process of its own, here: were it to hang, the test fails."""
    return finished(Path.cwd(), *args, hung=f"promptc {' '.join(args)} did not finish")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "dangling"])
def test_a_special_file_at_the_live_entry_never_blocks(bundle: Path, kind: str) -> None:
    entry = _live_entry(bundle)
    entry.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "dev-zero":
        os.symlink("/dev/zero", entry)
    else:
        os.symlink("missing.json", entry)
    done = _promptc("lint")
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr


def test_a_huge_entry_at_the_live_key_is_refused_unread(
    bundle: Path, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = _live_entry(bundle)
    entry.parent.mkdir()
    with entry.open("wb") as handle:
        handle.truncate(300 << 20)  # sparse: 300 MB that take no disk
    sizes: list[int] = []
    real = files._read_to_end

    def reading(fd: int, size: int, cap: int | None) -> bytes:
        sizes.append(size)
        return real(fd, size, cap)

    monkeypatch.setattr(files, "_read_to_end", reading)
    assert run("lint").code == 0
    assert sizes
    assert max(sizes) < cache.MAX_ENTRY_BYTES


def _forge(entry: Path, digest: str, secret: bytes | None) -> None:
    """An entry saying the run was clean: unsealed, or sealed with `secret`."""
    body = json.dumps(
        {"format": cache.FORMAT, "key": digest, "outputs": None, "listing": None, "diagnostics": []}
    ).encode()
    entry.parent.mkdir(exist_ok=True)
    entry.write_bytes(body if secret is None else cache._seal(secret, digest, body))


@pytest.mark.parametrize("sealed", [False, True], ids=["unsealed", "another-machine"])
def test_a_forged_entry_at_the_live_key_is_never_replayed(
    bundle: Path, run: Runner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, sealed: bool
) -> None:
    """A committed cache claiming a failing bundle is clean: `check` must still fail."""
    Path("specs/agents/scout.md").write_text(CLEAN.replace("mode: subagent", "mode: subagnet"))
    entry = _live_entry(bundle, "check")
    # Sealed with the committer's own secret, which this machine does not hold.
    committer = {"XDG_CACHE_HOME": str(tmp_path / "committer")}
    secret = cache._secret(cache.user_folder(committer), create=True) if sealed else None
    _forge(entry, entry.stem, secret)
    result = run("check")
    assert result.code == 1
    assert "subagnet" in result.out
    if sealed:  # the seal is what refuses it: on the committer's machine it verifies
        monkeypatch.setenv("XDG_CACHE_HOME", committer["XDG_CACHE_HOME"])
        _forge(entry, entry.stem, secret)
        assert run("check").code == 0


# --- the lock -------------------------------------------------------------------------


@pytest.fixture
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Fail on the first wait for the lock; the waits asked for otherwise."""
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        raise AssertionError("the build waited for the lock")

    monkeypatch.setattr(time, "sleep", sleep)  # the module writer sleeps with
    return waits


def _dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", ""])
    done.wait()
    return done.pid


def _plant_lock(text: str) -> Path:
    lock = Path("build") / writer.LOCK
    lock.parent.mkdir(exist_ok=True)
    lock.write_text(text)
    return lock


@pytest.mark.usefixtures("bundle")
def test_a_lock_of_a_dead_build_on_this_host_is_taken_over_at_once(
    run: Runner, no_waiting: list[float]
) -> None:
    lock = _plant_lock(f"pid {_dead_pid()}\nhost {writer.host_name()}\ntoken 00\n")
    assert run("build").code == 0
    assert not lock.exists()
    assert no_waiting == []


@pytest.mark.parametrize(
    "text",
    [
        "pid {live}\nhost {host}\ntoken 00\n",  # a build that runs
        "pid {dead}\nhost another-host\ntoken 00\n",  # another machine's: its pid says nothing
        "{dead}\n",  # an older promptc's: no host
        "pid 0\nhost {host}\ntoken 00\n",  # os.kill(0, 0) would ask the process group
        "pid -1\nhost {host}\ntoken 00\n",
        "",  # being written, or garbage
    ],
    ids=["live", "other-host", "pid-alone", "pid-0", "pid-minus-1", "empty"],
)
@pytest.mark.usefixtures("bundle")
def test_a_lock_whose_owner_may_run_is_waited_for(
    run: Runner, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    asked: list[int] = []
    real_kill = os.kill

    def kill(pid: int, sig: int) -> None:
        asked.append(pid)
        real_kill(pid, sig)

    monkeypatch.setattr(os, "kill", kill)
    monkeypatch.setattr(writer, "_WAIT_SECONDS", 0.0)
    host, live, dead = writer.host_name(), os.getppid(), _dead_pid()
    lock = _plant_lock(text.format(host=host, live=live, dead=dead))
    result = run("build")
    assert result.code == 1
    assert "error [write] cannot write the output: another promptc build (pid " in result.out
    assert lock.read_text() == text.format(host=host, live=live, dead=dead)  # not ours
    assert all(pid > 0 for pid in asked)


@pytest.mark.usefixtures("bundle")
def test_a_lock_write_that_fails_leaves_no_lock(
    run: Runner, monkeypatch: pytest.MonkeyPatch, no_waiting: list[float]
) -> None:
    """A full disk at the lock's first write: the next build must not wait for it."""
    full = [True]
    write = files._write_to_end

    def full_disk(fd: int, content: bytes) -> None:
        if full[0]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write(fd, content)

    # The lock's bytes go through files.write_new (a descriptor made exclusively).
    monkeypatch.setattr(files, "_write_to_end", full_disk)
    result = run("build")
    assert result.code == 1
    assert "No space left on device" in result.out
    assert not (Path("build") / writer.LOCK).exists()
    full[0] = False
    assert run("build").code == 0  # no_waiting: it did not wait for a lock
    assert no_waiting == []
