"""Diagnostics: the one record every stage reports problems with."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.ERROR: 2, Severity.WARNING: 1, Severity.INFO: 0}


@dataclass(frozen=True)
class Fix:
    """Replace lines start..end (1-based, inclusive) of a file with `text`.

    An empty range (end == start - 1) inserts before `start`. `text` is whole
    lines, each ending in "\n" ("" deletes the range); promptc_compiler.pipeline.fix applies it.
    """

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Problem:
    """What a rule or stage finds, before the pipeline stamps path, id and severity."""

    line: int
    column: int
    message: str
    hint: str | None = None
    fix: Fix | None = None
    # Stages and rules that inspect another file (a fragment, the config)
    # name it here; None means the file being checked.
    path: Path | None = None
    # What a short message stands for, line by line (each runtime's finding): the
    # text report prints it with --verbose, json always.
    detail: str | None = None


@dataclass(frozen=True, order=True)
class Diagnostic:
    """An immutable, sortable report: by path, then position, then rule."""

    path: str
    line: int
    column: int
    rule: str
    severity: Severity = field(compare=False)
    message: str = field(compare=False)
    hint: str | None = field(default=None, compare=False)
    fix: Fix | None = field(default=None, compare=False)
    detail: str | None = field(default=None, compare=False)

    def as_text(self) -> str:
        where = f"{self.path}:{self.line}:{self.column}"
        return f"{where}: {self.severity.value} [{self.rule}] {self.message}"


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)
