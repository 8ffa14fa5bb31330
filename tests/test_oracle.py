"""The pinned runtimes are installed and answer offline."""

from __future__ import annotations

import json
from pathlib import Path

from tests import oracle


def test_opencode_version(tmp_path: Path) -> None:
    done = oracle.run("opencode", ["--version"], tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, "1.18.33")


def test_claude_version(tmp_path: Path) -> None:
    done = oracle.run("claude", ["--version"], tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith("2.1.332")


def test_pins_match_the_lock_file() -> None:
    here = Path(__file__).parent
    wanted = json.loads((here / "package.json").read_text())["dependencies"]
    locked = json.loads((here / "package-lock.json").read_text())["packages"]
    for name, version in wanted.items():
        assert locked[f"node_modules/{name}"]["version"] == version
