"""lost-tool: one short line per agent that a target takes tools from, and under
--verbose what each runtime takes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import MakeBundle, Run
from tests.rules.conftest import agent

Runner = Callable[..., Run]
SCOUT = """
description: Reads the code and reports.
mode: primary
permission:
  bash:
    "*": ask
    "git status*": allow
"""
# Everything it may do, Claude Code can say for it.
SMITH = """
description: Writes the code.
mode: primary
permission:
  bash: allow
  edit: allow
  task: deny
"""
TARGETS = "[targets.opencode]\n[targets.claude-plugin]\n[targets.codex]\n"
LONG = "an-agent-whose-name-runs-on-and-on-for-quite-a-while-yet"


def test_a_lost_tool_is_one_short_line_and_verbose_says_what_each_runtime_takes(
    make_bundle: MakeBundle, run: Runner
) -> None:
    make_bundle({"promptc.toml": TARGETS, "specs/agents/scout.md": agent(SCOUT)})
    warning = (
        "specs/agents/scout.md:4:1: warning [lost-tool] "
        "`scout` loses delegation, read, search, shell, skills"
    )
    done = run("build")
    assert done.code == 0, done.out
    assert [line for line in done.lines if "[lost-tool]" in line] == [warning]
    assert len(warning) <= 120
    verbose = run("build", "--verbose").out.splitlines()
    at = verbose.index(warning)
    assert verbose[at + 1 : at + 3] == [
        "    Claude Code (claude-plugin): delegation, read, shell: OpenCode lets `scout` make "
        "such calls, the claude-plugin files none",
        "    Codex (codex): delegation, read, search, shell, skills: OpenCode lets `scout` make "
        "such calls, the codex files none",
    ]


def test_tools_too_many_to_name_on_the_line_are_counted(
    make_bundle: MakeBundle, run: Runner
) -> None:
    make_bundle({"promptc.toml": TARGETS, f"specs/agents/{LONG}.md": agent(SCOUT)})
    found = [line for line in run("build").lines if "[lost-tool]" in line]
    assert found == [f"specs/agents/{LONG}.md:4:1: warning [lost-tool] `{LONG}` loses 5 tools"]


def test_an_agent_that_keeps_every_tool_is_not_named(make_bundle: MakeBundle, run: Runner) -> None:
    config = "[targets.opencode]\n[targets.claude]\n"
    make_bundle({"promptc.toml": config, "specs/agents/smith.md": agent(SMITH)})
    done = run("build")
    assert done.code == 0, done.out
    assert "[lost-tool]" not in done.out
    assert "promptc: claude: 1 agents; no tool lost;" in done.err


def test_the_level_can_be_changed_and_turned_off(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle({"promptc.toml": TARGETS, "specs/agents/scout.md": agent(SCOUT)})
    rules = TARGETS + '[rules.lost-tool]\nlevel = "{}"\n'
    Path("promptc.toml").write_text(rules.format("error"))
    failed = run("build")
    assert failed.code == 1
    assert [line for line in failed.lines if "[lost-tool]" in line] == [
        "specs/agents/scout.md:4:1: error [lost-tool] "
        "`scout` loses delegation, read, search, shell, skills"
    ]
    Path("promptc.toml").write_text(rules.format("off"))
    assert "[lost-tool]" not in run("build").out
