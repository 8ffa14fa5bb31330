"""The YAML emitter: exact text for the values that trip YAML, and a round trip for any data."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from promptc_compiler.core import yamlout
from promptc_compiler.core.loader import load_bytes


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("*", '"*"'),
        ("git push*", '"git push*"'),
        ("src/**", '"src/**"'),
        ("#FF5733", '"#FF5733"'),
        ("accent", "accent"),
        ("allow", "allow"),
        ("anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4-5"),
        ("team/reviewer", "team/reviewer"),
        ("Revisa diffs: busca bugs", '"Revisa diffs: busca bugs"'),
        ("ruta:línea", "ruta:línea"),
        ("ends with colon:", '"ends with colon:"'),
        ("a # comment?", '"a # comment?"'),
        ("C# y F#", "C# y F#"),
        ("@team/reviewer revisa", '"@team/reviewer revisa"'),
        ("[experimental] agente", '"[experimental] agente"'),
        ("!important", '"!important"'),
        ("%TAG", '"%TAG"'),
        ("&anchor", '"&anchor"'),
        ("- item", '"- item"'),
        ("? key", '"? key"'),
        ("|", '"|"'),
        ("'single'", "\"'single'\""),
        ('"double"', '"\\"double\\""'),
        ("Explora el código en modo solo lectura.", "Explora el código en modo solo lectura."),
        ("Ñandú ¿qué? — «sí»", "Ñandú ¿qué? — «sí»"),
        ("¿qué?", '"¿qué?"'),
        ("línea 1\nlínea 2", '"línea 1\\nlínea 2"'),
        ("trailing space ", '"trailing space "'),
        ("", '""'),
        ("yes", '"yes"'),
        ("Off", '"Off"'),
        ("null", '"null"'),
        ("~", '"~"'),
        ("true", '"true"'),
        ("0", '"0"'),
        ("0.5", '"0.5"'),
        (".5", '".5"'),
        (".inf", '".inf"'),
        (".hidden", ".hidden"),
        ("2026-01-13", '"2026-01-13"'),
        ("1e3", '"1e3"'),
        ("0x1F", '"0x1F"'),
        ("<<", '"<<"'),
        ("=", '"="'),
        ("tab\there", '"tab\\there"'),
        ("nel\x85line\u2028sep", '"nel\\u0085line\\u2028sep"'),
        ("del\x7f", '"del\\u007f"'),
        ("nbsp\u00a0", '"nbsp\u00a0"'),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (0, "0"),
        (-3, "-3"),
        (0.1, "0.1"),
        (1e20, "1.0e+20"),
        (1.5e-07, "1.5e-07"),
        (math.inf, ".inf"),
        (-math.inf, "-.inf"),
        (math.nan, ".nan"),
    ],
)
def test_scalar_text(value: Any, text: str) -> None:
    assert yamlout.scalar(value) == text


def test_block_layout() -> None:
    data = {
        "description": "d",
        "permission": {"*": "deny", "bash": {"*": "ask", "git diff*": "allow"}},
        "empty": {},
        "none": [],
        "list": ["a", {"k": 1, "j": [2, 3]}, [4, [5]], {}, []],
    }
    assert yamlout.dump(data) == (
        "description: d\n"
        "permission:\n"
        '  "*": deny\n'
        "  bash:\n"
        '    "*": ask\n'
        '    "git diff*": allow\n'
        "empty: {}\n"
        "none: []\n"
        "list:\n"
        "  - a\n"
        "  - k: 1\n"
        "    j:\n"
        "      - 2\n"
        "      - 3\n"
        "  - - 4\n"
        "    - - 5\n"
        "  - {}\n"
        "  - []\n"
    )


_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    # Strings near YAML's special forms, which plain text rarely hits by chance.
    | st.from_regex(
        r"[-+.~:#*&!@%?|>'\"\[\]{}<=0-9 a-zA-Z_/\u00e1\u00bf\u2014]{0,8}", fullmatch=True
    )
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=20), inner, max_size=4)
    ),
    max_leaves=20,
)
_documents = st.dictionaries(st.text(max_size=30), _values, max_size=6)


def _ordered(value: Any) -> Any:
    """Data with every mapping's key order made visible, so order is compared too."""
    if isinstance(value, dict):
        return [(key, _ordered(item)) for key, item in value.items()]
    if isinstance(value, list | tuple):
        return [_ordered(item) for item in value]
    return value


@given(_documents)
def test_round_trip_through_pyyaml(data: dict[str, Any]) -> None:
    # PyYAML reads YAML 1.1, the stricter of the two versions for plain scalars.
    assert _ordered(yaml.safe_load(yamlout.dump(data)) or {}) == _ordered(data)


@given(_documents)
def test_round_trip_through_the_loader(data: dict[str, Any]) -> None:
    # The loader reads YAML 1.2 as js-yaml (OpenCode's reader) does.
    source = load_bytes(Path("x.md"), ("---\n" + yamlout.dump(data) + "---\n").encode())
    assert source.findings == ()
    read = source.frontmatter.data if source.frontmatter else {}
    assert _ordered(read) == _ordered(data)


# --- the remembered scalars give what the plain definition gives ---------------------


def _scalar_oracle(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return yamlout._float(value)
    text = str(value)
    return text if yamlout.is_plain(text) else yamlout.quote(text)


def _dump_oracle(data: Any, indent: int = 0) -> str:
    return "".join(_entry_oracle(key, value, indent) for key, value in data.items())


def _entry_oracle(key: Any, value: Any, indent: int) -> str:
    head = f"{' ' * indent}{_scalar_oracle(str(key))}:"
    if isinstance(value, Mapping) and value:
        return f"{head}\n{_dump_oracle(value, indent + 2)}"
    if isinstance(value, list | tuple) and value:
        return head + "\n" + "".join(_item_oracle(item, indent + 2) for item in value)
    return f"{head} {_inline_oracle(value)}\n"


def _item_oracle(value: Any, indent: int) -> str:
    pad = " " * indent
    if isinstance(value, Mapping) and value:
        nested = _dump_oracle(value, indent + 2)
    elif isinstance(value, list | tuple) and value:
        nested = "".join(_item_oracle(item, indent + 2) for item in value)
    else:
        return f"{pad}- {_inline_oracle(value)}\n"
    return f"{pad}- {nested[indent + 2 :]}"


def _inline_oracle(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    return _scalar_oracle(value)


class _Tag(str):
    """A str subclass (as an enum's value may be): written as its text."""

    def __str__(self) -> str:
        return f"tag {super().__str__()}"


@given(_documents, st.integers(0, 3))
@example({"a": _Tag("x"), "b": {"c": _Tag("y")}, "x": "x"}, 0)
def test_dump_is_the_plain_definition(data: dict[str, Any], indent: int) -> None:
    expected = _dump_oracle(data, indent)
    dumper = yamlout.Dumper()
    assert dumper.dump(data, indent) == expected
    assert dumper.dump(data, indent) == expected  # again, from what it remembered
    assert yamlout.dump(data, indent) == expected
