"""The output folder under attack and under failure: an OSError or a SIGKILL in
the middle of `promptc build`, a read-only folder, two builds at once, and a
build/ whose manifest or symlinks try to make promptc write or delete outside.

After any of them build/ is consistent (each file its old or its new bytes,
the manifest vouching for it), the next build repairs everything, and nothing
outside build/ is touched. Failures are `[write]` diagnostics with exit 1,
never exit 3.
"""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from promptc_compiler import api
from promptc_compiler.base import confine
from promptc_compiler.base.confine import Area
from promptc_compiler.base.diagnostics import Severity
from promptc_compiler.core.config import load_config
from promptc_compiler.pipeline import writer
from tests.conftest import AGENT, MakeBundle, Run

pytestmark = pytest.mark.slow

Runner = Callable[..., Run]

OUT = Path("build")
SCOUT = OUT / "opencode/.opencode/agents/scout.md"
MANIFEST = OUT / writer.MANIFEST


def generated(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name not in (writer.MANIFEST, writer.LOCK)
    }


def assert_consistent(out: Path, allowed: Mapping[str, set[bytes]]) -> None:
    """Every file holds bytes some build produced, vouched for by the manifest."""
    manifest = writer.load_manifest(out)[0]
    for rel, content in generated(out).items():
        if ".promptc-" in rel:
            continue  # a temp file a kill left: cleared by the next build
        assert content in allowed.get(rel, set()), f"{rel} holds bytes no build produced"
        assert writer.digest(content) in manifest.get(rel, ()), f"{rel}: manifest does not know it"


def write_agents(root: Path, count: int, version: int) -> None:
    folder = root / "specs/agents"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        body = AGENT.replace("Lee el código", f"Versión {version}, agente {i}: lee el código")
        (folder / f"agent-{i:03}.md").write_text(body)


def expected_files(root: Path) -> dict[str, bytes]:
    result = api.render(load_config(cwd=root))
    assert not [d for d in result.diagnostics if d.severity is Severity.ERROR]
    return dict(result.files)


def promptc(root: Path, *args: str, output: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "promptc_compiler", *args], cwd=root, stdout=output, stderr=output
    )


def edit_scout() -> None:
    source = Path("specs/agents/scout.md")
    source.write_text(source.read_text().replace("Lee", "Lee bien"))


# --- an OSError at every step ----------------------------------------------------------


@pytest.fixture
def changing(sample: Path, run: Runner) -> dict[str, set[bytes]]:  # noqa: ARG001 (a fixture)
    """A built sample, then sources changed so the next build writes, adds and removes."""
    assert run("build").code == 0
    allowed = {rel: {content} for rel, content in generated(OUT).items()}
    edit_scout()
    Path("specs/agents/extra.md").write_text(AGENT)
    Path("specs/modes/build.md").unlink()
    for rel, content in expected_files(Path.cwd()).items():
        allowed.setdefault(rel, set()).add(content)
    return allowed


# Pending manifest, 2 files written under temporary names, their 2 renames into
# place, 1 removal, final manifest, and one past the end.
STEPS = 8


@pytest.mark.parametrize("step", range(1, STEPS + 1))
@pytest.mark.parametrize(
    "code", [errno.ENOSPC, errno.EACCES, errno.EROFS, errno.EIO], ids=errno.errorcode.get
)
def test_oserror_at_any_step(
    changing: dict[str, set[bytes]],
    run: Runner,
    monkeypatch: pytest.MonkeyPatch,
    step: int,
    code: int,
) -> None:
    before = generated(OUT)
    count = {"n": 0}
    real_write, real_remove = writer._atomic_write, writer._remove
    real_stage, real_rename = writer._stage, writer._rename

    def fail(path: str | Path) -> None:
        count["n"] += 1
        if count["n"] == step:
            raise OSError(code, os.strerror(code), str(path))

    def write(path: Path, content: bytes) -> None:
        fail(path)
        real_write(path, content)

    def stage(temp: str, content: bytes) -> None:
        fail(temp)
        real_stage(temp, content)

    def rename(temp: str, path: str) -> None:
        fail(path)
        real_rename(temp, path)

    def remove(out: Path, rel: str) -> None:
        fail(out / rel)
        real_remove(out, rel)

    monkeypatch.setattr(writer, "_atomic_write", write)
    monkeypatch.setattr(writer, "_stage", stage)
    monkeypatch.setattr(writer, "_rename", rename)
    monkeypatch.setattr(writer, "_remove", remove)
    result = run("build")
    if step < STEPS:
        assert result.code == 1
        [line] = result.out.splitlines()
        assert f"error [write] cannot write the output: {os.strerror(code)} (" in line
    else:
        assert result.code == 0
    assert "internal error" not in result.err
    assert count["n"] == min(step, STEPS - 1)
    assert_consistent(OUT, changing)
    if step <= 3:  # before the first rename: no file changed, no temporary file left
        assert generated(OUT) == before
    monkeypatch.setattr(writer, "_atomic_write", real_write)
    monkeypatch.setattr(writer, "_stage", real_stage)
    monkeypatch.setattr(writer, "_rename", real_rename)
    monkeypatch.setattr(writer, "_remove", real_remove)
    assert run("build").code == 0
    assert run("check").code == 0
    assert generated(OUT) == expected_files(Path.cwd())


@pytest.mark.parametrize(
    "where", ["lock", "mkdir", "manifest-read"], ids=["at-lock", "at-mkdir", "at-manifest-read"]
)
@pytest.mark.usefixtures("sample")
def test_permission_denied_before_any_write(
    run: Runner, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    run("build")
    if where == "mkdir":  # a folder the build must make again
        shutil.rmtree(OUT / "opencode/.opencode/commands")
    before = generated(OUT)
    edit_scout()

    def denied(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(OUT.resolve()))

    if where == "lock":
        monkeypatch.setattr(writer, "_locked", lambda _out: denied())
    elif where == "mkdir":
        monkeypatch.setattr(os, "mkdir", denied)
    else:
        monkeypatch.setattr(writer, "read_regular", denied)
    result = run("build")
    assert result.code == 1, result.err
    assert "error [write]" in result.out
    assert "Permission denied" in result.out
    assert generated(OUT) == before


@pytest.mark.usefixtures("sample")
def test_read_only_output_folder(run: Runner) -> None:
    """A real read-only build/ (not an injected error): exit 1 with a [write] diagnostic.

    As root, file permissions do not stop writes, so the build runs with
    CAP_DAC_OVERRIDE dropped (setpriv): then root obeys the mode bits too.
    """
    assert run("build").code == 0
    before = generated(OUT)
    edit_scout()
    folders = [OUT, *[p for p in OUT.rglob("*") if p.is_dir()]]
    for folder in folders:
        folder.chmod(0o555)
    for file in OUT.rglob("*"):
        if file.is_file():
            file.chmod(0o444)
    try:
        if os.geteuid() != 0:
            result = run("build")
            code, out = result.code, result.out
        else:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("setpriv (util-linux) is needed to drop root's override")
            drop = "--bounding-set=-dac_override,-dac_read_search,-fowner"
            done = subprocess.run(
                [setpriv, drop, sys.executable, "-m", "promptc_compiler", "build"],
                capture_output=True,
                text=True,
                check=False,
            )
            code, out = done.returncode, done.stdout
            assert "internal error" not in done.stderr, done.stderr
    finally:
        for folder in folders:
            folder.chmod(0o755)
    assert code == 1, out
    assert len(out.splitlines()) == 1, out
    [line] = out.splitlines()
    assert line.startswith("build:1:1: error [write] cannot write the output: Permission denied")
    assert generated(OUT) == before


def test_output_path_is_a_file(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle({"promptc.toml": "", "specs/agents/scout.md": AGENT, "build": "not a folder\n"})
    result = run("build")
    assert result.code == 1
    assert "error [write] cannot write the output: File exists" in result.out
    assert Path("build").read_text() == "not a folder\n"


@pytest.mark.usefixtures("sample")
def test_check_on_an_unreadable_output_is_a_diagnostic(
    run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("build")
    out = os.fspath(Path("build").resolve())
    real = os.lstat

    def denied(path: str | os.PathLike[str], **kwargs: object) -> os.stat_result:
        if os.fspath(path).startswith(out + os.sep):  # a file inside the output
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "lstat", denied)
    result = run("check")
    assert result.code == 1
    assert "error [stale-output] cannot read the output: Permission denied" in result.out


# --- a real SIGKILL, and two builds at once ---------------------------------------------

AGENTS = 150


def test_sigkill_mid_build_leaves_a_consistent_build(
    tmp_path: Path, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kill real `promptc build` processes at random points, several times over.

    Half the kills wait for the build to start writing (the manifest changes
    first) so they land among the file replacements; the others fall anywhere.
    A killed build's lock is left behind, naming a pid that runs no more: the
    next build takes it over at once.
    """
    root = tmp_path / "bundle"
    root.mkdir()
    (root / "promptc.toml").write_text("")
    rng = random.Random(1234)
    allowed: dict[str, set[bytes]] = {}
    killed = 0
    for version in range(6):
        write_agents(root, AGENTS, version)
        for rel, content in expected_files(root).items():
            allowed.setdefault(rel, set()).add(content)
        manifest = root / "build" / writer.MANIFEST
        before = manifest.stat().st_ino if manifest.exists() else None
        proc = promptc(root, "build", output=subprocess.DEVNULL)
        if version % 2:
            _wait_for_write_phase(proc, manifest, before)
            time.sleep(rng.uniform(0, 0.05))
        else:
            time.sleep(rng.uniform(0.1, 1.0))
        proc.send_signal(signal.SIGKILL)
        killed += proc.wait() == -signal.SIGKILL
        if (root / "build").exists():
            assert_consistent(root / "build", allowed)
    assert killed
    monkeypatch.chdir(root)
    done = run("build")
    assert done.code == 0, done.out
    assert generated(root / "build") == expected_files(root)
    assert not list((root / "build").rglob("*.tmp"))
    check = run("check")
    assert check.code == 0, check.out


def _wait_for_write_phase(
    proc: subprocess.Popen[bytes], manifest: Path, before: int | None
) -> None:
    while proc.poll() is None:
        try:
            if manifest.stat().st_ino != before:
                return
        except FileNotFoundError:
            pass
        time.sleep(0.002)


def test_two_builds_at_once(tmp_path: Path) -> None:
    root = tmp_path / "bundle"
    root.mkdir()
    (root / "promptc.toml").write_text("")
    allowed: dict[str, set[bytes]] = {}
    for version in range(3):
        write_agents(root, 40, version)
        expected = expected_files(root)
        for rel, content in expected.items():
            allowed.setdefault(rel, set()).add(content)
        first, second = promptc(root, "build"), promptc(root, "build")
        outputs = [p.communicate() for p in (first, second)]
        assert (first.returncode, second.returncode) == (0, 0), outputs
        assert_consistent(root / "build", allowed)
        assert generated(root / "build") == expected
        assert writer.load_manifest(root / "build")[0] == {
            rel: [writer.digest(content)] for rel, content in expected.items()
        }


# --- a hostile build/ ---------------------------------------------------------------------


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_text("precious\n")
    return path


def plant_manifest(entries: Mapping[str, list[str]]) -> None:
    MANIFEST.parent.mkdir(parents=True, exist_ok=True)
    MANIFEST.write_text(json.dumps({"generator": "promptc", "format": 1, "files": entries}))


@pytest.mark.parametrize(
    "name",
    ["../../victim.txt", "{victim}", "opencode/../../../victim.txt", "./x", "", "a//b"],
    ids=["dotdot", "absolute", "inner-dotdot", "dot", "empty", "empty-part"],
)
@pytest.mark.usefixtures("sample")
def test_manifest_naming_paths_outside_is_refused(run: Runner, victim: Path, name: str) -> None:
    plant_manifest({name.format(victim=victim): [writer.digest(b"precious\n")]})
    result = run("build")
    assert result.code == 1
    assert "is not a path inside the output folder" in result.out
    assert victim.read_text() == "precious\n"
    assert run("build", "--force").code == 0  # --force sets the manifest aside
    assert victim.read_text() == "precious\n"
    assert run("check").code == 0


@pytest.mark.parametrize("name", ["..\\..\\victim.txt", "C:victim.txt"], ids=["backslash", "drive"])
@pytest.mark.usefixtures("sample")
def test_manifest_naming_windows_paths_outside_is_refused(
    run: Runner, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Where Windows reads `\\` as a separator and `C:` as a drive (set here as it is there)."""
    monkeypatch.setattr(confine, "_FOREIGN_SEPARATORS", ("\\", ":"))
    plant_manifest({name: [writer.digest(b"precious\n")]})
    result = run("build")
    assert result.code == 1
    assert "is not a path inside the output folder" in result.out


@pytest.mark.usefixtures("sample")
def test_symlinked_folder_in_build_leading_outside(run: Runner, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (OUT / "opencode").mkdir(parents=True)
    (OUT / "opencode/.opencode").symlink_to(elsewhere, target_is_directory=True)
    for args in (("build",), ("build", "--force")):
        result = run(*args)
        assert result.code == 1
        assert "`build/opencode/.opencode` is a symlink (to " in result.out
        assert "promptc never writes through one" in result.out
    assert list(elsewhere.iterdir()) == []


@pytest.mark.usefixtures("sample")
def test_symlink_at_a_generated_path(run: Runner, victim: Path) -> None:
    run("build")
    SCOUT.unlink()
    SCOUT.symlink_to(victim)
    result = run("build")
    assert result.code == 1
    assert f"{SCOUT}:1:1: error [write] a symlink, FIFO or device stands where" in result.out
    assert run("build", "--force").code == 0
    assert not SCOUT.is_symlink()
    assert "Tono: directo." in SCOUT.read_text()
    assert victim.read_text() == "precious\n"


@pytest.mark.usefixtures("sample")
def test_fifo_in_build_never_blocks(run: Runner) -> None:
    run("build")
    SCOUT.unlink()
    os.mkfifo(SCOUT)
    assert run("check").code == 1
    result = run("build")
    assert result.code == 1
    assert "a symlink, FIFO or device stands where a generated file goes" in result.out
    MANIFEST.unlink()
    os.mkfifo(MANIFEST)
    result = run("build")
    assert result.code == 1
    assert "unreadable manifest" in result.out


@pytest.mark.usefixtures("sample")
def test_folder_at_a_generated_path(run: Runner) -> None:
    run("build")
    SCOUT.unlink()
    SCOUT.mkdir()
    check = run("check")
    assert check.code == 1
    assert f"{SCOUT}:1:1: error [stale-output] a folder stands where a generated file goes" in (
        check.out
    )
    for args in (("build",), ("build", "--force")):
        result = run(*args)
        assert result.code == 1
        assert f"{SCOUT}:1:1: error [write] a folder stands where a generated file goes" in (
            result.out
        )


@pytest.mark.usefixtures("sample")
def test_deeply_nested_manifest(run: Runner) -> None:
    OUT.mkdir()
    MANIFEST.write_text("[" * 100_000 + "]" * 100_000)
    result = run("build")
    assert result.code == 1
    assert "unreadable manifest (nested too deeply)" in result.out
    assert run("build", "--force").code == 0


@pytest.mark.usefixtures("sample")
def test_symlinked_lock_is_refused(run: Runner, victim: Path) -> None:
    OUT.mkdir()
    (OUT / writer.LOCK).symlink_to(victim)
    result = run("build")
    assert result.code == 1
    assert "error [write] cannot write the output" in result.out
    assert victim.read_text() == "precious\n"


@pytest.mark.usefixtures("sample")
def test_leftover_temp_files_are_cleared(run: Runner) -> None:
    run("build")
    litter = [SCOUT.with_name(".scout.md.promptc-99999.tmp"), OUT / ".x.promptc-1.tmp"]
    for path in litter:
        path.write_text("half")
    mine = SCOUT.with_name("notes.promptc-1.tmp")  # not our pattern: never touched
    mine.write_text("mine")
    assert run("build").code == 0
    assert [p.exists() for p in litter] == [False, False]
    assert mine.read_text() == "mine"


@pytest.mark.usefixtures("sample")
def test_planted_symlink_under_the_temp_name_is_not_followed(
    run: Runner, victim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("build")
    edit_scout()
    # Planted after the leftovers are cleared, just before the write.
    real = writer._clear_leftovers

    def plant(out: Path, rels: list[str], area: Area) -> None:
        real(out, rels, area)
        SCOUT.with_name(f".scout.md.promptc-{os.getpid()}.tmp").symlink_to(victim)

    monkeypatch.setattr(writer, "_clear_leftovers", plant)
    result = run("build")
    assert result.code == 1
    assert "error [write] cannot write the output: File exists" in result.out
    assert victim.read_text() == "precious\n"
    monkeypatch.setattr(writer, "_clear_leftovers", real)
    assert run("build").code == 0
    assert run("check").code == 0
