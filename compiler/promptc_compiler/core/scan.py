"""Scan: find the composition constructs in a markdown body; everything else is text.

The scanner alone decides what is a construct, so that text which is not one
passes through byte for byte. Constructs, outside fenced code blocks and
inline code spans, each on one line:

- a placeholder: `<<` followed by optional blanks and a letter, `_` or a quote,
  up to the first `>>` on the same line that is not inside a quoted value.
  Valid ones are `<<name>>` and `<<name(param=value, ...)>>`, values being
  strings, numbers, true/false or variable names; anything else there is an
  error, never evaluated. A `<<name` that nothing closes is text, but noted
  (Scan.unclosed): where the name is one the body may use, compose reports it.
- a block tag: `<%` followed by a word, up to `%>`: if / elif / else / endif.
- a comment: `<#` up to `#>`; it produces nothing.

A backslash right before a construct (`\\<<name>>`) emits the construct as
text without the backslash. A line that holds only tags and comments
disappears whole, its newline included. A placeholder alone on its line keeps
the line's blanks around its expansion, or removes the line when it expands
to nothing at all (see compose.py).

Code follows CommonMark, as promptc_compiler.base.body_syntax reads it: a fenced code block
(a fence of three or more backticks or tildes, indented at most three columns
from its list item's text, to a closing fence of the same character at least
as long, or to the end of the body), and inline code (a run of N backticks up
to the next run of exactly N, within one paragraph).
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import TYPE_CHECKING, NamedTuple, NoReturn, TypeGuard

from promptc_compiler.base.body_syntax import HEADING, NAME, OPENER, code_spans, fenced_blocks
from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.limits import too_long
from promptc_compiler.base.suggest import did_you_mean

if TYPE_CHECKING:
    from promptc_compiler.core.loader import SourceFile

Value = str | int | float | bool

TAGS = ("if", "elif", "else", "endif")
USAGE = (
    "a placeholder is `<<name>>` or `<<name(param=value, ...)>>` whose values are "
    "strings, numbers, true, false or variable names; nothing else is evaluated"
)
# Real bodies hold tens of constructs; each costs a few objects in every later
# stage, so a machine-made body with hundreds of thousands would take seconds
# and hundreds of MB. Past this many the body is refused with one error.
MAX_CONSTRUCTS = 10_000
ESCAPE_HINT = "write `\\<<` (or `\\<%`, `\\<#`) to keep it as text, or put it in `code`"

_PLACEHOLDER_START = re.compile(r"<<[ \t]*(?=[A-Za-z_'\"])")
_UNCLOSED = re.compile(r"<<([A-Za-z_][A-Za-z0-9_]*)")
_RUN = re.compile(r"<+")
_DASHED = re.compile(r"(?:-[A-Za-z0-9_]+)+")  # right after a name: `review-steps`
_TAG_START = re.compile(r"<%[-+]?[ \t]*(?=[A-Za-z_])")
_TOKEN = re.compile(
    r"[ \t]*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<number>-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)(?![A-Za-z0-9_])"
    r"|(?P<string>\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
    r"|(?P<punct>[(),=]))"
)
QUOTED_LIMIT = 1000  # how far a quote may hide a closer; bounds the work per construct
_STRING_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t"}
_CONSTANTS: dict[str, Value] = {"true": True, "false": False, "True": True, "False": False}


# Text emitted as is: `body[start:end]` of the scanned body, or `own` when an
# escape or a comment cuts the run; (start, end, line, own).
#
# A literal holds offsets, not text: most of a body is literal, and a copy of
# it per scan would hold every body twice (and keep it alive after the body
# itself is let go; see loader.SourceFile). It is a plain tuple: the garbage
# collector stops tracking a tuple that holds only numbers and text, never an
# instance of a tuple's subclass (a NamedTuple), and a run keeps some eight
# literals per agent to its end (at 10,000 agents, 14% of the collector's time).
Literal = tuple[int, int, int, str | None]


def is_literal(segment: Segment) -> TypeGuard[Literal]:
    """A literal, not a placeholder or a tag (tuples of their own classes)."""
    return type(segment) is tuple


def literal_text(literal: Literal, body: str) -> str:
    """A literal's text, given the body it was scanned from."""
    start, end, _, own = literal
    return body[start:end] if own is None else own


class Arg(NamedTuple):
    """One `name=value` argument of a placeholder call."""

    name: str
    value: Value | None  # None when the value is a variable
    variable: str | None
    column: int  # of the parameter name
    value_column: int


class Placeholder(NamedTuple):
    """A `<<name>>` or `<<name(...)>>` placeholder where it stands in the body."""

    name: str
    args: tuple[Arg, ...]
    called: bool  # written with parentheses
    line: int
    column: int
    text: str  # as written, from `<<` to `>>`
    alone: bool  # the only thing on its line
    lead: str  # blanks before it, when alone
    trail: str  # blanks and newline after it, when alone

    @property
    def source(self) -> str:
        return self.lead + self.text + self.trail


class Tag(NamedTuple):
    """A `<% ... %>` block tag where it stands in the body."""

    keyword: str
    condition: str  # for if and elif
    line: int
    column: int
    condition_column: int
    text: str
    known: bool  # one of TAGS, written without errors


Segment = Literal | Placeholder | Tag


class Unclosed(NamedTuple):
    """`<<name` written with no `>>` to close it on its line: text, as `cat <<EOF`
    is, but a name the bundle knows there is a placeholder left open (compose.py)."""

    name: str
    line: int
    column: int


class Scan(NamedTuple):
    """A body cut into literal text, placeholders and tags, with the problems found."""

    segments: tuple[Segment, ...]
    problems: tuple[Problem, ...]
    blocks_ok: bool  # every if has its endif; else and elif are in place
    unclosed: tuple[Unclosed, ...] = ()

    @property
    def has_tags(self) -> bool:
        return any(isinstance(s, Tag) for s in self.segments)

    @property
    def placeholders(self) -> tuple[Placeholder, ...]:
        return tuple(s for s in self.segments if isinstance(s, Placeholder))


def scan_of(source: SourceFile) -> Scan:
    """The scan of a file's body, remembered with the file: every target's
    composition reads it, and a body let go is not read again for it."""
    held = source.held
    if held.scan is None:
        held.scan = scan(source.body, source.body_line)
    assert isinstance(held.scan, Scan)
    return held.scan


def scan(body: str, first_line: int) -> Scan:
    """Segments and problems of a body whose first line is file line `first_line`."""
    scanner = _Scanner(first_line)
    scanner.run(body)
    return scanner.result()


class _Construct(NamedTuple):
    """A construct found on one line: its span, its kind and what it became."""

    start: int
    end: int
    kind: str  # placeholder, bad, tag, comment, escape
    segment: _Call | Tag | None = None


class _Call(NamedTuple):
    """A placeholder as parsed, before its line tells whether it stands alone:
    the Placeholder is made once, when that is known."""

    name: str
    args: tuple[Arg, ...]
    called: bool
    line: int
    column: int
    text: str

    def placed(self, alone: bool = False, lead: str = "", trail: str = "") -> Placeholder:
        return Placeholder(
            self.name, self.args, self.called, self.line, self.column, self.text, alone, lead, trail
        )


class _Scanner:
    def __init__(self, first_line: int) -> None:
        self.first_line = first_line
        self.segments: list[Segment] = []
        self.problems: list[Problem] = []
        self.unclosed: list[Unclosed] = []
        self.body = ""
        self.starts: list[int] = []
        self.buffer: list[tuple[int, int]] = []  # spans of the body, in order
        self.buffer_line = first_line
        self.blocks_ok = True
        self.constructs = 0

    def result(self) -> Scan:
        self._flush()
        self._check_blocks()
        segments, problems = tuple(self.segments), tuple(self.problems)
        return Scan(segments, problems, self.blocks_ok, tuple(self.unclosed))

    # -- text -------------------------------------------------------------

    def _text(self, start: int, end: int, line: int) -> None:
        """Body text from offset start to end (a run of one line or more) as literal."""
        buffer = self.buffer
        if not buffer:
            self.buffer_line = line
        elif buffer[-1][1] == start:  # runs on from the last span: one span
            buffer[-1] = (buffer[-1][0], end)
            return
        buffer.append((start, end))

    def _flush(self) -> None:
        if self.buffer:
            body = self.body
            spans = self.buffer
            # Spans cut apart by an escape's backslash or a comment: text of its own.
            own = None if len(spans) == 1 else "".join(body[a:b] for a, b in spans)
            first, last = spans[0][0], spans[-1][1]
            self.segments.append((first, last, self.buffer_line, own))
        self.buffer = []

    def _add(self, segment: Segment) -> None:
        self._flush()
        self.segments.append(segment)

    def _dropped_newline(self, line: int) -> None:
        """A removed line: the text after it is a literal of its own, at its own line."""
        self._add((0, 0, line, ""))

    # -- blocks -----------------------------------------------------------

    def run(self, body: str) -> None:
        self.body = body
        # Past the last `<` no construct can start, and past the empty line after
        # it no paragraph that holds one goes on: the rest of the body is text,
        # never cut into lines (bodies hold their placeholders near the top).
        last = body.rfind("<")
        cut = body.find("\n\n", last) if last >= 0 else 0
        cut = len(body) if cut < 0 else cut
        lines = body[:cut].split("\n")
        ends = ["\n"] * (len(lines) - 1) + ["\n" if cut < len(body) else ""]
        # Offset of each line in the body; the last entry is where the rest starts.
        starts = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
        starts[-1] = min(starts[-1], len(body))
        self.starts = starts
        fences = fenced_blocks(lines)
        ends_of = {fence.start: fence.end for fence in fences}
        next_fence = iter([*(fence.start for fence in fences), len(lines)])
        limit = next(next_fence)  # where the next fenced block starts
        index = 0
        while index < len(lines):
            if starts[index] > last:
                break
            if index in ends_of:  # a fenced block: text, whatever it holds
                end = ends_of[index]
                self._text(starts[index], starts[end], self._number(index))
                index = end
                limit = next(next_fence)
                continue
            if not lines[index].strip():
                self._text(starts[index], starts[index + 1], self._number(index))
                index += 1
                continue
            stop = _paragraph_end(lines, index, limit)
            self._paragraph(lines[index:stop], ends[index:stop], index)
            index = stop
        if index < len(lines) or cut < len(body):
            self._text(starts[index], len(body), self._number(index))

    def _number(self, index: int) -> int:
        return self.first_line + index

    def _paragraph(self, lines: list[str], ends: list[str], first: int) -> None:
        text = "\n".join(lines)
        # The common case: nothing can start a construct (or the budget is spent).
        if "<" not in text or self.constructs > MAX_CONSTRUCTS:
            # as its lines one by one
            self._text(self.starts[first], self.starts[first + len(lines)], self._number(first))
            return
        end_of_last = text.find("\n", text.rfind("<"))
        stop = len(text) if end_of_last < 0 else end_of_last
        spans = code_spans(text, stop) if "`" in text else []
        base = self.starts[first]
        k = 0
        pending = first  # the first line not emitted yet: the lines between are text
        for at in [first + i for i, line in enumerate(lines) if "<" in line]:
            if pending < at:
                self._text(self.starts[pending], self.starts[at], self._number(pending))
            line = lines[at - first]
            offset = self.starts[at] - base  # of the line in the paragraph's text
            while k < len(spans) and spans[k][1] <= offset:
                k += 1
            protected = []
            for start, end in spans[k:]:
                if start >= offset + len(line):
                    break
                protected.append((max(start - offset, 0), min(end - offset, len(line))))
            self._line(line, ends[at - first], self._number(at), protected, self.starts[at])
            pending = at + 1
        if pending < first + len(lines):
            end = self.starts[first + len(lines)]
            self._text(self.starts[pending], end, self._number(pending))

    # -- one line ---------------------------------------------------------

    def _line(
        self, text: str, end: str, number: int, protected: list[tuple[int, int]], base: int
    ) -> None:
        """One line of a paragraph, standing at offset `base` of the body."""
        found = self._constructs(text, number, protected)
        if not found:
            self._text(base, base + len(text) + len(end), number)
            return
        rest = "".join(text[a:b] for a, b in _gaps(found, len(text)))
        blank = not rest.strip()
        kinds = {c.kind for c in found}
        if blank and kinds <= {"tag", "comment"}:
            for construct in found:
                if isinstance(construct.segment, Tag):
                    self._add(construct.segment)
            if end:
                self._dropped_newline(number)
            return
        if blank and len(found) == 1 and isinstance(found[0].segment, _Call):
            lead, trail = text[: found[0].start], text[found[0].end :] + end
            self._add(found[0].segment.placed(True, lead, trail))
            return
        self._inline(text, end, number, found, base)

    def _inline(self, text: str, end: str, number: int, found: list[_Construct], base: int) -> None:
        last = 0
        for construct in found:
            self._text(base + last, base + construct.start, number)
            last = construct.end
            if construct.kind == "escape":
                self._text(base + construct.start + 1, base + construct.end, number)
            elif construct.kind == "bad":
                self._text(base + construct.start, base + construct.end, number)
            elif isinstance(construct.segment, _Call):
                self._add(construct.segment.placed())
            elif construct.segment is not None:
                self._add(construct.segment)
        self._text(base + last, base + len(text) + len(end), number)

    def _constructs(
        self, text: str, number: int, protected: list[tuple[int, int]]
    ) -> list[_Construct]:
        if self.constructs > MAX_CONSTRUCTS:  # reported once, where it was spent
            return []
        return self._read(text, number, protected)

    def _read(self, text: str, number: int, protected: list[tuple[int, int]]) -> list[_Construct]:
        found: list[_Construct] = []
        marks = _Marks(text)
        starts = [a for a, _ in protected]
        pos = 0
        while (match := OPENER.search(text, pos)) is not None:
            start = match.start()
            i = bisect.bisect_right(starts, start)
            if i and start < protected[i - 1][1]:  # inside inline code
                pos = protected[i - 1][1]
                continue
            if text.startswith("<<<", start):
                # A run of `<`: each `<<` in it stands by another `<` (a here-string,
                # never a placeholder, _construct_end), so none opens anything or
                # is noted unclosed; the run's last `<` may open a tag or comment.
                run = _RUN.match(text, start)
                pos = (run.end() if run else start + 3) - 1
                continue
            end = _construct_end(marks, start)
            if end is None or (i < len(starts) and starts[i] < end):
                self._note_unclosed(text, start, number, end is None)
                pos = start + 1
                continue
            if start > 0 and text[start - 1] == "\\":
                found.append(_Construct(start - 1, end, "escape"))
            else:
                self.constructs += 1
                if self.constructs > MAX_CONSTRUCTS:
                    self._over_budget(number, start + 1)
                    break
                found.append(self._construct(text, start, end, number))
            pos = end
        return found

    def _note_unclosed(self, text: str, start: int, number: int, open_: bool) -> None:
        """Notes `<<name`, the name right after `<<` (`cout << x` is C++), where no
        `>>` closes it on its line and no backslash escapes it."""
        match = _UNCLOSED.match(text, start) if open_ else None
        if match and not (start > 0 and text[start - 1] in "\\<"):
            self.unclosed.append(Unclosed(match.group(1), number, start + 1))

    def _over_budget(self, line: int, column: int) -> None:
        self._problem(
            line,
            column,
            f"more than {MAX_CONSTRUCTS:,} placeholders, tags and comments in one body; "
            "the rest of it is not composed",
            "split the text into fragments, or escape text that only looks like a "
            "construct (`\\<<`)",
        )

    def _construct(self, text: str, start: int, end: int, number: int) -> _Construct:
        opener = text[start : start + 2]
        if opener == "<#":
            return _Construct(start, end, "comment")
        if opener == "<%":
            tag = self._tag(text[start:end], number, start + 1)
            return _Construct(start, end, "tag", tag)
        placeholder = self._placeholder(text[start:end], number, start + 1)
        if placeholder is None:
            return _Construct(start, end, "bad")
        return _Construct(start, end, "placeholder", placeholder)

    def _problem(self, line: int, column: int, message: str, hint: str | None = None) -> None:
        self.problems.append(Problem(line, column, message, hint))

    # -- tags -------------------------------------------------------------

    def _tag(self, text: str, line: int, column: int) -> Tag:
        inner = text[2:-2]
        control = inner[:1] in ("-", "+")
        word = NAME.search(inner)
        assert word is not None  # guaranteed by _TAG_START
        keyword = word.group(0)
        condition = inner[word.end() :].strip()
        condition_column = column + 2 + word.end() + _leading_blanks(inner[word.end() :])
        known = keyword in TAGS and not control
        if control:
            self._problem(
                line,
                column,
                f"`<%{inner[0]}` whitespace control is not supported: a line that holds "
                "only tags disappears whole, and other tags never touch blanks",
            )
        elif keyword not in TAGS:
            hint = did_you_mean(keyword, TAGS)
            self._problem(
                line,
                column,
                f"unknown tag `{keyword}`{hint}: tags are if, elif, else and endif",
                ESCAPE_HINT,
            )
        elif keyword in ("if", "elif") and not condition:
            self._problem(line, column, f"`{keyword}` needs a condition")
            known = False
        elif keyword in ("else", "endif") and condition:
            self._problem(line, condition_column, f"`{keyword}` takes no condition")
            known = False
        return Tag(keyword, condition, line, column, condition_column, text, known)

    def _check_blocks(self) -> None:
        stack: list[tuple[Tag, bool]] = []  # open if, and whether its else was seen
        for segment in self.segments:
            if not isinstance(segment, Tag) or segment.keyword not in TAGS:
                continue
            if segment.keyword == "if":
                stack.append((segment, False))
                continue
            if not stack:
                self._block_error(segment, f"`{segment.keyword}` without an open `if`")
                continue
            opener, seen_else = stack[-1]
            if segment.keyword == "endif":
                stack.pop()
            elif seen_else:
                self._block_error(
                    segment,
                    f"`{segment.keyword}` after the `else` of the `if` at line {opener.line}",
                )
            elif segment.keyword == "else":
                stack[-1] = (opener, True)
        for opener, _ in stack:
            self._block_error(opener, "`if` is never closed: add `<% endif %>`")

    def _block_error(self, tag: Tag, message: str) -> None:
        self.blocks_ok = False
        self._problem(tag.line, tag.column, message)

    # -- placeholders -----------------------------------------------------

    def _placeholder(self, text: str, line: int, column: int) -> _Call | None:
        try:
            name, called, args = _Parser(text, column).parse()
        except _SyntaxProblem as problem:
            self._problem(
                line,
                problem.column,
                f"invalid placeholder `{text}`: {problem}; {USAGE}",
                ESCAPE_HINT,
            )
            return None
        return _Call(name, args, called, line, column, text)


def _leading_blanks(text: str) -> int:
    return len(text) - len(text.lstrip(" \t"))


def _gaps(found: list[_Construct], length: int) -> list[tuple[int, int]]:
    gaps, last = [], 0
    for construct in found:
        gaps.append((last, construct.start))
        last = construct.end
    gaps.append((last, length))
    return gaps


def _paragraph_end(lines: list[str], index: int, limit: int) -> int:
    """A paragraph: consecutive non-blank lines up to a fenced block (at `limit`);
    a heading stands alone."""
    if HEADING.match(lines[index]):
        return index + 1
    stop = index + 1
    while stop < limit:
        line = lines[stop]
        first = line[:1]
        if first and first != "#" and not first.isspace():
            stop += 1  # text from its first character: neither blank nor a heading
            continue
        if not line.strip() or (line.lstrip(" \t")[:1] == "#" and HEADING.match(line)):
            break
        stop += 1
    return stop


class _Marks:
    """Where the next closer, `<<` or quote stands on one line from an offset.

    Each literal's last answer is kept with the offset it was asked from: the
    constructs of a line are read from left to right, so each literal is
    searched for over each stretch of the line once, and a line full of
    unclosed `<<` stays linear. A literal is looked for only when asked (a
    tag's line never looks for `>>` or `<<`), with str.find: a line holds one
    or two of each, and a regular expression's scan and match objects, or a
    list of every position, cost several times as much.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: dict[str, tuple[int, int]] = {}  # literal -> (asked from, where; -1: none)

    def next(self, key: str, start: int) -> int | None:
        """Where the first `key` (`>>`, `%>`, `#>`, `<<`, or "quote": either
        quote) stands from `start` on; overlaps count (`>>>` holds `>>` twice,
        as a closer may end either)."""
        if key != "quote":
            return self._find(key, start)
        single, double = self._find("'", start), self._find('"', start)
        if single is None or double is None:
            return double if single is None else single
        return min(single, double)

    def _find(self, literal: str, start: int) -> int | None:
        known = self.found.get(literal)
        # Asked from at most `start`, and nothing from there up to its answer.
        if known is not None and known[0] <= start and (known[1] < 0 or start <= known[1]):
            at = known[1]
        else:
            at = self.text.find(literal, start)
            self.found[literal] = (start, at)
        return None if at < 0 else at


def _construct_end(marks: _Marks, start: int) -> int | None:
    """End offset of the construct starting at `start`, or None when there is none."""
    text = marks.text
    opener = text[start : start + 2]
    if opener == "<#":
        comment_end = marks.next("#>", start + 2)
        return None if comment_end is None else comment_end + 2
    if opener == "<%":
        tag = _TAG_START.match(text, start)
        tag_end = _closing(marks, tag.end(), "%>") if tag else None
        return None if tag_end is None else tag_end + 2
    if (start > 0 and text[start - 1] == "<") or text[start + 2 : start + 3] == "<":
        return None  # `<<<` is a here-string, never a placeholder
    match = _PLACEHOLDER_START.match(text, start)
    close = _closing(marks, match.end(), ">>") if match else None
    if close is None:
        return None
    inner = marks.next("<<", start + 2)
    if inner is not None and inner <= close - 2:
        return None  # `a << b << c >>`: only the last `<<` can open
    return close + 2


def _closing(marks: _Marks, start: int, closer: str) -> int | None:
    """The first `closer` outside quotes (or simply the first, if a quote never closes)."""
    first = marks.next(closer, start)
    if first is None:
        return None
    quote = marks.next("quote", start)
    if quote is None or quote >= first:
        return first
    # From quote to quote: the closer is the first one outside quotes, within
    # QUOTED_LIMIT; a quote closes at the next of its kind after no backslash.
    text = marks.text
    limit = min(len(text), start + QUOTED_LIMIT)
    at = start
    while True:
        close = marks.next(closer, at)
        if close is not None and close < limit and (quote is None or close < quote):
            return close
        if quote is None or quote >= limit:
            return first
        opened = text[quote]
        end = text.find(opened, quote + 1, limit)
        while end >= 0 and text[end - 1] == "\\":
            end = text.find(opened, end + 1, limit)
        if end < 0:
            return first  # a quote left open: the first closer, as if there were none
        at = end + 1
        quote = marks.next("quote", at)


class _SyntaxProblem(Exception):
    def __init__(self, column: int, message: str) -> None:
        super().__init__(message)
        self.column = column


class _Parser:
    """`<<name>>` or `<<name(param=value, ...)>>`: a fixed grammar, no expressions."""

    def __init__(self, text: str, column: int) -> None:
        self.text = text
        self.column = column  # of `<<`
        self.pos = 2
        self.stop = len(text) - 2
        self.looked = -1  # the position `ahead` was read at
        self.ahead: tuple[bool, re.Match[str] | None] = (False, None)

    def parse(self) -> tuple[str, bool, tuple[Arg, ...]]:
        kind, name, at = self._next("a fragment name")
        if kind != "name":
            self._fail(f"expected a fragment name, found `{name}`", at)
        dashed = _DASHED.match(self.text, self.pos)
        if dashed:
            written = name + dashed.group()
            self._fail(
                f"a fragment name has no `-`: write `{written.replace('-', '_')}` "
                "(its path under fragments/ with `/` and `-` as `_`)",
                at,
            )
        called = self._peek() == "("
        args: tuple[Arg, ...] = ()
        if called:
            self._next("`(`")
            args = self._args()
        if self._peek() is not None:
            _, token, at = self._next("the end")
            self._fail(f"unexpected `{token}`", at)
        return name, called, args

    def _args(self) -> tuple[Arg, ...]:
        args: list[Arg] = []
        seen: set[str] = set()
        while self._peek() != ")":
            kind, name, column = self._next("a parameter name or `)`")
            if kind != "name":
                self._fail(
                    f"expected a parameter name, found `{name}` (write `param=value`)", column
                )
            if name in seen:
                self._fail(f"parameter '{name}' is given twice", column)
            seen.add(name)
            equals = self._next("`=`")
            if equals[1] != "=":
                self._fail(f"expected `=` after '{name}', found `{equals[1]}`", equals[2])
            args.append(self._value(name, column))
            if self._peek() == ",":
                self._next("`,`")
            elif self._peek() != ")":
                _, token, at = self._next("`,` or `)`")
                self._fail(f"expected `,` or `)`, found `{token}`", at)
        self._next("`)`")
        return tuple(args)

    def _value(self, param: str, column: int) -> Arg:
        kind, token, at = self._next("a value")
        if kind == "string":
            return Arg(param, _unquote(token, at), None, column, at)
        if kind == "number":
            if any(c in token for c in ".eE"):
                return Arg(param, float(token), None, column, at)
            refused = too_long(len(token.lstrip("+-")))
            if refused is not None:  # int() would raise (promptc_compiler.base.limits)
                self._fail(f"{refused}, for '{param}'", at)
            return Arg(param, int(token), None, column, at)
        if kind == "name" and token in _CONSTANTS:
            return Arg(param, _CONSTANTS[token], None, column, at)
        if kind == "name":
            return Arg(param, None, token, column, at)
        self._fail(f"expected a value for '{param}', found `{token}`", at)

    def _peek(self) -> str | None:
        """The next token, not taken: None at the end, `?` where none starts (no
        token starts with `?`: the caller's _next reports the character)."""
        end, match = self._ahead()
        if end:
            return None
        return "?" if match is None or match.lastgroup is None else match.group(match.lastgroup)

    def _ahead(self) -> tuple[bool, re.Match[str] | None]:
        """Whether only blanks are left, and the token that starts here (None where
        none does), read once at each position: most tokens are peeked at first."""
        if self.looked != self.pos:
            self.looked = self.pos
            end = not self.text[self.pos : self.stop].strip(" \t")
            self.ahead = (end, None if end else _TOKEN.match(self.text, self.pos, self.stop))
        return self.ahead

    def _next(self, wanted: str) -> tuple[str, str, int]:
        end, match = self._ahead()
        if end:
            self._fail(f"expected {wanted}, found `>>`", self.column + self.stop)
        if match is None or match.lastgroup is None:
            at = self.pos + _leading_blanks(self.text[self.pos :])
            self._fail(f"unexpected `{self.text[at]}`", self.column + at)
        self.pos = match.end()
        token = match.group(match.lastgroup)
        return match.lastgroup, token, self.column + match.start(match.lastgroup)

    def _fail(self, message: str, column: int | None = None) -> NoReturn:
        raise _SyntaxProblem(self.column if column is None else column, message)


def _unquote(token: str, column: int) -> str:
    out: list[str] = []
    i = 1
    while i < len(token) - 1:
        char = token[i]
        if char == "\\":
            escaped = token[i + 1]
            if escaped not in _STRING_ESCAPES:
                raise _SyntaxProblem(column + i, f"unsupported escape `\\{escaped}` in a string")
            out.append(_STRING_ESCAPES[escaped])
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)
