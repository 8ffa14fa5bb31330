"""The decision oracles tell the four verdicts apart on every runtime.

Each runtime's pinned CLI runs, offline, on a tiny hand-written project whose
settings allow one command (`touch ran.txt`), deny another (`rm -f .env`)
and ask for a third (`mkdir asked`), with an agent that lacks the edit tool.
One run makes the agent attempt all four calls; a second run has the main
session delegate to a subagent that attempts the allowed command. The
verdicts are checked against what happened on disk: the allowed file is
there, `.env` survived, nothing was made for the asked call or the absent
tool. tests/oracles/FACTS.md holds what the runtimes were seen to decide.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.oracles import Attempt, Outcome, claude, codex, copilot, gemini, harness, opencode

pytestmark = [pytest.mark.slow, pytest.mark.conformance]

ALLOWED, DENIED, ASKED = "touch ran.txt", "rm -f .env", "mkdir asked"
DELEGATED = "touch delegated.txt"


MakeAttempt = Callable[[str, str, Path], Attempt | None]


def calls(make: MakeAttempt, project: Path, *commands: str) -> list[Attempt]:
    """The calls that run `commands` in the runtime's shell."""
    found = [make("bash", command, project) for command in commands]
    return [call for call in found if call is not None]


def main_calls(make: MakeAttempt, project: Path) -> list[Attempt]:
    """The allowed, denied and asked commands, and a new file the agent has no tool for."""
    edit = make("edit", "absent.txt", project)
    assert edit is not None
    return [*calls(make, project, ALLOWED, DENIED, ASKED), edit]


def check_main(project: Path, found: Sequence[Outcome]) -> None:
    assert [o.verdict for o in found] == ["ran", "refused", "asked", "absent"], found
    assert (project / "ran.txt").exists()
    assert (project / ".env").read_text() == f"SECRET={harness.SECRET}\n"
    assert not (project / "asked").exists()
    assert not (project / "absent.txt").exists()


def check_delegated(project: Path, found: Sequence[Outcome]) -> None:
    assert [o.verdict for o in found] == ["ran", "refused"], found
    assert (project / "delegated.txt").exists()
    assert (project / ".env").exists()


def test_claude(tmp_path: Path) -> None:
    settings = {
        "permissions": {
            "allow": ["Bash(touch ran.txt)", "Bash(touch delegated.txt)"],
            "ask": ["Bash(mkdir *)"],
            "deny": ["Bash(rm *)"],
        }
    }
    agent = "---\nname: helper\ndescription: Helps.\ntools: Bash, Read\n---\nYou help.\n"
    project = harness.scratch_project(
        tmp_path / "project",
        {".claude/settings.json": json.dumps(settings), ".claude/agents/helper.md": agent},
    )
    check_main(project, claude.run(project, main_calls(claude.attempt, project), agent="helper"))
    attempts = calls(claude.attempt, project, DELEGATED, DENIED)
    found = claude.run(project, attempts, agent="helper", delegate=True)
    check_delegated(project, found)


def test_opencode(tmp_path: Path) -> None:
    config = {
        "$schema": "https://opencode.ai/config.json",
        "permission": {"bash": {"*": "ask", "touch *": "allow", "rm *": "deny"}},
    }
    worker = "---\ndescription: Works.\nmode: primary\npermission:\n  edit: deny\n---\nYou work.\n"
    helper = "---\ndescription: Helps.\nmode: subagent\n---\nYou help.\n"
    project = harness.scratch_project(
        tmp_path / "project",
        {
            "opencode.json": json.dumps(config),
            ".opencode/agents/worker.md": worker,
            ".opencode/agents/helper.md": helper,
        },
    )
    check_main(
        project, opencode.run(project, main_calls(opencode.attempt, project), agent="worker")
    )
    attempts = calls(opencode.attempt, project, DELEGATED, DENIED)
    found = opencode.run(project, attempts, agent="helper", delegate=True)
    check_delegated(project, found)


ROLE = 'name = "helper"\ndescription = "Helps."\ndeveloper_instructions = "You help."\n'


def test_codex(tmp_path: Path) -> None:
    rules = (
        'prefix_rule(pattern=["touch"], decision="allow")\n'
        'prefix_rule(pattern=["rm"], decision="forbidden")\n'
        'prefix_rule(pattern=["mkdir"], decision="prompt")\n'
    )
    # Without the multi-agent feature the main session has no agent tools:
    # the absent call is the spawn (Codex cannot take apply_patch away).
    no_agents = "[features]\nmulti_agent = false\n"
    project = harness.scratch_project(
        tmp_path / "project",
        {
            ".codex/rules/oracle.rules": rules,
            ".codex/config.toml": no_agents,
            ".codex/agents/helper.toml": ROLE,
        },
    )
    spawn = codex.attempt("task", "helper", project)
    assert spawn is not None
    found = codex.run(project, [*calls(codex.attempt, project, ALLOWED, DENIED, ASKED), spawn])
    assert [o.verdict for o in found] == ["ran", "refused", "asked", "absent"], found
    assert (project / "ran.txt").exists() and not (project / "asked").exists()
    assert (project / ".env").exists()
    (project / ".codex" / "config.toml").write_text("")
    attempts = calls(codex.attempt, project, DELEGATED, DENIED)
    found = codex.run(project, attempts, agent="helper", delegate=True)
    check_delegated(project, found)


POLICY = """\
[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch"
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "mkdir"
decision = "ask_user"
priority = 100
"""


def test_gemini(tmp_path: Path) -> None:
    # Gemini 0.61 reads no policy from the project: the rules are the user's.
    home = tmp_path / "home"
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".gemini" / "policies" / "oracle.toml").write_text(POLICY)
    helper = "---\nname: helper\ndescription: Helps.\ntools: [run_shell_command]\n---\nYou help.\n"
    project = harness.scratch_project(tmp_path / "project", {".gemini/agents/helper.md": helper})
    # No rule allows write_file: in -p mode it is not offered at all.
    check_main(project, gemini.run(project, main_calls(gemini.attempt, project), home=home))
    attempts = calls(gemini.attempt, project, DELEGATED, DENIED)
    found = gemini.run(project, attempts, agent="helper", delegate=True, home=home)
    check_delegated(project, found)


def test_copilot(tmp_path: Path) -> None:
    helper = "---\nname: helper\ndescription: Helps.\ntools: [execute]\n---\nYou help.\n"
    project = harness.scratch_project(
        tmp_path / "project", {".github/agents/helper.agent.md": helper}
    )
    flags = ["--allow-tool", "shell(touch:*)", "--deny-tool", "shell(rm:*)"]
    check_main(
        project,
        copilot.run(project, main_calls(copilot.attempt, project), agent="helper", flags=flags),
    )
    attempts = calls(copilot.attempt, project, DELEGATED, DENIED)
    found = copilot.run(project, attempts, agent="helper", delegate=True, flags=flags)
    check_delegated(project, found)
