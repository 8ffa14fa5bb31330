"""Round trips through the real runtimes: import a hand-written folder, build it for
the same runtime, and the runtime reads the same agents, rules, commands and bodies.

OpenCode: `opencode agent list` (each agent's mode and resolved rule list, the same
list `opencode debug agent NAME` prints) and `opencode debug config` (every
agent's and command's settings and text) are run on the original folder and on
the built one, each in a fresh git repository with the same scratch HOME.
Claude Code: the `claude-plugin` build passes `claude plugin validate --strict`,
which lists every agent and command.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from promptc_compiler.core.config import load_config
from promptc_compiler.pipeline.importer import plan_import
from tests import bundles, oracle
from tests.conftest import Run
from tests.opencode.test_conformance_opencode import parse_agent_list

pytestmark = pytest.mark.slow

FIXTURES = bundles.FIXTURES / "import"


def _project(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    return root


def _opencode(root: Path, home: Path, *args: str) -> str:
    done = oracle.run("opencode", list(args), root, home=home)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr or done.stdout
    return done.stdout


def _loaded(root: Path, home: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    agents = parse_agent_list(_opencode(root, home, "agent", "list"))
    config = json.loads(_opencode(root, home, "debug", "config"))
    return agents, config.get("agent", {}), config.get("command", {})


# Four runs of the real OpenCode (11 s): in `make conformance`, not `make test`.
@pytest.mark.conformance
def test_opencode_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Any) -> None:
    oracle.binary("opencode")
    source = FIXTURES / "opencode"
    original = tmp_path / "original"
    shutil.copytree(source, original)
    subprocess.run(["git", "init", "--quiet", str(original)], check=True)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    monkeypatch.chdir(bundle)
    done: Run = run("import", "opencode", str(source))
    assert done.code == 0, done.out + done.err
    rebuilt = _project(tmp_path / "rebuilt", bundles.render(bundle, "opencode"))
    home = tmp_path / "home"
    home.mkdir()
    before = _loaded(original, home)
    after = _loaded(rebuilt, home)
    agents_before, settings_before, commands_before = before
    agents_after, settings_after, commands_after = after
    assert set(agents_after) == set(agents_before)
    for name, (mode, rules) in agents_before.items():
        assert agents_after[name] == (mode, rules), name
    # Frontmatter meaning as OpenCode read it (bodies: tests/test_import.py); the
    # target writes keys in its own order, but permission order is kept.
    for name, settings in settings_before.items():
        assert settings_after[name] == settings, name
        permission = json.dumps(settings.get("permission"))
        assert json.dumps(settings_after[name].get("permission")) == permission, name
    assert commands_after == commands_before


def test_claude_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Any) -> None:
    source = FIXTURES / "claude"
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    monkeypatch.chdir(bundle)
    assert run("import", "claude", str(source)).code == 0
    (bundle / "promptc.toml").write_text(
        (bundle / "promptc.toml").read_text() + "\n[targets.claude-plugin]\n"
    )
    plan = plan_import("claude", source, load_config())
    files = bundles.render(bundle, "claude-plugin")
    plugin = _project(tmp_path / "plugin", files)
    done = oracle.run("claude", ["plugin", "validate", "--strict", "--json", "."], plugin)
    assert done.returncode == 0, done.stdout + done.stderr
    for rel in plan.files:
        if rel.startswith(("specs/agents/", "specs/modes/")):
            assert Path(rel).stem in done.stdout, rel
    # Bodies reach the plugin's files unchanged.
    for path in sorted((source / ".claude/agents").glob("*.md")):
        original = path.read_text().split("\n---\n", 1)[1]
        emitted = [d for r, d in files.items() if r.endswith(f"agents/{path.name}")]
        assert emitted, path
        assert emitted[0].decode().split("\n---\n", 1)[1] == original, path
