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

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _speed() -> ModuleType:
    """benchmarks/speed.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("speed", ROOT / "benchmarks/speed.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_speed_script_prints_every_row_and_ratio(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/speed.py"), "--sizes", "16", "--repeat", "1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| promptc")]
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
    assert "| python: create 16 empty files" in result.stdout
    assert "N=16 cold check / imports:" in result.stdout
    assert "N=16 warm check / floor:" in result.stdout
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
    script = str(ROOT / "benchmarks/real_steps.py")
    result = subprocess.run(
        [sys.executable, script, "--sizes", "2", "3", "--repeat", "1"],
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(scratch)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    rows = [line.split("|")[1:3] for line in result.stdout.splitlines() if line[:2] == "| "]
    steps = ["import opencode", "import claude", "lint", "build", "check"]
    assert [(name.strip(), size.strip()) for name, size in rows[1:]] == [
        (step, size) for step in steps for size in ("2", "3")
    ]
    # A run that failed says so in its row: every promptc run exited 0.
    assert "exit [" not in result.stdout
    assert "python -c pass (floor):" in result.stdout
    assert list(scratch.iterdir()) == []
