"""A small, deterministic YAML emitter for generated frontmatter.

Block style, keys in the order given, and a string left plain only when every
YAML reader (1.1 and 1.2) reads it back as the same string; anything else is
double-quoted with JSON escapes (a subset of YAML's). So `"*"`, hex colours,
`yes`, `2026-01-13`, `: ` and leading `@`/`!`/`%` are always quoted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_SAFE = re.compile(r"^[A-Za-z_/.][A-Za-z0-9_ ./()+,'=-]*$")
_YAML11_SPECIAL = re.compile(
    r"^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    r"|null|Null|NULL|~|[-+]?\.(inf|Inf|INF|nan|NaN|NAN))$"
)


def scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    text = str(value)
    plain = (
        _SAFE.match(text)
        and not _YAML11_SPECIAL.match(text)
        and not text.endswith((" ", ":"))
        and ": " not in text
        and " #" not in text
    )
    return text if plain else json.dumps(text, ensure_ascii=False)


def dump(data: Mapping[str, Any], indent: int = 0) -> str:
    """Block-style YAML for a mapping, ending in a newline."""
    return "".join(_entry(key, value, indent) for key, value in data.items())


def _entry(key: str, value: Any, indent: int) -> str:
    pad = " " * indent
    head = f"{pad}{scalar(key)}:"
    if isinstance(value, Mapping):
        return f"{head} {{}}\n" if not value else f"{head}\n{dump(value, indent + 2)}"
    if isinstance(value, list | tuple):
        if not value:
            return f"{head} []\n"
        return head + "\n" + "".join(_item(item, indent + 2) for item in value)
    return f"{head} {scalar(value)}\n"


def _item(value: Any, indent: int) -> str:
    pad = " " * indent
    if isinstance(value, Mapping) and value:
        nested = dump(value, indent + 2)
        return f"{pad}- {nested[indent + 2 :]}"
    return f"{pad}- {scalar(value)}\n"
