"""Sandbox: the Jinja2 environment composition renders with, and what may reach it.

The environment is Jinja's immutable sandbox with `<<` `>>` as variable
delimiters, `<%` `%>` as block delimiters, `<#` `#>` as comments,
StrictUndefined, and no globals, filters or tests at all. Templates are built
by compose.py from scanned bodies: literal text never reaches Jinja's parser
(it is emitted by a callable), so the only user text Jinja ever evaluates is a
block tag's condition, and a condition reaches it only after `condition_problem`
found nothing but variables, literals, comparisons and and/or/not in it.
Attribute access, calls, filters and arithmetic are rejected before anything
runs: a condition like `''.__class__` is an error, never executed.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from compiler import conditions
from compiler.scan import Value
from compiler.suggest import did_you_mean

if TYPE_CHECKING:
    from jinja2 import Template, TemplateSyntaxError, nodes
    from jinja2.sandbox import ImmutableSandboxedEnvironment

TEMPLATE_NAME = "<template>"  # the file name Jinja gives templates made from strings
_COMPARISONS = {"eq", "ne", "lt", "lteq", "gt", "gteq", "in", "notin"}
_EQUALITY = {"eq", "ne", "in", "notin"}


@functools.cache
def _forbidden() -> dict[type[Any], str]:
    from jinja2 import nodes

    return {
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


RULE = (
    "a condition compares variables with literals using ==, !=, <, <=, >, >=, in, not in, "
    "and, or, not; nothing else is evaluated"
)


@functools.cache
def environment() -> ImmutableSandboxedEnvironment:
    """The environment, built on first use: most bundles never need Jinja (compiler.conditions)."""
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

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
    # Nothing to reach from a template: no range(), lipsum, cycler, filters or tests.
    env.globals.clear()
    env.filters.clear()
    env.tests.clear()
    return env


@functools.lru_cache(maxsize=1024)
def compile_template(source: str) -> Template:
    """A compiled template, shared by every target and call in this process."""
    return environment().from_string(source)


@functools.lru_cache(maxsize=4096)
def _parse(condition: str) -> nodes.Expr | TemplateSyntaxError:
    from jinja2 import TemplateSyntaxError, nodes

    try:
        tree = environment().parse(f"<% if {condition} %><% endif %>")
    except TemplateSyntaxError as exc:
        return exc
    branch = tree.body[0]
    assert isinstance(branch, nodes.If) and isinstance(branch.test, nodes.Expr)
    return branch.test


def condition_problem(
    condition: str,
    scope: Collection[str],
    enums: Mapping[str, tuple[Value, ...]],
) -> str | None:
    """Why `condition` may not be evaluated, or None.

    `scope` holds the variable names the condition may use; `enums` the
    allowed values of those that have a fixed set (`target` and enum
    parameters), so a misspelt value is caught instead of never matching.
    """
    simple = conditions.parse(condition)
    if simple is not None and conditions.acceptable(simple, scope, enums):
        return None  # no problem, and Jinja never loaded
    return jinja_problem(condition, scope, enums)


def jinja_problem(
    condition: str,
    scope: Collection[str],
    enums: Mapping[str, tuple[Value, ...]],
) -> str | None:
    """condition_problem, always by Jinja's parser."""
    from jinja2 import TemplateSyntaxError

    parsed = _parse(condition)
    if isinstance(parsed, TemplateSyntaxError):
        return f"invalid condition `{condition}`: {parsed.message}"
    return _check(parsed, condition, scope, enums)


def _check(
    node: nodes.Node,
    condition: str,
    scope: Collection[str],
    enums: Mapping[str, tuple[Value, ...]],
) -> str | None:
    from jinja2 import nodes

    if isinstance(node, nodes.Name):
        if node.name in scope:
            return None
        hint = did_you_mean(node.name, scope)
        names = ", ".join(sorted(scope))
        return f"unknown variable '{node.name}' in condition{hint}; variables here: {names}"
    if isinstance(node, nodes.Const):
        if isinstance(node.value, str | int | float | bool):
            return None
        return f"condition `{condition}` uses `{node.value!r}`, which is not a value; {RULE}"
    if (
        isinstance(node, nodes.Neg | nodes.Pos)
        and isinstance(node.node, nodes.Const)
        and isinstance(node.node.value, int | float)
    ):
        return None
    children: list[nodes.Node] = []
    if isinstance(node, nodes.List | nodes.Tuple):
        children = list(node.items)
    elif isinstance(node, nodes.And | nodes.Or):
        children = [node.left, node.right]
    elif isinstance(node, nodes.Not):
        children = [node.node]
    elif isinstance(node, nodes.Compare):
        bad = next((o.op for o in node.ops if o.op not in _COMPARISONS), None)
        if bad is not None:
            return f"condition `{condition}` uses the operator {bad}; {RULE}"
        children = [node.expr, *(o.expr for o in node.ops)]
        problem = _value_problem(node, enums)
        if problem:
            return problem
    else:
        what = next((w for t, w in _forbidden().items() if isinstance(node, t)), None)
        return f"condition `{condition}` uses {what or type(node).__name__}; {RULE}"
    for child in children:
        problem = _check(child, condition, scope, enums)
        if problem:
            return problem
    return None


def _value_problem(node: nodes.Compare, enums: Mapping[str, tuple[Value, ...]]) -> str | None:
    """`target == "cluade"` can never be true: say so instead of silently skipping text."""
    from jinja2 import nodes

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


def runtime_line(traceback: TracebackType | None) -> int | None:
    """The template line a runtime error happened on (Jinja rewrites the frames)."""
    line = None
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == TEMPLATE_NAME:
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    return line
