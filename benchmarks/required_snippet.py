"""Time `promptc lint` on generated bundles with the required-snippet rule on and off.

Usage: .venv/bin/python benchmarks/required_snippet.py [AGENTS] [LINES]

Two rows:

- placeholder: each agent opens with `<<caveman>>` and carries LINES lines of
  markdown prose, headings, lists and code fences, so the rule scans every
  line for copies;
- real shape: AGENTS agents of 5 to 30 KB of generated prose (no copied text),
  wrapped, with long passages shared between agents, headings, lists, tables
  and fences, and a snippet of ten sentences in the same words (so that nearly
  every window of prose holds half of its words, as English prose holds "the"
  and "to"); a third carry the snippet word for word, a third a drifted copy
  (a word changed, rewrapped, a line lost), a third none (benchmarks/real_shape.py).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from real_shape import make_real_bundle

from promptc_compiler import api
from promptc_compiler.core.config import load_config

SNIPPET = (
    "Tono: caveman por default, nivel full. Activa siempre.\n"
    "Excepción: prosa normal para advertencias de seguridad, acciones irreversibles o "
    "ambigüedad multi-paso.\n"
)
PROSE = [
    "## Paso {n}",
    "",
    "Lee el código relevante antes de proponer cambios; cita rutas y líneas.",
    "- Verifica los tests existentes y agrega uno por cada comportamiento nuevo.",
    "- Reporta hallazgos en viñetas densas, sin saludos ni justificaciones.",
    "```sh",
    "rg --files | head -n {n}",
    "```",
    "Si una acción es irreversible, detente y pide confirmación con prosa normal.",
    "",
]


def make_bundle(root: Path, agents: int, lines: int) -> None:
    (root / "specs/agents").mkdir(parents=True)
    (root / "fragments").mkdir()
    (root / "fragments/caveman.md").write_text(SNIPPET, encoding="utf-8")
    body = [PROSE[i % len(PROSE)].format(n=i) for i in range(lines)]
    for index in range(agents):
        head = f"---\ndescription: Agente {index} del banco de pruebas.\nmode: subagent\n---\n"
        text = head + "<<caveman>>\n\n" + "\n".join(body) + "\n"
        (root / f"specs/agents/a{index}.md").write_text(text, encoding="utf-8")


def timed(root: Path, fragment: str, level: str, repeat: int) -> float:
    config = f'[rules.required-snippet]\nfragment = "{fragment}"\nlevel = "{level}"\n'
    (root / "promptc.toml").write_text(config, encoding="utf-8")
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        api.lint(load_config(cwd=root))
        best = min(best, time.perf_counter() - started)
    return best


def row(name: str, root: Path, fragment: str, agents: int, repeat: int) -> None:
    os.chdir(root)
    on, off = timed(root, fragment, "error", repeat), timed(root, fragment, "off", repeat)
    per_agent = (on - off) * 1000 / agents
    print(
        f"{name}: lint {off * 1000:.0f} ms without the rule, "
        f"{on * 1000:.0f} ms with it ({per_agent:.1f} ms per agent)"
    )


def main() -> None:
    agents = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "placeholder"
        make_bundle(root, agents, lines)
        row(f"placeholder, {agents} agents x {lines} lines", root, "caveman", agents, 5)
        real = Path(folder) / "real"
        size = make_real_bundle(real, agents)
        row(f"real shape, {agents} agents, {size // 1024} KB", real, "tone", agents, 3)


if __name__ == "__main__":
    main()
