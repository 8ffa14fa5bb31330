"""The spellings of one shell command that Claude Code (claude 2.1.332) reads as the same.

Seen on the binary, run offline against a scripted model endpoint
(tests/claude/test_spellings_claude.py holds these to it):

- A run of blanks, or a tab, is one space to every Bash rule:
  `Bash(git add *)` allows `git  add x`.
- An allow rule also matches once Claude Code has set aside what stands in
  front of the command (FRONT: `nohup`, `timeout 5`, `command`, `xargs`,
  `time`, `nice`, `builtin`, `stdbuf -o0`, `noglob`, with their options;
  assignments of SAFE_VARIABLES, `LANG=C`, but not `FOO=1`) and the quotes
  and backslashes of the first word (`'make' x`, `m'a'ke x`, `\\make x`);
  not those of a later word (`git 'add' a` asks).
- A deny or an ask rule matches the words with their quotes and backslashes
  gone, behind `nohup`, `timeout`, `command`, `time`, `nice`, `env` and any
  assignment (`Bash(rm *)` refuses `FOO=1 env 'rm' x`). A rule that starts
  with a quote matches the command as written too (`Bash('*)` asks about
  `'make' x`); one with a backslash in it matches nothing, so no rule asks
  about `\\make x` and not about `make x`.
- Its read-only commands run unasked in any of these spellings: quoted words
  (`git 'status'`, `g'i't status`), blanks, behind READ_ONLY_FRONT (`command`,
  `timeout 5`, `builtin`, `noglob`) and SAFE_VARIABLES; not behind `nohup`,
  `time`, `nice`, `env` or `stdbuf`, which ask.

OpenCode matches the command as written (`"git status*": allow` asks about
`git  status`): an allow is written only where OpenCode allows every
spelling Claude Code reads it in (`reach`), and a read-only command gets an
ask wherever OpenCode asks about one of its spellings (`spellings`).
"""

from __future__ import annotations

import re

from promptc_compiler.permissions import shell

# What Claude Code sets aside in front of a command before it reads an allow rule.
FRONT = ("nohup", "timeout", "command", "xargs", "time", "nice", "builtin", "stdbuf", "noglob")
# ... before it reads a deny or an ask rule (behind any assignment too).
STOP_FRONT = ("nohup", "timeout", "command", "time", "nice", "env")
# ... before it tells whether a command is one of its read-only ones.
READ_ONLY_FRONT = ("command", "timeout", "builtin", "noglob")
# Wrappers an allow may also reach behind: FRONT, and those the binary lists
# beside them that were not seen (an allow is written only where OpenCode
# allows every command behind them too).
REACH_FRONT = (*FRONT, "env", "sudo", "doas")
# The variables an assignment in front of a command may set (the binary's list).
SAFE_VARIABLES = frozenset(
    {
        *("GOEXPERIMENT", "GOOS", "GOARCH", "CGO_ENABLED", "GO111MODULE", "RUST_BACKTRACE"),
        *("RUST_LOG", "NODE_ENV", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE"),
        *("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_DEBUG", "ANTHROPIC_API_KEY", "LANG"),
        *("LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_TIME", "CHARSET", "TERM", "COLORTERM"),
        *("NO_COLOR", "FORCE_COLOR", "TZ", "LS_COLORS", "LSCOLORS", "GREP_COLOR"),
        *("GREP_COLORS", "GCC_COLORS", "TIME_STYLE", "BLOCK_SIZE", "BLOCKSIZE", "COLUMNS"),
        *("LINES", "CLICOLOR", "CLICOLOR_FORCE", "CI", "DEBIAN_FRONTEND", "GIT_TERMINAL_PROMPT"),
    }
)
QUOTES = ("'", '"', "\\")
_BLANKS = re.compile(r"[ \t]+")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_DURATION = re.compile(r"\d+(\.\d+)?[smhd]?")
# Options of a wrapper that take the next word as their value.
_VALUED = frozenset({"-n", "-s", "-k", "-I", "-L", "-P", "-d", "-E", "-i", "-o", "-e"})


def blanks(text: str) -> str:
    """Runs of blanks as one space, none at the ends."""
    return _BLANKS.sub(" ", text).strip()


def dequoted(word: str) -> str:
    """A word without its quotes and backslashes, as Claude Code compares it."""
    return word.replace("'", "").replace('"', "").replace("\\", "")


def first_words(pattern: str) -> str:
    """The literal words a pattern starts with, up to its first wildcard."""
    return blanks(re.split(r"[*?]", pattern, maxsplit=1)[0])


def _front(words: list[str], fronts: tuple[str, ...], variables: frozenset[str] | None) -> int:
    """How many of the words stand in front of the command; `variables` None: any."""
    at = 0
    while at < len(words):
        word = dequoted(words[at])
        assigned = _ASSIGNMENT.match(words[at])
        if assigned and (variables is None or assigned[1] in variables):
            at += 1
        elif word in fronts:
            at = _options(words, at + 1, word)
        else:
            break
    return at


def _options(words: list[str], at: int, wrapper: str) -> int:
    """Past a wrapper's options (and a timeout's duration)."""
    while at < len(words) and words[at].startswith("-"):
        at += 2 if words[at] in _VALUED else 1
    if wrapper == "timeout" and at < len(words) and _DURATION.fullmatch(words[at]):
        at += 1
    return at


def _read_only_front(words: list[str]) -> int:
    """As _front for read-only commands: `timeout` with a duration alone, `command -p`."""
    at = 0
    while at < len(words):
        word = dequoted(words[at])
        assigned = _ASSIGNMENT.match(words[at])
        if assigned and assigned[1] in SAFE_VARIABLES:
            at += 1
        elif word == "timeout" and at + 1 < len(words) and _DURATION.fullmatch(words[at + 1]):
            at += 2
        elif word in READ_ONLY_FRONT and word != "timeout":
            at += 1 + (word == "command" and words[at + 1 : at + 2] == ["-p"])
        else:
            break
    return at


def allow_texts(text: str) -> tuple[str, ...]:
    """The texts Claude Code matches an allow rule against (blanks as one space)."""
    words = shell.written_words(text)
    rest = words[_front(words, FRONT, SAFE_VARIABLES) :]
    found = [blanks(text)]
    if rest:
        found.append(" ".join([dequoted(rest[0]), *rest[1:]]))
    return tuple(dict.fromkeys(found))


def stop_texts(text: str) -> tuple[str, ...]:
    """The texts Claude Code matches a deny or an ask rule against."""
    words = shell.written_words(text)
    rest = words[_front(words, STOP_FRONT, None) :]
    found = [blanks(text), " ".join(dequoted(w) for w in words)]
    found.append(" ".join(dequoted(w) for w in rest))
    return tuple(dict.fromkeys(t for t in found if t))


def read_only_command(command: shell.Command) -> shell.Command:
    """The command Claude Code tells read-only or not: what stands in front of it
    set aside, every word without its quotes and backslashes."""
    words = shell.written_words(command.text)
    rest = words[_read_only_front(words) :]
    return shell.Command(" ".join(rest), tuple(dequoted(w) for w in rest))


def spellings(form: str) -> tuple[str, ...]:
    """OpenCode globs of the spellings Claude Code runs read-only command `form`
    in (with any arguments), but for what stands in front (`fronts`)."""
    found = [f"{form} *", *(f"{spelled} *" for spelled in _blank_spellings(form))]
    found += [f"{form[:end]}{quote}*" for end in range(len(form) + 1) for quote in QUOTES]
    return tuple(dict.fromkeys(found))


def fronts() -> tuple[str, ...]:
    """OpenCode globs of what may stand in front of a read-only command."""
    return (*(f"{w} *" for w in READ_ONLY_FRONT), *(f"{v}=*" for v in sorted(SAFE_VARIABLES)))


def reach(pattern: str) -> tuple[str, ...]:
    """OpenCode globs of every command an allow of `pattern` may run in Claude Code:
    the pattern, its other blanks, any quote or backslash, anything in front."""
    found = [pattern, *_blank_spellings(pattern)]
    found += [f"*{quote}*" for quote in QUOTES]
    found += [f"{w} *" for w in REACH_FRONT]
    found.append("*=*")
    return tuple(dict.fromkeys(found))


def _blank_spellings(pattern: str) -> list[str]:
    """The pattern with two blanks, or a tab, for each run of blanks, and for all."""
    runs = list(_BLANKS.finditer(pattern))
    found = []
    for blank in ("  ", "\t"):
        found.append(_BLANKS.sub(blank, pattern))
        found += [pattern[: run.start()] + blank + pattern[run.end() :] for run in runs]
    return [spelled for spelled in dict.fromkeys(found) if spelled != pattern]
