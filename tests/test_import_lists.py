"""`promptc import copilot|gemini`: Copilot and Gemini agent folders (and Gemini commands) as specs."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests import bundles
from tests.conftest import MakeBundle, Run

Runner = Callable[..., Run]


def front(text: str) -> dict[str, Any]:
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def tools(files: dict[str, bytes], folder: str) -> dict[str, list[str]]:
    return {
        front(data.decode())["name"]: front(data.decode())["tools"]
        for rel, data in files.items()
        if rel.startswith(folder)
    }


@pytest.mark.parametrize(
    ("target", "folder"), [("copilot", ".github/agents/"), ("gemini", ".gemini/agents/")]
)
def test_the_repository_build_imports_back_to_the_same_tools(
    target: str, folder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Runner
) -> None:
    source = tmp_path / "source"
    shutil.copytree(bundles.REPOSITORY / "build" / target, source)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    monkeypatch.chdir(bundle)
    result = run("import", target, str(source))
    assert result.code == 0, result.out + result.err
    with (bundle / "promptc.toml").open("a") as config:
        config.write(f"\n[targets.{target}]\n")
    before = tools(bundles.render(bundles.REPOSITORY, target), folder)
    assert tools(bundles.render(bundle, target), folder) == before
    assert before


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
    assert "model `gpt-4.1` names no provider" in result.out
    spec = front(Path("specs/agents/lead.md").read_text())
    assert spec["mode"] == "primary"
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
