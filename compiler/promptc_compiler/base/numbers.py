"""Integers too large to read or write: where a TOML or JSON file holds one.

Python writes no integer of more than 4,300 decimal digits (the default of
sys.get_int_max_str_digits) and reads none from decimal text. tomllib reads a
hex, octal or binary one of any size, and json.loads refuses a long one with a
ValueError that is not a JSONDecodeError: either was an internal error once a
message, a merge or an emitted file wrote the number. TOML's integers are
64-bit, so a TOML file is held to that.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

_INT64 = range(-(2**63), 2**63)
TOML_RANGE = "integer out of TOML's range: integers are 64-bit, -2^63 to 2^63-1"


def beyond_64_bits(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The key path of each integer in a parsed TOML document past 64 bits; an
    integer in an array is placed at the array's key."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from beyond_64_bits(item, (*path, key))
    elif isinstance(value, list):
        for item in value:
            if next(beyond_64_bits(item), None) is not None:
                yield path
                return
    elif isinstance(value, int) and value not in _INT64:
        yield path


def long_number(text: str) -> tuple[int, int, str] | None:
    """The line, column and message of the first number json.loads refuses for
    its length in `text`, if any."""
    limit = sys.get_int_max_str_digits()
    if not limit:  # the limit switched off: json.loads reads every length
        return None
    # Strings are matched whole, so that digits inside one are passed over.
    tokens = re.finditer(rf'"(?:[^"\\]|\\.)*"|[0-9]{{{limit + 1},}}', text)
    found = next((token for token in tokens if token[0][0] != '"'), None)
    if found is None:
        return None
    line = text.count("\n", 0, found.start()) + 1
    column = found.start() - text.rfind("\n", 0, found.start())
    digits = found.end() - found.start()
    return line, column, f"a number of {digits:,} digits; promptc reads up to {limit:,}"
