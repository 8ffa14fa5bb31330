"""Fuzz the writer: a build stopped by an OSError at any step leaves the output
consistent (each file its old or its new bytes, the manifest truthful), and
the next build repairs everything, including the temp files a kill leaves."""

from __future__ import annotations

import errno
import tempfile
from collections.abc import Mapping
from pathlib import Path
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from promptc_compiler.pipeline import writer
from tests.strategies import SCRATCH, tick

RELS = [
    "opencode/opencode.json",
    "opencode/.opencode/agents/a.md",
    "opencode/.opencode/agents/team/b.md",
    "opencode/.opencode/commands/build.md",
    "claude/.claude/agents/a.md",
]
file_maps = st.dictionaries(st.sampled_from(RELS), st.binary(max_size=30), max_size=len(RELS))
errors = st.sampled_from([errno.ENOSPC, errno.EACCES, errno.EROFS, errno.EIO])


def on_disk(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in out.rglob("*")
        if p.is_file() and p.name not in (writer.MANIFEST, writer.LOCK)
    }


def assert_consistent(out: Path, old: Mapping[str, bytes], new: Mapping[str, bytes]) -> None:
    """Each file holds its old or new bytes, and the manifest vouches for every one."""
    manifest = writer.load_manifest(out)[0]
    for rel, content in on_disk(out).items():
        assert content in (old.get(rel), new.get(rel)), rel
        assert writer.digest(content) in manifest.get(rel, ()), f"{rel} is not in the manifest"


class Interrupt:
    """Counts disk mutations and fails the one numbered `at` with an OSError."""

    def __init__(self, at: int, code: int) -> None:
        self.at, self.code, self.count = at, code, 0

    def step(self, path: str | Path) -> None:
        self.count += 1
        if self.count == self.at:
            raise OSError(self.code, "injected", str(path))


@given(file_maps, file_maps, st.integers(1, 14), errors, st.lists(st.sampled_from(RELS)))
def test_interrupted_build_is_consistent_and_repaired(
    old: dict[str, bytes], new: dict[str, bytes], at: int, code: int, litter: list[str]
) -> None:
    tick("writer: interrupted builds")
    with tempfile.TemporaryDirectory(prefix="promptc-fuzz-", dir=SCRATCH) as scratch:
        out = Path(scratch) / "build"
        assert writer.apply(out, old).errors == ()
        fault = Interrupt(at, code)
        real_write, real_remove = writer._atomic_write, writer._remove
        real_stage, real_rename = writer._stage, writer._rename

        def write(path: Path, content: bytes) -> None:
            fault.step(path)
            real_write(path, content)

        def stage(temp: str, content: bytes) -> None:
            fault.step(temp)
            real_stage(temp, content)

        def rename(temp: str, path: str) -> None:
            fault.step(path)
            real_rename(temp, path)

        def remove(root: Path, rel: str) -> None:
            fault.step(root / rel)
            real_remove(root, rel)

        with (
            mock.patch.object(writer, "_atomic_write", write),
            mock.patch.object(writer, "_stage", stage),
            mock.patch.object(writer, "_rename", rename),
            mock.patch.object(writer, "_remove", remove),
        ):
            try:
                writer.apply(out, new)
            except OSError as exc:  # the injected fault may stop the run or be survived
                assert exc.errno == code  # noqa: PT017
        assert_consistent(out, old, new)
        for rel in litter:  # what a SIGKILL between write and rename leaves
            target = out / rel
            if rel in new and target.parent.is_dir():
                (target.parent / f".{target.name}.promptc-4242.tmp").write_bytes(b"half")
        outcome = writer.apply(out, new)
        assert outcome.errors == ()
        assert on_disk(out) == new
        assert writer.load_manifest(out)[0] == {rel: [writer.digest(c)] for rel, c in new.items()}
        assert not list(out.rglob("*.tmp"))
        assert writer.plan(out, new, writer.load_manifest(out)[0]).clean
