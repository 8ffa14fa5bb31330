"""The analyses' fast paths give exactly what the plain definitions give.

Each oracle here is the straightforward implementation the fast one replaced
(kept only as a test oracle); hypothesis compares the two on small alphabets
that reach the corner cases (backslashes, `?`, the optional trailing ` *`,
astral characters, numeric keys).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler import snippet, validate, yamlout
from compiler.loader import plain_frontmatter
from compiler.snippet import MAX_WINDOW, PART, THRESHOLD, Snippet
from tests.strategies import markdown

# --- snippet windows ---------------------------------------------------------------------


def score_oracle(text: str, target: str, words: set[str]) -> float | None:
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    part = len(text) >= PART * len(target) and text in target
    if not part and len(text) < 0.66 * len(target):
        return None
    if not part and len(words & set(text.split())) < len(words) / 2:
        return None
    matcher.set_seq1(text)
    if not part and matcher.quick_ratio() < THRESHOLD:
        return None
    score = matcher.ratio()
    return score if part or score >= THRESHOLD else None


def code_lines_oracle(lines: Sequence[str]) -> set[int]:
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


def windows_oracle(lines: Sequence[str], target_text: str) -> list[tuple[int, int]]:
    """Every window scored, the most similar chosen: the plain definition."""
    code = code_lines_oracle(lines)
    target = snippet._normal(target_text)
    words = set(target.split())
    scored: list[tuple[float, int, int]] = []
    normal = [snippet._normal(line) for line in lines]
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
            score = score_oracle(text, target, words)
            if score is not None:
                scored.append((score, start, end))
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
    "h",
    "veman",
    "no: cave",
    "o: c",
    "ción: pro",
    "# Agent",
    "Paso 1: lee el test.",
    "nivel",
    "caveman",
    "ción: prosa",
    "Tono: caveman por default, nivel ultra.",
    "Excepción: prosa normal para advertencias. Y algo más que no está.",
]
LINE = st.sampled_from(SNIPPET_LINES + OTHER_LINES)


def _snippet(text: str) -> Snippet:
    return Snippet("s", Path("s.md"), text, re.compile(re.escape(text)), {}, (), {}, {}, "<<s>>")


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(LINE, max_size=14),
    target=st.sampled_from(
        # long snippets (parts are long), short ones (a part may be two bits of words)
        [
            "\n".join(SNIPPET_LINES),
            SNIPPET_LINES[0],
            "nivel",
            "",
            "a b c d e f g h",
            "c d e f",
            "Tono: caveman",
        ]
    ),
)
def test_windows_agree_with_scoring_every_window(lines: list[str], target: str) -> None:
    assert snippet._code_lines(lines) == code_lines_oracle(lines)
    expected = windows_oracle(lines, target)
    assert snippet._windows(lines, _snippet(target)) == expected
    assert snippet._windows(lines, _snippet(target), "\n".join(lines)) == expected


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(alphabet="ab c", min_size=1, max_size=12),
    target=st.text(alphabet="ab c", max_size=12),
)
def test_score_agrees_with_difflib(text: str, target: str) -> None:
    text, target = snippet._normal(text) or "a", snippet._normal(target)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    words = set(target.split())
    assert snippet._score(matcher, text, target, words) == score_oracle(text, target, words)


FILLER = st.sampled_from(["", "", "x", "Paso 1: lee el test.", "```", "~~~~"])


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(LINE, FILLER, FILLER), max_size=80))
def test_windows_of_long_bodies_look_for_fences_only_as_far_as_they_reach(
    lines: list[str],
) -> None:
    target = "\n".join(SNIPPET_LINES)
    expected = windows_oracle(lines, target)
    assert snippet._windows(lines, _snippet(target), "\n".join(lines)) == expected


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.sampled_from(["", "x", "```", "````", "  ```", "~~~~", "~~~"]), max_size=30),
    last=st.integers(min_value=0, max_value=30),
)
def test_code_lines_up_to_an_offset_are_the_plain_ones(lines: list[str], last: int) -> None:
    """Lines up to `last` are classified as with the whole text read."""
    text = "\n".join(lines)
    last = min(last, len(lines) - 1)
    until = sum(map(len, lines[: last + 1])) + last
    found = snippet._code_lines(lines, text, until=until)
    expected = code_lines_oracle(lines)
    assert {i for i in found if i <= last} == {i for i in expected if i <= last}


@given(text=st.text(alphabet="<a\n", max_size=30), needle=st.sampled_from(["<<", "a", "<a"]))
def test_lines_holding_are_the_plain_ones(text: str, needle: str) -> None:
    lines = text.split("\n")
    ends = [sum(map(len, lines[: i + 1])) + i for i in range(len(lines))]
    expected = [(i, ends[i]) for i, line in enumerate(lines) if needle in line]
    assert snippet._lines_holding(text, needle) == expected


def calls_oracle(body: str, name: str) -> list[tuple[int, tuple[int, int]]]:
    """(line, span) of every placeholder outside code: every line looked at."""
    call = snippet._call_pattern(name)
    lines = body.split("\n")
    code = code_lines_oracle(lines)
    found = []
    for index, line in enumerate(lines):
        if index in code or "<<" not in line:
            continue
        spans = [m.span() for m in re.finditer(r"(`+)(?:(?!\1).)+?\1", line)]
        for match in call.finditer(line):
            if not any(a <= match.start() < b for a, b in spans):
                found.append((index, match.span()))
    return found


class _Source:
    def __init__(self, body: str) -> None:
        self.body = body


class _Spec:
    def __init__(self, body: str) -> None:
        self.source = _Source(body)


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(
            ["", "x", "```", "~~~", "<<s>>", "`<<s>>`", "a <<s>> b <<s(level=1)>>", "<<", "<<t>>"]
        ),
        max_size=12,
    )
)
def test_calls_are_those_of_every_line(lines: list[str]) -> None:
    body = "\n".join(lines)
    spec: Any = _Spec(body)
    found = [(i, m.span()) for i, m in snippet._calls(spec, _snippet("s"))]
    assert found == calls_oracle(body, "s")


@settings(max_examples=300, deadline=None)
@given(
    a=st.lists(st.sampled_from(["a", "b", "", "c"]), max_size=8),
    b=st.lists(st.sampled_from(["a", "b", "", "c"]), max_size=8),
    names=st.permutations(["p", "q", "r", "s"]),
)
def test_opcodes_remembered_by_pattern_are_difflibs(
    a: list[str], b: list[str], names: list[str]
) -> None:
    """The same pattern of equal lines under other names: the same opcodes as
    difflib gives for those names."""
    rename = dict(zip(["a", "b", "", "c"], names, strict=True))
    other_a, other_b = [rename[x] for x in a], [rename[x] for x in b]
    for x, y in ((a, b), (other_a, other_b)):
        plain = difflib.SequenceMatcher(None, x, y, False).get_opcodes()
        assert snippet._opcodes(x, y) == [tuple(op) for op in plain]


def test_windows_reach_as_far_as_max_window_lines() -> None:
    head, tail = SNIPPET_LINES[0], " ".join(SNIPPET_LINES[1:])
    target = "\n".join(SNIPPET_LINES)
    for blanks in range(MAX_WINDOW - 4, MAX_WINDOW + 2):
        for lines in ([head, *[""] * blanks, tail], ["x", *[""] * blanks, head, tail]):
            assert snippet._windows(lines, _snippet(target)) == windows_oracle(lines, target)


def starts_oracle(lines: Sequence[str], useful: set[int], limit: float) -> list[int]:
    """Starts whose windows reach a useful line, found by growing every window."""
    code = code_lines_oracle(lines)
    found = []
    for start in range(len(lines)):
        if not snippet._normal(lines[start]) or start in code:
            continue
        text = ""
        for end in range(start + 1, min(len(lines), start + MAX_WINDOW) + 1):
            if (end - 1) in code:
                break
            line = snippet._normal(lines[end - 1])
            if not line:
                continue
            text = f"{text} {line}" if text else line
            if len(text) > limit:
                break
            if end - 1 in useful:
                found.append(start)
                break
    return found


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.sampled_from(["", "", "", "ab", "a b c", "```", "x"]), max_size=90),
    picks=st.sets(st.integers(min_value=0, max_value=89)),
    limit=st.sampled_from([0, 2, 7, 20, 1000]),
)
def test_starts_are_those_whose_windows_reach_a_useful_line(
    lines: list[str], picks: set[int], limit: float
) -> None:
    useful = {i for i in picks if i < len(lines) and lines[i]}
    code = snippet._code_lines(lines)
    at = lambda i: snippet._normal(lines[i])  # noqa: E731
    assert snippet._starts(useful, code, at, limit) == starts_oracle(lines, useful, limit)


def test_starts_reach_exactly_max_window_lines() -> None:
    for blanks in range(MAX_WINDOW - 4, MAX_WINDOW + 2):
        lines = ["x", *[""] * blanks, "ab"]
        useful = {len(lines) - 1}
        at = lambda i: snippet._normal(lines[i])  # noqa: E731, B023
        expected = starts_oracle(lines, useful, 1000)
        assert snippet._starts(useful, set(), at, 1000) == expected
        assert (0 in expected) == (blanks + 2 <= MAX_WINDOW)


# --- emitted frontmatter read entry by entry ---------------------------------------------


ENTRY_LINES = st.sampled_from(
    [
        "description: An agent.",
        "description: Another agent.",
        "mode: subagent",
        "permission:",
        "  edit: deny",
        '  "*": ask',
        "  bash:",
        '    "git status *": allow',
        "    rm *: deny",
        "# a comment",
        "  # an indented comment",
        "",
        "   ",
        "- item",
        "  - item",
        "? key",
        ": value",
        "a: |",
        "a: |+",
        "  block text",
        "b: >",
        'c: "two',
        'lines"',
        "d: &x 1",
        "e: *x",
        "\tf: tab",
        "mode: primary",
        "g: [1,",
        "2]",
        "h: {}",
        "i: []",
        "j: .nan",
        "k",
        "  l: 1",
        "...",
        "---",
        "%YAML 1.2",
        "!!str m: n",
    ]
)
YAML_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet="ab :#*-&\"'\n", max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet="ab :#", max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)


def _same(found: object, expected: object) -> bool:
    """Equal data, with the key order and NaN compared too."""
    return repr(found) == repr(expected)


@settings(max_examples=600, deadline=None)
@given(lines=st.lists(ENTRY_LINES, max_size=10), end=st.sampled_from(["---\n", "...\n", "---"]))
def test_frontmatter_read_by_entries_is_read_whole(lines: list[str], end: str) -> None:
    head = "---\n" + "".join(f"{line}\n" for line in lines) + end
    assert _same(validate.emitted_frontmatter(head), plain_frontmatter(head))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.text(alphabet="abc :", max_size=4), YAML_DATA, max_size=4)))
def test_generated_frontmatter_read_by_entries_is_read_whole(
    documents: list[dict[str, Any]],
) -> None:
    for data in documents:  # several, so entries read before are read again from memory
        head = f"---\n{yamlout.dump(data)}---\n"
        assert _same(validate.emitted_frontmatter(head), plain_frontmatter(head))


# --- scan --------------------------------------------------------------------------------


# Short lines of constructs, code and text, joined by line breaks, blank lines and
# fences: the block structure the shortcut depends on.
_SCAN_LINE = st.lists(
    st.sampled_from(["<<a>>", "x", "`", "``", "<% if target == 'claude' %>", "<% endif %>"])
    | st.sampled_from(["\\<<a>>", "<#c#>", "# H", "  ", "~~~", "```"]),
    max_size=4,
).map("".join)
_SCAN_BODY = st.lists(
    st.tuples(_SCAN_LINE, st.sampled_from(["\n", "\n\n", "\n```\n", "\n  \n"])), max_size=8
).map(lambda parts: "".join(a + b for a, b in parts))


@given(body=markdown | _SCAN_BODY, first_line=st.integers(min_value=1, max_value=40))
@example(body="<<a>>\n\n`x\ny`\n\nplain\ntail\n", first_line=4)
@example(body="```\n<<a>>\n\ntext\n```\nafter\n", first_line=1)
@example(body="a `<<b>>\n\nc` d\n", first_line=2)
@settings(deadline=None)
def test_the_text_after_the_last_opener_scans_as_the_full_walk_does(
    body: str, first_line: int
) -> None:
    from compiler import scan

    assert scan._TAIL_IS_TEXT
    try:
        scan._TAIL_IS_TEXT = False  # the oracle: every line walked
        walked = scan.scan(body, first_line)
    finally:
        scan._TAIL_IS_TEXT = True
    assert scan.scan(body, first_line) == walked
