"""unmanaged-file: `promptc check` names a file promptc did not generate where a runtime loads it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run

Runner = Callable[..., Run]
CONFIG = "[targets.opencode]\n[targets.claude]\n[targets.claude-plugin]\n"


@pytest.mark.parametrize(
    ("rel", "runtime"),
    [
        ("opencode/.opencode/agents/extra.md", "OpenCode"),
        ("opencode/.opencode/agent/team/extra.md", "OpenCode"),
        ("opencode/.opencode/commands/extra.md", "OpenCode"),
        ("opencode/.opencode/skills/extra/SKILL.md", "OpenCode"),
        ("opencode/opencode.jsonc", "OpenCode"),
        ("claude/.claude/agents/extra.md", "Claude Code"),
        ("claude/.claude/commands/extra.md", "Claude Code"),
        ("claude/.claude/settings.local.json", "Claude Code"),
        ("claude-plugin/agents/extra.md", "Claude Code"),
    ],
)
def test_check_warns_of_a_file_the_runtime_loads_that_promptc_did_not_write(
    sample: Path, run: Runner, rel: str, runtime: str
) -> None:
    (sample / "promptc.toml").write_text(CONFIG)
    assert run("build").code == 0
    extra = sample / "build" / rel
    extra.parent.mkdir(parents=True, exist_ok=True)
    extra.write_text("---\ndescription: Added by hand.\n---\nHola.\n")
    done = run("check")
    assert done.code == 0, done.out
    assert (
        f"build/{rel}:1:1: warning [unmanaged-file] promptc did not generate this file, "
        f"and {runtime} loads it from here"
    ) in done.out
    assert run("check", "--strict").code == 1
    assert extra.read_text().endswith("Hola.\n")  # never touched
    assert run("build").code == 0
    assert extra.is_file()


def test_check_is_quiet_about_files_no_runtime_loads(sample: Path, run: Runner) -> None:
    (sample / "promptc.toml").write_text(CONFIG)
    assert run("build").code == 0
    for rel in ("opencode/NOTES.txt", "opencode/.opencode/agents/README", "claude/.claude/x.md"):
        (sample / "build" / rel).write_text("notes\n")
    done = run("check")  # not --strict: the plugin's agents lose Read (lost-tool)
    assert done.code == 0, done.out
    assert "[unmanaged-file]" not in done.out


def test_a_file_added_after_a_cached_check_is_named(sample: Path, run: Runner) -> None:
    assert run("build").code == 0
    assert run("check").code == 0  # stored in the result cache
    (sample / "build/opencode/.opencode/agents/extra.md").write_text("Hola.\n")
    assert "[unmanaged-file]" in run("check").out
