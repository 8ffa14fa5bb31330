"""Conformance: the real `claude` (tests/package.json, 2.1.332) validates what promptc emits.

`claude plugin validate --strict --json` is the runtime's own check of agent
and command frontmatter and of the plugin manifest; with `--strict` a warning
fails too. It runs on the fixture bundles (tests/fixtures/team, a team of
real shape, among them) emitted into scratch folders. Its `provides` must
list every agent and every command, under the plugin's name.

2.1.332 checks nothing Claude-specific in a bare `.claude` folder beyond the
frontmatter of its agents and commands (no manifest, no `provides`): the
`.claude` layout is validated too, and a test in test_target_claude.py
proves it carries the same agent and command files as the plugin.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from promptc_compiler.runtimes.claude.translate import TRANSLATOR
from promptc_compiler.runtimes.translation import flat_name
from tests import bundles, oracle

BUNDLES = {
    "team": bundles.TEAM,
    "fixture": bundles.FIXTURES / "claude",
    "opencode": bundles.FIXTURES / "opencode",
}


def validate(folder: Path) -> tuple[int, dict[str, Any]]:
    done = oracle.run("claude", ["plugin", "validate", str(folder), "--strict", "--json"], folder)
    return done.returncode, json.loads(done.stdout)


def emit(bundle: str, target: str, scratch: Path) -> Path:
    """The target's output folder, written into a scratch folder."""
    out = scratch / f"{bundle}-{target}"
    for rel, data in bundles.render(BUNDLES[bundle], target).items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    return out


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_the_plugin_validates_strictly_and_provides_everything(bundle: str, tmp_path: Path) -> None:
    oracle.binary("claude")
    folder = emit(bundle, "claude-plugin", tmp_path)
    code, result = validate(folder)
    assert (code, result["success"]) == (0, True), json.dumps(result, indent=2)
    assert result["manifest"]["errors"] == result["manifest"]["warnings"] == []
    assert result["contents"] == []
    name = json.loads((folder / ".claude-plugin" / "plugin.json").read_text())["name"]
    project = bundles.project(BUNDLES[bundle], "claude")
    agents = [f"{name}:{flat_name(a)}" for a in project.translations.of(TRANSLATOR).tools]
    commands = [f"{name}:{flat_name(m)}" for m in project.modes]
    assert sorted(result["provides"]["agents"]) == sorted(agents)
    assert sorted(result["provides"]["commands"]) == sorted(commands)
    skills = [f"{name}:{skill}" for skill in project.skills]
    assert sorted(result["provides"].get("skills") or []) == sorted(skills)
    assert agents, "a bundle without agents would prove nothing"


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_the_claude_layout_validates_strictly(bundle: str, tmp_path: Path) -> None:
    oracle.binary("claude")
    code, result = validate(emit(bundle, "claude", tmp_path))
    assert (code, result["success"], result["contents"]) == (0, True, []), result


def test_the_validator_would_catch_a_broken_file(tmp_path: Path) -> None:
    # The checks above can fail: the same output with one agent's description
    # removed, and one command's frontmatter broken, is refused.
    oracle.binary("claude")
    folder = tmp_path / "broken"
    shutil.copytree(emit("fixture", "claude-plugin", tmp_path), folder)
    scout = folder / "agents" / "scout.md"
    scout.write_text(
        "".join(x for x in scout.read_text().splitlines(True) if not x.startswith("description:"))
    )
    review = folder / "commands" / "review.md"
    review.write_text(
        review.read_text().replace("---\n", "---\ndescription: <x>a: b</x>\n  - y\n", 1)
    )
    code, result = validate(folder)
    assert (code, result["success"]) == (1, False)
    flagged = {Path(entry["file"]).name for entry in result["contents"]}
    assert flagged == {"scout.md", "review.md"}
