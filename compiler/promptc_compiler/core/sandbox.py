"""Sandbox: the Jinja2 environment that evaluates block-tag conditions, and what may reach it.

What the sandbox allows: docs/composition.md. Composition emits literal text
itself, so Jinja only ever reads a condition that `Conditions.problem` passed:
`''.__class__` is an error, never executed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from jinja2 import StrictUndefined, TemplateSyntaxError, nodes
from jinja2.environment import TemplateExpression
from jinja2.sandbox import ImmutableSandboxedEnvironment

from promptc_compiler.base.limits import INT64
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.core.scan import Value

_COMPARISONS = {"eq", "ne", "lt", "lteq", "gt", "gteq", "in", "notin"}
_EQUALITY = {"eq", "ne", "in", "notin"}
_FORBIDDEN: dict[type[nodes.Node], str] = {
    nodes.Getattr: "attribute access",
    nodes.Getitem: "item access",
    nodes.Slice: "slicing",
    nodes.Call: "a function call",
    nodes.Filter: "a filter",
    nodes.Test: "an `is` test",
    nodes.BinExpr: "arithmetic",
    nodes.Concat: "`~` concatenation",
    nodes.CondExpr: "an inline if",
    nodes.Dict: "a dict",
}

_TOO_LARGE = "an integer past 64 bits (-2^63 to 2^63-1)"
RULE = (
    "a condition compares variables with literals using ==, !=, <, <=, >, >=, in, not in, "
    "and, or, not; nothing else is evaluated"
)


def environment() -> ImmutableSandboxedEnvironment:
    """A new sandboxed environment with promptc's delimiters and nothing to reach."""
    env = ImmutableSandboxedEnvironment(
        variable_start_string="<<",
        variable_end_string=">>",
        block_start_string="<%",
        block_end_string="%>",
        comment_start_string="<#",
        comment_end_string="#>",
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        cache_size=0,
    )
    # Nothing to reach from a condition: no range(), lipsum, cycler, filters or tests.
    env.globals.clear()
    env.filters.clear()
    env.tests.clear()
    return env


class Conditions:
    """One composition's block-tag conditions: each distinct condition parsed,
    and compiled once it passed the checks, by Jinja in the sandbox."""

    def __init__(self) -> None:
        self.env = environment()
        self._parsed: dict[str, nodes.Expr | TemplateSyntaxError] = {}
        self._compiled: dict[str, TemplateExpression] = {}
        # What each condition decided for each set of values: a thousand agents
        # that test `target` ask the same question once per target.
        self._held: dict[tuple[object, ...], bool] = {}
        self._problems: dict[tuple[object, ...], str | None] = {}

    def problem(
        self, condition: str, scope: Collection[str], enums: Mapping[str, tuple[Value, ...]]
    ) -> str | None:
        """Why `condition` may not be evaluated, or None.

        `scope` holds the variable names the condition may use; `enums` the
        allowed values of those that have a fixed set (`target` and enum
        parameters), so a misspelt value is caught instead of never matching.
        """
        # What a condition may use is the same in every agent (`target` and its
        # values): a thousand agents that test it ask the same question once.
        allowed = frozenset((name, tuple((type(v), v) for v in vs)) for name, vs in enums.items())
        key = (condition, frozenset(scope), allowed)
        if key in self._problems:
            return self._problems[key]
        parsed = self._parse(condition)
        found: str | None
        if isinstance(parsed, TemplateSyntaxError):
            found = f"invalid condition `{condition}`: {parsed.message}"
        else:
            found = _check(parsed, condition, scope, enums)
        self._problems[key] = found
        return found

    def holds(self, condition: str, values: Mapping[str, Value]) -> bool:
        """Whether an `if` with this condition, which passed `problem`, takes its branch.

        Raises what Jinja raises for a condition it cannot evaluate (a
        comparison Python refuses, a variable without a value).
        """
        # The type is part of the key: 1, 1.0 and True are equal keys, not equal values.
        key = (condition, *sorted((k, type(v).__name__, v) for k, v in values.items()))
        found = self._held.get(key)
        if found is None:
            compiled = self._compiled.get(condition)
            if compiled is None:
                compiled = self.env.compile_expression(condition, undefined_to_none=False)
                self._compiled[condition] = compiled
            # bool() as Jinja's `if` does: StrictUndefined refuses it too.
            found = self._held[key] = bool(compiled(values))
        return found

    def _parse(self, condition: str) -> nodes.Expr | TemplateSyntaxError:
        """The condition as the test of an `if` tag, or the error Jinja's parser reports."""
        found = self._parsed.get(condition)
        if found is None:
            try:
                tree = self.env.parse(f"<% if {condition} %><% endif %>")
            except TemplateSyntaxError as exc:
                found = exc
            except ValueError:  # Jinja's int() of a literal too long for Python
                found = TemplateSyntaxError(_TOO_LARGE, 1)
            else:
                branch = tree.body[0]
                assert isinstance(branch, nodes.If)
                assert isinstance(branch.test, nodes.Expr)
                found = branch.test
            self._parsed[condition] = found
        return found


def _check(
    node: nodes.Node, condition: str, scope: Collection[str], enums: Mapping[str, tuple[Value, ...]]
) -> str | None:
    if isinstance(node, nodes.Name):
        if node.name in scope:
            return None
        hint = did_you_mean(node.name, scope)
        names = ", ".join(sorted(scope))
        return f"unknown variable '{node.name}' in condition{hint}; variables here: {names}"
    if isinstance(node, nodes.Const):
        if isinstance(node.value, int) and node.value not in INT64:
            return f"invalid condition `{condition}`: {_TOO_LARGE}"
        if isinstance(node.value, str | int | float | bool):
            return None
        return f"condition `{condition}` uses `{node.value!r}`, which is not a value; {RULE}"
    if (
        isinstance(node, nodes.Neg | nodes.Pos)
        and isinstance(node.node, nodes.Const)
        and isinstance(node.node.value, int | float)
    ):
        return _check(node.node, condition, scope, enums)
    if isinstance(node, nodes.List | nodes.Tuple | nodes.And | nodes.Or | nodes.Not):
        children = list(node.iter_child_nodes())
    elif isinstance(node, nodes.Compare):
        bad = next((o.op for o in node.ops if o.op not in _COMPARISONS), None)
        if bad is not None:
            return f"condition `{condition}` uses the operator {bad}; {RULE}"
        children = [node.expr, *(o.expr for o in node.ops)]
        # The literals first: the value check writes them out.
        problem = next(filter(None, (_check(c, condition, scope, enums) for c in children)), None)
        return problem or _value_problem(node, enums)
    else:
        what = next((w for t, w in _FORBIDDEN.items() if isinstance(node, t)), None)
        return f"condition `{condition}` uses {what or type(node).__name__}; {RULE}"
    for child in children:
        problem = _check(child, condition, scope, enums)
        if problem:
            return problem
    return None


def _value_problem(node: nodes.Compare, enums: Mapping[str, tuple[Value, ...]]) -> str | None:
    """`target == "cluade"` can never be true: say so instead of silently skipping text."""
    if len(node.ops) != 1 or node.ops[0].op not in _EQUALITY:
        return None
    left, right = node.expr, node.ops[0].expr
    if isinstance(right, nodes.Name) and node.ops[0].op in ("eq", "ne"):
        left, right = right, left
    if not isinstance(left, nodes.Name) or left.name not in enums:
        return None
    literals = right.items if isinstance(right, nodes.List | nodes.Tuple) else [right]
    allowed = enums[left.name]
    for literal in literals:
        if isinstance(literal, nodes.Const) and not any(
            type(literal.value) is type(v) and literal.value == v for v in allowed
        ):
            hint = did_you_mean(str(literal.value), [str(v) for v in allowed])
            values = ", ".join(_show(v) for v in allowed)
            return f"'{left.name}' is never {_show(literal.value)}{hint}; its values are {values}"
    return None


def _show(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value).lower()
