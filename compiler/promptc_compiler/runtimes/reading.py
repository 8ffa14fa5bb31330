"""Import, reading side: what every runtime's import reads a folder with, owned by none.

A runtime's `import_from(root, reader)` (promptc_compiler.runtimes.adapter)
walks the folder its runtime reads in a project and hands the Reader each
agent and mode as promptc frontmatter and a body kept byte for byte (`escape`:
text promptc would read as a construct gets the composition escape), the
config it proposes, and a note at the file, line and column of everything it
cannot carry over. promptc_compiler.pipeline.importer makes the plan from the
Reader: shared text as fragments, the proposed config, each body checked to
compose back to its original bytes.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from promptc_compiler.base.body_syntax import OPENER
from promptc_compiler.base.diagnostics import Diagnostic, Severity
from promptc_compiler.base.limits import json_loads, toml_problem, tomllib_loads
from promptc_compiler.core import yamlout
from promptc_compiler.core.config import Config
from promptc_compiler.core.loader import SourceFile, load_file
from promptc_compiler.core.scan import is_literal, literal_text, scan
from promptc_compiler.core.tomlpos import locate
from promptc_compiler.permissions import wildcard

RULE = "import"


class Note(NamedTuple):
    """Something an import could not carry over, at a key of the file it read."""

    key: str
    message: str


@dataclass
class Reader:
    """One import's findings: the agents and modes read, the proposed config, the notes."""

    config: Config
    notes: list[Diagnostic] = field(default_factory=list)
    agents: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (frontmatter, body)
    modes: dict[str, tuple[str, str]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)  # the proposed config
    originals: dict[str, str] = field(default_factory=dict)  # agent id -> body as read
    paths: dict[str, Path] = field(default_factory=dict)  # agent id -> its file
    # Where the runtime's agents are, for the note of a folder that has none.
    agent_files: str = "agents/*.md"

    def note(
        self, path: Path, message: str, at: tuple[int, int] = (1, 1), error: bool = False
    ) -> None:
        severity = Severity.ERROR if error else Severity.WARNING
        line, column = at
        self.notes.append(
            Diagnostic(self.config.display(path), line, column, RULE, severity, message)
        )

    def keep(self, ident: str, path: Path, front: str, body: str, original: str) -> None:
        self.agents[ident] = (front, body)
        self.originals[ident] = original
        self.paths[ident] = path

    def agent(self, ident: str, source: SourceFile, front: str) -> None:
        """Keep the agent, unless its body cannot be kept byte for byte (noted)."""
        body = self._body(source)
        if body is not None:
            self.keep(ident, source.path, front, body, source.body)

    def mode(self, ident: str, source: SourceFile, front: str) -> None:
        body = self._body(source)
        if body is not None:
            self.modes[ident] = (front, body)

    def _body(self, source: SourceFile) -> str | None:
        escaped = escape(source.body)
        if escaped is None:
            message = "body cannot be kept byte for byte; not imported"
            self.note(source.path, message, (source.body_line, 1), error=True)
        return escaped

    def at_key(self, source: SourceFile, key: str, message: str) -> None:
        at = source.frontmatter.where((key,), key=True) if source.frontmatter else (1, 1)
        self.note(source.path, message, at)

    def at_keys(self, source: SourceFile, notes: Iterable[Note]) -> None:
        for note in notes:
            self.at_key(source, note.key, note.message)

    def load(self, path: Path) -> SourceFile | None:
        """The file, or None (with its errors noted) when it cannot be carried over."""
        source = load_file(path)
        errors = [p for rule, p in source.findings if rule == "syntax"]
        for problem in errors:
            self.note(
                path, f"{problem.message}; not imported", (problem.line, problem.column), True
            )
        return None if errors else source

    def markdown(self, root: Path, names: tuple[str, ...]) -> Iterator[tuple[str, SourceFile]]:
        """Every .md file under the folders `names` that loads: its id and source."""
        seen: dict[str, Path] = {}
        for name in names:
            folder = root / name
            if not folder.is_dir():
                continue
            for path in sorted(folder.rglob("*")):
                if path.is_dir():
                    continue
                if path.suffix != ".md":
                    self.note(path, "not a .md file; not imported")
                    continue
                ident = path.relative_to(folder).with_suffix("").as_posix()
                if ident in seen:
                    message = f"`{ident}` is also defined by {seen[ident]}; not imported"
                    self.note(path, message, error=True)
                    continue
                seen[ident] = path
                source = self.load(path)
                if source is not None:
                    yield ident, source

    def json_file(self, path: Path) -> tuple[str, dict[str, Any]] | None:
        """The text and object of a JSON file, or None (noted) when it has none."""
        if not path.is_file():
            return None
        try:
            text = path.read_text(encoding="utf-8")
            data = json_loads(text)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            where = (getattr(exc, "lineno", 1), getattr(exc, "colno", 1))
            self.note(path, f"cannot read: {exc}; not imported", where, True)
            return None
        if not isinstance(data, dict):
            self.note(path, "not a JSON object; not imported", error=True)
            return None
        return text, data

    def toml_file(self, path: Path) -> dict[str, Any] | None:
        try:
            text = path.read_text(encoding="utf-8")
            data = tomllib_loads(text)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            where = re.search(r"line (\d+), column (\d+)", str(exc))
            at = (int(where[1]), int(where[2])) if where else (1, 1)
            self.note(path, f"cannot read: {exc}; not imported", at, True)
            return None
        refused = toml_problem(data)
        if refused is not None:  # the import writes every value (promptc_compiler.base.limits)
            key, message = refused
            self.note(path, f"cannot read: {message}; not imported", locate(text, key), True)
            return None
        return data


def front(spec: Mapping[str, Any]) -> str:
    """A spec's frontmatter, fences included."""
    return f"---\n{yamlout.dump(spec)}---\n"


def meta(source: SourceFile) -> Mapping[str, Any]:
    return source.frontmatter.data if source.frontmatter else {}


def toml_line(text: str, key: str) -> int:
    """The line a top-level key or table is written on (1 when it is not found)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if re.match(rf"\s*(\[\s*)?{re.escape(key)}\s*[=\]]", line):
            return number
    return 1


def json_position(text: str, key: str) -> tuple[int, int]:
    """Line and column of the JSON string `key` in `text` (1:1 when not found)."""
    at = text.find(json.dumps(key, ensure_ascii=False))
    if at < 0:
        return 1, 1
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


# --- bodies kept byte for byte ------------------------------------------------------------------


def composes_to(text: str) -> str | None:
    """What a body without placeholders composes to, or None when it holds a construct."""
    found = scan(text, 1)
    if found.problems or not all(map(is_literal, found.segments)):
        return None
    return "".join(literal_text(s, text) for s in found.segments if is_literal(s))


def _with_backslashes(text: str, positions: Sequence[int]) -> str:
    bounds = zip([0, *positions], [*positions, len(text)], strict=True)
    return "\\".join(text[start:end] for start, end in bounds)


def escape(text: str) -> str | None:
    """`text` with escapes such that it composes to itself; None when impossible.

    Text promptc would read as a construct (`<<name>>`, `<% if %>`, `<# note #>`)
    gets the composition escape, a backslash, exactly where the scanner would
    take it for a construct; openers inside code, or that are no construct
    (`a << 2`), are left alone, since there a backslash would stay in the output.
    """
    if composes_to(text) == text:
        return text
    openers = [m.start() for m in OPENER.finditer(text)]
    rendered = composes_to(_with_backslashes(text, openers))
    if rendered is None:
        return None
    # The backslashes that survive stand where no construct was (code, `a << 2`):
    # drop them; the rest are the escapes the text needs.
    needed: list[int] = []
    offset = 0
    for position in openers:
        at = position + offset
        if rendered[at : at + 1] == "\\" and text[position : position + 1] != "\\":
            offset += 1
        else:
            needed.append(position)
    escaped = _with_backslashes(text, needed)
    return escaped if composes_to(escaped) == text else None


def without_covered(rules: Mapping[str, str]) -> dict[str, str]:
    """The rules without those a later one covers: OpenCode's last match wins, so
    they never decide."""
    patterns = wildcard.Patterns()
    order = list(rules)
    return {
        pattern: action
        for index, (pattern, action) in enumerate(rules.items())
        if not any(covers(patterns, later, pattern) for later in order[index + 1 :])
    }


def covers(patterns: wildcard.Patterns, outer: str, inner: str) -> bool:
    """Whether `outer` matches everything `inner` does; False when too complex to
    tell (a rule that may decide stays)."""
    try:
        return patterns.covers(outer, inner)
    except wildcard.TooComplex:
        return False
