"""Property tests of promptc_compiler.base.confine over generated trees of folders, files,
FIFOs and symlinks (inside, outside, dangling, to /dev/zero, looping).

For any tree and any path, the Area's answer matches a plain walk of the path,
a folder made through it is a real folder inside the project, a file written
or read through it never reaches outside, and nothing blocks: a sibling
`outside/` folder is the same after every example.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptc_compiler.base import files
from promptc_compiler.base.confine import Area, inside
from tests.strategies import SCRATCH, tick

NAMES = ["a", "b", "c"]
KINDS = ["folder", "file", "fifo", "inside", "outside", "dangling", "dev-zero", "loop"]

trees = st.lists(
    st.tuples(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3), st.sampled_from(KINDS)),
    max_size=12,
)
paths = st.lists(st.sampled_from([*NAMES, ".."]), max_size=4)


def make(project: Path, outside: Path, parts: list[str], kind: str) -> None:
    """Add one entry to the tree, unless a parent of it is no real folder."""
    folder = project
    for part in parts[:-1]:
        folder = folder / part
        if not folder.exists() and not folder.is_symlink():
            folder.mkdir()
        elif folder.is_symlink() or not folder.is_dir():
            return  # never make the tree itself through a link
    path = folder / parts[-1]
    if path.exists() or path.is_symlink():
        return
    targets = {
        "inside": project / "a",
        "outside": outside,
        "dangling": outside / "missing",
        "dev-zero": Path("/dev/zero"),
        "loop": path,
    }
    if kind == "folder":
        path.mkdir()
    elif kind == "file":
        path.write_bytes(b"inside\n")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(targets[kind])


def snapshot(folder: Path) -> dict[str, bytes | str]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else "folder"
        for p in sorted(folder.rglob("*"))
    }


def expected_problem(project: str, target: str) -> bool:
    """The rule, walked plainly: outside the project, or a symlink on the way
    before the first missing component or non-folder."""
    path = os.path.normpath(target)
    if not inside(path, project):
        return True
    current = project
    for part in os.path.relpath(path, project).split(os.sep):
        if part == ".":
            break
        current = os.path.join(current, part)
        if os.path.islink(current):
            return True
        if not os.path.isdir(current):
            return False
    return False


@given(trees, paths, st.booleans())
def test_the_area_never_leads_outside(
    tree: list[tuple[list[str], str]], parts: list[str], barred: bool
) -> None:
    tick("confine: areas over generated trees")
    with tempfile.TemporaryDirectory(prefix="promptc-confine-", dir=SCRATCH) as scratch:
        root = Path(scratch).resolve()
        project, outside = root / "project", root / "outside"
        project.mkdir()
        (outside / "kept").mkdir(parents=True)
        (outside / "kept" / "file.txt").write_text("outside\n")
        for entry, kind in tree:
            make(project, outside, entry, kind)
        before = snapshot(outside)
        target = os.path.join(project, *parts)
        sources = str(project / "b")
        area = Area(project, {sources: "the sources"} if barred else None)
        problem = area.problem(target)
        in_sources = barred and inside(os.path.normpath(target), sources)
        assert (problem is not None) == (expected_problem(str(project), target) or in_sources)
        _write_through(area, target, problem)
        _read_everything(project)
        assert snapshot(outside) == before


def _write_through(area: Area, target: str, problem: str | None) -> None:
    """make_folder and a new file: refused where problem() says so; where they
    succeed, a real folder inside the project holds the file."""
    try:
        made = area.make_folder(target)
        files.write_new(os.path.join(made, "new.txt"), b"new\n")
    except OSError:
        return
    assert problem is None
    assert os.path.realpath(made) == os.path.normpath(target)
    assert inside(made, area.root)


def _read_everything(project: Path) -> None:
    """Every entry read without following links: only regular files give bytes,
    and a FIFO or a link to /dev/zero never blocks."""
    for top, dirs, names in os.walk(project):
        for name in dirs + names:
            path = os.path.join(top, name)
            with contextlib.suppress(OSError):
                files.read_regular(path, 1 << 10)
                assert os.path.isfile(path)
                assert not os.path.islink(path)


@given(content=st.binary(max_size=3000), most=st.integers(1, 700))
def test_a_new_file_holds_every_byte_when_the_system_takes_a_few_at_a_time(
    content: bytes, most: int
) -> None:
    """os.write may write less than it is given (a pipe, a signal, a full
    quota): write_new writes the rest until every byte is written."""
    write = os.write
    taken: list[int] = []

    def partial(fd: int, data: bytes | memoryview) -> int:
        taken.append(write(fd, bytes(data[:most])))
        return taken[-1]

    with tempfile.TemporaryDirectory(dir=SCRATCH) as root:
        path = os.path.join(root, "new.txt")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(os, "write", partial)
            files.write_new(path, content)
        assert Path(path).read_bytes() == content
        assert sum(taken) == len(content)


def test_a_file_system_that_takes_no_byte_fails_the_write_and_leaves_no_file() -> None:
    """os.write returning 0 for bytes given would be asked again forever."""
    with tempfile.TemporaryDirectory(dir=SCRATCH) as root:
        path = os.path.join(root, "new.txt")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(os, "write", lambda _fd, _data: 0)
            with pytest.raises(OSError, match="took none of the bytes"):
                files.write_new(path, b"content")
        assert not os.path.lexists(path)
        files.write_new(path, b"")  # nothing to write: nothing asked
        assert Path(path).read_bytes() == b""
