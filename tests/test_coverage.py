"""Coverage.decides: the pair it returns is decided by the rule; None means no pair is."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.coverage import Coverage
from promptc_compiler.permissions.ruleset import Origin, Rule, evaluate
from promptc_compiler.permissions.wildcard import glob
from tests.test_wildcard import (
    accepts,
    covers_oracle,
    outcome,
    relevant_symbols,
    step,
    witness_oracle,
)

pytestmark = pytest.mark.slow

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
    found = Coverage().decides(rules, index)
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
    found = Coverage().decides(rules, index, permission="bash", within=[within])
    if found is not None:
        assert found.permission == "bash"
        from promptc_compiler.permissions.wildcard import match

        assert match(found.input, within)
        assert evaluate(rules, "bash", found.input).rule is rules[index]


# Command-like patterns too, whose heads part after a shared start (`git ...`).
COMMANDS = st.sampled_from(["git status *", "git diff *", "git *", "g?t *", "rm *", "rm -rf *"])
MIXED = st.lists(
    st.tuples(PERMS, st.one_of(PATTERNS, COMMANDS), st.sampled_from(["allow", "deny", "ask"])),
    min_size=1,
    max_size=7,
)


# --- patterns whose heads part ------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(first=st.text(alphabet="ab */?", max_size=6), second=st.text(alphabet="ab */?", max_size=6))
def test_patterns_apart_share_no_input(first: str, second: str) -> None:
    # decides skips the search on this answer alone: it must never claim more.
    if wildcard.apart((first, second)):
        assert wildcard.witness([wildcard.glob(first), wildcard.glob(second)]) is None


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("git status *", "rm *", True),  # the heads part at the first letter
        # a text longer than `git status 1` goes on with a space: never `git status 12`
        ("git status 1 *", "git status 12 *", True),
        ("git status 12 *", "git status 1 *", True),
        ("git status 1 *", "git status 12", True),
        ("git status 1 *", "git status 1 -s *", False),  # `git status 1 -s`
        ("git status 1 *", "git status 1", False),  # the ` *` may match nothing
        ("git status 1*", "git status 12 *", False),  # no space: `git status 12`
        ("git status 1 *", "git status 1*", False),
    ],
)
def test_a_trailing_space_star_parts_longer_heads(first: str, second: str, expected: bool) -> None:
    assert wildcard.apart((first, second)) is expected
    shared = wildcard.witness([wildcard.glob(first), wildcard.glob(second)])
    assert (shared is None) is expected


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
    found = Coverage().decides(rules, 1, permission="bash", within=[command])
    assert (found.input if found else None) == expected


# --- against the reference search ---------------------------------------------------------

WIDE = st.text(alphabet="ab */?\\\U0001f600", max_size=7)
RULE = st.builds(
    lambda p, pat, a: Rule(p, pat, a, ORIGIN),
    st.sampled_from(["task", "t*", "*", "bash", "ta?k"]),
    st.text(alphabet="ab */?\\", max_size=5),
    st.sampled_from(["allow", "ask", "deny"]),
)


def overlapping_oracle(rules: Sequence[Rule], index: int) -> list[int]:
    rule = rules[index]
    return [
        j
        for j in range(index + 1, len(rules))
        if witness_oracle([glob(rule.permission), glob(rules[j].permission)]) is not None
        and witness_oracle([glob(rule.pattern), glob(rules[j].pattern)]) is not None
    ]


def covering_oracle(rules: Sequence[Rule], index: int) -> int | None:
    rule = rules[index]
    for j in range(len(rules) - 1, index, -1):
        if covers_oracle(rules[j].permission, rule.permission) and covers_oracle(
            rules[j].pattern, rule.pattern
        ):
            return j
    return None


@settings(max_examples=300, deadline=None)
@given(
    rules=st.lists(RULE, min_size=1, max_size=6),
    actions=st.lists(st.sampled_from(["allow", "ask", "deny"]), max_size=6),
)
def test_one_coverage_answers_any_list_with_the_same_patterns(
    rules: list[Rule], actions: list[str]
) -> None:
    # The same patterns with other actions and positions: a second agent's rules,
    # asked of the run's Coverage after the first's.
    other = tuple(
        Rule(r.permission, r.pattern, a, Origin("agent", "b", Path("b.md"), n + 1, 3))
        for n, (r, a) in enumerate(zip(rules, actions + ["deny"] * len(rules), strict=False))
    )
    run = Coverage()
    for index in range(len(rules)):
        fresh = Coverage().decides(rules, index)
        assert run.decides(rules, index) == fresh
        assert run.decides(other, index) == fresh
        assert run.overlapping(other, index) == overlapping_oracle(rules, index)
        assert run.covering(other, index) == covering_oracle(rules, index)


def name_groups_oracle(pattern: str, later: Sequence[str]) -> dict[frozenset[int], str]:
    distinct = sorted(set(later))
    machines = [glob(pattern), *(glob(p) for p in distinct)]
    literals = {t for m in machines for t in m.tokens} - {wildcard.STAR, wildcard.ANY}
    other = wildcard.other_char(literals)
    start = tuple(m.start() for m in machines)
    seen = {start: ""}
    queue = deque([start])
    found: dict[frozenset[str], str] = {}
    while queue:
        config = queue.popleft()
        if accepts(machines[0], config[0]):
            accepting = frozenset(
                p
                for p, m, s in zip(distinct, machines[1:], config[1:], strict=True)
                if accepts(m, s)
            )
            found.setdefault(accepting, wildcard.from_units(seen[config]))
        for symbol in relevant_symbols(machines, config):
            nxt = tuple(step(m, s, symbol) for m, s in zip(machines, config, strict=True))
            if not nxt[0] or nxt in seen:
                continue
            seen[nxt] = seen[config] + (other if symbol is None else symbol)
            if len(seen) > wildcard.SEARCH_LIMIT:
                raise wildcard.TooComplex(pattern)
            queue.append(nxt)
    return {
        frozenset(j for j, p in enumerate(later) if p in accepting): name
        for accepting, name in found.items()
    }


@settings(max_examples=300, deadline=None)
@given(pattern=WIDE, later=st.lists(WIDE, max_size=4), limit=st.sampled_from([3, 20, 200_000]))
def test_name_groups_agree_with_the_reference_search(
    pattern: str, later: list[str], limit: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wildcard, "SEARCH_LIMIT", limit)
        expected = outcome(lambda: name_groups_oracle(pattern, later))
        assert outcome(lambda: Coverage()._name_groups(pattern, later)) == expected
