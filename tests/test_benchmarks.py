"""benchmarks/speed.py and benchmarks/real_steps.py run end to end and print what the docs quote.

Only that they run and what they print are checked, never a time: speed is
measured by the script itself, on an idle machine.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

# Slow end to end (the benchmark scripts run end to end): `make conformance` runs it, not `make test`.
pytestmark = [pytest.mark.slow, pytest.mark.conformance]

ROOT = Path(__file__).resolve().parents[1]


def run_script(name: str, *args: str, cwd: Path, scratch: Path | None = None) -> str:
    """benchmarks/<name> run as a user runs it, in `cwd` (its temporary folders
    under `scratch`); its output, once it has exited 0."""
    env = {**os.environ, "TMPDIR": str(scratch)} if scratch else None
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _speed() -> ModuleType:
    """benchmarks/speed.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("speed", ROOT / "benchmarks/speed.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_speed_script_prints_every_row_and_ratio(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = run_script("speed.py", "--sizes", "16", "--repeat", "1", cwd=tmp_path, scratch=scratch)
    rows = [line for line in out.splitlines() if line.startswith("| promptc")]
    names = [row.split("|")[1].strip() for row in rows]
    assert names == [
        "promptc check, cold (ndomo)",
        "promptc check, cold",
        "promptc check, warm",
        "promptc lint, cold",
        "promptc build, cold",
        "promptc build, warm",
        "promptc build, cold (claude+opencode)",
    ]
    # A run that failed says so in its row: every promptc run exited 0.
    assert not [row for row in rows if "exit [" in row]
    assert "| python: create 16 empty files" in out
    # Issue 34's targets, each measured or saying what it lacks: without peers,
    # the check against the imports and the lint's cost per agent are measured.
    targets = out.split("issue 34 targets, measured in this run:\n", 1)[1].splitlines()[:6]
    assert [line.split(":", 1)[0] for line in targets] == [
        "- N=16 cold build claude+opencode, rulesync 17.0.0 / promptc",
        "- N=1000 cold build claude+opencode, rulesync 17.0.0 / promptc",
        "- N=1000 cold lint, cclint 0.2.10 / promptc",
        "- N=10000 peak RSS of the claude+opencode build, promptc",
        '- N=16 cold check / python -c "import yaml, jsonschema, jinja2"',
        "- cold lint, CPU per agent",
    ]
    assert targets[0].endswith("not measured (no rulesync in --peers DIR) (target >= 2x)")
    assert "not measured" not in targets[4]
    assert targets[5].startswith("- cold lint, CPU per agent: N=16 ")
    # Every bundle, and every folder a cold run moved aside, is gone at the end.
    assert list(scratch.iterdir()) == []


def test_a_cold_run_s_folders_are_moved_aside_not_deleted(tmp_path: Path) -> None:
    """Deleting them would cost the next run's file creations (see the script's
    doc): each is renamed into the scratch folder, with everything in it."""
    speed = _speed()
    table = speed.Table(tmp_path)
    for round_ in range(2):
        build = table.folder() / "build"
        (build / "agents").mkdir(parents=True)
        (build / "agents/a.md").write_text(f"round {round_}")
        table.bury(build)
        assert not build.exists()
    table.bury(tmp_path / "missing")  # nothing there: nothing to move
    buried = sorted(tmp_path.glob("graveyard-*"))
    assert [b.name for b in buried] == ["graveyard-1", "graveyard-2"]
    assert [(b / "agents/a.md").read_text() for b in buried] == ["round 0", "round 1"]


def test_real_shape_script_prints_a_row_for_every_step_and_size(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = run_script(
        "real_steps.py", "--sizes", "2", "3", "--repeat", "1", cwd=tmp_path, scratch=scratch
    )
    rows = [line.split("|")[1:3] for line in out.splitlines() if line[:2] == "| "]
    steps = ["import opencode", "import claude", "lint", "build", "check"]
    assert [(name.strip(), size.strip()) for name, size in rows[1:]] == [
        (step, size) for step in steps for size in ("2", "3")
    ]
    # A run that failed says so in its row: every promptc run exited 0.
    assert "exit [" not in out
    assert "python -c pass (floor):" in out
    assert list(scratch.iterdir()) == []


def test_the_edit_latency_benchmark_runs_and_prints_each_edit(tmp_path: Path) -> None:
    # Only that it runs and what it prints: the time is measured by the script itself.
    out = run_script("lsp_edit.py", "--agents", "16", "--repeat", "1", cwd=tmp_path)
    rows = [line.split("|")[1].strip() for line in out.splitlines()[2:5]]
    assert rows == ["agent", "agent, broken", "fragment"]
    assert "one agent edit: load " in out


@pytest.mark.parametrize("command", ["build", "check"])
def test_the_watched_edit_benchmark_runs_and_prints_each_edit(command: str, tmp_path: Path) -> None:
    args = ("--agents", "16", "--repeat", "1", "--command", command)
    lines = run_script("watch_edit.py", *args, cwd=tmp_path).splitlines()
    assert lines[0] == f"| edit (16 agents, {command}) | from scratch | kept |"
    rows = [line.split("|")[1].strip() for line in lines[2:]]
    assert rows == ["agent", "agent, broken", "fragment"]


def test_the_collector_benchmark_prints_a_row_for_every_size(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = run_script(
        "gc_share.py", "--sizes", "2", "3", "--types", "3", cwd=tmp_path, scratch=scratch
    )
    rows = [line.split("|")[1:] for line in out.splitlines() if line[:2] == "| "]
    assert [row[0].strip() for row in rows[1:]] == ["2", "3"]
    assert all(row[4].strip().endswith("%") for row in rows[1:])
    # What --types counts, for each size: where a run at 3 agents never collects
    # fully, it says 0 objects rather than nothing.
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("N=")] == [
        "N=2",
        "N=3",
    ]
    assert list(scratch.iterdir()) == []
