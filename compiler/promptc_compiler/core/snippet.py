"""Snippets: a fragment's text as it must appear, and every copy of it in an agent.

The required-snippet rule works on composed output, so a copy counts whether
a spec writes the placeholder or the text inline. Copies are found in the
composed body and traced back to the spec's own lines by what composition
recorded of each line (compose.BodyLines): a line of the spec's own text maps
to that line, and an expansion to the placeholder line that produced it.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
import operator
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptc_compiler.base.body_syntax import code_lines
from promptc_compiler.core import params as fragment_params
from promptc_compiler.core.compose import BodyLines
from promptc_compiler.core.loader import SourceFile
from promptc_compiler.core.project import Spec
from promptc_compiler.core.scan import Placeholder, scan, scan_of

THRESHOLD = 0.8  # whitespace-normalised similarity from which a block counts as a copy
PART = 0.25  # ...or the share of the snippet that, copied word for word, still counts
DRIFT = 2000  # pairs of characters inserted or deleted: a copy that differs more is a rewrite
MAX_WINDOW = 40  # lines: a copy re-wrapped narrower than this is not looked for
ANCHOR = 8  # characters: a copy keeps twice this in a row of the snippet's text
MANY_PIECES = 300  # from here the pieces are found in one pass (see _occurrences)


@dataclass(frozen=True)
class Snippet:
    """The configured fragment, rendered with the expected parameters."""

    name: str
    path: Path
    text: str
    body: str  # the fragment as written, <<slots>> and all, without surrounding blank lines
    slots: tuple[str, ...]  # the parameters that `pattern` reads where their slots are
    expected: Mapping[str, str]
    defaults: Mapping[str, str]
    allowed: Mapping[str, tuple[str, ...]]
    placeholder: str

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """The fragment with each parameter as a named group, to read the values a
        drifted copy holds: compiled when a copy asks (Python's compiler takes
        half a second over a fragment of 400 KB)."""
        return _pattern(self.body, self.slots)

    @functools.cached_property
    def target(self) -> _Target:
        """The text as windows are compared with it: built once, for every agent."""
        return _Target(self.text)


@dataclass(frozen=True)
class Copy:
    """One occurrence of the snippet in an agent, in file lines of its spec."""

    start: int
    end: int
    composed: int  # index of its first line in the composed body
    origin: str  # "call" (a placeholder), "text" (written inline), "nested" (another fragment)
    column: int = 1
    width: int = 0  # a call's length on its line
    text: str = ""
    args: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # name -> (value, column)

    @property
    def alone(self) -> bool:
        """Whether the copy owns its lines, so a fix may rewrite or delete them whole."""
        return self.origin == "text" or (
            self.origin == "call"
            and self.text.strip() == self.text[self.column - 1 :][: self.width]
        )


def declared_params(fragment: SourceFile) -> Mapping[str, Mapping[str, Any]]:
    """The `params` a fragment declares in its frontmatter: name -> {type, enum, default, ...}."""
    data = fragment.frontmatter.data if fragment.frontmatter else {}
    params = data.get("params")
    if not isinstance(params, Mapping):
        return {}
    return {k: (v if isinstance(v, Mapping) else {}) for k, v in params.items()}


def allowed_values(
    fragment: SourceFile, extra: Mapping[str, Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    """Allowed values per parameter: the fragment's declared `enum`, overridden by `extra`."""
    allowed = {
        name: tuple(fragment_params.render(v) for v in spec["enum"])
        for name, spec in declared_params(fragment).items()
        if isinstance(spec.get("enum"), list)
    }
    allowed.update({k: tuple(v) for k, v in extra.items()})
    return allowed


def render(fragment: SourceFile, values: Mapping[str, str]) -> str:
    """The fragment's text with its parameters filled in, without surrounding blank lines.

    The one place that renders a fragment, so it can call the composer
    instead once that renders a single fragment with parameters.
    """
    body = fragment.body
    parts: list[str] = []
    last = 0
    for start, end, name in _slots(body):
        if name in values:
            parts += [body[last:start], values[name]]
            last = end
    parts.append(body[last:])
    return "".join(parts).strip("\n")


def _slots(body: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each `<<name>>` of a fragment's body, a parameter's
    slot where the composer fills one: outside code, not escaped."""
    starts = list(itertools.accumulate((len(line) + 1 for line in body.split("\n")), initial=0))
    found = []
    for slot in scan(body, 1).placeholders:
        if not slot.called:
            start = starts[slot.line - 1] + slot.column - 1
            found.append((start, start + len(slot.text), slot.name))
    return found


def _pattern(body: str, names: Sequence[str]) -> re.Pattern[str]:
    parts: list[str] = []
    seen: set[str] = set()
    last = 0
    for start, end, name in _slots(body):
        if name not in names:
            continue
        parts.append(re.escape(body[last:start]))
        parts.append(f"(?P=p_{name})" if name in seen else f"(?P<p_{name}>[^\\n]+?)")
        seen.add(name)
        last = end
    parts.append(re.escape(body[last:]))
    return re.compile("".join(parts))


def make_snippet(
    name: str,
    fragment: SourceFile,
    params: Mapping[str, Any],
    allowed: Mapping[str, Sequence[str]],
) -> Snippet:
    """The snippet `name`, rendered with `params` over the fragment's declared defaults."""
    declared = declared_params(fragment)
    defaults = {
        k: fragment_params.render(v["default"]) for k, v in declared.items() if "default" in v
    }
    configured = {k: fragment_params.render(v) for k, v in params.items()}
    expected = {**defaults, **configured}
    # Parameters the fragment does not use as <<slots>> cannot be seen in its text.
    names = sorted(set(declared) | set(configured))
    # The placeholder names only declared parameters whose value is not the default.
    differs = {k: v for k, v in configured.items() if k in declared and defaults.get(k) != v}
    args = ", ".join(f'{k}="{v}"' for k, v in sorted(differs.items()))
    return Snippet(
        name=name,
        path=fragment.path,
        text=render(fragment, expected),
        body=fragment.body.strip("\n"),
        slots=tuple(names),
        expected=expected,
        defaults=defaults,
        allowed=allowed_values(fragment, allowed),
        placeholder=f"<<{name}({args})>>" if args else f"<<{name}>>",
    )


def _normal(text: str) -> str:
    return " ".join(text.split())


def _calls(spec: Spec, snippet: Snippet) -> list[Placeholder]:
    """Every placeholder of the snippet in the spec's own body, as the composer
    reads them (promptc_compiler.core.scan: outside code, not escaped)."""
    return [p for p in scan_of(spec.source).placeholders if p.name == snippet.name]


def _arguments(call: Placeholder) -> dict[str, tuple[str, int]]:
    """Each argument of a call: its value as the fragment prints it (a variable
    by its name), and the column it stands at."""
    found: dict[str, tuple[str, int]] = {}
    for arg in call.args:
        value = arg.variable if arg.value is None else fragment_params.render(arg.value)
        if value is not None:
            found[arg.name] = (value, arg.value_column)
    return found


class _Reach:
    """How far a window holding a line reaches before it (its first line) and
    after it (the line past its last): while the lines' normalised text
    (`widths`), that line's included, is at most `longest` long, within
    MAX_WINDOW lines.

    Asked of lines in order. Each reach is the last one slid along (a window
    that starts later ends no earlier, one that ends later starts no
    earlier), so lines in a row cost a step each, not a walk each: a snippet
    of 9,600 lines, each a line of a copy, took 1.5 s of walks.
    """

    def __init__(self, widths: list[int], longest: float) -> None:
        self.widths, self.longest = widths, longest
        self.first, self.last, self.back = 0, -MAX_WINDOW, 0  # [first, last], its width
        self.start, self.end, self.ahead = 0, 0, 0  # [start, end), its width

    def before(self, index: int) -> int:
        widths = self.widths
        lowest = max(0, index - MAX_WINDOW + 1)
        if index - self.last >= MAX_WINDOW:  # nothing to slide: from the line itself
            self.first, self.back = index, widths[index]
        else:
            self.back += sum(widths[self.last + 1 : index + 1])
            while self.first < index and (self.back > self.longest or self.first < lowest):
                self.back -= widths[self.first]
                self.first += 1
        self.last = index
        while self.first > lowest and self.back + widths[self.first - 1] <= self.longest:
            self.first -= 1
            self.back += widths[self.first]
        return self.first

    def after(self, index: int) -> int:
        widths = self.widths
        if index >= self.end:  # nothing to slide: from the line itself
            self.end, self.ahead = index + 1, widths[index]
        else:
            self.ahead -= sum(widths[self.start : index])
        self.start = index
        stop = min(len(widths), index + MAX_WINDOW)
        while self.end < stop and self.ahead + widths[self.end] <= self.longest:
            self.ahead += widths[self.end]
            self.end += 1
        return self.end


class _Target:
    """The snippet's text, whitespace-normalised, as windows are compared with it.

    A window's score is its similarity to the snippet: how many pairs of
    adjacent characters they keep in common, in order (the longest common
    subsequence of their pairs), twice that over their pairs together. Pairs,
    not characters: any two texts in one language hold about half of their
    characters in some common order (an unrelated line next to a copy that
    lost one would then make it score higher, and --fix replace that line
    too), but few of their pairs; copied text keeps all of its pairs but the
    two each changed character touches.
    """

    def __init__(self, text: str) -> None:
        self.text = _normal(text)
        self.words = frozenset(self.text.split())
        self.longest = 1.5 * len(self.text)  # longer windows only resemble it less
        self.shortest = PART * len(self.text)  # shorter ones are never a copy
        # The pieces it falls into when cut every `anchor` characters: a window
        # that resembles it holds half of them (see _windows).
        self.anchor = max(1, min(ANCHOR, len(self.text) // 4))
        size = self.anchor
        cuts = range(0, len(self.text) - size + 1, size)
        self.pieces = list(dict.fromkeys(self.text[i : i + size] for i in cuts))
        self.numbers = {piece: number for number, piece in enumerate(self.pieces)}
        self.needed = (len(self.pieces) + 1) // 2
        # Each distinct line of the bodies read, whitespace-normalised: agents
        # share most of their lines (a fragment's, a team's), each read once.
        self.normals: dict[str, str] = {}
        # Whether a window holding a copy may read each distinct line (see spans).
        self.kept: dict[str, bool] = {}

    def normal(self, lines: Sequence[str]) -> list[str]:
        """Each line whitespace-normalised (_normal), each distinct one once."""
        known = self.normals
        found = []
        for line in lines:
            text = known.get(line)
            if text is None:
                text = _normal(line)
                text = known[line] = line if text == line else text  # most are: one copy
            found.append(text)
        return found

    def spans(self, lines: Sequence[str], breaks: Collection[int] = ()) -> list[tuple[int, int]]:
        """The [start, end) runs of `lines` where a window may hold a copy: around
        a line that shares a word with the snippet or is a part of it, as far as
        a window that holds that line can reach. A window that holds a copy
        holds such a line: one that resembles the snippet holds half of its
        words (_verdict), each a word of one of its lines, and one that is a
        part of it starts with a line that is a part too. And a window spans at
        most MAX_WINDOW lines, and at most `longest` characters of the lines'
        whitespace-normalised text, blank lines taking none: so in a body of
        prose a span holds a few lines around the line, not MAX_WINDOW on
        each side. Each distinct line is judged once (`kept`). No window holds
        a line of `breaks` (see _windows): none is looked around."""
        kept = self.kept
        for new in dict.fromkeys(itertools.filterfalse(kept.__contains__, lines)):
            text = self.normal((new,))[0]
            shares = not self.words.isdisjoint(text.split())
            kept[new] = bool(text) and (shares or text in self.text)  # the cheaper first
        marks = list(map(kept.__getitem__, lines))
        for index in breaks:
            marks[index] = False
        held = list(itertools.compress(itertools.count(), marks))
        if not held:
            return []
        # Runs of lines held one after another (the prose of a real body holds a
        # word of the snippet in nearly every line): a run's windows reach back
        # as far as its first line's and on as far as its last line's, since a
        # window that starts later ends no earlier.
        runs: list[list[int]] = []
        for index in held:
            if runs and index == runs[-1][1] + 1:
                runs[-1][1] = index
            else:
                runs.append([index, index])
        found: list[tuple[int, int]] = []
        reach = _Reach(list(map(len, map(self.normals.__getitem__, lines))), self.longest)
        for first, last in runs:
            # A run that starts within the last span, or just past it, goes on with it.
            start = first if found and first <= found[-1][1] else reach.before(first)
            end = reach.after(last)
            if found and start <= found[-1][1]:
                found[-1] = (found[-1][0], max(found[-1][1], end))
            else:
                found.append((start, end))
        return found

    @functools.cached_property
    def where(self) -> dict[str, list[int]]:
        """pair of adjacent characters -> where it starts in the snippet, in order
        (see common). Built for the first window scored: most runs score none."""
        found: dict[str, list[int]] = {}
        text = self.text
        for at in range(len(text) - 1):
            pair = text[at : at + 2]
            held = found.get(pair)
            if held is None:
                found[pair] = [at]
            else:
                held.append(at)
        return found

    def similarity(self, common: int, length: int) -> float:
        """The score of a window of `length` characters that keeps `common` of the
        snippet's pairs in order (1 for two single characters: the same one)."""
        pairs = length + len(self.text) - 2
        return 2.0 * common / pairs if pairs else 1.0

    def bound(self, text: str) -> float:
        """At least the window's score, from the lengths alone (difflib's real_quick_ratio)."""
        return self.similarity(min(len(text), len(self.text)) - 1, len(text))

    def scan(self, text: str, lengths: Sequence[int]) -> _Scan:
        """The windows text[:length] of one start (its longest is `text`) read
        against the snippet, in a band as wide as a copy may differ from it."""
        pairs = len(text) + len(self.text) - 2
        return _Scan(self, text, lengths, min(DRIFT, int((1 - THRESHOLD) * pairs) + 1))

    def score(self, scan: _Scan, length: int) -> float | None:
        """The score of the window text[:length] of `scan` when it holds a copy:
        its similarity, when that is THRESHOLD or more and at most DRIFT pairs
        are inserted or deleted to make it the snippet."""
        common = scan.common(length)
        pairs = length + len(self.text) - 2  # (a single character has none: see _verdict)
        if common is None or not pairs or pairs - 2 * common > DRIFT:
            return None
        score = self.similarity(common, length)
        return score if score >= THRESHOLD else None


class _Scan:
    """The pairs of one start's windows, read against the snippet's as far as a
    window asks: the length of their longest common subsequence for each.

    Bit-parallel (Hyyrö's formulation of Allison and Dix's algorithm) on
    Ukkonen's band: two texts that differ by at most `band` pairs inserted or
    deleted pair nothing more than `band` places from its own, so each pair
    read is compared only with the snippet's from `band` places before it to
    `band` after: one step of a few operations on an int of 2 * band + 1 bits,
    whatever the snippet's length. As the band moves on, the place that
    leaves it keeps its count (a pair of the text left out) and the one that
    enters takes its neighbour's (a pair of the snippet left out): every
    count is that of a common subsequence, and the longest is found when it
    lies in the band. A window that differs by more gets the count of a
    common subsequence that leaves it more than `band` pairs apart too.
    """

    def __init__(self, target: _Target, text: str, lengths: Sequence[int], band: int) -> None:
        self.size = len(target.text) - 1  # the snippet's pairs
        self.where = target.where
        self.band = band
        # Bit d: the snippet's pair at read - band - 1 + d, 0 where the longest
        # common subsequence grows by taking it.
        self.row = (1 << (2 * band + 1)) - 1
        self.below = 0  # the longest common subsequence left of the band
        self.read = 0  # pairs read
        self.pairs = map(operator.add, text, text[1:])
        self.masks: dict[str, list[int]] = {}  # pair -> [its places in the band, read at, next]
        self.wanted = sorted(lengths, reverse=True)  # the windows not reached yet
        self.found: dict[int, int | None] = {}
        self._settle()

    def common(self, length: int) -> int | None:
        """The common pairs of text[:length] (one of `lengths`), None when their
        number differs from the snippet's by more than the band."""
        if length not in self.found:
            self._advance(length - 1)
        return self.found[length]

    def _advance(self, until: int) -> None:
        """Read pairs until `until` are read. With each, the band moves on by one
        place: the lowest leaves it, one enters on top."""
        row, below, read, band = self.row, self.below, self.read, self.band
        full = (1 << (2 * band + 1)) - 1
        top = 1 << (2 * band)
        where, masks = self.where, self.masks
        for pair in itertools.islice(self.pairs, until - read):
            read += 1
            below += not row & 1
            row = (row >> 1) | top
            places = where.get(pair)
            if places is not None:
                state = masks.get(pair)
                if state is None:
                    state = masks[pair] = [0, read, 0]
                mask, at = state[0] >> (read - state[1]), state[2]
                if at < len(places) and places[at] <= read + band - 1:
                    at, mask = _enter(places, at, mask, read - band - 1, read + band - 1)
                state[0], state[1], state[2] = mask, read, at
                matched = row & mask
                row = ((row + matched) | (row - matched)) & full
            if self.wanted and self.wanted[-1] == read + 1:
                self.row, self.below, self.read = row, below, read
                self._settle()
        self.row, self.below, self.read = row, below, read

    def _settle(self) -> None:
        """The count of the window that ends with the pairs read, if one does."""
        wanted = self.wanted
        while wanted and wanted[-1] == self.read + 1:
            last = self.size - self.read + self.band  # the snippet's last pair, in the band
            held = None
            if 0 <= last <= 2 * self.band:
                held = self.below + last + 1 - (self.row & ((2 << last) - 1)).bit_count()
            self.found[wanted.pop()] = held


def _enter(places: Sequence[int], at: int, mask: int, low: int, high: int) -> tuple[int, int]:
    """(where to look next, the mask): the snippet's positions of a pair from
    places[at] up to `high` added to its mask (bit 0: position `low`), those
    below `low` passed by. Each position is looked at once a pass."""
    while at < len(places) and places[at] <= high:
        if places[at] >= low:
            mask |= 1 << (places[at] - low)
        at += 1
    return at, mask


def _occurrences(text: str, numbers: Mapping[str, int]) -> list[tuple[int, int]]:
    """(where, which) of every piece in `text`, in order, overlaps included.

    A pass of str.find over the text for each piece, at C speed: for a
    snippet of a few hundred characters (tens of pieces, what a required
    snippet is) several times faster than one pass looking the text up at
    every position in Python. But that costs the text's length once per
    piece: past MANY_PIECES (a snippet of some 2,400 characters), each
    position is looked up once instead, and a snippet of 100 KB costs a pass,
    not 12,000 (benchmarks/adversarial.py snippet-drift-*).
    """
    if len(numbers) > MANY_PIECES:
        size = len(next(iter(numbers)))  # the pieces are all as long
        count = len(text) - size + 1
        texts = map(text.__getitem__, map(slice, range(count), range(size, count + size)))
        return [
            (at, which) for at, which in enumerate(map(numbers.get, texts)) if which is not None
        ]
    found: list[tuple[int, int]] = []
    for piece, which in numbers.items():
        at = text.find(piece)
        while at >= 0:
            found.append((at, which))
            at = text.find(piece, at + 1)
    found.sort()
    return found


class _Reading:
    """The body as windows read it: the text of its non-blank lines outside code,
    whitespace-normalised and joined by spaces, and where each of the snippet's
    pieces starts in it. Code lines part it into stretches: no window crosses one.

    Only the lines of `spans` are read (all of them without), in a few passes
    at C speed; the end of a span parts the text as a code line does. A window
    is at most MAX_WINDOW lines: the lines from which no window is long enough
    to be a copy (PART of the snippet) are never looked at again, so a long
    snippet costs nothing more in a body of short lines. From the others, the
    windows are read only where the pieces are (see _scored).
    """

    def __init__(
        self,
        lines: Sequence[str],
        target: _Target,
        spans: Sequence[tuple[int, int]] | None = None,
        breaks: Collection[int] = (),
    ) -> None:
        spans = [(0, len(lines))] if spans is None else spans
        # No line past the last span is read: the code before it is all that parts it.
        code = code_lines(lines[: spans[-1][1]]) if spans else set()
        code.update(breaks)  # they part the text as code does (see _windows)
        wanted = list(itertools.chain.from_iterable(range(a, b) for a, b in spans))
        normal = target.normal(list(map(lines.__getitem__, wanted)))
        # The lines read: not blank, not code; then their text.
        self.lines = [i for i, text in zip(wanted, normal, strict=True) if text and i not in code]
        self.read = [text for i, text in zip(wanted, normal, strict=True) if text and i not in code]
        # Where a stretch ends: a code line, or the line after a span.
        self.code = sorted(code.union(end for _, end in spans))
        self.count = len(lines)
        lengths = [len(text) + 1 for text in self.read]  # each with the space that joins it
        self.offsets = list(itertools.accumulate(lengths, initial=0))  # where each line read starts
        self.text = " ".join(self.read)
        self.size = target.anchor
        # The lines read (by position) from which a window may be long enough:
        # most lines of prose are, alone, for a snippet of a few lines.
        self.open = self._open(target.shortest)
        found = _occurrences(self.text, target.numbers) if self.open else []
        self.at = [at for at, _ in found]  # where a piece starts, in order
        self.piece = [number for _, number in found]  # which piece it is

    def _open(self, shortest: float) -> list[int]:
        """The lines read (by position) whose longest window is `shortest` long at
        least: the window from the line to the last line read in its stretch and
        within MAX_WINDOW lines. Where that window stops (the stretch's end, the
        line MAX_WINDOW on) only moves forward from line to line: one pass."""
        lines, offsets, code = self.lines, self.offsets, self.code
        found: list[int] = []
        # The first code line after the line, and the first line read past its window.
        stretch = last = 0
        for position, line in enumerate(lines):
            if offsets[position + 1] - 1 - offsets[position] >= shortest:
                found.append(position)  # long enough alone
                continue
            while stretch < len(code) and code[stretch] <= line:
                stretch += 1
            stop = min(code[stretch] if stretch < len(code) else self.count, line + MAX_WINDOW)
            while last < len(lines) and lines[last] < stop:
                last += 1
            if offsets[last] - 1 - offsets[position] >= shortest:
                found.append(position)
        return found

    def pieces(self, start: int, end: int) -> int:
        """How many of the snippet's pieces text[start:end] holds."""
        low = bisect.bisect_left(self.at, start)
        high = bisect.bisect_right(self.at, end - self.size)
        return len(set(self.piece[low:high]))

    def starts(self, target: _Target) -> list[int]:
        """The open lines (by position) from which a window may read a part of the
        snippet (its first line is one) or half of its pieces."""
        parts = [self.read[p] in target.text for p in self.open]
        far = self._reaches(target)
        return [p for p, part in zip(self.open, parts, strict=True) if part or p in far]

    def _reaches(self, target: _Target) -> set[int]:
        """The open lines (by position) from which the text holds half of the
        pieces within the longest a window may be (pieces(begin, begin + longest)).
        Half of them is one piece at least: only the lines from which a piece
        found is in reach are counted, those that start at most that far
        before it. Both ends only move forward, so one pass over the pieces
        found counts them all: each piece's occurrences in between, and how
        many are held."""
        counts = [0] * len(target.pieces)
        held = low = high = 0
        at, piece = self.at, self.piece
        reach = int(target.longest) - self.size  # the last start of a piece in reach
        begins = [self.offsets[position] for position in self.open]
        found: set[int] = set()
        k = 0
        while k < len(at):
            # The lines that start from `reach` before a piece to the piece, for
            # a run of pieces whose stretches touch.
            first = last = at[k]
            while k < len(at) and at[k] - reach <= last:
                last = at[k]
                k += 1
            start = bisect.bisect_left(begins, first - reach)
            for index in range(start, bisect.bisect_right(begins, last)):
                begin = begins[index]
                while high < len(at) and at[high] <= begin + reach:
                    counts[piece[high]] += 1
                    held += counts[piece[high]] == 1
                    high += 1
                while low < high and at[low] < begin:
                    counts[piece[low]] -= 1
                    held -= counts[piece[low]] == 0
                    low += 1
                if held >= target.needed:
                    found.add(self.open[index])
        return found

    def stretch_end(self, position: int) -> int:
        """The first code line (or line after a span) after the `position`-th line
        read (or past the end)."""
        line = self.lines[position]
        at = bisect.bisect_right(self.code, line)
        return self.code[at] if at < len(self.code) else self.count


def _windows(
    lines: Sequence[str], snippet: Snippet, breaks: Collection[int] = ()
) -> list[tuple[int, int]]:
    """Non-overlapping [start, end) windows of a composed body's lines that hold a copy.

    A window reads the non-blank lines from `start` to `end` (at most
    MAX_WINDOW lines, no code line among them), whitespace-normalised and
    joined, when that is at most half again as long as the snippet. It holds
    a copy when it is a good part of the snippet word for word (PART of it at
    least: a copy that lost a line), or when it resembles the whole snippet:
    as long as two thirds of it at least, with half of its words and half of
    its pieces (its text cut every ANCHOR characters, in four for a shorter
    one: a copy keeps every piece but the two each change touches), and
    close to it: of their pairs of adjacent characters, the longest
    subsequence they have in common is THRESHOLD of them all or more (twice
    it over their sum: their similarity, a window's score; see _Target),
    which is to say that at most a fifth of their pairs are inserted or
    deleted to make one the other, and at most DRIFT pairs (a text that
    differs more is a rewrite, and the search compares each pair with DRIFT
    of the snippet's on either side, whatever the snippet's length). The
    most similar windows win, then the shortest, then the first.

    Only starts from which a window can read a part, or half of the pieces,
    are tried: the lines of prose around them are never compared, and a
    window is compared only when it could still win (see _choose).

    The lines of `breaks` are read as code lines are: no window holds one.
    """
    target = snippet.target
    if not target.text:
        return []
    spans = target.spans(lines, breaks)
    if not spans:
        return []  # no line that a copy holds
    reading = _Reading(lines, target, spans, breaks)
    pending: dict[int, tuple[str, list[int]]] = {}
    return _choose(_scored(reading, target, pending), pending, target)


# A window that may hold a copy: (its score or a bound on it, start, end, its
# length in characters, True when the score is known).
Scored = tuple[float, int, int, int, bool]


def _scored(
    reading: _Reading, target: _Target, pending: dict[int, tuple[str, list[int]]]
) -> list[Scored]:
    """The windows that may hold a copy, each with its score when known at
    once, else with a bound on it; the text of the longest of those of each
    start and their lengths in `pending`, by start (they are its prefixes)."""
    found: list[Scored] = []
    lines, text = reading.lines, reading.text
    for position in reading.starts(target):
        start = lines[position]
        stop = min(reading.stretch_end(position), start + MAX_WINDOW)
        words = _Words(reading.read, target.words, position)
        for later in range(position, len(lines)):
            last = lines[later]
            if last >= stop:
                break
            low, high = reading.offsets[position], reading.offsets[later + 1] - 1
            window = text[low:high]
            if len(window) > target.longest:
                break
            verdict = _verdict(
                window,
                target,
                lambda: reading.pieces(low, high),  # noqa: B023
                lambda: words.held(later),  # noqa: B023
            )
            if verdict is not None:
                score, exact = verdict
                found.append((score, start, last + 1, len(window), exact))
                if not exact:
                    lengths = pending[start][1] if start in pending else []
                    lengths.append(len(window))
                    pending[start] = (window, lengths)  # the longest so far
            if target.text in window:
                # A longer window from this start holds this one and scores
                # less, so it never wins over it: none is chosen.
                break
    return found


class _Words:
    """The snippet's words that the lines read from one start on hold, gathered
    only as far as a window asks. The words of a window are its lines' (it
    joins them with spaces), and a start's windows are read longer and
    longer: each line is split once, not once in every window that holds it."""

    def __init__(self, read: Sequence[str], words: frozenset[str], position: int) -> None:
        self.read, self.words = read, words
        self.next = position  # the first line read whose words are not gathered yet
        self.found: set[str] = set()

    def held(self, later: int) -> int:
        """How many of the snippet's words the lines read from the start to `later` hold."""
        while self.next <= later:
            self.found.update(self.words.intersection(self.read[self.next].split()))
            self.next += 1
        return len(self.found)


def _verdict(
    text: str, target: _Target, pieces: Callable[[], int], words: Callable[[], int]
) -> tuple[float, bool] | None:
    """(the window's score, True) or (a bound on it, False) when it may be a copy;
    `pieces` counts the snippet's pieces it holds, `words` the snippet's words."""
    snippet = target.text
    part = len(text) >= PART * len(snippet) and text in snippet
    if part:
        return target.similarity(len(text) - 1, len(text)), True  # it keeps all its pairs
    if len(text) < 0.66 * len(snippet) or abs(len(text) - len(snippet)) > DRIFT:
        return None  # too short to reach THRESHOLD, or too long to be drift
    if pieces() < target.needed:
        return None  # a copy keeps most of the snippet's text (a whole one, all of it)
    if words() < len(target.words) / 2:
        return None  # a copy shares most of the snippet's words
    if snippet in text:
        # The window holds it whole, and with it every pair of the snippet.
        score = target.similarity(len(snippet) - 1, len(text))
        return (score, True) if score >= THRESHOLD else None
    bound = target.bound(text)
    return (bound, False) if bound >= THRESHOLD else None


def _choose(
    scored: list[Scored], pending: Mapping[int, tuple[str, list[int]]], target: _Target
) -> list[tuple[int, int]]:
    """The copies: by score, then shortness, then position, each window that
    overlaps none chosen before it.

    A window known only by a bound on its score is scored when it comes
    first by that bound: its score is at most the bound, so every window
    before it by score is before it by bound too. The windows of one start
    are prefixes of its longest, so one pass reads them, as far as the
    longest scored (see _Scan). One that overlaps a chosen window is never
    compared: it could not be chosen.
    """
    # (-score or -bound, lines, start, end, characters, 0 for a score, 1 for a bound)
    heap = [
        (-value, end - start, start, end, length, 0 if exact else 1)
        for value, start, end, length, exact in scored
    ]
    heapq.heapify(heap)
    chosen: list[tuple[int, int]] = []  # in order: they never overlap
    scans: dict[int, _Scan] = {}  # by start
    while heap:
        _, size, start, end, length, level = heapq.heappop(heap)
        # Only the chosen windows on either side of `start` may overlap it.
        at = bisect.bisect_left(chosen, (start, start))
        if (at and chosen[at - 1][1] > start) or (at < len(chosen) and chosen[at][0] < end):
            continue
        if level == 0:
            chosen.insert(at, (start, end))
            continue
        scan = scans.get(start)
        if scan is None:
            scan = scans[start] = target.scan(*pending[start])
        value = target.score(scan, length)
        if value is not None:
            heapq.heappush(heap, (-value, size, start, end, length, 0))
    return chosen


def _to_source(origins: BodyLines, first: int, start: int, end: int) -> tuple[int, int, bool]:
    """Source lines [a, b) (indices into the body, whose first line is the file's
    line `first`) that produced composed lines [start, end), and whether they are
    the file's own lines, one after another (find_copies then compares them)."""
    lines = origins.lines[start:end]
    low, high = lines[0] - first, lines[-1] - first + 1
    return low, high, high - low == end - start and all(origins.own[start:end])


def _rendered(origins: BodyLines, calls: Sequence[Placeholder]) -> set[int]:
    """The composed lines that come from the lines of `calls`: what a call
    renders is the snippet, and a window over it would be the call found
    again (find_copies sets such a window aside). Read as code is, they cost
    an agent that writes the call, as most agents do, no search."""
    found: set[int] = set()
    lines = origins.lines  # in the source's order
    for line in {call.line for call in calls}:
        found.update(range(bisect.bisect_left(lines, line), bisect.bisect_right(lines, line)))
    return found


def find_copies(spec: Spec, snippet: Snippet) -> list[Copy]:
    """Every copy of the snippet in an agent, in source order."""
    composed = spec.body.split("\n")
    calls = _calls(spec, snippet)
    origins = spec.body_lines() if calls else None
    windows = _windows(composed, snippet, () if origins is None else _rendered(origins, calls))
    if origins is None:
        if not windows:
            return []  # nothing to trace back to the source
        origins = spec.body_lines()
    first = spec.source.body_line
    traced = [(start, end, *_to_source(origins, first, start, end)) for start, end in windows]
    # The spec's source cut into lines once, only as far as the last line read: a
    # copy and its calls stand near the top of a body tens of KB long.
    last = max([call.line - first + 1 for call in calls] + [t[3] for t in traced], default=0)
    source = spec.source.body.split("\n", last)[:last]
    copies: list[Copy] = []
    called: set[int] = set()
    for call in calls:
        index = call.line - first
        called.add(index)
        copies.append(
            Copy(
                start=call.line,
                end=call.line,
                # Where its text starts, or would: the first line from it or after it.
                composed=bisect.bisect_left(origins.lines, call.line),
                origin="call",
                column=call.column,
                width=len(call.text),
                text=source[index],
                args=_arguments(call),
            )
        )
    for start, end, low, high, own in traced:
        if called & set(range(low, max(high, low + 1))):
            continue  # the rendering of a placeholder found above
        # As written: its own lines, each unchanged (an escape or a printed value changes one).
        verbatim = own and source[low:high] == composed[start:end]
        copies.append(
            Copy(
                start=first + low,
                end=first + max(high, low + 1) - 1,
                composed=start,
                origin="text" if verbatim else "nested",
                text="\n".join(composed[start:end]),
            )
        )
    return sorted(copies, key=lambda c: (c.start, c.column))
