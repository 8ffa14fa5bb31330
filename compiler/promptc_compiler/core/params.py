"""Fragment parameters: declared in the fragment's own frontmatter (`params`:
name -> type, enum, default, description; docs/composition.md), checked
where it is called. A parameter without `default` must be given at every call
site; inside the fragment a parameter is a variable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.core.loader import SourceFile
from promptc_compiler.core.scan import Value

TYPES = ("string", "integer", "number", "boolean")
PARAM_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")  # as in schemas/fragment.schema.json
# Names a parameter cannot take: the target variable and the words of the
# condition language (a parameter called `if` could not be tested).
RESERVED = frozenset(
    {
        *("target", "and", "or", "not", "in", "is", "if", "elif", "else", "endif"),
        *("true", "false", "none", "True", "False", "None", "self", "loop"),
    }
)


class Param(NamedTuple):
    """One declared fragment parameter: its type, allowed values and default."""

    name: str
    type: str | None  # None: the declaration is malformed (the schema reports it); accept any
    enum: tuple[Value, ...] | None
    default: Value | None
    required: bool
    description: str


def declare(
    source: SourceFile, fragments: Collection[str]
) -> tuple[dict[str, Param], list[Problem]]:
    """The parameters a fragment declares, and what is wrong with the declarations."""
    front = source.frontmatter
    table = front.data.get("params") if front else None
    if front is None or not isinstance(table, Mapping):
        return {}, []
    params: dict[str, Param] = {}
    problems: list[Problem] = []
    for name, spec in table.items():
        if not isinstance(name, str) or not PARAM_NAME.fullmatch(name):
            continue  # the schema reports it; such a name could not be used anyway
        param = _param(name, spec)
        params[param.name] = param
        for path, message in _declaration_problems(param, spec, fragments):
            pos = front.where(("params", param.name, *path), key=not path)
            problems.append(Problem(pos.line, pos.column, message))
    return params, problems


def _param(name: str, spec: Any) -> Param:
    if not isinstance(spec, Mapping):
        return Param(name, None, None, None, True, "")
    kind = spec.get("type", "string")
    enum = spec.get("enum")
    return Param(
        name,
        kind if kind in TYPES else None,
        tuple(enum) if isinstance(enum, list) and all(_is_value(v) for v in enum) else None,
        spec["default"] if _is_value(spec.get("default")) else None,
        "default" not in spec,
        str(spec.get("description", "")),
    )


def _declaration_problems(
    param: Param, spec: Any, fragments: Collection[str]
) -> list[tuple[tuple[str | int, ...], str]]:
    found: list[tuple[tuple[str | int, ...], str]] = []
    if param.name in RESERVED:
        found.append(((), f"parameter name '{param.name}' is reserved; choose another"))
    elif param.name in fragments:
        found.append(
            ((), f"parameter '{param.name}' has the name of fragment '{param.name}'; rename one")
        )
    if param.type is None or not isinstance(spec, Mapping):
        return found
    for index, value in enumerate(param.enum or ()):
        problem = type_problem(param, value)
        if problem:
            found.append((("enum", index), f"allowed value {describe(value)}: {problem}"))
    if "default" in spec and param.default is not None:
        problem = check(param, param.default)
        if problem:
            found.append((("default",), f"default {describe(param.default)}: {problem}"))
    return found


def _is_value(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def type_problem(param: Param, value: Value) -> str | None:
    if param.type is None or _has_type(param.type, value):
        return None
    return f"parameter '{param.name}' takes {_article(param.type)}, not {_type_of(value)}"


def check(param: Param, value: Value) -> str | None:
    """Why `value` is not acceptable for `param`, or None."""
    problem = type_problem(param, value)
    if problem or param.enum is None or any(_same(value, v) for v in param.enum):
        return problem
    allowed = ", ".join(describe(v) for v in param.enum)
    hint = did_you_mean(str(value), [str(v) for v in param.enum])
    return f"parameter '{param.name}' must be one of {allowed}; got {describe(value)}{hint}"


def _same(a: Value, b: Value) -> bool:
    # 1 == True in Python; a boolean parameter must not accept 1.
    return (type(a) is type(b) and a == b) or (_number(a) and _number(b) and a == b)


def _number(value: Value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _has_type(kind: str, value: Value) -> bool:
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return _number(value)
    return isinstance(value, str)


def _article(kind: str) -> str:
    return {"integer": "an integer", "boolean": "a boolean (true or false)"}.get(kind, f"a {kind}")


def _type_of(value: Value) -> str:
    if isinstance(value, bool):
        return f"the boolean {describe(value)}"
    if isinstance(value, int | float):
        return f"the number {describe(value)}"
    return f"the string {describe(value)}"


def describe(value: Value) -> str:
    """A value as it is written in a placeholder: "text", 3, 1.5, true."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return render(value)


def render(value: Value) -> str:
    """A value as `<<param>>` prints it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def signature(params: Mapping[str, Param]) -> str:
    """`level (string: "lite", "full"; default "full")` for messages."""
    parts = []
    for param in params.values():
        kind = param.type or "any"
        if param.enum:
            kind += ": " + ", ".join(describe(v) for v in param.enum)
        if not param.required and param.default is not None:
            kind += f"; default {describe(param.default)}"
        parts.append(f"{param.name} ({kind})")
    return ", ".join(parts)
