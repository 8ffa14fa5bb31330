"""The gemini target: an extension (`agents/`, `commands/`, `skills/`), its policy rules, reports."""

from __future__ import annotations

import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from promptc_compiler.permissions.calls import Call
from promptc_compiler.runtimes.gemini import decide as gemini_model
from tests import bundles
from tests.conftest import MakeBundle, Run


def agent(mode: str, permission: str = "", extra: str = "", body: str = "Cuerpo.\n") -> str:
    lines = "".join(f"  {line}\n" for line in textwrap.dedent(permission).strip().splitlines())
    block = f"permission:\n{lines}" if lines else ""
    return f"---\ndescription: Agente de prueba para los targets.\nmode: {mode}\n{extra}{block}---\n{body}"


def emitted(root: Path) -> dict[str, str]:
    return {rel: data.decode() for rel, data in bundles.render(root, "gemini").items()}


def front(text: str) -> dict[str, Any]:
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def test_a_subagent_file_has_the_keys_gemini_takes_in_order(make_bundle: MakeBundle) -> None:
    root = make_bundle(
        {
            "promptc.toml": '[targets.gemini]\nmodels = { "google/gemini-2.5-pro" = "gemini-2.5-pro" }\n',
            "specs/agents/team/reviewer.md": agent(
                "subagent",
                '"*": deny\nread: allow\ngrep: allow',
                "model: google/gemini-2.5-pro\nsteps: 12\n",
            ),
        }
    )
    text = emitted(root)["agents/team-reviewer.md"]
    assert front(text) == {
        "kind": "local",
        "name": "team-reviewer",
        "description": "Agente de prueba para los targets.",
        "tools": ["read_file", "read_many_files", "grep_search"],
        "model": "gemini-2.5-pro",
        "max_turns": 12,
    }
    assert list(front(text)) == ["kind", "name", "description", "tools", "model", "max_turns"]


def test_a_tool_opencode_allows_in_part_is_kept_under_policy_rules_for_the_agent(
    make_bundle: MakeBundle,
) -> None:
    permission = """
        edit:
          "*": allow
          "*.env": deny
        read:
          "*": allow
          "*.env": deny
        bash: ask
        webfetch: ask
        skill:
          "*": deny
          "team-*": allow
    """
    root = make_bundle({"promptc.toml": "", "specs/agents/a.md": agent("subagent", permission)})
    files = emitted(root)
    tools = front(files["agents/a.md"])["tools"]
    kept = {
        "replace",
        "write_file",
        "run_shell_command",
        "activate_skill",
        "read_file",
        "web_fetch",
    }
    assert kept <= set(tools)
    assert "read_many_files" not in tools
    user = tomllib.loads(files["user-policies/promptc.toml"])["rule"]
    extension = tomllib.loads(files["policies/promptc.toml"])["rule"]
    assert all(rule["subagent"] == "a" for rule in user)
    # The extension holds every rule but the allows (Gemini drops an extension's allow).
    assert extension == [rule for rule in user if rule["decision"] != "allow"]
    decided = {(r["toolName"], r["decision"]) for r in user}
    assert {("write_file", "allow"), ("write_file", "deny"), ("web_fetch", "ask_user")} <= decided
    model = gemini_model.load(files)
    for permission, text, action in (
        ("bash", "ls", "ask"),
        ("edit", "src/a.py", "allow"),
        ("edit", "x.env", "deny"),
        ("skill", "team-flow", "allow"),
        ("skill", "other", "deny"),
        ("webfetch", "https://example.com/", "ask"),
    ):
        assert model.decide(Call("a", permission, text, delegated=True)).action == action, text
    report = files["TRANSLATION.md"]
    assert "`read_many_files`: lost, left out of a's tools" in report
    assert "gemini extensions link build/gemini" in report


def test_a_rule_that_a_later_one_with_its_pattern_covers_is_not_written(
    make_bundle: MakeBundle,
) -> None:
    # OpenCode's own `"*": allow` comes first in the agent's rules; its `"*": deny`
    # is the same pattern later: Gemini would never read the first.
    permission = """
        edit:
          "*": deny
          "*.md": allow
    """
    root = make_bundle({"promptc.toml": "", "specs/agents/a.md": agent("subagent", permission)})
    files = emitted(root)
    for rel in ("user-policies/promptc.toml", "policies/promptc.toml"):
        rules = tomllib.loads(files[rel])["rule"]
        alike = [(r["toolName"], r["subagent"], r.get("argsPattern")) for r in rules]
        assert len(alike) == len(set(alike)), rel
    user = tomllib.loads(files["user-policies/promptc.toml"])["rule"]
    assert [(r["priority"], r["decision"]) for r in user if r["toolName"] == "replace"] == [
        (100, "ask_user"),  # every call, below the rest
        # (101: OpenCode's `"*": allow`)
        (102, "deny"),
        (103, "allow"),
        (104, "deny"),  # a path that is not plain, where a deny could decide it
        (104, "deny"),  # a clean absolute path the deny's pattern matches
    ]
    model = gemini_model.load(files)
    for text, action in (("src/a.py", "deny"), ("docs/a.md", "allow"), ("/etc/x", "deny")):
        assert model.decide(Call("a", "edit", text, delegated=True)).action == action, text


def test_primaries_are_not_written_and_say_why(make_bundle: MakeBundle) -> None:
    root = make_bundle(
        {
            "promptc.toml": "",
            "specs/agents/lead.md": agent("primary"),
            "specs/agents/helper.md": agent("all"),
        }
    )
    files = emitted(root)
    assert "agents/lead.md" not in files
    assert "agents/helper.md" in files
    assert (
        "### lead\n\nNot written.\n\n- not written for Gemini CLI: a primary agent"
        in files["TRANSLATION.md"]
    )


def test_modes_become_commands_with_args_and_the_shell_lines_their_agent_may_run(
    make_bundle: MakeBundle,
) -> None:
    mode = (
        "---\ndescription: 'Construye: con \"comillas\"'\nagent: lead\n---\n"
        "Estado: !`git status`\nBorra: !`rm -rf tmp`\nPedido: $ARGUMENTS\n"
    )
    permission = """
        bash:
          "*": ask
          "git status*": allow
    """
    root = make_bundle(
        {
            "promptc.toml": "",
            "specs/agents/lead.md": agent("primary", permission),
            "specs/modes/build.md": mode,
        }
    )
    files = emitted(root)
    command = tomllib.loads(files["commands/build.toml"])
    assert command == {
        "description": 'Construye: con "comillas"',
        "prompt": "Estado: !{git status}\nBorra: !`rm -rf tmp`\nPedido: {{args}}\n",
    }
    report = files["TRANSLATION.md"]
    assert "Gemini CLI runs the command in its main session, not as lead" in report
    assert "`!`rm -rf tmp`` stays text in Gemini CLI" in report


def test_a_prompt_no_literal_string_can_hold_is_written_as_a_basic_string(
    make_bundle: MakeBundle,
) -> None:
    body = "Uno ''' dos\ttres \x7f fin'"
    root = make_bundle(
        {
            "promptc.toml": "",
            "specs/modes/m.md": f"---\ndescription: Modo de prueba.\n---\n{body}\n",
        }
    )
    assert tomllib.loads(emitted(root)["commands/m.toml"])["prompt"] == body + "\n"


def test_what_gemini_would_refuse_or_run_otherwise_is_an_error(
    make_bundle: MakeBundle, run: Any
) -> None:
    make_bundle(
        {
            "promptc.toml": "[targets.gemini]\n",
            "specs/agents/Reviewer.md": agent("subagent"),
            "specs/agents/_draft.md": agent("subagent"),
            "specs/agents/mute.md": "---\nmode: subagent\n---\nCuerpo.\n",
            "specs/agents/a.md": agent("subagent", body="Usa ${PROJECT_ROOT} como raíz.\n"),
            "specs/modes/m.md": "---\ndescription: Modo de prueba.\n---\nMira !{ls} y @{README.md}\n",
        }
    )
    result: Run = run("build")
    assert result.code == 1
    out = result.out
    assert (
        "specs/agents/Reviewer.md:1:1: error [runtime-limits] Gemini CLI names an agent by a slug"
        in out
    )
    assert "specs/agents/_draft.md:1:1: error [runtime-limits] Gemini CLI names an agent" in out
    assert (
        "specs/agents/mute.md:1:1: error [runtime-limits] Gemini CLI refuses an agent without"
        in out
    )
    assert "specs/agents/a.md:5:5: error [runtime-limits] Gemini CLI fills `${PROJECT_ROOT}`" in out
    assert (
        "specs/modes/m.md:4:6: error [runtime-limits] Gemini CLI reads `!{` in a command as a shell"
        in out
    )
    assert (
        "specs/modes/m.md:4:14: error [runtime-limits] Gemini CLI reads `@{` in a command as a file"
        in out
    )
    assert not Path("build").exists()


def test_temperature_is_left_out_and_reported(make_bundle: MakeBundle, run: Any) -> None:
    make_bundle(
        {
            "promptc.toml": "[targets.gemini]\n",
            "specs/agents/a.md": agent("subagent", extra="temperature: 0.3\n"),
        }
    )
    result: Run = run("lint", "--verbose")
    assert (
        "a.md:4:1: info [lossy-translation] `temperature` has no Gemini CLI equivalent"
        in result.out
    )


def test_targets_gemini_keys_are_written_as_given_and_temperature_reported(
    make_bundle: MakeBundle, run: Any
) -> None:
    override = """\
        targets:
          gemini:
            description: Reviews diffs for Gemini users.
            display_name: Reviewer
            model: gemini-2.5-pro
            temperature: 0.2
            max_turns: 7
            timeout_mins: 5
        """
    make_bundle(
        {
            "promptc.toml": "[targets.gemini]\n",
            "specs/agents/rev.md": agent(
                "subagent", extra="model: x/unmapped\nsteps: 30\n" + textwrap.dedent(override)
            ),
        }
    )
    files = emitted(Path.cwd())
    meta = front(files["agents/rev.md"])
    assert {key: meta[key] for key in ("description", "model", "max_turns")} == {
        "description": "Reviews diffs for Gemini users.",
        "model": "gemini-2.5-pro",
        "max_turns": 7,
    }
    assert (meta["display_name"], meta["temperature"], meta["timeout_mins"]) == ("Reviewer", 0.2, 5)
    assert "counterpart" not in files["TRANSLATION.md"]
    result: Run = run("lint", "--verbose")
    assert (
        "specs/agents/rev.md:11:5: info [lossy-translation] `targets.gemini.temperature` is "
        "written, but Gemini CLI 0.61 does not send" in result.out
    )


@pytest.mark.parametrize(
    ("line", "position", "message"),
    [
        ("tools: [run_shell_command]", (6, 5), "$.targets.gemini.tools: cannot be overridden"),
        ("mcp_servers: {}", (6, 5), "$.targets.gemini.mcp_servers: cannot be overridden"),
        ('max_turns: "3"', (6, 16), "$.targets.gemini.max_turns: must be a whole number"),
        (
            'description: ""',
            (6, 18),
            "$.targets.gemini.description: must be a text that is not empty",
        ),
        ("kind: remote", (6, 5), "unknown key 'kind' at $.targets.gemini"),
    ],
)
def test_a_gemini_override_of_the_wrong_type_or_that_widens_is_an_error_at_its_key(
    make_bundle: MakeBundle, run: Any, line: str, position: tuple[int, int], message: str
) -> None:
    make_bundle(
        {
            "promptc.toml": "[targets.gemini]\n",
            "specs/agents/rev.md": agent("subagent", extra=f"targets:\n  gemini:\n    {line}\n"),
        }
    )
    done: Run = run("build")
    assert done.code == 1
    assert f"specs/agents/rev.md:{position[0]}:{position[1]}: error [schema] {message}" in done.out
    assert not Path("build").exists()


def test_skills_are_written_where_gemini_reads_them_as_opencode_gets_them() -> None:
    fixture = bundles.FIXTURES / "skills"
    files = emitted(fixture)
    opencode = bundles.render(fixture, "opencode")
    skills = {
        rel.removeprefix("skills/"): text
        for rel, text in files.items()
        if rel.startswith("skills/")
    }
    assert "team-flow/roles/coder/role.md" in skills
    assert skills == {
        rel.removeprefix(".opencode/skills/"): data.decode()
        for rel, data in opencode.items()
        if rel.startswith(".opencode/skills/")
    }


def test_what_a_mode_says_that_a_gemini_command_cannot_is_reported_at_its_key(
    make_bundle: MakeBundle, run: Any
) -> None:
    mode = (
        "---\ndescription: Revisa el cambio pedido.\nagent: rev\nmodel: x/y\nsubtask: true\n"
        "---\nRevisa: $ARGUMENTS\n"
    )
    make_bundle(
        {
            "promptc.toml": "[targets.gemini]\n",
            "specs/agents/rev.md": agent("subagent"),
            "specs/modes/review.md": mode,
        }
    )
    result: Run = run("lint", "--verbose")
    for line, text in (
        (3, "Gemini CLI runs the command in its main session, not as rev"),
        (4, "`model` has no Gemini CLI command equivalent"),
        (5, "`subtask` has no Gemini CLI command equivalent"),
    ):
        assert f"specs/modes/review.md:{line}:1: info [lossy-translation] {text}" in result.out
    report = emitted(Path.cwd())["TRANSLATION.md"]
    assert "### /review\n\n- Gemini CLI runs the command in its main session" in report


def test_a_positional_argument_in_a_mode_is_reported_where_it_stands(
    make_bundle: MakeBundle, run: Any
) -> None:
    # Gemini CLI fills only {{args}}: `$1` reaches the model as the text `$1`.
    mode = "---\ndescription: Revisa.\n---\nRevisa $1 y luego $2.\nCuesta $$1; todo: $ARGUMENTS\n"
    make_bundle(
        {
            "promptc.toml": "[targets.gemini]\n",
            "specs/agents/rev.md": agent("primary"),
            "specs/modes/review.md": mode,
        }
    )
    result: Run = run("lint", "--verbose")
    for column, number in ((8, 1), (19, 2)):
        assert (
            f"specs/modes/review.md:4:{column}: info [lossy-translation] `${number}` stays text "
            "in Gemini CLI: a command takes its arguments whole"
        ) in result.out
    assert "review.md:5:" not in result.out
    command = tomllib.loads(emitted(Path.cwd())["commands/review.toml"])
    assert command["prompt"] == "Revisa $1 y luego $2.\nCuesta $$1; todo: {{args}}\n"
    assert "`$1` stays text in Gemini CLI" in emitted(Path.cwd())["TRANSLATION.md"]
