"""Time `promptc lint` on generated bundles with the required-snippet rule on and off.

Usage: .venv/bin/python benchmarks/required_snippet.py [AGENTS] [LINES]

Two rows:

- placeholder: each agent opens with `<<caveman>>` and carries LINES lines of
  markdown prose, headings, lists and code fences, so the rule scans every
  line for copies;
- real shape: AGENTS agents of 5 to 30 KB of generated prose (no copied text),
  wrapped, with long passages shared between agents, headings, lists and
  fences, and a snippet of three sentences in the same words (so that nearly
  every window of prose holds half of its words, as English prose holds "the"
  and "to"); a third carry the snippet word for word, a third a drifted copy
  (a word changed, rewrapped, a line lost), a third none.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import textwrap
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


# Generated words: a few frequent ones (as "the", "to", "and" are) and many rare
# ones, drawn by a Zipf law, so that any window of prose holds most of the
# frequent words of a snippet written in the same words.
SYLLABLES = ["ka", "lo", "mi", "ra", "te", "su", "no", "ve", "da", "pi", "ro", "ne", "ta", "si"]


class Words:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        found: dict[str, None] = {}
        while len(found) < 3000:
            size = 1 if len(found) < 10 else 2 if len(found) < 60 else rng.randint(2, 4)
            found["".join(rng.choice(SYLLABLES) for _ in range(size))] = None
        self.vocabulary = list(found)
        self.weights = [1 / (rank + 1) for rank in range(len(self.vocabulary))]

    def sentence(self) -> str:
        words = self.rng.choices(self.vocabulary, self.weights, k=self.rng.randint(6, 18))
        return " ".join(words).capitalize() + self.rng.choice([".", ".", ";", ":"])

    def block(self) -> list[str]:
        """A wrapped paragraph (as most agent files are), a list, a heading or a fence."""
        rng, kind = self.rng, self.rng.random()
        if kind < 0.5:
            paragraph = " ".join(self.sentence() for _ in range(rng.randint(2, 5)))
            return [*textwrap.wrap(paragraph, rng.choice([72, 80, 100])), ""]
        if kind < 0.75:
            return [*(f"- {self.sentence()}" for _ in range(rng.randint(2, 6))), ""]
        if kind < 0.9:
            return [f"## {self.sentence()[:-1]}", ""]
        code = [f"rg {rng.choice(self.vocabulary)} -n {rng.randint(1, 99)}" for _ in range(3)]
        return ["```sh", *code, "```", ""]


def _drifted(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    edit = rng.randrange(3)
    if edit == 0:  # a word changed
        words = lines[0].split(" ")
        words[len(words) // 2] += "x"
        return "\n".join([" ".join(words), *lines[1:]])
    if edit == 1:  # rewrapped
        return " ".join(lines)
    return "\n".join(lines[1:])  # a line lost


def make_real_bundle(root: Path, agents: int, seed: int = 7) -> int:
    """Agents of real shape and their snippet `tone`; returns the bundle's size in bytes."""
    rng = random.Random(seed)
    words = Words(rng)
    snippet = "\n".join(textwrap.wrap(" ".join(words.sentence() for _ in range(10)), 80))
    (root / "specs/agents").mkdir(parents=True)
    (root / "fragments").mkdir()
    (root / "fragments/tone.md").write_text(snippet + "\n", encoding="utf-8")
    shared = [[line for _ in range(rng.randint(8, 20)) for line in words.block()] for _ in range(6)]
    size = 0
    for index in range(agents):
        goal = rng.randint(5_000, 30_000)
        lines: list[str] = []
        while sum(map(len, lines)) < goal:
            lines += rng.choice(shared) if rng.random() < 0.3 else words.block()
        carry = index % 3
        copy = snippet if carry == 0 else _drifted(rng, snippet) if carry == 1 else None
        if copy is not None:  # after a blank line, between blocks
            at = rng.choice([i + 1 for i, line in enumerate(lines) if not line])
            lines[at:at] = [copy, ""]
        head = f"---\ndescription: Agente {index} de forma real.\nmode: subagent\n---\n"
        text = head + "\n".join(lines) + "\n"
        (root / f"specs/agents/a{index}.md").write_text(text, encoding="utf-8")
        size += len(text.encode("utf-8"))
    return size


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
