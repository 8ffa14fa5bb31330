"""OpenCode's wildcard matcher, and the exact reasoning over what patterns match."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Sequence
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.wildcard import Glob, covers, glob, match, universal, witness

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


def opencode_expression(pattern: str) -> re.Pattern[str]:
    """OpenCode's expression for the pattern (see compiler/promptc_compiler/permissions/wildcard.py), in
    Python's syntax: a reference for short texts (it backtracks)."""
    units = wildcard.normal(pattern)
    optional_tail = units.endswith(" *")
    body = re.escape(units[:-2] if optional_tail else units)
    body = body.replace(r"\*", ".*").replace(r"\?", ".") + ("(?: .*)?" if optional_tail else "")
    return re.compile(body, re.DOTALL)


@settings(max_examples=500, deadline=None)
@given(
    text=st.text(alphabet="ab */?\\.(\n\U0001f600", max_size=8),
    pattern=st.text(alphabet="ab */?\\.(\U0001f600", max_size=6),
)
def test_match_is_opencodes_expression(text: str, pattern: str) -> None:
    expected = opencode_expression(pattern).fullmatch(wildcard.normal(text)) is not None
    assert match(text, pattern) is expected
    # with the pattern's own units, so that its head and tail are met
    filled = pattern.replace("*", "ab").replace("?", "b")
    expected = opencode_expression(pattern).fullmatch(wildcard.normal(filled)) is not None
    assert match(filled, pattern) is expected


def test_match_reads_each_unit_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # OpenCode's backtracking expression takes minutes on this pair; the
    # automaton steps once per unit after the pattern's head, whatever the pattern.
    steps = 0
    real = wildcard.step

    def counted(state: int, moves: int, star: int) -> int:
        nonlocal steps
        steps += 1
        return real(state, moves, star)

    monkeypatch.setattr(wildcard, "step", counted)
    pattern = "*a*a*a*a*a*a*a*a*b?"  # no head nor tail to tell the answer at once
    text = "a" * 500
    assert not match(text, pattern)
    assert steps == len(text)
    steps = 0
    assert match(text + "bb", pattern)
    assert steps == len(text) + 2


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


# --- the reference search ------------------------------------------------------------


States = frozenset[int]
T = TypeVar("T")


def step(machine: Glob, states: States, symbol: str | None) -> States:
    """One Glob's positions after reading one unit (None: a unit no pattern names)."""
    found: set[int] = set()
    for state in states:
        if state >= len(machine.tokens):
            continue
        token = machine.tokens[state]
        if token == wildcard.STAR:
            found.add(state)
        elif token in (wildcard.ANY, symbol):
            found.add(state + 1)
    todo = list(found)
    while todo:
        state = todo.pop()
        star = state < len(machine.tokens) and machine.tokens[state] == wildcard.STAR
        if star and state + 1 not in found:
            found.add(state + 1)
            todo.append(state + 1)
    return frozenset(found)


def accepts(machine: Glob, states: States) -> bool:
    return not machine.accept.isdisjoint(states)


def saturated(machine: Glob, states: States) -> bool:
    return not machine.universal.isdisjoint(states)


def relevant_symbols(machines: Sequence[Glob], config: tuple[States, ...]) -> list[str | None]:
    units: set[str] = set()
    for machine, states in zip(machines, config, strict=True):
        n = len(machine.tokens)
        units |= {machine.tokens[i] for i in states if i < n} - {wildcard.STAR, wildcard.ANY}
    return [None, *sorted(units)]


def witness_oracle(include: Sequence[Glob], exclude: Sequence[Glob] = ()) -> str | None:
    """The search stepping each pattern's Glob in turn over tuples of state sets:
    the reference wildcard.Product's bit masks must agree with."""
    exclude = tuple({m.pattern: m for m in exclude}.values())
    machines = (*include, *exclude)
    if not include:
        machines = (glob("*"), *machines)
        include = (glob("*"),)
    literals = {t for m in machines for t in m.tokens} - {wildcard.STAR, wildcard.ANY}
    cut = len(include)
    start = tuple(m.start() for m in machines)
    if any(saturated(m, s) for m, s in zip(machines[cut:], start[cut:], strict=True)):
        return None
    Config = tuple[frozenset[int], ...]
    parent: dict[Config, tuple[Config, str | None]] = {}
    seen = {start}
    queue = deque([start])
    while queue:
        config = queue.popleft()
        if all(
            accepts(m, s) for m, s in zip(machines[:cut], config[:cut], strict=True)
        ) and not any(accepts(m, s) for m, s in zip(machines[cut:], config[cut:], strict=True)):
            units: list[str] = []
            other = wildcard.other_char(literals)
            while config in parent:
                config, symbol = parent[config]
                units.append(other if symbol is None else symbol)
            return wildcard.from_units("".join(reversed(units)))
        for symbol in relevant_symbols(machines, config):
            nxt = tuple(step(m, s, symbol) for m, s in zip(machines, config, strict=True))
            if any(not s for s in nxt[:cut]) or nxt in seen:
                continue
            seen.add(nxt)
            if any(saturated(m, s) for m, s in zip(machines[cut:], nxt[cut:], strict=True)):
                continue
            if len(seen) > wildcard.SEARCH_LIMIT:
                raise wildcard.TooComplex()
            parent[nxt] = (config, symbol)
            queue.append(nxt)
    return None


def outcome(search: Callable[[], T]) -> T | type[Exception]:
    try:
        return search()
    except wildcard.TooComplex:
        return wildcard.TooComplex


WIDE = st.text(alphabet="ab */?\\\U0001f600", max_size=7)


@settings(max_examples=500, deadline=None)
@given(
    include=st.lists(WIDE, max_size=3),
    exclude=st.lists(WIDE, max_size=4),
    limit=st.sampled_from([3, 10, 40, 200_000]),
)
def test_witness_finds_what_the_reference_search_finds(
    include: list[str], exclude: list[str], limit: int
) -> None:
    # The same text, or the same give-up (the same states, in the same order);
    # but a witness as long as the includes' longest head is found before any
    # search (Patterns._shortest), so where the search gives up, it is the one
    # a search without a limit finds.
    saved = wildcard.SEARCH_LIMIT
    wildcard.SEARCH_LIMIT = limit
    try:
        inc, exc = [glob(p) for p in include], [glob(p) for p in exclude]
        found, expected = (
            outcome(lambda: witness(inc, exc)),
            outcome(lambda: witness_oracle(inc, exc)),
        )
        if expected is wildcard.TooComplex and found is not wildcard.TooComplex:
            wildcard.SEARCH_LIMIT = saved
            expected = outcome(lambda: witness_oracle(inc, exc))
        assert found == expected
    finally:
        wildcard.SEARCH_LIMIT = saved


def test_a_witness_as_long_as_the_head_needs_no_search() -> None:
    saved = wildcard.SEARCH_LIMIT
    wildcard.SEARCH_LIMIT = 1  # any search gives up at once
    try:
        assert wildcard.witness([glob("*")], [glob("git status 1 *")]) == ""
        assert wildcard.witness([glob("git status 1 *")], [glob("git diff *")]) == "git status 1"
        with pytest.raises(wildcard.TooComplex):  # the head is excluded: a search is needed
            wildcard.witness([glob("git status 1 *")], [glob("git status 1")])
    finally:
        wildcard.SEARCH_LIMIT = saved
    assert wildcard.witness([glob("git status 1 *")], [glob("git status 1")]) == "git status 1 "


def covers_oracle(outer: str, inner: str) -> bool:
    return witness_oracle([glob(inner)], [glob(outer)]) is None


@settings(max_examples=300, deadline=None)
@given(outer=PATTERN, inner=PATTERN)
def test_covers_and_universal_agree_with_the_reference_search(outer: str, inner: str) -> None:
    assert wildcard.covers(outer, inner) == covers_oracle(outer, inner)
    assert wildcard.universal(outer) == covers_oracle(outer, "*")


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab/\\\U0001f600\ud83d\ude00", max_size=4), pattern=PATTERN)
def test_a_literal_pattern_matches_exactly_its_normal_form(text: str, pattern: str) -> None:
    if wildcard.is_literal(pattern):
        same = wildcard.normal(text) == wildcard.normal(pattern)
        assert wildcard.match(text, pattern) == same


@settings(max_examples=300, deadline=None)
@given(pattern=WIDE, data=st.data())
def test_every_text_a_pattern_matches_starts_with_its_head(
    pattern: str, data: st.DataObject
) -> None:
    # A text the pattern matches: each `*` and `?` filled in, maybe without the
    # optional trailing ` *`.
    fill = st.text(alphabet="ab *", max_size=3)
    units = pattern[:-2] if pattern.endswith(" *") and data.draw(st.booleans()) else pattern
    text = "".join(
        data.draw(fill) if c == "*" else data.draw(st.sampled_from("ab/")) if c == "?" else c
        for c in units
    )
    assert wildcard.match(text, pattern)
    assert wildcard.normal(text).startswith(wildcard.head(pattern))


@settings(max_examples=200, deadline=None)
@given(
    include=st.lists(WIDE, max_size=3),
    exclude=st.lists(WIDE, max_size=3),
    texts=st.lists(st.text(alphabet="ab */?\\", max_size=5), max_size=4),
)
def test_patterns_answer_as_the_functions(
    include: list[str], exclude: list[str], texts: list[str]
) -> None:
    # One run's Patterns, asked twice: what the functions answer afresh.
    patterns = wildcard.Patterns()
    inc, exc = [glob(p) for p in include], [glob(p) for p in exclude]
    for _ in range(2):
        found = outcome(lambda: patterns.witness(tuple(include), tuple(exclude)))
        assert found == outcome(lambda: witness(inc, exc))
        for text in texts:
            for pattern in (*include, *exclude):
                assert patterns.match(text, pattern) is match(text, pattern)
