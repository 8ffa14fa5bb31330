"""The decision oracles tell the four verdicts apart on every runtime.

First, without any runtime, the scripted model server: each protocol's
request is read into a Turn and the script's answer written back in that
protocol, and a Plan makes its calls in order, skipping tools not offered.

Then (marked `conformance`: `make conformance` runs them) each runtime's pinned CLI runs, offline, on a tiny hand-written project whose
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
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.claude import oracle as claude
from tests.codex import oracle as codex
from tests.copilot import oracle as copilot
from tests.gemini import oracle as gemini
from tests.opencode import oracle as opencode
from tests.oracles import Attempt, Outcome, harness
from tests.oracles.server import Call, Result, Turn, serve

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


BASH = Attempt("Bash", {"command": "ls"})
EDIT = Attempt("Write", {"file_path": "x", "content": "y"})
SPAWN = Attempt("Agent", {"prompt": f"{harness.MARKER}: go", "subagent_type": "helper"})


def turn(tools: Sequence[str], *results: tuple[str, str], said: str = "go") -> Turn:
    found = tuple(Result(call_id, text) for call_id, text in results)
    return Turn("anthropic", "/v1/messages", tuple(tools), said, found, False, {}, {})


def test_a_plan_makes_its_calls_in_order_and_skips_tools_not_offered() -> None:
    plan = harness.Plan((EDIT, BASH, EDIT))
    first = plan(turn(["Bash"]))
    assert isinstance(first, Call)
    assert (first.attempt, first.call_id) == (BASH, "call_oracle_a1")
    assert plan(turn(["Bash"], ("call_oracle_a1", "ok"))) == "done"
    second = plan(turn(["Bash", "Write"], ("call_oracle_a0", "ok")))
    assert isinstance(second, Call)
    assert second.call_id == "call_oracle_a1"


def test_a_delegating_plan_spawns_once_and_the_subagent_makes_the_calls() -> None:
    plan = harness.Plan((BASH,), (SPAWN,))
    spawn = plan(turn(["Agent", "Bash"]))
    assert isinstance(spawn, Call)
    assert spawn.attempt == SPAWN
    subagent = turn(["Bash"], said=f"{harness.MARKER}: go")
    call = plan(subagent)
    assert isinstance(call, Call)
    assert call.attempt == BASH
    assert plan.attempting(subagent)
    # Back in the main session, which quotes the marker only in a tool result.
    back = turn(["Agent", "Bash"], ("call_oracle_s0", f"{harness.MARKER} done"))
    assert plan(back) == "done"
    assert not plan.attempting(back)
    assert plan(turn(["Bash"], said=f"{harness.QUIET}: answer")) == "done"


def test_a_prelude_loads_a_deferred_tool_first() -> None:
    def search(attempt: Attempt, seen: Turn) -> Attempt | None:
        return (
            None if attempt.tool in seen.tools else Attempt("ToolSearch", {"query": attempt.tool})
        )

    plan = harness.Plan((EDIT,), prelude=search)
    first = plan(turn(["ToolSearch"]))
    assert isinstance(first, Call)
    assert first.call_id == "call_oracle_p0"
    loaded = plan(turn(["ToolSearch", "Write"], ("call_oracle_p0", "Write")))
    assert isinstance(loaded, Call)
    assert loaded.attempt == EDIT
    assert plan(turn(["ToolSearch"], ("call_oracle_p0", "nothing"))) == "done"


def requests(tool: str, call_id: str) -> dict[str, tuple[str, Callable[[bool], dict[str, Any]]]]:
    """Per protocol: its path, and a request offering `tool`, with or without
    the result of `call_id` ("it ran")."""

    def anthropic(answered: bool) -> dict[str, Any]:
        result = [{"type": "tool_result", "tool_use_id": call_id, "content": "it ran"}]
        messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
        messages += [{"role": "user", "content": result}] if answered else []
        return {"stream": True, "tools": [{"name": tool}], "messages": messages}

    def chat(answered: bool) -> dict[str, Any]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
        messages += (
            [{"role": "tool", "tool_call_id": call_id, "content": "it ran"}] if answered else []
        )
        return {"stream": True, "tools": [{"function": {"name": tool}}], "messages": messages}

    def responses(answered: bool) -> dict[str, Any]:
        items: list[dict[str, Any]] = [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
        ]
        items += (
            [{"type": "function_call_output", "call_id": call_id, "output": "it ran"}]
            if answered
            else []
        )
        tools = [
            {"type": "namespace", "name": "space", "tools": [{"type": "function", "name": tool}]}
        ]
        return {"stream": True, "tools": tools, "input": items}

    def gemini(answered: bool) -> dict[str, Any]:
        contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": "go"}]}]
        if answered:
            contents.append(
                {
                    "role": "model",
                    "parts": [{"functionCall": {"name": tool, "args": {}, "id": call_id}}],
                }
            )
            # No id on the response: the server takes the call's, by position.
            response = {"functionResponse": {"name": tool, "response": {"output": "it ran"}}}
            contents.append({"role": "user", "parts": [response]})
        return {"tools": [{"functionDeclarations": [{"name": tool}]}], "contents": contents}

    return {
        "toolu_": ("/v1/messages", anthropic),
        "call_": ("/v1/chat/completions", chat),
        "": ("/v1/responses", responses),
        "gemini": ("/v1beta/models/m:streamGenerateContent?alt=sse", gemini),
    }


def post(url: str, body: dict[str, Any]) -> str:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        text: str = answer.read().decode()
        return text


@pytest.mark.parametrize("prefix", ["toolu_", "call_", "", "gemini"])
def test_the_server_speaks_each_protocol(prefix: str) -> None:
    call_id = "call_oracle_a0" if prefix == "gemini" else f"{prefix}oracle_a0"
    path, build = requests("Bash", call_id)[prefix]
    plan = harness.Plan((BASH,), id_prefix="call_" if prefix == "gemini" else prefix)
    with serve(plan) as server:
        first = post(server.url + path, build(False))
        second = post(server.url + path, build(True))
        models = urllib.request.urlopen(server.url + "/v1/models", timeout=30).read()
        log = server.exchanges()
    assert "Bash" in first
    assert call_id in first
    assert "command" in first
    assert '"done"' in second
    assert "Bash" not in second
    assert [e.turn.tools for e in log] == [("Bash",), ("Bash",)]
    assert log[1].turn.results == (Result(call_id, "it ran"),)
    assert log[1].turn.user_text == "go"
    assert json.loads(models)["data"][0]["id"] == "mock-model"


def test_the_server_answers_side_requests_without_the_script() -> None:
    def never(_seen: Turn) -> str:
        raise AssertionError("a side request reached the script")

    with serve(never) as server:
        title = post(
            server.url + "/v1/chat/completions", {"messages": [{"role": "user", "content": "t"}]}
        )
        config = {"responseMimeType": "application/json"}
        side = post(
            server.url + "/v1beta/models/m:generateContent",
            {"generationConfig": config, "tools": [{"functionDeclarations": [{"name": "x"}]}]},
        )
        tokens = post(server.url + "/v1/messages/count_tokens", {})
    assert '"done"' in title
    assert (
        json.loads(json.loads(side)["candidates"][0]["content"]["parts"][0]["text"])["next_speaker"]
        == "user"
    )
    assert json.loads(tokens)["input_tokens"] == 1


PERMISSIONS = ["bash", "edit", "read", "glob", "grep", "list", "webfetch", "websearch"]
PERMISSIONS += ["task", "skill", "todowrite", "question"]
TOOLS = {  # per runtime, the tool each permission's call uses (None: no call)
    "claude": "Bash Write Read Glob Grep None WebFetch WebSearch Agent Skill TodoWrite AskUserQuestion",
    "opencode": "bash write read glob grep None webfetch websearch task skill todowrite question",
    "codex": "exec_command apply_patch None None None None None None spawn_agent None None request_user_input",
    "gemini": "run_shell_command write_file read_file glob grep_search list_directory web_fetch google_web_search invoke_agent activate_skill write_todos ask_user",
    "copilot": "bash create view glob grep view web_fetch web_search task skill None ask_user",
}
MODULES = {
    "claude": claude,
    "opencode": opencode,
    "codex": codex,
    "gemini": gemini,
    "copilot": copilot,
}


@pytest.mark.parametrize("runtime", list(TOOLS))
def test_every_opencode_permission_has_its_call_in_each_runtime(
    runtime: str, tmp_path: Path
) -> None:
    make: MakeAttempt = MODULES[runtime].attempt
    found = [make(permission, "notes.md", tmp_path) for permission in PERMISSIONS]
    assert [str(a.tool if a else None) for a in found] == TOOLS[runtime].split()
    edit = make("edit", "notes.md", tmp_path)
    assert edit is not None
    assert str(tmp_path.resolve() / "notes.md") in json.dumps(edit.arguments)
    assert make("nosuch", "x", tmp_path) is None


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


@pytest.mark.slow
@pytest.mark.conformance
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


@pytest.mark.slow
@pytest.mark.conformance
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


@pytest.mark.slow
@pytest.mark.conformance
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
    assert (project / "ran.txt").exists()
    assert not (project / "asked").exists()
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


@pytest.mark.slow
@pytest.mark.conformance
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


@pytest.mark.slow
@pytest.mark.conformance
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
