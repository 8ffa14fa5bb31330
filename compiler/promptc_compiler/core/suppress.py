"""Suppressions: one finding kept on purpose, always with the reason written down.

Two places say it, one shape each, both with a required reason:

- in the config, the rule's own table: `[rules.<id>] suppress = [{ path = GLOB,
  contains = TEXT, reason = WHY }]` (the shape of the security rules' `accept`
  entries, without `kind`); `contains` narrows it to findings whose line holds
  that text;
- in a spec's frontmatter, a YAML comment: `# promptc: suppress[<id>] WHY`
  at the end of the line it is about, or alone on the line before it.

A suppression without a reason, for a rule that does not exist or that cannot
be suppressed, or that suppresses nothing is itself reported
(`unused-suppression`). Only findings whose level a config may set can be
suppressed: never the pipeline's own stages (a file that does not parse, a
schema error, a translation wider than OpenCode allows, a file promptc will
not overwrite), whose errors guard what gets written.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from promptc_compiler.base.diagnostics import Diagnostic
from promptc_compiler.core.loader import SourceFile

RULE = "unused-suppression"

# The option every rule that can be suppressed takes in its `[rules.<id>]` table.
OPTION: Mapping[str, Any] = {
    "type": "array",
    "default": [],
    "description": "findings of this rule kept on purpose, each with the reason",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["path", "reason"],
        "properties": {
            "path": {"type": "string", "minLength": 1},
            "contains": {"type": "string", "minLength": 1},
            "reason": {"type": "string", "pattern": r"\S"},
        },
    },
}

_COMMENT = re.compile(r"#\s*promptc:\s*suppress\[(?P<rule>[^\]]*)\](?P<reason>[^\n]*)")


class Suppression(NamedTuple):
    """Findings of `rule` in the file `path` (a glob for config entries), at `line` when
    given, whose line holds `contains`; `origin` is where it is written, for reports."""

    rule: str
    path: str
    reason: str
    origin: tuple[Path, int, int]
    line: int | None = None
    contains: str | None = None
    entry: int | None = None  # the config entry's number, 1-based


class Unused(NamedTuple):
    """A suppression reported: where it is written and why it suppressed nothing."""

    origin: tuple[Path, int, int]
    message: str
    error: bool  # a malformed one (no reason, no such rule) rather than one never used


def inline(source: SourceFile) -> Iterator[Suppression]:
    """The `# promptc: suppress[...]` comments of a spec's frontmatter."""
    if "promptc:" not in source.head:
        return
    lines = source.head.splitlines()
    for index, text in enumerate(lines):
        match = _COMMENT.search(text)
        if match is None or not _is_comment(text, match.start()):
            continue
        alone = not text[: match.start()].strip()
        # Alone on its line, it speaks of the next line that is not a comment.
        target = index + 1
        if alone:
            target = next(
                (i + 1 for i in range(index + 1, len(lines)) if not _only_comment(lines[i])),
                index + 2,
            )
        where = (source.path, index + 1, match.start() + 1)
        rule, reason = match["rule"].strip(), match["reason"].strip()
        yield Suppression(rule, str(source.path), reason, where, line=target)


def configured(
    rule: str, entries: Sequence[Mapping[str, Any]], where: tuple[Path, int, int]
) -> Iterator[Suppression]:
    """A rule's `suppress` entries (their reasons checked by the config's schema)."""
    for number, entry in enumerate(entries, 1):
        yield Suppression(
            rule,
            entry["path"],
            entry["reason"],
            where,
            contains=entry.get("contains"),
            entry=number,
        )


class Suppressor:
    """The run's suppressions: which diagnostics they cover, and which covered none.

    `allowed(rule)` says why a rule cannot be suppressed (None: it can);
    `relative(shown)` is a diagnostic's path relative to the project (for globs);
    `line_text(shown, line)` the text of a line of a file."""

    def __init__(
        self,
        allowed: Callable[[str], str | None],
        relative: Callable[[str], str],
        line_text: Callable[[str, int], str],
    ) -> None:
        self.allowed, self.relative, self.line_text = allowed, relative, line_text
        self.usable: list[Suppression] = []
        self.used: set[int] = set()
        self.refused: list[Unused] = []

    def add(self, suppressions: Iterable[Suppression]) -> None:
        for s in suppressions:
            refused = self.allowed(s.rule)
            if refused is None and not s.reason:
                refused = (
                    f"suppress[{s.rule}] needs a reason after it: "
                    f"`# promptc: suppress[{s.rule}] why this finding is right here`"
                )
            if refused is None:
                self.usable.append(s)
            else:
                self.refused.append(Unused(s.origin, refused, True))

    def covers(self, d: Diagnostic) -> bool:
        """Whether a suppression covers `d` (the first that does counts as used)."""
        for index, s in enumerate(self.usable):
            if _covers(s, d, self.relative, self.line_text):
                self.used.add(index)
                return True
        return False

    def unused(self) -> list[Unused]:
        """The suppressions refused, then those that covered no diagnostic."""
        found = list(self.refused)
        for index, s in enumerate(self.usable):
            if index not in self.used:
                what = f"entry {s.entry} of `suppress`" if s.entry else "this suppression"
                message = f"{what} for [{s.rule}] suppresses nothing: remove it"
                found.append(Unused(s.origin, message, False))
        return found


def _covers(
    s: Suppression,
    d: Diagnostic,
    relative: Callable[[str], str],
    line_text: Callable[[str, int], str],
) -> bool:
    if d.rule != s.rule:
        return False
    if s.line is not None:  # inline: this very file and line
        return d.line == s.line and relative(d.path) == relative(s.path)
    if not fnmatch.fnmatchcase(relative(d.path), s.path):
        return False
    return s.contains is None or s.contains in line_text(d.path, d.line)


def _is_comment(text: str, at: int) -> bool:
    """Whether `#` at `at` starts a YAML comment: at the start or after a blank, and not
    inside a quoted scalar (a rough count of quotes before it is enough here)."""
    before = text[:at]
    return (not before or before[-1] in " \t") and before.count('"') % 2 == 0


def _only_comment(text: str) -> bool:
    stripped = text.strip()
    return not stripped or stripped.startswith("#")
