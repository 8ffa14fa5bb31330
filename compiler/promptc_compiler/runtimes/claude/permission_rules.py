"""Claude Code tools and permission rules (claude-code 2.1.332), as promptc writes them.

Each Claude tool promptc can grant stands for one OpenCode permission (TOOLS,
tabled in docs/targets/claude.md); "asks" is what it does when no settings rule
matches. OpenCode's `list` has no counterpart because Claude Code removed LS
(Glob lists files under `glob`'s permission).

Facts below were found by running claude 2.1.332 offline against a scripted
model endpoint (one tool call per turn, the CLI's tool result read back) and
by reading the tables the binary carries; compiler/promptc_compiler/runtimes/claude/decide.py models
them and tests/test_decisions_claude.py holds the model to the binary.

A settings rule is `Tool` (the whole tool) or `Tool(specifier)`:

- Bash specifiers are command globs: `*` is any run of characters, a
  trailing ` *` is optional (`git status *` also matches `git status`), a
  trailing `:*` means the same as ` *`. That is OpenCode's own wildcard
  except for `?` (one character in OpenCode, not special in Claude Code) and
  `:*`.
- A command is matched as the shell reads it, backslashes gone: a Bash rule
  with a backslash (`Bash(C:\\tools\\*)`) matches nothing it says.
- Claude Code runs its read-only commands (READ_ONLY: `cat`, `ls`, `git
  show`, ...) without asking when no deny or ask rule matches them, whatever
  else the settings say, and in any spelling (`git  status`, `'git' status`,
  `LANG=C git status`: variants); an ask rule such as `Bash(cat *)` does
  make it ask, in every spelling. An allow reaches the command's other
  spellings too (`inside`'s reach), which OpenCode matches as written.
- Read and Edit specifiers are gitignore-style paths relative to the working
  directory (the project root), matched in any case (OpenCode keeps the
  case): `*` stays inside one folder, `**` crosses folders, a pattern
  without `/` matches at any depth, a matched folder covers everything in
  it (`src/**` matches `src` itself, `src/**/*` only what is inside).
  OpenCode's `*` crosses folders, so the two agree only on some shapes
  (`src/*`, and then only without letters); otherwise promptc writes a rule
  that is surely wider (for deny and ask) or none at all (for allow). A
  whole-tool `Edit` allow holds outside the project too, so an allow of
  every path is `Edit(/**)`, the project only. Read and Edit deny rules also
  stop the shell commands that read or write the paths they match (`cat
  .env`, `rm .env`).
- Skill specifiers are a skill's name or a prefix written `name:*`; a deny
  of either holds, an ask of one is not read by 2.1.332 (only a whole-tool
  `Skill` ask asks). A skill runs unasked when no rule decides it, unless
  its frontmatter carries `allowed-tools`.

Every rule promptc writes remembers two sets of inputs as OpenCode globs:
`exact`, inputs the rule certainly matches (used to prove a deny or ask
covers what it must), and `reach`, inputs it may match (used to prove an
allow grants nothing it must not, and to report what a deny takes away).
One simplification in `reach` of deny and ask path rules: a folder whose own
name matches (a folder called `x.lock/`) is not counted, so the report does
not list losses that only such folders would cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.ruleset import HOME_STAND_IN
from promptc_compiler.runtimes.claude import variants


class Tool(NamedTuple):
    name: str
    permission: str
    kind: str  # command | path | name | skill | plain
    asks: bool  # True: Claude Code may ask when no settings rule matches

    @property
    def asks_always(self) -> bool:
        """Whether Claude Code asks for every call no settings rule decides. A skill
        runs unasked unless it carries `allowed-tools`: `asks` stays True for the
        importer, which must not write an allow Claude Code might ask for, and the
        translation reads this."""
        return self.asks and self.kind != "skill"


TOOLS = (
    Tool("Read", "read", "path", asks=False),
    Tool("Edit", "edit", "path", asks=True),
    Tool("Write", "edit", "path", asks=True),
    Tool("NotebookEdit", "edit", "path", asks=True),
    Tool("Glob", "glob", "plain", asks=False),
    Tool("Grep", "grep", "plain", asks=False),
    Tool("Bash", "bash", "command", asks=True),
    Tool("WebFetch", "webfetch", "plain", asks=True),
    Tool("WebSearch", "websearch", "plain", asks=True),
    Tool("Agent", "task", "name", asks=False),
    Tool("TodoWrite", "todowrite", "plain", asks=False),
    Tool("AskUserQuestion", "question", "plain", asks=False),
    Tool("Skill", "skill", "skill", asks=True),
    Tool("LSP", "lsp", "plain", asks=False),
)
TOOL_NAMES = tuple(tool.name for tool in TOOLS)
PERMISSIONS = tuple(dict.fromkeys(tool.permission for tool in TOOLS))

# The commands Claude Code may run without asking, read from the binary's own
# lists (a command name, or a name and its subcommand): each runs unasked
# when its arguments pass the binary's checks and no deny or ask rule
# matches it. `cd` is left out: OpenCode never asks about it either.
READ_ONLY = (
    *("cat", "head", "tail", "wc", "stat", "strings", "hexdump", "od", "nl", "id"),
    *("uname", "free", "df", "du", "locale", "groups", "nproc", "basename", "dirname"),
    *("realpath", "cut", "paste", "tr", "column", "tac", "rev", "fold", "expand"),
    *("unexpand", "fmt", "comm", "cmp", "numfmt", "readlink", "diff", "true", "false"),
    *("sleep", "type", "expr", "seq", "tsort", "pr", "cal", "uptime"),
    *("echo", "printf", "ls", "find", "uniq", "pwd", "whoami", "history", "arch"),
    *("ifconfig", "jq", "test", "[", "[[", "ip addr", "node -v", "node --version"),
    *("python --version", "python3 --version", "claude -h", "claude --help"),
    *("xargs", "file", "sed", "sort", "man", "help", "netstat", "ps", "base64"),
    *("grep", "egrep", "fgrep", "rg", "sha256sum", "sha1sum", "md5sum", "tree"),
    *("date", "hostname", "which", "lsof", "pgrep", "tput", "ss", "fd", "fdfind"),
    *("docker ps", "docker images", "docker logs", "docker inspect"),
    *("git status", "git diff", "git log", "git show", "git shortlog", "git reflog"),
    *("git stash list", "git stash show", "git ls-remote", "git blame", "git ls-files"),
    *("git config --get", "git remote", "git merge-base", "git rev-parse", "git rev-list"),
    *("git describe", "git cat-file", "git for-each-ref", "git grep", "git worktree list"),
    *("git tag", "git branch"),
)


def group(permission: str) -> tuple[Tool, ...]:
    """The Claude tools one OpenCode permission decides, in TOOLS order."""
    return tuple(tool for tool in TOOLS if tool.permission == permission)


def rule_tool(tools: tuple[Tool, ...]) -> Tool:
    """The tool whose name a specifier rule carries: `Edit(...)` covers Write
    and NotebookEdit too, `Read(...)` covers Read."""
    return tools[0]


@dataclass(frozen=True)
class Pattern:
    """A rule's specifier (None: the whole tool) and what it matches, as OpenCode globs."""

    specifier: str | None
    exact: tuple[str, ...]
    reach: tuple[str, ...]

    @property
    def whole(self) -> bool:
        return self.specifier is None


WHOLE = Pattern(None, ("*",), ("*",))
_PARENS = re.compile(r"[()]")


def _squash(pattern: str) -> str:
    """OpenCode reads `**` as `*`; one star is enough."""
    return re.sub(r"\*{2,}", "*", pattern)


# The stand-in for OpenCode's home folder in a translation, mapped back to
# Claude Code's own `~/`.
HOME = HOME_STAND_IN


# What `promptc import claude` asks about for Claude Code's own "suspicious
# path" ask: a path whose last name ends in a dot once trailing spaces are
# trimmed (`a.`, `a. `), and, as OpenCode's trailing ` *` reads, a last name
# with a dot and a space inside (`a. b`). Claude Code asks for the first kind
# by itself, so an ask of it needs a rule for the second kind only.
SUSPICIOUS = "*?. *"
_SUSPICIOUS_RULE = Pattern("//**/*. *", (SUSPICIOUS,), ("*. *",))


def cover(kind: str, pattern: str, action: str = "deny") -> Pattern:
    """A rule matching every input the OpenCode pattern matches (and maybe more),
    for a deny or an ask."""
    if wildcard.universal(pattern):
        return WHOLE
    if kind == "path" and action == "ask" and pattern == SUSPICIOUS:
        return _SUSPICIOUS_RULE
    if kind == "command":
        if pattern.startswith(HOME):  # the machine's home folder: any folder will do
            pattern_text = "*" + pattern[len(HOME) :]
            found = _cover_command(pattern_text)
            return Pattern(found.specifier, (pattern,), found.reach)
        return _cover_command(pattern)
    if kind == "path":
        if pattern.startswith("/"):
            return _cover_absolute(pattern)
        return _cover_path(pattern)
    if kind == "skill" and action == "deny":
        return _cover_skill(pattern)
    return WHOLE


def _cover_skill(pattern: str) -> Pattern:
    """A skill's name, or the part before its first wildcard as a prefix (`cave:*`).
    Claude Code trims the name it is asked for (`git ` loads `git`), so the rule
    is written trimmed too: `git *` denies `git:*`, which also holds `git`."""
    if wildcard.is_literal(pattern) and pattern.strip() and not pattern.startswith(HOME):
        return Pattern(pattern.strip(), (pattern,), (pattern,))
    prefix = re.split(r"[*?]", pattern, maxsplit=1)[0].strip()
    # `~/x*`: OpenCode reads the machine's home folder there, unknown to the build.
    if not prefix or "(" in prefix or ")" in prefix or prefix.startswith(HOME):
        return Pattern(None, (pattern,), ("*",))
    return Pattern(f"{prefix}:*", (pattern,), (f"{prefix}*",))


def _cover_absolute(pattern: str) -> Pattern:
    """An absolute path pattern (project paths are relative, so it matches none of
    them): Claude Code's `~/` for the home folder, `//` for the file-system root."""
    home = pattern == HOME or pattern.startswith(HOME + "/")
    rest = pattern[len(HOME) + 1 :] if home else pattern[1:]
    found = _cover_path(rest) if rest and not wildcard.universal(rest) else Pattern("**", (), ())
    specifier = ("~/" if home else "//") + (found.specifier or "**")
    return Pattern(specifier, (pattern,), (pattern,))


# Every path of the project, and nothing outside it: a whole-tool `Edit` allow
# would hold outside the project too, where OpenCode asks (external_directory).
PROJECT = Pattern("/**", ("*",), ("*",))


def inside(kind: str, pattern: str) -> Pattern | None:
    """A rule matching only inputs the OpenCode pattern matches, or None when
    Claude Code cannot say it without matching more."""
    if wildcard.universal(pattern):
        # A whole-tool Edit or Bash allow holds outside the project too (Bash
        # runs `cat /etc/hosts` unasked): Edit(/**) says the project alone, and
        # nothing does for Bash, which then asks.
        return {"path": PROJECT, "command": None}.get(kind, WHOLE)
    if kind == "command":
        if _PARENS.search(pattern) or pattern.endswith(":*") or pattern.startswith(HOME):
            return None
        if "\\" in pattern:
            return None
        # Claude Code also runs the command's other spellings (variants.reach)
        return Pattern(pattern, (pattern,), variants.reach(pattern))
    if kind == "path":
        # Claude Code matches path rules in any case (`Edit(src/**/*)` allows
        # `SRC/a`), OpenCode in the case written: a folder glob is exact only
        # without letters. `src/**/*` is what is inside; `src/**` matches `src` too.
        folder = _folder_glob(_squash(pattern))
        if pattern.startswith("/") or not folder or folder.lower() != folder.upper():
            return None
        return Pattern(f"{folder}/**/*", (pattern,), (pattern,))
    return None


_RULE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)(?:\(([^()]*)\))?")
_SEPARATOR = re.compile(r"[\s,]+(?![^()]*\))")  # not inside `(...)`


def split_rules(written: object) -> list[str]:
    """A skill's `allowed-tools` as rules: a list as written, or one string split at
    commas and spaces outside parentheses (`Read, Bash(git diff *)`)."""
    if isinstance(written, list):
        return [str(item) for item in written]
    return [rule for rule in _SEPARATOR.split(str(written or "")) if rule]


def pre_approved(rule: str) -> tuple[str, tuple[str, ...]] | None:
    """The permission of the tool a rule such as `Bash(git status:*)` names, and
    OpenCode patterns matching every input it pre-approves between them: those
    `inside` reaches where it gives the rule back (a command's other spellings
    too), else every input of the tool. None: not a rule of a tool promptc knows
    (an MCP tool, unbalanced parentheses)."""
    found = _RULE.fullmatch(rule.strip())
    tool = next((t for t in TOOLS if found and t.name == found[1]), None)
    if found is None or tool is None:
        return None
    # no specifier: the whole tool; a trailing `:*` reads as ` *` (for Bash; no other
    # tool's rules have an exact form with either)
    specifier = re.sub(r":\*$", " *", found[2] or "*")
    pattern = specifier[:-1] if tool.kind == "path" and specifier.endswith("/**") else specifier
    exact = inside(tool.kind, pattern)
    if exact is None or not (exact.whole or exact.specifier == specifier):
        return tool.permission, ("*",)
    return tool.permission, exact.reach if tool.kind == "command" else (pattern,)


def _cover_command(pattern: str) -> Pattern:
    if "\\" in pattern:
        # Claude Code matches a command as the shell reads it (`C:\tools\x` is
        # `C:toolsx`): a rule with a backslash matches nothing it says.
        return Pattern(None, (pattern,), ("*",))
    text = pattern.replace("?", "*")
    if text.endswith(":*"):  # Claude Code reads a trailing `:*` as ` *`
        text = text[:-2] + "*"
    if text.endswith(" *") and text.count("*") > 1:
        # Claude Code makes a trailing ` *` optional only in a rule with one `*`:
        # `Bash(git st*tus *)` misses `git status`, which OpenCode's `git st?tus *`
        # matches. `git st*tus*` covers both (and more, which a stop may).
        text = text[:-2] + "*"
    cut = _PARENS.search(text)
    if cut:  # `Bash(a (b))` would not parse: keep the text before the paren
        text = text[: cut.start()].rstrip("*") + "*"
        if wildcard.universal(text):
            return Pattern(None, (pattern,), ("*",))
    return Pattern(text, (pattern,), (text,))


def _folder_glob(pattern: str) -> str | None:
    """`src/*` and `src/**` (everything under a literal folder): that folder."""
    if pattern.endswith("/*"):
        folder = pattern[:-2]
        if folder and "*" not in folder and "?" not in folder and not folder.startswith("/"):
            return folder
    return None


def _cover_path(pattern: str) -> Pattern:
    # Claude Code trims a path's trailing spaces before matching (`git ` is
    # `git`): a pattern that may match up to a space before its last star
    # (`git *`), or that ends in spaces (`ls `), is covered without them.
    squashed = re.sub(r"\s+(\*+)$", r"\1", _squash(pattern.replace("?", "*"))).rstrip()
    folder = _folder_glob(squashed)
    if "*" not in squashed and "/" in squashed.strip("/") and not squashed.startswith("/"):
        # a literal path with a folder: anchored, and a folder covers its contents
        return Pattern(squashed, (pattern,), (squashed,))
    if folder:
        return Pattern(f"{folder}/**", (pattern,), (f"{folder}/*",))
    if "/" not in squashed.strip("*") and _stars_at_ends(squashed):
        reach = squashed if squashed.startswith("*") else f"*{squashed}"
        # OpenCode matches a path outside the project by its relative form
        # (`../../home/u/.env` is a `*.env`): a leading star reaches there too,
        # and `//` is the file-system root in Claude Code.
        root = "//" if squashed.startswith("*") else ""
        return Pattern(f"{root}**/{squashed}", (pattern,), (reach,))
    rest = squashed[2:]
    if (
        squashed.startswith("*/")
        and "/" not in rest.strip("*")
        and _stars_at_ends(rest)
        and not wildcard.universal(rest)  # `*/*`: every path below a folder, the whole tool
    ):
        # `*/.env*` (what the import writes for `Read(./.env)`): the name at any
        # depth below a folder, and what is in it; from the file-system root, as
        # a path outside the project reaches OpenCode as `../x/.env`.
        ends = (rest,) if rest.startswith("*") else (rest, squashed)
        return Pattern(f"//**/{rest}", (pattern,), ends)
    head, tail = _split_tail(squashed)
    if head and "*" not in head and "/" not in tail.strip("*") and _stars_at_ends(tail):
        reach = f"{head}/{tail}" if tail.startswith("*") else f"{head}/*{tail}"
        return Pattern(f"{head}/**/{tail}", (pattern,), (reach,))
    prefix = squashed.split("*", 1)[0]
    folder = prefix.rsplit("/", 1)[0] if "/" in prefix else ""
    if folder and not folder.startswith("/"):
        return Pattern(f"{folder}/**", (pattern,), (f"{folder}/*",))
    return Pattern(None, (pattern,), ("*",))


def _stars_at_ends(text: str) -> bool:
    """Stars only at the start and end: `*.env`, `*.env.*`, `secret*`."""
    return "*" not in text.strip("*") and text != ""


def _split_tail(pattern: str) -> tuple[str, str]:
    """`src/*.ts` -> (`src`, `*.ts`): the literal folder before the first star's segment."""
    star = pattern.find("*")
    if star < 0:
        return "", pattern
    slash = pattern.rfind("/", 0, star)
    if slash < 0:
        return "", pattern
    return pattern[:slash], pattern[slash + 1 :]
