"""The scanner cuts a body into lines only as far as the walk can need them.

The oracle is the full walk (scan._TAIL_IS_TEXT off: every line of the body
cut and walked). Bodies are built from the lines that decide where a block
ends: blank lines of every kind of blank, fences that open before the last
construct and close after it (or never), code spans running over lines,
headings, and constructs near the end.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler import scan

LINE = st.sampled_from(
    [
        *("", " ", "\t", "\x0c", "\x1c", "\u3000", "\xa0", "\x85", " \u2028 "),
        *("```", "~~~", "````", "``` x", "  ```", "text", "`a", "b`", "# H", "## <<a>>"),
        *("<<a>>", "  <<a(x=1)>>  ", "x <<a>> y", "<% if target == 'claude' %>", "<% endif %>"),
        *("<% else %>", "<#c#>", "\\<<a>>", "a < b", "<<bad(>>", "<% elif %>", "<<"),
    ]
)


def _walked(body: str, first_line: int) -> scan.Scan:
    assert scan._TAIL_IS_TEXT
    try:
        scan._TAIL_IS_TEXT = False
        return scan.scan(body, first_line)
    finally:
        scan._TAIL_IS_TEXT = True


@settings(max_examples=600, deadline=None)
@given(
    lines=st.lists(LINE, max_size=12),
    ending=st.sampled_from(["", "\n", "\n\n"]),
    first_line=st.integers(min_value=1, max_value=9),
)
@example(lines=["```", "<<a>>", "", "text", "```", "after"], ending="\n", first_line=1)
@example(lines=["<<a>>", "\x0c", "tail"], ending="", first_line=3)
@example(lines=["a `<<b>>", "c` d", "", "e"], ending="\n", first_line=2)
@example(lines=["<<a>>"], ending="\n\n", first_line=1)
@example(lines=["text", "more"], ending="\n", first_line=1)
def test_a_body_cut_short_scans_as_the_full_walk(
    lines: list[str], ending: str, first_line: int
) -> None:
    body = "\n".join(lines) + ending
    assert scan.scan(body, first_line) == _walked(body, first_line)


def test_lines_are_cut_to_the_blank_line_after_the_last_opener() -> None:
    body = "<<a>>\ntext\n  \nmore\n\nend\n"
    assert scan._lines_needed(body, body.rfind("<")) == 3  # lines 0-2, then the rest whole
    assert scan._lines_needed("no construct\n\nat all", -1) == 0
    assert scan._lines_needed("<<a>>\nno blank line after", 0) == -1


PARAGRAPH = st.sampled_from(
    [
        "<<caveman(level='ultra')>>",
        "<% if target == 'claude' %>\nUse Agent.\n<% else %>\nUse task.\n<% endif %>",
        "<<flow>>",
        "  <<a>>  ",
        "text <<a>> more\nand `<<code>>` here",
        "a `<<b>>\nc` d <<e>>",
        "<#c#> <<a>>\n\\<<a>>",
        "<<bad(>>",
        "<% elif %>",
        "<% endif %>",
        "# Agent",
        "plain text",
        "```\n<<a>>\n```",
    ]
)


def _cold(body: str, first_line: int) -> scan.Scan:
    saved = dict(scan._PARAGRAPHS)
    scan._PARAGRAPHS.clear()
    try:
        return scan.scan(body, first_line)
    finally:
        scan._PARAGRAPHS.clear()
        scan._PARAGRAPHS.update(saved)


@settings(max_examples=400, deadline=None)
@given(
    bodies=st.lists(
        st.tuples(
            st.lists(PARAGRAPH, max_size=6).map("\n\n".join),
            st.sampled_from(["", "\n", "\n\n"]),
            st.sampled_from([1, 4]),
        ),
        min_size=1,
        max_size=4,
    ),
    budget=st.sampled_from([1, 3, 6, scan.MAX_CONSTRUCTS]),
)
@example(bodies=[("<<a>>\n\n<<bad(>>", "\n", 1), ("<<a>>\n\n<<bad(>>", "\n", 1)], budget=1)
def test_remembered_paragraphs_scan_as_walked(
    bodies: list[tuple[str, str, int]], budget: int
) -> None:
    """Paragraphs repeated across bodies (at the same line or not, with problems or
    not, within the construct budget or past it) scan as a walk from nothing does."""
    saved = scan.MAX_CONSTRUCTS
    scan.MAX_CONSTRUCTS = budget
    try:
        for text, ending, first_line in bodies * 2:  # twice: the second time from memory
            body = text + ending
            assert scan.scan(body, first_line) == _cold(body, first_line), body
    finally:
        scan.MAX_CONSTRUCTS = saved


def test_a_repeated_paragraph_is_walked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    scan._PARAGRAPHS.clear()
    walked: list[str] = []
    real = scan._Scanner._walk_paragraph

    def counting(
        scanner: scan._Scanner, lines: list[str], ends: list[str], first: int, text: str
    ) -> None:
        walked.append(text)
        real(scanner, lines, ends, first, text)

    monkeypatch.setattr(scan._Scanner, "_walk_paragraph", counting)
    block = "<% if target == 'claude' %>\nx\n<% endif %>"
    body = block + "\n\ntext <<a>>\n"
    scan.scan(body, 5)
    assert walked == [block, "text <<a>>"]
    again = scan.scan("# other\n\n" + body, 3)  # the block at line 5 again, 9 characters on
    assert walked == [block, "text <<a>>"]
    moved = scan.scan(body, 6)  # at another line: walked again
    assert walked == [block, "text <<a>>", block, "text <<a>>"]
    monkeypatch.undo()
    assert again == _cold("# other\n\n" + body, 3)
    assert moved == _cold(body, 6)
    # The block's text line, replayed 9 characters on: `x` and its line break.
    assert again.segments[3] == scan.Literal(9 + block.index("x"), 9 + block.index("x") + 2, 6, 1)


def test_long_paragraphs_are_walked_each_time_not_remembered() -> None:
    paragraph = "<<a>> " + "word " * 500
    assert len(paragraph) > scan._PARAGRAPH_CHARS_KEPT
    scan._PARAGRAPHS.clear()
    body = f"<<b>>\n\n{paragraph}\n"
    assert scan.scan(body, 3) == scan.scan(body, 3) == _cold(body, 3)
    assert list(scan._PARAGRAPHS) == [("<<b>>", "\n", 3)]
