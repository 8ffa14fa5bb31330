"""Snippets: a fragment's text as it must appear, and every copy of it in an agent.

The required-snippet rule works on composed output, so a copy counts whether
a spec writes the placeholder or the text inline. Copies are found in the
composed body and traced back to the spec's own lines by aligning the source
with the composed text: lines composition did not touch map one to one, and
an expansion maps to the placeholder line that produced it.
"""

from __future__ import annotations

import difflib
import itertools
import operator
import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from compiler.loader import SourceFile
from compiler.project import Spec

THRESHOLD = 0.8  # whitespace-normalised similarity from which a block counts as a copy
PART = 0.25  # ...or the share of the snippet that, copied word for word, still counts
MAX_WINDOW = 40  # lines: a copy re-wrapped narrower than this is not looked for
_SLOT = re.compile(r"<<\s*([A-Za-z_][A-Za-z0-9_]*)\s*>>")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_ARG = re.compile(
    r"""\s*(?:([A-Za-z_]\w*)\s*=\s*)?("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,\s()]+)\s*(?:,|$)"""
)


@dataclass(frozen=True)
class Snippet:
    """The configured fragment, rendered with the expected parameters."""

    name: str
    path: Path
    text: str
    pattern: re.Pattern[str]  # the fragment with each parameter as a named group
    expected: Mapping[str, str]
    order: tuple[str, ...]  # declared parameters, for positional arguments
    defaults: Mapping[str, str]
    allowed: Mapping[str, tuple[str, ...]]
    placeholder: str


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


def as_text(value: Any) -> str:
    """A parameter value as it reads in text (TOML and YAML booleans in lower case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def allowed_values(
    fragment: SourceFile, extra: Mapping[str, Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    """Allowed values per parameter: the fragment's declared `enum`, overridden by `extra`."""
    allowed = {
        name: tuple(as_text(v) for v in spec["enum"])
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
    body = _SLOT.sub(lambda m: values.get(m.group(1), m.group(0)), fragment.body)
    return body.strip("\n")


def _pattern(fragment: SourceFile, names: Sequence[str]) -> re.Pattern[str]:
    parts: list[str] = []
    seen: set[str] = set()
    body = fragment.body.strip("\n")
    last = 0
    for match in _SLOT.finditer(body):
        name = match.group(1)
        if name not in names:
            continue
        parts.append(re.escape(body[last : match.start()]))
        parts.append(f"(?P=p_{name})" if name in seen else f"(?P<p_{name}>[^\\n]+?)")
        seen.add(name)
        last = match.end()
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
    defaults = {k: as_text(v["default"]) for k, v in declared.items() if "default" in v}
    configured = {k: as_text(v) for k, v in params.items()}
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
        pattern=_pattern(fragment, names),
        expected=expected,
        order=tuple(declared),
        defaults=defaults,
        allowed=allowed_values(fragment, allowed),
        placeholder=f"<<{name}({args})>>" if args else f"<<{name}>>",
    )


def _normal(text: str) -> str:
    return " ".join(text.split())


def _code_lines(
    lines: Sequence[str], text: str | None = None, until: int | None = None
) -> set[int]:
    """Indices of lines inside fenced code blocks (fences included); `text` is the
    lines joined with newlines, when the caller has it. With `until` (an offset
    in `text`), only the lines starting before it are sure to be right: fences
    are read from the top, and none past that point is looked for."""
    if text is None:
        text = "\n".join(lines)
    inside: set[int] = set()
    fence: str | None = None
    opened = 0
    for line in _fence_candidates(text, until):
        marker = _FENCE.match(lines[line])
        if marker is None:
            continue
        run = marker.group(1)
        if fence is None:
            fence, opened = run, line
        elif run[0] == fence[0] and len(run) >= len(fence):
            inside.update(range(opened, line + 1))
            fence = None
    if fence is not None:
        inside.update(range(opened, len(lines)))
    return inside


def _fence_candidates(text: str, until: int | None = None) -> list[int]:
    """Indices of the lines holding three backticks or tildes (before offset
    `until`), in order: a fence line holds them, and str.find skips everything
    else at C speed."""
    starts: set[int] = set()
    stop = len(text) if until is None else until
    for run in ("```", "~~~"):
        at = text.find(run, 0, stop)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            starts.add(start)
            end = text.find("\n", at)
            if end < 0:
                break
            at = text.find(run, end, stop)
    lines: list[int] = []
    index = previous = 0
    for start in sorted(starts):
        index += text.count("\n", previous, start)
        previous = start
        lines.append(index)
    return lines


@lru_cache(maxsize=64)
def _call_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"<<\s*{re.escape(name)}\s*(?:\((?P<args>[^)]*)\))?\s*>>")


def _calls(
    spec: Spec, snippet: Snippet, lines: Sequence[str] | None = None
) -> list[tuple[int, re.Match[str]]]:
    """(body line index, match) of every placeholder of the snippet in the spec's source;
    `lines` is the source body split into lines, when the caller has it."""
    call = _call_pattern(snippet.name)
    body = spec.source.body
    matches = list(call.finditer(body))
    if not matches:
        return []  # a match within a line is a match in the whole body
    if lines is None:
        lines = body.split("\n")
    if all("\n" not in match.group() for match in matches):
        whole = _calls_in(body, lines, call, matches)
        if whole is not None:
            return whole
    holding = _lines_holding(body, "<<")
    if not holding:
        return []
    code = _code_lines(lines, body, until=holding[-1][1])
    found: list[tuple[int, re.Match[str]]] = []
    for index, _ in holding:
        if index in code:
            continue
        line = lines[index]
        spans = [m.span() for m in _INLINE_CODE.finditer(line)]
        for match in call.finditer(line):
            if not any(a <= match.start() < b for a, b in spans):
                found.append((index, match))
    return found


def _calls_in(
    body: str, lines: Sequence[str], call: re.Pattern[str], matches: Sequence[re.Match[str]]
) -> list[tuple[int, re.Match[str]]] | None:
    """_calls from the matches of `call` in the whole body, none across lines.

    The regex tries the same positions in the body as in each line, and a
    try that succeeds without reaching the line's end is the same on both
    (the pattern has no anchors): so these are the matches line by line
    would find, and the body was searched once instead of line by line.
    (None, for the search line by line, if a match on its line differed.)
    """
    at: list[tuple[int, int, re.Match[str]]] = []  # (line index, line start, match)
    index = previous = 0
    for match in matches:
        start = body.rfind("\n", 0, match.start()) + 1
        index += body.count("\n", previous, start)
        previous = start
        at.append((index, start, match))
    end = body.find("\n", matches[-1].end())
    code = _code_lines(lines, body, until=len(body) if end < 0 else end)
    found: list[tuple[int, re.Match[str]]] = []
    for index, start, match in at:
        if index in code:
            continue
        line = lines[index]
        spans = [m.span() for m in _INLINE_CODE.finditer(line)]
        own = call.match(line, match.start() - start)  # the same match, on its line
        if own is None or own.end() != match.end() - start:
            return None
        if not any(a <= own.start() < b for a, b in spans):
            found.append((index, own))
    return found


def _lines_holding(text: str, needle: str) -> list[tuple[int, int]]:
    """(index, end offset) of each line of `text` holding `needle`, in order,
    found by str.find instead of looking at every line."""
    found: list[tuple[int, int]] = []
    index = previous = 0
    at = text.find(needle)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        index += text.count("\n", previous, start)
        previous = start
        end = text.find("\n", at)
        if end < 0:
            found.append((index, len(text)))
            break
        found.append((index, end))
        at = text.find(needle, end)
    return found


def _arguments(snippet: Snippet, match: re.Match[str]) -> dict[str, tuple[str, int]]:
    args: dict[str, tuple[str, int]] = {}
    raw = match.group("args")
    if raw is None:
        return args
    offset = match.start("args")
    for position, arg in enumerate(_ARG.finditer(raw)):
        if not arg.group(2):
            continue
        name = arg.group(1) or (snippet.order[position] if position < len(snippet.order) else "")
        value = arg.group(2)
        if value[:1] in "\"'":
            value = value[1:-1]
        args[name] = (value, offset + arg.start(2) + 1)
    return args


def _windows(
    lines: Sequence[str], snippet: Snippet, text: str | None = None
) -> list[tuple[int, int]]:
    """Non-overlapping [start, end) line windows of the composed body that hold a copy.

    A window is a copy when it resembles the whole snippet (similarity at
    least THRESHOLD), or when it is a good part of the snippet word for word
    (a copy that lost a line); the most similar windows win.

    Only windows holding a useful line (_useful) can be copies, so only starts
    from which one is in reach are tried; every other line is never looked at.
    `text` is the lines joined with newlines, when the caller has it.
    """
    target, words = _target(snippet.text)
    useful = _useful(lines, target, words)
    if not useful:
        return []
    exact = _exact_copy(lines, useful, target, text)
    if exact is not None:
        return [exact]
    # No window reaches a line past this one, so no fence past it matters.
    last = min(max(useful) + MAX_WINDOW, len(lines) - 1)
    until = sum(map(len, lines[: last + 1])) + last
    code = _code_lines(lines, text, until=until)
    matcher = _matcher(target)
    normal: dict[int, str] = {}

    def at(index: int) -> str:
        found = normal.get(index)
        if found is None:
            found = normal[index] = _normal(lines[index])
        return found

    scored: list[tuple[float, int, int]] = []
    for start in _starts(useful, code, at, 1.5 * len(target)):
        text = ""
        seen = False
        for end in range(start + 1, min(len(lines), start + MAX_WINDOW) + 1):
            if (end - 1) in code:
                break
            line = at(end - 1)
            if not line:
                continue
            text = f"{text} {line}" if text else line
            if len(text) > 1.5 * len(target):
                break  # longer windows only resemble it less
            seen = seen or (end - 1) in useful
            if not seen:
                continue  # _score would say None: see _useful
            score = _score(matcher, text, target, words)
            if score is not None:
                scored.append((score, start, end))
            if target in text:
                # A longer window from this start holds this one and scores
                # less, so it never wins over it: none is chosen.
                break
    chosen: list[tuple[int, int]] = []
    for _, start, end in sorted(scored, key=lambda s: (-s[0], s[2] - s[1], s[1])):
        if all(end <= a or start >= b for a, b in chosen):
            chosen.append((start, end))
    return sorted(chosen)


def _exact_copy(
    lines: Sequence[str], useful: Set[int], target: str, text: str | None
) -> tuple[int, int] | None:
    """The one window _windows chooses when the useful lines, from the first to
    the last, are an exact copy outside code; None when they are not.

    Most agents carry the snippet once, word for word, and no other line
    shares a word with it. That window scores 1.0, the most any window can,
    and no other window reads exactly the snippet (each of its lines would
    share a word with it, so be useful, so lie in this one). Every window
    _windows scores holds a useful line, so overlaps this one and loses to it.
    """
    first, last = min(useful), max(useful)
    if last - first >= MAX_WINDOW or not target:
        return None  # from `first`, the search stops before `last`
    if " ".join(filter(None, map(_normal, lines[first : last + 1]))) != target:
        return None
    until = sum(map(len, lines[: last + 1])) + last
    code = _code_lines(lines, text, until=until)
    if code and not code.isdisjoint(range(first, last + 1)):
        return None
    return first, last + 1


@lru_cache(maxsize=16)
def _target(text: str) -> tuple[str, frozenset[str]]:
    """The snippet's text, whitespace-normalised, and its words: once per snippet."""
    target = _normal(text)
    return target, frozenset(target.split())


def _useful(lines: Sequence[str], target: str, words: Set[str]) -> set[int]:
    """Lines without which no window is a copy: those sharing a word with the
    snippet, and those that are part of its text.

    A window of other lines shares no word, so it is a copy only as a part of
    the snippet; a part of three words or more has a whole word of the snippet
    in the middle, so it is at most two partial words long. When PART of the
    snippet is longer than any two words of it, the parts can be left out.

    The answer depends on the line's text alone, and agents share most lines
    (fragments, boilerplate), so it is remembered per text (_USEFUL).
    """
    if not words:
        return {i for i, line in enumerate(lines) if line.strip()}
    memo = _useful_memo(target, words)
    flags: list[bool | None] = list(map(memo.get, lines))  # in C: this runs on every line
    parts = PART * len(target) <= _two_words(target)
    unknown = itertools.compress(
        itertools.count(), map(operator.is_, flags, itertools.repeat(None))
    )
    for index in list(unknown):
        line = lines[index]
        flag = not words.isdisjoint(line.split()) or (
            parts and bool(line.strip()) and _normal(line) in target
        )
        flags[index] = memo[line] = flag
    return set(itertools.compress(itertools.count(), flags))


# target -> (its words, line text -> useful); bounded, since a run may see many texts.
_USEFUL: dict[str, tuple[frozenset[str], dict[str, bool]]] = {}
_MEMO_LINES = 50_000
_MEMO_TARGETS = 16


def _useful_memo(target: str, words: Set[str]) -> dict[str, bool]:
    entry = _USEFUL.get(target)
    if entry is None or entry[0] != words or len(entry[1]) > _MEMO_LINES:
        if len(_USEFUL) >= _MEMO_TARGETS:
            _USEFUL.clear()
        entry = _USEFUL[target] = (frozenset(words), {})
    return entry[1]


@lru_cache(maxsize=16)
def _two_words(target: str) -> int:
    """The length of the longest text of at most two whole words of `target`."""
    sizes = [len(w) for w in target.split()]
    return max([*sizes, *(a + 1 + b for a, b in itertools.pairwise(sizes))], default=0)


def _starts(useful: set[int], code: set[int], at: Callable[[int], str], limit: float) -> list[int]:
    """Every start from which a window reaches a useful line: not blank, not in
    code, within MAX_WINDOW lines and `limit` characters of text, with no code
    line between. Walking back from each useful line to the one before it finds
    each start once."""
    starts: list[int] = []
    previous = -1
    for hit in sorted(useful):
        size = -1  # the joined text of lines [start, hit] has length `size`
        for start in range(hit, max(previous, hit - MAX_WINDOW), -1):
            if start in code:
                break
            line = at(start)
            if not line:
                continue
            size += len(line) + 1
            if size > limit:
                break
            starts.append(start)
        previous = hit
    return sorted(starts)


@lru_cache(maxsize=16)
def _matcher(target: str) -> difflib.SequenceMatcher[str]:
    """A matcher holding the snippet as its second sequence (indexing it costs as
    much as comparing): each window only sets the first one."""
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    return matcher


def _score(
    matcher: difflib.SequenceMatcher[str], text: str, target: str, words: Set[str]
) -> float | None:
    """The window's similarity to the snippet, or None when it is not a copy."""
    part = len(text) >= PART * len(target) and text in target
    if not part and len(text) < 0.66 * len(target):
        return None  # too short to reach THRESHOLD
    if not part and len(words & set(text.split())) < len(words) / 2:
        return None  # cheap first: a copy shares most of the snippet's words
    if part or target in text:
        # One holds the other: difflib's longest match is the shorter one whole,
        # and nothing is left beside it, so its ratio is this (the same float).
        score = 2.0 * min(len(text), len(target)) / (len(text) + len(target))
    else:
        matcher.set_seq1(text)
        if matcher.quick_ratio() < THRESHOLD:
            return None
        score = matcher.ratio()
    return score if part or score >= THRESHOLD else None


Opcode = tuple[str, int, int, int, int]


def align(source: Sequence[str], composed: Sequence[str]) -> list[Opcode]:
    """difflib opcodes turning source lines into composed lines.

    Composition changes only the lines around placeholders, so the common head
    and tail are matched directly and difflib (quadratic on repetitive text)
    sees only the middle.
    """
    limit = min(len(source), len(composed))
    # The first differing line from each end, found in C (map stops at the shorter).
    head = next(itertools.compress(itertools.count(), map(operator.ne, source, composed)), limit)
    back = map(operator.ne, reversed(source), reversed(composed))
    tail = min(next(itertools.compress(itertools.count(), back), limit), limit - head)
    middle = _opcodes(source[head : len(source) - tail], composed[head : len(composed) - tail])
    opcodes: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    for tag, i1, i2, j1, j2 in middle:
        opcodes.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        i, j = len(source) - tail, len(composed) - tail
        opcodes.append(("equal", i, len(source), j, len(composed)))
    return opcodes


def _opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """difflib's opcodes turning `a` into `b`, remembered by the pattern of equal lines.

    Without junk (autojunk off), difflib only ever asks whether two lines are
    equal, so two pairs of sequences with the same pattern (the same line
    numbers in the same places) get the same opcodes; agents built from the
    same fragments share it, even where a line of their own differs.
    """
    # Each line is numbered by the position of its first copy in a + b (in C).
    numbers: dict[str, int] = {}
    pattern = (
        tuple(map(numbers.setdefault, a, itertools.count())),
        tuple(map(numbers.setdefault, b, itertools.count(len(a)))),
    )
    found = _OPCODES.get(pattern)
    if found is None:
        if len(_OPCODES) >= _MEMO_PATTERNS:
            _OPCODES.clear()
        matcher = difflib.SequenceMatcher(None, a, b, False)
        found = _OPCODES[pattern] = [
            (tag, i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        ]
    return found


_OPCODES: dict[tuple[tuple[int, ...], tuple[int, ...]], list[Opcode]] = {}
_MEMO_PATTERNS = 4096


def _to_source(opcodes: Sequence[Opcode], start: int, end: int) -> tuple[int, int, bool]:
    """Source lines [a, b) that produced composed lines [start, end), and if verbatim."""
    lows: list[int] = []
    highs: list[int] = []
    verbatim = True
    for tag, i1, i2, j1, j2 in opcodes:
        if j2 <= start or j1 >= end:
            continue
        if tag == "equal":
            lows.append(i1 + max(start, j1) - j1)
            highs.append(i1 + min(end, j2) - j1)
        else:
            verbatim = False
            lows.append(i1)
            highs.append(i2)
    return min(lows), max(highs), verbatim and max(highs) - min(lows) == end - start


def _to_composed(opcodes: Sequence[Opcode], index: int) -> int:
    for tag, i1, i2, j1, _ in opcodes:
        if i1 <= index < i2:
            return j1 + index - i1 if tag == "equal" else j1
    return 0


def find_copies(spec: Spec, snippet: Snippet) -> list[Copy]:
    """Every copy of the snippet in an agent, in source order."""
    source = spec.source.body.split("\n")
    composed = spec.body.split("\n")
    calls = _calls(spec, snippet, source)
    windows = _windows(composed, snippet, spec.body)
    if not calls and not windows:
        return []  # nothing to trace back to the source
    opcodes = align(source, composed)
    first = spec.source.body_line
    copies: list[Copy] = []
    called: set[int] = set()
    for index, match in calls:
        called.add(index)
        copies.append(
            Copy(
                start=first + index,
                end=first + index,
                composed=_to_composed(opcodes, index),
                origin="call",
                column=match.start() + 1,
                width=match.end() - match.start(),
                text=source[index],
                args=_arguments(snippet, match),
            )
        )
    for start, end in windows:
        low, high, verbatim = _to_source(opcodes, start, end)
        if called & set(range(low, max(high, low + 1))):
            continue  # the rendering of a placeholder found above
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
