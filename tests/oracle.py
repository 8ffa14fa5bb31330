"""The real agent runtimes, pinned in tests/package.json, run as test oracles.

Each run gets a scratch HOME (and XDG folders inside it) so a developer's own
configuration never leaks in, and the environment variables that keep the
binaries offline and starting once. In CI a missing binary fails the test;
elsewhere it skips, so a quick local run without `make npm` still works.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

BIN = Path(__file__).resolve().parent / "node_modules" / ".bin"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

OFFLINE = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    # Gemini CLI otherwise starts itself again as a child with a larger heap:
    # two start-ups a run (1.2 s of CPU more for `extensions link`).
    "GEMINI_CLI_NO_RELAUNCH": "true",
}


def binary(name: str) -> Path:
    path = BIN / name
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: `make npm` installs the pinned runtimes")
        pytest.skip(f"{name} not installed (run `make npm`)")
    return path


def scratch_env(home: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": "/tmp",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "NO_COLOR": "1",
    }
    env.update(OFFLINE)
    return env


def run(
    name: str, args: list[str], cwd: Path, timeout: float = 120, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a pinned runtime in `cwd` with a fresh scratch HOME; ANSI codes stripped.

    A test that must put files in HOME first (a global config) or know its path
    passes its own scratch folder as `home`.
    """
    if home is not None:
        return _run(binary(name), args, cwd, home, timeout)
    with tempfile.TemporaryDirectory(prefix=f"{name}-home-") as scratch:
        return _run(binary(name), args, cwd, Path(scratch), timeout)


def _run(
    exe: Path, args: list[str], cwd: Path, home: Path, timeout: float
) -> subprocess.CompletedProcess[str]:
    done = capture([str(exe), *args], cwd, scratch_env(home), timeout)
    return subprocess.CompletedProcess(
        done.args, done.returncode, _ANSI.sub("", done.stdout), _ANSI.sub("", done.stderr)
    )


def capture(
    command: list[str], cwd: Path | None, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run a runtime binary and collect its output through files, not pipes.

    opencode (a Bun binary) exits without draining a pipe, so a long `agent
    list` (16 agents with long rule lists) would arrive cut short.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=err,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    return subprocess.CompletedProcess(done.args, done.returncode, stdout, stderr)
