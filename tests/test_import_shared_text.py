"""Import's shared text, through the composition engine: agents that share passages
(tables, fences, headings, rules and frontmatter-like blocks, blank-line-bounded
paragraphs) import with their shared text as fragments, and every body composes
back byte for byte; an agent whose body still would not is imported without
shared fragments, and the import says so, rather than importing nothing."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptc_compiler.core.config import load_config
from promptc_compiler.pipeline import import_text, importer
from promptc_compiler.pipeline.import_text import Shared
from promptc_compiler.pipeline.importer import plan_import, verify
from tests.strategies import SCRATCH, tick

PIECES = [
    "| Campo | Uso |\n|---|---|\n| `name` | el id |\n| `mode` | subagent |",
    "|---|---|",
    "```sh\nrg --files\n\nhead -n 5\n```",
    "```\n<<not_a_placeholder>>\n```",
    "~~~\n---\nkey: value\n---\n~~~",
    "---\nname: framework-docs-researcher\ndescription: Investiga la documentación.\n---",
    "---",
    "***",
    "# Reglas",
    "## Paso 1",
    "Título\n======",
    "- Lee antes de cambiar.\n- Cita rutas y líneas.",
    "    sangría: código\n    de cuatro espacios",
    "<!-- nota: <<x>> -->",
    "Usa `<<nombre>>` tal cual y `a << b`.",
    "Tono: caveman por default.\nActiva siempre, en cada respuesta que des.",
    "Verifica los tests existentes y agrega uno por cada cambio nuevo que hagas en el código.",
    "   ",
    "\t",
]

passage = st.lists(st.sampled_from(PIECES), min_size=1, max_size=4).map("\n".join)
separator = st.sampled_from(["\n", "\n\n", "\n\n", "\n\n\n", "\n \n"])


@st.composite
def bodies(draw: st.DrawFn) -> dict[str, str]:
    """Two to four bodies built from a handful of passages they share."""
    shared = draw(st.lists(passage, min_size=1, max_size=5))
    found: dict[str, str] = {}
    for index in range(draw(st.integers(2, 4))):
        parts = draw(st.lists(st.sampled_from(shared) | passage, min_size=1, max_size=8))
        text = ""
        for part in parts:
            text += part + draw(separator)
        if draw(st.booleans()):
            text = text.rstrip("\n")
        found[f"agent-{index}"] = draw(st.sampled_from(["", "\n", "\n\n"])) + text
    return found


@given(agents=bodies())
def test_imported_agents_sharing_passages_compose_back_byte_for_byte(
    agents: dict[str, str],
) -> None:
    tick("import: shared text")
    with tempfile.TemporaryDirectory(prefix="promptc-shared-", dir=SCRATCH) as scratch:
        folder = Path(scratch)
        source = folder / "source/.opencode/agents"
        source.mkdir(parents=True)
        for name, body in agents.items():
            front = f"---\ndescription: Agent {name}.\nmode: subagent\n---\n"
            (source / f"{name}.md").write_text(front + body)
        (folder / "bundle").mkdir()
        config = load_config(cwd=folder / "bundle")
        plan = plan_import("opencode", folder / "source", config)
        assert [n.message for n in plan.notes] == []
        assert {f"specs/agents/{name}.md" for name in agents} <= set(plan.files)
        assert verify(plan, agents, config) == []


RESEARCHER = """Investiga antes de responder.

Fuentes
---

| Fuente | Uso |
|---|---|
| docs oficiales | primero |
| issues | después |

---
name: framework-docs-researcher
description: Investiga la documentación.
---

Cierra con las fuentes citadas.
"""


def _write(folder: Path, agents: dict[str, str]) -> Path:
    source = folder / "source/.opencode/agents"
    source.mkdir(parents=True)
    for name, body in agents.items():
        front = f"---\ndescription: Agent {name}.\nmode: subagent\n---\n"
        (source / f"{name}.md").write_text(front + body)
    (folder / "bundle").mkdir()
    return folder / "source"


def test_agents_sharing_a_heading_a_table_and_a_yaml_block_import_with_fragments(
    tmp_path: Path,
) -> None:
    agents = {
        "framework-docs-researcher": RESEARCHER,
        "best-practices-researcher": RESEARCHER.replace("Investiga antes", "Busca antes"),
    }
    source = _write(tmp_path, agents)
    config = load_config(cwd=tmp_path / "bundle")
    plan = plan_import("opencode", source, config)
    assert [n.message for n in plan.notes] == []
    assert any(rel.startswith("fragments/") for rel in plan.files)
    assert verify(plan, agents, config) == []


def test_an_agent_that_would_not_compose_back_is_imported_without_fragments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents = {"a": "Marca A.\n\n" + RESEARCHER, "b": RESEARCHER, "c": RESEARCHER}
    source = _write(tmp_path, agents)
    config = load_config(cwd=tmp_path / "bundle")
    real = importer.replace_shared

    def wrong_for_a(body: str, shared: Sequence[Shared]) -> str:
        text = real(body, shared)
        return text + "x" if body.startswith("Marca A.") else text

    monkeypatch.setattr(importer, "replace_shared", wrong_for_a)
    plan = plan_import("opencode", source, config)
    assert [(Path(n.path).name, n.severity.value) for n in plan.notes] == [("a.md", "warning")]
    assert "imported without shared fragments" in plan.notes[0].message
    assert plan.files["specs/agents/a.md"].endswith(agents["a"])  # its text as read
    assert "<<" in plan.files["specs/agents/b.md"]  # the others share fragments
    assert verify(plan, agents, config) == []


def test_replacing_shared_blocks_reads_a_body_in_time_linear_in_its_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Many shared blocks of many sizes, none opening where most paragraphs
    start: only the blocks that open with a paragraph's first line are compared
    there, so the lines joined for comparison stay within the body's own count
    (trying every size at every paragraph joined 180 times as many)."""
    blocks = [
        Shared(f"b{size}", "".join(f"Bloque {size}, línea {n}.\n" for n in range(size)), (), ())
        for size in range(1, 61)
    ]
    paragraphs = [f"Párrafo {n}, primera línea.\nPárrafo {n}, segunda línea." for n in range(300)]
    paragraphs[150] = blocks[40].text.rstrip("\n")  # one real copy, in the middle
    body = "\n\n".join(paragraphs) + "\n"
    joined = 0
    real = import_text._block_text

    def counted(lines: Sequence[str], block: import_text.Block) -> str:
        nonlocal joined
        joined += block.end - block.start
        return real(lines, block)

    monkeypatch.setattr(import_text, "_block_text", counted)
    replaced = import_text.replace_shared(body, blocks)
    assert replaced.split("\n\n")[150] == "<<b41>>"
    assert replaced.replace("<<b41>>", blocks[40].text.rstrip("\n")) == body
    assert joined <= body.count("\n")
