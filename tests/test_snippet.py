"""The search for a snippet's copies in a body: the windows it chooses, against
reading every window (long bodies: tests/test_fuzz_bodies.py)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler import snippet
from compiler.snippet import MAX_WINDOW, PART, THRESHOLD, Snippet


def _snippet(text: str) -> Snippet:
    return Snippet("s", Path("s.md"), text, text, (), {}, (), {}, {}, "<<s>>")


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
    body = "\n".join(lines)
    lines = body.split("\n")
    assert snippet._code_lines(lines, range(len(lines))) == code_lines(lines)
    assert snippet._windows(lines, _snippet(target)) == windows_read(lines, target)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(LINE, st.sampled_from(["", "", "x", "```", "~~~~"])), max_size=80))
def test_windows_of_longer_bodies_are_those_of_reading_every_window(lines: list[str]) -> None:
    target = "\n".join(SNIPPET_LINES)
    assert snippet._windows(lines, _snippet(target)) == windows_read(lines, target)


@settings(max_examples=200, deadline=None)
@given(bodies=st.lists(st.lists(LINE, max_size=12), min_size=2, max_size=6))
def test_windows_found_by_a_snippet_that_read_other_bodies_are_those_of_a_fresh_one(
    bodies: list[list[str]],
) -> None:
    """A run's snippet keeps what it read of each line for the next agents."""
    target = "\n".join(SNIPPET_LINES)
    shared = _snippet(target)
    for lines in bodies:
        assert snippet._windows(lines, shared) == snippet._windows(lines, _snippet(target))


def test_windows_reach_as_far_as_max_window_lines() -> None:
    head, tail = SNIPPET_LINES[0], " ".join(SNIPPET_LINES[1:])
    target = "\n".join(SNIPPET_LINES)
    for blanks in range(MAX_WINDOW - 4, MAX_WINDOW + 2):
        for lines in ([head, *[""] * blanks, tail], ["x", *[""] * blanks, head, tail]):
            found = snippet._windows(lines, _snippet(target))
            assert found == windows_read(lines, target)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab c", max_size=40), target=st.text(alphabet="ab c", max_size=24))
def test_occurrences_are_every_place_each_piece_is_found(text: str, target: str) -> None:
    pieces = snippet._Target(target)
    expected = sorted(
        (at, number)
        for number, piece in enumerate(pieces.pieces)
        for at in range(len(text))
        if text.startswith(piece, at)
    )
    assert list(snippet._occurrences(text, pieces.numbers, pieces.anchor)) == expected


def test_a_snippet_longer_than_any_window_is_never_compared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No window of MAX_WINDOW lines of 80 characters is PART of a snippet of
    1,000 such lines: the search reads no window and looks for none of its
    10,000 pieces (it did, in every body: time quadratic in the snippet)."""
    lines = [f"{n:>5} " + "the snippet's own words, one line of many, " * 2 for n in range(1000)]
    compared: list[str] = []
    verdict = snippet._verdict

    def counted(
        text: str, target: snippet._Target, pieces: Callable[[], int]
    ) -> tuple[float, bool] | None:
        compared.append(text)
        return verdict(text, target, pieces)

    monkeypatch.setattr(snippet, "_verdict", counted)
    found = _snippet("\n".join(lines))
    assert snippet._windows(["Intro.", "", *lines, "", *lines[:500]], found) == []
    assert compared == []
    assert found.target.held == {}
    # A snippet within reach is compared, and found.
    short = _snippet("\n".join(lines[:30]))
    assert snippet._windows(["Intro.", "", *lines[:30]], short) == [(2, 32)]
    assert compared


CALL_LINES = ["", "x", "```", "~~~", "<<s>>", "`<<s>>`", "a <<s>> b <<s(level=1)>>", "<<", "<<t>>"]


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(st.sampled_from([*CALL_LINES, "<< s\t>>", "<<s(a=1,\nb=2)>>"]), max_size=12))
def test_calls_are_those_of_every_line_outside_code(lines: list[str]) -> None:
    body = "\n".join(lines)
    lines = body.split("\n")
    call = re.compile(r"<<\s*s\s*(?:\((?P<args>[^)]*)\))?\s*>>")
    code = code_lines(lines)
    expected = []
    for index, line in enumerate(lines):
        spans = [m.span() for m in re.finditer(r"(`+)(?:(?!\1).)+?\1", line)]
        for match in call.finditer(line):
            if index not in code and not any(a <= match.start() < b for a, b in spans):
                expected.append((index, match.span(), match.group("args")))
    found = snippet._calls(_snippet("s"), body, lines)
    assert [(i, m.span(), m.group("args")) for i, m in found] == expected
    assert all(m.string == lines[i] for i, m in found)


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


@settings(max_examples=300, deadline=None)
@given(
    a=st.lists(st.sampled_from(["a", "b", "", "c"]), max_size=8),
    b=st.lists(st.sampled_from(["a", "b", "", "c"]), max_size=8),
    names=st.permutations(["p", "q", "r", "s"]),
)
def test_opcodes_kept_for_a_run_are_difflibs_for_other_lines_of_the_same_pattern(
    a: list[str], b: list[str], names: list[str]
) -> None:
    """A run keeps difflib's opcodes by pattern of equal lines (agents share
    their layout): other lines in the same places get what difflib gives them."""
    rename = dict(zip(["a", "b", "", "c"], names, strict=True))
    known: dict[Any, Any] = {}
    for x, y in ((a, b), ([rename[i] for i in a], [rename[i] for i in b])):
        assert snippet.align(x, y, known) == snippet.align(x, y)


def _plain_ends(source: list[str], composed: list[str]) -> tuple[int, int]:
    """The common head and tail as align() found them with a loop per line."""
    head = 0
    limit = min(len(source), len(composed))
    while head < limit and source[head] == composed[head]:
        head += 1
    tail = 0
    while tail < limit - head and source[-1 - tail] == composed[-1 - tail]:
        tail += 1
    return head, tail


LINES = st.lists(st.sampled_from(["a", "b", "", "<<x>>"]), max_size=8)


@given(LINES, LINES)
@example(["a", "a"], ["a"])
@example(["a", "b", "a"], ["a", "a"])
@example([], ["a"])
def test_align_matches_the_same_head_and_tail(source: list[str], composed: list[str]) -> None:
    head, tail = _plain_ends(source, composed)
    opcodes = snippet.align(source, composed)
    expected: list[snippet.Opcode] = [("equal", 0, head, 0, head)] if head else []
    middle = difflib.SequenceMatcher(
        None, source[head : len(source) - tail], composed[head : len(composed) - tail], False
    )
    for tag, i1, i2, j1, j2 in middle.get_opcodes():
        expected.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        expected.append(
            ("equal", len(source) - tail, len(source), len(composed) - tail, len(composed))
        )
    assert opcodes == expected
