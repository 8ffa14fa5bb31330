"""Time `promptc lint` on a generated bundle with the required-snippet rule on and off.

Usage: .venv/bin/python benchmarks/required_snippet.py [AGENTS] [LINES]

Each agent opens with `<<caveman>>` and carries LINES lines of markdown prose,
headings, lists and code fences, so the rule scans every line for copies.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from compiler import api
from compiler.config import load_config

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


def timed(root: Path, level: str, repeat: int = 5) -> float:
    config = f'[rules.required-snippet]\nfragment = "caveman"\nlevel = "{level}"\n'
    (root / "promptc.toml").write_text(config, encoding="utf-8")
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        result = api.lint(load_config(cwd=root))
        best = min(best, time.perf_counter() - started)
        assert result.ok, result.diagnostics
    return best


def main() -> None:
    agents = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        make_bundle(root, agents, lines)
        os.chdir(root)
        on, off = timed(root, "error"), timed(root, "off")
    per_agent = (on - off) * 1000 / agents
    print(
        f"{agents} agents x {lines} lines: lint {off * 1000:.0f} ms without the rule, "
        f"{on * 1000:.0f} ms with it ({per_agent:.1f} ms per agent)"
    )


if __name__ == "__main__":
    main()
