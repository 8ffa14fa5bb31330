"""The copilot target: `.github/agents/<name>.agent.md` files, their tools, and what is reported."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from promptc_compiler import api
from promptc_compiler.base.errors import ConfigError
from promptc_compiler.core.config import load_config
from promptc_compiler.permissions.calls import Call
from promptc_compiler.runtimes.copilot import decide as copilot_model
from tests import bundles
from tests.conftest import MakeBundle, Run


def agent(mode: str, permission: str = "", extra: str = "", body: str = "Cuerpo.\n") -> str:
    lines = "".join(f"  {line}\n" for line in textwrap.dedent(permission).strip().splitlines())
    block = f"permission:\n{lines}" if lines else ""
    return f"---\ndescription: Agente de prueba para los targets.\nmode: {mode}\n{extra}{block}---\n{body}"


def emitted(root: Path) -> dict[str, str]:
    return {rel: data.decode() for rel, data in bundles.render(root, "copilot").items()}


def front(text: str) -> dict[str, Any]:
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def test_an_agent_file_has_name_description_tools_model_in_that_order(
    make_bundle: MakeBundle,
) -> None:
    root = make_bundle(
        {
            "promptc.toml": '[targets.copilot]\nmodels = { "openai/gpt-4.1" = "gpt-4.1" }\n',
            "specs/agents/team/reviewer.md": agent("subagent", extra="model: openai/gpt-4.1\n"),
        }
    )
    text = emitted(root)[".github/agents/team-reviewer.agent.md"]
    assert list(front(text)) == ["name", "description", "tools", "model", "hooks"]
    assert front(text)["name"] == "team-reviewer"
    assert front(text)["model"] == "gpt-4.1"
    assert text.endswith("---\nCuerpo.\n")
    # One command hook: its POSIX script (a literal block), and a PowerShell form
    # (what Copilot runs on Windows) that refuses every call.
    (hook,) = front(text)["hooks"]["preToolUse"]
    assert list(hook) == ["type", "bash", "powershell"]
    assert hook["type"] == "command"
    assert hook["bash"].startswith("# promptc: OpenCode's permission rules for team-reviewer,")
    assert "      bash: |\n        # promptc:" in text
    assert '\\"permissionDecision\\":\\"deny\\"' in text


def test_tools_hold_every_alias_opencode_does_not_deny_wholly_and_the_hook_decides(
    make_bundle: MakeBundle,
) -> None:
    permission = """
        read: allow
        edit: deny
        bash:
          "*": deny
          "git status*": allow
        webfetch: allow
        websearch: ask
    """
    root = make_bundle({"promptc.toml": "", "specs/agents/a.md": agent("subagent", permission)})
    files = emitted(root)
    assert front(files[".github/agents/a.agent.md"])["tools"] == [
        "read",
        "search",
        "execute",
        "web",
        "skill",
    ]
    model = copilot_model.load(files)
    for permission_, text, action in (
        ("bash", "git status", "allow"),
        ("bash", "git status && rm -rf x", "deny"),
        ("bash", "ls", "deny"),
        ("edit", "src/a.py", "deny"),
        ("read", "src/a.py", "allow"),
        ("webfetch", "https://example.com/", "allow"),
        ("websearch", "*", "ask"),
    ):
        assert model.decide(Call("a", permission_, text, delegated=True)).action == action, text


def test_an_agent_allowed_nothing_wholly_gets_an_empty_list_not_the_default(
    make_bundle: MakeBundle,
) -> None:
    permission = '"*": deny'
    root = make_bundle({"promptc.toml": "", "specs/agents/a.md": agent("subagent", permission)})
    text = emitted(root)[".github/agents/a.agent.md"]
    assert "tools: []\n" in text


def test_primaries_and_agents_build_may_not_start_are_hidden_from_task(
    make_bundle: MakeBundle,
) -> None:
    root = make_bundle(
        {
            "promptc.toml": '[permission]\ntask = { "*" = "allow", "secret" = "deny" }\n',
            "specs/agents/lead.md": agent("primary"),
            "specs/agents/secret.md": agent("subagent"),
            "specs/agents/open.md": agent("subagent"),
        }
    )
    files = emitted(root)
    infer = {
        n: front(files[f".github/agents/{n}.agent.md"]).get("infer")
        for n in ("lead", "secret", "open")
    }
    assert infer == {"lead": False, "secret": False, "open": None}
    assert "hidden from Copilot's `task`" in files["TRANSLATION.md"]


def test_every_lost_rule_and_key_is_reported_at_its_line(make_bundle: MakeBundle, run: Any) -> None:
    permission = """
        bash:
          "*": deny
          "git status*": allow
        question: allow
    """
    make_bundle(
        {
            "promptc.toml": "[targets.copilot]\n",
            "specs/agents/a.md": agent(
                "subagent", permission, extra="temperature: 0.2\nmodel: x/y\n"
            ),
        }
    )
    result: Run = run("lint", "--verbose")
    lines = [line for line in result.out.splitlines() if "lossy-translation" in line]
    assert any(
        "specs/agents/a.md:10:3:" in line and "Copilot CLI gives a no `question` tool" in line
        for line in lines
    ), lines
    assert not any("`bash" in line for line in lines), lines  # the hook keeps those rules
    assert any("a.md:4:1:" in line and "`temperature` has no Copilot CLI" in line for line in lines)
    assert any(
        "a.md:5:1:" in line and "model `x/y` has no Copilot CLI counterpart" in line
        for line in lines
    )
    assert result.code == 0


def test_a_body_over_30000_characters_is_an_error_and_nothing_is_written(
    make_bundle: MakeBundle, run: Any
) -> None:
    body = "Texto largo.\n" * 2400  # 31,200 characters
    make_bundle(
        {"promptc.toml": "[targets.copilot]\n", "specs/agents/a.md": agent("subagent", body=body)}
    )
    result: Run = run("build")
    assert result.code == 1
    assert "specs/agents/a.md:5:1: error [runtime-limits] body is 31,200 characters" in result.out
    assert not Path("build").exists()


def test_two_ids_with_one_copilot_name_are_an_error(make_bundle: MakeBundle, run: Any) -> None:
    make_bundle(
        {
            "promptc.toml": "[targets.copilot]\n",
            "specs/agents/team/reviewer.md": agent("subagent"),
            "specs/agents/team-reviewer.md": agent("subagent"),
        }
    )
    result: Run = run("lint")
    assert result.code == 1
    assert "are both named 'team-reviewer' in Copilot CLI" in result.out


def test_modes_are_reported_as_not_translated(make_bundle: MakeBundle) -> None:
    root = make_bundle(
        {
            "promptc.toml": "",
            "specs/agents/a.md": agent("subagent"),
            "specs/modes/build.md": "---\ndescription: Construye.\n---\nHaz: $ARGUMENTS\n",
        }
    )
    files = emitted(root)
    assert sorted(files) == [".github/agents/a.agent.md", "TRANSLATION.md"]
    assert (
        "### /build\n\n- not translated: Copilot CLI reads no command files"
        in files["TRANSLATION.md"]
    )


def test_unknown_options_are_config_errors(make_bundle: MakeBundle) -> None:
    root = make_bundle({"promptc.toml": '[targets.copilot]\nmodel = "gpt-4.1"\n'})
    with pytest.raises(ConfigError, match="model"):
        api.render(load_config(cwd=root), only=["copilot"])


def test_targets_copilot_sets_description_and_model_as_written(make_bundle: MakeBundle) -> None:
    override = (
        "targets:\n  copilot:\n    description: Reviews diffs for Copilot users.\n"
        "    model: gpt-4.1\n"
    )
    root = make_bundle(
        {"specs/agents/rev.md": agent("subagent", extra=f"model: x/unmapped\n{override}")}
    )
    files = emitted(root)
    meta = front(files[".github/agents/rev.agent.md"])
    assert (meta["description"], meta["model"]) == ("Reviews diffs for Copilot users.", "gpt-4.1")
    assert "infer" not in meta
    assert "counterpart" not in files["TRANSLATION.md"]


def test_infer_may_hide_an_agent_but_never_offers_one_opencode_does_not_start(
    make_bundle: MakeBundle, run: Any
) -> None:
    def spec(mode: str, infer: str) -> str:
        return agent(mode, extra=f"targets:\n  copilot:\n    infer: {infer}\n")

    make_bundle(
        {
            "promptc.toml": "[targets.copilot]\n",
            "specs/agents/lead.md": spec("primary", "true"),
            "specs/agents/open.md": spec("subagent", "true"),
            "specs/agents/quiet.md": spec("subagent", "false"),
        }
    )
    files = emitted(Path.cwd())
    infer = {
        n: front(files[f".github/agents/{n}.agent.md"])["infer"] for n in ("lead", "open", "quiet")
    }
    assert infer == {"lead": False, "open": True, "quiet": False}
    result: Run = run("lint", "--verbose")
    assert (
        "specs/agents/lead.md:6:5: info [lossy-translation] `targets.copilot.infer: true` is not kept"
        in result.out
    )
    assert "open.md:6:5" not in result.out
    assert "`targets.copilot.infer: true` is not kept" in files["TRANSLATION.md"]


@pytest.mark.parametrize(
    ("line", "position", "message"),
    [
        ("tools: [read, execute]", (6, 5), "$.targets.copilot.tools: cannot be overridden"),
        ("infer: yes", (6, 12), "$.targets.copilot.infer: expected true or false"),
        ("displayname: Rev", (6, 5), "unknown key 'displayname' at $.targets.copilot"),
    ],
)
def test_a_copilot_override_of_the_wrong_type_or_that_widens_is_an_error_at_its_key(
    make_bundle: MakeBundle, run: Any, line: str, position: tuple[int, int], message: str
) -> None:
    make_bundle(
        {
            "promptc.toml": "[targets.copilot]\n",
            "specs/agents/rev.md": agent("subagent", extra=f"targets:\n  copilot:\n    {line}\n"),
        }
    )
    done: Run = run("build")
    assert done.code == 1
    assert f"specs/agents/rev.md:{position[0]}:{position[1]}: error [schema] {message}" in done.out
    assert not Path("build").exists()


def test_skills_are_written_without_allowed_tools_which_copilot_reads_as_a_grant(
    make_bundle: MakeBundle, run: Any
) -> None:
    skill = (
        "---\nname: review-notes\ndescription: Writes review notes for a diff.\n"
        "allowed-tools: Bash(git diff *) Read\nlicense: MIT\n---\nWrite the notes.\n"
    )
    make_bundle(
        {
            "promptc.toml": "[targets.copilot]\n",
            "specs/agents/rev.md": agent("subagent"),
            "specs/skills/review-notes/SKILL.md": skill,
            "specs/skills/review-notes/scripts/diff.sh": "git diff\n",
        }
    )
    files = emitted(Path.cwd())
    text = files[".github/skills/review-notes/SKILL.md"]
    assert front(text) == {
        "name": "review-notes",
        "description": "Writes review notes for a diff.",
        "license": "MIT",
    }
    assert text.endswith("---\nWrite the notes.\n")
    assert files[".github/skills/review-notes/scripts/diff.sh"] == "git diff\n"
    assert "### review-notes\n\n- `allowed-tools` is left out" in files["TRANSLATION.md"]
    result: Run = run("lint", "--verbose")
    assert (
        "specs/skills/review-notes/SKILL.md:4:1: info [lossy-translation] `allowed-tools` is "
        "left out of the Copilot CLI skill" in result.out
    )
