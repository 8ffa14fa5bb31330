"""Conformance: both real runtimes find every skill promptc emits, with its name and description.

- OpenCode: the opencode target's files, written to a scratch git repository,
  listed by `opencode debug skill` (it always adds its built-in
  `customize-opencode`).
- Claude Code: a minimal plugin folder (`.claude-plugin/plugin.json` with
  name, version, description and author) around the trees
  `promptc_compiler.runtimes.skills.emit_skill_tree` emits under `skills/`, checked by
  `claude plugin validate --strict --json`: no finding, and `provides.skills`
  lists `<plugin>:<name>` for every skill.

Both run on tests/fixtures/team (the caveman skill) and on
tests/fixtures/skills (a multi-role tree, allowed-tools in both forms).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from promptc_compiler.runtimes.claude import target as claude_target
from promptc_compiler.runtimes.skills import emit_skills
from tests import bundles, oracle

# Each test starts a slow runtime (OpenCode, Gemini CLI): `make conformance` runs them.
pytestmark = [pytest.mark.slow, pytest.mark.conformance]

BUNDLES = {"team": bundles.TEAM, "fixture": bundles.FIXTURES / "skills"}
PLUGIN = "promptc-skills"


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def expected(root: Path, target: str) -> dict[str, str]:
    project = bundles.project(root, target)
    assert project.skills, "the bundle has no skill to check"
    return {name: skill.spec.meta["description"] for name, skill in project.skills.items()}


@pytest.mark.parametrize("bundle", sorted(BUNDLES))
def test_opencode_lists_every_skill(bundle: str, tmp_path: Path) -> None:
    oracle.binary("opencode")
    root = BUNDLES[bundle]
    files = {rel: data.decode() for rel, data in bundles.render(root, "opencode").items()}
    assert any(rel.startswith(".opencode/skills/") for rel in files)
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)
    write(tmp_path, files)
    done = oracle.run("opencode", ["debug", "skill"], tmp_path)
    assert done.returncode == 0, done.stderr
    start = done.stdout.index("[")
    listed, _ = json.JSONDecoder().raw_decode(done.stdout[start:])
    found = {s["name"]: s for s in listed}
    assert found.pop("customize-opencode")["location"] == "<built-in>"
    want = expected(root, "opencode")
    assert {name: s["description"] for name, s in found.items()} == want
    for name, skill in found.items():
        location = Path(skill["location"]).resolve()
        assert location == (tmp_path / ".opencode/skills" / name / "SKILL.md").resolve()
        body = files[f".opencode/skills/{name}/SKILL.md"].split("---\n", 2)[2]
        assert skill["content"].strip() == body.strip()


@pytest.mark.parametrize("bundle", sorted(BUNDLES))
def test_claude_plugin_validate_lists_every_skill(bundle: str, tmp_path: Path) -> None:
    oracle.binary("claude")
    root = BUNDLES[bundle]
    manifest = {
        "name": PLUGIN,
        "version": "0.1.0",
        "description": "Skills emitted by promptc",
        "author": {"name": "promptc tests"},
    }
    project = bundles.project(root, "claude-plugin")
    files = emit_skills(project, "skills/", grants=claude_target.grants_of(project))
    write(tmp_path, {".claude-plugin/plugin.json": json.dumps(manifest), **files})
    done = oracle.run(
        "claude", ["plugin", "validate", str(tmp_path), "--strict", "--json"], tmp_path
    )
    report = json.loads(done.stdout)
    assert done.returncode == 0, report
    assert report["contents"] == []
    want = sorted(f"{PLUGIN}:{name}" for name in expected(root, "claude-plugin"))
    assert sorted(report["provides"]["skills"]) == want


def test_claude_flags_what_the_schema_refuses(tmp_path: Path) -> None:
    """The oracle is sharp: a skill without description fails `--strict`, as the schema says."""
    oracle.binary("claude")
    manifest = {"name": PLUGIN, "version": "0.1.0", "description": "x", "author": {"name": "t"}}
    write(
        tmp_path,
        {
            ".claude-plugin/plugin.json": json.dumps(manifest),
            "skills/demo/SKILL.md": "---\nname: demo\n---\nBody\n",
        },
    )
    done = oracle.run(
        "claude", ["plugin", "validate", str(tmp_path), "--strict", "--json"], tmp_path
    )
    assert done.returncode == 1
    assert [w["path"] for w in json.loads(done.stdout)["contents"][0]["warnings"]] == [
        "description"
    ]
