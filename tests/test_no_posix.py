"""promptc without the POSIX-only parts of the standard library, as on Windows.

Each bundle is linted, built and checked twice (the second check a cache
hit), in fresh processes, on two copies of it: once as Python is, once with
`fcntl` unimportable and `os.fork`, `os.O_NOFOLLOW`, `os.O_NONBLOCK`,
`os.O_TMPFILE`, `os.memfd_create`, `os.sched_getaffinity` and `os.uname`
deleted before promptc is imported. Both must print the same, exit the same
and leave the same files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bundles import FIXTURES, REPOSITORY

# Slow end to end (the whole pipeline once more per bundle, with POSIX-only calls taken away): `make conformance` runs it, not `make test`.
pytestmark = [pytest.mark.slow, pytest.mark.conformance]

POSIX_ONLY = (
    "fork",
    "O_NOFOLLOW",
    "O_NONBLOCK",
    "O_TMPFILE",
    "memfd_create",
    "sched_getaffinity",
    "uname",
)

RUN = f"""\
import os, sys
if sys.argv.pop(1) == "without":
    sys.modules["fcntl"] = None  # `import fcntl` raises ImportError
    for name in {POSIX_ONLY!r}:
        if hasattr(os, name):
            delattr(os, name)
from promptc_compiler.cli.main import main
raise SystemExit(main(sys.argv[1:]))
"""

COMMANDS = (("lint",), ("build",), ("check",), ("check",))


def _fixture(name: str) -> object:
    def copy(into: Path) -> None:
        shutil.copytree(FIXTURES / name, into, dirs_exist_ok=True)

    return copy


BUNDLES = {
    "team": _fixture("team"),
    "opencode": _fixture("opencode"),
    "claude": _fixture("claude"),
}


def _runs(root: Path, how: str) -> list[tuple[int, str, str]]:
    environ = {k: v for k, v in os.environ.items() if k not in ("PROMPTC_NO_CACHE", "NO_COLOR")}
    environ.pop("GITHUB_ACTIONS", None)
    environ["PYTHONPATH"] = os.pathsep.join([str(REPOSITORY), environ.get("PYTHONPATH", "")])
    outcomes = []
    for command in COMMANDS:
        done = subprocess.run(
            [sys.executable, "-c", RUN, how, *command],
            cwd=root,
            env=environ,
            capture_output=True,
            text=True,
            check=False,
        )
        outcomes.append((done.returncode, done.stdout, done.stderr))
    return outcomes


def _files(root: Path) -> dict[str, bytes]:
    """Every file the runs left, but the cache's entries (keyed by the folder's path)."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".promptc-cache" not in path.parts
    }


@pytest.mark.parametrize("name", sorted(BUNDLES))
def test_lint_build_and_check_run_the_same_without_posix_only_calls(
    name: str, tmp_path: Path
) -> None:
    results = {}
    for how in ("with", "without"):
        root = tmp_path / how / name  # the same folder name: a plugin may be named after it
        root.mkdir(parents=True)
        BUNDLES[name](root)  # type: ignore[operator]
        before = _files(root)
        results[how] = (_runs(root, how), _files(root), before)
    runs, files, before = results["with"]
    assert not any("internal error" in err for _, _, err in runs), runs
    assert [code for code, _, _ in runs][1:] == [0, 0, 0], runs  # built, then fresh
    assert set(files) - set(before), "the build wrote no file"
    assert (tmp_path / "with" / name / ".promptc-cache").is_dir()  # the cache took part
    assert results["without"][0] == runs
    assert results["without"][1] == files
