"""promptc_compiler.editor.quickfix: a Fix as the smallest edit, and the word a did-you-mean replaces."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from promptc_compiler.base.diagnostics import Diagnostic, Fix, Severity
from promptc_compiler.editor.quickfix import Edit, fix_edits, suggestion
from promptc_compiler.pipeline.fix import apply

_BREAK = re.compile(r"\r\n|\r|\n")


def edited(text: str, edits: list[Edit]) -> str:
    """What an editor makes of `text`: positions are (line, code point) after CRLF, CR or LF."""
    starts = [0, *(m.end() for m in _BREAK.finditer(text))]

    def offset(at: tuple[int, int]) -> int:
        return starts[at[0]] + at[1]

    for e in sorted(edits, key=lambda e: (offset(e.start), offset(e.end)), reverse=True):
        text = text[: offset(e.start)] + e.text + text[offset(e.end) :]
    return text


LINES = st.lists(st.sampled_from(["a", "b", "  c: d", "", "é€"]), min_size=1, max_size=6)


@st.composite
def files_and_fixes(draw: st.DrawFn) -> tuple[str, list[Fix]]:
    lines = draw(LINES)
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    bom = draw(st.sampled_from(["", "\ufeff"]))
    text = bom + ending.join(lines) + draw(st.sampled_from(["", ending]))
    fixes = []
    for _ in range(draw(st.integers(0, 3))):
        start = draw(st.integers(1, len(lines) + 1))
        end = draw(st.integers(start - 1, len(lines)))
        body = draw(st.lists(st.sampled_from(["a", "x", "  c: e", ""]), max_size=2))
        fixes.append(Fix(start, end, "".join(f"{line}\n" for line in body)))
    return text, fixes


@given(files_and_fixes())
def test_the_edits_make_what_lint_fix_makes(case: tuple[str, list[Fix]]) -> None:
    text, fixes = case
    assert edited(text, fix_edits(text, fixes)) == apply(text, fixes)


def test_a_changed_line_is_one_small_edit_and_crlf_is_never_split() -> None:
    text = "---\r\nmode: primary\r\nname: x\r\n---\r\n"
    [edit] = fix_edits(text, [Fix(2, 2, "mode: subagent\n")])
    assert edit == Edit((1, 6), (1, 13), "subagent")
    [added] = fix_edits(text, [Fix(3, 2, "hidden: true\n")])
    assert added == Edit((2, 0), (2, 0), "hidden: true\r\n")


def diagnostic(line: int, column: int, message: str) -> Diagnostic:
    return Diagnostic("specs/agents/a.md", line, column, "compose", Severity.ERROR, message)


def test_the_word_replaced_is_the_one_like_the_suggestion_nearest_the_column() -> None:
    text = '---\nmode: all\n---\n<<review_steps(focus="test")>> and test\n'
    message = (
        "fragment 'review_steps': parameter 'focus' must be one of \"bugs\", \"tests\"; "
        'got "test" (did you mean `tests`?)'
    )
    found = suggestion(diagnostic(4, 22, message), text)
    assert found == ("test", "tests", Edit((3, 22), (3, 26), "tests"))


def test_no_suggestion_without_a_did_you_mean_or_without_the_word_on_the_line() -> None:
    text = "---\npermisson:\n---\n"
    assert suggestion(diagnostic(2, 1, "unknown key 'permisson'"), text) is None
    missing = "unknown key 'permison' (did you mean `permission`?)"
    assert suggestion(diagnostic(2, 1, missing), text) is None
    assert suggestion(diagnostic(9, 1, missing), text) is None
    # `permisson` inside a longer word is not the word.
    longer = "unknown key 'permisso' (did you mean `permission`?)"
    assert suggestion(diagnostic(2, 1, longer), text) is None
