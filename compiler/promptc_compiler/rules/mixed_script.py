"""Words that mix Latin letters with Cyrillic or Greek look-alikes (homoglyphs).

`p\u0430ypal` with a Cyrillic `\u0430` reads as `paypal` to a reviewer, but it is
another word to the model, to `grep` and to every pattern a reviewer or a
filter looks for: a way to slip a domain, a command or a keyword past them.
A word is reported when it holds Latin letters and at least one Cyrillic or
Greek letter that looks like a Latin one (the Cyrillic a, e, o, p, c, y, x,
i, the Greek o, v, p ...).
Words written wholly in Cyrillic or Greek, and Greek letters that look like
no Latin letter (`Δt`, `μs`, `λx`), are not reported.

`--fix` replaces the look-alikes with the Latin letters they imitate.

Options:
    accept (list of tables, default []): findings kept on purpose (see
        hidden-text and docs/security.md).

Fails (the `\u0430` of `p\u0430ypal` is Cyrillic):
    Inicia sesión en https://p\u0430ypal.com antes de pagar.
Passes:
    Inicia sesión en https://paypal.com antes de pagar.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.rules import exposure
from promptc_compiler.rules.exposure import Finding, Source
from promptc_compiler.runtimes.translations import Translated

ID = "mixed-script"
DEFAULT_LEVEL = "warning"
STAGE = False
SECURITY_SEVERITY = "6.5"
KINDS = ("homoglyph",)
OPTIONS: dict[str, Any] = {"accept": exposure.accept_option(KINDS)}

# Cyrillic and Greek letters a reader takes for Latin ones, with the Latin letter.
_CODES = {
    0x0430: "a",
    0x0435: "e",
    0x043E: "o",
    0x0440: "p",
    0x0441: "c",
    0x0443: "y",
    0x0445: "x",
    0x0456: "i",
    0x0458: "j",
    0x0455: "s",
    0x0501: "d",
    0x051B: "q",
    0x051D: "w",
    0x04BB: "h",
    0x04CF: "l",
    0x04AF: "y",
    0x0475: "v",
    0x0410: "A",
    0x0412: "B",
    0x0415: "E",
    0x041A: "K",
    0x041C: "M",
    0x041D: "H",
    0x041E: "O",
    0x0420: "P",
    0x0421: "C",
    0x0422: "T",
    0x0425: "X",
    0x0406: "I",
    0x0408: "J",
    0x0405: "S",
    0x0423: "Y",
    0x03BF: "o",
    0x03B1: "a",
    0x03B9: "i",
    0x03BD: "v",
    0x03C1: "p",
    0x03C4: "t",
    0x03BA: "k",
    0x03C5: "u",
    0x03C7: "x",
    0x0391: "A",
    0x0392: "B",
    0x0395: "E",
    0x0396: "Z",
    0x0397: "H",
    0x0399: "I",
    0x039A: "K",
    0x039C: "M",
    0x039D: "N",
    0x039F: "O",
    0x03A1: "P",
    0x03A4: "T",
    0x03A5: "Y",
    0x03A7: "X",
}
LOOK_ALIKES = {chr(code): latin for code, latin in _CODES.items()}
# Only the foreign letters are searched for (rare in most bundles); each hit is
# widened to its word by hand, which keeps the scan linear.
_FOREIGN = re.compile("[\u0370-\u03ff\u0400-\u052f]+")
_LATIN = re.compile("[A-Za-z\u00c0-\u024f]")


def check(project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]:
    yield from exposure.report_scan(exposure.of(project), ID, options, _scan, exposure.TEXT)


def _scan(source: Source) -> Iterator[Finding]:
    if not source.holds(_FOREIGN):  # most files hold no Greek or Cyrillic letter
        return
    text = source.text
    done = -1  # end of the last word looked at
    for match in _FOREIGN.finditer(text):
        if match.start() < done:
            continue
        start, end = _word(text, match.start(), match.end())
        done = end
        word = text[start:end]
        fakes = [i for i, char in enumerate(word) if char in LOOK_ALIKES]
        if not fakes or not _LATIN.search(word):
            continue
        latin = "".join(LOOK_ALIKES.get(char, char) for char in word)
        line = source.position(start)[0]
        fix = None
        if not _FOREIGN.search(latin):  # every foreign letter has a Latin twin
            line_start, line_end = source.line_span(line)
            fixed = text[line_start:start] + latin + text[end:line_end]
            fix = exposure.line_fix(source, line, fixed)
        letters = ", ".join(f"`{word[i]}` U+{ord(word[i]):04X}" for i in fakes)
        message = f"`{word}` reads as `{latin}` but holds {letters}"
        hint = f"write `{latin}` in Latin letters" if fix else None
        yield Finding(source, start + fakes[0], "homoglyph", message, hint, fix)


def _word(text: str, start: int, end: int) -> tuple[int, int]:
    """The word around text[start:end]: letters, marks and digits on both sides."""
    while start > 0 and _in_word(text[start - 1]):
        start -= 1
    while end < len(text) and _in_word(text[end]):
        end += 1
    return start, end


def _in_word(char: str) -> bool:
    return char.isalnum() or char == "_"
