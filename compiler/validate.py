"""Validate: check frontmatter (and config) against the JSON Schemas in schemas/.

Each jsonschema error becomes one message that names the JSON path and points
at the offending key or value; unknown keys get a did-you-mean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from compiler.diagnostics import Problem
from compiler.loader import Frontmatter, JsonPath
from compiler.suggest import did_you_mean

Issue = tuple[JsonPath, str, bool]  # (path, message, points at the key rather than the value)


def _validator(schema: Mapping[str, Any]) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema)


def issues(
    instance: Any, schema: Mapping[str, Any], name: Callable[[JsonPath], str] | None = None
) -> Iterator[Issue]:
    """Every problem, the most relevant alternative for oneOf/anyOf, in document order."""
    from jsonschema.exceptions import best_match

    errors = sorted(_validator(schema).iter_errors(instance), key=lambda e: list(map(str, e.path)))
    for error in errors:
        if error.context:
            error = best_match(error.context)
        yield from _describe(error, name or json_path)


def _describe(error: Any, name: Callable[[JsonPath], str]) -> Iterator[Issue]:
    path: JsonPath = tuple(error.absolute_path)
    where = name(path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = list(error.schema.get("properties", {}))
        for key in error.instance:
            if key not in known:
                hint = did_you_mean(key, known)
                yield (*path, key), f"unknown key '{key}' at {where}{hint}", True
        return
    if error.validator == "required":
        yield path, f"{where}: {error.message}", True
        return
    yield path, f"{where}: {error.message}", False


def json_path(path: JsonPath) -> str:
    text = "$"
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def first_error(
    instance: Any, schema: Mapping[str, Any], name: Callable[[JsonPath], str] | None = None
) -> tuple[tuple[str, ...], str] | None:
    for path, message, _ in issues(instance, schema, name):
        return tuple(map(str, path)), message
    return None


def check_frontmatter(frontmatter: Frontmatter, schema: Mapping[str, Any]) -> Iterator[Problem]:
    for path, message, at_key in issues(dict(frontmatter.data), schema):
        pos = frontmatter.where(path, key=at_key)
        yield Problem(pos.line, pos.column, message)
