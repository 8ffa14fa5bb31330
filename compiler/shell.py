"""A shell line split into the commands a runtime asks permission for, one by one.

OpenCode (opencode-ai 1.18.33) parses a bash tool call with tree-sitter-bash
and asks the `bash` permission once for every `command` node of the tree: each
command of a list (`a && b`, `a || b`, `a; b`, `a & b`, one per line), of a
pipeline (`a | b`), of a subshell or group, and each command inside a command
substitution (`$(…)`, backticks) as well as the command holding it. A
command's text is its own source text, redirections included (`cat .env >
out`). Commands that only change folder (`cd`, `pushd`, …) are not asked
about. The line runs only if every command is allowed: one deny refuses it,
one ask asks. Codex and Claude Code split compound lines the same way before
matching their own rules.

This module does that split for the inputs promptc reasons about (commands
written in specs, and the lines the call matrix builds from them). It is a
plain scanner that knows quotes, escapes, the separators above and
substitutions; it does not run or expand anything. Leading reserved words
(`if`, `then`, `do`, `!`, …) are dropped the way tree-sitter puts them outside
the command node.
"""

from __future__ import annotations

from dataclasses import dataclass

# Commands OpenCode never asks the bash permission for (they only change folder).
FOLDER_COMMANDS = frozenset({"cd", "chdir", "popd", "pushd", "push-location", "set-location"})
# Commands whose path arguments OpenCode checks against the project folder
# (external_directory), besides the folder commands.
PATH_COMMANDS = FOLDER_COMMANDS | {"rm", "cp", "mv", "mkdir", "touch", "chmod", "chown", "cat"}
_RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time"}
)
_SEPARATORS = ("&&", "||", "|&", ";;", ";", "|", "&", "\n")
# Substitutions and subshells nested deeper than this are each taken as one
# command, unsplit: each level is scanned again, so depth costs time, and no
# real line nests so deep.
MAX_DEPTH = 32


@dataclass(frozen=True)
class Command:
    text: str  # the command's own text, as the runtime matches it against patterns
    words: tuple[str, ...]  # its words, quotes removed (no expansion)

    @property
    def name(self) -> str:
        return self.words[0] if self.words else ""


def commands(line: str) -> list[Command]:
    """Every command of the line, outer ones before the ones substituted inside them."""
    found: list[Command] = []
    pending = [(line, 0)]  # a list, not recursion: nesting depth is the input's to choose
    while pending:
        text, depth = pending.pop()
        inner = _split(text, found)
        if depth < MAX_DEPTH:
            pending.extend((part, depth + 1) for part in reversed(inner))
        else:  # too deep to split further: each nested part asked about as one command
            for part in inner:
                _add(part, found)
    return found


def asked(line: str) -> list[Command]:
    """The commands OpenCode asks the bash permission for (not the folder changes)."""
    return [c for c in commands(line) if c.name not in FOLDER_COMMANDS]


def _split(text: str, found: list[Command]) -> list[str]:
    """The commands of `text` at its own level into `found`; what is nested inside
    them (substitutions, subshells), to be split next."""
    inner: list[str] = []  # substitutions and subshells, split after their holder
    start = 0
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "'":
            i = _closing_quote(text, i)
            continue
        if char == '"':
            i = _double_quoted(text, i, inner)
            continue
        if char == "`":
            end = _backtick_end(text, i)
            inner.append(text[i + 1 : end])
            i = end + 1
            continue
        if text.startswith("$(", i):
            end = _paren_end(text, i + 2)
            inner.append(text[i + 2 : end])
            i = end + 1
            continue
        if char == "(" and not text[start:i].strip():
            end = _paren_end(text, i + 1)
            inner.append(text[i + 1 : end])
            start = i = end + 1
            continue
        separator = _separator_at(text, i)
        if separator:
            _add(text[start:i], found)
            i += len(separator)
            start = i
            continue
        i += 1
    _add(text[start:], found)
    return inner


def _separator_at(text: str, i: int) -> str:
    for separator in _SEPARATORS:
        if text.startswith(separator, i):
            # `2>&1`, `&>`, `>|` are redirections, not separators.
            if separator in ("&", "|") and i > 0 and text[i - 1] in "<>":
                return ""
            if separator == "&" and text.startswith("&>", i):
                return ""
            return separator
    return ""


def _add(text: str, found: list[Command]) -> None:
    text = text.strip()
    words = _words(text)
    # Reserved words open or close a compound statement: not part of a command.
    while words and words[0] in _RESERVED:
        text = text[text.index(words[0]) + len(words[0]) :].strip()
        words = words[1:]
    if words:
        found.append(Command(text, tuple(words)))


def _words(text: str) -> list[str]:
    """Words split at unquoted blanks, quotes removed, escapes kept as written."""
    words: list[str] = []
    word: list[str] = []
    started = False
    i = 0
    while i < len(text):
        char = text[i]
        if char in " \t":
            if started:
                words.append("".join(word))
                word, started = [], False
            i += 1
            continue
        started = True
        if char in "'\"":
            end = _closing_quote(text, i) if char == "'" else _double_quoted(text, i, [])
            word.append(text[i + 1 : end - 1])
            i = end
        elif text.startswith("$(", i):
            end = _paren_end(text, i + 2) + 1
            word.append(text[i:end])
            i = end
        else:
            word.append(text[i : i + 2] if char == "\\" else char)
            i += 2 if char == "\\" else 1
    if started:
        words.append("".join(word))
    return words


def _closing_quote(text: str, i: int) -> int:
    """Past the single quote closing the one at i (or the end of the text)."""
    end = text.find("'", i + 1)
    return len(text) if end < 0 else end + 1


def _double_quoted(text: str, i: int, inner: list[str]) -> int:
    """Past the double quote closing the one at i; substitutions inside go to `inner`."""
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif text[j] == '"':
            return j + 1
        elif text.startswith("$(", j):
            end = _paren_end(text, j + 2)
            inner.append(text[j + 2 : end])
            j = end + 1
        elif text[j] == "`":
            end = _backtick_end(text, j)
            inner.append(text[j + 1 : end])
            j = end + 1
        else:
            j += 1
    return len(text)


def _backtick_end(text: str, i: int) -> int:
    j = i + 1
    while j < len(text) and text[j] != "`":
        j += 2 if text[j] == "\\" else 1
    return min(j, len(text))


def _paren_end(text: str, i: int) -> int:
    """The index of the `)` closing a `(` just before i (or the end of the text)."""
    depth = 1
    j = i
    while j < len(text):
        char = text[j]
        if char == "\\":
            j += 2
            continue
        if char == "'":
            j = _closing_quote(text, j)
            continue
        if char == '"':
            j = _double_quoted(text, j, [])
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return len(text)
