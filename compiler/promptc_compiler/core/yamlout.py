"""A small, deterministic YAML emitter for generated frontmatter.

Block style, keys in the order given (a permission map's order is its
meaning), two-space indent. A string is left plain only when every YAML reader
the runtimes use (js-yaml, YAML 1.2) and PyYAML (YAML 1.1) read it back as the
same string (is_plain says exactly when); everything else is double-quoted
with JSON escapes, a subset of YAML's, and characters YAML cannot carry raw
(controls, U+2028, U+2029, U+0085) are escaped. So `"*"`, `"git push*"`,
`"#FF5733"`, `"2026-01-13"`, `"yes"` and `"0.5"` are always quoted. Floats
always have a `.` before any exponent (`1.0e+20`), and infinities and NaN are
YAML's `.inf` and `.nan`, so both YAML versions read the same number.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

# After the first character YAML allows any printable ASCII in a plain scalar
# (the `: ` and ` #` pairs are checked apart); `*` is kept out only so glob
# patterns (`"*"`, `"*.lock"`, `"git push*"`) are quoted alike and read alike.
_ASCII_TAIL = frozenset(chr(code) for code in range(0x20, 0x7F)) - {"*"}
_ASCII_HEAD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_/.")
# Unicode categories that are visible, non-space characters: letters, marks,
# numbers, punctuation, symbols. Separators (Z*) and others (C*) are not plain.
_PRINTABLE_CATEGORIES = frozenset("LMNPS")
_YAML11_SPECIAL = re.compile(
    r"^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    r"|null|Null|NULL|~|[-+]?\.(inf|Inf|INF|nan|NaN|NAN))$"
)
# Characters json.dumps(ensure_ascii=False) leaves raw but YAML must not see
# raw: C1 controls and DEL (not printable), NEL and the Unicode line and
# paragraph separators (line breaks in YAML 1.1), BOM, non-characters, and
# lone surrogates.
_UNSAFE_RAW = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _plain_char(char: str, head: bool) -> bool:
    if char.isascii():
        return char in (_ASCII_HEAD if head else _ASCII_TAIL)
    category = unicodedata.category(char)
    return category[0] == "L" if head else category[0] in _PRINTABLE_CATEGORIES


# _plain_char over a whole ASCII string at once: the common case, in one match.
_ASCII_PLAIN = re.compile(r"[A-Za-z_/.][ -)+-~]*")


def is_plain(text: str) -> bool:
    """True when `text` may be written unquoted and still reads back as itself."""
    if not text or not _plain_char(text[0], head=True):
        return False
    if text[0] == "." and text[1:2].isdigit():  # `.5` is a float in both YAML versions
        return False
    if text.endswith((" ", ":")) or ": " in text or " #" in text or _YAML11_SPECIAL.match(text):
        return False
    if text.isascii():
        return _ASCII_PLAIN.fullmatch(text) is not None
    return all(_plain_char(char, head=False) for char in text[1:])


def quote(text: str) -> str:
    """`text` as a YAML double-quoted scalar."""
    escaped = json.dumps(text, ensure_ascii=False)
    return _UNSAFE_RAW.sub(lambda match: f"\\u{ord(match.group()):04x}", escaped)


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    mantissa, exponent = text.split("e") if "e" in text else (text, "")
    if exponent and "." not in mantissa:  # YAML 1.1 reads `1e+20` as a string
        mantissa += ".0"
    return f"{mantissa}e{exponent}" if exponent else mantissa


def scalar(value: Any) -> str:
    if type(value) is str:
        return value if is_plain(value) else quote(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    text = str(value)
    return text if is_plain(text) else quote(text)


class Dumper:
    """Block-style YAML for the documents of one run, each string's text worked out once.

    The documents of a bundle repeat their strings (`allow`, `"git status *"`,
    tool names, modes): a target makes one Dumper for all the files it writes,
    and each string is checked (is_plain) and quoted once, not once per file.
    """

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}  # a string -> its scalar text

    def _text(self, value: str) -> str:
        found = self._texts.get(value)
        if found is None:
            found = self._texts[value] = value if is_plain(value) else quote(value)
        return found

    def _scalar(self, value: Any) -> str:
        return self._text(value) if type(value) is str else scalar(value)

    def dump(self, data: Mapping[Any, Any], indent: int = 0) -> str:
        """Block-style YAML for a mapping, ending in a newline (empty for an empty mapping)."""
        pad = " " * indent
        lines = []
        for key, value in data.items():
            name = self._scalar(str(key))
            if type(value) is str:
                lines.append(f"{pad}{name}: {self._text(value)}\n")
            else:
                lines.append(self._entry(f"{pad}{name}:", value, indent))
        return "".join(lines)

    def _entry(self, head: str, value: Any, indent: int) -> str:
        """The entry of a value other than a string, after its `key:`."""
        # Plain dicts and lists (all a frontmatter holds) are told apart by their
        # exact type first: checks against the abstract types cost more.
        kind = type(value)
        if kind is dict or (kind is not list and isinstance(value, Mapping)):
            return f"{head}\n{self.dump(value, indent + 2)}" if value else f"{head} {{}}\n"
        if kind is list or isinstance(value, list | tuple):
            if value:
                return head + "\n" + "".join([self._item(item, indent + 2) for item in value])
            return f"{head} []\n"
        return f"{head} {scalar(value)}\n"

    def _item(self, value: Any, indent: int) -> str:
        """One sequence entry: `- ` followed by the value, nested blocks aligned after it."""
        pad = " " * indent
        if type(value) is str:
            return f"{pad}- {self._text(value)}\n"
        if isinstance(value, Mapping) and value:
            nested = self.dump(value, indent + 2)
        elif isinstance(value, list | tuple) and value:
            nested = "".join(self._item(item, indent + 2) for item in value)
        else:
            return f"{pad}- {_inline(value)}\n"
        return f"{pad}- {nested[indent + 2 :]}"

    def document(self, front: Mapping[Any, Any], body: str) -> str:
        """A markdown file: the frontmatter between `---` fences, then the body, ending
        in a newline."""
        if body and not body.endswith("\n"):
            body += "\n"
        return f"---\n{self.dump(front)}---\n{body}"


def _inline(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    return scalar(value)


def dump(data: Mapping[Any, Any], indent: int = 0) -> str:
    """Block-style YAML for a mapping, ending in a newline (empty for an empty mapping)."""
    return Dumper().dump(data, indent)


def document(front: Mapping[Any, Any], body: str) -> str:
    """A markdown file: the frontmatter between `---` fences, then the body, ending in a newline."""
    return Dumper().document(front, body)
