"""`promptc import copilot|gemini`: Copilot and Gemini agent folders (and Gemini commands) as specs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

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
    assert spec["permission"] == {
        "read": "allow",
        "list": "allow",
        "grep": "deny",
        "glob": "deny",
        "edit": "deny",
        "bash": "allow",
        "task": "deny",
        "webfetch": "deny",
        "websearch": "deny",
    }


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
