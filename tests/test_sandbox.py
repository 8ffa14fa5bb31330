"""Block-tag conditions: what Jinja in the sandbox makes of them, and what is refused first."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import UndefinedError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from promptc_compiler.core.sandbox import Conditions
from promptc_compiler.core.scan import Value

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
OTHER: dict[str, Value] = {**VALUES, "target": "opencode", "count": 3, "strict": False}

# (condition, with VALUES, with OTHER)
MEANINGS = [
    ('target == "claude"', True, False),
    ("target == 'opencode'", False, True),
    ('target != "claude" and level == "full"', False, True),
    ('not target == "claude"', False, True),
    ('target not in ["claude", "claude-plugin"]', False, True),
    ('target in ("claude",)', True, False),
    ('level in ["lite", "full"] or count > 2', True, True),
    ("count >= 2 and count < 3", True, False),
    ("1 < count < 3", True, False),
    ("ratio == 0.5", True, True),
    ("count > -1", True, True),
    ("strict", True, False),
    ("not strict or target == 'claude'", True, True),
    ("(target == 'claude') and (level == 'full')", True, False),
    ("true", True, True),
    ("False", False, False),
    ("[]", False, False),
    ("(1, 2)", True, True),
    ("strict == true", True, False),
    ("count in [1, 2, +3]", True, True),
]


@pytest.mark.parametrize(("condition", "first", "second"), MEANINGS)
def test_a_condition_means_what_an_if_in_jinja_means(
    condition: str, first: bool, second: bool
) -> None:
    conditions = Conditions()
    assert conditions.problem(condition, SCOPE, ENUMS) is None
    assert conditions.holds(condition, VALUES) is first
    assert conditions.holds(condition, OTHER) is second


REFUSED = [
    ("target.upper()", "uses a function call"),
    ("target | upper", "uses a filter"),
    ("target is defined", "uses an `is` test"),
    ("count + 1 > 2", "uses arithmetic"),
    ("target ~ 'x'", "uses `~` concatenation"),
    ("('a' if strict else 'b')", "uses an inline if"),
    ("{'a': 1}", "uses a dict"),
    ("target[0] == 'c'", "uses item access"),
    ("''.__class__", "uses attribute access"),
    ("none", "uses `None`, which is not a value"),
    ("target ==", "invalid condition `target ==`: unexpected"),
    ("'a' 'b' c", "invalid condition"),
    ('target == "cluade"', "'target' is never \"cluade\" (did you mean `claude`?)"),
    ("lvl == 'full'", "unknown variable 'lvl' in condition (did you mean `level`?)"),
    ("count in [1, 4]", "'count' is never 4"),
    ("level == 1", "'level' is never 1"),
    ("count == 2.0", "'count' is never 2.0"),
]


@pytest.mark.parametrize(("condition", "message"), REFUSED)
def test_a_condition_outside_the_rule_is_refused_before_it_runs(
    condition: str, message: str
) -> None:
    problem = Conditions().problem(condition, SCOPE, ENUMS)
    assert problem is not None
    assert message in problem, problem


def test_what_python_refuses_to_compare_is_an_error() -> None:
    conditions = Conditions()
    assert conditions.problem("target < 1", SCOPE, ENUMS) is None
    with pytest.raises(TypeError):
        conditions.holds("target < 1", VALUES)
    with pytest.raises(UndefinedError):  # a parameter without a value
        conditions.holds("level == 'full'", {"target": "claude"})


def test_each_distinct_condition_is_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = ImmutableSandboxedEnvironment.compile_expression

    def recording(env: ImmutableSandboxedEnvironment, source: str, undefined_to_none: bool) -> Any:
        compiled.append(source)
        return real(env, source, undefined_to_none)

    monkeypatch.setattr(ImmutableSandboxedEnvironment, "compile_expression", recording)
    conditions = Conditions()
    for values in (VALUES, OTHER, VALUES):
        conditions.holds('target == "claude"', values)
        conditions.holds("strict", values)
    assert compiled == ['target == "claude"', "strict"]


def test_a_condition_reaches_nothing_outside_the_sandbox() -> None:
    env = Conditions().env
    assert isinstance(env, ImmutableSandboxedEnvironment)
    assert not env.globals
    assert not env.filters
    assert not env.tests


def test_a_condition_asked_again_answers_for_its_own_scope_and_values() -> None:
    """A composition checks a condition once for each scope and set of allowed
    values (a thousand agents that test `target` ask once): the same condition
    under another scope or other values is checked anew."""
    conditions = Conditions()
    asked: list[tuple[str, set[str], dict[str, tuple[Value, ...]]]] = [
        ('level == "ultra"', {"target", "level"}, {"level": ("lite", "ultra")}),
        ('level == "ultra"', {"target", "level"}, {"level": ("lite", "ultra")}),
        ('level == "ultra"', {"target"}, {}),  # an agent, where `level` is no variable
        ('level == "ultra"', {"target", "level"}, {"level": ("lite", "full")}),
        ('level == "ultra"', {"target", "level"}, {"level": (1, "ultra")}),
    ]
    answers = [conditions.problem(c, scope, enums) for c, scope, enums in asked]
    assert answers == [Conditions().problem(c, scope, enums) for c, scope, enums in asked]
    assert [answer is None for answer in answers] == [True, True, False, False, True]
