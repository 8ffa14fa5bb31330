"""compiler.conditions decides block-tag conditions as Jinja does, or leaves them to Jinja.

Where it decides, two things must hold against the Jinja path of
compiler.sandbox: a condition it accepts is one Jinja's checks accept, and
its value is the value Jinja's template gives. Checked on a table and on
generated conditions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import conditions, sandbox
from compiler.scan import Value
from tests.conftest import loaded_modules

SCOPE = ("target", "level", "count", "ratio", "strict")
ENUMS: dict[str, tuple[Value, ...]] = {
    "target": ("opencode", "claude", "claude-plugin"),
    "level": ("lite", "full", "ultra"),
    "count": (1, 2, 3),
}
VALUES: dict[str, Value] = {
    "target": "claude",
    "level": "full",
    "count": 2,
    "ratio": 0.5,
    "strict": True,
}


def jinja_value(condition: str, values: dict[str, Value]) -> Any:
    """What the sandbox's template makes of `condition`: 'yes', 'no' or the error's type."""
    template = sandbox.environment().from_string(f"<% if {condition} %>yes<% else %>no<% endif %>")
    try:
        return template.render(values)
    except Exception as exc:
        return type(exc).__name__


def assert_agrees(condition: str, values: dict[str, Value]) -> None:
    node = conditions.parse(condition)
    if node is None:
        return  # left to Jinja
    if not conditions.acceptable(node, SCOPE, ENUMS):
        return  # left to Jinja's checks, which write the message
    assert sandbox.jinja_problem(condition, SCOPE, ENUMS) is None, condition
    expected = jinja_value(condition, values)
    try:
        got = "yes" if conditions.truth(node, values) else "no"
    except conditions.Unsure:
        assert expected not in ("yes", "no"), condition  # only where Jinja fails too
        return
    assert got == expected, condition


DECIDED = [
    'target == "claude"',
    "target == 'opencode'",
    'target != "claude" and level == "full"',
    'not target == "claude"',
    'target not in ["claude", "claude-plugin"]',
    'target in ("claude",)',
    'level in ["lite", "full"] or count > 2',
    "count >= 2 and count < 3",
    "1 < count < 3",
    "ratio == 0.5",
    "ratio <= 0.5",
    "count > -1",
    "strict",
    "not strict or target == 'claude'",
    "(target == 'claude') and (level == 'full')",
    "true",
    "False",
    "[]",
    "()",
    "(1, 2)",
    "strict == true",
    "count in [1, 2, +3]",
]


@pytest.mark.parametrize("condition", DECIDED)
def test_common_conditions_are_decided_as_jinja_decides(condition: str) -> None:
    node = conditions.parse(condition)
    assert node is not None
    assert conditions.acceptable(node, SCOPE, ENUMS)
    assert_agrees(condition, VALUES)
    assert_agrees(condition, {**VALUES, "target": "opencode", "count": 3, "strict": False})


LEFT_TO_JINJA = [
    "target.upper()",
    "target | upper",
    "target is defined",
    "count + 1 > 2",
    "target ~ 'x'",
    "'a' if strict else 'b'",
    "{'a': 1}",
    "none",
    "target[0] == 'c'",
    "count == 007",
    "count == 1e3",
    'target == "a\\"b"',
    "-count < 0",
    "'a' 'b'",
    "target ==",
    "(target",
    "self",
    "target == 'x' and",
]


@pytest.mark.parametrize("condition", LEFT_TO_JINJA)
def test_other_conditions_are_left_to_jinja(condition: str) -> None:
    assert conditions.parse(condition) is None


@pytest.mark.parametrize(
    "condition",
    [
        'target == "cluade"',
        "lvl == 'full'",
        "count in [1, 4]",
        "level == 1",
        "count == true",
        "count == 2.0",
        "not not unknown",
    ],
)
def test_problems_are_left_to_jinja_for_their_message(condition: str) -> None:
    node = conditions.parse(condition)
    assert node is not None
    assert not conditions.acceptable(node, SCOPE, ENUMS)
    message = sandbox.condition_problem(condition, SCOPE, ENUMS)
    assert message is not None
    assert message == sandbox.jinja_problem(condition, SCOPE, ENUMS)


def test_a_comparison_python_refuses_is_left_to_jinja() -> None:
    node = conditions.parse("target < 1")
    assert node is not None
    with pytest.raises(conditions.Unsure):
        conditions.truth(node, VALUES)
    assert jinja_value("target < 1", VALUES) == "TypeError"


WORDS = [*SCOPE, "unknown", "true", "false", "none", "and", "or", "not", "in", "is", "if"]
PIECES = [
    "==", "!=", "<", "<=", ">", ">=", "(", ")", "[", "]", ",", "-", "+", "|", ".", "~",
    "'claude'", '"full"', "'x'", "0", "1", "2", "2.5", "007", "-1", "1e3", "''",
]  # fmt: skip
tokens = st.one_of(st.sampled_from(WORDS), st.sampled_from(PIECES))
scalar_values = st.one_of(
    st.sampled_from(["claude", "opencode", "full", ""]),
    st.integers(-2, 4),
    st.sampled_from([0.5, 2.0, -1.5]),
    st.booleans(),
)


@settings(max_examples=1500, deadline=None)
@given(
    words=st.lists(tokens, min_size=1, max_size=7),
    values=st.fixed_dictionaries({name: scalar_values for name in SCOPE}),
)
def test_generated_conditions_agree_with_jinja(words: list[str], values: dict[str, Value]) -> None:
    assert_agrees(" ".join(words), values)


LITERALS = [
    "'claude'",
    '"opencode"',
    "'full'",
    "'lite'",
    "1",
    "2",
    "3",
    "2.0",
    "2.5",
    "-1",
    "+2",
    "true",
    "False",
]
atoms = st.one_of(
    st.sampled_from([*SCOPE, *SCOPE, "unknown"]),
    st.sampled_from(LITERALS),
    st.lists(st.sampled_from([*LITERALS, *SCOPE]), max_size=3).map(lambda xs: f"[{', '.join(xs)}]"),
    st.lists(st.sampled_from(LITERALS), max_size=3).map(
        lambda xs: f"({', '.join(xs)}{',' if len(xs) == 1 else ''})"
    ),
)
operators = st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in"])
comparisons = st.one_of(
    st.tuples(atoms, operators, atoms).map(" ".join),
    st.tuples(atoms, operators, atoms, operators, atoms).map(" ".join),
)
expressions = st.recursive(
    st.one_of(atoms, comparisons),
    lambda inner: st.one_of(
        inner.map(lambda e: f"not {e}"),
        st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(" ".join),
        inner.map(lambda e: f"({e})"),
    ),
    max_leaves=6,
)


@settings(max_examples=1500, deadline=None)
@given(
    condition=expressions,
    values=st.fixed_dictionaries({name: scalar_values for name in SCOPE}),
)
def test_well_formed_conditions_agree_with_jinja(condition: str, values: dict[str, Value]) -> None:
    assert_agrees(condition, values)


def test_a_bundle_with_common_conditions_composes_without_jinja(tmp_path: Path) -> None:
    (tmp_path / "promptc.toml").write_text("[targets.opencode]\n[targets.claude]\n")
    (tmp_path / "specs/agents").mkdir(parents=True)
    (tmp_path / "specs/agents/scout.md").write_text(
        "---\ndescription: Explores the code and reports findings.\nmode: subagent\n"
        "permission:\n  edit: deny\n  bash: deny\n---\n"
        '<% if target == "claude" %>\nUsa Agent.\n<% else %>\nUsa task.\n<% endif %>\n'
    )
    assert loaded_modules(tmp_path, {"jinja2"}, "build", "--no-cache", "-q") == ["0"]
    claude = (tmp_path / "build/claude/.claude/agents/scout.md").read_text()
    opencode = (tmp_path / "build/opencode/.opencode/agents/scout.md").read_text()
    assert "Usa Agent." in claude and "Usa task." not in claude
    assert "Usa task." in opencode and "Usa Agent." not in opencode
