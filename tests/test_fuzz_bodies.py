"""Fuzz the searches over long bodies (5 to 40 KB): the required-snippet rule's
copies of its snippet in prose written in the snippet's own words (absent,
copied, drifted), and import's text shared between agents, alone and through
a whole import whose agents then compose back. Each reads a body in time
linear in its bytes, so `make fuzz` runs thousands of them."""

from __future__ import annotations

import random
import tempfile
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc_compiler.core.compose import BodyLines
from promptc_compiler.core.config import load_config
from promptc_compiler.core.snippet import Snippet, find_copies
from promptc_compiler.pipeline.import_text import find_shared, replace_shared
from promptc_compiler.pipeline.importer import plan_import, verify
from tests.strategies import SCRATCH, ci_examples, tick

pytestmark = pytest.mark.slow  # collected first: tests/conftest.py


def _snippet(text: str) -> Snippet:
    return Snippet("s", Path("s.md"), text, text, (), {}, {}, {}, "<<s>>")


class _Source:
    def __init__(self, body: str) -> None:
        self.body = body
        self.body_line = 1
        self.held = SimpleNamespace(scan=None)  # where scan_of keeps the body's scan


class _Spec:
    """A spec written without placeholders: its composed body is its source."""

    def __init__(self, body: str) -> None:
        self.source = _Source(body)
        self.body = body

    def body_lines(self) -> BodyLines:
        """Each line its own, from the body's first line (1) on."""
        count = self.body.count("\n") + 1
        return BodyLines(list(range(1, count + 1)), [True] * count)


# --- copies of the snippet ------------------------------------------------------------

SYLLABLES = ["ka", "lo", "mi", "ra", "te", "su", "no", "ve", "da", "pi", "ro", "ne", "ta", "si"]


class Prose:
    """Generated markdown: frequent short words and rare long ones (a Zipf law),
    wrapped paragraphs, lists, headings and fences."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        found: dict[str, None] = {}
        while len(found) < 600:
            size = 1 if len(found) < 10 else 2 if len(found) < 60 else rng.randint(2, 4)
            found["".join(rng.choice(SYLLABLES) for _ in range(size))] = None
        self.words = list(found)
        self.weights = [1 / (rank + 1) for rank in range(len(self.words))]

    def sentence(self) -> str:
        words = self.rng.choices(self.words, self.weights, k=self.rng.randint(6, 18))
        return " ".join(words).capitalize() + "."

    def block(self) -> list[str]:
        kind = self.rng.random()
        if kind < 0.5:
            paragraph = " ".join(self.sentence() for _ in range(self.rng.randint(2, 5)))
            return [*textwrap.wrap(paragraph, self.rng.choice([60, 80, 100])), ""]
        if kind < 0.75:
            return [*(f"- {self.sentence()}" for _ in range(self.rng.randint(2, 5))), ""]
        if kind < 0.85:
            return [f"## {self.sentence()[:-1]}", ""]
        if kind < 0.93:
            return [*self.table(), ""]
        return ["```sh", f"rg {self.rng.choice(self.words)}", "```", ""]

    def table(self) -> list[str]:
        """A markdown table: a head, a `|---|` rule, rows of a few words."""
        columns = self.rng.randint(2, 4)
        cells = [
            [" ".join(self.rng.choices(self.words, self.weights, k=2)) for _ in range(columns)]
        ]
        cells += [
            [" ".join(self.rng.choices(self.words, self.weights, k=3)) for _ in range(columns)]
            for _ in range(self.rng.randint(1, 5))
        ]
        rows = [f"| {' | '.join(row)} |" for row in cells]
        return [rows[0], self.rng.choice(["|", "| "]) + "---|" * columns, *rows[1:]]


def _drift(rng: random.Random, text: str, how: str) -> str:
    lines = text.split("\n")
    if how == "word":
        words = lines[0].split(" ")
        words[len(words) // 2] += "x"
        return "\n".join([" ".join(words), *lines[1:]])
    if how == "rewrapped":
        return "\n".join(textwrap.wrap(" ".join(lines), rng.choice([40, 55, 70])))
    if how == "line lost":
        return "\n".join(lines[1:])
    if how == "more":
        return text + " Y algo más."
    return text  # "copy"


@given(
    seed=st.integers(0, 2**32),
    size=st.integers(5_000, 30_000),
    sentences=st.integers(2, 12),
    how=st.sampled_from(["absent", "copy", "word", "rewrapped", "line lost", "more"]),
)
def test_a_long_body_holds_the_copy_written_in_it_and_no_other(
    seed: int, size: int, sentences: int, how: str
) -> None:
    tick("bodies: snippet copies")
    rng = random.Random(seed)
    prose = Prose(rng)
    written = " ".join(prose.sentence() for _ in range(sentences))
    text = "\n".join(textwrap.wrap(written, max(20, len(written) // 4)))  # 4 or 5 lines
    lines: list[str] = []
    while sum(map(len, lines)) < size:
        lines += prose.block()
    at = None
    if how != "absent":  # after a blank line, between blocks
        at = rng.choice([i + 1 for i, line in enumerate(lines) if not line])
        copy = _drift(rng, text, how).split("\n")
        lines[at:at] = [*copy, ""]
    body = "\n".join(lines)
    spec: Any = _Spec(body)
    copies = find_copies(spec, _snippet(text))
    if at is None:
        assert copies == []
        return
    assert len(copies) == 1
    found = copies[0]
    if how in ("copy", "rewrapped"):
        assert (found.composed, found.end) == (at, at + len(copy))  # end: inclusive, from 1
    else:
        # A drifted copy may read closer to the snippet with a line more or
        # less (the most similar window wins): the copy found overlaps it.
        assert found.composed < at + len(copy)
        assert found.end > at
    assert found.origin == "text"
    same = " ".join(found.text.split()) == " ".join(text.split())
    assert same is (how in ("copy", "rewrapped"))


# --- text shared between agents --------------------------------------------------------

PASSAGES = [
    ["# Reglas", "", "- Lee antes de cambiar.", "- Cita rutas y líneas."],
    ["| a | b |", "|---|---|", "| 1 | 2 |"],
    ["```sh", "rg --files", "", "head -n 5", "```"],
    ["Tono: caveman por default.", "Activa siempre, en cada respuesta que des."],
    ["## Paso", "", "Verifica los tests existentes y agrega uno por cada cambio nuevo."],
]


@given(seed=st.integers(0, 2**32), agents=st.integers(2, 17), size=st.integers(5_000, 30_000))
def test_shared_blocks_of_long_bodies_put_back_give_every_body(
    seed: int, agents: int, size: int
) -> None:
    """Bodies of 5 to 30 KB sharing passages: each placeholder line, replaced by
    its block, gives back the body byte for byte."""
    tick("bodies: shared text")
    rng = random.Random(seed)
    bodies = {}
    for index in range(agents):
        lines: list[str] = []
        while sum(map(len, lines)) < size // agents + 5_000:
            if rng.random() < 0.4:
                lines += [*rng.choice(PASSAGES), ""]
            else:
                words = rng.choices(["lee", "el", "código", "y", "cita", "rutas", "antes"], k=12)
                lines += [" ".join(words), ""]
        bodies[f"a{index}"] = "\n".join(lines)
    shared = find_shared(bodies)
    assert shared  # the passages repeat
    blocks = {f"<<{item.name}>>": item.text.rstrip("\n") for item in shared}
    for body in bodies.values():
        replaced = replace_shared(body, shared).split("\n")
        assert "\n".join(blocks.get(line, line) for line in replaced) == body


# --- a whole import of long bodies -----------------------------------------------------

# Lines that break a naive reading of markdown: fences holding blank lines and
# placeholder look-alikes, tables, setext headings, a frontmatter-like block,
# text promptc would read as its own constructs, whitespace-only lines.
ODD_BLOCKS = [
    ["```sh", "rg --files", "", "<<not_a_placeholder>>", "```"],
    ["~~~", "---", "key: value", "---", "~~~"],
    ["| Campo | Uso |", "|---|---|", "| `name` | el id |", "| `mode` | subagent |"],
    ["Título", "======"],
    ["---", "name: framework-docs-researcher", "description: Investiga.", "---"],
    ["Usa `<<nombre>>` tal cual, <% if x %> y `a << b`.", "<# una nota #> al final."],
    ["    sangría: código", "    de cuatro espacios"],
    ["***"],
    ["   "],
]


def _separator(rng: random.Random) -> list[str]:
    return rng.choice([[""], [""], ["", ""], [" "]])


def _paragraph(rng: random.Random, prose: Prose) -> list[str]:
    """Wrapped sentences of rare words: no other agent holds the same."""
    paragraph = " ".join(prose.sentence() for _ in range(rng.randint(2, 4)))
    return [*textwrap.wrap(paragraph, rng.choice([60, 80, 100])), *_separator(rng)]


def _passage(rng: random.Random, prose: Prose) -> list[str]:
    """A paragraph, then a few blocks, prose and odd ones: text several agents carry."""
    lines = _paragraph(rng, prose)
    for _ in range(rng.randint(0, 5)):
        block = rng.choice(ODD_BLOCKS) if rng.random() < 0.4 else prose.block()[:-1]
        lines += [*block, *_separator(rng)]
    return lines


def _long_bodies(seed: int, agents: int, size: int) -> tuple[dict[str, str], bool]:
    """`agents` bodies of about `size` bytes each, drawing passages from a handful
    that they share, each between paragraphs of their own; and whether two
    bodies or more carry one passage."""
    rng = random.Random(seed)
    prose = Prose(rng)
    passages = [_passage(rng, prose) for _ in range(rng.randint(2, 8))]
    bodies = {}
    carriers: dict[int, int] = {}
    for index in range(agents):
        lines = rng.choice([[], [""], ["", ""]])
        carried: set[int] = set()
        while sum(map(len, lines)) < size:
            if rng.random() < 0.35:
                number = rng.randrange(len(passages))
                carried.add(number)
                lines += passages[number]
            lines += _paragraph(rng, prose)
        for number in carried:
            carriers[number] = carriers.get(number, 0) + 1
        body = "\n".join(lines)
        bodies[f"a{index}"] = body.rstrip("\n") if rng.random() < 0.3 else body
    return bodies, max(carriers.values(), default=0) >= 2


@settings(max_examples=ci_examples(20))
@given(seed=st.integers(0, 2**32), agents=st.integers(2, 6), size=st.integers(10_000, 40_000))
def test_an_import_of_long_bodies_sharing_passages_composes_back_byte_for_byte(
    seed: int, agents: int, size: int
) -> None:
    """An OpenCode folder of agents of tens of KB sharing passages imports with
    its shared text as fragments, no agent left without them, and every body
    composes back from the imported specs and fragments byte for byte."""
    tick("bodies: import of shared text")
    bodies, shares = _long_bodies(seed, agents, size)
    with tempfile.TemporaryDirectory(prefix="promptc-long-", dir=SCRATCH) as scratch:
        source = Path(scratch) / "source/.opencode/agent"
        source.mkdir(parents=True)
        for name, body in bodies.items():
            (source / f"{name}.md").write_text(f"---\ndescription: Agent {name}.\n---\n{body}")
        (Path(scratch) / "bundle").mkdir()
        config = load_config(cwd=Path(scratch) / "bundle")
        plan = plan_import("opencode", source.parent.parent, config)
        assert [note.message for note in plan.notes] == []
        assert bool(plan.shared) is shares  # a passage two agents carry is a fragment
        assert verify(plan, bodies, config) == []
