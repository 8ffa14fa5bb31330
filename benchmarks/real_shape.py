"""Agents of real shape, generated (no copied text), for the benchmarks.

Real agent files are 5 to 30 KB of wrapped prose, lists, headings, markdown
tables and code fences, and they share long passages with each other (a team's
rules, a review checklist). The bodies here have that shape, in generated
words: a few frequent ones (as "the", "to", "and" are) and many rare ones,
drawn by a Zipf law, so that any window of prose holds most of the frequent
words of a snippet written in the same words. A snippet of ten sentences
(`tone`) is carried word for word by a third of the agents, drifted (a word
changed, rewrapped, a line lost) by a third, and not at all by the rest.

The same bodies are written three ways: as a promptc bundle, as an OpenCode
folder (`.opencode/agent/*.md`) and as a Claude Code folder
(`.claude/agents/*.md`).
"""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass
from pathlib import Path

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
        """A wrapped paragraph (as most agent files are), a list, a heading, a
        markdown table or a fence, and the blank line after it."""
        rng, kind = self.rng, self.rng.random()
        if kind < 0.45:
            paragraph = " ".join(self.sentence() for _ in range(rng.randint(2, 5)))
            return [*textwrap.wrap(paragraph, rng.choice([72, 80, 100])), ""]
        if kind < 0.65:
            return [*(f"- {self.sentence()}" for _ in range(rng.randint(2, 6))), ""]
        if kind < 0.8:
            return [f"## {self.sentence()[:-1]}", ""]
        if kind < 0.9:
            return [*self.table(), ""]
        code = [f"rg {rng.choice(self.vocabulary)} -n {rng.randint(1, 99)}" for _ in range(3)]
        return ["```sh", *code, "```", ""]

    def table(self) -> list[str]:
        columns = self.rng.randint(2, 4)
        head = [self.rng.choice(self.vocabulary[:200]).capitalize() for _ in range(columns)]
        rows = [
            [" ".join(self.rng.choices(self.vocabulary, self.weights, k=3)) for _ in head]
            for _ in range(self.rng.randint(2, 6))
        ]
        rule = "|" + "---|" * columns  # as most files write it, with no spaces
        return [f"| {' | '.join(head)} |", rule, *(f"| {' | '.join(row)} |" for row in rows)]


def drifted(rng: random.Random, text: str) -> str:
    """`text` with one edit a copy drifts by: a word changed, rewrapped, a line lost."""
    lines = text.split("\n")
    edit = rng.randrange(3)
    if edit == 0:  # a word changed
        words = lines[0].split(" ")
        words[len(words) // 2] += "x"
        return "\n".join([" ".join(words), *lines[1:]])
    if edit == 1:  # rewrapped
        return " ".join(lines)
    return "\n".join(lines[1:])  # a line lost


@dataclass(frozen=True)
class Team:
    """Generated agents: the snippet `tone` and each agent's body (ending in a newline)."""

    snippet: str
    bodies: list[str]

    def size(self) -> int:
        """The bodies' bytes."""
        return sum(len(body.encode("utf-8")) for body in self.bodies)


def team(agents: int, seed: int = 7) -> Team:
    """`agents` bodies of 5 to 30 KB, three in ten of their blocks drawn from six
    long shared passages; a third carry the snippet, a third a drifted copy."""
    rng = random.Random(seed)
    words = Words(rng)
    snippet = "\n".join(textwrap.wrap(" ".join(words.sentence() for _ in range(10)), 80))
    shared = [[line for _ in range(rng.randint(8, 20)) for line in words.block()] for _ in range(6)]
    bodies = []
    for index in range(agents):
        goal = rng.randint(5_000, 30_000)
        lines: list[str] = []
        while sum(map(len, lines)) < goal:
            lines += rng.choice(shared) if rng.random() < 0.3 else words.block()
        carry = index % 3
        copy = snippet if carry == 0 else drifted(rng, snippet) if carry == 1 else None
        if copy is not None:  # after a blank line, between blocks
            at = rng.choice([i + 1 for i, line in enumerate(lines) if not line])
            lines[at:at] = [copy, ""]
        bodies.append("\n".join(lines) + "\n")
    return Team(snippet, bodies)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def make_real_bundle(root: Path, agents: int, seed: int = 7) -> int:
    """A promptc bundle of real shape with its snippet `tone` (fragments/tone.md,
    not placed by any agent); returns the bundle's size in bytes."""
    generated = team(agents, seed)
    _write(root / "fragments/tone.md", generated.snippet + "\n")
    for index, body in enumerate(generated.bodies):
        head = f"---\ndescription: Agente {index} de forma real.\nmode: subagent\n---\n"
        _write(root / f"specs/agents/a{index}.md", head + body)
    return generated.size()


def make_opencode_folder(root: Path, agents: int, seed: int = 7) -> int:
    """`root/.opencode/agent/*.md` of real shape; returns the bodies' bytes."""
    generated = team(agents, seed)
    for index, body in enumerate(generated.bodies):
        head = (
            f"---\ndescription: Agente {index} de forma real.\nmode: subagent\n"
            "permission:\n  edit: deny\n  bash:\n    '*': ask\n    'rg *': allow\n---\n"
        )
        _write(root / f".opencode/agent/a{index}.md", head + body)
    return generated.size()


def make_claude_folder(root: Path, agents: int, seed: int = 7) -> int:
    """`root/.claude/agents/*.md` of real shape; returns the bodies' bytes."""
    generated = team(agents, seed)
    for index, body in enumerate(generated.bodies):
        head = (
            f"---\nname: a{index}\ndescription: Agente {index} de forma real.\n"
            "tools: Read, Grep, Glob, Bash\nmodel: sonnet\n---\n"
        )
        _write(root / f".claude/agents/a{index}.md", head + body)
    return generated.size()
