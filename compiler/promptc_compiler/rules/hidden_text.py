"""Invisible characters in what agents read: bidi controls, zero-width and tag characters.

The model reads every code point; a reviewer reads the rendered text. A
character that renders as nothing, or that reorders what is shown, makes the
two differ, which is how "Trojan Source" and "ASCII smuggling" hide
instructions in a prompt that looks harmless. Each run of such characters is
reported at its first character, in the file that holds it, naming the agents
and runtimes it reaches. Kinds:

- bidi-control: U+202A-U+202E and U+2066-U+2069 (embeddings, overrides,
  isolates), and the marks U+200E, U+200F, U+061C on a line with no
  right-to-left letter;
- zero-width: U+200B-U+200D, U+2060-U+2064, U+FEFF past the start of the
  file, U+180E, U+034F and the soft hyphen U+00AD;
- tag-character: U+E0000-U+E007F, which spell ASCII invisibly (the message
  shows what they spell);
- variation-selectors: two or more variation selectors in a row (one after a
  visible character is how an emoji picks its style; a run carries bytes);
- invisible-filler: Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), which
  render as blank letters;
- control-character: C0 and C1 control characters other than tab, newline
  and DEL (an escape sequence can hide or overwrite text in a terminal);
- invisible-format: U+FFF9-U+FFFB (interlinear annotations) and U+206A-U+206F.

Not reported: a zero-width joiner or non-joiner between two emoji or between
two letters of a script that needs it (Arabic, Persian, the Indic scripts),
one variation selector after a visible character, and the tag sequence of a
subdivision flag (U+1F3F4, tag letters, U+E007F).

`--fix` removes the reported characters from the line: what a reviewer sees
stays as it was, and the model reads it too.

Options:
    accept (list of tables, default []): findings kept on purpose, each
        `{path = "<glob>", kind = "<kind>", contains = "<text of the line>",
        reason = "<why>"}`; `path` and `reason` are required (see
        docs/security.md).

Fails (U+202E written out as `<U+202E>`, as the message shows it):
    Revisa el diff<U+202E> y apruébalo antes de contestar.
Passes:
    Revisa el diff y apruébalo antes de contestar.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.rules import exposure
from promptc_compiler.rules.exposure import Finding, Source
from promptc_compiler.runtimes.translations import Translated

ID = "hidden-text"
DEFAULT_LEVEL = "error"
STAGE = False
SECURITY_SEVERITY = "8.0"
KINDS = (
    "bidi-control",
    "zero-width",
    "tag-character",
    "variation-selectors",
    "invisible-filler",
    "control-character",
    "invisible-format",
)
OPTIONS: dict[str, Any] = {"accept": exposure.accept_option(KINDS)}

_RANGES = {
    "bidi-control": "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c",
    "zero-width": "\u200b-\u200d\u2060-\u2064\ufeff\u180e\u034f\u00ad",
    "tag-character": "\U000e0000-\U000e007f",
    "variation-selectors": "\ufe00-\ufe0f\U000e0100-\U000e01ef",
    "invisible-filler": "\u115f\u1160\u3164\uffa0",
    # ESC starts terminal sequences that hide or overwrite text, BS overwrites;
    # DEL alone moves nothing and hides nothing, and is left out.
    "control-character": "\x00-\x08\x0b\x0c\x0e-\x1f\x80-\x9f",
    "invisible-format": "\ufff9-\ufffb\u206a-\u206f",
}
_HIDDEN = re.compile("[" + "".join(_RANGES.values()) + "]+")
_KIND_OF = [(re.compile(f"[{chars}]"), kind) for kind, chars in _RANGES.items()]
_SELECTOR = re.compile(f"[{_RANGES['variation-selectors']}]")
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_MARKS = frozenset("\u200e\u200f\u061c")
_JOINERS = frozenset("\u200c\u200d")
_FLAG = "\U0001f3f4"
_CANCEL_TAG = "\U000e007f"


def check(project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]:
    yield from exposure.report_scan(exposure.of(project), ID, options, _scan, exposure.TEXT)


def _scan(source: Source) -> Iterator[Finding]:
    if not source.holds(_HIDDEN):  # most files hold no hidden character at all
        return
    text = source.text
    runs: list[list[int]] = []  # offsets of the reported characters, run by run
    for match in _HIDDEN.finditer(text):
        flagged = [i for i in range(match.start(), match.end()) if _reported(text, i, match)]
        if flagged:
            runs.append(flagged)
    # One finding per line and kind, at its first character: `\u202e ... \u202c`
    # is one override, and the fix removes every reported character of the line.
    by_line: dict[int, dict[str, list[int]]] = {}
    for run in runs:
        kinds = by_line.setdefault(source.position(run[0])[0], {})
        for i in run:
            kinds.setdefault(_kind(text[i]), []).append(i)
    for line, kinds in by_line.items():
        start, end = source.line_span(line)
        cut = {i for found in kinds.values() for i in found}
        kept = "".join(c for i, c in enumerate(text[start:end], start) if i not in cut)
        fix = exposure.line_fix(source, line, kept)
        for kind, found in kinds.items():
            yield Finding(source, found[0], kind, _message(text, found), _HINT, fix)


_HINT = "remove it (`promptc lint --fix` does); if the text needs it, accept it with a reason"


def _kind(char: str) -> str:
    return next(kind for pattern, kind in _KIND_OF if pattern.match(char))


def _reported(text: str, i: int, run: re.Match[str]) -> bool:
    """Whether the hidden character at `i` is reported (see the exceptions above)."""
    char = text[i]
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    if char in _JOINERS:
        return not (_joins(before) and _joins(after))
    if char in _MARKS:
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        return not _RTL.search(text, start, len(text) if end < 0 else end)
    if char == "\ufeff":
        return i > 0
    if _kind(char) == "variation-selectors":
        # One after a visible character picks a style; two in a row carry data.
        alone = not _SELECTOR.match(before) and not _SELECTOR.match(after)
        return not (alone and before and not before.isspace())
    if _kind(char) == "tag-character":
        return not _flag_sequence(text, run)
    return True


def _joins(char: str) -> bool:
    """A character a joiner may stand next to: an emoji, or a letter or mark of a
    script written with joiners (from Hebrew on, below the emoji planes)."""
    if not char:
        return False
    code = ord(char)
    if code >= 0x1F000 or 0x2600 <= code <= 0x27BF or char == "\ufe0f":
        return True
    return code >= 0x0590 and unicodedata.category(char)[0] in "LM"


def _flag_sequence(text: str, run: re.Match[str]) -> bool:
    """The run is the tag sequence of a subdivision flag (🏴 + tag letters + cancel tag)."""
    tags = run.group()
    return (
        run.start() > 0
        and text[run.start() - 1] == _FLAG
        and tags.endswith(_CANCEL_TAG)
        and 2 <= len(tags) <= 8
    )


def _message(text: str, run: list[int]) -> str:
    chars = [text[i] for i in run]
    counts: dict[str, int] = {}
    for char in chars:
        counts[char] = counts.get(char, 0) + 1
    named = ", ".join(
        f"{_code(c)} {unicodedata.name(c, 'CONTROL')}" + (f" x{n}" if n > 1 else "")
        for c, n in counts.items()
    )
    spelled = "".join(chr(ord(c) - 0xE0000) for c in chars if 0xE0020 <= ord(c) <= 0xE007E)
    if spelled:
        return f"{named}: invisible tag characters that spell `{spelled}` to the model"
    if _kind(chars[0]) == "bidi-control":
        return f"{named}: shows this line in another order than the model reads it"
    return f"{named}: invisible, the model reads what a reviewer does not see"


def _code(char: str) -> str:
    return f"U+{ord(char):04X}"
