"""Finds where a key stands in a TOML file, for config messages.

tomllib returns values without positions, so a config error names its line
by scanning the text: table headers, then `key =` lines inside the table.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def _split_dotted(key: str) -> tuple[str, ...]:
    parts: list[str] = []
    for raw in key.split("."):
        raw = raw.strip()
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
            raw = raw[1:-1]
        parts.append(raw)
    return tuple(parts)


def sections(lines: list[str]) -> list[tuple[tuple[str, ...], int, int]]:
    """(header path, header line index, end line index) for each table; the
    top level first, as () from line 0 (promptc_compiler.core.merge edits tables by them)."""
    return _sections(lines)


# Where tomllib says a syntax error is: "... (at line 8, column 63)" or
# "... (at end of document)". Python 3.11's TOMLDecodeError holds no position
# of its own, only this text.
_TOML_AT = re.compile(
    r"^(?P<message>.*) \(at (?:line (?P<line>\d+), column (?P<column>\d+)|end of document)\)$"
)


def toml_error(text: str, error: str) -> tuple[str, int, int]:
    """A tomllib error's message, line and column ("at end of document": the end
    of the last line; no position: line 0)."""
    found = _TOML_AT.match(error)
    if found is None:
        return error, 0, 0
    if found["line"] is None:
        last = text.rsplit("\n", 1)[-1]
        return found["message"], text.count("\n") + 1, len(last) + 1
    return found["message"], int(found["line"]), int(found["column"])


def _sections(lines: list[str]) -> list[tuple[tuple[str, ...], int, int]]:
    """(header path, first line index, end line index) for each table."""
    found: list[tuple[tuple[str, ...], int]] = [((), 0)]
    for index, line in enumerate(lines):
        match = _HEADER.match(line)
        if match:
            found.append((_split_dotted(match.group(1)), index))
    bounds = [index for _, index in found[1:]] + [len(lines)]
    return [(path, start, end) for (path, start), end in zip(found, bounds, strict=True)]


def _key_in_line(line: str, key: str) -> int | None:
    for quoted in (re.escape(key), f'"{re.escape(key)}"', f"'{re.escape(key)}'"):
        match = re.search(rf"(^|[\s{{,.]){quoted}\s*[=.]", line)
        if match:
            return match.start() + len(match.group(1))
    return None


def locate(text: str, path: tuple[str, ...]) -> tuple[int, int]:
    """1-based (line, column) of the key at `path`, or of its nearest known parent;
    a table is at the `[` of its header, or of the first header inside it
    (`[targetz.claude]` for `targetz`)."""
    if not path:
        return 1, 1
    lines = text.splitlines()
    sections = _sections(lines)
    for cut in range(len(path), -1, -1):
        header, rest = path[:cut], path[cut:]
        if not rest:
            inside = [start for table, start, _ in sections if table and table[:cut] == header]
            if inside:
                return inside[0] + 1, lines[inside[0]].index("[") + 1
            continue
        for table, start, end in sections:
            if table != header:
                continue
            for index in range(start + (1 if table else 0), end):
                column = _key_in_line(lines[index].split("#", 1)[0], rest[-1])
                if column is not None and _key_in_line(lines[index], rest[0]) is not None:
                    return index + 1, column + 1
    return 1, 1
