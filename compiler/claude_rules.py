"""Claude Code tools and permission rules (claude-code 2.1.332), as promptc writes them.

Each Claude tool promptc can grant stands for one OpenCode permission (TOOLS,
tabled in docs/targets/claude.md); "asks" is what it does when no settings rule
matches. OpenCode's `list` has no counterpart because Claude Code removed LS
(Glob lists files under `glob`'s permission).

A settings rule is `Tool` (the whole tool) or `Tool(specifier)`:

- Bash specifiers are command globs: `*` is any run of characters, a
  trailing ` *` is optional (`git status *` also matches `git status`), a
  trailing `:*` means the same as ` *`. That is OpenCode's own wildcard
  except for `?` (one character in OpenCode, not special in Claude Code) and
  `:*`.
- Read and Edit specifiers are gitignore-style paths relative to the working
  directory (the project root): `*` stays inside one folder, `**` crosses
  folders, a pattern without `/` matches at any depth, a matched folder
  covers everything in it. OpenCode's `*` crosses folders, so the two agree
  only on some shapes (`src/**`); otherwise promptc writes a rule that is
  surely wider (for deny and ask) or none at all (for allow).

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

from compiler import wildcard


@dataclass(frozen=True)
class Tool:
    name: str
    permission: str
    kind: str  # command | path | name | plain
    asks: bool  # True: Claude Code asks when no settings rule matches


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
    Tool("Skill", "skill", "plain", asks=True),
    Tool("LSP", "lsp", "plain", asks=False),
)
TOOL_NAMES = tuple(tool.name for tool in TOOLS)
PERMISSIONS = tuple(dict.fromkeys(tool.permission for tool in TOOLS))


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


# OpenCode replaces a leading `~` or `$HOME` of any pattern with the home
# folder. promptc translates with this stand-in, so the output never depends
# on the machine, and maps it back to Claude Code's own `~/`.
HOME = "/~"


def cover(kind: str, pattern: str) -> Pattern:
    """A rule matching every input the OpenCode pattern matches (and maybe more)."""
    if wildcard.universal(pattern):
        return WHOLE
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
    return WHOLE


def _cover_absolute(pattern: str) -> Pattern:
    """An absolute path pattern (project paths are relative, so it matches none of
    them): Claude Code's `~/` for the home folder, `//` for the file-system root."""
    home = pattern == HOME or pattern.startswith(HOME + "/")
    rest = pattern[len(HOME) + 1 :] if home else pattern[1:]
    found = _cover_path(rest) if rest and not wildcard.universal(rest) else Pattern("**", (), ())
    specifier = ("~/" if home else "//") + (found.specifier or "**")
    return Pattern(specifier, (pattern,), (pattern,))


def inside(kind: str, pattern: str) -> Pattern | None:
    """A rule matching only inputs the OpenCode pattern matches, or None when
    Claude Code cannot say it without matching more."""
    if wildcard.universal(pattern):
        return WHOLE
    if kind == "command":
        if _PARENS.search(pattern) or pattern.endswith(":*") or pattern.startswith(HOME):
            return None
        return Pattern(pattern, (pattern,), (pattern,))
    if kind == "path":
        if pattern.startswith("/"):
            return None
        folder = _folder_glob(_squash(pattern))
        return Pattern(f"{folder}/**", (pattern,), (pattern,)) if folder else None
    return None


_RULE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)(?:\(([^()]*)\))?")
_SEPARATOR = re.compile(r"[\s,]+(?![^()]*\))")  # not inside `(...)`


def split_rules(written: object) -> list[str]:
    """A skill's `allowed-tools` as rules: a list as written, or one string split at
    commas and spaces outside parentheses (`Read, Bash(git diff *)`)."""
    if isinstance(written, list):
        return [str(item) for item in written]
    return [rule for rule in _SEPARATOR.split(str(written or "")) if rule]


def pre_approved(rule: str) -> tuple[str, str] | None:
    """The permission of the tool a rule such as `Bash(git status:*)` names, and an
    OpenCode pattern matching every input it pre-approves: the same inputs where
    `inside` gives the rule back, else every input of the tool. None: not a rule of
    a tool promptc knows (an MCP tool, unbalanced parentheses)."""
    found = _RULE.fullmatch(rule.strip())
    tool = next((t for t in TOOLS if found and t.name == found[1]), None)
    if found is None or tool is None:
        return None
    # no specifier: the whole tool; a trailing `:*` reads as ` *` (for Bash; no other
    # tool's rules have an exact form with either)
    specifier = re.sub(r":\*$", " *", found[2] or "*")
    pattern = specifier[:-1] if tool.kind == "path" and specifier.endswith("/**") else specifier
    exact = inside(tool.kind, pattern)
    same = exact is not None and (exact.whole or exact.specifier == specifier)
    return tool.permission, pattern if same else "*"


def _cover_command(pattern: str) -> Pattern:
    text = pattern.replace("?", "*")
    if text.endswith(":*"):  # Claude Code reads a trailing `:*` as ` *`
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
    squashed = _squash(pattern.replace("?", "*"))
    folder = _folder_glob(squashed)
    if "*" not in squashed and "/" in squashed.strip("/") and not squashed.startswith("/"):
        # a literal path with a folder: anchored, and a folder covers its contents
        return Pattern(squashed, (pattern,), (squashed,))
    if folder:
        return Pattern(f"{folder}/**", (pattern,), (f"{folder}/*",))
    if "/" not in squashed.strip("*") and _stars_at_ends(squashed):
        reach = squashed if squashed.startswith("*") else f"*{squashed}"
        return Pattern(f"**/{squashed}", (pattern,), (reach,))
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
