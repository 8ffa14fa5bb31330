"""Load: read a spec or fragment file into frontmatter (with exact positions) and body.

Nothing is silently fixed. Encoding trouble, tabs, duplicate keys and fence
problems become findings under the `syntax` (error) or `encoding` (warning)
ids; the file is still loaded as far as it safely can be.

YAML scalars are resolved as the runtimes read them (YAML 1.2 core, plus
timestamps, as js-yaml does): `yes` and `on` stay strings, `2026-01-13` is a
date. Aliases are expanded under a node budget, so an alias bomb costs at most
that budget. What else is refused, and why: docs/robustness.md ("Reading").
"""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.files import NotRegular, TooLarge, read_regular
from promptc_compiler.base.limits import MAX_DEPTH

try:  # the C loader is several times faster; fall back when libyaml is absent
    _Base: type[Any] = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Base = yaml.SafeLoader


def safe_load(text: str) -> Any:
    """yaml.safe_load(text), with the C loader when PyYAML has one: what the decision
    models read an emitted file's frontmatter with (1,000 agents: 0.6 s of CPU in
    pure Python)."""
    return yaml.load(text, Loader=_Base)


_DEFAULT_TAGS = {
    yaml.ScalarNode: "tag:yaml.org,2002:str",
    yaml.SequenceNode: "tag:yaml.org,2002:seq",
    yaml.MappingNode: "tag:yaml.org,2002:map",
}


def composer(base: type[Any]) -> type[Any]:
    """A loader class that composes only: untagged nodes take the default tag of their kind.

    PyYAML's resolver matches every plain scalar against its YAML 1.1 patterns
    to pick a tag; _Builder ignores that tag (it resolves plain scalars itself,
    as YAML 1.2) and only needs to tell an explicit tag (`!!binary`, `!foo`),
    which never reaches `resolve`, from none.
    """

    class Composer(base):  # type: ignore[misc]
        def resolve(self, kind: type[yaml.Node], _value: Any, _implicit: Any) -> str:
            return _DEFAULT_TAGS[kind]

        # Path resolvers pick tags by position in the document: none are used.
        def descend_resolver(self, current_node: Any, current_index: Any) -> None:
            pass

        def ascend_resolver(self) -> None:
            pass

    return Composer


_Loader = composer(_Base)

NODE_BUDGET = 20_000
MAX_FILE_BYTES = 1 << 20  # 1 MiB: about 250,000 tokens, beyond any runtime's context
FENCE = "---"

JsonPath = tuple[str | int, ...]
Findings = list[tuple[str, Problem]]  # (rule, problem) about one file


class Pos(NamedTuple):
    """A line and column in a file, both 1-based."""

    line: int
    column: int


class Frontmatter(NamedTuple):
    """Parsed frontmatter and where each key and value stands in the file."""

    data: Mapping[str, Any]
    # Where each value and each key stands, by its path: (line, column) pairs,
    # not Pos, which where() makes. The garbage collector stops tracking a
    # tuple of ints at its first look, but never a named tuple: two per entry
    # were 27,000 objects it walked again and again at 1,000 agents.
    values: Mapping[JsonPath, tuple[int, int]]
    keys: Mapping[JsonPath, tuple[int, int]]
    start_line: int
    end_line: int

    def where(self, path: JsonPath, *, key: bool = False) -> Pos:
        """Position of the key (or value) at `path`, else of its nearest ancestor."""
        for cut in range(len(path), 0, -1):
            part = path[:cut]
            # The key stands in for a value that has no position of its own.
            found = (None if key else self.values.get(part)) or self.keys.get(part)
            if found is not None:
                return Pos(*found)
        return Pos(self.start_line, 1)


@dataclass(slots=True)
class Body:
    """The scan of a file's body (promptc_compiler.core.scan.scan_of), remembered with
    the file: every target's composition reads the scan."""

    scan: object | None = field(
        default=None, compare=False
    )  # promptc_compiler.core.scan.Scan; typed there


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A loaded spec or fragment: its text, frontmatter, body and findings.

    The text is held whole, and its head (the frontmatter and fences) and body
    are read as its slices: the security rules read every file whole, and a
    body held beside the whole text would hold each file twice. The few
    readers of a body (its scan, each rendering of it) read it once each.
    """

    path: Path
    text: str  # the whole text, as read (after the encoding fixes the loader reports)
    body_at: int  # where the body starts in it; text = head + body
    frontmatter: Frontmatter | None
    held: Body
    body_line: int
    findings: tuple[tuple[str, Problem], ...] = field(default=())

    @property
    def head(self) -> str:
        """The text before the body (frontmatter and fences)."""
        return self.text[: self.body_at]

    @property
    def body(self) -> str:
        return self.text[self.body_at :]

    @property
    def ok(self) -> bool:
        # Asked of every file by every stage; most files have no findings at all.
        return not self.findings or not any(rule == "syntax" for rule, _ in self.findings)


class KeptFiles:
    """The files the last run loaded, by path and a digest of their bytes: a
    long-running program (the language server) hands the same KeptFiles to
    each run, and a file whose bytes did not change is not parsed again; its
    SourceFile serves the next run as it is.

    Each run keeps only the files it loaded (`begin`, `end`): a file removed
    or renamed is gone after the run that no longer finds it. A run can be
    handed bytes read before it (`read_ahead`): the result cache reads every
    input for its key, and the loader takes those bytes instead of reading
    each file a second time.
    """

    def __init__(self) -> None:
        self._last: dict[Path, tuple[bytes, SourceFile]] = {}
        self._now: dict[Path, tuple[bytes, SourceFile]] = {}
        self._ahead: dict[str, tuple[bytes, bytes]] = {}  # path text -> (bytes, digest)
        self.taken: set[str] = set()  # the paths the run loaded from what was read ahead

    def read_ahead(self, files: Mapping[str, bytes], digests: Mapping[str, bytes]) -> None:
        """Files' bytes by path text, with each one's digest (file_digest), for the
        next run to load. A file past MAX_FILE_BYTES is left to the loader, which
        refuses it from its size."""
        self._ahead = {
            path: (raw, digests[path]) for path, raw in files.items() if len(raw) <= MAX_FILE_BYTES
        }
        self.taken = set()

    def begin(self) -> None:
        """A run starts: what the last one loaded is there to reuse (with, newer,
        what a run that stopped before its end had loaded)."""
        self._last, self._now = {**self._last, **self._now}, {}

    def end(self) -> None:
        """The run has loaded every file it reads: the others (removed, renamed) go."""
        self._last = {}
        self._ahead = {}

    def load_ahead(self, path: Path) -> SourceFile | None:
        """The file loaded from its bytes read ahead; None when they were not."""
        found = self._ahead.pop(str(path), None)
        if found is None:
            return None
        self.taken.add(str(path))
        return self._load(path, *found)

    def load(self, path: Path, raw: bytes) -> SourceFile:
        return self._load(path, raw, file_digest(raw))

    def _load(self, path: Path, raw: bytes, digest: bytes) -> SourceFile:
        found = self._last.get(path)
        if found is None or found[0] != digest:
            found = (digest, load_bytes(path, raw))
        self._now[path] = found
        return found[1]


def file_digest(raw: bytes) -> bytes:
    """What KeptFiles knows a file's bytes by: their SHA-256, as promptc_compiler.pipeline.cache
    hashes each input (so the bytes it read ahead come with theirs)."""
    return hashlib.sha256(raw).digest()


def load_file(
    path: Path, overlays: Mapping[Path, str] | None = None, kept: KeptFiles | None = None
) -> SourceFile:
    """The file at `path`; an editor's unsaved text of it instead, when `overlays` has
    one. With `kept`, the SourceFile the last run made of these same bytes, and
    the bytes read ahead of the run rather than the file read again."""
    if overlays and path in overlays:
        raw = overlays[path].encode("utf-8", "surrogatepass")
        if len(raw) > MAX_FILE_BYTES:  # an editor's buffer is held to the cap of a file
            return _broken(path, 1, 1, _too_large(len(raw), MAX_FILE_BYTES))
    else:
        ahead = None if kept is None else kept.load_ahead(path)
        if ahead is not None:
            return ahead
        try:
            raw = read_bounded(path)
        except _Unreadable as exc:
            return _broken(path, 1, 1, str(exc))
        except OSError as exc:
            return _broken(path, 1, 1, f"cannot read file: {exc.strerror or exc}")
    return load_bytes(path, raw) if kept is None else kept.load(path, raw)


class _Unreadable(Exception):
    pass


def read_bounded(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; anything else is refused."""
    try:
        return read_regular(path, limit, follow_symlinks=True)
    except NotRegular as exc:
        raise _Unreadable(f"{exc}; refused") from None
    except TooLarge as exc:
        raise _Unreadable(_too_large(exc.size, limit)) from None


def _too_large(size: int, limit: int) -> str:
    return (
        f"file is {size:,} bytes; promptc reads spec files up to {limit:,} bytes "
        "(no runtime can use a prompt this long)"
    )


def load_bytes(path: Path, raw: bytes) -> SourceFile:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):  # what Windows tools often write
        return _broken(path, 1, 1, "file is UTF-16; save it as UTF-8")
    if b"\x00" in raw:
        line, column = _byte_position(raw, raw.index(b"\x00"))
        return _broken(path, line, column, "file contains a NUL byte; is it binary?")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _byte_position(raw, exc.start)
        byte = raw[exc.start]
        return _broken(path, line, column, f"not valid UTF-8 (byte 0x{byte:02x}); save it as UTF-8")
    findings: Findings = []
    text = _normalise(text, findings)
    return _split(path, text, findings)


def _broken(path: Path, line: int, column: int, message: str) -> SourceFile:
    finding = ("syntax", Problem(line, column, message))
    return SourceFile(path, "", 0, None, Body(), 1, (finding,))


def _byte_position(raw: bytes, offset: int) -> tuple[int, int]:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    start = before.rfind(b"\n") + 1
    return line, len(before[start:].decode("utf-8", "replace")) + 1


def _normalise(text: str, findings: Findings) -> str:
    if text.startswith("\ufeff"):
        findings.append(
            ("encoding", Problem(1, 1, "byte-order mark at the start of the file; remove it"))
        )
        text = text[1:]
    if "\r" in text:
        index = text.index("\r")
        line = text.count("\n", 0, index) + 1
        findings.append(
            (
                "encoding",
                Problem(
                    line,
                    index - text.rfind("\n", 0, index),
                    "CRLF line endings; promptc reads and emits LF",
                ),
            )
        )
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


# A closing fence: `---` or `...` alone on its line, blanks after it allowed
# (`\s` is what str.rstrip strips; a line ends only at `\n`).
_CLOSING_FENCE = re.compile(r"^(?:---|\.\.\.)[^\S\n]*$", re.MULTILINE)


def _split(path: Path, text: str, findings: Findings) -> SourceFile:
    # Nothing is cut into lines: the frontmatter and the body, most of a
    # file, are slices of the text, found by one search for the closing fence.
    first_end = text.find("\n")
    if (text if first_end < 0 else text[:first_end]).rstrip() != FENCE:
        _misplaced_fence(text.split("\n", 3)[:3], findings)
        return SourceFile(path, text, 0, None, Body(), 1, tuple(findings))
    close = _CLOSING_FENCE.search(text, first_end + 1) if first_end >= 0 else None
    if close is not None:
        start = close.start()
        # The frontmatter's lines, joined as they stand; none when the fence follows at once.
        lines = text.count("\n", first_end, start - 1)
        frontmatter = _parse(text[first_end + 1 : start - 1] if lines else "", lines, 2, findings)
        end = close.end()
        body_at = len(text) if end == len(text) else end + 1
        # A file that ends on the closing fence has no body line: point at the fence.
        body_line = lines + (2 if end == len(text) else 3)
        return SourceFile(path, text, body_at, frontmatter, Body(), body_line, tuple(findings))
    findings.append(
        ("syntax", Problem(1, 1, "frontmatter opened here is never closed with a `---` line"))
    )
    return SourceFile(path, text, len(text), None, Body(), text.count("\n") + 1, tuple(findings))


def _misplaced_fence(lines: list[str], findings: Findings) -> None:
    for number, line in enumerate(lines[:3], start=1):
        if line.strip() == FENCE and line.rstrip() != FENCE:
            column = len(line) - len(line.lstrip()) + 1
            message = "indented `---`: frontmatter must start at column 1 of line 1"
            findings.append(("syntax", Problem(number, column, message)))
            return
        if line.strip() == FENCE:
            message = "frontmatter must start on line 1; runtimes read this `---` as body text"
            findings.append(("syntax", Problem(number, 1, message)))
            return


_TAB_INDENT = re.compile(r"^[ ]*\t")


def _parse(text: str, lines: int, first: int, findings: Findings) -> Frontmatter:
    """The frontmatter `text` (`lines` lines joined by line breaks, the first being
    file line `first`)."""
    end = first + lines
    empty = Frontmatter({}, {}, {}, first - 1, end)
    if "\t" in text:
        found = enumerate(text.split("\n"), first)
        tabs = [(n, m.end()) for n, line in found if (m := _TAB_INDENT.match(line))]
        for number, column in tabs:
            findings.append(
                ("syntax", Problem(number, column, "tab in indentation; YAML allows only spaces"))
            )
        if tabs:
            return empty
    place = _file_place(text)
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        findings.append(("syntax", _yaml_problem(exc, first, place, text)))
        return empty
    except (yaml.YAMLError, RecursionError) as exc:
        message = "YAML nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        findings.append(("syntax", Problem(first, 1, f"invalid YAML: {message}")))
        return empty
    if node is None:
        return empty
    builder = _Builder(first, findings, place=place)
    data = builder.build(node)
    if not isinstance(data, dict):
        findings.append(
            ("syntax", Problem(first, 1, "frontmatter must be a mapping of keys to values"))
        )
        return empty
    return Frontmatter(data, builder.values, builder.keys, first - 1, end)


def _yaml_problem(
    exc: yaml.MarkedYAMLError, first: int, place: _Place | None = None, text: str = ""
) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    message = f"invalid YAML: {exc.problem}"
    opened = _unclosed_quote(text, exc)
    if opened is not None:
        # The error YAML reports lies where the quote it took for the closing one
        # stands, lines below: the mistake is the quote left open.
        line, column, quote = opened
        shown = f"quote {quote}" if quote else "quote"
        message = f"invalid YAML: the {shown} that opens this value is never closed"
        line, column = place(line, column) if place else (line, column)
        return Problem(line + first, column + 1, message)
    if exc.context and "alias" in exc.context and exc.context_mark is not None:
        # `"*": allow` written without quotes: `*` starts a YAML alias.
        mark = exc.context_mark
        message = 'invalid YAML: a bare `*` starts a YAML alias; quote it as "*"'
    if mark is None:
        return Problem(first, 1, message)
    line, column = place(mark.line, mark.column) if place else (mark.line, mark.column)
    return Problem(line + first, column + 1, message)


# A value that opens with a quote: after `key: ` or `- `.
_QUOTED_VALUE = re.compile(r"""^\s*(?:-\s+|[^\s#'"][^#]*?:\s+)(["'])""")


def _unclosed_quote(text: str, exc: yaml.MarkedYAMLError) -> tuple[int, int, str] | None:
    """Where a quoted value opens that YAML read past its line's end (line and
    column from 0, and the quote), when that is what the error comes from: no
    closing quote at all, or the error on the line of the quote YAML took for
    the closing one."""
    if exc.context == "while scanning a quoted scalar" and exc.context_mark is not None:
        mark = exc.context_mark
        lines = text.split("\n")
        # YAML counts lines at NEL, LS and PS too: its line may not be ours.
        line = lines[mark.line] if mark.line < len(lines) else ""
        quote = line[mark.column : mark.column + 1]
        return mark.line, mark.column, quote if quote in ("'", '"') else ""
    if exc.problem_mark is None or not text:
        return None
    lines = text.split("\n")
    number = 0
    while number < len(lines):
        found = _QUOTED_VALUE.match(lines[number])
        if found is None:
            number += 1
            continue
        closing = _closing_line(lines, number, found.end(1), found[1])
        if closing == exc.problem_mark.line and closing > number:
            return number, found.start(1), found[1]
        number = max(closing, number) + 1
    return None


def _closing_line(lines: list[str], number: int, start: int, quote: str) -> int:
    """The line of the quote closing a quoted scalar that starts at (number, start)."""
    column = start
    for at in range(number, len(lines)):
        line = lines[at]
        while column < len(line):
            char = line[column]
            escaped = quote == '"' and char == "\\"
            doubled = quote == "'" and line[column : column + 2] == "''"
            if escaped or doubled:  # `\"` in double quotes, `''` in single ones
                column += 2
            elif char == quote:
                return at
            else:
                column += 1
        column = 0
    return len(lines)


_Place = Callable[[int, int], tuple[int, int]]
# Line breaks to YAML besides `\n` (a CR is gone by now): promptc's lines run on past them.
_YAML_BREAKS = re.compile("[\x85\u2028\u2029]")
# What YAML takes for a line break in frontmatter text, whose `\r`s load_bytes
# has already made `\n`s: promptc and editors break lines at `\n` only.
_YAML_LINE_BREAK = re.compile("[\n\x85\u2028\u2029]")


def _file_place(text: str) -> _Place | None:
    """Where YAML's (line, column), both from 0, stand in `text` as a file's lines
    count them, when the two differ: YAML also breaks lines at NEL, LS and PS
    (U+0085, U+2028, U+2029), so without this a key after one stood a line
    lower, past the end of a short file."""
    if not _YAML_BREAKS.search(text):
        return None
    starts = [0, *(match.end() for match in _YAML_LINE_BREAK.finditer(text))]
    newlines = [index for index, char in enumerate(text) if char == "\n"]

    def place(line: int, column: int) -> tuple[int, int]:
        offset = starts[min(line, len(starts) - 1)] + column
        before = bisect.bisect_left(newlines, offset)  # the `\n`s before `offset`
        return before, offset - (newlines[before - 1] + 1 if before else 0)

    return place


_NULL = re.compile(r"^(~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
# The least integer a double rounds to Infinity: half a unit past the largest.
_FLOAT_OVERFLOW = 2**1024 - 2**970
_INT = re.compile(r"^[-+]?[0-9]+$|^0o[0-7]+$|^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_SPECIAL_FLOAT = {
    ".inf": float("inf"),
    "+.inf": float("inf"),
    "-.inf": float("-inf"),
    ".nan": float("nan"),
}
_DATE = re.compile(r"^\d{4}-\d\d?-\d\d?$")


def resolve_plain(value: str) -> Any:
    """A plain (unquoted) scalar as YAML 1.2 core plus timestamps reads it."""
    if value[:1].isalpha() and not value.endswith("\n"):
        # The common case (`allow`, a model name): only a null or boolean word
        # starts with a letter; numbers, dates and `.inf` start otherwise.
        if value in _BOOL:
            return _BOOL[value]
        return None if value in ("null", "Null", "NULL") else value
    if _NULL.match(value):
        return None
    if value in _BOOL:
        return _BOOL[value]
    if _INT.match(value):
        try:
            number = int(value, 0) if value[:2] in ("0o", "0x") else int(value)
        except ValueError:  # over Python's digit limit: js-yaml reads it as a float too
            return float(value)
        if abs(number) < _FLOAT_OVERFLOW:
            return number
        # js-yaml reads a number past a double's range as Infinity, and Python
        # could not write it in decimal (a hex number has no digit limit).
        return math.inf if number > 0 else -math.inf
    if value.lower() in _SPECIAL_FLOAT:
        return _SPECIAL_FLOAT[value.lower()]
    if _FLOAT.match(value):
        return float(value)
    if _DATE.match(value):
        try:
            return dt.date.fromisoformat("-".join(p.zfill(2) for p in value.split("-")))
        except ValueError:
            return value
    return value  # a timestamp too is kept as text: no runtime field takes a time of day


_YAML_ORG = "tag:yaml.org,2002:"
# The tags js-yaml's default schema reads, plus `value`, which PyYAML gives a
# plain `=` on its own. Any other (`!!python/object`, `!custom`) is refused.
_TAGS = frozenset(
    _YAML_ORG + name
    for name in (
        *("str", "int", "float", "bool", "null", "map", "seq", "timestamp"),
        *("binary", "merge", "omap", "pairs", "set", "value"),
    )
)


class _Budget(Exception):
    pass


@dataclass
class _Builder:
    """Turns a composed YAML node into data, recording where each key and value stands."""

    first: int
    findings: Findings
    values: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)
    keys: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)
    count: int = 0
    place: _Place | None = None  # YAML's lines to the file's (_file_place)

    def pos(self, node: yaml.Node) -> tuple[int, int]:
        """The node's line and column in the file."""
        mark = node.start_mark
        line, column = mark.line, mark.column
        if self.place is not None:
            line, column = self.place(line, column)
        return line + self.first, column + 1

    def build(self, node: yaml.Node) -> Any:
        try:
            return self._node(node, ())
        except _Budget as exc:
            self.findings.append(("syntax", Problem(self.pos(node)[0], 1, str(exc))))
            return {}

    def _node(self, node: yaml.Node, path: JsonPath) -> Any:
        self.count += 1
        if self.count > NODE_BUDGET:
            raise _Budget(
                f"frontmatter expands to more than {NODE_BUDGET} values (YAML alias bomb?)"
            )
        if len(path) > MAX_DEPTH:
            raise _Budget(f"frontmatter nested deeper than {MAX_DEPTH} levels")
        self.values[path] = self.pos(node)
        known = node.tag in _TAGS
        if not known:
            self._unsupported(node)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self._node(item, (*path, i)) for i, item in enumerate(node.value)]
        # A plain scalar has style None under the pure-Python loader and ""
        # under libyaml; either way it is resolved, quoted ones stay text.
        plain = known and not getattr(node, "style", None)
        return resolve_plain(node.value) if plain else node.value

    def _unsupported(self, node: yaml.Node) -> None:
        line, column = self.pos(node)
        tag = node.tag.replace(_YAML_ORG, "!!")
        message = f"unsupported YAML tag {tag}; the runtimes' YAML readers reject it"
        self.findings.append(("syntax", Problem(line, column, message)))

    def _mapping(self, node: yaml.MappingNode, path: JsonPath) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                line, column = self.pos(key_node)
                self.findings.append(
                    ("syntax", Problem(line, column, "a key must be a plain string"))
                )
                continue
            key = str(key_node.value)
            key_path = (*path, key)
            if key in result:
                first_line = self.keys[key_path][0]
                line, column = self.pos(key_node)
                message = f"duplicate key '{key}' (first defined at line {first_line})"
                self.findings.append(("syntax", Problem(line, column, message)))
                continue
            self.keys[key_path] = self.pos(key_node)
            result[key] = self._node(value_node, key_path)
        return result
