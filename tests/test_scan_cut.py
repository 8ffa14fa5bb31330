"""The scanner cuts a body into lines only as far as the walk can need them.

The oracle is the full walk (scan._TAIL_IS_TEXT off: every line of the body
cut and walked). Bodies are built from the lines that decide where a block
ends: blank lines of every kind of blank, fences that open before the last
construct and close after it (or never), code spans running over lines,
headings, and constructs near the end.
"""

from __future__ import annotations

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
