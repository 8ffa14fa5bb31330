"""The search for a snippet's copies in a body: the windows it chooses, against
reading every window (long bodies: tests/test_fuzz_bodies.py)."""

from __future__ import annotations

import random
import re
import textwrap
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from promptc_compiler.base import body_syntax
from promptc_compiler.core import snippet
from promptc_compiler.core.snippet import DRIFT, MAX_WINDOW, PART, THRESHOLD, Snippet

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


# --- every window read -----------------------------------------------------------------


def code_lines(lines: Sequence[str]) -> set[int]:
    """Fenced code at the top level (no list items in these bodies), CommonMark's way."""
    inside: set[int] = set()
    fence: str | None = None
    for index, line in enumerate(lines):
        marker = re.match(r"^ {0,3}(`{3,}|~{3,})(.*)$", line)
        if fence is not None:
            inside.add(index)
            run, rest = marker.groups() if marker else ("", "")
            if run[:1] == fence[0] and len(run) >= len(fence) and not rest.strip(" \t"):
                fence = None
        elif marker and not (marker.group(1)[0] == "`" and "`" in marker.group(2)):
            fence = marker.group(1)
            inside.add(index)
    return inside


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        previous = 0
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], previous + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def _pairs(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(len(text) - 1)]


def similarity(text: str, target: str) -> tuple[float, int]:
    """(the pairs of adjacent characters two texts keep in common, in order,
    twice over both texts' pairs; the pairs inserted or deleted between them)."""
    common = _lcs(_pairs(text), _pairs(target))
    pairs = len(text) + len(target) - 2
    return (2 * common / pairs if pairs else 1.0), pairs - 2 * common


def score(text: str, target: str) -> float | None:
    """A window's score by the definition (promptc_compiler.core.snippet._windows), or None."""
    if len(text) >= PART * len(target) and text in target:
        return similarity(text, target)[0]
    if len(text) < 0.66 * len(target):
        return None
    size = max(1, min(snippet.ANCHOR, len(target) // 4))
    pieces = {target[i : i + size] for i in range(0, len(target) - size + 1, size)}
    if 2 * sum(piece in text for piece in pieces) < len(pieces):
        return None
    words = set(target.split())
    if 2 * len(words & set(text.split())) < len(words):
        return None
    ratio, differ = similarity(text, target)
    return ratio if ratio >= THRESHOLD and differ <= snippet.DRIFT else None


def windows_read(
    lines: Sequence[str], target_text: str, breaks: Collection[int] = ()
) -> list[tuple[int, int]]:
    """Every window scored, the most similar chosen; no window holds a code line
    or a line of `breaks`."""
    code = code_lines(lines) | set(breaks)
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
@given(
    lines=st.lists(LINE, max_size=16),
    target=st.sampled_from(TARGETS),
    drift=st.sampled_from([DRIFT, 2, 12]),
)
def test_windows_are_those_of_reading_every_window(
    lines: list[str], target: str, drift: int
) -> None:
    """`drift`: DRIFT as it is, or small enough to set some of these copies aside."""
    body = "\n".join(lines)
    lines = body.split("\n")
    assert body_syntax.code_lines(lines) == code_lines(lines)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(snippet, "DRIFT", drift)
        assert snippet._windows(lines, _snippet(target)) == windows_read(lines, target)


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(LINE, max_size=16),
    target=st.sampled_from(TARGETS),
    breaks=st.sets(st.integers(0, 15)),
)
def test_windows_around_lines_read_as_code_are_those_of_reading_every_window(
    lines: list[str], target: str, breaks: set[int]
) -> None:
    """The lines a call of the snippet rendered (find_copies) part the text as code does."""
    breaks = {index for index in breaks if index < len(lines)}
    found = snippet._windows(lines, _snippet(target), breaks)
    assert found == windows_read(lines, target, breaks)
    assert all(not breaks.intersection(range(start, end)) for start, end in found)


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


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.one_of(LINE, st.sampled_from(["", "x", "```", "a " * 30])), max_size=60),
    target=st.sampled_from(TARGETS[:2]),
)
# A window of MAX_WINDOW lines, blank ones among them, one line short of enough.
@example(lines=["x", *[""] * (MAX_WINDOW - 1), "xyz"], target="Tono: caveman")
def test_a_line_is_open_when_its_longest_window_is_long_enough(
    lines: list[str], target: str
) -> None:
    """_Reading.open: the lines read from which the window to the last line read
    of their stretch (a code line ends it), within MAX_WINDOW lines, is PART of
    the snippet long at least, each window measured on its own."""
    reading = snippet._Reading(lines, snippet._Target(target))
    shortest = PART * len(" ".join(target.split()))
    expected = []
    for position, line in enumerate(reading.lines):
        stop = min([c for c in reading.code if c > line] + [len(lines), line + MAX_WINDOW])
        texts = [reading.read[p] for p, at in enumerate(reading.lines) if line <= at < stop]
        if len(" ".join(texts)) >= shortest:
            expected.append(position)
    assert reading.open == expected


def test_half_of_the_pieces_are_counted_only_from_lines_that_reach_one() -> None:
    """A line from which no piece is in reach holds none (_Reading._reaches counts
    only the others): a drifted copy whose first line is no part of the snippet is
    still found from it, far down a body, and the lines before it are not tried."""
    target = "\n".join(SNIPPET_LINES)
    drifted = ["Tono: caveman por defecto, nivel full.", *SNIPPET_LINES[1:]]
    prose = [f"Paso {n}: lee el archivo, compara y reporta." for n in range(100)]
    for lines in ([*prose, *drifted], [*prose, "", *drifted, *prose], prose):
        reading = snippet._Reading(lines, snippet._Target(target))
        starts = [reading.lines[p] for p in reading.starts(snippet._Target(target))]
        copy = 100 + (len(lines) > 100 and lines[100] == "")  # its first line
        # The copy's first line, found only for the pieces in its reach; no line
        # far before it (its neighbour reaches the copy's pieces too).
        assert (copy in starts) == (len(lines) > 100)
        assert all(copy - 3 <= start < copy + 3 for start in starts), starts
        assert snippet._windows(lines, _snippet(target)) == windows_read(lines, target)
        assert (snippet._windows(lines, _snippet(target)) != []) == (len(lines) > 100)


def test_only_lines_near_a_word_or_a_part_of_the_snippet_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A window that holds a copy reads a line that shares a word with the snippet
    or is a part of it (_Target.spans): the lines farther than a window from any
    such line are not read, in lines (MAX_WINDOW) or in characters (half again
    the snippet's length). Still found, each between 100 lines of prose that
    shares no word with the snippet: a drifted copy, and a part of it that
    holds no whole word of it (`ono: cavem`)."""
    target = "Tono: caveman por default, nivel full."
    prose = [f"Paso {n}: lee el archivo y reporta." for n in range(100)]
    searched: list[str] = []
    occurrences = snippet._occurrences

    def looked_for(text: str, numbers: Mapping[str, int]) -> list[tuple[int, int]]:
        searched.append(text)
        return occurrences(text, numbers)

    monkeypatch.setattr(snippet, "_occurrences", looked_for)
    # Read: the copy, and the lines of prose (34 characters) a window that
    # holds it reaches without growing longer than 57, half again the
    # snippet's 38: none beside the drifted copy (38), one on each side of
    # the part (10).
    for copy, side in (("Tono: caveman por defecto, nivel full.", 0), ("ono: cavem", 1)):
        lines = [*prose, copy, *prose]
        found = snippet._windows(lines, _snippet(target))
        assert found == windows_read(lines, target) == [(100, 101)]
        assert searched.pop() == " ".join([*prose[100 - side :], copy, *prose[:side]])
    assert snippet._windows(prose, _snippet(target)) == []
    assert searched == []  # no line of the prose could be in a copy: none read


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
    assert snippet._occurrences(text, pieces.numbers) == expected


@pytest.mark.parametrize("words", [20, 200, 2000])  # below MANY_PIECES, then past it
def test_occurrences_of_many_pieces_are_found_in_one_pass(words: int) -> None:
    rng = random.Random(words)
    prose = " ".join("".join(rng.choices("abcdefgh", k=3)) for _ in range(words))
    pieces = snippet._Target(prose)
    text = prose[len(prose) // 3 :] + " cab " + prose[: len(prose) // 2]
    expected = sorted(
        (at, number)
        for number, piece in enumerate(pieces.pieces)
        for at in range(len(text))
        if text.startswith(piece, at)
    )
    assert (len(pieces.numbers) > snippet.MANY_PIECES) is (words > 200)
    assert snippet._occurrences(text, pieces.numbers) == expected


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
        text: str, target: snippet._Target, pieces: Callable[[], int], words: Callable[[], int]
    ) -> tuple[float, bool] | None:
        compared.append(text)
        return verdict(text, target, pieces, words)

    searched: list[str] = []
    occurrences = snippet._occurrences

    def looked_for(text: str, numbers: Mapping[str, int]) -> list[tuple[int, int]]:
        searched.append(text)
        return occurrences(text, numbers)

    monkeypatch.setattr(snippet, "_verdict", counted)
    monkeypatch.setattr(snippet, "_occurrences", looked_for)
    found = _snippet("\n".join(lines))
    assert snippet._windows(["Intro.", "", *lines, "", *lines[:500]], found) == []
    assert compared == []
    assert searched == []
    # A snippet within reach is compared, and found.
    short = _snippet("\n".join(lines[:30]))
    assert snippet._windows(["Intro.", "", *lines[:30]], short) == [(2, 32)]
    assert compared
    assert searched


# Frequent short words: text in which difflib's ratio, which scored a window
# before, compared each character with most of the snippet's.
WORDS = [
    *("the", "of", "to", "and", "a", "in", "is", "it", "you", "that", "was"),
    *("for", "on", "are", "with", "as", "they", "be", "at", "one", "have"),
]


def _prose(count: int, width: int, seed: int) -> list[str]:
    """`count` lines of seeded random words, `width` characters each."""
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        words = [rng.choice(WORDS)]
        while sum(map(len, words)) + len(words) <= width:
            words.append(rng.choice(WORDS))
        lines.append(" ".join(words)[:width])
    return lines


def _drifted(lines: list[str], changed: Sequence[int]) -> list[str]:
    """The lines with a word changed in each of those `changed`."""
    copy = list(lines)
    for index in changed:
        words = copy[index].split(" ")
        words[len(words) // 2] += "x"
        copy[index] = " ".join(words)
    return copy


def _scans(monkeypatch: pytest.MonkeyPatch) -> list[snippet._Scan]:
    """Each pass that scores windows, as the search makes them."""
    scans: list[snippet._Scan] = []
    scan = snippet._Target.scan

    def kept(target: snippet._Target, text: str, lengths: Sequence[int]) -> snippet._Scan:
        scans.append(scan(target, text, lengths))
        return scans[-1]

    monkeypatch.setattr(snippet._Target, "scan", kept)
    return scans


@pytest.mark.parametrize(
    ("count", "width", "wrap"),
    [(30, 2_000, None), (200, 500, 5_000), (40, 1_000, 1_500)],
    ids=[
        "30 lines of 2,000",
        "200 lines of 500 in lines of 5 KB",
        "40 lines of 1,000 in lines of 1,500",
    ],
)
def test_a_drifted_copy_of_long_lines_is_read_once_each_pair_against_a_band(
    monkeypatch: pytest.MonkeyPatch, count: int, width: int, wrap: int | None
) -> None:
    """A window that may be a drifted copy was scored by difflib's ratio, which
    compares each of its characters with each of the snippet's, and more: two
    and a half minutes for 30 lines of 2,000 characters, five for the copy of
    200 lines of 500 in lines of 5 KB. Now the copy is read once, and each
    pair of adjacent characters it holds is compared with at most
    2 * DRIFT + 1 of the snippet's, however long the snippet is: work in the
    copy's length."""
    lines = _prose(count, width, seed=count)
    copy = _drifted(lines, [0, count // 2, count - 1])
    if wrap:
        copy = textwrap.wrap(" ".join(copy), wrap)
    after = _prose(6, 80, seed=1)
    body = ["# Agent", "", "Read the code first.", "", *copy, "", *after]
    scans = _scans(monkeypatch)
    found = snippet._windows(body, _snippet("\n".join(lines)))
    assert found == [(4, 4 + len(copy))]
    # One pass, from the copy's first line to its end (the windows from there
    # are prefixes of one another), each pair against 2 * DRIFT + 1 at most.
    copied = " ".join(" ".join(copy).split())  # as the search reads it
    assert [scan.read for scan in scans] == [len(copied) - 1]
    assert scans[0].band <= DRIFT


def test_a_copy_that_differs_by_more_than_drift_pairs_is_a_rewrite(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four of twelve lines of 1,000 characters written anew (in the same few
    words): the text is still similar to the snippet (THRESHOLD), but more
    than DRIFT pairs are inserted and deleted, and no part of a quarter of it
    is left word for word: not a copy."""
    lines = _prose(12, 1_000, seed=12)
    other = _prose(4, 1_000, seed=13)
    rewritten = list(lines)
    for index, line in zip([2, 5, 8, 11], other, strict=True):
        rewritten[index] = line
    target = snippet._Target("\n".join(lines))
    text = " ".join(rewritten)
    pairs = len(text) + len(target.text) - 2
    common = snippet._Scan(target, text, [len(text)], pairs).common(len(text))
    assert common is not None  # a band as wide as both: the longest
    assert target.similarity(common, len(text)) >= THRESHOLD
    assert pairs - 2 * common > DRIFT
    scans = _scans(monkeypatch)
    assert snippet._windows(["Intro.", "", *rewritten], _snippet("\n".join(lines))) == []
    assert scans
    assert all(scan.band <= DRIFT for scan in scans)
    # The same with as many pairs to spare is a drifted copy.
    monkeypatch.setattr(snippet, "DRIFT", pairs - 2 * common)
    assert snippet._windows(["Intro.", "", *rewritten], _snippet("\n".join(lines))) == [(2, 14)]


CALL_LINES = ["", "x", "```", "~~~", "<<s>>", "`<<s>>`", "a <<s>> b <<s(level=1)>>", "<<", "<<t>>"]


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(st.sampled_from([*CALL_LINES, "<< s\t>>", "<<s(a=1,\nb=2)>>"]), max_size=12))
def test_calls_are_those_of_every_line_outside_code(lines: list[str]) -> None:
    """The calls are the scanner's placeholders of the snippet: outside code, one line each."""
    body = "\n".join(lines)
    lines = body.split("\n")
    call = re.compile(r"<<\s*s\s*(?:\((?P<args>[^)]*)\))?\s*>>")
    code = code_lines(lines)
    expected: list[tuple[int, tuple[int, int], str | None]] = []
    for index, line in enumerate(lines):
        in_code = [m.span() for m in re.finditer(r"(`+)(?:(?!\1).)+?\1", line)]
        for match in call.finditer(line):
            if index not in code and not any(a <= match.start() < b for a, b in in_code):
                expected.append((index, match.span(), match.group("args")))
    spec: Any = _Spec(body)
    found = snippet._calls(spec, _snippet("s"))
    spans = [(p.line - 1, (p.column - 1, p.column - 1 + len(p.text))) for p in found]
    assert spans == [(index, span) for index, span, _ in expected]
    for placeholder, (_, _, args) in zip(found, expected, strict=True):
        assert {arg.name: arg.value for arg in placeholder.args} == ({"level": 1} if args else {})


TEXT = st.text(alphabet="ab c\u00e9", max_size=30)


@settings(max_examples=1000, deadline=None)
@given(a=TEXT, b=TEXT, band=st.integers(0, 40), cut=st.integers(0, 30))
def test_the_common_subsequence_in_the_band_is_the_longest_when_they_differ_as_little(
    a: str, b: str, band: int, cut: int
) -> None:
    """Read in a band of `band` places, the common subsequence of the pairs of
    a prefix of `a` and of `b` is their longest when they differ by at most
    `band` pairs inserted or deleted; when they differ by more, it says so:
    never more than the longest, never enough to pass for a difference
    within `band`."""
    target = snippet._Target(b)
    if not target.text:
        return  # an empty snippet has no copies to look for
    lengths = sorted({min(cut, len(a)), len(a)} - {0})
    scan = snippet._Scan(target, a, lengths, band)
    for length in lengths[::-1]:  # a shorter window after a longer one: read already
        found = scan.common(length)
        pairs = length + len(target.text) - 2
        if abs(length - len(target.text)) > band:
            assert found is None  # they differ by that much at least
            continue
        assert found is not None
        longest = _lcs(_pairs(a[:length]), _pairs(target.text))
        if pairs - 2 * longest <= band:
            assert found == longest
        else:
            assert found <= longest
            assert pairs - 2 * found > band


@settings(max_examples=500, deadline=None)
@given(a=TEXT, b=TEXT, drift=st.sampled_from([DRIFT, 0, 3]))
def test_scores_are_the_similarity_of_copies(a: str, b: str, drift: int) -> None:
    """A window's score: twice the pairs of adjacent characters it keeps in
    common with the snippet, in order, over their pairs together, when that is
    THRESHOLD or more and at most DRIFT pairs are inserted or deleted between
    them; no score when not."""
    target = snippet._Target(b)
    if not a or not target.text:
        return
    expected = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(snippet, "DRIFT", drift)
        for length in range(1, len(a) + 1):
            ratio, differ = similarity(a[:length], target.text)
            if ratio >= THRESHOLD and differ <= drift and length + len(target.text) > 2:
                expected[length] = ratio
        scan = target.scan(a, range(1, len(a) + 1))
        scores = {n: target.score(scan, n) for n in range(1, len(a) + 1)}
        assert {n: value for n, value in scores.items() if value is not None} == expected
    # the bound it is ordered by before it is scored is at least the score
    assert all(target.bound(a[:length]) >= value for length, value in expected.items())
