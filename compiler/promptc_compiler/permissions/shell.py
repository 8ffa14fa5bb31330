"""A shell line split into the commands a runtime asks permission for, one by one.

OpenCode (opencode-ai 1.18.33) parses a bash tool call with tree-sitter-bash
and asks the `bash` permission once for every `command` node of the tree, in
the tree's order (a command before the ones substituted inside it): each
command of a list (`a && b`, `a || b`, `a; b`, `a & b`, one per line), of a
pipeline (`a | b`), of a subshell, group, `if`, loop, `case` or function
body, and each command inside a command or process substitution (`$(…)`,
backticks, `<(…)`), an assignment's value or an unquoted here-document. A
command's text is its own source text with the redirections that follow it
when they are its own (`cat .env > out`); after the second command of a list
or pipeline, or after `!`, tree-sitter gives trailing redirections to the
whole list, and the command's text has none (`a && b > out` asks about `b`).
A here-document belongs to its command's text. What is no command node is
not asked about: assignments alone (`x=1`), declarations (`export`, `local`,
`unset`, …), tests (`[ … ]`, `[[ … ]]`), arithmetic (`(( … ))`, `$(( … ))`),
comments, and the keywords of compound statements. Commands that only change
folder (`cd`, `pushd`, …) are not asked about either; a line with nothing
asked about runs unasked. A line that ends in `&&`, `||` or `|` gets an empty
command (a MISSING word), asked about as the text ``; bash then refuses the
line. The line runs only if every command is allowed: one deny refuses it,
one ask asks. Codex and Claude
Code split compound lines the same way before matching their own rules.

This module does that split for the inputs promptc reasons about (commands
written in specs, and the lines the call matrix builds from them). It is a
plain scanner that knows quotes, escapes, comments, here-documents, the
separators above and substitutions; it does not run or expand anything.
tests/test_shell.py holds the cases to what OpenCode's own parser answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

# Commands OpenCode never asks the bash permission for (they only change folder).
FOLDER_COMMANDS = frozenset({"cd", "chdir", "popd", "pushd", "push-location", "set-location"})
# Commands whose path arguments OpenCode checks against the project folder
# (external_directory), besides the folder commands.
PATH_COMMANDS = FOLDER_COMMANDS | {"rm", "cp", "mv", "mkdir", "touch", "chmod", "chown", "cat"}
# Keywords tree-sitter puts outside the command node that follows them.
_RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "esac"}
)
# Statements tree-sitter does not parse as a command node (their substitutions are).
_NOT_COMMANDS = frozenset(
    {"export", "local", "declare", "readonly", "typeset", "unset", "[", "[[", "for", "select"}
)
_SEPARATORS = ("&&", "||", "|&", ";;", ";", "|", "&", "\n")
# After these, a command is not the first of its list or pipeline.
_CHAINS = ("&&", "||", "|&", "|")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
_REDIRECTION = re.compile(r"(\d*)(<<<|<<-|<<|&>>|>>|>&|<&|>\||<>|&>|>|<)(.*)", re.S)
_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([^\s'\"<>;&|()]+)\2")
# A run of characters none of _split's cases starts with: passed at once.
_PLAIN = re.compile(r"[^\\'\"`$()<>#\n;&|]+")
# Substitutions and subshells nested deeper than this are each taken as one
# command, unsplit: each level is scanned again, so depth costs time, and no
# real line nests so deep.
MAX_DEPTH = 32


class Command(NamedTuple):
    text: str  # the command's own text, as the runtime matches it against patterns
    words: tuple[str, ...]  # its words, quotes removed (no expansion)

    @property
    def name(self) -> str:
        return self.words[0] if self.words else ""


class _Piece(NamedTuple):
    """One command's source at one level, and what is nested inside it."""

    text: str
    inner: tuple[str, ...]  # substitutions, subshells: split after the command
    chained: bool  # after `&&`, `||` or `|`: trailing redirections are not its own
    ends: str = ""  # the separator after it ("" at the end or before a comment)
    blank: bool = False  # nothing stands there: no word, subshell or arithmetic


def commands(line: str) -> list[Command]:
    """Every command of the line, in OpenCode's order: each command, then the
    ones nested inside it, then the next."""
    found: list[Command] = []
    # A stack, not recursion: nesting depth is the input's to choose.
    pending: list[tuple[str, str, int]] = [("nested", line, 0)]
    while pending:
        kind, text, depth = pending.pop()
        if kind == "command":
            _add(text, found, chained=depth < 0)
            continue
        if depth >= MAX_DEPTH:  # too deep to split further: asked about as one command
            _add(text, found, chained=False)
            continue
        for piece in reversed(_split(text)):
            pending.extend(("nested", part, depth + 1) for part in reversed(piece.inner))
            pending.append(("command", piece.text, -1 if piece.chained else 0))
    return found


def asked(line: str, split: Sequence[Command] | None = None) -> list[Command]:
    """The commands OpenCode asks the bash permission for (not the folder changes);
    `split`: the line's commands, when the caller has them already.
    A line that ends in `&&`, `||` or `|` gets an empty command from tree-sitter
    (a MISSING word), and OpenCode asks about it too, as the text ``."""
    found = [
        c for c in (commands(line) if split is None else split) if c.name not in FOLDER_COMMANDS
    ]
    if _last(_split(line)) in _CHAINS:
        found.append(Command("", ()))
    return found


def missing(line: str) -> str | None:
    """What bash misses in a line that has a control operator with no command
    on one side (`npm test &&`, `; ls`, `a && && b`): bash refuses such a line, a
    syntax error, and runs none of it. None when every operator has its commands."""
    pieces = _split(line)
    # `;;` ends a `case` branch, which may be empty.
    before = next((p.ends for p in pieces if p.blank and p.ends not in ("", "\n", ";;")), None)
    if before is not None:
        return f"no command before `{before}`"
    after = _last(pieces)
    return f"no command after `{after}`" if after in _CHAINS else None


def _last(pieces: list[_Piece]) -> str:
    """The separator after the last piece that is not blank."""
    return next((p.ends for p in reversed(pieces) if not p.blank), "")


def written_words(text: str) -> list[str]:
    """A command's words as written, quotes and escapes kept (`'git' st"a"tus`)."""
    return [text[begin:end] for begin, end, _ in _spans(text)]


def _split(text: str) -> list[_Piece]:
    """The commands of `text` at its own level, each with what is nested inside."""
    pieces: list[_Piece] = []
    inner: list[str] = []
    heredocs: list[tuple[str, bool, bool]] = []  # delimiter, tabs stripped, expanded
    opener: tuple[int, int] | None = None  # the piece that opened them, and its start
    start = 0
    begun = 0  # where the piece begun (start passes a subshell or arithmetic)
    chained = False
    i = 0
    while i < len(text):
        plain = _PLAIN.match(text, i)
        if plain:
            i = plain.end()
            continue
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
        if text.startswith("$((", i) or _arithmetic_at(text, i, start):
            # Arithmetic, no command: only the substitutions inside it are.
            opening = i + 1 if char == "$" else i
            end = _paren_end(text, opening + 1)
            _substitutions(text[opening + 2 : end], inner)
            i = end + 1
            if char == "(":
                start = i
            continue
        if text.startswith("$(", i) or (char in "<>" and text.startswith("(", i + 1)):
            end = _paren_end(text, i + 2)
            inner.append(text[i + 2 : end])
            i = end + 1
            continue
        if char == "(" and _keywords_only(text[start:i]):
            end = _paren_end(text, i + 1)
            inner.append(text[i + 1 : end])
            start = i = end + 1
            continue
        if char == "#" and (i == 0 or text[i - 1] in " \t\n;&|()"):
            # A comment: what stands before it is the command, up to the line's end.
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            blank = not text[begun:i].strip()
            pieces.append(_Piece(text[start:i], tuple(inner), chained, blank=blank))
            inner = []
            start = begun = i = end
            continue
        heredoc = _HEREDOC.match(text, i) if text.startswith("<<", i) else None
        if heredoc and not text.startswith("<<<", i):
            heredocs.append((heredoc[3], heredoc[1] == "-", not heredoc[2]))
            i = heredoc.end()
            continue
        if char == "\n" and heredocs:
            # The here-documents' lines belong to the command that opened them,
            # and so does the rest of its line (tree-sitter's tree says so).
            end = _heredoc_bodies(text, i, heredocs, inner)
            if opener is None:
                pieces.append(_Piece(text[start:end], tuple(inner), chained, "\n"))
            else:
                at, first = opener
                piece = pieces[at]
                pieces[at] = _Piece(text[first:end], piece.inner, piece.chained, piece.ends)
                blank = not text[begun:i].strip()
                pieces.append(_Piece(text[start:i], tuple(inner), chained, "\n", blank))
            inner, heredocs, opener, chained = [], [], None, False
            start = begun = i = end
            continue
        separator = _separator_at(text, i)
        if separator:
            if heredocs and opener is None:
                opener = (len(pieces), start)
            blank = not text[begun:i].strip()
            pieces.append(_Piece(text[start:i], tuple(inner), chained, separator, blank))
            inner = []
            chained = separator in _CHAINS
            i += len(separator)
            start = begun = i
            continue
        i += 1
    pieces.append(_Piece(text[start:], tuple(inner), chained, blank=not text[begun:].strip()))
    return pieces


def _arithmetic_at(text: str, i: int, start: int) -> bool:
    """`(( … ))` stands as a command at i; `((a) && b)` is two subshells."""
    if not text.startswith("((", i) or not _keywords_only(text[start:i]):
        return False
    inside = text[i + 2 : _paren_end(text, i + 1)]
    return "(" not in inside.replace("$(", "")


def _keywords_only(text: str) -> bool:
    """Nothing but keywords (`if`, `{`, `!`, …) stands before: a `(` opens a subshell."""
    return all(word in _RESERVED for word in text.split())


def _heredoc_bodies(
    text: str, newline: int, heredocs: list[tuple[str, bool, bool]], inner: list[str]
) -> int:
    """The end of the line closing the last here-document begun on the line that
    ends at `newline`; substitutions in an unquoted one go to `inner`."""
    at = newline + 1
    for delimiter, tabs, expanded in heredocs:
        body_start = at
        while at < len(text):
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            line = text[at:end]
            if (line.lstrip("\t") if tabs else line) == delimiter:
                if expanded:
                    _substitutions(text[body_start:at], inner)
                at = end + 1 if end < len(text) else end
                break
            at = end + 1
        else:
            if expanded:
                _substitutions(text[body_start:], inner)
            return len(text)
    # Back onto the newline that ends the last delimiter's line: it separates.
    return at - 1 if at <= len(text) and text[at - 1 : at] == "\n" else at


def _substitutions(text: str, inner: list[str]) -> None:
    """The command substitutions in `text` (arithmetic, a here-document) to `inner`."""
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == "`":
            end = _backtick_end(text, i)
            inner.append(text[i + 1 : end])
            i = end + 1
        elif text.startswith("$((", i):
            end = _paren_end(text, i + 2)
            _substitutions(text[i + 3 : end], inner)
            i = end + 1
        elif text.startswith("$(", i):
            end = _paren_end(text, i + 2)
            inner.append(text[i + 2 : end])
            i = end + 1
        else:
            i += 1


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


def _add(text: str, found: list[Command], *, chained: bool) -> None:
    spans = _spans(text)
    # Keywords open or close a compound statement: not part of a command.
    while spans and spans[0][2] in _RESERVED:
        # After `{`, `then`, `do`, … a new list begins; `!` gives it its redirections.
        chained = spans[0][2] == "!"
        spans = spans[1:]
    spans = _without_headers(spans)
    if not spans or spans[0][2] in _NOT_COMMANDS:
        return
    words = [word for _, _, word in spans]
    kept = len(spans)
    if chained:  # trailing redirections belong to the list, not to this command
        kept = _trailing_redirections(words)
    if all(_ASSIGNMENT.match(w) for w in words) or _trailing_redirections(words) == 0:
        return  # assignments or redirections alone: no command
    spans = spans[:kept]
    # Python's strip: what the runtimes trim (a form feed, a line separator) too.
    own = text[spans[0][0] : spans[-1][1]].strip()
    if own:
        found.append(Command(own, tuple(w for *_, w in spans)))


def _without_headers(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """A command behind the head of a `case` branch or a function definition."""
    if spans and spans[0][2] == "function":  # `function f { …` and `function f() { …`
        spans = spans[2:]
        if spans and spans[0][2] == "()":
            spans = spans[1:]
    elif spans and spans[0][2].endswith("()") and len(spans[0][2]) > 2:  # `f() { …`
        spans = spans[1:]
    elif spans and spans[0][2] == "case":  # `case x in y) cmd`: drop up to the pattern
        at = next((n for n, span in enumerate(spans) if span[2] == "in"), len(spans))
        spans = spans[at + 1 :]
        spans = _after_pattern(spans)
    else:
        spans = _after_pattern(spans)
    while spans and spans[0][2] in ("{", "}"):
        spans = spans[1:]
    return spans


def _after_pattern(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The command after a `case` pattern (`y)`, `*.md|*.txt)`), if one leads."""
    for n, (_, _, word) in enumerate(spans):
        if word.endswith(")") and "(" not in word:
            return spans[n + 1 :]
        if "(" in word or n > 3:
            break
    return spans


def _trailing_redirections(words: list[str]) -> int:
    """How many words stand before the redirections that end the command."""
    tail: int | None = None
    n = 0
    while n < len(words):
        found = _REDIRECTION.fullmatch(words[n])
        if found is None or (found[1] and found[2] in ("&>", "&>>")):
            tail = None
            n += 1
            continue
        if tail is None:
            tail = n
        n += 1 if found[3] else 2
    return len(words) if tail is None else tail


def _spans(text: str) -> list[tuple[int, int, str]]:
    """Each word's start, end and text: split at unquoted blanks, quotes
    removed, escapes kept as written."""
    words: list[tuple[int, int, str]] = []
    word: list[str] = []
    begin = -1
    i = 0
    while i < len(text):
        char = text[i]
        if char in " \t" or text.startswith("\\\n", i):  # a blank, or a line continued
            if begin >= 0:
                words.append((begin, i, "".join(word)))
                word, begin = [], -1
            i += 1 if char != "\\" else 2
            continue
        if begin < 0:
            begin = i
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
    if begin >= 0:
        words.append((begin, len(text), "".join(word)))
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
