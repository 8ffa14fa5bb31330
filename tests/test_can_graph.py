"""`promptc can` and `promptc graph`: exit codes, exact output, the deciding line."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.conftest import MakeBundle, Run
from tests.rules.conftest import agent

Runner = Callable[..., Run]

CRAFTSMAN = """
description: Implements what the user asks, delegating to smiths.
mode: primary
permission:
  bash:
    "*": ask
    "git *": allow
    "git push*": deny
  task:
    "*": deny
    smith: allow
    scout: ask
"""
TEAM = {
    "promptc.toml": "",
    "specs/agents/craftsman.md": agent(CRAFTSMAN),
    "specs/agents/smith.md": agent("description: Writes code in any language.\nmode: subagent"),
    "specs/agents/scout.md": agent("description: Reads the code and reports.\nmode: subagent"),
    "specs/agents/guild.md": agent(
        "description: Debates from several perspectives.\nmode: subagent"
    ),
}


@pytest.fixture
def team(make_bundle: MakeBundle) -> None:
    make_bundle(TEAM)


@pytest.mark.parametrize(
    ("args", "out"),
    [
        (
            ("craftsman", "bash", "git push origin main"),
            'deny  craftsman  bash "git push origin main"\n'
            'specs/agents/craftsman.md:8:5: bash "git push*": deny\n',
        ),
        (
            ("craftsman", "bash", "git status"),
            'allow  craftsman  bash "git status"\nspecs/agents/craftsman.md:7:5: bash "git *": allow\n',
        ),
        (
            ("craftsman", "bash", "ls"),
            'ask  craftsman  bash "ls"\nspecs/agents/craftsman.md:6:5: bash "*": ask\n',
        ),
        (
            ("craftsman", "task", "guild"),
            'deny  craftsman  task "guild"\nspecs/agents/craftsman.md:10:5: task "*": deny\n',
        ),
        (
            ("craftsman", "read", ".env"),
            'ask  craftsman  read ".env"\n'
            'built-in default: read "*.env": ask (OpenCode\'s defaults; nothing in the bundle decides this)\n',
        ),
        (
            ("smith", "task", "scout"),
            'deny  smith  task "scout"\nOpenCode subagent session: task: deny (added because '
            "`smith` runs as a subagent and its rules never mention `task`)\n",
        ),
        (
            ("smith", "task", "scout", "--as", "primary"),
            'allow  smith  task "scout"\n'
            'built-in default: "*": allow (OpenCode\'s defaults; nothing in the bundle decides this)\n',
        ),
        (
            ("craftsman", "edit"),
            'allow  craftsman  edit "*"\n'
            'built-in default: "*": allow (OpenCode\'s defaults; nothing in the bundle decides this)\n',
        ),
    ],
)
@pytest.mark.usefixtures("team")
def test_can(run: Runner, args: tuple[str, ...], out: str) -> None:
    result = run("can", *args)
    code = {"allow": 0, "ask": 10, "deny": 20}[out.split()[0]]
    assert (result.code, result.out, result.err) == (code, out, "")


@pytest.mark.parametrize(
    ("line", "action", "code"),
    [("git status", "allow", 0), ("ls", "ask", 10), ("git push", "deny", 20)],
)
@pytest.mark.usefixtures("team")
def test_can_exit_code_is_the_decision(run: Runner, line: str, action: str, code: int) -> None:
    # A script can write `promptc can a bash "rm -rf /" || fail`, or test $?.
    assert run("can", "craftsman", "bash", line).code == code
    assert run("can", "craftsman", "bash", line, "--format", "json").code == code
    expected = run("can", "craftsman", "bash", line, "--expect", action)
    assert (expected.code, expected.err) == (0, "")
    other = "ask" if action != "ask" else "deny"
    unexpected = run("can", "craftsman", "bash", line, "--expect", other)
    assert unexpected.code == 1
    assert unexpected.err == f"promptc: expected {other}, but OpenCode answers {action}\n"
    assert unexpected.out == expected.out


@pytest.mark.usefixtures("team")
def test_can_expect_takes_only_a_decision(run: Runner) -> None:
    result = run("can", "craftsman", "bash", "ls", "--expect", "maybe")
    assert result.code == 2
    assert "'maybe' is not one of 'allow', 'ask', 'deny'" in result.err


@pytest.mark.usefixtures("team")
def test_can_trace_lists_every_matching_rule(run: Runner) -> None:
    result = run("can", "craftsman", "bash", "git push", "--trace")
    assert result.out.splitlines()[2:] == [
        "matching rules, in order (the last one decides):",
        '  built-in default: "*": allow (OpenCode\'s defaults; nothing in the bundle decides this)',
        '  specs/agents/craftsman.md:6:5: bash "*": ask',
        '  specs/agents/craftsman.md:7:5: bash "git *": allow',
        '  specs/agents/craftsman.md:8:5: bash "git push*": deny',
    ]


@pytest.mark.usefixtures("team")
def test_can_json(run: Runner) -> None:
    result = run("can", "craftsman", "task", "scout", "--format", "json")
    data = json.loads(result.out)
    assert data["action"] == "ask"
    assert data["rule"] == {
        "permission": "task",
        "pattern": "scout",
        "action": "ask",
        "written": "scout",
        "origin": "agent",
        "path": "specs/agents/craftsman.md",
        "line": 12,
        "column": 5,
        "label": "craftsman",
    }
    assert len(data["matching"]) == 3


@pytest.mark.usefixtures("team")
def test_can_decides_a_command_line_per_command(run: Runner) -> None:
    # OpenCode asks about each command of a list, pipeline or substitution:
    # the strictest decides the line (`git add` alone is allowed).
    result = run("can", "craftsman", "bash", "git add . && git push")
    assert result.code == 20
    assert result.out == (
        'deny  craftsman  bash "git add . && git push"\n'
        'specs/agents/craftsman.md:8:5: bash "git push*": deny (for `git push`)\n'
        "each question, as OpenCode asks it (the strictest decides the call):\n"
        '  allow  git add .  specs/agents/craftsman.md:7:5: bash "git *": allow\n'
        '  deny  git push  specs/agents/craftsman.md:8:5: bash "git push*": deny\n'
    )
    assert result.err == ""
    line = run("can", "craftsman", "bash", "echo $(rm -rf /)", "--format", "json")
    data = json.loads(line.out)
    assert [(c["command"], c["action"]) for c in data["commands"]] == [
        ("external_directory /*", "ask"),  # OpenCode asks about `/` first
        ("echo $(rm -rf /)", "ask"),
        ("rm -rf /", "ask"),
    ]
    assert data["command"] == "external_directory /*"  # the first of the strictest decides
    assert line.code == 10
    pushed = json.loads(
        run("can", "craftsman", "bash", "git status; git push", "--format", "json").out
    )
    assert (pushed["command"], pushed["rule"]["line"]) == ("git push", 8)
    single = json.loads(run("can", "craftsman", "bash", "git push", "--format", "json").out)
    assert single["command"] is None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "promptc: the command line is empty: give the command to ask about\n"),
        ("  ", "promptc: the command line is empty: give the command to ask about\n"),
        (
            "npm test &&",
            "promptc: bash refuses `npm test &&`: no command after `&&` (a syntax error, "
            "so none of it runs); give the whole command line\n",
        ),
        (
            "; git status",
            "promptc: bash refuses `; git status`: no command before `;` (a syntax error, "
            "so none of it runs); give the whole command line\n",
        ),
    ],
)
@pytest.mark.usefixtures("team")
def test_can_refuses_a_line_bash_refuses_or_an_empty_one(
    run: Runner, line: str, message: str
) -> None:
    # OpenCode asks about the empty command tree-sitter finds after `&&`, and
    # bash refuses the line: no answer would say what the line does.
    result = run("can", "craftsman", "bash", line)
    assert (result.code, result.out, result.err) == (2, "", message)
    # The same commands, whole, are answered.
    assert run("can", "craftsman", "bash", "npm test && git status").code == 10
    assert run("can", "craftsman", "bash", "git status;").code == 0


@pytest.mark.usefixtures("team")
def test_can_allows_a_line_with_no_command_opencode_asks_about(run: Runner) -> None:
    # OpenCode's bash tool asks nothing for an assignment or a folder change in
    # the project, and runs the line: `"*": ask` does not decide it.
    why = "no command on the line is one OpenCode asks about: it runs the line unasked"
    result = run("can", "craftsman", "bash", "x=1")
    assert (result.code, result.out) == (0, f'allow  craftsman  bash "x=1"\n{why}\n')
    data = json.loads(run("can", "craftsman", "bash", "cd src", "--format", "json").out)
    assert (data["action"], data["rule"], data["why"]) == ("allow", None, why)
    # A command on the line is asked about as ever, and a rule decides it.
    assert run("can", "craftsman", "bash", "x=1 && ls").code == 10
    ruled = json.loads(run("can", "craftsman", "bash", "ls", "--format", "json").out)
    assert (ruled["action"], ruled["why"]) == ("ask", None)


def test_can_denies_even_an_assignment_to_an_agent_without_a_shell(
    make_bundle: MakeBundle, run: Runner
) -> None:
    quiet = "description: Reads and reports.\nmode: primary\npermission:\n  bash: deny"
    make_bundle({"promptc.toml": "", "specs/agents/quiet.md": agent(quiet)})
    result = run("can", "quiet", "bash", "x=1")
    assert result.code == 20  # OpenCode does not offer it the bash tool at all
    assert result.out.splitlines()[1] == "specs/agents/quiet.md:5:3: bash: deny"


def test_can_asks_only_about_the_folder_a_folder_change_leaves_for(
    make_bundle: MakeBundle, run: Runner
) -> None:
    make_bundle({"promptc.toml": "", "specs/agents/cleaner.md": agent(OUTSIDE)})
    data = json.loads(run("can", "cleaner", "bash", "cd /etc", "--format", "json").out)
    assert [(c["command"], c["action"]) for c in data["commands"]] == [
        ("external_directory /etc/*", "deny")
    ]
    assert run("can", "cleaner", "bash", "cd src").code == 0


OUTSIDE = """
description: Cleans up, inside the project only.
mode: primary
permission:
  external_directory: deny
  read: allow
  bash:
    "*": ask
    "rm *": allow
"""


def test_can_asks_about_folders_outside_the_project_first(
    make_bundle: MakeBundle, run: Runner
) -> None:
    # OpenCode asks `external_directory` for each folder outside the project a
    # file command or a path names, before the command itself.
    make_bundle({"promptc.toml": "", "specs/agents/cleaner.md": agent(OUTSIDE)})
    result = run("can", "cleaner", "bash", "rm -rf /etc/x")
    assert result.code == 20
    assert result.out.splitlines() == [
        'deny  cleaner  bash "rm -rf /etc/x"',
        "specs/agents/cleaner.md:5:3: external_directory: deny (for `external_directory /etc/*`)",
        "each question, as OpenCode asks it (the strictest decides the call):",
        "  deny  external_directory /etc/*  specs/agents/cleaner.md:5:3: external_directory: deny",
        '  allow  rm -rf /etc/x  specs/agents/cleaner.md:9:5: bash "rm *": allow',
    ]
    assert run("can", "cleaner", "bash", "rm -rf build/x").code == 0  # inside: allowed
    assert run("can", "cleaner", "read", "src/app.py").code == 0
    read = json.loads(run("can", "cleaner", "read", "/etc/passwd", "--format", "json").out)
    assert (read["action"], read["command"]) == ("deny", "external_directory /etc/*")
    assert run("can", "cleaner", "read", "/etc/passwd").code == 20


@pytest.mark.usefixtures("team")
def test_can_answers_for_a_target_from_its_files(run: Runner) -> None:
    result = run("can", "craftsman", "bash", "git status", "--target", "claude")
    first, why, opencode = result.out.splitlines()
    assert first.endswith('craftsman  bash "git status"  (Claude Code, from the claude files)')
    assert result.code == {"allow": 0, "ask": 10, "deny": 20}[first.split()[0]], result.err
    assert why
    assert opencode.startswith("OpenCode: allow  specs/agents/craftsman.md:7:5:")
    unknown = run("can", "craftsman", "bash", "ls", "--target", "vim")
    assert unknown.code == 2
    assert "no decision model for target `vim`" in unknown.err


@pytest.mark.usefixtures("team")
def test_can_target_names_the_command_that_decides(run: Runner) -> None:
    result = run("can", "craftsman", "bash", "ls && git push", "--target", "claude")
    assert result.out.splitlines() == [
        'deny  craftsman  bash "ls && git push"  (Claude Code, from the claude files)',
        ".claude/settings.json: deny `Bash(git push*)` (for `git push`)",
        "each command, as Claude Code answers it alone:",
        "  ask  ls  .claude/settings.json: ask `Bash(ls *)`",
        "  deny  git push  .claude/settings.json: deny `Bash(git push*)`",
        'OpenCode: deny  specs/agents/craftsman.md:8:5: bash "git push*": deny (for `git push`)',
    ]
    assert result.code == 20
    data = json.loads(
        run(
            "can", "craftsman", "bash", "ls && git push", "--target", "claude", "--format", "json"
        ).out
    )
    assert data["command"] == "git push"
    assert [(c["command"], c["action"]) for c in data["commands"]] == [
        ("ls", "ask"),
        ("git push", "deny"),
    ]


@pytest.mark.usefixtures("team")
def test_can_target_exit_code_is_that_runtimes_answer(run: Runner) -> None:
    # OpenCode allows `git status`; the codex files take the shell away from the
    # role: the exit code is Codex's answer, not OpenCode's nor the narrower one.
    result = run("can", "craftsman", "bash", "git status", "--target", "codex", "--format", "json")
    data = json.loads(result.out)
    assert (data["action"], data["opencode"]["action"], result.code) == ("deny", "allow", 20)
    expected = run(
        "can", "craftsman", "bash", "git status", "--target", "codex", "--expect", "allow"
    )
    assert expected.code == 1
    assert expected.err == "promptc: expected allow, but Codex answers deny\n"


@pytest.mark.usefixtures("team")
def test_can_names_a_permission_no_tool_asks_for(run: Runner) -> None:
    result = run("can", "craftsman", "bsh", "ls")
    assert result.code == 0  # allow
    assert result.out.startswith('allow  craftsman  bsh "ls"')
    assert result.err == (
        "note: no OpenCode tool asks for the permission `bsh` (did you mean `bash`?): "
        "this answer is for a tool of that name (an MCP or custom tool), if there is one\n"
    )


@pytest.mark.parametrize("permission", ["bash", "plan_db", "context7_search"])
def test_can_says_nothing_of_permissions_a_tool_may_ask_for(
    make_bundle: MakeBundle, run: Runner, permission: str
) -> None:
    make_bundle({**TEAM, "promptc.toml": 'custom_tools = ["plan_db", "context7_*"]\n'})
    result = run("can", "craftsman", permission, "x")
    assert result.code in (0, 10)  # allow or ask, no note
    assert result.err == ""


@pytest.mark.usefixtures("team")
def test_can_unknown_agent_is_a_usage_error(run: Runner) -> None:
    result = run("can", "craftsmen", "bash", "ls")
    assert result.code == 2
    assert "no agent `craftsmen` (did you mean `craftsman`?)" in result.err


def test_can_refuses_an_agent_that_does_not_load(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle({**TEAM, "specs/agents/smith.md": "---\ndescription: [unclosed\n---\nx\n"})
    result = run("can", "smith", "bash", "ls")
    assert result.code == 1
    assert "agent `smith` does not load; fix these first:" in result.err
    assert "specs/agents/smith.md:3:1: error [syntax] invalid YAML" in result.err


def test_can_refuses_values_opencode_refuses(make_bundle: MakeBundle, run: Runner) -> None:
    bad = agent(
        "description: Writes code in any language.\nmode: subagent\npermission:\n  bash: maybe"
    )
    make_bundle({**TEAM, "specs/agents/smith.md": bad})
    result = run("can", "smith", "bash", "ls")
    assert result.code == 1
    assert "specs/agents/smith.md:5:3: error [schema] 'maybe' is not an action" in result.err


@pytest.mark.usefixtures("team")
def test_graph_text(run: Runner) -> None:
    result = run("graph")
    assert result.code == 0
    assert result.out == (
        "craftsman (primary)\n"
        '  -> scout  ask    specs/agents/craftsman.md:12:5  task "scout": ask\n'
        '  -> smith  allow  specs/agents/craftsman.md:11:5  task "smith": allow\n'
        "no primary can start: guild\n"
    )


@pytest.mark.usefixtures("team")
def test_graph_mermaid(run: Runner) -> None:
    result = run("graph", "--format", "mermaid")
    assert result.out == (
        "flowchart LR\n"
        '  a_craftsman(["craftsman"])\n'
        '  a_guild["guild"]\n'
        '  a_scout["scout"]\n'
        '  a_smith["smith"]\n'
        '  a_craftsman -.->|"ask specs/agents/craftsman.md:12"| a_scout\n'
        '  a_craftsman -->|"allow specs/agents/craftsman.md:11"| a_smith\n'
    )


@pytest.mark.usefixtures("team")
def test_graph_dot(run: Runner) -> None:
    result = run("graph", "--format", "dot")
    assert result.out.splitlines() == [
        "digraph delegation {",
        "  rankdir=LR;",
        '  "craftsman" [shape=box];',
        '  "guild" [shape=ellipse];',
        '  "scout" [shape=ellipse];',
        '  "smith" [shape=ellipse];',
        '  "craftsman" -> "scout" [label="ask specs/agents/craftsman.md:12", style="dashed"];',
        '  "craftsman" -> "smith" [label="allow specs/agents/craftsman.md:11"];',
        "}",
    ]


def test_graph_shows_builtin_subagents_when_reached(make_bundle: MakeBundle, run: Runner) -> None:
    lead = agent("description: Starts anything it likes.\nmode: primary")
    make_bundle({"promptc.toml": "", "specs/agents/lead.md": lead})
    result = run("graph")
    assert result.out == (
        "lead (primary)\n"
        '  -> general  allow  built-in default  "*": allow\n'
        '  -> explore  allow  built-in default  "*": allow\n'
    )


def test_graph_refuses_when_an_agent_does_not_load(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle({**TEAM, "specs/agents/smith.md": "---\ndescription: [unclosed\n---\nx\n"})
    result = run("graph")
    assert (result.code, result.out) == (1, "")
    assert "cannot draw the delegation graph; fix these first:" in result.err
