"""The wheel ships its schemas and works from another directory, outside this repository."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from promptc_compiler.runtimes import RUNTIMES

# Slow end to end (pip builds and installs the wheel in a fresh venv): `make conformance` runs it, not `make test`.
pytestmark = [pytest.mark.slow, pytest.mark.conformance]

ROOT = Path(__file__).resolve().parent.parent


def test_installed_wheel_works_elsewhere(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    [wheel] = dist.glob("promptc_compiler-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "promptc_compiler/schemas/config.schema.json" in names
    assert "promptc_compiler/schemas/agent.schema.json" in names
    for name, runtime in RUNTIMES.items():  # package data each runtime reads at import
        folder = f"promptc_compiler/runtimes/{name}"
        assert f"{folder}/overrides.json" in names
        assert {f"{folder}/schemas/{schema}.schema.json" for schema in runtime.FILE_SCHEMAS} <= set(
            names
        )
    assert "promptc_compiler/py.typed" in names  # type checkers read the package's hints
    # What `promptc init` writes.
    assert "promptc_compiler/cli/templates/init/specs/agents/lead.md" in names

    # A venv without pip of its own (ensurepip costs seconds): this pip installs
    # into it, the console script `promptc` included.
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    subprocess.run(
        [*pip, "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    # The dependencies come from the test environment's site-packages, added as
    # a plain path: its editable-install hooks are not processed, so `promptc_compiler`
    # can only come from the wheel.
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")

    bundle = tmp_path / "elsewhere" / "mybundle"
    (bundle / "specs" / "agents").mkdir(parents=True)
    (bundle / "specs" / "agents" / "helper.md").write_text(
        "---\ndescription: Answers questions about the repository.\nmode: subagent\n---\nHola.\n"
    )
    (bundle / "promptc.toml").write_text('out = "out"\n')
    workdir = tmp_path / "elsewhere"
    promptc = env_dir / "bin" / "promptc"
    where = subprocess.run(
        [python, "-c", "import promptc_compiler; print(promptc_compiler.__file__)"],
        cwd=workdir,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert str(env_dir) in where
    done = subprocess.run(
        [promptc, "build", "--config", str(bundle / "promptc.toml")],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (bundle / "out/opencode/.opencode/agents/helper.md").is_file()
    bad = subprocess.run(
        [promptc, "lint", "--config", str(bundle / "promptc.toml")],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 0, bad.stdout + bad.stderr
    # The init templates ship as package data: a bundle from them checks clean.
    fresh = workdir / "fresh"
    for command in (["init", str(fresh)], ["check", "--strict"]):
        done = subprocess.run(
            [promptc, *command],
            cwd=fresh if command[0] == "check" else workdir,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
