"""The syntax of a body as OpenCode and promptc read it: code, constructs, command syntax.

One module says where code stands in a markdown body, what promptc's own
constructs look like, and what OpenCode fills in a command's body, so that
the composer (promptc_compiler.core.scan), the snippet search
(promptc_compiler.core.snippet), the import (promptc_compiler.runtimes.reading),
the rules' text search (promptc_compiler.rules.exposure) and
the targets all read a body alike.

Code, as CommonMark has it (https://spec.commonmark.org/0.31.2/):

- A fenced code block opens with a run of three or more backticks or tildes
  indented at most three columns from the start of its container (a tab
  moves to the next multiple of four): at the top level, at most three
  spaces; inside a list item, at most three more than the column where the
  item's text starts, so a fence under `- item` or `10. step` opens at two to
  five and four to seven spaces. A backtick fence's info string holds no
  backtick (such a line is inline code). The block runs to a closing fence of
  the same character at least as long, indented at most three columns in the
  same container and followed by blanks only; to a line indented less than
  its list item's text, which ends the item; or to the end of the body.
  A line indented four or more columns past its container is text (an
  indented code block, or a paragraph's continuation), never a fence.
  Block quotes are not read: a fence after `>` is text.
- An inline code span: a run of N backticks up to the next run of exactly N,
  within one paragraph.

Why the list items are kept: in a nested list (`- a`, `  - b`, `    ```sh`)
a fence stands at four spaces and opens a block in `b`, while at the top
level the same four spaces are text; neither "any indentation" nor "at most
three spaces" reads both.

promptc's constructs (promptc_compiler.core.scan parses them): `<<name>>` and
`<<name(param=value)>>` placeholders, `<% ... %>` tags and `<# ... #>`
comments, each opened by OPENER; a fragment's or parameter's NAME.

What OpenCode fills in a command's body (its packages/opencode/src/session/
prompt.ts and config/markdown.ts): `$ARGUMENTS`, the
positional `$1`, `$2`..., `` !`cmd` `` (the command's output) and `@path`
(the file attached). An agent's body reaches the model as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

# --- promptc's constructs ---------------------------------------------------------------------

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# What opens a construct: `<<` a placeholder, `<%` a tag, `<#` a comment.
OPENER = re.compile(r"<[<%#]")

# --- what OpenCode fills in a command's body ---------------------------------------------------

ARGUMENTS = "$ARGUMENTS"
# `$1`, `$2`...: OpenCode's positional arguments. OpenCode's own pattern is
# `\$(\d+)`; promptc leaves `$$1` and `\$1` out, as text a writer escaped.
_DOLLAR = r"(?<![\\$])\$"
POSITIONAL = re.compile(_DOLLAR + r"(\d+)")
# `` !`cmd` ``: OpenCode runs the command and puts its output in its place.
# As OpenCode's own pattern, the command may span lines.
SHELL = re.compile(r"!`([^`]+)`")
# `@path`: OpenCode attaches the file (not after a letter, a digit, `_` or a
# backtick; a trailing `.` or `,` ends the path), OpenCode's own pattern.
FILE = re.compile(r"(?<![\w`])@(\.?[^\s`,.]*(?:\.[^\s`,.]+)*)")


def shell_lines(body: str) -> list[str]:
    """The command of each `` !`cmd` `` in a body, each once, in order."""
    return list(dict.fromkeys(SHELL.findall(body)))


def positionals(body: str) -> list[str]:
    """The number of each positional `$N` in a body, each once, in order."""
    return list(dict.fromkeys(POSITIONAL.findall(body)))


def positional(number: str) -> re.Pattern[str]:
    """The positional `$<number>` alone (not the start of a longer number)."""
    return re.compile(_DOLLAR + re.escape(number) + r"(?!\d)")


# --- code --------------------------------------------------------------------------------------


class Fence(NamedTuple):
    """A fenced code block: lines [start, end) of the body, its fences included."""

    start: int
    end: int
    closed: bool  # False: it runs to the end of the body (or of its list item)


_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")
_LIST_ITEM = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t]|$)")
# An ATX heading (`# Title`), at the top level: a paragraph never goes on past one.
HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")  # after a line's indentation
_THEMATIC_BREAK = re.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
# First characters of what may open a fence, a list item, a heading or a thematic break.
_MARKERS = frozenset("`~-+*_#0123456789")
_ITEM_STARTS = frozenset("-+*0123456789")
# First characters of a line that may open a fence or a list item: a line
# starting with anything else, outside code and lists, is text.
_BLOCK_STARTS = frozenset(" \t`~-+*0123456789")


def fenced_blocks(lines: Sequence[str]) -> list[Fence]:
    """The fenced code blocks of a body split into lines, in order."""
    marks = [i for i, line in enumerate(lines) if "```" in line or "~~~" in line]
    return list(_Blocks(lines, marks).run()) if marks else []


def code_lines(lines: Sequence[str]) -> set[int]:
    """Indices of the lines inside fenced code blocks, fences included."""
    return {i for fence in fenced_blocks(lines) for i in range(fence.start, fence.end)}


def _indent(text: str, start: int = 0) -> tuple[int, int]:
    """(columns, characters) of the leading blanks of text that stands at column
    `start` of its line, a tab moving to the next multiple of 4."""
    skip = len(text) - len(text.lstrip(" \t"))
    if "\t" not in text[:skip]:
        return skip, skip  # spaces only: the common case
    column = start
    for count, char in enumerate(text):
        if char == " ":
            column += 1
        elif char == "\t":
            column += 4 - column % 4
        else:
            return column - start, count
    return column - start, len(text)


class _Open(NamedTuple):
    start: int
    marker: str
    base: int  # the column its container's text starts at


class _Blocks:
    """One pass over the lines, keeping the open list items (the column each
    item's text starts at) and the open fence.

    Only lines that hold a fence's characters (`marks`) open or close a
    block, and what decides them is the list items open there. A line of text
    at the top level right after a blank line closes every item, whatever
    came before: the lines before the last such line ahead of a mark are not
    read (most of a body). Inside a block at the top level, only a mark can
    close it; inside a list item, every line is read (one less indented ends
    the item and the block).
    """

    def __init__(self, lines: Sequence[str], marks: Sequence[int]) -> None:
        self.lines = lines
        self.marks = marks
        self.items: list[int] = []
        self.fence: _Open | None = None
        self.paragraph = False  # the line before is paragraph text (a lazy line may follow)
        self.bare = False  # the line before opened a list item with no text

    def run(self) -> Iterator[Fence]:
        lines = self.lines
        index = 0
        for mark in self.marks:
            if mark < index:
                continue  # read as the code of a block in a list item
            if self.fence is None:
                index = self._restart(index, mark)
            elif self.fence.base == 0:
                index = mark
            while index <= mark:
                yield from self._line(index, lines[index])
                index += 1
        while self.fence is not None and self.fence.base > 0 and index < len(lines):
            yield from self._line(index, lines[index])
            index += 1
        if self.fence is not None:
            yield Fence(self.fence.start, len(lines), False)

    def _restart(self, index: int, mark: int) -> int:
        """Where to read on from, to reach `mark`: after the last line from `index`
        that is text at the top level right after a blank line (the state after
        it is known), else `index`."""
        lines = self.lines
        for at in range(mark - 1, index - 1, -1):
            first = lines[at][:1]
            if first in _MARKERS or first.isspace() or not first:
                continue
            if at == 0 or not lines[at - 1].strip():
                self.items.clear()
                self.paragraph, self.bare = True, False
                return at + 1
        return index

    def _line(self, index: int, line: str) -> Iterator[Fence]:
        if self.fence is not None:
            closed = self._inside(index, line)
            if closed is not None:
                yield closed
            if self.fence is not None or (closed is not None and closed.end == index + 1):
                return  # code, or the closing fence itself
        first = line[:1]
        if not self.items and first not in _BLOCK_STARTS:
            self.paragraph = first != "" and first != "#"
            return  # text at the top level: the common case
        self._outside(index, line)

    def _inside(self, index: int, line: str) -> Fence | None:
        """The block, when this line ends it: a closing fence, or a line outside its item."""
        fence = self.fence
        assert fence is not None
        column, skip = _indent(line)
        if skip == len(line):
            return None  # blank: code
        if column < fence.base:  # the list item ends, and the block with it
            self.fence = None
            return Fence(fence.start, index, False)
        rest = line[skip:]
        if column - fence.base <= 3 and rest.startswith(fence.marker[0]):
            run = len(rest) - len(rest.lstrip(fence.marker[0]))
            if run >= len(fence.marker) and not rest[run:].strip(" \t"):
                self.fence = None
                return Fence(fence.start, index + 1, True)
        return None

    def _outside(self, index: int, line: str) -> None:
        column, skip = _indent(line)
        bare, self.bare = self.bare, False
        if skip == len(line):
            if bare:
                del self.items[-1:]  # an item begins with one blank line at most
            self.paragraph = False
            return
        items = self.items
        depth = len(items)
        while depth and items[depth - 1] > column:
            depth -= 1  # the items this line is not indented into
        base = items[depth - 1] if depth else 0
        if column - base > 3:
            if not self.paragraph:  # an indented code line (else a paragraph goes on)
                del items[depth:]
            return
        if self.paragraph and depth == len(items) and _SETEXT.match(line[skip:]):
            self.paragraph = False  # the paragraph was a heading
            return
        if self._opens(index, line[skip:], column, depth):
            return
        if self.paragraph and depth < len(items):
            return  # a lazy continuation line: the items stay open
        del items[depth:]
        self.paragraph = True

    def _opens(self, index: int, rest: str, column: int, depth: int) -> bool:
        """Whether `rest`, standing at `column` in the item `depth` deep, opens a
        fence, a list item (and what follows its marker), or a thematic break."""
        opened = False
        while True:
            first = rest[:1]
            if first not in _MARKERS:
                return opened  # text: the common case
            fence = _fence(rest) if first in "`~" else None
            if fence is not None:
                del self.items[depth:]
                self.fence = _Open(index, fence, self.items[-1] if self.items else 0)
                self.paragraph = False
                return True
            if first in "-*_#" and (_THEMATIC_BREAK.match(rest) or _HEADING.match(rest)):
                del self.items[depth:]
                self.paragraph = False
                return True
            item = _LIST_ITEM.match(rest) if first in _ITEM_STARTS else None
            after = rest[item.end() :] if item else ""
            # The first item of a line that would go on a paragraph of its own
            # container (the line indented into every open item) must be one
            # that may interrupt it.
            interrupting = self.paragraph and not opened and depth == len(self.items)
            if item is None or (interrupting and not _interrupts(item, after)):
                return opened
            del self.items[depth:]
            width, skip = _indent(after, column + item.end())
            text = skip < len(after) and width <= 4  # not indented code, nor nothing
            if not text:
                width, skip = 1, min(1, len(after))
            column += item.end() + width
            self.items.append(column)
            self.paragraph = text
            self.bare = skip == len(after)
            opened = True
            rest, depth = after[skip:], len(self.items)


def _interrupts(item: re.Match[str], after: str) -> bool:
    """Whether a list item may start right after a paragraph line (CommonMark:
    not an empty one, nor an ordered one that starts at another number than 1)."""
    marker = item.group()
    return bool(after.strip()) and (marker[0] in "-+*" or marker[:-1].lstrip("0") == "1")


def _fence(rest: str) -> str | None:
    """The fence a line opens, given its text after its indentation."""
    match = _FENCE.match(rest)
    if match is None:
        return None
    marker, info = match.groups()
    if marker[0] == "`" and "`" in info:
        return None  # a backtick fence's info string holds no backtick: inline code
    return marker


# --- inline code --------------------------------------------------------------------------------

_BACKTICKS = re.compile(r"`+")


def code_spans(text: str, stop: int | None = None) -> list[tuple[int, int]]:
    """The inline code spans of a paragraph as (start, end) offsets, CommonMark style.

    Only spans that open before `stop` are found (all, without it): a caller
    that looks no further saves reading a long paragraph to its end.
    """
    stop = len(text) if stop is None else stop
    spans: list[tuple[int, int]] = []
    pos = 0
    while (run := _BACKTICKS.search(text, pos)) is not None and run.start() < stop:
        start, end = run.span()
        if start > 0 and text[start - 1] == "\\":
            start += 1  # an escaped backtick is text; the rest of the run may open
        close = _closing_run(text, end, end - start) if start < end else None
        if close is None:
            pos = end  # no run of the same length follows: the backticks are text
            continue
        spans.append((start, close))
        pos = close
    return spans


def in_code_span(text: str, index: int) -> bool:
    """Whether character `index` of a paragraph (or a line) is inside an inline code span."""
    return any(start <= index < end for start, end in code_spans(text, index + 1))


def _closing_run(text: str, start: int, length: int) -> int | None:
    """The end of the first run of exactly `length` backticks from `start`."""
    for run in _BACKTICKS.finditer(text, start):
        if run.end() - run.start() == length:
            return run.end()
    return None
