"""Reporters: pure functions from diagnostics to output lines, one per format
(text, json, github, sarif: docs/reference/output.md).

The json document is a stable interface: within version 1 fields are only ever
added, never renamed, removed or retyped.
"""

from __future__ import annotations

import inspect
import json
import re
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from promptc_compiler import __version__
from promptc_compiler.base.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from promptc_compiler.rules import Rule

# Control characters from a hostile file (a key written as "\e[2J" in YAML)
# must not reach the terminal, nor a newline split one diagnostic into two.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))}
# Hints may span lines (a diff): their newlines are kept and indented instead.
_HINT_CONTROLS = {c: text for c, text in _CONTROLS.items() if c != ord("\n")}

_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
_RESET = "\033[0m"
_BOLD = "\033[1m"

JSON_VERSION = 1
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)


# The longest line the text format writes (an absolute path not counted): a message
# joined from several clauses (one per runtime, one per rule) goes on with one
# clause per indented line below its diagnostic.
WIDTH = 200


def text(
    diagnostics: Iterable[Diagnostic], color: bool = False, verbose: bool = False
) -> Iterator[str]:
    """`verbose`: each diagnostic's detail too, a line of it per indented line."""
    for d in diagnostics:
        head = f"{d.path.translate(_CONTROLS)}:{d.line}:{d.column}:"
        first, *rest = _clauses(f"{head} {d.severity.value} [{d.rule}] ", d.message)
        if color:
            level = f"{_COLOURS[d.severity]}{d.severity.value}{_RESET}"
            first = (
                f"{_BOLD}{head}{_RESET} {level}" + first[len(head) + 1 + len(d.severity.value) :]
            )
        yield first
        yield from rest
        if verbose and d.detail:
            for line in d.detail.translate(_HINT_CONTROLS).splitlines():
                yield from _wrap(line, "    ")
        if d.hint:
            # A multi-line hint (a diff) stays indented under its diagnostic.
            yield "    hint: " + d.hint.translate(_HINT_CONTROLS).replace("\n", "\n          ")


def _clauses(head: str, message: str) -> list[str]:
    """`head` and `message` as one line, or, when longer than WIDTH, the first
    sentence there and each further one (several runtimes' findings joined
    into one message) on an indented line of its own; a sentence still too
    long goes on at its `; ` clauses, then at its words."""
    message = message.translate(_CONTROLS)
    if _width(head + message) <= WIDTH:
        return [head + message]
    lines: list[str] = []
    for number, sentence in enumerate(_split_top(message, ". ", keep=".")):
        indent = head if number == 0 else "    "
        if _width(indent + sentence) <= WIDTH:
            lines.append(indent + sentence)
            continue
        packed = ""
        for clause in _split_top(sentence, "; ", keep=";"):
            if packed and _width(f"{indent}{packed} {clause}") > WIDTH:
                lines += _wrap(packed, indent)
                indent, packed = "    ", clause
            else:
                packed = f"{packed} {clause}" if packed else clause
        lines += _wrap(packed, indent)
    return lines or [head.rstrip()]


def _width(text: str) -> int:
    """The length of `text` as the limit counts it: an absolute path (a scratch
    folder's, a lock file's) counts for nothing, so that a line naming one
    stays whole for the tools that read it."""
    paths = (w for w in text.split() if _ABSOLUTE.match(w) and not set(w) & set("*?`"))
    return len(text) - sum(map(len, paths))  # a pattern (`"~/notes/*"`) is no path


# An absolute path, perhaps in parentheses or quotes: `/tmp/x`, `C:\x`, `~/x`.
_ABSOLUTE = re.compile(r"""^[(`'"]*(/|~/|[A-Za-z]:[\\/])""")


def _wrap(text: str, indent: str) -> list[str]:
    """A clause on one line; one too long goes on at its words."""
    if _width(indent + text) <= WIDTH:
        return [indent + text]
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent="      ",
        break_on_hyphens=False,
        break_long_words=False,  # a word (a path, a pattern) is never cut
    ) or [indent.rstrip()]


def _split_top(text: str, mark: str, keep: str) -> list[str]:
    """`text` split at each `mark` outside parentheses, brackets, backticks and
    quotes (`e.g. x`, `a; b` inside a code span stay whole); `keep` ends each
    part but the last."""
    parts: list[str] = []
    depth = 0
    code = False
    start = 0
    for at, char in enumerate(text):
        if char == "`":
            code = not code
        elif not code and char in "([{":
            depth += 1
        elif not code and char in ")]}":
            depth = max(0, depth - 1)
        elif not code and depth == 0 and text.startswith(mark, at) and at >= start:
            parts.append(text[start:at] + keep)
            start = at + len(mark)
    parts.append(text[start:])
    return [part for part in parts if part]


def as_json(diagnostics: Iterable[Diagnostic], _color: bool = False) -> Iterator[str]:
    items = list(diagnostics)
    counts = {s.value: sum(1 for d in items if d.severity is s) for s in Severity}
    document = {
        "version": JSON_VERSION,
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
                "detail": d.detail,
            }
            for d in items
        ],
        "summary": counts,
    }
    yield json.dumps(document, indent=2, ensure_ascii=False)


# GitHub workflow commands: https://docs.github.com/actions/reference/workflow-commands-for-github-actions
_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def github_data(value: str) -> str:
    """Escape a workflow command's message (the text after `::`)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(value: str) -> str:
    """Escape a workflow command property value (`file=`, `title=`, ...)."""
    return github_data(value).replace(":", "%3A").replace(",", "%2C")


def github(diagnostics: Iterable[Diagnostic], _color: bool = False) -> Iterator[str]:
    for d in diagnostics:
        properties = {
            "file": d.path,
            "line": str(d.line),
            "col": str(d.column),
            "title": f"promptc [{d.rule}]",
        }
        props = ",".join(f"{key}={github_property(value)}" for key, value in properties.items())
        yield f"::{_GITHUB_COMMAND[d.severity]} {props}::{github_data(_message(d))}"


def _message(d: Diagnostic) -> str:
    return f"{d.message}\nhint: {d.hint}" if d.hint else d.message


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif(
    diagnostics: Iterable[Diagnostic], _color: bool = False, rules: Mapping[str, Rule] | None = None
) -> Iterator[str]:
    """The SARIF log; `rules` (the registry, promptc_compiler.rules.RULES) describes every rule."""
    described = _sarif_rules(rules or {})
    index = {rule["id"]: i for i, rule in enumerate(described)}
    severities = {rule["id"]: rule["properties"] for rule in described if "properties" in rule}
    driver = {"name": "promptc", "version": __version__, "semanticVersion": __version__}
    run = {
        "tool": {"driver": {**driver, "rules": described}},
        # Loader columns count characters (code points), not UTF-16 units.
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": True}],
        "results": [_sarif_result(d, index, severities) for d in diagnostics],
    }
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    yield json.dumps(log, indent=2, ensure_ascii=False)


def _sarif_rules(rules: Mapping[str, Rule]) -> list[dict[str, Any]]:
    described = []
    for rule_id, rule in sorted(rules.items()):
        configuration: dict[str, Any] = (
            {"enabled": False}
            if rule.DEFAULT_LEVEL == "off"
            else {"level": _SARIF_LEVEL[Severity(rule.DEFAULT_LEVEL)]}
        )
        doc = inspect.cleandoc(rule.__doc__ or "")
        descriptor: dict[str, Any] = {
            "id": rule_id,
            "shortDescription": {"text": doc.splitlines()[0] if doc else ""},
            "fullDescription": {"text": _description(doc)},
            "help": {"text": doc},
            "defaultConfiguration": configuration,
        }
        severity = getattr(rule, "SECURITY_SEVERITY", None)
        if severity is not None:
            # GitHub code scanning ranks a result by its rule's `security-severity`
            # (0.0 to 10.0, a string), shown only on rules tagged `security`.
            descriptor["properties"] = {"tags": ["security"], "security-severity": severity}
        described.append(descriptor)
    return described


def _description(doc: str) -> str:
    """A rule's documentation up to its Options / Fails / Passes sections."""
    head = re.split(r"^(?:Options|Fails|Passes):", doc, maxsplit=1, flags=re.MULTILINE)[0]
    return head.strip()


def _sarif_result(
    d: Diagnostic, index: dict[str, int], severities: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    result: dict[str, Any] = {"ruleId": d.rule}
    if d.rule in index:
        result["ruleIndex"] = index[d.rule]
    if d.rule in severities:
        result["properties"] = {"security-severity": severities[d.rule]["security-severity"]}
    region = {"startLine": max(d.line, 1), "startColumn": max(d.column, 1)}
    result |= {
        "level": _SARIF_LEVEL[d.severity],
        "message": {"text": _message(d)},
        "locations": [
            {"physicalLocation": {"artifactLocation": _artifact(d.path), "region": region}}
        ],
    }
    return result


def _artifact(path: str) -> dict[str, str]:
    """A relative path is relative to the working directory, which SARIF calls %SRCROOT%."""
    if path.startswith("/"):
        return {"uri": "file://" + quote(path)}
    return {"uri": quote(path), "uriBaseId": "%SRCROOT%"}


Reporter = Callable[[Iterable[Diagnostic], bool], Iterator[str]]

REPORTERS: dict[str, Reporter] = {"text": text, "json": as_json, "github": github, "sarif": sarif}
