"""Fix: apply the Fix records that rules attach to diagnostics, file by file.

A Fix replaces whole lines of the file a diagnostic names. Lines are numbered
as the loader numbers them (CRLF, CR and LF each end a line), and inserted
text takes the file's own line ending, so nothing outside the replaced lines
changes by even a byte. Fixes that overlap are not applied together: one
round applies every fix that fits, bottom-up so earlier line numbers stay
valid, then the bundle is linted again and the next round applies what is
still offered, until nothing changes. A file is rewritten atomically, and
only when its bytes change.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from promptc_compiler.base.diagnostics import Diagnostic, Fix
from promptc_compiler.base.files import replace_file

MAX_ROUNDS = 10
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_BOM = "\ufeff"


def split_lines(text: str) -> list[str]:
    """The file's lines, each with its own line ending (the last may have none)."""
    return _LINE.findall(text)


def _span(fix: Fix) -> tuple[int, int]:
    """The half-open range of 0-based line indices the fix replaces (empty: an insertion)."""
    return fix.start - 1, max(fix.end, fix.start - 1)


def _clash(a: Fix, b: Fix) -> bool:
    (a0, a1), (b0, b1) = _span(a), _span(b)
    if a0 == a1 and b0 == b1:
        return a0 == b0  # two insertions at one place: their order would be a guess
    if a0 == a1:
        return b0 < a0 < b1
    if b0 == b1:
        return a0 < b0 < a1
    return max(a0, b0) < min(a1, b1)


def choose(fixes: Iterable[Fix]) -> list[Fix]:
    """The fixes one round applies: unique, non-overlapping, earliest first."""
    chosen: list[Fix] = []
    for fix in sorted(set(fixes), key=lambda f: (f.start, f.end, f.text)):
        if all(not _clash(fix, other) for other in chosen):
            chosen.append(fix)
    return chosen


def apply(text: str, fixes: Iterable[Fix]) -> str:
    """The text with every chosen fix applied; fixes past the end of the file are skipped."""
    bom = _BOM if text.startswith(_BOM) else ""
    lines = split_lines(text[len(bom) :])
    ending = re.search(r"\r\n|\r|\n", text)
    newline = ending.group(0) if ending else "\n"
    for fix in sorted(choose(fixes), key=_span, reverse=True):
        start, end = _span(fix)
        if end > len(lines):
            continue
        replacement = fix.text.replace("\n", newline)
        if replacement and start == len(lines) and lines and not _ended(lines[-1]):
            lines[-1] += newline  # appending after a last line that had no line ending
        if end == len(lines) > start and not _ended(lines[-1]) and replacement.endswith(newline):
            replacement = replacement[: -len(newline)]  # keep "no newline at end of file"
        lines[start:end] = [replacement]
    return bom + "".join(lines)


def _ended(line: str) -> bool:
    return line.endswith(("\n", "\r"))


def fix_file(path: Path, fixes: Sequence[Fix]) -> bool:
    """Apply fixes to one file; True when its bytes changed. Raises OSError when it cannot write."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False  # the loader has reported why the file cannot be read
    fixed = apply(text, fixes).encode("utf-8")
    if fixed == raw:
        return False
    replace_file(path, fixed, mode=path.stat().st_mode & 0o7777)
    return True


class Outcome(NamedTuple):
    changed: tuple[str, ...] = ()  # paths as diagnostics name them, in the order first changed
    failed: tuple[tuple[str, str], ...] = ()  # (path, why it could not be rewritten)


def fix_until_stable(lint: Callable[[], Sequence[Diagnostic]], rounds: int = MAX_ROUNDS) -> Outcome:
    """Lint, apply the fixes offered, and repeat while files change."""
    changed: dict[str, None] = {}
    failed: dict[str, str] = {}
    for _ in range(rounds):
        by_path: dict[str, list[Fix]] = {}
        for diagnostic in lint():
            if diagnostic.fix is not None and diagnostic.path not in failed:
                by_path.setdefault(diagnostic.path, []).append(diagnostic.fix)
        progress = False
        for path, fixes in sorted(by_path.items()):
            try:
                if fix_file(Path(path), fixes):
                    changed[path] = None
                    progress = True
            except OSError as exc:
                failed[path] = f"cannot write the fix: {exc.strerror or exc}"
        if not progress:
            break
    return Outcome(tuple(changed), tuple(failed.items()))
