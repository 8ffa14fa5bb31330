"""Edits the language server offers: a rule's Fix as the smallest change, and a did-you-mean.

A Fix (promptc_compiler.base.diagnostics) replaces whole lines; sent to an editor as the
whole document, it would move the cursor, drop undo history and clash with
any edit made meanwhile. So each fix is applied alone, as `promptc lint --fix`
applies it (promptc_compiler.pipeline.fix), and only the characters that differ are sent.

A message that ends in "(did you mean `x`?)" names the misspelt word too,
quoted: the quick fix replaces that word, where it stands on the diagnostic's
line, with `x`. It is never applied by `--fix`: a guess is for a person to
accept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from difflib import SequenceMatcher
from typing import NamedTuple

from promptc_compiler.base.diagnostics import Diagnostic, Fix
from promptc_compiler.pipeline.fix import apply, choose

_MEANT = re.compile(r"\(did you mean `([^`]+)`\?\)")
_QUOTED = re.compile(r"'([^'\n]+)'|`([^`\n]+)`|\"([^\"\n]+)\"")
_BREAK = re.compile(r"\r\n|\r|\n")


class Edit(NamedTuple):
    """Replace the text between two places (0-based line, code-point column) with `text`."""

    start: tuple[int, int]
    end: tuple[int, int]
    text: str


def fix_edits(text: str, fixes: Sequence[Fix]) -> list[Edit]:
    """The fixes `--fix` would apply together, each as the smallest edit of `text`."""
    edits = []
    for first, last, group in _groups(text, choose(fixes)):
        after = apply(text, group)
        kept = len(text) - last
        head, end, replacement = _difference(text[first:last], after[first : len(after) - kept])
        edits.append(Edit(_place(text, first + head), _place(text, first + end), replacement))
    return edits


def _groups(text: str, fixes: Sequence[Fix]) -> Iterator[tuple[int, int, list[Fix]]]:
    """The fixes' lines as offsets (first, last), those that meet merged: each edit stays
    within its own, so the edits never overlap (an editor applies them all to one text)."""
    # A byte-order mark stands before the first line, outside every fix
    # (promptc_compiler.pipeline.fix).
    starts = [int(text.startswith("\ufeff")), *(m.end() for m in _BREAK.finditer(text))]
    spans = []
    for fix in sorted(fixes, key=lambda f: (f.start, f.end)):
        first = starts[min(fix.start - 1, len(starts) - 1)]
        last = starts[fix.end] if fix.end < len(starts) else len(text)
        spans.append((first, max(first, last), fix))
    group: list[Fix] = []
    low = high = 0
    for first, last, fix in spans:
        if group and first > high:
            yield low, high, group
            group = []
        low, high = (min(low, first), max(high, last)) if group else (first, last)
        group.append(fix)
    if group:
        yield low, high, group


def suggestion(d: Diagnostic, text: str) -> tuple[str, str, Edit] | None:
    """(the word, the word meant, the edit) for a did-you-mean on `d`'s line, if any."""
    meant = _MEANT.search(d.message)
    lines = _BREAK.split(text)
    if meant is None or not 1 <= d.line <= len(lines):
        return None
    line = lines[d.line - 1]
    written = {w for m in _QUOTED.finditer(d.message, 0, meant.start()) for w in m.groups() if w}
    found = list(_occurrences(line, written - {meant[1]}, meant[1], d.column - 1))
    if not found:
        return None
    _, start, word = max(found)
    edit = Edit((d.line - 1, start), (d.line - 1, start + len(word)), meant[1])
    return word, meant[1], edit


def _occurrences(
    line: str, words: set[str], meant: str, column: int
) -> Iterator[tuple[tuple[float, int], int, str]]:
    """Each place a word stands alone on the line, scored: likeness to `meant`, then nearness."""
    for word in words:
        for match in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", line):
            likeness = SequenceMatcher(None, word.lower(), meant.lower()).ratio()
            yield (likeness, -abs(match.start() - column)), match.start(), word


def _difference(old: str, new: str) -> tuple[int, int, str]:
    """The one edit that turns `old` into `new` (start, end, text): what lies between
    their common ends."""
    head = _common_head(old, new)
    tail = _common_tail(old, new, head)
    if _BREAK.search(old, head, len(old) - tail) or _BREAK.search(new, head, len(new) - tail):
        # Lines added or taken away: the edit starts at a line's start, as a person's would.
        head = max(old.rfind("\n", 0, head), old.rfind("\r", 0, head)) + 1
        tail = _common_tail(old, new, head)
    # Never split a CRLF: a position between its two characters is no place in the file.
    if 0 < head < len(old) and old[head - 1] == "\r" and old[head] == "\n":
        head -= 1
    if tail > 0 and old[len(old) - tail - 1 : len(old) - tail + 1] == "\r\n":
        tail -= 1
    return head, len(old) - tail, new[head : len(new) - tail]


def _common_head(old: str, new: str) -> int:
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    return head


def _common_tail(old: str, new: str, head: int) -> int:
    limit = min(len(old), len(new)) - head
    tail = 0
    while tail < limit and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return tail


def _place(text: str, offset: int) -> tuple[int, int]:
    breaks = list(_BREAK.finditer(text, 0, offset))
    return len(breaks), offset - (breaks[-1].end() if breaks else 0)
