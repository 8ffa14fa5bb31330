"""No file of the package names a runtime outside that runtime's own package.

Adding a runtime is one package, one registry line, one test folder and one
docs page (CONTRIBUTING.md, "Adding a runtime"): every list of runtimes or
targets is derived from the registry (promptc_compiler.runtimes). So no code
outside `runtimes/<runtime>/` names one: no identifier (`import_claude`,
`COPILOT`), no string (`"codex"`, `".claude/"`, `"Gemini CLI"`), no text of a
template. The source, OpenCode, is everywhere in the core's prose (its
permission model is the core's), so for it only its name as a string (`"opencode"`)
counts, written once in base/source.py. Docstrings and comments are prose, for
readers: they may name any runtime. The names come from the registry, so a
sixth runtime is looked for as soon as it is registered.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import cast

import pytest

import promptc_compiler
from promptc_compiler.base.source import SOURCE
from promptc_compiler.runtimes import RUNTIMES

PACKAGE = Path(promptc_compiler.__file__).resolve().parent
# Every runtime's and target's name but the source's.
NAMES = sorted(
    {name for r in RUNTIMES.values() for name in (r.NAME, *(t.NAME for t in r.TARGETS))} - {SOURCE}
)
# The files that may name a runtime all the same, each with why. Keep it short.
ALLOWED = {
    "runtimes/__init__.py": "the registry: the one line that lists the runtime packages",
    "base/source.py": "the source's name, written once for the core and everything above it",
}
_STRINGS = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


def pattern(names: Sequence[str]) -> re.Pattern[str]:
    """A runtime's name as a word, in lower case, upper case or capitalised: not
    inside another word, but before a capital (`claudeAgent`) or a `_`."""
    spellings = [s for name in names for s in (name, name.upper(), name.capitalize())]
    return re.compile(rf"(?<![A-Za-z0-9])(?:{'|'.join(map(re.escape, spellings))})(?![a-z0-9])")


def _prose_lines(tree: ast.AST) -> set[int]:
    """The first line of every string that stands alone as a statement (a docstring)."""
    return {
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def in_python(text: str, names: Sequence[str], source: str) -> Iterator[tuple[int, str]]:
    """(line, what) for each identifier or string of the code that names a runtime,
    and each string that is the source's name."""
    found = pattern(names)
    prose = _prose_lines(ast.parse(text))
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in _STRINGS and token.start[0] in prose:
            continue
        if token.type == tokenize.NAME or token.type in _STRINGS:
            match = found.search(token.string)
            if match:
                yield token.start[0], match.group(0)
        if token.type == tokenize.STRING and token.string.strip("\"'") == source:
            yield token.start[0], token.string


def in_text(text: str, names: Sequence[str]) -> Iterator[tuple[int, str]]:
    """(line, name) for each runtime a template or other data file names."""
    found = pattern(names)
    for number, line in enumerate(text.splitlines(), start=1):
        for match in found.finditer(line):
            yield number, match.group(0)


def scanned() -> Iterator[Path]:
    """Every file of the package outside the runtime packages, compiled files aside."""
    owned = [
        Path(cast("ModuleType", runtime).__file__ or "").parent for runtime in RUNTIMES.values()
    ]
    for path in sorted(PACKAGE.rglob("*")):
        compiled = "__pycache__" in path.parts or path.suffix == ".pyc"
        if path.is_file() and not compiled and not any(map(path.is_relative_to, owned)):
            yield path


def findings(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return list(in_python(text, NAMES, SOURCE))
    return list(in_text(text, NAMES))


def test_no_file_outside_a_runtime_package_names_a_runtime() -> None:
    named = {
        f"{rel}:{line}: {what}"
        for path in scanned()
        if (rel := path.relative_to(PACKAGE).as_posix()) not in ALLOWED
        for line, what in findings(path)
    }
    assert sorted(named) == []


@pytest.mark.parametrize("rel", sorted(ALLOWED))
def test_each_allowed_file_still_names_one(rel: str) -> None:
    """An entry that no longer names a runtime goes: the list stays as short as it can."""
    assert findings(PACKAGE / rel), f"{rel} names no runtime any more: remove it from ALLOWED"


def test_the_runtime_packages_are_left_out_and_the_rest_is_read() -> None:
    files = {path.relative_to(PACKAGE).as_posix() for path in scanned()}
    assert "core/compose.py" in files
    assert "cli/templates/init/promptc.toml" in files
    assert "runtimes/tool_lists.py" in files  # shared: no runtime owns it
    assert not any(rel.startswith(f"runtimes/{name}/") for rel in files for name in RUNTIMES)


PLANTED = '''"""Writes Claude Code files: a docstring may say so."""

import promptc_compiler.runtimes.claude.agents as claude_agents  # a comment may too

COLOURS = claude_agents.COLORS


def folder() -> str:
    """Where Codex reads."""
    return f"{SOURCE_DIR}/.codex/"


SCHEMA = "claudeAgent"
TARGET = "opencode"
LABEL = "OpenCode decides"
'''


def test_a_planted_name_is_found(tmp_path: Path) -> None:
    """The scanner on a file that names runtimes in code, in prose and as the source."""
    planted = tmp_path / "planted.py"
    planted.write_text(PLANTED, encoding="utf-8")
    found = list(in_python(planted.read_text(encoding="utf-8"), ["claude", "codex"], "opencode"))
    assert found == [
        (3, "claude"),
        (3, "claude"),  # in `claude_agents`
        (5, "claude"),
        (10, "codex"),
        (13, "claude"),
        (14, '"opencode"'),
    ]


def test_a_template_naming_a_runtime_is_found() -> None:
    text = "# take away the `# ` of [targets.gemini] to add Gemini CLI\nplain = 1\n"
    assert list(in_text(text, ["gemini"])) == [(1, "gemini"), (1, "Gemini")]
