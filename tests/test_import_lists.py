"""`promptc import copilot|gemini`: Copilot and Gemini agent folders (and Gemini commands) as specs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from promptc_compiler.base import body_syntax
from promptc_compiler.runtimes.gemini import import_ as gemini_import
from tests.conftest import MakeBundle, Run

Runner = Callable[..., Run]


def front(text: str) -> dict[str, Any]:
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def test_copilot_aliases_and_names_become_a_permission_map(
    make_bundle: MakeBundle, run: Runner
) -> None:
    make_bundle(
        {
            "promptc.toml": "",
            "in/.github/agents/lead.agent.md": (
                "---\nname: lead\ndescription: Guía el trabajo del equipo.\ntools: [view, execute, "
                "github/*]\nmodel: gpt-4.1\ninfer: false\n---\nCuerpo.\n"
            ),
        }
    )
    result = run("import", "copilot", "in")
    assert "`github/*` has no OpenCode permission promptc knows" in result.out
    assert "gpt-4.1" not in result.out
    spec = front(Path("specs/agents/lead.md").read_text())
    assert spec["mode"] == "primary"
    assert spec["targets"] == {"copilot": {"model": "gpt-4.1"}}
    # Every other tool denied (`skill` and the todo list too: a subagent Copilot's
    # task starts has only its list); what Copilot runs unasked allowed, what it
    # asks about asked; outside the project Copilot asks.
    assert spec["permission"] == {
        "*": "deny",
        "read": "allow",
        "list": "allow",
        "bash": "ask",
        "external_directory": "ask",
    }


def test_a_gemini_file_reference_becomes_opencode_s_only_where_it_reads_the_same_path() -> None:
    """OpenCode's `@path` ends at a `,` and leaves out a `.` at its end: such a path
    stays Gemini's `@{...}`, said in a note (before, `@{a,b.md}` became `@a,b.md`,
    which OpenCode reads as `@a`)."""
    prompt = "Mira @{README.md}, @{docs/a,b.md} y @{notas.}\n"
    _, body, notes = gemini_import.command_spec({"description": "x", "prompt": prompt})
    assert body == "Mira @README.md, @{docs/a,b.md} y @{notas.}\n"
    assert [n.key for n in notes] == ["prompt"]
    assert "`@{docs/a,b.md}`, `@{notas.}` kept as written" in notes[0].message
    # What OpenCode would have read from them:
    assert body_syntax.FILE.findall("@docs/a,b.md y @notas.") == ["docs/a", "notas"]


def test_gemini_commands_become_modes_with_opencode_placeholders(
    make_bundle: MakeBundle, run: Runner
) -> None:
    make_bundle(
        {
            "promptc.toml": "",
            "in/.gemini/commands/git/fix.toml": (
                'description = "Arregla"\nprompt = """\nEstado: !{git status}\n'
                'Mira @{README.md}\nPedido: {{args}}\n"""\n'
            ),
            "in/.gemini/agents/remote.md": (
                "---\nkind: remote\nname: remote\ndescription: Corre en otro lado.\n---\nx\n"
            ),
        }
    )
    result = run("import", "gemini", "in")
    assert "a `remote` agent runs elsewhere; not imported" in result.out
    text = Path("specs/modes/git/fix.md").read_text()
    assert text == (
        "---\ndescription: Arregla\n---\nEstado: !`git status`\nMira @README.md\nPedido: $ARGUMENTS\n"
    )
    assert not Path("specs/agents/remote.md").exists()


def test_a_copilot_agent_without_tools_asks_where_copilot_asks(
    make_bundle: MakeBundle, run: Runner
) -> None:
    """No `tools` key: every Copilot tool, each asked or run as Copilot does,
    never OpenCode's allow-everything default."""
    make_bundle(
        {"in/.github/agents/z.agent.md": "---\nname: z\ndescription: Todo.\n---\nCuerpo.\n"}
    )
    assert run("import", "copilot", "in").code == 0
    for permission, text, action in [
        ("bash", "rm -rf /", "ask"),
        ("edit", "src/a.py", "ask"),
        ("webfetch", "https://example.com", "ask"),
        ("read", "src/a.py", "allow"),
        ("external_directory", "/etc/*", "ask"),  # a file outside the project
        ("task", "general", "deny"),  # Copilot has no `general` agent
        ("lsp", "*", "deny"),  # nor any tool OpenCode has and Copilot has not
    ]:
        done = run("can", "z", permission, text)
        assert done.out.startswith(f"{action}  z  {permission}"), (permission, text, done.out)


def test_a_gemini_web_fetch_asks_as_gemini_does(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "in/.gemini/agents/web.md": (
                "---\nname: web\ndescription: Busca.\ntools: [web_fetch, read_file]\n---\nx\n"
            )
        }
    )
    assert run("import", "gemini", "in").code == 0
    spec = front(Path("specs/agents/web.md").read_text())
    read = spec["permission"].pop("read")
    assert spec["permission"] == {"*": "deny", "webfetch": "ask"}
    # read_file runs unasked, but never through `.env`, `.git` or `node_modules`,
    # in any case, with trailing dots or spaces, a `:stream` or an 8.3 short name.
    assert next(iter(read.items())) == ("*", "allow")
    assert set(list(read.values())[1:]) == {"deny"}
    for path, action in [
        ("src/app.py", "allow"),
        (".env.example", "allow"),
        (".gitignore", "allow"),
        (".github/workflows/ci.yml", "allow"),
        ("src/test_helpers.py", "allow"),
        (".env", "deny"),
        ("config/.Env", "deny"),
        (".ENV. ", "deny"),
        (".env:secret", "deny"),
        (".git/config", "deny"),
        ("a/.GIT./HEAD", "deny"),
        ("node_modules/x/index.js", "deny"),
        ("web/Node_Modules/x.js", "deny"),
        ("GIT~1/config", "deny"),
        ("gha-creds-1234.json", "deny"),
    ]:
        done = run("can", "web", "read", path)
        assert done.out.startswith(f"{action}  web  read"), (path, done.out)
    # Gemini's file tools refuse paths outside the workspace.
    assert run("can", "web", "external_directory", "/etc/*").out.startswith("deny")


def test_gemini_asks_before_every_tool_its_policies_do_not_run(
    make_bundle: MakeBundle, run: Runner
) -> None:
    """Only read_file, list_directory, glob, grep_search and google_web_search run
    unasked; a permission is decided by the first of the agent's tools for it
    (read_file before read_many_files)."""
    make_bundle(
        {
            "in/.gemini/agents/all.md": "---\nname: all\ndescription: Todo.\n---\nx\n",
            "in/.gemini/agents/many.md": (
                "---\nname: many\ndescription: Lee.\ntools: [read_many_files]\n---\nx\n"
            ),
        }
    )
    assert run("import", "gemini", "in").code == 0
    for agent, permission, text, action in [
        ("all", "read", "src/a.py", "allow"),
        ("all", "list", "src", "allow"),
        ("all", "glob", "*.py", "allow"),
        ("all", "grep", "TODO", "allow"),
        ("all", "websearch", "opencode", "allow"),
        ("all", "edit", "src/a.py", "ask"),
        ("all", "bash", "ls", "ask"),
        ("all", "webfetch", "https://example.com", "ask"),
        ("all", "skill", "caveman", "ask"),
        ("all", "todowrite", "*", "ask"),
        ("all", "question", "*", "ask"),
        ("all", "edit", ".git/config", "deny"),
        ("all", "list", "node_modules", "deny"),
        ("all", "task", "many", "deny"),  # a Gemini subagent starts none
        ("many", "read", "src/a.py", "ask"),
        ("many", "read", ".env", "deny"),
        ("many", "list", "src", "deny"),
    ]:
        done = run("can", agent, permission, text)
        assert done.out.startswith(f"{action}  {agent}  {permission}"), (agent, text, done.out)
