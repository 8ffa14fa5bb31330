"""`promptc lint FILE...`: the whole bundle is read, only the named files' findings are shown."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import AGENT, MODE, Run

Runner = Callable[..., Run]
MakeBundle = Callable[[dict[str, str | bytes]], Path]

# `sage` says `mode: sidekick` (a schema error), `scout` has a description too
# short to choose it by (a warning), and a fragment nobody uses (a warning).
SHORT = "Explores the codebase read-only and reports findings."
FILES: dict[str, str | bytes] = {
    "promptc.toml": "",
    "specs/agents/scout.md": AGENT.replace(SHORT, "Explorer"),
    "specs/agents/sage.md": AGENT.replace("mode: subagent", "mode: sidekick"),
    "specs/modes/build.md": MODE,
    "fragments/unused.md": "Nadie me usa.\n",
}


@pytest.fixture
def bundle(make_bundle: MakeBundle) -> Path:
    return make_bundle(FILES)


def paths(out: str) -> set[str]:
    return {line.split(":", 1)[0] for line in out.splitlines()}


@pytest.mark.usefixtures("bundle")
def test_the_whole_bundle_has_findings_in_three_files(run: Runner) -> None:
    done = run("lint")
    assert paths(done.out) == {
        "specs/agents/scout.md",
        "specs/agents/sage.md",
        "fragments/unused.md",
    }


@pytest.mark.parametrize("no_cache", [(), ("--no-cache",)])
def test_only_the_named_files_findings_are_reported(
    bundle: Path, run: Runner, no_cache: tuple[str, ...]
) -> None:
    run("lint")  # a cached result, then a run without the cache: the same answer
    done = run("lint", *no_cache, "specs/agents/scout.md")
    assert done.code == 0, done.out
    assert paths(done.out) == {"specs/agents/scout.md"}, done.out
    failed = run("lint", *no_cache, str(bundle / "specs/agents/sage.md"), "fragments/unused.md")
    assert failed.code == 1
    assert paths(failed.out) == {"specs/agents/sage.md", "fragments/unused.md"}
    assert failed.err.startswith("promptc: 1 error, 1 warning")


@pytest.mark.usefixtures("bundle")
def test_a_clean_file_says_no_problems_though_others_have_some(run: Runner) -> None:
    done = run("lint", "specs/modes/build.md")
    assert (done.code, done.out, done.err) == (0, "", "promptc: no problems\n")


def test_paths_are_relative_to_the_working_directory(bundle: Path, run: Runner) -> None:
    os.chdir(bundle / "specs")
    done = run("lint", "agents/sage.md")
    assert paths(done.out) == {"agents/sage.md"}


def test_a_file_outside_the_project_or_not_a_source_is_a_usage_error(
    bundle: Path, run: Runner, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text(AGENT)
    done = run("lint", "specs/agents/scout.md", str(outside))
    assert done.code == 2, done.err
    assert "outside the project" in done.err, done.err
    assert done.out == ""
    (bundle / "notes.md").write_text("notes\n")
    done = run("lint", "notes.md")
    assert done.code == 2
    assert "notes.md: not a spec or fragment" in done.err
    assert run("lint", "specs/agents/nope.md").code == 2  # no such file
    fixing = run("lint", "--fix", "specs/agents/scout.md")
    assert fixing.code == 2
    assert "--fix" in fixing.err
