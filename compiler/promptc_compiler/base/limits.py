"""What a TOML or JSON document may hold before promptc reads it.

Python writes no integer of more than 4,300 decimal digits (the default of
sys.get_int_max_str_digits) and reads none from decimal text. tomllib reads a
hex, octal or binary one of any size, and json.loads refuses a long one with a
ValueError that is not a JSONDecodeError: either was an internal error once a
message, a merge or an emitted file wrote the number. TOML's integers are
64-bit, so a TOML file is held to that. Nesting is held to MAX_DEPTH, the
frontmatter's limit too (promptc_compiler.core.loader): each reader after the
parse recurses once per level. tomllib and json.loads themselves stop at the
interpreter's recursion limit: tomllib_loads and json_loads turn that, and
json.loads's refusal of a long number, into the parse error their callers
report at its place.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections.abc import Iterator
from typing import Any

MAX_DEPTH = 64
INT64 = range(-(2**63), 2**63)
TOML_RANGE = "integer out of TOML's range: integers are 64-bit, -2^63 to 2^63-1"
TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"


def too_long(digits: int) -> str | None:
    """Why a decimal integer of `digits` digits cannot be read, if it cannot."""
    limit = sys.get_int_max_str_digits()
    if not limit or digits <= limit:  # 0: the limit switched off
        return None
    return f"a number of {digits:,} digits; promptc reads up to {limit:,}"


def tomllib_loads(text: str) -> dict[str, Any]:
    """tomllib.loads, a document nested past the recursion limit refused as
    TOML that does not parse: a TOMLDecodeError whose message ends with its
    position, as tomllib's do (promptc_compiler.core.tomlpos reads it)."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        line, column = _position(text, _too_deep_at(text))
        raise tomllib.TOMLDecodeError(f"{TOO_DEEP} (at line {line}, column {column})") from None


def json_loads(text: str) -> Any:
    """json.loads, a number too long for Python (a ValueError of its own) or
    nesting past the recursion limit refused as JSON that does not parse: a
    JSONDecodeError at its place, as every other reader of JSON catches."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError(TOO_DEEP, text, _too_deep_at(text)) from None
    except ValueError:
        at, message = _long_number(text) or (0, "a number too long to read")
        raise json.JSONDecodeError(message, text, at) from None


def _too_deep_at(text: str) -> int:
    """Where arrays and inline tables first open past MAX_DEPTH, read from the
    brackets outside one-line strings (only a message's place)."""
    depth, quote = 0, ""
    for at, char in enumerate(text):
        if char == "\n":
            quote = ""
        elif quote:
            quote = "" if char == quote and text[at - 1] != "\\" else quote
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return at
        elif char in "]}":
            depth -= 1
    return 0


def _position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of `offset`."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def toml_problem(document: Any) -> tuple[tuple[str, ...], str] | None:
    """The key path and message of the first value of a parsed TOML document
    that promptc does not read: nested too deeply, or an integer past 64 bits
    (one in an array is placed at the array's key)."""
    return next(_toml_problems(document, ()), None)


def _toml_problems(
    value: Any, path: tuple[str, ...], depth: int = 0
) -> Iterator[tuple[tuple[str, ...], str]]:
    if depth > MAX_DEPTH:
        yield path, TOO_DEEP
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _toml_problems(item, (*path, key), depth + 1)
    elif isinstance(value, list):
        for item in value:
            for _, message in _toml_problems(item, path, depth + 1):
                yield path, message
                return
    elif isinstance(value, int) and value not in INT64:
        yield path, TOML_RANGE


def _long_number(text: str) -> tuple[int, str] | None:
    """Where the first number json.loads refuses for its length stands, and why."""
    limit = sys.get_int_max_str_digits()
    if not limit:  # the limit switched off: json.loads reads every length
        return None
    # Strings are matched whole, so that digits inside one are passed over.
    tokens = re.finditer(rf'"(?:[^"\\]|\\.)*"|[0-9]{{{limit + 1},}}', text)
    found = next((token for token in tokens if token[0][0] != '"'), None)
    message = None if found is None else too_long(found.end() - found.start())
    return None if found is None or message is None else (found.start(), message)
