"""Shared files: promptc's keys merged into a file whose other keys are the user's.

In the root layout (`layout = "root"`) some files promptc writes are files the
user keeps keys of their own in: `opencode.json` (`mcp`, `provider`, ...),
`.claude/settings.json`, `.codex/config.toml`. promptc owns some of their
keys, the managed keys: the keys of the document the target generates (for
`.claude/settings.json`, `permissions.allow`, `.ask` and `.deny`, one level
down, so that `permissions.defaultMode` stays the user's; for TOML, every
leaf key). Everything else is the user's and is kept byte for byte: the file
is edited as text, in place, never parsed and dumped again. After an edit the
file is parsed again and must hold exactly the managed values and the user's
values it held before; anything else is refused, not written.

The manifest records a hash of each managed key as promptc wrote it
(`digests`): a managed key edited by hand is named and not overwritten
without `force`; a managed key the build no longer produces is removed from
the file; a key promptc did not write is never touched. A file that does not
parse is an error at its line and column, and nothing is written.

JSON: `json.JSONDecoder.raw_decode` gives where each value ends, so each
member's span is found by walking the object's text. TOML: tables by their
`[header]` lines and keys by their `key =` lines (promptc_compiler.core.tomlpos), one line
per managed value (promptc writes only scalars and flat arrays there).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from promptc_compiler.base.limits import json_loads, toml_problem, tomllib_loads
from promptc_compiler.core.tomlpos import locate, sections, toml_error

KeyPath = tuple[str, ...]
_MISSING = object()  # a managed key absent from a document
# Recorded with the managed keys of a file promptc created: the file is then
# promptc's to remove when nothing of the project's is left in it.
CREATED: KeyPath = ()


class MergeError(Exception):
    """A shared file promptc will not edit: the message, and where (1-based)."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Merged:
    """A shared file as the build leaves it: its bytes, and the hash of each
    managed key as written (for the manifest)."""

    content: bytes
    digests: Mapping[KeyPath, str] = field(default_factory=dict)


def key_name(path: KeyPath) -> str:
    """A key path as messages name it: `permissions.allow`."""
    return ".".join(
        part if re.fullmatch(r"[A-Za-z0-9_$-]+", part) else json.dumps(part) for part in path
    )


def encode_path(path: KeyPath) -> str:
    """A key path as the manifest records it (keys may hold dots)."""
    return json.dumps(list(path), ensure_ascii=False)


def decode_path(text: str) -> KeyPath | None:
    try:
        found = json.loads(text)
    except ValueError:
        return None
    if isinstance(found, list) and all(isinstance(p, str) for p in found):
        return tuple(found)
    return None


def value_digest(value: Any) -> str:
    data = "absent" if value is _MISSING else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()


def merge(
    name: str,
    disk: bytes | None,
    generated: bytes,
    split: Sequence[str],
    recorded: Mapping[KeyPath, str] | None,
    *,
    force: bool = False,
) -> Merged:
    """`generated` (the target's whole file) merged into `disk` (the file there,
    None: none). `split`: top-level keys whose own keys are managed one by one
    (JSON). `recorded`: the manifest's hash of each managed key promptc wrote
    last time (None: promptc never wrote this file). MergeError when a managed
    key was edited by hand or is the user's (without `force`), or the file does
    not parse."""
    editor = _TomlFile if name.endswith(".toml") else _JsonFile
    whole = editor.parse(generated.decode("utf-8"))
    # A file promptc creates is all promptc's, `$schema` included: recorded, it
    # is kept up to date and goes with the rest (strip).
    created = disk is None or CREATED in (recorded or {})
    wanted = editor.managed(whole, split, created)
    digests = {path: value_digest(value) for path, value in wanted.items()}
    if created:
        digests[CREATED] = "created"
    if disk is None:
        return Merged(generated, digests)
    try:
        text = disk.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MergeError(
            f"not UTF-8 (byte {exc.start}); promptc merges its keys into UTF-8 files only"
        ) from None
    document = editor.parse(text)
    if not force:
        _check_owner(text, document, wanted, recorded, editor)
    gone = [path for path in (recorded or {}) if path not in wanted and path != CREATED]
    edited = editor.edit(text, wanted, gone)
    _verify(editor, document, editor.parse(edited), wanted, gone)
    return Merged(edited.encode("utf-8"), digests)


def adopted(
    name: str, disk: bytes, generated: bytes, split: Sequence[str]
) -> dict[KeyPath, str] | None:
    """The hash of each key promptc would manage in `disk`, as it stands: what
    the manifest records when promptc takes over keys it did not write (`promptc
    import` reads them into the specs). None when `disk` does not parse."""
    editor = _TomlFile if name.endswith(".toml") else _JsonFile
    try:
        document = editor.parse(disk.decode("utf-8"))
    except (UnicodeDecodeError, MergeError):
        return None
    wanted = editor.managed(editor.parse(generated.decode("utf-8")), split, False)
    return {path: value_digest(_get(document, path)) for path in wanted}


def strip(
    name: str, disk: bytes, recorded: Mapping[KeyPath, str], *, force: bool = False
) -> bytes | None:
    """`disk` without the managed keys promptc wrote (a target no longer built);
    None when promptc created the file and nothing of the user's is left in it."""
    editor = _TomlFile if name.endswith(".toml") else _JsonFile
    text = disk.decode("utf-8", "replace")
    document = editor.parse(text)
    if not force:
        _check_owner(text, document, {}, recorded, editor)
    paths = [path for path in recorded if path != CREATED]
    edited = editor.edit(text, {}, paths)
    left = editor.parse(edited)
    _verify(editor, document, left, {}, paths)
    # A file promptc created goes when nothing of the project's is left in it.
    return None if CREATED in recorded and not left else edited.encode("utf-8")


def _check_owner(
    text: str,
    document: Any,
    wanted: Mapping[KeyPath, Any],
    recorded: Mapping[KeyPath, str] | None,
    editor: type[_Editor],
) -> None:
    """A managed key edited by hand since promptc wrote it, or (in a file promptc
    never wrote) a key of the user's that promptc would overwrite: MergeError."""
    if recorded is not None:
        edited = [
            p for p, h in recorded.items() if p != CREATED and value_digest(_get(document, p)) != h
        ]
        if edited:
            raise MergeError(
                f"`{key_name(edited[0])}`, which promptc manages here, was edited by hand; "
                "not overwritten without --force",
                *editor.where(text, edited[0]),
            )
    for path, value in wanted.items():
        if recorded is not None and path in recorded:
            continue
        there = _get(document, path)
        if there is not _MISSING and there != value:
            raise MergeError(
                f"`{key_name(path)}` is the project's own, and promptc manages it in the root "
                "layout; remove it (promptc import reads it into the specs) or use --force",
                *editor.where(text, path),
            )


def _verify(
    editor: type[_Editor],
    before: Any,
    after: Any,
    wanted: Mapping[KeyPath, Any],
    gone: Sequence[KeyPath],
) -> None:
    """The edited text holds the managed values, and every other value as before."""
    managed = [*wanted, *gone]
    if (
        editor.without(after, managed) != editor.without(before, managed)
        or any(_get(after, path) != value for path, value in wanted.items())
        or any(_get(after, path) is not _MISSING for path in gone)
    ):
        where = ", ".join(f"`{key_name(p)}`" for p in managed[:3])
        raise MergeError(
            f"cannot edit {where} in place (a dotted key, an inline table or a value over "
            "several lines holds it); write it as one `key = value` line, or remove it"
        )


def _get(document: Any, path: KeyPath) -> Any:
    for part in path:
        if not isinstance(document, dict) or part not in document:
            return _MISSING
        document = document[part]
    return document


class _Editor:
    @staticmethod
    def parse(text: str) -> Any:
        raise NotImplementedError

    @staticmethod
    def managed(document: Any, split: Sequence[str], created: bool) -> dict[KeyPath, Any]:
        """The managed keys of a generated document and their values (`created`:
        in a file promptc made, whose `$schema` is promptc's too)."""
        raise NotImplementedError

    @staticmethod
    def edit(text: str, wanted: Mapping[KeyPath, Any], gone: Sequence[KeyPath]) -> str:
        raise NotImplementedError

    @staticmethod
    def where(text: str, path: KeyPath) -> tuple[int, int]:
        """1-based line and column of the key at `path` (or its nearest parent)."""
        raise NotImplementedError

    @staticmethod
    def without(document: Any, paths: Sequence[KeyPath]) -> Any:
        """The document without the keys at `paths` (a copy), nor the tables
        on their way left empty (a table promptc added holds only its keys)."""
        copy = json.loads(json.dumps(document, default=str))
        for path in paths:
            for cut in range(len(path), 0, -1):
                holder = _get(copy, path[: cut - 1]) if cut > 1 else copy
                if not isinstance(holder, dict):
                    break
                if cut == len(path) or holder.get(path[cut - 1]) == {}:
                    holder.pop(path[cut - 1], None)
        return copy


# --- JSON ------------------------------------------------------------------------------------

# Written only into a file promptc creates: a user's own `$schema` is theirs.
_NEW_ONLY = ("$schema",)
_SPACE = re.compile(r"[ \t\n\r]*")


class _Member(NamedTuple):
    key: str
    start: int  # the key's opening quote
    value_start: int
    value_end: int


class _JsonFile(_Editor):
    @staticmethod
    def parse(text: str) -> Any:
        try:
            document = json_loads(text)
        except json.JSONDecodeError as exc:
            raise MergeError(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
        if not isinstance(document, dict):
            raise MergeError("not a JSON object: promptc merges its keys into an object")
        return document

    @staticmethod
    def managed(document: Any, split: Sequence[str], created: bool) -> dict[KeyPath, Any]:
        found: dict[KeyPath, Any] = {}
        for key, value in document.items():
            if key in _NEW_ONLY and not created:
                continue
            if key in split and isinstance(value, dict):
                found.update({(key, inner): v for inner, v in value.items()})
            else:
                found[(key,)] = value
        return found

    @staticmethod
    def where(text: str, path: KeyPath) -> tuple[int, int]:
        offset = 0
        start: int | None = _SPACE.match(text).end()  # type: ignore[union-attr]
        for part in path:
            if start is None or text[start] != "{":
                break
            members, _, _ = _members(text, start)
            found = next((m for m in members if m.key == part), None)
            if found is None:
                break
            offset, start = found.start, found.value_start
        line = text.count("\n", 0, offset) + 1
        return line, offset - (text.rfind("\n", 0, offset) + 1) + 1

    @staticmethod
    def edit(text: str, wanted: Mapping[KeyPath, Any], gone: Sequence[KeyPath]) -> str:
        for path in gone:
            text = _json_remove(text, path)
        for path, value in wanted.items():
            text = _json_set(text, path, value)
        return text


def _members(text: str, start: int) -> tuple[list[_Member], int, int]:
    """The members of the object whose `{` is at `start`, and where its `{` and `}` are."""
    decoder = json.JSONDecoder()
    members: list[_Member] = []
    index = _SPACE.match(text, start + 1).end()  # type: ignore[union-attr]
    if text[index] == "}":
        return members, start, index
    while True:
        key, after = decoder.raw_decode(text, index)
        colon = _SPACE.match(text, after).end()  # type: ignore[union-attr]
        value_start = _SPACE.match(text, colon + 1).end()  # type: ignore[union-attr]
        _, value_end = decoder.raw_decode(text, value_start)
        members.append(_Member(key, index, value_start, value_end))
        index = _SPACE.match(text, value_end).end()  # type: ignore[union-attr]
        if text[index] == "}":
            return members, start, index
        index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]


def _object_at(text: str, path: KeyPath) -> int | None:
    """Where the `{` of the object at `path` is (None: absent or not an object)."""
    start = _SPACE.match(text).end()  # type: ignore[union-attr]
    for part in path:
        members, _, _ = _members(text, start)
        found = next((m for m in members if m.key == part), None)
        if found is None or text[found.value_start] != "{":
            return None
        start = found.value_start
    return start


def _indent(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    return re.match(r"[ \t]*", text[line_start:]).group()  # type: ignore[union-attr]


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _render(value: Any, indent: str) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


def _json_set(text: str, path: KeyPath, value: Any) -> str:
    # The deepest object on the path that exists gets the rest as one member.
    for depth in range(len(path) - 1, -1, -1):
        start = _object_at(text, path[:depth])
        if start is not None:
            break
    else:  # pragma: no cover - the top level is an object (parse checked it)
        raise MergeError("not a JSON object")
    rest = path[depth:]
    for part in reversed(rest[1:]):
        value = {part: value}
    members, open_at, close_at = _members(text, start)
    found = next((m for m in members if m.key == rest[0]), None)
    # An object written on one line stays on one.
    inline = "\n" not in text[open_at:close_at]
    if found is not None:
        shown = _compact(value) if inline else _render(value, _indent(text, found.start))
        return text[: found.value_start] + shown + text[found.value_end :]
    key = json.dumps(rest[0], ensure_ascii=False)
    if members:
        last = members[-1]
        if inline:
            member = f", {key}: {_compact(value)}"
        else:
            indent = _indent(text, last.start)
            member = f",\n{indent}{key}: {_render(value, indent)}"
        return text[: last.value_end] + member + text[last.value_end :]
    outer = _indent(text, open_at)
    indent = outer + "  "
    member = f"\n{indent}{key}: {_render(value, indent)}\n{outer}"
    return text[: open_at + 1] + member + text[close_at:]


def _json_remove(text: str, path: KeyPath) -> str:
    start = _object_at(text, path[:-1])
    if start is None:
        return text
    members, open_at, close_at = _members(text, start)
    index = next((i for i, m in enumerate(members) if m.key == path[-1]), None)
    if index is None:
        return text
    member = members[index]
    if index > 0:  # from the comma after the member before
        return text[: members[index - 1].value_end] + text[member.value_end :]
    if len(members) > 1:  # up to the next member
        return text[: member.start] + text[members[1].start :]
    return text[: open_at + 1] + text[close_at:]


# --- TOML ------------------------------------------------------------------------------------


class _TomlFile(_Editor):
    @staticmethod
    def parse(text: str) -> Any:
        try:
            document = tomllib_loads(text)
        except tomllib.TOMLDecodeError as exc:
            message, line, column = toml_error(text, str(exc))
            raise MergeError(f"invalid TOML: {message}", line or 1, column or 1) from None
        refused = toml_problem(document)
        if refused is not None:  # the merge writes every value (promptc_compiler.base.limits)
            path, message = refused
            raise MergeError(message, *locate(text, path))
        return document

    @staticmethod
    def managed(document: Any, _split: Sequence[str], _created: bool) -> dict[KeyPath, Any]:
        found: dict[KeyPath, Any] = {}

        def walk(table: Mapping[str, Any], path: KeyPath) -> None:
            for key, value in table.items():
                if isinstance(value, dict):
                    walk(value, (*path, key))
                else:
                    found[(*path, key)] = value

        walk(document, ())
        return found

    @staticmethod
    def where(text: str, path: KeyPath) -> tuple[int, int]:
        return locate(text, path)

    @staticmethod
    def edit(text: str, wanted: Mapping[KeyPath, Any], gone: Sequence[KeyPath]) -> str:
        # Lines end at "\n" only: str.splitlines would also end one at a NEL or
        # a U+2028 inside a string value.
        lines = [line + "\n" for line in text.split("\n")]
        if lines[-1] == "\n":
            lines.pop()
        for path in gone:
            _toml_remove(lines, path)
        for path, value in wanted.items():
            _toml_set(lines, path, value)
        return "".join(lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return '"' + _TOML_ESCAPE.sub(_toml_escaped, str(value)) + '"'


# What a TOML basic string must escape: the quote, the backslash, control characters.
_TOML_ESCAPE = re.compile(r'["\\\x00-\x1f\x7f]')


def _toml_escaped(match: re.Match[str]) -> str:
    char = match.group()
    return "\\" + char if char in '"\\' else f"\\u{ord(char):04X}"


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def _key_line(lines: Sequence[str], start: int, end: int, key: str) -> int | None:
    quoted = "|".join(re.escape(k) for k in (key, json.dumps(key), f"'{key}'"))
    pattern = re.compile(rf"^\s*(?:{quoted})\s*=")
    return next((i for i in range(start, end) if pattern.match(lines[i])), None)


def _section(lines: list[str], table: KeyPath) -> tuple[int, int] | None:
    """The lines of `[table]` (after its header), or of the top level for ()."""
    for path, start, end in sections(lines):
        if path == table:
            return (start + 1 if table else start), end
    return None


def _toml_set(lines: list[str], path: KeyPath, value: Any) -> None:
    table, key = path[:-1], path[-1]
    entry = f"{_toml_key(key)} = {_toml_value(value)}\n"
    found = _section(lines, table)
    if found is None:
        if lines and lines[-1].strip():
            lines.append("\n")
        lines += [f"[{'.'.join(_toml_key(p) for p in table)}]\n", entry]
        return
    start, end = found
    at = _key_line(lines, start, end, key)
    if at is not None:
        indent = re.match(r"[ \t]*", lines[at]).group()  # type: ignore[union-attr]
        lines[at] = indent + entry
        return
    last = next((i for i in range(end - 1, start - 1, -1) if lines[i].strip()), start - 1)
    lines.insert(last + 1, entry)


def _toml_remove(lines: list[str], path: KeyPath) -> None:
    found = _section(lines, path[:-1])
    if found is None:
        return
    start, end = found
    at = _key_line(lines, start, end, path[-1])
    if at is None:
        return
    del lines[at]
    end -= 1
    if path[:-1] and not any(lines[i].strip() for i in range(start, end)):
        # The header of a table left empty, its blank lines, and the blank line
        # that parts it from the table before (as _toml_set adds it).
        before = 1 if start >= 2 and not lines[start - 2].strip() else 0
        del lines[start - 1 - before : end]
