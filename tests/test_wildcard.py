"""OpenCode's wildcard matcher, and the exact reasoning over what patterns match."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import wildcard
from compiler.wildcard import covers, glob, match, universal, witness

# (text, pattern, OpenCode's answer): cases checked against the opencode binary.
MATCH = [
    ("git status", "git status *", True),
    ("git status -s", "git status *", True),
    ("git statusx", "git status *", False),
    ("git status", "git status*", True),
    ("git statusx", "git status*", True),
    ("src/a/b.ts", "src/*", True),
    ("src/a/b.ts", "src/**", True),
    ("a.env", "*.env", True),
    ("dir/.env", "*.env", True),
    ("ab", "a?", True),
    ("abc", "a?", False),
    ("a.b", "a.b", True),
    ("axb", "a.b", False),
    ("C:\\x\\y", "C:/x/*", True),
    ("C:/x/y", "C:\\x\\*", True),
    ("Git Status", "git status*", False),
    ("line1\nline2", "line1*", True),
    ("x\n", "x", False),
    ("rm -rf /", "rm *", True),
    ("rm", "rm *", True),
    ("[x]", "[x]", True),
    ("x", "[x]", False),
    ("a+b", "a+b", True),
    ("(a|b)", "(a|b)", True),
    ("a", "(a|b)", False),
    ("^$", "^$", True),
    ("edit", "*", True),
    ("", "*", True),
    ("", " *", True),
    (" x", " *", True),
    ("a\U0001f600", "a?", False),  # ? is one UTF-16 unit; the emoji is two
    ("a\U0001f600", "a??", True),
    ("\U0001f600", "\U0001f600", True),
]


@pytest.mark.parametrize(("text", "pattern", "expected"), MATCH)
def test_match(text: str, pattern: str, expected: bool) -> None:
    assert match(text, pattern) is expected


@pytest.mark.parametrize(
    ("outer", "inner", "expected"),
    [
        ("*", "git *", True),
        ("git *", "git status*", True),
        ("git status*", "git *", False),
        ("git *", "git", True),  # the optional trailing " *"
        ("git*", "git *", True),
        ("git *", "git*", False),
        ("a?", "ab", True),
        ("ab", "a?", False),
        ("**", "*", True),
        ("*a*", "?a", True),
    ],
)
def test_covers(outer: str, inner: str, expected: bool) -> None:
    assert covers(outer, inner) is expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [("*", True), ("**", True), ("* *", True), ("?*", False), ("", False), ("a*", False)],
)
def test_universal(pattern: str, expected: bool) -> None:
    assert universal(pattern) is expected


def test_witness_is_shortest_and_plain() -> None:
    assert witness([glob("rm *")], [glob("rm -r*")]) == "rm"
    assert witness([glob("*")], [glob("?*")]) == ""
    assert witness([glob("?*")], []) == "x"
    assert witness([glob("a?")], [glob("a*")]) is None


def test_too_complex_is_an_exception_not_a_guess() -> None:
    patterns = [glob("*" + "a*" * 12 + "b"), *(glob(f"*{c}*{c}*") for c in "abcdefgh")]
    saved = wildcard.SEARCH_LIMIT
    wildcard.SEARCH_LIMIT = 50
    try:
        with pytest.raises(wildcard.TooComplex):
            witness(patterns[:1], patterns[1:])
    finally:
        wildcard.SEARCH_LIMIT = saved


TEXT = st.text(alphabet="ab */?\\\n\U0001f600", max_size=6)
PATTERN = st.text(alphabet="ab */?\\", max_size=5)


@settings(max_examples=300, deadline=None)
@given(include=st.lists(PATTERN, min_size=1, max_size=2), exclude=st.lists(PATTERN, max_size=2))
def test_witness_agrees_with_match(include: list[str], exclude: list[str]) -> None:
    found = witness([glob(p) for p in include], [glob(p) for p in exclude])
    if found is not None:
        assert all(match(found, p) for p in include)
        assert not any(match(found, p) for p in exclude)


@settings(max_examples=300, deadline=None)
@given(text=TEXT, inner=PATTERN, outer=PATTERN)
def test_covers_is_sound(text: str, inner: str, outer: str) -> None:
    if covers(outer, inner) and match(text, inner):
        assert match(text, outer)


@settings(max_examples=200, deadline=None)
@given(pattern=PATTERN)
def test_every_pattern_matches_its_witness(pattern: str) -> None:
    found = witness([glob(pattern)])
    assert found is not None
    assert match(found, pattern)
