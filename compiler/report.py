"""Reporters: pure functions from diagnostics to output lines.

`text`:  path:line:col: severity [rule] message   (coloured on a terminal)
`json`:  one JSON document: {"version": 1, "diagnostics": [...], "summary": {...}}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator

from compiler.diagnostics import Diagnostic, Severity

# Control characters from a hostile file (a key written as "\e[2J" in YAML)
# must not reach the terminal, nor a newline split one diagnostic into two.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))}

_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
_RESET = "\033[0m"
_BOLD = "\033[1m"


def text(diagnostics: Iterable[Diagnostic], color: bool = False) -> Iterator[str]:
    for d in diagnostics:
        if not color:
            line = d.as_text().translate(_CONTROLS)
        else:
            where = f"{_BOLD}{d.path.translate(_CONTROLS)}:{d.line}:{d.column}:{_RESET}"
            level = f"{_COLOURS[d.severity]}{d.severity.value}{_RESET}"
            line = f"{where} {level} [{d.rule}] {d.message.translate(_CONTROLS)}"
        yield line
        if d.hint:
            yield f"    hint: {d.hint.translate(_CONTROLS)}"


def as_json(diagnostics: Iterable[Diagnostic], color: bool = False) -> Iterator[str]:
    items = list(diagnostics)
    counts = {s.value: sum(1 for d in items if d.severity is s) for s in Severity}
    document = {
        "version": 1,
        "diagnostics": [
            {
                "path": d.path,
                "line": d.line,
                "column": d.column,
                "rule": d.rule,
                "severity": d.severity.value,
                "message": d.message,
                "hint": d.hint,
                "fixable": d.fix is not None,
            }
            for d in items
        ],
        "summary": counts,
    }
    yield json.dumps(document, indent=2, ensure_ascii=False)


Reporter = Callable[[Iterable[Diagnostic], bool], Iterator[str]]

REPORTERS: dict[str, Reporter] = {"text": text, "json": as_json}
