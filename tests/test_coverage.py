"""coverage.decides: the pair it returns is decided by the rule; None means no pair is."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import coverage, wildcard
from compiler.coverage import decides, decides_any
from compiler.permissions import Origin, Rule, evaluate

ORIGIN = Origin("agent", "a")
PERMS = st.sampled_from(["bash", "edit", "*", "b*", "mcp_?", "bash *"])
PATTERNS = st.text(alphabet="ab */?", max_size=4)
RULES = st.lists(
    st.tuples(PERMS, PATTERNS, st.sampled_from(["allow", "deny", "ask"])), min_size=1, max_size=5
)
SAMPLE_PERMS = ["bash", "edit", "b", "bx", "mcp_a", "mcp_", "bash x", "x", ""]
SAMPLE_TEXTS = ["", "a", "b", "ab", "a b", "a/b", " ", "aa", "ba", "a ", "*", "?", "abab", "a bb"]


@settings(max_examples=400, deadline=None)
@given(raw=RULES, index=st.integers(min_value=0, max_value=4))
def test_decides_is_exact(raw: list[tuple[str, str, str]], index: int) -> None:
    rules = [Rule(p, pattern, action, ORIGIN) for p, pattern, action in raw]
    index %= len(rules)
    found = decides(rules, index)
    if found is not None:
        assert evaluate(rules, found.permission, found.input).rule is rules[index]
    else:
        for permission in SAMPLE_PERMS:
            for text in SAMPLE_TEXTS:
                assert evaluate(rules, permission, text).rule is not rules[index]


@settings(max_examples=200, deadline=None)
@given(raw=RULES, index=st.integers(min_value=0, max_value=4), within=PATTERNS)
def test_decides_within_a_permission_and_a_pattern(
    raw: list[tuple[str, str, str]], index: int, within: str
) -> None:
    rules = [Rule(p, pattern, action, ORIGIN) for p, pattern, action in raw]
    index %= len(rules)
    found = decides(rules, index, permission="bash", within=[within])
    if found is not None:
        assert found.permission == "bash"
        from compiler.wildcard import match

        assert match(found.input, within)
        assert evaluate(rules, "bash", found.input).rule is rules[index]


# Command-like patterns too, whose heads part after a shared start (`git ...`).
COMMANDS = st.sampled_from(["git status *", "git diff *", "git *", "g?t *", "rm *", "rm -rf *"])
MIXED = st.lists(
    st.tuples(PERMS, st.one_of(PATTERNS, COMMANDS), st.sampled_from(["allow", "deny", "ask"])),
    min_size=1,
    max_size=7,
)


@settings(max_examples=500, deadline=None)
@given(
    raw=MIXED,
    index=st.integers(min_value=0, max_value=6),
    permission=st.one_of(st.none(), st.sampled_from(SAMPLE_PERMS)),
    within=st.lists(st.one_of(PATTERNS, COMMANDS), max_size=2),
)
def test_decides_any_answers_as_decides(
    raw: list[tuple[str, str, str]], index: int, permission: str | None, within: list[str]
) -> None:
    """Without the later rules that cannot match what the rule matches, the
    answer is decides' own (where the full search does not give up)."""
    rules = [Rule(p, pattern, action, ORIGIN) for p, pattern, action in raw]
    index %= len(rules)
    try:
        full = decides(rules, index, permission=permission, within=within)
    except wildcard.TooComplex:
        return  # the smaller search may answer where the full one gives up
    assert decides_any(rules, index, permission=permission, within=within) is (full is not None)


@settings(max_examples=500, deadline=None)
@given(
    raw=MIXED,
    index=st.integers(min_value=0, max_value=6),
    permission=st.sampled_from(SAMPLE_PERMS),
    within=st.lists(st.one_of(PATTERNS, COMMANDS), max_size=2),
)
def test_a_later_rule_of_every_input_ends_the_question_as_the_search_would(
    raw: list[tuple[str, str, str]], index: int, permission: str, within: list[str]
) -> None:
    """decides() for one permission, answered at once where a later rule matches
    it with every input (coverage._taken_over), is what the search answers."""
    rules = [Rule(p, pattern, action, ORIGIN) for p, pattern, action in raw]
    index %= len(rules)
    shape = coverage._shape(rules)
    try:
        fast = decides(rules, index, permission=permission, within=within)
    except wildcard.TooComplex:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(coverage, "_taken_over", lambda *args: False)
        searched = coverage._decides.__wrapped__(shape, index, permission, tuple(within))
    assert fast == searched


# --- patterns whose heads part ------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(first=st.text(alphabet="ab */?", max_size=6), second=st.text(alphabet="ab */?", max_size=6))
def test_patterns_apart_share_no_input(first: str, second: str) -> None:
    # decides skips the search on this answer alone: it must never claim more.
    if wildcard.apart((first, second)):
        assert wildcard.witness([wildcard.glob(first), wildcard.glob(second)]) is None


@pytest.mark.parametrize(
    ("pattern", "command", "expected"),
    [
        ("git status *", "rm *", None),  # heads part at the first letter
        ("git *", "git push *", "git push"),  # OpenCode: a trailing ` *` may match nothing
        ("*", "rm *", "rm"),
        ("rm -rf /tmp/*", "rm *", "rm -rf /tmp/"),
    ],
)
def test_decides_within_a_command_whose_head_parts_from_the_rule(
    pattern: str, command: str, expected: str | None
) -> None:
    rules = [Rule("bash", "*", "ask", ORIGIN), Rule("bash", pattern, "allow", ORIGIN)]
    found = decides(rules, 1, permission="bash", within=[command])
    assert (found.input if found else None) == expected
