"""The search for a snippet's copies in a body: the windows it chooses, on short
bodies against reading every window, and on long ones (5 to 30 KB of prose
written in the snippet's own words) where the copy is, drifted or not."""

from __future__ import annotations

import difflib
import random
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import snippet
from compiler.snippet import MAX_WINDOW, PART, THRESHOLD, Snippet, find_copies


def _snippet(text: str) -> Snippet:
    return Snippet("s", Path("s.md"), text, re.compile(re.escape(text)), {}, (), {}, {}, "<<s>>")


class _Source:
    def __init__(self, body: str) -> None:
        self.body = body
        self.body_line = 1


class _Spec:
    """A spec written without placeholders: its composed body is its source."""

    def __init__(self, body: str) -> None:
        self.source = _Source(body)
        self.body = body


# --- every window read -----------------------------------------------------------------


def code_lines(lines: Sequence[str]) -> set[int]:
    inside: set[int] = set()
    fence: str | None = None
    for index, line in enumerate(lines):
        marker = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if fence is not None:
            inside.add(index)
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = None
        elif marker:
            fence = marker.group(1)
            inside.add(index)
    return inside


def score(text: str, target: str) -> float | None:
    """A window's score by the definition (compiler.snippet._windows), or None."""
    if len(text) >= PART * len(target) and text in target:
        return difflib.SequenceMatcher(None, text, target, False).ratio()
    if len(text) < 0.66 * len(target):
        return None
    size = max(1, min(snippet.ANCHOR, len(target) // 4))
    pieces = set(target[i : i + size] for i in range(0, len(target) - size + 1, size))
    if 2 * sum(piece in text for piece in pieces) < len(pieces):
        return None
    words = set(target.split())
    if 2 * len(words & set(text.split())) < len(words):
        return None
    ratio = difflib.SequenceMatcher(None, text, target, False).ratio()
    return ratio if ratio >= THRESHOLD else None


def windows_read(lines: Sequence[str], target_text: str) -> list[tuple[int, int]]:
    """Every window scored, the most similar chosen."""
    code = code_lines(lines)
    target = " ".join(target_text.split())
    if not target:
        return []
    scored: list[tuple[float, int, int]] = []
    normal = [" ".join(line.split()) for line in lines]
    for start in range(len(lines)):
        if not normal[start] or start in code:
            continue
        text = ""
        for end in range(start + 1, min(len(lines), start + MAX_WINDOW) + 1):
            if (end - 1) in code:
                break
            if not normal[end - 1]:
                continue
            text = f"{text} {normal[end - 1]}" if text else normal[end - 1]
            if len(text) > 1.5 * len(target):
                break
            found = score(text, target)
            if found is not None:
                scored.append((found, start, end))
    chosen: list[tuple[int, int]] = []
    for _, start, end in sorted(scored, key=lambda s: (-s[0], s[2] - s[1], s[1])):
        if all(end <= a or start >= b for a, b in chosen):
            chosen.append((start, end))
    return sorted(chosen)


SNIPPET_LINES = [
    "Tono: caveman por default, nivel full.",
    "Activa siempre.",
    "Excepción: prosa normal para advertencias.",
]
OTHER_LINES = [
    "",
    "```",
    "````",
    "   ~~~",
    "    ```",
    "``` x",
    "\u2003caveman\x1c",
    "Activa  siempre.",
    "c d e",
    "e f g h",
    "veman",
    "no: cave",
    "ción: pro",
    "# Agent",
    "Paso 1: lee el test.",
    "caveman",
    "Tono: caveman por default, nivel ultra.",
    "Tono: caveman por defecto, nivel full.",
    "Excepción: prosa normal para advertencias. Y algo más que no está.",
]
LINE = st.sampled_from(SNIPPET_LINES + OTHER_LINES)
TARGETS = [
    "\n".join(SNIPPET_LINES),
    SNIPPET_LINES[0],
    "nivel",
    "",
    "a b c d e f g h",
    "c d e f",
    "Tono: caveman",
]


@settings(max_examples=500, deadline=None)
@given(lines=st.lists(LINE, max_size=16), target=st.sampled_from(TARGETS))
def test_windows_are_those_of_reading_every_window(lines: list[str], target: str) -> None:
    assert snippet._code_lines(lines) == code_lines(lines)
    assert snippet._windows(lines, _snippet(target)) == windows_read(lines, target)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(LINE, st.sampled_from(["", "", "x", "```", "~~~~"])), max_size=80))
def test_windows_of_longer_bodies_are_those_of_reading_every_window(lines: list[str]) -> None:
    target = "\n".join(SNIPPET_LINES)
    assert snippet._windows(lines, _snippet(target)) == windows_read(lines, target)


def test_windows_reach_as_far_as_max_window_lines() -> None:
    head, tail = SNIPPET_LINES[0], " ".join(SNIPPET_LINES[1:])
    target = "\n".join(SNIPPET_LINES)
    for blanks in range(MAX_WINDOW - 4, MAX_WINDOW + 2):
        for lines in ([head, *[""] * blanks, tail], ["x", *[""] * blanks, head, tail]):
            assert snippet._windows(lines, _snippet(target)) == windows_read(lines, target)


def _lcs(a: str, b: str) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        previous = 0
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], previous + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


@settings(max_examples=500, deadline=None)
@given(a=st.text(alphabet="ab c\u00e9", max_size=30), b=st.text(alphabet="ab c\u00e9", max_size=30))
def test_the_common_subsequence_is_the_longest(a: str, b: str) -> None:
    target = snippet._Target(b)
    found = target.common(a)
    assert found == _lcs(a, target.text)
    # it bounds difflib's ratio from above, as the search relies on
    if a and target.text:
        assert target.closer(a) >= target.score(a)


# --- long bodies ----------------------------------------------------------------------

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
        if kind < 0.9:
            return [f"## {self.sentence()[:-1]}", ""]
        return ["```sh", f"rg {self.rng.choice(self.words)}", "```", ""]


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


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(5_000, 30_000),
    sentences=st.integers(2, 12),
    how=st.sampled_from(["absent", "copy", "word", "rewrapped", "line lost", "more"]),
)
def test_a_long_body_holds_the_copy_written_in_it_and_no_other(
    seed: int, size: int, sentences: int, how: str
) -> None:
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
        assert found.composed < at + len(copy) and found.end > at
    assert found.origin == "text"
    same = " ".join(found.text.split()) == " ".join(text.split())
    assert same is (how in ("copy", "rewrapped"))
